/* train_build.c - analyzed job summaries + input model -> model builder:
 * per-app profiles and the co-location table (train_history.h, step 3). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nv_err.h"
#include "queue.h"
#include "fabric.h"
#include "train_history.h"
#include "sort_cmp.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_inplace(double *v, size_t n)
{
    if (!n)
        return NAN;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* the entry is the median run, as a pair is measured (DESIGN 4.4): one
 * stalled run out of three moves a mean by hundreds of pp and, through the
 * history fit, every pair of its two apps; runs are sorted first, so the
 * sums do not depend on job order */
void nv_train_pair_entry(double *runs, size_t n, double *pct, double *sd_pct)
{
    double median = median_inplace(runs, n), sum = 0, ss = 0;
    for (size_t g = 0; g < n; g++)
        sum += runs[g];
    double mean = n ? sum / (double)n : NAN;
    for (size_t g = 0; g < n; g++)
        ss += (runs[g] - mean) * (runs[g] - mean);
    *pct = fmax(-100.0, median);
    *sd_pct = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
}

static const nv_train_set *sort_set;

static int cmp_app_nodes(const void *a, const void *b)
{
    const nv_train_sum *x = &sort_set->jobs[*(const size_t *)a],
                       *y = &sort_set->jobs[*(const size_t *)b];
    if (x->app != y->app)
        return x->app < y->app ? -1 : 1;
    if (x->nodes != y->nodes)
        return x->nodes < y->nodes ? -1 : 1;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    return (i > j) - (i < j);
}

/* the minimal calibration a spool alone gives: 1/mu from the records */
static int calibration_from_records(const nv_train_set *s, nv_calibration *cal, char *err,
                                    size_t errlen)
{
    double *v = malloc((s->n ? s->n : 1) * sizeof *v);
    if (!v) {
        nv_err(err, errlen, "out of memory");
        return -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++)
        if (isfinite(s->jobs[i].service_us) && s->jobs[i].service_us > 0)
            v[k++] = s->jobs[i].service_us;
    double med = median_inplace(v, k);
    free(v);
    if (!k) {
        nv_err(err, errlen,
               "no calibration: no --model given and no job record holds "
               "utilization.service_us; run `netvar calibrate` and pass --model");
        return -1;
    }
    memset(cal, 0, sizeof *cal);
    cal->method = NV_CAL_MINIMUM;
    cal->service_us = med;
    cal->mu_per_us = 1.0 / med;
    cal->idle_mean_us = med;
    nv_hist_add(&cal->hist, med);
    cal->samples = 0; /* says: no ImpactB samples stand behind it */
    return 0;
}

/* latency beside an app without an ImpactB run: the P-K mean latency at
 * its utilization, the idle spread, and the idle histogram shifted by the
 * same factor on the log bins (so PDFLT compares like with like) */
static void derived_latency(const nv_calibration *cal, double u, nv_latency_summary *out)
{
    memset(out, 0, sizeof *out);
    double w = cal->idle_mean_us;
    if (nv_pk_latency_us(cal->service_us, cal->var_s_us2, u < NV_RHO_CAP ? u : NV_RHO_CAP, &w) ||
        !isfinite(w) || w <= 0)
        w = cal->idle_mean_us;
    if (w < cal->idle_mean_us)
        w = cal->idle_mean_us;
    out->mean_us = w;
    out->sd_us = sqrt(cal->var_s_us2 > 0 ? cal->var_s_us2 : 0);
    long shift = lround(NV_HIST_BINS_PER_DECADE * log10(w / cal->idle_mean_us));
    for (int k = 0; k < NV_HIST_BINS; k++) {
        long t = k + shift;
        if (t >= NV_HIST_BINS)
            t = NV_HIST_BINS - 1;
        out->hist.count[t] += cal->hist.count[k];
    }
    out->hist.total = cal->hist.total;
}

struct pair_acc {
    const char *app, *with;
    double pct, sd; /* pct: one run's slowdown, then the entry (their median) */
    uint32_t samples;
};

