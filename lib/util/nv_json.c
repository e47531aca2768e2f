/* nv_json.c - the one set of JSON getters and number writers (nv_json.h). */
#include "nv_json.h"

#include <math.h>
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

json_object *nv_json_new_num(double d)
{
    if (!isfinite(d))
        return NULL;
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
