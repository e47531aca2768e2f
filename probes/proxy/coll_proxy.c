/* coll_proxy.c - netvar-proxy-coll: one collective kind, alone.  Every
 * iteration calls the collective chosen by --kind (allreduce, bcast,
 * allgather, reduce_scatter, alltoallv) on N doubles per rank, then
 * computes for C microseconds: one proxy per collective kind of the
 * corpus, each with its own traffic shape (alltoallv's counts are skewed:
 * rank r sends peer p a share that grows with (r + p) mod ranks). */
#include "proxy_common.h"

enum coll_kind { K_ALLREDUCE, K_BCAST, K_ALLGATHER, K_REDUCE_SCATTER, K_ALLTOALLV, K_NKINDS };
static const char *const kind_name[K_NKINDS] = {"allreduce", "bcast", "allgather", "reduce_scatter",
                                                "alltoallv"};
/* the result line's proxy= names the kind */
static const char *const proxy_name[K_NKINDS] = {"coll-allreduce", "coll-bcast", "coll-allgather",
                                                 "coll-reduce_scatter", "coll-alltoallv"};

/* Takes --kind NAME out of argv (proxy_parse knows only integer options).
 * Returns the kind, or -1 after one line on bad usage. */
static int take_kind(int *argc, char **argv, int rank)
{
    int kind = K_ALLREDUCE, j = 1;
    for (int i = 1; i < *argc; i++) {
        if (strcmp(argv[i], "--kind") != 0) {
            argv[j++] = argv[i];
            continue;
        }
        const char *v = i + 1 < *argc ? argv[++i] : "";
        kind = -1;
        for (int k = 0; k < K_NKINDS; k++)
            if (!strcmp(v, kind_name[k]))
                kind = k;
        if (kind < 0) {
            if (rank == 0)
                fprintf(stderr,
                        "netvar-proxy-coll: --kind must be allreduce, bcast, allgather, "
                        "reduce_scatter or alltoallv, got '%.30s'\n",
                        v);
            return -1;
        }
    }
    *argc = j;
    argv[j] = NULL;
    return kind;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    struct proxy_opts o = {.name = "coll",
                           .size = 4096,
                           .iters = 5000,
                           .compute_scale = 1,
                           .extra = 500,
                           .extra_name = "compute-us"};
    int kind = take_kind(&argc, argv, rank);
    int rc = kind < 0
                 ? 2
                 : proxy_parse(&o, argc, argv, rank,
                               "Collective proxy: each iteration calls one collective (--kind\n"
                               "allreduce|bcast|allgather|reduce_scatter|alltoallv, default\n"
                               "allreduce; the result line says proxy=coll-KIND) on N doubles per\n"
                               "rank, then computes for C work units (C microseconds).",
                               "doubles per rank in each collective",
                               "computation between collectives, us");
    if (rc) {
        if (rc < 0 && rank == 0)
            printf("  --kind K           the collective: allreduce (default), bcast, allgather,\n"
                   "                     reduce_scatter, alltoallv\n");
        MPI_Finalize();
        return rc < 0 ? 0 : rc;
    }
    o.name = proxy_name[kind];
    if (o.size > 4000000) {
        if (rank == 0)
            fprintf(stderr, "netvar-proxy-coll: --size %ld is more than 4000000; using 4000000\n",
                    o.size);
        o.size = 4000000;
    }
    long per = o.size / nranks > 0 ? o.size / nranks : 1;
    size_t n = (size_t)per * (size_t)nranks;
    double *a = malloc(2 * n * sizeof *a), *b = malloc(2 * n * sizeof *b);
    int *sc = malloc(4 * (size_t)nranks * sizeof *sc);
    if (!a || !b || !sc) {
        fprintf(stderr, "netvar-proxy-coll: cannot allocate 4 x %zu doubles\n", n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int *sd = sc + nranks, *rcn = sd + nranks, *rd = rcn + nranks;
    for (size_t i = 0; i < 2 * n; i++)
        a[i] = rank + (double)i * 1e-6;
    /* alltoallv: peer p gets per * (1 + (rank + p) % ranks) / ranks * 2 doubles,
     * at most 2 per, so both buffers of 2 n hold every share */
    for (int p = 0, off = 0; p < nranks; p++) {
        sc[p] = (int)(2 * per * (1 + (rank + p) % nranks) / nranks);
        sd[p] = off;
        off += sc[p];
    }
    for (int p = 0, off = 0; p < nranks; p++) {
        rcn[p] = (int)(2 * per * (1 + (p + rank) % nranks) / nranks);
        rd[p] = off;
        off += rcn[p];
    }
    double sink = 0;
    proxy_barrier(&o);
    double t0 = proxy_now_s();
    for (long it = 0; it < o.iters; it++) {
        MPI_Request r;
        switch (kind) {
        case K_ALLREDUCE:
            MPI_Iallreduce(a, b, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r);
            break;
        case K_BCAST:
            MPI_Ibcast(a, (int)n, MPI_DOUBLE, (int)(it % nranks), MPI_COMM_WORLD, &r);
            break;
        case K_ALLGATHER:
            MPI_Iallgather(a, (int)per, MPI_DOUBLE, b, (int)per, MPI_DOUBLE, MPI_COMM_WORLD, &r);
            break;
        case K_REDUCE_SCATTER:
            MPI_Ireduce_scatter_block(a, b, (int)per, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r);
            break;
        default:
            MPI_Ialltoallv(a, sc, sd, MPI_DOUBLE, b, rcn, rd, MPI_DOUBLE, MPI_COMM_WORLD, &r);
            break;
        }
        proxy_wait(&o, 1, &r);
        sink += proxy_compute(&o, (double)o.extra, b, (long)per);
    }
    proxy_report(&o, rank, nranks, o.iters, t0, sink + b[0]);
    free(a);
    free(b);
    free(sc);
    MPI_Finalize();
    return 0;
}
