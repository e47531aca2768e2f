/* job_report.h - what `netvar report JOBID` concludes about one finished
 * job, computed from its record (SPOOL/jobs/JOBID/job.json), its segment
 * profile (the first JSON in SPOOL/jobs/JOBID/profiles), the other records of the spool
 * (neighbours, baseline) and the model (predicted slowdown, Variability
 * Estimate).  Fills a struct; printing it (text or JSON) is the caller's.
 *
 *   runtime, nodes, the record's counter metrics and its own utilization;
 *   the segment interference estimate ("Single-run interference estimate")
 *   of the first profile, by name;
 *   neighbours: jobs that overlapped it with paths that meet (lib/train),
 *   the slowdown observed against the app's baseline (history at this node
 *   count, else the model's scaling) and the one predicted beside them
 *   ("Queue-theory interference model");
 *   the advice and prediction recorded at submission;
 *   the Variability Estimate ("Variability Estimate") when the model has one.
 *
 * Nothing is guessed: a figure that cannot be computed is NAN (or a flag
 * says it is absent) and a note says why where there is one. */
#ifndef NETVAR_JOB_REPORT_H
#define NETVAR_JOB_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "model.h"
#include "predict.h"
#include "report_logic.h"
#include "segment_estimate.h"
#include "segment_profile.h"
#include "train_history.h"
#include "ve_train.h"

#define NV_JOB_REPORT_MAX_NEIGHBOURS 64
#define NV_JOB_REPORT_PATH_MAX 4700
#define NV_JOB_REPORT_NOTE_MAX 600

/* One job that overlapped this one with a path that meets its own. */
typedef struct nv_job_report_neighbour {
    int64_t job_id;
    char app[NV_MODEL_KEY_MAX + 1];
    double overlap_s; /* seconds both ran with paths that meet */
    double rho;       /* its own utilization, fraction 0..1; NAN unknown */
} nv_job_report_neighbour;

/* One counter metric of the record ("metrics" object), for display. */
typedef struct nv_job_report_metric {
    char name[96];
    char unit[32];    /* "" when the record names none */
    double mean, p95; /* over blades; NAN when absent */
    char source[96];  /* "" when the record names none */
} nv_job_report_metric;

typedef struct nv_job_report {
    int64_t job_id;
    int has_app; /* the record names an app */
    char app[NV_MODEL_KEY_MAX + 1];
    size_t nodes;
    double runtime_s; /* NAN when the record has none */
    /* The record's "switches" and "metrics" as recorded (owned references,
     * NULL when absent), for renderers that pass them through. */
    json_object *switches, *metrics_json;
    nv_job_report_metric *metrics;
    size_t n_metrics;

    /* own utilization, as `netvar train` reads the record */
    double rho;          /* fraction 0..1; NAN: no calibrated mu or no counters */
    int has_utilization; /* the record has a "utilization" object: */
    double service_us;   /*   its 1/mu, us (NAN when absent) */
    char mu_source[128]; /*   where mu came from ("none" when absent) */
    long ports;          /*   ports with a utilization (-1 when absent) */
    /* the record's bottleneck U (version 2; NAN when absent or unavailable) */
    double bn_u_up, bn_u_down;               /* the job's own, fractions of capacity */
    double bn_uplink_u_up, bn_uplink_u_down; /* the uplink counters' (all jobs) */
    double bn_capacity_Bps;                  /* one leaf's uplinks, bytes/s */
    char bn_leaf_up[64], bn_leaf_down[64];   /* the busiest leaves ("" one leaf) */
    char bn_source[256];                     /* its source, or why unavailable ("" none) */

    /* segment interference estimate of the first profile (by name) */
    int has_segments;
    char profile[NV_JOB_REPORT_PATH_MAX]; /* its path; "" when the job has none */
    nv_seg_estimate seg;
    nv_seg_profile seg_profile;                /* kept for nv_job_report_timeline() */
    char segment_note[NV_JOB_REPORT_NOTE_MAX]; /* why a profile gave no estimate; "" */

    /* neighbours and slowdown, from the spool's other records */
    size_t n_neighbours; /* in all (may exceed the ones listed) */
    size_t n_listed;     /* entries of neighbours[], sorted by job id */
    nv_job_report_neighbour neighbours[NV_JOB_REPORT_MAX_NEIGHBOURS];
    double baseline_s;         /* runtime alone at this node count; NAN unknown */
    double observed_pct;       /* runtime against the baseline, %; NAN unknown */
    double predicted_pct;      /* predicted beside the neighbours' apps, %; NAN */
    char predicted_source[64]; /* "table", "model:queue", ...; "" when none */

    /* at submission, as recorded */
    nv_report_annotation at_submission;
    char annotation_note[NV_JOB_REPORT_NOTE_MAX]; /* malformed annotation; "" */

    /* Variability Estimate */
    int ve_in_model;          /* the model has a variability section */
    int ve_ok;                /* the record gave the estimate its features */
    nv_ve_result ve;          /* when ve_ok (ve.answered may be 0: abstained) */
    char ve_unavailable[256]; /* when !ve_ok: the statistic the record lacks */
} nv_job_report;

/* Report of job `job_id` from the spool.  m may be NULL (no predictions, no
 * Variability Estimate); predictor picks the model's predictor.  Returns 0
 * (r filled; free with nv_job_report_free), or -1 with err when the job's
 * record cannot be read (r is then empty and safe to free). */
int nv_job_report_build(const char *spool, int64_t job_id, const nv_model *m,
                        nv_predictor predictor, nv_job_report *r, char *err, size_t errlen);
void nv_job_report_free(nv_job_report *r);

/* nv_report_kept_apart over the neighbours the record lists: 1 when the
 * recorded action kept the job from the app its prediction was against
 * (so the prediction's difference from observed_pct is no error), 0 when
 * it ran beside that app or the record cannot say. */
int nv_job_report_kept_apart(const nv_job_report *r);

/* The slowdown observed of job i of an analyzed set (nv_train_analyze), as
 * the report gives it: its runtime against the app's baseline at its node
 * count from history, else against the model's scaling (m and app may be
 * NULL: history only).  The baseline goes to *baseline_s (may be NULL);
 * NAN when there is none.  Meaningful only for a job with neighbours. */
double nv_job_report_observed_pct(const nv_train_set *s, size_t i, const nv_model *m,
                                  const char *app, uint32_t nodes, double runtime_s,
                                  double *baseline_s);

/* The profile's segments over time, for the "segment durations, interfered
 * marked" plot of the "Single-run interference estimate" paper (Fig. 2). */
typedef struct nv_seg_timeline {
    size_t n;
    double *start_s; /* since MPI_Init, seconds */
    double *duration_ms;
    unsigned char *interfered; /* 1: above median + 4 MAD of its group */
    size_t n_interfered;
} nv_seg_timeline;

/* Fills t from the report's profile.  Returns 0 (free with
 * nv_seg_timeline_free), or -1 with err (no profile, out of memory). */
int nv_job_report_timeline(const nv_job_report *r, nv_seg_timeline *t, char *err, size_t errlen);
void nv_seg_timeline_free(nv_seg_timeline *t);

#endif
