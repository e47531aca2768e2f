/* fabric.h - the fabric's response (docs/model-format.md, "fabric"): how
 * long each message class takes under each CompressionB configuration,
 * relative to the idle fabric, measured once per fabric by
 * `netvar calibrate --fabric`; and an app's signature (its time in MPI by
 * message class, from one profiled run).  Together they give an app
 * without a campaign its curves (the profile route, model_load.c):
 *
 *   p(load) = 100 * (b * (v / s(v, n) - 1)
 *                    + (1 - v * b / M) * sum_c t_c * (g_c(load) - 1)) / runtime
 *
 * with M = sum_c t_c the time in MPI, v the app's own U alone over the idle
 * port's (0 where the counters did not measure it), b = min(v * runtime, M)
 * the time its own bytes hold the port, n the configuration's U over the
 * idle port's, and s(v, n) the share of the port it keeps (max-min fair: v
 * while v + n <= 1, else min(v, max(1 - n, 1/2))).  The kernels are light
 * senders, so their growth is the queue a light sender meets.  An app's
 * own bytes made part of the queue it met alone (v of their time b), so
 * that part does not grow by the kernels again; where the port is full
 * its bytes lose share instead.  v = 0 gives the kernels' growth alone;
 * two apps that each fill the port keep half each (+100 % of M).
 *
 * read at each configuration's U and queue wait W.  The time outside MPI
 * (computation, and the overlap during which nonblocking requests were
 * pending) is not scaled.
 *
 * A message class is an operation (point-to-point, rooted collective,
 * all-to-all collective) times a size class (<= 256 B, <= 8 KiB,
 * <= 256 KiB, larger), op-major: class = op * 4 + size class, the segment
 * profiler's order (segment_profile.h, nv_seg_comm_metric).
 *
 * This module is the one reader and writer of the format: the standalone
 * file (`netvar calibrate --fabric --out FILE`) and the model's "fabric"
 * member are the same object. */
#ifndef NETVAR_FABRIC_H
#define NETVAR_FABRIC_H

#include <stddef.h>
#include <stdint.h>

#include <json.h>

#include "compression.h"

#define NV_FABRIC_FORMAT "netvar-fabric"
#define NV_FABRIC_VERSION 1
#define NV_FABRIC_OPS 3
#define NV_FABRIC_SIZES 4
#define NV_FABRIC_CLASSES (NV_FABRIC_OPS * NV_FABRIC_SIZES)
#define NV_FABRIC_MAX_POINTS 254    /* configurations one fabric holds */
#define NV_FABRIC_MAX_GROWTH 1000.0 /* a class 1000 times slower is not a measurement */
#define NV_FABRIC_MAX_BYTES (1u << 20)
#define NV_FABRIC_ID_MAX 64

/* "p2p", "rooted", "all" and "le256B", "le8KiB", "le256KiB", "gt256KiB":
 * a class's name is "<op>:<size>" */
const char *nv_fabric_class_name(int cls);

typedef struct nv_fabric_point {
    char id[NV_FABRIC_ID_MAX];        /* the configuration (B:P:M id) */
    double utilization;               /* U at the bottleneck under it, fraction */
    double wait_us;                   /* its mean queue wait (bottleneck.wait_gauge) */
    double growth[NV_FABRIC_CLASSES]; /* time under it / time idle, per class */
} nv_fabric_point;

typedef struct nv_fabric {
    char wait_gauge[32];               /* the unit of wait_us (bottleneck.wait_gauge) */
    double idle_utilization;           /* U of the idle bottleneck */
    double idle_us[NV_FABRIC_CLASSES]; /* each class's reference time idle, us */
    uint32_t repetitions;              /* kernel runs behind each figure */
    double elapsed_s;                  /* the calibration's wall time */
    size_t n_points;
    nv_fabric_point points[NV_FABRIC_MAX_POINTS];
} nv_fabric;

/* An app's signature: one profiled run's time in MPI by message class. */
typedef struct nv_signature {
    double runtime_us;                 /* the run's wall time */
    double comm_us[NV_FABRIC_CLASSES]; /* time in MPI by class (sum <= runtime) */
    double overlap_us;                 /* outside MPI with nonblocking requests pending */
    uint32_t runs;                     /* profiled runs behind it (>= 1) */
} nv_signature;

/* Reads the object (the file's root or the model's "fabric" member); path
 * prefixes the one-line error ("fabric" or the file name).  0, or -1 with
 * err naming the field and what is wrong. */
int nv_fabric_from_json(json_object *o, const char *path, nv_fabric *out, char *err, size_t errlen);
/* A new object holding f (NULL out of memory). */
json_object *nv_fabric_to_json(const nv_fabric *f);
/* The standalone file: read (bounded, untrusted) and written atomically.
 * 0, or -1 with one line in err naming the file. */
int nv_fabric_load(const char *path, nv_fabric *out, char *err, size_t errlen);
int nv_fabric_save(const nv_fabric *f, const char *path, char *err, size_t errlen);
/* Checks the values of f as the reader does (the writer's guard). */
int nv_fabric_check(const nv_fabric *f, char *err, size_t errlen);

/* Reads the "signature" member of an app (path: "apps[3].signature"). */
int nv_signature_from_json(json_object *o, const char *path, nv_signature *out, char *err,
                           size_t errlen);
json_object *nv_signature_to_json(const nv_signature *s);

/* The profile route's points: p at each configuration of f for the app
 * with signature s, on the U axis (x = utilization) and on the wait axis
 * (x = wait_us), weight 1; u_pts and w_pts (room for NV_FABRIC_MAX_POINTS)
 * get f->n_points points each (not sorted, not fitted).  own_u is the
 * app's own U alone at the bottleneck's counters (NAN where it was not
 * measured there): the share term and the kernels' weight above read it.
 * Returns the number of points. */
size_t nv_fabric_compose(const nv_fabric *f, const nv_signature *s, double own_u,
                         nv_curve_point *u_pts, nv_curve_point *w_pts);

/* The reference kernels' output, one JSON line (fabric_kernels.c, its one
 * writer and reader: probes/fabric_kernels.c writes it, the calibrate
 * runner reads it): {"schema": "netvar-fabric-kernel-times", "version": 1,
 * "ranks": N, "class_us": [12]}, each class's kernels' time per iteration,
 * summed over the kernels of the class, us (the slowest rank's). */
#define NV_FABRIC_KERNELS_FORMAT "netvar-fabric-kernel-times"
json_object *nv_fabric_kernels_to_json(const double class_us[NV_FABRIC_CLASSES], int ranks);
/* The last line of text that starts with '{'.  0, or -1 with one line in
 * err naming what is wrong. */
int nv_fabric_kernels_parse(const char *text, size_t len, double class_us[NV_FABRIC_CLASSES],
                            int *ranks, char *err, size_t errlen);

#endif
