/* alloc_model.c - the "alloc" section in memory: building, prediction and
 * the section's JSON writer and reader (alloc_model.h).
 *
 * Format (an optional top-level member of the netvar-model file):
 *   "alloc": {
 *     "target": "ln communication s per phase",        required, exactly
 *     "features": ["N", "PPN", ...],                     required, exactly the
 *                                                        alloc_features.h table
 *     "predictors": [ {
 *        "class": "A"|"B"|"C",
 *        "max_msg_bytes": 4096 | null,                   partition by maxS; null = no bound
 *        "combine": "sum"|"mean", "base": 0.5,
 *        "source": "xgboost 1.7.4 ...", "samples": 1200,
 *        "trees": [ {"feature": [ints, -1 = leaf], "threshold": [..],
 *                    "left": [..], "right": [..], "value": [..]} ] } ],
 *        per tree 5 arrays of equal length; node 0 is the root; children
 *        come after their parent in the same tree; x < threshold goes left;
 *        a node's feature must belong to its class
 *     "apps": [ {"key": "stencil", "compute_core_s": 120, "phases": 1000,
 *                "msg_scaling": 0, "ranks": 16, "source": "sweep",
 *                "pattern": [ {"offset": 1, "bytes": 65536, "messages": 1} ]} ],
 *     "switches": [ {"name": "s1", "group": 0, "nodes": 18} ]   optional
 *   }
 * Unknown fields are ignored. */
#include "alloc_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nv_err.h"
#include "nv_json.h"

typedef struct tnode {
    int32_t feature, left, right;
    float threshold;
    double value;
} tnode;

struct nv_alloc_model {
    nv_alloc_predictor pred[NV_ALLOC_MAX_PREDICTORS];
    size_t n_pred;
    uint32_t *roots, *ends; /* tree t: nodes [roots[t], ends[t]) */
    size_t n_roots, cap_roots, cap_ends;
    tnode *nodes;
    size_t n_nodes, cap_nodes;
    nv_alloc_app *apps;
    size_t n_apps, cap_apps;
    nv_alloc_switch *sw;
    size_t n_sw, cap_sw;
    uint32_t sw_cap[NV_ALLOC_SWITCHES_MAX],
        sw_group[NV_ALLOC_SWITCHES_MAX]; /* sorted, for packing */
    uint32_t total_nodes;
};

nv_alloc_model *nv_alloc_new(void)
{
    return calloc(1, sizeof(nv_alloc_model));
}

void nv_alloc_free(nv_alloc_model *m)
{
    if (!m)
        return;
    free(m->roots);
    free(m->ends);
    free(m->nodes);
    free(m->apps);
    free(m->sw);
    free(m);
}

static int grow(void **p, size_t *cap, size_t need, size_t each)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * each);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

