/* verb_calibrate.c - `netvar calibrate`: run ImpactB on idle nodes and write
 * the calibration (service time 1/mu, Var(S), idle histogram) into a model
 * file, keeping everything else the model already holds.  The verb parses
 * the options and prints; lib/runner/calibrate.h does the work. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "calibrate.h"
#include "child.h"
#include "launch_plan.h"
#include "nv_err.h"
#include "nv_json.h"
#include "args.h"
#include "opts.h"
#include "verbs.h"

#define VERB "netvar calibrate"

static const char help_head[] =
    "Usage: netvar calibrate --model FILE [--duration-s S] [--interval-us US]\n"
    "                        [--method NAME] [--quantile Q] [--from-json FILE]\n"
    "                        [--json | --text] [launch options]\n"
    "\n"
    "Measure the network's service rate on idle nodes and store it in a model\n"
    "file.  ImpactB (1 KB ping-pongs between paired nodes) runs for S seconds on\n"
    "nodes that nothing else uses: an idle allocation (inside salloc or sbatch;\n"
    "srun otherwise allocates N nodes itself), or locally with --launcher mpirun.\n"
    "From its one-way latencies netvar computes (Queue-theory interference model, section 4.2):\n"
    "  service time 1/mu  the minimum idle latency (or a low quantile, or the mean),\n"
    "  Var(S)             the variance of the idle latencies,\n"
    "  histogram          the idle latencies on netvar's shared log bins.\n"
    "The model file's apps, training set and co-location table are kept; a\n"
    "missing file is created.  Utilizations already in the model were computed\n"
    "with the previous calibration: re-run `netvar impact` / `netvar campaign`\n"
    "to refresh them.  The file is replaced atomically, and only when the new\n"
    "model loads.\n"
    "\n";

static const char help_tail[] =
    "\n"
    "Output (JSON on stdout; --text prints the same as a summary): model,\n"
    "calibration {method, service_us (us), mu_per_us (packets per us), var_s_us2\n"
    "(us^2), idle_mean_us (us), samples, rejected}, probe {source, nodes,\n"
    "node_names, samples, elapsed_s (s)}.\n"
    "\n"
    "Exit status: 0 calibrated and saved, 1 the run or the save failed (the\n"
    "model file is unchanged), 2 bad usage.\n"
    "\n"
    "Example:\n"
    "  salloc -N 4 netvar calibrate --model /etc/netvar/model.json --duration-s 60\n"
    "  netvar calibrate --launcher mpirun --nodes 2 --model model.json\n";

static int set_method(const nv_opt *o, void *to, const char *arg, char *err, size_t errlen)
{
    (void)o;
    if (nv_cal_method_from_name(arg, to))
        return nv_err(err, errlen, "--method '%.40s': must be minimum, low-quantile or mean", arg);
    return 0;
}

static void print_json(const char *model_path, const char *source, const nv_calibrate_result *r)
{
    const nv_calibration *cal = &r->cal;
    json_object *o = json_object_new_object(), *jc = json_object_new_object(),
                *jp = json_object_new_object(), *names = json_object_new_array();
    json_object_object_add(o, "model", json_object_new_string(model_path));
    json_object_object_add(jc, "method", json_object_new_string(nv_cal_method_name(cal->method)));
    if (cal->method == NV_CAL_LOW_QUANTILE)
        json_object_object_add(jc, "quantile", nv_json_new_num_g(cal->quantile, 6));
    json_object_object_add(jc, "service_us", nv_json_new_num_g(cal->service_us, 6));
    json_object_object_add(jc, "mu_per_us", nv_json_new_num_g(cal->mu_per_us, 6));
    json_object_object_add(jc, "var_s_us2", nv_json_new_num_g(cal->var_s_us2, 6));
    json_object_object_add(jc, "idle_mean_us", nv_json_new_num_g(cal->idle_mean_us, 6));
    json_object_object_add(jc, "samples", json_object_new_int64((int64_t)cal->samples));
    json_object_object_add(jc, "rejected", json_object_new_int64((int64_t)cal->rejected));
    json_object_object_add(o, "calibration", jc);
    json_object_object_add(jp, "source", json_object_new_string(source));
    json_object_object_add(jp, "nodes", json_object_new_int(r->probe.placement.nodes));
    for (size_t i = 0; i < r->probe.placement.n_node_names; i++)
        json_object_array_add(names, json_object_new_string(r->probe.placement.node_names[i]));
    json_object_object_add(jp, "node_names", names);
    json_object_object_add(jp, "samples", json_object_new_int64((int64_t)r->probe.n_samples));
    json_object_object_add(jp, "elapsed_s", nv_json_new_num_g(r->probe.elapsed_s, 6));
    json_object_object_add(o, "probe", jp);
    printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
                                                         JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
}

static void print_text(const char *model_path, const char *source, const nv_calibrate_result *r)
{
    const nv_calibration *cal = &r->cal;
    printf("calibration saved in %s\n", model_path);
    printf("  method        %s", nv_cal_method_name(cal->method));
    if (cal->method == NV_CAL_LOW_QUANTILE)
        printf(" (quantile %.6g)", cal->quantile);
    printf("\n  service time  %.6g us (mu %.6g per us)\n", cal->service_us, cal->mu_per_us);
    printf("  Var(S)        %.6g us^2\n", cal->var_s_us2);
    printf("  idle mean     %.6g us\n", cal->idle_mean_us);
    printf("  samples       %llu used, %llu rejected\n", (unsigned long long)cal->samples,
           (unsigned long long)cal->rejected);
    printf("ImpactB (%s): %d node(s)", source, r->probe.placement.nodes);
    for (size_t i = 0; i < r->probe.placement.n_node_names; i++)
        printf("%s%s", i ? ", " : " (", r->probe.placement.node_names[i]);
    printf("%s, %zu samples in %.3g s\n", r->probe.placement.n_node_names ? ")" : "",
           r->probe.n_samples, r->probe.elapsed_s);
}

int verb_calibrate(int argc, char **argv)
{
    nv_run_plan plan;
    nv_run_plan_defaults(&plan);
    plan.notice_ctx = "calibrate";
    nv_calibrate_opts co;
    nv_calibrate_opts_defaults(&co);
    int text = 0;
    const nv_opt opts[] = {
        {"model", "FILE", NV_CLI_STR, &co.model_path,
         .help = "model file to create or update (required)"},
        {"duration-s", "S", NV_CLI_SECONDS, &co.duration_s,
         .help = "how long ImpactB measures, in seconds (> 0, default 5)"},
        NV_CLI_OPT_INTERVAL_US(&co.interval_us,
                               "; the paper's 100000 gives 5x fewer samples per second; 1 KB "
                               "per 20 ms is about 51 KB/s per pair, negligible"),
        {"method", "NAME", NV_CLI_CALL, &co.method, .call = set_method,
         .help = "minimum (default, the paper's), low-quantile or mean: which idle latency is "
                 "the service time (calibration.h)"},
        {"quantile", "Q", NV_CLI_DOUBLE, &co.quantile, 0, 0.5,
         .bad = "must be a number from 0 to 0.5",
         .help = "the quantile for low-quantile, 0..0.5 (default 0.01)"},
        {"from-json", "FILE", NV_CLI_STR, &co.from_json,
         .help = "use an ImpactB output written with --samples instead of running ImpactB "
                 "(e.g. from an earlier sbatch job)"},
        NV_OPT_JSON_TEXT(&text),
    };
    nv_cli_launch launch = {&plan, &co.keep_dir};
    int parsed = nv_cli_workflow_parse(VERB, help_head, help_tail, opts,
                                       sizeof opts / sizeof opts[0], &launch, 0, argc, argv);
    if (parsed)
        return nv_opts_exit(parsed);
    char err[600] = "";
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%.60s'; see --help\n", VERB, argv[optind]);
        return 2;
    }
    if (!co.model_path) {
        fprintf(stderr, "%s: --model FILE is required; nothing run\n", VERB);
        return 2;
    }
    if (!co.from_json && nv_run_plan_check(&plan, 2, 0, err, sizeof err)) {
        fprintf(stderr, "%s: %s; nothing run\n", VERB, err);
        return 2;
    }

    nv_run_catch_signals();
    nv_calibrate_result r;
    int rc = nv_calibrate_run(&plan, &co, &r, err, sizeof err);
    if (r.logs_kept)
        fprintf(stderr, "netvar: calibrate: launch logs kept in %s\n", plan.work_dir);
    if (rc) {
        fprintf(stderr, "%s: %s\n", VERB, err);
        nv_calibrate_result_free(&r);
        return 1;
    }
    if (r.old_apps || r.old_configs)
        fprintf(stderr,
                "netvar: calibrate: %zu app(s) and %zu configuration(s) in %s keep "
                "utilizations from the previous calibration; re-run netvar impact or "
                "campaign to refresh them\n",
                r.old_apps, r.old_configs, co.model_path);
    const char *source = co.from_json ? co.from_json : nv_launcher_name(plan.launcher);
    if (text)
        print_text(co.model_path, source, &r);
    else
        print_json(co.model_path, source, &r);
    nv_calibrate_result_free(&r);
    return 0;
}
