/* bottleneck.h - utilization read at the bottleneck port itself, for the
 * campaign's counters route (Queue-theory interference model, section 4;
 * issue "predictions that hold for pairs never seen together").
 *
 * The latency route infers U from ImpactB's latency through the inverse
 * Pollaczek-Khinchine formula; where the shared port's counters are
 * readable, U is measured: bytes the port sent per second divided by its
 * rate, per direction, the busier port of those named.  A background thread
 * samples the ports every interval; the campaign then asks for the steps
 * inside one run's timed window (so launch and teardown, which read as
 * idle, do not dilute the load), as a mean and as quantiles (the app's
 * utilization profile, which the model averages over).
 *
 * Each step also reads a congestion gauge where the port has one: the
 * queueing mechanism's axis.  A qdisc has a queue: its backlog over its
 * rate is the wait in microseconds.  An InfiniBand port has no queue gauge
 * but counts port_xmit_wait, the ticks in which it had data to send and
 * could send none (no credits downstream): the step reads those ticks per
 * 4-byte word it did send, the stall-to-flit ratio of Aries counters
 * (Network congestion and application runtime, section III).  A Slingshot
 * NIC (cxi) counts the cycles its transmit path was paused by the switch's
 * flow control (hni_tx_paused_*): the step reads those per packet sent.  An
 * Aries router tile counts the flit times a ready flit could not move on
 * (INQ_PRF_ROWBUS_STALL_CNT): the step reads those per flit the tile took in,
 * the seed's stall-to-flit ratio itself.  A netdev port has none.  Each step keeps every port's U as well as the
 * busiest's, so a campaign can say which port was loaded.
 *
 * Port kinds:
 *   qdisc:DEV[,DEV...]        a Linux qdisc (`tc -s -j qdisc show dev DEV`,
 *                             root qdisc): bytes sent; rate = the shaper's
 *                             (tbf) rate; backlog.  The network lab's uplink ends.
 *   netdev:IF[,IF...]         /sys/class/net/IF/statistics; the busier of
 *                             tx and rx; rate = the `speed` file
 *   infiniband:DEV/PORT[,...] port_xmit_data / port_rcv_data; rate = `rate`
 *   cxi:NIC[,NIC...]          a Slingshot NIC's device/telemetry octets; rate =
 *                             its Ethernet function's device/net/IF/speed
 *   aries:R_C[,R_C...]        an Aries network tile (row R, column C, 0-99) of
 *                             the router the sampling node reads, through
 *                             PAPI's Aries component: incoming flits summed
 *                             over the eight virtual channels; U is in
 *                             flits, so its rate must be given in flits/s
 * A rate that cannot be read must be given (--bottleneck-rate).  The
 * sampler thread only reads; it shares nothing with the caller but its
 * step array, under a mutex. */
#ifndef NETVAR_BOTTLENECK_H
#define NETVAR_BOTTLENECK_H

#include <stddef.h>
#include <stdint.h>

#include "counters.h"
#include "model.h"

#define NV_BN_MAX_PORTS 8
#define NV_BN_MAX_STEPS (1u << 20) /* ~29 h at 100 ms; later steps are dropped */

typedef enum nv_bn_kind {
    NV_BN_QDISC = 0,
    NV_BN_NETDEV,
    NV_BN_INFINIBAND,
    NV_BN_CXI,
    NV_BN_ARIES
} nv_bn_kind;

typedef struct nv_bn_spec {
    nv_bn_kind kind;
    int nports;
    char port[NV_BN_MAX_PORTS][NV_CTR_NAME_MAX];
    double rate_bytes_per_s; /* > 0: given (aries: flits/s); 0: read from the qdisc or sysfs */
    const char *sysfs_root;  /* netdev/infiniband: prefix before /sys (NULL: /sys) */
} nv_bn_spec;

/* "KIND:PORT[,PORT...]" -> *out (rate 0, sysfs_root NULL).  0, or -1 with
 * one line in err naming --bottleneck and what is wrong. */
int nv_bn_parse(const char *spec, nv_bn_spec *out, char *err, size_t errlen);

/* "qdisc", "netdev", "infiniband", "cxi", "aries" */
const char *nv_bn_kind_name(nv_bn_kind k);

/* What a step's congestion gauge reads (the same for every port of a kind) */
typedef enum nv_bn_gauge {
    NV_BN_GAUGE_NONE = 0,   /* no gauge (netdev): wait is NAN */
    NV_BN_GAUGE_QUEUE_US,   /* qdisc: queued bytes / rate, microseconds */
    NV_BN_GAUGE_STALL,      /* infiniband: port_xmit_wait ticks per 4-byte word sent */
    NV_BN_GAUGE_PAUSE,      /* cxi: hni_tx_paused cycles per packet sent */
    NV_BN_GAUGE_STALL_FLIT, /* aries: ROWBUS_STALL_CNT flit times per incoming flit */
} nv_bn_gauge;

/* "none", "queue_us", "stall_per_word", "paused_cycles_per_packet",
 * "stall_per_flit" */
const char *nv_bn_gauge_name(nv_bn_gauge g);
/* the gauge of a kind of port */
nv_bn_gauge nv_bn_kind_gauge(nv_bn_kind k);
/* the model's name for a gauge's axis (bottleneck.wait_gauge); a port
 * without a gauge reads as queue_us (its waits are NAN) */
nv_wait_gauge nv_bn_wait_gauge(nv_bn_gauge g);

#define NV_BN_STALL_MAX 1e6 /* stall ticks per word read beyond this are clamped */

/* The stall gauge of one step: port_xmit_wait ticks per 4-byte word sent
 * (a step that sent nothing counts as one word), clamped to
 * NV_BN_STALL_MAX.  Pure: exposed for tests. */
