/* model.h - the netvar model: an immutable, validated, in-memory copy of a
 * model file (schema "netvar-model", version 1).
 *
 * Life cycle: nv_model_load() -> const use from any number of threads ->
 * nv_model_free().  A loaded model is never modified, so readers need no
 * lock; a reloader builds a new model and swaps the pointer (under its own
 * lock) and frees the old one when no reader holds it.  App lookups are
 * O(1) (hash table); nothing here allocates after load.
 *
 * To make a model (calibrate/campaign/train), use model_builder.h.
 * To predict, use predict.h.  The file format is documented in
 * docs/model-format.md. */
#ifndef NETVAR_MODEL_H
#define NETVAR_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "advice.h"
#include "calibration.h"
#include "compression.h"
#include "lookup.h"

#define NV_MODEL_SCHEMA "netvar-model"
#define NV_MODEL_VERSION 1
/* What slurmctld holds: a loaded model keeps about 1.4 KiB per app and 57
 * bytes per co-location entry (tests/bench/model_memory.py), so the caps
 * below bound it at about 135 MiB, and a site's year of a million jobs
 * (about 5 000 apps and 115 000 entries: 13 MiB) fits ten times over.  The
 * file cap follows from them (about 1.1 KiB per app and 91 bytes per
 * entry in the file).  Loading reads the file into one buffer and parses
 * it one app and one entry at a time (json_stream.h), so its transient
 * memory is the file plus about one element's objects: the 1 M-job model
 * (16.9 MB) loads in 0.25 s with 14 MiB above what it keeps (16 MiB). */
#define NV_MODEL_MAX_APPS 50000u
#define NV_MODEL_MAX_PAIRS 1150000u
#define NV_MODEL_MAX_BYTES (192u * 1024u * 1024u) /* largest file loaded */
#define NV_MODEL_KEY_MAX 255                      /* app keys: 1..255 of [A-Za-z0-9._+:/@=-] */

typedef struct nv_model nv_model;

/* Where an app's utilization U_A came from. */
typedef enum nv_util_source {
    NV_USRC_LATENCY = 0,  /* ImpactB latency through the inverse P-K formula */
    NV_USRC_COUNTERS = 1, /* port counters, rho = lambda/mu */
} nv_util_source;

const char *nv_util_source_name(nv_util_source s); /* "latency" / "counters" */

/* Where an app's compression curve p_A(U) came from (optional "provenance"
 * object of an app; files without it read as campaign / impactb). */
typedef enum nv_curve_origin {
    NV_CURVE_CAMPAIGN = 0,   /* CompressionB campaign on a real allocation */
    NV_CURVE_PRODUCTION = 1, /* learned by `netvar train` from production history */
    NV_CURVE_NONE = 2,       /* no curve */
    NV_CURVE_PROFILE = 3,    /* composed at load from the app's signature and the
                                model's fabric response (fabric.h); never written */
} nv_curve_origin;
typedef enum nv_latency_origin {
    NV_LATENCY_IMPACTB = 0, /* ImpactB measured beside the app */
    NV_LATENCY_DERIVED = 1, /* P-K latency at the app's counter U (no ImpactB run) */
} nv_latency_origin;
const char *nv_curve_origin_name(nv_curve_origin o);     /* "campaign", "production", "none" */
const char *nv_latency_origin_name(nv_latency_origin o); /* "impactb", "derived" */

/* 1 when key is a valid app key (length and characters), else 0. */
int nv_model_key_valid(const char *key);

/* Load and validate a model file.  On any problem returns NULL and writes
 * one line to err (no trailing newline) naming the field, its value and the
 * reason, e.g. "apps[3].latency.mean_us: value NaN is not a finite number". */
nv_model *nv_model_load(const char *path, char *err, size_t errlen);
/* The same from memory (len bytes, need not be NUL-terminated). */
nv_model *nv_model_load_buffer(const char *buf, size_t len, char *err, size_t errlen);
void nv_model_free(nv_model *m);

/* Write the model to path atomically (temp file in the same directory,
 * fsync, rename; mode 0644).  Returns 0, or -1 with err set. */
int nv_model_save(const nv_model *m, const char *path, char *err, size_t errlen);

/* ---- read-only access; every pointer lives as long as the model ---- */

