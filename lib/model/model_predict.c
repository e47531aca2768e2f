/* model_predict.c - slowdown of A beside neighbours: co-location table
 * first, then one of the four predictors (predict.h).  Runs in slurmctld's
 * submission path: no allocation, no syscalls, no writes to the model.
 * predict_core asks the question (struct predict_args) of one function per
 * route: resolve_neighbours, then answer_from_table, answer_queue or
 * answer_lookup; all static, so the compiler folds them back into it. */
#include <stdint.h>
#include <strings.h>
#include <math.h>
#include <string.h>

#include "model_internal.h"
#include "predict.h"
#include "queue.h"

static const char *const predictor_names[NV_PREDICTOR_COUNT] = {"queue", "averagelt",
                                                                "averagestdevlt", "pdflt"};
static const char *const model_labels[NV_PREDICTOR_COUNT] = {"model:queue", "model:averagelt",
                                                             "model:averagestdevlt", "model:pdflt"};
/* the queue route by mechanism (enum nv_mechanism): physics alone, and
 * with the history corrections */
static const char *const mechanism_names[] = {"utilization", "queue-wait", "bandwidth-share",
                                              "nearest-configurations"};
static const char *const physics_labels[] = {"model:queue", "model:queue-wait", "model:queue-share",
                                             "model:queue-nearest"};
static const char *const history_labels[] = {"model:queue+history", "model:queue-wait+history",
                                             "model:queue-share+history",
                                             "model:queue-nearest+history"};

const char *nv_predictor_name(nv_predictor p)
{
    return (unsigned)p < NV_PREDICTOR_COUNT ? predictor_names[p] : "unknown";
}

int nv_predictor_from_name(const char *name, nv_predictor *out)
{
    if (!name)
        return -1;
    for (int i = 0; i < NV_PREDICTOR_COUNT; i++)
        if (!strcasecmp(name, predictor_names[i])) {
            *out = (nv_predictor)i;
            return 0;
        }
    return -1;
}

const char *nv_predict_strerror(int status)
{
    switch (status) {
    case NV_PRED_OK: return "ok";
    case NV_PRED_EINVAL: return "invalid argument (no app, no neighbour or unknown predictor)";
    case NV_PRED_EUNKNOWN_APP: return "the app is not in the model";
    case NV_PRED_EUNKNOWN_WITH: return "a neighbour is not in the model";
    case NV_PRED_ENODATA: return "the model has no compression data to answer for this app";
    }
    return "unknown error";
}

/* A's measured slowdown under configuration c (binary search in A's
 * slowdowns, sorted by configuration); 0 when found */
static int measured_under(const nv_model *m, const struct nv_app_rec *a, int32_t c, double *pct)
{
    const struct nv_slow_rec *s = m->slow + a->slow_off;
    size_t lo = 0, hi = a->n_slow;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s[mid].config < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < a->n_slow && s[lo].config == c) {
        *pct = s[lo].pct;
        return 0;
    }
    return -1;
}

/* configuration whose utilization is nearest u (ties: the lower U) */
static int32_t config_nearest_util(const nv_model *m, double u)
{
    size_t n = m->n_configs, lo = 0, hi = n;
    while (lo < hi) { /* first with U >= u */
        size_t mid = lo + (hi - lo) / 2;
        if (m->configs[m->cfg_by_util[mid]].utilization < u)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == n)
        return m->cfg_by_util[n - 1];
    if (lo == 0)
        return m->cfg_by_util[0];
    int32_t above = m->cfg_by_util[lo], below = m->cfg_by_util[lo - 1];
    double da = m->configs[above].utilization - u, db = u - m->configs[below].utilization;
    return da < db ? above : below;
}

/* start loading every cache line of base[off .. off + n) (elements of
 * size bytes; nothing when n is 0 or there is no array, and no address
 * outside the span) */
