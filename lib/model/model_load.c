/* model_load.c - parse and validate a model file into an immutable nv_model.
 *
 * The file format (schema "netvar-model", version 1: every field, its
 * units, bounds and the version rules) is specified in docs/model-format.md;
 * tests/integration/test_model_format.sh checks that the fields named there
 * are exactly the fields read here, in ve_load.c and in alloc_model.c.  A
 * new field goes into that document's tables in the same change. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "alloc_model.h"
#include "fabric.h"
#include "json_file.h"
#include "json_stream.h"
#include "model_internal.h"
#include "nv_json.h"
#include "safe_open.h"
#include "predict.h"
#include "ve_model.h"
#include "sort_cmp.h"

#define PATH_MAX_LEN 160

/* child field paths ("apps[3]" + ".latency"); a runtime size keeps the
 * compiler's truncation analysis out of it, and paths are short anyway */
static void subpath(char *dst, size_t n, const char *parent, const char *suffix)
{
    if (snprintf(dst, n, "%s%s", parent, suffix) >= (int)n)
        dst[n - 1] = 0; /* a cut path still names the field's start */
}

static void subpath_idx(char *dst, size_t n, const char *parent, const char *suffix, size_t i)
{
    if (snprintf(dst, n, "%s%s[%zu]", parent, suffix, i) >= (int)n)
        dst[n - 1] = 0;
}

enum range { R_ANY, R_POSITIVE, R_NONNEG, R_FRACTION, R_SLOWDOWN };

static int number(nv_jcheck *L, json_object *obj, const char *key, const char *path, enum range r,
                  double *out)
{
    double d;
    *out = 0;
    if (nv_jcheck_number_member(L, obj, key, path, &d))
        return -1;
    const char *dot = *path ? "." : "";
    if ((r == R_POSITIVE || r == R_NONNEG) && d < 0) {
        nv_jcheck_fail(L, "%s%s%s: value %g is negative; it must be %s", path, dot, key, d,
                       r == R_POSITIVE ? "> 0" : ">= 0");
        return -1;
    }
    if (r == R_POSITIVE && d == 0) {
        nv_jcheck_fail(L, "%s%s%s: value 0 is not allowed; it must be > 0", path, dot, key);
        return -1;
    }
    if (r == R_FRACTION && !(d >= 0 && d <= 1)) {
        nv_jcheck_fail(L, "%s%s%s: value %g is outside [0, 1]", path, dot, key, d);
        return -1;
    }
    if (r == R_SLOWDOWN && d < -100) {
        nv_jcheck_fail(L, "%s%s%s: value %g is below -100 (a run cannot take negative time)", path,
                       dot, key, d);
        return -1;
    }
    *out = d;
    return 0;
}

static int histogram(nv_jcheck *L, json_object *obj, const char *path, nv_histogram *h)
{
    char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
    memset(h, 0, sizeof *h);
    json_object *ho = nv_jcheck_member(L, obj, "histogram", path, json_type_object);
    if (!ho)
        return -1;
    subpath(p, sizeof p, path, ".histogram");
    int64_t bpd;
    double edge;
    if (nv_jcheck_integer_member(L, ho, "bins_per_decade", p, 0, INT32_MAX, &bpd) ||
        number(L, ho, "first_edge_us", p, R_POSITIVE, &edge))
        return -1;
    if (bpd != NV_HIST_BINS_PER_DECADE) {
        nv_jcheck_fail(L, "%s.bins_per_decade: value %lld is not %d, the bins netvar uses", p,
                       (long long)bpd, NV_HIST_BINS_PER_DECADE);
        return -1;
    }
    if (edge != 1.0) {
        nv_jcheck_fail(L, "%s.first_edge_us: value %g is not 1, the first edge netvar uses", p,
                       edge);
        return -1;
    }
    json_object *c = nv_jcheck_member(L, ho, "counts", p, json_type_array);
    if (!c)
        return -1;
    size_t n = json_object_array_length(c);
    if (n > NV_HIST_BINS) { /* fewer: the bins past the last are empty */
        nv_jcheck_fail(L, "%s.counts: holds %zu counts; at most %d (16 per decade from 1 us)", p, n,
                       NV_HIST_BINS);
        return -1;
    }
    for (size_t k = 0; k < n; k++) {
        json_object *v = json_object_array_get_idx(c, k);
        subpath_idx(q, sizeof q, p, ".counts", k);
        if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0) {
            char buf[64];
            nv_jcheck_show(v, buf, sizeof buf);
            nv_jcheck_fail(L, "%s: value %s is not a non-negative integer count", q, buf);
            return -1;
        }
        int64_t x = json_object_get_int64(v);
        if ((uint64_t)x > UINT64_MAX / 2 - h->total) {
            nv_jcheck_fail(L, "%s: value %lld makes the total overflow", q, (long long)x);
            return -1;
        }
        h->count[k] = (uint64_t)x;
        h->total += (uint64_t)x;
    }
    return 0;
}

static int latency(nv_jcheck *L, json_object *obj, const char *path, nv_latency_summary *s)
{
    char p[PATH_MAX_LEN];
    json_object *lo = nv_jcheck_member(L, obj, "latency", path, json_type_object);
    if (!lo)
        return -1;
    subpath(p, sizeof p, path, ".latency");
    if (number(L, lo, "mean_us", p, R_POSITIVE, &s->mean_us) ||
        number(L, lo, "sd_us", p, R_NONNEG, &s->sd_us) || histogram(L, lo, p, &s->hist))
        return -1;
    return 0;
}

/* growable arrays; every element comes from file bytes, so the file size
 * bounds them */
static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    if (c > SIZE_MAX / elem)
        return -1;
    void *p = realloc(*arr, c * elem);
    if (!p)
        return -1;
    *arr = p;
    *cap = c;
    return 0;
}

static size_t pow2_at_least(size_t n)
{
    size_t c = 16;
    while (c < n)
        c *= 2;
    return c;
}

static int calibration(nv_jcheck *L, json_object *root, nv_calibration *cal)
{
    json_object *c = nv_jcheck_member(L, root, "calibration", "", json_type_object);
    if (!c)
        return -1;
    const char *method = nv_jcheck_string_member(L, c, "method", "calibration");
    if (!method)
        return -1;
    if (nv_cal_method_from_name(method, &cal->method)) {
        char buf[64];
        nv_jcheck_show(json_object_object_get(c, "method"), buf, sizeof buf);
        nv_jcheck_fail(L, "calibration.method: value %s is not one of minimum, low-quantile, mean",
                       buf);
        return -1;
    }
    int64_t samples;
    if (number(L, c, "quantile", "calibration", R_NONNEG, &cal->quantile) ||
        number(L, c, "service_us", "calibration", R_POSITIVE, &cal->service_us) ||
        number(L, c, "var_s_us2", "calibration", R_NONNEG, &cal->var_s_us2) ||
        number(L, c, "idle_mean_us", "calibration", R_POSITIVE, &cal->idle_mean_us) ||
        nv_jcheck_integer_member(L, c, "samples", "calibration", 0, INT64_MAX, &samples) ||
        histogram(L, c, "calibration", &cal->hist))
        return -1;
    if (cal->quantile > 0.5) {
        nv_jcheck_fail(L,
                       "calibration.quantile: value %g is above 0.5 (a low quantile is expected)",
                       cal->quantile);
        return -1;
    }
    cal->samples = (uint64_t)samples;
    cal->mu_per_us = 1.0 / cal->service_us;
    return 0;
}

