/* labmodel.c - a network-lab dataset's model variants (labmodel.h). */
#include "labmodel.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "bottleneck.h"
#include "campaign_file.h"
#include "ctr_netlab.h"
#include "json_file.h"
#include "nv_err.h"
#include "nv_json.h"

static const char *const variant_names[] = {"counters", "wait", "nearest", "latency"};

int nv_labmodel_variant_from_name(const char *name, nv_labmodel_variant *v)
{
    for (int i = 0; i < 4; i++)
        if (name && !strcmp(name, variant_names[i])) {
            *v = (nv_labmodel_variant)i;
            return 0;
        }
    return -1;
}

const char *nv_labmodel_variant_name(nv_labmodel_variant v)
{
    return (unsigned)v < 4 ? variant_names[v] : "?";
}

static const char *const point_names[] = {"as-written", "fastest", "median"};

const char *nv_labmodel_point_mode_name(nv_labmodel_point_mode m)
{
    return (unsigned)m < 3 ? point_names[m] : "?";
}

void nv_labmodel_free(nv_labmodel *lm)
{
    if (!lm)
        return;
    for (size_t i = 0; i < lm->n_apps; i++)
        free(lm->apps[i].joint);
    free(lm->apps);
    free(lm->configs);
    memset(lm, 0, sizeof *lm);
}

/* a name that becomes part of a file name in dir: printable, no '/' */
static int name_ok(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (!n || n >= max || strstr(s, ".."))
        return 0;
    for (const char *p = s; *p; p++)
        if (*p == '/' || (unsigned char)*p <= ' ' || (unsigned char)*p >= 127)
            return 0;
    return 1;
}

/* "B:P:M" -> its parts; 0 or -1 */
static int parse_bpm(const char *s, nv_labmodel_config *c)
{
    char *end;
    errno = 0;
    c->bubble_cycles = strtod(s, &end);
    if (errno || end == s || *end != ':' || !isfinite(c->bubble_cycles))
        return -1;
    const char *p = end + 1;
    unsigned long x = strtoul(p, &end, 10);
    if (errno || end == p || *end != ':' || x > UINT32_MAX || *p == '-')
        return -1;
    c->partners = (uint32_t)x;
    p = end + 1;
    x = strtoul(p, &end, 10);
    if (errno || end == p || *end || x > UINT32_MAX || *p == '-')
        return -1;
    c->messages = (uint32_t)x;
    return 0;
}

static int read_meta(const char *dir, nv_labmodel *lm, char *err, size_t errlen)
{
    char path[4096], why[256];
    snprintf(path, sizeof path, "%s/dataset.json", dir);
    json_object *o = nv_netlab_json_read(path, NV_LABMODEL_META_MAX, why, sizeof why);
    if (!o)
        return nv_err(err, errlen, "%s: %s", path, why);
    int rc = -1;
    json_object *apps = nv_json_get(o, "apps", json_type_array),
                *cfgs = nv_json_get(o, "configs", json_type_array);
    if (nv_json_schema_check(o, NV_LABMODEL_DATASET_SCHEMA, 1, why, sizeof why)) {
        nv_err(err, errlen, "%s: %s", path, why);
        goto out;
    }
    size_t na = apps ? json_object_array_length(apps) : 0,
           nc = cfgs ? json_object_array_length(cfgs) : 0;
    if (!apps || !cfgs || na > NV_LABMODEL_MAX_APPS || nc > NV_LABMODEL_MAX_CONFIGS) {
        nv_err(err, errlen,
               "%s: needs an apps array (at most %d) and a configs array (at most "
               "%d)",
               path, NV_LABMODEL_MAX_APPS, NV_LABMODEL_MAX_CONFIGS);
        goto out;
    }
    lm->apps = calloc(na ? na : 1, sizeof *lm->apps);
    lm->configs = calloc(nc ? nc : 1, sizeof *lm->configs);
    if (!lm->apps || !lm->configs) {
        nv_err(err, errlen, "%s: out of memory", path);
        goto out;
    }
    for (size_t i = 0; i < na; i++) {
        const char *name = nv_json_str(json_object_array_get_idx(apps, i), "name");
        if (!name || !nv_model_key_valid(name) || !name_ok(name, sizeof lm->apps[i].key)) {
            nv_err(err, errlen, "%s: apps[%zu].name is not an app key without '/'", path, i);
            goto out;
        }
        snprintf(lm->apps[lm->n_apps++].key, sizeof lm->apps[i].key, "%s", name);
    }
    for (size_t i = 0; i < nc; i++) {
        json_object *c = json_object_array_get_idx(cfgs, i);
        nv_labmodel_config *k = &lm->configs[lm->n_configs];
        const char *s = json_object_is_type(c, json_type_string) ? json_object_get_string(c) : "";
        if (!name_ok(s, sizeof k->name) || parse_bpm(s, k)) {
            nv_err(err, errlen,
                   "%s: configs[%zu] is not \"B:P:M\" (B cycles, P partners, M "
                   "messages)",
                   path, i);
            goto out;
        }
        snprintf(k->name, sizeof k->name, "%s", s);
        k->u = k->w_us = k->joint_u = k->joint_w_us = NAN;
        lm->n_configs++;
    }
    rc = 0;
out:
    json_object_put(o);
    return rc;
}

