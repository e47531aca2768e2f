/* test_config_policy.c - netvar.conf: every key, the defaults, one
 * "NAME:LINE: ..." error per bad line (captured through the callback),
 * comments, blank lines, over-long lines, loading from a file; Rule=
 * parsing and its load-time errors, the unreachable-after-catch-all check,
 * and nv_policy_match (first match wins, fnmatch, unknown figures, bounds
 * at the boundary value). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "config.h"
#include "policy.h"
#include "nv_test.h"

/* ------------------------------------------------------------ capture */

#define MAX_LINES 80
struct errors {
    int n;
    char line[MAX_LINES][512];
};

static void capture(void *ctx, const char *line)
{
    struct errors *e = ctx;
    if (e->n < MAX_LINES)
        snprintf(e->line[e->n], sizeof e->line[0], "%s", line);
    e->n++;
}

static struct nv_config *cfg_new(void)
{
    struct nv_config *c = malloc(sizeof *c); /* ~130 KiB: not on the stack */
    assert_non_null(c);
    return c;
}

/* parses text, expects exactly one error line equal to want */
static void expect_one_error(const char *text, const char *want)
{
    struct nv_config *c = cfg_new();
    struct errors e = {0};
    int n = nv_config_parse("t.conf", text, c, capture, &e);
    if (n != 1 || e.n != 1)
        fail_msg("'%s': %d errors (%d lines), first '%s'", text, n, e.n, e.n ? e.line[0] : "");
    if (strcmp(e.line[0], want))
        fail_msg("'%s':\n got  '%s'\n want '%s'", text, e.line[0], want);
    free(c);
}

/* ------------------------------------------------------------ config */

static void defaults_are_documented_values(void **state)
{
    (void)state;
    struct nv_config *c = cfg_new();
    memset(c, 0x77, sizeof *c);
    nv_config_defaults(c);
    assert_string_equal(c->model_file, "/var/lib/netvar/model.json");
    assert_string_equal(c->spool_dir, "/var/spool/netvar");
    assert_int_equal(c->default_mode, NV_MODE_COUNTERS);
    assert_true(c->allow_off);
    assert_string_equal(c->predictor, "queue");
    assert_int_equal(c->min_pair_samples, 3);
    assert_int_equal(c->annotate_field, NV_ANNOTATE_COMMENT);
    assert_true(c->annotate_all);
    assert_true(c->interference_pct == 10.0);
    assert_int_equal(c->app_fields[0], NV_APPF_NAME);
    assert_int_equal(c->app_fields[1], NV_APPF_SCRIPT);
    assert_int_equal(c->contain_wait_s, 300);
    assert_false(c->contain_span_wait_set); /* ContainWaitSeconds' then */
    assert_int_equal(c->avoid_uplinks, NV_AVOID_UPLINKS_CONTAIN);
    assert_int_equal(c->max_neighbour_apps, 32);
    assert_int_equal(c->policy.n, 0);

    /* an empty text, NULL text and only comments give the defaults, no errors */
    const char *texts[] = {"", "\n\n\n", "# nothing\n   # indented\n\t\n", NULL};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        struct errors e = {0};
        memset(c, 0x77, sizeof *c);
        assert_int_equal(nv_config_parse("t.conf", texts[i], c, capture, &e), 0);
        assert_int_equal(e.n, 0);
        assert_int_equal(c->max_neighbour_apps, 32);
        assert_int_equal(c->policy.n, 0);
    }
    free(c);
}

static void every_key_is_read(void **state)
{
    (void)state;
    const char *text = "ModelFile=/srv/m.json\n"
                       "spooldir = /srv/spool   # trailing comment\n"
                       "DEFAULTMODE=full\n"
                       "AllowOff=no\n"
                       "Enabled=no\n"
                       "Predictor=PDFLT\n"
                       "MinPairSamples=0\n"
                       "AnnotateField=admincomment\n"
                       "AnnotateAll=false\n"
                       "InterferenceThreshold=12.5\n"
                       "AppFields=script,name\n"
                       "ContainWaitSeconds=604800\n"
                       "ContainSpanWaitSeconds=0\n"
                       "avoiduplinks=WARN\n"
                       "MaxNeighbourApps=4096\r\n"
                       "Rule=r1 action=annotate";
    struct nv_config *c = cfg_new();
    struct errors e = {0};
    assert_int_equal(nv_config_parse("t.conf", text, c, capture, &e), 0);
    assert_int_equal(e.n, 0);
    assert_string_equal(c->model_file, "/srv/m.json");
    assert_string_equal(c->spool_dir, "/srv/spool");
    assert_int_equal(c->default_mode, NV_MODE_FULL);
    assert_false(c->allow_off);
    assert_false(c->enabled);
    assert_string_equal(c->predictor, "pdflt");
    assert_int_equal(c->min_pair_samples, 0);
    assert_int_equal(c->annotate_field, NV_ANNOTATE_ADMIN_COMMENT);
    assert_false(c->annotate_all);
    assert_true(c->interference_pct == 12.5);
    assert_int_equal(c->app_fields[0], NV_APPF_SCRIPT);
    assert_int_equal(c->app_fields[1], NV_APPF_NAME);
    assert_int_equal(c->contain_wait_s, 604800);
    assert_true(c->contain_span_wait_set);
    assert_int_equal(c->contain_span_wait_s, 0);
    assert_int_equal(c->avoid_uplinks, NV_AVOID_UPLINKS_WARN);
    assert_int_equal(c->max_neighbour_apps, 4096);
    assert_int_equal(c->policy.n, 1);
    assert_string_equal(c->policy.rule[0].name, "r1");
    assert_int_equal(c->policy.rule[0].line, 16);
    free(c);
}

