/* test_bottleneck.c - the counters route's sampler (lib/runner/bottleneck.h):
 * the --bottleneck spec, the window and profile arithmetic, and a live
 * sampler thread reading a netdev port from a sysfs tree made here. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bottleneck.h"
#include "nv_test.h"

static void spec_parses_kinds_and_ports(void **state)
{
    (void)state;
    nv_bn_spec s;
    char err[256];
    assert_int_equal(nv_bn_parse("qdisc:nv001u1,nv001u2", &s, err, sizeof err), 0);
    assert_int_equal(s.kind, NV_BN_QDISC);
    assert_int_equal(s.nports, 2);
    assert_string_equal(s.port[1], "nv001u2");
    assert_int_equal(nv_bn_parse("infiniband:mlx5_0/1", &s, err, sizeof err), 0);
    assert_int_equal(s.kind, NV_BN_INFINIBAND);
    assert_string_equal(s.port[0], "mlx5_0/1");
    assert_int_equal(nv_bn_parse("netdev:eth0", &s, err, sizeof err), 0);
    assert_int_equal(s.kind, NV_BN_NETDEV);
    assert_int_equal(nv_bn_parse("cxi:cxi0,cxi1", &s, err, sizeof err), 0);
    assert_int_equal(s.kind, NV_BN_CXI);
    assert_int_equal(s.nports, 2);
    assert_string_equal(nv_bn_kind_name(NV_BN_CXI), "cxi");
    assert_int_equal(nv_bn_kind_gauge(NV_BN_CXI), NV_BN_GAUGE_PAUSE);
}

static void spec_rejects_bad_input(void **state)
{
    (void)state;
    nv_bn_spec s;
    char err[256];
    const char *bad[] = {"eth0",
                         "ib:mlx5_0/1",
                         "qdisc:",
                         "netdev:eth0,",
                         "netdev:../etc",
                         "netdev:a/../b",
                         "netdev:/abs",
                         "netdev:e*",
                         "netdev:e th",
                         "qdisc:abcdefghijklmnop",
                         "netdev:a,b,c,d,e,f,g,h,i",
                         ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        assert_int_equal(nv_bn_parse(bad[i], &s, err, sizeof err), -1);
        assert_non_null(strstr(err, "--bottleneck"));
    }
    assert_int_equal(nv_bn_parse(NULL, &s, err, sizeof err), -1);
}

static void window_takes_only_its_steps(void **state)
{
    (void)state;
    nv_bn_step st[10];
    for (int i = 0; i < 10; i++) /* step i ends at (i + 1) s with U (i + 1)/10 */
        st[i] = (nv_bn_step){.t_ns = (uint64_t)(i + 1) * 1000000000u,
                             .u = (i + 1) / 10.0,
                             .wait = i % 2 ? NAN : 100.0 * i};
    double mean, prof[8];
    size_t np;
    /* steps ending at 3..6 s */
    assert_int_equal(
        nv_bn_window_stats(st, 10, NV_BN_U, 3000000000u, 6000000000u, &mean, prof, 8, &np), 4);
    assert_true(fabs(mean - 0.45) < 1e-12);
    assert_int_equal(np, 4);
    assert_true(fabs(prof[0] - 0.3) < 1e-12 && fabs(prof[3] - 0.6) < 1e-12);
    /* more steps than quantiles: octiles, ascending */
    assert_int_equal(nv_bn_window_stats(st, 10, NV_BN_U, 0, UINT64_MAX, &mean, prof, 8, &np), 10);
    assert_int_equal(np, 8);
    for (size_t k = 1; k < np; k++)
        assert_true(prof[k] >= prof[k - 1]);
    assert_true(fabs(mean - 0.55) < 1e-12);
    /* queue waits: the steps without a gauge (NAN) are left out: 0, 200, 400 us */
    assert_int_equal(nv_bn_window_stats(st, 10, NV_BN_WAIT, 0, 5000000000u, &mean, prof, 8, &np),
                     3);
    assert_true(fabs(mean - 200) < 1e-12);
    assert_true(prof[0] == 0 && prof[2] == 400);
    /* each port's own mean: port 1 carried a tenth of the busiest's U */
    for (int i = 0; i < 10; i++) {
        st[i].port_u[0] = (float)st[i].u;
        st[i].port_u[1] = (float)(st[i].u / 10);
    }
    assert_true(fabs(nv_bn_port_mean(st, 10, 0, 3000000000u, 6000000000u) - 0.45) < 1e-6);
    assert_true(fabs(nv_bn_port_mean(st, 10, 1, 3000000000u, 6000000000u) - 0.045) < 1e-6);
    assert_true(isnan(nv_bn_port_mean(st, 10, NV_BN_MAX_PORTS, 0, UINT64_MAX)));
    assert_true(isnan(nv_bn_port_mean(st, 10, 0, 20000000000u, 30000000000u)));
    /* an empty window says so */
    assert_int_equal(
        nv_bn_window_stats(st, 10, NV_BN_U, 20000000000u, 30000000000u, &mean, prof, 8, &np), 0);
    assert_true(isnan(mean));
    assert_int_equal(np, 0);
}

