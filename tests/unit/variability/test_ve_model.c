/* test_ve_model.c - the Variability Estimate's parts: random forest
 * determinism and interval order, out-of-bag summaries, the interval
 * calibration (exact conformal rank; coverage of fresh data where the true
 * noise is known), scaler round trip, libsvm SVR on a known function (and
 * the stored arrays predicting as libsvm did), the model file's optional
 * section (round trip, old files, files without calibration, bad sections),
 * and bad job records (no counters, missing statistics) giving a clear
 * message. */
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
#include "svr_libsvm.h"
#include "ve_calibrate.h"
#include "ve_records.h"
#include "ve_scaler.h"
#include "ve_train.h"

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
        differs =
            a.nodes[i].threshold != c.nodes[i].threshold || a.nodes[i].value != c.nodes[i].value;
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

/* N(0,1) from the lcg (Box-Muller) */
static double gauss(uint64_t *s)
{
    double u = lcg(s), v = lcg(s);
    return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

static void oob_training_grows_the_same_trees_and_leaves_a_third_out(void **state)
{
    enum { N = 150, DIM = 2, T = 40 };
    double X[N * DIM], y[N];
    uint64_t s = 9;
    for (int i = 0; i < N; i++) {
        X[i * DIM] = lcg(&s);
        X[i * DIM + 1] = lcg(&s);
        y[i] = 3 * X[i * DIM] + 0.2 * gauss(&s);
    }
    nv_forest_params p = {.n_trees = T, .min_leaf = 2, .max_features = 1, .seed = 11};
    nv_forest a, b;
    nv_forest_oob oob[N];
    char err[200];
    assert_int_equal(nv_forest_train(X, y, N, DIM, &p, &a, err, sizeof err), 0);
    assert_int_equal(nv_forest_train_oob(X, y, N, DIM, &p, &b, oob, err, sizeof err), 0);
    assert_int_equal(a.n_nodes, b.n_nodes);
    for (size_t i = 0; i < a.n_nodes; i++)
        assert_true(a.nodes[i].threshold == b.nodes[i].threshold &&
                    a.nodes[i].value == b.nodes[i].value);
    double left_out = 0;
    for (int i = 0; i < N; i++) {
        assert_true(oob[i].trees <= T && oob[i].sd >= 0);
        left_out += oob[i].trees;
        /* a job's out-of-bag mean comes from trees that never saw its noise */
        if (oob[i].trees >= 5)
            assert_true(fabs(oob[i].mean - 3 * X[i * DIM]) < 1.2);
    }
    left_out /= (double)N * T;
    assert_true(left_out > 0.30 && left_out < 0.44); /* (1 - 1/N)^N ~ 0.368 */
    double mean, sd, x[DIM] = {0.5, 0.5};
    assert_int_equal(nv_forest_spread(&b, x, &mean, &sd), 0);
    assert_true(fabs(mean - 1.5) < 0.5 && sd > 0 && sd < 1);
    nv_forest_free(&a);
    nv_forest_free(&b);
}

static void calibration_takes_the_conformal_rank(void **state)
{
    /* every s_i = 1, so beta = 1 and score_i = |y_i - m_i| / 2 = i + 1 */
    enum { M = 19 };
    nv_forest_oob oob[M + 1];
    double y[M + 1], point[M + 1];
    for (int i = 0; i < M; i++) {
        oob[i] = (nv_forest_oob){.mean = 0, .sd = 1, .trees = 5};
        y[i] = 2.0 * (i + 1) * (i % 2 ? 1 : -1);
        point[i] = y[i] / 2; /* point scores: (i + 1) / 2 */
    }
    oob[M] = (nv_forest_oob){.mean = 0, .sd = 1, .trees = 1}; /* too few trees: ignored */
    y[M] = 1000;
    point[M] = 0;
    nv_ve_calibration c;
    char err[200];
    assert_int_equal(nv_ve_calibrate(oob, y, M + 1, 0.9, &c, err, sizeof err), 0);
    /* ceil((19 + 1) 0.9) = 18th smallest of 1..19 */
    assert_true(c.calibrated && c.spread_floor == 1 && c.factor == 18 && c.points == M);
    assert_true(fabs(c.oob_coverage - 18.0 / 19) < 1e-12);
    assert_true(nv_ve_calibrated_half_width(&c, 0.5) == 18 * 1.5);
    assert_int_equal(nv_ve_calibrate_point(oob, y, point, M + 1, &c, err, sizeof err), 0);
    assert_true(c.svr_factor == 9 && c.factor == 18);
    assert_true(nv_ve_reported_half_width(&c, NAN) == 9); /* a NaN spread counts as 0 */
    /* 9 scores: rank ceil(10 0.9) = 9, the largest */
    assert_int_equal(nv_ve_calibrate(oob, y, 9, 0.9, &c, err, sizeof err), 0);
    assert_true(c.factor == 9);
    assert_int_equal(nv_ve_calibrate(oob + M, y + M, 1, 0.9, &c, err, sizeof err), -1);
    assert_non_null(strstr(err, "2 or more trees"));
    assert_int_equal(nv_ve_calibrate(oob, y, M, 1.0, &c, err, sizeof err), -1);
    assert_non_null(strstr(err, "level 1"));
}

/* y = 2 sin(3 x0) + x1 + noise whose sd is 0.1 + 0.5 x0 (known, and
 * changing across the space); row i of X is DIM uniforms */
enum { CAL_DIM = 3 };
static void noisy_rows(uint64_t *s, double *X, double *y, double *noise_sd, int n)
{
    for (int i = 0; i < n; i++) {
        double *x = X + i * CAL_DIM;
        for (int j = 0; j < CAL_DIM; j++)
            x[j] = lcg(s);
        noise_sd[i] = 0.1 + 0.5 * x[0];
        y[i] = 2 * sin(3 * x[0]) + x[1] + noise_sd[i] * gauss(s);
    }
}

static void calibrated_forest_interval_covers_fresh_data(void **state)
{
    enum { N = 600, FRESH = 2000, T = 100 };
    static double X[N * CAL_DIM], y[N], sdv[N], Xf[FRESH * CAL_DIM], yf[FRESH], sdf[FRESH];
    static nv_forest_oob oob[N];
    uint64_t s = 2024;
    noisy_rows(&s, X, y, sdv, N);
    noisy_rows(&s, Xf, yf, sdf, FRESH);
    nv_forest_params p = {.n_trees = T, .min_leaf = 2, .max_features = 2, .seed = 3};
    nv_forest f;
    nv_ve_calibration c, c2;
    char err[200];
    assert_int_equal(nv_forest_train_oob(X, y, N, CAL_DIM, &p, &f, oob, err, sizeof err), 0);
    assert_int_equal(nv_ve_calibrate(oob, y, N, 0.9, &c, err, sizeof err), 0);
    assert_true(c.points > N * 95 / 100 && c.factor > 0 && c.spread_floor > 0);
    size_t in = 0, in_raw = 0, n_lo = 0, n_hi = 0;
    double hw_sum = 0, hw_lo = 0, hw_hi = 0, true_hw = 0;
    for (int i = 0; i < FRESH; i++) {
        double mean, sd, lo, hi, m2;
        assert_int_equal(nv_forest_spread(&f, Xf + i * CAL_DIM, &mean, &sd), 0);
        double h = nv_ve_calibrated_half_width(&c, sd);
        in += fabs(yf[i] - mean) <= h;
        nv_forest_interval(&f, Xf + i * CAL_DIM, 0.05, 0.95, &m2, &lo, &hi);
        in_raw += yf[i] >= lo && yf[i] <= hi;
        hw_sum += h;
        true_hw += 1.645 * sdf[i]; /* the exact 90 % half-width of the noise */
        if (Xf[i * CAL_DIM] < 0.3) {
            hw_lo += h;
            n_lo++;
        } else if (Xf[i * CAL_DIM] > 0.7) {
            hw_hi += h;
            n_hi++;
        }
    }
    double cover = (double)in / FRESH;
    print_message("calibrated 90 %% forest interval: fresh coverage %.3f (raw 5-95 %% quantiles "
                  "%.3f), mean half-width %.3f vs the noise's own %.3f\n",
                  cover, (double)in_raw / FRESH, hw_sum / FRESH, true_hw / FRESH);
    assert_true(cover >= 0.80 && cover <= 0.98);
    assert_true(in_raw < in); /* the raw tree quantiles under-cover (why calibrate) */
    /* not covering by being uselessly wide: within reach of the noise's own
     * 90 % half-width (the forest's error of the mean adds to it) */
    assert_true(hw_sum / FRESH > 0.8 * true_hw / FRESH && hw_sum / FRESH < 2.0 * true_hw / FRESH);
    /* the tree spread shapes it: wider where the noise is larger */
    assert_true(hw_hi / (double)n_hi > 1.2 * hw_lo / (double)n_lo);
    /* deterministic with the seed */
    nv_forest g;
    assert_int_equal(nv_forest_train_oob(X, y, N, CAL_DIM, &p, &g, oob, err, sizeof err), 0);
    assert_int_equal(nv_ve_calibrate(oob, y, N, 0.9, &c2, err, sizeof err), 0);
    assert_true(c2.factor == c.factor && c2.spread_floor == c.spread_floor);
    nv_forest_free(&f);
    nv_forest_free(&g);
}

/* the whole VE where z = known function of the features + known noise:
 * held-out figures from training and coverage of fresh jobs */
static void ve_error_bound_covers_fresh_jobs(void **state)
{
    enum { N = 400, FRESH = 1000, D7 = NV_VE_NFEAT };
    static double feat[N * D7], z[N], ff[FRESH * D7], zf[FRESH];
    uint64_t s = 77;
    for (int i = 0; i < N + FRESH; i++) {
        double *f = i < N ? feat + i * D7 : ff + (i - N) * D7;
        for (int j = 0; j < D7; j++)
            f[j] = 10 * lcg(&s);
        double zz = (f[2] - 5) / 3 + 0.5 * sin(f[0] / 2) + 0.3 * gauss(&s);
        if (i < N)
            z[i] = zz;
        else
            zf[i - N] = zz;
    }
    nv_ve_train_opts o = {.folds = 5,
                          .seed = 13,
                          .n_C = 1,
                          .C_grid = {10},
                          .n_gamma = 1,
                          .gamma_grid = {0.03},
                          .forest = {.n_trees = 60}};
    char err[300];
    nv_ve *ve = nv_ve_train(feat, z, N, &o, err, sizeof err);
    assert_non_null(ve);
    const nv_ve_training *t = &ve->training;
    print_message("VE: R^2 %.3f, held out: forest %.3f, SVR %.3f, abstained %.3f, answered "
                  "covered %.3f\n",
                  t->cv_r2, t->interval_coverage, t->point_coverage, t->abstention, t->coverage);
    assert_true(ve->cal.calibrated && fabs(ve->cal.level - 0.9) < 1e-12);
    assert_true(t->interval_coverage >= 0.80 && t->interval_coverage <= 0.98);
    assert_true(t->point_coverage >= 0.80 && t->point_coverage <= 0.98);
    size_t answered = 0, covered = 0, all_in = 0;
    for (int i = 0; i < FRESH; i++) {
        nv_ve_result r;
        nv_ve_estimate(ve, ff + i * D7, &r);
        assert_true(isfinite(r.half_width) && r.half_width > 0);
        all_in += fabs(zf[i] - r.svr) <= r.half_width;
        if (r.answered) {
            answered++;
            covered += fabs(zf[i] - r.z) <= r.half_width;
            assert_true(fabs(r.forest_mean - r.z) <= r.half_width);
        }
    }
    print_message("VE on %d fresh jobs: SVR +/- h covered %.3f; answered %.3f, of which "
                  "covered %.3f\n",
                  FRESH, (double)all_in / FRESH, (double)answered / FRESH,
                  (double)covered / (double)answered);
    assert_true((double)all_in / FRESH >= 0.80 && (double)all_in / FRESH <= 0.98);
    assert_true(answered > FRESH / 2);
    assert_true((double)covered / (double)answered >= 0.80 &&
                (double)covered / (double)answered <= 0.99);
    /* the same seed trains the same VE */
    nv_ve *again = nv_ve_train(feat, z, N, &o, err, sizeof err);
    assert_non_null(again);
    assert_true(again->cal.factor == ve->cal.factor &&
                again->cal.svr_factor == ve->cal.svr_factor &&
                again->training.coverage == ve->training.coverage);
    nv_ve_free(again);
    nv_ve_free(ve);
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
    nv_ve_train_opts o = {.folds = 3,
                          .seed = 5,
                          .n_C = 1,
                          .C_grid = {10},
                          .n_gamma = 1,
                          .gamma_grid = {0.1},
                          .forest = {.n_trees = 20}};
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
    assert_true(back->cal.calibrated && back->cal.factor == ve->cal.factor &&
                back->cal.svr_factor == ve->cal.svr_factor &&
                back->cal.spread_floor == ve->cal.spread_floor &&
                back->cal.level == ve->cal.level && back->cal.points == ve->cal.points);
    for (int k = 0; k < 10; k++) {
        double f[NV_VE_NFEAT];
        for (int j = 0; j < NV_VE_NFEAT; j++)
            f[j] = k + j * 0.5;
        nv_ve_result r1, r2;
        nv_ve_estimate(ve, f, &r1);
        nv_ve_estimate(back, f, &r2);
        assert_int_equal(r1.answered, r2.answered);
        assert_true(r1.svr == r2.svr && r1.forest_lo == r2.forest_lo &&
                    r1.forest_hi == r2.forest_hi);
        assert_true(r1.half_width == r2.half_width);
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

static json_object *calibration_of(json_object *v)
{
    return json_object_object_get(json_object_object_get(v, "forest"), "calibration");
}

/* a section written before calibration existed still loads, and means the
 * raw quantile interval */
static void sections_without_calibration_keep_their_old_meaning(void **state)
{
    size_t len;
    char *text = read_fixture("valid_small.json", &len);
    json_object *root = json_tokener_parse(text);
    nv_ve *ve = small_ve();
    json_object *sec = nv_ve_to_json(ve);
    assert_non_null(calibration_of(sec));
    json_object_object_del(json_object_object_get(sec, "forest"), "calibration");
    json_object_object_add(root, "variability", sec);
    const char *js = json_object_to_json_string(root);
    char err[512];
    nv_model *m = nv_model_load_buffer(js, strlen(js), err, sizeof err);
    assert_non_null(m);
    const nv_ve *old = nv_model_variability(m);
    assert_non_null(old);
    assert_int_equal(old->cal.calibrated, 0);
    for (int k = 0; k < 10; k++) {
        double f[NV_VE_NFEAT], x[NV_VE_NFEAT], mean, lo, hi;
        for (int j = 0; j < NV_VE_NFEAT; j++)
            f[j] = k + j * 0.5;
        nv_ve_result r;
        nv_ve_estimate(old, f, &r);
        nv_scaler_apply(old->median, old->iqr, NV_VE_NFEAT, f, x);
        assert_int_equal(nv_forest_interval(&old->forest, x, 0.05, 0.95, &mean, &lo, &hi), 0);
        assert_true(r.forest_lo == lo && r.forest_hi == hi);
        assert_int_equal(r.answered, r.svr >= lo && r.svr <= hi);
        if (r.answered)
            assert_true(r.half_width == (hi - lo) / 2);
    }
    nv_model_free(m);
    json_object_put(root);
    nv_ve_free(ve);
    free(text);
}

static void cal_negative_factor(json_object *v)
{
    json_object_object_add(calibration_of(v), "factor", json_object_new_double(-1));
}
static void cal_level_one(json_object *v)
{
    json_object_object_add(calibration_of(v), "level", json_object_new_double(1.0));
}
static void cal_unknown_method(json_object *v)
{
    json_object_object_add(calibration_of(v), "method", json_object_new_string("bootstrap"));
}
static void cal_zero_floor(json_object *v)
{
    json_object_object_add(calibration_of(v), "spread_floor", json_object_new_double(0));
}
static void cal_no_svr_factor(json_object *v)
{
    json_object_object_del(calibration_of(v), "svr_factor");
}
static void cal_not_object(json_object *v)
{
    json_object_object_add(json_object_object_get(v, "forest"), "calibration",
                           json_object_new_double(1.5));
}
static void cal_string_points(json_object *v)
{
    json_object_object_add(calibration_of(v), "points", json_object_new_string("many"));
}
static void cal_nan_svr_factor(json_object *v)
{
    json_object_object_add(calibration_of(v), "svr_factor", json_object_new_double(NAN));
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
    json_object_array_del_idx(
        json_object_array_get_idx(json_object_object_get(sv, "support_vectors"), 0), 0, 1);
}
static void no_forest(json_object *v)
{
    json_object_object_del(v, "forest");
}

static void bad_sections_are_rejected_with_one_line(void **state)
{
    expect_bad("zero iqr", zero_iqr, "variability.scaler.iqr[2]");
    expect_bad("nan coef", nan_coef, "variability.svr.coef[0]: value NaN");
    expect_bad("backwards child", backwards_child, "variability.forest.trees[0].left[0]");
    expect_bad("wrong feature", wrong_feature, "variability.features[3]");
    expect_bad("short vector", short_vector, "variability.svr.support_vectors[0]");
    expect_bad("no forest", no_forest, "variability.forest: missing required field");
    expect_bad("negative factor", cal_negative_factor, "variability.forest.calibration.factor");
    expect_bad("level 1", cal_level_one, "variability.forest.calibration.level: value 1");
    expect_bad("unknown method", cal_unknown_method, "calibration.method: value \"bootstrap\"");
    expect_bad("zero floor", cal_zero_floor, "variability.forest.calibration.spread_floor");
    expect_bad("no svr_factor", cal_no_svr_factor,
               "variability.forest.calibration.svr_factor: missing required field");
    expect_bad("calibration not an object", cal_not_object,
               "variability.forest.calibration: expected an object");
    expect_bad("points a string", cal_string_points, "variability.forest.calibration.points");
    expect_bad("nan svr_factor", cal_nan_svr_factor, "calibration.svr_factor: value NaN");
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
    assert_non_null(strstr(buf, "5-95 % interval")); /* an uncalibrated model */
    ve.cal = (nv_ve_calibration){
        .calibrated = 1, .level = 0.9, .factor = 1, .svr_factor = 1.5, .spread_floor = 0.1};
    r.svr = 1.0;
    r.forest_mean = 0.2;
    r.half_width = 0.6;
    nv_ve_format(&ve, &r, buf, sizeof buf);
    assert_string_equal(buf, "no estimate: outside training data (SVR +1.0 σ and forest +0.2 σ "
                             "differ by more than the 90 % error bound ± 0.6 σ)");
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
        cmocka_unit_test(oob_training_grows_the_same_trees_and_leaves_a_third_out),
        cmocka_unit_test(calibration_takes_the_conformal_rank),
        cmocka_unit_test(calibrated_forest_interval_covers_fresh_data),
        cmocka_unit_test(ve_error_bound_covers_fresh_jobs),
        cmocka_unit_test(scaler_round_trip_and_zero_spread),
        cmocka_unit_test(svr_learns_a_sine_and_stored_arrays_predict_as_libsvm),
        cmocka_unit_test(model_file_section_round_trips_and_old_files_load),
        cmocka_unit_test(sections_without_calibration_keep_their_old_meaning),
        cmocka_unit_test(bad_sections_are_rejected_with_one_line),
        cmocka_unit_test(records_without_counters_get_a_clear_message),
        cmocka_unit_test(words_and_abstention_text),
        cmocka_unit_test(zscores_per_app_and_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
