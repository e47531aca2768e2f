/* netlab_sample.c - netvar-netlab-sample: samples the network lab's uplink
 * queue (tc -s -j qdisc) and its bridge ports (/sys/class/net statistics)
 * at jittered instants (a mean period; jitter.h) and writes one JSON summary: per uplink end the throughput,
 * the utilization rho = lambda/mu against the shaper rate, the backlog
 * distribution and the stall counter; per port the counter deltas. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "counters.h"
#include "ctr_hostcpu.h"
#include "ctr_netlab.h"
#include "ctr_qdisc.h"
#include "ctr_record.h"
#include "jitter.h"
#include "json_file.h"

#define MAX_DEVS 16 /* a lab of 8 leaves has 16 uplink ends */
#define MAX_SAMPLES 1000000
#define MAX_CGROUPS 64 /* node cgroups read under --cgroup-fd */

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
    stop_signal = sig;
}

static void usage(FILE *out)
{
    fprintf(
        out,
        "Usage: netvar-netlab-sample --qdisc-dev DEV [--qdisc-dev DEV...] [--ports GLOB]\n"
        "                            [--interval-ms MS] [--duration-s S] [--output FILE] [--series]\n"
        "                            [--cgroup-fd FD]\n\n"
        "Samples the queue of each DEV's root qdisc (tc -s -j qdisc show dev DEV:\n"
        "backlog in bytes, qlen in packets, bytes, packets, drops, overlimits) and the\n"
        "statistics of the network ports matching GLOB every MS milliseconds, until S\n"
        "seconds have passed or SIGINT, SIGTERM or SIGUSR1 arrives, then writes JSON\n"
        "(schema netvar-netlab-counters, version 1):\n"
        "  uplink[]   per DEV: shaper rate (bytes/s), throughput (bytes/s, packets/s),\n"
        "             utilization rho = lambda/mu = throughput / rate, backlog (bytes:\n"
        "             mean, p50, p95, max), qlen (packets: mean, max), mean queue wait\n"
        "             (us, backlog / rate), drops and overlimits over the run\n"
        "  delta      the counter deltas of every port (netvar counter record form);\n"
        "             a qdisc is port \"DEV/<kind>\" of kind switch_port whose flits are\n"
        "             bytes_out and whose stalls are overlimits (field stall, unit count)\n"
        "  series     with --series: [t_s, dev index, backlog bytes, qlen, bytes] rows\n"
        "  host       this machine's CPU over the same window, from /proc/stat, in\n"
        "             percent of all CPU time: busy, user, system, softirq and steal\n"
        "             (a virtual machine's CPUs ready to run while the hypervisor ran\n"
        "             something else: every runtime measured then is longer); with\n"
        "             --cgroup-fd, per child cgroup h<i> its CPU quota's periods,\n"
        "             throttled periods and throttled time (ms)\n\n"
        "Options:\n"
        "  --qdisc-dev DEV   device whose root qdisc is sampled (1..%d times)\n"
        "  --ports GLOB      netdev ports to count (fnmatch glob; default: the DEVs only)\n"
        "  --interval-ms MS  mean sampling period in milliseconds, 10..60000 (default\n"
        "                    100); each gap is drawn uniformly from [MS/2, 3 MS/2), so\n"
        "                    that a load whose period is near MS is not read at the same\n"
        "                    phase every time (the backlog is a gauge: fixed reads alias)\n"
        "  --duration-s S    stop after S seconds, 0.05..86400 (default: until a signal)\n"
        "  --output FILE     write there atomically (default: stdout)\n"
        "  --series          include every sample\n"
        "  --cgroup-fd FD    an open descriptor of the lab's CPU cgroup directory (its\n"
        "                    nodes' cgroups h1, h2, ... are read there: `ip netns exec`\n"
        "                    hides /sys/fs/cgroup, so lab/netlab opens it before)\n"
        "  --help            this text\n\n"
        "Exit status: 0 success, 1 a device or port could not be read or the output\n"
        "not written, 2 bad usage.\n\n"
        "Example (what `lab/netlab sample DIR` runs):\n"
        "  netvar-netlab-sample --ports 'nv007[du]*' --qdisc-dev nv007u1 --qdisc-dev nv007u2 \\\n"
        "      --interval-ms 100 --duration-s 10 --output uplink.json\n",
        MAX_DEVS);
}

