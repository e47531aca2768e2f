/* verb_holdout.c - `netvar holdout`: predictions with part of the measured
 * pairs held out of the co-location table, so an evaluation scores
 * netvar's own answers and fitted factors rather than a copy of its rules.
 *
 * For each pair (or run) answered, the table is rebuilt from the runs the
 * hold-out keeps, by netvar train's entry rule (nv_train_pair_entry), the
 * model is built with it (the history corrections are fitted at load, as
 * for any model file), and the predictor answers. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "args.h"
#include "opts.h"
#include "model_builder.h"
#include "nv_json.h"
#include "predict.h"
#include "safe_open.h"
#include "train_history.h"
#include "verbs.h"

#define DIGITS 6 /* as netvar predict prints */
#define MAX_RUNS 100000u
#define MAX_FILE (64u << 20)

enum hold { HOLD_NONE, HOLD_ALL, HOLD_PAIR, HOLD_APP, HOLD_NEIGHBOUR, HOLD_REPETITION };
static const char *const hold_names[] = {"none", "all", "pair", "app", "neighbour", "repetition"};
#define NV_DEFAULT_MIN_SAMPLES_TEXT 3
_Static_assert(NV_DEFAULT_MIN_SAMPLES == NV_DEFAULT_MIN_SAMPLES_TEXT, "the help says 3");

_Static_assert(MAX_RUNS == 100000u, "the help says at most 100000 runs");
static const char help_head[] =
    "Usage: netvar holdout --model FILE --runs FILE --hold-out KIND\n"
    "                      [--ask FILE] [--predictor NAME] [--min-samples N]\n"
    "\n"
    "Predict measured pairs with part of the measurements held out of the\n"
    "co-location table, as an evaluation must: each answer is netvar's own,\n"
    "from a model whose table is rebuilt without what it predicts.  The\n"
    "table is built from the runs file by netvar train's rule (an entry is\n"
    "the median of its pair's runs, with their count and sample standard\n"
    "deviation), replacing the model file's own table, and the history\n"
    "corrections are fitted on it as at any model load.\n"
    "\n"
    "Runs file: plain text, one measured pair run per line,\n"
    "    APP  WITH  REP  SLOWDOWN_PCT\n"
    "the app, its one neighbour, a repetition label (an integer), and the\n"
    "slowdown of APP beside WITH in that run, percent ((T_together -\n"
    "T_alone) / T_alone * 100, from -100 to 1e6, decimal).  Blank lines and\n"
    "lines starting with '#' are ignored; at most 100000 runs.\n"
    "\n"
    "Hold-outs (what each answer's table leaves out):\n"
    "  none        nothing: every run is in the table\n"
    "  all         every run: an empty table (the physics alone)\n"
    "  pair        the runs of the pair answered (A beside B)\n"
    "  app         every run that A takes part in, either way\n"
    "  neighbour   every run that B takes part in, either way\n"
    "  repetition  the one run answered (each run is answered by the\n"
    "              table of the others: how repeatable a pair is)\n"
    "\n";

static const char help_tail[] =
    "\n"
    "Output (JSON on stdout): hold_out, predictor, and answers, one per pair\n"
    "(per run for repetition) in order of app, neighbour and repetition:\n"
    "app, with, rep (repetition only), measured_pct (the pair's median run,\n"
    "the run, or the --ask value; percent), runs (the pair's runs in the\n"
    "file), table_entries (entries the answer's table held), predicted_pct\n"
    "(percent; null when the model cannot answer, with error saying why),\n"
    "source, and for the queue predictor physics_pct and correction_pp (the\n"
    "physics and what the history adds, percent and percentage points),\n"
    "mechanism, utilization_used (0..1), wait_used_us, sensitivity (A's\n"
    "fitted factor) and pressure (B's), with sensitivity_samples and\n"
    "pressure_samples (the table samples behind each).\n"
    "\n"
    "Exit status: 0 answered (a failed answer is named in its entry), 1 a\n"
    "file unreadable or malformed, or the model not buildable, 2 bad usage.\n"
    "\n"
    "Example:\n"
    "  netvar holdout --model model.json --runs pairs.runs --hold-out pair\n";

