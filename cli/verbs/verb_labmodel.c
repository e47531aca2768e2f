/* verb_labmodel.c - `netvar labmodel`: the model variants an evaluation
 * scores, built from a network-lab dataset through the model builder
 * (labmodel.h), so the scorer edits no model file itself. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "ctr_netlab.h"
#include "fabric.h"
#include "json_file.h"
#include "labmodel.h"
#include "model_builder.h"
#include "nv_err.h"
#include "nv_json.h"
#include "opts.h"
#include "train_history.h"
#include "verbs.h"

/* the help around the options table: head, then the options, then tail
 * (the constants filled in once) */
static char help_head[6144], help_tail[512];

static void make_help(void)
{
    snprintf(help_head, sizeof help_head,
             "Usage: netvar labmodel --dataset DIR --variant counters|wait|nearest|latency\n"
             "                       --out FILE [--model FILE] [--wait-window-s S]\n"
             "                       [--campaign-point as-written|fastest|median]\n"
             "                       [--stall-ratio R] [--alone-stall-ratio R]\n"
             "                       [--json-summary FILE] [--no-campaigns --fabric FILE]\n"
             "       netvar labmodel --dataset DIR --json-summary FILE [options]\n"
             "\n"
             "Build one of the model variants an evaluation scores from a network-lab\n"
             "dataset (what eval/netlab_eval.sh measured), through the model builder:\n"
             "the counters the lab sampler wrote (netvar-netlab-counters files) are read\n"
             "at the lab's shared uplink, and what they measure replaces what the base\n"
             "model (the campaign's, on the latency route) holds.\n"
             "\n"
             "Read from DIR:\n"
             "  dataset.json                 its apps and CompressionB configurations\n"
             "                               (\"B:P:M\")\n"
             "  runs.txt                     'kind app with rep runtime_s' lines; the alone\n"
             "                               runs name the apps' counter files and runtimes\n"
             "  cb_B:P:M.counters.json       a configuration alone, read over its run less\n"
             "                               %g s at each end\n"
             "  alone_APP_REP.counters.json  an app alone, read over the runtime_s seconds\n"
             "                               that end at its last busy step (U above %g)\n"
             "A counter file that is absent is skipped; one that is there must read.\n"
             "\n"
             "What a counter file measures, per pass of the sampler over the uplink's\n"
             "ends: U, the busier end's bytes sent per second over its shaper rate, as\n"
             "offered load (times the run's (sent + dropped) / sent, at most 1); W, the\n"
             "longer queue wait of the ends (backlog bytes over the rate, us).  A pass\n"
             "closer than 0.45 interval to the pass kept before it (the sampler's final\n"
             "read) is left out.  Per configuration: its mean U, its mean W, and the\n"
             "means of the passes that read both (joint).  Per app, over all its alone\n"
             "runs: the octiles of U (its utilization is their mean), of W (of the means\n"
             "of consecutive S-second windows, with --wait-window-s above the sampler's\n"
             "0.1 s) and its joint windows: the mean U and W of each %g s of joint\n"
             "passes holding at least two.\n"
             "\n"
             "Variants (what is not named stays as the base model has it):\n"
             "  counters  each configuration's U is its counter U (matched by B, P and M);\n"
             "            each app's campaign slowdowns are placed on those U and fitted\n"
             "            again (isotonic), and its utilization profile and U are its\n"
             "            alone runs'; bottleneck: route counters (latency when no\n"
             "            configuration has a counter U), idle U 0, shrink 2 samples\n"
             "  wait      counters, and the queueing mechanism: each configuration's\n"
             "            queue_wait_us is its W, each app's slowdowns are fitted against\n"
             "            the W, and its own wait profile is its alone runs'\n"
             "  nearest   wait, with each configuration at its joint (U, W) and each app's\n"
             "            joint windows (at most %d, every k-th): what netvar's\n"
             "            nearest-configurations mechanism reads; needs every\n"
             "            configuration's counter file\n"
             "  latency   the base model as it is (the latency route), with the campaign\n"
             "            points --campaign-point makes\n"
             "\n"
             "Campaign points: with --campaign-point fastest or median, every app's\n"
             "training-set slowdowns are made again from its campaign's rounds\n"
             "(DIR/campaign_APP.json, what netvar campaign --json printed) by netvar\n"
             "campaign's own rule (--point, --stall-ratio) before the variant is built;\n"
             "an app without a campaign file keeps the base model's, with a line on\n"
             "stderr.  The apps' curves stay as the base has them in the latency\n"
             "variant; the others fit theirs again from these slowdowns.\n"
             "\n"
             "Apps without their campaigns (--no-campaigns --fabric FILE, the counters,\n"
             "wait and nearest variants): every app's campaign slowdowns and curves are\n"
             "left out, and in their place go its signature, from its one profiled alone\n"
             "run, and the fabric's response FILE (netvar calibrate --fabric --out); the\n"
             "model then answers each app by the profile route (source model:profile),\n"
             "beside neighbours read from their alone runs as before.  The profiled runs\n"
             "are DIR/profiled.txt, 'app runtime_s' lines, each app's profile in\n"
             "DIR/profile_APP/ (what the segment profiler wrote), summed by netvar\n"
             "train's signature rule.  An app with no usable profile is left with no\n"
             "curve (one line on stderr naming it): its answers fail.\n"
             "\n"
             "Alone baselines (--json-summary): each app's is the median of its alone\n"
             "runs in runs.txt that are not over --alone-stall-ratio times its fastest\n"
             "alone run (the stall rule of netvar campaign's medians).  Without\n"
             "--variant and --out only the summary is written (variant null; the\n"
             "model is read only for --campaign-point, else model null).\n"
             "\n",
             NV_LABMODEL_TRIM_S, NV_NETLAB_BUSY_U, NV_LABMODEL_JOINT_WINDOW_S, NV_JOINT_MAX);
    snprintf(help_tail, sizeof help_tail, "%s",
             "\n"
             "Exit status: 0 written, 1 a file missing, unreadable or malformed (one line\n"
             "naming it; nothing written), or the nearest variant without every\n"
             "configuration's counters, 2 bad usage.\n"
             "\n"
             "Example:\n"
             "  netvar labmodel --dataset eval/out --variant wait --out wait.json \\\n"
             "      --json-summary measured.json\n");
}

