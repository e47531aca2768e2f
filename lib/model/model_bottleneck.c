/* model_bottleneck.c - the queue route measured at the bottleneck, and what
 * history adds to it (Queue-theory interference model, sections 4-5; issue
 * "predictions that hold for pairs never seen together").
 *
 * Done once at load, in the reload thread, so a prediction stays a few
 * curve reads:
 *  - Anchored curves.  p_A(U) is measured from the lowest CompressionB load
 *    up; below it the curve used to be held flat, so a light neighbour read
 *    as the lowest configuration.  The idle bottleneck slows nobody, so the
 *    curve gets the point (U_idle, 0 %) (or its first value, if that is
 *    negative, to stay non-decreasing) when its first point lies above idle.
 *  - History corrections.  The co-location table measures some pairs; the
 *    physics predicts every pair.  Each measured (A, B) is explained as
 *    table = s_A * q_B * physics: A's sensitivity (it suffers more or less
 *    than its curve says) and B's pressure (it hurts more or less than its
 *    utilization says).  Factors, not offsets: a neighbour that leaves the
 *    link idle slows nobody however sensitive the victim.  The two are
 *    fitted by alternating weighted least squares (weights: samples) with
 *    a ridge toward 1 worth `shrink_samples` typical samples: an app with
 *    one sample moves little, one with many moves to what its pairs say.
 *    The ridge is never weaker than the table's own noise (the pooled
 *    variance of the pairs' repetitions) over a factor's prior spread, so
 *    pairs whose physics is within that noise hardly move a factor.
 *    Factors are kept in [0, 10].  So "A beside C" and
 *    "D beside B" inform "A beside B", which was never measured.  Only
 *    files with a "bottleneck" object (every file netvar writes now) get
 *    corrections; older ones keep the physics alone.
 *
 * The physics has two mechanisms (nv_model_bottleneck_physics).  Queueing:
 * A's curve against the queue wait W at the port, read over the neighbours'
 * wait profiles and averaged as progress rates.  Bandwidth share: a
 * neighbour that builds no queue (smooth traffic) still takes its share of
 * the port, which costs A in proportion to A's own load there, so
 * theta_A * E_t[p_A(U(t))], theta_A = A's mean U above idle (p_A(U) was
 * measured under a load that also queues; a victim that hardly uses the port
 * gets its bytes through the remainder).  The larger answers.  On the
 * network lab this is what separates a latency-bound victim beside a smooth
 * neighbour (no queue, no slowdown) from a bulk-transfer victim beside the
 * same neighbour (tens of percent).  Without a queue gauge p_A(U) answers
 * alone.  Each answer is at least 0: a shared port cannot speed a victim
 * up, and a curve below 0 % at light load is its baseline's noise.
 *
 * p_A(U) is read as E_t[p_A(U(t))], with U(t) = U_idle + sum over neighbours of
 * (U_B(t) - U_idle)+, each neighbour's U(t) given by its utilization
 * profile (equally weighted samples) or, without one, its mean U.  Idle is
 * counted once however many neighbours add up; profiles are added rank by
 * rank (the loads peak together: the pessimistic, comonotone sum).  U beyond
 * the curve's top point reads the top point (the curve's own cap). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric.h"
#include "model_internal.h"

#define ALS_ROUNDS 25
#define NV_CORRECTION_MAX 10.0 /* a factor beyond this is not a correction */

/* one curve with its anchor point (x0, 0 %) in front when its first point
 * lies above x0, and the slopes; returns the points written */
static uint32_t anchor_one(const nv_curve_point *fit, size_t n_fit, double x0, struct nv_seg *dst)
{
    size_t n = 0;
    if (!n_fit)
        return 0;
    if (fit[0].utilization > x0) {
        double y0 = fit[0].slowdown_pct < 0 ? fit[0].slowdown_pct : 0;
        dst[n++] = (struct nv_seg){.u = x0, .y = y0};
    }
    for (size_t k = 0; k < n_fit; k++)
        dst[n++] = (struct nv_seg){.u = fit[k].utilization, .y = fit[k].slowdown_pct};
    for (size_t k = 0; k + 1 < n; k++)
        dst[k].slope = (dst[k + 1].y - dst[k].y) / (dst[k + 1].u - dst[k].u);
    dst[n - 1].slope = 0; /* no segment starts at the last point */
    return (uint32_t)n;
}

/* Which axis explains A's own campaign better: the configurations'
 * slowdowns lie on a non-decreasing curve against U, against W, or both (a
 * configuration that queues more at the same U, bursts, separates them).
 * Kept in the app view (nv_app_view: wait_fit_residual_pct, prefers_wait),
 * which `netvar report --app` prints; the prediction computes
 * both mechanisms whatever this says, since on the lab a campaign's few
 * configurations decided it by noise. */
