/* verb_report.c - `netvar report`: what netvar measured and concluded, for
 * one job (JOBID), one app (--app) or the running cluster (--cluster), as
 * an aligned table with units or JSON, and SVG plots (--plot).  The
 * figures come from lib/report (job_report.h, app_report.h,
 * cluster_report.h); this file parses the options and renders them. */
#define _GNU_SOURCE /* strptime, timegm */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "app_report.h"
#include "args.h"
#include "cluster_report.h"
#include "config.h"
#include "job_record.h"
#include "job_report.h"
#include "model.h"
#include "nv_err.h"
#include "nv_json.h"
#include "opts.h"
#include "predict.h"
#include "stream_accuracy.h"
#include "svg_plot.h"
#include "user_report.h"
#include "verbs.h"

static const char help_head[] =
    "Usage: netvar report JOBID [--from auto|spool|accounting] [--spool DIR] [--model FILE]\n"
    "                     [--config FILE] [--json] [--plot FILE.svg]\n"
    "       netvar report --app NAME [--model FILE] [--json] [--plot FILE.svg]\n"
    "                     [--plot-latency FILE.svg]\n"
    "       netvar report --cluster [--spool DIR] [--model FILE] [--json]\n"
    "                     [--since WHEN] [--until WHEN] [--last N]\n"
    "\n"
    "Show what netvar measured and concluded.\n"
    "\n"
    "JOBID      from the job record (DIR/jobs/JOBID/job.json, `netvar collect`):\n"
    "           runtime, counter metrics with units, utilization, the bottleneck\n"
    "           U (the job's own traffic through its leaf uplinks over their\n"
    "           capacity, up and down, in %, beside the uplink counters' U),\n"
    "           the segment interference estimate and class when the job was profiled\n"
    "           (DIR/jobs/JOBID/profiles/*.json), its neighbours (jobs overlapping\n"
    "           it whose path meets its own: both across several leaf switches\n"
    "           with one in common, or several groups with one in common; a job\n"
    "           under one leaf switch crosses no uplink), the\n"
    "           slowdown predicted beside them and the one observed (runtime\n"
    "           against the app's baseline), the advice and prediction made at\n"
    "           submission (the record's netvar annotation, taken from the job's\n"
    "           Comment, which its user can edit: shown as the Comment's claim, not\n"
    "           as job_submit's decision; \"not recorded\" when it holds none)\n"
    "           against what happened, and the Variability\n"
    "           Estimate when the model has one.\n"
    "           From accounting (--from accounting, or auto when the spool's record\n"
    "           is not readable, as for a user on a login node): the job's owner\n"
    "           (or root; another user's job is refused) gets a header (user,\n"
    "           account, state, elapsed, nodes), netvar-acct's summary in plain\n"
    "           words (run time, time alone, observed and predicted slowdown in %,\n"
    "           the neighbour the prediction was against) and a Notes section\n"
    "           with one thing to do and the figure that says why.\n"
    "           --plot: segment durations over time, interfered ones marked\n"
    "           (\"Single-run interference estimate\", Fig. 2).\n"
    "--app      the app's profile in the model: U_A and where it came from, the\n"
    "           latency summary, p_A(U) points and fit, scaling, its\n"
    "           neighbours in the co-location table, and what the queue route's\n"
    "           two mechanisms read of it: its utilization profile (as a\n"
    "           neighbour), its curve against the queue wait with its own wait\n"
    "           profile (in the gauge's unit: us for a queue), its bandwidth-share\n"
    "           weight (own U above idle) and its history corrections (and\n"
    "           whether the neighbours' pressures apply to it: not on the\n"
    "           counters route while it has no pair of its own), its joint\n"
    "           windows (U and wait over each half second of its runs, which\n"
    "           the nearest configurations read beside it) and whether the\n"
    "           nearest configurations answer for it as a victim (measured\n"
    "           under every configuration, each with its queue wait).\n"
    "           --plot: p_A(U), measured points and the fitted curve (\"Queue-\n"
    "           theory interference model\", Fig. 12); --plot-latency: its ImpactB latency histogram against\n"
    "           the idle one (Fig. 3).\n"
    "--cluster  running jobs (DIR/running), predicted slowdowns among those whose\n"
    "           paths meet at an uplink (both across several leaf switches with\n"
    "           one in common; a job under one leaf switch crosses none), worst\n"
    "           pairs first.  --json adds each job's own slowdown predicted\n"
    "           beside the apps the model knows among the jobs its path meets\n"
    "           (predicted_pct: 0 when no job's path meets its own; null when\n"
    "           the model knows neither its app nor any app beside it), and\n"
    "           each leaf switch's uplink with the sum of the model's U_A of\n"
    "           the jobs across it (uplinks[].utilization, a fraction).\n"
    "           Then the stream's accuracy over the finished jobs of the window\n"
    "           (--since, --until, --last; default: every finished job): for\n"
    "           each job whose record holds job_submit's own prediction (the\n"
    "           Comment's own_pct: user-editable) and whose slowdown can be\n"
    "           observed (runtime against the app's baseline at its node count,\n"
    "           as for JOBID), what job_submit said against what happened: the\n"
    "           count, the mean absolute error (pp) with its 95 % bootstrap\n"
    "           interval, the mean signed error (pp; above 0: it said more) and\n"
    "           the same error over the jobs slowed by at least 10 %\n"
    "           (--json: accuracy).\n"
    "\n";

static const char help_tail[] =
    "\n"
    "Exit status: 0 reported, 1 record, model, spool or accounting unreadable\n"
    "(or nothing to plot, or another user's job asked for by a user who is not\n"
    "root), 2 bad usage.\n"
    "\n"
    "Examples:\n"
    "  netvar report 4242 --spool /var/spool/netvar\n"
    "  netvar report 4242 --from accounting   # a user, on a login node\n"
    "  netvar report --app lulesh --plot lulesh-curve.svg\n"
    "  netvar report --cluster --json\n";

struct ctx {
    const char *spool, *model_path, *plot, *plot_latency;
    int json, from;
    int fell_back; /* auto found no readable spool record */
    nv_accuracy_window window;
    nv_predictor predictor;
    nv_model *m;
};

/* report numbers: six significant digits, non-finite as null */
#define DIGITS 6