static void other_spellings_of_values(void **state)
{
    (void)state;
    struct nv_config *c = cfg_new();
    struct errors e = {0};
    assert_int_equal(
        nv_config_parse("t.conf",
                        "AnnotateField=None\nAppFields=name\nPredictor=AverageStDevLT\n"
                        "AllowOff=yes\nInterferenceThreshold=0\nDefaultMode=off\n",
                        c, capture, &e),
        0);
    assert_int_equal(c->annotate_field, NV_ANNOTATE_NONE);
    assert_int_equal(c->app_fields[0], NV_APPF_NAME);
    assert_int_equal(c->app_fields[1], 0);
    assert_string_equal(c->predictor, "averagestdevlt");
    assert_true(c->allow_off);
    assert_true(c->interference_pct == 0.0);
    assert_int_equal(c->default_mode, NV_MODE_OFF);
    assert_int_equal(nv_config_parse("t.conf",
                                     "AppFields=NONE\nAnnotateField=Comment\n"
                                     "Predictor=averagelt\nInterferenceThreshold=10000",
                                     c, capture, &e),
                     0);
    assert_int_equal(c->app_fields[0], 0);
    assert_int_equal(c->app_fields[1], 0);
    assert_int_equal(c->annotate_field, NV_ANNOTATE_COMMENT);
    assert_string_equal(c->predictor, "averagelt");
    assert_true(c->interference_pct == 10000.0);
    assert_int_equal(e.n, 0);
    free(c);
}

static void each_bad_value_is_one_error_line(void **state)
{
    (void)state;
    expect_one_error("ModelFile=model.json",
                     "t.conf:1: ModelFile=model.json: needs an absolute path; "
                     "keeping the default");
    expect_one_error("\nSpoolDir=../spool", "t.conf:2: SpoolDir=../spool: needs an absolute path; "
                                            "keeping the default");
    expect_one_error("DefaultMode=quiet", "t.conf:1: DefaultMode=quiet: not one of off, counters, "
                                          "segments, full; keeping counters");
    expect_one_error("AllowOff=maybe", "t.conf:1: AllowOff=maybe: not yes or no; keeping yes");
    expect_one_error("Enabled=maybe", "t.conf:1: Enabled=maybe: not yes or no; keeping yes");
    expect_one_error("Predictor=oracle", "t.conf:1: Predictor=oracle: not one of queue, averagelt, "
                                         "averagestdevlt, pdflt; keeping queue");
    expect_one_error("MinPairSamples=-1",
                     "t.conf:1: MinPairSamples=-1: not a whole number from 0 to "
                     "1000000; keeping 3");
    expect_one_error("MinPairSamples=1000001",
                     "t.conf:1: MinPairSamples=1000001: not a whole number "
                     "from 0 to 1000000; keeping 3");
    expect_one_error("MinPairSamples=3x",
                     "t.conf:1: MinPairSamples=3x: not a whole number from 0 to "
                     "1000000; keeping 3");
    expect_one_error("AnnotateField=Notes",
                     "t.conf:1: AnnotateField=Notes: not Comment, AdminComment "
                     "or none; keeping the default");
    expect_one_error("AnnotateAll=2", "t.conf:1: AnnotateAll=2: not yes or no; keeping yes");
    expect_one_error("InterferenceThreshold=10%", "t.conf:1: InterferenceThreshold=10%: not a "
                                                  "percentage from 0 to 10000; keeping 10");
    expect_one_error("InterferenceThreshold=-1", "t.conf:1: InterferenceThreshold=-1: not a "
                                                 "percentage from 0 to 10000; keeping 10");
    expect_one_error("InterferenceThreshold=10000.5",
                     "t.conf:1: InterferenceThreshold=10000.5: not a "
                     "percentage from 0 to 10000; keeping 10");
    /* strtod reads hex: 0x10 would be 16 % */
    expect_one_error("InterferenceThreshold=0x10", "t.conf:1: InterferenceThreshold=0x10: not a "
                                                   "percentage from 0 to 10000; keeping 10");
    expect_one_error("InterferenceThreshold=nan", "t.conf:1: InterferenceThreshold=nan: not a "
                                                  "percentage from 0 to 10000; keeping 10");
    expect_one_error("AppFields=name,script,name",
                     "t.conf:1: AppFields=name,script,name: give name, "
                     "script, both in order, or none; keeping the default");
    expect_one_error("AppFields=cmdline", "t.conf:1: AppFields=cmdline: give name, script, both in "
                                          "order, or none; keeping the default");
    expect_one_error("AppFields=none,name",
                     "t.conf:1: AppFields=none,name: give name, script, both "
                     "in order, or none; keeping the default");
    expect_one_error("ContainWaitSeconds=604801", "t.conf:1: ContainWaitSeconds=604801: not "
                                                  "0..604800 seconds; keeping 300");
    expect_one_error("ContainSpanWaitSeconds=-1", "t.conf:1: ContainSpanWaitSeconds=-1: not "
                                                  "0..604800 seconds; keeping ContainWaitSeconds");
    expect_one_error("AvoidUplinks=exclude", "t.conf:1: AvoidUplinks=exclude: not contain or "
                                             "warn; keeping contain");
    expect_one_error("MaxNeighbourApps=0", "t.conf:1: MaxNeighbourApps=0: not 1..4096; keeping 32");
    expect_one_error("MaxNeighbourApps=4097",
                     "t.conf:1: MaxNeighbourApps=4097: not 1..4096; keeping 32");
    expect_one_error("Frobnicate=yes", "t.conf:1: unknown key 'Frobnicate'; ignoring the line");
    expect_one_error("  just words here  ",
                     "t.conf:1: 'just words here' is not Key=Value; ignoring "
                     "the line");
    expect_one_error("=value", "t.conf:1: empty key or value; ignoring the line");
    expect_one_error("ModelFile=   # nothing", "t.conf:1: empty key or value; ignoring the line");
}

