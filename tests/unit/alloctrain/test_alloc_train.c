/* test_alloc_train.c - training the communication-time trees
 * (alloc_train.h): libxgboost's trees exported into the section answer as
 * XGBoost does on every training row (checked by the trainer, so a
 * successful training is the check), learn a known function of the
 * features well enough on rows they never saw, survive the section's JSON
 * round trip unchanged; extra trees likewise; the data set file round trip;
 * refusals (too few rows, a bad file). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "alloc_train.h"
#include "nv_test.h"

/* comm = 20 us + maxNT / 1 GB/s + maxInterST / 0.25 GB/s: a network whose
 * uplink is 4 times slower than a node link */
static double truth(const double *x)
{
    return 20e-6 + x[NV_AF_MAX_NT] / 1e9 + x[NV_AF_MAX_INTER_ST] / 0.25e9;
}

static void fill(nv_alloc_dataset *d, int every, int keep)
{
    static const uint32_t sizes[] = {256, 4096, 65536, 1048576};
    int k = 0;
    for (uint32_t n = 1; n <= 16; n *= 2)
        for (uint32_t ppn = 1; ppn <= 4; ppn *= 2)
            for (size_t s = 0; s < 4; s++)
                for (uint32_t sw = 1; sw <= 4 && sw <= n; sw *= 2, k++) {
                    if ((k % every == 0) != keep)
                        continue;
                    nv_alloc_layout l = {.n_switches = sw};
                    for (uint32_t j = 0; j < sw; j++)
                        l.nodes[j] = n / sw;
                    nv_alloc_row r;
                    memset(&r, 0, sizeof r);
                    snprintf(r.app, sizeof r.app, "halo");
                    r.nodes = n;
                    r.ppn = ppn;
                    r.layout = &l;
                    nv_alloc_pattern_halo(n * ppn, 3, sizes[s], &r.pattern);
                    double x[NV_AF_COUNT];
                    assert_int_equal(nv_alloc_features_pattern(&r.pattern, &l, ppn, x), 0);
                    r.comm_s = truth(x);
                    r.runtime_s = NAN;
                    char err[200];
                    if (nv_alloc_dataset_add(d, &r, err, sizeof err))
                        fail_msg("%s", err);
                }
}

static double mean_rel_error(const nv_alloc_model *m, const nv_alloc_dataset *test,
                             nv_alloc_class c)
{
    double sum = 0;
    for (size_t i = 0; i < test->n; i++) {
        double t;
        if (nv_alloc_predict(m, c, test->rows[i].x, &t, NULL))
            fail_msg("row %zu: no prediction", i);
        sum += fabs(t - test->rows[i].comm_s) / test->rows[i].comm_s;
    }
    return sum / test->n * 100;
}

static void learners_learn_and_export(void **state)
{
    (void)state;
    nv_alloc_dataset train, test;
    nv_alloc_dataset_init(&train);
    nv_alloc_dataset_init(&test);
    fill(&train, 5, 0); /* four rows in five */
    fill(&test, 5, 1);  /* the fifth, never seen */
    assert_true(train.n > 100 && test.n > 20);
    for (int lr = 0; lr < 2; lr++) {
        nv_alloc_train_params p;
        nv_alloc_train_defaults(&p, (nv_alloc_learner)lr);
        nv_alloc_model *m = nv_alloc_new();
        char err[400];
        for (int c = 0; c < NV_ALLOC_CLASSES; c++) {
            long used = nv_alloc_train_class(&train, NULL, 0, (nv_alloc_class)c, 0, INFINITY, &p, m,
                                             err, sizeof err);
            if (used != (long)train.n)
                fail_msg("learner %d class %d: %ld rows: %s", lr, c, used, err);
        }
        assert_int_equal(nv_alloc_finish(m, err, sizeof err), 0);
        double mre_a = mean_rel_error(m, &test, NV_ALLOC_CLASS_A);
        double mre_c = mean_rel_error(m, &test, NV_ALLOC_CLASS_C);
        /* class C sees the uplink traffic; A cannot tell placements apart */
        if (!(mre_c < 25 && mre_c < mre_a))
            fail_msg("learner %d: held-out mean relative error class C %.1f %%, A %.1f %%", lr,
                     mre_c, mre_a);
        assert_string_equal(nv_alloc_predictor_at(m, 0)->source[0] == 'x' ? "x" : "e",
                            lr ? "e" : "x");
        /* the section's round trip answers the same */
        json_object *o = nv_alloc_to_json(m);
        nv_alloc_model *r = nv_alloc_from_json(o, "alloc", err, sizeof err);
        if (!r)
            fail_msg("%s", err);
        for (size_t i = 0; i < test.n; i++) {
            double a, b;
            assert_int_equal(nv_alloc_predict(m, NV_ALLOC_CLASS_C, test.rows[i].x, &a, NULL), 0);
            assert_int_equal(nv_alloc_predict(r, NV_ALLOC_CLASS_C, test.rows[i].x, &b, NULL), 0);
            if (a != b)
                fail_msg("row %zu: %.17g before the round trip, %.17g after", i, a, b);
        }
        json_object_put(o);
        nv_alloc_free(r);
        nv_alloc_free(m);
    }
    nv_alloc_dataset_free(&train);
    nv_alloc_dataset_free(&test);
}

