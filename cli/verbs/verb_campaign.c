/* verb_campaign.c - `netvar campaign`: run a command under a sweep of
 * CompressionB configurations and alone, and record in the model file its
 * slowdown under each configuration (the app's compression points p_A(U))
 * and each configuration's utilization measured by ImpactB beside it. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "model_builder.h"
#include "probe_run.h"
#include "verbs.h"

#define VERB "netvar campaign"
#define CAMPAIGN_MAX_CONFIGS 512
#define CAMPAIGN_MAX_REPEAT 100

typedef struct campaign_config {
    double bubble_cycles; /* B: CPU cycles slept between partners */
    int partners;         /* P */
    int messages;         /* M */
    char id[64];          /* "B2.5e4-P4-M10" */
} campaign_config;

/* ------------------------------------------------------ pure parsing */

/* "B2.5e4-P4-M10": B in the paper's short notation (no '+', no leading
 * exponent zeros), so ids read like Table 2. */
static void campaign_config_id(double b, int p, int m, char *buf, size_t n)
{
    char num[40], out[40];
    snprintf(num, sizeof num, "%.4g", b);
    size_t k = 0;
    for (const char *s = num; *s && k + 1 < sizeof out; s++) {
        if (*s == '+')
            continue;
        if (*s == '0' && k > 0 && (out[k - 1] == 'e' || out[k - 1] == '-') && s[1])
            continue; /* "e+04" -> "e4" */
        out[k++] = *s;
    }
    out[k] = '\0';
    snprintf(buf, n, "B%s-P%d-M%d", out, p, m);
}

static int add_config(campaign_config *out, size_t cap, size_t *n, double b, long p, long m)
{
    if (*n >= cap)
        return -1;
    campaign_config *c = &out[(*n)++];
    c->bubble_cycles = b;
    c->partners = (int)p;
    c->messages = (int)m;
    campaign_config_id(b, (int)p, (int)m, c->id, sizeof c->id);
    return 0;
}

/* "B:P:M[,B:P:M...]" with B in CPU cycles (>= 0, e.g. 2.5e4), P >= 1 and
 * M in 1..1000.  0, or -1 with one line in err naming the bad entry. */
static int campaign_parse_configs(const char *spec, campaign_config *out, size_t cap, size_t *n,
                                  char *err, size_t errlen)
{
    *n = 0;
    if (!spec || !*spec) {
        snprintf(err, errlen, "--configs: empty list (expected B:P:M[,B:P:M...])");
        return -1;
    }
    const char *p = spec;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char item[80];
        if (len == 0 || len >= sizeof item) {
            snprintf(err, errlen, "--configs: entry %zu is empty or too long (expected B:P:M)",
                     *n + 1);
            return -1;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        char *s1 = NULL, *s2 = NULL, *s3 = NULL;
        double b = strtod(item, &s1);
        long pp = 0, mm = 0;
        int ok = s1 != item && *s1 == ':' && isfinite(b) && b >= 0 && b <= 1e12;
        if (ok) {
            pp = strtol(s1 + 1, &s2, 10);
            ok = s2 != s1 + 1 && *s2 == ':' && pp >= 1 && pp <= 100000;
        }
        if (ok) {
            mm = strtol(s2 + 1, &s3, 10);
            ok = s3 != s2 + 1 && *s3 == '\0' && mm >= 1 && mm <= 1000;
        }
        if (!ok) {
            snprintf(err, errlen, "--configs entry '%s': expected B:P:M with B cycles 0..1e12, "
                     "P partners >= 1 and M messages 1..1000", item);
            return -1;
        }
        if (add_config(out, cap, n, b, pp, mm)) {
            snprintf(err, errlen, "--configs: more than %zu configurations", cap);
            return -1;
        }
        p += len;
        if (*p == ',' && !*++p) {
            snprintf(err, errlen, "--configs: entry %zu is empty (trailing comma)", *n + 1);
            return -1;
        }
    }
    return 0;
}

/* Seed 000: Table 2's training sets 1..12 (B values accumulate, P in
 * 1..14,16,17, M in {1,10}) and section 4.3's 40 configurations. */
static const double table2_b[12] = {2.5e9, 2.5e8, 2.5e7, 2.5e6, 1.25e6, 2.5e5,
                                     1.25e5, 2.5e4, 1.25e4, 2.5e3, 1.25e3, 2.5e2};
static const int table2_p[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 17};
static const double paper40_b[4] = {2.5e4, 2.5e5, 2.5e6, 2.5e7};
static const int paper40_p[5] = {1, 4, 7, 14, 17};
static const int both_m[2] = {1, 10};

