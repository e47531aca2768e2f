/* job_script_side.c - what spank_netvar does in the job prolog and epilog,
 * on every node of an allocation, as root:
 *   prolog: settle the job's mode, take the start counter snapshot (only on
 *           the node that reads its blade), and on the job's first node
 *           register the job in <spool>/running;
 *   epilog: take the end snapshot, write node-<node>.json atomically, drop
 *           the registry entry (first node), and when every node's record
 *           is present (a shared spool), merge them into job.json.
 * Every failure is logged once and ignored: the job runs on. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "counters.h"
#include "counters_topology.h"
#include "ctr_line_rate.h"
#include "ctr_record.h"
#include "job_record.h"
#include "spank_state.h"
#include "spool.h"
#include "submit_options.h"

extern char **environ;

struct job_ctx {
    uint32_t jobid;
    const char *node;
    gid_t gid;
    uid_t uid;
    nv_mode mode;
    struct nv_submit_options opt;
    char **nodes;
    long nnodes;
    bool first;
    nv_topo topo;
    const nv_topo_node *where;
    bool reader;
    char dir[PATH_MAX];
};

static double now_unix_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void log_line(void *arg, const char *line)
{
    (void)arg;
    slurm_error("%s", line);
}

static unsigned long env_ul(const char *name, unsigned long dflt)
{
    const char *v = getenv(name);
    char *end;
    if (!v || !*v)
        return dflt;
    unsigned long n = strtoul(v, &end, 10);
    return *end ? dflt : n;
}

static void load_topology(struct job_ctx *j)
{
    char err[512], path[PATH_MAX];
    nv_topo_init(&j->topo);
    if (nv_spank.args.blade_map[0] &&
        nv_topo_load_file(&j->topo, nv_spank.args.blade_map, false, err, sizeof err))
        slurm_error("netvar: blade_map: %s; counting every node as its own blade", err);
    const char *conf = getenv("SLURM_CONF");
    const char *slash = conf ? strrchr(conf, '/') : NULL;
    if (slash) {
        snprintf(path, sizeof path, "%.*s/topology.conf", (int)(slash - conf), conf);
        if (access(path, R_OK) == 0 && nv_topo_load_file(&j->topo, path, true, err, sizeof err))
            slurm_error("netvar: %s; switches unknown for this job", err);
    }
}

static json_object *str_or_null(const char *s)
{
    return s && *s ? json_object_new_string(s) : NULL;
}

static void add_place(json_object *o, const struct job_ctx *j)
{
    json_object_object_add(o, "blade", str_or_null(nv_topo_blade_of(&j->topo, j->node)));
    json_object_object_add(o, "switch", str_or_null(j->where ? j->where->sw : NULL));
    json_object_object_add(o, "group", str_or_null(j->where ? j->where->group : NULL));
    json_object_object_add(o, "blade_reader", json_object_new_boolean(j->reader));
}

static json_object *header(const struct job_ctx *j, const char *schema)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "schema", json_object_new_string(schema));
    json_object_object_add(o, "version", json_object_new_int(1));
    json_object_object_add(o, "job_id", json_object_new_int64(j->jobid));
    json_object_object_add(o, "node", json_object_new_string(j->node));
    json_object_object_add(o, "mode", json_object_new_string(nv_mode_name(j->mode)));
    json_object_object_add(o, "app", str_or_null(j->opt.app));
    return o;
}

/* counters= "backend[:selector]": netdev:eth*, infiniband:mlx5_0, papi:EV1,EV2 */
static nv_ctr_reader *open_counters(char *why, size_t cap)
{
    char spec[256], *sel = NULL;
    snprintf(spec, sizeof spec, "%s", nv_spank.args.counters[0] ? nv_spank.args.counters : "auto");
    char *colon = strchr(spec, ':');
    if (colon) {
        *colon = '\0';
        sel = colon + 1;
    }
    nv_ctr_config cfg = {.backend = spec, .log = log_line,
                         .sysfs_root = nv_spank.args.sysfs_root[0] ? nv_spank.args.sysfs_root : NULL};
    if (!strcmp(spec, "papi"))
        cfg.papi_events = sel;
    else
        cfg.iface_glob = sel;
    return nv_ctr_open(&cfg, why, cap);
}