static void a_bad_value_keeps_the_earlier_good_one(void **state)
{
    (void)state;
    struct nv_config *c = cfg_new();
    struct errors e = {0};
    int n = nv_config_parse("site.conf",
                            "DefaultMode=segments\n"
                            "DefaultMode=loud\n"
                            "MinPairSamples=7\n"
                            "MinPairSamples=many\n"
                            "AppFields=script\n"
                            "AppFields=argv\n"
                            "ModelFile=/a/b.json\n"
                            "ModelFile=rel.json\n",
                            c, capture, &e);
    assert_int_equal(n, 4);
    assert_int_equal(e.n, 4);
    assert_int_equal(c->default_mode, NV_MODE_SEGMENTS);
    assert_int_equal(c->min_pair_samples, 7);
    assert_int_equal(c->app_fields[0], NV_APPF_SCRIPT);
    assert_int_equal(c->app_fields[1], 0);
    assert_string_equal(c->model_file, "/a/b.json");
    /* a key given twice is an error: the first stays (issue 17) */
    assert_string_equal(e.line[0], "site.conf:2: DefaultMode given again (first on line 1); "
                                   "ignoring this line");
    assert_string_equal(e.line[1], "site.conf:4: MinPairSamples given again (first on line 3); "
                                   "ignoring this line");
    assert_string_equal(e.line[2], "site.conf:6: AppFields given again (first on line 5); "
                                   "ignoring this line");
    assert_string_equal(e.line[3], "site.conf:8: ModelFile given again (first on line 7); "
                                   "ignoring this line");
    free(c);
}

static void line_numbers_count_comments_blank_lines_and_long_lines(void **state)
{
    (void)state;
    char *text = malloc(8192);
    assert_non_null(text);
    /* line 1 comment, 2 blank, 3 bad, 4 long (1024 chars), 5 bad, 6 exactly 1023 chars, 7 bad */
    size_t len = 0;
    len += (size_t)sprintf(text + len, "# header\n\nBogus=1\n");
    memset(text + len, 'x', 1024);
    len += 1024;
    len += (size_t)sprintf(text + len, "\nAlsoBogus=2\n");
    /* a 1023-character line that is a valid key: ModelFile=/ + padding */
    int head = sprintf(text + len, "ModelFile=/");
    memset(text + len + head, 'p', 1023 - (size_t)head);
    len += 1023;
    len += (size_t)sprintf(text + len, "\nThird=3");
    struct nv_config *c = cfg_new();
    struct errors e = {0};
    int n = nv_config_parse("x.conf", text, c, capture, &e);
    assert_int_equal(n, 4);
    assert_int_equal(e.n, 4);
    assert_string_equal(e.line[0], "x.conf:3: unknown key 'Bogus'; ignoring the line");
    assert_string_equal(e.line[1], "x.conf:4: line is longer than 1023 characters; ignoring it");
    assert_string_equal(e.line[2], "x.conf:5: unknown key 'AlsoBogus'; ignoring the line");
    assert_string_equal(e.line[3], "x.conf:7: unknown key 'Third'; ignoring the line");
    assert_int_equal(strlen(c->model_file), 1023 - strlen("ModelFile="));
    free(c);
    free(text);
}

static void errors_without_a_callback_are_still_counted(void **state)
{
    (void)state;
    struct nv_config *c = cfg_new();
    assert_int_equal(nv_config_parse(NULL, "A=1\nB=2\nDefaultMode=full", c, NULL, NULL), 2);
    assert_int_equal(c->default_mode, NV_MODE_FULL);
    /* without a name the messages say netvar.conf */
    struct errors e = {0};
    assert_int_equal(nv_config_parse(NULL, "A=1", c, capture, &e), 1);
    assert_string_equal(e.line[0], "netvar.conf:1: unknown key 'A'; ignoring the line");
    free(c);
}

static void rule_lines_through_the_config(void **state)
{
    (void)state;
    struct nv_config *c = cfg_new();
    struct errors e = {0};
    int n =
        nv_config_parse("p.conf",
                        "Rule=quiet app=fftw own_slowdown>=15 action=contain,message "
                        "message=\"netvar: kept under one leaf switch\"\n"
                        "Rule=broken app=x\n"
                        "Rule = spaced  user=alice,bob   action=hold  reason=\"admin review\"  \n",
                        c, capture, &e);
    assert_int_equal(n, 1);
    assert_string_equal(e.line[0],
                        "p.conf:2: Rule: rule 'broken' has no action=; the rule is ignored");
    assert_int_equal(c->policy.n, 2);
    const struct nv_policy_rule *r = &c->policy.rule[0];
    assert_string_equal(r->name, "quiet");
    assert_int_equal(r->line, 1);
    assert_string_equal(r->message, "netvar: kept under one leaf switch");
    assert_int_equal(r->actions, NV_ACT_CONTAIN | NV_ACT_MESSAGE);
    assert_true(r->bound[NV_PM_OWN].has_lo && r->bound[NV_PM_OWN].lo_incl);
    assert_true(r->bound[NV_PM_OWN].lo == 15.0);
    r = &c->policy.rule[1];
    assert_string_equal(r->name, "spaced");
    assert_int_equal(r->line, 3);
    assert_int_equal(r->match[NV_PF_USER].n, 2);
    assert_string_equal(r->match[NV_PF_USER].item[1], "bob");
    assert_string_equal(r->reason, "admin review");
    free(c);
}

/* A deny that matches every job refuses every submission whatever netvar
 * predicts: an error, so the plugin stays passive instead.  A deny with
 * no reason= is valid, but its users are told nothing: a warning, which
 * is said and not counted. */
