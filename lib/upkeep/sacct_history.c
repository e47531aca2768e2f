/* sacct_history.c - training history from sacct output (sacct_history.h). */
#include "sacct_history.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "acct_summary.h"
#include "annotation.h"
#include "app_identity.h"
#include "job_record.h"
#include "nv_err.h"
#include "nv_json.h"
#include "plausible.h"

enum {
    F_ID,
    F_NAME,
    F_NNODES,
    F_START,
    F_END,
    F_STATE,
    F_NODELIST,
    F_COMMENT,
    F_ADMIN,
    F_SYSTEM,
    F_COUNT
};
/* lines written before SystemComment was asked for end at AdminComment */
#define F_COUNT_OLD F_SYSTEM

static int num(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int names_app(json_object *o, void *ctx)
{
    (void)ctx;
    const char *a = nv_json_str(o, "app");
    return a && nv_model_key_valid(a);
}

/* the app of the last netvar entry of text that names one */
static int app_of_entries(const char *text, char *app, size_t cap)
{
    json_object *o = nv_acct_last_entry(text, NV_SACCT_LINE_MAX, names_app, NULL);
    if (o)
        snprintf(app, cap, "%s", nv_json_str(o, "app"));
    json_object_put(o);
    return o != NULL;
}

/* The job's app and where it came from: netvar's own entry in AdminComment
 * or SystemComment first (netvar-acct's summary, or job_submit's annotation there; users
 * cannot set AdminComment); then what the user can edit: the annotation
 * at the very end of the Comment (as job_submit writes it; a "netvar:{"
 * anywhere else is the user's own text and never read), then the job
 * name. */
static nv_sacct_app_from find_app(const char *name, const char *comment, const char *admin,
                                  const char *system, char *app, size_t cap)
{
    /* netvar-acct writes SystemComment where AdminComment holds jobstats' */
    if (app_of_entries(admin, app, cap) || app_of_entries(system, app, cap))
        return NV_SACCT_APP_ADMIN;
    if (app_of_entries(comment + nv_annotation_strip(comment), app, cap))
        return NV_SACCT_APP_COMMENT;
    if (nv_app_key_from_name(name, app, cap))
        return NV_SACCT_APP_NAME;
    return NV_SACCT_APP_NONE;
}

size_t nv_sacct_split(char *line, char **f, size_t cap)
{
    size_t len = strlen(line), n = 0;
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        line[--len] = '\0';
    for (char *p = line;; n++) {
        char *d = strstr(p, NV_SACCT_DELIM);
        if (n < cap)
            f[n] = p;
        if (!d)
            return n + 1;
        *d = '\0';
        p = d + strlen(NV_SACCT_DELIM);
    }
}

int nv_sacct_parse_line(const char *line, nv_sacct_job *j, char *err, size_t errlen)
{
    memset(j, 0, sizeof *j);
    size_t len = strnlen(line, NV_SACCT_LINE_MAX + 1);
    if (len > NV_SACCT_LINE_MAX)
        return nv_err(err, errlen, "longer than %d bytes", NV_SACCT_LINE_MAX);
    char buf[NV_SACCT_LINE_MAX + 1];
    memcpy(buf, line, len + 1);
    char *f[F_COUNT];
    size_t n = nv_sacct_split(buf, f, F_COUNT);
    if (n == F_COUNT_OLD)
        f[F_SYSTEM] = "";
    else if (n != F_COUNT)
        return nv_err(err, errlen, "%zu fields, expected %d (" NV_SACCT_FIELDS ")", n, F_COUNT);
    double v;
    if (strchr(f[F_ID], '.') || strchr(f[F_ID], '_') || strchr(f[F_ID], '+'))
        return 1; /* a step, an array task or a het component: not a whole job */
    if (num(f[F_ID], 1, 9e15, &v) || v != floor(v))
        return nv_err(err, errlen, "JobIDRaw '%.20s' is not a job id", f[F_ID]);
    j->job_id = (int64_t)v;
    snprintf(j->state, sizeof j->state, "%.31s", f[F_STATE]);
    if (strcmp(j->state, "COMPLETED"))
        return 1; /* a failed, cancelled or timed-out run says little about its runtime */
    if (num(f[F_NNODES], 1, 1e6, &v))
        return nv_err(err, errlen, "NNodes '%.20s' is not a node count", f[F_NNODES]);
    j->nnodes = (uint32_t)v;
    if (num(f[F_START], 1, NV_PLAUSIBLE_UNIX_MAX_S, &j->start_s) ||
        num(f[F_END], 1, NV_PLAUSIBLE_UNIX_MAX_S, &j->end_s) || !nv_plausible_time(j->end_s, 0))
        return nv_err(err, errlen,
                      "Start/End '%.20s'/'%.20s' are not Unix seconds "
                      "(run sacct with SLURM_TIME_FORMAT=%%s)",
                      f[F_START], f[F_END]);
    if (!(j->end_s > j->start_s))
        return 1;
    if (strlen(f[F_NODELIST]) >= sizeof j->nodelist)
        return nv_err(err, errlen, "NodeList longer than %zu bytes", sizeof j->nodelist - 1);
    snprintf(j->nodelist, sizeof j->nodelist, "%s", f[F_NODELIST]);
    j->app_from = find_app(f[F_NAME], f[F_COMMENT], f[F_ADMIN], f[F_SYSTEM], j->app, sizeof j->app);
    return j->app_from == NV_SACCT_APP_NONE ? 1 : 0;
}

static json_object *names(char **list, size_t n)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; a && i < n; i++)
        json_object_array_add(a, json_object_new_string(list[i]));
    return a;
}

