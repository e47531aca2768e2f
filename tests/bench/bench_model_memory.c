/* bench_model_memory.c - what a model costs inside slurmctld, per app and
 * per co-location entry: the heap a loaded model keeps (mallinfo2, plus the
 * mapping its prediction arrays are packed into when it is large) and the
 * peak while it loads (the JSON tree, freed after), for a model file given
 * on the command line.  tests/bench/model_memory.py writes the files and
 * derives bytes per app and per entry from several sizes.  With --reload:
 * the load time from the file, and the peak while a second copy loads
 * beside the first (slurmctld's reload).  Prints figures; asserts nothing. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include "json_file.h"
#include "model.h"

static long maxrss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* What slurmctld sees: the model loaded from its file (nv_model_load, as
 * the reload thread does), then a reload while the first is still held.
 * Prints the load time and the process's peak above where it started. */
static int reload(const char *path)
{
    char err[512];
    long rss0 = maxrss_kib();
    double t0 = now_s();
    nv_model *m1 = nv_model_load(path, err, sizeof err);
    double t1 = now_s();
    if (!m1) {
        fprintf(stderr, "bench_model_memory: %s\n", err);
        return 1;
    }
    long rss1 = maxrss_kib();
    nv_model *m2 = nv_model_load(path, err, sizeof err);
    double t2 = now_s();
    long rss2 = maxrss_kib();
    if (!m2) {
        fprintf(stderr, "bench_model_memory: %s\n", err);
        nv_model_free(m1);
        return 1;
    }
    printf("{\"load_s\":%.3f,\"reload_s\":%.3f,\"load_peak_kib\":%ld,\"reload_peak_kib\":%ld}\n",
           t1 - t0, t2 - t1, rss1 - rss0, rss2 - rss0);
    nv_model_free(m2);
    nv_model_free(m1);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--reload"))
        return reload(argv[2]);
    if (argc != 2) {
        fprintf(stderr, "usage: bench_model_memory [--reload] MODEL.json\n");
        return 2;
    }
    char err[512];
    size_t len;
    char *text = nv_read_file(argv[1], (size_t)4 << 30, &len, err, sizeof err);
    if (!text) {
        fprintf(stderr, "bench_model_memory: %s: %s\n", argv[1], err);
        return 1;
    }
    struct mallinfo2 before = mallinfo2();
    long rss0 = maxrss_kib();
    nv_model *m = nv_model_load_buffer(text, len, err, sizeof err);
    long rss1 = maxrss_kib();
    struct mallinfo2 after = mallinfo2();
    if (!m) {
        fprintf(stderr, "bench_model_memory: %s: %s\n", argv[1], err);
        return 1;
    }
    /* the heap it keeps, and the mapping a large model's prediction arrays
     * were packed into (model_hot.c), which malloc does not see */
    size_t kept =
        (after.uordblks + after.hblkhd) - (before.uordblks + before.hblkhd) + nv_model_hot_bytes(m);
    printf("{\"file_bytes\":%zu,\"apps\":%zu,\"pairs\":%zu,\"kept_bytes\":%zu,"
           "\"peak_extra_kib\":%ld}\n",
           len, nv_model_app_count(m), nv_model_pair_count(m), kept, rss1 - rss0);
    nv_model_free(m);
    free(text);
    return 0;
}
