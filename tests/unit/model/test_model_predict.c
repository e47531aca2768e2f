/* test_model_predict.c - what each route of a prediction fills and leaves
 * (model_predict.c: the pass over the neighbours, the co-location table,
 * the queue route, the look-up routes), through nv_predict and
 * nv_predict_idx: an answer or a failure starts from the same blank
 * whatever the caller's struct held, a route writes only its own fields,
 * and a failure says how far the question got.  The figures themselves
 * are test_model_file.c's and test_model_bottleneck.c's.
 *
 * Model: tests/fixtures/model/valid_small.json (fftw U 0.30, lulesh 0.45,
 * amg 0.60; three configurations; fftw beside lulesh 5 %, 8 runs; lulesh
 * beside fftw 5 %, 2 runs), and a built one with no configuration and an
 * app without a curve. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "calibration.h"
#include "model.h"
#include "model_builder.h"
#include "predict.h"

static nv_model *small, *bare;
static int32_t fftw, lulesh, amg;

/* a prediction as a caller's stack may hold it */
static void garbage(nv_prediction *p)
{
    memset(p, 0x5a, sizeof *p);
}

/* the fields every answer starts from */
static void assert_blank_but_answer(const nv_prediction *p, nv_predictor pr)
{
    assert_int_equal(p->predictor, pr);
    assert_int_equal(p->config, -1);
    assert_string_equal(p->config_id, "");
    assert_string_equal(p->mechanism, "");
    assert_true(isnan(p->wait_used_us) && isnan(p->wait_pct) && isnan(p->share_pct));
    assert_int_equal(p->curve_fallback, 0);
    assert_true(p->physics_pct == 0 && p->correction_pp == 0);
    assert_int_equal(p->history_samples, 0);
}

static int setup(void **state)
{
    (void)state;
    const char *root = getenv("ROOT");
    char path[4096], err[512];
    snprintf(path, sizeof path, "%s/tests/fixtures/model/valid_small.json",
             root && *root ? root : ".");
    small = nv_model_load(path, err, sizeof err);
    if (!small) {
        fprintf(stderr, "%s: %s\n", path, err);
        return -1;
    }
    fftw = nv_model_app_index(small, "fftw");
    lulesh = nv_model_app_index(small, "lulesh");
    amg = nv_model_app_index(small, "amg");

    nv_model_builder *b = nv_builder_new();
    double idle[64], lat[32];
    for (int i = 0; i < 64; i++)
        idle[i] = 1.0 + (i % 8) * 0.03;
    for (int i = 0; i < 32; i++)
        lat[i] = 2.0 + (i % 4) * 0.2;
    nv_calibration cal;
    nv_latency_summary l;
    nv_calibrate(idle, 64, NV_CAL_MINIMUM, 0, &cal);
    nv_builder_set_calibration(b, &cal);
    nv_latency_summary_of(lat, 32, &l);
    const nv_curve_point pts[] = {{0.2, 2, 1}, {0.5, 10, 1}, {0.9, 40, 1}};
    nv_app_input with_curve = {
        .key = "curved", .utilization = 0.4, .latency = &l, .points = pts, .n_points = 3};
    nv_app_input without = {.key = "flat", .utilization = 0.5, .latency = &l};
    if (nv_builder_add_app(b, &with_curve) || nv_builder_add_app(b, &without))
        return -1;
    bare = nv_builder_build(b, err, sizeof err);
    nv_builder_free(b);
    return bare && fftw >= 0 && lulesh >= 0 && amg >= 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    nv_model_free(small);
    nv_model_free(bare);
    return 0;
}

/* ------------------------------------------------------------ the question */

