/* advice_eval.c - netvar-advice-eval: accuracy of the communication-time
 * trees (lib/alloc, lib/alloctrain) per predictor class, and the decision
 * score of the advice, as *Communication time prediction* §5 reports them
 * (mean relative error, R^2, RCC; best N x PPN found in 8 of 10 cases).
 * Prints figures, asserts nothing.
 *
 *   netvar-advice-eval --synthetic [--seed N] [--small] [--json]
 *       a SYNTHETIC cluster (8 leaf switches of 8 nodes in 2 groups, 10 Gb/s
 *       node links, uplinks of 2 node links, 8 % log-normal noise) and a
 *       SYNTHETIC network model; the trees learn from a halo benchmark sweep
 *       and are tested on a strong-scaled 3-D Jacobi the training never saw
 *       (held out: every Jacobi row, as the paper trains on its benchmark and
 *       tests on 3-D Jacobi); decision: 4 problem sizes x 24 N x PPN.
 *   netvar-advice-eval --dataset FILE [--dataset FILE...] [--json]
 *       measured data (netvar alloc sweep): leave one configuration out (N x
 *       PPN x switches spanned: every size and repetition of it is predicted
 *       by trees that never saw it), or with --holdout size one message size; decision: for each kernel, message size and rank count P,
 *       the N x PPN x placement of the P ranks (a kernel without compute is
 *       fastest on one rank, so only placements of the same P compete). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc_features.h"
#include "alloc_model.h"
#include "alloc_train.h"
#include "metrics.h"
#include "model.h"
#include "nv_json.h"

static uint64_t rng = 88172645463325252ull;
static double unif(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}
static double gauss(void)
{
    double u = unif(), v = unif();
    return sqrt(-2 * log(u + 1e-300)) * cos(6.283185307179586 * v);
}

/* ---- the SYNTHETIC network ---- */
#define SW 8
#define PER_SW 8
static const double NODE_BPS = 1.25e9, UPLINK_BPS = 2.5e9, GROUP_BPS = 5e9, MEM_BPS = 8e9;

static double synthetic_comm(const double *x, double noise_sd)
{
    double S = x[NV_AF_MAX_S], N = x[NV_AF_N], ppn = x[NV_AF_PPN];
    double t_inj = x[NV_AF_MAX_NT] / NODE_BPS + x[NV_AF_MAX_NI] * 1.5e-6;
    double t_up = x[NV_AF_MAX_INTER_ST] / UPLINK_BPS, t_grp = x[NV_AF_MAX_INTER_GT] / GROUP_BPS;
    double t_mem = x[NV_AF_MAX_INT] / MEM_BPS * (1 + 0.1 * ppn);
    double hops = N <= 1 ? 0 : x[NV_AF_SWITCHES] <= 1 ? 1 : x[NV_AF_GROUPS] <= 1 ? 3 : 5;
    double t_lat = (S <= 8192 ? 1 : 2) * (1e-6 + 0.5e-6 * hops);
    double t = fmax(fmax(t_inj, t_up), fmax(t_grp, t_mem)) + t_lat + x[NV_AF_AVG_M] * 0.3e-6;
    return t * exp(noise_sd * gauss());
}

/* N nodes placed: pack (fewest switches), spread (round robin over all
 * switches), or random switch counts */
static void place(uint32_t N, int how, nv_alloc_layout *l)
{
    uint32_t cap[SW], grp[SW];
    for (int j = 0; j < SW; j++) {
        cap[j] = PER_SW;
        grp[j] = (uint32_t)(j / 4);
    }
    if (how == 0) {
        nv_alloc_layout_pack(N, cap, grp, SW, l);
        return;
    }
    uint32_t got[SW] = {0}, left = N;
    int width = how == 1 ? SW : 1 + (int)(unif() * SW);
    while ((uint32_t)width * PER_SW < N)
        width++;
    for (int j = 0; left; j = (j + 1) % width)
        if (got[j] < PER_SW) {
            got[j]++;
            left--;
        }
    memset(l, 0, sizeof *l);
    for (int j = 0; j < SW; j++)
        if (got[j]) {
            l->nodes[l->n_switches] = got[j];
            l->group[l->n_switches++] = grp[j];
        }
}

