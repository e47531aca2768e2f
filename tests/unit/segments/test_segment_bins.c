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

/* The batch merge is a heap over neighbour pairs; it must choose exactly
 * what scanning every pair per merge chooses (the smallest relative
 * distance, the leftmost on a tie).  The scan is kept here as the
 * reference, on sorted values with many exact ties. */
static void ref_merge(double *val, uint64_t *cnt, uint32_t *n, uint32_t target)
{
    while (*n > target && *n >= 2) {
        uint32_t best = 0;
        double best_d = INFINITY;
        for (uint32_t i = 0; i + 1 < *n; i++) {
            double d = nv_seg_rel_distance(val[i], val[i + 1]);
            if (d < best_d) {
                best_d = d;
                best = i;
            }
        }
        double ck = (double)cnt[best], cg = (double)cnt[best + 1], tot = ck + cg;
        if (tot > 0)
            val[best] = (val[best] * ck + val[best + 1] * cg) / tot;
        cnt[best] += cnt[best + 1];
        memmove(&val[best + 1], &val[best + 2], (*n - best - 2) * sizeof *val);
        memmove(&cnt[best + 1], &cnt[best + 2], (*n - best - 2) * sizeof *cnt);
        (*n)--;
    }
}

static void batch_merge_matches_the_pairwise_scan(void **state)
{
    (void)state;
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (int round = 0; round < 40; round++) {
        uint32_t cap = round % 2 ? 256 : 2 + (uint32_t)round * 7;
        nv_seg_bins b;
        assert_int_equal(nv_seg_bins_init(&b, cap), 0);
        uint16_t remap[NV_SEG_BINS_MAX];
        double val[NV_SEG_BINS_MAX + 1];
        uint64_t cnt[NV_SEG_BINS_MAX + 1];
        uint32_t n = 0;
        for (int k = 0; k < 3000; k++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            /* a few decades; every third round powers of two, whose
             * neighbours are all exactly 1 apart: every pair ties */
            double v =
                round % 3 ? exp((double)(x % 100000) / 1e4) : ldexp(1.0, (int)(x % 600) - 300);
            uint64_t w = 1 + x % 3;
            int merged;
            nv_seg_bins_add(&b, v, w, remap, &merged);
            /* the reference, step for step */
            int snapped = 0;
            for (uint32_t i = 0; i < n && !snapped; i++)
                if (val[i] == v || nv_seg_rel_distance(val[i], v) <= NV_SEG_BIN_SNAP) {
                    /* the quantizer snaps to its nearest; with the snap far below
                     * any gap here the nearest is the only one within reach */
                    cnt[i] += w;
                    snapped = 1;
                }
            if (snapped)
                continue;
            if (n >= cap)
                ref_merge(val, cnt, &n, cap - cap / 4 - 1);
            uint32_t pos = 0;
            while (pos < n && val[pos] < v)
                pos++;
            memmove(&val[pos + 1], &val[pos], (n - pos) * sizeof *val);
            memmove(&cnt[pos + 1], &cnt[pos], (n - pos) * sizeof *cnt);
            val[pos] = v;
            cnt[pos] = w;
            n++;
        }
        assert_int_equal(nv_seg_bins_validate(&b), 0);
        assert_int_equal(b.used, n);
        for (uint32_t i = 0; i < n; i++) {
            if (b.value[b.order[i]] != val[i] || b.count[b.order[i]] != cnt[i])
                fail_msg("round %d (capacity %u): bin %u is %.17g x %llu, the scan gives "
                         "%.17g x %llu",
                         round, cap, i, b.value[b.order[i]],
                         (unsigned long long)b.count[b.order[i]], val[i],
                         (unsigned long long)cnt[i]);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(merge_picks_the_closest_pair_and_remaps),
        cmocka_unit_test(stored_indices_stay_correct_through_many_merges),
        cmocka_unit_test(equal_values_share_a_bin_and_weights_add),
        cmocka_unit_test(validate_rejects_corruption),
        cmocka_unit_test(batch_merge_matches_the_pairwise_scan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
