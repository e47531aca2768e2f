/* apply_decision.c - applies a decision to a job_desc_msg_t (see header).
 * Every string handed to slurmctld comes from Slurm's allocator. */
#include "apply_decision.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <slurm/slurm_errno.h>

#include "annotation.h"
#include "slurm_glue.h"

void nv_tell_user(char **err_msg, const char *msg)
{
    if (!err_msg || !msg || !*msg)
        return;
    if (*err_msg)
        slurm_xstrcat(err_msg, "\n");
    slurm_xstrcat(err_msg, msg);
}

/* slurmctld refuses a Comment longer than this, and checks it after the
 * job_submit plugins ran (job_mgr.c, _test_job_desc_fields): an annotation
 * that pushed a user's Comment past it would get the job rejected. */
#define NV_SLURM_COMMENT_MAX 1024

/* Replaces netvar's earlier annotation at the end of *field, keeping all of
 * the user's text (it is never cut to make room: netvar cuts its own,
 * nv_annotation_fit).  When the user's text leaves no room under Slurm's
 * limit the field is left as the user wrote it, and the user is told:
 * netvar never makes a submission fail. */
static void annotate(char **field, const struct nv_annotation *an, int limited, char **err_msg)
{
    size_t keep;
    char note[NV_ANNOTATION_MAX];
    if (nv_annotation_fit(*field, an, limited ? NV_SLURM_COMMENT_MAX : 0, &keep, note,
                          sizeof note) < 0) {
        if (!limited)
            return;
        char msg[200];
        snprintf(msg, sizeof msg,
                 "netvar: your Comment (%zu characters) leaves no room for netvar's "
                 "annotation under Slurm's %d; it is kept as you wrote it, without the annotation",
                 keep, NV_SLURM_COMMENT_MAX);
        nv_tell_user(err_msg, msg);
        return;
    }
    char *fresh = NULL;
    if (keep > 0) {
        char *user = slurm_xstrdup(*field);
        if (!user)
            return;
        user[keep] = '\0';
        fresh = user;
        slurm_xstrcat(&fresh, " ");
        slurm_xstrcat(&fresh, note);
    } else {
        fresh = slurm_xstrdup(note);
    }
    if (!fresh)
        return;
    if (*field)
        nv_xfree(*field);
    *field = fresh;
}

static const char *main_action(unsigned a)
{
    static const unsigned order[] = {NV_ACT_DENY,  NV_ACT_HOLD,   NV_ACT_ISOLATE, NV_ACT_CONTAIN,
                                     NV_ACT_AVOID, NV_ACT_RESIZE, NV_ACT_MESSAGE};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (a & order[i])
            return nv_action_name((enum nv_action)order[i]);
    return NULL;
}

/* Whether a node count of n is one Slurm will take for this job.  With
 * --segment (job_desc_msg_t's segment_size, 24.05+, found by the feature
 * test in plugins/slurm_features.sh) a count that is not a multiple of the
 * segment size is refused, so the user's allocation then stays. */
static int resize_fits(const job_desc_msg_t *job, uint32_t n)
{
#ifdef NV_HAVE_JOB_DESC_SEGMENT_SIZE
    if (job->segment_size && job->segment_size != NO_VAL16 && n % job->segment_size)
        return 0;
#else
    (void)job;
    (void)n;
#endif
    return 1;
}

int nv_apply_decision(job_desc_msg_t *job, const struct nv_config *c, nv_mode mode,
                      const struct nv_submit_decision *d, const char *user_msg, char **err_msg)
{
    unsigned a = d->actions;
    nv_tell_user(err_msg, user_msg);
    /* the refusal's reason, and a Comment left without the annotation, at
     * every UserMessages= but none */
    if (c->user_messages == NV_UMSG_NONE)
        err_msg = NULL;
    if (a & NV_ACT_DENY) {
        char msg[512];
        snprintf(msg, sizeof msg, "netvar: submission denied by policy rule '%s': %s",
                 d->rule ? d->rule->name : "?",
                 d->rule && d->rule->reason[0] ? d->rule->reason
                                               : "predicted network interference");
        nv_tell_user(err_msg, msg);
        return ESLURM_ACCESS_DENIED;
    }
    if ((a & NV_ACT_ANNOTATE) && c->annotate_field != NV_ANNOTATE_NONE) {
        struct nv_annotation an = {
            .mode = mode,
            .app = d->app[0] ? d->app : NULL,
            .model = d->have_model ? (d->app_known ? "known" : "unknown-app") : "none",
            .own_slowdown_pct = d->own_pct,
            .inflicted_pct = d->inflicted_pct,
            .source = d->own_source[0] ? d->own_source : NULL,
            .advice_nodes = d->advice ? d->advice_nodes : 0,
            .action = main_action(a & ~(unsigned)NV_ACT_ANNOTATE),
            .against_app = isfinite(d->own_pct) ? d->own_with : NULL,
            .against_job = isfinite(d->own_pct) ? d->own_jobid : 0,
            .vs_n = isfinite(d->own_pct) ? d->vs_n : 0,
            .vs_uplinks = d->vs_uplinks,
            .single_pct = d->own_single_pct,
        };
        int admin = c->annotate_field == NV_ANNOTATE_ADMIN_COMMENT;
        annotate(admin ? &job->admin_comment : &job->comment, &an, !admin, err_msg);
    }
    if (a & NV_ACT_CONTAIN) {
        /* only where the user asked for nothing: a --switches of theirs stays */
        if (job->req_switch == NO_VAL) {
            job->req_switch = d->contain_switches ? d->contain_switches : 1;
            job->wait4switch = d->contain_wait_s;
        }
    }
    if ((a & NV_ACT_AVOID) && d->exclude[0]) {
        if (job->exc_nodes && *job->exc_nodes)
            slurm_xstrcat(&job->exc_nodes, ",");
        slurm_xstrcat(&job->exc_nodes, d->exclude);
    }
    if (a & NV_ACT_ISOLATE) {
#ifdef JOB_SHARED_TOPO
        /* --exclusive=topo (24.05+) already isolates a whole topology
         * segment, more than a node: the user's stronger choice stays. */
        if (job->shared != JOB_SHARED_TOPO)
#endif
            job->shared = 0; /* exclusive node access */
    }
    if (a & NV_ACT_HOLD)
        job->priority = 0;
    if ((a & NV_ACT_RESIZE) && d->resize_nodes && resize_fits(job, d->resize_nodes)) {
        job->min_nodes = d->resize_nodes;
        job->max_nodes = d->resize_nodes;
    }
    return SLURM_SUCCESS;
}
