/* probe_output.c - the ImpactB and CompressionB output schemas: writers
 * and readers (probe_output.h). */
#include "probe_output.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibration.h"
#include "nv_err.h"
#include "nv_json.h"
#include "sort_cmp.h"

/* ------------------------------------------------------------- writing */

static void add(json_object *o, const char *key, json_object *v)
{
    json_object_object_add(o, key, v);
}

static json_object *int_array(const int *v, size_t n)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; a && v && i < n; i++)
        json_object_array_add(a, json_object_new_int(v[i]));
    return a;
}

/* Adds "placement" and "placement_overridden" to obj. */
static void placement_to_json(const nv_probe_placement *p, json_object *obj)
{
    json_object *pl = json_object_new_object();
    if (!pl)
        return;
    add(pl, "source", json_object_new_string(p->source));
    add(pl, "overridden", json_object_new_boolean(p->overridden));
    add(pl, "ranks", json_object_new_int(p->ranks));
    add(pl, "nodes", json_object_new_int(p->nodes));
    json_object *names = json_object_new_array();
    for (size_t i = 0; names && p->node_names && i < p->n_node_names; i++)
        json_object_array_add(names,
                              json_object_new_string(p->node_names[i] ? p->node_names[i] : ""));
    add(pl, "node_names", names);
    add(pl, "tasks_per_node", int_array(p->tasks_per_node, p->nodes > 0 ? (size_t)p->nodes : 0));
    add(pl, "rank_node", int_array(p->rank_node, p->ranks > 0 ? (size_t)p->ranks : 0));
    add(obj, "placement", pl);
    add(obj, "placement_overridden", json_object_new_boolean(p->overridden));
}

/* A duration asked for: null when the run was to last until a signal. */
static json_object *duration_json(double d)
{
    return d > 0 ? nv_json_new_num(d) : NULL;
}

void nv_impactb_summarize(nv_impactb_output *o)
{
    size_t n = o->n_samples;
    double *us = o->samples_us;
    nv_probe_latency *l = &o->latency;
    memset(&o->histogram, 0, sizeof o->histogram);
    l->count = n;
    if (n == 0 || !us) {
        /* no samples: no numbers rather than made-up ones */
        l->count = 0;
        l->min_us = l->mean_us = l->sd_us = l->p50_us = l->p90_us = l->p99_us = l->max_us = NAN;
        return;
    }
    qsort(us, n, sizeof *us, nv_cmp_double);
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        sum += us[i];
        nv_hist_add(&o->histogram, us[i]);
    }
    double mean = sum / (double)n, ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (us[i] - mean) * (us[i] - mean);
    l->min_us = us[0];
    l->mean_us = mean;
    l->sd_us = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
    l->p50_us = nv_quantile_sorted(us, n, 0.50);
    l->p90_us = nv_quantile_sorted(us, n, 0.90);
    l->p99_us = nv_quantile_sorted(us, n, 0.99);
    l->max_us = us[n - 1];
}

static void latency_to_json(const nv_probe_latency *l, const nv_histogram *h, json_object *parent)
{
    json_object *o = json_object_new_object();
    if (o) {
        add(o, "unit", json_object_new_string("us"));
        add(o, "count", json_object_new_int64((int64_t)l->count));
        int none = l->count == 0;
        add(o, "min_us", none ? NULL : nv_json_new_num(l->min_us));
        add(o, "mean_us", none ? NULL : nv_json_new_num(l->mean_us));
        add(o, "sd_us", none ? NULL : nv_json_new_num(l->sd_us));
        add(o, "p50_us", none ? NULL : nv_json_new_num(l->p50_us));
        add(o, "p90_us", none ? NULL : nv_json_new_num(l->p90_us));
        add(o, "p99_us", none ? NULL : nv_json_new_num(l->p99_us));
        add(o, "max_us", none ? NULL : nv_json_new_num(l->max_us));
    }
    json_object *hist = json_object_new_object();
    if (hist) {
        double edges[NV_HIST_BINS + 1];
        for (int k = 0; k <= NV_HIST_BINS; k++)
            edges[k] = nv_hist_edge_us(k);
        json_object *counts = json_object_new_array();
        for (int k = 0; counts && k < NV_HIST_BINS; k++)
            json_object_array_add(counts, json_object_new_int64((int64_t)h->count[k]));
        add(hist, "unit", json_object_new_string("us"));
        add(hist, "bins", json_object_new_int(NV_HIST_BINS));
        add(hist, "bins_per_decade", json_object_new_int(NV_HIST_BINS_PER_DECADE));
        add(hist, "edges_us", nv_json_new_num_array(edges, NV_HIST_BINS + 1));
        add(hist, "counts", counts);
    }
    add(parent, "latency", o);
    add(parent, "histogram", hist);
}

