/* test_diagnose_cases.c - the three case studies of "Congestion diagnosis" in miniature,
 * classified as the thesis concludes (many-to-one reduction -> communication
 * pattern; row-major stencil over a thin uplink -> mapping; ring beside
 * random traffic -> background), plus too little data, unknown own traffic,
 * several windows, line rates from sysfs text, and hop-bytes / worst-case
 * link load of two stencil placements. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "diagnose.h"
#include "ctr_line_rate.h"
#include "diagnose_mapping.h"

#define GBPS(x) ((x)*1e9 / 8) /* bytes/s */

static nv_diag_port port(const char *name, const char *node, const char *sw, nv_link_kind kind,
                         double rate_Bps, double util, double cf, double own_util)
{
    nv_diag_port p;
    memset(&p, 0, sizeof p);
    snprintf(p.name, sizeof p.name, "%s", name);
    snprintf(p.node, sizeof p.node, "%s", node);
    snprintf(p.sw, sizeof p.sw, "%s", sw);
    p.kind = kind;
    p.window_s = 1.0;
    p.line_rate_Bps = rate_Bps;
    p.traffic_bytes = util * rate_Bps;
    p.stall_units = cf * p.traffic_bytes;
    p.own_bytes = isnan(own_util) ? NAN : own_util * rate_Bps;
    return p;
}

static nv_diagnosis run(const nv_diag_port *p, size_t n)
{
    nv_diagnosis d;
    char err[256];
    assert_int_equal(nv_diagnose(p, n, NULL, &d, err, sizeof err), 0);
    return d;
}

/* Case A (§4.3): every node sends its result to rank 0.  The link into
 * node n0 is congested (fraction > 0.998) at 92.6 % of the 100 Gb/s line
 * rate; the senders' links stall from back-pressure at low utilization. */
static void reduction_into_one_node_is_a_communication_pattern(void **state)
{
    nv_diag_port p[10];
    size_t n = 0;
    p[n++] = port("n0:hca-in", "n0", "leaf0", NV_LINK_ENDPOINT, GBPS(100), 0.926, 0.998, 0.926);
    char name[32], node[16];
    for (int i = 1; i < 8; i++) {
        snprintf(name, sizeof name, "n%d:hca-out", i);
        snprintf(node, sizeof node, "n%d", i);
        p[n++] = port(name, node, i < 4 ? "leaf0" : "leaf1", NV_LINK_ENDPOINT, GBPS(100), 0.926 / 7,
                      0.85, 0.926 / 7);
    }
    p[n++] = port("leaf1:up", "", "leaf1", NV_LINK_NETWORK, GBPS(100), 0.53, 0.4, 0.53);
    p[n++] = port("leaf0:down", "", "leaf0", NV_LINK_NETWORK, GBPS(100), 0.53, 0.3, 0.53);
    nv_diagnosis d = run(p, n);
    assert_int_equal(d.cause, NV_CAUSE_PATTERN);
    assert_int_equal(d.root, 0);
    assert_non_null(strstr(d.reason, "n0"));
    assert_non_null(strstr(d.reason, "Theorem 4.1"));
    assert_int_equal(d.per_port[0].congested, 1);
    assert_true(fabs(d.per_port[0].utilization - 0.926) < 1e-9);
    nv_diagnosis_free(&d);
}

/* Case B (§4.2): a 2-D stencil mapped row-major over two leaf switches
 * joined by a 2:1-tapered uplink.  In the +y phase all of leaf0's nodes
 * send across it: the uplink is congested and full of the job's own
 * traffic; the node links are barely congested. */
static void row_major_stencil_over_thin_uplink_is_a_mapping_problem(void **state)
{
    nv_diag_port p[9];
    size_t n = 0;
    char name[32], node[16];
    for (int i = 0; i < 8; i++) {
        snprintf(name, sizeof name, "n%d:hca", i);
        snprintf(node, sizeof node, "n%d", i);
        p[n++] = port(name, node, i < 4 ? "leaf0" : "leaf1", NV_LINK_ENDPOINT, GBPS(100), 0.125,
                      0.05, 0.125);
    }
    p[n++] = port("leaf0:up", "", "leaf0", NV_LINK_NETWORK, GBPS(50), 0.99, 0.9, 0.99);
    nv_diagnosis d = run(p, n);
    assert_int_equal(d.cause, NV_CAUSE_MAPPING);
    assert_int_equal(d.root, 8);
    assert_non_null(strstr(d.reason, "leaf0:up"));
    assert_non_null(strstr(d.reason, "inside the network"));
    nv_diagnosis_free(&d);
}

