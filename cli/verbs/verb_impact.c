/* verb_impact.c - `netvar impact`: run ImpactB beside a command on the same
 * nodes and record the command's latency summary and switch utilization in
 * its app profile of the model file.  The verb parses the options and
 * prints; lib/runner/impact.h does the work. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "child.h"
#include "impact.h"
#include "launch_plan.h"
#include "model.h"
#include "nv_json.h"
#include "args.h"
#include "opts.h"
#include "verbs.h"

#define VERB "netvar impact"

static const char help_head[] =
    "Usage: netvar impact --model FILE --app KEY [--interval-us US] [--timeout-s S]\n"
    "                     [--tasks-per-node T] [--load-nodes LIST]\n"
    "                     [--runtime-key KEY] [--json | --text] [launch options]\n"
    "                     [--] COMMAND [ARGS...]\n"
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
    "The app profile KEY in the model gets (Queue-theory interference model, section 4.2):\n"
    "  latency      mean, standard deviation and histogram of ImpactB's one-way\n"
    "               latency beside the app, in microseconds;\n"
    "  utilization  rho of the app from that mean latency through the inverse\n"
    "               Pollaczek-Khinchine formula and the model's calibration\n"
    "               (source \"latency\").\n"
    "The app's compression curve and scaling history are kept, as is the rest\n"
    "of the model.  The model must hold a calibration (netvar calibrate).  The\n"
    "samples include ImpactB's rounds during COMMAND's launch, which read as\n"
    "idle: run COMMAND for many intervals.\n"
    "\n";

static const char help_tail[] =
    "\n"
    "Output (JSON on stdout; --text prints the same as a summary): app, model,\n"
    "runtime_s (COMMAND's wall time, or with --runtime-key the seconds it\n"
    "printed, s), load_nodes (\"\" = beside it), latency {mean_us, sd_us (us),\n"
    "samples}, utilization {rho (0..1), lambda_per_us (packets per us),\n"
    "saturated, source}.\n"
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
    "      -- netvar-proxy-cg --compute sleep\n";

static void print_json(const char *app, const char *model_path, const nv_run_plan *plan,
                       const nv_impact_result *r)
{
    json_object *o = json_object_new_object(), *jl = json_object_new_object(),
                *ju = json_object_new_object();
    json_object_object_add(o, "app", json_object_new_string(app));
    json_object_object_add(o, "model", json_object_new_string(model_path));
    json_object_object_add(o, "runtime_s", nv_json_new_num_g(r->runtime_s, 6));
    json_object_object_add(o, "load_nodes", json_object_new_string(plan->load_nodes));
    json_object_object_add(jl, "mean_us", nv_json_new_num_g(r->lat.mean_us, 6));
    json_object_object_add(jl, "sd_us", nv_json_new_num_g(r->lat.sd_us, 6));
    json_object_object_add(jl, "samples", json_object_new_int64((int64_t)r->samples));
    json_object_object_add(o, "latency", jl);
    json_object_object_add(ju, "rho", nv_json_new_num_g(r->u.rho, 6));
    json_object_object_add(ju, "lambda_per_us", nv_json_new_num_g(r->u.lambda_per_us, 6));
    json_object_object_add(ju, "saturated", json_object_new_boolean(r->u.saturated));
    json_object_object_add(ju, "source", json_object_new_string("latency"));
    json_object_object_add(o, "utilization", ju);
    printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
                                                         JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
}

static void print_text(const char *app, const char *model_path, const nv_run_plan *plan,
                       const nv_impact_result *r)
{
    printf("app %s saved in %s\n", app, model_path);
    printf("  runtime       %.6g s (%s)\n", r->runtime_s,
           plan->runtime_key ? plan->runtime_key : "wall time");
    printf("  ImpactB       %s\n", plan->load_nodes[0] ? plan->load_nodes : "beside the command");
    printf("  latency       mean %.6g us, sd %.6g us, %zu samples\n", r->lat.mean_us, r->lat.sd_us,
           r->samples);
    printf("  utilization   rho %.6g (lambda %.6g packets per us%s, from the latency)\n", r->u.rho,
           r->u.lambda_per_us, r->u.saturated ? ", saturated" : "");
}

int verb_impact(int argc, char **argv)
{
    nv_run_plan plan;
    nv_run_plan_defaults(&plan);
    plan.notice_ctx = "impact";
    nv_impact_opts io;
    nv_impact_opts_defaults(&io);
    int text = 0;
    const nv_opt opts[] = {
        NV_CLI_OPT_MODEL_APP(&io.model_path, &io.app),
        NV_CLI_OPT_TASKS_PER_NODE(&plan.app_tasks_per_node),
        NV_CLI_OPT_INTERVAL_US(&io.interval_us, ""),
        {"timeout-s", "S", NV_CLI_SECONDS, &io.timeout_s,
         .help = "longest COMMAND may run, in seconds (default 3600); it is stopped after that "
                 "and nothing is recorded"},
        NV_OPT_JSON_TEXT(&text),
    };
    nv_cli_launch launch = {&plan, &io.keep_dir};
    int parsed = nv_cli_workflow_parse(VERB, help_head, help_tail, opts,
                                       sizeof opts / sizeof opts[0], &launch, 1, argc, argv);
    if (parsed)
        return nv_opts_exit(parsed);
    char err[600] = "";
    if (!io.model_path || !io.app) {
        fprintf(stderr, "%s: --model FILE and --app KEY are required; nothing run\n", VERB);
        return 2;
    }
    if (!nv_model_key_valid(io.app)) {
        fprintf(stderr,
                "%s: --app '%.60s': not a valid app key (1-%d of A-Z a-z 0-9 . _ + : / @ "
                "= -); nothing run\n",
                VERB, io.app, NV_MODEL_KEY_MAX);
        return 2;
    }
    if (optind >= argc) {
        fprintf(stderr,
                "%s: no command given (put it after the options, or after --); "
                "nothing run\n",
                VERB);
        return 2;
    }
    io.cmd = (const char *const *)argv + optind;
    io.ncmd = (size_t)(argc - optind);
    if (nv_run_plan_check(&plan, 2, 1, err, sizeof err)) {
        fprintf(stderr, "%s: %s; nothing run\n", VERB, err);
        return 2;
    }

    nv_run_catch_signals();
    nv_impact_result r;
    if (nv_impact_run(&plan, &io, &r, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", VERB, err);
        if (r.logs_kept)
            fprintf(stderr, "netvar: impact: launch logs kept in %s\n", plan.work_dir);
        return 1;
    }
    if (text)
        print_text(io.app, io.model_path, &plan, &r);
    else
        print_json(io.app, io.model_path, &plan, &r);
    return 0;
}
