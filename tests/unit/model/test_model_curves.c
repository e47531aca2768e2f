/* test_model_curves.c - isotonic compression curves, the look-up rules'
 * overlap measures and choices, error metrics and allocation advice, each
 * against values computed by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "advice.h"
#include "compression.h"
#include "lookup.h"
#include "metrics.h"

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-9)

static void fit_values(const double *u, const double *y, const double *w, size_t n,
                       nv_curve_point *fit, size_t *n_fit, double *res)
{
    nv_curve_point pts[16];
    for (size_t i = 0; i < n; i++)
        pts[i] = (nv_curve_point){u[i], y[i], w ? w[i] : 1.0};
    assert_int_equal(nv_isotonic_fit(pts, n, fit, n_fit, res), 0);
}

static void isotonic_hand_cases(void **state)
{
    (void)state;
    nv_curve_point f[16];
    size_t n;
    double res;
    const double u4[] = {0.1, 0.2, 0.3, 0.4};

    /* already monotone: unchanged, zero residual */
    fit_values(u4, (double[]){1, 2, 3, 4}, NULL, 4, f, &n, &res);
    assert_int_equal(n, 4);
    NEAR(f[0].slowdown_pct, 1);
    NEAR(f[3].slowdown_pct, 4);
    NEAR(res, 0);

    /* one violator: 3,2 pool to 2.5 */
    fit_values(u4, (double[]){1, 3, 2, 4}, NULL, 4, f, &n, &res);
    NEAR(f[0].slowdown_pct, 1);
    NEAR(f[1].slowdown_pct, 2.5);
    NEAR(f[2].slowdown_pct, 2.5);
    NEAR(f[3].slowdown_pct, 4);
    NEAR(res, sqrt((0.25 + 0.25) / 4));

    /* fully decreasing: one pool at the mean 2.5; residual sqrt(5/4) */
    fit_values(u4, (double[]){4, 3, 2, 1}, NULL, 4, f, &n, &res);
    for (int i = 0; i < 4; i++)
        NEAR(f[i].slowdown_pct, 2.5);
    NEAR(res, sqrt(5.0 / 4.0));

    /* weights: 5 (w 1) then 1 (w 3) pool to (5 + 3) / 4 = 2 */
    fit_values((double[]){0.1, 0.2}, (double[]){5, 1}, (double[]){1, 3}, 2, f, &n, &res);
    NEAR(f[0].slowdown_pct, 2);
    NEAR(f[1].slowdown_pct, 2);
    NEAR(f[1].weight, 3);

    /* tied values: 1,2,2,1 -> the trailing 1 pulls both 2s: (2+2+1)/3 */
    fit_values(u4, (double[]){1, 2, 2, 1}, NULL, 4, f, &n, &res);
    NEAR(f[0].slowdown_pct, 1);
    for (int i = 1; i < 4; i++)
        NEAR(f[i].slowdown_pct, 5.0 / 3.0);

    /* tied U, unsorted input: (0.5,2),(0.2,5 w2),(0.5,4) -> U=0.5 pools to 3
     * (w 2), which violates 5 (w 2): both become 4.  Residual over the input
     * points: (2*1^2 + 2^2 + 0^2) / 4 weights -> sqrt(1.5) */
    fit_values((double[]){0.5, 0.2, 0.5}, (double[]){2, 5, 4}, (double[]){1, 2, 1}, 3, f, &n, &res);
    assert_int_equal(n, 2);
    NEAR(f[0].utilization, 0.2);
    NEAR(f[1].utilization, 0.5);
    NEAR(f[0].slowdown_pct, 4);
    NEAR(f[1].slowdown_pct, 4);
    NEAR(f[1].weight, 2);
    NEAR(res, sqrt(1.5));

    /* refusals */
    nv_curve_point bad[] = {{0.1, 1, 1}, {1.5, 2, 1}};
    assert_int_equal(nv_isotonic_fit(bad, 2, f, &n, &res), -1);
    nv_curve_point badw[] = {{0.1, 1, 0}};
    assert_int_equal(nv_isotonic_fit(badw, 1, f, &n, &res), -1);
    nv_curve_point badn[] = {{0.1, NAN, 1}};
    assert_int_equal(nv_isotonic_fit(badn, 1, f, &n, &res), -1);
    assert_int_equal(nv_isotonic_fit(bad, 0, f, &n, &res), -1);
}

