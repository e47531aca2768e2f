/* fmt_fixed.h - a number printed as printf's "%.Nf" prints it, without
 * printf's multi-precision path where plain arithmetic is exact: job_submit
 * formats a few numbers on every submission, and printf's formatting was a
 * third of a call's instructions. */
#ifndef NETVAR_FMT_FIXED_H
#define NETVAR_FMT_FIXED_H

#include <stddef.h>

/* Writes x with `decimals` digits after the point (0..3) into buf (cap
 * bytes, NUL-terminated), exactly as snprintf(buf, cap, "%.*f", decimals, x)
 * does in the default rounding mode: the same characters, sign of a
 * negative zero included, a tie to even.  Integer arithmetic below 2^32
 * once scaled (a value near a tie is placed by the product's exact
 * rounding error, from fma); beyond that, not finite, or decimals out of
 * range: snprintf itself.  Returns the length, or
 * -1 when it does not fit (buf is then "" if cap > 0). */
int nv_fmt_fixed(char *buf, size_t cap, double x, int decimals);

#endif
