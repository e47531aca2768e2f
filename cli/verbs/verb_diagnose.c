/* verb_diagnose.c - `netvar diagnose JOBID`: the congestion diagnosis of a
 * finished job (pattern, mapping, background or inconclusive) with the
 * mapping metrics when a traffic matrix is recorded, as text or JSON.  The
 * diagnosis is computed by lib/report/job_diagnose.h; this file parses the
 * options and renders it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "args.h"
#include "opts.h"
#include "config.h"
#include "job_diagnose.h"
#include "nv_json.h"
#include "verbs.h"

static const char help_head[] =
    "Usage: netvar diagnose JOBID [--spool DIR] [--config FILE] [--topology FILE]\n"
    "                       [--blade-map FILE] [--line-rate GBPS] [--uplink-rate GBPS]\n"
    "                       [--sysfs-root DIR] [--traffic-matrix FILE] [--json]\n"
    "\n"
    "Diagnoses the network congestion a finished job met, after Taffet's thesis\n"
    "(ch. 4).  For every port and time window (the --netvar-interval samples where\n"
    "recorded, else the whole job) it computes the traffic and the congested\n"
    "fraction (stall or wait units over traffic bytes), finds the congested ports,\n"
    "locates the root on the topology (a node's own link, or inside the network),\n"
    "and names the cause:\n"
    "  communication pattern    endpoint congestion, node link near line rate;\n"
    "  mapping                  network congestion, the job's own traffic near line rate;\n"
    "  background interference  congested links carry little of the job's own traffic;\n"
    "  inconclusive             with the reason (too little data, rates unknown, ...).\n"
    "Node links are taken to carry only this job's traffic (whole nodes).  The job's\n"
    "traffic on network links needs a traffic matrix; without one, congestion inside\n"
    "the network is reported inconclusive.  With a traffic matrix it also prints the\n"
    "placement's hop-bytes and Hoefler-Snir worst-case link load.\n"
    "\n";

static const char help_tail[] =
    "\n"
    "Units: traffic in bytes and bytes/s, utilization and shares in % of line rate\n"
    "(a fraction 0..1 in --json), congested fraction in stall units per byte,\n"
    "windows in seconds; JSON names carry their unit (window_s, traffic_bytes,\n"
    "hop_bytes, worst_link_seconds).\n"
    "\n"
    "Exit status: 0 diagnosed (inconclusive is a diagnosis), 1 no records, no\n"
    "counters, or a node outside the topology (nothing is guessed), 2 usage.\n"
    "\n"
    "Example:\n"
    "  netvar diagnose 4711 --topology /etc/slurm/topology.conf --line-rate 100\n";

static void log_stderr(void *ctx, const char *line)
{
    (void)ctx;
    fprintf(stderr, "netvar diagnose: %s\n", line);
}

/* where the root of the congestion lies, in words */
static void root_text(const nv_job_diagnosis *d, char *out, size_t n)
{
    const nv_diag_port *root = d->dg.root >= 0 ? &d->ports[d->dg.root] : NULL;
    snprintf(out, n, "none");
    if (root)
        snprintf(out, n, "%s: %s (switch %s)",
                 root->kind == NV_LINK_ENDPOINT ? "endpoint, the node's own link"
                                                : "inside the network",
                 root->name, root->sw);
}