struct run {
    const char *app, *with;
    long rep;
    double pct;
};

struct query {
    const char *app, *with;
    long rep; /* repetition hold-out: the run's label */
    double measured;
    size_t runs; /* the pair's runs in the runs file */
};

static int cmp_run(const void *pa, const void *pb)
{
    const struct run *a = pa, *b = pb;
    int c = strcmp(a->app, b->app);
    if (!c)
        c = strcmp(a->with, b->with);
    if (!c)
        c = (a->rep > b->rep) - (a->rep < b->rep);
    return c;
}

static int same_pair(const struct run *a, const char *app, const char *with)
{
    return !strcmp(a->app, app) && !strcmp(a->with, with);
}

/* Splits buf (NUL-terminated, len bytes) into lines of ntok fields:
 * APP WITH [REP] PCT.  Tokens point into buf.  0, or -1 with one line
 * on stderr naming path:line. */
static int parse_lines(const char *what, const char *path, char *buf, size_t len, int with_rep,
                       struct run *out, size_t *n_out)
{
    if (strlen(buf) != len) {
        fprintf(stderr,
                "netvar holdout: %s %s: holds a NUL byte (not a text file); nothing "
                "answered\n",
                what, path);
        return -1;
    }
    size_t n = 0, lineno = 0;
    char *save_line = NULL;
    for (char *line = strtok_r(buf, "\n", &save_line); line;
         line = strtok_r(NULL, "\n", &save_line)) {
        lineno++;
        char *save = NULL, *tok[5] = {0};
        int k = 0;
        for (char *t = strtok_r(line, " \t\r", &save); t && k < 5;
             t = strtok_r(NULL, " \t\r", &save))
            tok[k++] = t;
        if (!k || tok[0][0] == '#')
            continue;
        int want = with_rep ? 4 : 3;
        if (k != want) {
            fprintf(stderr, "netvar holdout: %s %s:%zu: expected '%s'; nothing answered\n", what,
                    path, lineno, with_rep ? "APP WITH REP SLOWDOWN_PCT" : "APP WITH SLOWDOWN_PCT");
            return -1;
        }
        char buf_app[64];
        for (int i = 0; i < 2; i++)
            if (!nv_model_key_valid(tok[i])) {
                fprintf(stderr,
                        "netvar holdout: %s %s:%zu: '%s' is not a valid app key; nothing "
                        "answered\n",
                        what, path, lineno, nv_printable(tok[i], buf_app, sizeof buf_app));
                return -1;
            }
        char *end;
        long rep = 0;
        if (with_rep) {
            errno = 0;
            rep = strtol(tok[2], &end, 10);
            if (end == tok[2] || *end || errno) {
                fprintf(stderr,
                        "netvar holdout: %s %s:%zu: repetition '%.20s' is not an integer; "
                        "nothing answered\n",
                        what, path, lineno, tok[2]);
                return -1;
            }
        }
        const char *val = tok[want - 1];
        errno = 0;
        double v = strtod(val, &end);
        /* decimal only: strtod would take 0x10 as 16 */
        if (end == val || *end || errno || !isfinite(v) || v < -100 || v > 1e6 ||
            strpbrk(val, "xXpP")) {
            fprintf(stderr,
                    "netvar holdout: %s %s:%zu: slowdown '%.40s' is not a decimal "
                    "percentage in [-100, 1e6]; nothing answered\n",
                    what, path, lineno, val);
            return -1;
        }
        if (n == MAX_RUNS) {
            fprintf(stderr, "netvar holdout: %s %s:%zu: more than %u lines; nothing answered\n",
                    what, path, lineno, MAX_RUNS);
            return -1;
        }
        out[n++] = (struct run){.app = tok[0], .with = tok[1], .rep = rep, .pct = v};
    }
    *n_out = n;
    return 0;
}

