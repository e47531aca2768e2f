/* test_sacct_history.c - sacct lines into training jobs: a completed job
 * with its app from netvar's entry in AdminComment, then from the user's
 * text (the Comment's trailing annotation, the job name), none; a
 * "netvar:{" the user wrote elsewhere in the Comment never read; steps, array
 * tasks and unfinished states left out; malformed fields named; the job
 * record lib/train reads (switches from a topology); and the reader:
 * spool jobs kept, bad lines counted, the cap honoured. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "sacct_history.h"

#define D NV_SACCT_DELIM

/* one split for the history and the user's report: empty fields kept, the
 * line end taken off, a count past the cap still counted */
static void test_split(void **state)
{
    (void)state;
    char line[] = "1" D D "c" D "\r\n";
    char *f[3];
    assert_int_equal(nv_sacct_split(line, f, 3), 4);
    assert_string_equal(f[0], "1");
    assert_string_equal(f[1], "");
    assert_string_equal(f[2], "c");
    char one[] = "only\n";
    assert_int_equal(nv_sacct_split(one, f, 3), 1);
    assert_string_equal(f[0], "only");
}

static void test_parse(void **state)
{
    (void)state;
    nv_sacct_job j;
    char err[256];
    assert_int_equal(nv_sacct_parse_line("12" D "run.sh" D "2" D "1000" D "1100" D "COMPLETED" D
                                         "n[1-2]" D
                                         "user text netvar:{\"v\":1,\"app\":\"lammps\"}" D "\n",
                                         &j, err, sizeof err),
                     0);
    assert_int_equal(j.job_id, 12);
    assert_int_equal(j.nnodes, 2);
    assert_string_equal(j.app, "lammps");
    assert_string_equal(j.nodelist, "n[1-2]");
    assert_int_equal(j.app_from, NV_SACCT_APP_COMMENT);
    /* the app from AdminComment, then from the job name */
    assert_int_equal(
        nv_sacct_parse_line("13" D "x" D "1" D "1000" D "1010" D "COMPLETED" D "n1" D "" D
                            "JS1:a netvar:{\"v\":1,\"app\":\"milc\",\"runtime_s\":10.0}",
                            &j, err, sizeof err),
        0);
    assert_string_equal(j.app, "milc");
    assert_int_equal(j.app_from, NV_SACCT_APP_ADMIN);
    assert_int_equal(nv_sacct_parse_line("14" D "stencil" D "1" D "1000" D "1010" D "COMPLETED" D
                                         "n1" D "" D "",
                                         &j, err, sizeof err),
                     0);
    assert_string_equal(j.app, "stencil");
    assert_int_equal(j.app_from, NV_SACCT_APP_NAME);
    /* left out */
    assert_int_equal(nv_sacct_parse_line("15.0" D "s" D "1" D "1" D "2" D "COMPLETED" D "n1" D "" D
                                         "",
                                         &j, err, sizeof err),
                     1);
    assert_int_equal(nv_sacct_parse_line("16_3" D "s" D "1" D "1" D "2" D "COMPLETED" D "n1" D "" D
                                         "",
                                         &j, err, sizeof err),
                     1);
    assert_int_equal(nv_sacct_parse_line("17" D "s" D "1" D "1" D "2" D "FAILED" D "n1" D "" D "",
                                         &j, err, sizeof err),
                     1);
    assert_int_equal(nv_sacct_parse_line("18" D "" D "1" D "1" D "2" D "COMPLETED" D "n1" D "" D "",
                                         &j, err, sizeof err),
                     1);
    /* malformed */
    assert_int_equal(nv_sacct_parse_line("19|s|1|1|2|COMPLETED|n1||", &j, err, sizeof err), -1);
    assert_non_null(strstr(err, "fields"));
    assert_int_equal(nv_sacct_parse_line("x" D "s" D "1" D "1" D "2" D "COMPLETED" D "n1" D "" D "",
                                         &j, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "JobIDRaw"));
    assert_int_equal(nv_sacct_parse_line("20" D "s" D "1" D "2026-01-01T00:00:00" D "2" D
                                         "COMPLETED" D "n1" D "" D "",
                                         &j, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "SLURM_TIME_FORMAT"));
    /* the shared bounds (plausible.h): an end past a day from now is refused */
    assert_int_equal(nv_sacct_parse_line("21" D "s" D "1" D "1000" D "9e10" D "COMPLETED" D "n1" D
                                         "" D "",
                                         &j, err, sizeof err),
                     -1);
}

/* issue 52 item 6: the first netvar:{..."app"} of the user's Comment was
 * taken ahead of netvar's own entry in AdminComment */
