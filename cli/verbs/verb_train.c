/* verb_train.c - `netvar train`: job records (+ an input model holding
 * calibration and campaigns) -> a new model file, written atomically. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "args.h"
#include "opts.h"
#include "job_record.h"
#include "model.h"
#include "model_builder.h"
#include "nv_json.h"
#include "progress.h"
#include "train_history.h"
#include "train_sacct.h"
#include "train_state.h"
#include "verbs.h"

static const char help_head[] =
    "Usage: netvar train --spool DIR --out FILE [--model IN] [--window-s S]\n"
    "                    [--from-sacct SINCE | --sacct-file FILE] [--topology FILE]\n"
    "                    [--min-overlap-frac F] [--low-rho R] [--min-runs N]\n"
    "                    [--u-bucket U] [--max-jobs N] [--state FILE]\n"
    "                    [--window-days D] [--quiet | --json]\n"
    "\n"
    "Learn a model file from production history: the job records that\n"
    "`netvar collect` wrote to DIR/jobs/<jobid>/job.json, on top of an input\n"
    "model holding the calibration and campaign results (calibrate, impact,\n"
    "campaign).  Records are streamed one at a time; only a ~300-byte summary\n"
    "per job is kept.  Corrupt records are skipped with one line each and\n"
    "counted.  The same input gives a byte-identical model.\n"
    "\n"
    "Per app:\n"
    "  U_A        median over its runs of the counter-derived rho; an ImpactB\n"
    "             U from the input model answers where a campaign measured it\n"
    "             (utilization_source says which; both are kept)\n"
    "  p_A(U)     the campaign curve of the input model when there is one,\n"
    "             else learned from history: slowdown of each run against the\n"
    "             app's baseline vs the background rho its switches saw\n"
    "             (neighbours' counter rho weighted by overlap, or the record's\n"
    "             switch_rho minus its own rho), bucketed, isotonic fit;\n"
    "             flagged provenance.curve = \"production\"\n"
    "  scaling    median runtime per node count (baseline runs where known), counts\n"
    "  latency    ImpactB summary from the input model, else derived (P-K at U_A)\n"
    "  signature  time in MPI by message class of its latest job (by end time)\n"
    "             whose first profile in DIR/jobs/<jobid>/profiles is of\n"
    "             version 2, summed over segments, with the job's runtime;\n"
    "             recomputed every run (--state keeps which jobs had\n"
    "             profiles/, not the signatures); unreadable and version 1\n"
    "             profiles are skipped and counted; without one, the input\n"
    "             model's signature is kept\n"
    "Co-location table: a run of A whose only neighbours (jobs overlapping it\n"
    "for at least the window whose path meets A's: both across several leaf\n"
    "switches with one in common, or several groups with one in common; a job\n"
    "under one leaf switch crosses no uplink) run app B is one\n"
    "sample of (A, B): its runtime against A's baseline, the median runtime of\n"
    "A's runs at the same node count with background rho <= --low-rho, and of\n"
    "the same shape (as many nodes under each leaf switch, leaf by leaf in the\n"
    "order of the job's node list, from the record's bottleneck) when such a\n"
    "run of that shape exists.  The\n"
    "entry is the samples' median (a stalled run does not move it), with their\n"
    "count and standard deviation.\n"
    "\n";

static const char help_tail[] =
    "\n"
    "job_submit/netvar notices the new file by itself (it re-reads the model\n"
    "when the file changes).\n"
    "\n"
    "Exit status: 0 written, 1 unreadable spool or model, cap reached or write\n"
    "failed, 2 bad usage.\n"
    "\n"
    "Example:\n"
    "  netvar train --spool /var/spool/netvar --model /etc/netvar/model.json \\\n"
    "               --out /etc/netvar/model.json --window-s 30\n";

_Static_assert(NV_TRAIN_DEFAULT_MAX_JOBS == 8000000, "the --max-jobs help says 8000000");

/* a whole number from lo to hi, which may be written as 1e6, into a
 * uint32_t (--min-runs, ival 0) or a size_t (--max-jobs, ival 1) */
