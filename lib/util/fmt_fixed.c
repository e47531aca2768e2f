/* fmt_fixed.c - "%.Nf" without printf where it is exact (fmt_fixed.h). */
#include "fmt_fixed.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int by_printf(char *buf, size_t cap, double x, int decimals)
{
    int n = snprintf(buf, cap, "%.*f", decimals, x);
    if (n < 0 || (size_t)n >= cap) {
        if (cap)
            buf[0] = '\0';
        return -1;
    }
    return n;
}

int nv_fmt_fixed(char *buf, size_t cap, double x, int decimals)
{
    static const double scale[] = {1, 10, 100, 1000};
    static const uint64_t div[] = {1, 10, 100, 1000};
    if (decimals < 0 || decimals > 3 || !isfinite(x))
        return by_printf(buf, cap, x, decimals);
    /* y is |x| 10^d rounded once (at most half an ulp, under 2^-21 below
     * 2^32).  printf rounds the exact product to the nearest integer, a
     * tie to even.  Unless y's fraction lies within 1e-6 of one half, the
     * exact product rounds as y does; near a half, the product's rounding
     * error (exact from fma) says on which side the exact value lies. */
    double ax = fabs(x), y = ax * scale[decimals];
    if (!(y < 4294967296.0))
        return by_printf(buf, cap, x, decimals);
    double whole = floor(y), frac = y - whole; /* both exact */
    int up = frac > 0.5;
    if (fabs(frac - 0.5) < 1e-6) {
        /* (frac - 0.5) and e are exact, so their rounded sum has the sign
         * of the exact one, and is 0 only at a true tie */
        double side = (frac - 0.5) + fma(ax, scale[decimals], -y);
        up = side > 0 || (side == 0 && ((uint64_t)whole & 1));
    }
    uint64_t r = (uint64_t)whole + (uint64_t)up;
    char tmp[32];
    size_t n = sizeof tmp;
    tmp[--n] = '\0';
    uint64_t ip = r / div[decimals], fp = r % div[decimals];
    for (int k = 0; k < decimals; k++, fp /= 10)
        tmp[--n] = (char)('0' + fp % 10);
    if (decimals)
        tmp[--n] = '.';
    do
        tmp[--n] = (char)('0' + ip % 10);
    while (ip /= 10);
    if (signbit(x))
        tmp[--n] = '-';
    size_t len = sizeof tmp - 1 - n;
    if (len >= cap) {
        if (cap)
            buf[0] = '\0';
        return -1;
    }
    memcpy(buf, tmp + n, len + 1);
    return (int)len;
}
