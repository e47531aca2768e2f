/* test_probe_run.c - probe runs and the command under test (lib/runner/
 * probe_run.h): --runtime-key reads the runtime the command prints, and
 * nv_run_command through a stand-in srun; the model helpers (run_model.h):
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

/* --runtime-key: the runtime the command prints, not its wall time. */
static void runtime_key_reads_the_printed_runtime(void **state)
{
    (void)state;
    double d = -1;
    assert_int_equal(nv_output_seconds("proxy=cg ranks=2 runtime_s=12.5 size=3\n", "runtime_s", &d), 0);
    assert_true(d == 12.5);
    /* the last one wins; a launcher prefix "0: " is fine */
    assert_int_equal(nv_output_seconds("runtime_s=1\n0: runtime_s=2.25\n", "runtime_s", &d), 0);
    assert_true(d == 2.25);
    /* not a word start, no '=', not a number, negative, trailing junk: none */
    const char *none[] = {"xruntime_s=3", "runtime_s 3", "runtime_s=abc", "runtime_s=-1",
                          "runtime_s=3s", "runtime_s=nan", "runtime_s=", "", "runtime_sx=4"};
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
    FILE *f = fopen(fake, "w");
    assert_non_null(f);
    fputs("#!/bin/sh\nwhile case $1 in --*) true;; *) false;; esac; do shift; done\nexec \"$@\"\n", f);
    fclose(f);
    assert_int_equal(chmod(fake, 0755), 0);
    const char *old = getenv("PATH");
    char *saved = strdup(old ? old : "/usr/bin:/bin");
    char path[2 * NV_RUN_PATH_MAX];
    snprintf(path, sizeof path, "%s:%s", bindir, saved);
    setenv("PATH", path, 1);
    double t = -1;
    const char *prints[] = {"/bin/sh", "-c", "echo proxy=x runtime_s=0.75 size=1"};
    assert_int_equal(nv_run_command(&p, prints, 3, "wall", 10, &t, err, sizeof err), 0);
    assert_true(t >= 0 && t != 0.75); /* wall time without the key */
    assert_int_equal(nv_run_plan_option(&p, NV_OPT_RUNTIME_KEY, "runtime_s", &keep, err, sizeof err), 0);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(impactb_samples_give_a_utilization),
        cmocka_unit_test(model_is_loaded_if_any),
        cmocka_unit_test(runtime_key_reads_the_printed_runtime),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