static char *read_text(const char *what, const char *path, size_t *len)
{
    char err[256];
    /* an admin-named file: a link is followed, a FIFO or device refused */
    char *buf =
        nv_read_untrusted(path, NV_ANY_OWNER, MAX_FILE, NV_OPEN_FOLLOW, len, err, sizeof err);
    if (!buf)
        fprintf(stderr, "netvar holdout: %s %s: %s; nothing answered\n", what, path, err);
    return buf;
}

/* does the hold-out keep run r out of the table answering q? */
static int held(enum hold h, const struct run *r, const struct query *q)
{
    switch (h) {
    case HOLD_NONE: return 0;
    case HOLD_ALL: return 1;
    case HOLD_PAIR: return same_pair(r, q->app, q->with);
    case HOLD_APP: return !strcmp(r->app, q->app) || !strcmp(r->with, q->app);
    case HOLD_NEIGHBOUR: return !strcmp(r->app, q->with) || !strcmp(r->with, q->with);
    case HOLD_REPETITION: return same_pair(r, q->app, q->with) && r->rep == q->rep;
    }
    return 0;
}

/* the table the hold-out leaves for q, into b; returns the entries
 * written, or -1 with one line on stderr.  runs sorted by pair. */
static long fill_table(nv_model_builder *b, const struct run *runs, size_t n, enum hold h,
                       const struct query *q, double *x)
{
    if (nv_builder_clear_pairs(b))
        goto fail;
    long entries = 0;
    for (size_t g0 = 0; g0 < n;) {
        size_t g1 = g0, c = 0;
        while (g1 < n && same_pair(&runs[g1], runs[g0].app, runs[g0].with)) {
            if (!held(h, &runs[g1], q))
                x[c++] = runs[g1].pct;
            g1++;
        }
        if (c) {
            nv_pair_input in = {.app = runs[g0].app, .with = runs[g0].with, .samples = (uint32_t)c};
            nv_train_pair_entry(x, c, &in.slowdown_pct, &in.sd_pct);
            if (nv_builder_add_pair(b, &in))
                goto fail;
            entries++;
        }
        g0 = g1;
    }
    return entries;
fail:
    fprintf(stderr, "netvar holdout: table: %s; nothing answered\n", nv_builder_error(b));
    return -1;
}

static json_object *answer(const nv_model *m, const struct query *q, enum hold h, long entries,
                           nv_predictor pred, uint32_t min_samples)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "app", json_object_new_string(q->app));
    json_object_object_add(o, "with", json_object_new_string(q->with));
    if (h == HOLD_REPETITION)
        json_object_object_add(o, "rep", json_object_new_int64(q->rep));
    json_object_object_add(o, "measured_pct", nv_json_new_num(q->measured)); /* exact */
    json_object_object_add(o, "runs", json_object_new_int64((int64_t)q->runs));
    json_object_object_add(o, "table_entries", json_object_new_int64(entries));
    nv_prediction p;
    const char *with[1] = {q->with};
    int st = nv_predict(m, q->app, with, 1, pred, min_samples, &p, NULL);
    if (st) {
        json_object_object_add(o, "predicted_pct", NULL);
        json_object_object_add(o, "source", json_object_new_string("failed"));
        json_object_object_add(o, "error", json_object_new_string(nv_predict_strerror(st)));
        return o;
    }
    json_object_object_add(o, "predicted_pct", nv_json_new_num_g(p.slowdown_pct, DIGITS));
    json_object_object_add(o, "source", json_object_new_string(p.source_label));
    if (p.source == NV_SOURCE_MODEL && pred == NV_PREDICT_QUEUE) {
        json_object_object_add(o, "physics_pct", nv_json_new_num_g(p.physics_pct, DIGITS));
        json_object_object_add(o, "correction_pp", nv_json_new_num_g(p.correction_pp, DIGITS));
        json_object_object_add(o, "mechanism", json_object_new_string(p.mechanism));
        json_object_object_add(o, "utilization_used", nv_json_new_num(p.utilization_used));
        json_object_object_add(o, "wait_used_us", nv_json_new_num(p.wait_used_us));
        nv_app_view a, w;
        if (!nv_model_app(m, nv_model_app_index(m, q->app), &a) &&
            !nv_model_app(m, nv_model_app_index(m, q->with), &w)) {
            json_object_object_add(o, "sensitivity", nv_json_new_num_g(a.sensitivity, DIGITS));
            json_object_object_add(o, "sensitivity_samples",
                                   json_object_new_int64(a.sensitivity_samples));
            json_object_object_add(o, "pressure", nv_json_new_num_g(w.pressure, DIGITS));
            json_object_object_add(o, "pressure_samples",
                                   json_object_new_int64(w.pressure_samples));
        }
    }
    return o;
}

