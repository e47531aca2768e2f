/* spool.c - the job directories of the netvar spool (spool.h). */
#include "spool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "job_record.h"
#include "safe_open.h"

bool nv_spool_name_ok(const char *s)
{
    return nv_plain_name(s) && strnlen(s, 65) <= 64;
}

int nv_spool_job_dir(const char *spool, uint32_t jobid, gid_t gid, char *dir, size_t cap, char *err,
                     size_t errlen)
{
    char jobs[4096];
    if (nv_spool_jobs_path(spool, -1, NULL, jobs, sizeof jobs) ||
        nv_spool_jobs_path(spool, (long long)jobid, NULL, dir, cap)) {
        snprintf(err, errlen, "spool path %s is too long", spool);
        return -1;
    }
    if (nv_make_dir(spool, 0755, err, errlen) || nv_make_dir(jobs, 0755, err, errlen) ||
        nv_make_dir(dir, 0750, err, errlen))
        return -1;
    /* the job's user reads its records; nobody but root writes them */
    if (chown(dir, 0, gid) != 0 || chmod(dir, 0750) != 0) {
        snprintf(err, errlen, "cannot set owner of %s: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* Removes what is inside the directory open at dfd, depth first, without
 * following a link (unlinkat/openat with O_NOFOLLOW on that descriptor).
 * Returns the number of entries removed. */
static int empty_dir_at(int dfd, int depth)
{
    int n = 0, again = 1;
    for (int pass = 0; pass < 4 && again; pass++) { /* readdir may skip what moved */
        int fd = dup(dfd);
        DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
        if (!d) {
            if (fd >= 0)
                close(fd);
            return n;
        }
        rewinddir(d);
        again = 0;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            if (unlinkat(dfd, e->d_name, 0) == 0) {
                n++;
                again = 1;
                continue;
            }
            if (depth >= 16)
                continue;
            int sub = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub < 0)
                continue;
            n += empty_dir_at(sub, depth + 1);
            close(sub);
            if (unlinkat(dfd, e->d_name, AT_REMOVEDIR) == 0) {
                n++;
                again = 1;
            }
        }
        closedir(d);
    }
    return n;
}

static bool is_stale_record(const char *name)
{
    size_t n = strlen(name);
    return !strcmp(name, "job.json") ||
           (n > 10 && !strncmp(name, "node-", 5) && !strcmp(name + n - 5, ".json"));
}

int nv_spool_job_reset(const char *dir, char *err, size_t errlen)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    int n = 0, fd = dup(dfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d && fd >= 0)
        close(fd);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (is_stale_record(e->d_name) && unlinkat(dfd, e->d_name, 0) == 0)
            n++;
    if (d)
        closedir(d);
    int pfd = openat(dfd, "profiles", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (pfd >= 0) {
        /* the earlier user loses the directory before it is emptied */
        if (fchown(pfd, 0, 0) == 0 && fchmod(pfd, 0700) == 0)
            n += empty_dir_at(pfd, 0);
        close(pfd);
    } else if (errno == ELOOP || errno == ENOTDIR) {
        if (unlinkat(dfd, "profiles", 0) == 0) /* not a directory: not ours */
            n++;
    }
    close(dfd);
    return n;
}
