/* bottleneck.c - sampling the bottleneck port's utilization (bottleneck.h). */
#include "bottleneck.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctr_line_rate.h"
#include "ctr_qdisc.h"
#include "jitter.h"
#include "nv_err.h"
#include "sort_cmp.h"

const char *nv_bn_kind_name(nv_bn_kind k)
{
    return k == NV_BN_QDISC    ? "qdisc"
           : k == NV_BN_NETDEV ? "netdev"
           : k == NV_BN_CXI    ? "cxi"
           : k == NV_BN_ARIES  ? "aries"
                               : "infiniband";
}

const char *nv_bn_gauge_name(nv_bn_gauge g)
{
    return g == NV_BN_GAUGE_QUEUE_US     ? "queue_us"
           : g == NV_BN_GAUGE_STALL      ? "stall_per_word"
           : g == NV_BN_GAUGE_PAUSE      ? "paused_cycles_per_packet"
           : g == NV_BN_GAUGE_STALL_FLIT ? "stall_per_flit"
                                         : "none";
}

nv_bn_gauge nv_bn_kind_gauge(nv_bn_kind k)
{
    return k == NV_BN_QDISC        ? NV_BN_GAUGE_QUEUE_US
           : k == NV_BN_INFINIBAND ? NV_BN_GAUGE_STALL
           : k == NV_BN_CXI        ? NV_BN_GAUGE_PAUSE
           : k == NV_BN_ARIES      ? NV_BN_GAUGE_STALL_FLIT
                                   : NV_BN_GAUGE_NONE;
}

nv_wait_gauge nv_bn_wait_gauge(nv_bn_gauge g)
{
    return g == NV_BN_GAUGE_STALL        ? NV_WAIT_STALL_PER_WORD
           : g == NV_BN_GAUGE_PAUSE      ? NV_WAIT_PAUSE_PER_PACKET
           : g == NV_BN_GAUGE_STALL_FLIT ? NV_WAIT_STALL_PER_FLIT
                                         : NV_WAIT_QUEUE_US;
}

/* "R_C" with R and C in 0..99 (no sign, no leading zero but "0") */
static int tile_of(const char *p, size_t n, int *row, int *col)
{
    int v[2] = {0, 0}, k = 0;
    size_t digits = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || p[i] == '_') {
            if (!digits || k > 1 || (i < n && k == 1))
                return -1;
            k++;
            digits = 0;
            continue;
        }
        if (p[i] < '0' || p[i] > '9' || (digits == 1 && v[k] == 0) || ++digits > 2)
            return -1;
        v[k] = v[k] * 10 + (p[i] - '0');
    }
    if (k != 2)
        return -1;
    *row = v[0];
    *col = v[1];
    return 0;
}

int nv_bn_aries_events(const char *port, char *buf, size_t cap)
{
    int r, c;
    if (!port || !buf || tile_of(port, strlen(port), &r, &c))
        return -1;
    size_t off = 0;
    for (int vc = 0; vc <= 8; vc++) {
        int n =
            vc < 8 ? snprintf(buf + off, cap - off, "%sAR_RTR_%d_%d_INQ_PRF_INCOMING_FLIT_VC%d",
                              vc ? "," : "", r, c, vc)
                   : snprintf(buf + off, cap - off, ",AR_RTR_%d_%d_INQ_PRF_ROWBUS_STALL_CNT", r, c);
        if (n < 0 || (size_t)n >= cap - off)
            return -1;
        off += (size_t)n;
    }
    return 0;
}

static int port_name_ok(const char *p, size_t n)
{
    if (!n || n >= NV_CTR_NAME_MAX)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-' || c == ':' || c == '/'))
            return 0;
    }
    /* no path tricks: a port name becomes part of a sysfs path */
    return !(n >= 2 && p[0] == '.' && p[1] == '.') && !strstr(p, "/..") && p[0] != '/';
}

