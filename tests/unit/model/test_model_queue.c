/* test_model_queue.c - M/G/1 utilization: P-K round trip, domain edges,
 * the paper's eq. 3 written literally, an independent M/G/1 simulation,
 * counters, and idle-switch calibration. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <float.h>
#include <math.h>
#include <cmocka.h>

#include "calibration.h"
#include "queue.h"

static void pk_round_trip_over_grid_to_the_edges(void **state)
{
    (void)state;
    const double services[] = {0.05, 0.5, 1.0, 1.25, 3.0, 400.0};
    const double vars[] = {0.0, 1e-6, 0.04, 1.0, 10.0, 1e4};
    const double edge_rhos[] = {0.0,   1e-15,  1e-12,    1e-9,       1e-6,
                                0.999, 0.9999, 0.999999, 1.0 - 1e-9, 1.0 - 1e-12};
    int checked = 0;
    for (size_t si = 0; si < sizeof services / sizeof *services; si++)
        for (size_t vi = 0; vi < sizeof vars / sizeof *vars; vi++) {
            for (int k = 0; k < 100 + (int)(sizeof edge_rhos / sizeof *edge_rhos); k++) {
                double rho = k < 100 ? k / 100.0 : edge_rhos[k - 100];
                double w;
                assert_int_equal(nv_pk_latency_us(services[si], vars[vi], rho, &w), 0);
                assert_true(isfinite(w) && w >= services[si]);
                nv_utilization u;
                assert_int_equal(nv_utilization_from_latency(services[si], vars[vi], w, &u), 0);
                if (fabs(u.rho - rho) > 1e-9)
                    fail_msg("s=%g V=%g rho=%.17g came back as %.17g", services[si], vars[vi], rho,
                             u.rho);
                assert_true(fabs(u.lambda_per_us - rho / services[si]) <= 1e-9 / services[si]);
                checked++;
            }
        }
    assert_true(checked > 3000);
    double w;
    assert_int_equal(nv_pk_latency_us(1.0, 0.1, 1.0, &w), -1);
    assert_int_equal(nv_pk_latency_us(1.0, 0.1, -0.1, &w), -1);
    assert_int_equal(nv_pk_latency_us(1.0, 0.1, NAN, &w), -1);
    assert_int_equal(nv_pk_latency_us(0.0, 0.1, 0.5, &w), -1);
    assert_int_equal(nv_pk_latency_us(1.0, -0.1, 0.5, &w), -1);
}

/* eq. 3 exactly as printed in *Queue-theory interference model*: lambda = (2 - 2 W mu) /
 * (-2W + 2/mu - mu Var - 1/mu); the library's reduced form must agree. */
static void reduced_form_matches_paper_eq3(void **state)
{
    (void)state;
    const double ws[] = {1.3, 2.0, 5.5, 10.0, 100.0};
    const double vars[] = {0.0, 0.04, 2.0};
    for (size_t i = 0; i < 5; i++)
        for (size_t j = 0; j < 3; j++) {
            double s = 1.25, mu = 1.0 / s, W = ws[i], V = vars[j];
            double lambda = (2 - 2 * W * mu) / (-2 * W + 2 / mu - mu * V - 1 / mu);
            nv_utilization u;
            assert_int_equal(nv_utilization_from_latency(s, V, W, &u), 0);
            assert_true(fabs(u.rho - lambda / mu) < 1e-12);
            assert_true(fabs(u.lambda_per_us - lambda) < 1e-12);
        }
}

