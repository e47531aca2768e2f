/* verb_collect.c - `netvar collect JOBID`: merge a job's node records into
 * one job record (metrics over blades, utilization per port). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_file.h"
#include "args.h"
#include "opts.h"
#include "config.h"
#include "counters_topology.h"
#include "job_record.h"
#include "model.h"
#include "nv_json.h"
#include "verbs.h"

static const char help_head[] =
    "Usage: netvar collect JOBID [--spool DIR] [--config FILE] [--model FILE]\n"
    "                      [--topology FILE] [--blade-map FILE]\n"
    "                      [--write] [--compact] [--json]\n"
    "\n"
    "Merges the per-node records that spank_netvar wrote for job JOBID\n"
    "(SPOOL/jobs/JOBID/node-*.json) into one job record, printed as JSON:\n"
    "runtime (s), nodes, blades and switches, the application key, the\n"
    "counter metrics of Chunduri et al. (processor-side traffic per second,\n"
    "network stall-to-traffic ratio, network-to-processor traffic ratio,\n"
    "total stalls, total traffic), each as mean, variance, p75, p95 and p99\n"
    "over the blades the job touched (one reading per blade), and the\n"
    "utilization rho = lambda/mu of every port, lambda in packets/s from the\n"
    "counters and mu from the model file's calibration. Every number names\n"
    "its source. Corrupt node records are skipped with one line each.\n"
    "\n"
    "The record's bottleneck U (u_up, u_down: fractions of one leaf's uplink\n"
    "capacity) is the job's own cross-leaf traffic, from its nodes' NIC\n"
    "counters and the job's node split, over UplinkRate x UplinksPerLeaf of\n"
    "netvar.conf; the leaves come from the topology, the ports from the blade\n"
    "map (nic=, switch_port=, uplink=). Without UplinkRate it is unavailable.\n"
    "\n";

static const char help_tail[] =
    "\n"
    "Exit status: 0 record written, 1 no records or I/O error, 2 bad usage.\n"
    "Example: netvar collect 4711 --spool /var/spool/netvar --write\n";

static void log_stderr(void *arg, const char *line)
{
    (void)arg;
    fprintf(stderr, "%s\n", line);
}

int verb_collect(int argc, char **argv)
{
    const char *spool = NULL, *config = getenv("NETVAR_CONF"), *model_path = NULL;
    const char *topology = NULL, *blade_map = NULL;
    int write = 0, compact = 0;
    int json = 1;
    const nv_opt opts[] = {
        NV_CLI_OPT_SPOOL(&spool),
        NV_CLI_OPT_CONFIG(&config),
        {"model", "FILE", NV_CLI_STR, &model_path,
         .help = "model file for the calibrated service rate mu (default: ModelFile of "
                 "netvar.conf; none: rho unavailable)"},
        {"topology", "FILE", NV_CLI_STR, &topology,
         .help = "Slurm topology.conf: each node's leaf switch (default: beside $SLURM_CONF, "
                 "else /etc/slurm/topology.conf, when readable)"},
        {"blade-map", "FILE", NV_CLI_STR, &blade_map,
         .help = "blade map: leaves and the nic=, switch_port= and uplink= ports of each node"},
        {"write", NULL, NV_CLI_FLAG, &write, .ival = 1,
         .help = "also write SPOOL/jobs/JOBID/job.json atomically"},
        {"compact", NULL, NV_CLI_FLAG, &compact, .ival = 1, .help = "one-line JSON"},
        NV_OPT_JSON_ONLY(&json),
    };
    const nv_opt_spec spec = {
        "netvar: collect", NULL, help_head,
        help_tail,         0,    {{"Options:", "collect", opts, sizeof opts / sizeof opts[0]}}};
    int parsed = nv_opts_parse(&spec, argc, argv);
    if (parsed)
        return nv_opts_exit(parsed);
    unsigned long jobid = nv_cli_jobid("netvar: collect", argc, argv, optind);
    if (!jobid)
        return 2;
    const struct nv_config *site = nv_cli_config(config);
    if (!spool)
        spool = site->spool_dir;
    if (!model_path)
        model_path = site->model_file;

    double service_us = 0;
    char mu_source[PATH_MAX + 64] = "none: no model file", err[512];
    nv_model *m = nv_model_load(model_path, err, sizeof err);
    if (m) {
        const nv_calibration *cal = nv_model_calibration(m);
        if (cal && cal->service_us > 0) {
            service_us = cal->service_us;
            snprintf(mu_source, sizeof mu_source, "calibration in %s", model_path);
        } else {
            snprintf(mu_source, sizeof mu_source, "none: %s has no calibration", model_path);
        }
        nv_model_free(m);
    }

    char dir[PATH_MAX];
    if (nv_spool_jobs_path(spool, (long long)jobid, NULL, dir, sizeof dir)) {
        fprintf(stderr, "netvar: collect: spool path is too long\n");
        return 2;
    }
    nv_topo topo;
    nv_topo_init(&topo);
    char tpath[PATH_MAX];
    const char *sconf = getenv("SLURM_CONF"), *slash = NULL;
    if (!topology && sconf && sconf[0] == '/' && (slash = strrchr(sconf, '/')))
        snprintf(tpath, sizeof tpath, "%.*s/topology.conf", (int)(slash - sconf), sconf);
    else
        snprintf(tpath, sizeof tpath, "%s", topology ? topology : "/etc/slurm/topology.conf");
    if (blade_map && nv_topo_load_file(&topo, blade_map, false, err, sizeof err))
        fprintf(stderr, "netvar: collect: blade map: %s; its ports unknown\n", err);
    if ((topology || access(tpath, R_OK) == 0) &&
        nv_topo_load_file(&topo, tpath, true, err, sizeof err))
        fprintf(stderr, "netvar: collect: %s; leaves unknown\n", err);
    const nv_job_fabric fab = {&topo, site->uplink_rate_Bps, site->uplinks_per_leaf};
    json_object *job = nv_job_collect(dir, (long long)jobid, service_us, mu_source, &fab,
                                      log_stderr, NULL, err, sizeof err);
    nv_topo_free(&topo);
    if (!job) {
        fprintf(stderr, "netvar: collect: %s\n", err);
        return 1;
    }
    const char *text = json_object_to_json_string_ext(
        job, (compact ? JSON_C_TO_STRING_PLAIN : JSON_C_TO_STRING_PRETTY) |
                 JSON_C_TO_STRING_NOSLASHESCAPE);
    printf("%s\n", text);
    /* no node record merged: printed (it says why), but nothing to write */
    int rc = nv_json_num(nv_json_get(job, "records", json_type_object), "node_records") == 0;
    if (write && rc == 0) {
        char path[PATH_MAX + 16];
        snprintf(path, sizeof path, "%s/job.json", dir);
        if (nv_write_file_atomic(path, text, strlen(text), 0640, err, sizeof err)) {
            fprintf(stderr, "netvar: collect: %s\n", err);
            rc = 1;
        }
    }
    json_object_put(job);
    return rc;
}
