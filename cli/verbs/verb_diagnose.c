/* verb_diagnose.c - `netvar diagnose JOBID`: reads the job's per-node
 * counter records (and their --netvar-interval windows), places every port
 * on the topology, reads line rates, and prints the congestion diagnosis of
 * lib/diagnose/diagnose.h (pattern, mapping, background or inconclusive) with the
 * mapping metrics of lib/diagnose/diagnose_mapping.h when a traffic matrix is
 * recorded. */
#include <ctype.h>
#include <dirent.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "args.h"
#include "config.h"
#include "counters.h"
#include "ctr_line_rate.h"
#include "counters_topology.h"
#include "ctr_record.h"
#include "diagnose.h"
#include "diagnose_mapping.h"
#include "json_file.h"
#include "ve_records.h"
#include "verbs.h"

#define PROFILE_MAX_BYTES ((size_t)512 << 20) /* as the segment profile loader */

static void usage(FILE *out)
{
    fprintf(out,
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
        "\n"
        "Options:\n"
        "  --spool DIR          spool directory (default: SpoolDir of netvar.conf)\n"
        "  --config FILE        netvar.conf (default $NETVAR_CONF or the built-in path)\n"
        "  --topology FILE      Slurm topology.conf (default /etc/slurm/topology.conf)\n"
        "  --blade-map FILE     netvar blade map (node blade= switch= group=)\n"
        "  --line-rate GBPS     node link line rate, Gbit/s (default: sysfs of this host:\n"
        "                       InfiniBand `rate`, netdev `speed`, for the same port name)\n"
        "  --uplink-rate GBPS   network (switch/router) port line rate, Gbit/s\n"
        "  --sysfs-root DIR     prefix for the sysfs reads (test fixtures)\n"
        "  --traffic-matrix FILE  {\"ranks\": [node per rank], \"bytes\": [[sender x receiver]]}\n"
        "                       (default SPOOL/jobs/JOBID/traffic-matrix.json if present,\n"
        "                       else the \"traffic_matrix\" and \"placement\" the segment\n"
        "                       profiler wrote into SPOOL/jobs/JOBID/profiles/*.json: the\n"
        "                       step with the most bytes)\n"
        "  --json               machine-readable output\n"
        "  --help               this text\n"
        "\n"
        "Units: traffic in bytes and bytes/s, utilization and shares in %% of line rate,\n"
        "congested fraction in stall units per byte, windows in seconds.\n"
        "\n"
        "Exit status: 0 diagnosed (inconclusive is a diagnosis), 1 no records, no\n"
        "counters, or a node outside the topology (nothing is guessed), 2 usage.\n"
        "\n"
        "Example:\n"
        "  netvar diagnose 4711 --topology /etc/slurm/topology.conf --line-rate 100\n");
}


struct ports {
    nv_diag_port *v;
    size_t n, cap;
};

static nv_diag_port *add_port(struct ports *P)
{
    if (P->n == NV_DIAG_MAX_PORTS)
        return NULL;
    if (P->n == P->cap) {
        size_t c = P->cap ? 2 * P->cap : 64;
        nv_diag_port *p = realloc(P->v, c * sizeof *p);
        if (!p)
            return NULL;
        P->v = p;
        P->cap = c;
    }
    nv_diag_port *p = &P->v[P->n++];
    memset(p, 0, sizeof *p);
    return p;
}

static double dv(const nv_ctr_delta_value *v) { return v->valid ? (double)v->value : NAN; }

struct rates {
    double node_Bps, uplink_Bps;
    const char *sysfs_root;
};

