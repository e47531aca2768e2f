/* test_jitter.c - the samplers' jittered gaps: every gap stays in
 * [mean/2, 3 mean/2), their mean is the interval, and reads against a load
 * whose period equals the interval fall at every phase, where fixed gaps
 * fall at one. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "jitter.h"

static void gaps_are_bounded_and_keep_the_mean(void **state)
{
    (void)state;
    uint64_t s = 42, mean = 100000000ull; /* 100 ms */
    double sum = 0;
    uint64_t lo = UINT64_MAX, hi = 0;
    const int n = 100000;
    for (int i = 0; i < n; i++) {
        uint64_t g = nv_jitter_gap_ns(&s, mean);
        assert_true(g >= mean / 2);
        assert_true(g < mean / 2 * 3);
        lo = g < lo ? g : lo;
        hi = g > hi ? g : hi;
        sum += (double)g;
    }
    double m = sum / n;
    /* uniform on a 100 ms wide range: sd of the mean 0.09 ms */
    assert_true(m > 99.5e6 && m < 100.5e6);
    /* the whole range is used */
    assert_true(lo < 51000000ull && hi > 149000000ull);
    /* tiny means stay in range too */
    for (uint64_t k = 1; k < 8; k++)
        for (int i = 0; i < 100; i++) {
            uint64_t g = nv_jitter_gap_ns(&s, k);
            assert_true(g >= k / 2 && g < k / 2 + k);
        }
}

static void reads_spread_over_a_period_equal_to_the_interval(void **state)
{
    (void)state;
    /* a load busy in the first 30 % of every 100 ms period: fixed 100 ms
     * reads see one phase, always; jittered reads see it busy ~30 % */
    const uint64_t period = 100000000ull;
    uint64_t s = 7, t = 12345678ull, busy = 0, fixed_busy = 0;
    const int n = 20000;
    for (int i = 0; i < n; i++) {
        busy += (t % period) < period * 3 / 10;
        fixed_busy += ((12345678ull + (uint64_t)i * period) % period) < period * 3 / 10;
        t += nv_jitter_gap_ns(&s, period);
    }
    double f = (double)busy / n;
    assert_true(f > 0.27 && f < 0.33);
    /* fixed reads: all busy (the first read fell in the burst) */
    assert_int_equal(fixed_busy, n);
}

static void seeds_give_different_sequences(void **state)
{
    (void)state;
    uint64_t a = 1, b = 2;
    int same = 0;
    for (int i = 0; i < 100; i++)
        same += nv_jitter_gap_ns(&a, 1000000) == nv_jitter_gap_ns(&b, 1000000);
    assert_true(same < 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gaps_are_bounded_and_keep_the_mean),
        cmocka_unit_test(reads_spread_over_a_period_equal_to_the_interval),
        cmocka_unit_test(seeds_give_different_sequences),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
