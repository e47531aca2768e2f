/* ve_load.c - parse and validate the model file's optional "variability"
 * section into an nv_ve, and free one.  Pure json-c (no libsvm calls), so
 * the model loader and its fuzzer stay free of -lsvm.  Format: see
 * docs/model-format.md, including the forest's interval calibration
 * (ve_calibrate.h), optional so that files written before it still load:
 *   "forest": {..., "calibration": {
 *       "method": "oob-conformal-sd",      required; the only one known
 *       "level": 0.9,                      required, 0 < level < 1
 *       "factor": 0.8,                     required, 0 <= factor <= 1e6: forest
 *                                          interval mean +/- factor (sd + beta)
 *       "svr_factor": 1.6,                 required, 0 <= svr_factor <= 1e6:
 *                                          answer SVR +/- svr_factor (sd + beta)
 *       "spread_floor": 0.12,              required, sigma, 0 < beta <= 1e6
 *       "points": 1350,                    optional integer >= 0 (informative)
 *       "oob_coverage": 0.9}}              optional, 0..1 (informative)
 *   Absent: the interval is the raw interval_quantiles of the tree
 *   predictions, which is what such a file meant when it was written. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nv_json.h"
#include "ve_model.h"

#define D NV_VE_NFEAT

/* an array of exactly n numbers (n == 0: any length up to max, count in *got) */
static int nums(nv_jcheck *L, json_object *o, const char *key, const char *path, double *out,
                size_t n)
{
    char p[200];
    json_object *a = nv_jcheck_member(L, o, key, path, json_type_array);
    if (!a)
        return -1;
    size_t len = json_object_array_length(a);
    if (len != n)
        return nv_jcheck_fail(L, "%s.%s: holds %zu numbers; expected %zu", path, key, len, n);
    for (size_t i = 0; i < len; i++) {
        snprintf(p, sizeof p, "%s.%s[%zu]", path, key, i);
        if (nv_jcheck_number(L, json_object_array_get_idx(a, i), p, &out[i]))
            return -1;
    }
    return 0;
}

static int parse_svr(nv_jcheck *L, json_object *o, const char *path, nv_svr *s)
{
    json_object *k = nv_jcheck_member(L, o, "kernel", path, json_type_string);
    if (!k)
        return -1;
    if (strcmp(json_object_get_string(k), "rbf"))
        return nv_jcheck_fail(L, "%s.kernel: value \"%.20s\" is not \"rbf\"", path,
                              json_object_get_string(k));
    if (nv_jcheck_number_member(L, o, "gamma", path, &s->gamma) ||
        nv_jcheck_number_member(L, o, "C", path, &s->C) ||
        nv_jcheck_number_member(L, o, "epsilon", path, &s->epsilon) ||
        nv_jcheck_number_member(L, o, "rho", path, &s->rho))
        return -1;
    if (!(s->gamma > 0))
        return nv_jcheck_fail(L, "%s.gamma: value %g is not > 0", path, s->gamma);
    if (!(s->C > 0))
        return nv_jcheck_fail(L, "%s.C: value %g is not > 0", path, s->C);
    if (s->epsilon < 0)
        return nv_jcheck_fail(L, "%s.epsilon: value %g is negative", path, s->epsilon);
    json_object *coef = nv_jcheck_member(L, o, "coef", path, json_type_array);
    json_object *vecs =
        coef ? nv_jcheck_member(L, o, "support_vectors", path, json_type_array) : NULL;
    if (!vecs)
        return -1;
    size_t n = json_object_array_length(coef);
    if (n > NV_SVR_MAX_SV)
        return nv_jcheck_fail(L, "%s.coef: %zu support vectors is more than %u", path, n,
                              NV_SVR_MAX_SV);
    if (json_object_array_length(vecs) != n)
        return nv_jcheck_fail(L, "%s.support_vectors: holds %zu vectors but coef holds %zu", path,
                              json_object_array_length(vecs), n);
    s->nfeat = D;
    s->n_sv = n;
    s->sv = malloc((n ? n : 1) * D * sizeof *s->sv);
    s->coef = malloc((n ? n : 1) * sizeof *s->coef);
    if (!s->sv || !s->coef)
        return nv_jcheck_fail(L, "%s: out of memory for %zu support vectors", path, n);
    char p[200];
    for (size_t i = 0; i < n; i++) {
        snprintf(p, sizeof p, "%s.coef[%zu]", path, i);
        if (nv_jcheck_number(L, json_object_array_get_idx(coef, i), p, &s->coef[i]))
            return -1;
        json_object *row = json_object_array_get_idx(vecs, i);
        snprintf(p, sizeof p, "%s.support_vectors[%zu]", path, i);
        if (!json_object_is_type(row, json_type_array) || json_object_array_length(row) != D)
            return nv_jcheck_fail(L, "%s: expected an array of %d numbers", p, D);
        for (size_t j = 0; j < D; j++) {
            snprintf(p, sizeof p, "%s.support_vectors[%zu][%zu]", path, i, j);
            if (nv_jcheck_number(L, json_object_array_get_idx(row, j), p, &s->sv[i * D + j]))
                return -1;
        }
    }
    if (nv_svr_prepare(s))
        return nv_jcheck_fail(L, "%s: out of memory", path);
    return 0;
}

