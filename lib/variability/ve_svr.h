/* ve_svr.h - an epsilon-SVR with an RBF kernel as plain arrays: what the
 * model file stores, and the libsvm node view of its support vectors that
 * prediction reads.  Building the view and freeing call nothing in libsvm
 * (only its struct svm_node), so the model loader and its fuzzer need no
 * -lsvm.  Training and prediction are libsvm's svm_train and svm_predict,
 * in lib/vetrain/svr_libsvm.h.
 *
 * libsvm saves models only to files, so netvar does not use svm_save_model:
 * it copies the trained model's fields (support vectors, sv_coef[0],
 * rho[0], gamma) into nv_svr and writes them as JSON itself. */
#ifndef NETVAR_VE_SVR_H
#define NETVAR_VE_SVR_H

#include <stddef.h>

struct svm_node;

#define NV_SVR_MAX_SV (1u << 20)

typedef struct nv_svr {
    size_t nfeat;
    size_t n_sv;
    double *sv;   /* n_sv rows of nfeat, dense, row-major */
    double *coef; /* n_sv dual coefficients (alpha_i - alpha_i*) */
    double rho;   /* the decision function is sum coef*K(sv, x) - rho */
    double gamma; /* RBF: K(a, b) = exp(-gamma |a - b|^2) */
    double C;     /* training parameters, kept for the record */
    double epsilon;
    struct svm_node *nodes_; /* libsvm view of sv (built by nv_svr_prepare) */
    struct svm_node **rows_;
} nv_svr;

/* Builds the libsvm view of sv (called by train and by the loader).
 * Returns 0 or -1 when memory runs out. */
int nv_svr_prepare(nv_svr *s);

void nv_svr_free(nv_svr *s);

#endif