/* Case C (§4.4): a ring exchange on scattered nodes beside a uniform
 * random job.  The ring's node links are quiet; the link from the
 * aggregation switch down to leaf1 is congested and full, but the ring's
 * own traffic on it stays below 30 % of line rate. */
static void ring_beside_random_traffic_is_background_interference(void **state)
{
    nv_diag_port p[6];
    size_t n = 0;
    const char *nodes[4] = {"n0", "n2", "n5", "n7"};
    char name[32];
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof name, "%s:hca", nodes[i]);
        p[n++] = port(name, nodes[i], i < 2 ? "leaf0" : "leaf1", NV_LINK_ENDPOINT, GBPS(100), 0.2,
                      0.02, 0.2);
    }
    p[n++] = port("agg0->leaf1", "", "agg0", NV_LINK_NETWORK, GBPS(100), 0.97, 0.6, 0.24);
    p[n++] = port("leaf0:up", "", "leaf0", NV_LINK_NETWORK, GBPS(100), 0.4, 0.05, 0.2);
    nv_diagnosis d = run(p, n);
    assert_int_equal(d.cause, NV_CAUSE_BACKGROUND);
    assert_int_equal(d.root, 4);
    assert_non_null(strstr(d.reason, "agg0->leaf1"));
    assert_non_null(strstr(d.reason, "Theorem 4.2"));
    nv_diagnosis_free(&d);
}

/* Moving a pattern cause to background would need the own share: the same
 * congested uplink with the job's own traffic half full is undecided. */
static void own_traffic_between_thresholds_is_inconclusive(void **state)
{
    nv_diag_port p[1] = {port("leaf0:up", "", "leaf0", NV_LINK_NETWORK, GBPS(50), 0.99, 0.9, 0.6)};
    nv_diagnosis d = run(p, 1);
    assert_int_equal(d.cause, NV_CAUSE_INCONCLUSIVE);
    assert_non_null(strstr(d.reason, "neither"));
    nv_diagnosis_free(&d);
}

static void unknown_own_traffic_is_inconclusive_and_says_why(void **state)
{
    nv_diag_port p[1] = {port("leaf0:up", "", "leaf0", NV_LINK_NETWORK, GBPS(50), 0.99, 0.9, NAN)};
    nv_diagnosis d = run(p, 1);
    assert_int_equal(d.cause, NV_CAUSE_INCONCLUSIVE);
    assert_non_null(strstr(d.reason, "traffic matrix"));
    nv_diagnosis_free(&d);
}

static void too_little_data_is_inconclusive(void **state)
{
    /* 10 ms windows with a kilobyte each: nothing can be judged */
    nv_diag_port p[2] = {port("n0:hca", "n0", "leaf0", NV_LINK_ENDPOINT, GBPS(100), 0.9, 0.99, 0.9),
                         port("leaf0:up", "", "leaf0", NV_LINK_NETWORK, GBPS(100), 0.9, 0.99, 0.9)};
    for (int i = 0; i < 2; i++) {
        p[i].window_s = 0.01;
        p[i].traffic_bytes = 1024;
        p[i].stall_units = 1000;
    }
    nv_diagnosis d = run(p, 2);
    assert_int_equal(d.cause, NV_CAUSE_INCONCLUSIVE);
    assert_non_null(strstr(d.reason, "too little data"));
    assert_int_equal(d.per_port[0].congested, -1);
    assert_int_equal(d.windows_judged, 0);
    nv_diagnosis_free(&d);

    d = run(NULL, 0);
    assert_int_equal(d.cause, NV_CAUSE_INCONCLUSIVE);
    assert_non_null(strstr(d.reason, "no counters"));
    nv_diagnosis_free(&d);

    /* no stall counter at all: not judged either */
    nv_diag_port q = port("n0:eth0", "n0", "leaf0", NV_LINK_ENDPOINT, GBPS(10), 0.9, 0, 0.9);
    q.stall_units = NAN;
    d = run(&q, 1);
    assert_int_equal(d.cause, NV_CAUSE_INCONCLUSIVE);
    nv_diagnosis_free(&d);
}

static void quiet_ports_mean_no_congestion(void **state)
{
    nv_diag_port p[1] = {
        port("n0:hca", "n0", "leaf0", NV_LINK_ENDPOINT, GBPS(100), 0.9, 0.01, 0.9)};
    nv_diagnosis d = run(p, 1);
    assert_int_equal(d.cause, NV_CAUSE_NONE);
    nv_diagnosis_free(&d);
}