struct alone {
    char app[NV_MODEL_KEY_MAX + 1];
    long rep;
    double runtime_s;
};

/* runs.txt's alone runs, in its order; lines of another length are not
 * runs (a header, a note) */
static int read_runs(const char *dir, struct alone **out, size_t *n_out, char *err, size_t errlen)
{
    char path[4096], why[256];
    snprintf(path, sizeof path, "%s/runs.txt", dir);
    size_t len = 0;
    char *text = nv_read_file(path, NV_LABMODEL_RUNS_MAX, &len, why, sizeof why);
    if (!text)
        return nv_err(err, errlen, "%s: %s", path, why);
    int rc = -1;
    struct alone *a = NULL;
    size_t n = 0, lineno = 0;
    if (strlen(text) != len) {
        nv_err(err, errlen, "%s: holds a NUL byte (not a text file)", path);
        goto out;
    }
    a = malloc(NV_LABMODEL_MAX_ALONE * sizeof *a);
    if (!a) {
        nv_err(err, errlen, "%s: out of memory", path);
        goto out;
    }
    char *save_line = NULL;
    for (char *line = strtok_r(text, "\n", &save_line); line;
         line = strtok_r(NULL, "\n", &save_line)) {
        lineno++;
        char *tok[6] = {0}, *save = NULL;
        int k = 0;
        for (char *t = strtok_r(line, " \t\r\v\f", &save); t && k < 6;
             t = strtok_r(NULL, " \t\r\v\f", &save))
            tok[k++] = t;
        if (k != 5)
            continue;
        char *end;
        errno = 0;
        long rep = strtol(tok[3], &end, 10);
        int bad = errno || end == tok[3] || *end;
        double t = strtod(tok[4], &end);
        if (bad || errno || end == tok[4] || *end || !isfinite(t) || t < 0) {
            nv_err(err, errlen,
                   "%s:%zu: not 'kind app with rep runtime_s' (rep a whole number, "
                   "runtime_s seconds >= 0)",
                   path, lineno);
            goto out;
        }
        if (strcmp(tok[0], "alone"))
            continue;
        if (!nv_model_key_valid(tok[1]) || !name_ok(tok[1], sizeof a->app)) {
            nv_err(err, errlen, "%s:%zu: app '%.40s' is not an app key without '/'", path, lineno,
                   tok[1]);
            goto out;
        }
        if (n == NV_LABMODEL_MAX_ALONE) {
            nv_err(err, errlen, "%s: more than %d alone runs", path, NV_LABMODEL_MAX_ALONE);
            goto out;
        }
        snprintf(a[n].app, sizeof a[n].app, "%s", tok[1]);
        a[n].rep = rep;
        a[n++].runtime_s = t;
    }
    *out = a;
    *n_out = n;
    a = NULL;
    rc = 0;
out:
    free(a);
    free(text);
    return rc;
}

/* counter file dir/name: 0 read, 1 absent, -1 with err */
static int read_counters(const char *dir, const char *name, nv_netlab_file *f, char *err,
                         size_t errlen)
{
    char path[4096], why[256];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
        return nv_err(err, errlen, "%s/%s: path too long", dir, name);
    int r = nv_netlab_read(path, f, why, sizeof why);
    if (r < 0)
        nv_err(err, errlen, "%s: %s", path, why);
    return r;
}

