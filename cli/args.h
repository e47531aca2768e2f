/* cli_job_args.h - what the per-job verbs (collect, diagnose) share: the
 * JOBID argument and the site config that gives the spool and model paths. */
#ifndef NETVAR_CLI_JOB_ARGS_H
#define NETVAR_CLI_JOB_ARGS_H

#include "config.h"

/* Takes the one JOBID left at argv[optind]. On a missing, extra or
 * non-numeric argument prints one line prefixed with `who` and returns 0. */
unsigned long nv_cli_jobid(const char *who, int argc, char **argv, int optind);

/* netvar.conf at path (defaults only when path is NULL); problems are
 * printed one line each. The result is static: one per process. */
const struct nv_config *nv_cli_config(const char *path);

#endif