static json_object *jstr_or_null(const char *s)
{
    return s ? json_object_new_string(s) : NULL;
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

/* ------------------------------------------------------------ JOBID */

static json_object *job_json(const nv_job_report *r)
{
    json_object *out = json_object_new_object();
    json_object_object_add(out, "job_id", json_object_new_int64(r->job_id));
    json_object_object_add(out, "app", r->has_app ? json_object_new_string(r->app) : NULL);
    json_object_object_add(out, "nodes", json_object_new_int64((int64_t)r->nodes));
    json_object_object_add(out, "runtime_s", nv_json_new_num_g(r->runtime_s, DIGITS));
    if (r->switches)
        json_object_object_add(out, "switches", json_object_get(r->switches));

    json_object *util = json_object_new_object();
    json_object_object_add(util, "rho", nv_json_new_num_g(r->rho, DIGITS));
    if (r->has_utilization) {
        json_object_object_add(util, "service_us", nv_json_new_num_g(r->service_us, DIGITS));
        json_object_object_add(util, "mu_source", json_object_new_string(r->mu_source));
        if (r->ports >= 0)
            json_object_object_add(util, "ports", json_object_new_int64(r->ports));
    }
    json_object_object_add(out, "utilization", util);
    if (r->bn_source[0]) {
        json_object *bn = json_object_new_object();
        json_object_object_add(bn, "u_up", nv_json_new_num_g(r->bn_u_up, DIGITS));
        json_object_object_add(bn, "u_down", nv_json_new_num_g(r->bn_u_down, DIGITS));
        json_object_object_add(bn, "uplink_u_up", nv_json_new_num_g(r->bn_uplink_u_up, DIGITS));
        json_object_object_add(bn, "uplink_u_down", nv_json_new_num_g(r->bn_uplink_u_down, DIGITS));
        json_object_object_add(bn, "unit", json_object_new_string("fraction of capacity"));
        json_object_object_add(bn, "capacity_Bps", nv_json_new_num_g(r->bn_capacity_Bps, DIGITS));
        json_object_object_add(bn, "source", json_object_new_string(r->bn_source));
        json_object_object_add(out, "bottleneck", bn);
    }
    if (r->metrics_json)
        json_object_object_add(out, "metrics", json_object_get(r->metrics_json));

    json_object *seg = NULL;
    if (r->has_segments) {
        seg = json_object_new_object();
        json_object_object_add(seg, "profile", json_object_new_string(r->profile));
        json_object_object_add(seg, "segments", json_object_new_int64((int64_t)r->seg.segments));
        json_object_object_add(seg, "interfered",
                               json_object_new_int64((int64_t)r->seg.interfered));
        json_object_object_add(seg, "interference_pct",
                               nv_json_new_num_g(r->seg.interference_pct, DIGITS));
        json_object_object_add(seg, "class", json_object_new_string(nv_seg_class_name(r->seg.cls)));
        json_object_object_add(seg, "p_high", nv_json_new_num_g(r->seg.p_high, DIGITS));
        json_object_object_add(seg, "continuous_pct",
                               nv_json_new_num_g(r->seg.continuous_pct, DIGITS));
        json_object_object_add(seg, "high_rate", json_object_new_boolean(r->seg.high_rate));
    }
    json_object_object_add(out, "segment_estimate", seg);

    json_object *nb = json_object_new_array();
    for (size_t k = 0; k < r->n_listed; k++) {
        const nv_job_report_neighbour *n = &r->neighbours[k];
        json_object *e = json_object_new_object();
        json_object_object_add(e, "job_id", json_object_new_int64(n->job_id));
        json_object_object_add(e, "app", json_object_new_string(n->app));
        json_object_object_add(e, "overlap_s", nv_json_new_num_g(n->overlap_s, DIGITS));
        json_object_object_add(e, "rho", nv_json_new_num_g(n->rho, DIGITS));
        json_object_array_add(nb, e);
    }
    json_object_object_add(out, "neighbours", nb);
    json_object *sl = json_object_new_object();
    json_object_object_add(sl, "baseline_s", nv_json_new_num_g(r->baseline_s, DIGITS));
    json_object_object_add(sl, "observed_pct",
                           r->n_neighbours ? nv_json_new_num_g(r->observed_pct, DIGITS) : NULL);
    json_object_object_add(sl, "predicted_pct", nv_json_new_num_g(r->predicted_pct, DIGITS));
    json_object_object_add(sl, "predicted_source",
                           r->predicted_source[0] ? json_object_new_string(r->predicted_source)
                                                  : NULL);
    json_object_object_add(out, "slowdown", sl);

    const nv_report_annotation *an = &r->at_submission;
    json_object *sub = json_object_new_object();
    json_object_object_add(sub, "recorded", json_object_new_boolean(an->recorded));
    if (an->recorded) {
        json_object_object_add(sub, "predicted_own_pct", nv_json_new_num_g(an->own_pct, DIGITS));
        json_object_object_add(sub, "predicted_inflicted_pct",
                               nv_json_new_num_g(an->inflicted_pct, DIGITS));
        json_object_object_add(sub, "advice_nodes",
                               an->advice_nodes ? json_object_new_int64(an->advice_nodes) : NULL);
        json_object_object_add(sub, "source",
                               an->source[0] ? json_object_new_string(an->source) : NULL);
        json_object_object_add(sub, "action",
                               an->action[0] ? json_object_new_string(an->action) : NULL);
        /* the action changed where the job ran: the prediction is for the
         * placement it prevented, not one to score against observed_pct */
        json_object_object_add(sub, "action_moved_job",
                               json_object_new_boolean(nv_report_action_moved(an)));
        json_object_object_add(sub, "predicted_against",
                               an->against_app[0] ? json_object_new_string(an->against_app) : NULL);
        /* beside how many running jobs, on how many shared uplinks, and the
         * worst single neighbour's answer */
        json_object_object_add(sub, "vs_n", an->vs_n ? json_object_new_int64(an->vs_n) : NULL);
        json_object_object_add(sub, "vs_uplinks", json_object_new_int64(an->vs_uplinks));
        json_object_object_add(sub, "single_pct", nv_json_new_num_g(an->single_pct, DIGITS));
        /* kept apart: the job ran beside none of the app it was predicted
         * against, so observed_pct does not score the prediction */
        json_object_object_add(sub, "kept_apart",
                               json_object_new_boolean(nv_job_report_kept_apart(r)));
        /* the prolog reads it from SLURM_JOB_COMMENT: the user may have edited it */
        json_object_object_add(sub, "from",
                               json_object_new_string("Comment (user-editable, unverified)"));
    }
    json_object_object_add(out, "at_submission", sub);

    json_object *vej = NULL;
    if (r->ve_in_model) {
        vej = json_object_new_object();
        if (r->ve_ok) {
            json_object_object_add(vej, "answered", json_object_new_boolean(r->ve.answered));
            json_object_object_add(vej, "z",
                                   r->ve.answered ? nv_json_new_num_g(r->ve.z, DIGITS) : NULL);
            json_object_object_add(vej, "half_width",
                                   r->ve.answered ? nv_json_new_num_g(r->ve.half_width, DIGITS)
                                                  : NULL);
            json_object_object_add(vej, "label",
                                   json_object_new_string(r->ve.label ? r->ve.label : ""));
        } else
            json_object_object_add(vej, "unavailable", json_object_new_string(r->ve_unavailable));
    }
    json_object_object_add(out, "variability", vej);
    /* `netvar diagnose JOBID` owns the congestion diagnosis; the report
     * points to it rather than repeating it. */
    return out;
}

static void job_text(const nv_job_report *r)
{
    char b1[160], b2[64];
    const char *app = r->has_app ? nv_cli_shown(r->app) : "(none)";
    printf("job %lld   app %s   %zu node%s\n", (long long)r->job_id, app, r->nodes,
           r->nodes == 1 ? "" : "s");
    printf("  %-34s %s\n", "runtime",
           isfinite(r->runtime_s) ? (snprintf(b1, sizeof b1, "%.2f s", r->runtime_s), b1) : "n/a");
    if (r->metrics_json) {
        printf("  counter metrics (over blades)      %14s %14s  %s\n", "mean", "p95", "source");
        for (size_t k = 0; k < r->n_metrics; k++) {
            const nv_job_report_metric *x = &r->metrics[k];
            char m1[48], m2[48];
            si(m1, sizeof m1, x->mean, x->unit);
            si(m2, sizeof m2, x->p95, x->unit);
            printf("    %-32s %14s %14s  %s\n", nv_cli_shown(x->name), m1, m2,
                   nv_cli_shown(x->source));
        }
    }
    if (isfinite(r->bn_u_up) && isfinite(r->bn_u_down)) {
        char cap[48];
        si(cap, sizeof cap, r->bn_capacity_Bps, "B/s");
        printf("  %-34s up %.2f %%%s%s, down %.2f %%%s%s of %s  (own traffic)\n",
               "bottleneck U (leaf uplink)", r->bn_u_up * 100, r->bn_leaf_up[0] ? " at " : "",
               nv_cli_shown(r->bn_leaf_up), r->bn_u_down * 100, r->bn_leaf_down[0] ? " at " : "",
               nv_cli_shown(r->bn_leaf_down), cap);
        if (isfinite(r->bn_uplink_u_up) || isfinite(r->bn_uplink_u_down))
            printf("  %-34s up %.2f %%, down %.2f %%  (every job's traffic)\n", "uplink counters U",
                   r->bn_uplink_u_up * 100, r->bn_uplink_u_down * 100);
        printf("  %-34s %s\n", "  source", nv_cli_shown(r->bn_source));
    } else if (r->bn_source[0]) {
        printf("  %-34s %s\n", "bottleneck U (leaf uplink)", nv_cli_shown(r->bn_source));
    }
    if (isfinite(r->rho))
        printf("  %-34s %.2f %%  (%s)\n", "utilization (own)", r->rho * 100,
               isfinite(r->bn_u_up) ? "the bottleneck U's busier direction, as train reads it"
                                    : "rho = lambda/mu, median over ports");
    else
        printf("  %-34s n/a (no calibrated mu or no packet counters)\n", "utilization (own)");
    if (r->has_segments)
        printf("  %-34s %.2f %% of runtime, class %s, P(high) %.0f %%, %zu of %zu segments"
               " interfered; continuous %.2f %%%s\n",
               "segment interference estimate", r->seg.interference_pct,
               nv_seg_class_name(r->seg.cls), r->seg.p_high * 100, r->seg.interfered,
               r->seg.segments, r->seg.continuous_pct,
               r->seg.high_rate ? " (high segment rate: less reliable)" : "");
    else
        printf("  %-34s not profiled\n", "segment interference estimate");
    printf("  %-34s %zu\n", "neighbours (sharing an uplink)", r->n_neighbours);
    for (size_t k = 0; k < r->n_listed; k++)
        printf("    job %-10lld %-20s overlap %8.1f s   rho %6.2f %%\n",
               (long long)r->neighbours[k].job_id, nv_cli_shown(r->neighbours[k].app),
               r->neighbours[k].overlap_s, r->neighbours[k].rho * 100);
    if (r->n_neighbours) {
        printf("  %-34s %s\n", "slowdown observed",
               isfinite(r->observed_pct) ? (snprintf(b1, sizeof b1, "%+.1f %%  (baseline %.2f s)",
                                                     r->observed_pct, r->baseline_s),
                                            b1)
                                         : "n/a (no baseline run of this app at this size)");
        printf("  %-34s %s\n", "slowdown predicted beside them",
               isfinite(r->predicted_pct)
                   ? (snprintf(b1, sizeof b1, "%+.1f %%  (%s)", r->predicted_pct,
                               nv_cli_shown(r->predicted_source)),
                      b1)
                   : "n/a (app or neighbours unknown to the model)");
    }
    const nv_report_annotation *an = &r->at_submission;
    if (an->recorded) {
        printf("  %-34s own %s, inflicted %s, source %s, action %s\n",
               "at submission (Comment, user-editable)",
               isfinite(an->own_pct) ? (snprintf(b1, sizeof b1, "%+.1f %%", an->own_pct), b1)
                                     : "n/a",
               isfinite(an->inflicted_pct)
                   ? (snprintf(b2, sizeof b2, "%+.1f %%", an->inflicted_pct), b2)
                   : "n/a",
               an->source[0] ? nv_cli_shown(an->source) : "-",
               an->action[0] ? nv_cli_shown(an->action) : "-");
        if (an->advice_nodes)
            printf("  %-34s advised %u node%s, ran on %zu%s\n", "advice vs what happened",
                   an->advice_nodes, an->advice_nodes == 1 ? "" : "s", r->nodes,
                   an->advice_nodes == r->nodes ? " (followed)" : " (not followed)");
        if (isfinite(an->own_pct) && isfinite(r->observed_pct) && r->n_neighbours) {
            if (nv_job_report_kept_apart(r))
                printf("  %-34s predicted %+.1f %% beside %s, which the action (%s) kept it "
                       "from; observed %+.1f %% where it ran: no prediction error\n",
                       "own slowdown vs observed", an->own_pct, nv_cli_shown(an->against_app),
                       nv_cli_shown(an->action), r->observed_pct);
            else {
                printf("  %-34s predicted %+.1f %%, observed %+.1f %% (error %+.1f pp)\n",
                       "own slowdown vs observed", an->own_pct, r->observed_pct,
                       an->own_pct - r->observed_pct);
                if (nv_report_action_moved(an))
                    printf("  %-34s the action (%s) did not keep it apart: %s\n", "",
                           nv_cli_shown(an->action),
                           !an->against_app[0]
                               ? "the annotation does not name the app predicted against"
                           : r->n_listed < r->n_neighbours
                               ? "not every neighbour is listed"
                               : "it ran beside the app predicted against");
            }
        }
    } else
        printf("  %-34s not recorded\n", "at submission");
    if (!r->ve_in_model)
        printf("  %-34s %s\n", "variability estimate",
               "no estimate: the model has no variability section (netvar variability train)");
    else if (r->ve_ok && r->ve.answered)
        printf("  %-34s %+.2f (+/- %.2f) sigma: %s\n", "variability estimate", r->ve.z,
               r->ve.half_width, r->ve.label);
    else
        printf("  %-34s %s\n", "variability estimate",
               r->ve_ok && r->ve.label ? r->ve.label
                                       : "unavailable (record lacks counter statistics)");
    printf("  %-34s netvar diagnose %lld  (communication pattern, mapping or background)\n",
           "congestion diagnosis", (long long)r->job_id);
}

/* segment durations over time, interfered ones marked ("Single-run
 * interference estimate", Fig. 2) */
static int plot_segments(const nv_job_report *r, const char *path, char *err, size_t errlen)
{
    nv_seg_timeline t;
    if (nv_job_report_timeline(r, &t, err, errlen))
        return -1;
    size_t cap = t.n_interfered ? t.n_interfered : 1, k = 0;
    double *xi = malloc(cap * sizeof *xi), *yi = malloc(cap * sizeof *yi);
    int rc = -1;
    if (!xi || !yi) {
        nv_err(err, errlen, "plot: out of memory");
        goto out;
    }
    for (size_t i = 0; i < t.n; i++)
        if (t.interfered[i])
            xi[k] = t.start_s[i], yi[k++] = t.duration_ms[i];
    nv_svg_series s[2] = {
        {"segment duration", t.start_s, t.duration_ms, t.n, NV_SVG_LINE, "#1f77b4"},
        {"interfered (> median + 4 MAD)", xi, yi, k, NV_SVG_POINTS, "#d62728"}};
    nv_svg_chart c = {"Segment durations over the run (interfered marked)",
                      "time since MPI_Init (s)",
                      "segment duration (ms)",
                      0,
                      s,
                      2};
    rc = nv_svg_write(&c, path, err, errlen);
out:
    free(xi), free(yi);
    nv_seg_timeline_free(&t);
    return rc;
}

enum { FROM_AUTO, FROM_SPOOL, FROM_ACCT };

static json_object *num_or_null(double v)
{
    return isfinite(v) ? json_object_new_double(v) : NULL;
}

static json_object *ureport_json(const nv_ureport *r, const char *text)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "job_id", json_object_new_int64(r->job_id));
    json_object_object_add(o, "source", json_object_new_string("accounting"));
    json_object_object_add(o, "user", json_object_new_string(r->user));
    json_object_object_add(o, "uid", r->uid >= 0 ? json_object_new_int64(r->uid) : NULL);
    json_object_object_add(o, "account", json_object_new_string(r->account));
    json_object_object_add(o, "state", json_object_new_string(r->state));
    json_object_object_add(o, "elapsed_s", num_or_null(r->elapsed_s));
    json_object_object_add(o, "nodes", json_object_new_int64(r->nnodes));
    json_object_object_add(o, "nodelist", json_object_new_string(r->nodelist));
    json_object_object_add(o, "has_summary", json_object_new_boolean(r->has_summary));
    json_object_object_add(o, "app", json_object_new_string(r->app));
    json_object_object_add(o, "runtime_s", num_or_null(r->runtime_s));
    json_object_object_add(o, "baseline_s", num_or_null(r->baseline_s));
    json_object_object_add(o, "observed_pct", num_or_null(r->slowdown_pct));
    json_object_object_add(o, "predicted_pct", num_or_null(r->predicted_pct));
    json_object_object_add(o, "claimed_pct", num_or_null(r->claimed_pct));
    json_object_object_add(o, "neighbour_job", r->vs_job ? json_object_new_int64(r->vs_job) : NULL);
    json_object_object_add(o, "neighbour_app",
                           r->vs_app[0] ? json_object_new_string(r->vs_app) : NULL);
    json_object_object_add(o, "advice_nodes", json_object_new_int64(r->advice_nodes));
    json_object_object_add(o, "text", json_object_new_string(text));
    return o;
}

