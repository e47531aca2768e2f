/* ve_model.h - the Variability Estimate (seed 004 §IV-§V): a robust scaler,
 * an RBF SVR (libsvm) and a random forest, trained on the 7 features of
 * ve_features.h against the runtime z-score, and their combination.
 *
 * Combination (seed 004 §V-D: "if the SVR prediction is within RF
 * prediction +/- error bounds, report SVR +/- the error bounds, else no
 * prediction"): the error bound at x is h = svr_factor (sd(x) + beta), the
 * forest's local tree spread sd(x) scaled so that SVR +/- h covers `level`
 * (default 90 %) of new jobs, calibrated on out-of-sample residuals
 * (ve_calibrate.h).  When the forest mean lies within h of the SVR point,
 * the estimate is `SVR +/- h` in standard deviations of the app's runtime at
 * that size; otherwise the two models disagree by more than the answer's
 * own uncertainty and the VE abstains ("outside training data").  The
 * forest's own calibrated interval (forest mean +/- factor (sd + beta)) is
 * reported beside it.  A model file written before calibration existed has
 * no factors: there the interval is the raw lo_q..hi_q quantiles of the tree
 * predictions and the VE answers SVR +/- their half-range when the SVR point
 * lies inside them, as such files meant.
 *
 * Training: C and gamma are grid-searched by k-fold cross-validation
 * (pooled out-of-fold R^2, the scaler refitted inside each fold); for the
 * chosen pair, each fold's forest and error bound are grown and calibrated
 * on the other folds only (the SVR residuals by nested cross-validation),
 * so the held-out jobs give honest figures: the coverage of the calibrated
 * forest interval and of SVR +/- h (what the calibration targets), and the
 * abstention and coverage of the combined estimate.  The target's group
 * means and spreads are computed over all jobs before the folds are cut. */
#ifndef NETVAR_VE_MODEL_H
#define NETVAR_VE_MODEL_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "ve_calibrate.h"
#include "ve_features.h"
#include "ve_forest.h"
#include "ve_svr.h"

#define NV_VE_MAX_GRID 16

typedef struct nv_ve_training {
    size_t samples;       /* jobs trained on */
    size_t folds;
    uint64_t seed;
    double C, gamma, epsilon;
    double cv_r2;         /* SVR, pooled out-of-fold */
    double cv_r2_forest;  /* forest mean, pooled out-of-fold */
    double abstention;    /* fraction of out-of-fold points where the VE abstained */
    double coverage;      /* fraction of answered points whose truth lay in SVR +/- half-width
                             (above level: answers are where the two models agree) */
    double mean_half_width; /* over answered points, sigma */
    double level;         /* nominal coverage of both calibrated intervals */
    double interval_coverage; /* fraction of all out-of-fold points whose truth lay in the
                                 fold's calibrated forest interval: should be ~level */
    double point_coverage; /* fraction of all out-of-fold points whose truth lay in
                              SVR +/- h, answered or not: should be ~level */
} nv_ve_training;

typedef struct nv_ve {
    double median[NV_VE_NFEAT], iqr[NV_VE_NFEAT];
    nv_svr svr;
    nv_forest forest;
    double lo_q, hi_q;       /* raw tree quantiles: the interval when !cal.calibrated */
    nv_ve_calibration cal;   /* the interval's calibration (ve_calibrate.h) */
    nv_ve_training training;
} nv_ve;

typedef struct nv_ve_train_opts {
    size_t folds;                 /* default 10 */
    uint64_t seed;                /* folds and forest */
    size_t n_C, n_gamma;          /* 0: default grids */
    double C_grid[NV_VE_MAX_GRID];
    double gamma_grid[NV_VE_MAX_GRID];
    double epsilon;               /* SVR tube, sigma; 0 = 0.1 */
    nv_forest_params forest;      /* zeros = defaults (100 trees, min leaf 2, 3 of 7 features per split) */
    double lo_q, hi_q;            /* 0,0 = 0.05, 0.95; the interval's nominal coverage
                                     (calibration level) is hi_q - lo_q */
    void (*progress)(void *arg, const char *line); /* may be NULL */
    void *progress_arg;
} nv_ve_train_opts;

typedef struct nv_ve_result {
    int answered;          /* 1: z and half_width hold the estimate */
    double z;              /* SVR point, runtime standard deviations from the mean */
    double half_width;     /* the error bound h, sigma (also set when abstaining) */
    /* forest_lo/hi: the forest's own calibrated interval (the raw quantiles
     * for an uncalibrated older model, whose h is their half-range) */
    double svr, forest_mean, forest_lo, forest_hi;
    const char *label;     /* "ran in heavy congestion" ... or "outside training data" */
} nv_ve_result;

/* Trains on feat (n rows of NV_VE_NFEAT, raw) and z.  Rows with a
 * non-finite value are an error (filter them first).  Returns the VE or
 * NULL with one line in err.  Needs at least 2*folds rows. */
nv_ve *nv_ve_train(const double *feat, const double *z, size_t n, const nv_ve_train_opts *o,
                   char *err, size_t errlen);

/* Estimate for one job's raw features. */
void nv_ve_estimate(const nv_ve *ve, const double feat[NV_VE_NFEAT], nv_ve_result *out);

/* Words for an estimate: >= +1 heavy, >= +0.25 moderate, > -0.25 typical,
 * else light congestion (seed 004 Fig. 7: above the mean = heavier). */
const char *nv_ve_label(double z);

/* The model file's "variability" section (format in model_load.c). */
json_object *nv_ve_to_json(const nv_ve *ve);
/* Parses and validates it; path prefixes error lines ("variability").
 * Returns the VE or NULL with one line in err naming the field. */
nv_ve *nv_ve_from_json(json_object *o, const char *path, char *err, size_t errlen);
void nv_ve_free(nv_ve *ve);

#endif
