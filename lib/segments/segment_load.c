/* segment_load.c - reads a segment profile for the estimator: the JSON
 * written at MPI_Finalize, or the per-rank partial files a run leaves when
 * it never reached MPI_Finalize.  Everything read is validated. */
#include "segment_profile.h"

#include "json_file.h"
#include "nv_json.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NV_SEG_MAX_FILE_BYTES ((size_t)512 << 20)
#define NV_SEG_MAX_PARTIALS 4096

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

static int load_json(const char *path, const char *text, size_t len, nv_seg_profile *out,
                     char *err, size_t errlen)
{
    enum json_tokener_error jerr = json_tokener_success;
    json_tokener *tok = json_tokener_new_ex(64);
    if (!tok) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    json_object *o = json_tokener_parse_ex(tok, text, (int)len);
    jerr = json_tokener_get_error(tok);
    if (!o || jerr != json_tokener_success) {
        snprintf(err, errlen, "%s: not a valid JSON profile (%s at byte %zu of %zu; truncated or corrupt)",
                 path, jerr == json_tokener_continue ? "unexpected end of data"
                                                     : json_tokener_error_desc(jerr),
                 json_tokener_get_parse_end(tok), len);
        json_object_put(o);
        json_tokener_free(tok);
        return -1;
    }
    json_tokener_free(tok);
    int rc = -1;
    const char *what = NULL;
    double *wbins = NULL, *tbins = NULL, *wi = NULL, *ti = NULL, *si = NULL;
    size_t nwb = 0, ntb = 0, nw = 0, nt = 0, ns = 0;
    json_object *bins, *sigs, *jb;
    const char *format = nv_json_str(o, "format");
    if (!format || strcmp(format, NV_SEG_PROFILE_FORMAT) != 0) {
        what = "not a netvar segment profile (missing \"format\": \"" NV_SEG_PROFILE_FORMAT "\")";
        goto done;
    }
    if (nv_json_num_or(o, "version", 0) != NV_SEG_PROFILE_VERSION) {
        what = "unsupported profile version (this netvar reads version 1)";
        goto done;
    }
    memset(out, 0, sizeof *out);
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
    if (!(jb = nv_json_get(o, "segment_work_bin", json_type_array)) ||
        num_array(jb, &wi, &nw) != 0 ||
        !(jb = nv_json_get(o, "segment_time_bin", json_type_array)) ||
        num_array(jb, &ti, &nt) != 0 ||
        !(jb = nv_json_get(o, "segment_signature", json_type_array)) ||
        num_array(jb, &si, &ns) != 0 || nw != nt || nw != ns) {
        what = "segment arrays missing, not numeric, or of different lengths";
        goto done;
    }
    if (!(sigs = nv_json_get(o, "signatures", json_type_array))) {
        what = "\"signatures\" missing";
        goto done;
    }
    out->nsig = json_object_array_length(sigs);
    out->n = nw;
    out->work = malloc((nw ? nw : 1) * sizeof *out->work);
    out->time_us = malloc((nw ? nw : 1) * sizeof *out->time_us);
    out->signature = malloc((nw ? nw : 1) * sizeof *out->signature);
    out->sig_sum = calloc(out->nsig ? out->nsig : 1, sizeof *out->sig_sum);
    if (!out->work || !out->time_us || !out->signature || !out->sig_sum) {
        what = "out of memory";
        goto done;
    }
    for (size_t i = 0; i < out->nsig; i++) {
        json_object *row = json_object_array_get_idx(sigs, i);
        if (!json_object_is_type(row, json_type_array) ||
            json_object_array_length(row) != NV_SEG_SIG_METRICS) {
            what = "a signature row does not have one value per signature field";
            goto done;
        }
        for (int k = 0; k < NV_SEG_SIG_METRICS; k++)
            out->sig_sum[i][k] = json_object_get_double(json_object_array_get_idx(row, (size_t)k));
    }
    for (size_t i = 0; i < nw; i++) {
        if (wi[i] < 0 || wi[i] >= (double)nwb || ti[i] < 0 || ti[i] >= (double)ntb || si[i] < 0 ||
            si[i] >= (double)out->nsig) {
            what = "a segment refers to a bin or signature that does not exist";
            goto done;
        }
        out->work[i] = wbins[(size_t)wi[i]];
        out->time_us[i] = tbins[(size_t)ti[i]];
        out->signature[i] = (uint32_t)si[i];
    }
    rc = 0;
done:
    if (rc != 0) {
        snprintf(err, errlen, "%s: %s", path, what ? what : "invalid profile");
        nv_seg_profile_free(out);
    }
    free(wbins);
    free(tbins);
    free(wi);
    free(ti);
    free(si);
    json_object_put(o);
    return rc;
}

/* ---------------------------------------------------------- partial */
struct rank_view {
    nv_seg_rank_header *h; /* whole file buffer */
    const uint8_t *col;    /* columns after the header */
};

