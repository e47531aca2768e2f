/* campaign.h - the campaign workflow (`netvar campaign`): an application's
 * sensitivity to network load, after the Queue-theory interference model
 * (sections 4.3-4.4).  The command runs alone (the baseline, with ImpactB
 * beside it) and under each CompressionB configuration (B, P, M), --repeat
 * rounds alternating alone and loaded; then each configuration runs once
 * more with ImpactB beside it for its latency and utilization.  The model
 * file gets one training-set entry per configuration (with the app's
 * slowdown under it) and the app's compression points p_A(U), refitted.
 *
 * The configuration lists, named sets, ids, medians and slowdowns are pure
 * functions; nv_campaign_run does the sweep and saves the model. */
#ifndef NETVAR_CAMPAIGN_H
#define NETVAR_CAMPAIGN_H

#include <stddef.h>

#include "bottleneck.h"
#include "launch_plan.h"
#include "lookup.h"
#include "model.h"
#include "queue.h"

#define NV_CAMPAIGN_MAX_CONFIGS 512
#define NV_CAMPAIGN_MAX_REPEAT 100
#define NV_CAMPAIGN_JOINT_WINDOW_S 0.5 /* the joint windows' length, seconds */

/* One CompressionB configuration. */
typedef struct nv_campaign_config {
    double bubble_cycles; /* B: CPU cycles slept between partners */
    int partners;         /* P */
    int messages;         /* M */
    char id[64];          /* "B2.5e4-P4-M10" */
} nv_campaign_config;

/* "B2.5e4-P4-M10": B in the paper's short notation (no '+', no leading
 * exponent zeros), so ids read like the model's Table 2. */
void nv_campaign_config_id(double b, int p, int m, char *buf, size_t n);

/* "B:P:M[,B:P:M...]" with B in CPU cycles (0..1e12, e.g. 2.5e4), P >= 1
 * and M in 1..1000, at most cap entries.  0, or -1 with one line in err
 * naming --configs and the bad entry. */
int nv_campaign_parse_configs(const char *spec, nv_campaign_config *out, size_t cap, size_t *n,
                              char *err, size_t errlen);

/* A named set: set1 .. set12 (the model's Table 2 training sets: B values
 * accumulate from 2.5e9 down to 2.5e2 cycles, P in 1..14,16,17, M in
 * {1,10}) or paper40 (section 4.3's 40 configurations: B 2.5e4..2.5e7,
 * P 1,4,7,14,17, M 1,10).  0, or -1 with err. */
int nv_campaign_named_set(const char *name, nv_campaign_config *out, size_t cap, size_t *n,
                          char *err, size_t errlen);

/* Keeps the configurations whose P fits on `nodes` nodes (P <= nodes-1),
 * in order; returns how many remain. */
size_t nv_campaign_fit_nodes(nv_campaign_config *c, size_t n, int nodes);

/* Checks that every configuration fits on `nodes` nodes; -1 with err
 * naming the first that does not (placed: the nodes are --load-nodes). */
int nv_campaign_check_fit(const nv_campaign_config *c, size_t n, int nodes, int placed, char *err,
                          size_t errlen);

/* B cycles as CompressionB's sleep at `ghz` GHz, in microseconds. */
double nv_campaign_sleep_us(double bubble_cycles, double ghz);

/* Median of n values, 0 < n <= NV_CAMPAIGN_MAX_REPEAT (the input is not
 * changed); 0 otherwise. */
double nv_campaign_median(const double *v, size_t n);

/* The median of the runs that are not stalls, for n runs of one
 * configuration (0 < n <= NV_CAMPAIGN_MAX_REPEAT): a run that took more than
 * stall_ratio times the fastest of the n is a stall (on the network lab 3
 * of 744 campaign runs of CG under lossy loads took about 211 s against 25
 * to 41 s in the other round, and with two rounds the median is the mean), so
 * stalled[k] is set to 1 for it and it is left out; 0 elsewhere.
 * stall_ratio <= 0 keeps every run.  Returns the median (0 when n is out of
 * range) and stores how many runs were left out in *n_stalled. */