static json_object *num_array(const double *v, size_t n)
{
    return nv_json_new_num_array(v, n);
}

/* each app's alone baseline and the runs it leaves out */
static json_object *alone_json(const nv_labmodel *lm, double ratio)
{
    json_object *arr = json_object_new_array();
    for (size_t i = 0; i < lm->n_apps; i++) {
        const nv_labmodel_app *a = &lm->apps[i];
        json_object *x = json_object_new_object(), *left = json_object_new_array();
        unsigned char out[NV_CAMPAIGN_MAX_REPEAT];
        size_t n_out = 0;
        double base = NAN;
        char err[256];
        int ok = !nv_labmodel_alone_baseline(a, ratio, &base, out, &n_out, err, sizeof err);
        for (size_t k = 0; ok && k < a->n_alone_s; k++)
            if (out[k])
                json_object_array_add(left, nv_json_new_num(a->alone_s[k]));
        json_object_object_add(x, "app", json_object_new_string(a->key));
        json_object_object_add(x, "runs", json_object_new_int64((int64_t)a->alone_runs));
        json_object_object_add(x, "baseline_s", ok ? nv_json_new_num(base) : NULL);
        json_object_object_add(x, "fastest_s",
                               ok ? nv_json_new_num(nv_campaign_fastest(a->alone_s, a->n_alone_s))
                                  : NULL);
        json_object_object_add(x, "median_all_s",
                               ok ? nv_json_new_num(nv_campaign_median(a->alone_s, a->n_alone_s))
                                  : NULL);
        json_object_object_add(x, "left_out_s", left);
        json_object_array_add(arr, x);
    }
    return arr;
}

