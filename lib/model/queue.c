/* queue.c - M/G/1 switch utilization from latency or counters (queue.h). */
#include "queue.h"

#include <math.h>

static int service_ok(double service_us, double var_s_us2)
{
    return isfinite(service_us) && service_us > 0 && isfinite(var_s_us2) && var_s_us2 >= 0;
}

int nv_pk_latency_us(double service_us, double var_s_us2, double rho, double *w_us)
{
    *w_us = 0;
    if (!service_ok(service_us, var_s_us2) || !(rho >= 0 && rho < 1))
        return -1;
    /* (rho + lambda*mu*Var)/(2(mu - lambda)) with mu = 1/s, lambda = rho/s */
    double w = service_us + rho * (service_us + var_s_us2 / service_us) / (2.0 * (1.0 - rho));
    if (!isfinite(w))
        return -1;
    *w_us = w;
    return 0;
}

int nv_utilization_from_latency(double service_us, double var_s_us2, double latency_us,
                                nv_utilization *out)
{
    out->rho = 0;
    out->lambda_per_us = 0;
    out->saturated = 0;
    if (!service_ok(service_us, var_s_us2) || isnan(latency_us) || latency_us < 0)
        return -1;
    if (isinf(latency_us)) {
        out->rho = 1.0;
        out->lambda_per_us = 1.0 / service_us;
        out->saturated = 1;
        return 0;
    }
    double d = latency_us - service_us;
    if (d <= 0)
        return 0;
    double c = service_us + var_s_us2 / service_us;
    double rho = 2.0 * d / (2.0 * d + c);
    if (!isfinite(rho)) /* only reachable with extreme magnitudes */
        rho = 1.0;
    if (rho > 1.0)
        rho = 1.0;
    out->rho = rho;
    out->lambda_per_us = rho / service_us;
    out->saturated = rho >= NV_RHO_CAP;
    return 0;
}

int nv_utilization_from_counters(double packets, double interval_us, double service_us,
                                 nv_utilization *out)
{
    out->rho = 0;
    out->lambda_per_us = 0;
    out->saturated = 0;
    if (!isfinite(packets) || packets < 0 || !isfinite(interval_us) || interval_us <= 0 ||
        !isfinite(service_us) || service_us <= 0)
        return -1;
    double lambda = packets / interval_us;
    double rho = lambda * service_us;
    if (!isfinite(rho) || rho > 1.0)
        rho = 1.0;
    out->rho = rho;
    out->lambda_per_us = isfinite(lambda) ? lambda : 1.0 / service_us;
    out->saturated = rho >= NV_RHO_CAP;
    return 0;
}
