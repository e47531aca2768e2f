/* svr_libsvm.c - libsvm epsilon-SVR (RBF) training and prediction, and the
 * copy of a trained model into plain arrays (see svr_libsvm.h). */
#include "svr_libsvm.h"

#include <libsvm/svm.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void quiet(const char *s)
{
    (void)s;
} /* libsvm prints progress on stdout */

int nv_svr_train(const double *X, const double *y, size_t n, size_t d, double C, double gamma,
                 double epsilon, nv_svr *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (n == 0 || d == 0 || d > 1024 || n > NV_SVR_MAX_SV) {
        snprintf(err, errlen, "svr: %zu samples of %zu features cannot be trained on", n, d);
        return -1;
    }
    if (!(C > 0) || !(gamma > 0) || !(epsilon >= 0) || !isfinite(C) || !isfinite(gamma)) {
        snprintf(err, errlen, "svr: C=%g gamma=%g epsilon=%g are not valid", C, gamma, epsilon);
        return -1;
    }
    svm_set_print_string_function(quiet);
    struct svm_node *nodes = malloc(n * (d + 1) * sizeof *nodes);
    struct svm_node **rows = malloc(n * sizeof *rows);
    double *yy = malloc(n * sizeof *yy);
    if (!nodes || !rows || !yy) {
        free(nodes);
        free(rows);
        free(yy);
        snprintf(err, errlen, "svr: out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        rows[i] = nodes + i * (d + 1);
        for (size_t j = 0; j < d; j++) {
            rows[i][j].index = (int)j + 1;
            rows[i][j].value = X[i * d + j];
        }
        rows[i][d].index = -1;
        yy[i] = y[i];
    }
    struct svm_problem prob = {.l = (int)n, .y = yy, .x = rows};
    struct svm_parameter par = {0};
    par.svm_type = EPSILON_SVR;
    par.kernel_type = RBF;
    par.gamma = gamma;
    par.C = C;
    par.p = epsilon;
    par.eps = 1e-3;
    par.cache_size = 64;
    par.shrinking = 1;
    int rc = -1;
    const char *why = svm_check_parameter(&prob, &par);
    struct svm_model *m = why ? NULL : svm_train(&prob, &par);
    if (!m) {
        snprintf(err, errlen, "svr: libsvm refused the problem: %s", why ? why : "training failed");
        goto out;
    }
    out->nfeat = d;
    out->n_sv = (size_t)m->l;
    out->sv = calloc(out->n_sv ? out->n_sv * d : 1, sizeof *out->sv);
    out->coef = calloc(out->n_sv ? out->n_sv : 1, sizeof *out->coef);
    if (!out->sv || !out->coef) {
        snprintf(err, errlen, "svr: out of memory");
        goto out;
    }
    for (size_t i = 0; i < out->n_sv; i++) {
        /* libsvm keeps the support vectors as given: all d indexes present */
        for (const struct svm_node *p = m->SV[i]; p->index != -1; p++)
            if (p->index >= 1 && (size_t)p->index <= d)
                out->sv[i * d + (size_t)p->index - 1] = p->value;
        out->coef[i] = m->sv_coef[0][i];
    }
    out->rho = m->rho[0];
    out->gamma = gamma;
    out->C = C;
    out->epsilon = epsilon;
    rc = nv_svr_prepare(out);
    if (rc)
        snprintf(err, errlen, "svr: out of memory");
out:
    if (m)
        svm_free_and_destroy_model(&m);
    free(nodes);
    free(rows);
    free(yy);
    if (rc)
        nv_svr_free(out);
    return rc;
}

double nv_svr_predict(const nv_svr *s, const double *x)
{
    if (!s || !s->n_sv || !s->rows_ || s->nfeat > 1024)
        return 0;
    struct svm_node q[1025];
    for (size_t j = 0; j < s->nfeat; j++) {
        q[j].index = (int)j + 1;
        q[j].value = x[j];
    }
    q[s->nfeat].index = -1;
    /* a read-only libsvm model over netvar's arrays: svm_predict only reads
     * param, l, SV, sv_coef and rho for regression */
    double rho = s->rho;
    double *coef = s->coef;
    struct svm_model m;
    memset(&m, 0, sizeof m);
    m.param.svm_type = EPSILON_SVR;
    m.param.kernel_type = RBF;
    m.param.gamma = s->gamma;
    m.nr_class = 2;
    m.l = (int)s->n_sv;
    m.SV = s->rows_;
    m.sv_coef = &coef;
    m.rho = &rho;
    double v = svm_predict(&m, q);
    return isfinite(v) ? v : 0;
}