double nv_campaign_median_kept(const double *v, size_t n, double stall_ratio,
                               unsigned char *stalled, size_t *n_stalled);

/* How a configuration's rounds (and the baseline's) become the one runtime
 * its slowdown is computed from.  FASTEST (the default since 2026-11-29):
 * the fastest round, as benchmarks take the fastest of their runs: what the
 * configuration's load does not cause (a retransmission timeout, a burst
 * that meets the app's own in one round only, a preempted rank) only adds
 * time.  On the network lab's eager runs the same point read +294, +410,
 * +463 and +296 % by its median, +266, +291, +304 and +296 % by its fastest
 * round, beside +274 to +304 % for the pair it stands for.  MEDIAN: the
 * median of the rounds that are not stalls (nv_campaign_median_kept), the
 * rule before. */
typedef enum { NV_CAMPAIGN_POINT_FASTEST = 0, NV_CAMPAIGN_POINT_MEDIAN } nv_campaign_point_rule;

/* "fastest" or "median" */
const char *nv_campaign_point_name(nv_campaign_point_rule r);

/* The fastest of n values, 0 < n <= NV_CAMPAIGN_MAX_REPEAT; 0 otherwise.
 * _index: where it is (the first of equals), 0 when n is out of range. */
double nv_campaign_fastest(const double *v, size_t n);
size_t nv_campaign_fastest_index(const double *v, size_t n);

/* (T_with - T_alone) / T_alone in percent, at least -100; 0 when T_alone
 * is not > 0 or T_with is not finite. */
double nv_campaign_slowdown_pct(double t_alone, double t_with);

/* What to run. */
typedef struct nv_campaign_opts {
    const char *model_path; /* with a calibration; updated in place */
    const char *app;        /* app key (nv_model_key_valid) */
    const char *keep_dir;   /* --keep, or NULL for a temporary directory */
    const char *const *cmd; /* the command under test */
    size_t ncmd;
    const nv_campaign_config *cfg;
    size_t ncfg;                  /* 1 .. NV_CAMPAIGN_MAX_CONFIGS */
    int repeat;                   /* 1 .. NV_CAMPAIGN_MAX_REPEAT */
    double timeout_s;             /* longest one run of the command */
    double duration_s;            /* ImpactB beside each configuration */
    double ghz;                   /* turns B cycles into CompressionB's sleep */
    long interval_us;             /* ImpactB's pause between ping-pongs */
    long msg_bytes;               /* CompressionB's message size */
    int replace_points;           /* drop the app's earlier compression points */
    double stall_ratio;           /* a run over this times the fastest of its
                                     configuration is a stall (0: keep all) */
    nv_campaign_point_rule point; /* the rounds' runtime the slowdown uses */
    /* the counters route: U read at the bottleneck port (NULL: latency
     * route only).  With it, the model's U axis is the counters'. */
    const nv_bn_spec *bottleneck;
    double bottleneck_interval_ms; /* sampling step (default 100) */
    /* optional: called after each run with the runs done and the runs in
     * all (repeat x (1 + ncfg)); a progress line (NULL: none) */
    void (*progress)(void *ctx, size_t done, size_t total);
    void *progress_ctx;
} nv_campaign_opts;

/* timeout 3600 s, duration 5 s, 2.6 GHz (the paper's Cab), interval
 * 20000 us, 40960-byte messages, repeat 1, stall ratio 3, the fastest round;
 * no model, app, command or configurations. */
void nv_campaign_opts_defaults(nv_campaign_opts *o);