/* The joint windows: U and gauge averaged over the same consecutive windows
 * of the steps that read both; a window with under half the fullest's
 * steps is left out. */
static void joint_windows_average_both_over_the_same_steps(void **state)
{
    (void)state;
    nv_bn_step st[13];
    for (int i = 0; i < 13; i++) /* steps every 0.1 s from 1.0 s: U i/100, wait 10 i us */
        st[i] = (nv_bn_step){
            .t_ns = 1000000000u + (uint64_t)i * 100000000u, .u = i / 100.0, .wait = 10.0 * i};
    st[3].wait = NAN; /* a step without a gauge reading is left out of both */
    nv_joint_window *v = NULL;
    size_t n = 0;
    /* windows of 0.5 s from the first step: steps 0-4 (without 3), 5-9, 10-12 */
    assert_int_equal(nv_bn_joint_stats(st, 13, 0, UINT64_MAX, 500000000u, &v, &n), 3);
    assert_int_equal(n, 3);
    assert_true(fabs(v[0].u - (0 + 1 + 2 + 4) / 400.0) < 1e-6);
    assert_true(fabs(v[0].w_us - 10 * (0 + 1 + 2 + 4) / 4.0) < 1e-4);
    assert_true(fabs(v[1].u - 0.07) < 1e-6 && fabs(v[1].w_us - 70) < 1e-4);
    assert_true(fabs(v[2].u - 0.11) < 1e-6 && fabs(v[2].w_us - 110) < 1e-4);
    /* appended after what was there; a range of steps 5..10 (0.5 to 1.0 s
     * after 1.0 s): 5-9, and 10 alone (under half of 5 steps) is left out */
    assert_int_equal(nv_bn_joint_stats(st, 13, 1500000000u, 2000000000u, 500000000u, &v, &n), 1);
    assert_int_equal(n, 4);
    assert_true(fabs(v[3].u - 0.07) < 1e-6);
    /* nothing in range, or a window of 0: nothing appended */
    assert_int_equal(nv_bn_joint_stats(st, 13, 9000000000u, UINT64_MAX, 500000000u, &v, &n), 0);
    assert_int_equal(nv_bn_joint_stats(st, 13, 0, UINT64_MAX, 0, &v, &n), 0);
    assert_int_equal(n, 4);
    free(v);
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w"); /* in place: the reader keeps its descriptors */
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void live_sampler_reads_a_netdev_port(void **state)
{
    (void)state;
    char root[512], p[768];
    assert_int_equal(nv_test_tmpdir(root, sizeof root, "bottleneck"), 0);
    snprintf(p, sizeof p, "%s/sys", root);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/sys/class", root);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/sys/class/net", root);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/sys/class/net/up0", root);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/sys/class/net/up0/statistics", root);
    mkdir(p, 0755);
    const char *files[] = {"tx_bytes",   "rx_bytes",   "tx_packets",
                           "rx_packets", "tx_dropped", "rx_dropped"};
    for (size_t i = 0; i < 6; i++) {
        snprintf(p, sizeof p, "%s/sys/class/net/up0/statistics/%s", root, files[i]);
        put(p, "1000\n");
    }
    nv_bn_spec s;
    char err[512] = "";
    assert_int_equal(nv_bn_parse("netdev:up0", &s, err, sizeof err), 0);
    s.sysfs_root = root;
    /* no speed file and no rate given: refused, naming the way out */
    assert_null(nv_bn_start(&s, 10, err, sizeof err));
    assert_non_null(strstr(err, "--bottleneck-rate"));
    snprintf(p, sizeof p, "%s/sys/class/net/up0/speed", root);
    put(p, "8\n");                                    /* 8 Mb/s = 1e6 bytes/s */
    assert_null(nv_bn_start(&s, 5, err, sizeof err)); /* interval out of range */
    nv_bn_sampler *bn = nv_bn_start(&s, 10, err, sizeof err);
    assert_non_null(bn);
    uint64_t t0 = nv_bn_now_ns();
    sleep_ms(80);
    uint64_t t1 = nv_bn_now_ns();
    double mean, prof[8];
    size_t np;
    assert_true(nv_bn_window(bn, NV_BN_U, t0, t1, &mean, prof, 8, &np) >= 1);
    assert_true(mean == 0); /* the counters did not move */
    /* ten seconds' worth of bytes at once: the step that sees it reads 1 */
    snprintf(p, sizeof p, "%s/sys/class/net/up0/statistics/tx_bytes", root);
    put(p, "10001000\n");
    sleep_ms(80);
    uint64_t t2 = nv_bn_now_ns();
    assert_true(nv_bn_window(bn, NV_BN_U, t1, t2, &mean, prof, 8, &np) >= 1);
    assert_true(prof[np - 1] == 1.0);
    assert_true(mean > 0 && mean <= 1);
    double *v = NULL;
    size_t n = 0;
    assert_true(nv_bn_collect(bn, NV_BN_U, t0, t2, &v, &n) >= 2);
    /* a netdev port has no queue gauge: no wait step */
    size_t nu = n;
    assert_int_equal(nv_bn_collect(bn, NV_BN_WAIT, t0, t2, &v, &n), 0);
    assert_int_equal(n, nu);
    assert_true(nv_bn_read_errors(bn) <= 1); /* a read mid-rewrite, at most */
    free(v);
    nv_bn_stop(bn);
    /* a given rate wins over the speed file: the same jump reads U <= 0.1
     * (1e7 bytes in a step of at least 10 ms, at 1e10 bytes/s) */
    s.rate_bytes_per_s = 1e10;
    bn = nv_bn_start(&s, 10, err, sizeof err);
    assert_non_null(bn);
    sleep_ms(40);
    uint64_t t3 = nv_bn_now_ns();
    put(p, "20001000\n");
    sleep_ms(80);
    assert_true(nv_bn_window(bn, NV_BN_U, t3, nv_bn_now_ns(), &mean, prof, 8, &np) >= 1);
    assert_true(prof[np - 1] > 0 && prof[np - 1] <= 0.1 + 1e-9);
    nv_bn_stop(bn);
    nv_bn_stop(NULL);
    nv_test_rmtree(root);
}

