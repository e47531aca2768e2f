/* train_analyze.c - neighbours, background utilization, baselines and
 * slowdowns over the job summaries (train_history.h, step 2). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "queue.h"
#include "train_history.h"

/* Whether two jobs' paths meet at a port between switches (predict.h, the
 * paths): at one level, both have nodes under one switch (a leaf switch;
 * a group: a dragonfly group or a parent switch) and both have nodes
 * outside it, so both send through its uplinks.  A job under one leaf
 * switch sends nothing across an uplink, so it meets no job at the leaves'
 * level, and a job inside one group none at the groups'. */
static int shares_topology(const nv_train_set *s, const nv_train_sum *a, const nv_train_sum *b)
{
    if (!s->topo) /* no job had a switch or a group: no arena (UBSan: NULL + 0) */
        return 0;
    /* both lists are sorted: a merge walk per kind */
    for (int kind = 0; kind < 2; kind++) {
        const uint64_t *x = s->topo + a->topo_off + (kind ? a->n_switches : 0),
                       *y = s->topo + b->topo_off + (kind ? b->n_switches : 0);
        size_t nx = kind ? a->n_groups : a->n_switches, ny = kind ? b->n_groups : b->n_switches;
        if (nx < 2 || ny < 2)
            continue;
        size_t i = 0, j = 0;
        while (i < nx && j < ny) {
            if (x[i] == y[j])
                return 1;
            if (x[i] < y[j])
                i++;
            else
                j++;
        }
    }
    return 0;
}

double nv_train_overlap_s(const nv_train_set *s, const nv_train_sum *a, const nv_train_sum *b)
{
    if (!isfinite(a->start_s) || !isfinite(b->start_s) || !shares_topology(s, a, b))
        return 0;
    double lo = a->start_s > b->start_s ? a->start_s : b->start_s;
    double hi = a->end_s < b->end_s ? a->end_s : b->end_s;
    return hi > lo ? hi - lo : 0;
}

static const nv_train_set *sort_set; /* qsort has no context argument */

static int cmp_app_key(const void *a, const void *b)
{
    return strcmp(sort_set->apps[*(const uint32_t *)a], sort_set->apps[*(const uint32_t *)b]);
}

static int cmp_job_id(const void *a, const void *b)
{
    const nv_train_sum *x = a, *y = b;
    if (x->job_id != y->job_id)
        return x->job_id < y->job_id ? -1 : 1;
    /* duplicate ids (two spools merged): any total order on content */
    if (x->runtime_s != y->runtime_s)
        return x->runtime_s < y->runtime_s ? -1 : 1;
    return (x->app > y->app) - (x->app < y->app);
}

static int cmp_start(const void *a, const void *b)
{
    const nv_train_sum *x = &sort_set->jobs[*(const size_t *)a],
                       *y = &sort_set->jobs[*(const size_t *)b];
    if (x->start_s != y->start_s)
        return x->start_s < y->start_s ? -1 : 1;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    return (i > j) - (i < j);
}

static int cmp_group(const void *a, const void *b)
{
    const nv_train_sum *x = &sort_set->jobs[*(const size_t *)a],
                       *y = &sort_set->jobs[*(const size_t *)b];
    if (x->app != y->app)
        return x->app < y->app ? -1 : 1;
    if (x->nodes != y->nodes)
        return x->nodes < y->nodes ? -1 : 1;
    if (x->shape != y->shape)
        return x->shape < y->shape ? -1 : 1;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    return (i > j) - (i < j);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* apps sorted by key, job app indexes remapped: makes every later order
 * independent of readdir order */
static int sort_apps(nv_train_set *s)
{
    size_t n = s->n_apps;
    if (n == 0)
        return 0;
    uint32_t *order = malloc(n * sizeof *order), *newidx = malloc(n * sizeof *newidx);
    char **sorted = malloc(n * sizeof *sorted);
    if (!order || !newidx || !sorted) {
        free(order);
        free(newidx);
        free(sorted);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        order[i] = (uint32_t)i;
    sort_set = s;
    qsort(order, n, sizeof *order, cmp_app_key);
    for (size_t k = 0; k < n; k++) {
        newidx[order[k]] = (uint32_t)k;
        sorted[k] = s->apps[order[k]];
    }
    for (size_t i = 0; i < s->n; i++)
        s->jobs[i].app = newidx[s->jobs[i].app];
    free(s->apps);
    s->apps = sorted;
    s->cap_apps = n;
    nv_train_set_index_apps(s); /* the indexes changed */
    free(order);
    free(newidx);
    return 0;
}

/* the runtimes of the low-background runs among the n jobs idx names (of
 * one shape when shape is not 0), sorted, into rt; their count */
static size_t low_background_runtimes(const nv_train_set *s, const nv_train_opts *o,
                                      const size_t *idx, size_t n, uint8_t shape, double *rt)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const nv_train_sum *j = &s->jobs[idx[i]];
        if ((!shape || j->shape == shape) && isfinite(j->background) && j->background <= o->low_rho)
            rt[k++] = j->runtime_s;
    }
    qsort(rt, k, sizeof *rt, cmp_double);
    return k;
}

static double median_sorted(const double *x, size_t k)
{
    return k % 2 ? x[k / 2] : 0.5 * (x[k / 2 - 1] + x[k / 2]);
}

