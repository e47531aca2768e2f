/* user_report.c - the report a user reads from accounting (user_report.h). */
#include "user_report.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "acct_summary.h"
#include "annotation.h"
#include "nv_err.h"
#include "nv_json.h"
#include "safe_open.h"
#include "sacct_history.h"

enum {
    F_ID,
    F_USER,
    F_UID,
    F_ACCOUNT,
    F_STATE,
    F_ELAPSED,
    F_NNODES,
    F_NODES,
    F_COMMENT,
    F_ADMIN,
    F_SYSTEM,
    F_COUNT
};

static int whole(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi || v != floor(v))
        return -1;
    *out = v;
    return 0;
}

/* a field shown to people: printable, bounded */
static void shown(char *dst, size_t cap, const char *s)
{
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s", s);
    nv_printable(tmp, dst, cap);
}

static int is_summary(json_object *o, void *ctx)
{
    (void)ctx;
    return json_object_object_get_ex(o, "runtime_s", NULL);
}

static int is_annotation(json_object *o, void *ctx)
{
    (void)ctx;
    return json_object_object_get_ex(o, "mode", NULL);
}

static void take_summary(nv_ureport *r, json_object *o)
{
    r->has_summary = 1;
    const char *s = nv_json_str(o, "app");
    shown(r->app, sizeof r->app, s ? s : "");
    s = nv_json_str(o, "src");
    shown(r->src, sizeof r->src, s ? s : "");
    r->runtime_s = nv_json_num_or(o, "runtime_s", NAN);
    r->baseline_s = nv_json_num_or(o, "baseline_s", NAN);
    r->slowdown_pct = nv_json_num_or(o, "slowdown_pct", NAN);
    r->predicted_pct = nv_json_num_or(o, "predicted_pct", NAN);
    r->claimed_pct = nv_json_num_or(o, "claimed_pct", NAN);
    double *pct[] = {&r->slowdown_pct, &r->predicted_pct, &r->claimed_pct};
    for (size_t i = 0; i < sizeof pct / sizeof pct[0]; i++)
        if (!(fabs(*pct[i]) <= NV_ACCT_PCT_MAX))
            *pct[i] = NAN;
    if (!(r->runtime_s >= 0 && r->runtime_s < 1e15))
        r->runtime_s = NAN;
    if (!(r->baseline_s > 0 && r->baseline_s < 1e15))
        r->baseline_s = NAN;
}

static void take_annotation(nv_ureport *r, json_object *o, int from_comment)
{
    r->has_annotation = 1;
    r->annotation_from_comment = from_comment;
    const char *s = nv_json_str(o, "vs");
    shown(r->vs_app, sizeof r->vs_app, s ? s : "");
    s = nv_json_str(o, "action");
    shown(r->action, sizeof r->action, s ? s : "");
    double v = nv_json_num_or(o, "vs_job", 0);
    r->vs_job = v >= 1 && v < 1e15 ? (long)v : 0;
    v = nv_json_num_or(o, "advice_nodes", 0);
    r->advice_nodes = v >= 1 && v < 1e6 ? (long)v : 0;
    r->own_pct = nv_json_num_or(o, "own_pct", NAN);
    if (fabs(r->own_pct) > NV_ACCT_PCT_MAX)
        r->own_pct = NAN;
}

