/* netvar_acct.c - netvar-acct: puts a finished job's netvar summary into
 * Slurm accounting, where `sacct -j JOBID -o AdminComment` shows it.
 * netvar's EpilogSlurmctld runs it at job end.
 *
 * It waits (bounded) for the job record the epilogs merge, builds the
 * summary from it (lib/upkeep/acct_summary.h), waits until slurmdbd holds
 * the finished job, reads the field's current text and the AdminComment
 * (netvar's own word on the prediction made at submission is only there:
 * users cannot set it, while the Comment the record's copy came from is
 * theirs to edit), joins the summary to the field under the "netvar:" key
 * without changing anything another tool wrote, and stores it with
 * slurmdb_job_modify.  It talks to slurmdbd through
 * libslurm rather than sacctmgr, because sacctmgr rewrites every quote in
 * the value it is given (and lowercases it), which would damage both the
 * JSON and other tools' text.
 *
 * Thin glue: everything but the slurmdb calls is in lib/.  Every problem
 * is one "netvar: acct:" line on stderr. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurmdb.h>

#include "acct_summary.h"
#include "config.h"
#include "job_record.h"
#include "job_report.h"
#include "model.h"

/* Slurm 23.11 renamed List and ListIterator (gone in 24.11); checked to
 * compile against the public headers of 22.05 to 26.05. */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 11, 0)
typedef list_t *nv_list;
typedef list_itr_t *nv_list_itr;
#else
typedef List nv_list;
typedef ListIterator nv_list_itr;
#endif

/* Exported by libslurm since long before 22.05 but not declared in its
 * public headers; sacctmgr uses the same two. */
extern slurmdb_job_rec_t *slurmdb_create_job_rec(void);
extern int slurm_addto_step_list(nv_list step_list, char *names);
/* Slurm's allocator: slurmdb_destroy_job_rec frees the record's strings */
extern char *slurm_xstrdup(const char *str);

#ifndef NETVAR_VERSION
#define NETVAR_VERSION "unknown"
#endif

enum field { F_ADMIN_COMMENT, F_SYSTEM_COMMENT, F_COMMENT };

