/* segment_load.c - reads a segment profile for the estimator: the JSON
 * written at MPI_Finalize, or the per-rank partial files a run leaves when
 * it never reached MPI_Finalize.  Everything read is validated. */
#include "segment_profile.h"

#include "json_file.h"
#include "json_stream.h"
#include "nv_err.h"
#include "nv_json.h"
#include "plausible.h"
#include "safe_open.h"

#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NV_SEG_MAX_FILE_BYTES ((size_t)512 << 20) /* a partial (per-rank) file */
#define NV_SEG_MAX_JSON_BYTES ((size_t)256 << 20) /* a JSON profile, read whole */
#define NV_SEG_MAX_SEGMENTS (4u << 20) /* 28 bytes each while loaded, 76 in the estimate */
#define NV_SEG_MAX_PARTIALS 4096
/* work of one segment: 10^18 (a year of thread CPU time is 3.2e16 ns) */
#define NV_SEG_MAX_WORK 1e18

static int seg_profile_load(const char *const *paths, size_t npaths, uid_t owner,
                            nv_seg_profile *out, char *err, size_t errlen);

/* src (NULL: "") into dst, cut to fit, control characters as '?': the
 * text comes from the profile, which the job's user wrote */
static void copy_printable(char *dst, size_t cap, const char *src)
{
    snprintf(dst, cap, "%s", src ? src : "");
    for (char *p = dst; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
}

/* Reads an array of finite numbers into a fresh buffer. */
/* a count from JSON: negative, NaN -> 0; too large for 64 bits -> the max
 * (a plain cast of such a double is undefined behaviour) */
static uint64_t count_of(double x)
{
    if (!(x > 0))
        return 0;
    if (x >= 18446744073709549568.0)
        return UINT64_MAX;
    return (uint64_t)x;
}

static int num_array(json_object *arr, double **out, size_t *n)
{
    size_t len = json_object_array_length(arr);
    *out = malloc((len ? len : 1) * sizeof **out);
    if (!*out)
        return -1;
    for (size_t i = 0; i < len; i++) {
        json_object *e = json_object_array_get_idx(arr, i);
        if (!json_object_is_type(e, json_type_double) && !json_object_is_type(e, json_type_int))
            return -1;
        (*out)[i] = json_object_get_double(e);
        if (!isfinite((*out)[i]))
            return -1;
    }
    *n = len;
    return 0;
}

/* The JSON profile is walked one member at a time (json_stream.h), never
 * parsed whole: json-c's tree of a profile full of small numbers is ten
 * times its text, so a 300 MB profile took 882 MB.  The small members
 * (format, version, meta, bins, injection) are parsed each on its own; the
 * three segment columns are read element by element into 32-bit indices;
 * the signatures row by row.  What is held: the text (at most
 * NV_SEG_MAX_JSON_BYTES), 28 bytes per segment (at most
 * NV_SEG_MAX_SEGMENTS), and one small member's objects at a time. */
#define NV_SEG_MAX_MEMBER_BYTES ((size_t)1 << 20)

/* COL_COMM and "comm_rows" since version 2 */
enum { COL_WORK, COL_TIME, COL_SIG, COL_COMM, COLS };
static const char *const col_key[COLS] = {"segment_work_bin", "segment_time_bin",
                                          "segment_signature", "segment_comm"};

struct seg_doc {
    const char *text;
    size_t len;
    json_tokener *tok;
    json_object *small; /* the small members, each parsed on its own */
    nv_jspan col[COLS], sigs, comm_rows;
    int have_col[COLS], have_sigs, have_comm_rows;
    char why[256];
};

static int seg_member(void *arg, const char *key, nv_jspan v)
{
    struct seg_doc *d = arg;
    for (int c = 0; c < COLS; c++)
        if (!strcmp(key, col_key[c])) {
            if (d->have_col[c]++)
                return snprintf(d->why, sizeof d->why, "\"%s\" given twice", key), -1;
            d->col[c] = v;
            return 0;
        }
    if (!strcmp(key, "signatures")) {
        if (d->have_sigs++)
            return snprintf(d->why, sizeof d->why, "\"signatures\" given twice"), -1;
        d->sigs = v;
        return 0;
    }
    if (!strcmp(key, "comm_rows")) {
        if (d->have_comm_rows++)
            return snprintf(d->why, sizeof d->why, "\"comm_rows\" given twice"), -1;
        d->comm_rows = v;
        return 0;
    }
    if (json_object_object_get_ex(d->small, key, NULL))
        return snprintf(d->why, sizeof d->why, "\"%.60s\" given twice", key), -1;
    if (v.len > NV_SEG_MAX_MEMBER_BYTES)
        return snprintf(d->why, sizeof d->why, "\"%.60s\" is larger than %zu bytes", key,
                        NV_SEG_MAX_MEMBER_BYTES),
               -1;
    json_object *o = nv_jspan_parse(d->tok, d->text, d->len, v, d->why, sizeof d->why);
    if (!o && strncmp(d->text + v.off, "null", 4))
        return -1;
    json_object_object_add(d->small, key, o);
    return 0;
}

/* a column element: a bin or signature index, digits only (what the
 * writer writes), below limit */
static int index_of(const char *text, nv_jspan e, uint32_t limit, uint32_t *out)
{
    if (e.len == 0 || e.len > 10 || (e.len > 1 && text[e.off] == '0'))
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < e.len; i++) {
        char c = text[e.off + i];
        if (c < '0' || c > '9')
            return -1;
        v = v * 10 + (uint64_t)(c - '0');
    }
    if (v >= limit)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* Version 2's time metrics: "comm_fields" must name this netvar's metrics
 * in order; "comm_rows" is read row by row (at most NV_SEG_MAX_SEGMENTS
 * rows of NV_SEG_COMM_METRICS finite values >= 0, row 0 all zeros);
 * out->comm is allocated for the column.  0, or -1 with *what set. */
static int load_comm(struct seg_doc *d, json_object *o, nv_seg_profile *out, const char **what)
{
    json_object *cf = nv_json_get(o, "comm_fields", json_type_array);
    int ok = cf && json_object_array_length(cf) == NV_SEG_COMM_METRICS;
    for (int k = 0; ok && k < NV_SEG_COMM_METRICS; k++) {
        json_object *e = json_object_array_get_idx(cf, (size_t)k);
        ok = json_object_is_type(e, json_type_string) &&
             !strcmp(json_object_get_string(e), nv_seg_metric_name(NV_SEG_M_COMM_FIRST + k));
    }
    if (!ok) {
        *what = "\"comm_fields\" missing or not this netvar's time metrics";
        return -1;
    }
    out->comm_unrecorded = count_of(nv_json_num_or(o, "comm_segments_unrecorded", 0));
    nv_jarray ra;
    if (!d->have_comm_rows || !nv_jspan_is_array(d->text, d->comm_rows) ||
        nv_jarray_open(&ra, d->text, d->len, d->comm_rows, d->why, sizeof d->why) || ra.count < 1 ||
        ra.count > NV_SEG_MAX_SEGMENTS) {
        *what = "\"comm_rows\" missing, empty or too long";
        return -1;
    }
    out->ncomm = ra.count;
    out->comm_rows = calloc(out->ncomm, sizeof *out->comm_rows);
    out->comm = malloc((out->n ? out->n : 1) * sizeof *out->comm);
    if (!out->comm_rows || !out->comm) {
        *what = "out of memory";
        return -1;
    }
    nv_jspan e;
    for (size_t i = 0; nv_jarray_next(&ra, &e); i++) {
        json_object *row = e.len <= NV_SEG_MAX_MEMBER_BYTES
                               ? nv_jspan_parse(d->tok, d->text, d->len, e, d->why, sizeof d->why)
                               : NULL;
        ok = json_object_is_type(row, json_type_array) &&
             json_object_array_length(row) == NV_SEG_COMM_METRICS;
        for (int k = 0; ok && k < NV_SEG_COMM_METRICS; k++) {
            json_object *v = json_object_array_get_idx(row, (size_t)k);
            double x = json_object_get_double(v);
            ok = (json_object_is_type(v, json_type_double) ||
                  json_object_is_type(v, json_type_int)) &&
                 isfinite(x) && x >= 0 && (i > 0 || x == 0);
            out->comm_rows[i][k] = x;
        }
        json_object_put(row);
        if (!ok) {
            *what = "a \"comm_rows\" row is not one finite time >= 0 per field (row 0 zeros)";
            return -1;
        }
    }
    return 0;
}

static int load_json(const char *path, const char *text, size_t len, nv_seg_profile *out, char *err,
                     size_t errlen)
{
    struct seg_doc d = {.text = text, .len = len};
    d.tok = json_tokener_new_ex(64);
    d.small = json_object_new_object();
    memset(out, 0, sizeof *out);
    int rc = -1;
    const char *what = NULL;
    double *wbins = NULL, *tbins = NULL;
    uint32_t *idx[2] = {NULL, NULL};
    size_t nwb = 0, ntb = 0;
    json_object *bins, *jb, *o = d.small;
    if (!d.tok || !d.small) {
        what = "out of memory";
        goto done;
    }
    if (nv_jspan_members(text, len, d.tok, seg_member, &d, d.why, sizeof d.why)) {
        snprintf(err, errlen, "%s: not a valid JSON profile (%s; truncated or corrupt)", path,
                 d.why);
        goto fail;
    }
    const char *format = nv_json_str(o, "format");
    if (!format || strcmp(format, NV_SEG_PROFILE_FORMAT) != 0) {
        what = "not a netvar segment profile (missing \"format\": \"" NV_SEG_PROFILE_FORMAT "\")";
        goto done;
    }
    double version = nv_json_num_or(o, "version", 0);
    if (version != 1 && version != NV_SEG_PROFILE_VERSION) {
        what = "unsupported profile version (this netvar reads versions 1 and 2)";
        goto done;
    }
    int with_comm = version >= 2, ncols = with_comm ? COLS : COL_COMM;
    nv_seg_profile_meta *m = &out->meta;
    json_object *c = nv_json_get(o, "complete", json_type_boolean);
    m->complete = c ? json_object_get_boolean(c) : 0;
    copy_printable(m->job, sizeof m->job, nv_json_str(o, "job"));
    copy_printable(m->executable, sizeof m->executable, nv_json_str(o, "executable"));
    copy_printable(m->work_source, sizeof m->work_source, nv_json_str(o, "work_source"));
    copy_printable(m->segment_calls, sizeof m->segment_calls, nv_json_str(o, "segment_calls"));
    double ranks = nv_json_num_or(o, "ranks", 0);
    m->ranks = (ranks >= 1 && ranks < 1e7) ? (unsigned)ranks : 0;
    m->runtime_us = fmax(0, nv_json_num_or(o, "runtime_us", 0));
    m->dropped = count_of(nv_json_num_or(o, "segments_dropped", 0));
    m->unaligned = count_of(nv_json_num_or(o, "segments_unaligned", 0));
    m->peak_bytes_per_rank = fmax(0, nv_json_num_or(o, "peak_profiler_bytes_per_rank", 0));
    json_object *inj = nv_json_get(o, "injection", json_type_object);
    if (inj) {
        json_object *e = nv_json_get(inj, "enabled", json_type_boolean);
        m->inject_enabled = e ? json_object_get_boolean(e) : 0;
        m->inject_prob = nv_json_num_or(inj, "prob", 0);
        m->inject_mean_us = nv_json_num_or(inj, "mean_us", 0);
        m->inject_sd_us = nv_json_num_or(inj, "sd_us", 0);
        m->inject_seed = count_of(nv_json_num_or(inj, "seed", 0));
        m->inject_events = count_of(nv_json_num_or(inj, "events", 0));
        m->inject_total_us = nv_json_num_or(inj, "total_us", 0);
        copy_printable(m->inject_calls, sizeof m->inject_calls, nv_json_str(inj, "calls"));
    }
    if (!(bins = nv_json_get(o, "bins", json_type_object)) ||
        !(jb = nv_json_get(bins, "work", json_type_array)) || num_array(jb, &wbins, &nwb) != 0 ||
        !(jb = nv_json_get(bins, "time_us", json_type_array)) || num_array(jb, &tbins, &ntb) != 0) {
        what = "\"bins\" missing or not arrays of numbers";
        goto done;
    }
    nv_jarray col[COLS];
    for (int k = 0; k < ncols; k++)
        if (!d.have_col[k] || !nv_jspan_is_array(text, d.col[k]) ||
            nv_jarray_open(&col[k], text, len, d.col[k], d.why, sizeof d.why)) {
            what = "segment arrays missing, not numeric, or of different lengths";
            goto done;
        }
    size_t n = col[COL_WORK].count;
    if (col[COL_TIME].count != n || col[COL_SIG].count != n ||
        (with_comm && col[COL_COMM].count != n)) {
        what = "segment arrays missing, not numeric, or of different lengths";
        goto done;
    }
    if (n > NV_SEG_MAX_SEGMENTS) {
        snprintf(err, errlen, "%s: %zu segments, more than the %u this netvar reads", path, n,
                 NV_SEG_MAX_SEGMENTS);
        goto fail;
    }
    nv_jarray sa;
    if (!d.have_sigs || !nv_jspan_is_array(text, d.sigs) ||
        nv_jarray_open(&sa, text, len, d.sigs, d.why, sizeof d.why)) {
        what = "\"signatures\" missing";
        goto done;
    }
    out->nsig = sa.count;
    out->n = n;
    if (out->nsig > NV_SEG_MAX_SEGMENTS) {
        what = "more signatures than segments this netvar reads";
        goto done;
    }
    out->work = malloc((n ? n : 1) * sizeof *out->work);
    out->time_us = malloc((n ? n : 1) * sizeof *out->time_us);
    out->signature = malloc((n ? n : 1) * sizeof *out->signature);
    out->sig_sum = calloc(out->nsig ? out->nsig : 1, sizeof *out->sig_sum);
    idx[0] = malloc((n ? n : 1) * sizeof *idx[0]);
    idx[1] = malloc((n ? n : 1) * sizeof *idx[1]);
    if (!out->work || !out->time_us || !out->signature || !out->sig_sum || !idx[0] || !idx[1]) {
        what = "out of memory";
        goto done;
    }
    nv_jspan e;
    for (size_t i = 0; nv_jarray_next(&sa, &e); i++) {
        json_object *row = e.len <= NV_SEG_MAX_MEMBER_BYTES
                               ? nv_jspan_parse(d.tok, text, len, e, d.why, sizeof d.why)
                               : NULL;
        int ok = json_object_is_type(row, json_type_array) &&
                 json_object_array_length(row) == NV_SEG_SIG_METRICS;
        for (int k = 0; ok && k < NV_SEG_SIG_METRICS; k++)
            out->sig_sum[i][k] = json_object_get_double(json_object_array_get_idx(row, (size_t)k));
        json_object_put(row);
        if (!ok) {
            what = "a signature row does not have one value per signature field";
            goto done;
        }
    }
    if (with_comm && load_comm(&d, o, out, &what) != 0)
        goto done;
    const uint32_t limit[COLS] = {(uint32_t)(nwb < UINT32_MAX ? nwb : UINT32_MAX),
                                  (uint32_t)(ntb < UINT32_MAX ? ntb : UINT32_MAX),
                                  (uint32_t)out->nsig, (uint32_t)out->ncomm};
    uint32_t *dst[COLS] = {idx[0], idx[1], out->signature, out->comm};
    for (int k = 0; k < ncols; k++)
        for (size_t i = 0; nv_jarray_next(&col[k], &e); i++)
            if (index_of(text, e, limit[k], &dst[k][i])) {
                what = "a segment refers to a bin or signature that does not exist";
                goto done;
            }
    for (size_t i = 0; i < n; i++) {
        out->work[i] = wbins[idx[0][i]];
        out->time_us[i] = tbins[idx[1][i]];
    }
    rc = 0;
done:
    if (rc != 0)
        snprintf(err, errlen, "%s: %s", path, what ? what : "invalid profile");
fail:
    if (rc != 0)
        nv_seg_profile_free(out);
    free(wbins);
    free(tbins);
    free(idx[0]);
    free(idx[1]);
    json_object_put(d.small);
    if (d.tok)
        json_tokener_free(d.tok);
    return rc;
}

/* ---------------------------------------------------------- partial */
/* The partial files are read in two passes, never whole: their headers
 * first (bins, counts), then the segment columns in chunks of at most
 * NV_SEG_CHUNK_BYTES for all ranks together.  Each file is re-opened for a
 * chunk (4096 ranks do not fit in the descriptors a process may hold) and
 * must still be the same file (device and inode). */
#define NV_SEG_CHUNK_BYTES ((size_t)64 << 20)
static size_t chunk_bytes = NV_SEG_CHUNK_BYTES;

void nv_seg_profile_chunk_bytes(size_t bytes)
{
    chunk_bytes = bytes ? bytes : NV_SEG_CHUNK_BYTES;
}

struct rank_view {
    nv_seg_rank_header *h; /* the header alone */
    uint64_t size;         /* the file's size when it was checked */
    dev_t dev;
    ino_t ino;
};

static int check_rank(const char *path, nv_seg_rank_header *h, uint64_t len, char *err,
                      size_t errlen)
{
    const char *what = NULL;
    if (len < sizeof *h)
        what = "shorter than a rank-file header (truncated)";
    else if (memcmp(h->magic, NV_SEG_RANK_MAGIC, 8) != 0)
        what = "bad magic";
    else if (h->version != NV_SEG_RANK_VERSION || h->header_bytes != sizeof *h ||
             h->metrics != NV_SEG_METRICS)
        what = "written by another netvar version (layout differs)";
    else if (h->capacity > (len - sizeof *h) / NV_SEG_METRICS)
        what = "shorter than its declared segment capacity (truncated)";
    else if (h->nsegments > h->capacity || h->nranks == 0 || h->rank >= h->nranks)
        what = "segment count or rank out of range";
    else if (h->busy)
        what = "was killed while merging bins; its bins are inconsistent";
    else
        for (int m = 0; m < NV_SEG_METRICS && !what; m++)
            if (nv_seg_bins_validate(&h->bins[m]) != 0 || h->bins[m].capacity > NV_SEG_RANK_BINS)
                what = "corrupt bin table";
    if (what) {
        snprintf(err, errlen, "%s: not a usable partial profile: %s", path, what);
        return -1;
    }
    h->job[sizeof h->job - 1] = 0;
    h->executable[sizeof h->executable - 1] = 0;
    h->segment_calls[sizeof h->segment_calls - 1] = 0;
    h->inject_calls[sizeof h->inject_calls - 1] = 0;
    return 0;
}

/* a profile file opened as an untrusted one; -1 with "<path>: why" in err */
static int open_part(const char *path, uid_t owner, struct stat *st, char *err, size_t errlen)
{
    char why[200];
    int fd = nv_open_untrusted(path, owner, NV_SEG_MAX_FILE_BYTES, 0, st, why, sizeof why);
    if (fd < 0)
        snprintf(err, errlen, "%s: %s", path, why);
    return fd;
}

/* the header of paths[i] into v (fresh), checked */
static int read_rank_header(const char *path, uid_t owner, struct rank_view *v, char *err,
                            size_t errlen)
{
    struct stat st;
    char why[200];
    int fd = open_part(path, owner, &st, err, errlen);
    if (fd < 0)
        return -1;
    v->size = (uint64_t)st.st_size;
    v->dev = st.st_dev;
    v->ino = st.st_ino;
    int rc = -1;
    if (!(v->h = calloc(1, sizeof *v->h)))
        snprintf(err, errlen, "%s: out of memory", path);
    else if (v->size < sizeof *v->h)
        snprintf(err, errlen,
                 "%s: not a usable partial profile: shorter than a rank-file header "
                 "(truncated)",
                 path);
    else if (nv_pread_all(fd, v->h, sizeof *v->h, 0, why, sizeof why))
        snprintf(err, errlen, "%s: %s", path, why);
    else
        rc = check_rank(path, v->h, v->size, err, errlen);
    close(fd);
    return rc;
}

/* segments [s0, s0 + k) of every metric of rank file path into cols
 * (NV_SEG_METRICS rows of k) */
static int read_rank_columns(const char *path, uid_t owner, const struct rank_view *v, uint64_t s0,
                             size_t k, uint8_t *cols, char *err, size_t errlen)
{
    struct stat st;
    char why[200];
    int fd = open_part(path, owner, &st, err, errlen);
    if (fd < 0)
        return -1;
    int rc = 0;
    if (st.st_dev != v->dev || st.st_ino != v->ino) {
        snprintf(err, errlen, "%s: replaced by another file while read", path);
        rc = -1;
    }
    for (int m = 0; m < NV_SEG_METRICS && rc == 0; m++) {
        off_t off = (off_t)(sizeof *v->h + (uint64_t)m * v->h->capacity + s0);
        if (nv_pread_all(fd, cols + (size_t)m * k, k, off, why, sizeof why)) {
            snprintf(err, errlen, "%s: %s", path, why);
            rc = -1;
        }
    }
    close(fd);
    return rc;
}

static int load_partials(const char *const *paths, size_t np, uid_t owner, nv_seg_profile *out,
                         char *err, size_t errlen)
{
    struct rank_view *v = calloc(np, sizeof *v);
    nv_seg_bins *global = calloc(NV_SEG_METRICS, sizeof *global);
    uint16_t(*map)[NV_SEG_METRICS][NV_SEG_BINS_MAX] = calloc(np, sizeof *map);
    uint16_t *block = NULL;
    uint8_t *cols = NULL;
    nv_seg_aggregator *a = NULL;
    int rc = -1;
    if (!v || !global || !map) {
        snprintf(err, errlen, "%s: out of memory", paths[0]);
        goto done;
    }
    for (size_t i = 0; i < np; i++)
        if (read_rank_header(paths[i], owner, &v[i], err, errlen) != 0)
            goto done;
    uint64_t nmin = UINT64_MAX, nmax = 0;
    nv_seg_profile_meta meta = {0};
    for (size_t i = 0; i < np; i++) {
        nmin = v[i].h->nsegments < nmin ? v[i].h->nsegments : nmin;
        nmax = v[i].h->nsegments > nmax ? v[i].h->nsegments : nmax;
        meta.dropped += v[i].h->dropped;
        meta.inject_events += v[i].h->inject_events;
        meta.inject_total_us += v[i].h->inject_total_us;
        meta.runtime_us = fmax(meta.runtime_us, v[i].h->runtime_us);
        double bytes =
            (double)sizeof(nv_seg_rank_header) + (double)v[i].h->nsegments * NV_SEG_METRICS;
        meta.peak_bytes_per_rank = fmax(meta.peak_bytes_per_rank, bytes);
        if (i > 0 && strcmp(v[i].h->job, v[0].h->job) != 0) {
            snprintf(err, errlen, "%s: belongs to job %s, %s to job %s; give files of one run only",
                     paths[i], v[i].h->job, paths[0], v[0].h->job);
            goto done;
        }
    }
    if (nmin > NV_SEG_MAX_SEGMENTS) {
        snprintf(err, errlen, "%s: %llu segments, more than the %u this netvar reads", paths[0],
                 (unsigned long long)nmin, NV_SEG_MAX_SEGMENTS);
        goto done;
    }
    meta.complete = 0;
    meta.ranks = (unsigned)np;
    meta.unaligned = nmax - nmin;
    copy_printable(meta.job, sizeof meta.job, v[0].h->job);
    copy_printable(meta.executable, sizeof meta.executable, v[0].h->executable);
    copy_printable(meta.work_source, sizeof meta.work_source,
                   nv_seg_work_source_name((int)v[0].h->work_source));
    copy_printable(meta.segment_calls, sizeof meta.segment_calls, v[0].h->segment_calls);
    copy_printable(meta.inject_calls, sizeof meta.inject_calls, v[0].h->inject_calls);
    meta.inject_enabled = v[0].h->inject_prob > 0;
    meta.inject_prob = v[0].h->inject_prob;
    meta.inject_mean_us = v[0].h->inject_mean_us;
    meta.inject_sd_us = v[0].h->inject_sd_us;
    meta.inject_seed = v[0].h->inject_seed;
    for (int m = 0; m < NV_SEG_METRICS; m++) {
        nv_seg_bins_init(&global[m], NV_SEG_GLOBAL_BINS);
        uint16_t remap[NV_SEG_BINS_MAX];
        int merged;
        for (size_t i = 0; i < np; i++) {
            const nv_seg_bins *b = &v[i].h->bins[m];
            for (uint32_t k = 0; k < b->used; k++)
                nv_seg_bins_add(&global[m], b->value[b->order[k]], b->count[b->order[k]], remap,
                                &merged);
        }
        if (global[m].used == 0) /* no segment at all: keep tables valid */
            nv_seg_bins_add(&global[m], 0, 1, remap, &merged);
        for (size_t i = 0; i < np; i++)
            nv_seg_map_bins(&v[i].h->bins[m], &global[m], map[i][m]);
    }
    size_t chunk = chunk_bytes / (np * NV_SEG_METRICS);
    if (chunk == 0)
        chunk = 1;
    if (nmin < chunk)
        chunk = nmin ? (size_t)nmin : 1;
    if (!(a = nv_seg_agg_new((unsigned)np, global)) ||
        !(block = malloc(np * NV_SEG_METRICS * sizeof *block)) ||
        !(cols = malloc(np * NV_SEG_METRICS * chunk))) {
        snprintf(err, errlen, "%s: out of memory", paths[0]);
        goto done;
    }
    uint64_t skipped = 0;
    for (uint64_t s0 = 0; s0 < nmin; s0 += chunk) {
        size_t k = nmin - s0 < chunk ? (size_t)(nmin - s0) : chunk;
        for (size_t i = 0; i < np; i++)
            if (read_rank_columns(paths[i], owner, &v[i], s0, k, cols + i * NV_SEG_METRICS * k, err,
                                  errlen))
                goto done;
        for (size_t s = 0; s < k; s++) {
            int ok = 1;
            for (size_t i = 0; i < np && ok; i++)
                for (int m = 0; m < NV_SEG_METRICS; m++) {
                    uint8_t local = cols[(i * NV_SEG_METRICS + (size_t)m) * k + s];
                    if (!v[i].h->bins[m].live[local]) {
                        ok = 0;
                        break;
                    }
                    block[i * NV_SEG_METRICS + (size_t)m] = map[i][m][local];
                }
            if (!ok || nv_seg_agg_add(a, block, 1, 0) != 0)
                skipped++;
        }
    }
    meta.dropped += skipped;
    if (nv_seg_agg_to_profile(a, &meta, out) != 0) {
        snprintf(err, errlen, "%s: out of memory", paths[0]);
        goto done;
    }
    rc = 0;
done:
    nv_seg_agg_free(a);
    free(block);
    free(cols);
    free(map);
    free(global);
    if (v)
        for (size_t i = 0; i < np; i++)
            free(v[i].h);
    free(v);
    return rc;
}

/* A profile's numbers against plausible.h's bounds: the job's user wrote
 * them.  runtime_us and every segment's time within a year, their sum too
 * (the segments are one rank's program, aligned across ranks), and work
 * at most NV_SEG_MAX_WORK per segment.  0, or -1 with err. */
static int profile_plausible(const char *path, const nv_seg_profile *p, char *err, size_t errlen)
{
    const double year_us = NV_PLAUSIBLE_RUNTIME_MAX_S * 1e6;
    const nv_seg_profile_meta *m = &p->meta;
    if (!(m->runtime_us >= 0 && m->runtime_us <= year_us))
        return nv_err(err, errlen, "%s: runtime_us %g is more than a year (plausible.h)", path,
                      m->runtime_us);
    double total = 0;
    for (size_t i = 0; i < p->n; i++) {
        if (!(p->time_us[i] >= 0 && p->time_us[i] <= year_us) ||
            !(p->work[i] >= 0 && p->work[i] <= NV_SEG_MAX_WORK))
            return nv_err(err, errlen,
                          "%s: segment %zu: time %g us or work %g outside [0, a year] and "
                          "[0, %g] (plausible.h)",
                          path, i, p->time_us[i], p->work[i], NV_SEG_MAX_WORK);
        total += p->time_us[i];
    }
    if (total > year_us)
        return nv_err(err, errlen,
                      "%s: its %zu segments add up to %g us, more than a year "
                      "(plausible.h)",
                      path, p->n, total);
    return 0;
}

int nv_seg_profile_load_owned(const char *const *paths, size_t npaths, uid_t owner,
                              nv_seg_profile *out, char *err, size_t errlen)
{
    int rc = seg_profile_load(paths, npaths, owner, out, err, errlen);
    if (rc == 0 && profile_plausible(paths[0], out, err, errlen)) {
        nv_seg_profile_free(out);
        return -1;
    }
    return rc;
}

static int seg_profile_load(const char *const *paths, size_t npaths, uid_t owner,
                            nv_seg_profile *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!paths || npaths == 0 || npaths > NV_SEG_MAX_PARTIALS) {
        snprintf(err, errlen, "profile: give 1 to %d files", NV_SEG_MAX_PARTIALS);
        return -1;
    }
    char why[256], magic[8];
    struct stat st;
    int fd = open_part(paths[0], owner, &st, err, errlen);
    if (fd < 0)
        return -1;
    int is_rank = st.st_size >= 8 && nv_pread_all(fd, magic, 8, 0, why, sizeof why) == 0 &&
                  memcmp(magic, NV_SEG_RANK_MAGIC, 8) == 0;
    close(fd);
    if (is_rank)
        return load_partials(paths, npaths, owner, out, err, errlen);
    if (npaths > 1) {
        snprintf(err, errlen,
                 "%s: several files given, but only per-rank partial files can be combined",
                 paths[0]);
        return -1;
    }
    size_t len;
    char *buf = nv_read_untrusted(paths[0], owner, NV_SEG_MAX_JSON_BYTES, 0, &len, why, sizeof why);
    if (!buf) {
        snprintf(err, errlen, "%s: %s", paths[0], why);
        return -1;
    }
    int rc = -1;
    if (len == 0)
        snprintf(err, errlen, "%s: empty file (truncated profile)", paths[0]);
    else
        rc = load_json(paths[0], buf, len, out, err, errlen);
    free(buf);
    return rc;
}

