/* submit_decision.c - job_submit/netvar's decision, pure (see header):
 * its stages but the last (submit_stages.h); the user's lines are
 * submit_message.c's. */
#include "submit_decision.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "alloc_advice.h"
#include "alloc_model.h"
#include "app_identity.h"
#include "counters_topology.h"
#include "fmt_lite.h"
#include "job_options.h"
#include "sort_cmp.h"
#include "submit_stages.h"

/* Every field zero but the two text buffers (exclude, message: 9.5 of the
 * decision's 10 KiB), which only need to start empty: a full memset was
 * about an eighth of a call's instructions.  The buffers are found by
 * name, so a field added anywhere, in any order, starts at zero. */
#define DECISION_END(f)                                                                            \
    (offsetof(struct nv_submit_decision, f) + sizeof(((struct nv_submit_decision *)0)->f))
static void zero_between(struct nv_submit_decision *d, size_t from, size_t to)
{
    if (to > from)
        memset((char *)d + from, 0, to - from);
}

/* buf = text, cut to cap (snprintf's "%s" without its cost per call) */
static void copy_text(char *buf, size_t cap, const char *text)
{
    size_t len = 0;
    if (cap)
        buf[0] = '\0';
    nv_fmt_append(buf, cap, &len, "%s", text);
}

void nv_submit_reset(struct nv_submit_decision *d, const nv_model *m,
                     const struct nv_running_index *ix)
{
    size_t ex = offsetof(struct nv_submit_decision, exclude), ex_end = DECISION_END(exclude);
    size_t msg = offsetof(struct nv_submit_decision, message), msg_end = DECISION_END(message);
    size_t first = ex < msg ? ex : msg, first_end = ex < msg ? ex_end : msg_end;
    size_t second = ex < msg ? msg : ex, second_end = ex < msg ? msg_end : ex_end;
    zero_between(d, 0, first);
    zero_between(d, first_end, second);
    zero_between(d, second_end, sizeof *d);
    d->exclude[0] = '\0';
    d->message[0] = '\0';
    /* the fields whose start is not zero */
    d->app_source = "none";
    d->vs_assumed = "";
    d->have_model = m != NULL;
    d->utilization = d->own_pct = d->own_single_pct = d->inflicted_pct = NAN;
    d->running_jobs = ix ? ix->njobs : 0;
    d->running_unknown = ix ? ix->unknown_jobs : 0;
}

void nv_submit_identify(const struct nv_config *c, const struct nv_submit_query *q,
                        struct nv_submit_decision *d)
{
    d->app_source = "none";
    if (q->app_option && nv_app_key_valid(q->app_option, NULL)) {
        copy_text(d->app, sizeof d->app, q->app_option);
        d->app_source =
            q->app_option_source && q->app_option_source[0] ? q->app_option_source : "--netvar-app";
        return;
    }
    for (int i = 0; i < NV_APP_FIELDS_MAX && c->app_fields[i]; i++) {
        if (c->app_fields[i] == NV_APPF_NAME &&
            nv_app_key_from_name(q->job_name, d->app, sizeof d->app)) {
            d->app_source = "job name";
            return;
        }
        if (c->app_fields[i] == NV_APPF_SCRIPT &&
            nv_app_key_from_script(q->script, d->app, sizeof d->app)) {
            d->app_source = "batch script";
            return;
        }
    }
    d->app[0] = '\0';
}

static void source_text(const nv_prediction *p, char *buf, size_t cap)
{
    size_t len = 0;
    if (p->source == NV_SOURCE_TABLE)
        nv_fmt_append(buf, cap, &len, "table, %u runs", p->table_samples);
    else
        copy_text(buf, cap, p->source_label);
}

static void add_exclude(struct nv_submit_decision *d, const struct nv_running_app *a)
{
    if (!a->nodes || !a->nodes[0])
        return;
    /* lengths kept, not measured: 32 lists of up to 8 KiB each are 512 KiB
     * of strlen per submission, which slurmctld paid at a site's scale */
    size_t len = d->exclude_len, add = a->nodes_len ? a->nodes_len : strlen(a->nodes);
    if (len + add + 2 > sizeof d->exclude) {
        d->exclude_cut = true;
        return;
    }
    if (len)
        d->exclude[len++] = ',';
    memcpy(d->exclude + len, a->nodes, add + 1);
    d->exclude_len = len + add;
    d->exclude_cut |= a->nodes_cut;
}

