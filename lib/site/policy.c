/* policy.c - parses, checks and evaluates netvar.conf rules (policy.h). */
#include "policy.h"

#include <ctype.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plausible.h"

static const char *const action_names[] = {"message", "annotate", "contain", "avoid",
                                           "isolate", "hold",     "deny",    "resize"};
static const char *const field_names[NV_PF_COUNT] = {"partition", "account", "qos", "user", "app"};
static const char *const metric_names[NV_PM_COUNT] = {"own_slowdown", "inflicted_slowdown",
                                                      "utilization"};

const char *nv_action_name(enum nv_action a)
{
    for (int i = 0; i < 8; i++)
        if ((unsigned)a == (1u << i))
            return action_names[i];
    return "?";
}

void nv_actions_format(unsigned actions, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < 8; i++)
        if (actions & (1u << i)) {
            size_t name = strlen(action_names[i]), comma = len ? 1 : 0;
            if (len + comma + name >= cap)
                return; /* whole names only, never "message,co" */
            if (comma)
                buf[len++] = ',';
            memcpy(buf + len, action_names[i], name + 1);
            len += name;
        }
}

/* Splits s into whitespace-separated tokens; "..." keeps spaces (quotes
 * removed). Returns the token count, or -1 on an unterminated quote. */
static int tokenize(char *s, char **tok, int max)
{
    int n = 0;
    while (*s) {
        while (isspace((unsigned char)*s))
            s++;
        if (!*s)
            break;
        if (n == max)
            return -2;
        tok[n++] = s;
        char *w = s;
        bool quoted = false;
        while (*s && (quoted || !isspace((unsigned char)*s))) {
            if (*s == '"') {
                quoted = !quoted;
                s++;
                continue;
            }
            *w++ = *s++;
        }
        if (quoted)
            return -1;
        if (*s)
            s++;
        *w = '\0';
    }
    return n;
}

static int parse_list(struct nv_policy_list *l, const char *v, char *why, size_t cap)
{
    l->n = 0;
    const char *p = v;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0 || len >= NV_POLICY_WORD_MAX) {
            snprintf(why, cap, "list '%s' has an empty or over-long (>63) entry", v);
            return -1;
        }
        if (l->n == NV_POLICY_MAX_LIST) {
            snprintf(why, cap, "list '%s' has more than %d entries", v, NV_POLICY_MAX_LIST);
            return -1;
        }
        memcpy(l->item[l->n], p, len);
        l->item[l->n++][len] = '\0';
        p = comma ? comma + 1 : p + len;
    }
    if (l->n == 0) {
        snprintf(why, cap, "empty list");
        return -1;
    }
    return 0;
}

static int parse_condition(struct nv_policy_rule *r, const char *tok, char *why, size_t cap)
{
    for (int m = 0; m < NV_PM_COUNT; m++) {
        size_t len = strlen(metric_names[m]);
        if (strncmp(tok, metric_names[m], len) != 0)
            continue;
        const char *op = tok + len;
        bool lt = op[0] == '<', gt = op[0] == '>';
        if (!lt && !gt)
            break;
        bool incl = op[1] == '=';
        const char *num = op + 1 + incl;
        double x;
        if (!nv_parse_decimal(num, &x)) {
            snprintf(why, cap, "'%s': '%s' is not a number", tok, num);
            return -1;
        }
        if (m == NV_PM_UTILIZATION && (x < 0 || x > 1)) {
            snprintf(why, cap, "'%s': utilization is rho, from 0 to 1", tok);
            return -1;
        }
        struct nv_policy_bound *b = &r->bound[m];
        if (gt) {
            if (b->has_lo) {
                snprintf(why, cap, "'%s': a second lower bound on %s", tok, metric_names[m]);
                return -1;
            }
            b->has_lo = true, b->lo = x, b->lo_incl = incl;
        } else {
            if (b->has_hi) {
                snprintf(why, cap, "'%s': a second upper bound on %s", tok, metric_names[m]);
                return -1;
            }
            b->has_hi = true, b->hi = x, b->hi_incl = incl;
        }
        return 0;
    }
    snprintf(why, cap,
             "'%s' is not key=value nor a condition on own_slowdown, "
             "inflicted_slowdown or utilization",
             tok);
    return -1;
}

