/* acct_summary.c - the job summary for Slurm accounting (acct_summary.h). */
#include "acct_summary.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* appends to buf at *len; -1 once it does not fit */
static int put(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
    if (*len >= cap)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, cap - *len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= cap - *len)
        return -1;
    *len += (size_t)n;
    return 0;
}

static int put_num(char *buf, size_t cap, size_t *len, const char *key, double v)
{
    if (!isfinite(v))
        return put(buf, cap, len, ",\"%s\":null", key);
    double r = round(v * 10.0) / 10.0;
    return put(buf, cap, len, ",\"%s\":%.1f", key, r == 0 ? 0.0 : r);
}

/* a JSON string of safe characters: app keys and sources are already
 * [A-Za-z0-9._:+ ,-]; anything else becomes '_' */
static int put_str(char *buf, size_t cap, size_t *len, const char *key, const char *s)
{
    char clean[96];
    size_t n = 0;
    for (; s && *s && n < sizeof clean - 1; s++) {
        char c = *s;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 strchr("._:+ ,-", c);
        clean[n++] = ok ? c : '_';
    }
    clean[n] = '\0';
    return put(buf, cap, len, ",\"%s\":\"%s\"", key, clean);
}

int nv_acct_summary_format(char *buf, size_t cap, const nv_job_report *r)
{
    size_t len = 0;
    if (!buf || cap == 0)
        return -1;
    const nv_report_annotation *a = &r->at_submission;
    if (put(buf, cap, &len, NV_ACCT_KEY "{\"v\":%d", NV_ACCT_SUMMARY_VERSION) ||
        put_str(buf, cap, &len, "app", r->has_app ? r->app : "") ||
        put_num(buf, cap, &len, "runtime_s", r->runtime_s) ||
        put_num(buf, cap, &len, "baseline_s", r->baseline_s) ||
        put_num(buf, cap, &len, "slowdown_pct", r->observed_pct) ||
        put_num(buf, cap, &len, "predicted_pct", a->recorded ? a->own_pct : NAN) ||
        put_str(buf, cap, &len, "src", a->recorded ? a->source : "") ||
        put(buf, cap, &len, "}")) {
        buf[0] = '\0';
        return -1;
    }
    return (int)len;
}

size_t nv_acct_json_span(const char *s, size_t max)
{
    int depth = 0, in_str = 0;
    for (size_t i = 0; i < max && s[i]; i++) {
        char c = s[i];
        if (in_str) {
            if (c == '\\' && i + 1 < max && s[i + 1])
                i++;
            else if (c == '"')
                in_str = 0;
        } else if (c == '"') {
            in_str = 1;
        } else if (c == '{') {
            depth++;
        } else if (c == '}') {
            if (--depth == 0)
                return i + 1;
        }
    }
    return 0;
}

int nv_acct_merge(const char *existing, const char *summary, char *out, size_t cap)
{
    size_t len = 0, klen = strlen(NV_ACCT_KEY);
    if (!out || cap == 0 || !summary)
        return -1;
    out[0] = '\0';
    const char *p = existing ? existing : "";
    while (*p) {
        const char *hit = strstr(p, NV_ACCT_KEY "{");
        size_t span = hit ? nv_acct_json_span(hit + klen, strlen(hit + klen)) : 0;
        if (!hit || span == 0) {
            if (put(out, cap, &len, "%s", p))
                goto full;
            break;
        }
        /* keep the text before the entry, without the spaces that joined it */
        size_t keep = (size_t)(hit - p);
        while (keep > 0 && p[keep - 1] == ' ')
            keep--;
        if (keep && put(out, cap, &len, "%.*s", (int)keep, p))
            goto full;
        p = hit + klen + span;
        while (*p == ' ')
            p++;
        if (*p && len && put(out, cap, &len, " "))
            goto full;
    }
    while (len > 0 && out[len - 1] == ' ')
        out[--len] = '\0';
    if ((len && put(out, cap, &len, " ")) || put(out, cap, &len, "%s", summary))
        goto full;
    return (int)len;
full:
    out[0] = '\0';
    return -1;
}
