/* test_train_state.c - incremental training: a retrain from the state file
 * reads only new records and writes the model a full read writes; pruned
 * records live on in the state until they leave the window; a corrupt
 * record is read once; and a state file that is damaged, of another spool
 * or calibration, or a link, is refused with the reason (the caller then
 * reads every record). */
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

#include "model_builder.h"
#include "nv_test.h"
#include "train_history.h"
#include "train_spool.h"
#include "train_state.h"

static char root[256];

static int setup(void **state)
{
    (void)state;
    assert_int_equal(nv_test_tmpdir(root, sizeof root, "train-state"), 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    assert_int_equal(nv_test_rmtree(root), 0);
    return 0;
}

static void quiet_log(void *ctx, const char *line)
{
    (void)ctx;
    (void)line;
}

/* as `netvar train` does it: state in, scan, window, state out, model */
static nv_train_stats train(const char *spool, const char *state, double window_s, const char *out)
{
    char err[300];
    nv_train_opts o;
    nv_train_opts_default(&o);
    nv_train_set s;
    nv_train_set_init(&s);
    if (state) {
        int lr = nv_train_state_load(state, spool, 0, o.max_jobs, &s, err, sizeof err);
        if (lr < 0)
            fail_msg("state refused: %s", err);
    }
    assert_int_equal(nv_train_scan_spool(spool, 0, &o, &s, quiet_log, NULL, err, sizeof err), 0);
    assert_int_equal(nv_train_set_window(&s, window_s), 0);
    if (state)
        assert_int_equal(nv_train_state_save(state, spool, 0, &s, err, sizeof err), 0);
    assert_int_equal(nv_train_analyze(&s, &o), 0);
    nv_model_builder *b = nv_train_build(&s, NULL, &o, NULL, err, sizeof err);
    if (!b)
        fail_msg("build: %s", err);
    assert_int_equal(nv_builder_save(b, out, err, sizeof err), 0);
    nv_builder_free(b);
    nv_train_stats st = s.stats;
    nv_train_set_free(&s);
    return st;
}

static void same_file(const char *a, const char *b)
{
    size_t na, nb;
    char *x = nv_test_slurp(a, &na), *y = nv_test_slurp(b, &nb);
    assert_true(na > 100);
    assert_int_equal(na, nb);
    assert_memory_equal(x, y, na);
    free(x);
    free(y);
}

static void differ(const char *a, const char *b)
{
    size_t na, nb;
    char *x = nv_test_slurp(a, &na), *y = nv_test_slurp(b, &nb);
    assert_true(na != nb || memcmp(x, y, na));
    free(x);
    free(y);
}

/* A alone on leaf0 x3, B alone x3, A beside B on leaf1, C elsewhere */
static void history(const char *spool)
{
    static const struct {
        long id;
        const char *app;
        const char *sw;
        double t0, rt, rho;
    } j[] = {
        {10, "appA", "leaf0", 0, 100, 0.30},      {11, "appA", "leaf0", 1000, 102, 0.30},
        {12, "appA", "leaf0", 2000, 104, 0.30},   {13, "appB", "leaf0", 3000, 200, 0.20},
        {14, "appB", "leaf0", 4000, 200, 0.20},   {15, "appB", "leaf0", 5000, 200, 0.20},
        {16, "appA", "leaf1", 6000, 112.2, 0.30}, {17, "appB", "leaf1", 5990, 205, 0.20},
        {18, "appC", "leaf2", 6000, 50, 0.10},    {19, "appA", "leaf0", 8000, 101, 0.30},
    };
    for (size_t i = 0; i < sizeof j / sizeof j[0]; i++)
        nv_test_job_record(spool, j[i].id, j[i].app, 4, j[i].sw, j[i].t0, j[i].rt, j[i].rho);
}

static void path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", root, name);
}