static bool bound_empty(const struct nv_policy_bound *b, int metric)
{
    double lo = b->has_lo ? b->lo : -INFINITY, hi = b->has_hi ? b->hi : INFINITY;
    if (metric == NV_PM_UTILIZATION) {
        if (b->has_lo && (b->lo > 1 || (b->lo == 1 && !b->lo_incl)))
            return true;
        if (b->has_hi && (b->hi < 0 || (b->hi == 0 && !b->hi_incl)))
            return true;
    }
    if (lo > hi)
        return true;
    return lo == hi && !(b->lo_incl && b->hi_incl);
}

int nv_policy_parse_rule(struct nv_policy *p, const char *value, int line, char *why, size_t cap)
{
    if (p->n == NV_POLICY_MAX_RULES) {
        snprintf(why, cap, "more than %d rules", NV_POLICY_MAX_RULES);
        return -1;
    }
    char buf[1024];
    if (strlen(value) >= sizeof buf) {
        snprintf(why, cap, "rule is longer than %zu characters", sizeof buf - 1);
        return -1;
    }
    snprintf(buf, sizeof buf, "%s", value);
    char *tok[48];
    int nt = tokenize(buf, tok, 48);
    if (nt == -1) {
        snprintf(why, cap, "unterminated \" in rule");
        return -1;
    }
    if (nt < 0) {
        snprintf(why, cap, "rule has more than 48 words");
        return -1;
    }
    if (nt == 0) {
        snprintf(why, cap, "rule has no name");
        return -1;
    }
    struct nv_policy_rule r;
    memset(&r, 0, sizeof r);
    r.line = line;
    if (strlen(tok[0]) >= sizeof r.name || strchr(tok[0], '=')) {
        snprintf(why, cap, "rule name '%s' is missing, has '=' or is over 63 characters", tok[0]);
        return -1;
    }
    snprintf(r.name, sizeof r.name, "%s", tok[0]);
    for (int i = 0; i < p->n; i++)
        if (!strcmp(p->rule[i].name, r.name)) {
            snprintf(why, cap, "rule name '%s' is already used on line %d", r.name,
                     p->rule[i].line);
            return -1;
        }
    for (int i = 1; i < nt; i++) {
        char *eq = strchr(tok[i], '=');
        char *lt = strpbrk(tok[i], "<>");
        if (!eq || (lt && lt < eq)) {
            if (parse_condition(&r, tok[i], why, cap))
                return -1;
            continue;
        }
        *eq = '\0';
        const char *k = tok[i], *v = eq + 1;
        int f;
        for (f = 0; f < NV_PF_COUNT; f++)
            if (!strcmp(k, field_names[f]))
                break;
        if (f < NV_PF_COUNT) {
            if (r.match[f].n) {
                snprintf(why, cap, "%s= given twice", k);
                return -1;
            }
            if (parse_list(&r.match[f], v, why, cap))
                return -1;
        } else if (!strcmp(k, "action")) {
            struct nv_policy_list l;
            if (parse_list(&l, v, why, cap))
                return -1;
            for (int a = 0; a < l.n; a++) {
                int j;
                for (j = 0; j < 8; j++)
                    if (!strcmp(l.item[a], action_names[j]))
                        break;
                if (j == 8) {
                    snprintf(why, cap,
                             "unknown action '%s' (known: message, annotate, contain, "
                             "avoid, isolate, hold, deny, resize)",
                             l.item[a]);
                    return -1;
                }
                r.actions |= 1u << j;
            }
        } else if (!strcmp(k, "message") || !strcmp(k, "reason")) {
            char *dst = k[0] == 'm' ? r.message : r.reason;
            if (strlen(v) >= NV_POLICY_TEXT_MAX || !*v) {
                snprintf(why, cap, "%s= is empty or longer than %d characters", k,
                         NV_POLICY_TEXT_MAX - 1);
                return -1;
            }
            snprintf(dst, NV_POLICY_TEXT_MAX, "%s", v);
        } else {
            snprintf(why, cap,
                     "unknown rule key '%s' (known: partition, account, qos, user, app, "
                     "action, message, reason, and conditions)",
                     k);
            return -1;
        }
    }
    if (!r.actions) {
        snprintf(why, cap, "rule '%s' has no action=", r.name);
        return -1;
    }
    if ((r.actions & NV_ACT_DENY) &&
        (r.actions & ~(unsigned)(NV_ACT_DENY | NV_ACT_MESSAGE | NV_ACT_ANNOTATE))) {
        char acts[128];
        nv_actions_format(r.actions & ~(unsigned)(NV_ACT_DENY | NV_ACT_MESSAGE | NV_ACT_ANNOTATE),
                          acts, sizeof acts);
        snprintf(why, cap, "rule '%s': deny contradicts %s (a denied job is never placed)", r.name,
                 acts);
        return -1;
    }
    if ((r.actions & NV_ACT_MESSAGE) && !r.message[0]) {
        snprintf(why, cap, "rule '%s': action message needs message=\"text\"", r.name);
        return -1;
    }
    for (int m = 0; m < NV_PM_COUNT; m++)
        if (bound_empty(&r.bound[m], m)) {
            snprintf(why, cap, "rule '%s' matches nothing: no %s satisfies its bounds", r.name,
                     metric_names[m]);
            return -1;
        }
    p->rule[p->n++] = r;
    return 0;
}

