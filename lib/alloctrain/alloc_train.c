/* alloc_train.c - communication-time trees: libxgboost's boosted trees or
 * netvar's extremely randomized trees, exported as flat trees into the
 * "alloc" model section (alloc_train.h). */
#include "alloc_train.h"

#include <dlfcn.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xgboost/c_api.h>

#include "nv_err.h"

/* libxgboost is loaded when a training starts (dlopen), never linked: only
 * training needs it, so no binary depends on it (or on libgomp and libdmlc)
 * at load, and no other verb loads them. */
static struct {
    int tried;
    void *h;
    __typeof__(&XGBGetLastError) XGBGetLastError;
    __typeof__(&XGBoostVersion) XGBoostVersion;
    __typeof__(&XGBoosterCreate) XGBoosterCreate;
    __typeof__(&XGBoosterDumpModelEx) XGBoosterDumpModelEx;
    __typeof__(&XGBoosterFree) XGBoosterFree;
    __typeof__(&XGBoosterPredict) XGBoosterPredict;
    __typeof__(&XGBoosterSetParam) XGBoosterSetParam;
    __typeof__(&XGBoosterUpdateOneIter) XGBoosterUpdateOneIter;
    __typeof__(&XGDMatrixCreateFromMat) XGDMatrixCreateFromMat;
    __typeof__(&XGDMatrixFree) XGDMatrixFree;
    __typeof__(&XGDMatrixSetFloatInfo) XGDMatrixSetFloatInfo;
} XGB;

static int xgb_load(char *err, size_t errlen)
{
    if (XGB.h)
        return 0;
    if (XGB.tried)
        return nv_err(err, errlen, "alloc train: libxgboost is not loadable (install libxgboost0)");
    XGB.tried = 1;
    void *h = dlopen("libxgboost.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        h = dlopen("libxgboost.so", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return nv_err(err, errlen,
                      "alloc train: cannot load libxgboost (%.200s); install libxgboost0 or use "
                      "--learner extra-trees",
                      dlerror());
    *(void **)&XGB.XGBGetLastError = dlsym(h, "XGBGetLastError");
    *(void **)&XGB.XGBoostVersion = dlsym(h, "XGBoostVersion");
    *(void **)&XGB.XGBoosterCreate = dlsym(h, "XGBoosterCreate");
    *(void **)&XGB.XGBoosterDumpModelEx = dlsym(h, "XGBoosterDumpModelEx");
    *(void **)&XGB.XGBoosterFree = dlsym(h, "XGBoosterFree");
    *(void **)&XGB.XGBoosterPredict = dlsym(h, "XGBoosterPredict");
    *(void **)&XGB.XGBoosterSetParam = dlsym(h, "XGBoosterSetParam");
    *(void **)&XGB.XGBoosterUpdateOneIter = dlsym(h, "XGBoosterUpdateOneIter");
    *(void **)&XGB.XGDMatrixCreateFromMat = dlsym(h, "XGDMatrixCreateFromMat");
    *(void **)&XGB.XGDMatrixFree = dlsym(h, "XGDMatrixFree");
    *(void **)&XGB.XGDMatrixSetFloatInfo = dlsym(h, "XGDMatrixSetFloatInfo");
    if (!XGB.XGBGetLastError || !XGB.XGBoostVersion || !XGB.XGBoosterCreate ||
        !XGB.XGBoosterDumpModelEx || !XGB.XGBoosterFree || !XGB.XGBoosterPredict ||
        !XGB.XGBoosterSetParam || !XGB.XGBoosterUpdateOneIter || !XGB.XGDMatrixCreateFromMat ||
        !XGB.XGDMatrixFree || !XGB.XGDMatrixSetFloatInfo) {
        dlclose(h);
        return nv_err(err, errlen,
                      "alloc train: libxgboost lacks a C API function this netvar calls");
    }
    XGB.h = h;
    return 0;
}

void nv_alloc_train_defaults(nv_alloc_train_params *p, nv_alloc_learner l)
{
    memset(p, 0, sizeof *p);
    p->learner = l;
    p->trees = l == NV_LEARN_XGBOOST ? 50 : 100;
    p->max_depth = l == NV_LEARN_XGBOOST ? 4 : 12;
    p->eta = 0.3;
    p->min_split = 5;
    p->seed = 1;
}

const char *nv_alloc_xgboost_version(void)
{
    static char v[32];
    int a = 0, b = 0, c = 0;
    char err[300];
    if (xgb_load(err, sizeof err))
        return "xgboost (not loadable)";
    XGB.XGBoostVersion(&a, &b, &c);
    snprintf(v, sizeof v, "xgboost %d.%d.%d", a, b, c);
    return v;
}

/* ---- flat tree under construction ---- */

