/* train_state.c - the incremental training state file (train_state.h). */
#include "train_state.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "model.h"
#include "nv_err.h"
#include "plausible.h"
#include "safe_open.h"

static const char MAGIC[8] = {'N', 'V', 'T', 'R', 'S', 'T', 'A', 'T'};
#define BYTE_ORDER_MARK 0x01020304u
#define JOB_BYTES 72u
#define CHUNK_JOBS 4096u

struct header {
    char magic[8];
    uint32_t version, byte_order, header_bytes, job_bytes;
    uint64_t n_jobs, n_topo, n_apps, app_bytes, n_ids, spool_bytes;
    double service_us;
    uint64_t checksum; /* of everything after the header */
};

static size_t pad8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

/* a 64-bit FNV-1a over 8-byte words (every section is a multiple of 8) */
static uint64_t mix(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        h = (h ^ w) * 1099511628211ull;
    }
    return h;
}
#define MIX_START 1469598103934665603ull

/* one summary, field by field (no padding reaches the file) */
static void pack(unsigned char *o, const nv_train_sum *j)
{
    memset(o, 0, JOB_BYTES);
    memcpy(o, &j->job_id, 8);
    memcpy(o + 8, &j->app, 4);
    memcpy(o + 12, &j->nodes, 4);
    memcpy(o + 16, &j->start_s, 8);
    memcpy(o + 24, &j->end_s, 8);
    memcpy(o + 32, &j->runtime_s, 8);
    memcpy(o + 40, &j->rho, 8);
    memcpy(o + 48, &j->switch_rho, 8);
    memcpy(o + 56, &j->service_us, 8);
    memcpy(o + 64, &j->topo_off, 4);
    o[68] = j->n_switches;
    o[69] = j->n_groups;
    o[70] = j->profiled;
    o[71] = j->shape; /* 0 in files written before it was kept: unknown */
}

static void unpack(const unsigned char *i, nv_train_sum *j)
{
    memset(j, 0, sizeof *j);
    memcpy(&j->job_id, i, 8);
    memcpy(&j->app, i + 8, 4);
    memcpy(&j->nodes, i + 12, 4);
    memcpy(&j->start_s, i + 16, 8);
    memcpy(&j->end_s, i + 24, 8);
    memcpy(&j->runtime_s, i + 32, 8);
    memcpy(&j->rho, i + 40, 8);
    memcpy(&j->switch_rho, i + 48, 8);
    memcpy(&j->service_us, i + 56, 8);
    memcpy(&j->topo_off, i + 64, 4);
    j->n_switches = i[68];
    j->n_groups = i[69];
    j->profiled = i[70];
    j->shape = i[71];
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* ids to remember: known ones still in the spool, and those read now */
static int64_t *ids_to_keep(const nv_train_set *s, size_t *n)
{
    size_t cap = s->n_read + s->n_known;
    int64_t *ids = malloc((cap ? cap : 1) * sizeof *ids);
    if (!ids)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < s->n_known; i++)
        if (s->known_present && s->known_present[i])
            ids[k++] = s->known[i];
    if (s->n_read)
        memcpy(ids + k, s->read_ids, s->n_read * sizeof *ids);
    k += s->n_read;
    if (k)
        qsort(ids, k, sizeof *ids, cmp_i64);
    size_t u = 0;
    for (size_t i = 0; i < k; i++)
        if (u == 0 || ids[i] != ids[u - 1])
            ids[u++] = ids[i];
    *n = u;
    return ids;
}

static void put(nv_atomic_out *o, uint64_t *h, const void *p, size_t n)
{
    static const char zero[8];
    nv_atomic_write(o, p, n);
    if (pad8(n) != n)
        nv_atomic_write(o, zero, pad8(n) - n);
    /* the checksum runs over the padded bytes as written */
    size_t whole = n & ~(size_t)7;
    *h = mix(*h, p, whole);
    if (whole != n) {
        unsigned char last[8] = {0};
        memcpy(last, (const char *)p + whole, n - whole);
        *h = mix(*h, last, 8);
    }
}