static void inverse_domain_edges(void **state)
{
    (void)state;
    nv_utilization u;
    /* at or below the service time: the probe saw an idle switch */
    assert_int_equal(nv_utilization_from_latency(1.0, 0.04, 0.5, &u), 0);
    assert_true(u.rho == 0 && u.lambda_per_us == 0 && !u.saturated);
    assert_int_equal(nv_utilization_from_latency(1.0, 0.04, 1.0, &u), 0);
    assert_true(u.rho == 0);
    assert_int_equal(nv_utilization_from_latency(1.0, 0.04, 0.0, &u), 0);
    assert_true(u.rho == 0);
    /* infinite latency: saturated, rho exactly 1, still finite */
    assert_int_equal(nv_utilization_from_latency(1.0, 0.04, INFINITY, &u), 0);
    assert_true(u.rho == 1.0 && u.saturated && isfinite(u.lambda_per_us));
    /* saturation flag follows NV_RHO_CAP */
    double w;
    assert_int_equal(nv_pk_latency_us(1.0, 0.04, 0.995, &w), 0);
    assert_int_equal(nv_utilization_from_latency(1.0, 0.04, w, &u), 0);
    assert_true(u.saturated);
    assert_int_equal(nv_pk_latency_us(1.0, 0.04, 0.5, &w), 0);
    assert_int_equal(nv_utilization_from_latency(1.0, 0.04, w, &u), 0);
    assert_false(u.saturated);
    /* invalid inputs are refused, output zeroed */
    assert_int_equal(nv_utilization_from_latency(1.0, 0.04, NAN, &u), -1);
    assert_true(u.rho == 0);
    assert_int_equal(nv_utilization_from_latency(1.0, 0.04, -2.0, &u), -1);
    assert_int_equal(nv_utilization_from_latency(0.0, 0.04, 2.0, &u), -1);
    assert_int_equal(nv_utilization_from_latency(-1.0, 0.04, 2.0, &u), -1);
    assert_int_equal(nv_utilization_from_latency(INFINITY, 0.04, 2.0, &u), -1);
    assert_int_equal(nv_utilization_from_latency(1.0, -0.04, 2.0, &u), -1);
    assert_int_equal(nv_utilization_from_latency(1.0, NAN, 2.0, &u), -1);
    /* extreme magnitudes never give NaN or infinity */
    const double xs[] = {DBL_MIN, 1e-300, 1e-9, 1.0, 1e9, 1e300, DBL_MAX};
    for (size_t i = 0; i < 7; i++)
        for (size_t j = 0; j < 7; j++)
            for (size_t k = 0; k < 7; k++) {
                if (nv_utilization_from_latency(xs[i], xs[j], xs[k], &u) == 0) {
                    assert_true(isfinite(u.rho) && u.rho >= 0 && u.rho <= 1);
                    assert_true(isfinite(u.lambda_per_us) && u.lambda_per_us >= 0);
                }
            }
}

/* ---- an M/G/1 queue simulated event by event (Lindley's recursion) ---- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double uniform01(void) /* xorshift64*, (0,1) */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return ((rng_state * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0) +
           0.5 / 9007199254740992.0;
}

/* mean time in system of n customers with Poisson(lambda) arrivals and
 * service from draw(); the first tenth is discarded as warm-up */
static double simulate_w(double lambda, double (*draw)(void), long n)
{
    double wait = 0, sum = 0, prev_service = 0;
    long warm = n / 10;
    for (long i = 0; i < n; i++) {
        double gap = -log(uniform01()) / lambda;
        double w = wait + prev_service - gap;
        wait = w > 0 ? w : 0;
        double s = draw();
        if (i >= warm)
            sum += wait + s;
        prev_service = s;
    }
    return sum / (double)(n - warm);
}

static double uniform_service(void)
{
    return 0.5 + uniform01();
} /* mean 1, Var 1/12 */
static double deterministic_service(void)
{
    return 1.0;
} /* M/D/1 */

static void simulated_mg1_is_recovered_within_2pp(void **state)
{
    (void)state;
    const double rhos[] = {0.1, 0.3, 0.5, 0.7, 0.8, 0.9};
    struct {
        double (*draw)(void);
        double var;
        const char *name;
    } dists[] = {
        {uniform_service, 1.0 / 12.0, "uniform[0.5,1.5]"},
        {deterministic_service, 0.0, "deterministic"},
    };
    rng_state = 12345;
    for (size_t d = 0; d < 2; d++)
        for (size_t i = 0; i < sizeof rhos / sizeof *rhos; i++) {
            double w = simulate_w(rhos[i] /* lambda = rho * mu, mu = 1 */, dists[d].draw, 600000);
            nv_utilization u;
            assert_int_equal(nv_utilization_from_latency(1.0, dists[d].var, w, &u), 0);
            if (fabs(u.rho - rhos[i]) > 0.02)
                fail_msg("%s rho=%.2f: simulated W=%.4f us gave rho=%.4f", dists[d].name, rhos[i],
                         w, u.rho);
        }
}

