/* impact.c - the impact workflow (impact.h). */
#include "impact.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_builder.h"
#include "nv_err.h"
#include "probe_output.h"
#include "probe_run.h"
#include "run_model.h"

void nv_impact_opts_defaults(nv_impact_opts *o)
{
    memset(o, 0, sizeof *o);
    o->interval_us = 20000;
    o->timeout_s = 3600;
}

/* The app's profile with the new latency and utilization, keeping what it
 * had besides them, saved into the model file. */
static int save_model(const nv_impact_opts *o, const nv_model *model, const nv_impact_result *r,
                      char *err, size_t errlen)
{
    nv_app_input in = {.key = o->app,
                       .utilization = r->u.rho,
                       .utilization_source = NV_USRC_LATENCY,
                       .latency = &r->lat};
    int32_t idx = nv_model_app_index(model, o->app);
    nv_app_view v;
    if (idx >= 0 && nv_model_app(model, idx, &v) == 0) {
        in.points = v.points;
        in.n_points = v.n_points;
        in.fit = v.fit;
        in.n_fit = v.n_fit;
        in.fit_residual_pct = v.fit_residual_pct;
        in.scaling = v.scaling;
        in.n_scaling = v.n_scaling;
    }
    nv_model_builder *b = nv_builder_from_model(model);
    int rc = -1;
    char inner[600];
    if (!b || nv_builder_add_app(b, &in))
        nv_err(err, errlen, "%s; model not changed", b ? nv_builder_error(b) : "out of memory");
    else if (nv_builder_save(b, o->model_path, inner, sizeof inner))
        nv_err(err, errlen, "%s", inner);
    else
        rc = 0;
    nv_builder_free(b);
    return rc;
}

int nv_impact_run(nv_run_plan *plan, const nv_impact_opts *o, nv_impact_result *r, char *err,
                  size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (!o->model_path || !o->app || !o->cmd || !o->ncmd)
        return nv_err(err, errlen, "nothing to run: a model, an app and a command are needed");
    nv_model *model = nv_run_load_model_required(o->model_path, err, errlen);
    if (!model)
        return -1;
    char inner[600] = "";
    int rc = -1;
    char *text = NULL;
    size_t len = 0;
    nv_impactb_output ib = {0};
    if (nv_run_work_dir(plan, o->keep_dir, "impact", inner, sizeof inner)) {
        nv_err(err, errlen, "%s; nothing run", inner);
        goto out;
    }
    char ivl[32];
    snprintf(ivl, sizeof ivl, "%ld", o->interval_us);
    const char *args[] = {"--interval-us", ivl, "--samples"};
    nv_child probe;
    if (nv_probe_start(&probe, plan, plan->impactb, "impactb", args, 3, inner, sizeof inner)) {
        nv_err(err, errlen, "%s; model not changed", inner);
        goto out;
    }
    char cerr[600] = "";
    int crc = nv_run_command(plan, o->cmd, o->ncmd, "command", o->timeout_s, &r->runtime_s, cerr,
                             sizeof cerr);
    text = nv_probe_finish(&probe, plan, 1, 0, &len, inner, sizeof inner);
    if (crc) {
        nv_err(err, errlen, "%s; model not changed", cerr);
        goto out;
    }
    if (!text) {
        nv_err(err, errlen, "%s; model not changed", inner);
        goto out;
    }
    if (nv_impactb_parse(text, len, &ib, inner, sizeof inner)) {
        nv_err(err, errlen, "ImpactB output: %s; model not changed", inner);
        goto out;
    }
    if (nv_run_app_utilization(nv_model_calibration(model), ib.samples_us, ib.n_samples, &r->lat,
                               &r->u)) {
        nv_err(err, errlen,
               "ImpactB took no latency sample while the command ran (%.1f s); run "
               "the command longer or use a smaller --interval-us; model not changed",
               r->runtime_s);
        goto out;
    }
    r->samples = ib.n_samples;
    rc = save_model(o, model, r, err, errlen);
out:
    if (plan->work_dir[0]) {
        nv_run_work_dir_cleanup(plan, o->keep_dir != NULL || rc != 0);
        r->logs_kept = rc != 0 && !o->keep_dir;
    }
    nv_impactb_output_free(&ib);
    free(text);
    nv_model_free(model);
    return rc;
}
