/* verb_export.c - `netvar export --prometheus FILE`: netvar's figures in
 * node_exporter's textfile format (lib/report/prom_export.h), written
 * atomically so that the collector never reads half a file. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include <unistd.h>

#include "args.h"
#include "opts.h"
#include "atomic_file.h"
#include "config.h"
#include "model.h"
#include "predict.h"
#include "prom_export.h"
#include "submit_stats.h"
#include "verbs.h"

/* the help around the options table, the bounds filled in once */
static char help_head[3072], help_tail[512];

static void make_help(void)
{
    snprintf(help_head, sizeof help_head,
             "Usage: netvar export --prometheus FILE [--spool DIR] [--model FILE] [--config FILE]\n"
             "                     [--window SECONDS] [--max-jobs N] [--jobsubmit-stats FILE]\n"
             "\n"
             "Write netvar's figures as Prometheus metrics for node_exporter's textfile\n"
             "collector (FILE ends in .prom, in its --collector.textfile.directory),\n"
             "atomically: a temp file beside FILE, renamed over it.  The units are in\n"
             "the names (_ratio: a fraction, 0.05 is 5 %%; _seconds):\n"
             "\n"
             "  netvar_job_predicted_slowdown_ratio{jobid,app}  running jobs with a\n"
             "      prediction: the slowdown predicted beside the apps the model knows\n"
             "      among the running jobs whose paths meet their own, 0 when none does\n"
             "      (`netvar report --cluster --json` predicted_pct)\n"
             "  netvar_uplink_utilization_ratio{switch}, netvar_uplink_jobs{switch}\n"
             "      per leaf switch's uplink: the model's U_A summed over the running\n"
             "      jobs across it, and how many they are\n"
             "  netvar_finished_job_observed_slowdown_ratio  summary (least, median,\n"
             "      most, sum, count) of the jobs that ended within the window beside\n"
             "      neighbours (`netvar report JOBID --json` observed_pct)\n"
             "  netvar_jobsubmit_decisions_total{action}, netvar_jobsubmit_submissions_total,\n"
             "  netvar_jobsubmit_call_duration_seconds (histogram)  from the counts\n"
             "      job_submit/netvar writes to jobsubmit/stats.json in the model\n"
             "      file's directory (SlurmUser must be able to write jobsubmit/)\n"
             "  netvar_running_jobs, netvar_finished_jobs, netvar_export_source_ok{source},\n"
             "  netvar_export_timestamp_seconds and a few more (see netvar(1))\n"
             "\n"
             "Label cardinality is bounded: per-job series are for running jobs only,\n"
             "at most %d of them (--max-jobs; the highest predictions kept,\n"
             "netvar_job_series_dropped counts the rest), at most %d uplinks; label\n"
             "values are cut to %d bytes, bytes outside printable ASCII become _, and\n"
             "backslash, double quote and newline are escaped.\n"
             "A source that cannot be read (registry, records, model, job_submit's\n"
             "file) is named on stderr and its figures are left out\n"
             "(netvar_export_source_ok 0); the rest is written.\n"
             "\n",
             NV_PROM_MAX_JOBS, NV_PROM_MAX_UPLINKS, NV_PROM_LABEL_MAX);
    snprintf(help_tail, sizeof help_tail, "\n%s",
             "Exit status: 0 written, 1 FILE cannot be written (nothing is left\n"
             "behind; the previous file stays), 2 bad usage.\n"
             "\n"
             "Example (the netvar-export.timer runs it every minute):\n"
             "  netvar export --prometheus /var/lib/prometheus/node-exporter/netvar.prom\n");
}

static void log_err(void *ctx, const char *line)
{
    (void)ctx;
    fprintf(stderr, "%s\n", line);
}