static void a_deny_of_every_job_is_an_error_one_without_reason_a_warning(void **state)
{
    (void)state;
    struct nv_config *c = cfg_new();
    struct errors e = {0};
    assert_int_equal(nv_config_parse("p.conf", "Rule=x action=deny\n", c, capture, &e), 1);
    assert_int_equal(e.n, 2);
    assert_string_equal(e.line[0],
                        "p.conf:1: rule 'x' denies every job: it has no condition (add "
                        "own_slowdown, inflicted_slowdown, utilization or a list to match)");
    assert_string_equal(e.line[1], "p.conf:1: warning: rule 'x' denies with no reason=: a refused "
                                   "user is told only \"predicted network interference\"");
    e.n = 0;
    assert_int_equal(nv_config_parse("p.conf",
                                     "Rule=y user=* qos=* action=deny reason=\"closed\"\n", c,
                                     capture, &e),
                     1);
    assert_int_equal(e.n, 1); /* wildcards only: still every job */
    e.n = 0;
    assert_int_equal(
        nv_config_parse("p.conf", "Rule=z own_slowdown>=50 action=deny\n", c, capture, &e), 0);
    assert_int_equal(e.n, 1); /* valid, with its warning */
    assert_non_null(strstr(e.line[0], "warning: rule 'z' denies with no reason="));
    e.n = 0;
    assert_int_equal(nv_config_parse("p.conf", "Rule=w own_slowdown>=50 action=deny reason=\"r\"\n",
                                     c, capture, &e),
                     0);
    assert_int_equal(e.n, 0);
    free(c);
}

static void unreachable_rules_after_a_catch_all_are_errors(void **state)
{
    (void)state;
    struct nv_config *c = cfg_new();
    struct errors e = {0};
    int n = nv_config_parse("p.conf",
                            "Rule=first app=amg action=avoid\n"
                            "# everyone\n"
                            "Rule=all partition=* action=annotate\n"
                            "Rule=late app=fftw action=deny reason=\"fftw is noisy\"\n"
                            "\n"
                            "Rule=later action=hold\n",
                            c, capture, &e);
    assert_int_equal(n, 2);
    assert_int_equal(e.n, 2);
    assert_string_equal(e.line[0], "p.conf:4: rule 'late' is never reached: rule 'all' on line 3 "
                                   "matches every job first");
    assert_string_equal(e.line[1], "p.conf:6: rule 'later' is never reached: rule 'all' on line 3 "
                                   "matches every job first");
    /* a catch-all that comes last is fine */
    e.n = 0;
    assert_int_equal(nv_config_parse("p.conf", "Rule=a app=x action=deny\nRule=b action=annotate\n",
                                     c, capture, &e),
                     0);
    free(c);
}

static char tmpdir[64];

static int make_tmpdir(void **state)
{
    (void)state;
    return nv_test_tmpdir(tmpdir, sizeof tmpdir, "config-policy");
}

static int remove_tmpdir(void **state)
{
    (void)state;
    return nv_test_rmtree(tmpdir);
}

static void load_from_file_missing_and_too_big(void **state)
{
    (void)state;
    char path[128];
    struct nv_config *c = cfg_new();
    struct errors e = {0};
    snprintf(path, sizeof path, "%s/ok.conf", tmpdir);
    assert_int_equal(nv_test_write_file(tmpdir, "ok.conf", "DefaultMode=segments\nNope=1\n"), 0);
    assert_int_equal(nv_config_load(path, c, capture, &e), 1);
    assert_int_equal(c->default_mode, NV_MODE_SEGMENTS);
    char want[256];
    snprintf(want, sizeof want, "%s:2: unknown key 'Nope'; ignoring the line", path);
    assert_string_equal(e.line[0], want);

    e.n = 0;
    snprintf(path, sizeof path, "%s/absent.conf", tmpdir);
    assert_int_equal(nv_config_load(path, c, capture, &e), 1);
    snprintf(want, sizeof want, "%s:0: cannot open: No such file or directory; using the defaults",
             path);
    assert_string_equal(e.line[0], want);
    assert_int_equal(c->default_mode, NV_MODE_COUNTERS);

    e.n = 0;
    snprintf(path, sizeof path, "%s/big.conf", tmpdir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < (1 << 20) / 16 + 1; i++)
        fputs("# padding......\n", f); /* 16 bytes a line */
    fclose(f);
    assert_int_equal(nv_config_load(path, c, capture, &e), 1);
    assert_non_null(strstr(e.line[0], "more than the 1048576-byte limit; using the defaults"));

    /* a NUL byte, a directory: errors, caught at load (issue 17) */
    e.n = 0;
    snprintf(path, sizeof path, "%s/nul.conf", tmpdir);
    f = fopen(path, "w");
    assert_non_null(f);
    fwrite("DefaultMode=full\n\0Nope=1\n", 1, 26, f);
    fclose(f);
    assert_int_equal(nv_config_load(path, c, capture, &e), 1);
    assert_non_null(strstr(e.line[0], "a NUL byte at offset 17"));
    assert_int_equal(c->default_mode, NV_MODE_COUNTERS);
    e.n = 0;
    assert_int_equal(nv_config_load(tmpdir, c, capture, &e), 1);
    assert_non_null(strstr(e.line[0], "a directory"));
    /* missing at the default path: the defaults, no error; named: an error */
    e.n = 0;
    bool missing = false;
    snprintf(path, sizeof path, "%s/absent.conf", tmpdir);
    assert_int_equal(nv_config_load_opt(path, false, c, capture, &e, &missing), 0);
    assert_true(missing);
    assert_int_equal(e.n, 0);
    assert_int_equal(nv_config_load_opt(path, true, c, capture, &e, &missing), 1);
    assert_false(missing);

    /* a rule naming a user that does not exist is flagged, root resolved */
    e.n = 0;
    assert_int_equal(nv_config_parse("r.conf", "Rule=a user=root,no-such-user-zz9 action=hold\n", c,
                                     capture, &e),
                     0);
    assert_int_equal(nv_config_resolve_users(c, "r.conf", capture, &e), 1);
    assert_string_equal(e.line[0], "r.conf:1: rule 'a': user 'no-such-user-zz9' does not exist; "
                                   "the rule will not match it");
    assert_string_equal(c->policy.rule[0].match[NV_PF_USER].item[0], "0");
    free(c);
}