static void test_user_text_after_netvar(void **state)
{
    (void)state;
    nv_sacct_job j;
    char err[256];
    /* the Comment set by scontrol update, a summary in AdminComment */
    assert_int_equal(nv_sacct_parse_line("40" D "x" D "1" D "1000" D "1010" D "COMPLETED" D "n1" D
                                         "netvar:{\"v\":1,\"mode\":\"counters\",\"app\":\"forged\","
                                         "\"own_pct\":-50.0,\"src\":\"table\"}" D
                                         "netvar:{\"v\":2,\"app\":\"milc\",\"runtime_s\":10.0}",
                                         &j, err, sizeof err),
                     0);
    assert_string_equal(j.app, "milc");
    assert_int_equal(j.app_from, NV_SACCT_APP_ADMIN);
    /* job_submit's annotation in AdminComment (AnnotateField=AdminComment) */
    assert_int_equal(
        nv_sacct_parse_line("41" D "x" D "1" D "1000" D "1010" D "COMPLETED" D "n1" D
                            "netvar:{\"app\":\"forged\"} my notes" D
                            "JS1:abc netvar:{\"v\":1,\"mode\":\"counters\",\"app\":\"lammps\"}",
                            &j, err, sizeof err),
        0);
    assert_string_equal(j.app, "lammps");
    /* a netvar:{ the user wrote before their own text is theirs: never
     * read, the job name names the job, or nothing does */
    assert_int_equal(nv_sacct_parse_line("42" D "stencil" D "1" D "1000" D "1010" D "COMPLETED" D
                                         "n1" D "netvar:{\"v\":1,\"app\":\"forged\"} see above" D
                                         "",
                                         &j, err, sizeof err),
                     0);
    assert_string_equal(j.app, "stencil");
    assert_int_equal(j.app_from, NV_SACCT_APP_NAME);
    assert_int_equal(nv_sacct_parse_line("43" D "" D "1" D "1000" D "1010" D "COMPLETED" D "n1" D
                                         "a netvar:{\"v\":1,\"app\":\"forged\"} b" D "",
                                         &j, err, sizeof err),
                     1);
    /* an AdminComment entry without an app does not stop the search */
    assert_int_equal(nv_sacct_parse_line("44" D "stencil" D "1" D "1000" D "1010" D "COMPLETED" D
                                         "n1" D
                                         "mine netvar:{\"v\":1,\"mode\":\"off\",\"app\":\"fftw\"}" D
                                         "netvar:{\"v\":2,\"app\":\"\",\"runtime_s\":10.0}",
                                         &j, err, sizeof err),
                     0);
    assert_string_equal(j.app, "fftw");
    assert_int_equal(j.app_from, NV_SACCT_APP_COMMENT);
}

/* issue 50: where AdminComment holds jobstats' "JS1:" value, netvar-acct
 * writes its summary to SystemComment (also admin-only): training reads
 * it from there, ahead of the user's Comment; a line of nine fields (saved
 * before SystemComment was asked for) still reads */
static void test_summary_in_system_comment(void **state)
{
    (void)state;
    nv_sacct_job j;
    char err[256];
    assert_int_equal(
        nv_sacct_parse_line("50" D "x" D "1" D "1000" D "1010" D "COMPLETED" D "n1" D
                            "netvar:{\"v\":1,\"mode\":\"counters\",\"app\":\"forged\"}" D
                            "JS1:H4sIAAAAAAAAA6tWKkktLlGyUlAqS8wpTVWqBQBGmWQ0EQAAAA==" D
                            "netvar:{\"v\":2,\"app\":\"milc\",\"runtime_s\":10.0}",
                            &j, err, sizeof err),
        0);
    assert_string_equal(j.app, "milc");
    assert_int_equal(j.app_from, NV_SACCT_APP_ADMIN);
    /* an empty SystemComment: the Comment's trailing annotation, as before */
    assert_int_equal(nv_sacct_parse_line("51" D "x" D "1" D "1000" D "1010" D "COMPLETED" D "n1" D
                                         "netvar:{\"v\":1,\"mode\":\"counters\",\"app\":\"amg\"}" D
                                         "JS1:abc" D "",
                                         &j, err, sizeof err),
                     0);
    assert_string_equal(j.app, "amg");
    assert_int_equal(j.app_from, NV_SACCT_APP_COMMENT);
    /* eleven fields: refused, named */
    assert_int_equal(nv_sacct_parse_line("52" D "x" D "1" D "1000" D "1010" D "COMPLETED" D "n1" D
                                         "" D "" D "" D "extra",
                                         &j, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "fields"));
}

