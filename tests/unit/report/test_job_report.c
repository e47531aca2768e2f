/* test_job_report.c - nv_job_report_build() on a small spool made here: a
 * job of FFTW beside a MILC job on a shared leaf switch, a Lulesh job on
 * another switch, a record without an app, a segment profile and a
 * submission annotation; the model is tests/fixtures/model/table1.json
 * (FFTW at 4 nodes runs 400 s alone; the table holds FFTW beside MILC). */
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

#include "job_report.h"
#include "model.h"
#include "predict.h"
#include "nv_test.h"

#define MODEL "tests/fixtures/model/table1.json"
#define PROFILE "tests/fixtures/segments/small-profile.json"
/* a job under leaf switches 0 and 1: it crosses their uplinks */
#define SPAN0 "\"leaf0\",\"leaf1\""

struct fx {
    char spool[64];
    nv_model *m;
};

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        assert_int_equal(fwrite(buf, 1, n, out), n);
    fclose(in);
    fclose(out);
}

/* jobs/<id>/job.json; app NULL writes none; sw is the switches list's
 * inside ("\"leaf0\",\"leaf1\""); extra is added fields ("" or ",...") */
static void job_record(const char *spool, int id, const char *app, double start, double runtime,
                       const char *sw, double rho, const char *extra)
{
    char dir[256], app_field[96] = "", text[2048];
    snprintf(dir, sizeof dir, "%s/jobs/%d", spool, id);
    assert_int_equal(mkdir(dir, 0755), 0);
    if (app)
        snprintf(app_field, sizeof app_field, "\"app\":\"%s\",", app);
    snprintf(text, sizeof text,
             "{\"schema\":\"netvar-job-record\",\"job_id\":%d,%s\"runtime_s\":%g,"
             "\"start_unix_s\":%g,\"end_unix_s\":%g,\"nodes\":[\"a1\",\"a2\",\"a3\",\"a4\"],"
             "\"switches\":[%s],\"utilization\":{\"service_us\":1.5,\"mu_source\":\"calibration\","
             "\"ports\":[{\"rho\":%g},{\"rho\":%g}]}%s}",
             id, app_field, runtime, start, start + runtime, sw, rho - 0.1, rho + 0.1, extra);
    assert_int_equal(nv_test_write_file(dir, "job.json", text), 0);
}

static int setup(void **state)
{
    struct fx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    assert_int_equal(nv_test_tmpdir(f->spool, sizeof f->spool, "job-report"), 0);
    char dir[128];
    snprintf(dir, sizeof dir, "%s/jobs", f->spool);
    assert_int_equal(mkdir(dir, 0755), 0);
    job_record(f->spool, 100, "FFTW", 1000, 440, SPAN0, 0.3,
               ",\"metrics\":{\"net_traffic\":{\"mean\":2e12,\"p95\":3e12,\"unit\":\"flits\","
               "\"source\":\"network-side ports\"}},"
               "\"annotation\":\"netvar:{\\\"v\\\":1,\\\"own_pct\\\":9,\\\"src\\\":\\\"table\\\","
               "\\\"advice_nodes\\\":4,\\\"action\\\":\\\"annotate\\\"}\"");
    job_record(f->spool, 101, "MILC", 1100, 400, SPAN0, 0.5, "");
    job_record(f->spool, 102, "Lulesh", 1000, 400, "\"leaf9\",\"leaf8\"", 0.2, "");
    job_record(f->spool, 103, NULL, 1000, 300, SPAN0, 0.2, "");
    job_record(f->spool, 104, "FFTW", 5000, 400, SPAN0, 0.3, ",\"comment\":\"netvar:{broken\"");
    snprintf(dir, sizeof dir, "%s/jobs/100/profiles", f->spool);
    assert_int_equal(mkdir(dir, 0755), 0);
    char path[300];
    snprintf(path, sizeof path, "%s/b.json", dir);
    copy_file(PROFILE, path);
    assert_int_equal(nv_test_write_file(dir, "c.json", "{not a profile"), 0);
    snprintf(dir, sizeof dir, "%s/jobs/102/profiles", f->spool);
    assert_int_equal(mkdir(dir, 0755), 0);
    assert_int_equal(nv_test_write_file(dir, "a.json", "{\"format\":\"something else\"}"), 0);
    char err[256];
    f->m = nv_model_load(MODEL, err, sizeof err);
    assert_non_null(f->m);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;
    assert_int_equal(nv_test_rmtree(f->spool), 0);
    nv_model_free(f->m);
    free(f);
    return 0;
}

