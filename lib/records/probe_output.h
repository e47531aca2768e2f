/* probe_output.h - the JSON the probes write: ImpactB (schema
 * "netvar-impactb") and CompressionB (schema "netvar-compressionb"), both
 * version 1.  One struct per schema, its writer (struct -> JSON object)
 * and its reader (probe output text or JSON object -> struct, validated).
 * The probes (probes/impactb.c, probes/compressionb.c) write through here
 * and the workflows (lib/runner) read through here, so the format is
 * defined in one place.  ImpactB and CompressionB are the probes of the
 * Queue-theory interference model (its Figures 2 and 4).
 *
 * Ownership: a struct the writer gets only lends its arrays (the writer
 * copies what it writes).  A struct the reader fills owns them; free them
 * with nv_impactb_output_free / nv_compressionb_output_free.
 *
 * Reading is strict about what the workflows need and lenient about the
 * rest: a required field that is missing or bad fails the read with one
 * line in err naming it; an optional field that is missing or of another
 * type reads as 0, "" or NULL. */
#ifndef NETVAR_PROBE_OUTPUT_H
#define NETVAR_PROBE_OUTPUT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "histogram.h"

#define NV_IMPACTB_SCHEMA "netvar-impactb"
#define NV_IMPACTB_VERSION 1
#define NV_COMPRESSIONB_SCHEMA "netvar-compressionb"
#define NV_COMPRESSIONB_VERSION 1

/* How ImpactB pairs its ranks ("pairing", written as is). */
#define NV_IMPACTB_PAIRING                                                                         \
    "node 2k with node 2k+1, same local rank index; even node initiates; one-way = RTT/2"

/* The reader keeps at most this many node names, each at most
 * NV_PROBE_NODE_NAME_MAX - 1 characters (longer ones are cut). */
#define NV_PROBE_MAX_NODE_NAMES 64
#define NV_PROBE_NODE_NAME_MAX 64

/* "placement": where the ranks ran. */
typedef struct nv_probe_placement {
    char source[32];   /* "MPI_COMM_TYPE_SHARED" or "NETVAR_PROBE_FAKE_NODES" */
    bool overridden;   /* NETVAR_PROBE_FAKE_NODES split the ranks */
    int ranks;         /* MPI ranks */
    int nodes;         /* nodes (>= 1; required when read) */
    char **node_names; /* [n_node_names] */
    size_t n_node_names;
    int *tasks_per_node; /* [nodes], or NULL */
    int *rank_node;      /* [ranks]: node of each rank, or NULL */
} nv_probe_placement;

/* "latency": summary of the one-way latencies, us.  The statistics are NAN
 * (written as null) when count is 0. */
typedef struct nv_probe_latency {
    uint64_t count;
    double min_us, mean_us, sd_us, p50_us, p90_us, p99_us, max_us;
} nv_probe_latency;

/* ------------------------------------------------------------- ImpactB */

typedef struct nv_impactb_output {
    int64_t message_bytes;
    int64_t interval_us; /* pause between exchanges (the mean, with exponential gaps) */
    char gaps[16];       /* "exponential" or "fixed"; "" when unknown (older files) */
    double duration_s;   /* asked for; 0 = until a signal (null) */
    double elapsed_s;    /* measured (required when read, >= 0) */
    char stopped_by[16]; /* "duration" or "signal" */
    char wait_mode[16];  /* "polite" or "busy" */
    uint64_t exchanges_per_rank;
    uint64_t samples_dropped; /* beyond the sample cap */
    uint64_t samples_discarded_responder_late;
    int (*pairs)[2]; /* [n_pairs]: initiator and responder rank */
    size_t n_pairs;
    nv_probe_placement placement;
    double cpu_us_per_exchange; /* self_cost, mean over ranks */
    double mpi_tests_per_exchange;
    nv_probe_latency latency; /* of samples_us (nv_impactb_summarize) */
    nv_histogram histogram;   /* of samples_us on the shared log bins */
    double *samples_us;       /* one-way latencies, us, sorted ascending */
    size_t n_samples;         /* "count"; the reader requires "samples_us" */
    bool write_samples;       /* the writer adds "samples_us" (--samples) */
} nv_impactb_output;

/* Sorts samples_us in place and fills latency and histogram from them
 * (mean, sample standard deviation, type-7 percentiles). */
void nv_impactb_summarize(nv_impactb_output *o);

/* The JSON object (caller owns it), or NULL when out of memory. */
json_object *nv_impactb_to_json(const nv_impactb_output *o);

/* Fills *out from an ImpactB object.  0, or -1 with one line in err naming
 * the field (*out is then empty). */
int nv_impactb_from_json(json_object *o, nv_impactb_output *out, char *err, size_t errlen);

/* The same from a probe's output: the first JSON object in text whose
 * line starts with '{' (launcher chatter before it is skipped). */
int nv_impactb_parse(const char *text, size_t len, nv_impactb_output *out, char *err,
                     size_t errlen);

/* Frees what the reader allocated; may be called twice. */
void nv_impactb_output_free(nv_impactb_output *o);

/* --------------------------------------------------------- CompressionB */

typedef struct nv_compressionb_output {
    /* "parameters" */
    int partners; /* P */
    int messages; /* M */
    int64_t msg_bytes;
    double sleep_us;      /* B as a sleep, us */
    bool have_cycles;     /* B was given as --cycles at --ghz */
    double cycles, ghz;   /* null unless have_cycles */
    bool sleep_per_round; /* sleep_at "round", else "partner" */
    double duration_s;    /* asked for; 0 = until a signal (null) */
    double elapsed_s;     /* measured (required when read, >= 0) */
    char stopped_by[16];
    char wait_mode[16];
    int64_t rounds_per_rank;
    uint64_t bytes_sent_total;
    nv_probe_placement placement;
    /* "injected_bandwidth", bytes/s per node (mean/min/max required when read) */
    double *per_node_bytes_per_s; /* [n_per_node] */
    size_t n_per_node;
    double mean_bytes_per_s, min_bytes_per_s, max_bytes_per_s;
} nv_compressionb_output;

json_object *nv_compressionb_to_json(const nv_compressionb_output *o);
int nv_compressionb_from_json(json_object *o, nv_compressionb_output *out, char *err,
                              size_t errlen);
int nv_compressionb_parse(const char *text, size_t len, nv_compressionb_output *out, char *err,
                          size_t errlen);
void nv_compressionb_output_free(nv_compressionb_output *o);

#endif