json_object *nv_impactb_to_json(const nv_impactb_output *o)
{
    json_object *out = json_object_new_object();
    if (!out)
        return NULL;
    add(out, "schema", json_object_new_string(NV_IMPACTB_SCHEMA));
    add(out, "version", json_object_new_int(NV_IMPACTB_VERSION));
    add(out, "message_bytes", json_object_new_int64(o->message_bytes));
    add(out, "interval_us", json_object_new_int64(o->interval_us));
    if (o->gaps[0])
        add(out, "gaps", json_object_new_string(o->gaps));
    add(out, "duration_s", duration_json(o->duration_s));
    add(out, "elapsed_s", nv_json_new_num(o->elapsed_s));
    add(out, "stopped_by", json_object_new_string(o->stopped_by));
    add(out, "wait_mode", json_object_new_string(o->wait_mode));
    add(out, "pairing", json_object_new_string(NV_IMPACTB_PAIRING));
    add(out, "exchanges_per_rank", json_object_new_int64((int64_t)o->exchanges_per_rank));
    add(out, "count", json_object_new_int64((int64_t)o->n_samples));
    add(out, "samples_dropped", json_object_new_int64((int64_t)o->samples_dropped));
    add(out, "samples_discarded_responder_late",
        json_object_new_int64((int64_t)o->samples_discarded_responder_late));
    json_object *pairs = json_object_new_array();
    for (size_t i = 0; pairs && o->pairs && i < o->n_pairs; i++)
        json_object_array_add(pairs, int_array(o->pairs[i], 2));
    add(out, "pairs", pairs);
    placement_to_json(&o->placement, out);
    json_object *cost = json_object_new_object();
    if (cost) {
        add(cost, "cpu_us_per_exchange_mean_rank", nv_json_new_num(o->cpu_us_per_exchange));
        add(cost, "mpi_tests_per_exchange_mean_rank", nv_json_new_num(o->mpi_tests_per_exchange));
    }
    add(out, "self_cost", cost);
    latency_to_json(&o->latency, &o->histogram, out);
    if (o->write_samples)
        add(out, "samples_us",
            nv_json_new_num_array(o->samples_us, o->samples_us ? o->n_samples : 0));
    return out;
}

