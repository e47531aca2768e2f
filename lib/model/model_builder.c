/* model_builder.c - build model files from parts (model_builder.h) and save
 * immutable models.  The builder keeps json-c objects keyed by app, config
 * id and pair, so a replace is O(1) and the output is the loader's format. */
#include "model_builder.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "atomic_file.h"
#include "nv_err.h"
#include "nv_json.h"
#include "alloc_model.h"
#include "fabric.h"
#include "ve_model.h"

struct nv_model_builder {
    json_object *calibration; /* NULL until set */
    json_object *apps;        /* key -> app object */
    json_object *configs;     /* id -> configuration object */
    json_object *pairs;       /* "app\twith" -> pair object */
    json_object *variability; /* optional section, NULL when absent */
    json_object *alloc;       /* optional section, NULL when absent */
    json_object *fabric;      /* optional section, NULL when absent */
    nv_bottleneck bn;         /* written as "bottleneck" */
    char error[256];
};

/* the builder's last problem, returned by nv_builder_error() */
#define berr(b, ...) nv_err((b)->error, sizeof((b)->error), __VA_ARGS__)

const char *nv_builder_error(const nv_model_builder *b)
{
    return b ? b->error : "no builder";
}

nv_model_builder *nv_builder_new(void)
{
    nv_model_builder *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->apps = json_object_new_object();
    b->configs = json_object_new_object();
    b->pairs = json_object_new_object();
    b->bn = (nv_bottleneck){
        .idle_utilization = 0, .route = NV_USRC_LATENCY, .shrink_samples = 2, .present = 1};
    if (!b->apps || !b->configs || !b->pairs) {
        nv_builder_free(b);
        return NULL;
    }
    return b;
}

void nv_builder_free(nv_model_builder *b)
{
    if (!b)
        return;
    json_object_put(b->calibration);
    json_object_put(b->apps);
    json_object_put(b->configs);
    json_object_put(b->pairs);
    json_object_put(b->variability);
    json_object_put(b->alloc);
    json_object_put(b->fabric);
    free(b);
}

/* json-c's add functions take ownership; a NULL value marks an allocation
 * failure, remembered in *ok */
static void put(json_object *o, const char *k, json_object *v, int *ok)
{
    if (!v || json_object_object_add(o, k, v)) {
        json_object_put(v);
        *ok = 0;
    }
}

static json_object *jhist(const nv_histogram *h, int *ok)
{
    int used = NV_HIST_BINS; /* empty bins at the end are not written */
    while (used > 0 && h->count[used - 1] == 0)
        used--;
    json_object *o = json_object_new_object(), *c = json_object_new_array_ext(used ? used : 1);
    if (!o || !c) {
        json_object_put(o);
        json_object_put(c);
        *ok = 0;
        return NULL;
    }
    for (int k = 0; k < used; k++) {
        json_object *v =
            json_object_new_int64((int64_t)(h->count[k] > INT64_MAX ? INT64_MAX : h->count[k]));
        if (!v || json_object_array_add(c, v)) {
            json_object_put(v);
            *ok = 0;
        }
    }
    put(o, "bins_per_decade", json_object_new_int(NV_HIST_BINS_PER_DECADE), ok);
    put(o, "first_edge_us", json_object_new_int(1), ok);
    put(o, "counts", c, ok);
    return o;
}

static json_object *jlatency(const nv_latency_summary *l, int *ok)
{
    json_object *o = json_object_new_object();
    if (!o) {
        *ok = 0;
        return NULL;
    }
    put(o, "mean_us", nv_json_new_num_or_nan(l->mean_us), ok);
    put(o, "sd_us", nv_json_new_num_or_nan(l->sd_us), ok);
    put(o, "histogram", jhist(&l->hist, ok), ok);
    return o;
}

