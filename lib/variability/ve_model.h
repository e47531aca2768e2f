/* ve_model.h - the Variability Estimate ("Variability Estimate" paper,
 * §IV-§V) as a model holds it: a robust scaler, an RBF SVR and a random
 * forest over the 7 features of ve_features.h, the forest's interval
 * calibration, and how it was trained; written to and read from the model
 * file's "variability" section (ve_model.c, ve_load.c).  No libsvm symbol
 * here: the model loader, job_submit and spank load it without libsvm.
 * Training and estimation, which call libsvm, are lib/vetrain/ve_train.h.
 *
 * Combination ("Variability Estimate" §V-D: "if the SVR prediction is
 * within RF prediction +/- error bounds, report SVR +/- the error bounds,
 * else no prediction"): the error bound at x is h = svr_factor (sd(x) +
 * beta), the forest's local tree spread sd(x) scaled so that SVR +/- h
 * covers `level` (default 90 %) of new jobs, calibrated on out-of-sample
 * residuals (ve_calibrate.h).  When the forest mean lies within h of the
 * SVR point, the estimate is `SVR +/- h` in standard deviations of the
 * app's runtime at that size; otherwise the two models disagree by more
 * than the answer's own uncertainty and the VE abstains ("outside training
 * data").  The forest's own calibrated interval (forest mean +/- factor
 * (sd + beta)) is reported beside it.  A model file written before
 * calibration existed has no factors: there the interval is the raw
 * lo_q..hi_q quantiles of the tree predictions and the VE answers SVR +/-
 * their half-range when the SVR point lies inside them, as such files
 * meant. */
#ifndef NETVAR_VE_MODEL_H
#define NETVAR_VE_MODEL_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "ve_calibrate.h"
#include "ve_features.h"
#include "ve_forest.h"
#include "ve_svr.h"

typedef struct nv_ve_training {
    size_t samples; /* jobs trained on */
    size_t folds;
    uint64_t seed;
    double C, gamma, epsilon;
    double cv_r2;             /* SVR, pooled out-of-fold */
    double cv_r2_forest;      /* forest mean, pooled out-of-fold */
    double abstention;        /* fraction of out-of-fold points where the VE abstained */
    double coverage;          /* fraction of answered points whose truth lay in SVR +/- half-width
                             (above level: answers are where the two models agree) */
    double mean_half_width;   /* over answered points, sigma */
    double level;             /* nominal coverage of both calibrated intervals */
    double interval_coverage; /* fraction of all out-of-fold points whose truth lay in the
                                 fold's calibrated forest interval: should be ~level */
    double point_coverage;    /* fraction of all out-of-fold points whose truth lay in
                              SVR +/- h, answered or not: should be ~level */
} nv_ve_training;

typedef struct nv_ve {
    double median[NV_VE_NFEAT], iqr[NV_VE_NFEAT];
    nv_svr svr;
    nv_forest forest;
    double lo_q, hi_q;     /* raw tree quantiles: the interval when !cal.calibrated */
    nv_ve_calibration cal; /* the interval's calibration (ve_calibrate.h) */
    nv_ve_training training;
} nv_ve;

/* The model file's "variability" section (format: docs/model-format.md). */
json_object *nv_ve_to_json(const nv_ve *ve);
/* Parses and validates it; path prefixes error lines ("variability").
 * Returns the VE or NULL with one line in err naming the field. */
nv_ve *nv_ve_from_json(json_object *o, const char *path, char *err, size_t errlen);
void nv_ve_free(nv_ve *ve);

#endif
