/* train_sacct.c - `netvar train --from-sacct SINCE | --sacct-file FILE`:
 * runs sacct (no shell) or reads its saved output, and feeds the jobs into
 * the training set through lib/upkeep/sacct_history.h. */
#include "train_sacct.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "topology_yaml.h"

static void log_line(void *ctx, const char *line)
{
    (void)ctx;
    fprintf(stderr, "%s\n", line);
}

static int read_stream(FILE *f, const nv_topo *topo, const nv_train_opts *o, nv_train_set *s,
                       nv_sacct_stats *st)
{
    char err[512];
    if (nv_sacct_read(f, topo, o, s, st, log_line, NULL, err, sizeof err)) {
        fprintf(stderr, "netvar: train: sacct: %s\n", err);
        return -1;
    }
    return 0;
}

int nv_cli_train_sacct(const char *since, const char *file, const char *topology,
                       const nv_train_opts *o, nv_train_set *s, nv_sacct_stats *st)
{
    nv_topo topo;
    char err[512];
    nv_topo_init(&topo);
    if (topology && nv_topo_load_named(&topo, topology, true, err, sizeof err)) {
        fprintf(stderr, "netvar: train: --topology %s: %s\n", topology, err);
        nv_topo_free(&topo);
        return -1;
    }
    int rc = -1;
    if (file) {
        FILE *f = strcmp(file, "-") ? fopen(file, "re") : stdin;
        if (!f)
            fprintf(stderr, "netvar: train: --sacct-file %s: %s\n", file, strerror(errno));
        else {
            rc = read_stream(f, &topo, o, s, st);
            if (f != stdin)
                fclose(f);
        }
        nv_topo_free(&topo);
        return rc;
    }
    int fd[2];
    if (pipe(fd)) {
        fprintf(stderr, "netvar: train: sacct: %s\n", strerror(errno));
        nv_topo_free(&topo);
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], STDOUT_FILENO);
        close(fd[0]);
        close(fd[1]);
        setenv("SLURM_TIME_FORMAT", "%s", 1);
        char *argv[] = {"sacct", "-a",
                        "-X",    "-n",
                        "-P",    "--delimiter=" NV_SACCT_DELIM,
                        "-o",    NV_SACCT_FIELDS,
                        "-S",    (char *)since,
                        "-E",    "now",
                        NULL};
        execvp("sacct", argv);
        fprintf(stderr, "netvar: train: cannot run sacct: %s\n", strerror(errno));
        _exit(127);
    }
    close(fd[1]);
    FILE *f = pid > 0 ? fdopen(fd[0], "r") : NULL;
    if (!f) {
        fprintf(stderr, "netvar: train: sacct: %s\n", strerror(errno));
        close(fd[0]);
    } else {
        rc = read_stream(f, &topo, o, s, st);
        fclose(f);
    }
    int status = 0;
    if (pid > 0) {
        if (rc)
            kill(pid, SIGTERM);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        if (rc == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
            fprintf(stderr,
                    "netvar: train: sacct -S %s failed (exit status %d); no history from "
                    "accounting\n",
                    since, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
            rc = -1;
        }
    }
    nv_topo_free(&topo);
    return rc;
}
