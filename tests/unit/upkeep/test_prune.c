/* test_prune.c - nv_prune_spool on a temporary spool: old job directories
 * go with everything in them (profiles, nested dirs), young ones and
 * running ones stay, names that are not job ids, files, symbolic links and
 * directories not owned by root are left alone, a link inside a job
 * directory is removed without its target being touched, a dry run
 * removes nothing, and leftovers of an interrupted prune are finished. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "nv_test.h"
#include "prune.h"

static char dir[64];
static const time_t NOW = 2000000000;

static int setup(void **state)
{
    (void)state;
    return nv_test_tmpdir(dir, sizeof dir, "prune");
}

static int teardown(void **state)
{
    (void)state;
    return nv_test_rmtree(dir);
}

static void path(char *buf, size_t n, const char *rel)
{
    snprintf(buf, n, "%s/%s", dir, rel);
}

static void mkdir_rel(const char *rel)
{
    char p[256];
    path(p, sizeof p, rel);
    assert_int_equal(mkdir(p, 0750), 0);
}

static void file_rel(const char *rel, const char *text)
{
    char p[256];
    path(p, sizeof p, rel);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void age_rel(const char *rel, double days)
{
    char p[256];
    path(p, sizeof p, rel);
    struct timeval tv[2] = {{.tv_sec = NOW - (time_t)(days * 86400)},
                            {.tv_sec = NOW - (time_t)(days * 86400)}};
    assert_int_equal(lutimes(p, tv), 0);
}

static int exists(const char *rel)
{
    char p[256];
    struct stat sb;
    path(p, sizeof p, rel);
    return lstat(p, &sb) == 0;
}

/* a job directory as the epilog leaves it, aged by days */
static void job(const char *id, double days)
{
    char rel[128];
    snprintf(rel, sizeof rel, "spool/jobs/%s", id);
    mkdir_rel(rel);
    snprintf(rel, sizeof rel, "spool/jobs/%s/node-n1.json", id);
    file_rel(rel, "{\"schema\":\"netvar-node-record\"}\n");
    snprintf(rel, sizeof rel, "spool/jobs/%s/job.json", id);
    file_rel(rel, "{\"schema\":\"netvar-job-record\"}\n");
    snprintf(rel, sizeof rel, "spool/jobs/%s/profiles", id);
    mkdir_rel(rel);
    snprintf(rel, sizeof rel, "spool/jobs/%s/profiles/sub", id);
    mkdir_rel(rel);
    snprintf(rel, sizeof rel, "spool/jobs/%s/profiles/sub/p.json", id);
    file_rel(rel, "{}");
    snprintf(rel, sizeof rel, "spool/jobs/%s", id);
    age_rel(rel, days);
}

static void spool(void)
{
    mkdir_rel("spool");
    mkdir_rel("spool/jobs");
    mkdir_rel("spool/running");
}

static void test_old_go_young_and_running_stay(void **state)
{
    (void)state;
    spool();
    job("100", 400);
    job("101", 10);
    job("102", 400);
    file_rel("spool/running/102.json", "{}");
    nv_prune_opts o = {.older_than_s = 365 * 86400.0, .now = NOW};
    nv_prune_stats st;
    char err[256];
    assert_int_equal(nv_prune_spool(NULL, &o, &st, err, sizeof err), -1);
    assert_int_equal(nv_prune_spool(dir, &o, &st, err, sizeof err), -1); /* no jobs/ there */
    char sp[128];
    path(sp, sizeof sp, "spool");
    assert_int_equal(nv_prune_spool(sp, &o, &st, err, sizeof err), 0);
    assert_int_equal(st.examined, 3);
    assert_int_equal(st.removed, 1);
    assert_int_equal(st.kept_recent, 1);
    assert_int_equal(st.kept_running, 1);
    assert_int_equal(st.failed, 0);
    assert_int_equal(st.files, 3);
    assert_true(st.bytes > 60);
    assert_false(exists("spool/jobs/100"));
    assert_true(exists("spool/jobs/101/job.json"));
    assert_true(exists("spool/jobs/102/job.json"));
    assert_true(exists("spool/.pruning"));
    assert_false(exists("spool/.pruning/100"));
}

