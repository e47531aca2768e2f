/* ve_forest.h - a random forest regressor (bagged CART trees with random
 * feature subsets, variance-reduction splits), written for the Variability
 * Estimate because no maintained C library fits.
 *
 * Deterministic: the same data, parameters and seed give the same trees,
 * bit for bit (own xorshift generator, no global state, stable sorts).
 * Every tree's prediction is available, so an interval comes out: netvar
 * uses the lo_q..hi_q quantiles of the tree predictions (default 5th-95th
 * percentile).  Trees grown to small leaves spread like the training
 * targets near x, so the interval reflects both the model's uncertainty
 * and the noise of runtimes (close to a quantile regression forest). */
#ifndef NETVAR_VE_FOREST_H
#define NETVAR_VE_FOREST_H

#include <stddef.h>
#include <stdint.h>

#define NV_FOREST_MAX_TREES 1000
#define NV_FOREST_MAX_NODES (1u << 22) /* per tree */
#define NV_FOREST_MAX_DEPTH 48

typedef struct nv_forest_node {
    int32_t feature;   /* split feature, or -1 for a leaf */
    int32_t left;      /* child indexes, always greater than this node's index */
    int32_t right;
    double threshold;  /* x[feature] <= threshold goes left */
    double value;      /* leaf: mean target; inner: mean target of its samples */
} nv_forest_node;

typedef struct nv_forest {
    size_t nfeat;
    size_t n_trees;
    uint32_t *tree_off;    /* first node of each tree in nodes */
    uint32_t *tree_len;    /* node count of each tree */
    nv_forest_node *nodes;
    size_t n_nodes;
} nv_forest;

typedef struct nv_forest_params {
    size_t n_trees;      /* default 100 */
    size_t min_leaf;     /* fewest samples in a leaf, default 2 */
    size_t max_features; /* features tried per split, 0 = all */
    uint64_t seed;
} nv_forest_params;

/* Grows the forest on X (n rows of d) and y.  Returns 0, or -1 with err
 * (no data, a value not finite, too many nodes, out of memory). */
int nv_forest_train(const double *X, const double *y, size_t n, size_t d,
                    const nv_forest_params *p, nv_forest *out, char *err, size_t errlen);

/* Each tree's prediction for x into out[0..n_trees). */
void nv_forest_tree_predictions(const nv_forest *f, const double *x, double *out);

/* Mean of the tree predictions and their lo_q and hi_q quantiles
 * (0 <= lo_q <= hi_q <= 1); lo <= mean-ish <= hi always holds for lo/hi.
 * Returns 0, or -1 for an empty forest or bad quantiles. */
int nv_forest_interval(const nv_forest *f, const double *x, double lo_q, double hi_q,
                       double *mean, double *lo, double *hi);

void nv_forest_free(nv_forest *f);

#endif
