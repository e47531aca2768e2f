/* calibrate.h - the calibrate workflow (`netvar calibrate`): the network's
 * service rate on idle nodes.  ImpactB runs for a while on nodes nothing
 * else uses (or its output is read from a file written with --samples);
 * its one-way latencies give the calibration (service time 1/mu, Var(S),
 * idle histogram; Queue-theory interference model, section 4.2, and
 * lib/model/calibration.h), which replaces the model file's calibration.
 * Everything else the model holds is kept; a missing file is created. */
#ifndef NETVAR_CALIBRATE_H
#define NETVAR_CALIBRATE_H

#include <stddef.h>

#include "calibration.h"
#include "launch_plan.h"
#include "probe_output.h"

typedef struct nv_calibrate_opts {
    const char *model_path; /* created or updated */
    const char *from_json;  /* ImpactB output to use instead of a run, or NULL */
    const char *keep_dir;   /* --keep, or NULL for a temporary directory */
    double duration_s;      /* how long ImpactB measures */
    long interval_us;       /* its pause between ping-pongs */
    nv_cal_method method;   /* which idle latency is the service time */
    double quantile;        /* for NV_CAL_LOW_QUANTILE */
} nv_calibrate_opts;

/* 5 s, 20000 us, the minimum, quantile 0.01; no model. */
void nv_calibrate_opts_defaults(nv_calibrate_opts *o);

typedef struct nv_calibrate_result {
    nv_calibration cal;      /* as saved */
    nv_impactb_output probe; /* what ImpactB wrote: nodes, node names, samples */
    size_t old_apps;         /* apps and configurations the model had: their */
    size_t old_configs;      /* utilizations come from the previous calibration */
    int logs_kept;           /* ImpactB failed: its launch logs stay in plan->work_dir */
} nv_calibrate_result;

/* Runs ImpactB with the plan (checked with nv_run_plan_check; not used
 * with from_json) and saves the calibration.  Call nv_run_catch_signals
 * first so that an interrupt stops the children.  0 with *r filled, or -1
 * with one line in err that says whether anything ran or changed.  Free
 * *r with nv_calibrate_result_free either way. */
int nv_calibrate_run(nv_run_plan *plan, const nv_calibrate_opts *o, nv_calibrate_result *r,
                     char *err, size_t errlen);
void nv_calibrate_result_free(nv_calibrate_result *r);

#endif
