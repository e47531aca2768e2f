/* counters_topology.h - which node reads the shared router counters.
 *
 * Several nodes can hang off one router (an Aries blade holds 4 nodes and
 * one router; a leaf switch serves many nodes).  Router counters must be
 * counted once per blade, never once per node, so a map from node to blade,
 * switch and group decides one designated reader per blade.
 *
 * Blade map file (netvar's own format), one node per line:
 *     # comment
 *     n1 blade=b0 switch=s1 group=g0
 *     n[2-4] blade=b0 switch=s1
 * The first word is a node name or Slurm host range; the keys are optional
 * and unknown keys are an error.  A node without blade= is its own blade.
 * Three more keys name counter ports (as the counter reader names them), so
 * a job record can tell the job's own traffic from the fabric's:
 *     nic=P          the node's own NIC port (counted on the node: bytes
 *                    out are what the node sends)
 *     switch_port=P  the switch side of the node's link (bytes out are
 *                    what the node receives)
 *     uplink=P       the leaf end of the node's leaf uplink, switch side
 *                    (bytes out go up, off the leaf; bytes in come down)
 *
 * Slurm topology.conf (switch membership and the group = parent switch):
 *     SwitchName=s1 Nodes=n[1-2]
 *     SwitchName=top Switches=s[1-2]
 * fills switch= (and group= from the parent) for nodes the map lacks. */
#ifndef NETVAR_COUNTERS_TOPOLOGY_H
#define NETVAR_COUNTERS_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NV_TOPO_NAME_MAX 64
#define NV_TOPO_MAX_NODES 65536
#define NV_HOSTLIST_MAX 65536

typedef struct nv_topo_node {
    char node[NV_TOPO_NAME_MAX];
    char blade[NV_TOPO_NAME_MAX];   /* "" = unknown: the node is its own blade */
    char sw[NV_TOPO_NAME_MAX];      /* leaf switch */
    char group[NV_TOPO_NAME_MAX];   /* dragonfly group or parent switch */
    char nic[NV_TOPO_NAME_MAX];     /* "" = not named: the node's NIC port */
    char sw_port[NV_TOPO_NAME_MAX]; /* "" = not named: its link's switch side */
    char uplink[NV_TOPO_NAME_MAX];  /* "" = not named: its leaf uplink's leaf end */
} nv_topo_node;

typedef struct nv_topo {
    nv_topo_node *nodes; /* in the order first seen; never reordered */
    size_t n, cap;
    uint32_t *ix; /* open-addressing index: node i stored as i + 1 */
    size_t ixcap; /* a power of two, at least twice n (0: no index yet) */
} nv_topo;

/* Expands a Slurm host list ("n[1-3,07],gpu1") into names.  Returns the
 * count (names in *out, free with nv_hostlist_free) or -1 with err. */
long nv_hostlist_expand(const char *expr, char ***out, size_t max, char *err, size_t errlen);
void nv_hostlist_free(char **names, size_t n);

void nv_topo_init(nv_topo *t);
void nv_topo_free(nv_topo *t);

/* Parse text in the blade map format; source names the input in errors.
 * Returns 0, or -1 with one line in err naming source:line and the fault
 * (entries before the bad line are kept). */
int nv_topo_parse_map(nv_topo *t, const char *text, const char *source, char *err, size_t errlen);

/* Parse text in Slurm topology.conf format (same error convention). */
int nv_topo_parse_slurm(nv_topo *t, const char *text, const char *source, char *err, size_t errlen);

/* Building a topology switch by switch (topology.conf's parser and
 * topology.yaml's, lib/topoyaml): each switch lists its nodes (a leaf) or
 * its child switches.  A node keeps the first switch that lists it; after
 * the last switch, nv_topo_links_finish sets each node's group to its
 * leaf's parent switch and frees the links. */
typedef struct nv_topo_links {
    struct nv_topo_link {
        char child[NV_TOPO_NAME_MAX];
        char parent[NV_TOPO_NAME_MAX];
    } * links;
    size_t n, cap;
} nv_topo_links;

/* nodes or switches (Slurm host lists; nodes wins when both are given)
 * under swname; where ("file:line") starts the one line in err on -1. */
int nv_topo_add_switch(nv_topo *t, nv_topo_links *l, const char *swname, const char *nodes,
                       const char *switches, const char *where, char *err, size_t errlen);
void nv_topo_links_finish(nv_topo *t, nv_topo_links *l);

#define NV_TOPO_MAX_FILE_BYTES (16u << 20)

/* Reads the admin's file (safe_open.h nv_read_admin_file: a FIFO, device
 * or NUL byte refused without blocking, at most 16 MiB) and parses it as a
 * map or topology.conf; err names the path. */
int nv_topo_load_file(nv_topo *t, const char *path, bool slurm_format, char *err, size_t errlen);

const nv_topo_node *nv_topo_find(const nv_topo *t, const char *node);

/* The blade key of node: its blade, or the node itself when unknown. */
const char *nv_topo_blade_of(const nv_topo *t, const char *node);

/* True when node is the one that reads its blade's counters for a job on
 * job_nodes: the lowest name (strcmp) among the job's nodes on that blade.
 * Every node computes the same answer without talking to the others.  A
 * node missing from job_nodes is never the reader. */
bool nv_topo_is_blade_reader(const nv_topo *t, const char *node, const char *const *job_nodes,
                             size_t njob);

#endif