/* a curve as JSON: [{x, slowdown_pct, samples}], x "utilization" or "wait_us" */
static json_object *jcurve(const nv_curve_point *p, size_t n, const char *x, int *ok)
{
    json_object *a = json_object_new_array_ext((int)(n < 1000000 ? n : 1000000));
    if (!a) {
        *ok = 0;
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        json_object *o = json_object_new_object();
        if (!o) {
            *ok = 0;
            break;
        }
        put(o, x, nv_json_new_num_or_nan(p[i].utilization), ok);
        put(o, "slowdown_pct", nv_json_new_num_or_nan(p[i].slowdown_pct), ok);
        put(o, "samples", nv_json_new_num_or_nan(p[i].weight), ok);
        if (json_object_array_add(a, o)) {
            json_object_put(o);
            *ok = 0;
        }
    }
    return a;
}

/* json-c's serializer for a frozen entry: its text as it is */
static int print_frozen(json_object *o, struct printbuf *pb, int level, int flags)
{
    (void)level;
    (void)flags;
    return printbuf_memappend(pb, json_object_get_string(o), json_object_get_string_len(o));
}

/* Put v (taken) under key, replacing an entry of that key, which moves to
 * the end.  An app, configuration or pair is kept as its JSON text in one
 * string that prints as itself: the builder of a site's year holds 40 000
 * entries and 5 000 curves, about 20 times larger as json-c objects than
 * as text.  Returns 0, or -1 when out of memory (nothing changed). */
static int replace(json_object *map, const char *key, json_object *v)
{
    size_t n = 0;
    const char *text = json_object_to_json_string_length(
        v, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &n);
    json_object *frozen = text && n < INT32_MAX ? json_object_new_string_len(text, (int)n) : NULL;
    json_object_put(v);
    if (!frozen)
        return -1;
    json_object_set_serializer(frozen, print_frozen, NULL, NULL);
    json_object_object_del(map, key);
    if (json_object_object_add(map, key, frozen)) {
        json_object_put(frozen);
        return -1;
    }
    return 0;
}

int nv_builder_set_calibration(nv_model_builder *b, const nv_calibration *cal)
{
    if (!b || !cal)
        return b ? berr(b, "calibration: none given") : -1;
    int ok = 1;
    json_object *o = json_object_new_object();
    if (!o)
        return berr(b, "calibration: out of memory");
    put(o, "method", json_object_new_string(nv_cal_method_name(cal->method)), &ok);
    put(o, "quantile", nv_json_new_num_or_nan(cal->quantile), &ok);
    put(o, "service_us", nv_json_new_num_or_nan(cal->service_us), &ok);
    put(o, "var_s_us2", nv_json_new_num_or_nan(cal->var_s_us2), &ok);
    put(o, "idle_mean_us", nv_json_new_num_or_nan(cal->idle_mean_us), &ok);
    put(o, "samples",
        json_object_new_int64((int64_t)(cal->samples > INT64_MAX ? INT64_MAX : cal->samples)), &ok);
    put(o, "histogram", jhist(&cal->hist, &ok), &ok);
    if (!ok) {
        json_object_put(o);
        return berr(b, "calibration: out of memory");
    }
    json_object_put(b->calibration);
    b->calibration = o;
    return 0;
}

/* "queue_wait" into app object o: the points, their isotonic fit (the
 * fitter takes x in [0, 1], so waits are divided by NV_WAIT_MAX_US for it
 * and multiplied back), and the profile.  0, or -1 on a bad value or when
 * memory runs out. */
