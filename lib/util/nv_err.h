/* nv_err.h - the one "printf into a caller's error buffer" helper, and the
 * one "printf a line to a caller's log callback" helper.
 *
 * netvar's functions report a failure as one line in a caller-supplied
 * buffer (char *err, size_t errlen), which may be NULL or of size 0.
 * Functions that go on after a problem (collect, the registry, training)
 * instead hand each problem to a caller's callback as one line. */
#ifndef NETVAR_NV_ERR_H
#define NETVAR_NV_ERR_H

#include <stdarg.h>
#include <stddef.h>

/* Formats into err (truncated, always terminated) and returns -1, so a
 * caller can write `return nv_err(err, errlen, "x: %s", why);`.  Control
 * characters in the result (from a quoted value) become '?': one line. */
int nv_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int nv_verr(char *err, size_t errlen, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* A log callback: one line, no newline.  Every netvar *_log_fn has this
 * shape. */
typedef void (*nv_log_fn)(void *arg, const char *line);

/* Formats one line (cut at NV_LOG_LINE_MAX - 1 bytes) and hands it to
 * log(arg, line); does nothing when log is NULL. */
#define NV_LOG_LINE_MAX 1400 /* room for a path and its reason */
void nv_logf(nv_log_fn log, void *arg, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void nv_vlogf(nv_log_fn log, void *arg, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

#endif
