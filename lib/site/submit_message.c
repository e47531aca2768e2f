/* submit_message.c - the lines job_submit/netvar shows the user, from a
 * decision whose other stages have run (submit_stages.h): numbers with
 * units and their sources, the rule applied, and what an action could
 * not do.  Pure, allocation-free. */
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fmt_fixed.h"
#include "fmt_lite.h"
#include "placement.h"
#include "submit_stages.h"

/* "%.Nf" of x as printf writes it (nv_fmt_fixed: without printf's
 * multi-precision path where plain arithmetic is exact), for the user's
 * line, which every submission formats; room for any double */
#define NV_FIXED_MAX 400
static const char *fixed(char buf[NV_FIXED_MAX], double x, int decimals)
{
    if (nv_fmt_fixed(buf, NV_FIXED_MAX, x, decimals) < 0)
        snprintf(buf, NV_FIXED_MAX, "?");
    return buf;
}

/* appends one line to d->message (nothing once it is full); d->message_len
 * is where it ends */
__attribute__((format(printf, 2, 3))) static void say(struct nv_submit_decision *d, const char *fmt,
                                                      ...)
{
    size_t len = d->message_len;
    if (len + 2 >= sizeof d->message)
        return;
    if (len)
        d->message[len++] = '\n';
    va_list ap;
    va_start(ap, fmt);
    nv_fmt_vappend(d->message, sizeof d->message, &len, fmt, ap);
    va_end(ap);
    d->message_len = len;
}

void nv_submit_alloc_line(const nv_alloc_advice *a, const char *cut, struct nv_submit_decision *d)
{
    char vs[160] = "";
    if (a->compared.nodes != a->best.nodes)
        snprintf(vs, sizeof vs, ": %.0f %% faster than %u, which would span %u switch%s%s",
                 a->margin_pct, a->compared.nodes, a->compared.switches,
                 a->compared.switches == 1 ? "" : "es",
                 a->compared.switches > 1 && isfinite(d->own_pct) && d->own_jobid ? " beside job "
                                                                                  : "");
    size_t n = strlen(vs);
    if (a->compared.nodes != a->best.nodes && a->compared.switches > 1 && isfinite(d->own_pct) &&
        d->own_jobid)
        snprintf(vs + n, sizeof vs - n, "%u", d->own_jobid);
    char bound[64] = "";
    if (*cut)
        snprintf(bound, sizeof bound, "; the %s has fewer nodes than you allowed", cut);
    int w = snprintf(d->advice_line, sizeof d->advice_line,
                     "netvar: advice %u nodes x %u (%u switch%s, %.3g s predicted)%s; %s%s",
                     a->best.nodes, a->ppn, a->best.switches, a->best.switches == 1 ? "" : "es",
                     a->best.time_s, vs, d->advice_source, bound);
    if (w >= (int)sizeof d->advice_line) /* cut: say so */
        memcpy(d->advice_line + sizeof d->advice_line - 4, "...", 4);
}

/* the first line: the app, and what was predicted for it (or why not) */
static void render_prediction(struct nv_submit_decision *d)
{
    const char *app = d->app[0] ? d->app : "(unnamed)";
    if (!d->have_model) {
        say(d, "netvar: app %s: no model loaded yet, so no prediction (job annotated only)", app);
        return;
    }
    if (!d->app[0]) {
        say(d, "netvar: no app name (use --netvar-app=NAME); no prediction");
        return;
    }
    if (!d->app_known) {
        say(d, "netvar: app %s (from %s) is not in the model yet; no prediction", app,
            d->app_source);
        return;
    }
    char line[1536]; /* as long as the message: numbers of any size fit */
    char f1[NV_FIXED_MAX], f2[NV_FIXED_MAX];
    size_t n = 0;
    nv_fmt_append(line, sizeof line, &n, "netvar: app %s: rho %s", app,
                  fixed(f1, d->utilization, 2));
    if (isfinite(d->own_pct))
        nv_fmt_append(line, sizeof line, &n, "; predicted slowdown %s %% beside job %u (%s; %s)",
                      fixed(f2, d->own_pct, 0), d->own_jobid, d->own_with ? d->own_with : "?",
                      d->own_source);
    if (isfinite(d->inflicted_pct))
        nv_fmt_append(line, sizeof line, &n, "; would slow job %u (%s) by %s %% (%s)",
                      d->inflicted_jobid, d->inflicted_app ? d->inflicted_app : "?",
                      fixed(f2, d->inflicted_pct, 0), d->inflicted_source);
    if (!isfinite(d->own_pct) && !isfinite(d->inflicted_pct))
        nv_fmt_append(line, sizeof line, &n, "; no running job to interfere with");
    if (d->advice) {
        /* the predictive route explains itself on its own line */
        const char *src = d->advice_line[0] ? "predicted communication, below" : d->advice_source;
        if (d->advice_nodes != d->requested_nodes && d->advice_saving_pct > 0)
            nv_fmt_append(line, sizeof line, &n, "; advice %u nodes (-%s %% time vs %u; %s)",
                          d->advice_nodes, fixed(f2, d->advice_saving_pct, 0), d->requested_nodes,
                          src);
        else
            nv_fmt_append(line, sizeof line, &n, "; advice %u nodes (%s)", d->advice_nodes, src);
    }
    say(d, "%s", line);
    if (d->advice_line[0])
        say(d, "%s", d->advice_line);
}

