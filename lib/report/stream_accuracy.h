/* stream_accuracy.h - how right job_submit was, over a window of finished
 * jobs: for each job whose record holds job_submit's annotation with a
 * predicted own slowdown (own_pct, the "netvar:" Comment) and whose
 * slowdown can be observed (its runtime against the app's baseline at its
 * node count, as `netvar report JOBID` gives it), the error of what was
 * said against what happened.  `netvar report --cluster` prints it. */
#ifndef NETVAR_STREAM_ACCURACY_H
#define NETVAR_STREAM_ACCURACY_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

#define NV_ACCURACY_BOOT_ROUNDS 2000

/* The figures of n (said, observed) pairs, percent.  mae_pp: the mean of
 * |said - observed|, percentage points; bias_pp the mean of said -
 * observed (above 0: job_submit said more than happened); lo_pp..hi_pp
 * the 95 % bootstrap interval of the mean absolute error (rounds
 * resamples, a fixed seed so that a report is repeatable; NAN below 2
 * pairs).  The same over the pairs observed slowed by at least
 * slowed_pct: n_slowed, mae_slowed_pp. */
typedef struct nv_accuracy {
    size_t n;
    double mae_pp, bias_pp, lo_pp, hi_pp;
    double slowed_pct;
    size_t n_slowed;
    double mae_slowed_pp;
} nv_accuracy;

/* Fills *a from said[i], observed[i] (non-finite pairs are skipped).
 * Returns 0, or -1 on bad arguments or out of memory. */
int nv_accuracy_compute(const double *said, const double *observed, size_t n, double slowed_pct,
                        unsigned rounds, nv_accuracy *a);

/* A window of finished jobs: those that ended at or after since_unix_s and
 * before until_unix_s (NAN: no bound), and of them the last `last` by end
 * time (0: all). */
typedef struct nv_accuracy_window {
    double since_unix_s, until_unix_s;
    size_t last;
} nv_accuracy_window;

typedef struct nv_stream_accuracy {
    size_t finished;    /* job records in the window */
    size_t annotated;   /* of them, with job_submit's annotation */
    size_t predicted;   /* of those, with a predicted own slowdown */
    size_t observed;    /* of those, with an observed slowdown: the pairs scored */
    size_t beside_many; /* scored pairs whose prediction summed several jobs (vs_n > 1) */
    double first_end_s; /* end times of the scored jobs, NAN when none */
    double last_end_s;
    nv_accuracy acc;
} nv_stream_accuracy;

/* Scores the finished jobs of spool in window w (model m may be NULL: the
 * baselines come from history only).  Returns 0, or -1 with err (the spool
 * cannot be read, out of memory). */
int nv_stream_accuracy_build(const char *spool, const nv_model *m, const nv_accuracy_window *w,
                             nv_stream_accuracy *s, char *err, size_t errlen);

#endif
