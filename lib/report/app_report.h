/* app_report.h - what `netvar report --app NAME` shows, read out of the
 * model: the app's utilization U_A and where it came from, the probe
 * latency beside it, its compression curve p_A(U) (points and fit), its
 * scaling, its entries of the co-location table, and its latency histogram
 * against the idle switch's ("Queue-theory interference model": Fig. 12 for
 * the curve, Fig. 3 for the histogram).  Fills a struct; printing it is the
 * caller's. */
#ifndef NETVAR_APP_REPORT_H
#define NETVAR_APP_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "histogram.h"
#include "model.h"

/* One co-location table entry that names the app (either side). */
typedef struct nv_app_report_pair {
    const char *app, *with; /* slowdown of app beside with (model-owned) */
    double slowdown_pct;
    double sd_pct; /* standard deviation of the samples, pp */
    uint32_t samples;
} nv_app_report_pair;

typedef struct nv_app_report {
    int32_t index;                  /* in the model */
    nv_app_view app;                /* pointers live as long as the model */
    nv_bottleneck bottleneck;       /* the model's: idle U, the wait gauge (its unit) */
    nv_app_report_pair *colocation; /* in table order */
    size_t n_colocation;
    /* latency histogram: bin centres (us, geometric) and the share of the
     * samples in each bin (%), beside the app and on the idle switch */
    double hist_us[NV_HIST_BINS];
    double hist_app_pct[NV_HIST_BINS];
    double hist_idle_pct[NV_HIST_BINS];
} nv_app_report;

/* Report of app `name` in m.  Returns 0 (r filled; free with
 * nv_app_report_free), or -1 with err (not in the model, out of memory). */
int nv_app_report_build(const nv_model *m, const char *name, nv_app_report *r, char *err,
                        size_t errlen);
void nv_app_report_free(nv_app_report *r);

#endif
