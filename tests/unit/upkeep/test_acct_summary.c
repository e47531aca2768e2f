/* test_acct_summary.c - the accounting summary: its exact text, unknown
 * figures as null, unsafe characters replaced, its bound; the prediction
 * at submission taken only from netvar's own word in AdminComment, the
 * Comment's (user-editable) copy written as the user's claim; and joining
 * it to what other tools wrote: their text kept byte for byte (quotes and
 * all), an earlier netvar entry replaced wherever it stood, an unbalanced
 * "netvar:{" left as the other text it is, and no cut when it does not
 * fit. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "acct_summary.h"

static nv_job_report report(void)
{
    nv_job_report r;
    memset(&r, 0, sizeof r);
    r.has_app = 1;
    strcpy(r.app, "alltoall");
    r.runtime_s = 41.23;
    r.baseline_s = 38.94;
    r.observed_pct = 5.88;
    r.at_submission.recorded = 1;
    r.at_submission.own_pct = 5.26;
    strcpy(r.at_submission.source, "table");
    return r;
}

static void test_format(void **state)
{
    (void)state;
    nv_job_report r = report();
    char buf[NV_ACCT_SUMMARY_MAX];
    nv_acct_prediction own;
    assert_int_equal(
        nv_acct_own_prediction("netvar:{\"v\":1,\"mode\":\"counters\",\"app\":\"alltoall\","
                               "\"model\":\"known\",\"own_pct\":5.26,\"src\":\"table\"}",
                               &own),
        1);
    int n = nv_acct_summary_format(buf, sizeof buf, &r, &own);
    assert_string_equal(
        buf, "netvar:{\"v\":2,\"app\":\"alltoall\",\"runtime_s\":41.2,\"baseline_s\":38.9,"
             "\"slowdown_pct\":5.9,\"predicted_pct\":5.3,\"src\":\"table\","
             "\"claimed_pct\":null,\"claimed_src\":\"\"}");
    assert_int_equal(n, (int)strlen(buf));
    r.baseline_s = NAN;
    r.observed_pct = NAN;
    r.at_submission.recorded = 0;
    strcpy(r.app, "a\"b");
    nv_acct_summary_format(buf, sizeof buf, &r, NULL);
    assert_string_equal(buf,
                        "netvar:{\"v\":2,\"app\":\"a_b\",\"runtime_s\":41.2,\"baseline_s\":null,"
                        "\"slowdown_pct\":null,\"predicted_pct\":null,\"src\":\"\","
                        "\"claimed_pct\":null,\"claimed_src\":\"\"}");
    /* the longest app key and sources and the longest figures still fit */
    memset(r.app, 'x', 64);
    r.app[64] = '\0';
    r.at_submission.recorded = 1;
    memset(r.at_submission.source, 'y', sizeof r.at_submission.source - 1);
    r.at_submission.source[sizeof r.at_submission.source - 1] = '\0';
    r.runtime_s = r.baseline_s = r.observed_pct = -1e15;
    r.at_submission.own_pct = -NV_ACCT_PCT_MAX;
    memset(own.src, 'z', sizeof own.src - 1);
    own.pct = -NV_ACCT_PCT_MAX;
    assert_true(nv_acct_summary_format(buf, sizeof buf, &r, NULL) > 0);
    assert_true(nv_acct_summary_format(buf, sizeof buf, &r, &own) > 0);
    assert_int_equal(nv_acct_summary_format(buf, 40, &r, NULL), -1);
    assert_string_equal(buf, "");
    /* a figure no number of digits can hold is null, not a summary that
     * no longer fits */
    r.runtime_s = 1e300;
    r.at_submission.own_pct = 1e300;
    assert_true(nv_acct_summary_format(buf, sizeof buf, &r, NULL) > 0);
    assert_non_null(strstr(buf, "\"runtime_s\":null"));
    assert_non_null(strstr(buf, "\"claimed_pct\":null"));
}

