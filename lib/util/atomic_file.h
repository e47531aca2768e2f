/* atomic_file.h - write a whole file so that a reader sees either the old
 * or the new contents, never a mix: temp file in the same directory,
 * fsync, rename over the target. */
#ifndef NETVAR_ATOMIC_FILE_H
#define NETVAR_ATOMIC_FILE_H

#include <stddef.h>
#include <sys/types.h>

/* Returns 0, or -1 with one line in err (the temp file is removed). */
int nv_write_file_atomic(const char *path, const void *data, size_t len, mode_t mode, char *err,
                         size_t errlen);

#endif
