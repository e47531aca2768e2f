/* test_model_file.c - the model file: loading, one clear error per kind of
 * malformed file, save/load round trip, the builder, predictions from the
 * table and from each predictor, and *Queue-theory interference model*'s Table 1 as a co-location
 * table. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "json_file.h"
#include "model.h"
#include "model_builder.h"
#include "predict.h"
#include "nv_test.h"

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-9)

static const char *fixture(const char *name)
{
    static char path[4096];
    const char *root = getenv("ROOT");
    snprintf(path, sizeof path, "%s/tests/fixtures/model/%s", root && *root ? root : ".", name);
    return path;
}

static nv_model *load_fixture(const char *name)
{
    char err[512];
    nv_model *m = nv_model_load(fixture(name), err, sizeof err);
    if (!m)
        fail_msg("%s did not load: %s", name, err);
    return m;
}

static void valid_model_loads(void **state)
{
    (void)state;
    nv_model *m = load_fixture("valid_small.json");
    assert_int_equal(nv_model_app_count(m), 3);
    assert_int_equal(nv_model_config_count(m), 3);
    assert_int_equal(nv_model_pair_count(m), 2);
    int32_t f = nv_model_app_index(m, "fftw");
    assert_true(f >= 0);
    assert_int_equal(nv_model_app_index(m, "nobody"), -1);
    assert_int_equal(nv_model_app_index(m, "FFTW"), -1); /* keys are case-sensitive */
    nv_app_view v;
    assert_int_equal(nv_model_app(m, f, &v), 0);
    assert_string_equal(v.key, "fftw");
    NEAR(v.utilization, 0.30);
    assert_int_equal(v.n_points, 3);
    assert_int_equal(v.n_fit, 3);
    assert_int_equal(v.n_scaling, 3);
    assert_int_equal(v.scaling[2].nodes, 16);
    assert_int_equal(nv_model_app(m, 99, &v), -1);
    const nv_calibration *c = nv_model_calibration(m);
    NEAR(c->service_us, 1.0);
    NEAR(c->mu_per_us, 1.0);
    assert_int_equal(c->hist.total, 100);
    nv_config_view cv;
    assert_int_equal(nv_model_config(m, 1, &cv), 0);
    assert_string_equal(cv.id, "B2.5e5-P4-M10");
    assert_int_equal(cv.n_slowdowns, 2);
    nv_pair_view pv;
    assert_int_equal(nv_model_pair_find(m, f, nv_model_app_index(m, "lulesh"), &pv), 0);
    assert_int_equal(pv.samples, 8);
    nv_model_free(m);
}

struct bad_case {
    const char *file;
    const char *expect[3]; /* substrings the one error line must hold */
};

static void each_malformed_kind_has_its_own_error(void **state)
{
    (void)state;
    const struct bad_case cases[] = {
        {"bad_missing_field.json", {"apps[1].utilization", "missing required field"}},
        {"bad_wrong_type.json", {"apps[0].latency.mean_us", "expected a number", "\"fast\""}},
        {"bad_nan.json", {"calibration.var_s_us2", "NaN", "not a finite number"}},
        {"bad_negative_rate.json", {"calibration.service_us", "-1", "negative"}},
        {"bad_duplicate_app.json", {"apps[2].key", "duplicate app \"fftw\"", "apps[0]"}},
        {"bad_truncated.json", {"truncated JSON"}},
        {"bad_unknown_app.json", {"colocation[0].with", "\"nobody\"", "not an app"}},
        {"bad_decreasing_fit.json", {"apps[0].compression.fit[2].slowdown_pct", "non-decreasing"}},
        {"bad_version.json", {"version", "2", "not supported"}},
    };
    char seen[sizeof cases / sizeof *cases][512];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char err[512] = "";
        nv_model *m = nv_model_load(fixture(cases[i].file), err, sizeof err);
        if (m)
            fail_msg("%s loaded but must be rejected", cases[i].file);
        assert_null(strchr(err, '\n'));
        assert_non_null(strstr(err, cases[i].file)); /* the line names the file */
        for (int k = 0; k < 3 && cases[i].expect[k]; k++)
            if (!strstr(err, cases[i].expect[k]))
                fail_msg("%s: error \"%s\" lacks \"%s\"", cases[i].file, err, cases[i].expect[k]);
        snprintf(seen[i], sizeof seen[i], "%s", strchr(err, ':') ? strchr(err, ':') : err);
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(seen[i], seen[j]);
    }
}