/* What one configuration gave. */
typedef struct nv_campaign_config_result {
    double runtime_s[NV_CAMPAIGN_MAX_REPEAT];      /* the command under it, per round */
    unsigned char stalled[NV_CAMPAIGN_MAX_REPEAT]; /* 1: that round was a stall */
    size_t n_stalled;                              /* rounds left out of the median */
    double median_s;                               /* of the rounds that are not stalls */
    double point_s;                                /* by the point rule: fastest or median_s */
    double slowdown_pct;                           /* point_s against the baseline's point_s */
    double injected_bytes_per_s;                   /* CompressionB's mean per node over its runs */
    double bytes_per_s_sum;                        /* (the sum and count behind it) */
    int bw_runs;
    nv_latency_summary lat; /* ImpactB beside the configuration alone */
    nv_utilization u;       /* and the utilization it means */
    size_t lat_samples;
    double u_counters;              /* counters route: mean U at the bottleneck (NAN: none) */
    double wait;                    /* and its mean congestion gauge (result's gauge: queue
                                     wait in us, or stall ticks per word; NAN: none) */
    double port_u[NV_BN_MAX_PORTS]; /* each named port's mean U (spec order) */
    size_t counter_steps;           /* sampling steps behind it */
} nv_campaign_config_result;

typedef struct nv_campaign_result {
    double baseline_s[NV_CAMPAIGN_MAX_REPEAT];              /* the command alone, per round */
    unsigned char baseline_stalled[NV_CAMPAIGN_MAX_REPEAT]; /* as a configuration's */
    size_t n_baseline_stalled;
    double baseline_median_s;
    double baseline_point_s;    /* by the point rule, as a configuration's */
    nv_latency_summary app_lat; /* ImpactB beside the baseline runs */
    nv_utilization app_u;
    size_t app_samples;
    /* counters route (n_app_steps 0: not measured) */
    double app_u_counters;              /* the command's mean U at the bottleneck, alone */
    double app_profile[NV_PROFILE_MAX]; /* its quantiles over the timed windows */
    size_t n_app_profile, n_app_steps;
    double route_agreement;             /* Pearson r of the two routes' U over the configurations */
    double app_port_u[NV_BN_MAX_PORTS]; /* each named port's mean U over those windows */
    /* the queueing mechanism (n_app_wait 0: the ports have no gauge) */
    nv_bn_gauge gauge; /* what the wait figures read (bottleneck.h) */
    double app_wait;   /* the command's mean gauge reading at the bottleneck, alone */
    double app_wait_profile[NV_PROFILE_MAX]; /* its quantiles, in the gauge's unit */
    size_t n_app_wait_profile, n_app_wait;
    /* its joint windows (U and gauge over NV_CAMPAIGN_JOINT_WINDOW_S of the
     * baseline runs' timed windows; every k-th when there were more than
     * NV_JOINT_MAX), where the ports have a gauge */
    nv_joint_window app_joint[NV_JOINT_MAX];
    size_t n_app_joint, n_app_joint_measured;
    size_t bottleneck_read_errors;
    nv_campaign_config_result *configs; /* [opts->ncfg] */
    nv_curve_point *fit;                /* the app's p_A(U) fit as saved */
    size_t n_fit;
    int logs_kept; /* failed: the launch logs stay in plan->work_dir */
} nv_campaign_result;

/* The point rule, one implementation for `netvar campaign` and `netvar
 * labmodel --campaign-point`: from r->baseline_s and each of the ncfg
 * configurations' runtime_s (repeat rounds each, 1..NV_CAMPAIGN_MAX_REPEAT)
 * fills the stall marks and counts (stall_ratio, nv_campaign_median_kept),
 * the medians, the points (by rule: the fastest round, or the median) and
 * each configuration's slowdown_pct, its point against the baseline's. */
void nv_campaign_points(nv_campaign_result *r, size_t ncfg, size_t repeat, double stall_ratio,
                        nv_campaign_point_rule rule);

/* Runs the campaign with the plan (checked with nv_run_plan_check) and
 * saves the model.  Call nv_run_catch_signals first so that an interrupt
 * stops the children.  0 with *r filled, or -1 with one line in err that
 * says whether anything ran and that the model file is unchanged.  Free
 * *r with nv_campaign_result_free either way. */
int nv_campaign_run(nv_run_plan *plan, const nv_campaign_opts *o, nv_campaign_result *r, char *err,
                    size_t errlen);
void nv_campaign_result_free(nv_campaign_result *r);

#endif