json_object *nv_compressionb_to_json(const nv_compressionb_output *o)
{
    json_object *out = json_object_new_object();
    if (!out)
        return NULL;
    add(out, "schema", json_object_new_string(NV_COMPRESSIONB_SCHEMA));
    add(out, "version", json_object_new_int(NV_COMPRESSIONB_VERSION));
    json_object *par = json_object_new_object();
    if (par) {
        add(par, "partners", json_object_new_int(o->partners));
        add(par, "messages", json_object_new_int(o->messages));
        add(par, "msg_bytes", json_object_new_int64(o->msg_bytes));
        add(par, "sleep_us", nv_json_new_num(o->sleep_us));
        add(par, "cycles", o->have_cycles ? nv_json_new_num(o->cycles) : NULL);
        add(par, "ghz", o->have_cycles ? nv_json_new_num(o->ghz) : NULL);
        add(par, "sleep_at", json_object_new_string(o->sleep_per_round ? "round" : "partner"));
    }
    add(out, "parameters", par);
    add(out, "duration_s", duration_json(o->duration_s));
    add(out, "elapsed_s", nv_json_new_num(o->elapsed_s));
    add(out, "stopped_by", json_object_new_string(o->stopped_by));
    add(out, "wait_mode", json_object_new_string(o->wait_mode));
    add(out, "rounds_per_rank", json_object_new_int64(o->rounds_per_rank));
    add(out, "bytes_sent_total", json_object_new_int64((int64_t)o->bytes_sent_total));
    placement_to_json(&o->placement, out);
    json_object *bw = json_object_new_object();
    if (bw) {
        add(bw, "unit", json_object_new_string("bytes/s"));
        add(bw, "per_node",
            nv_json_new_num_array(o->per_node_bytes_per_s,
                                  o->per_node_bytes_per_s ? o->n_per_node : 0));
        add(bw, "mean_per_node", nv_json_new_num(o->mean_bytes_per_s));
        add(bw, "min_per_node", nv_json_new_num(o->min_bytes_per_s));
        add(bw, "max_per_node", nv_json_new_num(o->max_bytes_per_s));
    }
    add(out, "injected_bandwidth", bw);
    return out;
}

/* ------------------------------------------------------------- reading */

/* The first JSON object in text whose line starts with '{'. */
static json_object *first_object(const char *text, size_t len, char *err, size_t errlen)
{
    const char *p = text, *end = text + len;
    while (p < end && !(*p == '{' && (p == text || p[-1] == '\n')))
        p++;
    if (p >= end) {
        nv_err(err, errlen, "no JSON object in the probe's output");
        return NULL;
    }
    json_tokener *tok = json_tokener_new_ex(64);
    if (!tok) {
        nv_err(err, errlen, "out of memory");
        return NULL;
    }
    size_t n = (size_t)(end - p);
    json_object *o = json_tokener_parse_ex(tok, p, n > INT32_MAX ? INT32_MAX : (int)n);
    enum json_tokener_error je = json_tokener_get_error(tok);
    json_tokener_free(tok);
    if (!o || je != json_tokener_success) {
        json_object_put(o);
        nv_err(err, errlen, "the probe's JSON output is incomplete or invalid: %s",
               json_tokener_error_desc(je));
        return NULL;
    }
    if (!json_object_is_type(o, json_type_object)) {
        json_object_put(o);
        nv_err(err, errlen, "the probe's output is not a JSON object");
        return NULL;
    }
    return o;
}

static int check_schema(json_object *o, const char *want, int version, char *err, size_t errlen)
{
    if (!nv_json_schema_is(o, want))
        return nv_err(err, errlen, "schema: expected \"%s\"", want);
    json_object *v = nv_json_get(o, "version", json_type_int);
    if (!v || json_object_get_int(v) != version)
        return nv_err(err, errlen, "version: expected %d", version);
    return 0;
}

/* A required number >= 0; -1 when missing, not a finite number or < 0. */
static int number_ge0(json_object *o, const char *key, double *out)
{
    return nv_json_num_strict(o, key, out) == 1 && *out >= 0 ? 0 : -1;
}

/* Optional fields: 0 / "" when missing or of another type. */
static int64_t opt_int(json_object *o, const char *key)
{
    json_object *v = nv_json_get(o, key, json_type_int);
    return v ? json_object_get_int64(v) : 0;
}

static uint64_t opt_u64(json_object *o, const char *key)
{
    uint64_t u = 0;
    return nv_json_u64(o, key, &u) == 0 ? u : 0;
}

static double opt_num(json_object *o, const char *key)
{
    return nv_json_num_or(o, key, 0);
}

static void opt_str(json_object *o, const char *key, char *buf, size_t n)
{
    const char *s = nv_json_str(o, key);
    snprintf(buf, n, "%s", s ? s : "");
}