static inline void prefetch_span(const void *base, size_t off, size_t n, size_t size)
{
    if (!n || !base)
        return;
    const char *p = (const char *)base + off * size;
    uintptr_t first = (uintptr_t)p & ~(uintptr_t)63,
              last = ((uintptr_t)p + n * size - 1) & ~(uintptr_t)63;
    __builtin_prefetch(p);
    for (uintptr_t l = first + 64; l <= last; l += 64)
        __builtin_prefetch((const void *)l);
}

typedef int32_t (*with_fn)(const nv_model *m, const void *with, size_t i);

static int32_t with_from_idx(const nv_model *m, const void *with, size_t i)
{
    int32_t b = ((const int32_t *)with)[i];
    return b >= 0 && (size_t)b < m->n_apps ? b : -1;
}

static int32_t with_from_key(const nv_model *m, const void *with, size_t i)
{
    return nv_model_app_index(m, ((const char *const *)with)[i]);
}

/* One prediction's question: A (a model index, or -1) beside n_with
 * neighbours, read through get (by index or by key). */
struct predict_args {
    const nv_model *m;
    int32_t a;
    const void *with;
    with_fn get;
    size_t n_with;
    nv_predictor predictor;
    uint32_t min_samples;
    int answer_only;  /* job_submit's path: the losing mechanism only when it could win */
    size_t *bad_with; /* the first unknown neighbour's position, may be NULL */
};

/* What the pass over the neighbours found, for the mechanisms. */
struct neighbours {
    const struct nv_app_rec *A;
    int32_t first_b;               /* the first neighbour */
    int32_t first_cfg;             /* lookup: its configuration under the rule, -1: none */
    double cfg_usum;               /* lookup: the utilizations of their configurations */
    int32_t idx[NV_PRED_MAX_WITH]; /* queue: the first neighbours' indexes */
};

/* every field as an answer that failed before any mechanism ran */
static void prediction_reset(nv_prediction *out, nv_predictor predictor)
{
    memset(out, 0, sizeof *out);
    out->config = -1;
    out->config_id = "";
    out->mechanism = "";
    out->curve = "";
    out->wait_used_us = NAN;
    out->wait_pct = out->share_pct = NAN;
    out->predictor = predictor;
}

/* One pass: resolve the neighbours, add their utilizations, and (lookup
 * rules) those of the configurations they map to.  The queue route's reads
 * of A and of each neighbour are started here, so that their cache misses
 * overlap each other and the table probe instead of following one
 * another. */
static int resolve_neighbours(const struct predict_args *pa, struct neighbours *nb,
                              nv_prediction *out)
{
    const nv_model *m = pa->m;
    const struct nv_app_rec *A = nb->A;
    int queue = pa->predictor == NV_PREDICT_QUEUE;
    int rule = pa->predictor == NV_PREDICT_AVERAGE_LT         ? NV_PICK_AVERAGE
               : pa->predictor == NV_PREDICT_AVERAGE_STDEV_LT ? NV_PICK_AVERAGE_STDEV
                                                              : NV_PICK_PDF;
    if (queue && m->acurve) {
        prefetch_span(m->acurve, A->anc_off, A->n_anc, sizeof *m->acurve);
        prefetch_span(m->acurve, A->wanc_off, A->n_wanc, sizeof *m->acurve);
    }
    double usum = 0, cfg_usum = 0;
    nb->first_b = nb->first_cfg = -1;
    for (size_t i = 0; i < pa->n_with; i++) {
        int32_t b = pa->get(m, pa->with, i);
        if (b < 0) {
            if (pa->bad_with)
                *pa->bad_with = i;
            return NV_PRED_EUNKNOWN_WITH;
        }
        if (i < NV_PRED_MAX_WITH)
            nb->idx[i] = b;
        const struct nv_app_rec *B = &m->apps[b];
        if (i < NV_PRED_DETAIL)
            out->with_utilization[i] = B->utilization;
        usum += B->utilization;
        if (queue) {
            prefetch_span(m->profile, B->prof_off, B->n_prof, sizeof *m->profile);
            prefetch_span(m->profile, B->wprof_off, B->n_wprof, sizeof *m->profile);
            if (i == 0)
                nb->first_b = b;
            continue;
        }
        int32_t c = B->pick[rule];
        if (i == 0) {
            nb->first_b = b;
            nb->first_cfg = c;
        }
        if (c >= 0)
            cfg_usum += m->configs[c].utilization;
    }
    out->utilization_sum = usum;
    nb->cfg_usum = cfg_usum;
    return NV_PRED_OK;
}