double nv_bn_stall_per_word(uint64_t ticks, uint64_t bytes);

/* The cxi gauge of one step: transmit-paused cycles per packet sent (a
 * step that sent nothing counts as one packet), clamped to
 * NV_BN_STALL_MAX.  Pure: exposed for tests. */
double nv_bn_pause_per_packet(uint64_t cycles, uint64_t packets);

/* The Aries gauge of one step: stall flit times per flit the tile took in
 * (a step that took in nothing counts as one flit), clamped to
 * NV_BN_STALL_MAX.  Pure: exposed for tests. */
double nv_bn_stall_per_flit(uint64_t stalls, uint64_t flits);

/* The PAPI events an aries:R_C port reads (the eight virtual channels'
 * incoming flits and the row-bus stalls of network tile R_C), comma
 * separated, into buf[cap]; 0, or -1 when the port is not R_C (0-99 each)
 * or buf is too small.  Pure: exposed for tests. */
int nv_bn_aries_events(const char *port, char *buf, size_t cap);

/* One sampling step: the busiest port's U over [t_ns - dt, t_ns], each
 * port's, and the largest gauge reading of the ports. */
typedef struct nv_bn_step {
    uint64_t t_ns;                 /* CLOCK_MONOTONIC at the step's end */
    double u;                      /* bytes/s over the step / rate, clamped to [0, 1] */
    double wait;                   /* the gauge (nv_bn_gauge): us of queue for a qdisc (its
                      backlog at t_ns), stall ticks per word over the step for
                      infiniband; NAN for netdev */
    float port_u[NV_BN_MAX_PORTS]; /* each port's U (busier direction), as u */
} nv_bn_step;

/* which value of a step a window reads */
typedef enum nv_bn_value { NV_BN_U = 0, NV_BN_WAIT } nv_bn_value;

/* Mean and quantile profile of value `which` of the steps whose end lies
 * in [t0, t1] (CLOCK_MONOTONIC ns; steps whose value is NAN are left out).
 * profile gets k = min(nprof, steps) ascending values (quantile
 * (i + 0.5)/k of the steps).  Returns the number of steps used (0: *mean
 * NAN, *n_profile 0).  Pure: exposed for tests. */
size_t nv_bn_window_stats(const nv_bn_step *s, size_t n, nv_bn_value which, uint64_t t0,
                          uint64_t t1, double *mean, double *profile, size_t nprof,
                          size_t *n_profile);

/* Mean and quantile profile of n values (sorted in place), as above.
 * Returns n (0: *mean NAN, *n_profile 0). */
size_t nv_bn_values_stats(double *v, size_t n, double *mean, double *profile, size_t nprof,
                          size_t *n_profile);

typedef struct nv_bn_sampler nv_bn_sampler;

/* Checks every port can be read and has a rate, then starts the thread
 * (a step every interval_ms, 10..10000).  NULL with one line in err. */
nv_bn_sampler *nv_bn_start(const nv_bn_spec *spec, double interval_ms, char *err, size_t errlen);

/* CLOCK_MONOTONIC now, in ns (the clock steps are stamped with). */
uint64_t nv_bn_now_ns(void);

/* The gauge this sampler's steps read. */
nv_bn_gauge nv_bn_sampler_gauge(const nv_bn_sampler *s);

/* Mean U of port `port` (0-based, in the spec's order) over the steps
 * whose end lies in [t0, t1]; NAN when none or port is out of range.
 * Pure: exposed for tests. */
double nv_bn_port_mean(const nv_bn_step *s, size_t n, int port, uint64_t t0, uint64_t t1);

/* nv_bn_port_mean over the steps taken so far (under the mutex). */
double nv_bn_port_window(nv_bn_sampler *s, int port, uint64_t t0, uint64_t t1);

/* nv_bn_window_stats over the steps taken so far (under the mutex). */
size_t nv_bn_window(nv_bn_sampler *s, nv_bn_value which, uint64_t t0, uint64_t t1, double *mean,
                    double *profile, size_t nprof, size_t *n_profile);

/* Appends value `which` of the steps whose end lies in [t0, t1] (NAN ones
 * left out) to *v (grown with realloc; *n counts).  Returns how many were
 * appended, or -1 when memory ran out (*v and *n unchanged). */
long nv_bn_collect(nv_bn_sampler *s, nv_bn_value which, uint64_t t0, uint64_t t1, double **v,
                   size_t *n);

/* The joint windows of [t0, t1] (CLOCK_MONOTONIC ns): the steps whose end
 * lies there and that read both U and the gauge, cut into consecutive
 * windows of win_ns from the first of them; each window holding at least
 * half as many steps as the fullest one gives the mean U and the mean gauge
 * of its steps (the nearest-configurations mechanism's neighbour side,
 * model_bottleneck.c).  Appends them to *v (grown with realloc; *n counts);
 * returns how many, or -1 when memory ran out (*v and *n unchanged).  The
 * sampler's form locks; nv_bn_joint_stats is the pure part (tests). */
long nv_bn_joint_windows(nv_bn_sampler *s, uint64_t t0, uint64_t t1, uint64_t win_ns,
                         nv_joint_window **v, size_t *n);
long nv_bn_joint_stats(const nv_bn_step *st, size_t n_st, uint64_t t0, uint64_t t1, uint64_t win_ns,
                       nv_joint_window **v, size_t *n);

/* Steps that failed to read (a port vanished, tc failed); 0 when all read. */
size_t nv_bn_read_errors(nv_bn_sampler *s);

/* Stops and joins the thread, frees everything; NULL is fine. */
void nv_bn_stop(nv_bn_sampler *s);

#endif
