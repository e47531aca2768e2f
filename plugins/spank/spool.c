/* spool.c - the job directories of the netvar spool (spool.h). */
#include "spool.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"

bool nv_spool_name_ok(const char *s)
{
    size_t n = s ? strnlen(s, 65) : 0;
    if (n == 0 || n > 64 || s[0] == '.')
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-'))
            return false;
    }
    return true;
}

int nv_spool_job_dir(const char *spool, uint32_t jobid, gid_t gid, char *dir, size_t cap,
                     char *err, size_t errlen)
{
    char jobs[4096];
    if (snprintf(jobs, sizeof jobs, "%s/jobs", spool) >= (int)sizeof jobs ||
        snprintf(dir, cap, "%s/%u", jobs, jobid) >= (int)cap) {
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