struct opts {
    const char *config, *spool, *model;
    enum field field;
    double wait_s;
    bool print_only, quiet;
    unsigned long jobid;
};

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: netvar-acct JOBID [--field NAME] [--wait-s S] [--spool DIR]\n"
            "                   [--model FILE] [--config FILE] [--print] [--quiet]\n"
            "\n"
            "Puts the netvar summary of finished job JOBID into Slurm accounting:\n"
            "  netvar:{\"v\":2,\"app\":...,\"runtime_s\":...,\"baseline_s\":...,\n"
            "          \"slowdown_pct\":...,\"predicted_pct\":...,\"src\":...,\n"
            "          \"claimed_pct\":...,\"claimed_src\":...}\n"
            "(the measured slowdown against the app's baseline; the prediction made\n"
            "at submission and the source that answered, as job_submit recorded it\n"
            "in the job's AdminComment; else, as claimed_*, what the job's Comment\n"
            "says, which the user can edit; at most %d bytes).  What other tools\n"
            "wrote in the field is kept as it is; an earlier netvar entry is\n"
            "replaced.  Read it back with  sacct -j JOBID -o AdminComment -P\n"
            "\n"
            "netvar's EpilogSlurmctld runs it at job end; it must be able to read\n"
            "the spool's job records (root, or SlurmUser when the spool allows it)\n"
            "and be an accounting administrator (root or SlurmUser).\n"
            "\n"
            "Options:\n"
            "  --field NAME   AdminComment (default), SystemComment or Comment\n"
            "  --wait-s S     wait up to S seconds for the job record and for slurmdbd\n"
            "                 to hold the finished job (default 60, 0..3600)\n"
            "  --spool DIR    spool (default: SpoolDir of netvar.conf)\n"
            "  --model FILE   model for the baseline (default: ModelFile of netvar.conf)\n"
            "  --config FILE  netvar.conf (default: $NETVAR_CONF or /etc/netvar/netvar.conf)\n"
            "  --print        print the summary and write nothing (no Slurm needed;\n"
            "                 AdminComment is not read, so a prediction is the claim)\n"
            "  --quiet        no line on success\n"
            "  -h, --help     this help\n"
            "\n"
            "Exit status: 0 written, or nothing to write (no netvar record: netvar was\n"
            "off for the job); 1 the record or slurmdbd could not be read or written\n"
            "in time; 2 bad usage.\n",
            NV_ACCT_SUMMARY_MAX);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void nap(void)
{
    struct timespec ts = {0, 250 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

static void conf_error(void *ctx, const char *line)
{
    (void)ctx;
    fprintf(stderr, "netvar: acct: %s\n", line);
}

static int parse(int argc, char **argv, struct opts *o)
{
    static const struct option lo[] = {
        {"field", required_argument, 0, 'f'},  {"wait-s", required_argument, 0, 'w'},
        {"spool", required_argument, 0, 's'},  {"model", required_argument, 0, 'm'},
        {"config", required_argument, 0, 'c'}, {"print", no_argument, 0, 'p'},
        {"quiet", no_argument, 0, 'q'},        {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},      {0, 0, 0, 0}};
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (!strcasecmp(optarg, "AdminComment"))
                o->field = F_ADMIN_COMMENT;
            else if (!strcasecmp(optarg, "SystemComment"))
                o->field = F_SYSTEM_COMMENT;
            else if (!strcasecmp(optarg, "Comment"))
                o->field = F_COMMENT;
            else {
                fprintf(stderr,
                        "netvar: acct: --field %.40s: not AdminComment, SystemComment "
                        "or Comment\n",
                        optarg);
                return 2;
            }
            break;
        case 'w':
            errno = 0;
            o->wait_s = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(o->wait_s >= 0 && o->wait_s <= 3600)) {
                fprintf(stderr, "netvar: acct: --wait-s %.40s: not seconds in [0, 3600]\n", optarg);
                return 2;
            }
            break;
        case 's': o->spool = optarg; break;
        case 'm': o->model = optarg; break;
        case 'c': o->config = optarg; break;
        case 'p': o->print_only = true; break;
        case 'q': o->quiet = true; break;
        case 'V': printf("netvar-acct %s\n", NETVAR_VERSION); exit(0);
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "netvar: acct: give exactly one JOBID; see --help\n");
        return 2;
    }
    errno = 0;
    o->jobid = strtoul(argv[optind], &end, 10);
    if (errno || end == argv[optind] || *end || o->jobid == 0 || o->jobid > UINT32_MAX) {
        fprintf(stderr, "netvar: acct: JOBID %.40s: not a job id\n", argv[optind]);
        return 2;
    }
    return 0;
}

/* Waits for SPOOL/jobs/JOBID/job.json.  1 there, 0 no netvar record at
 * all (no job directory), -1 the directory but no record in time. */
static int wait_record(const struct opts *o, const char *spool, double deadline)
{
    char dir[PATH_MAX], rec[PATH_MAX + 16];
    if (nv_spool_jobs_path(spool, (long long)o->jobid, NULL, dir, sizeof dir))
        return 0;
    snprintf(rec, sizeof rec, "%s/job.json", dir);
    for (;;) {
        struct stat sb;
        if (lstat(rec, &sb) == 0 && S_ISREG(sb.st_mode))
            return 1;
        if (now_s() >= deadline)
            return lstat(dir, &sb) == 0 ? -1 : 0;
        nap();
    }
}

static char **field_of(slurmdb_job_rec_t *j, enum field f)
{
    return f == F_ADMIN_COMMENT    ? &j->admin_comment
           : f == F_SYSTEM_COMMENT ? &j->system_comment
                                   : &j->derived_es;
}

static const char *field_name(enum field f)
{
    return f == F_ADMIN_COMMENT    ? "AdminComment"
           : f == F_SYSTEM_COMMENT ? "SystemComment"
                                   : "Comment";
}

