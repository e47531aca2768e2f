/* rp_topo.c - the replay fabric from the site's topology (replay.h): the
 * leaves and their nodes of a topology.conf or topology.yaml as
 * lib/counters and lib/topoyaml load it, and the trace's node indices
 * (topology nodes in file order) mapped onto the fabric's slots. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "counters_topology.h"
#include "replay.h"
#include "sort_cmp.h"
#include "str_hash.h"

int rp_fabric_leaf_nodes(const rp_fabric *f, int l)
{
    return f->leaf_nodes ? f->leaf_nodes[l] : f->per_leaf;
}

long rp_fabric_nodes(const rp_fabric *f)
{
    if (!f->leaf_nodes)
        return (long)f->leaves * f->per_leaf;
    long n = 0;
    for (int l = 0; l < f->leaves; l++)
        n += f->leaf_nodes[l];
    return n;
}

void rp_topo_fabric_free(rp_topo_fabric *tf)
{
    for (int l = 0; tf->leaf_name && l < tf->leaves; l++)
        free(tf->leaf_name[l]);
    free(tf->leaf_name);
    free(tf->leaf_nodes);
    free(tf->slot);
    free(tf->node_of);
    memset(tf, 0, sizeof *tf);
}

int rp_topo_fabric_of(rp_topo_fabric *tf, const nv_topo *t, const char *source, char *err,
                      size_t errlen)
{
    const char *src = source ? source : "the topology";
    memset(tf, 0, sizeof *tf);
    if (!t || t->n == 0) {
        snprintf(err, errlen,
                 "%s: no node under a leaf switch (a flat topology, or switches without nodes)",
                 src);
        return -1;
    }
    if (t->n > RP_NODES_MAX) {
        snprintf(err, errlen, "%s: %zu nodes, more than %d", src, t->n, RP_NODES_MAX);
        return -1;
    }
    int n = (int)t->n, rc = -1;
    /* leaves by name: open addressing, at most n of them */
    size_t cap = 16;
    while (cap < 2 * (size_t)n)
        cap *= 2;
    int *ix = malloc(cap * sizeof *ix), *leaf = malloc((size_t)n * sizeof *leaf);
    int *rank = malloc((size_t)n * sizeof *rank), *first = malloc((size_t)n * sizeof *first);
    tf->leaf_nodes = calloc((size_t)n, sizeof *tf->leaf_nodes);
    tf->slot = malloc((size_t)n * sizeof *tf->slot);
    if (!ix || !leaf || !rank || !first || !tf->leaf_nodes || !tf->slot) {
        snprintf(err, errlen, "%s: out of memory for %d nodes", src, n);
        goto out;
    }
    for (size_t k = 0; k < cap; k++)
        ix[k] = -1;
    for (int i = 0; i < n; i++) {
        const nv_topo_node *nd = &t->nodes[i];
        if (!*nd->sw) {
            snprintf(err, errlen, "%s: node %s is under no leaf switch", src, nd->node);
            goto out;
        }
        size_t h = nv_str_hash(nd->sw) & (cap - 1);
        while (ix[h] >= 0 && strcmp(t->nodes[first[ix[h]]].sw, nd->sw))
            h = (h + 1) & (cap - 1);
        if (ix[h] < 0) {
            ix[h] = tf->leaves;
            first[tf->leaves++] = i;
        }
        int l = ix[h];
        leaf[i] = l;
        rank[i] = tf->leaf_nodes[l]++;
        if (tf->leaf_nodes[l] > tf->per_leaf)
            tf->per_leaf = tf->leaf_nodes[l];
    }
    if (tf->per_leaf > RP_LEAF_NODES_MAX) {
        for (int l = 0; l < tf->leaves; l++)
            if (tf->leaf_nodes[l] == tf->per_leaf) {
                snprintf(err, errlen, "%s: leaf switch %s has %d nodes, more than %d", src,
                         t->nodes[first[l]].sw, tf->per_leaf, RP_LEAF_NODES_MAX);
                break;
            }
        goto out;
    }
    long slots = (long)tf->leaves * tf->per_leaf;
    if (slots > RP_NODES_MAX) {
        snprintf(err, errlen,
                 "%s: %d leaf switches of up to %d nodes are %ld node slots (every leaf as large "
                 "as the largest), more than %d",
                 src, tf->leaves, tf->per_leaf, slots, RP_NODES_MAX);
        goto out;
    }
    tf->nodes = n;
    tf->node_of = malloc((size_t)slots * sizeof *tf->node_of);
    tf->leaf_name = calloc((size_t)tf->leaves, sizeof *tf->leaf_name);
    if (!tf->node_of || !tf->leaf_name) {
        snprintf(err, errlen, "%s: out of memory for %ld node slots", src, slots);
        goto out;
    }
    for (long x = 0; x < slots; x++)
        tf->node_of[x] = -1;
    for (int l = 0; l < tf->leaves; l++)
        if (!(tf->leaf_name[l] = strdup(t->nodes[first[l]].sw))) {
            snprintf(err, errlen, "%s: out of memory", src);
            goto out;
        }
    for (int i = 0; i < n; i++) {
        tf->slot[i] = leaf[i] * tf->per_leaf + rank[i];
        tf->node_of[tf->slot[i]] = i;
    }
    rc = 0;
out:
    free(ix);
    free(leaf);
    free(rank);
    free(first);
    if (rc)
        rp_topo_fabric_free(tf);
    return rc;
}

int rp_trace_map_nodes(rp_trace *t, const rp_topo_fabric *tf, char *err, size_t errlen)
{
    for (size_t i = 0; i < t->n; i++) {
        rp_job *j = &t->job[i];
        if (!j->want)
            continue;
        for (int k = 0; k < j->nodes; k++)
            if (j->want[k] < 0 || j->want[k] >= tf->nodes) {
                snprintf(err, errlen, "job %u: node %d outside the topology's %d nodes (0 .. %d)",
                         j->id, j->want[k], tf->nodes, tf->nodes - 1);
                return -1;
            }
        for (int k = 0; k < j->nodes; k++)
            j->want[k] = tf->slot[j->want[k]];
        qsort(j->want, (size_t)j->nodes, sizeof *j->want, nv_cmp_int);
    }
    return 0;
}