static int read_config(const char *dir, nv_labmodel_config *c, char *err, size_t errlen)
{
    char name[NV_LABMODEL_NAME_MAX + 32];
    snprintf(name, sizeof name, "cb_%s.counters.json", c->name);
    nv_netlab_file f;
    int r = read_counters(dir, name, &f, err, errlen);
    if (r)
        return r < 0 ? -1 : 0;
    c->have_file = 1;
    double *v = NULL;
    size_t n = 0;
    int rc = -1;
    if (nv_netlab_u_values(&f, 0, NV_LABMODEL_TRIM_S, &v, &n) < 0)
        goto oom;
    c->n_u = n;
    c->u = nv_netlab_mean(v, n);
    n = 0;
    if (nv_netlab_w_values(&f, 0, NV_LABMODEL_TRIM_S, 0, &v, &n) < 0)
        goto oom;
    c->n_w = n;
    c->w_us = nv_netlab_mean(v, n);
    nv_netlab_uw jm;
    c->n_joint = nv_netlab_joint_mean(&f, 0, NV_LABMODEL_TRIM_S, &jm);
    c->joint_u = jm.u;
    c->joint_w_us = jm.w_us;
    rc = 0;
    goto out;
oom:
    nv_err(err, errlen, "%s/%s: out of memory", dir, name);
out:
    free(v);
    nv_netlab_free(&f);
    return rc;
}

static int read_app(const char *dir, const struct alone *runs, size_t n_runs, double wait_window_s,
                    nv_labmodel_app *a, char *err, size_t errlen)
{
    double *u = NULL, *w = NULL, mean;
    size_t nu = 0, nw = 0, nj = 0;
    nv_netlab_uw *j = NULL;
    int rc = -1;
    a->u = a->wait_mean_us = NAN;
    for (size_t i = 0; i < n_runs; i++) {
        if (strcmp(runs[i].app, a->key))
            continue;
        if (a->n_alone_s < NV_CAMPAIGN_MAX_REPEAT)
            a->alone_s[a->n_alone_s++] = runs[i].runtime_s;
        a->alone_runs++;
        char name[NV_MODEL_KEY_MAX + 64];
        snprintf(name, sizeof name, "alone_%s_%ld.counters.json", a->key, runs[i].rep);
        nv_netlab_file f;
        int r = read_counters(dir, name, &f, err, errlen);
        if (r < 0)
            goto out;
        if (r)
            continue;
        a->counter_files++;
        double t = runs[i].runtime_s;
        int bad = nv_netlab_u_values(&f, t, NV_LABMODEL_TRIM_S, &u, &nu) < 0 ||
                  nv_netlab_w_values(&f, t, NV_LABMODEL_TRIM_S, wait_window_s, &w, &nw) < 0 ||
                  nv_netlab_joint_windows(&f, t, NV_LABMODEL_TRIM_S, NV_LABMODEL_JOINT_WINDOW_S, &j,
                                          &nj) < 0;
        nv_netlab_free(&f);
        if (bad) {
            nv_err(err, errlen, "%s/%s: out of memory", dir, name);
            goto out;
        }
    }
    a->n_u = nu;
    nv_bn_values_stats(u, nu, &mean, a->profile, NV_PROFILE_MAX, &a->n_profile);
    if (a->n_profile) {
        double s = 0;
        for (size_t k = 0; k < a->n_profile; k++)
            s += a->profile[k];
        a->u = s / (double)a->n_profile; /* the profile's mean, as the model averages it */
    }
    a->n_w = nw;
    a->wait_mean_us = nv_netlab_mean(w, nw);
    nv_bn_values_stats(w, nw, &mean, a->wait_profile_us, NV_PROFILE_MAX, &a->n_wait_profile);
    a->n_joint_measured = nj;
    a->n_joint = nj < NV_JOINT_MAX ? nj : NV_JOINT_MAX;
    if (a->n_joint && !(a->joint = malloc(a->n_joint * sizeof *a->joint))) {
        nv_err(err, errlen, "%s: app %s: out of memory", dir, a->key);
        goto out;
    }
    for (size_t k = 0; k < a->n_joint; k++) { /* every k-th, as the campaign keeps them */
        const nv_netlab_uw *x = &j[k * nj / a->n_joint];
        a->joint[k] = (nv_joint_window){(float)x->u, (float)x->w_us};
    }
    rc = 0;
out:
    free(u);
    free(w);
    free(j);
    return rc;
}

