/* args.h - what the verbs share: the JOBID argument, the site config that
 * gives the spool and model paths, and printing a JSON result. */
#ifndef NETVAR_CLI_ARGS_H
#define NETVAR_CLI_ARGS_H

#include <json-c/json.h>

#include "config.h"
#include "launch_plan.h"

/* Takes the one JOBID left at argv[optind]. On a missing, extra or
 * non-numeric argument prints one line prefixed with `who` and returns 0. */
unsigned long nv_cli_jobid(const char *who, int argc, char **argv, int optind);

/* netvar.conf at path (defaults only when path is NULL); problems are
 * printed one line each. The result is static: one per process. */
const struct nv_config *nv_cli_config(const char *path);

/* Prints o on stdout, pretty-printed (slashes unescaped), and a newline;
 * the `--json` output of every verb. */
void nv_cli_print_json(json_object *o);

/* s escaped for the terminal (safe_open.h nv_printable: control bytes,
 * ESC included, as \xNN), cut to 1023 bytes, in one of 8 static buffers
 * used in turn: up to 8 in one printf.  Every name a user or a file chose
 * (app, node, switch, Comment fields) goes through it before a verb's text
 * output prints it; JSON output is json-c's escaping. */
const char *nv_cli_shown(const char *s);

/* The launch-plan options the workflow verbs (calibrate, impact, campaign)
 * share: getopt's c and optarg into plan.  0 taken, -1 with one line in err
 * (a bad value, or an option no verb knows, named as the user typed it). */
int nv_cli_plan_option(nv_run_plan *plan, int c, const char *optarg, const char **keep_dir,
                       const char *typed, char *err, size_t errlen);

#endif
