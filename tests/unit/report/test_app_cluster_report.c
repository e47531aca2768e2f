/* test_app_cluster_report.c - nv_app_report_build() against the model
 * fixture tests/fixtures/model/table1.json read independently with json-c,
 * and nv_cluster_report_build() on a running-jobs registry made here:
 * FFTW and MILC share leaf0, Lulesh runs alone on leaf1, one job's app is
 * unknown to the model and one job has none. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <json-c/json.h>

#include "app_report.h"
#include "cluster_report.h"
#include "model.h"
#include "predict.h"
#include "nv_test.h"

#define MODEL "tests/fixtures/model/table1.json"

static void app_report_matches_the_model_file(void **state)
{
    (void)state;
    char err[256];
    nv_model *m = nv_model_load(MODEL, err, sizeof err);
    assert_non_null(m);
    json_object *file = json_object_from_file(MODEL);
    assert_non_null(file);

    nv_app_report r;
    assert_int_equal(nv_app_report_build(m, "FFTW", &r, err, sizeof err), 0);
    assert_int_equal(r.index, nv_model_app_index(m, "FFTW"));
    assert_string_equal(r.app.key, "FFTW");
    assert_int_equal(r.app.n_scaling, 3);
    assert_int_equal(r.app.scaling[0].nodes, 4);
    assert_float_equal(r.app.scaling[0].median_runtime_s, 400, 1e-9);

    /* every table entry naming FFTW on either side, in file order */
    json_object *col = json_object_object_get(file, "colocation");
    size_t k = 0;
    for (size_t i = 0; i < json_object_array_length(col); i++) {
        json_object *e = json_object_array_get_idx(col, i);
        const char *a = json_object_get_string(json_object_object_get(e, "app"));
        const char *w = json_object_get_string(json_object_object_get(e, "with"));
        if (strcmp(a, "FFTW") && strcmp(w, "FFTW"))
            continue;
        assert_true(k < r.n_colocation);
        assert_string_equal(r.colocation[k].app, a);
        assert_string_equal(r.colocation[k].with, w);
        assert_float_equal(r.colocation[k].slowdown_pct,
                           json_object_get_double(json_object_object_get(e, "slowdown_pct")), 1e-9);
        assert_int_equal(r.colocation[k].samples,
                         json_object_get_int(json_object_object_get(e, "samples")));
        k++;
    }
    assert_true(k > 0);
    assert_int_equal(r.n_colocation, k);

    /* histograms: bin centres rise, shares are percentages summing to 100 (or 0) */
    double sum_idle = 0, sum_app = 0;
    for (int b = 0; b < NV_HIST_BINS; b++) {
        if (b)
            assert_true(r.hist_us[b] > r.hist_us[b - 1]);
        assert_true(r.hist_idle_pct[b] >= 0 && r.hist_app_pct[b] >= 0);
        sum_idle += r.hist_idle_pct[b];
        sum_app += r.hist_app_pct[b];
    }
    assert_true(fabs(sum_idle - 100) < 1e-6 || sum_idle == 0);
    assert_true(fabs(sum_app - 100) < 1e-6 || sum_app == 0);
    assert_true(sum_idle > 0);
    nv_app_report_free(&r);

    assert_int_equal(nv_app_report_build(m, "nope", &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "not in the model"));
    nv_app_report_free(&r);
    json_object_put(file);
    nv_model_free(m);
}

static void running(const char *dir, int id, const char *app, const char *sw)
{
    char path[256], app_field[64] = "", sw_field[96] = "";
    if (app)
        snprintf(app_field, sizeof app_field, "\"app\":\"%s\",", app);
    if (sw)
        snprintf(sw_field, sizeof sw_field, ",\"switches\":[%s]", sw);
    snprintf(path, sizeof path, "%s/%d.json", dir, id);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(
        f,
        "{\"schema\":\"netvar-running\",\"job_id\":%d,%s\"start_unix_s\":%d,\"nodes\":[\"a%d\"]%s}\n",
        id, app_field, 1000 + id, id, sw_field);
    fclose(f);
}