static int cmp_pair(const void *a, const void *b);

/* most samples first, then by key: a deterministic choice under the cap */
static int cmp_samples_desc(const void *a, const void *b)
{
    const struct pair_acc *x = a, *y = b;
    if (x->samples != y->samples)
        return x->samples < y->samples ? 1 : -1;
    return cmp_pair(a, b);
}

static int cmp_pair(const void *a, const void *b)
{
    const struct pair_acc *x = a, *y = b;
    int c = strcmp(x->app, y->app);
    return c ? c : strcmp(x->with, y->with);
}

/* one history app: runs idx[0..n) of the app, sorted by node count */
static int add_history_app(nv_model_builder *b, const nv_train_set *s, const nv_model *in,
                           const nv_calibration *cal, const size_t *idx, size_t n,
                           const nv_train_opts *o, double *scratch, char *err, size_t errlen)
{
    const char *key = s->apps[s->jobs[idx[0]].app];
    nv_app_view iv;
    int32_t ia = in ? nv_model_app_index(in, key) : -1;
    int have_in = ia >= 0 && nv_model_app(in, ia, &iv) == 0;

    /* U_A from counters: median over runs */
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(s->jobs[idx[i]].rho))
            scratch[k++] = s->jobs[idx[i]].rho;
    double counter_rho = median_inplace(scratch, k);
    uint32_t counter_runs = (uint32_t)k;

    /* scaling: median of the baseline runs per size, else of all runs */
    nv_scaling_point *sc = calloc(n, sizeof *sc);
    size_t nsc = 0;
    /* learned curve: background U buckets */
    size_t nb = (size_t)(1.0 / o->u_bucket) + 2;
    double *bu = calloc(nb, sizeof *bu), *bs = calloc(nb, sizeof *bs), *bw = calloc(nb, sizeof *bw);
    nv_curve_point *pts = calloc(nb, sizeof *pts);
    if (!sc || !bu || !bs || !bw || !pts) {
        free(sc), free(bu), free(bs), free(bw), free(pts);
        nv_err(err, errlen, "app %s: out of memory", key);
        return -1;
    }
    for (size_t g0 = 0; g0 < n;) {
        size_t g1 = g0, kb = 0, ka = 0;
        uint32_t nodes = s->jobs[idx[g0]].nodes;
        while (g1 < n && s->jobs[idx[g1]].nodes == nodes)
            g1++;
        for (size_t g = g0; g < g1; g++) {
            const nv_train_sum *j = &s->jobs[idx[g]];
            if (isfinite(j->background) && j->background <= o->low_rho)
                scratch[kb++] = j->runtime_s;
        }
        if (!kb)
            for (size_t g = g0; g < g1; g++)
                scratch[ka++] = s->jobs[idx[g]].runtime_s;
        sc[nsc].nodes = nodes;
        sc[nsc].median_runtime_s = median_inplace(scratch, kb ? kb : ka);
        sc[nsc].count = (uint32_t)(kb ? kb : ka);
        nsc++;
        g0 = g1;
    }
    size_t samples = 0;
    for (size_t i = 0; i < n; i++) {
        const nv_train_sum *j = &s->jobs[idx[i]];
        if (!isfinite(j->background) || !isfinite(j->slowdown_pct))
            continue;
        size_t bk = (size_t)lround(j->background / o->u_bucket);
        if (bk >= nb)
            bk = nb - 1;
        bu[bk] += j->background;
        bs[bk] += j->slowdown_pct;
        bw[bk] += 1;
        samples++;
    }
    size_t npts = 0;
    for (size_t bk = 0; bk < nb; bk++)
        if (bw[bk] > 0) {
            pts[npts].utilization = fmin(1.0, fmax(0.0, bu[bk] / bw[bk]));
            pts[npts].slowdown_pct = fmax(-100.0, bs[bk] / bw[bk]);
            pts[npts].weight = bw[bk];
            npts++;
        }
    int learn = npts >= 2 && samples >= o->min_runs;

    nv_app_input a = {.key = key,
                      .scaling = sc,
                      .n_scaling = nsc,
                      .has_provenance = 1,
                      .counter_rho = counter_runs ? counter_rho : 0,
                      .counter_runs = counter_runs,
                      .history_runs = (uint32_t)n};
    /* U_A: what a campaign measured (at the bottleneck with its profile on
     * the counters route, else through ImpactB), else the records' counters */
    if (have_in && iv.utilization_source == NV_USRC_COUNTERS && iv.n_profile) {
        a.utilization = iv.utilization;
        a.utilization_source = NV_USRC_COUNTERS;
        a.profile = iv.profile;
        a.n_profile = iv.n_profile;
    } else if (have_in && iv.utilization_source == NV_USRC_LATENCY &&
               iv.latency_origin == NV_LATENCY_IMPACTB) {
        a.utilization = iv.utilization;
        a.utilization_source = NV_USRC_LATENCY;
    } else {
        a.utilization = counter_runs ? counter_rho : 0;
        a.utilization_source = NV_USRC_COUNTERS;
    }
    /* the queueing mechanism and the joint windows come only from
     * campaigns: kept as measured */
    if (have_in) {
        a.wait_points = iv.wait_points, a.n_wait_points = iv.n_wait_points;
        a.wait_profile_us = iv.wait_profile_us, a.n_wait_profile = iv.n_wait_profile;
        a.joint = iv.joint, a.n_joint = iv.n_joint, a.joint_window_s = iv.joint_window_s;
    }
    /* p_A(U): a campaign curve wins; else production history */
    if (have_in && iv.n_fit && iv.curve_origin == NV_CURVE_CAMPAIGN) {
        a.points = iv.points, a.n_points = iv.n_points;
        a.fit = iv.fit, a.n_fit = iv.n_fit, a.fit_residual_pct = iv.fit_residual_pct;
        a.curve_origin = NV_CURVE_CAMPAIGN;
    } else if (learn) {
        a.points = pts, a.n_points = npts; /* fitted by the builder (isotonic) */
        a.curve_origin = NV_CURVE_PRODUCTION;
    } else
        a.curve_origin = NV_CURVE_NONE;
    /* latency summary: ImpactB from the input model, else derived */
    nv_latency_summary lat;
    if (have_in && iv.latency_origin == NV_LATENCY_IMPACTB) {
        a.latency = iv.latency;
        a.latency_origin = NV_LATENCY_IMPACTB;
    } else {
        derived_latency(cal, a.utilization, &lat);
        a.latency = &lat;
        a.latency_origin = NV_LATENCY_DERIVED;
    }
    /* the signature of its latest profiled job (nv_train_signatures), else
     * the input model's; a campaign curve still answers first at load */
    uint32_t ai = s->jobs[idx[0]].app;
    if (s->sig_ok && s->sig_ok[ai])
        a.signature = &s->sigs[ai];
    else if (have_in)
        a.signature = iv.signature;
    int rc = nv_builder_add_app(b, &a);
    if (rc)
        nv_err(err, errlen, "%s", nv_builder_error(b));
    free(sc), free(bu), free(bs), free(bw), free(pts);
    return rc;
}