/* r's prediction is FFTW's beside MILC alone: the table's */
static void predicted_as_fftw_beside_milc(const nv_model *m, const nv_job_report *r)
{
    nv_prediction p;
    const char *with[] = {"MILC"};
    assert_int_equal(
        nv_predict(m, "FFTW", with, 1, NV_PREDICT_QUEUE, NV_DEFAULT_MIN_SAMPLES, &p, NULL),
        NV_PRED_OK);
    assert_float_equal(r->predicted_pct, p.slowdown_pct, 1e-12);
    assert_string_equal(r->predicted_source, "table");
}

static void job_beside_a_neighbour(void **state)
{
    struct fx *f = *state;
    nv_job_report *r = malloc(sizeof *r);
    char err[256];
    assert_int_equal(nv_job_report_build(f->spool, 100, f->m, NV_PREDICT_QUEUE, r, err, sizeof err),
                     0);
    assert_int_equal(r->job_id, 100);
    assert_true(r->has_app);
    assert_string_equal(r->app, "FFTW");
    assert_int_equal(r->nodes, 4);
    assert_float_equal(r->runtime_s, 440, 1e-9);
    assert_non_null(r->switches);
    /* own utilization: median of the ports' rho */
    assert_float_equal(r->rho, 0.3, 1e-9);
    assert_true(r->has_utilization);
    assert_float_equal(r->service_us, 1.5, 1e-12);
    assert_string_equal(r->mu_source, "calibration");
    assert_int_equal(r->ports, 2);
    /* the record's metrics, parsed for display and kept as recorded */
    assert_non_null(r->metrics_json);
    assert_int_equal(r->n_metrics, 1);
    assert_string_equal(r->metrics[0].name, "net_traffic");
    assert_string_equal(r->metrics[0].unit, "flits");
    assert_string_equal(r->metrics[0].source, "network-side ports");
    assert_float_equal(r->metrics[0].mean, 2e12, 1);
    assert_float_equal(r->metrics[0].p95, 3e12, 1);
    /* the first profile by name is estimated (c.json, corrupt, is not read) */
    assert_true(r->has_segments);
    assert_non_null(strstr(r->profile, "/jobs/100/profiles/b.json"));
    assert_string_equal(r->segment_note, "");
    assert_true(r->seg.segments > 0);
    /* MILC overlapped it on leaf0 for 1100..1440 s; Lulesh (leaf9) did not;
     * job 103 (no app) is not attributed; 104 ran later */
    assert_int_equal(r->n_neighbours, 1);
    assert_int_equal(r->n_listed, 1);
    assert_int_equal(r->neighbours[0].job_id, 101);
    assert_string_equal(r->neighbours[0].app, "MILC");
    assert_float_equal(r->neighbours[0].overlap_s, 340, 1e-9);
    assert_float_equal(r->neighbours[0].rho, 0.5, 1e-9);
    /* no low-background FFTW run at 4 nodes: the model's scaling (400 s) */
    assert_float_equal(r->baseline_s, 400, 1e-9);
    assert_float_equal(r->observed_pct, 10, 1e-9);
    predicted_as_fftw_beside_milc(f->m, r);
    /* at submission */
    assert_int_equal(r->at_submission.recorded, 1);
    assert_float_equal(r->at_submission.own_pct, 9, 1e-12);
    assert_true(isnan(r->at_submission.inflicted_pct));
    assert_int_equal(r->at_submission.advice_nodes, 4);
    assert_string_equal(r->at_submission.source, "table");
    assert_string_equal(r->at_submission.action, "annotate");
    assert_false(nv_report_action_moved(&r->at_submission)); /* annotate moves nothing */
    assert_string_equal(r->annotation_note, "");
    /* table1 has no variability section */
    assert_false(r->ve_in_model);
    assert_false(r->ve_ok);

    /* the timeline of the plot agrees with the estimate */
    nv_seg_timeline t;
    assert_int_equal(nv_job_report_timeline(r, &t, err, sizeof err), 0);
    assert_int_equal(t.n, r->seg.segments);
    assert_int_equal(t.n_interfered, r->seg.interfered);
    size_t flagged = 0;
    for (size_t i = 0; i < t.n; i++) {
        flagged += t.interfered[i];
        assert_true(t.duration_ms[i] >= 0);
        if (i)
            assert_float_equal(t.start_s[i], t.start_s[i - 1] + t.duration_ms[i - 1] * 1e-3, 1e-9);
    }
    assert_int_equal(flagged, t.n_interfered);
    assert_float_equal(t.start_s[0], 0, 0);
    nv_seg_timeline_free(&t);
    nv_job_report_free(r);
    free(r);
}

