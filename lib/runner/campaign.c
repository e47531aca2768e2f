/* campaign.c - the campaign workflow: configuration lists and sets, the
 * sweep, and the model it updates (campaign.h). */
#include "campaign.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model_builder.h"
#include "nv_err.h"
#include "probe_output.h"
#include "probe_run.h"
#include "run_model.h"
#include "sort_cmp.h"

/* ------------------------------------------------------ configurations */

void nv_campaign_config_id(double b, int p, int m, char *buf, size_t n)
{
    char num[40], out[40];
    snprintf(num, sizeof num, "%.4g", b);
    size_t k = 0;
    for (const char *s = num; *s && k + 1 < sizeof out; s++) {
        if (*s == '+')
            continue;
        if (*s == '0' && k > 0 && (out[k - 1] == 'e' || out[k - 1] == '-') && s[1])
            continue; /* "e+04" -> "e4" */
        out[k++] = *s;
    }
    out[k] = '\0';
    snprintf(buf, n, "B%s-P%d-M%d", out, p, m);
}

static int add_config(nv_campaign_config *out, size_t cap, size_t *n, double b, long p, long m)
{
    if (*n >= cap)
        return -1;
    nv_campaign_config *c = &out[(*n)++];
    c->bubble_cycles = b;
    c->partners = (int)p;
    c->messages = (int)m;
    nv_campaign_config_id(b, (int)p, (int)m, c->id, sizeof c->id);
    return 0;
}

int nv_campaign_parse_configs(const char *spec, nv_campaign_config *out, size_t cap, size_t *n,
                              char *err, size_t errlen)
{
    *n = 0;
    if (!spec || !*spec)
        return nv_err(err, errlen, "--configs: empty list (expected B:P:M[,B:P:M...])");
    const char *p = spec;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char item[80];
        if (len == 0 || len >= sizeof item)
            return nv_err(err, errlen, "--configs: entry %zu is empty or too long (expected B:P:M)",
                          *n + 1);
        memcpy(item, p, len);
        item[len] = '\0';
        char *s1 = NULL, *s2 = NULL, *s3 = NULL;
        double b = strtod(item, &s1);
        long pp = 0, mm = 0;
        int ok = s1 != item && *s1 == ':' && isfinite(b) && b >= 0 && b <= 1e12;
        if (ok) {
            pp = strtol(s1 + 1, &s2, 10);
            ok = s2 != s1 + 1 && *s2 == ':' && pp >= 1 && pp <= 100000;
        }
        if (ok) {
            mm = strtol(s2 + 1, &s3, 10);
            ok = s3 != s2 + 1 && *s3 == '\0' && mm >= 1 && mm <= 1000;
        }
        if (!ok)
            return nv_err(err, errlen,
                          "--configs entry '%s': expected B:P:M with B cycles "
                          "0..1e12, P partners >= 1 and M messages 1..1000",
                          item);
        if (add_config(out, cap, n, b, pp, mm))
            return nv_err(err, errlen, "--configs: more than %zu configurations", cap);
        p += len;
        if (*p == ',' && !*++p)
            return nv_err(err, errlen, "--configs: entry %zu is empty (trailing comma)", *n + 1);
    }
    return 0;
}

/* The Queue-theory interference model's Table 2 training sets 1..12 (B
 * values accumulate, P in 1..14,16,17, M in {1,10}) and its section 4.3's
 * 40 configurations. */
static const double table2_b[12] = {2.5e9,  2.5e8, 2.5e7,  2.5e6, 1.25e6, 2.5e5,
                                    1.25e5, 2.5e4, 1.25e4, 2.5e3, 1.25e3, 2.5e2};
static const int table2_p[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 17};
static const double paper40_b[4] = {2.5e4, 2.5e5, 2.5e6, 2.5e7};
static const int paper40_p[5] = {1, 4, 7, 14, 17};
static const int both_m[2] = {1, 10};

int nv_campaign_named_set(const char *name, nv_campaign_config *out, size_t cap, size_t *n,
                          char *err, size_t errlen)
{
    *n = 0;
    int ok = 1;
    if (!strcmp(name, "paper40")) {
        for (int bi = 0; bi < 4; bi++)
            for (int pi = 0; pi < 5; pi++)
                for (int mi = 0; mi < 2; mi++)
                    ok &= !add_config(out, cap, n, paper40_b[bi], paper40_p[pi], both_m[mi]);
        return ok ? 0 : -1;
    }
    char *end;
    long k = !strncmp(name, "set", 3) ? strtol(name + 3, &end, 10) : 0;
    if (k < 1 || k > 12 || *end || end == name + 3)
        return nv_err(
            err, errlen,
            "--set '%.40s': must be set1 .. set12 (Queue-theory interference model, Table 2) or "
            "paper40 (section 4.3)",
            name);
    for (long bi = 0; bi < k; bi++)
        for (int pi = 0; pi < 16; pi++)
            for (int mi = 0; mi < 2; mi++)
                ok &= !add_config(out, cap, n, table2_b[bi], table2_p[pi], both_m[mi]);
    return ok ? 0 : -1;
}