int nv_bn_parse(const char *spec, nv_bn_spec *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    const char *colon = spec ? strchr(spec, ':') : NULL;
    if (!colon)
        return nv_err(err, errlen,
                      "--bottleneck: '%.80s' is not KIND:PORT[,PORT...] (KIND qdisc, "
                      "netdev, infiniband, cxi or aries)",
                      spec ? spec : "");
    size_t kl = (size_t)(colon - spec);
    if (kl == 5 && !strncmp(spec, "qdisc", 5))
        out->kind = NV_BN_QDISC;
    else if (kl == 6 && !strncmp(spec, "netdev", 6))
        out->kind = NV_BN_NETDEV;
    else if (kl == 10 && !strncmp(spec, "infiniband", 10))
        out->kind = NV_BN_INFINIBAND;
    else if (kl == 3 && !strncmp(spec, "cxi", 3))
        out->kind = NV_BN_CXI;
    else if (kl == 5 && !strncmp(spec, "aries", 5))
        out->kind = NV_BN_ARIES;
    else
        return nv_err(err, errlen,
                      "--bottleneck: kind '%.*s' is not qdisc, netdev, infiniband, cxi or aries",
                      (int)(kl < 32 ? kl : 32), spec);
    const char *p = colon + 1;
    while (1) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (!port_name_ok(p, n))
            return nv_err(err, errlen,
                          "--bottleneck: port '%.*s' is not a port name (1-%d of "
                          "A-Z a-z 0-9 _ . - : /)",
                          (int)(n < 64 ? n : 64), p, NV_CTR_NAME_MAX - 1);
        if (out->kind == NV_BN_QDISC && n > 15)
            return nv_err(err, errlen, "--bottleneck: '%.*s' is longer than an interface name",
                          (int)n, p);
        int row, col;
        if (out->kind == NV_BN_ARIES && tile_of(p, n, &row, &col))
            return nv_err(err, errlen,
                          "--bottleneck: aries port '%.*s' is not a network tile "
                          "ROW_COL (0-99 each, e.g. 3_5)",
                          (int)(n < 64 ? n : 64), p);
        if (out->nports == NV_BN_MAX_PORTS)
            return nv_err(err, errlen, "--bottleneck: more than %d ports", NV_BN_MAX_PORTS);
        memcpy(out->port[out->nports], p, n);
        out->port[out->nports++][n] = 0;
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

size_t nv_bn_values_stats(double *v, size_t n, double *mean, double *profile, size_t nprof,
                          size_t *n_profile)
{
    *mean = NAN;
    *n_profile = 0;
    if (!n)
        return 0;
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    *mean = sum / (double)n;
    if (!profile || !nprof)
        return n;
    qsort(v, n, sizeof *v, nv_cmp_double);
    size_t m = nprof < n ? nprof : n;
    for (size_t q = 0; q < m; q++) {
        size_t at = (size_t)(((double)q + 0.5) / (double)m * (double)n);
        profile[q] = v[at < n ? at : n - 1];
    }
    *n_profile = m;
    return n;
}

static inline double step_value(const nv_bn_step *s, nv_bn_value which)
{
    return which == NV_BN_WAIT ? s->wait : s->u;
}

static inline int step_in(const nv_bn_step *s, nv_bn_value which, uint64_t t0, uint64_t t1)
{
    return s->t_ns >= t0 && s->t_ns <= t1 && !isnan(step_value(s, which));
}

long nv_bn_joint_stats(const nv_bn_step *st, size_t n_st, uint64_t t0, uint64_t t1, uint64_t win_ns,
                       nv_joint_window **v, size_t *n)
{
    if (!win_ns)
        return 0;
    /* the first step in range, and how many windows the range spans */
    size_t first = n_st;
    uint64_t last_t = 0;
    for (size_t i = 0; i < n_st; i++)
        if (step_in(&st[i], NV_BN_U, t0, t1) && step_in(&st[i], NV_BN_WAIT, t0, t1)) {
            if (first == n_st)
                first = i;
            last_t = st[i].t_ns;
        }
    if (first == n_st)
        return 0;
    uint64_t start = st[first].t_ns;
    size_t nwin = (size_t)((last_t - start) / win_ns) + 1;
    double *su = calloc(nwin, sizeof *su), *sw = calloc(nwin, sizeof *sw);
    size_t *cnt = calloc(nwin, sizeof *cnt);
    if (!su || !sw || !cnt) {
        free(su);
        free(sw);
        free(cnt);
        return -1;
    }
    size_t most = 0, kept = 0;
    for (size_t i = first; i < n_st; i++) {
        if (!step_in(&st[i], NV_BN_U, t0, t1) || !step_in(&st[i], NV_BN_WAIT, t0, t1))
            continue;
        size_t w = (size_t)((st[i].t_ns - start) / win_ns);
        su[w] += st[i].u;
        sw[w] += st[i].wait;
        if (++cnt[w] > most)
            most = cnt[w];
    }
    for (size_t w = 0; w < nwin; w++)
        kept += cnt[w] && 2 * cnt[w] >= most;
    nv_joint_window *g = kept ? realloc(*v, (*n + kept) * sizeof *g) : *v;
    if (kept && !g) {
        free(su);
        free(sw);
        free(cnt);
        return -1;
    }
    *v = g;
    for (size_t w = 0; w < nwin; w++)
        if (cnt[w] && 2 * cnt[w] >= most)
            g[(*n)++] =
                (nv_joint_window){(float)(su[w] / (double)cnt[w]), (float)(sw[w] / (double)cnt[w])};
    free(su);
    free(sw);
    free(cnt);
    return (long)kept;
}

size_t nv_bn_window_stats(const nv_bn_step *s, size_t n, nv_bn_value which, uint64_t t0,
                          uint64_t t1, double *mean, double *profile, size_t nprof,
                          size_t *n_profile)
{
    *mean = NAN;
    *n_profile = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += step_in(&s[i], which, t0, t1);
    if (!k)
        return 0;
    double *v = malloc(k * sizeof *v);
    if (!v) { /* the mean alone, without the profile */
        double sum = 0;
        for (size_t i = 0; i < n; i++)
            if (step_in(&s[i], which, t0, t1))
                sum += step_value(&s[i], which);
        *mean = sum / (double)k;
        return k;
    }
    size_t j = 0;
    for (size_t i = 0; i < n; i++)
        if (step_in(&s[i], which, t0, t1))
            v[j++] = step_value(&s[i], which);
    nv_bn_values_stats(v, k, mean, profile, nprof, n_profile);
    free(v);
    return k;
}

double nv_bn_port_mean(const nv_bn_step *s, size_t n, int port, uint64_t t0, uint64_t t1)
{
    if (port < 0 || port >= NV_BN_MAX_PORTS)
        return NAN;
    double sum = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i].t_ns >= t0 && s[i].t_ns <= t1) {
            sum += s[i].port_u[port];
            k++;
        }
    return k ? sum / (double)k : NAN;
}

