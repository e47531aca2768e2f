/* test_stream_accuracy.c - job_submit's answers against what happened:
 * nv_accuracy_compute() on hand-computed pairs, and
 * nv_stream_accuracy_build() on a spool made here (FFTW alone once, its
 * 400 s baseline at 4 nodes; then twice beside MILC, its Comment saying
 * +30 % and +20 % (beside two jobs); a Lulesh job whose annotation holds no
 * prediction; a MILC job with none), over windows by end time.  Model:
 * tests/fixtures/model/table1.json. */
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
#include "nv_test.h"
#include "stream_accuracy.h"

#define MODEL "tests/fixtures/model/table1.json"
#define SPAN "\"leaf0\",\"leaf1\""

static void hand_computed_errors(void **state)
{
    (void)state;
    const double said[] = {10, 20, 30, NAN, 5};
    const double obs[] = {12, 15, 40, 7, NAN};
    nv_accuracy a;
    assert_int_equal(nv_accuracy_compute(said, obs, 5, 13.0, 500, &a), 0);
    assert_int_equal(a.n, 3); /* the pairs with a NAN are skipped */
    /* |10-12|, |20-15|, |30-40| = 2, 5, 10 */
    assert_float_equal(a.mae_pp, 17.0 / 3, 1e-12);
    assert_float_equal(a.bias_pp, (-2.0 + 5 - 10) / 3, 1e-12);
    assert_int_equal(a.n_slowed, 2); /* observed 15 and 40 are >= 13 */
    assert_float_equal(a.mae_slowed_pp, 7.5, 1e-12);
    /* a resampled mean lies between the smallest and largest error */
    assert_true(a.lo_pp >= 2.0 && a.lo_pp <= a.mae_pp);
    assert_true(a.hi_pp <= 10.0 && a.hi_pp >= a.mae_pp);
    assert_true(a.lo_pp < a.hi_pp);
    nv_accuracy b;
    assert_int_equal(nv_accuracy_compute(said, obs, 5, 13.0, 500, &b), 0);
    assert_float_equal(b.lo_pp, a.lo_pp, 0); /* repeatable: a fixed seed */

    /* equal errors: the interval is that error */
    const double s2[] = {1, 2, 3, 4}, o2[] = {3, 4, 5, 6};
    assert_int_equal(nv_accuracy_compute(s2, o2, 4, 10.0, 200, &a), 0);
    assert_float_equal(a.lo_pp, 2.0, 1e-12);
    assert_float_equal(a.hi_pp, 2.0, 1e-12);
    assert_int_equal(a.n_slowed, 0);
    assert_true(isnan(a.mae_slowed_pp));

    /* one pair: no interval; none: nothing */
    assert_int_equal(nv_accuracy_compute(s2, o2, 1, 10.0, 200, &a), 0);
    assert_int_equal(a.n, 1);
    assert_true(isnan(a.lo_pp) && isnan(a.hi_pp));
    assert_int_equal(nv_accuracy_compute(NULL, NULL, 0, 10.0, 200, &a), 0);
    assert_int_equal(a.n, 0);
    assert_true(isnan(a.mae_pp));
    assert_int_equal(nv_accuracy_compute(NULL, o2, 2, 10.0, 200, &a), -1);
}

static void job_record(const char *spool, int id, const char *app, double start, double runtime,
                       const char *annotation)
{
    char dir[256], text[2048], ann[512] = "";
    snprintf(dir, sizeof dir, "%s/jobs/%d", spool, id);
    assert_int_equal(mkdir(dir, 0755), 0);
    if (annotation)
        snprintf(ann, sizeof ann, ",\"annotation\":\"%s\"", annotation);
    snprintf(text, sizeof text,
             "{\"schema\":\"netvar-job-record\",\"job_id\":%d,\"app\":\"%s\",\"runtime_s\":%g,"
             "\"start_unix_s\":%g,\"end_unix_s\":%g,\"nodes\":[\"a1\",\"a2\",\"a3\",\"a4\"],"
             "\"switches\":[" SPAN "],\"utilization\":{\"service_us\":1.5,\"mu_source\":"
             "\"calibration\",\"ports\":[{\"rho\":0.2},{\"rho\":0.4}]}%s}",
             id, app, runtime, start, start + runtime, ann);
    assert_int_equal(nv_test_write_file(dir, "job.json", text), 0);
}