/* The co-location table: one neighbour, and the pair measured at least
 * min_samples times.  Returns 1 when it answered (the entry's samples and
 * spread are echoed whenever there is one). */
static int answer_from_table(const struct predict_args *pa, const struct neighbours *nb,
                             nv_prediction *out)
{
    long p = nv_model_pair_slot(pa->m, pa->a, nb->first_b);
    if (p < 0)
        return 0;
    const nv_pair_view *pv = &pa->m->pairs[p];
    out->table_samples = pv->samples;
    out->table_sd_pct = pv->sd_pct;
    if (pv->samples < pa->min_samples)
        return 0;
    out->source = NV_SOURCE_TABLE;
    out->source_label = "table";
    out->runs = pv->samples;
    out->slowdown_pct = pv->slowdown_pct;
    out->utilization_used = out->utilization_sum;
    return 1;
}

/* The queue route: the bottleneck physics of at most NV_PRED_MAX_WITH
 * neighbours, and the history corrections (A's sensitivity, their mean
 * pressure). */
static int answer_queue(const struct predict_args *pa, const struct neighbours *nb,
                        nv_prediction *out)
{
    const nv_model *m = pa->m;
    const struct nv_app_rec *A = nb->A;
    if (A->n_anc == 0 && A->n_wanc == 0) /* anchored curves exist where fits do */
        return NV_PRED_ENODATA;
    size_t n = pa->n_with < NV_PRED_MAX_WITH ? pa->n_with : NV_PRED_MAX_WITH;
    /* on the counters route the neighbours' pressures correct only a
     * victim with pairs of its own (nv_pressure_applies); a victim
     * without them gets its physics (its sensitivity is then 1) */
    double press = (double)n;
    uint32_t hist = A->sens_n;
    if (nv_pressure_applies(m, A)) {
        press = 0;
        for (size_t i = 0; i < n; i++) {
            press += m->apps[nb->idx[i]].press;
            hist += m->apps[nb->idx[i]].press_n;
        }
    }
    nv_phys ph;
    double phys = nv_model_bottleneck_physics(m, pa->a, nb->idx, n, pa->answer_only, &ph);
    if (!isfinite(phys))
        return NV_PRED_ENODATA;
    /* several neighbours: their mean pressure scales the joint physics */
    double corr = phys * (A->sens * (n ? press / (double)n : 1) - 1);
    int mech = ph.mechanism;
    out->mechanism = mechanism_names[mech];
    out->source_label = physics_labels[mech];
    out->wait_used_us = ph.wait_us;
    out->utilization_used = ph.utilization;
    out->wait_pct = ph.wait_pct;
    out->share_pct = ph.share_pct;
    out->capped = ph.capped;
    out->physics_pct = phys;
    out->correction_pp = corr;
    out->history_samples = hist;
    double pct = phys + corr;
    out->slowdown_pct = pct < -100 ? -100 : pct;
    if (corr != 0)
        out->source_label = history_labels[mech];
    if (A->curve_origin == NV_CURVE_PROFILE) /* a composed curve: the profile route */
        out->source_label = corr != 0 ? "model:profile+history" : "model:profile";
    out->curve = nv_curve_origin_name(A->curve_origin);
    out->runs = A->curve_runs;
    return NV_PRED_OK;
}

