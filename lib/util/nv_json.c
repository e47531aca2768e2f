/* nv_json.c - the one set of JSON getters and number writers (nv_json.h). */
#include "nv_json.h"

#include "nv_err.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_object *nv_json_get(json_object *o, const char *key, json_type t)
{
    json_object *v = NULL;
    if (!o || !key || !json_object_is_type(o, json_type_object) ||
        !json_object_object_get_ex(o, key, &v) || !v || !json_object_is_type(v, t))
        return NULL;
    return v;
}

const char *nv_json_str(json_object *o, const char *key)
{
    json_object *v = nv_json_get(o, key, json_type_string);
    return v ? json_object_get_string(v) : NULL;
}

int nv_json_str_copy(json_object *o, const char *key, char *dst, size_t cap)
{
    const char *s = nv_json_str(o, key);
    if (dst && cap)
        dst[0] = '\0';
    if (!s)
        return -1;
    size_t n = strlen(s);
    if (!dst || !cap)
        return n ? 1 : 0;
    size_t k = n < cap ? n : cap - 1;
    memcpy(dst, s, k);
    dst[k] = '\0';
    return n < cap ? 0 : 1;
}

int nv_json_num_strict(json_object *o, const char *key, double *out)
{
    json_object *v = NULL;
    *out = NAN;
    if (!o || !key || !json_object_is_type(o, json_type_object) ||
        !json_object_object_get_ex(o, key, &v) || !v)
        return 0;
    if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
        return -1;
    double d = json_object_get_double(v);
    if (!isfinite(d))
        return -1;
    *out = d;
    return 1;
}

double nv_json_num(json_object *o, const char *key)
{
    double d;
    return nv_json_num_strict(o, key, &d) == 1 ? d : NAN;
}

double nv_json_num_or(json_object *o, const char *key, double dflt)
{
    double d;
    return nv_json_num_strict(o, key, &d) == 1 ? d : dflt;
}

int nv_json_u64(json_object *o, const char *key, uint64_t *out)
{
    json_object *v = nv_json_get(o, key, json_type_int);
    if (!v)
        return -1;
    /* json-c keeps integers as int64 or uint64; a negative one is refused */
    if (json_object_get_int64(v) < 0 && json_object_get_uint64(v) == 0)
        return -1;
    *out = json_object_get_uint64(v);
    return 0;
}

bool nv_json_schema_is(json_object *o, const char *schema)
{
    const char *s = nv_json_str(o, "schema");
    return s && schema && !strcmp(s, schema);
}

int nv_json_schema_check(json_object *o, const char *schema, int version, char *err, size_t errlen)
{
    if (!o || !json_object_is_type(o, json_type_object))
        return nv_err(err, errlen, "not a JSON object");
    if (!nv_json_schema_is(o, schema))
        return nv_err(err, errlen, "schema is not %s", schema ? schema : "?");
    json_object *v = NULL;
    if (!json_object_object_get_ex(o, "version", &v) || !v)
        return 0;
    int64_t n = json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : 0;
    if (n < 1)
        return nv_err(err, errlen, "version is not a whole number >= 1");
    if (n > version)
        return nv_err(err, errlen, "version %lld is newer than this netvar reads (%d)",
                      (long long)n, version);
    return 0;
}

json_object *nv_json_new_num(double d)
{
    return isfinite(d) ? nv_json_new_num_or_nan(d) : NULL;
}

json_object *nv_json_new_num_or_nan(double d)
{
    if (!isfinite(d))
        return json_object_new_double(d);
    char buf[40];
    snprintf(buf, sizeof buf, "%.15g", d);
    if (strtod(buf, NULL) != d)
        snprintf(buf, sizeof buf, "%.17g", d);
    return json_object_new_double_s(d, buf);
}

json_object *nv_json_new_num_g(double d, int digits)
{
    if (!isfinite(d))
        return NULL;
    if (digits < 1 || digits > 17)
        digits = 17;
    char buf[40];
    snprintf(buf, sizeof buf, "%.*g", digits, d);
    return json_object_new_double_s(strtod(buf, NULL), buf);
}

json_object *nv_json_new_num_array(const double *v, size_t n)
{
    json_object *a = json_object_new_array_ext(n > 0 && n < (size_t)1 << 30 ? (int)n : 0);
    for (size_t i = 0; a && i < n; i++)
        if (json_object_array_add(a, nv_json_new_num(v[i])) != 0) {
            json_object_put(a);
            return NULL;
        }
    return a;
}

/* ---- validating reader ---- */

