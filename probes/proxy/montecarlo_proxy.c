/* montecarlo_proxy.c - netvar-proxy-montecarlo: a compute-bound proxy.
 * Each iteration draws samples (compute only); every K iterations the
 * ranks combine their tallies with one small MPI_Allreduce: almost no
 * network traffic. */
#include "proxy_common.h"

/* the cpu mode's cost of one draw on the test host, for --compute sleep */
#define NS_PER_DRAW 3.7

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    struct proxy_opts o = {.name = "montecarlo",
                           .size = 5000000,
                           .iters = 600,
                           .compute_scale = 1,
                           .extra = 50,
                           .extra_name = "reduce-every"};
    int rc =
        proxy_parse(&o, argc, argv, rank,
                    "Monte-Carlo-like proxy: each iteration draws N samples (a quarter-circle\n"
                    "test, about 3.7 ns a sample here; --compute sleep sleeps that long); every\n"
                    "K iterations the tallies are combined with one MPI_Allreduce of two doubles.",
                    "samples per iteration", "iterations between reductions");
    if (rc) {
        MPI_Finalize();
        return rc < 0 ? 0 : rc;
    }
    unsigned long long s =
        88172645463325252ull ^ (unsigned long long)(rank + 1) * 0x9E3779B97F4A7C15ull;
    double tally[2] = {0, 0}, global[2] = {0, 0}, sink = 0;
    proxy_barrier(&o);
    double t0 = proxy_now_s();
    for (long it = 0; it < o.iters; it++) {
        if (o.compute_sleep) {
            sink += proxy_compute(&o, (double)o.size * NS_PER_DRAW / 1000.0, NULL, 0);
            tally[1] += (double)o.size;
        } else {
            long draws = (long)((double)o.size * o.compute_scale);
            for (long i = 0; i < draws; i++) { /* xorshift64 */
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                double x = (double)(s >> 11) / 9007199254740992.0;
                double y = (double)((s * 0x2545F4914F6CDD1Dull) >> 11) / 9007199254740992.0;
                tally[0] += x * x + y * y <= 1.0;
                tally[1] += 1;
            }
        }
        if ((it + 1) % o.extra == 0 || it + 1 == o.iters) {
            MPI_Request r;
            MPI_Iallreduce(tally, global, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r);
            proxy_wait(&o, 1, &r);
        }
    }
    sink += global[1] > 0 ? 4.0 * global[0] / global[1] : 0;
    proxy_report(&o, rank, nranks, o.iters, t0, sink);
    MPI_Finalize();
    return 0;
}
