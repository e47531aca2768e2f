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
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "counters.h"
#include "counters_topology.h"
#include "topology_yaml.h"
#include "ctr_line_rate.h"
#include "job_record.h"
#include "json_file.h"
#include "node_record.h"
#include "registry.h"
#include "spank_state.h"
#include "spool.h"
#include "annotation.h"
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

static void log_debug_line(void *arg, const char *line)
{
    (void)arg;
    slurm_debug("%s", line);
}

static void log_info_line(void *arg, const char *line)
{
    (void)arg;
    slurm_info("%s", line);
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
    /* beside slurm.conf, else Debian's /etc/slurm: topology.yaml when this
     * Slurm reads it and it is there, else topology.conf (as job_submit) */
    enum nv_topo_kind kind = nv_topo_slurm_file(
        getenv("SLURM_CONF"), SLURM_VERSION_NUMBER >= NV_TOPO_YAML_SINCE_SLURM, path, sizeof path);
    if (kind != NV_TOPO_NONE && access(path, R_OK) == 0 &&
        nv_topo_load_slurm(&j->topo, path, kind, err, sizeof err))
        slurm_error("netvar: %s; switches unknown for this job", err);
}

/* who and where, as every node file of the job starts */
static struct nv_node_ident ident(const struct job_ctx *j)
{
    return (struct nv_node_ident){
        .job_id = j->jobid,
        .node = j->node,
        .mode = nv_mode_name(j->mode),
        .app = j->opt.app,
        .blade = nv_topo_blade_of(&j->topo, j->node),
        .sw = j->where ? j->where->sw : NULL,
        .group = j->where ? j->where->group : NULL,
        .blade_reader = j->reader,
    };
}

/* counters= "backend[:selector]": netdev:eth*, infiniband:mlx5_0, papi:EV1,EV2.
 * A backend that is not there and the next one tried is a normal fallback:
 * said through log (info once at slurmd start, debug in every job). */
static nv_ctr_reader *open_counters(char *why, size_t cap, nv_ctr_log_fn log)
{
    char spec[256], *sel = NULL;
    snprintf(spec, sizeof spec, "%s", nv_spank.args.counters[0] ? nv_spank.args.counters : "auto");
    char *colon = strchr(spec, ':');
    if (colon) {
        *colon = '\0';
        sel = colon + 1;
    }
    nv_ctr_config cfg = {.backend = spec,
                         .log = log,
                         .sysfs_root =
                             nv_spank.args.sysfs_root[0] ? nv_spank.args.sysfs_root : NULL};
    if (!strcmp(spec, "papi"))
        cfg.papi_events = sel;
    else
        cfg.iface_glob = sel;
    return nv_ctr_open(&cfg, why, cap);
}

static void registry_add(const struct job_ctx *j, double t)
{
    /* without SLURM_NODELIST the job is recorded on this node alone */
    const char *self[1] = {j->node};
    const char *const *nodes = j->nodes ? (const char *const *)j->nodes : self;
    size_t n = j->nodes ? (size_t)j->nnodes : 1;
    const char **sw = calloc(n, sizeof *sw), **grp = calloc(n, sizeof *grp);
    char err[512];
    for (size_t i = 0; sw && grp && i < n; i++) {
        const nv_topo_node *w = nv_topo_find(&j->topo, nodes[i]);
        sw[i] = w ? w->sw : NULL;
        grp[i] = w ? w->group : NULL;
    }
    struct nv_running_entry e = {
        .job_id = j->jobid,
        .uid = (uint32_t)j->uid,
        .app = j->opt.app,
        .mode = nv_mode_name(j->mode),
        .start_unix_s = t,
        .end_unix_s = (double)env_ul("SLURM_JOB_END_TIME", 0), /* the time limit's end */
        .nodes = nodes,
        .nnodes = n,
        .node_switch = sw,
        .node_group = grp,
    };
    if (!sw || !grp)
        snprintf(err, sizeof err, "out of memory");
    if (!sw || !grp || nv_registry_write(nv_spank.args.spool, &e, err, sizeof err))
        slurm_error("netvar: job %u: running registry: %s; job_submit will not see this job",
                    j->jobid, err);
    free(sw);
    free(grp);
}

