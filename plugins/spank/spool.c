/* spool.c - directories and atomic JSON files in the netvar spool. */
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

static int make_dir(const char *path, mode_t mode, char *err, size_t errlen)
{
    if (mkdir(path, mode) == 0 || errno == EEXIST) {
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
            return 0;
    }
    snprintf(err, errlen, "cannot create directory %s: %s", path, strerror(errno));
    return -1;
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
    if (make_dir(spool, 0755, err, errlen) || make_dir(jobs, 0755, err, errlen) ||
        make_dir(dir, 0750, err, errlen))
        return -1;
    /* the job's user reads its records; nobody but root writes them */
    if (chown(dir, 0, gid) != 0 || chmod(dir, 0750) != 0) {
        snprintf(err, errlen, "cannot set owner of %s: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

int nv_spool_write_json(const char *path, json_object *o, gid_t gid, mode_t mode, char *err,
                        size_t errlen)
{
    const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
                                                             JSON_C_TO_STRING_NOSLASHESCAPE);
    if (!text) {
        snprintf(err, errlen, "%s: out of memory formatting JSON", path);
        return -1;
    }
    if (nv_write_file_atomic(path, text, strlen(text), mode, err, errlen))
        return -1;
    if (chown(path, 0, gid) != 0) {
        snprintf(err, errlen, "cannot set group of %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int nv_spool_registry_write(const char *spool, uint32_t jobid, json_object *o, char *err,
                            size_t errlen)
{
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/running", spool);
    if (make_dir(spool, 0755, err, errlen) || make_dir(dir, 0755, err, errlen))
        return -1;
    snprintf(path, sizeof path, "%s/%u.json", dir, jobid);
    return nv_spool_write_json(path, o, 0, 0644, err, errlen);
}

int nv_spool_registry_remove(const char *spool, uint32_t jobid)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/running/%u.json", spool, jobid);
    return unlink(path) == 0 || errno == ENOENT ? 0 : -1;
}
