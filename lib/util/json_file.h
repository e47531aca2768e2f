/* json_file.h - reads one JSON document from a file, bounded: the one
 * reader behind job records, node records and training input.  A file that
 * is missing, not regular, empty, larger than the bound, truncated, or has
 * anything after its JSON gets one line in err.  And the one writer of a
 * JSON file: pretty, atomic, with the mode and group asked for. */
#ifndef NETVAR_JSON_FILE_H
#define NETVAR_JSON_FILE_H

#include <json-c/json.h>
#include <stddef.h>
#include <sys/types.h>

/* Reads the whole regular file path, at most max_bytes of it, into a new
 * buffer (caller frees) with a '\0' after its *len bytes; an empty file is
 * a buffer of length 0.  NULL with one line in err (without the path):
 * cannot open, not a regular file, larger than max_bytes, a read error, out
 * of memory.  For a path the admin named (the model file): a symbolic link
 * is followed; a FIFO still cannot block (safe_open.h). */
char *nv_read_file(const char *path, size_t max_bytes, size_t *len, char *err, size_t errlen);

/* Returns the parsed object (caller owns it) or NULL with err set.  The
 * file is opened as an untrusted one (safe_open.h): a symbolic link, FIFO,
 * device or directory is refused without blocking. */
json_object *nv_json_read_file(const char *path, size_t max_bytes, char *err, size_t errlen);

/* The same, and the file must belong to owner (NV_ANY_OWNER: anyone). */
json_object *nv_json_read_owned(const char *path, uid_t owner, size_t max_bytes, char *err,
                                size_t errlen);

/* Writes o as pretty JSON (slashes not escaped) to path atomically
 * (atomic_file.h) with mode and group gid ((gid_t)-1: as created).
 * Returns 0, or -1 with one line in err. */
int nv_json_write_file(const char *path, json_object *o, mode_t mode, gid_t gid, char *err,
                       size_t errlen);

#endif
