/* ve_forest.c - random forest regression: training (with out-of-bag
 * summaries), per-tree predictions, their spread and quantile intervals
 * (see ve_forest.h). */
#include "ve_forest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sort_cmp.h"

/* xorshift64*: small, fast and reproducible everywhere */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 2685821657736338717ull;
}

static size_t rng_below(uint64_t *s, size_t n)
{
    return (size_t)(rng_next(s) % (uint64_t)n);
}

struct xy {
    double x, y;
    size_t i;
};

static int cmp_xy(const void *a, const void *b)
{
    const struct xy *p = a, *q = b;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    return (p->i > q->i) - (p->i < q->i); /* ties in input order: deterministic */
}

struct grower {
    const double *X, *y;
    size_t d, min_leaf, mtry;
    uint64_t rng;
    struct xy *buf;
    size_t *feat_order;
    nv_forest_node *nodes;
    size_t n_nodes, cap;
    int failed;
};

static long new_node(struct grower *g)
{
    if (g->n_nodes == g->cap) {
        size_t c = g->cap ? g->cap * 2 : 256;
        if (c > NV_FOREST_MAX_NODES)
            c = NV_FOREST_MAX_NODES;
        if (c <= g->n_nodes) {
            g->failed = 1;
            return -1;
        }
        nv_forest_node *p = realloc(g->nodes, c * sizeof *p);
        if (!p) {
            g->failed = 1;
            return -1;
        }
        g->nodes = p;
        g->cap = c;
    }
    return (long)g->n_nodes++;
}

/* grows the subtree over idx[0..n) at depth; returns its node index */
static long grow(struct grower *g, size_t *idx, size_t n, int depth)
{
    long me = new_node(g);
    if (me < 0)
        return -1;
    double sum = 0;
    for (size_t k = 0; k < n; k++)
        sum += g->y[idx[k]];
    double mean = n ? sum / (double)n : 0;
    nv_forest_node *nd = &g->nodes[me];
    nd->feature = -1;
    nd->left = nd->right = -1;
    nd->threshold = 0;
    nd->value = mean;
    if (n < 2 * g->min_leaf || depth >= NV_FOREST_MAX_DEPTH)
        return me;

    /* a random subset of mtry features, in random order */
    for (size_t j = 0; j < g->d; j++)
        g->feat_order[j] = j;
    for (size_t j = 0; j + 1 < g->d; j++) {
        size_t r = j + rng_below(&g->rng, g->d - j);
        size_t t = g->feat_order[j];
        g->feat_order[j] = g->feat_order[r];
        g->feat_order[r] = t;
    }
    double best_gain = 0, best_thr = 0;
    long best_f = -1;
    double base = sum * sum / (double)n;
    for (size_t t = 0; t < g->mtry; t++) {
        size_t f = g->feat_order[t];
        for (size_t k = 0; k < n; k++) {
            g->buf[k].x = g->X[idx[k] * g->d + f];
            g->buf[k].y = g->y[idx[k]];
            g->buf[k].i = k;
        }
        qsort(g->buf, n, sizeof *g->buf, cmp_xy);
        double left = 0;
        for (size_t k = 0; k + 1 < n; k++) {
            left += g->buf[k].y;
            size_t nl = k + 1, nr = n - nl;
            if (nl < g->min_leaf || nr < g->min_leaf || g->buf[k].x == g->buf[k + 1].x)
                continue;
            double right = sum - left;
            double gain = left * left / (double)nl + right * right / (double)nr - base;
            if (gain > best_gain * (1 + 1e-12) + 1e-300) {
                best_gain = gain;
                best_f = (long)f;
                best_thr = g->buf[k].x + (g->buf[k + 1].x - g->buf[k].x) / 2;
                if (!(best_thr < g->buf[k + 1].x)) /* midpoint rounded up */
                    best_thr = g->buf[k].x;
            }
        }
    }
    if (best_f < 0)
        return me;
    /* partition idx: left part first */
    size_t nl = 0;
    for (size_t k = 0; k < n; k++)
        if (g->X[idx[k] * g->d + (size_t)best_f] <= best_thr) {
            size_t t = idx[nl];
            idx[nl++] = idx[k];
            idx[k] = t;
        }
    if (nl == 0 || nl == n)
        return me;
    long l = grow(g, idx, nl, depth + 1);
    long r = l < 0 ? -1 : grow(g, idx + nl, n - nl, depth + 1);
    if (l < 0 || r < 0)
        return -1;
    nd = &g->nodes[me]; /* realloc may have moved it */
    nd->feature = (int32_t)best_f;
    nd->threshold = best_thr;
    nd->left = (int32_t)l;
    nd->right = (int32_t)r;
    return me;
}

