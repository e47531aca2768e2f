/* test_registry.c - the running-jobs registry read incrementally from
 * a temporary <spool>/running (files in the format spank writes): first
 * read, no-change refresh, added and removed files, corrupt files logged
 * once, names that are not job files, a vanished directory; then
 * nv_running_index_build against the jobsubmit fixture model (apps ranked
 * by utilization, max_apps, unknown apps, node lists).  And the writer:
 * what nv_registry_write writes, the reader reads back. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "model.h"
#include "registry.h"
#include "nv_test.h"

/* ------------------------------------------------------------ helpers */

static char dir[64];

static int make_dir(void **state)
{
    (void)state;
    return nv_test_tmpdir(dir, sizeof dir, "registry");
}

static int remove_dir(void **state)
{
    (void)state;
    return nv_test_rmtree(dir);
}

/* written like spank does: temp file in the same directory, then rename */
static void write_file(const char *name, const char *text)
{
    char tmp[256], path[256];
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp.XXXXXX", dir, name);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = mkstemp(tmp);
    assert_true(fd >= 0);
    size_t len = strlen(text);
    assert_int_equal(write(fd, text, len), (ssize_t)len);
    close(fd);
    assert_int_equal(rename(tmp, path), 0);
}

static void write_job_on(unsigned id, const char *app, const char *nodes_json,
                         const char *switches_json)
{
    char name[32], text[1024];
    snprintf(name, sizeof name, "%u.json", id);
    snprintf(text, sizeof text,
             "{\"schema\":\"netvar-running\",\"version\":1,\"job_id\":%u,\"uid\":0,\"app\":\"%s\","
             "\"mode\":\"counters\",\"start_unix_s\":%u.5,\"nodes\":%s,\"switches\":%s,"
             "\"groups\":[\"root\"]}",
             id, app, id, nodes_json, switches_json);
    write_file(name, text);
}

static void write_job(unsigned id, const char *app, const char *nodes_json)
{
    write_job_on(id, app, nodes_json, "[\"s1\"]");
}

static void remove_file(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_int_equal(unlink(path), 0);
}

/* The directory's mtime has a coarse clock: changes within one tick can
 * keep it. Set it to a fresh value so a refresh must notice the change. */
static void bump_mtime(void)
{
    static long fake = 1000000000;
    struct timespec ts[2] = {{0, UTIME_OMIT}, {fake++, 0}};
    assert_int_equal(utimensat(AT_FDCWD, dir, ts, 0), 0);
}

#define MAX_LOG 16
struct log {
    int n;
    char line[MAX_LOG][512];
};

static void capture(void *ctx, const char *line)
{
    struct log *l = ctx;
    if (l->n < MAX_LOG)
        snprintf(l->line[l->n], sizeof l->line[0], "%s", line);
    l->n++;
}

static const struct nv_running_job *find(const struct nv_registry *r, uint32_t id)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->jobs[i].jobid == id)
            return &r->jobs[i];
    return NULL;
}

/* ------------------------------------------------------------ registry */

static void first_refresh_reads_everything(void **state)
{
    (void)state;
    write_job(20, "amg", "[\"n3\"]");
    write_job(12, "fftw", "[\"n1\",\"n2\"]");
    write_job(13, "lulesh", "[]");
    struct nv_registry r;
    nv_registry_init(&r, dir);
    struct log log = {0};
    assert_int_equal(nv_registry_refresh(&r, capture, &log), 1);
    assert_int_equal(log.n, 0);
    assert_int_equal(r.n, 3);
    assert_int_equal(r.files_parsed, 3);
    assert_int_equal(r.bad_files, 0);
    /* sorted by job id */
    assert_int_equal(r.jobs[0].jobid, 12);
    assert_int_equal(r.jobs[1].jobid, 13);
    assert_int_equal(r.jobs[2].jobid, 20);
    const struct nv_running_job *j = &r.jobs[0];
    assert_string_equal(j->app, "fftw");
    assert_string_equal(j->nodes, "n1,n2");
    assert_string_equal(j->switches, "s1");
    assert_true(j->start_unix_s == 12.5);
    assert_string_equal(r.jobs[1].nodes, "");
    assert_string_equal(r.jobs[2].nodes, "n3");
    nv_registry_free(&r);
    assert_int_equal(r.n, 0);
    assert_null(r.jobs);
}