int nv_train_analyze(nv_train_set *s, const nv_train_opts *o)
{
    if (!s || !o)
        return -1;
    if (sort_apps(s))
        return -1;
    if (s->n)
        qsort(s->jobs, s->n, sizeof *s->jobs, cmp_job_id);
    size_t *idx = malloc((s->n ? s->n : 1) * sizeof *idx);
    double *bg = calloc(s->n ? s->n : 1, sizeof *bg);
    unsigned char *bg_unknown = calloc(s->n ? s->n : 1, 1);
    double *rt = malloc((s->n ? s->n : 1) * sizeof *rt);
    if (!idx || !bg || !bg_unknown || !rt) {
        free(idx);
        free(bg);
        free(bg_unknown);
        free(rt);
        return -1;
    }
    memset(&s->stats.baseline_runs, 0, sizeof s->stats - offsetof(nv_train_stats, baseline_runs));
    for (size_t i = 0; i < s->n; i++) {
        nv_train_sum *j = &s->jobs[i];
        j->n_neighbours = 0;
        j->neighbour_app = -1;
        j->background = j->baseline_s = j->slowdown_pct = NAN;
    }

    /* sweep by start time: only jobs that started before i ended can overlap it */
    size_t nt = 0;
    for (size_t i = 0; i < s->n; i++)
        if (isfinite(s->jobs[i].start_s))
            idx[nt++] = i;
    sort_set = s;
    qsort(idx, nt, sizeof *idx, cmp_start);
    for (size_t a = 0; a < nt; a++) {
        nv_train_sum *A = &s->jobs[idx[a]];
        for (size_t b = a + 1; b < nt && s->jobs[idx[b]].start_s < A->end_s; b++) {
            nv_train_sum *B = &s->jobs[idx[b]];
            double ov = nv_train_overlap_s(s, A, B);
            if (ov <= 0)
                continue;
            nv_train_sum *side[2] = {A, B};
            size_t sidx[2] = {idx[a], idx[b]};
            for (int k = 0; k < 2; k++) {
                nv_train_sum *me = side[k], *other = side[1 - k];
                if (isfinite(other->rho))
                    bg[sidx[k]] += other->rho * ov / me->runtime_s;
                else
                    bg_unknown[sidx[k]] = 1;
                if (ov >= o->window_s && ov >= o->min_overlap_frac * me->runtime_s) {
                    me->n_neighbours++;
                    if (me->neighbour_app == -1)
                        me->neighbour_app = (int32_t)other->app;
                    else if (me->neighbour_app != (int32_t)other->app)
                        me->neighbour_app = -2;
                }
            }
        }
    }
    for (size_t i = 0; i < s->n; i++) {
        nv_train_sum *j = &s->jobs[i];
        if (isfinite(j->switch_rho)) /* switch-side counters: minus its own share */
            j->background = fmax(0.0, j->switch_rho - (isfinite(j->rho) ? j->rho : 0.0));
        else if (isfinite(j->start_s) && !bg_unknown[i])
            j->background = bg[i];
        if (isfinite(j->background) && j->background > NV_RHO_CAP)
            j->background = NV_RHO_CAP;
    }

    /* baselines: the median runtime of low-background runs of the same
     * app and node count, and of the same shape when one of it ran */
    for (size_t i = 0; i < s->n; i++)
        idx[i] = i;
    qsort(idx, s->n, sizeof *idx, cmp_group);
    for (size_t g0 = 0; g0 < s->n;) {
        size_t g1 = g0;
        const nv_train_sum *first = &s->jobs[idx[g0]];
        while (g1 < s->n && s->jobs[idx[g1]].app == first->app &&
               s->jobs[idx[g1]].nodes == first->nodes)
            g1++;
        size_t k = low_background_runtimes(s, o, idx + g0, g1 - g0, 0, rt);
        s->stats.baseline_runs += k;
        double base = k ? median_sorted(rt, k) : NAN;
        /* cmp_group orders each (app, nodes) by shape: one stretch per shape */
        for (size_t h0 = g0; h0 < g1;) {
            size_t h1 = h0;
            uint8_t shape = s->jobs[idx[h0]].shape;
            while (h1 < g1 && s->jobs[idx[h1]].shape == shape)
                h1++;
            size_t ks = shape ? low_background_runtimes(s, o, idx + h0, h1 - h0, shape, rt) : 0;
            double own = ks ? median_sorted(rt, ks) : base;
            for (size_t g = h0; g < h1; g++) {
                nv_train_sum *j = &s->jobs[idx[g]];
                j->baseline_s = own;
                if (isfinite(own))
                    j->slowdown_pct = (j->runtime_s / own - 1.0) * 100.0;
                if (j->n_neighbours) {
                    if (!isfinite(own))
                        s->stats.no_baseline++;
                    else if (j->neighbour_app >= 0)
                        s->stats.pair_samples++;
                    else
                        s->stats.mixed_neighbours++;
                }
            }
            h0 = h1;
        }
        g0 = g1;
    }
    free(idx);
    free(bg);
    free(bg_unknown);
    free(rt);
    s->analyzed = 1;
    return 0;
}

long nv_train_find_job(const nv_train_set *s, int64_t job_id)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->jobs[mid].job_id < job_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n && s->jobs[lo].job_id == job_id ? (long)lo : -1;
}

size_t nv_train_neighbours(const nv_train_set *s, size_t i, size_t *out, size_t max)
{
    size_t n = 0;
    if (i >= s->n)
        return 0;
    for (size_t k = 0; k < s->n; k++) /* jobs are sorted by id: so is out */
        if (k != i && nv_train_overlap_s(s, &s->jobs[i], &s->jobs[k]) > 0) {
            if (n < max)
                out[n] = k;
            n++;
        }
    return n;
}
