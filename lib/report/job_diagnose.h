/* job_diagnose.h - what `netvar diagnose JOBID` concludes, computed: reads
 * the job's per-node counter records (SPOOL/jobs/JOBID/node-*.json, with
 * their --netvar-interval windows), places every port on the topology,
 * finds its line rate (the option given, else the rate the node recorded,
 * else this host's sysfs), and runs the congestion diagnosis of diagnose.h
 * ("Congestion diagnosis": pattern, mapping, background or inconclusive).
 * With a traffic matrix (a file, or the one the segment profiler wrote into
 * the job's profiles) it adds the placement's hop-bytes and worst-case link
 * load (diagnose_mapping.h).  Fills a struct; printing it is the caller's.
 *
 * Node links are taken to carry only this job's traffic (whole nodes); the
 * job's own share of a network link is unknown without a traffic matrix. */
#ifndef NETVAR_JOB_DIAGNOSE_H
#define NETVAR_JOB_DIAGNOSE_H

#include <stddef.h>

#include "counters_topology.h"
#include "diagnose.h"
#include "diagnose_mapping.h"

#define NV_JOB_DIAG_NOTE_MAX 1200

typedef struct nv_job_diagnose_opts {
    const char *topology;       /* Slurm topology.conf, or NULL */
    const char *blade_map;      /* netvar blade map, or NULL (one of the two needed) */
    double node_Bps;            /* node link line rate, bytes/s; NAN: recorded or sysfs */
    double uplink_Bps;          /* network port line rate, bytes/s; NAN: recorded or sysfs */
    const char *sysfs_root;     /* prefix of the sysfs reads ("" = /sys) */
    const char *traffic_matrix; /* NULL: SPOOL/jobs/JOBID/traffic-matrix.json when
                                    present, else the job's profiles */
} nv_job_diagnose_opts;

/* Defaults: no topology, rates unknown (NAN), real sysfs, matrix found. */
void nv_job_diagnose_opts_default(nv_job_diagnose_opts *o);

typedef struct nv_job_diagnosis {
    unsigned long job_id;
    size_t records;                  /* node records read */
    char (*nodes)[NV_TOPO_NAME_MAX]; /* nodes of those records, in reading order */
    size_t n_nodes;
    nv_diag_port *ports; /* one per port and window */
    size_t n_ports;
    nv_diagnosis dg; /* per_port[] parallel to ports[] */
    int has_mapping; /* mapping holds the metrics */
    nv_mapping_metrics mapping;
    char mapping_note[NV_JOB_DIAG_NOTE_MAX]; /* the matrix used, or why none */
} nv_job_diagnosis;

typedef void (*nv_job_diagnose_log_fn)(void *ctx, const char *line);

/* Diagnoses job job_id from the spool.  Records that cannot be read are
 * skipped with one line to log (may be NULL).  Returns 0 (d filled; free
 * with nv_job_diagnosis_free), or -1 with one line in err: no topology, a
 * node outside it (nothing is guessed), no records, no counters, too many
 * ports.  d is safe to free either way. */
int nv_job_diagnose(const char *spool, unsigned long job_id, const nv_job_diagnose_opts *o,
                    nv_job_diagnose_log_fn log, void *ctx, nv_job_diagnosis *d, char *err,
                    size_t errlen);
void nv_job_diagnosis_free(nv_job_diagnosis *d);

#endif