static void registry_add(const struct job_ctx *j, double t)
{
    json_object *o = json_object_new_object(), *nodes = json_object_new_array();
    json_object *sws = json_object_new_array(), *groups = json_object_new_array();
    json_object_object_add(o, "schema", json_object_new_string("netvar-running"));
    json_object_object_add(o, "version", json_object_new_int(1));
    json_object_object_add(o, "job_id", json_object_new_int64(j->jobid));
    json_object_object_add(o, "uid", json_object_new_int64(j->uid));
    json_object_object_add(o, "app", str_or_null(j->opt.app));
    json_object_object_add(o, "mode", json_object_new_string(nv_mode_name(j->mode)));
    json_object_object_add(o, "start_unix_s", json_object_new_double(t));
    for (long i = 0; i < j->nnodes; i++) {
        json_object_array_add(nodes, json_object_new_string(j->nodes[i]));
        const nv_topo_node *w = nv_topo_find(&j->topo, j->nodes[i]);
        const char *vals[2] = {w ? w->sw : NULL, w ? w->group : NULL};
        json_object *arrs[2] = {sws, groups};
        for (int k = 0; k < 2; k++) {
            if (!vals[k] || !*vals[k])
                continue;
            bool seen = false;
            for (size_t m = 0; m < json_object_array_length(arrs[k]); m++)
                seen |= !strcmp(json_object_get_string(json_object_array_get_idx(arrs[k], m)), vals[k]);
            if (!seen)
                json_object_array_add(arrs[k], json_object_new_string(vals[k]));
        }
    }
    json_object_object_add(o, "nodes", nodes);
    json_object_object_add(o, "switches", sws);
    json_object_object_add(o, "groups", groups);
    char err[512];
    if (nv_spool_registry_write(nv_spank.args.spool, j->jobid, o, err, sizeof err))
        slurm_error("netvar: job %u: running registry: %s; job_submit will not see this job",
                    j->jobid, err);
    json_object_put(o);
}

static void prolog(struct job_ctx *j)
{
    double t = now_unix_s();
    char path[PATH_MAX + 128], err[512];
    if (j->first)
        registry_add(j, t);
    json_object *o = header(j, "netvar-node-start");
    json_object_object_add(o, "start_unix_s", json_object_new_double(t));
    json_object_object_add(o, "interval_s", json_object_new_int(j->opt.interval_s > 0 ? j->opt.interval_s : 0));
    add_place(o, j);
    /* what job_submit decided, so reports can set it against what happened */
    const char *comment = getenv("SLURM_JOB_COMMENT");
    const char *note = comment ? strstr(comment, "netvar:{") : NULL;
    if (note && strnlen(note, 1024) < 1024)
        json_object_object_add(o, "annotation", json_object_new_string(note));
    if (nv_mode_wants_counters(j->mode) && j->reader) {
        nv_ctr_reader *r = open_counters(err, sizeof err);
        nv_ctr_snapshot *snap = r ? malloc(sizeof *snap) : NULL;
        if (!r) {
            slurm_error("netvar: job %u node %s: no counter source: %s; the job runs without counters",
                        j->jobid, j->node, err);
            json_object_object_add(o, "counter_source", json_object_new_string("none"));
            json_object_object_add(o, "counter_error", json_object_new_string(err));
        } else if (snap && nv_ctr_snapshot_take(r, snap, err, sizeof err) >= 0) {
            json_object_object_add(o, "counter_source", json_object_new_string(snap->backend));
            json_object_object_add(o, "snapshot", nv_ctr_snapshot_to_json(snap));
        } else {
            slurm_error("netvar: job %u node %s: start snapshot failed: %s", j->jobid, j->node,
                        snap ? err : "out of memory");
        }
        free(snap);
        if (r)
            nv_ctr_close(r);
    }
    if (nv_mode_wants_segments(j->mode)) {
        /* the job's own ranks write their profiles here, nowhere else */
        snprintf(path, sizeof path, "%s/profiles", j->dir);
        if ((mkdir(path, 0750) && errno != EEXIST) || chown(path, j->uid, j->gid))
            slurm_error("netvar: job %u: cannot prepare %s: %s", j->jobid, path, strerror(errno));
    }
    snprintf(path, sizeof path, "%s/.start-%s.json", j->dir, j->node);
    if (nv_spool_write_json(path, o, 0, 0600, err, sizeof err))
        slurm_error("netvar: job %u node %s: %s; no record for this node", j->jobid, j->node, err);
    json_object_put(o);
}

