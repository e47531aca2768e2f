/* compressionb.c - CompressionB (Queue-theory interference model, Figure
 * 4): controlled network load that takes a tunable share of the switch
 * away from an application.
 *
 * Ranks with the same local index on different nodes form a ring.  Each
 * round every rank, for k = 1..P, posts M receives of --msg-bytes from the
 * rank k nodes after it and M sends to the rank k nodes before it, then
 * sleeps B; after the P partners it waits for all requests (politely, as in
 * ImpactB) and repeats.  Figure 4 sleeps between partners (the default,
 * --sleep-at partner); the paper's text reads as one sleep per round, which
 * --sleep-at round gives.  B comes from --sleep-us, or from --cycles and
 * --ghz as the paper counts it (B cycles / (G * 1e3) = microseconds).
 * Reports the bytes each node injected per second (JSON schema
 * "netvar-compressionb", version 1, written by lib/records/probe_output.h). */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nv_err.h"
#include "probe_common.h"

#define PROG "compressionb"
#define MAX_INFLIGHT_BYTES (1ull << 30)

static void usage(FILE *out)
{
    fprintf(
        out,
        "Usage: mpirun [...] compressionb [--partners P] [--messages M] [--msg-bytes N]\n"
        "                                 [--sleep-us B | --cycles C [--ghz G]]\n"
        "                                 [--sleep-at partner|round] [--duration-s S]\n"
        "                                 [--output FILE] [--announce] [--busy-wait]\n\n"
        "CompressionB injects a controlled amount of network traffic: each rank\n"
        "sends M messages to each of the P ranks with its local index on the P\n"
        "preceding nodes (and receives from the P succeeding ones), sleeping B\n"
        "between partners, then waits for all requests and repeats.  It writes\n"
        "the injected bandwidth per node in bytes/s as JSON (schema\n"
        "netvar-compressionb, version 1).  Nodes are shared-memory domains;\n"
        "NETVAR_PROBE_FAKE_NODES=K splits the ranks into K blocks for tests.\n\n"
        "Options:\n"
        "  --partners P      partners per rank, 1 .. nodes-1 (default 1)\n"
        "  --messages M      messages per partner per round, 1..1000 (default 1)\n"
        "  --msg-bytes N     message size in bytes (default 40960, the paper's 40 KB)\n"
        "  --sleep-us B      sleep in microseconds (default 0)\n"
        "  --cycles C        sleep given in CPU cycles, converted with --ghz\n"
        "  --ghz G           clock rate for --cycles in GHz (default 2.6, the paper's Cab)\n"
        "  --sleep-at WHERE  'partner' (Figure 4, default) or 'round' (once per round)\n"
        "  --duration-s S    stop after S seconds (> 0); default: until SIGTERM, SIGINT\n"
        "                    or SIGUSR1 (the one srun forwards to its tasks)\n"
        "  --output FILE     write the JSON there atomically (default: stdout; a device\n"
        "                    or FIFO such as /dev/null is written in place)\n"
        "  --announce        once every rank is set up (and can be stopped by a\n"
        "                    signal), rank 0 prints 'netvar: compressionb: started: R ranks on\n"
        "                    N nodes' on stderr; netvar's workflows wait for it\n"
        "  --busy-wait       wait with MPI_Waitall instead of MPI_Test plus short sleeps\n"
        "  --help            this text\n\n"
        "Exit status: 0 success, 1 output could not be written, 2 bad usage (P not\n"
        "in 1..nodes-1, a duration of 0, ...).\n\n"
        "Example (paper's P=4, M=10, B=2.5e5 cycles):\n"
        "  mpirun -n 36 --map-by ppr:2:node compressionb --partners 4 --messages 10 \\\n"
        "      --cycles 250000 --ghz 2.6 --duration-s 120 --output c.json\n");
}

typedef struct opts {
    long partners, messages, msg_bytes;
    double sleep_us, cycles, ghz, duration_s;
    bool have_sleep, have_cycles, sleep_per_round, busy, announce;
    const char *output;
} opts;

