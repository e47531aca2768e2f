/* test_counters_qdisc.c - the qdisc counter reader on fixture `tc -s -j`
 * output (tests/fixtures/tc), its field roles, and deltas through the
 * common counter code. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "counters.h"
#include "ctr_qdisc.h"

static char *slurp(const char *name, size_t *len)
{
    const char *root = getenv("NETVAR_FIXTURES");
    char path[512];
    snprintf(path, sizeof path, "%s/tc/%s", root && *root ? root : "tests/fixtures", name);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char buf[65536];
    *len = fread(buf, 1, sizeof buf - 1, f);
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

static void parses_idle_and_loaded_tbf(void **state)
{
    (void)state;
    nv_qdisc_stats q[NV_QDISC_MAX];
    char err[256];
    size_t len;
    const char *t = slurp("tbf_idle.json", &len);
    assert_int_equal(nv_qdisc_parse(t, len, "nv007u1", q, NV_QDISC_MAX, err, sizeof err), 1);
    assert_string_equal(err, "");
    assert_string_equal(q[0].kind, "tbf");
    assert_string_equal(q[0].dev, "nv007u1");
    assert_string_equal(q[0].handle, "8001:");
    assert_true(q[0].root);
    assert_true(q[0].has_backlog);
    assert_int_equal(q[0].backlog_bytes, 0);
    assert_int_equal(q[0].rate_bytes_per_s, 12500000);

    t = slurp("tbf_loaded.json", &len);
    assert_int_equal(nv_qdisc_parse(t, len, "nv007u1", q, NV_QDISC_MAX, err, sizeof err), 1);
    assert_int_equal(q[0].bytes, 74192534);
    assert_int_equal(q[0].packets, 78459);
    assert_int_equal(q[0].overlimits, 101342);
    assert_int_equal(q[0].backlog_bytes, 8760);
    assert_int_equal(q[0].qlen, 16);
    assert_int_equal(q[0].drops, 0);
    assert_true(q[0].has_bytes && q[0].has_packets && q[0].has_drops && q[0].has_overlimits);
}

static void big_counters_keep_64_bits(void **state)
{
    (void)state;
    nv_qdisc_stats q[2];
    char err[256];
    size_t len;
    const char *t = slurp("tbf_big_counters.json", &len);
    assert_int_equal(nv_qdisc_parse(t, len, "u", q, 2, err, sizeof err), 1);
    assert_true(q[0].has_bytes);
    assert_true(q[0].bytes == 18446744073709551000ull);
    assert_true(q[0].packets == 4294967296ull);
    assert_int_equal(q[0].drops, 1234);
    assert_int_equal(q[0].rate_bytes_per_s, 6250000);
}

static void root_among_children(void **state)
{
    (void)state;
    nv_qdisc_stats q[NV_QDISC_MAX];
    char err[256];
    size_t len;
    const char *t = slurp("tbf_with_child.json", &len);
    int n = nv_qdisc_parse(t, len, "nv007u2", q, NV_QDISC_MAX, err, sizeof err);
    assert_int_equal(n, 2);
    const nv_qdisc_stats *r = nv_qdisc_root(q, n);
    assert_non_null(r);
    assert_string_equal(r->kind, "tbf");
    assert_int_equal(r->overlimits, 7);
    assert_false(q[0].root);
    /* max smaller than the array: kept count is bounded and said */
    assert_int_equal(nv_qdisc_parse(t, len, "nv007u2", q, 1, err, sizeof err), 1);
    assert_non_null(strstr(err, "only the first 1"));
    assert_null(nv_qdisc_root(q, 0));
}

static void noqueue_has_zero_counters(void **state)
{
    (void)state;
    nv_qdisc_stats q[2];
    char err[256];
    size_t len;
    const char *t = slurp("noqueue.json", &len);
    assert_int_equal(nv_qdisc_parse(t, len, "lo", q, 2, err, sizeof err), 1);
    assert_string_equal(q[0].kind, "noqueue");
    assert_int_equal(q[0].rate_bytes_per_s, 0);
}

static void bad_fields_are_invalid_and_named(void **state)
{
    (void)state;
    nv_qdisc_stats q[2];
    char err[256];
    size_t len;
    const char *t = slurp("tbf_bad_fields.json", &len);
    assert_int_equal(nv_qdisc_parse(t, len, "u", q, 2, err, sizeof err), 1);
    assert_false(q[0].has_bytes);      /* a string */
    assert_false(q[0].has_packets);    /* negative */
    assert_false(q[0].has_overlimits); /* missing */
    assert_true(q[0].has_drops);
    assert_true(q[0].has_backlog);
    assert_int_equal(q[0].backlog_bytes, 100);
    assert_non_null(strstr(err, "'bytes'")); /* the first problem is named */
    nv_ctr_port p;
    nv_qdisc_to_port(&q[0], &p);
    assert_false(p.f[NV_CTR_BYTES_OUT].valid);
    assert_true(p.f[NV_CTR_DISCARDS].valid);
}

