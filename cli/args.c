/* args.c - what the verbs share (args.h). */
#include "args.h"
#include "nv_err.h"
#include "predict.h"
#include "safe_open.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned long nv_cli_jobid(const char *who, int argc, char **argv, int optind)
{
    if (optind != argc - 1) {
        fprintf(stderr, "%s: give exactly one JOBID (see --help)\n", who);
        return 0;
    }
    char *end;
    unsigned long jobid = strtoul(argv[optind], &end, 10);
    if (!*argv[optind] || *end || jobid == 0 || jobid > 0xfffffff0UL) {
        fprintf(stderr, "%s: JOBID '%s' is not a job number\n", who, argv[optind]);
        return 0;
    }
    return jobid;
}

static void config_error(void *arg, const char *line)
{
    (void)arg;
    fprintf(stderr, "netvar: %s\n", line);
}

const struct nv_config *nv_cli_config(const char *path)
{
    static struct nv_config conf; /* large (rules): not on the stack */
    nv_config_defaults(&conf);
    if (path)
        nv_config_load(path, &conf, config_error, NULL);
    return &conf;
}

void nv_cli_print_json(json_object *o)
{
    printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
                                                         JSON_C_TO_STRING_NOSLASHESCAPE));
}

const char *nv_cli_shown(const char *s)
{
    static char ring[8][1024];
    static unsigned next;
    char *buf = ring[next++ % 8];
    return nv_printable(s, buf, sizeof ring[0]);
}

/* one launch option into the plan (lib/runner/launch_plan.h checks it) */
static int launch_option(const nv_opt *o, void *to, const char *arg, char *err, size_t errlen)
{
    nv_cli_launch *l = to;
    return nv_run_plan_option(l->plan, o->ival, arg, l->keep_dir, err, errlen) ? -1 : 0;
}

#define LAUNCH(name, arg, code, text)                                                              \
    {                                                                                              \
        name, arg, NV_CLI_CALL, NULL, .help = text, .ival = code, .call = launch_option            \
    }

static const nv_opt launch_opts[] = {
    LAUNCH("nodes", "N", NV_OPT_NODES,
           "nodes each launch spans (default: the allocation's node count inside "
           "salloc/sbatch, else 2); ImpactB needs >= 2"),
    LAUNCH("launcher", "NAME", NV_OPT_LAUNCHER, "srun (default) or mpirun (local runs, no Slurm)"),
    LAUNCH("launcher-arg", "ARG", NV_OPT_LAUNCHER_ARG,
           "one extra argument for every srun/mpirun call, e.g. --launcher-arg=--partition=debug "
           "(repeatable, up to " NV_STR(NV_RUN_MAX_EXTRA) "); srun gets --mpi=pmix unless an --mpi "
                                                          "argument is given"),
    LAUNCH("probe-tasks-per-node", "T", NV_OPT_PROBE_TPN,
           "ImpactB and CompressionB tasks per node (1..256, default 1; the paper used 2, one "
           "per socket)"),
    LAUNCH("impactb", "PATH", NV_OPT_IMPACTB, "ImpactB binary (default: impactb next to netvar)"),
    LAUNCH("compressionb", "PATH", NV_OPT_COMPRESSIONB,
           "CompressionB binary (default: compressionb next to netvar)"),
    LAUNCH("launch-timeout-s", "S", NV_OPT_LAUNCH_TIMEOUT,
           "longest a launch may take to start, or to stop after its stop signal, in seconds "
           "(default 60)"),
    LAUNCH("launch-attempts", "N", NV_OPT_LAUNCH_ATTEMPTS,
           "a launch that crashed (a rank ended by a signal) is made again, up to N times in all "
           "(1..10, default 2); a probe only when it crashed before it measured.  Each retry is "
           "one line on stderr.  On a busy host Open MPI 4.1's TCP transport can crash a rank "
           "while two ranks connect to each other; a command that fails by itself (exit 1..128) "
           "or times out is not made again"),
    LAUNCH("no-fake-nodes", NULL, NV_OPT_NO_FAKE_NODES,
           "mpirun: use the real placement; by default the probes split their ranks into N "
           "pseudo-nodes (NETVAR_PROBE_FAKE_NODES), for runs on one host"),
    LAUNCH("keep", "DIR", NV_OPT_KEEP,
           "keep every launch's stdout/stderr (NAME.out, NAME.err) in DIR; by default a "
           "temporary directory is removed"),
};

static const nv_opt placement_opts[] = {
    LAUNCH("load-nodes", "LIST", NV_OPT_LOAD_NODES,
           "run the probe load on LIST, a Slurm host list (h2,h4 or h[2,4]; at least 2 nodes), "
           "and the command on other nodes, so the load crosses the links the command uses "
           "instead of sharing its own ports (Queue-theory interference model, section 4.3: "
           "CompressionB on other nodes of the same switch).  On LIST run CompressionB and the "
           "ImpactB beside the command; the ImpactB that measures a CompressionB configuration "
           "runs on the command's nodes (idle then), across from it.  srun: every node of LIST "
           "must be in the allocation; the load gets --nodelist=LIST, the command "
           "--exclude=LIST and --nodes N (default: the allocation's node count minus LIST's).  "
           "mpirun: the load gets --host NODE:T,...; the command keeps mpirun's placement.  "
           "Default: everything on the same first N nodes"),
    LAUNCH("runtime-key", "KEY", NV_OPT_RUNTIME_KEY,
           "the command's runtime is the last KEY=SECONDS it prints on stdout (1-64 of A-Z a-z "
           "0-9 _ . -; e.g. runtime_s for netvar's proxy apps) instead of its wall time with the "
           "launch; a run that prints none fails"),
};

nv_opt_group nv_cli_launch_options(nv_cli_launch *l)
{
    return (nv_opt_group){
        "Launch options (shared by calibrate, impact and campaign):", "launch options", launch_opts,
        sizeof launch_opts / sizeof launch_opts[0], l};
}

nv_opt_group nv_cli_placement_options(nv_cli_launch *l)
{
    return (nv_opt_group){"Placement options (impact, campaign):", "placement options",
                          placement_opts, sizeof placement_opts / sizeof placement_opts[0], l};
}

int nv_cli_workflow_parse(const char *who, const char *head, const char *tail, const nv_opt *opt,
                          size_t n, nv_cli_launch *l, int placement, int argc, char **argv)
{
    const char *verb = strchr(who, ' ') ? strchr(who, ' ') + 1 : who;
    nv_opt_spec spec = {who, "; nothing run", head, tail, 1, {{"Options:", verb, opt, n, NULL}}};
    int g = 1;
    if (placement)
        spec.group[g++] = nv_cli_placement_options(l);
    spec.group[g] = nv_cli_launch_options(l);
    return nv_opts_parse(&spec, argc, argv);
}

int nv_cli_set_predictor(const nv_opt *o, void *to, const char *arg, char *err, size_t errlen)
{
    (void)o;
    if (nv_predictor_from_name(arg, to))
        return nv_err(err, errlen,
                      "--predictor '%.40s' is not one of queue, averagelt, "
                      "averagestdevlt, pdflt",
                      arg);
    return 0;
}
