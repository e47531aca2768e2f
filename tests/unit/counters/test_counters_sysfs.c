/* test_counters_sysfs.c - the netdev and InfiniBand sysfs readers on the
 * fixture trees under tests/fixtures/sysfs: values, unit conversion,
 * saturation, wrap, and bad input (missing and non-numeric files). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "counters.h"
#include "nv_test.h"

static char tmpdir[256];
static char loglines[4096];
static int nlog;

static void capture_log(void *arg, const char *line)
{
    (void)arg;
    nlog++;
    size_t n = strlen(loglines);
    snprintf(loglines + n, sizeof loglines - n, "%s\n", line);
}

static const char *fixtures(void)
{
    const char *f = getenv("NETVAR_FIXTURES");
    return f && *f ? f : "tests/fixtures";
}

/* Copies fixture tree `name` to a fresh temporary root. */
static int setup_tree(void **state, const char *name)
{
    (void)state;
    if (nv_test_tmpdir(tmpdir, sizeof tmpdir, "counters-sysfs") != 0)
        return -1;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cp -r '%s/sysfs/%s/sys' '%s/'", fixtures(), name, tmpdir);
    loglines[0] = '\0';
    nlog = 0;
    return system(cmd) == 0 ? 0 : -1;
}

static int setup_netdev(void **s)
{
    return setup_tree(s, "netdev");
}
static int setup_netdev_bad(void **s)
{
    return setup_tree(s, "netdev_bad");
}
static int setup_ib(void **s)
{
    return setup_tree(s, "infiniband");
}
static int setup_cxi(void **s)
{
    return setup_tree(s, "cxi");
}

static int teardown(void **state)
{
    (void)state;
    return nv_test_rmtree(tmpdir);
}

/* Overwrites one counter file in place (the reader's fd sees it). */
static void put(const char *rel, const char *value)
{
    char path[768];
    snprintf(path, sizeof path, "%s/%s", tmpdir, rel);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%s\n", value);
    fclose(f);
}

static nv_ctr_reader *open_backend(const char *backend, const char *glob)
{
    nv_ctr_config cfg = {
        .backend = backend, .sysfs_root = tmpdir, .iface_glob = glob, .log = capture_log};
    char err[512];
    nv_ctr_reader *r = nv_ctr_open(&cfg, err, sizeof err);
    if (!r)
        print_error("open failed: %s\n", err);
    return r;
}

static const nv_ctr_port *port_named(const nv_ctr_snapshot *s, const char *name)
{
    for (int i = 0; i < s->nports; i++)
        if (!strcmp(s->port[i].name, name))
            return &s->port[i];
    return NULL;
}

static const nv_ctr_port_delta *dport_named(const nv_ctr_delta *d, const char *name)
{
    for (int i = 0; i < d->nports; i++)
        if (!strcmp(d->port[i].name, name))
            return &d->port[i];
    return NULL;
}

static void netdev_reads_values_and_skips_lo_by_default(void **state)
{
    (void)state;
    nv_ctr_reader *r = open_backend("netdev", NULL);
    assert_non_null(r);
    nv_ctr_snapshot s;
    char err[256];
    assert_int_equal(nv_ctr_snapshot_take(r, &s, err, sizeof err), 0);
    assert_string_equal(s.backend, "netdev");
    assert_int_equal(s.nports, 2); /* eth0, eth1; lo only when asked */
    const nv_ctr_port *p = port_named(&s, "eth0");
    assert_non_null(p);
    assert_string_equal(p->kind, "netdev");
    assert_true(p->f[NV_CTR_BYTES_OUT].valid);
    assert_int_equal(p->f[NV_CTR_BYTES_OUT].raw, 1000);
    assert_string_equal(p->f[NV_CTR_BYTES_OUT].unit, "bytes");
    assert_int_equal(p->f[NV_CTR_BYTES_IN].raw, 2000);
    assert_int_equal(p->f[NV_CTR_PACKETS_OUT].raw, 10);
    assert_int_equal(p->f[NV_CTR_PACKETS_IN].raw, 20);
    assert_int_equal(p->f[NV_CTR_DISCARDS].raw, 3); /* tx_dropped + rx_dropped */
    assert_false(p->f[NV_CTR_STALL].valid);         /* netdev has no stall counter */
    assert_true(s.t_ns > 0);
    nv_ctr_close(r);
}

