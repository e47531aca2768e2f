/* test_prom_export.c - nv_prom_export() on a registry made here with the
 * model fixture tests/fixtures/model/table1.json: every figure equals the
 * cluster report's, the series cap keeps the highest predictions, label
 * values are escaped and bounded, job_submit's counts become a cumulative
 * histogram, and a source that cannot be read is named and left out. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "cluster_report.h"
#include "model.h"
#include "nv_test.h"
#include "policy.h"
#include "prom_export.h"
#include "submit_stats.h"

#define MODEL "tests/fixtures/model/table1.json"

static void label_values_are_escaped_and_bounded(void **state)
{
    (void)state;
    char out[2 * NV_PROM_LABEL_MAX + 1];
    const char *in = "a\\b\"c\nd\te\x7f\xc3\xa9";
    assert_string_equal(nv_prom_label_value(in, strlen(in), out, sizeof out),
                        "a\\\\b\\\"c\\nd_e___");
    char longer[400];
    memset(longer, '"', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    nv_prom_label_value(longer, strlen(longer), out, sizeof out);
    assert_int_equal(strlen(out), 2 * NV_PROM_LABEL_MAX); /* 128 quotes, each escaped */
    memset(longer, 'x', sizeof longer - 1);
    nv_prom_label_value(longer, strlen(longer), out, sizeof out);
    assert_int_equal(strlen(out), NV_PROM_LABEL_MAX);
    /* a small buffer: whole escapes only */
    char tiny[4];
    assert_string_equal(nv_prom_label_value("a\"b", 3, tiny, sizeof tiny), "a\\\"");
    assert_string_equal(nv_prom_label_value("ab", 1, tiny, sizeof tiny), "a");
}

static void running(const char *dir, int id, const char *app, const char *sw)
{
    char name[32], text[512];
    snprintf(name, sizeof name, "%d.json", id);
    snprintf(text, sizeof text,
             "{\"schema\":\"netvar-running\",\"job_id\":%d,\"app\":\"%s\",\"start_unix_s\":1000,"
             "\"nodes\":[\"n%d\"],\"switches\":[%s]}\n",
             id, app, id, sw);
    assert_int_equal(nv_test_write_file(dir, name, text), 0);
}

static char logged[2048];
static void log_keep(void *ctx, const char *line)
{
    (void)ctx;
    snprintf(logged + strlen(logged), sizeof logged - strlen(logged), "%s\n", line);
}

/* the value of the sample line that starts with `series ` */
static double sample(const char *text, const char *series)
{
    char key[300];
    snprintf(key, sizeof key, "\n%s ", series);
    const char *at = strstr(text, key);
    if (!at)
        return NAN;
    return strtod(at + strlen(key), NULL);
}