static int readd_input_app(nv_model_builder *b, const nv_model *in, int32_t ia, char *err,
                           size_t errlen)
{
    nv_app_view v;
    nv_model_app(in, ia, &v);
    nv_app_input a = {.key = v.key,
                      .utilization = v.utilization,
                      .utilization_source = v.utilization_source,
                      .latency = v.latency,
                      .points = v.points,
                      .n_points = v.n_points,
                      .fit = v.fit,
                      .n_fit = v.n_fit,
                      .fit_residual_pct = v.fit_residual_pct,
                      .scaling = v.scaling,
                      .n_scaling = v.n_scaling,
                      .has_provenance = v.curve_origin == NV_CURVE_PRODUCTION ||
                                        v.latency_origin == NV_LATENCY_DERIVED || v.counter_runs ||
                                        v.history_runs,
                      .curve_origin = v.curve_origin,
                      .latency_origin = v.latency_origin,
                      .counter_rho = v.counter_rho,
                      .counter_runs = v.counter_runs,
                      .history_runs = v.history_runs,
                      .profile = v.profile,
                      .n_profile = v.n_profile,
                      .wait_points = v.wait_points,
                      .n_wait_points = v.n_wait_points,
                      .wait_profile_us = v.wait_profile_us,
                      .n_wait_profile = v.n_wait_profile,
                      .joint = v.joint,
                      .n_joint = v.n_joint,
                      .joint_window_s = v.joint_window_s,
                      .signature = v.signature};
    if (nv_builder_add_app(b, &a)) {
        nv_err(err, errlen, "%s", nv_builder_error(b));
        return -1;
    }
    return 0;
}