/* the optional forest.calibration object (format above) */
static int parse_calibration(nv_jcheck *L, json_object *o, const char *path, nv_ve_calibration *cal)
{
    json_object *m = nv_jcheck_member(L, o, "method", path, json_type_string);
    if (!m)
        return -1;
    if (strcmp(json_object_get_string(m), NV_VE_CAL_METHOD))
        return nv_jcheck_fail(
            L,
            "%s.method: value \"%.30s\" is not \"%s\" (the only method this netvar "
            "knows; retrain with it)",
            path, json_object_get_string(m), NV_VE_CAL_METHOD);
    if (nv_jcheck_number_member(L, o, "level", path, &cal->level) ||
        nv_jcheck_number_member(L, o, "factor", path, &cal->factor) ||
        nv_jcheck_number_member(L, o, "svr_factor", path, &cal->svr_factor) ||
        nv_jcheck_number_member(L, o, "spread_floor", path, &cal->spread_floor))
        return -1;
    if (!(cal->level > 0 && cal->level < 1))
        return nv_jcheck_fail(L, "%s.level: value %g is not between 0 and 1", path, cal->level);
    if (!(cal->factor >= 0 && cal->factor <= 1e6))
        return nv_jcheck_fail(L, "%s.factor: value %g is outside [0, 1e6]", path, cal->factor);
    if (!(cal->svr_factor >= 0 && cal->svr_factor <= 1e6))
        return nv_jcheck_fail(L, "%s.svr_factor: value %g is outside [0, 1e6]", path,
                              cal->svr_factor);
    if (!(cal->spread_floor > 0 && cal->spread_floor <= 1e6))
        return nv_jcheck_fail(L, "%s.spread_floor: value %g is outside (0, 1e6] sigma", path,
                              cal->spread_floor);
    json_object *v = NULL;
    char p[220];
    if (json_object_object_get_ex(o, "points", &v)) {
        int64_t pts;
        snprintf(p, sizeof p, "%s.points", path);
        if (nv_jcheck_integer(L, v, p, 0, 1L << 30, &pts))
            return -1;
        cal->points = (size_t)pts;
    }
    if (json_object_object_get_ex(o, "oob_coverage", &v)) {
        snprintf(p, sizeof p, "%s.oob_coverage", path);
        if (nv_jcheck_number(L, v, p, &cal->oob_coverage))
            return -1;
        if (!(cal->oob_coverage >= 0 && cal->oob_coverage <= 1))
            return nv_jcheck_fail(L, "%s: value %g is not between 0 and 1", p, cal->oob_coverage);
    }
    cal->calibrated = 1;
    return 0;
}

static const char *const tree_fields[5] = {"feature", "threshold", "left", "right", "value"};