struct curve_buf {
    nv_curve_point *v;
    size_t n, cap;
};

/* x: "utilization" (a fraction) or "wait_us" (0..NV_WAIT_MAX_US) */
static int curve_points(nv_jcheck *L, json_object *arr, const char *path, struct curve_buf *cb,
                        int is_fit, const char *x, uint32_t *off, uint32_t *count)
{
    int wait = !strcmp(x, "wait_us");
    char p[PATH_MAX_LEN];
    size_t n = json_object_array_length(arr);
    if (grow((void **)&cb->v, &cb->cap, cb->n + n, sizeof *cb->v)) {
        nv_jcheck_fail(L, "%s: out of memory for %zu points", path, n);
        return -1;
    }
    *off = (uint32_t)cb->n;
    for (size_t i = 0; i < n; i++) {
        json_object *o = json_object_array_get_idx(arr, i);
        subpath_idx(p, sizeof p, path, "", i);
        if (!json_object_is_type(o, json_type_object)) {
            nv_jcheck_fail(L, "%s: expected an object, got %s", p, nv_jcheck_type_name(o));
            return -1;
        }
        nv_curve_point *pt = &cb->v[cb->n + i];
        if (number(L, o, x, p, wait ? R_NONNEG : R_FRACTION, &pt->utilization) ||
            number(L, o, "slowdown_pct", p, R_SLOWDOWN, &pt->slowdown_pct) ||
            number(L, o, "samples", p, R_POSITIVE, &pt->weight))
            return -1;
        if (wait && pt->utilization > NV_WAIT_MAX_US) {
            nv_jcheck_fail(L, "%s.wait_us: value %g is above %g us (10 s)", p, pt->utilization,
                           NV_WAIT_MAX_US);
            return -1;
        }
        if (is_fit && i > 0) {
            const nv_curve_point *prev = pt - 1;
            if (!(pt->utilization > prev->utilization)) {
                nv_jcheck_fail(L,
                               "%s.%s: value %g is not above the previous point's %g; a fit "
                               "is sorted by strictly increasing %s",
                               p, x, pt->utilization, prev->utilization, wait ? "wait" : "U");
                return -1;
            }
            if (pt->slowdown_pct < prev->slowdown_pct) {
                nv_jcheck_fail(
                    L,
                    "%s.slowdown_pct: value %g is below the previous point's %g; a fit is "
                    "non-decreasing",
                    p, pt->slowdown_pct, prev->slowdown_pct);
                return -1;
            }
        }
    }
    cb->n += n;
    *count = (uint32_t)n;
    return 0;
}

struct load_state {
    struct curve_buf curve;
    double *prof;
    size_t n_prof, prof_cap;
    nv_joint_window *jraw;
    size_t n_jraw, jraw_cap;
    size_t scal_cap;
    size_t slow_cap;
    size_t sig_cap;
};

/* the optional "provenance" object of an app (see the header comment) */
static int provenance(nv_jcheck *L, struct nv_app_rec *a, json_object *o, const char *p)
{
    a->curve_origin = a->n_fit ? NV_CURVE_CAMPAIGN : NV_CURVE_NONE;
    a->latency_origin = NV_LATENCY_IMPACTB;
    json_object *pv;
    if (!json_object_object_get_ex(o, "provenance", &pv))
        return 0;
    char q[PATH_MAX_LEN];
    subpath(q, sizeof q, p, ".provenance");
    if (!json_object_is_type(pv, json_type_object)) {
        nv_jcheck_fail(L, "%s: expected an object, got %s", q, nv_jcheck_type_name(pv));
        return -1;
    }
    json_object *v;
    if (json_object_object_get_ex(pv, "curve", &v)) {
        const char *c = nv_jcheck_string_member(L, pv, "curve", q);
        if (!c)
            return -1;
        if (!strcmp(c, "campaign"))
            a->curve_origin = NV_CURVE_CAMPAIGN;
        else if (!strcmp(c, "production"))
            a->curve_origin = NV_CURVE_PRODUCTION;
        else if (!strcmp(c, "none"))
            a->curve_origin = NV_CURVE_NONE;
        else {
            char buf[64];
            nv_jcheck_show(v, buf, sizeof buf);
            nv_jcheck_fail(L, "%s.curve: value %s is not campaign, production or none", q, buf);
            return -1;
        }
    }
    if (json_object_object_get_ex(pv, "latency", &v)) {
        const char *c = nv_jcheck_string_member(L, pv, "latency", q);
        if (!c)
            return -1;
        if (!strcmp(c, "impactb"))
            a->latency_origin = NV_LATENCY_IMPACTB;
        else if (!strcmp(c, "derived"))
            a->latency_origin = NV_LATENCY_DERIVED;
        else {
            char buf[64];
            nv_jcheck_show(v, buf, sizeof buf);
            nv_jcheck_fail(L, "%s.latency: value %s is not impactb or derived", q, buf);
            return -1;
        }
    }
    int64_t runs;
    if (json_object_object_get_ex(pv, "counter_rho", &v) &&
        number(L, pv, "counter_rho", q, R_FRACTION, &a->counter_rho))
        return -1;
    if (json_object_object_get_ex(pv, "counter_runs", &v)) {
        if (nv_jcheck_integer_member(L, pv, "counter_runs", q, 0, UINT32_MAX, &runs))
            return -1;
        a->counter_runs = (uint32_t)runs;
    }
    if (json_object_object_get_ex(pv, "history_runs", &v)) {
        if (nv_jcheck_integer_member(L, pv, "history_runs", q, 0, UINT32_MAX, &runs))
            return -1;
        a->history_runs = (uint32_t)runs;
    }
    return 0;
}

/* element k of array arr (path q) as a number in [0, max], or -1 with the
 * element named: "q[k]: value V is not NOUN in [0, max]" */
static int bounded_element(nv_jcheck *L, json_object *arr, size_t k, const char *q,
                           const char *noun, double max, double *out)
{
    json_object *v = json_object_array_get_idx(arr, k);
    double d =
        v && (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int))
            ? json_object_get_double(v)
            : NAN;
    if (!(d >= 0 && d <= max)) {
        char buf[64];
        nv_jcheck_show(v, buf, sizeof buf);
        nv_jcheck_fail(L, "%s[%zu]: value %s is not %s in [0, %g]", q, k, buf, noun, max);
        return -1;
    }
    *out = d;
    return 0;
}

