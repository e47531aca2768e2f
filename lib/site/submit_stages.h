/* submit_stages.h - the stages of nv_submit_decide (submit_decision.h), in
 * the order it runs them, for submit_decision.c, submit_message.c and
 * their unit tests; not an interface for anything else.
 *
 *   reset     every field of the decision to its value before any stage
 *   identify  the app's name and where it came from
 *   predict   the app's model record, its placement, the slowdowns both
 *             ways beside the running apps (which of them are past the
 *             threshold) and the node-count advice
 *   choose    the policy rule and its actions: the nodes avoid excludes,
 *             whether the job stays runnable, what avoid does about the
 *             uplinks of a spanning job
 *   render    the lines for the user (submit_message.c)
 *
 * Each stage reads the decision as the stages before it left it; predict
 * and choose also hand each other a struct nv_submit_scratch, and choose
 * hands render a struct nv_submit_choice.  No stage allocates but predict
 * and choose, which may expand the job's --nodelist once into the scratch
 * (nv_submit_scratch_free releases it). */
#ifndef NETVAR_SUBMIT_STAGES_H
#define NETVAR_SUBMIT_STAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc_advice.h"
#include "submit_decision.h"

/* the stages are not exported from the plugins they are linked into, and
 * calls between them need no indirection (nor keep them from inlining) */
#define NV_SUBMIT_STAGE __attribute__((visibility("hidden")))

#define NV_SUBMIT_BEYOND_BYTES (4096 / 8) /* MaxNeighbourApps is at most 4096 */

/* what predict leaves for choose */
struct nv_submit_scratch {
    /* bit k set when kept app k is predicted past InterferenceThreshold,
     * either way: its nodes are what avoid would exclude */
    uint8_t beyond[NV_SUBMIT_BEYOND_BYTES];
    struct nv_named_nodes named; /* the job's --nodelist, when named_read */
    bool named_read;
};

/* what avoid did about the uplinks of an avoided job under several leaf
 * switches (submit_decision.c, avoid_uplinks) */
enum nv_span_answer {
    NV_SPAN_NONE,          /* nothing to say: no such job, this job crosses no uplink,
                               or its rule contains it already */
    NV_SPAN_CONTAINED,     /* contain added: kept under one leaf switch */
    NV_SPAN_USER_SWITCHES, /* the job's own --switches=N>1 stays */
    NV_SPAN_USER_NODES,    /* the job names its nodes */
    NV_SPAN_WARN,          /* AvoidUplinks=warn */
    NV_SPAN_TOO_BIG,       /* the job needs more nodes than a leaf switch holds */
};

/* what choose found that the decision's fields do not hold, for render */
struct nv_submit_choice {
    bool resize_wanted; /* the rule asked for resize (applied or not) */
    uint32_t need;      /* the nodes the job needs: --nodes MIN, or 1 */
    long left;          /* nodes left after avoid's exclusions, -1: not counted */
    size_t part_total;  /* the partitions' nodes, when left >= 0 */
    enum nv_span_answer span;
    uint32_t leaf; /* the most nodes one leaf switch holds (NV_SPAN_TOO_BIG) */
};

NV_SUBMIT_STAGE void nv_submit_reset(struct nv_submit_decision *d, const nv_model *m,
                                     const struct nv_running_index *ix);
NV_SUBMIT_STAGE void nv_submit_identify(const struct nv_config *c, const struct nv_submit_query *q,
                                        struct nv_submit_decision *d);
/* s: zeroed by the caller (NV_SUBMIT_SCRATCH_INIT) */
NV_SUBMIT_STAGE void nv_submit_predict(const struct nv_config *c, const nv_model *m,
                                       const struct nv_running_index *ix,
                                       const struct nv_submit_query *q, struct nv_submit_scratch *s,
                                       struct nv_submit_decision *d);
NV_SUBMIT_STAGE void nv_submit_choose(const struct nv_config *c, const nv_model *m,
                                      const struct nv_running_index *ix,
                                      const struct nv_submit_query *q, struct nv_submit_scratch *s,
                                      struct nv_submit_choice *ch, struct nv_submit_decision *d);
NV_SUBMIT_STAGE void nv_submit_render(const struct nv_config *c, const struct nv_submit_query *q,
                                      const struct nv_submit_choice *ch,
                                      struct nv_submit_decision *d);

#define NV_SUBMIT_SCRATCH_INIT                                                                     \
    {                                                                                              \
        .named_read = false                                                                        \
    }
NV_SUBMIT_STAGE void nv_submit_scratch_free(struct nv_submit_scratch *s);

/* submit_message.c: the predictive advice's line (d->advice_line) from
 * the alloc section's answer; cut names what cut the user's range ("",
 * "cluster" or "partition") */
NV_SUBMIT_STAGE void nv_submit_alloc_line(const nv_alloc_advice *a, const char *cut,
                                          struct nv_submit_decision *d);

#endif
