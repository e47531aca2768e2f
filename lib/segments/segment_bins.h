/* segment_bins.h - the value quantizer of segment profiles (*Single-run interference estimate* §2):
 * each metric keeps at most `capacity` bins (256 per rank, 512 program
 * wide); a segment stores a bin index, never the raw value.
 *
 * Bins live in stable slots.  When a new value would need one bin more than
 * the capacity, the two closest bins (by relative distance, so small and
 * large values are treated alike) are merged into their count-weighted
 * mean, repeatedly, down to 3/4 of the capacity; the caller receives a
 * remap table (old slot -> surviving slot) and rewrites its stored indices
 * once.  Merging in a batch keeps the rewrite pass rare, so the cost per
 * recorded segment stays small.  The struct has a fixed layout: the
 * profiler keeps it inside a memory-mapped per-rank file. */
#ifndef NETVAR_SEGMENT_BINS_H
#define NETVAR_SEGMENT_BINS_H

#include <stdint.h>
#include <stddef.h>

#define NV_SEG_BINS_MAX 512
#define NV_SEG_RANK_BINS 256   /* per process (seed: 256) */
#define NV_SEG_GLOBAL_BINS 512 /* program wide (seed: 512) */

/* Values whose relative distance to an existing bin is at most this are
 * counted in that bin without creating a new one (quantization step far
 * below the 10 % clustering threshold). */
#define NV_SEG_BIN_SNAP 1e-4

typedef struct nv_seg_bins {
    uint32_t capacity;               /* 2..NV_SEG_BINS_MAX */
    uint32_t used;                   /* live bins */
    double value[NV_SEG_BINS_MAX];   /* by slot */
    uint64_t count[NV_SEG_BINS_MAX]; /* samples folded into the slot */
    uint16_t order[NV_SEG_BINS_MAX]; /* live slots sorted by value (first `used`) */
    uint8_t live[NV_SEG_BINS_MAX];
} nv_seg_bins;

/* 0 ok, -1 when capacity is out of 2..NV_SEG_BINS_MAX. */
int nv_seg_bins_init(nv_seg_bins *b, uint32_t capacity);

/* Relative distance |a-b| / min(|a|,|b|); a zero side counts as 1e-300 so
 * the result stays finite and ordered. */
double nv_seg_rel_distance(double a, double b);

/* Adds `weight` samples of value v (non-finite values count as 0) and
 * returns the slot holding them.  If bins had to be merged first, *merged
 * is set to 1 and remap[slot] gives every old slot's surviving slot (the
 * caller must rewrite stored indices); otherwise *merged is 0 and remap is
 * untouched.  remap must hold NV_SEG_BINS_MAX entries. */
int nv_seg_bins_add(nv_seg_bins *b, double v, uint64_t weight, uint16_t *remap, int *merged);

/* Slot of the live bin nearest to v (relative distance); -1 when empty. */
int nv_seg_bins_nearest(const nv_seg_bins *b, double v);

/* Checks the invariants (a file from disk may be corrupt): 0 ok, -1 bad. */
int nv_seg_bins_validate(const nv_seg_bins *b);

#endif
