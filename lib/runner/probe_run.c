/* probe_run.c - probe runs and runs of the command under test for the
 * workflows (probe_run.h). */
#define _GNU_SOURCE
#include "probe_run.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "launch_argv.h"
#include "nv_err.h"

int nv_probe_start(nv_child *c, const nv_run_plan *p, const char *probe, const char *name,
                   const char *const *args, size_t nargs, char *err, size_t errlen)
{
    return nv_probe_start_on(c, p, NV_SIDE_LOAD, probe, name, args, nargs, err, errlen);
}

/* waits about a second before a launch is made again (the crashed step's
 * teardown), returning early when netvar is interrupted */
static void retry_pause(void)
{
    for (int i = 0; i < 10 && !nv_run_interrupted(); i++) {
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

/* tells that launch `name` crashed (status st, last stderr line) and is
 * made again as attempt `next` of the plan's */
static void retry_notice(const nv_run_plan *p, const char *name, const char *when, int st,
                         const nv_child *c, int next)
{
    char line[300], how[48], msg[700];
    nv_child_last_line(c, line, sizeof line);
    nv_status_text(st, how, sizeof how);
    snprintf(msg, sizeof msg, "%s crashed%s%s (%s): %s; launching it again (attempt %d of %d)",
             name, when[0] ? " " : "", when, how, line[0] ? line : "no message", next,
             p->launch_attempts);
    if (p->notice)
        p->notice(p->notice_ctx, msg);
}

int nv_probe_start_on(nv_child *c, const nv_run_plan *p, nv_run_side side, const char *probe,
                      const char *name, const char *const *args, size_t nargs, char *err,
                      size_t errlen)
{
    const char *cmd[64];
    size_t n = 0;
    if (nargs > 60)
        return nv_err(err, errlen, "%s: too many arguments", name);
    cmd[n++] = probe;
    for (size_t i = 0; i < nargs; i++)
        cmd[n++] = args[i];
    cmd[n++] = "--announce";
    /* a load placed on real hosts is not split into pseudo-nodes */
    int fake = p->launcher == NV_LAUNCHER_MPIRUN && p->fake_nodes &&
               !(side == NV_SIDE_LOAD && p->n_load_nodes > 0);
    /* ready when every rank can be stopped by a signal: a stop sent before
     * that would kill the probe without output */
    char marker[96];
    const char *base = strrchr(probe, '/');
    snprintf(marker, sizeof marker, "netvar: %s: started:", base ? base + 1 : probe);
    for (int attempt = 1;; attempt++) {
        char **argv = nv_run_argv_on(p, side, p->probe_tasks_per_node, cmd, n);
        int rc = nv_child_start(c, p->work_dir, argv, name, fake ? nv_run_side_nodes(p, side) : 0,
                                err, errlen);
        nv_argv_free(argv);
        if (rc)
            return -1;
        int st = 0;
        int w = nv_child_wait_marker(c, marker, p->launch_timeout_s, &st);
        if (w == NV_WAIT_READY)
            return 0;
        if (w == NV_WAIT_EXITED && nv_status_crashed(st) && attempt < p->launch_attempts &&
            !nv_run_interrupted()) {
            retry_notice(p, name, "before it started measuring", st, c, attempt + 1);
            retry_pause();
            continue;
        }
        char line[300], how[48];
        nv_child_last_line(c, line, sizeof line);
        if (w == NV_WAIT_EXITED) {
            nv_status_text(st, how, sizeof how);
            nv_err(err, errlen, "%s ended before it started measuring (%s%s): %s", name, how,
                   attempt > 1 ? ", the last of its attempts" : "", line[0] ? line : "no message");
        } else if (w == NV_WAIT_INTERRUPTED) {
            nv_child_stop(c, 5);
            nv_err(err, errlen, "interrupted while %s was starting; stopped it", name);
        } else {
            nv_child_stop(c, 5);
            nv_err(err, errlen, "%s did not start within %.0f s (stopped it): %s", name,
                   p->launch_timeout_s, line[0] ? line : "no message");
        }
        return -1;
    }
}

char *nv_probe_finish(nv_child *c, const nv_run_plan *p, int stop_now, double timeout_s,
                      size_t *len, char *err, size_t errlen)
{
    int st = 0;
    if (stop_now) {
        st = nv_child_stop(c, p->launch_timeout_s < 15 ? p->launch_timeout_s : 15);
    } else {
        int w = nv_child_wait(c, timeout_s, &st, NULL);
        if (w != NV_WAIT_EXITED) {
            nv_child_stop(c, 5);
            nv_err(err, errlen, "%s %s; stopped it", c->what,
                   w == NV_WAIT_TIMEOUT ? "did not finish in time" : "interrupted");
            return NULL;
        }
    }
    /* a launcher may exit non-zero after forwarding a stop signal even when
     * every rank ended cleanly; a probe we stopped is judged by its output */
    struct stat fst;
    int have_output = stat(c->out_path, &fst) == 0 && fst.st_size > 0;
    if ((!WIFEXITED(st) || WEXITSTATUS(st) != 0) && !(stop_now && have_output)) {
        char line[300], how[48];
        nv_child_last_line(c, line, sizeof line);
        nv_status_text(st, how, sizeof how);
        nv_err(err, errlen, "%s failed (%s): %s", c->what, how, line[0] ? line : "no message");
        return NULL;
    }
    return nv_read_text_file(c->out_path, NV_RUN_MAX_PROBE_OUTPUT, len, err, errlen);
}

int nv_run_command(const nv_run_plan *p, const char *const *cmd, size_t ncmd, const char *name,
                   double timeout_s, double *wall_s, char *err, size_t errlen)
{
    nv_child c;
    int st = 0;
    for (int attempt = 1;; attempt++) {
        char **argv = nv_run_argv(p, p->app_tasks_per_node, cmd, ncmd);
        int rc = nv_child_start(&c, p->work_dir, argv, name, 0, err, errlen);
        nv_argv_free(argv);
        if (rc)
            return -1;
        /* the command does not handle SIGUSR1; on SIGTERM both launchers end
         * the whole job (mpirun forwarding SIGUSR1 and leaving could orphan ranks) */
        c.stop_signal = SIGTERM;
        int w = nv_child_wait(&c, timeout_s, &st, wall_s);
        if (w != NV_WAIT_EXITED) {
            nv_child_stop(&c, 5);
            if (w == NV_WAIT_TIMEOUT)
                nv_err(err, errlen, "%s did not finish within --timeout-s %.0f s; stopped it", name,
                       timeout_s);
            else
                nv_err(err, errlen, "interrupted while %s ran; stopped it", name);
            return -1;
        }
        /* a crash is made again (its runtime is not kept); a command that
         * failed by itself is not */
        if (nv_status_crashed(st) && attempt < p->launch_attempts && !nv_run_interrupted()) {
            retry_notice(p, name, "", st, &c, attempt + 1);
            retry_pause();
            continue;
        }
        break;
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        char line[300], how[48];
        nv_child_last_line(&c, line, sizeof line);
        nv_status_text(st, how, sizeof how);
        return nv_err(err, errlen, "%s failed (%s): %s", name, how, line[0] ? line : "no message");
    }
    if (p->runtime_key) {
        size_t len = 0;
        char rerr[300];
        char *text =
            nv_read_text_file(c.out_path, NV_RUN_MAX_PROBE_OUTPUT, &len, rerr, sizeof rerr);
        int found = text && nv_output_seconds(text, p->runtime_key, wall_s) == 0;
        free(text);
        if (!found)
            return nv_err(err, errlen, "%s printed no %s=SECONDS on stdout (--runtime-key; see %s)",
                          name, p->runtime_key, c.out_path);
    }
    return 0;
}

int nv_output_seconds(const char *text, const char *key, double *out)
{
    if (!text || !key || !*key)
        return -1;
    size_t kl = strlen(key);
    int found = 0;
    for (const char *s = strstr(text, key); s; s = strstr(s + 1, key)) {
        if ((s != text && !strchr(" \t\n\r:", s[-1])) || s[kl] != '=')
            continue;
        char *end;
        errno = 0;
        double d = strtod(s + kl + 1, &end);
        if (end == s + kl + 1 || errno == ERANGE || !isfinite(d) || d < 0 ||
            !(*end == '\0' || strchr(" \t\n\r,;", *end)))
            continue;
        *out = d;
        found = 1;
    }
    return found ? 0 : -1;
}