static void inline_malformed_documents(void **state)
{
    (void)state;
    struct {
        const char *doc;
        const char *expect;
    } cases[] = {
        {"", "empty"},
        {"[1,2]", "expected a JSON object"},
        {"{\"schema\":\"other\",\"version\":1}", "schema: value \"other\""},
        {"{\"schema\":\"netvar-model\"}", "version: missing required field"},
        {"{\"schema\":\"netvar-model\",\"version\":1.5}", "version: expected an integer"},
        {"{} x", "unexpected data after the document"},
        {"{\"a\": tru}", "invalid JSON"},
        {"{\"schema\":\"netvar-model\",\"version\":1,\"calibration\":[]}",
         "calibration: expected an object"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char err[512] = "";
        nv_model *m = nv_model_load_buffer(cases[i].doc, strlen(cases[i].doc), err, sizeof err);
        assert_null(m);
        if (!strstr(err, cases[i].expect))
            fail_msg("document %zu: error \"%s\" lacks \"%s\"", i, err, cases[i].expect);
    }
    char err[256];
    assert_null(nv_model_load("/nonexistent/netvar/model.json", err, sizeof err));
    assert_non_null(strstr(err, "cannot open"));
}

/* the loader's rules on a valid document with one value changed */
static void value_rules(void **state)
{
    (void)state;
    FILE *f = fopen(fixture("valid_small.json"), "r");
    assert_non_null(f);
    static char doc[1 << 20];
    size_t n = fread(doc, 1, sizeof doc - 1, f);
    fclose(f);
    doc[n] = 0;
    struct {
        const char *from, *to, *expect;
    } cases[] = {
        {"\"utilization\": 0.3,", "\"utilization\": 1.3,",
         "apps[0].utilization: value 1.3 is outside [0, 1]"},
        {"\"key\": \"lulesh\"", "\"key\": \"bad key\"",
         "apps[1].key: value \"bad key\" is not a valid app key"},
        {"\"samples\": 8", "\"samples\": 0", "colocation[0].samples: value 0 is outside"},
        {"\"nodes\": 8", "\"nodes\": 4", "scaling[1].nodes: value 4 is not above"},
        {"\"slowdown_pct\": 12.0", "\"slowdown_pct\": -150", "below -100"},
        {"\"utilization_source\": \"latency\"", "\"utilization_source\": \"guess\"",
         "not latency or counters"},
        {"\"bins_per_decade\": 16", "\"bins_per_decade\": 10",
         "bins_per_decade: value 10 is not 16"},
        /* a member given twice is refused, not the last taken (json-c's way) */
        {"\"utilization\": 0.3,", "\"utilization\": 0.3, \"utilization\": 0.9,",
         "member \"utilization\" given twice"},
        {"\"schema\"", "\"version\": 1, \"schema\"", "member \"version\" given twice"},
        {"\"apps\"", "\"apps\": [], \"apps\"", "member \"apps\" given twice"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        static char mod[1 << 20];
        const char *at = strstr(doc, cases[i].from);
        assert_non_null(at);
        size_t pre = (size_t)(at - doc);
        snprintf(mod, sizeof mod, "%.*s%s%s", (int)pre, doc, cases[i].to,
                 at + strlen(cases[i].from));
        char err[512] = "";
        nv_model *m = nv_model_load_buffer(mod, strlen(mod), err, sizeof err);
        if (m || !strstr(err, cases[i].expect))
            fail_msg("case %zu: %s (expected \"%s\")", i, m ? "loaded" : err, cases[i].expect);
    }
}

static void predictions_on_small_model(void **state)
{
    (void)state;
    nv_model *m = load_fixture("valid_small.json");
    nv_prediction p;
    const char *lulesh[] = {"lulesh"}, *fftw[] = {"fftw"};

    /* fftw beside lulesh: 8 table samples >= 3 */
    assert_int_equal(nv_predict(m, "fftw", lulesh, 1, NV_PREDICT_QUEUE, 3, &p, NULL), 0);
    assert_int_equal(p.source, NV_SOURCE_TABLE);
    assert_string_equal(p.source_label, "table");
    NEAR(p.slowdown_pct, 5.0);
    assert_int_equal(p.table_samples, 8);

    /* lulesh beside fftw: only 2 samples, so the queue model answers:
     * U_fftw = 0.30 on lulesh's fit (0.2,2)-(0.5,8) -> 4 */
    assert_int_equal(nv_predict(m, "lulesh", fftw, 1, NV_PREDICT_QUEUE, 3, &p, NULL), 0);
    assert_int_equal(p.source, NV_SOURCE_MODEL);
    assert_string_equal(p.source_label, "model:queue");
    NEAR(p.slowdown_pct, 4.0);
    NEAR(p.utilization_used, 0.30);
    assert_int_equal(p.table_samples, 2);
    assert_int_equal(nv_predict(m, "lulesh", fftw, 1, NV_PREDICT_QUEUE, 2, &p, NULL), 0);
    assert_int_equal(p.source, NV_SOURCE_TABLE);

    /* two neighbours: 0.45 + 0.60 = 1.05 (idle 0 counted once), beyond
     * fftw's top point: read at the curve's own top, 250 */
    const char *two[] = {"lulesh", "amg"};
    assert_int_equal(nv_predict(m, "fftw", two, 2, NV_PREDICT_QUEUE, 3, &p, NULL), 0);
    assert_int_equal(p.source, NV_SOURCE_MODEL);
    assert_true(p.capped);
    NEAR(p.utilization_sum, 1.05);
    NEAR(p.utilization_used, 1.05);
    NEAR(p.slowdown_pct, 250.0);
    NEAR(p.with_utilization[1], 0.60);

    /* AverageLT: lulesh's mean 3.0 is nearest config 1 (3.1): fftw measured 70 */
    assert_int_equal(nv_predict(m, "fftw", lulesh, 1, NV_PREDICT_AVERAGE_LT, UINT32_MAX, &p, NULL),
                     0);
    assert_string_equal(p.source_label, "model:averagelt");
    assert_string_equal(p.config_id, "B2.5e5-P4-M10");
    NEAR(p.slowdown_pct, 70.0);
    assert_false(p.curve_fallback);
    /* amg was not measured under config 1: its curve at U = 0.55 answers,
     * (0.2,1)-(0.9,3.5) -> 2.25 */
    const char *lu[] = {"lulesh"};
    assert_int_equal(nv_predict(m, "amg", lu, 1, NV_PREDICT_AVERAGE_LT, 3, &p, NULL), 0);
    assert_true(p.curve_fallback);
    NEAR(p.slowdown_pct, 2.25);
    /* amg beside fftw (mean 2.5): config 0 (2.0) is nearer than 3.1 -> 1.0 */
    assert_int_equal(nv_predict(m, "amg", fftw, 1, NV_PREDICT_AVERAGE_LT, 3, &p, NULL), 0);
    assert_string_equal(p.config_id, "B2.5e7-P1-M1");
    NEAR(p.slowdown_pct, 1.0);
    /* PDFLT: amg's histogram peaks at bin 11, config 2's at 12 -> overlap
     * only with config 2 -> lulesh measured 15 there */
    const char *amg[] = {"amg"};
    assert_int_equal(nv_predict(m, "lulesh", amg, 1, NV_PREDICT_PDF_LT, 3, &p, NULL), 0);
    assert_string_equal(p.config_id, "B2.5e4-P14-M10");
    NEAR(p.slowdown_pct, 15.0);
    /* several neighbours under a lookup rule: configuration utilizations
     * add up (0.26 for fftw + 0.26 for fftw = 0.52) -> nearest U is 0.55 */
    const char *ff[] = {"fftw", "fftw"};
    assert_int_equal(nv_predict(m, "lulesh", ff, 2, NV_PREDICT_AVERAGE_LT, 3, &p, NULL), 0);
    assert_string_equal(p.config_id, "B2.5e5-P4-M10");
    NEAR(p.slowdown_pct, 9.0);

    /* errors */
    size_t bad = 99;
    const char *unknown[] = {"fftw", "ghost"};
    assert_int_equal(nv_predict(m, "fftw", unknown, 2, NV_PREDICT_QUEUE, 3, &p, &bad),
                     NV_PRED_EUNKNOWN_WITH);
    assert_int_equal(bad, 1);
    assert_int_equal(nv_predict(m, "ghost", fftw, 1, NV_PREDICT_QUEUE, 3, &p, NULL),
                     NV_PRED_EUNKNOWN_APP);
    assert_int_equal(nv_predict(m, "fftw", fftw, 0, NV_PREDICT_QUEUE, 3, &p, NULL), NV_PRED_EINVAL);
    assert_int_equal(nv_predict(m, "fftw", fftw, 1, (nv_predictor)9, 3, &p, NULL), NV_PRED_EINVAL);
    assert_true(strlen(nv_predict_strerror(NV_PRED_ENODATA)) > 0);

    /* by index gives the same answers as by key */
    int32_t f = nv_model_app_index(m, "fftw"),
            w[2] = {nv_model_app_index(m, "lulesh"), nv_model_app_index(m, "amg")};
    nv_prediction q;
    for (int pr = 0; pr < NV_PREDICTOR_COUNT; pr++) {
        assert_int_equal(nv_predict(m, "fftw", two, 2, (nv_predictor)pr, 3, &p, NULL), 0);
        assert_int_equal(nv_predict_idx(m, f, w, 2, (nv_predictor)pr, 3, &q), 0);
        NEAR(p.slowdown_pct, q.slowdown_pct);
    }
    nv_model_free(m);
}

static void predictor_names(void **state)
{
    (void)state;
    const char *names[] = {"queue", "averagelt", "averagestdevlt", "pdflt"};
    for (int i = 0; i < NV_PREDICTOR_COUNT; i++) {
        nv_predictor p;
        assert_int_equal(nv_predictor_from_name(names[i], &p), 0);
        assert_int_equal(p, i);
        assert_string_equal(nv_predictor_name(p), names[i]);
    }
    nv_predictor p;
    assert_int_equal(nv_predictor_from_name("AverageStDevLT", &p), 0);
    assert_int_equal(p, NV_PREDICT_AVERAGE_STDEV_LT);
    assert_int_equal(nv_predictor_from_name("svr", &p), -1);
    assert_int_equal(nv_predictor_from_name(NULL, &p), -1);
}

/* *Queue-theory interference model* Table 1 (Cab): slowdown in % of the row app beside the column
 * app, transcribed independently of the fixture file. */
static const char *const t1_apps[6] = {"FFTW", "Lulesh", "MCB", "MILC", "VPFFT", "AMG"};
static const double t1[6][6] = {
    {45, 5, 3, 11, 12, 7}, {5, 5, 3, 6, 2, 3}, {3, 5, 4, 7, 5, 6},
    {25, 12, 1, 4, 3, 14}, {9, 0, 2, 5, 7, 2}, {0, 5, 4, 5, 3, 4},
};

static void paper_table1_answers_from_the_table(void **state)
{
    (void)state;
    nv_model *m = load_fixture("table1.json");
    assert_int_equal(nv_model_pair_count(m), 36);
    int answered = 0;
    for (int a = 0; a < 6; a++)
        for (int b = 0; b < 6; b++) {
            nv_prediction p;
            const char *with[] = {t1_apps[b]};
            for (int pr = 0; pr < NV_PREDICTOR_COUNT; pr++) {
                assert_int_equal(nv_predict(m, t1_apps[a], with, 1, (nv_predictor)pr,
                                            NV_DEFAULT_MIN_SAMPLES, &p, NULL),
                                 0);
                if (p.source != NV_SOURCE_TABLE || p.slowdown_pct != t1[a][b])
                    fail_msg("%s beside %s: %s %.2f %%, Table 1 says %.0f %%", t1_apps[a],
                             t1_apps[b], p.source_label, p.slowdown_pct, t1[a][b]);
                assert_int_equal(p.table_samples, 10);
            }
            answered++;
            /* with more samples required than measured, the model answers */
            assert_int_equal(nv_predict(m, t1_apps[a], with, 1, NV_PREDICT_QUEUE, 11, &p, NULL), 0);
            assert_string_equal(p.source_label, "model:queue");
            NEAR(p.slowdown_pct, 99.0);
        }
    assert_int_equal(answered, 36);
    nv_model_free(m);
}

static char tmpdir[64];

static int make_tmpdir(void **state)
{
    (void)state;
    return nv_test_tmpdir(tmpdir, sizeof tmpdir, "model-file");
}

static int remove_tmpdir(void **state)
{
    (void)state;
    return nv_test_rmtree(tmpdir);
}

/* InfiniBand's gauge: the queueing mechanism reads port_xmit_wait ticks per
 * word instead of microseconds; the mean neighbour reading is the profile's */
static void stall_gauge_model_answers_on_its_axis(void **state)
{
    (void)state;
    nv_model *m = load_fixture("stall_gauge.json");
    assert_int_equal(nv_model_bottleneck(m)->wait_gauge, NV_WAIT_STALL_PER_WORD);
    assert_string_equal(nv_wait_gauge_name(NV_WAIT_STALL_PER_WORD), "stall_per_word");
    nv_prediction p;
    const char *amg[] = {"amg"};
    assert_int_equal(nv_predict(m, "fftw", amg, 1, NV_PREDICT_QUEUE, 3, &p, NULL), 0);
    assert_int_equal(p.source, NV_SOURCE_MODEL);
    NEAR(p.wait_used_us, (0.0 + 0.1 + 0.4) / 3);
    assert_true(p.wait_pct > 4.0 && p.wait_pct < 60.0);
    /* amg builds little queue but uses 60 % of the port: fftw (30 % of it
     * itself) loses its share, 0.3 * p_fftw(0.6) on (0.5, 60) - (0.9, 250) */
    assert_string_equal(p.mechanism, "bandwidth-share");
    NEAR(p.share_pct, 0.3 * (60 + 0.1 / 0.4 * 190));
    NEAR(p.physics_pct, p.share_pct);
    nv_model_free(m);
}

static void save_and_reload_round_trip(void **state)
{
    (void)state;
    nv_model *m = load_fixture("valid_small.json");
    char path[128], err[512];
    snprintf(path, sizeof path, "%s/model.json", tmpdir);
    assert_int_equal(nv_model_save(m, path, err, sizeof err), 0);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644);
    nv_model *r = nv_model_load(path, err, sizeof err);
    if (!r)
        fail_msg("reload: %s", err);
    assert_int_equal(nv_model_app_count(r), nv_model_app_count(m));
    assert_int_equal(nv_model_config_count(r), nv_model_config_count(m));
    assert_int_equal(nv_model_pair_count(r), nv_model_pair_count(m));
    const char *keys[] = {"fftw", "lulesh", "amg"};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            for (int pr = 0; pr < NV_PREDICTOR_COUNT; pr++) {
                nv_prediction p1, p2;
                const char *w[] = {keys[b]};
                int r1 = nv_predict(m, keys[a], w, 1, (nv_predictor)pr, 3, &p1, NULL);
                int r2 = nv_predict(r, keys[a], w, 1, (nv_predictor)pr, 3, &p2, NULL);
                assert_int_equal(r1, r2);
                assert_true(p1.slowdown_pct == p2.slowdown_pct); /* exact doubles */
                assert_string_equal(p1.source_label, p2.source_label);
            }
    nv_app_view v1, v2;
    nv_model_app(m, 0, &v1);
    nv_model_app(r, nv_model_app_index(r, v1.key), &v2);
    assert_memory_equal(&v1.latency->hist, &v2.latency->hist, sizeof v1.latency->hist);
    assert_true(v1.latency->mean_us == v2.latency->mean_us);
    assert_memory_equal(nv_model_calibration(m), nv_model_calibration(r), sizeof(nv_calibration));
    /* the builder's last save writes the same file, byte for byte */
    char path2[160];
    snprintf(path2, sizeof path2, "%s/model-last.json", tmpdir);
    nv_model_builder *b = nv_builder_from_model(m);
    assert_non_null(b);
    assert_int_equal(nv_builder_save_last(b, path2, err, sizeof err), 0);
    nv_builder_free(b);
    size_t n1 = 0, n2 = 0;
    char *txt1 = nv_read_file(path, 1 << 24, &n1, err, sizeof err),
         *txt2 = nv_read_file(path2, 1 << 24, &n2, err, sizeof err);
    assert_non_null(txt1);
    assert_non_null(txt2);
    assert_int_equal(n1, n2);
    assert_memory_equal(txt1, txt2, n1);
    free(txt1);
    free(txt2);
    unlink(path2);
    /* no temp files left beside it */
    char cmd[160];
    snprintf(cmd, sizeof cmd, "test $(ls -A '%s' | wc -l) -eq 1", tmpdir);
    assert_int_equal(system(cmd), 0);
    nv_model_free(r);
    nv_model_free(m);
}

static void builder_makes_models(void **state)
{
    (void)state;
    nv_model_builder *b = nv_builder_new();
    assert_non_null(b);
    double idle[200];
    for (int i = 0; i < 200; i++)
        idle[i] = 1.0 + (i % 10) * 0.05;
    nv_calibration cal;
    assert_int_equal(nv_calibrate(idle, 200, NV_CAL_MINIMUM, 0, &cal), 0);
    assert_int_equal(nv_builder_set_calibration(b, &cal), 0);

    double lat_a[50], lat_b[50];
    for (int i = 0; i < 50; i++) {
        lat_a[i] = 2.0 + (i % 5) * 0.1;
        lat_b[i] = 4.0 + (i % 5) * 0.3;
    }
    nv_latency_summary la, lb;
    nv_latency_summary_of(lat_a, 50, &la);
    nv_latency_summary_of(lat_b, 50, &lb);
    /* noisy, non-monotone points: the builder fits them */
    const nv_curve_point pts[] = {{0.2, 5, 1}, {0.4, 3, 1}, {0.8, 20, 2}};
    const nv_scaling_point sc[] = {{2, 100, 1}, {4, 60, 1}};
    nv_app_input a = {.key = "app-a",
                      .utilization = 0.4,
                      .latency = &la,
                      .points = pts,
                      .n_points = 3,
                      .scaling = sc,
                      .n_scaling = 2};
    nv_app_input bb = {
        .key = "app-b", .utilization = 0.5, .utilization_source = NV_USRC_COUNTERS, .latency = &lb};
    assert_int_equal(nv_builder_add_app(b, &a), 0);
    assert_int_equal(nv_builder_add_app(b, &bb), 0);
    const char *apps[] = {"app-a", "app-b"};
    const double slow[] = {12.0, 1.0};
    nv_config_input c = {.id = "B2.5e6-P1-M1",
                         .bubble_cycles = 2.5e6,
                         .partners = 1,
                         .messages = 1,
                         .utilization = 0.5,
                         .latency = &lb,
                         .n_slowdowns = 2,
                         .slowdown_apps = apps,
                         .slowdown_pct = slow};
    assert_int_equal(nv_builder_add_config(b, &c), 0);
    nv_pair_input pr = {"app-b", "app-a", 2.0, 5, 0.5};
    assert_int_equal(nv_builder_add_pair(b, &pr), 0);
    pr.slowdown_pct = 3.0; /* replaces, does not duplicate */
    assert_int_equal(nv_builder_add_pair(b, &pr), 0);
    nv_app_input badkey = {.key = "has space", .latency = &la};
    assert_int_equal(nv_builder_add_app(b, &badkey), -1);
    assert_non_null(strstr(nv_builder_error(b), "has space"));

    char err[512];
    nv_model *m = nv_builder_build(b, err, sizeof err);
    if (!m)
        fail_msg("build: %s", err);
    assert_int_equal(nv_model_pair_count(m), 1);
    nv_app_view v;
    nv_model_app(m, nv_model_app_index(m, "app-a"), &v);
    assert_int_equal(v.n_fit, 3);
    NEAR(v.fit[0].slowdown_pct, 4); /* 5 and 3 pooled */
    NEAR(v.fit[1].slowdown_pct, 4);
    NEAR(v.fit[2].slowdown_pct, 20);
    assert_true(v.fit_residual_pct > 0);
    nv_model_app(m, nv_model_app_index(m, "app-b"), &v);
    assert_int_equal(v.utilization_source, NV_USRC_COUNTERS);
    nv_prediction p;
    const char *w[] = {"app-a"};
    assert_int_equal(nv_predict(m, "app-b", w, 1, NV_PREDICT_QUEUE, 3, &p, NULL), 0);
    assert_string_equal(p.source_label, "table");
    NEAR(p.slowdown_pct, 3.0);
    /* app-b has no curve: the queue model cannot answer for it */
    assert_int_equal(nv_predict(m, "app-b", w, 1, NV_PREDICT_QUEUE, 10, &p, NULL), NV_PRED_ENODATA);
    nv_model_free(m);

    /* an invalid value is caught at save time and nothing is written */
    bb.utilization = NAN;
    assert_int_equal(nv_builder_add_app(b, &bb), 0);
    char path[128];
    snprintf(path, sizeof path, "%s/never.json", tmpdir);
    assert_int_equal(nv_builder_save(b, path, err, sizeof err), -1);
    assert_non_null(strstr(err, "utilization: value NaN is not a finite number"));
    assert_int_not_equal(access(path, F_OK), 0);
    nv_builder_free(b);
}

struct thread_arg {
    const nv_model *m;
    double sum;
};

static void *predict_many(void *p)
{
    struct thread_arg *t = p;
    const char *keys[] = {"FFTW", "Lulesh", "MCB", "MILC", "VPFFT", "AMG"};
    for (int i = 0; i < 20000; i++) {
        nv_prediction pr;
        const char *w[] = {keys[(i / 6) % 6]};
        if (nv_predict(t->m, keys[i % 6], w, 1, (nv_predictor)(i % 4), 3, &pr, NULL) == 0)
            t->sum += pr.slowdown_pct;
    }
    return NULL;
}

static void concurrent_predictions_agree(void **state)
{
    (void)state;
    nv_model *m = load_fixture("table1.json");
    struct thread_arg a = {m, 0}, b = {m, 0};
    pthread_t ta, tb;
    assert_int_equal(pthread_create(&ta, NULL, predict_many, &a), 0);
    assert_int_equal(pthread_create(&tb, NULL, predict_many, &b), 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    assert_true(a.sum > 0);
    assert_true(a.sum == b.sum);
    nv_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(valid_model_loads),
        cmocka_unit_test(each_malformed_kind_has_its_own_error),
        cmocka_unit_test(inline_malformed_documents),
        cmocka_unit_test(value_rules),
        cmocka_unit_test(predictions_on_small_model),
        cmocka_unit_test(predictor_names),
        cmocka_unit_test(paper_table1_answers_from_the_table),
        cmocka_unit_test(stall_gauge_model_answers_on_its_axis),
        cmocka_unit_test(save_and_reload_round_trip),
        cmocka_unit_test(builder_makes_models),
        cmocka_unit_test(concurrent_predictions_agree),
    };
    return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
