/* predict.h - predicted slowdown of app A beside neighbours B[,C...]
 * (*Queue-theory interference model* sections 4-5; docs/DESIGN.md 4.4-4.5).
 *
 * Order of answers:
 *  1. exactly one neighbour and the co-location table holds (A, B) with at
 *     least min_samples samples: the table's measured mean (source "table");
 *  2. otherwise the selected predictor (source "model:<name>"):
 *     queue           the bottleneck physics (model_bottleneck.c): the mean
 *                     of p_A over U(t) = idle + the neighbours' excess over
 *                     idle, each neighbour's U(t) from its utilization
 *                     profile (or its mean U), p_A anchored at (idle, 0 %)
 *                     and read at its own top beyond it; plus the history
 *                     corrections (A's sensitivity, each neighbour's
 *                     pressure) fitted on the co-location table at load
 *                     (source "model:queue+history" when they are not 0);
 *                     an app without a campaign curve whose curves were
 *                     composed at load from its signature and the fabric
 *                     response (fabric.h) answers the same way, source
 *                     "model:profile" (or "model:profile+history");
 *     averagelt,
 *     averagestdevlt,
 *     pdflt           each neighbour is mapped to its training configuration
 *                     by the rule (chosen once at load: it depends on the
 *                     neighbour only); with one neighbour A's measured
 *                     slowdown under that configuration is the answer; with
 *                     several, their configurations' utilizations are added
 *                     and the configuration whose U is
 *                     nearest that sum is used.  If A was never measured
 *                     under it, A's curve p_A at that configuration's U
 *                     answers and curve_fallback is set.
 * Predictions are asymmetric: A beside B is not B beside A.
 * Thread-safe (the model is immutable), allocation-free, no syscalls. */
#ifndef NETVAR_PREDICT_H
#define NETVAR_PREDICT_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

typedef enum nv_predictor {
    NV_PREDICT_QUEUE = 0,
    NV_PREDICT_AVERAGE_LT = 1,
    NV_PREDICT_AVERAGE_STDEV_LT = 2,
    NV_PREDICT_PDF_LT = 3,
} nv_predictor;
#define NV_PREDICTOR_COUNT 4

/* "queue", "averagelt", "averagestdevlt", "pdflt" (case-insensitive on input). */
const char *nv_predictor_name(nv_predictor p);
int nv_predictor_from_name(const char *name, nv_predictor *out); /* 0 or -1 */

typedef enum nv_source { NV_SOURCE_TABLE = 0, NV_SOURCE_MODEL = 1 } nv_source;

/* Answers the paths decide, before any predictor: the model's bottleneck
 * is a port between switches (a leaf switch's uplink, the lab's one uplink,
 * an Aries network tile), and a job whose nodes all lie under one leaf
 * switch sends nothing through such a port: traffic between nodes under
 * one leaf is switched there.  So it shares no bottleneck port with any
 * job, and the slowdown either way is 0 %, named by one of these sources.
 * (A job on one node sends nothing through any switch.)  What the model
 * does not see stays out: storage traffic and jobs that share a node.
 * Two jobs that both span leaf switches load the uplinks of their own
 * leaves, and a non-blocking core above them: when their leaf sets are
 * disjoint they share no uplink either (NV_PATH_SOURCE_APART).  Deeper
 * trees' higher links are not modelled. */
#define NV_PATH_SOURCE_LOCAL "path: under one leaf switch"
#define NV_PATH_SOURCE_ONE_NODE "path: one node"
#define NV_PATH_SOURCE_APART "path: no shared uplink"

#define NV_DEFAULT_MIN_SAMPLES 3u
#define NV_PRED_DETAIL 16   /* neighbours whose utilization is echoed back */
#define NV_PRED_MAX_WITH 64 /* neighbours the queue physics adds up (the rest are ignored) */