size_t nv_model_app_count(const nv_model *m);
size_t nv_model_config_count(const nv_model *m);
size_t nv_model_pair_count(const nv_model *m);

/* App index for a key, or -1 when the model does not know it.  O(1). */
int32_t nv_model_app_index(const nv_model *m, const char *key);

const nv_calibration *nv_model_calibration(const nv_model *m);

/* Bytes of the region a large model's prediction arrays were packed into
 * at load, advised for transparent huge pages (fewer TLB misses when
 * slurmctld predicts for random pairs); 0 when the model was too small to
 * pack or the mapping failed (its arrays then stay where they are). */
size_t nv_model_hot_bytes(const nv_model *m);

/* One window of an app's joint reading at the bottleneck: its U and its
 * queue wait, each averaged over the same few tenths of a second of its
 * timed alone run (the nearest-configurations mechanism's neighbour side). */
typedef struct nv_joint_window {
    float u, w_us;
} nv_joint_window;
#define NV_JOINT_MAX 512 /* windows of one app */

typedef struct nv_app_view {
    const char *key;
    double utilization; /* U_A in [0, 1] */
    nv_util_source utilization_source;
    const nv_latency_summary *latency; /* ImpactB latency beside the app */
    const nv_curve_point *points;      /* measured p_A points */
    size_t n_points;
    const nv_curve_point *fit; /* isotonic fit, sorted by U */
    size_t n_fit;
    double fit_residual_pct;         /* weighted RMS of the fit, pp */
    const nv_scaling_point *scaling; /* nodes -> median runtime, sorted */
    size_t n_scaling;
    /* optional provenance (zero when the file has none) */
    nv_curve_origin curve_origin;
    nv_latency_origin latency_origin;
    double counter_rho;    /* median counter-derived rho over runs */
    uint32_t counter_runs; /* runs behind counter_rho; 0 = not measured */
    uint32_t history_runs; /* job records `netvar train` used; 0 = none */
    /* optional "utilization_profile": U at the bottleneck over the app's
     * run, n_profile equally weighted values sorted ascending (0 = none) */
    const double *profile;
    size_t n_profile;
    /* optional "queue_wait": the queueing mechanism.  Points and fit of
     * p_A against the mean queue wait at the bottleneck (the .utilization
     * member holds the wait in microseconds here), and the app's own queue
     * wait over its run as n_wait_profile ascending values, microseconds */
    const nv_curve_point *wait_points;
    size_t n_wait_points;
    const nv_curve_point *wait_fit;
    size_t n_wait_fit;
    const double *wait_profile_us;
    size_t n_wait_profile;
    double wait_fit_residual_pct; /* weighted RMS of the wait points about their fit, pp */
    int prefers_wait;             /* this victim's campaign lies on a monotone curve
                                           against the wait at least as well (within 1 pp) as
                                           against U (informational: predictions compute both
                                           mechanisms) */
    /* history corrections fitted at load from the co-location table (see
     * model_bottleneck.c), factors already shrunk toward 1 by sample count */
    double sensitivity;           /* scales the physics when this app is the victim */
    double pressure;              /* scales it when this app is a neighbour */
    uint32_t sensitivity_samples; /* table samples behind each (0 = none) */
    uint32_t pressure_samples;
    int neighbour_pressures_apply; /* 1 when the neighbours' pressures correct this
                                           app's answers as a victim: it has pairs of its
                                           own, or the model is on the latency route; 0: a
                                           victim without pairs gets its physics */
    /* the bandwidth-share mechanism's weight of this app as a victim: its
     * own U above the idle bottleneck's, in [0, 1] (model_bottleneck.c) */
    double share_weight;
    /* optional "joint_windows": the app's (U, W) over n_joint windows of
     * joint_window_s seconds, in time order (0 = none) */
    const nv_joint_window *joint;
    size_t n_joint;
    double joint_window_s;
    /* as a victim: it has a slowdown under every configuration of a model
     * whose configurations all carry their queue wait, so the
     * nearest-configurations mechanism answers beside a neighbour with
     * joint windows (model_bottleneck.c) */
    int nearest_victim;
    /* optional "signature" (fabric.h): one profiled run's time in MPI by
     * message class, or NULL; with curve_origin NV_CURVE_PROFILE the fits
     * above were composed from it and the model's fabric at load */
    const struct nv_signature *signature;
    uint32_t curve_runs; /* runs behind the answering curve: the campaign
                            points' samples, or the signature's runs */
} nv_app_view;