static json_object *summary(const nv_labmodel *lm, const char *dir, const char *model,
                            nv_labmodel_variant v, size_t moved)
{
    json_object *o = json_object_new_object(), *cfgs = json_object_new_array(),
                *apps = json_object_new_array(), *near = json_object_new_object();
    json_object_object_add(o, "dataset", json_object_new_string(dir));
    json_object_object_add(o, "model", json_object_new_string(model));
    json_object_object_add(o, "variant", json_object_new_string(nv_labmodel_variant_name(v)));
    json_object_object_add(o, "wait_window_s", nv_json_new_num(lm->wait_window_s));
    json_object_object_add(o, "joint_window_s", nv_json_new_num(NV_LABMODEL_JOINT_WINDOW_S));
    json_object_object_add(o, "route", json_object_new_string(moved ? "counters" : "latency"));
    json_object_object_add(o, "configs_moved", json_object_new_int64((int64_t)moved));
    json_object_object_add(near, "available", json_object_new_boolean(lm->nearest_ok));
    json_object_object_add(near, "missing",
                           lm->nearest_ok ? NULL : json_object_new_string(lm->nearest_missing));
    json_object_object_add(o, "nearest", near);
    for (size_t i = 0; i < lm->n_configs; i++) {
        const nv_labmodel_config *c = &lm->configs[i];
        json_object *x = json_object_new_object();
        json_object_object_add(x, "config", json_object_new_string(c->name));
        json_object_object_add(x, "counter_file", json_object_new_boolean(c->have_file));
        json_object_object_add(x, "utilization", nv_json_new_num(c->u));
        json_object_object_add(x, "utilization_steps", json_object_new_int64((int64_t)c->n_u));
        json_object_object_add(x, "queue_wait_us", nv_json_new_num(c->w_us));
        json_object_object_add(x, "queue_wait_steps", json_object_new_int64((int64_t)c->n_w));
        json_object_object_add(x, "joint_utilization", nv_json_new_num(c->joint_u));
        json_object_object_add(x, "joint_queue_wait_us", nv_json_new_num(c->joint_w_us));
        json_object_object_add(x, "joint_steps", json_object_new_int64((int64_t)c->n_joint));
        json_object_array_add(cfgs, x);
    }
    for (size_t i = 0; i < lm->n_apps; i++) {
        const nv_labmodel_app *a = &lm->apps[i];
        json_object *x = json_object_new_object();
        json_object_object_add(x, "app", json_object_new_string(a->key));
        json_object_object_add(x, "alone_runs", json_object_new_int64((int64_t)a->alone_runs));
        json_object_object_add(x, "counter_files",
                               json_object_new_int64((int64_t)a->counter_files));
        json_object_object_add(x, "utilization", nv_json_new_num(a->u));
        json_object_object_add(x, "utilization_steps", json_object_new_int64((int64_t)a->n_u));
        json_object_object_add(x, "utilization_profile", num_array(a->profile, a->n_profile));
        json_object_object_add(x, "queue_wait_mean_us", nv_json_new_num(a->wait_mean_us));
        json_object_object_add(x, "queue_wait_values", json_object_new_int64((int64_t)a->n_w));
        json_object_object_add(x, "queue_wait_profile_us",
                               num_array(a->wait_profile_us, a->n_wait_profile));
        json_object_object_add(x, "joint_windows",
                               json_object_new_int64((int64_t)a->n_joint_measured));
        json_object_object_add(x, "joint_windows_kept", json_object_new_int64((int64_t)a->n_joint));
        json_object_array_add(apps, x);
    }
    json_object_object_add(o, "configs", cfgs);
    json_object_object_add(o, "apps", apps);
    return o;
}

#define PROFILED_MAX_LINE 512

/* DIR/profiled.txt and DIR/profile_APP/: each base app's signature, or
 * NULL (a line on stderr says why); 0, or -1 with err (the file missing or
 * malformed) */
