/* test_model_bottleneck.c - the queue route at the bottleneck: no single-
 * neighbour cap below the curve's top, the idle anchor, idle counted once,
 * time-resolved neighbours (utilization profiles) and the history
 * corrections fitted from the co-location table, the queueing
 * mechanism and the nearest configurations in (U, W) (model_bottleneck.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <json-c/json.h>

#include "model.h"
#include "model_builder.h"
#include "model_internal.h"
#include "predict.h"

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-6)

static nv_latency_summary lat;

/* a victim "v" with p_v: (0.4, 20 %) (0.999, 120 %); neighbours with the
 * given mean U (and optional profiles) */
static nv_model_builder *base(double idle, int bottleneck)
{
    nv_model_builder *b = nv_builder_new();
    double idle_lat[100];
    for (int i = 0; i < 100; i++)
        idle_lat[i] = 1.0 + (i % 10) * 0.01;
    nv_calibration cal;
    assert_int_equal(nv_calibrate(idle_lat, 100, NV_CAL_MINIMUM, 0, &cal), 0);
    assert_int_equal(nv_builder_set_calibration(b, &cal), 0);
    nv_latency_summary_of(idle_lat, 100, &lat);
    static const nv_curve_point fit[] = {{0.4, 20, 1}, {0.999, 120, 1}};
    nv_app_input v = {.key = "v",
                      .utilization = 0.1,
                      .latency = &lat,
                      .points = fit,
                      .n_points = 2,
                      .fit = fit,
                      .n_fit = 2};
    assert_int_equal(nv_builder_add_app(b, &v), 0);
    if (bottleneck) {
        nv_bottleneck bn = {
            .idle_utilization = idle, .route = NV_USRC_COUNTERS, .shrink_samples = 2};
        assert_int_equal(nv_builder_set_bottleneck(b, &bn), 0);
    }
    return b;
}

static void add(nv_model_builder *b, const char *key, double u, const double *prof, size_t n)
{
    nv_app_input a = {.key = key,
                      .utilization = u,
                      .utilization_source = NV_USRC_COUNTERS,
                      .latency = &lat,
                      .profile = prof,
                      .n_profile = n};
    assert_int_equal(nv_builder_add_app(b, &a), 0);
}

/* a file as an older netvar wrote it: the same, without "bottleneck" */
static nv_model *build_legacy(nv_model_builder *b)
{
    char path[] = "/tmp/netvar-test-bn-XXXXXX", err[512];
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(nv_builder_save(b, path, err, sizeof err), 0);
    nv_builder_free(b);
    json_object *o = json_object_from_file(path);
    unlink(path);
    assert_non_null(o);
    assert_true(json_object_object_get_ex(o, "bottleneck", NULL));
    json_object_object_del(o, "bottleneck");
    const char *text = json_object_to_json_string(o);
    nv_model *m = nv_model_load_buffer(text, strlen(text), err, sizeof err);
    json_object_put(o);
    if (!m)
        fail_msg("legacy: %s", err);
    return m;
}

static nv_model *build(nv_model_builder *b)
{
    char err[512];
    nv_model *m = nv_builder_build(b, err, sizeof err);
    if (!m)
        fail_msg("build: %s", err);
    nv_builder_free(b);
    return m;
}

static double queue(const nv_model *m, const char *app, const char **with, size_t n,
                    nv_prediction *p)
{
    assert_int_equal(nv_predict(m, app, with, n, NV_PREDICT_QUEUE, 3, p, NULL), 0);
    return p->slowdown_pct;
}

static void a_heavy_neighbour_is_not_read_as_a_light_one(void **state)
{
    nv_model_builder *b = base(0, 1);
    add(b, "heavy", 0.995, NULL, 0);
    add(b, "beyond", 1.0, NULL, 0);
    nv_model *m = build(b);
    nv_prediction p;
    const char *h[] = {"heavy"}, *x[] = {"beyond"};
    /* 20 + (0.995 - 0.4) / 0.599 * 100, not the value at 0.99 */
    NEAR(queue(m, "v", h, 1, &p), 20 + (0.995 - 0.4) / 0.599 * 100);
    assert_false(p.capped);
    NEAR(p.utilization_used, 0.995);
    /* beyond the curve's top point: the top point, and it says so */
    NEAR(queue(m, "v", x, 1, &p), 120);
    assert_true(p.capped);
    nv_model_free(m);
}

static void the_idle_bottleneck_slows_nobody(void **state)
{
    nv_model_builder *b = base(0.0, 1);
    add(b, "light", 0.2, NULL, 0);
    add(b, "idle", 0.0, NULL, 0);
    nv_model *m = build(b);
    nv_prediction p;
    const char *l[] = {"light"}, *i[] = {"idle"};
    NEAR(queue(m, "v", l, 1, &p), 10); /* halfway from (0, 0) to (0.4, 20) */
    NEAR(queue(m, "v", i, 1, &p), 0);
    nv_model_free(m);
}

static void idle_is_counted_once(void **state)
{
    nv_model_builder *b = base(0.1, 1);
    add(b, "n1", 0.3, NULL, 0);
    add(b, "n2", 0.3, NULL, 0);
    nv_model *m = build(b);
    nv_prediction p;
    const char *two[] = {"n1", "n2"};
    queue(m, "v", two, 2, &p);
    NEAR(p.utilization_used, 0.5); /* 0.1 + 0.2 + 0.2, not 0.6 */
    NEAR(p.utilization_sum, 0.6);
    NEAR(p.slowdown_pct, 20 + (0.5 - 0.4) / 0.599 * 100);
    nv_model_free(m);
}

static void a_phased_neighbour_is_not_its_mean(void **state)
{
    nv_model_builder *b = base(0, 1);
    const double phased[] = {0.0, 0.0, 0.999, 0.999}; /* idle half the time, saturating the rest */
    add(b, "phased", 0.4995, phased, 4);
    add(b, "steady", 0.4995, NULL, 0);
    nv_model *m = build(b);
    nv_prediction p;
    const char *ph[] = {"phased"}, *st[] = {"steady"};
    double steady = queue(m, "v", st, 1, &p);
    NEAR(steady, 20 + (0.4995 - 0.4) / 0.599 * 100);
    NEAR(queue(m, "v", ph, 1, &p), (0 + 0 + 120 + 120) / 4.0);
    NEAR(p.utilization_used, 0.4995);
    nv_app_view v;
    assert_int_equal(nv_model_app(m, nv_model_app_index(m, "phased"), &v), 0);
    assert_int_equal(v.n_profile, 4);
    nv_model_free(m);
}

/* v suffers 4 times what its curve says beside two measured neighbours; an
 * unmeasured neighbour inherits the victim's sensitivity (a factor), shrunk
 * toward 1 by sample count; an idle neighbour still slows nobody; and a file
 * without "bottleneck" gets no correction */
static void history_corrects_unseen_pairs(void **state)
{
    for (int with_bn = 1; with_bn >= 0; with_bn--) {
        nv_model_builder *b = base(0, 1);
        add(b, "a", 0.2, NULL, 0);
        add(b, "c", 0.2, NULL, 0);
        add(b, "unseen", 0.2, NULL, 0);
        add(b, "idle", 0.0, NULL, 0);
        nv_pair_input pa = {"v", "a", 40, 4, 1}, pc = {"v", "c", 40, 4, 1};
        assert_int_equal(nv_builder_add_pair(b, &pa), 0);
        assert_int_equal(nv_builder_add_pair(b, &pc), 0);
        nv_model *m = with_bn ? build(b) : build_legacy(b);
        nv_prediction p;
        const char *u[] = {"unseen"};
        double got = queue(m, "v", u, 1, &p);
        NEAR(p.physics_pct, 10);
        if (with_bn) {
            assert_string_equal(p.source_label, "model:queue+history");
            /* s_v * q_unseen (1: no data) * 10: more than the physics, less
             * than the measured 40 (shrunk toward 1) */
            assert_true(p.correction_pp > 5 && p.correction_pp < 30);
            assert_true(got > 15 && got < 40);
            assert_int_equal(p.history_samples, 8);
            nv_app_view v;
            assert_int_equal(nv_model_app(m, nv_model_app_index(m, "v"), &v), 0);
            assert_true(v.sensitivity > 1.5 && v.sensitivity < 4);
            assert_int_equal(v.sensitivity_samples, 8);
            const char *i[] = {"idle"};
            NEAR(queue(m, "v", i, 1, &p), 0); /* a factor on 0 stays 0 */
        } else {
            assert_string_equal(p.source_label, "model:queue");
            NEAR(got, 10);
            NEAR(p.correction_pp, 0);
        }
        /* the measured pairs still answer from the table */
        const char *a[] = {"a"};
        assert_int_equal(nv_predict(m, "v", a, 1, NV_PREDICT_QUEUE, 3, &p, NULL), 0);
        assert_int_equal(p.source, NV_SOURCE_TABLE);
        nv_model_free(m);
    }
}

