/* run_model.h - the model file as the workflows use it: loaded when it
 * exists, and an application's utilization from ImpactB's latencies beside
 * it under the model's calibration (inverse Pollaczek-Khinchine formula,
 * Queue-theory interference model). */
#ifndef NETVAR_RUN_MODEL_H
#define NETVAR_RUN_MODEL_H

#include <stddef.h>

#include "calibration.h"
#include "lookup.h"
#include "model.h"
#include "queue.h"

/* Loads path when it exists (NULL in *out when it does not); -1 with err
 * when it exists but cannot be loaded. */
int nv_run_load_model_if_any(const char *path, nv_model **out, char *err, size_t errlen);

/* Loads path, which must exist (a calibrated model for impact and
 * campaign); NULL with one line in err ending "; nothing run". */
nv_model *nv_run_load_model_required(const char *path, char *err, size_t errlen);

/* Latency summary of the samples and the utilization it means under the
 * model's calibration.  0, or -1 when there are no usable samples. */
int nv_run_app_utilization(const nv_calibration *cal, const double *samples_us, size_t n,
                           nv_latency_summary *lat, nv_utilization *u);

#endif
