/* plausible.c - bounds on times, runtimes and byte counts, and the decimal
 * parser (plausible.h). */
#include "plausible.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>

bool nv_plausible_time(double t, double now)
{
    if (!(now > 0))
        now = (double)time(NULL);
    return t >= 0 && t <= NV_PLAUSIBLE_UNIX_MAX_S && t <= now + NV_PLAUSIBLE_FUTURE_S;
}

bool nv_plausible_runtime(double s)
{
    return s > 0 && s <= NV_PLAUSIBLE_RUNTIME_MAX_S;
}

bool nv_plausible_bytes(double bytes, double dt_s, double line_rate_Bps)
{
    double rate = isfinite(line_rate_Bps) && line_rate_Bps > 0 ? line_rate_Bps
                                                               : NV_PLAUSIBLE_LINE_RATE_MAX_Bps;
    if (!(dt_s >= 0) || !(dt_s <= NV_PLAUSIBLE_RUNTIME_MAX_S))
        return false;
    return bytes >= 0 && bytes <= rate * dt_s * 1.05 + 1048576.0;
}

bool nv_parse_decimal(const char *s, double *out)
{
    const char *p = s;
    if (!p)
        return false;
    if (*p == '+' || *p == '-')
        p++;
    size_t digits = 0, dots = 0;
    for (; (*p >= '0' && *p <= '9') || *p == '.'; p++) {
        if (*p == '.')
            dots++;
        else
            digits++;
    }
    if (!digits || dots > 1)
        return false;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!(*p >= '0' && *p <= '9'))
            return false;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (*p)
        return false;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || errno == ERANGE || !isfinite(v))
        return false;
    *out = v;
    return true;
}
