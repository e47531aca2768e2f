/* segment_profile.h - the segment profile: its metrics, the per-rank
 * memory-mapped partial form written while a program runs, the
 * program-wide aggregation (bins merged to <= 512 per metric, one record
 * per segment), and the JSON file `netvar estimate` reads.
 *
 * Per segment and rank the profiler stores one bin index per metric.  The
 * program-wide record of a segment keeps: work = median over ranks,
 * time = median over ranks (segments end at a global collective, so ranks
 * agree up to jitter), and a signature id naming the exact vector of
 * communication and I/O bins over all ranks (nominal data, seed §2). */
#ifndef NETVAR_SEGMENT_PROFILE_H
#define NETVAR_SEGMENT_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "segment_bins.h"

enum nv_seg_metric {
    NV_SEG_M_WORK = 0,        /* computation outside MPI (see work_source) */
    NV_SEG_M_TIME_US,         /* segment wall time, microseconds */
    NV_SEG_M_P2P_BLOCKING,    /* blocking point-to-point calls */
    NV_SEG_M_P2P_NONBLOCKING, /* non-blocking point-to-point calls */
    NV_SEG_M_COLL_ONE_TO_ALL, /* Bcast, Scatter(v): one sender */
    NV_SEG_M_COLL_ALL_TO_ONE, /* Reduce, Gather(v): one receiver */
    NV_SEG_M_COLL_ALL_TO_ALL, /* every rank sends and receives */
    NV_SEG_M_BYTES_SENT,
    NV_SEG_M_BYTES_RECV,
    NV_SEG_M_IO_OPEN_CLOSE, /* MPI-IO open/close calls */
    NV_SEG_M_IO_READ_WRITE, /* MPI-IO read/write calls */
    NV_SEG_M_IO_BYTES,      /* MPI-IO bytes read + written */
    /* time in MPI, microseconds, by operation (point-to-point, rooted
     * collective, all-to-all collective) and message size class
     * (nv_seg_size_class); completion calls and polite polling that waits
     * count for the pending nonblocking operation's class */
    NV_SEG_M_COMM_FIRST,
    NV_SEG_M_IO_US = NV_SEG_M_COMM_FIRST + 12, /* time in MPI-IO calls */
    NV_SEG_M_OVERLAP_US, /* outside MPI while nonblocking requests were pending */
    NV_SEG_METRICS
};
#define NV_SEG_FIRST_SIG_METRIC NV_SEG_M_P2P_BLOCKING
/* the signature is the call counts and bytes only (nominal, seed §2): the
 * time metrics vary with jitter and stay out of it */
#define NV_SEG_SIG_END NV_SEG_M_COMM_FIRST
#define NV_SEG_SIG_METRICS (NV_SEG_SIG_END - NV_SEG_FIRST_SIG_METRIC)
#define NV_SEG_COMM_METRICS (NV_SEG_METRICS - NV_SEG_M_COMM_FIRST)

enum nv_seg_comm_op { NV_SEG_OP_P2P, NV_SEG_OP_ROOTED, NV_SEG_OP_ALL, NV_SEG_COMM_OPS };
#define NV_SEG_SIZE_CLASSES 4
_Static_assert(NV_SEG_COMM_OPS *NV_SEG_SIZE_CLASSES == NV_SEG_M_IO_US - NV_SEG_M_COMM_FIRST,
               "one time metric per operation and size class");

/* Size class of a call moving `bytes` (the larger of sent and received):
 * 0: <= 256 B, 1: <= 8 KiB, 2: <= 256 KiB, 3: larger. */
static inline int nv_seg_size_class(double bytes)
{
    return bytes <= 256 ? 0 : bytes <= 8192 ? 1 : bytes <= 262144 ? 2 : 3;
}

/* The time metric of operation op (enum nv_seg_comm_op) and size class. */
static inline int nv_seg_comm_metric(int op, int size_class)
{
    return NV_SEG_M_COMM_FIRST + op * NV_SEG_SIZE_CLASSES + size_class;
}

/* JSON / display name of a metric ("work", "time_us", "p2p_blocking", ...). */
const char *nv_seg_metric_name(int metric);

enum nv_seg_work_source {
    NV_SEG_WORK_CPUTIME_NS = 0, /* thread CPU time outside MPI, ns */
    NV_SEG_WORK_PAPI_FP_OPS = 1,
    NV_SEG_WORK_PAPI_TOT_INS = 2,
};
const char *nv_seg_work_source_name(int source);

/* ---------------------------------------------------------- rank file */
/* the merged profile's JSON (nv_seg_agg_write_json, read by nv_seg_profile_load) */
#define NV_SEG_PROFILE_FORMAT "netvar-segment-profile"
/* version 2 added the time in MPI by operation and size class and the
 * overlap ("comm_fields", "comm_rows", "segment_comm"); version 1 files
 * are still read (without them) */
#define NV_SEG_PROFILE_VERSION 2
#define NV_SEG_RANK_MAGIC "NVSEGRK1"
#define NV_SEG_RANK_VERSION 2u
#define NV_SEG_DEFAULT_MAX_BYTES (4u << 20)

/* Fixed layout at the start of a per-rank file, followed by NV_SEG_METRICS
 * columns of `capacity` uint8 bin indices each (column-major, so a bin
 * merge rewrites one contiguous column). */
