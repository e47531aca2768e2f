/* topology_yaml.h - Slurm's topology.yaml (25.05+), read with libyaml, and
 * the choice between it and topology.conf made the way Slurm makes it.
 *
 * The file is a list of topologies; each names itself (topology:), may be
 * the cluster's default (cluster_default: true) and is one of
 *     tree:  {switches: [{switch: s1, nodes: "n[1-2]"},
 *                        {switch: top, children: "s[1-2]"}]}
 *     block: {block_sizes: [4, 16], blocks: [{block: b1, nodes: "n[1-4]"}]}
 *     flat:  true
 * nodes and children are Slurm host lists.  The topology read is the first
 * with cluster_default: true, else the first listed (Slurm's default).
 *
 * What netvar takes from it (fields of nv_topo_node, counters_topology.h):
 *   tree:  sw = the leaf switch listing the node, group = that leaf's parent
 *          switch: the same as the same tree in topology.conf gives;
 *   block: sw = the node's block, group empty: a block is taken as one leaf
 *          (nodes in one block share its links and no uplink; a placement
 *          across blocks uses each block's uplink); block_sizes are checked
 *          but aggregate blocks are no second tier here;
 *   flat:  no node is placed: every placement is taken to share.
 *
 * Bounds: the file at most NV_TOPO_MAX_FILE_BYTES, opened without
 * following a symbolic link and owned by root or the reader's own uid;
 * nesting at most NV_TOPO_YAML_MAX_DEPTH; at most NV_TOPO_YAML_MAX_ITEMS
 * YAML nodes; a scalar at most NV_TOPO_YAML_MAX_SCALAR bytes; aliases
 * refused; nodes, switches and host-list expansion as topology.conf. */
#ifndef NETVAR_TOPOLOGY_YAML_H
#define NETVAR_TOPOLOGY_YAML_H

#include <stdbool.h>
#include <stddef.h>

#include "counters_topology.h"

#define NV_TOPO_YAML_MAX_DEPTH 16
#define NV_TOPO_YAML_MAX_ITEMS (1u << 20)
#define NV_TOPO_YAML_MAX_SCALAR 65536

/* Parses len bytes of topology.yaml; source names the input in errors.
 * Returns 0, or -1 with one line in err naming source (and line when
 * known) and the fault; on -1 t may hold part of the file: callers that
 * fall back free it. */
int nv_topo_parse_yaml(nv_topo *t, const char *text, size_t len, const char *source, char *err,
                       size_t errlen);

/* Reads path (the bounds above) and parses it; err names the path. */
int nv_topo_load_yaml(nv_topo *t, const char *path, char *err, size_t errlen);

enum nv_topo_kind { NV_TOPO_NONE, NV_TOPO_CONF, NV_TOPO_YAML };

/* The first Slurm that reads topology.yaml: SLURM_VERSION_NUM(25, 5, 0);
 * plugins pass SLURM_VERSION_NUMBER >= this as reads_yaml */
#define NV_TOPO_YAML_SINCE_SLURM 0x190500

/* The file Slurm reads for its topology, beside slurm_conf (an absolute
 * path; NULL or relative: /etc/slurm/slurm.conf, Debian's).  Slurm 25.05
 * and later (reads_yaml) read topology.yaml when it exists (stat) and then
 * ignore topology.conf; else, and before 25.05, topology.conf.  path gets
 * the chosen file (or topology.conf's path for NV_TOPO_NONE: neither is
 * there). */
enum nv_topo_kind nv_topo_slurm_file(const char *slurm_conf, bool reads_yaml, char *path,
                                     size_t pathlen);

/* Loads path as kind says (NV_TOPO_CONF: nv_topo_load_file's topology.conf
 * reader; NV_TOPO_YAML: nv_topo_load_yaml).  NV_TOPO_NONE loads nothing
 * and returns 0. */
int nv_topo_load_slurm(nv_topo *t, const char *path, enum nv_topo_kind kind, char *err,
                       size_t errlen);

/* A file name ending .yaml or .yml (an admin-named --topology FILE) */
bool nv_topo_is_yaml_name(const char *path);

/* An admin-named --topology FILE: topology.yaml when its name says so
 * (nv_topo_is_yaml_name), else topology.conf; or, with slurm_format
 * false, netvar's blade map. */
int nv_topo_load_named(nv_topo *t, const char *path, bool slurm_format, char *err, size_t errlen);

#endif
