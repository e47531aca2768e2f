/* test_node_record.c - the node files and the job record, each read back by
 * the reader of its own module: a start file with its snapshot, periodic
 * samples, node records merged by nv_job_collect, and the job record as
 * training and the Variability Estimate read it (schema, version, the
 * metrics section); files of another schema or a newer version refused. */
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

#include "job_record.h"
#include "json_file.h"
#include "node_record.h"
#include "nv_json.h"
#include "nv_test.h"

static char dir[64];

static int make_dir(void **state)
{
    (void)state;
    return nv_test_tmpdir(dir, sizeof dir, "node-record");
}

static int remove_dir(void **state)
{
    (void)state;
    return nv_test_rmtree(dir);
}

/* one netdev port; bytes and packets out grow with k */
static void snapshot(nv_ctr_snapshot *s, uint64_t t_ns, uint64_t k)
{
    memset(s, 0, sizeof *s);
    snprintf(s->backend, sizeof s->backend, "netdev");
    s->t_ns = t_ns;
    s->nports = 1;
    snprintf(s->port[0].name, sizeof s->port[0].name, "eth0");
    s->port[0].kind = "netdev";
    const nv_ctr_field f[2] = {NV_CTR_BYTES_OUT, NV_CTR_PACKETS_OUT};
    const char *unit[2] = {"bytes", "packets"};
    for (int i = 0; i < 2; i++) {
        nv_ctr_value *v = &s->port[0].f[f[i]];
        v->raw = (i ? 10 : 1000) * k;
        v->scale = 1;
        v->unit = unit[i];
        v->valid = true;
    }
}

static void path_of(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", dir, name);
}

static void start_file_round_trip(void **state)
{
    (void)state;
    char path[128], err[256];
    nv_ctr_snapshot snap, back;
    snapshot(&snap, 5000000000ull, 7);
    struct nv_node_start st = {
        .id = {.job_id = 42,
               .node = "n1",
               .mode = "counters",
               .app = "lulesh",
               .blade = "b1",
               .blade_reader = true},
        .start_unix_s = 1700000000.5,
        .interval_s = 2,
        .annotation = "netvar:{\"action\":\"none\"}",
        .counter_source = "netdev",
        .snapshot = &snap,
    };
    path_of(path, sizeof path, ".start-n1.json");
    assert_int_equal(nv_node_start_write(path, &st, err, sizeof err), 0);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);
    struct nv_node_start_info info;
    assert_int_equal(nv_node_start_read(path, &info, &back, err, sizeof err), 0);
    assert_true(info.start_unix_s == 1700000000.5);
    assert_int_equal(info.interval_s, 2);
    assert_true(info.has_snapshot);
    assert_string_equal(info.snapshot_error, "");
    assert_string_equal(info.annotation, "netvar:{\"action\":\"none\"}");
    assert_string_equal(back.backend, "netdev");
    assert_int_equal(back.port[0].f[NV_CTR_BYTES_OUT].raw, 7000);
    /* without a snapshot: only the error is carried */
    st.snapshot = NULL;
    st.counter_source = "none";
    st.counter_error = "no counter backend available";
    assert_int_equal(nv_node_start_write(path, &st, err, sizeof err), 0);
    assert_int_equal(nv_node_start_read(path, &info, NULL, err, sizeof err), 0);
    assert_false(info.has_snapshot);
    assert_string_equal(info.counter_error, "no counter backend available");
    /* a node record is not a start file */
    struct nv_node_record rec = {.id = st.id, .start_unix_s = NAN, .end_unix_s = 1};
    assert_int_equal(nv_node_record_write(path, (gid_t)-1, &rec, err, sizeof err), 0);
    assert_int_equal(nv_node_start_read(path, &info, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "schema is not " NV_NODE_START_SCHEMA));
}

static int window(void *arg, size_t i, double *end, nv_ctr_delta *d)
{
    (void)arg;
    if (i == 1)
        return -1; /* left out */
    nv_ctr_snapshot a, b;
    char err[128];
    snapshot(&a, 1000000000ull * i, i);
    snapshot(&b, 1000000000ull * (i + 1), i + 2);
    *end = 100.0 + (double)i;
    return nv_ctr_delta_compute(&a, &b, d, err, sizeof err);
}

