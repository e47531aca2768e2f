/* model_internal.h - the in-memory layout of nv_model, shared by the
 * loader, the accessors and the predictor only (not a public header). */
#ifndef NETVAR_MODEL_INTERNAL_H
#define NETVAR_MODEL_INTERNAL_H

#include <math.h>
#include <stdint.h>

#include "model.h"

/* lookup rule -> slot in nv_app_rec.pick */
enum { NV_PICK_AVERAGE = 0, NV_PICK_AVERAGE_STDEV = 1, NV_PICK_PDF = 2, NV_PICK_RULES = 3 };

struct nv_app_rec {
    /* the first cache line holds what the queue route reads of a victim and
     * of a neighbour (slurmctld predicts for random pairs of a large model:
     * every line touched is a likely miss) */
    _Alignas(64) double utilization;
    double sens, press;          /* history correction factors (shrunk toward 1) */
    uint32_t anc_off, n_anc;     /* p_A with the idle anchor, into m->acurve */
    uint32_t wanc_off, n_wanc;   /* the wait curve anchored at (0 us, 0 %), into m->acurve */
    uint32_t prof_off, n_prof;   /* into m->profile, sorted ascending */
    uint32_t wprof_off, n_wprof; /* own queue-wait profile (us), into m->profile */
    uint32_t sens_n, press_n;    /* table samples behind sens and press */
    /* the rest; first what an answer-only read of a victim adds (its second
     * line, which job_submit's path prefetches with the first) */
    double share_bound; /* theta_A times the top of the anchored U curve (set
                                    at load): the bandwidth share can be no more */
    char *key;
    uint64_t hash;
    int32_t pick[NV_PICK_RULES]; /* configuration each rule maps this app to */
    nv_util_source usrc;
    uint32_t pts_off, n_pts; /* into m->curve */
    uint32_t fit_off, n_fit; /* into m->curve */
    double residual_pct;
    uint32_t scal_off, n_scal;    /* into m->scaling */
    uint32_t slow_off, n_slow;    /* into m->slow, sorted by config */
    nv_curve_origin curve_origin; /* optional provenance */
    nv_latency_origin latency_origin;
    double counter_rho;
    uint32_t counter_runs, history_runs;
    uint32_t wpts_off, n_wpts; /* queue-wait points, into m->curve (x = wait us) */
    uint32_t wfit_off, n_wfit; /* queue-wait fit, into m->curve */
    double wresidual_pct;      /* weighted RMS of the wait points about their fit */
    int prefer_wait;           /* the wait axis explains A's campaign at least as well */
    /* the nearest-configurations mechanism (model_bottleneck.c): as a
     * neighbour, its joint (U, W) windows as measured, into m->jraw, and
     * placed and merged, into m->jwin (pjw_off, n_pjw); as a
     * victim, whether it has a slowdown under every configuration (its
     * slowdowns, by configuration index, are then m->slow[slow_off + i]) */
    uint32_t jwin_off, n_jwin;
    uint32_t pjw_off, n_pjw; /* its windows placed and merged, into m->jwin */
    int nearest_victim;
    double jwin_s; /* the windows' length, seconds */
    /* the profile route (fabric.h): its signature, into m->sigs (-1: none);
     * when the app has no campaign curve and the model a fabric, its fits
     * above were composed at load from the two (curve_origin
     * NV_CURVE_PROFILE) */
    int32_t sig;
    uint32_t curve_runs; /* runs behind the curve that answers: its points'
                            samples, or the signature's profiled runs */
};

#include <stddef.h>
_Static_assert(offsetof(struct nv_app_rec, press_n) + sizeof(uint32_t) <= 64,
               "what a pair prediction reads of an app is in its record's first cache line");
_Static_assert(offsetof(struct nv_app_rec, share_bound) == 64,
               "and the share's bound (answer-only reads of a victim) opens the second");

/* a point of an anchored curve with the slope to the next point, so that
 * reading it needs no division */
struct nv_seg {
    double u, y, slope;
};

/* Where along a long anchored curve a reading lands, without walking it:
 * cell g of NV_SEG_GRID equal cells over [lo, the curve's last point]
 * holds the last segment starting at or below the cell's lower edge, so a
 * read starts there and moves a step or two (nv_seg_find).  Built at load
 * for curves of more than NV_SEG_WALK_MAX points (a campaign of 40
 * configurations: the seed's); shorter curves are walked.  One cache line. */
#define NV_SEG_GRID 48
#define NV_SEG_WALK_MAX 12
#define NV_SEG_GRID_MAX 257 /* segment indexes fit a byte */
struct nv_seg_grid {
    double lo, scale; /* cell of x: (x - lo) * scale */
    uint8_t j[NV_SEG_GRID];
};
_Static_assert(sizeof(struct nv_seg_grid) == 64, "a curve's grid is one cache line");