/* an optional profile array (name) of an app: 1..NV_PROFILE_MAX values in
 * [0, max], sorted into S->prof at *off */
static int profile_values(nv_jcheck *L, struct load_state *S, json_object *o, const char *p,
                          const char *name, const char *noun, double max, uint32_t *off,
                          uint32_t *count)
{
    json_object *arr;
    if (!json_object_object_get_ex(o, name, &arr))
        return 0;
    char q[PATH_MAX_LEN];
    subpath(q, sizeof q, p, ".");
    size_t ql = strlen(q);
    snprintf(q + ql, sizeof q - ql, "%s", name);
    if (!json_object_is_type(arr, json_type_array)) {
        nv_jcheck_fail(L, "%s: expected an array, got %s", q, nv_jcheck_type_name(arr));
        return -1;
    }
    size_t n = json_object_array_length(arr);
    if (n == 0 || n > NV_PROFILE_MAX) {
        nv_jcheck_fail(L, "%s: %zu values; a profile has 1 to %d", q, n, NV_PROFILE_MAX);
        return -1;
    }
    if (grow((void **)&S->prof, &S->prof_cap, S->n_prof + n, sizeof *S->prof)) {
        nv_jcheck_fail(L, "%s: out of memory", q);
        return -1;
    }
    for (size_t k = 0; k < n; k++)
        if (bounded_element(L, arr, k, q, noun, max, &S->prof[S->n_prof + k]))
            return -1;
    qsort(S->prof + S->n_prof, n, sizeof *S->prof, nv_cmp_double);
    *off = (uint32_t)S->n_prof;
    *count = (uint32_t)n;
    S->n_prof += n;
    return 0;
}

/* the optional "queue_wait" object of an app: the queueing mechanism */
static int queue_wait(nv_jcheck *L, struct load_state *S, struct nv_app_rec *a, json_object *o,
                      const char *p)
{
    json_object *qw;
    if (!json_object_object_get_ex(o, "queue_wait", &qw))
        return 0;
    char q[PATH_MAX_LEN], pp[PATH_MAX_LEN];
    subpath(q, sizeof q, p, ".queue_wait");
    if (!json_object_is_type(qw, json_type_object)) {
        nv_jcheck_fail(L, "%s: expected an object, got %s", q, nv_jcheck_type_name(qw));
        return -1;
    }
    json_object *pts, *fit;
    int has_pts = json_object_object_get_ex(qw, "points", &pts),
        has_fit = json_object_object_get_ex(qw, "fit", &fit);
    if (has_pts != has_fit) {
        nv_jcheck_fail(L, "%s: points and fit go together", q);
        return -1;
    }
    if (has_pts) {
        if (!nv_jcheck_member(L, qw, "points", q, json_type_array) ||
            !nv_jcheck_member(L, qw, "fit", q, json_type_array))
            return -1;
        if (json_object_array_length(pts) > NV_CURVE_MAX_POINTS ||
            json_object_array_length(fit) > NV_CURVE_MAX_POINTS) {
            nv_jcheck_fail(L, "%s: more than %d points", q, NV_CURVE_MAX_POINTS);
            return -1;
        }
        subpath(pp, sizeof pp, q, ".points");
        if (curve_points(L, pts, pp, &S->curve, 0, "wait_us", &a->wpts_off, &a->n_wpts))
            return -1;
        subpath(pp, sizeof pp, q, ".fit");
        if (curve_points(L, fit, pp, &S->curve, 1, "wait_us", &a->wfit_off, &a->n_wfit))
            return -1;
    }
    return profile_values(L, S, qw, q, "profile_us", "a queue wait in us", NV_WAIT_MAX_US,
                          &a->wprof_off, &a->n_wprof);
}

/* one array of the joint windows (path q, member name): n values in
 * [0, max] into dst's u or (is_wait) w_us */
static int joint_values(nv_jcheck *L, json_object *arr, const char *q, const char *name,
                        const char *noun, double max, nv_joint_window *dst, int is_wait)
{
    char e[PATH_MAX_LEN];
    subpath(e, sizeof e, q, ".");
    size_t el = strlen(e);
    snprintf(e + el, sizeof e - el, "%s", name);
    for (size_t k = 0; k < json_object_array_length(arr); k++) {
        double d;
        if (bounded_element(L, arr, k, e, noun, max, &d))
            return -1;
        if (is_wait)
            dst[k].w_us = (float)d;
        else
            dst[k].u = (float)d;
    }
    return 0;
}

/* the optional "joint_windows" object of an app: its (U, W) over windows of
 * its alone runs, for the nearest-configurations mechanism */
static int joint_windows(nv_jcheck *L, struct load_state *S, struct nv_app_rec *a, json_object *o,
                         const char *p)
{
    json_object *jw;
    if (!json_object_object_get_ex(o, "joint_windows", &jw))
        return 0;
    char q[PATH_MAX_LEN];
    subpath(q, sizeof q, p, ".joint_windows");
    if (!json_object_is_type(jw, json_type_object)) {
        nv_jcheck_fail(L, "%s: expected an object, got %s", q, nv_jcheck_type_name(jw));
        return -1;
    }
    double win;
    json_object *u = nv_jcheck_member(L, jw, "utilization", q, json_type_array);
    json_object *w = u ? nv_jcheck_member(L, jw, "queue_wait_us", q, json_type_array) : NULL;
    if (!w || number(L, jw, "window_s", q, R_POSITIVE, &win))
        return -1;
    size_t n = json_object_array_length(u);
    if (n != json_object_array_length(w)) {
        nv_jcheck_fail(L,
                       "%s: %zu utilization values but %zu queue_wait_us values; each window "
                       "has both",
                       q, n, json_object_array_length(w));
        return -1;
    }
    if (n == 0 || n > NV_JOINT_MAX) {
        nv_jcheck_fail(L, "%s: %zu windows; an app has 1 to %d", q, n, NV_JOINT_MAX);
        return -1;
    }
    if (grow((void **)&S->jraw, &S->jraw_cap, S->n_jraw + n, sizeof *S->jraw)) {
        nv_jcheck_fail(L, "%s: out of memory", q);
        return -1;
    }
    if (joint_values(L, u, q, "utilization", "a utilization", 1, S->jraw + S->n_jraw, 0) ||
        joint_values(L, w, q, "queue_wait_us", "a queue wait in us", NV_WAIT_MAX_US,
                     S->jraw + S->n_jraw, 1))
        return -1;
    a->jwin_off = (uint32_t)S->n_jraw;
    a->n_jwin = (uint32_t)n;
    a->jwin_s = win;
    S->n_jraw += n;
    return 0;
}

/* optional bottleneck.KEY, one of two words: *out 0 for w0, 1 for w1
 * (unchanged when absent); -1 with the value named otherwise */