/* The look-up predictors: the first neighbour's configuration under the
 * rule, or with several the one whose U is nearest the sum of theirs; A's
 * slowdown measured there, else its curve at that U. */
static int answer_lookup(const struct predict_args *pa, const struct neighbours *nb,
                         nv_prediction *out)
{
    const nv_model *m = pa->m;
    const struct nv_app_rec *A = nb->A;
    if (m->n_configs == 0 || nb->first_cfg < 0)
        return NV_PRED_ENODATA;
    int32_t c = nb->first_cfg;
    if (pa->n_with > 1) {
        double top = m->configs[m->cfg_by_util[m->n_configs - 1]].utilization;
        if (nb->cfg_usum > top)
            out->capped = 1;
        c = config_nearest_util(m, nb->cfg_usum);
    }
    out->config = c;
    out->config_id = m->configs[c].id;
    out->curve = nv_curve_origin_name(A->curve_origin);
    out->runs = A->curve_runs;
    out->utilization_used = m->configs[c].utilization;
    double pct;
    if (measured_under(m, A, c, &pct) == 0) {
        out->slowdown_pct = pct;
        return NV_PRED_OK;
    }
    if (A->n_fit == 0)
        return NV_PRED_ENODATA;
    out->curve_fallback = 1;
    out->slowdown_pct = nv_curve_eval(m->curve + A->fit_off, A->n_fit, m->configs[c].utilization);
    return NV_PRED_OK;
}

/* The order of answers (predict.h): the table, then the predictor asked
 * for. */
static int predict_core(const struct predict_args *pa, nv_prediction *out)
{
    const nv_model *m = pa->m;
    prediction_reset(out, pa->predictor);
    if (!m || !pa->with || pa->n_with == 0 || (unsigned)pa->predictor >= NV_PREDICTOR_COUNT)
        return NV_PRED_EINVAL;
    if (pa->a < 0 || (size_t)pa->a >= m->n_apps)
        return NV_PRED_EUNKNOWN_APP;
    struct neighbours nb;
    nb.A = &m->apps[pa->a];
    out->app = nb.A->key;
    out->n_with = pa->n_with;
    int st = resolve_neighbours(pa, &nb, out);
    if (st != NV_PRED_OK)
        return st;
    if (pa->n_with == 1 && answer_from_table(pa, &nb, out))
        return NV_PRED_OK;
    out->source = NV_SOURCE_MODEL;
    out->source_label = model_labels[pa->predictor];
    return pa->predictor == NV_PREDICT_QUEUE ? answer_queue(pa, &nb, out)
                                             : answer_lookup(pa, &nb, out);
}

/* job_submit's path: both apps' records, the co-location slot and (from
 * the small where-array) the victim's curves and the neighbour's profiles
 * are known from the indexes alone, so their misses start together instead
 * of one after the other (app and b are valid indexes) */
static inline void prefetch_pair(const nv_model *m, int32_t app, int32_t b, int one,
                                 nv_predictor predictor)
{
    __builtin_prefetch(&m->apps[app]);
    __builtin_prefetch(&m->apps[b]);
    if (one && m->pair_cap)
        __builtin_prefetch(&m->pair_tab[nv_pair_hash(nv_pair_key(app, b)) & (m->pair_cap - 1)]);
    if (m->where && predictor == NV_PREDICT_QUEUE) {
        const struct nv_app_where *wa = &m->where[app], *wb = &m->where[b];
        __builtin_prefetch(&m->apps[app].share_bound);
        prefetch_span(m->acurve, wa->curves_off, wa->n_curves, sizeof *m->acurve);
        prefetch_span(m->profile, wb->profs_off, wb->n_profs, sizeof *m->profile);
        if (m->sgrid) { /* a model with long curves: the victim's two grids */
            __builtin_prefetch(&m->sgrid[2 * (size_t)app]);
            __builtin_prefetch(&m->sgrid[2 * (size_t)app + 1]);
        }
        if (m->nearest && wb->n_jwin) { /* the nearest configurations: the
                                           victim's row, the neighbour's windows */
            prefetch_span(m->nrow, (size_t)app * (m->n_configs + 1), m->n_configs + 1,
                          sizeof *m->nrow);
            prefetch_span(m->jwin, wb->jwin_off, wb->n_jwin, sizeof *m->jwin);
        }
    }
}