typedef struct tbuf {
    int32_t *feat, *left, *right;
    double *thr, *val;
    uint32_t *roots;
    size_t n, cap, nt, cap_t;
} tbuf;

static void tbuf_free(tbuf *t)
{
    free(t->feat);
    free(t->left);
    free(t->right);
    free(t->thr);
    free(t->val);
    free(t->roots);
}

static long tbuf_node(tbuf *t)
{
    if (t->n == t->cap) {
        size_t c = t->cap ? t->cap * 2 : 1024;
        int32_t *f = realloc(t->feat, c * sizeof *f);
        if (f)
            t->feat = f;
        int32_t *l = realloc(t->left, c * sizeof *l);
        if (l)
            t->left = l;
        int32_t *r = realloc(t->right, c * sizeof *r);
        if (r)
            t->right = r;
        double *th = realloc(t->thr, c * sizeof *th);
        if (th)
            t->thr = th;
        double *v = realloc(t->val, c * sizeof *v);
        if (v)
            t->val = v;
        if (!f || !l || !r || !th || !v)
            return -1;
        t->cap = c;
    }
    size_t i = t->n++;
    t->feat[i] = -1;
    t->left[i] = t->right[i] = 0;
    t->thr[i] = t->val[i] = 0;
    return (long)i;
}

static int tbuf_root(tbuf *t)
{
    if (t->nt == t->cap_t) {
        size_t c = t->cap_t ? t->cap_t * 2 : 64;
        uint32_t *r = realloc(t->roots, c * sizeof *r);
        if (!r)
            return -1;
        t->roots = r;
        t->cap_t = c;
    }
    t->roots[t->nt++] = (uint32_t)t->n;
    return 0;
}

/* ---- XGBoost: dump as JSON, renumber in preorder (children after parent) ---- */

static long from_dump(tbuf *t, json_object *node, int nf, int depth)
{
    if (depth > 64)
        return -1;
    long i = tbuf_node(t);
    if (i < 0)
        return -1;
    json_object *leaf, *split, *cond, *kids;
    if (json_object_object_get_ex(node, "leaf", &leaf)) {
        t->val[i] = json_object_get_double(leaf);
        return i;
    }
    if (!json_object_object_get_ex(node, "split", &split) ||
        !json_object_object_get_ex(node, "split_condition", &cond) ||
        !json_object_object_get_ex(node, "children", &kids) || json_object_array_length(kids) != 2)
        return -1;
    const char *s = json_object_get_string(split);
    int f = (s && s[0] == 'f') ? atoi(s + 1) : -1;
    if (f < 0 || f >= nf)
        return -1;
    long yes_id = -1;
    json_object *yes;
    if (json_object_object_get_ex(node, "yes", &yes))
        yes_id = json_object_get_int64(yes);
    json_object *k0 = json_object_array_get_idx(kids, 0), *k1 = json_object_array_get_idx(kids, 1),
                *id0;
    /* children in the order "yes" (x < cond), "no" */
    if (json_object_object_get_ex(k0, "nodeid", &id0) && json_object_get_int64(id0) != yes_id) {
        json_object *tmp = k0;
        k0 = k1;
        k1 = tmp;
    }
    t->feat[i] = f;
    t->thr[i] = json_object_get_double(cond);
    long l = from_dump(t, k0, nf, depth + 1);
    if (l < 0)
        return -1;
    long r = from_dump(t, k1, nf, depth + 1);
    if (r < 0)
        return -1;
    t->left[i] = (int32_t)l; /* absolute indexes, as nv_alloc_add_predictor takes */
    t->right[i] = (int32_t)r;
    return i;
}

