/* safe_open.c - opening and reading files that others may have placed
 * (safe_open.h). */
#include "safe_open.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nv_err.h"

static const char *kind_of(mode_t m)
{
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISCHR(m) || S_ISBLK(m))
        return "a device";
    if (S_ISSOCK(m))
        return "a socket";
    if (S_ISLNK(m))
        return "a symbolic link";
    return "not a regular file";
}

int nv_open_untrusted(const char *path, uid_t owner, size_t max_bytes, int flags, struct stat *st,
                      char *err, size_t errlen)
{
    struct stat sb;
    if (!st)
        st = &sb;
    int oflags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
    if (!(flags & NV_OPEN_FOLLOW))
        oflags |= O_NOFOLLOW;
    int fd = path ? open(path, oflags) : -1;
    if (fd < 0) {
        if (path && errno == ELOOP && !(flags & NV_OPEN_FOLLOW))
            return nv_err(err, errlen, "a symbolic link; not followed");
        return nv_err(err, errlen, "cannot open: %s", path ? strerror(errno) : "no path");
    }
    const char *bad = NULL;
    if (fstat(fd, st) != 0)
        bad = "cannot stat";
    else if (!S_ISREG(st->st_mode))
        bad = kind_of(st->st_mode);
    if (bad) {
        close(fd);
        return nv_err(err, errlen, "%s; not read", bad);
    }
    if (owner != NV_ANY_OWNER && st->st_uid != owner) {
        close(fd);
        return nv_err(err, errlen, "owned by uid %lu, not by uid %lu; not read",
                      (unsigned long)st->st_uid, (unsigned long)owner);
    }
    if ((unsigned long long)st->st_size > max_bytes) {
        close(fd);
        return nv_err(err, errlen, "%lld bytes is more than the %zu-byte limit",
                      (long long)st->st_size, max_bytes);
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

char *nv_read_untrusted(const char *path, uid_t owner, size_t max_bytes, int flags, size_t *len,
                        char *err, size_t errlen)
{
    struct stat st;
    *len = 0;
    int fd = nv_open_untrusted(path, owner, max_bytes, flags, &st, err, errlen);
    if (fd < 0)
        return NULL;
    /* what fstat said, plus one byte to notice growth; never past the cap */
    size_t size = (size_t)st.st_size, cap = size < max_bytes ? size + 1 : max_bytes + 1, got = 0;
    char *buf = malloc(cap + 1);
    if (!buf) {
        close(fd);
        nv_err(err, errlen, "out of memory reading %zu bytes", size);
        return NULL;
    }
    for (;;) {
        if (got == cap) {
            if (cap > max_bytes) {
                close(fd);
                free(buf);
                nv_err(err, errlen, "grew past the %zu-byte limit while read", max_bytes);
                return NULL;
            }
            size_t more = cap * 2 < max_bytes + 1 ? cap * 2 : max_bytes + 1;
            char *bigger = realloc(buf, more + 1);
            if (!bigger) {
                close(fd);
                free(buf);
                nv_err(err, errlen, "out of memory reading %zu bytes", more);
                return NULL;
            }
            buf = bigger;
            cap = more;
        }
        ssize_t r = read(fd, buf + got, cap - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            nv_err(err, errlen, "read failed: %s", strerror(errno));
            close(fd);
            free(buf);
            return NULL;
        }
        if (r == 0)
            break;
        got += (size_t)r;
        if (got > max_bytes) {
            close(fd);
            free(buf);
            nv_err(err, errlen, "grew past the %zu-byte limit while read", max_bytes);
            return NULL;
        }
    }
    close(fd);
    buf[got] = '\0';
    *len = got;
    return buf;
}

int nv_pread_all(int fd, void *buf, size_t n, off_t off, char *err, size_t errlen)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, (char *)buf + got, n - got, off + (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return nv_err(err, errlen, "read failed: %s", strerror(errno));
        if (r == 0)
            return nv_err(err, errlen, "shorter than expected (truncated while read)");
        got += (size_t)r;
    }
    return 0;
}

int nv_dir_owner(const char *dir, uid_t *owner, char *err, size_t errlen)
{
    struct stat st;
    if (!dir || lstat(dir, &st) != 0)
        return nv_err(err, errlen, "cannot stat: %s", dir ? strerror(errno) : "no path");
    if (!S_ISDIR(st.st_mode))
        return nv_err(err, errlen, "%s, not a directory", kind_of(st.st_mode));
    *owner = st.st_uid;
    return 0;
}