static void curve_interpolates_and_clamps(void **state)
{
    (void)state;
    const nv_curve_point fit[] = {{0.2, 10, 1}, {0.5, 40, 1}, {0.9, 240, 1}};
    NEAR(nv_curve_eval(fit, 3, 0.0), 10); /* clamped below */
    NEAR(nv_curve_eval(fit, 3, 0.2), 10);
    NEAR(nv_curve_eval(fit, 3, 0.35), 25);
    NEAR(nv_curve_eval(fit, 3, 0.5), 40);
    NEAR(nv_curve_eval(fit, 3, 0.7), 140);
    NEAR(nv_curve_eval(fit, 3, 1.0), 240); /* clamped above */
    NEAR(nv_curve_eval(fit, 3, NAN), 10);
    NEAR(nv_curve_eval(fit, 0, 0.5), 0);
    NEAR(nv_curve_eval(fit, 1, 0.7), 10);
}

static void interval_overlap_lengths(void **state)
{
    (void)state;
    NEAR(nv_interval_overlap_us(5, 1, 7, 2), 1);         /* [4,6] n [5,9] = [5,6] */
    NEAR(nv_interval_overlap_us(5, 1, 5, 5), 2);         /* contained: its own width */
    NEAR(nv_interval_overlap_us(5, 1, 5, 1), 2);         /* identical */
    NEAR(nv_interval_overlap_us(5, 1, 7, 1), 0);         /* touching at 6 */
    NEAR(nv_interval_overlap_us(5, 1, 10, 1), 0);        /* disjoint */
    NEAR(nv_interval_overlap_us(5, 0, 5, 1), 0);         /* a point has no length */
    NEAR(nv_interval_overlap_us(2.5, 0.5, 2.0, 1.0), 1); /* [2,3] n [1,3] */
}

static void pdf_integrals(void **state)
{
    (void)state;
    nv_histogram a = {0}, b = {0}, c = {0}, e = {0};
    a.count[3] = 2;
    a.count[4] = 2;
    a.total = 4;
    b.count[4] = 1;
    b.count[5] = 3;
    b.total = 4;
    c.count[3] = 2;
    c.count[4] = 2;
    c.total = 4;
    NEAR(nv_hist_overlap(&a, &b), 0.5 * 0.25);  /* only bin 4 is shared */
    NEAR(nv_hist_overlap(&a, &c), 0.25 + 0.25); /* 0.5^2 + 0.5^2 */
    NEAR(nv_hist_overlap(&a, &e), 0);
    nv_histogram one = {0};
    one.count[10] = 7;
    one.total = 7;
    NEAR(nv_hist_overlap(&one, &one), 1); /* the bound of *Queue-theory interference model* */
}

static nv_latency_summary summary(double mean, double sd, int bin)
{
    nv_latency_summary s;
    memset(&s, 0, sizeof s);
    s.mean_us = mean;
    s.sd_us = sd;
    if (bin >= 0) {
        s.hist.count[bin] = 10;
        s.hist.total = 10;
    }
    return s;
}

/* B has mean 5, sd 1: I_B = [4, 6].
 * C0 mean 4.6, sd 0.1: I = [4.5, 4.7]; mean distance 0.4, overlap 0.2.
 * C1 mean 6.0, sd 2.0: I = [4, 8];     mean distance 1.0, overlap 2.0.
 * AverageLT sees only means and takes C0; AverageStDevLT sees that C1's
 * spread covers all of B's and takes C1: a narrow config that happens to
 * sit near B's mean is not the one that loads the switch like B. */
