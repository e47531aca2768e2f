/* verb_predict.c - `netvar predict`: predicted slowdown of one app beside
 * one or more neighbours, from a model file. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "args.h"
#include "opts.h"
#include "nv_json.h"
#include "predict.h"
#include "verbs.h"

/* numbers: six significant digits, enough for percentages and fractions and
 * without binary noise like 0.45000000000000001 */
#define DIGITS 6

#define MAX_WITH 1024

static const char help_head[] =
    "Usage: netvar predict --model FILE --app A --with B[,C...] [--predictor NAME]\n"
    "                      [--min-samples N] [--leaves L] [--with-leaves L[,L...]]\n"
    "                      [--json]\n"
    "\n"
    "Predict the slowdown of app A when it shares the network with B (and C...).\n"
    "With one neighbour and a co-location table entry of at least N samples the\n"
    "measured value answers (source \"table\"); otherwise the predictor does\n"
    "(source \"model:NAME\", or \"model:queue+history\" when corrections fitted on\n"
    "the co-location table add to the queue physics).  Several neighbours add\n"
    "their load above the idle bottleneck; beyond the top of A's curve its top\n"
    "point answers (capped).  A beside B is not B beside A.\n"
    "The queue predictor has two mechanisms.  Where A's campaign measured its\n"
    "slowdown against the queue wait at the bottleneck and every neighbour's\n"
    "own queue wait is known (a campaign with --bottleneck), both are computed\n"
    "and the larger answers: queueing (source \"model:queue-wait\"), A's curve\n"
    "read over the neighbours' summed wait profiles, averaged as progress\n"
    "rates; and bandwidth share (\"model:queue-share\"), the share a neighbour\n"
    "takes even when it builds no queue: p_A(U) over the neighbours'\n"
    "utilization, times A's own mean utilization of the port.  Without a queue\n"
    "gauge p_A(U) answers alone (\"model:queue\").\n"
    "For one neighbour with joint windows (a model whose configurations all\n"
    "carry their queue wait, and a victim measured under every one of them)\n"
    "the nearest configurations answer instead (\"model:queue-nearest\"): each\n"
    "window of the neighbour's alone runs (its U and queue wait over half a\n"
    "second) reads A's slowdowns at the two configurations nearest it in (U,\n"
    "wait / the largest configuration's wait), the idle bottleneck at 0 %\n"
    "among them, weighted by inverse distance, and the windows average as\n"
    "progress rates; the two mechanisms' figures are still printed beside it.\n"
    "Several neighbours are the two mechanisms' (their windows are not\n"
    "aligned in time).\n"
    "The paths answer first.  The model's bottleneck is a port between switches\n"
    "(a leaf switch's uplink); a job whose nodes all lie under one leaf switch\n"
    "sends nothing through it.  With --leaves 1, A shares no such port: 0 %\n"
    "(source \"path: under one leaf switch\").  A neighbour given 1 in\n"
    "--with-leaves loads none, so it is left out of the sum; when every\n"
    "neighbour is, the answer is 0 % from the path.  0 (the default) means\n"
    "unknown: the placement is taken to share the bottleneck.  A placement\n"
    "may name its leaf switches instead, joined by '+' (s1+s2): two jobs that\n"
    "both span leaf switches share an uplink only where they name a common\n"
    "leaf, so a neighbour whose leaves A's all miss is left out too (source\n"
    "\"path: no shared uplink\"), as job_submit does for a job that names its\n"
    "nodes.\n"
    "\n";