/* ------------------------------------------------------------ sampling */

struct nv_bn_sampler {
    nv_bn_spec spec;
    double rate[NV_BN_MAX_PORTS];
    nv_ctr_reader *rd[NV_BN_MAX_PORTS];
    uint64_t last_bytes[NV_BN_MAX_PORTS][2];
    uint64_t last_stall[NV_BN_MAX_PORTS]; /* infiniband: port_xmit_wait ticks; cxi: paused cycles */
    uint64_t last_pkts[NV_BN_MAX_PORTS];  /* cxi: packets sent */
    int stall_ok[NV_BN_MAX_PORTS];        /* ... and whether the last read had it */
    uint64_t last_t;
    long interval_ns;
    uint64_t jitter; /* state of the gaps' generator (jitter.h) */
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop, running;
    nv_bn_step *steps;
    size_t n, cap, errors;
};

uint64_t nv_bn_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* bytes sent [0] and received [1] by port i, its queue (qdisc) and its
 * stall ticks (infiniband) or paused cycles and packets sent (cxi);
 * *stall_ok 0 when the counter is absent or stuck at its maximum; -1 when
 * unreadable */
static int read_port(nv_bn_sampler *s, int i, uint64_t b[2], double *backlog, uint64_t *stall,
                     uint64_t *pkts, int *stall_ok, double *rate, char *err, size_t errlen)
{
    *backlog = NAN;
    *stall_ok = 0;
    if (s->spec.kind == NV_BN_QDISC) {
        nv_qdisc_stats q[NV_QDISC_MAX];
        int n = nv_qdisc_read(NULL, s->spec.port[i], q, NV_QDISC_MAX, err, errlen);
        const nv_qdisc_stats *r = n > 0 ? nv_qdisc_root(q, n) : NULL;
        if (!r || !r->has_bytes) {
            if (n >= 0)
                nv_err(err, errlen, "qdisc on %s: no root qdisc with a byte counter",
                       s->spec.port[i]);
            return -1;
        }
        b[0] = r->bytes;
        b[1] = 0; /* a qdisc sends in one direction: the other end is the other port */
        if (r->has_backlog)
            *backlog = (double)r->backlog_bytes;
        if (rate)
            *rate = r->rate_bytes_per_s ? (double)r->rate_bytes_per_s : NAN;
        return 0;
    }
    if (!s->rd[i])
        return nv_err(err, errlen, "%s: the counters could not be opened", s->spec.port[i]);
    nv_ctr_snapshot *snap = malloc(sizeof *snap);
    if (!snap)
        return nv_err(err, errlen, "out of memory");
    int rc = nv_ctr_snapshot_take(s->rd[i], snap, err, errlen);
    if (rc == 0 && s->spec.kind == NV_BN_ARIES && snap->nports >= 1 &&
        snap->port[0].f[NV_CTR_BYTES_IN].valid) {
        /* a tile counts the flits it takes in: one direction, in flits */
        const nv_ctr_value *st = &snap->port[0].f[NV_CTR_STALL];
        b[0] = snap->port[0].f[NV_CTR_BYTES_IN].raw;
        b[1] = 0;
        if (st->valid && !st->saturated) {
            *stall = st->raw;
            *stall_ok = 1;
        }
        if (rate)
            *rate = NAN; /* a tile has no rate file: --bottleneck-rate, flits/s */
    } else if (rc == 0 && snap->nports >= 1 && snap->port[0].f[NV_CTR_BYTES_OUT].valid &&
               snap->port[0].f[NV_CTR_BYTES_IN].valid) {
        b[0] = snap->port[0].f[NV_CTR_BYTES_OUT].raw * snap->port[0].f[NV_CTR_BYTES_OUT].scale;
        b[1] = snap->port[0].f[NV_CTR_BYTES_IN].raw * snap->port[0].f[NV_CTR_BYTES_IN].scale;
        const nv_ctr_value *st = &snap->port[0].f[NV_CTR_STALL];
        const nv_ctr_value *pk = &snap->port[0].f[NV_CTR_PACKETS_OUT];
        if (s->spec.kind == NV_BN_INFINIBAND && st->valid && !st->saturated) {
            *stall = st->raw;
            *stall_ok = 1;
        } else if (s->spec.kind == NV_BN_CXI && st->valid && pk->valid) {
            *stall = st->raw;
            *pkts = pk->raw;
            *stall_ok = 1;
        }
        if (rate)
            *rate = nv_ctr_port_line_rate(s->spec.sysfs_root, nv_ctr_reader_backend(s->rd[i]),
                                          snap->port[0].name);
    } else {
        if (rc == 0 || rc > 0)
            nv_err(err, errlen, "%s: the byte counters cannot be read", s->spec.port[i]);
        rc = -1;
    }
    free(snap);
    return rc < 0 ? -1 : 0;
}

