/* test_report_svg.c - the SVG writer checked by parsing its output (a small
 * XML walker: every tag closed in order, attributes quoted, elements and
 * series counted), and the pure parts of `netvar report`: per-segment
 * interference flags agreeing with the estimator, the recorded annotation,
 * and cluster pairs worst first. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model.h"
#include "model_builder.h"
#include "report_logic.h"
#include "segment_estimate.h"
#include "svg_plot.h"

/* ---- a minimal XML checker: enough to prove structure, not a full parser */
struct elem {
    char name[32], cls[64], data_points[16], data_name[64], points_attr[4096];
    int depth;
};
struct doc {
    struct elem e[4096];
    size_t n;
    int ok;
    char why[128];
};

static void attr(const char *tag, const char *key, char *out, size_t cap)
{
    char pat[48];
    snprintf(pat, sizeof pat, " %s=\"", key);
    out[0] = 0;
    const char *p = strstr(tag, pat);
    if (!p)
        return;
    p += strlen(pat);
    const char *e = strchr(p, '"');
    size_t n = e ? (size_t)(e - p) : 0;
    if (n >= cap)
        n = cap - 1;
    memcpy(out, p, n);
    out[n] = 0;
}

static void parse(const char *s, struct doc *d)
{
    char stack[64][32];
    int depth = 0;
    d->n = 0;
    d->ok = 1;
    const char *p = s;
    while ((p = strchr(p, '<'))) {
        const char *e = strchr(p, '>');
        if (!e) {
            d->ok = 0;
            snprintf(d->why, sizeof d->why, "unterminated tag");
            return;
        }
        if (p[1] == '?') {
            p = e + 1;
            continue;
        }
        /* quotes inside a tag must pair up */
        int q = 0;
        for (const char *c = p; c < e; c++)
            q += *c == '"';
        if (q % 2) {
            d->ok = 0;
            snprintf(d->why, sizeof d->why, "unbalanced quotes");
            return;
        }
        char name[32];
        size_t k = 0;
        const char *c = p + 1 + (p[1] == '/');
        while (c < e && *c != ' ' && *c != '/' && k < 31)
            name[k++] = *c++;
        name[k] = 0;
        if (p[1] == '/') {
            if (depth == 0 || strcmp(stack[depth - 1], name)) {
                d->ok = 0;
                snprintf(d->why, sizeof d->why, "</%s> closes <%s>", name,
                         depth ? stack[depth - 1] : "");
                return;
            }
            depth--;
        } else {
            size_t len = (size_t)(e - p);
            char *tag = malloc(len + 2);
            memcpy(tag, p, len);
            tag[len] = 0;
            if (d->n < 4096) {
                struct elem *x = &d->e[d->n++];
                snprintf(x->name, sizeof x->name, "%s", name);
                attr(tag, "class", x->cls, sizeof x->cls);
                attr(tag, "data-points", x->data_points, sizeof x->data_points);
                attr(tag, "data-name", x->data_name, sizeof x->data_name);
                attr(tag, "points", x->points_attr, sizeof x->points_attr);
                x->depth = depth;
            }
            free(tag);
            if (e[-1] != '/') {
                if (depth == 64) {
                    d->ok = 0;
                    return;
                }
                snprintf(stack[depth++], 32, "%s", name);
            }
        }
        p = e + 1;
    }
    if (depth) {
        d->ok = 0;
        snprintf(d->why, sizeof d->why, "<%s> never closed", stack[depth - 1]);
    }
}

static size_t count(const struct doc *d, const char *name, const char *cls)
{
    size_t n = 0;
    for (size_t i = 0; i < d->n; i++)
        n += !strcmp(d->e[i].name, name) && (!cls || !strcmp(d->e[i].cls, cls));
    return n;
}

static size_t pairs_in(const char *pts)
{
    size_t n = 0;
    for (const char *p = pts; *p; p++)
        n += *p == ',';
    return n;
}