static void retrain_reads_only_new_records_and_writes_the_same_model(void **state)
{
    (void)state;
    char spool[300], st[300], full[300], inc[300];
    path(spool, sizeof spool, "s1");
    path(st, sizeof st, "s1.state");
    path(full, sizeof full, "full.json");
    path(inc, sizeof inc, "inc.json");
    history(spool);
    /* first run: no state yet, so every record is read; the model is a full read's */
    nv_train_stats a = train(spool, st, 0, inc);
    assert_int_equal(a.records, 10);
    assert_int_equal(a.from_state, 0);
    train(spool, NULL, 0, full);
    same_file(full, inc);
    /* a day later: three new records (a second pair of A beside B, one B) */
    nv_test_job_record(spool, 20, "appA", 4, "leaf1", 9000, 111, 0.30);
    nv_test_job_record(spool, 21, "appB", 4, "leaf1", 8990, 206, 0.20);
    nv_test_job_record(spool, 22, "appB", 2, "leaf3", 9500, 300, 0.20);
    nv_train_stats b = train(spool, st, 0, inc);
    assert_int_equal(b.records, 3); /* only the new ones were opened */
    assert_int_equal(b.from_state, 10);
    assert_int_equal(b.used, 13);
    train(spool, NULL, 0, full);
    same_file(full, inc);
    /* nothing new: nothing read, same model */
    nv_train_stats c = train(spool, st, 0, inc);
    assert_int_equal(c.records, 0);
    assert_int_equal(c.from_state, 13);
    same_file(full, inc);
}

static void rm_record(const char *spool, long id)
{
    char p[400];
    snprintf(p, sizeof p, "%s/jobs/%ld", spool, id);
    assert_int_equal(nv_test_rmtree(p), 0);
}

static void pruned_records_live_on_until_the_window_ends(void **state)
{
    (void)state;
    char spool[300], st[300], before[300], inc[300], full[300];
    path(spool, sizeof spool, "s2");
    path(st, sizeof st, "s2.state");
    path(before, sizeof before, "before.json");
    path(inc, sizeof inc, "inc2.json");
    path(full, sizeof full, "full2.json");
    history(spool);
    train(spool, st, 0, before);
    /* netvar prune takes the two oldest records (jobs 10 and 11) */
    rm_record(spool, 10);
    rm_record(spool, 11);
    nv_train_stats a = train(spool, st, 0, inc);
    assert_int_equal(a.records, 0);
    assert_int_equal(a.used, 10); /* their summaries are still there */
    same_file(before, inc);
    train(spool, NULL, 0, full); /* reading the pruned spool loses them */
    differ(before, full);
    /* a window that ends after them: they leave the state, as from a
     * full read with the same window (newest end 8101 s, cut 1150 s) */
    nv_train_stats b = train(spool, st, 6951, inc);
    assert_int_equal(b.out_of_window, 2);
    assert_int_equal(b.used, 8);
    train(spool, NULL, 6951, full);
    same_file(full, inc);
    /* and they do not come back */
    nv_train_stats c = train(spool, st, 0, inc);
    assert_int_equal(c.from_state, 8);
    same_file(full, inc);
}

static void a_corrupt_record_is_read_once(void **state)
{
    (void)state;
    char spool[300], st[300], out[300], p[400];
    path(spool, sizeof spool, "s3");
    path(st, sizeof st, "s3.state");
    path(out, sizeof out, "m3.json");
    history(spool);
    snprintf(p, sizeof p, "%s/jobs/30", spool);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/jobs/30/job.json", spool);
    FILE *f = fopen(p, "w");
    fputs("{\"schema\": \"netvar-job-record\", \"version\": 1, \"job_id\": \"x\"}", f);
    fclose(f);
    nv_test_job_record(spool, 31, NULL, 2, "leaf0", 100, 50, 0.1); /* no app */
    nv_train_stats a = train(spool, st, 0, out);
    assert_int_equal(a.records, 12);
    assert_int_equal(a.corrupt, 1);
    assert_int_equal(a.no_app, 1);
    nv_train_stats b = train(spool, st, 0, out);
    assert_int_equal(b.records, 0);
    assert_int_equal(b.corrupt, 0);
}

static size_t file_size(const char *p)
{
    struct stat sb;
    assert_int_equal(stat(p, &sb), 0);
    return (size_t)sb.st_size;
}

