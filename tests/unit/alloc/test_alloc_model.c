/* test_alloc_model.c - the "alloc" model section (alloc_model.h): hand-made
 * trees answer by XGBoost's rule, partitions by message size, the JSON
 * round trip, one-line refusals of bad sections; and the advice
 * (alloc_advice.h): best node count within the user's range and the
 * cluster, interference paid only across switches, the one-node cluster. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "alloc_advice.h"
#include "alloc_model.h"

static void near(double got, double want, const char *what)
{
    if (!(fabs(got - want) <= 1e-6 * (1.0 + fabs(want))))
        fail_msg("%s: got %.17g, want %.17g", what, got, want);
}

/* one tree: feature f < thr -> ln(a) else ln(b); sum with base 0 */
static void add_stump(nv_alloc_model *m, nv_alloc_class c, double max_msg, int f, double thr,
                      double a, double b)
{
    int32_t feat[3] = {f, -1, -1}, left[3] = {1, 0, 0}, right[3] = {2, 0, 0};
    double th[3] = {thr, 0, 0}, val[3] = {0, log(a), log(b)};
    uint32_t roots[1] = {0};
    nv_alloc_predictor p = {.cls = c, .max_msg_bytes = max_msg, .combine = NV_ALLOC_SUM, .base = 0};
    snprintf(p.source, sizeof p.source, "hand-made");
    char err[300];
    if (nv_alloc_add_predictor(m, &p, feat, th, left, right, val, 3, roots, 1, err, sizeof err))
        fail_msg("%s", err);
}

static nv_alloc_model *cluster(const uint32_t *nodes, size_t ns)
{
    nv_alloc_model *m = nv_alloc_new();
    assert_non_null(m);
    /* class C: comm 1 ms per phase inside one switch, 10 ms across */
    add_stump(m, NV_ALLOC_CLASS_C, INFINITY, NV_AF_SWITCHES, 1.5, 0.001, 0.01);
    add_stump(m, NV_ALLOC_CLASS_A, INFINITY, NV_AF_N, 100, 0.002, 0.002);
    nv_alloc_app a = {
        .compute_core_s = 100, .phases = 1000, .ranks = 8, .pattern = {.n = 1, .o = {{1, 1e5, 1}}}};
    snprintf(a.key, sizeof a.key, "stencil");
    snprintf(a.source, sizeof a.source, "sweep");
    char err[300];
    assert_int_equal(nv_alloc_add_app(m, &a, err, sizeof err), 0);
    for (size_t j = 0; j < ns; j++) {
        nv_alloc_switch s = {.group = 0, .nodes = nodes[j]};
        snprintf(s.name, sizeof s.name, "s%zu", j + 1);
        assert_int_equal(nv_alloc_add_switch(m, &s, err, sizeof err), 0);
    }
    assert_int_equal(nv_alloc_finish(m, err, sizeof err), 0);
    return m;
}

static void trees_and_partitions(void **state)
{
    (void)state;
    nv_alloc_model *m = nv_alloc_new();
    add_stump(m, NV_ALLOC_CLASS_B, 4096, NV_AF_MAX_NT, 1000, 1, 2);
    add_stump(m, NV_ALLOC_CLASS_B, INFINITY, NV_AF_MAX_NT, 1000, 3, 4);
    char err[300];
    assert_int_equal(nv_alloc_finish(m, err, sizeof err), 0);
    double x[NV_AF_COUNT] = {0}, t;
    const nv_alloc_predictor *w;
    x[NV_AF_MAX_S] = 4096;
    x[NV_AF_MAX_NT] = 999.9999; /* below the threshold: left */
    assert_int_equal(nv_alloc_predict(m, NV_ALLOC_CLASS_B, x, &t, &w), 0);
    near(t, 1, "small messages, left");
    x[NV_AF_MAX_NT] = 1000; /* x < thr goes left: equal goes right */
    assert_int_equal(nv_alloc_predict(m, NV_ALLOC_CLASS_B, x, &t, &w), 0);
    near(t, 2, "small messages, right");
    x[NV_AF_MAX_S] = 4097;
    assert_int_equal(nv_alloc_predict(m, NV_ALLOC_CLASS_B, x, &t, &w), 0);
    near(t, 4, "large messages");
    assert_true(isinf(w->max_msg_bytes));
    assert_int_equal(nv_alloc_predict(m, NV_ALLOC_CLASS_C, x, &t, &w), -1); /* no class C */
    x[NV_AF_N] = NAN;
    assert_int_equal(nv_alloc_predict(m, NV_ALLOC_CLASS_B, x, &t, &w), -1);
    assert_int_equal(nv_alloc_best_class(m), NV_ALLOC_CLASS_B);
    /* a second predictor for the same class and partition is refused */
    add_stump(m, NV_ALLOC_CLASS_B, 4096, NV_AF_N, 1, 1, 1);
    assert_int_equal(nv_alloc_finish(m, err, sizeof err), -1);
    assert_non_null(strstr(err, "two class B"));
    nv_alloc_free(m);
}

