/* test_segment_estimate.c - relative-distance clustering, median/MAD, the
 * 4*MAD excess, classes and the logistic of the segment estimator. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <cmocka.h>

#include "segment_estimate.h"

static void clusters_split_at_relative_gaps(void **state)
{
    (void)state;
    /* two tight clusters at the low end, one at 1e9: relative distance
     * separates 10 from 13 (0.3) yet keeps 1e9 and 1.05e9 (0.05) together */
    double v[] = {13, 10, 1.05e9, 10.5, 13.5, 1e9, 1.02e9, 10.2};
    uint32_t c[8];
    long n = nv_seg_cluster_relative(v, 8, 0.1, c);
    assert_int_equal(n, 3);
    assert_int_equal(c[1], 0); /* 10 */
    assert_int_equal(c[3], 0); /* 10.5 */
    assert_int_equal(c[7], 0); /* 10.2 */
    assert_int_equal(c[0], 1); /* 13 */
    assert_int_equal(c[4], 1); /* 13.5 */
    assert_int_equal(c[2], 2);
    assert_int_equal(c[5], 2);
    assert_int_equal(c[6], 2);
}

static void clustering_threshold_is_strict_and_configurable(void **state)
{
    (void)state;
    double v[] = {100, 110}; /* relative distance exactly 0.1: not < 0.1 */
    uint32_t c[3];
    assert_int_equal(nv_seg_cluster_relative(v, 2, 0.1, c), 2);
    assert_int_equal(nv_seg_cluster_relative(v, 2, 0.2, c), 1);
    double w[] = {100, 109.9};
    assert_int_equal(nv_seg_cluster_relative(w, 2, 0.1, c), 1);
    /* zeros cluster together and apart from anything positive */
    double z[] = {0, 0, 1e-6};
    assert_int_equal(nv_seg_cluster_relative(z, 3, 0.1, c), 2);
    assert_int_equal(c[0], c[1]);
    assert_int_equal(nv_seg_cluster_relative(v, 2, 0, c), -1);
}

static void median_and_mad(void **state)
{
    (void)state;
    double v[] = {5, 1, 3, 2, 4};
    double scratch[5];
    assert_true(nv_seg_median_inplace(v, 5) == 3);
    assert_true(nv_seg_mad(v, 5, 3, scratch) == 1); /* |dev| = 2,1,0,1,2 */
    double e[] = {4, 1, 3, 2};
    assert_true(nv_seg_median_inplace(e, 4) == 2.5);
    assert_true(nv_seg_median_inplace(e, 0) == 0);
}

static void excess_over_median_plus_4mad(void **state)
{
    (void)state;
    /* one group: times 100,101,99,100,102,98,100,150 -> median 100,
     * |dev| 0,1,1,0,2,2,0,50 -> MAD 1, threshold 104: excess 46 */
    double work[8], time[8] = {100, 101, 99, 100, 102, 98, 100, 150};
    uint32_t sig[8] = {0};
    for (int i = 0; i < 8; i++)
        work[i] = 1000 + i; /* within 10 % */
    nv_seg_estimate_opts o;
    nv_seg_estimate_opts_default(&o);
    nv_seg_estimate e;
    assert_int_equal(nv_seg_estimate_run(work, time, sig, 8, 1000, &o, &e), 0);
    assert_int_equal(e.groups_used, 1);
    assert_int_equal(e.interfered, 1);
    assert_true(fabs(e.group[0].time_median_us - 100) < 1e-9);
    assert_true(fabs(e.group[0].mad_us - 1) < 1e-9);
    assert_true(fabs(e.group[0].threshold_us - 104) < 1e-9);
    assert_true(fabs(e.excess_us - 46) < 1e-9);
    assert_true(fabs(e.interference_pct - 4.6) < 1e-9);
    assert_int_equal(e.cls, NV_SEG_LOW);
    /* fastest decile of 8 sorted times is the first (98): continuous = 8 * 2 */
    assert_true(fabs(e.continuous_us - 16) < 1e-9);
    assert_true(fabs(e.median_baseline_us - 800) < 1e-9);
}

static void signatures_split_groups_and_small_groups_are_ignored(void **state)
{
    (void)state;
    double work[9], time[9];
    uint32_t sig[9];
    for (int i = 0; i < 9; i++) {
        work[i] = 500;
        time[i] = 10;
        sig[i] = i < 5 ? 1 : 2; /* 5 + 4 */
    }
    time[8] = 1000; /* in the group of 4: ignored */
    time[4] = 20;   /* in the group of 5, MAD 0: excess 10 */
    nv_seg_estimate_opts o;
    nv_seg_estimate_opts_default(&o);
    nv_seg_estimate e;
    assert_int_equal(nv_seg_estimate_run(work, time, sig, 9, 0, &o, &e), 0);
    assert_int_equal(e.clusters, 1);
    assert_int_equal(e.groups, 2);
    assert_int_equal(e.groups_used, 1);
    assert_int_equal(e.segments_used, 5);
    assert_true(fabs(e.excess_us - 10) < 1e-9);
    assert_true(fabs(e.runtime_us - 1090) < 1e-9); /* runtime 0: sum of times */
    o.min_group = 4;
    assert_int_equal(nv_seg_estimate_run(work, time, sig, 9, 0, &o, &e), 0);
    assert_int_equal(e.groups_used, 2);
    assert_true(e.excess_us > 900);
}