double nv_bn_stall_per_word(uint64_t ticks, uint64_t bytes)
{
    double words = (double)bytes / 4.0;
    double r = (double)ticks / (words > 1 ? words : 1);
    return r > NV_BN_STALL_MAX ? NV_BN_STALL_MAX : r;
}

double nv_bn_stall_per_flit(uint64_t stalls, uint64_t flits)
{
    double r = (double)stalls / (double)(flits > 1 ? flits : 1);
    return r > NV_BN_STALL_MAX ? NV_BN_STALL_MAX : r;
}

double nv_bn_pause_per_packet(uint64_t cycles, uint64_t packets)
{
    double r = (double)cycles / (double)(packets > 1 ? packets : 1);
    return r > NV_BN_STALL_MAX ? NV_BN_STALL_MAX : r;
}

/* stall ticks per 4-byte word sent (infiniband), paused cycles per packet
 * sent (cxi), or stall flit times per flit taken in (aries), over a step;
 * NAN without two readings */
static double stall_ratio(nv_bn_sampler *s, int i, uint64_t stall, uint64_t pkts, int ok,
                          uint64_t bytes_inc)
{
    double r = NAN;
    if (ok && s->stall_ok[i]) {
        uint64_t ds = stall >= s->last_stall[i] ? stall - s->last_stall[i] : 0;
        r = s->spec.kind == NV_BN_CXI
                ? nv_bn_pause_per_packet(ds, pkts >= s->last_pkts[i] ? pkts - s->last_pkts[i] : 0)
            : s->spec.kind == NV_BN_ARIES ? nv_bn_stall_per_flit(ds, bytes_inc)
                                          : nv_bn_stall_per_word(ds, bytes_inc);
    }
    s->last_stall[i] = stall;
    s->last_pkts[i] = pkts;
    s->stall_ok[i] = ok;
    return r;
}