static void netdev_glob_and_exact_name(void **state)
{
    (void)state;
    nv_ctr_reader *r = open_backend("netdev", "eth*");
    assert_non_null(r);
    assert_int_equal(nv_ctr_reader_nports(r), 2);
    nv_ctr_close(r);
    r = open_backend("netdev", "lo");
    assert_non_null(r);
    assert_int_equal(nv_ctr_reader_nports(r), 1);
    nv_ctr_close(r);
    nv_ctr_config cfg = {.backend = "netdev", .sysfs_root = tmpdir, .iface_glob = "ib*"};
    char err[256] = "";
    assert_null(nv_ctr_open(&cfg, err, sizeof err));
    assert_non_null(strstr(err, "no interface matches 'ib*'"));
}

static void netdev_delta_and_64bit_wrap(void **state)
{
    (void)state;
    nv_ctr_reader *r = open_backend("netdev", "eth*");
    assert_non_null(r);
    nv_ctr_snapshot a, b;
    nv_ctr_delta d;
    char err[256];
    assert_int_equal(nv_ctr_snapshot_take(r, &a, err, sizeof err), 0);
    put("sys/class/net/eth0/statistics/tx_bytes", "6000");
    put("sys/class/net/eth1/statistics/tx_bytes", "384"); /* 2^64-616 -> 384: +1000 */
    put("sys/class/net/eth1/statistics/rx_packets", "4"); /* 2^64-1 -> 4: +5 */
    assert_int_equal(nv_ctr_snapshot_take(r, &b, err, sizeof err), 0);
    assert_int_equal(nv_ctr_delta_compute(&a, &b, &d, err, sizeof err), 0);
    assert_string_equal(d.backend, "netdev");
    const nv_ctr_port_delta *e0 = dport_named(&d, "eth0"), *e1 = dport_named(&d, "eth1");
    assert_non_null(e0);
    assert_non_null(e1);
    assert_int_equal(e0->f[NV_CTR_BYTES_OUT].value, 5000);
    assert_false(e0->f[NV_CTR_BYTES_OUT].wrapped);
    assert_int_equal(e0->f[NV_CTR_BYTES_IN].value, 0);
    assert_int_equal(e1->f[NV_CTR_BYTES_OUT].value, 1000);
    assert_true(e1->f[NV_CTR_BYTES_OUT].wrapped);
    assert_false(e1->f[NV_CTR_BYTES_OUT].lower_bound);
    assert_int_equal(e1->f[NV_CTR_PACKETS_IN].value, 5);
    assert_true(e1->f[NV_CTR_PACKETS_IN].wrapped);
    assert_false(e1->f[NV_CTR_STALL].valid);
    nv_ctr_close(r);
}

static void netdev_bad_files_give_one_line_each(void **state)
{
    (void)state;
    nv_ctr_reader *r = open_backend("netdev", "eth0");
    assert_non_null(r);
    /* the missing rx_packets was reported once, naming the file */
    assert_int_equal(nlog, 1);
    assert_non_null(strstr(loglines, "netvar: "));
    assert_non_null(strstr(loglines, "eth0/statistics/rx_packets: cannot open"));
    assert_non_null(strstr(loglines, "marked invalid"));
    nv_ctr_snapshot s;
    char err[512] = "";
    assert_int_equal(nv_ctr_snapshot_take(r, &s, err, sizeof err), 1);
    assert_non_null(strstr(err, "tx_bytes"));
    assert_int_equal(nlog, 2);
    assert_non_null(strstr(loglines, "'garbage' is not a counter value"));
    const nv_ctr_port *p = port_named(&s, "eth0");
    assert_false(p->f[NV_CTR_BYTES_OUT].valid);
    assert_false(p->f[NV_CTR_PACKETS_IN].valid);
    assert_true(p->f[NV_CTR_BYTES_IN].valid);
    assert_int_equal(p->f[NV_CTR_BYTES_IN].raw, 2000);
    /* a second snapshot does not repeat the line */
    assert_int_equal(nv_ctr_snapshot_take(r, &s, err, sizeof err), 1);
    assert_int_equal(nlog, 2);
    /* the file gets fixed: the field comes back */
    put("sys/class/net/eth0/statistics/tx_bytes", "77");
    assert_int_equal(nv_ctr_snapshot_take(r, &s, err, sizeof err), 0);
    assert_true(port_named(&s, "eth0")->f[NV_CTR_BYTES_OUT].valid);
    nv_ctr_close(r);
}

