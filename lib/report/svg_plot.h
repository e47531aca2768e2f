/* svg_plot.h - a small SVG chart writer for `netvar report --plot`: axes
 * with ticks and labels, and series drawn as a polyline or as points.  No
 * library; the output is plain SVG 1.1 that browsers and xmllint read.
 *
 * Structure (tests and scripts may rely on it):
 *   <svg class="netvar-plot" ...>
 *     <title>TITLE</title>
 *     <g class="axes"> <line class="axis x"/> <line class="axis y"/>
 *        <text class="tick x">..</text>... <text class="tick y">..</text>...
 *        <text class="label x">XLABEL</text> <text class="label y">YLABEL</text></g>
 *     <g class="series" data-name="NAME" data-points="N" data-style="line|points">
 *        <polyline points="x,y x,y ..."/>    (line: one polyline, N pairs)
 *        <circle cx cy r/> ...                (points: N circles)
 *     </g> ...
 *     <g class="legend"> <text>NAME</text> per series </g>
 *   </svg>
 * Non-finite points (and x <= 0 on a log axis) are dropped and not counted. */
#ifndef NETVAR_SVG_PLOT_H
#define NETVAR_SVG_PLOT_H

#include <stddef.h>

#define NV_SVG_MAX_POINTS 200000u /* per series; more are an error */
#define NV_SVG_MAX_SERIES 16

typedef enum { NV_SVG_LINE = 0, NV_SVG_POINTS = 1 } nv_svg_style;

typedef struct nv_svg_series {
    const char *name;
    const double *x, *y;
    size_t n;
    nv_svg_style style;
    const char *color; /* "#rrggbb" or a CSS name; NULL picks one */
} nv_svg_series;

typedef struct nv_svg_chart {
    const char *title, *xlabel, *ylabel;
    int log_x; /* base-10 x axis */
    const nv_svg_series *series;
    size_t n_series;
} nv_svg_chart;

/* The SVG text (caller frees) and its length, or NULL with err set (too
 * many series or points, no finite point at all, out of memory). */
char *nv_svg_render(const nv_svg_chart *c, size_t *len, char *err, size_t errlen);

/* Render and write atomically (temp + rename, mode 0644); 0 or -1. */
int nv_svg_write(const nv_svg_chart *c, const char *path, char *err, size_t errlen);

#endif
