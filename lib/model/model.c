/* model.c - read-only accessors, hash lookups and freeing of nv_model. */
#include <stdlib.h>
#include <string.h>

#include "fabric.h"
#include "model_internal.h"
#include "alloc_model.h"
#include "ve_model.h"

static const char *const usrc_names[] = {"latency", "counters"};

const char *nv_wait_gauge_name(nv_wait_gauge g)
{
    return g == NV_WAIT_STALL_PER_WORD     ? "stall_per_word"
           : g == NV_WAIT_PAUSE_PER_PACKET ? "paused_cycles_per_packet"
           : g == NV_WAIT_STALL_PER_FLIT   ? "stall_per_flit"
                                           : "queue_us";
}

const char *nv_util_source_name(nv_util_source s)
{
    return (unsigned)s < 2 ? usrc_names[s] : "unknown";
}

const char *nv_curve_origin_name(nv_curve_origin o)
{
    static const char *const names[] = {"campaign", "production", "none", "profile"};
    return (unsigned)o < 4 ? names[o] : "unknown";
}

const char *nv_latency_origin_name(nv_latency_origin o)
{
    static const char *const names[] = {"impactb", "derived"};
    return (unsigned)o < 2 ? names[o] : "unknown";
}

int nv_model_key_valid(const char *key)
{
    if (!key || !*key)
        return 0;
    size_t n = 0;
    for (const char *p = key; *p; p++, n++) {
        char c = *p;
        if (n >= NV_MODEL_KEY_MAX)
            return 0;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              strchr("._+:/@=-", c)))
            return 0;
    }
    return 1;
}

uint64_t nv_key_hash(const char *key)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)key; *p; p++) {
        h ^= *p;
        h *= 1099511628211ull;
    }
    return h;
}

int32_t nv_model_find_hashed(const nv_model *m, const char *key, uint64_t h)
{
    if (!m->app_cap)
        return -1;
    size_t mask = m->app_cap - 1;
    for (size_t i = (size_t)h & mask, probes = 0; probes < m->app_cap;
         i = (i + 1) & mask, probes++) {
        int32_t a = m->app_slots[i];
        if (a < 0)
            return -1;
        if (m->apps[a].hash == h && !strcmp(m->apps[a].key, key))
            return a;
    }
    return -1;
}

int32_t nv_model_app_index(const nv_model *m, const char *key)
{
    if (!m || !key)
        return -1;
    return nv_model_find_hashed(m, key, nv_key_hash(key));
}

/* pair keys and their hash: model_internal.h (a slot is 8 bytes: the whole
 * table of a site's year is 1 MiB, in cache) */
long nv_model_pair_slot(const nv_model *m, int32_t a, int32_t b)
{
    if (!m->pair_cap)
        return -1;
    uint32_t k = nv_pair_key(a, b);
    size_t mask = m->pair_cap - 1;
    for (size_t i = nv_pair_hash(k) & mask, probes = 0; probes < m->pair_cap;
         i = (i + 1) & mask, probes++) {
        const struct nv_pair_slot *sl = &m->pair_tab[i];
        if (sl->idx < 0)
            return -1;
        if (sl->key == k)
            return sl->idx;
    }
    return -1;
}

long nv_model_pair_insert(nv_model *m, int32_t a, int32_t b, int32_t p)
{
    uint32_t k = nv_pair_key(a, b);
    size_t mask = m->pair_cap - 1;
    for (size_t i = nv_pair_hash(k) & mask;; i = (i + 1) & mask) {
        struct nv_pair_slot *sl = &m->pair_tab[i];
        if (sl->idx < 0) {
            sl->idx = p;
            sl->key = k;
            return -1;
        }
        if (sl->key == k)
            return sl->idx;
    }
}

size_t nv_model_app_count(const nv_model *m)
{
    return m ? m->n_apps : 0;
}
size_t nv_model_config_count(const nv_model *m)
{
    return m ? m->n_configs : 0;
}
size_t nv_model_pair_count(const nv_model *m)
{
    return m ? m->n_pairs : 0;
}
const nv_calibration *nv_model_calibration(const nv_model *m)
{
    return m ? &m->cal : NULL;
}

