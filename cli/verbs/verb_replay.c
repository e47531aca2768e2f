/* verb_replay.c - `netvar replay`: a job trace through a simulated
 * cluster under each placement policy (lib/replay), the interference from
 * SimGrid (netvar-replay-sim, tools/replay/), the policy table. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "args.h"
#include "counters_topology.h"
#include "opts.h"
#include "policy.h"
#include "replay.h"
#include "topology_yaml.h"
#include "verbs.h"

extern char **environ;

/* simulator processes at once: the batches are independent */
#define SIM_PARTS 2

static const char help_head[] =
    "Usage: netvar replay [--trace FILE | --jobs N --load X]\n"
    "                     [--nodes N --leaf-nodes N | --topology FILE\n"
    "                     [--topology-format conf|yaml]] [--oversubscription X]\n"
    "                     [--link-gbps G] [--policy LIST]\n"
    "                     [--config FILE] [--model FILE] [--apps FILE] [--per-job]\n"
    "                     [--feedback N] [--svg FILE] [--json|--text]\n"
    "\n"
    "Replays a job trace through a simulated cluster once per placement policy\n"
    "and prints what each costs and buys: every job's slowdown against the\n"
    "same job alone on the same nodes (mean, p95, max, in %), node\n"
    "utilization (%), mean and p95 wait (s), makespan (s), the jobs each\n"
    "netvar action touched, and netvar's predicted slowdown at submission\n"
    "against the simulated one.\n"
    "\n"
    "Policies: none (Slurm's topology/tree best fit), switches (every job asks\n"
    "--switches for as few leaves as hold it, waiting at most --switches-wait),\n"
    "netvar (every submission goes through job_submit/netvar's decision code\n"
    "with the site's netvar.conf and model: contain is --switches of the\n"
    "fewest leaves that hold the job, waiting at most ContainWaitSeconds, or\n"
    "ContainSpanWaitSeconds for a job larger than one leaf;\n"
    "avoid excludes nodes; hold and deny keep the job from running; isolate\n"
    "asks for whole nodes, which every replayed job has, and changes nothing),\n"
    "isolated (a bound like Jigsaw's: a job under several leaves never shares\n"
    "a leaf with another such job).\n"
    "\n"
    "The fabric is a two-level fat-tree: generated, --nodes nodes and\n"
    "--leaf-nodes under each leaf switch, or the site's, --topology FILE:\n"
    "Slurm's topology.conf (topology/tree: SwitchName=s1 Nodes=n[1-32]) or\n"
    "topology.yaml (its default tree or block topology), read as\n"
    "--topology-format says or else by the name (yaml: ending .yaml or .yml).\n"
    "The file gives the leaf switches and the nodes under each; a node listed\n"
    "twice stays under the first leaf that lists it; the switches above the\n"
    "leaves are not read (every leaf reaches every spine).  Its leaves may\n"
    "differ in size, at most 1024 nodes each and 200000 node slots in all\n"
    "(leaves x the largest leaf): a smaller leaf's missing nodes are never\n"
    "used.  Every leaf has leaf-nodes (the largest leaf's) / oversubscription\n"
    "uplinks; every link runs at --link-gbps.\n"
    "\n"
    "The trace is --trace FILE (lines \"submit_s,nodes,runtime_s,limit_s,app\")\n"
    "or a generated one (Poisson arrivals at --load, 2^k nodes, runtimes 60 s\n"
    "to 24 h), its apps the model's.  The scheduler is first come first served\n"
    "with EASY backfill, an approximation of Slurm's; it schedules on runtimes\n"
    "alone, or with --feedback N on the runtimes plus the slowdowns simulated\n"
    "the pass before, N times over, so that interference costs node-hours and\n"
    "waiting (utilization counts the runtimes alone, the work done).  A trace\n"
    "line with a sixth field NODES (e.g. 0:2) runs the job on exactly those\n"
    "nodes, as soon as they are all free, whatever the policy;\n"
    "the indices count from 0, leaf by leaf on a generated fabric and in the\n"
    "order --topology's file first lists the nodes.  --apps sets an app's\n"
    "communication fraction (and bytes per phase, 64 MB x U) from a measured U\n"
    "instead of the model's.\n"
    "\n"
    "Simulated: the slowdowns.  Each app sends, per phase, from every rank to\n"
    "the rank half the job away; SimGrid's flow-level max-min sharing per\n"
    "flow times that phase beside the jobs sharing its leaves, and alone\n"
    "(flows inside a leaf cross no uplink and are left out), on the static\n"
    "d-mod-k routes of SimGrid's fat-tree (--routing dmodk) or with each leaf's\n"
    "uplinks as one trunk (--routing balanced, as perfect adaptive routing\n"
    "would); a phase lasts until its slowest flow is through, and the job's\n"
    "slowdown is its communication fraction (the model's U) times the\n"
    "time-weighted excess.  A flow-level model does not produce latency-bound\n"
    "slowdown: jobs of latency-bound apps (U < 0.1) that shared a leaf are\n"
    "counted apart, not simulated.  Modelled: netvar's own predictions only.\n"
    "\n";