static json_object *diagnosis_json(const nv_job_diagnosis *d)
{
    char where[300];
    root_text(d, where, sizeof where);
    json_object *o = json_object_new_object(), *nodes = json_object_new_array();
    for (size_t i = 0; i < d->n_nodes; i++)
        json_object_array_add(nodes, json_object_new_string(d->nodes[i]));
    json_object_object_add(o, "job_id", json_object_new_int64((int64_t)d->job_id));
    json_object_object_add(o, "nodes", nodes);
    json_object_object_add(o, "cause", json_object_new_string(nv_diag_cause_name(d->dg.cause)));
    json_object_object_add(o, "reason", json_object_new_string(d->dg.reason));
    json_object_object_add(o, "advice", json_object_new_string(nv_diag_cause_advice(d->dg.cause)));
    json_object_object_add(o, "root", d->dg.root >= 0 ? json_object_new_string(where) : NULL);
    json_object_object_add(o, "windows", json_object_new_int64((int64_t)d->dg.n_windows));
    json_object_object_add(o, "windows_judged",
                           json_object_new_int64((int64_t)d->dg.windows_judged));
    json_object *ports = json_object_new_array();
    for (size_t i = 0; i < d->n_ports; i++) {
        const nv_diag_port *p = &d->ports[i];
        const nv_diag_port_result *r = &d->dg.per_port[i];
        json_object *po = json_object_new_object();
        json_object_object_add(po, "port", json_object_new_string(p->name));
        json_object_object_add(
            po, "kind",
            json_object_new_string(p->kind == NV_LINK_ENDPOINT ? "endpoint" : "network"));
        json_object_object_add(po, "switch", json_object_new_string(p->sw));
        json_object_object_add(po, "window", json_object_new_int((int)p->window));
        json_object_object_add(po, "window_s", nv_json_new_num(p->window_s));
        json_object_object_add(po, "traffic_bytes",
                               nv_json_new_num(isfinite(p->traffic_bytes) ? p->traffic_bytes : 0));
        json_object_object_add(po, "congested_fraction", nv_json_new_num(r->congested_fraction));
        json_object_object_add(po, "utilization", nv_json_new_num(r->utilization));
        json_object_object_add(po, "congested",
                               r->congested < 0 ? NULL : json_object_new_boolean(r->congested));
        json_object_array_add(ports, po);
    }
    json_object_object_add(o, "ports", ports);
    json_object *m = NULL;
    if (d->has_mapping) {
        const nv_mapping_metrics *mm = &d->mapping;
        m = json_object_new_object();
        json_object_object_add(m, "total_bytes", nv_json_new_num(mm->total_bytes));
        json_object_object_add(m, "hop_bytes", nv_json_new_num(mm->hop_bytes));
        json_object_object_add(m, "mean_hops", nv_json_new_num(mm->mean_hops));
        json_object_object_add(m, "worst_link", json_object_new_string(mm->worst_link));
        json_object_object_add(m, "worst_link_bytes", nv_json_new_num(mm->worst_link_bytes));
        json_object_object_add(m, "worst_link_seconds", nv_json_new_num(mm->worst_link_seconds));
    }
    json_object_object_add(o, "mapping", m);
    json_object_object_add(o, "mapping_note", json_object_new_string(d->mapping_note));
    return o;
}

static void diagnosis_text(const nv_job_diagnosis *d)
{
    char where[300];
    root_text(d, where, sizeof where);
    printf("job %lu: %zu node records, %zu port readings in %zu window(s), %zu judged\n", d->job_id,
           d->records, d->n_ports, d->dg.n_windows, d->dg.windows_judged);
    printf("cause:  %s\n", nv_diag_cause_name(d->dg.cause));
    printf("reason: %s\n", d->dg.reason);
    printf("root:   %s\n", where);
    printf("advice: %s\n", nv_diag_cause_advice(d->dg.cause));
    size_t shown = 0;
    for (size_t i = 0; i < d->n_ports; i++) {
        const nv_diag_port *p = &d->ports[i];
        if (d->dg.per_port[i].congested == 1 && shown++ < 10)
            printf("  congested: %-30s window %u (%.1f s): %.3g bytes/s, %.1f %% of line rate, "
                   "congested fraction %.3f\n",
                   p->name, p->window, p->window_s, p->traffic_bytes / p->window_s,
                   100 * d->dg.per_port[i].utilization, d->dg.per_port[i].congested_fraction);
    }
    if (d->has_mapping) {
        const nv_mapping_metrics *mm = &d->mapping;
        printf("mapping: hop-bytes %.4g byte-links, mean %.2f links per byte, worst-case link %s "
               "with %.4g bytes",
               mm->hop_bytes, mm->mean_hops, mm->worst_link, mm->worst_link_bytes);
        if (isfinite(mm->worst_link_seconds))
            printf(" (%.3g s at line rate)", mm->worst_link_seconds);
        printf("\n");
    } else {
        printf("mapping: %s\n", d->mapping_note);
    }
}

