/* verb_estimate.c - `netvar estimate`: the single-run interference estimate
 * of a segment profile ("Single-run interference estimate"), as a readable
 * summary or JSON. */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "nv_json.h"
#include "opts.h"
#include "safe_open.h"
#include "segment_estimate.h"
#include "segment_profile.h"
#include "verbs.h"

static const char help_head[] =
    "Usage: netvar estimate PROFILE [PROFILE...] [--json] [--threshold R] [--min-group N]\n"
    "                       [--high-rate HZ]\n"
    "\n"
    "Estimate, from one run's segment profile, how much of the run was lost to\n"
    "instantaneous interference (\"Single-run interference estimate\").  Segments\n"
    "(cut at blocking all-to-all collectives by libnetvar_pmpi.so) are clustered\n"
    "by work with relative distance, split by exact communication/I-O\n"
    "signature; a segment is interfered when its time exceeds median + 4 x MAD\n"
    "of its group, and the summed excess is reported in % of the runtime.\n"
    "Classes: low < 7.5 % <= medium <= 15 % < high;\n"
    "P(high) = 1/(1+exp(-0.35 x (x - 11.25))).  Continuous interference (each used\n"
    "group's median above its fastest decile, times its size) is reported apart.\n"
    "\n"
    "PROFILE is the JSON written at MPI_Finalize (profile-<job>.<step>.json or\n"
    "netvar-profile-<pid>.json), or the per-rank partial files (*.rank<N>.partial)\n"
    "a run leaves when it never reached MPI_Finalize; give all ranks' files.\n"
    "\n";

static const char help_tail[] =
    "\n"
    "Exit status: 0 estimate printed, 1 unreadable or corrupt profile, 2 bad usage.\n"
    "\n"
    "Example:\n"
    "  netvar estimate /var/spool/netvar/job123/profile-123.0.json --json\n";

/* --threshold (ival 0), --min-group (1), --high-rate (2) into the options */
static int set_estimate(const nv_opt *o, void *to, const char *arg, char *err, size_t errlen)
{
    int ival = o->ival;
    nv_seg_estimate_opts *so = to;
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    if (end == arg || *end || errno == ERANGE || !isfinite(v))
        return snprintf(err, errlen, "--%s '%.40s': needs a number", o->name, arg), -1;
    if (ival == 0 && !(v > 0 && v < 10))
        return snprintf(err, errlen, "--threshold %g is outside (0, 10)", v), -1;
    if (ival == 1 && (!(v >= 1 && v <= 1e9) || v != floor(v)))
        return snprintf(err, errlen, "--min-group %g is not an integer >= 1", v), -1;
    if (ival == 2 && !(v > 0))
        return snprintf(err, errlen, "--high-rate %g must be > 0 segments/s", v), -1;
    if (ival == 0)
        so->rel_threshold = v;
    else if (ival == 1)
        so->min_group = (size_t)v;
    else
        so->high_rate_hz = v;
    return 0;
}