/* the help names them */
_Static_assert(RP_LEAF_NODES_MAX == 1024 && RP_NODES_MAX == 200000, "replay's help: the bounds");

static const char help_tail[] =
    "\n"
    "Output: JSON (the default) with the fabric (where it came from: source\n"
    "\"generated\" or \"topology\" with topology_file and topology_format; its\n"
    "nodes, leaves, leaf_sizes in nodes, leaf_nodes the largest, uplinks per\n"
    "leaf, link_gbps), the trace and one object per policy; --text prints the\n"
    "policy table.\n"
    "\n"
    "Exit status: 0 done, 1 a trace, topology, model or simulator failure, 2\n"
    "bad usage (--topology with --nodes or --leaf-nodes among them).\n"
    "\n"
    "Examples:\n"
    "  netvar replay --nodes 1024 --oversubscription 2 --jobs 5000 --load 1 --text\n"
    "  netvar replay --topology /etc/slurm/topology.conf --jobs 5000 --text\n";

struct rp_opts {
    const char *trace, *config, *model, *policies, *svg, *sim, *routing, *apps, *topology;
    long nodes, leaf_nodes, jobs, max_job_nodes, seed, feedback;
    double over, load, gbps, switches_wait;
    int text, per_job, topo_format;
};

static const char *sim_path(const char *opt, char *buf, size_t cap)
{
    if (opt)
        return opt;
    const char *env = getenv("NETVAR_REPLAY_SIM");
    if (env && *env)
        return env;
    ssize_t n = readlink("/proc/self/exe", buf, cap - 32);
    if (n > 0) {
        buf[n] = 0;
        char *slash = strrchr(buf, '/');
        if (slash) {
            strcpy(slash + 1, "netvar-replay-sim");
            if (access(buf, X_OK) == 0)
                return buf;
        }
    }
    static const char *const dirs[] = {"/usr/libexec/netvar/netvar-replay-sim",
                                       "/usr/local/libexec/netvar/netvar-replay-sim"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if (access(dirs[i], X_OK) == 0)
            return dirs[i];
    return "netvar-replay-sim";
}

/* starts the simulator on in, its answer into out; the pid, or -1 */
static pid_t start_sim(const char *sim, const char *flag, const char *in, const char *out)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
    char *argv[] = {(char *)sim, (char *)(flag ? flag : in), flag ? (char *)in : NULL, NULL};
    pid_t pid;
    int rc = strchr(sim, '/') ? posix_spawn(&pid, sim, &fa, NULL, argv, environ)
                              : posix_spawnp(&pid, sim, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc) {
        fprintf(stderr, "netvar: replay: cannot run the simulator %s: %s\n", sim, strerror(rc));
        return -1;
    }
    return pid;
}

static int wait_sim(const char *sim, pid_t pid)
{
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    if (!WIFEXITED(st) || WEXITSTATUS(st)) {
        fprintf(stderr, "netvar: replay: the simulator %s failed (status %d)\n", sim, st);
        return -1;
    }
    return 0;
}

/* Splits the batch file in into nparts files in.K: the fabric and every
 * job's def line to each part, each batch whole to the part with the
 * fewest rank flows so far; 0 or -1. */
static int split_batches(const char *in, int nparts)
{
    FILE *f = fopen(in, "r"), *part[SIM_PARTS] = {0};
    long load[SIM_PARTS] = {0};
    char name[PATH_MAX + 48];
    int rc = f ? 0 : -1;
    for (int k = 0; k < nparts && !rc; k++) {
        snprintf(name, sizeof name, "%s.%d", in, k);
        int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        part[k] = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (!part[k])
            rc = -1;
    }
    long *flows = NULL; /* per defined job: its rank flows */
    size_t nflows = 0;
    char *line = NULL;
    size_t cap = 0;
    while (!rc && getline(&line, &cap, f) > 0) {
        unsigned long id;
        long n;
        int cur = 0, off = 0;
        if (!strncmp(line, "batch ", 6)) {
            long k;
            for (int q = 1; q < nparts; q++)
                if (load[q] < load[cur])
                    cur = q;
            if (sscanf(line, "batch %*d %ld%n", &k, &off) == 1)
                for (const char *c = line + off; k-- > 0 && sscanf(c, "%lu%n", &id, &off) == 1;
                     c += off)
                    load[cur] += 1 + (id < nflows ? flows[id] : 0);
            if (fputs(line, part[cur]) == EOF)
                rc = -1;
            continue;
        }
        if (sscanf(line, "def %lu %*f %ld", &id, &n) == 2 && n > 0 && id < (1ul << 31)) {
            if (id >= nflows) {
                size_t nc = nflows ? nflows : 1024;
                while (nc <= id)
                    nc *= 2;
                long *g = realloc(flows, nc * sizeof *g);
                if (!g) {
                    rc = -1;
                    break;
                }
                memset(g + nflows, 0, (nc - nflows) * sizeof *g);
                flows = g;
                nflows = nc;
            }
            flows[id] = n;
        }
        for (int q = 0; q < nparts; q++) /* the fabric, defs (and anything else) to all */
            if (fputs(line, part[q]) == EOF)
                rc = -1;
    }
    free(line);
    free(flows);
    if (f)
        fclose(f);
    for (int k = 0; k < nparts; k++)
        if (part[k] && fclose(part[k]))
            rc = -1;
    return rc;
}