/* the job's summary from accounting, for its owner or root */
static int report_job_acct(struct ctx *c, int64_t job)
{
    nv_ureport r;
    char err[512];
    if (nv_ureport_sacct(job, &r, err, sizeof err)) {
        if (c->fell_back)
            fprintf(stderr,
                    "netvar: report: job %lld: no readable record in the spool %s (root: run "
                    "`netvar collect` for it), and from accounting: %s\n",
                    (long long)job, nv_cli_shown(c->spool), err);
        else
            fprintf(stderr, "netvar: report: job %lld: %s\n", (long long)job, err);
        return 1;
    }
    uid_t me = getuid();
    if (me != 0 && (r.uid < 0 || (uid_t)r.uid != me)) {
        fprintf(stderr,
                "netvar: report: job %lld belongs to user %s (uid %ld), not to you (uid %ld); "
                "only its owner and root read its report\n",
                (long long)job, r.user[0] ? r.user : "unknown", r.uid, (long)me);
        return 1;
    }
    char text[NV_UREPORT_MAX];
    nv_ureport_format(&r, text, sizeof text);
    if (c->json) {
        json_object *o = ureport_json(&r, text);
        nv_cli_print_json(o);
        json_object_put(o);
    } else
        fputs(text, stdout);
    return 0;
}

