/* test_job_bottleneck.c - the bottleneck U of a job record: the job's own
 * cross-leaf traffic over one leaf's uplink capacity (job_bottleneck.c),
 * by hand-computed cases (the node split, per direction, the busiest leaf,
 * one leaf, the uplink counters beside it, refusals), and nv_job_collect
 * end to end: node records whose deltas hold every port of a lab switch,
 * read through the blade map's switch_port= and uplink= keys, and the
 * record's reader (version 2; a version 1 record has none). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "counters_topology.h"
#include "job_bottleneck.h"
#include "job_record.h"
#include "node_record.h"
#include "nv_json.h"
#include "nv_test.h"

static void near(double a, double b)
{
    if (!(fabs(a - b) < 1e-9 * (1 + fabs(b))))
        fail_msg("%.12g, want %.12g", a, b);
}
#define NEAR(a, b) near((a), (b))

static nv_bn_node node(const char *leaf, double up, double down)
{
    return (nv_bn_node){leaf, up, down, NAN, NAN};
}

/* 4 nodes, 2 on each leaf: each sends 2 of its 3 peers' share off-leaf */
static void node_split_per_direction(void **state)
{
    (void)state;
    nv_bn_node n[4] = {node("s1", 300, 30), node("s1", 300, 30), node("s2", 600, 60),
                       node("s2", 0, 0)};
    nv_bn_result *r = malloc(sizeof *r);
    char err[200];
    assert_int_equal(nv_bottleneck_compute(n, 4, 1000, r, err, sizeof err), 0);
    assert_int_equal(r->n_leaves, 2);
    NEAR(r->leaf[0].off_up_Bps, 400); /* (300 + 300) x 2/3 */
    NEAR(r->leaf[1].off_up_Bps, 400); /* 600 x 2/3 */
    NEAR(r->leaf[0].off_down_Bps, 40);
    NEAR(r->u_up, 0.4);
    NEAR(r->u_down, 0.04);
    assert_true(isnan(r->uplink_u_up)); /* no uplink counters given */
    assert_int_equal(r->nodes_counted, 4);
    free(r);
}

/* 3 nodes, 1 on s1, 2 on s2: s1's node sends all off-leaf, s2's half */
static void busiest_leaf_per_direction(void **state)
{
    (void)state;
    nv_bn_node n[3] = {node("s1", 500, 100), node("s2", 200, 900), node("s2", 200, 900)};
    n[0].uplink_up_Bps = 700; /* the uplink carries more: the background */
    n[0].uplink_down_Bps = 150;
    nv_bn_result *r = malloc(sizeof *r);
    char err[200];
    assert_int_equal(nv_bottleneck_compute(n, 3, 1000, r, err, sizeof err), 0);
    NEAR(r->leaf[0].u_up, 0.5);
    NEAR(r->leaf[1].u_up, 0.2);   /* (200 + 200) x 1/2 */
    NEAR(r->leaf[1].u_down, 0.9); /* (900 + 900) x 1/2 */
    assert_string_equal(r->leaf[r->up_leaf].leaf, "s1");
    assert_string_equal(r->leaf[r->down_leaf].leaf, "s2");
    NEAR(r->u_up, 0.5);
    NEAR(r->u_down, 0.9);
    NEAR(r->uplink_u_up, 0.7);            /* s1's uplink, the busiest up */
    assert_true(isnan(r->uplink_u_down)); /* s2's uplink was not read */
    free(r);
}

static void one_leaf_crosses_nothing(void **state)
{
    (void)state;
    nv_bn_node n[2] = {node("s1", 900, 900), node("s1", 900, 900)};
    nv_bn_result *r = malloc(sizeof *r);
    char err[200];
    assert_int_equal(nv_bottleneck_compute(n, 2, 1000, r, err, sizeof err), 0);
    NEAR(r->u_up, 0);
    NEAR(r->u_down, 0);
    /* one node alone crosses nothing either */
    assert_int_equal(nv_bottleneck_compute(n, 1, 1000, r, err, sizeof err), 0);
    NEAR(r->u_up, 0);
    free(r);
}

