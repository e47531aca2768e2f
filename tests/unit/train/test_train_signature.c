/* test_train_signature.c - apps' signatures from the jobs' segment
 * profiles (nv_train_signatures): the latest job with a version 2 profile
 * gives its app's signature, the sums computed here by hand; version 1,
 * symbolic-link and foreign-owned profiles are skipped and counted; the
 * signature reaches the built model, an input model's signature stays
 * where no profile gives one, and a retrain from the state file gives the
 * same signatures. */
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

#include "fabric.h"
#include "model.h"
#include "model_builder.h"
#include "segment_profile.h"
#include "train_history.h"
#include "train_state.h"
#include "nv_test.h"
#include "train_spool.h"

static char root[256];

/* a profile of three segments using rows 1, 2, 1 of comm_rows; row 1 has
 * x us in class 0 and 2x in class 5 and overlap 10, row 2 has y us in class
 * 11 and overlap 5 (comm_fields: the 12 classes, MPI-IO, overlap) */
static void profile(const char *spool, long id, const char *name, int version, double x, double y)
{
    char d[512], fields[1024] = "", text[4096];
    snprintf(d, sizeof d, "%s/jobs/%ld/profiles", spool, id);
    mkdir(d, 0755);
    for (int m = NV_SEG_M_COMM_FIRST; m < NV_SEG_METRICS; m++)
        snprintf(fields + strlen(fields), sizeof fields - strlen(fields), "%s\"%s\"",
                 m > NV_SEG_M_COMM_FIRST ? "," : "", nv_seg_metric_name(m));
    snprintf(text, sizeof text,
             "{\"format\":\"netvar-segment-profile\",\"version\":%d,\"runtime_us\":5000,"
             "\"bins\":{\"work\":[1],\"time_us\":[5]},\"segment_work_bin\":[0,0,0],"
             "\"segment_time_bin\":[0,0,0],\"segment_signature\":[0,0,0],"
             "\"signatures\":[[0,0,0,0,0,0,0,0,0,0]],\"comm_fields\":[%s],"
             "\"comm_rows\":[[0,0,0,0,0,0,0,0,0,0,0,0,0,0],"
             "[%g,0,0,0,0,%g,0,0,0,0,0,0,0,10],[0,0,0,0,0,0,0,0,0,0,0,%g,0,5]],"
             "\"segment_comm\":[1,2,1]}",
             version, fields, x, 2 * x, y);
    assert_int_equal(nv_test_write_file(d, name, text), 0);
}

static void scan(const char *spool, nv_train_set *s)
{
    nv_train_opts o;
    nv_train_opts_default(&o);
    char err[256];
    nv_train_set_init(s);
    assert_int_equal(nv_train_scan_spool(spool, 1.0, &o, s, NULL, NULL, err, sizeof err), 0);
    assert_int_equal(nv_train_analyze(s, &o), 0);
    assert_int_equal(nv_train_signatures(s, spool), 0);
}

