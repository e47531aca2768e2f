/* test_acct_summary.c - the accounting summary: its exact text, unknown
 * figures as null, unsafe characters replaced, its bound; and joining it
 * to what other tools wrote: their text kept byte for byte (quotes and
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
    int n = nv_acct_summary_format(buf, sizeof buf, &r);
    assert_string_equal(buf, "netvar:{\"v\":1,\"app\":\"alltoall\",\"runtime_s\":41.2,\"baseline_s\":38.9,"
                             "\"slowdown_pct\":5.9,\"predicted_pct\":5.3,\"src\":\"table\"}");
    assert_int_equal(n, (int)strlen(buf));
    r.baseline_s = NAN;
    r.observed_pct = NAN;
    r.at_submission.recorded = 0;
    strcpy(r.app, "a\"b");
    nv_acct_summary_format(buf, sizeof buf, &r);
    assert_string_equal(buf, "netvar:{\"v\":1,\"app\":\"a_b\",\"runtime_s\":41.2,\"baseline_s\":null,"
                             "\"slowdown_pct\":null,\"predicted_pct\":null,\"src\":\"\"}");
    /* the longest app key and source still fit the bound */
    memset(r.app, 'x', 64);
    r.app[64] = '\0';
    r.at_submission.recorded = 1;
    memset(r.at_submission.source, 'y', sizeof r.at_submission.source - 1);
    r.at_submission.source[sizeof r.at_submission.source - 1] = '\0';
    r.runtime_s = r.baseline_s = r.observed_pct = r.at_submission.own_pct = -1e9;
    assert_true(nv_acct_summary_format(buf, sizeof buf, &r) > 0);
    assert_int_equal(nv_acct_summary_format(buf, 40, &r), -1);
    assert_string_equal(buf, "");
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_merge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