int nv_alloc_add_predictor(nv_alloc_model *m, const nv_alloc_predictor *p, const int32_t *feature,
                           const double *threshold, const int32_t *left, const int32_t *right,
                           const double *value, size_t n_nodes, const uint32_t *roots,
                           size_t n_trees, char *err, size_t errlen)
{
    if (!m || !p)
        return nv_err(err, errlen, "alloc: no predictor");
    if (m->n_pred >= NV_ALLOC_MAX_PREDICTORS)
        return nv_err(err, errlen, "alloc: more than %d predictors", NV_ALLOC_MAX_PREDICTORS);
    if (p->cls < 0 || p->cls >= NV_ALLOC_CLASSES || !isfinite(p->base) || !(p->max_msg_bytes > 0) ||
        n_trees == 0 || n_trees > NV_ALLOC_MAX_TREES || n_nodes == 0 ||
        m->n_nodes + n_nodes > NV_ALLOC_MAX_NODES)
        return nv_err(err, errlen, "alloc: predictor %s: bad class, base, partition or size",
                      nv_alloc_class_name(p->cls));
    int nf = nv_alloc_class_features(p->cls);
    for (size_t i = 0; i < n_nodes; i++) {
        if (feature[i] < 0) {
            if (!isfinite(value[i]))
                return nv_err(err, errlen, "alloc: node %zu: leaf value not finite", i);
            continue;
        }
        if (feature[i] >= nf || !isfinite(threshold[i]) || left[i] <= (int32_t)i ||
            right[i] <= (int32_t)i || (size_t)left[i] >= n_nodes || (size_t)right[i] >= n_nodes)
            return nv_err(err, errlen,
                          "alloc: node %zu: feature %d not of class %s, threshold not finite, or a "
                          "child not after it in the tree",
                          i, feature[i], nv_alloc_class_name(p->cls));
    }
    /* trees are contiguous and in order: tree t holds [roots[t], roots[t+1]) */
    for (size_t t = 0; t < n_trees; t++) {
        size_t end = t + 1 < n_trees ? roots[t + 1] : n_nodes;
        if ((t == 0 && roots[0] != 0) || roots[t] >= end || end > n_nodes)
            return nv_err(err, errlen, "alloc: tree %zu: nodes [%u, %zu) are not the next ones", t,
                          roots[t], end);
        for (size_t i = roots[t]; i < end; i++)
            if (feature[i] >= 0 && ((size_t)left[i] >= end || (size_t)right[i] >= end))
                return nv_err(err, errlen, "alloc: tree %zu: node %zu has a child outside the tree",
                              t, i);
    }
    if (grow((void **)&m->nodes, &m->cap_nodes, m->n_nodes + n_nodes, sizeof *m->nodes) ||
        grow((void **)&m->roots, &m->cap_roots, m->n_roots + n_trees, sizeof *m->roots) ||
        grow((void **)&m->ends, &m->cap_ends, m->n_roots + n_trees, sizeof *m->ends))
        return nv_err(err, errlen, "alloc: out of memory");
    size_t off = m->n_nodes;
    for (size_t i = 0; i < n_nodes; i++) {
        tnode *d = &m->nodes[off + i];
        d->feature = feature[i] < 0 ? -1 : feature[i];
        d->left = feature[i] < 0 ? 0 : (int32_t)(off + (size_t)left[i]);
        d->right = feature[i] < 0 ? 0 : (int32_t)(off + (size_t)right[i]);
        d->threshold = feature[i] < 0 ? 0 : (float)threshold[i];
        d->value = feature[i] < 0 ? value[i] : 0;
    }
    nv_alloc_predictor *q = &m->pred[m->n_pred++];
    *q = *p;
    q->first_tree = (uint32_t)m->n_roots;
    q->n_trees = (uint32_t)n_trees;
    for (size_t t = 0; t < n_trees; t++) {
        m->ends[m->n_roots] = (uint32_t)(off + (t + 1 < n_trees ? roots[t + 1] : n_nodes));
        m->roots[m->n_roots++] = (uint32_t)(off + roots[t]);
    }
    m->n_nodes += n_nodes;
    return 0;
}

int nv_alloc_add_app(nv_alloc_model *m, const nv_alloc_app *a, char *err, size_t errlen)
{
    if (!m || !a || !a->key[0] || strnlen(a->key, sizeof a->key) > NV_ALLOC_KEY_MAX ||
        !(a->compute_core_s >= 0) || !isfinite(a->compute_core_s) || !(a->phases > 0) ||
        !isfinite(a->phases) || !isfinite(a->msg_scaling) || fabs(a->msg_scaling) > 4 ||
        a->ranks == 0 || a->ranks > NV_ALLOC_MAX_RANKS || a->pattern.n == 0 ||
        a->pattern.n > NV_ALLOC_PATTERN_MAX)
        return nv_err(err, errlen,
                      "alloc: app '%.64s': bad key, compute, phases, scaling, ranks or pattern",
                      a ? a->key : "");
    for (size_t k = 0; k < a->pattern.n; k++) {
        const nv_alloc_offset *o = &a->pattern.o[k];
        if (o->offset == 0 || !(o->bytes > 0) || !isfinite(o->bytes) || !(o->messages > 0) ||
            !isfinite(o->messages))
            return nv_err(err, errlen,
                          "alloc: app '%.64s': pattern[%zu]: offset 0 or bytes/messages not > 0",
                          a->key, k);
    }
    if (m->n_apps >= NV_ALLOC_MAX_APPS)
        return nv_err(err, errlen, "alloc: more than %d apps", NV_ALLOC_MAX_APPS);
    if (grow((void **)&m->apps, &m->cap_apps, m->n_apps + 1, sizeof *m->apps))
        return nv_err(err, errlen, "alloc: out of memory");
    m->apps[m->n_apps++] = *a;
    return 0;
}

