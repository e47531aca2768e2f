/* job_diagnose.c - `netvar diagnose JOBID` computed into a struct
 * (job_diagnose.h). */
#include "job_diagnose.h"
#include "job_record.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counters.h"
#include "ctr_line_rate.h"
#include "ctr_record.h"
#include "json_file.h"
#include "safe_open.h"
#include "nv_err.h"
#include "nv_json.h"
#include "report_logic.h"
#include "ve_records.h"

#define PROFILE_MAX_BYTES ((size_t)512 << 20) /* as the segment profile loader */

void nv_job_diagnose_opts_default(nv_job_diagnose_opts *o)
{
    memset(o, 0, sizeof *o);
    o->node_Bps = o->uplink_Bps = NAN;
    o->sysfs_root = "";
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

static double value_of(const nv_ctr_delta_value *v)
{
    return v->valid ? (double)v->value : NAN;
}

/* One port reading per port of the delta, placed on node tn's switch. */
static int ports_from_delta(struct ports *P, const nv_ctr_delta *d, unsigned window,
                            const nv_topo_node *tn, const nv_job_diagnose_opts *o,
                            json_object *rec_rates)
{
    for (int i = 0; i < d->nports; i++) {
        const nv_ctr_port_delta *pd = &d->port[i];
        nv_diag_port *p = add_port(P);
        if (!p)
            return -1;
        int network =
            pd->kind && (!strcmp(pd->kind, "network_tile") || !strcmp(pd->kind, "switch_port"));
        p->kind = network ? NV_LINK_NETWORK : NV_LINK_ENDPOINT;
        snprintf(p->name, sizeof p->name, "%.40s:%.50s", tn->node, pd->name);
        snprintf(p->node, sizeof p->node, "%s", network ? "" : tn->node);
        snprintf(p->sw, sizeof p->sw, "%s",
                 tn->sw[0]      ? tn->sw
                 : tn->blade[0] ? tn->blade
                                : tn->node);
        p->window = window;
        p->window_s = (double)d->dt_ns / 1e9;
        double out = value_of(&pd->f[NV_CTR_BYTES_OUT]), in = value_of(&pd->f[NV_CTR_BYTES_IN]);
        /* full duplex: the busier direction is the one that can reach line rate */
        p->traffic_bytes = isnan(out) ? in : isnan(in) ? out : fmax(in, out);
        p->stall_units = value_of(&pd->f[NV_CTR_STALL]);
        p->own_bytes = network ? NAN : p->traffic_bytes; /* whole nodes: the link is the job's */
        p->line_rate_Bps = network ? o->uplink_Bps : o->node_Bps;
        if (!(p->line_rate_Bps > 0)) /* the rate the node itself saw, recorded by spank_netvar */
            p->line_rate_Bps = nv_json_num(rec_rates, pd->name);
        if (!(p->line_rate_Bps > 0))
            p->line_rate_Bps = nv_ctr_port_line_rate(o->sysfs_root, d->backend, pd->name);
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
 * note.  0 with d->mapping, or -1 with the reason in the note. */
static int mapping_of(json_object *ranks, json_object *bytes, const char *what, const nv_topo *topo,
                      const nv_job_diagnose_opts *o, nv_job_diagnosis *d)
{
    char *note = d->mapping_note, err[300];
    size_t nlen = sizeof d->mapping_note, n = json_object_array_length(ranks);
    if (n == 0 || n > NV_MAPPING_MAX_RANKS || json_object_array_length(bytes) != n)
        return nv_err(note, nlen,
                      "traffic matrix %.200s: %zu ranks and %zu rows (1 to %d, equal); "
                      "mapping metrics not computed",
                      what, n, json_object_array_length(bytes), NV_MAPPING_MAX_RANKS);
    nv_rank_place *pl = calloc(n, sizeof *pl);
    double *b = calloc(n * n, sizeof *b);
    const char **names[3];
    size_t cnt[3] = {0};
    for (int k = 0; k < 3; k++)
        names[k] = calloc(n, sizeof *names[k]);
    int rc = -1;
    if (!pl || !b || !names[0] || !names[1] || !names[2]) {
        nv_err(note, nlen, "out of memory for the traffic matrix");
        goto done;
    }
    for (size_t r = 0; r < n; r++) {
        const char *node = json_object_get_string(json_object_array_get_idx(ranks, r));
        const nv_topo_node *tn = node ? nv_topo_find(topo, node) : NULL;
        if (!tn) {
            nv_err(note, nlen,
                   "traffic matrix %.200s: rank %zu runs on node %.60s, which is not in "
                   "the topology; mapping metrics not computed",
                   what, r, node ? node : "(none)");
            goto done;
        }
        /* dense ids of its node, leaf switch and group, in order of appearance */
        const char *key[3] = {tn->node, tn->sw[0] ? tn->sw : tn->node,
                              tn->group[0] ? tn->group : "top"};
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
            nv_err(note, nlen, "traffic matrix %.200s: row %zu is not %zu numbers", what, r, n);
            goto done;
        }
        for (size_t c = 0; c < n; c++)
            b[r * n + c] = json_object_get_double(json_object_array_get_idx(row, c));
    }
    nv_link_rates lr = {o->node_Bps, o->uplink_Bps, o->uplink_Bps};
    if (nv_mapping_metrics_compute(pl, n, b, &lr, &d->mapping, err, sizeof err)) {
        nv_err(note, nlen, "traffic matrix %.200s: %s", what, err);
        goto done;
    }
    d->has_mapping = 1;
    snprintf(note, nlen, "traffic matrix %.200s", what);
    rc = 0;
done:
    free(pl);
    free(b);
    for (int k = 0; k < 3; k++)
        free(names[k]);
    return rc;
}

/* the traffic matrix file given or in the spool: {"ranks": [...], "bytes": [[...]]} */
static void mapping_from_file(const char *path, const nv_topo *topo, const nv_job_diagnose_opts *o,
                              nv_job_diagnosis *d)
{
    char err[300];
    json_object *tm = nv_ve_read_record(path, err, sizeof err);
    json_object *ranks = nv_json_get(tm, "ranks", json_type_array);
    json_object *bytes = nv_json_get(tm, "bytes", json_type_array);
    if (!ranks || !bytes)
        nv_err(d->mapping_note, sizeof d->mapping_note,
               "traffic matrix %.200s: %.200s; mapping metrics not computed", path,
               tm ? "needs \"ranks\" and \"bytes\" arrays" : err);
    else
        mapping_of(ranks, bytes, path, topo, o, d);
    json_object_put(tm);
}

/* The traffic matrix the segment profiler recorded in the job's profiles
 * (DIR/profiles/NAME.json: "traffic_matrix".bytes and "placement"): the step
 * that moved the most bytes stands for the job. */
static void mapping_from_profiles(const char *dir, const nv_topo *topo,
                                  const nv_job_diagnose_opts *o, nv_job_diagnosis *d)
{
    char pdir[PATH_MAX + 16], best_path[PATH_MAX + 300] = "", err[600];
    snprintf(pdir, sizeof pdir, "%s/profiles", dir);
    uid_t owner; /* the job's user, who owns profiles/ */
    DIR *dd = nv_dir_owner(pdir, &owner, err, sizeof err) ? NULL : opendir(pdir);
    size_t with_matrix = 0, without = 0;
    double best_total = -1;
    json_object *best = NULL;
    struct dirent *e;
    while (dd && (e = readdir(dd))) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") || !nv_plain_name(e->d_name))
            continue; /* names users chose: only plain ones (no terminal escapes) */
        char path[PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", pdir, e->d_name);
        json_object *pr = nv_json_read_owned(path, owner, PROFILE_MAX_BYTES, err, sizeof err);
        double t = nv_profile_matrix_bytes(pr);
        if (t >= 0) {
            with_matrix++;
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
    if (dd)
        closedir(dd);
    if (!best) {
        nv_err(
            d->mapping_note, sizeof d->mapping_note,
            "no traffic matrix recorded (%.200s/traffic-matrix.json absent, and %zu profile(s) in "
            "%.200s without \"traffic_matrix\" and \"placement\"): hop-bytes and worst-case link "
            "load not computed, the job's share of network links unknown",
            dir, without, pdir);
        return;
    }
    char what[PATH_MAX + 400];
    snprintf(what, sizeof what, "%s (segment profiler; the step with the most bytes of %zu)",
             best_path, with_matrix);
    mapping_of(nv_json_get(best, "placement", json_type_array),
               nv_json_get(nv_json_get(best, "traffic_matrix", json_type_object), "bytes",
                           json_type_array),
               what, topo, o, d);
    json_object_put(best);
}

static int add_node(nv_job_diagnosis *d, const char *node)
{
    char(*p)[NV_TOPO_NAME_MAX] = realloc(d->nodes, (d->n_nodes + 1) * sizeof *p);
    if (!p)
        return -1;
    d->nodes = p;
    snprintf(d->nodes[d->n_nodes++], NV_TOPO_NAME_MAX, "%s", node);
    return 0;
}

/* The ports of one node record: its --netvar-interval windows, else its
 * whole-job delta.  1 when it held counters, 0 when not, -1 on too many
 * ports or out of memory. */
static int ports_of_record(struct ports *P, json_object *rec, const char *path,
                           const nv_topo_node *tn, const nv_job_diagnose_opts *o,
                           nv_ctr_delta *delta, nv_job_diagnose_log_fn log, void *ctx)
{
    char err[600];
    json_object *rec_rates = nv_json_get(rec, "line_rate_Bps", json_type_object), *jd;
    json_object *windows =
        nv_json_get(nv_json_get(rec, "samples", json_type_object), "windows", json_type_array);
    size_t used = 0;
    for (size_t k = 0; windows && k < json_object_array_length(windows); k++) {
        json_object *w = json_object_array_get_idx(windows, k);
        if (!json_object_object_get_ex(w, "delta", &jd) ||
            nv_ctr_delta_from_json(jd, delta, err, sizeof err))
            continue;
        if (ports_from_delta(P, delta, (unsigned)k, tn, o, rec_rates))
            return -1;
        used++;
    }
    if (!used && json_object_object_get_ex(rec, "delta", &jd) && jd) {
        if (nv_ctr_delta_from_json(jd, delta, err, sizeof err))
            nv_logf(log, ctx, "%s: delta: %s; skipped it", path, err);
        else if (ports_from_delta(P, delta, 0, tn, o, rec_rates))
            return -1;
        else
            used++;
    }
    return used > 0;
}

int nv_job_diagnose(const char *spool, unsigned long job_id, const nv_job_diagnose_opts *o,
                    nv_job_diagnose_log_fn log, void *ctx, nv_job_diagnosis *d, char *err,
                    size_t errlen)
{
    memset(d, 0, sizeof *d);
    d->job_id = job_id;
    d->dg.root = -1;
    nv_job_diagnose_opts dflt;
    if (!o) {
        nv_job_diagnose_opts_default(&dflt);
        o = &dflt;
    }
    if (!o->topology && !o->blade_map)
        return nv_err(err, errlen,
                      "no topology (a Slurm topology.conf or a blade map); without it "
                      "no port can be placed; no diagnosis");
    char why[600], dir[PATH_MAX];
    nv_topo topo;
    nv_topo_init(&topo);
    if ((o->blade_map && nv_topo_load_file(&topo, o->blade_map, false, why, sizeof why)) ||
        (o->topology && nv_topo_load_file(&topo, o->topology, true, why, sizeof why))) {
        nv_topo_free(&topo);
        return nv_err(err, errlen, "%s; no diagnosis", why);
    }
    if (nv_spool_jobs_path(spool, (long long)job_id, NULL, dir, sizeof dir)) {
        nv_topo_free(&topo);
        return nv_err(err, errlen, "spool path is too long");
    }
    DIR *dd = opendir(dir);
    if (!dd) {
        nv_topo_free(&topo);
        return nv_err(err, errlen, "%s: cannot open the job's records; no diagnosis", dir);
    }
    struct ports P = {0};
    nv_ctr_delta *delta = malloc(sizeof *delta);
    size_t with_counters = 0;
    int rc = delta ? 0 : nv_err(err, errlen, "out of memory");
    struct dirent *e;
    while (rc == 0 && (e = readdir(dd))) {
        if (!is_node_record(e->d_name))
            continue;
        char path[PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        json_object *rec = nv_ve_read_record(path, why, sizeof why);
        if (!rec) {
            nv_logf(log, ctx, "%s: %s; skipped it", path, why);
            continue;
        }
        d->records++;
        const char *node = nv_json_str(rec, "node");
        const nv_topo_node *tn = node ? nv_topo_find(&topo, node) : NULL;
        int got = 0;
        if (!tn)
            rc = nv_err(err, errlen,
                        "%s: node %.60s is not in the topology (%s); counters from an "
                        "unknown topology cannot be placed; no diagnosis",
                        path, node ? node : "(none)", o->topology ? o->topology : o->blade_map);
        else if (add_node(d, node) ||
                 (got = ports_of_record(&P, rec, path, tn, o, delta, log, ctx)) < 0)
            rc = nv_err(err, errlen,
                        "%s: more than %d port readings, or out of memory; no diagnosis", path,
                        NV_DIAG_MAX_PORTS);
        else
            with_counters += (size_t)got;
        json_object_put(rec);
    }
    closedir(dd);
    free(delta);
    d->ports = P.v;
    d->n_ports = P.n;
    if (rc == 0 && with_counters == 0)
        rc = nv_err(err, errlen, "job %lu: %s; no diagnosis", job_id,
                    d->records ? "no node record holds counters (collected without counters)"
                               : "no node records in the spool");
    if (rc == 0 && nv_diagnose(d->ports, d->n_ports, NULL, &d->dg, err, errlen))
        rc = -1;
    if (rc == 0) {
        char tm_default[PATH_MAX + 32];
        snprintf(tm_default, sizeof tm_default, "%s/traffic-matrix.json", dir);
        const char *tm = o->traffic_matrix           ? o->traffic_matrix
                         : !access(tm_default, F_OK) ? tm_default
                                                     : NULL;
        if (tm)
            mapping_from_file(tm, &topo, o, d);
        else
            mapping_from_profiles(dir, &topo, o, d);
    }
    nv_topo_free(&topo);
    return rc;
}

void nv_job_diagnosis_free(nv_job_diagnosis *d)
{
    if (!d)
        return;
    nv_diagnosis_free(&d->dg);
    free(d->ports);
    free(d->nodes);
    memset(d, 0, sizeof *d);
    d->dg.root = -1;
}
