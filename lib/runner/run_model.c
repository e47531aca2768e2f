/* run_model.c - the model file as the workflows use it (run_model.h). */
#include "run_model.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "nv_err.h"

int nv_run_load_model_if_any(const char *path, nv_model **out, char *err, size_t errlen)
{
    *out = NULL;
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT)
            return 0;
        return nv_err(err, errlen, "%s: %s", path, strerror(errno));
    }
    char inner[400];
    *out = nv_model_load(path, inner, sizeof inner);
    if (!*out)
        return nv_err(err, errlen, "%s", inner);
    return 0;
}

nv_model *nv_run_load_model_required(const char *path, char *err, size_t errlen)
{
    nv_model *m = NULL;
    char inner[600] = "";
    if (nv_run_load_model_if_any(path, &m, inner, sizeof inner) || !m) {
        nv_model_free(m);
        nv_err(err, errlen, "%s; nothing run",
               inner[0] ? inner : "the model file does not exist: run netvar calibrate first");
        return NULL;
    }
    return m;
}

int nv_run_app_utilization(const nv_calibration *cal, const double *samples_us, size_t n,
                           nv_latency_summary *lat, nv_utilization *u)
{
    if (!cal || !samples_us || !n || nv_latency_summary_of(samples_us, n, lat) == 0)
        return -1;
    return nv_utilization_from_latency(cal->service_us, cal->var_s_us2, lat->mean_us, u);
}