static void ib_prefers_64bit_ext_and_converts_words(void **state)
{
    (void)state;
    nv_ctr_reader *r = open_backend("infiniband", NULL);
    assert_non_null(r);
    nv_ctr_snapshot s;
    char err[256];
    assert_int_equal(nv_ctr_snapshot_take(r, &s, err, sizeof err), 0);
    assert_string_equal(s.backend, "infiniband");
    assert_int_equal(s.nports, 3);
    const nv_ctr_port *m4 = port_named(&s, "mlx4_0/1");
    assert_non_null(m4);
    assert_string_equal(m4->kind, "ib_port");
    assert_int_equal(m4->f[NV_CTR_BYTES_OUT].raw, 18446744073709551000ull);
    assert_int_equal(m4->f[NV_CTR_BYTES_OUT].scale, 4);
    assert_string_equal(m4->f[NV_CTR_BYTES_OUT].unit, "bytes");
    assert_int_equal(m4->f[NV_CTR_BYTES_OUT].sat_max, 0); /* 64-bit */
    assert_false(m4->f[NV_CTR_BYTES_OUT].saturated);
    assert_int_equal(m4->f[NV_CTR_BYTES_IN].raw, 5000000000ull);
    assert_int_equal(m4->f[NV_CTR_PACKETS_OUT].raw, 9000000000ull);
    assert_int_equal(m4->f[NV_CTR_STALL].raw, 123456);
    assert_string_equal(m4->f[NV_CTR_STALL].unit, "ticks");
    assert_int_equal(m4->f[NV_CTR_DISCARDS].raw, 7);
    const nv_ctr_port *q = port_named(&s, "qib0/1");
    assert_non_null(q);
    assert_true(q->f[NV_CTR_BYTES_IN].saturated);
    assert_true(q->f[NV_CTR_STALL].saturated);
    assert_true(q->f[NV_CTR_DISCARDS].saturated); /* 16-bit at 65535 */
    assert_false(q->f[NV_CTR_BYTES_OUT].saturated);
    const nv_ctr_port *m5 = port_named(&s, "mlx5_0/1");
    assert_non_null(m5);
    assert_int_equal(m5->f[NV_CTR_BYTES_OUT].sat_max, 0); /* > 2^32 seen: 64-bit */
    assert_int_equal(m5->f[NV_CTR_PACKETS_OUT].sat_max, 4294967295ull);
    nv_ctr_close(r);
}

