/* test_submit_stages.c - nv_submit_decide's stages one by one
 * (submit_stages.h): reset sets every byte but the text buffers' tails,
 * whatever the struct's layout; identify names where the app came from
 * (NETVAR_APP as well as --netvar-app, issue 52); predict fills the
 * predictions and the apps past the threshold and chooses nothing; choose
 * works from a decision set by hand, with no model; render writes the
 * user's lines from a decision set by hand.
 *
 * The model is tests/fixtures/jobsubmit/model.json (test_submit_decision.c
 * has its hand-computed figures): fftw beside amg 107.5 %, beside lulesh 5 %
 * (table, 8 runs); amg beside fftw 1.357 %, lulesh beside fftw 4 %. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "submit_stages.h"

static nv_model *model;
static char amg_nodes[] = "n3,n6";
static char lulesh_nodes[] = "n4,n5";
static struct nv_running_app run[2];
static struct nv_running_index ix;

static int setup(void **state)
{
    (void)state;
    const char *root = getenv("ROOT");
    char path[PATH_MAX], err[512] = "";
    snprintf(path, sizeof path, "%s%stests/fixtures/jobsubmit/model.json", root ? root : "",
             root ? "/" : "");
    model = nv_model_load(path, err, sizeof err);
    if (!model) {
        fprintf(stderr, "%s: %s (run from the source tree, or set ROOT)\n", path, err);
        return -1;
    }
    run[0] = (struct nv_running_app){.app = nv_model_app_index(model, "amg"),
                                     .key = "amg",
                                     .utilization = 0.6,
                                     .njobs = 1,
                                     .first_jobid = 13,
                                     .nodes = amg_nodes};
    run[1] = (struct nv_running_app){.app = nv_model_app_index(model, "lulesh"),
                                     .key = "lulesh",
                                     .utilization = 0.45,
                                     .njobs = 1,
                                     .first_jobid = 14,
                                     .nodes = lulesh_nodes};
    ix = (struct nv_running_index){
        .njobs = 3, .unknown_jobs = 1, .napps_total = 2, .napps = 2, .apps = run};
    return run[0].app < 0 || run[1].app < 0 ? -1 : 0;
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
    if (nv_config_parse("test.conf", text, c, NULL, NULL))
        fail_msg("config has errors:\n%s", text);
    return c;
}

/* a decision filled with garbage, then reset */
static struct nv_submit_decision *fresh(int garbage, const nv_model *m,
                                        const struct nv_running_index *x)
{
    struct nv_submit_decision *d = malloc(sizeof *d);
    assert_non_null(d);
    memset(d, garbage, sizeof *d);
    nv_submit_reset(d, m, x);
    return d;
}

/* ------------------------------------------------------------ reset */

static void reset_sets_every_byte_but_the_text(void **state)
{
    (void)state;
    struct nv_submit_decision *a = fresh(0x5a, model, &ix), *b = fresh(0xa5, model, &ix);
    assert_string_equal(a->exclude, "");
    assert_string_equal(a->message, "");
    /* past their first byte the text buffers keep what was there ... */
    assert_int_equal((unsigned char)a->message[1], 0x5a);
    assert_int_equal((unsigned char)b->exclude[1], 0xa5);
    /* ... and every other byte, padding too, is the same whatever the
     * garbage was: a field added anywhere is reset without being named */
    memset(a->exclude + 1, 0, sizeof a->exclude - 1);
    memset(b->exclude + 1, 0, sizeof b->exclude - 1);
    memset(a->message + 1, 0, sizeof a->message - 1);
    memset(b->message + 1, 0, sizeof b->message - 1);
    assert_memory_equal(a, b, sizeof *a);
    /* the fields that do not start at zero */
    assert_string_equal(a->app_source, "none");
    assert_true(a->have_model);
    assert_true(isnan(a->utilization) && isnan(a->own_pct) && isnan(a->inflicted_pct));
    assert_int_equal(a->running_jobs, 3);
    assert_int_equal(a->running_unknown, 1);
    /* and a sample of those that do */
    assert_string_equal(a->app, "");
    assert_null(a->rule);
    assert_int_equal(a->actions, 0);
    assert_int_equal(a->exclude_len, 0);
    assert_false(a->avoid_dropped);
    assert_int_equal(a->place.leaves, 0);
    assert_string_equal(a->advice_line, "");
    free(a);
    free(b);

    a = fresh(0x5a, NULL, NULL);
    assert_false(a->have_model);
    assert_int_equal(a->running_jobs, 0);
    assert_int_equal(a->running_unknown, 0);
    free(a);
}