/* unique non-empty strings of the nodes' switches or groups */
static json_object *topo_names(const nv_topo *topo, char **nodes, size_t n, int group)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; a && topo && i < n; i++) {
        const nv_topo_node *w = nv_topo_find(topo, nodes[i]);
        const char *name = w ? (group ? w->group : w->sw) : "";
        if (!name[0])
            continue;
        int seen = 0;
        for (size_t k = 0; k < json_object_array_length(a) && !seen; k++)
            seen = !strcmp(json_object_get_string(json_object_array_get_idx(a, k)), name);
        if (!seen)
            json_object_array_add(a, json_object_new_string(name));
    }
    return a;
}

json_object *nv_sacct_job_record(const nv_sacct_job *j, const nv_topo *topo, char *err,
                                 size_t errlen)
{
    char **nodes = NULL;
    long n = nv_hostlist_expand(j->nodelist, &nodes, NV_HOSTLIST_MAX, err, errlen);
    if (n <= 0) {
        if (n == 0)
            nv_err(err, errlen, "NodeList is empty");
        return NULL;
    }
    json_object *r = json_object_new_object();
    json_object_object_add(r, "schema", json_object_new_string(NV_JOB_RECORD_SCHEMA));
    json_object_object_add(r, "version", json_object_new_int(NV_JOB_RECORD_VERSION));
    json_object_object_add(r, "source", json_object_new_string("sacct"));
    json_object_object_add(r, "job_id", json_object_new_int64(j->job_id));
    json_object_object_add(r, "app", json_object_new_string(j->app));
    json_object_object_add(r, "runtime_s", json_object_new_double(j->end_s - j->start_s));
    json_object_object_add(r, "start_unix_s", json_object_new_double(j->start_s));
    json_object_object_add(r, "end_unix_s", json_object_new_double(j->end_s));
    json_object_object_add(r, "nodes", names(nodes, (size_t)n));
    json_object_object_add(r, "switches", topo_names(topo, nodes, (size_t)n, 0));
    json_object_object_add(r, "groups", topo_names(topo, nodes, (size_t)n, 1));
    nv_hostlist_free(nodes, (size_t)n);
    return r;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int nv_sacct_read(FILE *f, const nv_topo *topo, const nv_train_opts *o, nv_train_set *s,
                  nv_sacct_stats *st, nv_train_log_fn log, void *ctx, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    /* the ids the spool gave, to leave those jobs to their richer record */
    size_t nspool = s->n;
    int64_t *ids = malloc((nspool ? nspool : 1) * sizeof *ids);
    if (!ids)
        return nv_err(err, errlen, "out of memory");
    for (size_t i = 0; i < nspool; i++)
        ids[i] = s->jobs[i].job_id;
    qsort(ids, nspool, sizeof *ids, cmp_i64);
    char *line = malloc(NV_SACCT_LINE_MAX + 2);
    int rc = 0;
    while (line && fgets(line, NV_SACCT_LINE_MAX + 2, f)) {
        st->lines++;
        size_t len = strlen(line);
        if (len == NV_SACCT_LINE_MAX + 1 && line[len - 1] != '\n') {
            int c;
            while ((c = fgetc(f)) != EOF && c != '\n')
                ;
            st->malformed++;
            if (log) {
                char msg[128];
                snprintf(msg, sizeof msg,
                         "netvar: train: sacct line %zu: longer than %d bytes; skipped", st->lines,
                         NV_SACCT_LINE_MAX);
                log(ctx, msg);
            }
            continue;
        }
        nv_sacct_job j;
        char why[256];
        int p = nv_sacct_parse_line(line, &j, why, sizeof why);
        if (p == 1) {
            st->left_out++;
            continue;
        }
        json_object *rec = p == 0 ? nv_sacct_job_record(&j, topo, why, sizeof why) : NULL;
        nv_train_job tj;
        char app[NV_MODEL_KEY_MAX + 1];
        if (!rec || nv_train_job_from_record(rec, 0, &tj, app, why, sizeof why) != 0) {
            st->malformed++;
            if (log) {
                char msg[400];
                snprintf(msg, sizeof msg, "netvar: train: sacct line %zu: %s; skipped", st->lines,
                         why);
                log(ctx, msg);
            }
            json_object_put(rec);
            continue;
        }
        json_object_put(rec);
        if (bsearch(&tj.job_id, ids, nspool, sizeof *ids, cmp_i64)) {
            st->in_spool++;
            continue;
        }
        if (nv_train_set_add(s, &tj, app, o->max_jobs, err, errlen)) {
            rc = -1;
            break;
        }
        st->added++;
        st->app_from_comment += j.app_from == NV_SACCT_APP_COMMENT;
        st->app_from_name += j.app_from == NV_SACCT_APP_NAME;
    }
    if (log && (st->app_from_comment || st->app_from_name)) {
        char msg[300];
        snprintf(msg, sizeof msg,
                 "netvar: train: sacct: %zu of %zu jobs are named by what their "
                 "users can edit (%zu by their Comment's netvar annotation, %zu by the job name), "
                 "not by netvar's entry in AdminComment",
                 st->app_from_comment + st->app_from_name, st->added, st->app_from_comment,
                 st->app_from_name);
        log(ctx, msg);
    }
    if (!line)
        rc = nv_err(err, errlen, "out of memory");
    free(line);
    free(ids);
    return rc;
}
