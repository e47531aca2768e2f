/* campaign_file.c - a campaign's result as `netvar campaign --json` prints
 * it, and the reader of its rounds (campaign_file.h) */
#include "campaign_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "bottleneck.h"
#include "json_file.h"
#include "nv_err.h"
#include "nv_json.h"

/* a runtime_s array of n rounds (n 0: its length sets it) */
static int rounds(json_object *a, double *v, size_t *n, const char *path, const char *what,
                  char *err, size_t errlen)
{
    size_t len = a ? json_object_array_length(a) : 0;
    if (!a || len == 0 || len > NV_CAMPAIGN_MAX_REPEAT)
        return nv_err(err, errlen, "%s: %s: needs a runtime_s array of 1 to %d rounds", path, what,
                      NV_CAMPAIGN_MAX_REPEAT);
    if (*n && len != *n)
        return nv_err(err, errlen, "%s: %s: %zu rounds, where the baseline has %zu", path, what,
                      len, *n);
    for (size_t k = 0; k < len; k++) {
        json_object *x = json_object_array_get_idx(a, k);
        double t = NAN;
        if (json_object_is_type(x, json_type_double) || json_object_is_type(x, json_type_int))
            t = json_object_get_double(x);
        if (!(isfinite(t) && t > 0))
            return nv_err(err, errlen, "%s: %s: round %zu is not a runtime in seconds > 0", path,
                          what, k + 1);
        v[k] = t;
    }
    *n = len;
    return 0;
}

int nv_campaign_rounds_read(const char *path, nv_campaign_rounds *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    char why[256];
    json_object *o = nv_json_read_file(path, NV_CAMPAIGN_FILE_MAX, why, sizeof why);
    if (!o)
        return nv_err(err, errlen, "%s: %s", path, why);
    int rc = -1;
    json_object *b = nv_json_get(o, "baseline", json_type_object),
                *cfgs = nv_json_get(o, "configs", json_type_array),
                *rule = nv_json_get(o, "point_rule", json_type_string);
    size_t nc = cfgs ? json_object_array_length(cfgs) : 0;
    if (!b || !cfgs || nc > NV_CAMPAIGN_MAX_CONFIGS) {
        nv_err(err, errlen, "%s: needs a baseline object and a configs array (at most %d)", path,
               NV_CAMPAIGN_MAX_CONFIGS);
        goto out;
    }
    snprintf(out->point_rule, sizeof out->point_rule, "%s",
             rule ? json_object_get_string(rule) : "median");
    if (rounds(nv_json_get(b, "runtime_s", json_type_array), out->r.baseline_s, &out->repeat, path,
               "baseline", err, errlen))
        goto out;
    out->r.configs = calloc(nc ? nc : 1, sizeof *out->r.configs);
    out->id = calloc(nc ? nc : 1, sizeof *out->id);
    if (!out->r.configs || !out->id) {
        nv_err(err, errlen, "%s: out of memory", path);
        goto out;
    }
    for (size_t i = 0; i < nc; i++) {
        json_object *c = json_object_array_get_idx(cfgs, i),
                    *id = nv_json_get(c, "id", json_type_string);
        const char *s = id ? json_object_get_string(id) : "";
        if (!*s || strlen(s) >= sizeof out->id[i]) {
            nv_err(err, errlen, "%s: configs[%zu]: needs an id of 1 to %zu characters", path, i,
                   sizeof out->id[i] - 1);
            goto out;
        }
        snprintf(out->id[i], sizeof out->id[i], "%s", s);
        size_t n = out->repeat;
        if (rounds(nv_json_get(c, "runtime_s", json_type_array), out->r.configs[i].runtime_s, &n,
                   path, out->id[i], err, errlen))
            goto out;
    }
    out->ncfg = nc;
    rc = 0;
out:
    json_object_put(o);
    return rc;
}

void nv_campaign_rounds_free(nv_campaign_rounds *c)
{
    if (!c)
        return;
    free(c->r.configs);
    free(c->id);
    memset(c, 0, sizeof *c);
}

/* ---- the writer ---- */
/* each named port's U, in the spec's order */
static json_object *ports_json(const double *u, int n)
{
    json_object *a = json_object_new_array();
    for (int k = 0; k < n; k++)
        json_object_array_add(a, nv_json_new_num_or_nan(u[k]));
    return a;
}

