/* model_builder.h - assemble a model in memory (calibrate, campaign and
 * train workflows) and save it or turn it into an immutable nv_model.
 *
 * Adding an app, configuration or pair whose key is already present
 * replaces it (so "train" can refresh one app of an existing model).
 * Values are checked when the model is built or saved: both run the full
 * loader on the result, so a builder can never write a file that
 * nv_model_load() would reject.  Not thread-safe (one owner). */
#ifndef NETVAR_MODEL_BUILDER_H
#define NETVAR_MODEL_BUILDER_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

typedef struct nv_model_builder nv_model_builder;

typedef struct nv_app_input {
    const char *key;
    double utilization; /* U_A in [0, 1] */
    nv_util_source utilization_source;
    const nv_latency_summary *latency; /* required */
    const nv_curve_point *points;      /* measured p_A points (may be 0) */
    size_t n_points;
    const nv_curve_point *fit; /* NULL: fitted here from points */
    size_t n_fit;
    double fit_residual_pct;         /* used only with an explicit fit */
    const nv_scaling_point *scaling; /* sorted by nodes (may be 0) */
    size_t n_scaling;
    /* optional "provenance" object (model_load.c); written only when
     * has_provenance is 1, so zero-initialized inputs write none */
    int has_provenance;
    nv_curve_origin curve_origin;
    nv_latency_origin latency_origin;
    double counter_rho; /* written when counter_runs > 0 */
    uint32_t counter_runs, history_runs;
    /* optional utilization profile (1..NV_PROFILE_MAX values in [0,1]) */
    const double *profile;
    size_t n_profile;
    /* optional queueing mechanism ("queue_wait"): p_A against the mean
     * queue wait at the bottleneck (.utilization = wait in us, 0..
     * NV_WAIT_MAX_US), fitted here (isotonic); and the app's own queue-wait
     * profile (1..NV_PROFILE_MAX values in us) */
    const nv_curve_point *wait_points;
    size_t n_wait_points;
    const double *wait_profile_us;
    size_t n_wait_profile;
    /* optional "joint_windows" (1..NV_JOINT_MAX windows, U in [0,1], wait
     * in [0, NV_WAIT_MAX_US] us, each averaged over joint_window_s > 0 s) */
    const nv_joint_window *joint;
    size_t n_joint;
    double joint_window_s;
    /* optional "signature" (fabric.h), or NULL */
    const struct nv_signature *signature;
} nv_app_input;

typedef struct nv_config_input {
    const char *id; /* e.g. "B2.5e4-P4-M10" */
    double bubble_cycles;
    uint32_t partners, messages;
    double utilization;
    const nv_latency_summary *latency; /* required */
    size_t n_slowdowns;                /* apps measured under it */
    const char *const *slowdown_apps;
    const double *slowdown_pct;
    int has_queue_wait;   /* 1: queue_wait_us is written */
    double queue_wait_us; /* mean queue wait alone, us (0..NV_WAIT_MAX_US) */
} nv_config_input;

typedef struct nv_pair_input {
    const char *app, *with; /* slowdown of app beside with */
    double slowdown_pct;
    uint32_t samples;
    double sd_pct;
} nv_pair_input;

nv_model_builder *nv_builder_new(void);
/* A builder holding everything in m (to add to an existing model). */
nv_model_builder *nv_builder_from_model(const nv_model *m);
void nv_builder_free(nv_model_builder *b);
/* The input that adds app v again as the model holds it (its arrays point
 * into the model, which must outlive the add): to change a few fields. */
void nv_app_input_from_view(const nv_app_view *v, nv_app_input *in);
/* The same for configuration i of m: its slowdowns are copied into apps
 * and pct (room for its n_slowdowns each), its id and latency point into
 * m. */
void nv_config_input_from_model(const nv_model *m, int32_t i, const char **apps, double *pct,
                                nv_config_input *in);

/* Each returns 0, or -1 with nv_builder_error() saying why (bad key,
 * failed fit, out of memory); the builder is unchanged on error. */
int nv_builder_set_calibration(nv_model_builder *b, const nv_calibration *cal);
int nv_builder_add_app(nv_model_builder *b, const nv_app_input *app);
int nv_builder_add_config(nv_model_builder *b, const nv_config_input *cfg);
int nv_builder_add_pair(nv_model_builder *b, const nv_pair_input *pair);
/* Removes every co-location entry (a table rebuilt from other runs);
 * 0, or -1 out of memory with the builder unchanged. */
int nv_builder_clear_pairs(nv_model_builder *b);
/* Sets (replaces) the optional Variability Estimate section; NULL removes it. */
struct nv_ve;
int nv_builder_set_variability(nv_model_builder *b, const struct nv_ve *ve);
/* Sets (replaces) the optional allocation-advice section; NULL removes it. */
struct nv_alloc_model;
int nv_builder_set_alloc(nv_model_builder *b, const struct nv_alloc_model *al);
/* Sets (replaces) the optional fabric response (fabric.h); NULL removes it. */
struct nv_fabric;
int nv_builder_set_fabric(nv_model_builder *b, const struct nv_fabric *f);
/* The "bottleneck" object.  Every model a new builder writes has one (with
 * the defaults: idle 0, route latency, shrink 2 samples, until this is
 * called), so history corrections apply to it (model_bottleneck.c); a
 * builder made from a model file without one keeps it without one. */
int nv_builder_set_bottleneck(nv_model_builder *b, const nv_bottleneck *bn);
const char *nv_builder_error(const nv_model_builder *b);

/* Validate and return an immutable model, or NULL with err set. */
nv_model *nv_builder_build(const nv_model_builder *b, char *err, size_t errlen);
/* Validate and write atomically (mode 0644); 0, or -1 with err set. */
int nv_builder_save(const nv_model_builder *b, const char *path, char *err, size_t errlen);
/* nv_builder_save for the builder's last use: its JSON is released once
 * the text is made, so the check load does not hold both at once (a site's
 * year trains in half the memory).  Only nv_builder_free may follow. */
int nv_builder_save_last(nv_model_builder *b, const char *path, char *err, size_t errlen);

#endif