static inline int nv_seg_gridded(size_t n)
{
    return n > NV_SEG_WALK_MAX && n <= NV_SEG_GRID_MAX;
}

/* the grid of the anchored curve c[0 .. n) (all zero when the curve is
 * walked instead: !nv_seg_gridded(n)); model_bottleneck.c, at load */
void nv_seg_grid_build(const struct nv_seg *c, size_t n, struct nv_seg_grid *gr);

/* the segment of c[0 .. n) holding x, c[0].u < x < c[n-1].u: the last j <= n-2
 * with c[j].u <= x, which is where a walk from the start stops */
static inline size_t nv_seg_find(const struct nv_seg *c, size_t n, const struct nv_seg_grid *gr,
                                 double x)
{
    double f = (x - gr->lo) * gr->scale;
    size_t j = gr->j[f < NV_SEG_GRID ? (size_t)f : NV_SEG_GRID - 1];
    while (j > 0 && c[j].u > x)
        j--;
    while (j + 1 < n - 1 && c[j + 1].u <= x)
        j++;
    return j;
}

/* a slot of the co-location hash: key and index side by side in 8 bytes,
 * so that a probe reads one cache line and the table stays small
 * (slurmctld probes it cold, 64 times a submission) */
struct nv_pair_slot {
    uint32_t key; /* app << 16 | with */
    int32_t idx;  /* into pairs, -1 = empty */
};

/* where an app's curves, profiles and joint windows are, in a small array of its own (240
 * KiB for 10 000 apps, so it stays in cache across a burst of predictions):
 * job_submit's path reads it to start loading a pair's curves and profiles
 * together with the two apps' records, instead of after them.  An app's two
 * anchored curves lie side by side in m->acurve, and its two profiles side
 * by side in m->profile (the loader reads them one after the other), so
 * each is one span. */
struct nv_app_where {
    uint32_t curves_off, n_curves; /* both anchored curves, into m->acurve */
    uint32_t profs_off, n_profs;   /* both profiles, into m->profile */
    uint32_t jwin_off, n_jwin;     /* its placed joint windows, into m->jwin */
};

struct nv_slow_rec {
    int32_t app, config;
    double pct;
};

struct nv_config_rec {
    char *id;
    double bubble_cycles;
    uint32_t partners, messages;
    double utilization;
    double wait_us; /* optional queue_wait_us: mean queue wait alone, NAN when absent */
    uint32_t by_cfg_off, n_slow; /* into m->slow_by_config */
};

/* where windows of a neighbour's joint (U, W) reading (nv_joint_window)
 * lie among the configurations, found at load: the two nearest points in
 * (U, W / the largest configuration's W), configuration indexes (n_configs:
 * the idle point, 0 %), i1 < i2, and the first one's inverse-distance
 * weight; a window on a point has i1 == i2, w1 1.  Windows between the same
 * two points whose w1 falls in the same NV_JWIN_BINS-th of [0, 1] are one
 * placed window at their mean w1, standing for their share of the
 * neighbour's windows: p is linear in w1, so only 1 / (1 + p)'s curvature
 * over a bin moves the answer (DESIGN 4.4). */
struct nv_jwin {
    uint8_t i1, i2;
    uint16_t w1q; /* w1 * NV_JWIN_WSCALE, rounded: p moves by at most
                     |y1 - y2| / (2 NV_JWIN_WSCALE), 0.005 pp for 650 pp */
    float share;  /* the windows it stands for / all the neighbour's windows */
};
#define NV_JWIN_WSCALE 65535.0
#define NV_JWIN_BINS 8
_Static_assert(sizeof(struct nv_jwin) == 8, "a placed window is 8 bytes");
#define NV_NEAREST_MAX_CONFIGS 254 /* configurations the nearest mechanism indexes */

struct nv_model {
    nv_calibration cal;

    size_t n_apps;
    struct nv_app_rec *apps;
    nv_latency_summary *app_lat;
    int32_t *app_slots; /* open addressing, -1 = empty */
    size_t app_cap;     /* power of two */

    nv_curve_point *curve;
    size_t n_curve;
    nv_scaling_point *scaling;
    size_t n_scaling;

    size_t n_configs;
    struct nv_config_rec *configs;
    nv_latency_summary *cfg_lat;
    int32_t *cfg_by_util; /* configuration indexes sorted by utilization */

    size_t n_slow;
    struct nv_slow_rec *slow; /* sorted by (app, config) */
    uint32_t *slow_by_config; /* indexes into slow, grouped by config */

    size_t n_pairs;
    nv_pair_view *pairs;
    struct nv_pair_slot *pair_tab; /* open addressing on (app << 16 | with) */
    size_t pair_cap;

