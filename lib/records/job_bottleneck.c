/* job_bottleneck.c - a job's U at its leaf uplinks (see job_bottleneck.h). */
#include "job_bottleneck.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nv_err.h"

static int leaf_index(nv_bn_result *r, const char *leaf)
{
    for (int i = 0; i < r->n_leaves; i++)
        if (!strcmp(r->leaf[i].leaf, leaf))
            return i;
    if (r->n_leaves >= NV_BN_MAX_LEAVES)
        return -1;
    nv_bn_leaf *l = &r->leaf[r->n_leaves];
    memset(l, 0, sizeof *l);
    snprintf(l->leaf, sizeof l->leaf, "%s", leaf);
    return r->n_leaves++;
}

/* the mean of the finite readings of one leaf's uplink, NAN without one */
static double uplink_mean(const nv_bn_node *nodes, size_t n, const char *leaf, int down)
{
    double s = 0;
    int k = 0;
    for (size_t i = 0; i < n; i++) {
        double v = down ? nodes[i].uplink_down_Bps : nodes[i].uplink_up_Bps;
        if (!strcmp(nodes[i].leaf, leaf) && isfinite(v) && v >= 0) {
            s += v;
            k++;
        }
    }
    return k ? s / k : NAN;
}

int nv_bottleneck_compute(const nv_bn_node *nodes, size_t n, double capacity_Bps, nv_bn_result *r,
                          char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->up_leaf = r->down_leaf = -1;
    r->u_up = r->u_down = r->uplink_u_up = r->uplink_u_down = NAN;
    r->capacity_Bps = capacity_Bps;
    r->nodes = (int)n;
    if (!(capacity_Bps > 0) || !isfinite(capacity_Bps))
        return nv_err(err, errlen, "no uplink capacity (UplinkRate= in netvar.conf)");
    for (size_t i = 0; i < n; i++) {
        if (!nodes[i].leaf || !nodes[i].leaf[0])
            return nv_err(err, errlen, "node %zu of the job has no leaf switch in the topology", i);
        int li = leaf_index(r, nodes[i].leaf);
        if (li < 0)
            return nv_err(err, errlen, "the job spans more than %d leaves", NV_BN_MAX_LEAVES);
        r->leaf[li].nodes++;
    }
    for (size_t i = 0; i < n; i++) {
        const nv_bn_node *nd = &nodes[i];
        if (!isfinite(nd->up_Bps) || !isfinite(nd->down_Bps) || nd->up_Bps < 0 || nd->down_Bps < 0)
            continue;
        nv_bn_leaf *l = &r->leaf[leaf_index(r, nd->leaf)];
        /* the node talks to the job's other n - 1 nodes alike */
        double off = n > 1 ? (double)(n - (size_t)l->nodes) / (double)(n - 1) : 0;
        l->off_up_Bps += nd->up_Bps * off;
        l->off_down_Bps += nd->down_Bps * off;
        r->nodes_counted++;
    }
    if (!r->nodes_counted)
        return nv_err(err, errlen, "no node of the job has NIC counters");
    for (int i = 0; i < r->n_leaves; i++) {
        nv_bn_leaf *l = &r->leaf[i];
        l->u_up = l->off_up_Bps / capacity_Bps;
        l->u_down = l->off_down_Bps / capacity_Bps;
        l->uplink_u_up = uplink_mean(nodes, n, l->leaf, 0) / capacity_Bps;
        l->uplink_u_down = uplink_mean(nodes, n, l->leaf, 1) / capacity_Bps;
        if (r->up_leaf < 0 || l->u_up > r->leaf[r->up_leaf].u_up)
            r->up_leaf = i;
        if (r->down_leaf < 0 || l->u_down > r->leaf[r->down_leaf].u_down)
            r->down_leaf = i;
    }
    r->u_up = r->leaf[r->up_leaf].u_up;
    r->u_down = r->leaf[r->down_leaf].u_down;
    r->uplink_u_up = r->leaf[r->up_leaf].uplink_u_up;
    r->uplink_u_down = r->leaf[r->down_leaf].uplink_u_down;
    return 0;
}