/* runs nparts simulators at once, one per part of in, their answers one
 * after the other into out; 0 or -1 */
static int run_sims(const char *sim, const char *flag, const char *in, const char *out, int nparts)
{
    char pin[SIM_PARTS][PATH_MAX + 48], pout[SIM_PARTS][PATH_MAX + 48];
    pid_t pid[SIM_PARTS];
    int rc = nparts > 1 ? split_batches(in, nparts) : 0;
    for (int k = 0; k < nparts; k++) {
        snprintf(pin[k], sizeof pin[k], nparts > 1 ? "%s.%d" : "%s", in, k);
        snprintf(pout[k], sizeof pout[k], nparts > 1 ? "%s.%d" : "%s", out, k);
        pid[k] = rc ? -1 : start_sim(sim, flag, pin[k], pout[k]);
        if (pid[k] < 0)
            rc = -1;
    }
    for (int k = 0; k < nparts; k++)
        if (pid[k] > 0 && wait_sim(sim, pid[k]))
            rc = -1;
    if (nparts > 1) {
        FILE *o = rc ? NULL : fopen(out, "w");
        if (!rc && !o)
            rc = -1;
        for (int k = 0; k < nparts; k++) {
            FILE *a = o ? fopen(pout[k], "r") : NULL;
            char buf[4096];
            size_t n;
            if (o && !a)
                rc = -1;
            while (a && (n = fread(buf, 1, sizeof buf, a)) > 0)
                fwrite(buf, 1, n, o);
            if (a)
                fclose(a);
            unlink(pin[k]);
            unlink(pout[k]);
        }
        if (o && fclose(o))
            rc = -1;
    }
    return rc;
}

static FILE *open_trace(const char *path, const char *opt)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > (off_t)512 << 20) {
        fprintf(stderr, "netvar: replay: %s %s: %s; nothing replayed\n", opt, path,
                fd < 0 ? strerror(errno) : "not a regular file of at most 512 MiB");
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    return fdopen(fd, "r");
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* every job of the trace as the policy ran it; node_of (NULL: the slots
 * themselves) names a slot's node as the trace does */
static json_object *jobs_json(const rp_trace *t, const int *node_of)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; i < t->n; i++) {
        const rp_job *j = &t->job[i];
        json_object *o = json_object_new_object(), *nodes = json_object_new_array();
        json_object_object_add(o, "id", json_object_new_int64(j->id));
        json_object_object_add(o, "app", json_object_new_string(t->app[j->app].key));
        for (int k = 0; j->node && k < j->nodes; k++)
            json_object_array_add(nodes,
                                  json_object_new_int(node_of ? node_of[j->node[k]] : j->node[k]));
        json_object_object_add(o, "nodes", nodes);
        json_object_object_add(o, "leaves", json_object_new_int(j->nleaves));
        json_object_object_add(o, "ran", json_object_new_boolean(j->node != NULL));
        json_object_object_add(o, "submit_s", json_object_new_double(j->submit_s));
        json_object_object_add(o, "start_s", json_object_new_double(j->start_s));
        json_object_object_add(o, "wait_s",
                               j->node ? json_object_new_double(j->start_s - j->submit_s) : NULL);
        json_object_object_add(o, "end_s", json_object_new_double(j->end_s));
        json_object_object_add(o, "comm_frac", json_object_new_double(t->app[j->app].comm_frac));
        json_object_object_add(o, "latency_bound",
                               json_object_new_boolean(t->app[j->app].latency_bound));
        json_object_object_add(o, "phase_bytes", json_object_new_double(t->app[j->app].bytes));
        json_object_object_add(o, "phase_alone_s", json_object_new_double(j->phase_alone_s));
        char acts[96];
        nv_actions_format(j->actions, acts, sizeof acts);
        json_object_object_add(o, "actions", json_object_new_string(acts));
        json_object_object_add(o, "shared", json_object_new_boolean(j->shared));
        json_object_object_add(o, "slowdown_pct", json_object_new_double(j->slowdown_pct));
        json_object_array_add(a, o);
    }
    return a;
}

