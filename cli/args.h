/* args.h - what the verbs share: the JOBID argument, the site config that
 * gives the spool and model paths, and printing a JSON result. */
#ifndef NETVAR_CLI_ARGS_H
#define NETVAR_CLI_ARGS_H

#include <json-c/json.h>

#include "config.h"
#include "launch_plan.h"
#include "opts.h"

/* Takes the one JOBID left at argv[optind]. On a missing, extra or
 * non-numeric argument prints one line prefixed with `who` and returns 0. */
unsigned long nv_cli_jobid(const char *who, int argc, char **argv, int optind);

/* netvar.conf at path (defaults only when path is NULL); problems are
 * printed one line each. The result is static: one per process. */
const struct nv_config *nv_cli_config(const char *path);

/* Prints o on stdout, pretty-printed (slashes unescaped), and a newline;
 * the `--json` output of every verb. */
void nv_cli_print_json(json_object *o);

/* The launch options the workflow verbs (calibrate, impact, campaign)
 * share, one table (opts.h) whose values go into plan and *keep_dir (the
 * --keep directory); the placement options of impact and campaign, the
 * second.  The struct must outlive the parse. */
typedef struct nv_cli_launch {
    nv_run_plan *plan;
    const char **keep_dir;
} nv_cli_launch;
nv_opt_group nv_cli_launch_options(nv_cli_launch *l);
nv_opt_group nv_cli_placement_options(nv_cli_launch *l);

/* --spool and --config of the verbs that read the site's spool */
#define NV_CLI_OPT_SPOOL(to)                                                                       \
    {                                                                                              \
        "spool", "DIR", NV_CLI_STR, to,                                                            \
            .help = "spool directory (default: SpoolDir of netvar.conf)"                           \
    }
#define NV_CLI_OPT_CONFIG(to)                                                                      \
    {                                                                                              \
        "config", "FILE", NV_CLI_STR, to,                                                          \
            .help = "netvar.conf (default: $NETVAR_CONF or /etc/netvar/netvar.conf)"               \
    }

/* --predictor NAME (predict, report): a predictor of predict.h into *to */
int nv_cli_set_predictor(const nv_opt *o, void *to, const char *arg, char *err, size_t errlen);
#define NV_CLI_OPT_PREDICTOR(to)                                                                   \
    {                                                                                              \
        "predictor", "NAME", NV_CLI_CALL, to,                                                      \
            .call = nv_cli_set_predictor,                                                          \
            .help = "queue (default), averagelt, averagestdevlt or pdflt"                          \
    }

/* Parses a workflow verb's options (who "netvar VERB"): its own, then with
 * placement the placement options, then the launch options; a COMMAND may
 * follow them.  Returns what nv_opts_parse returns. */
int nv_cli_workflow_parse(const char *who, const char *head, const char *tail, const nv_opt *opt,
                          size_t n, nv_cli_launch *l, int placement, int argc, char **argv);

/* Options impact and campaign share: the model file and the app key. */
#define NV_CLI_OPT_MODEL_APP(model, app)                                                           \
    {"model", "FILE", NV_CLI_STR, model,                                                           \
     .help = "model file with a calibration (required; updated in place)"},                        \
    {                                                                                              \
        "app", "KEY", NV_CLI_STR, app,                                                             \
            .help = "app key, 1-" NV_STR(                                                          \
                NV_MODEL_KEY_MAX) " of A-Z a-z 0-9 . _ + : / @ = - (required)"                     \
    }

/* ImpactB's pause (calibrate, impact, campaign); help: the words after the unit */
#define NV_CLI_OPT_INTERVAL_US(to, more)                                                           \
    {                                                                                              \
        "interval-us", "US", NV_CLI_LONG, to, 0, 60000000,                                         \
            .help = "pause between ImpactB ping-pongs, in microseconds (0..60000000, default "     \
                    "20000" more ")"                                                               \
    }

/* tasks per node of the command (impact, campaign) */
#define NV_CLI_OPT_TASKS_PER_NODE(to)                                                              \
    {                                                                                              \
        "tasks-per-node", "T", NV_CLI_INT, to, 1, 1024,                                            \
            .help = "tasks per node of COMMAND (1..1024, default 1)"                               \
    }

/* s escaped for the terminal (safe_open.h nv_printable: control bytes,
 * ESC included, as \xNN), cut to 1023 bytes, in one of 8 static buffers
 * used in turn: up to 8 in one printf.  Every name a user or a file chose
 * (app, node, switch, Comment fields) goes through it before a verb's text
 * output prints it; JSON output is json-c's escaping. */
const char *nv_cli_shown(const char *s);

#endif