static bool matches_everything(const struct nv_policy_rule *r)
{
    for (int f = 0; f < NV_PF_COUNT; f++)
        for (int i = 0; i < r->match[f].n; i++)
            if (strcmp(r->match[f].item[i], "*"))
                return false;
    for (int m = 0; m < NV_PM_COUNT; m++)
        if (r->bound[m].has_lo || r->bound[m].has_hi)
            return false;
    return true;
}

int nv_policy_check(const struct nv_policy *p, void (*report)(void *ctx, int line, const char *why),
                    void *ctx)
{
    int problems = 0;
    /* a deny that matches every job refuses every submission, whatever
     * netvar predicts: not a co-scheduling rule (to close a cluster, Slurm
     * has its own means); the plugin stays passive rather than deny all */
    for (int i = 0; i < p->n; i++)
        if ((p->rule[i].actions & NV_ACT_DENY) && matches_everything(&p->rule[i])) {
            char why[256];
            snprintf(why, sizeof why,
                     "rule '%s' denies every job: it has no condition (add "
                     "own_slowdown, inflicted_slowdown, utilization or a list to match)",
                     p->rule[i].name);
            report(ctx, p->rule[i].line, why);
            problems++;
        }
    for (int i = 0; i < p->n; i++) {
        if (!matches_everything(&p->rule[i]))
            continue;
        for (int j = i + 1; j < p->n; j++) {
            char why[256];
            snprintf(why, sizeof why,
                     "rule '%s' is never reached: rule '%s' on line %d matches every job first",
                     p->rule[j].name, p->rule[i].name, p->rule[i].line);
            report(ctx, p->rule[j].line, why);
            problems++;
        }
        break;
    }
    return problems;
}

int nv_policy_warn(const struct nv_policy *p, void (*report)(void *ctx, int line, const char *why),
                   void *ctx)
{
    int n = 0;
    for (int i = 0; i < p->n; i++)
        if ((p->rule[i].actions & NV_ACT_DENY) && !p->rule[i].reason[0]) {
            char why[256];
            snprintf(why, sizeof why,
                     "rule '%s' denies with no reason=: a refused user is told only "
                     "\"predicted network interference\"",
                     p->rule[i].name);
            report(ctx, p->rule[i].line, why);
            n++;
        }
    return n;
}

static bool list_matches(const struct nv_policy_list *l, const char *s)
{
    if (l->n == 0)
        return true;
    for (int i = 0; i < l->n; i++) {
        if (!strcmp(l->item[i], "*"))
            return true;
        if (s && fnmatch(l->item[i], s, 0) == 0)
            return true;
    }
    return false;
}

static bool bound_matches(const struct nv_policy_bound *b, bool known, double x)
{
    if (!b->has_lo && !b->has_hi)
        return true;
    if (!known || !isfinite(x))
        return false;
    if (b->has_lo && (b->lo_incl ? x < b->lo : x <= b->lo))
        return false;
    if (b->has_hi && (b->hi_incl ? x > b->hi : x >= b->hi))
        return false;
    return true;
}

const struct nv_policy_rule *nv_policy_match(const struct nv_policy *p,
                                             const struct nv_policy_query *q)
{
    for (int i = 0; i < p->n; i++) {
        const struct nv_policy_rule *r = &p->rule[i];
        bool ok = true;
        for (int f = 0; ok && f < NV_PF_COUNT; f++)
            ok = list_matches(&r->match[f], q->field[f]);
        for (int m = 0; ok && m < NV_PM_COUNT; m++)
            ok = bound_matches(&r->bound[m], q->known[m], q->value[m]);
        if (ok)
            return r;
    }
    return NULL;
}
