/* test_replay_sched.c - lib/replay's scheduler: FCFS with EASY backfill,
 * topology/tree best fit, the switches wait, the isolation bound and
 * netvar's decision at submission. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "policy.h"
#include "replay.h"

static void add(rp_trace *t, double sub, int nodes, double rt, double lim)
{
    t->job = realloc(t->job, (t->n + 1) * sizeof *t->job);
    assert_non_null(t->job);
    rp_job *j = &t->job[t->n++];
    memset(j, 0, sizeof *j);
    j->id = (uint32_t)t->n;
    j->submit_s = sub;
    j->nodes = nodes;
    j->runtime_s = rt;
    j->limit_s = lim;
    j->app = 0;
}

static rp_trace *trace(void)
{
    rp_trace *t = calloc(1, sizeof *t);
    assert_non_null(t);
    assert_int_equal(rp_trace_app(t, "fftw"), 0);
    return t;
}

static void run(rp_trace *t, int leaves, int per_leaf, rp_policy p, const rp_site *s)
{
    rp_fabric f = {leaves, per_leaf, per_leaf / 2 ? per_leaf / 2 : 1, 1e9, 1e-6};
    char err[256];
    assert_int_equal(rp_schedule(t, &f, p, s, err, sizeof err), 0);
}

static void done(rp_trace *t)
{
    rp_trace_free(t);
    free(t);
}

/* a short job starts beside the blocked head when it ends before the
 * head's reservation; a long one does not */
static void backfill_only_before_the_reservation(void **state)
{
    (void)state;
    rp_trace *t = trace();
    add(t, 0, 3, 100, 120); /* A */
    add(t, 1, 4, 100, 100); /* B: the head, reserved at 120 */
    add(t, 2, 1, 30, 50);   /* C: ends by 52, backfills */
    add(t, 3, 1, 30, 500);  /* D: would delay B */
    run(t, 1, 4, RP_NONE, NULL);
    assert_true(t->job[0].start_s == 0);
    assert_true(t->job[2].start_s == 2);
    assert_true(t->job[1].start_s == 100);
    assert_true(t->job[3].start_s == 200);
    done(t);
}

/* a job stretched by an earlier pass's slowdown holds its nodes longer,
 * at most until its limit, and the next job waits for it; reset keeps the
 * stretch */
static void stretch_holds_the_nodes_longer(void **state)
{
    (void)state;
    rp_trace *t = trace();
    add(t, 0, 4, 100, 300); /* A: stretched by half, ends at 150 */
    add(t, 1, 4, 100, 120); /* B: waits for A; stretched by half, ends at its limit */
    t->job[0].stretch = 0.5;
    t->job[1].stretch = 0.5;
    assert_true(fabs(rp_job_duration_s(&t->job[0]) - 150) < 1e-9);
    assert_true(fabs(rp_job_duration_s(&t->job[1]) - 120) < 1e-9);
    rp_job atlimit = t->job[1];
    atlimit.limit_s = atlimit.runtime_s; /* its limit is its runtime: no longer */
    assert_true(rp_job_duration_s(&atlimit) == 100);
    run(t, 1, 4, RP_NONE, NULL);
    assert_true(t->job[0].end_s == 150);
    assert_true(t->job[1].start_s == 150);
    assert_true(t->job[1].end_s == 270);
    rp_trace_reset(t);
    assert_true(t->job[0].stretch == 0.5);
    t->job[0].stretch = t->job[1].stretch = 0;
    run(t, 1, 4, RP_NONE, NULL);
    assert_true(t->job[1].start_s == 100 && t->job[1].end_s == 200);
    done(t);
}

/* a head held to one leaf reserves the time a leaf holds it, not the time
 * enough nodes are free somewhere: a short job that ends before that
 * backfills at once (by node count alone the reservation would be at 100,
 * and the short job would wait until then) */