static void latest_v2_profile_gives_the_signature(void **state)
{
    (void)state;
    char spool[400], d[600], target[700], err[256];
    snprintf(spool, sizeof spool, "%s/s", root);
    /* appA: job 2 ends last (2000 + 50 s) with a v2 profile; job 1 ended
     * before; job 3 started later but has no profile */
    nv_test_job_record(spool, 1, "appA", 2, "sw", 1000, 100, 0.1);
    nv_test_job_record(spool, 2, "appA", 2, "sw", 2000, 50, 0.1);
    nv_test_job_record(spool, 3, "appA", 2, "sw", 1500, 10, 0.1);
    profile(spool, 1, "a.json", 2, 1000, 3000);
    profile(spool, 2, "b.json", 2, 200, 7000);
    profile(spool, 2, "c.json", 2, 999, 999); /* not the first by name */
    /* appB: the latest (12) v1, then (11) a symbolic link, then (10)
     * foreign-owned, then (9) a good one */
    nv_test_job_record(spool, 9, "appB", 2, "sw", 100, 10, 0.1);
    nv_test_job_record(spool, 10, "appB", 2, "sw", 200, 10, 0.1);
    nv_test_job_record(spool, 11, "appB", 2, "sw", 300, 10, 0.1);
    nv_test_job_record(spool, 12, "appB", 2, "sw", 400, 10, 0.1);
    profile(spool, 9, "p.json", 2, 1, 2);
    profile(spool, 10, "p.json", 2, 50, 50);
    snprintf(d, sizeof d, "%s/jobs/10/profiles/p.json", spool);
    int foreign = geteuid() == 0 && chown(d, 12345, 12345) == 0;
    profile(spool, 12, "p.json", 1, 40, 40);
    snprintf(d, sizeof d, "%s/jobs/11/profiles", spool);
    mkdir(d, 0755);
    snprintf(target, sizeof target, "%s/jobs/1/profiles/a.json", spool);
    snprintf(d, sizeof d, "%s/jobs/11/profiles/p.json", spool);
    assert_int_equal(symlink(target, d), 0);
    /* appC: only a v1 profile */
    nv_test_job_record(spool, 20, "appC", 2, "sw", 100, 10, 0.1);
    profile(spool, 20, "p.json", 1, 40, 40);

    nv_train_set s;
    scan(spool, &s);
    long A = nv_train_set_find_app(&s, "appA"), B = nv_train_set_find_app(&s, "appB"),
         C = nv_train_set_find_app(&s, "appC");
    assert_true(A >= 0 && B >= 0 && C >= 0);
    assert_true(s.sig_ok[A] && s.sig_ok[B] && !s.sig_ok[C]);
    assert_int_equal(s.stats.signatures, 2);
    /* v1 of 12 and 20, the link of 11, and 10 when it could be given away */
    assert_int_equal(s.stats.profiles_v1, 2);
    assert_int_equal(s.stats.profiles_unusable, 3 + (foreign ? 1 : 0));
    assert_non_null(strstr(s.stats.profile_error, "jobs/12/profiles/p.json"));
    /* job 2's b.json: rows 1, 2, 1 -> class 0: 2 x 200, class 5: 2 x 400,
     * class 11: 7000; overlap 10 + 5 + 10; runtime 50 s */
    const nv_signature *g = &s.sigs[A];
    assert_float_equal(g->runtime_us, 50e6, 1e-6);
    assert_float_equal(g->comm_us[0], 400, 1e-9);
    assert_float_equal(g->comm_us[5], 800, 1e-9);
    assert_float_equal(g->comm_us[11], 7000, 1e-9);
    assert_float_equal(g->overlap_us, 25, 1e-9);
    assert_int_equal(g->runs, 1);
    double sum = 0;
    for (int c = 0; c < NV_FABRIC_CLASSES; c++)
        sum += g->comm_us[c];
    assert_float_equal(sum, 8200, 1e-9);
    /* appB from job 9 (1, 2): class 0: 2, class 5: 4, class 11: 2; 10 s */
    const nv_signature *h = &s.sigs[B];
    assert_float_equal(h->comm_us[0], 2, 1e-9);
    assert_float_equal(h->comm_us[5], 4, 1e-9);
    assert_float_equal(h->comm_us[11], 2, 1e-9);
    assert_float_equal(h->runtime_us, 10e6, 1e-6);

    /* into the model: appA and appB carry theirs, appC keeps the input
     * model's signature */
    nv_model_builder *in = nv_builder_new();
    nv_calibration cal;
    double idle[] = {1.0, 1.1, 1.2};
    assert_int_equal(nv_calibrate(idle, 3, NV_CAL_MINIMUM, 0, &cal), 0);
    assert_int_equal(nv_builder_set_calibration(in, &cal), 0);
    nv_signature old = {.runtime_us = 1e6, .runs = 3};
    old.comm_us[2] = 1234;
    nv_latency_summary lat;
    double l[] = {2.0, 2.5, 3.0};
    nv_latency_summary_of(l, 3, &lat);
    nv_app_input ci = {.key = "appC", .latency = &lat, .signature = &old};
    assert_int_equal(nv_builder_add_app(in, &ci), 0);
    nv_model *im = nv_builder_build(in, err, sizeof err);
    if (!im)
        fail_msg("input model: %s", err);
    nv_train_opts o;
    nv_train_opts_default(&o);
    nv_model_builder *b = nv_train_build(&s, im, &o, NULL, err, sizeof err);
    assert_non_null(b);
    nv_model *m = nv_builder_build(b, err, sizeof err);
    if (!m)
        fail_msg("trained model: %s", err);
    nv_app_view av;
    assert_int_equal(nv_model_app(m, nv_model_app_index(m, "appA"), &av), 0);
    assert_non_null(av.signature);
    assert_float_equal(av.signature->comm_us[11], 7000, 1e-9);
    assert_float_equal(av.signature->runtime_us, 50e6, 1e-6);
    assert_int_equal(nv_model_app(m, nv_model_app_index(m, "appC"), &av), 0);
    assert_non_null(av.signature);
    assert_float_equal(av.signature->comm_us[2], 1234, 1e-9);
    nv_model_free(m);
    nv_builder_free(b);
    nv_model_free(im);
    nv_builder_free(in);
    nv_train_set_free(&s);

    /* the same spool trains to the same signatures again */
    scan(spool, &s);
    A = nv_train_set_find_app(&s, "appA");
    assert_float_equal(s.sigs[A].comm_us[5], 800, 1e-9);
    nv_train_set_free(&s);
}

