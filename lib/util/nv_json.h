/* nv_json.h - the one set of JSON getters and number writers netvar uses.
 *
 * Getters never allocate and never trust the input: a key that is absent,
 * null, of another type, or (for numbers) not finite is reported, never
 * guessed.  Numbers may be written as JSON integers or doubles.
 *
 * Number writers: every finite value is written exactly (shortest of %.15g
 * and %.17g that reads back to the same double); a non-finite value is
 * written as JSON null by nv_json_num(), because JSON has no NaN. */
#ifndef NETVAR_NV_JSON_H
#define NETVAR_NV_JSON_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The member `key` of object o when it has type t, else NULL (o may be NULL). */
json_object *nv_json_get(json_object *o, const char *key, json_type t);

/* The string member, or NULL when absent or not a string. */
const char *nv_json_str(json_object *o, const char *key);

/* Copies the string member into dst[cap] (always terminated; "" when absent
 * or not a string).  Returns 0 when copied whole, 1 when cut to fit, -1 when
 * absent or not a string. */
int nv_json_str_copy(json_object *o, const char *key, char *dst, size_t cap);

/* The number member, or NAN when absent, null, not a number or not finite. */
double nv_json_num(json_object *o, const char *key);

/* The number member, or dflt when absent, null, not a number or not finite. */
double nv_json_num_or(json_object *o, const char *key, double dflt);

/* Strict form: 1 and *out = the value; 0 when absent or null (*out = NAN);
 * -1 when present but not a finite number (*out = NAN). */
int nv_json_num_strict(json_object *o, const char *key, double *out);

/* A whole number >= 0 (JSON integer): 0 and *out, or -1 (absent, other type,
 * negative). */
int nv_json_u64(json_object *o, const char *key, uint64_t *out);

/* true when o is an object whose "schema" member is the string `schema`. */
bool nv_json_schema_is(json_object *o, const char *schema);

/* 0 when o is an object whose "schema" is `schema` and whose "version" is
 * absent (written by hand, or before there were versions) or an integer
 * from 1 to `version`; -1 with one line in err otherwise ("schema is not
 * netvar-x", "version 2 is newer than this netvar reads (1)"). */
int nv_json_schema_check(json_object *o, const char *schema, int version, char *err, size_t errlen);

/* Writers.  nv_json_new_num: d written exactly; nv_json_new_num_g: d
 * rounded to `digits` significant digits (for reports people read).  Both
 * return NULL, which json-c writes as null, when d is not finite. */
json_object *nv_json_new_num(double d);
json_object *nv_json_new_num_g(double d, int digits);

/* As nv_json_new_num, but a non-finite d is kept (json-c writes NaN,
 * Infinity): for a document that a validating reader checks before it is
 * written anywhere (the model builder), so that the reader names the field
 * ("...: value NaN is not a finite number") instead of finding a null. */
json_object *nv_json_new_num_or_nan(double d);

/* An array of n doubles written exactly (non-finite entries as null). */
json_object *nv_json_new_num_array(const double *v, size_t n);

/* ---- Validating reader, for files that must be right or be refused (the
 * model file and its variability section).  Each call checks one value;
 * at the first problem it writes one line into c->err naming the value's
 * path, the rule and the value ("apps[0].latency.mean_us: expected a
 * number, got string \"fast\""), and from then on every call fails at
 * once, so a parser may run on and look at c->failed at the end.  `path`
 * is the parent's path ("" at the top); a member's path is "path.key". */
typedef struct nv_jcheck {
    char *err; /* may be NULL */
    size_t errlen;
    int failed;
} nv_jcheck;

/* Records the first problem (later ones are dropped: the first is the
 * cause) and returns -1. */
int nv_jcheck_fail(nv_jcheck *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The member when present and of type `want`; json_type_double stands for
 * any number, json_type_int for an integer.  NULL after a failure
 * ("missing required field", or "expected a number, got string \"x\""). */
json_object *nv_jcheck_member(nv_jcheck *c, json_object *obj, const char *key, const char *path,
                              json_type want);

/* v, named `path`, as a finite number / an integer in [min, max]. */
int nv_jcheck_number(nv_jcheck *c, json_object *v, const char *path, double *out);
int nv_jcheck_integer(nv_jcheck *c, json_object *v, const char *path, int64_t min, int64_t max,
                      int64_t *out);
/* The same for a required member, and a required string member. */
const char *nv_jcheck_string_member(nv_jcheck *c, json_object *obj, const char *key,
                                    const char *path);
int nv_jcheck_number_member(nv_jcheck *c, json_object *obj, const char *key, const char *path,
                            double *out);
int nv_jcheck_integer_member(nv_jcheck *c, json_object *obj, const char *key, const char *path,
                             int64_t min, int64_t max, int64_t *out);

/* For error lines: "null", "boolean", "number", "object", "array",
 * "string"; and a short printable rendering of a value (one line, at most
 * 40 characters of it). */
const char *nv_jcheck_type_name(json_object *v);
void nv_jcheck_show(json_object *v, char *buf, size_t n);

#endif
