/* report_logic.h - the pure parts of `netvar report`: which segments of a
 * profile were interfered (for the "Single-run interference estimate" Fig. 2 plot), the job's netvar
 * annotation read back from its record, and the predicted pair slowdowns
 * among running jobs (for --cluster).  No I/O. */
#ifndef NETVAR_REPORT_LOGIC_H
#define NETVAR_REPORT_LOGIC_H

#include <stddef.h>
#include <stdint.h>

#include <json.h>

#include "model.h"
#include "predict.h"
#include "segment_estimate.h"

/* Per segment: 1 when it is slower than median + mad_factor*MAD of its
 * group (same work cluster and signature, groups of >= min_group only), as
 * nv_seg_estimate_run() decides.  Returns the number flagged, or -1 on bad
 * arguments or allocation failure. */
long nv_report_segment_flags(const double *work, const double *time_us, const uint32_t *sig,
                             size_t n, const nv_seg_estimate_opts *o, unsigned char *interfered);

/* What job_submit decided at submission, as recorded. */
typedef struct nv_report_annotation {
    int recorded;          /* 0: the record holds no annotation */
    double own_pct;        /* predicted own slowdown, NAN when absent */
    double inflicted_pct;  /* NAN when absent */
    unsigned advice_nodes; /* 0 when no advice */
    char source[32];       /* "table", "model:queue", or "" */
    char action[32];       /* policy action, or "" */
    char mode[16];
    char against_app[NV_MODEL_KEY_MAX + 1]; /* the neighbour app own_pct was against; "" */
    int64_t against_job; /* a running job of it at submission; 0 when not recorded */
    /* own_pct was beside the sum of vs_n running jobs (0: not recorded), at
     * the worst of vs_uplinks uplinks (0: placement unknown); single_pct
     * the worst single neighbour's answer (NAN when not recorded) */
    unsigned vs_n, vs_uplinks;
    double single_pct;
} nv_report_annotation;

/* Reads the annotation from a job record: its "annotation" field (the
 * "netvar:{...}" text job_submit wrote, or that JSON object), or a
 * "comment" field holding it.  Returns 0 (out->recorded says whether one
 * was found), or -1 with err when one is present but malformed. */
int nv_report_annotation_from_record(json_object *rec, nv_report_annotation *out, char *err,
                                     size_t errlen);

/* Whether the recorded action changed where or whether the job ran beside
 * the jobs its prediction was for (deny, hold, isolate, contain, avoid):
 * then the prediction is for the placement the action prevented, and its
 * difference from the observed slowdown is no prediction error.  message,
 * annotate and resize (the node count, not the neighbours) do not. */
int nv_report_action_moved(const nv_report_annotation *an);

/* Whether the recorded own prediction is no prediction error because the
 * action kept the job apart from what it was predicted against: the
 * action moved it (nv_report_action_moved), the annotation names the
 * neighbour app, and none of the n jobs the job ran beside (all of them:
 * complete 0 says the list was cut, and so proves nothing) is of that app
 * or is the job the annotation names (vs_job; neighbour_jobs may be NULL).
 * 0 otherwise: the job ran beside it, whatever the action, or the record
 * cannot say. */
int nv_report_kept_apart(const nv_report_annotation *an, const char *const *neighbour_apps,
                         const int64_t *neighbour_jobs, size_t n, int complete);

/* Whether two running jobs' paths meet at an uplink, by their
 * comma-separated leaf switch lists: both span several leaf switches and
 * have one in common; a job without a list (NULL or "") meets everyone,
 * one under one leaf switch no one.  1 or 0. */
int nv_report_paths_meet(const char *switches_a, const char *switches_b);

/* One ordered pair among running jobs: predicted slowdown of a beside b. */
typedef struct nv_report_pair {
    size_t a, b; /* indexes into the caller's job arrays */
    double slowdown_pct;
    const char *source; /* "table" or "model:<predictor>" (static) */
} nv_report_pair;

/* Predictions for every ordered pair (a, b), a != b, of the n running jobs
 * whose paths meet at an uplink: both span several leaf switches and have
 * one in common (comma-separated lists; a job without a list shares with
 * everyone, one under one leaf switch with no one), both apps known to the
 * model.  Writes up to max pairs sorted by slowdown, worst first (ties by
 * a, then b); returns how many pairs were predicted in all. */
size_t nv_report_cluster_pairs(const nv_model *m, const char *const *apps,
                               const char *const *switches, size_t n, nv_predictor predictor,
                               nv_report_pair *out, size_t max);

/* The bytes a segment profile's traffic matrix holds ("traffic_matrix".bytes,
 * summed; 0 when not finite) when the profile also has its "placement";
 * -1 when it lacks either.  Which of a job's profiles stands for it: the
 * one with the most bytes. */
double nv_profile_matrix_bytes(json_object *profile);

#endif