typedef struct nv_seg_rank_header {
    char magic[8];
    uint32_t version, header_bytes;
    uint32_t metrics, work_source;
    uint32_t rank, nranks;
    uint32_t busy;      /* nonzero while bins are being merged */
    uint32_t finalized; /* the full profile was written */
    uint64_t capacity;  /* segments the columns can hold */
    uint64_t nsegments, dropped;
    uint64_t inject_events;
    double inject_total_us;
    double runtime_us; /* MPI_Init to the last segment end */
    double inject_prob, inject_mean_us, inject_sd_us;
    uint64_t inject_seed;
    char job[64], executable[64];
    char segment_calls[256], inject_calls[256];
    nv_seg_bins bins[NV_SEG_METRICS];
} nv_seg_rank_header;

/* Segment capacity for a file of max_bytes (0 when too small). */
uint64_t nv_seg_rank_capacity(uint64_t max_bytes);

/* ---------------------------------------------------------- profile */
typedef struct nv_seg_profile_meta {
    int complete; /* 1 when written at MPI_Finalize */
    unsigned ranks;
    char job[64], executable[64], work_source[32];
    char segment_calls[256];
    double runtime_us;
    uint64_t dropped, unaligned;
    double peak_bytes_per_rank;
    int inject_enabled;
    double inject_prob, inject_mean_us, inject_sd_us;
    uint64_t inject_seed, inject_events;
    double inject_total_us;
    char inject_calls[256];
} nv_seg_profile_meta;

/* What the estimator consumes: one record per program-wide segment. */
typedef struct nv_seg_profile {
    nv_seg_profile_meta meta;
    size_t n;
    double *work, *time_us;
    uint32_t *signature;
    size_t nsig;
    double (*sig_sum)[NV_SEG_SIG_METRICS]; /* per signature, summed over ranks */
    /* time in MPI by operation and size class, and overlap, per segment:
     * comm[i] is segment i's row of comm_rows (metrics NV_SEG_M_COMM_FIRST
     * on, microseconds, mean over ranks); row 0 is all zeros (also the row
     * of segments beyond the table's bound).  NULL in version 1 files. */
    uint32_t *comm;
    size_t ncomm;
    double (*comm_rows)[NV_SEG_COMM_METRICS];
    uint64_t comm_unrecorded; /* segments whose times did not fit the table */
} nv_seg_profile;

void nv_seg_profile_free(nv_seg_profile *p);

/* ---------------------------------------------------------- aggregation */
typedef struct nv_seg_aggregator nv_seg_aggregator;

/* global holds NV_SEG_METRICS program-wide bin tables (copied). */
nv_seg_aggregator *nv_seg_agg_new(unsigned nranks, const nv_seg_bins *global);
void nv_seg_agg_free(nv_seg_aggregator *a);

/* Local slot -> nearest global slot, for every slot of `local`. */
void nv_seg_map_bins(const nv_seg_bins *local, const nv_seg_bins *global,
                     uint16_t map[NV_SEG_BINS_MAX]);

/* Adds segment s of a block holding `chunk` segments per rank, laid out
 * block[(r * NV_SEG_METRICS + m) * chunk + s] = global slot.  Returns 0, or
 * -1 (allocation failure or slot out of range: segment skipped). */
int nv_seg_agg_add(nv_seg_aggregator *a, const uint16_t *block, size_t chunk, size_t s);

size_t nv_seg_agg_count(const nv_seg_aggregator *a);

/* Writes the profile JSON atomically (temp file + rename).  0 or -1 with
 * errno-style message in err. */
int nv_seg_agg_write_json(const nv_seg_aggregator *a, const nv_seg_profile_meta *meta,
                          const char *path, char *err, size_t errlen);

/* Turns the aggregated segments into a profile (values, not bins). */
int nv_seg_agg_to_profile(const nv_seg_aggregator *a, const nv_seg_profile_meta *meta,
                          nv_seg_profile *out);

/* ---------------------------------------------------------- loading */
/* Loads a profile: a JSON profile, or one or more per-rank partial files
 * (paths[0..npaths)), recognized by content.  On failure returns -1 and
 * writes one line (naming the file and what is wrong) into err.  Files are
 * opened as untrusted ones (lib/util/safe_open.h: no symbolic link, FIFO or
 * device); partial files are read header first, then in chunks of segments
 * (64 MiB for all ranks together), never whole. */
int nv_seg_profile_load(const char *const *paths, size_t npaths, nv_seg_profile *out, char *err,
                        size_t errlen);

/* For tests: the chunk of partial files read at once, in bytes for all
 * ranks together (0: the default, 64 MiB); not thread-safe. */
void nv_seg_profile_chunk_bytes(size_t bytes);

/* The same, and every file must belong to owner (the job's user for the
 * profiles under a job's spool directory). */
int nv_seg_profile_load_owned(const char *const *paths, size_t npaths, uid_t owner,
                              nv_seg_profile *out, char *err, size_t errlen);

/* A job's profile: the first plain *.json name (nv_plain_name) of pdir
 * (a job's profiles/ directory, which its user writes) in byte order,
 * whatever readdir's order, loaded as owned by pdir's owner (pdir itself
 * must be a directory, not a link).  The one rule `netvar report JOBID`
 * and `netvar train` pick a job's profile by.  Returns 1 with *out loaded,
 * 0 when pdir does not exist or names no profile, -1 with one line in err
 * (the profile cannot be read; *out zeroed).  path[pathcap] receives the
 * profile's path ("" when none). */
int nv_seg_job_profile_load(const char *pdir, nv_seg_profile *out, char *path, size_t pathcap,
                            char *err, size_t errlen);

#endif
