/* job_record.c - node records -> job record, and reading a job record
 * (see job_record.h). */
#include "job_record.h"

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "counter_metrics.h"
#include "ctr_record.h"
#include "job_bottleneck.h"
#include "json_file.h"
#include "safe_open.h"
#include "nv_err.h"
#include "nv_json.h"
#include "plausible.h"
#include "queue.h"
#include "sort_cmp.h"

#define MAX_NODES 4096

static bool is_node_record(const char *name)
{
    size_t n = strlen(name);
    return n > 10 && !strncmp(name, "node-", 5) && !strcmp(name + n - 5, ".json");
}

int nv_spool_jobs_path(const char *spool, long long job_id, const char *leaf, char *buf, size_t cap)
{
    int n;
    if (!buf || !cap)
        return -1;
    buf[0] = 0;
    if (!spool)
        return -1;
    if (job_id < 0)
        n = snprintf(buf, cap, "%s/jobs", spool);
    else if (!leaf)
        n = snprintf(buf, cap, "%s/jobs/%lld", spool, job_id);
    else
        n = snprintf(buf, cap, "%s/jobs/%lld/%s", spool, job_id, leaf);
    if (n < 0 || (size_t)n >= cap) {
        buf[0] = 0;
        return -1;
    }
    return 0;
}

bool nv_job_dir_name_ok(const char *name)
{
    size_t n = 0;
    if (!name || name[0] < '1' || name[0] > '9')
        return false;
    while (name[n] >= '0' && name[n] <= '9')
        n++;
    return name[n] == '\0' && n <= 10;
}

