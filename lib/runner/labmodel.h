/* labmodel.h - the model variants an evaluation scores, built from a
 * network-lab dataset (the directory eval/netlab_eval.sh measures) through
 * the model builder: `netvar labmodel`.
 *
 * What is read (ctr_netlab.h reads the counter files):
 *   dataset.json          schema netvar-netlab-dataset: its apps (name) and
 *                         its CompressionB configurations ("B:P:M")
 *   runs.txt              "kind app with rep runtime_s" per line; the
 *                         alone runs name the apps' counter files and
 *                         their runtimes (the timed windows)
 *   cb_B:P:M.counters.json    a configuration alone (CompressionB beside
 *                         nothing): read over the run minus 1 s at each end
 *   alone_APP_REP.counters.json   an app alone: read over the runtime_s
 *                         seconds ending at its last busy step
 * A counter file that is absent is skipped; one that is there must read.
 *
 * Per configuration: U, the mean offered U of its steps; W, the mean queue
 * wait of its W steps; and the joint means (U and W of the steps that read
 * both).  Per app, over all its alone runs: the octiles of its offered U
 * (its utilization is their mean), of its queue waits (the means of
 * consecutive wait_window_s windows when that is above the sampler's 0.1 s
 * step) and its joint windows (0.5 s, each of at least two steps).
 *
 * Variants, each from a base model (the campaign's model.json, or a file
 * an evaluation re-derived from it):
 *   counters  every configuration's U moved to its counter U (matched by
 *             B, P and M), each app's campaign slowdowns placed on those U
 *             and fitted again (isotonic), its utilization profile and U
 *             from its alone runs; "bottleneck": route counters (latency
 *             when no configuration moved), idle 0, shrink 2 samples
 *   wait      counters, and the queueing mechanism: each configuration's
 *             queue_wait_us (its W), each app's slowdowns against the W and
 *             its own wait profile
 *   nearest   wait, with each configuration at its joint (U, W) and each
 *             app's joint windows (at most NV_JOINT_MAX, every k-th): the
 *             nearest-configurations mechanism; needs every configuration's
 *             counter file
 *   latency   the base model as it is (the latency route), re-pointed
 *             when nv_labmodel_repoint made the base
 * What a variant does not set stays as the base model has it. */
#ifndef NETVAR_LABMODEL_H
#define NETVAR_LABMODEL_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "campaign.h"
#include "model.h"
#include "model_builder.h"

#define NV_LABMODEL_DATASET_SCHEMA "netvar-netlab-dataset"
#define NV_LABMODEL_META_MAX (1u << 20)  /* bytes of dataset.json */
#define NV_LABMODEL_RUNS_MAX (16u << 20) /* bytes of runs.txt */
#define NV_LABMODEL_MAX_CONFIGS 256
#define NV_LABMODEL_MAX_APPS 256
#define NV_LABMODEL_MAX_ALONE 10000    /* alone runs of one dataset */
#define NV_LABMODEL_NAME_MAX 64        /* a configuration's "B:P:M" */
#define NV_LABMODEL_TRIM_S 1.0         /* a configuration's run, trimmed at each end */
#define NV_LABMODEL_JOINT_WINDOW_S 0.5 /* an app's joint windows */
#define NV_LABMODEL_WAIT_WINDOW_MAX_S 60.0

typedef enum nv_labmodel_variant {
    NV_LABMODEL_COUNTERS = 0,
    NV_LABMODEL_WAIT,
    NV_LABMODEL_NEAREST,
    NV_LABMODEL_LATENCY
} nv_labmodel_variant;

/* "counters", "wait", "nearest", "latency"; 0 and *v, or -1 */
int nv_labmodel_variant_from_name(const char *name, nv_labmodel_variant *v);
const char *nv_labmodel_variant_name(nv_labmodel_variant v);

typedef struct nv_labmodel_config {
    char name[NV_LABMODEL_NAME_MAX]; /* as dataset.json writes it */
    double bubble_cycles;
    uint32_t partners, messages;
    int have_file;              /* its counter file is there */
    size_t n_u, n_w, n_joint;   /* steps behind each mean */
    double u, w_us;             /* NAN: no step */
    double joint_u, joint_w_us; /* NAN: no joint step */
} nv_labmodel_config;

typedef struct nv_labmodel_app {
    char key[NV_MODEL_KEY_MAX + 1];
    size_t alone_runs, counter_files;
    double alone_s[NV_CAMPAIGN_MAX_REPEAT]; /* the first alone runs' runtimes, s */
    size_t n_alone_s;                       /* min(alone_runs, NV_CAMPAIGN_MAX_REPEAT) */
    size_t n_u;                             /* U steps over its alone runs */
    double profile[NV_PROFILE_MAX];         /* octiles of U (n_profile 0: none) */
    size_t n_profile;
    double u;            /* their mean; NAN without */
    size_t n_w;          /* W values (steps or window means) */
    double wait_mean_us; /* their mean; NAN without */
    double wait_profile_us[NV_PROFILE_MAX];
    size_t n_wait_profile;
    size_t n_joint_measured; /* joint windows over its alone runs */
    nv_joint_window *joint;  /* the ones a model keeps, in time order */
    size_t n_joint;
} nv_labmodel_app;

