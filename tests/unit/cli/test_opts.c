/* test_opts.c - options declared once (cli/opts.h): each kind of option
 * lands in its target or refuses a bad value with a line naming it, the
 * parse stops at a command, --help is generated from the table within 79
 * columns, and the launch options calibrate, impact and campaign share set
 * the plan (cli/args.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "opts.h"

static int call_seen;
static int record_call(const nv_opt *o, void *to, const char *arg, char *err, size_t errlen)
{
    (void)to;
    if (!strcmp(arg, "no"))
        return snprintf(err, errlen, "--call 'no': refused"), -1;
    call_seen = o->ival;
    return 0;
}

static void each_kind_lands_in_its_target(void **state)
{
    const char *s = NULL;
    int flag = 0, i = 0, choice = 0;
    long l = 0;
    double secs = 0, d = -1;
    const nv_opt o[] = {
        {"str", "X", NV_CLI_STR, &s},
        {"flag", NULL, NV_CLI_FLAG, &flag, .ival = 7},
        {"long", "N", NV_CLI_LONG, &l, 1, 10},
        {"int", "N", NV_CLI_INT, &i, -5, 5},
        {"secs", "S", NV_CLI_SECONDS, &secs},
        {"dbl", "R", NV_CLI_DOUBLE, &d, 1.5, 1000, .zero_ok = 1},
        {"pick", "RULE", NV_CLI_CHOICE, &choice, .choices = "fastest|median|slowest"},
        {"call", "V", NV_CLI_CALL, NULL, .ival = 42, .call = record_call},
    };
    char err[300];
    assert_int_equal(nv_opt_apply(&o[0], NULL, "a b", err, sizeof err), 0);
    assert_string_equal(s, "a b");
    assert_int_equal(nv_opt_apply(&o[1], NULL, NULL, err, sizeof err), 0);
    assert_int_equal(flag, 7);
    assert_int_equal(nv_opt_apply(&o[2], NULL, "10", err, sizeof err), 0);
    assert_int_equal(l, 10);
    assert_int_equal(nv_opt_apply(&o[3], NULL, "-5", err, sizeof err), 0);
    assert_int_equal(i, -5);
    assert_int_equal(nv_opt_apply(&o[4], NULL, "2.5", err, sizeof err), 0);
    assert_true(secs == 2.5);
    assert_int_equal(nv_opt_apply(&o[5], NULL, "0", err, sizeof err), 0);
    assert_true(d == 0);
    assert_int_equal(nv_opt_apply(&o[5], NULL, "1000", err, sizeof err), 0);
    assert_true(d == 1000);
    assert_int_equal(nv_opt_apply(&o[6], NULL, "slowest", err, sizeof err), 0);
    assert_int_equal(choice, 2);
    int mark;
    assert_int_equal(nv_opt_apply(&o[7], &mark, "yes", err, sizeof err), 0);
    assert_int_equal(call_seen, 42);
}

static void a_bad_value_is_one_line_naming_the_option(void **state)
{
    long l = 3;
    int choice = 1;
    double d = 5, g = 2;
    const nv_opt o[] = {
        {"long", "N", NV_CLI_LONG, &l, 1, 10},
        {"dbl", "R", NV_CLI_DOUBLE, &d, 1.5, 1000},
        {"ghz", "G", NV_CLI_DOUBLE, &g, 0.01, 100,
         .bad = "must be a clock rate from 0.01 to 100 GHz"},
        {"pick", "RULE", NV_CLI_CHOICE, &choice, .choices = "fastest|median|slowest"},
        {"secs", "S", NV_CLI_SECONDS, &d},
        {"call", "V", NV_CLI_CALL, NULL, .call = record_call},
    };
    char err[300];
    assert_int_equal(nv_opt_apply(&o[0], NULL, "11", err, sizeof err), -1);
    assert_string_equal(err, "--long '11': must be a whole number from 1 to 10");
    assert_int_equal(nv_opt_apply(&o[0], NULL, "2x", err, sizeof err), -1);
    assert_int_equal(l, 3); /* untouched by a bad value */
    assert_int_equal(nv_opt_apply(&o[1], NULL, "0", err, sizeof err), -1);
    assert_string_equal(err, "--dbl '0': must be a number from 1.5 to 1000");
    assert_int_equal(nv_opt_apply(&o[1], NULL, "nan", err, sizeof err), -1);
    assert_int_equal(nv_opt_apply(&o[1], NULL, "1e999", err, sizeof err), -1);
    assert_true(d == 5);
    assert_int_equal(nv_opt_apply(&o[2], NULL, "x", err, sizeof err), -1);
    assert_string_equal(err, "--ghz 'x': must be a clock rate from 0.01 to 100 GHz");
    assert_int_equal(nv_opt_apply(&o[3], NULL, "fast", err, sizeof err), -1);
    assert_string_equal(err, "--pick 'fast': must be fastest, median or slowest");
    assert_int_equal(choice, 1);
    assert_int_equal(nv_opt_apply(&o[4], NULL, "0", err, sizeof err), -1);
    assert_non_null(strstr(err, "--secs 0: the duration must be more than 0"));
    assert_int_equal(nv_opt_apply(&o[5], NULL, "no", err, sizeof err), -1);
    assert_string_equal(err, "--call 'no': refused");
}

