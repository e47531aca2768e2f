/* test_bottleneck_aries.c - the counters route on an Aries router tile
 * (--bottleneck aries:ROW_COL): the spec, the events it asks PAPI for, the
 * stall-to-flit gauge, and a live sampler reading tile 3_5 through PAPI's
 * Aries component.  This machine has no Aries router and Debian's PAPI no
 * such component, so libpapi is the stand-in tests/fixtures/papi/fake_papi.c
 * (the component's event names, 64-bit counts from PAPI_start), put first on
 * LD_LIBRARY_PATH by re-executing this test; the test checks that the
 * stand-in is what answered.  Like PAPI, the stand-in lets only the thread
 * that started an event set read or stop it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bottleneck.h"

#ifndef NV_FAKE_PAPI_DIR
#error "NV_FAKE_PAPI_DIR: the directory of the stand-in libpapi.so.7.0 (Makefile)"
#endif

static void aries_spec_names_network_tiles(void **state)
{
    (void)state;
    nv_bn_spec s;
    char err[256];
    assert_int_equal(nv_bn_parse("aries:3_5,0_0,99_15", &s, err, sizeof err), 0);
    assert_int_equal(s.kind, NV_BN_ARIES);
    assert_int_equal(s.nports, 3);
    assert_string_equal(s.port[2], "99_15");
    assert_string_equal(nv_bn_kind_name(NV_BN_ARIES), "aries");
    assert_int_equal(nv_bn_kind_gauge(NV_BN_ARIES), NV_BN_GAUGE_STALL_FLIT);
    assert_string_equal(nv_bn_gauge_name(NV_BN_GAUGE_STALL_FLIT), "stall_per_flit");
    const char *bad[] = {"aries:3",    "aries:3_5_1", "aries:100_1", "aries:1_100", "aries:03_1",
                         "aries:-1_2", "aries:a_b",   "aries:_5",    "aries:5_",    "aries:3-5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        assert_int_equal(nv_bn_parse(bad[i], &s, err, sizeof err), -1);
        assert_non_null(strstr(err, "--bottleneck"));
    }
}

static void aries_events_are_the_components_names(void **state)
{
    (void)state;
    char ev[600];
    assert_int_equal(nv_bn_aries_events("3_5", ev, sizeof ev), 0);
    assert_non_null(strstr(ev, "AR_RTR_3_5_INQ_PRF_INCOMING_FLIT_VC0,"));
    assert_non_null(strstr(ev, "AR_RTR_3_5_INQ_PRF_INCOMING_FLIT_VC7,"));
    assert_non_null(strstr(ev, ",AR_RTR_3_5_INQ_PRF_ROWBUS_STALL_CNT"));
    size_t commas = 0;
    for (const char *p = ev; *p; p++)
        commas += *p == ',';
    assert_int_equal(commas, 8); /* eight virtual channels and the stalls */
    assert_int_equal(nv_bn_aries_events("3_5", ev, 40), -1); /* does not fit */
    assert_int_equal(nv_bn_aries_events("3x5", ev, sizeof ev), -1);
    /* the stall-to-flit ratio: a step that took in nothing counts one flit */
    assert_true(fabs(nv_bn_stall_per_flit(50, 200) - 0.25) < 1e-12);
    assert_true(fabs(nv_bn_stall_per_flit(7, 0) - 7) < 1e-12);
    assert_true(nv_bn_stall_per_flit(UINT64_MAX, 1) == NV_BN_STALL_MAX);
}

static nv_bn_sampler *start_tile(double rate, char *err, size_t errlen)
{
    nv_bn_spec s;
    if (nv_bn_parse("aries:3_5", &s, err, errlen))
        return NULL;
    s.rate_bytes_per_s = rate;
    return nv_bn_start(&s, 20, err, errlen);
}

/* the tile takes in 2e6 flits/s of its 4e6 and stalls 0.25 flit times per
 * flit: U 0.5 and the gauge 0.25, every step */
