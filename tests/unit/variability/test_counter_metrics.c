/* test_counter_metrics.c - *Variability Estimate*'s per-job counter metrics: the
 * five statistics against hand-computed values (population variance,
 * numpy-default linear percentiles), n = 0 and 1, network-side ports vs
 * the endpoint fallback (sources and units), NaN and bad inputs, the 4096
 * blade cap. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "counter_metrics.h"

static void near(double got, double want, const char *what)
{
    if (!(fabs(got - want) <= 1e-9 * (1.0 + fabs(want))))
        fail_msg("%s: got %.17g, want %.17g", what, got, want);
}

static void stat5_five_values(void **state)
{
    (void)state;
    /* sorted 1 2 3 4 10; mean 4; squares of deviations 9+4+1+0+36 = 50, /5 = 10
     * p75 at rank 0.75*4 = 3 -> 4; p95 at 3.8 -> 4 + 0.8*6 = 8.8; p99 at 3.96 -> 9.76 */
    double v[] = {4, 1, 3, 2, 10};
    struct nv_stat5 s = nv_stat5_of(v, 5);
    assert_int_equal(s.n, 5);
    near(s.mean, 4.0, "mean");
    near(s.variance, 10.0, "variance");
    near(s.p75, 4.0, "p75");
    near(s.p95, 8.8, "p95");
    near(s.p99, 9.76, "p99");
    /* sorted in place, as documented */
    const double sorted[] = {1, 2, 3, 4, 10};
    for (int i = 0; i < 5; i++)
        assert_true(v[i] == sorted[i]);
}

static void stat5_two_values(void **state)
{
    (void)state;
    /* 10, 20: mean 15, variance 25; p75 at 0.75 -> 17.5, p95 19.5, p99 19.9 */
    double v[] = {20, 10};
    struct nv_stat5 s = nv_stat5_of(v, 2);
    near(s.mean, 15, "mean");
    near(s.variance, 25, "variance");
    near(s.p75, 17.5, "p75");
    near(s.p95, 19.5, "p95");
    near(s.p99, 19.9, "p99");
}

static void stat5_hundred_values(void **state)
{
    (void)state;
    /* 0..99 in a scrambled order: mean 49.5, population variance
     * (100^2 - 1)/12 = 833.25, p75 = 74.25, p95 = 94.05, p99 = 98.01 */
    double v[100];
    for (int i = 0; i < 100; i++)
        v[i] = (double)((i * 37) % 100); /* 37 is coprime with 100: a permutation */
    struct nv_stat5 s = nv_stat5_of(v, 100);
    near(s.mean, 49.5, "mean");
    near(s.variance, 833.25, "variance");
    near(s.p75, 74.25, "p75");
    near(s.p95, 94.05, "p95");
    near(s.p99, 98.01, "p99");
}

static void stat5_constant_and_negative(void **state)
{
    (void)state;
    double c[] = {3.5, 3.5, 3.5, 3.5};
    struct nv_stat5 s = nv_stat5_of(c, 4);
    near(s.mean, 3.5, "mean");
    assert_true(s.variance == 0.0);
    assert_true(s.p75 == 3.5 && s.p95 == 3.5 && s.p99 == 3.5);
    /* -5, 0, 5: mean 0, variance 50/3; p75 at 1.5 -> 2.5; p95 at 1.9 -> 4.5; p99 at 1.98 -> 4.9 */
    double v[] = {5, -5, 0};
    s = nv_stat5_of(v, 3);
    near(s.mean, 0, "mean");
    near(s.variance, 50.0 / 3.0, "variance");
    near(s.p75, 2.5, "p75");
    near(s.p95, 4.5, "p95");
    near(s.p99, 4.9, "p99");
}

static void stat5_zero_and_one(void **state)
{
    (void)state;
    struct nv_stat5 s = nv_stat5_of(NULL, 0);
    assert_int_equal(s.n, 0);
    assert_true(isnan(s.mean) && isnan(s.variance) && isnan(s.p75) && isnan(s.p95) && isnan(s.p99));
    double one[] = {42.0};
    s = nv_stat5_of(one, 1);
    assert_int_equal(s.n, 1);
    assert_true(s.mean == 42.0 && s.variance == 0.0);
    assert_true(s.p75 == 42.0 && s.p95 == 42.0 && s.p99 == 42.0);
}