static int put_queue_wait(json_object *o, const nv_curve_point *pts, size_t n, const double *prof,
                          size_t n_prof)
{
    int ok = 1;
    json_object *qw = json_object_new_object();
    if (!qw)
        return -1;
    if (n) {
        nv_curve_point *s = malloc(n * sizeof *s), *fit = malloc(n * sizeof *fit);
        size_t n_fit = 0;
        double residual;
        int bad = !s || !fit;
        for (size_t i = 0; !bad && i < n; i++) {
            bad = !(pts[i].utilization >= 0 && pts[i].utilization <= NV_WAIT_MAX_US);
            s[i] = pts[i];
            s[i].utilization = pts[i].utilization / NV_WAIT_MAX_US; /* onto [0, 1] */
        }
        if (!bad)
            bad = nv_isotonic_fit(s, n, fit, &n_fit, &residual) != 0;
        for (size_t i = 0; !bad && i < n_fit; i++)
            fit[i].utilization *= NV_WAIT_MAX_US;
        if (!bad) {
            put(qw, "points", jcurve(pts, n, "wait_us", &ok), &ok);
            put(qw, "fit", jcurve(fit, n_fit, "wait_us", &ok), &ok);
        }
        free(s);
        free(fit);
        if (bad) {
            json_object_put(qw);
            return -1;
        }
    }
    if (n_prof) {
        json_object *pa = json_object_new_array();
        for (size_t k = 0; pa && k < n_prof; k++)
            if (json_object_array_add(pa, nv_json_new_num_or_nan(prof[k])))
                ok = 0;
        put(qw, "profile_us", pa, &ok);
    }
    put(o, "queue_wait", qw, &ok);
    return ok ? 0 : -1;
}

