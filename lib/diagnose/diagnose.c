/* diagnose.c - per-window congestion diagnosis after "Congestion diagnosis" ch. 4 (see
 * diagnose.h). */
#include "diagnose.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nv_err.h"

static const char *const cause_names[] = {"no congestion", "communication pattern", "mapping",
                                          "background interference", "inconclusive"};
static const char *const cause_advice[] = {
    "no port was congested; the network did not slow this job",
    "the congestion is rooted at a node's own link at line rate (endpoint congestion); no "
    "placement removes it: change the communication pattern (e.g. a collective instead of "
    "many-to-one messages)",
    "the congestion is inside the network on links that the job's own traffic fills; a "
    "placement with more locality (fewer nodes per uplink crossing) should remove it",
    "the congested links carry little of the job's own traffic: other jobs filled them; the "
    "job need not change, a later run may not see it",
    "the data do not decide between the causes (see the reason)"};

const char *nv_diag_cause_name(nv_diag_cause c)
{
    return (unsigned)c <= NV_CAUSE_INCONCLUSIVE ? cause_names[c] : "unknown";
}

const char *nv_diag_cause_advice(nv_diag_cause c)
{
    return (unsigned)c <= NV_CAUSE_INCONCLUSIVE ? cause_advice[c] : "";
}

void nv_diag_params_default(nv_diag_params *p)
{
    p->congested_fraction = 0.1;
    p->near_line_rate = 0.8;
    p->small_share = 0.5;
    p->min_bytes = 1024.0 * 1024.0;
    p->min_window_s = 0.05;
}

static double frac(double a, double b)
{
    return (isfinite(a) && isfinite(b) && b > 0) ? a / b : NAN;
}

static void judge_port(const nv_diag_port *pt, const nv_diag_params *p, nv_diag_port_result *r)
{
    double cap =
        pt->line_rate_Bps > 0 && isfinite(pt->window_s) ? pt->line_rate_Bps * pt->window_s : NAN;
    r->utilization = frac(pt->traffic_bytes, cap);
    r->own_utilization = frac(pt->own_bytes, cap);
    r->congested_fraction = frac(pt->stall_units, pt->traffic_bytes);
    if (!(pt->window_s >= p->min_window_s) || !(pt->traffic_bytes >= p->min_bytes) ||
        !isfinite(r->congested_fraction))
        r->congested = -1;
    else
        r->congested = r->congested_fraction >= p->congested_fraction;
}

static void diagnose_window(const nv_diag_port *ports, size_t n, const nv_diag_port_result *res,
                            unsigned w, const nv_diag_params *p, nv_diag_window *out)
{
    out->window = w;
    out->root = -1;
    out->congested = 0;
    size_t judged = 0;
    long ep = -1, map = -1, bg = -1, ep_slow = -1, net_unknown_own = -1, no_rate = -1;
    size_t net_congested = 0, net_bg = 0;
    for (size_t i = 0; i < n; i++) {
        if (ports[i].window != w)
            continue;
        const nv_diag_port_result *r = &res[i];
        if (r->congested < 0)
            continue;
        judged++;
        if (!r->congested)
            continue;
        out->congested++;
        if (!isfinite(r->utilization)) {
            no_rate = no_rate < 0 ? (long)i : no_rate;
            continue;
        }
        if (ports[i].kind == NV_LINK_ENDPOINT) {
            if (r->utilization >= p->near_line_rate) {
                if (ep < 0 || r->congested_fraction > res[ep].congested_fraction)
                    ep = (long)i;
            } else if (ep_slow < 0 || r->congested_fraction > res[ep_slow].congested_fraction) {
                ep_slow = (long)i;
            }
            continue;
        }
        net_congested++;
        if (!isfinite(r->own_utilization)) {
            net_unknown_own = net_unknown_own < 0 ? (long)i : net_unknown_own;
        } else if (r->own_utilization >= p->near_line_rate) {
            if (map < 0 || r->own_utilization > res[map].own_utilization)
                map = (long)i;
        } else if (r->own_utilization < p->small_share) {
            net_bg++;
            if (bg < 0 || r->congested_fraction > res[bg].congested_fraction)
                bg = (long)i;
        }
    }
    char *why = out->reason;
    size_t wl = sizeof out->reason;
    if (!judged) {
        out->cause = NV_CAUSE_INCONCLUSIVE;
        snprintf(why, wl,
                 "too little data: no port carried %.0f bytes or more with stall "
                 "counters in a window of %.2f s or more",
                 p->min_bytes, p->min_window_s);
        return;
    }
    if (!out->congested) {
        out->cause = NV_CAUSE_NONE;
        snprintf(why, wl, "none of %zu ports reached a congested fraction of %.2f", judged,
                 p->congested_fraction);
        return;
    }
    if (ep >= 0) {
        out->cause = NV_CAUSE_PATTERN;
        out->root = ep;
        snprintf(why, wl,
                 "endpoint congestion at node %.60s (port %.60s): congested fraction %.3f, "
                 "link at %.1f %% of line rate (Theorem 4.1)",
                 ports[ep].node, ports[ep].name, res[ep].congested_fraction,
                 100 * res[ep].utilization);
        return;
    }
    if (map >= 0) {
        out->cause = NV_CAUSE_MAPPING;
        out->root = map;
        snprintf(why, wl,
                 "congestion inside the network at %.60s (switch %.60s): congested fraction "
                 "%.3f, the job's own traffic at %.1f %% of line rate (Theorem 4.2)",
                 ports[map].name, ports[map].sw, res[map].congested_fraction,
                 100 * res[map].own_utilization);
        return;
    }
    if (bg >= 0 && net_bg == net_congested) {
        out->cause = NV_CAUSE_BACKGROUND;
        out->root = bg;
        snprintf(why, wl,
                 "congested link %.60s (switch %.60s, congested fraction %.3f) carries the "
                 "job's own traffic at only %.1f %% of line rate (total %.1f %%): "
                 "other traffic fills it (Theorem 4.2)",
                 ports[bg].name, ports[bg].sw, res[bg].congested_fraction,
                 100 * res[bg].own_utilization, 100 * res[bg].utilization);
        return;
    }
    out->cause = NV_CAUSE_INCONCLUSIVE;
    if (net_unknown_own >= 0)
        snprintf(why, wl,
                 "network port %.60s is congested (fraction %.3f) but the job's own "
                 "traffic on it is unknown (no traffic matrix recorded)",
                 ports[net_unknown_own].name, res[net_unknown_own].congested_fraction);
    else if (no_rate >= 0)
        snprintf(why, wl,
                 "port %.60s is congested (fraction %.3f) but its line rate is unknown; "
                 "give it (--line-rate) or read sysfs",
                 ports[no_rate].name, res[no_rate].congested_fraction);
    else if (ep_slow >= 0)
        snprintf(why, wl,
                 "node links stall (%.60s: fraction %.3f) at only %.1f %% of line rate: "
                 "the root is a link not in view (no congested network port seen)",
                 ports[ep_slow].name, res[ep_slow].congested_fraction,
                 100 * res[ep_slow].utilization);
    else
        snprintf(why, wl,
                 "congested network links carry the job's own traffic between %.0f %% "
                 "and %.0f %% of line rate: neither near line rate nor small",
                 100 * p->small_share, 100 * p->near_line_rate);
}