static int campaign_named_set(const char *name, campaign_config *out, size_t cap, size_t *n,
                              char *err, size_t errlen)
{
    *n = 0;
    int ok = 1;
    if (!strcmp(name, "paper40")) {
        for (int bi = 0; bi < 4; bi++)
            for (int pi = 0; pi < 5; pi++)
                for (int mi = 0; mi < 2; mi++)
                    ok &= !add_config(out, cap, n, paper40_b[bi], paper40_p[pi], both_m[mi]);
        return ok ? 0 : -1;
    }
    char *end;
    long k = !strncmp(name, "set", 3) ? strtol(name + 3, &end, 10) : 0;
    if (k < 1 || k > 12 || *end || end == name + 3) {
        snprintf(err, errlen, "--set '%.40s': must be set1 .. set12 (seed 000, Table 2) or "
                 "paper40 (section 4.3)", name);
        return -1;
    }
    for (long bi = 0; bi < k; bi++)
        for (int pi = 0; pi < 16; pi++)
            for (int mi = 0; mi < 2; mi++)
                ok &= !add_config(out, cap, n, table2_b[bi], table2_p[pi], both_m[mi]);
    return ok ? 0 : -1;
}

/* Keeps the configurations whose P fits on the nodes (P <= nodes-1);
 * returns how many remain. */
static size_t campaign_fit_nodes(campaign_config *c, size_t n, int nodes)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (c[i].partners <= nodes - 1)
            c[k++] = c[i];
    return k;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of n > 0 values (sorts a copy of at most CAMPAIGN_MAX_REPEAT). */
static double campaign_median(const double *v, size_t n)
{
    double tmp[CAMPAIGN_MAX_REPEAT];
    if (n == 0 || n > CAMPAIGN_MAX_REPEAT)
        return 0;
    memcpy(tmp, v, n * sizeof *v);
    qsort(tmp, n, sizeof *tmp, cmp_double);
    return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

/* (T_with - T_alone) / T_alone in percent; 0 when T_alone is not > 0. */
static double campaign_slowdown_pct(double t_alone, double t_with)
{
    if (!(t_alone > 0) || !isfinite(t_with))
        return 0;
    double s = (t_with - t_alone) / t_alone * 100.0;
    return s < -100 ? -100 : s;
}

/* --------------------------------------------------------------- help */

static void usage(FILE *out)
{
    fprintf(out,
        "Usage: netvar campaign --model FILE --app KEY (--set NAME | --configs B:P:M,...)\n"
        "                       [--repeat N] [--duration-s S] [--ghz G] [--interval-us US]\n"
        "                       [--msg-bytes N] [--tasks-per-node T] [--timeout-s S]\n"
        "                       [--replace-points] [--dry-run] [--load-nodes LIST]\n"
        "                       [--runtime-key KEY] [launch options]\n"
        "                       [--] COMMAND [ARGS...]\n"
        "\n"
        "Measure an application's sensitivity to network load (seed 000, sections\n"
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
        "links COMMAND uses, as in seed 000 (CompressionB on other nodes of the same\n"
        "switch); a configuration's ImpactB then runs on COMMAND's nodes.\n"
        "\n"
        "Recorded in the model file (which must hold a calibration):\n"
        "  training_set  one entry per configuration: B, P, M, U, ImpactB latency,\n"
        "                and the slowdown of KEY under it (other apps' kept);\n"
        "  apps[KEY]     latency and utilization from the baseline's ImpactB, and the\n"
        "                compression points (U, slowdown %%, samples = repeats)\n"
        "                added to those it had; the p_A(U) fit is redone (isotonic).\n"
        "The slowdown is (median T_loaded - median T_alone) / median T_alone x 100 %%,\n"
        "T being COMMAND's wall time as launched, in seconds (or with --runtime-key\n"
        "the runtime it prints itself).  Small noisy runs can give negative\n"
        "slowdowns; the fit keeps the curve non-decreasing.\n"
        "\n"
        "Options:\n"
        "  --model FILE       model file with a calibration (required; updated in place)\n"
        "  --app KEY          app key, 1-%d of A-Z a-z 0-9 . _ + : / @ = - (required)\n"
        "  --set NAME         set1 .. set12 (seed 000, Table 2: B from 2.5e9 down to\n"
        "                     2.5e2 cycles, P in 1..14,16,17, M in 1,10) or paper40\n"
        "                     (section 4.3: B 2.5e4..2.5e7, P 1,4,7,14,17, M 1,10);\n"
        "                     configurations whose P exceeds nodes-1 are skipped\n"
        "  --configs LIST     custom set, B:P:M[,B:P:M...]: B sleep in CPU cycles,\n"
        "                     P partners (1..nodes-1; nodes of --load-nodes when given),\n"
        "                     M messages per partner (1..1000)\n"
        "  --repeat N         runs of COMMAND per configuration and alone (1..%d,\n"
        "                     default 1); medians are used\n"
        "  --duration-s S     ImpactB measurement per configuration, seconds (default 5)\n"
        "  --ghz G            clock rate turning B cycles into sleep time, GHz (default\n"
        "                     2.6, the paper's Cab): sleep_us = B / (G x 1000)\n"
        "  --msg-bytes N      CompressionB message size in bytes (default 40960)\n"
        "  --interval-us US   pause between ImpactB ping-pongs, microseconds (default 20000)\n"
        "  --tasks-per-node T tasks per node of COMMAND (default 1)\n"
        "  --timeout-s S      longest one run of COMMAND may take, seconds (default 3600)\n"
        "  --replace-points   drop the app's earlier compression points instead of\n"
        "                     adding to them\n"
        "  --dry-run          print the configurations that would run and exit\n"
        "  -h, --help         show this help\n"
        "\n",
        NV_MODEL_KEY_MAX, CAMPAIGN_MAX_REPEAT);
    fputs(nv_run_placement_help, out);
    fputs("\n", out);
    fputs(nv_run_options_help, out);
    fprintf(out,
        "\n"
        "Output (JSON on stdout): app, model, load_nodes (\"\" = on COMMAND's nodes),\n"
        "runtime_source (\"wall\" or the --runtime-key), baseline {runtime_s [s],\n"
        "median_s}, app_latency {mean_us, sd_us (us), samples}, app_utilization (0..1),\n"
        "configs [{id, bubble_cycles, sleep_us (us), partners, messages, runtime_s\n"
        "[s], median_s, slowdown_pct (%%), injected_bytes_per_s (bytes/s per node),\n"
        "utilization (0..1), latency_mean_us, latency_sd_us (us)}], fit [{utilization,\n"
        "slowdown_pct}].\n"
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
        "      --runtime-key runtime_s -- netvar-proxy-cg --compute sleep\n");
}

static json_object *jd(double d)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%.6g", d);
    return json_object_new_double_s(d, buf);
}

