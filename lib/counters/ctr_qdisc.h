/* ctr_qdisc.h - a Linux qdisc's statistics (`tc -s -j qdisc show dev X`) as
 * netvar counters: the network lab's uplink queue is its switch port, and
 * the queue is the stall analogue.
 *
 * Field roles on a qdisc port (kind "switch_port", so netvar's counter
 * metrics count it on the network side):
 *   flits  -> NV_CTR_BYTES_OUT   bytes the qdisc sent (unit "bytes")
 *   stalls -> NV_CTR_STALL       tbf overlimits: times the shaper held a
 *                                packet back for lack of tokens (unit "count")
 *   NV_CTR_PACKETS_OUT packets sent, NV_CTR_DISCARDS packets dropped.
 * Backlog (bytes) and qlen (packets) are gauges, not counters: they stay in
 * nv_qdisc_stats for samplers that integrate them over time. */
#ifndef NETVAR_CTR_QDISC_H
#define NETVAR_CTR_QDISC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counters.h"

#define NV_QDISC_MAX 16             /* qdiscs kept per device */
#define NV_QDISC_JSON_MAX (1 << 20) /* bytes of tc output read at most */
#define NV_QDISC_PORT_KIND "switch_port"
#define NV_QDISC_FLIT_FIELD NV_CTR_BYTES_OUT
#define NV_QDISC_STALL_FIELD NV_CTR_STALL

typedef struct nv_qdisc_stats {
    char dev[NV_CTR_NAME_MAX]; /* device the qdisc sits on (as asked) */
    char kind[16];             /* "tbf", "fq_codel", ... */
    char handle[16];           /* "8001:" */
    bool root;                 /* the device's root qdisc */
    /* cumulative counters; has_* false when tc did not print the field */
    uint64_t bytes, packets, drops, overlimits, requeues;
    bool has_bytes, has_packets, has_drops, has_overlimits;
    /* gauges at the time of reading */
    uint64_t backlog_bytes, qlen;
    bool has_backlog, has_qlen;
    uint64_t rate_bytes_per_s; /* shaper rate from options.rate (tbf); 0 when none */
} nv_qdisc_stats;

/* Parses the JSON text of `tc -s -j qdisc show dev DEV` (an array of qdisc
 * objects).  Fills at most max entries, dev copied into each.  Returns the
 * count (0: no qdisc), or -1 with one line in err when the text is not such
 * an array.  A field that is missing, negative or not an integer is left
 * invalid (has_* false) and named once in err while parsing goes on. */
int nv_qdisc_parse(const char *text, size_t len, const char *dev, nv_qdisc_stats *out, int max,
                   char *err, size_t errlen);

/* Runs `tc -s -j qdisc show dev DEV` (tc found in PATH, or tc_path) and
 * parses its output.  DEV must be a valid interface name (1..15 characters
 * of [A-Za-z0-9_.:-]).  Returns as nv_qdisc_parse, -1 when tc cannot run. */
int nv_qdisc_read(const char *tc_path, const char *dev, nv_qdisc_stats *out, int max, char *err,
                  size_t errlen);

/* The root qdisc among n entries, or NULL. */
const nv_qdisc_stats *nv_qdisc_root(const nv_qdisc_stats *q, int n);

/* Fills *port with the counters of q: name "<dev>/<kind>", kind
 * NV_QDISC_PORT_KIND, fields as listed above (64-bit, scale 1). */
void nv_qdisc_to_port(const nv_qdisc_stats *q, nv_ctr_port *port);

#endif