static int read_signatures(const char *dir, const nv_model *base, nv_signature *sigs,
                           const nv_signature **use, json_object *rep, char *err, size_t errlen)
{
    size_t na = nv_model_app_count(base);
    double *rt = malloc((na ? na : 1) * sizeof *rt);
    if (!rt) {
        nv_err(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < na; i++) {
        rt[i] = NAN;
        use[i] = NULL;
    }
    char path[4200], line[PROFILED_MAX_LINE];
    if ((size_t)snprintf(path, sizeof path, "%s/profiled.txt", dir) >= sizeof path) {
        free(rt);
        nv_err(err, errlen, "--dataset %.200s: path too long", dir);
        return -1;
    }
    FILE *f = fopen(path, "re");
    if (!f) {
        free(rt);
        nv_err(err, errlen, "%.1000s: %s (the profiled alone runs)", path, strerror(errno));
        return -1;
    }
    size_t ln = 0;
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        char key[NV_MODEL_KEY_MAX + 2], extra;
        double t;
        if (line[0] == '#' || line[strspn(line, " \t\r\n")] == 0)
            continue;
        if (!strchr(line, '\n') && !feof(f)) {
            nv_err(err, errlen, "%.1000s:%zu: line longer than %d bytes", path, ln,
                   PROFILED_MAX_LINE - 2);
            rc = -1;
            break;
        }
        if (sscanf(line, "%256s %lf %c", key, &t, &extra) != 2 || !(t > 0 && t < 1e7)) {
            nv_err(err, errlen, "%.1000s:%zu: not 'app runtime_s' (runtime in seconds, above 0)",
                   path, ln);
            rc = -1;
            break;
        }
        int32_t a = nv_model_app_index(base, key);
        if (a < 0) {
            fprintf(stderr, "netvar labmodel: %s:%zu: app %s is not in the model: skipped\n", path,
                    ln, key);
            continue;
        }
        rt[a] = t;
    }
    fclose(f);
    for (size_t i = 0; !rc && i < na; i++) {
        nv_app_view av;
        nv_model_app(base, (int32_t)i, &av);
        json_object *x = json_object_new_object();
        json_object_object_add(x, "app", json_object_new_string(av.key));
        json_object_object_add(x, "runtime_s", isfinite(rt[i]) ? nv_json_new_num(rt[i]) : NULL);
        char pdir[4400], why[1024] = "";
        int got = 0, v1;
        if (!isfinite(rt[i]))
            snprintf(why, sizeof why, "%.1000s: no profiled run of it", path);
        else if ((size_t)snprintf(pdir, sizeof pdir, "%s/profile_%s", dir, av.key) >= sizeof pdir)
            snprintf(why, sizeof why, "%.800s/profile_%s: path too long", dir, av.key);
        else if ((got = nv_train_signature_of(pdir, rt[i], &sigs[i], &v1, why, sizeof why)) == 0)
            snprintf(why, sizeof why, "%.1000s: no profile", pdir);
        if (got == 1)
            use[i] = &sigs[i];
        else
            fprintf(stderr, "netvar labmodel: app %s: %s: left without a curve\n", av.key, why);
        json_object_object_add(x, "signature", json_object_new_boolean(got == 1));
        json_object_object_add(x, "error", got == 1 ? NULL : json_object_new_string(why));
        json_object_array_add(rep, x);
    }
    free(rt);
    return rc;
}

