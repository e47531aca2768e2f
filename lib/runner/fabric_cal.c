/* fabric_cal.c - `netvar calibrate --fabric` (fabric_cal.h). */
#include "fabric_cal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "child.h"
#include "model_builder.h"
#include "nv_err.h"
#include "probe_run.h"
#include "run_model.h"

void nv_fabric_cal_opts_defaults(nv_fabric_cal_opts *o)
{
    memset(o, 0, sizeof *o);
    o->repeat = 3;
    o->settle_s = 2;
    o->ghz = 2.6;
    o->msg_bytes = 40960;
    o->scale = 1;
    o->timeout_s = 300;
}

/* the kernels beside impactb: same directory, or the PATH when impactb
 * is looked up there */
static void kernels_path(const nv_run_plan *plan, char *buf, size_t n)
{
    const char *slash = strrchr(plan->impactb, '/');
    if (!slash)
        snprintf(buf, n, "netvar-fabric-kernels");
    else
        snprintf(buf, n, "%.*s/netvar-fabric-kernels", (int)(slash - plan->impactb), plan->impactb);
}

/* sleeps s seconds, or less when interrupted; -1 when interrupted */
static int settle(double s)
{
    double left = s;
    while (left > 0 && !nv_run_interrupted()) {
        double step = left < 0.1 ? left : 0.1;
        struct timespec ts = {0, (long)(step * 1e9)};
        nanosleep(&ts, NULL);
        left -= step;
    }
    return nv_run_interrupted() ? -1 : 0;
}

/* one run of the kernels on the APP side; their class times into out */
static int run_kernels(const nv_run_plan *plan, const nv_fabric_cal_opts *o, const char *path,
                       const char *name, double *out, int *ranks, char *err, size_t errlen)
{
    char scale[32];
    snprintf(scale, sizeof scale, "%g", o->scale);
    const char *args[] = {"--scale", scale};
    nv_child c;
    if (nv_probe_start_on(&c, plan, NV_SIDE_APP, path, name, args, 2, err, errlen))
        return -1;
    size_t len = 0;
    char *text =
        nv_probe_finish(&c, plan, 0, o->timeout_s + plan->launch_timeout_s, &len, err, errlen);
    if (!text)
        return -1;
    char why[300];
    int rc = nv_fabric_kernels_parse(text, len, out, ranks, why, sizeof why);
    free(text);
    return rc ? nv_err(err, errlen, "%s: %s", name, why) : 0;
}

/* repeat runs; the median of each class over them into med */
static int kernels_median(const nv_run_plan *plan, const nv_fabric_cal_opts *o, const char *path,
                          const char *what, double *med, int *ranks, char *err, size_t errlen)
{
    double runs[NV_FABRIC_CAL_MAX_REPEAT][NV_FABRIC_CLASSES];
    for (int k = 0; k < o->repeat; k++) {
        char name[96];
        snprintf(name, sizeof name, "kernels-%s-%d", what, k + 1);
        if (run_kernels(plan, o, path, name, runs[k], ranks, err, errlen))
            return -1;
    }
    for (int c = 0; c < NV_FABRIC_CLASSES; c++) {
        double v[NV_FABRIC_CAL_MAX_REPEAT];
        for (int k = 0; k < o->repeat; k++)
            v[k] = runs[k][c];
        med[c] = nv_campaign_median(v, (size_t)o->repeat);
    }
    return 0;
}

/* one configuration: its U and wait alone over settle_s, then the kernels
 * beside it */