static const char help_tail[] =
    "\n"
    "Output (JSON on stdout): slowdown_pct (percent), source (which route\n"
    "answered: \"table\", \"model:queue...\" for a campaign curve, \"model:profile\"\n"
    "for a curve composed from the app's signature and the fabric response),\n"
    "curve (\"campaign\", \"production\", \"profile\", or \"\" for the table) and\n"
    "runs (the runs behind the answer: the table's samples, the campaign\n"
    "points' samples or the profiled runs), predictor,\n"
    "utilization_sum and utilization_used (fractions 0..1), capped,\n"
    "with_utilization (per neighbour), config (training configuration used by\n"
    "a look-up predictor, or null), curve_fallback, table_samples, table_sd_pct;\n"
    "queue: physics_pct (the bottleneck physics alone), correction_pp (A's\n"
    "sensitivity plus the neighbours' pressure, percentage points; on the\n"
    "counters route the pressures apply only to a victim with pairs of its\n"
    "own, so a new app gets its physics) and history_samples (table\n"
    "samples behind them), mechanism (\"nearest-configurations\", \"queue-wait\",\n"
    "\"bandwidth-share\" or \"utilization\"), wait_pct and share_pct (the two\n"
    "mechanisms' answers, percent; null where a mechanism has no data), wait_gauge (what the model's queue-wait figures read:\n"
    "\"queue_us\", \"stall_per_word\" on InfiniBand, \"paused_cycles_per_packet\" on\n"
    "a Slingshot NIC, \"stall_per_flit\" on an Aries tile) and wait_used_us (the\n"
    "mean summed queue wait read, us, or the neighbour's mean window wait for\n"
    "the nearest configurations; named wait_used, in the gauge's own unit,\n"
    "with the other three; null without a\n"
    "queue gauge).  utilization_used is null when A has no p_A(U) curve.\n"
    "path: \"shared\" (the predictor answered), \"local\" or \"apart\" (0 % from\n"
    "the paths); with_local and with_apart: the neighbours left out as under\n"
    "one leaf switch and as on other leaf switches.\n"
    "\n"
    "Exit status: 0 predicted, 1 model not loadable or no prediction possible\n"
    "(unknown app, no data), 2 bad usage.\n"
    "\n"
    "Example:\n"
    "  netvar predict --model /etc/netvar/model.json --app lulesh --with milc,amg\n"
    "  netvar predict --model /etc/netvar/model.json --app lulesh --with milc,amg \\\n"
    "                 --with-leaves 2,1     # amg's job under one leaf: milc alone\n"
    "  netvar predict --model /etc/netvar/model.json --app lulesh --with milc,amg \\\n"
    "                 --leaves s1+s2 --with-leaves s3+s4,s2+s5  # milc apart: amg alone\n";

/* a decimal count 0..UINT32_MAX, the whole string: 0, or -1 */
static int parse_count(const char *text, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (end == text || *end || errno || v > UINT32_MAX || text[0] == '-' || text[0] == '+' ||
        text[0] == ' ')
        return -1;
    *out = (uint32_t)v;
    return 0;
}

_Static_assert(NV_DEFAULT_MIN_SAMPLES == 3, "the --min-samples help says 3");
static int set_min_samples(const nv_opt *o, void *to, const char *arg, char *err, size_t errlen)
{
    (void)o;
    if (parse_count(arg, to))
        return snprintf(err, errlen, "--min-samples '%.40s' is not a count (0..%u)", arg,
                        UINT32_MAX),
               -1;
    return 0;
}

/* A job's placement as --leaves and --with-leaves give it: a count of
 * leaf switches (0: unknown), or their names joined by '+' */
#define MAX_LEAF_NAMES 64
struct placement {
    uint32_t n;
    size_t named; /* names in name[] (0: a count was given) */
    const char *name[MAX_LEAF_NAMES];
};

static bool leaf_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
}

/* text (NUL-terminated, split in place at '+'): 0, or -1 with why */
static int parse_placement(char *text, struct placement *pl, const char **why)
{
    memset(pl, 0, sizeof *pl);
    if (text[0] >= '0' && text[0] <= '9' && !strchr(text, '+')) {
        *why = "a leaf-switch count or leaf names joined by '+'";
        return parse_count(text, &pl->n);
    }
    for (char *p = text;;) {
        size_t len = strcspn(p, "+");
        bool ok = len > 0 && len < 64 && p[0] != '-';
        for (size_t i = 0; ok && i < len; i++)
            ok = leaf_name_char(p[i]);
        if (!ok) {
            *why = "a leaf-switch count or leaf names joined by '+' (each 1-63 of A-Za-z0-9._-)";
            return -1;
        }
        if (pl->named == MAX_LEAF_NAMES) {
            *why = "at most 64 leaf names";
            return -1;
        }
        bool last = !p[len];
        p[len] = '\0';
        for (size_t i = 0; i < pl->named; i++)
            if (!strcmp(pl->name[i], p)) {
                *why = "leaf names without a repeat";
                return -1;
            }
        pl->name[pl->named++] = p;
        if (last)
            break;
        p += len + 1;
    }
    pl->n = (uint32_t)pl->named;
    return 0;
}

