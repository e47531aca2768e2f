/* test_js_state.c - job_submit/netvar's reload logic (plugins/job_submit/
 * js_state.c, compiled into this test with the few Slurm log calls it
 * makes stubbed): a new model whose running-jobs index cannot be built
 * (an allocation failure, injected) must not be swapped in, because the
 * index in use points into the model in use (issue 17: use after free). */
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "nv_test.h"
#include "registry.h"

/* the allocation failure, injected where js_state.c builds the index */
static int fail_index_builds;
static struct nv_running_index *index_build_or_fail(const struct nv_registry *r, const nv_model *m,
                                                    size_t max_apps)
{
    if (fail_index_builds)
        return NULL;
    return nv_running_index_build(r, m, max_apps);
}
#define nv_running_index_build index_build_or_fail

/* what slurmctld would provide */
static char last_error[1024];
void slurm_info(const char *fmt, ...) { (void)fmt; }
void slurm_debug(const char *fmt, ...) { (void)fmt; }
void slurm_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
}

/* slurmctld's job list, as slurm_load_jobs() gives it */
#include <slurm/slurm.h>
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

#include "../../../plugins/job_submit/js_state.c"

static char dir[256];

/* the fixture model, with a new modification time each write */
static void write_model(long mtime)
{
    FILE *in = fopen("tests/fixtures/jobsubmit/model.json", "r");
    assert_non_null(in);
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    text[n] = '\0';
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

static void a_failed_index_build_keeps_the_model_in_use(void **state)
{
    (void)state;
    const char *entries[] = {"5.json", "{\"schema\":\"netvar-running\",\"version\":1,\"job_id\":5,"
                                       "\"app\":\"amg\",\"nodes\":[\"n1\",\"n2\"]}"};
    make_site("js-state", "", entries, 2);

    find_config();
    nv_registry_init(&registry, "");
    last_check = now_unix_s(); /* as js_state_start: slurmctld not asked yet */
    refresh(true);
    assert_non_null(current.conf);
    assert_non_null(current.model);
    assert_non_null(current.index);
    assert_int_equal(current.index->napps, 1);
    nv_model *first = current.model;
    struct nv_running_index *first_ix = current.index;

    /* a new model appears; building its index fails */
    write_model(1000000100);
    fail_index_builds = 1;
    refresh(false);
    assert_ptr_equal(current.model, first);    /* not freed under the index */
    assert_ptr_equal(current.index, first_ix);
    assert_non_null(strstr(last_error, "keeping the previous model"));
    nv_app_view v;
    assert_int_equal(nv_model_app(current.model, current.index->apps[0].app, &v), 0);
    assert_string_equal(current.index->apps[0].key, v.key);
    assert_string_equal(current.index->apps[0].key, "amg");

    /* memory again: the new model and its index go in together */
    fail_index_builds = 0;
    refresh(false);
    assert_ptr_not_equal(current.model, first);
    assert_ptr_not_equal(current.index, first_ix);
    assert_string_equal(current.index->apps[0].key, "amg");

    struct js_generation empty = {0};
    swap_in(&empty);
    nv_registry_free(&registry);
    unsetenv("NETVAR_CONF");
    assert_int_equal(nv_test_rmtree(dir), 0);
}

/* the first node died before its epilog: the entry stays on disk, and the
 * reload thread leaves it out once slurmctld no longer runs the job (one
 * RPC for all jobs, every RegistryCheckSeconds, never per submission) */
static void a_phantom_entry_is_dropped_by_the_reload_thread(void **state)
{
    (void)state;
    /* job 5 runs; job 6's first node died long ago */
    const char *entries[] = {
        "5.json", "{\"schema\":\"netvar-running\",\"job_id\":5,\"app\":\"amg\","
                  "\"start_unix_s\":1000,\"nodes\":[\"n1\"]}",
        "6.json", "{\"schema\":\"netvar-running\",\"job_id\":6,\"app\":\"fftw\","
                  "\"start_unix_s\":1000,\"nodes\":[\"n2\"]}"};
    make_site("js-phantom", "RegistryCheckSeconds=1\n", entries, 4);
    memset(ctl_jobs, 0, sizeof ctl_jobs);
    ctl_jobs[0].job_id = 5;
    ctl_jobs[0].job_state = JOB_RUNNING;
    ctl_jobs[1].job_id = 6;
    ctl_jobs[1].job_state = JOB_NODE_FAIL;
    ctl_njobs = 2;

    find_config();
    nv_registry_init(&registry, "");
    last_check = last_parts = 0;
    refresh(true);
    assert_true(ctl_calls > 0);
    assert_non_null(current.parts); /* for the runnable check of avoid */
    assert_int_equal(current.parts->n, 1);
    assert_int_equal(current.parts->p[0].n, 4);
    assert_int_equal(current.index->njobs, 1);
    assert_int_equal(current.index->napps_total, 1);
    assert_string_equal(current.index->apps[0].key, "amg");
    /* not asked again within RegistryCheckSeconds */
    int calls = ctl_calls;
    refresh(false);
    assert_int_equal(ctl_calls, calls);
    /* slurmctld cannot answer: nothing is dropped for it */
    last_check = 0;
    ctl_down = 1;
    ctl_jobs[0].job_state = JOB_COMPLETE;
    refresh(false);
    assert_int_equal(current.index->njobs, 1);
    ctl_down = 0;
    last_check = 0;
    refresh(false);
    assert_int_equal(current.index->njobs, 0);

    struct js_generation empty = {0};
    swap_in(&empty);
    nv_registry_free(&registry);
    unsetenv("NETVAR_CONF");
    assert_int_equal(nv_test_rmtree(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_failed_index_build_keeps_the_model_in_use),
        cmocka_unit_test(a_phantom_entry_is_dropped_by_the_reload_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
