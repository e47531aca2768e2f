/* verb_calibrate.c - `netvar calibrate`: run ImpactB on idle nodes and write
 * the calibration (service time 1/mu, Var(S), idle histogram) into a model
 * file, keeping everything else the model already holds.  The verb parses
 * the options and prints; lib/runner/calibrate.h does the work. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "bottleneck.h"
#include "calibrate.h"
#include "campaign.h"
#include "child.h"
#include "fabric_cal.h"
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
    "       netvar calibrate --fabric --bottleneck KIND:PORT --configs B:P:M,...\n"
    "                        [--model FILE] [--out FILE] [--repeat N] [--scale S]\n"
    "                        [--duration-s S] [launch options]\n"
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
    "\n"
    "With --fabric: the fabric's response per message class, once per fabric.\n"
    "The reference kernels (netvar-fabric-kernels: point-to-point ping-pong and\n"
    "streaming at 8 B .. 1 MiB, Bcast, Reduce, Allreduce and Alltoall at 8 B,\n"
    "4 KiB, 64 KiB and 1 MiB) run N times alone, then N times beside each\n"
    "CompressionB configuration, after S seconds of it alone over which its U\n"
    "and queue wait are read at the bottleneck.  Per configuration and class\n"
    "(3 operations x 4 size classes) the median time over the idle median is\n"
    "stored: in the fabric file --out (docs/fabric-format.md) and/or as the\n"
    "\"fabric\" member of the model file --model, which must exist.  Apps\n"
    "without a campaign curve but with a signature are then answered from it\n"
    "(source model:profile).\n"
    "\n";

static const char help_tail[] =
    "\n"
    "Output (JSON on stdout; --text prints the same as a summary): model,\n"
    "calibration {method, service_us (us), mu_per_us (packets per us), var_s_us2\n"
    "(us^2), idle_mean_us (us), samples, rejected}, probe {source, nodes,\n"
    "node_names, samples, elapsed_s (s)}.\n"
    "\n"
    "With --fabric (JSON on stdout): fabric (the file's object: wait_gauge,\n"
    "idle_utilization, repetitions, elapsed_s (s, the calibration's wall time),\n"
    "idle_us (us per class), points [{config, utilization, wait_us, growth}]),\n"
    "kernel_ranks, model, out.\n"
    "\n"
    "Exit status: 0 calibrated and saved, 1 the run or the save failed (the\n"
    "model file is unchanged), 2 bad usage.\n"
    "\n"
    "Example:\n"
    "  salloc -N 4 netvar calibrate --model /etc/netvar/model.json --duration-s 60\n"
    "  netvar calibrate --launcher mpirun --nodes 2 --model model.json\n"
    "  salloc -N4 netvar calibrate --fabric --model model.json --load-nodes h2,h4 \\\n"
    "      --bottleneck qdisc:ns0,eth0 --configs 2.6e7:1:1,250:1:10\n";

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

static int run_fabric(nv_run_plan *plan, nv_fabric_cal_opts *fo, const char *configs,
                      const char *bn_spec, double bn_rate, int text)
{
    static nv_campaign_config cfg[NV_FABRIC_MAX_POINTS];
    static nv_bn_spec bn;
    char err[700] = "";
    size_t ncfg = 0;
    if (!configs || !bn_spec) {
        fprintf(stderr, "%s: --fabric needs --configs B:P:M,... and --bottleneck; nothing run\n",
                VERB);
        return 2;
    }
    if (!fo->model_path && !fo->out_path) {
        fprintf(stderr, "%s: --fabric needs --model FILE or --out FILE; nothing run\n", VERB);
        return 2;
    }
    if (nv_campaign_parse_configs(configs, cfg, NV_FABRIC_MAX_POINTS, &ncfg, err, sizeof err) ||
        nv_bn_parse(bn_spec, &bn, err, sizeof err)) {
        fprintf(stderr, "%s: %s; nothing run\n", VERB, err);
        return 2;
    }
    bn.rate_bytes_per_s = bn_rate;
    fo->cfg = cfg;
    fo->ncfg = ncfg;
    fo->bottleneck = &bn;
    if (nv_run_plan_check(plan, 2, 1, err, sizeof err) ||
        nv_campaign_check_fit(cfg, ncfg, nv_run_side_nodes(plan, NV_SIDE_LOAD),
                              plan->n_load_nodes > 0, err, sizeof err)) {
        fprintf(stderr, "%s: %s; nothing run\n", VERB, err);
        return 2;
    }
    nv_run_catch_signals();
    nv_fabric_cal_result *r = malloc(sizeof *r);
    if (!r) {
        fprintf(stderr, "%s: out of memory; nothing run\n", VERB);
        return 1;
    }
    int rc = nv_fabric_cal_run(plan, fo, r, err, sizeof err);
    if (r->logs_kept)
        fprintf(stderr, "netvar: calibrate: launch logs kept in %s\n", plan->work_dir);
    if (rc) {
        fprintf(stderr, "%s: %s\n", VERB, err);
        free(r);
        return 1;
    }
    const nv_fabric *f = &r->fabric;
    if (text) {
        printf("fabric calibrated in %.1f s: %zu configuration(s), %u run(s) each, %d kernel "
               "ranks\n",
               f->elapsed_s, f->n_points, f->repetitions, r->ranks);
        for (size_t i = 0; i < f->n_points; i++) {
            const nv_fabric_point *p = &f->points[i];
            printf("  %s: U %.3g, wait %.4g (%s); growth", p->id, p->utilization, p->wait_us,
                   f->wait_gauge);
            for (int c = 0; c < NV_FABRIC_CLASSES; c++)
                printf(" %s %.3g", nv_fabric_class_name(c), p->growth[c]);
            printf("\n");
        }
    } else {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "fabric", nv_fabric_to_json(f));
        json_object_object_add(o, "kernel_ranks", json_object_new_int(r->ranks));
        json_object_object_add(o, "model",
                               fo->model_path ? json_object_new_string(fo->model_path) : NULL);
        json_object_object_add(o, "out",
                               fo->out_path ? json_object_new_string(fo->out_path) : NULL);
        printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
                                                             JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(o);
    }
    free(r);
    return 0;
}

int verb_calibrate(int argc, char **argv)
{
    nv_run_plan plan;
    nv_run_plan_defaults(&plan);
    plan.notice_ctx = "calibrate";
    nv_calibrate_opts co;
    nv_calibrate_opts_defaults(&co);
    int text = 0, fabric = 0;
    nv_fabric_cal_opts fo;
    nv_fabric_cal_opts_defaults(&fo);
    const char *configs = NULL, *bn_spec = NULL;
    double bn_rate = 0, duration_s = 0;
    const nv_opt opts[] = {
        {"model", "FILE", NV_CLI_STR, &co.model_path,
         .help = "model file to create or update (required; with --fabric: an existing model "
                 "that gets the fabric response)"},
        {"fabric", NULL, NV_CLI_FLAG, &fabric, .ival = 1,
         .help = "measure the fabric's response per message class beside CompressionB "
                 "configurations instead of the idle service rate (see above)"},
        {"out", "FILE", NV_CLI_STR, &fo.out_path,
         .help = "--fabric: write the fabric response file (docs/fabric-format.md)"},
        {"configs", "LIST", NV_CLI_STR, &configs,
         .help = "--fabric: the CompressionB configurations, B:P:M[,B:P:M...] as netvar "
                 "campaign takes them (at most 254)"},
        {"repeat", "N", NV_CLI_INT, &fo.repeat, 1, NV_FABRIC_CAL_MAX_REPEAT,
         .help = "--fabric: kernel runs alone and per configuration (1..20, default 3)"},
        {"scale", "S", NV_CLI_DOUBLE, &fo.scale, 0.01, 100,
         .bad = "must be a number from 0.01 to 100",
         .help = "--fabric: the kernels' iterations, times S MiB of traffic per kernel "
                 "(0.01..100, default 1)"},
        {"ghz", "G", NV_CLI_DOUBLE, &fo.ghz, 0.01, 100,
         .bad = "must be a clock rate from 0.01 to 100 GHz",
         .help = "--fabric: clock rate turning B cycles into CompressionB's sleep (default 2.6)"},
        {"msg-bytes", "N", NV_CLI_LONG, &fo.msg_bytes, 1, 64L << 20,
         .help = "--fabric: CompressionB message size in bytes (default 40960)"},
        {"timeout-s", "S", NV_CLI_SECONDS, &fo.timeout_s,
         .help = "--fabric: longest one run of the kernels, seconds (default 300)"},
        {"bottleneck", "KIND:PORT[,PORT...]", NV_CLI_STR, &bn_spec,
         .help = "--fabric (required): where U and the queue wait are read, as netvar campaign "
                 "takes it; the port needs a queue gauge (qdisc, infiniband, cxi, aries)"},
        {"bottleneck-rate", "B", NV_CLI_DOUBLE, &bn_rate, 1e3, 1e13,
         .bad = "must be a port rate from 1e3 to 1e13 bytes/s (flits/s for aries)",
         .help = "--fabric: the port's rate when it cannot be read"},
        {"bottleneck-interval-ms", "MS", NV_CLI_DOUBLE, &fo.bottleneck_interval_ms, 10, 10000,
         .bad = "must be 10 to 10000 ms", .help = "--fabric: sampling step (default 100)"},
        {"duration-s", "S", NV_CLI_SECONDS, &duration_s,
         .help = "how long ImpactB measures, in seconds (> 0, default 5); with --fabric how "
                 "long each load runs alone before the kernels, its U and wait read over it "
                 "(default 2)"},
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
                                       sizeof opts / sizeof opts[0], &launch, 1, argc, argv);
    if (parsed)
        return nv_opts_exit(parsed);
    char err[600] = "";
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%.60s'; see --help\n", VERB, argv[optind]);
        return 2;
    }
    if (fabric) {
        fo.model_path = co.model_path;
        fo.keep_dir = co.keep_dir;
        if (duration_s > 0)
            fo.settle_s = duration_s;
        return run_fabric(&plan, &fo, configs, bn_spec, bn_rate, text);
    }
    if (duration_s > 0)
        co.duration_s = duration_s;
    if (fo.out_path || configs || bn_spec) {
        fprintf(stderr, "%s: --out, --configs and --bottleneck go with --fabric; nothing run\n",
                VERB);
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