int nv_seg_profile_load(const char *const *paths, size_t npaths, nv_seg_profile *out, char *err,
                        size_t errlen)
{
    return nv_seg_profile_load_owned(paths, npaths, NV_ANY_OWNER, out, err, errlen);
}

int nv_seg_job_profile_load(const char *pdir, nv_seg_profile *out, char *path, size_t pathcap,
                            char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    path[0] = 0;
    if (access(pdir, F_OK))
        return 0; /* the job was not profiled */
    uid_t owner;
    if (nv_dir_owner(pdir, &owner, err, errlen))
        return -1;
    DIR *d = opendir(pdir);
    if (!d) {
        snprintf(err, errlen, "%s: %s", pdir, strerror(errno));
        return -1;
    }
    char first[256] = "";
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        /* names users chose: only plain ones (no terminal escapes) */
        if (l > 5 && !strcmp(e->d_name + l - 5, ".json") && nv_plain_name(e->d_name) &&
            (!first[0] || strcmp(e->d_name, first) < 0))
            snprintf(first, sizeof first, "%s", e->d_name);
    }
    closedir(d);
    if (!first[0])
        return 0;
    if ((size_t)snprintf(path, pathcap, "%s/%s", pdir, first) >= pathcap) {
        snprintf(err, errlen, "%s: path too long", pdir);
        path[0] = 0;
        return -1;
    }
    const char *paths[1] = {path};
    return nv_seg_profile_load_owned(paths, 1, owner, out, err, errlen) ? -1 : 1;
}
