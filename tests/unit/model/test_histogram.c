/* test_histogram.c - the shared log-spaced latency bins. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>

#include "histogram.h"

static void edges_are_16_per_decade(void **state)
{
    (void)state;
    assert_true(fabs(nv_hist_edge_us(0) - 1.0) < 1e-12);
    assert_true(fabs(nv_hist_edge_us(16) - 10.0) < 1e-9);
    assert_true(fabs(nv_hist_edge_us(NV_HIST_BINS) - 1e6) < 1e-3);
}

static void values_land_in_their_bin(void **state)
{
    (void)state;
    assert_int_equal(nv_hist_bin(0.5), 0);
    assert_int_equal(nv_hist_bin(-3), 0);
    assert_int_equal(nv_hist_bin(NAN), 0);
    assert_int_equal(nv_hist_bin(10.0), 16);
    assert_int_equal(nv_hist_bin(9.99), 15);
    assert_int_equal(nv_hist_bin(1e9), NV_HIST_BINS - 1);
    for (int k = 0; k < NV_HIST_BINS; k++) {
        double mid = sqrt(nv_hist_edge_us(k) * nv_hist_edge_us(k + 1));
        assert_int_equal(nv_hist_bin(mid), k);
        assert_int_equal(nv_hist_bin(nv_hist_edge_us(k)), k);
    }
}

static void density_sums_to_one(void **state)
{
    (void)state;
    nv_histogram h = {0};
    nv_hist_add(&h, 3);
    nv_hist_add(&h, 3.1);
    nv_hist_add(&h, 300);
    double s = 0;
    for (int k = 0; k < NV_HIST_BINS; k++)
        s += nv_hist_density(&h, k);
    assert_true(fabs(s - 1.0) < 1e-12);
    assert_true(fabs(nv_hist_density(&h, nv_hist_bin(3)) - 2.0 / 3) < 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(edges_are_16_per_decade),
        cmocka_unit_test(values_land_in_their_bin),
        cmocka_unit_test(density_sums_to_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
