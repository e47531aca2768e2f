/* impact.h - the impact workflow (`netvar impact`): how much of the
 * network an application uses.  ImpactB runs beside the command (on its
 * nodes, or with --load-nodes on other nodes so that it measures the links
 * the command's traffic crosses); when the command ends ImpactB is stopped
 * and its latencies give the app's latency summary and, through the model's
 * calibration, its utilization (Queue-theory interference model, section
 * 4.2).  Both go into the app's profile in the model file; its compression
 * curve and scaling history are kept, as is the rest of the model. */
#ifndef NETVAR_IMPACT_H
#define NETVAR_IMPACT_H

#include <stddef.h>

#include "launch_plan.h"
#include "lookup.h"
#include "queue.h"

typedef struct nv_impact_opts {
    const char *model_path; /* with a calibration; updated in place */
    const char *app;        /* app key (nv_model_key_valid) */
    const char *keep_dir;   /* --keep, or NULL for a temporary directory */
    const char *const *cmd; /* the command under test */
    size_t ncmd;
    long interval_us; /* ImpactB's pause between ping-pongs */
    double timeout_s; /* longest the command may run */
} nv_impact_opts;

/* interval 20000 us, timeout 3600 s; no model, app or command. */
void nv_impact_opts_defaults(nv_impact_opts *o);

typedef struct nv_impact_result {
    double runtime_s;       /* the command's wall time, or what it printed
                                 (the plan's runtime_key) */
    nv_latency_summary lat; /* ImpactB beside it */
    size_t samples;
    nv_utilization u; /* what that latency means (source "latency") */
    int logs_kept;    /* failed: the launch logs stay in plan->work_dir */
} nv_impact_result;

/* Runs ImpactB and the command with the plan (checked with
 * nv_run_plan_check) and saves the model.  Call nv_run_catch_signals first
 * so that an interrupt stops the children.  0 with *r filled, or -1 with
 * one line in err that says whether anything ran or changed. */
int nv_impact_run(nv_run_plan *plan, const nv_impact_opts *o, nv_impact_result *r, char *err,
                  size_t errlen);

#endif
