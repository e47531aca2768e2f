/* compression.c - isotonic fit and evaluation of p_A(U) (compression.h). */
#include "compression.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_point_u(const void *a, const void *b)
{
    double x = ((const nv_curve_point *)a)->utilization;
    double y = ((const nv_curve_point *)b)->utilization;
    return (x > y) - (x < y);
}

int nv_isotonic_fit(const nv_curve_point *pts, size_t n, nv_curve_point *fit, size_t *n_fit,
                    double *residual_pct)
{
    *n_fit = 0;
    *residual_pct = 0;
    if (n == 0 || n > NV_CURVE_MAX_POINTS || !pts || !fit)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const nv_curve_point *p = &pts[i];
        if (!isfinite(p->utilization) || p->utilization < 0 || p->utilization > 1 ||
            !isfinite(p->slowdown_pct) || !isfinite(p->weight) || !(p->weight > 0))
            return -1;
    }
    nv_curve_point *s = malloc(n * sizeof *s);
    if (!s)
        return -1;
    memcpy(s, pts, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_point_u);

    /* pool equal U into their weighted mean: one x, one y */
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && s[i].utilization == fit[m - 1].utilization) {
            nv_curve_point *f = &fit[m - 1];
            double w = f->weight + s[i].weight;
            f->slowdown_pct = (f->slowdown_pct * f->weight + s[i].slowdown_pct * s[i].weight) / w;
            f->weight = w;
        } else {
            fit[m++] = s[i];
        }
    }

    /* pool adjacent violators; blocks are kept in place at the front of
     * fit[] as (value, weight), with start[] telling where each begins */
    size_t *start = malloc((m + 1) * sizeof *start);
    double *val = malloc(m * sizeof *val), *wt = malloc(m * sizeof *wt);
    if (!start || !val || !wt) {
        free(s);
        free(start);
        free(val);
        free(wt);
        return -1;
    }
    size_t nb = 0;
    for (size_t i = 0; i < m; i++) {
        val[nb] = fit[i].slowdown_pct;
        wt[nb] = fit[i].weight;
        start[nb] = i;
        nb++;
        while (nb > 1 && val[nb - 2] > val[nb - 1]) {
            double w = wt[nb - 2] + wt[nb - 1];
            val[nb - 2] = (val[nb - 2] * wt[nb - 2] + val[nb - 1] * wt[nb - 1]) / w;
            wt[nb - 2] = w;
            nb--;
        }
    }
    start[nb] = m;
    for (size_t b = 0; b < nb; b++)
        for (size_t i = start[b]; i < start[b + 1]; i++)
            fit[i].slowdown_pct = val[b];

    double sw = 0, ss = 0;
    for (size_t i = 0; i < n; i++) {
        double r = pts[i].slowdown_pct - nv_curve_eval(fit, m, pts[i].utilization);
        sw += pts[i].weight;
        ss += pts[i].weight * r * r;
    }
    *residual_pct = sw > 0 ? sqrt(ss / sw) : 0;
    *n_fit = m;
    free(s);
    free(start);
    free(val);
    free(wt);
    return 0;
}

double nv_curve_eval(const nv_curve_point *fit, size_t n_fit, double u)
{
    if (n_fit == 0 || !fit)
        return 0;
    if (isnan(u))
        u = 0;
    if (u <= fit[0].utilization)
        return fit[0].slowdown_pct;
    if (u >= fit[n_fit - 1].utilization)
        return fit[n_fit - 1].slowdown_pct;
    size_t lo = 0, hi = n_fit - 1; /* fit[lo].u < u < fit[hi].u */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (fit[mid].utilization <= u)
            lo = mid;
        else
            hi = mid;
    }
    double u0 = fit[lo].utilization, u1 = fit[hi].utilization;
    double t = (u - u0) / (u1 - u0);
    return fit[lo].slowdown_pct + t * (fit[hi].slowdown_pct - fit[lo].slowdown_pct);
}
