/* verb_utilization.c - `netvar utilization`: switch utilization from a mean
 * probe latency through the inverse Pollaczek-Khinchine formula. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"
#include "queue.h"
#include "verbs.h"

static const char help_head[] =
    "Usage: netvar utilization --service-us S --var-us2 V --latency-us W [--json]\n"
    "\n"
    "Compute the utilization rho of a switch port, modelled as an M/G/1 queue,\n"
    "from the mean latency W of probe packets (ImpactB) measured while a job\n"
    "runs (\"Queue-theory interference model\", eq. 3, the inverse of\n"
    "Pollaczek-Khinchine).  S and V come from calibrating the idle switch.\n"
    "\n";

static const char help_tail[] =
    "\n"
    "Output (JSON on stdout): rho (fraction 0..1), lambda_per_us (packets per us),\n"
    "saturated (true when rho >= " NV_STR(
        NV_RHO_CAP) "), and the inputs.  W <= S gives rho = 0.\n"
                    "\n"
                    "Exit status: 0 computed, 2 bad or missing argument (one line on stderr).\n"
                    "\n"
                    "Example:\n"
                    "  netvar utilization --service-us 1.0 --var-us2 0.04 --latency-us 2.5\n";

/* a number into *to; with ival 1 also inf */
static int set_num(const nv_opt *o, void *to, const char *arg, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    if (end == arg || *end || errno == ERANGE || isnan(v) || (!o->ival && isinf(v)))
        return snprintf(err, errlen, "--%s '%.60s' is not a finite number", o->name, arg), -1;
    *(double *)to = v;
    return 0;
}

int verb_utilization(int argc, char **argv)
{
    double s = NAN, v = NAN, w = NAN;
    int json = 1;
    const nv_opt opts[] = {
        {"service-us", "S", NV_CLI_CALL, &s, .call = set_num,
         .help = "service time 1/mu of the idle switch, microseconds (> 0)"},
        {"var-us2", "V", NV_CLI_CALL, &v, .call = set_num,
         .help = "variance of the idle service times, us^2 (>= 0)"},
        {"latency-us", "W", NV_CLI_CALL, &w, .ival = 1, .call = set_num,
         .help = "mean probe latency under load, microseconds (>= 0; 'inf' means no probe came "
                 "back: saturated)"},
        NV_OPT_JSON_ONLY(&json),
    };
    const nv_opt_spec spec = {"netvar utilization",
                              "; nothing computed",
                              help_head,
                              help_tail,
                              0,
                              {{"Options:", "utilization", opts, sizeof opts / sizeof opts[0]}}};
    int parsed = nv_opts_parse(&spec, argc, argv);
    if (parsed)
        return nv_opts_exit(parsed);
    if (optind < argc) {
        fprintf(stderr, "netvar utilization: unexpected argument '%.60s'; see --help\n",
                argv[optind]);
        return 2;
    }
    if (isnan(s) || isnan(v) || isnan(w)) {
        fprintf(stderr, "netvar utilization: --service-us, --var-us2 and --latency-us are all "
                        "required; nothing computed\n");
        return 2;
    }
    if (s <= 0) {
        fprintf(stderr, "netvar utilization: --service-us %g must be > 0 us; nothing computed\n",
                s);
        return 2;
    }
    if (v < 0) {
        fprintf(stderr, "netvar utilization: --var-us2 %g must be >= 0 us^2; nothing computed\n",
                v);
        return 2;
    }
    if (w < 0) {
        fprintf(stderr, "netvar utilization: --latency-us %g must be >= 0 us; nothing computed\n",
                w);
        return 2;
    }
    nv_utilization u;
    if (nv_utilization_from_latency(s, v, w, &u)) {
        fprintf(stderr,
                "netvar utilization: arguments outside the model's domain; nothing computed\n");
        return 2;
    }
    printf("{\"rho\": %.6f, \"lambda_per_us\": %.6g, \"saturated\": %s, "
           "\"service_us\": %.6g, \"var_us2\": %.6g, \"latency_us\": %s%.6g%s}\n",
           u.rho, u.lambda_per_us, u.saturated ? "true" : "false", s, v, isinf(w) ? "\"" : "",
           isinf(w) ? INFINITY : w, isinf(w) ? "\"" : "");
    return 0;
}
