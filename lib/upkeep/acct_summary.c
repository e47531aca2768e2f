/* acct_summary.c - the job summary for Slurm accounting (acct_summary.h). */
#define _GNU_SOURCE /* memmem */
#include "acct_summary.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "nv_json.h"

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

/* a figure beyond 1e15 is null: %.1f would write up to 309 digits of it,
 * and the summary would no longer fit */
static int put_num(char *buf, size_t cap, size_t *len, const char *key, double v)
{
    if (!isfinite(v) || fabs(v) > 1e15)
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

/* a percentage as the summary carries it: NAN when it is none */
static double pct_or_nan(double v)
{
    return isfinite(v) && fabs(v) <= NV_ACCT_PCT_MAX ? v : NAN;
}

int nv_acct_summary_format(char *buf, size_t cap, const nv_job_report *r,
                           const nv_acct_prediction *own)
{
    size_t len = 0;
    if (!buf || cap == 0)
        return -1;
    /* netvar's own word when AdminComment holds it; else the record's copy
     * of the Comment's annotation, which the user may have written */
    const nv_report_annotation *a = &r->at_submission;
    int mine = own && own->found, claim = !mine && a->recorded;
    if (put(buf, cap, &len, NV_ACCT_KEY "{\"v\":%d", NV_ACCT_SUMMARY_VERSION) ||
        put_str(buf, cap, &len, "app", r->has_app ? r->app : "") ||
        put_num(buf, cap, &len, "runtime_s", r->runtime_s) ||
        put_num(buf, cap, &len, "baseline_s", r->baseline_s) ||
        put_num(buf, cap, &len, "slowdown_pct", r->observed_pct) ||
        put_num(buf, cap, &len, "predicted_pct", mine ? pct_or_nan(own->pct) : NAN) ||
        put_str(buf, cap, &len, "src", mine ? own->src : "") ||
        put_num(buf, cap, &len, "claimed_pct",
                mine    ? pct_or_nan(own->claimed_pct)
                : claim ? pct_or_nan(a->own_pct)
                        : NAN) ||
        put_str(buf, cap, &len, "claimed_src",
                mine    ? own->claimed_src
                : claim ? a->source
                        : "") ||
        put(buf, cap, &len, "}")) {
        buf[0] = '\0';
        return -1;
    }
    return (int)len;
}

json_object *nv_acct_last_entry(const char *text, size_t max,
                                int (*accept)(json_object *entry, void *ctx), void *ctx)
{
    size_t klen = strlen(NV_ACCT_KEY);
    json_object *last = NULL;
    if (!text)
        return NULL;
    size_t n = strnlen(text, max);
    for (const char *p = text; p < text + n;) {
        const char *hit = memmem(p, (size_t)(text + n - p), NV_ACCT_KEY "{", klen + 1);
        if (!hit)
            break;
        size_t span = nv_acct_json_span(hit + klen, (size_t)(text + n - hit) - klen);
        if (!span) {
            p = hit + klen;
            continue;
        }
        json_tokener *tok = json_tokener_new();
        json_object *o = tok ? json_tokener_parse_ex(tok, hit + klen, (int)span) : NULL;
        json_tokener_free(tok);
        if (o && json_object_is_type(o, json_type_object) && isfinite(nv_json_num(o, "v")) &&
            (!accept || accept(o, ctx))) {
            json_object_put(last);
            last = o;
        } else {
            json_object_put(o);
        }
        p = hit + klen + span;
    }
    return last;
}

/* job_submit's annotation (it always names its mode), or a summary of
 * version 2 or later (it has runtime_s) */
static int is_own_prediction(json_object *o, void *ctx)
{
    (void)ctx;
    json_object *rt;
    if (nv_json_str(o, "mode"))
        return !json_object_object_get_ex(o, "runtime_s", &rt);
    return json_object_object_get_ex(o, "runtime_s", &rt) && nv_json_num(o, "v") >= 2;
}

int nv_acct_own_prediction(const char *admin_comment, nv_acct_prediction *out)
{
    memset(out, 0, sizeof *out);
    out->pct = out->claimed_pct = NAN;
    /* an AdminComment is Slurm's, bounded by slurmdbd; the bound here only
     * keeps a hand-made one from being read without end */
    json_object *o = nv_acct_last_entry(admin_comment, 1 << 20, is_own_prediction, NULL);
    if (!o)
        return 0;
    out->found = 1;
    if (nv_json_str(o, "mode")) {
        out->pct = nv_json_num(o, "own_pct");
    } else {
        out->pct = nv_json_num(o, "predicted_pct");
        out->claimed_pct = nv_json_num(o, "claimed_pct");
        nv_json_str_copy(o, "claimed_src", out->claimed_src, sizeof out->claimed_src);
    }
    nv_json_str_copy(o, "src", out->src, sizeof out->src);
    json_object_put(o);
    return 1;
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

int nv_acct_holds_jobstats(const char *text)
{
    return text && !strncmp(text, NV_ACCT_JOBSTATS_PREFIX, strlen(NV_ACCT_JOBSTATS_PREFIX));
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
