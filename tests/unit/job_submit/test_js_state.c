/* test_js_state.c - job_submit/netvar's reload logic (plugins/job_submit/
 * js_state.c, linked in, driven one refresher pass at a time, with the few
 * Slurm calls it makes provided here):
 *   - a new model whose running-jobs index cannot be built (an allocation
 *     failure, injected with --wrap) is not swapped in, because the index
 *     in use points into the model in use (issue 17: use after free);
 *   - a registry entry of a job slurmctld no longer runs (its first node
 *     died before the epilog) is left out, from one job-list request every
 *     RegistryCheckSeconds, and nothing is dropped when slurmctld cannot
 *     answer. */
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <slurm/slurm.h>

#include "../../../plugins/job_submit/js_state.h"
#include "../../../plugins/job_submit/js_stats.h"
#include "policy.h"
#include "submit_stats.h"
#include "nv_test.h"
#include "registry.h"

/* the allocation failure, injected where js_state.c builds the index */
static int fail_index_builds;
struct nv_running_index *__real_nv_running_index_build(const struct nv_registry *r,
                                                       const nv_model *m, size_t max_apps);
struct nv_running_index *__wrap_nv_running_index_build(const struct nv_registry *r,
                                                       const nv_model *m, size_t max_apps);
struct nv_running_index *__wrap_nv_running_index_build(const struct nv_registry *r,
                                                       const nv_model *m, size_t max_apps)
{
    if (fail_index_builds)
        return NULL;
    return __real_nv_running_index_build(r, m, max_apps);
}

/* what slurmctld would provide */
static char last_error[1024];
void slurm_info(const char *fmt, ...)
{
    (void)fmt;
}
void slurm_debug(const char *fmt, ...)
{
    (void)fmt;
}
void slurm_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
}

/* slurmctld's job list and partitions, as slurm_load_jobs() and
 * slurm_load_partitions() give them */
static slurm_job_info_t ctl_jobs[8];
static uint32_t ctl_njobs;
static int ctl_calls, ctl_down;
int slurm_load_jobs(time_t update_time, job_info_msg_t **msg, uint16_t show_flags)
{
    (void)update_time;
    (void)show_flags;
    ctl_calls++;
    if (ctl_down)
        return -1;
    *msg = calloc(1, sizeof **msg);
    (*msg)->record_count = ctl_njobs;
    (*msg)->job_array = ctl_jobs;
    return 0;
}
void slurm_free_job_info_msg(job_info_msg_t *msg)
{
    free(msg);
}
static partition_info_t ctl_part = {.name = "lab", .nodes = "n[1-4]", .flags = PART_FLAG_DEFAULT};
int slurm_load_partitions(time_t update_time, partition_info_msg_t **msg, uint16_t show_flags)
{
    (void)update_time;
    (void)show_flags;
    if (ctl_down)
        return -1;
    *msg = calloc(1, sizeof **msg);
    (*msg)->record_count = 1;
    (*msg)->partition_array = &ctl_part;
    return 0;
}
void slurm_free_partition_info_msg(partition_info_msg_t *msg)
{
    free(msg);
}

static char dir[256];