static void averagelt_and_averagestdevlt_disagree(void **state)
{
    (void)state;
    nv_latency_summary b = summary(5, 1, -1);
    nv_latency_summary cfg[] = {summary(4.6, 0.1, -1), summary(6.0, 2.0, -1)};
    assert_int_equal(nv_pick_average_lt(&b, cfg, 2), 0);
    assert_int_equal(nv_pick_average_stdev_lt(&b, cfg, 2), 1);
}

static void pick_rules_and_ties(void **state)
{
    (void)state;
    /* PDFLT follows the shape: B's mass sits in bin 20, shared with C1
     * only, although C0's mean is nearer */
    nv_latency_summary b = summary(5, 1, 20);
    nv_latency_summary cfg[] = {summary(5.1, 0.1, 12), summary(9.0, 3.0, 20),
                                summary(20.0, 1.0, 40)};
    assert_int_equal(nv_pick_pdf_lt(&b, cfg, 3), 1);
    assert_int_equal(nv_pick_average_lt(&b, cfg, 3), 0);
    /* every overlap zero: ties go to the nearest mean */
    nv_latency_summary far = summary(100, 0, 90);
    assert_int_equal(nv_pick_average_stdev_lt(&far, cfg, 3), 2);
    assert_int_equal(nv_pick_pdf_lt(&far, cfg, 3), 2);
    /* equal scores and distances: the lowest index */
    nv_latency_summary same[] = {summary(5, 1, 20), summary(5, 1, 20)};
    assert_int_equal(nv_pick_pdf_lt(&b, same, 2), 0);
    assert_int_equal(nv_pick_average_stdev_lt(&b, same, 2), 0);
    assert_int_equal(nv_pick_average_lt(&b, cfg, 0), -1);
}

static void latency_summary_of_samples(void **state)
{
    (void)state;
    const double lat[] = {1, 2, 3, 4, NAN, -1};
    nv_latency_summary s;
    assert_int_equal(nv_latency_summary_of(lat, 6, &s), 4);
    NEAR(s.mean_us, 2.5);
    NEAR(s.sd_us, sqrt(5.0 / 3.0));
    assert_int_equal(s.hist.total, 4);
}

static void metrics_by_hand(void **state)
{
    (void)state;
    nv_quartiles q;
    assert_int_equal(nv_quartiles_of((double[]){5, 1, 4, 2, 3}, 5, &q), 0);
    NEAR(q.min, 1);
    NEAR(q.q1, 2);
    NEAR(q.median, 3);
    NEAR(q.q3, 4);
    NEAR(q.max, 5);
    NEAR(q.mean, 3);
    assert_int_equal(nv_quartiles_of((double[]){1, 2, 3, 4}, 4, &q), 0);
    NEAR(q.q1, 1.75);
    NEAR(q.median, 2.5);
    NEAR(q.q3, 3.25);
    assert_int_equal(nv_quartiles_of((double[]){1, NAN}, 2, &q), -1);

    /* RCC: one discordant pair of six */
    NEAR(nv_rcc((double[]){1, 2, 3, 4}, (double[]){1, 3, 2, 4}, 4), 5.0 / 6.0);
    /* a tie in the measurement counts 0 */
    NEAR(nv_rcc((double[]){1, 1, 2}, (double[]){1, 2, 3}, 3), 2.0 / 3.0);
    /* a tie in the prediction counts 0 too */
    NEAR(nv_rcc((double[]){1, 2, 3}, (double[]){5, 5, 6}, 3), 2.0 / 3.0);
    NEAR(nv_rcc((double[]){1}, (double[]){1}, 1), 0);

    nv_error_summary e;
    /* measured 10, 0, 20; predicted 12, 5, 15 */
    assert_int_equal(nv_error_summary_of((double[]){10, 0, 20}, (double[]){12, 5, 15}, 3, &e), 0);
    NEAR(e.abs_pp.median, 5);
    NEAR(e.abs_pp.max, 5);
    NEAR(e.abs_pp.min, 2);
    NEAR(e.abs_pp.mean, 4);
    assert_int_equal(e.n_rel, 2); /* measured 0 has no relative error */
    NEAR(e.rel_min_pct, -25);
    NEAR(e.rel_max_pct, 20);
    NEAR(e.rel_mean_pct, 22.5);
    /* R^2: measured mean 10, SS_tot = 0 + 100 + 100, SS_res = 4 + 25 + 25 */
    NEAR(e.r2, 1.0 - (4.0 + 25.0 + 25.0) / 200.0);
    assert_true(e.r2_defined);
    assert_int_equal(nv_error_summary_of((double[]){1, 1}, (double[]){1, 2}, 2, &e), 0);
    assert_false(e.r2_defined);
    NEAR(e.r2, 0);
}

