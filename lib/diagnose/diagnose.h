/* diagnose.h - congestion diagnosis after Taffet ("Congestion diagnosis", ch. 4): per
 * port and time window, traffic and congested fraction (stall or wait
 * units over traffic units); the congested ports; where the root of the
 * congestion lies (a node's own link = endpoint, or inside the network);
 * and the cause:
 *   - communication pattern: endpoint congestion with the node link near
 *     line rate (Theorem 4.1: no mapping removes endpoint congestion);
 *   - mapping: congestion inside the network where the job's own traffic is
 *     near line rate (Theorem 4.2: the root's links are fully used, and
 *     here the job fills them itself);
 *   - background: congested links that carry little of the job's own
 *     traffic (Theorem 4.2: something else fills them);
 *   - inconclusive, with the reason; or none (no congested port).
 * Pure: the caller supplies ports, windows and line rates. */
#ifndef NETVAR_DIAGNOSE_H
#define NETVAR_DIAGNOSE_H

#include <stddef.h>

#define NV_DIAG_NAME_MAX 96
#define NV_DIAG_MAX_PORTS 65536
#define NV_DIAG_REASON_MAX 320

typedef enum nv_link_kind {
    NV_LINK_ENDPOINT = 0, /* a node's own link to its switch (NIC, processor tile) */
    NV_LINK_NETWORK = 1,  /* switch to switch (uplinks, router network tiles) */
} nv_link_kind;

typedef enum nv_diag_cause {
    NV_CAUSE_NONE = 0,   /* no congested port */
    NV_CAUSE_PATTERN,    /* communication pattern (endpoint root) */
    NV_CAUSE_MAPPING,    /* mapping (network root, own traffic near line rate) */
    NV_CAUSE_BACKGROUND, /* other jobs' traffic */
    NV_CAUSE_INCONCLUSIVE,
} nv_diag_cause;

/* One port (one direction of a link) in one time window. */
typedef struct nv_diag_port {
    char name[NV_DIAG_NAME_MAX]; /* "n3:eth0", "leaf1:up" */
    char node[NV_DIAG_NAME_MAX]; /* endpoint: its node; network: "" */
    char sw[NV_DIAG_NAME_MAX];   /* the switch (leaf, router) the port belongs to */
    nv_link_kind kind;
    unsigned window;      /* window index (0 for a whole-job record) */
    double window_s;      /* window length, seconds */
    double traffic_bytes; /* all bytes through the port in the window */
    double stall_units;   /* stall/wait units in the window; NAN = no counter */
    double own_bytes;     /* the job's own bytes; NAN = unknown */
    double line_rate_Bps; /* capacity, bytes/s; NAN or <= 0 = unknown */
} nv_diag_port;

typedef struct nv_diag_params {
    double congested_fraction; /* a port is congested at >= this stall/traffic ratio (0.1) */
    double near_line_rate;     /* "near line rate" at >= this fraction of capacity (0.8) */
    double small_share;        /* "little own traffic" below this fraction of capacity (0.5) */
    double min_bytes;          /* ports with less traffic in a window are not judged (1 MiB) */
    double min_window_s;       /* shorter windows are not judged (0.05 s) */
} nv_diag_params;

/* Per-port figures derived by the diagnosis. */
typedef struct nv_diag_port_result {
    double congested_fraction; /* stall units / traffic bytes; NAN unknown */
    double utilization;        /* traffic / (window * line rate); NAN unknown */
    double own_utilization;    /* own bytes / (window * line rate); NAN unknown */
    int congested;             /* 1 congested, 0 not, -1 not judged (too little data) */
} nv_diag_port_result;

typedef struct nv_diag_window {
    unsigned window;
    nv_diag_cause cause;
    long root;        /* index into ports of the root port, or -1 */
    size_t congested; /* congested ports in this window */
    char reason[NV_DIAG_REASON_MAX];
} nv_diag_window;

typedef struct nv_diagnosis {
    nv_diag_cause cause; /* over all windows: the cause found in most windows */
    long root;           /* root port of the first window with that cause, or -1 */
    char reason[NV_DIAG_REASON_MAX];
    size_t n_windows;
    nv_diag_window *windows;       /* per window, sorted by window index */
    nv_diag_port_result *per_port; /* parallel to the input ports */
    size_t windows_judged;         /* windows with enough data */
} nv_diagnosis;

void nv_diag_params_default(nv_diag_params *p);

/* Diagnoses ports[0..n).  Returns 0 (d filled; free with nv_diagnosis_free)
 * or -1 with err (too many ports, out of memory).  Too little data is not
 * an error: it gives NV_CAUSE_INCONCLUSIVE with the reason. */
int nv_diagnose(const nv_diag_port *ports, size_t n, const nv_diag_params *p, nv_diagnosis *d,
                char *err, size_t errlen);
void nv_diagnosis_free(nv_diagnosis *d);

/* "communication pattern", "mapping", "background interference", ... */
const char *nv_diag_cause_name(nv_diag_cause c);
/* One sentence of advice for a cause. */
const char *nv_diag_cause_advice(nv_diag_cause c);

#endif