static json_object *read_small_json(const char *path)
{
    return json_object_from_file(path); /* root-written files in the root-owned spool */
}

static void epilog(struct job_ctx *j)
{
    char path[PATH_MAX + 128], err[512];
    double t_end = now_unix_s();
    snprintf(path, sizeof path, "%s/.start-%s.json", j->dir, j->node);
    json_object *start = read_small_json(path);
    unlink(path);
    json_object *rec = header(j, NV_NODE_RECORD_SCHEMA);
    add_place(rec, j);
    json_object *v;
    json_object_object_add(rec, "start_unix_s",
                           start && json_object_object_get_ex(start, "start_unix_s", &v)
                               ? json_object_get(v) : NULL);
    json_object_object_add(rec, "end_unix_s", json_object_new_double(t_end));
    if (start && json_object_object_get_ex(start, "annotation", &v))
        json_object_object_add(rec, "annotation", json_object_get(v));
    char source[NV_CTR_BACKEND_MAX] = "none";
    json_object *jsnap;
    if (start && json_object_object_get_ex(start, "snapshot", &jsnap)) {
        nv_ctr_snapshot *a = malloc(sizeof *a), *b = malloc(sizeof *b);
        nv_ctr_delta *d = malloc(sizeof *d);
        nv_ctr_reader *r = NULL;
        if (!a || !b || !d)
            snprintf(err, sizeof err, "out of memory");
        else if (nv_ctr_snapshot_from_json(jsnap, a, err, sizeof err) == 0 &&
                 (r = open_counters(err, sizeof err)) &&
                 nv_ctr_snapshot_take(r, b, err, sizeof err) >= 0 &&
                 nv_ctr_delta_compute(a, b, d, err, sizeof err) == 0) {
            json_object_object_add(rec, "delta", nv_ctr_delta_to_json(d));
            snprintf(source, sizeof source, "%s", a->backend);
            json_object *rates = json_object_new_object();
            for (int p = 0; p < d->nports; p++) {
                double bps = nv_ctr_port_line_rate(NULL, d->backend, d->port[p].name);
                if (bps > 0)
                    json_object_object_add(rates, d->port[p].name, json_object_new_double(bps));
            }
            json_object_object_add(rec, "line_rate_Bps", rates);
            err[0] = '\0';
        }
        if (err[0])
            slurm_error("netvar: job %u node %s: end snapshot: %s; record has no counters",
                        j->jobid, j->node, err);
        if (r)
            nv_ctr_close(r);
        free(a);
        free(b);
        free(d);
    } else if (start && json_object_object_get_ex(start, "counter_error", &v)) {
        json_object_object_add(rec, "counter_error", json_object_get(v));
    }
    json_object_object_add(rec, "counter_source", json_object_new_string(source));
    snprintf(path, sizeof path, "%s/.samples-%s.json", j->dir, j->node);
    json_object *samples = read_small_json(path);
    if (samples) {
        json_object_object_add(rec, "samples", samples);
        unlink(path);
    }
    if (start)
        json_object_put(start);
    snprintf(path, sizeof path, "%s/node-%s.json", j->dir, j->node);
    if (nv_spool_write_json(path, rec, j->gid, 0640, err, sizeof err))
        slurm_error("netvar: job %u node %s: %s; this node's record is lost", j->jobid, j->node, err);
    json_object_put(rec);
    if (j->first)
        nv_spool_registry_remove(nv_spank.args.spool, j->jobid);

    /* the last node to finish on a shared spool merges the records */
    if (nv_job_count_node_records(j->dir) == j->nnodes) {
        json_object *job = nv_job_collect(j->dir, 0, "none: collected in the epilog; run "
                                          "'netvar collect' with a model for rho",
                                          log_line, NULL, err, sizeof err);
        snprintf(path, sizeof path, "%s/job.json", j->dir);
        if (!job || nv_spool_write_json(path, job, j->gid, 0640, err, sizeof err))
            slurm_error("netvar: job %u: collect: %s", j->jobid, err);
        if (job)
            json_object_put(job);
    }
}

