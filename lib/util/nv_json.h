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

/* Writers.  nv_json_new_num: d written exactly; nv_json_new_num_g: d
 * rounded to `digits` significant digits (for reports people read).  Both
 * return NULL, which json-c writes as null, when d is not finite. */
json_object *nv_json_new_num(double d);
json_object *nv_json_new_num_g(double d, int digits);

/* An array of n doubles written exactly (non-finite entries as null). */
json_object *nv_json_new_num_array(const double *v, size_t n);

#endif