/* the uplinks of an avoided job under several leaf switches */
static void render_span(const struct nv_submit_query *q, const struct nv_submit_choice *ch,
                        struct nv_submit_decision *d)
{
    const char *more = d->avoid_span_more ? " (so do other avoided jobs)" : "";
    const char *span_app = d->avoid_span_app ? d->avoid_span_app : "?";
    char tail[256];
    switch (ch->span) {
    case NV_SPAN_NONE: return;
    case NV_SPAN_CONTAINED:
        say(d,
            "netvar: job %u (%s) spans %u leaf switches and loads their uplinks%s: avoid "
            "also keeps this job under one leaf switch (waiting up to %u s for one), "
            "where it crosses no uplink",
            d->avoid_span_jobid, span_app, d->avoid_span_switches, more, d->contain_wait_s);
        return;
    case NV_SPAN_USER_SWITCHES:
        snprintf(tail, sizeof tail,
                 "%s; your --switches=%u is kept, so across leaf switches this "
                 "job would still share their uplinks",
                 more, q->req_switch);
        break;
    case NV_SPAN_USER_NODES:
        snprintf(tail, sizeof tail,
                 "%s; you named this job's nodes, so if they lie under several "
                 "leaf switches it still shares their uplinks",
                 more);
        break;
    case NV_SPAN_TOO_BIG:
        snprintf(tail, sizeof tail,
                 "%s; this job needs %u nodes, more than one leaf switch holds "
                 "(%u), so it would still share their uplinks",
                 more, d->resize_nodes > ch->need ? d->resize_nodes : ch->need, ch->leaf);
        break;
    case NV_SPAN_WARN:
        snprintf(tail, sizeof tail,
                 ": on other nodes under them this job would still share "
                 "their uplinks%s",
                 d->avoid_span_more ? " (so would other avoided jobs)" : "");
        break;
    }
    say(d, "netvar: avoid excludes the nodes of job %u (%s), which spans %u leaf switches%s",
        d->avoid_span_jobid, span_app, d->avoid_span_switches, tail);
}

