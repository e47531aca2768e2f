/* alloc_features.h - the features of *Communication time prediction* §3.3
 * for one communication phase of an app at N nodes x PPN ranks per node on
 * one placement, in three predictor classes (§4.3):
 *
 *   A  app profile and allocation size: N, PPN, message sizes, messages
 *   B  + mapping: node traffic and injection, intranode traffic, volumes
 *   C  + topology: switches and groups spanned, traffic through a switch,
 *      leaving a switch (the uplink) and leaving a group, and the uplink's
 *      load in units of one node link (the bottleneck on the paths)
 *
 * Two ways to the same numbers:
 *  - nv_alloc_features_pattern(): closed form from a *pattern* (every rank r
 *    sends m messages of s bytes to rank (r + d) mod P per phase, for up to
 *    NV_ALLOC_PATTERN_MAX offsets d) and a *layout* (how many nodes on each
 *    switch, switches in group order, ranks placed in blocks of PPN as
 *    Slurm's default block distribution does).  No allocation, O(offsets x
 *    switches): what job_submit computes for hypothetical placements.
 *  - nv_alloc_features_matrix(): by enumeration from a recorded rank-to-rank
 *    matrix (bytes and messages) and the placement that ran (rank -> node,
 *    node -> switch, switch -> group).  For a pattern's matrix on a block
 *    placement the two agree exactly (unit-tested).
 *
 * All traffic is per phase (one iteration of the app's communication),
 * bytes and messages; self-messages are not traffic. */
#ifndef NETVAR_ALLOC_FEATURES_H
#define NETVAR_ALLOC_FEATURES_H

#include <stddef.h>
#include <stdint.h>

#define NV_ALLOC_PATTERN_MAX 16    /* offsets in a pattern */
#define NV_ALLOC_SWITCHES_MAX 1024 /* switches in a layout */
#define NV_ALLOC_MAX_RANKS 65536u  /* P = N x PPN */

enum nv_alloc_feature {
    /* class A */
    NV_AF_N = 0,
    NV_AF_PPN,
    NV_AF_MIN_S,
    NV_AF_MAX_S,
    NV_AF_AVG_M,
    /* class B */
    NV_AF_AVG_NT,
    NV_AF_MAX_NT,
    NV_AF_AVG_NI,
    NV_AF_MAX_NI,
    NV_AF_MAX_INT,
    NV_AF_MAX_INI,
    NV_AF_V,
    NV_AF_VI,
    /* class C */
    NV_AF_SWITCHES,
    NV_AF_GROUPS,
    NV_AF_AVG_NSW,
    NV_AF_MAX_ST,
    NV_AF_MAX_INTRA_ST,
    NV_AF_MAX_INTER_ST,
    NV_AF_AVG_INTER_ST,
    NV_AF_MAX_INTER_GT,
    NV_AF_UPLINK_LOAD,
    NV_AF_COUNT
};

/* The last feature of each class + 1: class A uses [0, NV_AF_CLASS_A_END). */
#define NV_AF_CLASS_A_END NV_AF_AVG_NT
#define NV_AF_CLASS_B_END NV_AF_SWITCHES
#define NV_AF_CLASS_C_END NV_AF_COUNT

typedef enum nv_alloc_class {
    NV_ALLOC_CLASS_A = 0,
    NV_ALLOC_CLASS_B,
    NV_ALLOC_CLASS_C,
    NV_ALLOC_CLASSES
} nv_alloc_class;

/* Short name of feature i as in the paper ("N", "avgNT", "maxInterST", ...),
 * or NULL out of range; its unit ("nodes", "bytes", "messages", "ratio"). */
const char *nv_alloc_feature_name(int i);
const char *nv_alloc_feature_unit(int i);
/* Features a class uses (a prefix of the table), and "A", "B", "C". */
int nv_alloc_class_features(nv_alloc_class c);
const char *nv_alloc_class_name(nv_alloc_class c);
/* 0 and *c for "A"/"B"/"C" (case-insensitive), else -1. */
int nv_alloc_class_parse(const char *s, nv_alloc_class *c);

typedef struct nv_alloc_offset {
    int32_t offset;  /* destination rank = (r + offset) mod P; nonzero */
    double bytes;    /* per message, > 0 */
    double messages; /* per rank per phase, > 0 */
} nv_alloc_offset;

typedef struct nv_alloc_pattern {
    size_t n;
    nv_alloc_offset o[NV_ALLOC_PATTERN_MAX];
} nv_alloc_pattern;

/* Where N nodes sit: nodes[j] of them on switch j (>= 1 each), switches in
 * group order (group[j] non-decreasing), ranks in blocks of PPN per node,
 * nodes filled switch by switch. */
typedef struct nv_alloc_layout {
    size_t n_switches;
    uint32_t nodes[NV_ALLOC_SWITCHES_MAX];
    uint32_t group[NV_ALLOC_SWITCHES_MAX];
} nv_alloc_layout;

/* Features of pattern on layout with ppn ranks per node, into x[NV_AF_COUNT].
 * Returns 0, or -1 (empty or unsorted layout, a switch without nodes,
 * P > NV_ALLOC_MAX_RANKS, an invalid pattern entry).  Allocates nothing. */
int nv_alloc_features_pattern(const nv_alloc_pattern *p, const nv_alloc_layout *l, uint32_t ppn,
                              double *x);

/* The same from a recorded phase: bytes[r*P + q] and msgs[r*P + q] sent by
 * rank r to rank q; node_of[r], switch_of[node], group_of[switch] dense ids
 * (< P each).  Returns 0, or -1 (P = 0 or > NV_ALLOC_MAX_RANKS, an id out of
 * range, a negative or non-finite entry, out of memory). */
int nv_alloc_features_matrix(const double *bytes, const double *msgs, uint32_t nranks,
                             const uint32_t *node_of, const uint32_t *switch_of,
                             const uint32_t *group_of, double *x);

/* Summarises a recorded matrix (P ranks) as a pattern: bytes and messages
 * summed per cyclic offset over all ranks, divided by P, the offsets with
 * the most bytes kept (at most NV_ALLOC_PATTERN_MAX, signed within
 * (-P/2, P/2]).  msgs may be NULL (one message per nonzero entry).
 * Returns the share of the bytes the kept offsets carry (0..1), or -1. */
double nv_alloc_pattern_from_matrix(const double *bytes, const double *msgs, uint32_t nranks,
                                    nv_alloc_pattern *out);

/* A d-dimensional halo (d = 1..3) of P ranks on MPI_Dims_create's grid:
 * offsets +-1, +-px, +-px*py, each face_bytes per message, one message per
 * neighbour per phase; grids thinner than 3 in a dimension keep one
 * neighbour there.  Returns 0, or -1 for bad arguments. */
int nv_alloc_pattern_halo(uint32_t nranks, int dims, double face_bytes, nv_alloc_pattern *out);

/* The layout Slurm's topology/tree packs N nodes into when switches hold
 * cap[j] free nodes each (best fit: the fewest switches, the emptiest
 * switches avoided): fills out, returns 0, or -1 when they do not fit.
 * group[j] as for the layout; switches are taken in group order. */
int nv_alloc_layout_pack(uint32_t nodes, const uint32_t *cap, const uint32_t *group,
                         size_t n_switches, nv_alloc_layout *out);

#endif
