/* advice.h - allocation advice (docs/DESIGN.md, the submission decision): the node count
 * N in the user's limits that minimizes the predicted time
 *     T(N) * (1 + slowdown(N) / 100)
 * where T(N) comes from the app's measured scaling points and slowdown(N)
 * is the predicted interference at that placement.  Pure, allocation-free. */
#ifndef NETVAR_ADVICE_H
#define NETVAR_ADVICE_H

#include <stddef.h>
#include <stdint.h>

/* Widest [min_nodes, max_nodes] range the advice scans. */
#define NV_ADVICE_MAX_RANGE 1048576u

typedef struct nv_scaling_point {
    uint32_t nodes;          /* node count, >= 1 */
    double median_runtime_s; /* median runtime alone at that size, s, > 0 */
    uint32_t count;          /* runs behind the median */
} nv_scaling_point;

typedef struct nv_advice {
    uint32_t best_nodes;     /* N minimizing the predicted time */
    double best_time_s;      /* its predicted time, s */
    int requested_known;     /* 1 when the requested N lies within the scaling data */
    double requested_time_s; /* predicted time at the requested N, s (0 if unknown) */
    double saving_s;         /* requested_time_s - best_time_s (0 if unknown) */
    double saving_pct;       /* saving_s / requested_time_s * 100 (0 if unknown) */
} nv_advice;

/* Runtime alone at N nodes: log-log interpolation between the scaling
 * points (sorted by strictly increasing nodes), which is exact for power-law
 * scaling T = a*N^-b.  No extrapolation: returns -1 when N lies outside
 * [first, last] nodes or the points are invalid, else 0 with *t_s set. */
int nv_scaling_time_s(const nv_scaling_point *pts, size_t n, uint32_t nodes, double *t_s);

/* Choose N in [min_nodes, max_nodes] (intersected with the scaling data's
 * range).  slowdown_pct[N - min_nodes] is the predicted slowdown at N (%,
 * may be NULL for none; non-finite or < -100 entries are skipped).  Ties go
 * to the smaller N (fewer nodes for the same time).  Returns 0, or -1 when
 * the points are invalid (unsorted, duplicate or non-positive), the range
 * is empty, wider than NV_ADVICE_MAX_RANGE, or misses the scaling data. */
int nv_advise_nodes(const nv_scaling_point *pts, size_t n, uint32_t min_nodes, uint32_t max_nodes,
                    uint32_t requested_nodes, const double *slowdown_pct, nv_advice *out);

#endif