int nv_builder_add_app(nv_model_builder *b, const nv_app_input *in)
{
    if (!b || !in)
        return b ? berr(b, "app: none given") : -1;
    if (!nv_model_key_valid(in->key))
        return berr(b,
                    "app key \"%.60s\": not a valid app key (1-%d of A-Z a-z 0-9 . _ + : / @ = -)",
                    in->key ? in->key : "", NV_MODEL_KEY_MAX);
    if (!in->latency)
        return berr(b, "app %s: no latency summary given", in->key);
    if ((in->n_points && !in->points) || (in->n_fit && !in->fit) || (in->n_scaling && !in->scaling))
        return berr(b, "app %s: a count is set but its array is NULL", in->key);
    if (in->n_points > NV_CURVE_MAX_POINTS || in->n_scaling > NV_CURVE_MAX_POINTS)
        return berr(b, "app %s: too many points", in->key);
    if (in->n_profile > NV_PROFILE_MAX || (in->n_profile && !in->profile))
        return berr(b, "app %s: a utilization profile has 1 to %d values", in->key, NV_PROFILE_MAX);
    if (in->n_wait_profile > NV_PROFILE_MAX || (in->n_wait_profile && !in->wait_profile_us) ||
        (in->n_wait_points && !in->wait_points) || in->n_wait_points > NV_CURVE_MAX_POINTS)
        return berr(b, "app %s: a queue-wait profile has 1 to %d values, and points need an array",
                    in->key, NV_PROFILE_MAX);
    for (size_t k = 0; k < in->n_wait_profile; k++)
        if (!(in->wait_profile_us[k] >= 0 && in->wait_profile_us[k] <= NV_WAIT_MAX_US))
            return berr(b, "app %s: queue wait %g us is not in [0, %g]", in->key,
                        in->wait_profile_us[k], NV_WAIT_MAX_US);
    if (in->n_joint > NV_JOINT_MAX || (in->n_joint && !in->joint) ||
        (in->n_joint && !(in->joint_window_s > 0)))
        return berr(b, "app %s: joint windows: 1 to %d of them, and a window length > 0 s", in->key,
                    NV_JOINT_MAX);

    nv_curve_point *fitted = NULL;
    const nv_curve_point *fit = in->fit;
    size_t n_fit = in->n_fit;
    double residual = in->fit_residual_pct;
    if (!fit && in->n_points) {
        fitted = malloc(in->n_points * sizeof *fitted);
        if (!fitted)
            return berr(b, "app %s: out of memory", in->key);
        if (nv_isotonic_fit(in->points, in->n_points, fitted, &n_fit, &residual)) {
            free(fitted);
            return berr(b,
                        "app %s: compression points cannot be fitted (a value is not finite, "
                        "U outside [0,1] or samples <= 0)",
                        in->key);
        }
        fit = fitted;
    } else if (!fit) {
        n_fit = 0;
        residual = 0;
    }

    int ok = 1;
    json_object *o = json_object_new_object(), *comp = json_object_new_object(),
                *sc = json_object_new_array();
    if (!o || !comp || !sc) {
        json_object_put(o);
        json_object_put(comp);
        json_object_put(sc);
        free(fitted);
        return berr(b, "app %s: out of memory", in->key);
    }
    put(o, "key", json_object_new_string(in->key), &ok);
    put(o, "utilization", nv_json_new_num_or_nan(in->utilization), &ok);
    put(o, "utilization_source",
        json_object_new_string(nv_util_source_name(in->utilization_source)), &ok);
    put(o, "latency", jlatency(in->latency, &ok), &ok);
    put(comp, "points", jcurve(in->points, in->n_points, "utilization", &ok), &ok);
    put(comp, "fit", jcurve(fit, n_fit, "utilization", &ok), &ok);
    put(comp, "residual_pct", nv_json_new_num_or_nan(residual), &ok);
    put(o, "compression", comp, &ok);
    for (size_t i = 0; i < in->n_scaling; i++) {
        json_object *s = json_object_new_object();
        if (!s) {
            ok = 0;
            break;
        }
        put(s, "nodes", json_object_new_int64(in->scaling[i].nodes), &ok);
        put(s, "median_runtime_s", nv_json_new_num_or_nan(in->scaling[i].median_runtime_s), &ok);
        put(s, "count", json_object_new_int64(in->scaling[i].count), &ok);
        if (json_object_array_add(sc, s)) {
            json_object_put(s);
            ok = 0;
        }
    }
    put(o, "scaling", sc, &ok);
    if (in->n_profile) {
        json_object *pa = json_object_new_array();
        for (size_t k = 0; pa && k < in->n_profile; k++)
            if (json_object_array_add(pa, nv_json_new_num_or_nan(in->profile[k])))
                ok = 0;
        put(o, "utilization_profile", pa, &ok);
    }
    if ((in->n_wait_points || in->n_wait_profile) && ok &&
        put_queue_wait(o, in->wait_points, in->n_wait_points, in->wait_profile_us,
                       in->n_wait_profile)) {
        json_object_put(o);
        free(fitted);
        return berr(b,
                    "app %s: queue-wait points cannot be fitted (a value is not finite, a "
                    "wait outside [0, %g] us, samples <= 0) or memory ran out",
                    in->key, NV_WAIT_MAX_US);
    }
    if (in->n_joint) {
        json_object *jw = json_object_new_object(), *ju = json_object_new_array(),
                    *jq = json_object_new_array();
        for (size_t k = 0; ju && jq && k < in->n_joint; k++) {
            if (json_object_array_add(ju, nv_json_new_num_or_nan(in->joint[k].u)))
                ok = 0;
            if (json_object_array_add(jq, nv_json_new_num_or_nan(in->joint[k].w_us)))
                ok = 0;
        }
        if (!jw) {
            json_object_put(ju);
            json_object_put(jq);
            ok = 0;
        } else {
            put(jw, "window_s", nv_json_new_num_or_nan(in->joint_window_s), &ok);
            put(jw, "utilization", ju, &ok);
            put(jw, "queue_wait_us", jq, &ok);
            put(o, "joint_windows", jw, &ok);
        }
    }
    if (in->has_provenance) {
        json_object *pv = json_object_new_object();
        if (!pv)
            ok = 0;
        else {
            put(pv, "curve", json_object_new_string(nv_curve_origin_name(in->curve_origin)), &ok);
            put(pv, "latency", json_object_new_string(nv_latency_origin_name(in->latency_origin)),
                &ok);
            if (in->counter_runs)
                put(pv, "counter_rho", nv_json_new_num_or_nan(in->counter_rho), &ok);
            put(pv, "counter_runs", json_object_new_int64(in->counter_runs), &ok);
            put(pv, "history_runs", json_object_new_int64(in->history_runs), &ok);
            put(o, "provenance", pv, &ok);
        }
    }
    if (in->signature)
        put(o, "signature", nv_signature_to_json(in->signature), &ok);
    free(fitted);
    if (!ok) {
        json_object_put(o);
        return berr(b, "app %s: out of memory", in->key);
    }
    if (replace(b->apps, in->key, o))
        return berr(b, "app %s: out of memory", in->key);
    return 0;
}

