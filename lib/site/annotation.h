/* annotation.h - the compact, versioned "netvar:" JSON that job_submit puts
 * in a job's Comment (or AdminComment), so `scontrol show job` and
 * `sacct -o Comment` show what netvar decided.  Allocation-free. */
#ifndef NETVAR_ANNOTATION_H
#define NETVAR_ANNOTATION_H

#include <stddef.h>

#include "job_options.h"

#define NV_ANNOTATION_VERSION 1
#define NV_ANNOTATION_PREFIX "netvar:"
#define NV_ANNOTATION_MAX 512

struct nv_annotation {
    nv_mode mode;            /* effective mode */
    const char *app;         /* validated key or NULL */
    const char *model;       /* "none" or the model's id */
    double own_slowdown_pct; /* NaN when not predicted */
    double inflicted_pct;    /* NaN when not predicted */
    const char *source;      /* "table", "model:queue", ... or NULL */
    unsigned advice_nodes;   /* 0 when no advice */
    const char *action;      /* the policy action taken, or NULL */
    /* the running job, and its app, behind own_slowdown_pct (the neighbour
     * the prediction was against), so a report can tell whether the job
     * then ran beside it; NULL / 0 when none */
    const char *against_app;
    unsigned against_job;
    /* own_slowdown_pct is beside the sum of vs_n running jobs (0: not
     * written), at the worst of vs_uplinks shared uplinks (0: placement
     * unknown); single_pct is the worst single neighbour's answer (NaN:
     * not written; written only when vs_n > 1) */
    unsigned vs_n, vs_uplinks;
    double single_pct;
};

/* Writes NV_ANNOTATION_PREFIX + compact JSON into buf. Returns the length,
 * or -1 if it does not fit (buf then holds an empty string). */
int nv_annotation_format(char *buf, size_t cap, const struct nv_annotation *a);

/* Returns comment with netvar's earlier annotations removed, as a prefix
 * length: the user's own text is comment[0 .. return value).  Only what
 * netvar writes is removed: annotations ("netvar:{\"v\":...}", a flat
 * object) at the very end, with the spaces before them.  A user's
 * "netvar:{" anywhere else, and all text after it, is the user's. */
size_t nv_annotation_strip(const char *comment);

/* netvar only adds to a field the user wrote (Comment): the user's text
 * (*keep bytes of current, nv_annotation_strip) stays whole, and the
 * annotation goes after it, separated by one space.  When limit (0: none)
 * would be passed, netvar cuts its own text first: the optional fields are
 * dropped (model, src, advice_nodes, the neighbour counts and single_pct,
 * inflicted_pct, own_pct, app, in that order) until it fits.  Returns the annotation's length in note, or -1
 * when not even {"v","mode","action"} fits (note is then ""). */
int nv_annotation_fit(const char *current, const struct nv_annotation *a, size_t limit,
                      size_t *keep, char *note, size_t cap);

#endif