static void choose_mechanism(const nv_model *m, struct nv_app_rec *a)
{
    a->wresidual_pct = NAN;
    a->prefer_wait = a->n_wfit > 0;
    if (!a->n_wpts || !a->n_wfit)
        return;
    const nv_curve_point *pts = m->curve + a->wpts_off, *fit = m->curve + a->wfit_off;
    double ss = 0, w = 0;
    for (size_t k = 0; k < a->n_wpts; k++) {
        double r = pts[k].slowdown_pct - nv_curve_eval(fit, a->n_wfit, pts[k].utilization);
        ss += pts[k].weight * r * r;
        w += pts[k].weight;
    }
    a->wresidual_pct = w > 0 ? sqrt(ss / w) : 0;
    if (a->n_fit)
        a->prefer_wait = a->wresidual_pct <= a->residual_pct + 1.0;
}

static int anchor_curves(nv_model *m, char *err, size_t errlen)
{
    size_t need = 0;
    for (size_t i = 0; i < m->n_apps; i++) {
        need += m->apps[i].n_fit ? m->apps[i].n_fit + 1 : 0;
        need += m->apps[i].n_wfit ? m->apps[i].n_wfit + 1 : 0;
    }
    m->acurve = malloc((need ? need : 1) * sizeof *m->acurve);
    if (!m->acurve) {
        snprintf(err, errlen, "model: out of memory for %zu curve points", need);
        return -1;
    }
    size_t off = 0;
    for (size_t i = 0; i < m->n_apps; i++) {
        struct nv_app_rec *a = &m->apps[i];
        /* p_A(U) from the idle bottleneck up; p_A(W) from no wait up */
        a->anc_off = (uint32_t)off;
        a->n_anc = anchor_one(a->n_fit ? m->curve + a->fit_off : NULL, a->n_fit,
                              m->bn.idle_utilization, m->acurve + off);
        off += a->n_anc;
        a->wanc_off = (uint32_t)off;
        a->n_wanc =
            anchor_one(a->n_wfit ? m->curve + a->wfit_off : NULL, a->n_wfit, 0, m->acurve + off);
        off += a->n_wanc;
        /* the bound the answer-only reads test before computing the share
         * (nv_model_bottleneck_physics): theta_A times the curve's highest
         * point, at least 0 */
        double top = 0;
        for (size_t k = 0; k < a->n_anc; k++)
            top = m->acurve[a->anc_off + k].y > top ? m->acurve[a->anc_off + k].y : top;
        a->share_bound = nv_share_weight(m, a) * top;
        choose_mechanism(m, a);
    }
    m->n_acurve = off;
    return 0;
}

/* the k-th of K equally weighted U values of app b (its profile resampled
 * rank by rank, or its mean U) */
static inline double u_at(const nv_model *m, const struct nv_app_rec *b, size_t k, size_t K)
{
    if (!b->n_prof)
        return b->utilization;
    if (b->n_prof == K)
        return m->profile[b->prof_off + k];
    size_t j = K <= 1 ? b->n_prof / 2 : k * b->n_prof / K;
    return m->profile[b->prof_off + (j < b->n_prof ? j : b->n_prof - 1)];
}

void nv_seg_grid_build(const struct nv_seg *c, size_t n, struct nv_seg_grid *gr)
{
    memset(gr, 0, sizeof *gr);
    if (!nv_seg_gridded(n))
        return;
    gr->lo = c[0].u;
    gr->scale = NV_SEG_GRID / (c[n - 1].u - c[0].u);
    size_t j = 0;
    for (size_t g = 0; g < NV_SEG_GRID; g++) {
        /* a lower edge a rounding off is fine: nv_seg_find steps back or on */
        double edge = gr->lo + (double)g / gr->scale;
        while (j + 1 < n - 1 && c[j + 1].u <= edge)
            j++;
        gr->j[g] = (uint8_t)j;
    }
}

/* the grid of app a's U curve (side 0) or wait curve (side 1), or NULL */
static inline const struct nv_seg_grid *grid_of(const nv_model *m, int32_t a, size_t n, int side)
{
    return m->sgrid && nv_seg_gridded(n) ? &m->sgrid[2 * (size_t)a + side] : NULL;
}

/* Reading an anchored curve at sorted values, as nv_curve_eval reads a
 * curve: the curve's end value at or beyond an end, else the segment's
 * c[j].y + (x - c[j].u) slope.  A long curve is entered through its grid
 * at each value; a short one is walked once across all of them.  Both
 * mechanisms' means below are the one computation every path uses (one or
 * several neighbours, the full prediction or the answer alone), so they
 * agree bit for bit. */
