/* ve_train.c - Variability Estimate training: C and gamma grid-searched
 * under k-fold cross-validation, each fold's forest and error bound
 * calibrated on the other folds, then the final models on all jobs (see
 * ve_train.h). */
#include "ve_train.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nv_err.h"
#include "svr_libsvm.h"
#include "ve_scaler.h"

#define D NV_VE_NFEAT

static const double default_C[] = {1, 10, 100};
static const double default_gamma[] = {0.001, 0.003, 0.01, 0.03, 0.1};

static double r2_of(const double *y, const double *p, size_t n)
{
    double mean = 0, ss_tot = 0, ss_res = 0;
    for (size_t i = 0; i < n; i++)
        mean += y[i];
    mean /= (double)n;
    for (size_t i = 0; i < n; i++) {
        ss_tot += (y[i] - mean) * (y[i] - mean);
        ss_res += (y[i] - p[i]) * (y[i] - p[i]);
    }
    return ss_tot > 0 ? 1 - ss_res / ss_tot : 0;
}

static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* fold[i] in [0, k): a seeded shuffle dealt round-robin */
static void assign_folds(size_t n, size_t k, uint64_t seed, size_t *fold)
{
    size_t *perm = malloc(n * sizeof *perm);
    if (!perm) {
        for (size_t i = 0; i < n; i++)
            fold[i] = i % k;
        return;
    }
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    uint64_t s = seed ^ 0x5eedf01dull;
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(mix(&s) % i);
        size_t t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
    for (size_t i = 0; i < n; i++)
        fold[perm[i]] = i % k;
    free(perm);
}

/* a calibrated forest on Xtr/ytr (m rows); oob has room for m */
static int grow_calibrated(const double *Xtr, const double *ytr, size_t m,
                           const nv_forest_params *fp, double level, nv_forest *rf,
                           nv_forest_oob *oob, nv_ve_calibration *cal, char *err, size_t errlen)
{
    char why[300];
    if (nv_forest_train_oob(Xtr, ytr, m, D, fp, rf, oob, err, errlen))
        return -1;
    if (nv_ve_calibrate(oob, ytr, m, level, cal, why, sizeof why)) {
        snprintf(err, errlen, "variability: %s", why);
        nv_forest_free(rf);
        return -1;
    }
    return 0;
}

#define NO_FOLD ((size_t)-1)

/* scaled training rows of every fold but `hold` and `hold2` (NO_FOLD: none)
 * into Xtr/ytr, in job order; returns count */
static size_t split(const double *feat, const double *z, size_t n, const size_t *fold, size_t hold,
                    size_t hold2, double *median, double *iqr, double *Xtr, double *ytr)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (fold[i] != hold && fold[i] != hold2) {
            memcpy(Xtr + m * D, feat + i * D, D * sizeof *Xtr);
            ytr[m++] = z[i];
        }
    if (nv_scaler_fit(Xtr, m, D, median, iqr))
        return 0;
    for (size_t i = 0; i < m; i++)
        nv_scaler_apply(median, iqr, D, Xtr + i * D, Xtr + i * D);
    return m;
}

/* Out-of-fold SVR predictions for every job outside fold `outer`, each from
 * an SVR trained without `outer` and without the job's own fold (nested
 * cross-validation, so that calibrating on them never sees `outer`); into
 * oof[r], r counting the jobs outside `outer` in job order (the rows of
 * split(.., outer, NO_FOLD, ..)).  Clobbers Xtr and ytr. */
static int inner_svr_oof(const double *feat, const double *z, size_t n, const size_t *fold,
                         size_t k, size_t outer, double C, double gamma, double eps, double *Xtr,
                         double *ytr, double *oof, char *err, size_t errlen)
{
    for (size_t inner = 0; inner < k; inner++) {
        if (inner == outer)
            continue;
        double med[D], iqr[D], x[D];
        size_t m = split(feat, z, n, fold, outer, inner, med, iqr, Xtr, ytr);
        nv_svr s;
        if (!m) {
            snprintf(err, errlen,
                     "variability: no jobs left to train on without folds %zu and "
                     "%zu",
                     outer + 1, inner + 1);
            return -1;
        }
        if (nv_svr_train(Xtr, ytr, m, D, C, gamma, eps, &s, err, errlen))
            return -1;
        for (size_t i = 0, r = 0; i < n; i++) {
            if (fold[i] == outer)
                continue;
            if (fold[i] == inner) {
                nv_scaler_apply(med, iqr, D, feat + i * D, x);
                oof[r] = nv_svr_predict(&s, x);
            }
            r++;
        }
        nv_svr_free(&s);
    }
    return 0;
}