static void svg_has_axes_and_one_group_per_series(void **state)
{
    (void)state;
    double px[] = {0.1, 0.3, 0.5, 0.7}, py[] = {1, 4, NAN, 9};
    double fx[] = {0.1, 0.3, 0.7}, fy[] = {1, 4, 9};
    nv_svg_series s[2] = {{"measured <pts> & co", px, py, 4, NV_SVG_POINTS, NULL},
                          {"fit", fx, fy, 3, NV_SVG_LINE, NULL}};
    nv_svg_chart c = {"p_A(U) of \"x\"", "U (%)", "slowdown (%)", 0, s, 2};
    char err[128];
    size_t len;
    char *svg = nv_svg_render(&c, &len, err, sizeof err);
    assert_non_null(svg);
    assert_int_equal(strlen(svg), len);
    struct doc *d = calloc(1, sizeof *d);
    parse(svg, d);
    if (!d->ok)
        fprintf(stderr, "svg: %s\n", d->why);
    assert_true(d->ok);
    assert_string_equal(d->e[0].name, "svg");
    assert_string_equal(d->e[0].cls, "netvar-plot");
    assert_int_equal(count(d, "line", "axis x"), 1);
    assert_int_equal(count(d, "line", "axis y"), 1);
    assert_true(count(d, "text", "tick x") >= 2);
    assert_true(count(d, "text", "tick y") >= 2);
    assert_int_equal(count(d, "text", "label x"), 1);
    assert_int_equal(count(d, "g", "series"), 2);
    /* the NaN point is dropped and not counted */
    size_t seen = 0;
    for (size_t i = 0; i < d->n; i++)
        if (!strcmp(d->e[i].cls, "series")) {
            if (!strcmp(d->e[i].data_name, "fit"))
                assert_string_equal(d->e[i].data_points, "3"), seen++;
            else {
                assert_string_equal(d->e[i].data_name, "measured &lt;pts&gt; &amp; co");
                assert_string_equal(d->e[i].data_points, "3"), seen++;
            }
        }
    assert_int_equal(seen, 2);
    assert_int_equal(count(d, "circle", NULL), 3);
    assert_int_equal(count(d, "polyline", NULL), 1);
    for (size_t i = 0; i < d->n; i++)
        if (!strcmp(d->e[i].name, "polyline"))
            assert_int_equal(pairs_in(d->e[i].points_attr), 3);
    free(d);
    free(svg);
}

static void svg_log_axis_drops_nonpositive_and_rejects_empty(void **state)
{
    (void)state;
    double x[] = {0, 1, 10, 100, 1000}, y[] = {5, 1, 2, 3, 4};
    nv_svg_series s = {"h", x, y, 5, NV_SVG_LINE, NULL};
    nv_svg_chart c = {"hist", "latency (us)", "%", 1, &s, 1};
    char err[128];
    size_t len;
    char *svg = nv_svg_render(&c, &len, err, sizeof err);
    assert_non_null(svg);
    struct doc *d = calloc(1, sizeof *d);
    parse(svg, d);
    assert_true(d->ok);
    assert_int_equal(count(d, "g", "series"), 1);
    for (size_t i = 0; i < d->n; i++)
        if (!strcmp(d->e[i].name, "polyline"))
            assert_int_equal(pairs_in(d->e[i].points_attr), 4);
    assert_int_equal(count(d, "text", "tick x"), 4); /* decades 1, 10, 100, 1000 */
    free(d);
    free(svg);
    double bad[] = {NAN};
    nv_svg_series e = {"none", bad, bad, 1, NV_SVG_LINE, NULL};
    nv_svg_chart ce = {"empty", "x", "y", 0, &e, 1};
    assert_null(nv_svg_render(&ce, &len, err, sizeof err));
    assert_non_null(strstr(err, "no finite point"));
}

static void segment_flags_agree_with_the_estimator(void **state)
{
    (void)state;
    enum { N = 60 };
    double work[N], t[N];
    uint32_t sig[N];
    for (int i = 0; i < N; i++) {
        work[i] = i % 2 ? 1000 : 5000; /* two clusters */
        sig[i] = i % 2;
        t[i] = (i % 2 ? 100 : 500) + (i % 5); /* small jitter */
    }
    t[7] = 400;   /* interfered in the small group */
    t[20] = 1500; /* interfered in the large group */
    nv_seg_estimate_opts o;
    nv_seg_estimate_opts_default(&o);
    unsigned char flag[N];
    long n = nv_report_segment_flags(work, t, sig, N, &o, flag);
    nv_seg_estimate est;
    assert_int_equal(nv_seg_estimate_run(work, t, sig, N, 0, &o, &est), 0);
    assert_int_equal(n, 2);
    assert_int_equal((size_t)n, est.interfered);
    assert_int_equal(flag[7], 1);
    assert_int_equal(flag[20], 1);
    assert_int_equal(flag[8], 0);
}