static inline double seg_read(const struct nv_seg *c, size_t n, const struct nv_seg_grid *gr,
                              size_t *jp, double lo, double hi, double ylo, double yhi, double x)
{
    if (x <= lo)
        return ylo;
    if (x >= hi)
        return yhi;
    size_t j = *jp;
    if (gr)
        j = nv_seg_find(c, n, gr, x);
    else /* x < c[n-1].u, so the walk stops by n - 2 without counting */
        while (c[j + 1].u <= x)
            j++;
    *jp = j;
    return c[j].y + (x - c[j].u) * c[j].slope;
}

/* the queueing mechanism before its floor at 0, for the sorted waits
 * w[0 .. K): progress rates, not slowdowns, average over time: A advances
 * at 1 / (1 + p/100) = 100 / (100 + p) of its pace (one division each), so
 * 1 + s = 1 / E_k[100 / (100 + p_A(W_k))] */
static inline double wait_answer(const struct nv_seg *c, size_t n, const struct nv_seg_grid *gr,
                                 const double *w, size_t K)
{
    const double lo = c[0].u, hi = c[n - 1].u, ylo = c[0].y, yhi = c[n - 1].y;
    double rate = 0;
    size_t j = 0;
    for (size_t k = 0; k < K; k++) {
        double y = seg_read(c, n, gr, &j, lo, hi, ylo, yhi, w[k]);
        rate += 100 / (100 + (y > -99 ? y : -99));
    }
    return ((double)K / rate - 1) * 100;
}

/* E_k[p_A(max(U_k, idle))] over the sorted U values u[0 .. K) */
static inline double share_mean(const struct nv_seg *c, size_t n, const struct nv_seg_grid *gr,
                                const double *u, size_t K, double idle)
{
    const double lo = c[0].u, hi = c[n - 1].u, ylo = c[0].y, yhi = c[n - 1].y;
    double sum = 0;
    size_t j = 0;
    for (size_t k = 0; k < K; k++)
        sum += seg_read(c, n, gr, &j, lo, hi, ylo, yhi, u[k] > idle ? u[k] : idle);
    return sum / (double)K;
}

/* a window placed at load, before the windows that lie alike are merged */
struct jwin_tmp {
    uint32_t key; /* i1 << 24 | i2 << 16 | w1's bin: windows merged share it */
    double w1;
};

static int jwin_tmp_cmp(const void *x, const void *y)
{
    const struct jwin_tmp *a = x, *b = y;
    return a->key < b->key ? -1 : a->key > b->key;
}

/* ------------------------------------------- nearest configurations in (U, W)
 * The seed's AverageLT matched a neighbour to the CompressionB configuration
 * of the nearest mean latency.  At the bottleneck both axes are measured, so
 * this matches each window of the neighbour to the configurations nearest
 * it in utilization and queue wait at once: the two nearest points among
 * the configurations (their mean U and W alone) and the idle point (idle U,
 * 0 us, where every victim is at 0 %), in (U, W / the largest
 * configuration's W).  A window's slowdown is the victim's campaign
 * slowdowns at those two points weighted by inverse distance (at least 0);
 * the windows average as progress rates, as the queueing mechanism's reads
 * do.  Where a window lies is the neighbour's alone, so it is found once
 * here at load, and windows that lie alike are merged (struct nv_jwin); a
 * prediction is then two look-ups, a multiply-add and a division per placed
 * window.  (DESIGN 4.11: fixed on 2026-11-29 from the kept lab
 * runs, before the twentieth measured a pair.) */
/* a victim without campaign slowdowns whose curves the profile route
 * composed: its row is the composed slowdown under each configuration,
 * when the fabric was calibrated under every one of them (matched by id);
 * 1 with row[0..nc-1] filled, else 0 (not a nearest victim) */
static int profile_row(const nv_model *m, const struct nv_app_rec *a, size_t nc, float *row)
{
    if (a->curve_origin != NV_CURVE_PROFILE || a->sig < 0 || !m->fabric)
        return 0;
    nv_curve_point u[NV_FABRIC_MAX_POINTS], w[NV_FABRIC_MAX_POINTS];
    size_t n = nv_fabric_compose(m->fabric, &m->sigs[a->sig], nv_own_u(a), u, w);
    for (size_t c = 0; c < nc; c++) {
        size_t k = 0;
        while (k < n && strcmp(m->fabric->points[k].id, m->configs[c].id))
            k++;
        if (k == n)
            return 0;
        row[c] = (float)u[k].slowdown_pct;
    }
    return 1;
}