static void samples_and_node_records_make_a_job_record(void **state)
{
    (void)state;
    char path[128], err[256];
    path_of(path, sizeof path, ".samples-n1.json");
    assert_int_equal(nv_node_samples_write(path, 1, 3, 3, window, NULL, err, sizeof err), 0);
    json_object *samples = nv_node_samples_read(path, err, sizeof err);
    assert_non_null(samples);
    assert_int_equal(json_object_array_length(nv_json_get(samples, "windows", json_type_array)), 2);
    assert_true(nv_json_num(samples, "dropped") == 3);

    nv_ctr_snapshot a, b;
    nv_ctr_delta d;
    snapshot(&a, 1000000000ull, 1);
    snapshot(&b, 3000000000ull, 5);
    assert_int_equal(nv_ctr_delta_compute(&a, &b, &d, err, sizeof err), 0);
    double rates[NV_CTR_MAX_PORTS] = {1.25e9};
    const char *nodes[2] = {"n1", "n2"};
    for (int k = 0; k < 2; k++) {
        struct nv_node_record rec = {
            .id = {.job_id = 42,
                   .node = nodes[k],
                   .mode = "counters",
                   .app = "lulesh",
                   .blade = k ? "b2" : "b1",
                   .sw = "s1",
                   .blade_reader = true},
            .start_unix_s = 100 + k,
            .end_unix_s = 110 + k,
            .delta = &d,
            .line_rate_Bps = rates,
            .counter_source = "netdev",
            .samples = k ? NULL : samples,
        };
        char name[32];
        snprintf(name, sizeof name, "node-%s.json", nodes[k]);
        path_of(path, sizeof path, name);
        assert_int_equal(nv_node_record_write(path, (gid_t)-1, &rec, err, sizeof err), 0);
        struct stat sb;
        assert_int_equal(stat(path, &sb), 0);
        assert_int_equal(sb.st_mode & 0777, 0640);
    }
    path_of(path, sizeof path, "node-n1.json");
    json_object *n1 = nv_node_record_read(path, err, sizeof err);
    assert_non_null(n1);
    assert_string_equal(nv_json_str(n1, "node"), "n1");
    assert_string_equal(nv_json_str(n1, "counter_source"), "netdev");
    assert_true(nv_json_num(nv_json_get(n1, "line_rate_Bps", json_type_object), "eth0") == 1.25e9);
    assert_non_null(nv_json_get(n1, "samples", json_type_object));
    json_object_put(n1);

    assert_int_equal(nv_job_count_node_records(dir), 2);
    json_object *job = nv_job_collect(dir, 42, 0, "none", NULL, NULL, NULL, err, sizeof err);
    assert_non_null(job);
    assert_int_equal(nv_job_record_check(job, err, sizeof err), 0);
    assert_true(nv_json_num(job, "runtime_s") == 11);
    assert_true(nv_json_num(job, "blades_counted") == 2);
    assert_non_null(nv_json_get(job, "metrics", json_type_object));
    nv_ve_job vj;
    assert_int_equal(nv_ve_job_from_record(job, &vj, err, sizeof err), 0);
    assert_true(vj.nodes == 2);
    assert_true(vj.runtime_s == 11);
    assert_string_equal(vj.app, "lulesh");

    /* the job record as a file, read back by its reader */
    path_of(path, sizeof path, "job.json");
    assert_int_equal(nv_json_write_file(path, job, 0640, (gid_t)-1, err, sizeof err), 0);
    json_object *again = nv_job_record_read(path, err, sizeof err);
    assert_non_null(again);
    json_object_put(again);
    /* a newer version and another schema are refused */
    json_object_object_add(job, "version", json_object_new_int(NV_JOB_RECORD_VERSION + 1));
    assert_int_equal(nv_job_record_check(job, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a netvar job record"));
    assert_int_equal(nv_ve_job_from_record(job, &vj, err, sizeof err), -1);
    json_object_object_add(job, "schema", json_object_new_string(NV_NODE_RECORD_SCHEMA));
    json_object_object_add(job, "version", json_object_new_int(NV_JOB_RECORD_VERSION));
    assert_int_equal(nv_job_record_check(job, err, sizeof err), -1);
    json_object_put(job);
}

static int lines_logged;
static char last_line[512];
static void keep_line(void *arg, const char *line)
{
    (void)arg;
    lines_logged++;
    snprintf(last_line, sizeof last_line, "%s", line);
}

/* node n<k> of job `id`, [start, end] s, eth0 `bytes` out over 2 s at a
 * line rate of 1.25e9 bytes/s */
static void node_file(const char *name, long long id, double start, double end, uint64_t bytes)
{
    char path[128], err[256];
    nv_ctr_snapshot a, b;
    nv_ctr_delta d;
    snapshot(&a, 1000000000ull, 0);
    snapshot(&b, 3000000000ull, 1);
    b.port[0].f[NV_CTR_BYTES_OUT].raw = bytes;
    assert_int_equal(nv_ctr_delta_compute(&a, &b, &d, err, sizeof err), 0);
    double rates[NV_CTR_MAX_PORTS] = {1.25e9};
    struct nv_node_record rec = {.id = {.job_id = id,
                                        .node = name,
                                        .mode = "counters",
                                        .app = "lulesh",
                                        .blade = name,
                                        .sw = "s1",
                                        .blade_reader = true},
                                 .start_unix_s = start,
                                 .end_unix_s = end,
                                 .delta = &d,
                                 .line_rate_Bps = rates,
                                 .counter_source = "netdev"};
    char file[64];
    snprintf(file, sizeof file, "node-%s.json", name);
    path_of(path, sizeof path, file);
    assert_int_equal(nv_node_record_write(path, (gid_t)-1, &rec, err, sizeof err), 0);
}

/* collect merges only this job's node records (before, the last record
 * read set the job id, so another job's record made the job that job),
 * of the job directory's owner (before: anyone's), and with times and byte
 * counts inside plausible.h's bounds (before, one record's end_unix_s of
 * 1e308 gave the job a runtime of 1e308 s); each other one is skipped with
 * one line.  A job directory that is a link is refused (before, collect
 * --write wrote job.json through it, outside the spool). */
static void collect_merges_only_this_jobs_plausible_records(void **state)
{
    (void)state;
    char path[128], err[256];
    node_file("n1", 42, 1000, 1100, 5000);
    node_file("n2", 43, 1000, 1100, 5000);       /* another job's */
    node_file("n3", 42, 1000, 1e308, 5000);      /* an absurd end */
    node_file("n4", 42, -1e308, 1100, 5000);     /* an absurd start */
    node_file("n5", 42, 1000, 1100, 1ull << 40); /* 1 TiB in 2 s over 1.25 GB/s */
    node_file("n6", 42, 1000, 1000 + 4e7, 5000); /* more than a year */
    int others = 0;
    if (geteuid() == 0) { /* a record of another owner: only root can make one */
        node_file("n7", 42, 1000, 1100, 5000);
        path_of(path, sizeof path, "node-n7.json");
        assert_int_equal(chown(path, 4242, (gid_t)-1), 0);
        others = 1;
    }
    lines_logged = 0;
    json_object *job = nv_job_collect(dir, 42, 0, "none", NULL, keep_line, NULL, err, sizeof err);
    assert_non_null(job);
    assert_int_equal(lines_logged, 5 + others);
    assert_true(nv_json_num(job, "job_id") == 42);
    assert_true(nv_json_num(job, "runtime_s") == 100);
    assert_true(nv_json_num(job, "end_unix_s") == 1100);
    assert_true(nv_json_num(job, "blades_counted") == 1);
    assert_int_equal(json_object_array_length(nv_json_get(job, "nodes", json_type_array)), 1);
    assert_true(nv_json_num(nv_json_get(job, "records", json_type_object), "corrupt_skipped") ==
                5 + others);
    json_object_put(job);
    assert_non_null(strstr(last_line, "skipped it"));
    /* the job directory through a link: refused, nothing merged */
    char link[128];
    snprintf(link, sizeof link, "%s.link", dir);
    assert_int_equal(symlink(dir, link), 0);
    job = nv_job_collect(link, 42, 0, "none", NULL, keep_line, NULL, err, sizeof err);
    unlink(link);
    assert_null(job);
    assert_non_null(strstr(err, "the job's spool directory is a symbolic link; not followed"));
}

/* the spool's job paths, built in one place: every form, and a path that
 * does not fit (or no spool) refused with an empty buffer */
static void spool_job_paths(void **state)
{
    (void)state;
    char b[64];
    assert_int_equal(nv_spool_jobs_path("/s", -1, NULL, b, sizeof b), 0);
    assert_string_equal(b, "/s/jobs");
    assert_int_equal(nv_spool_jobs_path("/s", 42, NULL, b, sizeof b), 0);
    assert_string_equal(b, "/s/jobs/42");
    assert_int_equal(nv_spool_jobs_path("/s", 4294967295LL, "job.json", b, sizeof b), 0);
    assert_string_equal(b, "/s/jobs/4294967295/job.json");
    assert_int_equal(nv_spool_jobs_path(NULL, 1, NULL, b, sizeof b), -1);
    assert_string_equal(b, "");
    /* "/s/jobs/7/job.json" is 18 characters: 18 bytes do not hold it and its NUL */
    assert_int_equal(nv_spool_jobs_path("/s", 7, "job.json", b, 18), -1);
    assert_string_equal(b, "");
    assert_int_equal(nv_spool_jobs_path("/s", 7, "job.json", b, 19), 0);
    assert_int_equal(nv_spool_jobs_path("/s", 7, NULL, NULL, 0), -1);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, make_dir, remove_dir)
    const struct CMUnitTest tests[] = {
        T(start_file_round_trip),
        T(samples_and_node_records_make_a_job_record),
        T(collect_merges_only_this_jobs_plausible_records),
        cmocka_unit_test(spool_job_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
