/* node_record.c - a node's start, samples and record files (node_record.h). */
#include "node_record.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctr_record.h"
#include "json_file.h"
#include "nv_err.h"
#include "nv_json.h"
#include "safe_open.h"

static json_object *str_or_null(const char *s)
{
    return s && *s ? json_object_new_string(s) : NULL;
}

/* schema, version, who and where */
static json_object *ident_json(const struct nv_node_ident *id, const char *schema)
{
    json_object *o = json_object_new_object();
    if (!o)
        return NULL;
    json_object_object_add(o, "schema", json_object_new_string(schema));
    json_object_object_add(o, "version", json_object_new_int(NV_NODE_FILE_VERSION));
    json_object_object_add(o, "job_id", json_object_new_int64(id->job_id));
    json_object_object_add(o, "node", json_object_new_string(id->node ? id->node : "?"));
    json_object_object_add(o, "mode", json_object_new_string(id->mode ? id->mode : "unknown"));
    json_object_object_add(o, "app", str_or_null(id->app));
    json_object_object_add(o, "blade", str_or_null(id->blade));
    json_object_object_add(o, "switch", str_or_null(id->sw));
    json_object_object_add(o, "group", str_or_null(id->group));
    json_object_object_add(o, "blade_reader", json_object_new_boolean(id->blade_reader));
    return o;
}

/* writes o (and puts it) */
static int write_and_put(const char *path, json_object *o, mode_t mode, gid_t gid, char *err,
                         size_t errlen)
{
    if (!o)
        return nv_err(err, errlen, "%s: out of memory", path);
    int rc = nv_json_write_file(path, o, mode, gid, err, errlen);
    json_object_put(o);
    return rc;
}

/* the file at path, of owner, when it is of `schema`; NULL with err
 * (without the path) */