static slurmdb_job_cond_t *job_cond(unsigned long jobid, const char *cluster)
{
    slurmdb_job_cond_t *c = calloc(1, sizeof *c);
    char id[32];
    if (!c)
        return NULL;
    snprintf(id, sizeof id, "%lu", jobid);
    c->db_flags = SLURMDB_JOB_FLAG_NOTSET;
    c->flags = JOBCOND_FLAG_NO_STEP | JOBCOND_FLAG_NO_DEFAULT_USAGE;
    c->step_list = slurm_list_create(slurm_destroy_selected_step);
    slurm_addto_step_list(c->step_list, id);
    c->cluster_list = slurm_list_create(free); /* ours: destroyed by job_cond_free */
    char *name = strdup(cluster);
    if (name)
        slurm_list_append(c->cluster_list, name);
    return c;
}

static void job_cond_free(slurmdb_job_cond_t *c)
{
    if (!c)
        return;
    slurm_list_destroy(c->step_list);
    slurm_list_destroy(c->cluster_list);
    free(c);
}

/* The finished job's record in slurmdbd: 0 with *cur holding the field's
 * text and *admin its AdminComment (both malloc'd, may be ""), -1 when it
 * is not there by the deadline. */
static int read_fields(void *db, slurmdb_job_cond_t *cond, enum field f, double deadline,
                       char **cur, char **admin)
{
    for (;;) {
        nv_list jobs = slurmdb_jobs_get(db, cond);
        nv_list_itr it = jobs ? slurm_list_iterator_create(jobs) : NULL;
        slurmdb_job_rec_t *j = it ? slurm_list_next(it) : NULL;
        if (j && j->end != 0) {
            const char *v = *field_of(j, f), *a = j->admin_comment;
            *cur = strdup(v ? v : "");
            *admin = strdup(a ? a : "");
        }
        if (it)
            slurm_list_iterator_destroy(it);
        if (jobs)
            slurm_list_destroy(jobs);
        if (*cur && *admin)
            return 0;
        free(*cur);
        free(*admin);
        *cur = *admin = NULL;
        if (now_s() >= deadline)
            return -1;
        nap();
    }
}

static int write_field(void *db, slurmdb_job_cond_t *cond, enum field f, const char *text)
{
    slurmdb_job_rec_t *rec = slurmdb_create_job_rec();
    *field_of(rec, f) = slurm_xstrdup(text);
    nv_list done = slurmdb_job_modify(db, cond, rec);
    int n = done ? slurm_list_count(done) : -1;
    if (done)
        slurm_list_destroy(done);
    slurmdb_destroy_job_rec(rec);
    int rc = slurmdb_connection_commit(db, n == 1);
    return n == 1 && rc == SLURM_SUCCESS ? 0 : -1;
}

static int summarize(const struct opts *o, const nv_job_report *r, const nv_acct_prediction *own,
                     char *buf, size_t cap)
{
    if (nv_acct_summary_format(buf, cap, r, own) >= 0)
        return 0;
    fprintf(stderr, "netvar: acct: job %lu: the summary does not fit %d bytes; nothing written\n",
            o->jobid, NV_ACCT_SUMMARY_MAX);
    return 1;
}

/* Puts r's summary into the job's record in slurmdbd: 0 written (or
 * already there), 1 with one line. */
