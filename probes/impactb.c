/* impactb.c - ImpactB (Queue-theory interference model, Figure 2): the
 * latency of single small messages through the network, sampled politely
 * while other jobs run.
 *
 * Nodes are paired even with odd (node 2k with 2k+1; the last node sits out
 * when the count is odd).  Every local rank pairs with the rank of the same
 * local index on the partner node, as the paper's rank+tasks_per_node does,
 * so with 2 ranks per node both sockets are sampled.  Each round the rank
 * on the even node times one 1 KB ping-pong; one-way latency = RTT / 2.
 * Rounds are separated by gaps of mean --interval-us (100 ms by default,
 * the paper's value) so the probe itself adds next to no load; the gaps are
 * exponential by default (--gaps fixed gives the paper's constant one).  Waiting ranks sleep
 * between MPI_Test calls instead of polling (on few cores a polling rank
 * looks like network interference).  After each round all ranks vote on
 * stopping (duration over, or SIGTERM/SIGINT/SIGUSR1 seen) so they stop together,
 * and rank 0 writes the JSON (schema "netvar-impactb", version 1, written
 * by lib/records/probe_output.h). */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "jitter.h"
#include "nv_err.h"
#include "probe_common.h"

#define PROG "impactb"
#define MAX_SAMPLES 10000000ull
#define EXCHANGE_SPIN_NS 200000ull

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: mpirun [...] impactb [--duration-s S] [--interval-us US] [--msg-bytes N]\n"
            "                            [--output FILE] [--samples] [--announce] [--busy-wait]\n"
            "                            [--gaps exponential|fixed]\n\n"
            "ImpactB measures the one-way latency of small messages between paired\n"
            "nodes (node 2k with node 2k+1, same local rank index), one ping-pong per\n"
            "interval, and writes a JSON summary (schema netvar-impactb, version 1)\n"
            "with count, min/mean/sd/p50/p90/p99/max in microseconds, a histogram on\n"
            "netvar's log-spaced bins, node names and rank placement.\n"
            "Nodes are shared-memory domains (MPI_COMM_TYPE_SHARED); for tests,\n"
            "NETVAR_PROBE_FAKE_NODES=K splits the ranks into K blocks instead.\n\n"
            "Options:\n"
            "  --duration-s S    stop after S seconds (> 0); default: run until\n"
            "                    SIGTERM, SIGINT or SIGUSR1, which also end it cleanly\n"
            "                    (srun forwards SIGUSR1 to its tasks but turns SIGTERM\n"
            "                    into SIGKILL)\n"
            "  --interval-us US  mean sleep between exchanges in microseconds (default 100000)\n"
            "  --gaps KIND       'exponential' (default): gaps drawn from an exponential\n"
            "                    distribution of that mean, bounded to 0.1-8 times it, so\n"
            "                    the probes see the time average of a phased load;\n"
            "                    'fixed': every gap is exactly --interval-us\n"
            "  --msg-bytes N     message size in bytes (default 1024)\n"
            "  --output FILE     write the JSON there atomically (default: stdout; a device\n"
            "                    or FIFO such as /dev/null is written in place)\n"
            "  --announce        once every rank is set up (and can be stopped by a\n"
            "                    signal), rank 0 prints 'netvar: impactb: started: R ranks on\n"
            "                    N nodes' on stderr; netvar's workflows wait for it\n"
            "  --samples         also write every one-way latency sample, in microseconds\n"
            "                    and sorted, as \"samples_us\" (what netvar calibrate and\n"
            "                    netvar impact need); at most 10^7 samples\n"
            "  --busy-wait       wait with MPI_Waitall (Open MPI polls) instead of\n"
            "                    MPI_Test plus short sleeps\n"
            "  --help            this text\n\n"
            "Exit status: 0 success, 1 output could not be written, 2 bad usage\n"
            "(e.g. a duration of 0, or fewer than 2 nodes).\n\n"
            "Example:\n"
            "  mpirun -n 4 --map-by node impactb --duration-s 60 --output idle.json\n");
}