static void a_sampler_reads_the_tile_through_papi(void **state)
{
    (void)state;
    setenv("NV_FAKE_PAPI_FLITS_PER_S", "2e6", 1);
    setenv("NV_FAKE_PAPI_STALLS_PER_FLIT", "0.25", 1);
    char err[300] = "";
    nv_bn_sampler *bn = start_tile(4e6, err, sizeof err);
    if (!bn)
        fail_msg("%s", err);
    /* the stand-in answered, not a real PAPI */
    void *h = dlopen("libpapi.so.7.0", RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(h);
    assert_non_null(dlsym(h, "nv_fake_papi_loaded"));
    const int *running = dlsym(h, "nv_fake_papi_running");
    assert_non_null(running);
    assert_int_equal(nv_bn_sampler_gauge(bn), NV_BN_GAUGE_STALL_FLIT);
    uint64_t t0 = nv_bn_now_ns();
    struct timespec ts = {0, 300 * 1000000L};
    nanosleep(&ts, NULL);
    uint64_t t1 = nv_bn_now_ns();
    double u, w, prof[8], wprof[8];
    size_t nu, nw;
    size_t steps = nv_bn_window(bn, NV_BN_U, t0, t1, &u, prof, 8, &nu);
    size_t wsteps = nv_bn_window(bn, NV_BN_WAIT, t0, t1, &w, wprof, 8, &nw);
    assert_true(steps >= 5);
    assert_true(wsteps >= 4);
    assert_true(u > 0.45 && u < 0.55);
    assert_true(w > 0.24 && w < 0.26);
    assert_true(fabs(nv_bn_port_window(bn, 0, t0, t1) - u) < 1e-6);
    /* every step read: the stand-in refuses a read from any thread but
     * the one that started the set, so the sampler thread started its own */
    assert_int_equal(nv_bn_read_errors(bn), 0);
    assert_int_equal(*running, 1);
    nv_bn_stop(bn);
    assert_int_equal(*running, 0); /* ... and stopped it before it ended */
    dlclose(h);
}

/* a tile has no rate to read: the error says to give it, in flits/s */
static void a_tile_needs_its_rate_in_flits(void **state)
{
    (void)state;
    char err[300] = "";
    assert_null(start_tile(0, err, sizeof err));
    assert_non_null(strstr(err, "--bottleneck aries:3_5"));
    assert_non_null(strstr(err, "FLITS_PER_S"));
}

/* a PAPI without the Aries component: one line naming the port, no sampler */
static void a_papi_without_the_component_is_refused(void **state)
{
    (void)state;
    setenv("NV_FAKE_PAPI_NO_ARIES", "1", 1);
    char err[300] = "";
    assert_null(start_tile(4e6, err, sizeof err));
    unsetenv("NV_FAKE_PAPI_NO_ARIES");
    assert_non_null(strstr(err, "--bottleneck aries:3_5"));
    assert_non_null(strstr(err, "AR_RTR_3_5_INQ_PRF_INCOMING_FLIT_VC0"));
    assert_null(strchr(err, '\n'));
}

int main(int argc, char **argv)
{
    (void)argc;
    /* libpapi is dlopen'd by name: the stand-in must come first on the
     * search path, which the dynamic loader reads only at start */
    if (!getenv("NV_FAKE_PAPI_ACTIVE")) {
        setenv("LD_LIBRARY_PATH", NV_FAKE_PAPI_DIR, 1);
        setenv("NV_FAKE_PAPI_ACTIVE", "1", 1);
        execv("/proc/self/exe", argv);
        perror("test_bottleneck_aries: re-executing with the stand-in PAPI");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(aries_spec_names_network_tiles),
        cmocka_unit_test(aries_events_are_the_components_names),
        cmocka_unit_test(a_tile_needs_its_rate_in_flits),
        cmocka_unit_test(a_papi_without_the_component_is_refused),
        cmocka_unit_test(a_sampler_reads_the_tile_through_papi),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
