/* test_fmt_fixed.c - nv_fmt_fixed prints what snprintf("%.Nf") prints:
 * random values over many magnitudes, values a few ulps around every tie
 * the scaled value can have, exact ties, signs and negative zero, values
 * past the exact range, non-finite values, and buffers too small. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "fmt_fixed.h"

static uint64_t rs = 0x2545F4914F6CDD1Dull;
static uint64_t rnd(void)
{
    rs ^= rs >> 12;
    rs ^= rs << 25;
    rs ^= rs >> 27;
    return rs * 0x2545F4914F6CDD1Dull;
}

static long checked;

static void same(double x, int d)
{
    char want[400], got[400];
    int wn = snprintf(want, sizeof want, "%.*f", d, x);
    int gn = nv_fmt_fixed(got, sizeof got, x, d);
    if (gn != wn || strcmp(got, want))
        fail_msg("%.17g with %d decimals: got '%s' (%d), want '%s' (%d)", x, d, got, gn, want, wn);
    checked++;
}

static void random_values_print_as_printf_does(void **state)
{
    (void)state;
    for (int i = 0; i < 400000; i++) {
        /* magnitudes from 1e-4 to 1e10, both signs */
        double m = (double)(rnd() >> 11) / 9007199254740992.0;
        double x = m * pow(10, (int)(rnd() % 15) - 4);
        if (rnd() & 1)
            x = -x;
        same(x, (int)(rnd() % 4));
    }
    /* slowdowns as job_submit prints them: -100 % to a few thousand */
    for (int i = 0; i < 200000; i++)
        same(-100 + 5000 * (double)(rnd() >> 11) / 9007199254740992.0, (int)(rnd() % 4));
}

static void near_and_at_ties(void **state)
{
    (void)state;
    for (int d = 0; d <= 3; d++) {
        double s = pow(10, d);
        for (long k = -3000; k <= 3000; k++) {
            double t = ((double)k + 0.5) / s; /* a tie, or its nearest double */
            double x = t;
            for (int u = 0; u < 6; u++)
                x = nextafter(x, -INFINITY);
            for (int u = 0; u < 13; u++, x = nextafter(x, INFINITY))
                same(x, d);
        }
        /* exact binary ties (0.5, 0.25, 0.125, ... scaled) go to even */
        for (int k = 0; k < 64; k++) {
            same(k + 0.5, 0);
            same((2 * k + 1) / 4.0, d);
            same(-(2 * k + 1) / 8.0, d);
        }
    }
}

static void signs_extremes_and_small_buffers(void **state)
{
    (void)state;
    double xs[] = {0.0,          -0.0,         -0.04, -0.4,   -0.5,     0.5,    1.5, 2.5,
                   4294967295.4, 4294967296.6, 1e15,  -1e300, 1e-300,   5e-324, NAN, -NAN,
                   INFINITY,     -INFINITY,    99.95, 107.5,  0.949999, 0.95,   0.05};
    for (size_t i = 0; i < sizeof xs / sizeof *xs; i++)
        for (int d = 0; d <= 3; d++)
            same(xs[i], d);
    /* decimals outside 0..3: printf's own answer */
    same(3.14159, 5);
    same(3.14159, -1);
    /* too small: -1 and an empty string, as much as fits never */
    char b[8];
    memset(b, 'x', sizeof b);
    assert_int_equal(nv_fmt_fixed(b, 5, 123.45, 1), -1); /* "123.5" needs 6 bytes */
    assert_string_equal(b, "");
    assert_int_equal(nv_fmt_fixed(b, 6, 123.45, 1), 5);
    assert_string_equal(b, "123.5");
    assert_int_equal(nv_fmt_fixed(b, 0, 1, 0), -1);
    assert_int_equal(nv_fmt_fixed(b, 3, 1e300, 0), -1); /* through printf */
    assert_string_equal(b, "");
    assert_true(checked > 900000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_values_print_as_printf_does),
        cmocka_unit_test(near_and_at_ties),
        cmocka_unit_test(signs_extremes_and_small_buffers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