static int ports_from_delta(struct ports *P, const nv_ctr_delta *d, unsigned window,
                            const nv_topo_node *tn, const struct rates *R, json_object *rec_rates)
{
    for (int i = 0; i < d->nports; i++) {
        const nv_ctr_port_delta *pd = &d->port[i];
        nv_diag_port *p = add_port(P);
        if (!p)
            return -1;
        int network = pd->kind && (!strcmp(pd->kind, "network_tile") || !strcmp(pd->kind, "switch_port"));
        p->kind = network ? NV_LINK_NETWORK : NV_LINK_ENDPOINT;
        snprintf(p->name, sizeof p->name, "%.40s:%.50s", tn->node, pd->name);
        snprintf(p->node, sizeof p->node, "%s", network ? "" : tn->node);
        snprintf(p->sw, sizeof p->sw, "%s", tn->sw[0] ? tn->sw : tn->blade[0] ? tn->blade : tn->node);
        p->window = window;
        p->window_s = (double)d->dt_ns / 1e9;
        double out = dv(&pd->f[NV_CTR_BYTES_OUT]), in = dv(&pd->f[NV_CTR_BYTES_IN]);
        /* full duplex: the busier direction is the one that can reach line rate */
        p->traffic_bytes = isnan(out) ? in : isnan(in) ? out : fmax(in, out);
        p->stall_units = dv(&pd->f[NV_CTR_STALL]);
        p->own_bytes = network ? NAN : p->traffic_bytes; /* whole nodes: the link is the job's */
        p->line_rate_Bps = network ? R->uplink_Bps : R->node_Bps;
        json_object *jr; /* the rate the node itself saw, recorded by spank_netvar */
        if (!(p->line_rate_Bps > 0) && rec_rates && json_object_object_get_ex(rec_rates, pd->name, &jr))
            p->line_rate_Bps = json_object_get_double(jr);
        if (!(p->line_rate_Bps > 0))
            p->line_rate_Bps = nv_ctr_port_line_rate(R->sysfs_root, d->backend, pd->name);
    }
    return 0;
}

static int is_node_record(const char *name)
{
    size_t n = strlen(name);
    return n > 10 && !strncmp(name, "node-", 5) && !strcmp(name + n - 5, ".json");
}

/* Mapping metrics of a placement (ranks: node per rank) and a traffic
 * matrix (bytes: rows sender x receiver); `what` names their source in the
 * note.  NULL with the reason in note when they cannot be computed. */
static json_object *mapping_of(json_object *ranks, json_object *bytes, const char *what, const nv_topo *topo,
                               const struct rates *R, char *note, size_t nlen)
{
    char err[300];
    const char *path = what;
    size_t n = json_object_array_length(ranks);
    if (n == 0 || n > NV_MAPPING_MAX_RANKS || json_object_array_length(bytes) != n) {
        snprintf(note, nlen, "traffic matrix %.200s: %zu ranks and %zu rows (1 to %d, equal); "
                             "mapping metrics not computed", path, n,
                 json_object_array_length(bytes), NV_MAPPING_MAX_RANKS);
        return NULL;
    }
    nv_rank_place *pl = calloc(n, sizeof *pl);
    double *b = calloc(n * n, sizeof *b);
    const char **names[3];
    size_t cnt[3] = {0};
    for (int k = 0; k < 3; k++)
        names[k] = calloc(n, sizeof *names[k]);
    json_object *out = NULL;
    if (!pl || !b || !names[0] || !names[1] || !names[2]) {
        snprintf(note, nlen, "out of memory for the traffic matrix");
        goto done;
    }
    for (size_t r = 0; r < n; r++) {
        const char *node = json_object_get_string(json_object_array_get_idx(ranks, r));
        const nv_topo_node *tn = node ? nv_topo_find(topo, node) : NULL;
        if (!tn) {
            snprintf(note, nlen, "traffic matrix %.200s: rank %zu runs on node %.60s, which is not in "
                                 "the topology; mapping metrics not computed", path, r,
                     node ? node : "(none)");
            goto done;
        }
        const char *key[3] = {tn->node, tn->sw[0] ? tn->sw : tn->node, tn->group[0] ? tn->group : "top"};
        unsigned id[3];
        for (int k = 0; k < 3; k++) {
            size_t j = 0;
            while (j < cnt[k] && strcmp(names[k][j], key[k]))
                j++;
            if (j == cnt[k])
                names[k][cnt[k]++] = key[k];
            id[k] = (unsigned)j;
        }
        pl[r] = (nv_rank_place){id[0], id[1], id[2]};
        json_object *row = json_object_array_get_idx(bytes, r);
        if (!json_object_is_type(row, json_type_array) || json_object_array_length(row) != n) {
            snprintf(note, nlen, "traffic matrix %.200s: row %zu is not %zu numbers", path, r, n);
            goto done;
        }
        for (size_t c = 0; c < n; c++)
            b[r * n + c] = json_object_get_double(json_object_array_get_idx(row, c));
    }
    nv_link_rates lr = {R->node_Bps, R->uplink_Bps, R->uplink_Bps};
    nv_mapping_metrics mm;
    if (nv_mapping_metrics_compute(pl, n, b, &lr, &mm, err, sizeof err)) {
        snprintf(note, nlen, "traffic matrix %.200s: %s", path, err);
        goto done;
    }
    out = json_object_new_object();
    json_object_object_add(out, "total_bytes", json_object_new_double(mm.total_bytes));
    json_object_object_add(out, "hop_bytes", json_object_new_double(mm.hop_bytes));
    json_object_object_add(out, "mean_hops", json_object_new_double(mm.mean_hops));
    json_object_object_add(out, "worst_link", json_object_new_string(mm.worst_link));
    json_object_object_add(out, "worst_link_bytes", json_object_new_double(mm.worst_link_bytes));
    json_object_object_add(out, "worst_link_seconds",
                           isfinite(mm.worst_link_seconds) ? json_object_new_double(mm.worst_link_seconds) : NULL);
    snprintf(note, nlen, "traffic matrix %.200s", path);
done:
    free(pl);
    free(b);
    for (int k = 0; k < 3; k++)
        free(names[k]);
    return out;
}

