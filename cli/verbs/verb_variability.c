/* verb_variability.c - `netvar variability train|estimate`: the Variability
 * Estimate ("Variability Estimate": router counters -> how far a run's runtime sat
 * from its app's mean, in standard deviations).  Thin: the logic is in
 * lib/train/ve_records.h and lib/variability/ve_model.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "args.h"
#include "model.h"
#include "model_builder.h"
#include "nv_json.h"
#include "opts.h"
#include "ve_records.h"
#include "verbs.h"

static const char help_head[] =
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
    "        \"+1.3 σ (± 0.6): ran in heavy congestion\"; the ± is a 90 % error\n"
    "        bound calibrated on held-out residuals; when the forest's estimate lies\n"
    "        outside SVR ± that bound the two models disagree and it abstains:\n"
    "        \"no estimate: outside training data\".\n"
    "\n";

static const char help_tail[] =
    "\n"
    "Units: estimates are in σ, standard deviations of the app's runtime at that node\n"
    "count; R^2, abstention and coverage are fractions (0..1 in --json, % in the text).\n"
    "\n"
    "Exit status: 0 trained / estimated (an abstention is a result), 1 failure (no\n"
    "usable records, unreadable model or record, record without counters), 2 usage.\n"
    "\n"
    "Example:\n"
    "  netvar variability train --records /var/spool/netvar/jobs --model /etc/netvar/model.json\n"
    "  netvar variability estimate --model /etc/netvar/model.json /var/spool/netvar/jobs/42/job.json\n";

static void log_line(void *arg, const char *line)
{
    (void)arg;
    fprintf(stderr, "%s\n", line);
}

/* the arguments of the two actions */
struct train_args {
    const char *dirs[64];
    size_t ndirs;
    const char *model_path;
    int json, dry;
    size_t min_group;
    nv_ve_train_opts o;
};
struct estimate_args {
    const char *model_path;
    int json;
};

/* --records: one more directory (up to 64) */
static int add_records(const nv_opt *o, void *to, const char *arg, char *err, size_t errlen)
{
    (void)o;
    struct train_args *t = to;
    if (t->ndirs == sizeof t->dirs / sizeof t->dirs[0])
        return snprintf(err, errlen, "more than 64 --records directories"), -1;
    t->dirs[t->ndirs++] = arg;
    return 0;
}

/* --C-grid (ival 0) and --gamma-grid (1): up to NV_VE_MAX_GRID numbers */
static int set_grid(const nv_opt *o, void *to, const char *arg, char *err, size_t errlen)
{
    nv_ve_train_opts *t = to;
    double *out = o->ival ? t->gamma_grid : t->C_grid;
    size_t *n = o->ival ? &t->n_gamma : &t->n_C;
    *n = 0;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", arg);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        char *end;
        double v = strtod(tok, &end);
        if (*end || !(v > 0) || v > 1e9 || *n >= NV_VE_MAX_GRID)
            break;
        out[(*n)++] = v;
        if (!save || !*save)
            return 0;
    }
    *n = 0;
    return snprintf(err, errlen,
                    "--%s '%.60s': expected up to %d positive numbers separated by "
                    "commas",
                    o->name, arg, NV_VE_MAX_GRID),
           -1;
}

/* a whole number from lo to hi into a size_t (ival 0) or a uint64_t (1,
 * the seed: any unsigned long; strtoul's, so -1 is the largest) */
static int set_count(const nv_opt *o, void *to, const char *arg, char *err, size_t errlen)
{
    unsigned long lo = (unsigned long)o->lo, hi = o->ival ? ~0ul : (unsigned long)o->hi;
    char *end;
    unsigned long v = strtoul(arg, &end, 10);
    if (!*arg || *end || v < lo || v > hi)
        return snprintf(err, errlen, "--%s '%.40s': expected an integer in [%lu, %lu]", o->name,
                        arg, lo, hi),
               -1;
    if (o->ival)
        *(uint64_t *)to = v;
    else
        *(size_t *)to = v;
    return 0;
}

/* train with operands left after the options: a usage error */
static int train(struct train_args *ta, int operands)
{
    nv_ve_train_opts o = ta->o;
    const char *model_path = ta->model_path;
    int json = ta->json, dry = ta->dry;
    if (!ta->ndirs || (!model_path && !dry) || operands) {
        fprintf(stderr, "netvar variability train: --records and --model are required (or "
                        "--dry-run); see --help\n");
        return 2;
    }
    char err[600];
    nv_model *m = NULL;
    if (!dry && !(m = nv_model_load(model_path, err, sizeof err))) {
        fprintf(stderr,
                "netvar variability train: %s; nothing trained (create the model with "
                "netvar calibrate first)\n",
                err);
        return 1;
    }
    o.progress = json ? NULL : log_line;
    nv_ve_job *jobs = NULL;
    long n = nv_ve_load_dirs(ta->dirs, ta->ndirs, &jobs, log_line, NULL, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "netvar variability train: %s; nothing trained\n", err);
        nv_model_free(m);
        return 1;
    }
    size_t used = 0;
    nv_ve *ve = nv_ve_train_jobs(jobs, (size_t)n, ta->min_group, &o, &used, err, sizeof err);
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
        json_object_object_add(o2, "forest_nodes",
                               json_object_new_int64((int64_t)ve->forest.n_nodes));
        json_object_object_add(o2, "model", dry ? NULL : json_object_new_string(model_path));
        nv_cli_print_json(o2);
        json_object_put(o2);
    } else {
        printf("trained on %zu of %ld job records (%zu-fold cross-validation, C=%g gamma=%g)\n",
               used, n, t->folds, t->C, t->gamma);
        printf("cross-validated R^2:  %.3f (SVR), %.3f (forest)\n", t->cv_r2, t->cv_r2_forest);
        printf("abstention:           %.1f %% of jobs\n", 100 * t->abstention);
        printf("coverage:             %.1f %% of answered jobs within SVR ± half-width "
               "(mean half-width %.2f σ)\n",
               100 * t->coverage, t->mean_half_width);
        if (!dry && !rc)
            printf("wrote the variability section into %s\n", model_path);
    }
    nv_ve_free(ve);
    nv_model_free(m);
    return rc;
}

