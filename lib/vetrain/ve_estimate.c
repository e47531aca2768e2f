/* ve_estimate.c - one job's Variability Estimate from a trained or loaded
 * model: the SVR point, the forest's spread, and whether they agree (see
 * ve_train.h). */
#include "ve_train.h"

#include <math.h>
#include <string.h>

#include "svr_libsvm.h"
#include "ve_scaler.h"

#define D NV_VE_NFEAT

const char *nv_ve_label(double z)
{
    if (z >= 1.0)
        return "ran in heavy congestion";
    if (z >= 0.25)
        return "ran in moderate congestion";
    if (z > -0.25)
        return "ran in typical network conditions";
    return "ran in light congestion";
}

void nv_ve_estimate(const nv_ve *ve, const double feat[NV_VE_NFEAT], nv_ve_result *out)
{
    memset(out, 0, sizeof *out);
    out->label = "outside training data";
    double x[D];
    for (size_t j = 0; j < D; j++)
        if (!isfinite(feat[j]))
            return;
    nv_scaler_apply(ve->median, ve->iqr, D, feat, x);
    out->svr = nv_svr_predict(&ve->svr, x);
    if (!isfinite(out->svr))
        return;
    if (!ve->cal.calibrated) { /* a model file from before calibration */
        if (nv_forest_interval(&ve->forest, x, ve->lo_q, ve->hi_q, &out->forest_mean,
                               &out->forest_lo, &out->forest_hi))
            return;
        out->half_width = (out->forest_hi - out->forest_lo) / 2;
        out->answered = out->svr >= out->forest_lo && out->svr <= out->forest_hi;
    } else {
        double sd;
        if (nv_forest_spread(&ve->forest, x, &out->forest_mean, &sd))
            return;
        double hf = nv_ve_calibrated_half_width(&ve->cal, sd);
        out->forest_lo = out->forest_mean - hf;
        out->forest_hi = out->forest_mean + hf;
        out->half_width = nv_ve_reported_half_width(&ve->cal, sd);
        out->answered = fabs(out->svr - out->forest_mean) <= out->half_width;
    }
    if (out->answered) {
        out->z = out->svr;
        out->label = nv_ve_label(out->z);
    }
}