/* bottleneck.KEY, when present, one of the words w[0..n) (NULL-ended):
 * *out = its index */
static int one_word(nv_jcheck *L, json_object *o, const char *key, const char *const *w, int *out)
{
    json_object *v;
    if (!json_object_object_get_ex(o, key, &v))
        return 0;
    const char *s = nv_jcheck_string_member(L, o, key, "bottleneck");
    if (!s)
        return -1;
    for (int i = 0; w[i]; i++)
        if (!strcmp(s, w[i])) {
            *out = i;
            return 0;
        }
    char buf[64], list[200] = "";
    nv_jcheck_show(v, buf, sizeof buf);
    for (int i = 0; w[i]; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", w[i]);
    nv_jcheck_fail(L, "bottleneck.%s: value %s is not one of %s", key, buf, list);
    return -1;
}

/* the optional top-level "bottleneck" object */
static int bottleneck(nv_jcheck *L, json_object *root, nv_bottleneck *bn)
{
    *bn = (nv_bottleneck){.idle_utilization = 0, .route = NV_USRC_LATENCY, .shrink_samples = 2};
    json_object *o, *v;
    if (!json_object_object_get_ex(root, "bottleneck", &o))
        return 0;
    if (!json_object_is_type(o, json_type_object)) {
        nv_jcheck_fail(L, "bottleneck: expected an object, got %s", nv_jcheck_type_name(o));
        return -1;
    }
    bn->present = 1;
    if (json_object_object_get_ex(o, "idle_utilization", &v) &&
        number(L, o, "idle_utilization", "bottleneck", R_FRACTION, &bn->idle_utilization))
        return -1;
    if (json_object_object_get_ex(o, "shrink_samples", &v) &&
        number(L, o, "shrink_samples", "bottleneck", R_POSITIVE, &bn->shrink_samples))
        return -1;
    int route = bn->route, gauge = bn->wait_gauge;
    /* in the order of the enums nv_util_source and nv_wait_gauge */
    static const char *const routes[] = {"latency", "counters", NULL};
    static const char *const gauges[] = {"queue_us", "stall_per_word", "paused_cycles_per_packet",
                                         "stall_per_flit", NULL};
    if (one_word(L, o, "route", routes, &route) || one_word(L, o, "wait_gauge", gauges, &gauge))
        return -1;
    bn->route = (nv_util_source)route;
    bn->wait_gauge = (nv_wait_gauge)gauge;
    return 0;
}

/* The document being loaded: its text, json-c's tokenizer, and where the
 * three large arrays are.  Those are read one element at a time (each
 * element parsed, checked and freed before the next: json_stream.h), so
 * that loading never holds the whole document as json-c objects; every
 * other member is parsed whole into a small root object. */
struct doc {
    const char *text;
    size_t len;
    json_tokener *tok;
    json_object *root;
    nv_jspan apps, training_set, colocation; /* len 0: not an array here */
    unsigned seen_big;                       /* which of the three were met */
    char why[256];                           /* a member's parse error */
};

/* Open the large array NAME, or fail as a whole-tree check would (missing,
 * or not an array: then it is in the small root). */
static int open_array(nv_jcheck *L, struct doc *D, const char *name, nv_jspan span, nv_jarray *a)
{
    if (span.len == 0) {
        if (nv_jcheck_member(L, D->root, name, "", json_type_array))
            nv_jcheck_fail(L, "%s: not read", name); /* cannot happen: arrays are streamed */
        return -1;
    }
    char why[200];
    if (nv_jarray_open(a, D->text, D->len, span, why, sizeof why)) {
        nv_jcheck_fail(L, "%s", why);
        return -1;
    }
    return 0;
}

/* the next element of an open array, parsed; NULL with L failed on error.
 * unique: a member given twice in the element is an error (apps[]) */
static json_object *next_element(nv_jcheck *L, struct doc *D, nv_jarray *a, int unique)
{
    nv_jspan e;
    if (!nv_jarray_next(a, &e)) {
        nv_jcheck_fail(L, "invalid JSON at byte %zu: an array ends early", a->end);
        return NULL;
    }
    char why[200];
    if (unique && nv_jspan_unique_members(D->text, D->len, e, D->tok, why, sizeof why)) {
        nv_jcheck_fail(L, "element at byte %zu: %s", e.off, why);
        return NULL;
    }
    json_object *o = nv_jspan_parse(D->tok, D->text, D->len, e, why, sizeof why);
    if (!o)
        nv_jcheck_fail(L, "%s", why);
    return o;
}

/* the profile route's fit on one axis from the composed points (x divided
 * by scale onto the fitter's [0, 1] and multiplied back: 1 for U,
 * NV_WAIT_MAX_US for waits), appended to the curve pool */
static int profile_fit(nv_jcheck *L, struct load_state *S, nv_curve_point *pts, size_t n,
                       double scale, const char *q, uint32_t *off, uint32_t *count,
                       double *residual)
{
    if (grow((void **)&S->curve.v, &S->curve.cap, S->curve.n + n, sizeof *S->curve.v))
        return nv_jcheck_fail(L, "%s: out of memory for the profile route's curve", q);
    for (size_t k = 0; k < n; k++)
        pts[k].utilization /= scale;
    size_t nf = 0;
    nv_curve_point *fit = S->curve.v + S->curve.n;
    if (nv_isotonic_fit(pts, n, fit, &nf, residual))
        return nv_jcheck_fail(L, "%s: the profile route's curve cannot be fitted", q);
    for (size_t k = 0; scale != 1 && k < nf; k++)
        fit[k].utilization *= scale;
    *off = (uint32_t)S->curve.n;
    *count = (uint32_t)nf;
    S->curve.n += nf;
    return 0;
}

/* runs behind a curve: its points' samples (pts may be NULL when n is 0) */
static uint32_t points_runs(const nv_curve_point *pts, size_t n)
{
    double w = 0;
    for (size_t k = 0; pts && k < n; k++)
        w += pts[k].weight;
    return w >= UINT32_MAX ? UINT32_MAX : (uint32_t)(w + 0.5);
}

/* the optional "signature" of an app (fabric.h); an app with no campaign
 * curve in a model with a fabric response gets its two fits composed from
 * the pair (the profile route) */
static int signature(nv_jcheck *L, nv_model *m, struct load_state *S, struct nv_app_rec *a,
                     json_object *o, const char *p)
{
    a->sig = -1;
    a->curve_runs = a->n_pts    ? points_runs(S->curve.v + a->pts_off, a->n_pts)
                    : a->n_wpts ? points_runs(S->curve.v + a->wpts_off, a->n_wpts)
                                : 0;
    json_object *so;
    if (!json_object_object_get_ex(o, "signature", &so))
        return 0;
    char q[PATH_MAX_LEN], why[300];
    subpath(q, sizeof q, p, ".signature");
    if (grow((void **)&m->sigs, &S->sig_cap, m->n_sigs + 1, sizeof *m->sigs))
        return nv_jcheck_fail(L, "%s: out of memory", q);
    nv_signature *sg = &m->sigs[m->n_sigs];
    if (nv_signature_from_json(so, q, sg, why, sizeof why))
        return nv_jcheck_fail(L, "%s", why);
    a->sig = (int32_t)m->n_sigs++;
    if (a->n_fit || a->n_wfit || !m->fabric)
        return 0; /* a campaign curve answers first; without a fabric, nothing to compose */
    nv_curve_point u[NV_FABRIC_MAX_POINTS], w[NV_FABRIC_MAX_POINTS];
    size_t n = nv_fabric_compose(m->fabric, sg, nv_own_u(a), u, w);
    double wres;
    if (profile_fit(L, S, u, n, 1, q, &a->fit_off, &a->n_fit, &a->residual_pct) ||
        profile_fit(L, S, w, n, NV_WAIT_MAX_US, q, &a->wfit_off, &a->n_wfit, &wres))
        return -1;
    a->wresidual_pct = wres;
    a->curve_origin = NV_CURVE_PROFILE;
    a->curve_runs = sg->runs;
    return 0;
}

/* the optional "fabric" member: the fabric's response (fabric.h), read
 * with the bottleneck's wait gauge */
static int fabric(nv_jcheck *L, json_object *root, nv_model *m)
{
    json_object *o;
    if (!json_object_object_get_ex(root, "fabric", &o))
        return 0;
    char why[300];
    if (!(m->fabric = malloc(sizeof *m->fabric)))
        return nv_jcheck_fail(L, "fabric: out of memory");
    if (nv_fabric_from_json(o, "fabric", m->fabric, why, sizeof why))
        return nv_jcheck_fail(L, "%s", why);
    const char *gauge = nv_wait_gauge_name(m->bn.wait_gauge);
    if (strcmp(m->fabric->wait_gauge, gauge))
        return nv_jcheck_fail(L,
                              "fabric.wait_gauge: \"%s\" is not the bottleneck's \"%s\"; the "
                              "fabric was calibrated on another gauge",
                              m->fabric->wait_gauge, gauge);
    return 0;
}

static int one_app(nv_jcheck *L, nv_model *m, struct load_state *S, json_object *o, size_t i)
{
    char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
    snprintf(p, sizeof p, "apps[%zu]", i);
    if (!json_object_is_type(o, json_type_object)) {
        nv_jcheck_fail(L, "%s: expected an object, got %s", p, nv_jcheck_type_name(o));
        return -1;
    }
    struct nv_app_rec *a = &m->apps[i];
    const char *key = nv_jcheck_string_member(L, o, "key", p);
    if (!key)
        return -1;
    if (!nv_model_key_valid(key)) {
        char buf[64];
        nv_jcheck_show(json_object_object_get(o, "key"), buf, sizeof buf);
        nv_jcheck_fail(L,
                       "%s.key: value %s is not a valid app key (1-%d characters of "
                       "A-Z a-z 0-9 . _ + : / @ = -)",
                       p, buf, NV_MODEL_KEY_MAX);
        return -1;
    }
    a->key = strdup(key);
    if (!a->key) {
        nv_jcheck_fail(L, "%s.key: out of memory", p);
        return -1;
    }
    a->hash = nv_key_hash(a->key);
    const char *src;
    if (number(L, o, "utilization", p, R_FRACTION, &a->utilization) ||
        !(src = nv_jcheck_string_member(L, o, "utilization_source", p)))
        return -1;
    if (!strcmp(src, "latency"))
        a->usrc = NV_USRC_LATENCY;
    else if (!strcmp(src, "counters"))
        a->usrc = NV_USRC_COUNTERS;
    else {
        char buf[64];
        nv_jcheck_show(json_object_object_get(o, "utilization_source"), buf, sizeof buf);
        nv_jcheck_fail(L, "%s.utilization_source: value %s is not latency or counters", p, buf);
        return -1;
    }
    if (latency(L, o, p, &m->app_lat[i]))
        return -1;

    json_object *comp = nv_jcheck_member(L, o, "compression", p, json_type_object);
    if (!comp)
        return -1;
    subpath(q, sizeof q, p, ".compression");
    json_object *pts = nv_jcheck_member(L, comp, "points", q, json_type_array);
    json_object *fit = pts ? nv_jcheck_member(L, comp, "fit", q, json_type_array) : NULL;
    if (!fit || number(L, comp, "residual_pct", q, R_NONNEG, &a->residual_pct))
        return -1;
    char pp[PATH_MAX_LEN];
    subpath(pp, sizeof pp, q, ".points");
    if (curve_points(L, pts, pp, &S->curve, 0, "utilization", &a->pts_off, &a->n_pts))
        return -1;
    subpath(pp, sizeof pp, q, ".fit");
    if (curve_points(L, fit, pp, &S->curve, 1, "utilization", &a->fit_off, &a->n_fit))
        return -1;

    json_object *sc = nv_jcheck_member(L, o, "scaling", p, json_type_array);
    if (!sc)
        return -1;
    size_t ns = json_object_array_length(sc);
    if (grow((void **)&m->scaling, &S->scal_cap, m->n_scaling + ns, sizeof *m->scaling)) {
        nv_jcheck_fail(L, "%s.scaling: out of memory", p);
        return -1;
    }
    a->scal_off = (uint32_t)m->n_scaling;
    a->n_scal = (uint32_t)ns;
    for (size_t k = 0; k < ns; k++) {
        json_object *so = json_object_array_get_idx(sc, k);
        subpath_idx(q, sizeof q, p, ".scaling", k);
        if (!json_object_is_type(so, json_type_object)) {
            nv_jcheck_fail(L, "%s: expected an object, got %s", q, nv_jcheck_type_name(so));
            return -1;
        }
        nv_scaling_point *sp = &m->scaling[m->n_scaling + k];
        int64_t nodes, count;
        if (nv_jcheck_integer_member(L, so, "nodes", q, 1, UINT32_MAX, &nodes) ||
            number(L, so, "median_runtime_s", q, R_POSITIVE, &sp->median_runtime_s) ||
            nv_jcheck_integer_member(L, so, "count", q, 0, UINT32_MAX, &count))
            return -1;
        sp->nodes = (uint32_t)nodes;
        sp->count = (uint32_t)count;
        if (k && sp->nodes <= sp[-1].nodes) {
            nv_jcheck_fail(
                L,
                "%s.nodes: value %u is not above the previous point's %u; scaling points "
                "are sorted by strictly increasing node count",
                q, sp->nodes, sp[-1].nodes);
            return -1;
        }
    }
    m->n_scaling += ns;
    for (int r = 0; r < NV_PICK_RULES; r++)
        a->pick[r] = -1;
    if (profile_values(L, S, o, p, "utilization_profile", "a utilization", 1, &a->prof_off,
                       &a->n_prof) ||
        queue_wait(L, S, a, o, p) || joint_windows(L, S, a, o, p) || provenance(L, a, o, p))
        return -1;
    return signature(L, m, S, a, o, p);
}

static int apps(nv_jcheck *L, nv_model *m, struct load_state *S, struct doc *D)
{
    nv_jarray arr;
    if (open_array(L, D, "apps", D->apps, &arr))
        return -1;
    size_t n = arr.count;
    if (n > NV_MODEL_MAX_APPS) {
        nv_jcheck_fail(L, "apps: %zu apps is more than the %u netvar loads", n, NV_MODEL_MAX_APPS);
        return -1;
    }
    /* aligned so that each app's first cache line is whole (model_internal.h) */
    m->apps = aligned_alloc(_Alignof(struct nv_app_rec), (n ? n : 1) * sizeof *m->apps);
    if (m->apps)
        memset(m->apps, 0, (n ? n : 1) * sizeof *m->apps);
    m->app_lat = calloc(n ? n : 1, sizeof *m->app_lat);
    m->app_cap = pow2_at_least(2 * n);
    m->app_slots = malloc(m->app_cap * sizeof *m->app_slots);
    if (!m->apps || !m->app_lat || !m->app_slots) {
        nv_jcheck_fail(L, "apps: out of memory for %zu apps", n);
        return -1;
    }
    memset(m->app_slots, 0xff, m->app_cap * sizeof *m->app_slots);
    for (size_t i = 0; i < n; i++) {
        m->n_apps = i + 1; /* so that nv_model_free releases what one_app made */
        json_object *o = next_element(L, D, &arr, 1);
        if (!o)
            return -1;
        int bad = one_app(L, m, S, o, i);
        json_object_put(o);
        if (bad)
            return -1;
        int32_t dup = nv_model_app_insert(m, (int32_t)i);
        if (dup >= 0) {
            nv_jcheck_fail(L, "apps[%zu].key: duplicate app \"%s\" (first defined at apps[%d])", i,
                           m->apps[i].key, dup);
            return -1;
        }
    }
    m->n_apps = n;
    return 0;
}

/* look up an app key field; unknown keys are an error naming the field */
static int32_t app_ref(nv_jcheck *L, nv_model *m, json_object *o, const char *key, const char *path)
{
    const char *s = nv_jcheck_string_member(L, o, key, path);
    if (!s)
        return -1;
    int32_t a = nv_model_app_index(m, s);
    if (a < 0) {
        char buf[64];
        nv_jcheck_show(json_object_object_get(o, key), buf, sizeof buf);
        nv_jcheck_fail(L, "%s.%s: value %s is not an app of this model (not in apps)", path, key,
                       buf);
    }
    return a;
}

static uint64_t id_hash(const char *s)
{
    return nv_key_hash(s);
}

static int training_set(nv_jcheck *L, nv_model *m, struct load_state *S, struct doc *D)
{
    nv_jarray arr;
    if (open_array(L, D, "training_set", D->training_set, &arr))
        return -1;
    size_t n = arr.count;
    if (n > INT32_MAX / 4) {
        nv_jcheck_fail(L, "training_set: %zu configurations is more than netvar supports", n);
        return -1;
    }
    m->configs = calloc(n ? n : 1, sizeof *m->configs);
    m->cfg_lat = calloc(n ? n : 1, sizeof *m->cfg_lat);
    size_t idcap = pow2_at_least(2 * n);
    int32_t *ids = malloc(idcap * sizeof *ids);
    int32_t *last_cfg = malloc((m->n_apps ? m->n_apps : 1) * sizeof *last_cfg);
    if (!m->configs || !m->cfg_lat || !ids || !last_cfg) {
        free(ids);
        free(last_cfg);
        nv_jcheck_fail(L, "training_set: out of memory for %zu configurations", n);
        return -1;
    }
    memset(ids, 0xff, idcap * sizeof *ids);
    memset(last_cfg, 0xff, (m->n_apps ? m->n_apps : 1) * sizeof *last_cfg);
    int rc = -1;
    char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
    json_object *o = NULL;
    for (size_t i = 0; i < n; i++) {
        json_object_put(o);
        if (!(o = next_element(L, D, &arr, 0)))
            goto out;
        snprintf(p, sizeof p, "training_set[%zu]", i);
        m->n_configs = i + 1;
        if (!json_object_is_type(o, json_type_object)) {
            nv_jcheck_fail(L, "%s: expected an object, got %s", p, nv_jcheck_type_name(o));
            goto out;
        }
        struct nv_config_rec *c = &m->configs[i];
        const char *id = nv_jcheck_string_member(L, o, "id", p);
        if (!id)
            goto out;
        if (!nv_model_key_valid(id)) {
            char buf[64];
            nv_jcheck_show(json_object_object_get(o, "id"), buf, sizeof buf);
            nv_jcheck_fail(L,
                           "%s.id: value %s is not a valid configuration id (1-%d characters of "
                           "A-Z a-z 0-9 . _ + : / @ = -)",
                           p, buf, NV_MODEL_KEY_MAX);
            goto out;
        }
        if (!(c->id = strdup(id))) {
            nv_jcheck_fail(L, "%s.id: out of memory", p);
            goto out;
        }
        for (size_t s = id_hash(c->id) & (idcap - 1);; s = (s + 1) & (idcap - 1)) {
            if (ids[s] < 0) {
                ids[s] = (int32_t)i;
                break;
            }
            if (!strcmp(m->configs[ids[s]].id, c->id)) {
                nv_jcheck_fail(L,
                               "%s.id: duplicate configuration \"%.40s\" (first defined at "
                               "training_set[%d])",
                               p, c->id, ids[s]);
                goto out;
            }
        }
        int64_t partners, messages;
        if (number(L, o, "bubble_cycles", p, R_NONNEG, &c->bubble_cycles) ||
            nv_jcheck_integer_member(L, o, "partners", p, 1, UINT32_MAX, &partners) ||
            nv_jcheck_integer_member(L, o, "messages", p, 1, UINT32_MAX, &messages) ||
            number(L, o, "utilization", p, R_FRACTION, &c->utilization) ||
            latency(L, o, p, &m->cfg_lat[i]))
            goto out;
        c->wait_us = NAN; /* optional: the configuration's mean queue wait alone */
        if (json_object_object_get_ex(o, "queue_wait_us", NULL)) {
            if (number(L, o, "queue_wait_us", p, R_NONNEG, &c->wait_us))
                goto out;
            if (c->wait_us > NV_WAIT_MAX_US) {
                nv_jcheck_fail(L, "%s.queue_wait_us: value %g is over %g us (not a measurement)", p,
                               c->wait_us, NV_WAIT_MAX_US);
                goto out;
            }
        }
        c->partners = (uint32_t)partners;
        c->messages = (uint32_t)messages;
        json_object *sl = nv_jcheck_member(L, o, "slowdowns", p, json_type_array);
        if (!sl)
            goto out;
        size_t ns = json_object_array_length(sl);
        if (grow((void **)&m->slow, &S->slow_cap, m->n_slow + ns, sizeof *m->slow)) {
            nv_jcheck_fail(L, "%s.slowdowns: out of memory", p);
            goto out;
        }
        c->n_slow = (uint32_t)ns;
        for (size_t k = 0; k < ns; k++) {
            json_object *so = json_object_array_get_idx(sl, k);
            subpath_idx(q, sizeof q, p, ".slowdowns", k);
            if (!json_object_is_type(so, json_type_object)) {
                nv_jcheck_fail(L, "%s: expected an object, got %s", q, nv_jcheck_type_name(so));
                goto out;
            }
            struct nv_slow_rec *r = &m->slow[m->n_slow];
            r->config = (int32_t)i;
            if ((r->app = app_ref(L, m, so, "app", q)) < 0 ||
                number(L, so, "slowdown_pct", q, R_SLOWDOWN, &r->pct))
                goto out;
            if (last_cfg[r->app] == (int32_t)i) {
                nv_jcheck_fail(L, "%s.app: duplicate app \"%s\" in this configuration's slowdowns",
                               q, m->apps[r->app].key);
                goto out;
            }
            last_cfg[r->app] = (int32_t)i;
            m->n_slow++;
        }
    }
    m->n_configs = n;
    rc = 0;
out:
    json_object_put(o);
    free(ids);
    free(last_cfg);
    return rc;
}

/* colocation[i] into m->pairs[i] and the pair hash */
static int one_pair(nv_jcheck *L, nv_model *m, json_object *o, size_t i)
{
    char p[PATH_MAX_LEN];
    snprintf(p, sizeof p, "colocation[%zu]", i);
    if (!json_object_is_type(o, json_type_object)) {
        nv_jcheck_fail(L, "%s: expected an object, got %s", p, nv_jcheck_type_name(o));
        return -1;
    }
    nv_pair_view *pv = &m->pairs[i];
    int64_t samples;
    if ((pv->app = app_ref(L, m, o, "app", p)) < 0 ||
        (pv->with = app_ref(L, m, o, "with", p)) < 0 ||
        number(L, o, "slowdown_pct", p, R_SLOWDOWN, &pv->slowdown_pct) ||
        nv_jcheck_integer_member(L, o, "samples", p, 1, UINT32_MAX, &samples) ||
        number(L, o, "sd_pct", p, R_NONNEG, &pv->sd_pct))
        return -1;
    pv->samples = (uint32_t)samples;
    long dup = nv_model_pair_insert(m, pv->app, pv->with, (int32_t)i);
    if (dup >= 0) {
        nv_jcheck_fail(L,
                       "%s: duplicate pair (\"%s\" beside \"%s\"), first defined at "
                       "colocation[%ld]",
                       p, m->apps[pv->app].key, m->apps[pv->with].key, dup);
        return -1;
    }
    return 0;
}

static int colocation(nv_jcheck *L, nv_model *m, struct doc *D)
{
    nv_jarray arr;
    if (open_array(L, D, "colocation", D->colocation, &arr))
        return -1;
    size_t n = arr.count;
    if (n > NV_MODEL_MAX_PAIRS) {
        nv_jcheck_fail(L, "colocation: %zu pairs is more than the %u netvar loads", n,
                       NV_MODEL_MAX_PAIRS);
        return -1;
    }
    m->pairs = calloc(n ? n : 1, sizeof *m->pairs);
    m->pair_cap = pow2_at_least(2 * n);
    m->pair_tab = malloc(m->pair_cap * sizeof *m->pair_tab);
    if (!m->pairs || !m->pair_tab) {
        nv_jcheck_fail(L, "colocation: out of memory for %zu pairs", n);
        return -1;
    }
    for (size_t i = 0; i < m->pair_cap; i++)
        m->pair_tab[i] = (struct nv_pair_slot){0, -1};
    for (size_t i = 0; i < n; i++) {
        json_object *o = next_element(L, D, &arr, 0);
        if (!o)
            return -1;
        int bad = one_pair(L, m, o, i);
        json_object_put(o);
        if (bad)
            return -1;
        m->n_pairs = i + 1;
    }
    return 0;
}

static int cmp_slow(const void *a, const void *b)
{
    const struct nv_slow_rec *x = a, *y = b;
    if (x->app != y->app)
        return x->app < y->app ? -1 : 1;
    return (x->config > y->config) - (x->config < y->config);
}

/* Derived indexes: per-app slowdown ranges, per-config lists, configs by
 * utilization, and each app's configuration under each look-up rule. */
static int derive(nv_jcheck *L, nv_model *m)
{
    if (m->n_slow) /* qsort needs a non-NULL base even for 0 elements */
        qsort(m->slow, m->n_slow, sizeof *m->slow, cmp_slow);
    for (size_t k = 0; k < m->n_slow; k++) {
        struct nv_app_rec *a = &m->apps[m->slow[k].app];
        if (a->n_slow == 0)
            a->slow_off = (uint32_t)k;
        a->n_slow++;
    }
    m->slow_by_config = malloc((m->n_slow ? m->n_slow : 1) * sizeof *m->slow_by_config);
    m->cfg_by_util = malloc((m->n_configs ? m->n_configs : 1) * sizeof *m->cfg_by_util);
    if (!m->slow_by_config || !m->cfg_by_util) {
        nv_jcheck_fail(L, "training_set: out of memory for its indexes");
        return -1;
    }
    /* counting sort by configuration, keeping app order inside each */
    uint32_t off = 0;
    for (size_t c = 0; c < m->n_configs; c++) {
        m->configs[c].by_cfg_off = off;
        off += m->configs[c].n_slow;
        m->configs[c].n_slow = 0;
    }
    for (size_t k = 0; k < m->n_slow; k++) {
        struct nv_config_rec *c = &m->configs[m->slow[k].config];
        m->slow_by_config[c->by_cfg_off + c->n_slow++] = (uint32_t)k;
    }
    for (size_t c = 0; c < m->n_configs; c++)
        m->cfg_by_util[c] = (int32_t)c;
    /* insertion sort: training sets are small (hundreds), and it is stable */
    for (size_t i = 1; i < m->n_configs; i++) {
        int32_t v = m->cfg_by_util[i];
        size_t j = i;
        while (j > 0 && m->configs[m->cfg_by_util[j - 1]].utilization > m->configs[v].utilization) {
            m->cfg_by_util[j] = m->cfg_by_util[j - 1];
            j--;
        }
        m->cfg_by_util[j] = v;
    }
    for (size_t i = 0; i < m->n_apps; i++) {
        struct nv_app_rec *a = &m->apps[i];
        a->pick[NV_PICK_AVERAGE] =
            (int32_t)nv_pick_average_lt(&m->app_lat[i], m->cfg_lat, m->n_configs);
        a->pick[NV_PICK_AVERAGE_STDEV] =
            (int32_t)nv_pick_average_stdev_lt(&m->app_lat[i], m->cfg_lat, m->n_configs);
        a->pick[NV_PICK_PDF] = (int32_t)nv_pick_pdf_lt(&m->app_lat[i], m->cfg_lat, m->n_configs);
    }
    return 0;
}

/* nv_jspan_members' callback: the three large arrays are remembered as
 * spans, every other member is parsed into the small root; a member given
 * twice refuses the model (json-c would keep the last silently: a hand
 * edit appended below the original, or a forgery) */
static int top_member(void *arg, const char *key, nv_jspan v)
{
    struct doc *D = arg;
    nv_jspan *slot = !strcmp(key, "apps")           ? &D->apps
                     : !strcmp(key, "training_set") ? &D->training_set
                     : !strcmp(key, "colocation")   ? &D->colocation
                                                    : NULL;
    unsigned big = slot == &D->apps ? 1u : slot == &D->training_set ? 2u : slot ? 4u : 0u;
    if ((big && (D->seen_big & big)) || (!big && json_object_object_get_ex(D->root, key, NULL))) {
        char shown[128];
        snprintf(D->why, sizeof D->why, "member \"%s\" given twice (at byte %zu)",
                 nv_printable(key, shown, 64), v.off);
        return 1;
    }
    D->seen_big |= big;
    if (slot && nv_jspan_is_array(D->text, v)) {
        *slot = v;
        json_object_object_del(D->root, key);
        return 0;
    }
    char why[200];
    json_object *o = nv_jspan_parse(D->tok, D->text, D->len, v, why, sizeof why);
    if (!o) {
        /* the caller's err gets it through the walk's own buffer */
        snprintf(D->why, sizeof D->why, "%s", why);
        return 1;
    }
    if (slot)
        *slot = (nv_jspan){0, 0};
    if (json_object_object_add(D->root, key, o)) {
        json_object_put(o);
        snprintf(D->why, sizeof D->why, "out of memory reading member \"%.40s\"", key);
        return 1;
    }
    return 0;
}

nv_model *nv_model_load_buffer(const char *text, size_t len, char *err, size_t errlen)
{
    nv_jcheck L = {err, errlen, 0};
    if (err && errlen)
        err[0] = 0;
    if (!text || len == 0) {
        nv_jcheck_fail(&L, "model is empty (0 bytes); expected a JSON object");
        return NULL;
    }
    if (len > NV_MODEL_MAX_BYTES) {
        nv_jcheck_fail(&L, "model is %zu bytes, more than the %u bytes netvar loads", len,
                       NV_MODEL_MAX_BYTES);
        return NULL;
    }
    struct doc D = {.text = text, .len = len};
    D.tok = json_tokener_new_ex(64);
    D.root = json_object_new_object();
    if (!D.tok || !D.root) {
        nv_jcheck_fail(&L, "out of memory creating the JSON parser");
        goto fail_doc;
    }
    char walk_err[256];
    int walk = nv_jspan_members(text, len, D.tok, top_member, &D, walk_err, sizeof walk_err);
    if (walk) {
        const char *msg = walk > 0 ? D.why : walk_err;
        if (!strncmp(msg, "expected a JSON object", 22))
            nv_jcheck_fail(&L, "model: %s", msg);
        else
            nv_jcheck_fail(&L, "%s", msg);
        goto fail_doc;
    }
    json_object *root = D.root;

    nv_model *m = calloc(1, sizeof *m);
    struct load_state S = {0};
    if (!m) {
        nv_jcheck_fail(&L, "out of memory for the model");
        goto fail_doc;
    }
    const char *schema = nv_jcheck_string_member(&L, root, "schema", "");
    int64_t version = 0;
    if (schema && strcmp(schema, NV_MODEL_SCHEMA)) {
        char buf[64];
        nv_jcheck_show(json_object_object_get(root, "schema"), buf, sizeof buf);
        nv_jcheck_fail(&L, "schema: value %s is not \"%s\"", buf, NV_MODEL_SCHEMA);
    }
    if (!L.failed &&
        !nv_jcheck_integer_member(&L, root, "version", "", INT64_MIN, INT64_MAX, &version) &&
        version != NV_MODEL_VERSION)
        nv_jcheck_fail(&L, "version: value %lld is not supported (this netvar reads version %d)",
                       (long long)version, NV_MODEL_VERSION);
    if (!L.failed)
        calibration(&L, root, &m->cal);
    if (!L.failed)
        bottleneck(&L, root, &m->bn);
    if (!L.failed)
        fabric(&L, root, m);
    if (!L.failed)
        apps(&L, m, &S, &D);
    m->curve = S.curve.v;
    m->n_curve = S.curve.n;
    m->profile = S.prof;
    m->n_profile = S.n_prof;
    m->jraw = S.jraw;
    m->n_jraw = S.n_jraw;
    if (!L.failed)
        training_set(&L, m, &S, &D);
    if (!L.failed)
        colocation(&L, m, &D);
    if (!L.failed)
        derive(&L, m);
    if (!L.failed) {
        char why[200];
        if (nv_model_derive_bottleneck(m, why, sizeof why))
            nv_jcheck_fail(&L, "%s", why);
    }
    json_object *ve;
    if (!L.failed && json_object_object_get_ex(root, "variability", &ve)) {
        char why[400];
        if (!(m->ve = nv_ve_from_json(ve, "variability", why, sizeof why)))
            nv_jcheck_fail(&L, "%s", why);
    }
    json_object *al; /* optional allocation advice: format in alloc_model.c */
    if (!L.failed && json_object_object_get_ex(root, "alloc", &al)) {
        char why[400];
        if (!(m->alloc = nv_alloc_from_json(al, "alloc", why, sizeof why)))
            nv_jcheck_fail(&L, "%s", why);
    }
    json_object_put(root);
    json_tokener_free(D.tok);
    if (L.failed) {
        nv_model_free(m);
        return NULL;
    }
    (void)nv_model_pack_hot(m); /* an optimization: a failure leaves the model as it was */
    return m;

fail_doc:
    json_object_put(D.root);
    if (D.tok)
        json_tokener_free(D.tok);
    return NULL;
}

nv_model *nv_model_load(const char *path, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = 0;
    if (!path) {
        snprintf(err, errlen, "model: no path given");
        return NULL;
    }
    size_t got = 0;
    char why[256];
    char *buf = nv_read_file(path, NV_MODEL_MAX_BYTES, &got, why, sizeof why);
    if (!buf) {
        snprintf(err, errlen, "%s: %s", path, why);
        return NULL;
    }
    char inner[512];
    nv_model *m = nv_model_load_buffer(buf, got, inner, sizeof inner);
    free(buf);
    if (!m)
        snprintf(err, errlen, "%s: %s", path, inner);
    return m;
}