size_t nv_campaign_fit_nodes(nv_campaign_config *c, size_t n, int nodes)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (c[i].partners <= nodes - 1)
            c[k++] = c[i];
    return k;
}

int nv_campaign_check_fit(const nv_campaign_config *c, size_t n, int nodes, int placed, char *err,
                          size_t errlen)
{
    for (size_t i = 0; i < n; i++)
        if (c[i].partners > nodes - 1)
            return nv_err(err, errlen,
                          "--configs %s: P=%d partners needs at least %d nodes, the "
                          "%s has %d (P must be 1..%d)",
                          c[i].id, c[i].partners, c[i].partners + 1,
                          placed ? "--load-nodes list" : "run", nodes, nodes - 1);
    return 0;
}

double nv_campaign_sleep_us(double bubble_cycles, double ghz)
{
    return bubble_cycles / (ghz * 1e3);
}

/* sorts a copy of at most NV_CAMPAIGN_MAX_REPEAT values */
double nv_campaign_median(const double *v, size_t n)
{
    double tmp[NV_CAMPAIGN_MAX_REPEAT];
    if (n == 0 || n > NV_CAMPAIGN_MAX_REPEAT)
        return 0;
    memcpy(tmp, v, n * sizeof *v);
    qsort(tmp, n, sizeof *tmp, nv_cmp_double);
    return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

size_t nv_campaign_fastest_index(const double *v, size_t n)
{
    size_t f = 0;
    if (n == 0 || n > NV_CAMPAIGN_MAX_REPEAT)
        return 0;
    for (size_t k = 1; k < n; k++)
        if (v[k] < v[f])
            f = k;
    return f;
}

double nv_campaign_fastest(const double *v, size_t n)
{
    if (n == 0 || n > NV_CAMPAIGN_MAX_REPEAT)
        return 0;
    return v[nv_campaign_fastest_index(v, n)];
}

double nv_campaign_median_kept(const double *v, size_t n, double stall_ratio,
                               unsigned char *stalled, size_t *n_stalled)
{
    double kept[NV_CAMPAIGN_MAX_REPEAT];
    size_t nk = 0;
    *n_stalled = 0;
    if (n == 0 || n > NV_CAMPAIGN_MAX_REPEAT)
        return 0;
    double fastest = nv_campaign_fastest(v, n);
    for (size_t k = 0; k < n; k++) {
        /* the fastest run is always kept, so at least one is */
        stalled[k] = stall_ratio > 0 && fastest > 0 && v[k] > stall_ratio * fastest;
        if (stalled[k])
            ++*n_stalled;
        else
            kept[nk++] = v[k];
    }
    return nv_campaign_median(kept, nk);
}

const char *nv_campaign_point_name(nv_campaign_point_rule r)
{
    return r == NV_CAMPAIGN_POINT_MEDIAN ? "median" : "fastest";
}

double nv_campaign_slowdown_pct(double t_alone, double t_with)
{
    if (!(t_alone > 0) || !isfinite(t_with))
        return 0;
    double s = (t_with - t_alone) / t_alone * 100.0;
    return s < -100 ? -100 : s;
}

void nv_campaign_points(nv_campaign_result *r, size_t ncfg, size_t repeat, double stall_ratio,
                        nv_campaign_point_rule rule)
{
    int fastest = rule == NV_CAMPAIGN_POINT_FASTEST;
    r->baseline_median_s = nv_campaign_median_kept(r->baseline_s, repeat, stall_ratio,
                                                   r->baseline_stalled, &r->n_baseline_stalled);
    r->baseline_point_s =
        fastest ? nv_campaign_fastest(r->baseline_s, repeat) : r->baseline_median_s;
    for (size_t i = 0; i < ncfg; i++) {
        nv_campaign_config_result *c = &r->configs[i];
        c->median_s =
            nv_campaign_median_kept(c->runtime_s, repeat, stall_ratio, c->stalled, &c->n_stalled);
        c->point_s = fastest ? nv_campaign_fastest(c->runtime_s, repeat) : c->median_s;
        c->slowdown_pct = nv_campaign_slowdown_pct(r->baseline_point_s, c->point_s);
    }
}

/* ---------------------------------------------------------- measuring */

/* One campaign under way. */
typedef struct campaign {
    const nv_run_plan *plan;
    const nv_campaign_opts *o;
    const nv_calibration *cal;
    nv_bn_sampler *bn; /* the counters route, or NULL */
    double *app_u;     /* U steps inside the baseline's timed windows */
    size_t n_app_u;
    double *app_w; /* and their gauge readings */
    size_t n_app_w;
    nv_joint_window *joint; /* and both, over NV_CAMPAIGN_JOINT_WINDOW_S windows */
    size_t n_joint;
    double app_port_sum[NV_BN_MAX_PORTS]; /* each port's U summed over those windows */
    size_t app_port_n;                    /* ... over this many windows */
} campaign;

/* CompressionB's arguments for a configuration (pointing into bufs). */
static void compressionb_args(const campaign *cp, const nv_campaign_config *cfg, char bufs[5][32],
                              const char *args[10])
{
    snprintf(bufs[0], 32, "%d", cfg->partners);
    snprintf(bufs[1], 32, "%d", cfg->messages);
    snprintf(bufs[2], 32, "%.17g", cfg->bubble_cycles);
    snprintf(bufs[3], 32, "%ld", cp->o->msg_bytes);
    snprintf(bufs[4], 32, "%.17g", cp->o->ghz);
    args[0] = "--partners";
    args[1] = bufs[0];
    args[2] = "--messages";
    args[3] = bufs[1];
    args[4] = "--cycles";
    args[5] = bufs[2];
    args[6] = "--msg-bytes";
    args[7] = bufs[3];
    args[8] = "--ghz";
    args[9] = bufs[4];
}

/* One run of the command beside a started probe; the probe is stopped and
 * its output returned (malloc'd) in *probe_text. */
static int run_beside(const campaign *cp, nv_child *probe, const char *name, double *runtime_s,
                      uint64_t *t_end, char **probe_text, size_t *len, char *err, size_t errlen)
{
    char cerr[600] = "";
    int crc = nv_run_command(cp->plan, cp->o->cmd, cp->o->ncmd, name, cp->o->timeout_s, runtime_s,
                             cerr, sizeof cerr);
    *t_end = nv_bn_now_ns();
    *probe_text = nv_probe_finish(probe, cp->plan, 1, 0, len, err, errlen);
    if (crc) {
        nv_err(err, errlen, "%s", cerr);
        free(*probe_text);
        *probe_text = NULL;
        return -1;
    }
    return *probe_text ? 0 : -1;
}

/* Baseline run r: ImpactB beside the command; its samples are appended. */
static int run_baseline(campaign *cp, int r, double *runtime_s, double **samples, size_t *n_samples,
                        char *err, size_t errlen)
{
    char ivl[32], name[48];
    snprintf(ivl, sizeof ivl, "%ld", cp->o->interval_us);
    snprintf(name, sizeof name, "impactb-baseline-%d", r + 1);
    const char *args[] = {"--interval-us", ivl, "--samples"};
    nv_child probe;
    if (nv_probe_start(&probe, cp->plan, cp->plan->impactb, name, args, 3, err, errlen))
        return -1;
    char *text = NULL;
    size_t len = 0;
    snprintf(name, sizeof name, "command-baseline-%d", r + 1);
    uint64_t t_end;
    if (run_beside(cp, &probe, name, runtime_s, &t_end, &text, &len, err, errlen))
        return -1;
    /* the counters route: the command's timed window only (the runtime ends
     * where the command does), so launch and teardown do not dilute it */
    if (cp->bn && *runtime_s > 0) {
        uint64_t w = (uint64_t)(*runtime_s * 1e9);
        uint64_t t0 = t_end > w ? t_end - w : 0;
        if (nv_bn_collect(cp->bn, NV_BN_U, t0, t_end, &cp->app_u, &cp->n_app_u) < 0 ||
            nv_bn_collect(cp->bn, NV_BN_WAIT, t0, t_end, &cp->app_w, &cp->n_app_w) < 0 ||
            nv_bn_joint_windows(cp->bn, t0, t_end, (uint64_t)(NV_CAMPAIGN_JOINT_WINDOW_S * 1e9),
                                &cp->joint, &cp->n_joint) < 0) {
            free(text);
            return nv_err(err, errlen, "out of memory for the bottleneck samples");
        }
        for (int i = 0; i < cp->o->bottleneck->nports; i++) {
            double m = nv_bn_port_window(cp->bn, i, t0, t_end);
            cp->app_port_sum[i] += isnan(m) ? 0 : m;
        }
        cp->app_port_n++;
    }
    nv_impactb_output ib;
    char perr[300];
    int rc = nv_impactb_parse(text, len, &ib, perr, sizeof perr);
    free(text);
    if (rc)
        return nv_err(err, errlen, "ImpactB beside the baseline: %s", perr);
    if (ib.n_samples) {
        double *grown = realloc(*samples, (*n_samples + ib.n_samples) * sizeof **samples);
        if (!grown) {
            nv_impactb_output_free(&ib);
            return nv_err(err, errlen, "out of memory for ImpactB samples");
        }
        memcpy(grown + *n_samples, ib.samples_us, ib.n_samples * sizeof *grown);
        *samples = grown;
        *n_samples += ib.n_samples;
    }
    nv_impactb_output_free(&ib);
    return 0;
}

/* Run r of the command under a configuration. */
static int run_loaded(const campaign *cp, const nv_campaign_config *cfg, int r,
                      nv_campaign_config_result *res, char *err, size_t errlen)
{
    char bufs[5][32], name[96];
    const char *args[10];
    compressionb_args(cp, cfg, bufs, args);
    snprintf(name, sizeof name, "compressionb-%s-%d", cfg->id, r + 1);
    nv_child probe;
    if (nv_probe_start(&probe, cp->plan, cp->plan->compressionb, name, args, 10, err, errlen))
        return -1;
    char *text = NULL;
    size_t len = 0;
    snprintf(name, sizeof name, "command-%s-%d", cfg->id, r + 1);
    uint64_t t_end;
    if (run_beside(cp, &probe, name, &res->runtime_s[r], &t_end, &text, &len, err, errlen))
        return -1;
    nv_compressionb_output cb;
    char perr[300];
    int rc = nv_compressionb_parse(text, len, &cb, perr, sizeof perr);
    free(text);
    if (rc)
        return nv_err(err, errlen, "CompressionB %s: %s", cfg->id, perr);
    res->bytes_per_s_sum += cb.mean_bytes_per_s;
    res->bw_runs++;
    nv_compressionb_output_free(&cb);
    return 0;
}

/* A configuration alone for duration_s with ImpactB beside it. */
static int characterize(const campaign *cp, const nv_campaign_config *cfg,
                        nv_campaign_config_result *res, char *err, size_t errlen)
{
    char bufs[5][32], name[96];
    const char *args[10];
    compressionb_args(cp, cfg, bufs, args);
    snprintf(name, sizeof name, "compressionb-%s-characterize", cfg->id);
    nv_child load;
    if (nv_probe_start(&load, cp->plan, cp->plan->compressionb, name, args, 10, err, errlen))
        return -1;
    char dur[32], ivl[32];
    snprintf(dur, sizeof dur, "%g", cp->o->duration_s);
    snprintf(ivl, sizeof ivl, "%ld", cp->o->interval_us);
    const char *iargs[] = {"--duration-s", dur, "--interval-us", ivl, "--samples"};
    snprintf(name, sizeof name, "impactb-%s", cfg->id);
    nv_child probe;
    char *itext = NULL, *ctext = NULL;
    size_t ilen = 0, clen = 0;
    /* across from the load: on COMMAND's nodes when the load is placed */
    if (nv_probe_start_on(&probe, cp->plan, NV_SIDE_APP, cp->plan->impactb, name, iargs, 5, err,
                          errlen)) {
        nv_child_stop(&load, 5);
        return -1;
    }
    itext = nv_probe_finish(&probe, cp->plan, 0, cp->o->duration_s + cp->plan->launch_timeout_s,
                            &ilen, err, errlen);
    /* the counters route over ImpactB's own measuring time: its last
     * duration_s seconds, with the load at steady state */
    if (cp->bn && itext) {
        uint64_t t1 = nv_bn_now_ns(), w = (uint64_t)(cp->o->duration_s * 1e9);
        size_t np;
        res->counter_steps =
            nv_bn_window(cp->bn, NV_BN_U, t1 > w ? t1 - w : 0, t1, &res->u_counters, NULL, 0, &np);
        /* a sampler starved on a busy host can miss a short window: the
         * load still runs, so its next steps (up to 2 s) stand in */
        for (int k = 0; !res->counter_steps && k < 40 && !nv_run_interrupted(); k++) {
            struct timespec nap = {0, 50000000L};
            nanosleep(&nap, NULL);
            t1 = nv_bn_now_ns();
            res->counter_steps = nv_bn_window(cp->bn, NV_BN_U, t1 > w ? t1 - w : 0, t1,
                                              &res->u_counters, NULL, 0, &np);
        }
        nv_bn_window(cp->bn, NV_BN_WAIT, t1 > w ? t1 - w : 0, t1, &res->wait, NULL, 0, &np);
        for (int i = 0; i < cp->o->bottleneck->nports; i++)
            res->port_u[i] = nv_bn_port_window(cp->bn, i, t1 > w ? t1 - w : 0, t1);
    }
    char cerr[300] = "";
    ctext = nv_probe_finish(&load, cp->plan, 1, 0, &clen, cerr, sizeof cerr);
    int rc = -1;
    nv_impactb_output ib = {0};
    nv_compressionb_output cb = {0};
    char perr[300];
    if (!itext)
        goto done;
    if (!ctext) {
        nv_err(err, errlen, "%s", cerr);
        goto done;
    }
    if (nv_impactb_parse(itext, ilen, &ib, perr, sizeof perr)) {
        nv_err(err, errlen, "ImpactB beside %s: %s", cfg->id, perr);
        goto done;
    }
    if (nv_compressionb_parse(ctext, clen, &cb, perr, sizeof perr)) {
        nv_err(err, errlen, "CompressionB %s: %s", cfg->id, perr);
        goto done;
    }
    res->bytes_per_s_sum += cb.mean_bytes_per_s;
    res->bw_runs++;
    if (nv_run_app_utilization(cp->cal, ib.samples_us, ib.n_samples, &res->lat, &res->u)) {
        nv_err(err, errlen,
               "ImpactB beside %s took no latency sample in %g s (use a longer "
               "--duration-s or a smaller --interval-us)",
               cfg->id, cp->o->duration_s);
        goto done;
    }
    res->lat_samples = ib.n_samples;
    rc = 0;
done:
    nv_impactb_output_free(&ib);
    nv_compressionb_output_free(&cb);
    free(itext);
    free(ctext);
    return rc;
}

/* --------------------------------------------------------- the model */

/* Writes the app's profile (latency, utilization, compression points) and
 * one training-set entry per configuration into the model file; *r->fit
 * gets the app's p_A(U) fit as the saved model holds it. */
/* whether any app of the model has queue-wait points */
static int model_has_wait_points(const nv_model *m)
{
    for (size_t i = 0; m && i < nv_model_app_count(m); i++) {
        nv_app_view v;
        if (!nv_model_app(m, (int32_t)i, &v) && v.n_wait_points)
            return 1;
    }
    return 0;
}

static int save_model(const nv_campaign_opts *o, const nv_model *model, nv_campaign_result *r,
                      char *err, size_t errlen)
{
    const char *app = o->app;
    const nv_campaign_config *cfg = o->cfg;
    const nv_campaign_config_result *res = r->configs;
    size_t ncfg = o->ncfg;
    int rc = -1;
    nv_model_builder *b = nv_builder_from_model(model);
    nv_curve_point *pts = NULL, *wpts = NULL;
    const char **apps = NULL;
    double *pct = NULL;
    nv_model *check = NULL;
    if (!b) {
        nv_err(err, errlen, "out of memory");
        goto done;
    }
    int32_t idx = nv_model_app_index(model, app);
    nv_app_view v = {0};
    if (idx >= 0)
        nv_model_app(model, idx, &v);
    size_t keep = o->replace_points || idx < 0 ? 0 : v.n_points;
    pts = malloc((keep + ncfg) * sizeof *pts);
    if (!pts) {
        nv_err(err, errlen, "out of memory");
        goto done;
    }
    if (keep)
        memcpy(pts, v.points, keep * sizeof *pts);
    /* the counters route, when measured, is the model's U axis: both the
     * configurations' and the app's own U come from the bottleneck port */
    int counters = o->bottleneck && r->n_app_steps;
    for (size_t i = 0; i < ncfg; i++)
        pts[keep + i] = (nv_curve_point){.utilization = counters ? res[i].u_counters : res[i].u.rho,
                                         .slowdown_pct = res[i].slowdown_pct,
                                         .weight = (double)((size_t)o->repeat - res[i].n_stalled)};
    /* the queueing mechanism, where the ports have a queue gauge: the app's
     * slowdowns against each configuration's mean queue wait, and its own
     * wait profile.  Earlier wait points are kept like compression points. */
    int waits = counters && r->n_app_wait;
    for (size_t i = 0; waits && i < ncfg; i++)
        waits = isfinite(res[i].wait);
    size_t wkeep = waits && !o->replace_points && idx >= 0 ? v.n_wait_points : 0;
    wpts = waits ? malloc((wkeep + ncfg) * sizeof *wpts) : NULL;
    if (waits && !wpts) {
        nv_err(err, errlen, "out of memory");
        goto done;
    }
    if (wkeep)
        memcpy(wpts, v.wait_points, wkeep * sizeof *wpts);
    for (size_t i = 0; waits && i < ncfg; i++)
        wpts[wkeep + i] =
            (nv_curve_point){.utilization = res[i].wait,
                             .slowdown_pct = res[i].slowdown_pct,
                             .weight = (double)((size_t)o->repeat - res[i].n_stalled)};
    nv_app_input in = {.key = app,
                       .utilization = counters ? r->app_u_counters : r->app_u.rho,
                       .utilization_source = counters ? NV_USRC_COUNTERS : NV_USRC_LATENCY,
                       .latency = &r->app_lat,
                       .points = pts,
                       .n_points = keep + ncfg,
                       .scaling = idx >= 0 ? v.scaling : NULL,
                       .n_scaling = idx >= 0 ? v.n_scaling : 0,
                       .profile = counters ? r->app_profile : NULL,
                       .n_profile = counters ? r->n_app_profile : 0,
                       .wait_points = waits ? wpts : NULL,
                       .n_wait_points = waits ? wkeep + ncfg : 0,
                       .wait_profile_us = waits ? r->app_wait_profile : NULL,
                       .n_wait_profile = waits ? r->n_app_wait_profile : 0,
                       /* the neighbour's side of the nearest configurations */
                       .joint = waits && r->n_app_joint ? r->app_joint : NULL,
                       .n_joint = waits ? r->n_app_joint : 0,
                       .joint_window_s = NV_CAMPAIGN_JOINT_WINDOW_S};
    if (counters) {
        nv_bottleneck bn = *nv_model_bottleneck(model);
        bn.route = NV_USRC_COUNTERS;
        if (waits) {
            /* every queue_wait figure of a file is on one axis */
            nv_wait_gauge g = nv_bn_wait_gauge(r->gauge);
            if (g != bn.wait_gauge && model_has_wait_points(model)) {
                nv_err(err, errlen,
                       "the model's queue-wait points read %s but this campaign's "
                       "ports read %s: they are not on one axis (use another model file)",
                       nv_wait_gauge_name(bn.wait_gauge), nv_wait_gauge_name(g));
                goto done;
            }
            bn.wait_gauge = g;
        }
        if (nv_builder_set_bottleneck(b, &bn)) {
            nv_err(err, errlen, "%s", nv_builder_error(b));
            goto done;
        }
    }
    if (nv_builder_add_app(b, &in)) {
        nv_err(err, errlen, "%s", nv_builder_error(b));
        goto done;
    }
    for (size_t i = 0; i < ncfg; i++) {
        /* keep the other apps' slowdowns an earlier campaign measured under it */
        size_t n_old = 0;
        nv_config_view cv;
        int32_t ci = -1;
        for (size_t k = 0; k < nv_model_config_count(model); k++)
            if (nv_model_config(model, (int32_t)k, &cv) == 0 && !strcmp(cv.id, cfg[i].id)) {
                ci = (int32_t)k;
                n_old = cv.n_slowdowns;
                break;
            }
        free(apps);
        free(pct);
        apps = malloc((n_old + 1) * sizeof *apps);
        pct = malloc((n_old + 1) * sizeof *pct);
        if (!apps || !pct) {
            nv_err(err, errlen, "out of memory");
            goto done;
        }
        size_t n = 0;
        for (size_t k = 0; k < n_old; k++) {
            int32_t a;
            double s;
            nv_app_view av;
            if (nv_model_config_slowdown(model, ci, k, &a, &s) || nv_model_app(model, a, &av) ||
                !strcmp(av.key, app))
                continue;
            apps[n] = av.key;
            pct[n++] = s;
        }
        apps[n] = app;
        pct[n++] = res[i].slowdown_pct;
        nv_config_input ci_in = {.id = cfg[i].id,
                                 .bubble_cycles = cfg[i].bubble_cycles,
                                 .partners = (uint32_t)cfg[i].partners,
                                 .messages = (uint32_t)cfg[i].messages,
                                 .utilization = counters ? res[i].u_counters : res[i].u.rho,
                                 .latency = &res[i].lat,
                                 .n_slowdowns = n,
                                 .slowdown_apps = apps,
                                 .slowdown_pct = pct,
                                 /* where every configuration's wait was read, the
                                  * nearest configurations can place them */
                                 .has_queue_wait = waits,
                                 .queue_wait_us = res[i].wait};
        if (nv_builder_add_config(b, &ci_in)) {
            nv_err(err, errlen, "%s", nv_builder_error(b));
            goto done;
        }
    }
    if (nv_builder_save(b, o->model_path, err, errlen))
        goto done;
    /* report the fit as the saved model holds it */
    check = nv_builder_build(b, err, errlen);
    r->n_fit = 0;
    if (check) {
        nv_app_view nv;
        int32_t j = nv_model_app_index(check, app);
        if (j >= 0 && nv_model_app(check, j, &nv) == 0 && nv.n_fit &&
            (r->fit = malloc(nv.n_fit * sizeof *r->fit)))
            for (size_t k = 0; k < nv.n_fit && k < NV_CAMPAIGN_MAX_CONFIGS; k++)
                r->fit[r->n_fit++] = nv.fit[k];
    }
    rc = 0;
done:
    nv_model_free(check);
    nv_builder_free(b);
    free(pts);
    free(wpts);
    free(apps);
    free(pct);
    return rc;
}

/* Pearson r of the latency route's U against the counters' over the
 * configurations (NAN with fewer than 3 or no spread) */
static double routes_pearson(const nv_campaign_config_result *c, size_t n)
{
    if (n < 3)
        return NAN;
    double mx = 0, my = 0;
    for (size_t i = 0; i < n; i++)
        mx += c[i].u.rho, my += c[i].u_counters;
    mx /= (double)n, my /= (double)n;
    double sxy = 0, sx = 0, sy = 0;
    for (size_t i = 0; i < n; i++) {
        double dx = c[i].u.rho - mx, dy = c[i].u_counters - my;
        sxy += dx * dy, sx += dx * dx, sy += dy * dy;
    }
    return sx > 0 && sy > 0 ? sxy / sqrt(sx * sy) : NAN;
}

/* ------------------------------------------------------------ the sweep */

void nv_campaign_opts_defaults(nv_campaign_opts *o)
{
    memset(o, 0, sizeof *o);
    o->repeat = 1;
    o->stall_ratio = 3;
    o->timeout_s = 3600;
    o->duration_s = 5;
    o->ghz = 2.6;
    o->interval_us = 20000;
    o->msg_bytes = 40960;
}

void nv_campaign_result_free(nv_campaign_result *r)
{
    free(r->configs);
    free(r->fit);
    r->configs = NULL;
    r->fit = NULL;
    r->n_fit = 0;
}

int nv_campaign_run(nv_run_plan *plan, const nv_campaign_opts *o, nv_campaign_result *r, char *err,
                    size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (!o->model_path || !o->app || !o->cmd || !o->ncmd || !o->cfg || !o->ncfg ||
        o->ncfg > NV_CAMPAIGN_MAX_CONFIGS || o->repeat < 1 || o->repeat > NV_CAMPAIGN_MAX_REPEAT)
        return nv_err(err, errlen,
                      "nothing to run: a model, an app, a command, 1-%d "
                      "configurations and 1-%d repeats are needed",
                      NV_CAMPAIGN_MAX_CONFIGS, NV_CAMPAIGN_MAX_REPEAT);
    nv_model *model = nv_run_load_model_required(o->model_path, err, errlen);
    if (!model)
        return -1;
    char inner[600] = "";
    campaign cp = {.plan = plan, .o = o, .cal = nv_model_calibration(model)};
    int rc = -1;
    double *app_samples = NULL;
    size_t n_app_samples = 0;
    r->configs = calloc(o->ncfg, sizeof *r->configs);
    if (!r->configs) {
        nv_err(err, errlen, "out of memory for %zu configurations; nothing run", o->ncfg);
        goto out;
    }
    for (size_t i = 0; i < o->ncfg; i++)
        r->configs[i].u_counters = r->configs[i].wait = NAN;
    r->app_wait = NAN;
    if (nv_run_work_dir(plan, o->keep_dir, "campaign", inner, sizeof inner)) {
        nv_err(err, errlen, "%s; nothing run", inner);
        goto out;
    }
    if (o->bottleneck) {
        cp.bn = nv_bn_start(o->bottleneck,
                            o->bottleneck_interval_ms > 0 ? o->bottleneck_interval_ms : 100, inner,
                            sizeof inner);
        if (!cp.bn) {
            nv_err(err, errlen, "%s; nothing run", inner);
            goto out;
        }
    }
    size_t runs = (size_t)o->repeat * (1 + o->ncfg), done = 0;
    for (int k = 0; k < o->repeat; k++) {
        if (run_baseline(&cp, k, &r->baseline_s[k], &app_samples, &n_app_samples, inner,
                         sizeof inner)) {
            nv_err(err, errlen, "baseline run %d: %s; model not changed", k + 1, inner);
            goto out;
        }
        if (o->progress)
            o->progress(o->progress_ctx, ++done, runs);
        for (size_t i = 0; i < o->ncfg; i++) {
            if (run_loaded(&cp, &o->cfg[i], k, &r->configs[i], inner, sizeof inner)) {
                nv_err(err, errlen, "run %d under %s: %s; model not changed", k + 1, o->cfg[i].id,
                       inner);
                goto out;
            }
            if (o->progress)
                o->progress(o->progress_ctx, ++done, runs);
        }
    }
    for (size_t i = 0; i < o->ncfg; i++)
        if (characterize(&cp, &o->cfg[i], &r->configs[i], inner, sizeof inner)) {
            nv_err(err, errlen, "%s; model not changed", inner);
            goto out;
        }
    nv_campaign_points(r, o->ncfg, (size_t)o->repeat, o->stall_ratio, o->point);
    for (size_t i = 0; i < o->ncfg; i++) {
        nv_campaign_config_result *c = &r->configs[i];
        c->injected_bytes_per_s = c->bw_runs ? c->bytes_per_s_sum / c->bw_runs : 0;
    }
    if (nv_run_app_utilization(cp.cal, app_samples, n_app_samples, &r->app_lat, &r->app_u)) {
        nv_err(err, errlen,
               "ImpactB took no latency sample beside the baseline runs; run the "
               "command longer or use a smaller --interval-us; model not changed");
        goto out;
    }
    r->app_samples = n_app_samples;
    r->route_agreement = NAN;
    if (cp.bn) {
        nv_bn_values_stats(cp.app_u, cp.n_app_u, &r->app_u_counters, r->app_profile, NV_PROFILE_MAX,
                           &r->n_app_profile);
        r->n_app_steps = cp.n_app_u;
        r->gauge = nv_bn_sampler_gauge(cp.bn);
        for (int i = 0; i < o->bottleneck->nports; i++)
            r->app_port_u[i] = cp.app_port_n ? cp.app_port_sum[i] / (double)cp.app_port_n : NAN;
        nv_bn_values_stats(cp.app_w, cp.n_app_w, &r->app_wait, r->app_wait_profile, NV_PROFILE_MAX,
                           &r->n_app_wait_profile);
        r->n_app_wait = cp.n_app_w;
        /* the joint windows, where the ports have a gauge: every k-th of
         * them when there were more than a model keeps */
        r->n_app_joint_measured = cp.n_app_w ? cp.n_joint : 0;
        r->n_app_joint =
            r->n_app_joint_measured < NV_JOINT_MAX ? r->n_app_joint_measured : NV_JOINT_MAX;
        for (size_t k = 0; k < r->n_app_joint; k++)
            r->app_joint[k] = cp.joint[k * r->n_app_joint_measured / r->n_app_joint];
        r->bottleneck_read_errors = nv_bn_read_errors(cp.bn);
        for (size_t i = 0; i < o->ncfg; i++)
            if (!r->configs[i].counter_steps) {
                nv_err(err, errlen,
                       "the bottleneck sampler took no step while %s ran (a port "
                       "unreadable %zu times); model not changed",
                       o->cfg[i].id, r->bottleneck_read_errors);
                goto out;
            }
        if (!r->n_app_steps) {
            nv_err(err, errlen,
                   "the bottleneck sampler took no step inside the baseline runs' "
                   "timed windows (%zu read errors); model not changed",
                   r->bottleneck_read_errors);
            goto out;
        }
        r->route_agreement = routes_pearson(r->configs, o->ncfg);
    }
    if (save_model(o, model, r, inner, sizeof inner)) {
        nv_err(err, errlen, "%s; model not changed", inner);
        goto out;
    }
    rc = 0;
out:
    nv_bn_stop(cp.bn);
    free(cp.joint);
    free(cp.app_u);
    free(cp.app_w);
    if (plan->work_dir[0]) {
        nv_run_work_dir_cleanup(plan, o->keep_dir != NULL || rc != 0);
        r->logs_kept = rc != 0 && !o->keep_dir;
    }
    free(app_samples);
    nv_model_free(model);
    return rc;
}