static int set_whole(const nv_opt *o, void *to, const char *arg, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    if (errno || end == arg || *end || !isfinite(v) || v < o->lo || v > o->hi)
        return snprintf(err, errlen, "--%s '%.40s': must be a number from %g to %g", o->name, arg,
                        o->lo, o->hi),
               -1;
    if (v != floor(v))
        return snprintf(err, errlen, "--%s '%.40s': not a whole number", o->name, arg), -1;
    if (o->ival)
        *(size_t *)to = (size_t)v;
    else
        *(uint32_t *)to = (uint32_t)v;
    return 0;
}

static json_object *summary_json(const nv_train_set *s, const nv_train_opts *o, const char *out,
                                 size_t pairs, int have_input)
{
    const nv_train_stats *t = &s->stats;
    json_object *j = json_object_new_object();
    json_object_object_add(j, "model", json_object_new_string(out));
    json_object_object_add(j, "records_read", json_object_new_int64((int64_t)t->records));
    json_object_object_add(j, "used", json_object_new_int64((int64_t)t->used));
    json_object_object_add(j, "corrupt_skipped", json_object_new_int64((int64_t)t->corrupt));
    json_object_object_add(j, "without_app_key", json_object_new_int64((int64_t)t->no_app));
    json_object_object_add(j, "apps", json_object_new_int64((int64_t)s->n_apps));
    json_object_object_add(j, "runs_of_apps_over_cap",
                           json_object_new_int64((int64_t)t->apps_over_cap));
    json_object_object_add(j, "baseline_runs", json_object_new_int64((int64_t)t->baseline_runs));
    json_object_object_add(j, "pair_samples", json_object_new_int64((int64_t)t->pair_samples));
    json_object_object_add(j, "several_neighbours",
                           json_object_new_int64((int64_t)t->mixed_neighbours));
    json_object_object_add(j, "no_baseline", json_object_new_int64((int64_t)t->no_baseline));
    json_object_object_add(j, "colocation_entries", json_object_new_int64((int64_t)pairs));
    json_object_object_add(j, "calibration_source",
                           json_object_new_string(have_input ? "input model" : "records"));
    json_object_object_add(j, "window_s", nv_json_new_num(o->window_s));
    json_object_object_add(j, "min_overlap_frac", nv_json_new_num(o->min_overlap_frac));
    json_object_object_add(j, "low_rho", nv_json_new_num(o->low_rho));
    json_object_object_add(j, "min_runs", json_object_new_int64(o->min_runs));
    json_object_object_add(j, "u_bucket", nv_json_new_num(o->u_bucket));
    json_object_object_add(j, "from_state", json_object_new_int64((int64_t)t->from_state));
    json_object_object_add(j, "out_of_window", json_object_new_int64((int64_t)t->out_of_window));
    json_object_object_add(j, "signatures", json_object_new_int64((int64_t)t->signatures));
    json_object_object_add(j, "profiles_skipped",
                           json_object_new_int64((int64_t)t->profiles_unusable));
    json_object_object_add(j, "profiles_v1", json_object_new_int64((int64_t)t->profiles_v1));
    return j;
}

static nv_progress progress; /* on a terminal only (progress.h) */

static void log_line(void *ctx, const char *line)
{
    (void)ctx;
    nv_progress_end(&progress); /* the line starts clean */
    fprintf(stderr, "%s\n", line);
}

static void show_progress(void *ctx, size_t records)
{
    (void)ctx;
    nv_progress_update(&progress, records, 0);
}

/* job directories in <spool>/jobs, for the progress line's time left (one
 * readdir pass; only when the line is shown) */
