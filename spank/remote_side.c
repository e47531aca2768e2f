/* remote_side.c - what spank_netvar does inside slurmstepd for a job step:
 * settle the step's mode, say so once per step in the slurmd log, and
 * hand the mode to the tasks.  Every failure here is logged and ignored. */
#include <stdio.h>
#include <string.h>

#include "spank_state.h"

static nv_mode step_mode = NV_MODE_UNSET;
static const char *step_mode_source = "site default";

static void step_label(spank_t sp, char *buf, size_t cap)
{
    uint32_t step = 0;
    if (spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS) {
        snprintf(buf, cap, "?");
        return;
    }
    /* Slurm's special step ids, as slurm.h defines them */
    if (step == 0xfffffffc)
        snprintf(buf, cap, "extern");
    else if (step == 0xfffffffb)
        snprintf(buf, cap, "batch");
    else if (step == 0xfffffffd)
        snprintf(buf, cap, "interactive");
    else
        snprintf(buf, cap, "%u", step);
}

/* option (its callback ran in this process) > NETVAR_MODE in the job's
 * environment (user default, or inherited from an enclosing batch job) >
 * site default; off only where allowed. */
static nv_mode settle_mode(spank_t sp)
{
    nv_mode m = nv_spank.opt_mode;
    step_mode_source = "option";
    if (m == NV_MODE_UNSET) {
        char env[32];
        if (spank_getenv(sp, "NETVAR_MODE", env, sizeof env) == ESPANK_SUCCESS) {
            m = nv_mode_parse(env);
            step_mode_source = "NETVAR_MODE";
            if (m == NV_MODE_UNSET)
                slurm_error("netvar: NETVAR_MODE='%s' is not one of %s; using the site default",
                            env, NV_MODE_CHOICES);
        }
    }
    if (m == NV_MODE_UNSET) {
        m = nv_spank.args.default_mode;
        step_mode_source = "site default";
    }
    if (m == NV_MODE_OFF && !nv_spank.args.allow_off) {
        m = nv_spank.args.default_mode;
        step_mode_source = "site default; off is not allowed";
    }
    return m;
}

int nv_spank_remote_post_opt(spank_t sp)
{
    uint32_t jobid = 0;
    char step[16];
    spank_get_item(sp, S_JOB_ID, &jobid);
    step_label(sp, step, sizeof step);
    if (!strcmp(step, "extern"))
        return 0; /* options do not reach the extern step; prolog/epilog log the job */
    step_mode = settle_mode(sp);
    char app[NV_APP_KEY_MAX + 1] = "";
    if (nv_spank.opt_app_set)
        snprintf(app, sizeof app, "%s", nv_spank.opt_app);
    else if (spank_getenv(sp, "NETVAR_APP", app, sizeof app) != ESPANK_SUCCESS ||
             !nv_app_key_valid(app, NULL))
        app[0] = '\0';
    slurm_info("netvar: job %u step %s mode %s (%s) app %s", jobid, step, nv_mode_name(step_mode),
               step_mode_source, app[0] ? app : "-");
    return 0;
}

int nv_spank_remote_user_init(spank_t sp)
{
    if (step_mode == NV_MODE_UNSET)
        step_mode = settle_mode(sp);
    if (spank_setenv(sp, "NETVAR_MODE", nv_mode_name(step_mode), 1) != ESPANK_SUCCESS)
        slurm_error("netvar: cannot export NETVAR_MODE to the tasks; continuing");
    if (nv_spank.opt_app_set)
        spank_setenv(sp, "NETVAR_APP", nv_spank.opt_app, 1);
    return 0;
}
