/* annotation.c - formats and strips the netvar: job annotation. */
#include "annotation.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmt_fixed.h"

struct out {
    char *buf;
    size_t cap, len;
    int overflow;
};

/* the pieces appended as they are, not through vsnprintf: job_submit
 * formats the annotation (sometimes several times, to fit) on every
 * submission.  A piece that does not fit whole, with the NUL, overflows. */
static void put(struct out *o, const char *s)
{
    if (o->overflow)
        return;
    size_t n = strlen(s);
    if (n >= o->cap - o->len) {
        o->overflow = 1;
        return;
    }
    memcpy(o->buf + o->len, s, n + 1);
    o->len += n;
}

static void put_uint(struct out *o, unsigned v)
{
    char t[16];
    size_t n = sizeof t;
    t[--n] = '\0';
    do
        t[--n] = (char)('0' + v % 10);
    while (v /= 10);
    put(o, t + n);
}

/* ,"name":"value" (head is ,"name":") */
static void put_text(struct out *o, const char *head, const char *value)
{
    put(o, head);
    put(o, value);
    put(o, "\"");
}

/* "%.1f" */
static void put_pct(struct out *o, double v)
{
    char t[400]; /* the longest double in %.1f: 309 digits, sign, ".d" */
    if (nv_fmt_fixed(t, sizeof t, v, 1) < 0)
        o->overflow = 1;
    else
        put(o, t);
}

int nv_annotation_format(char *buf, size_t cap, const struct nv_annotation *a)
{
    if (!buf || cap == 0)
        return -1;
    struct out o = {buf, cap, 0, 0};
    put(&o, NV_ANNOTATION_PREFIX "{\"v\":");
    put_uint(&o, NV_ANNOTATION_VERSION);
    put_text(&o, ",\"mode\":\"", nv_mode_name(a->mode));
    /* app keys are validated to [A-Za-z0-9._-], so they need no escaping */
    if (a->app && nv_app_key_valid(a->app, NULL))
        put_text(&o, ",\"app\":\"", a->app);
    if (a->model)
        put_text(&o, ",\"model\":\"", a->model);
    if (isfinite(a->own_slowdown_pct)) {
        put(&o, ",\"own_pct\":");
        put_pct(&o, a->own_slowdown_pct);
    }
    if (isfinite(a->inflicted_pct)) {
        put(&o, ",\"inflicted_pct\":");
        put_pct(&o, a->inflicted_pct);
    }
    if (a->source)
        put_text(&o, ",\"src\":\"", a->source);
    if (a->against_app && nv_app_key_valid(a->against_app, NULL))
        put_text(&o, ",\"vs\":\"", a->against_app);
    if (a->against_job) {
        put(&o, ",\"vs_job\":");
        put_uint(&o, a->against_job);
    }
    if (a->vs_n) {
        put(&o, ",\"vs_n\":");
        put_uint(&o, a->vs_n);
        put(&o, ",\"vs_uplinks\":");
        put_uint(&o, a->vs_uplinks);
    }
    if (a->vs_n > 1 && isfinite(a->single_pct)) {
        put(&o, ",\"single_pct\":");
        put_pct(&o, a->single_pct);
    }
    if (a->advice_nodes) {
        put(&o, ",\"advice_nodes\":");
        put_uint(&o, a->advice_nodes);
    }
    if (a->action)
        put_text(&o, ",\"action\":\"", a->action);
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
        for (const char *p = comment;
             (p = strstr(p, NV_ANNOTATION_PREFIX "{")) && p < comment + end; p++)
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
        case 3: t.vs_n = t.vs_uplinks = 0, t.single_pct = NAN; break;
        case 4: t.inflicted_pct = NAN; break;
        case 5: t.against_app = NULL, t.against_job = 0; break;
        case 6: t.own_slowdown_pct = NAN; break;
        case 7: t.app = NULL; break;
        default:
            if (cap)
                note[0] = '\0';
            return -1;
        }
    }
}
