/* config.h - netvar.conf, the admin's site policy (see netvar.conf(5)).
 * Slurm-style Key=Value lines and # comments.  Every problem is caught at
 * load: unknown keys and bad values are errors reported one line each as
 * "FILE:LINE: reason".  Pure C; shared by both plugins and the CLI. */
#ifndef NETVAR_CONFIG_H
#define NETVAR_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "job_options.h"
#include "policy.h"

enum nv_annotate_field { NV_ANNOTATE_COMMENT, NV_ANNOTATE_ADMIN_COMMENT, NV_ANNOTATE_NONE };

/* How job_submit names an app when the user gave no --netvar-app. */
enum nv_app_field { NV_APPF_NAME = 1, NV_APPF_SCRIPT = 2 };

/* What avoid does when a job it keeps apart from spans several leaf
 * switches (AvoidUplinks=): keep the newcomer under one leaf switch too
 * (contain), where it crosses no uplink, or only tell the user. */
enum nv_avoid_uplinks { NV_AVOID_UPLINKS_CONTAIN, NV_AVOID_UPLINKS_WARN };
#define NV_APP_FIELDS_MAX 2

/* What job_submit tells the user at sbatch (UserMessages=): nothing; only
 * what netvar did (an action); also a prediction at or over the
 * threshold (the default); or every line, in the model's terms. */
enum nv_user_messages { NV_UMSG_NONE, NV_UMSG_ACTIONS, NV_UMSG_PREDICTIONS, NV_UMSG_ALL };

struct nv_config {
    char model_file[PATH_MAX];
    char spool_dir[PATH_MAX];
    char mailer[PATH_MAX]; /* Mailer=: the mail program netvar-mail hands Slurm's mail to */
    nv_mode default_mode;
    bool enabled; /* Enabled=no: both plugins do nothing (the off switch) */
    bool allow_off;
    char predictor[32];
    unsigned min_pair_samples;
    enum nv_annotate_field annotate_field;
    bool annotate_all;                 /* annotate every job, not only on action=annotate */
    double interference_pct;           /* a pair beyond this is "interference" (avoid, flags) */
    int app_fields[NV_APP_FIELDS_MAX]; /* tried in order; 0 ends the list */
    unsigned contain_wait_s;           /* wait4switch for action=contain */
    /* wait4switch for a contained job larger than one leaf switch (0: such
     * a job is not contained); contain_wait_s until ContainSpanWaitSeconds
     * is set (contain_span_wait_set) */
    unsigned contain_span_wait_s;
    bool contain_span_wait_set;
    enum nv_avoid_uplinks avoid_uplinks;
    unsigned max_neighbour_apps; /* running apps considered per submission */
    unsigned registry_check_s;   /* how often job_submit asks slurmctld which jobs run (0: never) */
    enum nv_user_messages user_messages;
    double uplink_rate_Bps;    /* UplinkRate=: one leaf uplink, bytes/s (0: not set) */
    unsigned uplinks_per_leaf; /* UplinksPerLeaf=: uplinks of each leaf (default 1) */
    struct nv_policy policy;   /* ordered rules */
};

/* "none", "actions", "predictions" or "all" */
const char *nv_user_messages_name(enum nv_user_messages m);

/* A rate with its unit: a decimal number, an optional SI prefix (k, M, G,
 * T: powers of 1000) and bit, bit/s, b/s or B/s ("10Gbit/s", "100mbit" as
 * tc writes it, "1.25GB/s").  Bytes/s in *Bps; false (and *Bps untouched)
 * for a bare number, another unit, or not 1 bit/s .. 100 Tbit/s. */
bool nv_config_parse_rate(const char *v, double *Bps);

/* Receives each error line (no trailing newline). */
typedef void (*nv_config_error_fn)(void *ctx, const char *line);

/* Defaults for every key (no rules). */
void nv_config_defaults(struct nv_config *c);

/* contain's wait for a job larger than one leaf switch: ContainSpanWaitSeconds
 * where set, else ContainWaitSeconds (0: such a job is not contained) */
unsigned nv_config_span_wait_s(const struct nv_config *c);

/* Parses text (NUL-terminated) named `name` in messages. Returns the number
 * of errors; c holds the defaults plus every valid line. */
int nv_config_parse(const char *name, const char *text, struct nv_config *c, nv_config_error_fn err,
                    void *ctx);

/* Reads and parses a file (at most 1 MiB). A missing or unreadable file, a
 * directory, and a file holding a NUL byte are one error each (the defaults
 * are used). */
int nv_config_load(const char *path, struct nv_config *c, nv_config_error_fn err, void *ctx);

/* The same, but when must_exist is false a file that does not exist is not
 * an error: the defaults, with *missing (may be NULL) set.  For the default
 * path; a path the admin named must exist. */
int nv_config_load_opt(const char *path, bool must_exist, struct nv_config *c,
                       nv_config_error_fn err, void *ctx, bool *missing);

/* Replaces each user name in the rules' user= lists by its uid, looked up
 * with getpwnam_r (safe in slurmctld's threads).  A name that does not
 * exist is one error line naming the file, the rule's line and the user,
 * and stays as written (the rule never matches it).  Returns how many. */
int nv_config_resolve_users(struct nv_config *c, const char *name, nv_config_error_fn err,
                            void *ctx);

#endif
