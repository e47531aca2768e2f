/* verb_campaign.c - `netvar campaign`: run a command under a sweep of
 * CompressionB configurations and alone, and record in the model file its
 * slowdown under each configuration (the app's compression points p_A(U))
 * and each configuration's utilization measured by ImpactB beside it.  The
 * verb parses the options and prints; lib/runner/campaign.h does the work. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "bottleneck.h"
#include "campaign.h"
#include "campaign_file.h"
#include "child.h"
#include "launch_plan.h"
#include "model.h"
#include "nv_err.h"
#include "nv_json.h"
#include "args.h"
#include "opts.h"
#include "progress.h"
#include "verbs.h"

#define VERB "netvar campaign"

/* --------------------------------------------------------------- help */

static const char help_head[] =
    "Usage: netvar campaign --model FILE --app KEY (--set NAME | --configs B:P:M,...)\n"
    "                       [--repeat N] [--duration-s S] [--ghz G] [--interval-us US]\n"
    "                       [--msg-bytes N] [--tasks-per-node T] [--timeout-s S]\n"
    "                       [--replace-points] [--point fastest|median]\n"
    "                       [--stall-ratio R] [--dry-run]\n"
    "                       [--load-nodes LIST]\n"
    "                       [--runtime-key KEY] [--json | --text] [launch options]\n"
    "                       [--] COMMAND [ARGS...]\n"
    "\n"
    "Measure an application's sensitivity to network load (Queue-theory interference model, sections\n"
    "4.3-4.4).  COMMAND runs alone (the baseline, with ImpactB beside it for the\n"
    "app's own latency) and under each CompressionB configuration (B, P, M):\n"
    "every rank sends M messages of 40 KB to each of P partners on preceding\n"
    "nodes, sleeping B CPU cycles between partners.  Each round of --repeat\n"
    "runs the baseline and then every configuration, so alone and loaded runs\n"
    "alternate.  Then each configuration runs once more for S seconds with\n"
    "ImpactB beside it (and without COMMAND): its latency summary and its\n"
    "utilization U through the inverse Pollaczek-Khinchine formula.\n"
    "netvar launches COMMAND itself (N nodes x T tasks; give the program, not\n"
    "an srun line).  With srun every launch is a step of the surrounding\n"
    "allocation (--overlap, its first N nodes): run netvar in salloc or sbatch.\n"
    "By default the probes run on COMMAND's own nodes, so their load competes\n"
    "at COMMAND's own ports; --load-nodes puts CompressionB and the baseline's\n"
    "ImpactB on other nodes and COMMAND on the rest, so the load crosses the\n"
    "links COMMAND uses, as in Queue-theory interference model (CompressionB on other nodes of the same\n"
    "switch); a configuration's ImpactB then runs on COMMAND's nodes.\n"
    "\n"
    "Recorded in the model file (which must hold a calibration):\n"
    "  training_set  one entry per configuration: B, P, M, U, ImpactB latency,\n"
    "                and the slowdown of KEY under it (other apps' kept);\n"
    "  apps[KEY]     latency and utilization from the baseline's ImpactB, and the\n"
    "                compression points (U, slowdown %, samples = repeats)\n"
    "                added to those it had; the p_A(U) fit is redone (isotonic).\n"
    "The slowdown is (T_loaded - T_alone) / T_alone x 100 %, T being COMMAND's\n"
    "wall time as launched, in seconds (or with --runtime-key the runtime it\n"
    "prints itself), and by default the fastest of the rounds, alone and under\n"
    "the configuration (--point).  Small noisy runs can give negative\n"
    "slowdowns; the fit keeps the curve non-decreasing.\n"
    "\n";