/* both span named leaf switches and none is common to them */
static bool apart(const struct placement *a, const struct placement *b)
{
    if (a->named < 2 || b->named < 2)
        return false;
    for (size_t i = 0; i < a->named; i++)
        for (size_t j = 0; j < b->named; j++)
            if (!strcmp(a->name[i], b->name[j]))
                return false;
    return true;
}

static json_object *key_list(const char *const *keys, size_t n)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; i < n; i++)
        json_object_array_add(a, json_object_new_string(keys[i]));
    return a;
}

/* The answer the paths give (predict.h): A under one leaf switch, or every
 * neighbour under one or on other leaves: 0 % from the path, no predictor
 * asked. */
static void print_path_answer(const char *app, const char *const *with, size_t n_with,
                              const char *const *local, size_t n_local,
                              const char *const *apart_with, size_t n_apart, nv_predictor predictor,
                              uint32_t min_samples)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "app", json_object_new_string(app));
    json_object_object_add(o, "with", key_list(with, n_with));
    json_object_object_add(o, "slowdown_pct", json_object_new_double(0.0));
    json_object_object_add(
        o, "source", json_object_new_string(n_apart ? NV_PATH_SOURCE_APART : NV_PATH_SOURCE_LOCAL));
    json_object_object_add(o, "predictor", json_object_new_string(nv_predictor_name(predictor)));
    json_object_object_add(o, "min_samples", json_object_new_int64(min_samples));
    json_object_object_add(o, "path", json_object_new_string(n_apart ? "apart" : "local"));
    json_object_object_add(o, "with_local", key_list(local, n_local));
    json_object_object_add(o, "with_apart", key_list(apart_with, n_apart));
    nv_cli_print_json(o);
    json_object_put(o);
}

