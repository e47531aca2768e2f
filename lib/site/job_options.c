/* job_options.c - --netvar mode and app-key validation (see job_options.h). */
#include "job_options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>

static const char *const mode_names[] = {"off", "counters", "segments", "full"};

nv_mode nv_mode_parse(const char *s)
{
    if (!s)
        return NV_MODE_UNSET;
    for (int i = 0; i < 4; i++)
        if (strcmp(s, mode_names[i]) == 0)
            return (nv_mode)i;
    return NV_MODE_UNSET;
}

int nv_interval_parse(const char *s, int *out)
{
    char *end;
    if (!s || !*s || s[0] == '+' || s[0] == '-' || s[0] == ' ')
        return -1;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < 0 || v > NV_INTERVAL_MAX_S)
        return -1;
    *out = (int)v;
    return 0;
}

int nv_advise_parse(const char *s, bool *apply)
{
    if (!s || (strcmp(s, "show") && strcmp(s, "apply")))
        return -1;
    *apply = !strcmp(s, "apply");
    return 0;
}

void nv_bad_value(char *buf, size_t cap, const char *name, const char *val, const char *why,
                  const char *then)
{
    char shown[65];
    size_t n = 0;
    for (; val && val[n] && n < sizeof shown - 1; n++) {
        unsigned char c = (unsigned char)val[n];
        shown[n] = (c < 0x20 || c > 0x7e || c == '\'' || c == '"' || c == '\\') ? '?' : (char)c;
    }
    shown[n] = '\0';
    if (!cap)
        return;
    snprintf(buf, cap, "%s='%s%s' %s%s%s", name, shown, val && val[n] ? "..." : "", why,
             then ? "; " : "", then ? then : "");
}

const char *nv_mode_name(nv_mode m)
{
    if (m < NV_MODE_OFF || m > NV_MODE_FULL)
        return "unset";
    return mode_names[m];
}

bool nv_mode_wants_counters(nv_mode m)
{
    return m == NV_MODE_COUNTERS || m == NV_MODE_FULL;
}

bool nv_mode_wants_segments(nv_mode m)
{
    return m == NV_MODE_SEGMENTS || m == NV_MODE_FULL;
}

bool nv_app_key_valid(const char *s, const char **why)
{
    const char *dummy;
    if (!why)
        why = &dummy;
    if (!s || !*s) {
        *why = "is empty";
        return false;
    }
    size_t n = strnlen(s, NV_APP_KEY_MAX + 1);
    if (n > NV_APP_KEY_MAX) {
        *why = "is longer than 64 characters";
        return false;
    }
    if (s[0] == '.' || s[0] == '-') {
        *why = "starts with '.' or '-'";
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == '-';
        if (!ok) {
            *why = "has a character outside letters, digits and ._-";
            return false;
        }
    }
    return true;
}

bool nv_parse_bool(const char *s, bool *out)
{
    static const char *const yes[] = {"yes", "true", "1", "on"};
    static const char *const no[] = {"no", "false", "0", "off"};
    if (!s)
        return false;
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(s, yes[i]) == 0) {
            *out = true;
            return true;
        }
        if (strcasecmp(s, no[i]) == 0) {
            *out = false;
            return true;
        }
    }
    return false;
}