int nv_predict_idx(const nv_model *m, int32_t app, const int32_t *with, size_t n_with,
                   nv_predictor predictor, uint32_t min_samples, nv_prediction *out)
{
    if (m && with && n_with && app >= 0 && (size_t)app < m->n_apps && with[0] >= 0 &&
        (size_t)with[0] < m->n_apps)
        prefetch_pair(m, app, with[0], n_with == 1, predictor);
    struct predict_args pa = {.m = m,
                              .a = app,
                              .with = with,
                              .get = with_from_idx,
                              .n_with = n_with,
                              .predictor = predictor,
                              .min_samples = min_samples,
                              .answer_only = 1};
    return predict_core(&pa, out);
}

double nv_predict_pair_pct(const nv_model *m, int32_t app, int32_t with, nv_predictor predictor,
                           uint32_t min_samples)
{
    if (!m || app < 0 || (size_t)app >= m->n_apps || with < 0 || (size_t)with >= m->n_apps ||
        (unsigned)predictor >= NV_PREDICTOR_COUNT)
        return NAN;
    prefetch_pair(m, app, with, 1, predictor);
    if (predictor != NV_PREDICT_QUEUE) {
        /* the look-up predictors: not job_submit's default, the full path */
        nv_prediction out;
        struct predict_args pa = {.m = m,
                                  .a = app,
                                  .with = &with,
                                  .get = with_from_idx,
                                  .n_with = 1,
                                  .predictor = predictor,
                                  .min_samples = min_samples,
                                  .answer_only = 1};
        int st = predict_core(&pa, &out);
        return st == NV_PRED_OK && isfinite(out.slowdown_pct) ? out.slowdown_pct : NAN;
    }
    /* answer_from_table then answer_queue for one neighbour, step for
     * step, keeping only the answer: the table when it has min_samples runs
     * of the pair, else the physics times the history corrections */
    long p = nv_model_pair_slot(m, app, with);
    if (p >= 0 && m->pairs[p].samples >= min_samples)
        return isfinite(m->pairs[p].slowdown_pct) ? m->pairs[p].slowdown_pct : NAN;
    double phys = nv_model_pair_physics(m, app, with); /* NAN for an app without curves */
    if (!isfinite(phys))
        return NAN;
    /* answer_queue's correction with one neighbour: its mean pressure is
     * its own */
    const struct nv_app_rec *A = &m->apps[app];
    double corr = phys * (A->sens * (nv_pressure_applies(m, A) ? m->apps[with].press : 1) - 1);
    double pct = phys + corr;
    pct = pct < -100 ? -100 : pct;
    return isfinite(pct) ? pct : NAN;
}

int nv_predict(const nv_model *m, const char *app, const char *const *with, size_t n_with,
               nv_predictor predictor, uint32_t min_samples, nv_prediction *out, size_t *bad_with)
{
    if (!m || !app) {
        memset(out, 0, sizeof *out);
        out->config = -1;
        out->config_id = "";
        return NV_PRED_EINVAL;
    }
    if (with)
        for (size_t i = 0; i < n_with; i++)
            if (!with[i]) {
                memset(out, 0, sizeof *out);
                out->config = -1;
                out->config_id = "";
                return NV_PRED_EINVAL;
            }
    struct predict_args pa = {.m = m,
                              .a = nv_model_app_index(m, app),
                              .with = with,
                              .get = with_from_key,
                              .n_with = n_with,
                              .predictor = predictor,
                              .min_samples = min_samples,
                              .bad_with = bad_with};
    return predict_core(&pa, out);
}