#define ANN(own, n)                                                                                \
    "netvar:{\\\"v\\\":1,\\\"mode\\\":\\\"counters\\\",\\\"own_pct\\\":" own                       \
    ",\\\"vs\\\":\\\"MILC\\\",\\\"vs_n\\\":" n                                                     \
    ",\\\"vs_uplinks\\\":0,\\\"action\\\":\\\"annotate\\\"}"

/* what `netvar report JOBID` observes for the job */
static double observed(const char *spool, const nv_model *m, int id)
{
    nv_job_report r;
    char err[256];
    assert_int_equal(nv_job_report_build(spool, id, m, NV_PREDICT_QUEUE, &r, err, sizeof err), 0);
    double o = r.observed_pct;
    nv_job_report_free(&r);
    return o;
}

static void the_stream_scored_over_windows(void **state)
{
    (void)state;
    char spool[64], dir[128], err[256];
    assert_int_equal(nv_test_tmpdir(spool, sizeof spool, "stream-acc"), 0);
    snprintf(dir, sizeof dir, "%s/jobs", spool);
    assert_int_equal(mkdir(dir, 0755), 0);
    job_record(spool, 1, "FFTW", 0, 400, NULL); /* alone: the baseline */
    job_record(spool, 2, "FFTW", 1000, 500, ANN("30", "1"));
    job_record(spool, 3, "MILC", 1000, 600, NULL);
    job_record(spool, 4, "FFTW", 3000, 600, ANN("20", "2"));
    job_record(spool, 5, "MILC", 3000, 700, NULL);
    job_record(spool, 6, "Lulesh", 5000, 300, "netvar:{\\\"v\\\":1,\\\"mode\\\":\\\"off\\\"}");
    nv_model *m = nv_model_load(MODEL, err, sizeof err);
    assert_non_null(m);

    double o2 = observed(spool, m, 2), o4 = observed(spool, m, 4);
    /* hand: 500 s and 600 s against FFTW's 400 s alone */
    assert_float_equal(o2, 25.0, 1e-9);
    assert_float_equal(o4, 50.0, 1e-9);

    nv_accuracy_window all = {NAN, NAN, 0};
    nv_stream_accuracy s;
    assert_int_equal(nv_stream_accuracy_build(spool, m, &all, &s, err, sizeof err), 0);
    assert_int_equal(s.finished, 6);
    assert_int_equal(s.annotated, 3);
    assert_int_equal(s.predicted, 2);
    assert_int_equal(s.observed, 2);
    assert_int_equal(s.beside_many, 1);
    assert_float_equal(s.acc.mae_pp, (fabs(30 - o2) + fabs(20 - o4)) / 2, 1e-9);
    assert_float_equal(s.acc.bias_pp, ((30 - o2) + (20 - o4)) / 2, 1e-9);
    assert_int_equal(s.acc.n_slowed, 2);
    assert_float_equal(s.first_end_s, 1500, 0);
    assert_float_equal(s.last_end_s, 3600, 0);

    /* ended at or after 2000: job 4 (and 5, 6) */
    nv_accuracy_window since = {2000, NAN, 0};
    assert_int_equal(nv_stream_accuracy_build(spool, m, &since, &s, err, sizeof err), 0);
    assert_int_equal(s.finished, 3);
    assert_int_equal(s.observed, 1);
    assert_float_equal(s.acc.mae_pp, fabs(20 - o4), 1e-9);
    assert_true(isnan(s.acc.lo_pp)); /* one pair: no interval */

    /* ended before 2000: jobs 1, 2 (job 3 ends at 1600 too) */
    nv_accuracy_window until = {NAN, 2000, 0};
    assert_int_equal(nv_stream_accuracy_build(spool, m, &until, &s, err, sizeof err), 0);
    assert_int_equal(s.finished, 3);
    assert_int_equal(s.observed, 1);
    assert_float_equal(s.acc.mae_pp, fabs(30 - o2), 1e-9);

    /* the last 3 by end time: jobs 4 (3600), 5 (3700), 6 (5300) */
    nv_accuracy_window last = {NAN, NAN, 3};
    assert_int_equal(nv_stream_accuracy_build(spool, m, &last, &s, err, sizeof err), 0);
    assert_int_equal(s.finished, 3);
    assert_int_equal(s.annotated, 2);
    assert_int_equal(s.observed, 1);

    /* a spool that cannot be read says so */
    assert_int_equal(nv_stream_accuracy_build("/nonexistent-netvar", m, &all, &s, err, sizeof err),
                     -1);
    assert_true(strlen(err) > 0);
    nv_model_free(m);
    assert_int_equal(nv_test_rmtree(spool), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hand_computed_errors),
        cmocka_unit_test(the_stream_scored_over_windows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
