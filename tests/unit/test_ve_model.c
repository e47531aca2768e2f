/* test_ve_model.c - the Variability Estimate's parts: random forest
 * determinism and interval order, scaler round trip, libsvm SVR on a known
 * function (and the stored arrays predicting as libsvm did), the model
 * file's optional section (round trip, old files, bad sections), and bad
 * job records (no counters, missing statistics) giving a clear message. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <json-c/json.h>

#include "model.h"
#include "model_builder.h"
#include "ve_model.h"
#include "ve_records.h"
#include "ve_scaler.h"

static double lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*s >> 11) / 9007199254740992.0;
}

static void forest_is_deterministic_with_a_seed_and_intervals_are_ordered(void **state)
{
    enum { N = 200, DIM = 3 };
    double X[N * DIM], y[N];
    uint64_t s = 42;
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < DIM; j++)
            X[i * DIM + j] = lcg(&s);
        y[i] = (X[i * DIM] > 0.5 ? 2.0 : -1.0) + 0.1 * (lcg(&s) - 0.5);
    }
    nv_forest_params p = {.n_trees = 30, .min_leaf = 2, .max_features = 2, .seed = 7};
    nv_forest a, b, c;
    char err[200];
    assert_int_equal(nv_forest_train(X, y, N, DIM, &p, &a, err, sizeof err), 0);
    assert_int_equal(nv_forest_train(X, y, N, DIM, &p, &b, err, sizeof err), 0);
    p.seed = 8;
    assert_int_equal(nv_forest_train(X, y, N, DIM, &p, &c, err, sizeof err), 0);
    assert_int_equal(a.n_nodes, b.n_nodes);
    for (size_t i = 0; i < a.n_nodes; i++) {
        assert_int_equal(a.nodes[i].feature, b.nodes[i].feature);
        assert_int_equal(a.nodes[i].left, b.nodes[i].left);
        assert_int_equal(a.nodes[i].right, b.nodes[i].right);
        assert_true(a.nodes[i].threshold == b.nodes[i].threshold);
        assert_true(a.nodes[i].value == b.nodes[i].value);
    }
    int differs = a.n_nodes != c.n_nodes;
    for (size_t i = 0; !differs && i < a.n_nodes; i++)
        differs = a.nodes[i].threshold != c.nodes[i].threshold || a.nodes[i].value != c.nodes[i].value;
    assert_true(differs); /* another seed grows other trees */
    for (int k = 0; k < 20; k++) {
        double x[DIM] = {lcg(&s), lcg(&s), lcg(&s)}, tp[30], mean, lo, hi;
        nv_forest_tree_predictions(&a, x, tp);
        assert_int_equal(nv_forest_interval(&a, x, 0.05, 0.95, &mean, &lo, &hi), 0);
        double mn = tp[0], mx = tp[0];
        for (int t = 1; t < 30; t++) {
            mn = fmin(mn, tp[t]);
            mx = fmax(mx, tp[t]);
        }
        assert_true(mn <= lo && lo <= hi && hi <= mx);
        assert_true(fabs(mean - (x[0] > 0.5 ? 2.0 : -1.0)) < 0.6); /* it learned the step */
    }
    double m2, l2, h2, x0[DIM] = {0.2, 0.2, 0.2};
    assert_int_equal(nv_forest_interval(&a, x0, 0.9, 0.1, &m2, &l2, &h2), -1);
    nv_forest_free(&a);
    nv_forest_free(&b);
    nv_forest_free(&c);
    y[3] = NAN;
    assert_int_equal(nv_forest_train(X, y, N, DIM, &p, &a, err, sizeof err), -1);
    assert_non_null(strstr(err, "target 3"));
}

