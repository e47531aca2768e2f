/* test_placement.c - a newcomer's leaf switches from its --nodelist
 * (placement.h): the leaf map built from topology.conf text, and when a
 * placement counts as known: every node named is in the map, and the job
 * asks for no more nodes than it names. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "placement.h"

/* four leaves of two nodes under one root, and a node no leaf holds */
static const char *topo_text = "SwitchName=s1 Nodes=n[1-2]\n"
                               "SwitchName=s2 Nodes=n[3-4]\n"
                               "SwitchName=s3 Nodes=n5,n6\n"
                               "SwitchName=s4 Nodes=n[7-8]\n"
                               "SwitchName=root Switches=s[1-4]\n";

static struct nv_leaf_map map;

static int setup(void **state)
{
    (void)state;
    nv_topo t;
    char err[256];
    nv_topo_init(&t);
    if (nv_topo_parse_slurm(&t, topo_text, "topology.conf", err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    int rc = nv_leaf_map_build(&map, &t, err, sizeof err);
    nv_topo_free(&t);
    return rc;
}

static int teardown(void **state)
{
    (void)state;
    nv_leaf_map_free(&map);
    return 0;
}

static void the_map_has_every_node_once(void **state)
{
    (void)state;
    assert_int_equal(map.n, 8);
    assert_int_equal(map.nleaves, 4);
    static const char *want[] = {"s1", "s1", "s2", "s2", "s3", "s3", "s4", "s4"};
    for (unsigned i = 1; i <= 8; i++) {
        char node[16];
        snprintf(node, sizeof node, "n%u", i);
        const char *sw = nv_leaf_map_find(&map, node);
        assert_non_null(sw);
        assert_string_equal(sw, want[i - 1]);
    }
    assert_null(nv_leaf_map_find(&map, "n9"));
    assert_null(nv_leaf_map_find(&map, "root"));
    assert_null(nv_leaf_map_find(NULL, "n1"));
    /* an empty topology gives an empty map, not an error */
    nv_topo t;
    struct nv_leaf_map lm;
    char err[64];
    nv_topo_init(&t);
    assert_int_equal(nv_leaf_map_build(&lm, &t, err, sizeof err), 0);
    assert_int_equal(lm.n, 0);
    nv_leaf_map_free(&lm);
}

/* the nodes under each leaf, largest first (contain's --switches count) */
static void the_map_counts_each_leaf_largest_first(void **state)
{
    (void)state;
    assert_int_equal(map.size_desc[0], 2);
    assert_int_equal(map.size_desc[3], 2);
    nv_topo t;
    struct nv_leaf_map lm;
    char err[256];
    nv_topo_init(&t);
    assert_int_equal(nv_topo_parse_slurm(&t,
                                         "SwitchName=a Nodes=n[1-3]\nSwitchName=b Nodes=n9\n"
                                         "SwitchName=c Nodes=n[4-8]\n",
                                         "topology.conf", err, sizeof err),
                     0);
    assert_int_equal(nv_leaf_map_build(&lm, &t, err, sizeof err), 0);
    nv_topo_free(&t);
    assert_int_equal(lm.nleaves, 3);
    assert_int_equal(lm.size_desc[0], 5);
    assert_int_equal(lm.size_desc[1], 3);
    assert_int_equal(lm.size_desc[2], 1);
    nv_leaf_map_free(&lm);
}

static nv_leaf_set set_of(const char *list)
{
    nv_leaf_set s = {{0}};
    nv_leaf_set_add_list(&s, list);
    return s;
}

/* the placement of a job that names req, as nv_submit_decide reads it */
static void place(const struct nv_leaf_map *lm, const char *req, uint32_t min, uint32_t max,
                  struct nv_placement *p)
{
    struct nv_named_nodes nn;
    nv_named_nodes_read(&nn, req);
    nv_placement_of(lm, &nn, min, max, p);
    nv_named_nodes_free(&nn);
}

static void known_placements(void **state)
{
    (void)state;
    struct nv_placement p;
    /* under one leaf, named in any order and with repeats */
    place(&map, "n2,n1,n2", 2, 0, &p);
    assert_int_equal(p.leaves, 1);
    assert_int_equal(p.nodes, 2);
    nv_leaf_set s1 = set_of("s1"), s2 = set_of("s2"), s34 = set_of("s3,s4");
    assert_true(nv_leaf_set_meets(&p.set, &s1));
    assert_false(nv_leaf_set_meets(&p.set, &s2));
    /* across two leaves, as a host range; min and max as named */
    place(&map, "n[2-3]", 2, 2, &p);
    assert_int_equal(p.leaves, 2);
    assert_true(nv_leaf_set_meets(&p.set, &s1) && nv_leaf_set_meets(&p.set, &s2));
    assert_false(nv_leaf_set_meets(&p.set, &s34));
    /* no node count given: the names are the allocation */
    place(&map, "n1,n3,n5,n7", 0, 0, &p);
    assert_int_equal(p.leaves, 4);
    assert_int_equal(p.nodes, 4);
}

static void unknown_placements(void **state)
{
    (void)state;
    static const struct {
        const char *req;
        uint32_t min, max;
        const char *why;
    } cases[] = {
        {NULL, 2, 2, ""},
        {"", 2, 2, ""},
        /* Slurm may add nodes: more asked for than named */
        {"n1,n2", 3, 0, "it may be given more nodes than it names"},
        {"n1,n2", 2, 4, "it may be given more nodes than it names"},
        {"n1,n1", 2, 0, "it may be given more nodes than it names"}, /* one node, named twice */
        {"n1,n9", 2, 0, "a node it names has no leaf switch in topology.conf"},
        /* not a host list, and more names than netvar reads */
        {"n[1-", 0, 0, "its node list could not be read"},
        {"n[1-100000]", 0, 0, "its node list could not be read"},
    };
    struct nv_placement p;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        place(&map, cases[i].req, cases[i].min, cases[i].max, &p);
        if (p.leaves || strcmp(p.why, cases[i].why))
            fail_msg("case %zu (%s, %u-%u): leaves %u, why '%s', want 0 and '%s'", i,
                     cases[i].req ? cases[i].req : "NULL", cases[i].min, cases[i].max, p.leaves,
                     p.why, cases[i].why);
    }
    place(NULL, "n1", 1, 1, &p); /* no map */
    assert_int_equal(p.leaves, 0);
    assert_string_equal(p.why, "no leaf switches known (topology.conf)");
}

/* a --nodelist read once: sorted, each name once; the states its readers
 * tell apart */
static void named_nodes_are_read_once(void **state)
{
    (void)state;
    struct nv_named_nodes nn;
    nv_named_nodes_read(&nn, "n3,n[1-3],n2");
    assert_int_equal(nn.state, NV_NAMED_READ);
    assert_int_equal(nn.n, 3);
    assert_string_equal(nn.name[0], "n1");
    assert_string_equal(nn.name[2], "n3");
    assert_true(nv_named_nodes_has(&nn, "n2"));
    assert_false(nv_named_nodes_has(&nn, "n4"));
    assert_false(nv_named_nodes_has(&nn, NULL));
    nv_named_nodes_free(&nn);
    assert_int_equal(nn.n, 0);
    nv_named_nodes_free(&nn); /* twice is harmless */
    nv_named_nodes_read(&nn, NULL);
    assert_int_equal(nn.state, NV_NAMED_NONE);
    nv_named_nodes_read(&nn, "");
    assert_int_equal(nn.state, NV_NAMED_NONE);
    nv_named_nodes_read(&nn, ",");
    assert_int_equal(nn.state, NV_NAMED_EMPTY);
    nv_named_nodes_free(&nn);
    nv_named_nodes_read(&nn, "n[1-");
    assert_int_equal(nn.state, NV_NAMED_UNREADABLE);
    assert_false(nv_named_nodes_has(&nn, "n1"));
    nv_named_nodes_free(&nn);
    nv_named_nodes_read(&nn, "n[1-8193]"); /* one over NV_NAMED_NODES_MAX */
    assert_int_equal(nn.state, NV_NAMED_UNREADABLE);
    nv_named_nodes_read(&nn, "n[1-8192]");
    assert_int_equal(nn.state, NV_NAMED_READ);
    assert_int_equal(nn.n, NV_NAMED_NODES_MAX);
    nv_named_nodes_free(&nn);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_map_has_every_node_once),
        cmocka_unit_test(the_map_counts_each_leaf_largest_first),
        cmocka_unit_test(known_placements),
        cmocka_unit_test(unknown_placements),
        cmocka_unit_test(named_nodes_are_read_once),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
