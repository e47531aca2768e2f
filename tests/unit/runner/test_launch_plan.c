/* test_launch_plan.c - how the workflows launch (lib/runner/launch_plan.h,
 * launch_argv.h): launcher command lines, option checks, and --load-nodes
 * placement and its checks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "launch_argv.h"
#include "launch_plan.h"

static int has(char **argv, const char *s)
{
    for (char **a = argv; *a; a++)
        if (!strcmp(*a, s))
            return 1;
    return 0;
}

static int has_prefix(char **argv, const char *s)
{
    for (char **a = argv; *a; a++)
        if (!strncmp(*a, s, strlen(s)))
            return 1;
    return 0;
}

static size_t argc_of(char **argv)
{
    size_t n = 0;
    while (argv[n])
        n++;
    return n;
}

static void launcher_command_lines(void **state)
{
    (void)state;
    nv_run_plan p;
    nv_run_plan_defaults(&p);
    p.nodes = 4;
    p.in_allocation = 1;
    const char *cmd[] = {"/bin/app", "--iters", "3"};
    char **a = nv_run_argv(&p, 2, cmd, 3);
    assert_non_null(a);
    assert_string_equal(a[0], "srun");
    assert_true(has(a, "--mpi=pmix") && has(a, "--nodes=4") && has(a, "--ntasks=8") &&
                has(a, "--ntasks-per-node=2") && has(a, "--overlap") && has(a, "--relative=0"));
    size_t n = 0;
    while (a[n])
        n++;
    assert_string_equal(a[n - 3], "/bin/app");
    assert_string_equal(a[n - 1], "3");
    nv_argv_free(a);

    p.in_allocation = 0;
    p.extra[p.n_extra++] = "--mpi=pmi2";
    a = nv_run_argv(&p, 1, cmd, 1);
    assert_true(!has(a, "--mpi=pmix") && has(a, "--mpi=pmi2") && !has(a, "--overlap"));
    nv_argv_free(a);

    p.n_extra = 0;
    p.launcher = NV_LAUNCHER_MPIRUN;
    p.fake_nodes = 1;
    a = nv_run_argv(&p, 2, cmd, 1);
    assert_string_equal(a[0], "mpirun");
    assert_string_equal(a[1], "-n");
    assert_string_equal(a[2], "8");
    assert_string_equal(a[3], "/bin/app");
    assert_null(a[4]);
    nv_argv_free(a);
    p.fake_nodes = 0;
    a = nv_run_argv(&p, 2, cmd, 1);
    assert_true(has(a, "--map-by") && has(a, "ppr:2:node"));
    nv_argv_free(a);
    assert_null(nv_run_argv(&p, 2, cmd, 0));

    nv_launcher l;
    assert_int_equal(nv_launcher_from_name("srun", &l), 0);
    assert_int_equal(l, NV_LAUNCHER_SRUN);
    assert_int_equal(nv_launcher_from_name("mpirun", &l), 0);
    assert_int_equal(l, NV_LAUNCHER_MPIRUN);
    assert_int_equal(nv_launcher_from_name("aprun", &l), -1);
}

static void option_checks(void **state)
{
    (void)state;
    char err[300];
    double d;
    long v;
    assert_int_equal(nv_parse_seconds("--duration-s", "3", &d, err, sizeof err), 0);
    assert_true(d == 3);
    assert_int_equal(nv_parse_seconds("--duration-s", "0", &d, err, sizeof err), -1);
    assert_non_null(strstr(err, "the duration must be more than 0"));
    assert_int_equal(nv_parse_seconds("--duration-s", "-2", &d, err, sizeof err), -1);
    assert_int_equal(nv_parse_seconds("--duration-s", "3s", &d, err, sizeof err), -1);
    assert_int_equal(nv_parse_seconds("--duration-s", "nan", &d, err, sizeof err), -1);
    assert_int_equal(nv_parse_count("--repeat", "0", 1, 100, &v, err, sizeof err), -1);
    assert_int_equal(nv_parse_count("--repeat", "101", 1, 100, &v, err, sizeof err), -1);
    assert_int_equal(nv_parse_count("--repeat", "5", 1, 100, &v, err, sizeof err), 0);
    assert_int_equal(v, 5);

    nv_run_plan p;
    const char *keep = NULL;
    unsetenv("SLURM_JOB_ID");
    nv_run_plan_defaults(&p);
    assert_int_equal(nv_run_plan_option(&p, NV_OPT_NODES, "1", &keep, err, sizeof err), 0);
    assert_int_equal(nv_run_plan_check(&p, 2, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "at least 2 nodes"));
    assert_int_equal(nv_run_plan_option(&p, NV_OPT_NODES, "4", &keep, err, sizeof err), 0);
    assert_int_equal(nv_run_plan_check(&p, 2, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "needs an allocation"));
    assert_int_equal(nv_run_plan_check(&p, 2, 0, err, sizeof err), 0);
    assert_int_equal(nv_run_plan_option(&p, NV_OPT_LAUNCHER, "pbs", &keep, err, sizeof err), -1);
    assert_int_equal(nv_run_plan_option(&p, 'x', "", &keep, err, sizeof err), 1);
    setenv("SLURM_JOB_ID", "42", 1);
    setenv("SLURM_JOB_NUM_NODES", "2", 1);
    assert_int_equal(nv_run_allocation_nodes(), 2);
    assert_int_equal(nv_run_plan_check(&p, 2, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "the allocation has only 2 node(s)"));
    unsetenv("SLURM_JOB_ID");
    unsetenv("SLURM_JOB_NUM_NODES");
    assert_int_equal(nv_run_plan_option(&p, NV_OPT_LAUNCHER, "mpirun", &keep, err, sizeof err), 0);
    assert_int_equal(nv_run_plan_check(&p, 2, 1, err, sizeof err), 0);
    assert_true(p.fake_nodes == 1 && p.in_allocation == 0);
}

/* --load-nodes: the load on the list, the command on the rest; without it
 * both sides are today's command line. */
