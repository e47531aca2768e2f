/* safe_open.h - the one way netvar opens a file that someone other than
 * the caller may have put there: a record in the spool, a user's segment
 * profile, a registry entry.
 *
 * The file is opened with O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC (a symbolic
 * link is refused and a FIFO or device cannot block the opener), through
 * its directory opened O_NOFOLLOW (a job directory that is a link is
 * refused too: "its directory is a symbolic link; not followed"), then
 * fstat() must show a regular file, of the expected owner, no larger than
 * the cap; reads stop at the cap even if the file grows meanwhile.  Each
 * refusal is one line in err (without the path: callers name it). */
#ifndef NETVAR_SAFE_OPEN_H
#define NETVAR_SAFE_OPEN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#define NV_ANY_OWNER ((uid_t)-1)

/* flags */
#define NV_OPEN_FOLLOW 1 /* follow a symbolic link: only for a path the admin named */

/* Opens path read-only as above.  Returns the descriptor (O_NONBLOCK
 * cleared, close-on-exec) with *st (may be NULL) filled, or -1 with err. */
int nv_open_untrusted(const char *path, uid_t owner, size_t max_bytes, int flags, struct stat *st,
                      char *err, size_t errlen);

/* The whole file opened by nv_open_untrusted, at most max_bytes, in a new
 * buffer (caller frees) with a '\0' after its *len bytes.  A file that
 * grows past max_bytes while it is read is refused.  NULL with err. */
char *nv_read_untrusted(const char *path, uid_t owner, size_t max_bytes, int flags, size_t *len,
                        char *err, size_t errlen);

/* The one reader of a file the admin named (netvar.conf, the model, a
 * topology or blade map, a pairs file): nv_read_untrusted for any owner
 * with a symbolic link followed (the admin chose the path; the file at its
 * end is checked), so a FIFO, device, directory or socket is refused
 * without blocking and the size is bounded.  text: a NUL byte is refused
 * too ("a NUL byte at offset N: not a text file").  NULL with err (without
 * the path: callers name it). */
char *nv_read_admin_file(const char *path, size_t max_bytes, bool text, size_t *len, char *err,
                         size_t errlen);

/* Reads exactly n bytes at offset off of fd (pread, EINTR retried).
 * Returns 0, or -1 with err ("shorter than expected": the file shrank). */
int nv_pread_all(int fd, void *buf, size_t n, off_t off, char *err, size_t errlen);

/* true for a file name a root tool takes from a directory users write:
 * 1-255 of A-Za-z0-9._- not starting with '.' (no terminal escapes, no
 * spaces, nothing hidden) */
bool nv_plain_name(const char *name);

/* s for a terminal: control bytes, DEL, and bytes that are not printable
 * UTF-8 (C1 controls included) as \xNN, a backslash as \\; cut to fit
 * cap (always terminated).  Returns buf.  For names users chose (paths,
 * apps) before root's terminal shows them. */
const char *nv_printable(const char *s, char *buf, size_t cap);

/* The owner of directory dir, which must be a directory and not a symbolic
 * link.  Returns 0 with *owner set, or -1 with err. */
int nv_dir_owner(const char *dir, uid_t *owner, char *err, size_t errlen);

#endif