static void names(void **state)
{
    (void)state;
    assert_string_equal(nv_counter_metric_name(NV_CM_PROC_TRAFFIC_PER_S), "proc_traffic_per_s");
    assert_string_equal(nv_counter_metric_name(NV_CM_NET_STALL_RATIO), "net_stall_to_traffic");
    assert_string_equal(nv_counter_metric_name(NV_CM_NET_TO_PROC_RATIO), "net_to_proc_traffic");
    assert_string_equal(nv_counter_metric_name(NV_CM_NET_STALLS), "net_stalls");
    assert_string_equal(nv_counter_metric_name(NV_CM_NET_TRAFFIC), "net_traffic");
    assert_string_equal(nv_counter_metric_name(NV_CM_COUNT), "unknown");
    assert_string_equal(nv_counter_metric_name((enum nv_counter_metric) - 1), "unknown");
}

static void no_nan_when_n_positive(const struct nv_counter_metrics *m)
{
    for (int k = 0; k < NV_CM_COUNT; k++) {
        const struct nv_stat5 *s = &m->stat[k];
        if (s->n && !(isfinite(s->mean) && isfinite(s->variance) && isfinite(s->p75) &&
                      isfinite(s->p95) && isfinite(s->p99)))
            fail_msg("metric %s: n=%zu but a statistic is not finite", nv_counter_metric_name(k),
                     s->n);
        if (!s->n && !isnan(s->mean))
            fail_msg("metric %s: n=0 but mean %g", nv_counter_metric_name(k), s->mean);
    }
}

static void network_side_ports_present(void **state)
{
    (void)state;
    const struct nv_blade_traffic b[] = {
        {.dt_s = 10,
         .proc_traffic = 1000,
         .proc_stalls = 5,
         .net_traffic = 2000,
         .net_stalls = 100},
        {.dt_s = 10,
         .proc_traffic = 3000,
         .proc_stalls = NAN,
         .net_traffic = 1000,
         .net_stalls = 200},
    };
    struct nv_counter_metrics m;
    nv_counter_metrics_compute(b, 2, "bytes", &m);
    no_nan_when_n_positive(&m);
    /* proc per second: 100, 300 */
    assert_int_equal(m.stat[NV_CM_PROC_TRAFFIC_PER_S].n, 2);
    near(m.stat[NV_CM_PROC_TRAFFIC_PER_S].mean, 200, "proc/s mean");
    near(m.stat[NV_CM_PROC_TRAFFIC_PER_S].variance, 10000, "proc/s variance");
    near(m.stat[NV_CM_PROC_TRAFFIC_PER_S].p75, 250, "proc/s p75");
    /* stall ratio from the network side: 100/2000 = 0.05, 200/1000 = 0.2 */
    near(m.stat[NV_CM_NET_STALL_RATIO].mean, 0.125, "stall ratio mean");
    near(m.stat[NV_CM_NET_STALL_RATIO].variance, 0.075 * 0.075, "stall ratio variance");
    near(m.stat[NV_CM_NET_STALL_RATIO].p99, 0.05 + 0.99 * 0.15, "stall ratio p99");
    /* net/proc: 2, 1/3 */
    near(m.stat[NV_CM_NET_TO_PROC_RATIO].mean, (2.0 + 1.0 / 3.0) / 2, "net/proc mean");
    near(m.stat[NV_CM_NET_STALLS].mean, 150, "stalls mean");
    near(m.stat[NV_CM_NET_STALLS].p95, 100 + 0.95 * 100, "stalls p95");
    near(m.stat[NV_CM_NET_TRAFFIC].mean, 1500, "traffic mean");
    near(m.stat[NV_CM_NET_TRAFFIC].variance, 250000, "traffic variance");
    assert_string_equal(m.source[NV_CM_PROC_TRAFFIC_PER_S], "processor-side ports");
    assert_string_equal(m.source[NV_CM_NET_STALL_RATIO], "network-side ports");
    assert_string_equal(m.source[NV_CM_NET_TO_PROC_RATIO], "network-side / processor-side ports");
    assert_string_equal(m.source[NV_CM_NET_STALLS], "network-side ports");
    assert_string_equal(m.source[NV_CM_NET_TRAFFIC], "network-side ports");
    assert_string_equal(m.unit[NV_CM_PROC_TRAFFIC_PER_S], "bytes/s");
    assert_string_equal(m.unit[NV_CM_NET_STALL_RATIO], "stall units/byte");
    assert_string_equal(m.unit[NV_CM_NET_TO_PROC_RATIO], "ratio");
    assert_string_equal(m.unit[NV_CM_NET_STALLS], "stall units");
    assert_string_equal(m.unit[NV_CM_NET_TRAFFIC], "bytes");
}