static int nearest_setup(nv_model *m, char *err, size_t errlen)
{
    m->nearest = 0;
    for (size_t i = 0; i < m->n_apps; i++) {
        m->apps[i].nearest_victim = 0;
        m->apps[i].pjw_off = m->apps[i].n_pjw = 0;
    }
    size_t nc = m->n_configs;
    if (!m->n_jraw || !nc || nc > NV_NEAREST_MAX_CONFIGS)
        return 0;
    double wmax = 0;
    for (size_t c = 0; c < nc; c++) {
        if (!isfinite(m->configs[c].wait_us))
            return 0; /* a configuration without its queue wait: not this mechanism */
        if (m->configs[c].wait_us > wmax)
            wmax = m->configs[c].wait_us;
    }
    double scale = wmax > 0 ? 1 / wmax : 1;
    size_t most = 0;
    for (size_t i = 0; i < m->n_apps; i++)
        if (m->apps[i].n_jwin > most)
            most = m->apps[i].n_jwin;
    struct jwin_tmp *t = malloc((most ? most : 1) * sizeof *t);
    if (!t || !(m->jwin = malloc(m->n_jraw * sizeof *m->jwin))) {
        free(t);
        snprintf(err, errlen, "model: out of memory for %zu joint windows", m->n_jraw);
        return -1;
    }
    double idle = m->bn.idle_utilization;
    size_t n_placed = 0;
    for (size_t i = 0; i < m->n_apps; i++) {
        struct nv_app_rec *b = &m->apps[i];
        for (size_t k = 0; k < b->n_jwin; k++) {
            const nv_joint_window *x = &m->jraw[b->jwin_off + k];
            double ub = x->u, wb = x->w_us * scale;
            double d1 = INFINITY, d2 = INFINITY;
            size_t i1 = nc, i2 = nc;
            for (size_t c = 0; c <= nc; c++) { /* c == nc: the idle point */
                double du = (c < nc ? m->configs[c].utilization : idle) - ub;
                double dw = (c < nc ? m->configs[c].wait_us * scale : 0) - wb;
                double d = hypot(du, dw);
                if (d < d1) {
                    d2 = d1, i2 = i1;
                    d1 = d, i1 = c;
                } else if (d < d2) {
                    d2 = d, i2 = c;
                }
            }
            double w1 = 1;     /* on a point */
            if (d1 >= 1e-12) { /* (1/d1) / (1/d1 + 1/d2) */
                w1 = d2 / (d1 + d2);
                if (i1 > i2) { /* the lower index first: one pair, one order */
                    size_t s = i1;
                    i1 = i2, i2 = s, w1 = 1 - w1;
                }
            } else {
                i2 = i1;
            }
            long bin = lround(floor(w1 * NV_JWIN_BINS));
            t[k] = (struct jwin_tmp){
                (uint32_t)(i1 << 24 | i2 << 16 | (bin < NV_JWIN_BINS ? bin : NV_JWIN_BINS - 1)),
                w1};
        }
        qsort(t, b->n_jwin, sizeof *t, jwin_tmp_cmp);
        b->pjw_off = (uint32_t)n_placed;
        for (size_t k = 0; k < b->n_jwin;) {
            size_t e = k;
            double sw = 0;
            for (; e < b->n_jwin && t[e].key == t[k].key; e++)
                sw += t[e].w1;
            struct nv_jwin *o = &m->jwin[n_placed++];
            o->i1 = (uint8_t)(t[k].key >> 24);
            o->i2 = (uint8_t)(t[k].key >> 16);
            o->w1q = (uint16_t)lround(sw / (double)(e - k) * NV_JWIN_WSCALE);
            o->share = (float)((double)(e - k) / (double)b->n_jwin);
            k = e;
        }
        b->n_pjw = (uint32_t)(n_placed - b->pjw_off);
    }
    free(t);
    struct nv_jwin *fit = realloc(m->jwin, (n_placed ? n_placed : 1) * sizeof *m->jwin);
    if (fit) /* keep only the placed windows (a failed shrink keeps the larger block) */
        m->jwin = fit;
    /* a victim's slowdowns are sorted by configuration, one each at most:
     * all of them is one under every configuration; its row holds them by
     * configuration index, then the idle point's 0 % (a window's two
     * points are then read without a test) */
    if (!(m->nrow = malloc(m->n_apps * (nc + 1) * sizeof *m->nrow))) {
        snprintf(err, errlen, "model: out of memory for %zu apps' slowdown rows", m->n_apps);
        return -1;
    }
    for (size_t i = 0; i < m->n_apps; i++) {
        struct nv_app_rec *a = &m->apps[i];
        a->nearest_victim = a->n_slow == nc;
        float *row = m->nrow + i * (nc + 1);
        for (size_t c = 0; c <= nc; c++)
            row[c] = a->nearest_victim && c < nc ? (float)m->slow[a->slow_off + c].pct : 0;
        if (!a->nearest_victim && !a->n_slow)
            a->nearest_victim = profile_row(m, a, nc, row);
    }
    m->nearest = 1;
    return 0;
}