/* a pair whose physics is a couple of pp says little about a factor when
 * the table's repetitions spread more than that: v beside "a" measures
 * 8 % against a physics of 2 %; with repetitions 6 pp apart its sensitivity
 * stays near 1, with repetitions 0.1 pp apart it takes its share of the
 * factor 4 (s_v q_a, split between the two); a spread too large to square
 * leaves the physics, never a NaN */
static void a_factor_is_not_fitted_from_noise(void **state)
{
    (void)state;
    for (int noisy = 0; noisy < 3; noisy++) {
        nv_model_builder *b = base(0, 1);
        add(b, "a", 0.04, NULL, 0);
        add(b, "unseen", 0.04, NULL, 0);
        /* the third: a spread whose square overflows leaves the physics */
        nv_pair_input pa = {"v", "a", 8, 4, noisy == 2 ? 1e300 : noisy ? 6 : 0.1};
        assert_int_equal(nv_builder_add_pair(b, &pa), 0);
        nv_model *m = build(b);
        nv_prediction p;
        const char *u[] = {"unseen"};
        double got = queue(m, "v", u, 1, &p);
        NEAR(p.physics_pct, 2);
        nv_app_view v;
        assert_int_equal(nv_model_app(m, nv_model_app_index(m, "v"), &v), 0);
        /* the spread that floors the ridge, as netvar report prints it */
        double sd = nv_model_bottleneck(m)->table_noise_sd_pct;
        if (noisy == 2)
            assert_true(isinf(sd));
        else
            NEAR(sd, noisy ? 6 : 0.1);
        if (noisy == 2) {
            NEAR(v.sensitivity, 1);
            NEAR(got, 2);
        } else if (noisy) {
            assert_true(v.sensitivity > 1 && v.sensitivity < 1.45);
            assert_true(got < 3);
        } else {
            assert_true(v.sensitivity > 1.6);
            assert_true(got > 3.2);
        }
        nv_model_free(m);
    }
}

/* the pairs fix s_v q_a, not q_a alone: on the counters route a victim
 * with no pair of its own gets its physics beside a neighbour whose
 * pressure was fitted on other victims, one neighbour or several, through
 * both prediction paths, while the measured victim beside the same
 * neighbour keeps its correction; on the latency route the pressures
 * still apply to it */
static void a_victim_without_pairs_gets_its_physics(void **state)
{
    (void)state;
    for (int counters = 1; counters >= 0; counters--) {
        nv_model_builder *b = base(0, 1);
        if (!counters) {
            nv_bottleneck bn = {
                .idle_utilization = 0, .route = NV_USRC_LATENCY, .shrink_samples = 2};
            assert_int_equal(nv_builder_set_bottleneck(b, &bn), 0);
        }
        static const nv_curve_point fit[] = {{0.4, 20, 1}, {0.999, 120, 1}};
        nv_app_input w = {.key = "w",
                          .utilization = 0.1,
                          .latency = &lat,
                          .points = fit,
                          .n_points = 2,
                          .fit = fit,
                          .n_fit = 2};
        assert_int_equal(nv_builder_add_app(b, &w), 0);
        add(b, "a", 0.2, NULL, 0);
        add(b, "c", 0.3, NULL, 0);
        nv_pair_input pa = {"v", "a", 40, 4, 1}, pc = {"v", "c", 60, 4, 1};
        assert_int_equal(nv_builder_add_pair(b, &pa), 0);
        assert_int_equal(nv_builder_add_pair(b, &pc), 0);
        nv_model *m = build(b);
        nv_app_view va;
        assert_int_equal(nv_model_app(m, nv_model_app_index(m, "a"), &va), 0);
        assert_true(va.pressure_samples == 4 && fabs(va.pressure - 1) > 0.05);
        int32_t wi = nv_model_app_index(m, "w"), ai = nv_model_app_index(m, "a");
        nv_app_view vw, vv;
        assert_int_equal(nv_model_app(m, wi, &vw), 0);
        assert_int_equal(nv_model_app(m, nv_model_app_index(m, "v"), &vv), 0);
        assert_int_equal(vw.neighbour_pressures_apply, !counters);
        assert_int_equal(vv.neighbour_pressures_apply, 1);
        const char *with[][2] = {{"a", NULL}, {"a", "c"}};
        for (size_t k = 0; k < 2; k++) {
            nv_prediction p;
            assert_int_equal(nv_predict(m, "w", with[k], k + 1, NV_PREDICT_QUEUE, 100, &p, NULL),
                             0);
            assert_true(p.physics_pct > 5);
            if (counters) {
                assert_string_equal(p.source_label, "model:queue");
                NEAR(p.correction_pp, 0);
                NEAR(p.slowdown_pct, p.physics_pct);
                assert_int_equal(p.history_samples, 0);
            } else {
                assert_string_equal(p.source_label, "model:queue+history");
                assert_true(fabs(p.correction_pp) > 1);
                assert_int_equal(p.history_samples, 4 * (k + 1));
            }
            if (k == 0)
                NEAR(nv_predict_pair_pct(m, wi, ai, NV_PREDICT_QUEUE, 100), p.slowdown_pct);
            /* v, which has pairs, keeps its correction beside the same neighbours */
            nv_prediction q;
            assert_int_equal(nv_predict(m, "v", with[k], k + 1, NV_PREDICT_QUEUE, 100, &q, NULL),
                             0);
            assert_string_equal(q.source_label, "model:queue+history");
            NEAR(q.physics_pct, p.physics_pct);
            assert_true(q.correction_pp > 5);
            assert_int_equal(q.history_samples, 8 + 4 * (k + 1));
        }
        nv_model_free(m);
    }
}

static void bad_profiles_and_bottlenecks_are_named(void **state)
{
    nv_model_builder *b = base(0, 1);
    add(b, "n", 0.3, (const double[]){0.1, 0.9}, 2);
    char err[512];
    nv_model *m = nv_builder_build(b, err, sizeof err);
    assert_non_null(m);
    nv_model_free(m);
    double too_many[NV_PROFILE_MAX + 1] = {0};
    nv_app_input a = {
        .key = "x", .latency = &lat, .profile = too_many, .n_profile = NV_PROFILE_MAX + 1};
    assert_int_equal(nv_builder_add_app(b, &a), -1);
    nv_bottleneck bn = {.idle_utilization = 1.5, .shrink_samples = 2};
    assert_int_equal(nv_builder_set_bottleneck(b, &bn), -1);
    add(b, "bad", 0.3, (const double[]){0.1, 1.5}, 2);
    assert_null(nv_builder_build(b, err, sizeof err));
    assert_non_null(
        strstr(err, "utilization_profile[1]: value 1.5 is not a utilization in [0, 1]"));
    nv_builder_free(b);
}

/* the queueing mechanism: v's slowdown against the queue wait, read over
 * the neighbours' wait profiles and averaged as progress rates */
static void add_waits(nv_model_builder *b, const char *key, const double *wprof, size_t n)
{
    nv_app_input a = {.key = key,
                      .utilization = 0.3,
                      .utilization_source = NV_USRC_COUNTERS,
                      .latency = &lat,
                      .wait_profile_us = wprof,
                      .n_wait_profile = n};
    assert_int_equal(nv_builder_add_app(b, &a), 0);
}