#define XG(call)                                                                                   \
    do {                                                                                           \
        if ((call) != 0) {                                                                         \
            nv_err(err, errlen, "alloc train: xgboost: %.300s", XGB.XGBGetLastError());            \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

static int train_xgb(const float *X, const float *y, size_t n, int nf, double base,
                     const nv_alloc_train_params *p, tbuf *t, float *pred, char *err, size_t errlen)
{
    DMatrixHandle dm = NULL;
    BoosterHandle bh = NULL;
    int rc = -1;
    char buf[64];
    if (xgb_load(err, errlen))
        return -1;
    XG(XGB.XGDMatrixCreateFromMat(X, (bst_ulong)n, (bst_ulong)nf, NAN, &dm));
    XG(XGB.XGDMatrixSetFloatInfo(dm, "label", y, (bst_ulong)n));
    XG(XGB.XGBoosterCreate(&dm, 1, &bh));
    XG(XGB.XGBoosterSetParam(bh, "objective", "reg:squarederror"));
    XG(XGB.XGBoosterSetParam(bh, "tree_method", "exact"));
    XG(XGB.XGBoosterSetParam(bh, "nthread", "1"));
    XG(XGB.XGBoosterSetParam(bh, "verbosity", "0"));
    snprintf(buf, sizeof buf, "%u", p->max_depth);
    XG(XGB.XGBoosterSetParam(bh, "max_depth", buf));
    snprintf(buf, sizeof buf, "%.17g", p->eta);
    XG(XGB.XGBoosterSetParam(bh, "eta", buf));
    snprintf(buf, sizeof buf, "%.17g", base);
    XG(XGB.XGBoosterSetParam(bh, "base_score", buf));
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)(p->seed % 2147483647u));
    XG(XGB.XGBoosterSetParam(bh, "seed", buf));
    for (uint32_t it = 0; it < p->trees; it++)
        XG(XGB.XGBoosterUpdateOneIter(bh, (int)it, dm));
    bst_ulong nd = 0;
    const char **dump = NULL;
    XG(XGB.XGBoosterDumpModelEx(bh, "", 1, "json", &nd, &dump));
    for (bst_ulong k = 0; k < nd; k++) {
        json_object *tree = json_tokener_parse(dump[k]);
        if (!tree || tbuf_root(t) || from_dump(t, tree, nf, 0) < 0) {
            json_object_put(tree);
            nv_err(err, errlen,
                   "alloc train: xgboost tree %lu: dump not understood or out of memory",
                   (unsigned long)k);
            goto out;
        }
        json_object_put(tree);
    }
    bst_ulong np = 0;
    const float *res = NULL;
    XG(XGB.XGBoosterPredict(bh, dm, 0, 0, 0, &np, &res));
    if (np != n) {
        nv_err(err, errlen, "alloc train: xgboost gave %lu predictions for %zu rows",
               (unsigned long)np, n);
        goto out;
    }
    memcpy(pred, res, n * sizeof *pred);
    rc = 0;
out:
    if (bh)
        XGB.XGBoosterFree(bh);
    if (dm)
        XGB.XGDMatrixFree(dm);
    return rc;
}

/* ---- extremely randomized trees ---- */

static uint64_t rnd(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static double unif(uint64_t *s)
{
    return (double)(rnd(s) >> 11) / 9007199254740992.0;
}

/* grows the subtree over rows ix[0..n) in place; returns its node index */
static long et_grow(tbuf *t, const float *X, const float *y, int nf, size_t *ix, size_t n,
                    const nv_alloc_train_params *p, uint32_t depth, uint64_t *seed)
{
    long i = tbuf_node(t);
    if (i < 0)
        return -1;
    double sum = 0;
    for (size_t k = 0; k < n; k++)
        sum += y[ix[k]];
    t->val[i] = n ? sum / n : 0;
    if (n < p->min_split || depth >= p->max_depth)
        return i;
    int best_f = -1;
    double best_thr = 0, best_score = -INFINITY;
    for (int f = 0; f < nf; f++) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t k = 0; k < n; k++) {
            double v = X[ix[k] * (size_t)nf + f];
            lo = fmin(lo, v);
            hi = fmax(hi, v);
        }
        if (!(hi > lo))
            continue;
        double thr = lo + unif(seed) * (hi - lo);
        if (!(thr > lo))
            thr = hi;
        double sl = 0, sr = 0;
        size_t nl = 0;
        for (size_t k = 0; k < n; k++) {
            if (X[ix[k] * (size_t)nf + f] < (float)thr) {
                sl += y[ix[k]];
                nl++;
            } else {
                sr += y[ix[k]];
            }
        }
        if (nl == 0 || nl == n)
            continue;
        /* variance reduction up to a constant: sum^2/n of each side */
        double score = sl * sl / nl + sr * sr / (n - nl);
        if (score > best_score) {
            best_score = score;
            best_f = f;
            best_thr = thr;
        }
    }
    if (best_f < 0)
        return i;
    size_t a = 0, b = n;
    while (a < b) {
        if (X[ix[a] * (size_t)nf + best_f] < (float)best_thr) {
            a++;
        } else {
            size_t tmp = ix[a];
            ix[a] = ix[--b];
            ix[b] = tmp;
        }
    }
    t->feat[i] = best_f;
    t->thr[i] = (float)best_thr;
    long l = et_grow(t, X, y, nf, ix, a, p, depth + 1, seed);
    if (l < 0)
        return -1;
    long r = et_grow(t, X, y, nf, ix + a, n - a, p, depth + 1, seed);
    if (r < 0)
        return -1;
    t->left[i] = (int32_t)l; /* absolute indexes, as nv_alloc_add_predictor takes */
    t->right[i] = (int32_t)r;
    return i;
}