static void log_line(void *ctx, const char *line)
{
    snprintf(ctx, 512, "%s", line);
}

/* the reader counts the jobs named by what their users can edit */
static void test_read_counts_claims(void **state)
{
    (void)state;
    const char *text = "50" D "stencil" D "1" D "1000" D "1100" D "COMPLETED" D "n1" D "" D "\n"
                       "51" D "x" D "1" D "1000" D "1100" D "COMPLETED" D "n1" D
                       "netvar:{\"v\":1,\"mode\":\"counters\",\"app\":\"fftw\"}" D "\n"
                       "52" D "x" D "1" D "1000" D "1100" D "COMPLETED" D "n1" D "" D
                       "netvar:{\"v\":2,\"app\":\"milc\",\"runtime_s\":100.0}\n";
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    nv_train_set s;
    nv_train_set_init(&s);
    nv_train_opts o;
    nv_train_opts_default(&o);
    nv_sacct_stats st;
    char err[256], said[512] = "";
    assert_int_equal(nv_sacct_read(f, NULL, &o, &s, &st, log_line, said, err, sizeof err), 0);
    fclose(f);
    assert_int_equal(st.added, 3);
    assert_int_equal(st.app_from_comment, 1);
    assert_int_equal(st.app_from_name, 1);
    assert_non_null(
        strstr(said, "netvar: train: sacct: 2 of 3 jobs are named by what their users can edit"));
    nv_train_set_free(&s);
}

static void test_record_and_read(void **state)
{
    (void)state;
    nv_topo topo;
    nv_topo_init(&topo);
    char err[256];
    assert_int_equal(nv_topo_parse_slurm(&topo,
                                         "SwitchName=s1 Nodes=n[1-2]\nSwitchName=s2 Nodes=n[3-4]\n",
                                         "t", err, sizeof err),
                     0);
    nv_sacct_job j;
    assert_int_equal(nv_sacct_parse_line("21" D "a" D "3" D "1000" D "1100" D "COMPLETED" D
                                         "n[2-4]" D "" D "",
                                         &j, err, sizeof err),
                     0);
    json_object *r = nv_sacct_job_record(&j, &topo, err, sizeof err);
    assert_non_null(r);
    assert_string_equal(json_object_to_json_string_ext(json_object_object_get(r, "switches"),
                                                       JSON_C_TO_STRING_PLAIN),
                        "[\"s1\",\"s2\"]");
    nv_train_job tj;
    char app[NV_MODEL_KEY_MAX + 1];
    assert_int_equal(nv_train_job_from_record(r, 0, &tj, app, err, sizeof err), 0);
    assert_int_equal(tj.nodes, 3);
    assert_true(tj.runtime_s == 100.0);
    assert_int_equal(tj.n_switches, 2);
    json_object_put(r);

    const char *text = "30" D "a" D "1" D "1000" D "1100" D "COMPLETED" D "n1" D "" D "\n"
                       "31" D "a" D "1" D "1000" D "1100" D "COMPLETED" D "n1" D "" D "\n"
                       "32" D "a" D "1" D "1000" D "1100" D "RUNNING" D "n1" D "" D "\n"
                       "garbage\n"
                       "33" D "b" D "1" D "1000" D "1100" D "COMPLETED" D "n[" D "" D "\n";
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    nv_train_set s;
    nv_train_set_init(&s);
    nv_train_opts o;
    nv_train_opts_default(&o);
    nv_train_job spool_job = tj;
    spool_job.job_id = 31;
    assert_int_equal(nv_train_set_add(&s, &spool_job, "a", o.max_jobs, err, sizeof err), 0);
    nv_sacct_stats st;
    assert_int_equal(nv_sacct_read(f, &topo, &o, &s, &st, NULL, NULL, err, sizeof err), 0);
    fclose(f);
    assert_int_equal(st.lines, 5);
    assert_int_equal(st.added, 1);
    assert_int_equal(st.in_spool, 1);
    assert_int_equal(st.left_out, 1);
    assert_int_equal(st.malformed, 2);
    assert_int_equal(s.n, 2);
    /* the cap */
    nv_train_set_free(&s);
    nv_train_set_init(&s);
    f = fmemopen((void *)text, strlen(text), "r");
    o.max_jobs = 1;
    assert_int_equal(nv_sacct_read(f, &topo, &o, &s, &st, NULL, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "cap"));
    assert_int_equal(s.n, 1);
    fclose(f);
    nv_train_set_free(&s);
    nv_topo_free(&topo);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_user_text_after_netvar),
        cmocka_unit_test(test_summary_in_system_comment),
        cmocka_unit_test(test_read_counts_claims),
        cmocka_unit_test(test_record_and_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