int nv_builder_add_config(nv_model_builder *b, const nv_config_input *in)
{
    if (!b || !in)
        return b ? berr(b, "configuration: none given") : -1;
    if (!nv_model_key_valid(in->id))
        return berr(b,
                    "configuration id \"%.60s\": not valid (1-%d of A-Z a-z 0-9 . _ + : / @ = -)",
                    in->id ? in->id : "", NV_MODEL_KEY_MAX);
    if (!in->latency)
        return berr(b, "configuration %s: no latency summary given", in->id);
    if (in->n_slowdowns && (!in->slowdown_apps || !in->slowdown_pct))
        return berr(b, "configuration %s: n_slowdowns set but its arrays are NULL", in->id);
    int ok = 1;
    json_object *o = json_object_new_object(), *sl = json_object_new_array();
    if (!o || !sl) {
        json_object_put(o);
        json_object_put(sl);
        return berr(b, "configuration %s: out of memory", in->id);
    }
    put(o, "id", json_object_new_string(in->id), &ok);
    put(o, "bubble_cycles", nv_json_new_num_or_nan(in->bubble_cycles), &ok);
    put(o, "partners", json_object_new_int64(in->partners), &ok);
    put(o, "messages", json_object_new_int64(in->messages), &ok);
    put(o, "utilization", nv_json_new_num_or_nan(in->utilization), &ok);
    if (in->has_queue_wait)
        put(o, "queue_wait_us", nv_json_new_num_or_nan(in->queue_wait_us), &ok);
    put(o, "latency", jlatency(in->latency, &ok), &ok);
    for (size_t i = 0; i < in->n_slowdowns; i++) {
        json_object *s = json_object_new_object();
        if (!s || !in->slowdown_apps[i]) {
            json_object_put(s);
            ok = 0;
            break;
        }
        put(s, "app", json_object_new_string(in->slowdown_apps[i]), &ok);
        put(s, "slowdown_pct", nv_json_new_num_or_nan(in->slowdown_pct[i]), &ok);
        if (json_object_array_add(sl, s)) {
            json_object_put(s);
            ok = 0;
        }
    }
    put(o, "slowdowns", sl, &ok);
    if (!ok) {
        json_object_put(o);
        return berr(b, "configuration %s: out of memory or a NULL app key", in->id);
    }
    if (replace(b->configs, in->id, o))
        return berr(b, "configuration %s: out of memory", in->id);
    return 0;
}

int nv_builder_add_pair(nv_model_builder *b, const nv_pair_input *in)
{
    if (!b || !in)
        return b ? berr(b, "pair: none given") : -1;
    if (!nv_model_key_valid(in->app) || !nv_model_key_valid(in->with))
        return berr(b, "pair: app \"%.60s\" or with \"%.60s\" is not a valid app key",
                    in->app ? in->app : "", in->with ? in->with : "");
    char key[2 * NV_MODEL_KEY_MAX + 2];
    snprintf(key, sizeof key, "%s\t%s", in->app, in->with);
    int ok = 1;
    json_object *o = json_object_new_object();
    if (!o)
        return berr(b, "pair: out of memory");
    put(o, "app", json_object_new_string(in->app), &ok);
    put(o, "with", json_object_new_string(in->with), &ok);
    put(o, "slowdown_pct", nv_json_new_num_or_nan(in->slowdown_pct), &ok);
    put(o, "samples", json_object_new_int64(in->samples), &ok);
    put(o, "sd_pct", nv_json_new_num_or_nan(in->sd_pct), &ok);
    if (!ok) {
        json_object_put(o);
        return berr(b, "pair: out of memory");
    }
    if (replace(b->pairs, key, o))
        return berr(b, "pair: out of memory");
    return 0;
}