    struct nv_ve *ve;             /* optional "variability" section, or NULL (ve_model.h) */
    struct nv_alloc_model *alloc; /* optional "alloc" section, or NULL (alloc_model.h) */

    nv_bottleneck bn; /* optional "bottleneck" (defaults when absent) */
    double *profile;  /* all apps' utilization profiles */
    size_t n_profile;
    struct nv_seg *acurve; /* anchored curves (model_bottleneck.c) */
    size_t n_acurve;
    struct nv_app_where *where; /* per app, copied from the records at load */
    struct nv_seg_grid *sgrid;  /* per app: [2i] its U curve's grid, [2i+1] its wait
                                   curve's (filled where nv_seg_gridded); NULL
                                   in a model without a curve that long */
    nv_joint_window *jraw;      /* every app's joint windows (jwin_off, n_jwin) */
    struct nv_jwin *jwin;       /* ... placed among the configurations and merged
                                 (pjw_off, n_pjw), or NULL when the model cannot
                                 use them (nearest 0) */
    float *nrow;                /* per app, n_configs + 1 slowdowns by configuration
                                 index, the last the idle point's 0 % (rows of
                                 apps that are not nearest victims unused) */
    size_t n_jraw;
    struct nv_fabric *fabric;  /* optional "fabric" (fabric.h), or NULL */
    struct nv_signature *sigs; /* the apps' signatures (nv_app_rec.sig) */
    size_t n_sigs;
    int nearest; /* the nearest-configurations mechanism can answer:
                                 1..254 configurations, each with its queue wait */
    /* apps, where, sgrid, acurve, profile, pair_tab and pairs packed in one
     * mapping of hot_len bytes (model_hot.c), or NULL: each array is its
     * own allocation */
    void *hot;
    size_t hot_len;
};

/* Whether the neighbours' pressure factors correct victim a's answers.
 * The pairs fix each product s_A q_B, not its factors: scaling every s by
 * c and every q by 1/c fits as well, and the alternating fit's ridge splits
 * that common scale between the two sides as it happens to, so q_B is
 * relative to the victims it was fitted beside.  On the counters route
 * (the physics measured at the bottleneck) a victim with no pair of its
 * own then gets its physics: its sensitivity is 1 and no pressure
 * applies.  On the latency route, whose physics carries a common bias (it
 * over-predicts 2-3.5 times on the lab, DESIGN 4.11), the pressures still
 * apply, since they carry part of that bias.  A known victim's
 * sensitivity corrects its answers beside any neighbour.  (DESIGN 4.4:
 * the ten held-out lab runs, the victim held out, 3.0 / 9.8 / 101.8 pp
 * against 3.0 / 11.5 / 111.9 with the pressures.) */
static inline int nv_pressure_applies(const struct nv_model *m, const struct nv_app_rec *a)
{
    return a->sens_n != 0 || m->bn.route != NV_USRC_COUNTERS;
}

/* model_hot.c: at the end of a load, moves the arrays a pair prediction
 * reads into one 2 MiB-aligned mapping advised for transparent huge pages
 * (fewer TLB misses on random pairs); a model whose arrays are under
 * 2 MiB, or a failed mapping, keeps them where they are.  0, or -1 when
 * the mapping failed (the model is unchanged and usable). */
int nv_model_pack_hot(nv_model *m);
/* releases those seven arrays, packed or not (nv_model_free) */
void nv_model_free_hot(nv_model *m);

/* model_bottleneck.c: at load, after derive(): the anchored curves and the
 * history corrections.  0, or -1 with a reason in err (out of memory). */
int nv_model_derive_bottleneck(nv_model *m, char *err, size_t errlen);

/* Queue-route physics: E_t[p_A(U(t))] for A beside the neighbours, where
 * U(t) = idle + sum of each neighbour's excess over idle (profiles added
 * rank by rank: a comonotone sum).  Allocation-free.  *u_mean gets the mean
 * U read, *capped 1 when some U was beyond the curve's top point.
 * Returns NAN when A has no curve. */
double nv_model_queue_physics(const nv_model *m, int32_t a, const int32_t *with, size_t n_with,
                              double *u_mean, int *capped);

/* The queueing mechanism: A's curve against the queue wait W, read over
 * W(t) = the neighbours' wait profiles added rank by rank, averaged as
 * progress rates: 1 + s = 1 / E_t[1 / (1 + p_A(W(t)))] (A advances slowly
 * while the queue is long and catches up while it is short).  NAN unless
 * A has a wait curve and every neighbour a wait profile.  Allocation-free. */
double nv_model_wait_physics(const nv_model *m, int32_t a, const int32_t *with, size_t n_with,
                             double *w_mean_us, int *capped);

