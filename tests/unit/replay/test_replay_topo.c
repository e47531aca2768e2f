/* test_replay_topo.c - lib/replay's fabric from the site's topology
 * (rp_topo_fabric_of): equal and unequal leaves, a topology without
 * leaves, a node listed twice, the bounds; the trace's node indices mapped
 * to the fabric's slots; the scheduler and the metrics on leaves of
 * unequal size. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "counters_topology.h"
#include "replay.h"
#include "topology_yaml.h"

/* text as topology.conf, mapped; rc is rp_topo_fabric_of's */
static int from_conf(rp_topo_fabric *tf, const char *text, char *err, size_t errlen)
{
    nv_topo t;
    nv_topo_init(&t);
    assert_int_equal(nv_topo_parse_slurm(&t, text, "t.conf", err, errlen), 0);
    int rc = rp_topo_fabric_of(tf, &t, "t.conf", err, errlen);
    nv_topo_free(&t);
    return rc;
}

/* leaves of 3, 1 and 2 nodes */
#define LEAVES_3_1_2                                                                               \
    "SwitchName=a Nodes=a[1-3]\n"                                                                  \
    "SwitchName=b Nodes=b1\n"                                                                      \
    "SwitchName=c Nodes=c[1-2]\n"

/* a trace from its text */
static void read_trace(rp_trace *t, const char *csv)
{
    FILE *in = fmemopen((void *)csv, strlen(csv), "r");
    assert_non_null(in);
    char err[256] = "";
    if (rp_trace_read(t, in, "t.csv", err, sizeof err))
        fail_msg("%s", err);
    fclose(in);
}

static void equal_leaves(void **state)
{
    (void)state;
    rp_topo_fabric tf;
    char err[256] = "";
    assert_int_equal(from_conf(&tf,
                               "SwitchName=s1 Nodes=n[1-4]\n"
                               "SwitchName=s2 Nodes=n[5-8]\n"
                               "SwitchName=top Switches=s[1-2]\n",
                               err, sizeof err),
                     0);
    assert_int_equal(tf.leaves, 2);
    assert_int_equal(tf.per_leaf, 4);
    assert_int_equal(tf.nodes, 8);
    assert_string_equal(tf.leaf_name[0], "s1");
    assert_string_equal(tf.leaf_name[1], "s2");
    for (int i = 0; i < 8; i++) {
        assert_int_equal(tf.slot[i], i); /* file order is the generated fabric's */
        assert_int_equal(tf.node_of[i], i);
    }
    rp_fabric f = {tf.leaves, tf.per_leaf, 2, 1e9, 1e-6, tf.leaf_nodes};
    assert_int_equal(rp_fabric_nodes(&f), 8);
    rp_topo_fabric_free(&tf);
    assert_null(tf.slot);
}

/* leaves of 3, 1 and 2 nodes: slots of 3, the smaller leaves' last empty */
static void unequal_leaves(void **state)
{
    (void)state;
    rp_topo_fabric tf;
    char err[256] = "";
    assert_int_equal(from_conf(&tf, LEAVES_3_1_2, err, sizeof err), 0);
    assert_int_equal(tf.leaves, 3);
    assert_int_equal(tf.per_leaf, 3);
    assert_int_equal(tf.nodes, 6);
    assert_int_equal(tf.leaf_nodes[0], 3);
    assert_int_equal(tf.leaf_nodes[1], 1);
    assert_int_equal(tf.leaf_nodes[2], 2);
    static const int slot[] = {0, 1, 2, 3, 6, 7}, node_of[] = {0, 1, 2, 3, -1, -1, 4, 5, -1};
    for (int i = 0; i < 6; i++)
        assert_int_equal(tf.slot[i], slot[i]);
    for (int x = 0; x < 9; x++)
        assert_int_equal(tf.node_of[x], node_of[x]);
    rp_topo_fabric_free(&tf);
}

