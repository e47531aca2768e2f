/* atomic_file.c - temp + fsync + rename file writes (atomic_file.h). */
#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
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

int nv_atomic_begin(nv_atomic_out *o, const char *path, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    if (!path || !*path) {
        snprintf(err, errlen, "no file path given; nothing written");
        return -1;
    }
    size_t plen = strlen(path);
    if (plen > 4000) {
        snprintf(err, errlen, "file path is %zu bytes long; nothing written", plen);
        return -1;
    }
    snprintf(o->path, sizeof o->path, "%s", path);
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        o->fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
        int fl = o->fd >= 0 ? fcntl(o->fd, F_GETFL) : -1;
        if (fl < 0 || fcntl(o->fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
            snprintf(err, errlen,
                     "%s: not a regular file, and cannot be opened for writing: %s; "
                     "nothing written",
                     path, strerror(errno));
            if (o->fd >= 0)
                close(o->fd);
            o->fd = -1;
            return -1;
        }
        o->direct = 1;
        return 0;
    }
    /* same directory as the target so that rename() cannot cross devices */
    const char *slash = strrchr(path, '/');
    if (slash)
        snprintf(o->tmp, sizeof o->tmp, "%.*s.%s.tmp.XXXXXX", (int)(slash - path + 1), path,
                 slash + 1);
    else
        snprintf(o->tmp, sizeof o->tmp, ".%s.tmp.XXXXXX", path);
    o->fd = mkstemp(o->tmp);
    if (o->fd < 0) {
        snprintf(err, errlen, "%s: cannot create a temp file beside it: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int nv_atomic_write(nv_atomic_out *o, const void *data, size_t len)
{
    const char *p = data;
    while (!o->err_no && len) {
        ssize_t w = write(o->fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            o->err_no = w < 0 ? errno : EIO;
            break;
        }
        p += w;
        len -= (size_t)w;
    }
    return o->err_no ? -1 : 0;
}

void nv_atomic_abort(nv_atomic_out *o)
{
    if (o->fd >= 0) {
        close(o->fd);
        if (!o->direct)
            unlink(o->tmp);
    }
    o->fd = -1;
}

int nv_atomic_commit(nv_atomic_out *o, mode_t mode, gid_t gid, char *err, size_t errlen)
{
    if (o->err_no) {
        snprintf(err, errlen, "%s: write failed: %s; old file kept", o->path, strerror(o->err_no));
        goto fail;
    }
    if (o->direct) {
        int fd = o->fd;
        o->fd = -1;
        if (close(fd)) {
            snprintf(err, errlen, "%s: close failed: %s", o->path, strerror(errno));
            return -1;
        }
        return 0;
    }
    if (gid != (gid_t)-1 && fchown(o->fd, (uid_t)-1, gid)) {
        snprintf(err, errlen, "%s: cannot set the group of the temp file: %s; old file kept",
                 o->path, strerror(errno));
        goto fail;
    }
    if (fchmod(o->fd, mode) || fsync(o->fd)) {
        snprintf(err, errlen, "%s: cannot finish the temp file: %s; old file kept", o->path,
                 strerror(errno));
        goto fail;
    }
    int fd = o->fd;
    o->fd = -1;
    if (close(fd)) {
        snprintf(err, errlen, "%s: close failed: %s; old file kept", o->path, strerror(errno));
        unlink(o->tmp);
        return -1;
    }
    if (rename(o->tmp, o->path)) {
        snprintf(err, errlen, "%s: rename failed: %s; old file kept", o->path, strerror(errno));
        unlink(o->tmp);
        return -1;
    }
    return 0;
fail:
    nv_atomic_abort(o);
    return -1;
}

int nv_write_file_atomic_gid(const char *path, const void *data, size_t len, mode_t mode, gid_t gid,
                             char *err, size_t errlen)
{
    if (!data && len) {
        snprintf(err, errlen, "no file path given; nothing written");
        return -1;
    }
    nv_atomic_out o;
    if (nv_atomic_begin(&o, path, err, errlen))
        return -1;
    nv_atomic_write(&o, data, len);
    return nv_atomic_commit(&o, mode, gid, err, errlen);
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
