/* test_pmpi_pending.c - the segment profiler's pure logic for nonblocking
 * boundaries (probes/pmpi/nvp_pending.c, compiled in here: it has no MPI):
 * the bounded request table and the polling-gap rule. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>

#include "../../probes/pmpi/nvp_pending.c"

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
    assert_true(nvp_pending_has(&t, 0x2000));             /* the hole was filled */
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

static void polling_gap_rule(void **state)
{
    (void)state;
    /* a nanosleep nap: 60 us of wall, 3 us of CPU: waiting */
    assert_int_equal(nvp_poll_gap_is_waiting(60000, 3000), 1);
    /* a spin loop between tests: too short to be computation */
    assert_int_equal(nvp_poll_gap_is_waiting(300, 300), 1);
    assert_int_equal(nvp_poll_gap_is_waiting(NVP_POLL_SHORT_NS - 1, NVP_POLL_SHORT_NS - 1), 1);
    /* overlapped computation: CPU busy for the whole gap */
    assert_int_equal(nvp_poll_gap_is_waiting(200000, 198000), 0);
    assert_int_equal(nvp_poll_gap_is_waiting(NVP_POLL_SHORT_NS, NVP_POLL_SHORT_NS), 0);
    /* half and half is still computation (the rule is "mostly slept") */
    assert_int_equal(nvp_poll_gap_is_waiting(100000, 50000), 0);
    assert_int_equal(nvp_poll_gap_is_waiting(100000, 49999), 1);
    /* nonsense never reclassifies work */
    assert_int_equal(nvp_poll_gap_is_waiting(NAN, 0), 0);
    assert_int_equal(nvp_poll_gap_is_waiting(1e6, INFINITY), 0);
    assert_int_equal(nvp_poll_gap_is_waiting(-1, 0), 0);
    assert_int_equal(nvp_poll_gap_is_waiting(1e6, -5), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(add_remove_and_recycled_handles),
        cmocka_unit_test(full_table_counts_and_ignores),
        cmocka_unit_test(polling_gap_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