/* The queue route's physics, two mechanisms (issue "predictions that hold
 * for pairs never seen together"):
 *  - queueing: A waits behind the neighbours' queue (nv_model_wait_physics);
 *  - bandwidth share: a neighbour that builds no queue still takes its share
 *    of the port, which costs A in proportion to A's own load there:
 *    theta_A * E_t[p_A(U(t))], theta_A = A's mean U above idle.
 * The larger answers.  Without a queue gauge (A's wait curve, every
 * neighbour's wait profile) p_A(U) answers alone, as the latency route
 * does.  Allocation-free. */
enum nv_mechanism { NV_MECH_UTILIZATION, NV_MECH_WAIT, NV_MECH_SHARE, NV_MECH_NEAREST };
typedef struct nv_phys {
    enum nv_mechanism mechanism; /* which one answered */
    double wait_pct;             /* queueing mechanism's answer, NAN without it */
    double share_pct;            /* bandwidth share's answer, NAN without it */
    double wait_us;              /* mean summed wait read (NAN without it) */
    double utilization;          /* mean U(t) read (NAN without a U curve) */
    int capped;                  /* the answering read went beyond its curve's top */
} nv_phys;
/* answer_only: the bandwidth share is computed only when a bound (theta_A
 * times the U curve's highest point) says it could beat the queueing
 * answer; otherwise share_pct and utilization stay NAN.  The answer, its
 * mechanism and capped are the same either way (job_submit's path). */
double nv_model_bottleneck_physics(const nv_model *m, int32_t a, const int32_t *with, size_t n_with,
                                   int answer_only, nv_phys *ph);

/* The nearest-configurations mechanism for A beside one neighbour B
 * (model_bottleneck.c): for each of B's joint windows, A's campaign
 * slowdowns at the two points nearest it among the configurations and the
 * idle point, in (U, W / the largest configuration's W), weighted by
 * inverse distance, at least 0; the windows averaged as progress rates.
 * NAN unless the model has every configuration's queue wait, A a slowdown
 * under every configuration and B joint windows.  *u_mean, *w_mean_us:
 * B's mean window.  Allocation-free.  When it can answer it is the
 * physics for one neighbour (nv_model_bottleneck_physics, mechanism
 * NV_MECH_NEAREST); several neighbours are the two mechanisms' (their
 * windows are not aligned in time). */
double nv_model_nearest_physics(const nv_model *m, int32_t a, int32_t b, double *u_mean,
                                double *w_mean_us);

/* The same answer for one neighbour b, alone (answer_only, nothing else
 * filled): job_submit's loop, through nv_predict_pair_pct.  NAN where the
 * full path's answer is NAN. */
double nv_model_pair_physics(const nv_model *m, int32_t a, int32_t b);

/* theta_A of the bandwidth-share mechanism: A's own mean U above the idle
 * bottleneck's, in [0, 1] */
static inline double nv_share_weight(const nv_model *m, const struct nv_app_rec *a)
{
    double theta = a->utilization - m->bn.idle_utilization;
    return theta < 0 ? 0 : theta > 1 ? 1 : theta;
}

/* the app's own U alone where the bottleneck's counters measured it, NAN
 * where it was derived from latency: the profile route's share term reads
 * it (fabric.h, nv_fabric_compose) */
static inline double nv_own_u(const struct nv_app_rec *a)
{
    return a->usrc == NV_USRC_COUNTERS ? a->utilization : NAN;
}

/* app indexes are below NV_MODEL_MAX_APPS, so a pair fits 32 bits and a
 * slot of the pair hash stays 8 bytes */
_Static_assert(NV_MODEL_MAX_APPS <= 65536, "pair keys pack two app indexes into 16 bits each");
static inline uint32_t nv_pair_key(int32_t a, int32_t b)
{
    return ((uint32_t)a << 16) | ((uint32_t)b & 0xffffu);
}

static inline size_t nv_pair_hash(uint32_t k)
{
    uint64_t x = k;
    x *= 0x9e3779b97f4a7c15ull;
    x ^= x >> 29;
    return (size_t)x;
}

uint64_t nv_key_hash(const char *key);
/* index of app with this key and hash, or -1 */
int32_t nv_model_find_hashed(const nv_model *m, const char *key, uint64_t h);
/* index into m->pairs for (a, b), or -1 */
long nv_model_pair_slot(const nv_model *m, int32_t a, int32_t b);
/* loader only: insert pair index p for (a, b) into the pair hash (which has
 * room); returns the existing index on a duplicate, else -1 */
long nv_model_pair_insert(nv_model *m, int32_t a, int32_t b, int32_t p);
/* loader only: insert app idx into the app hash; returns the existing
 * index when the key is already there, else -1 */
int32_t nv_model_app_insert(nv_model *m, int32_t idx);

#endif
