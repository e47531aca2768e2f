/* replay.h - `netvar replay`: a job trace through a simulated cluster,
 * under one placement policy at a time.  Pure C, no Slurm, no SimGrid:
 * the network simulation is a separate program (tools/replay/rp_simgrid.cc)
 * that reads the flow batches written here and answers each job's
 * communication time.
 *
 * The scheduler is an approximation of Slurm's: first come first served
 * with EASY backfill (one reservation, for the queue's head, by node count;
 * for a head held to its fewest leaves, by --switches or contain, at the
 * first time that many leaves hold it while the hold lasts, as Slurm's
 * backfill tests the switch count), and topology/tree best-fit placement
 * on a two-level fat-tree: a
 * job that fits under one leaf switch goes to the fullest leaf that holds
 * it; a larger job takes the leaves with the most free nodes first, so as
 * few leaves as possible.  The schedule uses each job's runtime alone;
 * the slowdown found afterwards is reported, not fed back. */
#ifndef NETVAR_REPLAY_H
#define NETVAR_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "model.h"

#define RP_APPS_MAX 64
#define RP_JOBS_MAX 2000000
#define RP_NODES_MAX 200000

typedef enum rp_policy { RP_NONE, RP_SWITCHES, RP_NETVAR, RP_ISOLATED, RP_POLICY_COUNT } rp_policy;
const char *rp_policy_name(rp_policy p);

#define RP_LEAF_NODES_MAX 1024

/* k leaves of per_leaf node slots, each with uplinks links to as many
 * spines; slot x is under leaf x / per_leaf.  leaf_nodes (NULL: every leaf
 * full) gives the nodes of leaf l, 1 .. per_leaf: its first leaf_nodes[l]
 * slots.  A leaf's other slots hold no node: no job is placed there, and
 * the simulator's hosts there carry nothing. */
typedef struct rp_fabric {
    int leaves, per_leaf, uplinks;
    double link_Bps, latency_s;
    const int *leaf_nodes;
} rp_fabric;
/* the nodes of leaf l, and of the whole fabric */
int rp_fabric_leaf_nodes(const rp_fabric *f, int l);
long rp_fabric_nodes(const rp_fabric *f);

/* ---- a fabric from the site's topology (rp_topo.c) ---- */
/* The leaves and their nodes as a topology.conf or topology.yaml lists
 * them (struct nv_topo, counters_topology.h: every node once, under the
 * first leaf switch that lists it): the leaves in the order their first
 * node is listed, the nodes of a leaf in file order.  Topology node i (in
 * file order, the trace's node index i) is fabric slot slot[i]; leaves
 * of unequal size keep per_leaf = the largest, the smaller ones' extra
 * slots empty (node_of[slot] -1). */
struct nv_topo;
typedef struct rp_topo_fabric {
    int leaves, per_leaf, nodes;
    int *leaf_nodes;  /* per leaf */
    char **leaf_name; /* per leaf: its switch (a block's name for block topologies) */
    int *slot;        /* per topology node */
    int *node_of;     /* per slot (leaves x per_leaf): the topology node, -1 */
} rp_topo_fabric;
/* 0, or -1 with one line in err naming source and what is wrong: no node
 * under a leaf switch (a flat topology, or switches without nodes), a
 * node under none, a leaf of more than RP_LEAF_NODES_MAX nodes, or more
 * than RP_NODES_MAX slots (leaves x the largest leaf). */
int rp_topo_fabric_of(rp_topo_fabric *tf, const struct nv_topo *t, const char *source, char *err,
                      size_t errlen);
void rp_topo_fabric_free(rp_topo_fabric *tf);

/* an app's traffic: comm_frac of its runtime alone is communication; one
 * phase sends bytes from every rank to the rank half the job away */
typedef struct rp_app {
    char key[65];
    double comm_frac;
    double bytes;
    bool latency_bound; /* small messages: a flow-level model cannot slow it */
} rp_app;

typedef struct rp_job {
    uint32_t id;
    double submit_s, runtime_s, limit_s;
    int nodes, app;
    /* results of one policy */
    double start_s, end_s;
    int *node; /* nodes, node indices */
    int nleaves;
    unsigned actions;  /* netvar's decision (policy.h mask) */
    double pred_pct;   /* netvar's own predicted slowdown at submission, % (NAN) */
    bool skipped;      /* held or denied: never ran */
    int *want;         /* the trace's node list (NULL: the scheduler places it) */
    int max_leaves;    /* placement constraint (0: none) */
    double wait_max_s; /* how long the constraint holds */
    int *exclude;
    int nexclude;
    bool shared;    /* ran beside another spanning job under a leaf */
    double ratio_t; /* sum of dt * (shared / alone - 1) over its lifetime */
    double slowdown_pct;
    double phase_alone_s; /* the simulator's time of one phase alone (0: not simulated) */
    /* the slowdown (a fraction) an earlier pass simulated for this job,
     * which the scheduler adds to its runtime (up to its limit), so a
     * slowed job holds its nodes longer; kept by rp_trace_reset, 0 to
     * schedule on the runtimes alone */
    double stretch;
} rp_job;

typedef struct rp_trace {
    size_t n;
    rp_job *job;
    size_t napps;
    rp_app app[RP_APPS_MAX];
} rp_trace;

