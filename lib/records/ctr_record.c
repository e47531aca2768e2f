/* ctr_record.c - counter snapshots and deltas to and from JSON. */
#include "ctr_record.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "nv_err.h"
#include "nv_json.h"

static const char *const known_words[] = {
    "bytes",        "packets",        "ticks", "flits",       "flit_times", "netdev", "ib_port",
    "network_tile", "processor_tile", "papi",  "switch_port", "qdisc",      "count",
};

const char *nv_ctr_intern(const char *s)
{
    for (size_t i = 0; s && i < sizeof known_words / sizeof known_words[0]; i++)
        if (!strcmp(s, known_words[i]))
            return known_words[i];
    return "unknown";
}

json_object *nv_ctr_snapshot_to_json(const nv_ctr_snapshot *s)
{
    json_object *o = json_object_new_object(), *ports = json_object_new_array();
    json_object_object_add(o, "backend", json_object_new_string(s->backend));
    json_object_object_add(o, "t_ns", json_object_new_uint64(s->t_ns));
    for (int i = 0; i < s->nports; i++) {
        const nv_ctr_port *p = &s->port[i];
        json_object *jp = json_object_new_object(), *fields = json_object_new_object();
        json_object_object_add(jp, "name", json_object_new_string(p->name));
        json_object_object_add(jp, "kind", json_object_new_string(p->kind ? p->kind : "unknown"));
        for (int f = 0; f < NV_CTR_NFIELDS; f++) {
            const nv_ctr_value *v = &p->f[f];
            if (!v->valid)
                continue;
            json_object *jv = json_object_new_object();
            json_object_object_add(jv, "raw", json_object_new_uint64(v->raw));
            json_object_object_add(jv, "scale", json_object_new_uint64(v->scale));
            json_object_object_add(jv, "sat_max", json_object_new_uint64(v->sat_max));
            json_object_object_add(jv, "unit",
                                   json_object_new_string(v->unit ? v->unit : "unknown"));
            json_object_object_add(jv, "saturated", json_object_new_boolean(v->saturated));
            json_object_object_add(fields, nv_ctr_field_name((nv_ctr_field)f), jv);
        }
        json_object_object_add(jp, "fields", fields);
        json_object_array_add(ports, jp);
    }
    json_object_object_add(o, "ports", ports);
    return o;
}

json_object *nv_ctr_delta_to_json(const nv_ctr_delta *d)
{
    json_object *o = json_object_new_object(), *ports = json_object_new_array();
    json_object_object_add(o, "backend", json_object_new_string(d->backend));
    json_object_object_add(o, "dt_ns", json_object_new_uint64(d->dt_ns));
    for (int i = 0; i < d->nports; i++) {
        const nv_ctr_port_delta *p = &d->port[i];
        json_object *jp = json_object_new_object(), *fields = json_object_new_object();
        json_object_object_add(jp, "name", json_object_new_string(p->name));
        json_object_object_add(jp, "kind", json_object_new_string(p->kind ? p->kind : "unknown"));
        for (int f = 0; f < NV_CTR_NFIELDS; f++) {
            const nv_ctr_delta_value *v = &p->f[f];
            if (!v->valid)
                continue;
            json_object *jv = json_object_new_object();
            json_object_object_add(jv, "value", json_object_new_uint64(v->value));
            json_object_object_add(jv, "unit",
                                   json_object_new_string(v->unit ? v->unit : "unknown"));
            if (v->lower_bound)
                json_object_object_add(jv, "lower_bound", json_object_new_boolean(1));
            if (v->wrapped)
                json_object_object_add(jv, "wrapped", json_object_new_boolean(1));
            json_object_object_add(fields, nv_ctr_field_name((nv_ctr_field)f), jv);
        }
        json_object_object_add(jp, "fields", fields);
        json_object_array_add(ports, jp);
    }
    json_object_object_add(o, "ports", ports);
    return o;
}

/* ---- parsing ---- */

/* dst[cap] from the string member key: a name, never cut */
static int copy_name(json_object *o, const char *key, char *dst, size_t cap, char *err,
                     size_t errlen)
{
    int rc = nv_json_str_copy(o, key, dst, cap);
    if (rc < 0)
        return nv_err(err, errlen, "%s is missing or not a string", key);
    if (rc > 0)
        return nv_err(err, errlen, "%s is too long", key);
    return 0;
}

/* the whole-number member key into *out */
static int need_u64(json_object *o, const char *key, uint64_t *out, char *err, size_t errlen)
{
    if (nv_json_u64(o, key, out))
        return nv_err(err, errlen, "%s is missing or not a whole number", key);
    return 0;
}

