/* ctr_delta.c - increases between two snapshots: 64-bit counters are
 * unwrapped, saturating (32/16-bit) ones give a flagged lower bound. */
#include "counters_internal.h"

#include <stdio.h>
#include <string.h>

uint64_t nv_ctr_raw_delta(uint64_t a, uint64_t b, uint64_t sat_max, bool b_saturated,
                          bool *lower_bound, bool *wrapped)
{
    *lower_bound = false;
    *wrapped = false;
    if (sat_max == 0) {
        /* modular: b < a means the counter went past 2^64-1 once */
        if (b < a)
            *wrapped = true;
        return b - a;
    }
    if (b < a) {
        /* a saturating counter never wraps: it was reset (perfquery -x -r),
         * so what it holds now is all we know happened */
        *lower_bound = true;
        return b;
    }
    if (b_saturated || b >= sat_max)
        *lower_bound = true;
    return b - a;
}

static uint64_t mul_capped(uint64_t v, uint64_t k)
{
    if (k && v > UINT64_MAX / k)
        return UINT64_MAX;
    return v * k;
}

int nv_ctr_delta_compute(const nv_ctr_snapshot *a, const nv_ctr_snapshot *b, nv_ctr_delta *out,
                         char *err, size_t errlen)
{
    if (!a || !b || !out) {
        if (err && errlen)
            snprintf(err, errlen, "counters: delta of a missing snapshot");
        return -1;
    }
    if (strncmp(a->backend, b->backend, sizeof a->backend)) {
        if (err && errlen)
            snprintf(err, errlen, "counters: snapshots come from different backends (%s, %s)",
                     a->backend, b->backend);
        return -1;
    }
    if (b->t_ns < a->t_ns) {
        if (err && errlen)
            snprintf(err, errlen, "counters: the later snapshot is older than the earlier one");
        return -1;
    }
    memset(out, 0, sizeof *out);
    memcpy(out->backend, b->backend, sizeof out->backend);
    out->dt_ns = b->t_ns - a->t_ns;
    int na = a->nports > NV_CTR_MAX_PORTS ? NV_CTR_MAX_PORTS : a->nports;
    int nb = b->nports > NV_CTR_MAX_PORTS ? NV_CTR_MAX_PORTS : b->nports;
    for (int j = 0; j < nb; j++) {
        const nv_ctr_port *pb = &b->port[j];
        const nv_ctr_port *pa = NULL;
        /* same reader keeps the same order; fall back to a name search */
        if (j < na && !strncmp(a->port[j].name, pb->name, NV_CTR_NAME_MAX))
            pa = &a->port[j];
        for (int i = 0; !pa && i < na; i++)
            if (!strncmp(a->port[i].name, pb->name, NV_CTR_NAME_MAX))
                pa = &a->port[i];
        nv_ctr_port_delta *d = &out->port[out->nports++];
        memcpy(d->name, pb->name, sizeof d->name);
        d->name[sizeof d->name - 1] = '\0';
        d->kind = pb->kind;
        for (int f = 0; f < NV_CTR_NFIELDS; f++) {
            const nv_ctr_value *vb = &pb->f[f];
            d->f[f].unit = vb->unit;
            if (!pa || !pa->f[f].valid || !vb->valid)
                continue;
            const nv_ctr_value *va = &pa->f[f];
            bool lb, wr;
            /* a counter that was already stuck in a is stuck in b too */
            uint64_t sat = vb->sat_max ? vb->sat_max : va->sat_max;
            uint64_t raw = nv_ctr_raw_delta(va->raw, vb->raw, sat, vb->saturated, &lb, &wr);
            d->f[f].value = mul_capped(raw, vb->scale ? vb->scale : 1);
            d->f[f].valid = true;
            d->f[f].lower_bound = lb;
            d->f[f].wrapped = wr;
        }
    }
    return 0;
}