int nv_builder_clear_pairs(nv_model_builder *b)
{
    json_object *o = json_object_new_object();
    if (!o)
        return berr(b, "pairs: out of memory");
    json_object_put(b->pairs);
    b->pairs = o;
    return 0;
}

int nv_builder_set_variability(nv_model_builder *b, const struct nv_ve *ve)
{
    if (!b)
        return -1;
    json_object *o = NULL;
    if (ve && !(o = nv_ve_to_json(ve)))
        return berr(b, "variability: out of memory");
    json_object_put(b->variability);
    b->variability = o;
    return 0;
}

int nv_builder_set_alloc(nv_model_builder *b, const struct nv_alloc_model *al)
{
    if (!b)
        return -1;
    json_object *o = NULL;
    if (al && !(o = nv_alloc_to_json(al)))
        return berr(b, "alloc: out of memory");
    json_object_put(b->alloc);
    b->alloc = o;
    return 0;
}

int nv_builder_set_fabric(nv_model_builder *b, const struct nv_fabric *f)
{
    if (!b)
        return -1;
    json_object *o = NULL;
    if (f && !(o = nv_fabric_to_json(f)))
        return berr(b, "fabric: out of memory");
    json_object_put(b->fabric);
    b->fabric = o;
    return 0;
}

/* the map's values as an array sharing the same objects */
static json_object *values(json_object *map, int *ok)
{
    json_object *a = json_object_new_array();
    if (!a) {
        *ok = 0;
        return NULL;
    }
    json_object_object_foreach(map, k, v)
    {
        (void)k;
        if (json_object_array_add(a, json_object_get(v))) {
            json_object_put(v);
            *ok = 0;
        }
    }
    return a;
}

/* the whole document as text (caller frees), or NULL */
static char *serialize(const nv_model_builder *b, size_t *len)
{
    int ok = 1;
    json_object *root = json_object_new_object();
    if (!root)
        return NULL;
    put(root, "schema", json_object_new_string(NV_MODEL_SCHEMA), &ok);
    put(root, "version", json_object_new_int(NV_MODEL_VERSION), &ok);
    if (b->calibration)
        put(root, "calibration", json_object_get(b->calibration), &ok);
    put(root, "apps", values(b->apps, &ok), &ok);
    put(root, "training_set", values(b->configs, &ok), &ok);
    put(root, "colocation", values(b->pairs, &ok), &ok);
    if (b->variability)
        put(root, "variability", json_object_get(b->variability), &ok);
    if (b->alloc)
        put(root, "alloc", json_object_get(b->alloc), &ok);
    if (b->fabric)
        put(root, "fabric", json_object_get(b->fabric), &ok);
    json_object *bn = b->bn.present ? json_object_new_object() : NULL;
    if (bn) {
        put(bn, "idle_utilization", nv_json_new_num_or_nan(b->bn.idle_utilization), &ok);
        put(bn, "route", json_object_new_string(nv_util_source_name(b->bn.route)), &ok);
        if (b->bn.wait_gauge != NV_WAIT_QUEUE_US)
            put(bn, "wait_gauge", json_object_new_string(nv_wait_gauge_name(b->bn.wait_gauge)),
                &ok);
        put(bn, "shrink_samples", nv_json_new_num_or_nan(b->bn.shrink_samples), &ok);
    }
    if (b->bn.present)
        put(root, "bottleneck", bn, &ok);
    char *text = NULL;
    if (ok) {
        size_t n = 0;
        const char *s = json_object_to_json_string_length(
            root, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &n);
        if (s && (text = malloc(n + 2))) {
            memcpy(text, s, n);
            text[n] = '\n';
            text[n + 1] = 0;
            *len = n + 1;
        }
    }
    json_object_put(root);
    return text;
}

