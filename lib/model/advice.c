/* advice.c - node count that minimizes predicted time (advice.h). */
#include "advice.h"

#include <math.h>
#include <string.h>

static int points_valid(const nv_scaling_point *pts, size_t n)
{
    if (n == 0 || !pts)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (pts[i].nodes == 0 || !isfinite(pts[i].median_runtime_s) ||
            !(pts[i].median_runtime_s > 0))
            return 0;
        if (i && pts[i].nodes <= pts[i - 1].nodes)
            return 0;
    }
    return 1;
}

static double interp_loglog(const nv_scaling_point *pts, size_t n, uint32_t nodes)
{
    if (nodes <= pts[0].nodes)
        return pts[0].median_runtime_s;
    size_t lo = 0, hi = n - 1;
    if (nodes >= pts[hi].nodes)
        return pts[hi].median_runtime_s;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (pts[mid].nodes <= nodes)
            lo = mid;
        else
            hi = mid;
    }
    if (pts[lo].nodes == nodes)
        return pts[lo].median_runtime_s;
    double x0 = log((double)pts[lo].nodes), x1 = log((double)pts[hi].nodes);
    double y0 = log(pts[lo].median_runtime_s), y1 = log(pts[hi].median_runtime_s);
    double t = (log((double)nodes) - x0) / (x1 - x0);
    return exp(y0 + t * (y1 - y0));
}

int nv_scaling_time_s(const nv_scaling_point *pts, size_t n, uint32_t nodes, double *t_s)
{
    *t_s = 0;
    if (!points_valid(pts, n) || nodes < pts[0].nodes || nodes > pts[n - 1].nodes)
        return -1;
    *t_s = interp_loglog(pts, n, nodes);
    return 0;
}

int nv_advise_nodes(const nv_scaling_point *pts, size_t n, uint32_t min_nodes, uint32_t max_nodes,
                    uint32_t requested_nodes, const double *slowdown_pct, nv_advice *out)
{
    memset(out, 0, sizeof *out);
    if (!points_valid(pts, n) || min_nodes == 0 || min_nodes > max_nodes ||
        max_nodes - min_nodes >= NV_ADVICE_MAX_RANGE)
        return -1;
    uint32_t lo = min_nodes > pts[0].nodes ? min_nodes : pts[0].nodes;
    uint32_t hi = max_nodes < pts[n - 1].nodes ? max_nodes : pts[n - 1].nodes;
    if (lo > hi)
        return -1;
    int found = 0;
    for (uint32_t nn = lo; nn <= hi; nn++) {
        double s = slowdown_pct ? slowdown_pct[nn - min_nodes] : 0;
        if (!isfinite(s) || s < -100)
            continue;
        double t = interp_loglog(pts, n, nn) * (1.0 + s / 100.0);
        if (!found || t < out->best_time_s) {
            out->best_nodes = nn;
            out->best_time_s = t;
            found = 1;
        }
        if (nn == requested_nodes) {
            out->requested_known = 1;
            out->requested_time_s = t;
        }
        if (nn == UINT32_MAX)
            break;
    }
    if (!found) {
        memset(out, 0, sizeof *out);
        return -1;
    }
    if (out->requested_known) {
        out->saving_s = out->requested_time_s - out->best_time_s;
        out->saving_pct =
            out->requested_time_s > 0 ? out->saving_s / out->requested_time_s * 100.0 : 0;
    }
    return 0;
}
