/* test_replay_flow.c - the flow batches lib/replay writes for the
 * simulator, and the slowdowns it makes of the answer. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "replay.h"

static const rp_fabric F = {4, 2, 1, 1e9, 1e-6};

/* job i on the given nodes from start to end */
static void put(rp_trace *t, size_t i, double start, double end, const int *nodes, int n)
{
    rp_job *j = &t->job[i];
    memset(j, 0, sizeof *j);
    j->id = (uint32_t)i + 1;
    j->start_s = start;
    j->end_s = end;
    j->runtime_s = end - start;
    j->nodes = n;
    j->node = malloc((size_t)n * sizeof *j->node);
    assert_non_null(j->node);
    memcpy(j->node, nodes, (size_t)n * sizeof *nodes);
    j->nleaves = 0;
    for (int k = 0; k < n; k++)
        j->nleaves += k == 0 || nodes[k] / F.per_leaf != nodes[k - 1] / F.per_leaf;
    j->app = 0;
}

static rp_trace *three_jobs(void)
{
    rp_trace *t = calloc(1, sizeof *t);
    assert_non_null(t);
    rp_trace_app(t, "a");
    t->app[0].comm_frac = 0.5;
    t->app[0].bytes = 1e6;
    t->n = 3;
    t->job = calloc(3, sizeof *t->job);
    assert_non_null(t->job);
    const int a[] = {0, 2}, b[] = {1, 3}, c[] = {4, 6};
    put(t, 0, 0, 100, a, 2);  /* leaves 0, 1 */
    put(t, 1, 50, 150, b, 2); /* leaves 0, 1: shares with job 0 from 50 to 100 */
    put(t, 2, 0, 200, c, 2);  /* leaves 2, 3: shares nothing */
    return t;
}

static size_t count(const char *text, const char *word)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, word)); p++)
        n++;
    return n;
}

/* only jobs that share a leaf are simulated together; each alone once */
static void batches_cover_shared_leaves_only(void **state)
{
    (void)state;
    rp_trace *t = three_jobs();
    char *buf = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&buf, &len);
    rp_flow_plan *p = NULL;
    assert_int_equal(rp_flow_write(t, &F, o, &p), 3);
    fclose(o);
    assert_non_null(p);
    assert_int_equal(count(buf, "batch "), 3);
    assert_int_equal(count(buf, "def 2 "), 0);
    /* SimGrid's timing precision: a thousandth of the shortest phase,
     * 1e6 bytes through a 1e9 B/s node link */
    assert_true(fabs(rp_flow_precision_s(t, &F) - 1e-6) < 1e-15);
    assert_non_null(strstr(buf, "fabric 4 2 1 1e+09 1e-06 1e-06\n"));
    /* each job's nodes once, before the first batch that names it */
    assert_int_equal(count(buf, "def 0 "), 1);
    assert_int_equal(count(buf, "def 1 "), 1);
    const char *d0 = strstr(buf, "def 0 1000000 2 0 2\n"), *b0 = strstr(buf, "batch 0 2 0 1\n");
    assert_non_null(d0);
    assert_non_null(b0);
    assert_true(d0 < b0);
    /* the answer: alone 1 s each, together 3 s: the excess 2 over 50 s */
    /* job 1 ran 50 s alone but held its nodes 100 s (an earlier pass's
     * slowdown stretched it): its slowdown is the mean over the 100 s */
    t->job[1].runtime_s = 50;
    const char ans[] = "0 0 3\n0 1 3\n1 0 1\n2 1 1\n7 0 1\nnot a line\n";
    FILE *in = fmemopen((void *)ans, strlen(ans), "r");
    size_t bad = 9;
    char err[256];
    assert_int_equal(rp_flow_apply(t, p, in, &bad, err, sizeof err), 0);
    fclose(in);
    assert_int_equal(bad, 2);
    /* 100 x 0.5 x 2 x 50 s / 100 s */
    assert_true(fabs(t->job[0].slowdown_pct - 50) < 1e-9);
    assert_true(fabs(t->job[1].slowdown_pct - 50) < 1e-9);
    assert_true(t->job[2].slowdown_pct == 0);
    assert_true(t->job[0].shared && !t->job[2].shared);
    rp_flow_free(p);
    free(buf);
    rp_trace_free(t);
    free(t);
}