/* ---------------------------------------------------------- measuring */

typedef struct config_result {
    double runtime_s[CAMPAIGN_MAX_REPEAT];
    double median_s, slowdown_pct;
    double bytes_per_s_sum;
    int bw_runs;
    nv_latency_summary lat;
    nv_utilization u;
    size_t lat_samples;
} config_result;

typedef struct campaign {
    nv_run_plan plan;
    const char *const *cmd;
    size_t ncmd;
    double timeout_s, duration_s, ghz;
    long interval_us, msg_bytes;
    const nv_calibration *cal;
} campaign;

static void compressionb_args(const campaign *cp, const campaign_config *cfg, char bufs[4][32],
                              const char *args[8])
{
    snprintf(bufs[0], 32, "%d", cfg->partners);
    snprintf(bufs[1], 32, "%d", cfg->messages);
    snprintf(bufs[2], 32, "%.17g", cfg->bubble_cycles);
    snprintf(bufs[3], 32, "%ld", cp->msg_bytes);
    args[0] = "--partners";
    args[1] = bufs[0];
    args[2] = "--messages";
    args[3] = bufs[1];
    args[4] = "--cycles";
    args[5] = bufs[2];
    args[6] = "--msg-bytes";
    args[7] = bufs[3];
}

static char ghz_text[32];

/* One run of the command beside a started probe; the probe is stopped and
 * its output returned (malloc'd) in *probe_text. */
static int run_beside(const campaign *cp, nv_child *probe, const char *name, double *runtime_s,
                      char **probe_text, size_t *len, char *err, size_t errlen)
{
    char cerr[600] = "";
    int crc = nv_run_command(&cp->plan, cp->cmd, cp->ncmd, name, cp->timeout_s, runtime_s, cerr,
                             sizeof cerr);
    *probe_text = nv_probe_finish(probe, &cp->plan, 1, 0, len, err, errlen);
    if (crc) {
        snprintf(err, errlen, "%s", cerr);
        free(*probe_text);
        *probe_text = NULL;
        return -1;
    }
    return *probe_text ? 0 : -1;
}

