/* submit_options.c - the --netvar options as job_submit sees them. */
#include "submit_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPANK_PREFIX "_SLURM_SPANK_OPTION_netvar_"

/* value of PREFIX NAME=value in env[] (n entries, or NULL-terminated when
 * n is UINT32_MAX), or NULL */
static const char *env_lookup2(const char *const *env, uint32_t n, const char *prefix,
                               const char *name)
{
    size_t plen = strlen(prefix), len = strlen(name);
    char first = plen ? prefix[0] : name[0]; /* most of a job's variables differ here */
    for (uint32_t i = 0; env && i < n && env[i]; i++) {
        const char *e = env[i];
        if (e[0] == first && strncmp(e, prefix, plen) == 0 && strncmp(e + plen, name, len) == 0 &&
            e[plen + len] == '=')
            return e + plen + len + 1;
    }
    return NULL;
}

static const char *env_lookup(const char *const *env, uint32_t n, const char *name)
{
    return env_lookup2(env, n, "", name);
}

static void reject(struct nv_submit_options *o, const char *what, const char *val, const char *why)
{
    if (o->rejected++ == 0)
        nv_bad_value(o->note, sizeof o->note, what, val, why, NV_ENV_IGNORED);
}

static void take_mode(struct nv_submit_options *o, const char *v, const char *src)
{
    nv_mode m = nv_mode_parse(v);
    if (m == NV_MODE_UNSET) {
        reject(o, src, v, NV_MODE_RULE);
        return;
    }
    o->mode = m;
    o->mode_source = src;
}

static void take_app(struct nv_submit_options *o, const char *v, const char *src)
{
    const char *why;
    if (!nv_app_key_valid(v, &why)) {
        reject(o, src, v, why);
        return;
    }
    snprintf(o->app, sizeof o->app, "%s", v);
    o->app_source = src;
}

/* the options' own rules (job_options.h) */
static void take_advise(struct nv_submit_options *o, const char *v, const char *src)
{
    if (nv_advise_parse(v, &o->advise_apply)) {
        reject(o, src, v, NV_ADVISE_RULE);
        return;
    }
    o->advise_source = src;
}

static void take_interval(struct nv_submit_options *o, const char *v, const char *src)
{
    if (nv_interval_parse(v, &o->interval_s)) {
        reject(o, src, v, NV_INTERVAL_RULE);
        return;
    }
    o->interval_source = src;
}

static bool too_long(const char *v)
{
    return strnlen(v, NV_ENV_VALUE_MAX + 1) > NV_ENV_VALUE_MAX;
}

void nv_submit_options_parse(const char *prefix, const char *const *spank_env, uint32_t spank_env_n,
                             const char *const *job_env, uint32_t job_env_n,
                             struct nv_submit_options *o)
{
    memset(o, 0, sizeof *o);
    o->mode = NV_MODE_UNSET;
    o->mode_source = "none";
    o->app_source = "none";
    o->advise_source = "none";
    o->interval_source = "none";
    o->interval_s = -1;

    const char *v;
    if ((v = env_lookup2(spank_env, spank_env_n, prefix, SPANK_PREFIX "netvar")))
        too_long(v) ? reject(o, "--netvar", v, "is too long") : take_mode(o, v, "--netvar");
    if ((v = env_lookup2(spank_env, spank_env_n, prefix, SPANK_PREFIX "netvar_app")))
        too_long(v) ? reject(o, "--netvar-app", v, "is too long") : take_app(o, v, "--netvar-app");
    if ((v = env_lookup2(spank_env, spank_env_n, prefix, SPANK_PREFIX "netvar_advise")))
        take_advise(o, v, "--netvar-advise");
    if ((v = env_lookup2(spank_env, spank_env_n, prefix, SPANK_PREFIX "netvar_interval")))
        take_interval(o, v, "--netvar-interval");
    /* user defaults apply only where no option did */
    if (o->mode == NV_MODE_UNSET &&
        ((v = env_lookup2(spank_env, spank_env_n, prefix, "NETVAR_MODE")) ||
         (v = env_lookup(job_env, job_env_n, "NETVAR_MODE"))))
        too_long(v) ? reject(o, "NETVAR_MODE", v, "is too long") : take_mode(o, v, "NETVAR_MODE");
    if (!o->app[0] && ((v = env_lookup2(spank_env, spank_env_n, prefix, "NETVAR_APP")) ||
                       (v = env_lookup(job_env, job_env_n, "NETVAR_APP"))))
        too_long(v) ? reject(o, "NETVAR_APP", v, "is too long") : take_app(o, v, "NETVAR_APP");
    if (!strcmp(o->advise_source, "none") &&
        ((v = env_lookup2(spank_env, spank_env_n, prefix, "NETVAR_ADVISE")) ||
         (v = env_lookup(job_env, job_env_n, "NETVAR_ADVISE"))))
        take_advise(o, v, "NETVAR_ADVISE");
    if (o->interval_s < 0 &&
        ((v = env_lookup2(spank_env, spank_env_n, prefix, "NETVAR_INTERVAL")) ||
         (v = env_lookup(job_env, job_env_n, "NETVAR_INTERVAL"))))
        take_interval(o, v, "NETVAR_INTERVAL");
}

int nv_submit_options_env_defaults(const struct nv_submit_options *o, const char *const *spank_env,
                                   uint32_t spank_env_n, char (*out)[NV_ENV_LINE_MAX], int cap)
{
    char interval[16];
    snprintf(interval, sizeof interval, "%d", o->interval_s);
    const struct {
        const char *name, *source, *value;
    } d[] = {
        {"NETVAR_MODE", o->mode_source, nv_mode_name(o->mode)},
        {"NETVAR_APP", o->app_source, o->app},
        {"NETVAR_INTERVAL", o->interval_source, interval},
        {"NETVAR_ADVISE", o->advise_source, o->advise_apply ? "apply" : "show"},
    };
    int n = 0;
    for (size_t i = 0; i < sizeof d / sizeof d[0] && n < cap; i++) {
        /* taken from NETVAR_* (not an option), and not from spank_env */
        if (strcmp(d[i].source, d[i].name) || env_lookup(spank_env, spank_env_n, d[i].name))
            continue;
        snprintf(out[n++], NV_ENV_LINE_MAX, "%s=%s", d[i].name, d[i].value);
    }
    return n;
}

nv_mode nv_effective_mode(const struct nv_submit_options *o, nv_mode site_default, bool allow_off)
{
    nv_mode m = o->mode == NV_MODE_UNSET ? site_default : o->mode;
    if (m == NV_MODE_OFF && !allow_off)
        m = site_default;
    return m;
}