int nv_job_count_node_records(const char *job_dir)
{
    DIR *d = opendir(job_dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += is_node_record(e->d_name);
    closedir(d);
    return n;
}

/* adds s to the array unless it is already there */
static void add_unique(json_object *arr, const char *s)
{
    if (!s || !*s)
        return;
    for (size_t i = 0; i < json_object_array_length(arr); i++)
        if (!strcmp(json_object_get_string(json_object_array_get_idx(arr, i)), s))
            return;
    json_object_array_add(arr, json_object_new_string(s));
}

static bool is_network_side(const char *kind)
{
    return kind && (!strcmp(kind, "network_tile") || !strcmp(kind, "switch_port"));
}

static double dval(const nv_ctr_delta_value *v)
{
    return v->valid ? (double)v->value : NAN;
}

static double add_nan(double acc, double v)
{
    if (!isfinite(v))
        return acc;
    return isfinite(acc) ? acc + v : v;
}

/* One blade's totals from a node's delta. */
static void blade_from_delta(const nv_ctr_delta *d, struct nv_blade_traffic *t)
{
    t->dt_s = (double)d->dt_ns / 1e9;
    t->proc_traffic = t->proc_stalls = t->net_traffic = t->net_stalls = NAN;
    for (int i = 0; i < d->nports; i++) {
        const nv_ctr_port_delta *p = &d->port[i];
        double traffic = add_nan(dval(&p->f[NV_CTR_BYTES_OUT]), dval(&p->f[NV_CTR_BYTES_IN]));
        if (is_network_side(p->kind)) {
            t->net_traffic = add_nan(t->net_traffic, traffic);
            t->net_stalls = add_nan(t->net_stalls, dval(&p->f[NV_CTR_STALL]));
        } else {
            t->proc_traffic = add_nan(t->proc_traffic, traffic);
            t->proc_stalls = add_nan(t->proc_stalls, dval(&p->f[NV_CTR_STALL]));
        }
    }
}

static json_object *stat_json(const struct nv_stat5 *s, const char *unit, const char *source)
{
    json_object *o = json_object_new_object();
    if (s->n) {
        const double v[5] = {s->mean, s->variance, s->p75, s->p95, s->p99};
        for (int k = 0; k < 5; k++)
            json_object_object_add(o, nv_ve_stat_name((enum nv_ve_stat)k), nv_json_new_num(v[k]));
    }
    json_object_object_add(o, "blades", json_object_new_int64((int64_t)s->n));
    json_object_object_add(o, "unit", json_object_new_string(unit));
    json_object_object_add(o, "source", json_object_new_string(source));
    return o;
}

json_object *nv_job_record_metrics_json(const struct nv_counter_metrics *cm)
{
    json_object *metrics = json_object_new_object();
    for (int m = 0; metrics && m < NV_CM_COUNT; m++)
        json_object_object_add(metrics, nv_counter_metric_name((enum nv_counter_metric)m),
                               stat_json(&cm->stat[m], cm->unit[m], cm->source[m]));
    return metrics;
}

/* NULL when node record rec (of path) may be merged into job job_id's;
 * else what is wrong with it (the record is skipped): another job's id, a
 * time or span outside plausible.h's bounds, or more bytes on a port than
 * its line rate carries in the record's interval */
static const char *node_record_implausible(json_object *rec, long long job_id,
                                           const nv_ctr_delta *delta, char *why, size_t cap)
{
    double id = nv_json_num(rec, "job_id"), s = nv_json_num(rec, "start_unix_s"),
           en = nv_json_num(rec, "end_unix_s");
    if (!(id == (double)job_id)) {
        snprintf(why, cap, "job_id %.0f is not this job's %lld", id, job_id);
        return why;
    }
    if ((isfinite(s) && !nv_plausible_time(s, 0)) || (isfinite(en) && !nv_plausible_time(en, 0)) ||
        (isfinite(s) && isfinite(en) && (en < s || en - s > NV_PLAUSIBLE_RUNTIME_MAX_S))) {
        snprintf(why, cap,
                 "start_unix_s %g / end_unix_s %g: not Unix seconds from 1970 to a day from now, "
                 "in order and at most a year apart (plausible.h)",
                 s, en);
        return why;
    }
    if (!delta)
        return NULL;
    double dt_s = (double)delta->dt_ns / 1e9;
    json_object *rates = nv_json_get(rec, "line_rate_Bps", json_type_object);
    for (int p = 0; p < delta->nports; p++) {
        const nv_ctr_port_delta *pd = &delta->port[p];
        double rate = nv_json_num(rates, pd->name);
        for (int f = NV_CTR_BYTES_OUT; f <= NV_CTR_BYTES_IN; f++) {
            const nv_ctr_delta_value *v = &pd->f[f];
            if (v->valid && v->unit && !strcmp(v->unit, "bytes") &&
                !nv_plausible_bytes((double)v->value, dt_s, rate)) {
                snprintf(why, cap,
                         "delta: port %.40s: %s %llu in %.3f s is more than its line rate "
                         "(%g bytes/s) carries (plausible.h)",
                         pd->name, nv_ctr_field_name((nv_ctr_field)f), (unsigned long long)v->value,
                         dt_s, isfinite(rate) && rate > 0 ? rate : NV_PLAUSIBLE_LINE_RATE_MAX_Bps);
                return why;
            }
        }
    }
    if (!(dt_s <= NV_PLAUSIBLE_RUNTIME_MAX_S)) {
        snprintf(why, cap, "delta: dt_ns %llu is more than a year (plausible.h)",
                 (unsigned long long)delta->dt_ns);
        return why;
    }
    return NULL;
}

static const nv_ctr_port_delta *find_port(const nv_ctr_delta *d, const char *name)
{
    for (int i = 0; name && *name && i < d->nports; i++)
        if (!strcmp(d->port[i].name, name))
            return &d->port[i];
    return NULL;
}

static bool port_bytes(const nv_ctr_port_delta *p, double dt_s, double *out_Bps, double *in_Bps)
{
    const nv_ctr_delta_value *o = &p->f[NV_CTR_BYTES_OUT], *i = &p->f[NV_CTR_BYTES_IN];
    if (!o->valid || !i->valid || !o->unit || strcmp(o->unit, "bytes") || !(dt_s > 0))
        return false;
    *out_Bps = (double)o->value / dt_s;
    *in_Bps = (double)i->value / dt_s;
    return true;
}

/* which counters give a node's own traffic, in the record's words */
enum nic_from { NIC_NONE, NIC_SWITCH_PORT, NIC_NAMED, NIC_NODE_PORTS };

/* node nd's own NIC rates from its delta (up: what the node sends) and its
 * leaf uplink's; NAN where the delta lacks them */
static enum nic_from node_traffic(const nv_topo_node *w, const nv_ctr_delta *d, nv_bn_node *b)
{
    double dt_s = (double)d->dt_ns / 1e9, o, i;
    enum nic_from from = NIC_NONE;
    b->up_Bps = b->down_Bps = b->uplink_up_Bps = b->uplink_down_Bps = NAN;
    const nv_ctr_port_delta *p;
    if (w && (p = find_port(d, w->sw_port)) && port_bytes(p, dt_s, &o, &i)) {
        b->up_Bps = i; /* the switch side receives what the node sends */
        b->down_Bps = o;
        from = NIC_SWITCH_PORT;
    } else if (w && (p = find_port(d, w->nic)) && port_bytes(p, dt_s, &o, &i)) {
        b->up_Bps = o;
        b->down_Bps = i;
        from = NIC_NAMED;
    } else if (!w || (!w->sw_port[0] && !w->nic[0])) {
        /* no port named: the node-side ports, as a node's own reader counts them */
        double so = 0, si = 0;
        int k = 0;
        for (int j = 0; j < d->nports; j++)
            if (!is_network_side(d->port[j].kind) && port_bytes(&d->port[j], dt_s, &o, &i)) {
                so += o;
                si += i;
                k++;
            }
        if (k) {
            b->up_Bps = so;
            b->down_Bps = si;
            from = NIC_NODE_PORTS;
        }
    }
    if (w && (p = find_port(d, w->uplink)) && port_bytes(p, dt_s, &o, &i)) {
        b->uplink_up_Bps = o; /* the leaf end sends up, off the leaf */
        b->uplink_down_Bps = i;
    }
    return from;
}

static json_object *bottleneck_unavailable(const char *why)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "u_up", NULL);
    json_object_object_add(o, "u_down", NULL);
    char s[400];
    snprintf(s, sizeof s, "unavailable: %s", why);
    json_object_object_add(o, "source", json_object_new_string(s));
    return o;
}