static void scaler_round_trip_and_zero_spread(void **state)
{
    /* column 0: 1..9 (median 5, IQR 4); column 1 constant (IQR 0 -> 1) */
    double X[9 * 2];
    for (int i = 0; i < 9; i++) {
        X[i * 2] = 9 - i;
        X[i * 2 + 1] = 3;
    }
    double med[2], iqr[2];
    assert_int_equal(nv_scaler_fit(X, 9, 2, med, iqr), 0);
    assert_true(med[0] == 5 && iqr[0] == 4);
    assert_true(med[1] == 3 && iqr[1] == 1);
    double x[2] = {13, 5}, z[2];
    nv_scaler_apply(med, iqr, 2, x, z);
    assert_true(z[0] == 2 && z[1] == 2);
    assert_true(z[0] * iqr[0] + med[0] == x[0]); /* inverse */
    X[4] = NAN;
    assert_int_equal(nv_scaler_fit(X, 9, 2, med, iqr), -1);
    assert_int_equal(nv_scaler_fit(X, 0, 2, med, iqr), -1);
}

static void svr_learns_a_sine_and_stored_arrays_predict_as_libsvm(void **state)
{
    enum { N = 60 };
    double X[N], y[N];
    for (int i = 0; i < N; i++) {
        X[i] = -3 + 6.0 * i / (N - 1);
        y[i] = sin(X[i]);
    }
    nv_svr s;
    char err[200];
    assert_int_equal(nv_svr_train(X, y, N, 1, 10, 0.5, 0.01, &s, err, sizeof err), 0);
    assert_true(s.n_sv > 0 && s.n_sv <= N);
    for (double x = -2.5; x <= 2.5; x += 0.37) {
        double p = nv_svr_predict(&s, &x);
        assert_true(fabs(p - sin(x)) < 0.08);
        /* the decision function written out from the copied arrays */
        double sum = -s.rho;
        for (size_t i = 0; i < s.n_sv; i++)
            sum += s.coef[i] * exp(-s.gamma * (s.sv[i] - x) * (s.sv[i] - x));
        assert_true(fabs(sum - p) < 1e-9);
    }
    nv_svr_free(&s);
    assert_int_equal(nv_svr_train(X, y, N, 1, -1, 0.5, 0.01, &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "C=-1"));
}

/* a small VE: z depends on feature 2 (stall ratio p75) */
static nv_ve *small_ve(void)
{
    enum { N = 60 };
    double feat[N * NV_VE_NFEAT], z[N];
    uint64_t s = 3;
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < NV_VE_NFEAT; j++)
            feat[i * NV_VE_NFEAT + j] = 10 * lcg(&s);
        z[i] = (feat[i * NV_VE_NFEAT + 2] - 5) / 3;
    }
    nv_ve_train_opts o = {.folds = 3, .seed = 5, .n_C = 1, .C_grid = {10}, .n_gamma = 1,
                          .gamma_grid = {0.1}, .forest = {.n_trees = 20}};
    char err[300];
    nv_ve *ve = nv_ve_train(feat, z, N, &o, err, sizeof err);
    assert_non_null(ve);
    assert_true(ve->training.cv_r2 > 0.5);
    assert_true(ve->training.abstention >= 0 && ve->training.abstention <= 1);
    return ve;
}

static char *read_fixture(const char *name, size_t *len)
{
    char path[256];
    snprintf(path, sizeof path, "tests/fixtures/model/%s", name);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *buf = malloc(1 << 20);
    *len = fread(buf, 1, (1 << 20) - 1, f);
    buf[*len] = 0;
    fclose(f);
    return buf;
}

