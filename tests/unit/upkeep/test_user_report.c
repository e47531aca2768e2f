/* test_user_report.c - the report a user reads from accounting: a sacct
 * line parsed (the summary from SystemComment or AdminComment, the
 * annotation from AdminComment before the user's Comment, another job's
 * line and steps skipped, malformed fields refused), untrusted text made
 * printable, the header and the plain-words summary with units, the one
 * note chosen by the figures, the bound, and Slurm's mail subject. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "user_report.h"
#include "sacct_history.h"

#define D NV_SACCT_DELIM
#define SUMMARY                                                                                    \
    "netvar:{\"v\":2,\"app\":\"alltoall\",\"runtime_s\":52.4,\"baseline_s\":40.0,"                 \
    "\"slowdown_pct\":31.0,\"predicted_pct\":28.5,\"src\":\"table\",\"claimed_pct\":null,"         \
    "\"claimed_src\":\"\"}"
#define ANNOT                                                                                      \
    "netvar:{\"v\":1,\"mode\":\"counters\",\"app\":\"alltoall\",\"own_pct\":28.5,"                 \
    "\"src\":\"table\",\"vs\":\"fftw\",\"vs_job\":6}"

static char line[8192];
static const char *mk(const char *id, const char *user, const char *nnodes, const char *comment,
                      const char *admin, const char *system)
{
    snprintf(line, sizeof line,
             "%s" D "%s" D "1001" D "physics" D "COMPLETED" D "75" D "%s" D "n[1-2]" D "%s" D "%s" D
             "%s\n",
             id, user, nnodes, comment, admin, system);
    return line;
}

static void test_parse(void **state)
{
    (void)state;
    nv_ureport r;
    char err[256];
    /* the summary in SystemComment beside jobstats' value */
    assert_int_equal(nv_ureport_parse(mk("42", "alice", "2", "", "JS1:abc " ANNOT, SUMMARY), 42, &r,
                                      err, sizeof err),
                     0);
    assert_int_equal(r.job_id, 42);
    assert_int_equal(r.uid, 1001);
    assert_string_equal(r.user, "alice");
    assert_string_equal(r.account, "physics");
    assert_true(r.elapsed_s == 75);
    assert_int_equal(r.nnodes, 2);
    assert_true(r.has_summary);
    assert_string_equal(r.app, "alltoall");
    assert_true(fabs(r.slowdown_pct - 31.0) < 1e-9);
    assert_true(fabs(r.predicted_pct - 28.5) < 1e-9);
    assert_true(isnan(r.claimed_pct));
    assert_true(r.has_annotation);
    assert_false(r.annotation_from_comment);
    assert_int_equal(r.vs_job, 6);
    assert_string_equal(r.vs_app, "fftw");
    /* the summary in AdminComment; the annotation only in the Comment */
    assert_int_equal(nv_ureport_parse(mk("42", "alice", "2", "mine " ANNOT, SUMMARY, ""), 42, &r,
                                      err, sizeof err),
                     0);
    assert_true(r.has_summary);
    assert_true(r.annotation_from_comment);
    /* a user's "netvar:{" in the middle of the Comment is not read */
    assert_int_equal(nv_ureport_parse(mk("42", "alice", "2", ANNOT " my notes", "", ""), 42, &r,
                                      err, sizeof err),
                     0);
    assert_false(r.has_summary);
    assert_false(r.has_annotation);
    /* another job, a step: not this job's line */
    assert_int_equal(nv_ureport_parse(mk("43", "bob", "2", "", "", ""), 42, &r, err, sizeof err),
                     1);
    assert_int_equal(nv_ureport_parse(mk("42.batch", "", "1", "", "", ""), 42, &r, err, sizeof err),
                     1);
    /* malformed */
    assert_int_equal(nv_ureport_parse("42" D "alice", 42, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "fields"));
    assert_int_equal(nv_ureport_parse(mk("x42", "alice", "2", "", "", ""), 42, &r, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "JobIDRaw"));
}

