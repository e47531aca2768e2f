/* node_record.h - the files one node writes for a job, each with its
 * schema, version, writer and reader in one place.  spank_netvar writes
 * them in <spool>/jobs/<jobid>/ (spool.h of the plugin):
 *
 *   .start-<node>.json    netvar-node-start    prolog; read by the extern
 *                                              step (sampler) and the epilog
 *   .samples-<node>.json  netvar-node-samples  extern step (periodic counter
 *                                              windows); folded into the
 *                                              node record by the epilog
 *   node-<node>.json      netvar-node-record   epilog; merged by `netvar
 *                                              collect` (job_record.h)
 *
 * Every write is atomic (lib/util/json_file.h).  The start and samples
 * files are root's (0600); a node record is readable by the job's group
 * (0640).  Readers refuse a file of another schema or of a newer version;
 * their error lines do not repeat the path. */
#ifndef NETVAR_NODE_RECORD_H
#define NETVAR_NODE_RECORD_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "counters.h"

#define NV_NODE_START_SCHEMA "netvar-node-start"
#define NV_NODE_SAMPLES_SCHEMA "netvar-node-samples"
#define NV_NODE_RECORD_SCHEMA "netvar-node-record"
#define NV_NODE_FILE_VERSION 1
#define NV_NODE_FILE_MAX_BYTES (8u << 20) /* largest node file read back */

/* Who and where: the fields the start file and the node record begin with. */
struct nv_node_ident {
    uint32_t job_id;
    const char *node;
    const char *mode;  /* the job's mode name (job_options.h) */
    const char *app;   /* NULL or "": none (null) */
    const char *blade; /* NULL or "": unknown (null) */
    const char *sw;    /* leaf switch; NULL or "": unknown */
    const char *group; /* NULL or "": unknown */
    bool blade_reader; /* this node reads its blade's counters */
};

/* ---- .start-<node>.json: the prolog's state for the epilog ---- */
struct nv_node_start {
    struct nv_node_ident id;
    double start_unix_s;
    int interval_s;                  /* periodic samples asked for; 0: none */
    const char *annotation;          /* job_submit's note; NULL: none */
    const char *counter_source;      /* NULL: not said (no counters wanted) */
    const char *counter_error;       /* why there is no counter source; NULL */
    const nv_ctr_snapshot *snapshot; /* the start snapshot; NULL: none */
};

int nv_node_start_write(const char *path, const struct nv_node_start *s, char *err, size_t errlen);

/* What the extern step and the epilog read back. */
struct nv_node_start_info {
    double start_unix_s; /* NAN when absent */
    int interval_s;
    bool has_snapshot;        /* the file holds a start snapshot */
    char snapshot_error[256]; /* it does not parse ("" when it does) */
    char annotation[1024];    /* "" when none */
    char counter_error[512];  /* "" when none */
};

/* Reads a start file; snap (may be NULL) gets the start snapshot when the
 * file has one that parses.  Returns 0, or -1 with one line in err. */
int nv_node_start_read(const char *path, struct nv_node_start_info *out, nv_ctr_snapshot *snap,
                       char *err, size_t errlen);

/* ---- .samples-<node>.json: periodic windows from the extern step ---- */

/* Window i (0 <= i < n) of the samples: the delta that ends at
 * *end_unix_s.  Returns 0, or -1 to leave the window out. */
typedef int (*nv_node_window_fn)(void *arg, size_t i, double *end_unix_s, nv_ctr_delta *d);

/* Writes the windows window(arg, 0..n) (dropped: samples the ring lost). */
int nv_node_samples_write(const char *path, int interval_s, uint64_t dropped, size_t n,
                          nv_node_window_fn window, void *arg, char *err, size_t errlen);

/* The samples object, as it goes into the node record; NULL with err. */
json_object *nv_node_samples_read(const char *path, char *err, size_t errlen);

/* ---- node-<node>.json: one node's record of the job ---- */
struct nv_node_record {
    struct nv_node_ident id;
    double start_unix_s, end_unix_s; /* NAN: unknown (null) */
    const char *annotation;          /* NULL: none */
    const nv_ctr_delta *delta;       /* start to end; NULL: no counters */
    const double *line_rate_Bps;     /* per delta port, <= 0 unknown; may be NULL */
    const char *counter_source;      /* NULL: "none" */
    const char *counter_error;       /* NULL: none */
    json_object *samples;            /* nv_node_samples_read(); NULL: none.
                                         The writer takes the reference over. */
};

/* Writes the record with mode 0640 and group gid. */
int nv_node_record_write(const char *path, gid_t gid, const struct nv_node_record *r, char *err,
                         size_t errlen);

/* Reads a node record: the JSON (caller puts it) after its schema and
 * version are checked; NULL with one line in err. */
json_object *nv_node_record_read(const char *path, char *err, size_t errlen);

/* The same, and the file must belong to owner (NV_ANY_OWNER: anyone):
 * collect takes a job's node records only from the owner of its job
 * directory (root, who wrote them in slurmstepd). */
json_object *nv_node_record_read_owned(const char *path, uid_t owner, char *err, size_t errlen);

#endif
