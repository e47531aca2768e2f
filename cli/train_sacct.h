/* train_sacct.h - the accounting side of `netvar train` (train_sacct.c). */
#ifndef NETVAR_CLI_TRAIN_SACCT_H
#define NETVAR_CLI_TRAIN_SACCT_H

#include "sacct_history.h"

/* Adds the jobs sacct knows since `since` (sacct -S), or those of the saved
 * sacct output `file` ("-": stdin), to s.  topology: Slurm topology.conf
 * for the jobs' leaf switches, or NULL.  0, or -1 after one line on stderr. */
int nv_cli_train_sacct(const char *since, const char *file, const char *topology,
                       const nv_train_opts *o, nv_train_set *s, nv_sacct_stats *st);

#endif
