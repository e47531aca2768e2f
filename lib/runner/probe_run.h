/* probe_run.h - what the calibrate, impact and campaign workflows share:
 * launching ImpactB, CompressionB and the command under test with srun or
 * mpirun (fork/exec, never a shell), waiting for them with bounded
 * timeouts, stopping them by PID, and reading the probes' JSON output.
 *
 * Children get stdin from /dev/null and their stdout and stderr in files of
 * a work directory, so a probe's JSON (rank 0's stdout, forwarded by the
 * launcher) is read back from there on any cluster, shared filesystem or
 * not.  A probe is stopped with SIGUSR1, which srun and mpirun forward to
 * the ranks as is, then wait for them (srun turns a SIGTERM into SIGKILL
 * for the tasks; mpirun on SIGTERM exits before forwarding all output). */
#ifndef NETVAR_CLI_PROBE_RUN_H
#define NETVAR_CLI_PROBE_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <getopt.h>
#include <sys/types.h>

#include "calibration.h"
#include "lookup.h"
#include "model.h"
#include "queue.h"

typedef enum nv_launcher { NV_LAUNCHER_SRUN = 0, NV_LAUNCHER_MPIRUN = 1 } nv_launcher;

#define NV_RUN_MAX_EXTRA 32    /* --launcher-arg values */
#define NV_RUN_PATH_MAX 1024
#define NV_RUN_LOAD_NODES_MAX 512 /* --load-nodes host list, characters */

/* How every launch of one workflow is made. */
typedef struct nv_run_plan {
    nv_launcher launcher;
    int nodes;                 /* nodes each launch spans (>= 2 for the probes) */
    int app_tasks_per_node;    /* tasks per node of the command under test */
    int probe_tasks_per_node;  /* tasks per node of ImpactB and CompressionB */
    int in_allocation;         /* srun inside salloc/sbatch: steps overlap on the
                                  allocation's first `nodes` nodes */
    int fake_nodes;            /* mpirun: NETVAR_PROBE_FAKE_NODES=nodes for the probes */
    const char *extra[NV_RUN_MAX_EXTRA];
    size_t n_extra;
    char impactb[NV_RUN_PATH_MAX];
    char compressionb[NV_RUN_PATH_MAX];
    char work_dir[NV_RUN_PATH_MAX]; /* children's stdout/stderr files */
    double launch_timeout_s;   /* most seconds a probe may take to start or stop */
    int nodes_given, no_fake_given; /* set by the options */
    /* --load-nodes: the probe load (CompressionB, ImpactB beside the
     * command) on these nodes, the command on others, so that the load
     * crosses the links the command uses instead of sharing its own ports.
     * "" = today's placement (everything on the same first nodes). */
    char load_nodes[NV_RUN_LOAD_NODES_MAX];
    int n_load_nodes;          /* names in load_nodes, 0 when none */
    /* --runtime-key: the command's runtime is the last KEY=SECONDS it
     * prints on stdout instead of its wall time; NULL = wall time */
    const char *runtime_key;
} nv_run_plan;

/* Which nodes a launch goes to.  Without --load-nodes both are the plan's
 * first `nodes` nodes; with it, LOAD is the list and APP the rest. */
typedef enum nv_run_side { NV_SIDE_APP = 0, NV_SIDE_LOAD = 1 } nv_run_side;

/* "srun" / "mpirun"; from_name returns -1 on an unknown name. */
const char *nv_launcher_name(nv_launcher l);
int nv_launcher_from_name(const char *name, nv_launcher *out);

/* Fills the plan's defaults: launcher srun, nodes from SLURM_JOB_NUM_NODES
 * (or 2), one task per node, probes next to the running netvar binary,
 * launch timeout 60 s.  Never fails (missing probes show up at launch). */
void nv_run_plan_defaults(nv_run_plan *p);

/* The node count of the surrounding Slurm allocation, or 0 when there is
 * none (SLURM_JOB_ID unset) or it cannot be read. */
int nv_run_allocation_nodes(void);

/* Launcher argv for cmd[0..ncmd) with tasks_per_node tasks on each of the
 * plan's nodes; NULL-terminated, free with nv_argv_free.  NULL when out of
 * memory or ncmd is 0.  nv_run_argv is the APP side. */
char **nv_run_argv(const nv_run_plan *p, int tasks_per_node, const char *const *cmd, size_t ncmd);
char **nv_run_argv_on(const nv_run_plan *p, nv_run_side side, int tasks_per_node,
                      const char *const *cmd, size_t ncmd);
/* Nodes a launch on that side spans. */
int nv_run_side_nodes(const nv_run_plan *p, nv_run_side side);
void nv_argv_free(char **argv);

/* Work directory: creates DIR (if given, kept) or a fresh
 * $TMPDIR/netvar-VERB.XXXXXX (removed by nv_run_work_dir_cleanup). */
