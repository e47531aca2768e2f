/* launch_argv.c - srun and mpirun command lines for a plan (launch_argv.h). */
#include "launch_argv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters_topology.h"

void nv_argv_free(char **argv)
{
    if (!argv)
        return;
    for (char **a = argv; *a; a++)
        free(*a);
    free(argv);
}

struct vec {
    char **v;
    size_t n, cap;
    int failed;
};

static void push(struct vec *v, const char *s)
{
    if (v->failed)
        return;
    if (v->n + 2 > v->cap) {
        size_t nc = v->cap ? v->cap * 2 : 32;
        char **nv = realloc(v->v, nc * sizeof *nv);
        if (!nv) {
            v->failed = 1;
            return;
        }
        v->v = nv;
        v->cap = nc;
    }
    char *d = strdup(s);
    if (!d) {
        v->failed = 1;
        return;
    }
    v->v[v->n++] = d;
    v->v[v->n] = NULL;
}

static void pushf(struct vec *v, const char *prefix, long a)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s%ld", prefix, a);
    push(v, buf);
}

/* mpirun --host value for the load: "h2:T,h4:T" (T slots on each). */
static void push_mpirun_hosts(struct vec *v, const nv_run_plan *p, int tasks_per_node)
{
    char **names = NULL, err[300];
    long n = nv_run_load_nodes_expand(p->load_nodes, &names, err, sizeof err);
    if (n < 1) {
        v->failed = 1;
        return;
    }
    size_t cap = (size_t)n * 72 + 1, len = 0;
    char *hosts = malloc(cap);
    if (!hosts) {
        v->failed = 1;
    } else {
        hosts[0] = '\0';
        for (long i = 0; i < n; i++)
            len += (size_t)snprintf(hosts + len, cap - len, "%s%s:%d", i ? "," : "", names[i],
                                    tasks_per_node);
        push(v, "--host");
        push(v, hosts);
        free(hosts);
    }
    nv_hostlist_free(names, (size_t)n);
}

char **nv_run_argv(const nv_run_plan *p, int tasks_per_node, const char *const *cmd, size_t ncmd)
{
    return nv_run_argv_on(p, NV_SIDE_APP, tasks_per_node, cmd, ncmd);
}

char **nv_run_argv_on(const nv_run_plan *p, nv_run_side side, int tasks_per_node,
                      const char *const *cmd, size_t ncmd)
{
    if (!p || !cmd || !ncmd || tasks_per_node < 1 || p->nodes < 1)
        return NULL;
    struct vec v = {0};
    int nodes = nv_run_side_nodes(p, side);
    int placed = p->n_load_nodes > 0; /* --load-nodes: explicit placement */
    long ntasks = (long)nodes * tasks_per_node;
    if (p->launcher == NV_LAUNCHER_SRUN) {
        push(&v, "srun");
        int has_mpi = 0;
        for (size_t i = 0; i < p->n_extra; i++)
            if (!strncmp(p->extra[i], "--mpi", 5))
                has_mpi = 1;
        if (!has_mpi)
            push(&v, "--mpi=pmix");
        pushf(&v, "--nodes=", nodes);
        pushf(&v, "--ntasks=", ntasks);
        pushf(&v, "--ntasks-per-node=", tasks_per_node);
        push(&v, "--kill-on-bad-exit=1");
        if (placed) {
            char w[NV_RUN_LOAD_NODES_MAX + 16];
            snprintf(w, sizeof w, "%s%s",
                     side == NV_SIDE_LOAD ? "--nodelist=" : "--exclude=", p->load_nodes);
            push(&v, w);
        }
        if (p->in_allocation) {
            /* probes and the command are separate steps of one allocation:
             * they must share CPUs and, unless placed, start on the same
             * first nodes */
            push(&v, "--overlap");
            if (!placed)
                push(&v, "--relative=0");
        }
    } else {
        push(&v, "mpirun");
        push(&v, "-n");
        pushf(&v, "", ntasks);
        if (placed && side == NV_SIDE_LOAD) {
            push_mpirun_hosts(&v, p, tasks_per_node);
            char map[48];
            snprintf(map, sizeof map, "ppr:%d:node", tasks_per_node);
            push(&v, "--map-by");
            push(&v, map);
        } else if (!p->fake_nodes) {
            char map[48];
            snprintf(map, sizeof map, "ppr:%d:node", tasks_per_node);
            push(&v, "--map-by");
            push(&v, map);
        }
    }
    for (size_t i = 0; i < p->n_extra; i++)
        push(&v, p->extra[i]);
    for (size_t i = 0; i < ncmd; i++)
        push(&v, cmd[i]);
    if (v.failed) {
        nv_argv_free(v.v);
        return NULL;
    }
    return v.v;
}
