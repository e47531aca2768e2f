/* verb_variability.c - `netvar variability train|estimate`: the Variability
 * Estimate ("Variability Estimate": router counters -> how far a run's runtime sat
 * from its app's mean, in standard deviations).  Thin: the logic is in
 * lib/train/ve_records.h and lib/variability/ve_model.h. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "args.h"
#include "model.h"
#include "model_builder.h"
#include "nv_json.h"
#include "ve_records.h"
#include "verbs.h"

static void usage(FILE *out)
{
    fprintf(out,
        "Usage: netvar variability train --records DIR [--records DIR...] --model FILE\n"
        "                                [--folds N] [--seed N] [--min-group N] [--trees N]\n"
        "                                [--min-leaf N] [--max-features N]\n"
        "                                [--C-grid LIST] [--gamma-grid LIST] [--dry-run] [--json]\n"
        "       netvar variability estimate --model FILE [--json] JOBRECORD.json\n"
        "\n"
        "The Variability Estimate (VE): from a job's router/port counter metrics\n"
        "(Table III of Chunduri et al., as `netvar collect` records them), how many\n"
        "standard deviations its runtime lay from the mean runtime of its app at its\n"
        "node count, i.e. whether it ran in heavy or light network congestion.\n"
        "\n"
        "train   reads DIR/jobs/<id>/job.json of every --records spool (or DIR/<id>/job.json\n"
        "        when DIR is a jobs directory; only files owned by that directory's owner,\n"
        "        never anything under a job's profiles/), computes each\n"
        "        job's runtime z-score within its (app, node count) group, takes the 7\n"
        "        features (6 counter statistics and the node count), scales them by\n"
        "        median and interquartile range, grid-searches an RBF SVR's C and gamma\n"
        "        (libsvm) by k-fold cross-validation, and grows a random forest.  It\n"
        "        prints the cross-validated R^2, the abstention fraction and the\n"
        "        coverage of the intervals, and writes the VE into the model file's\n"
        "        \"variability\" section (atomically; the rest of the file is kept).\n"
        "estimate  reads one job record and prints e.g.\n"
        "        \"+1.3 σ (± 0.6): ran in heavy congestion\"; the ± is a 90 %% error\n"
        "        bound calibrated on held-out residuals; when the forest's estimate lies\n"
        "        outside SVR ± that bound the two models disagree and it abstains:\n"
        "        \"no estimate: outside training data\".\n"
        "\n"
        "Options:\n"
        "  --records DIR    a spool, or its jobs/ directory, holding job records; repeatable\n"
        "  --model FILE     model file (schema netvar-model); train needs an existing one\n"
        "                   (from netvar calibrate/campaign) and adds the section to it\n"
        "  --folds N        cross-validation folds, 2-100 (default 10)\n"
        "  --seed N         seed for the folds and the forest (default 1)\n"
        "  --min-group N    fewest runs of one app at one node count to use them (default 5)\n"
        "  --trees N        forest size, 1-1000 (default 100)\n"
        "  --min-leaf N     fewest jobs in a forest leaf (default 2)\n"
        "  --max-features N features tried per forest split, 1-7 (default 3)\n"
        "  --C-grid LIST    comma-separated SVR C values (default 1,10,100)\n"
        "  --gamma-grid LIST  comma-separated RBF gamma values, 1/scaled-unit^2\n"
        "                   (default 0.001,0.003,0.01,0.03,0.1)\n"
        "  --dry-run        train and report, but do not write the model file\n"
        "  --json           machine-readable output\n"
        "  --help           this text\n"
        "\n"
        "Units: estimates are in σ, standard deviations of the app's runtime at that node\n"
        "count; R^2, abstention and coverage are fractions (0..1 in --json, %% in the text).\n"
        "\n"
        "Exit status: 0 trained / estimated (an abstention is a result), 1 failure (no\n"
        "usable records, unreadable model or record, record without counters), 2 usage.\n"
        "\n"
        "Example:\n"
        "  netvar variability train --records /var/spool/netvar/jobs --model /etc/netvar/model.json\n"
        "  netvar variability estimate --model /etc/netvar/model.json /var/spool/netvar/jobs/42/job.json\n");
}

static void log_line(void *arg, const char *line)
{
    (void)arg;
    fprintf(stderr, "%s\n", line);
}

static int parse_grid(const char *s, double *out, size_t *n, const char *name)
{
    *n = 0;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *end;
        double v = strtod(t, &end);
        if (*end || !(v > 0) || v > 1e9 || *n >= NV_VE_MAX_GRID) {
            fprintf(stderr, "netvar variability: %s '%s': expected up to %d positive numbers "
                            "separated by commas\n", name, s, NV_VE_MAX_GRID);
            return -1;
        }
        out[(*n)++] = v;
    }
    return *n ? 0 : -1;
}

static int parse_ulong(const char *s, unsigned long min, unsigned long max, const char *name,
                       unsigned long *out)
{
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (!*s || *end || v < min || v > max) {
        fprintf(stderr, "netvar variability: %s '%s': expected an integer in [%lu, %lu]\n", name,
                s, min, max);
        return -1;
    }
    *out = v;
    return 0;
}

static int train(int argc, char **argv)
{
    static const struct option opts[] = {
        {"records", required_argument, NULL, 'r'}, {"model", required_argument, NULL, 'm'},
        {"folds", required_argument, NULL, 'k'}, {"seed", required_argument, NULL, 's'},
        {"min-group", required_argument, NULL, 'g'}, {"trees", required_argument, NULL, 't'},
        {"C-grid", required_argument, NULL, 'C'}, {"gamma-grid", required_argument, NULL, 'G'},
        {"min-leaf", required_argument, NULL, 'L'}, {"max-features", required_argument, NULL, 'F'},
        {"dry-run", no_argument, NULL, 'n'}, {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    const char *dirs[64];
    size_t ndirs = 0;
    const char *model_path = NULL;
    int json = 0, dry = 0;
    unsigned long v, min_group = 5;
    nv_ve_train_opts o = {.folds = 10, .seed = 1};
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'r':
            if (ndirs == 64) {
                fprintf(stderr, "netvar variability: more than 64 --records directories\n");
                return 2;
            }
            dirs[ndirs++] = optarg;
            break;
        case 'm': model_path = optarg; break;
        case 'k': if (parse_ulong(optarg, 2, 100, "--folds", &v)) return 2; o.folds = v; break;
        case 's': if (parse_ulong(optarg, 0, ~0ul, "--seed", &v)) return 2; o.seed = v; break;
        case 'g': if (parse_ulong(optarg, 2, 1000000, "--min-group", &v)) return 2; min_group = v; break;
        case 't': if (parse_ulong(optarg, 1, NV_FOREST_MAX_TREES, "--trees", &v)) return 2;
                  o.forest.n_trees = v; break;
        case 'C': if (parse_grid(optarg, o.C_grid, &o.n_C, "--C-grid")) return 2; break;
        case 'G': if (parse_grid(optarg, o.gamma_grid, &o.n_gamma, "--gamma-grid")) return 2; break;
        case 'L': if (parse_ulong(optarg, 1, 1000, "--min-leaf", &v)) return 2;
                  o.forest.min_leaf = v; break;
        case 'F': if (parse_ulong(optarg, 1, NV_VE_NFEAT, "--max-features", &v)) return 2;
                  o.forest.max_features = v; break;
        case 'n': dry = 1; break;
        case 'j': json = 1; break;
        case 'h': usage(stdout); return 0;
        default: return 2;
        }
    }
    if (!ndirs || (!model_path && !dry) || optind < argc) {
        fprintf(stderr, "netvar variability train: --records and --model are required (or "
                        "--dry-run); see --help\n");
        return 2;
    }
    char err[600];
    nv_model *m = NULL;
    if (!dry && !(m = nv_model_load(model_path, err, sizeof err))) {
        fprintf(stderr, "netvar variability train: %s; nothing trained (create the model with "
                        "netvar calibrate first)\n", err);
        return 1;
    }
    o.progress = json ? NULL : log_line;
    nv_ve_job *jobs = NULL;
    long n = nv_ve_load_dirs(dirs, ndirs, &jobs, log_line, NULL, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "netvar variability train: %s; nothing trained\n", err);
        nv_model_free(m);
        return 1;
    }
    size_t used = 0;
    nv_ve *ve = nv_ve_train_jobs(jobs, (size_t)n, min_group, &o, &used, err, sizeof err);
    free(jobs);
    if (!ve) {
        fprintf(stderr, "netvar variability train: %s (%ld records read)\n", err, n);
        nv_model_free(m);
        return 1;
    }
    int rc = 0;
    if (!dry) {
        nv_model_builder *b = nv_builder_from_model(m);
        if (!b || nv_builder_set_variability(b, ve) ||
            nv_builder_save(b, model_path, err, sizeof err)) {
            if (!b || !err[0])
                snprintf(err, sizeof err, "%s: %s", model_path,
                         b ? nv_builder_error(b) : "out of memory");
            fprintf(stderr, "netvar variability train: %s; model file unchanged\n", err);
            rc = 1;
        }
        nv_builder_free(b);
    }
    const nv_ve_training *t = &ve->training;
    if (json) {
        json_object *o2 = json_object_new_object();
        json_object_object_add(o2, "records_read", json_object_new_int64(n));
        json_object_object_add(o2, "jobs_used", json_object_new_int64((int64_t)used));
        json_object_object_add(o2, "folds", json_object_new_int64((int64_t)t->folds));
        json_object_object_add(o2, "C", nv_json_new_num(t->C));
        json_object_object_add(o2, "gamma", nv_json_new_num(t->gamma));
        json_object_object_add(o2, "cv_r2", nv_json_new_num(t->cv_r2));
        json_object_object_add(o2, "cv_r2_forest", nv_json_new_num(t->cv_r2_forest));
        json_object_object_add(o2, "abstention", nv_json_new_num(t->abstention));
        json_object_object_add(o2, "coverage", nv_json_new_num(t->coverage));
        json_object_object_add(o2, "mean_half_width_sigma", nv_json_new_num(t->mean_half_width));
        json_object_object_add(o2, "support_vectors", json_object_new_int64((int64_t)ve->svr.n_sv));
        json_object_object_add(o2, "forest_nodes", json_object_new_int64((int64_t)ve->forest.n_nodes));
        json_object_object_add(o2, "model", dry ? NULL : json_object_new_string(model_path));
        nv_cli_print_json(o2);
        json_object_put(o2);
    } else {
        printf("trained on %zu of %ld job records (%zu-fold cross-validation, C=%g gamma=%g)\n",
               used, n, t->folds, t->C, t->gamma);
        printf("cross-validated R^2:  %.3f (SVR), %.3f (forest)\n", t->cv_r2, t->cv_r2_forest);
        printf("abstention:           %.1f %% of jobs\n", 100 * t->abstention);
        printf("coverage:             %.1f %% of answered jobs within SVR ± half-width "
               "(mean half-width %.2f σ)\n", 100 * t->coverage, t->mean_half_width);
        if (!dry && !rc)
            printf("wrote the variability section into %s\n", model_path);
    }
    nv_ve_free(ve);
    nv_model_free(m);
    return rc;
}

static int estimate(int argc, char **argv)
{
    static const struct option opts[] = {{"model", required_argument, NULL, 'm'},
                                         {"json", no_argument, NULL, 'j'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *model_path = NULL;
    int json = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'm': model_path = optarg; break;
        case 'j': json = 1; break;
        case 'h': usage(stdout); return 0;
        default: return 2;
        }
    }
    if (!model_path || optind + 1 != argc) {
        fprintf(stderr, "netvar variability estimate: --model FILE and one JOBRECORD.json are "
                        "required; see --help\n");
        return 2;
    }
    const char *rec_path = argv[optind];
    char err[600];
    nv_model *m = nv_model_load(model_path, err, sizeof err);
    if (!m) {
        fprintf(stderr, "netvar variability estimate: %s; no estimate\n", err);
        return 1;
    }
    const nv_ve *ve = nv_model_variability(m);
    if (!ve) {
        fprintf(stderr, "netvar variability estimate: %s has no variability section; run "
                        "netvar variability train first; no estimate\n", model_path);
        nv_model_free(m);
        return 1;
    }
    json_object *rec = nv_ve_read_record(rec_path, err, sizeof err);
    nv_ve_result r;
    int rc = 0;
    if (!rec) {
        fprintf(stderr, "netvar variability estimate: %s: %s; no estimate\n", rec_path, err);
        rc = 1;
    } else if (nv_ve_estimate_record(ve, rec, &r, err, sizeof err)) {
        fprintf(stderr, "netvar variability estimate: %s: %s\n", rec_path, err);
        rc = 1;
    } else if (json) {
        json_object *o = nv_ve_result_json(ve, &r);
        nv_cli_print_json(o);
        json_object_put(o);
    } else {
        char text[400];
        nv_ve_format(ve, &r, text, sizeof text);
        printf("%s\n", text);
    }
    if (rec)
        json_object_put(rec);
    nv_model_free(m);
    return rc;
}

int verb_variability(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "train"))
        return train(argc - 1, argv + 1);
    if (!strcmp(argv[1], "estimate"))
        return estimate(argc - 1, argv + 1);
    fprintf(stderr, "netvar variability: unknown action '%s' (train or estimate); see --help\n",
            argv[1]);
    return 2;
}