static const char *const nic_words[] = {
    [NIC_NONE] = "none",
    [NIC_SWITCH_PORT] = "the switch side of each node's own link (blade map switch_port=)",
    [NIC_NAMED] = "each node's own NIC port (blade map nic=)",
    [NIC_NODE_PORTS] = "each node's node-side ports (no nic= or switch_port= in the blade map)",
};

static json_object *bottleneck_json(const nv_bn_node *bn, size_t n, enum nic_from from,
                                    const nv_job_fabric *fab)
{
    if (!fab || !fab->topo)
        return bottleneck_unavailable("no topology given to collect");
    if (!(fab->uplink_rate_Bps > 0))
        return bottleneck_unavailable("UplinkRate= is not set in netvar.conf");
    unsigned per_leaf = fab->uplinks_per_leaf ? fab->uplinks_per_leaf : 1;
    nv_bn_result *r = malloc(sizeof *r);
    char err[200];
    if (!r)
        return bottleneck_unavailable("out of memory");
    if (nv_bottleneck_compute(bn, n, fab->uplink_rate_Bps * per_leaf, r, err, sizeof err)) {
        free(r);
        return bottleneck_unavailable(err);
    }
    json_object *o = json_object_new_object();
    json_object_object_add(o, "u_up", nv_json_new_num(r->u_up));
    json_object_object_add(o, "u_down", nv_json_new_num(r->u_down));
    json_object_object_add(o, "unit",
                           json_object_new_string("fraction of one leaf's uplink "
                                                  "capacity (bytes/s over bytes/s)"));
    json_object_object_add(o, "port", json_object_new_string("leaf uplink"));
    json_object_object_add(
        o, "leaf_up", r->n_leaves > 1 ? json_object_new_string(r->leaf[r->up_leaf].leaf) : NULL);
    json_object_object_add(o, "leaf_down",
                           r->n_leaves > 1 ? json_object_new_string(r->leaf[r->down_leaf].leaf)
                                           : NULL);
    json_object_object_add(o, "capacity_Bps", nv_json_new_num(r->capacity_Bps));
    char s[400];
    snprintf(s, sizeof s, "netvar.conf: UplinkRate= %.6g bytes/s x UplinksPerLeaf= %u",
             fab->uplink_rate_Bps, per_leaf);
    json_object_object_add(o, "capacity_source", json_object_new_string(s));
    snprintf(s, sizeof s, "node counters: %s, %d of %d nodes; leaves from the topology",
             nic_words[from], r->nodes_counted, r->nodes);
    json_object_object_add(o, "source", json_object_new_string(s));
    json_object_object_add(
        o, "assumption",
        json_object_new_string(r->n_leaves > 1 ? "each node sends to and receives from the job's "
                                                 "other nodes alike: a node's off-leaf share is "
                                                 "the job's node split, (n - m) / (n - 1)"
                                               : "one leaf: the job crosses no uplink"));
    json_object_object_add(o, "uplink_u_up", nv_json_new_num(r->uplink_u_up));
    json_object_object_add(o, "uplink_u_down", nv_json_new_num(r->uplink_u_down));
    json_object_object_add(o, "uplink_note",
                           json_object_new_string("the same leaves' uplink counters (blade map "
                                                  "uplink=) over the same windows: every job's "
                                                  "traffic, the background included"));
    json_object *leaves = json_object_new_array();
    for (int i = 0; i < r->n_leaves; i++) {
        const nv_bn_leaf *l = &r->leaf[i];
        json_object *jl = json_object_new_object();
        json_object_object_add(jl, "leaf", json_object_new_string(l->leaf));
        json_object_object_add(jl, "nodes", json_object_new_int(l->nodes));
        json_object_object_add(jl, "off_leaf_up_Bps", nv_json_new_num(l->off_up_Bps));
        json_object_object_add(jl, "off_leaf_down_Bps", nv_json_new_num(l->off_down_Bps));
        json_object_object_add(jl, "u_up", nv_json_new_num(l->u_up));
        json_object_object_add(jl, "u_down", nv_json_new_num(l->u_down));
        json_object_object_add(jl, "uplink_u_up", nv_json_new_num(l->uplink_u_up));
        json_object_object_add(jl, "uplink_u_down", nv_json_new_num(l->uplink_u_down));
        json_object_array_add(leaves, jl);
    }
    json_object_object_add(o, "leaves", leaves);
    free(r);
    return o;
}

