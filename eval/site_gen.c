/* site_gen.c - a SYNTHETIC year of a large site's job records, for
 * `make bench-train` (training time and memory at site scale) and the
 * model-size figures: the spool `netvar train` reads, written fast.
 * Nothing here is measured on a machine; every record says so in its
 * "synthetic" field.
 *
 * Jobs arrive as a Poisson process, run a log-normal time, take 1 to
 * MAX_NODES nodes (log-uniform), packed onto consecutive leaf switches of
 * LEAF_NODES nodes, and belong to one of APPS apps with Zipf popularity
 * (exponent 1).  Each app has its own utilization of the ports it uses.
 *
 * Usage: netvar-site-gen OUTDIR [--records N] [--apps N] [--leaves N]
 *          [--leaf-nodes N] [--max-nodes N] [--gap-s S] [--median-min M]
 *          [--sigma S] [--first-id N] [--start-unix S] [--seed N]
 * Writes OUTDIR/jobs/<id>/job.json (ids from --first-id, default 1): a
 * second run with --first-id and --start-unix after the first adds "new"
 * records to the same spool (an incremental retrain's input).
 * Defaults: 1 000 000 records, 5 000 apps, 64 leaves of 16 nodes, 64 nodes
 * at most, 31 s between arrivals, a median runtime of 40 min (sigma 1). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "job_record.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;

static double uniform(void) /* (0, 1) */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
    return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

static void die(const char *what, const char *why)
{
    fprintf(stderr, "netvar-site-gen: %s: %s\n", what, why);
    exit(1);
}

static long opt_long(const char *name, const char *v, long lo, long hi)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || *end || x < lo || x > hi) {
        fprintf(stderr, "netvar-site-gen: %s %s: not a whole number in %ld..%ld\n", name, v, lo,
                hi);
        exit(2);
    }
    return x;
}

