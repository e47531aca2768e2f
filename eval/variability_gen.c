/* variability_gen.c - writes a SYNTHETIC labelled data set for the
 * Variability Estimate: netvar job records (schema netvar-job-record) whose
 * counter metrics and runtimes come from the stated model below, not from
 * any machine.  Used by eval/variability_eval.sh and the smoke test.
 *
 * Model (per job; N(0,1) draws from a seeded splitmix64 generator):
 *   app a (5 communication characters, table `apps`): injection rate
 *     inj_a (flits/s per node), global factor g_a (network-tile flits per
 *     injected flit), comm_a (fraction of the uncongested runtime spent
 *     communicating), base runtime T0_a at 16 nodes.
 *   size n in {16, 32, 64, 128} nodes, 4 nodes per blade (Aries-like).
 *   background load L = min(0.9, 0.15 * exp(0.8 N)) of the router capacity
 *     CAP = 1.2e10 flits/s (long-tailed: most jobs see little, some a lot),
 *     per blade bg_k = CAP * L * exp(0.6 N_k) (hot spots).
 *   own network load per blade: own_k = 4 inj_a g_a (1 + 0.1 log2(n/16))
 *     (1 + 0.1 N_k).
 *   utilization u_k = min(0.97, (own_k + bg_k)/CAP), queueing q_k = u_k/(1-u_k).
 *   runtime T = T0_a (n/16)^-0.3 (1 + comm_a (0.6 mean_k q_k + 0.4 p95_k q_k))
 *               (1 + 0.02 N)                                  [noise: 2 %]
 *   counters per blade over T: processor flits 4 inj_a T (1 + 0.05 N_k),
 *     network flits (own_k + bg_k) T, network stalls 2 q_k (network flits)
 *     (1 + 0.05 N_k); summarized with lib/variability/counter_metrics (Table III).
 *
 * Usage: variability_gen --out DIR [--jobs N] [--seed S]
 * Writes DIR/jobs/<id>/job.json.  Exit 0, 1 on error, 2 on usage. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "atomic_file.h"
#include "counter_metrics.h"
#include "job_record.h"
#include "nv_json.h"

#define CAP 1.2e10
#define NODES_PER_BLADE 4

static const struct app {
    const char *name;
    double inj, g, comm, t0;
} apps[] = {
    {"synthetic-stencil3d", 2.0e8, 1.5, 0.25, 600},
    {"synthetic-alltoall-fft", 4.0e8, 3.0, 0.45, 400},
    {"synthetic-allreduce-md", 0.5e8, 1.0, 0.15, 700},
    {"synthetic-sparse-cg", 1.2e8, 2.0, 0.30, 500},
    {"synthetic-compute-heavy", 0.1e8, 0.8, 0.05, 900},
};
static const int sizes[] = {16, 32, 64, 128};

static uint64_t rng_state;
static double uniform(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}
static double normal(void)
{
    return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int usage(void)
{
    fprintf(stderr, "usage: variability_gen --out DIR [--jobs N] [--seed S]\n"
                    "writes a SYNTHETIC labelled data set of netvar job records (see the "
                    "header of eval/variability_gen.c for the model)\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *out = NULL;
    long jobs = 1500;
    unsigned long long seed = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--out") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--jobs") && i + 1 < argc)
            jobs = strtol(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else
            return usage();
    }
    if (!out || jobs < 1 || jobs > 100000)
        return usage();
    rng_state = seed * 0x2545F4914F6CDD1Dull + 7;
    char path[4096], err[512];
    snprintf(path, sizeof path, "%s/jobs", out);
    if ((mkdir(out, 0755) && errno != EEXIST) || (mkdir(path, 0755) && errno != EEXIST)) {
        fprintf(stderr, "netvar: variability_gen: %s: cannot create: %s\n", path, strerror(errno));
        return 1;
    }
    const size_t napps = sizeof apps / sizeof apps[0], nsizes = sizeof sizes / sizeof sizes[0];
    for (long j = 0; j < jobs; j++) {
        const struct app *a = &apps[(size_t)j % napps];
        int n = sizes[((size_t)j / napps) % nsizes];
        int nb = n / NODES_PER_BLADE;
        double L = fmin(0.9, 0.15 * exp(0.8 * normal()));
        struct nv_blade_traffic bt[32];
        double u[32], q[32], qs[32], own[32], bg[32];
        double qmean = 0;
        for (int k = 0; k < nb; k++) {
            bg[k] = CAP * L * exp(0.6 * normal());
            own[k] =
                NODES_PER_BLADE * a->inj * a->g * (1 + 0.1 * log2(n / 16.0)) * (1 + 0.1 * normal());
            if (own[k] < 0)
                own[k] = 0;
            u[k] = fmin(0.97, (own[k] + bg[k]) / CAP);
            q[k] = u[k] / (1 - u[k]);
            qs[k] = q[k];
            qmean += q[k] / nb;
        }
        qsort(qs, (size_t)nb, sizeof qs[0], cmp_double);
        double pos = 0.95 * (nb - 1);
        int lo = (int)floor(pos), hi = lo + 1 < nb ? lo + 1 : lo;
        double q95 = qs[lo] + (qs[hi] - qs[lo]) * (pos - lo);
        double T = a->t0 * pow(n / 16.0, -0.3) * (1 + a->comm * (0.6 * qmean + 0.4 * q95)) *
                   (1 + 0.02 * normal());
        for (int k = 0; k < nb; k++) {
            bt[k].dt_s = T;
            bt[k].proc_traffic = NODES_PER_BLADE * a->inj * T * (1 + 0.05 * normal());
            bt[k].proc_stalls = NAN;
            bt[k].net_traffic = (own[k] + bg[k]) * T;
            bt[k].net_stalls = 2 * q[k] * bt[k].net_traffic * fmax(0, 1 + 0.05 * normal());
        }
        struct nv_counter_metrics cm;
        nv_counter_metrics_compute(bt, (size_t)nb, "flits", &cm);

        json_object *rec = json_object_new_object();
        json_object_object_add(rec, "schema", json_object_new_string(NV_JOB_RECORD_SCHEMA));
        json_object_object_add(rec, "version", json_object_new_int(NV_JOB_RECORD_VERSION));
        json_object_object_add(
            rec, "synthetic",
            json_object_new_string(
                "generated by eval/variability_gen.c; not measured on any machine"));
        json_object_object_add(rec, "job_id", json_object_new_int64(j + 1));
        json_object_object_add(rec, "app", json_object_new_string(a->name));
        json_object *nodes = json_object_new_array(), *blades = json_object_new_array();
        for (int k = 0; k < n; k++) {
            char nm[32];
            snprintf(nm, sizeof nm, "n%d", k);
            json_object_array_add(nodes, json_object_new_string(nm));
            if (k % NODES_PER_BLADE == 0) {
                snprintf(nm, sizeof nm, "b%d", k / NODES_PER_BLADE);
                json_object_array_add(blades, json_object_new_string(nm));
            }
        }
        json_object_object_add(rec, "nodes", nodes);
        json_object_object_add(rec, "blades", blades);
        json_object_object_add(rec, "runtime_s", nv_json_new_num(T));
        json_object_object_add(rec, "blades_counted", json_object_new_int(nb));
        json_object_object_add(rec, "background_load", nv_json_new_num(L));
        json_object_object_add(rec, "metrics", nv_job_record_metrics_json(&cm));
        snprintf(path, sizeof path, "%s/jobs/%ld", out, j + 1);
        if (mkdir(path, 0755) && errno != EEXIST) {
            fprintf(stderr, "netvar: variability_gen: %s: cannot create: %s\n", path,
                    strerror(errno));
            json_object_put(rec);
            return 1;
        }
        snprintf(path, sizeof path, "%s/jobs/%ld/job.json", out, j + 1);
        size_t len = 0;
        const char *text = json_object_to_json_string_length(rec, JSON_C_TO_STRING_PLAIN, &len);
        int rc = nv_write_file_atomic(path, text, len, 0644, err, sizeof err);
        json_object_put(rec);
        if (rc) {
            fprintf(stderr, "netvar: variability_gen: %s\n", err);
            return 1;
        }
    }
    printf("netvar: variability_gen: wrote %ld SYNTHETIC job records (%zu apps x %zu sizes, "
           "seed %llu) under %s/jobs\n",
           jobs, napps, nsizes, seed, out);
    return 0;
}
