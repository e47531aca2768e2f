/* test_topology_yaml.c - Slurm's topology.yaml: tree and block fixtures
 * after Slurm's topology.yaml(5) examples, the default topology chosen as
 * Slurm chooses it, the same tree in topology.conf and topology.yaml
 * giving the same switches and placements, the file chosen as slurmctld
 * chooses it, and hostile files (huge, deep, malformed, a link, a FIFO,
 * another owner) refused with one line. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "counters_topology.h"
#include "nv_test.h"
#include "placement.h"
#include "topology_yaml.h"

static char tmp[1024];

static void fixture(char *buf, size_t n, const char *name)
{
    const char *root = getenv("ROOT");
    snprintf(buf, n, "%s%stests/fixtures/topology/%s", root ? root : "", root ? "/" : "", name);
}

static int setup(void **state)
{
    (void)state;
    return nv_test_tmpdir(tmp, sizeof tmp, "topoyaml");
}

static int teardown(void **state)
{
    (void)state;
    return nv_test_rmtree(tmp);
}

static void assert_node(const nv_topo *t, const char *node, const char *sw, const char *group)
{
    const nv_topo_node *nd = nv_topo_find(t, node);
    if (!nd)
        fail_msg("node %s missing", node);
    assert_string_equal(nd->sw, sw);
    assert_string_equal(nd->group, group);
}

static void reads_the_default_tree(void **state)
{
    (void)state;
    char path[PATH_MAX], err[512] = "";
    fixture(path, sizeof path, "tree.yaml");
    nv_topo t;
    nv_topo_init(&t);
    if (nv_topo_load_yaml(&t, path, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(t.n, 4); /* the tree, not the block topology's 8 */
    assert_node(&t, "node01", "leaf1", "root");
    assert_node(&t, "node02", "leaf1", "root");
    assert_node(&t, "node03", "leaf2", "root");
    assert_node(&t, "node04", "leaf2", "root");
    assert_null(nv_topo_find(&t, "node05"));
    nv_topo_free(&t);
}

static uint32_t leaves_of(const struct nv_leaf_map *lm, const char *nodelist)
{
    struct nv_named_nodes nn;
    struct nv_placement p;
    nv_named_nodes_read(&nn, nodelist);
    nv_placement_of(lm, &nn, 0, 0, &p);
    nv_named_nodes_free(&nn);
    return p.leaves;
}