static void load_nodes_place_the_load(void **state)
{
    (void)state;
    nv_run_plan p;
    const char *keep = NULL;
    char err[300];
    unsetenv("SLURM_JOB_ID");
    nv_run_plan_defaults(&p);
    p.nodes = 2;
    p.in_allocation = 1;
    const char *cmd[] = {"/bin/app"};
    char **app = nv_run_argv_on(&p, NV_SIDE_APP, 1, cmd, 1);
    char **load = nv_run_argv_on(&p, NV_SIDE_LOAD, 1, cmd, 1);
    assert_int_equal(argc_of(app), argc_of(load));
    for (size_t i = 0; app[i]; i++)
        assert_string_equal(app[i], load[i]);
    assert_true(has(load, "--relative=0") && !has_prefix(load, "--nodelist") &&
                !has_prefix(load, "--exclude"));
    nv_argv_free(app);
    nv_argv_free(load);

    assert_int_equal(nv_run_plan_option(&p, NV_OPT_LOAD_NODES, "h[2,4-5]", &keep, err, sizeof err),
                     0);
    assert_int_equal(p.n_load_nodes, 3);
    assert_int_equal(nv_run_side_nodes(&p, NV_SIDE_LOAD), 3);
    assert_int_equal(nv_run_side_nodes(&p, NV_SIDE_APP), 2);
    load = nv_run_argv_on(&p, NV_SIDE_LOAD, 2, cmd, 1);
    assert_true(has(load, "--nodelist=h[2,4-5]") && has(load, "--nodes=3") &&
                has(load, "--ntasks=6") && has(load, "--overlap") && !has(load, "--relative=0"));
    assert_string_equal(load[argc_of(load) - 1], "/bin/app");
    nv_argv_free(load);
    app = nv_run_argv_on(&p, NV_SIDE_APP, 1, cmd, 1);
    assert_true(has(app, "--exclude=h[2,4-5]") && has(app, "--nodes=2") && has(app, "--ntasks=2") &&
                !has(app, "--relative=0") && !has_prefix(app, "--nodelist"));
    nv_argv_free(app);
    /* nv_run_argv is the command's side */
    app = nv_run_argv(&p, 1, cmd, 1);
    assert_true(has(app, "--exclude=h[2,4-5]"));
    nv_argv_free(app);

    /* mpirun: the load on real hosts with T slots each, the command as before */
    p.launcher = NV_LAUNCHER_MPIRUN;
    p.fake_nodes = 1;
    p.in_allocation = 0;
    load = nv_run_argv_on(&p, NV_SIDE_LOAD, 2, cmd, 1);
    assert_string_equal(load[0], "mpirun");
    assert_string_equal(load[2], "6");
    assert_true(has(load, "--host") && has(load, "h2:2,h4:2,h5:2") && has(load, "ppr:2:node"));
    nv_argv_free(load);
    app = nv_run_argv_on(&p, NV_SIDE_APP, 2, cmd, 1);
    assert_true(!has(app, "--host") && !has(app, "--map-by"));
    assert_string_equal(app[2], "4");
    nv_argv_free(app);
}

