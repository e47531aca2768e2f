/* ve_model.h - the Variability Estimate (seed 004 §IV-§V): a robust scaler,
 * an RBF SVR (libsvm) and a random forest, trained on the 7 features of
 * ve_features.h against the runtime z-score, and their combination.
 *
 * Combination (seed 004 §V-D): the forest gives the lo_q..hi_q quantiles of
 * its trees' predictions (default 5th-95th percentile).  When the SVR point
 * lies inside that interval, the estimate is `SVR +/- (hi - lo)/2` in
 * standard deviations of the app's runtime at that size; otherwise the VE
 * abstains ("outside training data").
 *
 * Training: C and gamma are grid-searched by k-fold cross-validation
 * (pooled out-of-fold R^2, the scaler refitted inside each fold); the
 * chosen pair's out-of-fold SVR points and forest intervals give the
 * reported abstention fraction and coverage.  The target's group means and
 * spreads are computed over all jobs before the folds are cut. */
#ifndef NETVAR_VE_MODEL_H
#define NETVAR_VE_MODEL_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

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
    double coverage;      /* fraction of answered points whose truth lay in SVR +/- half-width */
    double mean_half_width; /* over answered points, sigma */
} nv_ve_training;

typedef struct nv_ve {
    double median[NV_VE_NFEAT], iqr[NV_VE_NFEAT];
    nv_svr svr;
    nv_forest forest;
    double lo_q, hi_q;
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
    double lo_q, hi_q;            /* 0,0 = 0.05, 0.95 */
    void (*progress)(void *arg, const char *line); /* may be NULL */
    void *progress_arg;
} nv_ve_train_opts;

typedef struct nv_ve_result {
    int answered;          /* 1: z and half_width hold the estimate */
    double z;              /* SVR point, runtime standard deviations from the mean */
    double half_width;     /* (forest hi - lo) / 2, sigma */
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
