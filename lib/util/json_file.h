/* json_file.h - reads one JSON document from a file, bounded: the one
 * reader behind job records, node records and training input.  A file that
 * is missing, not regular, empty, larger than the bound, truncated, or has
 * anything after its JSON gets one line in err. */
#ifndef NETVAR_JSON_FILE_H
#define NETVAR_JSON_FILE_H

#include <json-c/json.h>
#include <stddef.h>

/* Returns the parsed object (caller owns it) or NULL with err set. */
json_object *nv_json_read_file(const char *path, size_t max_bytes, char *err, size_t errlen);

#endif
