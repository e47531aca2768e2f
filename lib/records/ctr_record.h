/* ctr_record.h - counter snapshots and deltas as JSON (json-c), the one
 * serialization used by the SPANK plugin's node records and start files
 * and by `netvar collect`.  Parsing validates every field and bounds every
 * count; errors are one line naming the field. */
#ifndef NETVAR_CTR_RECORD_H
#define NETVAR_CTR_RECORD_H

#include <json-c/json.h>
#include <stddef.h>

#include "counters.h"

/* New json objects (caller owns the reference), or NULL on allocation failure. */
json_object *nv_ctr_snapshot_to_json(const nv_ctr_snapshot *s);
json_object *nv_ctr_delta_to_json(const nv_ctr_delta *d);

/* Fill *out from o; 0 on success, -1 with one line in err. */
int nv_ctr_snapshot_from_json(json_object *o, nv_ctr_snapshot *out, char *err, size_t errlen);
int nv_ctr_delta_from_json(json_object *o, nv_ctr_delta *out, char *err, size_t errlen);

/* The static string equal to s among the known units and port kinds, or
 * "unknown" (so parsed records never point into freed JSON). */
const char *nv_ctr_intern(const char *s);

#endif