int nv_spank_job_script(spank_t sp, int ac, char **av, bool start)
{
    struct job_ctx j = {0};
    char err[512];
    /* slurm_spank_init does not run before the prolog/epilog hooks */
    nv_spank_parse_args(ac, av, &nv_spank.args, start);
    spank_get_item(sp, S_JOB_ID, &j.jobid);
    j.node = getenv("SLURMD_NODENAME");
    j.uid = (uid_t)env_ul("SLURM_JOB_UID", 0);
    j.gid = (gid_t)env_ul("SLURM_JOB_GID", 0);
    nv_submit_options_parse("SPANK_", (const char *const *)environ, UINT32_MAX, NULL, 0, &j.opt);
    j.mode = nv_effective_mode(&j.opt, nv_spank.args.default_mode, nv_spank.args.allow_off);
    if (j.opt.rejected && start)
        slurm_error("netvar: job %u: %s", j.jobid, j.opt.note);
    slurm_info("netvar: job %u node %s %s mode %s app %s", j.jobid, j.node ? j.node : "?",
               start ? "prolog" : "epilog", nv_mode_name(j.mode), j.opt.app[0] ? j.opt.app : "-");
    if (j.mode == NV_MODE_OFF || j.jobid == 0)
        return 0;
    if (!nv_spool_name_ok(j.node)) {
        slurm_error("netvar: job %u: node name '%.64s' is not safe in a path; no record", j.jobid,
                    j.node ? j.node : "");
        return 0;
    }
    const char *list = getenv("SLURM_NODELIST");
    j.nnodes = list ? nv_hostlist_expand(list, &j.nodes, 65536, err, sizeof err) : -1;
    if (j.nnodes <= 0) {
        slurm_error("netvar: job %u: SLURM_NODELIST: %s; recording this node alone", j.jobid,
                    list ? err : "not set");
        j.nodes = NULL;
        j.nnodes = 1;
        j.first = true;
    } else {
        j.first = !strcmp(j.nodes[0], j.node);
    }
    load_topology(&j);
    j.where = nv_topo_find(&j.topo, j.node);
    j.reader = j.nodes ? nv_topo_is_blade_reader(&j.topo, j.node, (const char *const *)j.nodes,
                                                 (size_t)j.nnodes)
                       : true;
    if (nv_spool_job_dir(nv_spank.args.spool, j.jobid, j.gid, j.dir, sizeof j.dir, err, sizeof err))
        slurm_error("netvar: job %u: spool: %s; the job runs without a record", j.jobid, err);
    else if (start)
        prolog(&j);
    else
        epilog(&j);
    if (j.nodes)
        nv_hostlist_free(j.nodes, (size_t)j.nnodes);
    nv_topo_free(&j.topo);
    return 0;
}