static int one_config(const nv_run_plan *plan, const nv_fabric_cal_opts *o, nv_bn_sampler *bn,
                      const char *path, const nv_campaign_config *cfg, const double *idle,
                      nv_fabric_point *pt, int *ranks, char *err, size_t errlen)
{
    char b[5][32], name[96];
    snprintf(b[0], 32, "%d", cfg->partners);
    snprintf(b[1], 32, "%d", cfg->messages);
    snprintf(b[2], 32, "%.17g", cfg->bubble_cycles);
    snprintf(b[3], 32, "%ld", o->msg_bytes);
    snprintf(b[4], 32, "%.17g", o->ghz);
    const char *args[] = {"--partners", b[0],          "--messages", b[1],    "--cycles",
                          b[2],         "--msg-bytes", b[3],         "--ghz", b[4]};
    snprintf(name, sizeof name, "compressionb-%s-fabric", cfg->id);
    nv_child load;
    if (nv_probe_start(&load, plan, plan->compressionb, name, args, 10, err, errlen))
        return -1;
    int rc = settle(o->settle_s);
    if (rc)
        nv_err(err, errlen, "interrupted");
    else {
        uint64_t t1 = nv_bn_now_ns(), w = (uint64_t)(o->settle_s * 1e9), t0 = t1 > w ? t1 - w : 0;
        size_t np, nu, nw;
        nu = nv_bn_window(bn, NV_BN_U, t0, t1, &pt->utilization, NULL, 0, &np);
        nw = nv_bn_window(bn, NV_BN_WAIT, t0, t1, &pt->wait_us, NULL, 0, &np);
        if (!nu || !nw || !isfinite(pt->utilization) || !isfinite(pt->wait_us))
            rc = nv_err(err, errlen,
                        "the bottleneck gave no U or queue wait under %s in %g s (a longer "
                        "--duration-s, or a port with a queue gauge)",
                        cfg->id, o->settle_s);
    }
    double loaded[NV_FABRIC_CLASSES];
    if (!rc)
        rc = kernels_median(plan, o, path, cfg->id, loaded, ranks, err, errlen);
    char cerr[300] = "";
    size_t clen = 0;
    char *ctext = nv_probe_finish(&load, plan, 1, 0, &clen, cerr, sizeof cerr);
    free(ctext);
    if (!rc && !ctext)
        rc = nv_err(err, errlen, "CompressionB %s: %s", cfg->id, cerr);
    if (rc)
        return -1;
    snprintf(pt->id, sizeof pt->id, "%s", cfg->id);
    for (int c = 0; c < NV_FABRIC_CLASSES; c++) {
        double g = loaded[c] / idle[c];
        pt->growth[c] = !(g > 1e-3) ? 1e-3 : g > NV_FABRIC_MAX_GROWTH ? NV_FABRIC_MAX_GROWTH : g;
    }
    return 0;
}

/* the model file the fabric goes into: it must exist and load, and read
 * queue waits on the fabric's gauge (checked before anything runs) */
static nv_model *model_for_fabric(const char *path, nv_wait_gauge gauge, char *err, size_t errlen)
{
    nv_model *m = NULL;
    char inner[600] = "";
    if (nv_run_load_model_if_any(path, &m, inner, sizeof inner)) {
        nv_err(err, errlen, "%s; the model file is left as it is", inner);
        return NULL;
    }
    if (!m) {
        nv_err(err, errlen,
               "%s: no such model (run netvar calibrate and campaigns first, or write the "
               "fabric with --out)",
               path);
        return NULL;
    }
    const nv_bottleneck *bn = nv_model_bottleneck(m);
    if (bn->present && bn->wait_gauge != gauge) {
        nv_err(err, errlen, "%s reads queue waits as %s, the --bottleneck port as %s: not one axis",
               path, nv_wait_gauge_name(bn->wait_gauge), nv_wait_gauge_name(gauge));
        nv_model_free(m);
        return NULL;
    }
    return m;
}

/* the fabric into the model (everything else it holds kept) */
static int save_in_model(const char *path, const nv_model *m, const nv_fabric *f, char *err,
                         size_t errlen)
{
    nv_model_builder *b = nv_builder_from_model(m);
    char inner[600] = "";
    int rc = -1;
    if (!b)
        nv_err(err, errlen, "%s: out of memory; model not changed", path);
    else if (nv_builder_set_fabric(b, f))
        nv_err(err, errlen, "%s: %s; model not changed", path, nv_builder_error(b));
    else if (nv_builder_save(b, path, inner, sizeof inner))
        nv_err(err, errlen, "%s; model not changed", inner);
    else
        rc = 0;
    nv_builder_free(b);
    return rc;
}

