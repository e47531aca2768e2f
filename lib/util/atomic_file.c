/* atomic_file.c - temp + fsync + rename file writes (atomic_file.h). */
#include "atomic_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int nv_write_file_atomic(const char *path, const void *data, size_t len, mode_t mode, char *err,
                         size_t errlen)
{
    return nv_write_file_atomic_gid(path, data, len, mode, (gid_t)-1, err, errlen);
}

int nv_write_file_atomic_gid(const char *path, const void *data, size_t len, mode_t mode,
                             gid_t gid, char *err, size_t errlen)
{
    if (!path || !*path || (!data && len)) {
        snprintf(err, errlen, "no file path given; nothing written");
        return -1;
    }
    size_t plen = strlen(path);
    if (plen > 4000) {
        snprintf(err, errlen, "file path is %zu bytes long; nothing written", plen);
        return -1;
    }
    /* same directory as the target so that rename() cannot cross devices */
    char tmp[4096 + 32];
    const char *slash = strrchr(path, '/');
    if (slash)
        snprintf(tmp, sizeof tmp, "%.*s.%s.tmp.XXXXXX", (int)(slash - path + 1), path, slash + 1);
    else
        snprintf(tmp, sizeof tmp, ".%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot create a temp file beside it: %s", path, strerror(errno));
        return -1;
    }
    const char *p = data;
    size_t left = len;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            snprintf(err, errlen, "%s: write failed: %s; old file kept", path,
                     w < 0 ? strerror(errno) : "no progress");
            goto fail;
        }
        p += w;
        left -= (size_t)w;
    }
    if (gid != (gid_t)-1 && fchown(fd, (uid_t)-1, gid)) {
        snprintf(err, errlen, "%s: cannot set the group of the temp file: %s; old file kept", path,
                 strerror(errno));
        goto fail;
    }
    if (fchmod(fd, mode) || fsync(fd)) {
        snprintf(err, errlen, "%s: cannot finish the temp file: %s; old file kept", path,
                 strerror(errno));
        goto fail;
    }
    if (close(fd)) {
        fd = -1;
        snprintf(err, errlen, "%s: close failed: %s; old file kept", path, strerror(errno));
        goto fail;
    }
    fd = -1;
    if (rename(tmp, path)) {
        snprintf(err, errlen, "%s: rename failed: %s; old file kept", path, strerror(errno));
        goto fail;
    }
    return 0;
fail:
    if (fd >= 0)
        close(fd);
    unlink(tmp);
    return -1;
}

int nv_make_dir(const char *path, mode_t mode, char *err, size_t errlen)
{
    if (mkdir(path, mode) == 0 || errno == EEXIST) {
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
            return 0;
    }
    snprintf(err, errlen, "cannot create directory %s: %s", path, strerror(errno));
    return -1;
}
