/* ve_model.c - Variability Estimate training (grid search under k-fold
 * cross-validation), estimation and serialization (see ve_model.h). */
#include "ve_model.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ve_scaler.h"

#define D NV_VE_NFEAT

static const double default_C[] = {1, 10, 100};
static const double default_gamma[] = {0.001, 0.003, 0.01, 0.03, 0.1};

static void say(const nv_ve_train_opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const nv_ve_train_opts *o, const char *fmt, ...)
{
    if (!o || !o->progress)
        return;
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    o->progress(o->progress_arg, line);
}

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

/* scaled training rows of every fold but `hold` into Xtr/ytr; returns count */
static size_t split(const double *feat, const double *z, size_t n, const size_t *fold,
                    size_t hold, double *median, double *iqr, double *Xtr, double *ytr)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (fold[i] != hold) {
            memcpy(Xtr + m * D, feat + i * D, D * sizeof *Xtr);
            ytr[m++] = z[i];
        }
    if (nv_scaler_fit(Xtr, m, D, median, iqr))
        return 0;
    for (size_t i = 0; i < m; i++)
        nv_scaler_apply(median, iqr, D, Xtr + i * D, Xtr + i * D);
    return m;
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
        snprintf(err, errlen, "variability: %zu folds or a grid of %zux%zu is not supported "
                              "(folds 2-100, grids up to %d values)", k, nC, nG, NV_VE_MAX_GRID);
        return NULL;
    }
    if (!(lo_q >= 0 && lo_q < hi_q && hi_q <= 1)) {
        snprintf(err, errlen, "variability: interval quantiles %g..%g are not 0 <= lo < hi <= 1",
                 lo_q, hi_q);
        return NULL;
    }
    if (n < 2 * k) {
        snprintf(err, errlen, "variability: %zu usable jobs is too few for %zu-fold "
                              "cross-validation (need at least %zu); nothing trained", n, k, 2 * k);
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
    nv_ve *ve = calloc(1, sizeof *ve);
    if (!fold || !Xtr || !ytr || !pred || !best_pred || !ve) {
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
                size_t m = split(feat, z, n, fold, f, med, iqr, Xtr, ytr);
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
            say(o, "netvar: variability: C=%g gamma=%g: %zu-fold R^2 %.3f", Cg[a], Gg[b], k, r2);
            if (r2 > best_r2) {
                best_r2 = r2;
                best_C = Cg[a];
                best_g = Gg[b];
                memcpy(best_pred, pred, n * sizeof *pred);
            }
        }

    /* the chosen pair with the forest, out of fold: abstention and coverage */
    size_t answered = 0, covered = 0;
    double hw_sum = 0;
    for (size_t f = 0; f < k; f++) {
        double med[D], iqr[D], x[D];
        size_t m = split(feat, z, n, fold, f, med, iqr, Xtr, ytr);
        nv_forest rf;
        nv_forest_params fpf = fp;
        fpf.seed = o->seed + f + 1;
        if (!m || nv_forest_train(Xtr, ytr, m, D, &fpf, &rf, err, errlen))
            goto fail;
        for (size_t i = 0; i < n; i++)
            if (fold[i] == f) {
                double mean, lo, hi;
                nv_scaler_apply(med, iqr, D, feat + i * D, x);
                nv_forest_interval(&rf, x, lo_q, hi_q, &mean, &lo, &hi);
                pred[i] = mean;
                double s = best_pred[i];
                if (s >= lo && s <= hi) {
                    double hw = (hi - lo) / 2;
                    answered++;
                    hw_sum += hw;
                    covered += fabs(z[i] - s) <= hw;
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
    say(o, "netvar: variability: chose C=%g gamma=%g; forest R^2 %.3f, abstained on %.1f %%, "
           "coverage %.1f %%", best_C, best_g, ve->training.cv_r2_forest,
        100 * ve->training.abstention, 100 * ve->training.coverage);

    /* the final models on all jobs */
    for (size_t i = 0; i < n; i++)
        fold[i] = 1;
    size_t m = split(feat, z, n, fold, 0, ve->median, ve->iqr, Xtr, ytr);
    fp.seed = o->seed;
    if (!m || nv_svr_train(Xtr, ytr, m, D, best_C, best_g, eps, &ve->svr, err, errlen) ||
        nv_forest_train(Xtr, ytr, m, D, &fp, &ve->forest, err, errlen))
        goto fail;
    ve->lo_q = lo_q;
    ve->hi_q = hi_q;
    free(fold);
    free(Xtr);
    free(ytr);
    free(pred);
    free(best_pred);
    return ve;
fail:
    free(fold);
    free(Xtr);
    free(ytr);
    free(pred);
    free(best_pred);
    nv_ve_free(ve);
    return NULL;
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
    if (nv_forest_interval(&ve->forest, x, ve->lo_q, ve->hi_q, &out->forest_mean, &out->forest_lo,
                           &out->forest_hi))
        return;
    if (out->svr >= out->forest_lo && out->svr <= out->forest_hi) {
        out->answered = 1;
        out->z = out->svr;
        out->half_width = (out->forest_hi - out->forest_lo) / 2;
        out->label = nv_ve_label(out->z);
    }
}

/* ---- serialization ---- */

static json_object *jd(double d)
{
    char buf[40];
    snprintf(buf, sizeof buf, "%.17g", d);
    return json_object_new_double_s(d, buf);
}

static json_object *jarr(const double *v, size_t n)
{
    json_object *a = json_object_new_array_ext((int)n);
    for (size_t i = 0; a && i < n; i++)
        json_object_array_add(a, jd(v[i]));
    return a;
}

json_object *nv_ve_to_json(const nv_ve *ve)
{
    if (!ve)
        return NULL;
    json_object *o = json_object_new_object();
    json_object *names = json_object_new_array();
    for (size_t j = 0; j < D; j++)
        json_object_array_add(names, json_object_new_string(nv_ve_feature_name(j)));
    json_object_object_add(o, "features", names);
    json_object_object_add(o, "target", json_object_new_string("runtime z-score per app and node count"));

    json_object *sc = json_object_new_object();
    json_object_object_add(sc, "median", jarr(ve->median, D));
    json_object_object_add(sc, "iqr", jarr(ve->iqr, D));
    json_object_object_add(o, "scaler", sc);

    const nv_svr *s = &ve->svr;
    json_object *sv = json_object_new_object();
    json_object_object_add(sv, "kernel", json_object_new_string("rbf"));
    json_object_object_add(sv, "gamma", jd(s->gamma));
    json_object_object_add(sv, "C", jd(s->C));
    json_object_object_add(sv, "epsilon", jd(s->epsilon));
    json_object_object_add(sv, "rho", jd(s->rho));
    json_object_object_add(sv, "coef", jarr(s->coef, s->n_sv));
    json_object *vecs = json_object_new_array_ext((int)s->n_sv);
    for (size_t i = 0; i < s->n_sv; i++)
        json_object_array_add(vecs, jarr(s->sv + i * s->nfeat, s->nfeat));
    json_object_object_add(sv, "support_vectors", vecs);
    json_object_object_add(o, "svr", sv);

    const nv_forest *f = &ve->forest;
    json_object *fo = json_object_new_object();
    json_object *qs = json_object_new_array();
    json_object_array_add(qs, jd(ve->lo_q));
    json_object_array_add(qs, jd(ve->hi_q));
    json_object_object_add(fo, "interval_quantiles", qs);
    json_object *trees = json_object_new_array_ext((int)f->n_trees);
    for (size_t t = 0; t < f->n_trees; t++) {
        const nv_forest_node *nd = f->nodes + f->tree_off[t];
        size_t len = f->tree_len[t];
        json_object *to = json_object_new_object();
        json_object *fe = json_object_new_array_ext((int)len), *th = json_object_new_array_ext((int)len);
        json_object *le = json_object_new_array_ext((int)len), *ri = json_object_new_array_ext((int)len);
        json_object *va = json_object_new_array_ext((int)len);
        for (size_t i = 0; i < len; i++) {
            json_object_array_add(fe, json_object_new_int(nd[i].feature));
            json_object_array_add(th, jd(nd[i].threshold));
            json_object_array_add(le, json_object_new_int(nd[i].left));
            json_object_array_add(ri, json_object_new_int(nd[i].right));
            json_object_array_add(va, jd(nd[i].value));
        }
        json_object_object_add(to, "feature", fe);
        json_object_object_add(to, "threshold", th);
        json_object_object_add(to, "left", le);
        json_object_object_add(to, "right", ri);
        json_object_object_add(to, "value", va);
        json_object_array_add(trees, to);
    }
    json_object_object_add(fo, "trees", trees);
    json_object_object_add(o, "forest", fo);

    const nv_ve_training *tr = &ve->training;
    json_object *t = json_object_new_object();
    json_object_object_add(t, "samples", json_object_new_int64((int64_t)tr->samples));
    json_object_object_add(t, "folds", json_object_new_int64((int64_t)tr->folds));
    json_object_object_add(t, "seed", json_object_new_int64((int64_t)(tr->seed & INT64_MAX)));
    json_object_object_add(t, "cv_r2", jd(tr->cv_r2));
    json_object_object_add(t, "cv_r2_forest", jd(tr->cv_r2_forest));
    json_object_object_add(t, "abstention", jd(tr->abstention));
    json_object_object_add(t, "coverage", jd(tr->coverage));
    json_object_object_add(t, "mean_half_width", jd(tr->mean_half_width));
    json_object_object_add(o, "training", t);
    return o;
}