/* The placements the jobs had (predict.h, the paths; lib/train's
 * neighbours): a job under one leaf switch crosses no uplink, so it is no
 * job's neighbour, though it shares a leaf switch with them. */
static void the_neighbours_follow_the_placements(void **state)
{
    struct fx *f = *state;
    char err[256];
    nv_job_report *r = malloc(sizeof *r);
    assert_non_null(r);
    /* 200: FFTW under leaf0 alone, beside MILC across leaf0 and leaf1 */
    job_record(f->spool, 200, "FFTW", 20000, 440, "\"leaf0\"", 0.3, "");
    job_record(f->spool, 201, "MILC", 20000, 400, SPAN0, 0.5, "");
    /* 202: FFTW across leaf0 and leaf1 beside Lulesh under leaf1 and MILC
     * across both: MILC alone is its neighbour */
    job_record(f->spool, 202, "FFTW", 30000, 440, SPAN0, 0.3, "");
    job_record(f->spool, 203, "Lulesh", 30000, 400, "\"leaf1\"", 0.2, "");
    job_record(f->spool, 204, "MILC", 30000, 400, SPAN0, 0.5, "");
    for (int id = 200; id <= 201; id++) {
        assert_int_equal(
            nv_job_report_build(f->spool, id, f->m, NV_PREDICT_QUEUE, r, err, sizeof err), 0);
        assert_int_equal(r->n_neighbours, 0);
        assert_true(isnan(r->predicted_pct));
        nv_job_report_free(r);
    }
    assert_int_equal(nv_job_report_build(f->spool, 202, f->m, NV_PREDICT_QUEUE, r, err, sizeof err),
                     0);
    assert_int_equal(r->n_neighbours, 1);
    assert_int_equal(r->neighbours[0].job_id, 204);
    predicted_as_fftw_beside_milc(f->m, r);
    nv_job_report_free(r);
    free(r);
}

static void without_a_model_nothing_is_predicted(void **state)
{
    struct fx *f = *state;
    nv_job_report *r = malloc(sizeof *r);
    char err[256];
    assert_int_equal(nv_job_report_build(f->spool, 101, NULL, NV_PREDICT_QUEUE, r, err, sizeof err),
                     0);
    assert_string_equal(r->app, "MILC");
    assert_int_equal(r->n_neighbours, 1);
    assert_int_equal(r->neighbours[0].job_id, 100);
    assert_true(isnan(r->baseline_s));
    assert_true(isnan(r->observed_pct));
    assert_true(isnan(r->predicted_pct));
    assert_string_equal(r->predicted_source, "");
    assert_false(r->has_segments);
    assert_string_equal(r->profile, "");
    assert_int_equal(r->at_submission.recorded, 0);
    assert_null(r->metrics_json);
    assert_int_equal(r->n_metrics, 0);
    nv_seg_timeline t;
    assert_int_equal(nv_job_report_timeline(r, &t, err, sizeof err), -1);
    assert_non_null(strstr(err, "no segment profile"));
    nv_job_report_free(r);
    free(r);
}

