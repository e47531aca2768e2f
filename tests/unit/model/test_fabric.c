/* test_fabric.c - the fabric response file (fabric.c): its round trip,
 * hostile files refused with one line naming the field, and the profile
 * route: an app without a campaign curve answered from its signature and
 * the fabric, with the expected slowdown computed here from the formula
 * (fabric.h), a campaign curve answering first, the model round trip. */
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

#include "fabric.h"
#include "model.h"
#include "model_builder.h"
#include "nv_test.h"
#include "predict.h"

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-6)

/* two configurations: U 0.3 / 0.8, waits 50 / 400 us; class 0 (p2p
 * small) grows 1.5 / 3.0, class 11 (all-to-all large) 1.2 / 2.0, the rest
 * stays at 1 */
static void two_point_fabric(nv_fabric *f)
{
    memset(f, 0, sizeof *f);
    snprintf(f->wait_gauge, sizeof f->wait_gauge, "queue_us");
    f->idle_utilization = 0;
    f->repetitions = 3;
    f->elapsed_s = 42.5;
    for (int c = 0; c < NV_FABRIC_CLASSES; c++)
        f->idle_us[c] = 10 + c;
    f->n_points = 2;
    static const double u[2] = {0.3, 0.8}, w[2] = {50, 400}, g0[2] = {1.5, 3.0},
                        g11[2] = {1.2, 2.0};
    for (int k = 0; k < 2; k++) {
        nv_fabric_point *p = &f->points[k];
        snprintf(p->id, sizeof p->id, "B%d-P1-M1", k);
        p->utilization = u[k];
        p->wait_us = w[k];
        for (int c = 0; c < NV_FABRIC_CLASSES; c++)
            p->growth[c] = 1;
        p->growth[0] = g0[k];
        p->growth[11] = g11[k];
    }
}