/* all apps, history and input-only, added in key order: a replaced entry
 * moves to the end of the builder, so re-adding all of them sorts them */
static int add_apps(nv_model_builder *b, const nv_train_set *s, const nv_model *in,
                    const nv_calibration *cal, const nv_train_opts *o, char *err, size_t errlen)
{
    size_t *idx = malloc((s->n ? s->n : 1) * sizeof *idx);
    double *scratch = malloc((s->n ? s->n : 1) * sizeof *scratch);
    size_t nin = in ? nv_model_app_count(in) : 0;
    const char **inkeys = malloc((nin ? nin : 1) * sizeof *inkeys);
    size_t *start = calloc(s->n_apps + 1, sizeof *start);
    int rc = -1;
    if (!idx || !scratch || !inkeys || !start) {
        nv_err(err, errlen, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < s->n; i++)
        idx[i] = i;
    sort_set = s;
    if (s->n)
        qsort(idx, s->n, sizeof *idx, cmp_app_nodes);
    /* runs of app a are idx[start[a] .. start[a+1]) */
    for (size_t i = 0, a = 0; a <= s->n_apps; a++) {
        while (i < s->n && s->jobs[idx[i]].app < a)
            i++;
        start[a] = i;
    }
    size_t nonly = 0;
    for (size_t i = 0; i < nin; i++) {
        nv_app_view v;
        nv_model_app(in, (int32_t)i, &v);
        long a = nv_train_set_find_app(s, v.key);
        int hist = a >= 0 && start[a + 1] > start[a];
        if (!hist)
            inkeys[nonly++] = v.key;
    }
    if (nonly)
        qsort(inkeys, nonly, sizeof *inkeys, nv_cmp_strp);
    size_t a = 0, k = 0;
    while (a < s->n_apps || k < nonly) {
        if (a < s->n_apps && start[a + 1] == start[a]) {
            a++;
            continue;
        }
        int take_hist = k >= nonly || (a < s->n_apps && strcmp(s->apps[a], inkeys[k]) < 0);
        if (take_hist) {
            if (add_history_app(b, s, in, cal, idx + start[a], start[a + 1] - start[a], o, scratch,
                                err, errlen))
                goto out;
            a++;
        } else {
            if (readd_input_app(b, in, nv_model_app_index(in, inkeys[k]), err, errlen))
                goto out;
            k++;
        }
    }
    rc = 0;
out:
    free(idx);
    free(scratch);
    free(inkeys);
    free(start);
    return rc;
}

static int add_pairs(nv_model_builder *b, const nv_train_set *s, const nv_model *in,
                     const nv_train_opts *o, size_t *written, char *err, size_t errlen)
{
    size_t nin = in ? nv_model_pair_count(in) : 0;
    size_t cap = s->n + nin + 1;
    struct pair_acc *p = calloc(cap, sizeof *p);
    double *x = malloc((s->n ? s->n : 1) * sizeof *x);
    if (!p || !x) {
        free(p);
        free(x);
        nv_err(err, errlen, "out of memory");
        return -1;
    }
    /* one sample per run with exactly one neighbour app and a baseline */
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++) {
        const nv_train_sum *j = &s->jobs[i];
        if (j->n_neighbours && j->neighbour_app >= 0 && isfinite(j->slowdown_pct)) {
            p[n].app = s->apps[j->app];
            p[n].with = s->apps[j->neighbour_app];
            p[n].pct = j->slowdown_pct;
            n++;
        }
    }
    qsort(p, n, sizeof *p, cmp_pair); /* stable enough: ties hold equal keys */
    /* reduce runs of equal keys in place; the samples of one key keep job
     * order inside qsort's output only up to ties, so sort them first */
    size_t m = 0;
    for (size_t g0 = 0; g0 < n;) {
        size_t g1 = g0;
        while (g1 < n && !cmp_pair(&p[g0], &p[g1]))
            g1++;
        size_t c = g1 - g0;
        for (size_t g = g0; g < g1; g++)
            x[g - g0] = p[g].pct;
        double median, sd;
        nv_train_pair_entry(x, c, &median, &sd);
        if (c >= o->min_runs) {
            p[m].app = p[g0].app;
            p[m].with = p[g0].with;
            p[m].pct = median;
            p[m].sd = sd;
            p[m].samples = (uint32_t)(c > UINT32_MAX ? UINT32_MAX : c);
            m++;
        }
        g0 = g1;
    }
    size_t measured = m;
    /* input pairs the history did not measure are kept */
    for (size_t i = 0; i < nin; i++) {
        nv_pair_view v;
        nv_app_view av, wv;
        nv_model_pair(in, i, &v);
        nv_model_app(in, v.app, &av);
        nv_model_app(in, v.with, &wv);
        struct pair_acc key = {av.key, wv.key, 0, 0, 0};
        if (measured && bsearch(&key, p, measured, sizeof *p, cmp_pair))
            continue;
        p[m++] = (struct pair_acc){av.key, wv.key, v.slowdown_pct, v.sd_pct, v.samples};
    }
    if (m > NV_MODEL_MAX_PAIRS) { /* what slurmctld loads: the best-measured entries */
        qsort(p, m, sizeof *p, cmp_samples_desc);
        m = NV_MODEL_MAX_PAIRS;
    }
    qsort(p, m, sizeof *p, cmp_pair);
    int rc = 0;
    for (size_t i = 0; i < m && !rc; i++) {
        nv_pair_input pi = {p[i].app, p[i].with, p[i].pct, p[i].samples, p[i].sd};
        if (nv_builder_add_pair(b, &pi)) {
            nv_err(err, errlen, "%s", nv_builder_error(b));
            rc = -1;
        }
    }
    if (written)
        *written = measured;
    free(p);
    free(x);
    return rc;
}

