/* test_submit_stats.c - job_submit's decision counts and call times: the
 * buckets' edges, the file's round trip, and the files the reader refuses. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "nv_test.h"
#include "policy.h"
#include "submit_stats.h"

static void counts_by_action_and_bucket(void **state)
{
    (void)state;
    nv_submit_stats s = {0};
    nv_submit_stats_note_decision(&s, 0);
    nv_submit_stats_note_decision(&s, NV_ACT_AVOID | NV_ACT_ANNOTATE);
    nv_submit_stats_note_decision(&s, NV_ACT_DENY);
    assert_int_equal(s.submissions, 3);
    assert_int_equal(s.no_action, 1);
    assert_int_equal(s.action[3], 1); /* avoid */
    assert_int_equal(s.action[1], 1); /* annotate */
    assert_int_equal(s.action[6], 1); /* deny */
    assert_int_equal(s.action[0], 0);
    /* a bucket's bound is inclusive (le): 1 us in the first, 1.001 us in the second */
    nv_submit_stats_note_call(&s, 1000);
    nv_submit_stats_note_call(&s, 1001);
    nv_submit_stats_note_call(&s, 7000);       /* <= 10 us */
    nv_submit_stats_note_call(&s, 2000000000); /* 2 s: above every bound */
    assert_int_equal(s.bucket[0], 1);
    assert_int_equal(s.bucket[1], 1);
    assert_int_equal(s.bucket[3], 1);
    assert_int_equal(s.bucket[NV_SUBMIT_STATS_BUCKETS], 1);
    assert_int_equal(s.calls, 4);
    assert_int_equal(s.total_ns, 1000 + 1001 + 7000 + 2000000000ull);
}

static void the_file_round_trips(void **state)
{
    (void)state;
    nv_submit_stats s = {0}, snap, back;
    for (int i = 0; i < 5; i++)
        nv_submit_stats_note_decision(&s, i % 2 ? NV_ACT_MESSAGE : 0);
    for (uint64_t ns = 500; ns < 60000; ns += 700)
        nv_submit_stats_note_call(&s, ns);
    s.started_unix_s = 1700000000.25;
    s.written_unix_s = 1700000100.5;
    nv_submit_stats_snapshot(&s, &snap);
    assert_memory_equal(&snap, &s, sizeof s);
    char buf[2048], err[300];
    int len = nv_submit_stats_format(&snap, buf, sizeof buf);
    assert_true(len > 0);
    assert_int_equal(nv_submit_stats_parse("t", buf, (size_t)len, &back, err, sizeof err), 0);
    assert_memory_equal(&back, &snap, sizeof s);
    assert_int_equal(nv_submit_stats_format(&snap, buf, 100), -1); /* does not fit */

    char dir[64], path[128];
    assert_int_equal(nv_test_tmpdir(dir, sizeof dir, "submit-stats"), 0);
    len = nv_submit_stats_format(&snap, buf, sizeof buf);
    assert_int_equal(nv_test_write_file(dir, "s.json", buf), 0);
    snprintf(path, sizeof path, "%s/s.json", dir);
    assert_int_equal(nv_submit_stats_read(path, &back, err, sizeof err), 0);
    assert_memory_equal(&back, &snap, sizeof s);
    snprintf(path, sizeof path, "%s/none.json", dir);
    assert_int_equal(nv_submit_stats_read(path, &back, err, sizeof err), -1);
    assert_non_null(strstr(err, "none.json"));
    assert_int_equal(nv_test_rmtree(dir), 0);
}

/* each edit of a good file is refused with a line naming what is wrong */
static void bad_files_are_refused(void **state)
{
    (void)state;
    nv_submit_stats s = {0}, back;
    nv_submit_stats_note_decision(&s, NV_ACT_HOLD);
    nv_submit_stats_note_call(&s, 3000);
    char good[2048], bad[2100], err[300];
    assert_true(nv_submit_stats_format(&s, good, sizeof good) > 0);
    static const struct {
        const char *from, *to, *why;
    } edits[] = {
        {"netvar-jobsubmit-stats", "netvar-running", "schema"},
        {"\"calls\":1", "\"calls\":2", "buckets hold 1"},
        {"\"hold\":1", "\"hold\":-1", "actions.hold"},
        {"\"submissions\":1", "\"submissions\":0", "more than the 0 submissions"},
        {"\"no_action\":0", "\"no_action\":1", "more than the 0 submissions"},
        {"\"hold\":1", "\"hold\":0", "none counted by action"},
        {"1e-06", "2e-06", "le_s[0]"},
        {"\"total_ns\":3000,", "", "total_ns"},
    };
    for (size_t k = 0; k < sizeof edits / sizeof edits[0]; k++) {
        const char *at = strstr(good, edits[k].from);
        assert_non_null(at);
        snprintf(bad, sizeof bad, "%.*s%s%s", (int)(at - good), good, edits[k].to,
                 at + strlen(edits[k].from));
        err[0] = '\0';
        if (nv_submit_stats_parse("f", bad, strlen(bad), &back, err, sizeof err) != -1)
            fail_msg("edit %zu accepted: %s", k, bad);
        if (!strstr(err, edits[k].why))
            fail_msg("edit %zu: '%s' lacks '%s'", k, err, edits[k].why);
    }
    assert_int_equal(nv_submit_stats_parse("f", "{", 1, &back, err, sizeof err), -1);
    assert_non_null(strstr(err, "not JSON"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counts_by_action_and_bucket),
        cmocka_unit_test(the_file_round_trips),
        cmocka_unit_test(bad_files_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