static void annotation_read_back_or_not_recorded(void **state)
{
    (void)state;
    char err[128];
    nv_report_annotation a;
    json_object *r = json_tokener_parse(
        "{\"annotation\":\"user text netvar:{\\\"v\\\":1,\\\"mode\\\":\\\"advise\\\","
        "\\\"own_pct\\\":12.5,\\\"src\\\":\\\"model:queue\\\",\\\"advice_nodes\\\":4}\"}");
    assert_non_null(r);
    assert_int_equal(nv_report_annotation_from_record(r, &a, err, sizeof err), 0);
    assert_int_equal(a.recorded, 1);
    assert_float_equal(a.own_pct, 12.5, 1e-12);
    assert_true(isnan(a.inflicted_pct));
    assert_int_equal(a.advice_nodes, 4);
    assert_string_equal(a.source, "model:queue");
    assert_string_equal(a.mode, "advise");
    json_object_put(r);
    r = json_tokener_parse("{\"job_id\":3}");
    assert_int_equal(nv_report_annotation_from_record(r, &a, err, sizeof err), 0);
    assert_int_equal(a.recorded, 0);
    json_object_put(r);
    r = json_tokener_parse("{\"comment\":\"netvar:{broken\"}");
    assert_int_equal(nv_report_annotation_from_record(r, &a, err, sizeof err), -1);
    assert_non_null(strstr(err, "comment"));
    json_object_put(r);
}

static void cluster_pairs_worst_first_and_switch_bound(void **state)
{
    (void)state;
    char err[256];
    nv_model *m = nv_model_load("tests/fixtures/model/table1.json", err, sizeof err);
    assert_non_null(m);
    const char *apps[] = {"FFTW", "MILC", "Lulesh", "nope"};
    const char *sw[] = {"leaf0,leaf3", "leaf0,leaf1", "leaf2,leaf4", "leaf0,leaf1"};
    nv_report_pair p[8];
    size_t n = nv_report_cluster_pairs(m, apps, sw, 4, NV_PREDICT_QUEUE, p, 8);
    assert_int_equal(n, 2); /* FFTW<->MILC both cross leaf0's uplink; Lulesh's leaves are
                               its own; "nope" unknown */
    assert_true(p[0].slowdown_pct >= p[1].slowdown_pct);
    assert_true((p[0].a == 0 && p[0].b == 1) || (p[0].a == 1 && p[0].b == 0));
    /* FFTW under leaf0 alone crosses no uplink: no pair, though MILC
     * crosses leaf0's */
    const char *local[] = {"leaf0", "leaf0,leaf1", "leaf2,leaf4", "leaf0,leaf1"};
    assert_int_equal(nv_report_cluster_pairs(m, apps, local, 4, NV_PREDICT_QUEUE, p, 8), 0);
    nv_report_pair top[1];
    assert_int_equal(nv_report_cluster_pairs(m, apps, NULL, 4, NV_PREDICT_QUEUE, top, 1), 6);
    nv_report_pair all[8];
    nv_report_cluster_pairs(m, apps, NULL, 4, NV_PREDICT_QUEUE, all, 8);
    assert_float_equal(top[0].slowdown_pct, all[0].slowdown_pct, 1e-12);
    for (int i = 1; i < 6; i++)
        assert_true(all[i - 1].slowdown_pct >= all[i].slowdown_pct);
    nv_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(svg_has_axes_and_one_group_per_series),
        cmocka_unit_test(svg_log_axis_drops_nonpositive_and_rejects_empty),
        cmocka_unit_test(segment_flags_agree_with_the_estimator),
        cmocka_unit_test(annotation_read_back_or_not_recorded),
        cmocka_unit_test(cluster_pairs_worst_first_and_switch_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