/* issue 52 item 5: a held job's Comment set to a forged annotation
 * (scontrol update) reached the prolog's record, and the summary wrote it
 * as netvar's prediction */
static void test_forged_comment(void **state)
{
    (void)state;
    nv_job_report r = report();
    r.at_submission.own_pct = -50.0; /* what the user wrote in their Comment */
    char buf[NV_ACCT_SUMMARY_MAX];
    /* no netvar word in AdminComment (AnnotateField=Comment, or --print):
     * the figure is the user's claim, marked so, never predicted_pct */
    nv_acct_prediction own;
    assert_int_equal(nv_acct_own_prediction("JS1:H4sIabc", &own), 0);
    nv_acct_summary_format(buf, sizeof buf, &r, &own);
    assert_non_null(strstr(buf, "\"predicted_pct\":null,\"src\":\"\","
                                "\"claimed_pct\":-50.0,\"claimed_src\":\"table\"}"));
    nv_acct_summary_format(buf, sizeof buf, &r, NULL);
    assert_non_null(strstr(buf, "\"predicted_pct\":null,\"src\":\"\",\"claimed_pct\":-50.0"));
    /* job_submit's annotation in AdminComment (users cannot set it) is
     * netvar's word, and the Comment's claim is left out */
    assert_int_equal(nv_acct_own_prediction("JS1:H4sIabc netvar:{\"v\":1,\"mode\":\"counters\","
                                            "\"app\":\"alltoall\",\"own_pct\":12.0,"
                                            "\"src\":\"model:queue\",\"action\":\"message\"}",
                                            &own),
                     1);
    nv_acct_summary_format(buf, sizeof buf, &r, &own);
    assert_non_null(strstr(buf, "\"predicted_pct\":12.0,\"src\":\"model:queue\","
                                "\"claimed_pct\":null,\"claimed_src\":\"\"}"));
    /* an annotation that made no prediction says so: no claim either */
    assert_int_equal(
        nv_acct_own_prediction("netvar:{\"v\":1,\"mode\":\"counters\",\"model\":\"none\"}", &own),
        1);
    nv_acct_summary_format(buf, sizeof buf, &r, &own);
    assert_non_null(strstr(buf, "\"predicted_pct\":null,\"src\":\"\",\"claimed_pct\":null,"));
}

/* what counts as netvar's word in AdminComment, and writing again */
static void test_own_prediction(void **state)
{
    (void)state;
    nv_acct_prediction own;
    assert_int_equal(nv_acct_own_prediction(NULL, &own), 0);
    assert_true(isnan(own.pct) && isnan(own.claimed_pct));
    assert_int_equal(nv_acct_own_prediction("", &own), 0);
    assert_int_equal(nv_acct_own_prediction("netvar:{ broken", &own), 0);
    assert_int_equal(nv_acct_own_prediction("netvar:{\"app\":\"x\",\"own_pct\":3}", &own),
                     0); /* no v */
    assert_int_equal(nv_acct_own_prediction("netvar:[1]", &own), 0);
    /* a version 1 summary's predicted_pct was the Comment's claim */
    assert_int_equal(nv_acct_own_prediction("netvar:{\"v\":1,\"app\":\"a\",\"runtime_s\":4.0,"
                                            "\"predicted_pct\":-50.0,\"src\":\"table\"}",
                                            &own),
                     0);
    /* the last of several entries */
    assert_int_equal(
        nv_acct_own_prediction("netvar:{\"v\":1,\"mode\":\"counters\",\"own_pct\":1.0} x "
                               "netvar:{\"v\":1,\"mode\":\"counters\",\"own_pct\":2.0,"
                               "\"src\":\"table\"} netvar:{ open",
                               &own),
        1);
    assert_true(own.pct == 2.0);
    assert_string_equal(own.src, "table");

    /* writing again from netvar's own earlier summary gives the same text,
     * with netvar's word or with the user's claim */
    nv_job_report r = report();
    char first[NV_ACCT_SUMMARY_MAX], again[NV_ACCT_SUMMARY_MAX], merged[2 * NV_ACCT_SUMMARY_MAX];
    nv_acct_own_prediction(
        "netvar:{\"v\":1,\"mode\":\"counters\",\"own_pct\":7.04,\"src\":\"table\"}", &own);
    nv_acct_summary_format(first, sizeof first, &r, &own);
    assert_true(nv_acct_merge("JS1:abc", first, merged, sizeof merged) > 0);
    assert_int_equal(nv_acct_own_prediction(merged, &own), 1);
    nv_acct_summary_format(again, sizeof again, &r, &own);
    assert_string_equal(again, first);
    assert_non_null(strstr(again, "\"predicted_pct\":7.0,\"src\":\"table\""));
    r.at_submission.own_pct = -50.0;
    nv_acct_summary_format(first, sizeof first, &r, NULL);
    assert_int_equal(nv_acct_own_prediction(first, &own), 1);
    nv_acct_summary_format(again, sizeof again, &r, &own);
    assert_string_equal(again, first);
    assert_non_null(strstr(again, "\"predicted_pct\":null,\"src\":\"\",\"claimed_pct\":-50.0"));
}

