/* test_progress.c - the progress line: its text (done, total, rate, time
 * left) and that it stays off where it must (not a terminal, --quiet). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "progress.h"

static void the_line_says_rate_and_time_left(void **state)
{
    (void)state;
    char buf[160];
    nv_progress_format(buf, sizeof buf, "train: job records read", 250000, 1000000, 10.0);
    assert_string_equal(buf, "netvar: train: job records read: 250000 of 1000000 "
                             "(25000/s, 30 s left)");
    /* no total: the count and the rate */
    nv_progress_format(buf, sizeof buf, "x", 500, 0, 2.0);
    assert_string_equal(buf, "netvar: x: 500 (250/s)");
    /* nothing done yet: no rate to show */
    nv_progress_format(buf, sizeof buf, "x", 0, 10, 0.0);
    assert_string_equal(buf, "netvar: x: 0 of 10");
    /* a small buffer is cut, never overrun */
    char small[12];
    memset(small, 'z', sizeof small);
    nv_progress_format(small, sizeof small, "train", 123456, 0, 1.0);
    assert_int_equal(strlen(small), sizeof small - 1);
}

static void off_unless_a_terminal_and_asked(void **state)
{
    (void)state;
    FILE *f = tmpfile(); /* a file is not a terminal */
    assert_non_null(f);
    nv_progress p;
    nv_progress_start(&p, f, 1, "x", 10);
    assert_null(p.out);
    nv_progress_update(&p, 5, 1);
    nv_progress_end(&p);
    assert_int_equal(ftell(f), 0);             /* nothing written */
    nv_progress_start(&p, stderr, 0, "x", 10); /* --quiet */
    assert_null(p.out);
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_line_says_rate_and_time_left),
        cmocka_unit_test(off_unless_a_terminal_and_asked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