int nv_ureport_parse(const char *line, int64_t job, nv_ureport *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->uid = -1;
    r->elapsed_s = r->runtime_s = r->baseline_s = r->slowdown_pct = r->predicted_pct =
        r->claimed_pct = r->own_pct = NAN;
    size_t len = strnlen(line, NV_SACCT_LINE_MAX + 1);
    if (len > NV_SACCT_LINE_MAX)
        return nv_err(err, errlen, "longer than %d bytes", NV_SACCT_LINE_MAX);
    char *buf = malloc(len + 1);
    if (!buf)
        return nv_err(err, errlen, "out of memory");
    memcpy(buf, line, len + 1);
    char *f[F_COUNT];
    size_t n = nv_sacct_split(buf, f, F_COUNT);
    int rc = 0;
    double v;
    if (n != F_COUNT) {
        rc = nv_err(err, errlen, "%zu fields, expected %d (" NV_UREPORT_FIELDS ")", n, F_COUNT);
        goto out;
    }
    if (whole(f[F_ID], 1, 9e15, &v)) {
        rc = strpbrk(f[F_ID], "._+")
                 ? 1
                 : nv_err(err, errlen, "JobIDRaw '%.20s' is not a job id", f[F_ID]);
        goto out;
    }
    if ((int64_t)v != job) {
        rc = 1;
        goto out;
    }
    r->job_id = job;
    if (f[F_UID][0] && whole(f[F_UID], 0, 4294967294.0, &v) == 0)
        r->uid = (long)v;
    else if (f[F_UID][0]) {
        rc = nv_err(err, errlen, "UID '%.20s' is not a user id", f[F_UID]);
        goto out;
    }
    shown(r->user, sizeof r->user, f[F_USER]);
    shown(r->account, sizeof r->account, f[F_ACCOUNT]);
    shown(r->state, sizeof r->state, f[F_STATE]);
    shown(r->nodelist, sizeof r->nodelist, f[F_NODES]);
    if (whole(f[F_ELAPSED], 0, 1e10, &v) == 0)
        r->elapsed_s = v;
    r->nnodes = whole(f[F_NNODES], 0, 1e6, &v) == 0 ? (long)v : 0;
    /* netvar-acct's summary: SystemComment where AdminComment holds another
     * tool's value, else AdminComment; the last of the two that has one */
    json_object *o = nv_acct_last_entry(f[F_SYSTEM], NV_SACCT_LINE_MAX, is_summary, NULL);
    if (!o)
        o = nv_acct_last_entry(f[F_ADMIN], NV_SACCT_LINE_MAX, is_summary, NULL);
    if (o)
        take_summary(r, o);
    json_object_put(o);
    /* job_submit's annotation: AdminComment (netvar's word), else the
     * Comment's trailing one (the user's to edit) */
    o = nv_acct_last_entry(f[F_ADMIN], NV_SACCT_LINE_MAX, is_annotation, NULL);
    int from_comment = 0;
    if (!o) {
        const char *c = f[F_COMMENT] + nv_annotation_strip(f[F_COMMENT]);
        o = nv_acct_last_entry(c, NV_SACCT_LINE_MAX, is_annotation, NULL);
        from_comment = 1;
    }
    if (o)
        take_annotation(r, o, from_comment);
    json_object_put(o);
out:
    free(buf);
    return rc;
}

typedef struct out {
    char *buf;
    size_t cap, len;
} out;

static void put(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = o->len + 1 < o->cap ? vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap)
                                : vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->len += (size_t)n;
}

static void elapsed(char *b, size_t cap, double s)
{
    if (!isfinite(s)) {
        snprintf(b, cap, "unknown");
        return;
    }
    long t = (long)s;
    snprintf(b, cap, "%ld s (%ld:%02ld:%02ld)", t, t / 3600, t / 60 % 60, t % 60);
}

/* the one thing the user can do, with the figure that says why */
static void notes(out *o, const nv_ureport *r)
{
    put(o, "\nNotes\n");
    double obs = r->slowdown_pct;
    if (!r->has_summary) {
        put(o, "  netvar has no summary for this job in accounting (netvar-acct writes it\n"
               "  when the job ends); nothing to suggest.\n");
        return;
    }
    if (isfinite(obs) && obs >= NV_UREPORT_NOTE_PCT) {
        if (r->advice_nodes > 0)
            put(o,
                "  The job ran %.1f %% slower than alone, and netvar advised %ld nodes at\n"
                "  submission: submit with --netvar-advise=apply to let netvar place it so.\n",
                obs, r->advice_nodes);
        else if (r->nnodes > 1)
            put(o,
                "  The job ran %.1f %% slower than its time alone.  Where other jobs\n"
                "  shared its network links, submit with --switches=1 to keep its %ld nodes\n"
                "  under one leaf switch, where it shares no uplink (it may wait longer\n"
                "  to start).\n",
                obs, r->nnodes);
        else
            put(o,
                "  The job ran %.1f %% slower than alone on one node: the network is not\n"
                "  the cause netvar can see; nothing to change for netvar.\n",
                obs);
        return;
    }
    if (isfinite(obs))
        put(o,
            "  The job ran within %.1f %% of its time alone (below %d %%): nothing to\n"
            "  change.\n",
            obs < 0 ? 0 : obs, NV_UREPORT_NOTE_PCT);
    else
        put(o,
            "  netvar knows no time alone for app '%s' at %ld nodes, so it cannot say\n"
            "  whether the job ran slow; nothing to suggest.\n",
            r->app[0] ? r->app : "(none)", r->nnodes);
}