json_object *nv_campaign_config_to_json(const nv_campaign_config *c, double ghz)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "id", json_object_new_string(c->id));
    json_object_object_add(o, "bubble_cycles", nv_json_new_num_g(c->bubble_cycles, 6));
    json_object_object_add(o, "sleep_us",
                           nv_json_new_num_g(nv_campaign_sleep_us(c->bubble_cycles, ghz), 6));
    json_object_object_add(o, "partners", json_object_new_int(c->partners));
    json_object_object_add(o, "messages", json_object_new_int(c->messages));
    return o;
}

static json_object *runtimes_json(const double *v, int n)
{
    json_object *a = json_object_new_array();
    for (int k = 0; k < n; k++)
        json_object_array_add(a, nv_json_new_num_g(v[k], 6));
    return a;
}

/* the rounds (1-based) left out of a median as stalls */
static json_object *stalled_json(const unsigned char *stalled, int n)
{
    json_object *a = json_object_new_array();
    for (int k = 0; k < n; k++)
        if (stalled[k])
            json_object_array_add(a, json_object_new_int(k + 1));
    return a;
}

json_object *nv_campaign_result_to_json(const nv_campaign_opts *co, const nv_run_plan *plan,
                                        const nv_campaign_result *r)
{
    json_object *o = json_object_new_object(), *jb = json_object_new_object(),
                *jl = json_object_new_object(), *jc = json_object_new_array(),
                *jf = json_object_new_array();
    json_object_object_add(o, "app", json_object_new_string(co->app));
    json_object_object_add(o, "model", json_object_new_string(co->model_path));
    json_object_object_add(o, "load_nodes", json_object_new_string(plan->load_nodes));
    json_object_object_add(o, "runtime_source",
                           json_object_new_string(plan->runtime_key ? plan->runtime_key : "wall"));
    json_object_object_add(jb, "runtime_s", runtimes_json(r->baseline_s, co->repeat));
    json_object_object_add(jb, "stalled_rounds", stalled_json(r->baseline_stalled, co->repeat));
    json_object_object_add(jb, "median_s", nv_json_new_num_g(r->baseline_median_s, 6));
    json_object_object_add(jb, "point_s", nv_json_new_num_g(r->baseline_point_s, 6));
    json_object_object_add(o, "baseline", jb);
    json_object_object_add(o, "point_rule",
                           json_object_new_string(nv_campaign_point_name(co->point)));
    json_object_object_add(jl, "mean_us", nv_json_new_num_g(r->app_lat.mean_us, 6));
    json_object_object_add(jl, "sd_us", nv_json_new_num_g(r->app_lat.sd_us, 6));
    json_object_object_add(jl, "samples", json_object_new_int64((int64_t)r->app_samples));
    json_object_object_add(o, "app_latency", jl);
    json_object_object_add(o, "app_utilization", nv_json_new_num_g(r->app_u.rho, 6));
    json_object_object_add(o, "route",
                           json_object_new_string(r->n_app_steps ? "counters" : "latency"));
    if (r->n_app_steps) {
        json_object *jp = json_object_new_array();
        for (size_t k = 0; k < r->n_app_profile; k++)
            json_object_array_add(jp, nv_json_new_num_g(r->app_profile[k], 6));
        json_object_object_add(o, "app_utilization_counters",
                               nv_json_new_num_g(r->app_u_counters, 6));
        json_object_object_add(o, "app_utilization_profile", jp);
        json_object_object_add(o, "app_counter_steps",
                               json_object_new_int64((int64_t)r->n_app_steps));
        json_object_object_add(o, "route_agreement", nv_json_new_num_or_nan(r->route_agreement));
        json_object *jn = json_object_new_array();
        for (int k = 0; k < co->bottleneck->nports; k++)
            json_object_array_add(jn, json_object_new_string(co->bottleneck->port[k]));
        json_object_object_add(o, "ports", jn);
        json_object_object_add(o, "app_port_utilization",
                               ports_json(r->app_port_u, co->bottleneck->nports));
        json_object_object_add(o, "wait_gauge", json_object_new_string(nv_bn_gauge_name(r->gauge)));
        if (r->n_app_wait) {
            int us = r->gauge == NV_BN_GAUGE_QUEUE_US;
            json_object *jw = json_object_new_array();
            for (size_t k = 0; k < r->n_app_wait_profile; k++)
                json_object_array_add(jw, nv_json_new_num_g(r->app_wait_profile[k], 6));
            json_object_object_add(o,
                                   us                              ? "app_queue_wait_us"
                                   : r->gauge == NV_BN_GAUGE_PAUSE ? "app_paused_cycles_per_packet"
                                   : r->gauge == NV_BN_GAUGE_STALL_FLIT ? "app_stall_per_flit"
                                                                        : "app_stall_per_word",
                                   nv_json_new_num_g(r->app_wait, 6));
            json_object_object_add(o, us ? "app_queue_wait_profile_us" : "app_stall_profile", jw);
            json_object *jj = json_object_new_object();
            json_object_object_add(jj, "window_s",
                                   nv_json_new_num_g(NV_CAMPAIGN_JOINT_WINDOW_S, 6));
            json_object_object_add(jj, "measured",
                                   json_object_new_int64((int64_t)r->n_app_joint_measured));
            json_object_object_add(jj, "kept", json_object_new_int64((int64_t)r->n_app_joint));
            json_object_object_add(o, "app_joint_windows", jj);
        }
        json_object_object_add(o, "bottleneck_read_errors",
                               json_object_new_int64((int64_t)r->bottleneck_read_errors));
    }
    for (size_t i = 0; i < co->ncfg; i++) {
        const nv_campaign_config_result *c = &r->configs[i];
        json_object *e = nv_campaign_config_to_json(&co->cfg[i], co->ghz);
        json_object_object_add(e, "runtime_s", runtimes_json(c->runtime_s, co->repeat));
        json_object_object_add(e, "stalled_rounds", stalled_json(c->stalled, co->repeat));
        json_object_object_add(e, "median_s", nv_json_new_num_g(c->median_s, 6));
        json_object_object_add(e, "point_s", nv_json_new_num_g(c->point_s, 6));
        json_object_object_add(e, "slowdown_pct", nv_json_new_num_g(c->slowdown_pct, 6));
        json_object_object_add(e, "injected_bytes_per_s",
                               nv_json_new_num_g(c->injected_bytes_per_s, 6));
        json_object_object_add(e, "utilization", nv_json_new_num_g(c->u.rho, 6));
        if (r->n_app_steps) {
            json_object_object_add(e, "utilization_counters", nv_json_new_num_g(c->u_counters, 6));
            json_object_object_add(e, "counter_steps",
                                   json_object_new_int64((int64_t)c->counter_steps));
            json_object_object_add(e,
                                   r->gauge == NV_BN_GAUGE_STALL        ? "stall_per_word"
                                   : r->gauge == NV_BN_GAUGE_PAUSE      ? "paused_cycles_per_packet"
                                   : r->gauge == NV_BN_GAUGE_STALL_FLIT ? "stall_per_flit"
                                                                        : "queue_wait_us",
                                   nv_json_new_num_or_nan(c->wait));
            json_object_object_add(e, "port_utilization",
                                   ports_json(c->port_u, co->bottleneck->nports));
        }
        json_object_object_add(e, "latency_mean_us", nv_json_new_num_g(c->lat.mean_us, 6));
        json_object_object_add(e, "latency_sd_us", nv_json_new_num_g(c->lat.sd_us, 6));
        json_object_object_add(e, "latency_samples",
                               json_object_new_int64((int64_t)c->lat_samples));
        json_object_array_add(jc, e);
    }
    json_object_object_add(o, "configs", jc);
    for (size_t k = 0; k < r->n_fit; k++) {
        json_object *e = json_object_new_object();
        json_object_object_add(e, "utilization", nv_json_new_num_g(r->fit[k].utilization, 6));
        json_object_object_add(e, "slowdown_pct", nv_json_new_num_g(r->fit[k].slowdown_pct, 6));
        json_object_array_add(jf, e);
    }
    json_object_object_add(o, "fit", jf);
    return o;
}