static nv_model_builder *wait_base(void)
{
    nv_model_builder *b = base(0, 1);
    static const nv_curve_point fit[] = {{0.4, 20, 1}, {0.999, 120, 1}};
    static const nv_curve_point waits[] = {{1000, 90, 1}, {100, 10, 2}};
    nv_app_input v = {.key = "v",
                      .utilization = 0.1,
                      .latency = &lat,
                      .points = fit,
                      .n_points = 2,
                      .fit = fit,
                      .n_fit = 2,
                      .wait_points = waits,
                      .n_wait_points = 2,
                      .wait_profile_us = (const double[]){5, 1},
                      .n_wait_profile = 2};
    assert_int_equal(nv_builder_add_app(b, &v), 0); /* replaces base()'s v */
    /* w: the same U curve, but its campaign does not lie on a monotone
     * curve against the wait (20 pp apart at one wait): U explains it */
    static const nv_curve_point noisy[] = {{1000, 100, 1}, {100, 10, 2}, {1000, 80, 1}};
    nv_app_input w = v;
    w.key = "w";
    w.wait_points = noisy;
    w.n_wait_points = 3;
    assert_int_equal(nv_builder_add_app(b, &w), 0);
    return b;
}

/* a victim whose campaign reads below 0 % at light load (the noise of its
 * own baseline): a shared port cannot speed it up, so each mechanism
 * answers 0 there, not the negative reading; above it the curve as before */
static void a_port_never_speeds_a_victim_up(void **state)
{
    nv_model_builder *b = base(0.0, 1);
    static const nv_curve_point fit[] = {{0.3, -10, 1}, {0.6, -10, 1}, {0.9, 50, 1}};
    static const nv_curve_point waits[] = {{100, -10, 1}, {1000, 50, 1}};
    nv_app_input n = {.key = "noisy",
                      .utilization = 0.5,
                      .latency = &lat,
                      .points = fit,
                      .n_points = 3,
                      .fit = fit,
                      .n_fit = 3,
                      .wait_points = waits,
                      .n_wait_points = 2,
                      .wait_profile_us = (const double[]){0, 0},
                      .n_wait_profile = 2};
    assert_int_equal(nv_builder_add_app(b, &n), 0);
    add(b, "light", 0.4, NULL, 0);
    add(b, "heavy", 0.9, NULL, 0);
    add_waits(b, "q0", (const double[]){0, 0}, 2);
    add_waits(b, "q1", (const double[]){1000, 1000}, 2);
    nv_model *m = build(b);
    nv_prediction p;
    const char *l[] = {"light"}, *h[] = {"heavy"}, *q0[] = {"q0"}, *q1[] = {"q1"};
    NEAR(queue(m, "noisy", l, 1, &p), 0); /* p(0.4) reads -10 %: no wait gauge, U alone */
    assert_string_equal(p.mechanism, "utilization");
    NEAR(p.physics_pct, 0);
    NEAR(queue(m, "noisy", h, 1, &p), 50);
    /* a queue-free neighbour at U 0.3: the wait reads -10 %, the share
     * 0.5 x (-10 %): both 0 */
    NEAR(queue(m, "noisy", q0, 1, &p), 0);
    NEAR(p.wait_pct, 0);
    NEAR(p.share_pct, 0);
    NEAR(queue(m, "noisy", q1, 1, &p), 50); /* a queue of 1000 us: +50 % */
    assert_string_equal(p.mechanism, "queue-wait");
    nv_model_free(m);
}

static void the_queueing_mechanism_averages_progress_rates(void **state)
{
    nv_model_builder *b = wait_base();
    add_waits(b, "q", (const double[]){1000, 0, 1000, 0}, 4); /* a queue half the time */
    add_waits(b, "q2", (const double[]){0, 500}, 2);
    add(b, "noq", 0.2, NULL, 0); /* no queue gauge */
    nv_model *m = build(b);
    nv_prediction p;
    const char *q[] = {"q"}, *both[] = {"q", "q2"}, *noq[] = {"noq"}, *mix[] = {"q", "noq"};
    /* W(t) 0, 0, 1000, 1000 us: p 0, 0, 90, 90 %;
     * rates 1, 1, 1/1.9, 1/1.9 -> 1 + s = 1 / mean(rates) */
    double want = (1.0 / ((2 + 2 / 1.9) / 4) - 1) * 100;
    NEAR(queue(m, "v", q, 1, &p), want);
    assert_true(want < 45); /* below the mean of the slowdowns */
    assert_string_equal(p.mechanism, "queue-wait");
    assert_string_equal(p.source_label, "model:queue-wait");
    NEAR(p.wait_used_us, 500);
    assert_false(p.capped);
    /* two neighbours add rank by rank: 0, 0, 1500, 1500 us, beyond the top */
    NEAR(queue(m, "v", both, 2, &p), want);
    NEAR(p.wait_used_us, 750);
    assert_true(p.capped);
    /* a neighbour whose queueing is unknown: p_v(U), and it says so */
    NEAR(queue(m, "v", noq, 1, &p), 10);
    assert_string_equal(p.mechanism, "utilization");
    assert_string_equal(p.source_label, "model:queue");
    assert_true(isnan(p.wait_used_us));
    queue(m, "v", mix, 2, &p);
    assert_string_equal(p.mechanism, "utilization");
    /* w's campaign lies better against U than against the wait: the view
     * says so, but both mechanisms are still computed, and the queue wins */
    const char *wq[] = {"q"};
    NEAR(queue(m, "w", wq, 1, &p), want);
    assert_string_equal(p.mechanism, "queue-wait");
    NEAR(p.wait_pct, want);
    /* the share: w's own U 0.1 times p_w(U_q = 0.3) on the anchored curve
     * (0, 0 %) - (0.4, 20 %) */
    NEAR(p.share_pct, 0.1 * 15);
    nv_app_view wv;
    assert_int_equal(nv_model_app(m, nv_model_app_index(m, "w"), &wv), 0);
    assert_false(wv.prefers_wait);
    NEAR(wv.wait_fit_residual_pct, sqrt(200.0 / 4));
    NEAR(wv.share_weight, 0.1); /* the weight the share above used: own U above idle */
    /* the view gives back what was built: points, the fit, a sorted profile */
    nv_app_view v;
    assert_int_equal(nv_model_app(m, nv_model_app_index(m, "v"), &v), 0);
    assert_int_equal(v.n_wait_points, 2);
    assert_int_equal(v.n_wait_fit, 2);
    NEAR(v.wait_fit[0].utilization, 100);
    NEAR(v.wait_fit[1].slowdown_pct, 90);
    assert_int_equal(v.n_wait_profile, 2);
    NEAR(v.wait_profile_us[0], 1);
    assert_true(v.prefers_wait);
    NEAR(v.wait_fit_residual_pct, 0);
    nv_model_free(m);
}

/* the second mechanism: a neighbour that builds no queue (smooth traffic)
 * still takes its share of the port; that costs a bulk-transfer victim (own
 * U high) and spares a latency-bound one (own U low) */
