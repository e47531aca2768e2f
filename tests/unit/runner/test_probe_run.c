/* test_probe_run.c - probe runs and the command under test (lib/runner/
 * probe_run.h): --runtime-key reads the runtime the command prints, and
 * nv_run_command through a stand-in srun, and a launch that crashed made
 * again (--launch-attempts); the model helpers (run_model.h):
 * a utilization from ImpactB's samples, loading a model file if any. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calibration.h"
#include "probe_output.h"
#include "probe_run.h"
#include "run_model.h"
#include "nv_test.h"

static const char impactb_ok[] =
    "srun: some launcher chatter {not json}\n"
    "{\"schema\":\"netvar-impactb\",\"version\":1,\"elapsed_s\":2.5,\"stopped_by\":\"signal\",\n"
    " \"placement\":{\"nodes\":4,\"node_names\":[\"n1\",\"n2\",\"n3\",\"n4\"]},\n"
    " \"samples_us\":[5.5,6,7.25]}\n";

/* ImpactB's samples make a calibration, a latency summary and a utilization. */
static void impactb_samples_give_a_utilization(void **state)
{
    (void)state;
    nv_impactb_output r;
    char err[300];
    assert_int_equal(nv_impactb_parse(impactb_ok, strlen(impactb_ok), &r, err, sizeof err), 0);
    /* the samples make a calibration and a latency summary */
    nv_calibration cal;
    assert_int_equal(nv_calibrate(r.samples_us, r.n_samples, NV_CAL_MINIMUM, 0, &cal), 0);
    assert_true(cal.service_us == 5.5);
    nv_latency_summary lat;
    nv_utilization u;
    assert_int_equal(nv_run_app_utilization(&cal, r.samples_us, r.n_samples, &lat, &u), 0);
    assert_true(fabs(lat.mean_us - 18.75 / 3) < 1e-12);
    assert_true(u.rho >= 0 && u.rho <= 1);
    assert_int_equal(nv_run_app_utilization(&cal, r.samples_us, 0, &lat, &u), -1);
    nv_impactb_output_free(&r);
}

/* A model file that is not there is no error; one that does not load is. */
static void model_is_loaded_if_any(void **state)
{
    (void)state;
    char dir[64], path[80], err[300];
    assert_int_equal(nv_test_tmpdir(dir, sizeof dir, "probe-run-model"), 0);
    snprintf(path, sizeof path, "%s/model.json", dir);
    nv_model *m = (nv_model *)1;
    assert_int_equal(nv_run_load_model_if_any(path, &m, err, sizeof err), 0);
    assert_null(m);
    assert_int_equal(nv_test_write_file(dir, "model.json", "{\"schema\":\"not-a-model\"}\n"), 0);
    err[0] = '\0';
    assert_int_equal(nv_run_load_model_if_any(path, &m, err, sizeof err), -1);
    assert_null(m);
    assert_true(err[0] != '\0');
    assert_null(strchr(err, '\n'));
    assert_int_equal(nv_test_rmtree(dir), 0);
}

static void write_script(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(chmod(path, 0755), 0);
}