/* Baseline run r: ImpactB beside the command; its samples are appended. */
static int run_baseline(const campaign *cp, int r, double *runtime_s, double **samples,
                        size_t *n_samples, char *err, size_t errlen)
{
    char ivl[32], name[48];
    snprintf(ivl, sizeof ivl, "%ld", cp->interval_us);
    snprintf(name, sizeof name, "impactb-baseline-%d", r + 1);
    const char *args[] = {"--interval-us", ivl, "--samples"};
    nv_child probe;
    if (nv_probe_start(&probe, &cp->plan, cp->plan.impactb, name, args, 3, err, errlen))
        return -1;
    char *text = NULL;
    size_t len = 0;
    snprintf(name, sizeof name, "command-baseline-%d", r + 1);
    if (run_beside(cp, &probe, name, runtime_s, &text, &len, err, errlen))
        return -1;
    nv_impactb_result ib;
    char perr[300];
    int rc = nv_impactb_parse(text, len, &ib, perr, sizeof perr);
    free(text);
    if (rc) {
        snprintf(err, errlen, "ImpactB beside the baseline: %s", perr);
        return -1;
    }
    if (ib.n_samples) {
        double *grown = realloc(*samples, (*n_samples + ib.n_samples) * sizeof **samples);
        if (!grown) {
            nv_impactb_result_free(&ib);
            snprintf(err, errlen, "out of memory for ImpactB samples");
            return -1;
        }
        memcpy(grown + *n_samples, ib.samples_us, ib.n_samples * sizeof *grown);
        *samples = grown;
        *n_samples += ib.n_samples;
    }
    nv_impactb_result_free(&ib);
    return 0;
}

/* Run r of the command under configuration i. */
static int run_loaded(const campaign *cp, const campaign_config *cfg, int r, config_result *res,
                      char *err, size_t errlen)
{
    char bufs[4][32], name[96];
    const char *args[10];
    compressionb_args(cp, cfg, bufs, args);
    args[8] = "--ghz";
    args[9] = ghz_text;
    snprintf(name, sizeof name, "compressionb-%s-%d", cfg->id, r + 1);
    nv_child probe;
    if (nv_probe_start(&probe, &cp->plan, cp->plan.compressionb, name, args, 10, err, errlen))
        return -1;
    char *text = NULL;
    size_t len = 0;
    snprintf(name, sizeof name, "command-%s-%d", cfg->id, r + 1);
    if (run_beside(cp, &probe, name, &res->runtime_s[r], &text, &len, err, errlen))
        return -1;
    nv_compressionb_result cb;
    char perr[300];
    int rc = nv_compressionb_parse(text, len, &cb, perr, sizeof perr);
    free(text);
    if (rc) {
        snprintf(err, errlen, "CompressionB %s: %s", cfg->id, perr);
        return -1;
    }
    res->bytes_per_s_sum += cb.mean_bytes_per_s;
    res->bw_runs++;
    return 0;
}

/* Configuration i alone for duration_s with ImpactB beside it. */
static int characterize(const campaign *cp, const campaign_config *cfg, config_result *res,
                        char *err, size_t errlen)
{
    char bufs[4][32], name[96];
    const char *args[10];
    compressionb_args(cp, cfg, bufs, args);
    args[8] = "--ghz";
    args[9] = ghz_text;
    snprintf(name, sizeof name, "compressionb-%s-characterize", cfg->id);
    nv_child load;
    if (nv_probe_start(&load, &cp->plan, cp->plan.compressionb, name, args, 10, err, errlen))
        return -1;
    char dur[32], ivl[32];
    snprintf(dur, sizeof dur, "%g", cp->duration_s);
    snprintf(ivl, sizeof ivl, "%ld", cp->interval_us);
    const char *iargs[] = {"--duration-s", dur, "--interval-us", ivl, "--samples"};
    snprintf(name, sizeof name, "impactb-%s", cfg->id);
    nv_child probe;
    char *itext = NULL, *ctext = NULL;
    size_t ilen = 0, clen = 0;
    /* across from the load: on COMMAND's nodes when the load is placed */
    if (nv_probe_start_on(&probe, &cp->plan, NV_SIDE_APP, cp->plan.impactb, name, iargs, 5, err,
                          errlen)) {
        nv_child_stop(&load, 5);
        return -1;
    }
    itext = nv_probe_finish(&probe, &cp->plan, 0, cp->duration_s + cp->plan.launch_timeout_s,
                            &ilen, err, errlen);
    char cerr[300] = "";
    ctext = nv_probe_finish(&load, &cp->plan, 1, 0, &clen, cerr, sizeof cerr);
    int rc = -1;
    nv_impactb_result ib = {0};
    nv_compressionb_result cb;
    char perr[300];
    if (!itext)
        goto done;
    if (!ctext) {
        snprintf(err, errlen, "%s", cerr);
        goto done;
    }
    if (nv_impactb_parse(itext, ilen, &ib, perr, sizeof perr)) {
        snprintf(err, errlen, "ImpactB beside %s: %s", cfg->id, perr);
        goto done;
    }
    if (nv_compressionb_parse(ctext, clen, &cb, perr, sizeof perr)) {
        snprintf(err, errlen, "CompressionB %s: %s", cfg->id, perr);
        goto done;
    }
    res->bytes_per_s_sum += cb.mean_bytes_per_s;
    res->bw_runs++;
    if (nv_run_app_utilization(cp->cal, ib.samples_us, ib.n_samples, &res->lat, &res->u)) {
        snprintf(err, errlen, "ImpactB beside %s took no latency sample in %g s (use a longer "
                 "--duration-s or a smaller --interval-us)", cfg->id, cp->duration_s);
        goto done;
    }
    res->lat_samples = ib.n_samples;
    rc = 0;
done:
    nv_impactb_result_free(&ib);
    free(itext);
    free(ctext);
    return rc;
}