static void a_queue_free_neighbour_slows_bulk_victims_by_their_share(void **state)
{
    nv_model_builder *b = wait_base();
    static const nv_curve_point fit[] = {{0.4, 20, 1}, {0.999, 120, 1}};
    static const nv_curve_point waits[] = {{1000, 90, 1}, {100, 10, 2}};
    nv_app_input bulk = {.key = "bulk",
                         .utilization = 0.7,
                         .latency = &lat,
                         .points = fit,
                         .n_points = 2,
                         .fit = fit,
                         .n_fit = 2,
                         .wait_points = waits,
                         .n_wait_points = 2,
                         .wait_profile_us = (const double[]){0, 0},
                         .n_wait_profile = 2};
    assert_int_equal(nv_builder_add_app(b, &bulk), 0);
    nv_app_input smooth = {.key = "smooth",
                           .utilization = 0.5,
                           .utilization_source = NV_USRC_COUNTERS,
                           .latency = &lat,
                           .wait_profile_us = (const double[]){0, 0, 0},
                           .n_wait_profile = 3};
    assert_int_equal(nv_builder_add_app(b, &smooth), 0);
    add_waits(b, "q", (const double[]){1000, 0, 1000, 0}, 4);
    nv_model *m = build(b);
    nv_prediction p;
    const char *sm[] = {"smooth"}, *q[] = {"q"};
    /* p(U 0.5) on (0.4, 20) - (0.999, 120) */
    double p05 = 20 + (0.5 - 0.4) / (0.999 - 0.4) * 100;
    NEAR(queue(m, "bulk", sm, 1, &p), 0.7 * p05);
    assert_string_equal(p.mechanism, "bandwidth-share");
    assert_string_equal(p.source_label, "model:queue-share");
    NEAR(p.wait_pct, 0); /* no queue: the queueing mechanism says nothing */
    NEAR(p.share_pct, 0.7 * p05);
    NEAR(p.physics_pct, 0.7 * p05);
    NEAR(p.utilization_used, 0.5);
    NEAR(p.wait_used_us, 0);
    /* v uses a tenth of the port: the same neighbour costs it a tenth */
    NEAR(queue(m, "v", sm, 1, &p), 0.1 * p05);
    assert_string_equal(p.mechanism, "bandwidth-share");
    /* beside a queueing neighbour the queue answers for both victims */
    double want = (1.0 / ((2 + 2 / 1.9) / 4) - 1) * 100;
    NEAR(queue(m, "bulk", q, 1, &p), want);
    assert_string_equal(p.mechanism, "queue-wait");
    assert_true(p.share_pct < want);
    nv_model_free(m);
}

static void bad_queue_waits_are_named(void **state)
{
    static const char *bad[][2] = {
        {"{\"points\": []}", "points and fit go together"},
        {"{\"profile_us\": [-1]}", "profile_us[0]: value -1 is not a queue wait in us"},
        {"{\"profile_us\": [2e7]}", "is not a queue wait in us in [0, 1e+07]"},
        {"{\"points\": [], \"fit\": [{\"wait_us\": 5, \"slowdown_pct\": 1, \"samples\": 1}, "
         "{\"wait_us\": 5, \"slowdown_pct\": 2, \"samples\": 1}]}",
         "fit[1].wait_us: value 5 is not above the previous point's 5"},
        {"{\"points\": [{\"wait_us\": 2e7, \"slowdown_pct\": 1, \"samples\": 1}], \"fit\": []}",
         "points[0].wait_us: value 2e+07 is above"},
        {"3", "queue_wait: expected an object"},
    };
    char path[] = "/tmp/netvar-test-qw-XXXXXX", err[512];
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    nv_model_builder *b = base(0, 1);
    assert_int_equal(nv_builder_save(b, path, err, sizeof err), 0);
    nv_builder_free(b);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_object *o = json_object_from_file(path), *apps, *qw = json_tokener_parse(bad[i][0]);
        assert_non_null(o);
        assert_non_null(qw);
        assert_true(json_object_object_get_ex(o, "apps", &apps));
        json_object_object_add(json_object_array_get_idx(apps, 0), "queue_wait", qw);
        const char *text = json_object_to_json_string(o);
        err[0] = 0;
        nv_model *m = nv_model_load_buffer(text, strlen(text), err, sizeof err);
        json_object_put(o);
        if (m || !strstr(err, bad[i][1]))
            fail_msg("case %zu: %s: got '%s'", i, bad[i][1], m ? "loaded" : err);
    }
    unlink(path);
}

/* the wait gauge: a queue in us by default (and in older files), the
 * InfiniBand stall ratio when the campaign's port read one; kept on save;
 * anything else named */
static void the_wait_gauge_round_trips(void **state)
{
    (void)state;
    char path[] = "/tmp/netvar-test-wg-XXXXXX", err[512];
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    nv_model_builder *b = base(0, 1);
    nv_model *m = nv_builder_build(b, err, sizeof err);
    assert_non_null(m);
    assert_int_equal(nv_model_bottleneck(m)->wait_gauge, NV_WAIT_QUEUE_US);
    nv_model_free(m);
    nv_bottleneck bn = {
        .route = NV_USRC_COUNTERS, .shrink_samples = 2, .wait_gauge = NV_WAIT_STALL_PER_WORD};
    assert_int_equal(nv_builder_set_bottleneck(b, &bn), 0);
    assert_int_equal(nv_builder_save(b, path, err, sizeof err), 0);
    nv_builder_free(b);
    json_object *o = json_object_from_file(path), *jb, *g;
    assert_non_null(o);
    assert_true(json_object_object_get_ex(o, "bottleneck", &jb));
    assert_true(json_object_object_get_ex(jb, "wait_gauge", &g));
    assert_string_equal(json_object_get_string(g), "stall_per_word");
    const char *text = json_object_to_json_string(o);
    m = nv_model_load_buffer(text, strlen(text), err, sizeof err);
    assert_non_null(m);
    assert_int_equal(nv_model_bottleneck(m)->wait_gauge, NV_WAIT_STALL_PER_WORD);
    nv_model_free(m);
    /* a Slingshot NIC's gauge is a third word, an Aries tile's stall-to-flit
     * ratio a fourth */
    static const struct {
        const char *name;
        nv_wait_gauge g;
    } more[] = {{"paused_cycles_per_packet", NV_WAIT_PAUSE_PER_PACKET},
                {"stall_per_flit", NV_WAIT_STALL_PER_FLIT}};
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) {
        json_object_object_add(jb, "wait_gauge", json_object_new_string(more[i].name));
        text = json_object_to_json_string(o);
        m = nv_model_load_buffer(text, strlen(text), err, sizeof err);
        assert_non_null(m);
        assert_int_equal(nv_model_bottleneck(m)->wait_gauge, more[i].g);
        assert_string_equal(nv_wait_gauge_name(more[i].g), more[i].name);
        nv_model_free(m);
    }
    json_object_object_add(jb, "wait_gauge", json_object_new_string("furlongs"));
    text = json_object_to_json_string(o);
    assert_null(nv_model_load_buffer(text, strlen(text), err, sizeof err));
    assert_non_null(strstr(err, "bottleneck.wait_gauge: value \"furlongs\" is not one of queue_us, "
                                "stall_per_word, paused_cycles_per_packet, stall_per_flit"));
    json_object_put(o);
    unlink(path);
}

/* six apps with both curves and both profiles, and pairs among them, plus
 * `fillers` apps that appear in no pair (they change no core app's
 * corrections, so every core prediction must come out the same) */
static nv_model *core_model(int fillers)
{
    nv_model_builder *b = base(0.05, 1);
    char key[32];
    for (int i = 0; i < 6 + fillers; i++) {
        double s = 1 + (i % 7) * 0.3;
        nv_curve_point fit[5], waits[5];
        double prof[NV_PROFILE_MAX], wprof[NV_PROFILE_MAX];
        for (int k = 0; k < 5; k++) {
            fit[k] = (nv_curve_point){0.15 + 0.2 * k, s * (3 + 12 * k * k), 1};
            waits[k] = (nv_curve_point){40.0 * (k + 1) * (k + 1), s * (2 + 9 * k), 1};
        }
        for (int k = 0; k < NV_PROFILE_MAX; k++) {
            prof[k] = 0.05 + (0.03 + 0.01 * (i % 11)) * k;
            wprof[k] = 1 + (i % 5) * 15.0 * k;
        }
        snprintf(key, sizeof key, i < 6 ? "core%d" : "fill%05d", i < 6 ? i : i - 6);
        /* every third app hardly uses the port itself (a latency-bound victim) */
        nv_app_input a = {.key = key,
                          .utilization = i % 3 ? prof[NV_PROFILE_MAX / 2] : 0.06,
                          .utilization_source = NV_USRC_COUNTERS,
                          .latency = &lat,
                          .points = fit,
                          .n_points = 5,
                          .profile = prof,
                          .n_profile = NV_PROFILE_MAX,
                          .wait_points = waits,
                          .n_wait_points = 5,
                          .wait_profile_us = wprof,
                          .n_wait_profile = NV_PROFILE_MAX};
        assert_int_equal(nv_builder_add_app(b, &a), 0);
    }
    char ka[16], kb[16];
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++)
            if ((i + 2 * j) % 3 == 0) {
                snprintf(ka, sizeof ka, "core%d", i);
                snprintf(kb, sizeof kb, "core%d", j);
                nv_pair_input pr = {ka, kb, 4.0 + 7 * i - 2 * j, (uint32_t)(1 + (i + j) % 4), 1.5};
                assert_int_equal(nv_builder_add_pair(b, &pr), 0);
            }
    return build(b);
}

