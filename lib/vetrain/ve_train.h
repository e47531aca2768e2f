/* ve_train.h - training the Variability Estimate ("Variability Estimate"
 * paper, §IV-§V) and estimating with it: the parts that call libsvm
 * (svm_train, and svm_predict over the stored support vectors,
 * svr_libsvm.h), so they live in their own archive, libnetvar_vetrain.a,
 * which the CLI, the evaluations and the tests link, and job_submit and
 * spank do not.  The model itself (what a model file holds, read and
 * written without libsvm) is lib/variability/ve_model.h.
 *
 * Training: C and gamma are grid-searched by k-fold cross-validation
 * (pooled out-of-fold R^2, the scaler refitted inside each fold); for the
 * chosen pair, each fold's forest and error bound are grown and calibrated
 * on the other folds only (the SVR residuals by nested cross-validation),
 * so the held-out jobs give honest figures: the coverage of the calibrated
 * forest interval and of SVR +/- h (what the calibration targets), and the
 * abstention and coverage of the combined estimate.  The target's group
 * means and spreads are computed over all jobs before the folds are cut.
 * Estimation combines the SVR point and the forest as ve_model.h says. */
#ifndef NETVAR_VE_TRAIN_H
#define NETVAR_VE_TRAIN_H

#include <stddef.h>
#include <stdint.h>

#include "ve_model.h"

#define NV_VE_MAX_GRID 16

typedef struct nv_ve_train_opts {
    size_t folds;        /* default 10 */
    uint64_t seed;       /* folds and forest */
    size_t n_C, n_gamma; /* 0: default grids */
    double C_grid[NV_VE_MAX_GRID];
    double gamma_grid[NV_VE_MAX_GRID];
    double epsilon; /* SVR tube, sigma; 0 = 0.1 */
    nv_forest_params
        forest;        /* zeros = defaults (100 trees, min leaf 2, 3 of 7 features per split) */
    double lo_q, hi_q; /* 0,0 = 0.05, 0.95; the interval's nominal coverage
                                     (calibration level) is hi_q - lo_q */
    void (*progress)(void *arg, const char *line); /* may be NULL */
    void *progress_arg;
} nv_ve_train_opts;

typedef struct nv_ve_result {
    int answered;      /* 1: z and half_width hold the estimate */
    double z;          /* SVR point, runtime standard deviations from the mean */
    double half_width; /* the error bound h, sigma (also set when abstaining) */
    /* forest_lo/hi: the forest's own calibrated interval (the raw quantiles
     * for an uncalibrated older model, whose h is their half-range) */
    double svr, forest_mean, forest_lo, forest_hi;
    const char *label; /* "ran in heavy congestion" ... or "outside training data" */
} nv_ve_result;

/* Trains on feat (n rows of NV_VE_NFEAT, raw) and z.  Rows with a
 * non-finite value are an error (filter them first).  Returns the VE or
 * NULL with one line in err.  Needs at least 2*folds rows. */
nv_ve *nv_ve_train(const double *feat, const double *z, size_t n, const nv_ve_train_opts *o,
                   char *err, size_t errlen);

/* Estimate for one job's raw features. */
void nv_ve_estimate(const nv_ve *ve, const double feat[NV_VE_NFEAT], nv_ve_result *out);

/* Words for an estimate: >= +1 heavy, >= +0.25 moderate, > -0.25 typical,
 * else light congestion ("Variability Estimate" Fig. 7: above the mean =
 * heavier). */
const char *nv_ve_label(double z);

#endif