static int parse(int argc, char **argv, opts *o, char *err, size_t errlen)
{
    static const struct option lo[] = {
        {"partners", required_argument, 0, 'p'},
        {"messages", required_argument, 0, 'M'},
        {"msg-bytes", required_argument, 0, 'n'},
        {"sleep-us", required_argument, 0, 's'},
        {"cycles", required_argument, 0, 'c'},
        {"ghz", required_argument, 0, 'g'},
        {"sleep-at", required_argument, 0, 'a'},
        {"duration-s", required_argument, 0, 'd'},
        {"output", required_argument, 0, 'o'},
        {"busy-wait", no_argument, 0, 'b'},
        {"help", no_argument, 0, 'h'},
        {"announce", no_argument, 0, 'A'},
        {0, 0, 0, 0},
    };
    *o = (opts){.partners = 1, .messages = 1, .msg_bytes = 40960, .ghz = 2.6};
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        int bad = 0;
        switch (c) {
        case 'p':
            bad = nv_probe_parse_long("--partners", optarg, 1, 1000000, &o->partners, err, errlen);
            break;
        case 'M':
            bad = nv_probe_parse_long("--messages", optarg, 1, 1000, &o->messages, err, errlen);
            break;
        case 'n':
            bad = nv_probe_parse_long("--msg-bytes", optarg, 1, 64L << 20, &o->msg_bytes, err,
                                      errlen);
            break;
        case 's':
            bad = nv_probe_parse_double("--sleep-us", optarg, 0, 60e6, &o->sleep_us, err, errlen);
            o->have_sleep = true;
            break;
        case 'c':
            bad = nv_probe_parse_double("--cycles", optarg, 0, 1e12, &o->cycles, err, errlen);
            o->have_cycles = true;
            break;
        case 'g':
            bad = nv_probe_parse_double("--ghz", optarg, 0.01, 100, &o->ghz, err, errlen);
            break;
        case 'a':
            if (!strcmp(optarg, "round"))
                o->sleep_per_round = true;
            else if (strcmp(optarg, "partner")) {
                bad =
                    nv_err(err, errlen, "--sleep-at '%.20s' must be 'partner' or 'round'", optarg);
            }
            break;
        case 'd':
            bad = nv_probe_parse_double("--duration-s", optarg, -1e300, 1e7, &o->duration_s, err,
                                        errlen);
            if (!bad && !(o->duration_s > 0)) {
                bad = nv_err(err, errlen,
                             "--duration-s %s: the duration must be more than 0 "
                             "seconds (omit it to run until a signal)",
                             optarg);
            }
            break;
        case 'o': o->output = optarg; break;
        case 'b': o->busy = true; break;
        case 'A': o->announce = true; break;
        case 'h': return 1;
        default: bad = nv_err(err, errlen, "unknown option '%.40s' (see --help)", argv[optind - 1]);
        }
        if (bad)
            return -1;
    }
    if (optind < argc)
        return nv_err(err, errlen, "unexpected argument '%.40s' (see --help)", argv[optind]);
    if (o->have_sleep && o->have_cycles)
        return nv_err(err, errlen, "give either --sleep-us or --cycles, not both");
    if (o->have_cycles)
        o->sleep_us = o->cycles / (o->ghz * 1e3);
    uint64_t inflight = (uint64_t)o->partners * (uint64_t)o->messages * (uint64_t)o->msg_bytes;
    if (inflight > MAX_INFLIGHT_BYTES)
        return nv_err(err, errlen,
                      "partners x messages x msg-bytes = %llu bytes of receive "
                      "buffers per rank; the limit is %llu",
                      (unsigned long long)inflight, (unsigned long long)MAX_INFLIGHT_BYTES);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    nv_probe_setup_process();
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    opts o;
    char err[512] = "";
    int pr = parse(argc, argv, &o, err, sizeof err);
    nv_probe_place pl;
    if (pr == 0 && nv_probe_place_discover(&pl, err, sizeof err) != 0)
        pr = -1;
    else if (pr == 0 && (o.partners < 1 || o.partners > pl.nnodes - 1)) {
        nv_err(err, sizeof err,
               "--partners %ld: P must be from 1 to nodes-1 = %d (%d node(s) "
               "found via %s); nothing sent",
               o.partners, pl.nnodes - 1, pl.nnodes, pl.source);
        nv_probe_place_free(&pl);
        pr = -1;
    }
    if (pr != 0) {
        if (rank == 0) {
            if (pr > 0)
                usage(stdout);
            else
                fprintf(stderr, "netvar: %s: %s\n", PROG, err);
        }
        MPI_Finalize();
        return pr > 0 ? 0 : 2;
    }

    int P = (int)o.partners, M = (int)o.messages;
    size_t nreq = (size_t)P * (size_t)M * 2;
    MPI_Request *reqs = malloc(nreq * sizeof *reqs);
    char *sbuf = calloc(1, (size_t)o.msg_bytes);
    char *rbuf = malloc((size_t)P * (size_t)M * (size_t)o.msg_bytes);
    int *to = malloc(sizeof(int) * (size_t)P), *from = malloc(sizeof(int) * (size_t)P);
    if (!reqs || !sbuf || !rbuf || !to || !from) {
        fprintf(stderr, "netvar: %s: rank %d: out of memory for buffers\n", PROG, rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int k = 1; k <= P; k++) {
        /* a missing partner (uneven nodes) is skipped on both ends alike */
        to[k - 1] = nv_probe_rank_at(&pl, (pl.node - k + pl.nnodes) % pl.nnodes, pl.local);
        from[k - 1] = nv_probe_rank_at(&pl, (pl.node + k) % pl.nnodes, pl.local);
    }

    nv_probe_vote vote = {0};
    uint64_t rounds = 0, bytes_sent = 0;
    uint64_t sleep_ns_each = (uint64_t)(o.sleep_us * 1e3);
    MPI_Barrier(MPI_COMM_WORLD);
    if (o.announce && rank == 0) {
        fprintf(stderr, "netvar: %s: started: %d ranks on %d nodes\n", PROG, size, pl.nnodes);
        fflush(stderr);
    }
    uint64_t t_start = nv_probe_now_ns();
    uint64_t deadline = o.duration_s > 0 ? t_start + (uint64_t)(o.duration_s * 1e9) : 0;
    bool sig_seen = false;
    for (;;) {
        size_t nr = 0;
        uint64_t round_bytes = 0;
        for (int k = 0; k < P; k++) {
            for (int m = 0; m < M; m++) {
                if (from[k] >= 0)
                    MPI_Irecv(rbuf + ((size_t)k * (size_t)M + (size_t)m) * (size_t)o.msg_bytes,
                              (int)o.msg_bytes, MPI_BYTE, from[k], 7, MPI_COMM_WORLD, &reqs[nr++]);
                if (to[k] >= 0) {
                    MPI_Isend(sbuf, (int)o.msg_bytes, MPI_BYTE, to[k], 7, MPI_COMM_WORLD,
                              &reqs[nr++]);
                    round_bytes += (uint64_t)o.msg_bytes;
                }
            }
            if (!o.sleep_per_round && sleep_ns_each)
                nv_probe_sleep_us(sleep_ns_each / 1000 ? sleep_ns_each / 1000 : 1);
        }
        if (o.sleep_per_round && sleep_ns_each)
            nv_probe_sleep_us(sleep_ns_each / 1000 ? sleep_ns_each / 1000 : 1);
        nv_probe_wait((int)nr, reqs, o.busy, NULL);
        bytes_sent += round_bytes;
        rounds++;
        /* the vote started after round i is read after round i+1, so its
         * collective overlaps a round instead of stalling every rank */
        if (vote.in_flight && nv_probe_vote_finish(&vote, o.busy))
            break;
        sig_seen = sig_seen || nv_probe_signalled;
        nv_probe_vote_start(&vote, sig_seen || (deadline && nv_probe_now_ns() >= deadline));
    }
    uint64_t t_end = nv_probe_now_ns();
    double elapsed = (double)(t_end - t_start) / 1e9;
    double rate = elapsed > 0 ? (double)bytes_sent / elapsed : 0;

    /* per node: the sum of its ranks' injection rates */
    double *rates = rank == 0 ? calloc((size_t)size, sizeof(double)) : NULL;
    MPI_Gather(&rate, 1, MPI_DOUBLE, rates, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    unsigned long long mine[2] = {bytes_sent, rounds}, tot[2] = {0, 0};
    MPI_Reduce(mine, tot, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    int sig_local = sig_seen || nv_probe_signalled, sig_any = 0;
    MPI_Reduce(&sig_local, &sig_any, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);

    int rc = 0;
    if (rank == 0) {
        nv_compressionb_output out = {
            .partners = P,
            .messages = M,
            .msg_bytes = o.msg_bytes,
            .sleep_us = o.sleep_us,
            .have_cycles = o.have_cycles,
            .cycles = o.cycles,
            .ghz = o.ghz,
            .sleep_per_round = o.sleep_per_round,
            .duration_s = o.duration_s,
            .elapsed_s = elapsed,
            .rounds_per_rank = (int64_t)(tot[1] / (unsigned long long)size),
            .bytes_sent_total = tot[0],
        };
        snprintf(out.stopped_by, sizeof out.stopped_by, "%s", sig_any ? "signal" : "duration");
        snprintf(out.wait_mode, sizeof out.wait_mode, "%s", o.busy ? "busy" : "polite");
        nv_probe_place_output(&pl, &out.placement);
        /* per node: the sum of its ranks' injection rates */
        double *node_rate = calloc((size_t)pl.nnodes, sizeof(double));
        double sum = 0, mn = 0, mx = 0;
        if (node_rate) {
            for (int r = 0; r < size; r++)
                node_rate[pl.rank_node[r]] += rates[r];
            for (int nd = 0; nd < pl.nnodes; nd++) {
                sum += node_rate[nd];
                mn = nd == 0 || node_rate[nd] < mn ? node_rate[nd] : mn;
                mx = nd == 0 || node_rate[nd] > mx ? node_rate[nd] : mx;
            }
            out.per_node_bytes_per_s = node_rate;
            out.n_per_node = (size_t)pl.nnodes;
        }
        out.mean_bytes_per_s = pl.nnodes ? sum / pl.nnodes : 0;
        out.min_bytes_per_s = mn;
        out.max_bytes_per_s = mx;
        json_object *j = nv_compressionb_to_json(&out);
        if (!j)
            fprintf(stderr, "netvar: %s: out of memory for the output; nothing written\n", PROG);
        if (!j || nv_probe_write_json(j, o.output, PROG) != 0)
            rc = 1;
        json_object_put(j);
        free(node_rate);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(rates);
    free(reqs);
    free(sbuf);
    free(rbuf);
    free(to);
    free(from);
    nv_probe_place_free(&pl);
    MPI_Finalize();
    return rc;
}