/* ------------------------------------------------------------ identify */

static void identify_names_the_source(void **state)
{
    (void)state;
    struct nv_config *c = config("");
    struct {
        struct nv_submit_query q;
        const char *app, *source;
    } cases[] = {
        {{.app_option = "fftw", .app_option_source = "NETVAR_APP", .job_name = "amg"},
         "fftw",
         "NETVAR_APP"},
        {{.app_option = "fftw", .app_option_source = "--netvar-app"}, "fftw", "--netvar-app"},
        {{.app_option = "fftw"}, "fftw", "--netvar-app"}, /* no source given */
        {{.app_option = "fftw", .app_option_source = ""}, "fftw", "--netvar-app"},
        /* an invalid value is not used, nor is its source */
        {{.app_option = "a/b", .app_option_source = "NETVAR_APP", .job_name = "amg"},
         "amg",
         "job name"},
        {{.job_name = "wrap", .script = "#!/bin/sh\nsrun ./lulesh\n"}, "lulesh", "batch script"},
        {{.job_name = "wrap"}, "", "none"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct nv_submit_decision *d = fresh(0x5a, model, &ix);
        nv_submit_identify(c, &cases[i].q, d);
        assert_string_equal(d->app, cases[i].app);
        assert_string_equal(d->app_source, cases[i].source);
        assert_true(isnan(d->own_pct)); /* identify predicts nothing */
        assert_string_equal(d->message, "");
        free(d);
    }
    free(c);
}

/* ------------------------------------------------------------ predict */

static void predict_fills_predictions_and_chooses_nothing(void **state)
{
    (void)state;
    struct nv_config *c = config("Rule=apart action=avoid,message message=\"netvar: x\"\n");
    struct nv_submit_query q = {.app_option = "fftw", .min_nodes = 1, .max_nodes = 4};
    struct nv_submit_decision *d = fresh(0x5a, model, &ix);
    nv_submit_identify(c, &q, d);
    struct nv_submit_scratch s = NV_SUBMIT_SCRATCH_INIT;
    nv_submit_predict(c, model, &ix, &q, &s, d);
    assert_true(d->app_known);
    assert_true(fabs(d->utilization - 0.3) < 1e-12);
    /* beside amg and lulesh summed (placement unknown): past p_fftw's top;
     * amg alone 107.5 % */
    assert_true(fabs(d->own_pct - 250.0) < 1e-9);
    assert_true(fabs(d->own_single_pct - 107.5) < 1e-9);
    assert_int_equal(d->own_jobid, 13);
    assert_string_equal(d->own_source, "model:queue");
    assert_true(fabs(d->inflicted_pct - 4.0) < 1e-9);
    assert_string_equal(d->inflicted_app, "lulesh");
    assert_int_equal(d->apps_considered, 2);
    /* amg (107.5 % one way) is past InterferenceThreshold's 10 %; lulesh
     * (5 % and 4 %) is not */
    assert_int_equal(s.beyond[0], 1);
    assert_true(d->advice);
    assert_int_equal(d->advice_nodes, 2);
    /* the rule is choose's, the lines render's */
    assert_null(d->rule);
    assert_int_equal(d->actions, 0);
    assert_string_equal(d->exclude, "");
    assert_string_equal(d->message, "");
    nv_submit_scratch_free(&s);
    free(d);

    /* an app the model lacks, or no model: nothing predicted */
    const nv_model *models[] = {model, NULL};
    for (int i = 0; i < 2; i++) {
        q.app_option = i ? "fftw" : "gromacs";
        d = fresh(0x5a, models[i], &ix);
        nv_submit_identify(c, &q, d);
        struct nv_submit_scratch s2 = NV_SUBMIT_SCRATCH_INIT;
        nv_submit_predict(c, models[i], &ix, &q, &s2, d);
        assert_false(d->app_known);
        assert_true(isnan(d->own_pct) && isnan(d->inflicted_pct) && isnan(d->utilization));
        assert_int_equal(d->apps_considered, 0);
        assert_int_equal(s2.beyond[0], 0);
        assert_false(s2.named_read);
        free(d);
    }
    free(c);
}

/* ------------------------------------------------------------ choose */

/* a decision as predict would leave it for an app beside ix: own and
 * inflicted slowdowns as given, the apps flagged in beyond */
static struct nv_submit_decision *predicted(double own, double inflicted, uint8_t beyond,
                                            struct nv_submit_scratch *s)
{
    struct nv_submit_decision *d = fresh(0x5a, model, &ix);
    snprintf(d->app, sizeof d->app, "fftw");
    d->app_source = "--netvar-app";
    d->app_known = true;
    d->utilization = 0.3;
    d->own_pct = own;
    d->inflicted_pct = inflicted;
    *s = (struct nv_submit_scratch)NV_SUBMIT_SCRATCH_INIT;
    s->beyond[0] = beyond;
    return d;
}

static void choose_works_from_the_predictions(void **state)
{
    (void)state;
    struct nv_config *c =
        config("Rule=slow own_slowdown>=4 action=avoid,message message=\"netvar: away\"\n"
               "Rule=fit app=fftw action=resize\n");
    struct nv_submit_query q = {.app_option = "fftw", .min_nodes = 2};
    struct nv_submit_scratch s;
    struct nv_submit_choice ch;

    /* 3.9999996 % shows as 4 % and meets >=4; both apps flagged */
    struct nv_submit_decision *d = predicted(3.9999996, 1.0, 3, &s);
    nv_submit_choose(c, NULL, &ix, &q, &s, &ch, d);
    assert_string_equal(d->rule->name, "slow");
    assert_int_equal(d->actions, NV_ACT_AVOID | NV_ACT_MESSAGE | NV_ACT_ANNOTATE);
    assert_string_equal(d->exclude, "n3,n6,n4,n5");
    assert_int_equal(d->exclude_len, strlen(d->exclude));
    assert_false(ch.resize_wanted);
    assert_int_equal(ch.need, 2);
    assert_int_equal(ch.left, -1); /* the partitions are not known */
    assert_int_equal(ch.span, NV_SPAN_NONE);
    assert_string_equal(d->message, "");
    nv_submit_scratch_free(&s);
    free(d);

    /* the partition holds 5 nodes: avoiding 4 leaves 1 of the 2 needed */
    struct nv_partitions parts = {0};
    char err[128];
    assert_int_equal(nv_partitions_add(&parts, "batch", "n[1-6]", true, err, sizeof err), 0);
    q.parts = &parts;
    q.exclude = "n1";
    d = predicted(50, 1.0, 3, &s);
    nv_submit_choose(c, NULL, &ix, &q, &s, &ch, d);
    assert_true(d->avoid_dropped);
    assert_int_equal(d->actions, NV_ACT_MESSAGE | NV_ACT_ANNOTATE);
    assert_string_equal(d->exclude, "");
    assert_int_equal(ch.left, 1);
    assert_int_equal(ch.part_total, 6);
    nv_submit_scratch_free(&s);
    free(d);
    q.exclude = NULL;

    /* only amg flagged, and its job spans two leaf switches: contain too */
    run[0].span_switches = 2;
    run[0].span_jobid = 21;
    d = predicted(50, 1.0, 1, &s);
    nv_submit_choose(c, NULL, &ix, &q, &s, &ch, d);
    assert_string_equal(d->exclude, "n3,n6");
    assert_int_equal(ch.left, 4);
    assert_int_equal(ch.span, NV_SPAN_CONTAINED);
    assert_true(d->avoid_contained);
    assert_int_equal(d->actions, NV_ACT_AVOID | NV_ACT_CONTAIN | NV_ACT_MESSAGE | NV_ACT_ANNOTATE);
    assert_int_equal(d->avoid_span_jobid, 21);
    nv_submit_scratch_free(&s);
    free(d);
    /* the job names a node avoid would exclude: kept off the list, and it
     * names its nodes, so no contain */
    q.req_nodes = "n6";
    d = predicted(50, 1.0, 1, &s);
    nv_submit_choose(c, NULL, &ix, &q, &s, &ch, d);
    assert_true(s.named_read);
    assert_string_equal(d->exclude, "n3");
    assert_int_equal(d->avoid_named, 1);
    assert_string_equal(d->avoid_named_first, "n6");
    assert_int_equal(ch.span, NV_SPAN_USER_NODES);
    assert_false(d->actions & NV_ACT_CONTAIN);
    nv_submit_scratch_free(&s);
    free(d);
    q.req_nodes = NULL;
    run[0].span_switches = 0;
    run[0].span_jobid = 0;
    nv_partitions_free(&parts);
    q.parts = NULL;

    /* below the first rule: the second asks for resize, which applies only
     * with an advised count */
    d = predicted(1.0, 1.0, 0, &s);
    d->resize_nodes = 3;
    nv_submit_choose(c, NULL, &ix, &q, &s, &ch, d);
    assert_string_equal(d->rule->name, "fit");
    assert_true(ch.resize_wanted);
    assert_int_equal(d->resize_nodes, 3);
    assert_int_equal(d->actions, NV_ACT_RESIZE | NV_ACT_ANNOTATE);
    free(d);
    d = predicted(1.0, 1.0, 0, &s);
    nv_submit_choose(c, NULL, &ix, &q, &s, &ch, d);
    assert_true(ch.resize_wanted);
    assert_int_equal(d->actions, NV_ACT_ANNOTATE);
    free(d);
    free(c);

    /* no rule: an advised count is not applied */
    c = config("");
    d = predicted(1.0, 1.0, 3, &s);
    d->resize_nodes = 3;
    nv_submit_choose(c, NULL, &ix, &q, &s, &ch, d);
    assert_null(d->rule);
    assert_int_equal(d->resize_nodes, 0);
    assert_int_equal(d->actions, NV_ACT_ANNOTATE);
    assert_string_equal(d->exclude, "");
    free(d);
    free(c);
}

/* ------------------------------------------------------------ render */

static void render_tells_each_case(void **state)
{
    (void)state;
    struct nv_config *c =
        config("ContainWaitSeconds=45\n"
               "Rule=r action=avoid,resize,message message=\"netvar: admin text\"\n");
    struct nv_submit_query q = {.app_option = "fftw", .req_switch = 2};
    struct nv_submit_choice ch = {.need = 2, .left = -1};

    /* no model; then an app the model lacks, named with its source */
    struct nv_submit_decision *d = fresh(0x5a, NULL, NULL);
    nv_submit_render(c, &q, &ch, d);
    assert_string_equal(d->message, "netvar: app (unnamed): no model loaded yet, so no prediction "
                                    "(job annotated only)");
    free(d);
    d = fresh(0x5a, model, &ix);
    nv_submit_render(c, &q, &ch, d);
    assert_string_equal(d->message, "netvar: no app name (use --netvar-app=NAME); no prediction");
    free(d);
    d = fresh(0x5a, model, &ix);
    snprintf(d->app, sizeof d->app, "gromacs");
    d->app_source = "NETVAR_APP";
    nv_submit_render(c, &q, &ch, d);
    assert_string_equal(
        d->message, "netvar: app gromacs (from NETVAR_APP) is not in the model yet; no prediction");
    free(d);

    /* a known app: the figures with units and sources, then the rule */
    d = fresh(0x5a, model, &ix);
    snprintf(d->app, sizeof d->app, "fftw");
    d->app_known = true;
    d->utilization = 0.304;
    d->own_pct = 107.5;
    d->own_jobid = 13;
    d->own_with = "amg";
    snprintf(d->own_source, sizeof d->own_source, "model:queue");
    d->advice = true;
    d->advice_nodes = 2;
    d->requested_nodes = 1;
    d->advice_saving_pct = 40.2;
    snprintf(d->advice_source, sizeof d->advice_source, "runtime history at 3 node counts");
    nv_submit_render(c, &q, &ch, d);
    assert_string_equal(d->message,
                        "netvar: app fftw: rho 0.30; predicted slowdown 108 % beside job "
                        "13 (amg; model:queue); advice 2 nodes (-40 % time vs 1; runtime "
                        "history at 3 node counts)");
    /* the rule: what it applied, the admin's text, the uplinks kept by the
     * user's own --switches */
    struct nv_config *rc = c;
    d->rule = &rc->policy.rule[0];
    d->actions = NV_ACT_AVOID | NV_ACT_MESSAGE | NV_ACT_ANNOTATE;
    d->avoid_span_jobid = 21;
    d->avoid_span_switches = 3;
    d->avoid_span_app = "amg";
    d->avoid_span_more = 1;
    d->message[0] = '\0';
    d->message_len = 0;
    ch.resize_wanted = true;
    ch.span = NV_SPAN_USER_SWITCHES;
    nv_submit_render(c, &q, &ch, d);
    assert_non_null(strstr(
        d->message, "\nnetvar: policy rule 'r' applied: message,avoid\nnetvar: admin text\n"
                    "netvar: to run on the advised node count, add --netvar-advise=apply and "
                    "give a range with --nodes=MIN-MAX\n"
                    "netvar: avoid excludes the nodes of job 21 (amg), which spans 3 leaf "
                    "switches (so do other avoided jobs); your --switches=2 is kept, so across "
                    "leaf switches this job would still share their uplinks"));
    /* each span answer has its own line */
    const struct {
        enum nv_span_answer span;
        const char *line;
    } spans[] = {
        {NV_SPAN_CONTAINED,
         "netvar: job 21 (amg) spans 3 leaf switches and loads their uplinks (so "
         "do other avoided jobs): avoid also keeps this job under one leaf switch "
         "(waiting up to 45 s for one), where it crosses no uplink"},
        {NV_SPAN_USER_NODES,
         "netvar: avoid excludes the nodes of job 21 (amg), which spans 3 "
         "leaf switches (so do other avoided jobs); you named this job's nodes, "
         "so if they lie under several leaf switches it still shares their "
         "uplinks"},
        {NV_SPAN_TOO_BIG, "netvar: avoid excludes the nodes of job 21 (amg), which spans 3 leaf "
                          "switches (so do other avoided jobs); this job needs 2 nodes, more than "
                          "one leaf switch holds (1), so it would still share their uplinks"},
        {NV_SPAN_WARN, "netvar: avoid excludes the nodes of job 21 (amg), which spans 3 leaf "
                       "switches: on other nodes under them this job would still share their "
                       "uplinks (so would other avoided jobs)"},
    };
    ch.leaf = 1;
    d->contain_wait_s = c->contain_wait_s; /* nv_submit_choose's, for a job of one leaf */
    for (size_t i = 0; i < sizeof spans / sizeof *spans; i++) {
        d->message[0] = '\0';
        d->message_len = 0;
        ch.span = spans[i].span;
        nv_submit_render(c, &q, &ch, d);
        if (!strstr(d->message, spans[i].line))
            fail_msg("span %d: no '%s' in:\n%s", (int)spans[i].span, spans[i].line, d->message);
    }
    /* avoid dropped: the reason, and the admin's text (which may describe
     * avoid) is left out; nodes the user named, a list cut */
    d->message[0] = '\0';
    d->message_len = 0;
    ch.span = NV_SPAN_NONE;
    ch.left = 1;
    ch.part_total = 5;
    d->avoid_dropped = true;
    d->exclude_cut = true;
    d->avoid_named = 2;
    snprintf(d->avoid_named_first, sizeof d->avoid_named_first, "n1");
    d->resize_nodes = 2;
    nv_submit_render(c, &q, &ch, d);
    assert_null(strstr(d->message, "admin text"));
    assert_non_null(strstr(d->message, "\nnetvar: node count set to the advised 2 (you asked for "
                                       "--netvar-advise=apply)\n"
                                       "netvar: not placed away from the jobs it would slow down: "
                                       "avoiding their nodes would leave 1 of the partition's 5 "
                                       "nodes, fewer than the 2 this job needs\n"
                                       "netvar: the list of nodes to avoid was cut to 8192 bytes\n"
                                       "netvar: avoid does not exclude the 2 nodes you named with "
                                       "--nodelist (n1, ...) where a job to keep apart from runs: "
                                       "Slurm would refuse the submission"));
    free(d);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reset_sets_every_byte_but_the_text),
        cmocka_unit_test(identify_names_the_source),
        cmocka_unit_test(predict_fills_predictions_and_chooses_nothing),
        cmocka_unit_test(choose_works_from_the_predictions),
        cmocka_unit_test(render_tells_each_case),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