int nv_train_state_save(const char *path, const char *spool, double service_us,
                        const nv_train_set *s, char *err, size_t errlen)
{
    size_t n_ids = 0, app_bytes = 0;
    int64_t *ids = ids_to_keep(s, &n_ids);
    if (!ids)
        return nv_err(err, errlen, "%s: out of memory writing the training state", path);
    for (size_t a = 0; a < s->n_apps; a++)
        app_bytes += strlen(s->apps[a]) + 1;
    char *keys = malloc(app_bytes ? app_bytes : 1);
    unsigned char *chunk = malloc((size_t)CHUNK_JOBS * JOB_BYTES);
    if (!keys || !chunk) {
        free(ids);
        free(keys);
        free(chunk);
        return nv_err(err, errlen, "%s: out of memory writing the training state", path);
    }
    size_t at = 0;
    for (size_t a = 0; a < s->n_apps; a++) {
        size_t l = strlen(s->apps[a]) + 1;
        memcpy(keys + at, s->apps[a], l);
        at += l;
    }
    struct header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, MAGIC, sizeof MAGIC);
    h.version = NV_TRAIN_STATE_VERSION;
    h.byte_order = BYTE_ORDER_MARK;
    h.header_bytes = sizeof h;
    h.job_bytes = JOB_BYTES;
    h.n_jobs = s->n;
    h.n_topo = s->n_topo;
    h.n_apps = s->n_apps;
    h.app_bytes = app_bytes;
    h.n_ids = n_ids;
    h.spool_bytes = strlen(spool);
    h.service_us = service_us;

    nv_atomic_out o;
    int rc = -1;
    if (nv_atomic_begin(&o, path, err, errlen))
        goto out;
    uint64_t sum = MIX_START, ignore = 0;
    put(&o, &ignore, &h, sizeof h); /* the checksum goes in at the end */
    put(&o, &sum, spool, h.spool_bytes);
    put(&o, &sum, keys, app_bytes);
    for (size_t i = 0; i < s->n; i += CHUNK_JOBS) {
        size_t k = s->n - i < CHUNK_JOBS ? s->n - i : CHUNK_JOBS;
        for (size_t j = 0; j < k; j++)
            pack(chunk + j * JOB_BYTES, &s->jobs[i + j]);
        put(&o, &sum, chunk, k * JOB_BYTES);
    }
    put(&o, &sum, s->topo, s->n_topo * sizeof *s->topo);
    put(&o, &sum, ids, n_ids * sizeof *ids);
    h.checksum = sum;
    if (!o.err_no && pwrite(o.fd, &h, sizeof h, 0) != (ssize_t)sizeof h)
        o.err_no = errno ? errno : EIO;
    rc = nv_atomic_commit(&o, 0600, (gid_t)-1, err, errlen);
out:
    free(ids);
    free(keys);
    free(chunk);
    return rc;
}

/* ---- reading ---- */

struct reader {
    int fd;
    off_t at;
    uint64_t sum;
    char *err;
    size_t errlen;
};

/* the next n bytes (a multiple of 8 once padded) into buf, checksummed */
static int take(struct reader *r, void *buf, size_t n)
{
    if (nv_pread_all(r->fd, buf, n, r->at, r->err, r->errlen))
        return -1;
    r->at += (off_t)n;
    r->sum = mix(r->sum, buf, n);
    return 0;
}