json_object *nv_job_collect(const char *job_dir, long long job_id, double service_us,
                            const char *mu_source, const nv_job_fabric *fabric, nv_ctr_log_fn log,
                            void *log_arg, char *err, size_t errlen)
{
    /* the job's directory itself, never a link out of the spool; its node
     * records are its owner's (root's: slurmstepd wrote them) */
    int dfd = job_dir ? open(job_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
    struct stat dst;
    DIR *d = NULL;
    if (dfd < 0 || fstat(dfd, &dst) || !(d = fdopendir(dfd))) {
        struct stat ls;
        bool link = job_dir && lstat(job_dir, &ls) == 0 && S_ISLNK(ls.st_mode);
        snprintf(err, errlen, "%s: %s", job_dir ? job_dir : "(no job directory)",
                 link ? "the job's spool directory is a symbolic link; not followed"
                      : "cannot open the job's spool directory");
        if (dfd >= 0)
            close(dfd);
        return NULL;
    }
    uid_t owner = dst.st_uid;
    char *names[MAX_NODES];
    size_t nnames = 0;
    struct dirent *e;
    while ((e = readdir(d)) && nnames < MAX_NODES)
        if (is_node_record(e->d_name))
            names[nnames++] = strdup(e->d_name);
    closedir(d);
    qsort(names, nnames, sizeof names[0], nv_cmp_strp); /* byte-identical output */

    struct nv_blade_traffic *blades = calloc(nnames ? nnames : 1, sizeof *blades);
    nv_ctr_delta *delta = malloc(sizeof *delta);
    nv_bn_node *bn = calloc(nnames ? nnames : 1, sizeof *bn);
    char(*leaf_of)[NV_TOPO_NAME_MAX] = calloc(nnames ? nnames : 1, sizeof *leaf_of);
    size_t nbn = 0;
    enum nic_from nic_from = NIC_NONE;
    json_object *job = json_object_new_object();
    json_object *nodes = json_object_new_array(), *blade_names = json_object_new_array();
    json_object *switches = json_object_new_array(), *groups = json_object_new_array();
    json_object *ports = json_object_new_array(), *sources = json_object_new_array();
    size_t nblades = 0, corrupt = 0;
    double t0 = NAN, t1 = NAN;
    const char *traffic_unit = "bytes";
    char app[80] = "", mode[16] = "", annotation[1024] = "";
    uint64_t tot[NV_CTR_NFIELDS] = {0};

    for (size_t i = 0; i < nnames && blades && delta && bn && leaf_of; i++) {
        char path[4400], why[256];
        snprintf(path, sizeof path, "%s/%s", job_dir, names[i]);
        json_object *rec = nv_node_record_read_owned(path, owner, why, sizeof why);
        json_object *jd = NULL;
        int has_delta = rec && json_object_object_get_ex(rec, "delta", &jd) && jd;
        if (rec && has_delta && nv_ctr_delta_from_json(jd, delta, why, sizeof why)) {
            corrupt++;
            nv_logf(log, log_arg, "netvar: collect: %s: delta: %s; skipped it", path, why);
            json_object_put(rec);
            continue;
        }
        if (rec &&
            node_record_implausible(rec, job_id, has_delta ? delta : NULL, why, sizeof why)) {
            json_object_put(rec);
            rec = NULL;
        }
        if (!rec) {
            corrupt++;
            nv_logf(log, log_arg, "netvar: collect: %s: %s; skipped it", path, why);
            continue;
        }
        const char *node = nv_json_str(rec, "node");
        add_unique(nodes, node);
        add_unique(blade_names, nv_json_str(rec, "blade"));
        add_unique(switches, nv_json_str(rec, "switch"));
        add_unique(groups, nv_json_str(rec, "group"));
        if (nv_json_str(rec, "app") && !app[0])
            snprintf(app, sizeof app, "%s", nv_json_str(rec, "app"));
        if (nv_json_str(rec, "annotation") && !annotation[0])
            snprintf(annotation, sizeof annotation, "%s", nv_json_str(rec, "annotation"));
        if (nv_json_str(rec, "mode") && !mode[0])
            snprintf(mode, sizeof mode, "%s", nv_json_str(rec, "mode"));
        double s = nv_json_num(rec, "start_unix_s"), en = nv_json_num(rec, "end_unix_s");
        if (isfinite(s) && (!isfinite(t0) || s < t0))
            t0 = s;
        if (isfinite(en) && (!isfinite(t1) || en > t1))
            t1 = en;
        if (!has_delta) {
            json_object_put(rec); /* not this blade's reader, or no counters */
            continue;
        }
        add_unique(sources, delta->backend);
        blade_from_delta(delta, &blades[nblades++]);
        const nv_topo_node *w =
            fabric && fabric->topo && node ? nv_topo_find(fabric->topo, node) : NULL;
        enum nic_from nf = node_traffic(w, delta, &bn[nbn]);
        if (nf != NIC_NONE && (nic_from == NIC_NONE || nf > nic_from))
            nic_from = nf;
        snprintf(leaf_of[nbn], sizeof leaf_of[nbn], "%s", w ? w->sw : "");
        bn[nbn].leaf = leaf_of[nbn];
        nbn++;
        for (int p = 0; p < delta->nports; p++) {
            const nv_ctr_port_delta *pd = &delta->port[p];
            for (int f = 0; f < NV_CTR_NFIELDS; f++)
                if (pd->f[f].valid)
                    tot[f] += pd->f[f].value;
            if (pd->f[NV_CTR_BYTES_OUT].valid && !strcmp(pd->f[NV_CTR_BYTES_OUT].unit, "flits"))
                traffic_unit = "flits";
            json_object *jp = json_object_new_object();
            json_object_object_add(jp, "node", json_object_new_string(node ? node : "?"));
            json_object_object_add(jp, "port", json_object_new_string(pd->name));
            double dt_s = (double)delta->dt_ns / 1e9;
            const nv_ctr_delta_value *pk = &pd->f[NV_CTR_PACKETS_OUT];
            if (pk->valid && dt_s > 0) {
                json_object_object_add(jp, "lambda_packets_per_s",
                                       nv_json_new_num((double)pk->value / dt_s));
                nv_utilization u;
                if (service_us > 0 && nv_utilization_from_counters((double)pk->value, dt_s * 1e6,
                                                                   service_us, &u) == 0) {
                    json_object_object_add(jp, "rho", nv_json_new_num(u.rho));
                    json_object_object_add(jp, "saturated", json_object_new_boolean(u.saturated));
                    json_object_object_add(jp, "rho_source",
                                           json_object_new_string("counters: lambda/mu"));
                } else {
                    json_object_object_add(jp, "rho_source",
                                           json_object_new_string("unavailable: no calibrated mu"));
                }
            }
            json_object_array_add(ports, jp);
        }
        json_object_put(rec);
    }

    json_object_object_add(job, "schema", json_object_new_string(NV_JOB_RECORD_SCHEMA));
    json_object_object_add(job, "version", json_object_new_int(NV_JOB_RECORD_VERSION));
    json_object_object_add(job, "job_id", json_object_new_int64(job_id));
    json_object_object_add(job, "app", app[0] ? json_object_new_string(app) : NULL);
    json_object_object_add(job, "mode", json_object_new_string(mode[0] ? mode : "unknown"));
    json_object_object_add(job, "annotation",
                           annotation[0] ? json_object_new_string(annotation) : NULL);
    json_object_object_add(job, "nodes", nodes);
    json_object_object_add(job, "blades", blade_names);
    json_object_object_add(job, "switches", switches);
    json_object_object_add(job, "groups", groups);
    json_object_object_add(job, "start_unix_s", nv_json_new_num(t0));
    json_object_object_add(job, "end_unix_s", nv_json_new_num(t1));
    json_object_object_add(job, "runtime_s", nv_json_new_num(t1 - t0));
    json_object_object_add(job, "counter_sources", sources);
    json_object_object_add(job, "blades_counted", json_object_new_int64((int64_t)nblades));

    struct nv_counter_metrics cm;
    nv_counter_metrics_compute(blades ? blades : (struct nv_blade_traffic[1]){{0}},
                               blades ? nblades : 0, traffic_unit, &cm);
    json_object_object_add(job, "metrics", nv_job_record_metrics_json(&cm));

    json_object *totals = json_object_new_object();
    for (int f = 0; f < NV_CTR_NFIELDS; f++)
        json_object_object_add(totals, nv_ctr_field_name((nv_ctr_field)f),
                               json_object_new_uint64(tot[f]));
    json_object_object_add(totals, "unit_note",
                           json_object_new_string("summed over counted blades; bytes, packets, "
                                                  "stall units as each port reports"));
    json_object_object_add(job, "totals", totals);

    json_object *util = json_object_new_object();
    json_object_object_add(util, "service_us", service_us > 0 ? nv_json_new_num(service_us) : NULL);
    json_object_object_add(util, "mu_source",
                           json_object_new_string(mu_source ? mu_source : "none"));
    json_object_object_add(util, "ports", ports);
    json_object_object_add(job, "utilization", util);
    json_object_object_add(job, "bottleneck",
                           bn && leaf_of ? bottleneck_json(bn, nbn, nic_from, fabric)
                                         : bottleneck_unavailable("out of memory"));

    json_object *recs = json_object_new_object();
    json_object_object_add(recs, "node_records", json_object_new_int64((int64_t)nnames));
    json_object_object_add(recs, "corrupt_skipped", json_object_new_int64((int64_t)corrupt));
    json_object_object_add(job, "records", recs);

    for (size_t i = 0; i < nnames; i++)
        free(names[i]);
    free(blades);
    free(delta);
    free(bn);
    free(leaf_of);
    if (nnames == 0)
        nv_logf(log, log_arg, "netvar: collect: %s holds no node records", job_dir);
    return job;
}

/* ---- reading ---- */

int nv_job_record_check(json_object *rec, char *err, size_t errlen)
{
    char why[160];
    if (nv_json_schema_check(rec, NV_JOB_RECORD_SCHEMA, NV_JOB_RECORD_VERSION, why, sizeof why))
        return nv_err(err, errlen, "not a netvar job record: %s", why);
    return 0;
}

json_object *nv_job_record_read(const char *path, char *err, size_t errlen)
{
    return nv_job_record_read_owned(path, NV_ANY_OWNER, err, errlen);
}

json_object *nv_job_record_read_owned(const char *path, uid_t owner, char *err, size_t errlen)
{
    json_object *rec = nv_json_read_owned(path, owner, NV_JOB_RECORD_MAX_BYTES, err, errlen);
    if (rec && nv_job_record_check(rec, err, errlen)) {
        json_object_put(rec);
        return NULL;
    }
    return rec;
}

int nv_job_record_bottleneck_u(json_object *rec, double *u_up, double *u_down, char *err,
                               size_t errlen)
{
    *u_up = *u_down = NAN;
    json_object *b;
    if (!json_object_object_get_ex(rec, "bottleneck", &b) || !b)
        return 0;
    if (!json_object_is_type(b, json_type_object))
        return nv_err(err, errlen, "bottleneck: expected an object");
    double up, down;
    int hu = nv_json_num_strict(b, "u_up", &up), hd = nv_json_num_strict(b, "u_down", &down);
    if (hu < 0 || hd < 0 || (hu > 0 && !(up >= 0 && up <= 100)) ||
        (hd > 0 && !(down >= 0 && down <= 100)))
        return nv_err(err, errlen, "bottleneck: u_up or u_down is not a fraction from 0 to 100");
    if (hu <= 0 || hd <= 0)
        return 0;
    *u_up = up;
    *u_down = down;
    return 1;
}

int nv_ve_job_from_record(json_object *rec, nv_ve_job *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (nv_job_record_check(rec, err, errlen))
        return -1;
    json_object *metrics = nv_json_get(rec, "metrics", json_type_object);
    if (!metrics)
        return nv_err(err, errlen,
                      "the record has no counter metrics (no \"metrics\" object): "
                      "it was collected without counters");
    for (int m = 0; m < NV_CM_COUNT; m++) {
        json_object *mo = nv_json_get(metrics, nv_counter_metric_name((enum nv_counter_metric)m),
                                      json_type_object);
        double blades = nv_json_num(mo, "blades");
        for (int k = 0; k < 5; k++) {
            double x = nv_json_num(mo, nv_ve_stat_name((enum nv_ve_stat)k));
            out->stats[m * 5 + k] = (isfinite(blades) && blades > 0 && isfinite(x)) ? x : NAN;
        }
    }
    json_object *nodes = nv_json_get(rec, "nodes", json_type_array);
    out->nodes = nodes ? (double)json_object_array_length(nodes) : nv_json_num(rec, "nodes");
    if (!(out->nodes >= 1))
        return nv_err(err, errlen, "the record names no nodes (\"nodes\" missing or empty)");
    double rt = nv_json_num(rec, "runtime_s");
    out->runtime_s = nv_plausible_runtime(rt) ? rt : NAN; /* plausible.h */
    nv_json_str_copy(rec, "app", out->app, sizeof out->app);
    return 0;
}
