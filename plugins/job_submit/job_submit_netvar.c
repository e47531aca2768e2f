/* job_submit_netvar.c - the job_submit/netvar entry points: thin glue that
 * turns a job_desc_msg_t into a netvar query (submit_decision.h) and
 * applies the answer (apply_decision.h).
 * Rules: no file or network I/O in job_submit(); every internal error
 * returns SLURM_SUCCESS with the job untouched (fail open) — only a deny
 * rule the admin wrote rejects a job. Safe for concurrent calls. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "apply_decision.h"
#include "js_state.h"
#include "js_stats.h"
#include "lat_hist.h"
#include "slurm_glue.h"
#include "submit_decision.h"
#include "submit_options.h"

#ifndef NETVAR_VERSION /* the Makefile gives it from VERSION */
#define NETVAR_VERSION "unknown"
#endif
const char plugin_name[] = "job_submit/netvar " NETVAR_VERSION ": network interference advice";
const char plugin_type[] = "job_submit/netvar";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

int init(void)
{
    js_state_start();
    return SLURM_SUCCESS;
}

void fini(void)
{
    js_state_stop();
}

/* The job id an update names.  25.11 moved job_desc_msg_t's job_id into a
 * slurm_step_id_t (step_id.job_id); earlier releases have job_id itself. */
static uint32_t nv_job_desc_id(const job_desc_msg_t *job)
{
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 11, 0)
    return job->step_id.job_id;
#else
    return job->job_id;
#endif
}

static uint32_t given(uint32_t v)
{
    return (v == NO_VAL || v == INFINITE) ? 0 : v;
}

/* The decision's lines in the model's terms (rho, sources), for the admin:
 * "netvar: job_submit: uid N: app ...", one log line each; the user sees
 * what UserMessages= says (nv_submit_user_message). */
static void log_decision(const char *entry, uint32_t user, const char *msg)
{
    while (msg && *msg) {
        size_t w = strcspn(msg, "\n");
        const char *line = msg;
        int len = (int)w;
        if (w >= 8 && !strncmp(line, "netvar: ", 8))
            line += 8, len -= 8;
        slurm_info("netvar: %s: uid %u: %.*s", entry, user, len, line);
        msg += w;
        if (*msg == '\n')
            msg++;
    }
}

/* A job from slurmrestd (or any submission that ran no SPANK plugin) has
 * its NETVAR_* defaults only in its environment, which the prolog does not
 * see: add the checked ones to spank_job_env (the prolog reads them as
 * SPANK_NETVAR_*).  Only adds; an entry already there stays.  An
 * allocation failure leaves the job as it was. */
static void nv_submit_options_env_defaults_copy(job_desc_msg_t *job,
                                                const struct nv_submit_options *opt)
{
    char lines[4][NV_ENV_LINE_MAX];
    int n = nv_submit_options_env_defaults(opt, (const char *const *)job->spank_job_env,
                                           job->spank_job_env_size, lines, 4);
    if (n <= 0)
        return;
    uint32_t old = job->spank_job_env ? job->spank_job_env_size : 0;
    char **env =
        slurm_xcalloc(old + (uint32_t)n + 1, sizeof *env, true, true, __FILE__, __LINE__, __func__);
    if (!env)
        return;
    for (uint32_t i = 0; i < old; i++)
        env[i] = job->spank_job_env[i];
    for (int i = 0; i < n; i++)
        env[old + (uint32_t)i] = slurm_xstrdup(lines[i]);
    if (job->spank_job_env)
        nv_xfree(job->spank_job_env); /* the array only: its strings moved */
    job->spank_job_env = env;
    job->spank_job_env_size = old + (uint32_t)n;
    slurm_debug("netvar: %d NETVAR_* default(s) from the job's environment added to its "
                "spank_job_env",
                n);
}

