/* verb_utilization.c - `netvar utilization`: switch utilization from a mean
 * probe latency through the inverse Pollaczek-Khinchine formula. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue.h"
#include "verbs.h"

static void usage(FILE *out)
{
    fprintf(out,
        "Usage: netvar utilization --service-us S --var-us2 V --latency-us W [--json]\n"
        "\n"
        "Compute the utilization rho of a switch port, modelled as an M/G/1 queue,\n"
        "from the mean latency W of probe packets (ImpactB) measured while a job\n"
        "runs (\"Queue-theory interference model\", eq. 3, the inverse of\n"
        "Pollaczek-Khinchine).  S and V come from calibrating the idle switch.\n"
        "\n"
        "Options:\n"
        "  --service-us S   service time 1/mu of the idle switch, microseconds (> 0)\n"
        "  --var-us2 V      variance of the idle service times, us^2 (>= 0)\n"
        "  --latency-us W   mean probe latency under load, microseconds (>= 0;\n"
        "                   'inf' means no probe came back: saturated)\n"
        "  --json           JSON output (the only form; accepted for uniformity)\n"
        "  -h, --help       show this help\n"
        "\n"
        "Output (JSON on stdout): rho (fraction 0..1), lambda_per_us (packets per us),\n"
        "saturated (true when rho >= %.2f), and the inputs.  W <= S gives rho = 0.\n"
        "\n"
        "Exit status: 0 computed, 2 bad or missing argument (one line on stderr).\n"
        "\n"
        "Example:\n"
        "  netvar utilization --service-us 1.0 --var-us2 0.04 --latency-us 2.5\n",
        NV_RHO_CAP);
}

static int parse_num(const char *opt, const char *s, int allow_inf, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno == ERANGE || isnan(v) || (!allow_inf && isinf(v))) {
        fprintf(stderr, "netvar utilization: %s '%.60s' is not a finite number; nothing computed\n",
                opt, s);
        return -1;
    }
    *out = v;
    return 0;
}

int verb_utilization(int argc, char **argv)
{
    static const struct option opts[] = {
        {"service-us", required_argument, NULL, 's'},
        {"var-us2", required_argument, NULL, 'v'},
        {"latency-us", required_argument, NULL, 'w'},
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    double s = NAN, v = NAN, w = NAN;
    int c;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 's': if (parse_num("--service-us", optarg, 0, &s)) return 2; break;
        case 'v': if (parse_num("--var-us2", optarg, 0, &v)) return 2; break;
        case 'w': if (parse_num("--latency-us", optarg, 1, &w)) return 2; break;
        case 'j': break; /* JSON is the only output */
        case 'h': usage(stdout); return 0;
        default:
            fprintf(stderr, "netvar utilization: unknown or incomplete option '%s'; see --help\n",
                    argv[optind - 1]);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "netvar utilization: unexpected argument '%.60s'; see --help\n", argv[optind]);
        return 2;
    }
    if (isnan(s) || isnan(v) || isnan(w)) {
        fprintf(stderr, "netvar utilization: --service-us, --var-us2 and --latency-us are all "
                        "required; nothing computed\n");
        return 2;
    }
    if (s <= 0) {
        fprintf(stderr, "netvar utilization: --service-us %g must be > 0 us; nothing computed\n", s);
        return 2;
    }
    if (v < 0) {
        fprintf(stderr, "netvar utilization: --var-us2 %g must be >= 0 us^2; nothing computed\n", v);
        return 2;
    }
    if (w < 0) {
        fprintf(stderr, "netvar utilization: --latency-us %g must be >= 0 us; nothing computed\n", w);
        return 2;
    }
    nv_utilization u;
    if (nv_utilization_from_latency(s, v, w, &u)) {
        fprintf(stderr, "netvar utilization: arguments outside the model's domain; nothing computed\n");
        return 2;
    }
    printf("{\"rho\": %.6f, \"lambda_per_us\": %.6g, \"saturated\": %s, "
           "\"service_us\": %.6g, \"var_us2\": %.6g, \"latency_us\": %s%.6g%s}\n",
           u.rho, u.lambda_per_us, u.saturated ? "true" : "false", s, v,
           isinf(w) ? "\"" : "", isinf(w) ? INFINITY : w, isinf(w) ? "\"" : "");
    return 0;
}