/* runs the parse on a NULL-terminated argument list */
static int parse(const nv_opt_spec *s, char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    return nv_opts_parse(s, argc, argv);
}

static void the_parse_stops_at_the_command(void **state)
{
    const char *model = NULL;
    int text = 0;
    const nv_opt o[] = {{"model", "FILE", NV_CLI_STR, &model, .help = "the model"},
                        NV_OPT_JSON_TEXT(&text)};
    nv_opt_spec s = {"netvar t", "; nothing run", "head\n", "tail\n", 1, {{"Options:", "t", o, 3}}};
    char *argv[] = {"t", "--model", "m.json", "--text", "./app", "--model", "x", NULL};
    assert_int_equal(parse(&s, argv), 0);
    assert_string_equal(model, "m.json");
    assert_int_equal(text, 1);
    assert_int_equal(optind, 4); /* ./app and its own --model are the command's */
    char *eq[] = {"t", "--mod=n.json", "--json", "--", "./app", NULL};
    assert_int_equal(parse(&s, eq), 0); /* a unique prefix, as getopt_long takes it */
    assert_string_equal(model, "n.json");
    assert_int_equal(text, 0);
    assert_string_equal(eq[optind], "./app");

    char *missing[] = {"t", "--model", NULL};
    assert_int_equal(parse(&s, missing), 2);
    char *unknown[] = {"t", "--nodel", "x", NULL};
    assert_int_equal(parse(&s, unknown), 2);
    char *noarg[] = {"t", "--json=1", NULL};
    assert_int_equal(parse(&s, noarg), 2);
    /* without stop_at_operand the options may follow an operand */
    s.stop_at_operand = 0;
    char *perm[] = {"t", "JOBID", "--model", "o.json", NULL};
    assert_int_equal(parse(&s, perm), 0);
    assert_string_equal(model, "o.json");
    assert_string_equal(perm[optind], "JOBID");
}

static void a_name_declared_twice_is_refused(void **state)
{
    const char *a = NULL, *b = NULL;
    nv_run_plan plan;
    nv_run_plan_defaults(&plan);
    const char *keep = NULL;
    nv_cli_launch l = {&plan, &keep};
    const nv_opt o[] = {{"nodes", "N", NV_CLI_STR, &a}, {"x", "X", NV_CLI_STR, &b}};
    nv_opt_spec s = {"netvar t", NULL, NULL, NULL, 1, {{"Options:", "t", o, 2}}};
    s.group[1] = nv_cli_launch_options(&l);
    char *argv[] = {"t", "--x", "1", NULL};
    assert_int_equal(parse(&s, argv), 2); /* --nodes is a launch option too */
    const nv_opt h[] = {{"help", NULL, NV_CLI_FLAG, &a}};
    nv_opt_spec sh = {"netvar t", NULL, NULL, NULL, 1, {{"Options:", "t", h, 1}}};
    assert_int_equal(parse(&sh, argv), 2);
}

