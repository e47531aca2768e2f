/* verb_report.c - `netvar report`: what netvar measured and concluded, for
 * one job (JOBID), one app (--app) or the running cluster (--cluster), as
 * an aligned table with units or JSON, and SVG plots (--plot). */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <json.h>

#include "config.h"
#include "job_record.h"
#include "model.h"
#include "predict.h"
#include "registry.h"
#include "report_logic.h"
#include "segment_estimate.h"
#include "segment_profile.h"
#include "svg_plot.h"
#include "train_history.h"
#include "ve_features.h"
#include "ve_train.h"
#include "verbs.h"

#define MAX_NEIGHBOURS 64
#define WORST_PAIRS 10

static void usage(FILE *out)
{
    fprintf(out,
        "Usage: netvar report JOBID [--spool DIR] [--model FILE] [--json] [--plot FILE.svg]\n"
        "       netvar report --app NAME [--model FILE] [--json] [--plot FILE.svg]\n"
        "                     [--plot-latency FILE.svg]\n"
        "       netvar report --cluster [--spool DIR] [--model FILE] [--json]\n"
        "\n"
        "Show what netvar measured and concluded.\n"
        "\n"
        "JOBID      from the job record (DIR/jobs/JOBID/job.json, `netvar collect`):\n"
        "           runtime, counter metrics with units, utilization, the segment\n"
        "           interference estimate and class when the job was profiled\n"
        "           (DIR/jobs/JOBID/profiles/*.json), its neighbours (jobs overlapping\n"
        "           it on a shared leaf switch or group, from the other records), the\n"
        "           slowdown predicted beside them and the one observed (runtime\n"
        "           against the app's baseline), the advice and prediction made at\n"
        "           submission (the record's netvar annotation; \"not recorded\" when\n"
        "           it holds none) against what happened, and the Variability\n"
        "           Estimate when the model has one.\n"
        "           --plot: segment durations over time, interfered ones marked\n"
        "           (seed 001 Fig. 2).\n"
        "--app      the app's profile in the model: U_A and where it came from, the\n"
        "           latency summary, p_A(U) points and fit, scaling, and its\n"
        "           neighbours in the co-location table.\n"
        "           --plot: p_A(U), measured points and the fitted curve (seed 000\n"
        "           Fig. 12); --plot-latency: its ImpactB latency histogram against\n"
        "           the idle one (Fig. 3).\n"
        "--cluster  running jobs (DIR/running), predicted slowdowns among those that\n"
        "           share a leaf switch, worst pairs first.\n"
        "\n"
        "Options:\n"
        "  --spool DIR          netvar spool (default: netvar.conf's, /var/spool/netvar)\n"
        "  --model FILE         model file (default /var/lib/netvar/model.json)\n"
        "  --predictor NAME     queue (default), averagelt, averagestdevlt, pdflt\n"
        "  --json               JSON instead of the table\n"
        "  --plot FILE.svg      write the plot described above (atomically)\n"
        "  --plot-latency FILE.svg  (--app) the latency histogram plot\n"
        "  -h, --help           show this help\n"
        "\n"
        "Exit status: 0 reported, 1 record, model or spool unreadable (or nothing\n"
        "to plot), 2 bad usage.\n"
        "\n"
        "Examples:\n"
        "  netvar report 4242 --spool /var/spool/netvar\n"
        "  netvar report --app lulesh --plot lulesh-curve.svg\n"
        "  netvar report --cluster --json\n");
}

struct ctx {
    const char *spool, *model_path, *plot, *plot_latency;
    int json;
    nv_predictor predictor;
    nv_model *m;
};

static json_object *jd(double d)
{
    if (!isfinite(d))
        return NULL;
    char buf[32];
    snprintf(buf, sizeof buf, "%.6g", d);
    return json_object_new_double_s(d, buf);
}

static void print_json(json_object *o)
{
    printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
                                                         JSON_C_TO_STRING_NOSLASHESCAPE));
}

static void log_quiet(void *c, const char *line)
{
    (void)c;
    (void)line; /* train reports corrupt records; report only counts them */
}

static json_object *read_json(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) || !S_ISREG(st.st_mode) || st.st_size > (8 << 20)) {
        snprintf(err, errlen, "%.300s: %s", path,
                 errno == ENOENT ? "no such file" : "not a readable file of at most 8 MiB");
        return NULL;
    }
    json_object *o = json_object_from_file(path);
    if (!o)
        snprintf(err, errlen, "%.300s: not valid JSON", path);
    return o;
}

static const char *jstr(json_object *o, const char *k)
{
    json_object *v;
    return json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_string)
               ? json_object_get_string(v)
               : NULL;
}