/* --line-rate and --uplink-rate: Gbit/s into bytes/s */
static int set_rate(const nv_opt *o, void *to, const char *arg, char *err, size_t errlen)
{
    char *end;
    double g = strtod(arg, &end);
    if (end == arg || *end || !(g > 0) || g > 1e5)
        return snprintf(err, errlen, "--%s '%.40s': expected Gbit/s > 0 (at most 1e5)", o->name,
                        arg),
               -1;
    *(double *)to = g * 1e9 / 8;
    return 0;
}

int verb_diagnose(int argc, char **argv)
{
    const char *spool = NULL, *config = getenv("NETVAR_CONF");
    nv_job_diagnose_opts o;
    nv_job_diagnose_opts_default(&o);
    int json = 0;
    const nv_opt opts[] = {
        NV_CLI_OPT_SPOOL(&spool),
        {"config", "FILE", NV_CLI_STR, &config,
         .help = "netvar.conf (default $NETVAR_CONF or the built-in path)"},
        {"topology", "FILE", NV_CLI_STR, &o.topology,
         .help = "Slurm topology.conf (default /etc/slurm/topology.conf)"},
        {"blade-map", "FILE", NV_CLI_STR, &o.blade_map,
         .help = "netvar blade map (node blade= switch= group=)"},
        {"line-rate", "GBPS", NV_CLI_CALL, &o.node_Bps, .call = set_rate,
         .help = "node link line rate, Gbit/s (> 0, at most 1e5; default: sysfs of this host: "
                 "InfiniBand `rate`, netdev `speed`, for the same port name)"},
        {"uplink-rate", "GBPS", NV_CLI_CALL, &o.uplink_Bps, .call = set_rate,
         .help = "network (switch/router) port line rate, Gbit/s (> 0, at most 1e5)"},
        {"sysfs-root", "DIR", NV_CLI_STR, &o.sysfs_root,
         .help = "prefix for the sysfs reads (test fixtures)"},
        {"traffic-matrix", "FILE", NV_CLI_STR, &o.traffic_matrix,
         .help = "{\"ranks\": [node per rank], \"bytes\": [[sender x receiver]]} (default "
                 "SPOOL/jobs/JOBID/traffic-matrix.json if present, else the \"traffic_matrix\" "
                 "and \"placement\" the segment profiler wrote into "
                 "SPOOL/jobs/JOBID/profiles/*.json: the step with the most bytes)"},
        {"json", NULL, NV_CLI_FLAG, &json, .ival = 1, .help = "machine-readable output"},
    };
    const nv_opt_spec spec = {
        "netvar diagnose", NULL, help_head,
        help_tail,         0,    {{"Options:", "diagnose", opts, sizeof opts / sizeof opts[0]}}};
    int parsed = nv_opts_parse(&spec, argc, argv);
    if (parsed)
        return nv_opts_exit(parsed);
    unsigned long jobid = nv_cli_jobid("netvar diagnose", argc, argv, optind);
    if (!jobid)
        return 2;
    const struct nv_config *site = nv_cli_config(config);
    if (!spool)
        spool = site->spool_dir;
    if (!o.topology && !o.blade_map && !access("/etc/slurm/topology.conf", R_OK))
        o.topology = "/etc/slurm/topology.conf";
    if (!o.topology && !o.blade_map) {
        fprintf(stderr, "netvar diagnose: no topology (give --topology or --blade-map); without "
                        "it no port can be placed; no diagnosis\n");
        return 1;
    }

    nv_job_diagnosis d;
    char err[1200];
    if (nv_job_diagnose(spool, jobid, &o, log_stderr, NULL, &d, err, sizeof err)) {
        fprintf(stderr, "netvar diagnose: %s\n", err);
        nv_job_diagnosis_free(&d);
        return 1;
    }
    if (json) {
        json_object *jo = diagnosis_json(&d);
        nv_cli_print_json(jo);
        json_object_put(jo);
    } else {
        diagnosis_text(&d);
    }
    nv_job_diagnosis_free(&d);
    return 0;
}