/* the traffic matrix file given or in the spool */
static json_object *mapping_json(const char *path, const nv_topo *topo, const struct rates *R,
                                 char *note, size_t nlen)
{
    char err[300];
    json_object *tm = nv_ve_read_record(path, err, sizeof err), *ranks, *bytes;
    if (!tm || !json_object_object_get_ex(tm, "ranks", &ranks) ||
        !json_object_object_get_ex(tm, "bytes", &bytes) ||
        !json_object_is_type(ranks, json_type_array) || !json_object_is_type(bytes, json_type_array)) {
        snprintf(note, nlen, "traffic matrix %.200s: %.200s; mapping metrics not computed", path,
                 tm ? "needs \"ranks\" and \"bytes\" arrays" : err);
        json_object_put(tm);
        return NULL;
    }
    json_object *out = mapping_of(ranks, bytes, path, topo, R, note, nlen);
    json_object_put(tm);
    return out;
}

static double matrix_total(json_object *bytes)
{
    double t = 0;
    for (size_t r = 0; r < json_object_array_length(bytes); r++) {
        json_object *row = json_object_array_get_idx(bytes, r);
        for (size_t c = 0; json_object_is_type(row, json_type_array) && c < json_object_array_length(row); c++)
            t += json_object_get_double(json_object_array_get_idx(row, c));
    }
    return isfinite(t) ? t : 0;
}

/* The traffic matrix the segment profiler recorded in the job's profiles
 * (DIR/profiles/NAME.json: "traffic_matrix".bytes and "placement"): the step
 * that moved the most bytes stands for the job. */
