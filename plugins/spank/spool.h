/* spool.h - the netvar spool as the SPANK plugin writes it.
 *
 *   <spool>/running/<jobid>.json          running-jobs registry (0644)
 *   <spool>/jobs/<jobid>/                 root:<job gid> 0750
 *   <spool>/jobs/<jobid>/node-<node>.json per-node record (0640)
 *   <spool>/jobs/<jobid>/.start-<node>.json, .samples-<node>.json  (0600)
 *
 * Paths are built only from the admin's spool path, numeric job ids and
 * node names that pass nv_spool_name_ok(). Every write is atomic. */
#ifndef NETVAR_SPANK_SPOOL_H
#define NETVAR_SPANK_SPOOL_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

bool nv_spool_name_ok(const char *name);

/* Creates <spool>/jobs/<jobid> (and parents) owned root:gid, mode 0750.
 * Returns 0 or -1 with err. */
int nv_spool_job_dir(const char *spool, uint32_t jobid, gid_t gid, char *dir, size_t cap,
                     char *err, size_t errlen);

/* Writes o as pretty JSON to path atomically, then sets group and mode. */
int nv_spool_write_json(const char *path, json_object *o, gid_t gid, mode_t mode, char *err,
                        size_t errlen);

/* Creates <spool>/running (0755) and writes/removes <jobid>.json there. */
int nv_spool_registry_write(const char *spool, uint32_t jobid, json_object *o, char *err,
                            size_t errlen);
int nv_spool_registry_remove(const char *spool, uint32_t jobid);

#endif
