/* nv_test.c - see nv_test.h. */
#define _XOPEN_SOURCE 700
#include "nv_test.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int template_in(char *buf, size_t n, const char *base, const char *tag)
{
    int len = snprintf(buf, n, "%s/nv-%s.XXXXXX", base, tag);
    return len >= 0 && (size_t)len < n ? 0 : -1;
}

int nv_test_tmpdir(char *buf, size_t n, const char *tag)
{
    if (!buf || n == 0 || !tag || strchr(tag, '/')) {
        errno = EINVAL;
        return -1;
    }
    const char *base = getenv("TMPDIR");
    if (!base || !*base || template_in(buf, n, base, tag) != 0) {
        if (template_in(buf, n, "/tmp", tag) != 0) {
            buf[0] = '\0';
            errno = ENAMETOOLONG;
            return -1;
        }
    }
    return mkdtemp(buf) ? 0 : -1;
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    /* FTW_DP: a directory, its entries removed already; FTW_DNR: one that
     * could not be read, so rmdir fails unless it is empty */
    if (flag == FTW_DP || flag == FTW_DNR || flag == FTW_D)
        return rmdir(path);
    return unlink(path); /* files, symbolic links (FTW_SL, FTW_SLN), FTW_NS */
}

int nv_test_rmtree(const char *dir)
{
    if (!dir || !*dir || strspn(dir, "/") == strlen(dir)) {
        errno = EINVAL;
        return -1;
    }
    struct stat st;
    if (lstat(dir, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    return nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1;
}

int nv_test_write_file(const char *dir, const char *name, const char *text)
{
    char path[4096];
    int len = snprintf(path, sizeof path, "%s/%s", dir, name);
    if (len < 0 || (size_t)len >= sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int bad = fputs(text, f) == EOF;
    bad |= fclose(f) != 0;
    return bad ? -1 : 0;
}
