/* test_child.c - the workflows' child processes (lib/runner/child.h):
 * stdin closed, output in files, timeouts, stop by PID (stop signal, then
 * SIGTERM, then SIGKILL), a missing program, the probe environment. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "launch_plan.h"

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
    assert_int_equal(nv_child_start(&c, p.work_dir, echo, "echo", 0, err, sizeof err), 0);
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

    /* started by a process whose stdin is closed (a daemon's child): the
     * /dev/null it opens lands on descriptor 0 and must stay open in the
     * child, not be closed at exec by its O_CLOEXEC */
    int saved_in = dup(0);
    assert_true(saved_in > 2);
    close(0);
    char *fd0[] = {"/bin/sh", "-c", "readlink /proc/self/fd/0 || echo no-stdin", NULL};
    assert_int_equal(nv_child_start(&c, p.work_dir, fd0, "fd0", 0, err, sizeof err), 0);
    assert_int_equal(dup2(saved_in, 0), 0);
    close(saved_in);
    assert_int_equal(nv_child_wait(&c, 10, &st, NULL), NV_WAIT_EXITED);
    out = nv_read_text_file(c.out_path, 1024, &len, err, sizeof err);
    assert_non_null(out);
    assert_string_equal(out, "/dev/null\n");
    free(out);

    /* a child that overstays: timeout, then stopped by its PID */
    char *sleeper[] = {"sleep", "30", NULL};
    assert_int_equal(nv_child_start(&c, p.work_dir, sleeper, "sleeper", 0, err, sizeof err), 0);
    pid_t pid = c.pid;
    assert_int_equal(nv_child_wait(&c, 0.05, &st, NULL), NV_WAIT_TIMEOUT);
    assert_int_equal(kill(pid, 0), 0);
    st = nv_child_stop(&c, 2);
    assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGUSR1); /* the stop signal first */
    assert_int_equal(c.pid, 0);
    assert_int_equal(kill(pid, 0), -1);

    /* a child that ignores the stop signal and SIGTERM still goes, by SIGKILL */
    char *stubborn[] = {"/bin/sh", "-c", "trap '' USR1 TERM; echo ready >&2; exec sleep 30", NULL};
    assert_int_equal(nv_child_start(&c, p.work_dir, stubborn, "stubborn", 0, err, sizeof err), 0);
    assert_int_equal(nv_child_wait_marker(&c, "ready", 10, &st), NV_WAIT_READY);
    st = nv_child_stop(&c, 0.2);
    assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);

    /* a program that does not exist: exit 127 with one line saying so */
    char *missing[] = {"/nonexistent/netvar-probe", NULL};
    assert_int_equal(nv_child_start(&c, p.work_dir, missing, "missing", 0, err, sizeof err), 0);
    assert_int_equal(nv_child_wait(&c, 10, &st, NULL), NV_WAIT_EXITED);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 127);
    nv_child_last_line(&c, line, sizeof line);
    assert_non_null(strstr(line, "cannot run /nonexistent/netvar-probe"));
    char how[48];
    nv_status_text(st, how, sizeof how);
    assert_string_equal(how, "exit 127");

    /* the probe environment variable reaches the child */
    char *env[] = {"/bin/sh", "-c", "echo \"$NETVAR_PROBE_FAKE_NODES\"", NULL};
    assert_int_equal(nv_child_start(&c, p.work_dir, env, "env", 3, err, sizeof err), 0);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(children_are_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
