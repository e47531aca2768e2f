/* placement.h - where a newcomer's named nodes lie: the leaf switch of
 * every node, as job_submit's reload thread learns it from Slurm's
 * topology.conf, and the leaf switches of a job that names its nodes
 * (--nodelist), so that the submission decision can follow the paths for
 * the newcomer as it does for the running jobs (predict.h, NV_PATH_SOURCE_*).
 * Pure: no Slurm, no I/O. */
#ifndef NETVAR_PLACEMENT_H
#define NETVAR_PLACEMENT_H

#include <stddef.h>
#include <stdint.h>

#include "counters_topology.h"
#include "leaf_set.h"

/* names a --nodelist may expand to for netvar to read it; a longer list is
 * left unread (placement unknown, and avoid excludes no node) */
#define NV_NAMED_NODES_MAX 8192

struct nv_leaf_map {
    char **node;    /* sorted, distinct */
    uint32_t *leaf; /* per node: index into leaf_name */
    size_t n;
    char **leaf_name; /* distinct leaf switch names */
    size_t nleaves;
    uint32_t *size_desc; /* nodes under each leaf switch, largest first (nleaves) */
};

/* The map of the nodes of t that have a leaf switch.  Returns 0, or -1
 * with one line in err (out of memory); *lm is then empty. */
int nv_leaf_map_build(struct nv_leaf_map *lm, const nv_topo *t, char *err, size_t errlen);
void nv_leaf_map_free(struct nv_leaf_map *lm);

/* The leaf switch of node, or NULL when the map does not have it. */
const char *nv_leaf_map_find(const struct nv_leaf_map *lm, const char *node);

/* A job's --nodelist, expanded once per submission for both its readers
 * (the placement below, and avoid, which must not exclude a node the job
 * names): sorted, each name once. */
enum nv_named_state { NV_NAMED_NONE, NV_NAMED_READ, NV_NAMED_EMPTY, NV_NAMED_UNREADABLE };
struct nv_named_nodes {
    enum nv_named_state state; /* NONE: no --nodelist given */
    char **name;               /* sorted, distinct (READ) */
    size_t n;
};

/* Expands req_nodes (a Slurm host list, NULL or "" for none) into *nn, at
 * most NV_NAMED_NODES_MAX names; nv_named_nodes_free releases it. */
void nv_named_nodes_read(struct nv_named_nodes *nn, const char *req_nodes);
void nv_named_nodes_free(struct nv_named_nodes *nn);

/* Whether node is among the names read. */
int nv_named_nodes_has(const struct nv_named_nodes *nn, const char *node);

struct nv_placement {
    uint32_t leaves; /* distinct leaf switches; 0: placement unknown */
    uint32_t nodes;  /* nodes named */
    nv_leaf_set set; /* the leaf switches (when leaves > 0) */
    const char *why; /* when unknown: why, for the log ("" when no node list) */
};

/* The placement of a job that names the nodes nn holds and asks for
 * min_nodes..max_nodes (0: not given).  Known only when every node named
 * is in the map and the job cannot be given more nodes than it names (min
 * and max at most their count; sbatch -w alone sets min to it).  A job
 * whose tasks need more nodes than it names may still get more: Slurm adds
 * them, which netvar cannot see at submission. */
void nv_placement_of(const struct nv_leaf_map *lm, const struct nv_named_nodes *nn,
                     uint32_t min_nodes, uint32_t max_nodes, struct nv_placement *p);

#endif