static void a_bad_question_leaves_the_blank(void **state)
{
    (void)state;
    nv_prediction p;
    int32_t w[2] = {lulesh, amg};
    for (int pr = 0; pr < NV_PREDICTOR_COUNT; pr++) {
        const struct {
            const nv_model *m;
            int32_t a;
            const int32_t *with;
            size_t n;
            int st;
        } q[] = {
            {NULL, fftw, w, 1, NV_PRED_EINVAL},     {small, fftw, NULL, 1, NV_PRED_EINVAL},
            {small, fftw, w, 0, NV_PRED_EINVAL},    {small, -1, w, 1, NV_PRED_EUNKNOWN_APP},
            {small, 3, w, 1, NV_PRED_EUNKNOWN_APP},
        };
        for (size_t i = 0; i < sizeof q / sizeof *q; i++) {
            garbage(&p);
            assert_int_equal(
                nv_predict_idx(q[i].m, q[i].a, q[i].with, q[i].n, (nv_predictor)pr, 3, &p),
                q[i].st);
            assert_blank_but_answer(&p, (nv_predictor)pr);
            assert_null(p.app);
            assert_null(p.source_label);
            assert_int_equal(p.n_with, 0);
            assert_true(p.slowdown_pct == 0);
        }
    }
    garbage(&p);
    assert_int_equal(nv_predict_idx(small, fftw, w, 1, (nv_predictor)NV_PREDICTOR_COUNT, 3, &p),
                     NV_PRED_EINVAL);
    assert_int_equal(p.config, -1);
}

/* the pass over the neighbours stops at the first unknown one: what it
 * read of those before it stays, nothing is answered */
static void an_unknown_neighbour_stops_the_pass(void **state)
{
    (void)state;
    nv_prediction p;
    const char *with[] = {"lulesh", "amg", "ghost", "fftw"};
    for (int pr = 0; pr < NV_PREDICTOR_COUNT; pr++) {
        size_t bad = 99;
        garbage(&p);
        assert_int_equal(nv_predict(small, "fftw", with, 4, (nv_predictor)pr, 3, &p, &bad),
                         NV_PRED_EUNKNOWN_WITH);
        assert_int_equal(bad, 2);
        assert_blank_but_answer(&p, (nv_predictor)pr);
        assert_string_equal(p.app, "fftw");
        assert_int_equal(p.n_with, 4);
        assert_true(fabs(p.with_utilization[0] - 0.45) < 1e-12);
        assert_true(fabs(p.with_utilization[1] - 0.60) < 1e-12);
        assert_true(p.with_utilization[2] == 0 && p.utilization_sum == 0);
        assert_null(p.source_label);
    }
    /* by index: a neighbour outside the model */
    int32_t w[2] = {lulesh, 3};
    garbage(&p);
    assert_int_equal(nv_predict_idx(small, fftw, w, 2, NV_PREDICT_QUEUE, 3, &p),
                     NV_PRED_EUNKNOWN_WITH);
    assert_true(fabs(p.with_utilization[0] - 0.45) < 1e-12);
}

/* ------------------------------------------------------------ the table */

static void the_table_answers_before_any_predictor(void **state)
{
    (void)state;
    nv_prediction p;
    for (int pr = 0; pr < NV_PREDICTOR_COUNT; pr++) {
        /* fftw beside lulesh: 8 runs, whatever the predictor */
        garbage(&p);
        assert_int_equal(nv_predict_idx(small, fftw, &lulesh, 1, (nv_predictor)pr, 8, &p),
                         NV_PRED_OK);
        assert_int_equal(p.source, NV_SOURCE_TABLE);
        assert_string_equal(p.source_label, "table");
        assert_true(p.slowdown_pct == 5.0);
        assert_int_equal(p.table_samples, 8);
        assert_true(p.table_sd_pct == 1.0);
        assert_true(fabs(p.utilization_used - 0.45) < 1e-12 &&
                    p.utilization_used == p.utilization_sum);
        assert_blank_but_answer(&p, (nv_predictor)pr); /* no predictor ran */
        /* one run short: the predictor answers, and the entry is echoed */
        garbage(&p);
        assert_int_equal(nv_predict_idx(small, fftw, &lulesh, 1, (nv_predictor)pr, 9, &p),
                         NV_PRED_OK);
        assert_int_equal(p.source, NV_SOURCE_MODEL);
        assert_int_equal(p.table_samples, 8);
        assert_true(p.table_sd_pct == 1.0);
        /* two neighbours: the table is not read, though it holds (fftw, lulesh) */
        int32_t two[2] = {lulesh, lulesh};
        garbage(&p);
        assert_int_equal(nv_predict_idx(small, fftw, two, 2, (nv_predictor)pr, 1, &p), NV_PRED_OK);
        assert_int_equal(p.source, NV_SOURCE_MODEL);
        assert_int_equal(p.table_samples, 0);
        assert_true(fabs(p.utilization_sum - 0.90) < 1e-12);
    }
}

