/* submit_options.h - reads a job's --netvar options out of the strings
 * Slurm hands a plugin: spank_job_env entries
 * "<prefix>_SLURM_SPANK_OPTION_netvar_<opt>=<val>" first, then the user
 * defaults NETVAR_MODE, NETVAR_APP, NETVAR_INTERVAL and NETVAR_ADVISE,
 * each only where its option was not given, with the option's validation
 * (in spank_job_env, as
 * "<prefix>NETVAR_MODE", put there by the submit side, or else in the
 * job's environment).  The prefix is "" in job_submit, "SPANK_" in the
 * prolog/epilog environment.  Pure, bounded, allocation-free. */
#ifndef NETVAR_SUBMIT_OPTIONS_H
#define NETVAR_SUBMIT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job_options.h"

#define NV_ENV_VALUE_MAX 4096 /* longer values are hostile: ignored */

struct nv_submit_options {
    nv_mode mode;                 /* NV_MODE_UNSET when the user said nothing */
    const char *mode_source;      /* "option", "NETVAR_MODE" or "none" */
    char app[NV_APP_KEY_MAX + 1]; /* "" when not given */
    const char *app_source;
    bool advise_apply;
    const char *advise_source;   /* "--netvar-advise", "NETVAR_ADVISE" or "none" */
    int interval_s;              /* -1 when not given */
    const char *interval_source; /* "--netvar-interval", "NETVAR_INTERVAL" or "none" */
    int rejected;                /* values ignored as invalid */
    char note[256];              /* why the first rejected value was ignored */
};

void nv_submit_options_parse(const char *prefix, const char *const *spank_env, uint32_t spank_env_n,
                             const char *const *job_env, uint32_t job_env_n,
                             struct nv_submit_options *out);

/* The user defaults that o took from the job's environment alone, not
 * from spank_env (a job submitted through slurmrestd, which runs no SPANK
 * plugin at submit): "NETVAR_MODE=counters" style lines, each value
 * already checked, for job_submit to add to the job's spank_job_env, where
 * the prolog (as SPANK_NETVAR_*) and the job's steps see them.  Fills at
 * most cap lines; returns how many. */
#define NV_ENV_LINE_MAX (sizeof "NETVAR_INTERVAL=" + NV_APP_KEY_MAX + 8)
int nv_submit_options_env_defaults(const struct nv_submit_options *o, const char *const *spank_env,
                                   uint32_t spank_env_n, char (*out)[NV_ENV_LINE_MAX], int cap);

/* The mode a job runs with: the user's choice, else the site default; off
 * only where the site allows it. */
nv_mode nv_effective_mode(const struct nv_submit_options *o, nv_mode site_default, bool allow_off);

#endif