static int parse_forest(nv_jcheck *L, json_object *o, const char *path, nv_ve *ve)
{
    double q[2];
    if (nums(L, o, "interval_quantiles", path, q, 2))
        return -1;
    if (!(q[0] >= 0 && q[0] < q[1] && q[1] <= 1))
        return nv_jcheck_fail(L, "%s.interval_quantiles: %g..%g is not 0 <= lo < hi <= 1", path,
                              q[0], q[1]);
    ve->lo_q = q[0];
    ve->hi_q = q[1];
    json_object *ca = NULL;
    if (json_object_object_get_ex(o, "calibration", &ca)) {
        char cp[200];
        snprintf(cp, sizeof cp, "%s.calibration", path);
        if (!ca || !json_object_is_type(ca, json_type_object))
            return nv_jcheck_fail(L, "%s: expected an object, got %s", cp, nv_jcheck_type_name(ca));
        if (parse_calibration(L, ca, cp, &ve->cal))
            return -1;
    }
    json_object *trees = nv_jcheck_member(L, o, "trees", path, json_type_array);
    if (!trees)
        return -1;
    size_t nt = json_object_array_length(trees);
    if (nt == 0 || nt > NV_FOREST_MAX_TREES)
        return nv_jcheck_fail(L, "%s.trees: holds %zu trees; expected 1 to %d", path, nt,
                              NV_FOREST_MAX_TREES);
    nv_forest *f = &ve->forest;
    f->nfeat = D;
    f->tree_off = calloc(nt, sizeof *f->tree_off);
    f->tree_len = calloc(nt, sizeof *f->tree_len);
    if (!f->tree_off || !f->tree_len)
        return nv_jcheck_fail(L, "%s.trees: out of memory", path);
    size_t total = 0, cap = 0;
    char p[200], q2[256];
    for (size_t t = 0; t < nt; t++) {
        json_object *to = json_object_array_get_idx(trees, t);
        snprintf(p, sizeof p, "%s.trees[%zu]", path, t);
        if (!json_object_is_type(to, json_type_object))
            return nv_jcheck_fail(L, "%s: expected an object", p);
        json_object *arr[5];
        for (int k = 0; k < 5; k++)
            if (!(arr[k] = nv_jcheck_member(L, to, tree_fields[k], p, json_type_array)))
                return -1;
        size_t len = json_object_array_length(arr[0]);
        if (len == 0 || len > NV_FOREST_MAX_NODES)
            return nv_jcheck_fail(L, "%s.feature: holds %zu nodes; expected 1 to %u", p, len,
                                  NV_FOREST_MAX_NODES);
        for (int k = 1; k < 5; k++)
            if (json_object_array_length(arr[k]) != len)
                return nv_jcheck_fail(L, "%s.%s: holds %zu entries but feature holds %zu", p,
                                      tree_fields[k], json_object_array_length(arr[k]), len);
        if (total + len > UINT32_MAX / 2)
            return nv_jcheck_fail(L, "%s: the forest has too many nodes", p);
        if (total + len > cap) {
            size_t c = cap ? cap : 1024;
            while (c < total + len)
                c *= 2;
            nv_forest_node *nn = realloc(f->nodes, c * sizeof *nn);
            if (!nn)
                return nv_jcheck_fail(L, "%s: out of memory", p);
            f->nodes = nn;
            cap = c;
        }
        f->tree_off[t] = (uint32_t)total;
        f->tree_len[t] = (uint32_t)len;
        f->n_trees = t + 1;
        for (size_t i = 0; i < len; i++) {
            nv_forest_node *nd = &f->nodes[total + i];
            int64_t fe, le, ri;
            snprintf(q2, sizeof q2, "%s.feature[%zu]", p, i);
            if (nv_jcheck_integer(L, json_object_array_get_idx(arr[0], i), q2, -1, D - 1, &fe))
                return -1;
            snprintf(q2, sizeof q2, "%s.threshold[%zu]", p, i);
            if (nv_jcheck_number(L, json_object_array_get_idx(arr[1], i), q2, &nd->threshold))
                return -1;
            snprintf(q2, sizeof q2, "%s.value[%zu]", p, i);
            if (nv_jcheck_number(L, json_object_array_get_idx(arr[4], i), q2, &nd->value))
                return -1;
            snprintf(q2, sizeof q2, "%s.left[%zu]", p, i);
            if (nv_jcheck_integer(L, json_object_array_get_idx(arr[2], i), q2, -1, (int64_t)len - 1,
                                  &le))
                return -1;
            snprintf(q2, sizeof q2, "%s.right[%zu]", p, i);
            if (nv_jcheck_integer(L, json_object_array_get_idx(arr[3], i), q2, -1, (int64_t)len - 1,
                                  &ri))
                return -1;
            nd->feature = (int32_t)fe;
            nd->left = (int32_t)le;
            nd->right = (int32_t)ri;
            /* children after their parent: every walk ends */
            if (fe >= 0 && (le <= (int64_t)i || ri <= (int64_t)i))
                return nv_jcheck_fail(L,
                                      "%s.left[%zu]: children %lld and %lld must come after "
                                      "node %zu (and a leaf has feature -1)",
                                      p, i, (long long)le, (long long)ri, i);
        }
        total += len;
        f->n_nodes = total;
    }
    return 0;
}

