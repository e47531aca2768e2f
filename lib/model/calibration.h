/* calibration.h - service rate and service-time variance of an idle switch
 * or port, from single-packet latencies (*Queue-theory interference model*, section 4.2).
 *
 * Which latency is "the service time" 1/mu:
 *  - NV_CAL_MINIMUM (the paper's choice, the default): the smallest idle
 *    latency.  Every queued packet is then slower than 1/mu, so an idle
 *    switch reads as a small positive utilization.  One timer glitch that
 *    reports a too-small latency moves mu directly.
 *  - NV_CAL_LOW_QUANTILE: a low quantile q (e.g. 0.01) of the idle
 *    latencies.  Robust against a handful of glitched samples at the cost
 *    of a slightly larger service time; recommended on noisy clocks.
 *  - NV_CAL_MEAN: the idle mean.  This is what M/G/1 itself says (an idle
 *    queue's mean latency is the mean service time), so an idle switch
 *    reads as rho = 0; loads are measured relative to the idle mean.
 * Var(S) is always the sample variance (n-1) of the same idle latencies. */
#ifndef NETVAR_CALIBRATION_H
#define NETVAR_CALIBRATION_H

#include <stddef.h>
#include <stdint.h>

#include "histogram.h"

typedef enum nv_cal_method {
    NV_CAL_MINIMUM = 0,
    NV_CAL_LOW_QUANTILE = 1,
    NV_CAL_MEAN = 2,
} nv_cal_method;

/* Upper bound on samples accepted by nv_calibrate (bounds its one copy). */
#define NV_CAL_MAX_SAMPLES 100000000u

typedef struct nv_calibration {
    nv_cal_method method;
    double quantile;     /* q for NV_CAL_LOW_QUANTILE, else 0 */
    double service_us;   /* 1/mu, us */
    double mu_per_us;    /* service rate, packets per us */
    double var_s_us2;    /* Var(S), us^2 */
    double idle_mean_us; /* mean idle latency, us */
    uint64_t samples;    /* samples used */
    uint64_t rejected;   /* NaN, infinite, negative or zero samples skipped */
    nv_histogram hist;   /* idle latencies on the shared log bins */
} nv_calibration;

/* "minimum", "low-quantile", "mean" <-> method; from_name returns -1 when
 * the name is unknown. */
const char *nv_cal_method_name(nv_cal_method m);
int nv_cal_method_from_name(const char *name, nv_cal_method *out);

/* Calibrate from n idle latencies (us).  q is used by NV_CAL_LOW_QUANTILE
 * only and must lie in [0, 0.5].  Returns 0, or -1 when fewer than 2 valid
 * samples remain, n exceeds NV_CAL_MAX_SAMPLES, q is invalid or memory runs
 * out (out is zeroed then). */
int nv_calibrate(const double *latency_us, size_t n, nv_cal_method method, double q,
                 nv_calibration *out);

/* Quantile q in [0,1] of sorted values (linear interpolation between order
 * statistics, "type 7").  n must be >= 1. */
double nv_quantile_sorted(const double *sorted, size_t n, double q);

#endif
