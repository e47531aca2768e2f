/* job_options.h - validation of the user-facing --netvar option values
 * (mode and application key).  Pure; shared by plugins/, cli/. */
#ifndef NETVAR_JOB_OPTIONS_H
#define NETVAR_JOB_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

typedef enum nv_mode {
    NV_MODE_UNSET = -1,
    NV_MODE_OFF = 0,
    NV_MODE_COUNTERS,
    NV_MODE_SEGMENTS,
    NV_MODE_FULL,
} nv_mode;

#define NV_MODE_CHOICES "off, counters, segments, full"
#define NV_APP_KEY_MAX 64

/* Returns NV_MODE_UNSET when s is NULL or not one of NV_MODE_CHOICES. */
nv_mode nv_mode_parse(const char *s);
const char *nv_mode_name(nv_mode m);
bool nv_mode_wants_counters(nv_mode m);
bool nv_mode_wants_segments(nv_mode m);

/* An app key is 1..64 of [A-Za-z0-9._-], not starting with '.' or '-', so
 * it is safe as a file name component and in a JSON string.  On failure
 * *why (when given) names the rule that was broken. */
bool nv_app_key_valid(const char *s, const char **why);

/* --netvar-interval / NETVAR_INTERVAL: "0".."86400", whole seconds, the
 * whole string (no sign, no spaces).  0 with *out set, or -1. */
#define NV_INTERVAL_MAX_S 86400
int nv_interval_parse(const char *s, int *out);
/* --netvar-advise / NETVAR_ADVISE: "show" or "apply".  0 with *apply set,
 * or -1 (NULL, or any other word). */
int nv_advise_parse(const char *s, bool *apply);

/* What is wrong with a bad value, the same words for the option, its
 * NETVAR_* environment form, in srun/sbatch/salloc, job_submit and the
 * prolog (an app key's rule comes from nv_app_key_valid). */
#define NV_MODE_RULE "is not one of " NV_MODE_CHOICES
#define NV_INTERVAL_RULE "is not a whole number of seconds from 0 to 86400"
#define NV_ADVISE_RULE "is not 'show' or 'apply'"
/* what an environment default's bad value gets instead: it is ignored */
#define NV_ENV_IGNORED "ignored it; the default applies"

/* The one-line complaint "NAME='VALUE' WHY" (then "; THEN" when then is
 * not NULL) into buf.  VALUE is the user's: at most 64 bytes of it, each
 * byte that is not printable ASCII, or is a quote or backslash, shown as
 * '?'.  Always terminated; cut at cap. */
void nv_bad_value(char *buf, size_t cap, const char *name, const char *val, const char *why,
                  const char *then);

/* Parses a yes/no style boolean (yes/no, true/false, 1/0, on/off). */
bool nv_parse_bool(const char *s, bool *out);

#endif