/* through the state file (--state): the summaries say which jobs had
 * profiles/, so the retrain gives the same signatures reading no record */
static void signatures_survive_the_state(void **state)
{
    (void)state;
    char spool[400], st[400], err[256];
    snprintf(spool, sizeof spool, "%s/st", root);
    snprintf(st, sizeof st, "%s/st.state", root);
    nv_test_job_record(spool, 1, "appA", 2, "sw", 1000, 100, 0.1);
    nv_test_job_record(spool, 2, "appA", 2, "sw", 2000, 100, 0.1);
    profile(spool, 1, "a.json", 2, 10, 20);
    nv_train_opts o;
    nv_train_opts_default(&o);
    nv_train_set s;
    nv_train_set_init(&s);
    assert_int_equal(nv_train_scan_spool(spool, 1.0, &o, &s, NULL, NULL, err, sizeof err), 0);
    assert_int_equal(nv_train_state_save(st, spool, 1.0, &s, err, sizeof err), 0);
    nv_train_set_free(&s);
    /* job 2 gets a profile after its record was read: not looked at */
    profile(spool, 2, "a.json", 2, 500, 500);
    nv_train_set_init(&s);
    assert_int_equal(nv_train_state_load(st, spool, 1.0, o.max_jobs, &s, err, sizeof err), 0);
    assert_int_equal(nv_train_scan_spool(spool, 1.0, &o, &s, NULL, NULL, err, sizeof err), 0);
    assert_int_equal(s.stats.records, 0); /* nothing read again */
    assert_int_equal(nv_train_analyze(&s, &o), 0);
    assert_int_equal(nv_train_signatures(&s, spool), 0);
    long A = nv_train_set_find_app(&s, "appA");
    assert_true(A >= 0 && s.sig_ok[A]);
    assert_float_equal(s.sigs[A].comm_us[0], 20, 1e-9); /* job 1's: 2 x 10 */
    assert_float_equal(s.sigs[A].comm_us[11], 20, 1e-9);
    nv_train_set_free(&s);
}

/* a profiles directory that is a symbolic link is not followed */
static void linked_profiles_dir_is_refused(void **state)
{
    (void)state;
    char spool[400], d[600], target[600];
    snprintf(spool, sizeof spool, "%s/l", root);
    nv_test_job_record(spool, 1, "appA", 2, "sw", 1000, 100, 0.1);
    nv_test_job_record(spool, 2, "appA", 2, "sw", 2000, 100, 0.1);
    profile(spool, 1, "a.json", 2, 10, 20);
    snprintf(target, sizeof target, "%s/jobs/1/profiles", spool);
    snprintf(d, sizeof d, "%s/jobs/2/profiles", spool);
    assert_int_equal(symlink(target, d), 0);
    nv_train_set s;
    scan(spool, &s);
    long A = nv_train_set_find_app(&s, "appA");
    assert_true(s.sig_ok[A]);
    assert_int_equal(s.stats.profiles_unusable, 1);
    assert_float_equal(s.sigs[A].runtime_us, 100e6, 1e-6);
    assert_float_equal(s.sigs[A].comm_us[11], 20, 1e-9);
    nv_train_set_free(&s);
}

static int setup(void **state)
{
    (void)state;
    return nv_test_tmpdir(root, sizeof root, "train-sig");
}

static int teardown(void **state)
{
    (void)state;
    return nv_test_rmtree(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(latest_v2_profile_gives_the_signature),
        cmocka_unit_test(linked_profiles_dir_is_refused),
        cmocka_unit_test(signatures_survive_the_state),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