nv_model *nv_builder_build(const nv_model_builder *b, char *err, size_t errlen)
{
    size_t len = 0;
    char *text = b ? serialize(b, &len) : NULL;
    if (!text) {
        snprintf(err, errlen, "model: out of memory serializing it");
        return NULL;
    }
    nv_model *m = nv_model_load_buffer(text, len, err, errlen);
    free(text);
    return m;
}

/* the text checked by loading it, then written; frees text */
static int check_and_write(char *text, size_t len, const char *path, char *err, size_t errlen)
{
    char inner[400];
    nv_model *check = nv_model_load_buffer(text, len, inner, sizeof inner);
    if (!check) {
        snprintf(err, errlen, "%s: model not saved, it would not load: %s", path ? path : "model",
                 inner);
        free(text);
        return -1;
    }
    nv_model_free(check);
    int rc = nv_write_file_atomic(path, text, len, 0644, err, errlen);
    free(text);
    return rc;
}

static int no_text(const char *path, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: out of memory serializing the model; nothing written",
             path ? path : "model");
    return -1;
}

int nv_builder_save(const nv_model_builder *b, const char *path, char *err, size_t errlen)
{
    size_t len = 0;
    char *text = b ? serialize(b, &len) : NULL;
    return text ? check_and_write(text, len, path, err, errlen) : no_text(path, err, errlen);
}

int nv_builder_save_last(nv_model_builder *b, const char *path, char *err, size_t errlen)
{
    size_t len = 0;
    char *text = b ? serialize(b, &len) : NULL;
    if (!text)
        return no_text(path, err, errlen);
    /* the tree goes before the check load builds its own */
    json_object **tree[] = {&b->calibration, &b->apps,  &b->configs, &b->pairs,
                            &b->variability, &b->alloc, &b->fabric};
    for (size_t i = 0; i < sizeof tree / sizeof *tree; i++) {
        json_object_put(*tree[i]);
        *tree[i] = NULL;
    }
    return check_and_write(text, len, path, err, errlen);
}

void nv_app_input_from_view(const nv_app_view *v, nv_app_input *in)
{
    /* a profile app's fits are composed at load, not written */
    int composed = v->curve_origin == NV_CURVE_PROFILE;
    *in = (nv_app_input){.key = v->key,
                         .utilization = v->utilization,
                         .utilization_source = v->utilization_source,
                         .latency = v->latency,
                         .points = v->points,
                         .n_points = v->n_points,
                         .fit = composed ? NULL : v->fit,
                         .n_fit = composed ? 0 : v->n_fit,
                         .fit_residual_pct = composed ? 0 : v->fit_residual_pct,
                         .scaling = v->scaling,
                         .n_scaling = v->n_scaling,
                         /* keep a trained app's provenance through calibrate/campaign edits */
                         .has_provenance = v->curve_origin == NV_CURVE_PRODUCTION ||
                                           v->latency_origin == NV_LATENCY_DERIVED ||
                                           v->counter_runs || v->history_runs,
                         .curve_origin = composed ? NV_CURVE_NONE : v->curve_origin,
                         .latency_origin = v->latency_origin,
                         .counter_rho = v->counter_rho,
                         .counter_runs = v->counter_runs,
                         .history_runs = v->history_runs,
                         .profile = v->profile,
                         .n_profile = v->n_profile,
                         .wait_points = v->wait_points,
                         .n_wait_points = v->n_wait_points,
                         .wait_profile_us = v->wait_profile_us,
                         .n_wait_profile = v->n_wait_profile,
                         .joint = v->joint,
                         .n_joint = v->n_joint,
                         .joint_window_s = v->joint_window_s,
                         .signature = v->signature};
}