static void held_head_reserves_where_a_leaf_holds_it(void **state)
{
    (void)state;
    rp_trace *t = trace();
    static const int want[3][3] = {{4}, {0, 1, 2}, {5, 6}};
    static const double end[3] = {100, 300, 400};
    for (int i = 0; i < 3; i++) {
        int n = i == 0 ? 1 : i == 1 ? 3 : 2;
        add(t, 0, n, end[i], end[i]);
        t->job[i].want = malloc((size_t)n * sizeof(int));
        assert_non_null(t->job[i].want);
        memcpy(t->job[i].want, want[i], (size_t)n * sizeof(int));
    }
    add(t, 1, 3, 10, 10);   /* H: held to one leaf; leaf 0 holds it at 300 */
    add(t, 2, 1, 150, 150); /* E: ends at 152, before 300 */
    rp_site s = {.switches_wait_s = 1000};
    run(t, 2, 4, RP_SWITCHES, &s);
    assert_true(t->job[3].start_s == 300);
    assert_int_equal(t->job[3].nleaves, 1);
    assert_true(t->job[4].start_s == 2);
    done(t);
}

/* a job that fits under one leaf goes to the fullest leaf that holds it */
static void best_fit_picks_the_fullest_leaf(void **state)
{
    (void)state;
    rp_trace *t = trace();
    add(t, 0, 2, 1000, 1000);
    add(t, 1, 2, 1000, 1000);
    add(t, 2, 3, 1000, 1000);
    run(t, 2, 4, RP_NONE, NULL);
    int leaf0 = t->job[0].node[0] / 4;
    for (int k = 0; k < 2; k++)
        assert_int_equal(t->job[1].node[k] / 4, leaf0);
    for (int k = 0; k < 3; k++)
        assert_int_equal(t->job[2].node[k] / 4, 1 - leaf0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(t->job[i].nleaves, 1);
    done(t);
}

/* --switches holds a job for as few leaves as hold it until its wait ends */
static void switches_waits_then_spans(void **state)
{
    (void)state;
    for (int pass = 0; pass < 3; pass++) {
        rp_trace *t = trace();
        add(t, 0, 2, 100, 100);
        add(t, 0, 3, 1000, 1000);
        add(t, 10, 3, 50, 50);
        rp_site s = {.switches_wait_s = pass == 1 ? 50 : 500};
        run(t, 2, 4, pass ? RP_SWITCHES : RP_NONE, &s);
        const rp_job *r = &t->job[2];
        if (pass == 0) { /* no constraint: at once, across both leaves */
            assert_true(r->start_s == 10);
            assert_int_equal(r->nleaves, 2);
        } else if (pass == 1) { /* waited 50 s, then took two leaves */
            assert_true(fabs(r->start_s - 60) < 1e-9);
            assert_int_equal(r->nleaves, 2);
        } else { /* the first job's leaf freed within the wait */
            assert_true(r->start_s == 100);
            assert_int_equal(r->nleaves, 1);
        }
        done(t);
    }
}

/* the isolation bound never puts two spanning jobs under one leaf */
static void isolated_keeps_spanning_jobs_apart(void **state)
{
    (void)state;
    for (int iso = 0; iso < 2; iso++) {
        rp_trace *t = trace();
        add(t, 0, 3, 100, 100);
        add(t, 1, 3, 100, 100);
        run(t, 3, 2, iso ? RP_ISOLATED : RP_NONE, NULL);
        assert_int_equal(t->job[0].nleaves, 2);
        assert_int_equal(t->job[1].nleaves, 2);
        int shared = 0;
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                shared += t->job[0].node[a] / 2 == t->job[1].node[b] / 2;
        if (iso) { /* it waits for the first to end */
            assert_true(t->job[1].start_s == 100);
        } else {
            assert_true(shared > 0);
            assert_true(t->job[1].start_s == 1);
        }
        done(t);
    }
}

/* every submission goes through nv_submit_decide: its actions land on the job */
static void netvar_applies_the_decision(void **state)
{
    (void)state;
    const char *root = getenv("ROOT");
    char path[600], err[512];
    snprintf(path, sizeof path, "%s%stests/fixtures/jobsubmit/model.json", root ? root : "",
             root ? "/" : "");
    nv_model *m = nv_model_load(path, err, sizeof err);
    if (!m)
        fail_msg("%s (run from the source tree, or set ROOT)", err);
    struct nv_config *c = calloc(1, sizeof *c);
    assert_non_null(c);
    assert_int_equal(nv_config_parse("t.conf",
                                     "ContainWaitSeconds=77\n"
                                     "Rule=h app=amg action=hold\n"
                                     "Rule=c app=fftw action=contain\n",
                                     c, NULL, NULL),
                     0);
    rp_trace *t = trace();
    assert_int_equal(rp_trace_app(t, "amg"), 1);
    add(t, 0, 6, 100, 100);
    add(t, 1, 2, 100, 100);
    t->job[1].app = 1;
    rp_site s = {.conf = c, .model = m};
    run(t, 2, 4, RP_NETVAR, &s);
    assert_true(t->job[0].actions & NV_ACT_CONTAIN);
    assert_int_equal(t->job[0].max_leaves, 2);
    assert_true(t->job[0].wait_max_s == 77);
    assert_true(t->job[1].skipped);
    assert_null(t->job[1].node);
    rp_metrics mt;
    rp_fabric f = {2, 4, 2, 1e9, 1e-6};
    rp_metrics_of(t, &f, &mt);
    assert_int_equal(mt.ran, 1);
    assert_int_equal(mt.held, 1);
    assert_int_equal(mt.contained, 1);
    /* without the rules nothing acts */
    run(t, 2, 4, RP_NONE, &s);
    assert_int_equal(t->job[0].actions, 0);
    assert_false(t->job[1].skipped);
    done(t);
    free(c);
    nv_model_free(m);
}

/* the generator is deterministic in its seed and offers about the load asked */
static void generator_offers_the_load(void **state)
{
    (void)state;
    rp_trace *a = trace(), *b = trace();
    rp_fabric f = {8, 32, 16, 1e9, 1e-6};
    char err[256];
    assert_int_equal(rp_trace_generate(a, 20000, &f, 0.8, 64, 7, err, sizeof err), 0);
    assert_int_equal(rp_trace_generate(b, 20000, &f, 0.8, 64, 7, err, sizeof err), 0);
    double asked = 0;
    for (size_t i = 0; i < a->n; i++) {
        assert_true(a->job[i].submit_s == b->job[i].submit_s);
        assert_true(a->job[i].limit_s >= a->job[i].runtime_s);
        assert_true(a->job[i].nodes >= 1 && a->job[i].nodes <= 64);
        asked += a->job[i].nodes * a->job[i].runtime_s;
    }
    double load = asked / (256 * a->job[a->n - 1].submit_s);
    assert_true(load > 0.7 && load < 0.9);
    done(a);
    done(b);
}

static void trace_file_is_checked(void **state)
{
    (void)state;
    const char *bad[] = {"0,4,100,50,fftw\n", "0,0,100,100,fftw\n", "x\n", "0,4,100,100,a b\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rp_trace *t = trace();
        FILE *f = fmemopen((void *)bad[i], strlen(bad[i]), "r");
        char err[256];
        assert_int_equal(rp_trace_read(t, f, "t.csv", err, sizeof err), -1);
        assert_non_null(strstr(err, "t.csv"));
        fclose(f);
        done(t);
    }
    const char good[] = "# a comment\n0,4,100,150,fftw\n5,2,60,60,amg\n";
    rp_trace *t = trace();
    FILE *f = fmemopen((void *)good, strlen(good), "r");
    char err[256];
    assert_int_equal(rp_trace_read(t, f, "t.csv", err, sizeof err), 0);
    assert_int_equal(t->n, 2);
    assert_int_equal(t->job[1].app, rp_trace_app(t, "amg"));
    fclose(f);
    done(t);
}

static rp_trace *read_text(const char *text, int want_rc)
{
    rp_trace *t = trace();
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    assert_non_null(f);
    char err[256] = "";
    int rc = rp_trace_read(t, f, "t.csv", err, sizeof err);
    fclose(f);
    if (rc != want_rc)
        fail_msg("%s: rc %d, want %d (%s)", text, rc, want_rc, err);
    if (rc)
        assert_non_null(strstr(err, "t.csv:"));
    return t;
}

/* a trace's node list places its job exactly there, once they are free */
static void trace_node_list_places_exactly(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "0,2,10,10,a,0\n",   "0,2,10,10,a,2:1\n",  "0,2,10,10,a,1:1\n", "0,2,10,10,a,0:2:3\n",
        "0,2,10,10,a,0:x\n", "0,2,10,10,a,-1:2\n", "0,2,10,10,a 0:2\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        done(read_text(bad[i], -1));
    /* B waits for A's node 2 although the other leaf-1 node is free */
    rp_trace *t = read_text("0,2,100,100,a,0:2\n1,2,50,50,b,1:2\n2,1,10,10,c\n", 0);
    rp_fabric f = {2, 2, 1, 1e9, 1e-6};
    char err[256];
    for (int p = 0; p < RP_POLICY_COUNT; p++) {
        assert_int_equal(rp_schedule(t, &f, (rp_policy)p, NULL, err, sizeof err), 0);
        assert_int_equal(t->job[0].node[0], 0);
        assert_int_equal(t->job[0].node[1], 2);
        assert_int_equal(t->job[0].nleaves, 2);
        assert_true(t->job[1].start_s == 100);
        assert_int_equal(t->job[1].node[0], 1);
        assert_int_equal(t->job[1].node[1], 2);
        assert_true(t->job[2].start_s == 2); /* the free node 1 or 3 */
    }
    /* a node outside the fabric is an error, not a silent move */
    rp_fabric small = {1, 2, 1, 1e9, 1e-6};
    assert_int_equal(rp_schedule(t, &small, RP_NONE, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "outside the fabric"));
    done(t);
}

/* --apps: comm_frac from the measured U, the latency rule unless given */
static void apps_file_sets_traffic(void **state)
{
    (void)state;
    rp_trace *t = trace(); /* fftw */
    rp_trace_app(t, "cg");
    const char good[] = "# measured\nfftw 0.5\ncg 0.3 1\nother 0.9\n";
    FILE *f = fmemopen((void *)good, strlen(good), "r");
    char err[256];
    assert_int_equal(rp_trace_apps_read(t, f, "apps", err, sizeof err), 2);
    fclose(f);
    assert_true(t->app[0].comm_frac == 0.5);
    assert_true(t->app[0].bytes == 32e6);
    assert_false(t->app[0].latency_bound);
    assert_true(t->app[1].comm_frac == 0.3);
    assert_true(t->app[1].latency_bound);
    rp_app a;
    rp_app_set(&a, 0.05, -1);
    assert_true(a.latency_bound);
    rp_app_set(&a, 0.05, 0);
    assert_false(a.latency_bound);
    static const char *const bad[] = {"fftw\n",       "fftw 1.5\n",     "fftw -0.1\n",
                                      "fftw 0.5 2\n", "fftw 0.5 1 x\n", "fftw nan\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        f = fmemopen((void *)bad[i], strlen(bad[i]), "r");
        err[0] = 0;
        if (rp_trace_apps_read(t, f, "apps", err, sizeof err) != -1)
            fail_msg("accepted %s", bad[i]);
        assert_non_null(strstr(err, "apps:1:"));
        fclose(f);
    }
    done(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(backfill_only_before_the_reservation),
        cmocka_unit_test(held_head_reserves_where_a_leaf_holds_it),
        cmocka_unit_test(stretch_holds_the_nodes_longer),
        cmocka_unit_test(best_fit_picks_the_fullest_leaf),
        cmocka_unit_test(switches_waits_then_spans),
        cmocka_unit_test(isolated_keeps_spanning_jobs_apart),
        cmocka_unit_test(netvar_applies_the_decision),
        cmocka_unit_test(generator_offers_the_load),
        cmocka_unit_test(trace_file_is_checked),
        cmocka_unit_test(trace_node_list_places_exactly),
        cmocka_unit_test(apps_file_sets_traffic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
