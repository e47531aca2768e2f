/* partitions.c - partition node sets and the runnable check (partitions.h). */
#include "partitions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters_topology.h"
#include "nv_err.h"
#include "sort_cmp.h"

static bool has(char *const *names, size_t n, const char *name)
{
    return n && bsearch(&name, names, n, sizeof *names, nv_cmp_strp) != NULL;
}

int nv_partitions_add(struct nv_partitions *ps, const char *name, const char *hostlist,
                      bool is_default, char *err, size_t errlen)
{
    if (!name || !*name || strlen(name) >= NV_PART_NAME_MAX)
        return nv_err(err, errlen, "partition name missing or longer than %d characters",
                      NV_PART_NAME_MAX - 1);
    char **nodes = NULL, why[200];
    long n = hostlist && *hostlist
                 ? nv_hostlist_expand(hostlist, &nodes, NV_PART_NODES_MAX, why, sizeof why)
                 : 0;
    if (n < 0)
        return nv_err(err, errlen, "partition %s: nodes '%.80s': %s", name, hostlist, why);
    struct nv_partition *bigger = realloc(ps->p, (ps->n + 1) * sizeof *bigger);
    if (!bigger) {
        nv_hostlist_free(nodes, (size_t)n);
        return nv_err(err, errlen, "partition %s: out of memory", name);
    }
    ps->p = bigger;
    struct nv_partition *p = &ps->p[ps->n++];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->is_default = is_default;
    if (n > 0)
        qsort(nodes, (size_t)n, sizeof *nodes, nv_cmp_strp);
    size_t k = 0; /* distinct */
    for (long i = 0; i < n; i++) {
        if (k && !strcmp(nodes[k - 1], nodes[i])) {
            free(nodes[i]);
            continue;
        }
        nodes[k++] = nodes[i];
    }
    p->nodes = nodes;
    p->n = k;
    return 0;
}

void nv_partitions_free(struct nv_partitions *ps)
{
    for (size_t i = 0; i < ps->n; i++)
        nv_hostlist_free(ps->p[i].nodes, ps->p[i].n);
    free(ps->p);
    ps->p = NULL;
    ps->n = 0;
}

static const struct nv_partition *find(const struct nv_partitions *ps, const char *name, size_t len)
{
    for (size_t i = 0; i < ps->n; i++) {
        if (len == 0 ? ps->p[i].is_default
                     : strlen(ps->p[i].name) == len && !strncmp(ps->p[i].name, name, len))
            return &ps->p[i];
    }
    return NULL;
}

/* comma-separated names into a sorted array (pointers into a copy) */
static char **split_sorted(const char *s, char **copy, size_t *n)
{
    *n = 0;
    *copy = NULL;
    if (!s || !*s)
        return NULL;
    size_t commas = 1;
    for (const char *c = s; *c; c++)
        commas += *c == ',';
    char **v = malloc(commas * sizeof *v);
    *copy = strdup(s);
    if (!v || !*copy) {
        free(v);
        free(*copy);
        *copy = NULL;
        return NULL;
    }
    for (char *save = NULL, *t = strtok_r(*copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
        v[(*n)++] = t;
    qsort(v, *n, sizeof *v, nv_cmp_strp);
    return v;
}

/* The partitions a job's comma-separated list names (NULL or "": the
 * default one) into want[64]; their count, or -1 when one is unknown. */
static long wanted(const struct nv_partitions *ps, const char *list,
                   const struct nv_partition *want[64])
{
    if (!ps || !ps->n)
        return -1;
    size_t nwant = 0;
    const char *s = list ? list : "";
    do {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        const struct nv_partition *p = find(ps, s, len);
        if (!p || nwant == 64)
            return -1;
        want[nwant++] = p;
        s = comma ? comma + 1 : NULL;
    } while (s);
    return (long)nwant;
}

/* whether node is in one of want[0..k) */
static bool in_earlier(const struct nv_partition *const *want, size_t k, const char *node)
{
    for (size_t e = 0; e < k; e++)
        if (has(want[e]->nodes, want[e]->n, node))
            return true;
    return false;
}

long nv_partitions_size(const struct nv_partitions *ps, const char *list)
{
    const struct nv_partition *want[64];
    long nwant = wanted(ps, list, want);
    if (nwant < 0)
        return -1;
    long all = (long)want[0]->n;
    for (long k = 1; k < nwant; k++)
        for (size_t i = 0; i < want[k]->n; i++)
            all += !in_earlier(want, (size_t)k, want[k]->nodes[i]);
    return all;
}

long nv_partitions_nodes_left(const struct nv_partitions *ps, const char *list,
                              const char *excl_names, const char *excl_hostlist, size_t *total)
{
    if (total)
        *total = 0;
    const struct nv_partition *want[64];
    long nw = wanted(ps, list, want);
    if (nw < 0)
        return -1;
    size_t nwant = (size_t)nw;
    char *copy = NULL;
    size_t nmine = 0, nuser = 0;
    char **user = NULL;
    char **ours = split_sorted(excl_names, &copy, &nmine);
    if (excl_hostlist && *excl_hostlist) {
        char why[200];
        long n = nv_hostlist_expand(excl_hostlist, &user, NV_PART_NODES_MAX, why, sizeof why);
        if (n > 0) {
            nuser = (size_t)n;
            qsort(user, nuser, sizeof *user, nv_cmp_strp);
        }
    }
    long left = 0;
    size_t all = 0;
    for (size_t k = 0; k < nwant; k++)
        for (size_t i = 0; i < want[k]->n; i++) {
            const char *node = want[k]->nodes[i];
            if (in_earlier(want, k, node)) /* counted with an earlier partition */
                continue;
            all++;
            if (!has(ours, nmine, node) && !has(user, nuser, node))
                left++;
        }
    free(ours);
    free(copy);
    if (user)
        nv_hostlist_free(user, nuser);
    if (total)
        *total = all;
    return left;
}