static void log_stderr(void *arg, const char *line)
{
    (void)arg;
    fprintf(stderr, "%s\n", line);
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double quantile_sorted(const uint64_t *v, size_t n, double q)
{
    if (n == 0)
        return 0;
    double pos = q * (double)(n - 1);
    size_t i = (size_t)pos;
    double frac = pos - (double)i;
    if (i + 1 >= n)
        return (double)v[n - 1];
    return (double)v[i] * (1 - frac) + (double)v[i + 1] * frac;
}

/* a counter that went backwards was reset (qdisc replaced): count from 0 */
static uint64_t increase(uint64_t a, uint64_t b)
{
    return b >= a ? b - a : b;
}

struct dev_track {
    const char *dev;
    nv_qdisc_stats first, last;
    bool have_first;
    uint64_t *backlog; /* one entry per sample */
    double qlen_sum;
    uint64_t qlen_max;
    size_t n;
};

/* netdev snapshot plus one port per sampled qdisc, under one backend name
 * so the common delta code can subtract them. */
static int combined_snapshot(nv_ctr_reader *r, struct dev_track *d, int ndev,
                             const nv_qdisc_stats *now, nv_ctr_snapshot *s, char *err,
                             size_t errlen)
{
    memset(s, 0, sizeof *s);
    if (r && nv_ctr_snapshot_take(r, s, err, errlen) < 0)
        return -1;
    snprintf(s->backend, sizeof s->backend, "netdev+qdisc");
    s->t_ns = now_ns();
    for (int i = 0; i < ndev && s->nports < NV_CTR_MAX_PORTS; i++)
        nv_qdisc_to_port(&now[i], &s->port[s->nports++]);
    (void)d;
    return 0;
}

/* the host's CPU over the window: /proc/stat and the lab's node cgroups */
struct cg_track {
    char name[16];
    nv_cgcpu_stat a, b;
    bool ok;
};

struct host_track {
    nv_hostcpu_stat a, b;
    bool ok;
    char err[256];
    int ncg;
    struct cg_track cg[MAX_CGROUPS];
};

static int cmp_cg(const void *x, const void *y)
{
    const struct cg_track *a = x, *b = y;
    long na = atol(a->name + 1), nb = atol(b->name + 1);
    return na < nb ? -1 : na > nb;
}

/* the node cgroups h<digits> under fd, sorted by number */
static int list_node_cgroups(int fd, struct cg_track *cg, int max)
{
    int d = dup(fd), n = 0;
    DIR *dir = d >= 0 ? fdopendir(d) : NULL;
    if (!dir) {
        fprintf(
            stderr,
            "netvar: netlab-sample: --cgroup-fd %d: cannot list it: %s; no node's throttling is recorded\n",
            fd, strerror(errno));
        if (d >= 0)
            close(d);
        return 0;
    }
    rewinddir(dir);
    struct dirent *e;
    while ((e = readdir(dir)) && n < max) {
        size_t len = strlen(e->d_name);
        if ((e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) || e->d_name[0] != 'h' || len < 2 ||
            len >= sizeof cg->name || strspn(e->d_name + 1, "0123456789") != len - 1)
            continue;
        memset(&cg[n], 0, sizeof cg[n]);
        memcpy(cg[n].name, e->d_name, len + 1);
        n++;
    }
    closedir(dir);
    qsort(cg, (size_t)n, sizeof *cg, cmp_cg);
    return n;
}

static void host_begin(struct host_track *h, int cgfd)
{
    h->ok = nv_hostcpu_read_stat(NULL, &h->a, h->err, sizeof h->err) == 0;
    if (!h->ok)
        fprintf(stderr, "netvar: netlab-sample: %s; the host's CPU is not recorded\n", h->err);
    h->ncg = cgfd >= 0 ? list_node_cgroups(cgfd, h->cg, MAX_CGROUPS) : 0;
    for (int i = 0; i < h->ncg; i++) {
        char err[256];
        h->cg[i].ok = nv_cgcpu_read_at(cgfd, h->cg[i].name, &h->cg[i].a, err, sizeof err) == 0;
        if (!h->cg[i].ok)
            fprintf(stderr,
                    "netvar: netlab-sample: cgroup %s: %s; its throttling is not recorded\n",
                    h->cg[i].name, err);
    }
}

static json_object *host_end(struct host_track *h, int cgfd)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "source", json_object_new_string("/proc/stat"));
    nv_hostcpu_pct pct;
    if (h->ok && nv_hostcpu_read_stat(NULL, &h->b, h->err, sizeof h->err) != 0) {
        fprintf(stderr, "netvar: netlab-sample: %s; the host's CPU is not recorded\n", h->err);
        h->ok = false;
    }
    if (h->ok && nv_hostcpu_delta(&h->a, &h->b, &pct) != 0) {
        snprintf(h->err, sizeof h->err, "no CPU tick passed in the window");
        h->ok = false;
    }
    if (!h->ok) {
        json_object_object_add(o, "error", json_object_new_string(h->err));
    } else {
        json_object *c = json_object_new_object();
        json_object_object_add(c, "unit",
                               json_object_new_string("percent of all CPU time in the window"));
        json_object_object_add(c, "busy", json_object_new_double(pct.busy));
        json_object_object_add(c, "user", json_object_new_double(pct.user));
        json_object_object_add(c, "system", json_object_new_double(pct.system));
        json_object_object_add(c, "irq", json_object_new_double(pct.irq));
        json_object_object_add(c, "softirq", json_object_new_double(pct.softirq));
        json_object_object_add(c, "steal",
                               h->b.have_steal ? json_object_new_double(pct.steal) : NULL);
        json_object_object_add(c, "iowait", json_object_new_double(pct.iowait));
        json_object_object_add(c, "idle", json_object_new_double(pct.idle));
        json_object_object_add(o, "cpu_pct", c);
    }
    json_object_object_add(
        o, "steal_meaning",
        json_object_new_string("time this machine's CPUs were ready to run while the hypervisor "
                               "ran something else"));
    if (h->ncg > 0) {
        json_object *arr = json_object_new_array();
        for (int i = 0; i < h->ncg; i++) {
            struct cg_track *t = &h->cg[i];
            char err[256];
            if (t->ok && nv_cgcpu_read_at(cgfd, t->name, &t->b, err, sizeof err) != 0) {
                fprintf(stderr,
                        "netvar: netlab-sample: cgroup %s: %s; its throttling is not recorded\n",
                        t->name, err);
                t->ok = false;
            }
            if (!t->ok)
                continue;
            json_object *g = json_object_new_object();
            json_object_object_add(g, "cgroup", json_object_new_string(t->name));
            json_object_object_add(g, "periods",
                                   json_object_new_uint64(increase(t->a.periods, t->b.periods)));
            json_object_object_add(
                g, "throttled_periods",
                json_object_new_uint64(increase(t->a.throttled_periods, t->b.throttled_periods)));
            json_object_object_add(
                g, "throttled_ms",
                json_object_new_double((double)increase(t->a.throttled_us, t->b.throttled_us) /
                                       1e3));
            json_object_array_add(arr, g);
        }
        json_object_object_add(o, "cgroups", arr);
    }
    return o;
}