/* one pass of one policy: schedule, simulate */
static int replay_pass(rp_trace *t, const rp_fabric *f, rp_policy p, const rp_site *site,
                       const char *sim, const char *flag, int nparts, const char *dir,
                       long *batches)
{
    char err[512], in[PATH_MAX + 32], out[PATH_MAX + 32];
    if (rp_schedule(t, f, p, site, err, sizeof err)) {
        fprintf(stderr, "netvar: replay: %s: %s\n", rp_policy_name(p), err);
        return -1;
    }
    snprintf(in, sizeof in, "%s/flows-%s", dir, rp_policy_name(p));
    snprintf(out, sizeof out, "%s/answer-%s", dir, rp_policy_name(p));
    int fd = open(in, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    FILE *fo = fd >= 0 ? fdopen(fd, "w") : NULL;
    rp_flow_plan *plan = NULL;
    *batches = fo ? rp_flow_write(t, f, fo, &plan) : -1;
    if (fo && fclose(fo))
        *batches = -1;
    if (*batches < 0) {
        fprintf(stderr, "netvar: replay: %s: cannot write the flow batches to %s\n",
                rp_policy_name(p), in);
        rp_flow_free(plan);
        return -1;
    }
    int rc = run_sims(sim, flag, in, out, nparts);
    FILE *fi = rc ? NULL : fopen(out, "r");
    size_t bad = 0;
    if (fi) {
        rc = rp_flow_apply(t, plan, fi, &bad, err, sizeof err);
        fclose(fi);
        if (rc)
            fprintf(stderr, "netvar: replay: %s: %s\n", rp_policy_name(p), err);
        if (bad)
            fprintf(stderr, "netvar: replay: %s: %zu lines of the simulator's answer ignored\n",
                    rp_policy_name(p), bad);
    } else
        rc = -1;
    unlink(in);
    unlink(out);
    rp_flow_free(plan);
    return rc;
}

/* one policy: a pass on the runtimes alone, then feedback passes, each
 * scheduling every job for its runtime plus the slowdown the pass before
 * simulated for it; measures the last */
static int replay_one(rp_trace *t, const rp_fabric *f, rp_policy p, const rp_site *site,
                      const char *sim, const char *flag, int nparts, const char *dir, long feedback,
                      rp_metrics *m, long *batches, json_object **jobs, const int *node_of)
{
    for (size_t i = 0; i < t->n; i++)
        t->job[i].stretch = 0;
    int rc = 0;
    for (long k = 0; k <= feedback && !rc; k++) {
        if (k)
            for (size_t i = 0; i < t->n; i++)
                t->job[i].stretch = t->job[i].node ? t->job[i].slowdown_pct / 100 : 0;
        rc = replay_pass(t, f, p, site, sim, flag, nparts, dir, batches);
    }
    if (!rc)
        rp_metrics_of(t, f, m);
    if (!rc && jobs)
        *jobs = jobs_json(t, node_of);
    return rc;
}

static void write_svg(const char *path, const rp_metrics *m, const rp_policy *pol, size_t np)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    FILE *o = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!o) {
        fprintf(stderr, "netvar: replay: --svg %s: %s; no picture written\n", path,
                strerror(errno));
        if (fd >= 0)
            close(fd);
        return;
    }
    double smax = 1e-9, wmax = 1e-9;
    for (size_t i = 0; i < np; i++) {
        smax = fmax(smax, m[i].slow_mean);
        wmax = fmax(wmax, m[i].wait_mean_s);
    }
    int w = 120 + 140 * (int)np;
    fprintf(o,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"300\" "
            "font-family=\"sans-serif\" font-size=\"11\">\n"
            "<text x=\"10\" y=\"16\">mean slowdown (%%, simulated, dark) and mean wait (s, light) "
            "per policy</text>\n",
            w);
    for (size_t i = 0; i < np; i++) {
        double x = 60 + 140 * (double)i, hs = 200 * m[i].slow_mean / smax,
               hw = 200 * m[i].wait_mean_s / wmax;
        fprintf(o,
                "<rect x=\"%.0f\" y=\"%.1f\" width=\"40\" height=\"%.1f\" fill=\"#335\"/>\n"
                "<text x=\"%.0f\" y=\"%.1f\">%.2f %%</text>\n"
                "<rect x=\"%.0f\" y=\"%.1f\" width=\"40\" height=\"%.1f\" fill=\"#9ac\"/>\n"
                "<text x=\"%.0f\" y=\"%.1f\">%.0f s</text>\n"
                "<text x=\"%.0f\" y=\"290\">%s</text>\n",
                x, 260 - hs, hs, x, 255 - hs, m[i].slow_mean, x + 45, 260 - hw, hw, x + 45,
                255 - hw, m[i].wait_mean_s, x, rp_policy_name(pol[i]));
    }
    fprintf(o, "</svg>\n");
    fclose(o);
}

static int parse_policies(const char *s, rp_policy *out, size_t *n)
{
    *n = 0;
    if (!s) {
        for (int p = 0; p < RP_POLICY_COUNT; p++)
            out[(*n)++] = (rp_policy)p;
        return 0;
    }
    char buf[128];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        int p = 0;
        while (p < RP_POLICY_COUNT && strcmp(w, rp_policy_name((rp_policy)p)))
            p++;
        if (p == RP_POLICY_COUNT || *n >= RP_POLICY_COUNT)
            return -1;
        out[(*n)++] = (rp_policy)p;
    }
    return *n ? 0 : -1;
}

