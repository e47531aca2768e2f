/* submit_decision.h - everything job_submit/netvar decides about one
 * submission, as a pure function of the site config, the model and the
 * running-jobs index: the app's identity, its predicted own slowdown beside
 * the running apps and the worst slowdown it would inflict on them (table
 * or model, with the source), the node-count advice, the first matching
 * policy rule and its actions, the nodes to avoid, and the lines for the
 * user.  No Slurm, no I/O, no allocation: the plugin only applies it. */
#ifndef NETVAR_SUBMIT_DECISION_H
#define NETVAR_SUBMIT_DECISION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "model.h"
#include "predict.h"
#include "partitions.h"
#include "placement.h"
#include "registry.h"

struct nv_submit_query {
    const char *partition, *account, *qos, *user;
    const char *app_option; /* validated --netvar-app / NETVAR_APP, or NULL */
    /* where app_option came from, as the user wrote it ("--netvar-app" or
     * "NETVAR_APP", submit_options.h); NULL: "--netvar-app" */
    const char *app_option_source;
    const char *job_name;              /* may be NULL */
    const char *script;                /* batch script, may be NULL */
    uint32_t min_nodes;                /* 0 when not given */
    uint32_t max_nodes;                /* 0 when not given */
    uint32_t ntasks_per_node;          /* --ntasks-per-node, 0 when not given */
    bool advise_apply;                 /* --netvar-advise=apply */
    const char *exclude;               /* the job's own --exclude (a host list), may be NULL */
    uint32_t req_switch;               /* the job's own --switches count, 0 when not given */
    const char *req_nodes;             /* the job's own --nodelist (a host list), may be NULL */
    const struct nv_partitions *parts; /* the partitions' nodes, NULL: not known yet */
    /* every node's leaf switch (topology.conf), NULL: not known; with it a
     * job that names its nodes has a known placement (placement.h) */
    const struct nv_leaf_map *leaf_map;
    /* nodes under each leaf switch, any order (the plugin: the leaf
     * map's size_desc), for contain's switch count; NULL: the switches of
     * the model's alloc section instead */
    const uint32_t *leaf_sizes;
    size_t nleaf_sizes;
};

struct nv_submit_decision {
    char app[65];
    const char *app_source; /* q->app_option_source ("--netvar-app", "NETVAR_APP"),
                                    "job name", "batch script", "none" */
    bool have_model, app_known;
    double utilization;  /* the app's U (rho), NAN if unknown */
    double own_pct;      /* worst predicted slowdown of this job, %, NAN if none */
    char own_source[32]; /* "table (9 runs)", "model:queue" */
    uint32_t own_jobid;  /* a running job of the neighbour app behind own_pct */
    const char *own_with;
    double inflicted_pct; /* worst slowdown it would cause a running app, %, NAN */
    char inflicted_source[32];
    uint32_t inflicted_jobid;
    const char *inflicted_app;
    size_t apps_considered, running_jobs, running_unknown;
    /* own_pct is the newcomer beside the sum of the running jobs whose
     * paths meet its own (nv_predict_idx, several neighbours): vs_n of
     * them, at the worst of vs_uplinks shared uplinks (0: placement
     * unknown, every such job assumed on one shared uplink, vs_assumed
     * says so); vs_cut jobs beyond NV_PRED_MAX_WITH were left out.
     * own_single_pct is the worst single neighbour's answer (the pair
     * loop's maximum), for comparison; NAN when none. */
    double own_single_pct;
    uint32_t vs_n, vs_uplinks, vs_cut;
    const char *vs_assumed; /* static text, "" when the placement was known */
    /* the job's placement, from --nodelist and the leaf map (leaves 0:
     * unknown; 1: under one leaf switch, 0 % beside everything; more: 0 %
     * beside the apps whose spanning jobs' leaves it misses), and how many
     * running apps it shares no uplink with */
    struct nv_placement place;
    size_t apps_apart;
    bool advice;             /* scaling data or the alloc section gave an answer */
    uint32_t advice_nodes;   /* best node count the user allowed and the cluster holds */
    char advice_source[128]; /* "class C (xgboost ...); profile: sweep" or "runtime history" */
    char advice_line[400];   /* the predictive advice for the user, or "" */
    uint32_t requested_nodes;
    double advice_saving_pct; /* time saved vs requested_nodes, %, 0 if unknown */
    uint32_t resize_nodes;    /* node count to apply (0: none) */
    /* contain's --switches count: the fewest leaf switches that hold the
     * job's nodes (1 when neither the leaf sizes nor the alloc section
     * say, or they hold fewer); 0 without contain */
    uint32_t contain_switches;
    /* contain's wait4switch: ContainWaitSeconds, or ContainSpanWaitSeconds
     * for a job larger than one leaf switch; 0 without contain */
    uint32_t contain_wait_s;
    /* a rule's contain left out: the job is larger than one leaf switch
     * and ContainSpanWaitSeconds=0 */
    bool contain_span_skipped;
    const struct nv_policy_rule *rule;
    unsigned actions;               /* enum nv_action mask to apply */
    char exclude[NV_REG_NODES_MAX]; /* nodes to add to the excluded list (avoid) */
    size_t exclude_len;             /* strlen(exclude) */
    bool exclude_cut;
    bool avoid_dropped; /* avoid would have left too few nodes: message instead */
    /* an avoided app with a job under several leaf switches (the first in
     * the index's order, and how many more): its traffic crosses their
     * uplinks, which excluding its nodes does not keep this job off */
    uint32_t avoid_span_jobid, avoid_span_switches, avoid_span_more;
    const char *avoid_span_app;
    /* what avoid did about those uplinks (AvoidUplinks=): contain added */
    bool avoid_contained;
    /* nodes the job names itself (--nodelist) that avoid would have
     * excluded: Slurm refuses a job that requires a node it excludes, so
     * they are left out of the exclude list; how many, and the first */
    size_t avoid_named;
    char avoid_named_first[64];
    /* every node avoid would have excluded is one the job names (or its
     * --nodelist could not be read): nothing excluded, so the rule's own
     * message, which says what avoid does, is not shown */
    bool avoid_all_named;
    char message[1536]; /* lines for the user, '\n'-separated, each "netvar: ..." */
    size_t message_len; /* strlen(message), kept as lines are added */
};
/* Sets every field of *d, whatever it held (exclude and message up to
 * their end of string), in stages: the app's identity, the predictions,
 * the actions, the user's lines (submit_stages.h). */
void nv_submit_decide(const struct nv_config *c, const nv_model *m,
                      const struct nv_running_index *ix, const struct nv_submit_query *q,
                      struct nv_submit_decision *d);

/* The user's lines at sbatch, in plain words, for c->user_messages
 * (UserMessages=, netvar.conf(5)): "" at none, and when nothing is worth
 * saying; d->message itself at all.  actions: only when netvar acted
 * (avoid, contain, isolate, hold, resize, the rule's own message) or
 * could not; predictions: also a predicted slowdown, either way, or a
 * node-count saving at or over InterferenceThreshold.  The model's terms
 * (rho, sources) stay in d->message, for the log.  q: the submission d
 * was decided for.  Pure; buf always ends in NUL (cap > 0). */
void nv_submit_user_message(const struct nv_config *c, const struct nv_submit_query *q,
                            const struct nv_submit_decision *d, char *buf, size_t cap);

/* What job_modify may apply of actions: an update carries only the fields
 * it changes, so netvar cannot see the job's Comment, --exclude or
 * --switches there and changes none of them (no annotate, avoid, contain,
 * ...): only the message to the user stays. */
unsigned nv_modify_actions(unsigned actions);

#endif