static void utilization_from_counters(void **state)
{
    (void)state;
    nv_utilization u;
    assert_int_equal(nv_utilization_from_counters(500, 1000, 1.0, &u), 0);
    assert_true(fabs(u.rho - 0.5) < 1e-12 && fabs(u.lambda_per_us - 0.5) < 1e-12 && !u.saturated);
    assert_int_equal(nv_utilization_from_counters(3000, 1000, 1.0, &u), 0);
    assert_true(u.rho == 1.0 && u.saturated);
    assert_int_equal(nv_utilization_from_counters(0, 1000, 1.0, &u), 0);
    assert_true(u.rho == 0);
    assert_int_equal(nv_utilization_from_counters(10, 0, 1.0, &u), -1);
    assert_int_equal(nv_utilization_from_counters(-1, 10, 1.0, &u), -1);
    assert_int_equal(nv_utilization_from_counters(NAN, 10, 1.0, &u), -1);
    assert_int_equal(nv_utilization_from_counters(1, 10, 0.0, &u), -1);
}

static void calibration_methods(void **state)
{
    (void)state;
    /* ten idle samples, one glitch (0.2 us) and one NaN */
    const double lat[] = {1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 0.2, NAN};
    nv_calibration c;
    assert_int_equal(nv_calibrate(lat, 11, NV_CAL_MINIMUM, 0, &c), 0);
    assert_int_equal(c.samples, 10);
    assert_int_equal(c.rejected, 1);
    assert_true(fabs(c.service_us - 0.2) < 1e-12); /* the minimum takes the glitch */
    assert_true(fabs(c.mu_per_us - 5.0) < 1e-9);
    assert_int_equal(c.hist.total, 10);
    /* mean of the ten values and their n-1 variance, by hand */
    double mean = (1.0 + 1.1 + 1.2 + 1.3 + 1.4 + 1.5 + 1.6 + 1.7 + 1.8 + 0.2) / 10;
    double ss = 0;
    for (int i = 0; i < 10; i++)
        ss += (lat[i] - mean) * (lat[i] - mean);
    assert_true(fabs(c.idle_mean_us - mean) < 1e-12);
    assert_true(fabs(c.var_s_us2 - ss / 9) < 1e-12);
    /* a low quantile steps over the glitch: sorted 0.2,1.0,...; q=0.2 ->
     * position 1.8 -> 1.0 + 0.8*0.1 */
    assert_int_equal(nv_calibrate(lat, 11, NV_CAL_LOW_QUANTILE, 0.2, &c), 0);
    assert_true(fabs(c.service_us - 1.08) < 1e-12);
    assert_true(fabs(c.quantile - 0.2) < 1e-15);
    assert_int_equal(nv_calibrate(lat, 11, NV_CAL_MEAN, 0, &c), 0);
    assert_true(fabs(c.service_us - mean) < 1e-12);
    /* refusals */
    assert_int_equal(nv_calibrate(lat, 1, NV_CAL_MINIMUM, 0, &c), -1);
    assert_int_equal(nv_calibrate(lat, 11, NV_CAL_LOW_QUANTILE, 0.7, &c), -1);
    assert_int_equal(nv_calibrate(NULL, 5, NV_CAL_MINIMUM, 0, &c), -1);
    nv_cal_method m;
    assert_int_equal(nv_cal_method_from_name("low-quantile", &m), 0);
    assert_int_equal(m, NV_CAL_LOW_QUANTILE);
    assert_int_equal(nv_cal_method_from_name("median", &m), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pk_round_trip_over_grid_to_the_edges),
        cmocka_unit_test(reduced_form_matches_paper_eq3),
        cmocka_unit_test(inverse_domain_edges),
        cmocka_unit_test(simulated_mg1_is_recovered_within_2pp),
        cmocka_unit_test(utilization_from_counters),
        cmocka_unit_test(calibration_methods),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
