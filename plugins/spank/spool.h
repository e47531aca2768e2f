/* spool.h - the netvar spool as the SPANK plugin lays it out.
 *
 *   <spool>/running/<jobid>.json          running-jobs registry (0640),
 *                                         lib/records/registry.h
 *   <spool>/jobs/<jobid>/                 root:<job gid> 0750
 *   <spool>/jobs/<jobid>/node-<node>.json per-node record (0640),
 *   <spool>/jobs/<jobid>/.start-<node>.json, .samples-<node>.json  (0600),
 *                                         lib/records/node_record.h
 *
 * Paths are built only from the admin's spool path, numeric job ids and
 * node names that pass nv_spool_name_ok(). Every write is atomic. */
#ifndef NETVAR_SPANK_SPOOL_H
#define NETVAR_SPANK_SPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

bool nv_spool_name_ok(const char *name);

/* Creates <spool>/jobs/<jobid> (and parents) owned root:gid, mode 0750.
 * Returns 0 or -1 with err. */
int nv_spool_job_dir(const char *spool, uint32_t jobid, gid_t gid, char *dir, size_t cap, char *err,
                     size_t errlen);

/* A new job with this id starts (the first node's prolog, before any
 * step): what an earlier run with the same id left in dir (a requeue, or
 * an id reused) goes, so that records of two runs never merge and the new
 * user never sees the earlier user's files: job.json, node-*.json, and
 * everything under profiles/ (taken back to root:root 0700 first, then
 * emptied through directory descriptors, never following a link).
 * Returns the number of entries removed, or -1 with err. */
int nv_spool_job_reset(const char *dir, char *err, size_t errlen);

#endif