size_t nv_ureport_format(const nv_ureport *r, char *buf, size_t cap)
{
    out o = {buf, cap, 0};
    if (cap)
        buf[0] = '\0';
    char el[64];
    elapsed(el, sizeof el, r->elapsed_s);
    put(&o, "netvar report for job %lld\n", (long long)r->job_id);
    put(&o, "  User:     %s", r->user[0] ? r->user : "unknown");
    if (r->uid >= 0)
        put(&o, " (uid %ld)", r->uid);
    put(&o, "\n  Account:  %s\n  State:    %s\n  Elapsed:  %s\n", r->account[0] ? r->account : "-",
        r->state[0] ? r->state : "unknown", el);
    put(&o, "  Nodes:    %ld (%s)\n", r->nnodes, r->nodelist[0] ? r->nodelist : "none");
    put(&o, "\nSummary\n");
    if (!r->has_summary)
        put(&o, "  netvar's summary is not in accounting for this job.\n");
    else {
        put(&o, "  App:                %s\n", r->app[0] ? r->app : "(none named)");
        if (isfinite(r->runtime_s))
            put(&o, "  Run time:           %.1f s\n", r->runtime_s);
        if (isfinite(r->baseline_s))
            put(&o, "  Time alone:         %.1f s (the app at this node count, no neighbours)\n",
                r->baseline_s);
        if (isfinite(r->slowdown_pct))
            put(&o, "  Observed slowdown:  %.1f %% (run time against time alone)\n",
                r->slowdown_pct);
        else
            put(&o, "  Observed slowdown:  unknown (no time alone for this app)\n");
        if (isfinite(r->predicted_pct))
            put(&o, "  Predicted slowdown: %.1f %% at submission (%s)\n", r->predicted_pct,
                r->src[0] ? r->src : "netvar");
        else if (isfinite(r->claimed_pct))
            put(&o,
                "  Predicted slowdown: %.1f %%, as the job's Comment says (not netvar's record)\n",
                r->claimed_pct);
        else
            put(&o, "  Predicted slowdown: none made at submission\n");
    }
    if (r->has_annotation && (r->vs_job || r->vs_app[0]))
        put(&o,
            "  Neighbour:          job %ld (%s), the running job the prediction was against%s\n",
            r->vs_job, r->vs_app[0] ? r->vs_app : "unknown app",
            r->annotation_from_comment ? ", as the job's Comment says" : "");
    else
        put(&o, "  Neighbour:          none recorded at submission\n");
    if (r->has_annotation && r->action[0])
        put(&o, "  Action at submit:   %s\n", r->action);
    notes(&o, r);
    return o.len < cap ? o.len : (cap ? cap - 1 : 0);
}

int64_t nv_ureport_subject_job(const char *subject)
{
    static const char plain[] = "Slurm Job_id=", task[] = "Slurm Array Task Job_id=";
    const char *p;
    if (!subject)
        return 0;
    if (!strncmp(subject, plain, sizeof plain - 1))
        p = subject + sizeof plain - 1;
    else if (!strncmp(subject, task, sizeof task - 1)) {
        p = strstr(subject + sizeof task - 1, " (");
        if (!p || p - subject > 64)
            return 0;
        p += 2;
    } else
        return 0;
    int64_t v = 0;
    int digits = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (++digits > 15)
            return 0;
        v = v * 10 + (*p - '0');
    }
    if (!digits || (*p != ' ' && *p != ')'))
        return 0;
    return v;
}

int nv_ureport_sacct(int64_t job, nv_ureport *r, char *err, size_t errlen)
{
    char id[24];
    snprintf(id, sizeof id, "%lld", (long long)job);
    int fd[2];
    if (pipe(fd))
        return nv_err(err, errlen, "pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], STDOUT_FILENO);
        close(fd[0]);
        close(fd[1]);
        if (!getenv("PATH"))
            setenv("PATH", "/usr/bin:/bin", 1);
        char *argv[] = {"sacct",           "-X", "-n", "-P", "--delimiter=" NV_SACCT_DELIM, "-o",
                        NV_UREPORT_FIELDS, "-j", id,   NULL};
        execvp("sacct", argv);
        _exit(127);
    }
    close(fd[1]);
    if (pid < 0) {
        close(fd[0]);
        return nv_err(err, errlen, "fork: %s", strerror(errno));
    }
    FILE *f = fdopen(fd[0], "r");
    char *line = malloc(NV_SACCT_LINE_MAX + 2);
    int rc = -1, found = 0;
    char why[256] = "";
    while (f && line && fgets(line, NV_SACCT_LINE_MAX + 2, f)) {
        if (found)
            continue; /* drain */
        int p = nv_ureport_parse(line, job, r, why, sizeof why);
        if (p == 0)
            found = 1;
        else if (p < 0)
            break;
    }
    if (f)
        fclose(f);
    else
        close(fd[0]);
    free(line);
    int status = 0;
    if (!found)
        kill(pid, SIGTERM);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (found)
        rc = 0;
    else if (why[0])
        nv_err(err, errlen, "sacct's line for job %s: %s", id, why);
    else if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0))
        nv_err(err, errlen, "sacct -j %s failed (exit status %d)", id,
               WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    else
        nv_err(err, errlen, "accounting shows no job %s (none such, or not yours to see)", id);
    return rc;
}