static void print_json(const nv_seg_profile *p, const nv_seg_estimate *e,
                       const nv_seg_estimate_opts *o)
{
    json_object *j = json_object_new_object();
    json_object_object_add(j, "job", json_object_new_string(p->meta.job));
    json_object_object_add(j, "executable", json_object_new_string(p->meta.executable));
    json_object_object_add(j, "complete", json_object_new_boolean(p->meta.complete));
    json_object_object_add(j, "ranks", json_object_new_int64(p->meta.ranks));
    json_object_object_add(j, "work_source", json_object_new_string(p->meta.work_source));
    json_object_object_add(j, "segments", json_object_new_int64((int64_t)e->segments));
    json_object_object_add(j, "segments_dropped", json_object_new_int64((int64_t)p->meta.dropped));
    json_object_object_add(j, "clusters", json_object_new_int64((int64_t)e->clusters));
    json_object_object_add(j, "groups", json_object_new_int64((int64_t)e->groups));
    json_object_object_add(j, "groups_used", json_object_new_int64((int64_t)e->groups_used));
    json_object_object_add(j, "segments_used", json_object_new_int64((int64_t)e->segments_used));
    json_object_object_add(j, "segments_interfered", json_object_new_int64((int64_t)e->interfered));
    json_object_object_add(j, "runtime_us", nv_json_new_num(e->runtime_us));
    json_object_object_add(j, "runtime_replaced", json_object_new_boolean(e->runtime_replaced));
    json_object_object_add(j, "excess_us", nv_json_new_num(e->excess_us));
    json_object_object_add(j, "interference_pct", nv_json_new_num(e->interference_pct));
    json_object_object_add(j, "class", json_object_new_string(nv_seg_class_name(e->cls)));
    json_object_object_add(j, "p_high", nv_json_new_num(e->p_high));
    json_object_object_add(j, "continuous_us", nv_json_new_num(e->continuous_us));
    json_object_object_add(j, "continuous_pct", nv_json_new_num(e->continuous_pct));
    json_object_object_add(j, "median_baseline_us", nv_json_new_num(e->median_baseline_us));
    json_object_object_add(j, "segment_rate_hz", nv_json_new_num(e->rate_hz));
    json_object_object_add(j, "high_rate_caveat", json_object_new_boolean(e->high_rate));
    json_object_object_add(j, "high_rate_threshold_hz", nv_json_new_num(o->high_rate_hz));
    json_object_object_add(j, "threshold", nv_json_new_num(o->rel_threshold));
    json_object_object_add(j, "min_group", json_object_new_int64((int64_t)o->min_group));
    json_object *inj = json_object_new_object();
    json_object_object_add(inj, "enabled", json_object_new_boolean(p->meta.inject_enabled));
    json_object_object_add(inj, "events", json_object_new_int64((int64_t)p->meta.inject_events));
    json_object_object_add(inj, "total_us", nv_json_new_num(p->meta.inject_total_us));
    json_object_object_add(j, "injection", inj);
    json_object *groups = json_object_new_array();
    for (size_t i = 0; i < e->ngroup_summaries; i++) {
        const nv_seg_group_summary *g = &e->group[i];
        json_object *gj = json_object_new_object();
        json_object_object_add(gj, "segments", json_object_new_int64((int64_t)g->segments));
        json_object_object_add(gj, "interfered", json_object_new_int64((int64_t)g->interfered));
        json_object_object_add(gj, "work_median", nv_json_new_num(g->work_median));
        json_object_object_add(gj, "time_median_us", nv_json_new_num(g->time_median_us));
        json_object_object_add(gj, "mad_us", nv_json_new_num(g->mad_us));
        json_object_object_add(gj, "threshold_us", nv_json_new_num(g->threshold_us));
        json_object_object_add(gj, "excess_us", nv_json_new_num(g->excess_us));
        json_object_array_add(groups, gj);
    }
    json_object_object_add(j, "largest_groups", groups);
    nv_cli_print_json(j);
    json_object_put(j);
}

