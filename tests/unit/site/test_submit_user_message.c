/* test_submit_user_message.c - nv_submit_user_message (submit_decision.h):
 * what the user sees at sbatch for each UserMessages= level, from
 * decisions set by hand: nothing when there is nothing worth saying, plain
 * words when there is (no rho, no predictor names), the model's lines
 * unchanged at all, nothing at all at none. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "config.h"
#include "submit_decision.h"

static struct nv_config conf;
static struct nv_submit_decision d;
static struct nv_submit_query q;
static struct nv_policy_rule rule = {.name = "noisy"};
static char out[2048];

/* a decision as the stages leave one for an app with no neighbour */
static void quiet_decision(void)
{
    memset(&d, 0, sizeof d);
    memset(&q, 0, sizeof q);
    snprintf(d.app, sizeof d.app, "fftw");
    d.app_source = "job name";
    d.have_model = d.app_known = true;
    d.utilization = 0.05;
    d.own_pct = d.inflicted_pct = NAN;
    snprintf(d.message, sizeof d.message,
             "netvar: app fftw: rho 0.05; no running job to interfere with");
}

/* beside job 6 (alltoall): 290 % its own way, 108 % the other, avoided */
static void noisy_decision(void)
{
    quiet_decision();
    d.own_pct = 290.4;
    d.own_jobid = 6;
    d.own_with = "alltoall";
    snprintf(d.own_source, sizeof d.own_source, "model:queue-nearest");
    d.inflicted_pct = 108.0;
    d.inflicted_jobid = 6;
    d.inflicted_app = "alltoall";
    snprintf(d.inflicted_source, sizeof d.inflicted_source, "model:queue");
    snprintf(d.message, sizeof d.message,
             "netvar: app fftw: rho 0.05; predicted slowdown 290 %% beside job 6 (alltoall; "
             "model:queue-nearest)\nnetvar: policy rule 'noisy' applied: avoid");
    d.rule = &rule;
    d.actions = NV_ACT_AVOID | NV_ACT_ANNOTATE;
    snprintf(d.exclude, sizeof d.exclude, "n3,n4");
    d.exclude_len = 5;
}

static const char *render(enum nv_user_messages level)
{
    conf.user_messages = level;
    memset(out, 'x', sizeof out);
    nv_submit_user_message(&conf, &q, &d, out, sizeof out);
    return out;
}

static void no_model_terms(const char *s)
{
    assert_null(strstr(s, "rho"));
    assert_null(strstr(s, "model:"));
    assert_null(strstr(s, "queue"));
    assert_null(strstr(s, "table"));
}

static void nothing_worth_saying_is_silent(void **state)
{
    (void)state;
    nv_config_defaults(&conf);
    assert_int_equal(conf.user_messages, NV_UMSG_PREDICTIONS);
    quiet_decision();
    assert_string_equal(render(NV_UMSG_PREDICTIONS), "");
    assert_string_equal(render(NV_UMSG_ACTIONS), "");
    assert_string_equal(render(NV_UMSG_NONE), "");
    assert_string_equal(render(NV_UMSG_ALL), d.message);
    /* no app name, no model: silent too but at all */
    d.app[0] = '\0';
    d.app_known = false;
    snprintf(d.message, sizeof d.message,
             "netvar: no app name (use --netvar-app=NAME); no prediction");
    assert_string_equal(render(NV_UMSG_PREDICTIONS), "");
    assert_string_equal(render(NV_UMSG_ALL), d.message);
}