/* the fixture model, with a new modification time each write */
static void write_model(long mtime)
{
    FILE *in = fopen("tests/fixtures/jobsubmit/model.json", "r");
    assert_non_null(in);
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    char path[300];
    snprintf(path, sizeof path, "%s/model.json", dir);
    FILE *out = fopen(path, "w");
    assert_non_null(out);
    fwrite(text, 1, n, out);
    fclose(out);
    struct timespec ts[2] = {{mtime, 0}, {mtime, 0}};
    assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

/* dir with netvar.conf (extra lines appended), the model, and running/
 * holding the entries[] given as NAME, JSON pairs; NETVAR_CONF names it */
static void make_site(const char *tag, const char *extra, const char *const *entries, size_t n)
{
    char text[1024], sub[300];
    assert_int_equal(nv_test_tmpdir(dir, sizeof dir, tag), 0);
    snprintf(text, sizeof text, "ModelFile=%s/model.json\nSpoolDir=%s/spool\n%s", dir, dir, extra);
    assert_int_equal(nv_test_write_file(dir, "netvar.conf", text), 0);
    snprintf(sub, sizeof sub, "%s/spool", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    snprintf(sub, sizeof sub, "%s/spool/running", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    for (size_t i = 0; i + 1 < n; i += 2)
        assert_int_equal(nv_test_write_file(sub, entries[i], entries[i + 1]), 0);
    write_model(1000000000);
    snprintf(text, sizeof text, "%s/netvar.conf", dir);
    setenv("NETVAR_CONF", text, 1);
}

static void end_site(void)
{
    js_state_stop();
    unsetenv("NETVAR_CONF");
    assert_int_equal(nv_test_rmtree(dir), 0);
}

/* slurmctld runs the jobs in ids[0..n) */
static void ctl_runs(const uint32_t *ids, size_t n)
{
    memset(ctl_jobs, 0, sizeof ctl_jobs);
    for (size_t i = 0; i < n; i++) {
        ctl_jobs[i].job_id = ids[i];
        ctl_jobs[i].job_state = JOB_RUNNING;
    }
    ctl_njobs = (uint32_t)n;
}

static void a_failed_index_build_keeps_the_model_in_use(void **state)
{
    (void)state;
    const char *entries[] = {"5.json", "{\"schema\":\"netvar-running\",\"version\":1,\"job_id\":5,"
                                       "\"app\":\"amg\",\"nodes\":[\"n1\",\"n2\"]}"};
    make_site("js-state", "", entries, 2);
    const uint32_t live[] = {5};
    ctl_runs(live, 1);
    js_state_start_manual();
    const struct js_generation *g = js_state_acquire();
    assert_non_null(g->conf);
    assert_non_null(g->model);
    assert_non_null(g->index);
    assert_int_equal(g->index->napps, 1);
    const nv_model *first = g->model;
    const struct nv_running_index *first_ix = g->index;
    js_state_release();

    /* a new model appears; building its index fails */
    write_model(1000000100);
    fail_index_builds = 1;
    js_state_refresh_once();
    g = js_state_acquire();
    assert_ptr_equal(g->model, first); /* not freed under the index */
    assert_ptr_equal(g->index, first_ix);
    nv_app_view v;
    assert_int_equal(nv_model_app(g->model, g->index->apps[0].app, &v), 0);
    assert_string_equal(g->index->apps[0].key, v.key);
    assert_string_equal(g->index->apps[0].key, "amg");
    js_state_release();
    assert_non_null(strstr(last_error, "keeping the previous model"));

    /* memory again: the new model and its index go in together */
    fail_index_builds = 0;
    js_state_refresh_once();
    g = js_state_acquire();
    assert_ptr_not_equal(g->model, first);
    assert_string_equal(g->index->apps[0].key, "amg");
    js_state_release();
    end_site();
}

/* the first node died before its epilog: the entry stays on disk, and the
 * reload thread leaves it out once slurmctld no longer runs the job (one
 * RPC for all jobs, every RegistryCheckSeconds, never per submission) */
static void a_phantom_entry_is_dropped_by_the_reload_thread(void **state)
{
    (void)state;
    /* job 5 runs; job 6's first node died long ago */
    const char *entries[] = {"5.json",
                             "{\"schema\":\"netvar-running\",\"job_id\":5,\"app\":\"amg\","
                             "\"start_unix_s\":1000,\"nodes\":[\"n1\"]}",
                             "6.json",
                             "{\"schema\":\"netvar-running\",\"job_id\":6,\"app\":\"fftw\","
                             "\"start_unix_s\":1000,\"nodes\":[\"n2\"]}"};
    make_site("js-phantom", "RegistryCheckSeconds=1\n", entries, 4);
    const uint32_t live[] = {5};
    ctl_runs(live, 1);
    ctl_calls = 0;
    js_state_start_manual();
    assert_true(ctl_calls > 0);
    const struct js_generation *g = js_state_acquire();
    assert_non_null(g->parts); /* for the runnable check of avoid */
    assert_int_equal(g->parts->n, 1);
    assert_int_equal(g->parts->p[0].n, 4);
    assert_int_equal(g->index->njobs, 1);
    assert_int_equal(g->index->napps_total, 1);
    assert_string_equal(g->index->apps[0].key, "amg");
    js_state_release();
    /* not asked again within RegistryCheckSeconds */
    int calls = ctl_calls;
    js_state_refresh_once();
    assert_int_equal(ctl_calls, calls);
    /* slurmctld cannot answer: nothing is dropped for it */
    ctl_down = 1;
    ctl_runs(NULL, 0);
    usleep(1100 * 1000); /* one RegistryCheckSeconds */
    js_state_refresh_once();
    assert_int_equal(ctl_calls, calls + 1);
    g = js_state_acquire();
    assert_int_equal(g->index->njobs, 1);
    js_state_release();
    /* it answers: job 5 has ended too */
    ctl_down = 0;
    usleep(1100 * 1000);
    js_state_refresh_once();
    g = js_state_acquire();
    assert_int_equal(g->index->njobs, 0);
    js_state_release();
    end_site();
}

/* job_submit's counts reach jobsubmit/stats.json beside the model file,
 * and a changed count is not written again within 10 s */
static void the_counts_reach_the_file_beside_the_model(void **state)
{
    (void)state;
    char sdir[64], model[128], path[160], err[300];
    assert_int_equal(nv_test_tmpdir(sdir, sizeof sdir, "js-stats"), 0);
    snprintf(model, sizeof model, "%s/model.json", sdir);
    snprintf(path, sizeof path, "%s/jobsubmit", sdir);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/" NV_SUBMIT_STATS_FILE, sdir);
    js_stats_note_decision(0);
    js_stats_note_decision(NV_ACT_AVOID | NV_ACT_MESSAGE);
    js_stats_note_call(3000);
    js_stats_flush(model);
    nv_submit_stats s;
    if (nv_submit_stats_read(path, &s, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(s.submissions, 2);
    assert_int_equal(s.no_action, 1);
    assert_int_equal(s.action[0], 1);              /* message */
    assert_int_equal(s.action[3], 1);              /* avoid */
    assert_true(s.calls >= 1 && s.bucket[2] >= 1); /* 3 us: the 5 us bucket */
    assert_true(s.written_unix_s >= s.started_unix_s && s.started_unix_s > 1e9);
    js_stats_note_decision(0);
    js_stats_flush(model);
    assert_int_equal(nv_submit_stats_read(path, &s, err, sizeof err), 0);
    assert_int_equal(s.submissions, 2);
    assert_int_equal(nv_test_rmtree(sdir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_failed_index_build_keeps_the_model_in_use),
        cmocka_unit_test(a_phantom_entry_is_dropped_by_the_reload_thread),
        cmocka_unit_test(the_counts_reach_the_file_beside_the_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