static void test_merge(void **state)
{
    (void)state;
    const char *s = "netvar:{\"v\":1}";
    char out[256];
    assert_int_equal(nv_acct_merge(NULL, s, out, sizeof out), (int)strlen(s));
    assert_string_equal(out, s);
    nv_acct_merge("", s, out, sizeof out);
    assert_string_equal(out, s);
    /* another tool's text, quotes and all, is kept */
    nv_acct_merge("JS1:H4sI'x\"y\"", s, out, sizeof out);
    assert_string_equal(out, "JS1:H4sI'x\"y\" netvar:{\"v\":1}");
    /* an earlier netvar entry is replaced, wherever it stood */
    nv_acct_merge("a netvar:{\"v\":1,\"app\":\"old\",\"s\":\"}{\"} b", s, out, sizeof out);
    assert_string_equal(out, "a b netvar:{\"v\":1}");
    nv_acct_merge("netvar:{\"mode\":\"counters\",\"x\":{\"y\":2}}", s, out, sizeof out);
    assert_string_equal(out, s);
    nv_acct_merge("netvar:{\"v\":1} netvar:{\"v\":1} z", s, out, sizeof out);
    assert_string_equal(out, "z netvar:{\"v\":1}");
    /* a netvar:{ that never closes is not ours to remove */
    nv_acct_merge("see netvar:{ broken", s, out, sizeof out);
    assert_string_equal(out, "see netvar:{ broken netvar:{\"v\":1}");
    /* no room: nothing, rather than a cut */
    assert_int_equal(nv_acct_merge("0123456789", s, out, 20), -1);
    assert_string_equal(out, "");
    assert_int_equal(nv_acct_json_span("{\"a\":\"\\\"}\"}", 100), 11);
    assert_int_equal(nv_acct_json_span("{\"a\":1", 100), 0);
}

/* issue 50: jobstats decodes everything after "JS1:" in AdminComment */
static void test_jobstats_value(void **state)
{
    (void)state;
    assert_true(nv_acct_holds_jobstats("JS1:H4sIAAAA"));
    assert_true(nv_acct_holds_jobstats("JS1:"));
    assert_false(nv_acct_holds_jobstats(" JS1:H4sI"));
    assert_false(nv_acct_holds_jobstats("js1:h4si")); /* not jobstats' spelling */
    assert_false(nv_acct_holds_jobstats("mine JS1:x"));
    assert_false(nv_acct_holds_jobstats("netvar:{\"v\":2}"));
    assert_false(nv_acct_holds_jobstats(""));
    assert_false(nv_acct_holds_jobstats(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format),         cmocka_unit_test(test_jobstats_value),
        cmocka_unit_test(test_forged_comment), cmocka_unit_test(test_own_prediction),
        cmocka_unit_test(test_merge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
