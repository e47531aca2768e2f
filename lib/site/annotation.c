/* annotation.c - formats and strips the netvar: job annotation. */
#include "annotation.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct out {
    char *buf;
    size_t cap, len;
    int overflow;
};

static void put(struct out *o, const char *fmt, ...)
{
    if (o->overflow)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= o->cap - o->len)
        o->overflow = 1;
    else
        o->len += (size_t)n;
}

int nv_annotation_format(char *buf, size_t cap, const struct nv_annotation *a)
{
    if (!buf || cap == 0)
        return -1;
    struct out o = {buf, cap, 0, 0};
    put(&o, NV_ANNOTATION_PREFIX "{\"v\":%d,\"mode\":\"%s\"", NV_ANNOTATION_VERSION,
        nv_mode_name(a->mode));
    /* app keys are validated to [A-Za-z0-9._-], so they need no escaping */
    if (a->app && nv_app_key_valid(a->app, NULL))
        put(&o, ",\"app\":\"%s\"", a->app);
    if (a->model)
        put(&o, ",\"model\":\"%s\"", a->model);
    if (isfinite(a->own_slowdown_pct))
        put(&o, ",\"own_pct\":%.1f", a->own_slowdown_pct);
    if (isfinite(a->inflicted_pct))
        put(&o, ",\"inflicted_pct\":%.1f", a->inflicted_pct);
    if (a->source)
        put(&o, ",\"src\":\"%s\"", a->source);
    if (a->advice_nodes)
        put(&o, ",\"advice_nodes\":%u", a->advice_nodes);
    if (a->action)
        put(&o, ",\"action\":\"%s\"", a->action);
    put(&o, "}");
    if (o.overflow) {
        buf[0] = '\0';
        return -1;
    }
    return (int)o.len;
}

/* true when s (ending the comment) is one annotation as netvar writes it:
 * "netvar:{\"v\":" ... "}" with no brace inside */
static int is_own_annotation(const char *s, size_t len)
{
    static const char head[] = NV_ANNOTATION_PREFIX "{\"v\":";
    size_t h = sizeof head - 1;
    if (len < h + 1 || memcmp(s, head, h) != 0 || s[len - 1] != '}')
        return 0;
    for (size_t i = h; i + 1 < len; i++)
        if (s[i] == '{' || s[i] == '}')
            return 0;
    return 1;
}

size_t nv_annotation_strip(const char *comment)
{
    if (!comment)
        return 0;
    size_t n = strlen(comment);
    for (;;) {
        size_t end = n;
        while (end > 0 && comment[end - 1] == ' ')
            end--;
        /* the last "netvar:{" before end */
        const char *start = NULL;
        for (const char *p = comment; (p = strstr(p, NV_ANNOTATION_PREFIX "{")) && p < comment + end;
             p++)
            start = p;
        if (!start || !is_own_annotation(start, (size_t)(comment + end - start)))
            return n;
        n = (size_t)(start - comment);
        while (n > 0 && comment[n - 1] == ' ')
            n--;
    }
}

int nv_annotation_fit(const char *current, const struct nv_annotation *a, size_t limit,
                      size_t *keep, char *note, size_t cap)
{
    *keep = nv_annotation_strip(current);
    struct nv_annotation t = *a;
    size_t sep = *keep ? 1 : 0;
    for (int step = 0;; step++) {
        int n = nv_annotation_format(note, cap, &t);
        if (n > 0 && (limit == 0 || *keep + sep + (size_t)n <= limit))
            return n;
        switch (step) { /* netvar's own text is cut first, least useful field first */
        case 0: t.model = NULL; break;
        case 1: t.source = NULL; break;
        case 2: t.advice_nodes = 0; break;
        case 3: t.inflicted_pct = NAN; break;
        case 4: t.own_slowdown_pct = NAN; break;
        case 5: t.app = NULL; break;
        default:
            if (cap)
                note[0] = '\0';
            return -1;
        }
    }
}
