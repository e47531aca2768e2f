/* ve_forest.h - a random forest regressor (bagged CART trees with random
 * feature subsets, variance-reduction splits), written for the Variability
 * Estimate because no maintained C library fits.
 *
 * Deterministic: the same data, parameters and seed give the same trees,
 * bit for bit (own xorshift generator, no global state, stable sorts).
 * Every tree's prediction is available, so a spread comes out.  The raw
 * lo..hi quantiles of the tree predictions are not an honest interval by
 * themselves: nothing ties their width to a coverage (the trees share most
 * of their data; the 5th-95th percentile covered 89 % of held-out truths on
 * the synthetic evaluation set but 83 % in the unit test's case with known
 * noise), and they say nothing of the SVR point the VE reports.  netvar
 * therefore keeps the tree spread as the local SHAPE of its intervals and
 * calibrates their size on out-of-sample residuals (ve_calibrate.h), for
 * which nv_forest_train_oob reports, per training sample, the mean and
 * standard deviation of the trees that did not see it.  The raw quantiles
 * remain for model files written before calibration. */
#ifndef NETVAR_VE_FOREST_H
#define NETVAR_VE_FOREST_H

#include <stddef.h>
#include <stdint.h>

#define NV_FOREST_MAX_TREES 1000
#define NV_FOREST_MAX_NODES (1u << 22) /* per tree */
#define NV_FOREST_MAX_DEPTH 48

typedef struct nv_forest_node {
    int32_t feature; /* split feature, or -1 for a leaf */
    int32_t left;    /* child indexes, always greater than this node's index */
    int32_t right;
    double threshold; /* x[feature] <= threshold goes left */
    double value;     /* leaf: mean target; inner: mean target of its samples */
} nv_forest_node;

typedef struct nv_forest {
    size_t nfeat;
    size_t n_trees;
    uint32_t *tree_off; /* first node of each tree in nodes */
    uint32_t *tree_len; /* node count of each tree */
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
int nv_forest_train(const double *X, const double *y, size_t n, size_t d, const nv_forest_params *p,
                    nv_forest *out, char *err, size_t errlen);

/* Out-of-bag summary of one training sample: the trees whose bootstrap
 * sample left it out, their mean prediction and the standard deviation of
 * their predictions (n-1 denominator; 0 when trees < 2). */
typedef struct nv_forest_oob {
    double mean, sd;
    uint32_t trees;
} nv_forest_oob;

/* nv_forest_train, and fills oob[0..n) (may be NULL).  The trees are the
 * same as nv_forest_train grows with the same seed. */
int nv_forest_train_oob(const double *X, const double *y, size_t n, size_t d,
                        const nv_forest_params *p, nv_forest *out, nv_forest_oob *oob, char *err,
                        size_t errlen);

/* Each tree's prediction for x into out[0..n_trees). */
void nv_forest_tree_predictions(const nv_forest *f, const double *x, double *out);

/* Mean of the tree predictions and their lo_q and hi_q quantiles
 * (0 <= lo_q <= hi_q <= 1); lo <= mean-ish <= hi always holds for lo/hi.
 * Returns 0, or -1 for an empty forest or bad quantiles. */
int nv_forest_interval(const nv_forest *f, const double *x, double lo_q, double hi_q, double *mean,
                       double *lo, double *hi);

/* Mean and standard deviation (n-1 denominator; 0 for one tree) of the
 * tree predictions.  Returns 0, or -1 for an empty forest. */
int nv_forest_spread(const nv_forest *f, const double *x, double *mean, double *sd);

void nv_forest_free(nv_forest *f);

#endif
