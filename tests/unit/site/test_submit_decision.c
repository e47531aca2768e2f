/* test_submit_decision.c - job_submit/netvar's decision against the
 * jobsubmit fixture model (fftw U 0.3, lulesh 0.45, amg 0.6) and a
 * hand-built running index: app identity precedence, own and inflicted
 * predictions (queue model and co-location table), avoid beyond
 * InterferenceThreshold, resize only with advise_apply inside [min, max],
 * policy actions, and the text the user reads.
 *
 * Hand-computed figures (isotonic fits in the fixture):
 *   fftw beside amg    = p_fftw(0.6)  = 60 + (0.1/0.4)*190        = 107.5 %
 *   fftw beside lulesh = table 5 %, 8 samples (>= MinPairSamples 3)
 *                        model: p_fftw(0.45) = 10 + (0.25/0.3)*50  = 51.67 %
 *   amg beside fftw    = p_amg(0.3)   = 1 + (0.1/0.7)*2.5          = 1.357 %
 *   lulesh beside fftw = table has only 2 samples, so the model:
 *                        p_lulesh(0.3) = 2 + (0.1/0.3)*6           = 4 %
 *   fftw scaling 1:100 s, 2:60 s, 4:70 s, times (1 + own/100).
 * The running jobs whose paths meet the newcomer's are one load: fftw
 * beside amg's 2 jobs and lulesh's 1 (vs_n 3) is nv_predict's answer for
 * the three together, past the top of p_fftw (0.9, 250 %): 250 %; the worst
 * single neighbour (amg, 107.5 %) stays in own_single_pct. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "calibration.h"
#include "model_builder.h"
#include "submit_decision.h"

static nv_model *model;
static char amg_nodes[] = "n3,n6";
static char lulesh_nodes[] = "n4,n5";
static struct nv_running_app apps[2];
static struct nv_running_index both; /* amg and lulesh running */
static struct nv_running_index lulesh_only;

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
        char exe[PATH_MAX]; /* <root>/<build>/tests/unit/<binary> */
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n <= 0)
            return NULL;
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
        fprintf(stderr, "cannot load %s: %s\n", path, err);
    return m;
}

static int setup(void **state)
{
    (void)state;
    model = fixture_model();
    if (!model)
        return -1;
    apps[0] = (struct nv_running_app){.app = nv_model_app_index(model, "amg"),
                                      .key = "amg",
                                      .utilization = 0.6,
                                      .njobs = 2,
                                      .first_jobid = 13,
                                      .nodes = amg_nodes};
    apps[1] = (struct nv_running_app){.app = nv_model_app_index(model, "lulesh"),
                                      .key = "lulesh",
                                      .utilization = 0.45,
                                      .njobs = 1,
                                      .first_jobid = 14,
                                      .nodes = lulesh_nodes};
    if (apps[0].app < 0 || apps[1].app < 0)
        return -1;
    both = (struct nv_running_index){
        .njobs = 4, .unknown_jobs = 1, .napps_total = 2, .napps = 2, .apps = apps};
    lulesh_only =
        (struct nv_running_index){.njobs = 1, .napps_total = 1, .napps = 1, .apps = &apps[1]};
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    nv_model_free(model);
    return 0;
}

static struct nv_config *config(const char *text)
{
    struct nv_config *c = malloc(sizeof *c);
    assert_non_null(c);
    int errors = nv_config_parse("test.conf", text, c, NULL, NULL);
    if (errors)
        fail_msg("config has %d errors:\n%s", errors, text);
    return c;
}

static struct nv_submit_decision *decide(const struct nv_config *c, const nv_model *m,
                                         const struct nv_running_index *ix,
                                         const struct nv_submit_query *q)
{
    struct nv_submit_decision *d = malloc(sizeof *d);
    assert_non_null(d);
    memset(d, 0x5a, sizeof *d); /* every field must be set by nv_submit_decide */
    nv_submit_decide(c, m, ix, q, d);
    return d;
}

static void near(double got, double want, const char *what)
{
    if (!(fabs(got - want) <= 1e-9 * (1 + fabs(want))))
        fail_msg("%s: got %.17g, want %.17g", what, got, want);
}

/* app beside the running jobs named, summed, by the key-based API */
static double sum_pct(const nv_model *m, const char *app, const char *const *with, size_t n)
{
    nv_prediction p;
    if (nv_predict(m, app, with, n, NV_PREDICT_QUEUE, NV_DEFAULT_MIN_SAMPLES, &p, NULL) !=
        NV_PRED_OK)
        return NAN;
    return p.slowdown_pct;
}

static const char *const amg2_lulesh[] = {"amg", "amg", "lulesh"}, *const amg2[] = {"amg", "amg"};

/* ------------------------------------------------------------ identity */

static void identity_precedence(void **state)
{
    (void)state;
    struct nv_config *c = config("");
    const char *script = "#!/bin/bash\nsrun -n 4 ./amg -problem 2\n";
    struct nv_submit_query q = {.app_option = "fftw", .job_name = "lulesh", .script = script};
    struct nv_submit_decision *d = decide(c, model, &both, &q);
    assert_string_equal(d->app, "fftw");
    assert_string_equal(d->app_source, "--netvar-app");
    free(d);

    q.app_option = NULL; /* AppFields default: name, then script */
    d = decide(c, model, &both, &q);
    assert_string_equal(d->app, "lulesh");
    assert_string_equal(d->app_source, "job name");
    free(d);

    q.app_option = "../etc"; /* an invalid option value is not used */
    d = decide(c, model, &both, &q);
    assert_string_equal(d->app, "lulesh");
    free(d);

    q.app_option = NULL;
    q.job_name = "wrap"; /* anonymous: the script answers */
    d = decide(c, model, &both, &q);
    assert_string_equal(d->app, "amg");
    assert_string_equal(d->app_source, "batch script");
    free(d);
    free(c);

    c = config("AppFields=script,name\n");
    q.job_name = "lulesh";
    d = decide(c, model, &both, &q);
    assert_string_equal(d->app, "amg");
    assert_string_equal(d->app_source, "batch script");
    free(d);
    q.script = "#!/bin/sh\nhostname\n"; /* no launcher: the name answers */
    d = decide(c, model, &both, &q);
    assert_string_equal(d->app, "lulesh");
    assert_string_equal(d->app_source, "job name");
    free(d);
    free(c);

    c = config("AppFields=name\n");
    q.job_name = NULL;
    q.script = script;
    d = decide(c, model, &both, &q);
    assert_string_equal(d->app, ""); /* the script is not looked at */
    assert_string_equal(d->app_source, "none");
    assert_string_equal(d->message, "netvar: no app name (use --netvar-app=NAME); no prediction");
    assert_false(d->app_known);
    assert_true(isnan(d->own_pct) && isnan(d->inflicted_pct) && isnan(d->utilization));
    free(d);
    free(c);

    c = config("AppFields=none\n");
    q.job_name = "lulesh";
    q.app_option = "amg"; /* the option still counts */
    d = decide(c, model, &both, &q);
    assert_string_equal(d->app, "amg");
    free(d);
    q.app_option = NULL;
    d = decide(c, model, &both, &q);
    assert_string_equal(d->app, "");
    free(d);
    free(c);
}

/* ------------------------------------------------------------ predictions */

