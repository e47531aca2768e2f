/* test_workflow_parse.c - the workflows' launching parts: launcher command
 * lines, the probes' JSON readers, option checks, --load-nodes placement
 * and its checks, --runtime-key, and child processes stopped by PID on
 * timeout (the campaign's pure parts are in test_campaign.c).
 * probe_run.c is compiled in here for now. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>

#include "../../../lib/runner/probe_run.c"

static int has(char **argv, const char *s)
{
    for (char **a = argv; *a; a++)
        if (!strcmp(*a, s))
            return 1;
    return 0;
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

static const char impactb_ok[] =
    "srun: some launcher chatter {not json}\n"
    "{\"schema\":\"netvar-impactb\",\"version\":1,\"elapsed_s\":2.5,\"stopped_by\":\"signal\",\n"
    " \"placement\":{\"nodes\":4,\"node_names\":[\"n1\",\"n2\",\"n3\",\"n4\"]},\n"
    " \"samples_us\":[5.5,6,7.25]}\n";

static void impactb_output_is_read(void **state)
{
    (void)state;
    nv_impactb_result r;
    char err[300];
    assert_int_equal(nv_impactb_parse(impactb_ok, strlen(impactb_ok), &r, err, sizeof err), 0);
    assert_int_equal(r.n_samples, 3);
    assert_true(r.samples_us[0] == 5.5 && r.samples_us[2] == 7.25);
    assert_int_equal(r.nodes, 4);
    assert_int_equal(r.n_node_names, 4);
    assert_string_equal(r.node_names[3], "n4");
    assert_string_equal(r.stopped_by, "signal");
    assert_true(r.elapsed_s == 2.5);
    /* the samples make a calibration and a latency summary */
    nv_calibration cal;
    assert_int_equal(nv_calibrate(r.samples_us, r.n_samples, NV_CAL_MINIMUM, 0, &cal), 0);
    assert_true(cal.service_us == 5.5);
    nv_latency_summary lat;
    nv_utilization u;
    assert_int_equal(nv_run_app_utilization(&cal, r.samples_us, r.n_samples, &lat, &u), 0);
    assert_true(fabs(lat.mean_us - 18.75 / 3) < 1e-12);
    assert_true(u.rho >= 0 && u.rho <= 1);
    assert_int_equal(nv_run_app_utilization(&cal, r.samples_us, 0, &lat, &u), -1);
    nv_impactb_result_free(&r);
    nv_impactb_result_free(&r); /* idempotent */

    struct { const char *text, *want; } bad[] = {
        {"", "no JSON object"},
        {"no json here\n", "no JSON object"},
        {"{\"schema\":\"netvar-impactb\",\"version\":1,", "incomplete or invalid"},
        {"{\"schema\":\"netvar-compressionb\",\"version\":1}", "schema"},
        {"{\"schema\":\"netvar-impactb\",\"version\":2}", "version"},
        {"{\"schema\":\"netvar-impactb\",\"version\":1,\"elapsed_s\":1}", "placement.nodes"},
        {"{\"schema\":\"netvar-impactb\",\"version\":1,\"elapsed_s\":1,\"placement\":{\"nodes\":2}}",
         "--samples"},
        {"{\"schema\":\"netvar-impactb\",\"version\":1,\"elapsed_s\":1,\"placement\":{\"nodes\":2},"
         "\"samples_us\":[1,-2]}", "samples_us[1]"},
        {"{\"schema\":\"netvar-impactb\",\"version\":1,\"elapsed_s\":1,\"placement\":{\"nodes\":2},"
         "\"samples_us\":[1,\"x\"]}", "samples_us[1]"},
        {"[1,2]\n", "no JSON object"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        assert_int_equal(nv_impactb_parse(bad[i].text, strlen(bad[i].text), &r, err, sizeof err), -1);
        if (!strstr(err, bad[i].want))
            fail_msg("case %zu: '%s' lacks '%s'", i, err, bad[i].want);
        assert_null(r.samples_us);
    }
}

static void compressionb_output_is_read(void **state)
{
    (void)state;
    const char ok[] = "{\"schema\":\"netvar-compressionb\",\"version\":1,\"elapsed_s\":2,"
                      "\"rounds_per_rank\":120,\"placement\":{\"nodes\":4},"
                      "\"injected_bandwidth\":{\"unit\":\"bytes/s\",\"mean_per_node\":2.5e7,"
                      "\"min_per_node\":2e7,\"max_per_node\":3e7}}";
    nv_compressionb_result r;
    char err[300];
    assert_int_equal(nv_compressionb_parse(ok, strlen(ok), &r, err, sizeof err), 0);
    assert_true(r.mean_bytes_per_s == 2.5e7 && r.min_bytes_per_s == 2e7 && r.max_bytes_per_s == 3e7);
    assert_int_equal(r.nodes, 4);
    assert_int_equal(r.rounds_per_rank, 120);
    const char bad[] = "{\"schema\":\"netvar-compressionb\",\"version\":1,\"elapsed_s\":2,"
                       "\"placement\":{\"nodes\":4}}";
    assert_int_equal(nv_compressionb_parse(bad, strlen(bad), &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "injected_bandwidth"));
}

