/* queue.h - switch utilization from the M/G/1 queue (*Queue-theory interference model*, section 4.2).
 *
 * A switch port is an M/G/1 queue with service rate mu (1/service time) and
 * service-time variance Var(S).  The Pollaczek-Khinchine formula gives the
 * mean time W a packet spends in it:
 *
 *     W = (rho + lambda*mu*Var(S)) / (2*(mu - lambda)) + 1/mu      (eq. 1)
 *
 * and the paper's eq. 3 inverts it for lambda.  Written with the service
 * time s = 1/mu the inverse reduces to
 *
 *     rho = 2D / (2D + s + Var(S)/s),   D = W - s
 *
 * which is eq. 3 times s, algebraically identical but without the
 * cancellation in eq. 3's denominator.  All times are in microseconds,
 * variances in us^2, rates in 1/us.  No function returns NaN or infinity. */
#ifndef NETVAR_QUEUE_H
#define NETVAR_QUEUE_H

/* Utilization at or above this is reported as saturated, and is the cap
 * applied when the utilizations of several neighbours are added up (the
 * queue's waiting time diverges at 1, so sums are kept just below it). */
#define NV_RHO_CAP 0.99

typedef struct nv_utilization {
    double rho;           /* lambda/mu, in [0, 1] */
    double lambda_per_us; /* packet arrival rate, packets per us */
    int saturated;        /* 1 when rho >= NV_RHO_CAP (or W is infinite) */
} nv_utilization;

/* Forward P-K: mean time in system W (us) at utilization rho in [0, 1).
 * Returns 0, or -1 (and *w_us = 0) when an argument is outside its domain:
 * service_us must be finite and > 0, var_s_us2 finite and >= 0. */
int nv_pk_latency_us(double service_us, double var_s_us2, double rho, double *w_us);

/* Inverse P-K (eq. 3): utilization from the mean probe latency W (us).
 * Edges: W <= service time gives rho = 0 (the probe saw an idle switch);
 * W = +inf gives rho = 1, saturated.  Returns 0, or -1 with *out zeroed
 * when service_us is not finite and > 0, var_s_us2 not finite and >= 0, or
 * latency_us is NaN or negative. */
int nv_utilization_from_latency(double service_us, double var_s_us2, double latency_us,
                                nv_utilization *out);

/* Utilization from port counters: lambda = packets / interval, rho =
 * lambda * service time, clamped to [0, 1] (counters can show more arrivals
 * than the port can serve over a short interval: that is saturation).
 * Returns 0, or -1 with *out zeroed on a non-finite, negative or zero
 * interval/service time or a negative packet count. */
int nv_utilization_from_counters(double packets, double interval_us, double service_us,
                                 nv_utilization *out);

#endif