static void ib_delta_saturation_wrap_and_units(void **state)
{
    (void)state;
    nv_ctr_reader *r = open_backend("infiniband", NULL);
    assert_non_null(r);
    nv_ctr_snapshot a, b;
    nv_ctr_delta d;
    char err[256];
    assert_int_equal(nv_ctr_snapshot_take(r, &a, err, sizeof err), 0);
    const char *m4 = "sys/class/infiniband/mlx4_0/ports/1/counters_ext/";
    const char *q = "sys/class/infiniband/qib0/ports/1/counters/";
    const char *m5 = "sys/class/infiniband/mlx5_0/ports/1/counters/";
    char p[256];
    snprintf(p, sizeof p, "%sport_xmit_data_64", m4);
    put(p, "384"); /* wraps: +1000 words = 4000 bytes */
    snprintf(p, sizeof p, "%sport_xmit_data", q);
    put(p, "1250"); /* +250 words = 1000 bytes, exact */
    snprintf(p, sizeof p, "%sport_xmit_packets", q);
    put(p, "4294967295"); /* from 100 to saturation: lower bound */
    snprintf(p, sizeof p, "%sport_rcv_packets", q);
    put(p, "50"); /* went down: reset, lower bound 50 */
    snprintf(p, sizeof p, "%sport_xmit_packets", m5);
    put(p, "4294967295"); /* 32-bit counter reaches the top */
    snprintf(p, sizeof p, "%sport_xmit_wait", m5);
    put(p, "4294967100"); /* +100 ticks */
    assert_int_equal(nv_ctr_snapshot_take(r, &b, err, sizeof err), 0);
    assert_int_equal(nv_ctr_delta_compute(&a, &b, &d, err, sizeof err), 0);
    const nv_ctr_port_delta *dm4 = dport_named(&d, "mlx4_0/1");
    const nv_ctr_port_delta *dq = dport_named(&d, "qib0/1");
    const nv_ctr_port_delta *dm5 = dport_named(&d, "mlx5_0/1");
    assert_int_equal(dm4->f[NV_CTR_BYTES_OUT].value, 4000);
    assert_true(dm4->f[NV_CTR_BYTES_OUT].wrapped);
    assert_false(dm4->f[NV_CTR_BYTES_OUT].lower_bound);
    assert_string_equal(dm4->f[NV_CTR_BYTES_OUT].unit, "bytes");
    assert_int_equal(dq->f[NV_CTR_BYTES_OUT].value, 1000);
    assert_false(dq->f[NV_CTR_BYTES_OUT].lower_bound);
    assert_int_equal(dq->f[NV_CTR_PACKETS_OUT].value, 4294967295ull - 100);
    assert_true(dq->f[NV_CTR_PACKETS_OUT].lower_bound);
    assert_int_equal(dq->f[NV_CTR_PACKETS_IN].value, 50);
    assert_true(dq->f[NV_CTR_PACKETS_IN].lower_bound);
    /* stuck at the top in both snapshots: 0, but only a lower bound */
    assert_int_equal(dq->f[NV_CTR_STALL].value, 0);
    assert_true(dq->f[NV_CTR_STALL].lower_bound);
    assert_true(dq->f[NV_CTR_BYTES_IN].lower_bound);
    assert_true(dq->f[NV_CTR_DISCARDS].lower_bound);
    assert_int_equal(dm5->f[NV_CTR_PACKETS_OUT].value, 295);
    assert_true(dm5->f[NV_CTR_PACKETS_OUT].lower_bound);
    assert_int_equal(dm5->f[NV_CTR_STALL].value, 100);
    assert_false(dm5->f[NV_CTR_STALL].lower_bound);
    nv_ctr_close(r);
}

static void ib_glob_selects_device_or_port(void **state)
{
    (void)state;
    nv_ctr_reader *r = open_backend("infiniband", "mlx*");
    assert_non_null(r);
    assert_int_equal(nv_ctr_reader_nports(r), 2);
    nv_ctr_close(r);
    r = open_backend("infiniband", "qib0/1");
    assert_non_null(r);
    assert_int_equal(nv_ctr_reader_nports(r), 1);
    nv_ctr_close(r);
}

static void auto_falls_back_to_netdev_when_no_ib(void **state)
{
    (void)state;
    nv_ctr_reader *r = open_backend("auto", "eth0");
    assert_non_null(r);
    assert_string_equal(nv_ctr_reader_backend(r), "netdev");
    /* one line for the InfiniBand fallback */
    assert_int_equal(nlog, 1);
    assert_non_null(strstr(loglines, "infiniband unavailable"));
    nv_ctr_close(r);
}

static void auto_prefers_infiniband(void **state)
{
    (void)state;
    nv_ctr_reader *r = open_backend(NULL, NULL);
    assert_non_null(r);
    assert_string_equal(nv_ctr_reader_backend(r), "infiniband");
    nv_ctr_close(r);
}

