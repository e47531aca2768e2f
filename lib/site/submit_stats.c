/* submit_stats.c - job_submit/netvar's decision counts and call times, and
 * the file they go to (submit_stats.h). */
#include "submit_stats.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "json_file.h"
#include "nv_err.h"
#include "nv_json.h"
#include "policy.h"

/* job_submit() takes a few microseconds (make bench-sdiag); the top
 * buckets catch a slurmctld that stalls it */
const double nv_submit_stats_le_s[NV_SUBMIT_STATS_BUCKETS] = {
    1e-6, 2.5e-6, 5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 1e-3, 1e-2, 0.1, 1};

static void add(uint64_t *c, uint64_t v)
{
    __atomic_fetch_add(c, v, __ATOMIC_RELAXED);
}
static uint64_t load(const uint64_t *c)
{
    return __atomic_load_n(c, __ATOMIC_RELAXED);
}

void nv_submit_stats_note_decision(nv_submit_stats *s, unsigned actions)
{
    add(&s->submissions, 1);
    if (!actions)
        add(&s->no_action, 1);
    for (int k = 0; k < NV_SUBMIT_STATS_ACTIONS; k++)
        if (actions & (1u << k))
            add(&s->action[k], 1);
}

/* the same bounds in nanoseconds, compared exactly */
static const uint64_t le_ns[NV_SUBMIT_STATS_BUCKETS] = {1000,    2500,     5000,      10000,
                                                        25000,   50000,    100000,    250000,
                                                        1000000, 10000000, 100000000, 1000000000};

void nv_submit_stats_note_call(nv_submit_stats *s, uint64_t ns)
{
    size_t b = 0;
    while (b < NV_SUBMIT_STATS_BUCKETS && ns > le_ns[b])
        b++;
    add(&s->bucket[b], 1);
    add(&s->total_ns, ns);
    add(&s->calls, 1);
}

void nv_submit_stats_snapshot(const nv_submit_stats *s, nv_submit_stats *out)
{
    /* the calls last, the buckets first: a reader's check that the buckets
     * add up to the calls may see more in the buckets, so it allows that */
    for (size_t b = 0; b <= NV_SUBMIT_STATS_BUCKETS; b++)
        out->bucket[b] = load(&s->bucket[b]);
    out->total_ns = load(&s->total_ns);
    out->calls = load(&s->calls);
    uint64_t sum = 0;
    for (size_t b = 0; b <= NV_SUBMIT_STATS_BUCKETS; b++)
        sum += out->bucket[b];
    out->calls = sum; /* what the buckets hold, so the two always agree */
    for (int k = 0; k < NV_SUBMIT_STATS_ACTIONS; k++)
        out->action[k] = load(&s->action[k]);
    out->no_action = load(&s->no_action);
    out->submissions = load(&s->submissions);
    out->started_unix_s = s->started_unix_s;
    out->written_unix_s = s->written_unix_s;
}

int nv_submit_stats_format(const nv_submit_stats *s, char *buf, size_t cap)
{
    size_t len = 0;
#define PUT(...)                                                                                   \
    do {                                                                                           \
        int n_ = snprintf(buf + len, cap > len ? cap - len : 0, __VA_ARGS__);                      \
        if (n_ < 0 || (size_t)n_ >= (cap > len ? cap - len : 0))                                   \
            return -1;                                                                             \
        len += (size_t)n_;                                                                         \
    } while (0)
    PUT("{\"schema\":\"%s\",\"version\":%d,\"started_unix_s\":%.3f,\"written_unix_s\":%.3f,"
        "\"submissions\":%llu,\"no_action\":%llu,\"actions\":{",
        NV_SUBMIT_STATS_SCHEMA, NV_SUBMIT_STATS_VERSION, s->started_unix_s, s->written_unix_s,
        (unsigned long long)s->submissions, (unsigned long long)s->no_action);
    for (int k = 0; k < NV_SUBMIT_STATS_ACTIONS; k++)
        PUT("%s\"%s\":%llu", k ? "," : "", nv_action_name((enum nv_action)(1u << k)),
            (unsigned long long)s->action[k]);
    PUT("},\"calls\":%llu,\"total_ns\":%llu,\"le_s\":[", (unsigned long long)s->calls,
        (unsigned long long)s->total_ns);
    for (size_t b = 0; b < NV_SUBMIT_STATS_BUCKETS; b++)
        PUT("%s%g", b ? "," : "", nv_submit_stats_le_s[b]);
    PUT("],\"buckets\":[");
    for (size_t b = 0; b <= NV_SUBMIT_STATS_BUCKETS; b++)
        PUT("%s%llu", b ? "," : "", (unsigned long long)s->bucket[b]);
    PUT("]}\n");
#undef PUT
    return (int)len;
}

