/* verb_evaluate.c - `netvar evaluate`: error of each predictor against
 * measured pair slowdowns, summarized as in "Queue-theory interference
 * model" (median, quartiles, max and mean of the absolute error) plus
 * relative error, R^2 and RCC. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "args.h"
#include "metrics.h"
#include "nv_json.h"
#include "opts.h"
#include "plausible.h"
#include "predict.h"
#include "safe_open.h"
#include "verbs.h"

/* numbers: six significant digits, enough for percentages and fractions and
 * without binary noise like 0.45000000000000001 */
#define DIGITS 6

#define MAX_PAIRS 100000u
#define MAX_WITH 64
#define MAX_LINE 4096
#define MAX_PAIRS_FILE_BYTES (64u << 20)

_Static_assert(MAX_PAIRS == 100000, "the help says at most 100000 pairs");
static const char help_head[] =
    "Usage: netvar evaluate --model FILE --pairs FILE [--json] [--use-table]\n"
    "\n"
    "Predict every measured pair of the pairs file with each of the four\n"
    "predictors (queue, averagelt, averagestdevlt, pdflt) and summarize their\n"
    "errors as in \"Queue-theory interference model\": median, first and third\n"
    "quartile, maximum and mean of the absolute error in percentage points;\n"
    "also the mean relative error, R^2 and the rank correlation coefficient\n"
    "RCC (Communication time prediction, ties count 0).\n"
    "\n"
    "Pairs file: plain text, one measured pair per line,\n"
    "    APP  WITH[,WITH2...]  SLOWDOWN_PCT\n"
    "separated by spaces or tabs: the app, its neighbour(s) (comma-separated,\n"
    "up to " NV_STR(
        MAX_WITH) "), and the slowdown of APP measured beside them in percent\n"
                  "((T_together - T_alone) / T_alone * 100).  Blank lines and lines starting\n"
                  "with '#' are ignored.  At most 100000 pairs.  Example:\n"
                  "    # app   with    slowdown_pct\n"
                  "    FFTW    MILC    11\n"
                  "    MILC    FFTW    25\n"
                  "\n";

static const char help_tail[] =
    "\n"
    "Pairs whose apps the model does not know, or that a predictor cannot answer,\n"
    "are skipped and counted per predictor; an answer that is not a number is\n"
    "counted as failed and named, never left out silently.\n"
    "\n"
    "Exit status: 0 evaluated, 1 model or pairs file unreadable or malformed,\n"
    "2 bad usage.\n"
    "\n"
    "Example:\n"
    "  netvar evaluate --model model.json --pairs table1.pairs --json\n";

struct pair {
    char *app;
    char *with[MAX_WITH];
    size_t n_with;
    double measured_pct;
};

static void free_pairs(struct pair *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(p[i].app);
        for (size_t k = 0; k < p[i].n_with; k++)
            free(p[i].with[k]);
    }
    free(p);
}