static void below_the_threshold_is_silent(void **state)
{
    (void)state;
    nv_config_defaults(&conf); /* InterferenceThreshold=10 */
    quiet_decision();
    d.own_pct = 9.6; /* shown as "10 %", but under 10 */
    d.own_jobid = 6;
    d.own_with = "alltoall";
    assert_string_equal(render(NV_UMSG_PREDICTIONS), "");
    d.own_pct = 10.0; /* at the threshold: said */
    assert_string_equal(render(NV_UMSG_PREDICTIONS),
                        "netvar: your job would share a network link with job 6 (alltoall); "
                        "expected slowdown about 10 %.");
    assert_string_equal(render(NV_UMSG_ACTIONS), ""); /* nothing done */
    /* a 0 % prediction is never worth saying, whatever the threshold */
    conf.interference_pct = 0;
    d.own_pct = 0.0;
    assert_string_equal(render(NV_UMSG_PREDICTIONS), "");
}

static void several_neighbours_are_said_as_one_load(void **state)
{
    (void)state;
    noisy_decision();
    d.vs_n = 3;
    d.vs_assumed = "";
    d.inflicted_pct = NAN;
    const char *s = render(NV_UMSG_PREDICTIONS);
    assert_non_null(strstr(s, "share network links with 3 running jobs (job 6, alltoall, and 2 "
                              "more); expected slowdown about 290 % beside them together."));
    assert_non_null(strstr(s, "Placed away from them."));
    assert_null(strstr(s, "not known yet"));
    no_model_terms(s);
    d.vs_assumed = "placement unknown: all running jobs on shared uplinks assumed";
    assert_non_null(strstr(render(NV_UMSG_PREDICTIONS), "not known yet"));
}

static void an_action_is_said_plainly(void **state)
{
    (void)state;
    nv_config_defaults(&conf);
    noisy_decision();
    const char *want = "netvar: your job would share a network link with job 6 (alltoall); "
                       "expected slowdown about 290 %, and about 108 % for job 6. Placed away "
                       "from it.";
    assert_string_equal(render(NV_UMSG_PREDICTIONS), want);
    no_model_terms(out);
    assert_string_equal(render(NV_UMSG_ACTIONS), want);
    assert_string_equal(render(NV_UMSG_NONE), "");
    assert_string_equal(render(NV_UMSG_ALL), d.message);
    assert_non_null(strstr(out, "model:queue-nearest"));
    /* the other way only, and a second job: both named */
    d.inflicted_pct = NAN;
    assert_string_equal(render(NV_UMSG_ACTIONS),
                        "netvar: your job would share a network link with job 6 (alltoall); "
                        "expected slowdown about 290 %. Placed away from it.");
    d.inflicted_pct = 50;
    d.inflicted_jobid = 7;
    d.inflicted_app = "fftw";
    assert_string_equal(render(NV_UMSG_ACTIONS),
                        "netvar: your job would share network links with job 6 (alltoall), "
                        "expected slowdown about 290 %, and with job 7 (fftw), which it would "
                        "slow down by about 50 %. Placed away from them.");
}

static void actions_without_prediction(void **state)
{
    (void)state;
    nv_config_defaults(&conf);
    quiet_decision();
    d.rule = &rule;
    d.actions = NV_ACT_CONTAIN;
    d.contain_wait_s = 300;
    assert_string_equal(render(NV_UMSG_ACTIONS),
                        "netvar: kept under one network switch (waiting up to 300 s for one).");
    /* larger than one leaf, where the site contains none such (ContainSpanWaitSeconds=0) */
    d.actions = 0;
    d.contain_wait_s = 0;
    d.contain_span_skipped = true;
    assert_string_equal(render(NV_UMSG_ACTIONS),
                        "netvar: not held back for fewer network switches: it needs more than "
                        "one, and this site waits only for jobs that fit under one.");
    d.contain_span_skipped = false;
    d.actions = NV_ACT_CONTAIN;
    d.contain_wait_s = 300;
    /* the user's own --switches stays: contain did nothing */
    q.req_switch = 2;
    assert_string_equal(render(NV_UMSG_ACTIONS), "");
    q.req_switch = 0;
    /* the admin's text, on its own line */
    d.actions = NV_ACT_MESSAGE | NV_ACT_HOLD;
    snprintf(rule.message, sizeof rule.message, "Large jobs wait for the night queue.");
    assert_string_equal(render(NV_UMSG_ACTIONS),
                        "netvar: held: it waits until an administrator releases it.\n"
                        "Large jobs wait for the night queue.");
    rule.message[0] = '\0';
    /* avoid that could not be done is said */
    noisy_decision();
    d.actions = NV_ACT_MESSAGE;
    d.exclude[0] = '\0';
    d.avoid_dropped = true;
    d.inflicted_pct = NAN;
    assert_string_equal(render(NV_UMSG_ACTIONS),
                        "netvar: your job would share a network link with job 6 (alltoall); "
                        "expected slowdown about 290 %. Not placed away from it: that would "
                        "leave too few nodes for this job.");
}

