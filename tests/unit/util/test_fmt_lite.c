/* test_fmt_lite.c - nv_fmt_append writes what vsnprintf writes: each
 * conversion it handles itself (%s %c %d %u %ld %lu %zu %%, NULL %s,
 * the integer limits), the ones it hands over (precision, width, floating
 * point, %x), appends after text already there, and every buffer size from
 * one byte up, so a cut falls at every position. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "fmt_lite.h"

static long checked;

/* the same text at every capacity, after a prefix of the given length */
#define SAME(fmt, ...)                                                                             \
    do {                                                                                           \
        char want[512], got[512];                                                                  \
        for (size_t pre = 0; pre < 3; pre++)                                                       \
            for (size_t cap = pre + 1; cap <= sizeof want; cap++) {                                \
                memset(want, 'x', sizeof want);                                                    \
                memset(got, 'x', sizeof got);                                                      \
                memcpy(want, "ab", pre), want[pre] = '\0';                                         \
                memcpy(got, "ab", pre), got[pre] = '\0';                                           \
                size_t wl = pre, gl = pre;                                                         \
                int n = snprintf(want + pre, cap - pre, fmt, __VA_ARGS__);                         \
                if (n > 0)                                                                         \
                    wl = pre + (size_t)n < cap ? pre + (size_t)n : cap - 1;                        \
                if (pre + 1 >= cap)                                                                \
                    wl = pre, memcpy(want, got, sizeof want);                                      \
                nv_fmt_append(got, cap, &gl, fmt, __VA_ARGS__);                                    \
                if (gl != wl || memcmp(got, want, sizeof want))                                    \
                    fail_msg("'%s' cap %zu prefix %zu: got '%.*s' (%zu), want '%.*s' (%zu)", fmt,  \
                             cap, pre, (int)gl, got, gl, (int)wl, want, wl);                       \
                checked++;                                                                         \
            }                                                                                      \
    } while (0)

static void own_conversions_write_as_vsnprintf(void **state)
{
    (void)state;
    SAME("netvar: app %s: job %u (%s), %d jobs, %zu nodes, %ld left, 100 %%", "cg", 4294967295u,
         "alltoall", -7, (size_t)123456, -9223372036854775807L - 1);
    SAME("%s%s%c%u", "", "x", 'q', 0u);
    SAME("%d %d %lu", INT_MIN, INT_MAX, ULONG_MAX);
    SAME("plain text only%s", "");
    SAME("%%%s%%", "tail");
    const char *volatile none = NULL; /* not known to the compiler */
    char nul[16];
    size_t len = 0;
    nv_fmt_append(nul, sizeof nul, &len, "[%s]", none);
    assert_string_equal(nul, "[(null)]");
}

static void other_conversions_go_to_vsnprintf(void **state)
{
    (void)state;
    SAME("%.3g s predicted, %5u wide, %-4s|, %x, %.*s", 12.3456, 42u, "ab", 255u, 2, "abcdef");
    SAME("%lld and %hu", 1234567890123LL, (unsigned short)7);
    SAME("%.0f %%", 42.5);
}

static void full_buffer_is_left_alone(void **state)
{
    (void)state;
    char b[4] = "abc";
    size_t len = 3;
    nv_fmt_append(b, sizeof b, &len, "%s", "more");
    assert_int_equal(len, 3);
    assert_string_equal(b, "abc");
    print_message("%ld cases matched vsnprintf\n", checked);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(own_conversions_write_as_vsnprintf),
        cmocka_unit_test(other_conversions_go_to_vsnprintf),
        cmocka_unit_test(full_buffer_is_left_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