/* whether the nearest-configurations mechanism answers for A beside B */
static inline int nearest_applies(const nv_model *m, const struct nv_app_rec *A,
                                  const struct nv_app_rec *B)
{
    return m->nearest && A->nearest_victim && B->n_jwin;
}

static inline double nearest_answer(const nv_model *m, const struct nv_app_rec *A,
                                    const struct nv_app_rec *B)
{
    const float *y = m->nrow + (size_t)(A - m->apps) * (m->n_configs + 1);
    const struct nv_jwin *w = m->jwin + B->pjw_off;
    const size_t K = B->n_pjw;
    double rate = 0, all = 0; /* all: the shares' sum, 1 but for rounding */
    for (size_t k = 0; k < K; k++) {
        double y1 = y[w[k].i1], y2 = y[w[k].i2];
        double p = y2 + w[k].w1q * (1 / NV_JWIN_WSCALE) * (y1 - y2);
        rate += w[k].share * (100 / (100 + (p > 0 ? p : 0)));
        all += w[k].share;
    }
    return (all / rate - 1) * 100;
}

double nv_model_nearest_physics(const nv_model *m, int32_t a, int32_t b, double *u_mean,
                                double *w_mean_us)
{
    const struct nv_app_rec *A = &m->apps[a], *B = &m->apps[b];
    *u_mean = *w_mean_us = NAN;
    if (!nearest_applies(m, A, B))
        return NAN;
    double su = 0, sw = 0;
    for (size_t k = 0; k < B->n_jwin; k++) {
        su += m->jraw[B->jwin_off + k].u;
        sw += m->jraw[B->jwin_off + k].w_us;
    }
    *u_mean = su / B->n_jwin;
    *w_mean_us = sw / B->n_jwin;
    return nearest_answer(m, A, B);
}

double nv_model_queue_physics(const nv_model *m, int32_t a, const int32_t *with, size_t n_with,
                              double *u_mean, int *capped)
{
    const struct nv_app_rec *A = &m->apps[a];
    *u_mean = NAN;
    *capped = 0;
    if (!A->n_anc)
        return NAN;
    const struct nv_seg *c = m->acurve + A->anc_off;
    double top = c[A->n_anc - 1].u, idle = m->bn.idle_utilization;
    if (n_with == 1) { /* the common case (job_submit asks pair by pair): no resampling */
        const struct nv_app_rec *B = &m->apps[with[0]];
        const double *p = B->n_prof ? m->profile + B->prof_off : &B->utilization;
        size_t K = B->n_prof ? B->n_prof : 1;
        double u[NV_PROFILE_MAX], usum = 0;
        for (size_t k = 0; k < K; k++) {
            u[k] = p[k] > idle ? p[k] : idle;
            usum += u[k];
        }
        *capped = u[K - 1] > top;
        *u_mean = usum / (double)K;
        return share_mean(c, A->n_anc, grid_of(m, a, A->n_anc, 0), u, K, idle);
    }
    size_t K = 1;
    for (size_t i = 0; i < n_with; i++) {
        size_t np = m->apps[with[i]].n_prof;
        if (np > K)
            K = np;
    }
    /* U(t) rank by rank: ascending in k, since every profile is sorted */
    double u[NV_PROFILE_MAX], usum = 0;
    for (size_t k = 0; k < K; k++) {
        double x = idle;
        for (size_t i = 0; i < n_with; i++) {
            double ub = u_at(m, &m->apps[with[i]], k, K) - idle;
            if (ub > 0)
                x += ub;
        }
        u[k] = x;
        usum += x;
    }
    if (u[K - 1] > top)
        *capped = 1;
    *u_mean = usum / (double)K;
    return share_mean(c, A->n_anc, grid_of(m, a, A->n_anc, 0), u, K, idle); /* every u >= idle */
}