/* the rule applied, and what its actions did or could not do */
static void render_rule(const struct nv_submit_query *q, const struct nv_submit_choice *ch,
                        struct nv_submit_decision *d)
{
    char acts[128];
    nv_actions_format(d->actions & ~(unsigned)NV_ACT_ANNOTATE, acts, sizeof acts);
    if (acts[0])
        say(d, "netvar: policy rule '%s' applied: %s", d->rule->name, acts);
    /* the admin's text says what the rule does: not shown when avoid,
     * which it may describe, was not done */
    if ((d->actions & NV_ACT_MESSAGE) && d->rule->message[0] && !d->avoid_dropped &&
        !d->avoid_all_named)
        say(d, "%s", d->rule->message);
    if (d->resize_nodes)
        say(d, "netvar: node count set to the advised %u (you asked for --netvar-advise=apply)",
            d->resize_nodes);
    else if (ch->resize_wanted && d->advice && !q->advise_apply &&
             d->advice_nodes != d->requested_nodes)
        say(d, "netvar: to run on the advised node count, add --netvar-advise=apply "
               "and give a range with --nodes=MIN-MAX");
    if (d->avoid_dropped)
        say(d,
            "netvar: not placed away from the jobs it would slow down: avoiding their "
            "nodes would leave %ld of the partition's %zu nodes, fewer than the %u this "
            "job needs",
            ch->left, ch->part_total, ch->need);
    if (d->contain_span_skipped)
        say(d, "netvar: contain left out: this job needs more than one leaf switch, and "
               "ContainSpanWaitSeconds=0 contains only jobs that fit under one");
    if (d->exclude_cut)
        say(d, "netvar: the list of nodes to avoid was cut to %d bytes", NV_REG_NODES_MAX);
    if (d->avoid_named == (size_t)-1)
        say(d,
            "netvar: your --nodelist could not be expanded (not a host list, or over %d "
            "names), so avoid excludes no node: Slurm refuses a job that requires a node "
            "it excludes",
            NV_NAMED_NODES_MAX);
    else if (d->avoid_named)
        say(d,
            "netvar: avoid does not exclude the %zu node%s you named with --nodelist "
            "(%s%s) where a job to keep apart from runs: Slurm would refuse the submission",
            d->avoid_named, d->avoid_named == 1 ? "" : "s", d->avoid_named_first,
            d->avoid_named > 1 ? ", ..." : "");
    render_span(q, ch, d);
}

void nv_submit_render(const struct nv_config *c, const struct nv_submit_query *q,
                      const struct nv_submit_choice *ch, struct nv_submit_decision *d)
{
    (void)c; /* every stage takes the config; the waits rendered are the decision's */
    render_prediction(d);
    if (d->rule)
        render_rule(q, ch, d);
}

/* the plain-words message (submit_decision.h) */
struct plain {
    char *buf;
    size_t cap, len;
};

__attribute__((format(printf, 2, 3))) static void put(struct plain *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    nv_fmt_vappend(o->buf, o->cap, &o->len, fmt, ap);
    va_end(ap);
}

/* a slowdown worth telling the user: at or over the threshold, and at
 * least 1 % as shown */
static bool worth(const struct nv_config *c, double pct)
{
    return isfinite(pct) && round(pct) >= 1.0 && pct >= c->interference_pct - 1e-6;
}

/* the sentence about the neighbours; returns how many jobs it named */
static int plain_prediction(const struct nv_config *c, const struct nv_submit_decision *d,
                            struct plain *o)
{
    bool own = worth(c, d->own_pct), infl = worth(c, d->inflicted_pct);
    char f1[NV_FIXED_MAX], f2[NV_FIXED_MAX];
    const char *with = d->own_with ? d->own_with : "?";
    const char *victim = d->inflicted_app ? d->inflicted_app : "?";
    if (own && d->vs_n > 1) {
        /* the sum over the running jobs on its links (submit_decision.h) */
        bool assumed = d->vs_assumed && d->vs_assumed[0];
        put(o,
            "your job would share network links with %u running jobs (job %u, %s, and %u "
            "more); expected slowdown about %s %% beside them together%s.",
            d->vs_n, d->own_jobid, with, d->vs_n - 1, fixed(f1, d->own_pct, 0),
            assumed ? " (where it will run is not known yet, so all of them were counted)" : "");
        if (infl)
            put(o, " It would slow job %u (%s) down by about %s %%.", d->inflicted_jobid, victim,
                fixed(f2, d->inflicted_pct, 0));
        return (int)d->vs_n;
    }
    if (own && infl && d->own_jobid == d->inflicted_jobid) {
        put(o,
            "your job would share a network link with job %u (%s); expected slowdown about "
            "%s %%, and about %s %% for job %u.",
            d->own_jobid, with, fixed(f1, d->own_pct, 0), fixed(f2, d->inflicted_pct, 0),
            d->inflicted_jobid);
        return 1;
    }
    if (own && infl) {
        put(o,
            "your job would share network links with job %u (%s), expected slowdown about "
            "%s %%, and with job %u (%s), which it would slow down by about %s %%.",
            d->own_jobid, with, fixed(f1, d->own_pct, 0), d->inflicted_jobid, victim,
            fixed(f2, d->inflicted_pct, 0));
        return 2;
    }
    if (own) {
        put(o,
            "your job would share a network link with job %u (%s); expected slowdown about "
            "%s %%.",
            d->own_jobid, with, fixed(f1, d->own_pct, 0));
        return 1;
    }
    if (infl) {
        put(o,
            "your job would share a network link with job %u (%s) and slow it down by about %s %%.",
            d->inflicted_jobid, victim, fixed(f2, d->inflicted_pct, 0));
        return 1;
    }
    return 0;
}

