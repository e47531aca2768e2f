/* verb_impact.c - `netvar impact`: run ImpactB beside a command on the same
 * nodes and record the command's latency summary and switch utilization in
 * its app profile of the model file. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "model_builder.h"
#include "child.h"
#include "launch_plan.h"
#include "probe_output.h"
#include "probe_run.h"
#include "run_model.h"
#include "verbs.h"

#define VERB "netvar impact"

static void usage(FILE *out)
{
    fprintf(out,
        "Usage: netvar impact --model FILE --app KEY [--interval-us US] [--timeout-s S]\n"
        "                     [--tasks-per-node T] [--load-nodes LIST]\n"
        "                     [--runtime-key KEY] [launch options] [--] COMMAND [ARGS...]\n"
        "\n"
        "Measure how much of the network an application uses.  ImpactB (1 KB\n"
        "ping-pongs between paired nodes) runs beside COMMAND on the same nodes,\n"
        "or with --load-nodes on other nodes, so it measures the links COMMAND's\n"
        "traffic crosses (a shared uplink) instead of COMMAND's own ports: with\n"
        "srun both are steps of the surrounding allocation started with --overlap\n"
        "(on its first N nodes, or ImpactB on --load-nodes and COMMAND on the rest;\n"
        "run netvar inside salloc or sbatch); with --launcher mpirun both run\n"
        "locally.  netvar launches COMMAND itself (N nodes x T tasks): give the\n"
        "program, not an srun line.  ImpactB starts first; once every rank of it\n"
        "is measuring, COMMAND starts; when COMMAND ends, ImpactB is stopped\n"
        "(SIGUSR1 through srun) and its latencies are read.\n"
        "\n"
        "The app profile KEY in the model gets (seed 000, section 4.2):\n"
        "  latency      mean, standard deviation and histogram of ImpactB's one-way\n"
        "               latency beside the app, in microseconds;\n"
        "  utilization  rho of the app from that mean latency through the inverse\n"
        "               Pollaczek-Khinchine formula and the model's calibration\n"
        "               (source \"latency\").\n"
        "The app's compression curve and scaling history are kept, as is the rest\n"
        "of the model.  The model must hold a calibration (netvar calibrate).  The\n"
        "samples include ImpactB's rounds during COMMAND's launch, which read as\n"
        "idle: run COMMAND for many intervals.\n"
        "\n"
        "Options:\n"
        "  --model FILE       model file with a calibration (required; updated in place)\n"
        "  --app KEY          app key, 1-%d of A-Z a-z 0-9 . _ + : / @ = - (required)\n"
        "  --tasks-per-node T tasks per node of COMMAND (default 1)\n"
        "  --interval-us US   pause between ImpactB ping-pongs, microseconds (default 20000)\n"
        "  --timeout-s S      longest COMMAND may run, in seconds (default 3600); it is\n"
        "                     stopped after that and nothing is recorded\n"
        "  -h, --help         show this help\n"
        "\n",
        NV_MODEL_KEY_MAX);
    fputs(nv_run_placement_help, out);
    fputs("\n", out);
    fputs(nv_run_options_help, out);
    fprintf(out,
        "\n"
        "Output (JSON on stdout): app, model, runtime_s (COMMAND's wall time, or\n"
        "with --runtime-key the seconds it printed, s), load_nodes (\"\" = beside it),\n"
        "latency {mean_us, sd_us (us), samples}, utilization {rho (0..1),\n"
        "lambda_per_us (packets per us), saturated, source}.\n"
        "\n"
        "Exit status: 0 measured and saved, 1 a run failed or the model could not\n"
        "be read or written (the model file is unchanged), 2 bad usage.\n"
        "\n"
        "Example:\n"
        "  salloc -N 4 netvar impact --model model.json --app lulesh -- ./lulesh -s 30\n"
        "  # network lab (lab/netlab: h1,h2 on leaf s1, h3,h4 on leaf s2): the app on\n"
        "  # h1+h3, ImpactB on h2+h4, so both cross the uplink between the leaves\n"
        "  salloc -N 4 -w h[1-4] --exclusive netvar impact --model model.json --app cg \\\n"
        "      --load-nodes h2,h4 --runtime-key runtime_s \\\n"
        "      -- netvar-proxy-cg --compute sleep\n");
}

static json_object *jd(double d)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%.6g", d);
    return json_object_new_double_s(d, buf);
}

int verb_impact(int argc, char **argv)
{
    static const struct option opts[] = {
        {"model", required_argument, NULL, 'm'},
        {"app", required_argument, NULL, 'a'},
        {"tasks-per-node", required_argument, NULL, 't'},
        {"interval-us", required_argument, NULL, 'i'},
        {"timeout-s", required_argument, NULL, 'T'},
        {"help", no_argument, NULL, 'h'},
        NV_RUN_LONG_OPTIONS,
        NV_RUN_PLACEMENT_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    nv_run_plan plan;
    nv_run_plan_defaults(&plan);
    const char *model_path = NULL, *app = NULL, *keep = NULL;
    long interval_us = 20000, tpn = 1;
    double timeout_s = 3600;
    char err[600] = "";
    int c;
    optind = 0;
    opterr = 0;
    /* '+': stop at the command, whose own options are not ours */
    while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
        int bad = 0;
        switch (c) {
        case 'm': model_path = optarg; break;
        case 'a': app = optarg; break;
        case 't': bad = nv_parse_count("--tasks-per-node", optarg, 1, 1024, &tpn, err, sizeof err); break;
        case 'i': bad = nv_parse_count("--interval-us", optarg, 0, 60000000L, &interval_us, err, sizeof err); break;
        case 'T': bad = nv_parse_seconds("--timeout-s", optarg, &timeout_s, err, sizeof err); break;
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
    plan.app_tasks_per_node = (int)tpn;
    if (!model_path || !app) {
        fprintf(stderr, "%s: --model FILE and --app KEY are required; nothing run\n", VERB);
        return 2;
    }
    if (!nv_model_key_valid(app)) {
        fprintf(stderr, "%s: --app '%.60s': not a valid app key (1-%d of A-Z a-z 0-9 . _ + : / @ "
                        "= -); nothing run\n", VERB, app, NV_MODEL_KEY_MAX);
        return 2;
    }
    if (optind >= argc) {
        fprintf(stderr, "%s: no command given (put it after the options, or after --); "
                        "nothing run\n", VERB);
        return 2;
    }
    const char *const *cmd = (const char *const *)argv + optind;
    size_t ncmd = (size_t)(argc - optind);
    if (nv_run_plan_check(&plan, 2, 1, err, sizeof err)) {
        fprintf(stderr, "%s: %s; nothing run\n", VERB, err);
        return 2;
    }
    nv_model *model = NULL;
    if (nv_run_load_model_if_any(model_path, &model, err, sizeof err) || !model) {
        fprintf(stderr, "%s: %s; nothing run\n", VERB,
                model ? err : (err[0] ? err : "the model file does not exist: run netvar "
                                               "calibrate first"));
        nv_model_free(model);
        return 1;
    }
    const nv_calibration *cal = nv_model_calibration(model);

    nv_run_catch_signals();
    int rc = 1;
    char *text = NULL;
    size_t len = 0;
    double runtime_s = 0;
    nv_impactb_output ib = {0};
    nv_model_builder *b = NULL;
    if (nv_run_work_dir(&plan, keep, "impact", err, sizeof err)) {
        fprintf(stderr, "%s: %s; nothing run\n", VERB, err);
        goto out;
    }
    char ivl[32];
    snprintf(ivl, sizeof ivl, "%ld", interval_us);
    const char *args[] = {"--interval-us", ivl, "--samples"};
    nv_child probe;
    if (nv_probe_start(&probe, &plan, plan.impactb, "impactb", args, 3, err, sizeof err)) {
        fprintf(stderr, "%s: %s; model not changed\n", VERB, err);
        goto out;
    }
    char cerr[600] = "";
    int crc = nv_run_command(&plan, cmd, ncmd, "command", timeout_s, &runtime_s, cerr, sizeof cerr);
    text = nv_probe_finish(&probe, &plan, 1, 0, &len, err, sizeof err);
    if (crc) {
        fprintf(stderr, "%s: %s; model not changed\n", VERB, cerr);
        goto out;
    }
    if (!text) {
        fprintf(stderr, "%s: %s; model not changed\n", VERB, err);
        goto out;
    }
    if (nv_impactb_parse(text, len, &ib, err, sizeof err)) {
        fprintf(stderr, "%s: ImpactB output: %s; model not changed\n", VERB, err);
        goto out;
    }
    nv_latency_summary lat;
    nv_utilization u;
    if (nv_run_app_utilization(cal, ib.samples_us, ib.n_samples, &lat, &u)) {
        fprintf(stderr, "%s: ImpactB took no latency sample while the command ran (%.1f s); run "
                        "the command longer or use a smaller --interval-us; model not changed\n",
                VERB, runtime_s);
        goto out;
    }
    /* keep what the app profile had besides latency and utilization */
    nv_app_input in = {.key = app, .utilization = u.rho, .utilization_source = NV_USRC_LATENCY,
                       .latency = &lat};
    int32_t idx = nv_model_app_index(model, app);
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
    b = nv_builder_from_model(model);
    if (!b || nv_builder_add_app(b, &in)) {
        fprintf(stderr, "%s: %s; model not changed\n", VERB, b ? nv_builder_error(b) : "out of memory");
        goto out;
    }
    if (nv_builder_save(b, model_path, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", VERB, err);
        goto out;
    }
    json_object *o = json_object_new_object(), *jl = json_object_new_object(),
                *ju = json_object_new_object();
    json_object_object_add(o, "app", json_object_new_string(app));
    json_object_object_add(o, "model", json_object_new_string(model_path));
    json_object_object_add(o, "runtime_s", jd(runtime_s));
    json_object_object_add(o, "load_nodes", json_object_new_string(plan.load_nodes));
    json_object_object_add(jl, "mean_us", jd(lat.mean_us));
    json_object_object_add(jl, "sd_us", jd(lat.sd_us));
    json_object_object_add(jl, "samples", json_object_new_int64((int64_t)ib.n_samples));
    json_object_object_add(o, "latency", jl);
    json_object_object_add(ju, "rho", jd(u.rho));
    json_object_object_add(ju, "lambda_per_us", jd(u.lambda_per_us));
    json_object_object_add(ju, "saturated", json_object_new_boolean(u.saturated));
    json_object_object_add(ju, "source", json_object_new_string("latency"));
    json_object_object_add(o, "utilization", ju);
    printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
    rc = 0;
out:
    if (plan.work_dir[0]) {
        nv_run_work_dir_cleanup(&plan, keep != NULL || rc != 0);
        if (rc && !keep)
            fprintf(stderr, "netvar: impact: launch logs kept in %s\n", plan.work_dir);
    }
    nv_builder_free(b);
    nv_impactb_output_free(&ib);
    free(text);
    nv_model_free(model);
    return rc;
}