typedef struct nv_prediction {
    double slowdown_pct; /* predicted slowdown of A, percent */
    nv_source source;
    nv_predictor predictor;   /* the predictor asked for */
    const char *source_label; /* "table" or "model:<predictor>" (static) */
    const char *app;          /* A's key (model-owned) */
    size_t n_with;
    double with_utilization[NV_PRED_DETAIL]; /* U of the first neighbours */
    double utilization_sum;                  /* sum of the neighbours' mean U */
    double utilization_used;                 /* U the answer was read at (queue: the mean
                                   U(t) over the profiles; lookup: the chosen
                                   configuration's U) */
    int capped;                              /* 1 when U went beyond the curve's top point
                                   (queue) or the training set's (lookup) */
    double physics_pct;                      /* queue: the physics alone, before corrections */
    double correction_pp;                    /* queue: what the sensitivity and pressure factors
                                   add to the physics, percentage points */
    uint32_t history_samples;                /* table samples behind the corrections */
    const char *mechanism;                   /* queue: which mechanism answered: "queue-wait"
                                   (A's curve against the queue wait, read over
                                   the neighbours' wait profiles),
                                   "bandwidth-share" (the share a queue-free
                                   neighbour takes: A's own mean U times p_A(U)),
                                   the larger of the two; or "utilization"
                                   (p_A(U) alone, without a queue gauge); "" else */
    double wait_used_us;                     /* queue: the mean summed wait read, us (NAN
                                   without a queue gauge) */
    double wait_pct;        /* queue: the queueing mechanism's answer, NAN without it */
    double share_pct;       /* queue: the bandwidth share's answer, NAN without it */
    int32_t config;         /* chosen training configuration, -1 if none */
    const char *config_id;  /* its id, or "" */
    int curve_fallback;     /* lookup answered from p_A (A unmeasured there) */
    uint32_t table_samples; /* table entry for (A, B), 0 if none */
    double table_sd_pct;
    /* where the answer comes from, for the user: the curve A's answer was
     * read on ("campaign", "production", "profile": composed from A's
     * signature and the fabric response, source "model:profile"; "" for
     * the table), and the runs behind the answer (the table's samples, the
     * campaign points' samples, or the profiled runs) */
    const char *curve;
    uint32_t runs;
} nv_prediction;

typedef enum nv_predict_status {
    NV_PRED_OK = 0,
    NV_PRED_EINVAL = -1,        /* bad argument (NULL, no neighbours, bad predictor) */
    NV_PRED_EUNKNOWN_APP = -2,  /* A is not in the model */
    NV_PRED_EUNKNOWN_WITH = -3, /* a neighbour is not in the model */
    NV_PRED_ENODATA = -4,       /* A has no curve / no training data to answer */
} nv_predict_status;

const char *nv_predict_strerror(int status);

/* Predict by keys.  On NV_PRED_EUNKNOWN_WITH, *bad_with (if not NULL) is
 * the position of the first unknown neighbour. */
int nv_predict(const nv_model *m, const char *app, const char *const *with, size_t n_with,
               nv_predictor predictor, uint32_t min_samples, nv_prediction *out, size_t *bad_with);

/* Predict by app indexes (from nv_model_app_index), for callers that
 * resolve keys once (job_submit).  The answer (slowdown_pct, source,
 * mechanism, capped) is nv_predict's; the queue route computes the losing
 * mechanism's figure only when a bound says it could win, so share_pct and
 * utilization_used are NAN when the queueing answer wins outright. */
int nv_predict_idx(const nv_model *m, int32_t app, const int32_t *with, size_t n_with,
                   nv_predictor predictor, uint32_t min_samples, nv_prediction *out);

/* job_submit's loop over running apps: nv_predict_idx's slowdown_pct for
 * app beside one neighbour, and nothing else (no nv_prediction is filled,
 * so a pair costs its arithmetic only), or NAN where nv_predict_idx would
 * fail or answer NAN.  The same number, bit for bit (a unit test holds them
 * equal over every pair of its models).  Allocation-free. */
double nv_predict_pair_pct(const nv_model *m, int32_t app, int32_t with, nv_predictor predictor,
                           uint32_t min_samples);

#endif
