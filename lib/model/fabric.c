/* fabric.c - the fabric response's reader and writer, the signature's, and
 * the profile route's composition (fabric.h). */
#include "fabric.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_file.h"
#include "model.h"
#include "nv_err.h"
#include "nv_json.h"
#include "safe_open.h"

const char *nv_fabric_class_name(int cls)
{
    static const char *const names[NV_FABRIC_CLASSES] = {
        "p2p:le256B",    "p2p:le8KiB",    "p2p:le256KiB",    "p2p:gt256KiB",
        "rooted:le256B", "rooted:le8KiB", "rooted:le256KiB", "rooted:gt256KiB",
        "all:le256B",    "all:le8KiB",    "all:le256KiB",    "all:gt256KiB"};
    return cls >= 0 && cls < NV_FABRIC_CLASSES ? names[cls] : "unknown";
}

/* a number member within [lo, hi] (lo_open: > lo) */
static int ranged(nv_jcheck *L, json_object *o, const char *key, const char *p, double lo,
                  int lo_open, double hi, double *out)
{
    if (nv_jcheck_number_member(L, o, key, p, out))
        return -1;
    if (*out < lo || (lo_open && *out == lo) || *out > hi)
        return nv_jcheck_fail(L, "%s.%s: value %g is outside %s%g, %g]", p, key, *out,
                              lo_open ? "(" : "[", lo, hi);
    return 0;
}

/* an array member of exactly NV_FABRIC_CLASSES numbers in [lo, hi] (lo_open: > lo) */
static int class_values(nv_jcheck *L, json_object *o, const char *key, const char *p, double lo,
                        int lo_open, double hi, double *out)
{
    json_object *a = nv_jcheck_member(L, o, key, p, json_type_array);
    if (!a)
        return -1;
    size_t n = json_object_array_length(a);
    if (n != NV_FABRIC_CLASSES)
        return nv_jcheck_fail(L, "%s.%s: %zu values; it must hold one per message class (%d)", p,
                              key, n, NV_FABRIC_CLASSES);
    for (size_t i = 0; i < n; i++) {
        char q[160];
        snprintf(q, sizeof q, "%s.%s[%zu]", p, key, i);
        if (nv_jcheck_number(L, json_object_array_get_idx(a, i), q, &out[i]))
            return -1;
        if (out[i] < lo || (lo_open && out[i] == lo) || out[i] > hi)
            return nv_jcheck_fail(L, "%s: value %g is outside %s%g, %g]", q, out[i],
                                  lo_open ? "(" : "[", lo, hi);
    }
    return 0;
}

static int fabric_point(nv_jcheck *L, json_object *o, const char *p, nv_fabric_point *pt)
{
    if (!json_object_is_type(o, json_type_object))
        return nv_jcheck_fail(L, "%s: expected an object, got %s", p, nv_jcheck_type_name(o));
    const char *id = nv_jcheck_string_member(L, o, "config", p);
    if (!id)
        return -1;
    if (!nv_model_key_valid(id) || strlen(id) >= sizeof pt->id) {
        char shown[64];
        return nv_jcheck_fail(L,
                              "%s.config: \"%s\" is not a configuration id (1-%d characters of "
                              "A-Z a-z 0-9 . _ + : / @ = -)",
                              p, nv_printable(id, shown, 40), NV_FABRIC_ID_MAX - 1);
    }
    snprintf(pt->id, sizeof pt->id, "%s", id);
    if (ranged(L, o, "utilization", p, 0, 0, 1, &pt->utilization) ||
        ranged(L, o, "wait_us", p, 0, 0, NV_WAIT_MAX_US, &pt->wait_us))
        return -1;
    return class_values(L, o, "growth", p, 0, 1, NV_FABRIC_MAX_GROWTH, pt->growth);
}

