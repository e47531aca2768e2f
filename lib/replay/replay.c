/* replay.c - traces, the scheduler and its placement policies, metrics
 * (replay.h).  Every netvar decision is nv_submit_decide(), the function
 * job_submit/netvar calls, on a running index built from the simulated
 * cluster's running jobs. */
#include "replay.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "leaf_set.h"
#include "policy.h"
#include "registry.h"
#include "submit_decision.h"

const char *rp_policy_name(rp_policy p)
{
    static const char *const names[] = {"none", "switches", "netvar", "isolated"};
    return p < RP_POLICY_COUNT ? names[p] : "?";
}

/* ---------------------------------------------------------------- traces */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static double rng_unif(uint64_t *s)
{
    return ((double)(rng_next(s) >> 11) + 0.5) / 9007199254740992.0;
}

int rp_trace_app(rp_trace *t, const char *key)
{
    for (size_t i = 0; i < t->napps; i++)
        if (!strcmp(t->app[i].key, key))
            return (int)i;
    if (t->napps >= RP_APPS_MAX || strlen(key) >= sizeof t->app[0].key)
        return -1;
    rp_app *a = &t->app[t->napps];
    memset(a, 0, sizeof *a);
    snprintf(a->key, sizeof a->key, "%s", key);
    a->comm_frac = 0.3;
    a->bytes = 8e6;
    return (int)t->napps++;
}

static int grow(rp_trace *t, size_t *cap, char *err, size_t errlen)
{
    if (t->n < *cap)
        return 0;
    size_t nc = *cap ? *cap * 2 : 1024;
    rp_job *j = realloc(t->job, nc * sizeof *j);
    if (!j) {
        snprintf(err, errlen, "out of memory for %zu jobs", nc);
        return -1;
    }
    t->job = j;
    *cap = nc;
    return 0;
}

int rp_trace_generate(rp_trace *t, size_t njobs, const rp_fabric *f, double load, int max_nodes,
                      uint64_t seed, char *err, size_t errlen)
{
    if (njobs == 0 || njobs > RP_JOBS_MAX || load <= 0 || t->napps == 0 || max_nodes < 1) {
        snprintf(err, errlen, "generate: %zu jobs, load %g, %zu apps, max %d nodes: out of range",
                 njobs, load, t->napps, max_nodes);
        return -1;
    }
    size_t cap = 0;
    t->n = 0;
    uint64_t s = seed ? seed : 1;
    int kmax = 0;
    while ((2 << kmax) <= max_nodes)
        kmax++;
    /* mean node-s per job, to set the arrival rate for the load */
    double lo = log(60), hi = log(86400), mean_rt = (86400 - 60) / (hi - lo);
    double mean_nodes = 0;
    for (int k = 0; k <= kmax; k++)
        mean_nodes += (double)(1 << k) / (kmax + 1);
    double total = (double)rp_fabric_nodes(f);
    double gap = mean_nodes * mean_rt / (total * load);
    double now = 0;
    for (size_t i = 0; i < njobs; i++) {
        if (grow(t, &cap, err, errlen))
            return -1;
        rp_job *j = &t->job[t->n++];
        memset(j, 0, sizeof *j);
        now += -gap * log(rng_unif(&s));
        j->id = (uint32_t)(i + 1);
        j->submit_s = now;
        j->nodes = 1 << (int)(rng_unif(&s) * (kmax + 1));
        if (j->nodes > max_nodes)
            j->nodes = max_nodes;
        j->runtime_s = exp(lo + (hi - lo) * rng_unif(&s));
        j->limit_s = j->runtime_s * (1.2 + 1.8 * rng_unif(&s));
        j->app = (int)(rng_unif(&s) * (double)t->napps) % (int)t->napps;
    }
    return 0;
}

/* "I:J:K" of n increasing node indices, then only blanks; 0 or -1 */
static int read_nodes(const char *s, int n, int **out)
{
    int *v = malloc((size_t)n * sizeof *v);
    if (!v)
        return -1;
    for (int k = 0; k < n; k++) {
        char *e;
        errno = 0;
        long x = strtol(s, &e, 10);
        if (e == s || errno || x < 0 || x >= RP_NODES_MAX || (k && x <= v[k - 1]) ||
            (k + 1 < n ? *e != ':' : strspn(e, " \t\r\n") != strlen(e))) {
            free(v);
            return -1;
        }
        v[k] = (int)x;
        s = e + 1;
    }
    *out = v;
    return 0;
}

