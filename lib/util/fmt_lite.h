/* fmt_lite.h - appending formatted text without glibc's vfprintf for the
 * few conversions job_submit's messages use.  Every submission renders
 * its lines (the admin's log line and the user's plain words), and
 * vsnprintf's general machinery was a third of a call's instructions. */
#ifndef NETVAR_FMT_LITE_H
#define NETVAR_FMT_LITE_H

#include <stdarg.h>
#include <stddef.h>

/* Appends fmt's text to buf (cap bytes) at *len, NUL-terminated, cut at
 * cap - 1 as vsnprintf cuts it, and moves *len to the new end.  Writes
 * %s, %c, %d, %u, %ld, %lu, %zu and %% itself; any other conversion
 * (flags, width, precision, floating point) hands the whole call to
 * vsnprintf, so the text is always what vsnprintf would write.  A NULL
 * %s is written "(null)", as glibc writes it.  Nothing when *len + 1 >=
 * cap. */
void nv_fmt_vappend(char *buf, size_t cap, size_t *len, const char *fmt, va_list ap);
__attribute__((format(printf, 4, 5))) void nv_fmt_append(char *buf, size_t cap, size_t *len,
                                                         const char *fmt, ...);

#endif
