/* counters_internal.h - the reader handle shared by the counter backends
 * (not part of the public interface). */
#ifndef NETVAR_COUNTERS_INTERNAL_H
#define NETVAR_COUNTERS_INTERNAL_H

#include <limits.h>

#include "counters.h"

#define NV_CTR_MAX_SOURCES (NV_CTR_MAX_PORTS * 8)
#define NV_CTR_PATH_MAX 512
#define NV_CTR_MAX_PAPI_EVENTS 256

/* One kept-open counter file feeding one field of one port. */
typedef struct nv_ctr_source {
    int fd;
    int port;
    nv_ctr_field field;
    uint64_t sat_max; /* 0: 64-bit modular */
    bool warned;      /* a read problem was already logged */
    char path[NV_CTR_PATH_MAX];
} nv_ctr_source;

struct nv_ctr_reader {
    char backend[NV_CTR_BACKEND_MAX];
    nv_ctr_log_fn log;
    void *log_arg;
    char root[NV_CTR_PATH_MAX]; /* sysfs root prefix without trailing '/' */
    int nports;
    nv_ctr_port layout[NV_CTR_MAX_PORTS]; /* names, kinds, units, scales, validity */
    int nsources;
    nv_ctr_source src[NV_CTR_MAX_SOURCES];
    /* papi backend */
    int papi_eventset;
    int papi_nevents;
    int papi_port[NV_CTR_MAX_PAPI_EVENTS];
    nv_ctr_field papi_field[NV_CTR_MAX_PAPI_EVENTS];
    long long papi_values[NV_CTR_MAX_PAPI_EVENTS];
};

/* Formats one "netvar: ..." line and hands it to the log callback. */
void nv_ctr_logf(const nv_ctr_reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Adds a port; returns its index or -1 when the table is full. */
int nv_ctr_add_port(nv_ctr_reader *r, const char *name, const char *kind);

/* Declares the unit and scale of a field of a port (makes it a candidate). */
void nv_ctr_set_field(nv_ctr_reader *r, int port, nv_ctr_field f, const char *unit, uint64_t scale);

/* Opens path as a source of (port, field).  A missing or unreadable file is
 * logged once and returns -1; the field stays invalid unless another source
 * feeds it. */
int nv_ctr_add_file_source(nv_ctr_reader *r, int port, nv_ctr_field f, const char *path,
                           uint64_t sat_max);

/* Parses a sysfs counter ("123\n", or cxi telemetry's "123@1700000000.5\n");
 * returns 0 or -1 when not a number. */
int nv_ctr_parse_u64(const char *buf, size_t len, uint64_t *out);

/* The entries of dir not starting with '.' and shorter than
 * NV_CTR_NAME_MAX / 2, sorted (malloc'd, at most max); -1 when dir cannot
 * be listed. */
int nv_ctr_list_dir(const char *dir, char **names, int max);

/* Backends: fill r (ports and sources) or return -1 with err. */
int nv_ctr_netdev_open(nv_ctr_reader *r, const char *glob, char *err, size_t errlen);
int nv_ctr_ib_open(nv_ctr_reader *r, const char *glob, char *err, size_t errlen);
int nv_ctr_cxi_open(nv_ctr_reader *r, const char *glob, char *err, size_t errlen);
int nv_ctr_papi_open(nv_ctr_reader *r, const char *events, char *err, size_t errlen);
int nv_ctr_papi_read(nv_ctr_reader *r, nv_ctr_snapshot *out, char *err, size_t errlen);
void nv_ctr_papi_close(nv_ctr_reader *r);

#endif
