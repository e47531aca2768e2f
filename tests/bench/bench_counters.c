/* bench_counters.c - the cost of one counter snapshot (budget <= 50 us per
 * node): netdev on the real `lo` and the InfiniBand reader on the fixture
 * tree.  Usage: bench_counters FIXTURE_SYSFS_DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "counters.h"

#define ROUNDS 5000

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void bench(const char *label, const nv_ctr_config *cfg)
{
    char err[512];
    nv_ctr_reader *r = nv_ctr_open(cfg, err, sizeof err);
    if (!r) {
        printf("%-34s unavailable: %s\n", label, err);
        return;
    }
    nv_ctr_snapshot *s = malloc(sizeof *s);
    double *t = malloc(ROUNDS * sizeof *t);
    if (!s || !t) {
        free(s);
        free(t);
        nv_ctr_close(r);
        return;
    }
    for (int i = 0; i < 100; i++)
        nv_ctr_snapshot_take(r, s, err, sizeof err); /* warm up */
    for (int i = 0; i < ROUNDS; i++) {
        double t0 = now_us();
        nv_ctr_snapshot_take(r, s, err, sizeof err);
        t[i] = now_us() - t0;
    }
    qsort(t, ROUNDS, sizeof *t, cmp_d);
    printf("%-34s ports %2d  snapshot median %6.2f us  p99 %6.2f us  (budget 50 us, %d runs)\n",
           label, nv_ctr_reader_nports(r), t[ROUNDS / 2], t[ROUNDS * 99 / 100], ROUNDS);
    free(s);
    free(t);
    nv_ctr_close(r);
}

int main(int argc, char **argv)
{
    const char *fx = argc > 1 ? argv[1] : "tests/fixtures/sysfs";
    char ib[1024];
    snprintf(ib, sizeof ib, "%s/infiniband", fx);
    nv_ctr_config lo = {.backend = "netdev", .iface_glob = "lo"};
    bench("netdev lo (real /sys)", &lo);
    nv_ctr_config all = {.backend = "netdev", .iface_glob = "*"};
    bench("netdev all interfaces (real /sys)", &all);
    nv_ctr_config ibc = {.backend = "infiniband", .sysfs_root = ib};
    bench("infiniband fixture (3 ports)", &ibc);
    return 0;
}