static void the_exact_spank_format(void **state)
{
    (void)state;
    write_file("12.json", "{\"schema\":\"netvar-running\",\"version\":1,\"job_id\":12,\"uid\":0,"
                          "\"app\":\"fftw\",\"mode\":\"counters\",\"start_unix_s\":1.0,"
                          "\"nodes\":[\"n1\",\"n2\"],\"switches\":[\"s1\"],\"groups\":[\"root\"]}");
    struct nv_registry r;
    nv_registry_init(&r, dir);
    assert_int_equal(nv_registry_refresh(&r, NULL, NULL), 1);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.jobs[0].jobid, 12);
    assert_string_equal(r.jobs[0].app, "fftw");
    assert_string_equal(r.jobs[0].nodes, "n1,n2");
    assert_string_equal(r.jobs[0].switches, "s1");
    assert_true(r.jobs[0].start_unix_s == 1.0);
    nv_registry_free(&r);
}

static void refresh_without_change_parses_nothing(void **state)
{
    (void)state;
    write_job(12, "fftw", "[\"n1\"]");
    write_job(13, "amg", "[\"n2\"]");
    bump_mtime();
    struct nv_registry r;
    nv_registry_init(&r, dir);
    assert_int_equal(nv_registry_refresh(&r, NULL, NULL), 1);
    assert_int_equal(r.files_parsed, 2);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(nv_registry_refresh(&r, NULL, NULL), 0);
        assert_int_equal(r.files_parsed, 2);
        assert_int_equal(r.n, 2);
    }
    /* a touched directory with the same files: re-listed, nothing re-parsed,
     * and the job set is reported unchanged */
    bump_mtime();
    assert_int_equal(nv_registry_refresh(&r, NULL, NULL), 0);
    assert_int_equal(r.files_parsed, 2);
    assert_int_equal(r.n, 2);
    nv_registry_free(&r);
}

static void added_and_removed_files_are_picked_up(void **state)
{
    (void)state;
    write_job(12, "fftw", "[\"n1\"]");
    write_job(13, "amg", "[\"n2\"]");
    write_job(20, "lulesh", "[\"n3\"]");
    bump_mtime();
    struct nv_registry r;
    nv_registry_init(&r, dir);
    assert_int_equal(nv_registry_refresh(&r, NULL, NULL), 1);
    assert_int_equal(r.files_parsed, 3);

    write_job(14, "amg", "[\"n4\",\"n5\"]");
    remove_file("13.json");
    bump_mtime();
    assert_int_equal(nv_registry_refresh(&r, NULL, NULL), 1);
    assert_int_equal(r.files_parsed, 4); /* only 14.json was read */
    assert_int_equal(r.n, 3);
    assert_non_null(find(&r, 12));
    assert_null(find(&r, 13));
    assert_string_equal(find(&r, 14)->nodes, "n4,n5");
    assert_non_null(find(&r, 20));
    assert_int_equal(r.jobs[1].jobid, 14);

    /* everything ends */
    remove_file("12.json");
    remove_file("14.json");
    remove_file("20.json");
    bump_mtime();
    assert_int_equal(nv_registry_refresh(&r, NULL, NULL), 1);
    assert_int_equal(r.n, 0);
    assert_int_equal(r.files_parsed, 4);
    assert_int_equal(nv_registry_refresh(&r, NULL, NULL), 0);
    nv_registry_free(&r);
}

static void a_kept_job_is_not_re_read_when_rewritten(void **state)
{
    (void)state;
    /* registry files are written once per job; a rewrite is not re-read */
    write_job(12, "fftw", "[\"n1\"]");
    struct nv_registry r;
    nv_registry_init(&r, dir);
    assert_int_equal(nv_registry_refresh(&r, NULL, NULL), 1);
    write_job(12, "amg", "[\"n9\"]");
    bump_mtime();
    assert_int_equal(nv_registry_refresh(&r, NULL, NULL), 0);
    assert_int_equal(r.files_parsed, 1);
    assert_string_equal(r.jobs[0].app, "fftw");
    nv_registry_free(&r);
}