/* slowdown of a beside b, or NAN when the model has no answer */
static double predict_pct(const nv_model *m, int32_t a, int32_t b, nv_predictor pred,
                          uint32_t min_samples, nv_prediction *out)
{
    if (!out) /* the loop over running apps: the answer alone */
        return nv_predict_pair_pct(m, a, b, pred, min_samples);
    if (nv_predict_idx(m, a, &b, 1, pred, min_samples, out) == NV_PRED_OK &&
        isfinite(out->slowdown_pct))
        return out->slowdown_pct;
    return NAN;
}

/* self's row of the index's memo (registry.h): ready to read (*fill 0),
 * claimed by this thread to fill (*fill 1), or NULL: compute.  Without
 * claim only a ready row is returned: no row is handed out or filled. */
static double *memo_row(const struct nv_running_index *ix, int32_t self, uint64_t key, bool claim,
                        int *fill)
{
    struct nv_neighbour_memo *mm = ix ? ix->memo : NULL;
    *fill = 0;
    if (!mm || self < 0 || (size_t)self >= mm->napps_model || mm->cols != 2 * ix->napps)
        return NULL;
    int32_t r = __atomic_load_n(&mm->row_of[self], __ATOMIC_ACQUIRE);
    if (r < 0 && !claim)
        return NULL;
    if (r < 0) {
        uint32_t nr = __atomic_fetch_add(&mm->used, 1, __ATOMIC_RELAXED);
        if (nr >= NV_MEMO_ROWS)
            return NULL; /* the rows are taken: this app is computed every time */
        int32_t expect = -1;
        r = __atomic_compare_exchange_n(&mm->row_of[self], &expect, (int32_t)nr, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)
                ? (int32_t)nr
                : expect;
    }
    uint8_t st = __atomic_load_n(&mm->state[r], __ATOMIC_ACQUIRE);
    if (st == 2)
        return mm->key[r] == key ? mm->pct + (size_t)r * mm->cols : NULL;
    uint8_t zero = 0;
    if (claim && st == 0 &&
        __atomic_compare_exchange_n(&mm->state[r], &zero, 1, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_RELAXED)) {
        *fill = 1;
        return mm->pct + (size_t)r * mm->cols;
    }
    return NULL; /* another thread is filling it */
}

static void memo_publish(const struct nv_running_index *ix, int32_t self, uint64_t key)
{
    struct nv_neighbour_memo *mm = ix->memo;
    int32_t r = __atomic_load_n(&mm->row_of[self], __ATOMIC_ACQUIRE);
    mm->key[r] = key;
    __atomic_store_n(&mm->state[r], 2, __ATOMIC_RELEASE);
}

/* self's remembered sum (registry.h's nv_memo_sum): ready to read (*fill
 * 0), claimed by this thread to fill (*fill 1), or NULL: compute */