static int estimate(const struct estimate_args *e, int argc, char **argv)
{
    const char *model_path = e->model_path;
    int json = e->json;
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
        fprintf(stderr,
                "netvar variability estimate: %s has no variability section; run "
                "netvar variability train first; no estimate\n",
                model_path);
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
    struct train_args t = {.min_group = 5, .o = {.folds = 10, .seed = 1}};
    struct estimate_args e = {0};
    const nv_opt train_opts[] = {
        {"records", "DIR", NV_CLI_CALL, &t, .call = add_records,
         .help = "a spool, or its jobs/ directory, holding job records; repeatable (up to 64)"},
        {"model", "FILE", NV_CLI_STR, &t.model_path,
         .help = "model file (schema netvar-model) to add the section to; it must exist (from "
                 "netvar calibrate/campaign)"},
        {"folds", "N", NV_CLI_CALL, &t.o.folds, 2, 100, .call = set_count,
         .help = "cross-validation folds, 2-100 (default 10)"},
        {"seed", "N", NV_CLI_CALL, &t.o.seed, .ival = 1, .call = set_count,
         .help = "seed for the folds and the forest (default 1)"},
        {"min-group", "N", NV_CLI_CALL, &t.min_group, 2, 1000000, .call = set_count,
         .help = "fewest runs of one app at one node count to use them (2..1000000, default 5)"},
        {"trees", "N", NV_CLI_CALL, &t.o.forest.n_trees, 1, NV_FOREST_MAX_TREES, .call = set_count,
         .help = "forest size, 1-" NV_STR(NV_FOREST_MAX_TREES) " (default 100)"},
        {"min-leaf", "N", NV_CLI_CALL, &t.o.forest.min_leaf, 1, 1000, .call = set_count,
         .help = "fewest jobs in a forest leaf (1..1000, default 2)"},
        {"max-features", "N", NV_CLI_CALL, &t.o.forest.max_features, 1, NV_VE_NFEAT,
         .call = set_count,
         .help = "features tried per forest split, 1-" NV_STR(NV_VE_NFEAT) " (default 3)"},
        {"C-grid", "LIST", NV_CLI_CALL, &t.o, .ival = 0, .call = set_grid,
         .help = "comma-separated SVR C values (up to " NV_STR(NV_VE_MAX_GRID) ", default "
                                                                               "1,10,100)"},
        {"gamma-grid", "LIST", NV_CLI_CALL, &t.o, .ival = 1, .call = set_grid,
         .help = "comma-separated RBF gamma values, 1/scaled-unit^2 (default "
                 "0.001,0.003,0.01,0.03,0.1)"},
        {"dry-run", NULL, NV_CLI_FLAG, &t.dry, .ival = 1,
         .help = "train and report, but do not write the model file"},
        {"json", NULL, NV_CLI_FLAG, &t.json, .ival = 1, .help = "machine-readable output"},
    };
    const nv_opt estimate_opts[] = {
        {"model", "FILE", NV_CLI_STR, &e.model_path,
         .help = "model file (schema netvar-model) holding the variability section"},
        {"json", NULL, NV_CLI_FLAG, &e.json, .ival = 1, .help = "machine-readable output"},
    };
    const nv_opt_group train_group = {"Options of train:", "variability train", train_opts,
                                      sizeof train_opts / sizeof train_opts[0]};
    const nv_opt_group estimate_group = {"Options of estimate:", "variability estimate",
                                         estimate_opts, 2};
    const nv_opt_spec all = {"netvar variability",         NULL, help_head, help_tail, 0,
                             {train_group, estimate_group}};
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        nv_opts_help(argc < 2 ? stderr : stdout, &all);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "--list-options")) {
        nv_opts_list(stdout, &all);
        return 0;
    }
    int is_train = !strcmp(argv[1], "train");
    if (!is_train && strcmp(argv[1], "estimate")) {
        fprintf(stderr, "netvar variability: unknown action '%s' (train or estimate); see --help\n",
                argv[1]);
        return 2;
    }
    const nv_opt_spec one = {
        "netvar variability", NULL, NULL, NULL, 0, {is_train ? train_group : estimate_group}, &all};
    int parsed = nv_opts_parse(&one, argc - 1, argv + 1);
    if (parsed)
        return nv_opts_exit(parsed);
    return is_train ? train(&t, optind < argc - 1) : estimate(&e, argc - 1, argv + 1);
}
