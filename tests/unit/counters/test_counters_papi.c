/* test_counters_papi.c - PAPI event names mapped onto the common fields,
 * and the fallback when this PAPI lacks the component (as on this machine). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "counters.h"

static char loglines[4096];
static int nlog;

static void capture_log(void *arg, const char *line)
{
    (void)arg;
    nlog++;
    size_t n = strlen(loglines);
    snprintf(loglines + n, sizeof loglines - n, "%s\n", line);
}

static void maps_aries_tiles(void **state)
{
    (void)state;
    nv_ctr_papi_map m;
    assert_int_equal(nv_ctr_papi_map_event("AR_RTR_3_5_INQ_PRF_INCOMING_FLIT_VC7", &m), 0);
    assert_string_equal(m.port, "rtr_3_5");
    assert_string_equal(m.kind, "network_tile");
    assert_int_equal(m.field, NV_CTR_BYTES_IN);
    assert_string_equal(m.unit, "flits");
    assert_int_equal(
        nv_ctr_papi_map_event("aries_rtr:::AR_RTR_PT_1_0_INQ_PRF_INCOMING_FLIT_VC4", &m), 0);
    assert_string_equal(m.port, "ptile_1_0");
    assert_string_equal(m.kind, "processor_tile");
    assert_int_equal(nv_ctr_papi_map_event("AR_RTR_0_2_INQ_PRF_ROWBUS_STALL_CNT", &m), 0);
    assert_string_equal(m.port, "rtr_0_2");
    assert_int_equal(m.field, NV_CTR_STALL);
    assert_string_equal(m.unit, "flit_times");
    assert_int_equal(nv_ctr_papi_map_event("AR_RTR_0_2_COLBUF_PERF_STALL_RQ", &m), -1);
    assert_int_equal(nv_ctr_papi_map_event("PAPI_TOT_INS", &m), -1);
}

static void maps_infiniband_and_net(void **state)
{
    (void)state;
    nv_ctr_papi_map m;
    assert_int_equal(nv_ctr_papi_map_event("infiniband:::mlx5_0_1_ext:port_xmit_data", &m), 0);
    assert_string_equal(m.port, "mlx5_0/1");
    assert_int_equal(m.field, NV_CTR_BYTES_OUT);
    assert_int_equal(m.scale, 4); /* 4-byte words */
    assert_string_equal(m.unit, "bytes");
    assert_int_equal(nv_ctr_papi_map_event("infiniband:::qib0_1:port_xmit_wait", &m), 0);
    assert_string_equal(m.port, "qib0/1");
    assert_int_equal(m.field, NV_CTR_STALL);
    assert_string_equal(m.unit, "ticks");
    assert_int_equal(nv_ctr_papi_map_event("net:::eth0:rx:bytes", &m), 0);
    assert_string_equal(m.port, "eth0");
    assert_int_equal(m.field, NV_CTR_BYTES_IN);
    assert_int_equal(m.scale, 1);
    assert_int_equal(nv_ctr_papi_map_event("net:::eth0:tx:dropped", &m), 0);
    assert_int_equal(m.field, NV_CTR_DISCARDS);
    assert_int_equal(nv_ctr_papi_map_event("net:::eth0:up:bytes", &m), -1);
    assert_int_equal(nv_ctr_papi_map_event("infiniband:::mlx5_0_1:symbol_error", &m), -1);
}

static void missing_component_says_so_once_and_auto_moves_on(void **state)
{
    (void)state;
    char err[512] = "";
    /* Debian's PAPI has no net component: papi alone fails with a reason */
    nv_ctr_config cfg = {.backend = "papi", .papi_events = "net:::lo:rx:bytes,net:::lo:tx:bytes"};
    nv_ctr_reader *r = nv_ctr_open(&cfg, err, sizeof err);
    if (r) { /* a PAPI with the net component: the mapping still has to hold */
        assert_string_equal(nv_ctr_reader_backend(r), "papi");
        nv_ctr_close(r);
        skip();
    }
    assert_non_null(strstr(err, "papi: cannot add event 'net:::lo:rx:bytes'"));
    /* auto: exactly one line for papi, then netdev answers */
    loglines[0] = '\0';
    nlog = 0;
    nv_ctr_config a = {.backend = "auto",
                       .papi_events = cfg.papi_events,
                       .iface_glob = "eth0",
                       .sysfs_root = "tests/fixtures/sysfs/netdev",
                       .log = capture_log};
    r = nv_ctr_open(&a, err, sizeof err);
    assert_non_null(r);
    assert_string_equal(nv_ctr_reader_backend(r), "netdev");
    nv_ctr_snapshot s;
    assert_int_equal(nv_ctr_snapshot_take(r, &s, err, sizeof err), 0);
    assert_string_equal(s.backend, "netdev");
    nv_ctr_close(r);
    int papi_lines = 0;
    for (const char *p = loglines; (p = strstr(p, "papi unavailable")); p++)
        papi_lines++;
    assert_int_equal(papi_lines, 1);
    assert_non_null(strstr(loglines, "netvar: counters: papi unavailable"));
}

static void unmappable_event_is_rejected(void **state)
{
    (void)state;
    char err[512] = "";
    nv_ctr_config cfg = {.backend = "papi", .papi_events = "PAPI_TOT_CYC"};
    assert_null(nv_ctr_open(&cfg, err, sizeof err));
    assert_non_null(strstr(err, "maps to no counter field"));
    nv_ctr_config none = {.backend = "papi"};
    assert_null(nv_ctr_open(&none, err, sizeof err));
    assert_non_null(strstr(err, "no events configured"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(maps_aries_tiles),
        cmocka_unit_test(maps_infiniband_and_net),
        cmocka_unit_test(missing_component_says_so_once_and_auto_moves_on),
        cmocka_unit_test(unmappable_event_is_rejected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
