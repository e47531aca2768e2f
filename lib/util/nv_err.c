/* nv_err.c - the error-buffer and log-line helpers (nv_err.h). */
#include "nv_err.h"

#include <stdio.h>

/* an error or a log line is one line, whatever a file or a user put in
 * the values it quotes: control characters (a newline, a terminal escape)
 * become '?' */
static void one_line(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
}

int nv_verr(char *err, size_t errlen, const char *fmt, va_list ap)
{
    if (err && errlen) {
        vsnprintf(err, errlen, fmt, ap);
        one_line(err);
    }
    return -1;
}

int nv_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    nv_verr(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

void nv_vlogf(nv_log_fn log, void *arg, const char *fmt, va_list ap)
{
    if (!log)
        return;
    char line[NV_LOG_LINE_MAX];
    vsnprintf(line, sizeof line, fmt, ap);
    one_line(line);
    log(arg, line);
}

void nv_logf(nv_log_fn log, void *arg, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    nv_vlogf(log, arg, fmt, ap);
    va_end(ap);
}