int nv_run_work_dir(nv_run_plan *p, const char *keep_dir, const char *verb, char *err,
                    size_t errlen);
void nv_run_work_dir_cleanup(const nv_run_plan *p, int keep);

/* Options every workflow verb takes (getopt_long codes and entries). */
enum {
    NV_OPT_NODES = 1000, NV_OPT_LAUNCHER, NV_OPT_LAUNCHER_ARG, NV_OPT_IMPACTB,
    NV_OPT_COMPRESSIONB, NV_OPT_LAUNCH_TIMEOUT, NV_OPT_KEEP, NV_OPT_NO_FAKE_NODES,
    NV_OPT_PROBE_TPN, NV_OPT_LOAD_NODES, NV_OPT_RUNTIME_KEY,
};
#define NV_RUN_LONG_OPTIONS                                                       \
    {"nodes", required_argument, NULL, NV_OPT_NODES},                             \
    {"launcher", required_argument, NULL, NV_OPT_LAUNCHER},                       \
    {"launcher-arg", required_argument, NULL, NV_OPT_LAUNCHER_ARG},               \
    {"impactb", required_argument, NULL, NV_OPT_IMPACTB},                         \
    {"compressionb", required_argument, NULL, NV_OPT_COMPRESSIONB},               \
    {"launch-timeout-s", required_argument, NULL, NV_OPT_LAUNCH_TIMEOUT},         \
    {"keep", required_argument, NULL, NV_OPT_KEEP},                               \
    {"no-fake-nodes", no_argument, NULL, NV_OPT_NO_FAKE_NODES},                   \
    {"probe-tasks-per-node", required_argument, NULL, NV_OPT_PROBE_TPN}

/* The --help text of those options (same for every verb). */
extern const char nv_run_options_help[];

/* Placement options of the verbs that run a command beside probes
 * (impact, campaign), with their --help text. */
#define NV_RUN_PLACEMENT_OPTIONS                                                  \
    {"load-nodes", required_argument, NULL, NV_OPT_LOAD_NODES},                   \
    {"runtime-key", required_argument, NULL, NV_OPT_RUNTIME_KEY}
extern const char nv_run_placement_help[];

/* The last "KEY=SECONDS" in text (KEY at the start of a word), a finite
 * number >= 0.  0, or -1 when there is none. */
int nv_output_seconds(const char *text, const char *key, double *out);

/* Applies one of the options above; 1 when c is not one of them, 0 done,
 * -1 bad value (err set).  *keep_dir receives --keep. */
int nv_run_plan_option(nv_run_plan *p, int c, const char *arg, const char **keep_dir, char *err,
                       size_t errlen);

/* Checks the plan after parsing: nodes >= min_nodes, within the
 * allocation, and (need_allocation) an allocation for srun; with
 * --load-nodes, at least min_nodes load nodes, all in the allocation
 * (SLURM_JOB_NODELIST), and the command's nodes (default: the allocation
 * minus the load nodes) on the rest.  0 or -1. */
int nv_run_plan_check(nv_run_plan *p, int min_nodes, int need_allocation, char *err,
                      size_t errlen);

/* ------------------------------------------------------------ children */

typedef struct nv_child {
    pid_t pid;                 /* 0 when not running */
    int stop_signal;           /* SIGUSR1: both launchers forward it as is */
    uint64_t t_start_ns;
    char what[64];             /* "impactb", "the command", ... for messages */
    char out_path[NV_RUN_PATH_MAX + 64], err_path[NV_RUN_PATH_MAX + 64];
} nv_child;

/* Starts argv with stdin from /dev/null and stdout/stderr into
 * WORKDIR/NAME.out and .err.  fake_nodes > 0 exports
 * NETVAR_PROBE_FAKE_NODES to the child.  0, or -1 with err set. */
int nv_child_start(nv_child *c, const nv_run_plan *p, char **argv, const char *name,
                   int fake_nodes, char *err, size_t errlen);

enum { NV_WAIT_EXITED = 0, NV_WAIT_TIMEOUT = 1, NV_WAIT_INTERRUPTED = 2, NV_WAIT_READY = 3 };

/* Waits up to timeout_s for the child to exit; NV_WAIT_EXITED with its
 * wait status and elapsed wall time (s, from start), NV_WAIT_TIMEOUT (still
 * running), or NV_WAIT_INTERRUPTED when netvar got SIGINT/SIGTERM. */
int nv_child_wait(nv_child *c, double timeout_s, int *status, double *elapsed_s);

/* Waits until the child's stderr holds `marker` (NV_WAIT_READY), it exits
 * (NV_WAIT_EXITED, status set), the timeout passes or netvar is interrupted. */
int nv_child_wait_marker(nv_child *c, const char *marker, double timeout_s, int *status);