static int report_job(struct ctx *c, const char *jobid)
{
    for (const char *p = jobid; *p; p++)
        if (*p < '0' || *p > '9' || p - jobid > 15) {
            fprintf(stderr, "netvar: report: JOBID %.40s: not a job number\n", jobid);
            return 2;
        }
    if (!*jobid) {
        fprintf(stderr, "netvar: report: JOBID is empty\n");
        return 2;
    }
    if (c->from == FROM_ACCT)
        return report_job_acct(c, strtoll(jobid, NULL, 10));
    char err[512];
    nv_job_report *r = malloc(sizeof *r);
    if (!r) {
        fprintf(stderr, "netvar: report: out of memory\n");
        return 1;
    }
    if (nv_job_report_build(c->spool, strtoll(jobid, NULL, 10), c->m, c->predictor, r, err,
                            sizeof err)) {
        nv_job_report_free(r);
        free(r);
        fprintf(stderr, "netvar: report: job %s: %s (run `netvar collect` for it first)\n", jobid,
                err);
        return 1;
    }
    if (r->segment_note[0])
        fprintf(stderr, "netvar: report: %s: %s; no segment estimate\n", nv_cli_shown(r->profile),
                nv_cli_shown(r->segment_note));
    if (r->annotation_note[0])
        fprintf(stderr, "netvar: report: job %s: %s; treated as not recorded\n", jobid,
                nv_cli_shown(r->annotation_note));
    if (c->json) {
        json_object *o = job_json(r);
        nv_cli_print_json(o);
        json_object_put(o);
    } else
        job_text(r);
    int rc = 0;
    if (c->plot) {
        if (!r->has_segments) {
            fprintf(stderr, "netvar: report: job %s has no segment profile; no plot written\n",
                    jobid);
            rc = 1;
        } else if (plot_segments(r, c->plot, err, sizeof err)) {
            fprintf(stderr, "netvar: report: %s: %s\n", c->plot, err);
            rc = 1;
        }
    }
    nv_job_report_free(r);
    free(r);
    return rc;
}

/* ------------------------------------------------------------ --app */

static json_object *num_array(const double *v, size_t n)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; i < n; i++)
        json_object_array_add(a, nv_json_new_num_g(v[i], DIGITS));
    return a;
}

/* a curve as [x, slowdown %] pairs, or [x, slowdown %, samples] */
static json_object *curve_json(const nv_curve_point *c, size_t n, int with_samples)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; i < n; i++) {
        json_object *p = json_object_new_array();
        json_object_array_add(p, nv_json_new_num_g(c[i].utilization, DIGITS));
        json_object_array_add(p, nv_json_new_num_g(c[i].slowdown_pct, DIGITS));
        if (with_samples)
            json_object_array_add(p, nv_json_new_num_g(c[i].weight, DIGITS));
        json_object_array_add(a, p);
    }
    return a;
}

/* the unit of the queueing mechanism's axis */
static const char *gauge_unit(nv_wait_gauge g)
{
    return g == NV_WAIT_STALL_PER_WORD     ? "stall ticks/word"
           : g == NV_WAIT_PAUSE_PER_PACKET ? "paused cycles/packet"
           : g == NV_WAIT_STALL_PER_FLIT   ? "stall flit-times/flit"
                                           : "us";
}

/* what the queue route's two mechanisms read of this app (model_bottleneck.c):
 * its utilization profile (as a neighbour), its curve against the queue wait
 * and its own wait profile, its bandwidth-share weight, and the history
 * corrections */
