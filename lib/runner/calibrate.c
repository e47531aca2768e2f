/* calibrate.c - the calibrate workflow (calibrate.h). */
#include "calibrate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_builder.h"
#include "nv_err.h"
#include "probe_run.h"
#include "run_model.h"

void nv_calibrate_opts_defaults(nv_calibrate_opts *o)
{
    memset(o, 0, sizeof *o);
    o->duration_s = 5;
    o->interval_us = 20000;
    o->method = NV_CAL_MINIMUM;
    o->quantile = 0.01;
}

void nv_calibrate_result_free(nv_calibrate_result *r)
{
    nv_impactb_output_free(&r->probe);
}

/* Runs ImpactB for the duration and returns its stdout (malloc'd). */
static char *run_impactb(const nv_run_plan *plan, double duration_s, long interval_us, size_t *len,
                         char *err, size_t errlen)
{
    char dur[32], ivl[32];
    snprintf(dur, sizeof dur, "%g", duration_s);
    snprintf(ivl, sizeof ivl, "%ld", interval_us);
    const char *args[] = {"--duration-s", dur, "--interval-us", ivl, "--samples"};
    nv_child c;
    if (nv_probe_start(&c, plan, plan->impactb, "impactb-idle", args, 5, err, errlen))
        return NULL;
    return nv_probe_finish(&c, plan, 0, duration_s + plan->launch_timeout_s, len, err, errlen);
}

int nv_calibrate_run(nv_run_plan *plan, const nv_calibrate_opts *o, nv_calibrate_result *r,
                     char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (!o->model_path)
        return nv_err(err, errlen, "nothing to run: no model file");
    /* a model that exists but does not load is not overwritten */
    nv_model *old = NULL;
    char inner[600] = "";
    if (nv_run_load_model_if_any(o->model_path, &old, inner, sizeof inner))
        return nv_err(err, errlen, "%s; the model file is left as it is and nothing was run",
                      inner);
    if (old) {
        r->old_apps = nv_model_app_count(old);
        r->old_configs = nv_model_config_count(old);
    }
    char *text = NULL;
    size_t len = 0;
    int rc = -1;
    nv_model_builder *b = NULL;
    if (o->from_json) {
        text = nv_read_text_file(o->from_json, NV_RUN_MAX_PROBE_OUTPUT, &len, inner, sizeof inner);
    } else if (nv_run_work_dir(plan, o->keep_dir, "calibrate", inner, sizeof inner) == 0) {
        text = run_impactb(plan, o->duration_s, o->interval_us, &len, inner, sizeof inner);
        nv_run_work_dir_cleanup(plan, o->keep_dir != NULL || !text);
        r->logs_kept = !text && !o->keep_dir;
    }
    if (!text) {
        nv_err(err, errlen, "%s; model not changed", inner);
        goto out;
    }
    if (nv_impactb_parse(text, len, &r->probe, inner, sizeof inner)) {
        nv_err(err, errlen, "ImpactB output %s: %s; model not changed",
               o->from_json ? o->from_json : "", inner);
        goto out;
    }
    if (nv_calibrate(r->probe.samples_us, r->probe.n_samples, o->method, o->quantile, &r->cal)) {
        nv_err(err, errlen,
               "ImpactB gave %zu usable latency sample(s), at least 2 are needed "
               "(run longer or with a smaller --interval-us); model not changed",
               r->probe.n_samples);
        goto out;
    }
    b = old ? nv_builder_from_model(old) : nv_builder_new();
    if (!b || nv_builder_set_calibration(b, &r->cal)) {
        nv_err(err, errlen, "%s; model not changed", b ? nv_builder_error(b) : "out of memory");
        goto out;
    }
    if (nv_builder_save(b, o->model_path, inner, sizeof inner)) {
        nv_err(err, errlen, "%s", inner);
        goto out;
    }
    rc = 0;
out:
    nv_builder_free(b);
    free(text);
    nv_model_free(old);
    return rc;
}