/* one error line naming file:line, what is wrong, and that nothing was evaluated */
static struct pair *read_pairs(const char *path, size_t *n_out)
{
    /* the admin's file: a FIFO, device or NUL byte refused without blocking,
     * and bounded (safe_open.h) */
    char why[256];
    size_t flen = 0;
    char *text = nv_read_admin_file(path, MAX_PAIRS_FILE_BYTES, true, &flen, why, sizeof why);
    if (!text) {
        fprintf(stderr, "netvar evaluate: %s: %s; nothing evaluated\n", path, why);
        return NULL;
    }
    struct pair *pairs = calloc(MAX_PAIRS, sizeof *pairs);
    char line[MAX_LINE + 2];
    size_t n = 0, lineno = 0;
    int ok = pairs != NULL;
    for (const char *at = text; ok && at < text + flen;) {
        lineno++;
        const char *ln = at, *nl = memchr(at, '\n', (size_t)(text + flen - at));
        size_t len = nl ? (size_t)(nl - at) : (size_t)(text + flen - at);
        at += len + (nl != NULL);
        if (len > MAX_LINE) {
            fprintf(stderr,
                    "netvar evaluate: %s:%zu: line longer than %d bytes; nothing evaluated\n", path,
                    lineno, MAX_LINE);
            ok = 0;
            break;
        }
        memcpy(line, ln, len);
        line[len] = '\0';
        char *save = NULL, *app = strtok_r(line, " \t\r\n", &save);
        if (!app || app[0] == '#')
            continue;
        char *with = strtok_r(NULL, " \t\r\n", &save), *val = strtok_r(NULL, " \t\r\n", &save);
        char *extra = strtok_r(NULL, " \t\r\n", &save);
        if (!with || !val || (extra && extra[0] != '#')) {
            fprintf(
                stderr,
                "netvar evaluate: %s:%zu: expected 'APP WITH[,WITH...] SLOWDOWN_PCT'; nothing evaluated\n",
                path, lineno);
            ok = 0;
            break;
        }
        double v;
        if (!nv_parse_decimal(val, &v) || v < -100) {
            fprintf(
                stderr,
                "netvar evaluate: %s:%zu: slowdown '%s' is not a decimal percentage >= -100; nothing evaluated\n",
                path, lineno, nv_cli_shown(val));
            ok = 0;
            break;
        }
        if (!nv_model_key_valid(app)) {
            fprintf(stderr,
                    "netvar evaluate: %s:%zu: app '%s' is not a valid app key; nothing evaluated\n",
                    path, lineno, nv_cli_shown(app));
            ok = 0;
            break;
        }
        if (n == MAX_PAIRS) {
            fprintf(stderr, "netvar evaluate: %s:%zu: more than %u pairs; nothing evaluated\n",
                    path, lineno, MAX_PAIRS);
            ok = 0;
            break;
        }
        struct pair *p = &pairs[n];
        p->measured_pct = v;
        p->app = strdup(app);
        n++;
        char *wsave = NULL;
        for (char *w = strtok_r(with, ",", &wsave); w && ok; w = strtok_r(NULL, ",", &wsave)) {
            if (!nv_model_key_valid(w) || p->n_with == MAX_WITH) {
                fprintf(
                    stderr,
                    "netvar evaluate: %s:%zu: neighbour '%s' is not a valid app key or one too many (max %d); nothing evaluated\n",
                    path, lineno, nv_cli_shown(w), MAX_WITH);
                ok = 0;
                break;
            }
            if (!(p->with[p->n_with++] = strdup(w)))
                ok = 0;
        }
        if (!p->app || (ok && p->n_with == 0))
            ok = 0;
    }
    free(text);
    if (!ok) {
        free_pairs(pairs, n);
        return NULL;
    }
    if (n == 0) {
        fprintf(stderr, "netvar evaluate: %s: holds no pairs; nothing evaluated\n", path);
        free_pairs(pairs, n);
        return NULL;
    }
    *n_out = n;
    return pairs;
}