int nv_labmodel_read(const char *dir, double wait_window_s, nv_labmodel *lm, char *err,
                     size_t errlen)
{
    memset(lm, 0, sizeof *lm);
    if (!(wait_window_s >= 0.1 && wait_window_s <= NV_LABMODEL_WAIT_WINDOW_MAX_S))
        return nv_err(err, errlen, "wait window %g s is not in [0.1, %g]", wait_window_s,
                      NV_LABMODEL_WAIT_WINDOW_MAX_S);
    lm->wait_window_s = wait_window_s;
    struct alone *runs = NULL;
    size_t n_runs = 0;
    if (read_meta(dir, lm, err, errlen) || read_runs(dir, &runs, &n_runs, err, errlen))
        goto fail;
    lm->nearest_ok = 1;
    for (size_t i = 0; i < lm->n_configs; i++) {
        if (read_config(dir, &lm->configs[i], err, errlen))
            goto fail;
        if (lm->nearest_ok && !lm->configs[i].n_joint) {
            lm->nearest_ok = 0;
            snprintf(lm->nearest_missing, sizeof lm->nearest_missing, "%s", lm->configs[i].name);
        }
    }
    for (size_t i = 0; i < lm->n_apps; i++)
        if (read_app(dir, runs, n_runs, wait_window_s, &lm->apps[i], err, errlen))
            goto fail;
    free(runs);
    return 0;
fail:
    free(runs);
    nv_labmodel_free(lm);
    return -1;
}

const nv_labmodel_config *nv_labmodel_match(const nv_labmodel *lm, const nv_config_view *c,
                                            int want)
{
    double b = c->bubble_cycles, tol = 1e-6 * (b > 1 ? b : 1);
    for (size_t i = 0; i < lm->n_configs; i++) {
        const nv_labmodel_config *k = &lm->configs[i];
        size_t have = want == 'u' ? k->n_u : want == 'w' ? k->n_w : k->n_joint;
        if (have && k->partners == c->partners && k->messages == c->messages &&
            fabs(b - k->bubble_cycles) <= tol)
            return k;
    }
    return NULL;
}

const nv_labmodel_app *nv_labmodel_app_find(const nv_labmodel *lm, const char *key)
{
    for (size_t i = 0; i < lm->n_apps; i++)
        if (!strcmp(lm->apps[i].key, key))
            return &lm->apps[i];
    return NULL;
}

int nv_labmodel_alone_baseline(const nv_labmodel_app *a, double stall_ratio, double *baseline_s,
                               unsigned char *left_out, size_t *n_left_out, char *err,
                               size_t errlen)
{
    if (!a->alone_runs || a->alone_runs > NV_CAMPAIGN_MAX_REPEAT)
        return nv_err(err, errlen, "runs.txt: app %s has %zu alone runs, not 1 to %d", a->key,
                      a->alone_runs, NV_CAMPAIGN_MAX_REPEAT);
    *baseline_s =
        nv_campaign_median_kept(a->alone_s, a->n_alone_s, stall_ratio, left_out, n_left_out);
    return 0;
}

static json_object *stalled_rounds(const unsigned char *st, size_t n)
{
    json_object *a = json_object_new_array();
    for (size_t k = 0; k < n; k++)
        if (st[k])
            json_object_array_add(a, json_object_new_int64((int64_t)k + 1));
    return a;
}

/* app a's campaign (its rounds in cr) placed on every configuration of m
 * that the campaign ran: pct[i][k] for the k-th slowdown of configuration
 * i where it is a's; the points into pts */
static void repoint_app(const nv_model *m, int32_t a, const nv_campaign_rounds *cr, double **pct,
                        int *changed, json_object *pts)
{
    size_t nc = nv_model_config_count(m);
    for (size_t i = 0; i < nc; i++) {
        nv_config_view c;
        nv_model_config(m, (int32_t)i, &c);
        size_t j = 0;
        while (j < cr->ncfg && strcmp(cr->id[j], c.id))
            j++;
        if (j == cr->ncfg)
            continue;
        const nv_campaign_config_result *x = &cr->r.configs[j];
        for (size_t k = 0; k < c.n_slowdowns; k++) {
            int32_t who;
            double was;
            nv_model_config_slowdown(m, (int32_t)i, k, &who, &was);
            if (who != a)
                continue;
            pct[i][k] = x->slowdown_pct;
            changed[i] = 1;
            json_object *p = json_object_new_object();
            json_object_object_add(p, "config", json_object_new_string(c.id));
            json_object_object_add(p, "as_written_pct", nv_json_new_num(was));
            json_object_object_add(p, "slowdown_pct", nv_json_new_num(x->slowdown_pct));
            json_object_object_add(p, "stalled_rounds", stalled_rounds(x->stalled, cr->repeat));
            json_object_array_add(pts, p);
        }
    }
}

