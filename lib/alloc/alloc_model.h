/* alloc_model.h - the allocation-advice section of the model file
 * ("alloc"): regression trees that predict an app's communication time per
 * phase from the features of alloc_features.h, one ensemble per predictor
 * class and message-size partition (*Communication time prediction* §4.3,
 * §4.5); the apps' communication profiles; the cluster's switches.
 *
 * Trees are flat arrays (one pool for the whole section): a prediction walks
 * them and allocates nothing.  At an inner node x[feature] < threshold goes
 * left (XGBoost's rule; thresholds are compared in single precision as
 * XGBoost does), a leaf carries its value.  An ensemble combines its trees
 * as base + sum (boosted) or base + mean (averaged forests); the result is
 * ln(communication seconds per phase).
 *
 * Writer (nv_alloc_to_json) and reader (nv_alloc_from_json) are both here;
 * the format is documented in alloc_model.c. */
#ifndef NETVAR_ALLOC_MODEL_H
#define NETVAR_ALLOC_MODEL_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc_features.h"

#define NV_ALLOC_SCHEMA_TARGET "ln communication s per phase"
#define NV_ALLOC_MAX_PREDICTORS 16
#define NV_ALLOC_MAX_TREES 4096       /* per ensemble */
#define NV_ALLOC_MAX_NODES (1u << 24) /* in the whole section */
#define NV_ALLOC_MAX_APPS 100000
#define NV_ALLOC_KEY_MAX 64
#define NV_ALLOC_NAME_MAX 64

typedef enum nv_alloc_combine { NV_ALLOC_SUM = 0, NV_ALLOC_MEAN = 1 } nv_alloc_combine;

typedef struct nv_alloc_predictor {
    nv_alloc_class cls;
    double max_msg_bytes; /* partition: maxS <= this (INFINITY: the last) */
    nv_alloc_combine combine;
    double base;
    uint32_t first_tree, n_trees; /* into the section's tree roots */
    char source[96];              /* "xgboost 1.7.4: 300 rounds, depth 6, eta 0.1" */
    uint32_t samples;             /* training rows */
} nv_alloc_predictor;

typedef struct nv_alloc_app {
    char key[NV_ALLOC_KEY_MAX + 1];
    double compute_core_s; /* CPU seconds of computation over all ranks, per run */
    double phases;         /* communication phases per run */
    double msg_scaling;    /* message bytes ~ P^msg_scaling (0: weak scaling) */
    uint32_t ranks;        /* P the pattern was recorded at */
    nv_alloc_pattern pattern;
    char source[64]; /* "profile of job 4711", "sweep", "synthetic" */
} nv_alloc_app;

typedef struct nv_alloc_switch {
    char name[NV_ALLOC_NAME_MAX];
    uint32_t group;
    uint32_t nodes;
} nv_alloc_switch;

typedef struct nv_alloc_model nv_alloc_model;

nv_alloc_model *nv_alloc_new(void);
void nv_alloc_free(nv_alloc_model *m);

/* ---- building (training side) ---- */
/* Adds one ensemble: n_nodes nodes in the arrays (feature -1 = leaf),
 * n_trees trees starting at roots[t] (indexes into the arrays; children
 * are absolute indexes too).  Copied.  Returns 0, or -1 with err. */
int nv_alloc_add_predictor(nv_alloc_model *m, const nv_alloc_predictor *p, const int32_t *feature,
                           const double *threshold, const int32_t *left, const int32_t *right,
                           const double *value, size_t n_nodes, const uint32_t *roots,
                           size_t n_trees, char *err, size_t errlen);
int nv_alloc_add_app(nv_alloc_model *m, const nv_alloc_app *a, char *err, size_t errlen);
int nv_alloc_add_switch(nv_alloc_model *m, const nv_alloc_switch *s, char *err, size_t errlen);
/* Sorts apps by key and predictors by class and partition; call once when
 * everything is added (the reader does it).  Returns 0, or -1 with err
 * (duplicate app key, two predictors for one class and partition). */
int nv_alloc_finish(nv_alloc_model *m, char *err, size_t errlen);

/* ---- file section ---- */
json_object *nv_alloc_to_json(const nv_alloc_model *m); /* NULL: out of memory */
/* json-c's add functions, taking ownership of v; a NULL v or container (out
 * of memory) or a failed add sets *ok = 0 (the writers check it once). */
void nv_alloc_json_put(json_object *o, const char *k, json_object *v, int *ok);
void nv_alloc_json_add(json_object *a, json_object *v, int *ok);
/* A pattern as [{"offset", "bytes", "messages"}] (the section's and the
 * data set's form); NULL: out of memory. */
json_object *nv_alloc_pattern_to_json(const nv_alloc_pattern *p);
/* Validates and loads the section o; path names it in errors ("alloc").
 * Returns the model or NULL with one line in err. */
nv_alloc_model *nv_alloc_from_json(json_object *o, const char *path, char *err, size_t errlen);

/* ---- use (no allocation) ---- */
size_t nv_alloc_predictor_count(const nv_alloc_model *m);
const nv_alloc_predictor *nv_alloc_predictor_at(const nv_alloc_model *m, size_t i);
/* Highest class with a predictor, or -1 when none. */
int nv_alloc_best_class(const nv_alloc_model *m);
/* Communication seconds per phase for features x with the class's predictor
 * for x's message size.  Returns 0 (and *which), or -1 (no predictor of
 * that class, or a non-finite feature). */
int nv_alloc_predict(const nv_alloc_model *m, nv_alloc_class cls, const double *x, double *comm_s,
                     const nv_alloc_predictor **which);
/* ln(seconds) from one given ensemble p of m (no partition choice). */
double nv_alloc_predictor_eval(const nv_alloc_model *m, const nv_alloc_predictor *p,
                               const double *x);
const nv_alloc_app *nv_alloc_app_find(const nv_alloc_model *m, const char *key);
size_t nv_alloc_app_count(const nv_alloc_model *m);
const nv_alloc_app *nv_alloc_app_at(const nv_alloc_model *m, size_t i);
size_t nv_alloc_switch_count(const nv_alloc_model *m);
const nv_alloc_switch *nv_alloc_switch_at(const nv_alloc_model *m, size_t i);
/* Nodes on all switches (0: no topology in the section). */
uint32_t nv_alloc_total_nodes(const nv_alloc_model *m);
size_t nv_alloc_node_count(const nv_alloc_model *m); /* tree nodes, for sizes */
/* The layout Slurm's topology/tree is likely to give N nodes on the
 * section's switches (nv_alloc_layout_pack; after nv_alloc_finish), or one
 * switch holding them all when the section has none.  0, or -1. */
int nv_alloc_likely_layout(const nv_alloc_model *m, uint32_t nodes, nv_alloc_layout *l);

/* The pattern of app a at P ranks: message bytes scaled by
 * (P / a->ranks)^msg_scaling, offsets kept (clamped into the cycle). */
void nv_alloc_app_pattern_at(const nv_alloc_app *a, uint32_t nranks, nv_alloc_pattern *out);

#endif