int main(int argc, char **argv)
{
    static const struct option lo[] = {
        {"qdisc-dev", required_argument, 0, 'q'},
        {"ports", required_argument, 0, 'p'},
        {"interval-ms", required_argument, 0, 'i'},
        {"duration-s", required_argument, 0, 'd'},
        {"output", required_argument, 0, 'o'},
        {"series", no_argument, 0, 's'},
        {"cgroup-fd", required_argument, 0, 'g'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    const char *devs[MAX_DEVS], *ports = NULL, *output = NULL;
    int ndev = 0, c, cgfd = -1;
    double interval_ms = 100, duration_s = 0;
    bool series = false;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        char *end = NULL;
        switch (c) {
        case 'q':
            if (ndev >= MAX_DEVS) {
                fprintf(stderr, "netvar: netlab-sample: more than %d --qdisc-dev given\n",
                        MAX_DEVS);
                return 2;
            }
            devs[ndev++] = optarg;
            break;
        case 'p': ports = optarg; break;
        case 'o': output = optarg; break;
        case 's': series = true; break;
        case 'i':
            errno = 0;
            interval_ms = strtod(optarg, &end);
            if (errno || !end || *end || !(interval_ms >= 10 && interval_ms <= 60000)) {
                fprintf(stderr,
                        "netvar: netlab-sample: --interval-ms '%.30s' must be 10..60000 ms\n",
                        optarg);
                return 2;
            }
            break;
        case 'd':
            errno = 0;
            duration_s = strtod(optarg, &end);
            if (errno || !end || *end || !(duration_s >= 0.05 && duration_s <= 86400)) {
                fprintf(stderr,
                        "netvar: netlab-sample: --duration-s '%.30s' must be 0.05..86400 s\n",
                        optarg);
                return 2;
            }
            break;
        case 'g': {
            errno = 0;
            long v = strtol(optarg, &end, 10);
            struct stat st;
            if (errno || !end || *end || v < 3 || v > 1023 || fstat((int)v, &st) != 0 ||
                !S_ISDIR(st.st_mode)) {
                fprintf(
                    stderr,
                    "netvar: netlab-sample: --cgroup-fd '%.30s' is not an open directory descriptor (3..1023)\n",
                    optarg);
                return 2;
            }
            cgfd = (int)v;
            break;
        }
        case 'h': usage(stdout); return 0;
        default:
            fprintf(stderr, "netvar: netlab-sample: unknown option '%.40s'; see --help\n",
                    argv[optind - 1]);
            return 2;
        }
    }
    if (optind < argc || ndev == 0) {
        fprintf(stderr, "netvar: netlab-sample: %s; see --help\n",
                ndev == 0 ? "at least one --qdisc-dev is needed" : "unexpected argument");
        return 2;
    }

    char err[512] = "";
    nv_ctr_reader *r = NULL;
    if (ports) {
        nv_ctr_config cfg = {.backend = "netdev", .iface_glob = ports, .log = log_stderr};
        r = nv_ctr_open(&cfg, err, sizeof err);
        if (!r) {
            fprintf(stderr, "netvar: netlab-sample: %s\n", err);
            return 1;
        }
    }
    struct dev_track *d = calloc((size_t)ndev, sizeof *d);
    nv_qdisc_stats *now = calloc((size_t)ndev, sizeof *now);
    nv_ctr_snapshot *s0 = malloc(sizeof *s0), *s1 = malloc(sizeof *s1);
    nv_ctr_delta *delta = malloc(sizeof *delta);
    struct host_track *host = calloc(1, sizeof *host);
    size_t cap = 4096;
    json_object *rows = series ? json_object_new_array() : NULL;
    int rc = 1;
    if (!d || !now || !s0 || !s1 || !delta || !host) {
        fprintf(stderr, "netvar: netlab-sample: out of memory\n");
        goto out;
    }
    for (int i = 0; i < ndev; i++) {
        d[i].dev = devs[i];
        d[i].backlog = malloc(cap * sizeof *d[i].backlog);
        if (!d[i].backlog) {
            fprintf(stderr, "netvar: netlab-sample: out of memory\n");
            goto out;
        }
    }
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGUSR1, &sa, NULL);

    uint64_t t0 = now_ns(), next = t0, period = (uint64_t)(interval_ms * 1e6);
    uint64_t jitter = t0 ^ ((uint64_t)getpid() << 32);
    size_t nsamples = 0;
    bool first = true;
    for (;;) {
        bool last = stop_signal ||
                    (duration_s > 0 && (double)(now_ns() - t0) / 1e9 >= duration_s) ||
                    nsamples + 1 >= MAX_SAMPLES;
        for (int i = 0; i < ndev; i++) {
            nv_qdisc_stats q[NV_QDISC_MAX];
            int n = nv_qdisc_read(NULL, d[i].dev, q, NV_QDISC_MAX, err, sizeof err);
            const nv_qdisc_stats *root = n > 0 ? nv_qdisc_root(q, n) : NULL;
            if (!root) {
                fprintf(stderr, "netvar: netlab-sample: %s\n", n < 0 ? err : "no root qdisc");
                goto out;
            }
            now[i] = *root;
            if (!d[i].have_first) {
                d[i].first = *root;
                d[i].have_first = true;
            }
            d[i].last = *root;
            if (d[i].n >= cap) {
                /* all tracks grow together; cap bounds them by MAX_SAMPLES */
                size_t ncap = cap * 2 > MAX_SAMPLES ? MAX_SAMPLES : cap * 2;
                for (int j = 0; j < ndev; j++) {
                    uint64_t *nb = realloc(d[j].backlog, ncap * sizeof *nb);
                    if (!nb) {
                        fprintf(stderr, "netvar: netlab-sample: out of memory after %zu samples\n",
                                nsamples);
                        goto out;
                    }
                    d[j].backlog = nb;
                }
                cap = ncap;
            }
            d[i].backlog[d[i].n++] = root->backlog_bytes;
            d[i].qlen_sum += (double)root->qlen;
            if (root->qlen > d[i].qlen_max)
                d[i].qlen_max = root->qlen;
            if (rows) {
                json_object *row = json_object_new_array();
                json_object_array_add(row, json_object_new_double((double)(now_ns() - t0) / 1e9));
                json_object_array_add(row, json_object_new_int(i));
                json_object_array_add(row, json_object_new_uint64(root->backlog_bytes));
                json_object_array_add(row, json_object_new_uint64(root->qlen));
                json_object_array_add(row, json_object_new_uint64(root->bytes));
                json_object_array_add(rows, row);
            }
        }
        nsamples++;
        if (first) {
            if (combined_snapshot(r, d, ndev, now, s0, err, sizeof err) != 0) {
                fprintf(stderr, "netvar: netlab-sample: %s\n", err);
                goto out;
            }
            host_begin(host, cgfd);
            first = false;
        }
        if (last)
            break;
        next += nv_jitter_gap_ns(&jitter, period);
        uint64_t t = now_ns();
        if (next > t) {
            uint64_t wait = next - t;
            if (duration_s > 0) { /* wake up for the final sample on time */
                uint64_t end = t0 + (uint64_t)(duration_s * 1e9);
                if (end > t && end - t < wait)
                    wait = end - t;
            }
            struct timespec ts = {.tv_sec = (time_t)(wait / 1000000000ull),
                                  .tv_nsec = (long)(wait % 1000000000ull)};
            nanosleep(&ts, NULL); /* a signal cuts it short: the next pass is the last */
        } else {
            next = t; /* fell behind (tc is slow): do not try to catch up */
        }
    }
    if (combined_snapshot(r, d, ndev, now, s1, err, sizeof err) != 0 ||
        nv_ctr_delta_compute(s0, s1, delta, err, sizeof err) != 0) {
        fprintf(stderr, "netvar: netlab-sample: %s\n", err);
        goto out;
    }
    double elapsed = (double)(s1->t_ns - s0->t_ns) / 1e9;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "schema", json_object_new_string(NV_NETLAB_COUNTERS_SCHEMA));
    json_object_object_add(o, "version", json_object_new_int(NV_NETLAB_COUNTERS_VERSION));
    json_object_object_add(o, "interval_ms", json_object_new_double(interval_ms));
    json_object_object_add(o, "gaps",
                           json_object_new_string("uniform in [interval/2, 3 interval/2)"));
    json_object_object_add(o, "elapsed_s", json_object_new_double(elapsed));
    json_object_object_add(o, "samples", json_object_new_int64((int64_t)nsamples));
    json_object_object_add(o, "stopped_by",
                           json_object_new_string(stop_signal ? "signal" : "duration"));
    json_object *roles = json_object_new_object();
    json_object_object_add(roles, "port_kind", json_object_new_string(NV_QDISC_PORT_KIND));
    json_object_object_add(roles, "flits",
                           json_object_new_string(nv_ctr_field_name(NV_QDISC_FLIT_FIELD)));
    json_object_object_add(roles, "stalls",
                           json_object_new_string(nv_ctr_field_name(NV_QDISC_STALL_FIELD)));
    json_object_object_add(
        roles, "stall_meaning",
        json_object_new_string("tbf overlimits: times the shaper held a packet back (count)"));
    json_object_object_add(o, "field_roles", roles);
    json_object *ups = json_object_new_array();
    for (int i = 0; i < ndev; i++) {
        struct dev_track *t = &d[i];
        json_object *u = json_object_new_object();
        double bytes = t->last.has_bytes && t->first.has_bytes
                           ? (double)increase(t->first.bytes, t->last.bytes)
                           : NAN;
        double pkts = t->last.has_packets && t->first.has_packets
                          ? (double)increase(t->first.packets, t->last.packets)
                          : NAN;
        double rate = (double)t->last.rate_bytes_per_s;
        double bps = elapsed > 0 && isfinite(bytes) ? bytes / elapsed : 0;
        double pps = elapsed > 0 && isfinite(pkts) ? pkts / elapsed : 0;
        qsort(t->backlog, t->n, sizeof *t->backlog, cmp_u64);
        double bsum = 0;
        for (size_t k = 0; k < t->n; k++)
            bsum += (double)t->backlog[k];
        double bmean = t->n ? bsum / (double)t->n : 0;
        json_object_object_add(u, "dev", json_object_new_string(t->dev));
        json_object_object_add(u, "kind", json_object_new_string(t->last.kind));
        json_object_object_add(u, "rate_bytes_per_s", json_object_new_double(rate));
        json_object_object_add(u, "bytes_per_s", json_object_new_double(bps));
        json_object_object_add(u, "packets_per_s", json_object_new_double(pps));
        json_object_object_add(u, "mean_packet_bytes",
                               json_object_new_double(pps > 0 ? bps / pps : 0));
        /* rho = lambda/mu: arrivals served per second over what the shaper can serve */
        json_object_object_add(u, "utilization",
                               rate > 0 ? json_object_new_double(bps / rate) : NULL);
        json_object *bl = json_object_new_object();
        json_object_object_add(bl, "unit", json_object_new_string("bytes"));
        json_object_object_add(bl, "mean", json_object_new_double(bmean));
        json_object_object_add(bl, "p50",
                               json_object_new_double(quantile_sorted(t->backlog, t->n, 0.5)));
        json_object_object_add(bl, "p95",
                               json_object_new_double(quantile_sorted(t->backlog, t->n, 0.95)));
        json_object_object_add(bl, "max",
                               json_object_new_double(t->n ? (double)t->backlog[t->n - 1] : 0));
        json_object_object_add(u, "backlog", bl);
        json_object *ql = json_object_new_object();
        json_object_object_add(ql, "unit", json_object_new_string("packets"));
        json_object_object_add(ql, "mean",
                               json_object_new_double(t->n ? t->qlen_sum / (double)t->n : 0));
        json_object_object_add(ql, "max", json_object_new_double((double)t->qlen_max));
        json_object_object_add(u, "qlen", ql);
        json_object_object_add(u, "queue_wait_us_mean",
                               json_object_new_double(rate > 0 ? bmean / rate * 1e6 : 0));
        json_object_object_add(u, "drops",
                               json_object_new_uint64(increase(t->first.drops, t->last.drops)));
        json_object_object_add(
            u, "overlimits",
            json_object_new_uint64(increase(t->first.overlimits, t->last.overlimits)));
        json_object_object_add(
            u, "overlimits_per_s",
            json_object_new_double(
                elapsed > 0 ? (double)increase(t->first.overlimits, t->last.overlimits) / elapsed
                            : 0));
        json_object_array_add(ups, u);
    }
    json_object_object_add(o, "uplink", ups);
    json_object_object_add(o, "delta", nv_ctr_delta_to_json(delta));
    json_object_object_add(o, "host", host_end(host, cgfd));
    if (rows) {
        json_object_object_add(o, "series", rows);
        rows = NULL;
    }
    if (!output || !strcmp(output, "-")) {
        const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
                                                                 JSON_C_TO_STRING_NOSLASHESCAPE);
        if (printf("%s\n", text) < 0 || fflush(stdout) != 0)
            fprintf(stderr, "netvar: netlab-sample: cannot write stdout: %s\n", strerror(errno));
        else
            rc = 0;
    } else if (nv_json_write_file(output, o, 0644, (gid_t)-1, err, sizeof err) != 0) {
        fprintf(stderr, "netvar: netlab-sample: %s\n", err);
    } else {
        rc = 0;
    }
    json_object_put(o);
out:
    json_object_put(rows);
    if (d)
        for (int i = 0; i < ndev; i++)
            free(d[i].backlog);
    free(d);
    free(now);
    free(s0);
    free(s1);
    free(delta);
    free(host);
    nv_ctr_close(r);
    return rc;
}