static void the_file_round_trips(void **state)
{
    (void)state;
    char dir[256], path[300], err[400];
    assert_int_equal(nv_test_tmpdir(dir, sizeof dir, "fabric"), 0);
    snprintf(path, sizeof path, "%s/fabric.json", dir);
    nv_fabric f, back;
    two_point_fabric(&f);
    assert_int_equal(nv_fabric_save(&f, path, err, sizeof err), 0);
    assert_int_equal(nv_fabric_load(path, &back, err, sizeof err), 0);
    assert_string_equal(back.wait_gauge, "queue_us");
    assert_int_equal(back.n_points, 2);
    assert_int_equal(back.repetitions, 3);
    NEAR(back.elapsed_s, 42.5);
    assert_string_equal(back.points[1].id, "B1-P1-M1");
    for (int k = 0; k < 2; k++)
        for (int c = 0; c < NV_FABRIC_CLASSES; c++)
            NEAR(back.points[k].growth[c], f.points[k].growth[c]);
    NEAR(back.idle_us[7], 17);
    /* a value the reader refuses is not written either */
    f.points[0].growth[3] = 0;
    assert_int_equal(nv_fabric_save(&f, path, err, sizeof err), -1);
    assert_non_null(strstr(err, "growth[3]"));
    assert_int_equal(nv_fabric_load(path, &back, err, sizeof err), 0); /* the old file stays */
    /* a file that is not there, and one that is not JSON */
    snprintf(path, sizeof path, "%s/none.json", dir);
    assert_int_equal(nv_fabric_load(path, &back, err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    assert_int_equal(nv_test_write_file(dir, "junk.json", "{\"schema\": "), 0);
    snprintf(path, sizeof path, "%s/junk.json", dir);
    assert_int_equal(nv_fabric_load(path, &back, err, sizeof err), -1);
    assert_null(strchr(err, '\n'));
    assert_int_equal(nv_test_rmtree(dir), 0);
}

/* the JSON of the two-point fabric with one edit: member key of point 0
 * (or of the root when point is 0 and key starts with '/') set to v */
static json_object *edited(const char *where, const char *key, json_object *v)
{
    nv_fabric f;
    two_point_fabric(&f);
    json_object *o = nv_fabric_to_json(&f);
    json_object *in = o;
    if (!strcmp(where, "point"))
        in = json_object_array_get_idx(json_object_object_get(o, "points"), 0);
    if (v)
        json_object_object_add(in, key, v);
    else
        json_object_object_del(in, key);
    return o;
}

static void hostile_files_are_named(void **state)
{
    (void)state;
    struct {
        const char *where, *key, *value, *says;
    } bad[] = {
        {"root", "schema", "\"netvar-model\"", "fabric.schema"},
        {"root", "version", "2", "fabric.version"},
        {"root", "wait_gauge", "\"furlongs\"", "fabric.wait_gauge"},
        {"root", "idle_utilization", "1.5", "fabric.idle_utilization"},
        {"root", "repetitions", "0", "fabric.repetitions"},
        {"root", "repetitions", "2.5", "fabric.repetitions"},
        {"root", "idle_us", "[1,2,3]", "fabric.idle_us"},
        {"root", "idle_us", "[1,2,3,4,5,6,7,8,9,10,11,0]", "fabric.idle_us[11]"},
        {"root", "points", "[]", "fabric.points"},
        {"root", "points", "{}", "fabric.points"},
        {"root", "points", "[7]", "fabric.points[0]"},
        {"root", "elapsed_s", "\"long\"", "fabric.elapsed_s"},
        {"root", "elapsed_s", NULL, "fabric.elapsed_s"},
        {"point", "config", "\"a b\"", "fabric.points[0].config"},
        {"point", "config", "\"B1-P1-M1\"", "given twice"},
        {"point", "utilization", "-0.1", "fabric.points[0].utilization"},
        {"point", "wait_us", "1e8", "fabric.points[0].wait_us"},
        {"point", "growth", "[1,1,1,1,1,1,1,1,1,1,1,1e6]", "fabric.points[0].growth[11]"},
        {"point", "growth", "[1,1,1,1,1,1,1,1,1,1,1,-1]", "fabric.points[0].growth[11]"},
        {"point", "growth", "[1,1,1,1,1,1,1,1,1,1,1,\"x\"]", "fabric.points[0].growth[11]"},
        {"point", "growth", "[1,1]", "fabric.points[0].growth"},
        {"point", "growth", NULL, "fabric.points[0].growth"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_object *v = bad[i].value ? json_tokener_parse(bad[i].value) : NULL;
        if (bad[i].value && !v && strcmp(bad[i].value, "null"))
            fail_msg("fixture %zu does not parse", i);
        json_object *o = edited(bad[i].where, bad[i].key, v);
        nv_fabric f;
        char err[400] = "";
        int rc = nv_fabric_from_json(o, "fabric", &f, err, sizeof err);
        if (rc != -1 || !strstr(err, bad[i].says) || strchr(err, '\n'))
            fail_msg("case %zu (%s=%s): rc %d, \"%s\" (wanted it to name %s)", i, bad[i].key,
                     bad[i].value ? bad[i].value : "(absent)", rc, err, bad[i].says);
        json_object_put(o);
    }
    /* too many configurations */
    json_object *o = edited("root", "schema", json_object_new_string(NV_FABRIC_FORMAT));
    json_object *pts = json_object_object_get(o, "points");
    for (int k = 2; k <= NV_FABRIC_MAX_POINTS; k++) {
        json_object *e = json_object_get(json_object_array_get_idx(pts, 0));
        json_object_array_add(pts, e);
    }
    nv_fabric f;
    char err[400];
    assert_int_equal(nv_fabric_from_json(o, "fabric", &f, err, sizeof err), -1);
    assert_non_null(strstr(err, "255 configurations"));
    json_object_put(o);
    assert_int_equal(nv_fabric_from_json(NULL, "fabric", &f, err, sizeof err), -1);
}

static void hostile_signatures_are_named(void **state)
{
    (void)state;
    struct {
        const char *text, *says;
    } bad[] = {
        {"{\"runs\":0,\"runtime_us\":10,\"overlap_us\":0,\"comm_us\":[0,0,0,0,0,0,0,0,0,0,0,0]}",
         "s.runs"},
        {"{\"runs\":1,\"runtime_us\":0,\"overlap_us\":0,\"comm_us\":[0,0,0,0,0,0,0,0,0,0,0,0]}",
         "s.runtime_us"},
        {"{\"runs\":1,\"runtime_us\":10,\"overlap_us\":0,\"comm_us\":[6,0,0,0,0,0,0,0,0,0,0,5]}",
         "more than the run's"},
        {"{\"runs\":1,\"runtime_us\":10,\"overlap_us\":5,\"comm_us\":[6,0,0,0,0,0,0,0,0,0,0,0]}",
         "s.overlap_us"},
        {"{\"runs\":1,\"runtime_us\":10,\"overlap_us\":0,\"comm_us\":[-1,0,0,0,0,0,0,0,0,0,0,0]}",
         "s.comm_us[0]"},
        {"{\"runs\":1,\"runtime_us\":10,\"overlap_us\":0,\"comm_us\":[0]}", "s.comm_us"},
        {"{\"runs\":1,\"runtime_us\":10,\"comm_us\":[0,0,0,0,0,0,0,0,0,0,0,0]}", "s.overlap_us"},
        {"[]", "s: expected an object"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_object *o = json_tokener_parse(bad[i].text);
        nv_signature s;
        char err[300] = "";
        int rc = nv_signature_from_json(o, "s", &s, err, sizeof err);
        if (rc != -1 || !strstr(err, bad[i].says))
            fail_msg("case %zu: rc %d, \"%s\" (wanted %s)", i, rc, err, bad[i].says);
        json_object_put(o);
    }
}

/* the reference kernels' result line: written and read by one module */
static void the_kernels_line_round_trips_and_bad_lines_are_named(void **state)
{
    (void)state;
    double in[NV_FABRIC_CLASSES], out[NV_FABRIC_CLASSES];
    for (int c = 0; c < NV_FABRIC_CLASSES; c++)
        in[c] = 1.5 * (c + 1);
    json_object *o = nv_fabric_kernels_to_json(in, 4);
    char text[2048], err[300];
    snprintf(text, sizeof text, "some launcher noise\n%s\ntrailing words\n",
             json_object_to_json_string(o));
    json_object_put(o);
    int ranks = 0;
    assert_int_equal(nv_fabric_kernels_parse(text, strlen(text), out, &ranks, err, sizeof err), 0);
    assert_int_equal(ranks, 4);
    for (int c = 0; c < NV_FABRIC_CLASSES; c++)
        NEAR(out[c], in[c]);
    struct {
        const char *text, *says;
    } bad[] = {
        {"no json here\n", "no result line"},
        {"{\"schema\": \"netvar-fabric-kern", "not JSON"},
        {"{\"schema\":\"netvar-fabric\",\"version\":1}", "kernels.schema"},
        {"{\"schema\":\"netvar-fabric-kernel-times\",\"version\":2,\"ranks\":2,"
         "\"class_us\":[1,1,1,1,1,1,1,1,1,1,1,1]}",
         "kernels.version"},
        {"{\"schema\":\"netvar-fabric-kernel-times\",\"version\":1,\"ranks\":1,"
         "\"class_us\":[1,1,1,1,1,1,1,1,1,1,1,1]}",
         "kernels.ranks"},
        {"{\"schema\":\"netvar-fabric-kernel-times\",\"version\":1,\"ranks\":2,"
         "\"class_us\":[1,1,1,1,1,1,1,1,1,1,1]}",
         "kernels.class_us"},
        {"{\"schema\":\"netvar-fabric-kernel-times\",\"version\":1,\"ranks\":2,"
         "\"class_us\":[1,1,1,1,1,1,1,1,1,1,1,0]}",
         "kernels.class_us[11]"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        int rc =
            nv_fabric_kernels_parse(bad[i].text, strlen(bad[i].text), out, &ranks, err, sizeof err);
        if (rc != -1 || !strstr(err, bad[i].says))
            fail_msg("case %zu: rc %d, \"%s\" (wanted %s)", i, rc, err, bad[i].says);
    }
}

/* ------------------------------------------------------------ profile route */
static nv_latency_summary lat;

static nv_signature sig(void)
{
    nv_signature s = {.runtime_us = 1e6, .overlap_us = 3e4, .runs = 2};
    s.comm_us[0] = 1e5;  /* p2p small */
    s.comm_us[11] = 2e5; /* all-to-all large */
    s.comm_us[5] = 5e4;  /* rooted medium: its growth stays 1 */
    return s;
}

/* the formula of fabric.h, here, step by step: the time the victim's own
 * bytes hold the port (own U over idle, times its runtime, at most its
 * time in MPI) grows by the share it keeps, and its MPI time but the part
 * that met its own queue alone by the kernels' growth.  own_u NAN: the
 * kernels' growth alone. */
static double formula(const nv_fabric *f, const nv_signature *s, double own_u, size_t k)
{
    const nv_fabric_point *pt = &f->points[k];
    double mpi = 0, kernels = 0;
    for (int c = 0; c < NV_FABRIC_CLASSES; c++) {
        mpi += s->comm_us[c];
        kernels += s->comm_us[c] * (pt->growth[c] - 1);
    }
    if (isnan(own_u))
        return 100 * kernels / s->runtime_us;
    double v = own_u - f->idle_utilization, n = pt->utilization - f->idle_utilization;
    double b = fmin(v * s->runtime_us, mpi);
    double kept = v + n <= 1 ? v : fmin(v, fmax(1 - n, 0.5));
    return 100 * (b * (v / kept - 1) + (1 - v * b / mpi) * kernels) / s->runtime_us;
}

static nv_model_builder *profile_builder(const nv_fabric *f, const nv_signature *s)
{
    static const double idle_lat[] = {1.0, 1.01, 1.02, 1.04, 1.08};
    nv_calibration cal;
    assert_int_equal(nv_calibrate(idle_lat, 5, NV_CAL_MINIMUM, 0, &cal), 0);
    nv_latency_summary_of(idle_lat, 5, &lat);
    nv_model_builder *b = nv_builder_new();
    assert_int_equal(nv_builder_set_calibration(b, &cal), 0);
    nv_bottleneck bn = {.idle_utilization = 0, .route = NV_USRC_COUNTERS, .shrink_samples = 2};
    assert_int_equal(nv_builder_set_bottleneck(b, &bn), 0);
    if (f)
        assert_int_equal(nv_builder_set_fabric(b, f), 0);
    /* "p": a victim known only by its signature */
    nv_app_input p = {.key = "p",
                      .utilization = 0.2,
                      .utilization_source = NV_USRC_COUNTERS,
                      .latency = &lat,
                      .signature = s};
    assert_int_equal(nv_builder_add_app(b, &p), 0);
    /* "c": a campaign app with a signature too; its curve answers first */
    static const nv_curve_point pts[] = {{0.5, 70, 3}, {0.9, 90, 3}};
    nv_app_input c = {.key = "c",
                      .utilization = 0.2,
                      .utilization_source = NV_USRC_COUNTERS,
                      .latency = &lat,
                      .points = pts,
                      .n_points = 2,
                      .signature = s};
    assert_int_equal(nv_builder_add_app(b, &c), 0);
    /* "n": a neighbour with a mean U and no queue-wait profile, so the
     * victim's U curve answers alone */
    nv_app_input n = {
        .key = "n", .utilization = 0.55, .utilization_source = NV_USRC_COUNTERS, .latency = &lat};
    assert_int_equal(nv_builder_add_app(b, &n), 0);
    return b;
}

/* b's model, built (b freed) */
static nv_model *built(nv_model_builder *b)
{
    char err[512];
    nv_model *m = nv_builder_build(b, err, sizeof err);
    nv_builder_free(b);
    if (!m)
        fail_msg("build: %s", err);
    return m;
}

/* the builder's model, built (f NULL: a model without a fabric) */
static nv_model *profile_model(const nv_fabric *f, const nv_signature *s)
{
    return built(profile_builder(f, s));
}

static void a_signature_and_the_fabric_answer(void **state)
{
    (void)state;
    nv_fabric f;
    two_point_fabric(&f);
    nv_signature s = sig();
    nv_model *m = profile_model(&f, &s);

    double p0 = formula(&f, &s, 0.2, 0), p1 = formula(&f, &s, 0.2, 1);
    /* the kernels: 100 * (1e5 * 0.5 + 2e5 * 0.2) / 1e6 = 9 %, and
     * 100 * (1e5 * 2 + 2e5 * 1) / 1e6 = 40 %; p (U 0.2) keeps its demand
     * beside U 0.3 and 0.8, and its bytes' 2e5 of 3.5e5 us in MPI met its
     * own queue alone as far as U 0.2: 1 - 0.2 * 2 / 3.5 = 31 / 35 of it grows */
    assert_true(fabs(p0 - 9.0 * 31 / 35) < 1e-9 && fabs(p1 - 40.0 * 31 / 35) < 1e-9);
    nv_app_view v;
    assert_int_equal(nv_model_app(m, nv_model_app_index(m, "p"), &v), 0);
    assert_int_equal(v.curve_origin, NV_CURVE_PROFILE);
    assert_int_equal(v.n_fit, 2);
    NEAR(v.fit[0].utilization, 0.3);
    NEAR(v.fit[0].slowdown_pct, p0);
    NEAR(v.fit[1].slowdown_pct, p1);
    assert_int_equal(v.n_wait_fit, 2);
    NEAR(v.wait_fit[1].utilization, 400);
    NEAR(v.wait_fit[1].slowdown_pct, p1);
    assert_int_equal(v.curve_runs, 2);

    /* beside n (U 0.55, idle 0): the U curve anchored at (0, 0 %) read at 0.55 */
    const char *with[] = {"n"};
    nv_prediction pr;
    assert_int_equal(nv_predict(m, "p", with, 1, NV_PREDICT_QUEUE, 3, &pr, NULL), NV_PRED_OK);
    double want = p0 + (0.55 - 0.3) / (0.8 - 0.3) * (p1 - p0);
    NEAR(pr.slowdown_pct, want);
    assert_string_equal(pr.source_label, "model:profile");
    assert_string_equal(pr.curve, "profile");
    assert_int_equal(pr.runs, 2);
    /* job_submit's loop: the same number */
    int32_t pi = nv_model_app_index(m, "p"), ni = nv_model_app_index(m, "n");
    NEAR(nv_predict_pair_pct(m, pi, ni, NV_PREDICT_QUEUE, 3), want);

    /* the campaign app's own curve answers, not its signature */
    assert_int_equal(nv_predict(m, "c", with, 1, NV_PREDICT_QUEUE, 3, &pr, NULL), NV_PRED_OK);
    assert_string_equal(pr.curve, "campaign");
    assert_int_equal(pr.runs, 6);
    assert_null(strstr(pr.source_label, "profile"));
    NEAR(pr.slowdown_pct, 70 + (0.55 - 0.5) / (0.9 - 0.5) * (90 - 70));
    nv_model_free(m);
}

/* the profile route and the nearest configurations: a model whose
 * configurations are the fabric's (ids B0-P1-M1, B1-P1-M1, at the
 * fabric's U and W), a neighbour whose one joint window lies on the
 * second: the profile victim's row is the composed slowdown there, and
 * with one configuration the fabric lacks it is no nearest victim */
static nv_model *nearest_profile_model(const nv_fabric *f, const nv_signature *s, int ids_match)
{
    nv_model_builder *b = profile_builder(f, s);
    for (int k = 0; k < 2; k++) {
        char id[32];
        snprintf(id, sizeof id, "B%d-P1-M1", ids_match || k == 0 ? k : 7);
        nv_config_input c = {.id = id,
                             .bubble_cycles = k + 1,
                             .partners = 1,
                             .messages = 1,
                             .utilization = f->points[k].utilization,
                             .latency = &lat,
                             .has_queue_wait = 1,
                             .queue_wait_us = f->points[k].wait_us};
        assert_int_equal(nv_builder_add_config(b, &c), 0);
    }
    static const nv_joint_window on1[] = {{0.8f, 400}};
    nv_app_input j = {.key = "j",
                      .utilization = 0.8,
                      .utilization_source = NV_USRC_COUNTERS,
                      .latency = &lat,
                      .joint = on1,
                      .n_joint = 1,
                      .joint_window_s = 0.5};
    assert_int_equal(nv_builder_add_app(b, &j), 0);
    return built(b);
}

static void a_profile_victim_reads_the_nearest_configurations(void **state)
{
    (void)state;
    nv_fabric f;
    two_point_fabric(&f);
    nv_signature s = sig();
    nv_model *m = nearest_profile_model(&f, &s, 1);
    const char *with[] = {"j"};
    nv_prediction pr;
    assert_int_equal(nv_predict(m, "p", with, 1, NV_PREDICT_QUEUE, 3, &pr, NULL), NV_PRED_OK);
    assert_string_equal(pr.mechanism, "nearest-configurations");
    assert_string_equal(pr.source_label, "model:profile");
    assert_true(fabs(pr.slowdown_pct - formula(&f, &s, 0.2, 1)) < 1e-4); /* a float row */
    nv_model_free(m);

    /* a configuration the fabric was not calibrated under: not this mechanism */
    m = nearest_profile_model(&f, &s, 0);
    assert_int_equal(nv_predict(m, "p", with, 1, NV_PREDICT_QUEUE, 3, &pr, NULL), NV_PRED_OK);
    assert_string_not_equal(pr.mechanism, "nearest-configurations");
    assert_string_equal(pr.source_label, "model:profile");
    nv_model_free(m);
}

/* the share term: a victim whose own bytes fill most of the port keeps
 * a max-min fair share of it beside each configuration's load, and the
 * part of its MPI time that met its own queue alone does not grow by the
 * kernels again; a victim whose U was not measured at the counters has
 * the kernels' growth alone */
static void a_victim_that_fills_the_port_keeps_its_share(void **state)
{
    (void)state;
    nv_fabric f;
    two_point_fabric(&f);
    nv_signature s = sig();
    nv_curve_point u[NV_FABRIC_MAX_POINTS], w[NV_FABRIC_MAX_POINTS];
    /* own U 0.9: its bytes hold the port longer than its 3.5e5 us in MPI, so
     * b = M and 0.1 of it grows by the kernels (0.9, 4 %); beside U 0.3 it
     * keeps 0.7 (0.9/0.7 = 9/7: +1e5 us, 10 %), beside 0.8 half (0.9/0.5:
     * +2.8e5 us, 28 %) */
    assert_int_equal(nv_fabric_compose(&f, &s, 0.9, u, w), 2);
    NEAR(u[0].slowdown_pct, 10.9);
    NEAR(u[1].slowdown_pct, 32.0);
    NEAR(w[1].slowdown_pct, 32.0);
    NEAR(u[1].slowdown_pct, formula(&f, &s, 0.9, 1));
    /* U 0.6 beside 0.3 keeps its demand (0.4 of 9 %), beside 0.8 half:
     * 3.5e5 * (0.6 / 0.5 - 1) = 7 %, plus 0.4 of 40 % */
    assert_int_equal(nv_fabric_compose(&f, &s, 0.6, u, w), 2);
    NEAR(u[0].slowdown_pct, 3.6);
    NEAR(u[1].slowdown_pct, 23.0);
    NEAR(u[0].slowdown_pct, formula(&f, &s, 0.6, 0));
    /* two that each want the whole port keep half each: +100 % of the MPI
     * time, whatever the kernels say */
    nv_signature full = {.runtime_us = 1e6, .runs = 1};
    full.comm_us[3] = 1e6;
    nv_fabric g = f;
    g.points[1].utilization = 1;
    g.points[1].growth[3] = 5;
    assert_int_equal(nv_fabric_compose(&g, &full, 1.0, u, w), 2);
    NEAR(u[1].slowdown_pct, 100.0);
    /* not measured at the counters: the kernels' growth, 9 and 40 % */
    assert_int_equal(nv_fabric_compose(&f, &s, NAN, u, w), 2);
    NEAR(u[0].slowdown_pct, 9.0);
    NEAR(u[1].slowdown_pct, 40.0);
    /* an own U at or under the fabric's idle U: the same */
    f.idle_utilization = 0.05;
    assert_int_equal(nv_fabric_compose(&f, &s, 0.05, u, w), 2);
    NEAR(u[1].slowdown_pct, 40.0);
    /* and in a model: q's U taken from latency composes the kernels alone,
     * r's from the counters the share as above */
    two_point_fabric(&f);
    nv_model_builder *b = profile_builder(&f, &s);
    nv_app_input q = {.key = "q",
                      .utilization = 0.9,
                      .utilization_source = NV_USRC_LATENCY,
                      .latency = &lat,
                      .signature = &s};
    assert_int_equal(nv_builder_add_app(b, &q), 0);
    q.key = "r";
    q.utilization_source = NV_USRC_COUNTERS;
    assert_int_equal(nv_builder_add_app(b, &q), 0);
    nv_model *m = built(b);
    nv_app_view v;
    assert_int_equal(nv_model_app(m, nv_model_app_index(m, "q"), &v), 0);
    assert_int_equal(v.curve_origin, NV_CURVE_PROFILE);
    NEAR(v.fit[1].slowdown_pct, 40.0);
    assert_int_equal(nv_model_app(m, nv_model_app_index(m, "r"), &v), 0);
    NEAR(v.fit[0].slowdown_pct, 10.9);
    NEAR(v.fit[1].slowdown_pct, 32.0);
    nv_model_free(m);
}

static void without_a_fabric_a_signature_does_not_answer(void **state)
{
    (void)state;
    nv_signature s = sig();
    nv_model *m = profile_model(NULL, &s);
    const char *with[] = {"n"};
    nv_prediction pr;
    assert_int_equal(nv_predict(m, "p", with, 1, NV_PREDICT_QUEUE, 3, &pr, NULL), NV_PRED_ENODATA);
    nv_app_view v;
    assert_int_equal(nv_model_app(m, nv_model_app_index(m, "p"), &v), 0);
    assert_non_null(v.signature);
    assert_int_equal(v.curve_origin, NV_CURVE_NONE);
    nv_model_free(m);
}

/* saved and loaded again: the fabric and the signature are kept, the
 * composed curve is not written (it is composed again, the same) */
static void the_model_round_trip_keeps_the_route(void **state)
{
    (void)state;
    nv_fabric f;
    two_point_fabric(&f);
    nv_signature s = sig();
    nv_model *m = profile_model(&f, &s);
    char dir[256], path[300], err[400];
    assert_int_equal(nv_test_tmpdir(dir, sizeof dir, "fabric-model"), 0);
    snprintf(path, sizeof path, "%s/model.json", dir);
    assert_int_equal(nv_model_save(m, path, err, sizeof err), 0);
    json_object *o = json_object_from_file(path);
    assert_non_null(o);
    json_object *apps = json_object_object_get(o, "apps");
    for (size_t i = 0; i < json_object_array_length(apps); i++) {
        json_object *a = json_object_array_get_idx(apps, i);
        if (strcmp(json_object_get_string(json_object_object_get(a, "key")), "p"))
            continue;
        json_object *fit = json_object_object_get(json_object_object_get(a, "compression"), "fit");
        assert_int_equal(json_object_array_length(fit), 0);
        assert_false(json_object_object_get_ex(a, "queue_wait", NULL));
        assert_true(json_object_object_get_ex(a, "signature", NULL));
    }
    assert_true(json_object_object_get_ex(o, "fabric", NULL));
    json_object_put(o);
    nv_model *m2 = nv_model_load(path, err, sizeof err);
    if (!m2)
        fail_msg("reload: %s", err);
    const char *with[] = {"n"};
    nv_prediction a, c;
    assert_int_equal(nv_predict(m, "p", with, 1, NV_PREDICT_QUEUE, 3, &a, NULL), NV_PRED_OK);
    assert_int_equal(nv_predict(m2, "p", with, 1, NV_PREDICT_QUEUE, 3, &c, NULL), NV_PRED_OK);
    NEAR(a.slowdown_pct, c.slowdown_pct);
    assert_string_equal(c.source_label, "model:profile");
    const nv_fabric *back = nv_model_fabric(m2);
    assert_non_null(back);
    assert_int_equal(back->n_points, 2);
    nv_model_free(m);
    nv_model_free(m2);
    assert_int_equal(nv_test_rmtree(dir), 0);
}

/* a fabric on another wait gauge than the bottleneck's is refused */
static void a_fabric_on_another_gauge_is_refused(void **state)
{
    (void)state;
    nv_fabric f;
    two_point_fabric(&f);
    snprintf(f.wait_gauge, sizeof f.wait_gauge, "stall_per_word");
    nv_signature s = sig();
    nv_model_builder *b = profile_builder(&f, &s);
    char err[512];
    nv_model *m = nv_builder_build(b, err, sizeof err);
    nv_builder_free(b);
    assert_null(m);
    assert_non_null(strstr(err, "fabric.wait_gauge"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_file_round_trips),
        cmocka_unit_test(hostile_files_are_named),
        cmocka_unit_test(hostile_signatures_are_named),
        cmocka_unit_test(the_kernels_line_round_trips_and_bad_lines_are_named),
        cmocka_unit_test(a_signature_and_the_fabric_answer),
        cmocka_unit_test(a_profile_victim_reads_the_nearest_configurations),
        cmocka_unit_test(a_victim_that_fills_the_port_keeps_its_share),
        cmocka_unit_test(without_a_fabric_a_signature_does_not_answer),
        cmocka_unit_test(the_model_round_trip_keeps_the_route),
        cmocka_unit_test(a_fabric_on_another_gauge_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
