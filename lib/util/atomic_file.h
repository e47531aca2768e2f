/* atomic_file.h - write a whole file so that a reader sees either the old
 * or the new contents, never a mix: temp file in the same directory,
 * fsync, rename over the target.
 *
 * A path that names something other than a regular file or a directory
 * (a device such as /dev/null, a FIFO, or a link to one such as
 * /dev/stdout) is written in place, never renamed over: a temp file
 * renamed onto /dev/null would replace the device node for every process
 * on the machine.  It is opened without blocking (a FIFO with no reader is
 * an error, not a hang), and not created, truncated, chmod'ed or synced. */
#ifndef NETVAR_ATOMIC_FILE_H
#define NETVAR_ATOMIC_FILE_H

#include <stddef.h>
#include <sys/types.h>

/* Returns 0, or -1 with one line in err (the temp file is removed). */
int nv_write_file_atomic(const char *path, const void *data, size_t len, mode_t mode, char *err,
                         size_t errlen);

/* The same, and the file's group is gid before it appears under path
 * ((gid_t)-1 leaves the group as created). */
int nv_write_file_atomic_gid(const char *path, const void *data, size_t len, mode_t mode, gid_t gid,
                             char *err, size_t errlen);

/* The same written piece by piece: begin, write any number of times, then
 * commit (or abort, which removes the temp file).  A write error is kept
 * and reported by commit, so the writes need no checks of their own. */
typedef struct nv_atomic_out {
    int fd;
    int err_no;
    int direct; /* 1: writing into the existing non-regular file itself */
    char path[4001];
    char tmp[4096 + 32];
} nv_atomic_out;
int nv_atomic_begin(nv_atomic_out *o, const char *path, char *err, size_t errlen);
int nv_atomic_write(nv_atomic_out *o, const void *data, size_t len);
/* gid as above; 0, or -1 with err (the temp file is removed) */
int nv_atomic_commit(nv_atomic_out *o, mode_t mode, gid_t gid, char *err, size_t errlen);
void nv_atomic_abort(nv_atomic_out *o);

/* Creates the directory path with mode unless a directory is already there
 * (its mode is then left alone).  Returns 0, or -1 with one line in err. */
int nv_make_dir(const char *path, mode_t mode, char *err, size_t errlen);

#endif