static json_object *mapping_from_profiles(const char *dir, const nv_topo *topo, const struct rates *R,
                                          char *note, size_t nlen)
{
    char pdir[PATH_MAX + 16], best_path[PATH_MAX + 300] = "", err[600];
    snprintf(pdir, sizeof pdir, "%s/profiles", dir);
    DIR *d = opendir(pdir);
    size_t with_matrix = 0, without = 0;
    double best_total = -1;
    json_object *best = NULL;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") || e->d_name[0] == '.')
            continue;
        char path[PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", pdir, e->d_name);
        json_object *pr = nv_json_read_file(path, PROFILE_MAX_BYTES, err, sizeof err), *tm, *bytes, *pl;
        if (pr && json_object_object_get_ex(pr, "traffic_matrix", &tm) &&
            json_object_object_get_ex(tm, "bytes", &bytes) && json_object_is_type(bytes, json_type_array) &&
            json_object_object_get_ex(pr, "placement", &pl) && json_object_is_type(pl, json_type_array)) {
            with_matrix++;
            double t = matrix_total(bytes);
            if (t > best_total) {
                json_object_put(best);
                best = pr;
                best_total = t;
                snprintf(best_path, sizeof best_path, "%s", path);
                continue;
            }
        } else {
            without++;
        }
        json_object_put(pr);
    }
    if (d)
        closedir(d);
    if (!best) {
        snprintf(note, nlen, "no traffic matrix recorded (%.200s/traffic-matrix.json absent, and %zu "
                             "profile(s) in %.200s without \"traffic_matrix\" and \"placement\"): hop-bytes "
                             "and worst-case link load not computed, the job's share of network links "
                             "unknown", dir, without, pdir);
        return NULL;
    }
    json_object *tm = json_object_object_get(best, "traffic_matrix");
    char what[PATH_MAX + 400];
    snprintf(what, sizeof what, "%s (segment profiler; the step with the most bytes of %zu)", best_path,
             with_matrix);
    json_object *out = mapping_of(json_object_object_get(best, "placement"), json_object_object_get(tm, "bytes"),
                                  what, topo, R, note, nlen);
    json_object_put(best);
    return out;
}