void nv_config_input_from_model(const nv_model *m, int32_t i, const char **apps, double *pct,
                                nv_config_input *in)
{
    nv_config_view v;
    nv_model_config(m, i, &v);
    for (size_t k = 0; k < v.n_slowdowns; k++) {
        int32_t a;
        nv_app_view av;
        nv_model_config_slowdown(m, i, k, &a, &pct[k]);
        nv_model_app(m, a, &av);
        apps[k] = av.key;
    }
    *in = (nv_config_input){.id = v.id,
                            .bubble_cycles = v.bubble_cycles,
                            .partners = v.partners,
                            .messages = v.messages,
                            .utilization = v.utilization,
                            .has_queue_wait = isfinite(v.queue_wait_us),
                            .queue_wait_us = v.queue_wait_us,
                            .latency = v.latency,
                            .n_slowdowns = v.n_slowdowns,
                            .slowdown_apps = apps,
                            .slowdown_pct = pct};
}

nv_model_builder *nv_builder_from_model(const nv_model *m)
{
    if (!m)
        return NULL;
    nv_model_builder *b = nv_builder_new();
    if (!b)
        return NULL;
    if (nv_builder_set_calibration(b, nv_model_calibration(m)))
        goto fail;
    for (size_t i = 0; i < nv_model_app_count(m); i++) {
        nv_app_view v;
        nv_model_app(m, (int32_t)i, &v);
        nv_app_input in;
        nv_app_input_from_view(&v, &in);
        if (nv_builder_add_app(b, &in))
            goto fail;
    }
    for (size_t i = 0; i < nv_model_config_count(m); i++) {
        nv_config_view v;
        nv_model_config(m, (int32_t)i, &v);
        const char **apps = malloc((v.n_slowdowns ? v.n_slowdowns : 1) * sizeof *apps);
        double *pct = malloc((v.n_slowdowns ? v.n_slowdowns : 1) * sizeof *pct);
        if (!apps || !pct) {
            free(apps);
            free(pct);
            goto fail;
        }
        nv_config_input in;
        nv_config_input_from_model(m, (int32_t)i, apps, pct, &in);
        int rc = nv_builder_add_config(b, &in);
        free(apps);
        free(pct);
        if (rc)
            goto fail;
    }
    for (size_t i = 0; i < nv_model_pair_count(m); i++) {
        nv_pair_view v;
        nv_app_view a, w;
        nv_model_pair(m, i, &v);
        nv_model_app(m, v.app, &a);
        nv_model_app(m, v.with, &w);
        nv_pair_input in = {a.key, w.key, v.slowdown_pct, v.samples, v.sd_pct};
        if (nv_builder_add_pair(b, &in))
            goto fail;
    }
    if (nv_builder_set_variability(b, nv_model_variability(m)) ||
        nv_builder_set_alloc(b, nv_model_alloc(m)) || nv_builder_set_fabric(b, nv_model_fabric(m)))
        goto fail;
    /* a file without the object stays without it (same predictions) */
    b->bn = *nv_model_bottleneck(m);
    return b;
fail:
    nv_builder_free(b);
    return NULL;
}

int nv_builder_set_bottleneck(nv_model_builder *b, const nv_bottleneck *bn)
{
    if (!b || !bn)
        return b ? berr(b, "bottleneck: none given") : -1;
    if (!(bn->idle_utilization >= 0 && bn->idle_utilization <= 1) || !(bn->shrink_samples > 0))
        return berr(b, "bottleneck: idle utilization %g is not in [0, 1] or shrink %g is not > 0",
                    bn->idle_utilization, bn->shrink_samples);
    b->bn = *bn;
    b->bn.present = 1;
    return 0;
}

int nv_model_save(const nv_model *m, const char *path, char *err, size_t errlen)
{
    nv_model_builder *b = nv_builder_from_model(m);
    if (!b) {
        snprintf(err, errlen, "%s: out of memory copying the model; nothing written",
                 path ? path : "model");
        return -1;
    }
    int rc = nv_builder_save(b, path, err, errlen);
    nv_builder_free(b);
    return rc;
}
