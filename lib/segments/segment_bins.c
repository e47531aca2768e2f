/* segment_bins.c - bounded value quantizer with closest-pair merging. */
#include "segment_bins.h"

#include <math.h>
#include <string.h>

int nv_seg_bins_init(nv_seg_bins *b, uint32_t capacity)
{
    if (!b || capacity < 2 || capacity > NV_SEG_BINS_MAX)
        return -1;
    memset(b, 0, sizeof *b);
    b->capacity = capacity;
    return 0;
}

double nv_seg_rel_distance(double a, double b)
{
    double lo = fmin(fabs(a), fabs(b));
    if (lo < 1e-300)
        lo = 1e-300;
    double d = fabs(a - b) / lo;
    return isfinite(d) ? d : 1e300;
}

/* First position in order[] whose value is >= v. */
static uint32_t lower_bound(const nv_seg_bins *b, double v)
{
    uint32_t lo = 0, hi = b->used;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (b->value[b->order[mid]] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int nv_seg_bins_nearest(const nv_seg_bins *b, double v)
{
    if (!b || b->used == 0)
        return -1;
    uint32_t pos = lower_bound(b, v);
    if (pos == 0)
        return b->order[0];
    if (pos >= b->used)
        return b->order[b->used - 1];
    int below = b->order[pos - 1], above = b->order[pos];
    return nv_seg_rel_distance(b->value[below], v) <= nv_seg_rel_distance(b->value[above], v)
               ? below : above;
}

/* Merges closest neighbours until `target` bins are left; fills remap. */
static void merge_down(nv_seg_bins *b, uint32_t target, uint16_t *remap)
{
    for (uint32_t s = 0; s < NV_SEG_BINS_MAX; s++)
        remap[s] = (uint16_t)s;
    while (b->used > target && b->used >= 2) {
        uint32_t best = 0;
        double best_d = INFINITY;
        for (uint32_t i = 0; i + 1 < b->used; i++) {
            double d = nv_seg_rel_distance(b->value[b->order[i]], b->value[b->order[i + 1]]);
            if (d < best_d) {
                best_d = d;
                best = i;
            }
        }
        uint16_t keep = b->order[best], gone = b->order[best + 1];
        double ck = (double)b->count[keep], cg = (double)b->count[gone];
        double tot = ck + cg;
        /* weighted mean lies between the two, so the order stays sorted */
        if (tot > 0)
            b->value[keep] = (b->value[keep] * ck + b->value[gone] * cg) / tot;
        b->count[keep] += b->count[gone];
        b->count[gone] = 0;
        b->value[gone] = 0;
        b->live[gone] = 0;
        remap[gone] = keep;
        memmove(&b->order[best + 1], &b->order[best + 2],
                (size_t)(b->used - best - 2) * sizeof b->order[0]);
        b->used--;
    }
    /* resolve chains (a slot merged into a slot that was merged later) */
    for (uint32_t s = 0; s < NV_SEG_BINS_MAX; s++) {
        uint16_t t = remap[s];
        for (int guard = 0; remap[t] != t && guard < NV_SEG_BINS_MAX; guard++)
            t = remap[t];
        remap[s] = t;
    }
}

int nv_seg_bins_add(nv_seg_bins *b, double v, uint64_t weight, uint16_t *remap, int *merged)
{
    *merged = 0;
    if (!isfinite(v))
        v = 0;
    if (b->used > 0) {
        int near = nv_seg_bins_nearest(b, v);
        if (b->value[near] == v || nv_seg_rel_distance(b->value[near], v) <= NV_SEG_BIN_SNAP) {
            b->count[near] += weight;
            return near;
        }
    }
    if (b->used >= b->capacity) {
        merge_down(b, b->capacity - b->capacity / 4 - 1, remap);
        *merged = 1;
    }
    uint32_t slot = 0;
    while (slot < b->capacity && b->live[slot])
        slot++;
    if (slot >= b->capacity) /* cannot happen after merge_down; stay safe */
        return nv_seg_bins_nearest(b, v);
    uint32_t pos = lower_bound(b, v);
    memmove(&b->order[pos + 1], &b->order[pos], (size_t)(b->used - pos) * sizeof b->order[0]);
    b->order[pos] = (uint16_t)slot;
    b->value[slot] = v;
    b->count[slot] = weight;
    b->live[slot] = 1;
    b->used++;
    return (int)slot;
}

int nv_seg_bins_validate(const nv_seg_bins *b)
{
    if (b->capacity < 2 || b->capacity > NV_SEG_BINS_MAX || b->used > b->capacity)
        return -1;
    uint32_t nlive = 0;
    for (uint32_t s = 0; s < NV_SEG_BINS_MAX; s++) {
        if (b->live[s] > 1 || (b->live[s] && s >= b->capacity))
            return -1;
        if (b->live[s]) {
            nlive++;
            if (!isfinite(b->value[s]))
                return -1;
        }
    }
    if (nlive != b->used)
        return -1;
    for (uint32_t i = 0; i < b->used; i++) {
        if (b->order[i] >= b->capacity || !b->live[b->order[i]])
            return -1;
        if (i > 0 && b->value[b->order[i - 1]] > b->value[b->order[i]])
            return -1;
    }
    return 0;
}