static int field_index(const char *name)
{
    for (int f = 0; f < NV_CTR_NFIELDS; f++)
        if (!strcmp(name, nv_ctr_field_name((nv_ctr_field)f)))
            return f;
    return -1;
}

typedef int (*field_fn)(json_object *jv, void *port, int f, char *err, size_t errlen);

static int parse_ports(json_object *o, void *ports, size_t port_size, int *nports, field_fn fn,
                       char *err, size_t errlen)
{
    json_object *arr = nv_json_get(o, "ports", json_type_array);
    if (!arr)
        return nv_err(err, errlen, "ports is missing or not an array");
    size_t n = json_object_array_length(arr);
    if (n > NV_CTR_MAX_PORTS)
        return nv_err(err, errlen, "ports has more entries than the %d allowed", NV_CTR_MAX_PORTS);
    for (size_t i = 0; i < n; i++) {
        json_object *jp = json_object_array_get_idx(arr, i);
        char *port = (char *)ports + i * port_size;
        /* both port structs start with name[NV_CTR_NAME_MAX] then kind */
        if (!json_object_is_type(jp, json_type_object) ||
            copy_name(jp, "name", port, NV_CTR_NAME_MAX, err, errlen))
            return nv_err(err, errlen, "ports[] entry is not a port with a name");
        *(const char **)(port + NV_CTR_NAME_MAX) = nv_ctr_intern(nv_json_str(jp, "kind"));
        json_object *fields = nv_json_get(jp, "fields", json_type_object);
        if (!fields)
            return nv_err(err, errlen, "ports[].fields is missing or not an object");
        json_object_object_foreach(fields, key, jv)
        {
            int f = field_index(key);
            if (f < 0 || !json_object_is_type(jv, json_type_object))
                return nv_err(err, errlen, "%s is not a known counter field", key);
            if (fn(jv, port, f, err, errlen))
                return -1;
        }
    }
    *nports = (int)n;
    return 0;
}

static int snapshot_field(json_object *jv, void *port, int f, char *err, size_t errlen)
{
    nv_ctr_value *v = &((nv_ctr_port *)port)->f[f];
    json_object *b;
    if (need_u64(jv, "raw", &v->raw, err, errlen) ||
        need_u64(jv, "scale", &v->scale, err, errlen) ||
        need_u64(jv, "sat_max", &v->sat_max, err, errlen))
        return -1;
    v->unit = nv_ctr_intern(nv_json_str(jv, "unit"));
    v->saturated = json_object_object_get_ex(jv, "saturated", &b) && json_object_get_boolean(b);
    v->valid = true;
    return 0;
}

static int delta_field(json_object *jv, void *port, int f, char *err, size_t errlen)
{
    nv_ctr_delta_value *v = &((nv_ctr_port_delta *)port)->f[f];
    json_object *b;
    if (need_u64(jv, "value", &v->value, err, errlen))
        return -1;
    v->unit = nv_ctr_intern(nv_json_str(jv, "unit"));
    v->lower_bound = json_object_object_get_ex(jv, "lower_bound", &b) && json_object_get_boolean(b);
    v->wrapped = json_object_object_get_ex(jv, "wrapped", &b) && json_object_get_boolean(b);
    v->valid = true;
    return 0;
}

_Static_assert(offsetof(nv_ctr_port, kind) == NV_CTR_NAME_MAX, "port layout");
_Static_assert(offsetof(nv_ctr_port_delta, kind) == NV_CTR_NAME_MAX, "port delta layout");

int nv_ctr_snapshot_from_json(json_object *o, nv_ctr_snapshot *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!json_object_is_type(o, json_type_object))
        return nv_err(err, errlen, "snapshot is not an object");
    if (copy_name(o, "backend", out->backend, sizeof out->backend, err, errlen) ||
        need_u64(o, "t_ns", &out->t_ns, err, errlen))
        return -1;
    return parse_ports(o, out->port, sizeof out->port[0], &out->nports, snapshot_field, err,
                       errlen);
}

int nv_ctr_delta_from_json(json_object *o, nv_ctr_delta *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!json_object_is_type(o, json_type_object))
        return nv_err(err, errlen, "delta is not an object");
    if (copy_name(o, "backend", out->backend, sizeof out->backend, err, errlen) ||
        need_u64(o, "dt_ns", &out->dt_ns, err, errlen))
        return -1;
    return parse_ports(o, out->port, sizeof out->port[0], &out->nports, delta_field, err, errlen);
}
