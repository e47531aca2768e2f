/* svr_libsvm.h - training and prediction of the nv_svr of ve_svr.h through
 * libsvm: svm_train, and svm_predict over a struct svm_model on the stack
 * that points at the stored arrays, so the stored model and libsvm's agree
 * exactly. */
#ifndef NETVAR_SVR_LIBSVM_H
#define NETVAR_SVR_LIBSVM_H

#include <stddef.h>

#include "ve_svr.h"

/* Trains on X (n rows of d) and y; Returns 0, or -1 with err. */
int nv_svr_train(const double *X, const double *y, size_t n, size_t d, double C, double gamma,
                 double epsilon, nv_svr *out, char *err, size_t errlen);

/* The SVR prediction for x[0..nfeat) (0 for an empty model). */
double nv_svr_predict(const nv_svr *s, const double *x);

#endif
