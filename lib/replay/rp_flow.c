/* rp_flow.c - the flow simulation's batches and answers (replay.h).
 *
 * On a two-level fat-tree a job under one leaf switch sends nothing over an
 * uplink, and two jobs that share no leaf share no link (each leaf's
 * uplinks and the spines' links down to it are its own).  So only jobs
 * under several leaves are simulated: alone once each, then every group of
 * them that shares leaves while they run together, once per distinct
 * group (a group seen again reuses its answer).  A job's time alone is
 * asked once per shape (alone_key): jobs of the same shape share it. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

typedef struct span {
    size_t job;
    long batch;
    double dt;
} span;

struct rp_flow_plan {
    long nbatch;
    size_t *boff;  /* per batch: offset of its jobs in bjob */
    size_t *bjob;  /* jobs of every batch, batch after batch */
    double *btime; /* their answered seconds */
    size_t nbj, capbj, capb;
    long *alone; /* per job: its alone batch, -1 */
    span *sp;
    size_t nsp, capsp;
    /* distinct groups: open addressing on the group's hash */
    uint64_t *hkey;
    long *hbatch;
    size_t hcap;
    /* alone batches by the job's shape (alone_key) */
    uint64_t *akey;
    long *abatch;
    size_t acap, nalone;
    int *lab;      /* per leaf: its label in the job being keyed, scratch */
    bool *defined; /* per job: its def line is written */
};

typedef struct ev {
    double t;
    size_t job;
    int start;
} ev;

static int cmp_ev(const void *a, const void *b)
{
    const ev *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->start - y->start; /* ends first */
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

static long new_batch(rp_flow_plan *p, const size_t *jobs, size_t k, const rp_trace *t, FILE *out)
{
    if ((size_t)p->nbatch + 1 >= p->capb) {
        size_t nc = p->capb ? p->capb * 2 : 1024;
        size_t *b = realloc(p->boff, nc * sizeof *b);
        if (!b)
            return -1;
        p->boff = b;
        p->capb = nc;
    }
    if (p->nbj + k > p->capbj) {
        size_t nc = p->capbj ? p->capbj * 2 : 4096;
        while (nc < p->nbj + k)
            nc *= 2;
        size_t *b = realloc(p->bjob, nc * sizeof *b);
        if (!b)
            return -1;
        p->bjob = b;
        p->capbj = nc;
    }
    long id = p->nbatch++;
    p->boff[id] = p->nbj;
    memcpy(p->bjob + p->nbj, jobs, k * sizeof *jobs);
    p->nbj += k;
    p->boff[id + 1] = p->nbj;
    /* each job's nodes once, runs of consecutive slots as FIRST-LAST */
    for (size_t i = 0; i < k; i++) {
        if (p->defined[jobs[i]])
            continue;
        p->defined[jobs[i]] = true;
        const rp_job *j = &t->job[jobs[i]];
        fprintf(out, "def %zu %.0f %d", jobs[i], t->app[j->app].bytes, j->nodes);
        for (int n = 0; n < j->nodes;) {
            int e = n;
            while (e + 1 < j->nodes && j->node[e + 1] == j->node[e] + 1)
                e++;
            if (e > n)
                fprintf(out, " %d-%d", j->node[n], j->node[e]);
            else
                fprintf(out, " %d", j->node[n]);
            n = e + 1;
        }
        if (fputc('\n', out) == EOF)
            return -1;
    }
    fprintf(out, "batch %ld %zu", id, k);
    for (size_t i = 0; i < k; i++)
        fprintf(out, " %zu", jobs[i]);
    if (fputc('\n', out) == EOF)
        return -1;
    return id;
}

static int add_span(rp_flow_plan *p, size_t job, long batch, double dt)
{
    if (p->nsp == p->capsp) {
        size_t nc = p->capsp ? p->capsp * 2 : 4096;
        span *s = realloc(p->sp, nc * sizeof *s);
        if (!s)
            return -1;
        p->sp = s;
        p->capsp = nc;
    }
    p->sp[p->nsp++] = (span){job, batch, dt};
    return 0;
}

static uint64_t hash_group(const size_t *g, size_t k)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < k; i++) {
        h ^= (uint64_t)g[i] + 0x9e3779b97f4a7c15ull;
        h *= 1099511628211ull;
        h ^= h >> 29;
    }
    return h ? h : 1;
}

