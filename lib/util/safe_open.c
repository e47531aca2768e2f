/* safe_open.c - opening and reading files that others may have placed
 * (safe_open.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_PATH */
#endif
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

/* the directory part of path (which holds a '/'), opened O_PATH without
 * following a link; -1 with err */
static int open_parent_nofollow(const char *path, char *err, size_t errlen)
{
    size_t n = (size_t)(strrchr(path, '/') - path);
    char dir[4096];
    if (n >= sizeof dir)
        return nv_err(err, errlen, "cannot open: %s", strerror(ENAMETOOLONG));
    memcpy(dir, path, n);
    dir[n ? n : 1] = '\0';
    if (!n)
        dir[0] = '/';
    int dfd = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd >= 0)
        return dfd;
    int e = errno;
    struct stat ls;
    if ((e == ENOTDIR || e == ELOOP) && lstat(dir, &ls) == 0 && S_ISLNK(ls.st_mode))
        return nv_err(err, errlen, "its directory is a symbolic link; not followed");
    return nv_err(err, errlen, "cannot open: %s", strerror(e));
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
    int fd = -1;
    if (path && !(flags & NV_OPEN_FOLLOW) && strrchr(path, '/')) {
        /* the directory holding the file must not be a link either: a
         * job directory linked out of the spool is not the spool's */
        int dfd = open_parent_nofollow(path, err, errlen);
        if (dfd < 0)
            return -1;
        fd = openat(dfd, strrchr(path, '/') + 1, oflags);
        int e = errno;
        close(dfd);
        errno = e;
    } else if (path) {
        fd = open(path, oflags);
    }
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

char *nv_read_admin_file(const char *path, size_t max_bytes, bool text, size_t *len, char *err,
                         size_t errlen)
{
    char *buf = nv_read_untrusted(path, NV_ANY_OWNER, max_bytes, NV_OPEN_FOLLOW, len, err, errlen);
    const char *nul = buf && text ? memchr(buf, '\0', *len) : NULL;
    if (nul) {
        nv_err(err, errlen, "a NUL byte at offset %zu: not a text file", (size_t)(nul - buf));
        free(buf);
        *len = 0;
        return NULL;
    }
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

bool nv_plain_name(const char *name)
{
    size_t n = name ? strnlen(name, 256) : 0;
    if (n == 0 || n > 255 || name[0] == '.')
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-'))
            return false;
    }
    return true;
}

/* length of the printable UTF-8 sequence at s (2-4 bytes), 0 if none */
static size_t utf8_printable(const unsigned char *s)
{
    size_t n;
    unsigned cp;
    if (s[0] >= 0xc2 && s[0] <= 0xdf) {
        n = 2;
        cp = s[0] & 0x1fu;
    } else if (s[0] >= 0xe0 && s[0] <= 0xef) {
        n = 3;
        cp = s[0] & 0x0fu;
    } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
        n = 4;
        cp = s[0] & 0x07u;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3fu);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
        return 0; /* overlong, surrogate, out of range, or a C1 control */
    return n;
}

const char *nv_printable(const char *s, char *buf, size_t cap)
{
    size_t w = 0;
    if (!cap)
        return buf;
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
        char piece[8];
        size_t len;
        size_t u = *p >= 0x80 ? utf8_printable(p) : 0;
        if (u) {
            memcpy(piece, p, u);
            len = u;
        } else if (*p < 0x20 || *p == 0x7f || *p >= 0x80) {
            len = (size_t)snprintf(piece, sizeof piece, "\\x%02x", *p);
            u = 1;
        } else if (*p == '\\') {
            memcpy(piece, "\\\\", 2);
            len = 2;
            u = 1;
        } else {
            piece[0] = (char)*p;
            len = u = 1;
        }
        if (w + len >= cap)
            break;
        memcpy(buf + w, piece, len);
        w += len;
        p += u;
    }
    buf[w] = '\0';
    return buf;
}