static void prolog(struct job_ctx *j)
{
    double t = now_unix_s();
    char path[PATH_MAX + 128], err[512];
    if (j->first) {
        /* a new job with this id starts: nothing of an earlier run stays */
        int gone = nv_spool_job_reset(j->dir, err, sizeof err);
        if (gone > 0)
            slurm_info("netvar: job %u: %s held %d entries of an earlier run with this job id "
                       "(requeued, or the id reused); removed them",
                       j->jobid, j->dir, gone);
        else if (gone < 0)
            slurm_error("netvar: job %u: cannot reset %s: %s", j->jobid, j->dir, err);
        registry_add(j, t);
    }
    struct nv_node_start st = {.id = ident(j), .start_unix_s = t, .interval_s = j->opt.interval_s};
    /* what the Comment says job_submit decided: only netvar's own trailing
     * annotation, and recorded as the Comment's claim (users can edit their
     * Comment; reports say so), never taken as the decision itself */
    const char *comment = getenv("SLURM_JOB_COMMENT");
    size_t keep = comment ? nv_annotation_strip(comment) : 0;
    const char *note = comment && comment[keep] ? comment + keep : NULL;
    while (note && *note == ' ')
        note++;
    if (note && *note && strnlen(note, 1024) < 1024)
        st.annotation = note;
    nv_ctr_snapshot *snap = NULL;
    char why[512];
    if (nv_mode_wants_counters(j->mode) && j->reader) {
        nv_ctr_reader *r = open_counters(why, sizeof why, log_debug_line);
        snap = r ? malloc(sizeof *snap) : NULL;
        if (!r) {
            slurm_error(
                "netvar: job %u node %s: no counter source: %s; the job runs without counters",
                j->jobid, j->node, why);
            st.counter_source = "none";
            st.counter_error = why;
        } else if (snap && nv_ctr_snapshot_take(r, snap, why, sizeof why) >= 0) {
            st.counter_source = snap->backend;
            st.snapshot = snap;
        } else {
            slurm_error("netvar: job %u node %s: start snapshot failed: %s", j->jobid, j->node,
                        snap ? why : "out of memory");
        }
        if (r)
            nv_ctr_close(r);
    }
    if (nv_mode_wants_segments(j->mode)) {
        /* the job's own ranks write their profiles here, nowhere else */
        snprintf(path, sizeof path, "%s/profiles", j->dir);
        if ((mkdir(path, 0750) && errno != EEXIST) || chown(path, j->uid, j->gid))
            slurm_error("netvar: job %u: cannot prepare %s: %s", j->jobid, path, strerror(errno));
    }
    snprintf(path, sizeof path, "%s/.samples-%s.json", j->dir, j->node);
    unlink(path); /* an earlier run's, on this node; this run's sampler starts after the prolog */
    snprintf(path, sizeof path, "%s/.start-%s.json", j->dir, j->node);
    if (nv_node_start_write(path, &st, err, sizeof err))
        slurm_error("netvar: job %u node %s: %s; no record for this node", j->jobid, j->node, err);
    free(snap);
}