static size_t find_root(size_t *par, size_t x)
{
    while (par[x] != x)
        x = par[x] = par[par[x]];
    return x;
}

/* A job's time alone depends only on its bytes and its shape: the leaves
 * of its ranks up to a renaming (every leaf meets every spine by one link
 * of one rate), each rank's place in its leaf, and where its leaf's first
 * node falls modulo the uplinks (SimGrid's d-mod-k spine choice).  Writes
 * that shape of job j into lab-relabelled form and returns its hash. */
static uint64_t alone_key(const rp_trace *t, const rp_fabric *f, int *lab, size_t j)
{
    const rp_job *o = &t->job[j];
    uint64_t h = 1469598103934665603ull;
    int next = 0;
    double bytes = t->app[o->app].bytes;
    uint64_t bb;
    memcpy(&bb, &bytes, sizeof bb);
    h = (h ^ bb) * 1099511628211ull;
    h = (h ^ (uint64_t)o->nodes) * 1099511628211ull;
    for (int n = 0; n < o->nodes; n++) {
        int l = o->node[n] / f->per_leaf;
        if (lab[l] < 0)
            lab[l] = next++;
        uint64_t v = ((uint64_t)lab[l] << 40) ^ ((uint64_t)(o->node[n] % f->per_leaf) << 20) ^
                     (uint64_t)((long)l * f->per_leaf % f->uplinks);
        h = (h ^ v) * 1099511628211ull;
        h ^= h >> 29;
    }
    for (int n = 0; n < o->nodes; n++)
        lab[o->node[n] / f->per_leaf] = -1;
    return h ? h : 1;
}

/* whether jobs a and b have the same shape (alone_key's), exactly */
static bool alone_same(const rp_trace *t, const rp_fabric *f, int *lab, size_t a, size_t b)
{
    const rp_job *x = &t->job[a], *y = &t->job[b];
    if (x->nodes != y->nodes || t->app[x->app].bytes != t->app[y->app].bytes)
        return false;
    /* lab maps x's leaves to y's; a second map checks it is one to one */
    bool same = true;
    int n = 0;
    for (; n < x->nodes && same; n++) {
        int lx = x->node[n] / f->per_leaf, ly = y->node[n] / f->per_leaf;
        if (lab[lx] < 0)
            lab[lx] = ly;
        same = lab[lx] == ly && x->node[n] % f->per_leaf == y->node[n] % f->per_leaf &&
               (long)lx * f->per_leaf % f->uplinks == (long)ly * f->per_leaf % f->uplinks;
    }
    for (int k = 0; k < n; k++)
        lab[x->node[k] / f->per_leaf] = -1;
    if (!same)
        return false;
    /* one to one: y's leaves in order of first sight match x's */
    for (n = 0; n < y->nodes && same; n++) {
        int lx = x->node[n] / f->per_leaf, ly = y->node[n] / f->per_leaf;
        if (lab[ly] < 0)
            lab[ly] = lx;
        same = lab[ly] == lx;
    }
    for (int k = 0; k < n; k++)
        lab[y->node[k] / f->per_leaf] = -1;
    return same;
}

/* job j's alone batch: one of a job of the same shape, else a new one */
static long alone_batch(rp_flow_plan *p, const rp_trace *t, const rp_fabric *f, size_t j, FILE *out)
{
    uint64_t h = alone_key(t, f, p->lab, j);
    size_t slot = h & (p->acap - 1);
    for (; p->akey[slot]; slot = (slot + 1) & (p->acap - 1))
        if (p->akey[slot] == h && alone_same(t, f, p->lab, p->bjob[p->boff[p->abatch[slot]]], j))
            return p->abatch[slot];
    long b = new_batch(p, &j, 1, t, out);
    if (b >= 0 && p->nalone < p->acap / 2) { /* full enough: no more reuse */
        p->akey[slot] = h;
        p->abatch[slot] = b;
        p->nalone++;
    }
    return b;
}

/* whether job j's traffic is simulated: it ran, across more than one leaf
 * (a job under one leaf never meets another at an uplink) */
static bool simulated(const rp_job *j)
{
    return j->node && j->nleaves > 1;
}