#define NV_PROFILE_MAX 8   /* values in an app's utilization_profile (octiles) */
#define NV_WAIT_MAX_US 1e7 /* a queue wait beyond 10 s is not a measurement */

/* What the queueing mechanism's axis reads (the campaign's port gauge). */
typedef enum nv_wait_gauge {
    NV_WAIT_QUEUE_US = 0,       /* a queue's wait, microseconds (the lab's qdisc backlog / rate) */
    NV_WAIT_STALL_PER_WORD = 1, /* InfiniBand port_xmit_wait ticks per 4-byte word sent */
    NV_WAIT_PAUSE_PER_PACKET = 2, /* Slingshot NIC hni_tx_paused cycles per packet sent */
    NV_WAIT_STALL_PER_FLIT = 3,   /* Aries tile ROWBUS_STALL_CNT flit times per incoming flit */
} nv_wait_gauge;

/* "queue_us" / "stall_per_word" / "paused_cycles_per_packet" / "stall_per_flit" */
const char *nv_wait_gauge_name(nv_wait_gauge g);

/* the history corrections' spread before any pair is seen: their ridge is
 * at least the table's noise variance over this squared (model_bottleneck.c) */
#define NV_CORRECTION_PRIOR_SD 0.5

/* The optional top-level "bottleneck" object: where U is measured. */
typedef struct nv_bottleneck {
    double idle_utilization;   /* U of the idle bottleneck (anchor of p_A at 0 %) */
    nv_util_source route;      /* the route the file's U values came from */
    nv_wait_gauge wait_gauge;  /* the unit of every queue_wait figure in the file */
    double shrink_samples;     /* prior strength of the history corrections */
    double table_noise_sd_pct; /* derived at load, not read from the file: the pooled
                                  standard deviation of the table's repetitions, pp,
                                  that floors the corrections' ridge (0: none) */
    int present;               /* 0: the file has none (defaults above) */
} nv_bottleneck;

const nv_bottleneck *nv_model_bottleneck(const nv_model *m);

/* Fill *out for app idx; returns 0, or -1 when idx is out of range. */
int nv_model_app(const nv_model *m, int32_t idx, nv_app_view *out);

/* One CompressionB configuration (B, P, M) of the training set. */
typedef struct nv_config_view {
    const char *id;
    double bubble_cycles; /* B: CPU cycles slept between rounds */
    uint32_t partners;    /* P */
    uint32_t messages;    /* M */
    double utilization;   /* U of the configuration in [0, 1] */
    double queue_wait_us; /* its mean queue wait at the bottleneck, alone; NAN: not given */
    const nv_latency_summary *latency;
    size_t n_slowdowns; /* apps measured under it; see nv_model_config_slowdown */
} nv_config_view;

int nv_model_config(const nv_model *m, int32_t idx, nv_config_view *out);
/* k-th measured slowdown under configuration idx: app index and percent. */
int nv_model_config_slowdown(const nv_model *m, int32_t idx, size_t k, int32_t *app,
                             double *slowdown_pct);

/* One co-location table entry: measured slowdown of app beside with (netvar
 * train writes the median of the pair's runs, their count and spread). */
typedef struct nv_pair_view {
    int32_t app, with;
    double slowdown_pct;
    uint32_t samples;
    double sd_pct; /* standard deviation of the samples, pp */
} nv_pair_view;

int nv_model_pair(const nv_model *m, size_t k, nv_pair_view *out);
/* The entry for (app, with), O(1); returns 0, or -1 when there is none. */
int nv_model_pair_find(const nv_model *m, int32_t app, int32_t with, nv_pair_view *out);

/* The Variability Estimate (ve_model.h) from the optional "variability"
 * section, or NULL when the model file has none. */
struct nv_ve;
const struct nv_ve *nv_model_variability(const nv_model *m);
/* the optional fabric response (fabric.h), or NULL */
struct nv_fabric;
const struct nv_fabric *nv_model_fabric(const nv_model *m);

/* The allocation-advice section (alloc_model.h: communication-time trees,
 * app profiles, switches) from the optional "alloc" member, or NULL. */
struct nv_alloc_model;
const struct nv_alloc_model *nv_model_alloc(const nv_model *m);

#endif