/* ------------------------------------------------------------ policy */

static int parse(struct nv_policy *p, const char *rule, int line, char *why)
{
    return nv_policy_parse_rule(p, rule, line, why, 384);
}

static void rule_parsing_fields_lists_and_conditions(void **state)
{
    (void)state;
    struct nv_policy *p = calloc(1, sizeof *p);
    assert_non_null(p);
    char why[384] = "";
    assert_int_equal(
        parse(p,
              "big partition=debug,batch account=phys qos=high user=al* app=lulesh "
              "own_slowdown>=20 own_slowdown<50 inflicted_slowdown>5 "
              "utilization<=0.9 action=message,annotate,contain,avoid,isolate,hold,resize "
              "message=\"you   have  spaces\" reason=\"why not\"",
              7, why),
        0);
    assert_int_equal(p->n, 1);
    const struct nv_policy_rule *r = &p->rule[0];
    assert_string_equal(r->name, "big");
    assert_int_equal(r->line, 7);
    assert_int_equal(r->match[NV_PF_PARTITION].n, 2);
    assert_string_equal(r->match[NV_PF_PARTITION].item[0], "debug");
    assert_string_equal(r->match[NV_PF_PARTITION].item[1], "batch");
    assert_string_equal(r->match[NV_PF_ACCOUNT].item[0], "phys");
    assert_string_equal(r->match[NV_PF_QOS].item[0], "high");
    assert_string_equal(r->match[NV_PF_USER].item[0], "al*");
    assert_string_equal(r->match[NV_PF_APP].item[0], "lulesh");
    const struct nv_policy_bound *b = &r->bound[NV_PM_OWN];
    assert_true(b->has_lo && b->lo_incl && b->lo == 20.0);
    assert_true(b->has_hi && !b->hi_incl && b->hi == 50.0);
    b = &r->bound[NV_PM_INFLICTED];
    assert_true(b->has_lo && !b->lo_incl && b->lo == 5.0 && !b->has_hi);
    b = &r->bound[NV_PM_UTILIZATION];
    assert_true(!b->has_lo && b->has_hi && b->hi_incl && b->hi == 0.9);
    assert_int_equal(r->actions, NV_ACT_MESSAGE | NV_ACT_ANNOTATE | NV_ACT_CONTAIN | NV_ACT_AVOID |
                                     NV_ACT_ISOLATE | NV_ACT_HOLD | NV_ACT_RESIZE);
    assert_string_equal(r->message, "you   have  spaces");
    assert_string_equal(r->reason, "why not");

    /* quotes can sit anywhere in a word; deny with message and annotate is fine */
    assert_int_equal(
        parse(p, "d app=\"x\" action=deny,message,annotate message=no\" \"way", 8, why), 0);
    assert_string_equal(p->rule[1].match[NV_PF_APP].item[0], "x");
    assert_string_equal(p->rule[1].message, "no way");
    assert_int_equal(p->rule[1].actions, NV_ACT_DENY | NV_ACT_MESSAGE | NV_ACT_ANNOTATE);
    /* equal inclusive bounds admit exactly one value */
    assert_int_equal(parse(p, "eq own_slowdown>=10 own_slowdown<=10 action=annotate", 9, why), 0);
    assert_int_equal(parse(p, "u0 utilization<=0 action=annotate", 10, why), 0);
    assert_int_equal(parse(p, "u1 utilization>=1 action=annotate", 11, why), 0);
    assert_int_equal(p->n, 5);
    free(p);
}