typedef struct opts {
    double duration_s; /* 0: until a signal */
    long interval_us;
    long msg_bytes;
    const char *output;
    bool busy;
    bool samples;
    bool announce;
    bool fixed_gaps; /* --gaps fixed: the paper's constant interval */
} opts;

/* Exponential gaps (Poisson probe arrivals see time averages, so a phased
 * load cannot lock onto the probe).  Both ranks of a pair draw the same
 * sequence from a generator seeded with the pair's identity (jitter.h's,
 * which the counter samplers use too), so the responder still knows when
 * the next ping comes. */
static uint64_t gap_us(const struct opts *o, uint64_t *state)
{
    uint64_t mean = (uint64_t)o->interval_us;
    if (o->fixed_gaps || mean == 0)
        return mean;
    double u = (double)(nv_jitter_next(state) >> 11) * 0x1.0p-53; /* [0, 1) */
    double g = -(double)mean * log1p(-u);
    /* bounded: at least a tenth and at most eight times the mean */
    if (g < mean / 10.0)
        g = mean / 10.0;
    if (g > mean * 8.0)
        g = mean * 8.0;
    return (uint64_t)g;
}

/* 0 ok, 1 help shown, -1 bad usage (err set) */
static int parse(int argc, char **argv, opts *o, char *err, size_t errlen)
{
    static const struct option lo[] = {
        {"duration-s", required_argument, 0, 'd'}, {"interval-us", required_argument, 0, 'i'},
        {"msg-bytes", required_argument, 0, 'm'},  {"output", required_argument, 0, 'o'},
        {"busy-wait", no_argument, 0, 'b'},        {"help", no_argument, 0, 'h'},
        {"samples", no_argument, 0, 's'},          {"announce", no_argument, 0, 'A'},
        {"gaps", required_argument, 0, 'g'},       {0, 0, 0, 0},
    };
    *o = (opts){.interval_us = 100000, .msg_bytes = 1024};
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (c) {
        case 'd':
            if (nv_probe_parse_double("--duration-s", optarg, -1e300, 1e7, &o->duration_s, err,
                                      errlen))
                return -1;
            if (!(o->duration_s > 0))
                return nv_err(err, errlen,
                              "--duration-s %s: the duration must be more than 0 "
                              "seconds (omit it to run until a signal)",
                              optarg);
            break;
        case 'i':
            if (nv_probe_parse_long("--interval-us", optarg, 0, 60000000L, &o->interval_us, err,
                                    errlen))
                return -1;
            break;
        case 'm':
            if (nv_probe_parse_long("--msg-bytes", optarg, 1, 16L << 20, &o->msg_bytes, err,
                                    errlen))
                return -1;
            break;
        case 'o': o->output = optarg; break;
        case 'b': o->busy = true; break;
        case 's': o->samples = true; break;
        case 'A': o->announce = true; break;
        case 'g':
            if (!strcmp(optarg, "fixed"))
                o->fixed_gaps = true;
            else if (strcmp(optarg, "exponential")) {
                snprintf(err, errlen, "--gaps %.40s: not 'exponential' or 'fixed'", optarg);
                return -1;
            }
            break;
        case 'h': return 1;
        default:
            return nv_err(err, errlen, "unknown option '%.40s' (see --help)", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return nv_err(err, errlen, "unexpected argument '%.40s' (see --help)", argv[optind]);
    return 0;
}

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
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
    nv_probe_place pl;
    if (nv_probe_place_discover(&pl, err, sizeof err) != 0) {
        if (rank == 0)
            fprintf(stderr, "netvar: %s: %s\n", PROG, err);
        MPI_Finalize();
        return 2;
    }
    if (pl.nnodes < 2) {
        if (rank == 0)
            fprintf(stderr,
                    "netvar: %s: %d node(s) found (%s); ImpactB needs at least 2 nodes to "
                    "pair; nothing measured\n",
                    PROG, pl.nnodes, pl.source);
        nv_probe_place_free(&pl);
        MPI_Finalize();
        return 2;
    }

    /* my role: initiator on even nodes, responder on odd ones */
    int partner = -1;
    bool initiator = false;
    if (pl.node % 2 == 0 && pl.node + 1 < pl.nnodes) {
        partner = nv_probe_rank_at(&pl, pl.node + 1, pl.local);
        initiator = partner >= 0;
    } else if (pl.node % 2 == 1) {
        partner = nv_probe_rank_at(&pl, pl.node - 1, pl.local);
    }

    char *sbuf = calloc(1, (size_t)o.msg_bytes), *rbuf = calloc(1, (size_t)o.msg_bytes);
    size_t cap = 1024, n = 0;
    uint64_t dropped = 0;
    double *samples = malloc(cap * sizeof *samples);
    if (!sbuf || !rbuf || !samples) {
        fprintf(stderr, "netvar: %s: rank %d: out of memory for %ld-byte buffers\n", PROG, rank,
                o.msg_bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    nv_probe_wait_stats ws = {0};
    nv_probe_vote vote;
    uint64_t exchanges = 0;
    bool by_signal = false;

    MPI_Barrier(MPI_COMM_WORLD);
    if (o.announce && rank == 0) {
        fprintf(stderr, "netvar: %s: started: %d ranks on %d nodes\n", PROG, size, pl.nnodes);
        fflush(stderr);
    }
    double cpu0 = cpu_seconds();
    uint64_t t_start = nv_probe_now_ns();
    uint64_t deadline = o.duration_s > 0 ? t_start + (uint64_t)(o.duration_s * 1e9) : 0;
    /* The responder wakes up a little before the initiator pings and spins
     * briefly, because the stop vote leaves ranks tens of microseconds
     * apart and a ping that lands while the responder sleeps would count
     * the rest of its sleep as latency.  If the ping was already there when
     * it woke, the pong says so, the initiator drops that sample, and the
     * responder wakes earlier from then on.  Both sides spin at most
     * EXCHANGE_SPIN_NS past the expected moment, then wait politely. */
    uint64_t lead_us = 200, late = 0;
    uint64_t lead_max = (uint64_t)o.interval_us / 2 < 5000 ? (uint64_t)o.interval_us / 2 : 5000;
    int pair_node = initiator ? pl.node : pl.node - 1;
    uint64_t gap_state = 0x6e65747661726762ULL ^ ((uint64_t)pair_node << 20) ^ (uint64_t)pl.local;
    for (;;) {
        uint64_t gap = gap_us(&o, &gap_state);
        uint64_t lead = lead_us < gap / 2 ? lead_us : gap / 2;
        nv_probe_sleep_us(gap - (initiator ? 0 : lead));
        MPI_Request rq[2];
        if (initiator) {
            uint64_t t0 = nv_probe_now_ns();
            MPI_Irecv(rbuf, (int)o.msg_bytes, MPI_BYTE, partner, 2, MPI_COMM_WORLD, &rq[0]);
            MPI_Isend(sbuf, (int)o.msg_bytes, MPI_BYTE, partner, 1, MPI_COMM_WORLD, &rq[1]);
            nv_probe_wait_spin(2, rq, o.busy, EXCHANGE_SPIN_NS, NULL, &ws);
            double rtt_us = (double)(nv_probe_now_ns() - t0) / 1e3;
            if (rbuf[0] == 1) {
                late++; /* the responder overslept: not a network latency */
            } else {
                if (n == cap && cap < MAX_SAMPLES) {
                    size_t nc = cap * 2 > MAX_SAMPLES ? MAX_SAMPLES : cap * 2;
                    double *ns = realloc(samples, nc * sizeof *ns);
                    if (ns) {
                        samples = ns;
                        cap = nc;
                    }
                }
                if (n < cap)
                    samples[n++] = rtt_us / 2.0;
                else
                    dropped++;
            }
        } else if (partner >= 0) {
            bool already = false;
            MPI_Irecv(rbuf, (int)o.msg_bytes, MPI_BYTE, partner, 1, MPI_COMM_WORLD, &rq[0]);
            nv_probe_wait_spin(1, rq, o.busy, lead * 1000 + EXCHANGE_SPIN_NS, &already, &ws);
            sbuf[0] = already ? 1 : 0;
            if (already && lead_us * 2 <= lead_max)
                lead_us *= 2;
            MPI_Isend(sbuf, (int)o.msg_bytes, MPI_BYTE, partner, 2, MPI_COMM_WORLD, &rq[1]);
            nv_probe_wait(1, &rq[1], o.busy, &ws);
        }
        exchanges++;
        bool sig = nv_probe_signalled != 0;
        bool want = sig || (deadline && nv_probe_now_ns() >= deadline);
        nv_probe_vote_start(&vote, want);
        if (nv_probe_vote_finish(&vote, o.busy)) {
            by_signal = sig;
            break;
        }
    }
    uint64_t t_end = nv_probe_now_ns();
    double cpu_used = cpu_seconds() - cpu0;

    /* why we stopped, as seen anywhere */
    int sig_local = by_signal || nv_probe_signalled, sig_any = 0;
    MPI_Allreduce(&sig_local, &sig_any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    double cpu_per_ex = exchanges ? cpu_used * 1e6 / (double)exchanges : 0, cpu_sum = 0;
    MPI_Reduce(&cpu_per_ex, &cpu_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    double polls = exchanges ? (double)ws.polls / (double)exchanges : 0, polls_sum = 0;
    MPI_Reduce(&polls, &polls_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    unsigned long long dropped_all = 0, dropped_mine = dropped, late_all = 0, late_mine = late;
    MPI_Reduce(&dropped_mine, &dropped_all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&late_mine, &late_all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);

    /* gather the initiators' samples on rank 0 */
    int mine = (int)n;
    int *counts = rank == 0 ? calloc((size_t)size, sizeof(int)) : NULL;
    int *displs = rank == 0 ? calloc((size_t)size, sizeof(int)) : NULL;
    MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    double *all = NULL;
    size_t total = 0;
    if (rank == 0) {
        for (int r = 0; r < size; r++) {
            displs[r] = (int)total;
            total += (size_t)counts[r];
        }
        all = malloc((total ? total : 1) * sizeof *all);
        if (!all || total > (size_t)INT32_MAX)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Gatherv(samples, mine, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);

    int rc = 0;
    if (rank == 0) {
        nv_impactb_output out = {
            .message_bytes = o.msg_bytes,
            .interval_us = o.interval_us,
            .duration_s = o.duration_s,
            .elapsed_s = (double)(t_end - t_start) / 1e9,
            .exchanges_per_rank = exchanges,
            .samples_dropped = dropped_all,
            .samples_discarded_responder_late = late_all,
            .cpu_us_per_exchange = cpu_sum / size,
            .mpi_tests_per_exchange = polls_sum / size,
            .samples_us = all,
            .n_samples = total,
            .write_samples = o.samples,
        };
        snprintf(out.stopped_by, sizeof out.stopped_by, "%s", sig_any ? "signal" : "duration");
        snprintf(out.wait_mode, sizeof out.wait_mode, "%s", o.busy ? "busy" : "polite");
        snprintf(out.gaps, sizeof out.gaps, "%s", o.fixed_gaps ? "fixed" : "exponential");
        /* the pairs as rank 0 sees the placement: even node with the next one */
        out.pairs = malloc((size_t)size * sizeof *out.pairs);
        for (int r = 0; out.pairs && r < size; r++) {
            int nd = pl.rank_node[r];
            if (nd % 2 == 0 && nd + 1 < pl.nnodes) {
                int q = nv_probe_rank_at(&pl, nd + 1, pl.rank_local[r]);
                if (q >= 0) {
                    out.pairs[out.n_pairs][0] = r;
                    out.pairs[out.n_pairs][1] = q;
                    out.n_pairs++;
                }
            }
        }
        nv_probe_place_output(&pl, &out.placement);
        nv_impactb_summarize(&out); /* sorts all[] */
        json_object *j = out.pairs ? nv_impactb_to_json(&out) : NULL;
        if (!j)
            fprintf(stderr, "netvar: %s: out of memory for the output; nothing written\n", PROG);
        if (!j || nv_probe_write_json(j, o.output, PROG) != 0)
            rc = 1;
        json_object_put(j);
        free(out.pairs);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(all);
    free(counts);
    free(displs);
    free(samples);
    free(sbuf);
    free(rbuf);
    nv_probe_place_free(&pl);
    MPI_Finalize();
    return rc;
}
