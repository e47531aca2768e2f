/* sweep_stencil.c - netvar-sweep-stencil: the training benchmark of
 * *Communication time prediction* §3.4 as a halo kernel.  Every rank r
 * exchanges one message of --bytes with each rank (r +- stride) mod P of a
 * d-dimensional halo on MPI_Dims_create's grid (strides 1, px, px*py: the
 * same cyclic pattern as nv_alloc_pattern_halo), non-blocking, --phases
 * times with a barrier between phases.  Per rank the phase times above
 * the 75th percentile are dropped (the paper's third quartile, against OS
 * noise); the reported communication time per phase is the largest rank's
 * 75th percentile.  Prints one JSON object on rank 0:
 *   {"benchmark": "sweep-stencil", "ranks": P, "dims": d, "bytes": S,
 *    "phases": K, "comm_s": t, "mean_s": m, "nodes": ["h1", "h1", "h2", ...]}
 * (nodes: the node of each rank, from MPI_Get_processor_name). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void usage(void)
{
    printf("usage: netvar-sweep-stencil [--bytes S] [--dims 1|2|3] [--phases K] [--warmup W]\n"
           "  --bytes S    message size in bytes (default 4096, 1..67108864)\n"
           "  --dims D     halo dimensions (default 3)\n"
           "  --phases K   timed phases (default 200)\n"
           "  --warmup W   untimed phases first (default 10)\n"
           "Prints one JSON object (rank 0): comm_s is the slowest rank's 75th percentile\n"
           "of its phase times, in seconds per phase.\n");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    long bytes = 4096, dims = 3, phases = 200, warmup = 10;
    for (int i = 1; i < argc; i++) {
        long *dst = !strcmp(argv[i], "--bytes")    ? &bytes
                    : !strcmp(argv[i], "--dims")   ? &dims
                    : !strcmp(argv[i], "--phases") ? &phases
                    : !strcmp(argv[i], "--warmup") ? &warmup
                                                   : NULL;
        if (!strcmp(argv[i], "--help")) {
            if (rank == 0)
                usage();
            MPI_Finalize();
            return 0;
        }
        char *end = NULL;
        if (!dst || i + 1 >= argc || (*dst = strtol(argv[i + 1], &end, 10), !end || *end)) {
            if (rank == 0)
                fprintf(stderr, "netvar-sweep-stencil: bad option '%s' (see --help)\n", argv[i]);
            MPI_Finalize();
            return 2;
        }
        i++;
    }
    if (bytes < 1 || bytes > (64L << 20) || dims < 1 || dims > 3 || phases < 1 ||
        phases > 1000000 || warmup < 0 || warmup > 100000) {
        if (rank == 0)
            fprintf(stderr,
                    "netvar-sweep-stencil: --bytes 1..67108864, --dims 1..3, --phases 1..1000000, "
                    "--warmup 0..100000\n");
        MPI_Finalize();
        return 2;
    }
    int g[3] = {0, 0, 0};
    MPI_Dims_create(P, (int)dims, g);
    int peers[6], np = 0, stride = 1;
    for (int i = (int)dims - 1; i >= 0; i--) {
        if (g[i] >= 2)
            peers[np++] = stride;
        if (g[i] >= 3)
            peers[np++] = -stride;
        stride *= g[i];
    }
    char *sbuf = malloc((size_t)bytes * (np ? np : 1)),
         *rbuf = malloc((size_t)bytes * (np ? np : 1));
    double *t = malloc(sizeof(double) * (size_t)phases);
    if (!sbuf || !rbuf || !t) {
        fprintf(stderr, "netvar-sweep-stencil: out of memory for %ld-byte messages\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(sbuf, rank & 0xff, (size_t)bytes * (np ? np : 1));
    MPI_Request req[12];
    for (long it = -warmup; it < phases; it++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        int nr = 0;
        for (int k = 0; k < np; k++) {
            int to = ((rank + peers[k]) % P + P) % P, from = ((rank - peers[k]) % P + P) % P;
            MPI_Irecv(rbuf + (size_t)k * bytes, (int)bytes, MPI_BYTE, from, k, MPI_COMM_WORLD,
                      &req[nr++]);
            MPI_Isend(sbuf + (size_t)k * bytes, (int)bytes, MPI_BYTE, to, k, MPI_COMM_WORLD,
                      &req[nr++]);
        }
        MPI_Waitall(nr, req, MPI_STATUSES_IGNORE);
        if (it >= 0)
            t[it] = MPI_Wtime() - t0;
    }
    qsort(t, (size_t)phases, sizeof *t, cmp);
    double q3 = t[(size_t)((phases - 1) * 3 / 4)], sum = 0;
    for (long i = 0; i < phases; i++)
        sum += t[i];
    double mean = sum / phases, worst = 0, worst_mean = 0;
    MPI_Reduce(&q3, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mean, &worst_mean, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    char name[MPI_MAX_PROCESSOR_NAME] = "", *all = NULL;
    int len = 0;
    MPI_Get_processor_name(name, &len);
    const char *env = getenv("SLURMD_NODENAME");
    if (env && strlen(env) < sizeof name)
        snprintf(name, sizeof name, "%s", env);
    if (rank == 0)
        all = calloc((size_t)P, MPI_MAX_PROCESSOR_NAME);
    MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
               MPI_COMM_WORLD);
    if (rank == 0) {
        printf("{\"benchmark\": \"sweep-stencil\", \"ranks\": %d, \"dims\": %ld, \"bytes\": %ld, "
               "\"phases\": %ld, \"comm_s\": %.9g, \"mean_s\": %.9g, \"nodes\": [",
               P, dims, bytes, phases, worst, worst_mean);
        for (int r = 0; all && r < P; r++) {
            char *n = all + (size_t)r * MPI_MAX_PROCESSOR_NAME;
            n[MPI_MAX_PROCESSOR_NAME - 1] = 0;
            for (char *c = n; *c; c++)
                if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20)
                    *c = '_';
            printf("%s\"%s\"", r ? ", " : "", n);
        }
        printf("]}\n");
        free(all);
    }
    free(sbuf);
    free(rbuf);
    free(t);
    MPI_Finalize();
    return 0;
}