static void refusals_say_why(void **state)
{
    (void)state;
    nv_bn_result *r = malloc(sizeof *r);
    char err[200];
    nv_bn_node n[2] = {node("s1", 1, 1), node("", 1, 1)};
    assert_int_equal(nv_bottleneck_compute(n, 2, 0, r, err, sizeof err), -1);
    assert_non_null(strstr(err, "UplinkRate"));
    assert_int_equal(nv_bottleneck_compute(n, 2, 1000, r, err, sizeof err), -1);
    assert_non_null(strstr(err, "no leaf switch"));
    nv_bn_node m[2] = {node("s1", NAN, NAN), node("s2", -1, 5)};
    assert_int_equal(nv_bottleneck_compute(m, 2, 1000, r, err, sizeof err), -1);
    assert_non_null(strstr(err, "no node of the job has NIC counters"));
    assert_true(isnan(r->u_up));
    free(r);
}

/* ------------------------------------------------------------ collect */

static char dir[64];

static int make_dir(void **state)
{
    (void)state;
    return nv_test_tmpdir(dir, sizeof dir, "job-bottleneck");
}

static int remove_dir(void **state)
{
    (void)state;
    return nv_test_rmtree(dir);
}

/* the lab switch's ports: d1..d4 (switch side of h1..h4), u1 (s1's
 * uplink end), u2 (s2's); bytes out/in per port over 2 s */
static void lab_delta(nv_ctr_delta *d, const double bytes[][2], int nports)
{
    static const char *const names[] = {"d1", "d2", "d3", "d4", "u1", "u2"};
    memset(d, 0, sizeof *d);
    snprintf(d->backend, sizeof d->backend, "netdev");
    d->dt_ns = 2000000000ull;
    d->nports = nports;
    for (int p = 0; p < nports; p++) {
        snprintf(d->port[p].name, sizeof d->port[p].name, "%s", names[p]);
        d->port[p].kind = "netdev";
        for (int k = 0; k < 2; k++) {
            nv_ctr_delta_value *v = &d->port[p].f[k ? NV_CTR_BYTES_IN : NV_CTR_BYTES_OUT];
            v->value = (uint64_t)bytes[p][k];
            v->unit = "bytes";
            v->valid = true;
        }
    }
}

static void write_node(const char *node, const char *sw, const nv_ctr_delta *d)
{
    char path[128], err[256];
    struct nv_node_record rec = {
        .id = {.job_id = 7,
               .node = node,
               .mode = "counters",
               .app = "a2a",
               .blade = node,
               .sw = sw,
               .blade_reader = true},
        .start_unix_s = 1.7e9,
        .end_unix_s = 1.7e9 + 2,
        .delta = d,
        .counter_source = "netdev",
    };
    snprintf(path, sizeof path, "%s/node-%s.json", dir, node);
    assert_int_equal(nv_node_record_write(path, (gid_t)-1, &rec, err, sizeof err), 0);
}