static void json_round_trip(void **state)
{
    (void)state;
    uint32_t nodes[] = {4, 4};
    nv_alloc_model *m = cluster(nodes, 2);
    json_object *o = nv_alloc_to_json(m);
    assert_non_null(o);
    char err[400];
    nv_alloc_model *r = nv_alloc_from_json(o, "alloc", err, sizeof err);
    if (!r)
        fail_msg("%s", err);
    assert_int_equal(nv_alloc_predictor_count(r), 2);
    assert_int_equal(nv_alloc_app_count(r), 1);
    assert_int_equal(nv_alloc_total_nodes(r), 8);
    const nv_alloc_app *a = nv_alloc_app_find(r, "stencil");
    assert_non_null(a);
    assert_string_equal(a->source, "sweep");
    near(a->pattern.o[0].bytes, 1e5, "pattern bytes");
    assert_null(nv_alloc_app_find(r, "other"));
    /* the same text again */
    json_object *o2 = nv_alloc_to_json(r);
    assert_string_equal(json_object_to_json_string(o), json_object_to_json_string(o2));
    json_object_put(o2);
    json_object_put(o);
    nv_alloc_free(r);
    nv_alloc_free(m);
}

static void bad_sections(void **state)
{
    (void)state;
    static const char *bad[] = {
        "[]",
        "{\"target\": \"seconds\", \"features\": [], \"predictors\": [], \"apps\": []}",
        "{\"target\": \"ln communication s per phase\", \"features\": [\"N\"], \"predictors\": [], \"apps\": []}",
        /* a class A tree splitting on a class C feature */
        "{\"target\": \"ln communication s per phase\", \"features\": FEATS, \"predictors\": [{\"class\": \"A\", "
        "\"max_msg_bytes\": null, \"combine\": \"sum\", \"base\": 0, \"trees\": [{\"feature\": [13, -1, -1], "
        "\"threshold\": [1, 0, 0], \"left\": [1, 0, 0], \"right\": [2, 0, 0], \"value\": [0, 1, 2]}]}], \"apps\": []}",
        /* a child before its parent (a loop) */
        "{\"target\": \"ln communication s per phase\", \"features\": FEATS, \"predictors\": [{\"class\": \"A\", "
        "\"max_msg_bytes\": null, \"combine\": \"sum\", \"base\": 0, \"trees\": [{\"feature\": [0, 0, -1], "
        "\"threshold\": [1, 1, 0], \"left\": [1, 0, 0], \"right\": [2, 2, 0], \"value\": [0, 1, 2]}]}], \"apps\": []}",
        /* arrays of unequal length */
        "{\"target\": \"ln communication s per phase\", \"features\": FEATS, \"predictors\": [{\"class\": \"A\", "
        "\"max_msg_bytes\": 10, \"combine\": \"max\", \"base\": 0, \"trees\": [{\"feature\": [-1], "
        "\"threshold\": [0], \"left\": [0], \"right\": [0], \"value\": [0]}]}], \"apps\": []}",
        /* an app with a zero offset */
        "{\"target\": \"ln communication s per phase\", \"features\": FEATS, \"predictors\": [], \"apps\": [{\"key\": "
        "\"a\", \"compute_core_s\": 1, \"phases\": 1, \"msg_scaling\": 0, \"ranks\": 4, \"pattern\": [{\"offset\": 0, "
        "\"bytes\": 1, \"messages\": 1}]}]}",
    };
    char feats[600] = "[";
    for (int i = 0; i < NV_AF_COUNT; i++)
        snprintf(feats + strlen(feats), sizeof feats - strlen(feats), "%s\"%s\"", i ? "," : "",
                 nv_alloc_feature_name(i));
    strcat(feats, "]");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[2000], err[400] = "";
        const char *f = strstr(bad[i], "FEATS");
        if (f)
            snprintf(text, sizeof text, "%.*s%s%s", (int)(f - bad[i]), bad[i], feats, f + 5);
        else
            snprintf(text, sizeof text, "%s", bad[i]);
        json_object *o = json_tokener_parse(text);
        assert_non_null(o);
        nv_alloc_model *m = nv_alloc_from_json(o, "alloc", err, sizeof err);
        if (m)
            fail_msg("case %zu loaded", i);
        assert_true(err[0] && !strchr(err, '\n'));
        assert_non_null(strstr(err, "alloc"));
        json_object_put(o);
    }
}