static void corrupt_files_are_logged_once_and_counted(void **state)
{
    (void)state;
    write_job(12, "fftw", "[\"n1\"]");
    write_file("15.json", "{\"schema\":\"netvar-running\",\"job_id\":15,\"nodes\":[");
    write_file("16.json", "{\"schema\":\"something-else\",\"job_id\":16}");
    write_file("17.json", "[1,2,3]");
    bump_mtime();
    struct nv_registry r;
    nv_registry_init(&r, dir);
    struct log log = {0};
    errno = ENOENT; /* whatever errno held before must not hide a bad file */
    assert_int_equal(nv_registry_refresh(&r, capture, &log), 1);
    assert_int_equal(r.bad_files, 3);
    assert_int_equal(log.n, 3);
    char want[256];
    snprintf(want, sizeof want,
             "netvar: registry: %s/15.json: not valid JSON (truncated); ignoring that job", dir);
    assert_string_equal(log.line[0], want);
    snprintf(want, sizeof want,
             "netvar: registry: %s/16.json: schema is not netvar-running; ignoring that job", dir);
    assert_string_equal(log.line[1], want);
    snprintf(want, sizeof want,
             "netvar: registry: %s/17.json: not a JSON object; ignoring that job", dir);
    assert_string_equal(log.line[2], want);
    const struct nv_running_job *good = find(&r, 12);
    assert_non_null(good);
    assert_string_equal(good->app, "fftw");
    /* a corrupt file contributes no app and no nodes */
    for (size_t i = 0; i < r.n; i++)
        if (r.jobs[i].jobid != 12) {
            assert_string_equal(r.jobs[i].app, "");
            assert_string_equal(r.jobs[i].nodes, "");
        }

    /* later changes do not parse or log the corrupt files again */
    write_job(18, "amg", "[\"n8\"]");
    bump_mtime();
    assert_int_equal(nv_registry_refresh(&r, capture, &log), 1);
    assert_non_null(find(&r, 18));
    assert_int_equal(log.n, 3);
    assert_int_equal(r.bad_files, 3);
    assert_int_equal(r.files_parsed, 5);
    /* a corrupt file that goes away is forgotten */
    remove_file("15.json");
    bump_mtime();
    assert_int_equal(nv_registry_refresh(&r, capture, &log), 1);
    assert_null(find(&r, 15));
    assert_int_equal(log.n, 3);
    nv_registry_free(&r);
}

/* a FIFO or a symbolic link named like an entry must not block slurmctld's
 * reload thread (alarm() turns a hang into a failure), and is not read */