static void own_and_inflicted_predictions(void **state)
{
    (void)state;
    struct nv_config *c = config("");
    struct nv_submit_query q = {.app_option = "fftw"};
    struct nv_submit_decision *d = decide(c, model, &both, &q);
    assert_true(d->have_model);
    assert_true(d->app_known);
    near(d->utilization, 0.3, "utilization");
    /* beside amg's two jobs and lulesh's one, summed (placement unknown:
     * all three assumed on a shared uplink); the worst single: amg, 107.5 % */
    double want = sum_pct(model, "fftw", amg2_lulesh, 3);
    near(want, 250.0, "fftw beside amg, amg, lulesh (hand: past p_fftw's top)");
    near(d->own_pct, want, "own");
    near(d->own_single_pct, 107.5, "own, worst single neighbour");
    assert_int_equal(d->vs_n, 3);
    assert_int_equal(d->vs_uplinks, 0);
    assert_int_equal(d->vs_cut, 0);
    assert_non_null(strstr(d->vs_assumed, "placement unknown"));
    assert_string_equal(d->own_source, "model:queue");
    assert_int_equal(d->own_jobid, 13);
    assert_string_equal(d->own_with, "amg");
    /* worst inflicted: lulesh (4 %, model, its table entry has 2 < 3 samples) over amg (1.357 %) */
    near(d->inflicted_pct, 4.0, "inflicted");
    assert_string_equal(d->inflicted_source, "model:queue");
    assert_int_equal(d->inflicted_jobid, 14);
    assert_string_equal(d->inflicted_app, "lulesh");
    assert_int_equal(d->apps_considered, 2);
    assert_int_equal(d->running_jobs, 4);
    assert_int_equal(d->running_unknown, 1);
    free(d);

    /* amg's jobs all under one leaf switch: amg loads no uplink, so the
     * path answers 0 % for it either way, and the worst own slowdown is
     * lulesh's (its table entry, 5 % in 8 runs, below amg's 107.5 %) */
    apps[0].local = true;
    d = decide(c, model, &both, &q);
    near(d->own_pct, 5.0, "own beside lulesh");
    assert_string_equal(d->own_source, "table, 8 runs");
    assert_string_equal(d->own_with, "lulesh");
    near(d->inflicted_pct, 4.0, "inflicted, lulesh");
    assert_int_equal(d->apps_considered, 2);
    free(d);
    /* lulesh's too: both answers are the path's */
    apps[1].local = true;
    d = decide(c, model, &both, &q);
    assert_true(d->own_pct == 0.0 && d->inflicted_pct == 0.0);
    assert_string_equal(d->own_source, NV_PATH_SOURCE_LOCAL);
    assert_string_equal(d->own_with, "amg");
    free(d);
    apps[0].local = apps[1].local = false;

    /* amg beside running fftw: p_amg(0.3) */
    struct nv_running_app fftw_app = {.app = nv_model_app_index(model, "fftw"),
                                      .key = "fftw",
                                      .utilization = 0.3,
                                      .njobs = 1,
                                      .first_jobid = 12};
    struct nv_running_index fftw_running = {
        .njobs = 1, .napps_total = 1, .napps = 1, .apps = &fftw_app};
    q.app_option = "amg";
    d = decide(c, model, &fftw_running, &q);
    near(d->own_pct, 1.0 + (0.1 / 0.7) * 2.5, "amg beside fftw");
    near(d->inflicted_pct, 107.5, "fftw beside amg, inflicted");
    assert_string_equal(d->inflicted_app, "fftw");
    assert_int_equal(d->inflicted_jobid, 12);
    free(d);
    free(c);
}

/* The index remembers each submitting app's predictions (registry.h): a
 * decision from the memo, filled or read, is the decision computed afresh,
 * whatever the predictor settings and the app; and a memo filled under one
 * predictor is not read under another. */
static void remembered_predictions_decide_the_same(void **state)
{
    (void)state;
    static const char *confs[] = {"", "Predictor=averagelt\n", "MinPairSamples=1\n",
                                  "InterferenceThreshold=3\n", ""};
    static const char *subs[] = {"fftw", "amg", "lulesh", "fftw", "amg"};
    struct nv_running_index memo_ix = both;
    memo_ix.memo = nv_neighbour_memo_new(nv_model_app_count(model), both.napps);
    assert_non_null(memo_ix.memo);
    for (size_t ci = 0; ci < sizeof confs / sizeof *confs; ci++) {
        struct nv_config *c = config(confs[ci]);
        for (size_t si = 0; si < sizeof subs / sizeof *subs; si++) {
            struct nv_submit_query q = {.app_option = subs[si]};
            struct nv_submit_decision *fresh = decide(c, model, &both, &q);
            for (int round = 0; round < 2; round++) { /* the first may fill, the second reads */
                struct nv_submit_decision *mem = decide(c, model, &memo_ix, &q);
                if (memcmp(fresh, mem, sizeof *fresh))
                    fail_msg("config \"%s\", app %s, round %d: the remembered decision differs "
                             "(own %g/%g, inflicted %g/%g)",
                             confs[ci], subs[si], round, mem->own_pct, fresh->own_pct,
                             mem->inflicted_pct, fresh->inflicted_pct);
                free(mem);
            }
            free(fresh);
        }
        free(c);
    }
    /* three submitting apps, each with its own row */
    assert_int_equal(memo_ix.memo->used, 3);
    /* each one's sum beside the others remembered too, under the last
     * settings' key; with every row taken, a submission still fills and
     * then reads its sum, deciding as afresh */
    for (size_t si = 0; si < 3; si++) {
        const struct nv_memo_sum *e = &memo_ix.memo->sum[nv_model_app_index(model, subs[si])];
        assert_int_equal(e->state, 2);
        assert_true(e->n >= 1);
    }
    memset(memo_ix.memo->sum, 0, memo_ix.memo->napps_model * sizeof *memo_ix.memo->sum);
    memo_ix.memo->used = NV_MEMO_ROWS;
    for (size_t i = 0; i < memo_ix.memo->napps_model; i++)
        memo_ix.memo->row_of[i] = -1;
    struct nv_config *c = config("");
    struct nv_submit_query q = {.app_option = "amg"};
    struct nv_submit_decision *fresh = decide(c, model, &both, &q);
    for (int round = 0; round < 2; round++) {
        struct nv_submit_decision *mem = decide(c, model, &memo_ix, &q);
        assert_memory_equal(mem, fresh, sizeof *fresh);
        free(mem);
    }
    assert_int_equal(memo_ix.memo->sum[nv_model_app_index(model, "amg")].state, 2);
    free(fresh);
    free(c);
    nv_neighbour_memo_free(memo_ix.memo);
}

static void table_answers_with_enough_samples(void **state)
{
    (void)state;
    struct nv_config *c = config("MinPairSamples=3\n");
    struct nv_submit_query q = {.app_option = "fftw"};
    struct nv_submit_decision *d = decide(c, model, &lulesh_only, &q);
    near(d->own_pct, 5.0, "fftw beside lulesh from the table");
    assert_string_equal(d->own_source, "table, 8 runs");
    assert_int_equal(d->own_jobid, 14);
    near(d->inflicted_pct, 4.0, "lulesh beside fftw from the model");
    assert_string_equal(d->inflicted_source, "model:queue");
    free(d);
    free(c);

    c = config("MinPairSamples=9\n"); /* 8 samples no longer enough */
    d = decide(c, model, &lulesh_only, &q);
    near(d->own_pct, 10 + (0.25 / 0.3) * 50, "fftw beside lulesh from the model");
    assert_string_equal(d->own_source, "model:queue");
    free(d);
    free(c);

    c = config("MinPairSamples=2\n"); /* now lulesh's 2-sample entry answers too */
    d = decide(c, model, &lulesh_only, &q);
    near(d->inflicted_pct, 5.0, "lulesh beside fftw from the table");
    assert_string_equal(d->inflicted_source, "table, 2 runs");
    free(d);
    free(c);
}

