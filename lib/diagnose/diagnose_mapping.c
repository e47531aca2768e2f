/* diagnose_mapping.c - hop-bytes and worst-case link load of a placement
 * on a tree (see diagnose_mapping.h). */
#include "diagnose_mapping.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nv_err.h"

enum { L_NODE_UP, L_NODE_DOWN, L_LEAF_UP, L_LEAF_DOWN, L_GROUP_UP, L_GROUP_DOWN, L_KINDS };
static const char *const level_names[L_KINDS] = {"node", "node", "leaf", "leaf", "group", "group"};

int nv_mapping_metrics_compute(const nv_rank_place *place, size_t nranks, const double *bytes,
                               const nv_link_rates *rates, nv_mapping_metrics *out, char *err,
                               size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->worst_link_seconds = NAN;
    if (nranks == 0 || nranks > NV_MAPPING_MAX_RANKS) {
        return nv_err(err, errlen, "mapping: %zu ranks (expected 1 to %d)", nranks,
                      NV_MAPPING_MAX_RANKS);
    }
    unsigned maxid = 0;
    for (size_t r = 0; r < nranks; r++) {
        unsigned m = place[r].node > place[r].leaf ? place[r].node : place[r].leaf;
        m = m > place[r].group ? m : place[r].group;
        if (m >= NV_MAPPING_MAX_RANKS) {
            return nv_err(err, errlen,
                          "mapping: rank %zu has an id of %u (ids are dense, below %d)", r, m,
                          NV_MAPPING_MAX_RANKS);
        }
        maxid = m > maxid ? m : maxid;
    }
    size_t ids = (size_t)maxid + 1;
    double *load = calloc(L_KINDS * ids, sizeof *load);
    if (!load) {
        return nv_err(err, errlen, "mapping: out of memory");
    }
    for (size_t a = 0; a < nranks; a++)
        for (size_t b = 0; b < nranks; b++) {
            double v = bytes[a * nranks + b];
            if (!isfinite(v) || v < 0) {
                free(load);
                return nv_err(err, errlen, "mapping: bytes[%zu][%zu] is negative or not finite", a,
                              b);
            }
            if (v == 0)
                continue;
            out->total_bytes += v;
            const nv_rank_place *s = &place[a], *t = &place[b];
            if (s->node == t->node)
                continue; /* on-node: no network link */
            int hops = 2;
            load[L_NODE_UP * ids + s->node] += v;
            load[L_NODE_DOWN * ids + t->node] += v;
            if (s->leaf != t->leaf) {
                hops = 4;
                load[L_LEAF_UP * ids + s->leaf] += v;
                load[L_LEAF_DOWN * ids + t->leaf] += v;
                if (s->group != t->group) {
                    hops = 6;
                    load[L_GROUP_UP * ids + s->group] += v;
                    load[L_GROUP_DOWN * ids + t->group] += v;
                }
            }
            out->hop_bytes += v * hops;
        }
    double rate[L_KINDS] = {0};
    int all_rates =
        rates && rates->node_Bps > 0 && rates->leaf_up_Bps > 0 && rates->group_up_Bps > 0;
    if (rates) {
        rate[L_NODE_UP] = rate[L_NODE_DOWN] = rates->node_Bps;
        rate[L_LEAF_UP] = rate[L_LEAF_DOWN] = rates->leaf_up_Bps;
        rate[L_GROUP_UP] = rate[L_GROUP_DOWN] = rates->group_up_Bps;
    }
    double worst = -1;
    int wk = 0;
    size_t wi = 0;
    for (int k = 0; k < L_KINDS; k++)
        for (size_t i = 0; i < ids; i++) {
            double l = load[k * ids + i];
            double score = all_rates ? l / rate[k] : l; /* Hoefler-Snir: load over capacity */
            if (l > 0 && score > worst) {
                worst = score;
                wk = k;
                wi = i;
            }
        }
    if (worst >= 0) {
        out->worst_link_bytes = load[wk * ids + wi];
        out->worst_link_seconds = all_rates ? worst : NAN;
        snprintf(out->worst_link, sizeof out->worst_link, "%s %u %s", level_names[wk], (unsigned)wi,
                 wk % 2 ? "down" : "up");
    } else {
        snprintf(out->worst_link, sizeof out->worst_link, "none (no off-node traffic)");
    }
    out->mean_hops = out->total_bytes > 0 ? out->hop_bytes / out->total_bytes : 0;
    free(load);
    return 0;
}