/* an answer that leaves a planned job out is an error, not a zero */
static void a_missing_answer_is_reported(void **state)
{
    (void)state;
    rp_trace *t = three_jobs();
    FILE *o = fopen("/dev/null", "w");
    rp_flow_plan *p = NULL;
    assert_int_equal(rp_flow_write(t, &F, o, &p), 3);
    fclose(o);
    const char ans[] = "0 0 3\n1 0 1\n2 1 1\n";
    FILE *in = fmemopen((void *)ans, strlen(ans), "r");
    size_t bad;
    char err[256];
    assert_int_equal(rp_flow_apply(t, p, in, &bad, err, sizeof err), -1);
    assert_non_null(strstr(err, "no time"));
    fclose(in);
    rp_flow_free(p);
    rp_trace_free(t);
    free(t);
}

/* the same group met again reuses its batch: job 2 starting apart at 70
 * splits 0 and 1's time together in two intervals, one batch */
static void a_group_seen_again_is_not_simulated_again(void **state)
{
    (void)state;
    rp_trace *t = three_jobs();
    const int c[] = {4, 6};
    free(t->job[2].node);
    put(t, 2, 70, 200, c, 2);
    FILE *o = fopen("/dev/null", "w");
    rp_flow_plan *p = NULL;
    assert_int_equal(rp_flow_write(t, &F, o, &p), 3); /* {0,1}, 0 alone, 1 alone */
    fclose(o);
    const char ans[] = "0 0 2\n0 1 2\n1 0 1\n2 1 1\n";
    FILE *in = fmemopen((void *)ans, strlen(ans), "r");
    size_t bad;
    char err[256];
    assert_int_equal(rp_flow_apply(t, p, in, &bad, err, sizeof err), 0);
    fclose(in);
    /* both intervals (20 s + 30 s) counted: 100 x 0.5 x 1 x 50 / 100 */
    assert_true(fabs(t->job[0].slowdown_pct - 25) < 1e-9);
    rp_flow_free(p);
    rp_trace_free(t);
    free(t);
}

/* two jobs of one shape (same bytes, ranks at the same places of their
 * leaves, other leaves) share one alone batch: A on leaves 0, 1 and C on
 * leaves 2, 3, both at offset 0; B joins them through leaves 1 and 2 */
static void jobs_of_one_shape_share_their_alone_batch(void **state)
{
    (void)state;
    rp_trace *t = three_jobs();
    const int b[] = {3, 5}, c[] = {4, 6};
    free(t->job[1].node);
    free(t->job[2].node);
    put(t, 1, 0, 100, b, 2);
    put(t, 2, 0, 100, c, 2);
    char *buf = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&buf, &len);
    rp_flow_plan *p = NULL;
    assert_int_equal(rp_flow_write(t, &F, o, &p), 3); /* {A,B,C}, A alone, B alone */
    fclose(o);
    assert_int_equal(count(buf, "def 2 "), 1);
    const char ans[] = "0 0 2\n0 1 2\n0 2 3\n1 0 1\n2 1 1\n";
    FILE *in = fmemopen((void *)ans, strlen(ans), "r");
    size_t bad;
    char err[256];
    assert_int_equal(rp_flow_apply(t, p, in, &bad, err, sizeof err), 0);
    fclose(in);
    assert_int_equal(bad, 0);
    /* C: 100 x 0.5 x (3 / 1 - 1) x 100 s / 100 s, alone from A's batch */
    assert_true(fabs(t->job[2].slowdown_pct - 100) < 1e-9);
    rp_flow_free(p);
    free(buf);
    rp_trace_free(t);
    free(t);
}

/* a def line writes a run of consecutive slots as FIRST-LAST, in rank
 * order (rank i sends to rank i + n / 2: the order is the pattern) */
static void a_def_line_writes_runs_in_rank_order(void **state)
{
    (void)state;
    rp_trace *t = three_jobs();
    const int a[] = {2, 3, 0, 1, 5};
    free(t->job[0].node);
    put(t, 0, 0, 100, a, 5);
    char *buf = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&buf, &len);
    rp_flow_plan *p = NULL;
    assert_true(rp_flow_write(t, &F, o, &p) > 0);
    fclose(o);
    assert_non_null(strstr(buf, "def 0 1000000 5 2-3 0-1 5\n"));
    rp_flow_free(p);
    free(buf);
    rp_trace_free(t);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(batches_cover_shared_leaves_only),
        cmocka_unit_test(a_missing_answer_is_reported),
        cmocka_unit_test(a_def_line_writes_runs_in_rank_order),
        cmocka_unit_test(a_group_seen_again_is_not_simulated_again),
        cmocka_unit_test(jobs_of_one_shape_share_their_alone_batch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