static void notes_for_what_could_not_be_read(void **state)
{
    struct fx *f = *state;
    nv_job_report *r = malloc(sizeof *r);
    char err[256];
    /* a profile that is not one: a note, no estimate */
    assert_int_equal(nv_job_report_build(f->spool, 102, f->m, NV_PREDICT_QUEUE, r, err, sizeof err),
                     0);
    assert_false(r->has_segments);
    assert_non_null(strstr(r->profile, "/jobs/102/profiles/a.json"));
    assert_true(r->segment_note[0] != 0);
    assert_int_equal(r->n_neighbours, 0);
    nv_job_report_free(r);
    /* a malformed annotation: not recorded, and a note naming the field */
    assert_int_equal(nv_job_report_build(f->spool, 104, f->m, NV_PREDICT_QUEUE, r, err, sizeof err),
                     0);
    assert_int_equal(r->at_submission.recorded, 0);
    assert_non_null(strstr(r->annotation_note, "comment"));
    nv_job_report_free(r);
    /* a record without an app: no neighbours attributed */
    assert_int_equal(nv_job_report_build(f->spool, 103, f->m, NV_PREDICT_QUEUE, r, err, sizeof err),
                     0);
    assert_false(r->has_app);
    assert_string_equal(r->app, "");
    assert_int_equal(r->n_neighbours, 0);
    assert_float_equal(r->rho, 0.2, 1e-9);
    nv_job_report_free(r);
    /* no record at all */
    assert_int_equal(nv_job_report_build(f->spool, 999, f->m, NV_PREDICT_QUEUE, r, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "jobs/999/job.json"));
    nv_job_report_free(r);
    free(r);
}

/* a FIFO named *.json in the job's profiles directory (which the job's
 * user owns) must not hang root's `netvar report` (alarm() turns a hang
 * into a failure), and a profile of another owner is not read */
static void a_planted_fifo_does_not_hang_the_report(void **state)
{
    struct fx *f = *state;
    char dir[256], path[300], err[256];
    job_record(f->spool, 105, "FFTW", 6000, 400, SPAN0, 0.3, "");
    snprintf(dir, sizeof dir, "%s/jobs/105/profiles", f->spool);
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(path, sizeof path, "%s/a.json", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    /* a name with terminal escapes sorts first, and is never taken */
    char esc[300];
    snprintf(esc, sizeof esc, "%s/0\033]0;pwned\007.json", dir);
    copy_file(PROFILE, esc);
    nv_job_report *r = malloc(sizeof *r);
    alarm(30);
    assert_int_equal(nv_job_report_build(f->spool, 105, f->m, NV_PREDICT_QUEUE, r, err, sizeof err),
                     0);
    alarm(0);
    assert_false(r->has_segments);
    assert_non_null(strstr(r->segment_note, "FIFO"));
    assert_null(strchr(r->profile, '\033'));
    nv_job_report_free(r);
    if (geteuid() == 0) { /* a profile not the profiles directory owner's */
        assert_int_equal(unlink(path), 0);
        copy_file(PROFILE, path);
        assert_int_equal(chown(path, 4242, 4242), 0);
        assert_int_equal(
            nv_job_report_build(f->spool, 105, f->m, NV_PREDICT_QUEUE, r, err, sizeof err), 0);
        assert_false(r->has_segments);
        assert_non_null(strstr(r->segment_note, "owned by uid 4242"));
        nv_job_report_free(r);
    }
    free(r);
}

/* An action that changed where (or whether) the job ran beside the jobs it
 * was predicted against makes the prediction one for a placement that did
 * not happen: the report does not score it against the observed slowdown. */
static void actions_that_moved_the_job(void **state)
{
    (void)state;
    nv_report_annotation an = {.recorded = 1};
    const char *moved[] = {"deny", "hold", "isolate", "contain", "avoid"};
    const char *kept[] = {"message", "annotate", "resize", "", "avoid,contain", "Avoid", "avoidx"};
    for (size_t i = 0; i < sizeof moved / sizeof moved[0]; i++) {
        snprintf(an.action, sizeof an.action, "%s", moved[i]);
        assert_true(nv_report_action_moved(&an));
    }
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) {
        snprintf(an.action, sizeof an.action, "%s", kept[i]);
        assert_false(nv_report_action_moved(&an));
    }
    an.recorded = 0;
    snprintf(an.action, sizeof an.action, "avoid");
    assert_false(nv_report_action_moved(&an)); /* nothing recorded */
    assert_false(nv_report_action_moved(NULL));
}

/* "no prediction error" only when the action kept the job from the app it
 * was predicted against: beside that app, the prediction is scored
 * whatever the action; a record that cannot say (no neighbour named, the
 * neighbour list cut) proves nothing either */
