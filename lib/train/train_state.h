/* train_state.h - the state file of incremental training (`netvar train
 * --state FILE`): the job summaries a training read, so that the next one
 * reads only the records that are new since.
 *
 * It holds, for one spool and one record-parsing setting (service_us):
 * the summaries of the spool's records (nv_train_sum's record fields: app,
 * size, times, runtime, rho, topology, whether its directory had
 * profiles/), the app keys, and the job ids of
 * every record directory read so far (those that gave no summary too:
 * corrupt, no app), so that none is read twice.  A summary stays after
 * `netvar prune` removed its record, until it leaves the training window
 * (nv_train_set_window): a pruned spool still trains on the whole window.
 *
 * Binary, host byte order (a state file is a cache of one machine's
 * records, not an exchange format): a header (magic "NVTRSTAT", version,
 * byte-order mark, counts, the parsing setting, a 64-bit checksum of the
 * body), then the spool path, the app keys (NUL-terminated), the
 * summaries (72 bytes each), the topology arena (8 bytes per hash) and the
 * sorted ids.  About 100 bytes per job: 1 M jobs in about 100 MB.
 *
 * Written atomically (temp file, fsync, rename; mode 0600).  Read like any
 * file netvar did not just write: without following a link, regular,
 * owned by the caller, bounded; then every count, offset, index and value
 * is checked (a summary as strictly as a record), and the checksum.  A
 * state that fails a check is not used: the caller reads every record
 * instead, and says so in one line. */
#ifndef NETVAR_TRAIN_STATE_H
#define NETVAR_TRAIN_STATE_H

#include <stddef.h>

#include "train_history.h"

#define NV_TRAIN_STATE_VERSION 2 /* 2: a summary says whether its job had profiles/ */
#define NV_TRAIN_STATE_MAX_BYTES ((size_t)4 << 30) /* 40 M jobs: past any --max-jobs */

/* Load path into s (which must be empty) for this spool and service_us:
 * the summaries go in as if read from records, and s->known gets the ids
 * already read.  Returns 0 when loaded, 1 when there is no file at path
 * (a first run: nothing said), or -1 with one line in err saying what is
 * wrong (s is then empty again). */
int nv_train_state_load(const char *path, const char *spool, double service_us, size_t max_jobs,
                        nv_train_set *s, char *err, size_t errlen);

/* Write s's summaries, apps and ids (s->known still present, and
 * s->read_ids) to path atomically.  Call it after nv_train_scan_spool and
 * nv_train_set_window, before anything else joins the set.  0, or -1 with
 * err (the old file, if any, is kept). */
int nv_train_state_save(const char *path, const char *spool, double service_us,
                        const nv_train_set *s, char *err, size_t errlen);

#endif