static void figures_match_the_cluster_report(void **state)
{
    (void)state;
    char spool[64], dir[128], err[512];
    assert_int_equal(nv_test_tmpdir(spool, sizeof spool, "prom-export"), 0);
    snprintf(dir, sizeof dir, "%s/running", spool);
    assert_int_equal(mkdir(dir, 0755), 0);
    running(dir, 1, "FFTW", "\"leaf0\",\"leaf1\"");
    running(dir, 2, "MILC", "\"leaf0\",\"sw\\\"x\"");
    running(dir, 3, "Lulesh", "\"leaf1\"");
    running(dir, 4, "nope", "\"leaf0\",\"leaf1\"");
    nv_model *m = nv_model_load(MODEL, err, sizeof err);
    assert_non_null(m);
    nv_cluster_report r;
    assert_int_equal(
        nv_cluster_report_build(spool, m, NV_PREDICT_QUEUE, 2000, NULL, NULL, &r, err, sizeof err),
        0);

    /* job_submit's counts */
    nv_submit_stats st = {0};
    nv_submit_stats_note_decision(&st, 0);
    nv_submit_stats_note_decision(&st, NV_ACT_AVOID);
    nv_submit_stats_note_call(&st, 800);
    nv_submit_stats_note_call(&st, 4000);
    nv_submit_stats_note_call(&st, 4500);
    st.started_unix_s = 1500, st.written_unix_s = 1990;
    char buf[2048], js[160];
    assert_true(nv_submit_stats_format(&st, buf, sizeof buf) > 0);
    assert_int_equal(nv_test_write_file(spool, "js.json", buf), 0);
    snprintf(js, sizeof js, "%s/js.json", spool);

    nv_prom_opts o = {.spool = spool,
                      .model = m,
                      .predictor = NV_PREDICT_QUEUE,
                      .now_unix_s = 2000,
                      .window_s = 3600,
                      .max_jobs = NV_PROM_MAX_JOBS,
                      .jobsubmit_stats = js};
    char *text;
    size_t len;
    logged[0] = '\0';
    assert_int_equal(nv_prom_export(&o, log_keep, NULL, &text, &len, err, sizeof err), 0);
    assert_int_equal(strlen(text), len);
    /* no job records: the finished-job figures are named as unreadable */
    assert_non_null(strstr(logged, "job records"));
    assert_true(isnan(sample(text, "netvar_finished_jobs")));
    assert_float_equal(sample(text, "netvar_export_source_ok{source=\"records\"}"), 0, 0);
    assert_float_equal(sample(text, "netvar_export_source_ok{source=\"registry\"}"), 1, 0);

    assert_float_equal(sample(text, "netvar_running_jobs"), 4, 0);
    assert_float_equal(sample(text, "netvar_running_jobs_known_to_model"), 3, 0);
    size_t predicted = 0;
    for (size_t i = 0; i < r.n_jobs; i++) {
        char series[200];
        snprintf(series, sizeof series,
                 "netvar_job_predicted_slowdown_ratio{jobid=\"%u\",app=\"%s\"}", r.jobs[i].job_id,
                 r.jobs[i].app);
        if (!isfinite(r.jobs[i].predicted_pct)) {
            assert_true(isnan(sample(text, series)));
            continue;
        }
        predicted++;
        assert_float_equal(sample(text, series), r.jobs[i].predicted_pct / 100, 1e-9);
    }
    assert_int_equal(predicted, 3); /* "nope" is unknown to the model */
    /* Lulesh under leaf1 alone shares with no one: 0 */
    assert_float_equal(
        sample(text, "netvar_job_predicted_slowdown_ratio{jobid=\"3\",app=\"Lulesh\"}"), 0, 0);
    assert_true(sample(text, "netvar_job_predicted_slowdown_ratio{jobid=\"1\",app=\"FFTW\"}") > 0);

    /* leaf0: FFTW, MILC and nope; the switch with a quote is escaped */
    assert_float_equal(sample(text, "netvar_uplink_jobs{switch=\"leaf0\"}"), 3, 0);
    assert_float_equal(sample(text, "netvar_uplink_jobs{switch=\"sw\\\"x\"}"), 1, 0);
    nv_app_view a, b;
    assert_int_equal(nv_model_app(m, nv_model_app_index(m, "FFTW"), &a), 0);
    assert_int_equal(nv_model_app(m, nv_model_app_index(m, "MILC"), &b), 0);
    assert_float_equal(sample(text, "netvar_uplink_utilization_ratio{switch=\"leaf0\"}"),
                       a.utilization + b.utilization, 1e-9);
    assert_float_equal(sample(text, "netvar_uplink_utilization_ratio{switch=\"leaf1\"}"),
                       a.utilization, 1e-9);

    /* job_submit: counters and a cumulative histogram */
    assert_float_equal(sample(text, "netvar_jobsubmit_submissions_total"), 2, 0);
    assert_float_equal(sample(text, "netvar_jobsubmit_decisions_total{action=\"none\"}"), 1, 0);
    assert_float_equal(sample(text, "netvar_jobsubmit_decisions_total{action=\"avoid\"}"), 1, 0);
    assert_float_equal(sample(text, "netvar_jobsubmit_decisions_total{action=\"deny\"}"), 0, 0);
    assert_float_equal(sample(text, "netvar_jobsubmit_call_duration_seconds_bucket{le=\"1e-06\"}"),
                       1, 0);
    assert_float_equal(
        sample(text, "netvar_jobsubmit_call_duration_seconds_bucket{le=\"2.5e-06\"}"), 1, 0);
    assert_float_equal(sample(text, "netvar_jobsubmit_call_duration_seconds_bucket{le=\"5e-06\"}"),
                       3, 0);
    assert_float_equal(sample(text, "netvar_jobsubmit_call_duration_seconds_bucket{le=\"+Inf\"}"),
                       3, 0);
    assert_float_equal(sample(text, "netvar_jobsubmit_call_duration_seconds_count"), 3, 0);
    assert_float_equal(sample(text, "netvar_jobsubmit_call_duration_seconds_sum"), 9.3e-6, 1e-15);
    assert_float_equal(sample(text, "netvar_jobsubmit_stats_written_timestamp_seconds"), 1990, 0);

    /* every sample's metric has HELP and TYPE before it */
    for (const char *p = text; *p;) {
        const char *e = strchr(p, '\n');
        assert_non_null(e);
        if (*p != '#') {
            char name[128], key[160];
            size_t l = strcspn(p, "{ ");
            snprintf(name, sizeof name, "%.*s", (int)l, p);
            for (const char *suf = "_bucket\0_sum\0_count\0"; *suf; suf += strlen(suf) + 1) {
                size_t sl = strlen(suf), nl = strlen(name);
                if (nl > sl && !strcmp(name + nl - sl, suf) &&
                    (strstr(name, "duration_seconds") || strstr(name, "observed")))
                    name[nl - sl] = '\0';
            }
            snprintf(key, sizeof key, "# TYPE %s ", name);
            const char *t = strstr(text, key);
            assert_true(t && t < p);
            snprintf(key, sizeof key, "# HELP %s ", name);
            t = strstr(text, key);
            assert_true(t && t < p);
        }
        p = e + 1;
    }
    free(text);

    /* the cap keeps the highest predictions and counts the rest */
    o.max_jobs = 1;
    assert_int_equal(nv_prom_export(&o, NULL, NULL, &text, &len, err, sizeof err), 0);
    size_t series = 0;
    for (const char *p = text; (p = strstr(p, "\nnetvar_job_predicted_slowdown_ratio{")); p++)
        series++;
    assert_int_equal(series, 1);
    assert_float_equal(sample(text, "netvar_job_series_dropped"), 2, 0);
    double top = -1;
    for (size_t i = 0; i < r.n_jobs; i++)
        if (isfinite(r.jobs[i].predicted_pct) && r.jobs[i].predicted_pct > top)
            top = r.jobs[i].predicted_pct;
    assert_non_null(strstr(text, "netvar_job_predicted_slowdown_ratio{"));
    assert_float_equal(
        strtod(strstr(strstr(text, "\nnetvar_job_predicted_slowdown_ratio{"), "} ") + 2, NULL),
        top / 100, 1e-9);
    free(text);

    /* a bad job_submit file and a registry that is no directory: named, left out, the rest written */
    assert_int_equal(nv_test_write_file(spool, "js.json", "{\"schema\":\"x\"}"), 0);
    o.max_jobs = NV_PROM_MAX_JOBS;
    char nospool[128];
    snprintf(nospool, sizeof nospool, "%s/none", spool);
    assert_int_equal(mkdir(nospool, 0755), 0);
    assert_int_equal(nv_test_write_file(nospool, "running", "not a directory"), 0);
    o.spool = nospool;
    logged[0] = '\0';
    assert_int_equal(nv_prom_export(&o, log_keep, NULL, &text, &len, err, sizeof err), 0);
    assert_non_null(strstr(logged, "js.json"));
    assert_non_null(strstr(logged, "no running-job figures"));
    assert_float_equal(sample(text, "netvar_export_source_ok{source=\"jobsubmit\"}"), 0, 0);
    assert_float_equal(sample(text, "netvar_export_source_ok{source=\"registry\"}"), 0, 0);
    assert_null(strstr(text, "netvar_jobsubmit_decisions_total{"));
    assert_float_equal(sample(text, "netvar_export_timestamp_seconds"), 2000, 0);
    free(text);

    o.window_s = 0;
    assert_int_equal(nv_prom_export(&o, NULL, NULL, &text, &len, err, sizeof err), -1);
    assert_null(text);
    nv_cluster_report_free(&r);
    nv_model_free(m);
    assert_int_equal(nv_test_rmtree(spool), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(label_values_are_escaped_and_bounded),
        cmocka_unit_test(figures_match_the_cluster_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