typedef struct nv_labmodel {
    double wait_window_s;
    nv_labmodel_config *configs;
    size_t n_configs;
    nv_labmodel_app *apps;
    size_t n_apps;
    /* the nearest variant can be built: every configuration has joint
     * steps; else the first that has none is named */
    int nearest_ok;
    char nearest_missing[NV_LABMODEL_NAME_MAX];
} nv_labmodel;

/* Reads dataset directory dir (named by the admin) into *lm, with W
 * windows of wait_window_s seconds (0.1..NV_LABMODEL_WAIT_WINDOW_MAX_S).
 * 0, or -1 with one line in err naming the file and what is wrong. */
int nv_labmodel_read(const char *dir, double wait_window_s, nv_labmodel *lm, char *err,
                     size_t errlen);
void nv_labmodel_free(nv_labmodel *lm);

/* The dataset configuration a model configuration's measurement comes
 * from: the first of lm's with the same P and M and a B within 1e-6
 * (relative) that has what `want` asks ('u': U steps, 'w': W steps, 'j':
 * joint steps); NULL when none. */
const nv_labmodel_config *nv_labmodel_match(const nv_labmodel *lm, const nv_config_view *c,
                                            int want);

/* An app's alone baseline, against which the evaluation measures its
 * pair and in-leaf runs: the median of its alone runs that are not over
 * stall_ratio times its fastest (nv_campaign_median_kept: an alone run
 * has no neighbour, so one far slower than the same command's fastest is
 * the app's own slow state; 0 keeps every run).  0 with *baseline_s and
 * left_out[k] set for each run left out (alone_s order), or -1 with err
 * when the app has no alone run or more than NV_CAMPAIGN_MAX_REPEAT. */
int nv_labmodel_alone_baseline(const nv_labmodel_app *a, double stall_ratio, double *baseline_s,
                               unsigned char *left_out, size_t *n_left_out, char *err,
                               size_t errlen);

/* How nv_labmodel_repoint makes the campaign points again. */
typedef enum nv_labmodel_point_mode {
    NV_LABMODEL_POINT_AS_WRITTEN = 0, /* the base model's slowdowns */
    NV_LABMODEL_POINT_FASTEST,        /* nv_campaign_points, fastest */
    NV_LABMODEL_POINT_MEDIAN          /* nv_campaign_points, median (stall ratio) */
} nv_labmodel_point_mode;

/* "as-written", "fastest", "median" (netvar labmodel --campaign-point) */
const char *nv_labmodel_point_mode_name(nv_labmodel_point_mode m);

/* The base model with every app's training-set slowdowns made again from
 * its campaign's rounds (dir/campaign_KEY.json, nv_campaign_rounds_read)
 * by the campaign's own point rule (nv_campaign_points) with stall_ratio;
 * a configuration the campaign did not run, and an app without a campaign
 * file (campaign_file false in the report), keep the base's.  The apps' curves
 * stay as the base has them (the variants other than latency fit theirs
 * again from these slowdowns).  Returns the new model, and in *report
 * (caller owns it) [{app, campaign_file, baseline_stalled_rounds, points:
 * [{config, as_written_pct, slowdown_pct, stalled_rounds}]}]; NULL with
 * one line in err naming the file and what is wrong. */
nv_model *nv_labmodel_repoint(const char *dir, const nv_model *base, nv_labmodel_point_mode m,
                              double stall_ratio, json_object **report, char *err, size_t errlen);

/* The app of the dataset keyed key, or NULL */
const nv_labmodel_app *nv_labmodel_app_find(const nv_labmodel *lm, const char *key);

/* Builds variant v from base into a new builder (caller frees); *moved
 * counts the configurations whose U moved to the counters.  NULL with one
 * line in err (nearest without every configuration's joint steps, a value
 * the builder refuses, out of memory). */
nv_model_builder *nv_labmodel_build(const nv_labmodel *lm, const nv_model *base,
                                    nv_labmodel_variant v, size_t *moved, char *err, size_t errlen);

/* The profile route's inputs (`netvar labmodel --no-campaigns`): the
 * fabric's response, and per app of the base model its signature (or
 * NULL: that app has none and is answered by nothing). */
struct nv_fabric;
struct nv_signature;
typedef struct nv_labmodel_profiles {
    const struct nv_fabric *fabric;
    const struct nv_signature *const *sigs; /* indexed like the base model's apps */
} nv_labmodel_profiles;

/* nv_labmodel_build, and with pr every app without its campaign: no
 * campaign slowdown in any configuration, no curve on either axis, its
 * signature and the fabric response in their place (the model loader
 * composes the profile route from them); what the alone runs measured
 * (its U, wait and joint profiles as a neighbour) stays.  pr NULL: the
 * same as nv_labmodel_build. */
nv_model_builder *nv_labmodel_build_profiles(const nv_labmodel *lm, const nv_model *base,
                                             nv_labmodel_variant v, const nv_labmodel_profiles *pr,
                                             size_t *moved, char *err, size_t errlen);

#endif