/* what netvar did, or could not do, as sentences */
static void plain_actions(const struct nv_submit_query *q, const struct nv_submit_decision *d,
                          int named, struct plain *o)
{
    const char *them = named == 1  ? "it"
                       : named > 1 ? "them"
                                   : "the running jobs it would interfere with";
#define SP (o->len ? " " : "")
    if ((d->actions & NV_ACT_AVOID) && d->exclude[0])
        put(o, "%sPlaced away from %s.", SP, them);
    if (d->avoid_dropped)
        put(o, "%sNot placed away from %s: that would leave too few nodes for this job.", SP, them);
    else if (d->avoid_named)
        put(o, "%sNot kept off the nodes you named with --nodelist.", SP);
    /* contain keeps a --switches of the user's (apply_decision.c) */
    if ((d->actions & NV_ACT_CONTAIN) && !q->req_switch && d->contain_switches > 1)
        put(o, "%sKept under as few network switches as hold it, %u (waiting up to %u s for them).",
            SP, d->contain_switches, d->contain_wait_s);
    else if ((d->actions & NV_ACT_CONTAIN) && !q->req_switch)
        put(o, "%sKept under one network switch (waiting up to %u s for one).", SP,
            d->contain_wait_s);
    else if (d->contain_span_skipped)
        put(o,
            "%sNot held back for fewer network switches: it needs more than one, and this "
            "site waits only for jobs that fit under one.",
            SP);
    if (d->actions & NV_ACT_ISOLATE)
        put(o, "%sGiven whole nodes, shared with no other job.", SP);
    if (d->actions & NV_ACT_HOLD)
        put(o, "%sHeld: it waits until an administrator releases it.", SP);
    if (d->resize_nodes)
        put(o, "%sRun on the advised %u nodes (you asked for --netvar-advise=apply).", SP,
            d->resize_nodes);
#undef SP
}

void nv_submit_user_message(const struct nv_config *c, const struct nv_submit_query *q,
                            const struct nv_submit_decision *d, char *buf, size_t cap)
{
    if (!cap)
        return;
    buf[0] = '\0';
    if (c->user_messages == NV_UMSG_NONE)
        return;
    if (c->user_messages == NV_UMSG_ALL) {
        snprintf(buf, cap, "%s", d->message);
        return;
    }
    char pred[512] = "", act[512] = "";
    struct plain po = {pred, sizeof pred, 0}, ao = {act, sizeof act, 0};
    int named = plain_prediction(c, d, &po);
    plain_actions(q, d, named, &ao);
    /* the admin's own text, as render_rule shows it */
    const char *admin = d->rule && (d->actions & NV_ACT_MESSAGE) && d->rule->message[0] &&
                                !d->avoid_dropped && !d->avoid_all_named
                            ? d->rule->message
                            : NULL;
    bool acted = ao.len || admin || (d->actions & NV_ACT_DENY);
    bool advice = d->advice && !d->resize_nodes && d->advice_nodes != d->requested_nodes &&
                  worth(c, d->advice_saving_pct);
    if (!acted && (c->user_messages == NV_UMSG_ACTIONS || (!named && !advice)))
        return;
    struct plain o = {buf, cap, 0};
    if (!po.len && ao.len) /* the actions begin the line */
        act[0] = (char)tolower((unsigned char)act[0]);
    if (po.len || ao.len)
        put(&o, "netvar: %s%s%s", pred, po.len && ao.len ? " " : "", act);
    if (admin)
        put(&o, "%s%s", o.len ? "\n" : "", admin);
    if (advice && c->user_messages >= NV_UMSG_PREDICTIONS) {
        char f[NV_FIXED_MAX];
        put(&o,
            "%snetvar: your job is predicted to finish about %s %% sooner on %u nodes than on %u",
            o.len ? "\n" : "", fixed(f, d->advice_saving_pct, 0), d->advice_nodes,
            d->requested_nodes);
        if (!q->advise_apply)
            put(&o, "; to run on the advised count, add --netvar-advise=apply and give a range "
                    "with --nodes=MIN-MAX");
        put(&o, ".");
    }
}