static void malformed_text_is_rejected(void **state)
{
    (void)state;
    nv_qdisc_stats q[2];
    char err[256];
    size_t len;
    const char *t = slurp("not_array.json", &len);
    assert_int_equal(nv_qdisc_parse(t, len, "u", q, 2, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a JSON array"));
    t = slurp("truncated.json", &len);
    assert_int_equal(nv_qdisc_parse(t, len, "u", q, 2, err, sizeof err), -1);
    assert_int_equal(nv_qdisc_parse("", 0, "u", q, 2, err, sizeof err), -1);
    assert_int_equal(nv_qdisc_parse("[]", 2, "u", q, 2, err, sizeof err), 0);
    assert_int_equal(nv_qdisc_parse(NULL, 0, "u", q, 2, err, sizeof err), -1);
    assert_int_equal(nv_qdisc_parse("[]", 2, "u", q, 0, err, sizeof err), -1);
}

static void port_roles_and_delta(void **state)
{
    (void)state;
    nv_qdisc_stats q[2];
    char err[256];
    size_t len;
    const char *t = slurp("tbf_idle.json", &len);
    assert_int_equal(nv_qdisc_parse(t, len, "nv007u1", q, 1, err, sizeof err), 1);
    nv_ctr_snapshot *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    nv_ctr_delta *d = calloc(1, sizeof *d);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(d);
    snprintf(a->backend, sizeof a->backend, "qdisc");
    snprintf(b->backend, sizeof b->backend, "qdisc");
    a->nports = b->nports = 1;
    a->t_ns = 1000000000ull;
    b->t_ns = 2000000000ull;
    nv_qdisc_to_port(&q[0], &a->port[0]);
    assert_string_equal(a->port[0].name, "nv007u1/tbf");
    assert_string_equal(a->port[0].kind, "switch_port");
    assert_string_equal(a->port[0].f[NV_QDISC_FLIT_FIELD].unit, "bytes");
    assert_string_equal(a->port[0].f[NV_QDISC_STALL_FIELD].unit, "count");
    assert_false(a->port[0].f[NV_CTR_BYTES_IN].valid);
    t = slurp("tbf_loaded.json", &len);
    assert_int_equal(nv_qdisc_parse(t, len, "nv007u1", q, 1, err, sizeof err), 1);
    nv_qdisc_to_port(&q[0], &b->port[0]);
    assert_int_equal(nv_ctr_delta_compute(a, b, d, err, sizeof err), 0);
    assert_int_equal(d->port[0].f[NV_CTR_BYTES_OUT].value, 74192534);
    assert_int_equal(d->port[0].f[NV_CTR_STALL].value, 101342);
    assert_int_equal(d->port[0].f[NV_CTR_PACKETS_OUT].value, 78459);
    assert_false(d->port[0].f[NV_CTR_BYTES_IN].valid);
    free(a);
    free(b);
    free(d);
}

static void read_rejects_bad_names_and_missing_tc(void **state)
{
    (void)state;
    nv_qdisc_stats q[2];
    char err[256];
    assert_int_equal(nv_qdisc_read(NULL, "eth0; rm -rf /", q, 2, err, sizeof err), -1);
    assert_non_null(strstr(err, "not an interface name"));
    assert_int_equal(nv_qdisc_read(NULL, "-x", q, 2, err, sizeof err), -1);
    assert_int_equal(nv_qdisc_read(NULL, "averyveryverylongname", q, 2, err, sizeof err), -1);
    assert_int_equal(nv_qdisc_read("/nonexistent/tc", "lo", q, 2, err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent/tc"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_idle_and_loaded_tbf),
        cmocka_unit_test(big_counters_keep_64_bits),
        cmocka_unit_test(root_among_children),
        cmocka_unit_test(noqueue_has_zero_counters),
        cmocka_unit_test(bad_fields_are_invalid_and_named),
        cmocka_unit_test(malformed_text_is_rejected),
        cmocka_unit_test(port_roles_and_delta),
        cmocka_unit_test(read_rejects_bad_names_and_missing_tc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