static int evaluate(job_desc_msg_t *job, uint32_t submit_uid, char **err_msg, bool modify)
{
    const struct js_generation *g = js_state_acquire();
    int rc = SLURM_SUCCESS;
    if (!g->conf || !g->conf->enabled)
        goto out; /* passive: netvar.conf had errors at start (logged once), or Enabled=no */

    struct nv_submit_options opt;
    nv_submit_options_parse("", (const char *const *)job->spank_job_env, job->spank_job_env_size,
                            (const char *const *)job->environment, job->env_size, &opt);
    if (!modify)
        nv_submit_options_env_defaults_copy(job, &opt);
    nv_mode mode = nv_effective_mode(&opt, g->conf->default_mode, g->conf->allow_off);
    char uid[16];
    uint32_t user = job->user_id != NO_VAL ? job->user_id : submit_uid;
    snprintf(uid, sizeof uid, "%u", user);

    struct nv_submit_query q = {
        .partition = job->partition,
        .account = job->account,
        .qos = job->qos,
        .user = uid,
        .app_option = opt.app[0] ? opt.app : NULL,
        .app_option_source = opt.app[0] ? opt.app_source : NULL,
        .job_name = job->name,
        .script = job->script,
        .min_nodes = given(job->min_nodes),
        .max_nodes = given(job->max_nodes),
        .ntasks_per_node = job->ntasks_per_node == NO_VAL16 ? 0 : job->ntasks_per_node,
        .advise_apply = opt.advise_apply,
        .exclude = job->exc_nodes,
        .req_switch = given(job->req_switch),
        .req_nodes = job->req_nodes,
        .parts = g->parts,
        .leaf_map = g->leaves,
        .leaf_sizes = g->leaves ? g->leaves->size_desc : NULL,
        .nleaf_sizes = g->leaves ? g->leaves->nleaves : 0,
    };
    static __thread struct nv_submit_decision d; /* ~10 KB: off the stack */
    nv_submit_decide(g->conf, g->model, g->index, &q, &d);
    if (d.place.why && d.place.why[0])
        slurm_debug("netvar: a job of uid %u: its --nodelist was not read for its leaf "
                    "switches (%s); predicted as if its placement were unknown",
                    user, d.place.why);
    if (modify) {
        /* An update carries only the changed fields, and the job record is
         * opaque to plugins built out of tree: without an app in the update
         * there is nothing to re-evaluate, and the submission's annotation
         * must stay as it is. */
        if (!d.app[0]) {
            char id[24];
            if (job->job_id_str && strnlen(job->job_id_str, 20) < 20)
                snprintf(id, sizeof id, "%s", job->job_id_str);
            else
                snprintf(id, sizeof id, "%u", nv_job_desc_id(job));
            slurm_info("netvar: job_modify: job %s: node count or partition changed; its app is "
                       "not in the update, so the submission's prediction stands",
                       id);
            goto out;
        }
        d.actions = nv_modify_actions(d.actions);
    }
    log_decision(modify ? "job_modify" : "job_submit", user, d.message);
    static __thread char user_msg[sizeof d.message];
    nv_submit_user_message(g->conf, &q, &d, user_msg, sizeof user_msg);
    rc = nv_apply_decision(job, g->conf, mode, &d, user_msg, err_msg);
    if (!modify)
        js_stats_note_decision(d.actions);
    if (opt.rejected && g->conf->user_messages != NV_UMSG_NONE) {
        char msg[sizeof opt.note + 16];
        snprintf(msg, sizeof msg, "netvar: %s", opt.note);
        nv_tell_user(err_msg, msg);
    }
out:
    js_state_release();
    return rc;
}

int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
    if (!job_desc)
        return SLURM_SUCCESS;
    uint64_t t0 = nv_lat_now_ns();
    int rc = evaluate(job_desc, submit_uid, err_msg, false);
    js_state_note_call(nv_lat_now_ns() - t0);
    return rc;
}

/* Re-evaluate only when the node count or the partition changes. */
static bool worth_reevaluating(const job_desc_msg_t *job)
{
    return job->partition || job->min_nodes != NO_VAL || job->max_nodes != NO_VAL;
}

/* slurmctld's job record.  Its definition (and the job_record_t typedef)
 * lives in slurmctld's private headers, not in the public ones a plugin
 * built out of tree sees, so the record stays opaque here: netvar only
 * passes the pointer through and never reads it. */
struct job_record;

/* What an update's re-evaluation says is logged on every release (an admin
 * sees it whatever the release, evaluate) and, where job_modify has
 * err_msg, also handed to the user as UserMessages= says. */
static int modify(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
    if (!job_desc || !worth_reevaluating(job_desc))
        return SLURM_SUCCESS;
    char *msg = NULL;
    evaluate(job_desc, submit_uid, &msg, true);
    if (msg) {
        nv_tell_user(err_msg, msg);
        nv_xfree(msg);
    }
    return SLURM_SUCCESS;
}

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
/* 23.02 added err_msg to job_modify, so an update can tell the user why. */
int job_modify(job_desc_msg_t *job_desc, struct job_record *job_ptr, uint32_t submit_uid,
               char **err_msg)
{
    (void)job_ptr;
    return modify(job_desc, submit_uid, err_msg);
}
#else
/* 22.05: job_modify has no err_msg; the message is only logged. */
int job_modify(job_desc_msg_t *job_desc, struct job_record *job_ptr, uint32_t submit_uid)
{
    (void)job_ptr;
    return modify(job_desc, submit_uid, NULL);
}
#endif
