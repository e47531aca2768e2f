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
 * Each step also reads the queue wait where the port has a queue gauge
 * (a qdisc's backlog over its rate): the queueing mechanism's axis.
 *
 * Port kinds:
 *   qdisc:DEV[,DEV...]        a Linux qdisc (`tc -s -j qdisc show dev DEV`,
 *                             root qdisc): bytes sent; rate = the shaper's
 *                             (tbf) rate; backlog.  The network lab's uplink ends.
 *   netdev:IF[,IF...]         /sys/class/net/IF/statistics; the busier of
 *                             tx and rx; rate = the `speed` file
 *   infiniband:DEV/PORT[,...] port_xmit_data / port_rcv_data; rate = `rate`
 * A rate that cannot be read must be given (--bottleneck-rate).  The
 * sampler thread only reads; it shares nothing with the caller but its
 * step array, under a mutex. */
#ifndef NETVAR_BOTTLENECK_H
#define NETVAR_BOTTLENECK_H

#include <stddef.h>
#include <stdint.h>

#include "counters.h"

#define NV_BN_MAX_PORTS 8
#define NV_BN_MAX_STEPS (1u << 20) /* ~29 h at 100 ms; later steps are dropped */

typedef enum nv_bn_kind { NV_BN_QDISC = 0, NV_BN_NETDEV, NV_BN_INFINIBAND } nv_bn_kind;

typedef struct nv_bn_spec {
    nv_bn_kind kind;
    int nports;
    char port[NV_BN_MAX_PORTS][NV_CTR_NAME_MAX];
    double rate_bytes_per_s; /* > 0: given; 0: read from the qdisc or sysfs */
    const char *sysfs_root;  /* netdev/infiniband: prefix before /sys (NULL: /sys) */
} nv_bn_spec;

/* "KIND:PORT[,PORT...]" -> *out (rate 0, sysfs_root NULL).  0, or -1 with
 * one line in err naming --bottleneck and what is wrong. */
int nv_bn_parse(const char *spec, nv_bn_spec *out, char *err, size_t errlen);

/* "qdisc", "netdev", "infiniband" */
const char *nv_bn_kind_name(nv_bn_kind k);

/* One sampling step: the busiest port's U over [t_ns - dt, t_ns], and the
 * longest queue wait read at t_ns. */
typedef struct nv_bn_step {
    uint64_t t_ns;  /* CLOCK_MONOTONIC at the step's end */
    double u;       /* bytes/s over the step / rate, clamped to [0, 1] */
    double wait_us; /* queued bytes / rate, in us (qdisc: its backlog); NAN
                       where the port has no queue gauge (netdev, infiniband) */
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

/* nv_bn_window_stats over the steps taken so far (under the mutex). */
size_t nv_bn_window(nv_bn_sampler *s, nv_bn_value which, uint64_t t0, uint64_t t1, double *mean,
                    double *profile, size_t nprof, size_t *n_profile);

/* Appends value `which` of the steps whose end lies in [t0, t1] (NAN ones
 * left out) to *v (grown with realloc; *n counts).  Returns how many were
 * appended, or -1 when memory ran out (*v and *n unchanged). */
long nv_bn_collect(nv_bn_sampler *s, nv_bn_value which, uint64_t t0, uint64_t t1, double **v,
                   size_t *n);

/* Steps that failed to read (a port vanished, tc failed); 0 when all read. */
size_t nv_bn_read_errors(nv_bn_sampler *s);

/* Stops and joins the thread, frees everything; NULL is fine. */
void nv_bn_stop(nv_bn_sampler *s);

#endif