static int train_extra(const float *X, const float *y, size_t n, int nf, double base,
                       const nv_alloc_train_params *p, tbuf *t, float *pred, char *err,
                       size_t errlen)
{
    (void)pred;
    size_t *ix = malloc(n * sizeof *ix);
    float *yc = malloc(n * sizeof *yc);
    if (!ix || !yc) {
        free(ix);
        free(yc);
        return nv_err(err, errlen, "alloc train: out of memory");
    }
    for (size_t k = 0; k < n; k++)
        yc[k] = (float)(y[k] - base);
    uint64_t seed = p->seed ? p->seed * 0x9E3779B97F4A7C15ull : 88172645463325252ull;
    for (uint32_t k = 0; k < p->trees; k++) {
        for (size_t r = 0; r < n; r++)
            ix[r] = r;
        if (tbuf_root(t) || et_grow(t, X, yc, nf, ix, n, p, 0, &seed) < 0) {
            free(ix);
            free(yc);
            return nv_err(err, errlen, "alloc train: out of memory growing tree %u", k);
        }
    }
    free(ix);
    free(yc);
    return 0;
}

long nv_alloc_train_class(const nv_alloc_dataset *d, const size_t *idx, size_t n,
                          nv_alloc_class cls, double min_msg, double max_msg,
                          const nv_alloc_train_params *p, nv_alloc_model *m, char *err,
                          size_t errlen)
{
    int nf = nv_alloc_class_features(cls);
    if (!d || !p || !m || nf <= 0)
        return nv_err(err, errlen, "alloc train: bad arguments");
    size_t total = idx ? n : d->n;
    float *X = malloc((total ? total : 1) * (size_t)nf * sizeof *X);
    float *y = malloc((total ? total : 1) * sizeof *y);
    float *pred = malloc((total ? total : 1) * sizeof *pred);
    if (!X || !y || !pred) {
        free(X);
        free(y);
        free(pred);
        return nv_err(err, errlen, "alloc train: out of memory");
    }
    size_t used = 0;
    double base = 0;
    for (size_t k = 0; k < total; k++) {
        const nv_alloc_row *r = &d->rows[idx ? idx[k] : k];
        if (!(r->x[NV_AF_MAX_S] > min_msg && r->x[NV_AF_MAX_S] <= max_msg) || !(r->comm_s > 0))
            continue;
        for (int f = 0; f < nf; f++)
            X[used * (size_t)nf + (size_t)f] = (float)r->x[f];
        y[used] = (float)log(r->comm_s);
        base += y[used];
        used++;
    }
    long rc = -1;
    tbuf t;
    memset(&t, 0, sizeof t);
    if (used < 2) {
        nv_err(err, errlen, "alloc train: class %s, maxS in (%g, %g] bytes: %zu rows; need 2",
               nv_alloc_class_name(cls), min_msg, max_msg, used);
        goto out;
    }
    base /= used;
    if ((p->learner == NV_LEARN_XGBOOST ? train_xgb : train_extra)(X, y, used, nf, base, p, &t,
                                                                   pred, err, errlen))
        goto out;
    nv_alloc_predictor pr;
    memset(&pr, 0, sizeof pr);
    pr.cls = cls;
    pr.max_msg_bytes = max_msg;
    pr.combine = p->learner == NV_LEARN_XGBOOST ? NV_ALLOC_SUM : NV_ALLOC_MEAN;
    pr.base = base;
    pr.samples = (uint32_t)used;
    if (p->learner == NV_LEARN_XGBOOST)
        snprintf(pr.source, sizeof pr.source, "%s: %u rounds, depth %u, eta %g",
                 nv_alloc_xgboost_version(), p->trees, p->max_depth, p->eta);
    else
        snprintf(pr.source, sizeof pr.source, "extra trees: %u trees, depth %u, split >= %u",
                 p->trees, p->max_depth, p->min_split);
    if (nv_alloc_add_predictor(m, &pr, t.feat, t.thr, t.left, t.right, t.val, t.n, t.roots, t.nt,
                               err, errlen))
        goto out;
    /* the exported trees must answer as XGBoost itself does (same split
     * rule, single precision): checked on every training row */
    const nv_alloc_predictor *mine = nv_alloc_predictor_at(m, nv_alloc_predictor_count(m) - 1);
    for (size_t k = 0; p->learner == NV_LEARN_XGBOOST && k < used; k++) {
        double x[NV_AF_COUNT] = {0};
        for (int f = 0; f < nf; f++)
            x[f] = X[k * (size_t)nf + (size_t)f];
        double got = nv_alloc_predictor_eval(m, mine, x);
        if (!(fabs(got - pred[k]) <= 1e-3 * (1 + fabs(pred[k])))) {
            nv_err(err, errlen, "alloc train: exported trees answer %.6g for row %zu, xgboost %.6g",
                   got, k, (double)pred[k]);
            goto out;
        }
    }
    rc = (long)used;
out:
    tbuf_free(&t);
    free(X);
    free(y);
    free(pred);
    return rc;
}