nv_model *nv_labmodel_repoint(const char *dir, const nv_model *base, nv_labmodel_point_mode m,
                              double stall_ratio, json_object **report, char *err, size_t errlen)
{
    size_t nc = nv_model_config_count(base), na = nv_model_app_count(base);
    nv_model *out = NULL;
    nv_model_builder *b = nv_builder_from_model(base);
    double **pct = calloc(nc ? nc : 1, sizeof *pct);
    int *changed = calloc(nc ? nc : 1, sizeof *changed);
    json_object *rep = json_object_new_array();
    *report = NULL;
    if (!b || !pct || !changed) {
        nv_err(err, errlen, "out of memory copying the model");
        goto out;
    }
    for (size_t i = 0; i < nc; i++) {
        nv_config_view c;
        nv_model_config(base, (int32_t)i, &c);
        if (!(pct[i] = calloc(c.n_slowdowns ? c.n_slowdowns : 1, sizeof **pct))) {
            nv_err(err, errlen, "out of memory copying the model");
            goto out;
        }
        for (size_t k = 0; k < c.n_slowdowns; k++) {
            int32_t who;
            nv_model_config_slowdown(base, (int32_t)i, k, &who, &pct[i][k]);
        }
    }
    for (size_t a = 0; m != NV_LABMODEL_POINT_AS_WRITTEN && a < na; a++) {
        nv_app_view av;
        nv_model_app(base, (int32_t)a, &av);
        char path[4096];
        if ((size_t)snprintf(path, sizeof path, "%s/campaign_%s.json", dir, av.key) >=
            sizeof path) {
            nv_err(err, errlen, "%s: path too long", dir);
            goto out;
        }
        json_object *x = json_object_new_object();
        json_object_array_add(rep, x);
        json_object_object_add(x, "app", json_object_new_string(av.key));
        if (access(path, F_OK) != 0 && errno == ENOENT) {
            json_object_object_add(x, "campaign_file", json_object_new_boolean(0));
            continue;
        }
        nv_campaign_rounds cr;
        if (nv_campaign_rounds_read(path, &cr, err, errlen)) {
            nv_campaign_rounds_free(&cr);
            goto out;
        }
        nv_campaign_points(&cr.r, cr.ncfg, cr.repeat, stall_ratio,
                           m == NV_LABMODEL_POINT_FASTEST ? NV_CAMPAIGN_POINT_FASTEST
                                                          : NV_CAMPAIGN_POINT_MEDIAN);
        json_object *pts = json_object_new_array();
        json_object_object_add(x, "campaign_file", json_object_new_boolean(1));
        json_object_object_add(x, "baseline_stalled_rounds",
                               stalled_rounds(cr.r.baseline_stalled, cr.repeat));
        json_object_object_add(x, "points", pts);
        repoint_app(base, (int32_t)a, &cr, pct, changed, pts);
        nv_campaign_rounds_free(&cr);
    }
    for (size_t i = 0; i < nc; i++) {
        if (!changed[i])
            continue;
        nv_config_view c;
        nv_model_config(base, (int32_t)i, &c);
        const char **apps = malloc((c.n_slowdowns ? c.n_slowdowns : 1) * sizeof *apps);
        double *was = malloc((c.n_slowdowns ? c.n_slowdowns : 1) * sizeof *was);
        nv_config_input in;
        int rc = -1;
        if (apps && was) {
            nv_config_input_from_model(base, (int32_t)i, apps, was, &in);
            in.slowdown_pct = pct[i];
            rc = nv_builder_add_config(b, &in);
        }
        free(apps);
        free(was);
        if (rc) {
            nv_err(err, errlen, "configuration %s: %s", c.id,
                   apps && was ? nv_builder_error(b) : "out of memory");
            goto out;
        }
    }
    out = nv_builder_build(b, err, errlen);
out:
    for (size_t i = 0; pct && i < nc; i++)
        free(pct[i]);
    free(pct);
    free(changed);
    nv_builder_free(b);
    if (out)
        *report = rep;
    else
        json_object_put(rep);
    return out;
}