int nv_diagnose(const nv_diag_port *ports, size_t n, const nv_diag_params *pin, nv_diagnosis *d,
                char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    d->root = -1;
    nv_diag_params p;
    if (pin)
        p = *pin;
    else
        nv_diag_params_default(&p);
    if (n > NV_DIAG_MAX_PORTS) {
        return nv_err(err, errlen, "diagnose: %zu port windows is more than %d", n,
                      NV_DIAG_MAX_PORTS);
    }
    d->per_port = calloc(n ? n : 1, sizeof *d->per_port);
    /* distinct windows, sorted */
    unsigned *wins = malloc((n ? n : 1) * sizeof *wins);
    if (!d->per_port || !wins) {
        free(wins);
        nv_diagnosis_free(d);
        return nv_err(err, errlen, "diagnose: out of memory");
    }
    size_t nw = 0;
    for (size_t i = 0; i < n; i++) {
        judge_port(&ports[i], &p, &d->per_port[i]);
        size_t k = 0;
        while (k < nw && wins[k] < ports[i].window)
            k++;
        if (k < nw && wins[k] == ports[i].window)
            continue;
        memmove(wins + k + 1, wins + k, (nw - k) * sizeof *wins);
        wins[k] = ports[i].window;
        nw++;
    }
    d->windows = calloc(nw ? nw : 1, sizeof *d->windows);
    if (!d->windows) {
        free(wins);
        nv_diagnosis_free(d);
        return nv_err(err, errlen, "diagnose: out of memory");
    }
    d->n_windows = nw;
    size_t count[NV_CAUSE_INCONCLUSIVE + 1] = {0};
    for (size_t k = 0; k < nw; k++) {
        diagnose_window(ports, n, d->per_port, wins[k], &p, &d->windows[k]);
        count[d->windows[k].cause]++;
        if (strncmp(d->windows[k].reason, "too little data", 15))
            d->windows_judged++;
    }
    free(wins);
    if (nw == 0) {
        d->cause = NV_CAUSE_INCONCLUSIVE;
        snprintf(d->reason, sizeof d->reason,
                 "too little data: no port data at all (no "
                 "counters in the records)");
        return 0;
    }
    nv_diag_cause best = NV_CAUSE_NONE;
    for (int c = NV_CAUSE_PATTERN; c <= NV_CAUSE_BACKGROUND; c++)
        if (count[c] > count[best] || (best == NV_CAUSE_NONE && count[c]))
            best = (nv_diag_cause)c;
    if (best == NV_CAUSE_NONE && !count[NV_CAUSE_NONE])
        best = NV_CAUSE_INCONCLUSIVE;
    d->cause = best;
    for (size_t k = 0; k < nw; k++)
        if (d->windows[k].cause == best) {
            d->root = d->windows[k].root;
            if (count[best] == nw)
                snprintf(d->reason, sizeof d->reason, "%s", d->windows[k].reason);
            else
                snprintf(d->reason, sizeof d->reason, "in %zu of %zu windows: %.240s", count[best],
                         nw, d->windows[k].reason);
            break;
        }
    return 0;
}

void nv_diagnosis_free(nv_diagnosis *d)
{
    if (!d)
        return;
    free(d->windows);
    free(d->per_port);
    d->windows = NULL;
    d->per_port = NULL;
}