int nv_fabric_from_json(json_object *o, const char *path, nv_fabric *out, char *err, size_t errlen)
{
    nv_jcheck L = {err, errlen, 0};
    memset(out, 0, sizeof *out);
    if (err && errlen)
        err[0] = 0;
    const char *p = path && *path ? path : "fabric";
    if (!o || !json_object_is_type(o, json_type_object))
        return nv_jcheck_fail(&L, "%s: expected an object, got %s", p, nv_jcheck_type_name(o));
    const char *schema = nv_jcheck_string_member(&L, o, "schema", p);
    if (!schema)
        return -1;
    if (strcmp(schema, NV_FABRIC_FORMAT)) {
        char shown[64];
        return nv_jcheck_fail(&L, "%s.schema: \"%s\" is not \"%s\"", p,
                              nv_printable(schema, shown, 40), NV_FABRIC_FORMAT);
    }
    int64_t v, reps;
    if (nv_jcheck_integer_member(&L, o, "version", p, INT64_MIN, INT64_MAX, &v))
        return -1;
    if (v != NV_FABRIC_VERSION)
        return nv_jcheck_fail(&L, "%s.version: value %lld is not supported (this netvar reads %d)",
                              p, (long long)v, NV_FABRIC_VERSION);
    const char *gauge = nv_jcheck_string_member(&L, o, "wait_gauge", p);
    if (!gauge)
        return -1;
    int g = 0;
    while (g <= NV_WAIT_STALL_PER_FLIT && strcmp(gauge, nv_wait_gauge_name((nv_wait_gauge)g)))
        g++;
    if (g > NV_WAIT_STALL_PER_FLIT) {
        char shown[64];
        return nv_jcheck_fail(&L, "%s.wait_gauge: \"%s\" is not a wait gauge netvar knows", p,
                              nv_printable(gauge, shown, 40));
    }
    snprintf(out->wait_gauge, sizeof out->wait_gauge, "%s", nv_wait_gauge_name((nv_wait_gauge)g));
    if (ranged(&L, o, "idle_utilization", p, 0, 0, 1, &out->idle_utilization) ||
        nv_jcheck_integer_member(&L, o, "repetitions", p, 1, 1000000, &reps) ||
        ranged(&L, o, "elapsed_s", p, 0, 0, 1e9, &out->elapsed_s) ||
        class_values(&L, o, "idle_us", p, 0, 1, 1e9, out->idle_us))
        return -1;
    out->repetitions = (uint32_t)reps;
    json_object *pts = nv_jcheck_member(&L, o, "points", p, json_type_array);
    if (!pts)
        return -1;
    size_t n = json_object_array_length(pts);
    if (n == 0 || n > NV_FABRIC_MAX_POINTS)
        return nv_jcheck_fail(&L, "%s.points: %zu configurations; 1 to %d are read", p, n,
                              NV_FABRIC_MAX_POINTS);
    for (size_t i = 0; i < n; i++) {
        char q[128];
        snprintf(q, sizeof q, "%s.points[%zu]", p, i);
        if (fabric_point(&L, json_object_array_get_idx(pts, i), q, &out->points[i]))
            return -1;
        for (size_t j = 0; j < i; j++)
            if (!strcmp(out->points[j].id, out->points[i].id))
                return nv_jcheck_fail(&L, "%s.config: \"%s\" given twice (also points[%zu])", q,
                                      out->points[i].id, j);
    }
    out->n_points = n;
    return 0;
}

json_object *nv_fabric_to_json(const nv_fabric *f)
{
    json_object *o = json_object_new_object(), *pts = json_object_new_array();
    if (!o || !pts) {
        json_object_put(o);
        json_object_put(pts);
        return NULL;
    }
    json_object_object_add(o, "schema", json_object_new_string(NV_FABRIC_FORMAT));
    json_object_object_add(o, "version", json_object_new_int(NV_FABRIC_VERSION));
    json_object_object_add(o, "wait_gauge", json_object_new_string(f->wait_gauge));
    json_object_object_add(o, "idle_utilization", nv_json_new_num(f->idle_utilization));
    json_object_object_add(o, "repetitions", json_object_new_int64(f->repetitions));
    json_object_object_add(o, "elapsed_s", nv_json_new_num(f->elapsed_s));
    json_object_object_add(o, "idle_us", nv_json_new_num_array(f->idle_us, NV_FABRIC_CLASSES));
    for (size_t i = 0; i < f->n_points && i < NV_FABRIC_MAX_POINTS; i++) {
        const nv_fabric_point *pt = &f->points[i];
        json_object *e = json_object_new_object();
        json_object_object_add(e, "config", json_object_new_string(pt->id));
        json_object_object_add(e, "utilization", nv_json_new_num(pt->utilization));
        json_object_object_add(e, "wait_us", nv_json_new_num(pt->wait_us));
        json_object_object_add(e, "growth", nv_json_new_num_array(pt->growth, NV_FABRIC_CLASSES));
        json_object_array_add(pts, e);
    }
    json_object_object_add(o, "points", pts);
    return o;
}

int nv_fabric_check(const nv_fabric *f, char *err, size_t errlen)
{
    json_object *o = nv_fabric_to_json(f);
    if (!o)
        return nv_err(err, errlen, "fabric: out of memory");
    nv_fabric *back = malloc(sizeof *back);
    int rc = back ? nv_fabric_from_json(o, "fabric", back, err, errlen)
                  : nv_err(err, errlen, "fabric: out of memory");
    free(back);
    json_object_put(o);
    return rc;
}

int nv_fabric_load(const char *path, nv_fabric *out, char *err, size_t errlen)
{
    char why[300];
    json_object *o = nv_json_read_file(path, NV_FABRIC_MAX_BYTES, why, sizeof why);
    if (!o) {
        memset(out, 0, sizeof *out);
        return nv_err(err, errlen, "%s: %s", path, why);
    }
    int rc = nv_fabric_from_json(o, path, out, err, errlen);
    json_object_put(o);
    return rc;
}