/* per configuration of the base model: where its U and W now lie */
struct placed {
    double u;    /* its U in the variant (the curves' axis) */
    double w_us; /* its W on the wait curves (NAN: not placed) */
};

static int add_configs(nv_model_builder *b, const nv_labmodel *lm, const nv_model *base,
                       nv_labmodel_variant v, int no_campaigns, struct placed *pl, size_t *moved,
                       char *err, size_t errlen)
{
    size_t nc = nv_model_config_count(base);
    for (size_t i = 0; i < nc; i++) {
        nv_config_view c;
        nv_model_config(base, (int32_t)i, &c);
        const nv_labmodel_config *mu = nv_labmodel_match(lm, &c, 'u'),
                                 *mw = v == NV_LABMODEL_COUNTERS ? NULL
                                                                 : nv_labmodel_match(lm, &c, 'w'),
                                 *mj = v == NV_LABMODEL_NEAREST ? nv_labmodel_match(lm, &c, 'j')
                                                                : NULL;
        pl[i] = (struct placed){mu ? mu->u : c.utilization, mw ? mw->w_us : NAN};
        *moved += mu != NULL;
        size_t ns = no_campaigns ? 0 : c.n_slowdowns;
        const char **apps = malloc((ns ? ns : 1) * sizeof *apps);
        double *pct = malloc((ns ? ns : 1) * sizeof *pct);
        if (!apps || !pct) {
            free(apps);
            free(pct);
            return nv_err(err, errlen, "configuration %s: out of memory", c.id);
        }
        for (size_t k = 0; k < ns; k++) {
            int32_t a;
            nv_app_view av;
            nv_model_config_slowdown(base, (int32_t)i, k, &a, &pct[k]);
            nv_model_app(base, a, &av);
            apps[k] = av.key;
        }
        nv_config_input in = {.id = c.id,
                              .bubble_cycles = c.bubble_cycles,
                              .partners = c.partners,
                              .messages = c.messages,
                              .utilization = mj ? mj->joint_u : pl[i].u,
                              .has_queue_wait = mj || mw || isfinite(c.queue_wait_us),
                              .queue_wait_us = mj   ? mj->joint_w_us
                                               : mw ? mw->w_us
                                                    : c.queue_wait_us,
                              .latency = c.latency,
                              .n_slowdowns = ns,
                              .slowdown_apps = apps,
                              .slowdown_pct = pct};
        int rc = nv_builder_add_config(b, &in);
        free(apps);
        free(pct);
        if (rc)
            return nv_err(err, errlen, "%s", nv_builder_error(b));
    }
    return 0;
}

/* app a's campaign slowdowns placed on the configurations' U (wait 0) or
 * W (wait 1); returns how many */
static size_t app_points(const nv_model *base, int32_t a, const struct placed *pl, int wait,
                         nv_curve_point *out)
{
    size_t n = 0;
    for (size_t i = 0; i < nv_model_config_count(base); i++) {
        nv_config_view c;
        nv_model_config(base, (int32_t)i, &c);
        double x = wait ? pl[i].w_us : pl[i].u;
        for (size_t k = 0; !isnan(x) && k < c.n_slowdowns; k++) {
            int32_t who;
            double pct;
            nv_model_config_slowdown(base, (int32_t)i, k, &who, &pct);
            if (who == a)
                out[n++] = (nv_curve_point){x, pct, 1.0};
        }
    }
    return n;
}