static void advice_by_hand(void **state)
{
    (void)state;
    /* power law T = 1600/N between 4 and 8 nodes, then flatter */
    const nv_scaling_point pts[] = {{4, 400, 3}, {8, 200, 3}, {16, 120, 2}};
    double t;
    assert_int_equal(nv_scaling_time_s(pts, 3, 6, &t), 0);
    NEAR(t, 1600.0 / 6.0); /* log-log is exact for a power law */
    assert_int_equal(nv_scaling_time_s(pts, 3, 16, &t), 0);
    NEAR(t, 120);
    assert_int_equal(nv_scaling_time_s(pts, 3, 17, &t), -1); /* no extrapolation */

    /* no interference: the most nodes win */
    nv_advice a;
    assert_int_equal(nv_advise_nodes(pts, 3, 4, 16, 8, NULL, &a), 0);
    assert_int_equal(a.best_nodes, 16);
    NEAR(a.best_time_s, 120);
    assert_true(a.requested_known);
    NEAR(a.requested_time_s, 200);
    NEAR(a.saving_s, 80);
    NEAR(a.saving_pct, 40);

    /* beyond 8 nodes the job would share a busy switch: +100 % */
    double slow[13];
    for (int n = 4; n <= 16; n++)
        slow[n - 4] = n <= 8 ? 0 : 100;
    assert_int_equal(nv_advise_nodes(pts, 3, 4, 16, 16, slow, &a), 0);
    assert_int_equal(a.best_nodes, 8);
    NEAR(a.best_time_s, 200);
    NEAR(a.requested_time_s, 240);
    NEAR(a.saving_s, 40);
    NEAR(a.saving_pct, 40.0 / 240.0 * 100.0);

    /* requested outside the data: advice still given, saving unknown */
    assert_int_equal(nv_advise_nodes(pts, 3, 2, 32, 32, NULL, &a), 0);
    assert_int_equal(a.best_nodes, 16);
    assert_false(a.requested_known);
    NEAR(a.saving_pct, 0);

    /* refusals: unsorted points, empty or disjoint range */
    const nv_scaling_point unsorted[] = {{8, 200, 1}, {4, 400, 1}};
    assert_int_equal(nv_advise_nodes(unsorted, 2, 4, 8, 4, NULL, &a), -1);
    assert_int_equal(nv_advise_nodes(pts, 3, 10, 5, 8, NULL, &a), -1);
    assert_int_equal(nv_advise_nodes(pts, 3, 20, 30, 25, NULL, &a), -1);
    assert_int_equal(nv_advise_nodes(pts, 3, 0, 30, 25, NULL, &a), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(isotonic_hand_cases),
        cmocka_unit_test(curve_interpolates_and_clamps),
        cmocka_unit_test(interval_overlap_lengths),
        cmocka_unit_test(pdf_integrals),
        cmocka_unit_test(averagelt_and_averagestdevlt_disagree),
        cmocka_unit_test(pick_rules_and_ties),
        cmocka_unit_test(latency_summary_of_samples),
        cmocka_unit_test(metrics_by_hand),
        cmocka_unit_test(advice_by_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