static json_object *read_owned(const char *path, uid_t owner, const char *schema, char *err,
                               size_t errlen)
{
    json_object *o = nv_json_read_owned(path, owner, NV_NODE_FILE_MAX_BYTES, err, errlen);
    if (o && nv_json_schema_check(o, schema, NV_NODE_FILE_VERSION, err, errlen)) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

static json_object *read_checked(const char *path, const char *schema, char *err, size_t errlen)
{
    return read_owned(path, NV_ANY_OWNER, schema, err, errlen);
}

/* ---- start ---- */

int nv_node_start_write(const char *path, const struct nv_node_start *s, char *err, size_t errlen)
{
    json_object *o = ident_json(&s->id, NV_NODE_START_SCHEMA);
    if (o) {
        json_object_object_add(o, "start_unix_s", nv_json_new_num(s->start_unix_s));
        json_object_object_add(o, "interval_s",
                               json_object_new_int(s->interval_s > 0 ? s->interval_s : 0));
        if (s->annotation)
            json_object_object_add(o, "annotation", json_object_new_string(s->annotation));
        if (s->counter_source)
            json_object_object_add(o, "counter_source", json_object_new_string(s->counter_source));
        if (s->counter_error)
            json_object_object_add(o, "counter_error", json_object_new_string(s->counter_error));
        if (s->snapshot)
            json_object_object_add(o, "snapshot", nv_ctr_snapshot_to_json(s->snapshot));
    }
    return write_and_put(path, o, 0600, 0, err, errlen);
}

int nv_node_start_read(const char *path, struct nv_node_start_info *out, nv_ctr_snapshot *snap,
                       char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->start_unix_s = NAN;
    json_object *o = read_checked(path, NV_NODE_START_SCHEMA, err, errlen);
    if (!o)
        return -1;
    out->start_unix_s = nv_json_num(o, "start_unix_s");
    double iv = nv_json_num_or(o, "interval_s", 0);
    out->interval_s = iv > 0 && iv < 1e6 ? (int)iv : 0;
    nv_json_str_copy(o, "annotation", out->annotation, sizeof out->annotation);
    nv_json_str_copy(o, "counter_error", out->counter_error, sizeof out->counter_error);
    json_object *js = NULL;
    out->has_snapshot = json_object_object_get_ex(o, "snapshot", &js) && js;
    if (out->has_snapshot && snap)
        nv_ctr_snapshot_from_json(js, snap, out->snapshot_error, sizeof out->snapshot_error);
    json_object_put(o);
    return 0;
}

/* ---- samples ---- */

int nv_node_samples_write(const char *path, int interval_s, uint64_t dropped, size_t n,
                          nv_node_window_fn window, void *arg, char *err, size_t errlen)
{
    json_object *o = json_object_new_object(), *arr = json_object_new_array();
    nv_ctr_delta *d = malloc(sizeof *d);
    if (!o || !arr || !d) {
        json_object_put(o);
        json_object_put(arr);
        free(d);
        return nv_err(err, errlen, "%s: out of memory", path);
    }
    json_object_object_add(o, "schema", json_object_new_string(NV_NODE_SAMPLES_SCHEMA));
    json_object_object_add(o, "version", json_object_new_int(NV_NODE_FILE_VERSION));
    json_object_object_add(o, "interval_s", json_object_new_int(interval_s));
    json_object_object_add(o, "dropped", json_object_new_uint64(dropped));
    for (size_t i = 0; i < n; i++) {
        double end = NAN;
        if (window(arg, i, &end, d))
            continue;
        json_object *w = json_object_new_object();
        json_object_object_add(w, "end_unix_s", nv_json_new_num(end));
        json_object_object_add(w, "delta", nv_ctr_delta_to_json(d));
        json_object_array_add(arr, w);
    }
    free(d);
    json_object_object_add(o, "windows", arr);
    return write_and_put(path, o, 0600, 0, err, errlen);
}

json_object *nv_node_samples_read(const char *path, char *err, size_t errlen)
{
    return read_checked(path, NV_NODE_SAMPLES_SCHEMA, err, errlen);
}

/* ---- record ---- */

int nv_node_record_write(const char *path, gid_t gid, const struct nv_node_record *r, char *err,
                         size_t errlen)
{
    json_object *o = ident_json(&r->id, NV_NODE_RECORD_SCHEMA);
    if (!o) {
        json_object_put(r->samples);
        return nv_err(err, errlen, "%s: out of memory", path);
    }
    json_object_object_add(o, "start_unix_s", nv_json_new_num(r->start_unix_s));
    json_object_object_add(o, "end_unix_s", nv_json_new_num(r->end_unix_s));
    if (r->annotation && *r->annotation)
        json_object_object_add(o, "annotation", json_object_new_string(r->annotation));
    if (r->delta) {
        json_object_object_add(o, "delta", nv_ctr_delta_to_json(r->delta));
        json_object *rates = json_object_new_object();
        for (int p = 0; r->line_rate_Bps && p < r->delta->nports; p++)
            if (r->line_rate_Bps[p] > 0)
                json_object_object_add(rates, r->delta->port[p].name,
                                       nv_json_new_num(r->line_rate_Bps[p]));
        json_object_object_add(o, "line_rate_Bps", rates);
    }
    if (r->counter_error && *r->counter_error)
        json_object_object_add(o, "counter_error", json_object_new_string(r->counter_error));
    json_object_object_add(o, "counter_source",
                           json_object_new_string(r->counter_source ? r->counter_source : "none"));
    if (r->samples)
        json_object_object_add(o, "samples", r->samples);
    return write_and_put(path, o, 0640, gid, err, errlen);
}

json_object *nv_node_record_read(const char *path, char *err, size_t errlen)
{
    return read_checked(path, NV_NODE_RECORD_SCHEMA, err, errlen);
}

json_object *nv_node_record_read_owned(const char *path, uid_t owner, char *err, size_t errlen)
{
    return read_owned(path, owner, NV_NODE_RECORD_SCHEMA, err, errlen);
}
