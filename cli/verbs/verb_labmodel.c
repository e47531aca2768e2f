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
#include "json_file.h"
#include "labmodel.h"
#include "model_builder.h"
#include "nv_json.h"
#include "verbs.h"

static void usage(FILE *out)
{
    fprintf(out,
        "Usage: netvar labmodel --dataset DIR --variant counters|wait|nearest --out FILE\n"
        "                       [--model FILE] [--wait-window-s S] [--json-summary FILE]\n"
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
        "\n"
        "Options:\n"
        "  --dataset DIR        the dataset directory\n"
        "  --variant NAME       counters, wait or nearest\n"
        "  --out FILE           the model file written (atomically; schema netvar-model)\n"
        "  --model FILE         the base model (default DIR/model.json); an evaluation\n"
        "                       that re-derives the campaign slowdowns passes its own\n"
        "  --wait-window-s S    the apps' wait windows, 0.1..%g s (default 0.1: each\n"
        "                       pass)\n"
        "  --json-summary FILE  also write what was measured (JSON): per configuration\n"
        "                       config, counter_file, utilization, queue_wait_us,\n"
        "                       joint_utilization, joint_queue_wait_us and the steps\n"
        "                       behind each; per app alone_runs, counter_files,\n"
        "                       utilization, utilization_profile, queue_wait_mean_us,\n"
        "                       queue_wait_profile_us, joint_windows (measured) and\n"
        "                       joint_windows_kept; wait_window_s, joint_window_s,\n"
        "                       route, configs_moved and whether the nearest variant\n"
        "                       can be built (a value null: not measured)\n"
        "  -h, --help           show this help\n"
        "\n"
        "Exit status: 0 written, 1 a file missing, unreadable or malformed (one line\n"
        "naming it; nothing written), or the nearest variant without every\n"
        "configuration's counters, 2 bad usage.\n"
        "\n"
        "Example:\n"
        "  netvar labmodel --dataset eval/out --variant wait --out wait.json \\\n"
        "      --json-summary measured.json\n",
        NV_LABMODEL_TRIM_S, NV_NETLAB_BUSY_U, NV_LABMODEL_JOINT_WINDOW_S, NV_JOINT_MAX,
        NV_LABMODEL_WAIT_WINDOW_MAX_S);
}

static json_object *num_array(const double *v, size_t n)
{
    return nv_json_new_num_array(v, n);
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
    json_object_object_add(near, "missing", lm->nearest_ok ? NULL
                                            : json_object_new_string(lm->nearest_missing));
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
        json_object_object_add(x, "counter_files", json_object_new_int64((int64_t)a->counter_files));
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

int verb_labmodel(int argc, char **argv)
{
    static const struct option opts[] = {
        {"dataset", required_argument, NULL, 'd'},     {"variant", required_argument, NULL, 'v'},
        {"out", required_argument, NULL, 'o'},         {"model", required_argument, NULL, 'm'},
        {"wait-window-s", required_argument, NULL, 'w'},
        {"json-summary", required_argument, NULL, 's'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    const char *dir = NULL, *out = NULL, *model = NULL, *sum_path = NULL;
    int have_variant = 0, c;
    nv_labmodel_variant v = NV_LABMODEL_COUNTERS;
    double wait_window_s = 0.1;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': dir = optarg; break;
        case 'o': out = optarg; break;
        case 'm': model = optarg; break;
        case 's': sum_path = optarg; break;
        case 'v':
            if (nv_labmodel_variant_from_name(optarg, &v)) {
                fprintf(stderr, "netvar labmodel: --variant '%.40s': not counters, wait or "
                                "nearest\n", optarg);
                return 2;
            }
            have_variant = 1;
            break;
        case 'w': {
            char *end;
            errno = 0;
            wait_window_s = strtod(optarg, &end);
            if (end == optarg || *end || errno || strpbrk(optarg, "xXpP") ||
                !(wait_window_s >= 0.1 && wait_window_s <= NV_LABMODEL_WAIT_WINDOW_MAX_S)) {
                fprintf(stderr, "netvar labmodel: --wait-window-s '%.40s': not a number of "
                                "seconds in [0.1, %g]\n", optarg, NV_LABMODEL_WAIT_WINDOW_MAX_S);
                return 2;
            }
            break;
        }
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!dir || !out || !have_variant || optind < argc) {
        fprintf(stderr, "netvar labmodel: --dataset, --variant and --out are required, and "
                        "nothing else (see --help)\n");
        return 2;
    }
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
    nv_model *base = nv_model_load(model, err, sizeof err);
    if (!base) {
        fprintf(stderr, "netvar labmodel: %s: %s; nothing written\n", model, err);
        goto done;
    }
    if (!(b = nv_labmodel_build(&lm, base, v, &moved, err, sizeof err))) {
        fprintf(stderr, "netvar labmodel: %s: %s; nothing written\n", dir, err);
        goto done;
    }
    if (sum_path) {
        s = summary(&lm, dir, model, v, moved);
        if (nv_json_write_file(sum_path, s, 0644, (gid_t)-1, err, sizeof err)) {
            fprintf(stderr, "netvar labmodel: --json-summary %s; nothing written\n", err);
            goto done;
        }
    }
    if (nv_builder_save(b, out, err, sizeof err)) {
        fprintf(stderr, "netvar labmodel: --out %s\n", err);
        goto done;
    }
    rc = 0;
done:
    json_object_put(s);
    nv_builder_free(b);
    nv_model_free(base);
    nv_labmodel_free(&lm);
    return rc;
}