int verb_labmodel(int argc, char **argv)
{
    const char *dir = NULL, *out = NULL, *model = NULL, *sum_path = NULL, *fabric_path = NULL;
    int variant = -1, point = NV_LABMODEL_POINT_AS_WRITTEN, no_campaigns = 0;
    double wait_window_s = 0.1, stall_ratio = -1, alone_ratio = 1.5;
    const nv_opt opts[] = {
        {"dataset", "DIR", NV_CLI_STR, &dir, .help = "the dataset directory"},
        {"variant", "NAME", NV_CLI_CHOICE, &variant, .choices = "counters|wait|nearest|latency",
         .help = "counters, wait, nearest or latency"},
        {"out", "FILE", NV_CLI_STR, &out,
         .help = "the model file written (atomically; schema netvar-model)"},
        {"model", "FILE", NV_CLI_STR, &model,
         .help = "the base model (default DIR/model.json); an evaluation that re-derives the "
                 "campaign slowdowns passes its own"},
        {"wait-window-s", "S", NV_CLI_DOUBLE, &wait_window_s, 0.1, NV_LABMODEL_WAIT_WINDOW_MAX_S,
         .help = "the apps' wait windows, seconds (default 0.1: each pass)"},
        {"campaign-point", "RULE", NV_CLI_CHOICE, &point, .choices = "as-written|fastest|median",
         .help = "the training-set slowdowns: as the base model has them (the default), or "
                 "made again from each campaign's rounds by netvar campaign --point fastest or "
                 "median"},
        {"stall-ratio", "R", NV_CLI_DOUBLE, &stall_ratio, 1.5, 1000, .zero_ok = 1,
         .bad = "must be 0 (keep every round) or a ratio from 1.5 to 1000",
         .help = "with --campaign-point: a round over R times the fastest of its configuration "
                 "(or of the baseline) is a stall, left out of the median (1.5..1000, default 3 "
                 "as netvar campaign's; 0 keeps every round)"},
        {"alone-stall-ratio", "R", NV_CLI_DOUBLE, &alone_ratio, 1.5, 1000, .zero_ok = 1,
         .bad = "must be 0 (keep every run) or a ratio from 1.5 to 1000",
         .help = "the alone baselines in --json-summary leave out an alone run over R times "
                 "the app's fastest (1.5..1000, default 1.5; 0 keeps every run)"},
        {"no-campaigns", NULL, NV_CLI_FLAG, &no_campaigns, .ival = 1,
         .help = "every app without its campaign: its signature (DIR/profiled.txt, "
                 "DIR/profile_APP/) and the fabric response (--fabric) in its place (see "
                 "above); the summary gets profiles [{app, runtime_s, signature, error}]"},
        {"fabric", "FILE", NV_CLI_STR, &fabric_path,
         .help = "with --no-campaigns: the fabric response file (netvar calibrate --fabric "
                 "--out)"},
        {"json-summary", "FILE", NV_CLI_STR, &sum_path,
         .help = "also write what was measured (JSON): per configuration config, counter_file, "
                 "utilization, queue_wait_us, joint_utilization, joint_queue_wait_us and the "
                 "steps behind each; per app alone_runs, counter_files, utilization, "
                 "utilization_profile, queue_wait_mean_us, queue_wait_profile_us, joint_windows "
                 "(measured) and joint_windows_kept; wait_window_s, joint_window_s, route, "
                 "configs_moved and whether the nearest variant can be built (a value null: not "
                 "measured); campaign_point, stall_ratio and campaign_points [{app, "
                 "campaign_file, baseline_stalled_rounds, points [{config, as_written_pct, "
                 "slowdown_pct, stalled_rounds}]}]; alone_stall_ratio and alone [{app, runs, "
                 "baseline_s, fastest_s, median_all_s, left_out_s}] (seconds)"},
    };
    make_help();
    const nv_opt_spec spec = {
        "netvar labmodel", NULL, help_head,
        help_tail,         0,    {{"Options:", "labmodel", opts, sizeof opts / sizeof opts[0]}}};
    int parsed = nv_opts_parse(&spec, argc, argv);
    if (parsed)
        return nv_opts_exit(parsed);
    int have_variant = variant >= 0;
    nv_labmodel_variant v = (nv_labmodel_variant)(variant >= 0 ? variant : 0);
    /* without --variant and --out: only what was measured (--json-summary) */
    int only_summary = !out && !have_variant && sum_path;
    if (!dir || (!only_summary && (!out || !have_variant)) || optind < argc) {
        fprintf(stderr, "netvar labmodel: --dataset, --variant and --out are required (or "
                        "--dataset and --json-summary alone), and nothing else (see --help)\n");
        return 2;
    }
    if (stall_ratio >= 0 && point == NV_LABMODEL_POINT_AS_WRITTEN) {
        fprintf(stderr,
                "netvar labmodel: --stall-ratio %g: applies only with --campaign-point "
                "fastest or median; nothing written\n",
                stall_ratio);
        return 2;
    }
    if (!no_campaigns != !fabric_path ||
        (no_campaigns && (only_summary || v == NV_LABMODEL_LATENCY))) {
        fprintf(stderr, "netvar labmodel: --no-campaigns and --fabric go together, with --variant "
                        "counters, wait or nearest and --out; nothing written\n");
        return 2;
    }
    if (stall_ratio < 0)
        stall_ratio = 3; /* netvar campaign's default */
    char model_buf[4096], err[1024];
    if (!model) {
        if ((size_t)snprintf(model_buf, sizeof model_buf, "%s/model.json", dir) >=
            sizeof model_buf) {
            fprintf(stderr, "netvar labmodel: --dataset %.200s: path too long\n", dir);
            return 1;
        }
        model = model_buf;
    }
    nv_labmodel lm;
    if (nv_labmodel_read(dir, wait_window_s, &lm, err, sizeof err)) {
        fprintf(stderr, "netvar labmodel: %s; nothing written\n", err);
        return 1;
    }
    int rc = 1;
    size_t moved = 0;
    nv_model_builder *b = NULL;
    json_object *s = NULL;
    json_object *points = NULL, *profiles = NULL;
    nv_model *base = NULL;
    nv_fabric *fab = NULL;
    nv_signature *sigs = NULL;
    const nv_signature **use = NULL;
    if (only_summary && point == NV_LABMODEL_POINT_AS_WRITTEN) {
        points = json_object_new_array();
        goto write_summary;
    }
    base = nv_model_load(model, err, sizeof err);
    if (!base) {
        fprintf(stderr, "netvar labmodel: %s: %s; nothing written\n", model, err);
        goto done;
    }
    if (point != NV_LABMODEL_POINT_AS_WRITTEN) {
        nv_model *re = nv_labmodel_repoint(dir, base, (nv_labmodel_point_mode)point, stall_ratio,
                                           &points, err, sizeof err);
        if (!re) {
            fprintf(stderr, "netvar labmodel: --campaign-point %s: %s; nothing written\n",
                    nv_labmodel_point_mode_name((nv_labmodel_point_mode)point), err);
            goto done;
        }
        nv_model_free(base);
        base = re;
        for (size_t i = 0; i < json_object_array_length(points); i++) {
            json_object *x = json_object_array_get_idx(points, i);
            if (!json_object_get_boolean(nv_json_get(x, "campaign_file", json_type_boolean)))
                fprintf(stderr,
                        "netvar labmodel: %s/campaign_%s.json: absent: its campaign points "
                        "kept as the model has them\n",
                        dir, json_object_get_string(nv_json_get(x, "app", json_type_string)));
        }
    } else {
        points = json_object_new_array();
    }
    if (no_campaigns) {
        size_t na = nv_model_app_count(base);
        fab = malloc(sizeof *fab);
        sigs = calloc(na ? na : 1, sizeof *sigs);
        use = calloc(na ? na : 1, sizeof *use);
        profiles = json_object_new_array();
        if (!fab || !sigs || !use || !profiles) {
            fprintf(stderr, "netvar labmodel: out of memory; nothing written\n");
            goto done;
        }
        if (nv_fabric_load(fabric_path, fab, err, sizeof err)) {
            fprintf(stderr, "netvar labmodel: --fabric %s; nothing written\n", err);
            goto done;
        }
        if (read_signatures(dir, base, sigs, use, profiles, err, sizeof err)) {
            fprintf(stderr, "netvar labmodel: %s; nothing written\n", err);
            goto done;
        }
    }
    nv_labmodel_profiles pr = {fab, use};
    if (!only_summary && !(b = nv_labmodel_build_profiles(&lm, base, v, no_campaigns ? &pr : NULL,
                                                          &moved, err, sizeof err))) {
        fprintf(stderr, "netvar labmodel: %s: %s; nothing written\n", dir, err);
        goto done;
    }
write_summary:
    if (sum_path) {
        s = summary(&lm, dir, model, v, moved);
        if (only_summary) {
            json_object_object_add(s, "variant", NULL);
            if (!base)
                json_object_object_add(s, "model", NULL);
        }
        json_object_object_add(
            s, "campaign_point",
            json_object_new_string(nv_labmodel_point_mode_name((nv_labmodel_point_mode)point)));
        json_object_object_add(s, "stall_ratio", nv_json_new_num(stall_ratio));
        json_object_object_add(s, "campaign_points", json_object_get(points));
        json_object_object_add(s, "alone_stall_ratio", nv_json_new_num(alone_ratio));
        json_object_object_add(s, "alone", alone_json(&lm, alone_ratio));
        if (profiles)
            json_object_object_add(s, "profiles", json_object_get(profiles));
        if (nv_json_write_file(sum_path, s, 0644, (gid_t)-1, err, sizeof err)) {
            fprintf(stderr, "netvar labmodel: --json-summary %s; nothing written\n", err);
            goto done;
        }
    }
    if (!only_summary && nv_builder_save(b, out, err, sizeof err)) {
        fprintf(stderr, "netvar labmodel: --out %s\n", err);
        goto done;
    }
    rc = 0;
done:
    json_object_put(points);
    json_object_put(profiles);
    free(fab);
    free(sigs);
    free(use);
    json_object_put(s);
    nv_builder_free(b);
    nv_model_free(base);
    nv_labmodel_free(&lm);
    return rc;
}
