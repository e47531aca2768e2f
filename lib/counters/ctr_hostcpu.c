/* ctr_hostcpu.c - /proc/stat's CPU line and a cgroup's cpu.stat (see
 * ctr_hostcpu.h). */
#define _GNU_SOURCE
#include "ctr_hostcpu.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reads the file at dirfd/path (open flags without following a link or
 * blocking) into buf, at most cap-1 bytes, '\0'-terminated.  Returns the
 * length or -1 with err.  Not nv_read_untrusted (safe_open.h): that one
 * refuses a file past its cap, while only a prefix is wanted here (the
 * "cpu " line comes first, and /proc/stat's intr line alone can pass any
 * fixed cap on a machine with many interrupts), and the cgroup files are
 * reached through a directory descriptor (`ip netns exec` hides their
 * path). */
static long read_small(int dirfd, const char *path, char *buf, size_t cap, char *err, size_t errlen)
{
    int fd = openat(dirfd, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file", path);
        close(fd);
        return -1;
    }
    size_t n = 0;
    while (n + 1 < cap) {
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
            close(fd);
            return -1;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    return (long)n;
}

/* one unsigned decimal at *p (spaces before it skipped); advances *p */
static bool next_u64(const char **p, const char *end, uint64_t *v)
{
    const char *s = *p;
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    if (s >= end || *s < '0' || *s > '9')
        return false;
    uint64_t x = 0;
    while (s < end && *s >= '0' && *s <= '9') {
        unsigned d = (unsigned)(*s - '0');
        if (x > (UINT64_MAX - d) / 10)
            return false;
        x = x * 10 + d;
        s++;
    }
    *v = x;
    *p = s;
    return true;
}

int nv_hostcpu_parse_stat(const char *text, size_t len, nv_hostcpu_stat *out, char *err,
                          size_t errlen)
{
    memset(out, 0, sizeof *out);
    const char *end = text + len, *line = text;
    while (line < end) {
        const char *eol = memchr(line, '\n', (size_t)(end - line));
        if (!eol)
            eol = end;
        if (eol - line > 4 && !memcmp(line, "cpu ", 4)) {
            const char *p = line + 4;
            uint64_t v[8];
            int n = 0;
            while (n < 8 && next_u64(&p, eol, &v[n]))
                n++;
            if (n < 4) {
                snprintf(err, errlen, "the cpu line has %d numbers, at least 4 needed", n);
                return -1;
            }
            uint64_t *f[8] = {&out->user,   &out->nice, &out->system,  &out->idle,
                              &out->iowait, &out->irq,  &out->softirq, &out->steal};
            for (int i = 0; i < n; i++)
                *f[i] = v[i];
            out->have_steal = n >= 8;
            return 0;
        }
        line = eol + 1;
    }
    snprintf(err, errlen, "no aggregate 'cpu ' line");
    return -1;
}

int nv_hostcpu_read_stat(const char *path, nv_hostcpu_stat *out, char *err, size_t errlen)
{
    char *buf = malloc(NV_HOSTCPU_TEXT_MAX);
    if (!buf) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    const char *p = path ? path : "/proc/stat";
    char why[256];
    long n = read_small(AT_FDCWD, p, buf, NV_HOSTCPU_TEXT_MAX, why, sizeof why);
    int rc = -1;
    if (n < 0)
        snprintf(err, errlen, "%s", why);
    else if (nv_hostcpu_parse_stat(buf, (size_t)n, out, why, sizeof why) != 0)
        snprintf(err, errlen, "%s: %s", p, why);
    else
        rc = 0;
    free(buf);
    return rc;
}

static uint64_t rise(uint64_t a, uint64_t b)
{
    return b >= a ? b - a : 0;
}

int nv_hostcpu_delta(const nv_hostcpu_stat *a, const nv_hostcpu_stat *b, nv_hostcpu_pct *out)
{
    memset(out, 0, sizeof *out);
    uint64_t user = rise(a->user, b->user) + rise(a->nice, b->nice),
             sys = rise(a->system, b->system), idle = rise(a->idle, b->idle),
             iow = rise(a->iowait, b->iowait), irq = rise(a->irq, b->irq),
             sirq = rise(a->softirq, b->softirq), steal = rise(a->steal, b->steal);
    uint64_t total = user + sys + idle + iow + irq + sirq + steal;
    if (total == 0)
        return -1;
    double t = (double)total / 100.0;
    out->ticks = total;
    out->user = (double)user / t;
    out->system = (double)sys / t;
    out->idle = (double)idle / t;
    out->iowait = (double)iow / t;
    out->irq = (double)irq / t;
    out->softirq = (double)sirq / t;
    out->steal = (double)steal / t;
    out->busy = (double)(total - idle - iow) / t;
    return 0;
}

int nv_cgcpu_parse(const char *text, size_t len, nv_cgcpu_stat *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    bool have_p = false, have_t = false, have_time = false;
    const char *end = text + len, *line = text;
    while (line < end) {
        const char *eol = memchr(line, '\n', (size_t)(end - line));
        if (!eol)
            eol = end;
        const char *sp = memchr(line, ' ', (size_t)(eol - line));
        if (sp) {
            size_t klen = (size_t)(sp - line);
            const char *p = sp;
            uint64_t v;
            bool num = next_u64(&p, eol, &v) && p == eol;
#define KEY(k) (klen == sizeof(k) - 1 && !memcmp(line, k, klen))
            if (KEY("nr_periods") && num) {
                out->periods = v;
                have_p = true;
            } else if (KEY("nr_throttled") && num) {
                out->throttled_periods = v;
                have_t = true;
            } else if (KEY("throttled_time") && num) { /* v1, ns */
                out->throttled_us = v / 1000;
                have_time = true;
            } else if (KEY("throttled_usec") && num) { /* v2 */
                out->throttled_us = v;
                have_time = true;
            }
#undef KEY
        }
        line = eol + 1;
    }
    if (!have_p || !have_t || !have_time) {
        snprintf(err, errlen, "no %s",
                 !have_p   ? "nr_periods"
                 : !have_t ? "nr_throttled"
                           : "throttled_time or throttled_usec");
        return -1;
    }
    return 0;
}

int nv_cgcpu_read_at(int dirfd, const char *name, nv_cgcpu_stat *out, char *err, size_t errlen)
{
    size_t n = strlen(name);
    bool ok = n > 0 && n < 64 && strcmp(name, ".") && strcmp(name, "..");
    for (size_t i = 0; ok && i < n; i++)
        ok = (name[i] >= 'A' && name[i] <= 'Z') || (name[i] >= 'a' && name[i] <= 'z') ||
             (name[i] >= '0' && name[i] <= '9') || name[i] == '_' || name[i] == '.' ||
             name[i] == '-';
    if (!ok) {
        snprintf(err, errlen, "cgroup name '%.64s' is not one plain path component", name);
        return -1;
    }
    char path[96], buf[4096], why[256];
    snprintf(path, sizeof path, "%s/cpu.stat", name);
    long len = read_small(dirfd, path, buf, sizeof buf, why, sizeof why);
    if (len < 0) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    if (nv_cgcpu_parse(buf, (size_t)len, out, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s: %s", path, why);
        return -1;
    }
    return 0;
}