static void epilog(struct job_ctx *j)
{
    char path[PATH_MAX + 128], err[512] = "";
    struct nv_node_record rec = {.id = ident(j), .start_unix_s = NAN, .end_unix_s = now_unix_s()};
    struct nv_node_start_info start;
    nv_ctr_snapshot *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    nv_ctr_delta *d = malloc(sizeof *d);
    double rates[NV_CTR_MAX_PORTS] = {0};
    char source[NV_CTR_BACKEND_MAX] = "none";
    snprintf(path, sizeof path, "%s/.start-%s.json", j->dir, j->node);
    int have_start = nv_node_start_read(path, &start, a, err, sizeof err) == 0;
    if (!have_start && access(path, F_OK) == 0)
        slurm_error("netvar: job %u node %s: %s: %s", j->jobid, j->node, path, err);
    unlink(path);
    if (have_start) {
        rec.start_unix_s = start.start_unix_s;
        rec.annotation = start.annotation;
    }
    if (have_start && start.has_snapshot) {
        nv_ctr_reader *r = NULL;
        err[0] = '\0';
        if (!a || !b || !d)
            snprintf(err, sizeof err, "out of memory");
        else if (start.snapshot_error[0])
            snprintf(err, sizeof err, "%s", start.snapshot_error);
        else if ((r = open_counters(err, sizeof err, log_debug_line)) &&
                 nv_ctr_snapshot_take(r, b, err, sizeof err) >= 0 &&
                 nv_ctr_delta_compute(a, b, d, err, sizeof err) == 0) {
            rec.delta = d;
            for (int p = 0; p < d->nports; p++)
                rates[p] = nv_ctr_port_line_rate(NULL, d->backend, d->port[p].name);
            rec.line_rate_Bps = rates;
            snprintf(source, sizeof source, "%s", a->backend);
            err[0] = '\0';
        }
        if (err[0])
            slurm_error("netvar: job %u node %s: end snapshot: %s; record has no counters",
                        j->jobid, j->node, err);
        if (r)
            nv_ctr_close(r);
    } else if (have_start && start.counter_error[0]) {
        rec.counter_error = start.counter_error;
    }
    rec.counter_source = source;
    snprintf(path, sizeof path, "%s/.samples-%s.json", j->dir, j->node);
    if (access(path, F_OK) == 0) {
        rec.samples = nv_node_samples_read(path, err, sizeof err);
        if (!rec.samples)
            slurm_error("netvar: job %u node %s: %s: %s; record has no samples", j->jobid, j->node,
                        path, err);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/node-%s.json", j->dir, j->node);
    if (nv_node_record_write(path, j->gid, &rec, err, sizeof err))
        slurm_error("netvar: job %u node %s: %s; this node's record is lost", j->jobid, j->node,
                    err);
    free(a);
    free(b);
    free(d);
    if (j->first)
        nv_registry_remove(nv_spank.args.spool, j->jobid);

    /* the last node to finish on a shared spool merges the records */
    if (nv_job_count_node_records(j->dir) == j->nnodes) {
        const nv_job_fabric fab = {&j->topo, nv_spank.args.uplink_rate_Bps,
                                   nv_spank.args.uplinks_per_leaf};
        json_object *job = nv_job_collect(j->dir, (long long)j->jobid, 0,
                                          "none: collected in the epilog; run "
                                          "'netvar collect' with a model for rho",
                                          &fab, log_line, NULL, err, sizeof err);
        snprintf(path, sizeof path, "%s/job.json", j->dir);
        if (!job || nv_json_write_file(path, job, 0640, j->gid, err, sizeof err))
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
    j.mode = nv_spank.args.enabled
                 ? nv_effective_mode(&j.opt, nv_spank.args.default_mode, nv_spank.args.allow_off)
                 : NV_MODE_OFF; /* netvar.conf Enabled=no */
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

void nv_spank_slurmd_start(int ac, char **av)
{
    char why[512];
    nv_spank_parse_args(ac, av, &nv_spank.args, true);
    if (nv_spank.args.config_missing)
        slurm_info("netvar: no %s: using the defaults (mode %s, spool %s)", nv_spank.args.config,
                   nv_mode_name(nv_spank.args.default_mode), nv_spank.args.spool);
    nv_ctr_reader *r = open_counters(why, sizeof why, log_info_line);
    if (r) {
        slurm_info("netvar: counters: this node reads %s counters", nv_ctr_reader_backend(r));
        nv_ctr_close(r);
    } else {
        slurm_error("netvar: counters: %s; jobs in counters, segments or full mode get no counters "
                    "on this node",
                    why);
    }
}