static void mechanisms_json(json_object *o, const nv_app_report *r)
{
    const nv_app_view *a = &r->app;
    json_object *bn = json_object_new_object();
    json_object_object_add(bn, "idle_utilization",
                           nv_json_new_num_g(r->bottleneck.idle_utilization, DIGITS));
    json_object_object_add(bn, "wait_gauge",
                           json_object_new_string(nv_wait_gauge_name(r->bottleneck.wait_gauge)));
    json_object_object_add(o, "bottleneck", bn);
    json_object_object_add(o, "utilization_profile", num_array(a->profile, a->n_profile));
    json_object *qw = NULL;
    if (a->n_wait_points || a->n_wait_profile) {
        qw = json_object_new_object();
        json_object_object_add(qw, "points_wait_pct_samples",
                               curve_json(a->wait_points, a->n_wait_points, 1));
        json_object_object_add(qw, "fit_wait_pct", curve_json(a->wait_fit, a->n_wait_fit, 0));
        json_object_object_add(qw, "residual_pct",
                               a->n_wait_points && isfinite(a->wait_fit_residual_pct)
                                   ? nv_json_new_num_g(a->wait_fit_residual_pct, DIGITS)
                                   : NULL);
        json_object_object_add(qw, "own_profile", num_array(a->wait_profile_us, a->n_wait_profile));
        json_object_object_add(qw, "fits_at_least_as_well_as_u",
                               json_object_new_boolean(a->prefers_wait));
    }
    json_object_object_add(o, "queue_wait", qw);
    /* the nearest configurations: its joint windows as a neighbour, and
     * whether it is answered so as a victim */
    json_object *jw = NULL;
    if (a->n_joint) {
        double su = 0, sw = 0;
        for (size_t k = 0; k < a->n_joint; k++)
            su += a->joint[k].u, sw += a->joint[k].w_us;
        jw = json_object_new_object();
        json_object_object_add(jw, "count", json_object_new_int64((int64_t)a->n_joint));
        json_object_object_add(jw, "window_s", nv_json_new_num_g(a->joint_window_s, DIGITS));
        json_object_object_add(jw, "mean_utilization",
                               nv_json_new_num_g(su / (double)a->n_joint, DIGITS));
        json_object_object_add(jw, "mean_wait", nv_json_new_num_g(sw / (double)a->n_joint, DIGITS));
    }
    json_object_object_add(o, "joint_windows", jw);
    json_object_object_add(o, "nearest_victim", json_object_new_boolean(a->nearest_victim));
    json_object_object_add(o, "share_weight", nv_json_new_num_g(a->share_weight, DIGITS));
    json_object *h = json_object_new_object();
    json_object_object_add(h, "sensitivity", nv_json_new_num_g(a->sensitivity, DIGITS));
    json_object_object_add(h, "sensitivity_samples", json_object_new_int64(a->sensitivity_samples));
    json_object_object_add(h, "pressure", nv_json_new_num_g(a->pressure, DIGITS));
    json_object_object_add(h, "pressure_samples", json_object_new_int64(a->pressure_samples));
    json_object_object_add(h, "neighbour_pressures_apply",
                           json_object_new_boolean(a->neighbour_pressures_apply));
    /* the pooled spread of the table's repetitions, which floors the ridge
     * (infinite for a broken table: every factor is then 1) */
    json_object_object_add(h, "table_noise_sd_pct",
                           isfinite(r->bottleneck.table_noise_sd_pct) &&
                                   r->bottleneck.table_noise_sd_pct > 0
                               ? nv_json_new_num_g(r->bottleneck.table_noise_sd_pct, DIGITS)
                               : NULL);
    json_object_object_add(h, "prior_sd", nv_json_new_num_g(NV_CORRECTION_PRIOR_SD, DIGITS));
    json_object_object_add(o, "history_corrections", h);
}

static void mechanisms_text(const nv_app_report *r)
{
    const nv_app_view *a = &r->app;
    const char *unit = gauge_unit(r->bottleneck.wait_gauge);
    printf("  %-30s", "utilization profile (U, %)");
    if (!a->n_profile)
        printf(" none (its mean U is read)");
    for (size_t i = 0; i < a->n_profile; i++)
        printf(" %.1f", a->profile[i] * 100);
    printf("\n");
    if (a->n_wait_fit) {
        printf("  %-30s %zu points, fit residual %.2f pp (%s the U curve's)\n",
               "queue-wait curve p_A(W)", a->n_wait_points, a->wait_fit_residual_pct,
               a->prefers_wait ? "within 1 pp of" : "worse than");
        printf("    %10s %14s %10s\n", unit, "slowdown (%)", "samples");
        for (size_t i = 0; i < a->n_wait_fit; i++)
            printf("    %10.4g %14.2f %10.0f\n", a->wait_fit[i].utilization,
                   a->wait_fit[i].slowdown_pct, a->wait_fit[i].weight);
    } else
        printf("  %-30s none (only the U curve answers for it)\n", "queue-wait curve p_A(W)");
    printf("  %-30s", "own queue wait profile");
    if (!a->n_wait_profile)
        printf(" none");
    for (size_t i = 0; i < a->n_wait_profile; i++)
        printf(" %.4g", a->wait_profile_us[i]);
    printf("%s%s\n", a->n_wait_profile ? " " : "", a->n_wait_profile ? unit : "");
    if (a->n_joint) {
        double su = 0, sw = 0;
        for (size_t k = 0; k < a->n_joint; k++)
            su += a->joint[k].u, sw += a->joint[k].w_us;
        printf("  %-30s %zu of %g s, mean U %.1f %%, mean wait %.4g %s\n", "joint windows (U, W)",
               a->n_joint, a->joint_window_s, su / (double)a->n_joint * 100,
               sw / (double)a->n_joint, unit);
    } else
        printf("  %-30s none (beside it the two mechanisms answer)\n", "joint windows (U, W)");
    printf("  %-30s %s\n", "nearest configurations",
           a->nearest_victim ? "answer for it beside a neighbour with joint windows"
                             : "do not answer for it (not measured under every configuration, or "
                               "a configuration without its queue wait)");
    printf("  %-30s %.3f  (own U above idle %.1f %%)\n", "bandwidth-share weight", a->share_weight,
           r->bottleneck.idle_utilization * 100);
    printf("  %-30s sensitivity %.3f (%u samples), pressure %.3f (%u samples)\n",
           "history corrections", a->sensitivity, a->sensitivity_samples, a->pressure,
           a->pressure_samples);
    if (r->bottleneck.table_noise_sd_pct > 0)
        printf("  %-30s the table's repetitions spread %.1f pp (pooled sd): a factor moves\n"
               "  %-30s from 1 only as far as pairs well above that spread carry it\n",
               "", r->bottleneck.table_noise_sd_pct, "");
    if (!a->neighbour_pressures_apply)
        printf("  %-30s no pair of its own: as a victim it is answered from its physics,\n"
               "  %-30s without the neighbours' pressures\n",
               "", "");
}

static json_object *app_json(const nv_app_report *r)
{
    const nv_app_view *a = &r->app;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "app", json_object_new_string(a->key));
    json_object_object_add(o, "utilization", nv_json_new_num_g(a->utilization, DIGITS));
    json_object_object_add(o, "utilization_source",
                           json_object_new_string(nv_util_source_name(a->utilization_source)));
    json_object_object_add(o, "counter_rho",
                           a->counter_runs ? nv_json_new_num_g(a->counter_rho, DIGITS) : NULL);
    json_object_object_add(o, "counter_runs", json_object_new_int64(a->counter_runs));
    json_object_object_add(o, "history_runs", json_object_new_int64(a->history_runs));
    json_object *lat = json_object_new_object();
    json_object_object_add(lat, "mean_us", nv_json_new_num_g(a->latency->mean_us, DIGITS));
    json_object_object_add(lat, "sd_us", nv_json_new_num_g(a->latency->sd_us, DIGITS));
    json_object_object_add(lat, "origin",
                           json_object_new_string(nv_latency_origin_name(a->latency_origin)));
    json_object_object_add(o, "latency", lat);
    json_object *cur = json_object_new_object();
    json_object_object_add(cur, "origin",
                           json_object_new_string(nv_curve_origin_name(a->curve_origin)));
    json_object_object_add(cur, "runs", json_object_new_int64(a->curve_runs));
    json_object_object_add(cur, "points_u_pct_samples", curve_json(a->points, a->n_points, 1));
    json_object_object_add(cur, "fit_u_pct", curve_json(a->fit, a->n_fit, 0));
    json_object_object_add(cur, "residual_pct", nv_json_new_num_g(a->fit_residual_pct, DIGITS));
    json_object_object_add(o, "curve", cur);
    json_object *sc = json_object_new_array();
    for (size_t i = 0; i < a->n_scaling; i++) {
        json_object *p = json_object_new_object();
        json_object_object_add(p, "nodes", json_object_new_int64(a->scaling[i].nodes));
        json_object_object_add(p, "median_runtime_s",
                               nv_json_new_num_g(a->scaling[i].median_runtime_s, DIGITS));
        json_object_object_add(p, "count", json_object_new_int64(a->scaling[i].count));
        json_object_array_add(sc, p);
    }
    json_object_object_add(o, "scaling", sc);
    json_object *nb = json_object_new_array();
    for (size_t k = 0; k < r->n_colocation; k++) {
        const nv_app_report_pair *p = &r->colocation[k];
        json_object *e = json_object_new_object();
        json_object_object_add(e, "app", json_object_new_string(p->app));
        json_object_object_add(e, "with", json_object_new_string(p->with));
        json_object_object_add(e, "slowdown_pct", nv_json_new_num_g(p->slowdown_pct, DIGITS));
        json_object_object_add(e, "sd_pct", nv_json_new_num_g(p->sd_pct, DIGITS));
        json_object_object_add(e, "samples", json_object_new_int64(p->samples));
        json_object_array_add(nb, e);
    }
    json_object_object_add(o, "colocation", nb);
    mechanisms_json(o, r);
    return o;
}

