/* svg_plot.c - render a chart as SVG text (svg_plot.h). */
#include "svg_plot.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "nv_err.h"

#define W 720.0
#define H 440.0
#define LEFT 80.0
#define RIGHT 170.0 /* legend column */
#define TOP 40.0
#define BOTTOM 60.0

struct buf {
    char *p;
    size_t len, cap;
    int oom;
};

static void put(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct buf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = 1;
            return;
        }
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        size_t c = b->cap * 2 + (size_t)n;
        char *q = realloc(b->p, c);
        if (!q) {
            b->oom = 1;
            return;
        }
        b->p = q;
        b->cap = c;
    }
}

/* text content and attribute values: the five XML specials escaped */
static void put_text(struct buf *b, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': put(b, "&amp;"); break;
        case '<': put(b, "&lt;"); break;
        case '>': put(b, "&gt;"); break;
        case '"': put(b, "&quot;"); break;
        case '\'': put(b, "&apos;"); break;
        default:
            if ((unsigned char)*s >= 0x20 || *s == '\t')
                put(b, "%c", *s);
        }
    }
}

static const char *palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};

static int usable(const nv_svg_chart *c, double x, double y)
{
    return isfinite(x) && isfinite(y) && (!c->log_x || x > 0);
}

/* a "nice" step near range/5 */
static double nice_step(double range)
{
    double raw = range / 5, p = pow(10, floor(log10(raw))), f = raw / p;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

char *nv_svg_render(const nv_svg_chart *c, size_t *len, char *err, size_t errlen)
{
    if (!c || (c->n_series && !c->series) || c->n_series > NV_SVG_MAX_SERIES) {
        nv_err(err, errlen, "plot: no chart, or more than %u series", NV_SVG_MAX_SERIES);
        return NULL;
    }
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
    for (size_t s = 0; s < c->n_series; s++) {
        const nv_svg_series *se = &c->series[s];
        if (se->n > NV_SVG_MAX_POINTS || (se->n && (!se->x || !se->y))) {
            nv_err(err, errlen, "plot: series %zu has more than %u points or no arrays", s,
                   NV_SVG_MAX_POINTS);
            return NULL;
        }
        for (size_t i = 0; i < se->n; i++)
            if (usable(c, se->x[i], se->y[i])) {
                double x = c->log_x ? log10(se->x[i]) : se->x[i];
                x0 = fmin(x0, x), x1 = fmax(x1, x);
                y0 = fmin(y0, se->y[i]), y1 = fmax(y1, se->y[i]);
            }
    }
    if (!(x0 <= x1)) {
        nv_err(err, errlen, "plot: no finite point to draw");
        return NULL;
    }
    if (y0 > 0)
        y0 = 0; /* slowdowns and densities read best from zero */
    if (x1 - x0 < 1e-12)
        x0 -= 0.5, x1 += 0.5;
    if (y1 - y0 < 1e-12)
        y1 = y0 + 1;
    double pw = W - LEFT - RIGHT, ph = H - TOP - BOTTOM;
#define PX(x) (LEFT + ((x)-x0) / (x1 - x0) * pw)
#define PY(y) (TOP + ph - ((y)-y0) / (y1 - y0) * ph)
    struct buf b = {malloc(4096), 0, 4096, 0};
    if (!b.p) {
        nv_err(err, errlen, "plot: out of memory");
        return NULL;
    }
    put(&b,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"netvar-plot\" width=\"%.0f\" "
        "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" "
        "font-size=\"12\">\n<title>",
        W, H, W, H);
    put_text(&b, c->title);
    put(&b, "</title>\n<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n", W,
        H);
    put(&b, "<text class=\"title\" x=\"%.1f\" y=\"22\" font-size=\"14\">", LEFT);
    put_text(&b, c->title);
    put(&b, "</text>\n<g class=\"axes\" stroke=\"black\">\n");
    put(&b, "<line class=\"axis x\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", LEFT,
        TOP + ph, LEFT + pw, TOP + ph);
    put(&b, "<line class=\"axis y\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", LEFT, TOP,
        LEFT, TOP + ph);
    /* ticks: decades on a log axis, nice steps otherwise */
    double xs = c->log_x ? 1 : nice_step(x1 - x0);
    for (double t = ceil(x0 / xs) * xs; t <= x1 + 1e-9 * xs; t += xs) {
        double lab = c->log_x ? pow(10, t) : t;
        put(&b,
            "<text class=\"tick x\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
            "stroke=\"none\">%g</text>\n",
            PX(t), TOP + ph + 16, fabs(lab) < 1e-12 ? 0 : lab);
    }
    double ys = nice_step(y1 - y0);
    for (double t = ceil(y0 / ys) * ys; t <= y1 + 1e-9 * ys; t += ys)
        put(&b,
            "<text class=\"tick y\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
            "stroke=\"none\">%g</text>\n",
            LEFT - 6, PY(t) + 4, fabs(t) < 1e-12 ? 0 : t);
    put(&b, "<text class=\"label x\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" stroke=\"none\">",
        LEFT + pw / 2, H - 16);
    put_text(&b, c->xlabel);
    put(&b,
        "</text>\n<text class=\"label y\" x=\"18\" y=\"%.1f\" text-anchor=\"middle\" "
        "stroke=\"none\" transform=\"rotate(-90 18 %.1f)\">",
        TOP + ph / 2, TOP + ph / 2);
    put_text(&b, c->ylabel);
    put(&b, "</text>\n</g>\n");
    for (size_t s = 0; s < c->n_series; s++) {
        const nv_svg_series *se = &c->series[s];
        const char *col = se->color ? se->color : palette[s % 8];
        size_t n = 0;
        for (size_t i = 0; i < se->n; i++)
            n += usable(c, se->x[i], se->y[i]);
        put(&b, "<g class=\"series\" data-name=\"");
        put_text(&b, se->name);
        put(&b, "\" data-points=\"%zu\" data-style=\"%s\" stroke=\"", n,
            se->style == NV_SVG_LINE ? "line" : "points");
        put_text(&b, col);
        put(&b, "\" fill=\"");
        put_text(&b, se->style == NV_SVG_LINE ? "none" : col);
        put(&b, "\">\n");
        if (se->style == NV_SVG_LINE)
            put(&b, "<polyline stroke-width=\"1.5\" points=\"");
        for (size_t i = 0; i < se->n; i++) {
            if (!usable(c, se->x[i], se->y[i]))
                continue;
            double x = PX(c->log_x ? log10(se->x[i]) : se->x[i]), y = PY(se->y[i]);
            if (se->style == NV_SVG_LINE)
                put(&b, "%.1f,%.1f ", x, y);
            else
                put(&b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\"/>\n", x, y);
        }
        if (se->style == NV_SVG_LINE)
            put(&b, "\"/>\n");
        put(&b, "</g>\n");
    }
    put(&b, "<g class=\"legend\">\n");
    for (size_t s = 0; s < c->n_series; s++) {
        const char *col = c->series[s].color ? c->series[s].color : palette[s % 8];
        double y = TOP + 10 + 18.0 * (double)s;
        put(&b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"", W - RIGHT + 12,
            y - 10);
        put_text(&b, col);
        put(&b, "\"/>\n<text x=\"%.1f\" y=\"%.1f\">", W - RIGHT + 30, y);
        put_text(&b, c->series[s].name);
        put(&b, "</text>\n");
    }
    put(&b, "</g>\n</svg>\n");
#undef PX
#undef PY
    if (b.oom) {
        free(b.p);
        nv_err(err, errlen, "plot: out of memory");
        return NULL;
    }
    *len = b.len;
    return b.p;
}

int nv_svg_write(const nv_svg_chart *c, const char *path, char *err, size_t errlen)
{
    size_t len = 0;
    char *text = nv_svg_render(c, &len, err, errlen);
    if (!text)
        return -1;
    int rc = nv_write_file_atomic(path, text, len, 0644, err, errlen);
    free(text);
    return rc;
}
