/* child.h - child processes of the workflows, bounded: started with
 * fork/exec (never a shell), stdin from /dev/null and stdout/stderr in
 * files of a work directory; waited for with a timeout; stopped by their
 * PID (their stop signal, then SIGTERM, then SIGKILL), always reaped.
 *
 * The stop signal is SIGUSR1 by default: srun and mpirun forward it to
 * the ranks as is and then wait for them (srun turns a SIGTERM into
 * SIGKILL for the tasks; mpirun on SIGTERM exits before forwarding all
 * output). */
#ifndef NETVAR_CHILD_H
#define NETVAR_CHILD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define NV_RUN_PATH_MAX 1024

typedef struct nv_child {
    pid_t pid;       /* 0 when not running */
    int stop_signal; /* SIGUSR1: both launchers forward it as is */
    uint64_t t_start_ns;
    char what[64]; /* "impactb", "the command", ... for messages */
    char out_path[NV_RUN_PATH_MAX + 64], err_path[NV_RUN_PATH_MAX + 64];
} nv_child;

/* Starts argv with stdin from /dev/null and stdout/stderr into
 * WORK_DIR/NAME.out and .err.  fake_nodes > 0 exports
 * NETVAR_PROBE_FAKE_NODES to the child.  0, or -1 with err set. */
int nv_child_start(nv_child *c, const char *work_dir, char **argv, const char *name, int fake_nodes,
                   char *err, size_t errlen);

enum { NV_WAIT_EXITED = 0, NV_WAIT_TIMEOUT = 1, NV_WAIT_INTERRUPTED = 2, NV_WAIT_READY = 3 };

/* Waits up to timeout_s for the child to exit; NV_WAIT_EXITED with its
 * wait status and elapsed wall time (s, from start; elapsed_s may be
 * NULL), NV_WAIT_TIMEOUT (still running), or NV_WAIT_INTERRUPTED when
 * netvar got SIGINT/SIGTERM (nv_run_catch_signals). */
int nv_child_wait(nv_child *c, double timeout_s, int *status, double *elapsed_s);

/* Waits until the child's stderr holds `marker` (NV_WAIT_READY), it exits
 * (NV_WAIT_EXITED, status set), the timeout passes or netvar is interrupted. */
int nv_child_wait_marker(nv_child *c, const char *marker, double timeout_s, int *status);

/* Stops the child: its stop signal, then after grace_s SIGTERM, then after
 * grace_s SIGKILL; always reaps it.  Returns the wait status. */
int nv_child_stop(nv_child *c, double grace_s);

/* "exit 0", "exit 3", "killed by signal 9" */
void nv_status_text(int status, char *buf, size_t n);

/* The last non-empty line of a child's stderr (for one-line errors),
 * preferring one that names an error; "" if none. */
void nv_child_last_line(const nv_child *c, char *buf, size_t n);

/* Installs SIGINT/SIGTERM handlers that make waits return
 * NV_WAIT_INTERRUPTED, so a workflow can stop its children before leaving. */
void nv_run_catch_signals(void);
int nv_run_interrupted(void);

/* Reads a whole file (at most max_bytes) into a NUL-terminated malloc'd
 * buffer of *len bytes; NULL with err set. */
char *nv_read_text_file(const char *path, size_t max_bytes, size_t *len, char *err, size_t errlen);

#endif