static void endpoint_fallback_without_network_side(void **state)
{
    (void)state;
    const struct nv_blade_traffic b[] = {
        {.dt_s = 2, .proc_traffic = 400, .proc_stalls = 8, .net_traffic = NAN, .net_stalls = NAN},
        {.dt_s = 2, .proc_traffic = 800, .proc_stalls = 4, .net_traffic = NAN, .net_stalls = NAN},
        /* no interval and no stalls: only its traffic total counts */
        {.dt_s = 0, .proc_traffic = 100, .proc_stalls = NAN, .net_traffic = NAN, .net_stalls = NAN},
    };
    struct nv_counter_metrics m;
    nv_counter_metrics_compute(b, 3, "flits", &m);
    no_nan_when_n_positive(&m);
    assert_int_equal(m.stat[NV_CM_PROC_TRAFFIC_PER_S].n, 2);
    near(m.stat[NV_CM_PROC_TRAFFIC_PER_S].mean, 300, "proc/s mean"); /* 200, 400 */
    assert_int_equal(m.stat[NV_CM_NET_STALL_RATIO].n, 2);
    near(m.stat[NV_CM_NET_STALL_RATIO].mean, (0.02 + 0.005) / 2,
         "stall ratio mean"); /* 8/400, 4/800 */
    assert_int_equal(m.stat[NV_CM_NET_TO_PROC_RATIO].n, 0);
    assert_true(isnan(m.stat[NV_CM_NET_TO_PROC_RATIO].mean));
    assert_int_equal(m.stat[NV_CM_NET_STALLS].n, 2);
    near(m.stat[NV_CM_NET_STALLS].mean, 6, "stalls mean");
    assert_int_equal(m.stat[NV_CM_NET_TRAFFIC].n, 3);
    near(m.stat[NV_CM_NET_TRAFFIC].mean, 1300.0 / 3.0, "traffic mean");
    const char *ep = "endpoint ports (no network-side counters)";
    assert_string_equal(m.source[NV_CM_PROC_TRAFFIC_PER_S], "processor-side ports");
    assert_string_equal(m.source[NV_CM_NET_STALL_RATIO], ep);
    assert_string_equal(m.source[NV_CM_NET_TO_PROC_RATIO], "unavailable: no network-side counters");
    assert_string_equal(m.source[NV_CM_NET_STALLS], ep);
    assert_string_equal(m.source[NV_CM_NET_TRAFFIC], ep);
    assert_string_equal(m.unit[NV_CM_PROC_TRAFFIC_PER_S], "flits/s");
    assert_string_equal(m.unit[NV_CM_NET_STALL_RATIO], "stalls/flit");
    assert_string_equal(m.unit[NV_CM_NET_TRAFFIC], "flits");
}

static void netdev_without_any_stall_counter(void **state)
{
    (void)state;
    const struct nv_blade_traffic b[] = {
        {.dt_s = 1, .proc_traffic = 50, .proc_stalls = NAN, .net_traffic = NAN, .net_stalls = NAN},
    };
    struct nv_counter_metrics m;
    nv_counter_metrics_compute(b, 1, NULL, &m);
    no_nan_when_n_positive(&m);
    near(m.stat[NV_CM_PROC_TRAFFIC_PER_S].mean, 50, "proc/s");
    assert_int_equal(m.stat[NV_CM_NET_STALL_RATIO].n, 0);
    assert_int_equal(m.stat[NV_CM_NET_STALLS].n, 0);
    assert_string_equal(m.source[NV_CM_NET_STALL_RATIO], "unavailable: no stall counters");
    assert_string_equal(m.source[NV_CM_NET_STALLS], "unavailable: no stall counters");
    assert_int_equal(m.stat[NV_CM_NET_TRAFFIC].n, 1);
    assert_string_equal(m.unit[NV_CM_PROC_TRAFFIC_PER_S], "bytes/s"); /* NULL unit means bytes */
}

static void no_blades_at_all(void **state)
{
    (void)state;
    struct nv_counter_metrics m;
    nv_counter_metrics_compute(NULL, 0, "bytes", &m);
    for (int k = 0; k < NV_CM_COUNT; k++) {
        assert_int_equal(m.stat[k].n, 0);
        assert_true(isnan(m.stat[k].mean));
        assert_non_null(strstr(m.source[k], "unavailable"));
        assert_non_null(m.unit[k]);
    }
}

