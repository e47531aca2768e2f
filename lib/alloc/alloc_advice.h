/* alloc_advice.h - node-count advice from predicted communication time
 * (docs/DESIGN.md, "Allocation advice").  For each candidate N in what the
 * user allowed and the cluster holds, at the given ranks per node and on the
 * placement Slurm's topology/tree is likely to give (nv_alloc_layout_pack):
 *
 *   T(N) = (compute_core_s / P + phases x comm(N, PPN, placement))
 *          x (1 + x/100 when the placement spans more than one switch)
 *
 * with comm from the section's trees for the best class available, and x
 * the interference predicted beside the running jobs (the queue model's
 * answer).  The shared uplink is where a neighbour's traffic meets the job:
 * a placement inside one leaf does not pay it (on the network lab, load
 * inside one leaf changed nothing).  Pure; allocates nothing. */
#ifndef NETVAR_ALLOC_ADVICE_H
#define NETVAR_ALLOC_ADVICE_H

#include <stdbool.h>
#include <stdint.h>

#include "alloc_model.h"

#define NV_ALLOC_ADVICE_CANDIDATES 6 /* node counts evaluated at most */

typedef struct nv_alloc_query {
    const char *app;         /* app key */
    uint32_t min_nodes;      /* 0: not given */
    uint32_t max_nodes;      /* 0: not given (only min_nodes, or 1, is allowed) */
    uint32_t ppn;            /* ranks per node (0: 1, Slurm's default) */
    double interference_pct; /* predicted slowdown beside running jobs, % (NAN: none) */
} nv_alloc_query;

typedef struct nv_alloc_candidate {
    uint32_t nodes, switches;
    double comm_s; /* per run */
    double time_s; /* predicted runtime */
} nv_alloc_candidate;

typedef struct nv_alloc_advice {
    bool ok;
    nv_alloc_class cls;                  /* predictor class used */
    const nv_alloc_predictor *predictor; /* its source and samples */
    const nv_alloc_app *app;             /* the profile used (its source) */
    uint32_t ppn;
    uint32_t cap_nodes;          /* most nodes the advice could give */
    bool capped;                 /* the user's range went beyond the cluster */
    nv_alloc_candidate best;     /* the fastest candidate */
    nv_alloc_candidate compared; /* the smallest count allowed (what the user asked
                                   * for) when it is not the best, else the slowest */
    size_t n_candidates;
    double margin_pct;   /* (compared - best) / compared time, % */
    const char *why_not; /* when !ok: one phrase */
} nv_alloc_advice;

/* Fills *out.  Returns 0 when advice was found, else -1 with out->why_not. */
int nv_alloc_advise(const nv_alloc_model *m, const nv_alloc_query *q, nv_alloc_advice *out);

/* Predicted runtime of app a at N x PPN on the likely placement (no
 * interference); 0 and *c, or -1. */
int nv_alloc_predict_run(const nv_alloc_model *m, nv_alloc_class cls, const nv_alloc_app *a,
                         uint32_t nodes, uint32_t ppn, nv_alloc_candidate *c,
                         const nv_alloc_predictor **which);

#endif