static size_t count_jobs(const char *spool)
{
    char dir[4200];
    size_t n = 0;
    if (nv_spool_jobs_path(spool, -1, NULL, dir, sizeof dir))
        return 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

int verb_train(int argc, char **argv)
{
    const char *spool = NULL, *out = NULL, *in_path = NULL;
    const char *sacct_since = NULL, *sacct_file = NULL, *topology = NULL, *state = NULL;
    double window_days = 0;
    nv_sacct_stats acct = {0};
    int quiet = 0, json = 0;
    nv_train_opts o;
    nv_train_opts_default(&o);
    const nv_opt opts[] = {
        {"spool", "DIR", NV_CLI_STR, &spool,
         .help = "spool holding jobs/<jobid>/job.json (required unless accounting gives the "
                 "history)"},
        {"from-sacct", "SINCE", NV_CLI_STR, &sacct_since,
         .help = "also learn from Slurm accounting: the COMPLETED jobs since SINCE (sacct -S: "
                 "2024-01-01, now-365days) with their start, end, nodes and app (netvar's entry "
                 "in AdminComment or SystemComment, else the annotation ending the Comment, "
                 "else a job name that is a valid app key); no "
                 "counters, so no own rho.  Jobs the spool holds keep their spool record"},
        {"sacct-file", "FILE", NV_CLI_STR, &sacct_file,
         .help = "the same from saved output ('-': stdin) of\n"
                 "SLURM_TIME_FORMAT=%s sacct -a -X -n -P --delimiter=$'\\x1f'\n"
                 "--format=JobIDRaw,JobName,NNodes,Start,End,State,NodeList,Comment,AdminComment,"
                 "SystemComment"},
        {"topology", "FILE", NV_CLI_STR, &topology,
         .help = "Slurm topology.conf, or topology.yaml (a name ending .yaml or .yml), naming "
                 "the accounting jobs' leaf switches (default: none, so they have no "
                 "neighbours)"},
        {"out", "FILE", NV_CLI_STR, &out, .help = "model file to write, atomically (required)"},
        {"model", "IN", NV_CLI_STR, &in_path,
         .help = "input model (calibration, campaigns); without it the calibration is the "
                 "records' median 1/mu"},
        {"window-s", "S", NV_CLI_DOUBLE, &o.window_s, 0, 1e9,
         .help = "least overlap of a pair, seconds (0..1e9, default 10)"},
        {"min-overlap-frac", "F", NV_CLI_DOUBLE, &o.min_overlap_frac, 0, 1,
         .help = "... and least fraction of A's runtime (0..1, default 0.5)"},
        {"low-rho", "R", NV_CLI_DOUBLE, &o.low_rho, 0, 1,
         .help = "background rho of a baseline run, at most (0..1, default 0.05)"},
        {"min-runs", "N", NV_CLI_CALL, &o.min_runs, 1, 1e9, .ival = 0, .call = set_whole,
         .help = "samples for a table entry or a learned curve (1..1e9, default 1)"},
        {"u-bucket", "U", NV_CLI_DOUBLE, &o.u_bucket, 0.002, 1,
         .help = "width of the background-U buckets of a learned curve, fraction of the switch "
                 "(0.002..1, default 0.05)"},
        {"state", "FILE", NV_CLI_STR, &state,
         .help = "incremental training: keep the job summaries in FILE (binary, mode 0600) and "
                 "read only the records that are new since the run that wrote it.  The model is "
                 "the same as from reading every record.  A summary outlives its record (netvar "
                 "prune) until it leaves --window-days.  A state of another spool or "
                 "calibration, or one that fails a check, is not used: every record is read, and "
                 "a line says why"},
        {"window-days", "D", NV_CLI_DOUBLE, &window_days, 0.001, 1e5,
         .help = "train on the jobs that ended within D days of the newest one (0.001..1e5, "
                 "default: all)"},
        {"max-jobs", "N", NV_CLI_CALL, &o.max_jobs, 1, 1e8, .ival = 1, .call = set_whole,
         .help = "most job records held (1..1e8, default 8000000, about 1 GiB of summaries at "
                 "130 bytes a job; more is an error)"},
        {"quiet", NULL, NV_CLI_FLAG, &quiet, .ival = 1,
         .help = "no summary on stdout, no progress line on stderr (the line - records read, "
                 "rate, time left - is only drawn when stderr is a terminal)"},
        {"json", NULL, NV_CLI_FLAG, &json, .ival = 1,
         .help = "the summary as one JSON object: model, records_read, used, corrupt_skipped, "
                 "without_app_key, apps, baseline_runs, pair_samples, several_neighbours, "
                 "no_baseline, colocation_entries, calibration_source (\"input model\" or "
                 "\"records\"), and the options used: window_s, min_overlap_frac and low_rho "
                 "(fractions), min_runs, u_bucket; with --state or --window-days also state, "
                 "from_state (summaries not read again) and out_of_window (summaries left out); "
                 "signatures (apps given one from a version 2 profile), profiles_skipped, "
                 "profiles_v1"},
    };
    const nv_opt_spec spec = {
        "netvar: train", NULL, help_head,
        help_tail,       0,    {{"Options:", "train", opts, sizeof opts / sizeof opts[0]}}};
    int parsed = nv_opts_parse(&spec, argc, argv);
    if (parsed)
        return nv_opts_exit(parsed);
    if (quiet && json) {
        fprintf(stderr, "netvar: train: --quiet and --json exclude each other\n");
        return 2;
    }
    if (sacct_since && sacct_file) {
        fprintf(stderr, "netvar: train: --from-sacct and --sacct-file exclude each other\n");
        return 2;
    }
    int from_acct = sacct_since || sacct_file;
    if (optind < argc || (!spool && !from_acct) || !out) {
        fprintf(stderr, "netvar: train: %s; see --help\n",
                optind < argc ? "unexpected argument"
                              : "--out, and --spool or --from-sacct/--sacct-file, are required");
        return 2;
    }
    if (state && !spool) {
        fprintf(stderr, "netvar: train: --state keeps what --spool gives; it needs --spool\n");
        return 2;
    }
    char err[512];
    nv_model *in = NULL;
    if (in_path && !(in = nv_model_load(in_path, err, sizeof err))) {
        fprintf(stderr, "netvar: train: --model %s: %s\n", in_path, err);
        return 1;
    }
    double service_us = in ? nv_model_calibration(in)->service_us : 0;
    nv_train_set s;
    nv_train_set_init(&s);
    int rc = 1;
    nv_model_builder *b = NULL;
    size_t pairs = 0;
    char spool_id[PATH_MAX]; /* what the state file is of */
    if (state) {
        if (!realpath(spool, spool_id))
            snprintf(spool_id, sizeof spool_id, "%s", spool);
        int lr = nv_train_state_load(state, spool_id, service_us, o.max_jobs, &s, err, sizeof err);
        if (lr < 0)
            fprintf(stderr, "netvar: train: --state %s: %s; reading every record instead\n", state,
                    err);
    }
    if (spool) {
        nv_progress_start(&progress, stderr, !quiet, "train: job records read", 0);
        if (progress.out) {
            size_t all = count_jobs(spool);
            progress.total = all > s.n_known ? all - s.n_known : 0;
            o.progress = show_progress;
        }
    }
    int scan_rc =
        spool ? nv_train_scan_spool(spool, service_us, &o, &s, log_line, NULL, err, sizeof err) : 0;
    nv_progress_end(&progress);
    if (scan_rc) {
        fprintf(stderr, "netvar: train: %s\n", err);
        goto out;
    }
    if (window_days > 0 && nv_train_set_window(&s, window_days * 86400.0)) {
        fprintf(stderr, "netvar: train: out of memory applying --window-days\n");
        goto out;
    }
    /* the state holds the spool's summaries only: before accounting joins */
    if (state && nv_train_state_save(state, spool_id, service_us, &s, err, sizeof err))
        fprintf(stderr,
                "netvar: train: --state: %s; the model is still written, and the next "
                "training reads every record\n",
                err);
    if (from_acct && nv_cli_train_sacct(sacct_since, sacct_file, topology, &o, &s, &acct))
        goto out;
    if (nv_train_analyze(&s, &o)) {
        fprintf(stderr, "netvar: train: out of memory analyzing %zu jobs\n", s.n);
        goto out;
    }
    /* signatures from the spool's profiles, recomputed by every training */
    if (nv_train_signatures(&s, spool)) {
        fprintf(stderr, "netvar: train: out of memory reading signatures\n");
        goto out;
    }
    if (s.stats.profiles_unusable)
        fprintf(stderr,
                "netvar: train: %zu segment profiles skipped (%zu of version 1), first: %s; "
                "their apps take the next profiled job's signature\n",
                s.stats.profiles_unusable, s.stats.profiles_v1, s.stats.profile_error);
    if (!(b = nv_train_build(&s, in, &o, &pairs, err, sizeof err))) {
        fprintf(stderr, "netvar: train: %s\n", err);
        goto out;
    }
    if (nv_builder_save_last(b, out, err, sizeof err)) {
        fprintf(stderr, "netvar: train: %s\n", err);
        goto out;
    }
    if (json) {
        json_object *j = summary_json(&s, &o, out, pairs, in != NULL);
        if (from_acct) {
            json_object_object_add(j, "sacct_lines", json_object_new_int64((int64_t)acct.lines));
            json_object_object_add(j, "sacct_used", json_object_new_int64((int64_t)acct.added));
            json_object_object_add(j, "sacct_in_spool",
                                   json_object_new_int64((int64_t)acct.in_spool));
            json_object_object_add(j, "sacct_left_out",
                                   json_object_new_int64((int64_t)acct.left_out));
            json_object_object_add(j, "sacct_malformed",
                                   json_object_new_int64((int64_t)acct.malformed));
            /* jobs named by what their users can edit, not by netvar's entry */
            json_object_object_add(
                j, "sacct_app_from_user",
                json_object_new_int64((int64_t)(acct.app_from_comment + acct.app_from_name)));
        }
        nv_cli_print_json(j);
        json_object_put(j);
    } else if (!quiet) {
        const nv_train_stats *t = &s.stats;
        printf("netvar train: %s\n", out);
        printf("  job records read        %8zu\n", t->records);
        if (state)
            printf("  summaries from state    %8zu   (%s: records not read again)\n", t->from_state,
                   state);
        if (window_days > 0)
            printf("  out of window           %8zu   (ended > %g days before the newest)\n",
                   t->out_of_window, window_days);
        if (from_acct)
            printf(
                "  accounting jobs         %8zu   (of %zu sacct lines; %zu in the spool, %zu not "
                "completed or without app, %zu malformed)\n",
                acct.added, acct.lines, acct.in_spool, acct.left_out, acct.malformed);
        printf("  used                    %8zu\n", t->used);
        printf("  corrupt, skipped        %8zu\n", t->corrupt);
        printf("  without app key         %8zu\n", t->no_app);
        printf("  apps                    %8zu\n", s.n_apps);
        if (t->apps_over_cap)
            printf("  runs of apps over cap   %8zu   (more than %u apps: left out)\n",
                   t->apps_over_cap, NV_MODEL_MAX_APPS);
        printf("  baseline runs           %8zu   (background rho <= %.3f)\n", t->baseline_runs,
               o.low_rho);
        printf("  pair samples            %8zu   (one neighbour app, overlap >= %g s and "
               ">= %.0f %% of runtime)\n",
               t->pair_samples, o.window_s, o.min_overlap_frac * 100);
        printf("  runs, several neighbours%8zu   (not a pair sample)\n", t->mixed_neighbours);
        printf("  runs, no baseline       %8zu   (no low-background run at their size)\n",
               t->no_baseline);
        printf("  co-location entries     %8zu   (>= %u samples each)\n", pairs, o.min_runs);
        printf("  signatures              %8zu   (apps' latest job with a version 2 profile; "
               "%zu profiles skipped, %zu of version 1)\n",
               t->signatures, t->profiles_unusable, t->profiles_v1);
        if (!in)
            printf("  calibration             records' median 1/mu (no --model given)\n");
    }
    rc = 0;
out:
    nv_builder_free(b);
    nv_train_set_free(&s);
    nv_model_free(in);
    return rc;
}