static void app_text(const nv_app_report *r)
{
    const nv_app_view *a = &r->app;
    printf("app %s\n", nv_cli_shown(a->key));
    printf("  %-30s %.2f %%  (source: %s)\n", "utilization U_A", a->utilization * 100,
           nv_util_source_name(a->utilization_source));
    if (a->counter_runs)
        printf("  %-30s %.2f %%  (median over %u runs)\n", "  from counters", a->counter_rho * 100,
               a->counter_runs);
    printf("  %-30s %u\n", "job records trained on", a->history_runs);
    printf("  %-30s mean %.2f us, sd %.2f us  (%s)\n", "probe latency beside it",
           a->latency->mean_us, a->latency->sd_us, nv_latency_origin_name(a->latency_origin));
    printf("  %-30s %s, %zu points from %u runs, fit residual %.2f pp\n",
           "compression curve p_A(U)", nv_curve_origin_name(a->curve_origin), a->n_points,
           a->curve_runs, a->fit_residual_pct);
    printf("    %10s %14s %10s\n", "U (%)", "slowdown (%)", "samples");
    for (size_t i = 0; i < a->n_fit; i++)
        printf("    %10.1f %14.2f %10.0f\n", a->fit[i].utilization * 100, a->fit[i].slowdown_pct,
               a->fit[i].weight);
    printf("  %-30s\n", "scaling (runtime alone)");
    printf("    %10s %14s %10s\n", "nodes", "median (s)", "runs");
    for (size_t i = 0; i < a->n_scaling; i++)
        printf("    %10u %14.2f %10u\n", a->scaling[i].nodes, a->scaling[i].median_runtime_s,
               a->scaling[i].count);
    printf("  %-30s %zu entr%s\n", "co-location table", r->n_colocation,
           r->n_colocation == 1 ? "y" : "ies");
    printf("    %-20s %-20s %14s %10s %8s\n", "app", "beside", "slowdown (%)", "sd (pp)",
           "samples");
    for (size_t k = 0; k < r->n_colocation; k++) {
        const nv_app_report_pair *p = &r->colocation[k];
        printf("    %-20s %-20s %14.2f %10.2f %8lld\n", nv_cli_shown(p->app), nv_cli_shown(p->with),
               p->slowdown_pct, p->sd_pct, (long long)p->samples);
    }
    mechanisms_text(r);
}

/* p_A(U): measured points and the fitted curve ("Queue-theory interference
 * model", Fig. 12) */