static void kept_apart_only_from_the_app_predicted_against(void **state)
{
    (void)state;
    nv_report_annotation an = {.recorded = 1, .action = "avoid", .against_app = "alltoall"};
    const char *beside_it[] = {"cg", "alltoall"}, *beside_others[] = {"cg", "stencil"};
    assert_false(nv_report_kept_apart(&an, beside_it, NULL, 2, 1));
    assert_true(nv_report_kept_apart(&an, beside_others, NULL, 2, 1));
    assert_true(nv_report_kept_apart(&an, NULL, NULL, 0, 1));           /* ran beside nobody */
    assert_false(nv_report_kept_apart(&an, beside_others, NULL, 2, 0)); /* list cut */
    snprintf(an.action, sizeof an.action, "message");
    assert_false(nv_report_kept_apart(&an, beside_others, NULL, 2, 1)); /* nothing moved it */
    snprintf(an.action, sizeof an.action, "avoid");
    an.against_app[0] = '\0';
    assert_false(nv_report_kept_apart(&an, beside_others, NULL, 2, 1)); /* names nothing */

    /* read back from a record */
    json_object *rec = json_tokener_parse(
        "{\"annotation\":\"netvar:{\\\"v\\\":1,\\\"mode\\\":\\\"full\\\",\\\"own_pct\\\":423.3,"
        "\\\"vs\\\":\\\"alltoall\\\",\\\"vs_job\\\":6,\\\"action\\\":\\\"avoid\\\"}\"}");
    assert_non_null(rec);
    char err[128];
    nv_report_annotation got;
    assert_int_equal(nv_report_annotation_from_record(rec, &got, err, sizeof err), 0);
    assert_string_equal(got.against_app, "alltoall");
    assert_int_equal(got.against_job, 6);
    assert_int_equal(got.vs_n, 0); /* an annotation from before the sums */
    assert_true(isnan(got.single_pct));
    assert_false(nv_report_kept_apart(&got, beside_it, NULL, 2, 1));
    /* beside the very job named (vs_job 6), whatever its app is called
     * there: no keeping apart; beside other jobs of other apps: kept */
    const int64_t job6[] = {5, 6}, others[] = {5, 7};
    assert_false(nv_report_kept_apart(&got, beside_others, job6, 2, 1));
    assert_true(nv_report_kept_apart(&got, beside_others, others, 2, 1));
    json_object_put(rec);
    rec = json_tokener_parse("{\"annotation\":{\"v\":1,\"own_pct\":250,\"vs_n\":3,"
                             "\"vs_uplinks\":2,\"single_pct\":107.5}}");
    assert_int_equal(nv_report_annotation_from_record(rec, &got, err, sizeof err), 0);
    assert_int_equal(got.vs_n, 3);
    assert_int_equal(got.vs_uplinks, 2);
    assert_float_equal(got.single_pct, 107.5, 1e-12);
    json_object_put(rec);
    rec = json_tokener_parse("{\"annotation\":{\"v\":1,\"vs_n\":-2,\"vs_uplinks\":1e300}}");
    assert_int_equal(nv_report_annotation_from_record(rec, &got, err, sizeof err), 0);
    assert_int_equal(got.vs_n, 0); /* out of range: not recorded */
    assert_int_equal(got.vs_uplinks, 0);
    json_object_put(rec);
    rec = json_tokener_parse("{\"annotation\":{\"v\":1,\"vs\":\"a b\\u001b\",\"vs_job\":-3}}");
    assert_int_equal(nv_report_annotation_from_record(rec, &got, err, sizeof err), 0);
    assert_string_equal(got.against_app, ""); /* not an app key */
    assert_int_equal(got.against_job, 0);
    json_object_put(rec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kept_apart_only_from_the_app_predicted_against),
        cmocka_unit_test(job_beside_a_neighbour),
        cmocka_unit_test(actions_that_moved_the_job),
        cmocka_unit_test(without_a_model_nothing_is_predicted),
        cmocka_unit_test(the_neighbours_follow_the_placements),
        cmocka_unit_test(notes_for_what_could_not_be_read),
        cmocka_unit_test(a_planted_fifo_does_not_hang_the_report),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