static void the_launch_options_set_the_plan(void **state)
{
    nv_run_plan plan;
    nv_run_plan_defaults(&plan);
    const char *keep = NULL;
    nv_cli_launch l = {&plan, &keep};
    nv_opt_spec s = {"netvar t", NULL, NULL,
                     NULL,       1,    {nv_cli_placement_options(&l), nv_cli_launch_options(&l)}};
    char *argv[] = {"t",
                    "--nodes",
                    "3",
                    "--launcher",
                    "mpirun",
                    "--launcher-arg",
                    "-v",
                    "--launcher-arg=--oversubscribe",
                    "--probe-tasks-per-node",
                    "2",
                    "--impactb",
                    "/bin/ib",
                    "--compressionb",
                    "/bin/cb",
                    "--launch-timeout-s",
                    "9",
                    "--launch-attempts",
                    "10",
                    "--no-fake-nodes",
                    "--keep",
                    "/tmp/k",
                    "--load-nodes",
                    "h[2,4]",
                    "--runtime-key",
                    "runtime_s",
                    "cmd",
                    NULL};
    assert_int_equal(parse(&s, argv), 0);
    assert_string_equal(argv[optind], "cmd");
    assert_int_equal(plan.nodes, 3);
    assert_int_equal(plan.nodes_given, 1);
    assert_int_equal(plan.launcher, NV_LAUNCHER_MPIRUN);
    assert_int_equal(plan.n_extra, 2);
    assert_string_equal(plan.extra[1], "--oversubscribe");
    assert_int_equal(plan.probe_tasks_per_node, 2);
    assert_string_equal(plan.impactb, "/bin/ib");
    assert_string_equal(plan.compressionb, "/bin/cb");
    assert_true(plan.launch_timeout_s == 9);
    assert_int_equal(plan.launch_attempts, 10);
    assert_int_equal(plan.fake_nodes, 0);
    assert_string_equal(keep, "/tmp/k");
    assert_int_equal(plan.n_load_nodes, 2);
    assert_string_equal(plan.runtime_key, "runtime_s");
    char *bad[] = {"t", "--launch-attempts", "11", NULL};
    assert_int_equal(parse(&s, bad), 2);
    assert_int_equal(plan.launch_attempts, 10);
}

/* the --help and --list-options texts, read back from a memory stream */
static char *printed(void (*fn)(FILE *, const nv_opt_spec *), const nv_opt_spec *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    fn(f, s);
    fclose(f);
    return buf;
}

static void help_is_generated_from_the_table(void **state)
{
    const char *model = NULL;
    long n = 0;
    const nv_opt o[] = {
        {"model", "FILE", NV_CLI_STR, &model, .help = "model file to read (required)"},
        {"interval-us", "US", NV_CLI_LONG, &n, 0, 10,
         .help = "pause between ping-pongs, in microseconds (0..10, default 5); a long text "
                 "that does not fit on one line is wrapped at the last space before column "
                 "79 and goes on under the first word"},
        {"a-very-long-option-name", "KIND:PORT[,PORT...]", NV_CLI_STR, &model,
         .help = "on its own line\nand a line of its own"},
    };
    nv_opt_spec s = {"netvar t",
                     NULL,
                     "Usage: netvar t\n\n",
                     "\nExit status: 0.\n",
                     0,
                     {{"Options:", "t", o, 3}}};
    char *h = printed(nv_opts_help, &s);
    assert_non_null(strstr(h, "Usage: netvar t\n\nOptions:\n"
                              "  --model FILE       model file to read (required)\n"
                              "  --interval-us US   pause between ping-pongs, in microseconds"));
    assert_non_null(
        strstr(h, "(0..10, default\n"
                  "                     5); a long text that does not fit on one line is wrapped\n"
                  "                     at the last space before column 79 and goes on under the\n"
                  "                     first word\n"));
    assert_non_null(strstr(h, "  --a-very-long-option-name KIND:PORT[,PORT...]\n"
                              "                     on its own line\n"
                              "                     and a line of its own\n"));
    assert_non_null(strstr(h, "  -h, --help         show this help\n"));
    assert_non_null(strstr(h, "\nExit status: 0.\n"));
    for (char *line = h; *line;) {
        size_t len = strcspn(line, "\n");
        assert_in_range(len, 0, 79);
        line += len + (line[len] == '\n');
    }
    free(h);
    char *list = printed(nv_opts_list, &s);
    assert_string_equal(list, "t\t--model\tFILE\nt\t--interval-us\tUS\n"
                              "t\t--a-very-long-option-name\tKIND:PORT[,PORT...]\n");
    free(list);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_kind_lands_in_its_target),
        cmocka_unit_test(a_bad_value_is_one_line_naming_the_option),
        cmocka_unit_test(the_parse_stops_at_the_command),
        cmocka_unit_test(a_name_declared_twice_is_refused),
        cmocka_unit_test(the_launch_options_set_the_plan),
        cmocka_unit_test(help_is_generated_from_the_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
