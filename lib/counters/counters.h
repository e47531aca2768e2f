/* counters.h - the network counter reader interface: open once, snapshot
 * many times, subtract snapshots, close.
 *
 * Backends: "netdev" (/sys/class/net/<if>/statistics), "infiniband"
 * (/sys/class/infiniband/<dev>/ports/<n>/counters and counters_ext), "cxi"
 * (HPE Slingshot NICs: /sys/class/cxi/<dev>/device/telemetry), "papi"
 * (named events: Aries router tiles, infiniband:::, net:::), and "auto",
 * which tries papi -> infiniband -> cxi -> netdev and keeps the first that
 * opens (cxi only where /sys/class/cxi exists).
 *
 * Made to run inside slurmstepd (SPANK): no global mutable state except a
 * one-time PAPI library init guarded by pthread_once, no exit(), nothing
 * printed; errors go into a caller buffer and diagnostics to an optional
 * log callback as single lines starting with "netvar:".  A reader handle
 * belongs to one thread at a time.  A snapshot only pread()s file
 * descriptors opened by nv_ctr_open (no opendir, no open, no allocation),
 * so it stays within the 50 us per-node budget. */
#ifndef NETVAR_COUNTERS_H
#define NETVAR_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NV_CTR_MAX_PORTS 64
#define NV_CTR_NAME_MAX 64
#define NV_CTR_BACKEND_MAX 16

/* The fields every backend maps its counters onto. */
typedef enum nv_ctr_field {
    NV_CTR_BYTES_OUT = 0, /* data sent by the port (unit says bytes or flits) */
    NV_CTR_BYTES_IN,      /* data received by the port */
    NV_CTR_PACKETS_OUT,
    NV_CTR_PACKETS_IN,
    NV_CTR_STALL, /* time data waited to leave: IB xmit_wait ticks, Aries stall flit-times, Slingshot paused cycles */
    NV_CTR_DISCARDS, /* packets dropped at the port */
    NV_CTR_NFIELDS
} nv_ctr_field;

/* One raw counter reading, already summed when a field has several sources
 * (e.g. Aries virtual channels of one tile). */
typedef struct nv_ctr_value {
    uint64_t raw;     /* counter value in the backend's native unit */
    uint64_t scale;   /* multiply raw deltas by this to get `unit` (4 for IB *_data words) */
    uint64_t sat_max; /* 0: 64-bit modular counter; else the value at which it sticks */
    const char *unit; /* static string: "bytes", "packets", "ticks", "flits", "flit_times" */
    bool valid;       /* false: not provided by this backend or unreadable */
    bool saturated;   /* raw == sat_max: the counter stopped counting */
} nv_ctr_value;

typedef struct nv_ctr_port {
    char name[NV_CTR_NAME_MAX]; /* "eth0", "mlx5_0/1", "rtr_3_5" */
    const char *kind; /* static: "netdev", "ib_port", "network_tile", "processor_tile", "papi" */
    nv_ctr_value f[NV_CTR_NFIELDS];
} nv_ctr_port;

typedef struct nv_ctr_snapshot {
    char backend[NV_CTR_BACKEND_MAX];
    uint64_t t_ns; /* CLOCK_MONOTONIC, nanoseconds */
    int nports;
    nv_ctr_port port[NV_CTR_MAX_PORTS];
} nv_ctr_snapshot;

typedef struct nv_ctr_delta_value {
    uint64_t value; /* increase over the interval, in `unit` */
    const char *unit;
    bool valid;
    bool
        lower_bound; /* a 32-bit counter saturated or was reset: the true increase is at least value */
    bool wrapped;    /* a 64-bit counter wrapped around and was unwrapped */
} nv_ctr_delta_value;

typedef struct nv_ctr_port_delta {
    char name[NV_CTR_NAME_MAX];
    const char *kind;
    nv_ctr_delta_value f[NV_CTR_NFIELDS];
} nv_ctr_port_delta;

typedef struct nv_ctr_delta {
    char backend[NV_CTR_BACKEND_MAX];
    uint64_t dt_ns; /* time between the two snapshots */
    int nports;
    nv_ctr_port_delta port[NV_CTR_MAX_PORTS];
} nv_ctr_delta;

/* Receives each diagnostic line (no trailing newline, starts "netvar:"). */
typedef void (*nv_ctr_log_fn)(void *arg, const char *line);

typedef struct nv_ctr_config {
    const char *backend;     /* "auto" (NULL too), "netdev", "infiniband", "papi" */
    const char *sysfs_root;  /* prefix before /sys, e.g. a fixture tree; NULL or "" = real /sys */
    const char *iface_glob;  /* netdev: interface name or fnmatch glob (NULL: all but lo);
                                infiniband: matches "dev" or "dev/port" (NULL: all) */
    const char *papi_events; /* comma-separated PAPI event names; NULL/"" = papi not configured */
    nv_ctr_log_fn log;       /* may be NULL */
    void *log_arg;
} nv_ctr_config;

typedef struct nv_ctr_reader nv_ctr_reader;

/* Opens the backend(s), selects ports and opens every counter file.  Returns
 * NULL with a one-line reason in err when no backend could be opened.  Files
 * that are missing get one log line each and their field stays invalid. */
nv_ctr_reader *nv_ctr_open(const nv_ctr_config *cfg, char *err, size_t errlen);

/* Fills *out.  Returns 0 when every opened counter was read, a positive
 * count of counters that could not be read (their fields are marked invalid;
 * each bad file is logged once per reader), or -1 on a fatal error (err). */
int nv_ctr_snapshot_take(nv_ctr_reader *r, nv_ctr_snapshot *out, char *err, size_t errlen);

const char *nv_ctr_reader_backend(const nv_ctr_reader *r);
int nv_ctr_reader_nports(const nv_ctr_reader *r);
void nv_ctr_close(nv_ctr_reader *r);

/* later - earlier, per port (matched by name) and field.  64-bit counters
 * are unwrapped; saturating counters give a lower bound.  Returns 0, or -1
 * with err when the snapshots come from different backends or go backwards
 * in time. */
int nv_ctr_delta_compute(const nv_ctr_snapshot *earlier, const nv_ctr_snapshot *later,
                         nv_ctr_delta *out, char *err, size_t errlen);

/* The increase of one counter from a to b (raw units, before scale). */
uint64_t nv_ctr_raw_delta(uint64_t a, uint64_t b, uint64_t sat_max, bool b_saturated,
                          bool *lower_bound, bool *wrapped);

/* "bytes_out", "bytes_in", "packets_out", "packets_in", "stall", "discards". */
const char *nv_ctr_field_name(nv_ctr_field f);

/* How a PAPI event name maps onto a port and field (exposed for tests). */
typedef struct nv_ctr_papi_map {
    char port[NV_CTR_NAME_MAX];
    const char *kind;
    nv_ctr_field field;
    uint64_t scale;
    const char *unit;
} nv_ctr_papi_map;

/* Returns 0 and fills *m for a recognised event name, -1 otherwise. */
int nv_ctr_papi_map_event(const char *event, nv_ctr_papi_map *m);

#endif