static json_object *metrics_json(rp_policy p, const rp_metrics *m, long batches, double secs)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "policy", json_object_new_string(rp_policy_name(p)));
    json_object_object_add(o, "jobs", json_object_new_int64((int64_t)m->jobs));
    json_object_object_add(o, "ran", json_object_new_int64((int64_t)m->ran));
    json_object_object_add(o, "held_or_denied", json_object_new_int64((int64_t)m->held));
    json_object_object_add(o, "never_ran", json_object_new_int64((int64_t)m->skipped));
    json_object_object_add(o, "multi_leaf_jobs", json_object_new_int64((int64_t)m->multi_leaf));
    json_object_object_add(o, "slowdown_mean_pct", json_object_new_double(m->slow_mean));
    json_object_object_add(o, "slowdown_p95_pct", json_object_new_double(m->slow_p95));
    json_object_object_add(o, "slowdown_max_pct", json_object_new_double(m->slow_max));
    json_object_object_add(o, "utilization_pct", json_object_new_double(m->util_pct));
    json_object_object_add(o, "wait_mean_s", json_object_new_double(m->wait_mean_s));
    json_object_object_add(o, "wait_p95_s", json_object_new_double(m->wait_p95_s));
    json_object_object_add(o, "makespan_s", json_object_new_double(m->makespan_s));
    json_object_object_add(o, "contained", json_object_new_int64((int64_t)m->contained));
    json_object_object_add(o, "avoided", json_object_new_int64((int64_t)m->avoided));
    json_object_object_add(o, "isolated", json_object_new_int64((int64_t)m->isolated));
    json_object_object_add(o, "latency_bound_exposed",
                           json_object_new_int64((int64_t)m->lat_exposed));
    json_object_object_add(o, "predicted_jobs", json_object_new_int64((int64_t)m->pred_n));
    json_object_object_add(o, "prediction_mae_pp", json_object_new_double(m->pred_mae_pp));
    json_object_object_add(o, "prediction_bias_pp", json_object_new_double(m->pred_bias_pp));
    json_object_object_add(o, "simulated_batches", json_object_new_int64(batches));
    json_object_object_add(o, "elapsed_s", json_object_new_double(secs));
    return o;
}