static void delta_rejects_mixed_backends(void **state)
{
    (void)state;
    nv_ctr_snapshot a = {.backend = "netdev", .t_ns = 1}, b = {.backend = "infiniband", .t_ns = 2};
    nv_ctr_delta d;
    char err[256] = "";
    assert_int_equal(nv_ctr_delta_compute(&a, &b, &d, err, sizeof err), -1);
    assert_non_null(strstr(err, "different backends"));
    snprintf(b.backend, sizeof b.backend, "netdev");
    b.t_ns = 0;
    assert_int_equal(nv_ctr_delta_compute(&a, &b, &d, err, sizeof err), -1);
}

static void raw_delta_rules(void **state)
{
    (void)state;
    bool lb, wr;
    assert_int_equal(nv_ctr_raw_delta(5, 9, 0, false, &lb, &wr), 4);
    assert_false(lb || wr);
    assert_int_equal(nv_ctr_raw_delta(UINT64_MAX, 0, 0, false, &lb, &wr), 1);
    assert_true(wr);
    assert_int_equal(nv_ctr_raw_delta(10, 4294967295ull, 4294967295ull, true, &lb, &wr),
                     4294967285ull);
    assert_true(lb);
    assert_int_equal(nv_ctr_raw_delta(10, 3, 65535, false, &lb, &wr), 3);
    assert_true(lb);
    assert_false(wr);
}

static void unknown_backend_and_long_root(void **state)
{
    (void)state;
    char err[256] = "";
    nv_ctr_config cfg = {.backend = "magic"};
    assert_null(nv_ctr_open(&cfg, err, sizeof err));
    assert_non_null(strstr(err, "'magic' is unknown"));
    char root[1024];
    memset(root, 'a', sizeof root - 1);
    root[sizeof root - 1] = '\0';
    nv_ctr_config cfg2 = {.backend = "netdev", .sysfs_root = root};
    assert_null(nv_ctr_open(&cfg2, err, sizeof err));
    assert_non_null(strstr(err, "too long"));
}

static void cxi_reads_telemetry_and_sums_traffic_classes(void **state)
{
    (void)state;
    nv_ctr_reader *r = open_backend("cxi", NULL);
    assert_non_null(r);
    nv_ctr_snapshot s;
    char err[256];
    assert_int_equal(nv_ctr_snapshot_take(r, &s, err, sizeof err), 0);
    assert_string_equal(s.backend, "cxi");
    assert_int_equal(s.nports, 2); /* cxi2 has no telemetry: said, skipped */
    assert_non_null(strstr(loglines, "cxi2/device/telemetry: absent"));
    const nv_ctr_port *c0 = port_named(&s, "cxi0");
    assert_non_null(c0);
    assert_string_equal(c0->kind, "cxi_port");
    /* "VALUE@SEC.NSEC": the value, with its read time ignored */
    assert_int_equal(c0->f[NV_CTR_BYTES_OUT].raw, 5000000000ull);
    assert_string_equal(c0->f[NV_CTR_BYTES_OUT].unit, "bytes");
    assert_int_equal(c0->f[NV_CTR_BYTES_OUT].scale, 1);
    assert_int_equal(c0->f[NV_CTR_BYTES_OUT].sat_max, 0); /* 64-bit */
    assert_int_equal(c0->f[NV_CTR_BYTES_IN].raw, 7000000000ull);
    assert_int_equal(c0->f[NV_CTR_PACKETS_OUT].raw, 3600); /* 100 + 200 + ... + 800 */
    assert_int_equal(c0->f[NV_CTR_PACKETS_IN].raw, 80);
    assert_true(c0->f[NV_CTR_STALL].valid);
    assert_int_equal(c0->f[NV_CTR_STALL].raw, 28); /* 0 + 1 + ... + 7 paused cycles */
    assert_string_equal(c0->f[NV_CTR_STALL].unit, "cycles");
    assert_false(c0->f[NV_CTR_DISCARDS].valid);
    const nv_ctr_port *c1 = port_named(&s, "cxi1");
    assert_non_null(c1);
    assert_int_equal(c1->f[NV_CTR_PACKETS_OUT].raw, 10); /* the two classes it has */
    assert_false(c1->f[NV_CTR_STALL].valid);
    assert_non_null(strstr(loglines, "cxi1/device/telemetry/hni_tx_paused_0"));
    nv_ctr_close(r);
}