/* An array of exactly n whole numbers as a malloc'd int[n], else NULL. */
static int *opt_int_array(json_object *o, const char *key, size_t n)
{
    json_object *a = nv_json_get(o, key, json_type_array);
    if (!a || n == 0 || json_object_array_length(a) != n)
        return NULL;
    int *v = malloc(n * sizeof *v);
    for (size_t i = 0; v && i < n; i++) {
        json_object *e = json_object_array_get_idx(a, i);
        if (!json_object_is_type(e, json_type_int)) {
            free(v);
            return NULL;
        }
        v[i] = json_object_get_int(e);
    }
    return v;
}

/* An array of finite numbers as a malloc'd double[*n], else NULL. */
static double *opt_num_array(json_object *o, const char *key, size_t *n)
{
    *n = 0;
    json_object *a = nv_json_get(o, key, json_type_array);
    size_t k = a ? json_object_array_length(a) : 0;
    if (k == 0)
        return NULL;
    double *v = malloc(k * sizeof *v);
    for (size_t i = 0; v && i < k; i++) {
        json_object *e = json_object_array_get_idx(a, i);
        double d = json_object_get_double(e);
        if (!(json_object_is_type(e, json_type_double) || json_object_is_type(e, json_type_int)) ||
            !isfinite(d)) {
            free(v);
            return NULL;
        }
        v[i] = d;
    }
    *n = k;
    return v;
}

static void placement_free(nv_probe_placement *p)
{
    for (size_t i = 0; p->node_names && i < p->n_node_names; i++)
        free(p->node_names[i]);
    free(p->node_names);
    free(p->tasks_per_node);
    free(p->rank_node);
    p->node_names = NULL;
    p->n_node_names = 0;
    p->tasks_per_node = NULL;
    p->rank_node = NULL;
}

/* "placement": nodes is required (a whole number >= 1), the rest optional. */
static int placement_from_json(json_object *o, nv_probe_placement *p, char *err, size_t errlen)
{
    json_object *pl = nv_json_get(o, "placement", json_type_object);
    json_object *nn = nv_json_get(pl, "nodes", json_type_int);
    if (!nn || json_object_get_int(nn) < 1)
        return nv_err(err, errlen, "placement.nodes: missing or not a positive whole number");
    p->nodes = json_object_get_int(nn);
    opt_str(pl, "source", p->source, sizeof p->source);
    json_object *ov = nv_json_get(pl, "overridden", json_type_boolean);
    p->overridden = ov && json_object_get_boolean(ov);
    int64_t ranks = opt_int(pl, "ranks");
    p->ranks = ranks > 0 && ranks <= INT32_MAX ? (int)ranks : 0;
    json_object *names = nv_json_get(pl, "node_names", json_type_array);
    if (names) {
        size_t k = json_object_array_length(names);
        p->node_names = calloc(NV_PROBE_MAX_NODE_NAMES, sizeof *p->node_names);
        for (size_t i = 0; p->node_names && i < k && p->n_node_names < NV_PROBE_MAX_NODE_NAMES;
             i++) {
            json_object *s = json_object_array_get_idx(names, i);
            if (!json_object_is_type(s, json_type_string))
                continue;
            char *d = strndup(json_object_get_string(s), NV_PROBE_NODE_NAME_MAX - 1);
            if (!d)
                break;
            p->node_names[p->n_node_names++] = d;
        }
    }
    p->tasks_per_node = opt_int_array(pl, "tasks_per_node", (size_t)p->nodes);
    p->rank_node = opt_int_array(pl, "rank_node", (size_t)p->ranks);
    return 0;
}