static void collect_reads_the_blade_maps_ports(void **state)
{
    (void)state;
    /* job on h2 (s1) and h4 (s2); h1-h3 are another job's, its traffic on
     * d1, d3 and in the uplinks too.  d2 receives (out) 2e6, sends (in)
     * 4e6 bytes in 2 s: h2 sends 2e6 B/s, all off-leaf (one peer, on s2) */
    const double bytes[6][2] = {
        {9e6, 9e6}, {2e6, 4e6}, {9e6, 9e6}, {4e6, 2e6}, {4e6 + 6e6, 2e6 + 1e6}, {2e6, 4e6}};
    nv_ctr_delta *d = malloc(sizeof *d);
    lab_delta(d, bytes, 6);
    write_node("h2", "s1", d);
    write_node("h4", "s2", d);
    nv_topo t;
    nv_topo_init(&t);
    char err[256];
    assert_int_equal(nv_topo_parse_map(&t,
                                       "h[1-3] switch=s1 uplink=u1\n"
                                       "h4 switch=s2 uplink=u2\n"
                                       "h1 switch_port=d1\nh2 switch_port=d2\n"
                                       "h3 switch_port=d3\nh4 switch_port=d4\n",
                                       "map", err, sizeof err),
                     0);
    assert_string_equal(nv_topo_find(&t, "h2")->sw_port, "d2");
    assert_string_equal(nv_topo_find(&t, "h4")->uplink, "u2");
    nv_job_fabric fab = {&t, 5e6, 1}; /* 40 Mbit/s */
    json_object *job = nv_job_collect(dir, 7, 0, "none", &fab, NULL, NULL, err, sizeof err);
    assert_non_null(job);
    assert_int_equal((int)nv_json_num(job, "version"), 2);
    double up, down;
    assert_int_equal(nv_job_record_bottleneck_u(job, &up, &down, err, sizeof err), 1);
    /* up: h2 sends 2e6 B/s, h4 1e6: s1's is the busier, 2e6 / 5e6 */
    NEAR(up, 0.4);
    NEAR(down, 0.4); /* h4 receives 2e6 B/s on s2 */
    json_object *b = nv_json_get(job, "bottleneck", json_type_object);
    assert_string_equal(nv_json_str(b, "leaf_up"), "s1");
    /* s1's uplink sent 10e6 bytes in 2 s: 5e6 B/s, all its capacity */
    NEAR(nv_json_num(b, "uplink_u_up"), 1.0);
    assert_non_null(strstr(nv_json_str(b, "source"), "switch_port="));

    /* without UplinkRate: unavailable, and the reader says none */
    json_object_put(job);
    fab.uplink_rate_Bps = 0;
    job = nv_job_collect(dir, 7, 0, "none", &fab, NULL, NULL, err, sizeof err);
    assert_int_equal(nv_job_record_bottleneck_u(job, &up, &down, err, sizeof err), 0);
    assert_true(isnan(up));
    assert_non_null(strstr(nv_json_str(nv_json_get(job, "bottleneck", json_type_object), "source"),
                           "UplinkRate"));
    /* a version 1 record is read and has none */
    json_object_object_add(job, "version", json_object_new_int(1));
    json_object_object_del(job, "bottleneck");
    assert_int_equal(nv_job_record_check(job, err, sizeof err), 0);
    assert_int_equal(nv_job_record_bottleneck_u(job, &up, &down, err, sizeof err), 0);
    /* a malformed one is said so */
    json_object *bad = json_object_new_object();
    json_object_object_add(bad, "u_up", json_object_new_string("high"));
    json_object_object_add(job, "bottleneck", bad);
    assert_int_equal(nv_job_record_bottleneck_u(job, &up, &down, err, sizeof err), -1);
    assert_non_null(strstr(err, "bottleneck"));
    json_object_put(job);
    nv_topo_free(&t);
    free(d);
}

static void blade_map_refuses_a_bad_port_key(void **state)
{
    (void)state;
    nv_topo t;
    nv_topo_init(&t);
    char err[256];
    assert_int_equal(nv_topo_parse_map(&t, "h1 uplink=u1\nh2 uplinks=u2\n", "m", err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "m:2: unknown key 'uplinks'"));
    assert_int_equal(nv_topo_parse_map(&t, "h3 nic=eth0;rm\n", "m", err, sizeof err), -1);
    assert_non_null(strstr(err, "bad value"));
    assert_string_equal(nv_topo_find(&t, "h1")->uplink, "u1");
    nv_topo_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(node_split_per_direction),
        cmocka_unit_test(busiest_leaf_per_direction),
        cmocka_unit_test(one_leaf_crosses_nothing),
        cmocka_unit_test(refusals_say_why),
        cmocka_unit_test_setup_teardown(collect_reads_the_blade_maps_ports, make_dir, remove_dir),
        cmocka_unit_test(blade_map_refuses_a_bad_port_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