/* A model whose prediction arrays pass 2 MiB is packed at load into one
 * region advised for transparent huge pages (model_hot.c): every core
 * pair predicts exactly as in the small, unpacked model (table and model
 * routes, by key and by index), and the fillers' views are intact.  By index
 * (job_submit) the answer is always the key API's, whether the bandwidth
 * share was computed or a bound showed it could not win. */
static void a_large_model_packed_for_huge_pages_predicts_the_same(void **state)
{
    (void)state;
    nv_model *small = core_model(0), *large = core_model(4000);
    assert_int_equal(nv_model_hot_bytes(small), 0);
    size_t hot = nv_model_hot_bytes(large);
    assert_true(hot >= (size_t)2 << 20);
    assert_int_equal(hot % ((size_t)2 << 20), 0);
    char ka[16], kb[16];
    int answered = 0, tabled = 0;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++)
            for (uint32_t min = 1; min <= 100; min += 99) {
                snprintf(ka, sizeof ka, "core%d", i);
                snprintf(kb, sizeof kb, "core%d", j);
                const char *w[] = {kb};
                nv_prediction ps, pl, pi;
                int rs = nv_predict(small, ka, w, 1, NV_PREDICT_QUEUE, min, &ps, NULL);
                assert_int_equal(nv_predict(large, ka, w, 1, NV_PREDICT_QUEUE, min, &pl, NULL), rs);
                int32_t bi = nv_model_app_index(large, kb);
                assert_int_equal(nv_predict_idx(large, nv_model_app_index(large, ka), &bi, 1,
                                                NV_PREDICT_QUEUE, min, &pi),
                                 rs);
                if (rs)
                    continue;
                answered++;
                tabled += ps.source == NV_SOURCE_TABLE;
                assert_true(ps.slowdown_pct == pl.slowdown_pct &&
                            pl.slowdown_pct == pi.slowdown_pct);
                assert_string_equal(ps.source_label, pl.source_label);
                assert_string_equal(ps.source_label, pi.source_label);
                assert_true(ps.history_samples == pl.history_samples);
                assert_string_equal(pl.mechanism, pi.mechanism);
                assert_int_equal(pl.capped, pi.capped);
            }
    assert_int_equal(answered, 72);
    assert_int_equal(tabled, 12);
    /* by index (job_submit's path) the answer is the key API's, whether the
     * bandwidth share was computed or a bound showed it could not win */
    int skipped = 0, computed = 0;
    for (int i = 0; i < 3000; i++) {
        char fa[16], fb[16];
        snprintf(fa, sizeof fa, "fill%05d", (i * 7919) % 4000);
        snprintf(fb, sizeof fb, "fill%05d", (i * 104729 + 13) % 4000);
        const char *w[] = {fb};
        nv_prediction pl, pi;
        assert_int_equal(nv_predict(large, fa, w, 1, NV_PREDICT_QUEUE, 1, &pl, NULL), 0);
        int32_t ai = nv_model_app_index(large, fa), bi = nv_model_app_index(large, fb);
        assert_int_equal(nv_predict_idx(large, ai, &bi, 1, NV_PREDICT_QUEUE, 1, &pi), 0);
        assert_true(pl.slowdown_pct == pi.slowdown_pct);
        assert_string_equal(pl.mechanism, pi.mechanism);
        assert_string_equal(pl.source_label, pi.source_label);
        assert_int_equal(pl.capped, pi.capped);
        assert_true(isfinite(pl.share_pct));
        if (isnan(pi.share_pct)) {
            skipped++;
            assert_string_equal(pi.mechanism, "queue-wait");
        } else {
            computed++;
            assert_true(pl.share_pct == pi.share_pct);
        }
    }
    assert_true(skipped > 0 && computed > 0);

    /* the last filler's arrays (the ends of the moved arrays) came through */
    nv_app_view v;
    assert_int_equal(nv_model_app(large, nv_model_app_index(large, "fill03999"), &v), 0);
    assert_int_equal(v.n_profile, NV_PROFILE_MAX);
    assert_int_equal(v.n_wait_profile, NV_PROFILE_MAX);
    for (int k = 0; k < NV_PROFILE_MAX; k++) {
        NEAR(v.profile[k], 0.05 + (0.03 + 0.01 * (4005 % 11)) * k);
        NEAR(v.wait_profile_us[k], 1 + (4005 % 5) * 15.0 * k);
    }
    assert_int_equal(v.n_fit, 5);
    NEAR(v.fit[4].slowdown_pct, (1 + (4005 % 7) * 0.3) * (3 + 12 * 16));
    nv_model_free(small);
    nv_model_free(large);
}

/* A long curve (the seed's campaign has 40 configurations) is entered
 * through its grid instead of walked: for curves of every gridded length,
 * spaced evenly or bunched toward the top, every reading lands on the
 * segment a walk from the start finds (the last point at or below it),
 * at random values, at every point exactly and a rounding either side. */
static size_t walk_to(const struct nv_seg *c, size_t n, double x)
{
    size_t j = 0;
    while (j + 1 < n - 1 && c[j + 1].u <= x)
        j++;
    return j;
}

static void a_long_curve_is_entered_through_its_grid(void **state)
{
    (void)state;
    static struct nv_seg c[NV_SEG_GRID_MAX + 1];
    struct nv_seg_grid gr;
    uint64_t r = 88172645463325252ull;
    /* 49 and 97 evenly spaced put points on the cells' edges */
    size_t lens[] = {NV_SEG_WALK_MAX + 1, 41, 49, 97, 100, NV_SEG_GRID_MAX};
    long checked = 0;
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
        for (int shape = 0; shape < 3; shape++) {
            size_t n = lens[li];
            for (size_t k = 0; k < n; k++) {
                double t = (double)k / (double)(n - 1);
                /* even; bunched toward the top (U near 1); in us, bunched at 0 */
                c[k].u = shape == 0   ? 0.05 + 0.9 * t
                         : shape == 1 ? 0.05 + 0.949 * (1 - pow(1 - t, 4))
                                      : 5000 * t * t * t;
                c[k].y = 3 * (double)k;
            }
            for (size_t k = 0; k + 1 < n; k++)
                c[k].slope = (c[k + 1].y - c[k].y) / (c[k + 1].u - c[k].u);
            assert_true(nv_seg_gridded(n));
            nv_seg_grid_build(c, n, &gr);
            for (int i = 0; i < 20000; i++) {
                r ^= r << 13, r ^= r >> 7, r ^= r << 17;
                double x =
                    c[0].u + (c[n - 1].u - c[0].u) * ((double)(r >> 11) / 9007199254740992.0);
                if (!(x > c[0].u && x < c[n - 1].u))
                    continue;
                assert_int_equal(nv_seg_find(c, n, &gr, x), walk_to(c, n, x));
                checked++;
            }
            for (size_t k = 0; k < n; k++) {
                double xs[] = {nextafter(c[k].u, -1), c[k].u, nextafter(c[k].u, 1e9)};
                for (int e = 0; e < 3; e++)
                    if (xs[e] > c[0].u && xs[e] < c[n - 1].u) {
                        assert_int_equal(nv_seg_find(c, n, &gr, xs[e]), walk_to(c, n, xs[e]));
                        checked++;
                    }
            }
        }
    assert_true(checked > 200000);
    /* an entry a segment or two past its edge (a rounding there) is stepped
     * back: the same segments */
    size_t n = 41;
    for (size_t k = 0; k < n; k++) {
        c[k].u = 0.05 + 0.9 * (double)k / (double)(n - 1);
        c[k].y = (double)k;
    }
    nv_seg_grid_build(c, n, &gr);
    for (int g = 0; g < NV_SEG_GRID; g++)
        gr.j[g] = (uint8_t)((size_t)gr.j[g] + 2 < n - 1 ? (size_t)gr.j[g] + 2 : n - 2);
    for (int i = 1; i < 1000; i++) {
        double x = 0.05 + 0.9 * i / 1000.0;
        assert_int_equal(nv_seg_find(c, n, &gr, x), walk_to(c, n, x));
    }
    /* short curves are walked, and so are ones too long for a byte's index */
    assert_false(nv_seg_gridded(NV_SEG_WALK_MAX));
    assert_false(nv_seg_gridded(NV_SEG_GRID_MAX + 1));
    nv_seg_grid_build(c, NV_SEG_WALK_MAX, &gr);
    assert_true(gr.scale == 0 && gr.j[NV_SEG_GRID - 1] == 0);
}