static int add_apps(nv_model_builder *b, const nv_labmodel *lm, const nv_model *base,
                    nv_labmodel_variant v, const nv_labmodel_profiles *pr, const struct placed *pl,
                    char *err, size_t errlen)
{
    size_t most = 1;
    for (size_t i = 0; i < nv_model_config_count(base); i++) {
        nv_config_view c;
        nv_model_config(base, (int32_t)i, &c);
        most += c.n_slowdowns;
    }
    nv_curve_point *pts = malloc(most * sizeof *pts), *wpts = malloc(most * sizeof *wpts);
    int rc = -1;
    if (!pts || !wpts) {
        nv_err(err, errlen, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < nv_model_app_count(base); i++) {
        nv_app_view av;
        nv_model_app(base, (int32_t)i, &av);
        nv_app_input in;
        nv_app_input_from_view(&av, &in);
        const nv_labmodel_app *la = nv_labmodel_app_find(lm, av.key);
        if (la && la->n_profile) {
            in.profile = la->profile;
            in.n_profile = la->n_profile;
            in.utilization = la->u;
            in.utilization_source = NV_USRC_COUNTERS;
        }
        /* the campaign's slowdowns on the variant's U, fitted here */
        in.points = pts;
        in.n_points = app_points(base, (int32_t)i, pl, 0, pts);
        in.fit = NULL;
        in.n_fit = 0;
        if (v != NV_LABMODEL_COUNTERS) {
            size_t nw = app_points(base, (int32_t)i, pl, 1, wpts);
            size_t np = la ? la->n_wait_profile : 0;
            if (nw || np) { /* the queueing mechanism as measured here, whole */
                in.wait_points = wpts;
                in.n_wait_points = nw;
                in.wait_profile_us = np ? la->wait_profile_us : NULL;
                in.n_wait_profile = np;
            }
        }
        if (pr) { /* without its campaign: the signature in its place */
            in.n_points = in.n_wait_points = 0;
            in.wait_points = NULL;
            in.curve_origin = NV_CURVE_NONE;
            in.signature = pr->sigs[i];
        }
        if (v == NV_LABMODEL_NEAREST && la && la->n_joint) {
            in.joint = la->joint;
            in.n_joint = la->n_joint;
            in.joint_window_s = NV_LABMODEL_JOINT_WINDOW_S;
        }
        if (nv_builder_add_app(b, &in)) {
            nv_err(err, errlen, "%s", nv_builder_error(b));
            goto out;
        }
    }
    rc = 0;
out:
    free(pts);
    free(wpts);
    return rc;
}

nv_model_builder *nv_labmodel_build(const nv_labmodel *lm, const nv_model *base,
                                    nv_labmodel_variant v, size_t *moved, char *err, size_t errlen)
{
    return nv_labmodel_build_profiles(lm, base, v, NULL, moved, err, errlen);
}

nv_model_builder *nv_labmodel_build_profiles(const nv_labmodel *lm, const nv_model *base,
                                             nv_labmodel_variant v, const nv_labmodel_profiles *pr,
                                             size_t *moved, char *err, size_t errlen)
{
    *moved = 0;
    if (v == NV_LABMODEL_NEAREST && !lm->nearest_ok) {
        nv_err(err, errlen,
               "the nearest variant needs every configuration's joint steps, and "
               "configuration %s has none (no counter file cb_%s.counters.json, or no step "
               "inside its trimmed run)",
               lm->nearest_missing, lm->nearest_missing);
        return NULL;
    }
    if (pr && v == NV_LABMODEL_LATENCY) {
        nv_err(err, errlen,
               "the profile route is composed on the counters' axes (U and W): apps without "
               "their campaigns need the counters, wait or nearest variant");
        return NULL;
    }
    if (v == NV_LABMODEL_LATENCY) { /* the base as it is */
        nv_model_builder *lb = nv_builder_from_model(base);
        if (!lb)
            nv_err(err, errlen, "out of memory copying the model");
        return lb;
    }
    nv_model_builder *b = nv_builder_from_model(base);
    size_t nc = nv_model_config_count(base);
    struct placed *pl = malloc((nc ? nc : 1) * sizeof *pl);
    if (!b || !pl) {
        nv_err(err, errlen, "out of memory copying the model");
        goto fail;
    }
    if (add_configs(b, lm, base, v, pr != NULL, pl, moved, err, errlen) ||
        add_apps(b, lm, base, v, pr, pl, err, errlen))
        goto fail;
    if (pr && nv_builder_set_fabric(b, pr->fabric)) {
        nv_err(err, errlen, "%s", nv_builder_error(b));
        goto fail;
    }
    /* a dataset without counter files moves nothing: its U stay the
     * latency route's, and the model file says so */
    nv_bottleneck bn = {.idle_utilization = 0,
                        .route = *moved ? NV_USRC_COUNTERS : NV_USRC_LATENCY,
                        .wait_gauge = NV_WAIT_QUEUE_US,
                        .shrink_samples = 2};
    if (nv_builder_set_bottleneck(b, &bn)) {
        nv_err(err, errlen, "%s", nv_builder_error(b));
        goto fail;
    }
    free(pl);
    return b;
fail:
    free(pl);
    nv_builder_free(b);
    return NULL;
}
