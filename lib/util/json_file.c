/* json_file.c - bounded JSON file reader and atomic writer (json_file.h). */
#include "json_file.h"

#include "atomic_file.h"
#include "safe_open.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *nv_read_file(const char *path, size_t max_bytes, size_t *len, char *err, size_t errlen)
{
    return nv_read_admin_file(path, max_bytes, false, len, err, errlen);
}

json_object *nv_json_read_file(const char *path, size_t max_bytes, char *err, size_t errlen)
{
    return nv_json_read_owned(path, NV_ANY_OWNER, max_bytes, err, errlen);
}

json_object *nv_json_read_owned(const char *path, uid_t owner, size_t max_bytes, char *err,
                                size_t errlen)
{
    size_t got;
    char *buf = nv_read_untrusted(path, owner, max_bytes, 0, &got, err, errlen);
    if (!buf)
        return NULL;
    if (got == 0) {
        free(buf);
        snprintf(err, errlen, "empty file");
        return NULL;
    }
    json_tokener *tok = json_tokener_new();
    json_object *o = tok ? json_tokener_parse_ex(tok, buf, (int)got) : NULL;
    enum json_tokener_error je = tok ? json_tokener_get_error(tok) : json_tokener_error_depth;
    size_t used = tok ? (size_t)json_tokener_get_parse_end(tok) : 0;
    if (o && je == json_tokener_success) {
        while (used < got &&
               (buf[used] == ' ' || buf[used] == '\n' || buf[used] == '\t' || buf[used] == '\r'))
            used++;
        if (used < got) { /* a complete document followed by more text */
            json_object_put(o);
            o = NULL;
            je = json_tokener_error_parse_unexpected;
        }
    }
    if (tok)
        json_tokener_free(tok);
    free(buf);
    if (!o)
        snprintf(err, errlen, "not valid JSON (%s)",
                 je == json_tokener_continue || je == json_tokener_success
                     ? "truncated"
                     : json_tokener_error_desc(je));
    return o;
}

int nv_json_write_file(const char *path, json_object *o, mode_t mode, gid_t gid, char *err,
                       size_t errlen)
{
    size_t len = 0;
    const char *text = json_object_to_json_string_length(
        o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
    if (!text) {
        snprintf(err, errlen, "%s: out of memory formatting JSON", path ? path : "?");
        return -1;
    }
    return nv_write_file_atomic_gid(path, text, len, mode, gid, err, errlen);
}