/* ------------------------------------------------------------ the predictors */

static void each_route_writes_its_own_fields(void **state)
{
    (void)state;
    nv_prediction p;
    /* the queue route: the physics and its corrections, no configuration */
    garbage(&p);
    assert_int_equal(nv_predict_idx(small, amg, &fftw, 1, NV_PREDICT_QUEUE, 3, &p), NV_PRED_OK);
    assert_int_equal(p.source, NV_SOURCE_MODEL);
    assert_true(strncmp(p.source_label, "model:queue", 11) == 0);
    assert_true(strlen(p.mechanism) > 0);
    assert_true(p.slowdown_pct ==
                (p.physics_pct + p.correction_pp < -100 ? -100 : p.physics_pct + p.correction_pp));
    assert_int_equal(p.config, -1);
    assert_string_equal(p.config_id, "");
    assert_int_equal(p.curve_fallback, 0);

    /* a look-up route: a configuration, measured there or read off the
     * curve, and none of the queue route's fields */
    const nv_predictor lookups[] = {NV_PREDICT_AVERAGE_LT, NV_PREDICT_AVERAGE_STDEV_LT,
                                    NV_PREDICT_PDF_LT};
    const char *labels[] = {"model:averagelt", "model:averagestdevlt", "model:pdflt"};
    int fallbacks = 0;
    for (int i = 0; i < 3; i++)
        for (int32_t a = 0; a < 3; a++)
            for (int32_t b = 0; b < 3; b++) {
                garbage(&p);
                int st = nv_predict_idx(small, a, &b, 1, lookups[i], UINT32_MAX, &p);
                assert_int_equal(st, NV_PRED_OK);
                assert_string_equal(p.source_label, labels[i]);
                assert_true(p.config >= 0 && strlen(p.config_id) > 0);
                assert_string_equal(p.mechanism, "");
                assert_true(p.physics_pct == 0 && p.correction_pp == 0);
                assert_true(isnan(p.wait_pct) && isnan(p.share_pct) && isnan(p.wait_used_us));
                assert_int_equal(p.capped, 0); /* one neighbour is never capped */
                fallbacks += p.curve_fallback;
            }
    assert_true(fallbacks > 0 && fallbacks < 27); /* both ways of answering */
    /* several neighbours: beyond the training set's top U it is capped */
    int32_t three[3] = {amg, amg, amg};
    garbage(&p);
    assert_int_equal(nv_predict_idx(small, fftw, three, 3, NV_PREDICT_AVERAGE_LT, 3, &p),
                     NV_PRED_OK);
    assert_int_equal(p.capped, 1);
    assert_true(p.config >= 0);
}

/* a route without its data fails, naming the route it tried */
static void no_data_names_the_route(void **state)
{
    (void)state;
    nv_prediction p;
    int32_t curved = nv_model_app_index(bare, "curved"), flat = nv_model_app_index(bare, "flat");
    garbage(&p);
    assert_int_equal(nv_predict_idx(bare, flat, &curved, 1, NV_PREDICT_QUEUE, 3, &p),
                     NV_PRED_ENODATA);
    assert_int_equal(p.source, NV_SOURCE_MODEL);
    assert_string_equal(p.source_label, "model:queue");
    assert_blank_but_answer(&p, NV_PREDICT_QUEUE);
    assert_true(p.slowdown_pct == 0);
    /* the app with a curve answers on the queue route ... */
    assert_int_equal(nv_predict_idx(bare, curved, &flat, 1, NV_PREDICT_QUEUE, 3, &p), NV_PRED_OK);
    /* ... but no look-up route can without configurations */
    garbage(&p);
    assert_int_equal(nv_predict_idx(bare, curved, &flat, 1, NV_PREDICT_PDF_LT, 3, &p),
                     NV_PRED_ENODATA);
    assert_string_equal(p.source_label, "model:pdflt");
    assert_blank_but_answer(&p, NV_PREDICT_PDF_LT);
    assert_true(fabs(p.utilization_sum - 0.5) < 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_bad_question_leaves_the_blank),
        cmocka_unit_test(an_unknown_neighbour_stops_the_pass),
        cmocka_unit_test(the_table_answers_before_any_predictor),
        cmocka_unit_test(each_route_writes_its_own_fields),
        cmocka_unit_test(no_data_names_the_route),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