static double jnum(json_object *o, const char *k)
{
    json_object *v;
    if (!json_object_object_get_ex(o, k, &v) ||
        !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
        return NAN;
    return json_object_get_double(v);
}

/* human units for counter values: k/M/G/T prefixes */
static void si(char *buf, size_t n, double v, const char *unit)
{
    const char *p[] = {"", "k", "M", "G", "T", "P"};
    int k = 0;
    double a = fabs(v);
    while (a >= 1000 && k < 5)
        a /= 1000, v /= 1000, k++;
    if (!isfinite(v))
        snprintf(buf, n, "n/a");
    else
        snprintf(buf, n, "%.3g %s%s", v, p[k], unit);
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* first profile JSON of the job (sorted by name), or "" */
static void find_profile(const char *spool, const char *jobid, char *out, size_t n)
{
    char dir[4400];
    out[0] = 0;
    snprintf(dir, sizeof dir, "%s/jobs/%s/profiles", spool, jobid);
    DIR *d = opendir(dir);
    if (!d)
        return;
    char *names[256];
    size_t k = 0;
    struct dirent *e;
    while ((e = readdir(d)) && k < 256) {
        size_t l = strlen(e->d_name);
        if (l > 5 && !strcmp(e->d_name + l - 5, ".json") && e->d_name[0] != '.')
            names[k++] = strdup(e->d_name);
    }
    closedir(d);
    size_t good = 0;
    for (size_t i = 0; i < k; i++)
        if (names[i])
            names[good++] = names[i];
    if (good) {
        qsort(names, good, sizeof *names, cmp_name);
        snprintf(out, n, "%s/%s", dir, names[0]);
    }
    for (size_t i = 0; i < good; i++)
        free(names[i]);
}

/* ------------------------------------------------------------ JOBID */

static int plot_segments(const nv_seg_profile *p, const char *path, char *err, size_t errlen)
{
    nv_seg_estimate_opts o;
    nv_seg_estimate_opts_default(&o);
    size_t n = p->n;
    double *x = malloc((n ? n : 1) * sizeof *x), *y = malloc((n ? n : 1) * sizeof *y);
    double *xi = malloc((n ? n : 1) * sizeof *xi), *yi = malloc((n ? n : 1) * sizeof *yi);
    unsigned char *flag = malloc(n ? n : 1);
    int rc = -1;
    if (!x || !y || !xi || !yi || !flag) {
        snprintf(err, errlen, "plot: out of memory");
        goto out;
    }
    long nf = nv_report_segment_flags(p->work, p->time_us, p->signature, n, &o, flag);
    if (nf < 0) {
        snprintf(err, errlen, "plot: the segment estimate failed");
        goto out;
    }
    double t = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        double d = isfinite(p->time_us[i]) && p->time_us[i] > 0 ? p->time_us[i] : 0;
        x[i] = t * 1e-6;
        y[i] = d * 1e-3;
        if (flag[i])
            xi[k] = x[i], yi[k++] = y[i];
        t += d;
    }
    nv_svg_series s[2] = {{"segment duration", x, y, n, NV_SVG_LINE, "#1f77b4"},
                          {"interfered (> median + 4 MAD)", xi, yi, k, NV_SVG_POINTS, "#d62728"}};
    nv_svg_chart c = {"Segment durations over the run (interfered marked)",
                      "time since MPI_Init (s)", "segment duration (ms)", 0, s, 2};
    rc = nv_svg_write(&c, path, err, errlen);
out:
    free(x), free(y), free(xi), free(yi), free(flag);
    return rc;
}

static int report_job(struct ctx *c, const char *jobid)
{
    char path[4400], err[512];
    int64_t id = 0;
    for (const char *p = jobid; *p; p++)
        if (*p < '0' || *p > '9' || p - jobid > 15) {
            fprintf(stderr, "netvar: report: JOBID %.40s: not a job number\n", jobid);
            return 2;
        }
    id = strtoll(jobid, NULL, 10);
    snprintf(path, sizeof path, "%s/jobs/%s/job.json", c->spool, jobid);
    json_object *rec = read_json(path, err, sizeof err);
    if (!rec) {
        fprintf(stderr, "netvar: report: job %s: %s (run `netvar collect` for it first)\n",
                jobid, err);
        return 1;
    }
    json_object *out = json_object_new_object();
    json_object_object_add(out, "job_id", json_object_new_int64(id));
    const char *app = jstr(rec, "app");
    json_object_object_add(out, "app", app ? json_object_new_string(app) : NULL);
    json_object *v;
    size_t nodes = json_object_object_get_ex(rec, "nodes", &v) && json_object_is_type(v, json_type_array)
                       ? json_object_array_length(v) : 0;
    json_object_object_add(out, "nodes", json_object_new_int64((int64_t)nodes));
    double runtime = jnum(rec, "runtime_s");
    json_object_object_add(out, "runtime_s", jd(runtime));
    if (json_object_object_get_ex(rec, "switches", &v))
        json_object_object_add(out, "switches", json_object_get(v));

    /* own utilization, as train reads it */
    nv_train_job self;
    char appkey[NV_MODEL_KEY_MAX + 1];
    double service = c->m ? nv_model_calibration(c->m)->service_us : 0;
    int parsed = nv_train_job_from_record(rec, service, &self, appkey, err, sizeof err);
    json_object *util = json_object_new_object();
    json_object_object_add(util, "rho", parsed >= 0 ? jd(self.rho) : NULL);
    json_object *u;
    if (json_object_object_get_ex(rec, "utilization", &u) && json_object_is_type(u, json_type_object)) {
        json_object_object_add(util, "service_us", jd(jnum(u, "service_us")));
        const char *ms = jstr(u, "mu_source");
        json_object_object_add(util, "mu_source", json_object_new_string(ms ? ms : "none"));
        json_object *ports;
        if (json_object_object_get_ex(u, "ports", &ports) && json_object_is_type(ports, json_type_array))
            json_object_object_add(util, "ports", json_object_new_int64((int64_t)json_object_array_length(ports)));
    }
    json_object_object_add(out, "utilization", util);
    json_object *metrics;
    if (json_object_object_get_ex(rec, "metrics", &metrics))
        json_object_object_add(out, "metrics", json_object_get(metrics));
    else
        metrics = NULL;

    /* segment estimate */
    char prof[4700];
    find_profile(c->spool, jobid, prof, sizeof prof);
    nv_seg_profile sp;
    memset(&sp, 0, sizeof sp);
    int have_prof = 0;
    nv_seg_estimate est;
    if (prof[0]) {
        const char *paths[1] = {prof};
        char perr[512];
        nv_seg_estimate_opts so;
        nv_seg_estimate_opts_default(&so);
        if (nv_seg_profile_load(paths, 1, &sp, perr, sizeof perr) == 0 &&
            nv_seg_estimate_run(sp.work, sp.time_us, sp.signature, sp.n, sp.meta.runtime_us, &so,
                                &est) == 0)
            have_prof = 1;
        else
            fprintf(stderr, "netvar: report: %s: %s; no segment estimate\n", prof, perr);
    }
    json_object *seg = NULL;
    if (have_prof) {
        seg = json_object_new_object();
        json_object_object_add(seg, "profile", json_object_new_string(prof));
        json_object_object_add(seg, "segments", json_object_new_int64((int64_t)est.segments));
        json_object_object_add(seg, "interfered", json_object_new_int64((int64_t)est.interfered));
        json_object_object_add(seg, "interference_pct", jd(est.interference_pct));
        json_object_object_add(seg, "class", json_object_new_string(nv_seg_class_name(est.cls)));
        json_object_object_add(seg, "p_high", jd(est.p_high));
        json_object_object_add(seg, "continuous_pct", jd(est.continuous_pct));
        json_object_object_add(seg, "high_rate", json_object_new_boolean(est.high_rate));
    }
    json_object_object_add(out, "segment_estimate", seg);

    /* neighbours and observed slowdown, from the spool's history */
    nv_train_opts to;
    nv_train_opts_default(&to);
    nv_train_set s;
    nv_train_set_init(&s);
    json_object *nb = json_object_new_array();
    double observed = NAN, baseline = NAN, predicted = NAN;
    const char *pred_src = NULL;
    size_t n_nb = 0;
    if (parsed == 0 && nv_train_scan_spool(c->spool, service, &to, &s, log_quiet, NULL, err, sizeof err) == 0 &&
        nv_train_analyze(&s, &to) == 0) {
        long me = nv_train_find_job(&s, id);
        if (me >= 0) {
            size_t idx[MAX_NEIGHBOURS];
            n_nb = nv_train_neighbours(&s, (size_t)me, idx, MAX_NEIGHBOURS);
            const char *with[MAX_NEIGHBOURS];
            size_t nw = 0;
            for (size_t k = 0; k < n_nb && k < MAX_NEIGHBOURS; k++) {
                const nv_train_job *o = &s.jobs[idx[k]];
                json_object *e = json_object_new_object();
                json_object_object_add(e, "job_id", json_object_new_int64(o->job_id));
                json_object_object_add(e, "app", json_object_new_string(s.apps[o->app]));
                json_object_object_add(e, "overlap_s", jd(nv_train_overlap_s(&s.jobs[me], o)));
                json_object_object_add(e, "rho", jd(o->rho));
                json_object_array_add(nb, e);
                int dup = 0;
                for (size_t q = 0; q < nw; q++)
                    dup |= !strcmp(with[q], s.apps[o->app]);
                if (!dup)
                    with[nw++] = s.apps[o->app];
            }
            baseline = s.jobs[me].baseline_s;
            observed = s.jobs[me].slowdown_pct;
            /* a baseline from history at this size; else the model's scaling */
            if (!isfinite(baseline) && c->m && app) {
                int32_t ai = nv_model_app_index(c->m, app);
                nv_app_view av;
                double t;
                if (ai >= 0 && !nv_model_app(c->m, ai, &av) &&
                    !nv_scaling_time_s(av.scaling, av.n_scaling, (uint32_t)nodes, &t)) {
                    baseline = t;
                    observed = (runtime / t - 1) * 100;
                }
            }
            nv_prediction pr;
            if (nw && c->m && app &&
                nv_predict(c->m, app, with, nw, c->predictor, NV_DEFAULT_MIN_SAMPLES, &pr, NULL) == NV_PRED_OK) {
                predicted = pr.slowdown_pct;
                pred_src = pr.source_label;
            }
        }
    }
    json_object_object_add(out, "neighbours", nb);
    json_object *sl = json_object_new_object();
    json_object_object_add(sl, "baseline_s", jd(baseline));
    json_object_object_add(sl, "observed_pct", n_nb ? jd(observed) : NULL);
    json_object_object_add(sl, "predicted_pct", jd(predicted));
    json_object_object_add(sl, "predicted_source", pred_src ? json_object_new_string(pred_src) : NULL);
    json_object_object_add(out, "slowdown", sl);

    /* at submission, as recorded */
    nv_report_annotation an;
    if (nv_report_annotation_from_record(rec, &an, err, sizeof err))
        fprintf(stderr, "netvar: report: job %s: %s; treated as not recorded\n", jobid, err);
    json_object *sub = json_object_new_object();
    json_object_object_add(sub, "recorded", json_object_new_boolean(an.recorded));
    if (an.recorded) {
        json_object_object_add(sub, "predicted_own_pct", jd(an.own_pct));
        json_object_object_add(sub, "predicted_inflicted_pct", jd(an.inflicted_pct));
        json_object_object_add(sub, "advice_nodes", an.advice_nodes ? json_object_new_int64(an.advice_nodes) : NULL);
        json_object_object_add(sub, "source", an.source[0] ? json_object_new_string(an.source) : NULL);
        json_object_object_add(sub, "action", an.action[0] ? json_object_new_string(an.action) : NULL);
    }
    json_object_object_add(out, "at_submission", sub);

    /* Variability Estimate, when the model carries one */
    json_object *vej = NULL;
    const struct nv_ve *ve = c->m ? nv_model_variability(c->m) : NULL;
    nv_ve_result vr;
    memset(&vr, 0, sizeof vr);
    if (ve) {
        nv_ve_job vj;
        double feat[NV_VE_NFEAT];
        char verr[256];
        vej = json_object_new_object();
        if (!nv_ve_job_from_record(rec, &vj, verr, sizeof verr) &&
            !nv_ve_select_features(&vj, feat, verr, sizeof verr)) {
            nv_ve_estimate(ve, feat, &vr);
            json_object_object_add(vej, "answered", json_object_new_boolean(vr.answered));
            json_object_object_add(vej, "z", vr.answered ? jd(vr.z) : NULL);
            json_object_object_add(vej, "half_width", vr.answered ? jd(vr.half_width) : NULL);
            json_object_object_add(vej, "label", json_object_new_string(vr.label ? vr.label : ""));
        } else
            json_object_object_add(vej, "unavailable", json_object_new_string(verr));
    }
    json_object_object_add(out, "variability", vej);
    /* HOOK(diagnose): `netvar diagnose JOBID` (cli/verbs/verb_diagnose.c) owns the
     * congestion diagnosis; this report points to it rather than repeating it. */

    if (c->json)
        print_json(out);
    else {
        char b1[64];
        printf("job %s   app %s   %zu node%s\n", jobid, app ? app : "(none)", nodes, nodes == 1 ? "" : "s");
        printf("  %-34s %s\n", "runtime", isfinite(runtime) ? (snprintf(b1, sizeof b1, "%.2f s", runtime), b1) : "n/a");
        if (metrics) {
            printf("  counter metrics (over blades)      %14s %14s  %s\n", "mean", "p95", "source");
            json_object_object_foreach(metrics, mk, mv)
            {
                const char *unit = jstr(mv, "unit");
                char m1[48], m2[48];
                si(m1, sizeof m1, jnum(mv, "mean"), unit ? unit : "");
                si(m2, sizeof m2, jnum(mv, "p95"), unit ? unit : "");
                const char *src = jstr(mv, "source");
                printf("    %-32s %14s %14s  %s\n", mk, m1, m2, src ? src : "");
            }
        }
        if (parsed >= 0 && isfinite(self.rho))
            printf("  %-34s %.2f %%  (rho = lambda/mu, median over ports)\n", "utilization (own)", self.rho * 100);
        else
            printf("  %-34s n/a (no calibrated mu or no packet counters)\n", "utilization (own)");
        if (have_prof)
            printf("  %-34s %.2f %% of runtime, class %s, P(high) %.0f %%, %zu of %zu segments"
                   " interfered; continuous %.2f %%%s\n", "segment interference estimate",
                   est.interference_pct, nv_seg_class_name(est.cls), est.p_high * 100,
                   est.interfered, est.segments, est.continuous_pct,
                   est.high_rate ? " (high segment rate: less reliable)" : "");
        else
            printf("  %-34s not profiled\n", "segment interference estimate");
        printf("  %-34s %zu\n", "neighbours (shared switch/group)", n_nb);
        for (size_t k = 0; k < json_object_array_length(nb); k++) {
            json_object *e = json_object_array_get_idx(nb, k);
            printf("    job %-10lld %-20s overlap %8.1f s   rho %6.2f %%\n",
                   (long long)json_object_get_int64(json_object_object_get(e, "job_id")),
                   jstr(e, "app"), jnum(e, "overlap_s"), jnum(e, "rho") * 100);
        }
        if (n_nb) {
            printf("  %-34s %s\n", "slowdown observed",
                   isfinite(observed) ? (snprintf(b1, sizeof b1, "%+.1f %%  (baseline %.2f s)", observed, baseline), b1)
                                      : "n/a (no baseline run of this app at this size)");
            printf("  %-34s %s\n", "slowdown predicted beside them",
                   isfinite(predicted) ? (snprintf(b1, sizeof b1, "%+.1f %%  (%s)", predicted, pred_src), b1)
                                       : "n/a (app or neighbours unknown to the model)");
        }
        if (an.recorded) {
            printf("  %-34s own %s, inflicted %s, source %s, action %s\n", "at submission (recorded)",
                   isfinite(an.own_pct) ? (snprintf(b1, sizeof b1, "%+.1f %%", an.own_pct), b1) : "n/a",
                   isfinite(an.inflicted_pct) ? (snprintf(path, sizeof path, "%+.1f %%", an.inflicted_pct), path) : "n/a",
                   an.source[0] ? an.source : "-", an.action[0] ? an.action : "-");
            if (an.advice_nodes)
                printf("  %-34s advised %u node%s, ran on %zu%s\n", "advice vs what happened",
                       an.advice_nodes, an.advice_nodes == 1 ? "" : "s", nodes,
                       an.advice_nodes == nodes ? " (followed)" : " (not followed)");
            if (isfinite(an.own_pct) && isfinite(observed) && n_nb)
                printf("  %-34s predicted %+.1f %%, observed %+.1f %% (error %+.1f pp)\n",
                       "own slowdown vs observed", an.own_pct, observed, an.own_pct - observed);
        } else
            printf("  %-34s not recorded\n", "at submission");
        if (ve) {
            if (vr.answered)
                printf("  %-34s %+.2f (+/- %.2f) sigma: %s\n", "variability estimate", vr.z,
                       vr.half_width, vr.label);
            else
                printf("  %-34s %s\n", "variability estimate",
                       vr.label ? vr.label : "unavailable (record lacks counter statistics)");
        } else {
            printf("  %-34s %s\n", "variability estimate",
                   "no estimate: the model has no variability section (netvar variability train)");
        }
        printf("  %-34s netvar diagnose %s  (communication pattern, mapping or background)\n",
               "congestion diagnosis", jobid);
    }
    int rc = 0;
    if (c->plot) {
        if (!have_prof) {
            fprintf(stderr, "netvar: report: job %s has no segment profile; no plot written\n", jobid);
            rc = 1;
        } else if (plot_segments(&sp, c->plot, err, sizeof err)) {
            fprintf(stderr, "netvar: report: %s: %s\n", c->plot, err);
            rc = 1;
        }
    }
    nv_seg_profile_free(&sp);
    nv_train_set_free(&s);
    json_object_put(out);
    json_object_put(rec);
    return rc;
}

/* ------------------------------------------------------------ --app */

static int report_app(struct ctx *c, const char *name)
{
    int32_t ai = nv_model_app_index(c->m, name);
    nv_app_view a;
    if (ai < 0 || nv_model_app(c->m, ai, &a)) {
        fprintf(stderr, "netvar: report: app %.80s: not in the model %s\n", name, c->model_path);
        return 1;
    }
    json_object *o = json_object_new_object();
    json_object_object_add(o, "app", json_object_new_string(a.key));
    json_object_object_add(o, "utilization", jd(a.utilization));
    json_object_object_add(o, "utilization_source", json_object_new_string(nv_util_source_name(a.utilization_source)));
    json_object_object_add(o, "counter_rho", a.counter_runs ? jd(a.counter_rho) : NULL);
    json_object_object_add(o, "counter_runs", json_object_new_int64(a.counter_runs));
    json_object_object_add(o, "history_runs", json_object_new_int64(a.history_runs));
    json_object *lat = json_object_new_object();
    json_object_object_add(lat, "mean_us", jd(a.latency->mean_us));
    json_object_object_add(lat, "sd_us", jd(a.latency->sd_us));
    json_object_object_add(lat, "origin", json_object_new_string(nv_latency_origin_name(a.latency_origin)));
    json_object_object_add(o, "latency", lat);
    json_object *cur = json_object_new_object(), *pts = json_object_new_array(), *fit = json_object_new_array();
    json_object_object_add(cur, "origin", json_object_new_string(nv_curve_origin_name(a.curve_origin)));
    for (size_t i = 0; i < a.n_points; i++) {
        json_object *p = json_object_new_array();
        json_object_array_add(p, jd(a.points[i].utilization));
        json_object_array_add(p, jd(a.points[i].slowdown_pct));
        json_object_array_add(p, jd(a.points[i].weight));
        json_object_array_add(pts, p);
    }
    for (size_t i = 0; i < a.n_fit; i++) {
        json_object *p = json_object_new_array();
        json_object_array_add(p, jd(a.fit[i].utilization));
        json_object_array_add(p, jd(a.fit[i].slowdown_pct));
        json_object_array_add(fit, p);
    }
    json_object_object_add(cur, "points_u_pct_samples", pts);
    json_object_object_add(cur, "fit_u_pct", fit);
    json_object_object_add(cur, "residual_pct", jd(a.fit_residual_pct));
    json_object_object_add(o, "curve", cur);
    json_object *sc = json_object_new_array();
    for (size_t i = 0; i < a.n_scaling; i++) {
        json_object *p = json_object_new_object();
        json_object_object_add(p, "nodes", json_object_new_int64(a.scaling[i].nodes));
        json_object_object_add(p, "median_runtime_s", jd(a.scaling[i].median_runtime_s));
        json_object_object_add(p, "count", json_object_new_int64(a.scaling[i].count));
        json_object_array_add(sc, p);
    }
    json_object_object_add(o, "scaling", sc);
    json_object *nb = json_object_new_array();
    for (size_t k = 0; k < nv_model_pair_count(c->m); k++) {
        nv_pair_view p;
        nv_app_view x, y;
        nv_model_pair(c->m, k, &p);
        if (p.app != ai && p.with != ai)
            continue;
        nv_model_app(c->m, p.app, &x);
        nv_model_app(c->m, p.with, &y);
        json_object *e = json_object_new_object();
        json_object_object_add(e, "app", json_object_new_string(x.key));
        json_object_object_add(e, "with", json_object_new_string(y.key));
        json_object_object_add(e, "slowdown_pct", jd(p.slowdown_pct));
        json_object_object_add(e, "sd_pct", jd(p.sd_pct));
        json_object_object_add(e, "samples", json_object_new_int64(p.samples));
        json_object_array_add(nb, e);
    }
    json_object_object_add(o, "colocation", nb);
    if (c->json)
        print_json(o);
    else {
        printf("app %s\n", a.key);
        printf("  %-30s %.2f %%  (source: %s)\n", "utilization U_A", a.utilization * 100,
               nv_util_source_name(a.utilization_source));
        if (a.counter_runs)
            printf("  %-30s %.2f %%  (median over %u runs)\n", "  from counters", a.counter_rho * 100, a.counter_runs);
        printf("  %-30s %u\n", "job records trained on", a.history_runs);
        printf("  %-30s mean %.2f us, sd %.2f us  (%s)\n", "probe latency beside it",
               a.latency->mean_us, a.latency->sd_us, nv_latency_origin_name(a.latency_origin));
        printf("  %-30s %s, %zu points, fit residual %.2f pp\n", "compression curve p_A(U)",
               nv_curve_origin_name(a.curve_origin), a.n_points, a.fit_residual_pct);
        printf("    %10s %14s %10s\n", "U (%)", "slowdown (%)", "samples");
        for (size_t i = 0; i < a.n_fit; i++)
            printf("    %10.1f %14.2f %10.0f\n", a.fit[i].utilization * 100, a.fit[i].slowdown_pct, a.fit[i].weight);
        printf("  %-30s\n", "scaling (runtime alone)");
        printf("    %10s %14s %10s\n", "nodes", "median (s)", "runs");
        for (size_t i = 0; i < a.n_scaling; i++)
            printf("    %10u %14.2f %10u\n", a.scaling[i].nodes, a.scaling[i].median_runtime_s, a.scaling[i].count);
        printf("  %-30s %zu entr%s\n", "co-location table", json_object_array_length(nb),
               json_object_array_length(nb) == 1 ? "y" : "ies");
        printf("    %-20s %-20s %14s %10s %8s\n", "app", "beside", "slowdown (%)", "sd (pp)", "samples");
        for (size_t k = 0; k < json_object_array_length(nb); k++) {
            json_object *e = json_object_array_get_idx(nb, k);
            printf("    %-20s %-20s %14.2f %10.2f %8lld\n", jstr(e, "app"), jstr(e, "with"),
                   jnum(e, "slowdown_pct"), jnum(e, "sd_pct"),
                   (long long)json_object_get_int64(json_object_object_get(e, "samples")));
        }
    }
    json_object_put(o);
    int rc = 0;
    char err[256];
    if (c->plot) {
        size_t np = a.n_points, nf = a.n_fit;
        double *px = calloc(np + 1, sizeof *px), *py = calloc(np + 1, sizeof *py);
        double *fx = calloc(nf + 1, sizeof *fx), *fy = calloc(nf + 1, sizeof *fy);
        for (size_t i = 0; px && py && i < np; i++)
            px[i] = a.points[i].utilization * 100, py[i] = a.points[i].slowdown_pct;
        for (size_t i = 0; fx && fy && i < nf; i++)
            fx[i] = a.fit[i].utilization * 100, fy[i] = a.fit[i].slowdown_pct;
        nv_svg_series s[2] = {{"measured", px, py, np, NV_SVG_POINTS, NULL},
                              {"isotonic fit", fx, fy, nf, NV_SVG_LINE, NULL}};
        char title[400];
        snprintf(title, sizeof title, "p_A(U) of %s (%s)", a.key, nv_curve_origin_name(a.curve_origin));
        nv_svg_chart ch = {title, "switch utilization U (%)", "slowdown (%)", 0, s, 2};
        if (!px || !py || !fx || !fy || nv_svg_write(&ch, c->plot, err, sizeof err)) {
            fprintf(stderr, "netvar: report: %s: %s\n", c->plot,
                    !px || !py || !fx || !fy ? "out of memory" : err);
            rc = 1;
        }
        free(px), free(py), free(fx), free(fy);
    }
    if (c->plot_latency) {
        const nv_calibration *cal = nv_model_calibration(c->m);
        double x[NV_HIST_BINS], ya[NV_HIST_BINS], yi[NV_HIST_BINS];
        for (int k = 0; k < NV_HIST_BINS; k++) {
            x[k] = sqrt(nv_hist_edge_us(k) * nv_hist_edge_us(k + 1)); /* bin centre */
            ya[k] = nv_hist_density(&a.latency->hist, k) * 100;
            yi[k] = nv_hist_density(&cal->hist, k) * 100;
        }
        char sname[300];
        snprintf(sname, sizeof sname, "beside %s (%s)", a.key, nv_latency_origin_name(a.latency_origin));
        nv_svg_series s[2] = {{"idle switch", x, yi, NV_HIST_BINS, NV_SVG_LINE, "#7f7f7f"},
                              {sname, x, ya, NV_HIST_BINS, NV_SVG_LINE, "#d62728"}};
        nv_svg_chart ch = {"ImpactB latency histogram against the idle one", "latency (us, log)",
                           "samples (%)", 1, s, 2};
        if (nv_svg_write(&ch, c->plot_latency, err, sizeof err)) {
            fprintf(stderr, "netvar: report: %s: %s\n", c->plot_latency, err);
            rc = 1;
        }
    }
    return rc;
}

/* ------------------------------------------------------------ --cluster */

static void reg_log(void *ctx, const char *line)
{
    (void)ctx;
    fprintf(stderr, "%s\n", line);
}

static int report_cluster(struct ctx *c)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/running", c->spool);
    struct nv_registry r;
    nv_registry_init(&r, dir);
    if (nv_registry_refresh(&r, reg_log, NULL) < 0) {
        fprintf(stderr, "netvar: report: %s: cannot read the running-jobs registry\n", dir);
        nv_registry_free(&r);
        return 1;
    }
    size_t n = r.n;
    const char **apps = calloc(n ? n : 1, sizeof *apps), **sw = calloc(n ? n : 1, sizeof *sw);
    nv_report_pair worst[WORST_PAIRS];
    if (!apps || !sw) {
        free(apps), free(sw);
        nv_registry_free(&r);
        fprintf(stderr, "netvar: report: out of memory\n");
        return 1;
    }
    size_t known = 0;
    for (size_t i = 0; i < n; i++) {
        const char *a = r.jobs[i].app;
        apps[i] = a[0] && c->m && nv_model_app_index(c->m, a) >= 0 ? a : NULL;
        known += apps[i] != NULL;
        sw[i] = r.jobs[i].switches;
    }
    size_t total = c->m ? nv_report_cluster_pairs(c->m, apps, sw, n, c->predictor, worst, WORST_PAIRS) : 0;
    size_t shown = total < WORST_PAIRS ? total : WORST_PAIRS;
    time_t now = time(NULL);
    json_object *o = json_object_new_object(), *jobs = json_object_new_array(), *pairs = json_object_new_array();
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_new_object();
        json_object_object_add(e, "job_id", json_object_new_int64(r.jobs[i].jobid));
        json_object_object_add(e, "app", r.jobs[i].app[0] ? json_object_new_string(r.jobs[i].app) : NULL);
        json_object_object_add(e, "known_to_model", json_object_new_boolean(apps[i] != NULL));
        json_object_object_add(e, "nodes", json_object_new_string(r.jobs[i].nodes ? r.jobs[i].nodes : ""));
        json_object_object_add(e, "switches", json_object_new_string(r.jobs[i].switches ? r.jobs[i].switches : ""));
        json_object_object_add(e, "running_s", jd((double)now - r.jobs[i].start_unix_s));
        json_object_array_add(jobs, e);
    }
    for (size_t k = 0; k < shown; k++) {
        json_object *e = json_object_new_object();
        json_object_object_add(e, "job", json_object_new_int64(r.jobs[worst[k].a].jobid));
        json_object_object_add(e, "app", json_object_new_string(apps[worst[k].a]));
        json_object_object_add(e, "beside_job", json_object_new_int64(r.jobs[worst[k].b].jobid));
        json_object_object_add(e, "beside_app", json_object_new_string(apps[worst[k].b]));
        json_object_object_add(e, "slowdown_pct", jd(worst[k].slowdown_pct));
        json_object_object_add(e, "source", json_object_new_string(worst[k].source));
        json_object_array_add(pairs, e);
    }
    json_object_object_add(o, "running_jobs", jobs);
    json_object_object_add(o, "known_to_model", json_object_new_int64((int64_t)known));
    json_object_object_add(o, "pairs_predicted", json_object_new_int64((int64_t)total));
    json_object_object_add(o, "predictor", json_object_new_string(nv_predictor_name(c->predictor)));
    json_object_object_add(o, "worst_pairs", pairs);
    if (c->json)
        print_json(o);
    else {
        printf("cluster: %zu running job%s, %zu with an app the model knows%s\n", n, n == 1 ? "" : "s",
               known, c->m ? "" : " (no model loaded)");
        printf("  %-10s %-20s %-24s %-16s %10s\n", "job", "app", "nodes", "switches", "running");
        for (size_t i = 0; i < n; i++)
            printf("  %-10u %-20s %-24.24s %-16.16s %8.0f s\n", r.jobs[i].jobid,
                   r.jobs[i].app[0] ? r.jobs[i].app : "(none)", r.jobs[i].nodes ? r.jobs[i].nodes : "",
                   r.jobs[i].switches && r.jobs[i].switches[0] ? r.jobs[i].switches : "-",
                   (double)now - r.jobs[i].start_unix_s);
        printf("predicted slowdowns among jobs sharing a leaf switch (%s): %zu pair%s, worst first\n",
               nv_predictor_name(c->predictor), total, total == 1 ? "" : "s");
        if (shown)
            printf("  %-10s %-20s %-10s %-20s %14s  %s\n", "job", "app", "beside", "app", "slowdown (%)", "source");
        for (size_t k = 0; k < shown; k++)
            printf("  %-10u %-20s %-10u %-20s %14.2f  %s\n", r.jobs[worst[k].a].jobid, apps[worst[k].a],
                   r.jobs[worst[k].b].jobid, apps[worst[k].b], worst[k].slowdown_pct, worst[k].source);
    }
    json_object_put(o);
    free(apps), free(sw);
    nv_registry_free(&r);
    return 0;
}