static void model_file_section_round_trips_and_old_files_load(void **state)
{
    size_t len;
    char *text = read_fixture("valid_small.json", &len);
    char err[512];
    nv_model *old = nv_model_load_buffer(text, len, err, sizeof err);
    assert_non_null(old);
    assert_null(nv_model_variability(old)); /* a file without the section */
    nv_ve *ve = small_ve();
    nv_model_builder *b = nv_builder_from_model(old);
    assert_int_equal(nv_builder_set_variability(b, ve), 0);
    nv_model *m = nv_builder_build(b, err, sizeof err);
    assert_non_null(m);
    const nv_ve *back = nv_model_variability(m);
    assert_non_null(back);
    assert_int_equal(back->svr.n_sv, ve->svr.n_sv);
    assert_int_equal(back->forest.n_nodes, ve->forest.n_nodes);
    for (int k = 0; k < 10; k++) {
        double f[NV_VE_NFEAT];
        for (int j = 0; j < NV_VE_NFEAT; j++)
            f[j] = k + j * 0.5;
        nv_ve_result r1, r2;
        nv_ve_estimate(ve, f, &r1);
        nv_ve_estimate(back, f, &r2);
        assert_int_equal(r1.answered, r2.answered);
        assert_true(r1.svr == r2.svr && r1.forest_lo == r2.forest_lo && r1.forest_hi == r2.forest_hi);
    }
    /* the section survives a copy of the model (nv_model_save's path) */
    nv_model_builder *b2 = nv_builder_from_model(m);
    nv_model *m2 = nv_builder_build(b2, err, sizeof err);
    assert_non_null(m2);
    assert_non_null(nv_model_variability(m2));
    nv_model_free(m2);
    nv_builder_free(b2);
    nv_model_free(m);
    nv_builder_free(b);
    nv_model_free(old);
    nv_ve_free(ve);
    free(text);
}

/* replaces the section's field at the JSON path with value, loads, and
 * expects one error line naming the field */
static void expect_bad(const char *what, void (*mutate)(json_object *ve), const char *needle)
{
    size_t len;
    char *text = read_fixture("valid_small.json", &len);
    json_object *root = json_tokener_parse(text);
    nv_ve *ve = small_ve();
    json_object *sec = nv_ve_to_json(ve);
    mutate(sec);
    json_object_object_add(root, "variability", sec);
    const char *s = json_object_to_json_string(root);
    char err[512];
    nv_model *m = nv_model_load_buffer(s, strlen(s), err, sizeof err);
    if (m)
        fail_msg("%s: loaded", what);
    if (!strstr(err, needle) || strchr(err, '\n'))
        fail_msg("%s: error \"%s\" lacks \"%s\"", what, err, needle);
    json_object_put(root);
    nv_ve_free(ve);
    free(text);
}

static void zero_iqr(json_object *v)
{
    json_object *sc = json_object_object_get(v, "scaler");
    json_object_array_put_idx(json_object_object_get(sc, "iqr"), 2, json_object_new_double(0));
}
static void nan_coef(json_object *v)
{
    json_object *sv = json_object_object_get(v, "svr");
    json_object_array_put_idx(json_object_object_get(sv, "coef"), 0, json_object_new_double(NAN));
}
static void backwards_child(json_object *v)
{
    json_object *t = json_object_array_get_idx(
        json_object_object_get(json_object_object_get(v, "forest"), "trees"), 0);
    json_object_array_put_idx(json_object_object_get(t, "left"), 0, json_object_new_int(0));
}
static void wrong_feature(json_object *v)
{
    json_object_array_put_idx(json_object_object_get(v, "features"), 3,
                              json_object_new_string("net_stalls.p99"));
}
static void short_vector(json_object *v)
{
    json_object *sv = json_object_object_get(v, "svr");
    json_object_array_del_idx(json_object_array_get_idx(
                                  json_object_object_get(sv, "support_vectors"), 0), 0, 1);
}
static void no_forest(json_object *v) { json_object_object_del(v, "forest"); }

static void bad_sections_are_rejected_with_one_line(void **state)
{
    expect_bad("zero iqr", zero_iqr, "variability.scaler.iqr[2]");
    expect_bad("nan coef", nan_coef, "variability.svr.coef[0]: value NaN");
    expect_bad("backwards child", backwards_child, "variability.forest.trees[0].left[0]");
    expect_bad("wrong feature", wrong_feature, "variability.features[3]");
    expect_bad("short vector", short_vector, "variability.svr.support_vectors[0]");
    expect_bad("no forest", no_forest, "variability.forest: missing required field");
}

