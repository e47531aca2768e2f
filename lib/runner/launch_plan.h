/* launch_plan.h - how every launch of a workflow (calibrate, impact,
 * campaign) is made: the launcher (srun or mpirun), nodes and tasks, the
 * probe binaries, where the probe load goes (--load-nodes), the work
 * directory for the children's output, and the options that set all this
 * with their checks and --help text.  The command lines themselves are
 * launch_argv.h; the processes child.h. */
#ifndef NETVAR_LAUNCH_PLAN_H
#define NETVAR_LAUNCH_PLAN_H

#include <getopt.h>
#include <stddef.h>

#include "child.h"

typedef enum nv_launcher { NV_LAUNCHER_SRUN = 0, NV_LAUNCHER_MPIRUN = 1 } nv_launcher;

#define NV_RUN_MAX_EXTRA 32       /* --launcher-arg values */
#define NV_RUN_LOAD_NODES_MAX 512 /* --load-nodes host list, characters */

/* How every launch of one workflow is made. */
typedef struct nv_run_plan {
    nv_launcher launcher;
    int nodes;                /* nodes each launch spans (>= 2 for the probes) */
    int app_tasks_per_node;   /* tasks per node of the command under test */
    int probe_tasks_per_node; /* tasks per node of ImpactB and CompressionB */
    int in_allocation;        /* srun inside salloc/sbatch: steps overlap on the
                                  allocation's first `nodes` nodes */
    int fake_nodes;           /* mpirun: NETVAR_PROBE_FAKE_NODES=nodes for the probes */
    const char *extra[NV_RUN_MAX_EXTRA];
    size_t n_extra;
    char impactb[NV_RUN_PATH_MAX];
    char compressionb[NV_RUN_PATH_MAX];
    char work_dir[NV_RUN_PATH_MAX]; /* children's stdout/stderr files */
    double launch_timeout_s;        /* most seconds a probe may take to start or stop */
    int nodes_given, no_fake_given; /* set by the options */
    /* --load-nodes: the probe load (CompressionB, ImpactB beside the
     * command) on these nodes, the command on others, so that the load
     * crosses the links the command uses instead of sharing its own ports.
     * "" = today's placement (everything on the same first nodes). */
    char load_nodes[NV_RUN_LOAD_NODES_MAX];
    int n_load_nodes; /* names in load_nodes, 0 when none */
    /* --runtime-key: the command's runtime is the last KEY=SECONDS it
     * prints on stdout instead of its wall time; NULL = wall time */
    const char *runtime_key;
    /* --launch-attempts: a launch that crashed (ended by a signal, or a
     * launcher's exit status above 128, which reports a rank killed by one)
     * is made again, up to this many times in all; a probe only when it
     * crashed before it started measuring.  On a busy host Open MPI 4.1
     * can crash a rank inside MPI_Init when a peer's first message reaches
     * it before its PML is set up (the lab's environment, lab/lab env, avoids
     * that; see there).  Default 2. */
    int launch_attempts;
    /* where a launch made again is told, one line without "netvar: VERB: "
     * (notice_ctx is VERB); defaults to stderr (nv_run_notice_stderr) */
    void (*notice)(const void *ctx, const char *line);
    const void *notice_ctx;
} nv_run_plan;

/* the default notice: "netvar: VERB: LINE" on stderr (ctx: VERB or NULL) */
void nv_run_notice_stderr(const void *ctx, const char *line);

/* whether a wait status reports a crash: a signal, or a launcher's exit
 * status of 128 + a signal (srun and mpirun report a rank killed so) */
int nv_status_crashed(int status);

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

/* Nodes a launch on that side spans. */
int nv_run_side_nodes(const nv_run_plan *p, nv_run_side side);

/* Expands and checks a --load-nodes host list (h2,h4 or h[2,4]): the
 * count with the names in *names (free with nv_hostlist_free), or -1 with
 * err naming --load-nodes (empty, malformed, a name twice). */
long nv_run_load_nodes_expand(const char *list, char ***names, char *err, size_t errlen);

/* Work directory: creates DIR (if given, kept) or a fresh
 * $TMPDIR/netvar-VERB.XXXXXX (removed by nv_run_work_dir_cleanup). */
int nv_run_work_dir(nv_run_plan *p, const char *keep_dir, const char *verb, char *err,
                    size_t errlen);
void nv_run_work_dir_cleanup(const nv_run_plan *p, int keep);

/* Options every workflow verb takes: the codes its table (cli/args.c)
 * passes to nv_run_plan_option. */
enum {
    NV_OPT_NODES = 1000,
    NV_OPT_LAUNCHER,
    NV_OPT_LAUNCHER_ARG,
    NV_OPT_IMPACTB,
    NV_OPT_COMPRESSIONB,
    NV_OPT_LAUNCH_TIMEOUT,
    NV_OPT_KEEP,
    NV_OPT_NO_FAKE_NODES,
    NV_OPT_PROBE_TPN,
    NV_OPT_LOAD_NODES,
    NV_OPT_RUNTIME_KEY,
    NV_OPT_LAUNCH_ATTEMPTS,
};

/* Applies one of the options above; 1 when c is not one of them, 0 done,
 * -1 bad value (err set).  *keep_dir receives --keep. */
int nv_run_plan_option(nv_run_plan *p, int c, const char *arg, const char **keep_dir, char *err,
                       size_t errlen);

/* Checks the plan after parsing: nodes >= min_nodes, within the
 * allocation, and (need_allocation) an allocation for srun; with
 * --load-nodes, at least min_nodes load nodes, all in the allocation
 * (SLURM_JOB_NODELIST), and the command's nodes (default: the allocation
 * minus the load nodes) on the rest.  0 or -1. */
int nv_run_plan_check(nv_run_plan *p, int min_nodes, int need_allocation, char *err, size_t errlen);

/* Parses a positive duration in seconds (0 < d <= 1e6); one-line error in err. */
int nv_parse_seconds(const char *opt, const char *s, double *out, char *err, size_t errlen);
/* Parses a whole number in [lo, hi]; one-line error in err. */
int nv_parse_count(const char *opt, const char *s, long lo, long hi, long *out, char *err,
                   size_t errlen);

#endif
