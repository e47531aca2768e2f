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

size_t nv_annotation_strip(const char *comment)
{
    if (!comment)
        return 0;
    const char *p = strstr(comment, NV_ANNOTATION_PREFIX "{");
    if (!p)
        return strlen(comment);
    size_t n = (size_t)(p - comment);
    while (n > 0 && comment[n - 1] == ' ')
        n--;
    return n;
}