double rp_flow_precision_s(const rp_trace *t, const rp_fabric *f)
{
    double least = INFINITY;
    for (size_t i = 0; i < t->n; i++) {
        const rp_job *j = &t->job[i];
        double b = j->app >= 0 && (size_t)j->app < t->napps ? t->app[j->app].bytes : 0;
        if (simulated(j) && b > 0 && b < least)
            least = b;
    }
    return isfinite(least) && f->link_Bps > 0 ? RP_SIM_PRECISION * least / f->link_Bps : 1e-9;
}

long rp_flow_write(const rp_trace *t, const rp_fabric *f, FILE *out, rp_flow_plan **planp)
{
    rp_flow_plan *p = calloc(1, sizeof *p);
    size_t nev = 0;
    ev *e = malloc((2 * t->n + 1) * sizeof *e);
    size_t *act = malloc((t->n + 1) * sizeof *act), *par = malloc((t->n + 1) * sizeof *par);
    size_t *grp = malloc((t->n + 1) * sizeof *grp);
    long *leaf_of = malloc((size_t)f->leaves * sizeof *leaf_of);
    long rc = -1;
    if (!p || !e || !act || !par || !grp || !leaf_of)
        goto out;
    p->alone = malloc((t->n + 1) * sizeof *p->alone);
    p->hcap = 1 << 16;
    p->hkey = calloc(p->hcap, sizeof *p->hkey);
    p->hbatch = malloc(p->hcap * sizeof *p->hbatch);
    p->acap = 1 << 16;
    p->akey = calloc(p->acap, sizeof *p->akey);
    p->abatch = malloc(p->acap * sizeof *p->abatch);
    p->lab = malloc((size_t)f->leaves * sizeof *p->lab);
    p->defined = calloc(t->n + 1, sizeof *p->defined);
    if (!p->alone || !p->hkey || !p->hbatch || !p->akey || !p->abatch || !p->lab || !p->defined)
        goto out;
    for (long l = 0; l < f->leaves; l++)
        p->lab[l] = -1;
    fprintf(out, "fabric %d %d %d %.6g %.6g %.6g\n", f->leaves, f->per_leaf, f->uplinks,
            f->link_Bps, f->latency_s, rp_flow_precision_s(t, f));
    for (size_t i = 0; i < t->n; i++) {
        const rp_job *j = &t->job[i];
        p->alone[i] = -1;
        if (simulated(j)) {
            e[nev++] = (ev){j->start_s, i, 1};
            e[nev++] = (ev){j->end_s, i, 0};
        }
    }
    qsort(e, nev, sizeof *e, cmp_ev);
    size_t nact = 0;
    for (long l = 0; l < f->leaves; l++)
        leaf_of[l] = -1;
    for (size_t k = 0; k < nev;) {
        double now = e[k].t;
        while (k < nev && e[k].t == now) {
            if (e[k].start)
                act[nact++] = e[k].job;
            else
                for (size_t a = 0; a < nact; a++)
                    if (act[a] == e[k].job) {
                        act[a] = act[--nact];
                        break;
                    }
            k++;
        }
        if (k >= nev || nact < 2)
            continue;
        double dt = e[k].t - now;
        if (dt <= 0)
            continue;
        /* groups: jobs joined by a shared leaf */
        for (size_t a = 0; a < nact; a++)
            par[a] = a;
        for (size_t a = 0; a < nact; a++) {
            const rp_job *j = &t->job[act[a]];
            for (int n = 0; n < j->nodes; n++) {
                int l = j->node[n] / f->per_leaf;
                if (leaf_of[l] < 0)
                    leaf_of[l] = (long)a;
                else {
                    size_t r1 = find_root(par, (size_t)leaf_of[l]), r2 = find_root(par, a);
                    if (r1 != r2)
                        par[r1] = r2;
                }
            }
        }
        for (size_t a = 0; a < nact; a++) {
            const rp_job *j = &t->job[act[a]];
            for (int n = 0; n < j->nodes; n++)
                leaf_of[j->node[n] / f->per_leaf] = -1;
        }
        for (size_t a = 0; a < nact; a++) {
            if (find_root(par, a) != a)
                continue;
            size_t g = 0;
            for (size_t b = 0; b < nact; b++)
                if (find_root(par, b) == a)
                    grp[g++] = act[b];
            if (g < 2)
                continue;
            qsort(grp, g, sizeof *grp, cmp_size);
            uint64_t h = hash_group(grp, g);
            size_t slot = h & (p->hcap - 1);
            long batch = -1;
            while (p->hkey[slot]) {
                if (p->hkey[slot] == h) {
                    batch = p->hbatch[slot];
                    break;
                }
                slot = (slot + 1) & (p->hcap - 1);
            }
            if (batch < 0) {
                if (p->nbatch > (long)(p->hcap / 2)) /* full enough: no more reuse */
                    slot = (size_t)-1;
                batch = new_batch(p, grp, g, t, out);
                if (batch < 0)
                    goto out;
                if (slot != (size_t)-1) {
                    p->hkey[slot] = h;
                    p->hbatch[slot] = batch;
                }
            }
            for (size_t b = 0; b < g; b++) {
                if (p->alone[grp[b]] < 0) {
                    p->alone[grp[b]] = alone_batch(p, t, f, grp[b], out);
                    if (p->alone[grp[b]] < 0)
                        goto out;
                }
                if (add_span(p, grp[b], batch, dt))
                    goto out;
            }
        }
    }
    p->btime = calloc(p->nbj + 1, sizeof *p->btime);
    if (!p->btime || fflush(out))
        goto out;
    for (size_t i = 0; i < p->nbj; i++)
        p->btime[i] = NAN;
    rc = p->nbatch;
out:
    free(e);
    free(act);
    free(par);
    free(grp);
    free(leaf_of);
    if (rc < 0) {
        rp_flow_free(p);
        p = NULL;
    }
    *planp = p;
    return rc;
}