int nv_fabric_save(const nv_fabric *f, const char *path, char *err, size_t errlen)
{
    char why[300];
    if (nv_fabric_check(f, why, sizeof why))
        return nv_err(err, errlen, "%s not written: %s", path, why);
    json_object *o = nv_fabric_to_json(f);
    if (!o)
        return nv_err(err, errlen, "%s not written: out of memory", path);
    int rc = nv_json_write_file(path, o, 0644, (gid_t)-1, err, errlen);
    json_object_put(o);
    return rc;
}

int nv_signature_from_json(json_object *o, const char *path, nv_signature *out, char *err,
                           size_t errlen)
{
    nv_jcheck L = {err, errlen, 0};
    memset(out, 0, sizeof *out);
    const char *p = path && *path ? path : "signature";
    if (!o || !json_object_is_type(o, json_type_object))
        return nv_jcheck_fail(&L, "%s: expected an object, got %s", p, nv_jcheck_type_name(o));
    int64_t runs;
    if (nv_jcheck_integer_member(&L, o, "runs", p, 1, UINT32_MAX, &runs) ||
        ranged(&L, o, "runtime_us", p, 0, 1, 1e15, &out->runtime_us) ||
        class_values(&L, o, "comm_us", p, 0, 0, 1e15, out->comm_us) ||
        ranged(&L, o, "overlap_us", p, 0, 0, 1e15, &out->overlap_us))
        return -1;
    out->runs = (uint32_t)runs;
    double sum = 0;
    for (int c = 0; c < NV_FABRIC_CLASSES; c++)
        sum += out->comm_us[c];
    /* the per-class times are means over ranks: allow rounding, not more */
    if (sum > out->runtime_us * (1 + 1e-9))
        return nv_jcheck_fail(&L, "%s.comm_us: %g us in MPI is more than the run's %g us", p, sum,
                              out->runtime_us);
    if (out->overlap_us > out->runtime_us - sum + out->runtime_us * 1e-9)
        return nv_jcheck_fail(&L, "%s.overlap_us: %g us is more than the %g us outside MPI", p,
                              out->overlap_us, out->runtime_us - sum);
    return 0;
}

json_object *nv_signature_to_json(const nv_signature *s)
{
    json_object *o = json_object_new_object();
    if (!o)
        return NULL;
    json_object_object_add(o, "runs", json_object_new_int64(s->runs));
    json_object_object_add(o, "runtime_us", nv_json_new_num(s->runtime_us));
    json_object_object_add(o, "comm_us", nv_json_new_num_array(s->comm_us, NV_FABRIC_CLASSES));
    json_object_object_add(o, "overlap_us", nv_json_new_num(s->overlap_us));
    return o;
}

/* The share of a unit port that a sender offering v keeps beside one
 * offering n, both over the idle port's U: max-min fair, so each keeps its
 * demand until the port is full, and two that each want more than half keep
 * half.  Continuous at v + n = 1. */
static double kept_share(double v, double n)
{
    if (v + n <= 1)
        return v;
    double fair = 1 - n > 0.5 ? 1 - n : 0.5;
    return v < fair ? v : fair;
}

size_t nv_fabric_compose(const nv_fabric *f, const nv_signature *s, double own_u,
                         nv_curve_point *u_pts, nv_curve_point *w_pts)
{
    double mpi = 0;
    for (int c = 0; c < NV_FABRIC_CLASSES; c++)
        mpi += s->comm_us[c];
    /* the victim's own bytes on the port: the time they hold it alone,
     * at most its time in MPI */
    double v = 0, busy = 0;
    if (isfinite(own_u) && own_u > f->idle_utilization) {
        v = own_u - f->idle_utilization;
        if (v > 1)
            v = 1;
        busy = v * s->runtime_us < mpi ? v * s->runtime_us : mpi;
    }
    /* the part of its MPI time that met its own queue alone: its bytes'
     * time, b / M, as far as they made that queue, v */
    double met = mpi > 0 ? v * busy / mpi : 0;
    for (size_t k = 0; k < f->n_points; k++) {
        const nv_fabric_point *pt = &f->points[k];
        double kernels = 0;
        for (int c = 0; c < NV_FABRIC_CLASSES; c++)
            kernels += s->comm_us[c] * (pt->growth[c] - 1);
        double extra = (1 - met) * kernels;
        if (busy > 0) {
            double n = pt->utilization - f->idle_utilization;
            n = n < 0 ? 0 : n > 1 ? 1 : n;
            extra += busy * (v / kept_share(v, n) - 1);
        }
        double pct = 100 * extra / s->runtime_us;
        if (pct < -100)
            pct = -100;
        u_pts[k] = (nv_curve_point){pt->utilization, pct, 1};
        w_pts[k] = (nv_curve_point){pt->wait_us, pct, 1};
    }
    return f->n_points;
}
