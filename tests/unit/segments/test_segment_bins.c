/* test_segment_bins.c - the 256/512-bin quantizer: closest-pair merging
 * and the remap that keeps stored indices pointing at the right values. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "segment_bins.h"

static void merge_picks_the_closest_pair_and_remaps(void **state)
{
    (void)state;
    nv_seg_bins b;
    uint16_t remap[NV_SEG_BINS_MAX];
    int merged;
    assert_int_equal(nv_seg_bins_init(&b, 4), 0);
    int s1 = nv_seg_bins_add(&b, 1, 1, remap, &merged);
    int s2 = nv_seg_bins_add(&b, 2, 1, remap, &merged);
    int s10 = nv_seg_bins_add(&b, 10, 1, remap, &merged);
    int s100 = nv_seg_bins_add(&b, 100, 1, remap, &merged);
    assert_int_equal(merged, 0);
    assert_int_equal(b.used, 4);
    /* full: merge down to 2 bins. Relative distances: 1-2: 1, 2-10: 4,
     * 10-100: 9.  First 1+2 -> 1.5 (x2), then 1.5-10 (5.67) < 10-100 (9). */
    int s1000 = nv_seg_bins_add(&b, 1000, 1, remap, &merged);
    assert_int_equal(merged, 1);
    assert_int_equal(b.used, 3);
    assert_int_equal(remap[s2], s1);
    assert_int_equal(remap[s10], s1);
    assert_int_equal(remap[s100], s100);
    assert_int_equal(remap[s1], s1);
    assert_true(fabs(b.value[s1] - 13.0 / 3.0) < 1e-12); /* (1+2+10)/3 */
    assert_int_equal(b.count[s1], 3);
    assert_true(b.value[s1000] == 1000);
    assert_int_equal(nv_seg_bins_validate(&b), 0);
}

static void stored_indices_stay_correct_through_many_merges(void **state)
{
    (void)state;
    nv_seg_bins b;
    uint16_t remap[NV_SEG_BINS_MAX];
    int merged, merges = 0;
    enum { N = 5000 };
    static uint8_t col[N];
    static double val[N];
    nv_seg_bins_init(&b, NV_SEG_RANK_BINS);
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        /* values over 6 decades */
        val[i] = pow(10, (double)(x % 600000) / 100000.0);
        int slot = nv_seg_bins_add(&b, val[i], 1, remap, &merged);
        if (merged) {
            merges++;
            for (int k = 0; k < i; k++)
                col[k] = (uint8_t)remap[col[k]];
        }
        assert_true(slot >= 0 && slot < NV_SEG_RANK_BINS);
        col[i] = (uint8_t)slot;
        assert_true(b.used <= NV_SEG_RANK_BINS);
    }
    assert_true(merges > 0);
    assert_int_equal(nv_seg_bins_validate(&b), 0);
    uint64_t total = 0;
    for (uint32_t s = 0; s < NV_SEG_BINS_MAX; s++)
        total += b.live[s] ? b.count[s] : 0;
    assert_int_equal(total, N);
    /* every stored index names a live bin whose value is near the original:
     * 256 bins over 6 decades leave neighbours ~5.5 % apart, merged bins a
     * few times that */
    for (int i = 0; i < N; i++) {
        assert_true(b.live[col[i]]);
        double rel = fabs(b.value[col[i]] - val[i]) / val[i];
        assert_true(rel < 0.5);
    }
    /* the remap is exact: each bin's count equals the stored indices naming it */
    static uint64_t refs[NV_SEG_BINS_MAX];
    memset(refs, 0, sizeof refs);
    for (int i = 0; i < N; i++)
        refs[col[i]]++;
    for (uint32_t s = 0; s < NV_SEG_BINS_MAX; s++)
        assert_int_equal(refs[s], b.live[s] ? b.count[s] : 0);
}

static void equal_values_share_a_bin_and_weights_add(void **state)
{
    (void)state;
    nv_seg_bins b;
    uint16_t remap[NV_SEG_BINS_MAX];
    int merged;
    nv_seg_bins_init(&b, NV_SEG_GLOBAL_BINS);
    int a = nv_seg_bins_add(&b, 7, 3, remap, &merged);
    int c = nv_seg_bins_add(&b, 7, 2, remap, &merged);
    int z = nv_seg_bins_add(&b, 0, 1, remap, &merged);
    int nanslot = nv_seg_bins_add(&b, NAN, 1, remap, &merged);
    assert_int_equal(a, c);
    assert_int_equal(b.count[a], 5);
    assert_int_equal(z, nanslot); /* non-finite counts as 0 */
    assert_int_equal(nv_seg_bins_nearest(&b, 6.0), a);
    assert_int_equal(nv_seg_bins_nearest(&b, 0.0), z);
    assert_int_equal(nv_seg_bins_nearest(&b, 1e6), a);
    assert_int_equal(nv_seg_bins_init(&b, 1), -1);
    assert_int_equal(nv_seg_bins_init(&b, NV_SEG_BINS_MAX + 1), -1);
}

static void validate_rejects_corruption(void **state)
{
    (void)state;
    nv_seg_bins b;
    uint16_t remap[NV_SEG_BINS_MAX];
    int merged;
    nv_seg_bins_init(&b, 8);
    nv_seg_bins_add(&b, 1, 1, remap, &merged);
    nv_seg_bins_add(&b, 5, 1, remap, &merged);
    assert_int_equal(nv_seg_bins_validate(&b), 0);
    nv_seg_bins bad = b;
    bad.used = 9;
    assert_int_equal(nv_seg_bins_validate(&bad), -1);
    bad = b;
    bad.value[bad.order[0]] = 10; /* out of order */
    assert_int_equal(nv_seg_bins_validate(&bad), -1);
    bad = b;
    bad.value[bad.order[1]] = NAN;
    assert_int_equal(nv_seg_bins_validate(&bad), -1);
    bad = b;
    bad.order[1] = 600;
    assert_int_equal(nv_seg_bins_validate(&bad), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(merge_picks_the_closest_pair_and_remaps),
        cmocka_unit_test(stored_indices_stay_correct_through_many_merges),
        cmocka_unit_test(equal_values_share_a_bin_and_weights_add),
        cmocka_unit_test(validate_rejects_corruption),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