static void load_nodes_are_checked(void **state)
{
    (void)state;
    nv_run_plan p;
    const char *keep = NULL;
    char err[300];
    unsetenv("SLURM_JOB_ID");
    unsetenv("SLURM_JOB_NUM_NODES");
    unsetenv("SLURM_JOB_NODELIST");
    unsetenv("SLURM_NODELIST");
    nv_run_plan_defaults(&p);
    struct {
        const char *list, *want;
    } bad[] = {
        {"h[2", "'[' without ']'"}, {"h2,h2", "listed twice"},      {"h[1-2],h2", "listed twice"},
        {"h[3-1]", "reversed"},     {"h2,bad!name", "not allowed"}, {",", "no node names"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        assert_int_equal(
            nv_run_plan_option(&p, NV_OPT_LOAD_NODES, bad[i].list, &keep, err, sizeof err), -1);
        assert_non_null(strstr(err, "--load-nodes"));
        assert_non_null(strstr(err, bad[i].want));
        assert_null(strchr(err, '\n'));
        assert_int_equal(p.n_load_nodes, 0); /* a bad list changes nothing */
    }
    char longlist[NV_RUN_LOAD_NODES_MAX + 8];
    memset(longlist, 'h', sizeof longlist - 1);
    longlist[sizeof longlist - 1] = '\0';
    assert_int_equal(nv_run_plan_option(&p, NV_OPT_LOAD_NODES, longlist, &keep, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "longer than"));

    /* one node cannot pair ImpactB */
    assert_int_equal(nv_run_plan_option(&p, NV_OPT_LOAD_NODES, "h2", &keep, err, sizeof err), 0);
    assert_int_equal(nv_run_plan_check(&p, 2, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "at least 2 are needed"));

    /* inside an allocation h[1-4]: the command gets the other two nodes */
    setenv("SLURM_JOB_ID", "42", 1);
    setenv("SLURM_JOB_NUM_NODES", "4", 1);
    setenv("SLURM_JOB_NODELIST", "h[1-4]", 1);
    nv_run_plan_defaults(&p);
    assert_int_equal(p.nodes, 4);
    assert_int_equal(nv_run_plan_option(&p, NV_OPT_LOAD_NODES, "h2,h4", &keep, err, sizeof err), 0);
    assert_int_equal(nv_run_plan_check(&p, 2, 1, err, sizeof err), 0);
    assert_int_equal(p.nodes, 2);
    assert_int_equal(p.in_allocation, 1);
    /* a node outside the allocation */
    nv_run_plan_defaults(&p);
    assert_int_equal(nv_run_plan_option(&p, NV_OPT_LOAD_NODES, "h2,h5", &keep, err, sizeof err), 0);
    assert_int_equal(nv_run_plan_check(&p, 2, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "h5 is not in the allocation (h[1-4])"));
    /* --nodes asks more than the load leaves */
    nv_run_plan_defaults(&p);
    assert_int_equal(nv_run_plan_option(&p, NV_OPT_NODES, "3", &keep, err, sizeof err), 0);
    assert_int_equal(nv_run_plan_option(&p, NV_OPT_LOAD_NODES, "h[2,4]", &keep, err, sizeof err),
                     0);
    assert_int_equal(nv_run_plan_check(&p, 2, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "leaving 2 for the command, which needs 3"));
    /* the load takes so much that the command cannot pair */
    nv_run_plan_defaults(&p);
    assert_int_equal(nv_run_plan_option(&p, NV_OPT_LOAD_NODES, "h[2-4]", &keep, err, sizeof err),
                     0);
    assert_int_equal(nv_run_plan_check(&p, 2, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "leaving 1 for the command"));
    assert_null(strchr(err, '\n'));
    unsetenv("SLURM_JOB_ID");
    unsetenv("SLURM_JOB_NUM_NODES");
    unsetenv("SLURM_JOB_NODELIST");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(launcher_command_lines),
        cmocka_unit_test(option_checks),
        cmocka_unit_test(load_nodes_place_the_load),
        cmocka_unit_test(load_nodes_are_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