static void take_step(nv_bn_sampler *s)
{
    uint64_t now = nv_bn_now_ns();
    double dt = (double)(now - s->last_t) / 1e9, u = 0, wait = NAN;
    nv_bn_step st = {.t_ns = now};
    int ok = 1;
    for (int i = 0; i < s->spec.nports; i++) {
        uint64_t b[2], stall = 0, pkts = 0;
        double backlog, w = NAN, pu = 0;
        int stall_ok;
        char err[200];
        if (read_port(s, i, b, &backlog, &stall, &pkts, &stall_ok, NULL, err, sizeof err)) {
            ok = 0;
            continue;
        }
        uint64_t inc[2];
        for (int d = 0; d < 2; d++) {
            inc[d] = b[d] >= s->last_bytes[i][d] ? b[d] - s->last_bytes[i][d] : 0;
            double ui = dt > 0 ? (double)inc[d] / dt / s->rate[i] : 0;
            if (ui > pu)
                pu = ui;
            s->last_bytes[i][d] = b[d];
        }
        if (!isnan(backlog))
            w = backlog / s->rate[i] * 1e6;
        else if (s->spec.kind == NV_BN_INFINIBAND || s->spec.kind == NV_BN_CXI ||
                 s->spec.kind == NV_BN_ARIES)
            w = stall_ratio(s, i, stall, pkts, stall_ok, inc[0]);
        if (!isnan(w) && (isnan(wait) || w > wait))
            wait = w;
        st.port_u[i] = (float)(pu > 1 ? 1 : pu);
        if (pu > u)
            u = pu;
    }
    s->last_t = now;
    st.u = u > 1 ? 1 : u;
    st.wait = wait;
    pthread_mutex_lock(&s->mu);
    if (!ok)
        s->errors++;
    else if (s->n < NV_BN_MAX_STEPS) {
        if (s->n == s->cap) {
            size_t cap = s->cap ? s->cap * 2 : 1024;
            nv_bn_step *g = realloc(s->steps, cap * sizeof *g);
            if (g) {
                s->steps = g;
                s->cap = cap;
            }
        }
        if (s->n < s->cap)
            s->steps[s->n++] = st;
    }
    pthread_mutex_unlock(&s->mu);
}

static void reopen_papi_ports(nv_bn_sampler *s);
static void close_papi_ports(nv_bn_sampler *s);

static void *sampler_main(void *arg)
{
    nv_bn_sampler *s = arg;
    reopen_papi_ports(s);
    pthread_mutex_lock(&s->mu);
    while (!s->stop) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        /* a queue's backlog is a gauge: read it at jittered instants, or a
         * load whose period is near the interval is seen at one phase
         * (jitter.h); counter ratios (stall ticks, bytes) cover the whole
         * step whatever its length */
        ts.tv_nsec += s->spec.kind == NV_BN_QDISC
                          ? (long)nv_jitter_gap_ns(&s->jitter, (uint64_t)s->interval_ns)
                          : s->interval_ns;
        ts.tv_sec += ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        while (!s->stop && pthread_cond_timedwait(&s->cv, &s->mu, &ts) != ETIMEDOUT)
            ;
        if (s->stop)
            break;
        pthread_mutex_unlock(&s->mu);
        take_step(s);
        pthread_mutex_lock(&s->mu);
    }
    pthread_mutex_unlock(&s->mu);
    close_papi_ports(s);
    return NULL;
}