static void rule_load_time_errors(void **state)
{
    (void)state;
    struct nv_policy *p = calloc(1, sizeof *p);
    assert_non_null(p);
    char why[384];
    assert_int_equal(parse(p, "taken action=annotate", 3, why), 0);
    struct {
        const char *rule, *why;
    } bad[] = {
        {"noact app=x", "rule 'noact' has no action="},
        {"unk action=annotate,explode",
         "unknown action 'explode' (known: message, annotate, contain, "
         "avoid, isolate, hold, deny, resize)"},
        {"dr action=deny,resize",
         "rule 'dr': deny contradicts resize (a denied job is never placed)"},
        {"dc action=deny,contain",
         "rule 'dc': deny contradicts contain (a denied job is never placed)"},
        {"dh action=hold,deny", "rule 'dh': deny contradicts hold (a denied job is never placed)"},
        {"da action=deny,avoid,isolate",
         "rule 'da': deny contradicts avoid,isolate (a denied job is "
         "never placed)"},
        {"msg action=message", "rule 'msg': action message needs message=\"text\""},
        {"taken action=deny", "rule name 'taken' is already used on line 3"},
        {"imp own_slowdown>20 own_slowdown<10 action=annotate",
         "rule 'imp' matches nothing: no own_slowdown satisfies its bounds"},
        {"imp2 inflicted_slowdown>10 inflicted_slowdown<=10 action=annotate",
         "rule 'imp2' matches nothing: no inflicted_slowdown satisfies its bounds"},
        {"imp3 own_slowdown>=10 own_slowdown<10 action=annotate",
         "rule 'imp3' matches nothing: no own_slowdown satisfies its bounds"},
        {"u1 utilization>1 action=annotate",
         "rule 'u1' matches nothing: no utilization satisfies its "
         "bounds"},
        {"u0 utilization<0 action=annotate",
         "rule 'u0' matches nothing: no utilization satisfies its "
         "bounds"},
        {"u2 utilization>1.5 action=annotate",
         "'utilization>1.5': utilization is rho, from 0 to 1"},
        {"uz utilization<-0.1 action=annotate",
         "'utilization<-0.1': utilization is rho, from 0 to 1"},
        {"u3 utilization<=0.5 utilization>0.5 action=annotate",
         "rule 'u3' matches nothing: no utilization satisfies its bounds"},
        {"q action=message message=\"never closed", "unterminated \" in rule"},
        {"two own_slowdown>1 own_slowdown>=2 action=annotate",
         "'own_slowdown>=2': a second lower bound "
         "on own_slowdown"},
        {"two2 utilization<0.5 utilization<=0.4 action=annotate",
         "'utilization<=0.4': a second upper "
         "bound on utilization"},
        {"num own_slowdown>=ten action=annotate", "'own_slowdown>=ten': 'ten' is not a number"},
        {"num2 own_slowdown> action=annotate", "'own_slowdown>': '' is not a number"},
        {"num3 own_slowdown>=inf action=annotate", "'own_slowdown>=inf': 'inf' is not a number"},
        {"hex own_slowdown>0x10 action=annotate", "'own_slowdown>0x10': '0x10' is not a number"},
        {"cond speed>3 action=annotate",
         "'speed>3' is not key=value nor a condition on own_slowdown, "
         "inflicted_slowdown or utilization"},
        {"cond2 own_slowdown action=annotate", "'own_slowdown' is not key=value nor a condition on "
                                               "own_slowdown, inflicted_slowdown or utilization"},
        {"key colour=red action=annotate",
         "unknown rule key 'colour' (known: partition, account, qos, "
         "user, app, action, message, reason, and conditions)"},
        {"twice app=a app=b action=annotate", "app= given twice"},
        {"empty app=a,,b action=annotate", "list 'a,,b' has an empty or over-long (>63) entry"},
        {"empty2 app= action=annotate", "empty list"},
        {"emsg action=message message=\"\"", "message= is empty or longer than 199 characters"},
        {"name=x action=annotate",
         "rule name 'name=x' is missing, has '=' or is over 63 characters"},
        {"", "rule has no name"},
        {"   ", "rule has no name"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        why[0] = '\0';
        if (parse(p, bad[i].rule, 10, why) != -1)
            fail_msg("rule '%s' accepted", bad[i].rule);
        if (strcmp(why, bad[i].why))
            fail_msg("rule '%s':\n got  '%s'\n want '%s'", bad[i].rule, why, bad[i].why);
        assert_int_equal(p->n, 1); /* unchanged */
    }
    free(p);
}

static void rule_size_limits(void **state)
{
    (void)state;
    struct nv_policy *p = calloc(1, sizeof *p);
    assert_non_null(p);
    char why[384], rule[2048];
    /* 17 list entries */
    int n = sprintf(rule, "many app=");
    for (int i = 0; i < 17; i++)
        n += sprintf(rule + n, "%sa%d", i ? "," : "", i);
    sprintf(rule + n, " action=annotate");
    assert_int_equal(parse(p, rule, 1, why), -1);
    assert_non_null(strstr(why, "more than 16 entries"));
    /* 16 are fine */
    n = sprintf(rule, "sixteen app=");
    for (int i = 0; i < 16; i++)
        n += sprintf(rule + n, "%sa%d", i ? "," : "", i);
    sprintf(rule + n, " action=annotate");
    assert_int_equal(parse(p, rule, 1, why), 0);
    /* a 64-character list entry and a 64-character name */
    char w[65];
    memset(w, 'w', 64);
    w[64] = '\0';
    snprintf(rule, sizeof rule, "long app=%s action=annotate", w);
    assert_int_equal(parse(p, rule, 1, why), -1);
    assert_non_null(strstr(why, "over-long"));
    snprintf(rule, sizeof rule, "%s action=annotate", w);
    assert_int_equal(parse(p, rule, 1, why), -1);
    assert_non_null(strstr(why, "over 63 characters"));
    w[63] = '\0';
    snprintf(rule, sizeof rule, "%s action=annotate", w);
    assert_int_equal(parse(p, rule, 1, why), 0);
    /* a 200-character message */
    char m[201];
    memset(m, 'm', 200);
    m[200] = '\0';
    snprintf(rule, sizeof rule, "longmsg action=message message=\"%s\"", m);
    assert_int_equal(parse(p, rule, 1, why), -1);
    assert_string_equal(why, "message= is empty or longer than 199 characters");
    m[199] = '\0';
    snprintf(rule, sizeof rule, "okmsg action=message message=\"%s\"", m);
    assert_int_equal(parse(p, rule, 1, why), 0);
    assert_int_equal(strlen(p->rule[p->n - 1].message), 199);
    /* 49 words */
    n = sprintf(rule, "words action=annotate");
    for (int i = 0; i < 47; i++)
        n += sprintf(rule + n, " app%d=x", i);
    assert_int_equal(parse(p, rule, 1, why), -1);
    assert_string_equal(why, "rule has more than 48 words");
    /* 1024 characters */
    memset(rule, ' ', 1024);
    memcpy(rule, "sp action=annotate", 18);
    rule[1024] = '\0';
    assert_int_equal(parse(p, rule, 1, why), -1);
    assert_string_equal(why, "rule is longer than 1023 characters");
    rule[1023] = '\0';
    assert_int_equal(parse(p, rule, 1, why), 0);
    free(p);
}

static void too_many_rules(void **state)
{
    (void)state;
    struct nv_policy *p = calloc(1, sizeof *p);
    assert_non_null(p);
    char why[384], rule[64];
    for (int i = 0; i < NV_POLICY_MAX_RULES; i++) {
        snprintf(rule, sizeof rule, "r%d app=a%d action=annotate", i, i);
        assert_int_equal(parse(p, rule, i + 1, why), 0);
    }
    assert_int_equal(p->n, 64);
    assert_int_equal(parse(p, "one-more action=annotate", 65, why), -1);
    assert_string_equal(why, "more than 64 rules");
    assert_int_equal(p->n, 64);
    free(p);
}

struct reports {
    int n;
    int line[8];
    char why[8][256];
};

static void report_cb(void *ctx, int line, const char *why)
{
    struct reports *r = ctx;
    if (r->n < 8) {
        r->line[r->n] = line;
        snprintf(r->why[r->n], sizeof r->why[0], "%s", why);
    }
    r->n++;
}

static void check_finds_rules_behind_a_catch_all(void **state)
{
    (void)state;
    struct nv_policy *p = calloc(1, sizeof *p);
    assert_non_null(p);
    char why[384];
    /* "*" lists and no bounds match every job; a bound or a real pattern does not */
    assert_int_equal(parse(p, "bounded own_slowdown>=0 action=annotate", 1, why), 0);
    assert_int_equal(parse(p, "pattern user=* app=a* action=annotate", 2, why), 0);
    assert_int_equal(parse(p, "stars user=* app=* action=annotate", 3, why), 0);
    assert_int_equal(parse(p, "after1 app=x action=deny", 5, why), 0);
    assert_int_equal(parse(p, "bare action=annotate", 8, why), 0);
    struct reports r = {0};
    assert_int_equal(nv_policy_check(p, report_cb, &r), 2);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.line[0], 5);
    assert_int_equal(r.line[1], 8);
    assert_string_equal(r.why[0],
                        "rule 'after1' is never reached: rule 'stars' on line 3 matches every "
                        "job first");
    assert_string_equal(r.why[1],
                        "rule 'bare' is never reached: rule 'stars' on line 3 matches every "
                        "job first");
    struct nv_policy *q = calloc(1, sizeof *q);
    assert_non_null(q);
    r.n = 0;
    assert_int_equal(nv_policy_check(q, report_cb, &r), 0);
    assert_int_equal(parse(q, "only action=annotate", 1, why), 0);
    assert_int_equal(nv_policy_check(q, report_cb, &r), 0);
    assert_int_equal(r.n, 0);
    free(p);
    free(q);
}