static int add_row(nv_alloc_dataset *d, const char *app, uint32_t N, uint32_t ppn,
                   const nv_alloc_layout *l, const nv_alloc_pattern *p, double runtime_compute_s)
{
    nv_alloc_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.app, sizeof r.app, "%s", app);
    r.nodes = N;
    r.ppn = ppn;
    r.layout = (nv_alloc_layout *)l;
    r.pattern = *p;
    double x[NV_AF_COUNT];
    if (nv_alloc_features_pattern(p, l, ppn, x))
        return -1;
    r.comm_s = synthetic_comm(x, 0.08);
    r.runtime_s = runtime_compute_s;
    snprintf(r.config, sizeof r.config, "N%uxPPN%u S%.0f sw%zu", N, ppn, p->o[0].bytes,
             l->n_switches);
    char err[200];
    return nv_alloc_dataset_add(d, &r, err, sizeof err);
}

/* 3-D Jacobi of side n doubles on P ranks: faces of (n^3/P)^(2/3) doubles */
static void jacobi(uint32_t P, double n, nv_alloc_pattern *p)
{
    nv_alloc_pattern_halo(P, 3, 8 * pow(n * n * n / P, 2.0 / 3.0), p);
}

static const uint32_t NS[] = {1, 2, 4, 8, 16, 32}, PPNS[] = {1, 2, 4, 8};

static void synthetic(nv_alloc_dataset *train, nv_alloc_dataset *test, int small)
{
    snprintf(train->source, sizeof train->source, "SYNTHETIC halo benchmark sweep");
    snprintf(test->source, sizeof test->source, "SYNTHETIC 3-D Jacobi (held out)");
    static const double sizes[] = {64, 512, 2048, 8192, 32768, 131072, 524288, 2097152};
    int reps = small ? 1 : 2;
    for (size_t a = 0; a < 6; a++)
        for (size_t b = 0; b < 4; b++)
            for (size_t s = 0; s < 8; s += small ? 2 : 1)
                for (int dims = 1; dims <= 3; dims++)
                    for (int how = 0; how < 3; how++)
                        for (int r = 0; r < reps; r++) {
                            nv_alloc_layout l;
                            nv_alloc_pattern p;
                            place(NS[a], how, &l);
                            nv_alloc_pattern_halo(NS[a] * PPNS[b], dims, sizes[s], &p);
                            add_row(train, "benchmark", NS[a], PPNS[b], &l, &p, NAN);
                        }
    static const double sides[] = {128, 256, 512, 1024};
    for (size_t k = 0; k < 4; k++)
        for (size_t a = 0; a < 6; a++)
            for (size_t b = 0; b < 4; b++)
                for (int how = 0; how < 2; how++) {
                    nv_alloc_layout l;
                    nv_alloc_pattern p;
                    place(NS[a], how, &l);
                    jacobi(NS[a] * PPNS[b], sides[k], &p);
                    char app[32];
                    snprintf(app, sizeof app, "jacobi3d-%.0f", sides[k]);
                    /* compute over 1000 phases: 10 flops per point at 1 Gflop/s per rank,
                     * split over the ranks, slower by 25 % per extra rank on a node
                     * (shared memory bandwidth); known exactly, as the paper's
                     * perfect compute predictor */
                    add_row(test, app, NS[a], PPNS[b], &l, &p,
                            1000 * 10 * pow(sides[k], 3) / 1e9 / (NS[a] * PPNS[b]) *
                                (1 + 0.25 * (PPNS[b] - 1)));
                }
}

/* ---- scoring ---- */

typedef struct score {
    double mre, r2, rcc;
    size_t n;
} score;

