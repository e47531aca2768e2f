/* job_submit_netvar.c - the job_submit/netvar entry points: thin glue that
 * turns a job_desc_msg_t into a netvar query, and applies the answer.
 * Rules: no file or network I/O in job_submit(); every internal error
 * returns SLURM_SUCCESS with the job untouched (fail open). */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "annotation.h"
#include "config.h"
#include "slurm_glue.h"
#include "submit_options.h"

const char plugin_name[] = "job_submit/netvar: network interference advice";
const char plugin_type[] = "job_submit/netvar";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

static struct nv_config site;        /* read-only after init() */
static int site_errors;

static void log_config_error(void *ctx, const char *line)
{
    (void)ctx;
    slurm_error("netvar: %s", line);
}

/* netvar.conf: $NETVAR_CONF, else beside slurm.conf, else /etc/netvar. */
static void find_config(char *path, size_t cap)
{
    const char *env = getenv("NETVAR_CONF");
    if (env && env[0] == '/') {
        snprintf(path, cap, "%s", env);
        return;
    }
    const char *slurm_conf = getenv("SLURM_CONF");
    if (slurm_conf && slurm_conf[0] == '/') {
        const char *slash = strrchr(slurm_conf, '/');
        snprintf(path, cap, "%.*s/netvar.conf", (int)(slash - slurm_conf), slurm_conf);
        FILE *f = fopen(path, "re");
        if (f) {
            fclose(f);
            return;
        }
    }
    snprintf(path, cap, "/etc/netvar/netvar.conf");
}

int init(void)
{
    char path[PATH_MAX];
    find_config(path, sizeof path);
    site_errors = nv_config_load(path, &site, log_config_error, NULL);
    slurm_info("netvar: job_submit loaded %s (%d error%s); annotating into %s", path, site_errors,
               site_errors == 1 ? "" : "s",
               site.annotate_field == NV_ANNOTATE_ADMIN_COMMENT ? "AdminComment" : "Comment");
    return SLURM_SUCCESS;
}

void fini(void)
{
}

/* Replaces any earlier netvar annotation in *field, keeping the user's text. */
static void annotate(char **field, const char *note)
{
    size_t keep = nv_annotation_strip(*field);
    char buf[4096];
    if (keep > 0 && keep + strlen(note) + 2 <= sizeof buf) {
        snprintf(buf, sizeof buf, "%.*s %s", (int)keep, *field, note);
        note = buf;
    }
    char *fresh = slurm_xstrdup(note);
    if (!fresh)
        return;
    if (*field)
        nv_xfree(*field);
    *field = fresh;
}

static void tell_user(char **err_msg, const char *msg)
{
    if (!err_msg)
        return;
    if (*err_msg)
        slurm_xstrcat(err_msg, "\n");
    slurm_xstrcat(err_msg, msg);
}

static int netvar_evaluate(job_desc_msg_t *job_desc, char **err_msg)
{
    struct nv_submit_options opt;
    nv_submit_options_parse("", (const char *const *)job_desc->spank_job_env,
                            job_desc->spank_job_env_size,
                            (const char *const *)job_desc->environment, job_desc->env_size, &opt);
    nv_mode mode = nv_effective_mode(&opt, site.default_mode, site.allow_off);

    struct nv_annotation a = {.mode = mode, .app = opt.app[0] ? opt.app : NULL, .model = "none",
                              .own_slowdown_pct = NAN, .inflicted_pct = NAN};
    char note[NV_ANNOTATION_MAX];
    if (site.annotate_field != NV_ANNOTATE_NONE && nv_annotation_format(note, sizeof note, &a) > 0)
        annotate(site.annotate_field == NV_ANNOTATE_ADMIN_COMMENT ? &job_desc->admin_comment
                                                                  : &job_desc->comment,
                 note);

    char msg[512];
    snprintf(msg, sizeof msg, "netvar: mode %s (%s)%s%s; no model loaded, so no prediction yet",
             nv_mode_name(mode), opt.mode == NV_MODE_UNSET ? "site default" : opt.mode_source,
             opt.app[0] ? ", app " : "", opt.app);
    tell_user(err_msg, msg);
    if (opt.rejected) {
        snprintf(msg, sizeof msg, "netvar: %s", opt.note);
        tell_user(err_msg, msg);
    }
    return SLURM_SUCCESS;
}

int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
    (void)submit_uid;
    if (!job_desc)
        return SLURM_SUCCESS;
    netvar_evaluate(job_desc, err_msg);
    return SLURM_SUCCESS; /* fail open: netvar's own trouble never rejects a job */
}

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
int job_modify(job_desc_msg_t *job_desc, job_record_t *job_ptr, uint32_t submit_uid,
               char **err_msg)
{
    (void)job_ptr;
    (void)submit_uid;
    (void)job_desc;
    (void)err_msg;
    return SLURM_SUCCESS;
}
#else
/* 22.05: no err_msg; job_record_t is opaque to plugins built out of tree. */
int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid)
{
    (void)job_ptr;
    (void)submit_uid;
    (void)job_desc;
    return SLURM_SUCCESS;
}
#endif
