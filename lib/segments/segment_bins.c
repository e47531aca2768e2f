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
               ? below
               : above;
}

/* merge_down's candidate pairs: the live bins at sorted positions l and
 * next[l], d their relative distance.  A pair whose left bin changed value
 * or right neighbour since it was pushed is stale (ver differs) and is
 * skipped when popped. */
struct pair_entry {
    double d;
    uint16_t l;
    uint32_t ver;
};

/* the scan's order: the smallest distance, then the leftmost pair */
static int pair_before(const struct pair_entry *a, const struct pair_entry *b)
{
    return a->d < b->d || (a->d == b->d && a->l < b->l);
}

/* every pair once, then two per merge: at most 3 x NV_SEG_BINS_MAX */
struct pair_heap {
    struct pair_entry e[3 * NV_SEG_BINS_MAX];
    uint32_t n;
};

static void heap_push(struct pair_heap *h, struct pair_entry x)
{
    uint32_t i = h->n++;
    while (i > 0 && pair_before(&x, &h->e[(i - 1) / 2])) {
        h->e[i] = h->e[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->e[i] = x;
}

/* moves x down from position i to its place */
static void heap_sift_down(struct pair_heap *h, uint32_t i, struct pair_entry x)
{
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && pair_before(&h->e[c + 1], &h->e[c]))
            c++;
        if (!pair_before(&h->e[c], &x))
            break;
        h->e[i] = h->e[c];
        i = c;
    }
    h->e[i] = x;
}

static struct pair_entry heap_pop(struct pair_heap *h)
{
    struct pair_entry top = h->e[0], x = h->e[--h->n];
    if (h->n)
        heap_sift_down(h, 0, x);
    return top;
}

/* Merges closest neighbours until `target` bins are left; fills remap.
 * The same greedy choice as scanning every neighbour pair per merge (the
 * smallest relative distance, the leftmost on a tie), in O(n log n) for a
 * batch: the pairs sit in a heap, and a merge changes only the two pairs
 * next to it. */
static void merge_down(nv_seg_bins *b, uint32_t target, uint16_t *remap)
{
    for (uint32_t s = 0; s < NV_SEG_BINS_MAX; s++)
        remap[s] = (uint16_t)s;
    uint32_t n = b->used;
    if (n <= target || n < 2)
        return;
    /* positions 0..n-1 in sorted order, linked while bins merge away */
    uint16_t prev[NV_SEG_BINS_MAX], next[NV_SEG_BINS_MAX];
    uint32_t ver[NV_SEG_BINS_MAX];
    uint8_t gone_pos[NV_SEG_BINS_MAX];
    struct pair_heap h; /* 24 KiB of stack, only while merging */
    h.n = 0;
    for (uint32_t i = 0; i < n; i++) {
        prev[i] = (uint16_t)(i ? i - 1 : UINT16_MAX);
        next[i] = (uint16_t)(i + 1 < n ? i + 1 : UINT16_MAX);
        ver[i] = 0;
        gone_pos[i] = 0;
        if (i + 1 < n)
            h.e[h.n++] = (struct pair_entry){
                nv_seg_rel_distance(b->value[b->order[i]], b->value[b->order[i + 1]]), (uint16_t)i,
                0};
    }
    for (uint32_t i = h.n / 2; i-- > 0;) /* heapify in O(n) */
        heap_sift_down(&h, i, h.e[i]);
    uint32_t used = n;
    while (used > target && used >= 2 && h.n) {
        struct pair_entry p = heap_pop(&h);
        if (gone_pos[p.l] || p.ver != ver[p.l] || next[p.l] == UINT16_MAX)
            continue;
        uint16_t l = p.l, r = next[p.l];
        uint16_t keep = b->order[l], gone = b->order[r];
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
        gone_pos[r] = 1;
        next[l] = next[r];
        if (next[r] != UINT16_MAX)
            prev[next[r]] = l;
        used--;
        /* the two pairs around the merged bin changed */
        ver[l]++;
        if (next[l] != UINT16_MAX)
            heap_push(&h, (struct pair_entry){
                              nv_seg_rel_distance(b->value[keep], b->value[b->order[next[l]]]), l,
                              ver[l]});
        if (prev[l] != UINT16_MAX) {
            uint16_t q = prev[l];
            ver[q]++;
            heap_push(
                &h, (struct pair_entry){nv_seg_rel_distance(b->value[b->order[q]], b->value[keep]),
                                        q, ver[q]});
        }
    }
    /* the surviving positions, in order */
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!gone_pos[i])
            b->order[k++] = b->order[i];
    b->used = k;
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
    const uint8_t *free_slot = memchr(b->live, 0, b->capacity);
    if (!free_slot) /* cannot happen after merge_down; stay safe */
        return nv_seg_bins_nearest(b, v);
    uint32_t slot = (uint32_t)(free_slot - b->live);
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