static void mkdirs(const char *root, const char *rel)
{
    char p[768];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    for (char *c = p + strlen(root) + 1; *c; c++)
        if (*c == '/') {
            *c = 0;
            mkdir(p, 0755);
            *c = '/';
        }
    mkdir(p, 0755);
}

static void put_counter(const char *root, const char *name, const char *text)
{
    char p[768];
    snprintf(p, sizeof p, "%s/sys/class/infiniband/mlx5_0/ports/1/counters/%s", root, name);
    put(p, text);
}

/* Starts a sampler on a port whose counters do not move: its gauge is g,
 * named name, and reads 0 until *t1. */
static nv_bn_sampler *start_idle(const nv_bn_spec *s, nv_bn_gauge g, const char *name, uint64_t *t1)
{
    char err[512] = "";
    nv_bn_sampler *bn = nv_bn_start(s, 10, err, sizeof err);
    assert_non_null(bn);
    assert_int_equal(nv_bn_sampler_gauge(bn), g);
    assert_string_equal(nv_bn_gauge_name(g), name);
    sleep_ms(60);
    *t1 = nv_bn_now_ns();
    double mean, prof[8];
    size_t np;
    assert_true(nv_bn_window(bn, NV_BN_WAIT, 0, *t1, &mean, prof, 8, &np) >= 1);
    assert_true(mean == 0);
    return bn;
}