/* Through the model: a victim measured under 40 configurations, read over
 * a neighbour's octiles, gives the mean of its curve at them (the curve
 * read the slow way, by nv_curve_eval on the anchored points). */
static void a_forty_point_campaign_reads_as_its_curve(void **state)
{
    (void)state;
    nv_model_builder *b = base(0.05, 1);
    nv_curve_point fit[40];
    for (int k = 0; k < 40; k++) {
        double t = k / 39.0;
        fit[k] = (nv_curve_point){0.2 + 0.79 * (1 - (1 - t) * (1 - t)), 2 + 300 * t * t * t, 1};
    }
    nv_app_input v = {.key = "long",
                      .utilization = 0.3,
                      .latency = &lat,
                      .points = fit,
                      .n_points = 40,
                      .fit = fit,
                      .n_fit = 40};
    assert_int_equal(nv_builder_add_app(b, &v), 0);
    double prof[8];
    for (int k = 0; k < 8; k++)
        prof[k] = 0.1 + 0.12 * k; /* 0.1 (below the curve) to 0.94 */
    add(b, "nb", 0.5, prof, 8);
    nv_model *m = build(b);
    nv_curve_point anc[41] = {{0.05, 0, 1}};
    memcpy(anc + 1, fit, sizeof fit);
    double want = 0;
    for (int k = 0; k < 8; k++)
        want += nv_curve_eval(anc, 41, prof[k] > 0.05 ? prof[k] : 0.05) / 8;
    const char *w[] = {"nb"};
    nv_prediction p;
    queue(m, "long", w, 1, &p);
    assert_string_equal(p.mechanism, "utilization");
    assert_true(fabs(p.physics_pct - want) < 1e-9 * want);
    int32_t ai = nv_model_app_index(m, "long"), bi = nv_model_app_index(m, "nb");
    assert_true(nv_predict_pair_pct(m, ai, bi, NV_PREDICT_QUEUE, 3) == p.slowdown_pct);
    nv_model_free(m);
}

/* job_submit's loop asks nv_predict_pair_pct for the answer alone: over
 * every pair of a small model, of a packed large one and of two kept lab
 * models, every predictor and a table that answers or not, it is
 * nv_predict_idx's slowdown_pct bit for bit, or NAN exactly where that one
 * fails or answers NAN. */
static int same_answer(const nv_model *m, int32_t a, int32_t b, nv_predictor pr, uint32_t min)
{
    nv_prediction p;
    double want = NAN;
    if (nv_predict_idx(m, a, &b, 1, pr, min, &p) == NV_PRED_OK && isfinite(p.slowdown_pct))
        want = p.slowdown_pct;
    double got = nv_predict_pair_pct(m, a, b, pr, min);
    if (isnan(want)) {
        assert_true(isnan(got));
        return 0;
    }
    assert_memory_equal(&got, &want, sizeof got);
    return 1;
}

/* A model that varies everything the answer-alone path branches on: U and
 * wait curves of 0 to 40 points (so short curves are walked and long ones
 * entered through their grids), curves that start below 0 % or below idle,
 * profiles of 0 to 8 values that land below idle, on the curves' points,
 * between them and beyond their tops, and co-location rows. */
static uint64_t vary_state = 0x9E3779B97F4A7C15ull;
static double vary(void)
{
    vary_state ^= vary_state << 13;
    vary_state ^= vary_state >> 7;
    vary_state ^= vary_state << 17;
    return (double)(vary_state >> 11) / 9007199254740992.0;
}

static nv_model *varied_model(int n_apps)
{
    nv_model_builder *b = base(0.05, 1);
    char key[32];
    for (int i = 0; i < n_apps; i++) {
        nv_curve_point fit[40], waits[40];
        size_t nu = (size_t)(vary() * 41), nw = (size_t)(vary() * 41);
        double u = vary() * 0.3, y = -10 + 20 * vary(), w = vary() * 200, yw = -5 + 10 * vary();
        for (size_t k = 0; k < nu; k++) {
            fit[k] = (nv_curve_point){u, y, 1};
            u += (0.95 - u) / (double)(nu - k + 1) * (0.2 + vary());
            y += vary() < 0.2 ? 0 : 30 * vary();
        }
        for (size_t k = 0; k < nw; k++) {
            waits[k] = (nv_curve_point){w, yw, 1};
            w += 10 + 300 * vary();
            yw += 0.5 + 25 * vary(); /* strictly rising: the isotonic fit keeps every point */
        }
        double prof[NV_PROFILE_MAX], wprof[NV_PROFILE_MAX];
        size_t np = (size_t)(vary() * (NV_PROFILE_MAX + 1)),
               nwp = (size_t)(vary() * (NV_PROFILE_MAX + 1));
        for (size_t k = 0; k < np; k++) {
            double r = vary();
            prof[k] = r < 0.2 && nu ? fit[(size_t)(vary() * nu)].utilization
                      : r < 0.3     ? 0.02
                                    : vary();
        }
        for (size_t k = 0; k < nwp; k++) {
            double r = vary();
            wprof[k] =
                r < 0.2 && nw ? waits[(size_t)(vary() * nw)].utilization : 12000 * vary() * vary();
        }
        snprintf(key, sizeof key, "vary%d", i);
        nv_app_input a = {.key = key,
                          .utilization = vary(),
                          .utilization_source = NV_USRC_COUNTERS,
                          .latency = &lat,
                          .points = nu ? fit : NULL,
                          .n_points = nu,
                          .fit = nu ? fit : NULL,
                          .n_fit = nu,
                          .profile = np ? prof : NULL,
                          .n_profile = np,
                          .wait_points = nw ? waits : NULL,
                          .n_wait_points = nw,
                          .wait_profile_us = nwp ? wprof : NULL,
                          .n_wait_profile = nwp};
        if (nv_builder_add_app(b, &a))
            fail_msg("varied app %d: %s", i, nv_builder_error(b));
    }
    char ka[32], kb[32];
    for (int p = 0; p < 4 * n_apps; p++) {
        snprintf(ka, sizeof ka, "vary%d", (int)(vary() * n_apps));
        snprintf(kb, sizeof kb, "vary%d", (int)(vary() * n_apps));
        nv_pair_input pr = {ka, kb, 100 * vary() - 5, (uint32_t)(1 + vary() * 6), vary()};
        nv_builder_add_pair(b, &pr); /* a repeated pair is refused: fine */
    }
    return build(b);
}

