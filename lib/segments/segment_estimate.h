/* segment_estimate.h - single-run interference estimate from a segment
 * profile (*Single-run interference estimate* §2): cluster segments by work with relative distance,
 * split clusters by the exact communication/I-O signature, flag segments
 * slower than median + 4*MAD of their group, and report the summed excess
 * as instantaneous interference in % of the runtime.
 *
 * Continuous interference (defined here, the seed leaves it open for a
 * single run): for every used group, the displacement of its median above
 * its fastest decile (10th percentile) times the group's size, summed; in
 * microseconds and in % of the runtime.  It is reported apart and never
 * added to the instantaneous figure. */
#ifndef NETVAR_SEGMENT_ESTIMATE_H
#define NETVAR_SEGMENT_ESTIMATE_H

#include <stddef.h>
#include <stdint.h>

#define NV_SEG_DEFAULT_THRESHOLD 0.1 /* relative distance (seed: 0.1) */
#define NV_SEG_DEFAULT_MIN_GROUP 5   /* seed: groups < 5 ignored */
#define NV_SEG_DEFAULT_MAD_FACTOR 4.0
/* Segments per second above which the estimate is flagged as unreliable.
 * The seed saw poor accuracy only for GAPgeofem at ~300 collectives/s; the
 * benchmarks that were estimated well ran far slower.  100/s keeps a 3x
 * margin below the known bad case. */
#define NV_SEG_DEFAULT_HIGH_RATE_HZ 100.0

#define NV_SEG_LOW_BELOW_PCT 7.5
#define NV_SEG_HIGH_ABOVE_PCT 15.0
#define NV_SEG_LOGISTIC_X0 11.25
#define NV_SEG_LOGISTIC_K 0.35
#define NV_SEG_REPORT_GROUPS 8

typedef enum { NV_SEG_LOW = 0, NV_SEG_MEDIUM = 1, NV_SEG_HIGH = 2 } nv_seg_class;

typedef struct nv_seg_estimate_opts {
    double rel_threshold; /* clustering, > 0 */
    size_t min_group;     /* >= 1 */
    double mad_factor;    /* >= 0 */
    double high_rate_hz;  /* caveat threshold, segments per second */
} nv_seg_estimate_opts;

typedef struct nv_seg_group_summary {
    size_t segments, interfered;
    double work_median, time_median_us, mad_us, threshold_us, excess_us;
    uint32_t signature;
} nv_seg_group_summary;

typedef struct nv_seg_estimate {
    size_t segments;         /* input segments */
    size_t clusters;         /* by work */
    size_t groups;           /* clusters split by signature */
    size_t groups_used;      /* groups with >= min_group segments */
    size_t segments_used;    /* segments in used groups */
    size_t interfered;       /* segments above their group threshold */
    double runtime_us;       /* denominator of every percentage: never below the
                                 segments' own total, so no percentage passes 100 */
    double runtime_given_us; /* what the profile said (its writer is the job's user) */
    int runtime_replaced;    /* the given runtime was shorter than the segments (or
                                 not a number): their total is used instead */
    double excess_us;        /* summed time above the thresholds */
    double interference_pct; /* instantaneous interference */
    double continuous_us;    /* median displacement above fastest decile */
    double continuous_pct;
    double median_baseline_us; /* sum over used groups of size * median */
    double p_high;             /* logistic of interference_pct */
    nv_seg_class cls;
    double rate_hz;          /* segments per second of runtime */
    int high_rate;           /* rate_hz > opts.high_rate_hz */
    size_t ngroup_summaries; /* largest groups by total time */
    nv_seg_group_summary group[NV_SEG_REPORT_GROUPS];
} nv_seg_estimate;

void nv_seg_estimate_opts_default(nv_seg_estimate_opts *o);

/* Median of v[0..n) (sorts v in place); 0 when n == 0. */
double nv_seg_median_inplace(double *v, size_t n);

/* Median absolute deviation around `median` (scratch holds n doubles). */
double nv_seg_mad(const double *v, size_t n, double median, double *scratch);

/* One-pass relative-distance clustering of the values (seed §2): sorts a
 * copy, starts a new cluster whenever |a-b|/min(|a|,|b|) >= threshold
 * between neighbours.  cluster_of[i] receives the cluster id of values[i]
 * (ids ascend with value).  Returns the number of clusters, or -1 on bad
 * arguments or allocation failure. */
long nv_seg_cluster_relative(const double *values, size_t n, double threshold,
                             uint32_t *cluster_of);

/* Probability of high interference: 1/(1+exp(-0.35*(x-11.25))). */
double nv_seg_p_high(double interference_pct);

nv_seg_class nv_seg_classify(double interference_pct);
const char *nv_seg_class_name(nv_seg_class c);

/* Runs the estimate.  work/time_us/signature hold n segments; runtime_us
 * <= 0 means "sum of segment times".  The profile's numbers are untrusted:
 * a runtime shorter than the segments' total is replaced by that total
 * (runtime_replaced), so every percentage stays within 0..100.  Returns 0, or -1 on bad arguments or
 * allocation failure (out is zeroed then). */
int nv_seg_estimate_run(const double *work, const double *time_us, const uint32_t *signature,
                        size_t n, double runtime_us, const nv_seg_estimate_opts *opts,
                        nv_seg_estimate *out);

#endif