static void partitions_and_refusals(void **state)
{
    (void)state;
    nv_alloc_dataset d;
    nv_alloc_dataset_init(&d);
    fill(&d, 1, 0);
    fill(&d, 2, 1);
    nv_alloc_train_params p;
    nv_alloc_train_defaults(&p, NV_LEARN_XGBOOST);
    nv_alloc_model *m = nv_alloc_new();
    char err[400];
    long small =
        nv_alloc_train_class(&d, NULL, 0, NV_ALLOC_CLASS_B, 0, 4096, &p, m, err, sizeof err);
    long large =
        nv_alloc_train_class(&d, NULL, 0, NV_ALLOC_CLASS_B, 4096, INFINITY, &p, m, err, sizeof err);
    assert_true(small > 0 && large > 0);
    assert_int_equal(small + large, (long)d.n);
    /* no rows with messages beyond 64 MiB */
    assert_int_equal(
        nv_alloc_train_class(&d, NULL, 0, NV_ALLOC_CLASS_A, 64e6, INFINITY, &p, m, err, sizeof err),
        -1);
    assert_non_null(strstr(err, "rows; need 2"));
    nv_alloc_free(m);
    nv_alloc_dataset_free(&d);
}

static void dataset_file(void **state)
{
    (void)state;
    char dir[256], path[300], err[400];
    assert_int_equal(nv_test_tmpdir(dir, sizeof dir, "alloctrain"), 0);
    nv_alloc_dataset d, back;
    nv_alloc_dataset_init(&d);
    nv_alloc_dataset_init(&back);
    fill(&d, 3, 1);
    /* a row given by its features (a recorded matrix) */
    nv_alloc_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.app, sizeof r.app, "recorded");
    r.nodes = 2;
    r.ppn = 1;
    for (int i = 0; i < NV_AF_COUNT; i++)
        r.x[i] = i;
    r.comm_s = 0.5;
    r.runtime_s = 12;
    assert_int_equal(nv_alloc_dataset_add(&d, &r, err, sizeof err), 0);
    snprintf(d.source, sizeof d.source, "unit test");
    snprintf(path, sizeof path, "%s/d.json", dir);
    if (nv_alloc_dataset_save(&d, path, err, sizeof err))
        fail_msg("%s", err);
    if (nv_alloc_dataset_load(&back, path, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(back.n, d.n);
    assert_string_equal(back.source, "unit test");
    for (size_t i = 0; i < d.n; i++)
        for (int f = 0; f < NV_AF_COUNT; f++)
            if (back.rows[i].x[f] != d.rows[i].x[f])
                fail_msg("row %zu feature %s: %.17g, was %.17g", i, nv_alloc_feature_name(f),
                         back.rows[i].x[f], d.rows[i].x[f]);
    assert_true(back.rows[d.n - 1].runtime_s == 12);
    /* a file that is not a data set, and a row without a layout's nodes */
    assert_int_equal(nv_test_write_file(dir, "bad.json", "{\"schema\": \"netvar-model\"}"), 0);
    snprintf(path, sizeof path, "%s/bad.json", dir);
    assert_int_equal(nv_alloc_dataset_load(&back, path, err, sizeof err), -1);
    assert_true(err[0] && !strchr(err, '\n'));
    assert_int_equal(
        nv_test_write_file(
            dir, "bad2.json",
            "{\"schema\": \"netvar-alloc-dataset\", \"version\": 1, \"rows\": [{\"nodes\": 3,"
            " \"ppn\": 1, \"layout\": [1, 1], \"pattern\": [{\"offset\": 1, \"bytes\": 8,"
            " \"messages\": 1}], \"comm_s\": 0.1}]}"),
        0);
    snprintf(path, sizeof path, "%s/bad2.json", dir);
    assert_int_equal(nv_alloc_dataset_load(&back, path, err, sizeof err), -1);
    assert_non_null(strstr(err, "rows[0]: layout holds 2 nodes; nodes says 3"));
    nv_alloc_dataset_free(&d);
    nv_alloc_dataset_free(&back);
    nv_test_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(learners_learn_and_export),
        cmocka_unit_test(partitions_and_refusals),
        cmocka_unit_test(dataset_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
