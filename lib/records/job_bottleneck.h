/* job_bottleneck.h - a job's utilization of its shared port, the leaf
 * uplink: the job's own traffic through the uplink over the uplink's
 * capacity, per direction, in the units the campaigns use
 * (lib/runner/bottleneck.c: bytes over the port's capacity, a fraction).
 *
 * Only node counters are needed: each node's NIC bytes (its own port, never
 * another job's) are split into on-leaf and off-leaf traffic by the job's
 * node split, assuming the node talks to every other node of the job alike
 * (an all-to-all is exact; a nearest-neighbour code is an estimate).  A node
 * on leaf L of a job of n nodes, m of them on L, sends (n - m) / (n - 1) of
 * its bytes off the leaf.  Leaf L's U up is the sum of its nodes' off-leaf
 * send rates over the leaf's uplink capacity (UplinkRate x UplinksPerLeaf,
 * netvar.conf); U down likewise with what they receive.  The job's U is the
 * busiest leaf's, per direction.  Where a node's record also holds its
 * leaf uplink's switch-side counters (blade map uplink=), their U (every
 * job's traffic, the background included) is kept beside it. */
#ifndef NETVAR_JOB_BOTTLENECK_H
#define NETVAR_JOB_BOTTLENECK_H

#include <stddef.h>

#include "counters_topology.h"

#define NV_BN_MAX_LEAVES 256

typedef struct nv_bn_node {
    const char *leaf;                      /* leaf switch name; NULL or "" unknown */
    double up_Bps, down_Bps;               /* the node's own NIC rates, bytes/s (NAN unknown) */
    double uplink_up_Bps, uplink_down_Bps; /* its leaf uplink's counters (NAN none) */
} nv_bn_node;

typedef struct nv_bn_leaf {
    char leaf[NV_TOPO_NAME_MAX];
    int nodes;                         /* the job's nodes on this leaf */
    double off_up_Bps, off_down_Bps;   /* the job's off-leaf traffic, bytes/s */
    double u_up, u_down;               /* over the capacity, fractions */
    double uplink_u_up, uplink_u_down; /* the uplink counters' U (NAN none) */
} nv_bn_leaf;

typedef struct nv_bn_result {
    double capacity_Bps; /* one leaf's uplinks, bytes/s */
    int nodes, nodes_counted, n_leaves;
    nv_bn_leaf leaf[NV_BN_MAX_LEAVES];
    int up_leaf, down_leaf;            /* index of the busiest leaf per direction, -1 none */
    double u_up, u_down;               /* the job's U: its busiest leaf's (0 on one leaf) */
    double uplink_u_up, uplink_u_down; /* the uplink counters' U of those leaves */
} nv_bn_result;

/* Computes r from the job's n nodes.  capacity_Bps: one leaf's uplink
 * capacity (> 0).  0, or -1 with one line in err: no capacity, a node
 * without a leaf, more than NV_BN_MAX_LEAVES leaves, or no node with NIC
 * counters (u_up/u_down NAN then). */
int nv_bottleneck_compute(const nv_bn_node *nodes, size_t n, double capacity_Bps, nv_bn_result *r,
                          char *err, size_t errlen);

#endif