/* Stops the child: its stop signal, then after grace_s SIGTERM, then after
 * grace_s SIGKILL; always reaps it.  Returns the wait status. */
int nv_child_stop(nv_child *c, double grace_s);

/* "exit 0", "exit 3", "killed by signal 9" */
void nv_status_text(int status, char *buf, size_t n);

/* The last non-empty line of a child's stderr (for one-line errors), "" if none. */
void nv_child_last_line(const nv_child *c, char *buf, size_t n);

/* Installs SIGINT/SIGTERM handlers that make waits return
 * NV_WAIT_INTERRUPTED, so a verb can stop its children before leaving. */
void nv_run_catch_signals(void);
int nv_run_interrupted(void);

/* ---------------------------------------------------- probe JSON output */

#define NV_RUN_MAX_NODE_NAMES 64

typedef struct nv_impactb_result {
    double *samples_us;        /* one-way latencies, us (malloc'd) */
    size_t n_samples;
    int nodes;                 /* placement.nodes */
    char node_names[NV_RUN_MAX_NODE_NAMES][64];
    int n_node_names;
    double elapsed_s;
    char stopped_by[16];
} nv_impactb_result;

typedef struct nv_compressionb_result {
    double mean_bytes_per_s;   /* injected per node, bytes/s */
    double min_bytes_per_s, max_bytes_per_s;
    int nodes;
    int64_t rounds_per_rank;
    double elapsed_s;
} nv_compressionb_result;

#define NV_RUN_MAX_PROBE_OUTPUT (512u * 1024u * 1024u) /* bytes */

/* Starts a probe (path `probe`, args plus --announce) with the plan's
 * launcher and probe tasks per node, and waits until it announces that it
 * measures.  0, or -1 with err set (the child is stopped then). */
int nv_probe_start(nv_child *c, const nv_run_plan *p, const char *probe, const char *name,
                   const char *const *args, size_t nargs, char *err, size_t errlen);
/* The same on a chosen side (nv_probe_start is the LOAD side): ImpactB
 * measuring a CompressionB load runs on the APP side, across from it. */
int nv_probe_start_on(nv_child *c, const nv_run_plan *p, nv_run_side side, const char *probe,
                      const char *name, const char *const *args, size_t nargs, char *err,
                      size_t errlen);

/* Ends a probe run: stop_now stops it (the stop signal makes it write its
 * JSON), otherwise waits up to timeout_s for it to end on its own.  Returns
 * its stdout (malloc'd, *len bytes) when it exited 0, else NULL with err. */
char *nv_probe_finish(nv_child *c, const nv_run_plan *p, int stop_now, double timeout_s,
                      size_t *len, char *err, size_t errlen);

/* Runs the command under test to its end (the plan's launcher, app tasks
 * per node, APP side; output in WORKDIR/NAME.out/.err), at most timeout_s.
 * 0 with its wall time in seconds (launch included), or with the plan's
 * runtime_key the seconds it printed; -1 with err: non-zero exit, timeout,
 * interrupt (the command is stopped then) or no KEY=SECONDS printed. */
int nv_run_command(const nv_run_plan *p, const char *const *cmd, size_t ncmd, const char *name,
                   double timeout_s, double *wall_s, char *err, size_t errlen);

/* Parse a probe's output: the first JSON object in text (launcher chatter
 * before it is skipped).  0, or -1 with one line in err naming the field. */
int nv_impactb_parse(const char *text, size_t len, nv_impactb_result *out, char *err,
                     size_t errlen);
void nv_impactb_result_free(nv_impactb_result *r);
int nv_compressionb_parse(const char *text, size_t len, nv_compressionb_result *out, char *err,
                          size_t errlen);

/* Reads a whole file (at most max_bytes) into a NUL-terminated buffer. */
char *nv_read_text_file(const char *path, size_t max_bytes, size_t *len, char *err,
                        size_t errlen);

/* -------------------------------------------------------- model helpers */

/* Loads path when it exists (NULL in *out when it does not); -1 with err
 * when it exists but cannot be loaded. */
int nv_run_load_model_if_any(const char *path, nv_model **out, char *err, size_t errlen);

/* Latency summary of the samples and the utilization it means under the
 * model's calibration.  0, or -1 when there are no usable samples. */
int nv_run_app_utilization(const nv_calibration *cal, const double *samples_us, size_t n,
                           nv_latency_summary *lat, nv_utilization *u);

/* Parses a positive duration in seconds (0 < d <= 1e6); one-line error in err. */
int nv_parse_seconds(const char *opt, const char *s, double *out, char *err, size_t errlen);
/* Parses a whole number in [lo, hi]; one-line error in err. */
int nv_parse_count(const char *opt, const char *s, long lo, long hi, long *out, char *err,
                   size_t errlen);

#endif
