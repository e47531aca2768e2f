/* alloc_train.h - training the communication-time trees of the "alloc"
 * model section (alloc_model.h), and the data set they learn from.
 *
 * Two learners, both ending as flat trees in the section:
 *  - gradient-boosted trees from libxgboost (Debian's libxgboost-dev, C API):
 *    the default.  This archive is the only code that calls libxgboost; the
 *    library is opened with dlopen when a training starts, so no binary
 *    depends on it (or on its libgomp and libdmlc) at load; the plugins only
 *    evaluate the exported trees;
 *  - extremely randomized trees (*Communication time prediction* §3.2, §4.2:
 *    random thresholds between a node's min and max, the whole training set
 *    per tree, at least 5 samples to split), netvar's own, for comparison.
 * The target is ln(communication seconds per phase), so errors are relative.
 *
 * Data set file (schema "netvar-alloc-dataset", version 1; writer and reader
 * here):
 *   {"schema": "netvar-alloc-dataset", "version": 1,
 *    "source": "sweep on lab/netlab" | "SYNTHETIC ..." | "job records",
 *    "rows": [ {"app": "stencil", "nodes": 4, "ppn": 2,
 *               "layout": [2, 2], "groups": [0, 0],   nodes per switch, group
 *               "pattern": [{"offset": 1, "bytes": 4096, "messages": 1}],
 *               "comm_s": 0.0012,                      per phase, > 0
 *               "runtime_s": 12.5,                     optional
 *               "config": "N4xPPN2 S4096 across"} ] } optional label
 *   A row may give "features": [NV_AF_COUNT numbers] instead of layout and
 *   pattern (a recorded matrix on the placement that ran). */
#ifndef NETVAR_ALLOC_TRAIN_H
#define NETVAR_ALLOC_TRAIN_H

#include <stddef.h>
#include <stdint.h>

#include "alloc_features.h"
#include "alloc_model.h"

#define NV_ALLOC_DATASET_SCHEMA "netvar-alloc-dataset"
#define NV_ALLOC_DATASET_VERSION 1
#define NV_ALLOC_DATASET_MAX_ROWS 1000000u

typedef struct nv_alloc_row {
    char app[NV_ALLOC_KEY_MAX + 1];
    char config[64];
    uint32_t nodes, ppn;
    nv_alloc_layout *layout; /* NULL when features were given */
    nv_alloc_pattern pattern;
    double x[NV_AF_COUNT]; /* computed at load (or given) */
    double comm_s;         /* per phase */
    double runtime_s;      /* NAN when absent */
} nv_alloc_row;

typedef struct nv_alloc_dataset {
    char source[128];
    nv_alloc_row *rows;
    size_t n, cap;
} nv_alloc_dataset;

void nv_alloc_dataset_init(nv_alloc_dataset *d);
void nv_alloc_dataset_free(nv_alloc_dataset *d);
/* Adds a row (layout copied; features computed from layout and pattern
 * unless layout is NULL, when x must hold them).  0, or -1 with err. */
int nv_alloc_dataset_add(nv_alloc_dataset *d, const nv_alloc_row *r, char *err, size_t errlen);
int nv_alloc_dataset_load(nv_alloc_dataset *d, const char *path, char *err, size_t errlen);
int nv_alloc_dataset_save(const nv_alloc_dataset *d, const char *path, char *err, size_t errlen);

typedef enum nv_alloc_learner { NV_LEARN_XGBOOST = 0, NV_LEARN_EXTRA_TREES = 1 } nv_alloc_learner;

typedef struct nv_alloc_train_params {
    nv_alloc_learner learner;
    uint32_t trees; /* boosting rounds / forest size */
    uint32_t max_depth;
    double eta;         /* xgboost learning rate */
    uint32_t min_split; /* extra trees: fewest samples to split (default 5) */
    uint64_t seed;
} nv_alloc_train_params;

/* xgboost: 50 rounds of depth 4, eta 0.3 (as accurate as 100 of depth 5 on
 * the evaluation, half the tree walks in job_submit); extra trees: 100 of
 * depth 12, at least 5 samples to split. */
void nv_alloc_train_defaults(nv_alloc_train_params *p, nv_alloc_learner l);

/* Trains one ensemble of class cls on rows idx[0..n) of d (all rows when
 * idx is NULL) whose maxS is in (min_msg, max_msg], and adds it to m.
 * Returns the rows used (>= 1), or -1 with err (too few rows, learner
 * failure, out of memory). */
long nv_alloc_train_class(const nv_alloc_dataset *d, const size_t *idx, size_t n,
                          nv_alloc_class cls, double min_msg, double max_msg,
                          const nv_alloc_train_params *p, nv_alloc_model *m, char *err,
                          size_t errlen);

/* "xgboost 1.7.4" (the library's version at run time) */
const char *nv_alloc_xgboost_version(void);

#endif