static void test_untrusted(void **state)
{
    (void)state;
    nv_ureport r;
    char err[256], text[NV_UREPORT_MAX];
    /* control bytes in the user and app names come out escaped; an absurd
     * figure is dropped */
    assert_int_equal(
        nv_ureport_parse(mk("7", "ev\x1b[2Jil", "2", "", "",
                            "netvar:{\"v\":2,\"app\":\"a\\u001b]0;x\",\"runtime_s\":10,"
                            "\"baseline_s\":5,\"slowdown_pct\":1e300,\"predicted_pct\":null}"),
                         7, &r, err, sizeof err),
        0);
    nv_ureport_format(&r, text, sizeof text);
    assert_null(strchr(text, '\x1b'));
    assert_non_null(strstr(text, "ev\\x1b[2Jil"));
    assert_true(isnan(r.slowdown_pct));
    assert_non_null(strstr(text, "Observed slowdown:  unknown"));
    /* an over-long line is refused */
    static char big[NV_SACCT_LINE_MAX + 10];
    memset(big, 'a', sizeof big - 1);
    assert_int_equal(nv_ureport_parse(big, 7, &r, err, sizeof err), -1);
    /* the text is cut to the buffer, terminated */
    nv_ureport_parse(mk("42", "alice", "2", "", ANNOT, SUMMARY), 42, &r, err, sizeof err);
    char small[40];
    size_t n = nv_ureport_format(&r, small, sizeof small);
    assert_int_equal(n, sizeof small - 1);
    assert_int_equal(strlen(small), sizeof small - 1);
}

static void test_format_and_notes(void **state)
{
    (void)state;
    nv_ureport r;
    char err[256], text[NV_UREPORT_MAX];
    nv_ureport_parse(mk("42", "alice", "2", "", ANNOT, SUMMARY), 42, &r, err, sizeof err);
    nv_ureport_format(&r, text, sizeof text);
    assert_non_null(strstr(text, "User:     alice (uid 1001)"));
    assert_non_null(strstr(text, "Account:  physics"));
    assert_non_null(strstr(text, "Elapsed:  75 s (0:01:15)"));
    assert_non_null(strstr(text, "Nodes:    2 (n[1-2])"));
    assert_non_null(strstr(text, "Observed slowdown:  31.0 %"));
    assert_non_null(strstr(text, "Predicted slowdown: 28.5 % at submission (table)"));
    assert_non_null(strstr(text, "Neighbour:          job 6 (fftw)"));
    /* slow, several nodes, no advice: keep it under one switch */
    assert_non_null(strstr(text, "31.0 % slower than its time alone"));
    assert_non_null(strstr(text, "--switches=1"));
    /* with advice at submission: apply it */
    r.advice_nodes = 4;
    nv_ureport_format(&r, text, sizeof text);
    assert_non_null(strstr(text, "--netvar-advise=apply"));
    assert_non_null(strstr(text, "advised 4 nodes"));
    assert_null(strstr(text, "--switches=1"));
    /* below the threshold: nothing to change */
    r.slowdown_pct = 3.0;
    nv_ureport_format(&r, text, sizeof text);
    assert_non_null(strstr(text, "within 3.0 % of its time alone"));
    assert_null(strstr(text, "--netvar-advise"));
    /* one node: not the network */
    r.slowdown_pct = 40;
    r.advice_nodes = 0;
    r.nnodes = 1;
    nv_ureport_format(&r, text, sizeof text);
    assert_null(strstr(text, "--switches=1"));
    assert_non_null(strstr(text, "on one node"));
    /* no summary */
    nv_ureport_parse(mk("42", "alice", "2", "", "", ""), 42, &r, err, sizeof err);
    nv_ureport_format(&r, text, sizeof text);
    assert_non_null(strstr(text, "no summary for this job"));
    assert_non_null(strstr(text, "Neighbour:          none recorded"));
}

static void test_subject(void **state)
{
    (void)state;
    assert_int_equal(nv_ureport_subject_job("Slurm Job_id=42 Name=wrap Ended, Run time 00:00:05, "
                                            "COMPLETED, ExitCode 0"),
                     42);
    assert_int_equal(
        nv_ureport_subject_job("Slurm Array Task Job_id=40_3 (44) Name=a Ended, Run time 1"), 44);
    assert_int_equal(nv_ureport_subject_job("Slurm Array Summary Job_id=40_* (40) Name=a Ended"),
                     0);
    assert_int_equal(nv_ureport_subject_job("Slurm Job_id=42x Name=a"), 0);
    assert_int_equal(nv_ureport_subject_job("Slurm Job_id= Name=a"), 0);
    assert_int_equal(nv_ureport_subject_job("Slurm Job_id=1234567890123456 Name=a"), 0);
    assert_int_equal(nv_ureport_subject_job("Re: Slurm Job_id=42 Name=a"), 0);
    assert_int_equal(nv_ureport_subject_job(NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_untrusted),
        cmocka_unit_test(test_format_and_notes),
        cmocka_unit_test(test_subject),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