/* --------------------------------------------------------- the model */

static int save_model(const char *model_path, const nv_model *model, const char *app,
                      const campaign_config *cfg, const config_result *res, size_t ncfg,
                      int repeat, const nv_latency_summary *app_lat, const nv_utilization *app_u,
                      int replace_points, nv_curve_point *fit_out, size_t *n_fit_out, char *err,
                      size_t errlen)
{
    int rc = -1;
    nv_model_builder *b = nv_builder_from_model(model);
    nv_curve_point *pts = NULL;
    const char **apps = NULL;
    double *pct = NULL;
    nv_model *check = NULL;
    if (!b) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    int32_t idx = nv_model_app_index(model, app);
    nv_app_view v = {0};
    if (idx >= 0)
        nv_model_app(model, idx, &v);
    size_t keep = replace_points || idx < 0 ? 0 : v.n_points;
    pts = malloc((keep + ncfg) * sizeof *pts);
    if (!pts) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    if (keep)
        memcpy(pts, v.points, keep * sizeof *pts);
    for (size_t i = 0; i < ncfg; i++)
        pts[keep + i] = (nv_curve_point){.utilization = res[i].u.rho,
                                         .slowdown_pct = res[i].slowdown_pct,
                                         .weight = repeat};
    nv_app_input in = {.key = app, .utilization = app_u->rho,
                       .utilization_source = NV_USRC_LATENCY, .latency = app_lat,
                       .points = pts, .n_points = keep + ncfg,
                       .scaling = idx >= 0 ? v.scaling : NULL, .n_scaling = idx >= 0 ? v.n_scaling : 0};
    if (nv_builder_add_app(b, &in)) {
        snprintf(err, errlen, "%s", nv_builder_error(b));
        goto done;
    }
    for (size_t i = 0; i < ncfg; i++) {
        /* keep the other apps' slowdowns an earlier campaign measured under it */
        size_t n_old = 0;
        nv_config_view cv;
        int32_t ci = -1;
        for (size_t k = 0; k < nv_model_config_count(model); k++)
            if (nv_model_config(model, (int32_t)k, &cv) == 0 && !strcmp(cv.id, cfg[i].id)) {
                ci = (int32_t)k;
                n_old = cv.n_slowdowns;
                break;
            }
        free(apps);
        free(pct);
        apps = malloc((n_old + 1) * sizeof *apps);
        pct = malloc((n_old + 1) * sizeof *pct);
        if (!apps || !pct) {
            snprintf(err, errlen, "out of memory");
            goto done;
        }
        size_t n = 0;
        for (size_t k = 0; k < n_old; k++) {
            int32_t a;
            double s;
            nv_app_view av;
            if (nv_model_config_slowdown(model, ci, k, &a, &s) || nv_model_app(model, a, &av) ||
                !strcmp(av.key, app))
                continue;
            apps[n] = av.key;
            pct[n++] = s;
        }
        apps[n] = app;
        pct[n++] = res[i].slowdown_pct;
        nv_config_input ci_in = {.id = cfg[i].id, .bubble_cycles = cfg[i].bubble_cycles,
                                 .partners = (uint32_t)cfg[i].partners,
                                 .messages = (uint32_t)cfg[i].messages,
                                 .utilization = res[i].u.rho, .latency = &res[i].lat,
                                 .n_slowdowns = n, .slowdown_apps = apps, .slowdown_pct = pct};
        if (nv_builder_add_config(b, &ci_in)) {
            snprintf(err, errlen, "%s", nv_builder_error(b));
            goto done;
        }
    }
    if (nv_builder_save(b, model_path, err, errlen))
        goto done;
    /* report the fit as the saved model holds it */
    check = nv_builder_build(b, err, errlen);
    *n_fit_out = 0;
    if (check) {
        nv_app_view nv;
        int32_t j = nv_model_app_index(check, app);
        if (j >= 0 && nv_model_app(check, j, &nv) == 0)
            for (size_t k = 0; k < nv.n_fit && k < CAMPAIGN_MAX_CONFIGS; k++)
                fit_out[(*n_fit_out)++] = nv.fit[k];
    }
    rc = 0;
done:
    nv_model_free(check);
    nv_builder_free(b);
    free(pts);
    free(apps);
    free(pct);
    return rc;
}

