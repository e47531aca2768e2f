/* ctr_netlab.h - the network lab sampler's counter file (schema
 * netvar-netlab-counters, written by lab/netlab_sample.c) read back: its
 * uplink ends and its series, as steps of utilization U and queue wait W,
 * and the windows an evaluation reads them over.  The writer takes the
 * schema name from here, so name, version, writer and reader agree.
 *
 * The series is [t_s, dev, backlog bytes, qlen, bytes sent] rows, one per
 * uplink end (dev indexes uplink[]) per read.  A pass is one read of every
 * end: a row whose dev does not rise starts the next pass.  The reads are
 * at jittered instants, so a pass is not a fixed slot; a pass closer than
 * 0.45 interval to the pass kept before it (the sampler's final read when
 * it is stopped) is left out, its step being too short to rate.  Each kept
 * pass is one step at the time of its first row:
 *   U  the busier end's bytes sent since its row of the kept pass before,
 *      over the time between the two rows, over the end's shaper rate
 *      (rate_bytes_per_s); none on the first pass
 *   W  the longer wait of the ends: backlog bytes over the rate, us
 * Drops are counted for the whole run only, so U is read as offered load
 * by the run's offered/sent ratio, the larger of the ends' (bytes sent +
 * drops x mean packet bytes) / bytes sent; U offered is capped at 1. */
#ifndef NETVAR_CTR_NETLAB_H
#define NETVAR_CTR_NETLAB_H

#include <stddef.h>

#define NV_NETLAB_COUNTERS_SCHEMA "netvar-netlab-counters"
#define NV_NETLAB_COUNTERS_VERSION 1
#define NV_NETLAB_MAX_DEVS 16               /* uplink ends of one file */
#define NV_NETLAB_FILE_MAX (64u << 20)      /* bytes of one counter file */
#define NV_NETLAB_MAX_ROWS (16u * 1000000u) /* series rows of one file */
#define NV_NETLAB_BUSY_U 0.02               /* a step above this U is busy */

typedef struct nv_netlab_step {
    double t_s;  /* seconds since the sampler started */
    double u;    /* U sent (not offered), when has_u */
    double w_us; /* queue wait, us, when has_w */
    unsigned char has_u, has_w;
} nv_netlab_step;

typedef struct nv_netlab_file {
    double interval_ms;   /* the sampler's mean period (100 when absent) */
    double elapsed_s;     /* 0 when absent */
    double offered_ratio; /* >= 1 */
    int n_uplinks;
    nv_netlab_step *steps; /* one per kept pass, in time order */
    size_t n_steps;
} nv_netlab_file;

/* Parses a counter file's text (len bytes).  0, or -1 with one line in err
 * (not JSON, another schema, a row or an uplink end malformed).  A file
 * without a series has no steps.  nv_netlab_free releases it. */
int nv_netlab_parse(const char *text, size_t len, nv_netlab_file *f, char *err, size_t errlen);

/* Reads path (an admin-named file: a link is followed, a FIFO or device
 * refused without blocking; at most NV_NETLAB_FILE_MAX bytes).  0 read,
 * 1 no such file (*f empty), -1 with one line in err. */
int nv_netlab_read(const char *path, nv_netlab_file *f, char *err, size_t errlen);

void nv_netlab_free(nv_netlab_file *f);

/* One JSON document of a lab dataset (a counter file, dataset.json): path
 * read as nv_netlab_read does, at most max_bytes, nothing after the
 * document.  The object (caller puts it), or NULL with one line in err. */
struct json_object;
struct json_object *nv_netlab_json_read(const char *path, size_t max_bytes, char *err,
                                        size_t errlen);

/* The window [*lo, *hi] (s) a run is read over.  With runtime_s > 0, the
 * runtime_s seconds that end at the last busy step (U sent above
 * NV_NETLAB_BUSY_U; without one, the last of the steps `which` names);
 * else the run minus trim_s at each end of those steps.  `which`: 'u' the
 * U steps, 'w' the W steps.  0, or -1 when the file has no such step. */
int nv_netlab_window(const nv_netlab_file *f, double runtime_s, double trim_s, int which,
                     double *lo, double *hi);

/* Appends the offered U of the U steps in the 'u' window (runtime_s,
 * trim_s) to *v (grown with realloc; *n counts).  Returns how many, or -1
 * out of memory (*v and *n unchanged). */
long nv_netlab_u_values(const nv_netlab_file *f, double runtime_s, double trim_s, double **v,
                        size_t *n);

/* Appends the W of the W steps in the 'w' window; with window_s above
 * 0.1 s (the sampler's step) the means of consecutive window_s windows
 * from the first of them instead.  Returns how many, or -1. */
long nv_netlab_w_values(const nv_netlab_file *f, double runtime_s, double trim_s, double window_s,
                        double **v, size_t *n);

/* One joint reading: U offered and W of the same steps. */
typedef struct nv_netlab_uw {
    double u, w_us;
} nv_netlab_uw;

/* The joint steps (U and W both read) in the 'u' window, their means into
 * *mean (NAN when none).  Returns how many. */
size_t nv_netlab_joint_mean(const nv_netlab_file *f, double runtime_s, double trim_s,
                            nv_netlab_uw *mean);

/* The joint steps in the 'u' window cut into consecutive windows of win_s
 * seconds from the first of them; each window of at least two steps (half
 * the steps a window holds at the sampler's 100 ms, rounded down) gives
 * its mean U and W.  Appended to *v; returns how many, or -1 out of memory. */
long nv_netlab_joint_windows(const nv_netlab_file *f, double runtime_s, double trim_s, double win_s,
                             nv_netlab_uw **v, size_t *n);

/* The mean of n values, summed with Neumaier's compensation (so a window's
 * mean does not depend on the order of its steps beyond the last bit). */
double nv_netlab_mean(const double *v, size_t n);

#endif