static int predict_rows(const nv_alloc_dataset *train, const size_t *idx, size_t nidx,
                        nv_alloc_class cls, double partition, const nv_alloc_train_params *p,
                        const nv_alloc_dataset *test, const size_t *tidx, size_t ntidx,
                        double *pred)
{
    nv_alloc_model *m = nv_alloc_new();
    char err[400];
    int parts = isinf(partition) ? 1 : 2;
    double edges[3] = {0, partition, INFINITY};
    for (int k = 0; k < parts; k++) {
        double lo = parts == 1 ? 0 : edges[k], hi = parts == 1 ? INFINITY : edges[k + 1];
        if (nv_alloc_train_class(train, idx, nidx, cls, lo, hi, p, m, err, sizeof err) < 0) {
            /* a partition without rows: the other partition answers */
            continue;
        }
    }
    if (nv_alloc_finish(m, err, sizeof err) || nv_alloc_predictor_count(m) == 0) {
        nv_alloc_free(m);
        return -1;
    }
    for (size_t i = 0; i < ntidx; i++) {
        const nv_alloc_row *r = &test->rows[tidx ? tidx[i] : i];
        double t = NAN;
        if (nv_alloc_predict(m, cls, r->x, &t, NULL)) /* no partition holds it: the first answers */
            t = exp(nv_alloc_predictor_eval(m, nv_alloc_predictor_at(m, 0), r->x));
        pred[i] = t;
    }
    nv_alloc_free(m);
    return 0;
}

static score score_of(const double *meas, const double *pred, size_t n)
{
    nv_error_summary s;
    score o = {NAN, NAN, NAN, n};
    if (nv_error_summary_of(meas, pred, n, &s) == 0) {
        o.mre = s.rel_mean_pct;
        o.r2 = s.r2_defined ? s.r2 : NAN;
        o.rcc = s.rcc;
    }
    return o;
}

static int holdout_config = 1; /* measured data: 1 leave one configuration out, 0 one size */

/* the held-out group of a row: its message size, or its N x PPN x switches */
static double group_of(const nv_alloc_row *r)
{
    return holdout_config ? r->x[NV_AF_N] * 1e6 + r->x[NV_AF_PPN] * 1e3 + r->x[NV_AF_SWITCHES]
                          : r->x[NV_AF_MAX_S];
}

static int has_traffic(const nv_alloc_row *r)
{
    return r->x[NV_AF_MAX_NT] + r->x[NV_AF_MAX_INT] > 0;
}

static int same_case(const nv_alloc_row *a, const nv_alloc_row *b, int synth, int by_n)
{
    if (!synth) /* how to place P ranks of one kernel and message size */
        return !strcmp(a->app, b->app) && a->x[NV_AF_MAX_S] == b->x[NV_AF_MAX_S] &&
               a->nodes * a->ppn == b->nodes * b->ppn;
    return !strcmp(a->app, b->app) && (!by_n || a->nodes == b->nodes);
}

static const char *learner_name(nv_alloc_learner l)
{
    return l == NV_LEARN_XGBOOST ? "xgboost" : "extra-trees";
}

/* --load-time MODEL: the alloc section's size and the model's load time */
static int load_time(const char *path)
{
    char err[600];
    struct timespec a, b;
    nv_model *m = NULL;
    double best = INFINITY;
    for (int k = 0; k < 20; k++) {
        nv_model_free(m);
        clock_gettime(CLOCK_MONOTONIC, &a);
        m = nv_model_load(path, err, sizeof err);
        clock_gettime(CLOCK_MONOTONIC, &b);
        if (!m) {
            fprintf(stderr, "netvar-advice-eval: %s\n", err);
            return 1;
        }
        best =
            fmin(best, (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6);
    }
    const nv_alloc_model *am = nv_model_alloc(m);
    json_object *o = am ? nv_alloc_to_json(am) : NULL;
    size_t bytes = o ? strlen(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN)) : 0;
    printf(
        "%s: load %.2f ms (best of 20); alloc section: %zu predictors, %zu tree nodes (%zu bytes in memory "
        "at 24 per node), %zu apps, %zu switches, %zu bytes of JSON\n",
        path, best, nv_alloc_predictor_count(am), nv_alloc_node_count(am),
        nv_alloc_node_count(am) * 24, nv_alloc_app_count(am), nv_alloc_switch_count(am), bytes);
    json_object_put(o);
    nv_model_free(m);
    return 0;
}