int nv_alloc_add_switch(nv_alloc_model *m, const nv_alloc_switch *s, char *err, size_t errlen)
{
    if (!m || !s || s->nodes == 0 || !s->name[0] || m->n_sw >= NV_ALLOC_SWITCHES_MAX ||
        (uint64_t)m->total_nodes + s->nodes > NV_ALLOC_MAX_RANKS)
        return nv_err(err, errlen, "alloc: switch '%.64s': no name, no nodes, or too many",
                      s ? s->name : "");
    if (grow((void **)&m->sw, &m->cap_sw, m->n_sw + 1, sizeof *m->sw))
        return nv_err(err, errlen, "alloc: out of memory");
    m->sw[m->n_sw++] = *s;
    m->total_nodes += s->nodes;
    return 0;
}

static int app_cmp(const void *a, const void *b)
{
    return strcmp(((const nv_alloc_app *)a)->key, ((const nv_alloc_app *)b)->key);
}

static int pred_cmp(const void *a, const void *b)
{
    const nv_alloc_predictor *x = a, *y = b;
    if (x->cls != y->cls)
        return x->cls < y->cls ? -1 : 1;
    return x->max_msg_bytes < y->max_msg_bytes ? -1 : x->max_msg_bytes > y->max_msg_bytes;
}

static int sw_cmp(const void *a, const void *b)
{
    const nv_alloc_switch *x = a, *y = b;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    return strcmp(x->name, y->name);
}

int nv_alloc_finish(nv_alloc_model *m, char *err, size_t errlen)
{
    if (!m)
        return -1;
    if (m->n_apps)
        qsort(m->apps, m->n_apps, sizeof *m->apps, app_cmp);
    for (size_t i = 1; i < m->n_apps; i++)
        if (!strcmp(m->apps[i].key, m->apps[i - 1].key))
            return nv_err(err, errlen, "alloc: app '%s' given twice", m->apps[i].key);
    qsort(m->pred, m->n_pred, sizeof *m->pred, pred_cmp);
    for (size_t i = 1; i < m->n_pred; i++)
        if (m->pred[i].cls == m->pred[i - 1].cls &&
            m->pred[i].max_msg_bytes == m->pred[i - 1].max_msg_bytes)
            return nv_err(err, errlen,
                          "alloc: two class %s predictors for one message-size partition",
                          nv_alloc_class_name(m->pred[i].cls));
    if (m->n_sw)
        qsort(m->sw, m->n_sw, sizeof *m->sw, sw_cmp);
    for (size_t j = 0; j < m->n_sw; j++) {
        m->sw_cap[j] = m->sw[j].nodes;
        m->sw_group[j] = m->sw[j].group;
    }
    return 0;
}

/* ---- prediction ---- */

static double tree_eval(const tnode *nodes, uint32_t i, const double *x)
{
    while (nodes[i].feature >= 0)
        i = (uint32_t)((float)x[nodes[i].feature] < nodes[i].threshold ? nodes[i].left
                                                                       : nodes[i].right);
    return nodes[i].value;
}

double nv_alloc_predictor_eval(const nv_alloc_model *m, const nv_alloc_predictor *p,
                               const double *x)
{
    double s = 0;
    for (uint32_t t = 0; t < p->n_trees; t++)
        s += tree_eval(m->nodes, m->roots[p->first_tree + t], x);
    if (p->combine == NV_ALLOC_MEAN)
        s /= p->n_trees;
    return p->base + s;
}

int nv_alloc_predict(const nv_alloc_model *m, nv_alloc_class cls, const double *x, double *comm_s,
                     const nv_alloc_predictor **which)
{
    *comm_s = NAN;
    if (which)
        *which = NULL;
    if (!m)
        return -1;
    int nf = nv_alloc_class_features(cls);
    for (int i = 0; i < nf; i++)
        if (!isfinite(x[i]))
            return -1;
    const nv_alloc_predictor *p = NULL;
    for (size_t i = 0; i < m->n_pred; i++)
        if (m->pred[i].cls == cls) {
            p = &m->pred[i];
            if (x[NV_AF_MAX_S] <= p->max_msg_bytes)
                break; /* sorted: the first partition that holds maxS */
        }
    if (!p)
        return -1;
    double y = exp(nv_alloc_predictor_eval(m, p, x));
    if (!isfinite(y))
        return -1;
    *comm_s = y;
    if (which)
        *which = p;
    return 0;
}