/* a flat topology, or switches without nodes: no fabric, one line */
static void no_leaves(void **state)
{
    (void)state;
    rp_topo_fabric tf;
    char err[256] = "";
    assert_int_equal(from_conf(&tf, "SwitchName=top Switches=s[1-2]\n", err, sizeof err), -1);
    assert_non_null(strstr(err, "t.conf: no node under a leaf switch"));
    assert_null(strchr(err, '\n'));

    nv_topo t;
    nv_topo_init(&t);
    static const char flat[] = "- topology: f\n  flat: true\n";
    assert_int_equal(nv_topo_parse_yaml(&t, flat, strlen(flat), "t.yaml", err, sizeof err), 0);
    err[0] = 0;
    assert_int_equal(rp_topo_fabric_of(&tf, &t, "t.yaml", err, sizeof err), -1);
    assert_non_null(strstr(err, "t.yaml: no node"));
    nv_topo_free(&t);

    /* a blade map's node without switch= is under no leaf */
    nv_topo_init(&t);
    assert_int_equal(nv_topo_parse_map(&t, "n1 switch=s1\nn2 blade=b0\n", "map", err, sizeof err),
                     0);
    assert_int_equal(rp_topo_fabric_of(&tf, &t, "map", err, sizeof err), -1);
    assert_non_null(strstr(err, "node n2 is under no leaf switch"));
    nv_topo_free(&t);
    assert_int_equal(rp_topo_fabric_of(&tf, NULL, NULL, err, sizeof err), -1);
}

/* a node under two leaves stays under the first (as topology.conf's
 * reader keeps it): counted once, the second leaf one node smaller */
static void node_listed_twice(void **state)
{
    (void)state;
    rp_topo_fabric tf;
    char err[256] = "";
    assert_int_equal(from_conf(&tf,
                               "SwitchName=s1 Nodes=n[1-2]\n"
                               "SwitchName=s2 Nodes=n[2-4]\n",
                               err, sizeof err),
                     0);
    assert_int_equal(tf.nodes, 4);
    assert_int_equal(tf.leaves, 2);
    assert_int_equal(tf.leaf_nodes[0], 2);
    assert_int_equal(tf.leaf_nodes[1], 2);
    assert_int_equal(tf.slot[1], 1); /* n2: leaf s1 */
    assert_int_equal(tf.slot[2], 2); /* n3: leaf s2's first */
    rp_topo_fabric_free(&tf);

    /* the same in topology.yaml */
    static const char y[] = "- topology: t\n"
                            "  tree:\n"
                            "    switches:\n"
                            "      - switch: s1\n"
                            "        nodes: n[1-3]\n"
                            "      - switch: s2\n"
                            "        nodes: [n3, n4]\n";
    nv_topo t;
    nv_topo_init(&t);
    assert_int_equal(nv_topo_parse_yaml(&t, y, strlen(y), "t.yaml", err, sizeof err), 0);
    assert_int_equal(rp_topo_fabric_of(&tf, &t, "t.yaml", err, sizeof err), 0);
    assert_int_equal(tf.nodes, 4);
    assert_int_equal(tf.leaf_nodes[0], 3);
    assert_int_equal(tf.leaf_nodes[1], 1);
    assert_int_equal(tf.slot[3], 3); /* n4: leaf s2, slots of 3 */
    rp_topo_fabric_free(&tf);
    nv_topo_free(&t);
}

/* a leaf above RP_LEAF_NODES_MAX, and more than RP_NODES_MAX slots when
 * every leaf is padded to the largest: refused, naming what */
static void bounds(void **state)
{
    (void)state;
    rp_topo_fabric tf;
    char err[256] = "";
    assert_int_equal(from_conf(&tf, "SwitchName=big Nodes=n[1-1025]\n", err, sizeof err), -1);
    assert_non_null(strstr(err, "leaf switch big has 1025 nodes, more than 1024"));

    int leaves = RP_NODES_MAX / RP_LEAF_NODES_MAX + 1; /* one of 1024, the others 1 */
    size_t cap = 64 + (size_t)leaves * 48;
    char *text = malloc(cap);
    assert_non_null(text);
    int len = snprintf(text, cap, "SwitchName=big Nodes=b[1-%d]\n", RP_LEAF_NODES_MAX);
    for (int l = 1; l < leaves; l++)
        len += snprintf(text + len, cap - (size_t)len, "SwitchName=l%d Nodes=x%d\n", l, l);
    assert_true((size_t)len < cap);
    assert_int_equal(from_conf(&tf, text, err, sizeof err), -1);
    assert_non_null(strstr(err, "node slots"));
    free(text);
}