static struct nv_policy_query query(const char *part, const char *app, double own, double infl,
                                    double u)
{
    struct nv_policy_query q = {
        .field = {part, "acct", "normal", "alice", app},
        .known = {!isnan(own), !isnan(infl), !isnan(u)},
        .value = {own, infl, u},
    };
    return q;
}

static void match_first_rule_wins_and_wildcards(void **state)
{
    (void)state;
    struct nv_policy *p = calloc(1, sizeof *p);
    assert_non_null(p);
    char why[384];
    assert_int_equal(parse(p, "debug partition=deb* action=deny", 1, why), 0);
    assert_int_equal(parse(p, "gpu partition=?pu,big[0-9] action=hold", 2, why), 0);
    assert_int_equal(parse(p, "lulesh app=lulesh* action=contain", 3, why), 0);
    assert_int_equal(parse(p, "lulesh-too app=lulesh2.0 action=avoid", 4, why), 0);
    assert_int_equal(parse(p, "rest action=annotate", 5, why), 0);

    struct nv_policy_query q = query("debug-long", "lulesh2.0", NAN, NAN, NAN);
    assert_string_equal(nv_policy_match(p, &q)->name, "debug"); /* first match, not lulesh */
    q = query("gpu", "x", NAN, NAN, NAN);
    assert_string_equal(nv_policy_match(p, &q)->name, "gpu");
    q = query("big7", "x", NAN, NAN, NAN);
    assert_string_equal(nv_policy_match(p, &q)->name, "gpu");
    q = query("big77", "x", NAN, NAN, NAN);
    assert_string_equal(nv_policy_match(p, &q)->name, "rest");
    q = query("batch", "lulesh2.0", NAN, NAN, NAN);
    assert_string_equal(nv_policy_match(p, &q)->name, "lulesh"); /* lulesh-too is shadowed */
    q = query("Debug", "LULESH", NAN, NAN, NAN);                 /* fnmatch is case-sensitive */
    assert_string_equal(nv_policy_match(p, &q)->name, "rest");
    /* NULL fields match only "*" and absent lists */
    q = query(NULL, NULL, NAN, NAN, NAN);
    assert_string_equal(nv_policy_match(p, &q)->name, "rest");

    struct nv_policy *s = calloc(1, sizeof *s);
    assert_non_null(s);
    assert_int_equal(parse(s, "star app=* action=annotate", 1, why), 0);
    q = query("x", NULL, NAN, NAN, NAN);
    assert_string_equal(nv_policy_match(s, &q)->name, "star");
    struct nv_policy *t = calloc(1, sizeof *t);
    assert_non_null(t);
    assert_int_equal(parse(t, "astar app=a* action=annotate", 1, why), 0);
    assert_null(nv_policy_match(t, &q));
    assert_null(nv_policy_match(t, &(struct nv_policy_query){0}));
    /* an empty policy matches nothing */
    struct nv_policy *e = calloc(1, sizeof *e);
    assert_non_null(e);
    q = query("debug", "amg", 1, 1, 0.5);
    assert_null(nv_policy_match(e, &q));
    free(p);
    free(s);
    free(t);
    free(e);
}

