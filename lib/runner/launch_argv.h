/* launch_argv.h - the srun or mpirun command line of one launch of a plan
 * (launch_plan.h): nodes, tasks, --overlap inside an allocation, and with
 * --load-nodes the load on the list (srun --nodelist, mpirun --host) and
 * the command on the rest (srun --exclude). */
#ifndef NETVAR_LAUNCH_ARGV_H
#define NETVAR_LAUNCH_ARGV_H

#include <stddef.h>

#include "launch_plan.h"

/* Launcher argv for cmd[0..ncmd) with tasks_per_node tasks on each of the
 * side's nodes; NULL-terminated, free with nv_argv_free.  NULL when out of
 * memory or ncmd is 0.  nv_run_argv is the APP side. */
char **nv_run_argv(const nv_run_plan *p, int tasks_per_node, const char *const *cmd, size_t ncmd);
char **nv_run_argv_on(const nv_run_plan *p, nv_run_side side, int tasks_per_node,
                      const char *const *cmd, size_t ncmd);
void nv_argv_free(char **argv);

#endif
