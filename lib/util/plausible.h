/* plausible.h - the bounds a time, a runtime or a byte count that a record,
 * profile or state file carries must keep, in one place: every reader of
 * such a file (training's records and state, collect's node records, sacct
 * lines, segment profiles) checks its numbers here, and a record outside
 * them is skipped with one line, never merged into the rest.  And the one
 * parser of a decimal number someone wrote (netvar.conf, a pairs file). */
#ifndef NETVAR_PLAUSIBLE_H
#define NETVAR_PLAUSIBLE_H

#include <stdbool.h>

/* a time: Unix seconds, not before 1970 and before 2100-01-01, and not
 * more than a day past this machine's clock (clocks drift; a record from
 * further on is forged or from a broken clock) */
#define NV_PLAUSIBLE_UNIX_MAX_S 4102444800.0
#define NV_PLAUSIBLE_FUTURE_S 86400.0

/* a job's runtime, or the span of any one record: at most a year */
#define NV_PLAUSIBLE_RUNTIME_MAX_S (366.0 * 86400.0)

/* a port's line rate: at most 10^12 bytes/s (8 Tb/s, ten times the
 * fastest NIC of 2026); the bound on a byte count when the port's own
 * rate is unknown */
#define NV_PLAUSIBLE_LINE_RATE_MAX_Bps 1e12

/* true for a Unix time t in [0, NV_PLAUSIBLE_UNIX_MAX_S] and at most
 * NV_PLAUSIBLE_FUTURE_S past now (now <= 0: the clock is read) */
bool nv_plausible_time(double t, double now);

/* true for a runtime in (0, NV_PLAUSIBLE_RUNTIME_MAX_S] seconds */
bool nv_plausible_runtime(double s);

/* true when bytes counted over dt_s seconds could have crossed a port of
 * line_rate_Bps (<= 0 or not finite: NV_PLAUSIBLE_LINE_RATE_MAX_Bps): at
 * most rate x dt_s, plus 5 % and 1 MiB for the counters' own timing */
bool nv_plausible_bytes(double bytes, double dt_s, double line_rate_Bps);

/* Parses s as a decimal number, all of it: an optional sign, digits with
 * at most one '.', an optional exponent; no hex ("0x10" is refused, where
 * strtod reads 16), no "inf" or "nan", no spaces.  Returns true with *out
 * finite. */
bool nv_parse_decimal(const char *s, double *out);

#endif