static const char help_tail[] =
    "\n"
    "Output (JSON on stdout; --text prints the same as a table): app, model,\n"
    "load_nodes (\"\" = on COMMAND's nodes), runtime_source (\"wall\" or the\n"
    "--runtime-key), baseline {runtime_s [s], stalled_rounds [1-based rounds\n"
    "left out], median_s, point_s}, point_rule (\"fastest\" or \"median\"),\n"
    "app_latency {mean_us, sd_us (us), samples},\n"
    "app_utilization (0..1), configs [{id, bubble_cycles, sleep_us (us),\n"
    "partners, messages, runtime_s [s], stalled_rounds, median_s, point_s [s],\n"
    "slowdown_pct\n"
    "(%), injected_bytes_per_s (bytes/s per node), utilization (0..1),\n"
    "latency_mean_us, latency_sd_us (us), latency_samples}], fit [{utilization,\n"
    "slowdown_pct}], route (\"latency\" or \"counters\": the model's U axis).  With\n"
    "--bottleneck also: app_utilization_counters (0..1), app_utilization_profile\n"
    "(octiles, 0..1), app_counter_steps, route_agreement (Pearson r of the two\n"
    "routes' U over the configurations), bottleneck_read_errors, and per\n"
    "configuration utilization_counters (0..1), counter_steps, port_utilization\n"
    "(each named port's U, 0..1) and queue_wait_us (us; null without a gauge);\n"
    "ports (the names), app_port_utilization, wait_gauge (\"queue_us\" for a\n"
    "qdisc, \"stall_per_word\" for InfiniBand, \"paused_cycles_per_packet\" for a\n"
    "Slingshot NIC, \"stall_per_flit\" for an Aries tile, \"none\" for netdev); where the\n"
    "ports have a queue gauge, app_queue_wait_us and app_queue_wait_profile_us\n"
    "(octiles, us), and app_joint_windows {window_s, measured, kept}: the\n"
    "command's U and gauge averaged over each half second of its timed runs,\n"
    "which the model keeps (every k-th beyond 512) with each configuration's\n"
    "queue wait, so that the nearest configurations answer beside this app\n"
    "(netvar predict --help).  On InfiniBand the gauge is port_xmit_wait ticks per 4-byte\n"
    "word sent, and the keys are stall_per_word, app_stall_per_word and\n"
    "app_stall_profile; on a Slingshot NIC it is the cycles the transmit path was\n"
    "paused per packet sent (paused_cycles_per_packet, app_paused_cycles_per_packet,\n"
    "app_stall_profile); on an Aries network tile it is the row-bus stall flit\n"
    "times per flit the tile took in, the stall-to-flit ratio (stall_per_flit,\n"
    "app_stall_per_flit, app_stall_profile).  With --dry-run: the configurations [{id, bubble_cycles,\n"
    "sleep_us, partners, messages}].\n"
    "\n"
    "Exit status: 0 measured and saved, 1 a run failed or the model could not be\n"
    "read or written (the model file is unchanged), 2 bad usage (e.g. P larger\n"
    "than nodes-1, a duration of 0, no command).\n"
    "\n"
    "Example:\n"
    "  salloc -N 18 netvar campaign --model model.json --app lulesh --set set1 \\\n"
    "      --repeat 3 -- ./lulesh -s 30\n"
    "  salloc -N 4 netvar campaign --model model.json --app bsp \\\n"
    "      --configs 2.5e6:1:1,2.5e4:3:10 -- netvar-proxy-bsp --iters 400\n"
    "  # network lab (lab/netlab: h1,h2 on leaf s1, h3,h4 on leaf s2): the app on\n"
    "  # h1+h3, CompressionB (and ImpactB beside the app) on h2+h4, so the load\n"
    "  # and the app share the uplink between the leaves, not the app's ports\n"
    "  salloc -N 4 -w h[1-4] --exclusive netvar campaign --model model.json \\\n"
    "      --app cg --configs 2.6e7:1:1,250:1:10 --ghz 2.6 --load-nodes h2,h4 \\\n"
    "      --runtime-key runtime_s -- netvar-proxy-cg --compute sleep\n";

static void print_json(json_object *o)
{
    printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
                                                         JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
}

static void print_dry_run(const nv_campaign_config *cfg, size_t ncfg, double ghz, int text)
{
    if (text) {
        printf("%zu configuration(s) at %.6g GHz:\n", ncfg, ghz);
        for (size_t i = 0; i < ncfg; i++)
            printf("  %-18s B %.6g cycles (sleep %.6g us), P %d, M %d\n", cfg[i].id,
                   cfg[i].bubble_cycles, nv_campaign_sleep_us(cfg[i].bubble_cycles, ghz),
                   cfg[i].partners, cfg[i].messages);
        return;
    }
    json_object *a = json_object_new_array();
    for (size_t i = 0; i < ncfg; i++)
        json_object_array_add(a, nv_campaign_config_to_json(&cfg[i], ghz));
    printf("%s\n", json_object_to_json_string_ext(a, JSON_C_TO_STRING_PRETTY));
    json_object_put(a);
}