static void the_answer_alone_is_the_full_answer(void **state)
{
    (void)state;
    char err[512];
    const char *root = getenv("ROOT");
    char lab[4096], js[4096];
    snprintf(lab, sizeof lab, "%s/tests/fixtures/model/netlab-queue-wait.json",
             root && *root ? root : ".");
    snprintf(js, sizeof js, "%s/tests/fixtures/jobsubmit/model.json", root && *root ? root : ".");
    char near[4096];
    snprintf(near, sizeof near, "%s/tests/fixtures/model/netlab-nearest.json",
             root && *root ? root : ".");
    nv_model *ms[6] = {core_model(0),
                       core_model(4000),
                       nv_model_load(lab, err, sizeof err),
                       nv_model_load(js, err, sizeof err),
                       varied_model(160),
                       nv_model_load(near, err, sizeof err)};
    for (int i = 0; i < 6; i++)
        assert_non_null(ms[i]);
    int answered[6] = {0}, nan_answers = 0;
    for (int i = 0; i < 6; i++) {
        const nv_model *m = ms[i];
        int32_t n = (int32_t)nv_model_app_count(m), step = n > 200 ? 37 : 1;
        for (int32_t a = 0; a < n; a += step)
            for (int32_t b = 0; b < n; b += step)
                for (int pr = 0; pr < NV_PREDICTOR_COUNT; pr++)
                    for (uint32_t min = 1; min <= 100; min += 99) {
                        int ok = same_answer(m, a, b, (nv_predictor)pr, min);
                        answered[i] += ok;
                        nan_answers += !ok;
                    }
    }
    for (int i = 0; i < 6; i++)
        assert_true(answered[i] > 0);
    /* the lab's nearest-configurations model answers every pair so */
    for (int32_t a = 0; a < (int32_t)nv_model_app_count(ms[5]); a++)
        for (int32_t b = 0; b < (int32_t)nv_model_app_count(ms[5]); b++) {
            nv_prediction p;
            assert_int_equal(nv_predict_idx(ms[5], a, &b, 1, NV_PREDICT_QUEUE, 100, &p), 0);
            assert_string_equal(p.mechanism, "nearest-configurations");
        }
    /* the varied model has long curves of both kinds (read through grids) */
    int long_u = 0, long_w = 0;
    for (size_t i = 0; i < nv_model_app_count(ms[4]); i++) {
        nv_app_view v;
        assert_int_equal(nv_model_app(ms[4], (int32_t)i, &v), 0);
        long_u += v.n_fit > 12;
        long_w += v.n_wait_fit > 12;
    }
    assert_true(long_u > 20 && long_w > 20);
    /* the small model's apps without curves answer NAN both ways */
    assert_true(nan_answers > 0);
    /* what nv_predict_idx refuses, the answer alone refuses too */
    int32_t n = (int32_t)nv_model_app_count(ms[0]);
    assert_true(isnan(nv_predict_pair_pct(NULL, 0, 0, NV_PREDICT_QUEUE, 1)));
    assert_true(isnan(nv_predict_pair_pct(ms[0], -1, 0, NV_PREDICT_QUEUE, 1)));
    assert_true(isnan(nv_predict_pair_pct(ms[0], 0, n, NV_PREDICT_QUEUE, 1)));
    assert_true(isnan(nv_predict_pair_pct(ms[0], 0, 1, (nv_predictor)NV_PREDICTOR_COUNT, 1)));
    for (int i = 0; i < 6; i++)
        nv_model_free(ms[i]);
}

/* --------------------------------------------- nearest configurations in (U, W)
 * Configurations c0 (U 0.5, 1000 us) and c1 (U 1.0, 2000 us); victim "v"
 * slowed 40 % and 100 % there; neighbours with joint windows. */
static void add_config(nv_model_builder *b, const char *id, double u, int has_w, double w,
                       const char *const *apps, const double *pct, size_t n)
{
    nv_config_input c = {.id = id,
                         .bubble_cycles = 1e6,
                         .partners = 1,
                         .messages = 1,
                         .utilization = u,
                         .latency = &lat,
                         .n_slowdowns = n,
                         .slowdown_apps = apps,
                         .slowdown_pct = pct,
                         .has_queue_wait = has_w,
                         .queue_wait_us = w};
    if (nv_builder_add_config(b, &c))
        fail_msg("config %s: %s", id, nv_builder_error(b));
}

static void add_joint(nv_model_builder *b, const char *key, const nv_joint_window *w, size_t n)
{
    nv_app_input a = {.key = key,
                      .utilization = 0.5,
                      .utilization_source = NV_USRC_COUNTERS,
                      .latency = &lat,
                      .joint = w,
                      .n_joint = n,
                      .joint_window_s = 0.5};
    if (nv_builder_add_app(b, &a))
        fail_msg("app %s: %s", key, nv_builder_error(b));
}

static nv_model_builder *nearest_base(int c1_wait, int pair)
{
    nv_model_builder *b = base(0, 1);
    static const nv_curve_point wfit[] = {{0.4, 30, 1}};
    nv_app_input w = {.key = "w",
                      .utilization = 0.2,
                      .utilization_source = NV_USRC_COUNTERS,
                      .latency = &lat,
                      .points = wfit,
                      .n_points = 1,
                      .fit = wfit,
                      .n_fit = 1};
    assert_int_equal(nv_builder_add_app(b, &w), 0);
    static const nv_joint_window on_c0[] = {{0.5f, 1000}}, halfway[] = {{0.25f, 500}},
                                 both[] = {{0.5f, 1000}, {0.25f, 500}},
                                 three_quarters[] = {{0.875f, 1750}};
    add_joint(b, "n", on_c0, 1);
    add_joint(b, "h", halfway, 1);
    add_joint(b, "two", both, 2);
    add_joint(b, "q", three_quarters, 1);
    static const char *const vw[] = {"v", "w"}, *const v[] = {"v"};
    static const double p0[] = {40, 35}, p1[] = {100};
    add_config(b, "c0", 0.5, 1, 1000, vw, p0, 2);
    add_config(b, "c1", 1.0, c1_wait, 2000, v, p1, 1); /* w was not measured under c1 */
    if (pair) { /* v beside q measured at twice its physics */
        nv_pair_input pr = {"v", "q", 170, 3, 2};
        assert_int_equal(nv_builder_add_pair(b, &pr), 0);
    }
    return b;
}

static double nearest_pct(const nv_model *m, const char *a, const char *with, nv_prediction *p)
{
    const char *w[] = {with};
    double v = queue(m, a, w, 1, p);
    /* job_submit's answer alone is the same number */
    double alone = nv_predict_pair_pct(m, nv_model_app_index(m, a), nv_model_app_index(m, with),
                                       NV_PREDICT_QUEUE, 3);
    assert_true(alone == v);
    return v;
}

static void the_nearest_configurations_answer(void **state)
{
    (void)state;
    nv_model *m = build(nearest_base(1, 0));
    nv_prediction p;
    /* on a configuration: its slowdown */
    NEAR(nearest_pct(m, "v", "n", &p), 40);
    assert_string_equal(p.mechanism, "nearest-configurations");
    assert_string_equal(p.source_label, "model:queue-nearest");
    NEAR(p.utilization_used, 0.5);
    NEAR(p.wait_used_us, 1000);
    /* as far from idle (0, 0 us: 0 %) as from c0: half of 40 % (a window's
     * weight is kept to 1/65535) */
    assert_true(fabs(nearest_pct(m, "v", "h", &p) - 20) < 1e-3);
    /* three quarters of the way from c0 to c1: 0.75 * 100 + 0.25 * 40 */
    assert_true(fabs(nearest_pct(m, "v", "q", &p) - 85) < 1e-3);
    /* two windows average as progress rates, not as slowdowns */
    double both = (2 / (100 / 140.0 + 100 / 120.0) - 1) * 100;
    assert_true(fabs(nearest_pct(m, "v", "two", &p) - both) < 1e-3);
    assert_true(both < 30);
    NEAR(p.utilization_used, 0.375);
    NEAR(p.wait_used_us, 750);
    /* a victim without a slowdown under c1, and two neighbours at once:
     * the two mechanisms answer (w: its p(U) alone, no queue gauge) */
    queue(m, "w", (const char *[]){"n"}, 1, &p);
    assert_string_equal(p.mechanism, "utilization");
    queue(m, "v", (const char *[]){"n", "h"}, 2, &p);
    assert_string_not_equal(p.mechanism, "nearest-configurations");
    nv_app_view av;
    assert_int_equal(nv_model_app(m, nv_model_app_index(m, "v"), &av), 0);
    assert_true(av.nearest_victim);
    assert_int_equal(nv_model_app(m, nv_model_app_index(m, "w"), &av), 0);
    assert_false(av.nearest_victim);
    assert_int_equal(nv_model_app(m, nv_model_app_index(m, "two"), &av), 0);
    assert_int_equal(av.n_joint, 2);
    assert_true(av.joint_window_s == 0.5 && av.joint[1].w_us == 500);

    /* the windows and the configurations' waits survive a rebuild */
    nv_model_builder *b = nv_builder_from_model(m);
    assert_non_null(b);
    nv_model *m2 = build(b);
    assert_true(fabs(nearest_pct(m2, "v", "two", &p) - both) < 1e-3);
    nv_config_view cv;
    assert_int_equal(nv_model_config(m2, 1, &cv), 0);
    assert_true(cv.queue_wait_us == 2000);
    nv_model_free(m2);
    nv_model_free(m);

    /* a configuration without its queue wait: not this mechanism */
    m = build(nearest_base(0, 0));
    assert_int_equal(nv_model_config(m, 1, &cv), 0);
    assert_true(isnan(cv.queue_wait_us));
    nearest_pct(m, "v", "n", &p);
    assert_string_not_equal(p.mechanism, "nearest-configurations");
    nv_model_free(m);

    /* history: v beside q measured at twice its physics raises v's
     * sensitivity, which corrects v beside n, never measured */
    m = build(nearest_base(1, 1));
    double v_n = nearest_pct(m, "v", "n", &p);
    assert_string_equal(p.source_label, "model:queue-nearest+history");
    NEAR(p.physics_pct, 40);
    assert_true(v_n > 45);
    nv_model_free(m);
}