static int store(const struct opts *o, const nv_job_report *r, double deadline)
{
    slurm_init(NULL);
    slurm_conf_t *conf = NULL;
    if (slurm_load_ctl_conf((time_t)0, &conf) != SLURM_SUCCESS || !conf || !conf->cluster_name) {
        fprintf(stderr,
                "netvar: acct: job %lu: cannot read slurmctld's configuration: %s; "
                "nothing written\n",
                o->jobid, slurm_strerror(errno));
        return 1;
    }
    slurmdb_job_cond_t *cond = job_cond(o->jobid, conf->cluster_name);
    void *db = cond ? slurmdb_connection_get(NULL) : NULL;
    char *cur = NULL, *admin = NULL, summary[NV_ACCT_SUMMARY_MAX];
    int rc = 1;
    enum field field = o->field;
    if (!db) {
        fprintf(stderr, "netvar: acct: job %lu: cannot reach slurmdbd: %s; nothing written\n",
                o->jobid, slurm_strerror(errno));
    } else if (read_fields(db, cond, field, deadline, &cur, &admin)) {
        fprintf(stderr,
                "netvar: acct: job %lu: slurmdbd holds no finished record of it after "
                "%.0f s; nothing written\n",
                o->jobid, o->wait_s);
    } else if (field == F_ADMIN_COMMENT && nv_acct_holds_jobstats(cur) &&
               (free(cur), free(admin), cur = admin = NULL,
                fprintf(stderr,
                        "netvar: acct: job %lu: AdminComment holds a jobstats summary "
                        "(JS1:), which its readers decode whole; writing netvar's to "
                        "SystemComment instead\n",
                        o->jobid),
                field = F_SYSTEM_COMMENT, read_fields(db, cond, field, deadline, &cur, &admin))) {
        fprintf(stderr,
                "netvar: acct: job %lu: cannot read its SystemComment; nothing "
                "written\n",
                o->jobid);
    } else {
        /* the prediction as job_submit recorded it where users cannot write */
        nv_acct_prediction own;
        nv_acct_own_prediction(admin, &own);
        size_t cap = strlen(cur) + sizeof summary + 2;
        char *merged = malloc(cap);
        if (summarize(o, r, &own, summary, sizeof summary))
            ; /* said */
        else if (!merged || nv_acct_merge(cur, summary, merged, cap) < 0)
            fprintf(stderr, "netvar: acct: job %lu: out of memory; nothing written\n", o->jobid);
        else if (!strcmp(merged, cur))
            rc = 0; /* already there */
        else if (write_field(db, cond, field, merged))
            fprintf(stderr, "netvar: acct: job %lu: slurmdbd refused the %s update: %s\n", o->jobid,
                    field_name(field), slurm_strerror(errno));
        else {
            rc = 0;
            if (!o->quiet)
                printf("netvar: acct: job %lu: %s: %s\n", o->jobid, field_name(field), summary);
        }
        free(merged);
    }
    free(cur);
    free(admin);
    if (db)
        slurmdb_connection_close(&db);
    job_cond_free(cond);
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
    slurm_free_conf(conf);
#else
    slurm_free_ctl_conf(conf);
#endif
    return rc;
}

int main(int argc, char **argv)
{
    struct opts o = {.config = getenv("NETVAR_CONF"), .wait_s = 60};
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc;
    double deadline = now_s() + o.wait_s;
    struct nv_config *site = malloc(sizeof *site);
    if (!site)
        return 1;
    if (nv_config_load(o.config ? o.config : "/etc/netvar/netvar.conf", site, conf_error, NULL) &&
        !o.config)
        nv_config_defaults(site);
    const char *spool = o.spool ? o.spool : site->spool_dir;
    const char *model_path = o.model ? o.model : site->model_file;
    nv_predictor pred = NV_PREDICT_QUEUE;
    nv_predictor_from_name(site->predictor, &pred);

    int have = wait_record(&o, spool, deadline);
    if (have <= 0) {
        if (have == 0)
            fprintf(stderr,
                    "netvar: acct: job %lu: no netvar record in %s (netvar was off for "
                    "it); nothing written\n",
                    o.jobid, spool);
        else
            fprintf(stderr,
                    "netvar: acct: job %lu: %s/jobs/%lu/job.json did not appear within "
                    "%.0f s; nothing written\n",
                    o.jobid, spool, o.jobid, o.wait_s);
        free(site);
        return have == 0 ? 0 : 1;
    }
    char err[512];
    nv_model *m = nv_model_load(model_path, err, sizeof err); /* NULL: no baseline from it */
    nv_job_report *r = calloc(1, sizeof *r);
    int ok = r && nv_job_report_build(spool, (int64_t)o.jobid, m, pred, r, err, sizeof err) == 0;
    if (m)
        nv_model_free(m);
    free(site);
    if (!ok) {
        fprintf(stderr, "netvar: acct: job %lu: %s; nothing written\n", o.jobid,
                r ? err : "out of memory");
        rc = 1;
    } else if (o.print_only) {
        /* AdminComment is not read: a recorded prediction is the Comment's claim */
        char summary[NV_ACCT_SUMMARY_MAX];
        rc = summarize(&o, r, NULL, summary, sizeof summary);
        if (rc == 0)
            printf("%s\n", summary);
    } else {
        rc = store(&o, r, deadline);
    }
    if (r)
        nv_job_report_free(r);
    free(r);
    return rc;
}