int verb_holdout(int argc, char **argv)
{
    const char *model_path = NULL, *runs_path = NULL, *ask_path = NULL;
    int h = -1, as_json = 0;
    long min_samples_l = NV_DEFAULT_MIN_SAMPLES;
    nv_predictor pred = NV_PREDICT_QUEUE;
    const nv_opt opts[] = {
        {"model", "FILE", NV_CLI_STR, &model_path,
         .help = "model file (schema netvar-model, version 1): apps, curves, configurations; "
                 "its own table is replaced"},
        {"runs", "FILE", NV_CLI_STR, &runs_path, .help = "the measured runs, format above"},
        {"hold-out", "KIND", NV_CLI_CHOICE, &h, .choices = "none|all|pair|app|neighbour|repetition",
         .help = "one of the hold-outs above"},
        {"ask", "FILE", NV_CLI_STR, &ask_path,
         .help = "answer these pairs instead of the runs file's (lines 'APP WITH SLOWDOWN_PCT', "
                 "the measured value echoed); the hold-outs apply to the runs as above"},
        NV_CLI_OPT_PREDICTOR(&pred),
        {"min-samples", "N", NV_CLI_LONG, &min_samples_l, 0, 1000000,
         .help = "table samples needed for the table to answer (default " NV_STR(
             NV_DEFAULT_MIN_SAMPLES_TEXT) ")"},
        NV_OPT_JSON_ONLY(&as_json),
    };
    const nv_opt_spec spec = {
        "netvar holdout", NULL, help_head,
        help_tail,        0,    {{"Options:", "holdout", opts, sizeof opts / sizeof opts[0]}}};
    int parsed = nv_opts_parse(&spec, argc, argv);
    if (parsed)
        return nv_opts_exit(parsed);
    uint32_t min_samples = (uint32_t)min_samples_l;
    if (!model_path || !runs_path || h < 0 || optind < argc) {
        fprintf(stderr, "netvar holdout: --model, --runs and --hold-out are required, and "
                        "nothing else (see --help)\n");
        return 2;
    }
    if (ask_path && h == HOLD_REPETITION) {
        fprintf(stderr, "netvar holdout: --ask answers pairs; --hold-out repetition answers the "
                        "runs file's runs (give one or the other)\n");
        return 2;
    }

    int rc = 1;
    size_t len = 0, alen = 0, n = 0, na = 0, nq = 0;
    char *buf = NULL, *abuf = NULL, err[512];
    struct run *runs = NULL, *asked = NULL;
    struct query *q = NULL;
    double *x = NULL;
    nv_model *base = NULL;
    nv_model_builder *b = NULL;
    json_object *answers = json_object_new_array(), *out = NULL;

    if (!(buf = read_text("runs file", runs_path, &len)))
        goto done;
    runs = calloc(MAX_RUNS, sizeof *runs);
    x = malloc(MAX_RUNS * sizeof *x);
    q = calloc(MAX_RUNS, sizeof *q);
    if (!runs || !x || !q || !answers) {
        fprintf(stderr, "netvar holdout: out of memory; nothing answered\n");
        goto done;
    }
    if (parse_lines("runs file", runs_path, buf, len, 1, runs, &n))
        goto done;
    qsort(runs, n, sizeof *runs, cmp_run);
    if (ask_path) {
        if (!(abuf = read_text("--ask file", ask_path, &alen)) ||
            !(asked = calloc(MAX_RUNS, sizeof *asked)) ||
            parse_lines("--ask file", ask_path, abuf, alen, 0, asked, &na))
            goto done;
        qsort(asked, na, sizeof *asked, cmp_run);
    }

    /* the queries: each pair (or run) of the runs file, or each --ask line */
    for (size_t g0 = 0; !ask_path && g0 < n;) {
        size_t g1 = g0;
        while (g1 < n && same_pair(&runs[g1], runs[g0].app, runs[g0].with))
            g1++;
        if (h == HOLD_REPETITION)
            for (size_t g = g0; g < g1; g++)
                q[nq++] =
                    (struct query){runs[g].app, runs[g].with, runs[g].rep, runs[g].pct, g1 - g0};
        else {
            for (size_t g = g0; g < g1; g++)
                x[g - g0] = runs[g].pct;
            struct query *e = &q[nq++];
            double sd;
            *e = (struct query){.app = runs[g0].app, .with = runs[g0].with, .runs = g1 - g0};
            nv_train_pair_entry(x, g1 - g0, &e->measured, &sd);
        }
        g0 = g1;
    }
    for (size_t i = 0; i < na; i++) {
        size_t k = 0;
        for (size_t j = 0; j < n; j++)
            k += same_pair(&runs[j], asked[i].app, asked[i].with);
        q[nq++] = (struct query){asked[i].app, asked[i].with, 0, asked[i].pct, k};
    }

    if (!(base = nv_model_load(model_path, err, sizeof err))) {
        fprintf(stderr, "netvar holdout: %s: %s; nothing answered\n", model_path, err);
        goto done;
    }
    if (!(b = nv_builder_from_model(base))) {
        fprintf(stderr, "netvar holdout: %s: out of memory; nothing answered\n", model_path);
        goto done;
    }
    /* none and all build one table for every answer; the others one each */
    int one_table = h == HOLD_NONE || h == HOLD_ALL;
    nv_model *m = NULL;
    long entries = 0;
    for (size_t i = 0; i < nq; i++) {
        if (!m || !one_table) {
            nv_model_free(m);
            m = NULL;
            if ((entries = fill_table(b, runs, n, (enum hold)h, &q[i], x)) < 0)
                goto done;
            if (!(m = nv_builder_build(b, err, sizeof err))) {
                fprintf(stderr,
                        "netvar holdout: the model with its table rebuilt does not load: "
                        "%s; nothing answered\n",
                        err);
                goto done;
            }
        }
        json_object_array_add(answers, answer(m, &q[i], (enum hold)h, entries, pred, min_samples));
    }
    nv_model_free(m);
    out = json_object_new_object();
    json_object_object_add(out, "hold_out", json_object_new_string(hold_names[h]));
    json_object_object_add(out, "predictor", json_object_new_string(nv_predictor_name(pred)));
    json_object_object_add(out, "min_samples", json_object_new_int64(min_samples));
    json_object_object_add(out, "answers", answers);
    answers = NULL;
    nv_cli_print_json(out);
    rc = 0;
done:
    json_object_put(out);
    json_object_put(answers);
    nv_builder_free(b);
    nv_model_free(base);
    free(runs);
    free(asked);
    free(q);
    free(x);
    free(buf);
    free(abuf);
    return rc;
}