static int lines;
static void count_line(void *ctx, const char *line)
{
    (void)ctx;
    assert_non_null(strstr(line, "netvar: registry: "));
    lines++;
}

static void cluster_report_of_a_registry(void **state)
{
    (void)state;
    char spool[64], dir[128], err[512];
    assert_int_equal(nv_test_tmpdir(spool, sizeof spool, "cluster-report"), 0);
    snprintf(dir, sizeof dir, "%s/running", spool);
    assert_int_equal(mkdir(dir, 0755), 0);
    /* across leaves 0 and 1, 0 and 2, under leaf 1 alone */
    running(dir, 1, "FFTW", "\"leaf0\",\"leaf1\"");
    running(dir, 2, "MILC", "\"leaf0\",\"leaf2\"");
    running(dir, 3, "Lulesh", "\"leaf1\"");
    running(dir, 4, "nope", "\"leaf0\",\"leaf1\"");
    running(dir, 5, NULL, NULL);
    running(dir, 6, "Lulesh", "\"leaf3\",\"leaf4\"");
    nv_model *m = nv_model_load(MODEL, err, sizeof err);
    assert_non_null(m);

    nv_cluster_report r;
    assert_int_equal(
        nv_cluster_report_build(spool, m, NV_PREDICT_QUEUE, 2000, NULL, NULL, &r, err, sizeof err),
        0);
    assert_true(r.have_model);
    assert_int_equal(r.n_jobs, 6);
    assert_int_equal(r.known, 4);
    for (size_t i = 0; i < r.n_jobs; i++) {
        assert_int_equal(r.jobs[i].job_id, i + 1);
        assert_float_equal(r.jobs[i].running_s, 2000 - (1000 + (double)(i + 1)), 1e-9);
    }
    assert_string_equal(r.jobs[0].app, "FFTW");
    assert_string_equal(r.jobs[0].model_app, "FFTW");
    assert_string_equal(r.jobs[0].switches, "leaf0,leaf1");
    assert_string_equal(r.jobs[0].nodes, "a1");
    assert_string_equal(r.jobs[3].app, "nope");
    assert_null(r.jobs[3].model_app);
    assert_string_equal(r.jobs[4].app, "");
    assert_null(r.jobs[4].model_app);
    assert_string_equal(r.jobs[4].switches, "");
    /* FFTW and MILC both cross leaf0's uplink: two ordered pairs; Lulesh
     * under leaf1 alone crosses no uplink, and across leaves 3 and 4 it
     * shares none with them; job 5 has no switch list (shares with all)
     * but no app; "nope" is unknown */
    assert_int_equal(r.pairs_predicted, 2);
    assert_int_equal(r.n_worst, 2);
    assert_true(r.worst[0].slowdown_pct >= r.worst[1].slowdown_pct);
    for (size_t k = 0; k < 2; k++) {
        const char *a = r.jobs[r.worst[k].a].model_app, *b = r.jobs[r.worst[k].b].model_app;
        assert_true((!strcmp(a, "FFTW") && !strcmp(b, "MILC")) ||
                    (!strcmp(a, "MILC") && !strcmp(b, "FFTW")));
        nv_prediction p;
        assert_int_equal(
            nv_predict(m, a, &b, 1, NV_PREDICT_QUEUE, NV_DEFAULT_MIN_SAMPLES, &p, NULL),
            NV_PRED_OK);
        assert_float_equal(r.worst[k].slowdown_pct, p.slowdown_pct, 1e-12);
    }
    /* each job's own prediction beside the known apps its path meets: FFTW
     * beside MILC (nope unknown, job 5 without an app); Lulesh under leaf1
     * alone meets only job 5 (no switch list), which has no app: no answer */
    nv_prediction p;
    const char *milc = "MILC";
    assert_int_equal(
        nv_predict(m, "FFTW", &milc, 1, NV_PREDICT_QUEUE, NV_DEFAULT_MIN_SAMPLES, &p, NULL),
        NV_PRED_OK);
    assert_float_equal(r.jobs[0].predicted_pct, p.slowdown_pct, 1e-12);
    assert_int_equal(r.jobs[0].sharing, 3);
    assert_true(isnan(r.jobs[2].predicted_pct));
    assert_null(r.jobs[2].predicted_source);
    assert_int_equal(r.jobs[2].sharing, 1);
    assert_true(isnan(r.jobs[3].predicted_pct));
    assert_null(r.jobs[3].predicted_source);
    /* uplinks by name: leaf0 (FFTW, MILC, nope), leaf1 (FFTW, nope), leaf2
     * (MILC), leaf3 and leaf4 (Lulesh); U_A summed over the known apps */
    assert_int_equal(r.n_uplinks, 5);
    nv_app_view fa, ma;
    assert_int_equal(nv_model_app(m, nv_model_app_index(m, "FFTW"), &fa), 0);
    assert_int_equal(nv_model_app(m, nv_model_app_index(m, "MILC"), &ma), 0);
    assert_int_equal(r.uplinks[0].name_len, 5);
    assert_memory_equal(r.uplinks[0].name, "leaf0", 5);
    assert_int_equal(r.uplinks[0].jobs, 3);
    assert_int_equal(r.uplinks[0].jobs_unknown, 1);
    assert_float_equal(r.uplinks[0].utilization, fa.utilization + ma.utilization, 1e-12);
    assert_memory_equal(r.uplinks[4].name, "leaf4", 5);
    assert_int_equal(r.uplinks[4].jobs, 1);
    nv_cluster_report_free(&r);

    /* without a model: the jobs, nothing known, nothing predicted */
    assert_int_equal(nv_cluster_report_build(spool, NULL, NV_PREDICT_QUEUE, 2000, NULL, NULL, &r,
                                             err, sizeof err),
                     0);
    assert_false(r.have_model);
    assert_int_equal(r.n_jobs, 6);
    assert_int_equal(r.known, 0);
    assert_int_equal(r.pairs_predicted, 0);
    assert_int_equal(r.n_worst, 0);
    nv_cluster_report_free(&r);

    /* refused registry files (not JSON, another schema, a FIFO): said one
     * line each, counted as refused, never as running jobs (before: "9
     * running", 3 of them refused files); an absurd start gives no
     * running time rather than 10^308 s */
    char bad[200];
    static const char *text[] = {"{not json", "{\"schema\":\"other\",\"job_id\":8}"};
    for (int i = 0; i < 2; i++) {
        snprintf(bad, sizeof bad, "%s/%d.json", dir, 7 + i);
        FILE *f = fopen(bad, "w");
        assert_non_null(f);
        fputs(text[i], f);
        fclose(f);
    }
    snprintf(bad, sizeof bad, "%s/9.json", dir);
    assert_int_equal(mkfifo(bad, 0600), 0);
    snprintf(bad, sizeof bad, "%s/10.json", dir);
    FILE *f = fopen(bad, "w");
    assert_non_null(f);
    fputs("{\"schema\":\"netvar-running\",\"job_id\":10,\"start_unix_s\":-1e308,\"nodes\":[]}", f);
    fclose(f);
    lines = 0;
    assert_int_equal(nv_cluster_report_build(spool, NULL, NV_PREDICT_QUEUE, 2000, count_line, NULL,
                                             &r, err, sizeof err),
                     0);
    assert_int_equal(lines, 3);
    assert_int_equal(r.refused, 3);
    assert_int_equal(r.n_jobs, 7);
    assert_int_equal(r.jobs[6].job_id, 10);
    assert_true(isnan(r.jobs[6].running_s));
    nv_cluster_report_free(&r);

    assert_int_equal(nv_test_rmtree(spool), 0);
    nv_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(app_report_matches_the_model_file),
        cmocka_unit_test(cluster_report_of_a_registry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