int verb_report(int argc, char **argv)
{
    static const struct option opts[] = {
        {"spool", required_argument, 0, 's'},  {"model", required_argument, 0, 'm'},
        {"app", required_argument, 0, 'a'},    {"cluster", no_argument, 0, 'c'},
        {"json", no_argument, 0, 'j'},         {"plot", required_argument, 0, 'p'},
        {"plot-latency", required_argument, 0, 'l'}, {"predictor", required_argument, 0, 'P'},
        {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
    struct nv_config conf;
    nv_config_defaults(&conf);
    struct ctx c = {.spool = NULL, .model_path = NULL, .predictor = NV_PREDICT_QUEUE};
    const char *app = NULL;
    int cluster = 0;
    optind = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (ch) {
        case 's': c.spool = optarg; break;
        case 'm': c.model_path = optarg; break;
        case 'a': app = optarg; break;
        case 'c': cluster = 1; break;
        case 'j': c.json = 1; break;
        case 'p': c.plot = optarg; break;
        case 'l': c.plot_latency = optarg; break;
        case 'P':
            if (nv_predictor_from_name(optarg, &c.predictor)) {
                fprintf(stderr, "netvar: report: --predictor %.40s: not queue, averagelt, "
                                "averagestdevlt or pdflt\n", optarg);
                return 2;
            }
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    const char *jobid = optind < argc ? argv[optind] : NULL;
    if ((jobid != NULL) + (app != NULL) + cluster != 1 || argc - optind > 1) {
        fprintf(stderr, "netvar: report: give exactly one of JOBID, --app NAME, --cluster\n");
        usage(stderr);
        return 2;
    }
    if (c.plot_latency && !app) {
        fprintf(stderr, "netvar: report: --plot-latency goes with --app\n");
        return 2;
    }
    if (cluster && c.plot) {
        fprintf(stderr, "netvar: report: --cluster has no plot\n");
        return 2;
    }
    if (!c.spool)
        c.spool = conf.spool_dir;
    if (!c.model_path)
        c.model_path = conf.model_file;
    char err[512];
    c.m = nv_model_load(c.model_path, err, sizeof err);
    if (!c.m) {
        if (app) {
            fprintf(stderr, "netvar: report: --model %s: %s\n", c.model_path, err);
            return 1;
        }
        fprintf(stderr, "netvar: report: model %s: %s; reporting without predictions\n",
                c.model_path, err);
    }
    int rc = app ? report_app(&c, app) : cluster ? report_cluster(&c) : report_job(&c, jobid);
    nv_model_free(c.m);
    return rc;
}
