/* prune.c - removing old job records from the spool (prune.h). */
#include "prune.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NV_PRUNE_MAX_DEPTH 8 /* jobs/N/profiles/... never nests deeper */
#define NV_PRUNE_TRASH ".pruning"

static int is_job_id(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 10 || (n > 1 && s[0] == '0'))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return strtoull(s, NULL, 10) <= UINT32_MAX;
}

/* Removes everything inside the directory dfd (closed here), never
 * following a link; counts files and bytes.  0, or -1 when something
 * stayed. */
static int empty_dir(int dfd, int depth, nv_prune_stats *st)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return -1;
    }
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        struct stat sb;
        if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW)) {
            rc = -1;
            continue;
        }
        if (S_ISDIR(sb.st_mode)) {
            int sub = depth < NV_PRUNE_MAX_DEPTH
                          ? openat(dirfd(d), e->d_name,
                                   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
                          : -1;
            if (sub < 0 || empty_dir(sub, depth + 1, st) ||
                unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR))
                rc = -1;
        } else if (unlinkat(dirfd(d), e->d_name, 0) == 0) {
            st->files++;
            if (S_ISREG(sb.st_mode))
                st->bytes += (uint64_t)sb.st_size;
        } else {
            rc = -1;
        }
    }
    closedir(d);
    return rc;
}

/* Removes trash/<name> (a directory renamed there). */
static int remove_trashed(int trash_fd, const char *name, nv_prune_stats *st)
{
    int fd = openat(trash_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return unlinkat(trash_fd, name, 0); /* not a directory: a stray file or link */
    if (empty_dir(fd, 1, st))
        return -1;
    return unlinkat(trash_fd, name, AT_REMOVEDIR);
}

static int open_trash(int spool_fd, char *err, size_t errlen)
{
    if (mkdirat(spool_fd, NV_PRUNE_TRASH, 0700) && errno != EEXIST)
        return nv_err(err, errlen, "cannot create %s: %s", NV_PRUNE_TRASH, strerror(errno));
    int fd = openat(spool_fd, NV_PRUNE_TRASH, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) || sb.st_uid != 0 || (sb.st_mode & 0022)) {
        if (fd >= 0)
            close(fd);
        return nv_err(err, errlen, "%s is not a root-owned directory writable by root alone",
                      NV_PRUNE_TRASH);
    }
    return fd;
}

/* finishes an earlier prune that was interrupted */
static void empty_trash(int trash_fd, const nv_prune_opts *o, nv_prune_stats *st)
{
    int fd = dup(trash_fd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            remove_trashed(dirfd(d), e->d_name, st))
            nv_logf(o->log, o->log_arg, "netvar: prune: %s/%s: could not be removed entirely: %s",
                    NV_PRUNE_TRASH, e->d_name, strerror(errno));
    closedir(d);
}

int nv_prune_spool(const char *spool, const nv_prune_opts *o, nv_prune_stats *st, char *err,
                   size_t errlen)
{
    memset(st, 0, sizeof *st);
    if (!spool || !o || !(o->older_than_s >= 0))
        return nv_err(err, errlen, "bad arguments");
    int spool_fd = open(spool, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (spool_fd < 0)
        return nv_err(err, errlen, "spool %s: %s", spool, strerror(errno));
    int jobs_fd = openat(spool_fd, "jobs", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (jobs_fd < 0) {
        int e = errno;
        close(spool_fd);
        return nv_err(err, errlen, "%s/jobs: %s", spool, strerror(e));
    }
    int running_fd = openat(spool_fd, "running", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int trash_fd = -1, rc = -1;
    if (!o->dry_run) {
        trash_fd = open_trash(spool_fd, err, errlen);
        if (trash_fd < 0)
            goto out;
        empty_trash(trash_fd, o, st);
    }
    time_t now = o->now ? o->now : time(NULL);
    int dfd = dup(jobs_fd);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        nv_err(err, errlen, "%s/jobs: %s", spool, strerror(errno));
        goto out;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *name = e->d_name;
        if (!strcmp(name, ".") || !strcmp(name, ".."))
            continue;
        st->examined++;
        struct stat sb;
        if (!is_job_id(name)) {
            st->skipped++;
            nv_logf(o->log, o->log_arg, "netvar: prune: %s/jobs/%.80s: not a job id; left alone",
                    spool, name);
            continue;
        }
        if (fstatat(jobs_fd, name, &sb, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(sb.st_mode) ||
            sb.st_uid != 0) {
            st->skipped++;
            nv_logf(o->log, o->log_arg,
                    "netvar: prune: %s/jobs/%s: not a root-owned directory (a link or "
                    "someone else's); left alone",
                    spool, name);
            continue;
        }
        if ((double)(now - sb.st_mtime) < o->older_than_s) {
            st->kept_recent++;
            continue;
        }
        char reg[32];
        int rl = snprintf(reg, sizeof reg, "%s.json", name); /* a job id: at most 10 digits */
        if (rl < 0 || rl >= (int)sizeof reg ||
            (running_fd >= 0 && faccessat(running_fd, reg, F_OK, AT_SYMLINK_NOFOLLOW) == 0)) {
            st->kept_running++;
            continue;
        }
        if (o->dry_run) {
            st->removed++;
            continue;
        }
        if (renameat(jobs_fd, name, trash_fd, name)) {
            st->failed++;
            nv_logf(o->log, o->log_arg,
                    "netvar: prune: %s/jobs/%s: cannot move it aside: %s; left alone", spool, name,
                    strerror(errno));
            continue;
        }
        if (remove_trashed(trash_fd, name, st)) {
            st->failed++;
            nv_logf(o->log, o->log_arg,
                    "netvar: prune: job %s: could not be removed entirely (%s); the rest is in "
                    "%s/%s/%s",
                    name, strerror(errno), spool, NV_PRUNE_TRASH, name);
            continue;
        }
        st->removed++;
    }
    closedir(d);
    rc = 0;
out:
    close(jobs_fd);
    if (running_fd >= 0)
        close(running_fd);
    if (trash_fd >= 0)
        close(trash_fd);
    close(spool_fd);
    return rc;
}