int verb_export(int argc, char **argv)
{
    const char *out = NULL, *spool = NULL, *model_path = NULL, *js = NULL;
    const char *config = getenv("NETVAR_CONF");
    nv_prom_opts o = {.predictor = NV_PREDICT_QUEUE,
                      .window_s = NV_PROM_DEFAULT_WINDOW_S,
                      .max_jobs = NV_PROM_MAX_JOBS};
    long max_jobs = NV_PROM_MAX_JOBS;
    char window_help[96], jobs_help[96], js_help[200];
    snprintf(window_help, sizeof window_help,
             "finished jobs that ended within it, seconds (default %d)", NV_PROM_DEFAULT_WINDOW_S);
    snprintf(jobs_help, sizeof jobs_help, "running-job series, 1 to %d (default %d)",
             NV_PROM_MAX_JOBS, NV_PROM_MAX_JOBS);
    snprintf(js_help, sizeof js_help,
             "job_submit's counts (default: %s under the model file's directory, left out "
             "quietly when absent; 'none': leave them out)",
             NV_SUBMIT_STATS_FILE);
    const nv_opt opts[] = {
        {"prometheus", "FILE", NV_CLI_STR, &out, .help = "the file to write (required)"},
        NV_CLI_OPT_SPOOL(&spool),
        {"model", "FILE", NV_CLI_STR, &model_path,
         .help = "model file (default: netvar.conf's ModelFile)"},
        {"config", "FILE", NV_CLI_STR, &config,
         .help = "netvar.conf (default: $NETVAR_CONF, else /etc/netvar/netvar.conf when it "
                 "exists, else the built-in defaults /var/spool/netvar and "
                 "/var/lib/netvar/model.json)"},
        NV_CLI_OPT_PREDICTOR(&o.predictor),
        {"window", "SECONDS", NV_CLI_DOUBLE, &o.window_s, 1, 3650.0 * 86400, .help = window_help},
        {"max-jobs", "N", NV_CLI_LONG, &max_jobs, 1, NV_PROM_MAX_JOBS, .help = jobs_help},
        {"jobsubmit-stats", "FILE", NV_CLI_STR, &js, .help = js_help},
    };
    make_help();
    const nv_opt_spec spec = {
        "netvar export", NULL, help_head,
        help_tail,       0,    {{"Options:", "export", opts, sizeof opts / sizeof opts[0]}}};
    int parsed = nv_opts_parse(&spec, argc, argv);
    if (parsed)
        return nv_opts_exit(parsed);
    o.max_jobs = (size_t)max_jobs;
    if (optind < argc) {
        fprintf(stderr, "netvar: export: unexpected argument '%.60s'; see --help\n", argv[optind]);
        return 2;
    }
    if (!out || !*out) {
        fprintf(stderr, "netvar: export: give --prometheus FILE; see --help\n");
        return 2;
    }
    if (!config && access("/etc/netvar/netvar.conf", F_OK) == 0)
        config = "/etc/netvar/netvar.conf";
    const struct nv_config *conf = nv_cli_config(config && *config ? config : NULL);
    o.spool = spool ? spool : conf->spool_dir;
    if (!model_path)
        model_path = conf->model_file;
    char jsbuf[4200];
    if (!js) {
        const char *slash = strrchr(model_path, '/');
        snprintf(jsbuf, sizeof jsbuf, "%.*s%s%s", slash ? (int)(slash - model_path) : 0, model_path,
                 slash ? "/" : "", NV_SUBMIT_STATS_FILE);
        js = jsbuf;
    }
    o.jobsubmit_stats = strcmp(js, "none") ? js : NULL;
    /* where job_submit does not run (a login node) the default file is
     * absent: no figures, and no line every minute */
    struct stat st;
    if (js == jsbuf && lstat(js, &st) && errno == ENOENT)
        o.jobsubmit_stats = NULL;
    char err[4400];
    nv_model *m = nv_model_load(model_path, err, sizeof err);
    if (!m)
        fprintf(stderr, "netvar: export: model %s: %s; exporting without predictions\n", model_path,
                err);
    o.model = m;
    o.now_unix_s = (double)time(NULL);
    char *text = NULL;
    size_t len = 0;
    int rc = 0;
    if (nv_prom_export(&o, log_err, NULL, &text, &len, err, sizeof err)) {
        fprintf(stderr, "netvar: export: %s; %s left as it was\n", err, out);
        rc = 1;
    } else if (nv_write_file_atomic(out, text, len, 0644, err, sizeof err)) {
        /* err names the file */
        fprintf(stderr, "netvar: export: --prometheus %s; nothing written\n", err);
        rc = 1;
    }
    free(text);
    nv_model_free(m);
    return rc;
}
