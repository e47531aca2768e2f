/* nv_err.h - the one "printf into a caller's error buffer" helper.
 *
 * netvar's functions report a failure as one line in a caller-supplied
 * buffer (char *err, size_t errlen), which may be NULL or of size 0. */
#ifndef NETVAR_NV_ERR_H
#define NETVAR_NV_ERR_H

#include <stdarg.h>
#include <stddef.h>

/* Formats into err (truncated, always terminated) and returns -1, so a
 * caller can write `return nv_err(err, errlen, "x: %s", why);`. */
int nv_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int nv_verr(char *err, size_t errlen, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

#endif