int nv_fabric_cal_run(nv_run_plan *plan, const nv_fabric_cal_opts *o, nv_fabric_cal_result *r,
                      char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (!o->bottleneck || !o->ncfg || o->ncfg > NV_FABRIC_MAX_POINTS || o->repeat < 1 ||
        o->repeat > NV_FABRIC_CAL_MAX_REPEAT || (!o->model_path && !o->out_path))
        return nv_err(err, errlen,
                      "nothing run: the fabric needs a bottleneck, 1 to %d configurations, 1 "
                      "to %d repetitions and a model or output file",
                      NV_FABRIC_MAX_POINTS, NV_FABRIC_CAL_MAX_REPEAT);
    char inner[600] = "", path[NV_RUN_PATH_MAX + 32];
    kernels_path(plan, path, sizeof path);
    /* what the port reads, and the model it goes into, before anything runs */
    nv_bn_gauge gauge = nv_bn_kind_gauge(o->bottleneck->kind);
    if (gauge == NV_BN_GAUGE_NONE)
        return nv_err(err, errlen,
                      "--bottleneck: the port has no queue gauge (the fabric needs the wait "
                      "axis; use qdisc, infiniband, cxi or aries); nothing run");
    nv_model *m = NULL;
    if (o->model_path &&
        !(m = model_for_fabric(o->model_path, nv_bn_wait_gauge(gauge), inner, sizeof inner)))
        return nv_err(err, errlen, "%s; nothing run", inner);
    nv_bn_sampler *bn =
        nv_bn_start(o->bottleneck, o->bottleneck_interval_ms > 0 ? o->bottleneck_interval_ms : 100,
                    inner, sizeof inner);
    if (!bn) {
        nv_model_free(m);
        return nv_err(err, errlen, "%s; nothing run", inner);
    }
    if (nv_run_work_dir(plan, o->keep_dir, "calibrate", inner, sizeof inner)) {
        nv_bn_stop(bn);
        nv_model_free(m);
        return nv_err(err, errlen, "%s; nothing run", inner);
    }
    uint64_t t_start = nv_bn_now_ns();
    nv_fabric *f = &r->fabric;
    snprintf(f->wait_gauge, sizeof f->wait_gauge, "%s",
             nv_wait_gauge_name(nv_bn_wait_gauge(gauge)));
    f->repetitions = (uint32_t)o->repeat;
    int rc = settle(o->settle_s);
    if (rc)
        nv_err(inner, sizeof inner, "interrupted");
    else {
        uint64_t t1 = nv_bn_now_ns(), w = (uint64_t)(o->settle_s * 1e9);
        size_t np;
        double u = NAN;
        nv_bn_window(bn, NV_BN_U, t1 > w ? t1 - w : 0, t1, &u, NULL, 0, &np);
        f->idle_utilization = isfinite(u) ? u : 0;
        rc =
            kernels_median(plan, o, path, "idle", r->idle_class_us, &r->ranks, inner, sizeof inner);
    }
    for (int c = 0; !rc && c < NV_FABRIC_CLASSES; c++)
        f->idle_us[c] = r->idle_class_us[c];
    for (size_t i = 0; !rc && i < o->ncfg; i++, f->n_points++)
        rc = one_config(plan, o, bn, path, &o->cfg[i], r->idle_class_us, &f->points[i], &r->ranks,
                        inner, sizeof inner);
    nv_bn_stop(bn);
    nv_run_work_dir_cleanup(plan, o->keep_dir != NULL || rc);
    r->logs_kept = rc && !o->keep_dir;
    f->elapsed_s = (double)(nv_bn_now_ns() - t_start) / 1e9;
    if (rc)
        nv_err(err, errlen, "%s; nothing saved", inner);
    else if (o->out_path && nv_fabric_save(f, o->out_path, inner, sizeof inner))
        rc = nv_err(err, errlen, "%s", inner);
    else if (m && save_in_model(o->model_path, m, f, inner, sizeof inner))
        rc =
            nv_err(err, errlen, "%s%s", inner, o->out_path ? " (the fabric file was written)" : "");
    nv_model_free(m);
    return rc;
}