static void advice_is_a_prediction(void **state)
{
    (void)state;
    nv_config_defaults(&conf);
    quiet_decision();
    d.advice = true;
    d.advice_nodes = 4;
    d.requested_nodes = 2;
    d.advice_saving_pct = 31.2;
    assert_string_equal(render(NV_UMSG_PREDICTIONS),
                        "netvar: your job is predicted to finish about 31 % sooner on 4 nodes "
                        "than on 2; to run on the advised count, add --netvar-advise=apply and "
                        "give a range with --nodes=MIN-MAX.");
    assert_string_equal(render(NV_UMSG_ACTIONS), "");
    d.advice_saving_pct = 3; /* under the threshold */
    assert_string_equal(render(NV_UMSG_PREDICTIONS), "");
    /* applied: an action */
    d.resize_nodes = 4;
    d.actions = NV_ACT_RESIZE;
    assert_string_equal(
        render(NV_UMSG_ACTIONS),
        "netvar: run on the advised 4 nodes (you asked for --netvar-advise=apply).");
}

static void small_buffers_end_in_nul(void **state)
{
    (void)state;
    nv_config_defaults(&conf);
    noisy_decision();
    char small[16];
    nv_submit_user_message(&conf, &q, &d, small, sizeof small);
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_memory_equal(small, "netvar: your jo", 15);
    conf.user_messages = NV_UMSG_ALL;
    nv_submit_user_message(&conf, &q, &d, small, sizeof small);
    assert_int_equal(strlen(small), sizeof small - 1);
}

static void config_reads_the_level(void **state)
{
    (void)state;
    static struct nv_config c;
    assert_int_equal(nv_config_parse("t.conf", "UserMessages=actions\n", &c, NULL, NULL), 0);
    assert_int_equal(c.user_messages, NV_UMSG_ACTIONS);
    assert_int_equal(nv_config_parse("t.conf", "UserMessages=ALL\n", &c, NULL, NULL), 0);
    assert_int_equal(c.user_messages, NV_UMSG_ALL);
    assert_int_equal(nv_config_parse("t.conf", "UserMessages=none\n", &c, NULL, NULL), 0);
    assert_int_equal(c.user_messages, NV_UMSG_NONE);
    assert_int_equal(nv_config_parse("t.conf", "UserMessages=loud\n", &c, NULL, NULL), 1);
    assert_int_equal(c.user_messages, NV_UMSG_PREDICTIONS);
    assert_int_equal(
        nv_config_parse("t.conf", "UserMessages=all\nUserMessages=none\n", &c, NULL, NULL), 1);
    assert_int_equal(c.user_messages, NV_UMSG_ALL);
    assert_string_equal(nv_user_messages_name(NV_UMSG_PREDICTIONS), "predictions");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nothing_worth_saying_is_silent),
        cmocka_unit_test(below_the_threshold_is_silent),
        cmocka_unit_test(an_action_is_said_plainly),
        cmocka_unit_test(several_neighbours_are_said_as_one_load),
        cmocka_unit_test(actions_without_prediction),
        cmocka_unit_test(advice_is_a_prediction),
        cmocka_unit_test(small_buffers_end_in_nul),
        cmocka_unit_test(config_reads_the_level),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