/* After the counters of one port moved once: the gauge's steps since t1
 * reach at least want (more when a step fell between the writes), and U
 * is above 0 and below u_max.  Returns the time it looked. */
static uint64_t moved_once(nv_bn_sampler *bn, uint64_t t1, double want, double u_max)
{
    double mean, prof[8];
    size_t np;
    sleep_ms(60);
    uint64_t t2 = nv_bn_now_ns();
    assert_true(nv_bn_window(bn, NV_BN_WAIT, t1, t2, &mean, prof, 8, &np) >= 1);
    assert_true(prof[np - 1] >= want - 1e-9);
    assert_true(nv_bn_window(bn, NV_BN_U, t1, t2, &mean, prof, 8, &np) >= 1);
    assert_true(prof[np - 1] > 0 && prof[np - 1] < u_max);
    return t2;
}

/* An InfiniBand port: U from port_xmit_data (4-byte words) over the rate
 * file, and the stall gauge: port_xmit_wait ticks per word sent. */
static void live_sampler_reads_infiniband_stalls(void **state)
{
    (void)state;
    char root[512], p[768];
    assert_int_equal(nv_test_tmpdir(root, sizeof root, "bottleneck-ib"), 0);
    mkdirs(root, "sys/class/infiniband/mlx5_0/ports/1/counters");
    const char *files[] = {"port_xmit_data",   "port_rcv_data",  "port_xmit_packets",
                           "port_rcv_packets", "port_xmit_wait", "port_xmit_discards"};
    for (size_t i = 0; i < 6; i++)
        put_counter(root, files[i], "1000\n");
    snprintf(p, sizeof p, "%s/sys/class/infiniband/mlx5_0/ports/1/rate", root);
    put(p, "100 Gb/sec (4X EDR)\n");
    nv_bn_spec s;
    char err[512] = "";
    assert_int_equal(nv_bn_parse("infiniband:mlx5_0/1", &s, err, sizeof err), 0);
    s.sysfs_root = root;
    uint64_t t1;
    nv_bn_sampler *bn = start_idle(&s, NV_BN_GAUGE_STALL, "stall_per_word", &t1);
    /* the gauge's arithmetic: ticks per 4-byte word, a silent port as one
     * word, clamped */
    assert_true(nv_bn_stall_per_word(500000, 4000000) == 0.5);
    assert_true(nv_bn_stall_per_word(0, 4000000) == 0);
    assert_true(nv_bn_stall_per_word(7, 0) == 7);
    assert_true(nv_bn_stall_per_word(UINT64_MAX, 0) == NV_BN_STALL_MAX);
    /* 1e6 words sent while the port stalled 5e5 ticks: 0.5 ticks per word
     * when one step sees both files change, more when a step falls between
     * the two writes (the stalls first, with nothing sent yet) */
    put_counter(root, "port_xmit_wait", "501000\n");
    put_counter(root, "port_xmit_data", "1001000\n");
    /* and U: 4e6 bytes in one step of >= 10 ms at 12.5e9 bytes/s: > 0, < 0.04 */
    uint64_t t2 = moved_once(bn, t1, 0.5, 0.04 + 1e-9);
    assert_true(nv_bn_port_window(bn, 0, t1, t2) > 0);
    /* a stuck (saturated) stall counter reads as no gauge, not as no stall */
    put_counter(root, "port_xmit_wait", "4294967295\n");
    sleep_ms(40);
    uint64_t t3 = nv_bn_now_ns();
    sleep_ms(60);
    double *v = NULL;
    size_t n = 0;
    assert_int_equal(nv_bn_collect(bn, NV_BN_WAIT, t3, nv_bn_now_ns(), &v, &n), 0);
    assert_true(nv_bn_collect(bn, NV_BN_U, t3, nv_bn_now_ns(), &v, &n) >= 1);
    free(v);
    /* a step that read a counter file while the test rewrote it (truncated,
     * then written) counts as a read error, not as a step: at most one per
     * rewrite */
    assert_true(nv_bn_read_errors(bn) <= 3);
    nv_bn_stop(bn);
    nv_test_rmtree(root);
}

