/* fabric_kernels.c - netvar-fabric-kernels: the reference kernels of
 * `netvar calibrate --fabric` (fabric.h).  Rank r pairs with r + N/2 for
 * point-to-point (a latency ping-pong and a stream of 8 messages then a
 * one-byte ack, at 8 B .. 1 MiB); every rank takes part in the collectives
 * (Bcast and Reduce: rooted; Allreduce and Alltoall: all) at 8 B, 4 KiB,
 * 64 KiB and 1 MiB.  Each kernel runs a fixed number of iterations (fewer
 * for larger messages: --scale S times 1 MiB of traffic per kernel, 3 to
 * 1000 iterations) after one warm-up; its time per iteration, the slowest
 * rank's, is added to its message class.  Rank 0 prints one JSON line
 * (nv_fabric_kernels_to_json).  Usage: netvar-fabric-kernels [--scale S]
 * [--announce] (rank 0 prints "netvar: netvar-fabric-kernels: started: R
 * ranks" on stderr once every rank is in, as impactb does). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric.h"

#define STREAM_WINDOW 8
#define MAX_BYTES (1 << 20)

static int size_class(long bytes)
{
    return bytes <= 256 ? 0 : bytes <= 8192 ? 1 : bytes <= 262144 ? 2 : 3;
}

static int iterations(double scale, long bytes)
{
    double it = scale * (double)MAX_BYTES / (double)bytes;
    return it < 3 ? 3 : it > 1000 ? 1000 : (int)it;
}

enum kernel { K_PINGPONG, K_STREAM, K_BCAST, K_REDUCE, K_ALLREDUCE, K_ALLTOALL };

/* one iteration of kernel k at bytes (per rank; alltoall: per rank in all) */
static void once(enum kernel k, long bytes, char *sbuf, char *rbuf, int rank, int size)
{
    int half = size / 2, peer = rank < half ? rank + half : rank - half;
    int lead = rank < half, paired = rank < 2 * half;
    MPI_Request req[STREAM_WINDOW];
    switch (k) {
    case K_PINGPONG:
        if (!paired)
            break;
        if (lead) {
            MPI_Send(sbuf, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
            MPI_Recv(rbuf, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rbuf, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(sbuf, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
        }
        break;
    case K_STREAM:
        if (!paired)
            break;
        for (int i = 0; i < STREAM_WINDOW; i++) {
            if (lead)
                MPI_Isend(sbuf, (int)bytes, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &req[i]);
            else
                MPI_Irecv(rbuf, (int)bytes, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &req[i]);
        }
        MPI_Waitall(STREAM_WINDOW, req, MPI_STATUSES_IGNORE);
        if (lead)
            MPI_Recv(rbuf, 1, MPI_BYTE, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
            MPI_Send(sbuf, 1, MPI_BYTE, peer, 3, MPI_COMM_WORLD);
        break;
    case K_BCAST: MPI_Bcast(sbuf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case K_REDUCE:
        MPI_Reduce(sbuf, rbuf, (int)(bytes / 8), MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        break;
    case K_ALLREDUCE:
        MPI_Allreduce(sbuf, rbuf, (int)(bytes / 8), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        break;
    case K_ALLTOALL:
        MPI_Alltoall(sbuf, (int)(bytes / size), MPI_BYTE, rbuf, (int)(bytes / size), MPI_BYTE,
                     MPI_COMM_WORLD);
        break;
    }
}

/* the slowest rank's time per iteration of kernel k at bytes, us */
static double timed(enum kernel k, long bytes, double scale, char *sbuf, char *rbuf, int rank,
                    int size)
{
    int n = iterations(scale, bytes);
    once(k, bytes, sbuf, rbuf, rank, size); /* warm-up */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < n; i++)
        once(k, bytes, sbuf, rbuf, rank, size);
    double mine = (MPI_Wtime() - t0) * 1e6 / n, slowest = 0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double scale = 1;
    int announce = 0;
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (!strcmp(argv[i], "--announce")) {
            announce = 1;
            continue;
        }
        if (!strcmp(argv[i], "--scale") && i + 1 < argc)
            scale = strtod(argv[++i], &end);
        if (!end || *end || !(scale > 0 && scale <= 100)) {
            if (rank == 0)
                fprintf(stderr, "netvar-fabric-kernels: usage: netvar-fabric-kernels "
                                "[--scale S] (0 < S <= 100)\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (size < 2) {
        if (rank == 0)
            fprintf(stderr, "netvar-fabric-kernels: needs at least 2 ranks, got %d\n", size);
        MPI_Finalize();
        return 2;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (announce && rank == 0) {
        fprintf(stderr, "netvar: netvar-fabric-kernels: started: %d ranks\n", size);
        fflush(stderr);
    }
    char *sbuf = calloc(1, MAX_BYTES), *rbuf = calloc(1, MAX_BYTES);
    if (!sbuf || !rbuf) {
        fprintf(stderr, "netvar-fabric-kernels: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    static const long p2p_bytes[] = {8, 256, 1024, 8192, 65536, 262144, 1048576};
    static const long coll_bytes[] = {8, 4096, 65536, 1048576};
    double class_us[NV_FABRIC_CLASSES] = {0};
    for (size_t i = 0; i < sizeof p2p_bytes / sizeof *p2p_bytes; i++)
        for (int k = K_PINGPONG; k <= K_STREAM; k++)
            class_us[size_class(p2p_bytes[i])] +=
                timed((enum kernel)k, p2p_bytes[i], scale, sbuf, rbuf, rank, size);
    for (size_t i = 0; i < sizeof coll_bytes / sizeof *coll_bytes; i++) {
        long b = coll_bytes[i];
        int c = size_class(b);
        class_us[NV_FABRIC_SIZES + c] += timed(K_BCAST, b, scale, sbuf, rbuf, rank, size) +
                                         timed(K_REDUCE, b, scale, sbuf, rbuf, rank, size);
        class_us[2 * NV_FABRIC_SIZES + c] += timed(K_ALLREDUCE, b, scale, sbuf, rbuf, rank, size) +
                                             timed(K_ALLTOALL, b, scale, sbuf, rbuf, rank, size);
    }
    if (rank == 0) {
        json_object *o = nv_fabric_kernels_to_json(class_us, size);
        printf("%s\n", o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN) : "{}");
        json_object_put(o);
        fflush(stdout);
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