static void latency_from_json(json_object *o, nv_probe_latency *l, nv_histogram *h)
{
    json_object *lat = nv_json_get(o, "latency", json_type_object);
    l->count = opt_u64(lat, "count");
    l->min_us = nv_json_num(lat, "min_us");
    l->mean_us = nv_json_num(lat, "mean_us");
    l->sd_us = nv_json_num(lat, "sd_us");
    l->p50_us = nv_json_num(lat, "p50_us");
    l->p90_us = nv_json_num(lat, "p90_us");
    l->p99_us = nv_json_num(lat, "p99_us");
    l->max_us = nv_json_num(lat, "max_us");
    json_object *hist = nv_json_get(o, "histogram", json_type_object);
    json_object *counts = nv_json_get(hist, "counts", json_type_array);
    if (!counts || json_object_array_length(counts) != NV_HIST_BINS)
        return;
    nv_histogram tmp;
    memset(&tmp, 0, sizeof tmp);
    for (int k = 0; k < NV_HIST_BINS; k++) {
        json_object *c = json_object_array_get_idx(counts, (size_t)k);
        if (!json_object_is_type(c, json_type_int) || json_object_get_int64(c) < 0)
            return;
        tmp.count[k] = (uint64_t)json_object_get_int64(c);
        tmp.total += tmp.count[k];
    }
    *h = tmp;
}

static void pairs_from_json(json_object *o, nv_impactb_output *out)
{
    json_object *a = nv_json_get(o, "pairs", json_type_array);
    size_t k = a ? json_object_array_length(a) : 0;
    if (k == 0 || !(out->pairs = malloc(k * sizeof *out->pairs)))
        return;
    for (size_t i = 0; i < k; i++) {
        json_object *p = json_object_array_get_idx(a, i);
        if (!json_object_is_type(p, json_type_array) || json_object_array_length(p) != 2)
            continue;
        json_object *x = json_object_array_get_idx(p, 0), *y = json_object_array_get_idx(p, 1);
        if (!json_object_is_type(x, json_type_int) || !json_object_is_type(y, json_type_int))
            continue;
        out->pairs[out->n_pairs][0] = json_object_get_int(x);
        out->pairs[out->n_pairs][1] = json_object_get_int(y);
        out->n_pairs++;
    }
}

void nv_impactb_output_free(nv_impactb_output *o)
{
    free(o->samples_us);
    free(o->pairs);
    o->samples_us = NULL;
    o->n_samples = 0;
    o->pairs = NULL;
    o->n_pairs = 0;
    placement_free(&o->placement);
}

int nv_impactb_from_json(json_object *o, nv_impactb_output *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (check_schema(o, NV_IMPACTB_SCHEMA, NV_IMPACTB_VERSION, err, errlen) ||
        placement_from_json(o, &out->placement, err, errlen))
        goto fail;
    if (number_ge0(o, "elapsed_s", &out->elapsed_s)) {
        nv_err(err, errlen, "elapsed_s: missing or not a number >= 0");
        goto fail;
    }
    opt_str(o, "stopped_by", out->stopped_by, sizeof out->stopped_by);
    json_object *sa = nv_json_get(o, "samples_us", json_type_array);
    if (!sa) {
        nv_err(err, errlen, "samples_us: missing (ImpactB must run with --samples)");
        goto fail;
    }
    size_t n = json_object_array_length(sa);
    if (n > NV_CAL_MAX_SAMPLES) {
        nv_err(err, errlen, "samples_us: %zu samples, more than the %u accepted", n,
               NV_CAL_MAX_SAMPLES);
        goto fail;
    }
    out->samples_us = malloc((n ? n : 1) * sizeof *out->samples_us);
    if (!out->samples_us) {
        nv_err(err, errlen, "samples_us: out of memory for %zu samples", n);
        goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        json_object *v = json_object_array_get_idx(sa, i);
        double d = json_object_get_double(v);
        if (!(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)) ||
            !isfinite(d) || d < 0) {
            nv_err(err, errlen, "samples_us[%zu]: not a finite latency >= 0 us", i);
            goto fail;
        }
        out->samples_us[i] = d;
    }
    out->n_samples = n;
    out->write_samples = true;
    /* the rest is what the probe reports about itself */
    out->message_bytes = opt_int(o, "message_bytes");
    out->interval_us = opt_int(o, "interval_us");
    opt_str(o, "gaps", out->gaps, sizeof out->gaps);
    out->duration_s = opt_num(o, "duration_s");
    opt_str(o, "wait_mode", out->wait_mode, sizeof out->wait_mode);
    out->exchanges_per_rank = opt_u64(o, "exchanges_per_rank");
    out->samples_dropped = opt_u64(o, "samples_dropped");
    out->samples_discarded_responder_late = opt_u64(o, "samples_discarded_responder_late");
    pairs_from_json(o, out);
    json_object *cost = nv_json_get(o, "self_cost", json_type_object);
    out->cpu_us_per_exchange = opt_num(cost, "cpu_us_per_exchange_mean_rank");
    out->mpi_tests_per_exchange = opt_num(cost, "mpi_tests_per_exchange_mean_rank");
    latency_from_json(o, &out->latency, &out->histogram);
    return 0;