static int bad(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int bad(char *err, size_t errlen, const char *fmt, ...)
{
    char what[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return nv_err(err, errlen, "%s", what);
}

static int fraction_or_nan(double x)
{
    return isnan(x) || (x >= 0 && x <= 1);
}

/* a summary as strictly as nv_train_job_from_record checks a record (its
 * times and runtime within plausible.h's bounds) */
static int check_job(const nv_train_sum *j, const struct header *h, const uint64_t *topo, size_t i,
                     char *err, size_t errlen)
{
    size_t nt = (size_t)j->n_switches + j->n_groups;
    if (j->job_id < 0 || j->job_id > 9000000000000000ll || j->app >= h->n_apps || j->nodes == 0 ||
        !nv_plausible_runtime(j->runtime_s) ||
        (!isnan(j->start_s) && !nv_plausible_time(j->start_s, 0)) ||
        (!isnan(j->end_s) && !nv_plausible_time(j->end_s, 0)) ||
        isnan(j->start_s) != isnan(j->end_s) ||
        j->end_s - j->start_s > NV_PLAUSIBLE_RUNTIME_MAX_S || j->end_s < j->start_s ||
        !fraction_or_nan(j->rho) || !fraction_or_nan(j->switch_rho) ||
        !(isnan(j->service_us) || (isfinite(j->service_us) && j->service_us > 0)) ||
        j->n_switches > NV_TRAIN_MAX_TOPO || j->n_groups > NV_TRAIN_MAX_TOPO || j->profiled > 1 ||
        j->topo_off > h->n_topo || nt > h->n_topo - j->topo_off)
        return bad(err, errlen, "summary %zu (job %lld) has a value out of range", i,
                   (long long)j->job_id);
    const uint64_t *t = topo + j->topo_off;
    for (size_t k = 1; k < nt; k++)
        if (k != j->n_switches && t[k] <= t[k - 1])
            return bad(err, errlen, "summary %zu (job %lld): its switches or groups are not sorted",
                       i, (long long)j->job_id);
    return 0;
}

int nv_train_state_load(const char *path, const char *spool, double service_us, size_t max_jobs,
                        nv_train_set *s, char *err, size_t errlen)
{
    struct stat lst;
    if (lstat(path, &lst) && errno == ENOENT)
        return 1;
    struct stat st;
    int fd = nv_open_untrusted(path, geteuid(), NV_TRAIN_STATE_MAX_BYTES, 0, &st, err, errlen);
    if (fd < 0)
        return -1;
    struct reader r = {fd, 0, MIX_START, err, errlen};
    struct header h;
    char *keys = NULL, *spool_in = NULL;
    uint64_t *topo = NULL;
    unsigned char *chunk = NULL;
    int64_t *ids = NULL;
    int rc = -1;
    if ((size_t)st.st_size < sizeof h) {
        bad(err, errlen, "%lld bytes is shorter than a state file's header", (long long)st.st_size);
        goto out;
    }
    if (nv_pread_all(fd, &h, sizeof h, 0, err, errlen))
        goto out;
    r.at = sizeof h;
    if (memcmp(h.magic, MAGIC, sizeof MAGIC)) {
        bad(err, errlen, "not a netvar training state (no NVTRSTAT mark)");
        goto out;
    }
    if (h.version != NV_TRAIN_STATE_VERSION || h.byte_order != BYTE_ORDER_MARK ||
        h.header_bytes != sizeof h || h.job_bytes != JOB_BYTES) {
        bad(err, errlen, "state version %u of another layout (this netvar writes version %d)",
            h.version, NV_TRAIN_STATE_VERSION);
        goto out;
    }
    /* every count is bounded by the file's own size before anything is allocated */
    uint64_t size = (uint64_t)st.st_size;
    if (h.n_jobs > size / JOB_BYTES || h.n_topo > size / 8 || h.n_ids > size / 8 ||
        h.app_bytes > size || h.spool_bytes > 4096 || h.n_apps > NV_MODEL_MAX_APPS ||
        h.n_apps > h.app_bytes ||
        sizeof h + pad8(h.spool_bytes) + pad8(h.app_bytes) + h.n_jobs * JOB_BYTES + h.n_topo * 8 +
                h.n_ids * 8 !=
            size) {
        bad(err, errlen, "its counts do not add up to its size (%llu bytes): cut short or damaged",
            (unsigned long long)size);
        goto out;
    }
    if (h.n_jobs > max_jobs) {
        bad(err, errlen, "%llu summaries is more than --max-jobs (%zu)",
            (unsigned long long)h.n_jobs, max_jobs);
        goto out;
    }
    spool_in = malloc(pad8(h.spool_bytes) + 8);
    keys = malloc(pad8(h.app_bytes) + 8);
    topo = malloc((h.n_topo ? h.n_topo : 1) * 8);
    ids = malloc((h.n_ids ? h.n_ids : 1) * 8);
    chunk = malloc((size_t)CHUNK_JOBS * JOB_BYTES);
    if (!spool_in || !keys || !topo || !ids || !chunk) {
        bad(err, errlen, "out of memory reading it");
        goto out;
    }
    if (take(&r, spool_in, pad8(h.spool_bytes)))
        goto out;
    spool_in[h.spool_bytes] = 0;
    if (strlen(spool_in) != h.spool_bytes || strcmp(spool_in, spool)) {
        char shown[200];
        bad(err, errlen, "it is the state of spool %s, not of this one",
            nv_printable(spool_in, shown, sizeof shown));
        goto out;
    }
    int same = (isnan(h.service_us) && isnan(service_us)) || h.service_us == service_us;
    if (!same) {
        bad(err, errlen,
            "it was read with a service time of %g us and this training uses %g us "
            "(another --model calibration)",
            h.service_us, service_us);
        goto out;
    }
    if (take(&r, keys, pad8(h.app_bytes)))
        goto out;
    /* the keys: n_apps valid app keys, each NUL-terminated, filling app_bytes */
    const char **key = malloc((h.n_apps ? h.n_apps : 1) * sizeof *key);
    if (!key) {
        bad(err, errlen, "out of memory reading it");
        goto out;
    }
    size_t at = 0;
    for (size_t a = 0; a < h.n_apps; a++) {
        const char *k = keys + at;
        size_t l = strnlen(k, h.app_bytes - at);
        if (at + l >= h.app_bytes || !nv_model_key_valid(k)) {
            free(key);
            bad(err, errlen, "app key %zu is not a valid app key", a);
            goto out;
        }
        key[a] = k;
        at += l + 1;
    }
    if (at != h.app_bytes) {
        free(key);
        bad(err, errlen, "its app keys do not fill their section");
        goto out;
    }
    /* the topology comes after the summaries in the file; the summaries
     * need it for their checks, so it is read first (outside the sum) */
    off_t jobs_at = r.at;
    off_t topo_at = jobs_at + (off_t)(h.n_jobs * JOB_BYTES);
    if (nv_pread_all(fd, topo, h.n_topo * 8, topo_at, err, errlen)) {
        free(key);
        goto out;
    }
    for (size_t i = 0; i < h.n_jobs; i += CHUNK_JOBS) {
        size_t k = h.n_jobs - i < CHUNK_JOBS ? h.n_jobs - i : CHUNK_JOBS;
        if (take(&r, chunk, k * JOB_BYTES)) {
            free(key);
            goto out;
        }
        for (size_t j = 0; j < k; j++) {
            nv_train_sum sum;
            unpack(chunk + j * JOB_BYTES, &sum);
            if (check_job(&sum, &h, topo, i + j, err, errlen)) {
                free(key);
                goto out;
            }
            nv_train_job job = {.job_id = sum.job_id,
                                .nodes = sum.nodes,
                                .start_s = sum.start_s,
                                .end_s = sum.end_s,
                                .runtime_s = sum.runtime_s,
                                .rho = sum.rho,
                                .switch_rho = sum.switch_rho,
                                .service_us = sum.service_us,
                                .n_switches = sum.n_switches,
                                .n_groups = sum.n_groups,
                                .profiled = sum.profiled,
                                .shape = sum.shape,
                                .background = NAN,
                                .neighbour_app = -1,
                                .baseline_s = NAN,
                                .slowdown_pct = NAN};
            memcpy(job.topo, topo + sum.topo_off, sum.n_switches * sizeof *topo);
            memcpy(job.topo + NV_TRAIN_MAX_TOPO, topo + sum.topo_off + sum.n_switches,
                   sum.n_groups * sizeof *topo);
            if (nv_train_set_add(s, &job, key[sum.app], max_jobs, err, errlen)) {
                free(key);
                goto out;
            }
        }
    }
    free(key);
    /* now the topology again, in file order, for the checksum */
    r.sum = mix(r.sum, topo, h.n_topo * 8);
    r.at = topo_at + (off_t)(h.n_topo * 8);
    if (take(&r, ids, h.n_ids * 8))
        goto out;
    for (size_t i = 1; i < h.n_ids; i++)
        if (ids[i] <= ids[i - 1]) {
            bad(err, errlen, "its record ids are not sorted");
            goto out;
        }
    if (r.sum != h.checksum) {
        bad(err, errlen, "its checksum does not match: damaged");
        goto out;
    }
    s->known = ids;
    s->n_known = h.n_ids;
    s->known_present = calloc(h.n_ids ? h.n_ids : 1, 1);
    if (!s->known_present) {
        bad(err, errlen, "out of memory reading it");
        ids = NULL;
        goto out;
    }
    ids = NULL;
    s->stats.from_state = s->n;
    rc = 0;
out:
    close(fd);
    free(spool_in);
    free(keys);
    free(topo);
    free(ids);
    free(chunk);
    if (rc) {
        nv_train_set_free(s);
        nv_train_set_init(s);
    }
    return rc;
}
