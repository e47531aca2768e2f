/* ve_svr_arrays.c - the plain-array side of nv_svr: the libsvm node view
 * of stored support vectors, and freeing.  Calls nothing in libsvm (only
 * its struct svm_node), so the model loader and its fuzzer need no -lsvm. */
#include "ve_svr.h"

#include <libsvm/svm.h>
#include <stdlib.h>
#include <string.h>

int nv_svr_prepare(nv_svr *s)
{
    free(s->nodes_);
    free(s->rows_);
    s->nodes_ = NULL;
    s->rows_ = NULL;
    size_t d = s->nfeat, n = s->n_sv;
    s->nodes_ = malloc((n ? n : 1) * (d + 1) * sizeof *s->nodes_);
    s->rows_ = malloc((n ? n : 1) * sizeof *s->rows_);
    if (!s->nodes_ || !s->rows_)
        return -1;
    for (size_t i = 0; i < n; i++) {
        s->rows_[i] = s->nodes_ + i * (d + 1);
        for (size_t j = 0; j < d; j++) {
            s->rows_[i][j].index = (int)j + 1;
            s->rows_[i][j].value = s->sv[i * d + j];
        }
        s->rows_[i][d].index = -1;
    }
    return 0;
}

void nv_svr_free(nv_svr *s)
{
    if (!s)
        return;
    free(s->sv);
    free(s->coef);
    free(s->nodes_);
    free(s->rows_);
    memset(s, 0, sizeof *s);
}
