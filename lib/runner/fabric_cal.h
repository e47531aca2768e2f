/* fabric_cal.h - `netvar calibrate --fabric`: the fabric's response per
 * message class (lib/model/fabric.h), measured once per fabric.  The
 * reference kernels (netvar-fabric-kernels, beside impactb) run alone,
 * then beside each CompressionB configuration; the configuration's U and
 * queue wait at the bottleneck are read over settle_s seconds of it
 * running alone first (the model's two axes, as a campaign's
 * configuration has them).  Each class's growth is the median of its
 * loaded runs over the median of its idle runs.  The result goes to a
 * fabric file, and/or into a model file that exists (its "fabric"
 * member; everything else it holds is kept). */
#ifndef NETVAR_FABRIC_CAL_H
#define NETVAR_FABRIC_CAL_H

#include <stddef.h>

#include "bottleneck.h"
#include "campaign.h"
#include "fabric.h"
#include "launch_plan.h"

#define NV_FABRIC_CAL_MAX_REPEAT 20

typedef struct nv_fabric_cal_opts {
    const char *model_path; /* an existing model to store it in, or NULL */
    const char *out_path;   /* the fabric file to write, or NULL */
    const char *keep_dir;
    const nv_campaign_config *cfg;
    size_t ncfg;                   /* 1 .. NV_FABRIC_MAX_POINTS */
    int repeat;                    /* kernel runs alone and per configuration */
    double settle_s;               /* each load alone before its U and wait are read */
    double ghz;                    /* B cycles -> CompressionB's sleep */
    long msg_bytes;                /* CompressionB's message size */
    double scale;                  /* the kernels' --scale */
    double timeout_s;              /* longest one kernel run */
    const nv_bn_spec *bottleneck;  /* required: where U and the wait are read */
    double bottleneck_interval_ms; /* sampling step (0: 100) */
} nv_fabric_cal_opts;

/* repeat 3, settle 2 s, 2.6 GHz, 40960-byte messages, scale 1, timeout
 * 300 s; no paths, configurations or bottleneck. */
void nv_fabric_cal_opts_defaults(nv_fabric_cal_opts *o);

typedef struct nv_fabric_cal_result {
    nv_fabric fabric; /* as saved */
    double idle_class_us[NV_FABRIC_CLASSES];
    int ranks;     /* the kernels' */
    int logs_kept; /* failed: the launch logs stay in plan->work_dir */
} nv_fabric_cal_result;

/* Runs it (plan checked with nv_run_plan_check; nv_run_catch_signals
 * first) and saves.  0 with *r filled, or -1 with one line in err saying
 * what ran and that nothing was saved. */
int nv_fabric_cal_run(nv_run_plan *plan, const nv_fabric_cal_opts *o, nv_fabric_cal_result *r,
                      char *err, size_t errlen);

#endif
