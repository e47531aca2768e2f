/* test_pmpi_pending.c - the segment profiler's pure logic for nonblocking
 * boundaries (probes/pmpi/nvp_pending.c, linked in: it has no MPI):
 * the bounded request table and the polling-run rule. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>

#include "nvp_pending.h"

static void add_remove_and_recycled_handles(void **state)
{
    (void)state;
    nvp_pending t = {0};
    assert_int_equal(nvp_pending_add(&t, 0x1000), 1);
    assert_int_equal(nvp_pending_add(&t, 0x2000), 1);
    assert_int_equal(nvp_pending_add(&t, 0x1000), 0); /* recycled handle: kept once */
    assert_int_equal(t.n, 2);
    assert_true(nvp_pending_has(&t, 0x2000));
    assert_false(nvp_pending_has(&t, 0x3000));
    assert_false(nvp_pending_has(&t, 0)); /* the null key is never tracked */
    assert_int_equal(nvp_pending_add(&t, 0), -1);
    assert_int_equal(t.overflow, 0);
    assert_int_equal(nvp_pending_remove(&t, 0x1000), 1);
    assert_int_equal(nvp_pending_remove(&t, 0x1000), 0); /* completed once only */
    assert_true(nvp_pending_has(&t, 0x2000));            /* the hole was filled */
    assert_int_equal(nvp_pending_remove(&t, 0x2000), 1);
    assert_int_equal(t.n, 0);
}

static void full_table_counts_and_ignores(void **state)
{
    (void)state;
    nvp_pending t = {0};
    for (uint64_t k = 1; k <= NVP_PENDING_MAX; k++)
        assert_int_equal(nvp_pending_add(&t, k * 16), 1);
    for (uint64_t k = 1; k <= 6; k++)
        assert_int_equal(nvp_pending_add(&t, 0x100000 + k), -1);
    assert_int_equal(t.n, NVP_PENDING_MAX);
    assert_int_equal(t.overflow, 6);
    assert_false(nvp_pending_has(&t, 0x100001));
    /* removing from the middle keeps every other key findable */
    assert_int_equal(nvp_pending_remove(&t, 16 * 10), 1);
    for (uint64_t k = 1; k <= NVP_PENDING_MAX; k++)
        assert_int_equal(nvp_pending_has(&t, k * 16), k != 10);
    /* and makes room again */
    assert_int_equal(nvp_pending_add(&t, 0x100001), 1);
    assert_int_equal(t.overflow, 6);
}

static void polling_run_rule(void **state)
{
    (void)state;
    /* 20 nanosleep naps: 1.2 ms of wall, 60 us of CPU: waiting */
    assert_int_equal(nvp_poll_run_is_waiting(1.2e6, 6e4, 20), 1);
    /* a spin loop: CPU busy, but 1000 tests in 300 us, 0.3 us apart */
    assert_int_equal(nvp_poll_run_is_waiting(3e5, 3e5, 1000), 1);
    assert_int_equal(nvp_poll_run_is_waiting(NVP_POLL_SHORT_NS * 3 - 1, 1e9, 3), 1);
    /* overlapped computation: 4 tests 50 us apart, CPU busy throughout */
    assert_int_equal(nvp_poll_run_is_waiting(2e5, 1.98e5, 4), 0);
    assert_int_equal(nvp_poll_run_is_waiting(NVP_POLL_SHORT_NS * 3, NVP_POLL_SHORT_NS * 3, 3), 0);
    /* half and half is still computation (the rule is "mostly slept") */
    assert_int_equal(nvp_poll_run_is_waiting(1e5, 5e4, 1), 0);
    assert_int_equal(nvp_poll_run_is_waiting(1e5, 49999, 1), 1);
    /* nonsense never reclassifies work */
    assert_int_equal(nvp_poll_run_is_waiting(1e5, 0, 0), 0);
    assert_int_equal(nvp_poll_run_is_waiting(NAN, 0, 1), 0);
    assert_int_equal(nvp_poll_run_is_waiting(1e6, INFINITY, 1), 0);
    assert_int_equal(nvp_poll_run_is_waiting(-1, 0, 1), 0);
    assert_int_equal(nvp_poll_run_is_waiting(1e6, -5, 1), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(add_remove_and_recycled_handles),
        cmocka_unit_test(full_table_counts_and_ignores),
        cmocka_unit_test(polling_run_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