static void records_without_counters_get_a_clear_message(void **state)
{
    nv_ve *ve = small_ve();
    nv_ve_result r;
    char err[300];
    json_object *rec = json_tokener_parse(
        "{\"schema\":\"netvar-job-record\",\"nodes\":[\"n1\",\"n2\"],\"runtime_s\":10}");
    assert_int_equal(nv_ve_estimate_record(ve, rec, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "no counter metrics"));
    json_object_put(rec);
    /* netdev-only counters: no network-side statistics */
    rec = json_tokener_parse(
        "{\"schema\":\"netvar-job-record\",\"nodes\":[\"n1\"],\"runtime_s\":10,\"metrics\":{"
        "\"proc_traffic_per_s\":{\"mean\":1e6,\"variance\":0,\"p75\":1e6,\"p95\":1e6,\"p99\":1e6,"
        "\"blades\":1},\"net_to_proc_traffic\":{\"blades\":0}}}");
    assert_int_equal(nv_ve_estimate_record(ve, rec, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "lacks net_to_proc_traffic.mean"));
    assert_int_equal(r.answered, 0);
    json_object_put(rec);
    rec = json_tokener_parse("{\"schema\":\"something-else\"}");
    assert_int_equal(nv_ve_estimate_record(ve, rec, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a netvar job record"));
    json_object_put(rec);
    nv_ve_free(ve);
}

static void words_and_abstention_text(void **state)
{
    assert_string_equal(nv_ve_label(1.3), "ran in heavy congestion");
    assert_string_equal(nv_ve_label(0.5), "ran in moderate congestion");
    assert_string_equal(nv_ve_label(0.0), "ran in typical network conditions");
    assert_string_equal(nv_ve_label(-0.8), "ran in light congestion");
    nv_ve ve = {.lo_q = 0.05, .hi_q = 0.95};
    nv_ve_result r = {.answered = 1, .z = 1.3, .half_width = 0.6, .label = nv_ve_label(1.3)};
    char buf[300];
    nv_ve_format(&ve, &r, buf, sizeof buf);
    assert_string_equal(buf, "+1.3 σ (± 0.6): ran in heavy congestion");
    r.answered = 0;
    nv_ve_format(&ve, &r, buf, sizeof buf);
    assert_true(!strncmp(buf, "no estimate: outside training data", 34));
}

static void zscores_per_app_and_size(void **state)
{
    nv_ve_job j[7];
    memset(j, 0, sizeof j);
    double rt[7] = {10, 12, 14, 100, 100, 5, 7};
    for (int i = 0; i < 7; i++) {
        j[i].runtime_s = rt[i];
        j[i].nodes = i < 5 ? 4 : 8;
        snprintf(j[i].app, sizeof j[i].app, "%s", i < 3 ? "a" : "b");
    }
    double z[7];
    size_t good = nv_ve_runtime_zscores(j, 7, 2, z);
    /* a: 10,12,14 -> mean 12 sd 1.633; b@4: zero spread; b@8: 5,7 -> -1, +1 */
    assert_int_equal(good, 5);
    assert_true(fabs(z[0] + 2 / sqrt(8.0 / 3)) < 1e-12 && z[1] == 0);
    assert_true(isnan(z[3]) && isnan(z[4]));
    assert_true(fabs(z[5] + 1) < 1e-12 && fabs(z[6] - 1) < 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(forest_is_deterministic_with_a_seed_and_intervals_are_ordered),
        cmocka_unit_test(scaler_round_trip_and_zero_spread),
        cmocka_unit_test(svr_learns_a_sine_and_stored_arrays_predict_as_libsvm),
        cmocka_unit_test(model_file_section_round_trips_and_old_files_load),
        cmocka_unit_test(bad_sections_are_rejected_with_one_line),
        cmocka_unit_test(records_without_counters_get_a_clear_message),
        cmocka_unit_test(words_and_abstention_text),
        cmocka_unit_test(zscores_per_app_and_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