static void mixed_and_bad_rows_are_skipped_per_metric(void **state)
{
    (void)state;
    const struct nv_blade_traffic b[] = {
        /* network side present here */
        {.dt_s = 1, .proc_traffic = 100, .proc_stalls = 1, .net_traffic = 300, .net_stalls = 30},
        /* this blade lacks network counters: it adds nothing to the net metrics */
        {.dt_s = 1, .proc_traffic = 200, .proc_stalls = 2, .net_traffic = NAN, .net_stalls = NAN},
        /* zero traffic: no ratio can be formed, totals still count */
        {.dt_s = 1, .proc_traffic = 0, .proc_stalls = 0, .net_traffic = 0, .net_stalls = 7},
        /* negative or NaN interval: no rate */
        {.dt_s = -1, .proc_traffic = 50, .proc_stalls = NAN, .net_traffic = NAN, .net_stalls = NAN},
        {.dt_s = NAN,
         .proc_traffic = 50,
         .proc_stalls = NAN,
         .net_traffic = NAN,
         .net_stalls = NAN},
        /* infinite traffic is not a reading */
        {.dt_s = 1,
         .proc_traffic = INFINITY,
         .proc_stalls = NAN,
         .net_traffic = INFINITY,
         .net_stalls = NAN},
    };
    struct nv_counter_metrics m;
    nv_counter_metrics_compute(b, 6, "bytes", &m);
    no_nan_when_n_positive(&m);
    assert_int_equal(m.stat[NV_CM_PROC_TRAFFIC_PER_S].n, 3); /* 100, 200, 0 */
    near(m.stat[NV_CM_PROC_TRAFFIC_PER_S].mean, 100, "proc/s mean");
    assert_int_equal(m.stat[NV_CM_NET_STALL_RATIO].n, 1); /* 30/300 */
    near(m.stat[NV_CM_NET_STALL_RATIO].mean, 0.1, "stall ratio");
    assert_int_equal(m.stat[NV_CM_NET_TO_PROC_RATIO].n, 1); /* 300/100 */
    near(m.stat[NV_CM_NET_TO_PROC_RATIO].mean, 3, "net/proc");
    assert_int_equal(m.stat[NV_CM_NET_STALLS].n, 2); /* 30, 7 */
    near(m.stat[NV_CM_NET_STALLS].mean, 18.5, "stalls mean");
    assert_int_equal(m.stat[NV_CM_NET_TRAFFIC].n, 2); /* 300, 0 */
    near(m.stat[NV_CM_NET_TRAFFIC].mean, 150, "traffic mean");
    assert_string_equal(m.source[NV_CM_NET_STALL_RATIO], "network-side ports");
}

static void overflowing_quotients_are_not_readings(void **state)
{
    (void)state;
    /* finite inputs whose quotient overflows must not turn into inf/NaN statistics */
    const struct nv_blade_traffic b[] = {
        {.dt_s = 1e-300,
         .proc_traffic = 1e300,
         .proc_stalls = NAN,
         .net_traffic = 1e-320,
         .net_stalls = 1e10},
        {.dt_s = 1, .proc_traffic = 10, .proc_stalls = NAN, .net_traffic = 20, .net_stalls = 2},
    };
    struct nv_counter_metrics m;
    nv_counter_metrics_compute(b, 2, "bytes", &m);
    no_nan_when_n_positive(&m);
    assert_int_equal(m.stat[NV_CM_PROC_TRAFFIC_PER_S].n, 1);
    near(m.stat[NV_CM_PROC_TRAFFIC_PER_S].mean, 10, "proc/s");
    assert_int_equal(m.stat[NV_CM_NET_STALL_RATIO].n, 1);
    near(m.stat[NV_CM_NET_STALL_RATIO].mean, 0.1, "stall ratio");
}

static void at_most_4096_blades_are_used(void **state)
{
    (void)state;
    size_t n = 5000;
    struct nv_blade_traffic *b = calloc(n, sizeof *b);
    assert_non_null(b);
    for (size_t i = 0; i < n; i++) {
        b[i].dt_s = 1;
        b[i].proc_traffic = i < 4096 ? 1.0 : 1e6; /* blades past the cap would raise the mean */
        b[i].proc_stalls = NAN;
        b[i].net_traffic = NAN;
        b[i].net_stalls = NAN;
    }
    struct nv_counter_metrics m;
    nv_counter_metrics_compute(b, n, "bytes", &m);
    assert_int_equal(m.stat[NV_CM_PROC_TRAFFIC_PER_S].n, 4096);
    assert_true(m.stat[NV_CM_PROC_TRAFFIC_PER_S].mean == 1.0);
    assert_true(m.stat[NV_CM_PROC_TRAFFIC_PER_S].p99 == 1.0);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stat5_five_values),
        cmocka_unit_test(stat5_two_values),
        cmocka_unit_test(stat5_hundred_values),
        cmocka_unit_test(stat5_constant_and_negative),
        cmocka_unit_test(stat5_zero_and_one),
        cmocka_unit_test(names),
        cmocka_unit_test(network_side_ports_present),
        cmocka_unit_test(endpoint_fallback_without_network_side),
        cmocka_unit_test(netdev_without_any_stall_counter),
        cmocka_unit_test(no_blades_at_all),
        cmocka_unit_test(mixed_and_bad_rows_are_skipped_per_metric),
        cmocka_unit_test(overflowing_quotients_are_not_readings),
        cmocka_unit_test(at_most_4096_blades_are_used),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