double nv_model_wait_physics(const nv_model *m, int32_t a, const int32_t *with, size_t n_with,
                             double *w_mean_us, int *capped)
{
    const struct nv_app_rec *A = &m->apps[a];
    *w_mean_us = NAN;
    *capped = 0;
    if (!A->n_wanc || !n_with)
        return NAN;
    size_t K = 1;
    for (size_t i = 0; i < n_with; i++) {
        size_t np = m->apps[with[i]].n_wprof;
        if (!np)
            return NAN; /* a neighbour whose queueing is unknown: not this mechanism */
        if (np > K)
            K = np;
    }
    /* W(t) rank by rank (every wait profile is sorted: the comonotone sum);
     * one neighbour (job_submit asks pair by pair): its own profile */
    double wbuf[NV_PROFILE_MAX], wsum = 0;
    const double *w = wbuf;
    if (n_with == 1) {
        w = m->profile + m->apps[with[0]].wprof_off;
        for (size_t k = 0; k < K; k++)
            wsum += w[k];
    } else
        for (size_t k = 0; k < K; k++) {
            double x = 0;
            for (size_t i = 0; i < n_with; i++) {
                const struct nv_app_rec *B = &m->apps[with[i]];
                size_t j = B->n_wprof == K ? k : (K <= 1 ? B->n_wprof / 2 : k * B->n_wprof / K);
                x += m->profile[B->wprof_off + (j < B->n_wprof ? j : B->n_wprof - 1)];
            }
            wbuf[k] = x;
            wsum += x;
        }
    const struct nv_seg *c = m->acurve + A->wanc_off;
    *capped = w[K - 1] > c[A->n_wanc - 1].u;
    *w_mean_us = wsum / (double)K;
    return wait_answer(c, A->n_wanc, grid_of(m, a, A->n_wanc, 1), w, K);
}

static double two_mechanisms(const nv_model *m, int32_t a, const int32_t *with, size_t n_with,
                             int answer_only, nv_phys *ph);

double nv_model_bottleneck_physics(const nv_model *m, int32_t a, const int32_t *with, size_t n_with,
                                   int answer_only, nv_phys *ph)
{
    if (n_with != 1 || !nearest_applies(m, &m->apps[a], &m->apps[with[0]]))
        return two_mechanisms(m, a, with, n_with, answer_only, ph);
    /* one neighbour with its joint windows, a victim with every
     * configuration: the nearest configurations answer; the full path still
     * gives the two mechanisms' figures beside it */
    double v;
    if (answer_only) {
        ph->wait_pct = ph->share_pct = ph->wait_us = ph->utilization = NAN;
        v = nearest_answer(m, &m->apps[a], &m->apps[with[0]]);
    } else {
        (void)two_mechanisms(m, a, with, 1, 0, ph);
        v = nv_model_nearest_physics(m, a, with[0], &ph->utilization, &ph->wait_us);
    }
    ph->mechanism = NV_MECH_NEAREST;
    ph->capped = 0;
    return v;
}

static double two_mechanisms(const nv_model *m, int32_t a, const int32_t *with, size_t n_with,
                             int answer_only, nv_phys *ph)
{
    const struct nv_app_rec *A = &m->apps[a];
    int wcap = 0, ucap = 0;
    ph->wait_us = ph->utilization = NAN;
    ph->wait_pct = nv_model_wait_physics(m, a, with, n_with, &ph->wait_us, &wcap);
    if (answer_only && isfinite(ph->wait_pct)) {
        /* the share is theta_A times a mean of A's U curve, so at most
         * theta_A times its highest point: when that cannot beat the queue's
         * answer, the queue answers without reading the U curve */
        double w = ph->wait_pct < 0 ? 0 : ph->wait_pct;
        if (!A->n_anc || A->share_bound <= w) {
            ph->wait_pct = w;
            ph->share_pct = NAN;
            ph->mechanism = NV_MECH_WAIT;
            ph->capped = wcap;
            return w;
        }
    }
    double pu = nv_model_queue_physics(m, a, with, n_with, &ph->utilization, &ucap);
    /* a shared port cannot speed a victim up: a curve that reads below 0 %
     * at light load carries the noise of the victim's own baseline */
    if (ph->wait_pct < 0)
        ph->wait_pct = 0;
    if (pu < 0)
        pu = 0;
    if (!isfinite(ph->wait_pct)) {
        /* no queue gauge for A or for a neighbour: p_A(U) alone */
        ph->mechanism = NV_MECH_UTILIZATION;
        ph->share_pct = NAN;
        ph->capped = ucap;
        return pu;
    }
    /* the share a queue-free neighbour still takes: A's curve under the
     * campaign's load of the same U, scaled by A's own load at the port */
    double theta = nv_share_weight(m, A);
    ph->share_pct = isfinite(pu) ? theta * pu : NAN;
    if (isfinite(ph->share_pct) && ph->share_pct > ph->wait_pct) {
        ph->mechanism = NV_MECH_SHARE;
        ph->capped = ucap;
        return ph->share_pct;
    }
    ph->mechanism = NV_MECH_WAIT;
    ph->capped = wcap;
    return ph->wait_pct;
}