static void bad_joint_windows_are_named(void **state)
{
    (void)state;
    char many[8000] = "{\"window_s\": 0.5, \"utilization\": [0";
    for (int i = 1; i <= NV_JOINT_MAX; i++)
        strcat(many, ", 0");
    strcat(many, "], \"queue_wait_us\": [0");
    for (int i = 1; i <= NV_JOINT_MAX; i++)
        strcat(many, ", 0");
    strcat(many, "]}");
    const char *bad[][2] = {
        {"3", "joint_windows: expected an object"},
        {"{\"window_s\": 0.5, \"utilization\": [0.1], \"queue_wait_us\": [1, 2]}",
         "1 utilization values but 2 queue_wait_us values"},
        {"{\"window_s\": 0.5, \"utilization\": [], \"queue_wait_us\": []}",
         "0 windows; an app has 1 to 512"},
        {many, "513 windows; an app has 1 to 512"},
        {"{\"window_s\": 0.5, \"utilization\": [1.5], \"queue_wait_us\": [1]}",
         "joint_windows.utilization[0]: value 1.5 is not a utilization in [0, 1]"},
        {"{\"window_s\": 0.5, \"utilization\": [0.5], \"queue_wait_us\": [-1]}",
         "joint_windows.queue_wait_us[0]: value -1 is not a queue wait in us in [0, 1e+07]"},
        {"{\"window_s\": 0, \"utilization\": [0.5], \"queue_wait_us\": [1]}",
         "window_s: value 0 is not allowed"},
        {"{\"utilization\": [0.5], \"queue_wait_us\": [1]}", "window_s"},
        {"{\"window_s\": 0.5, \"queue_wait_us\": [1]}", "utilization"},
    };
    char path[] = "/tmp/netvar-test-jw-XXXXXX", err[512];
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    nv_model_builder *b = nearest_base(1, 0);
    assert_int_equal(nv_builder_save(b, path, err, sizeof err), 0);
    nv_builder_free(b);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0] + 2; i++) {
        json_object *o = json_object_from_file(path), *arr;
        assert_non_null(o);
        if (i < sizeof bad / sizeof bad[0]) {
            json_object *jw = json_tokener_parse(bad[i][0]);
            assert_non_null(jw);
            assert_true(json_object_object_get_ex(o, "apps", &arr));
            json_object_object_add(json_object_array_get_idx(arr, 0), "joint_windows", jw);
        } else { /* a configuration's queue wait below 0 or beyond 10 s */
            assert_true(json_object_object_get_ex(o, "training_set", &arr));
            json_object_object_add(
                json_object_array_get_idx(arr, 0), "queue_wait_us",
                json_object_new_double(i == sizeof bad / sizeof bad[0] ? -1 : 2e7));
        }
        const char *want = i < sizeof bad / sizeof bad[0] ? bad[i][1]
                           : i == sizeof bad / sizeof bad[0]
                               ? "training_set[0].queue_wait_us: value -1 is negative"
                               : "training_set[0].queue_wait_us: value 2e+07 is over";
        const char *text = json_object_to_json_string(o);
        err[0] = 0;
        nv_model *m = nv_model_load_buffer(text, strlen(text), err, sizeof err);
        json_object_put(o);
        if (m || !strstr(err, want))
            fail_msg("case %zu: %s: got '%s'", i, want, m ? "loaded" : err);
    }
    unlink(path);
}

/* Windows between the same two points whose weights fall in the same
 * eighth are one placed window at their mean weight, standing for their
 * share (model_bottleneck.c nearest_setup): the answer is the windows'
 * progress-rate average all the same, to the curvature of 1 / (1 + p)
 * over an eighth, and exactly so for windows that coincide. */
static void merged_windows_answer_as_every_window(void **state)
{
    (void)state;
    nv_model_builder *b = nearest_base(1, 0);
    /* 140 windows from 30 % to 100 % of the way from c0 to c1 (c0 and c1
     * nearest, idle farther): c1's weight is the fraction, so v's p is 40
     * + 60 f there */
    nv_joint_window many[140], same[50];
    double rate = 0;
    for (int k = 0; k < 140; k++) {
        double f = 0.3 + 0.7 * k / 139.0;
        many[k] = (nv_joint_window){(float)(0.5 + 0.5 * f), (float)(1000 + 1000 * f)};
        rate += 100 / (140 + 60 * ((many[k].u - 0.5) / 0.5));
    }
    double every = (140 / rate - 1) * 100;
    for (int k = 0; k < 50; k++)
        same[k] = (nv_joint_window){0.875f, 1750};
    add_joint(b, "many", many, 140);
    add_joint(b, "same", same, 50);
    nv_model *m = build(b);
    nv_prediction p;
    double got = nearest_pct(m, "v", "many", &p);
    assert_string_equal(p.mechanism, "nearest-configurations");
    if (!(fabs(got - every) < 0.05))
        fail_msg("140 windows: %.4f %%, every window's answer %.4f %%", got, every);
    /* the same window fifty times: one window's answer */
    assert_true(fabs(nearest_pct(m, "v", "same", &p) - 85) < 1e-3);
    nv_app_view av;
    assert_int_equal(nv_model_app(m, nv_model_app_index(m, "many"), &av), 0);
    assert_int_equal(av.n_joint, 140); /* the view keeps every window as measured */
    nv_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_heavy_neighbour_is_not_read_as_a_light_one),
        cmocka_unit_test(a_port_never_speeds_a_victim_up),
        cmocka_unit_test(the_idle_bottleneck_slows_nobody),
        cmocka_unit_test(idle_is_counted_once),
        cmocka_unit_test(a_phased_neighbour_is_not_its_mean),
        cmocka_unit_test(history_corrects_unseen_pairs),
        cmocka_unit_test(a_factor_is_not_fitted_from_noise),
        cmocka_unit_test(a_victim_without_pairs_gets_its_physics),
        cmocka_unit_test(bad_profiles_and_bottlenecks_are_named),
        cmocka_unit_test(the_queueing_mechanism_averages_progress_rates),
        cmocka_unit_test(a_queue_free_neighbour_slows_bulk_victims_by_their_share),
        cmocka_unit_test(bad_queue_waits_are_named),
        cmocka_unit_test(the_wait_gauge_round_trips),
        cmocka_unit_test(a_large_model_packed_for_huge_pages_predicts_the_same),
        cmocka_unit_test(the_answer_alone_is_the_full_answer),
        cmocka_unit_test(the_nearest_configurations_answer),
        cmocka_unit_test(merged_windows_answer_as_every_window),
        cmocka_unit_test(bad_joint_windows_are_named),
        cmocka_unit_test(a_long_curve_is_entered_through_its_grid),
        cmocka_unit_test(a_forty_point_campaign_reads_as_its_curve),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
