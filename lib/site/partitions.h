/* partitions.h - the nodes of each Slurm partition, as job_submit's reload
 * thread learns them from slurmctld (one request, outside job_submit()),
 * so that a decision can check that a job stays runnable: `avoid` must
 * leave at least the job's requested node count in its partitions. */
#ifndef NETVAR_PARTITIONS_H
#define NETVAR_PARTITIONS_H

#include <stdbool.h>
#include <stddef.h>

#define NV_PART_NAME_MAX 64
#define NV_PART_NODES_MAX 200000 /* nodes kept per partition */

struct nv_partition {
    char name[NV_PART_NAME_MAX];
    bool is_default;
    char **nodes; /* sorted, distinct */
    size_t n;
};

struct nv_partitions {
    struct nv_partition *p;
    size_t n;
};

/* Adds a partition whose nodes are the Slurm host list `hostlist`.
 * Returns 0, or -1 with one line in err (the set is unchanged). */
int nv_partitions_add(struct nv_partitions *ps, const char *name, const char *hostlist,
                      bool is_default, char *err, size_t errlen);
void nv_partitions_free(struct nv_partitions *ps);

/* The distinct nodes of the partitions in `list` (comma-separated; NULL or
 * "": the default partition), or -1 when a partition is unknown.  Allocates
 * nothing: O(1) for one partition (job_submit's advice cap). */
long nv_partitions_size(const struct nv_partitions *ps, const char *list);

/* The nodes a job could still run on: those of the partitions in `list`
 * (comma-separated; NULL or "": the default partition), counted once,
 * without the nodes named in excl_names (comma-separated names, as the
 * decision's exclude list) or in excl_hostlist (the job's own --exclude,
 * a Slurm host list).  *total (may be NULL) gets the partitions' node
 * count.  Returns -1 when a partition is unknown (nothing can be said). */
long nv_partitions_nodes_left(const struct nv_partitions *ps, const char *list,
                              const char *excl_names, const char *excl_hostlist, size_t *total);

#endif
