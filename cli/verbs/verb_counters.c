/* verb_counters.c - `netvar counters`: two counter snapshots an interval
 * apart, printed as per-port deltas (JSON, every number with its unit). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "args.h"
#include "counters.h"
#include "nv_json.h"
#include "opts.h"
#include "verbs.h"

static const char help_head[] =
    "Usage: netvar counters [--backend B] [--sysfs-root DIR] [--iface GLOB]\n"
    "                       [--interval-s S] [--papi-events LIST] [--json]\n"
    "\n"
    "Reads the network counters of this node twice, S seconds apart, and\n"
    "prints the increase of every port as JSON (schema netvar-counters,\n"
    "version 1): bytes and packets out and in, stall/wait units and discards,\n"
    "each with its unit, a validity flag, a lower_bound flag (a 32-bit counter\n"
    "saturated or was reset) and a wrapped flag (a 64-bit counter wrapped), plus\n"
    "the rate per second.  This is the reader the SPANK plugin uses.\n"
    "\n";

static const char help_tail[] =
    "\n"
    "Diagnostics (missing or non-numeric counter files, backend fallbacks) go\n"
    "to stderr as single lines starting with 'netvar:'.\n"
    "\n"
    "Exit status: 0 success, 1 no backend could be opened or read, 2 bad usage.\n"
    "\n"
    "Example:\n"
    "  netvar counters --backend netdev --iface 'eth*' --interval-s 5\n";

static void log_stderr(void *arg, const char *line)
{
    (void)arg;
    fprintf(stderr, "%s\n", line);
}

static json_object *delta_json(const nv_ctr_delta *d, double dt_s)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "schema", json_object_new_string("netvar-counters"));
    json_object_object_add(o, "version", json_object_new_int(1));
    json_object_object_add(o, "backend", json_object_new_string(d->backend));
    json_object_object_add(o, "interval_s", nv_json_new_num(dt_s));
    json_object *ports = json_object_new_array();
    for (int p = 0; p < d->nports; p++) {
        const nv_ctr_port_delta *pd = &d->port[p];
        json_object *jp = json_object_new_object();
        json_object_object_add(jp, "name", json_object_new_string(pd->name));
        json_object_object_add(jp, "kind", json_object_new_string(pd->kind ? pd->kind : "unknown"));
        json_object *fields = json_object_new_object();
        for (int f = 0; f < NV_CTR_NFIELDS; f++) {
            const nv_ctr_delta_value *v = &pd->f[f];
            json_object *jf = json_object_new_object();
            json_object_object_add(jf, "valid", json_object_new_boolean(v->valid));
            json_object_object_add(jf, "unit", json_object_new_string(v->unit ? v->unit : "none"));
            if (v->valid) {
                json_object_object_add(jf, "value", json_object_new_uint64(v->value));
                char unit[48];
                snprintf(unit, sizeof unit, "%s/s", v->unit ? v->unit : "none");
                json_object_object_add(jf, "rate",
                                       nv_json_new_num(dt_s > 0 ? (double)v->value / dt_s : 0));
                json_object_object_add(jf, "rate_unit", json_object_new_string(unit));
                json_object_object_add(jf, "lower_bound", json_object_new_boolean(v->lower_bound));
                json_object_object_add(jf, "wrapped", json_object_new_boolean(v->wrapped));
            } else {
                json_object_object_add(jf, "value", NULL);
            }
            json_object_object_add(fields, nv_ctr_field_name((nv_ctr_field)f), jf);
        }
        json_object_object_add(jp, "fields", fields);
        json_object_array_add(ports, jp);
    }
    json_object_object_add(o, "ports", ports);
    return o;
}

int verb_counters(int argc, char **argv)
{
    nv_ctr_config cfg = {.log = log_stderr};
    double interval = 1.0;
    int json = 1;
    const nv_opt opts[] = {
        {"backend", "B", NV_CLI_STR, &cfg.backend,
         .help = "auto (default: papi, then infiniband, then cxi where /sys/class/cxi exists, "
                 "then netdev), papi, infiniband, cxi (HPE Slingshot NICs: device/telemetry, "
                 "stall = the cycles the transmit path was paused) or netdev"},
        {"sysfs-root", "DIR", NV_CLI_STR, &cfg.sysfs_root,
         .help = "read DIR/sys/... instead of /sys (fixture trees)"},
        {"iface", "GLOB", NV_CLI_STR, &cfg.iface_glob,
         .help = "netdev: interface name or glob (default: all but lo); infiniband: device or "
                 "device/port glob (default: all); cxi: NIC name or glob (cxi0, cxi*; default: "
                 "all)"},
        {"interval-s", "S", NV_CLI_DOUBLE, &interval, 0.001, 3600,
         .bad = "must be a number of seconds from 0.001 to 3600",
         .help = "seconds between the snapshots, 0.001..3600 (default 1)"},
        {"papi-events", "LIST", NV_CLI_STR, &cfg.papi_events,
         .help = "comma-separated PAPI event names (Aries AR_RTR_*, infiniband:::..., "
                 "net:::...); without it papi is skipped"},
        NV_OPT_JSON_ONLY(&json),
    };
    const nv_opt_spec spec = {
        "netvar: counters", NULL, help_head,
        help_tail,          0,    {{"Options:", "counters", opts, sizeof opts / sizeof opts[0]}}};
    int parsed = nv_opts_parse(&spec, argc, argv);
    if (parsed)
        return nv_opts_exit(parsed);
    if (optind < argc) {
        fprintf(stderr,
                "netvar: counters: unexpected argument '%.40s'; see netvar counters --help\n",
                argv[optind]);
        return 2;
    }
    char err[512] = "";
    nv_ctr_reader *r = nv_ctr_open(&cfg, err, sizeof err);
    if (!r) {
        fprintf(stderr, "netvar: counters: %s\n", err);
        return 1;
    }
    nv_ctr_snapshot *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    nv_ctr_delta *d = malloc(sizeof *d);
    int rc = 1;
    if (!a || !b || !d) {
        fprintf(stderr, "netvar: counters: out of memory\n");
        goto out;
    }
    if (nv_ctr_snapshot_take(r, a, err, sizeof err) < 0) {
        fprintf(stderr, "netvar: counters: %s\n", err);
        goto out;
    }
    struct timespec ts = {.tv_sec = (time_t)interval,
                          .tv_nsec = (long)((interval - floor(interval)) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
    if (nv_ctr_snapshot_take(r, b, err, sizeof err) < 0 ||
        nv_ctr_delta_compute(a, b, d, err, sizeof err) != 0) {
        fprintf(stderr, "netvar: counters: %s\n", err);
        goto out;
    }
    json_object *o = delta_json(d, (double)d->dt_ns / 1e9);
    nv_cli_print_json(o);
    json_object_put(o);
    rc = 0;
out:
    free(a);
    free(b);
    free(d);
    nv_ctr_close(r);
    return rc;
}
