/* ve_svr.h - epsilon-SVR with an RBF kernel through libsvm (training and
 * prediction are libsvm's svm_train and svm_predict), plus the plain arrays
 * netvar stores in the model file.
 *
 * libsvm saves models only to files, so netvar does not use svm_save_model:
 * it copies the trained model's fields (support vectors, sv_coef[0],
 * rho[0], gamma) into nv_svr and writes them as JSON itself.  To predict,
 * nv_svr_predict points a struct svm_model on the stack at those arrays and
 * calls svm_predict, so the stored model and libsvm's agree exactly. */
#ifndef NETVAR_VE_SVR_H
#define NETVAR_VE_SVR_H

#include <stddef.h>

struct svm_node;

#define NV_SVR_MAX_SV (1u << 20)

typedef struct nv_svr {
    size_t nfeat;
    size_t n_sv;
    double *sv;       /* n_sv rows of nfeat, dense, row-major */
    double *coef;     /* n_sv dual coefficients (alpha_i - alpha_i*) */
    double rho;       /* the decision function is sum coef*K(sv, x) - rho */
    double gamma;     /* RBF: K(a, b) = exp(-gamma |a - b|^2) */
    double C;         /* training parameters, kept for the record */
    double epsilon;
    struct svm_node *nodes_; /* libsvm view of sv (built by nv_svr_prepare) */
    struct svm_node **rows_;
} nv_svr;

/* Trains on X (n rows of d) and y; Returns 0, or -1 with err. */
int nv_svr_train(const double *X, const double *y, size_t n, size_t d, double C, double gamma,
                 double epsilon, nv_svr *out, char *err, size_t errlen);

/* Builds the libsvm view of sv (called by train and by the loader).
 * Returns 0 or -1 when memory runs out. */
int nv_svr_prepare(nv_svr *s);

/* The SVR prediction for x[0..nfeat) (0 for an empty model). */
double nv_svr_predict(const nv_svr *s, const double *x);

void nv_svr_free(nv_svr *s);

#endif