int rp_flow_apply(rp_trace *t, rp_flow_plan *p, FILE *in, size_t *bad, char *err, size_t errlen)
{
    char line[128];
    *bad = 0;
    while (fgets(line, sizeof line, in)) {
        long b;
        size_t job;
        double sec;
        if (sscanf(line, "%ld %zu %lf", &b, &job, &sec) != 3 || b < 0 || b >= p->nbatch ||
            !(sec > 0) || !isfinite(sec)) {
            ++*bad;
            continue;
        }
        size_t k = p->boff[b];
        while (k < p->boff[b + 1] && p->bjob[k] != job)
            k++;
        if (k == p->boff[b + 1]) {
            ++*bad;
            continue;
        }
        p->btime[k] = sec;
    }
    size_t missing = 0;
    for (size_t i = 0; i < t->n; i++)
        t->job[i].ratio_t = 0, t->job[i].shared = false, t->job[i].phase_alone_s = 0;
    for (size_t s = 0; s < p->nsp; s++) {
        const span *sp = &p->sp[s];
        size_t k = p->boff[sp->batch];
        while (k < p->boff[sp->batch + 1] && p->bjob[k] != sp->job)
            k++;
        double shared = p->btime[k], alone = p->btime[p->boff[p->alone[sp->job]]];
        if (!isfinite(shared) || !isfinite(alone)) {
            missing++;
            continue;
        }
        t->job[sp->job].shared = true;
        t->job[sp->job].phase_alone_s = alone;
        double r = shared / alone - 1;
        t->job[sp->job].ratio_t += sp->dt * (r > 0 ? r : 0);
    }
    for (size_t i = 0; i < t->n; i++) {
        rp_job *j = &t->job[i];
        /* the mean excess over the time it held its nodes (its runtime
         * alone, or more when an earlier pass slowed it) */
        double held = j->end_s - j->start_s;
        if (!(held > 0))
            held = j->runtime_s;
        j->slowdown_pct = j->node ? 100 * t->app[j->app].comm_frac * j->ratio_t / held : 0;
    }
    if (missing) {
        snprintf(err, errlen, "the simulator answered no time for %zu job intervals", missing);
        return -1;
    }
    return 0;
}

void rp_flow_free(rp_flow_plan *p)
{
    if (!p)
        return;
    free(p->boff);
    free(p->bjob);
    free(p->btime);
    free(p->alone);
    free(p->sp);
    free(p->hkey);
    free(p->hbatch);
    free(p->akey);
    free(p->abatch);
    free(p->lab);
    free(p->defined);
    free(p);
}