static double opt_double(const char *name, const char *v, double lo, double hi)
{
    char *end;
    double x = strtod(v, &end);
    if (*end || !(x >= lo && x <= hi)) {
        fprintf(stderr, "netvar-site-gen: %s %s: not a number in %g..%g\n", name, v, lo, hi);
        exit(2);
    }
    return x;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: netvar-site-gen OUTDIR [--records N] [--apps N] [--leaves N] "
                        "[--leaf-nodes N] [--max-nodes N] [--gap-s S] [--median-min M] "
                        "[--sigma S] [--first-id N] [--start-unix S] [--seed N]\n");
        return 2;
    }
    const char *out = argv[1];
    long records = 1000000, napps = 5000, leaves = 64, leaf_nodes = 16, max_nodes = 64;
    long first_id = 1;
    double gap_s = 31, median_min = 40, sigma = 1, t = 1.7e9;
    for (int i = 2; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            die(o, "needs a value");
        if (!strcmp(o, "--records"))
            records = opt_long(o, v, 1, 100000000);
        else if (!strcmp(o, "--apps"))
            napps = opt_long(o, v, 1, 1000000);
        else if (!strcmp(o, "--leaves"))
            leaves = opt_long(o, v, 1, 100000);
        else if (!strcmp(o, "--leaf-nodes"))
            leaf_nodes = opt_long(o, v, 1, 10000);
        else if (!strcmp(o, "--max-nodes"))
            max_nodes = opt_long(o, v, 1, 100000);
        else if (!strcmp(o, "--gap-s"))
            gap_s = opt_double(o, v, 1e-3, 1e6);
        else if (!strcmp(o, "--median-min"))
            median_min = opt_double(o, v, 1e-3, 1e6);
        else if (!strcmp(o, "--sigma"))
            sigma = opt_double(o, v, 0, 10);
        else if (!strcmp(o, "--first-id"))
            first_id = opt_long(o, v, 1, 4000000000L);
        else if (!strcmp(o, "--start-unix"))
            t = opt_double(o, v, 0, 4e9);
        else if (!strcmp(o, "--seed"))
            rng ^= (uint64_t)opt_long(o, v, 0, 1L << 62) * 0x9e3779b97f4a7c15ull;
        else
            die(o, "unknown option");
        i++;
    }
    if (max_nodes > leaves * leaf_nodes)
        max_nodes = leaves * leaf_nodes;
    /* Zipf(1) popularity: cumulative weights 1/k */
    double *cdf = malloc((size_t)napps * sizeof *cdf), *u = malloc((size_t)napps * sizeof *u);
    if (!cdf || !u)
        die("memory", strerror(ENOMEM));
    double acc = 0;
    for (long k = 0; k < napps; k++) {
        acc += 1.0 / (double)(k + 1);
        cdf[k] = acc;
        u[k] = 0.01 + 0.5 * uniform(); /* the app's utilization of its ports */
    }
    char path[4096];
    mkdir(out, 0755);
    snprintf(path, sizeof path, "%s/jobs", out);
    if (mkdir(path, 0755) && errno != EEXIST)
        die(path, strerror(errno));
    int jobs = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (jobs < 0)
        die(path, strerror(errno));
    static char buf[1 << 16];
    for (long r = 0; r < records; r++) {
        t += -gap_s * log(uniform());
        double rt = median_min * 60 * exp(sigma * gauss());
        long nodes = lround(exp(log((double)max_nodes) * uniform()));
        if (nodes < 1)
            nodes = 1;
        double x = uniform() * acc;
        long lo = 0, hi = napps - 1; /* first k with cdf[k] >= x */
        while (lo < hi) {
            long mid = (lo + hi) / 2;
            if (cdf[mid] < x)
                lo = mid + 1;
            else
                hi = mid;
        }
        long app = lo, first = (long)(uniform() * (double)leaves);
        long nleaves = (nodes + leaf_nodes - 1) / leaf_nodes;
        long id = first_id + r;
        int n = snprintf(buf, sizeof buf,
                         "{\"schema\":\"%s\",\"version\":%d,"
                         "\"synthetic\":\"generated by eval/site_gen.c; not measured on any "
                         "machine\",\"job_id\":%ld,\"app\":\"app-%05ld\",\"mode\":\"observe\","
                         "\"nodes\":[",
                         NV_JOB_RECORD_SCHEMA, NV_JOB_RECORD_VERSION, id, app);
        for (long k = 0; k < nodes && n < (int)sizeof buf - 256; k++)
            n += snprintf(buf + n, sizeof buf - (size_t)n, "%s\"l%03ld-n%03ld\"", k ? "," : "",
                          (first + k / leaf_nodes) % leaves, k % leaf_nodes);
        n += snprintf(buf + n, sizeof buf - (size_t)n, "],\"blades\":[],\"switches\":[");
        for (long k = 0; k < nleaves && n < (int)sizeof buf - 256; k++)
            n += snprintf(buf + n, sizeof buf - (size_t)n, "%s\"leaf%03ld\"", k ? "," : "",
                          (first + k) % leaves);
        double rho = u[app] * (1 + 0.05 * gauss());
        n += snprintf(buf + n, sizeof buf - (size_t)n,
                      "],\"groups\":[],\"start_unix_s\":%.3f,\"end_unix_s\":%.3f,"
                      "\"runtime_s\":%.3f,\"utilization\":{\"service_us\":1.0,"
                      "\"mu_source\":\"synthetic\",\"ports\":[{\"node\":\"l%03ld-n000\","
                      "\"port\":\"eth0\",\"lambda_packets_per_s\":%.1f,\"rho\":%.5f,"
                      "\"rho_source\":\"counters: lambda/mu\"}]}}\n",
                      t, t + rt, rt, first, (rho > 0 ? rho : 0) * 1e6, rho > 0 ? rho : 0);
        if (n >= (int)sizeof buf)
            die("record", "longer than 64 KiB");
        char name[64];
        snprintf(name, sizeof name, "%ld", id);
        if (mkdirat(jobs, name, 0755) && errno != EEXIST)
            die(name, strerror(errno));
        snprintf(name, sizeof name, "%ld/job.json", id);
        int fd = openat(jobs, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0 || write(fd, buf, (size_t)n) != n || close(fd))
            die(name, strerror(errno));
    }
    close(jobs);
    printf("{\"records\":%ld,\"first_id\":%ld,\"last_id\":%ld,\"apps\":%ld,\"leaves\":%ld,"
           "\"leaf_nodes\":%ld,\"end_unix_s\":%.3f,\"synthetic\":true}\n",
           records, first_id, first_id + records - 1, napps, leaves, leaf_nodes, t);
    free(cdf);
    free(u);
    return 0;
}
