/* verb_calibrate.c - `netvar calibrate`: run ImpactB on idle nodes and write
 * the calibration (service time 1/mu, Var(S), idle histogram) into a model
 * file, keeping everything else the model already holds. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "calibration.h"
#include "model_builder.h"
#include "child.h"
#include "launch_plan.h"
#include "probe_output.h"
#include "probe_run.h"
#include "run_model.h"
#include "verbs.h"

#define VERB "netvar calibrate"

static void usage(FILE *out)
{
    fprintf(out,
        "Usage: netvar calibrate --model FILE [--duration-s S] [--interval-us US]\n"
        "                        [--method NAME] [--quantile Q] [--from-json FILE]\n"
        "                        [launch options]\n"
        "\n"
        "Measure the network's service rate on idle nodes and store it in a model\n"
        "file.  ImpactB (1 KB ping-pongs between paired nodes) runs for S seconds on\n"
        "nodes that nothing else uses: an idle allocation (inside salloc or sbatch;\n"
        "srun otherwise allocates N nodes itself), or locally with --launcher mpirun.\n"
        "From its one-way latencies netvar computes (seed 000, section 4.2):\n"
        "  service time 1/mu  the minimum idle latency (or a low quantile, or the mean),\n"
        "  Var(S)             the variance of the idle latencies,\n"
        "  histogram          the idle latencies on netvar's shared log bins.\n"
        "The model file's apps, training set and co-location table are kept; a\n"
        "missing file is created.  Utilizations already in the model were computed\n"
        "with the previous calibration: re-run `netvar impact` / `netvar campaign`\n"
        "to refresh them.  The file is replaced atomically, and only when the new\n"
        "model loads.\n"
        "\n"
        "Options:\n"
        "  --model FILE       model file to create or update (required)\n"
        "  --duration-s S     how long ImpactB measures, in seconds (> 0, default 5)\n"
        "  --interval-us US   pause between ping-pongs, in microseconds (default 20000;\n"
        "                     the paper's 100000 gives 5x fewer samples per second;\n"
        "                     1 KB per 20 ms is about 51 KB/s per pair, negligible)\n"
        "  --method NAME      minimum (default, the paper's), low-quantile or mean:\n"
        "                     which idle latency is the service time (calibration.h)\n"
        "  --quantile Q       the quantile for low-quantile, 0..0.5 (default 0.01)\n"
        "  --from-json FILE   use an ImpactB output written with --samples instead of\n"
        "                     running ImpactB (e.g. from an earlier sbatch job)\n"
        "  -h, --help         show this help\n"
        "\n");
    fputs(nv_run_options_help, out);
    fprintf(out,
        "\n"
        "Output (JSON on stdout): model, calibration {method, service_us (us),\n"
        "mu_per_us (packets per us), var_s_us2 (us^2), idle_mean_us (us), samples,\n"
        "rejected}, probe {nodes, node_names, samples, elapsed_s (s)}.\n"
        "\n"
        "Exit status: 0 calibrated and saved, 1 the run or the save failed (the\n"
        "model file is unchanged), 2 bad usage.\n"
        "\n"
        "Example:\n"
        "  salloc -N 4 netvar calibrate --model /etc/netvar/model.json --duration-s 60\n"
        "  netvar calibrate --launcher mpirun --nodes 2 --model model.json\n");
}

static json_object *jd(double d)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%.6g", d);
    return json_object_new_double_s(d, buf);
}

/* Runs ImpactB for the duration and returns its stdout (malloc'd). */
static char *run_impactb(nv_run_plan *plan, double duration_s, long interval_us, size_t *len,
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

int verb_calibrate(int argc, char **argv)
{
    static const struct option opts[] = {
        {"model", required_argument, NULL, 'm'},
        {"duration-s", required_argument, NULL, 'd'},
        {"interval-us", required_argument, NULL, 'i'},
        {"method", required_argument, NULL, 'M'},
        {"quantile", required_argument, NULL, 'q'},
        {"from-json", required_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        NV_RUN_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    nv_run_plan plan;
    nv_run_plan_defaults(&plan);
    const char *model_path = NULL, *from_json = NULL, *keep = NULL;
    double duration_s = 5, quantile = 0.01;
    long interval_us = 20000;
    nv_cal_method method = NV_CAL_MINIMUM;
    char err[600] = "";
    int c;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
        int bad = 0;
        switch (c) {
        case 'm': model_path = optarg; break;
        case 'd': bad = nv_parse_seconds("--duration-s", optarg, &duration_s, err, sizeof err); break;
        case 'i': bad = nv_parse_count("--interval-us", optarg, 0, 60000000L, &interval_us, err, sizeof err); break;
        case 'M':
            if (nv_cal_method_from_name(optarg, &method)) {
                snprintf(err, sizeof err, "--method '%.40s': must be minimum, low-quantile or mean", optarg);
                bad = -1;
            }
            break;
        case 'q': {
            char *end;
            quantile = strtod(optarg, &end);
            if (end == optarg || *end || !(quantile >= 0 && quantile <= 0.5)) {
                snprintf(err, sizeof err, "--quantile '%.40s': must be a number from 0 to 0.5", optarg);
                bad = -1;
            }
            break;
        }
        case 'j': from_json = optarg; break;
        case 'h': usage(stdout); return 0;
        default:
            bad = nv_run_plan_option(&plan, c, optarg, &keep, err, sizeof err);
            if (bad == 1) {
                snprintf(err, sizeof err, "unknown or incomplete option '%s'; see --help",
                         argv[optind - 1]);
                bad = -1;
            }
        }
        if (bad) {
            fprintf(stderr, "%s: %s; nothing run\n", VERB, err);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%.60s'; see --help\n", VERB, argv[optind]);
        return 2;
    }
    if (!model_path) {
        fprintf(stderr, "%s: --model FILE is required; nothing run\n", VERB);
        return 2;
    }
    if (!from_json && nv_run_plan_check(&plan, 2, 0, err, sizeof err)) {
        fprintf(stderr, "%s: %s; nothing run\n", VERB, err);
        return 2;
    }
    /* a model that exists but does not load is not overwritten */
    nv_model *old = NULL;
    if (nv_run_load_model_if_any(model_path, &old, err, sizeof err)) {
        fprintf(stderr, "%s: %s; the model file is left as it is and nothing was run\n", VERB, err);
        return 1;
    }

    nv_run_catch_signals();
    char *text = NULL;
    size_t len = 0;
    int rc = 1;
    if (from_json) {
        text = nv_read_text_file(from_json, NV_RUN_MAX_PROBE_OUTPUT, &len, err, sizeof err);
    } else if (nv_run_work_dir(&plan, keep, "calibrate", err, sizeof err) == 0) {
        text = run_impactb(&plan, duration_s, interval_us, &len, err, sizeof err);
        nv_run_work_dir_cleanup(&plan, keep != NULL || !text);
        if (!text && !keep)
            fprintf(stderr, "netvar: calibrate: launch logs kept in %s\n", plan.work_dir);
    }
    nv_impactb_output ib = {0};
    nv_calibration cal;
    nv_model_builder *b = NULL;
    if (!text) {
        fprintf(stderr, "%s: %s; model not changed\n", VERB, err);
        goto out;
    }
    if (nv_impactb_parse(text, len, &ib, err, sizeof err)) {
        fprintf(stderr, "%s: ImpactB output %s: %s; model not changed\n", VERB,
                from_json ? from_json : "", err);
        goto out;
    }
    if (nv_calibrate(ib.samples_us, ib.n_samples, method, quantile, &cal)) {
        fprintf(stderr, "%s: ImpactB gave %zu usable latency sample(s), at least 2 are needed "
                        "(run longer or with a smaller --interval-us); model not changed\n",
                VERB, ib.n_samples);
        goto out;
    }
    b = old ? nv_builder_from_model(old) : nv_builder_new();
    if (!b || nv_builder_set_calibration(b, &cal)) {
        fprintf(stderr, "%s: %s; model not changed\n", VERB,
                b ? nv_builder_error(b) : "out of memory");
        goto out;
    }
    if (nv_builder_save(b, model_path, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", VERB, err);
        goto out;
    }
    if (old && (nv_model_app_count(old) || nv_model_config_count(old)))
        fprintf(stderr, "netvar: calibrate: %zu app(s) and %zu configuration(s) in %s keep "
                        "utilizations from the previous calibration; re-run netvar impact or "
                        "campaign to refresh them\n",
                nv_model_app_count(old), nv_model_config_count(old), model_path);

    json_object *o = json_object_new_object(), *jc = json_object_new_object(),
                *jp = json_object_new_object(), *names = json_object_new_array();
    json_object_object_add(o, "model", json_object_new_string(model_path));
    json_object_object_add(jc, "method", json_object_new_string(nv_cal_method_name(cal.method)));
    if (cal.method == NV_CAL_LOW_QUANTILE)
        json_object_object_add(jc, "quantile", jd(cal.quantile));
    json_object_object_add(jc, "service_us", jd(cal.service_us));
    json_object_object_add(jc, "mu_per_us", jd(cal.mu_per_us));
    json_object_object_add(jc, "var_s_us2", jd(cal.var_s_us2));
    json_object_object_add(jc, "idle_mean_us", jd(cal.idle_mean_us));
    json_object_object_add(jc, "samples", json_object_new_int64((int64_t)cal.samples));
    json_object_object_add(jc, "rejected", json_object_new_int64((int64_t)cal.rejected));
    json_object_object_add(o, "calibration", jc);
    json_object_object_add(jp, "source", json_object_new_string(from_json ? from_json : nv_launcher_name(plan.launcher)));
    json_object_object_add(jp, "nodes", json_object_new_int(ib.placement.nodes));
    for (size_t i = 0; i < ib.placement.n_node_names; i++)
        json_object_array_add(names, json_object_new_string(ib.placement.node_names[i]));
    json_object_object_add(jp, "node_names", names);
    json_object_object_add(jp, "samples", json_object_new_int64((int64_t)ib.n_samples));
    json_object_object_add(jp, "elapsed_s", jd(ib.elapsed_s));
    json_object_object_add(o, "probe", jp);
    printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
    rc = 0;
out:
    nv_builder_free(b);
    nv_impactb_output_free(&ib);
    free(text);
    nv_model_free(old);
    return rc;
}