static int check_rank(const char *path, char *buf, size_t len, struct rank_view *v, char *err,
                      size_t errlen)
{
    nv_seg_rank_header *h = (nv_seg_rank_header *)buf;
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
    v->h = h;
    v->col = (const uint8_t *)buf + sizeof *h;
    return 0;
}

static int load_partials(const char *const *paths, char **bufs, size_t *lens, size_t np,
                         nv_seg_profile *out, char *err, size_t errlen)
{
    struct rank_view *v = calloc(np, sizeof *v);
    nv_seg_bins *global = calloc(NV_SEG_METRICS, sizeof *global);
    uint16_t (*map)[NV_SEG_METRICS][NV_SEG_BINS_MAX] = calloc(np, sizeof *map);
    uint16_t *block = NULL;
    nv_seg_aggregator *a = NULL;
    int rc = -1;
    if (!v || !global || !map) {
        snprintf(err, errlen, "%s: out of memory", paths[0]);
        goto done;
    }
    for (size_t i = 0; i < np; i++)
        if (check_rank(paths[i], bufs[i], lens[i], &v[i], err, errlen) != 0)
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
        double bytes = (double)sizeof(nv_seg_rank_header) +
                       (double)v[i].h->nsegments * NV_SEG_METRICS;
        meta.peak_bytes_per_rank = fmax(meta.peak_bytes_per_rank, bytes);
        if (i > 0 && strcmp(v[i].h->job, v[0].h->job) != 0) {
            snprintf(err, errlen, "%s: belongs to job %s, %s to job %s; give files of one run only",
                     paths[i], v[i].h->job, paths[0], v[0].h->job);
            goto done;
        }
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
                nv_seg_bins_add(&global[m], b->value[b->order[k]], b->count[b->order[k]], remap, &merged);
        }
        if (global[m].used == 0) /* no segment at all: keep tables valid */
            nv_seg_bins_add(&global[m], 0, 1, remap, &merged);
        for (size_t i = 0; i < np; i++)
            nv_seg_map_bins(&v[i].h->bins[m], &global[m], map[i][m]);
    }
    if (!(a = nv_seg_agg_new((unsigned)np, global)) ||
        !(block = malloc(np * NV_SEG_METRICS * sizeof *block))) {
        snprintf(err, errlen, "%s: out of memory", paths[0]);
        goto done;
    }
    uint64_t skipped = 0;
    for (uint64_t s = 0; s < nmin; s++) {
        int ok = 1;
        for (size_t i = 0; i < np && ok; i++)
            for (int m = 0; m < NV_SEG_METRICS; m++) {
                uint8_t local = v[i].col[(size_t)m * v[i].h->capacity + s];
                if (!v[i].h->bins[m].live[local]) {
                    ok = 0;
                    break;
                }
                block[i * NV_SEG_METRICS + (size_t)m] = map[i][m][local];
            }
        if (!ok || nv_seg_agg_add(a, block, 1, 0) != 0)
            skipped++;
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
    free(map);
    free(global);
    free(v);
    return rc;
}

int nv_seg_profile_load(const char *const *paths, size_t npaths, nv_seg_profile *out, char *err,
                        size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!paths || npaths == 0 || npaths > NV_SEG_MAX_PARTIALS) {
        snprintf(err, errlen, "profile: give 1 to %d files", NV_SEG_MAX_PARTIALS);
        return -1;
    }
    char **bufs = calloc(npaths, sizeof *bufs);
    size_t *lens = calloc(npaths, sizeof *lens);
    char why[256];
    int rc = -1;
    if (!bufs || !lens) {
        snprintf(err, errlen, "%s: out of memory", paths[0]);
        goto done;
    }
    for (size_t i = 0; i < npaths; i++)
        if (!(bufs[i] = nv_read_file(paths[i], NV_SEG_MAX_FILE_BYTES, &lens[i], why, sizeof why))) {
            snprintf(err, errlen, "%s: %s", paths[i], why);
            goto done;
        }
    int is_rank = lens[0] >= 8 && memcmp(bufs[0], NV_SEG_RANK_MAGIC, 8) == 0;
    if (!is_rank) {
        if (npaths > 1) {
            snprintf(err, errlen, "%s: several files given, but only per-rank partial files can be combined",
                     paths[0]);
            goto done;
        }
        if (lens[0] == 0) {
            snprintf(err, errlen, "%s: empty file (truncated profile)", paths[0]);
            goto done;
        }
        rc = load_json(paths[0], bufs[0], lens[0], out, err, errlen);
    } else {
        rc = load_partials(paths, bufs, lens, npaths, out, err, errlen);
    }
done:
    if (bufs)
        for (size_t i = 0; i < npaths; i++)
            free(bufs[i]);
    free(bufs);
    free(lens);
    return rc;
}