fail:
    nv_impactb_output_free(out);
    memset(out, 0, sizeof *out);
    return -1;
}

int nv_impactb_parse(const char *text, size_t len, nv_impactb_output *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    json_object *o = first_object(text, len, err, errlen);
    if (!o)
        return -1;
    int rc = nv_impactb_from_json(o, out, err, errlen);
    json_object_put(o);
    return rc;
}

void nv_compressionb_output_free(nv_compressionb_output *o)
{
    free(o->per_node_bytes_per_s);
    o->per_node_bytes_per_s = NULL;
    o->n_per_node = 0;
    placement_free(&o->placement);
}

int nv_compressionb_from_json(json_object *o, nv_compressionb_output *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (check_schema(o, NV_COMPRESSIONB_SCHEMA, NV_COMPRESSIONB_VERSION, err, errlen) ||
        placement_from_json(o, &out->placement, err, errlen))
        goto fail;
    json_object *bw = nv_json_get(o, "injected_bandwidth", json_type_object);
    if (!bw || nv_json_num_strict(bw, "mean_per_node", &out->mean_bytes_per_s) != 1 ||
        nv_json_num_strict(bw, "min_per_node", &out->min_bytes_per_s) != 1 ||
        nv_json_num_strict(bw, "max_per_node", &out->max_bytes_per_s) != 1 ||
        out->mean_bytes_per_s < 0) {
        nv_err(err, errlen, "injected_bandwidth: missing mean/min/max_per_node bytes/s");
        goto fail;
    }
    if (number_ge0(o, "elapsed_s", &out->elapsed_s)) {
        nv_err(err, errlen, "elapsed_s: missing or not a number >= 0");
        goto fail;
    }
    out->rounds_per_rank = opt_int(o, "rounds_per_rank");
    /* the rest is what the probe reports about itself */
    out->per_node_bytes_per_s = opt_num_array(bw, "per_node", &out->n_per_node);
    json_object *par = nv_json_get(o, "parameters", json_type_object);
    out->partners = (int)opt_int(par, "partners");
    out->messages = (int)opt_int(par, "messages");
    out->msg_bytes = opt_int(par, "msg_bytes");
    out->sleep_us = opt_num(par, "sleep_us");
    double cycles, ghz;
    out->have_cycles = nv_json_num_strict(par, "cycles", &cycles) == 1 &&
                       nv_json_num_strict(par, "ghz", &ghz) == 1;
    out->cycles = out->have_cycles ? cycles : 0;
    out->ghz = out->have_cycles ? ghz : 0;
    const char *at = nv_json_str(par, "sleep_at");
    out->sleep_per_round = at && !strcmp(at, "round");
    out->duration_s = opt_num(o, "duration_s");
    opt_str(o, "stopped_by", out->stopped_by, sizeof out->stopped_by);
    opt_str(o, "wait_mode", out->wait_mode, sizeof out->wait_mode);
    out->bytes_sent_total = opt_u64(o, "bytes_sent_total");
    return 0;
fail:
    nv_compressionb_output_free(out);
    memset(out, 0, sizeof *out);
    return -1;
}

int nv_compressionb_parse(const char *text, size_t len, nv_compressionb_output *out, char *err,
                          size_t errlen)
{
    memset(out, 0, sizeof *out);
    json_object *o = first_object(text, len, err, errlen);
    if (!o)
        return -1;
    int rc = nv_compressionb_from_json(o, out, err, errlen);
    json_object_put(o);
    return rc;
}