int verb_evaluate(int argc, char **argv)
{
    const char *model_path = NULL, *pairs_path = NULL;
    int as_json = 0, use_table = 0;
    const nv_opt opts[] = {
        {"model", "FILE", NV_CLI_STR, &model_path,
         .help = "model file (schema netvar-model, version 1)"},
        {"pairs", "FILE", NV_CLI_STR, &pairs_path, .help = "measured pairs, format above"},
        {"json", NULL, NV_CLI_FLAG, &as_json, .ival = 1, .help = "print JSON instead of the table"},
        {"use-table", NULL, NV_CLI_FLAG, &use_table, .ival = 1,
         .help = "let co-location table entries answer (default: predictors only, since the "
                 "table may hold the very pairs evaluated)"},
    };
    const nv_opt_spec spec = {
        "netvar evaluate", NULL, help_head,
        help_tail,         0,    {{"Options:", "evaluate", opts, sizeof opts / sizeof opts[0]}}};
    int parsed = nv_opts_parse(&spec, argc, argv);
    if (parsed)
        return nv_opts_exit(parsed);
    if (optind < argc) {
        fprintf(stderr, "netvar evaluate: unexpected argument '%.60s'; see --help\n",
                nv_cli_shown(argv[optind]));
        return 2;
    }
    if (!model_path || !pairs_path) {
        fprintf(stderr, "netvar evaluate: --model and --pairs are required; see --help\n");
        return 2;
    }
    char err[600];
    nv_model *m = nv_model_load(model_path, err, sizeof err);
    if (!m) {
        fprintf(stderr, "netvar evaluate: %s; nothing evaluated\n", nv_cli_shown(err));
        return 1;
    }
    size_t n = 0;
    struct pair *pairs = read_pairs(pairs_path, &n);
    if (!pairs) {
        nv_model_free(m);
        return 1;
    }
    double *meas = malloc(n * sizeof *meas), *pred = malloc(n * sizeof *pred);
    json_object *root = json_object_new_object(), *arr = json_object_new_array();
    json_object_object_add(root, "model", json_object_new_string(model_path));
    json_object_object_add(root, "pairs_file", json_object_new_string(pairs_path));
    json_object_object_add(root, "pairs", json_object_new_int64((int64_t)n));
    json_object_object_add(root, "use_table", json_object_new_boolean(use_table));
    if (!as_json) {
        printf("Absolute error of the predicted slowdown, percentage points (%zu measured pairs)\n",
               n);
        printf("%-15s %6s %7s %7s %7s %7s %7s %7s  %9s %6s %6s\n", "predictor", "pairs", "median",
               "Q1", "Q3", "min", "max", "mean", "rel.mean%", "R2", "RCC");
    }
    for (int pr = 0; pr < NV_PREDICTOR_COUNT && meas && pred; pr++) {
        size_t k = 0, skipped = 0, failed = 0, first_failed = 0;
        for (size_t i = 0; i < n; i++) {
            nv_prediction p;
            int st = nv_predict(m, pairs[i].app, (const char *const *)pairs[i].with,
                                pairs[i].n_with, (nv_predictor)pr,
                                use_table ? NV_DEFAULT_MIN_SAMPLES : UINT32_MAX, &p, NULL);
            if (st) {
                skipped++;
                continue;
            }
            if (!isfinite(p.slowdown_pct)) { /* an answer that is no number: an error, not a gap */
                if (!failed++)
                    first_failed = i;
                continue;
            }
            meas[k] = pairs[i].measured_pct;
            pred[k] = p.slowdown_pct;
            k++;
        }
        nv_error_summary e;
        int have = k > 0 && nv_error_summary_of(meas, pred, k, &e) == 0;
        const char *name = nv_predictor_name((nv_predictor)pr);
        json_object *o = json_object_new_object();
        json_object_object_add(o, "predictor", json_object_new_string(name));
        json_object_object_add(o, "predicted", json_object_new_int64((int64_t)k));
        json_object_object_add(o, "skipped", json_object_new_int64((int64_t)skipped));
        json_object_object_add(o, "failed", json_object_new_int64((int64_t)failed));
        if (have) {
            json_object *a = json_object_new_object();
            json_object_object_add(a, "median", nv_json_new_num_g(e.abs_pp.median, DIGITS));
            json_object_object_add(a, "q1", nv_json_new_num_g(e.abs_pp.q1, DIGITS));
            json_object_object_add(a, "q3", nv_json_new_num_g(e.abs_pp.q3, DIGITS));
            json_object_object_add(a, "min", nv_json_new_num_g(e.abs_pp.min, DIGITS));
            json_object_object_add(a, "max", nv_json_new_num_g(e.abs_pp.max, DIGITS));
            json_object_object_add(a, "mean", nv_json_new_num_g(e.abs_pp.mean, DIGITS));
            json_object_object_add(o, "abs_error_pp", a);
            json_object *r = json_object_new_object();
            json_object_object_add(r, "pairs", json_object_new_int64((int64_t)e.n_rel));
            json_object_object_add(r, "mean_abs", nv_json_new_num_g(e.rel_mean_pct, DIGITS));
            json_object_object_add(r, "min", nv_json_new_num_g(e.rel_min_pct, DIGITS));
            json_object_object_add(r, "max", nv_json_new_num_g(e.rel_max_pct, DIGITS));
            json_object_object_add(o, "rel_error_pct", r);
            json_object_object_add(o, "r2", e.r2_defined ? nv_json_new_num_g(e.r2, DIGITS) : NULL);
            json_object_object_add(o, "rcc", nv_json_new_num_g(e.rcc, DIGITS));
        }
        json_object_array_add(arr, o);
        if (!as_json) {
            if (have) {
                char r2[16];
                if (e.r2_defined)
                    snprintf(r2, sizeof r2, "%6.2f", e.r2);
                else
                    snprintf(r2, sizeof r2, "%6s", "n/a");
                printf("%-15s %6zu %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f  %9.1f %s %6.3f\n", name, k,
                       e.abs_pp.median, e.abs_pp.q1, e.abs_pp.q3, e.abs_pp.min, e.abs_pp.max,
                       e.abs_pp.mean, e.rel_mean_pct, r2, e.rcc);
            } else {
                printf("%-15s %6zu   (no pair could be predicted)\n", name, k);
            }
            if (skipped)
                printf("%-15s %6s   %zu pair(s) skipped: unknown app or no data\n", "", "",
                       skipped);
            if (failed)
                printf(
                    "%-15s %6s   %zu pair(s) FAILED: the answer is not a number (first: %s beside "
                    "%s)\n",
                    "", "", failed, nv_cli_shown(pairs[first_failed].app),
                    nv_cli_shown(pairs[first_failed].with[0]));
        }
    }
    json_object_object_add(root, "predictors", arr);
    if (as_json)
        nv_cli_print_json(root);
    json_object_put(root);
    int rc = meas && pred ? 0 : 1;
    if (rc)
        fprintf(stderr, "netvar evaluate: out of memory; nothing evaluated\n");
    free(meas);
    free(pred);
    free_pairs(pairs, n);
    nv_model_free(m);
    return rc;
}