static void windows_vote_and_the_reason_says_how_many(void **state)
{
    nv_diag_port p[3];
    for (unsigned w = 0; w < 3; w++) {
        p[w] = port("leaf0:up", "", "leaf0", NV_LINK_NETWORK, GBPS(50), 0.99, w == 1 ? 0.01 : 0.9,
                    0.99);
        p[w].window = w;
    }
    nv_diagnosis d = run(p, 3);
    assert_int_equal(d.n_windows, 3);
    assert_int_equal(d.cause, NV_CAUSE_MAPPING);
    assert_int_equal(d.windows[1].cause, NV_CAUSE_NONE);
    assert_non_null(strstr(d.reason, "in 2 of 3 windows"));
    nv_diagnosis_free(&d);
}

static void line_rates_from_sysfs_text(void **state)
{
    assert_true(fabs(nv_line_rate_from_sysfs("infiniband", "100 Gb/sec (4X EDR)\n") - 12.5e9) < 1);
    assert_true(fabs(nv_line_rate_from_sysfs("infiniband", "2.5 Gb/sec (1X SDR)") - 312.5e6) < 1);
    assert_true(fabs(nv_line_rate_from_sysfs("netdev", "10000\n") - 1.25e9) < 1);
    assert_true(isnan(nv_line_rate_from_sysfs("netdev", "-1\n")));
    assert_true(isnan(nv_line_rate_from_sysfs("netdev", "fast")));
    assert_true(isnan(nv_line_rate_from_sysfs("infiniband", "100 furlongs")));
    assert_true(isnan(nv_line_rate_from_sysfs("papi", "100")));
}

/* 4x4 stencil on 16 nodes, 4 per leaf, one group: row-major puts every
 * +y/-y message across leaves; 2x2 tiles keep half of them inside one. */
static void stencil_tiles_beat_row_major_in_hop_bytes_and_worst_link(void **state)
{
    nv_rank_place rowmajor[16], tiled[16];
    double bytes[16 * 16] = {0};
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++) {
            int r = y * 4 + x;
            rowmajor[r] = (nv_rank_place){(unsigned)r, (unsigned)y, 0};
            unsigned tile = (unsigned)((y / 2) * 2 + x / 2);
            tiled[r] = (nv_rank_place){(unsigned)r, tile, 0};
            const int d[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
            for (int k = 0; k < 4; k++) {
                int nx = x + d[k][0], ny = y + d[k][1];
                if (nx >= 0 && nx < 4 && ny >= 0 && ny < 4)
                    bytes[r * 16 + ny * 4 + nx] = 1;
            }
        }
    nv_mapping_metrics a, b;
    char err[128];
    assert_int_equal(nv_mapping_metrics_compute(rowmajor, 16, bytes, NULL, &a, err, sizeof err), 0);
    assert_int_equal(nv_mapping_metrics_compute(tiled, 16, bytes, NULL, &b, err, sizeof err), 0);
    assert_true(a.total_bytes == 48 && b.total_bytes == 48);
    assert_true(a.hop_bytes == 144); /* 24 x 2 hops + 24 x 4 hops */
    assert_true(b.hop_bytes == 128); /* 32 x 2 + 16 x 4 */
    assert_true(a.worst_link_bytes == 8);
    assert_non_null(strstr(a.worst_link, "leaf"));
    assert_true(b.worst_link_bytes == 4);
    assert_true(isnan(a.worst_link_seconds));
    nv_link_rates r = {GBPS(100), GBPS(50), GBPS(50)};
    assert_int_equal(nv_mapping_metrics_compute(rowmajor, 16, bytes, &r, &a, err, sizeof err), 0);
    assert_true(fabs(a.worst_link_seconds - 8 / GBPS(50)) < 1e-18);
    bytes[1] = -1;
    assert_int_equal(nv_mapping_metrics_compute(tiled, 16, bytes, NULL, &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "bytes[0][1]"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reduction_into_one_node_is_a_communication_pattern),
        cmocka_unit_test(row_major_stencil_over_thin_uplink_is_a_mapping_problem),
        cmocka_unit_test(ring_beside_random_traffic_is_background_interference),
        cmocka_unit_test(own_traffic_between_thresholds_is_inconclusive),
        cmocka_unit_test(unknown_own_traffic_is_inconclusive_and_says_why),
        cmocka_unit_test(too_little_data_is_inconclusive),
        cmocka_unit_test(quiet_ports_mean_no_congestion),
        cmocka_unit_test(windows_vote_and_the_reason_says_how_many),
        cmocka_unit_test(line_rates_from_sysfs_text),
        cmocka_unit_test(stencil_tiles_beat_row_major_in_hop_bytes_and_worst_link),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