int nv_jcheck_fail(nv_jcheck *c, const char *fmt, ...)
{
    if (c->failed)
        return -1; /* keep the first problem: it is the cause */
    c->failed = 1;
    va_list ap;
    va_start(ap, fmt);
    nv_verr(c->err, c->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

const char *nv_jcheck_type_name(json_object *v)
{
    switch (json_object_get_type(v)) {
    case json_type_null: return "null";
    case json_type_boolean: return "boolean";
    case json_type_double:
    case json_type_int: return "number";
    case json_type_object: return "object";
    case json_type_array: return "array";
    case json_type_string: return "string";
    }
    return "value";
}

void nv_jcheck_show(json_object *v, char *buf, size_t n)
{
    if (!n)
        return;
    buf[0] = '\0';
    if (!v)
        return; /* the type name, null, says it all */
    if (json_object_is_type(v, json_type_object)) {
        snprintf(buf, n, "{...}");
        return;
    }
    if (json_object_is_type(v, json_type_array)) {
        snprintf(buf, n, "[...]");
        return;
    }
    if (json_object_is_type(v, json_type_double)) {
        double d = json_object_get_double(v);
        if (!isfinite(d)) {
            snprintf(buf, n, "%s", isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity");
            return;
        }
    }
    const char *s = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
    if (strlen(s) > 40)
        snprintf(buf, n, "%.37s...", s);
    else
        snprintf(buf, n, "%s", s);
    /* keep the error to one line whatever the value holds */
    for (char *p = buf; *p; p++)
        if ((unsigned char)*p < 0x20)
            *p = '?';
}

static int is_number(json_object *v)
{
    return json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int);
}

static int wrong_type(nv_jcheck *c, json_object *v, const char *path, const char *dot,
                      const char *key, const char *wanted)
{
    char shown[64];
    nv_jcheck_show(v, shown, sizeof shown);
    return nv_jcheck_fail(c, "%s%s%s: expected %s, got %s%s%s", path, dot, key, wanted,
                          nv_jcheck_type_name(v), shown[0] ? " " : "", shown);
}

json_object *nv_jcheck_member(nv_jcheck *c, json_object *obj, const char *key, const char *path,
                              json_type want)
{
    json_object *v = NULL;
    const char *dot = *path ? "." : "";
    if (c->failed)
        return NULL;
    if (!json_object_object_get_ex(obj, key, &v) || !v) {
        nv_jcheck_fail(c, "%s%s%s: missing required field", path, dot, key);
        return NULL;
    }
    /* the kinds checked by type; any other is a number (int or double) */
    static const struct {
        json_type type;
        const char *name;
    } kinds[] = {{json_type_object, "an object"},
                 {json_type_array, "an array"},
                 {json_type_string, "a string"},
                 {json_type_boolean, "true or false"},
                 {json_type_int, "an integer"}};
    const char *wanted = "a number";
    int ok = -1;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (kinds[i].type == want) {
            wanted = kinds[i].name;
            ok = json_object_is_type(v, want);
        }
    if (ok < 0)
        ok = is_number(v);
    if (!ok) {
        wrong_type(c, v, path, dot, key, wanted);
        return NULL;
    }
    return v;
}

int nv_jcheck_number(nv_jcheck *c, json_object *v, const char *path, double *out)
{
    if (c->failed)
        return -1;
    if (!is_number(v))
        return wrong_type(c, v, path, "", "", "a number");
    double d = json_object_get_double(v);
    if (!isfinite(d))
        return nv_jcheck_fail(c, "%s: value %s is not a finite number", path,
                              isnan(d) ? "NaN"
                              : d > 0  ? "Infinity"
                                       : "-Infinity");
    *out = d;
    return 0;
}

int nv_jcheck_integer(nv_jcheck *c, json_object *v, const char *path, int64_t min, int64_t max,
                      int64_t *out)
{
    if (c->failed)
        return -1;
    if (!json_object_is_type(v, json_type_int))
        return wrong_type(c, v, path, "", "", "an integer");
    int64_t i = json_object_get_int64(v);
    if (i < 0 && min >= 0)
        return nv_jcheck_fail(c, "%s: value %lld is negative; it must be >= %lld", path,
                              (long long)i, (long long)min);
    if (i < min || i > max)
        return nv_jcheck_fail(c, "%s: value %lld is outside [%lld, %lld]", path, (long long)i,
                              (long long)min, (long long)max);
    *out = i;
    return 0;
}

/* "path.key" for a member's error lines; a cut path still names its start */
static void member_path(char *dst, size_t n, const char *path, const char *key)
{
    if (snprintf(dst, n, "%s%s%s", path, *path ? "." : "", key) >= (int)n)
        dst[n - 1] = '\0';
}

const char *nv_jcheck_string_member(nv_jcheck *c, json_object *obj, const char *key,
                                    const char *path)
{
    json_object *v = nv_jcheck_member(c, obj, key, path, json_type_string);
    return v ? json_object_get_string(v) : NULL;
}

int nv_jcheck_number_member(nv_jcheck *c, json_object *obj, const char *key, const char *path,
                            double *out)
{
    char p[256];
    json_object *v = nv_jcheck_member(c, obj, key, path, json_type_double);
    if (!v)
        return -1;
    member_path(p, sizeof p, path, key);
    return nv_jcheck_number(c, v, p, out);
}

int nv_jcheck_integer_member(nv_jcheck *c, json_object *obj, const char *key, const char *path,
                             int64_t min, int64_t max, int64_t *out)
{
    char p[256];
    json_object *v = nv_jcheck_member(c, obj, key, path, json_type_int);
    if (!v)
        return -1;
    member_path(p, sizeof p, path, key);
    return nv_jcheck_integer(c, v, p, min, max, out);
}