nv_model_builder *nv_train_build(const nv_train_set *s, const nv_model *in, const nv_train_opts *o,
                                 size_t *pairs_out, char *err, size_t errlen)
{
    if (!s || !o || !s->analyzed) {
        nv_err(err, errlen, "train: the job set is not analyzed");
        return NULL;
    }
    if (!(o->u_bucket > 0.001 && o->u_bucket <= 1)) {
        nv_err(err, errlen, "train: utilization bucket %g is outside (0.001, 1]", o->u_bucket);
        return NULL;
    }
    nv_calibration cal;
    nv_model_builder *b;
    if (in) {
        cal = *nv_model_calibration(in);
        b = nv_builder_from_model(in);
    } else {
        if (calibration_from_records(s, &cal, err, errlen))
            return NULL;
        b = nv_builder_new();
        if (b && nv_builder_set_calibration(b, &cal)) {
            nv_err(err, errlen, "%s", nv_builder_error(b));
            nv_builder_free(b);
            return NULL;
        }
    }
    if (!b) {
        nv_err(err, errlen, "out of memory creating the model builder");
        return NULL;
    }
    if (add_apps(b, s, in, &cal, o, err, errlen) ||
        add_pairs(b, s, in, o, pairs_out, err, errlen)) {
        nv_builder_free(b);
        return NULL;
    }
    return b;
}
