/* main.c - the netvar command: dispatches to one verb per file. */
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "args.h"
#include "opts.h"
#include "verbs.h"

#ifndef NETVAR_VERSION
#define NETVAR_VERSION "unknown"
#endif

/* keep sorted by name */
static const struct nv_verb verbs[] = {
    {"alloc", verb_alloc, "communication-time trees for node-count advice: sweep, train, advise"},
    {"calibrate", verb_calibrate, "measure the idle network's service rate into a model file"},
    {"campaign", verb_campaign, "slowdown of a command under a CompressionB sweep into the model"},
    {"collect", verb_collect, "merge a job's node records into one job record (JSON)"},
    {"config-check", verb_config_check, "validate netvar.conf as the plugins do at load"},
    {"counters", verb_counters, "per-port network counter deltas over an interval (JSON)"},
    {"diagnose", verb_diagnose, "congestion diagnosis of a job: pattern, mapping or background"},
    {"estimate", verb_estimate, "single-run interference estimate from a segment profile"},
    {"evaluate", verb_evaluate, "error of each predictor against measured pair slowdowns"},
    {"holdout", verb_holdout, "predict measured pairs with runs held out of the table (JSON)"},
    {"export", verb_export, "Prometheus metrics for node_exporter's textfile collector"},
    {"impact", verb_impact, "ImpactB beside a command: its latency and utilization into the model"},
    {"labmodel", verb_labmodel, "a network-lab dataset's model variants, through the builder"},
    {"predict", verb_predict, "predicted slowdown of an app beside neighbours (JSON)"},
    {"prune", verb_prune, "remove the records of jobs that ended more than N days ago"},
    {"replay", verb_replay,
     "a job trace on a simulated fat-tree: what each placement policy costs and buys"},
    {"report", verb_report, "what netvar measured and concluded: a job, an app, the cluster"},
    {"train", verb_train, "learn a model file from job records and campaigns"},
    {"utilization", verb_utilization, "switch utilization from probe latency, inverse P-K (JSON)"},
    {"variability", verb_variability, "variability estimate from router counters: train, estimate"},
    {"version", verb_version, "print the netvar version"},
};

static void usage(FILE *out)
{
    fprintf(out, "Usage: netvar VERB [OPTIONS...]\n"
                 "       netvar VERB --help\n\n"
                 "netvar measures network interference between Slurm jobs and\n"
                 "predicts it before placement.\n\nVerbs:\n");
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        fprintf(out, "  %-13s %s\n", verbs[i].name, verbs[i].summary);
    fprintf(out, "\nExit status: 0 success, 1 failure, 2 bad usage.\n");
}

int verb_version(int argc, char **argv)
{
    int json = 0;
    const nv_opt opts[] = {
        {"json", NULL, NV_CLI_FLAG, &json, .ival = 1, .help = "{\"version\": \"...\"} instead"},
    };
    const nv_opt_spec spec = {"netvar version",
                              NULL,
                              "Usage: netvar version [--json]\n\nPrint the netvar version.\n\n",
                              NULL,
                              0,
                              {{"Options:", "version", opts, 1}}};
    int parsed = nv_opts_parse(&spec, argc, argv);
    if (parsed)
        return nv_opts_exit(parsed);
    if (optind < argc) {
        fprintf(stderr, "netvar version: unexpected argument '%.60s'; see --help\n", argv[optind]);
        return 2;
    }
    if (json) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "version", json_object_new_string(NETVAR_VERSION));
        nv_cli_print_json(o);
        json_object_put(o);
    } else
        printf("netvar %s\n", NETVAR_VERSION);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version"))
        return verb_version(1, argv + 1);
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        if (!strcmp(argv[1], verbs[i].name))
            return verbs[i].run(argc - 1, argv + 1);
    fprintf(stderr, "netvar: unknown verb '%s'; run 'netvar --help' for the list\n", argv[1]);
    return 2;
}
