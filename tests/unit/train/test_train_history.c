/* test_train_history.c - `netvar train` on hand-made spools of job records:
 * streaming with corrupt records skipped and counted, the summary cap,
 * baseline selection, a pair measured from overlapping jobs on a shared
 * switch (and not across switches), a learned curve flagged "production",
 * a campaign curve kept, and byte-identical output whatever the order the
 * records were written in. */
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

#include "model.h"
#include "model_builder.h"
#include "train_history.h"
#include "nv_test.h"
#include "train_spool.h"

static char root[256];

static void mk(const char *p)
{
    mkdir(p, 0755);
}

static void rec(const char *spool, long id, const char *app, unsigned nodes, const char *sw,
                double start, double runtime, double rho)
{
    nv_test_job_record(spool, id, app, nodes, sw, start, runtime, rho);
}

static void raw(const char *spool, long id, const char *text)
{
    char d[512], p[600];
    snprintf(d, sizeof d, "%s/jobs/%ld", spool, id);
    mk(d);
    snprintf(p, sizeof p, "%s/job.json", d);
    FILE *f = fopen(p, "w");
    fputs(text, f);
    fclose(f);
}

static int setup(void **state)
{
    (void)state;
    assert_int_equal(nv_test_tmpdir(root, sizeof root, "train-history"), 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    assert_int_equal(nv_test_rmtree(root), 0);
    return 0;
}

static int lines;
static void count_log(void *ctx, const char *line)
{
    (void)ctx;
    assert_non_null(strstr(line, "netvar: train: "));
    assert_non_null(strstr(line, "skipped it"));
    lines++;
}

/* A alone x3 at 4 nodes on leaf0 (100, 102, 104 s), B alone x3; A beside B
 * on leaf1 (A 110 s); C on leaf2 at the same time (no shared switch). */
static void history(const char *spool, int reverse)
{
    struct {
        long id;
        const char *app;
        unsigned nodes;
        const char *sw;
        double t0, rt, rho;
    } j[] = {
        {10, "appA", 4, "leaf0", 0, 100, 0.30},      {11, "appA", 4, "leaf0", 1000, 102, 0.30},
        {12, "appA", 4, "leaf0", 2000, 104, 0.30},   {13, "appB", 4, "leaf0", 3000, 200, 0.20},
        {14, "appB", 4, "leaf0", 4000, 200, 0.20},   {15, "appB", 4, "leaf0", 5000, 200, 0.20},
        {16, "appA", 4, "leaf1", 6000, 112.2, 0.30}, {17, "appB", 4, "leaf1", 5990, 205, 0.20},
        {18, "appC", 4, "leaf2", 6000, 50, 0.10},    {19, "appA", 2, "leaf0", 8000, 180, 0.30},
    };
    size_t n = sizeof j / sizeof j[0];
    for (size_t k = 0; k < n; k++) {
        size_t i = reverse ? n - 1 - k : k;
        rec(spool, j[i].id, j[i].app, j[i].nodes, j[i].sw, j[i].t0, j[i].rt, j[i].rho);
    }
}

static void scan(const char *spool, nv_train_set *s, const nv_train_opts *o)
{
    char err[256];
    nv_train_set_init(s);
    assert_int_equal(nv_train_scan_spool(spool, 0, o, s, count_log, NULL, err, sizeof err), 0);
    assert_int_equal(nv_train_analyze(s, o), 0);
}

/* a record of app at [start, start + 100) s under the given switch and
 * group lists (the inside of the JSON arrays) */
static void placed(const char *spool, long id, const char *app, double start, const char *sw,
                   const char *groups)
{
    char text[700];
    snprintf(text, sizeof text,
             "{\"schema\":\"netvar-job-record\",\"version\":1,\"job_id\":%ld,\"app\":\"%s\","
             "\"nodes\":[\"n1\",\"n2\"],\"switches\":[%s],\"groups\":[%s],\"start_unix_s\":%g,"
             "\"end_unix_s\":%g,\"runtime_s\":100,\"utilization\":{\"service_us\":1.0,"
             "\"ports\":[{\"node\":\"n1\",\"port\":\"eth0\",\"rho\":0.2}]}}\n",
             id, app, sw, groups, start, start + 100);
    char d[512];
    snprintf(d, sizeof d, "%s/jobs", spool);
    mk(spool);
    mk(d);
    raw(spool, id, text);
}

/* Neighbours are jobs whose paths meet (predict.h, the paths): at one
 * level both span several switches (or groups) and share one.  Pairs of
 * jobs run at the same time, each pair alone in its own 1000 s slot
 * (jobs 2 slot + 1 and 2 slot + 2). */
static void neighbours_are_jobs_whose_paths_meet(void **state)
{
    (void)state;
    char spool[400];
    snprintf(spool, sizeof spool, "%s/paths", root);
    /* per slot: the two jobs' switch lists, their group lists, and
     * whether their paths meet */
    static const struct {
        const char *sw[2], *groups[2];
        int meet;
    } slot_of[] = {
        /* both across leaf0 and leaf1: they meet at both uplinks */
        {{"\"leaf0\",\"leaf1\"", "\"leaf1\",\"leaf0\""}, {"", ""}, 1},
        /* both under leaf0 alone: switched there, no uplink */
        {{"\"leaf0\"", "\"leaf0\""}, {"", ""}, 0},
        /* one across leaf0 and leaf1, one under leaf0 alone */
        {{"\"leaf0\",\"leaf1\"", "\"leaf0\""}, {"", ""}, 0},
        /* across disjoint leaves: different leaves' uplinks */
        {{"\"leaf0\",\"leaf1\"", "\"leaf2\",\"leaf3\""}, {"", ""}, 0},
        /* disjoint leaves, both across groups g0 and g1: the groups' links */
        {{"\"leaf0\",\"leaf5\"", "\"leaf2\",\"leaf7\""}, {"\"g0\",\"g1\"", "\"g1\",\"g0\""}, 1},
        /* disjoint leaves inside one shared group each: no shared link */
        {{"\"leaf0\",\"leaf1\"", "\"leaf2\",\"leaf3\""}, {"\"g0\"", "\"g0\""}, 0},
    };
    for (int slot = 0; slot < 6; slot++)
        for (int k = 0; k < 2; k++)
            placed(spool, 2 * slot + 1 + k, k ? "appB" : "appA", 1000.0 * slot, slot_of[slot].sw[k],
                   slot_of[slot].groups[k]);
    nv_train_opts o;
    nv_train_opts_default(&o);
    nv_train_set s;
    scan(spool, &s, &o);
    for (int slot = 0; slot < 6; slot++) {
        int meet = slot_of[slot].meet;
        long a = nv_train_find_job(&s, 2 * slot + 1), b = nv_train_find_job(&s, 2 * slot + 2);
        assert_true(a >= 0 && b >= 0);
        if (s.jobs[a].n_neighbours != (uint32_t)meet || s.jobs[b].n_neighbours != (uint32_t)meet)
            fail_msg("slot %d: neighbours %u and %u, expected %d", slot,
                     (unsigned)s.jobs[a].n_neighbours, (unsigned)s.jobs[b].n_neighbours, meet);
        size_t out[4];
        assert_int_equal(nv_train_neighbours(&s, (size_t)a, out, 4), (size_t)meet);
        /* the background follows: the other's rho only where they meet */
        assert_float_equal(s.jobs[a].background, meet ? 0.2 : 0.0, 1e-9);
    }
    nv_train_set_free(&s);
}

static void corrupt_records_skipped_and_counted(void **state)
{
    (void)state;
    char spool[400];
    snprintf(spool, sizeof spool, "%s/c", root);
    history(spool, 0);
    raw(spool, 90, "{\"schema\":\"netvar-job-record\",\"job_id\":90,\"app\":\"appA\",\"nod");
    raw(spool, 91, "{\"schema\":\"something-else\",\"job_id\":91}");
    raw(spool, 92,
        "{\"schema\":\"netvar-job-record\",\"job_id\":92,\"app\":\"appA\","
        "\"nodes\":[\"n0\"],\"runtime_s\":-4}");
    rec(spool, 93, NULL, 2, "leaf0", 9000, 10, 0.1); /* no app: not corrupt */
    nv_train_opts o;
    nv_train_opts_default(&o);
    nv_train_set s;
    lines = 0;
    scan(spool, &s, &o);
    assert_int_equal(s.stats.records, 14);
    assert_int_equal(s.stats.corrupt, 3);
    assert_int_equal(lines, 3);
    assert_int_equal(s.stats.no_app, 1);
    assert_int_equal(s.stats.used, 10);
    assert_int_equal(s.n_apps, 3);
    assert_string_equal(s.apps[0], "appA"); /* sorted */
    nv_train_set_free(&s);
}

/* Absurd but finite times and a copied record: each skipped with one line,
 * the rest trained as without them.  Before the bounds, runtime_s 1e308
 * made a model that would not load, end_unix_s 1e308 moved the window's
 * end past every other job, start_unix_s -1e308 made the job every job's
 * neighbour; and a record copied into another job's directory counted
 * twice. */
static void implausible_times_and_copies_are_skipped(void **state)
{
    (void)state;
    char spool[400], text[600];
    snprintf(spool, sizeof spool, "%s/bounds", root);
    history(spool, 0);
    static const char *bad[] = {
        "\"start_unix_s\":9000,\"end_unix_s\":9100,\"runtime_s\":1e308",
        "\"start_unix_s\":9000,\"end_unix_s\":1e308,\"runtime_s\":100",
        "\"start_unix_s\":-1e308,\"end_unix_s\":9100,\"runtime_s\":100",
        "\"start_unix_s\":9000,\"end_unix_s\":9100,\"runtime_s\":4e7",       /* > a year */
        "\"start_unix_s\":4e9,\"end_unix_s\":4.0000001e9,\"runtime_s\":100", /* the future */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(text, sizeof text,
                 "{\"schema\":\"netvar-job-record\",\"version\":1,\"job_id\":%zu,"
                 "\"app\":\"appA\",\"nodes\":[\"n1\",\"n2\",\"n3\",\"n4\"],"
                 "\"switches\":[\"leaf0\"],%s}\n",
                 70 + i, bad[i]);
        raw(spool, (long)(70 + i), text);
    }
    /* job 16's record copied under 80 (the job id is the directory's) */
    char from[600], to[600], buf[4096];
    snprintf(from, sizeof from, "%s/jobs/16/job.json", spool);
    FILE *f = fopen(from, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    snprintf(to, sizeof to, "%s/jobs/80", spool);
    mk(to);
    raw(spool, 80, buf);
    nv_train_opts o;
    nv_train_opts_default(&o);
    nv_train_set s;
    lines = 0;
    scan(spool, &s, &o);
    assert_int_equal(s.stats.corrupt, 6);
    assert_int_equal(lines, 6);
    assert_int_equal(s.stats.used, 10); /* the history alone */
    assert_int_equal(nv_train_find_job(&s, 80), -1);
    assert_int_equal(s.jobs[nv_train_find_job(&s, 16)].n_neighbours, 1);
    assert_int_equal(s.stats.pair_samples, 2);
    assert_int_equal(nv_train_set_window(&s, 30 * 86400.0), 0);
    assert_int_equal(s.stats.used, 10); /* nothing dropped by a far end */
    nv_train_set_free(&s);
}

static void cap_is_a_clear_error(void **state)
{
    (void)state;
    char spool[400], err[256];
    snprintf(spool, sizeof spool, "%s/cap", root);
    history(spool, 0);
    nv_train_opts o;
    nv_train_opts_default(&o);
    o.max_jobs = 4;
    nv_train_set s;
    nv_train_set_init(&s);
    assert_int_equal(nv_train_scan_spool(spool, 0, &o, &s, NULL, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "cap"));
    assert_true(s.n <= 4);
    nv_train_set_free(&s);
}

/* app names are users' choice: interning is a hash (a million adds of
 * 60 000 names would take minutes with a linear search), and apps beyond
 * what slurmctld loads (NV_MODEL_MAX_APPS) are counted and left out */
static void apps_are_hashed_and_capped(void **state)
{
    (void)state;
    nv_train_set s;
    nv_train_set_init(&s);
    nv_train_job job = {0};
    char app[32], err[200];
    size_t want = NV_MODEL_MAX_APPS + 10;
    for (size_t round = 0; round < 2; round++)
        for (size_t i = 0; i < want; i++) {
            snprintf(app, sizeof app, "user-app-%zu", (i * 7919) % want);
            assert_int_equal(nv_train_set_add(&s, &job, app, 10u << 20, err, sizeof err), 0);
        }
    assert_int_equal(s.n_apps, NV_MODEL_MAX_APPS);
    assert_int_equal(s.stats.apps_over_cap, 20);
    assert_int_equal(s.n, 2 * want - 20);
    for (size_t i = 0; i < s.n_apps; i += 997)
        assert_int_equal(nv_train_set_find_app(&s, s.apps[i]), (long)i);
    assert_int_equal(nv_train_set_find_app(&s, "never-seen"), -1);
    nv_train_set_free(&s);
}

static void baseline_and_pair_from_shared_switch(void **state)
{
    (void)state;
    char spool[400];
    snprintf(spool, sizeof spool, "%s/p", root);
    history(spool, 0);
    nv_train_opts o;
    nv_train_opts_default(&o);
    nv_train_set s;
    scan(spool, &s, &o);
    long a16 = nv_train_find_job(&s, 16), c18 = nv_train_find_job(&s, 18),
         a19 = nv_train_find_job(&s, 19);
    assert_true(a16 >= 0 && c18 >= 0 && a19 >= 0);
    /* baseline: median of the low-background runs at 4 nodes (100,102,104),
     * not the 112.2 s run beside B (background 0.2 > 0.05) */
    assert_float_equal(s.jobs[a16].baseline_s, 102.0, 1e-9);
    assert_float_equal(s.jobs[a16].slowdown_pct, 10.0, 1e-9);
    assert_float_equal(s.jobs[a16].background, 0.20, 1e-9); /* B covered all of it */
    assert_int_equal(s.jobs[a16].n_neighbours, 1);
    assert_string_equal(s.apps[s.jobs[a16].neighbour_app], "appB");
    /* C ran at the same time on another leaf: nobody's neighbour */
    assert_int_equal(s.jobs[c18].n_neighbours, 0);
    assert_float_equal(s.jobs[c18].background, 0.0, 1e-12);
    /* 2 nodes is its own size: its own baseline */
    assert_float_equal(s.jobs[a19].baseline_s, 180.0, 1e-9);
    assert_int_equal(s.stats.pair_samples, 2);

    nv_model_builder *b = nv_train_build(&s, NULL, &o, NULL, NULL, 0);
    assert_non_null(b);
    char err[256];
    nv_model *m = nv_builder_build(b, err, sizeof err);
    assert_non_null(m);
    nv_pair_view pv;
    int32_t A = nv_model_app_index(m, "appA"), B = nv_model_app_index(m, "appB"),
            C = nv_model_app_index(m, "appC");
    assert_int_equal(nv_model_pair_find(m, A, B, &pv), 0);
    assert_float_equal(pv.slowdown_pct, 10.0, 1e-9);
    assert_int_equal(pv.samples, 1);
    assert_float_equal(pv.sd_pct, 0.0, 1e-12);
    assert_int_equal(nv_model_pair_find(m, B, A, &pv), 0);
    assert_float_equal(pv.slowdown_pct, 2.5, 1e-9);
    assert_int_equal(nv_model_pair_find(m, A, C, &pv), -1);
    nv_app_view av;
    nv_model_app(m, A, &av);
    assert_float_equal(av.utilization, 0.30, 1e-12);
    assert_int_equal(av.utilization_source, NV_USRC_COUNTERS);
    assert_int_equal(av.counter_runs, 5);
    assert_int_equal(av.history_runs, 5);
    assert_int_equal(av.latency_origin, NV_LATENCY_DERIVED);
    /* background buckets 0 and 0.2: a learned, flagged curve */
    assert_int_equal(av.curve_origin, NV_CURVE_PRODUCTION);
    assert_int_equal(av.n_points, 2);
    assert_float_equal(av.points[1].utilization, 0.20, 1e-9);
    assert_float_equal(av.points[1].slowdown_pct, 10.0, 1e-9);
    assert_int_equal(av.n_scaling, 2);
    assert_int_equal(av.scaling[0].nodes, 2);
    assert_int_equal(av.scaling[1].nodes, 4);
    assert_float_equal(av.scaling[1].median_runtime_s, 102.0, 1e-9);
    assert_int_equal(av.scaling[1].count, 3);
    nv_model_free(m);
    nv_builder_free(b);
    nv_train_set_free(&s);
}

/* A pair's entry is its median run, not the mean: A beside B three times,
 * +10, +12 and +100 % (the last run stalled) against A's 102 s baseline,
 * gives +12 % over 3 samples, their standard deviation beside it. */
static void pair_entry_is_the_median_run(void **state)
{
    (void)state;
    char spool[400], err[256];
    snprintf(spool, sizeof spool, "%s/med", root);
    history(spool, 0);
    rec(spool, 20, "appA", 4, "leaf1", 10000, 114.24, 0.30);
    rec(spool, 21, "appB", 4, "leaf1", 9990, 205, 0.20);
    rec(spool, 22, "appA", 4, "leaf1", 12000, 204, 0.30);
    rec(spool, 23, "appB", 4, "leaf1", 11990, 205, 0.20);
    nv_train_opts o;
    nv_train_opts_default(&o);
    nv_train_set s;
    scan(spool, &s, &o);
    assert_int_equal(s.stats.pair_samples, 6);
    nv_model_builder *b = nv_train_build(&s, NULL, &o, NULL, err, sizeof err);
    assert_non_null(b);
    nv_model *m = nv_builder_build(b, err, sizeof err);
    assert_non_null(m);
    nv_pair_view pv;
    int32_t A = nv_model_app_index(m, "appA"), B = nv_model_app_index(m, "appB");
    assert_int_equal(nv_model_pair_find(m, A, B, &pv), 0);
    assert_int_equal(pv.samples, 3);
    assert_float_equal(pv.slowdown_pct, 12.0, 1e-9);
    double mean = (10.0 + 12.0 + 100.0) / 3;
    double sd = sqrt(
        ((10 - mean) * (10 - mean) + (12 - mean) * (12 - mean) + (100 - mean) * (100 - mean)) / 2);
    assert_float_equal(pv.sd_pct, sd, 1e-6);
    assert_int_equal(nv_model_pair_find(m, B, A, &pv), 0);
    assert_float_equal(pv.slowdown_pct, 2.5, 1e-9); /* B ran 205 s each time */
    nv_model_free(m);
    nv_builder_free(b);
    nv_train_set_free(&s);
    /* a fourth run, +14 %: an even count takes the mean of the middle two,
     * (12 + 14) / 2, where the mean of the four would be 34 */
    rec(spool, 24, "appA", 4, "leaf1", 14000, 116.28, 0.30);
    rec(spool, 25, "appB", 4, "leaf1", 13990, 205, 0.20);
    scan(spool, &s, &o);
    b = nv_train_build(&s, NULL, &o, NULL, err, sizeof err);
    assert_non_null(b);
    m = nv_builder_build(b, err, sizeof err);
    assert_non_null(m);
    A = nv_model_app_index(m, "appA");
    B = nv_model_app_index(m, "appB");
    assert_int_equal(nv_model_pair_find(m, A, B, &pv), 0);
    assert_int_equal(pv.samples, 4);
    assert_float_equal(pv.slowdown_pct, 13.0, 1e-9);
    nv_model_free(m);
    nv_builder_free(b);
    nv_train_set_free(&s);
}

static void byte_identical_whatever_the_order(void **state)
{
    (void)state;
    char s1[400], s2[400], o1[400], o2[400], o3[400], err[256];
    snprintf(s1, sizeof s1, "%s/r1", root);
    snprintf(s2, sizeof s2, "%s/r2", root);
    history(s1, 0);
    history(s2, 1); /* same records written in the reverse order */
    snprintf(o1, sizeof o1, "%s/m1.json", root);
    snprintf(o2, sizeof o2, "%s/m2.json", root);
    snprintf(o3, sizeof o3, "%s/m3.json", root);
    const char *sp[3] = {s1, s1, s2};
    const char *out[3] = {o1, o2, o3};
    nv_train_opts o;
    nv_train_opts_default(&o);
    for (int k = 0; k < 3; k++) {
        nv_train_set s;
        scan(sp[k], &s, &o);
        nv_model_builder *b = nv_train_build(&s, NULL, &o, NULL, err, sizeof err);
        assert_non_null(b);
        assert_int_equal(nv_builder_save(b, out[k], err, sizeof err), 0);
        nv_builder_free(b);
        nv_train_set_free(&s);
    }
    size_t n1, n2, n3;
    char *a = nv_test_slurp(o1, &n1), *b = nv_test_slurp(o2, &n2), *c = nv_test_slurp(o3, &n3);
    assert_true(n1 > 100);
    assert_int_equal(n1, n2);
    assert_int_equal(n1, n3);
    assert_memory_equal(a, b, n1);
    assert_memory_equal(a, c, n1);
    /* apps come out sorted by key */
    assert_true(strstr(a, "\"key\":\"appA\"") < strstr(a, "\"key\":\"appB\""));
    assert_true(strstr(a, "\"key\":\"appB\"") < strstr(a, "\"key\":\"appC\""));
    free(a), free(b), free(c);
}

static void campaign_curve_and_impactb_kept(void **state)
{
    (void)state;
    char spool[400], err[256];
    snprintf(spool, sizeof spool, "%s/k", root);
    history(spool, 0);
    /* input model: calibration, appA measured by a campaign (ImpactB U 0.5) */
    nv_model_builder *in = nv_builder_new();
    nv_calibration cal;
    double idle[] = {1.0, 1.1, 1.2, 1.05, 1.3};
    assert_int_equal(nv_calibrate(idle, 5, NV_CAL_MINIMUM, 0, &cal), 0);
    assert_int_equal(nv_builder_set_calibration(in, &cal), 0);
    nv_latency_summary lat;
    double l[] = {2.0, 2.5, 3.0};
    nv_latency_summary_of(l, 3, &lat);
    nv_curve_point pts[] = {{0.2, 3, 1}, {0.6, 12, 1}};
    nv_joint_window jw[] = {{0.25f, 300}, {0.75f, 900}};
    nv_app_input ai = {.key = "appA",
                       .utilization = 0.5,
                       .utilization_source = NV_USRC_LATENCY,
                       .latency = &lat,
                       .points = pts,
                       .n_points = 2,
                       .joint = jw,
                       .n_joint = 2,
                       .joint_window_s = 0.5};
    assert_int_equal(nv_builder_add_app(in, &ai), 0);
    nv_pair_input keep = {"appA", "appZ", 7, 4, 1};
    nv_app_input zi = {.key = "appZ",
                       .utilization = 0.1,
                       .latency = &lat,
                       .joint = jw,
                       .n_joint = 1,
                       .joint_window_s = 0.5};
    assert_int_equal(nv_builder_add_app(in, &zi), 0);
    assert_int_equal(nv_builder_add_pair(in, &keep), 0);
    nv_model *im = nv_builder_build(in, err, sizeof err);
    assert_non_null(im);
    nv_builder_free(in);

    nv_train_opts o;
    nv_train_opts_default(&o);
    nv_train_set s;
    scan(spool, &s, &o);
    nv_model_builder *b = nv_train_build(&s, im, &o, NULL, err, sizeof err);
    assert_non_null(b);
    nv_model *m = nv_builder_build(b, err, sizeof err);
    assert_non_null(m);
    nv_app_view av;
    nv_model_app(m, nv_model_app_index(m, "appA"), &av);
    assert_float_equal(av.utilization, 0.5, 1e-12); /* ImpactB answers */
    assert_int_equal(av.utilization_source, NV_USRC_LATENCY);
    assert_float_equal(av.counter_rho, 0.30, 1e-12); /* counters kept beside it */
    assert_int_equal(av.curve_origin, NV_CURVE_CAMPAIGN);
    assert_int_equal(av.n_points, 2);
    assert_float_equal(av.points[1].slowdown_pct, 12, 1e-12);
    assert_int_equal(av.latency_origin, NV_LATENCY_IMPACTB);
    assert_float_equal(av.latency->mean_us, 2.5, 1e-12);
    /* the campaign's joint windows too, of an app with history and of an
     * input-only one */
    assert_int_equal(av.n_joint, 2);
    assert_true(av.joint[1].w_us == 900 && av.joint_window_s == 0.5);
    nv_app_view zv;
    nv_model_app(m, nv_model_app_index(m, "appZ"), &zv);
    assert_int_equal(zv.n_joint, 1);
    assert_true(zv.joint[0].u == 0.25f);
    /* an input-only app and its table entry survive */
    nv_pair_view pv;
    assert_int_equal(
        nv_model_pair_find(m, nv_model_app_index(m, "appA"), nv_model_app_index(m, "appZ"), &pv),
        0);
    assert_int_equal(pv.samples, 4);
    assert_true(nv_model_calibration(m)->service_us == cal.service_us);
    nv_model_free(m);
    nv_model_free(im);
    nv_builder_free(b);
    nv_train_set_free(&s);
}

static void min_runs_and_window_respected(void **state)
{
    (void)state;
    char spool[400], err[256];
    snprintf(spool, sizeof spool, "%s/w", root);
    history(spool, 0);
    nv_train_opts o;
    nv_train_opts_default(&o);
    o.min_runs = 2; /* the single (A,B) sample no longer makes an entry */
    nv_train_set s;
    scan(spool, &s, &o);
    size_t pairs = 99;
    nv_model_builder *b = nv_train_build(&s, NULL, &o, &pairs, err, sizeof err);
    assert_non_null(b);
    assert_int_equal(pairs, 0);
    nv_builder_free(b);
    nv_train_set_free(&s);
    nv_train_opts_default(&o);
    o.window_s = 500; /* longer than the 112 s overlap: no neighbours */
    scan(spool, &s, &o);
    assert_int_equal(s.jobs[nv_train_find_job(&s, 16)].n_neighbours, 0);
    assert_int_equal(s.stats.pair_samples, 0);
    nv_train_set_free(&s);
}

static void old_model_without_provenance_loads(void **state)
{
    (void)state;
    char err[256];
    nv_model *m = nv_model_load("tests/fixtures/model/valid_small.json", err, sizeof err);
    assert_non_null(m);
    nv_app_view av;
    nv_model_app(m, 0, &av);
    assert_int_equal(av.history_runs, 0);
    assert_int_equal(av.latency_origin, NV_LATENCY_IMPACTB);
    nv_model_free(m);
    const char *bad =
        "{\"schema\":\"netvar-model\",\"version\":1,\"calibration\":{\"method\":"
        "\"minimum\",\"quantile\":0,\"service_us\":1,\"var_s_us2\":0,\"idle_mean_us\":1,"
        "\"samples\":0,\"histogram\":{\"bins_per_decade\":16,\"first_edge_us\":1,\"counts\":"
        "[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
        "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
        "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]}},\"apps\":[{\"key\":\"a\",\"utilization\":0.1,"
        "\"utilization_source\":\"counters\",\"latency\":{\"mean_us\":1,\"sd_us\":0,\"histogram\":"
        "{\"bins_per_decade\":16,\"first_edge_us\":1,\"counts\":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
        "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
        "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]}},"
        "\"compression\":{\"points\":[],\"fit\":[],\"residual_pct\":0},\"scaling\":[],"
        "\"provenance\":{\"curve\":\"guessed\"}}],\"training_set\":[],\"colocation\":[]}";
    assert_null(nv_model_load_buffer(bad, strlen(bad), err, sizeof err));
    if (!strstr(err, "apps[0].provenance.curve"))
        fprintf(stderr, "err: %s\n", err);
    assert_non_null(strstr(err, "apps[0].provenance.curve"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(corrupt_records_skipped_and_counted),
        cmocka_unit_test(implausible_times_and_copies_are_skipped),
        cmocka_unit_test(cap_is_a_clear_error),
        cmocka_unit_test(apps_are_hashed_and_capped),
        cmocka_unit_test(baseline_and_pair_from_shared_switch),
        cmocka_unit_test(pair_entry_is_the_median_run),
        cmocka_unit_test(neighbours_are_jobs_whose_paths_meet),
        cmocka_unit_test(byte_identical_whatever_the_order),
        cmocka_unit_test(campaign_curve_and_impactb_kept),
        cmocka_unit_test(min_runs_and_window_respected),
        cmocka_unit_test(old_model_without_provenance_loads),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