static void advice_best_within_cluster(void **state)
{
    (void)state;
    uint32_t nodes[] = {4, 4};
    nv_alloc_model *m = cluster(nodes, 2);
    /* T(N) = 100/N + 1000 x comm: 4 nodes in one switch 25 + 1 = 26 s;
     * 8 nodes across two 12.5 + 10 = 22.5 s */
    nv_alloc_query q = {.app = "stencil", .min_nodes = 1, .max_nodes = 16, .interference_pct = NAN};
    nv_alloc_advice a;
    assert_int_equal(nv_alloc_advise(m, &q, &a), 0);
    assert_int_equal(a.best.nodes, 8);
    assert_int_equal(a.best.switches, 2);
    assert_true(a.capped);
    assert_int_equal(a.cap_nodes, 8);
    assert_int_equal(a.cls, NV_ALLOC_CLASS_C);
    near(a.best.time_s, 22.5, "8 nodes");
    assert_int_equal(a.compared.nodes, 1);
    near(a.compared.time_s, 101, "1 node");
    /* beside a running job slowing it 50 % on the uplink: 33.75 s, so 4 nodes */
    q.interference_pct = 50;
    assert_int_equal(nv_alloc_advise(m, &q, &a), 0);
    assert_int_equal(a.best.nodes, 4);
    near(a.best.time_s, 26, "4 nodes in one switch");
    /* the user's range is the limit */
    q.min_nodes = 2;
    q.max_nodes = 3;
    q.interference_pct = 0;
    assert_int_equal(nv_alloc_advise(m, &q, &a), 0);
    assert_int_equal(a.best.nodes, 3);
    assert_false(a.capped);
    /* no range: only the count asked for */
    q.min_nodes = 6;
    q.max_nodes = 0;
    assert_int_equal(nv_alloc_advise(m, &q, &a), 0);
    assert_int_equal(a.best.nodes, 6);
    assert_int_equal(a.n_candidates, 1);
    q.app = "unknown";
    assert_int_equal(nv_alloc_advise(m, &q, &a), -1);
    assert_non_null(a.why_not);
    nv_alloc_free(m);
}

static void advice_on_one_node_cluster(void **state)
{
    (void)state;
    uint32_t nodes[] = {1};
    nv_alloc_model *m = cluster(nodes, 1);
    nv_alloc_query q = {.app = "stencil", .min_nodes = 1, .max_nodes = 16, .interference_pct = NAN};
    nv_alloc_advice a;
    assert_int_equal(nv_alloc_advise(m, &q, &a), 0);
    assert_int_equal(a.best.nodes, 1); /* never 16 */
    assert_true(a.capped);
    q.min_nodes = 2;
    assert_int_equal(nv_alloc_advise(m, &q, &a), -1);
    assert_non_null(strstr(a.why_not, "fewer nodes"));
    nv_alloc_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(trees_and_partitions),
        cmocka_unit_test(json_round_trip),
        cmocka_unit_test(bad_sections),
        cmocka_unit_test(advice_best_within_cluster),
        cmocka_unit_test(advice_on_one_node_cluster),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
