/* policy.h - the admin's co-scheduling rules from netvar.conf, and their
 * evaluation for one submission.  Pure; no Slurm.
 *
 * One rule per line, evaluated in file order; the FIRST rule that matches
 * a job applies (as in a firewall), so put narrow rules first:
 *
 *   Rule=NAME [partition=P,..] [account=A,..] [qos=Q,..] [user=U,..] [app=K,..]
 *             [own_slowdown>=PCT] [inflicted_slowdown>PCT] [utilization<RHO]
 *             action=A[,A..] [message="text"] [reason="text"]
 *
 * Lists match with shell wildcards (fnmatch).  Conditions use > >= < <=;
 * slowdowns are in percent, utilization is rho in [0, 1].  A condition on
 * a figure netvar could not predict (unknown app, no model) is false.
 * Actions: message, annotate, contain, avoid, isolate, hold, deny, resize. */
#ifndef NETVAR_POLICY_H
#define NETVAR_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#define NV_POLICY_MAX_RULES 64
#define NV_POLICY_MAX_LIST 16
#define NV_POLICY_WORD_MAX 64
#define NV_POLICY_TEXT_MAX 200

enum nv_action {
    NV_ACT_MESSAGE = 1 << 0,
    NV_ACT_ANNOTATE = 1 << 1,
    NV_ACT_CONTAIN = 1 << 2,
    NV_ACT_AVOID = 1 << 3,
    NV_ACT_ISOLATE = 1 << 4,
    NV_ACT_HOLD = 1 << 5,
    NV_ACT_DENY = 1 << 6,
    NV_ACT_RESIZE = 1 << 7,
};

enum nv_policy_field {
    NV_PF_PARTITION,
    NV_PF_ACCOUNT,
    NV_PF_QOS,
    NV_PF_USER,
    NV_PF_APP,
    NV_PF_COUNT
};
enum nv_policy_metric { NV_PM_OWN, NV_PM_INFLICTED, NV_PM_UTILIZATION, NV_PM_COUNT };

struct nv_policy_list {
    int n;
    char item[NV_POLICY_MAX_LIST][NV_POLICY_WORD_MAX];
};

struct nv_policy_bound { /* lo < x < hi, with inclusive flags */
    bool has_lo, has_hi, lo_incl, hi_incl;
    double lo, hi;
};

struct nv_policy_rule {
    char name[NV_POLICY_WORD_MAX];
    int line;
    struct nv_policy_list match[NV_PF_COUNT];
    struct nv_policy_bound bound[NV_PM_COUNT];
    unsigned actions;
    char message[NV_POLICY_TEXT_MAX];
    char reason[NV_POLICY_TEXT_MAX];
};

struct nv_policy {
    int n;
    struct nv_policy_rule rule[NV_POLICY_MAX_RULES];
};

/* Parses the value of one Rule= line into p (appended). On error returns
 * -1 with the reason in why (no FILE:LINE prefix) and p unchanged. */
int nv_policy_parse_rule(struct nv_policy *p, const char *value, int line, char *why, size_t cap);

/* Checks the whole rule list (a deny that matches every job; rules
 * shadowed by an earlier catch-all).
 * Returns the number of problems, each given to report(). */
int nv_policy_check(const struct nv_policy *p, void (*report)(void *ctx, int line, const char *why),
                    void *ctx);
/* What is valid but likely not meant (a deny with no reason=): each given
 * to report(); returns how many.  Not errors: the rules stay in force. */
int nv_policy_warn(const struct nv_policy *p, void (*report)(void *ctx, int line, const char *why),
                   void *ctx);

/* What a rule sees of a submission.  NULL strings match nothing but "*". */
struct nv_policy_query {
    const char *field[NV_PF_COUNT];
    bool known[NV_PM_COUNT];
    double value[NV_PM_COUNT];
};

/* The first matching rule, or NULL. */
const struct nv_policy_rule *nv_policy_match(const struct nv_policy *p,
                                             const struct nv_policy_query *q);

const char *nv_action_name(enum nv_action a);
/* "contain,avoid" style list of a mask into buf. */
void nv_actions_format(unsigned actions, char *buf, size_t cap);

#endif
