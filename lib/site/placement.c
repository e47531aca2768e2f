/* placement.c - a newcomer's leaf switches from its node list (see header). */
#include "placement.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sort_cmp.h"

struct pair {
    const char *node;
    const char *sw;
};

static int cmp_pair(const void *a, const void *b)
{
    return strcmp(((const struct pair *)a)->node, ((const struct pair *)b)->node);
}

void nv_leaf_map_free(struct nv_leaf_map *lm)
{
    if (!lm)
        return;
    for (size_t i = 0; i < lm->n; i++)
        free(lm->node[i]);
    for (size_t i = 0; i < lm->nleaves; i++)
        free(lm->leaf_name[i]);
    free(lm->node);
    free(lm->leaf);
    free(lm->leaf_name);
    free(lm->size_desc);
    memset(lm, 0, sizeof *lm);
}

int nv_leaf_map_build(struct nv_leaf_map *lm, const nv_topo *t, char *err, size_t errlen)
{
    memset(lm, 0, sizeof *lm);
    size_t n = 0;
    for (size_t i = 0; t && i < t->n; i++)
        n += t->nodes[i].sw[0] != '\0';
    if (!n)
        return 0;
    struct pair *pr = malloc(n * sizeof *pr);
    const char **sw = malloc(n * sizeof *sw);
    lm->node = calloc(n, sizeof *lm->node);
    lm->leaf = malloc(n * sizeof *lm->leaf);
    lm->leaf_name = calloc(n, sizeof *lm->leaf_name);
    if (!pr || !sw || !lm->node || !lm->leaf || !lm->leaf_name)
        goto oom;
    size_t k = 0;
    for (size_t i = 0; i < t->n; i++)
        if (t->nodes[i].sw[0]) {
            pr[k] = (struct pair){t->nodes[i].node, t->nodes[i].sw};
            sw[k] = t->nodes[i].sw;
            k++;
        }
    qsort(pr, n, sizeof *pr, cmp_pair);
    qsort(sw, n, sizeof *sw, nv_cmp_strp);
    for (size_t i = 0; i < n; i++) /* distinct leaf names, sorted */
        if (!lm->nleaves || strcmp(lm->leaf_name[lm->nleaves - 1], sw[i]))
            if (!(lm->leaf_name[lm->nleaves++] = strdup(sw[i])))
                goto oom;
    for (size_t i = 0; i < n; i++) {
        if (lm->n && !strcmp(lm->node[lm->n - 1], pr[i].node))
            continue; /* nv_topo keeps a node once; this keeps the map sound anyway */
        char *key = (char *)pr[i].sw;
        char **at = bsearch(&key, lm->leaf_name, lm->nleaves, sizeof *lm->leaf_name, nv_cmp_strp);
        if (!(lm->node[lm->n] = strdup(pr[i].node)))
            goto oom;
        lm->leaf[lm->n++] = (uint32_t)(at - lm->leaf_name);
    }
    if (!(lm->size_desc = calloc(lm->nleaves, sizeof *lm->size_desc)))
        goto oom;
    for (size_t i = 0; i < lm->n; i++)
        lm->size_desc[lm->leaf[i]]++;
    qsort(lm->size_desc, lm->nleaves, sizeof *lm->size_desc, nv_cmp_u32_desc);
    free(pr);
    free(sw);
    return 0;
oom:
    free(pr);
    free(sw);
    nv_leaf_map_free(lm);
    snprintf(err, errlen, "out of memory for the leaf switches of %zu nodes", n);
    return -1;
}

static long find_node(const struct nv_leaf_map *lm, const char *node)
{
    size_t lo = 0, hi = lm ? lm->n : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(node, lm->node[mid]);
        if (!c)
            return (long)mid;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return -1;
}

const char *nv_leaf_map_find(const struct nv_leaf_map *lm, const char *node)
{
    long i = node ? find_node(lm, node) : -1;
    return i < 0 ? NULL : lm->leaf_name[lm->leaf[i]];
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

void nv_named_nodes_read(struct nv_named_nodes *nn, const char *req_nodes)
{
    memset(nn, 0, sizeof *nn);
    if (!req_nodes || !*req_nodes)
        return;
    char **names = NULL, why[200];
    long n = nv_hostlist_expand(req_nodes, &names, NV_NAMED_NODES_MAX, why, sizeof why);
    if (n <= 0) {
        if (n == 0)
            nv_hostlist_free(names, 0);
        nn->state = n < 0 ? NV_NAMED_UNREADABLE : NV_NAMED_EMPTY;
        return;
    }
    /* distinct names: sbatch counts a repeated name once */
    qsort(names, (size_t)n, sizeof *names, nv_cmp_strp);
    size_t nd = 0;
    for (long i = 0; i < n; i++) {
        if (nd && !strcmp(names[i], names[nd - 1]))
            free(names[i]);
        else
            names[nd++] = names[i];
    }
    nn->state = NV_NAMED_READ;
    nn->name = names;
    nn->n = nd;
}

void nv_named_nodes_free(struct nv_named_nodes *nn)
{
    if (nn && nn->state == NV_NAMED_READ)
        nv_hostlist_free(nn->name, nn->n);
    if (nn)
        memset(nn, 0, sizeof *nn);
}

int nv_named_nodes_has(const struct nv_named_nodes *nn, const char *node)
{
    return nn && nn->n && node &&
           bsearch(&node, nn->name, nn->n, sizeof *nn->name, nv_cmp_strp) != NULL;
}

void nv_placement_of(const struct nv_leaf_map *lm, const struct nv_named_nodes *nn,
                     uint32_t min_nodes, uint32_t max_nodes, struct nv_placement *p)
{
    memset(p, 0, sizeof *p);
    p->why = "";
    if (!nn || nn->state == NV_NAMED_NONE)
        return;
    if (!lm || !lm->n) {
        p->why = "no leaf switches known (topology.conf)";
        return;
    }
    if (nn->state != NV_NAMED_READ) {
        p->why = nn->state == NV_NAMED_UNREADABLE ? "its node list could not be read"
                                                  : "its node list is empty";
        return;
    }
    uint32_t *leaf = malloc(nn->n * sizeof *leaf);
    if (!leaf) {
        p->why = "out of memory";
        return;
    }
    for (size_t i = 0; i < nn->n; i++) {
        long at = find_node(lm, nn->name[i]);
        if (at < 0) {
            p->why = "a node it names has no leaf switch in topology.conf";
            goto out;
        }
        leaf[i] = lm->leaf[at];
    }
    if ((min_nodes && min_nodes > nn->n) || (max_nodes && max_nodes > nn->n)) {
        p->why = "it may be given more nodes than it names";
        goto out;
    }
    qsort(leaf, nn->n, sizeof *leaf, cmp_u32);
    for (size_t i = 0; i < nn->n; i++)
        if (!i || leaf[i] != leaf[i - 1]) {
            const char *s = lm->leaf_name[leaf[i]];
            nv_leaf_set_add(&p->set, s, strlen(s));
            p->leaves++;
        }
    p->nodes = (uint32_t)nn->n;
out:
    free(leaf);
}