size_t nv_alloc_predictor_count(const nv_alloc_model *m)
{
    return m ? m->n_pred : 0;
}

const nv_alloc_predictor *nv_alloc_predictor_at(const nv_alloc_model *m, size_t i)
{
    return m && i < m->n_pred ? &m->pred[i] : NULL;
}

int nv_alloc_best_class(const nv_alloc_model *m)
{
    int best = -1;
    for (size_t i = 0; m && i < m->n_pred; i++)
        if ((int)m->pred[i].cls > best)
            best = (int)m->pred[i].cls;
    return best;
}

const nv_alloc_app *nv_alloc_app_find(const nv_alloc_model *m, const char *key)
{
    if (!m || !key || !m->n_apps)
        return NULL;
    size_t lo = 0, hi = m->n_apps;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(key, m->apps[mid].key);
        if (!c)
            return &m->apps[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

size_t nv_alloc_app_count(const nv_alloc_model *m)
{
    return m ? m->n_apps : 0;
}
const nv_alloc_app *nv_alloc_app_at(const nv_alloc_model *m, size_t i)
{
    return m && i < m->n_apps ? &m->apps[i] : NULL;
}
size_t nv_alloc_switch_count(const nv_alloc_model *m)
{
    return m ? m->n_sw : 0;
}
const nv_alloc_switch *nv_alloc_switch_at(const nv_alloc_model *m, size_t i)
{
    return m && i < m->n_sw ? &m->sw[i] : NULL;
}
uint32_t nv_alloc_total_nodes(const nv_alloc_model *m)
{
    return m ? m->total_nodes : 0;
}

int nv_alloc_likely_layout(const nv_alloc_model *m, uint32_t nodes, nv_alloc_layout *l)
{
    if (!m || m->n_sw == 0) {
        l->n_switches = 1;
        l->nodes[0] = nodes;
        l->group[0] = 0;
        return nodes ? 0 : -1;
    }
    return nv_alloc_layout_pack(nodes, m->sw_cap, m->sw_group, m->n_sw, l);
}
size_t nv_alloc_node_count(const nv_alloc_model *m)
{
    return m ? m->n_nodes : 0;
}

void nv_alloc_app_pattern_at(const nv_alloc_app *a, uint32_t nranks, nv_alloc_pattern *out)
{
    *out = a->pattern;
    double f = a->msg_scaling != 0 && nranks ? pow((double)nranks / a->ranks, a->msg_scaling) : 1.0;
    for (size_t k = 0; k < out->n; k++)
        out->o[k].bytes *= f;
}

/* ---- JSON ---- */

void nv_alloc_json_put(json_object *o, const char *k, json_object *v, int *ok)
{
    if (!v || !o || json_object_object_add(o, k, v)) {
        json_object_put(v);
        *ok = 0;
    }
}

void nv_alloc_json_add(json_object *a, json_object *v, int *ok)
{
    if (!v || !a || json_object_array_add(a, v)) {
        json_object_put(v);
        *ok = 0;
    }
}

#define put nv_alloc_json_put
#define add nv_alloc_json_add

json_object *nv_alloc_pattern_to_json(const nv_alloc_pattern *p)
{
    int ok = 1;
    json_object *a = json_object_new_array();
    for (size_t k = 0; a && k < p->n; k++) {
        json_object *e = json_object_new_object();
        if (!e) {
            ok = 0;
            break;
        }
        put(e, "offset", json_object_new_int(p->o[k].offset), &ok);
        put(e, "bytes", nv_json_new_num(p->o[k].bytes), &ok);
        put(e, "messages", nv_json_new_num(p->o[k].messages), &ok);
        add(a, e, &ok);
    }
    if (!ok) {
        json_object_put(a);
        return NULL;
    }
    return a;
}

json_object *nv_alloc_to_json(const nv_alloc_model *m)
{
    if (!m)
        return NULL;
    int ok = 1;
    json_object *o = json_object_new_object(), *feats = json_object_new_array(),
                *preds = json_object_new_array(), *apps = json_object_new_array();
    if (!o || !feats || !preds || !apps) {
        json_object_put(o);
        json_object_put(feats);
        json_object_put(preds);
        json_object_put(apps);
        return NULL;
    }
    put(o, "target", json_object_new_string(NV_ALLOC_SCHEMA_TARGET), &ok);
    for (int i = 0; i < NV_AF_COUNT; i++)
        add(feats, json_object_new_string(nv_alloc_feature_name(i)), &ok);
    put(o, "features", feats, &ok);
    for (size_t i = 0; i < m->n_pred && ok; i++) {
        const nv_alloc_predictor *p = &m->pred[i];
        json_object *po = json_object_new_object(), *trees = json_object_new_array();
        if (!po || !trees) {
            json_object_put(po);
            json_object_put(trees);
            ok = 0;
            break;
        }
        put(po, "class", json_object_new_string(nv_alloc_class_name(p->cls)), &ok);
        json_object *mm = isfinite(p->max_msg_bytes) ? nv_json_new_num(p->max_msg_bytes) : NULL;
        if (json_object_object_add(po, "max_msg_bytes", mm)) /* null: no bound */
            ok = 0;
        put(po, "combine", json_object_new_string(p->combine == NV_ALLOC_MEAN ? "mean" : "sum"),
            &ok);
        put(po, "base", nv_json_new_num(p->base), &ok);
        put(po, "source", json_object_new_string(p->source), &ok);
        put(po, "samples", json_object_new_int64(p->samples), &ok);
        for (uint32_t t = 0; t < p->n_trees && ok; t++) {
            uint32_t root = m->roots[p->first_tree + t];
            uint32_t end = m->ends[p->first_tree + t];
            json_object *to = json_object_new_object(), *f = json_object_new_array(),
                        *th = json_object_new_array(), *l = json_object_new_array(),
                        *r = json_object_new_array(), *v = json_object_new_array();
            put(to, "feature", f, &ok);
            put(to, "threshold", th, &ok);
            put(to, "left", l, &ok);
            put(to, "right", r, &ok);
            put(to, "value", v, &ok);
            for (uint32_t k = root; k < end && ok; k++) {
                const tnode *n = &m->nodes[k];
                add(f, json_object_new_int(n->feature), &ok);
                add(th, nv_json_new_num(n->feature < 0 ? 0 : (double)n->threshold), &ok);
                add(l, json_object_new_int(n->feature < 0 ? 0 : n->left - (int32_t)root), &ok);
                add(r, json_object_new_int(n->feature < 0 ? 0 : n->right - (int32_t)root), &ok);
                add(v, nv_json_new_num(n->value), &ok);
            }
            add(trees, to, &ok);
        }
        put(po, "trees", trees, &ok);
        add(preds, po, &ok);
    }
    put(o, "predictors", preds, &ok);
    for (size_t i = 0; i < m->n_apps && ok; i++) {
        const nv_alloc_app *a = &m->apps[i];
        json_object *ao = json_object_new_object();
        if (!ao) {
            ok = 0;
            break;
        }
        put(ao, "key", json_object_new_string(a->key), &ok);
        put(ao, "compute_core_s", nv_json_new_num(a->compute_core_s), &ok);
        put(ao, "phases", nv_json_new_num(a->phases), &ok);
        put(ao, "msg_scaling", nv_json_new_num(a->msg_scaling), &ok);
        put(ao, "ranks", json_object_new_int64(a->ranks), &ok);
        put(ao, "source", json_object_new_string(a->source), &ok);
        put(ao, "pattern", nv_alloc_pattern_to_json(&a->pattern), &ok);
        add(apps, ao, &ok);
    }
    put(o, "apps", apps, &ok);
    if (m->n_sw) {
        json_object *sw = json_object_new_array();
        for (size_t i = 0; i < m->n_sw && sw; i++) {
            json_object *e = json_object_new_object();
            put(e, "name", json_object_new_string(m->sw[i].name), &ok);
            put(e, "group", json_object_new_int64(m->sw[i].group), &ok);
            put(e, "nodes", json_object_new_int64(m->sw[i].nodes), &ok);
            add(sw, e, &ok);
        }
        put(o, "switches", sw, &ok);
    }
    if (!ok) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

/* ---- reader ---- */

#define TREE_PATH 200

/* the member `key` of tree o: an array of n numbers (into d), or, when ints
 * is given, of n integers in [lo, hi] (into ints) */
static int tree_array(nv_jcheck *L, json_object *o, const char *key, const char *path, size_t n,
                      double *d, int32_t *ints, int64_t lo, int64_t hi)
{
    char p[TREE_PATH + 40];
    json_object *a = nv_jcheck_member(L, o, key, path, json_type_array);
    if (!a)
        return -1;
    if (json_object_array_length(a) != n)
        return nv_jcheck_fail(L, "%s.%s: holds %zu values; expected %zu like \"feature\"", path,
                              key, json_object_array_length(a), n);
    for (size_t i = 0; i < n; i++) {
        int64_t v;
        snprintf(p, sizeof p, "%.160s.%.20s[%zu]", path, key, i);
        json_object *e = json_object_array_get_idx(a, i);
        if (ints ? nv_jcheck_integer(L, e, p, lo, hi, &v) : nv_jcheck_number(L, e, p, &d[i]))
            return -1;
        if (ints)
            ints[i] = (int32_t)v;
    }
    return 0;
}

static int read_predictor(nv_jcheck *L, nv_alloc_model *m, json_object *po, const char *path)
{
    nv_alloc_predictor p;
    memset(&p, 0, sizeof p);
    const char *cls = nv_jcheck_string_member(L, po, "class", path);
    if (!cls)
        return -1;
    if (nv_alloc_class_parse(cls, &p.cls))
        return nv_jcheck_fail(L, "%s.class: value \"%.8s\" is not A, B or C", path, cls);
    json_object *mm = NULL;
    if (!json_object_object_get_ex(po, "max_msg_bytes", &mm))
        return nv_jcheck_fail(L, "%s.max_msg_bytes: missing required field (null for no bound)",
                              path);
    p.max_msg_bytes = INFINITY;
    if (mm) {
        char pp[TREE_PATH];
        snprintf(pp, sizeof pp, "%.120s.max_msg_bytes", path);
        if (nv_jcheck_number(L, mm, pp, &p.max_msg_bytes))
            return -1;
        if (!(p.max_msg_bytes > 0))
            return nv_jcheck_fail(L, "%s: value %g is not > 0", pp, p.max_msg_bytes);
    }
    const char *comb = nv_jcheck_string_member(L, po, "combine", path);
    if (!comb)
        return -1;
    if (!strcmp(comb, "sum"))
        p.combine = NV_ALLOC_SUM;
    else if (!strcmp(comb, "mean"))
        p.combine = NV_ALLOC_MEAN;
    else
        return nv_jcheck_fail(L, "%s.combine: value \"%.10s\" is not \"sum\" or \"mean\"", path,
                              comb);
    if (nv_jcheck_number_member(L, po, "base", path, &p.base))
        return -1;
    nv_json_str_copy(po, "source", p.source, sizeof p.source);
    uint64_t samples = 0;
    if (!nv_json_u64(po, "samples", &samples))
        p.samples = samples > UINT32_MAX ? UINT32_MAX : (uint32_t)samples;
    json_object *trees = nv_jcheck_member(L, po, "trees", path, json_type_array);
    if (!trees)
        return -1;
    size_t nt = json_object_array_length(trees), total = 0;
    if (nt == 0 || nt > NV_ALLOC_MAX_TREES)
        return nv_jcheck_fail(L, "%s.trees: %zu trees; expected 1 to %d", path, nt,
                              NV_ALLOC_MAX_TREES);
    for (size_t t = 0; t < nt; t++) {
        json_object *f =
            nv_json_get(json_object_array_get_idx(trees, t), "feature", json_type_array);
        size_t n = f ? json_object_array_length(f) : 0;
        if (!n)
            return nv_jcheck_fail(L, "%s.trees[%zu].feature: missing or empty", path, t);
        total += n;
        if (total + m->n_nodes > NV_ALLOC_MAX_NODES)
            return nv_jcheck_fail(L, "%s.trees: more than %u nodes in the section", path,
                                  NV_ALLOC_MAX_NODES);
    }
    int32_t *feat = malloc(total * sizeof *feat), *left = malloc(total * sizeof *left),
            *right = malloc(total * sizeof *right);
    double *thr = malloc(total * sizeof *thr), *val = malloc(total * sizeof *val);
    uint32_t *roots = malloc(nt * sizeof *roots);
    int rc = -1;
    if (!feat || !left || !right || !thr || !val || !roots) {
        nv_jcheck_fail(L, "%s: out of memory for %zu tree nodes", path, total);
        goto out;
    }
    size_t off = 0;
    for (size_t t = 0; t < nt; t++) {
        char tp[TREE_PATH];
        snprintf(tp, sizeof tp, "%.120s.trees[%zu]", path, t);
        json_object *to = json_object_array_get_idx(trees, t);
        size_t n = json_object_array_length(nv_json_get(to, "feature", json_type_array));
        if (tree_array(L, to, "feature", tp, n, NULL, feat + off, -1,
                       nv_alloc_class_features(p.cls) - 1) ||
            tree_array(L, to, "left", tp, n, NULL, left + off, 0, (int64_t)n - 1) ||
            tree_array(L, to, "right", tp, n, NULL, right + off, 0, (int64_t)n - 1) ||
            tree_array(L, to, "threshold", tp, n, thr + off, NULL, 0, 0) ||
            tree_array(L, to, "value", tp, n, val + off, NULL, 0, 0))
            goto out;
        for (size_t i = 0; i < n; i++) {
            if (feat[off + i] >= 0 &&
                (left[off + i] <= (int32_t)i || right[off + i] <= (int32_t)i)) {
                nv_jcheck_fail(L, "%s: node %zu has a child at or before it", tp, i);
                goto out;
            }
            left[off + i] += (int32_t)off;
            right[off + i] += (int32_t)off;
        }
        roots[t] = (uint32_t)off;
        off += n;
    }
    char why[300];
    if (nv_alloc_add_predictor(m, &p, feat, thr, left, right, val, total, roots, nt, why,
                               sizeof why)) {
        nv_jcheck_fail(L, "%s: %s", path, why);
        goto out;
    }
    rc = 0;
out:
    free(feat);
    free(left);
    free(right);
    free(thr);
    free(val);
    free(roots);
    return rc;
}

static int read_app(nv_jcheck *L, nv_alloc_model *m, json_object *ao, const char *path)
{
    nv_alloc_app a;
    memset(&a, 0, sizeof a);
    const char *key = nv_jcheck_string_member(L, ao, "key", path);
    if (!key)
        return -1;
    if (!key[0] || strlen(key) > NV_ALLOC_KEY_MAX)
        return nv_jcheck_fail(L, "%s.key: empty or longer than %d", path, NV_ALLOC_KEY_MAX);
    snprintf(a.key, sizeof a.key, "%s", key);
    int64_t ranks = 0;
    if (nv_jcheck_number_member(L, ao, "compute_core_s", path, &a.compute_core_s) ||
        nv_jcheck_number_member(L, ao, "phases", path, &a.phases) ||
        nv_jcheck_number_member(L, ao, "msg_scaling", path, &a.msg_scaling) ||
        nv_jcheck_integer_member(L, ao, "ranks", path, 1, NV_ALLOC_MAX_RANKS, &ranks))
        return -1;
    a.ranks = (uint32_t)ranks;
    nv_json_str_copy(ao, "source", a.source, sizeof a.source);
    json_object *pat = nv_jcheck_member(L, ao, "pattern", path, json_type_array);
    if (!pat)
        return -1;
    size_t n = json_object_array_length(pat);
    if (n == 0 || n > NV_ALLOC_PATTERN_MAX)
        return nv_jcheck_fail(L, "%s.pattern: %zu entries; expected 1 to %d", path, n,
                              NV_ALLOC_PATTERN_MAX);
    for (size_t k = 0; k < n; k++) {
        char pp[TREE_PATH];
        snprintf(pp, sizeof pp, "%.120s.pattern[%zu]", path, k);
        json_object *e = json_object_array_get_idx(pat, k);
        int64_t off;
        if (nv_jcheck_integer_member(L, e, "offset", pp, -(int64_t)NV_ALLOC_MAX_RANKS,
                                     NV_ALLOC_MAX_RANKS, &off) ||
            nv_jcheck_number_member(L, e, "bytes", pp, &a.pattern.o[k].bytes) ||
            nv_jcheck_number_member(L, e, "messages", pp, &a.pattern.o[k].messages))
            return -1;
        a.pattern.o[k].offset = (int32_t)off;
    }
    a.pattern.n = n;
    char why[300];
    if (nv_alloc_add_app(m, &a, why, sizeof why))
        return nv_jcheck_fail(L, "%s: %s", path, why);
    return 0;
}

nv_alloc_model *nv_alloc_from_json(json_object *o, const char *path, char *err, size_t errlen)
{
    nv_jcheck L = {err, errlen, 0};
    if (err && errlen)
        err[0] = 0;
    if (!json_object_is_type(o, json_type_object)) {
        nv_jcheck_fail(&L, "%s: expected an object, got %s", path, nv_jcheck_type_name(o));
        return NULL;
    }
    nv_alloc_model *m = nv_alloc_new();
    if (!m) {
        nv_jcheck_fail(&L, "%s: out of memory", path);
        return NULL;
    }
    const char *target = nv_jcheck_string_member(&L, o, "target", path);
    if (target && strcmp(target, NV_ALLOC_SCHEMA_TARGET))
        nv_jcheck_fail(&L, "%s.target: value \"%.40s\" is not \"%s\"", path, target,
                       NV_ALLOC_SCHEMA_TARGET);
    json_object *feats =
        L.failed ? NULL : nv_jcheck_member(&L, o, "features", path, json_type_array);
    if (feats && json_object_array_length(feats) != NV_AF_COUNT)
        nv_jcheck_fail(&L, "%s.features: %zu names; this netvar computes %d", path,
                       json_object_array_length(feats), NV_AF_COUNT);
    for (int i = 0; feats && !L.failed && i < NV_AF_COUNT; i++) {
        const char *s = json_object_get_string(json_object_array_get_idx(feats, (size_t)i));
        if (!json_object_is_type(json_object_array_get_idx(feats, (size_t)i), json_type_string) ||
            strcmp(s, nv_alloc_feature_name(i)))
            nv_jcheck_fail(&L, "%s.features[%d]: expected \"%s\"", path, i,
                           nv_alloc_feature_name(i));
    }
    json_object *preds =
        L.failed ? NULL : nv_jcheck_member(&L, o, "predictors", path, json_type_array);
    size_t np = preds ? json_object_array_length(preds) : 0;
    if (np > NV_ALLOC_MAX_PREDICTORS)
        nv_jcheck_fail(&L, "%s.predictors: %zu; at most %d", path, np, NV_ALLOC_MAX_PREDICTORS);
    for (size_t i = 0; !L.failed && i < np; i++) {
        char p[TREE_PATH];
        snprintf(p, sizeof p, "%.40s.predictors[%zu]", path, i);
        read_predictor(&L, m, json_object_array_get_idx(preds, i), p);
    }
    json_object *apps = L.failed ? NULL : nv_jcheck_member(&L, o, "apps", path, json_type_array);
    for (size_t i = 0; apps && !L.failed && i < json_object_array_length(apps); i++) {
        char p[TREE_PATH];
        snprintf(p, sizeof p, "%.40s.apps[%zu]", path, i);
        read_app(&L, m, json_object_array_get_idx(apps, i), p);
    }
    json_object *sw = NULL;
    if (!L.failed && json_object_object_get_ex(o, "switches", &sw)) {
        if (!json_object_is_type(sw, json_type_array))
            nv_jcheck_fail(&L, "%s.switches: expected an array, got %s", path,
                           nv_jcheck_type_name(sw));
        for (size_t i = 0; !L.failed && i < json_object_array_length(sw); i++) {
            char p[TREE_PATH], why[300];
            snprintf(p, sizeof p, "%.40s.switches[%zu]", path, i);
            json_object *e = json_object_array_get_idx(sw, i);
            nv_alloc_switch s;
            memset(&s, 0, sizeof s);
            int64_t g = 0, n = 0;
            const char *name = nv_jcheck_string_member(&L, e, "name", p);
            if (!name || nv_jcheck_integer_member(&L, e, "group", p, 0, UINT32_MAX, &g) ||
                nv_jcheck_integer_member(&L, e, "nodes", p, 1, NV_ALLOC_MAX_RANKS, &n))
                break;
            snprintf(s.name, sizeof s.name, "%s", name);
            s.group = (uint32_t)g;
            s.nodes = (uint32_t)n;
            if (nv_alloc_add_switch(m, &s, why, sizeof why))
                nv_jcheck_fail(&L, "%s: %s", p, why);
        }
    }
    if (!L.failed) {
        char why[300];
        if (nv_alloc_finish(m, why, sizeof why))
            nv_jcheck_fail(&L, "%s: %s", path, why);
    }
    if (L.failed) {
        nv_alloc_free(m);
        return NULL;
    }
    return m;
}