static void cxi_delta_glob_and_bad_value(void **state)
{
    (void)state;
    nv_ctr_reader *r = open_backend("cxi", "cxi0");
    assert_non_null(r);
    nv_ctr_snapshot a, b;
    nv_ctr_delta d;
    char err[256];
    assert_int_equal(nv_ctr_snapshot_take(r, &a, err, sizeof err), 0);
    assert_int_equal(a.nports, 1);
    const char *t = "sys/class/cxi/cxi0/device/telemetry/";
    char p[256];
    snprintf(p, sizeof p, "%shni_sts_tx_ok_octets", t);
    put(p, "5000004096@1732500009.000000001");
    snprintf(p, sizeof p, "%shni_tx_paused_3", t);
    put(p, "1003@1732500009.000000002"); /* +1000 cycles */
    snprintf(p, sizeof p, "%shni_pkts_sent_by_tc_0", t);
    put(p, "abc@1732500009.1"); /* not a value: that field is invalid */
    assert_int_equal(nv_ctr_snapshot_take(r, &b, err, sizeof err), 1); /* one file unread */
    assert_int_equal(nv_ctr_delta_compute(&a, &b, &d, err, sizeof err), 0);
    const nv_ctr_port_delta *dc = dport_named(&d, "cxi0");
    assert_non_null(dc);
    assert_int_equal(dc->f[NV_CTR_BYTES_OUT].value, 4096);
    assert_int_equal(dc->f[NV_CTR_STALL].value, 1000);
    assert_false(b.port[0].f[NV_CTR_PACKETS_OUT].valid);
    assert_non_null(strstr(loglines, "is not a counter value"));
    nv_ctr_close(r);
    /* a glob that matches no NIC */
    nv_ctr_config cfg = {.backend = "cxi", .sysfs_root = tmpdir, .iface_glob = "hsn*"};
    assert_null(nv_ctr_open(&cfg, err, sizeof err));
    assert_non_null(strstr(err, "no Slingshot NIC with telemetry matches 'hsn*'"));
}

static void auto_takes_cxi_before_netdev_only_where_present(void **state)
{
    (void)state;
    nv_ctr_reader *r = open_backend("auto", NULL);
    assert_non_null(r);
    assert_string_equal(nv_ctr_reader_backend(r), "cxi");
    nv_ctr_close(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(netdev_reads_values_and_skips_lo_by_default, setup_netdev,
                                        teardown),
        cmocka_unit_test_setup_teardown(netdev_glob_and_exact_name, setup_netdev, teardown),
        cmocka_unit_test_setup_teardown(netdev_delta_and_64bit_wrap, setup_netdev, teardown),
        cmocka_unit_test_setup_teardown(netdev_bad_files_give_one_line_each, setup_netdev_bad,
                                        teardown),
        cmocka_unit_test_setup_teardown(ib_prefers_64bit_ext_and_converts_words, setup_ib,
                                        teardown),
        cmocka_unit_test_setup_teardown(ib_delta_saturation_wrap_and_units, setup_ib, teardown),
        cmocka_unit_test_setup_teardown(ib_glob_selects_device_or_port, setup_ib, teardown),
        cmocka_unit_test_setup_teardown(auto_falls_back_to_netdev_when_no_ib, setup_netdev,
                                        teardown),
        cmocka_unit_test_setup_teardown(auto_prefers_infiniband, setup_ib, teardown),
        cmocka_unit_test_setup_teardown(cxi_reads_telemetry_and_sums_traffic_classes, setup_cxi,
                                        teardown),
        cmocka_unit_test_setup_teardown(cxi_delta_glob_and_bad_value, setup_cxi, teardown),
        cmocka_unit_test_setup_teardown(auto_takes_cxi_before_netdev_only_where_present, setup_cxi,
                                        teardown),
        cmocka_unit_test(delta_rejects_mixed_backends),
        cmocka_unit_test(raw_delta_rules),
        cmocka_unit_test(unknown_backend_and_long_root),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