static void nothing_running(void **state)
{
    (void)state;
    struct nv_config *c = config("");
    struct nv_submit_query q = {.app_option = "fftw", .min_nodes = 1, .max_nodes = 4};
    struct nv_running_index empty = {0};
    const struct nv_running_index *ixs[] = {NULL, &empty};
    for (int i = 0; i < 2; i++) {
        struct nv_submit_decision *d = decide(c, model, ixs[i], &q);
        assert_true(d->app_known);
        assert_true(isnan(d->own_pct));
        assert_true(isnan(d->inflicted_pct));
        assert_int_equal(d->apps_considered, 0);
        assert_int_equal(d->running_jobs, 0);
        assert_string_equal(d->exclude, "");
        /* alone the best of 100, 60, 70 s is 2 nodes: 40 % less than 1 node */
        assert_true(d->advice);
        assert_int_equal(d->advice_nodes, 2);
        assert_int_equal(d->requested_nodes, 1);
        near(d->advice_saving_pct, 40.0, "saving");
        assert_string_equal(d->message,
                            "netvar: app fftw: rho 0.30; no running job to interfere with; "
                            "advice 2 nodes (-40 % time vs 1; runtime history at 3 node counts)");
        free(d);
    }
    free(c);
}

/* ------------------------------------------------------------ avoid */