static int plot_curve(const nv_app_report *r, const char *path, char *err, size_t errlen)
{
    const nv_app_view *a = &r->app;
    size_t np = a->n_points, nf = a->n_fit;
    double *px = calloc(np + 1, sizeof *px), *py = calloc(np + 1, sizeof *py);
    double *fx = calloc(nf + 1, sizeof *fx), *fy = calloc(nf + 1, sizeof *fy);
    int rc = -1;
    if (!px || !py || !fx || !fy) {
        nv_err(err, errlen, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < np; i++)
        px[i] = a->points[i].utilization * 100, py[i] = a->points[i].slowdown_pct;
    for (size_t i = 0; i < nf; i++)
        fx[i] = a->fit[i].utilization * 100, fy[i] = a->fit[i].slowdown_pct;
    nv_svg_series s[2] = {{"measured", px, py, np, NV_SVG_POINTS, NULL},
                          {"isotonic fit", fx, fy, nf, NV_SVG_LINE, NULL}};
    char title[400];
    snprintf(title, sizeof title, "p_A(U) of %s (%s)", a->key,
             nv_curve_origin_name(a->curve_origin));
    nv_svg_chart ch = {title, "switch utilization U (%)", "slowdown (%)", 0, s, 2};
    rc = nv_svg_write(&ch, path, err, errlen);
out:
    free(px), free(py), free(fx), free(fy);
    return rc;
}

/* the app's ImpactB latency histogram against the idle one (Fig. 3) */
static int plot_latency(const nv_app_report *r, const char *path, char *err, size_t errlen)
{
    char sname[300];
    snprintf(sname, sizeof sname, "beside %s (%s)", r->app.key,
             nv_latency_origin_name(r->app.latency_origin));
    nv_svg_series s[2] = {
        {"idle switch", r->hist_us, r->hist_idle_pct, NV_HIST_BINS, NV_SVG_LINE, "#7f7f7f"},
        {sname, r->hist_us, r->hist_app_pct, NV_HIST_BINS, NV_SVG_LINE, "#d62728"}};
    nv_svg_chart ch = {"ImpactB latency histogram against the idle one",
                       "latency (us, log)",
                       "samples (%)",
                       1,
                       s,
                       2};
    return nv_svg_write(&ch, path, err, errlen);
}

static int report_app(struct ctx *c, const char *name)
{
    nv_app_report r;
    char err[256];
    if (nv_app_report_build(c->m, name, &r, err, sizeof err)) {
        fprintf(stderr, "netvar: report: %s %s\n", err, c->model_path);
        return 1;
    }
    if (c->json) {
        json_object *o = app_json(&r);
        nv_cli_print_json(o);
        json_object_put(o);
    } else
        app_text(&r);
    int rc = 0;
    if (c->plot && plot_curve(&r, c->plot, err, sizeof err)) {
        fprintf(stderr, "netvar: report: %s: %s\n", c->plot, err);
        rc = 1;
    }
    if (c->plot_latency && plot_latency(&r, c->plot_latency, err, sizeof err)) {
        fprintf(stderr, "netvar: report: %s: %s\n", c->plot_latency, err);
        rc = 1;
    }
    nv_app_report_free(&r);
    return rc;
}

/* ------------------------------------------------------------ --cluster */

static json_object *num_pair(double a, double b)
{
    json_object *o = json_object_new_array();
    json_object_array_add(o, nv_json_new_num_g(a, DIGITS));
    json_object_array_add(o, nv_json_new_num_g(b, DIGITS));
    return o;
}

/* --since/--until: Unix seconds, or a UTC date and time */
static int parse_when(const nv_opt *o, void *to, const char *arg, char *err, size_t errlen)
{
    char *end;
    double v = strtod(arg, &end);
    if (end != arg && !*end && isfinite(v) && v >= 0 && v < 1e11) {
        *(double *)to = v;
        return 0;
    }
    static const char *const forms[] = {"%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d"};
    for (size_t k = 0; k < sizeof forms / sizeof forms[0]; k++) {
        struct tm tm;
        memset(&tm, 0, sizeof tm);
        const char *rest = strptime(arg, forms[k], &tm);
        if (rest && !*rest) {
            *(double *)to = (double)timegm(&tm);
            return 0;
        }
    }
    return nv_err(err, errlen, "--%s '%.64s': expected Unix seconds or YYYY-MM-DD[THH:MM[:SS]]",
                  o->name, arg);
}

static void reg_log(void *ctx, const char *line)
{
    (void)ctx;
    fprintf(stderr, "%s\n", line);
}

static json_object *cluster_json(const nv_cluster_report *r)
{
    json_object *o = json_object_new_object(), *jobs = json_object_new_array(),
                *pairs = json_object_new_array();
    for (size_t i = 0; i < r->n_jobs; i++) {
        const nv_cluster_report_job *j = &r->jobs[i];
        json_object *e = json_object_new_object();
        json_object_object_add(e, "job_id", json_object_new_int64(j->job_id));
        json_object_object_add(e, "app", j->app[0] ? json_object_new_string(j->app) : NULL);
        json_object_object_add(e, "known_to_model", json_object_new_boolean(j->model_app != NULL));
        json_object_object_add(e, "nodes", json_object_new_string(j->nodes));
        json_object_object_add(e, "switches", json_object_new_string(j->switches));
        json_object_object_add(e, "running_s", nv_json_new_num_g(j->running_s, DIGITS));
        json_object_object_add(e, "sharing_jobs", json_object_new_int64(j->sharing));
        json_object_object_add(e, "predicted_pct", nv_json_new_num_g(j->predicted_pct, DIGITS));
        json_object_object_add(e, "predicted_source", jstr_or_null(j->predicted_source));
        json_object_array_add(jobs, e);
    }
    json_object *ups = json_object_new_array();
    for (size_t k = 0; k < r->n_uplinks; k++) {
        const nv_cluster_report_uplink *u = &r->uplinks[k];
        json_object *e = json_object_new_object();
        json_object_object_add(e, "switch", json_object_new_string_len(u->name, (int)u->name_len));
        json_object_object_add(e, "utilization", nv_json_new_num_g(u->utilization, DIGITS));
        json_object_object_add(e, "jobs", json_object_new_int64(u->jobs));
        json_object_object_add(e, "jobs_unknown", json_object_new_int64(u->jobs_unknown));
        json_object_array_add(ups, e);
    }
    for (size_t k = 0; k < r->n_worst; k++) {
        const nv_report_pair *w = &r->worst[k];
        json_object *e = json_object_new_object();
        json_object_object_add(e, "job", json_object_new_int64(r->jobs[w->a].job_id));
        json_object_object_add(e, "app", jstr_or_null(r->jobs[w->a].model_app));
        json_object_object_add(e, "beside_job", json_object_new_int64(r->jobs[w->b].job_id));
        json_object_object_add(e, "beside_app", jstr_or_null(r->jobs[w->b].model_app));
        json_object_object_add(e, "slowdown_pct", nv_json_new_num_g(w->slowdown_pct, DIGITS));
        json_object_object_add(e, "source", json_object_new_string(w->source));
        json_object_array_add(pairs, e);
    }
    json_object_object_add(o, "running_jobs", jobs);
    json_object_object_add(o, "known_to_model", json_object_new_int64((int64_t)r->known));
    json_object_object_add(o, "registry_files_refused", json_object_new_int64((int64_t)r->refused));
    json_object_object_add(o, "pairs_predicted",
                           json_object_new_int64((int64_t)r->pairs_predicted));
    json_object_object_add(o, "predictor", json_object_new_string(nv_predictor_name(r->predictor)));
    json_object_object_add(o, "worst_pairs", pairs);
    json_object_object_add(o, "uplinks", ups);
    return o;
}

static void cluster_text(const nv_cluster_report *r)
{
    size_t n = r->n_jobs;
    printf("cluster: %zu running job%s, %zu with an app the model knows%s", n, n == 1 ? "" : "s",
           r->known, r->have_model ? "" : " (no model loaded)");
    if (r->refused)
        printf("; %zu registry file%s refused, not counted", r->refused,
               r->refused == 1 ? "" : "s");
    printf("\n");
    printf("  %-10s %-20s %-24s %-16s %10s\n", "job", "app", "nodes", "switches", "running");
    for (size_t i = 0; i < n; i++) {
        const nv_cluster_report_job *j = &r->jobs[i];
        char running[32];
        if (isfinite(j->running_s))
            snprintf(running, sizeof running, "%8.0f s", j->running_s);
        else
            snprintf(running, sizeof running, "%10s", "n/a");
        printf("  %-10u %-20s %-24.24s %-16.16s %s\n", j->job_id,
               j->app[0] ? nv_cli_shown(j->app) : "(none)", nv_cli_shown(j->nodes),
               j->switches[0] ? nv_cli_shown(j->switches) : "-", running);
    }
    printf(
        "predicted slowdowns among jobs whose paths meet at an uplink (%s): %zu pair%s, worst first\n",
        nv_predictor_name(r->predictor), r->pairs_predicted, r->pairs_predicted == 1 ? "" : "s");
    if (r->n_worst)
        printf("  %-10s %-20s %-10s %-20s %14s  %s\n", "job", "app", "beside", "app",
               "slowdown (%)", "source");
    for (size_t k = 0; k < r->n_worst; k++) {
        const nv_report_pair *w = &r->worst[k];
        printf("  %-10u %-20s %-10u %-20s %14.2f  %s\n", r->jobs[w->a].job_id,
               nv_cli_shown(r->jobs[w->a].model_app), r->jobs[w->b].job_id,
               nv_cli_shown(r->jobs[w->b].model_app), w->slowdown_pct, nv_cli_shown(w->source));
    }
}

static json_object *accuracy_json(const nv_stream_accuracy *s, const nv_accuracy_window *w)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "since_unix_s", nv_json_new_num_g(w->since_unix_s, 12));
    json_object_object_add(o, "until_unix_s", nv_json_new_num_g(w->until_unix_s, 12));
    json_object_object_add(o, "last", w->last ? json_object_new_int64((int64_t)w->last) : NULL);
    json_object_object_add(o, "finished_jobs", json_object_new_int64((int64_t)s->finished));
    json_object_object_add(o, "annotated", json_object_new_int64((int64_t)s->annotated));
    json_object_object_add(o, "predicted", json_object_new_int64((int64_t)s->predicted));
    json_object_object_add(o, "scored", json_object_new_int64((int64_t)s->observed));
    json_object_object_add(o, "scored_beside_several",
                           json_object_new_int64((int64_t)s->beside_many));
    json_object_object_add(o, "mean_abs_error_pp", nv_json_new_num_g(s->acc.mae_pp, DIGITS));
    json_object_object_add(o, "mean_abs_error_ci95_pp",
                           isfinite(s->acc.lo_pp) ? num_pair(s->acc.lo_pp, s->acc.hi_pp) : NULL);
    json_object_object_add(o, "mean_error_pp", nv_json_new_num_g(s->acc.bias_pp, DIGITS));
    json_object_object_add(o, "slowed_pct", nv_json_new_num_g(s->acc.slowed_pct, DIGITS));
    json_object_object_add(o, "scored_slowed", json_object_new_int64((int64_t)s->acc.n_slowed));
    json_object_object_add(o, "mean_abs_error_slowed_pp",
                           nv_json_new_num_g(s->acc.mae_slowed_pp, DIGITS));
    json_object_object_add(o, "first_end_unix_s", nv_json_new_num_g(s->first_end_s, 12));
    json_object_object_add(o, "last_end_unix_s", nv_json_new_num_g(s->last_end_s, 12));
    json_object_object_add(o, "from",
                           json_object_new_string("Comment (user-editable, unverified)"));
    return o;
}