static struct nv_memo_sum *memo_sum(const struct nv_running_index *ix, int32_t self, uint64_t key,
                                    int *fill)
{
    struct nv_neighbour_memo *mm = ix ? ix->memo : NULL;
    *fill = 0;
    if (!mm || self < 0 || (size_t)self >= mm->napps_model)
        return NULL;
    struct nv_memo_sum *e = &mm->sum[self];
    uint8_t st = __atomic_load_n(&e->state, __ATOMIC_ACQUIRE);
    if (st == 2)
        return e->key == key ? e : NULL;
    uint8_t zero = 0;
    if (st == 0 &&
        __atomic_compare_exchange_n(&e->state, &zero, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
        *fill = 1;
        return e;
    }
    return NULL; /* another thread is filling it */
}

/* the running job named behind a prediction: one that crosses an uplink
 * when the app has one (its jobs under one leaf share no port), else its
 * first */
static uint32_t job_behind(const struct nv_running_app *a)
{
    return a->span_switches > 1 ? a->span_jobid : a->first_jobid;
}

/* a running app the newcomer's known placement misses: both span leaf
 * switches, and no leaf of its spanning jobs is one of the newcomer's */
static bool apart(const struct nv_submit_decision *d, const struct nv_running_app *a)
{
    return d->place.leaves > 1 && !a->local && !nv_leaf_set_meets(&a->leaves, &d->place.set);
}

/* the source of an answer the paths gave (NULL: a predictor answered) */
static const char *path_source(const struct nv_submit_query *q, const struct nv_submit_decision *d,
                               const struct nv_running_app *a)
{
    if (q->max_nodes == 1)
        return NV_PATH_SOURCE_ONE_NODE;
    if (d->place.leaves == 1 || a->local)
        return NV_PATH_SOURCE_LOCAL;
    return apart(d, a) ? NV_PATH_SOURCE_APART : NULL;
}

/* The running apps whose paths meet the newcomer's and that the model
 * answered for, in the index's order (highest utilization first): at most
 * NV_PRED_MAX_WITH of them, the jobs of the rest counted in vs_cut. */
struct shared {
    uint16_t k[NV_PRED_MAX_WITH];
    size_t n;
};

/* an app's jobs that may cross an uplink: those not under one leaf switch
 * (all of them when their switches are unknown) */
static uint32_t spanning_jobs(const struct nv_running_app *a)
{
    uint32_t n = a->njobs > a->jobs_local ? a->njobs - a->jobs_local : 0;
    return n ? n : 1;
}

static void shared_add(struct shared *sh, size_t k, const struct nv_running_app *a,
                       struct nv_submit_decision *d)
{
    if (sh->n < NV_PRED_MAX_WITH && k <= UINT16_MAX)
        sh->k[sh->n++] = (uint16_t)k;
    else
        d->vs_cut += spanning_jobs(a);
}

/* uplinks tracked one by one; the newcomer's further leaves are one more */
#define NV_SUBMIT_UPLINKS 16

/* The newcomer beside the running jobs of sh whose leaves meet g (every
 * job of sh when g is NULL), summed: each app once per spanning job, at
 * most NV_PRED_MAX_WITH jobs (the rest go to *cut).  Returns the slowdown,
 * NAN when none meets g or the model has no answer; *n the jobs summed. */
static double beside_sum(const nv_model *m, int32_t self, const struct nv_running_index *ix,
                         const struct shared *sh, const nv_leaf_set *g, nv_predictor pred,
                         uint32_t min_samples, uint32_t *n, uint32_t *cut, nv_prediction *p)
{
    int32_t with[NV_PRED_MAX_WITH];
    size_t nw = 0;
    *n = *cut = 0;
    for (size_t i = 0; i < sh->n; i++) {
        const struct nv_running_app *a = &ix->apps[sh->k[i]];
        if (g && !nv_leaf_set_meets(&a->leaves, g))
            continue;
        for (uint32_t j = spanning_jobs(a); j > 0; j--) {
            if (nw < NV_PRED_MAX_WITH)
                with[nw++] = a->app;
            else
                (*cut)++;
        }
    }
    *n = (uint32_t)nw;
    if (nw < 2)
        return NAN; /* one neighbour: the pair loop's answer */
    if (nv_predict_idx(m, self, with, nw, pred, min_samples, p) == NV_PRED_OK &&
        isfinite(p->slowdown_pct))
        return p->slowdown_pct;
    return NAN;
}

/* The jobs that share a port with the newcomer are one load there: own_pct
 * becomes the newcomer beside their sum, at the worst of its uplinks when
 * its placement is known (each of its leaf switches, the first
 * NV_SUBMIT_UPLINKS one by one and the rest as one; a running app's jobs
 * counted at every leaf its spanning jobs use, since the index keeps the
 * app's leaves, not each job's), else beside all of them, as if on one
 * uplink.  Never below the worst single neighbour: a neighbour more adds
 * load, and a pair the co-location table measured is the better figure
 * for that pair.  No allocation: the lists are on the stack. */
static void sum_neighbours(const struct nv_config *c, const nv_model *m, int32_t self,
                           const struct nv_running_index *ix, struct nv_submit_decision *d,
                           const struct shared *sh, nv_predictor pred, uint64_t key)
{
    nv_prediction p;
    char src[sizeof d->own_source] = "";
    double best = NAN;
    uint32_t n = 0, cut = 0;
    if (!sh->n)
        return;
    if (d->place.leaves > 1) {
        /* one set per leaf of the newcomer's, the last holding the rest */
        nv_leaf_set one[NV_SUBMIT_UPLINKS + 1];
        size_t ng = 0;
        memset(one, 0, sizeof one);
        for (unsigned b = 0; b < 64 * NV_LEAF_SET_WORDS; b++) {
            uint64_t bit = (uint64_t)1 << (b & 63);
            if (!(d->place.set.w[b >> 6] & bit))
                continue;
            one[ng < NV_SUBMIT_UPLINKS ? ng : NV_SUBMIT_UPLINKS].w[b >> 6] |= bit;
            if (ng <= NV_SUBMIT_UPLINKS)
                ng++;
        }
        for (size_t g = 0; g < ng; g++) {
            uint32_t gn, gcut;
            double v =
                beside_sum(m, self, ix, sh, &one[g], pred, c->min_pair_samples, &gn, &gcut, &p);
            d->vs_uplinks += gn > 0;
            if (gn > n || (gn == n && gcut > cut))
                n = gn, cut = gcut;
            if (isfinite(v) && (!isfinite(best) || v > best)) {
                best = v;
                source_text(&p, src, sizeof src);
            }
        }
    } else {
        /* placement unknown: the answer is the index's and the app's
         * alone, remembered per app for the index's life */
        int fill = 0;
        struct nv_memo_sum *e = memo_sum(ix, self, key, &fill);
        if (e && !fill) {
            best = e->pct;
            n = e->n;
            cut = e->cut;
            copy_text(src, sizeof src, e->src);
        } else {
            best = beside_sum(m, self, ix, sh, NULL, pred, c->min_pair_samples, &n, &cut, &p);
            if (isfinite(best))
                source_text(&p, src, sizeof src);
            if (e) {
                e->pct = best;
                e->n = n;
                e->cut = cut;
                copy_text(e->src, sizeof e->src, src);
                e->key = key;
                __atomic_store_n(&e->state, 2, __ATOMIC_RELEASE);
            }
        }
        d->vs_assumed = "placement unknown: all running jobs on shared uplinks assumed";
    }
    d->vs_n = n ? n : 1; /* sh holds one app at least: a pair */
    d->vs_cut += cut;
    if (isfinite(best) && (!isfinite(d->own_pct) || best > d->own_pct)) {
        d->own_pct = best;
        copy_text(d->own_source, sizeof d->own_source, src);
    }
}

/* beyond: bit k set when kept app k is predicted past the threshold, either
 * way; its nodes go to the exclude list only if a rule asks for avoid.
 * The paths answer first (predict.h): a newcomer on one node or under one
 * leaf switch (its --nodelist read against the leaf map), a running app
 * whose every job lies under one leaf switch, or a spanning newcomer whose
 * leaves miss those of the app's spanning jobs, shares no bottleneck port
 * with the other, so both slowdowns are 0 % and no predictor runs. */
static void predict_neighbours(const struct nv_config *c, const nv_model *m, int32_t self,
                               const struct nv_running_index *ix, const struct nv_submit_query *q,
                               struct nv_submit_decision *d, uint8_t *beyond_set)
{
    nv_predictor pred = NV_PREDICT_QUEUE;
    nv_predictor_from_name(c->predictor, &pred);
    uint64_t key = ((uint64_t)(uint32_t)pred << 32) | c->min_pair_samples;
    bool here_local = q->max_nodes == 1 || d->place.leaves == 1;
    int fill = 0;
    /* a newcomer under one leaf computes nothing, so it claims no memo row;
     * one whose placement is known reads a row but does not fill one, since
     * it leaves out the apps it is apart from */
    double *row = here_local ? NULL : memo_row(ix, self, key, d->place.leaves == 0, &fill);
    const struct nv_running_app *own_with = NULL, *infl_by = NULL;
    struct shared sh = {.n = 0};
    for (size_t k = 0; ix && k < ix->napps; k++) {
        const struct nv_running_app *a = &ix->apps[k];
        double own, infl;
        bool meets = !here_local && !a->local && !apart(d, a);
        if (here_local || a->local) {
            own = infl = 0.0;
            if (row && fill)
                row[2 * k] = row[2 * k + 1] = 0.0;
        } else if (apart(d, a)) {
            own = infl = 0.0; /* no row is filled here */
            d->apps_apart++;
        } else if (row && !fill) {
            own = row[2 * k];
            infl = row[2 * k + 1];
        } else {
            own = predict_pct(m, self, a->app, pred, c->min_pair_samples, NULL);
            infl = predict_pct(m, a->app, self, pred, c->min_pair_samples, NULL);
            if (row) {
                row[2 * k] = own;
                row[2 * k + 1] = infl;
            }
        }
        d->apps_considered++;
        if (meets && isfinite(own))
            shared_add(&sh, k, a, d);
        bool beyond = false;
        if (isfinite(own)) {
            if (!isfinite(d->own_pct) || own > d->own_pct) {
                d->own_pct = own;
                own_with = a;
            }
            beyond |= own > c->interference_pct;
        }
        if (isfinite(infl)) {
            if (!isfinite(d->inflicted_pct) || infl > d->inflicted_pct) {
                d->inflicted_pct = infl;
                infl_by = a;
            }
            beyond |= infl > c->interference_pct;
        }
        if (beyond && k < 8 * NV_SUBMIT_BEYOND_BYTES)
            beyond_set[k / 8] |= (uint8_t)(1u << (k % 8));
    }
    /* the sources of the two answers shown: their predictions once more */
    nv_prediction p;
    if (own_with) {
        const char *ps = path_source(q, d, own_with);
        if (ps) {
            copy_text(d->own_source, sizeof d->own_source, ps);
        } else {
            predict_pct(m, self, own_with->app, pred, c->min_pair_samples, &p);
            source_text(&p, d->own_source, sizeof d->own_source);
        }
        d->own_jobid = job_behind(own_with);
        d->own_with = own_with->key;
    }
    d->own_single_pct = d->own_pct;
    sum_neighbours(c, m, self, ix, d, &sh, pred, key);
    if (row && fill)
        memo_publish(ix, self, key);
    if (infl_by) {
        const char *ps = path_source(q, d, infl_by);
        if (ps) {
            copy_text(d->inflicted_source, sizeof d->inflicted_source, ps);
        } else {
            predict_pct(m, infl_by->app, self, pred, c->min_pair_samples, &p);
            source_text(&p, d->inflicted_source, sizeof d->inflicted_source);
        }
        d->inflicted_jobid = job_behind(infl_by);
        d->inflicted_app = infl_by->key;
    }
}

/* the nodes of the apps beyond the threshold, in the index's order */
static void build_exclude(const struct nv_running_index *ix, const uint8_t *beyond_set,
                          struct nv_submit_decision *d)
{
    for (size_t k = 0; ix && k < ix->napps && k < 8 * NV_SUBMIT_BEYOND_BYTES; k++)
        if (beyond_set[k / 8] & (1u << (k % 8))) {
            const struct nv_running_app *a = &ix->apps[k];
            add_exclude(d, a);
            if (a->span_switches > 1) {
                if (d->avoid_span_jobid) {
                    d->avoid_span_more++;
                } else {
                    d->avoid_span_jobid = a->span_jobid;
                    d->avoid_span_switches = a->span_switches;
                    d->avoid_span_app = a->key;
                }
            }
        }
}

/* Best node count: the predicted time T(N) x (1 + own slowdown), T from the
 * app's scaling points with log-log interpolation (advice.h).  Between two
 * points T is a power law, so its minimum over a range of N lies at a
 * measured point or at an end of the range: only those are evaluated, which
 * keeps the cost independent of how wide the user's range is. */
static void consider(const nv_app_view *v, uint32_t n, double factor, double *best_t,
                     uint32_t *best_n)
{
    double t;
    if (n == 0 || nv_scaling_time_s(v->scaling, v->n_scaling, n, &t) != 0)
        return;
    t *= factor;
    if (t < *best_t || (t == *best_t && n < *best_n)) {
        *best_t = t;
        *best_n = n;
    }
}

/* The node counts the advice may choose: the user's --nodes=MIN-MAX (only
 * MIN, or 1, when no range was given), never more than the cluster holds
 * (the switches in the model's alloc section, when it has them) or the
 * job's partitions hold (once the refresher has learnt them).  Returns
 * what cut the user's range: "" (nothing), "cluster" or "partition". */
static const char *allowed(const nv_model *m, const struct nv_submit_query *q, uint32_t *lo,
                           uint32_t *hi)
{
    const char *cut = "";
    *lo = q->min_nodes ? q->min_nodes : 1;
    *hi = q->max_nodes >= *lo ? q->max_nodes : *lo;
    uint32_t total = nv_alloc_total_nodes(nv_model_alloc(m));
    if (total && *hi > total) {
        *hi = total;
        cut = "cluster";
    }
    long part = nv_partitions_size(q->parts, q->partition);
    if (part > 0 && (uint64_t)*hi > (uint64_t)part) {
        *hi = (uint32_t)part;
        cut = "partition";
    }
    return cut;
}

/* Predicted communication time (alloc_advice.h): used when the model has
 * the app's communication profile.  Returns true when it answered. */
static bool advise_alloc(const nv_model *m, const struct nv_submit_query *q,
                         struct nv_submit_decision *d)
{
    const nv_alloc_model *am = nv_model_alloc(m);
    if (!am || !nv_alloc_app_find(am, d->app))
        return false;
    uint32_t lo, hi;
    const char *cut = allowed(m, q, &lo, &hi);
    if (lo > hi)
        return false; /* the partitions hold fewer nodes than the smallest count asked for */
    nv_alloc_query aq = {.app = d->app,
                         .min_nodes = lo,
                         .max_nodes = hi,
                         .ppn = q->ntasks_per_node,
                         .interference_pct = d->own_pct};
    nv_alloc_advice a;
    if (nv_alloc_advise(am, &aq, &a))
        return false;
    d->advice = true;
    d->advice_nodes = a.best.nodes;
    d->requested_nodes = lo;
    d->advice_saving_pct = a.compared.nodes != a.best.nodes ? a.margin_pct : 0;
    snprintf(d->advice_source, sizeof d->advice_source, "class %s (%.60s); profile: %.40s",
             nv_alloc_class_name(a.cls), a.predictor ? a.predictor->source : "?", a.app->source);
    nv_submit_alloc_line(&a, cut, d);
    if (q->advise_apply && hi > lo)
        d->resize_nodes = a.best.nodes;
    return true;
}

static void advise(const nv_model *m, const nv_app_view *v, const struct nv_submit_query *q,
                   struct nv_submit_decision *d)
{
    double factor = 1.0 + (isfinite(d->own_pct) ? d->own_pct : 0.0) / 100.0;
    uint32_t lo, hi;
    allowed(m, q, &lo, &hi);
    if (lo > hi)
        return; /* the cluster or the partitions have fewer nodes than the smallest count asked for */
    double best_t = INFINITY;
    uint32_t best = 0;
    for (size_t i = 0; i < v->n_scaling; i++) {
        uint32_t n = v->scaling[i].nodes;
        if (n >= lo && n <= hi)
            consider(v, n, factor, &best_t, &best);
    }
    consider(v, lo, factor, &best_t, &best);
    consider(v, hi, factor, &best_t, &best);
    if (!best)
        return;
    d->advice = true;
    d->advice_nodes = best;
    d->requested_nodes = lo;
    snprintf(d->advice_source, sizeof d->advice_source, "runtime history at %zu node count%s",
             v->n_scaling, v->n_scaling == 1 ? "" : "s");
    double t_req;
    if (nv_scaling_time_s(v->scaling, v->n_scaling, lo, &t_req) == 0 && t_req > 0) {
        t_req *= factor;
        d->advice_saving_pct = (t_req - best_t) / t_req * 100.0;
    }
    if (q->advise_apply && hi > lo)
        d->resize_nodes = best; /* pin the range to the advised count */
}

/* Slurm refuses a submission whose --nodelist names a node its exclude list
 * holds ("Invalid node name specified"), so avoid leaves out the nodes the
 * user named: netvar only adds, and never makes a submission fail.  A
 * --nodelist that could not be read leaves avoid out altogether, since what
 * it names is unknown. */
static void keep_named_nodes(const struct nv_named_nodes *nn, struct nv_submit_decision *d)
{
    if (nn->state == NV_NAMED_NONE || !d->exclude[0])
        return;
    if (nn->state != NV_NAMED_READ) {
        d->avoid_named = (size_t)-1;
        d->exclude[0] = '\0';
        d->exclude_len = 0;
        return;
    }
    char kept[NV_REG_NODES_MAX];
    size_t len = 0;
    const char *p = d->exclude;
    while (*p) {
        size_t w = strcspn(p, ",");
        char name[256];
        if (w > 0 && w < sizeof name) {
            memcpy(name, p, w);
            name[w] = '\0';
            if (nv_named_nodes_has(nn, name)) {
                if (!d->avoid_named++)
                    snprintf(d->avoid_named_first, sizeof d->avoid_named_first, "%.63s", name);
            } else if (len + w + 2 <= sizeof kept) {
                if (len)
                    kept[len++] = ',';
                memcpy(kept + len, name, w);
                len += w;
            }
        }
        p += w;
        if (*p == ',')
            p++;
    }
    kept[len] = '\0';
    memcpy(d->exclude, kept, len + 1);
    d->exclude_len = len;
}

/* The most nodes one leaf switch holds, from the model's alloc section (0:
 * the section names no switches) */
static uint32_t largest_leaf(const nv_model *m)
{
    const nv_alloc_model *am = m ? nv_model_alloc(m) : NULL;
    uint32_t most = 0;
    for (size_t i = 0, n = am ? nv_alloc_switch_count(am) : 0; i < n; i++) {
        const nv_alloc_switch *s = nv_alloc_switch_at(am, i);
        if (s && s->nodes > most)
            most = s->nodes;
    }
    return most;
}

/* the size of leaf i of the query's sizes, or of the alloc section's */
static uint32_t leaf_size_at(const struct nv_submit_query *q, const nv_alloc_model *am, size_t i)
{
    if (q->leaf_sizes)
        return q->leaf_sizes[i];
    const nv_alloc_switch *s = nv_alloc_switch_at(am, i);
    return s ? s->nodes : 0;
}

/* The fewest leaf switches that hold n nodes: from the query's leaf sizes,
 * else the switches of the model's alloc section; 1 when neither names a
 * switch, or all of them hold fewer than n.  The largest leaves first, one
 * size at a time (no copy, no sort: it runs inside job_submit); a job that
 * fits one leaf costs one pass. */
static uint32_t fewest_leaves(const nv_model *m, const struct nv_submit_query *q, uint32_t n)
{
    const nv_alloc_model *am = m ? nv_model_alloc(m) : NULL;
    size_t k = q->leaf_sizes ? q->nleaf_sizes : am ? nv_alloc_switch_count(am) : 0;
    uint64_t have = 0, used = 0;
    uint32_t below = UINT32_MAX; /* sizes at or above it are counted */
    while (have < n) {
        uint32_t size = 0, with = 0;
        for (size_t i = 0; i < k; i++) {
            uint32_t x = leaf_size_at(q, am, i);
            if (x < below && x > size)
                size = x, with = 1;
            else if (x < below && x == size)
                with++;
        }
        if (!size)
            return 1;
        uint64_t take = (n - have + size - 1) / size;
        if (take > with)
            take = with;
        used += take;
        have += take * size;
        below = size;
    }
    return used && used <= UINT32_MAX ? (uint32_t)used : 1;
}

/* avoid keeps this job off the nodes of the jobs it avoids.  One of them
 * under several leaf switches loads their uplinks, which this job reaches
 * from any other node under them as soon as it spans leaves itself; under
 * one leaf switch it crosses no uplink.  So, unless the job is one node,
 * the user's --switches or the rule already keep it under one leaf, avoid
 * adds contain (AvoidUplinks=contain), or says what it could not do.  A
 * job that names its nodes (--nodelist) keeps them: contain could hold it
 * pending for a placement its own list rules out. */
static enum nv_span_answer avoid_uplinks(const struct nv_config *c, const nv_model *m,
                                         const struct nv_submit_query *q, uint32_t need,
                                         uint32_t *leaf, struct nv_submit_decision *d)
{
    *leaf = 0;
    if (!(d->actions & NV_ACT_AVOID) || !d->avoid_span_jobid)
        return NV_SPAN_NONE;
    if (q->max_nodes == 1 || q->req_switch == 1)
        return NV_SPAN_NONE; /* one node, or under one leaf switch already */
    if (q->req_switch > 1)
        return NV_SPAN_USER_SWITCHES; /* theirs stays (apply_decision) */
    if (d->actions & NV_ACT_CONTAIN)
        return NV_SPAN_NONE;
    if (q->req_nodes && q->req_nodes[0])
        return NV_SPAN_USER_NODES;
    if (c->avoid_uplinks == NV_AVOID_UPLINKS_WARN)
        return NV_SPAN_WARN;
    *leaf = largest_leaf(m);
    if (*leaf && need > *leaf)
        return NV_SPAN_TOO_BIG;
    d->actions |= NV_ACT_CONTAIN;
    d->avoid_contained = true;
    return NV_SPAN_CONTAINED;
}

/* Predictions are compared with the admin's thresholds at the precision
 * they are shown with, so "4 %" on screen satisfies ">=4". */
static double as_shown(double pct)
{
    return isfinite(pct) ? round(pct * 1e6) / 1e6 : pct;
}

void nv_submit_predict(const struct nv_config *c, const nv_model *m,
                       const struct nv_running_index *ix, const struct nv_submit_query *q,
                       struct nv_submit_scratch *s, struct nv_submit_decision *d)
{
    int32_t self = (m && d->app[0]) ? nv_model_app_index(m, d->app) : -1;
    nv_app_view v;
    if (self < 0 || nv_model_app(m, self, &v) != 0)
        return;
    d->app_known = true;
    d->utilization = v.utilization;
    if (q->max_nodes != 1 && ix && ix->napps) {
        nv_named_nodes_read(&s->named, q->req_nodes); /* NONE without a --nodelist */
        s->named_read = true;
        nv_placement_of(q->leaf_map, &s->named, q->min_nodes, q->max_nodes, &d->place);
    }
    predict_neighbours(c, m, self, ix, q, d, s->beyond);
    if (!advise_alloc(m, q, d))
        advise(m, &v, q, d);
}

/* the first matching rule's actions, and AnnotateAll; resize only with an
 * advised count to apply */
static void choose_rule(const struct nv_config *c, const struct nv_submit_query *q,
                        struct nv_submit_choice *ch, struct nv_submit_decision *d)
{
    struct nv_policy_query pq = {
        .field = {q->partition, q->account, q->qos, q->user, d->app[0] ? d->app : NULL},
        .known = {isfinite(d->own_pct), isfinite(d->inflicted_pct), isfinite(d->utilization)},
        .value = {as_shown(d->own_pct), as_shown(d->inflicted_pct), d->utilization},
    };
    d->rule = nv_policy_match(&c->policy, &pq);
    d->actions = d->rule ? d->rule->actions : 0;
    if (c->annotate_all && c->annotate_field != NV_ANNOTATE_NONE)
        d->actions |= NV_ACT_ANNOTATE;
    ch->resize_wanted = d->actions & NV_ACT_RESIZE;
    if (!ch->resize_wanted || !d->resize_nodes) {
        d->resize_nodes = 0;
        d->actions &= ~(unsigned)NV_ACT_RESIZE;
    }
}

/* avoid's exclude list: the nodes of the apps past the threshold but those
 * the job names; none when that would leave the job too few nodes */
static void choose_avoided_nodes(const struct nv_running_index *ix, const struct nv_submit_query *q,
                                 struct nv_submit_scratch *s, struct nv_submit_choice *ch,
                                 struct nv_submit_decision *d)
{
    /* built only now that a rule asked for it: 32 node lists of up to 8 KiB
     * each are cold memory to slurmctld */
    if (d->actions & NV_ACT_AVOID) {
        build_exclude(ix, s->beyond, d);
        bool had = d->exclude[0] != '\0';
        if (had && !s->named_read) {
            nv_named_nodes_read(&s->named, q->req_nodes);
            s->named_read = true;
        }
        keep_named_nodes(&s->named, d);
        d->avoid_all_named = had && !d->exclude[0];
    }
    if (!d->exclude[0])
        d->actions &= ~(unsigned)NV_ACT_AVOID;
    /* actions keep a job runnable: avoid must leave the nodes it needs */
    ch->part_total = 0;
    ch->left = (d->actions & NV_ACT_AVOID)
                   ? nv_partitions_nodes_left(q->parts, q->partition, d->exclude, q->exclude,
                                              &ch->part_total)
                   : -1;
    ch->need = q->min_nodes ? q->min_nodes : 1;
    if (ch->left >= 0 && (uint64_t)ch->left < ch->need) {
        d->actions = (d->actions & ~(unsigned)NV_ACT_AVOID) | NV_ACT_MESSAGE;
        d->avoid_dropped = true;
        d->exclude[0] = '\0';
        d->exclude_len = 0;
    }
}

void nv_submit_choose(const struct nv_config *c, const nv_model *m,
                      const struct nv_running_index *ix, const struct nv_submit_query *q,
                      struct nv_submit_scratch *s, struct nv_submit_choice *ch,
                      struct nv_submit_decision *d)
{
    choose_rule(c, q, ch, d);
    choose_avoided_nodes(ix, q, s, ch, d);
    uint32_t need = d->resize_nodes > ch->need ? d->resize_nodes : ch->need;
    ch->span = avoid_uplinks(c, m, q, need, &ch->leaf, d);
    if (d->actions & NV_ACT_CONTAIN) {
        d->contain_switches = fewest_leaves(m, q, need);
        d->contain_wait_s = c->contain_wait_s;
        unsigned span_wait = nv_config_span_wait_s(c);
        if (d->contain_switches > 1 && span_wait)
            d->contain_wait_s = span_wait;
        else if (d->contain_switches > 1) {
            /* larger than one leaf: the site contains such jobs not at all */
            d->actions &= ~(unsigned)NV_ACT_CONTAIN;
            d->contain_switches = d->contain_wait_s = 0;
            d->contain_span_skipped = true;
        }
    }
}

void nv_submit_scratch_free(struct nv_submit_scratch *s)
{
    nv_named_nodes_free(&s->named); /* nothing to free when it was not read */
    s->named_read = false;
}

void nv_submit_decide(const struct nv_config *c, const nv_model *m,
                      const struct nv_running_index *ix, const struct nv_submit_query *q,
                      struct nv_submit_decision *d)
{
    struct nv_submit_scratch s = NV_SUBMIT_SCRATCH_INIT;
    struct nv_submit_choice ch;
    nv_submit_reset(d, m, ix);
    nv_submit_identify(c, q, d);
    nv_submit_predict(c, m, ix, q, &s, d);
    nv_submit_choose(c, m, ix, q, &s, &ch, d);
    nv_submit_scratch_free(&s);
    nv_submit_render(c, q, &ch, d);
}

unsigned nv_modify_actions(unsigned actions)
{
    return actions & (unsigned)NV_ACT_MESSAGE;
}
