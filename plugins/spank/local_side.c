/* local_side.c - what spank_netvar does in srun, sbatch and salloc, after
 * the options are parsed: check the user's NETVAR_* defaults and tell the
 * user about anything the site overrides.  Never fails the command for an
 * environment default; only a bad --netvar option (options.c) does that.
 * An option given beats its environment form, which is then not read. */
#include <stdio.h>
#include <stdlib.h>

#include "spank_state.h"

/* a bad default: one line with the option's own words, then ignored */
static void env_rejected(const char *name, const char *val, const char *why)
{
    char line[256];
    nv_bad_value(line, sizeof line, name, val, why, NV_ENV_IGNORED);
    slurm_error("netvar: %s", line);
}

int nv_spank_local_post_opt(spank_t sp)
{
    nv_mode m = nv_spank.opt_mode;
    if (m == NV_MODE_UNSET) {
        const char *env = getenv("NETVAR_MODE");
        if (env) {
            m = nv_mode_parse(env);
            if (m == NV_MODE_UNSET)
                env_rejected("NETVAR_MODE", env, NV_MODE_RULE);
            else /* hand the user default to job_submit and the prolog */
                spank_job_control_setenv(sp, "NETVAR_MODE", nv_mode_name(m), 1);
        }
    }
    if (m == NV_MODE_OFF && !nv_spank.args.allow_off)
        slurm_info("netvar: this cluster does not allow --netvar=off; your job runs with %s",
                   nv_mode_name(nv_spank.args.default_mode));
    const char *app = getenv("NETVAR_APP");
    const char *why;
    if (!nv_spank.opt_app_set && app) {
        if (!nv_app_key_valid(app, &why))
            env_rejected("NETVAR_APP", app, why);
        else
            spank_job_control_setenv(sp, "NETVAR_APP", app, 1);
    }
    /* the other two defaults, checked as their options are (the same
     * rules job_submit applies: lib/site/submit_options.c) */
    const char *iv = getenv("NETVAR_INTERVAL");
    if (nv_spank.opt_interval_s < 0 && iv) {
        int s;
        if (nv_interval_parse(iv, &s))
            env_rejected("NETVAR_INTERVAL", iv, NV_INTERVAL_RULE);
        else
            spank_job_control_setenv(sp, "NETVAR_INTERVAL", iv, 1);
    }
    const char *adv = getenv("NETVAR_ADVISE");
    bool apply;
    if (!nv_spank.opt_advise_set && adv) {
        if (nv_advise_parse(adv, &apply))
            env_rejected("NETVAR_ADVISE", adv, NV_ADVISE_RULE);
        else
            spank_job_control_setenv(sp, "NETVAR_ADVISE", adv, 1);
    }
    return 0;
}