/* A generated trace: Poisson arrivals at the given offered load (node-s
 * asked / node-s available), sizes 2^k up to max_nodes, runtimes
 * log-uniform 60 s .. 24 h, limits 1.2-3 x the runtime, apps drawn
 * uniformly.  Deterministic in seed. */
int rp_trace_generate(rp_trace *t, size_t njobs, const rp_fabric *f, double load, int max_nodes,
                      uint64_t seed, char *err, size_t errlen);
/* "submit_s,nodes,runtime_s,limit_s,app[,NODES]" lines (# comments), app
 * keys added as met; at most RP_JOBS_MAX lines of 256 bytes.  NODES, node
 * indices in increasing order joined by ':' (as many as nodes), places the
 * job exactly there: it starts when they are all free (no policy moves
 * it).  rp_schedule fails on an index outside the fabric. */
int rp_trace_read(rp_trace *t, FILE *in, const char *name, char *err, size_t errlen);
/* The trace's node lists, topology node indices, to tf's slots (in
 * increasing order again).  0, or -1 with err on an index outside the
 * topology's nodes. */
int rp_trace_map_nodes(rp_trace *t, const rp_topo_fabric *tf, char *err, size_t errlen);
/* an app's traffic from the model's U when it knows the app, else 0.3 */
void rp_trace_apps_from_model(rp_trace *t, const nv_model *m);
/* Sets an app's traffic from its communication fraction u (0..1, e.g. the
 * utilization of its bottleneck measured alone): comm_frac u, bytes per
 * rank and phase 64 MB x u, latency-bound as given (1, 0) or (-1) when u
 * < 0.1.  The one rule of both the model's apps and --apps. */
void rp_app_set(rp_app *a, double u, int latency_bound);
/* "key utilization [latency_bound]" lines (# comments; latency_bound 0 or
 * 1, default rp_app_set's rule): sets the trace's apps of those keys by
 * rp_app_set; keys the trace has not are ignored.  The count set, or -1
 * with err. */
int rp_trace_apps_read(rp_trace *t, FILE *in, const char *name, char *err, size_t errlen);
int rp_trace_app(rp_trace *t, const char *key);
/* forgets one policy's results (the stretch stays) */
void rp_trace_reset(rp_trace *t);
/* how long job j holds its nodes: its runtime, plus its stretch, at most
 * its limit (Slurm ends a job there) */
double rp_job_duration_s(const rp_job *j);
void rp_trace_free(rp_trace *t);

typedef struct rp_site {
    const struct nv_config *conf; /* netvar.conf; NULL: no rules */
    const nv_model *model;        /* NULL: netvar predicts nothing */
    double switches_wait_s;       /* --switches' wait (Slurm's max-time) */
} rp_site;

/* Runs the schedule of t under p on f: every job's start, end, nodes,
 * and (RP_NETVAR) the decision.  0, or -1 with err. */
int rp_schedule(rp_trace *t, const rp_fabric *f, rp_policy p, const rp_site *s, char *err,
                size_t errlen);

/* ---- the flow simulation's input and answer ---- */
/* Writes the batches: each job under several leaves alone, and each set of
 * such jobs that share a leaf while they run together ("fabric" first,
 * then each job's "def" line before the first "batch" line naming it;
 * tools/replay/rp_simgrid.cc reads them).  Returns the batch
 * count, -1 on a write error.  The plan is kept in *plan for rp_flow_apply. */
typedef struct rp_flow_plan rp_flow_plan;
/* SimGrid's timing precision (events closer than it are one), as a
 * fraction of the shortest phase a job under several leaves can have: its
 * bytes through one node's link at the line rate.  SimGrid 3.32's default,
 * 1e-9 s, costs 2-3x the solves at 10 000 nodes for no difference that
 * shows: at 1e-3 the phases move by at most 0.06 %. */
#define RP_SIM_PRECISION 1e-3
/* the precision rp_flow_write gives the simulator, s (1e-9 with no such job) */
double rp_flow_precision_s(const rp_trace *t, const rp_fabric *f);
long rp_flow_write(const rp_trace *t, const rp_fabric *f, FILE *out, rp_flow_plan **plan);
/* Reads "BATCH JOB SECONDS" lines and sets each job's slowdown_pct.
 * Lines that name no planned pair are counted in *bad. */
int rp_flow_apply(rp_trace *t, rp_flow_plan *plan, FILE *in, size_t *bad, char *err, size_t errlen);
void rp_flow_free(rp_flow_plan *plan);

/* ---- metrics ---- */
typedef struct rp_metrics {
    size_t jobs, ran, skipped, multi_leaf, contained, avoided, isolated, held;
    double slow_mean, slow_p95, slow_max; /* % */
    double util_pct; /* node-s of work (the runtimes alone) / node-s over the makespan */
    double wait_mean_s, wait_p95_s, makespan_s;
    size_t lat_exposed; /* latency-bound jobs under a leaf with a spanning job */
    size_t pred_n;
    double pred_mae_pp, pred_bias_pp; /* netvar's prediction - simulated, pp */
} rp_metrics;
void rp_metrics_of(const rp_trace *t, const rp_fabric *f, rp_metrics *m);

#endif
