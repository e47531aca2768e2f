/* js_state.h - what job_submit/netvar holds in memory: the site config,
 * the model and the running-jobs index, swapped as one generation under a
 * read-write lock by a refresher thread that checks the files at most once
 * a second.  job_submit() only ever reads a generation. */
#ifndef NETVAR_JS_STATE_H
#define NETVAR_JS_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "model.h"
#include "partitions.h"
#include "placement.h"
#include "registry.h"

struct js_generation {
    struct nv_config *conf;         /* NULL: passive (config had errors at start) */
    nv_model *model;                /* NULL: no model, annotate only */
    struct nv_running_index *index; /* never NULL once started */
    struct nv_partitions *parts;    /* partitions' nodes; NULL until slurmctld answered */
    struct nv_leaf_map *leaves;     /* every node's leaf switch (topology.conf); NULL: none */
};

int js_state_start(void); /* loads everything, starts the refresher */
void js_state_stop(void);

/* For tests: loads everything without the refresher thread (slurmctld is
 * asked at once, not after RegistryCheckSeconds), and runs one refresher
 * pass when called.  js_state_stop() ends it as usual. */
int js_state_start_manual(void);
void js_state_refresh_once(void);

/* job_submit()'s own time for one call, ns (lock-free).  The refresher
 * thread logs a summary at 8, 16, ... 2^20 calls and then every 2^20,
 * so that the figure of the daemon can be set beside the in-process
 * benchmark's (make bench-sdiag reads it); never from job_submit() itself. */
void js_state_note_call(uint64_t ns);

/* Read access: returns the current generation with the read lock held. */
const struct js_generation *js_state_acquire(void);
void js_state_release(void);

#endif