static void patch(const char *p, long off, const void *bytes, size_t n)
{
    FILE *f = fopen(p, "r+b");
    assert_non_null(f);
    fseek(f, off, SEEK_SET);
    fwrite(bytes, 1, n, f);
    fclose(f);
}

static void expect_refused(const char *st, const char *spool, double service_us, const char *want)
{
    char err[300] = "";
    nv_train_set s;
    nv_train_set_init(&s);
    assert_int_equal(nv_train_state_load(st, spool, service_us, 1000, &s, err, sizeof err), -1);
    if (!strstr(err, want))
        fail_msg("got \"%s\", want \"%s\"", err, want);
    assert_int_equal(s.n, 0); /* nothing half-loaded */
    assert_int_equal(s.n_known, 0);
    nv_train_set_free(&s);
}

static void copy(const char *from, const char *to)
{
    size_t n;
    char *b = nv_test_slurp(from, &n);
    FILE *f = fopen(to, "wb");
    fwrite(b, 1, n, f);
    fclose(f);
    free(b);
}

static void a_bad_state_is_refused_with_the_reason(void **state)
{
    (void)state;
    char spool[300], st[300], out[300], bad[300], link[300];
    path(spool, sizeof spool, "s4");
    path(st, sizeof st, "s4.state");
    path(out, sizeof out, "m4.json");
    path(bad, sizeof bad, "bad.state");
    path(link, sizeof link, "link.state");
    history(spool);
    train(spool, st, 0, out);
    char err[300];
    nv_train_set s;
    nv_train_set_init(&s);
    /* absent: a first run, said by the return value only */
    assert_int_equal(nv_train_state_load(bad, spool, 0, 1000, &s, err, sizeof err), 1);
    nv_train_set_free(&s);

    expect_refused(st, "/elsewhere/spool", 0, "the state of spool");
    expect_refused(st, spool, 2.5, "service time of 0 us and this training uses 2.5 us");

    size_t n = file_size(st);
    copy(st, bad);
    assert_int_equal(truncate(bad, (off_t)n - 8), 0);
    expect_refused(bad, spool, 0, "do not add up");

    copy(st, bad);
    unsigned char flip = 0x5a;
    patch(bad, (long)n - 8, &flip, 1); /* the last id: 19 becomes 90, still in order */
    expect_refused(bad, spool, 0, "checksum");

    copy(st, bad);
    patch(bad, 0, "XXXX", 4);
    expect_refused(bad, spool, 0, "not a netvar training state");

    copy(st, bad);
    uint32_t v = 99;
    patch(bad, 8, &v, 4);
    expect_refused(bad, spool, 0, "state version 99");

    /* a summary whose app index points past the apps: refused by its
     * check, before the checksum would be */
    copy(st, bad);
    uint32_t app = 1000;
    /* header 88 bytes, the spool path and the keys "appA" "appB" "appC"
     * (15 bytes) each padded to 8 */
    long jobs_at = 88 + (long)((strlen(spool) + 7) & ~7u) + 16;
    patch(bad, jobs_at + 8, &app, 4);
    expect_refused(bad, spool, 0, "summary 0 (job");

    /* absurd but finite times or runtime (plausible.h): refused by the
     * same check, so a state never brings back what records may not */
    static const struct {
        long at;
        double v;
    } absurd[] = {{16, -1e308}, {24, 1e308}, {32, 1e308}, {32, 4e7}, {16, 4.2e9}};
    for (size_t i = 0; i < sizeof absurd / sizeof *absurd; i++) {
        copy(st, bad);
        patch(bad, jobs_at + absurd[i].at, &absurd[i].v, 8);
        expect_refused(bad, spool, 0, "summary 0 (job");
    }

    assert_int_equal(symlink(st, link), 0);
    expect_refused(link, spool, 0, "symbolic link");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(retrain_reads_only_new_records_and_writes_the_same_model),
        cmocka_unit_test(pruned_records_live_on_until_the_window_ends),
        cmocka_unit_test(a_corrupt_record_is_read_once),
        cmocka_unit_test(a_bad_state_is_refused_with_the_reason),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