static void test_dry_run_removes_nothing(void **state)
{
    (void)state;
    spool();
    job("7", 30);
    char sp[128];
    path(sp, sizeof sp, "spool");
    nv_prune_opts o = {.older_than_s = 1 * 86400.0, .now = NOW, .dry_run = 1};
    nv_prune_stats st;
    assert_int_equal(nv_prune_spool(sp, &o, &st, NULL, 0), 0);
    assert_int_equal(st.removed, 1);
    assert_true(exists("spool/jobs/7/job.json"));
    assert_false(exists("spool/.pruning"));
}

static void test_strangers_left_alone(void **state)
{
    (void)state;
    spool();
    /* a directory outside the spool that links point at */
    mkdir_rel("outside");
    file_rel("outside/precious", "keep me");
    age_rel("outside", 900);
    char target[256], link[256];
    path(target, sizeof target, "outside");
    path(link, sizeof link, "spool/jobs/200");
    assert_int_equal(symlink(target, link), 0); /* a job id that is a link */
    age_rel("spool/jobs/200", 900);
    mkdir_rel("spool/jobs/notajob");
    age_rel("spool/jobs/notajob", 900);
    mkdir_rel("spool/jobs/0042");
    age_rel("spool/jobs/0042", 900);
    file_rel("spool/jobs/201", "a file, not a directory");
    age_rel("spool/jobs/201", 900);
    mkdir_rel("spool/jobs/99999999999"); /* beyond a 32-bit job id */
    age_rel("spool/jobs/99999999999", 900);
    job("202", 900);
    char p[256];
    path(p, sizeof p, "spool/jobs/202");
    assert_int_equal(chown(p, 65534, 65534), 0); /* not root's */
    job("203", 900);
    /* the user's profiles dir holds a link to the outside: removed, not followed */
    path(link, sizeof link, "spool/jobs/203/profiles/evil");
    assert_int_equal(symlink(target, link), 0);
    age_rel("spool/jobs/203", 900);

    char sp[128];
    path(sp, sizeof sp, "spool");
    nv_prune_opts o = {.older_than_s = 1 * 86400.0, .now = NOW};
    nv_prune_stats st;
    assert_int_equal(nv_prune_spool(sp, &o, &st, NULL, 0), 0);
    assert_int_equal(st.removed, 1);
    assert_int_equal(st.skipped, 6);
    assert_false(exists("spool/jobs/203"));
    assert_true(exists("spool/jobs/200"));
    assert_true(exists("spool/jobs/201"));
    assert_true(exists("spool/jobs/202/job.json"));
    assert_true(exists("spool/jobs/notajob"));
    assert_true(exists("spool/jobs/0042"));
    assert_true(exists("outside/precious"));
}

static void test_interrupted_prune_is_finished(void **state)
{
    (void)state;
    spool();
    mkdir_rel("spool/.pruning");
    assert_int_equal(chmod(dir, 0700), 0);
    char p[256];
    path(p, sizeof p, "spool/.pruning");
    assert_int_equal(chmod(p, 0700), 0);
    mkdir_rel("spool/.pruning/55");
    file_rel("spool/.pruning/55/job.json", "{}");
    char sp[128];
    path(sp, sizeof sp, "spool");
    nv_prune_opts o = {.older_than_s = 1 * 86400.0, .now = NOW};
    nv_prune_stats st;
    assert_int_equal(nv_prune_spool(sp, &o, &st, NULL, 0), 0);
    assert_false(exists("spool/.pruning/55"));
    assert_int_equal(st.files, 1);
    /* a trash directory others may write to is refused */
    assert_int_equal(chmod(p, 0777), 0);
    char err[256] = "";
    assert_int_equal(nv_prune_spool(sp, &o, &st, err, sizeof err), -1);
    assert_non_null(strstr(err, ".pruning"));
}

int main(void)
{
    if (geteuid() != 0) {
        fprintf(stderr, "test_prune: needs root (records are root-owned); skipped\n");
        return 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_old_go_young_and_running_stay, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dry_run_removes_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_strangers_left_alone, setup, teardown),
        cmocka_unit_test_setup_teardown(test_interrupted_prune_is_finished, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