static void match_unknown_figures_make_conditions_false(void **state)
{
    (void)state;
    struct nv_policy *p = calloc(1, sizeof *p);
    assert_non_null(p);
    char why[384];
    assert_int_equal(parse(p, "slow own_slowdown>=10 action=message message=m", 1, why), 0);
    assert_int_equal(parse(p, "fast own_slowdown<10 action=annotate", 2, why), 0);
    struct nv_policy_query q = query("b", "amg", NAN, NAN, NAN);
    assert_null(nv_policy_match(p, &q)); /* neither >= nor < holds for an unknown figure */
    q.known[NV_PM_OWN] = true;           /* known but NaN still counts as unknown */
    assert_null(nv_policy_match(p, &q));
    q.value[NV_PM_OWN] = 3;
    q.known[NV_PM_OWN] = false; /* a value that is not known is not used */
    assert_null(nv_policy_match(p, &q));
    q.known[NV_PM_OWN] = true;
    assert_string_equal(nv_policy_match(p, &q)->name, "fast");
    /* a condition on another figure does not care about own */
    struct nv_policy *u = calloc(1, sizeof *u);
    assert_non_null(u);
    assert_int_equal(parse(u, "util utilization>0.5 action=annotate", 1, why), 0);
    q = query("b", "amg", 99, 99, NAN);
    assert_null(nv_policy_match(u, &q));
    q = query("b", "amg", NAN, NAN, 0.6);
    assert_string_equal(nv_policy_match(u, &q)->name, "util");
    free(p);
    free(u);
}

static void match_bounds_at_the_boundary(void **state)
{
    (void)state;
    struct {
        const char *cond;
        double at, below, above;
        bool m_at, m_below, m_above;
    } cases[] = {
        {"own_slowdown>=20", 20, 19.999, 20.001, true, false, true},
        {"own_slowdown>20", 20, 19.999, 20.001, false, false, true},
        {"own_slowdown<=20", 20, 19.999, 20.001, true, true, false},
        {"own_slowdown<20", 20, 19.999, 20.001, false, true, false},
        {"inflicted_slowdown>=0", 0, -0.001, 0.001, true, false, true},
        {"utilization<=0.8", 0.8, 0.79, 0.81, true, true, false},
        {"utilization>0.8", 0.8, 0.79, 0.81, false, false, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct nv_policy *p = calloc(1, sizeof *p);
        assert_non_null(p);
        char why[384], rule[128];
        snprintf(rule, sizeof rule, "r %s action=annotate", cases[i].cond);
        assert_int_equal(parse(p, rule, 1, why), 0);
        int m = (int)(strncmp(cases[i].cond, "own", 3) == 0   ? NV_PM_OWN
                      : strncmp(cases[i].cond, "inf", 3) == 0 ? NV_PM_INFLICTED
                                                              : NV_PM_UTILIZATION);
        double xs[3] = {cases[i].at, cases[i].below, cases[i].above};
        bool want[3] = {cases[i].m_at, cases[i].m_below, cases[i].m_above};
        for (int k = 0; k < 3; k++) {
            struct nv_policy_query q = {0};
            q.known[m] = true;
            q.value[m] = xs[k];
            bool got = nv_policy_match(p, &q) != NULL;
            if (got != want[k])
                fail_msg("%s at %g: matched %d, expected %d", cases[i].cond, xs[k], got, want[k]);
        }
        free(p);
    }
    /* a two-sided range [10, 20) */
    struct nv_policy *p = calloc(1, sizeof *p);
    assert_non_null(p);
    char why[384];
    assert_int_equal(parse(p, "band own_slowdown>=10 own_slowdown<20 action=annotate", 1, why), 0);
    const double xs[] = {9.99, 10, 15, 19.99, 20, 25};
    const bool want[] = {false, true, true, true, false, false};
    for (size_t k = 0; k < 6; k++) {
        struct nv_policy_query q = {.known = {true}, .value = {xs[k]}};
        assert_int_equal(nv_policy_match(p, &q) != NULL, want[k]);
    }
    free(p);
}

static void action_names_and_lists(void **state)
{
    (void)state;
    assert_string_equal(nv_action_name(NV_ACT_MESSAGE), "message");
    assert_string_equal(nv_action_name(NV_ACT_RESIZE), "resize");
    assert_string_equal(nv_action_name(NV_ACT_DENY), "deny");
    assert_string_equal(nv_action_name((enum nv_action)0), "?");
    assert_string_equal(nv_action_name((enum nv_action)(NV_ACT_DENY | NV_ACT_HOLD)), "?");
    char buf[128];
    nv_actions_format(0, buf, sizeof buf);
    assert_string_equal(buf, "");
    nv_actions_format(NV_ACT_AVOID | NV_ACT_CONTAIN | NV_ACT_MESSAGE, buf, sizeof buf);
    assert_string_equal(buf, "message,contain,avoid");
    nv_actions_format(0xff, buf, sizeof buf);
    assert_string_equal(buf, "message,annotate,contain,avoid,isolate,hold,deny,resize");
    /* a short buffer keeps whole names only */
    char small[20];
    nv_actions_format(0xff, small, sizeof small);
    assert_string_equal(small, "message,annotate");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_are_documented_values),
        cmocka_unit_test(every_key_is_read),
        cmocka_unit_test(other_spellings_of_values),
        cmocka_unit_test(each_bad_value_is_one_error_line),
        cmocka_unit_test(a_bad_value_keeps_the_earlier_good_one),
        cmocka_unit_test(line_numbers_count_comments_blank_lines_and_long_lines),
        cmocka_unit_test(errors_without_a_callback_are_still_counted),
        cmocka_unit_test(rule_lines_through_the_config),
        cmocka_unit_test(unreachable_rules_after_a_catch_all_are_errors),
        cmocka_unit_test(a_deny_of_every_job_is_an_error_one_without_reason_a_warning),
        cmocka_unit_test_setup_teardown(load_from_file_missing_and_too_big, make_tmpdir,
                                        remove_tmpdir),
        cmocka_unit_test(rule_parsing_fields_lists_and_conditions),
        cmocka_unit_test(rule_load_time_errors),
        cmocka_unit_test(rule_size_limits),
        cmocka_unit_test(too_many_rules),
        cmocka_unit_test(check_finds_rules_behind_a_catch_all),
        cmocka_unit_test(match_first_rule_wins_and_wildcards),
        cmocka_unit_test(match_unknown_figures_make_conditions_false),
        cmocka_unit_test(match_bounds_at_the_boundary),
        cmocka_unit_test(action_names_and_lists),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
