/* remote_side.c - what spank_netvar does inside slurmstepd for a job step:
 * settle the step's mode, say so once per step in the slurmd log, and
 * hand the mode to the tasks.  Every failure here is logged and ignored. */
#include <stdio.h>
#include <string.h>

#include <stdlib.h>
#include <unistd.h>

#include "job_record.h"
#include "node_record.h"
#include "spank_state.h"
#include "spool.h"

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
    if (!nv_spank.args.enabled) { /* the site's off switch wins over everything */
        step_mode_source = "netvar.conf Enabled=no";
        return NV_MODE_OFF;
    }
    nv_mode m = nv_spank.opt_mode;
    step_mode_source = "option";
    if (m == NV_MODE_UNSET) {
        char env[32];
        if (spank_getenv(sp, "NETVAR_MODE", env, sizeof env) == ESPANK_SUCCESS) {
            m = nv_mode_parse(env);
            step_mode_source = "NETVAR_MODE";
            if (m == NV_MODE_UNSET) {
                char line[256];
                nv_bad_value(line, sizeof line, "NETVAR_MODE", env, NV_MODE_RULE, NV_ENV_IGNORED);
                slurm_error("netvar: %s", line);
            }
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

static void start_extern_sampler(uint32_t jobid)
{
    char node[72], path[PATH_MAX + 160], samples[PATH_MAX + 160];
    if (gethostname(node, sizeof node) != 0)
        return;
    const char *env_node = getenv("SLURMD_NODENAME"); /* multiple-slurmd: the fake node */
    if (env_node && nv_spool_name_ok(env_node))
        snprintf(node, sizeof node, "%s", env_node);
    if (!nv_spool_name_ok(node))
        return;
    char leaf[2][96];
    snprintf(leaf[0], sizeof leaf[0], ".start-%s.json", node);
    snprintf(leaf[1], sizeof leaf[1], ".samples-%s.json", node);
    if (nv_spool_jobs_path(nv_spank.args.spool, jobid, leaf[0], path, sizeof path) ||
        nv_spool_jobs_path(nv_spank.args.spool, jobid, leaf[1], samples, sizeof samples))
        return;
    struct nv_node_start_info start;
    char err[256];
    if (nv_node_start_read(path, &start, NULL, err, sizeof err))
        return; /* no start file: the prolog recorded nothing to sample against */
    if (start.interval_s > 0 && start.has_snapshot)
        nv_sampler_start(samples, start.interval_s, nv_spank.args.max_samples);
}

int nv_spank_remote_exit(spank_t sp)
{
    (void)sp;
    nv_sampler_stop();
    return 0;
}

int nv_spank_remote_post_opt(spank_t sp)
{
    uint32_t jobid = 0;
    char step[16];
    spank_get_item(sp, S_JOB_ID, &jobid);
    step_label(sp, step, sizeof step);
    if (!strcmp(step, "extern")) {
        /* options do not reach the extern step; the prolog left them here */
        start_extern_sampler(jobid);
        return 0;
    }
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

/* segments/full: LD_PRELOAD the segment profiler, keeping the user's own
 * preloads, and tell it where the job's profiles go. */
static void inject_profiler(spank_t sp)
{
    const char *lib = nv_spank.args.profiler[0] ? nv_spank.args.profiler
                                                : "/usr/local/lib/netvar/libnetvar_pmpi.so";
    uint32_t jobid = 0;
    spank_get_item(sp, S_JOB_ID, &jobid);
    if (access(lib, R_OK) != 0) {
        slurm_info("netvar: job %u: segment profiler %s is not installed; no segment profile",
                   jobid, lib);
        return;
    }
    char dir[PATH_MAX + 64], cur[4096] = "", val[4096 + PATH_MAX + 2];
    if (nv_spool_jobs_path(nv_spank.args.spool, jobid, "profiles", dir, sizeof dir) ||
        access(dir, W_OK) != 0) {
        slurm_info("netvar: job %u: %s is not writable; no segment profile", jobid, dir);
        return;
    }
    spank_err_t rc = spank_getenv(sp, "LD_PRELOAD", cur, sizeof cur);
    if (rc == ESPANK_NOSPACE) {
        slurm_info("netvar: job %u: LD_PRELOAD is over %zu bytes; not adding the profiler to it",
                   jobid, sizeof cur - 1);
        return;
    }
    if (rc != ESPANK_SUCCESS)
        cur[0] = '\0';
    if (strstr(cur, lib))
        return; /* already there (callbacks may run twice) */
    snprintf(val, sizeof val, "%s%s%s", lib, cur[0] ? ":" : "", cur);
    spank_setenv(sp, "LD_PRELOAD", val, 1);
    /* the job's profiles go to the spool, where root's reports read them:
     * a directory the user set is replaced, and the profiler says so on
     * the job's stderr (NETVAR_PROFILE_DIR_REPLACED holds the user's) */
    char own[4096] = "";
    if (spank_getenv(sp, "NETVAR_PROFILE_DIR", own, sizeof own) == ESPANK_SUCCESS && own[0] &&
        strcmp(own, dir)) {
        spank_setenv(sp, "NETVAR_PROFILE_DIR_REPLACED", own, 1);
        slurm_info("netvar: job %u: the job's NETVAR_PROFILE_DIR is replaced by %s", jobid, dir);
    }
    spank_setenv(sp, "NETVAR_PROFILE_DIR", dir, 1);
}

int nv_spank_remote_user_init(spank_t sp)
{
    if (step_mode == NV_MODE_UNSET)
        step_mode = settle_mode(sp);
    if (spank_setenv(sp, "NETVAR_MODE", nv_mode_name(step_mode), 1) != ESPANK_SUCCESS)
        slurm_error("netvar: cannot export NETVAR_MODE to the tasks; continuing");
    if (nv_spank.opt_app_set)
        spank_setenv(sp, "NETVAR_APP", nv_spank.opt_app, 1);
    if (nv_mode_wants_segments(step_mode))
        inject_profiler(sp);
    return 0;
}