static double tree_predict(const nv_forest_node *t, uint32_t len, const double *x);

/* Welford's update of sample i's running out-of-bag mean; sd holds the sum
 * of squared deviations until oob_finish */
static void oob_add(nv_forest_oob *o, double v)
{
    o->trees++;
    double delta = v - o->mean;
    o->mean += delta / (double)o->trees;
    o->sd += delta * (v - o->mean);
}

static void oob_finish(nv_forest_oob *oob, size_t n)
{
    for (size_t i = 0; i < n; i++)
        oob[i].sd = oob[i].trees >= 2 && oob[i].sd > 0 ? sqrt(oob[i].sd / (oob[i].trees - 1)) : 0;
}

int nv_forest_train(const double *X, const double *y, size_t n, size_t d, const nv_forest_params *p,
                    nv_forest *out, char *err, size_t errlen)
{
    return nv_forest_train_oob(X, y, n, d, p, out, NULL, err, errlen);
}

int nv_forest_train_oob(const double *X, const double *y, size_t n, size_t d,
                        const nv_forest_params *p, nv_forest *out, nv_forest_oob *oob, char *err,
                        size_t errlen)
{
    memset(out, 0, sizeof *out);
    unsigned char *inbag = NULL;
    size_t trees = p && p->n_trees ? p->n_trees : 100;
    if (n == 0 || d == 0 || d > 1024 || n > (1u << 24)) {
        snprintf(err, errlen, "forest: %zu samples of %zu features cannot be trained on", n, d);
        return -1;
    }
    if (trees > NV_FOREST_MAX_TREES) {
        snprintf(err, errlen, "forest: %zu trees is more than %d", trees, NV_FOREST_MAX_TREES);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(y[i])) {
            snprintf(err, errlen, "forest: target %zu is not finite", i);
            return -1;
        }
        for (size_t j = 0; j < d; j++)
            if (!isfinite(X[i * d + j])) {
                snprintf(err, errlen, "forest: feature %zu of sample %zu is not finite", j, i);
                return -1;
            }
    }
    struct grower g = {.X = X, .y = y, .d = d};
    g.min_leaf = p && p->min_leaf ? p->min_leaf : 2;
    g.mtry = p && p->max_features && p->max_features < d ? p->max_features : d;
    g.rng = (p ? p->seed : 0) * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    if (!g.rng)
        g.rng = 1;
    size_t *idx = malloc(n * sizeof *idx);
    if (oob) {
        memset(oob, 0, n * sizeof *oob);
        inbag = malloc(n);
    }
    g.buf = malloc(n * sizeof *g.buf);
    g.feat_order = malloc(d * sizeof *g.feat_order);
    out->tree_off = calloc(trees, sizeof *out->tree_off);
    out->tree_len = calloc(trees, sizeof *out->tree_len);
    if (!idx || !g.buf || !g.feat_order || !out->tree_off || !out->tree_len || (oob && !inbag)) {
        snprintf(err, errlen, "forest: out of memory");
        goto fail;
    }
    for (size_t t = 0; t < trees; t++) {
        for (size_t k = 0; k < n; k++)
            idx[k] = rng_below(&g.rng, n); /* bootstrap sample */
        if (inbag) {                       /* before grow() reorders idx */
            memset(inbag, 0, n);
            for (size_t k = 0; k < n; k++)
                inbag[idx[k]] = 1;
        }
        size_t start = g.n_nodes;
        if (g.n_nodes > UINT32_MAX - NV_FOREST_MAX_NODES) {
            snprintf(err, errlen, "forest: too many nodes in total");
            goto fail;
        }
        /* each tree's child indexes are relative to its first node */
        struct grower sub = g;
        sub.nodes = NULL;
        sub.n_nodes = sub.cap = 0;
        long root = grow(&sub, idx, n, 0);
        g.rng = sub.rng;
        if (root != 0 || sub.failed) {
            free(sub.nodes);
            snprintf(err, errlen, "forest: tree %zu has more than %u nodes or memory ran out", t,
                     NV_FOREST_MAX_NODES);
            goto fail;
        }
        nv_forest_node *all = realloc(g.nodes, (start + sub.n_nodes) * sizeof *all);
        if (!all) {
            free(sub.nodes);
            snprintf(err, errlen, "forest: out of memory");
            goto fail;
        }
        g.nodes = all;
        memcpy(g.nodes + start, sub.nodes, sub.n_nodes * sizeof *sub.nodes);
        free(sub.nodes);
        for (size_t i = 0; inbag && i < n; i++)
            if (!inbag[i])
                oob_add(&oob[i], tree_predict(g.nodes + start, (uint32_t)sub.n_nodes, X + i * d));
        g.n_nodes = start + sub.n_nodes;
        out->tree_off[t] = (uint32_t)start;
        out->tree_len[t] = (uint32_t)sub.n_nodes;
    }
    if (oob)
        oob_finish(oob, n);
    free(idx);
    free(inbag);
    free(g.buf);
    free(g.feat_order);
    out->nodes = g.nodes;
    out->n_nodes = g.n_nodes;
    out->n_trees = trees;
    out->nfeat = d;
    return 0;