/* the trace's indices are the topology's nodes in file order */
static void trace_indices_map_to_slots(void **state)
{
    (void)state;
    rp_topo_fabric tf;
    char err[256] = "";
    assert_int_equal(from_conf(&tf, LEAVES_3_1_2, err, sizeof err), 0);
    rp_trace t = {0};
    read_trace(&t, "0,2,100,100,x,3:4\n0,3,100,100,x,0:4:5\n");
    assert_int_equal(rp_trace_map_nodes(&t, &tf, err, sizeof err), 0);
    assert_int_equal(t.job[0].want[0], 3); /* b1 */
    assert_int_equal(t.job[0].want[1], 6); /* c1 */
    assert_int_equal(t.job[1].want[0], 0);
    assert_int_equal(t.job[1].want[1], 6);
    assert_int_equal(t.job[1].want[2], 7);
    rp_fabric f = {tf.leaves, tf.per_leaf, 1, 1e9, 1e-6, tf.leaf_nodes};
    assert_int_equal(rp_schedule(&t, &f, RP_NONE, NULL, err, sizeof err), 0);
    assert_int_equal(t.job[0].nleaves, 2);
    assert_int_equal(t.job[1].nleaves, 2);
    rp_trace_free(&t);

    read_trace(&t, "0,1,100,100,x,6\n");
    assert_int_equal(rp_trace_map_nodes(&t, &tf, err, sizeof err), -1);
    assert_non_null(strstr(err, "job 1: node 6 outside the topology's 6 nodes"));
    /* an empty slot named directly is outside the fabric */
    t.job[0].want[0] = 4;
    assert_int_equal(rp_schedule(&t, &f, RP_NONE, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "node 4 outside the fabric of 6 nodes"));
    rp_trace_free(&t);
    rp_topo_fabric_free(&tf);
}

/* on leaves of 3, 1 and 1 nodes: a job takes only nodes that exist, the
 * fabric's 5 nodes are all of the utilization, and --switches asks for
 * the fewest leaves that hold a job (3 for 5 nodes, not 5 / 3) */
static void schedule_on_unequal_leaves(void **state)
{
    (void)state;
    static const int sizes[] = {3, 1, 1};
    rp_fabric f = {3, 3, 1, 1e9, 1e-6, sizes};
    assert_int_equal(rp_fabric_nodes(&f), 5);
    assert_int_equal(rp_fabric_leaf_nodes(&f, 1), 1);
    rp_trace t = {0};
    /* the second larger than the fabric: never runs */
    read_trace(&t, "0,5,100,100,x\n1,6,100,100,x\n200,4,100,100,x\n");
    char err[256] = "";
    assert_int_equal(rp_schedule(&t, &f, RP_NONE, NULL, err, sizeof err), 0);
    static const int want[] = {0, 1, 2, 3, 6};
    for (int k = 0; k < 5; k++)
        assert_int_equal(t.job[0].node[k], want[k]);
    assert_int_equal(t.job[0].nleaves, 3);
    assert_true(t.job[1].skipped);
    rp_metrics m;
    rp_metrics_of(&t, &f, &m);
    assert_int_equal(m.ran, 2);
    /* 5 x 100 + 4 x 100 node-s over 5 nodes x 300 s */
    assert_true(fabs(m.util_pct - 100.0 * 900 / 1500) < 1e-9);

    rp_site site = {.switches_wait_s = 10};
    assert_int_equal(rp_schedule(&t, &f, RP_SWITCHES, &site, err, sizeof err), 0);
    assert_int_equal(t.job[0].max_leaves, 3);
    assert_int_equal(t.job[2].max_leaves, 2);
    assert_true(t.job[0].start_s == 0);
    rp_trace_free(&t);

    static const int bad[] = {3, 0, 1};
    f.leaf_nodes = bad;
    read_trace(&t, "0,1,100,100,x\n");
    assert_int_equal(rp_schedule(&t, &f, RP_NONE, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "leaf 1 of 0 nodes"));
    rp_trace_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(equal_leaves),
        cmocka_unit_test(unequal_leaves),
        cmocka_unit_test(no_leaves),
        cmocka_unit_test(node_listed_twice),
        cmocka_unit_test(bounds),
        cmocka_unit_test(trace_indices_map_to_slots),
        cmocka_unit_test(schedule_on_unequal_leaves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