int main(int argc, char **argv)
{
    int json = 0, synth = 0, small = 0;
    const char *files[32];
    size_t nf = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = 1;
        else if (!strcmp(argv[i], "--synthetic"))
            synth = 1;
        else if (!strcmp(argv[i], "--small"))
            small = 1;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            rng = strtoull(argv[++i], NULL, 10) * 2654435761u + 1;
        else if (!strcmp(argv[i], "--load-time") && i + 1 < argc)
            return load_time(argv[++i]);
        else if (!strcmp(argv[i], "--holdout") && i + 1 < argc)
            holdout_config = strcmp(argv[++i], "size") != 0;
        else if (!strcmp(argv[i], "--dataset") && i + 1 < argc && nf < 32)
            files[nf++] = argv[++i];
        else {
            fprintf(
                stderr,
                "usage: netvar-advice-eval (--synthetic [--seed N] [--small] | --dataset FILE... [--holdout config|size]) [--json]\n");
            return 2;
        }
    }
    if (!synth && !nf) {
        fprintf(stderr, "netvar-advice-eval: give --synthetic or --dataset FILE\n");
        return 2;
    }
    nv_alloc_dataset train, test;
    nv_alloc_dataset_init(&train);
    nv_alloc_dataset_init(&test);
    char err[600];
    if (synth) {
        synthetic(&train, &test, small);
    } else {
        for (size_t i = 0; i < nf; i++)
            if (nv_alloc_dataset_load(&train, files[i], err, sizeof err)) {
                fprintf(stderr, "netvar-advice-eval: %s\n", err);
                return 1;
            }
    }
    json_object *out = json_object_new_object(), *acc = json_object_new_array(),
                *dec = json_object_new_array();
    json_object_object_add(out, "data", json_object_new_string(synth ? "SYNTHETIC" : train.source));
    json_object_object_add(
        out, "held_out",
        json_object_new_string(synth ? "every row of the 3-D Jacobi app (never in training)"
                               : holdout_config ? "leave one configuration (N, PPN, switches) out"
                                                : "leave one message size out"));
    if (!json)
        printf(
            "data: %s; %zu training rows, %zu test rows\nheld out: %s\n\n", train.source, train.n,
            synth ? test.n : train.n,
            synth ? "every row of the 3-D Jacobi app (the training saw only the halo benchmark)"
            : holdout_config
                ? "leave one configuration out (every size and repetition of one N x PPN x "
                  "switches spanned; rows of one rank alone, which time only the clock, not scored)"
                : "leave one message size out (trees never saw the size they predict; rows of one "
                  "rank alone not scored)");
    if (!json)
        printf("%-12s %-5s %-10s %6s %9s %7s %7s\n", "learner", "class", "partition", "rows",
               "MRE %", "R^2", "RCC");
    size_t nt = synth ? test.n : train.n;
    double *meas = malloc(nt * sizeof *meas), *pred = malloc(nt * sizeof *pred);
    double *best_pred = malloc(nt * sizeof *best_pred);
    size_t *idx = malloc((train.n + 1) * sizeof *idx), *tidx = malloc((nt + 1) * sizeof *tidx);
    size_t *rowof = malloc((nt + 1) * sizeof *rowof),
           *best_rowof = malloc((nt + 1) * sizeof *best_rowof);
    double best_mre = INFINITY;
    size_t best_n = 0;
    for (int lr = 0; lr < 2; lr++)
        for (int cls = 0; cls < NV_ALLOC_CLASSES; cls++)
            for (int pt = 0; pt < 2; pt++) {
                nv_alloc_train_params p;
                nv_alloc_train_defaults(&p, (nv_alloc_learner)lr);
                double partition = pt ? 4096 : INFINITY;
                size_t n = 0;
                if (synth) {
                    if (predict_rows(&train, NULL, train.n, (nv_alloc_class)cls, partition, &p,
                                     &test, NULL, test.n, pred))
                        continue;
                    for (size_t i = 0; i < test.n; i++) {
                        meas[i] = test.rows[i].comm_s;
                        rowof[i] = i;
                    }
                    n = test.n;
                } else {
                    /* leave one group out: a message size, or a configuration */
                    double done[512];
                    size_t nd = 0;
                    for (size_t i = 0; i < train.n; i++) {
                        double s = group_of(&train.rows[i]);
                        int seen = 0;
                        for (size_t k = 0; k < nd; k++)
                            seen |= done[k] == s;
                        if (seen || nd >= 512)
                            continue;
                        done[nd++] = s;
                        size_t ni = 0, nti = 0;
                        for (size_t j = 0; j < train.n; j++) {
                            if (group_of(&train.rows[j]) != s)
                                idx[ni++] = j;
                            else if (has_traffic(&train.rows[j]))
                                tidx[nti++] = j; /* a rank alone times nothing but the clock */
                        }
                        if (nti == 0)
                            continue;
                        if (ni < 2 || predict_rows(&train, idx, ni, (nv_alloc_class)cls, partition,
                                                   &p, &train, tidx, nti, pred + n))
                            continue;
                        for (size_t k = 0; k < nti; k++) {
                            meas[n + k] = train.rows[tidx[k]].comm_s;
                            rowof[n + k] = tidx[k]; /* the row pred[n + k] is for */
                        }
                        n += nti;
                    }
                }
                score s = score_of(meas, pred, n);
                if (!json)
                    printf("%-12s %-5s %-10s %6zu %9.1f %7.3f %7.3f\n",
                           learner_name((nv_alloc_learner)lr),
                           nv_alloc_class_name((nv_alloc_class)cls), pt ? "<=4KiB/>" : "one", n,
                           s.mre, s.r2, s.rcc);
                json_object *e = json_object_new_object();
                json_object_object_add(e, "learner",
                                       json_object_new_string(learner_name((nv_alloc_learner)lr)));
                json_object_object_add(
                    e, "class", json_object_new_string(nv_alloc_class_name((nv_alloc_class)cls)));
                json_object_object_add(e, "partition_bytes", pt ? json_object_new_int(4096) : NULL);
                json_object_object_add(e, "rows", json_object_new_int64((int64_t)n));
                json_object_object_add(e, "mre_pct", nv_json_new_num_g(s.mre, 4));
                json_object_object_add(e, "r2", nv_json_new_num_g(s.r2, 4));
                json_object_object_add(e, "rcc", nv_json_new_num_g(s.rcc, 4));
                json_object_array_add(acc, e);
                if (cls == NV_ALLOC_CLASS_C && lr == 0 && isfinite(s.mre) && s.mre < best_mre) {
                    best_mre = s.mre;
                    memcpy(best_pred, pred, n * sizeof *pred);
                    memcpy(best_rowof, rowof, n * sizeof *rowof);
                    best_n = n;
                }
            }
    /* decision: per case, the configuration with the least predicted time;
     * cases: per app over every N x PPN x placement, then per app and N
     * (the choice of PPN and placement inside one node count); measured
     * data: per message size */
    int right = 0, cases = 0, right_n = 0, cases_n = 0;
    static double misses[4096];
    size_t nmiss = 0;
    double lost_sum = 0, lost_n = 0;
    const nv_alloc_dataset *D = synth ? &test : &train;
    for (int by_n = 0; by_n < (synth ? 2 : 1); by_n++) {
        if (!json)
            printf(
                "\ndecision (xgboost, class C)%s: fastest configuration, measured vs predicted\n",
                by_n ? " inside each node count" : "");
        for (size_t i = 0; isfinite(best_mre) && i < best_n; i++) {
            const nv_alloc_row *ri = &D->rows[best_rowof[i]];
            int first = 1;
            for (size_t j = 0; j < i && first; j++)
                first = !same_case(&D->rows[best_rowof[j]], ri, synth, by_n);
            if (!first)
                continue;
            double bm = INFINITY, bp = INFINITY, meas_at_pred = NAN;
            const char *cfg_m = "", *cfg_p = "";
            for (size_t j = 0; j < best_n; j++) {
                const nv_alloc_row *rj = &D->rows[best_rowof[j]];
                if (!same_case(rj, ri, synth, by_n))
                    continue;
                double compute = isfinite(rj->runtime_s) ? rj->runtime_s : 0;
                double phases = synth ? 1000 : 1;
                double tm = compute + phases * rj->comm_s, tp = compute + phases * best_pred[j];
                if (tm < bm) {
                    bm = tm;
                    cfg_m = rj->config;
                }
                if (tp < bp) {
                    bp = tp;
                    cfg_p = rj->config;
                    meas_at_pred = tm;
                }
            }
            size_t options = 0; /* distinct configurations (repetitions count once) */
            for (size_t j = 0; j < best_n; j++) {
                const nv_alloc_row *rj = &D->rows[best_rowof[j]];
                if (!same_case(rj, ri, synth, by_n))
                    continue;
                int again = 0;
                for (size_t k = 0; k < j && !again; k++)
                    again = same_case(&D->rows[best_rowof[k]], ri, synth, by_n) &&
                            !strcmp(D->rows[best_rowof[k]].config, rj->config);
                options += !again;
            }
            if (!synth && options < 2)
                continue; /* one way to place them: nothing to decide */
            int ok = !strcmp(cfg_m, cfg_p);
            double lost = ok ? 0 : (meas_at_pred - bm) / bm * 100;
            if (!ok && !by_n && nmiss < 4096)
                misses[nmiss++] = lost;
            if (by_n) {
                cases_n++;
                right_n += ok;
                lost_n += lost;
            } else {
                cases++;
                right += ok;
                lost_sum += lost;
            }
            char label[96];
            if (by_n)
                snprintf(label, sizeof label, "%s N=%u", ri->app, ri->nodes);
            else if (!synth)
                snprintf(label, sizeof label, "%s S%.0f P=%u", ri->app, ri->x[NV_AF_MAX_S],
                         ri->nodes * ri->ppn);
            else
                snprintf(label, sizeof label, "%s", ri->app);
            if (!json)
                printf("  %-22s measured best %-26s predicted %-26s %s%.1f %% lost\n", label, cfg_m,
                       cfg_p, ok ? "right, " : "WRONG, ", lost);
            json_object *e = json_object_new_object();
            json_object_object_add(e, "case", json_object_new_string(label));
            json_object_object_add(e, "measured_best", json_object_new_string(cfg_m));
            json_object_object_add(e, "predicted_best", json_object_new_string(cfg_p));
            json_object_object_add(e, "runtime_lost_pct", nv_json_new_num_g(lost, 4));
            json_object_array_add(dec, e);
        }
    }
    if (!json && cases)
        printf("decision score %d/%d over N x PPN x placement, mean runtime lost %.1f %%", right,
               cases, lost_sum / cases);
    if (!json && cases_n)
        printf("; %d/%d inside a node count, mean runtime lost %.1f %%", right_n, cases_n,
               lost_n / cases_n);
    nv_quartiles mq;
    if (!json && nmiss && nv_quartiles_of(misses, nmiss, &mq) == 0)
        printf(
            "\nwhen wrong (%zu): runtime lost median %.1f %%, quartiles %.1f-%.1f %%, max %.0f %%",
            nmiss, mq.median, mq.q1, mq.q3, mq.max);
    if (!json && cases)
        printf("\n(paper: 8/10; 8.5 %% and 11.4 %% lost in its two misses)\n");
    json_object_object_add(out, "decision_right_within_nodes", json_object_new_int(right_n));
    json_object_object_add(out, "decision_cases_within_nodes", json_object_new_int(cases_n));
    json_object_object_add(out, "accuracy", acc);
    json_object_object_add(out, "decisions", dec);
    json_object_object_add(out, "decision_right", json_object_new_int(right));
    json_object_object_add(out, "decision_cases", json_object_new_int(cases));
    if (json)
        printf("%s\n", json_object_to_json_string_ext(out, JSON_C_TO_STRING_PRETTY |
                                                               JSON_C_TO_STRING_SPACED |
                                                               JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(out);
    free(meas);
    free(pred);
    free(best_pred);
    free(idx);
    free(tidx);
    free(rowof);
    free(best_rowof);
    nv_alloc_dataset_free(&train);
    nv_alloc_dataset_free(&test);
    return 0;
}