int verb_predict(int argc, char **argv)
{
    const char *model_path = NULL, *app = NULL, *with_arg = NULL, *with_leaves_arg = NULL,
               *leaves_arg = NULL;
    nv_predictor predictor = NV_PREDICT_QUEUE;
    uint32_t min_samples = NV_DEFAULT_MIN_SAMPLES;
    int json = 1;
    const nv_opt opts[] = {
        {"model", "FILE", NV_CLI_STR, &model_path,
         .help = "model file (schema netvar-model, version 1)"},
        {"app", "A", NV_CLI_STR, &app, .help = "app key to predict for"},
        {"with", "B[,C...]", NV_CLI_STR, &with_arg,
         .help = "comma-separated app keys of the neighbours (up to " NV_STR(MAX_WITH) ")"},
        NV_CLI_OPT_PREDICTOR(&predictor),
        {"min-samples", "N", NV_CLI_CALL, &min_samples, .call = set_min_samples,
         .help = "table samples needed to answer from the table (0..4294967295, default 3)"},
        {"leaves", "L", NV_CLI_STR, &leaves_arg,
         .help = "A's placement: how many leaf switches its job spans (0: unknown, the "
                 "default), or their names joined by '+'"},
        {"with-leaves", "L[,L...]", NV_CLI_STR, &with_leaves_arg,
         .help = "each neighbour's placement, in --with's order, the same way (missing "
                 "entries are 0: unknown)"},
        {"json", NULL, NV_CLI_FLAG, &json, .ival = 1,
         .help = "JSON output (the only form; accepted for uniformity)"},
    };
    const nv_opt_spec spec = {"netvar predict",
                              "; nothing predicted",
                              help_head,
                              help_tail,
                              0,
                              {{"Options:", "predict", opts, sizeof opts / sizeof opts[0]}}};
    int parsed = nv_opts_parse(&spec, argc, argv);
    if (parsed)
        return nv_opts_exit(parsed);
    if (optind < argc) {
        fprintf(stderr, "netvar predict: unexpected argument '%.60s'; see --help\n", argv[optind]);
        return 2;
    }
    if (!model_path || !app || !with_arg) {
        fprintf(stderr, "netvar predict: --model, --app and --with are required; see --help\n");
        return 2;
    }
    if (!nv_model_key_valid(app)) {
        fprintf(stderr, "netvar predict: --app '%s' is not a valid app key; nothing predicted\n",
                nv_cli_shown(app));
        return 2;
    }
    /* split the neighbour list in a copy; keys are validated one by one */
    char *list = strdup(with_arg);
    const char **with = calloc(MAX_WITH, sizeof *with);
    /* the placements, split in copies: A's, then one per neighbour */
    char *own_text = strdup(leaves_arg ? leaves_arg : "0");
    char *with_text = strdup(with_leaves_arg ? with_leaves_arg : "");
    struct placement *place = calloc(MAX_WITH + 1, sizeof *place);
    const char **shared = calloc(MAX_WITH, sizeof *shared),
               **local = calloc(MAX_WITH, sizeof *local),
               **apart_with = calloc(MAX_WITH, sizeof *apart_with);
    nv_model *m = NULL;
    if (!list || !with || !own_text || !with_text || !place || !shared || !local || !apart_with) {
        free(list);
        free(with);
        free(own_text);
        free(with_text);
        free(place);
        free(shared);
        free(local);
        free(apart_with);
        fprintf(stderr, "netvar predict: out of memory; nothing predicted\n");
        return 1;
    }
    size_t n_with = 0;
    int rc = 2;
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (n_with == MAX_WITH) {
            fprintf(stderr,
                    "netvar predict: --with lists more than %d neighbours; nothing predicted\n",
                    MAX_WITH);
            goto out;
        }
        if (!nv_model_key_valid(tok)) {
            fprintf(stderr,
                    "netvar predict: --with entry '%s' is not a valid app key; nothing predicted\n",
                    nv_cli_shown(tok));
            goto out;
        }
        with[n_with++] = tok;
    }
    if (!n_with) {
        fprintf(stderr, "netvar predict: --with names no neighbour; nothing predicted\n");
        goto out;
    }
    /* the placements: A's, then the neighbours' in --with's order; the
     * local ones go to local[], those on other leaves to apart_with[], the
     * rest to shared[], each in --with's order */
    const char *why = "";
    if (parse_placement(own_text, &place[0], &why)) {
        fprintf(stderr, "netvar predict: --leaves '%.60s' is not %s; nothing predicted\n",
                leaves_arg, why);
        goto out;
    }
    size_t n_shared = 0, n_local = 0, n_apart = 0, k = 0;
    for (char *p = with_text; with_leaves_arg;) {
        size_t len = strcspn(p, ",");
        bool last = !p[len];
        p[len] = '\0';
        if (k == n_with) {
            fprintf(stderr,
                    "netvar predict: --with-leaves '%.60s' is not one placement per --with "
                    "neighbour (it has more); nothing predicted\n",
                    with_leaves_arg);
            goto out;
        }
        if (parse_placement(p, &place[1 + k], &why)) {
            fprintf(stderr,
                    "netvar predict: --with-leaves '%.60s': entry %zu is not %s; nothing "
                    "predicted\n",
                    with_leaves_arg, k + 1, why);
            goto out;
        }
        k++;
        if (last)
            break;
        p += len + 1;
    }
    for (size_t i = 0; i < n_with; i++) {
        if (place[1 + i].n == 1)
            local[n_local++] = with[i];
        else if (apart(&place[0], &place[1 + i]))
            apart_with[n_apart++] = with[i];
        else
            shared[n_shared++] = with[i];
    }

    char err[600];
    rc = 1;
    m = nv_model_load(model_path, err, sizeof err);
    if (!m) {
        fprintf(stderr, "netvar predict: %s; nothing predicted\n", err);
        goto out;
    }
    /* every key must be one the model knows, the local ones too: a typo is
     * an error whatever the placement */
    for (size_t i = 0; i < n_with; i++)
        if (nv_model_app_index(m, with[i]) < 0) {
            fprintf(stderr,
                    "netvar predict: neighbour '%s' is not in model %s; nothing predicted\n",
                    with[i], model_path);
            goto out;
        }
    if (nv_model_app_index(m, app) < 0) {
        fprintf(stderr, "netvar predict: app '%s' is not in model %s; nothing predicted\n", app,
                model_path);
        goto out;
    }
    if (place[0].n == 1 || n_shared == 0) {
        bool here = place[0].n == 1; /* A under one leaf: every neighbour is left out */
        print_path_answer(app, with, n_with, here ? with : local, here ? n_with : n_local,
                          apart_with, here ? 0 : n_apart, predictor, min_samples);
        rc = 0;
        goto out;
    }
    nv_prediction p;
    /* every key was found above: a failure here is the model's (no data) */
    int st = nv_predict(m, app, shared, n_shared, predictor, min_samples, &p, NULL);
    if (st)
        fprintf(stderr, "netvar predict: %s (app '%s', predictor %s); nothing predicted\n",
                nv_predict_strerror(st), app, nv_predictor_name(predictor));
    else {
        json_object *o = json_object_new_object(), *wu = json_object_new_array();
        json_object_object_add(o, "app", json_object_new_string(app));
        /* with_utilization follows the neighbours predicted with: --with's
         * order less the local ones */
        for (size_t i = 0; i < n_shared && i < NV_PRED_DETAIL; i++)
            json_object_array_add(wu, nv_json_new_num_g(p.with_utilization[i], DIGITS));
        json_object_object_add(o, "with", key_list(with, n_with));
        json_object_object_add(o, "slowdown_pct", nv_json_new_num_g(p.slowdown_pct, DIGITS));
        json_object_object_add(o, "source", json_object_new_string(p.source_label));
        json_object_object_add(o, "curve", json_object_new_string(p.curve));
        json_object_object_add(o, "runs", json_object_new_int64(p.runs));
        json_object_object_add(o, "predictor",
                               json_object_new_string(nv_predictor_name(predictor)));
        json_object_object_add(o, "min_samples", json_object_new_int64(min_samples));
        json_object_object_add(o, "with_utilization", wu);
        json_object_object_add(o, "utilization_sum", nv_json_new_num_g(p.utilization_sum, DIGITS));
        json_object_object_add(o, "utilization_used", nv_json_new_num(p.utilization_used));
        json_object_object_add(o, "capped", json_object_new_boolean(p.capped));
        json_object_object_add(o, "config",
                               p.config >= 0 ? json_object_new_string(p.config_id) : NULL);
        json_object_object_add(o, "curve_fallback", json_object_new_boolean(p.curve_fallback));
        json_object_object_add(o, "table_samples", json_object_new_int64(p.table_samples));
        json_object_object_add(o, "table_sd_pct", nv_json_new_num_g(p.table_sd_pct, DIGITS));
        json_object_object_add(o, "path", json_object_new_string("shared"));
        json_object_object_add(o, "with_local", key_list(local, n_local));
        json_object_object_add(o, "with_apart", key_list(apart_with, n_apart));
        if (p.source == NV_SOURCE_MODEL && predictor == NV_PREDICT_QUEUE) {
            json_object_object_add(o, "physics_pct", nv_json_new_num_g(p.physics_pct, DIGITS));
            json_object_object_add(o, "correction_pp", nv_json_new_num_g(p.correction_pp, DIGITS));
            json_object_object_add(o, "history_samples", json_object_new_int64(p.history_samples));
            json_object_object_add(o, "mechanism", json_object_new_string(p.mechanism));
            json_object_object_add(o, "wait_pct", nv_json_new_num(p.wait_pct));
            json_object_object_add(o, "share_pct", nv_json_new_num(p.share_pct));
            nv_wait_gauge g = nv_model_bottleneck(m)->wait_gauge;
            json_object_object_add(o, "wait_gauge", json_object_new_string(nv_wait_gauge_name(g)));
            json_object_object_add(o, g == NV_WAIT_QUEUE_US ? "wait_used_us" : "wait_used",
                                   nv_json_new_num(p.wait_used_us));
        }
        nv_cli_print_json(o);
        json_object_put(o);
        rc = 0;
    }
out:
    nv_model_free(m);
    free(shared);
    free(local);
    free(apart_with);
    free(place);
    free(own_text);
    free(with_text);
    free(list);
    free(with);
    return rc;
}
