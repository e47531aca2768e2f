/* submit_decision.c - job_submit/netvar's decision, pure (see header). */
#include "submit_decision.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "alloc_advice.h"
#include "alloc_model.h"
#include "app_identity.h"
#include "counters_topology.h"
#include "fmt_fixed.h"
#include "job_options.h"
#include "sort_cmp.h"

/* "%.Nf" of x as printf writes it (nv_fmt_fixed: without printf's
 * multi-precision path where plain arithmetic is exact), for the user's
 * line, which every submission formats; room for any double */
#define NV_FIXED_MAX 400
static const char *fixed(char buf[NV_FIXED_MAX], double x, int decimals)
{
    if (nv_fmt_fixed(buf, NV_FIXED_MAX, x, decimals) < 0)
        snprintf(buf, NV_FIXED_MAX, "?");
    return buf;
}

static void say(struct nv_submit_decision *d, const char *fmt, ...)
{
    size_t len = strlen(d->message);
    if (len + 2 >= sizeof d->message)
        return;
    if (len)
        d->message[len++] = '\n';
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->message + len, sizeof d->message - len, fmt, ap);
    va_end(ap);
}

static void identify(const struct nv_config *c, const struct nv_submit_query *q,
                     struct nv_submit_decision *d)
{
    d->app_source = "none";
    if (q->app_option && nv_app_key_valid(q->app_option, NULL)) {
        snprintf(d->app, sizeof d->app, "%s", q->app_option);
        d->app_source = "--netvar-app";
        return;
    }
    for (int i = 0; i < NV_APP_FIELDS_MAX && c->app_fields[i]; i++) {
        if (c->app_fields[i] == NV_APPF_NAME && nv_app_key_from_name(q->job_name, d->app, sizeof d->app)) {
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
    if (p->source == NV_SOURCE_TABLE)
        snprintf(buf, cap, "table, %u runs", p->table_samples);
    else
        snprintf(buf, cap, "%s", p->source_label);
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
        __atomic_compare_exchange_n(&mm->state[r], &zero, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
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

#define BEYOND_BYTES (4096 / 8) /* MaxNeighbourApps is at most 4096 */

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
    for (size_t k = 0; ix && k < ix->napps; k++) {
        const struct nv_running_app *a = &ix->apps[k];
        double own, infl;
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
        if (beyond && k < 8 * BEYOND_BYTES)
            beyond_set[k / 8] |= (uint8_t)(1u << (k % 8));
    }
    if (row && fill)
        memo_publish(ix, self, key);
    /* the sources of the two answers shown: their predictions once more */
    nv_prediction p;
    if (own_with) {
        const char *ps = path_source(q, d, own_with);
        if (ps) {
            snprintf(d->own_source, sizeof d->own_source, "%s", ps);
        } else {
            predict_pct(m, self, own_with->app, pred, c->min_pair_samples, &p);
            source_text(&p, d->own_source, sizeof d->own_source);
        }
        d->own_jobid = job_behind(own_with);
        d->own_with = own_with->key;
    }
    if (infl_by) {
        const char *ps = path_source(q, d, infl_by);
        if (ps) {
            snprintf(d->inflicted_source, sizeof d->inflicted_source, "%s", ps);
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
    for (size_t k = 0; ix && k < ix->napps && k < 8 * BEYOND_BYTES; k++)
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
static void consider(const nv_app_view *v, uint32_t n, double factor, double *best_t, uint32_t *best_n)
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
static bool advise_alloc(const nv_model *m, const struct nv_submit_query *q, struct nv_submit_decision *d)
{
    const nv_alloc_model *am = nv_model_alloc(m);
    if (!am || !nv_alloc_app_find(am, d->app))
        return false;
    uint32_t lo, hi;
    const char *cut = allowed(m, q, &lo, &hi);
    if (lo > hi)
        return false; /* the partitions hold fewer nodes than the smallest count asked for */
    nv_alloc_query aq = {.app = d->app, .min_nodes = lo, .max_nodes = hi,
                         .ppn = q->ntasks_per_node, .interference_pct = d->own_pct};
    nv_alloc_advice a;
    if (nv_alloc_advise(am, &aq, &a))
        return false;
    d->advice = true;
    d->advice_nodes = a.best.nodes;
    d->requested_nodes = lo;
    d->advice_saving_pct = a.compared.nodes != a.best.nodes ? a.margin_pct : 0;
    snprintf(d->advice_source, sizeof d->advice_source, "class %s (%.60s); profile: %.40s",
             nv_alloc_class_name(a.cls), a.predictor ? a.predictor->source : "?", a.app->source);
    char vs[160] = "";
    if (a.compared.nodes != a.best.nodes)
        snprintf(vs, sizeof vs, ": %.0f %% faster than %u, which would span %u switch%s%s", a.margin_pct,
                 a.compared.nodes, a.compared.switches, a.compared.switches == 1 ? "" : "es",
                 a.compared.switches > 1 && isfinite(d->own_pct) && d->own_jobid ? " beside job " : "");
    size_t n = strlen(vs);
    if (a.compared.nodes != a.best.nodes && a.compared.switches > 1 && isfinite(d->own_pct) && d->own_jobid)
        snprintf(vs + n, sizeof vs - n, "%u", d->own_jobid);
    char bound[64] = "";
    if (*cut)
        snprintf(bound, sizeof bound, "; the %s has fewer nodes than you allowed", cut);
    int w = snprintf(d->advice_line, sizeof d->advice_line,
        "netvar: advice %u nodes x %u (%u switch%s, %.3g s predicted)%s; %s%s", a.best.nodes, a.ppn,
        a.best.switches, a.best.switches == 1 ? "" : "es", a.best.time_s, vs, d->advice_source,
        bound);
    if (w >= (int)sizeof d->advice_line) /* cut: say so */
        memcpy(d->advice_line + sizeof d->advice_line - 4, "...", 4);
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
    snprintf(d->advice_source, sizeof d->advice_source, "runtime history at %zu node count%s", v->n_scaling,
             v->n_scaling == 1 ? "" : "s");
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

enum span_answer { SPAN_NONE, SPAN_CONTAINED, SPAN_USER_SWITCHES, SPAN_USER_NODES, SPAN_WARN,
                   SPAN_TOO_BIG };

/* avoid keeps this job off the nodes of the jobs it avoids.  One of them
 * under several leaf switches loads their uplinks, which this job reaches
 * from any other node under them as soon as it spans leaves itself; under
 * one leaf switch it crosses no uplink.  So, unless the job is one node,
 * the user's --switches or the rule already keep it under one leaf, avoid
 * adds contain (AvoidUplinks=contain), or says what it could not do.  A
 * job that names its nodes (--nodelist) keeps them: contain could hold it
 * pending for a placement its own list rules out. */
static enum span_answer avoid_uplinks(const struct nv_config *c, const nv_model *m,
                                      const struct nv_submit_query *q, uint32_t need,
                                      uint32_t *leaf, struct nv_submit_decision *d)
{
    *leaf = 0;
    if (!(d->actions & NV_ACT_AVOID) || !d->avoid_span_jobid)
        return SPAN_NONE;
    if (q->max_nodes == 1 || q->req_switch == 1)
        return SPAN_NONE; /* one node, or under one leaf switch already */
    if (q->req_switch > 1)
        return SPAN_USER_SWITCHES; /* theirs stays (apply_decision) */
    if (d->actions & NV_ACT_CONTAIN)
        return SPAN_NONE;
    if (q->req_nodes && q->req_nodes[0])
        return SPAN_USER_NODES;
    if (c->avoid_uplinks == NV_AVOID_UPLINKS_WARN)
        return SPAN_WARN;
    *leaf = largest_leaf(m);
    if (*leaf && need > *leaf)
        return SPAN_TOO_BIG;
    d->actions |= NV_ACT_CONTAIN;
    d->avoid_contained = true;
    return SPAN_CONTAINED;
}

/* Predictions are compared with the admin's thresholds at the precision
 * they are shown with, so "4 %" on screen satisfies ">=4". */
static double as_shown(double pct)
{
    return isfinite(pct) ? round(pct * 1e6) / 1e6 : pct;
}

void nv_submit_decide(const struct nv_config *c, const nv_model *m,
                      const struct nv_running_index *ix, const struct nv_submit_query *q,
                      struct nv_submit_decision *d)
{
    /* every field zeroed but the two text buffers (exclude, message: 9.5 of
     * its 10 KiB), which only need to start empty: a full memset was about
     * an eighth of a call's instructions */
    memset(d, 0, offsetof(struct nv_submit_decision, exclude));
    d->exclude[0] = '\0';
    memset(&d->exclude_len, 0,
           offsetof(struct nv_submit_decision, message) - offsetof(struct nv_submit_decision, exclude_len));
    d->message[0] = '\0';
    d->utilization = d->own_pct = d->inflicted_pct = NAN;
    d->have_model = m != NULL;
    d->running_jobs = ix ? ix->njobs : 0;
    d->running_unknown = ix ? ix->unknown_jobs : 0;
    identify(c, q, d);

    int32_t self = (m && d->app[0]) ? nv_model_app_index(m, d->app) : -1;
    nv_app_view v;
    uint8_t beyond_set[BEYOND_BYTES] = {0};
    /* the user's --nodelist, expanded at most once (placement, avoid) */
    struct nv_named_nodes named = {0};
    bool named_read = false;
    if (self >= 0 && nv_model_app(m, self, &v) == 0) {
        d->app_known = true;
        d->utilization = v.utilization;
        if (q->max_nodes != 1 && ix && ix->napps) {
            nv_named_nodes_read(&named, q->req_nodes); /* NONE without a --nodelist */
            named_read = true;
            nv_placement_of(q->leaf_map, &named, q->min_nodes, q->max_nodes, &d->place);
        }
        predict_neighbours(c, m, self, ix, q, d, beyond_set);
        if (!advise_alloc(m, q, d))
            advise(m, &v, q, d);
    }

    struct nv_policy_query pq = {
        .field = {q->partition, q->account, q->qos, q->user, d->app[0] ? d->app : NULL},
        .known = {isfinite(d->own_pct), isfinite(d->inflicted_pct), isfinite(d->utilization)},
        .value = {as_shown(d->own_pct), as_shown(d->inflicted_pct), d->utilization},
    };
    d->rule = nv_policy_match(&c->policy, &pq);
    d->actions = d->rule ? d->rule->actions : 0;
    if (c->annotate_all && c->annotate_field != NV_ANNOTATE_NONE)
        d->actions |= NV_ACT_ANNOTATE;
    bool resize_wanted = d->actions & NV_ACT_RESIZE;
    if (!resize_wanted || !d->resize_nodes) {
        d->resize_nodes = 0;
        d->actions &= ~(unsigned)NV_ACT_RESIZE;
    }
    /* built only now that a rule asked for it: 32 node lists of up to 8 KiB
     * each are cold memory to slurmctld */
    if (d->actions & NV_ACT_AVOID) {
        build_exclude(ix, beyond_set, d);
        bool had = d->exclude[0] != '\0';
        if (had && !named_read)
            nv_named_nodes_read(&named, q->req_nodes);
        keep_named_nodes(&named, d);
        d->avoid_all_named = had && !d->exclude[0];
    }
    nv_named_nodes_free(&named);
    if (!d->exclude[0])
        d->actions &= ~(unsigned)NV_ACT_AVOID;
    /* actions keep a job runnable: avoid must leave the nodes it needs */
    size_t part_total = 0;
    long left = (d->actions & NV_ACT_AVOID)
                    ? nv_partitions_nodes_left(q->parts, q->partition, d->exclude, q->exclude,
                                               &part_total)
                    : -1;
    uint32_t need = q->min_nodes ? q->min_nodes : 1;
    if (left >= 0 && (uint64_t)left < need) {
        d->actions = (d->actions & ~(unsigned)NV_ACT_AVOID) | NV_ACT_MESSAGE;
        d->avoid_dropped = true;
        d->exclude[0] = '\0';
        d->exclude_len = 0;
    }
    uint32_t leaf;
    enum span_answer span = avoid_uplinks(c, m, q, d->resize_nodes > need ? d->resize_nodes : need,
                                          &leaf, d);

    /* what the user reads: numbers with units and sources */
    const char *app = d->app[0] ? d->app : "(unnamed)";
    if (!m) {
        say(d, "netvar: app %s: no model loaded yet, so no prediction (job annotated only)", app);
    } else if (!d->app[0]) {
        say(d, "netvar: no app name (use --netvar-app=NAME); no prediction");
    } else if (!d->app_known) {
        say(d, "netvar: app %s (from %s) is not in the model yet; no prediction", app, d->app_source);
    } else {
        char line[1536]; /* as long as the message: numbers of any size fit */
        char f1[NV_FIXED_MAX], f2[NV_FIXED_MAX];
        int n = snprintf(line, sizeof line, "netvar: app %s: rho %s", app, fixed(f1, d->utilization, 2));
        if (isfinite(d->own_pct) && n > 0 && (size_t)n < sizeof line)
            n += snprintf(line + n, sizeof line - (size_t)n,
                          "; predicted slowdown %s %% beside job %u (%s; %s)", fixed(f2, d->own_pct, 0),
                          d->own_jobid, d->own_with ? d->own_with : "?", d->own_source);
        if (isfinite(d->inflicted_pct) && n > 0 && (size_t)n < sizeof line)
            n += snprintf(line + n, sizeof line - (size_t)n,
                          "; would slow job %u (%s) by %s %% (%s)", d->inflicted_jobid,
                          d->inflicted_app ? d->inflicted_app : "?", fixed(f2, d->inflicted_pct, 0),
                          d->inflicted_source);
        if (!isfinite(d->own_pct) && !isfinite(d->inflicted_pct) && n > 0 && (size_t)n < sizeof line)
            n += snprintf(line + n, sizeof line - (size_t)n, "; no running job to interfere with");
        if (d->advice && n > 0 && (size_t)n < sizeof line) {
            /* the predictive route explains itself on its own line */
            const char *src = d->advice_line[0] ? "predicted communication, below" : d->advice_source;
            if (d->advice_nodes != d->requested_nodes && d->advice_saving_pct > 0)
                snprintf(line + n, sizeof line - (size_t)n, "; advice %u nodes (-%s %% time vs %u; %s)",
                         d->advice_nodes, fixed(f2, d->advice_saving_pct, 0), d->requested_nodes, src);
            else
                snprintf(line + n, sizeof line - (size_t)n, "; advice %u nodes (%s)", d->advice_nodes, src);
        }
        say(d, "%s", line);
        if (d->advice_line[0])
            say(d, "%s", d->advice_line);
    }
    if (d->rule) {
        char acts[128];
        nv_actions_format(d->actions & ~(unsigned)NV_ACT_ANNOTATE, acts, sizeof acts);
        if (acts[0])
            say(d, "netvar: policy rule '%s' applied: %s", d->rule->name, acts);
        /* the admin's text says what the rule does: not shown when avoid,
         * which it may describe, was not done */
        if ((d->actions & NV_ACT_MESSAGE) && d->rule->message[0] && !d->avoid_dropped &&
            !d->avoid_all_named)
            say(d, "%s", d->rule->message);
        if (d->resize_nodes)
            say(d, "netvar: node count set to the advised %u (you asked for --netvar-advise=apply)",
                d->resize_nodes);
        else if (resize_wanted && d->advice && !q->advise_apply && d->advice_nodes != d->requested_nodes)
            say(d, "netvar: to run on the advised node count, add --netvar-advise=apply "
                   "and give a range with --nodes=MIN-MAX");
        if (d->avoid_dropped)
            say(d, "netvar: not placed away from the jobs it would slow down: avoiding their "
                   "nodes would leave %ld of the partition's %zu nodes, fewer than the %u this "
                   "job needs", left, part_total, need);
        if (d->exclude_cut)
            say(d, "netvar: the list of nodes to avoid was cut to %d bytes", NV_REG_NODES_MAX);
        if (d->avoid_named == (size_t)-1)
            say(d, "netvar: your --nodelist could not be expanded (not a host list, or over %d "
                   "names), so avoid excludes no node: Slurm refuses a job that requires a node "
                   "it excludes", NV_NAMED_NODES_MAX);
        else if (d->avoid_named)
            say(d, "netvar: avoid does not exclude the %zu node%s you named with --nodelist "
                   "(%s%s) where a job to keep apart from runs: Slurm would refuse the submission",
                d->avoid_named, d->avoid_named == 1 ? "" : "s", d->avoid_named_first,
                d->avoid_named > 1 ? ", ..." : "");
        /* the uplinks of an avoided job under several leaf switches */
        const char *more = d->avoid_span_more ? " (so do other avoided jobs)" : "";
        const char *span_app = d->avoid_span_app ? d->avoid_span_app : "?";
        if (span == SPAN_CONTAINED)
            say(d, "netvar: job %u (%s) spans %u leaf switches and loads their uplinks%s: avoid "
                   "also keeps this job under one leaf switch (waiting up to %u s for one), "
                   "where it crosses no uplink",
                d->avoid_span_jobid, span_app, d->avoid_span_switches, more, c->contain_wait_s);
        else if (span == SPAN_USER_SWITCHES)
            say(d, "netvar: avoid excludes the nodes of job %u (%s), which spans %u leaf "
                   "switches%s; your --switches=%u is kept, so across leaf switches this job "
                   "would still share their uplinks",
                d->avoid_span_jobid, span_app, d->avoid_span_switches, more, q->req_switch);
        else if (span == SPAN_USER_NODES)
            say(d, "netvar: avoid excludes the nodes of job %u (%s), which spans %u leaf "
                   "switches%s; you named this job's nodes, so if they lie under several leaf "
                   "switches it still shares their uplinks",
                d->avoid_span_jobid, span_app, d->avoid_span_switches, more);
        else if (span == SPAN_TOO_BIG)
            say(d, "netvar: avoid excludes the nodes of job %u (%s), which spans %u leaf "
                   "switches%s; this job needs %u nodes, more than one leaf switch holds (%u), "
                   "so it would still share their uplinks",
                d->avoid_span_jobid, span_app, d->avoid_span_switches, more,
                d->resize_nodes > need ? d->resize_nodes : need, leaf);
        else if (span == SPAN_WARN)
            say(d, "netvar: avoid excludes the nodes of job %u (%s), which spans %u leaf "
                   "switches: on other nodes under them this job would still share their "
                   "uplinks%s",
                d->avoid_span_jobid, span_app, d->avoid_span_switches,
                d->avoid_span_more ? " (so would other avoided jobs)" : "");
    }
}

unsigned nv_modify_actions(unsigned actions)
{
    return actions & (unsigned)NV_ACT_MESSAGE;
}