int rp_trace_read(rp_trace *t, FILE *in, const char *name, char *err, size_t errlen)
{
    char line[256];
    size_t cap = 0, no = 0;
    t->n = 0;
    while (fgets(line, sizeof line, in)) {
        no++;
        if (!strchr(line, '\n') && !feof(in)) {
            snprintf(err, errlen, "%s:%zu: line longer than 255 bytes", name, no);
            return -1;
        }
        if (line[0] == '#' || line[0] == '\n')
            continue;
        double sub, rt, lim;
        int nodes;
        char app[65];
        int end = 0;
        if (sscanf(line, "%lf,%d,%lf,%lf,%64[A-Za-z0-9_.+-]%n", &sub, &nodes, &rt, &lim, app,
                   &end) != 5 ||
            !(sub >= 0 && sub < 1e10) || nodes < 1 || nodes > RP_NODES_MAX || !(rt > 0) ||
            !(rt < 1e8) || !(lim >= rt) || !(lim < 1e8)) {
            snprintf(err, errlen,
                     "%s:%zu: not \"submit_s,nodes,runtime_s,limit_s,app[,NODES]\" with 0 < "
                     "runtime <= limit < 1e8 s",
                     name, no);
            return -1;
        }
        int *want = NULL;
        if (line[end] == ',' && read_nodes(line + end + 1, nodes, &want)) {
            snprintf(err, errlen,
                     "%s:%zu: NODES is not %d node indices in increasing order joined by ':'", name,
                     no, nodes);
            return -1;
        } else if (line[end] != ',' && strspn(line + end, " \t\r\n") != strlen(line + end)) {
            snprintf(err, errlen, "%s:%zu: text after the app", name, no);
            return -1;
        }
        int a = t->n < RP_JOBS_MAX ? rp_trace_app(t, app) : -1;
        if (a < 0) {
            snprintf(err, errlen, "%s:%zu: more than %d jobs or %d apps", name, no, RP_JOBS_MAX,
                     RP_APPS_MAX);
            free(want);
            return -1;
        }
        if (grow(t, &cap, err, errlen)) {
            free(want);
            return -1;
        }
        rp_job *j = &t->job[t->n++];
        memset(j, 0, sizeof *j);
        j->id = (uint32_t)t->n;
        j->submit_s = sub;
        j->nodes = nodes;
        j->runtime_s = rt;
        j->limit_s = lim;
        j->app = a;
        j->want = want;
    }
    if (t->n == 0) {
        snprintf(err, errlen, "%s: no jobs", name);
        return -1;
    }
    return 0;
}

void rp_trace_apps_from_model(rp_trace *t, const nv_model *m)
{
    for (size_t i = 0; i < t->napps; i++) {
        rp_app *a = &t->app[i];
        nv_app_view v;
        int32_t k = m ? nv_model_app_index(m, a->key) : -1;
        if (k >= 0 && nv_model_app(m, k, &v) == 0 && v.utilization >= 0 && v.utilization <= 1)
            a->comm_frac = v.utilization;
        rp_app_set(a, a->comm_frac, -1);
    }
}

void rp_app_set(rp_app *a, double u, int latency_bound)
{
    a->comm_frac = u;
    /* bytes per rank and phase: a heavy communicator sends large blocks.
     * Only the ratio of a phase's time shared to alone enters a slowdown,
     * so the scale matters only where two jobs' phases differ in length. */
    a->bytes = 64e6 * u;
    a->latency_bound = latency_bound < 0 ? u < 0.1 : latency_bound != 0;
}

int rp_trace_apps_read(rp_trace *t, FILE *in, const char *name, char *err, size_t errlen)
{
    char line[256];
    size_t no = 0;
    int set = 0;
    while (fgets(line, sizeof line, in)) {
        no++;
        if (line[0] == '#' || line[strspn(line, " \t\r")] == '\n')
            continue;
        char key[65];
        double u;
        int lb = -1, end = 0, k = sscanf(line, "%64s %lf %n", key, &u, &end);
        if (k == 2 && line[end] && line[end] != '\n') {
            int e2 = 0;
            if (sscanf(line + end, "%d %n", &lb, &e2) != 1 || (lb != 0 && lb != 1))
                k = 0;
            end += e2;
        }
        if (k != 2 || !(u >= 0 && u <= 1) || strspn(line + end, " \t\r\n") != strlen(line + end)) {
            snprintf(err, errlen,
                     "%s:%zu: not \"key utilization [latency_bound]\" with utilization in "
                     "0..1 and latency_bound 0 or 1",
                     name, no);
            return -1;
        }
        for (size_t i = 0; i < t->napps; i++)
            if (!strcmp(t->app[i].key, key)) {
                rp_app_set(&t->app[i], u, lb);
                set++;
            }
    }
    return set;
}

