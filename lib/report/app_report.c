/* app_report.c - `netvar report --app` computed into a struct (app_report.h). */
#include "app_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nv_err.h"

int nv_app_report_build(const nv_model *m, const char *name, nv_app_report *r, char *err,
                        size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (!m || !name)
        return nv_err(err, errlen, "no model");
    r->index = nv_model_app_index(m, name);
    if (r->index < 0 || nv_model_app(m, r->index, &r->app))
        return nv_err(err, errlen, "app %.80s: not in the model", name);
    r->bottleneck = *nv_model_bottleneck(m);

    size_t np = nv_model_pair_count(m), k = 0;
    r->colocation = calloc(np ? np : 1, sizeof *r->colocation);
    if (!r->colocation)
        return nv_err(err, errlen, "out of memory");
    for (size_t i = 0; i < np; i++) {
        nv_pair_view p;
        nv_app_view x, y;
        if (nv_model_pair(m, i, &p) || (p.app != r->index && p.with != r->index) ||
            nv_model_app(m, p.app, &x) || nv_model_app(m, p.with, &y))
            continue;
        r->colocation[k++] =
            (nv_app_report_pair){x.key, y.key, p.slowdown_pct, p.sd_pct, p.samples};
    }
    r->n_colocation = k;

    const nv_calibration *cal = nv_model_calibration(m);
    for (int b = 0; b < NV_HIST_BINS; b++) {
        r->hist_us[b] = sqrt(nv_hist_edge_us(b) * nv_hist_edge_us(b + 1)); /* bin centre */
        r->hist_app_pct[b] = nv_hist_density(&r->app.latency->hist, b) * 100;
        r->hist_idle_pct[b] = nv_hist_density(&cal->hist, b) * 100;
    }
    return 0;
}

void nv_app_report_free(nv_app_report *r)
{
    if (!r)
        return;
    free(r->colocation);
    memset(r, 0, sizeof *r);
}