static void free_sampler(nv_bn_sampler *s)
{
    for (int i = 0; i < NV_BN_MAX_PORTS; i++)
        if (s->rd[i])
            nv_ctr_close(s->rd[i]);
    free(s->steps);
    free(s);
}

/* the counter reader of port i (every kind but qdisc); 0, or -1 with one
 * line in err naming the port */
static int open_reader(nv_bn_sampler *s, int i, char *err, size_t errlen)
{
    const nv_bn_spec *spec = &s->spec;
    char e[300] = "", events[600] = "";
    if (spec->kind == NV_BN_ARIES && nv_bn_aries_events(spec->port[i], events, sizeof events))
        return nv_err(err, errlen, "--bottleneck aries:%s: not a network tile ROW_COL",
                      spec->port[i]);
    nv_ctr_config cfg = {.backend = spec->kind == NV_BN_NETDEV  ? "netdev"
                                    : spec->kind == NV_BN_CXI   ? "cxi"
                                    : spec->kind == NV_BN_ARIES ? "papi"
                                                                : "infiniband",
                         .sysfs_root = spec->sysfs_root,
                         .iface_glob = spec->kind == NV_BN_ARIES ? NULL : spec->port[i],
                         .papi_events = spec->kind == NV_BN_ARIES ? events : NULL};
    s->rd[i] = nv_ctr_open(&cfg, e, sizeof e);
    if (!s->rd[i] || nv_ctr_reader_nports(s->rd[i]) != 1) {
        if (s->rd[i])
            nv_ctr_close(s->rd[i]);
        s->rd[i] = NULL;
        return nv_err(err, errlen, "--bottleneck %s:%s: %s", nv_bn_kind_name(spec->kind),
                      spec->port[i], e[0] ? e : "not exactly one port by that name");
    }
    return 0;
}

/* A PAPI event set belongs to the thread that started it (PAPI keeps the
 * running set per thread), so an Aries tile's reader, checked and closed
 * by nv_bn_start, is opened again by the sampler thread itself, which takes
 * its first reading there and closes it before it ends.  A tile that cannot
 * be opened again counts as a read error at every step. */
static void reopen_papi_ports(nv_bn_sampler *s)
{
    if (s->spec.kind != NV_BN_ARIES)
        return;
    for (int i = 0; i < s->spec.nports; i++) {
        char e[300];
        double backlog;
        if (open_reader(s, i, e, sizeof e) == 0)
            read_port(s, i, s->last_bytes[i], &backlog, &s->last_stall[i], &s->last_pkts[i],
                      &s->stall_ok[i], NULL, e, sizeof e);
    }
    s->last_t = nv_bn_now_ns();
}

static void close_papi_ports(nv_bn_sampler *s)
{
    if (s->spec.kind != NV_BN_ARIES)
        return;
    for (int i = 0; i < s->spec.nports; i++)
        if (s->rd[i]) {
            nv_ctr_close(s->rd[i]);
            s->rd[i] = NULL;
        }
}