nv_ve *nv_ve_from_json(json_object *o, const char *path, char *err, size_t errlen)
{
    nv_jcheck L = {err, errlen, 0};
    char p[160];
    if (!o || !json_object_is_type(o, json_type_object)) {
        nv_jcheck_fail(&L, "%s: expected an object, got %s", path, nv_jcheck_type_name(o));
        return NULL;
    }
    nv_ve *ve = calloc(1, sizeof *ve);
    if (!ve) {
        nv_jcheck_fail(&L, "%s: out of memory", path);
        return NULL;
    }
    json_object *names = nv_jcheck_member(&L, o, "features", path, json_type_array);
    if (names && json_object_array_length(names) != D)
        nv_jcheck_fail(&L, "%s.features: holds %zu names; this netvar uses %d", path,
                       json_object_array_length(names), D);
    for (size_t j = 0; names && !L.failed && j < D; j++) {
        json_object *n = json_object_array_get_idx(names, j);
        if (!json_object_is_type(n, json_type_string) ||
            strcmp(json_object_get_string(n), nv_ve_feature_name(j)))
            nv_jcheck_fail(
                &L,
                "%s.features[%zu]: expected \"%s\" (the features are fixed; retrain with "
                "this netvar)",
                path, j, nv_ve_feature_name(j));
    }
    json_object *sc = L.failed ? NULL : nv_jcheck_member(&L, o, "scaler", path, json_type_object);
    if (sc) {
        snprintf(p, sizeof p, "%s.scaler", path);
        if (!nums(&L, sc, "median", p, ve->median, D) && !nums(&L, sc, "iqr", p, ve->iqr, D))
            for (size_t j = 0; j < D && !L.failed; j++)
                if (!(ve->iqr[j] > 0))
                    nv_jcheck_fail(&L, "%s.iqr[%zu]: value %g is not > 0", p, j, ve->iqr[j]);
    }
    json_object *sv = L.failed ? NULL : nv_jcheck_member(&L, o, "svr", path, json_type_object);
    if (sv) {
        snprintf(p, sizeof p, "%s.svr", path);
        parse_svr(&L, sv, p, &ve->svr);
    }
    json_object *fo = L.failed ? NULL : nv_jcheck_member(&L, o, "forest", path, json_type_object);
    if (fo) {
        snprintf(p, sizeof p, "%s.forest", path);
        parse_forest(&L, fo, p, ve);
    }
    json_object *tr = L.failed ? NULL : nv_json_get(o, "training", json_type_object);
    if (tr) {
        /* descriptive only: read what is there, require nothing */
        uint64_t u;
        if (nv_json_u64(tr, "samples", &u) == 0)
            ve->training.samples = (size_t)u;
        if (nv_json_u64(tr, "folds", &u) == 0)
            ve->training.folds = (size_t)u;
        const char *keys[8] = {
            "cv_r2",           "cv_r2_forest", "abstention",        "coverage",
            "mean_half_width", "level",        "interval_coverage", "point_coverage"};
        double *dst[8] = {&ve->training.cv_r2,
                          &ve->training.cv_r2_forest,
                          &ve->training.abstention,
                          &ve->training.coverage,
                          &ve->training.mean_half_width,
                          &ve->training.level,
                          &ve->training.interval_coverage,
                          &ve->training.point_coverage};
        for (int k = 0; k < 8; k++)
            *dst[k] = nv_json_num_or(tr, keys[k], *dst[k]);
    }
    ve->training.C = ve->svr.C;
    ve->training.gamma = ve->svr.gamma;
    ve->training.epsilon = ve->svr.epsilon;
    if (L.failed) {
        nv_ve_free(ve);
        return NULL;
    }
    return ve;
}

void nv_ve_free(nv_ve *ve)
{
    if (!ve)
        return;
    nv_svr_free(&ve->svr);
    nv_forest_free(&ve->forest);
    free(ve);
}