/* one line per stalled run, whichever output was chosen */
static void warn_stalls(const char *app, const char *what, const double *v,
                        const unsigned char *stalled, int n, double ratio)
{
    size_t fk = nv_campaign_fastest_index(v, (size_t)n); /* read only when a round stalled */
    for (int k = 0; k < n; k++)
        if (stalled[k])
            fprintf(stderr,
                    "netvar: campaign: %s %s: round %d took %.4g s, %.3g times round %d's "
                    "%.4g s (over --stall-ratio %g): left out of the median as a "
                    "stall (kept in runtime_s)\n",
                    app, what, k + 1, v[k], v[k] / v[fk], (int)fk + 1, v[fk], ratio);
}

static void print_result_text(const nv_campaign_opts *co, const nv_run_plan *plan,
                              const nv_campaign_result *r)
{
    printf("app %s saved in %s (%zu configuration(s), %d round(s); load %s; runtime %s)\n", co->app,
           co->model_path, co->ncfg, co->repeat,
           plan->load_nodes[0] ? plan->load_nodes : "on the command's nodes",
           plan->runtime_key ? plan->runtime_key : "wall time");
    printf("baseline: %s %.6g s; ImpactB beside it: mean %.6g us, sd %.6g us, %zu samples; "
           "utilization %.6g\n",
           nv_campaign_point_name(co->point), r->baseline_point_s, r->app_lat.mean_us,
           r->app_lat.sd_us, r->app_samples, r->app_u.rho);
    printf("  %-18s %10s %12s %11s %14s %12s %11s\n", "configuration",
           co->point == NV_CAMPAIGN_POINT_MEDIAN ? "median s" : "fastest s", "slowdown %",
           "utilization", "injected B/s", "latency us", "sd us");
    for (size_t i = 0; i < co->ncfg; i++) {
        const nv_campaign_config_result *c = &r->configs[i];
        printf("  %-18s %10.4g %12.4g %11.4g %14.4g %12.4g %11.4g\n", co->cfg[i].id, c->point_s,
               c->slowdown_pct, c->u.rho, c->injected_bytes_per_s, c->lat.mean_us, c->lat.sd_us);
    }
    if (r->n_app_steps) {
        printf("counters route (U at the bottleneck, the model's axis): app %.4g over %zu steps "
               "(profile",
               r->app_u_counters, r->n_app_steps);
        for (size_t k = 0; k < r->n_app_profile; k++)
            printf(" %.3g", r->app_profile[k]);
        printf(");");
        for (size_t i = 0; i < co->ncfg; i++)
            printf(" %s %.4g", co->cfg[i].id, r->configs[i].u_counters);
        printf("\nagreement of the two routes over the configurations: Pearson r %.3g\n",
               r->route_agreement);
        if (co->bottleneck->nports > 1) {
            printf("each port's U (app alone; configurations):");
            for (int k = 0; k < co->bottleneck->nports; k++) {
                printf(" %s %.3g", co->bottleneck->port[k], r->app_port_u[k]);
                for (size_t i = 0; i < co->ncfg; i++)
                    printf("%s%.3g", i ? "/" : " (", r->configs[i].port_u[k]);
                printf(")");
            }
            printf("\n");
        }
        if (r->n_app_wait) {
            if (r->gauge == NV_BN_GAUGE_STALL)
                printf("port_xmit_wait at the bottleneck (the queueing mechanism's axis, ticks "
                       "per 4-byte word sent): app mean %.4g (profile",
                       r->app_wait);
            else if (r->gauge == NV_BN_GAUGE_PAUSE)
                printf("transmit pauses at the bottleneck (the queueing mechanism's axis, paused "
                       "cycles per packet sent): app mean %.4g (profile",
                       r->app_wait);
            else if (r->gauge == NV_BN_GAUGE_STALL_FLIT)
                printf("row-bus stalls at the bottleneck tile (the queueing mechanism's axis, "
                       "stall flit times per flit): app mean %.4g (profile",
                       r->app_wait);
            else
                printf("queue wait at the bottleneck (the queueing mechanism's axis, us): app "
                       "mean %.4g (profile",
                       r->app_wait);
            for (size_t k = 0; k < r->n_app_wait_profile; k++)
                printf(" %.3g", r->app_wait_profile[k]);
            printf(");");
            for (size_t i = 0; i < co->ncfg; i++)
                printf(" %s %.4g", co->cfg[i].id, r->configs[i].wait);
            printf("\n");
        }
    }
    printf("fit p_A(U):");
    for (size_t k = 0; k < r->n_fit; k++)
        printf("%s U %.4g -> %.4g %%", k ? "," : "", r->fit[k].utilization, r->fit[k].slowdown_pct);
    printf("%s\n", r->n_fit ? "" : " none");
}