static void put_cxi(const char *root, const char *name, const char *text)
{
    char p[768];
    snprintf(p, sizeof p, "%s/sys/class/cxi/cxi0/device/telemetry/%s", root, name);
    put(p, text);
}

/* A Slingshot NIC: U from hni_sts_tx_ok_octets over the given rate, and the
 * pause gauge: hni_tx_paused_* cycles per packet sent (hni_pkts_sent_by_tc_*),
 * every file "VALUE@SEC.NSEC" as the cxi driver writes it. */
static void live_sampler_reads_slingshot_pauses(void **state)
{
    (void)state;
    char root[256];
    assert_int_equal(nv_test_tmpdir(root, sizeof root, "bn-cxi"), 0);
    mkdirs(root, "sys/class/cxi/cxi0/device/telemetry");
    put_cxi(root, "hni_sts_tx_ok_octets", "1000@1732500000.1\n");
    put_cxi(root, "hni_sts_rx_ok_octets", "1000@1732500000.1\n");
    for (int k = 0; k < 8; k++) {
        char n[64];
        snprintf(n, sizeof n, "hni_pkts_sent_by_tc_%d", k);
        put_cxi(root, n, "100@1732500000.1\n");
        snprintf(n, sizeof n, "hni_pkts_recv_by_tc_%d", k);
        put_cxi(root, n, "100@1732500000.1\n");
        snprintf(n, sizeof n, "hni_tx_paused_%d", k);
        put_cxi(root, n, "0@1732500000.1\n");
    }
    nv_bn_spec s;
    char err[512] = "";
    assert_int_equal(nv_bn_parse("cxi:cxi0", &s, err, sizeof err), 0);
    s.sysfs_root = root;
    /* no Ethernet function (device/net) to read the NIC's rate from: given */
    assert_null(nv_bn_start(&s, 10, err, sizeof err));
    assert_non_null(strstr(err, "--bottleneck-rate"));
    s.rate_bytes_per_s = 25e9; /* 200 Gb/s */
    uint64_t t1;
    nv_bn_sampler *bn = start_idle(&s, NV_BN_GAUGE_PAUSE, "paused_cycles_per_packet", &t1);
    /* arithmetic: cycles per packet, a step without packets as one, clamped */
    assert_true(nv_bn_pause_per_packet(5000, 1000) == 5);
    assert_true(nv_bn_pause_per_packet(0, 1000) == 0);
    assert_true(nv_bn_pause_per_packet(7, 0) == 7);
    assert_true(nv_bn_pause_per_packet(UINT64_MAX, 0) == NV_BN_STALL_MAX);
    /* 1000 packets sent (class 3) while class 5 was paused 5000 cycles: 5 per
     * packet when one step sees both, more when a step falls between them */
    put_cxi(root, "hni_tx_paused_5", "5000@1732500001.1\n");
    put_cxi(root, "hni_pkts_sent_by_tc_3", "1100@1732500001.1\n");
    put_cxi(root, "hni_sts_tx_ok_octets", "4001000@1732500001.1\n");
    /* U: 4e6 bytes in one step of >= 10 ms at 25e9 bytes/s: > 0, < 0.02 */
    moved_once(bn, t1, 5, 0.02);
    assert_true(nv_bn_read_errors(bn) <= 3);
    nv_bn_stop(bn);
    nv_test_rmtree(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spec_parses_kinds_and_ports),
        cmocka_unit_test(spec_rejects_bad_input),
        cmocka_unit_test(window_takes_only_its_steps),
        cmocka_unit_test(joint_windows_average_both_over_the_same_steps),
        cmocka_unit_test(live_sampler_reads_a_netdev_port),
        cmocka_unit_test(live_sampler_reads_infiniband_stalls),
        cmocka_unit_test(live_sampler_reads_slingshot_pauses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