nv_bn_sampler *nv_bn_start(const nv_bn_spec *spec, double interval_ms, char *err, size_t errlen)
{
    if (!(interval_ms >= 10 && interval_ms <= 10000)) {
        nv_err(err, errlen, "--bottleneck-interval-ms %g is not in 10..10000", interval_ms);
        return NULL;
    }
    nv_bn_sampler *s = calloc(1, sizeof *s);
    if (!s) {
        nv_err(err, errlen, "out of memory");
        return NULL;
    }
    s->spec = *spec;
    s->interval_ns = (long)(interval_ms * 1e6);
    s->jitter = nv_bn_now_ns() ^ ((uint64_t)getpid() << 32);
    for (int i = 0; i < spec->nports; i++) {
        char e[300] = "";
        if (spec->kind != NV_BN_QDISC && open_reader(s, i, err, errlen)) {
            free_sampler(s);
            return NULL;
        }
        double rate = NAN, backlog;
        if (read_port(s, i, s->last_bytes[i], &backlog, &s->last_stall[i], &s->last_pkts[i],
                      &s->stall_ok[i], &rate, e, sizeof e)) {
            nv_err(err, errlen, "--bottleneck %s:%s: %s", nv_bn_kind_name(spec->kind),
                   spec->port[i], e);
            free_sampler(s);
            return NULL;
        }
        s->rate[i] = spec->rate_bytes_per_s > 0 ? spec->rate_bytes_per_s : rate;
        if (!(s->rate[i] > 0)) {
            nv_err(err, errlen,
                   "--bottleneck %s:%s: the port's rate cannot be read; give it "
                   "with --bottleneck-rate %s",
                   nv_bn_kind_name(spec->kind), spec->port[i],
                   spec->kind == NV_BN_ARIES ? "FLITS_PER_S (a tile counts flits)" : "BYTES_PER_S");
            free_sampler(s);
            return NULL;
        }
        if (spec->kind == NV_BN_ARIES) { /* the sampler thread opens its own */
            nv_ctr_close(s->rd[i]);
            s->rd[i] = NULL;
        }
    }
    s->last_t = nv_bn_now_ns();
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, &ca);
    pthread_condattr_destroy(&ca);
    int rc = pthread_create(&s->th, NULL, sampler_main, s);
    if (rc) {
        nv_err(err, errlen, "--bottleneck: cannot start the sampler thread: %s", strerror(rc));
        pthread_cond_destroy(&s->cv);
        pthread_mutex_destroy(&s->mu);
        free_sampler(s);
        return NULL;
    }
    s->running = 1;
    return s;
}

nv_bn_gauge nv_bn_sampler_gauge(const nv_bn_sampler *s)
{
    return nv_bn_kind_gauge(s->spec.kind);
}

double nv_bn_port_window(nv_bn_sampler *s, int port, uint64_t t0, uint64_t t1)
{
    pthread_mutex_lock(&s->mu);
    double m = nv_bn_port_mean(s->steps, s->n, port, t0, t1);
    pthread_mutex_unlock(&s->mu);
    return m;
}

size_t nv_bn_window(nv_bn_sampler *s, nv_bn_value which, uint64_t t0, uint64_t t1, double *mean,
                    double *profile, size_t nprof, size_t *n_profile)
{
    pthread_mutex_lock(&s->mu);
    size_t k = nv_bn_window_stats(s->steps, s->n, which, t0, t1, mean, profile, nprof, n_profile);
    pthread_mutex_unlock(&s->mu);
    return k;
}

long nv_bn_joint_windows(nv_bn_sampler *s, uint64_t t0, uint64_t t1, uint64_t win_ns,
                         nv_joint_window **v, size_t *n)
{
    pthread_mutex_lock(&s->mu);
    long k = nv_bn_joint_stats(s->steps, s->n, t0, t1, win_ns, v, n);
    pthread_mutex_unlock(&s->mu);
    return k;
}

long nv_bn_collect(nv_bn_sampler *s, nv_bn_value which, uint64_t t0, uint64_t t1, double **v,
                   size_t *n)
{
    pthread_mutex_lock(&s->mu);
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++)
        k += step_in(&s->steps[i], which, t0, t1);
    double *g = k ? realloc(*v, (*n + k) * sizeof *g) : *v;
    if (k && !g) {
        pthread_mutex_unlock(&s->mu);
        return -1;
    }
    *v = g;
    for (size_t i = 0; i < s->n; i++)
        if (step_in(&s->steps[i], which, t0, t1))
            g[(*n)++] = step_value(&s->steps[i], which);
    pthread_mutex_unlock(&s->mu);
    return (long)k;
}

size_t nv_bn_read_errors(nv_bn_sampler *s)
{
    pthread_mutex_lock(&s->mu);
    size_t e = s->errors;
    pthread_mutex_unlock(&s->mu);
    return e;
}

void nv_bn_stop(nv_bn_sampler *s)
{
    if (!s)
        return;
    if (s->running) {
        pthread_mutex_lock(&s->mu);
        s->stop = 1;
        pthread_cond_signal(&s->cv);
        pthread_mutex_unlock(&s->mu);
        pthread_join(s->th, NULL);
        pthread_cond_destroy(&s->cv);
        pthread_mutex_destroy(&s->mu);
    }
    free_sampler(s);
}