/* The answer alone for A beside one neighbour B (job_submit's loop asks
 * pair by pair): nv_model_bottleneck_physics(m, a, &b, 1, 1, ...)'s return
 * value, bit for bit (the same two means, the same floors and the same
 * choice), with nothing else computed or stored
 * (test_model_bottleneck: the_answer_alone_is_the_full_answer). */
double nv_model_pair_physics(const nv_model *m, int32_t a, int32_t b)
{
    const struct nv_app_rec *A = &m->apps[a], *B = &m->apps[b];
    if (nearest_applies(m, A, B))
        return nearest_answer(m, A, B);
    double wait = NAN;
    if (A->n_wanc && B->n_wprof) {
        const struct nv_seg *c = m->acurve + A->wanc_off;
        const struct nv_seg_grid *gr = grid_of(m, a, A->n_wanc, 1);
        const double *w = m->profile + B->wprof_off;
        /* a call with NULL spelt out lets the compiler inline a copy of the
         * loop without the grid test, for the short curves most apps have */
        wait = gr ? wait_answer(c, A->n_wanc, gr, w, B->n_wprof)
                  : wait_answer(c, A->n_wanc, NULL, w, B->n_wprof);
        if (isfinite(wait)) {
            if (wait < 0)
                wait = 0;
            /* the share can be no more than its bound: the queue answers */
            if (!A->n_anc || A->share_bound <= wait)
                return wait;
        }
    }
    if (!A->n_anc)
        return isfinite(wait) ? wait : NAN;
    /* bandwidth share: theta_A E_k[p_A(max(U_k, idle))] over B's U octiles
     * (or its mean U) */
    const struct nv_seg *c = m->acurve + A->anc_off;
    const struct nv_seg_grid *gr = grid_of(m, a, A->n_anc, 0);
    const double *u = B->n_prof ? m->profile + B->prof_off : &B->utilization;
    size_t K = B->n_prof ? B->n_prof : 1;
    double idle = m->bn.idle_utilization;
    double pu = gr ? share_mean(c, A->n_anc, gr, u, K, idle) /* as above */
                   : share_mean(c, A->n_anc, NULL, u, K, idle);
    if (pu < 0)
        pu = 0;
    if (!isfinite(wait))
        return pu; /* no queue gauge for A or for B: p_A(U) alone */
    double share = isfinite(pu) ? nv_share_weight(m, A) * pu : NAN;
    return isfinite(share) && share > wait ? share : wait;
}