static int cmp_submit(const void *pa, const void *pb)
{
    const rp_job *a = pa, *b = pb;
    return a->submit_s < b->submit_s   ? -1
           : a->submit_s > b->submit_s ? 1
                                       : (a->id > b->id) - (a->id < b->id);
}

double rp_job_duration_s(const rp_job *j)
{
    double d = j->runtime_s * (1 + (j->stretch > 0 ? j->stretch : 0));
    return j->limit_s >= j->runtime_s && d > j->limit_s ? j->limit_s : d;
}

void rp_trace_reset(rp_trace *t)
{
    for (size_t i = 0; i < t->n; i++) {
        rp_job *j = &t->job[i];
        free(j->node);
        free(j->exclude);
        j->node = j->exclude = NULL;
        j->nexclude = j->nleaves = j->max_leaves = 0;
        j->actions = 0;
        j->skipped = j->shared = false;
        j->start_s = j->end_s = j->ratio_t = j->slowdown_pct = j->wait_max_s = j->phase_alone_s = 0;
        j->pred_pct = NAN;
    }
}

void rp_trace_free(rp_trace *t)
{
    rp_trace_reset(t);
    for (size_t i = 0; i < t->n; i++)
        free(t->job[i].want);
    free(t->job);
    t->job = NULL;
    t->n = 0;
}

/* ---------------------------------------------------------------- scheduler */
#define FREE (-1)
#define NO_NODE (-2) /* a slot of a leaf smaller than the largest */

typedef struct sched {
    const rp_fabric *f;
    rp_trace *t;
    rp_policy p;
    const rp_site *site;
    int nn;         /* nodes */
    int nslot;      /* leaves x per_leaf */
    int *busy;      /* per slot: job index, FREE, NO_NODE */
    long *most;     /* most[k]: nodes of the k + 1 largest leaves */
    int *leaf_free; /* free nodes per leaf */
    int *leaf_ml;   /* jobs under several leaves that hold a node of the leaf */
    int free_total;
    int *excl; /* per node: stamp of the job that excludes it */
    int stamp;
    int *order; /* leaves, scratch */
    int *avail;
    size_t *run; /* running jobs sorted by end */
    size_t nrun;
    uint32_t *leaf_size; /* nodes per leaf, largest first (netvar's query) */
    int *plan_free;      /* per leaf: free nodes in the head's reservation plan */
    int *plan_hist;      /* per count 0 .. per_leaf: leaves with that many in plan_free */
} sched;

/* the fewest leaves that hold n nodes (n at most the fabric's) */
static int leaves_needed(const sched *s, int n)
{
    int lo = 0, hi = s->f->leaves - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (s->most[mid] >= n)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo + 1;
}

static int cmp_int_desc(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (y > x) - (y < x);
}