nv_ve *nv_ve_train(const double *feat, const double *z, size_t n, const nv_ve_train_opts *o,
                   char *err, size_t errlen)
{
    nv_ve_train_opts def = {0};
    if (!o)
        o = &def;
    size_t k = o->folds ? o->folds : 10;
    const double *Cg = o->n_C ? o->C_grid : default_C;
    size_t nC = o->n_C ? o->n_C : sizeof default_C / sizeof default_C[0];
    const double *Gg = o->n_gamma ? o->gamma_grid : default_gamma;
    size_t nG = o->n_gamma ? o->n_gamma : sizeof default_gamma / sizeof default_gamma[0];
    double eps = o->epsilon > 0 ? o->epsilon : 0.1;
    double lo_q = o->lo_q, hi_q = o->hi_q;
    if (lo_q == 0 && hi_q == 0) {
        lo_q = 0.05;
        hi_q = 0.95;
    }
    nv_forest_params fp = o->forest;
    if (!fp.n_trees)
        fp.n_trees = 100;
    if (!fp.min_leaf)
        fp.min_leaf = 2;
    if (!fp.max_features)
        fp.max_features = (D + 2) / 3; /* d/3 rounded up, the classic regression forest */
    fp.seed = o->seed;
    if (k < 2 || k > 100 || nC > NV_VE_MAX_GRID || nG > NV_VE_MAX_GRID) {
        snprintf(err, errlen,
                 "variability: %zu folds or a grid of %zux%zu is not supported "
                 "(folds 2-100, grids up to %d values)",
                 k, nC, nG, NV_VE_MAX_GRID);
        return NULL;
    }
    if (!(lo_q >= 0 && lo_q < hi_q && hi_q <= 1)) {
        snprintf(err, errlen, "variability: interval quantiles %g..%g are not 0 <= lo < hi <= 1",
                 lo_q, hi_q);
        return NULL;
    }
    if (n < 2 * k) {
        snprintf(err, errlen,
                 "variability: %zu usable jobs is too few for %zu-fold "
                 "cross-validation (need at least %zu); nothing trained",
                 n, k, 2 * k);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(z[i])) {
            snprintf(err, errlen, "variability: target of job %zu is not finite", i);
            return NULL;
        }
        for (size_t j = 0; j < D; j++)
            if (!isfinite(feat[i * D + j])) {
                snprintf(err, errlen, "variability: feature %s of job %zu is not finite",
                         nv_ve_feature_name(j), i);
                return NULL;
            }
    }

    size_t *fold = malloc(n * sizeof *fold);
    double *Xtr = malloc(n * D * sizeof *Xtr), *ytr = malloc(n * sizeof *ytr);
    double *pred = malloc(n * sizeof *pred), *best_pred = malloc(n * sizeof *best_pred);
    nv_forest_oob *oob = malloc(n * sizeof *oob);
    double *point = malloc(n * sizeof *point);
    nv_ve *ve = calloc(1, sizeof *ve);
    double level = round((hi_q - lo_q) * 1e9) / 1e9; /* 0.95 - 0.05 is not quite 0.9 */
    if (!fold || !Xtr || !ytr || !pred || !best_pred || !oob || !point || !ve) {
        snprintf(err, errlen, "variability: out of memory for %zu jobs", n);
        goto fail;
    }
    assign_folds(n, k, o->seed, fold);

    /* grid search: pooled out-of-fold R^2 of the SVR for each (C, gamma) */
    double best_r2 = -INFINITY, best_C = Cg[0], best_g = Gg[0];
    for (size_t a = 0; a < nC; a++)
        for (size_t b = 0; b < nG; b++) {
            for (size_t f = 0; f < k; f++) {
                double med[D], iqr[D], x[D];
                size_t m = split(feat, z, n, fold, f, NO_FOLD, med, iqr, Xtr, ytr);
                nv_svr s;
                if (!m || nv_svr_train(Xtr, ytr, m, D, Cg[a], Gg[b], eps, &s, err, errlen))
                    goto fail;
                for (size_t i = 0; i < n; i++)
                    if (fold[i] == f) {
                        nv_scaler_apply(med, iqr, D, feat + i * D, x);
                        pred[i] = nv_svr_predict(&s, x);
                    }
                nv_svr_free(&s);
            }
            double r2 = r2_of(z, pred, n);
            nv_logf(o->progress, o->progress_arg,
                    "netvar: variability: C=%g gamma=%g: %zu-fold R^2 %.3f", Cg[a], Gg[b], k, r2);
            if (r2 > best_r2) {
                best_r2 = r2;
                best_C = Cg[a];
                best_g = Gg[b];
                memcpy(best_pred, pred, n * sizeof *pred);
            }
        }

    /* the chosen pair with the forest, out of fold.  Each fold's forest is
     * grown and calibrated on the other folds only; the answer's half-width
     * is calibrated on those folds' nested out-of-fold SVR predictions
     * (with 2 folds there is no nesting: the outer ones, which saw the
     * held-out fold as training data, a slight optimism).  Then, on the
     * held-out fold: the coverage of both calibrated intervals, the
     * abstentions, and the coverage of the answers. */
    size_t answered = 0, covered = 0, in_interval = 0, point_in = 0;
    double hw_sum = 0;
    for (size_t f = 0; f < k; f++) {
        double med[D], iqr[D], x[D];
        if (k >= 3) {
            if (inner_svr_oof(feat, z, n, fold, k, f, best_C, best_g, eps, Xtr, ytr, point, err,
                              errlen))
                goto fail;
        } else {
            for (size_t i = 0, r = 0; i < n; i++)
                if (fold[i] != f)
                    point[r++] = best_pred[i];
        }
        size_t m = split(feat, z, n, fold, f, NO_FOLD, med, iqr, Xtr, ytr);
        nv_forest rf;
        nv_ve_calibration cal;
        nv_forest_params fpf = fp;
        fpf.seed = o->seed + f + 1;
        char why[300];
        if (!m || grow_calibrated(Xtr, ytr, m, &fpf, level, &rf, oob, &cal, err, errlen))
            goto fail;
        if (nv_ve_calibrate_point(oob, ytr, point, m, &cal, why, sizeof why)) {
            snprintf(err, errlen, "variability: %s", why);
            nv_forest_free(&rf);
            goto fail;
        }
        nv_logf(o->progress, o->progress_arg,
                "netvar: variability: fold %zu: forest factor %.3f, SVR factor %.3f, spread "
                "floor %.3f sigma (out-of-bag coverage %.1f %% of %zu jobs)",
                f + 1, cal.factor, cal.svr_factor, cal.spread_floor, 100 * cal.oob_coverage,
                cal.points);
        for (size_t i = 0; i < n; i++)
            if (fold[i] == f) {
                double mean = 0, sd = 0;
                nv_scaler_apply(med, iqr, D, feat + i * D, x);
                nv_forest_spread(&rf, x, &mean, &sd);
                double hf = nv_ve_calibrated_half_width(&cal, sd);
                double hs = nv_ve_reported_half_width(&cal, sd);
                double s = best_pred[i];
                pred[i] = mean;
                in_interval += fabs(z[i] - mean) <= hf;
                point_in += fabs(z[i] - s) <= hs;
                if (fabs(s - mean) <= hs) {
                    answered++;
                    hw_sum += hs;
                    covered += fabs(z[i] - s) <= hs;
                }
            }
        nv_forest_free(&rf);
    }
    ve->training.samples = n;
    ve->training.folds = k;
    ve->training.seed = o->seed;
    ve->training.C = best_C;
    ve->training.gamma = best_g;
    ve->training.epsilon = eps;
    ve->training.cv_r2 = best_r2;
    ve->training.cv_r2_forest = r2_of(z, pred, n);
    ve->training.abstention = 1.0 - (double)answered / (double)n;
    ve->training.coverage = answered ? (double)covered / (double)answered : 0;
    ve->training.mean_half_width = answered ? hw_sum / (double)answered : 0;
    ve->training.level = level;
    ve->training.interval_coverage = (double)in_interval / (double)n;
    ve->training.point_coverage = (double)point_in / (double)n;
    nv_logf(o->progress, o->progress_arg,
            "netvar: variability: chose C=%g gamma=%g; forest R^2 %.3f; held out: the %.0f %% "
            "intervals covered %.1f %% (forest) and %.1f %% (SVR), the VE abstained on %.1f %% "
            "and covered %.1f %% of the rest",
            best_C, best_g, ve->training.cv_r2_forest, 100 * level,
            100 * ve->training.interval_coverage, 100 * ve->training.point_coverage,
            100 * ve->training.abstention, 100 * ve->training.coverage);

    /* the final models on all jobs */
    for (size_t i = 0; i < n; i++)
        fold[i] = 1;
    size_t m = split(feat, z, n, fold, 0, NO_FOLD, ve->median, ve->iqr, Xtr, ytr);
    fp.seed = o->seed;
    if (!m || nv_svr_train(Xtr, ytr, m, D, best_C, best_g, eps, &ve->svr, err, errlen) ||
        grow_calibrated(Xtr, ytr, m, &fp, level, &ve->forest, oob, &ve->cal, err, errlen))
        goto fail;
    /* the SVR half-width from the grid search's out-of-fold predictions
     * (rows are all jobs in order, so best_pred lines up with oob) */
    {
        char why[300];
        if (nv_ve_calibrate_point(oob, ytr, best_pred, m, &ve->cal, why, sizeof why)) {
            snprintf(err, errlen, "variability: %s", why);
            goto fail;
        }
    }
    ve->lo_q = lo_q;
    ve->hi_q = hi_q;
    goto done;
fail:
    nv_ve_free(ve);
    ve = NULL;
done:
    free(oob);
    free(point);
    free(fold);
    free(Xtr);
    free(ytr);
    free(pred);
    free(best_pred);
    return ve;
}
