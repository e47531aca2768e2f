/* nv_test.h - helpers shared by the unit tests under tests/unit/<lib>/:
 * a fresh temporary directory, its removal, and a fixture file written into
 * it.  Each returns 0 or -1 (errno set) and leaves the asserting to the
 * test, so that a setup or teardown can return the result to cmocka. */
#ifndef NV_TEST_H
#define NV_TEST_H

#include <stddef.h>

/* Makes a new directory "<base>/nv-<tag>.XXXXXX" with mkdtemp (mode 0700)
 * and writes its path into buf (n bytes).  <base> is $TMPDIR when it is set
 * and the path fits in buf, /tmp otherwise.  tag must not hold a '/'. */
int nv_test_tmpdir(char *buf, size_t n, const char *tag);

/* Removes dir and everything under it, deepest first (nftw, FTW_DEPTH |
 * FTW_PHYS): a symbolic link is removed, never followed; no shell.  A dir
 * that is not there is removed already (0).  Refuses NULL, "" and "/". */
int nv_test_rmtree(const char *dir);

/* Writes text to "<dir>/<name>" with fopen "w": a file already there is
 * truncated in place (same inode), as a reader holding it open sees. */
int nv_test_write_file(const char *dir, const char *name, const char *text);

#endif
