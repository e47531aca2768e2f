/* diagnose_mapping.h - mapping metrics of a job's placement from its
 * traffic matrix on a tree topology (node -> leaf switch -> group/parent
 * switch -> top): hop-bytes (sum of bytes x links crossed) and the
 * Hoefler-Snir worst-case link load (max over links of the bytes routed
 * through it, over its capacity when the capacities are known).  Routing is
 * the tree's unique up-down path: same node 0 links, same leaf 2, same
 * group 4, otherwise 6. */
#ifndef NETVAR_DIAGNOSE_MAPPING_H
#define NETVAR_DIAGNOSE_MAPPING_H

#include <stddef.h>

#define NV_MAPPING_MAX_RANKS 4096

/* Where a rank runs: dense ids (0..) of its node, leaf switch and group. */
typedef struct nv_rank_place {
    unsigned node, leaf, group;
} nv_rank_place;

/* Link capacities in bytes/s per level (<= 0 = unknown: loads stay in bytes). */
typedef struct nv_link_rates {
    double node_Bps, leaf_up_Bps, group_up_Bps;
} nv_link_rates;

typedef struct nv_mapping_metrics {
    double total_bytes;
    double hop_bytes;          /* bytes x links */
    double mean_hops;          /* hop_bytes / total_bytes (bytes-weighted) */
    double worst_link_bytes;   /* bytes through the most loaded link */
    double worst_link_seconds; /* its bytes / capacity (NAN when rates unknown) */
    char worst_link[64];       /* "node 3 up", "leaf 1 down", "group 0 up" */
} nv_mapping_metrics;

/* bytes: nranks x nranks, row = sender, column = receiver (bytes).
 * Returns 0, or -1 with err (too many ranks, negative or non-finite bytes,
 * out of memory). */
int nv_mapping_metrics_compute(const nv_rank_place *place, size_t nranks, const double *bytes,
                               const nv_link_rates *rates, nv_mapping_metrics *out, char *err,
                               size_t errlen);

#endif
