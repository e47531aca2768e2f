/* alloc_advice.c - node-count advice from predicted communication time
 * (alloc_advice.h). */
#include "alloc_advice.h"

#include <math.h>
#include <string.h>

int nv_alloc_predict_run(const nv_alloc_model *m, nv_alloc_class cls, const nv_alloc_app *a,
                         uint32_t nodes, uint32_t ppn, nv_alloc_candidate *c,
                         const nv_alloc_predictor **which)
{
    memset(c, 0, sizeof *c);
    if (!a || nodes == 0 || ppn == 0 || (uint64_t)nodes * ppn > NV_ALLOC_MAX_RANKS)
        return -1;
    nv_alloc_layout l;
    nv_alloc_pattern p;
    double x[NV_AF_COUNT], comm;
    uint32_t P = nodes * ppn;
    nv_alloc_app_pattern_at(a, P, &p);
    if (nv_alloc_likely_layout(m, nodes, &l) || nv_alloc_features_pattern(&p, &l, ppn, x) ||
        nv_alloc_predict(m, cls, x, &comm, which))
        return -1;
    c->nodes = nodes;
    c->switches = (uint32_t)l.n_switches;
    c->comm_s = comm * a->phases;
    c->time_s = a->compute_core_s / P + c->comm_s;
    return 0;
}

int nv_alloc_advise(const nv_alloc_model *m, const nv_alloc_query *q, nv_alloc_advice *out)
{
    memset(out, 0, sizeof *out);
    int best_cls = nv_alloc_best_class(m);
    if (best_cls < 0) {
        out->why_not = "no communication-time predictor in the model";
        return -1;
    }
    out->app = nv_alloc_app_find(m, q->app);
    if (!out->app) {
        out->why_not = "no communication profile for the app";
        return -1;
    }
    out->cls = (nv_alloc_class)best_cls;
    out->ppn = q->ppn ? q->ppn : 1;
    uint32_t lo = q->min_nodes ? q->min_nodes : 1;
    uint32_t hi = q->max_nodes >= lo ? q->max_nodes : lo;
    uint32_t total = nv_alloc_total_nodes(m);
    if (total && hi > total) {
        hi = total;
        out->capped = true;
    }
    out->cap_nodes = hi;
    if (lo > hi) {
        out->why_not = "the cluster has fewer nodes than the smallest count asked for";
        return -1;
    }
    if ((uint64_t)hi * out->ppn > NV_ALLOC_MAX_RANKS)
        hi = NV_ALLOC_MAX_RANKS / out->ppn;
    /* candidates: both ends, the most nodes one switch holds (where the
     * uplink starts to be used), and counts spread geometrically between the
     * ends, NV_ALLOC_ADVICE_CANDIDATES in all */
    uint32_t cand[NV_ALLOC_ADVICE_CANDIDATES + 2];
    size_t nc = 0;
    cand[nc++] = lo;
    uint32_t one = 0;
    for (size_t j = 0; j < nv_alloc_switch_count(m); j++)
        if (nv_alloc_switch_at(m, j)->nodes > one)
            one = nv_alloc_switch_at(m, j)->nodes;
    if (hi > lo) {
        int room = NV_ALLOC_ADVICE_CANDIDATES - 2 - (one > lo && one < hi);
        double r = pow((double)hi / lo, 1.0 / (room + 1)), v = lo;
        for (int k = 0; k < room; k++) {
            v *= r;
            uint32_t n = (uint32_t)llround(v);
            if (one > cand[nc - 1] && one < hi && one <= n) {
                cand[nc++] = one;
                one = 0;
            }
            if (n > cand[nc - 1] && n < hi)
                cand[nc++] = n;
        }
        if (one > cand[nc - 1] && one < hi)
            cand[nc++] = one;
        cand[nc++] = hi;
    }
    double x =
        isfinite(q->interference_pct) && q->interference_pct > -100 ? q->interference_pct : 0;
    nv_alloc_candidate first = {0}, slowest = {0};
    for (size_t i = 0; i < nc; i++) {
        nv_alloc_candidate c;
        const nv_alloc_predictor *which = NULL;
        if (nv_alloc_predict_run(m, out->cls, out->app, cand[i], out->ppn, &c, &which))
            continue;
        if (c.switches > 1)
            c.time_s *= 1.0 + x / 100.0;
        out->n_candidates++;
        if (!out->ok || c.time_s < out->best.time_s) {
            out->best = c;
            out->predictor = which;
        }
        if (!out->ok || c.time_s > slowest.time_s)
            slowest = c;
        if (c.nodes == lo)
            first = c;
        out->ok = true;
    }
    if (!out->ok) {
        out->why_not = "no prediction for any node count in range";
        return -1;
    }
    out->compared = first.nodes && first.nodes != out->best.nodes ? first : slowest;
    out->margin_pct = out->compared.time_s > 0
                          ? (out->compared.time_s - out->best.time_s) / out->compared.time_s * 100.0
                          : 0;
    return 0;
}