static void a_fifo_or_link_entry_is_skipped_at_once(void **state)
{
    (void)state;
    char path[256], target[256];
    write_job(12, "fftw", "[\"n1\"]");
    snprintf(path, sizeof path, "%s/13.json", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    snprintf(target, sizeof target, "%s/12.json", dir);
    snprintf(path, sizeof path, "%s/14.json", dir);
    assert_int_equal(symlink(target, path), 0);
    bump_mtime();
    struct nv_registry r;
    nv_registry_init(&r, dir);
    struct log log = {0};
    alarm(30);
    assert_int_equal(nv_registry_refresh(&r, capture, &log), 1);
    alarm(0);
    assert_int_equal(r.bad_files, 2);
    assert_non_null(strstr(log.line[0], "13.json: a FIFO"));
    assert_non_null(strstr(log.line[1], "14.json: a symbolic link"));
    assert_string_equal(find(&r, 12)->app, "fftw");
    assert_string_equal(find(&r, 14)->app, "");
    nv_registry_free(&r);
}

/* a dead first node never runs the epilog that removes the entry: it
 * expires at its end time, or when slurmctld no longer runs the job, and a
 * new job with the same id is read again */
static nv_model *fixture_model(void);

static void phantom_entries_expire(void **state)
{
    (void)state;
    write_file("20.json", "{\"schema\":\"netvar-running\",\"job_id\":20,\"app\":\"fftw\","
                          "\"start_unix_s\":1000,\"end_unix_s\":2000,\"nodes\":[\"n1\"]}");
    write_file("21.json", "{\"schema\":\"netvar-running\",\"job_id\":21,\"app\":\"amg\","
                          "\"start_unix_s\":1000,\"end_unix_s\":null,\"nodes\":[\"n2\"]}");
    write_file("22.json", "{\"schema\":\"netvar-running\",\"job_id\":22,\"app\":\"amg\","
                          "\"start_unix_s\":5000,\"nodes\":[\"n3\"]}");
    bump_mtime();
    struct nv_registry r;
    nv_registry_init(&r, dir);
    struct log log = {0};
    assert_int_equal(nv_registry_refresh(&r, capture, &log), 1);
    nv_model *m = fixture_model();
    /* before its end plus grace: nothing expires */
    assert_int_equal(nv_registry_expire(&r, 2050, 60, NULL, 0, 0, capture, &log), 0);
    /* past it: job 20 goes, with one line */
    assert_int_equal(nv_registry_expire(&r, 2061, 60, NULL, 0, 0, capture, &log), 1);
    assert_int_equal(log.n, 1);
    assert_non_null(strstr(log.line[0], "job 20 ended at its time limit"));
    assert_int_equal(nv_registry_expire(&r, 9999, 60, NULL, 0, 0, capture, &log), 0); /* once */
    /* slurmctld runs only 22 now (asked at 4000): 21 goes; 22 started after the
     * question, so it is kept whatever the answer said */
    uint32_t live[] = {7};
    assert_int_equal(nv_registry_expire(&r, 4001, 60, live, 1, 4000, capture, &log), 1);
    assert_non_null(strstr(log.line[1], "slurmctld no longer runs job 21"));
    struct nv_running_index *ix = nv_running_index_build(&r, m, 8);
    assert_non_null(ix);
    assert_int_equal(ix->njobs, 1);
    assert_int_equal(ix->napps_total, 1);
    assert_string_equal(ix->apps[0].nodes, "n3");
    nv_running_index_free(ix);
    /* a refresh without a change keeps them expired, without reading again */
    bump_mtime();
    uint64_t parsed = r.files_parsed;
    assert_int_equal(nv_registry_refresh(&r, capture, &log), 0);
    assert_int_equal(r.files_parsed, parsed);
    assert_true(find(&r, 20)->expired);
    /* a new job 20 starts (same id, a new file): read again, not expired */
    write_file("20.json", "{\"schema\":\"netvar-running\",\"job_id\":20,\"app\":\"fftw\","
                          "\"start_unix_s\":9000,\"nodes\":[\"n4\"]}");
    bump_mtime();
    assert_int_equal(nv_registry_refresh(&r, capture, &log), 1);
    assert_false(find(&r, 20)->expired);
    assert_string_equal(find(&r, 20)->nodes, "n4");
    assert_true(find(&r, 21)->expired);
    nv_registry_free(&r);
    nv_model_free(m);
}

static void names_that_are_not_job_files_are_ignored(void **state)
{
    (void)state;
    const char *body = "{\"schema\":\"netvar-running\",\"app\":\"fftw\",\"nodes\":[\"x\"]}";
    const char *strangers[] = {".12.json.tmp.AbC123",
                               "abc.json",
                               "012.json",
                               "0.json",
                               "12.json.tmp",
                               "12.JSON",
                               "12",
                               "12json",
                               "-12.json",
                               "+12.json",
                               " 12.json",
                               "12.json~",
                               "4294967295.json",
                               "99999999999999999999.json",
                               "1e3.json"};
    for (size_t i = 0; i < sizeof strangers / sizeof *strangers; i++)
        write_file(strangers[i], body);
    write_job(12, "fftw", "[\"n1\"]");
    char sub[128];
    snprintf(sub, sizeof sub, "%s/13.json.d", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    struct nv_registry r;
    nv_registry_init(&r, dir);
    struct log log = {0};
    assert_int_equal(nv_registry_refresh(&r, capture, &log), 1);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.jobs[0].jobid, 12);
    assert_int_equal(r.files_parsed, 1);
    assert_int_equal(r.bad_files, 0);
    assert_int_equal(log.n, 0);
    nv_registry_free(&r);
    rmdir(sub);
}

static void missing_vanished_and_unreadable_directories(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/running", dir);
    struct nv_registry r;
    nv_registry_init(&r, path);
    /* never existed: nothing running, no error */
    assert_int_equal(nv_registry_refresh(&r, NULL, NULL), 0);
    assert_int_equal(r.n, 0);
    assert_int_equal(mkdir(path, 0700), 0);
    char job[160];
    snprintf(job, sizeof job, "%s/31.json", path);
    assert_int_equal(
        nv_test_write_file(path, "31.json",
                           "{\"schema\":\"netvar-running\",\"app\":\"amg\",\"nodes\":[\"n1\"]}"),
        0);
    assert_int_equal(nv_registry_refresh(&r, NULL, NULL), 1);
    assert_int_equal(r.n, 1);
    /* the directory goes away: nobody is running any more */
    unlink(job);
    assert_int_equal(rmdir(path), 0);
    assert_int_equal(nv_registry_refresh(&r, NULL, NULL), 1);
    assert_int_equal(r.n, 0);
    assert_int_equal(nv_registry_refresh(&r, NULL, NULL), 0);
    nv_registry_free(&r);

    /* a path that is not a directory cannot be listed */
    snprintf(path, sizeof path, "%s/plain", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    nv_registry_init(&r, path);
    assert_int_equal(nv_registry_refresh(&r, NULL, NULL), -1);
    assert_int_equal(r.n, 0);
    nv_registry_free(&r);
}

static void odd_field_types_do_not_break_parsing(void **state)
{
    (void)state;
    /* app not a string, nodes not an array, non-string node entries, long names */
    char longname[100];
    memset(longname, 'L', 99);
    longname[99] = '\0';
    char text[512];
    snprintf(text, sizeof text,
             "{\"schema\":\"netvar-running\",\"app\":7,\"nodes\":[\"a\",5,null,\"%s\",\"b\"],"
             "\"switches\":\"s1\"}",
             longname);
    write_file("40.json", text);
    write_file("41.json", "{\"schema\":\"netvar-running\"}");
    struct nv_registry r;
    nv_registry_init(&r, dir);
    assert_int_equal(nv_registry_refresh(&r, NULL, NULL), 1);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.bad_files, 0);
    const struct nv_running_job *j = find(&r, 40);
    assert_string_equal(j->app, "");
    char want[128];
    snprintf(want, sizeof want, "a,%.64s,b", longname); /* names are cut at 64 */
    assert_string_equal(j->nodes, want);
    assert_string_equal(j->switches, "");
    j = find(&r, 41);
    assert_string_equal(j->nodes, "");
    assert_true(j->start_unix_s == 0.0);
    nv_registry_free(&r);
}

/* ------------------------------------------------------------ index */

static nv_model *fixture_model(void)
{
    const char *rel = "tests/fixtures/jobsubmit/model.json";
    char path[PATH_MAX + 64], err[512] = "";
    const char *root = getenv("ROOT");
    if (access(rel, R_OK) == 0) {
        snprintf(path, sizeof path, "%s", rel);
    } else if (root && *root) {
        snprintf(path, sizeof path, "%s/%s", root, rel);
    } else {
        /* the binary is <root>/<build>/tests/unit/<name> */
        char exe[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        assert_true(n > 0);
        exe[n] = '\0';
        for (int up = 0; up < 4; up++) {
            char *slash = strrchr(exe, '/');
            if (slash)
                *slash = '\0';
        }
        snprintf(path, sizeof path, "%s/%s", exe, rel);
    }
    nv_model *m = nv_model_load(path, err, sizeof err);
    if (!m)
        fail_msg("cannot load %s: %s", path, err);
    return m;
}

static struct nv_registry *fixture_registry(void)
{
    write_job(12, "fftw", "[\"n1\",\"n2\"]");
    write_job(13, "amg", "[\"n3\"]");
    write_job_on(14, "lulesh", "[\"n4\",\"n5\"]", "[\"s1\",\"s2\"]"); /* under two leaves */
    write_job(15, "amg", "[\"n6\"]");
    write_job(16, "gromacs", "[\"n7\"]"); /* not in the model */
    write_job(17, "", "[\"n9\"]");        /* no app key */
    write_job(18, "fftw", "[\"n8\"]");
    struct nv_registry *r = malloc(sizeof *r);
    assert_non_null(r);
    nv_registry_init(r, dir);
    assert_int_equal(nv_registry_refresh(r, NULL, NULL), 1);
    assert_int_equal(r->n, 7);
    return r;
}

static void index_ranks_apps_by_utilization(void **state)
{
    (void)state;
    nv_model *m = fixture_model();
    struct nv_registry *r = fixture_registry();
    struct nv_running_index *ix = nv_running_index_build(r, m, 10);
    assert_non_null(ix);
    assert_int_equal(ix->njobs, 7);
    assert_int_equal(ix->unknown_jobs, 2);
    assert_int_equal(ix->napps_total, 3);
    assert_int_equal(ix->napps, 3);
    /* lulesh's job spans two leaf switches and loads their uplinks; every
     * job of amg and fftw lies under one (local): they follow it, amg 0.6
     * before fftw 0.3, although amg's utilization is above lulesh's 0.45 */
    const char *order[] = {"lulesh", "amg", "fftw"};
    const double util[] = {0.45, 0.6, 0.3};
    const uint32_t njobs[] = {1, 2, 2}, first[] = {14, 13, 12};
    /* avoid's node lists: only jobs that may cross an uplink */
    const char *nodes[] = {"n4,n5", "", ""};
    const bool local[] = {false, true, true};
    for (int k = 0; k < 3; k++) {
        const struct nv_running_app *a = &ix->apps[k];
        assert_string_equal(a->key, order[k]);
        assert_int_equal(a->app, nv_model_app_index(m, order[k]));
        assert_true(fabs(a->utilization - util[k]) < 1e-12);
        assert_int_equal(a->njobs, njobs[k]);
        assert_int_equal(a->first_jobid, first[k]);
        assert_string_equal(a->nodes, nodes[k]);
        assert_false(a->nodes_cut);
        assert_int_equal(a->local, local[k]);
        assert_int_equal(a->jobs_local, local[k] ? njobs[k] : 0);
    }
    /* the leaf switches the widest job of each app spans, and that job */
    assert_int_equal(ix->apps[1].span_switches, 1);
    assert_int_equal(ix->apps[1].span_jobid, 13);
    assert_int_equal(ix->apps[0].span_switches, 2);
    assert_int_equal(ix->apps[0].span_jobid, 14);
    /* the leaves of the spanning jobs (s1, s2): a newcomer across s2 and
     * s3 meets them, one across s3 and s4 does not; a local app has none */
    nv_leaf_set s23 = {{0}}, s34 = {{0}};
    nv_leaf_set_add_list(&s23, "s2,s3");
    nv_leaf_set_add_list(&s34, "s3,s4");
    assert_true(nv_leaf_set_meets(&ix->apps[0].leaves, &s23));
    assert_false(nv_leaf_set_meets(&ix->apps[0].leaves, &s34));
    assert_false(nv_leaf_set_meets(&ix->apps[1].leaves, &s23));
    nv_running_index_free(ix);

    /* max_apps keeps those that cross an uplink, then the most utilizing */
    ix = nv_running_index_build(r, m, 2);
    assert_non_null(ix);
    assert_int_equal(ix->napps_total, 3);
    assert_int_equal(ix->napps, 2);
    assert_string_equal(ix->apps[0].key, "lulesh");
    assert_string_equal(ix->apps[1].key, "amg");
    assert_string_equal(ix->apps[0].nodes, "n4,n5");
    nv_running_index_free(ix);
    ix = nv_running_index_build(r, m, 0);
    assert_non_null(ix);
    assert_int_equal(ix->napps, 0);
    assert_int_equal(ix->napps_total, 3);
    nv_running_index_free(ix);

    /* a job of fftw whose leaf switch is unknown: fftw may cross an
     * uplink, so it is local no more, and ranks by utilization again */
    write_job_on(19, "fftw", "[\"n10\"]", "[]");
    assert_int_equal(nv_registry_refresh(r, NULL, NULL), 1);
    ix = nv_running_index_build(r, m, 10);
    assert_non_null(ix);
    assert_string_equal(ix->apps[0].key, "lulesh");
    assert_string_equal(ix->apps[1].key, "fftw");
    assert_string_equal(ix->apps[2].key, "amg");
    assert_false(ix->apps[1].local);
    assert_int_equal(ix->apps[1].jobs_local, 2);
    assert_int_equal(ix->apps[1].njobs, 3);
    /* its leaves are unknown: it meets any newcomer's */
    nv_leaf_set s9 = {{0}};
    nv_leaf_set_add_list(&s9, "s9");
    assert_true(nv_leaf_set_meets(&ix->apps[1].leaves, &s9));
    /* avoid would keep a newcomer off the unknown job's node, not off
     * those of fftw's jobs under one leaf */
    assert_string_equal(ix->apps[1].nodes, "n10");
    assert_true(ix->apps[2].local);
    nv_running_index_free(ix);
    remove_file("19.json");
    assert_int_equal(nv_registry_refresh(r, NULL, NULL), 1);

    /* without a model everything is unknown */
    ix = nv_running_index_build(r, NULL, 10);
    assert_non_null(ix);
    assert_int_equal(ix->njobs, 7);
    assert_int_equal(ix->unknown_jobs, 7);
    assert_int_equal(ix->napps, 0);
    nv_running_index_free(ix);
    nv_running_index_free(NULL);

    nv_registry_free(r);
    free(r);
    nv_model_free(m);
}

static void index_of_an_empty_registry(void **state)
{
    (void)state;
    nv_model *m = fixture_model();
    struct nv_registry r;
    nv_registry_init(&r, dir);
    assert_int_equal(nv_registry_refresh(&r, NULL, NULL), 1);
    struct nv_running_index *ix = nv_running_index_build(&r, m, 32);
    assert_non_null(ix);
    assert_int_equal(ix->njobs, 0);
    assert_int_equal(ix->unknown_jobs, 0);
    assert_int_equal(ix->napps, 0);
    nv_running_index_free(ix);
    nv_registry_free(&r);
    nv_model_free(m);
}

static void index_node_lists_are_bounded(void **state)
{
    (void)state;
    nv_model *m = fixture_model();
    /* job 50: 1000 nodes of 8 characters = 8999 bytes joined, over the 8192 cap */
    size_t cap = 1000 * 12 + 8;
    char *nodes = malloc(cap);
    assert_non_null(nodes);
    size_t len = 0;
    nodes[len++] = '[';
    for (int i = 0; i < 1000; i++)
        len += (size_t)snprintf(nodes + len, cap - len, "%s\"node%04d\"", i ? "," : "", i);
    nodes[len++] = ']';
    nodes[len] = '\0';
    char name[32], *text = malloc(len + 256);
    assert_non_null(text);
    snprintf(text, len + 256, "{\"schema\":\"netvar-running\",\"app\":\"amg\",\"nodes\":%s}",
             nodes);
    snprintf(name, sizeof name, "50.json");
    write_file(name, text);
    write_job_on(51, "amg", "[\"small1\",\"small2\"]", "[\"s1\",\"s2\"]");
    struct nv_registry r;
    nv_registry_init(&r, dir);
    assert_int_equal(nv_registry_refresh(&r, NULL, NULL), 1);
    assert_int_equal(strlen(find(&r, 50)->nodes), 1000 * 9 - 1);
    struct nv_running_index *ix = nv_running_index_build(&r, m, 32);
    assert_non_null(ix);
    assert_int_equal(ix->napps, 1);
    assert_true(ix->apps[0].nodes_cut);
    /* the list that did not fit is left out whole; the one that fits is kept */
    assert_string_equal(ix->apps[0].nodes, "small1,small2");
    assert_true(strlen(ix->apps[0].nodes) < NV_REG_NODES_MAX);
    nv_running_index_free(ix);
    nv_registry_free(&r);
    free(nodes);
    free(text);
    nv_model_free(m);
}

/* ------------------------------------------------------------ writer */

static void the_writer_and_the_reader_agree(void **state)
{
    (void)state;
    char spool[128], running[160], err[256];
    snprintf(spool, sizeof spool, "%s/spool", dir);
    const char *nodes[] = {"n1", "n2", "n3"};
    const char *sw[] = {"s1", NULL, "s1"}, *grp[] = {"", "g0", "g1"};
    struct nv_running_entry e = {.job_id = 77,
                                 .uid = 1000,
                                 .app = "lulesh",
                                 .mode = "counters",
                                 .start_unix_s = 1700000000.25,
                                 .end_unix_s = 1700003600,
                                 .nodes = nodes,
                                 .nnodes = 3,
                                 .node_switch = sw,
                                 .node_group = grp};
    /* the spool and its running/ do not exist yet */
    assert_int_equal(nv_registry_write(spool, &e, err, sizeof err), 0);
    e.job_id = 78;
    e.app = NULL;
    e.node_switch = e.node_group = NULL;
    assert_int_equal(nv_registry_write(spool, &e, err, sizeof err), 0);
    assert_int_equal(nv_registry_dir(spool, running, sizeof running), 0);
    char path[200];
    snprintf(path, sizeof path, "%s/77.json", running);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    /* uid, app and nodes: not for everyone (PrivateData=jobs); the
     * group of running/ (slurmctld's user's) reads it */
    assert_int_equal(st.st_mode & 0777, 0640);
    struct stat dst;
    assert_int_equal(stat(running, &dst), 0);
    assert_int_equal(st.st_gid, dst.st_gid);
    assert_int_equal(dst.st_mode & 0777, 0750);

    struct nv_registry r;
    nv_registry_init(&r, running);
    struct log log = {0};
    assert_int_equal(nv_registry_refresh(&r, capture, &log), 1);
    assert_int_equal(log.n, 0);
    assert_int_equal(r.n, 2);
    const struct nv_running_job *j = find(&r, 77);
    assert_non_null(j);
    assert_string_equal(j->app, "lulesh");
    assert_string_equal(j->nodes, "n1,n2,n3");
    assert_string_equal(j->switches, "s1"); /* each switch once, unknowns left out */
    assert_true(j->start_unix_s == 1700000000.25);
    assert_true(j->end_unix_s == 1700003600);
    j = find(&r, 78);
    assert_non_null(j);
    assert_string_equal(j->app, "");
    assert_string_equal(j->switches, "");
    nv_registry_free(&r);

    assert_int_equal(nv_registry_remove(spool, 77), 0);
    assert_int_not_equal(access(path, F_OK), 0);
    assert_int_equal(nv_registry_remove(spool, 77), 0); /* already gone */
    assert_int_equal(nv_registry_dir(spool, running, 8), -1);
}

/* an entry written by a newer netvar is refused, not misread */
static void a_newer_version_is_refused(void **state)
{
    (void)state;
    write_file("5.json", "{\"schema\":\"netvar-running\",\"version\":2,\"job_id\":5,"
                         "\"app\":\"amg\",\"nodes\":[\"n1\"]}");
    struct nv_registry r;
    nv_registry_init(&r, dir);
    struct log log = {0};
    assert_int_equal(nv_registry_refresh(&r, capture, &log), 1);
    assert_int_equal(r.bad_files, 1);
    assert_int_equal(log.n, 1);
    assert_non_null(strstr(log.line[0], "version 2 is newer"));
    assert_string_equal(find(&r, 5)->app, "");
    nv_registry_free(&r);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, make_dir, remove_dir)
    const struct CMUnitTest tests[] = {
        T(first_refresh_reads_everything),
        T(the_exact_spank_format),
        T(refresh_without_change_parses_nothing),
        T(added_and_removed_files_are_picked_up),
        T(a_kept_job_is_not_re_read_when_rewritten),
        T(corrupt_files_are_logged_once_and_counted),
        T(a_fifo_or_link_entry_is_skipped_at_once),
        T(phantom_entries_expire),
        T(names_that_are_not_job_files_are_ignored),
        T(missing_vanished_and_unreadable_directories),
        T(odd_field_types_do_not_break_parsing),
        T(index_ranks_apps_by_utilization),
        T(index_of_an_empty_registry),
        T(index_node_lists_are_bounded),
        T(the_writer_and_the_reader_agree),
        T(a_newer_version_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
