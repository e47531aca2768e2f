/* ve_calibrate.c - out-of-bag conformal calibration of the forest's interval
 * (see ve_calibrate.h for the method). */
#include "ve_calibrate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sort_cmp.h"

#define MIN_FLOOR 1e-3 /* sigma: keeps every score finite */

/* median of v[0..m), m >= 1; sorts v */
static double median_of(double *v, size_t m)
{
    qsort(v, m, sizeof *v, nv_cmp_double);
    return m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
}

static double half_width(double factor, double floor, double sd)
{
    double h = factor * ((isfinite(sd) && sd > 0 ? sd : 0) + floor);
    return isfinite(h) && h > 0 ? h : 0;
}

double nv_ve_calibrated_half_width(const nv_ve_calibration *c, double sd)
{
    return half_width(c->factor, c->spread_floor, sd);
}

double nv_ve_reported_half_width(const nv_ve_calibration *c, double sd)
{
    return half_width(c->svr_factor, c->spread_floor, sd);
}

static int usable(const nv_forest_oob *o, double y)
{
    return o->trees >= 2 && isfinite(o->mean) && isfinite(o->sd) && isfinite(y);
}

/* the conformal factor from v[0..m) scores (m >= 1; sorts v): the
 * ceil((m+1) level)-th smallest, 1-based; the tiny slack keeps an exact
 * product (e.g. 100 x 0.9) from rounding up a whole rank */
static double conformal_factor(double *v, size_t m, double level, double *covered)
{
    qsort(v, m, sizeof *v, nv_cmp_double);
    double rank = ceil((double)(m + 1) * level - 1e-9);
    size_t r = rank < 1 ? 1 : rank > (double)m ? m : (size_t)rank;
    double factor = v[r - 1];
    size_t inside = 0;
    for (size_t i = 0; i < m; i++)
        inside += v[i] <= factor;
    *covered = (double)inside / (double)m;
    return factor;
}

int nv_ve_calibrate(const nv_forest_oob *oob, const double *y, size_t n, double level,
                    nv_ve_calibration *out, char *err, size_t errlen)
{
    out->calibrated = 0;
    if (!(level > 0 && level < 1)) {
        snprintf(err, errlen, "interval calibration: level %g is not between 0 and 1", level);
        return -1;
    }
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) {
        snprintf(err, errlen, "interval calibration: out of memory for %zu jobs", n);
        return -1;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (usable(&oob[i], y[i]))
            v[m++] = oob[i].sd;
    if (!m) {
        free(v);
        snprintf(err, errlen,
                 "interval calibration: no job was left out of 2 or more trees; "
                 "grow more trees");
        return -1;
    }
    double beta = median_of(v, m);
    if (!(beta >= MIN_FLOOR))
        beta = MIN_FLOOR;
    m = 0;
    for (size_t i = 0; i < n; i++)
        if (usable(&oob[i], y[i]))
            v[m++] = fabs(y[i] - oob[i].mean) / (oob[i].sd + beta);
    double covered;
    double factor = conformal_factor(v, m, level, &covered);
    free(v);
    out->calibrated = 1;
    out->level = level;
    out->factor = factor;
    out->svr_factor = factor; /* until nv_ve_calibrate_point says otherwise */
    out->spread_floor = beta;
    out->points = m;
    out->oob_coverage = covered;
    return 0;
}

int nv_ve_calibrate_point(const nv_forest_oob *oob, const double *y, const double *point, size_t n,
                          nv_ve_calibration *out, char *err, size_t errlen)
{
    if (!out->calibrated) {
        snprintf(err, errlen, "interval calibration: the forest interval is not calibrated yet");
        return -1;
    }
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) {
        snprintf(err, errlen, "interval calibration: out of memory for %zu jobs", n);
        return -1;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (usable(&oob[i], y[i]) && isfinite(point[i]))
            v[m++] = fabs(y[i] - point[i]) / (oob[i].sd + out->spread_floor);
    if (!m) {
        free(v);
        snprintf(err, errlen,
                 "interval calibration: no job has an out-of-sample prediction "
                 "and 2 or more out-of-bag trees");
        return -1;
    }
    double covered;
    out->svr_factor = conformal_factor(v, m, out->level, &covered);
    free(v);
    return 0;
}