static int cmp_avail_desc(const void *a, const void *b, void *ctx)
{
    const int *av = ctx;
    int x = av[*(const int *)a], y = av[*(const int *)b];
    return x != y ? (y > x) - (y < x)
                  : (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

static const int *sort_ctx;
static int cmp_avail(const void *a, const void *b)
{
    return cmp_avail_desc(a, b, (void *)sort_ctx);
}

/* job ji, placed, starts at now: into the running list, sorted by end */
static void start(sched *s, size_t ji, double now)
{
    rp_job *j = &s->t->job[ji];
    j->start_s = now;
    j->end_s = now + rp_job_duration_s(j);
    size_t pos = s->nrun;
    while (pos > 0 && s->t->job[s->run[pos - 1]].end_s > j->end_s)
        pos--;
    memmove(s->run + pos + 1, s->run + pos, (s->nrun - pos) * sizeof *s->run);
    s->run[pos] = ji;
    s->nrun++;
}

/* a job with the trace's node list: there when all are free, else 0 */
static int place_wanted(sched *s, size_t ji, double now)
{
    rp_job *j = &s->t->job[ji];
    for (int k = 0; k < j->nodes; k++)
        if (s->busy[j->want[k]] != FREE)
            return 0;
    j->node = malloc((size_t)j->nodes * sizeof *j->node);
    if (!j->node)
        return -1;
    int last = -1;
    j->nleaves = 0;
    for (int k = 0; k < j->nodes; k++) {
        int x = j->want[k], l = x / s->f->per_leaf;
        j->node[k] = x;
        s->busy[x] = (int)ji;
        s->leaf_free[l]--;
        j->nleaves += l != last;
        last = l;
    }
    last = -1;
    for (int k = 0; k < j->nodes && j->nleaves > 1; k++) {
        int l = j->want[k] / s->f->per_leaf;
        if (l != last)
            s->leaf_ml[l]++;
        last = l;
    }
    s->free_total -= j->nodes;
    start(s, ji, now);
    return 1;
}

/* places job ji at time now, or returns 0 */
static int try_place(sched *s, size_t ji, double now)
{
    rp_job *j = &s->t->job[ji];
    const rp_fabric *f = s->f;
    if (j->nodes > s->free_total)
        return 0;
    if (j->want)
        return place_wanted(s, ji, now);
    bool constrained = j->max_leaves > 0 && now < j->submit_s + j->wait_max_s;
    bool isolate = s->p == RP_ISOLATED;
    s->stamp++;
    for (int k = 0; k < j->nexclude; k++)
        s->excl[j->exclude[k]] = s->stamp;
    long sum = 0;
    for (int l = 0; l < f->leaves; l++) {
        int a = s->leaf_free[l];
        if (j->nexclude)
            for (int x = l * f->per_leaf; x < (l + 1) * f->per_leaf; x++)
                a -= s->busy[x] == FREE && s->excl[x] == s->stamp;
        s->avail[l] = a;
        sum += a;
    }
    if (sum < j->nodes)
        return 0;
    int nl = 0, best = -1;
    if (j->nodes <= f->per_leaf)
        for (int l = 0; l < f->leaves; l++)
            if (s->avail[l] >= j->nodes && (best < 0 || s->avail[l] < s->avail[best]))
                best = l;
    if (best >= 0) {
        s->order[0] = best;
        nl = 1;
    } else {
        if (constrained && j->max_leaves <= 1)
            return 0;
        /* several leaves: with isolation only leaves no spanning job uses */
        long have = 0;
        int m = 0;
        for (int l = 0; l < f->leaves; l++)
            if (s->avail[l] > 0 && !(isolate && s->leaf_ml[l] > 0))
                s->order[m++] = l;
        sort_ctx = s->avail;
        qsort(s->order, (size_t)m, sizeof *s->order, cmp_avail);
        while (nl < m && have < j->nodes)
            have += s->avail[s->order[nl++]];
        if (have < j->nodes)
            return 0;
        if (constrained && nl > j->max_leaves)
            return 0;
    }
    j->node = malloc((size_t)j->nodes * sizeof *j->node);
    if (!j->node)
        return -1;
    int got = 0;
    for (int k = 0; k < nl && got < j->nodes; k++) {
        int l = s->order[k];
        for (int x = l * f->per_leaf; x < (l + 1) * f->per_leaf && got < j->nodes; x++)
            if (s->busy[x] == FREE && s->excl[x] != s->stamp) {
                s->busy[x] = (int)ji;
                j->node[got++] = x;
                s->leaf_free[l]--;
            }
        if (nl > 1)
            s->leaf_ml[l]++;
    }
    s->free_total -= j->nodes;
    j->nleaves = nl;
    start(s, ji, now);
    return 1;
}

static void release(sched *s, size_t ji)
{
    rp_job *j = &s->t->job[ji];
    int last = -1;
    for (int k = 0; k < j->nodes; k++) {
        int x = j->node[k], l = x / s->f->per_leaf;
        s->busy[x] = FREE;
        s->leaf_free[l]++;
        if (j->nleaves > 1 && l != last)
            s->leaf_ml[l]--;
        last = l;
    }
    s->free_total += j->nodes;
}

/* whether the k leaves with the most free nodes in the plan hold n */
static bool plan_fits(const sched *s, int k, int n)
{
    long have = 0;
    for (int c = s->f->per_leaf; c > 0 && k > 0 && have < n; c--) {
        int take = s->plan_hist[c] < k ? s->plan_hist[c] : k;
        have += (long)take * c;
        k -= take;
    }
    return have >= n;
}

/* The reservation of the queue's head j, which cannot start now: the
 * time it can (the limit-based end of a running job, in the running
 * list's order), and in *extra the nodes free then beyond its own.  By
 * node count, as backfill plans a job any nodes suit; for a job held to
 * its fewest leaves (--switches, contain) the first end after which that
 * many leaves hold it, since Slurm's backfill tests the switch count at
 * each time it plans (cons_tres fails the test "waiting for switches"),
 * and once the hold ends, the node count.  INFINITY when nothing frees
 * enough. */
static double head_shadow(sched *s, const rp_job *j, double now, long *extra)
{
    const int per = s->f->per_leaf;
    double until = j->submit_s + j->wait_max_s;
    bool held = j->max_leaves > 0 && now < until && !j->want;
    long freeable = s->free_total;
    double count_t = NAN;
    long count_extra = 0;
    if (held) {
        memset(s->plan_hist, 0, (size_t)(per + 1) * sizeof *s->plan_hist);
        for (int l = 0; l < s->f->leaves; l++)
            s->plan_hist[s->plan_free[l] = s->leaf_free[l]]++;
    }
    for (size_t r = 0; r < s->nrun; r++) {
        const rp_job *o = &s->t->job[s->run[r]];
        double when = o->start_s + o->limit_s;
        if (held && !isnan(count_t) && until <= when) { /* the hold is over first */
            *extra = count_extra;
            return until > count_t ? until : count_t;
        }
        freeable += o->nodes;
        if (held)
            for (int k = 0; k < o->nodes; k++) {
                int l = o->node[k] / per;
                s->plan_hist[s->plan_free[l]]--;
                s->plan_hist[++s->plan_free[l]]++;
            }
        if (freeable < j->nodes)
            continue;
        if (isnan(count_t)) {
            count_t = when;
            count_extra = freeable - j->nodes;
        }
        if (!held || plan_fits(s, j->max_leaves, j->nodes)) {
            *extra = freeable - j->nodes;
            return when;
        }
    }
    *extra = count_extra;
    return isnan(count_t) ? INFINITY : until > count_t ? until : count_t;
}

/* netvar's decision at submission, from the running jobs */
static int decide(sched *s, size_t ji)
{
    rp_job *j = &s->t->job[ji];
    const rp_site *site = s->site;
    if (!site || !site->conf)
        return 0;
    rp_trace *t = s->t;
    struct nv_running_app apps[RP_APPS_MAX];
    char *nodes[RP_APPS_MAX];
    memset(apps, 0, sizeof apps);
    size_t napps = 0, unknown = 0;
    int app_slot[RP_APPS_MAX];
    for (size_t a = 0; a < t->napps; a++)
        app_slot[a] = -1;
    for (size_t r = 0; r < s->nrun; r++) {
        const rp_job *o = &t->job[s->run[r]];
        int32_t mi = site->model ? nv_model_app_index(site->model, t->app[o->app].key) : -1;
        if (mi < 0) {
            unknown++;
            continue;
        }
        int slot = app_slot[o->app];
        if (slot < 0) {
            slot = app_slot[o->app] = (int)napps++;
            struct nv_running_app *ra = &apps[slot];
            nv_app_view v;
            nv_model_app(site->model, mi, &v);
            ra->app = mi;
            ra->key = v.key;
            ra->utilization = v.utilization;
            ra->first_jobid = o->id;
            ra->local = true;
            nodes[slot] = calloc(1, NV_REG_NODES_MAX);
            if (!nodes[slot])
                return -1;
            ra->nodes = nodes[slot];
        }
        struct nv_running_app *ra = &apps[slot];
        ra->njobs++;
        if (o->id < ra->first_jobid)
            ra->first_jobid = o->id;
        if (o->nleaves <= 1) {
            ra->jobs_local++;
            continue;
        }
        ra->local = false;
        if ((uint32_t)o->nleaves > ra->span_switches) {
            ra->span_switches = (uint32_t)o->nleaves;
            ra->span_jobid = o->id;
        }
        int last = -1;
        for (int k = 0; k < o->nodes; k++) {
            int l = o->node[k] / s->f->per_leaf;
            if (l != last) {
                char name[24];
                int len = snprintf(name, sizeof name, "s%d", l);
                nv_leaf_set_add(&ra->leaves, name, (size_t)len);
                last = l;
            }
            if (!ra->nodes_cut) {
                char nm[24];
                int len = snprintf(nm, sizeof nm, "%sn%d", ra->nodes_len ? "," : "", o->node[k]);
                if (ra->nodes_len + (size_t)len >= NV_REG_NODES_MAX)
                    ra->nodes_cut = true;
                else {
                    memcpy(ra->nodes + ra->nodes_len, nm, (size_t)len + 1);
                    ra->nodes_len += (size_t)len;
                }
            }
        }
    }
    struct nv_running_index ix = {.njobs = s->nrun,
                                  .unknown_jobs = unknown,
                                  .napps_total = napps,
                                  .napps = napps,
                                  .apps = apps};
    struct nv_submit_query q = {.partition = "batch",
                                .account = "replay",
                                .user = "replay",
                                .app_option = t->app[j->app].key,
                                .min_nodes = (uint32_t)j->nodes,
                                .max_nodes = (uint32_t)j->nodes,
                                .leaf_sizes = s->leaf_size,
                                .nleaf_sizes = (size_t)s->f->leaves};
    struct nv_submit_decision *d = malloc(sizeof *d);
    if (!d) {
        for (size_t a = 0; a < napps; a++)
            free(nodes[a]);
        return -1;
    }
    nv_submit_decide(site->conf, site->model, &ix, &q, d);
    for (size_t a = 0; a < napps; a++)
        free(nodes[a]);
    j->actions = d->actions;
    j->pred_pct = d->own_pct;
    if (d->actions & (NV_ACT_HOLD | NV_ACT_DENY))
        j->skipped = true;
    /* contain: --switches of the decision's count (the fewest leaves that
     * hold the job, from this fabric's leaf sizes), waiting at most
     * ContainWaitSeconds, as Slurm's topology/tree keeps a req_switch */
    if (d->actions & NV_ACT_CONTAIN) {
        j->max_leaves = d->contain_switches ? (int)d->contain_switches : 1;
        j->wait_max_s = d->contain_wait_s;
    }
    /* isolate asks Slurm for whole nodes (apply_decision.c), which every
     * replayed job has already: it keeps no job off a shared leaf */
    if ((d->actions & NV_ACT_AVOID) && d->exclude_len) {
        int n = 1;
        for (const char *c = d->exclude; *c; c++)
            n += *c == ',';
        j->exclude = malloc((size_t)n * sizeof *j->exclude);
        if (j->exclude)
            for (const char *c = d->exclude; *c;) {
                int x;
                if (sscanf(c, "n%d", &x) == 1 && x >= 0 && x < s->nslot)
                    j->exclude[j->nexclude++] = x;
                const char *comma = strchr(c, ',');
                if (!comma)
                    break;
                c = comma + 1;
            }
    }
    free(d);
    return 0;
}

int rp_schedule(rp_trace *t, const rp_fabric *f, rp_policy p, const rp_site *site, char *err,
                size_t errlen)
{
    sched s = {.f = f, .t = t, .p = p, .site = site};
    if (f->leaves < 1 || f->per_leaf < 1 || (long)f->leaves * f->per_leaf > RP_NODES_MAX) {
        snprintf(err, errlen, "fabric of %d x %d nodes: out of range (1 .. %d)", f->leaves,
                 f->per_leaf, RP_NODES_MAX);
        return -1;
    }
    s.nslot = f->leaves * f->per_leaf;
    for (int l = 0; l < f->leaves; l++)
        if (rp_fabric_leaf_nodes(f, l) < 1 || rp_fabric_leaf_nodes(f, l) > f->per_leaf) {
            snprintf(err, errlen, "fabric: leaf %d of %d nodes: out of range (1 .. %d)", l,
                     rp_fabric_leaf_nodes(f, l), f->per_leaf);
            return -1;
        }
    s.nn = (int)rp_fabric_nodes(f);
    for (size_t i = 0; i < t->n; i++)
        for (int k = 0; t->job[i].want && k < t->job[i].nodes; k++) {
            int x = t->job[i].want[k];
            if (x >= s.nslot || x % f->per_leaf >= rp_fabric_leaf_nodes(f, x / f->per_leaf)) {
                snprintf(err, errlen, "job %u: node %d outside the fabric of %d nodes",
                         t->job[i].id, x, s.nn);
                return -1;
            }
        }
    rp_trace_reset(t);
    qsort(t->job, t->n, sizeof *t->job, cmp_submit);
    s.busy = malloc((size_t)s.nslot * sizeof *s.busy);
    s.excl = calloc((size_t)s.nslot, sizeof *s.excl);
    s.most = malloc((size_t)f->leaves * sizeof *s.most);
    s.leaf_free = malloc((size_t)f->leaves * sizeof *s.leaf_free);
    s.leaf_ml = calloc((size_t)f->leaves, sizeof *s.leaf_ml);
    s.order = malloc((size_t)f->leaves * sizeof *s.order);
    s.avail = malloc((size_t)f->leaves * sizeof *s.avail);
    s.run = malloc((t->n + 1) * sizeof *s.run);
    s.leaf_size = malloc((size_t)f->leaves * sizeof *s.leaf_size);
    s.plan_free = malloc((size_t)f->leaves * sizeof *s.plan_free);
    s.plan_hist = malloc((size_t)(f->per_leaf + 1) * sizeof *s.plan_hist);
    size_t *queue = malloc((t->n + 1) * sizeof *queue);
    int rc = -1;
    if (!s.busy || !s.excl || !s.most || !s.leaf_free || !s.leaf_ml || !s.order || !s.avail ||
        !s.run || !s.leaf_size || !s.plan_free || !s.plan_hist || !queue) {
        snprintf(err, errlen, "out of memory for %d nodes and %zu jobs", s.nn, t->n);
        goto out;
    }
    for (int x = 0; x < s.nslot; x++)
        s.busy[x] = x % f->per_leaf < rp_fabric_leaf_nodes(f, x / f->per_leaf) ? FREE : NO_NODE;
    for (int l = 0; l < f->leaves; l++)
        s.leaf_free[l] = s.order[l] = rp_fabric_leaf_nodes(f, l);
    qsort(s.order, (size_t)f->leaves, sizeof *s.order, cmp_int_desc);
    for (int l = 0; l < f->leaves; l++) {
        s.most[l] = s.order[l] + (l ? s.most[l - 1] : 0);
        s.leaf_size[l] = (uint32_t)s.order[l];
    }
    s.free_total = s.nn;
    size_t next = 0, nq = 0;
    double prev = -1;
    while (next < t->n || nq > 0 || s.nrun > 0) {
        double now = INFINITY;
        if (next < t->n)
            now = t->job[next].submit_s;
        if (s.nrun && t->job[s.run[0]].end_s < now)
            now = t->job[s.run[0]].end_s;
        for (size_t q = 0; q < nq; q++) { /* a placement constraint that expires */
            const rp_job *j = &t->job[queue[q]];
            double e = j->submit_s + j->wait_max_s;
            if (j->max_leaves > 0 && e > prev && e < now)
                now = e;
        }
        if (!isfinite(now)) { /* a job that can never run (excluded or larger than the fabric) */
            for (size_t q = 0; q < nq; q++)
                t->job[queue[q]].skipped = true;
            break;
        }
        prev = now;
        size_t done = 0;
        while (done < s.nrun && t->job[s.run[done]].end_s <= now)
            release(&s, s.run[done++]);
        memmove(s.run, s.run + done, (s.nrun - done) * sizeof *s.run);
        s.nrun -= done;
        while (next < t->n && t->job[next].submit_s <= now) {
            rp_job *j = &t->job[next];
            j->pred_pct = NAN;
            if (j->nodes > s.nn)
                j->skipped = true;
            else if (p == RP_SWITCHES && j->nodes > 1) {
                j->max_leaves = leaves_needed(&s, j->nodes);
                j->wait_max_s = site ? site->switches_wait_s : 0;
            } else if (p == RP_NETVAR && decide(&s, next)) {
                snprintf(err, errlen, "out of memory deciding job %u", j->id);
                goto out;
            }
            if (!t->job[next].skipped)
                queue[nq++] = next;
            next++;
        }
        /* FCFS with EASY backfill */
        bool blocked = false;
        double shadow = 0;
        long extra = 0;
        size_t w = 0, tried = 0;
        for (size_t q = 0; q < nq; q++) {
            size_t ji = queue[q];
            rp_job *j = &t->job[ji];
            int placed = 0;
            if (s.free_total > 0 && tried < 1000) {
                if (!blocked)
                    placed = try_place(&s, ji, now);
                else if (j->nodes <= s.free_total &&
                         (now + j->limit_s <= shadow || j->nodes <= extra)) {
                    tried++;
                    placed = try_place(&s, ji, now);
                    if (placed > 0 && now + j->limit_s > shadow)
                        extra -= j->nodes;
                }
            }
            if (placed < 0) {
                snprintf(err, errlen, "out of memory placing job %u", j->id);
                goto out;
            }
            if (placed)
                continue;
            if (!blocked) { /* the head's reservation, from the limits of the running jobs */
                blocked = true;
                /* the running list is sorted by end (the real one, a good
                 * enough stand-in for the limit-based estimate here) */
                shadow = head_shadow(&s, j, now, &extra);
            }
            queue[w++] = ji;
        }
        nq = w;
    }
    rc = 0;
out:
    free(s.busy);
    free(s.excl);
    free(s.most);
    free(s.leaf_free);
    free(s.leaf_ml);
    free(s.order);
    free(s.avail);
    free(s.run);
    free(s.leaf_size);
    free(s.plan_free);
    free(s.plan_hist);
    free(queue);
    return rc;
}

/* ---------------------------------------------------------------- metrics */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double p95(double *v, size_t n)
{
    if (!n)
        return 0;
    qsort(v, n, sizeof *v, cmp_double);
    size_t k = (size_t)ceil(0.95 * (double)n);
    return v[k ? k - 1 : 0];
}

void rp_metrics_of(const rp_trace *t, const rp_fabric *f, rp_metrics *m)
{
    memset(m, 0, sizeof *m);
    m->jobs = t->n;
    double *sl = malloc((t->n + 1) * sizeof *sl), *wt = malloc((t->n + 1) * sizeof *wt);
    if (!sl || !wt) {
        free(sl);
        free(wt);
        return;
    }
    double first = INFINITY, last = 0, busy = 0, ssum = 0, wsum = 0, esum = 0, bsum = 0;
    for (size_t i = 0; i < t->n; i++) {
        const rp_job *j = &t->job[i];
        if (j->submit_s < first)
            first = j->submit_s;
        if (j->skipped) {
            m->skipped++;
            if (j->actions & (NV_ACT_HOLD | NV_ACT_DENY))
                m->held++;
            continue;
        }
        if (!j->node)
            continue;
        sl[m->ran] = j->slowdown_pct;
        wt[m->ran] = j->start_s - j->submit_s;
        ssum += j->slowdown_pct;
        wsum += wt[m->ran];
        if (j->slowdown_pct > m->slow_max)
            m->slow_max = j->slowdown_pct;
        m->ran++;
        busy += j->nodes * j->runtime_s;
        if (j->end_s > last)
            last = j->end_s;
        m->multi_leaf += j->nleaves > 1;
        m->lat_exposed += j->shared && t->app[j->app].latency_bound;
        m->contained += (j->actions & NV_ACT_CONTAIN) != 0;
        m->avoided += (j->actions & NV_ACT_AVOID) != 0;
        m->isolated += (j->actions & NV_ACT_ISOLATE) != 0;
        if (isfinite(j->pred_pct)) {
            double e = j->pred_pct - j->slowdown_pct;
            esum += fabs(e);
            bsum += e;
            m->pred_n++;
        }
    }
    if (m->ran) {
        m->slow_mean = ssum / (double)m->ran;
        m->wait_mean_s = wsum / (double)m->ran;
        m->slow_p95 = p95(sl, m->ran);
        m->wait_p95_s = p95(wt, m->ran);
        m->makespan_s = last - first;
        double cap = (double)rp_fabric_nodes(f) * m->makespan_s;
        m->util_pct = cap > 0 ? 100 * busy / cap : 0;
    }
    if (m->pred_n) {
        m->pred_mae_pp = esum / (double)m->pred_n;
        m->pred_bias_pp = bsum / (double)m->pred_n;
    }
    free(sl);
    free(wt);
}