int nv_model_app(const nv_model *m, int32_t idx, nv_app_view *out)
{
    memset(out, 0, sizeof *out);
    if (!m || idx < 0 || (size_t)idx >= m->n_apps)
        return -1;
    const struct nv_app_rec *a = &m->apps[idx];
    out->key = a->key;
    out->utilization = a->utilization;
    out->utilization_source = a->usrc;
    out->latency = &m->app_lat[idx];
    /* NULL for an empty array: the pool itself may be NULL (no app has one) */
    out->points = a->n_pts ? m->curve + a->pts_off : NULL;
    out->n_points = a->n_pts;
    out->fit = a->n_fit ? m->curve + a->fit_off : NULL;
    out->n_fit = a->n_fit;
    out->fit_residual_pct = a->residual_pct;
    out->scaling = a->n_scal ? m->scaling + a->scal_off : NULL;
    out->n_scaling = a->n_scal;
    out->curve_origin = a->curve_origin;
    out->latency_origin = a->latency_origin;
    out->counter_rho = a->counter_rho;
    out->counter_runs = a->counter_runs;
    out->history_runs = a->history_runs;
    out->profile = a->n_prof ? m->profile + a->prof_off : NULL;
    out->n_profile = a->n_prof;
    out->wait_points = a->n_wpts ? m->curve + a->wpts_off : NULL;
    out->n_wait_points = a->n_wpts;
    out->wait_fit = a->n_wfit ? m->curve + a->wfit_off : NULL;
    out->n_wait_fit = a->n_wfit;
    out->wait_profile_us = a->n_wprof ? m->profile + a->wprof_off : NULL;
    out->n_wait_profile = a->n_wprof;
    out->wait_fit_residual_pct = a->wresidual_pct;
    out->prefers_wait = a->prefer_wait;
    out->sensitivity = a->sens;
    out->pressure = a->press;
    out->sensitivity_samples = a->sens_n;
    out->pressure_samples = a->press_n;
    out->neighbour_pressures_apply = nv_pressure_applies(m, a);
    out->share_weight = nv_share_weight(m, a);
    out->joint = a->n_jwin ? m->jraw + a->jwin_off : NULL;
    out->n_joint = a->n_jwin;
    out->joint_window_s = a->n_jwin ? a->jwin_s : 0;
    out->nearest_victim = m->nearest && a->nearest_victim;
    out->signature = a->sig >= 0 ? &m->sigs[a->sig] : NULL;
    out->curve_runs = a->curve_runs;
    return 0;
}

const nv_bottleneck *nv_model_bottleneck(const nv_model *m)
{
    return m ? &m->bn : NULL;
}

int nv_model_config(const nv_model *m, int32_t idx, nv_config_view *out)
{
    memset(out, 0, sizeof *out);
    if (!m || idx < 0 || (size_t)idx >= m->n_configs)
        return -1;
    const struct nv_config_rec *c = &m->configs[idx];
    out->id = c->id;
    out->bubble_cycles = c->bubble_cycles;
    out->partners = c->partners;
    out->messages = c->messages;
    out->utilization = c->utilization;
    out->queue_wait_us = c->wait_us;
    out->latency = &m->cfg_lat[idx];
    out->n_slowdowns = c->n_slow;
    return 0;
}

int nv_model_config_slowdown(const nv_model *m, int32_t idx, size_t k, int32_t *app,
                             double *slowdown_pct)
{
    *app = -1;
    *slowdown_pct = 0;
    if (!m || idx < 0 || (size_t)idx >= m->n_configs || k >= m->configs[idx].n_slow)
        return -1;
    const struct nv_slow_rec *s = &m->slow[m->slow_by_config[m->configs[idx].by_cfg_off + k]];
    *app = s->app;
    *slowdown_pct = s->pct;
    return 0;
}

int nv_model_pair(const nv_model *m, size_t k, nv_pair_view *out)
{
    memset(out, 0, sizeof *out);
    if (!m || k >= m->n_pairs)
        return -1;
    *out = m->pairs[k];
    return 0;
}

int nv_model_pair_find(const nv_model *m, int32_t app, int32_t with, nv_pair_view *out)
{
    memset(out, 0, sizeof *out);
    if (!m)
        return -1;
    long p = nv_model_pair_slot(m, app, with);
    if (p < 0)
        return -1;
    *out = m->pairs[p];
    return 0;
}

void nv_model_free(nv_model *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n_apps; i++)
        free(m->apps[i].key);
    for (size_t i = 0; i < m->n_configs; i++)
        free(m->configs[i].id);
    nv_model_free_hot(m); /* apps, where, sgrid, acurve, profile, pair_tab, pairs */
    free(m->app_lat);
    free(m->app_slots);
    free(m->fabric);
    free(m->sigs);
    free(m->curve);
    free(m->scaling);
    free(m->configs);
    free(m->cfg_lat);
    free(m->cfg_by_util);
    free(m->slow);
    free(m->slow_by_config);
    free(m->jraw);
    free(m->jwin);
    free(m->nrow);
    nv_ve_free(m->ve);
    nv_alloc_free(m->alloc);
    free(m);
}

const struct nv_fabric *nv_model_fabric(const nv_model *m)
{
    return m ? m->fabric : NULL;
}

const struct nv_ve *nv_model_variability(const nv_model *m)
{
    return m ? m->ve : NULL;
}

const struct nv_alloc_model *nv_model_alloc(const nv_model *m)
{
    return m ? m->alloc : NULL;
}

int32_t nv_model_app_insert(nv_model *m, int32_t idx)
{
    const struct nv_app_rec *a = &m->apps[idx];
    size_t mask = m->app_cap - 1;
    for (size_t i = (size_t)a->hash & mask;; i = (i + 1) & mask) {
        int32_t o = m->app_slots[i];
        if (o < 0) {
            m->app_slots[i] = idx;
            return -1;
        }
        if (m->apps[o].hash == a->hash && !strcmp(m->apps[o].key, a->key))
            return o;
    }
}