int verb_diagnose(int argc, char **argv)
{
    static const struct option opts[] = {
        {"spool", required_argument, 0, 's'}, {"config", required_argument, 0, 'c'},
        {"topology", required_argument, 0, 't'}, {"blade-map", required_argument, 0, 'b'},
        {"line-rate", required_argument, 0, 'r'}, {"uplink-rate", required_argument, 0, 'u'},
        {"sysfs-root", required_argument, 0, 'S'}, {"traffic-matrix", required_argument, 0, 'M'},
        {"json", no_argument, 0, 'j'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *spool = NULL, *config = getenv("NETVAR_CONF"), *topo_path = NULL, *map_path = NULL;
    const char *tm_path = NULL;
    struct rates R = {NAN, NAN, ""};
    int json = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 's': spool = optarg; break;
        case 'c': config = optarg; break;
        case 't': topo_path = optarg; break;
        case 'b': map_path = optarg; break;
        case 'S': R.sysfs_root = optarg; break;
        case 'M': tm_path = optarg; break;
        case 'j': json = 1; break;
        case 'r':
        case 'u': {
            double g = strtod(optarg, &end);
            if (*end || !(g > 0) || g > 1e5) {
                fprintf(stderr, "netvar diagnose: --%s '%s': expected Gbit/s > 0\n",
                        c == 'r' ? "line-rate" : "uplink-rate", optarg);
                return 2;
            }
            *(c == 'r' ? &R.node_Bps : &R.uplink_Bps) = g * 1e9 / 8;
            break;
        }
        case 'h': usage(stdout); return 0;
        default: return 2;
        }
    }
    unsigned long jobid = nv_cli_jobid("netvar diagnose", argc, argv, optind);
    if (!jobid)
        return 2;
    const struct nv_config *site = nv_cli_config(config);
    if (!spool)
        spool = site->spool_dir;

    char err[600], dir[PATH_MAX];
    nv_topo topo;
    nv_topo_init(&topo);
    if (!topo_path && !map_path && !access("/etc/slurm/topology.conf", R_OK))
        topo_path = "/etc/slurm/topology.conf";
    if (!topo_path && !map_path) {
        fprintf(stderr, "netvar diagnose: no topology (give --topology or --blade-map); without "
                        "it no port can be placed; no diagnosis\n");
        return 1;
    }
    if ((map_path && nv_topo_load_file(&topo, map_path, false, err, sizeof err)) ||
        (topo_path && nv_topo_load_file(&topo, topo_path, true, err, sizeof err))) {
        fprintf(stderr, "netvar diagnose: %s; no diagnosis\n", err);
        nv_topo_free(&topo);
        return 1;
    }
    if (snprintf(dir, sizeof dir, "%s/jobs/%lu", spool, jobid) >= (int)sizeof dir) {
        fprintf(stderr, "netvar diagnose: spool path is too long\n");
        nv_topo_free(&topo);
        return 1;
    }
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "netvar diagnose: %s: cannot open the job's records; no diagnosis\n", dir);
        nv_topo_free(&topo);
        return 1;
    }
    struct ports P = {0};
    nv_ctr_delta *delta = malloc(sizeof *delta);
    size_t records = 0, with_counters = 0;
    int rc = 0;
    struct dirent *e;
    json_object *nodes = json_object_new_array();
    while (delta && (e = readdir(d)) && rc == 0) {
        if (!is_node_record(e->d_name))
            continue;
        char path[PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        json_object *rec = nv_ve_read_record(path, err, sizeof err), *v, *jd;
        if (!rec) {
            fprintf(stderr, "netvar diagnose: %s: %s; skipped it\n", path, err);
            continue;
        }
        records++;
        const char *node = json_object_object_get_ex(rec, "node", &v) ? json_object_get_string(v) : NULL;
        const nv_topo_node *tn = node ? nv_topo_find(&topo, node) : NULL;
        if (!tn) {
            fprintf(stderr, "netvar diagnose: %s: node %.60s is not in the topology (%s); "
                            "counters from an unknown topology cannot be placed; no diagnosis\n",
                    path, node ? node : "(none)", topo_path ? topo_path : map_path);
            rc = 1;
        } else {
            json_object_array_add(nodes, json_object_new_string(node));
            json_object *samples, *windows, *rec_rates = NULL;
            size_t used = 0;
            json_object_object_get_ex(rec, "line_rate_Bps", &rec_rates);
            if (json_object_object_get_ex(rec, "samples", &samples) &&
                json_object_object_get_ex(samples, "windows", &windows) &&
                json_object_is_type(windows, json_type_array)) {
                for (size_t k = 0; k < json_object_array_length(windows) && rc == 0; k++) {
                    json_object *w = json_object_array_get_idx(windows, k);
                    if (!json_object_object_get_ex(w, "delta", &jd) ||
                        nv_ctr_delta_from_json(jd, delta, err, sizeof err))
                        continue;
                    if (ports_from_delta(&P, delta, (unsigned)k, tn, &R, rec_rates))
                        rc = 1;
                    used++;
                }
            }
            if (!used && json_object_object_get_ex(rec, "delta", &jd) && jd) {
                if (nv_ctr_delta_from_json(jd, delta, err, sizeof err))
                    fprintf(stderr, "netvar diagnose: %s: delta: %s; skipped it\n", path, err);
                else if (ports_from_delta(&P, delta, 0, tn, &R, rec_rates))
                    rc = 1;
                else
                    used++;
            }
            with_counters += used > 0;
        }
        json_object_put(rec);
    }
    closedir(d);
    free(delta);
    if (rc == 0 && with_counters == 0) {
        fprintf(stderr, "netvar diagnose: job %lu: %s; no diagnosis\n", jobid,
                records ? "no node record holds counters (collected without counters)"
                        : "no node records in the spool");
        rc = 1;
    }
    nv_diagnosis dg = {0};
    if (rc == 0 && nv_diagnose(P.v, P.n, NULL, &dg, err, sizeof err)) {
        fprintf(stderr, "netvar diagnose: %s\n", err);
        rc = 1;
    }
    if (rc) {
        free(P.v);
        json_object_put(nodes);
        nv_topo_free(&topo);
        return rc;
    }
    char tm_default[PATH_MAX + 32], note[1200];
    snprintf(tm_default, sizeof tm_default, "%s/traffic-matrix.json", dir);
    if (!tm_path && !access(tm_default, F_OK))
        tm_path = tm_default;
    json_object *mapping = tm_path ? mapping_json(tm_path, &topo, &R, note, sizeof note)
                                   : mapping_from_profiles(dir, &topo, &R, note, sizeof note);
    const nv_diag_port *root = dg.root >= 0 ? &P.v[dg.root] : NULL;
    char where[300] = "none";
    if (root)
        snprintf(where, sizeof where, "%s: %s (switch %s)",
                 root->kind == NV_LINK_ENDPOINT ? "endpoint, the node's own link" : "inside the network",
                 root->name, root->sw);
    if (json) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "job_id", json_object_new_int64((int64_t)jobid));
        json_object_object_add(o, "nodes", nodes);
        json_object_object_add(o, "cause", json_object_new_string(nv_diag_cause_name(dg.cause)));
        json_object_object_add(o, "reason", json_object_new_string(dg.reason));
        json_object_object_add(o, "advice", json_object_new_string(nv_diag_cause_advice(dg.cause)));
        json_object_object_add(o, "root", root ? json_object_new_string(where) : NULL);
        json_object_object_add(o, "windows", json_object_new_int64((int64_t)dg.n_windows));
        json_object_object_add(o, "windows_judged", json_object_new_int64((int64_t)dg.windows_judged));
        json_object *ports = json_object_new_array();
        for (size_t i = 0; i < P.n; i++) {
            const nv_diag_port_result *r = &dg.per_port[i];
            json_object *po = json_object_new_object();
            json_object_object_add(po, "port", json_object_new_string(P.v[i].name));
            json_object_object_add(po, "kind", json_object_new_string(P.v[i].kind == NV_LINK_ENDPOINT ? "endpoint" : "network"));
            json_object_object_add(po, "switch", json_object_new_string(P.v[i].sw));
            json_object_object_add(po, "window", json_object_new_int((int)P.v[i].window));
            json_object_object_add(po, "window_s", json_object_new_double(P.v[i].window_s));
            json_object_object_add(po, "traffic_bytes", json_object_new_double(isfinite(P.v[i].traffic_bytes) ? P.v[i].traffic_bytes : 0));
            json_object_object_add(po, "congested_fraction", isfinite(r->congested_fraction) ? json_object_new_double(r->congested_fraction) : NULL);
            json_object_object_add(po, "utilization", isfinite(r->utilization) ? json_object_new_double(r->utilization) : NULL);
            json_object_object_add(po, "congested", r->congested < 0 ? NULL : json_object_new_boolean(r->congested));
            json_object_array_add(ports, po);
        }
        json_object_object_add(o, "ports", ports);
        json_object_object_add(o, "mapping", mapping);
        json_object_object_add(o, "mapping_note", json_object_new_string(note));
        printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(o);
    } else {
        printf("job %lu: %zu node records, %zu port readings in %zu window(s), %zu judged\n", jobid,
               records, P.n, dg.n_windows, dg.windows_judged);
        printf("cause:  %s\n", nv_diag_cause_name(dg.cause));
        printf("reason: %s\n", dg.reason);
        printf("root:   %s\n", where);
        printf("advice: %s\n", nv_diag_cause_advice(dg.cause));
        size_t shown = 0;
        for (size_t i = 0; i < P.n; i++)
            if (dg.per_port[i].congested == 1 && shown++ < 10)
                printf("  congested: %-30s window %u (%.1f s): %.3g bytes/s, %.1f %% of line rate, "
                       "congested fraction %.3f\n", P.v[i].name, P.v[i].window, P.v[i].window_s,
                       P.v[i].traffic_bytes / P.v[i].window_s, 100 * dg.per_port[i].utilization,
                       dg.per_port[i].congested_fraction);
        if (mapping) {
            json_object *v;
            printf("mapping: hop-bytes %.4g byte-links, mean %.2f links per byte, worst-case link %s "
                   "with %.4g bytes",
                   json_object_get_double(json_object_object_get(mapping, "hop_bytes")),
                   json_object_get_double(json_object_object_get(mapping, "mean_hops")),
                   json_object_get_string(json_object_object_get(mapping, "worst_link")),
                   json_object_get_double(json_object_object_get(mapping, "worst_link_bytes")));
            if (json_object_object_get_ex(mapping, "worst_link_seconds", &v) && v)
                printf(" (%.3g s at line rate)", json_object_get_double(v));
            printf("\n");
            json_object_put(mapping);
        } else {
            printf("mapping: %s\n", note);
        }
        json_object_put(nodes);
    }
    nv_diagnosis_free(&dg);
    free(P.v);
    nv_topo_free(&topo);
    return 0;
}