static nv_progress progress; /* on a terminal only (progress.h) */

static void show_progress(void *ctx, size_t done, size_t total)
{
    (void)ctx;
    progress.total = total;
    nv_progress_update(&progress, done, 1);
}

int verb_campaign(int argc, char **argv)
{
    static nv_campaign_config cfg[NV_CAMPAIGN_MAX_CONFIGS];
    nv_run_plan plan;
    nv_run_plan_defaults(&plan);
    plan.notice_ctx = "campaign";
    nv_campaign_opts co;
    nv_campaign_opts_defaults(&co);
    const char *set = NULL, *configs = NULL, *bn_spec = NULL;
    static nv_bn_spec bn;
    double bn_rate = 0;
    int dry_run = 0, text = 0;
    const nv_opt opts[] = {
        NV_CLI_OPT_MODEL_APP(&co.model_path, &co.app),
        {"set", "NAME", NV_CLI_STR, &set,
         .help = "set1 .. set12 (Queue-theory interference model, Table 2: B from 2.5e9 down to "
                 "2.5e2 cycles, P in 1..14,16,17, M in 1,10) or paper40 (section 4.3: B "
                 "2.5e4..2.5e7, P 1,4,7,14,17, M 1,10); configurations whose P exceeds nodes-1 "
                 "are skipped"},
        {"configs", "LIST", NV_CLI_STR, &configs,
         .help = "custom set, B:P:M[,B:P:M...]: B sleep in CPU cycles, P partners (1..nodes-1; "
                 "nodes of --load-nodes when given), M messages per partner (1..1000)"},
        {"repeat", "N", NV_CLI_INT, &co.repeat, 1, NV_CAMPAIGN_MAX_REPEAT,
         .help = "runs of COMMAND per configuration and alone (1.." NV_STR(
             NV_CAMPAIGN_MAX_REPEAT) ", default 1)"},
        {"point", "RULE", NV_CLI_CHOICE, &co.point, .choices = "fastest|median",
         .help = "which of a configuration's rounds (and the baseline's) its slowdown is "
                 "computed from: fastest (the default) or median (of the rounds that are not "
                 "stalls, the rule before 2026-11-29).  What the load does not cause (a "
                 "retransmission timeout, a preempted rank) only adds time: on the network lab, "
                 "cg under one configuration read +294 to +463 % by the median over four runs "
                 "and +266 to +304 % by the fastest round, beside the pair it stands for at +274 "
                 "to +304 %"},
        {"stall-ratio", "R", NV_CLI_DOUBLE, &co.stall_ratio, 1.5, 1000, .zero_ok = 1,
         .bad = "must be 0 (keep every run) or a ratio from 1.5 to 1000",
         .help = "a run that took more than R times the fastest run of the same configuration "
                 "(or of the baseline) is a stall and is left out of median_s (the point with "
                 "--point median) and of the point's weight, with a warning on stderr and its "
                 "round in stalled_rounds (1.5..1000, default 3; 0 keeps every run).  On the "
                 "network lab 3 of 744 campaign runs stalled: CG took about 211 s under a lossy "
                 "load, against 25 to 41 s in the other round; with two rounds the median is "
                 "their mean"},
        {"duration-s", "S", NV_CLI_SECONDS, &co.duration_s,
         .help = "ImpactB measurement per configuration, seconds (default 5)"},
        {"ghz", "G", NV_CLI_DOUBLE, &co.ghz, 0.01, 100,
         .bad = "must be a clock rate from 0.01 to 100 GHz",
         .help = "clock rate turning B cycles into sleep time, GHz (0.01..100, default 2.6, the "
                 "paper's Cab): sleep_us = B / (G x 1000)"},
        {"msg-bytes", "N", NV_CLI_LONG, &co.msg_bytes, 1, 64L << 20,
         .help = "CompressionB message size in bytes (1..67108864, default 40960)"},
        NV_CLI_OPT_INTERVAL_US(&co.interval_us, ""),
        NV_CLI_OPT_TASKS_PER_NODE(&plan.app_tasks_per_node),
        {"timeout-s", "S", NV_CLI_SECONDS, &co.timeout_s,
         .help = "longest one run of COMMAND may take, seconds (default 3600)"},
        {"replace-points", NULL, NV_CLI_FLAG, &co.replace_points, .ival = 1,
         .help = "drop the app's earlier compression points instead of adding to them"},
        {"bottleneck", "KIND:PORT[,PORT...]", NV_CLI_STR, &bn_spec,
         .help = "the counters route: read U at the shared port itself (bytes sent per second "
                 "/ the port's rate, the busier port and direction) every "
                 "--bottleneck-interval-ms while the baseline runs (inside its timed window) "
                 "and while ImpactB measures each configuration.  KIND qdisc (a Linux qdisc: the "
                 "network lab's uplink ends; rate = its shaper's), netdev (sysfs statistics; "
                 "rate = speed), infiniband (DEV/PORT; rate = the port's rate), cxi (an HPE "
                 "Slingshot NIC, cxi0; rate = its Ethernet function's speed) or aries (ROW_COL: "
                 "a network tile of the Aries router this node reads, through PAPI's Aries "
                 "component; incoming flits over the eight virtual channels, so "
                 "--bottleneck-rate in flits/s).  The model's U axis is then the counters': the "
                 "app's U, its utilization profile (octiles) and every configuration's U; the "
                 "latency route is kept and both are printed"},
        {"bottleneck-rate", "B", NV_CLI_DOUBLE, &bn_rate, 1e3, 1e13,
         .bad = "must be a port rate from 1e3 to 1e13 bytes/s (flits/s for aries)",
         .help = "the port's rate in bytes/s (1e3..1e13) when it cannot be read (flits/s for "
                 "aries, which has no rate to read)"},
        {"bottleneck-interval-ms", "MS", NV_CLI_DOUBLE, &co.bottleneck_interval_ms, 10, 10000,
         .bad = "must be 10 to 10000 ms",
         .help = "sampling step (10..10000, default 100); a qdisc's queue is a gauge, read at "
                 "instants jittered uniformly in [MS/2, 3 MS/2) so that a load whose period is "
                 "near MS is not read at one phase"},
        {"dry-run", NULL, NV_CLI_FLAG, &dry_run, .ival = 1,
         .help = "print the configurations that would run and exit"},
        NV_OPT_JSON_TEXT(&text),
    };
    nv_cli_launch launch = {&plan, &co.keep_dir};
    int parsed = nv_cli_workflow_parse(VERB, help_head, help_tail, opts,
                                       sizeof opts / sizeof opts[0], &launch, 1, argc, argv);
    if (parsed)
        return nv_opts_exit(parsed);
    char err[700] = "";
    if (!!set == !!configs) {
        fprintf(stderr, "%s: give exactly one of --set NAME and --configs B:P:M,...; nothing run\n",
                VERB);
        return 2;
    }
    if (bn_spec) {
        if (nv_bn_parse(bn_spec, &bn, err, sizeof err)) {
            fprintf(stderr, "%s: %s; nothing run\n", VERB, err);
            return 2;
        }
        bn.rate_bytes_per_s = bn_rate;
        co.bottleneck = &bn;
    } else if (bn_rate > 0 || co.bottleneck_interval_ms > 0) {
        fprintf(stderr,
                "%s: --bottleneck-rate and --bottleneck-interval-ms need --bottleneck; "
                "nothing run\n",
                VERB);
        return 2;
    }
    size_t ncfg = 0;
    if (set ? nv_campaign_named_set(set, cfg, NV_CAMPAIGN_MAX_CONFIGS, &ncfg, err, sizeof err)
            : nv_campaign_parse_configs(configs, cfg, NV_CAMPAIGN_MAX_CONFIGS, &ncfg, err,
                                        sizeof err)) {
        fprintf(stderr, "%s: %s; nothing run\n", VERB, err);
        return 2;
    }
    if (!dry_run && (!co.model_path || !co.app)) {
        fprintf(stderr, "%s: --model FILE and --app KEY are required; nothing run\n", VERB);
        return 2;
    }
    if (co.app && !nv_model_key_valid(co.app)) {
        fprintf(stderr,
                "%s: --app '%.60s': not a valid app key (1-%d of A-Z a-z 0-9 . _ + : / @ "
                "= -); nothing run\n",
                VERB, co.app, NV_MODEL_KEY_MAX);
        return 2;
    }
    if (!dry_run && optind >= argc) {
        fprintf(stderr,
                "%s: no command given (put it after the options, or after --); "
                "nothing run\n",
                VERB);
        return 2;
    }
    co.cmd = (const char *const *)argv + optind;
    co.ncmd = (size_t)(argc - optind);
    if (nv_run_plan_check(&plan, 2, !dry_run, err, sizeof err)) {
        fprintf(stderr, "%s: %s; nothing run\n", VERB, err);
        return 2;
    }
    /* CompressionB's partners are among the load's nodes */
    int nodes = nv_run_side_nodes(&plan, NV_SIDE_LOAD);
    if (configs) {
        if (nv_campaign_check_fit(cfg, ncfg, nodes, plan.n_load_nodes > 0, err, sizeof err)) {
            fprintf(stderr, "%s: %s; nothing run\n", VERB, err);
            return 2;
        }
    } else {
        size_t all = ncfg;
        ncfg = nv_campaign_fit_nodes(cfg, ncfg, nodes);
        if (!ncfg) {
            fprintf(stderr,
                    "%s: --set %s: every configuration needs more than %d nodes; nothing "
                    "run\n",
                    VERB, set, nodes);
            return 2;
        }
        if (ncfg < all)
            fprintf(stderr,
                    "netvar: campaign: --set %s: %zu of %zu configurations need more than "
                    "%d nodes (P > %d) and are skipped\n",
                    set, all - ncfg, all, nodes, nodes - 1);
    }
    if (dry_run) {
        print_dry_run(cfg, ncfg, co.ghz, text);
        return 0;
    }
    co.cfg = cfg;
    co.ncfg = ncfg;

    nv_run_catch_signals();
    nv_campaign_result r;
    /* an hour of runs: a progress line on a terminal (stderr), never in a log */
    nv_progress_start(&progress, stderr, 1, "campaign: runs done", 0);
    if (progress.out) {
        co.progress = show_progress;
        nv_progress_update(&progress, 0, 1);
    }
    int rc = nv_campaign_run(&plan, &co, &r, err, sizeof err);
    nv_progress_end(&progress);
    if (!rc) {
        warn_stalls(co.app, "alone", r.baseline_s, r.baseline_stalled, co.repeat, co.stall_ratio);
        for (size_t i = 0; i < ncfg; i++) {
            char what[80];
            snprintf(what, sizeof what, "under %s", cfg[i].id);
            warn_stalls(co.app, what, r.configs[i].runtime_s, r.configs[i].stalled, co.repeat,
                        co.stall_ratio);
        }
    }
    if (rc) {
        fprintf(stderr, "%s: %s\n", VERB, err);
        if (r.logs_kept)
            fprintf(stderr, "netvar: campaign: launch logs kept in %s\n", plan.work_dir);
    } else if (text) {
        print_result_text(&co, &plan, &r);
    } else {
        print_json(nv_campaign_result_to_json(&co, &plan, &r));
    }
    nv_campaign_result_free(&r);
    return rc ? 1 : 0;
}
