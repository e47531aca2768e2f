/* bench_model_memory.c - what a model costs inside slurmctld, per app and
 * per co-location entry: the heap a loaded model keeps (mallinfo2) and the
 * peak while it loads (the JSON tree, freed after), for a model file given
 * on the command line.  tests/bench/model_memory.py writes the files and
 * derives bytes per app and per entry from several sizes.  Prints figures;
 * asserts nothing. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "json_file.h"
#include "model.h"

static long maxrss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: bench_model_memory MODEL.json\n");
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
    size_t kept = (after.uordblks + after.hblkhd) - (before.uordblks + before.hblkhd);
    printf("{\"file_bytes\":%zu,\"apps\":%zu,\"pairs\":%zu,\"kept_bytes\":%zu,"
           "\"peak_extra_kib\":%ld}\n", len, nv_model_app_count(m), nv_model_pair_count(m), kept,
           rss1 - rss0);
    nv_model_free(m);
    free(text);
    return 0;
}
