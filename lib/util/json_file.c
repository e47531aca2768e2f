/* json_file.c - bounded JSON file reader and atomic writer (json_file.h). */
#include "json_file.h"

#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *nv_read_file(const char *path, size_t max_bytes, size_t *len, char *err, size_t errlen)
{
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        close(fd);
        snprintf(err, errlen, "not a regular file");
        return NULL;
    }
    if ((unsigned long long)st.st_size > max_bytes) {
        close(fd);
        snprintf(err, errlen, "%lld bytes is more than the %zu-byte limit", (long long)st.st_size,
                 max_bytes);
        return NULL;
    }
    size_t size = (size_t)st.st_size, got = 0;
    char *buf = malloc(size + 1);
    if (!buf) {
        close(fd);
        snprintf(err, errlen, "out of memory reading %zu bytes", size);
        return NULL;
    }
    while (got < size) {
        ssize_t r = read(fd, buf + got, size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            snprintf(err, errlen, "read failed: %s", strerror(errno));
            close(fd);
            free(buf);
            return NULL;
        }
        if (r == 0)
            break; /* shorter than it was: what is there */
        got += (size_t)r;
    }
    close(fd);
    buf[got] = '\0';
    *len = got;
    return buf;
}

json_object *nv_json_read_file(const char *path, size_t max_bytes, char *err, size_t errlen)
{
    size_t got;
    char *buf = nv_read_file(path, max_bytes, &got, err, errlen);
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
        while (used < got && (buf[used] == ' ' || buf[used] == '\n' || buf[used] == '\t' ||
                              buf[used] == '\r'))
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