static void accuracy_text(const nv_stream_accuracy *s)
{
    printf("job_submit's predictions against what happened (finished jobs in the window): "
           "%zu finished, %zu annotated, %zu with a prediction, %zu scored\n",
           s->finished, s->annotated, s->predicted, s->observed);
    if (!s->observed) {
        printf("  nothing to score: no finished job has both a prediction and an observed "
               "slowdown\n");
        return;
    }
    const nv_accuracy *a = &s->acc;
    char ci[96] = "";
    if (isfinite(a->lo_pp))
        snprintf(ci, sizeof ci, " (95 %% bootstrap interval %.1f to %.1f pp)", a->lo_pp, a->hi_pp);
    printf("  %-34s %.1f pp%s over %zu job%s\n", "mean absolute error", a->mae_pp, ci, a->n,
           a->n == 1 ? "" : "s");
    printf("  %-34s %+.1f pp (above 0: said more than happened)\n", "mean error", a->bias_pp);
    if (a->n_slowed)
        printf("  %-34s %.1f pp over %zu job%s slowed >= %.0f %%\n", "mean absolute error, slowed",
               a->mae_slowed_pp, a->n_slowed, a->n_slowed == 1 ? "" : "s", a->slowed_pct);
    else
        printf("  %-34s no scored job was slowed >= %.0f %%\n", "mean absolute error, slowed",
               a->slowed_pct);
    printf("  %-34s %zu\n", "predicted beside several jobs", s->beside_many);
}

static int report_cluster(struct ctx *c)
{
    nv_cluster_report r;
    nv_stream_accuracy acc;
    char err[4400], aerr[512];
    if (nv_cluster_report_build(c->spool, c->m, c->predictor, (double)time(NULL), reg_log, NULL, &r,
                                err, sizeof err)) {
        fprintf(stderr, "netvar: report: %s\n", err);
        return 1;
    }
    int have_acc = !nv_stream_accuracy_build(c->spool, c->m, &c->window, &acc, aerr, sizeof aerr);
    if (!have_acc)
        fprintf(stderr, "netvar: report: finished jobs: %s; accuracy left out\n", aerr);
    if (c->json) {
        json_object *o = cluster_json(&r);
        json_object_object_add(o, "accuracy", have_acc ? accuracy_json(&acc, &c->window) : NULL);
        nv_cli_print_json(o);
        json_object_put(o);
    } else {
        cluster_text(&r);
        if (have_acc)
            accuracy_text(&acc);
    }
    nv_cluster_report_free(&r);
    return 0;
}

int verb_report(int argc, char **argv)
{
    struct ctx c = {.spool = NULL, .model_path = NULL, .predictor = NV_PREDICT_QUEUE};
    const char *app = NULL, *config = NULL;
    int cluster = 0;
    long last = 0;
    c.window.since_unix_s = c.window.until_unix_s = NAN;
    const nv_opt opts[] = {
        {"app", "NAME", NV_CLI_STR, &app,
         .help = "report on the app NAME (above) instead of a job"},
        {"cluster", NULL, NV_CLI_FLAG, &cluster, .ival = 1,
         .help = "report on the whole cluster (above) instead of a job"},
        {"from", "auto|spool|accounting", NV_CLI_CHOICE, &c.from,
         .choices = "auto|spool|accounting",
         .help = "(JOBID) where the job's report comes from: the spool's record, or "
                 "accounting (sacct: netvar-acct's summary, for the job's owner or root); "
                 "auto (the default): the spool when its record is readable, else accounting"},
        {"config", "FILE", NV_CLI_STR, &config,
         .help = "netvar.conf (default: /etc/netvar/netvar.conf when it exists, else the "
                 "built-in defaults)"},
        {"spool", "DIR", NV_CLI_STR, &c.spool,
         .help = "netvar spool (default: netvar.conf's, /var/spool/netvar)"},
        {"model", "FILE", NV_CLI_STR, &c.model_path,
         .help = "model file (default /var/lib/netvar/model.json)"},
        NV_CLI_OPT_PREDICTOR(&c.predictor),
        {"json", NULL, NV_CLI_FLAG, &c.json, .ival = 1,
         .help = "JSON instead of the table; names carry their unit (_s seconds, _us "
                 "microseconds, _pct percent); rho, utilization, p_high and counter_rho are "
                 "fractions 0..1; curve points are [U (fraction), slowdown %, samples]"},
        {"plot", "FILE.svg", NV_CLI_STR, &c.plot,
         .help = "write the plot described above (atomically)"},
        {"plot-latency", "FILE.svg", NV_CLI_STR, &c.plot_latency,
         .help = "(--app) the latency histogram plot"},
        {"since", "WHEN", NV_CLI_CALL, &c.window.since_unix_s, .call = parse_when,
         .help = "(--cluster) score the jobs that ended at or after WHEN: Unix seconds, or "
                 "YYYY-MM-DD[THH:MM[:SS]] in UTC (default: no bound)"},
        {"until", "WHEN", NV_CLI_CALL, &c.window.until_unix_s, .call = parse_when,
         .help = "(--cluster) ... and before WHEN (default: no bound)"},
        {"last", "N", NV_CLI_LONG, &last, .lo = 1, .hi = 10000000,
         .help = "(--cluster) only the last N of them by end time (default: all)"},
    };
    const nv_opt_spec spec = {
        "netvar: report", NULL, help_head,
        help_tail,        0,    {{"Options:", "report", opts, sizeof opts / sizeof opts[0]}}};
    int parsed = nv_opts_parse(&spec, argc, argv);
    if (parsed)
        return nv_opts_exit(parsed);
    const char *jobid = optind < argc ? argv[optind] : NULL;
    if ((jobid != NULL) + (app != NULL) + cluster != 1 || argc - optind > 1) {
        fprintf(stderr, "netvar: report: give exactly one of JOBID, --app NAME, --cluster; see "
                        "--help\n");
        return 2;
    }
    if (c.plot_latency && !app) {
        fprintf(stderr, "netvar: report: --plot-latency goes with --app\n");
        return 2;
    }
    c.window.last = (size_t)last;
    if (!cluster && (last || isfinite(c.window.since_unix_s) || isfinite(c.window.until_unix_s))) {
        fprintf(stderr, "netvar: report: --since, --until and --last go with --cluster\n");
        return 2;
    }
    if (cluster && c.plot) {
        fprintf(stderr, "netvar: report: --cluster has no plot\n");
        return 2;
    }
    if (c.from != FROM_AUTO && !jobid) {
        fprintf(stderr, "netvar: report: --from goes with JOBID\n");
        return 2;
    }
    if (c.from == FROM_ACCT && c.plot) {
        fprintf(stderr, "netvar: report: --from accounting has no plot\n");
        return 2;
    }
    if (!config && access("/etc/netvar/netvar.conf", R_OK) == 0)
        config = "/etc/netvar/netvar.conf";
    const struct nv_config *conf = nv_cli_config(config && *config ? config : NULL);
    if (!c.spool)
        c.spool = conf->spool_dir;
    if (!c.model_path)
        c.model_path = conf->model_file;
    if (c.from == FROM_AUTO && jobid && !c.plot) {
        /* the spool when its record is readable (root, the admin), else
         * accounting (a user on a login node) */
        char rec[4096];
        long long id = strtoll(jobid, NULL, 10);
        if (id > 0 &&
            (nv_spool_jobs_path(c.spool, id, "job.json", rec, sizeof rec) || access(rec, R_OK)))
            c.from = FROM_ACCT, c.fell_back = 1;
    }
    if (c.from == FROM_ACCT)
        return report_job(&c, jobid); /* no model: the summary holds the figures */
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