static void logistic_and_classes(void **state)
{
    (void)state;
    assert_true(fabs(nv_seg_p_high(7.5) - 0.212) < 0.005);
    assert_true(fabs(nv_seg_p_high(11.25) - 0.5) < 1e-12);
    assert_true(fabs(nv_seg_p_high(15) - 0.788) < 0.005);
    assert_true(nv_seg_p_high(NAN) < 0.03);
    assert_int_equal(nv_seg_classify(7.49), NV_SEG_LOW);
    assert_int_equal(nv_seg_classify(7.5), NV_SEG_MEDIUM);
    assert_int_equal(nv_seg_classify(15), NV_SEG_MEDIUM);
    assert_int_equal(nv_seg_classify(15.01), NV_SEG_HIGH);
    assert_int_equal(nv_seg_classify(NAN), NV_SEG_LOW);
}

static void rate_caveat_and_bad_input(void **state)
{
    (void)state;
    double work[200], time[200];
    uint32_t sig[200] = {0};
    for (int i = 0; i < 200; i++) {
        work[i] = 1;
        time[i] = 1000; /* 1 ms segments: 1000/s */
    }
    nv_seg_estimate_opts o;
    nv_seg_estimate_opts_default(&o);
    nv_seg_estimate e;
    assert_int_equal(nv_seg_estimate_run(work, time, sig, 200, 0, &o, &e), 0);
    assert_true(fabs(e.rate_hz - 1000) < 1e-6);
    assert_int_equal(e.high_rate, 1);
    assert_true(e.interference_pct == 0);
    time[3] = NAN; /* never NaN out */
    assert_int_equal(nv_seg_estimate_run(work, time, sig, 200, NAN, &o, &e), 0);
    assert_true(isfinite(e.interference_pct) && isfinite(e.p_high));
    o.rel_threshold = 0;
    assert_int_equal(nv_seg_estimate_run(work, time, sig, 200, 0, &o, &e), -1);
    nv_seg_estimate_opts_default(&o);
    assert_int_equal(nv_seg_estimate_run(NULL, NULL, NULL, 0, 0, &o, &e), 0);
    assert_int_equal(e.segments, 0);
}

/* the profile's runtime_us is written by the job's user: a crazy one must
 * not become a 1.8e304 % "high" finding (issue 17) */
static void a_crazy_runtime_is_checked_against_the_segments(void **state)
{
    (void)state;
    double work[8], time[8] = {100, 101, 99, 100, 102, 98, 100, 150};
    uint32_t sig[8] = {0};
    for (int i = 0; i < 8; i++)
        work[i] = 1000 + i;
    nv_seg_estimate_opts o;
    nv_seg_estimate_opts_default(&o);
    nv_seg_estimate e;
    const double crazy[] = {1e-300, 2.5e-3, 1, 800};
    for (size_t k = 0; k < sizeof crazy / sizeof *crazy; k++) {
        assert_int_equal(nv_seg_estimate_run(work, time, sig, 8, crazy[k], &o, &e), 0);
        assert_int_equal(e.runtime_replaced, 1);
        assert_true(fabs(e.runtime_us - 850) < 1e-9); /* the segments' total */
        assert_true(fabs(e.interference_pct - 100.0 * 46 / 850) < 1e-9);
        assert_true(e.interference_pct <= 100 && e.continuous_pct <= 100);
        assert_int_equal(e.cls, NV_SEG_LOW);
    }
    assert_int_equal(nv_seg_estimate_run(work, time, sig, 8, -5, &o, &e), 0);
    assert_int_equal(e.runtime_replaced, 1);
    assert_int_equal(nv_seg_estimate_run(work, time, sig, 8, 850, &o, &e), 0);
    assert_int_equal(e.runtime_replaced, 0);
    /* huge segment times cannot push a percentage past 100 either */
    time[7] = 1e300;
    assert_int_equal(nv_seg_estimate_run(work, time, sig, 8, 1000, &o, &e), 0);
    assert_true(e.interference_pct >= 0 && e.interference_pct <= 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(clusters_split_at_relative_gaps),
        cmocka_unit_test(clustering_threshold_is_strict_and_configurable),
        cmocka_unit_test(median_and_mad),
        cmocka_unit_test(excess_over_median_plus_4mad),
        cmocka_unit_test(signatures_split_groups_and_small_groups_are_ignored),
        cmocka_unit_test(logistic_and_classes),
        cmocka_unit_test(rate_caveat_and_bad_input),
        cmocka_unit_test(a_crazy_runtime_is_checked_against_the_segments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
