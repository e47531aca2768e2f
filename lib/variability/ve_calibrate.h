/* ve_calibrate.h - honest intervals for the Variability Estimate:
 * conformal calibration on out-of-sample residuals, scaled by the local
 * spread of the forest's trees.
 *
 * Why: a job's estimate is `SVR +/- h`, and h used to be half the
 * 5th-95th percentile range of the tree predictions.  That range describes
 * the FOREST's error (it covered ~89 % of held-out truths around the forest
 * mean on the synthetic set), not the SVR's, which is larger: SVR +/- h
 * covered only ~59 % of held-out jobs (80 % of the answered ones).
 *
 * Method (normalized split-conformal prediction, with out-of-bag samples
 * as the calibration set for the forest, as in Johansson, Bostrom, Lofstrom
 * and Linusson, "Regression conformal prediction with random forests",
 * Machine Learning 97, 2014):
 *   for each training job i left out of >= 2 trees:
 *     m_i = mean of the predictions of the trees that did not see job i
 *     s_i = their standard deviation (the local difficulty)
 *   beta = median of the s_i: a floor, so that where the trees happen to
 *          agree an interval does not shrink to nothing and no score
 *          divides by 0 (at least 1e-3 sigma)
 *   forest interval:  score_i = |y_i - m_i| / (s_i + beta)
 *     factor = the ceil((m+1) level)-th smallest of the m scores (the
 *              largest when m < level/(1-level) leaves no such rank)
 *     at x:  forest mean(x) +/- factor (sd(x) + beta)
 *   reported half-width of the SVR point, the same with the SVR's
 *     out-of-fold predictions p_i (each from an SVR that did not see job i):
 *     score_i = |y_i - p_i| / (s_i + beta),  svr_factor likewise,
 *     at x:  SVR(x) +/- svr_factor (sd(x) + beta)
 * mean(x) and sd(x) are over all trees.  By exchangeability a new job from
 * the training distribution falls inside with probability ~level.  An
 * out-of-bag mean averages ~37 % of the trees, so its residuals are a little
 * larger than the whole forest's: the forest interval errs, slightly, on the
 * wide side.  nv_ve_train measures what both really cover on held-out folds.
 *
 * The model file keeps level, factor, svr_factor and beta (ve_load.c); a
 * file without them means the raw lo_q..hi_q quantile interval it was
 * written with. */
#ifndef NETVAR_VE_CALIBRATE_H
#define NETVAR_VE_CALIBRATE_H

#include <stddef.h>

#include "ve_forest.h"

#define NV_VE_CAL_METHOD "oob-conformal-sd"

typedef struct nv_ve_calibration {
    int calibrated;      /* 0: none, the raw quantile interval (older files) */
    double level;        /* nominal coverage, 0 < level < 1 (default 0.9) */
    double factor;       /* forest interval: multiplies the scaled spread, >= 0 */
    double svr_factor;   /* reported half-width around the SVR point, >= 0 */
    double spread_floor; /* beta, sigma, > 0 */
    size_t points;       /* out-of-bag jobs it was fitted on (informative) */
    double oob_coverage; /* fraction of those inside their interval (informative) */
} nv_ve_calibration;

/* Fits the calibration from the forest's out-of-bag summaries oob[0..n) and
 * the targets y.  Returns 0, or -1 with one line in err (bad level, out of
 * memory, no job left out of 2 or more trees). */
int nv_ve_calibrate(const nv_forest_oob *oob, const double *y, size_t n, double level,
                    nv_ve_calibration *out, char *err, size_t errlen);

/* After nv_ve_calibrate on the same oob: sets out->svr_factor so that
 * point[i] +/- svr_factor (s_i + beta) covers `level` of y[i], where
 * point[i] is an out-of-sample prediction of y[i] (the SVR's out-of-fold
 * one).  Returns 0, or -1 with one line in err. */
int nv_ve_calibrate_point(const nv_forest_oob *oob, const double *y, const double *point, size_t n,
                          nv_ve_calibration *out, char *err, size_t errlen);

/* Half-width of the calibrated forest interval where the trees spread by sd. */
double nv_ve_calibrated_half_width(const nv_ve_calibration *c, double sd);
/* Half-width reported around the SVR point there. */
double nv_ve_reported_half_width(const nv_ve_calibration *c, double sd);

#endif