/* --runtime-key: the runtime the command prints, not its wall time. */
static void runtime_key_reads_the_printed_runtime(void **state)
{
    (void)state;
    double d = -1;
    assert_int_equal(nv_output_seconds("proxy=cg ranks=2 runtime_s=12.5 size=3\n", "runtime_s", &d),
                     0);
    assert_true(d == 12.5);
    /* the last one wins; a launcher prefix "0: " is fine */
    assert_int_equal(nv_output_seconds("runtime_s=1\n0: runtime_s=2.25\n", "runtime_s", &d), 0);
    assert_true(d == 2.25);
    /* not a word start, no '=', not a number, negative, trailing junk: none */
    const char *none[] = {"xruntime_s=3", "runtime_s 3",   "runtime_s=abc", "runtime_s=-1",
                          "runtime_s=3s", "runtime_s=nan", "runtime_s=",    "",
                          "runtime_sx=4"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        d = -1;
        assert_int_equal(nv_output_seconds(none[i], "runtime_s", &d), -1);
        assert_true(d == -1);
    }
    assert_int_equal(nv_output_seconds(NULL, "k", &d), -1);
    assert_int_equal(nv_output_seconds("k=1", "", &d), -1);

    nv_run_plan p;
    const char *keep = NULL;
    char err[300];
    unsetenv("SLURM_JOB_ID");
    nv_run_plan_defaults(&p);
    assert_int_equal(nv_run_plan_option(&p, NV_OPT_RUNTIME_KEY, "a b", &keep, err, sizeof err), -1);
    assert_non_null(strstr(err, "--runtime-key"));
    assert_int_equal(nv_run_plan_option(&p, NV_OPT_RUNTIME_KEY, "", &keep, err, sizeof err), -1);
    assert_null(p.runtime_key);

    /* nv_run_command through a stand-in srun that drops its own options */
    assert_int_equal(nv_run_work_dir(&p, NULL, "unit", err, sizeof err), 0);
    char bindir[NV_RUN_PATH_MAX + 16], fake[NV_RUN_PATH_MAX + 32];
    snprintf(bindir, sizeof bindir, "%s/bin", p.work_dir);
    assert_int_equal(mkdir(bindir, 0755), 0);
    snprintf(fake, sizeof fake, "%s/srun", bindir);
    write_script(fake, "#!/bin/sh\nwhile case $1 in --*) true;; *) false;; esac; do shift; done\n"
                       "exec \"$@\"\n");
    const char *old = getenv("PATH");
    char *saved = strdup(old ? old : "/usr/bin:/bin");
    char path[2 * NV_RUN_PATH_MAX];
    snprintf(path, sizeof path, "%s:%s", bindir, saved);
    setenv("PATH", path, 1);
    double t = -1;
    const char *prints[] = {"/bin/sh", "-c", "echo proxy=x runtime_s=0.75 size=1"};
    assert_int_equal(nv_run_command(&p, prints, 3, "wall", 10, &t, err, sizeof err), 0);
    assert_true(t >= 0 && t != 0.75); /* wall time without the key */
    assert_int_equal(
        nv_run_plan_option(&p, NV_OPT_RUNTIME_KEY, "runtime_s", &keep, err, sizeof err), 0);
    assert_int_equal(nv_run_command(&p, prints, 3, "keyed", 10, &t, err, sizeof err), 0);
    assert_true(t == 0.75);
    const char *silent[] = {"/bin/sh", "-c", "echo nothing here"};
    assert_int_equal(nv_run_command(&p, silent, 3, "silent", 10, &t, err, sizeof err), -1);
    assert_non_null(strstr(err, "silent printed no runtime_s=SECONDS"));
    assert_null(strchr(err, '\n'));
    setenv("PATH", saved, 1);
    free(saved);
    unlink(fake);
    rmdir(bindir);
    nv_run_work_dir_cleanup(&p, 0);
}

/* the notices of launches made again, kept for the test */
static char notices[4][700];
static int n_notices;
static void keep_notice(const void *ctx, const char *line)
{
    assert_string_equal((const char *)ctx, "unit");
    if (n_notices < 4)
        snprintf(notices[n_notices], sizeof notices[0], "%s", line);
    n_notices++;
}

/* A launch that crashed (a signal, or a launcher's 128 + signal) is made
 * again up to --launch-attempts times, one notice each; one that failed by
 * itself is not.  A probe is made again only when it crashed before it
 * announced that it measures. */