static void reads_blocks_as_leaves(void **state)
{
    (void)state;
    char path[PATH_MAX], err[512] = "";
    fixture(path, sizeof path, "block.yaml");
    nv_topo t;
    nv_topo_init(&t);
    if (nv_topo_load_yaml(&t, path, err, sizeof err))
        fail_msg("%s", err);
    /* no cluster_default: the first topology, the blocks, not the tree */
    assert_int_equal(t.n, 16);
    assert_node(&t, "node01", "b1", "");
    assert_node(&t, "node05", "b2", "");
    assert_node(&t, "node16", "b4", "");
    struct nv_leaf_map lm;
    if (nv_leaf_map_build(&lm, &t, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(lm.nleaves, 4);
    assert_int_equal(leaves_of(&lm, "node[01-04]"), 1); /* one block: no uplink */
    assert_int_equal(leaves_of(&lm, "node[04-05]"), 2); /* across blocks */
    assert_int_equal(leaves_of(&lm, "node[01-16]"), 4);
    assert_int_equal(leaves_of(&lm, "node[16-17]"), 0); /* node17: not placed */
    nv_leaf_map_free(&lm);
    nv_topo_free(&t);
}

static void conf_and_yaml_agree(void **state)
{
    (void)state;
    char cpath[PATH_MAX], ypath[PATH_MAX], err[512] = "";
    fixture(cpath, sizeof cpath, "equiv.conf");
    fixture(ypath, sizeof ypath, "equiv.yaml");
    nv_topo c, y;
    nv_topo_init(&c);
    nv_topo_init(&y);
    if (nv_topo_load_file(&c, cpath, true, err, sizeof err))
        fail_msg("%s", err);
    if (nv_topo_load_yaml(&y, ypath, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(c.n, 23);
    assert_int_equal(y.n, c.n);
    for (size_t i = 0; i < c.n; i++) {
        const nv_topo_node *a = &c.nodes[i], *b = nv_topo_find(&y, a->node);
        if (!b)
            fail_msg("%s is in topology.conf only", a->node);
        assert_string_equal(a->sw, b->sw);
        assert_string_equal(a->group, b->group);
    }
    assert_node(&y, "gpu03", "s3", "s5");
    assert_node(&y, "dev7", "s1", "s4");
    struct nv_leaf_map lc, ly;
    assert_int_equal(nv_leaf_map_build(&lc, &c, err, sizeof err), 0);
    assert_int_equal(nv_leaf_map_build(&ly, &y, err, sizeof err), 0);
    const char *lists[] = {"dev[0-5]",          "dev[5-6]",    "dev[0-17]",
                           "gpu[01-04],login1", "dev17,gpu01", "dev3,nosuch"};
    for (size_t i = 0; i < sizeof lists / sizeof *lists; i++)
        assert_int_equal(leaves_of(&lc, lists[i]), leaves_of(&ly, lists[i]));
    assert_int_equal(leaves_of(&ly, "dev[5-6]"), 2);
    /* an admin-named --topology FILE: read as its name says */
    nv_topo n;
    nv_topo_init(&n);
    if (nv_topo_load_named(&n, ypath, true, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(n.n, y.n);
    assert_node(&n, "login1", "s3", "s5");
    nv_topo_free(&n);
    nv_topo_init(&n);
    assert_int_equal(nv_topo_load_named(&n, cpath, false, err, sizeof err), -1); /* a blade map? */
    nv_topo_free(&n);
    assert_int_equal(leaves_of(&ly, "dev[0-17]"), 3);
    nv_leaf_map_free(&lc);
    nv_leaf_map_free(&ly);
    nv_topo_free(&c);
    nv_topo_free(&y);
}

static int parse(nv_topo *t, const char *text, char *err, size_t errlen)
{
    nv_topo_init(t);
    return nv_topo_parse_yaml(t, text, strlen(text), "t.yaml", err, errlen);
}

static void chooses_the_cluster_default(void **state)
{
    (void)state;
    char err[512] = "";
    nv_topo t;
    const char *text = "- topology: a\n  tree: {switches: [{switch: sa, nodes: 'n[1-2]'}]}\n"
                       "- topology: b\n  cluster_default: true\n"
                       "  block: {blocks: [{block: bb, nodes: 'n[1-3]'}]}\n"
                       "- topology: c\n  cluster_default: true\n"
                       "  tree: {switches: [{switch: sc, nodes: n1}]}\n";
    if (parse(&t, text, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(t.n, 3);
    assert_node(&t, "n3", "bb", "");
    nv_topo_free(&t);

    /* flat as the default: no node placed, no error */
    if (parse(&t,
              "- topology: f\n  cluster_default: true\n  flat: true\n"
              "- topology: a\n  tree: {switches: [{switch: s, nodes: n1}]}\n",
              err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(t.n, 0);
    nv_topo_free(&t);
}

static void refuses_malformed_files(void **state)
{
    (void)state;
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"", "empty"},
        {"topology: a\n", "not a list of topologies"},
        {"- [1, 2]\n", "is not a mapping"},
        {"- topology: a\n  tree: {switches: []}\n  flat: true\n", "more than one"},
        {"- topology: a\n", "has none of tree"},
        {"- cluster_default: true\n  flat: true\n", "without 'topology: name'"},
        {"- topology: a\n  colour: red\n  flat: true\n", "unknown key 'colour'"},
        {"- topology: a\n  flat: true\n  flat: true\n", "given twice"},
        {"- topology: a\n  cluster_default: maybe\n  flat: true\n", "not true or false"},
        {"- topology: a\n  flat: false\n", "flat is not true"},
        {"- topology: a\n  tree: {}\n", "switches is missing"},
        {"- topology: a\n  tree: {switches: [{nodes: n1}]}\n", "without 'switch:'"},
        {"- topology: a\n  tree: {switches: [{switch: s, nodes: 'n[1-'}]}\n", "'[' without ']'"},
        {"- topology: a\n  tree: {switches: [{switch: 'a b', nodes: n1}]}\n", "bad switch name"},
        {"- topology: a\n  tree: {switches: [{switch: s, nodes: {x: 1}}]}\n", "not a host list"},
        {"- topology: a\n  block: {block_sizes: [4, 12], blocks: []}\n", "block size '12'"},
        {"- topology: a\n  block: {block_sizes: [0], blocks: []}\n", "block size '0'"},
        {"- topology: a\n  block: {block_sizes: [4, 4], blocks: []}\n", "block size '4'"},
        {"- topology: a\n  block: {blocks: [{block: b, switch: x}]}\n", "unknown key 'switch'"},
        {"- topology: &x a\n  flat: *x\n", "an alias"},
        {"- topology: a\n  flat: true\n---\n- topology: b\n  flat: true\n", "second YAML document"},
        {"- topology: a\n  tree: {switches: [\n", "not YAML"},
        {"- topology: a\n\ttree: x\n", "not YAML"},
        {"- topology: a\n  tree: {switches: [{switch: s, nodes: 'n[1-70000]'}]}\n",
         "more than 65536"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char err[512] = "";
        nv_topo t;
        int rc = parse(&t, bad[i].text, err, sizeof err);
        nv_topo_free(&t);
        if (rc != -1 || !strstr(err, bad[i].want) || !strstr(err, "t.yaml") || strchr(err, '\n'))
            fail_msg("case %zu: rc %d, err '%s', want '%s'", i, rc, err, bad[i].want);
    }
}

static void refuses_deep_and_huge_input(void **state)
{
    (void)state;
    char err[512] = "";
    nv_topo t;
    /* 100 000 nested flow sequences: refused at level 17, no recursion */
    size_t depth = 100000;
    char *deep = malloc(2 * depth + 1);
    assert_non_null(deep);
    memset(deep, '[', depth);
    memset(deep + depth, ']', depth);
    deep[2 * depth] = '\0';
    assert_int_equal(parse(&t, deep, err, sizeof err), -1);
    assert_non_null(strstr(err, "nested deeper than 16 levels"));
    nv_topo_free(&t);
    free(deep);

    /* more YAML nodes than the bound */
    size_t items = NV_TOPO_YAML_MAX_ITEMS + 10, len = 0;
    char *many = malloc(2 * items + 8);
    assert_non_null(many);
    many[len++] = '[';
    for (size_t i = 0; i < items; i++) {
        many[len++] = '1';
        many[len++] = ',';
    }
    many[len - 1] = ']';
    many[len] = '\0';
    assert_int_equal(parse(&t, many, err, sizeof err), -1);
    assert_non_null(strstr(err, "more than 1048576 YAML nodes"));
    nv_topo_free(&t);
    free(many);

    /* one value past 64 KiB */
    size_t vl = NV_TOPO_YAML_MAX_SCALAR + 1;
    char *big = malloc(vl + 64);
    assert_non_null(big);
    int k = snprintf(big, vl + 64, "- topology: ");
    memset(big + k, 'a', vl);
    snprintf(big + k + vl, 64, "\n  flat: true\n");
    assert_int_equal(parse(&t, big, err, sizeof err), -1);
    assert_non_null(strstr(err, "a value longer than 65536 bytes"));
    nv_topo_free(&t);
    free(big);

    /* a file past 16 MiB (sparse): refused before it is read */
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/huge.yaml", tmp);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)NV_TOPO_MAX_FILE_BYTES + 1), 0);
    close(fd);
    nv_topo_init(&t);
    assert_int_equal(nv_topo_load_yaml(&t, path, err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "no topology loaded"));
    assert_int_equal(t.n, 0);
    nv_topo_free(&t);
}

static void refuses_links_fifos_and_other_owners(void **state)
{
    (void)state;
    char src[PATH_MAX], path[PATH_MAX], err[512] = "";
    nv_topo t;
    fixture(src, sizeof src, "tree.yaml");
    snprintf(path, sizeof path, "%s/link.yaml", tmp);
    if (src[0] != '/') {
        char cwd[PATH_MAX];
        assert_non_null(getcwd(cwd, sizeof cwd));
        char abs[PATH_MAX * 2];
        snprintf(abs, sizeof abs, "%s/%s", cwd, src);
        assert_int_equal(symlink(abs, path), 0);
    } else {
        assert_int_equal(symlink(src, path), 0);
    }
    nv_topo_init(&t);
    assert_int_equal(nv_topo_load_yaml(&t, path, err, sizeof err), -1);
    assert_non_null(strstr(err, "symbolic link"));
    assert_int_equal(t.n, 0);
    nv_topo_free(&t);

    snprintf(path, sizeof path, "%s/fifo.yaml", tmp);
    assert_int_equal(mkfifo(path, 0600), 0);
    time_t t0 = time(NULL);
    nv_topo_init(&t);
    assert_int_equal(nv_topo_load_yaml(&t, path, err, sizeof err), -1); /* without blocking */
    assert_true(time(NULL) - t0 < 5);
    nv_topo_free(&t);

    if (geteuid() == 0) { /* a file of another owner */
        snprintf(path, sizeof path, "%s/other.yaml", tmp);
        assert_int_equal(nv_test_write_file(tmp, "other.yaml", "- topology: a\n  flat: true\n"), 0);
        assert_int_equal(chown(path, 4242, 4242), 0);
        nv_topo_init(&t);
        assert_int_equal(nv_topo_load_yaml(&t, path, err, sizeof err), -1);
        assert_non_null(strstr(err, "owned by uid 4242"));
        nv_topo_free(&t);
    }
}

static void chooses_the_file_as_slurm(void **state)
{
    (void)state;
    char conf[PATH_MAX], path[PATH_MAX], want[PATH_MAX + 32];
    snprintf(conf, sizeof conf, "%s/slurm.conf", tmp);
    assert_int_equal(nv_test_write_file(tmp, "slurm.conf", "ClusterName=x\n"), 0);

    assert_int_equal(nv_topo_slurm_file(conf, true, path, sizeof path), NV_TOPO_NONE);
    snprintf(want, sizeof want, "%s/topology.conf", tmp);
    assert_string_equal(path, want);

    assert_int_equal(nv_test_write_file(tmp, "topology.conf", "SwitchName=s Nodes=n1\n"), 0);
    assert_int_equal(nv_topo_slurm_file(conf, true, path, sizeof path), NV_TOPO_CONF);
    assert_string_equal(path, want);

    /* both there: topology.yaml, and topology.conf is ignored (25.05+) */
    assert_int_equal(nv_test_write_file(tmp, "topology.yaml",
                                        "- topology: t\n  tree: {switches: [{switch: y, nodes: "
                                        "n1}]}\n"),
                     0);
    assert_int_equal(nv_topo_slurm_file(conf, true, path, sizeof path), NV_TOPO_YAML);
    snprintf(want, sizeof want, "%s/topology.yaml", tmp);
    assert_string_equal(path, want);
    char err[512] = "";
    nv_topo t;
    nv_topo_init(&t);
    if (nv_topo_load_slurm(&t, path, NV_TOPO_YAML, err, sizeof err))
        fail_msg("%s", err);
    assert_node(&t, "n1", "y", "");
    nv_topo_free(&t);

    /* a Slurm before 25.05 reads topology.conf only */
    assert_int_equal(nv_topo_slurm_file(conf, false, path, sizeof path), NV_TOPO_CONF);
    snprintf(want, sizeof want, "%s/topology.conf", tmp);
    assert_string_equal(path, want);
    char p2[PATH_MAX];
    snprintf(p2, sizeof p2, "%s/topology.conf", tmp);
    assert_int_equal(unlink(p2), 0);
    assert_int_equal(nv_topo_slurm_file(conf, false, path, sizeof path), NV_TOPO_NONE);

    /* no SLURM_CONF: Debian's /etc/slurm */
    enum nv_topo_kind k = nv_topo_slurm_file(NULL, true, path, sizeof path);
    assert_int_equal(strncmp(path, "/etc/slurm/topology.", 20), 0);
    assert_true(k == NV_TOPO_NONE || !strcmp(path + 20, k == NV_TOPO_YAML ? "yaml" : "conf"));

    /* a bad topology.yaml where Slurm reads it: one line, nothing placed
     * (every placement is taken to share), the topology.conf not read */
    assert_int_equal(nv_test_write_file(tmp, "topology.conf", "SwitchName=s Nodes=n1\n"), 0);
    assert_int_equal(nv_test_write_file(tmp, "topology.yaml", "- topology: [\n"), 0);
    assert_int_equal(nv_topo_slurm_file(conf, true, path, sizeof path), NV_TOPO_YAML);
    nv_topo_init(&t);
    assert_int_equal(nv_topo_load_slurm(&t, path, NV_TOPO_YAML, err, sizeof err), -1);
    assert_non_null(strstr(err, "topology.yaml"));
    assert_null(strchr(err, '\n'));
    nv_topo_free(&t);

    assert_true(nv_topo_is_yaml_name("/a/topology.yaml"));
    assert_true(nv_topo_is_yaml_name("t.yml"));
    assert_false(nv_topo_is_yaml_name("topology.conf"));
    assert_false(nv_topo_is_yaml_name(".yaml"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_the_default_tree),
        cmocka_unit_test(reads_blocks_as_leaves),
        cmocka_unit_test(conf_and_yaml_agree),
        cmocka_unit_test(chooses_the_cluster_default),
        cmocka_unit_test(refuses_malformed_files),
        cmocka_unit_test_setup_teardown(refuses_deep_and_huge_input, setup, teardown),
        cmocka_unit_test_setup_teardown(refuses_links_fifos_and_other_owners, setup, teardown),
        cmocka_unit_test_setup_teardown(chooses_the_file_as_slurm, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