int verb_replay(int argc, char **argv)
{
    struct rp_opts o = {.jobs = 2000,
                        .topo_format = -1,
                        .max_job_nodes = 0,
                        .seed = 1,
                        .over = 2,
                        .load = 1.0,
                        .gbps = 100,
                        .switches_wait = 300,
                        .config = getenv("NETVAR_CONF")};
    const nv_opt opts[] = {
        {"trace", "FILE", NV_CLI_STR, &o.trace,
         .help = "the jobs, one \"submit_s,nodes,runtime_s,limit_s,app[,NODES]\" a line, NODES "
                 "the job's node indices in increasing order joined by ':' (default: a "
                 "generated trace)"},
        {"apps", "FILE", NV_CLI_STR, &o.apps,
         .help = "the apps' traffic, one \"key utilization [latency_bound]\" a line: the "
                 "communication fraction (e.g. the app's uplink U measured alone) instead of "
                 "the model's U, latency_bound 0 or 1 (default: U < 0.1)"},
        {"per-job", NULL, NV_CLI_FLAG, &o.per_job, .ival = 1,
         .help = "JSON: also list every job (nodes, submit, start, wait and end in "
                 "seconds, netvar's actions, simulated slowdown, latency-bound) per policy"},
        {"jobs", "N", NV_CLI_LONG, &o.jobs, 1, RP_JOBS_MAX,
         .help = "jobs of the generated trace (default 2000)"},
        {"load", "X", NV_CLI_DOUBLE, &o.load, 0.05, 4,
         .help = "offered load of the generated trace, node-s asked per node-s (0.05-4, "
                 "default 1.0)"},
        {"seed", "N", NV_CLI_LONG, &o.seed, 1, 1e15, .help = "the generator's seed (default 1)"},
        {"max-job-nodes", "N", NV_CLI_LONG, &o.max_job_nodes, 1, RP_NODES_MAX,
         .help = "largest generated job, nodes (default: a quarter of the fabric)"},
        {"nodes", "N", NV_CLI_LONG, &o.nodes, 2, RP_NODES_MAX,
         .help = "nodes of the generated fat-tree (default 1024; a multiple of --leaf-nodes)"},
        {"leaf-nodes", "N", NV_CLI_LONG, &o.leaf_nodes, 1, RP_LEAF_NODES_MAX,
         .help = "nodes under each leaf switch of the generated fat-tree (default 32)"},
        {"topology", "FILE", NV_CLI_STR, &o.topology,
         .help = "the fabric's leaves and nodes from Slurm's topology.conf or topology.yaml "
                 "instead of --nodes and --leaf-nodes; trace node indices count its nodes in "
                 "file order from 0"},
        {"topology-format", "conf|yaml", NV_CLI_CHOICE, &o.topo_format, .choices = "conf|yaml",
         .help = "how to read --topology (default: yaml for a name ending .yaml or .yml, else "
                 "conf)"},
        {"oversubscription", "X", NV_CLI_DOUBLE, &o.over, 1, 64,
         .help = "leaf down links per uplink (1-64, default 2); with --topology, of the "
                 "largest leaf"},
        {"link-gbps", "G", NV_CLI_DOUBLE, &o.gbps, 0.1, 10000,
         .help = "line rate of every link, Gbit/s (default 100)"},
        {"feedback", "N", NV_CLI_LONG, &o.feedback, 0, 10,
         .help = "after the pass on the runtimes alone, N more passes per policy that schedule "
                 "each job for its runtime plus the slowdown the pass before simulated for it "
                 "(at most its limit), so a slowed job holds its nodes longer (0-10, default 0)"},
        {"switches-wait", "S", NV_CLI_SECONDS, &o.switches_wait,
         .help = "how long the switches policy's --switches waits, seconds (default 300)"},
        {"routing", "dmodk|balanced", NV_CLI_STR, &o.routing,
         .help = "uplink routing: dmodk, SimGrid's static fat-tree routes (the default), or "
                 "balanced, each leaf's uplinks as one trunk (faster, no route collisions)"},
        {"policy", "LIST", NV_CLI_STR, &o.policies,
         .help = "comma-separated policies: none, switches, netvar, isolated (default all)"},
        NV_CLI_OPT_CONFIG(&o.config),
        {"model", "FILE", NV_CLI_STR, &o.model,
         .help = "the model netvar decides with (default: ModelFile of netvar.conf)"},
        {"simulator", "PATH", NV_CLI_STR, &o.sim,
         .help = "netvar-replay-sim (default: $NETVAR_REPLAY_SIM, beside netvar, or "
                 "/usr/libexec/netvar)"},
        {"svg", "FILE", NV_CLI_STR, &o.svg,
         .help = "also draw the mean slowdown and wait per policy into FILE (SVG)"},
        NV_OPT_JSON_TEXT(&o.text),
    };
    const nv_opt_spec spec = {"netvar: replay",
                              "; nothing replayed",
                              help_head,
                              help_tail,
                              0,
                              {{"Options:", "replay", opts, sizeof opts / sizeof opts[0]}}};
    int parsed = nv_opts_parse(&spec, argc, argv);
    if (parsed)
        return nv_opts_exit(parsed);
    if (optind < argc) {
        fprintf(stderr, "netvar: replay: unexpected operand '%s'; nothing replayed\n",
                argv[optind]);
        return 2;
    }
    rp_policy pol[RP_POLICY_COUNT];
    size_t np;
    if (parse_policies(o.policies, pol, &np)) {
        fprintf(stderr,
                "netvar: replay: --policy '%s': not a list of none, switches, netvar, isolated; "
                "nothing replayed\n",
                o.policies);
        return 2;
    }
    const char *flag = NULL;
    if (o.routing && !strcmp(o.routing, "balanced"))
        flag = "--trunks";
    else if (o.routing && strcmp(o.routing, "dmodk")) {
        fprintf(stderr, "netvar: replay: --routing '%s': not dmodk or balanced; nothing replayed\n",
                o.routing);
        return 2;
    }
    if (o.topology && (o.nodes || o.leaf_nodes)) {
        fprintf(stderr,
                "netvar: replay: --topology with --%s: the topology gives the nodes; "
                "nothing replayed\n",
                o.nodes ? "nodes" : "leaf-nodes");
        return 2;
    }
    if (!o.topology && o.topo_format >= 0) {
        fprintf(stderr, "netvar: replay: --topology-format without --topology; nothing replayed\n");
        return 2;
    }
    static rp_topo_fabric tf;
    char err[512];
    const char *fmt = NULL;
    if (o.topology) {
        bool yaml = o.topo_format >= 0 ? o.topo_format == 1 : nv_topo_is_yaml_name(o.topology);
        fmt = yaml ? "yaml" : "conf";
        nv_topo topo;
        nv_topo_init(&topo);
        int rc = nv_topo_load_slurm(&topo, o.topology, yaml ? NV_TOPO_YAML : NV_TOPO_CONF, err,
                                    sizeof err);
        if (rc == 0)
            rc = rp_topo_fabric_of(&tf, &topo, o.topology, err, sizeof err);
        nv_topo_free(&topo);
        if (rc) {
            fprintf(stderr,
                    "netvar: replay: --topology: %s (read as topology.%s); nothing replayed\n", err,
                    fmt);
            return 1;
        }
        if (tf.per_leaf / o.over < 1) {
            fprintf(stderr,
                    "netvar: replay: --topology %s: its largest leaf of %d nodes has no uplink at "
                    "--oversubscription %g; nothing replayed\n",
                    o.topology, tf.per_leaf, o.over);
            rp_topo_fabric_free(&tf);
            return 2;
        }
        o.nodes = tf.nodes;
        o.leaf_nodes = tf.per_leaf;
    } else {
        o.nodes = o.nodes ? o.nodes : 1024;
        o.leaf_nodes = o.leaf_nodes ? o.leaf_nodes : 32;
        if (o.nodes % o.leaf_nodes || o.leaf_nodes / o.over < 1) {
            fprintf(stderr,
                    "netvar: replay: --nodes %ld is not a multiple of --leaf-nodes %ld, or "
                    "--oversubscription %g leaves no uplink; nothing replayed\n",
                    o.nodes, o.leaf_nodes, o.over);
            return 2;
        }
    }
    rp_fabric f = {.leaves = o.topology ? tf.leaves : (int)(o.nodes / o.leaf_nodes),
                   .per_leaf = (int)o.leaf_nodes,
                   .uplinks = (int)(o.leaf_nodes / o.over),
                   .link_Bps = o.gbps * 1e9 / 8,
                   .latency_s = 1e-6,
                   .leaf_nodes = o.topology ? tf.leaf_nodes : NULL};
    const struct nv_config *conf = nv_cli_config(o.config);
    const char *mpath = o.model ? o.model : conf->model_file;
    nv_model *model = nv_model_load(mpath, err, sizeof err);
    if (!model)
        fprintf(stderr, "netvar: replay: model %s: %s; netvar predicts nothing\n", mpath, err);
    static rp_trace t;
    if (o.trace) {
        FILE *in = open_trace(o.trace, "--trace");
        if (!in)
            return 1;
        int rc = rp_trace_read(&t, in, o.trace, err, sizeof err);
        fclose(in);
        /* the trace's node indices, the topology's nodes, to the fabric's slots */
        bool unmapped = rc == 0 && o.topology && rp_trace_map_nodes(&t, &tf, err, sizeof err);
        if (rc || unmapped) {
            fprintf(stderr, "netvar: replay: %s%s%s; nothing replayed\n", unmapped ? o.trace : "",
                    unmapped ? ": " : "", err);
            rp_trace_free(&t);
            rp_topo_fabric_free(&tf);
            nv_model_free(model);
            return 1;
        }
    } else {
        size_t na = model ? nv_model_app_count(model) : 0;
        for (size_t i = 0; i < na && t.napps < RP_APPS_MAX; i++) {
            nv_app_view v;
            if (nv_model_app(model, (int32_t)i, &v) == 0)
                rp_trace_app(&t, v.key);
        }
        if (!t.napps)
            rp_trace_app(&t, "app");
        long maxn = o.max_job_nodes ? o.max_job_nodes : o.nodes / 4;
        if (rp_trace_generate(&t, (size_t)o.jobs, &f, o.load, (int)(maxn > 0 ? maxn : 1),
                              (uint64_t)o.seed, err, sizeof err)) {
            fprintf(stderr, "netvar: replay: %s; nothing replayed\n", err);
            return 1;
        }
    }
    rp_trace_apps_from_model(&t, model);
    if (o.apps) {
        FILE *in = open_trace(o.apps, "--apps");
        int n = in ? rp_trace_apps_read(&t, in, o.apps, err, sizeof err) : -1;
        if (in)
            fclose(in);
        if (n < 0) {
            if (in)
                fprintf(stderr, "netvar: replay: %s; nothing replayed\n", err);
            rp_trace_free(&t);
            rp_topo_fabric_free(&tf);
            nv_model_free(model);
            return 1;
        }
        if (n == 0)
            fprintf(stderr,
                    "netvar: replay: --apps %s: names none of the trace's apps; their traffic "
                    "stays the model's\n",
                    o.apps);
    }
    rp_site site = {.conf = conf, .model = model, .switches_wait_s = o.switches_wait};
    char simbuf[PATH_MAX];
    const char *sim = sim_path(o.sim, simbuf, sizeof simbuf);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int nparts = ncpu >= SIM_PARTS ? SIM_PARTS : 1;
    const char *tmp = getenv("TMPDIR");
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/netvar-replay-XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        fprintf(stderr, "netvar: replay: cannot make a directory %s: %s\n", dir, strerror(errno));
        return 1;
    }
    rp_metrics m[RP_POLICY_COUNT];
    long batches[RP_POLICY_COUNT];
    json_object *jobs[RP_POLICY_COUNT] = {0};
    double secs[RP_POLICY_COUNT];
    int rc = 0;
    double t0 = now_s();
    for (size_t i = 0; i < np && !rc; i++) {
        double s0 = now_s();
        rc = replay_one(&t, &f, pol[i], &site, sim, flag, nparts, dir, o.feedback, &m[i],
                        &batches[i], o.per_job && !o.text ? &jobs[i] : NULL,
                        o.topology ? tf.node_of : NULL);
        secs[i] = now_s() - s0;
    }
    rmdir(dir);
    if (rc) {
        for (size_t i = 0; i < np; i++)
            json_object_put(jobs[i]);
        rp_trace_free(&t);
        rp_topo_fabric_free(&tf);
        nv_model_free(model);
        return 1;
    }
    if (o.svg)
        write_svg(o.svg, m, pol, np);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    if (o.text) {
        if (o.topology) {
            int small = f.per_leaf;
            for (int l = 0; l < f.leaves; l++)
                small = tf.leaf_nodes[l] < small ? tf.leaf_nodes[l] : small;
            char sizes[32];
            snprintf(sizes, sizeof sizes, small < f.per_leaf ? "%d-%d" : "%d", small, f.per_leaf);
            printf("netvar replay: %ld nodes (%d leaves of %s from %s, %d uplinks each, %.4g:1 at "
                   "the largest), %zu jobs, %.4g Gbit/s links\n",
                   rp_fabric_nodes(&f), f.leaves, sizes, o.topology, f.uplinks,
                   (double)f.per_leaf / f.uplinks, t.n, o.gbps);
        } else
            printf("netvar replay: %d nodes (%d leaves of %d, %d uplinks each, %.4g:1), %zu jobs, "
                   "%.4g Gbit/s links\n",
                   f.leaves * f.per_leaf, f.leaves, f.per_leaf, f.uplinks,
                   (double)f.per_leaf / f.uplinks, t.n, o.gbps);
        if (o.feedback)
            printf("each policy scheduled %ld more times, every job for its runtime plus the "
                   "slowdown simulated the time before\n",
                   o.feedback);
        else
            printf("scheduled on the runtimes alone: a slowed job does not hold its nodes "
                   "longer, so waits leave out what interference costs (--feedback N)\n");
        printf("%-9s %8s %8s %8s %7s %10s %10s %6s %6s %6s %6s %8s %7s\n", "policy", "slow%",
               "p95%", "max%", "util%", "wait_s", "p95wait_s", "multi", "cont", "avoid", "held",
               "pred_mae", "time_s");
        for (size_t i = 0; i < np; i++)
            printf("%-9s %8.3f %8.3f %8.2f %7.2f %10.0f %10.0f %6zu %6zu %6zu %6zu %8.2f %7.1f\n",
                   rp_policy_name(pol[i]), m[i].slow_mean, m[i].slow_p95, m[i].slow_max,
                   m[i].util_pct, m[i].wait_mean_s, m[i].wait_p95_s, m[i].multi_leaf,
                   m[i].contained, m[i].avoided, m[i].held, m[i].pred_mae_pp, secs[i]);
        for (size_t i = 0; i < np; i++)
            if (m[i].pred_n)
                printf("%s: netvar's prediction at submission - simulated slowdown: mean absolute "
                       "%.2f pp, mean %+.2f pp over %zu jobs\n",
                       rp_policy_name(pol[i]), m[i].pred_mae_pp, m[i].pred_bias_pp, m[i].pred_n);
        for (size_t i = 0; i < np; i++)
            if (m[i].lat_exposed)
                printf("%s: %zu jobs of latency-bound apps shared a leaf with a spanning job "
                       "(not simulated)\n",
                       rp_policy_name(pol[i]), m[i].lat_exposed);
        printf("simulated (SimGrid, flow level): slowdowns; modelled (netvar): predictions; "
               "%.1f s, peak %ld KiB\n",
               now_s() - t0, ru.ru_maxrss);
    } else {
        json_object *j = json_object_new_object();
        json_object *fj = json_object_new_object(), *sizes = json_object_new_array();
        json_object_object_add(fj, "source",
                               json_object_new_string(o.topology ? "topology" : "generated"));
        if (o.topology) {
            json_object *names = json_object_new_array();
            json_object_object_add(fj, "topology_file", json_object_new_string(o.topology));
            json_object_object_add(fj, "topology_format", json_object_new_string(fmt));
            for (int l = 0; l < f.leaves; l++)
                json_object_array_add(names, json_object_new_string(tf.leaf_name[l]));
            json_object_object_add(fj, "leaf_switches", names);
        }
        json_object_object_add(fj, "nodes", json_object_new_int64(rp_fabric_nodes(&f)));
        json_object_object_add(fj, "leaves", json_object_new_int(f.leaves));
        for (int l = 0; l < f.leaves; l++)
            json_object_array_add(sizes, json_object_new_int(rp_fabric_leaf_nodes(&f, l)));
        json_object_object_add(fj, "leaf_sizes", sizes);
        json_object_object_add(fj, "leaf_nodes", json_object_new_int(f.per_leaf));
        json_object_object_add(fj, "uplinks_per_leaf", json_object_new_int(f.uplinks));
        json_object_object_add(fj, "link_gbps", json_object_new_double(o.gbps));
        json_object_object_add(j, "fabric", fj);
        json_object_object_add(j, "jobs", json_object_new_int64((int64_t)t.n));
        json_object_object_add(j, "trace", json_object_new_string(o.trace ? o.trace : "generated"));
        if (!o.trace)
            json_object_object_add(j, "load", json_object_new_double(o.load));
        json_object_object_add(j, "feedback_passes", json_object_new_int64(o.feedback));
        json_object *pa = json_object_new_array();
        for (size_t i = 0; i < np; i++) {
            json_object *pj = metrics_json(pol[i], &m[i], batches[i], secs[i]);
            if (jobs[i])
                json_object_object_add(pj, "jobs", jobs[i]);
            json_object_array_add(pa, pj);
        }
        json_object_object_add(j, "policies", pa);
        json_object_object_add(
            j, "simulated",
            json_object_new_string("slowdown_*: SimGrid flow-level fat-tree; latency-bound apps "
                                   "are counted in latency_bound_exposed, not simulated"));
        json_object_object_add(
            j, "modelled", json_object_new_string("prediction_*: netvar's model at submission"));
        json_object_object_add(j, "elapsed_s", json_object_new_double(now_s() - t0));
        json_object_object_add(j, "peak_rss_kib", json_object_new_int64(ru.ru_maxrss));
        nv_cli_print_json(j);
        json_object_put(j);
    }
    rp_trace_free(&t);
    rp_topo_fabric_free(&tf);
    nv_model_free(model);
    return 0;
}