/* ---------------------------------------------------------------- verb */

int verb_campaign(int argc, char **argv)
{
    static const struct option opts[] = {
        {"model", required_argument, NULL, 'm'},
        {"app", required_argument, NULL, 'a'},
        {"set", required_argument, NULL, 's'},
        {"configs", required_argument, NULL, 'c'},
        {"repeat", required_argument, NULL, 'r'},
        {"duration-s", required_argument, NULL, 'd'},
        {"ghz", required_argument, NULL, 'g'},
        {"msg-bytes", required_argument, NULL, 'b'},
        {"interval-us", required_argument, NULL, 'i'},
        {"tasks-per-node", required_argument, NULL, 't'},
        {"timeout-s", required_argument, NULL, 'T'},
        {"replace-points", no_argument, NULL, 'R'},
        {"dry-run", no_argument, NULL, 'n'},
        {"help", no_argument, NULL, 'h'},
        NV_RUN_LONG_OPTIONS,
        NV_RUN_PLACEMENT_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    static campaign_config cfg[CAMPAIGN_MAX_CONFIGS];
    static config_result res[CAMPAIGN_MAX_CONFIGS];
    static nv_curve_point fit[CAMPAIGN_MAX_CONFIGS];
    campaign cp = {.timeout_s = 3600, .duration_s = 5, .ghz = 2.6, .interval_us = 20000,
                   .msg_bytes = 40960};
    nv_run_plan_defaults(&cp.plan);
    const char *model_path = NULL, *app = NULL, *set = NULL, *configs = NULL, *keep = NULL;
    long repeat = 1, tpn = 1;
    int replace_points = 0, dry_run = 0;
    char err[700] = "";
    int c;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
        int bad = 0;
        switch (c) {
        case 'm': model_path = optarg; break;
        case 'a': app = optarg; break;
        case 's': set = optarg; break;
        case 'c': configs = optarg; break;
        case 'r': bad = nv_parse_count("--repeat", optarg, 1, CAMPAIGN_MAX_REPEAT, &repeat, err, sizeof err); break;
        case 'd': bad = nv_parse_seconds("--duration-s", optarg, &cp.duration_s, err, sizeof err); break;
        case 'g': {
            char *end;
            cp.ghz = strtod(optarg, &end);
            if (end == optarg || *end || !(cp.ghz >= 0.01 && cp.ghz <= 100)) {
                snprintf(err, sizeof err, "--ghz '%.40s': must be a clock rate from 0.01 to 100 GHz", optarg);
                bad = -1;
            }
            break;
        }
        case 'b': bad = nv_parse_count("--msg-bytes", optarg, 1, 64L << 20, &cp.msg_bytes, err, sizeof err); break;
        case 'i': bad = nv_parse_count("--interval-us", optarg, 0, 60000000L, &cp.interval_us, err, sizeof err); break;
        case 't': bad = nv_parse_count("--tasks-per-node", optarg, 1, 1024, &tpn, err, sizeof err); break;
        case 'T': bad = nv_parse_seconds("--timeout-s", optarg, &cp.timeout_s, err, sizeof err); break;
        case 'R': replace_points = 1; break;
        case 'n': dry_run = 1; break;
        case 'h': usage(stdout); return 0;
        default:
            bad = nv_run_plan_option(&cp.plan, c, optarg, &keep, err, sizeof err);
            if (bad == 1) {
                snprintf(err, sizeof err, "unknown or incomplete option '%s'; see --help",
                         argv[optind - 1]);
                bad = -1;
            }
        }
        if (bad) {
            fprintf(stderr, "%s: %s; nothing run\n", VERB, err);
            return 2;
        }
    }
    cp.plan.app_tasks_per_node = (int)tpn;
    snprintf(ghz_text, sizeof ghz_text, "%.17g", cp.ghz);
    if (!!set == !!configs) {
        fprintf(stderr, "%s: give exactly one of --set NAME and --configs B:P:M,...; nothing run\n", VERB);
        return 2;
    }
    size_t ncfg = 0;
    if (set ? campaign_named_set(set, cfg, CAMPAIGN_MAX_CONFIGS, &ncfg, err, sizeof err)
            : campaign_parse_configs(configs, cfg, CAMPAIGN_MAX_CONFIGS, &ncfg, err, sizeof err)) {
        fprintf(stderr, "%s: %s; nothing run\n", VERB, err);
        return 2;
    }
    if (!dry_run && (!model_path || !app)) {
        fprintf(stderr, "%s: --model FILE and --app KEY are required; nothing run\n", VERB);
        return 2;
    }
    if (app && !nv_model_key_valid(app)) {
        fprintf(stderr, "%s: --app '%.60s': not a valid app key (1-%d of A-Z a-z 0-9 . _ + : / @ "
                        "= -); nothing run\n", VERB, app, NV_MODEL_KEY_MAX);
        return 2;
    }
    if (!dry_run && optind >= argc) {
        fprintf(stderr, "%s: no command given (put it after the options, or after --); "
                        "nothing run\n", VERB);
        return 2;
    }
    cp.cmd = (const char *const *)argv + optind;
    cp.ncmd = (size_t)(argc - optind);
    if (nv_run_plan_check(&cp.plan, 2, !dry_run, err, sizeof err)) {
        fprintf(stderr, "%s: %s; nothing run\n", VERB, err);
        return 2;
    }
    /* CompressionB's partners are among the load's nodes */
    int nodes = nv_run_side_nodes(&cp.plan, NV_SIDE_LOAD);
    if (configs) {
        for (size_t i = 0; i < ncfg; i++)
            if (cfg[i].partners > nodes - 1) {
                fprintf(stderr, "%s: --configs %s: P=%d partners needs at least %d nodes, the %s "
                        "has %d (P must be 1..%d); nothing run\n", VERB, cfg[i].id,
                        cfg[i].partners, cfg[i].partners + 1,
                        cp.plan.n_load_nodes ? "--load-nodes list" : "run", nodes, nodes - 1);
                return 2;
            }
    } else {
        size_t all = ncfg;
        ncfg = campaign_fit_nodes(cfg, ncfg, nodes);
        if (!ncfg) {
            fprintf(stderr, "%s: --set %s: every configuration needs more than %d nodes; nothing "
                            "run\n", VERB, set, nodes);
            return 2;
        }
        if (ncfg < all)
            fprintf(stderr, "netvar: campaign: --set %s: %zu of %zu configurations need more than "
                            "%d nodes (P > %d) and are skipped\n", set, all - ncfg, all, nodes,
                    nodes - 1);
    }
    if (dry_run) {
        json_object *a = json_object_new_array();
        for (size_t i = 0; i < ncfg; i++) {
            json_object *o = json_object_new_object();
            json_object_object_add(o, "id", json_object_new_string(cfg[i].id));
            json_object_object_add(o, "bubble_cycles", jd(cfg[i].bubble_cycles));
            json_object_object_add(o, "sleep_us", jd(cfg[i].bubble_cycles / (cp.ghz * 1e3)));
            json_object_object_add(o, "partners", json_object_new_int(cfg[i].partners));
            json_object_object_add(o, "messages", json_object_new_int(cfg[i].messages));
            json_object_array_add(a, o);
        }
        printf("%s\n", json_object_to_json_string_ext(a, JSON_C_TO_STRING_PRETTY));
        json_object_put(a);
        return 0;
    }
    nv_model *model = NULL;
    if (nv_run_load_model_if_any(model_path, &model, err, sizeof err) || !model) {
        fprintf(stderr, "%s: %s; nothing run\n", VERB,
                err[0] ? err : "the model file does not exist: run netvar calibrate first");
        nv_model_free(model);
        return 1;
    }
    cp.cal = nv_model_calibration(model);

    nv_run_catch_signals();
    int rc = 1;
    double base_s[CAMPAIGN_MAX_REPEAT];
    double *app_samples = NULL;
    size_t n_app_samples = 0;
    memset(res, 0, ncfg * sizeof *res);
    if (nv_run_work_dir(&cp.plan, keep, "campaign", err, sizeof err)) {
        fprintf(stderr, "%s: %s; nothing run\n", VERB, err);
        goto out;
    }
    for (int r = 0; r < repeat; r++) {
        if (run_baseline(&cp, r, &base_s[r], &app_samples, &n_app_samples, err, sizeof err)) {
            fprintf(stderr, "%s: baseline run %d: %s; model not changed\n", VERB, r + 1, err);
            goto out;
        }
        for (size_t i = 0; i < ncfg; i++)
            if (run_loaded(&cp, &cfg[i], r, &res[i], err, sizeof err)) {
                fprintf(stderr, "%s: run %d under %s: %s; model not changed\n", VERB, r + 1,
                        cfg[i].id, err);
                goto out;
            }
    }
    for (size_t i = 0; i < ncfg; i++)
        if (characterize(&cp, &cfg[i], &res[i], err, sizeof err)) {
            fprintf(stderr, "%s: %s; model not changed\n", VERB, err);
            goto out;
        }
    double base_median = campaign_median(base_s, (size_t)repeat);
    for (size_t i = 0; i < ncfg; i++) {
        res[i].median_s = campaign_median(res[i].runtime_s, (size_t)repeat);
        res[i].slowdown_pct = campaign_slowdown_pct(base_median, res[i].median_s);
    }
    nv_latency_summary app_lat;
    nv_utilization app_u;
    if (nv_run_app_utilization(cp.cal, app_samples, n_app_samples, &app_lat, &app_u)) {
        fprintf(stderr, "%s: ImpactB took no latency sample beside the baseline runs; run the "
                        "command longer or use a smaller --interval-us; model not changed\n", VERB);
        goto out;
    }
    size_t n_fit = 0;
    if (save_model(model_path, model, app, cfg, res, ncfg, (int)repeat, &app_lat, &app_u,
                   replace_points, fit, &n_fit, err, sizeof err)) {
        fprintf(stderr, "%s: %s; model not changed\n", VERB, err);
        goto out;
    }

    json_object *o = json_object_new_object(), *jb = json_object_new_object(),
                *jbr = json_object_new_array(), *jl = json_object_new_object(),
                *jc = json_object_new_array(), *jf = json_object_new_array();
    json_object_object_add(o, "app", json_object_new_string(app));
    json_object_object_add(o, "model", json_object_new_string(model_path));
    json_object_object_add(o, "load_nodes", json_object_new_string(cp.plan.load_nodes));
    json_object_object_add(o, "runtime_source",
                           json_object_new_string(cp.plan.runtime_key ? cp.plan.runtime_key : "wall"));
    for (int r = 0; r < repeat; r++)
        json_object_array_add(jbr, jd(base_s[r]));
    json_object_object_add(jb, "runtime_s", jbr);
    json_object_object_add(jb, "median_s", jd(base_median));
    json_object_object_add(o, "baseline", jb);
    json_object_object_add(jl, "mean_us", jd(app_lat.mean_us));
    json_object_object_add(jl, "sd_us", jd(app_lat.sd_us));
    json_object_object_add(jl, "samples", json_object_new_int64((int64_t)n_app_samples));
    json_object_object_add(o, "app_latency", jl);
    json_object_object_add(o, "app_utilization", jd(app_u.rho));
    for (size_t i = 0; i < ncfg; i++) {
        json_object *e = json_object_new_object(), *rt = json_object_new_array();
        json_object_object_add(e, "id", json_object_new_string(cfg[i].id));
        json_object_object_add(e, "bubble_cycles", jd(cfg[i].bubble_cycles));
        json_object_object_add(e, "sleep_us", jd(cfg[i].bubble_cycles / (cp.ghz * 1e3)));
        json_object_object_add(e, "partners", json_object_new_int(cfg[i].partners));
        json_object_object_add(e, "messages", json_object_new_int(cfg[i].messages));
        for (int r = 0; r < repeat; r++)
            json_object_array_add(rt, jd(res[i].runtime_s[r]));
        json_object_object_add(e, "runtime_s", rt);
        json_object_object_add(e, "median_s", jd(res[i].median_s));
        json_object_object_add(e, "slowdown_pct", jd(res[i].slowdown_pct));
        json_object_object_add(e, "injected_bytes_per_s",
                               jd(res[i].bw_runs ? res[i].bytes_per_s_sum / res[i].bw_runs : 0));
        json_object_object_add(e, "utilization", jd(res[i].u.rho));
        json_object_object_add(e, "latency_mean_us", jd(res[i].lat.mean_us));
        json_object_object_add(e, "latency_sd_us", jd(res[i].lat.sd_us));
        json_object_object_add(e, "latency_samples", json_object_new_int64((int64_t)res[i].lat_samples));
        json_object_array_add(jc, e);
    }
    json_object_object_add(o, "configs", jc);
    for (size_t k = 0; k < n_fit; k++) {
        json_object *e = json_object_new_object();
        json_object_object_add(e, "utilization", jd(fit[k].utilization));
        json_object_object_add(e, "slowdown_pct", jd(fit[k].slowdown_pct));
        json_object_array_add(jf, e);
    }
    json_object_object_add(o, "fit", jf);
    printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
    rc = 0;
out:
    if (cp.plan.work_dir[0]) {
        nv_run_work_dir_cleanup(&cp.plan, keep != NULL || rc != 0);
        if (rc && !keep)
            fprintf(stderr, "netvar: campaign: launch logs kept in %s\n", cp.plan.work_dir);
    }
    free(app_samples);
    nv_model_free(model);
    return rc;
}