/* s_A and q_B by alternating ridge regressions: measured ~ s_A q_B physics */
static int fit_corrections(nv_model *m, char *err, size_t errlen)
{
    for (size_t i = 0; i < m->n_apps; i++) {
        m->apps[i].sens = m->apps[i].press = 1;
        m->apps[i].sens_n = m->apps[i].press_n = 0;
    }
    /* files from before the "bottleneck" object get the physics alone */
    if (!m->bn.present || !m->n_pairs || !m->n_apps)
        return 0;
    double *phys = malloc(m->n_pairs * sizeof *phys);
    double *num = calloc(m->n_apps, sizeof *num), *den = calloc(m->n_apps, sizeof *den),
           *cnt = calloc(m->n_apps, sizeof *cnt);
    if (!phys || !num || !den || !cnt) {
        free(phys);
        free(num);
        free(den);
        free(cnt);
        snprintf(err, errlen, "model: out of memory fitting the history corrections");
        return -1;
    }
    double k0 = m->bn.shrink_samples > 0 ? m->bn.shrink_samples : 2;
    /* The table's own noise: the pooled variance of the pairs' repetitions
     * (pp^2).  A factor fitted from pairs whose physics is a few pp is a
     * ratio of noise; the ridge is never weaker than that noise over a
     * factor's prior spread, NV_CORRECTION_PRIOR_SD, so such pairs move a
     * factor little and a pair of tens of pp moves it as before.  One walk
     * over the pairs: their physics, the samples behind each factor, and
     * that variance. */
    double vnum = 0, vden = 0;
    for (size_t p = 0; p < m->n_pairs; p++) {
        const nv_pair_view *pv = &m->pairs[p];
        nv_phys ph;
        phys[p] = pv->samples ? nv_model_bottleneck_physics(m, pv->app, &pv->with, 1, 0, &ph) : NAN;
        if (isfinite(phys[p])) {
            m->apps[pv->app].sens_n += pv->samples;
            m->apps[pv->with].press_n += pv->samples;
        }
        if (pv->samples >= 2 && isfinite(pv->sd_pct)) {
            vnum += (pv->samples - 1.0) * pv->sd_pct * pv->sd_pct;
            vden += pv->samples - 1.0;
        }
    }
    double noise_var = vden > 0 ? vnum / vden : 0;
    m->bn.table_noise_sd_pct = isfinite(noise_var) ? sqrt(noise_var) : INFINITY;
    double noise_lambda = noise_var / (NV_CORRECTION_PRIOR_SD * NV_CORRECTION_PRIOR_SD);
    for (int round = 0; round < ALS_ROUNDS; round++) {
        for (int side = 0; side < 2; side++) {
            /* side 0: each victim's sensitivity given the pressures; side 1:
             * each neighbour's pressure given the sensitivities.  The ridge
             * pulls toward 1 with the weight of k0 typical samples. */
            memset(num, 0, m->n_apps * sizeof *num);
            memset(den, 0, m->n_apps * sizeof *den);
            memset(cnt, 0, m->n_apps * sizeof *cnt);
            for (size_t p = 0; p < m->n_pairs; p++) {
                if (!isfinite(phys[p]))
                    continue;
                const nv_pair_view *pv = &m->pairs[p];
                int32_t me = side ? pv->with : pv->app, other = side ? pv->app : pv->with;
                double x = phys[p] * (side ? m->apps[other].sens : m->apps[other].press);
                num[me] += pv->samples * pv->slowdown_pct * x;
                den[me] += pv->samples * x * x;
                cnt[me] += pv->samples;
            }
            for (size_t i = 0; i < m->n_apps; i++) {
                double f = 1;
                if (cnt[i] > 0 && den[i] > 0) {
                    double lambda = k0 * den[i] / cnt[i];
                    if (lambda < noise_lambda)
                        lambda = noise_lambda;
                    f = (num[i] + lambda) / (den[i] + lambda);
                }
                if (!isfinite(f)) /* a table whose spread overflows: the physics */
                    f = 1;
                f = f < 0 ? 0 : f > NV_CORRECTION_MAX ? NV_CORRECTION_MAX : f;
                if (side)
                    m->apps[i].press = f;
                else
                    m->apps[i].sens = f;
            }
        }
    }
    free(phys);
    free(num);
    free(den);
    free(cnt);
    return 0;
}

/* the span of m->profile that holds app a's profiles: both when they lie
 * side by side (as the loader keeps them), else the wait profile, which a
 * prediction reads first */
static void profile_span(const struct nv_app_rec *a, struct nv_app_where *w)
{
    if (a->n_prof && a->n_wprof && a->wprof_off == a->prof_off + a->n_prof) {
        w->profs_off = a->prof_off;
        w->n_profs = a->n_prof + a->n_wprof;
    } else if (a->n_wprof) {
        w->profs_off = a->wprof_off;
        w->n_profs = a->n_wprof;
    } else {
        w->profs_off = a->prof_off;
        w->n_profs = a->n_prof;
    }
}

int nv_model_derive_bottleneck(nv_model *m, char *err, size_t errlen)
{
    if (anchor_curves(m, err, errlen) || nearest_setup(m, err, errlen))
        return -1;
    m->where = malloc((m->n_apps ? m->n_apps : 1) * sizeof *m->where);
    if (!m->where) {
        snprintf(err, errlen, "model: out of memory for %zu apps", m->n_apps);
        return -1;
    }
    /* grids only in a model with a curve long enough to have one (64
     * bytes per curve; a campaign of up to 11 configurations has none) */
    int long_curves = 0;
    for (size_t i = 0; i < m->n_apps; i++)
        long_curves |= nv_seg_gridded(m->apps[i].n_anc) || nv_seg_gridded(m->apps[i].n_wanc);
    m->sgrid = NULL;
    if (long_curves && !(m->sgrid = malloc(2 * m->n_apps * sizeof *m->sgrid))) {
        snprintf(err, errlen, "model: out of memory for %zu apps' curve grids", m->n_apps);
        return -1;
    }
    for (size_t i = 0; i < m->n_apps; i++) {
        const struct nv_app_rec *a = &m->apps[i];
        m->where[i] = (struct nv_app_where){a->anc_off, a->n_anc + a->n_wanc,  0, 0,
                                            a->pjw_off, m->jwin ? a->n_pjw : 0};
        profile_span(a, &m->where[i]);
        if (m->sgrid) {
            nv_seg_grid_build(m->acurve + a->anc_off, a->n_anc, &m->sgrid[2 * i]);
            nv_seg_grid_build(m->acurve + a->wanc_off, a->n_wanc, &m->sgrid[2 * i + 1]);
        }
    }
    return fit_corrections(m, err, errlen);
}
