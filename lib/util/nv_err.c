/* nv_err.c - the error-buffer helper (nv_err.h). */
#include "nv_err.h"

#include <stdio.h>

int nv_verr(char *err, size_t errlen, const char *fmt, va_list ap)
{
    if (err && errlen)
        vsnprintf(err, errlen, fmt, ap);
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