static int parse_obj(const char *name, json_object *o, nv_submit_stats *out, char *err,
                     size_t errlen)
{
    char why[200];
    if (nv_json_schema_check(o, NV_SUBMIT_STATS_SCHEMA, NV_SUBMIT_STATS_VERSION, why, sizeof why))
        return nv_err(err, errlen, "%s: %s", name, why);
    if (nv_json_u64(o, "submissions", &out->submissions) ||
        nv_json_u64(o, "no_action", &out->no_action) || nv_json_u64(o, "calls", &out->calls) ||
        nv_json_u64(o, "total_ns", &out->total_ns))
        return nv_err(err, errlen,
                      "%s: submissions, no_action, calls or total_ns is missing "
                      "or not a whole number",
                      name);
    if (nv_json_num_strict(o, "started_unix_s", &out->started_unix_s) != 1 ||
        nv_json_num_strict(o, "written_unix_s", &out->written_unix_s) != 1)
        return nv_err(err, errlen, "%s: started_unix_s or written_unix_s is missing", name);
    if (out->no_action > out->submissions)
        return nv_err(err, errlen, "%s: no_action %llu is more than submissions %llu", name,
                      (unsigned long long)out->no_action, (unsigned long long)out->submissions);
    json_object *acts = nv_json_get(o, "actions", json_type_object);
    uint64_t acted = out->submissions - out->no_action, most = 0;
    for (int k = 0; k < NV_SUBMIT_STATS_ACTIONS; k++) {
        const char *an = nv_action_name((enum nv_action)(1u << k));
        if (!acts || nv_json_u64(acts, an, &out->action[k]))
            return nv_err(err, errlen, "%s: actions.%s is missing or not a whole number", name, an);
        if (out->action[k] > acted)
            return nv_err(err, errlen,
                          "%s: actions.%s %llu is more than the %llu submissions "
                          "with an action",
                          name, an, (unsigned long long)out->action[k], (unsigned long long)acted);
        most = out->action[k] > most ? out->action[k] : most;
    }
    if (acted && !most)
        return nv_err(err, errlen, "%s: %llu submissions with an action, none counted by action",
                      name, (unsigned long long)acted);
    json_object *le = nv_json_get(o, "le_s", json_type_array);
    json_object *bk = nv_json_get(o, "buckets", json_type_array);
    if (!le || json_object_array_length(le) != NV_SUBMIT_STATS_BUCKETS || !bk ||
        json_object_array_length(bk) != NV_SUBMIT_STATS_BUCKETS + 1)
        return nv_err(err, errlen,
                      "%s: le_s or buckets is not the %d bounds and %d counts "
                      "this netvar writes",
                      name, NV_SUBMIT_STATS_BUCKETS, NV_SUBMIT_STATS_BUCKETS + 1);
    uint64_t sum = 0;
    for (size_t b = 0; b <= NV_SUBMIT_STATS_BUCKETS; b++) {
        json_object *v = json_object_array_get_idx(bk, b);
        if (b < NV_SUBMIT_STATS_BUCKETS) {
            json_object *l = json_object_array_get_idx(le, b);
            double want = nv_submit_stats_le_s[b], got = json_object_get_double(l);
            if (!json_object_is_type(l, json_type_double) && !json_object_is_type(l, json_type_int))
                got = NAN;
            if (!(fabs(got - want) <= 1e-9 * want))
                return nv_err(err, errlen, "%s: le_s[%zu] is not %g", name, b, want);
        }
        if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
            return nv_err(err, errlen, "%s: buckets[%zu] is not a whole number", name, b);
        out->bucket[b] = (uint64_t)json_object_get_int64(v);
        sum += out->bucket[b];
    }
    if (sum != out->calls)
        return nv_err(err, errlen, "%s: the buckets hold %llu calls, calls says %llu", name,
                      (unsigned long long)sum, (unsigned long long)out->calls);
    return 0;
}

int nv_submit_stats_parse(const char *name, const char *text, size_t len, nv_submit_stats *out,
                          char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    json_tokener *tok = json_tokener_new();
    if (!tok)
        return nv_err(err, errlen, "%s: out of memory", name);
    json_object *o = json_tokener_parse_ex(tok, text, (int)len);
    int bad = json_tokener_get_error(tok) != json_tokener_success;
    json_tokener_free(tok);
    if (bad || !o) {
        json_object_put(o);
        return nv_err(err, errlen, "%s: not JSON", name);
    }
    int rc = parse_obj(name, o, out, err, errlen);
    json_object_put(o);
    if (rc)
        memset(out, 0, sizeof *out);
    return rc;
}

int nv_submit_stats_read(const char *path, nv_submit_stats *out, char *err, size_t errlen)
{
    char why[300];
    memset(out, 0, sizeof *out);
    json_object *o = nv_json_read_file(path, NV_SUBMIT_STATS_MAX_BYTES, why, sizeof why);
    if (!o)
        return nv_err(err, errlen, "%s: %s", path, why);
    int rc = parse_obj(path, o, out, err, errlen);
    json_object_put(o);
    if (rc)
        memset(out, 0, sizeof *out);
    return rc;
}