static void avoid_excludes_only_apps_beyond_the_threshold(void **state)
{
    (void)state;
    struct nv_submit_query q = {.app_option = "fftw"};
    struct {
        const char *threshold, *exclude;
    } cases[] = {
        {"10", "n3,n6"},        /* amg 107.5 % beyond; lulesh 5 % / 4 % not */
        {"5", "n3,n6"},         /* 5 % is not beyond 5 % */
        {"4.5", "n3,n6,n4,n5"}, /* lulesh own 5 % > 4.5 % */
        {"107.5", ""},          /* 107.5 % is not beyond 107.5 % */
        {"200", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[256];
        snprintf(text, sizeof text, "InterferenceThreshold=%s\nRule=apart action=avoid\n",
                 cases[i].threshold);
        struct nv_config *c = config(text);
        struct nv_submit_decision *d = decide(c, model, &both, &q);
        if (strcmp(d->exclude, cases[i].exclude))
            fail_msg("threshold %s: exclude '%s', want '%s'", cases[i].threshold, d->exclude,
                     cases[i].exclude);
        assert_false(d->exclude_cut);
        /* avoid stays only when there is something to avoid */
        assert_int_equal(!!(d->actions & NV_ACT_AVOID), cases[i].exclude[0] != '\0');
        assert_non_null(d->rule);
        assert_string_equal(d->rule->name, "apart");
        free(d);
        free(c);
    }
    /* beyond the threshold but no avoid action: nothing excluded */
    struct nv_config *c = config("Rule=note action=annotate\n");
    struct nv_submit_decision *d = decide(c, model, &both, &q);
    assert_string_equal(d->exclude, "");
    assert_int_equal(d->actions, NV_ACT_ANNOTATE);
    free(d);
    free(c);
}

/* A newcomer that names its nodes (--nodelist) has a known placement, read
 * against the leaf map (placement.h): under one leaf it shares no uplink
 * with anything; across leaves it shares none with an app whose spanning
 * jobs' leaves it misses, and the predictors answer for the rest. */
static void a_named_placement_follows_the_paths(void **state)
{
    (void)state;
    nv_topo t;
    char err[256];
    nv_topo_init(&t);
    assert_int_equal(nv_topo_parse_slurm(&t,
                                         "SwitchName=s1 Nodes=n[1-2]\nSwitchName=s2 Nodes=n[3-4]\n"
                                         "SwitchName=s3 Nodes=n[5-6]\nSwitchName=s4 Nodes=n[7-8]\n"
                                         "SwitchName=root Switches=s[1-4]\n",
                                         "topology.conf", err, sizeof err),
                     0);
    struct nv_leaf_map lm;
    assert_int_equal(nv_leaf_map_build(&lm, &t, err, sizeof err), 0);
    nv_topo_free(&t);
    /* amg's jobs span s3 and s4, lulesh's s1 and s3 */
    nv_leaf_set_add_list(&apps[0].leaves, "s3,s4");
    nv_leaf_set_add_list(&apps[1].leaves, "s1,s3");
    struct nv_config *c = config("Rule=apart action=avoid\n");
    struct nv_submit_query q = {
        .app_option = "fftw", .req_nodes = "n1,n3", .min_nodes = 2, .leaf_map = &lm};

    /* across s1 and s2: apart from amg (0 %, the path), beside lulesh */
    struct nv_submit_decision *d = decide(c, model, &both, &q);
    assert_int_equal(d->place.leaves, 2);
    assert_int_equal(d->apps_apart, 1);
    near(d->own_pct, 5.0, "own beside lulesh");
    assert_string_equal(d->own_source, "table, 8 runs");
    assert_string_equal(d->own_with, "lulesh");
    near(d->inflicted_pct, 4.0, "inflicted on lulesh");
    assert_string_equal(d->exclude, ""); /* amg's 107.5 % is not this placement's */
    assert_int_equal(d->vs_n, 1);        /* lulesh's one job: the pair's answer */
    assert_int_equal(d->vs_uplinks, 1);
    assert_string_equal(d->vs_assumed, "");
    free(d);

    /* across s3 and s4: it meets both; s3's uplink carries amg's two jobs
     * and lulesh's, s4's amg's two: the worse of the two sums */
    q.req_nodes = "n5,n7";
    d = decide(c, model, &both, &q);
    assert_int_equal(d->place.leaves, 2);
    assert_int_equal(d->apps_apart, 0);
    double s3 = sum_pct(model, "fftw", amg2_lulesh, 3), s4 = sum_pct(model, "fftw", amg2, 2);
    near(d->own_pct, s3 > s4 ? s3 : s4, "own beside the worse uplink's sum");
    near(d->own_single_pct, 107.5, "own beside amg alone");
    assert_int_equal(d->vs_uplinks, 2);
    assert_int_equal(d->vs_n, 3);
    assert_string_equal(d->vs_assumed, "");
    assert_string_equal(d->own_source, "model:queue");
    free(d);

    /* across s1 and s4: lulesh on s1's uplink alone, amg's two on s4's */
    q.req_nodes = "n1,n7";
    d = decide(c, model, &both, &q);
    assert_int_equal(d->apps_apart, 0);
    assert_int_equal(d->vs_uplinks, 2);
    assert_int_equal(d->vs_n, 2);
    near(d->own_pct, s4 > 5.0 ? s4 : 5.0, "own: s4's two amg jobs");
    free(d);

    /* under s1 alone: 0 % beside everything, from the path */
    q.req_nodes = "n1,n2";
    d = decide(c, model, &both, &q);
    assert_int_equal(d->place.leaves, 1);
    assert_true(d->own_pct == 0.0 && d->inflicted_pct == 0.0);
    assert_string_equal(d->own_source, NV_PATH_SOURCE_LOCAL);
    assert_string_equal(d->inflicted_source, NV_PATH_SOURCE_LOCAL);
    assert_false(d->actions & NV_ACT_AVOID);
    free(d);

    /* only the apps it is apart from get 0: with amg's answer the worst,
     * every app apart shows the path as the source */
    q.req_nodes = "n1,n3";
    nv_leaf_set none = {{0}};
    apps[1].leaves = none;
    nv_leaf_set_add_list(&apps[1].leaves, "s3,s4");
    d = decide(c, model, &both, &q);
    assert_int_equal(d->apps_apart, 2);
    assert_true(d->own_pct == 0.0 && d->inflicted_pct == 0.0);
    assert_string_equal(d->own_source, NV_PATH_SOURCE_APART);
    assert_string_equal(d->inflicted_source, NV_PATH_SOURCE_APART);
    free(d);
    apps[1].leaves = none;
    nv_leaf_set_add_list(&apps[1].leaves, "s1,s3");

    /* it may be given more nodes than it names: placement unknown */
    q.min_nodes = 3;
    d = decide(c, model, &both, &q);
    assert_int_equal(d->place.leaves, 0);
    near(d->own_pct, sum_pct(model, "fftw", amg2_lulesh, 3), "own, placement unknown");
    assert_int_equal(d->vs_uplinks, 0);
    free(d);
    q.min_nodes = 2;

    /* an app with a job whose switches are unknown meets every placement */
    nv_leaf_set_fill(&apps[0].leaves);
    d = decide(c, model, &both, &q);
    assert_int_equal(d->apps_apart, 0);
    near(d->own_pct, sum_pct(model, "fftw", amg2_lulesh, 3), "own beside amg, its leaves unknown");
    near(d->own_single_pct, 107.5, "own beside amg alone, its leaves unknown");
    free(d);
    apps[0].leaves = none;
    nv_leaf_set_add_list(&apps[0].leaves, "s3,s4");

    /* the memo: a placed newcomer claims no row and reads a filled one,
     * deciding as it does without the memo */
    struct nv_running_index memo_ix = both;
    memo_ix.memo = nv_neighbour_memo_new(nv_model_app_count(model), both.napps);
    assert_non_null(memo_ix.memo);
    struct nv_submit_decision *fresh = decide(c, model, &both, &q);
    d = decide(c, model, &memo_ix, &q);
    assert_int_equal(memo_ix.memo->used, 0);
    assert_memory_equal(d, fresh, sizeof *d);
    free(d);
    struct nv_submit_query unplaced = {.app_option = "fftw"};
    d = decide(c, model, &memo_ix, &unplaced); /* fills fftw's row */
    assert_int_equal(memo_ix.memo->used, 1);
    free(d);
    d = decide(c, model, &memo_ix, &q);
    assert_memory_equal(d, fresh, sizeof *d);
    free(d);
    free(fresh);
    nv_neighbour_memo_free(memo_ix.memo);

    apps[0].leaves = apps[1].leaves = none;
    free(c);
    nv_leaf_map_free(&lm);
}

/* ------------------------------------------------------------ resize */

static void resize_needs_apply_and_stays_in_range(void **state)
{
    (void)state;
    struct nv_config *c =
        config("Rule=fit app=fftw action=resize,message message=\"netvar: sized\"\n");
    /* own 107.5 %: 1 node 207.5 s, 2 nodes 124.5 s, 4 nodes 145.25 s */
    struct nv_submit_query q = {
        .app_option = "fftw", .min_nodes = 1, .max_nodes = 4, .advise_apply = true};
    struct nv_submit_decision *d = decide(c, model, &both, &q);
    assert_true(d->advice);
    assert_int_equal(d->advice_nodes, 2);
    assert_int_equal(d->requested_nodes, 1);
    near(d->advice_saving_pct, (207.5 - 124.5) / 207.5 * 100, "saving");
    assert_int_equal(d->resize_nodes, 2);
    assert_true(d->actions & NV_ACT_RESIZE);
    assert_non_null(strstr(d->message, "netvar: node count set to the advised 2 (you asked for "
                                       "--netvar-advise=apply)"));
    free(d);

    /* without --netvar-advise=apply: no resize, and the user is told how */
    q.advise_apply = false;
    d = decide(c, model, &both, &q);
    assert_int_equal(d->resize_nodes, 0);
    assert_false(d->actions & NV_ACT_RESIZE);
    assert_non_null(
        strstr(d->message, "add --netvar-advise=apply and give a range with --nodes=MIN-MAX"));
    free(d);

    /* the range holds only the requested count: nothing to change */
    q = (struct nv_submit_query){
        .app_option = "fftw", .min_nodes = 4, .max_nodes = 4, .advise_apply = true};
    d = decide(c, model, &both, &q);
    assert_int_equal(d->advice_nodes, 4); /* never beyond what the user allowed */
    assert_int_equal(d->requested_nodes, 4);
    assert_int_equal(d->resize_nodes, 0);
    assert_false(d->actions & NV_ACT_RESIZE);
    free(d);

    /* no max given: the range is the requested count alone */
    q = (struct nv_submit_query){.app_option = "fftw", .min_nodes = 1, .advise_apply = true};
    d = decide(c, model, &both, &q);
    assert_int_equal(d->resize_nodes, 0);
    free(d);

    /* [3, 4]: log-log interpolation predicts 3 nodes at
     * 60*(70/60)^log2(1.5) = 65.69 s against 70 s at 4, so the range is
     * pinned to 3. */
    q = (struct nv_submit_query){
        .app_option = "fftw", .min_nodes = 3, .max_nodes = 4, .advise_apply = true};
    d = decide(c, model, &both, &q);
    assert_int_equal(d->requested_nodes, 3);
    assert_int_equal(d->resize_nodes, 3);
    assert_int_equal(!!(d->actions & NV_ACT_RESIZE), d->resize_nodes != 0);
    free(d);
    /* [5, 8]: beyond the scaling points (no extrapolation): no advice, no resize */
    q = (struct nv_submit_query){
        .app_option = "fftw", .min_nodes = 5, .max_nodes = 8, .advise_apply = true};
    d = decide(c, model, &both, &q);
    assert_false(d->advice);
    assert_int_equal(d->resize_nodes, 0);
    assert_false(d->actions & NV_ACT_RESIZE);
    free(d);
    free(c);

    /* advise_apply without a resize rule changes nothing */
    c = config("");
    q = (struct nv_submit_query){
        .app_option = "fftw", .min_nodes = 1, .max_nodes = 4, .advise_apply = true};
    d = decide(c, model, &both, &q);
    assert_int_equal(d->resize_nodes, 0);
    assert_false(d->actions & NV_ACT_RESIZE);
    free(d);
    free(c);
}

/* ------------------------------------------------------------ policy */

static void actions_from_rules(void **state)
{
    (void)state;
    struct nv_config *c = config(
        "Rule=deny-it app=denyme action=deny reason=\"denyme is not allowed\"\n"
        "Rule=hold-it app=holdme action=hold,message message=\"netvar: held for review\"\n"
        "Rule=isolate-it app=isome action=isolate\n"
        "Rule=too-slow own_slowdown>110 action=hold\n"
        "Rule=hurts inflicted_slowdown>=3.99 app=fftw action=contain\n"
        "Rule=noisy app=amg inflicted_slowdown>=10 action=avoid,message message=\"netvar: kept away\"\n");
    struct nv_submit_query q = {.app_option = "denyme"};
    struct nv_submit_decision *d = decide(c, model, &both, &q);
    assert_string_equal(d->rule->name, "deny-it");
    assert_int_equal(d->actions, NV_ACT_DENY | NV_ACT_ANNOTATE);
    assert_string_equal(d->rule->reason, "denyme is not allowed");
    assert_string_equal(d->message,
                        "netvar: app denyme (from --netvar-app) is not in the model yet; no "
                        "prediction\nnetvar: policy rule 'deny-it' applied: deny");
    free(d);

    q.app_option = "holdme";
    d = decide(c, model, &both, &q);
    assert_int_equal(d->actions, NV_ACT_HOLD | NV_ACT_MESSAGE | NV_ACT_ANNOTATE);
    assert_non_null(strstr(d->message, "\nnetvar: policy rule 'hold-it' applied: message,hold\n"
                                       "netvar: held for review"));
    free(d);

    q.app_option = "isome";
    d = decide(c, model, &both, &q);
    assert_int_equal(d->actions, NV_ACT_ISOLATE | NV_ACT_ANNOTATE);
    free(d);

    /* fftw beside amg alone would be 107.5, not > 110; beside amg's two
     * jobs and lulesh's, summed, 250 > 110 -> hold */
    q.app_option = "fftw";
    d = decide(c, model, &both, &q);
    assert_non_null(d->rule);
    assert_string_equal(d->rule->name, "too-slow");
    near(d->own_single_pct, 107.5, "the worst single neighbour");
    assert_int_equal(d->actions, NV_ACT_HOLD | NV_ACT_ANNOTATE);
    free(d);
    /* beside lulesh alone: own 5, inflicted 4 >= 3.99 -> contain */
    d = decide(c, model, &lulesh_only, &q);
    assert_non_null(d->rule);
    assert_string_equal(d->rule->name, "hurts");
    assert_int_equal(d->actions, NV_ACT_CONTAIN | NV_ACT_ANNOTATE);
    assert_int_equal(d->contain_switches, 1); /* no leaf sizes, no alloc section */
    free(d);
    /* contain's --switches: the fewest leaves that hold the job, largest
     * first; 1 where they hold fewer nodes than it asks */
    static const uint32_t sizes[] = {32, 32, 16, 8}, shuffled[] = {8, 32, 16, 32};
    q.nleaf_sizes = 4;
    const uint32_t want[][2] = {{0, 1}, {32, 1}, {33, 2}, {64, 2}, {65, 3}, {88, 4}, {89, 1}};
    for (size_t i = 0; i < 2 * sizeof want / sizeof want[0]; i++) {
        q.leaf_sizes = i & 1 ? shuffled : sizes; /* the order given does not matter */
        q.min_nodes = q.max_nodes = want[i / 2][0];
        d = decide(c, model, &lulesh_only, &q);
        assert_true(d->actions & NV_ACT_CONTAIN);
        if (d->contain_switches != want[i / 2][1])
            fail_msg("%u nodes: contain_switches %u, want %u", want[i / 2][0], d->contain_switches,
                     want[i / 2][1]);
        /* ContainSpanWaitSeconds unset: every contained job waits ContainWaitSeconds */
        assert_int_equal(d->contain_wait_s, c->contain_wait_s);
        free(d);
    }
    /* ContainSpanWaitSeconds: its own wait for a job larger than one leaf;
     * 0 leaves such a job uncontained, and the user is told */
    unsigned wait_before = c->contain_wait_s;
    c->contain_wait_s = 7200;
    c->contain_span_wait_set = true;
    for (unsigned span = 0; span <= 600; span += 600) {
        c->contain_span_wait_s = span;
        q.leaf_sizes = sizes;
        q.min_nodes = q.max_nodes = 32;
        d = decide(c, model, &lulesh_only, &q);
        assert_true(d->actions & NV_ACT_CONTAIN);
        assert_int_equal(d->contain_switches, 1);
        assert_int_equal(d->contain_wait_s, 7200);
        assert_false(d->contain_span_skipped);
        free(d);
        q.min_nodes = q.max_nodes = 33;
        d = decide(c, model, &lulesh_only, &q);
        assert_int_equal(!!(d->actions & NV_ACT_CONTAIN), span > 0);
        assert_int_equal(d->contain_switches, span ? 2 : 0);
        assert_int_equal(d->contain_wait_s, span);
        assert_int_equal(d->contain_span_skipped, span == 0);
        assert_int_equal(strstr(d->message, "netvar: contain left out: this job needs more than "
                                            "one leaf switch") != NULL,
                         span == 0);
        free(d);
    }
    c->contain_span_wait_set = false;
    c->contain_wait_s = wait_before;
    q.leaf_sizes = NULL;
    q.nleaf_sizes = 0;
    q.min_nodes = q.max_nodes = 0;

    /* amg beside running fftw inflicts 107.5 % -> avoid fftw's nodes */
    static char fftw_nodes[] = "n1,n2";
    struct nv_running_app fftw_app = {.app = nv_model_app_index(model, "fftw"),
                                      .key = "fftw",
                                      .utilization = 0.3,
                                      .njobs = 1,
                                      .first_jobid = 12,
                                      .nodes = fftw_nodes};
    struct nv_running_index ix = {.njobs = 1, .napps_total = 1, .napps = 1, .apps = &fftw_app};
    q.app_option = "amg";
    d = decide(c, model, &ix, &q);
    assert_non_null(d->rule);
    assert_string_equal(d->rule->name, "noisy");
    assert_int_equal(d->actions, NV_ACT_AVOID | NV_ACT_MESSAGE | NV_ACT_ANNOTATE);
    assert_string_equal(d->exclude, "n1,n2");
    assert_non_null(strstr(d->message, "netvar: policy rule 'noisy' applied: message,avoid\n"
                                       "netvar: kept away"));
    assert_null(strstr(d->message, "leaf switches"));
    free(d);

    /* nodes the user named stay off the exclude list: Slurm refuses a job
     * that requires a node it excludes, and netvar never fails one */
    q.req_nodes = "n[2-3]";
    d = decide(c, model, &ix, &q);
    assert_int_equal(d->actions, NV_ACT_AVOID | NV_ACT_MESSAGE | NV_ACT_ANNOTATE);
    assert_string_equal(d->exclude, "n1");
    assert_int_equal(d->avoid_named, 1);
    assert_non_null(strstr(d->message, "\nnetvar: avoid does not exclude the 1 node you named with "
                                       "--nodelist (n2) where a job to keep apart from runs: Slurm "
                                       "would refuse the submission"));
    assert_false(d->avoid_all_named);
    assert_non_null(strstr(d->message, "netvar: kept away")); /* n1 is still avoided */
    free(d);
    q.req_nodes = "n2,n1";
    d = decide(c, model, &ix, &q);
    assert_int_equal(d->actions, NV_ACT_MESSAGE | NV_ACT_ANNOTATE);
    assert_string_equal(d->exclude, "");
    assert_non_null(strstr(d->message, "the 2 nodes you named with --nodelist (n1, ...)"));
    /* avoid did nothing, so the rule's message ("kept away ...") would not
     * be true: it is left out */
    assert_true(d->avoid_all_named);
    assert_null(strstr(d->message, "netvar: kept away"));
    free(d);
    q.req_nodes = "n[2-";
    d = decide(c, model, &ix, &q);
    assert_int_equal(d->actions, NV_ACT_MESSAGE | NV_ACT_ANNOTATE);
    assert_string_equal(d->exclude, "");
    assert_non_null(strstr(d->message, "netvar: your --nodelist could not be expanded (not a host "
                                       "list, or over 8192 names), so avoid excludes no node"));
    assert_true(d->avoid_all_named);
    assert_null(strstr(d->message, "netvar: kept away"));
    free(d);
    q.req_nodes = NULL;

    /* the same fftw job under two leaf switches loads their uplinks, which
     * amg reaches from any other node under them once it spans leaves
     * itself: avoid also keeps amg under one leaf switch (contain) */
    fftw_app.span_switches = 2;
    fftw_app.span_jobid = 12;
    d = decide(c, model, &ix, &q);
    assert_int_equal(d->actions, NV_ACT_AVOID | NV_ACT_CONTAIN | NV_ACT_MESSAGE | NV_ACT_ANNOTATE);
    assert_true(d->avoid_contained);
    assert_string_equal(d->exclude, "n1,n2");
    assert_non_null(
        strstr(d->message, "netvar: policy rule 'noisy' applied: message,contain,avoid\n"));
    assert_non_null(strstr(d->message,
                           "\nnetvar: job 12 (fftw) spans 2 leaf switches and loads their "
                           "uplinks: avoid also keeps this job under one leaf switch "
                           "(waiting up to 300 s for one), where it crosses no uplink"));
    free(d);
    /* a one-node job sends nothing through a switch: it shares no port
     * with fftw either way, so the path answers 0 % both ways, no
     * predictor runs and no rule on a slowdown matches */
    q.max_nodes = 1;
    d = decide(c, model, &ix, &q);
    assert_int_equal(d->actions, NV_ACT_ANNOTATE);
    assert_null(d->rule);
    assert_true(d->own_pct == 0.0 && d->inflicted_pct == 0.0);
    assert_string_equal(d->own_source, NV_PATH_SOURCE_ONE_NODE);
    assert_string_equal(d->inflicted_source, NV_PATH_SOURCE_ONE_NODE);
    assert_int_equal(d->own_jobid, 12);
    assert_null(strstr(d->message, "leaf switch"));
    assert_non_null(
        strstr(d->message, "predicted slowdown 0 % beside job 12 (fftw; path: one node)"));
    free(d);
    q.max_nodes = 0;
    /* fftw's every job under one leaf switch (the index's local): it sends
     * nothing across an uplink, so amg spanning leaves shares no port with
     * it: 0 % both ways from the path, no avoid; the memo row keeps the
     * same answers */
    fftw_app.local = true;
    fftw_app.span_switches = 1;
    ix.memo = nv_neighbour_memo_new(nv_model_app_count(model), ix.napps);
    assert_non_null(ix.memo);
    for (int round = 0; round < 2; round++) {
        d = decide(c, model, &ix, &q);
        assert_int_equal(d->actions, NV_ACT_ANNOTATE);
        assert_true(d->own_pct == 0.0 && d->inflicted_pct == 0.0);
        assert_string_equal(d->own_source, NV_PATH_SOURCE_LOCAL);
        assert_string_equal(d->inflicted_source, NV_PATH_SOURCE_LOCAL);
        assert_string_equal(d->exclude, "");
        free(d);
    }
    nv_neighbour_memo_free(ix.memo);
    ix.memo = NULL;
    fftw_app.local = false;
    fftw_app.span_switches = 2;
    q.req_switch = 1;
    d = decide(c, model, &ix, &q);
    assert_int_equal(d->actions, NV_ACT_AVOID | NV_ACT_MESSAGE | NV_ACT_ANNOTATE);
    assert_null(strstr(d->message, "leaf switch"));
    free(d);
    /* the user's own --switches=2 stays, and the user is told what it costs */
    q.req_switch = 2;
    d = decide(c, model, &ix, &q);
    assert_int_equal(d->actions, NV_ACT_AVOID | NV_ACT_MESSAGE | NV_ACT_ANNOTATE);
    assert_false(d->avoid_contained);
    assert_non_null(strstr(d->message,
                           "\nnetvar: avoid excludes the nodes of job 12 (fftw), which "
                           "spans 2 leaf switches; your --switches=2 is kept, so across "
                           "leaf switches this job would still share their uplinks"));
    free(d);
    q.req_switch = 0;
    /* nodes the user named stay theirs: contain could hold the job for a
     * placement its own list rules out */
    q.req_nodes = "n7";
    d = decide(c, model, &ix, &q);
    assert_int_equal(d->actions, NV_ACT_AVOID | NV_ACT_MESSAGE | NV_ACT_ANNOTATE);
    assert_non_null(strstr(d->message, "\nnetvar: avoid excludes the nodes of job 12 (fftw), which "
                                       "spans 2 leaf switches; you named this job's nodes, so if "
                                       "they lie under several leaf switches it still shares their "
                                       "uplinks"));
    free(d);
    q.req_nodes = NULL;
    free(c);
    /* AvoidUplinks=warn: only the user is told */
    c = config(
        "AvoidUplinks=warn\n"
        "Rule=noisy app=amg inflicted_slowdown>=10 action=avoid,message message=\"netvar: kept away\"\n");
    d = decide(c, model, &ix, &q);
    assert_int_equal(d->actions, NV_ACT_AVOID | NV_ACT_MESSAGE | NV_ACT_ANNOTATE);
    assert_non_null(strstr(d->message, "\nnetvar: avoid excludes the nodes of job 12 (fftw), which "
                                       "spans 2 leaf switches: on other nodes under them this job "
                                       "would still share their uplinks"));
    free(d);
    /* a rule that contains already says nothing more */
    free(c);
    c = config("Rule=noisy app=amg inflicted_slowdown>=10 action=avoid,contain\n");
    d = decide(c, model, &ix, &q);
    assert_int_equal(d->actions, NV_ACT_AVOID | NV_ACT_CONTAIN | NV_ACT_ANNOTATE);
    assert_false(d->avoid_contained);
    assert_null(strstr(d->message, "leaf switch"));
    free(d);
    fftw_app.span_switches = 0;
    fftw_app.span_jobid = 0;

    /* an unknown app: the conditions are false, app rules still apply */
    q.app_option = "gromacs";
    d = decide(c, model, &both, &q);
    assert_null(d->rule);
    assert_int_equal(d->actions, NV_ACT_ANNOTATE);
    free(d);
    free(c);

    /* annotate only when configured */
    c = config("AnnotateAll=no\nRule=deny-it app=denyme action=deny\n");
    q.app_option = "denyme";
    d = decide(c, model, &both, &q);
    assert_int_equal(d->actions, NV_ACT_DENY);
    free(d);
    free(c);
    c = config("AnnotateField=none\n");
    q.app_option = "fftw";
    d = decide(c, model, &both, &q);
    assert_int_equal(d->actions, 0);
    assert_null(d->rule);
    free(d);
    free(c);
}

/* avoid keeps a job runnable: it leaves at least the job's node count in
 * its partitions, else it becomes a message saying why (issue 17) */
/* The advice never exceeds what the job's partitions hold: a one-node
 * partition is told one node, whatever the history says elsewhere. */
static void advice_stays_inside_the_partition(void **state)
{
    (void)state;
    struct nv_config *c =
        config("Rule=fit app=fftw action=resize,message message=\"netvar: sized\"\n");
    struct nv_partitions parts = {0};
    char err[200];
    assert_int_equal(nv_partitions_add(&parts, "lab", "n[1-4]", true, err, sizeof err), 0);
    assert_int_equal(nv_partitions_add(&parts, "one", "n1", false, err, sizeof err), 0);
    assert_int_equal(nv_partitions_add(&parts, "small", "n[1-2]", false, err, sizeof err), 0);
    assert_int_equal(nv_partitions_size(&parts, NULL), 4);
    assert_int_equal(nv_partitions_size(&parts, "one"), 1);
    assert_int_equal(nv_partitions_size(&parts, "one,small"), 2); /* n1 counted once */
    assert_int_equal(nv_partitions_size(&parts, "nope"), -1);
    assert_int_equal(nv_partitions_size(NULL, "lab"), -1);
    /* in the default partition (4 nodes) the history's best, 2 nodes */
    struct nv_submit_query q = {.app_option = "fftw",
                                .min_nodes = 1,
                                .max_nodes = 4,
                                .advise_apply = true,
                                .parts = &parts};
    struct nv_submit_decision *d = decide(c, model, &both, &q);
    assert_true(d->advice);
    assert_int_equal(d->advice_nodes, 2);
    free(d);
    /* in a one-node partition: one node, and nothing to resize */
    q.partition = "one";
    d = decide(c, model, &both, &q);
    assert_true(d->advice);
    assert_int_equal(d->advice_nodes, 1);
    assert_int_equal(d->resize_nodes, 0);
    free(d);
    /* a range that starts above what the partition holds: no advice */
    q.min_nodes = 2;
    d = decide(c, model, &both, &q);
    assert_false(d->advice);
    free(d);
    nv_partitions_free(&parts);
    free(c);
}

static void avoid_never_excludes_the_whole_partition(void **state)
{
    (void)state;
    struct nv_config *c = config(
        "Rule=noisy app=amg inflicted_slowdown>=10 action=avoid,message message=\"netvar: kept away\"\n");
    static char fftw_nodes[] = "n1,n2";
    struct nv_running_app fftw_app = {.app = nv_model_app_index(model, "fftw"),
                                      .key = "fftw",
                                      .utilization = 0.3,
                                      .njobs = 1,
                                      .first_jobid = 12,
                                      .nodes = fftw_nodes};
    struct nv_running_index ix = {.njobs = 1, .napps_total = 1, .napps = 1, .apps = &fftw_app};
    struct nv_partitions parts = {0};
    char err[200];
    assert_int_equal(nv_partitions_add(&parts, "lab", "n[1-4]", true, err, sizeof err), 0);
    assert_int_equal(nv_partitions_add(&parts, "small", "n[1-2]", false, err, sizeof err), 0);
    struct nv_submit_query q = {.app_option = "amg", .parts = &parts, .min_nodes = 2};
    /* 2 of 4 left: avoid stays */
    struct nv_submit_decision *d = decide(c, model, &ix, &q);
    assert_true(d->actions & NV_ACT_AVOID);
    assert_string_equal(d->exclude, "n1,n2");
    free(d);
    /* the user's own --exclude takes a third: 1 left for 2 nodes -> message */
    q.exclude = "n4";
    d = decide(c, model, &ix, &q);
    assert_false(d->actions & NV_ACT_AVOID);
    assert_true(d->actions & NV_ACT_MESSAGE);
    assert_true(d->avoid_dropped);
    assert_string_equal(d->exclude, "");
    assert_non_null(strstr(d->message, "policy rule 'noisy' applied: message\n"));
    assert_non_null(
        strstr(d->message, "would leave 1 of the partition's 4 nodes, fewer than the 2"));
    assert_null(strstr(d->message, "netvar: kept away"));
    free(d);
    /* a partition of only the avoided nodes: nothing would be left */
    q.exclude = NULL;
    q.partition = "small";
    q.min_nodes = 1;
    d = decide(c, model, &ix, &q);
    assert_false(d->actions & NV_ACT_AVOID);
    assert_non_null(strstr(d->message, "would leave 0 of the partition's 2 nodes"));
    free(d);
    /* two partitions: their nodes counted once */
    q.partition = "small,lab";
    q.min_nodes = 2;
    d = decide(c, model, &ix, &q);
    assert_true(d->actions & NV_ACT_AVOID);
    free(d);
    /* partitions not known yet (or an unknown one): avoid as before */
    q.partition = "nope";
    d = decide(c, model, &ix, &q);
    assert_true(d->actions & NV_ACT_AVOID);
    free(d);
    size_t total = 9;
    assert_int_equal(nv_partitions_nodes_left(&parts, NULL, "n1", "n[3-4]", &total), 1);
    assert_int_equal(total, 4);
    assert_int_equal(nv_partitions_nodes_left(NULL, NULL, "", NULL, NULL), -1);
    assert_int_equal(nv_partitions_add(&parts, "bad", "n[1-", false, err, sizeof err), -1);
    nv_partitions_free(&parts);
    free(c);
}

/* ------------------------------------------------------------ messages */

static void the_users_line_has_units_and_sources(void **state)
{
    (void)state;
    struct nv_config *c = config("");
    struct nv_submit_query q = {.app_option = "fftw", .min_nodes = 1, .max_nodes = 4};
    struct nv_submit_decision *d = decide(c, model, &both, &q);
    /* beside the three jobs summed, 250 % (the head), 4.0 as 4; 2 nodes at
     * 210 s vs 1 node at 350 s = -40 % */
    assert_string_equal(
        d->message, "netvar: app fftw: rho 0.30; predicted slowdown 250 % beside job 13 (amg; "
                    "model:queue); would slow job 14 (lulesh) by 4 % (model:queue); advice 2 nodes "
                    "(-40 % time vs 1; runtime history at 3 node counts)");
    assert_null(strchr(d->message, '\n')); /* no rule matched: one line */
    free(d);

    d = decide(c, model, &lulesh_only, &q);
    assert_non_null(
        strstr(d->message, "predicted slowdown 5 % beside job 14 (lulesh; table, 8 runs)"));
    free(d);
    free(c);
}

static void no_model_means_annotate_only(void **state)
{
    (void)state;
    struct nv_config *c = config("Rule=slow own_slowdown>=0 action=hold\n"
                                 "Rule=named app=fftw action=contain\n");
    struct nv_submit_query q = {
        .app_option = "fftw", .min_nodes = 2, .max_nodes = 8, .advise_apply = true};
    struct nv_submit_decision *d = decide(c, NULL, &both, &q);
    assert_false(d->have_model);
    assert_false(d->app_known);
    assert_string_equal(d->app, "fftw");
    assert_true(isnan(d->own_pct) && isnan(d->inflicted_pct) && isnan(d->utilization));
    assert_false(d->advice);
    assert_int_equal(d->resize_nodes, 0);
    /* the condition rule cannot match; the app rule still does */
    assert_non_null(d->rule);
    assert_string_equal(d->rule->name, "named");
    assert_int_equal(d->actions, NV_ACT_CONTAIN | NV_ACT_ANNOTATE);
    assert_string_equal(d->message,
                        "netvar: app fftw: no model loaded yet, so no prediction (job "
                        "annotated only)\nnetvar: policy rule 'named' applied: contain");
    free(d);
    free(c);

    c = config("");
    q.app_option = NULL;
    d = decide(c, NULL, NULL, &q);
    assert_string_equal(d->message,
                        "netvar: app (unnamed): no model loaded yet, so no prediction (job "
                        "annotated only)");
    assert_int_equal(d->actions, NV_ACT_ANNOTATE);
    free(d);
    free(c);
}

static void unknown_app_message(void **state)
{
    (void)state;
    struct nv_config *c = config("");
    struct nv_submit_query q = {.job_name = "gromacs"};
    struct nv_submit_decision *d = decide(c, model, &both, &q);
    assert_true(d->have_model);
    assert_false(d->app_known);
    assert_string_equal(d->app, "gromacs");
    assert_string_equal(d->message,
                        "netvar: app gromacs (from job name) is not in the model yet; no "
                        "prediction");
    assert_true(isnan(d->own_pct));
    assert_int_equal(d->apps_considered, 0);
    assert_false(d->advice);
    free(d);
    free(c);
}

/* ------------------------------------------------- settled by bounds */

static uint64_t rs = 0x9E3779B97F4A7C15ull;
static double unif(void)
{
    rs ^= rs << 13, rs ^= rs >> 7, rs ^= rs << 17;
    return (double)(rs >> 11) / 9007199254740992.0;
}

/* 80 apps with U curves and octiles, half with wait curves and wait
 * octiles, a co-location table of 300 pairs (1-9 runs each), history
 * corrections fitted from it */
static nv_model *random_model(void)
{
    nv_model_builder *b = nv_builder_new();
    double idle[64];
    for (int i = 0; i < 64; i++)
        idle[i] = 1.0 + 0.3 * unif();
    nv_calibration cal;
    assert_int_equal(nv_calibrate(idle, 64, NV_CAL_MINIMUM, 0, &cal), 0);
    assert_int_equal(nv_builder_set_calibration(b, &cal), 0);
    nv_latency_summary lat;
    nv_latency_summary_of(idle, 64, &lat);
    nv_bottleneck bn = {.idle_utilization = 0.04, .route = NV_USRC_COUNTERS, .shrink_samples = 2};
    assert_int_equal(nv_builder_set_bottleneck(b, &bn), 0);
    for (int i = 0; i < 80; i++) {
        char key[16];
        snprintf(key, sizeof key, "r%02d", i);
        nv_curve_point pts[6], wpts[5];
        double scale = 150 * unif(), wscale = 200 * unif();
        for (int k = 0; k < 6; k++)
            pts[k] = (nv_curve_point){0.15 * (k + 1) + 0.05 * unif(), scale * k * k / 25.0 - 3, 1};
        for (int k = 0; k < 5; k++)
            wpts[k] = (nv_curve_point){400.0 * (k + 1) * (k + 1), wscale * k / 4.0, 1};
        double u = 0.9 * unif(), prof[NV_PROFILE_MAX], wprof[NV_PROFILE_MAX];
        for (int k = 0; k < NV_PROFILE_MAX; k++) {
            prof[k] = u * (0.3 + k / 5.0) / 1.7;
            wprof[k] = k < 3 ? 0 : 3000 * u * (k - 2) * unif();
        }
        for (int k = 1; k < NV_PROFILE_MAX; k++) /* octiles are sorted */
            wprof[k] = wprof[k] < wprof[k - 1] ? wprof[k - 1] : wprof[k];
        if (i % 5 == 0) /* a steady load */
            for (int k = 0; k < NV_PROFILE_MAX; k++)
                prof[k] = u, wprof[k] = 2000 * u;
        nv_app_input in = {.key = key,
                           .utilization = u,
                           .utilization_source = NV_USRC_COUNTERS,
                           .latency = &lat,
                           .points = pts,
                           .n_points = 6,
                           .profile = prof,
                           .n_profile = NV_PROFILE_MAX};
        if (i % 2) {
            in.wait_points = wpts;
            in.n_wait_points = 5;
            in.wait_profile_us = wprof;
            in.n_wait_profile = NV_PROFILE_MAX;
        }
        if (nv_builder_add_app(b, &in))
            fail_msg("app %s: %s", key, nv_builder_error(b));
    }
    for (int p = 0; p < 300; p++) {
        char a[16], w[16];
        snprintf(a, sizeof a, "r%02d", (int)(unif() * 80));
        snprintf(w, sizeof w, "r%02d", (int)(unif() * 80));
        nv_pair_input in = {a, w, 60 * unif(), (uint32_t)(1 + unif() * 9), 2 * unif()};
        nv_builder_add_pair(b, &in); /* a repeated pair is refused: fine */
    }
    char err[512];
    nv_model *m = nv_builder_build(b, err, sizeof err);
    if (!m)
        fail_msg("random model: %s", err);
    nv_builder_free(b);
    return m;
}

/* job_submit's loop asks for the answers alone (nv_predict_pair_pct, no
 * nv_prediction filled): over every app of a random model beside 32 running
 * ones, at several thresholds, the decision (worst answers both ways, the
 * jobs behind them, the nodes avoided) is the one the full predictions
 * (nv_predict_idx) give, bit for bit. */
static double full_pct(const nv_model *m, int32_t a, int32_t b, uint32_t min)
{
    nv_prediction p;
    if (nv_predict_idx(m, a, &b, 1, NV_PREDICT_QUEUE, min, &p) != NV_PRED_OK)
        return NAN;
    return p.slowdown_pct;
}

static void the_loop_decides_as_full_predictions_would(void **state)
{
    (void)state;
    nv_model *m = random_model();
    static struct nv_running_app run[32];
    static char nodes[32][16];
    for (int k = 0; k < 32; k++) {
        int32_t a = (int32_t)((k * 37 + 5) % 80);
        nv_app_view v;
        assert_int_equal(nv_model_app(m, a, &v), 0);
        snprintf(nodes[k], sizeof nodes[k], "n%d", k);
        run[k] = (struct nv_running_app){.app = a,
                                         .key = v.key,
                                         .utilization = v.utilization,
                                         .njobs = 1,
                                         .first_jobid = (uint32_t)(100 + k),
                                         .nodes = nodes[k],
                                         .nodes_len = strlen(nodes[k])};
    }
    /* the index keeps the most utilizing apps first */
    for (int i = 1; i < 32; i++)
        for (int j = i; j > 0 && run[j].utilization > run[j - 1].utilization; j--) {
            struct nv_running_app t = run[j];
            run[j] = run[j - 1];
            run[j - 1] = t;
        }
    struct nv_running_index ix = {.njobs = 32, .napps_total = 32, .napps = 32, .apps = run};
    const char *thresholds[] = {"0", "10", "40", "1000"};
    long answered = 0, decisions = 0, excluded = 0, summed = 0;
    for (size_t t = 0; t < sizeof thresholds / sizeof *thresholds; t++) {
        char text[128];
        snprintf(text, sizeof text, "InterferenceThreshold=%s\nRule=apart action=avoid\n",
                 thresholds[t]);
        struct nv_config *c = config(text);
        for (int self = 0; self < 80; self++) {
            nv_app_view v;
            assert_int_equal(nv_model_app(m, self, &v), 0);
            struct nv_submit_query q = {.app_option = v.key};
            /* every pair computed */
            double own = NAN, infl = NAN;
            uint32_t own_job = 0, infl_job = 0;
            char want_ex[512] = "";
            for (int k = 0; k < 32; k++) {
                double o = full_pct(m, self, run[k].app, c->min_pair_samples);
                double f = full_pct(m, run[k].app, self, c->min_pair_samples);
                answered += isfinite(o) + isfinite(f);
                bool beyond = false;
                if (isfinite(o)) {
                    if (!isfinite(own) || o > own)
                        own = o, own_job = run[k].first_jobid;
                    beyond |= o > c->interference_pct;
                }
                if (isfinite(f)) {
                    if (!isfinite(infl) || f > infl)
                        infl = f, infl_job = run[k].first_jobid;
                    beyond |= f > c->interference_pct;
                }
                if (beyond)
                    snprintf(want_ex + strlen(want_ex), sizeof want_ex - strlen(want_ex), "%s%s",
                             want_ex[0] ? "," : "", run[k].nodes);
            }
            struct nv_submit_decision *d = decide(c, m, &ix, &q);
            /* the worst single neighbour, and the newcomer beside all the
             * apps the model answered for, summed (placement unknown) */
            assert_memory_equal(&d->own_single_pct, &own, sizeof own);
            int32_t with[32];
            size_t nw = 0;
            for (int k = 0; k < 32; k++)
                if (isfinite(full_pct(m, self, run[k].app, c->min_pair_samples)))
                    with[nw++] = run[k].app;
            nv_prediction sp;
            double sum = NAN;
            if (nw > 1 && nv_predict_idx(m, self, with, nw, NV_PREDICT_QUEUE, c->min_pair_samples,
                                         &sp) == NV_PRED_OK)
                sum = sp.slowdown_pct;
            double want_own = isfinite(sum) && (!isfinite(own) || sum > own) ? sum : own;
            assert_memory_equal(&d->own_pct, &want_own, sizeof want_own);
            assert_int_equal(d->vs_n, nw ? nw : 0);
            summed += isfinite(sum) && sum > own;
            assert_memory_equal(&d->inflicted_pct, &infl, sizeof infl);
            assert_int_equal(d->own_jobid, own_job);
            assert_int_equal(d->inflicted_jobid, infl_job);
            if (strcmp(d->exclude, want_ex))
                fail_msg("threshold %s, app %s: exclude '%s', want '%s'", thresholds[t], v.key,
                         d->exclude, want_ex);
            decisions++;
            excluded += d->exclude[0] != '\0';
            free(d);
        }
        free(c);
    }
    assert_int_equal(decisions, 320);
    assert_int_equal(answered, 320 * 64);              /* every app has a curve */
    assert_true(excluded > 0 && excluded < decisions); /* thresholds both ways */
    assert_true(summed > 0); /* the sum answered above the worst single somewhere */
    nv_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(identity_precedence),
        cmocka_unit_test(own_and_inflicted_predictions),
        cmocka_unit_test(remembered_predictions_decide_the_same),
        cmocka_unit_test(table_answers_with_enough_samples),
        cmocka_unit_test(nothing_running),
        cmocka_unit_test(avoid_excludes_only_apps_beyond_the_threshold),
        cmocka_unit_test(a_named_placement_follows_the_paths),
        cmocka_unit_test(resize_needs_apply_and_stays_in_range),
        cmocka_unit_test(actions_from_rules),
        cmocka_unit_test(avoid_never_excludes_the_whole_partition),
        cmocka_unit_test(advice_stays_inside_the_partition),
        cmocka_unit_test(the_users_line_has_units_and_sources),
        cmocka_unit_test(no_model_means_annotate_only),
        cmocka_unit_test(unknown_app_message),
        cmocka_unit_test(the_loop_decides_as_full_predictions_would),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
