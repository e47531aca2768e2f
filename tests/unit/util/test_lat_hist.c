/* test_lat_hist.c - the lock-free call-time histogram: quantiles to the
 * bucket, mean and maximum exact, the overflow bucket, and no count lost
 * when four threads record at once. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <pthread.h>
#include <string.h>
#include <cmocka.h>

#include "lat_hist.h"

static void quantiles_mean_and_max(void **state)
{
    (void)state;
    static nv_lat_hist h;
    memset(&h, 0, sizeof h);
    nv_lat_summary s;
    nv_lat_summarize(&h, &s);
    assert_int_equal(s.calls, 0);
    /* 1.00 .. 100.99 us: the median call is 50.5 us, in bucket 50.5 */
    for (uint64_t i = 0; i < 100; i++)
        nv_lat_record(&h, 1000 + 1000 * i + 10);
    nv_lat_record(&h, 5000000); /* 5 ms: the overflow bucket */
    nv_lat_summarize(&h, &s);
    assert_int_equal(s.calls, 101);
    assert_true(s.median_us > 50.9 && s.median_us < 51.2);
    assert_true(s.p99_us > 99.9 && s.p99_us < 100.2);
    assert_true(s.max_us > 4999.9 && s.max_us < 5000.1);
    double mean = (100 * 1000.0 + 1000.0 * 4950 + 100 * 10 + 5000000) / 101 / 1000;
    assert_true(s.mean_us > mean - 0.001 && s.mean_us < mean + 0.001);
}

static nv_lat_hist shared;
static void *hammer(void *arg)
{
    uint64_t base = (uint64_t)(uintptr_t)arg;
    for (uint64_t i = 0; i < 100000; i++)
        nv_lat_record(&shared, base + i % 7);
    return NULL;
}

static void threads_lose_nothing(void **state)
{
    (void)state;
    pthread_t t[4];
    for (uintptr_t k = 0; k < 4; k++)
        assert_int_equal(pthread_create(&t[k], NULL, hammer, (void *)(2000 + 1000 * k)), 0);
    for (int k = 0; k < 4; k++)
        pthread_join(t[k], NULL);
    nv_lat_summary s;
    nv_lat_summarize(&shared, &s);
    assert_int_equal(s.calls, 400000);
    assert_true(s.max_us > 5.0 && s.max_us < 5.01);
    assert_true(s.median_us > 2.9 && s.median_us < 4.1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(quantiles_mean_and_max),
        cmocka_unit_test(threads_lose_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