static void a_crashed_launch_is_made_again(void **state)
{
    (void)state;
    nv_run_plan p;
    const char *keep = NULL;
    char err[600];
    unsetenv("SLURM_JOB_ID");
    nv_run_plan_defaults(&p);
    assert_int_equal(p.launch_attempts, 2);
    assert_ptr_equal(p.notice, nv_run_notice_stderr);
    assert_int_equal(nv_run_plan_option(&p, NV_OPT_LAUNCH_ATTEMPTS, "0", &keep, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "--launch-attempts"));
    assert_int_equal(nv_run_plan_option(&p, NV_OPT_LAUNCH_ATTEMPTS, "11", &keep, err, sizeof err),
                     -1);
    assert_int_equal(p.launch_attempts, 2);
    p.notice = keep_notice;
    p.notice_ctx = "unit";
    assert_int_equal(nv_run_work_dir(&p, NULL, "unit", err, sizeof err), 0);
    char bindir[NV_RUN_PATH_MAX + 16], fake[NV_RUN_PATH_MAX + 32], probe[NV_RUN_PATH_MAX + 32];
    snprintf(bindir, sizeof bindir, "%s/bin", p.work_dir);
    assert_int_equal(mkdir(bindir, 0755), 0);
    snprintf(fake, sizeof fake, "%s/srun", bindir);
    write_script(fake, "#!/bin/sh\nwhile case $1 in --*) true;; *) false;; esac; do shift; done\n"
                       "exec \"$@\"\n");
    const char *old = getenv("PATH");
    char *saved = strdup(old ? old : "/usr/bin:/bin");
    char path[2 * NV_RUN_PATH_MAX];
    snprintf(path, sizeof path, "%s:%s", bindir, saved);
    setenv("PATH", path, 1);
    char once[NV_RUN_PATH_MAX + 32], script[3 * NV_RUN_PATH_MAX];
    snprintf(once, sizeof once, "%s/once", p.work_dir);

    /* killed by a signal the first time: made again, and the second
     * attempt's runtime counts */
    snprintf(
        script, sizeof script,
        "if [ -e %s ]; then echo runtime_s=1.5; else touch %s; echo boom >&2; kill -SEGV $$; fi",
        once, once);
    const char *crash_once[] = {"/bin/sh", "-c", script};
    assert_int_equal(
        nv_run_plan_option(&p, NV_OPT_RUNTIME_KEY, "runtime_s", &keep, err, sizeof err), 0);
    double t = -1;
    n_notices = 0;
    assert_int_equal(nv_run_command(&p, crash_once, 3, "cmd", 10, &t, err, sizeof err), 0);
    assert_true(t == 1.5);
    assert_int_equal(n_notices, 1);
    assert_non_null(strstr(notices[0],
                           "cmd crashed (killed by signal 11): boom; launching it again "
                           "(attempt 2 of 2)"));
    /* a launcher's exit 139 (a rank killed by SIGSEGV) is a crash too; the
     * last attempt's failure is the error */
    const char *srun_139[] = {"/bin/sh", "-c", "echo rank died >&2; exit 139"};
    n_notices = 0;
    assert_int_equal(nv_run_command(&p, srun_139, 3, "cmd", 10, &t, err, sizeof err), -1);
    assert_int_equal(n_notices, 1);
    assert_non_null(strstr(err, "cmd failed (exit 139): rank died"));
    /* failing by itself (exit 1..128) is not a crash */
    const char *fails[] = {"/bin/sh", "-c", "echo bad input >&2; exit 3"};
    n_notices = 0;
    assert_int_equal(nv_run_command(&p, fails, 3, "cmd", 10, &t, err, sizeof err), -1);
    assert_int_equal(n_notices, 0);
    assert_non_null(strstr(err, "cmd failed (exit 3): bad input"));
    /* --launch-attempts 1: a crash is the error at once */
    assert_int_equal(nv_run_plan_option(&p, NV_OPT_LAUNCH_ATTEMPTS, "1", &keep, err, sizeof err),
                     0);
    unlink(once);
    n_notices = 0;
    assert_int_equal(nv_run_command(&p, crash_once, 3, "cmd", 10, &t, err, sizeof err), -1);
    assert_int_equal(n_notices, 0);
    assert_non_null(strstr(err, "cmd failed (killed by signal 11)"));

    /* a probe that crashed before it announced: made again; stopped by its
     * stop signal, it writes its output */
    assert_int_equal(nv_run_plan_option(&p, NV_OPT_LAUNCH_ATTEMPTS, "3", &keep, err, sizeof err),
                     0);
    snprintf(probe, sizeof probe, "%s/fakeprobe", bindir);
    unlink(once);
    snprintf(script, sizeof script,
             "#!/bin/sh\nif [ ! -e %s ]; then touch %s; kill -SEGV $$; fi\n"
             "trap 'echo done-output; exit 0' USR1 TERM\n"
             "echo 'netvar: fakeprobe: started: 1 rank' >&2\n"
             "while :; do sleep 0.05; done\n",
             once, once);
    write_script(probe, script);
    nv_child c;
    n_notices = 0;
    assert_int_equal(nv_probe_start(&c, &p, probe, "probe-1", NULL, 0, err, sizeof err), 0);
    assert_int_equal(n_notices, 1);
    assert_non_null(strstr(notices[0], "probe-1 crashed before it started measuring (killed by "
                                       "signal 11)"));
    assert_non_null(strstr(notices[0], "(attempt 2 of 3)"));
    size_t len = 0;
    char *out = nv_probe_finish(&c, &p, 1, 0, &len, err, sizeof err);
    assert_non_null(out);
    assert_non_null(strstr(out, "done-output"));
    free(out);
    /* a probe that ends by itself before it announces is not made again */
    write_script(probe, "#!/bin/sh\necho 'fakeprobe: bad option' >&2\nexit 2\n");
    n_notices = 0;
    assert_int_equal(nv_probe_start(&c, &p, probe, "probe-2", NULL, 0, err, sizeof err), -1);
    assert_int_equal(n_notices, 0);
    assert_non_null(strstr(err, "probe-2 ended before it started measuring (exit 2): fakeprobe: "
                                "bad option"));
    /* one that crashes every time: each attempt told, then the error */
    write_script(probe, "#!/bin/sh\nkill -SEGV $$\n");
    n_notices = 0;
    assert_int_equal(nv_probe_start(&c, &p, probe, "probe-3", NULL, 0, err, sizeof err), -1);
    assert_int_equal(n_notices, 2);
    assert_non_null(strstr(notices[1], "(attempt 3 of 3)"));
    assert_non_null(strstr(err, "probe-3 ended before it started measuring (killed by signal 11, "
                                "the last of its attempts)"));
    assert_null(strchr(err, '\n'));

    setenv("PATH", saved, 1);
    free(saved);
    unlink(once);
    unlink(probe);
    unlink(fake);
    rmdir(bindir);
    nv_run_work_dir_cleanup(&p, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(impactb_samples_give_a_utilization),
        cmocka_unit_test(model_is_loaded_if_any),
        cmocka_unit_test(runtime_key_reads_the_printed_runtime),
        cmocka_unit_test(a_crashed_launch_is_made_again),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