/* Children: stdin closed, output in files, timeout, stop by PID. */
static void children_are_bounded(void **state)
{
    (void)state;
    nv_run_plan p;
    nv_run_plan_defaults(&p);
    char err[300];
    assert_int_equal(nv_run_work_dir(&p, NULL, "unit", err, sizeof err), 0);

    char *echo[] = {"/bin/sh", "-c", "read x || echo stdin-closed; echo to-err >&2", NULL};
    nv_child c;
    int st = -1;
    double wall = -1;
    assert_int_equal(nv_child_start(&c, &p, echo, "echo", 0, err, sizeof err), 0);
    assert_int_equal(nv_child_wait(&c, 10, &st, &wall), NV_WAIT_EXITED);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0 && wall >= 0);
    size_t len;
    char *out = nv_read_text_file(c.out_path, 1024, &len, err, sizeof err);
    assert_non_null(out);
    assert_string_equal(out, "stdin-closed\n");
    free(out);
    char line[200];
    nv_child_last_line(&c, line, sizeof line);
    assert_string_equal(line, "to-err");

    /* a child that overstays: timeout, then stopped by its PID */
    char *sleeper[] = {"sleep", "30", NULL};
    assert_int_equal(nv_child_start(&c, &p, sleeper, "sleeper", 0, err, sizeof err), 0);
    pid_t pid = c.pid;
    assert_int_equal(nv_child_wait(&c, 0.05, &st, NULL), NV_WAIT_TIMEOUT);
    assert_int_equal(kill(pid, 0), 0);
    st = nv_child_stop(&c, 2);
    assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGUSR1); /* the stop signal first */
    assert_int_equal(c.pid, 0);
    assert_int_equal(kill(pid, 0), -1);

    /* a child that ignores the stop signal and SIGTERM still goes, by SIGKILL */
    char *stubborn[] = {"/bin/sh", "-c", "trap '' USR1 TERM; echo ready >&2; exec sleep 30", NULL};
    assert_int_equal(nv_child_start(&c, &p, stubborn, "stubborn", 0, err, sizeof err), 0);
    assert_int_equal(nv_child_wait_marker(&c, "ready", 10, &st), NV_WAIT_READY);
    st = nv_child_stop(&c, 0.2);
    assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);

    /* a program that does not exist: exit 127 with one line saying so */
    char *missing[] = {"/nonexistent/netvar-probe", NULL};
    assert_int_equal(nv_child_start(&c, &p, missing, "missing", 0, err, sizeof err), 0);
    assert_int_equal(nv_child_wait(&c, 10, &st, NULL), NV_WAIT_EXITED);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 127);
    nv_child_last_line(&c, line, sizeof line);
    assert_non_null(strstr(line, "cannot run /nonexistent/netvar-probe"));
    char how[48];
    nv_status_text(st, how, sizeof how);
    assert_string_equal(how, "exit 127");

    /* the probe environment variable reaches the child */
    char *env[] = {"/bin/sh", "-c", "echo \"$NETVAR_PROBE_FAKE_NODES\"", NULL};
    assert_int_equal(nv_child_start(&c, &p, env, "env", 3, err, sizeof err), 0);
    assert_int_equal(nv_child_wait(&c, 10, &st, NULL), NV_WAIT_EXITED);
    out = nv_read_text_file(c.out_path, 1024, &len, err, sizeof err);
    assert_string_equal(out, "3\n");
    free(out);

    char dir[NV_RUN_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", p.work_dir);
    nv_run_work_dir_cleanup(&p, 0);
    struct stat sb;
    assert_int_equal(stat(dir, &sb), -1);
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

    assert_int_equal(nv_run_plan_option(&p, NV_OPT_LOAD_NODES, "h[2,4-5]", &keep, err, sizeof err), 0);
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
    struct { const char *list, *want; } bad[] = {
        {"h[2", "'[' without ']'"}, {"h2,h2", "listed twice"}, {"h[1-2],h2", "listed twice"},
        {"h[3-1]", "reversed"}, {"h2,bad!name", "not allowed"}, {",", "no node names"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        assert_int_equal(nv_run_plan_option(&p, NV_OPT_LOAD_NODES, bad[i].list, &keep, err,
                                            sizeof err), -1);
        assert_non_null(strstr(err, "--load-nodes"));
        assert_non_null(strstr(err, bad[i].want));
        assert_null(strchr(err, '\n'));
        assert_int_equal(p.n_load_nodes, 0); /* a bad list changes nothing */
    }
    char longlist[NV_RUN_LOAD_NODES_MAX + 8];
    memset(longlist, 'h', sizeof longlist - 1);
    longlist[sizeof longlist - 1] = '\0';
    assert_int_equal(nv_run_plan_option(&p, NV_OPT_LOAD_NODES, longlist, &keep, err, sizeof err), -1);
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
    assert_int_equal(nv_run_plan_option(&p, NV_OPT_LOAD_NODES, "h[2,4]", &keep, err, sizeof err), 0);
    assert_int_equal(nv_run_plan_check(&p, 2, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "leaving 2 for the command, which needs 3"));
    /* the load takes so much that the command cannot pair */
    nv_run_plan_defaults(&p);
    assert_int_equal(nv_run_plan_option(&p, NV_OPT_LOAD_NODES, "h[2-4]", &keep, err, sizeof err), 0);
    assert_int_equal(nv_run_plan_check(&p, 2, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "leaving 1 for the command"));
    assert_null(strchr(err, '\n'));
    unsetenv("SLURM_JOB_ID");
    unsetenv("SLURM_JOB_NUM_NODES");
    unsetenv("SLURM_JOB_NODELIST");
}

/* --runtime-key: the runtime the command prints, not its wall time. */
static void runtime_key_reads_the_printed_runtime(void **state)
{
    (void)state;
    double d = -1;
    assert_int_equal(nv_output_seconds("proxy=cg ranks=2 runtime_s=12.5 size=3\n", "runtime_s", &d), 0);
    assert_true(d == 12.5);
    /* the last one wins; a launcher prefix "0: " is fine */
    assert_int_equal(nv_output_seconds("runtime_s=1\n0: runtime_s=2.25\n", "runtime_s", &d), 0);
    assert_true(d == 2.25);
    /* not a word start, no '=', not a number, negative, trailing junk: none */
    const char *none[] = {"xruntime_s=3", "runtime_s 3", "runtime_s=abc", "runtime_s=-1",
                          "runtime_s=3s", "runtime_s=nan", "runtime_s=", "", "runtime_sx=4"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        d = -1;
        assert_int_equal(nv_output_seconds(none[i], "runtime_s", &d), -1);
        assert_true(d == -1);
    }
    assert_int_equal(nv_output_seconds(NULL, "k", &d), -1);
    assert_int_equal(nv_output_seconds("k=1", "", &d), -1);

    nv_run_plan p;
    const char *keep = NULL;
    char err[300];
    unsetenv("SLURM_JOB_ID");
    nv_run_plan_defaults(&p);
    assert_int_equal(nv_run_plan_option(&p, NV_OPT_RUNTIME_KEY, "a b", &keep, err, sizeof err), -1);
    assert_non_null(strstr(err, "--runtime-key"));
    assert_int_equal(nv_run_plan_option(&p, NV_OPT_RUNTIME_KEY, "", &keep, err, sizeof err), -1);
    assert_null(p.runtime_key);

    /* nv_run_command through a stand-in srun that drops its own options */
    assert_int_equal(nv_run_work_dir(&p, NULL, "unit", err, sizeof err), 0);
    char bindir[NV_RUN_PATH_MAX + 16], fake[NV_RUN_PATH_MAX + 32];
    snprintf(bindir, sizeof bindir, "%s/bin", p.work_dir);
    assert_int_equal(mkdir(bindir, 0755), 0);
    snprintf(fake, sizeof fake, "%s/srun", bindir);
    FILE *f = fopen(fake, "w");
    assert_non_null(f);
    fputs("#!/bin/sh\nwhile case $1 in --*) true;; *) false;; esac; do shift; done\nexec \"$@\"\n", f);
    fclose(f);
    assert_int_equal(chmod(fake, 0755), 0);
    const char *old = getenv("PATH");
    char *saved = strdup(old ? old : "/usr/bin:/bin");
    char path[2 * NV_RUN_PATH_MAX];
    snprintf(path, sizeof path, "%s:%s", bindir, saved);
    setenv("PATH", path, 1);
    double t = -1;
    const char *prints[] = {"/bin/sh", "-c", "echo proxy=x runtime_s=0.75 size=1"};
    assert_int_equal(nv_run_command(&p, prints, 3, "wall", 10, &t, err, sizeof err), 0);
    assert_true(t >= 0 && t != 0.75); /* wall time without the key */
    assert_int_equal(nv_run_plan_option(&p, NV_OPT_RUNTIME_KEY, "runtime_s", &keep, err, sizeof err), 0);
    assert_int_equal(nv_run_command(&p, prints, 3, "keyed", 10, &t, err, sizeof err), 0);
    assert_true(t == 0.75);
    const char *silent[] = {"/bin/sh", "-c", "echo nothing here"};
    assert_int_equal(nv_run_command(&p, silent, 3, "silent", 10, &t, err, sizeof err), -1);
    assert_non_null(strstr(err, "silent printed no runtime_s=SECONDS"));
    assert_null(strchr(err, '\n'));
    setenv("PATH", saved, 1);
    free(saved);
    unlink(fake);
    rmdir(bindir);
    nv_run_work_dir_cleanup(&p, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(launcher_command_lines),
        cmocka_unit_test(option_checks),
        cmocka_unit_test(impactb_output_is_read),
        cmocka_unit_test(compressionb_output_is_read),
        cmocka_unit_test(children_are_bounded),
        cmocka_unit_test(load_nodes_place_the_load),
        cmocka_unit_test(load_nodes_are_checked),
        cmocka_unit_test(runtime_key_reads_the_printed_runtime),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