fail:
    free(idx);
    free(inbag);
    if (oob)
        memset(oob, 0, n * sizeof *oob);
    free(g.buf);
    free(g.feat_order);
    free(g.nodes);
    nv_forest_free(out);
    return -1;
}

static double tree_predict(const nv_forest_node *t, uint32_t len, const double *x)
{
    uint32_t i = 0;
    /* children always lie after their parent, so this ends within len steps */
    while (i < len && t[i].feature >= 0) {
        uint32_t next = (uint32_t)(x[t[i].feature] <= t[i].threshold ? t[i].left : t[i].right);
        if (next <= i || next >= len)
            break;
        i = next;
    }
    return i < len ? t[i].value : 0;
}

void nv_forest_tree_predictions(const nv_forest *f, const double *x, double *out)
{
    for (size_t t = 0; t < f->n_trees; t++)
        out[t] = tree_predict(f->nodes + f->tree_off[t], f->tree_len[t], x);
}

int nv_forest_interval(const nv_forest *f, const double *x, double lo_q, double hi_q, double *mean,
                       double *lo, double *hi)
{
    if (!f || !f->n_trees || f->n_trees > NV_FOREST_MAX_TREES || !(lo_q >= 0) || !(hi_q <= 1) ||
        !(lo_q <= hi_q))
        return -1;
    double v[NV_FOREST_MAX_TREES];
    nv_forest_tree_predictions(f, x, v);
    double s = 0;
    for (size_t t = 0; t < f->n_trees; t++)
        s += v[t];
    *mean = s / (double)f->n_trees;
    qsort(v, f->n_trees, sizeof v[0], nv_cmp_double);
    double qs[2] = {lo_q, hi_q}, r[2];
    for (int k = 0; k < 2; k++) {
        double pos = qs[k] * (double)(f->n_trees - 1);
        size_t a = (size_t)floor(pos), b = a + 1 < f->n_trees ? a + 1 : a;
        r[k] = v[a] + (v[b] - v[a]) * (pos - (double)a);
    }
    *lo = r[0];
    *hi = r[1] < r[0] ? r[0] : r[1];
    return 0;
}

int nv_forest_spread(const nv_forest *f, const double *x, double *mean, double *sd)
{
    if (!f || !f->n_trees || f->n_trees > NV_FOREST_MAX_TREES)
        return -1;
    double v[NV_FOREST_MAX_TREES];
    nv_forest_tree_predictions(f, x, v);
    double s = 0, ss = 0;
    for (size_t t = 0; t < f->n_trees; t++)
        s += v[t];
    double m = s / (double)f->n_trees;
    for (size_t t = 0; t < f->n_trees; t++)
        ss += (v[t] - m) * (v[t] - m); /* two passes: no cancellation */
    *mean = m;
    *sd = f->n_trees > 1 ? sqrt(ss / (double)(f->n_trees - 1)) : 0;
    return 0;
}

void nv_forest_free(nv_forest *f)
{
    if (!f)
        return;
    free(f->tree_off);
    free(f->tree_len);
    free(f->nodes);
    memset(f, 0, sizeof *f);
}