static void print_text(const char *name, const nv_seg_profile *p, const nv_seg_estimate *e,
                       const nv_seg_estimate_opts *o)
{
    char shown[1024]; /* a name the job's user may have chosen */
    printf("profile      %s (%s, %u ranks, %s, work from %s)\n",
           nv_printable(name, shown, sizeof shown),
           p->meta.complete ? "complete" : "partial: run ended before MPI_Finalize", p->meta.ranks,
           p->meta.executable[0] ? p->meta.executable : "?", p->meta.work_source);
    printf("runtime      %.3f s (%.0f µs)\n", e->runtime_us / 1e6, e->runtime_us);
    if (e->runtime_replaced)
        printf("             (the profile's runtime_us %g is shorter than its segments; their "
               "total is used)\n",
               e->runtime_given_us);
    printf("segments     %zu (%llu dropped), %zu clusters, %zu groups, %zu used (>= %zu segments) "
           "covering %zu segments\n",
           e->segments, (unsigned long long)p->meta.dropped, e->clusters, e->groups, e->groups_used,
           o->min_group, e->segments_used);
    printf(
        "interference %.2f %% of runtime (instantaneous: %.0f µs above median + 4·MAD in %zu segments)\n",
        e->interference_pct, e->excess_us, e->interfered);
    printf("class        %s (low < 7.5 %% <= medium <= 15 %% < high); P(high) = %.2f\n",
           nv_seg_class_name(e->cls), e->p_high);
    printf(
        "continuous   %.2f %% of runtime (%.0f µs: group medians above their fastest decile; not "
        "included above)\n",
        e->continuous_pct, e->continuous_us);
    printf("rate         %.1f segments/s\n", e->rate_hz);
    for (size_t i = 0; i < e->ngroup_summaries; i++) {
        const nv_seg_group_summary *g = &e->group[i];
        printf(
            "  group %zu: %zu segments, median %.1f µs, MAD %.1f µs, threshold %.1f µs, %zu interfered, "
            "excess %.0f µs\n",
            i + 1, g->segments, g->time_median_us, g->mad_us, g->threshold_us, g->interfered,
            g->excess_us);
    }
    if (p->meta.inject_enabled)
        printf("injected     %llu delays, %.0f µs in total (validation run)\n",
               (unsigned long long)p->meta.inject_events, p->meta.inject_total_us);
    if (e->high_rate)
        printf(
            "caveat       %.0f segments/s exceeds %.0f/s: at high collective rates short segments make the "
            "estimate unreliable (the paper's GAPgeofem case, ~300/s)\n",
            e->rate_hz, o->high_rate_hz);
    if (e->segments_used == 0)
        printf("caveat       no group reached %zu segments: nothing could be estimated\n",
               o->min_group);
}

int verb_estimate(int argc, char **argv)
{
    nv_seg_estimate_opts opts;
    nv_seg_estimate_opts_default(&opts);
    int json = 0;
    const nv_opt table[] = {
        {"json", NULL, NV_CLI_FLAG, &json, .ival = 1,
         .help = "print the result as one JSON object"},
        {"threshold", "R", NV_CLI_CALL, &opts, .ival = 0, .call = set_estimate,
         .help = "relative-distance clustering threshold (default 0.1, > 0 and < 10)"},
        {"min-group", "N", NV_CLI_CALL, &opts, .ival = 1, .call = set_estimate,
         .help = "ignore groups with fewer than N segments (1..1e9, default 5)"},
        {"high-rate", "HZ", NV_CLI_CALL, &opts, .ival = 2, .call = set_estimate,
         .help = "warn when segments per second exceed HZ (> 0, default 100; the paper's "
                 "estimates failed at ~300 collectives/s)"},
    };
    const nv_opt_spec spec = {"netvar: estimate",
                              NULL,
                              help_head,
                              help_tail,
                              0,
                              {{"Options:", "estimate", table, sizeof table / sizeof table[0]}}};
    int parsed = nv_opts_parse(&spec, argc, argv);
    if (parsed)
        return nv_opts_exit(parsed);
    const char **files = (const char **)argv + optind;
    size_t nfiles = (size_t)(argc - optind);
    if (nfiles == 0) {
        fprintf(stderr, "netvar: estimate: no PROFILE given; see 'netvar estimate --help'\n");
        return 2;
    }
    nv_seg_profile prof;
    char err[1024];
    if (nv_seg_profile_load(files, nfiles, &prof, err, sizeof err) != 0) {
        char shown[1100];
        fprintf(stderr, "netvar: estimate: %s\n", nv_printable(err, shown, sizeof shown));
        return 1;
    }
    nv_seg_estimate est;
    if (nv_seg_estimate_run(prof.work, prof.time_us, prof.signature, prof.n, prof.meta.runtime_us,
                            &opts, &est) != 0) {
        char shown[1024];
        fprintf(stderr, "netvar: estimate: %s: cannot estimate (out of memory)\n",
                nv_printable(files[0], shown, sizeof shown));
        nv_seg_profile_free(&prof);
        return 1;
    }
    if (json)
        print_json(&prof, &est, &opts);
    else
        print_text(files[0], &prof, &est, &opts);
    nv_seg_profile_free(&prof);
    return 0;
}
