/* segment_profile.c - program-wide aggregation of per-rank segment bins and
 * the profile JSON writer. */
#include "segment_profile.h"
#include "segment_estimate.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NV_SEG_MAX_RANKS (1u << 20)
#define NV_SEG_MAX_SIGNATURES (1u << 16)
#define NV_SEG_SIG_OVERFLOW UINT32_MAX
/* distinct rows of time metrics kept program wide (row 0: all zeros) */
#define NV_SEG_MAX_COMM_ROWS (1u << 16)

static const char *const metric_names[NV_SEG_METRICS] = {
    "work",
    "time_us",
    "p2p_blocking",
    "p2p_nonblocking",
    "coll_one_to_all",
    "coll_all_to_one",
    "coll_all_to_all",
    "bytes_sent",
    "bytes_recv",
    "io_open_close",
    "io_read_write",
    "io_bytes",
    "mpi_us_p2p_le256",
    "mpi_us_p2p_le8k",
    "mpi_us_p2p_le256k",
    "mpi_us_p2p_gt256k",
    "mpi_us_rooted_le256",
    "mpi_us_rooted_le8k",
    "mpi_us_rooted_le256k",
    "mpi_us_rooted_gt256k",
    "mpi_us_all_le256",
    "mpi_us_all_le8k",
    "mpi_us_all_le256k",
    "mpi_us_all_gt256k",
    "mpi_us_io",
    "overlap_us",
};

const char *nv_seg_metric_name(int m)
{
    return (m >= 0 && m < NV_SEG_METRICS) ? metric_names[m] : "unknown";
}

const char *nv_seg_work_source_name(int s)
{
    switch (s) {
    case NV_SEG_WORK_PAPI_FP_OPS: return "papi_fp_ops";
    case NV_SEG_WORK_PAPI_TOT_INS: return "papi_tot_ins";
    default: return "thread_cputime_ns";
    }
}

uint64_t nv_seg_rank_capacity(uint64_t max_bytes)
{
    if (max_bytes <= sizeof(nv_seg_rank_header))
        return 0;
    return (max_bytes - sizeof(nv_seg_rank_header)) / NV_SEG_METRICS;
}

void nv_seg_profile_free(nv_seg_profile *p)
{
    if (!p)
        return;
    free(p->work);
    free(p->time_us);
    free(p->signature);
    free(p->sig_sum);
    free(p->comm);
    free(p->comm_rows);
    memset(p, 0, sizeof *p);
}

struct nv_seg_aggregator {
    unsigned nranks;
    nv_seg_bins global[NV_SEG_METRICS];
    size_t n, cap;
    uint16_t *work_bin, *time_bin;
    uint32_t *sig;
    /* open-addressing table hash -> signature id */
    size_t nsig, table_size;
    uint64_t *table_hash;
    uint32_t *table_id;
    double (*sig_sum)[NV_SEG_SIG_METRICS];
    /* the time metrics: per segment a row id; rows deduplicated by the
     * ranks' bins (their own open-addressing table) */
    uint32_t *comm;
    size_t ncomm;
    uint64_t comm_unrecorded;
    uint64_t *comm_hash;
    uint32_t *comm_id;
    double (*comm_rows)[NV_SEG_COMM_METRICS];
    double *scratch; /* nranks */
};

nv_seg_aggregator *nv_seg_agg_new(unsigned nranks, const nv_seg_bins *global)
{
    if (nranks == 0 || nranks > NV_SEG_MAX_RANKS || !global)
        return NULL;
    for (int m = 0; m < NV_SEG_METRICS; m++)
        if (nv_seg_bins_validate(&global[m]) != 0)
            return NULL;
    nv_seg_aggregator *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->nranks = nranks;
    memcpy(a->global, global, sizeof a->global);
    a->table_size = 2u * NV_SEG_MAX_SIGNATURES;
    a->table_hash = calloc(a->table_size, sizeof *a->table_hash);
    a->table_id = calloc(a->table_size, sizeof *a->table_id);
    a->scratch = calloc(nranks, sizeof *a->scratch);
    a->comm_hash = calloc(a->table_size, sizeof *a->comm_hash);
    a->comm_id = calloc(a->table_size, sizeof *a->comm_id);
    a->comm_rows = calloc(256, sizeof *a->comm_rows); /* row 0: zeros */
    a->ncomm = 1;
    if (!a->table_hash || !a->table_id || !a->scratch || !a->comm_hash || !a->comm_id ||
        !a->comm_rows) {
        nv_seg_agg_free(a);
        return NULL;
    }
    return a;
}

void nv_seg_agg_free(nv_seg_aggregator *a)
{
    if (!a)
        return;
    free(a->work_bin);
    free(a->time_bin);
    free(a->sig);
    free(a->table_hash);
    free(a->table_id);
    free(a->sig_sum);
    free(a->comm);
    free(a->comm_hash);
    free(a->comm_id);
    free(a->comm_rows);
    free(a->scratch);
    free(a);
}

size_t nv_seg_agg_count(const nv_seg_aggregator *a)
{
    return a ? a->n : 0;
}

void nv_seg_map_bins(const nv_seg_bins *local, const nv_seg_bins *global,
                     uint16_t map[NV_SEG_BINS_MAX])
{
    for (uint32_t s = 0; s < NV_SEG_BINS_MAX; s++) {
        int g = nv_seg_bins_nearest(global, local->live[s] ? local->value[s] : 0);
        map[s] = (uint16_t)(g < 0 ? 0 : g);
    }
}

static int grow(nv_seg_aggregator *a)
{
    size_t cap = a->cap ? a->cap * 2 : 1024;
    uint16_t *w = realloc(a->work_bin, cap * sizeof *w);
    if (w)
        a->work_bin = w;
    uint16_t *t = realloc(a->time_bin, cap * sizeof *t);
    if (t)
        a->time_bin = t;
    uint32_t *s = realloc(a->sig, cap * sizeof *s);
    if (s)
        a->sig = s;
    uint32_t *c = realloc(a->comm, cap * sizeof *c);
    if (c)
        a->comm = c;
    if (!w || !t || !s || !c)
        return -1;
    a->cap = cap;
    return 0;
}

static double median_over_ranks(nv_seg_aggregator *a, const uint16_t *block, size_t chunk, size_t s,
                                int m)
{
    const nv_seg_bins *g = &a->global[m];
    for (unsigned r = 0; r < a->nranks; r++)
        a->scratch[r] = g->value[block[((size_t)r * NV_SEG_METRICS + (size_t)m) * chunk + s]];
    /* insertion sort is fine for typical rank counts; qsort otherwise */
    unsigned n = a->nranks;
    if (n <= 64) {
        for (unsigned i = 1; i < n; i++) {
            double v = a->scratch[i];
            unsigned j = i;
            while (j > 0 && a->scratch[j - 1] > v) {
                a->scratch[j] = a->scratch[j - 1];
                j--;
            }
            a->scratch[j] = v;
        }
        return (n % 2) ? a->scratch[n / 2] : 0.5 * (a->scratch[n / 2 - 1] + a->scratch[n / 2]);
    }
    return nv_seg_median_inplace(a->scratch, n);
}

static uint32_t signature_id(nv_seg_aggregator *a, const uint16_t *block, size_t chunk, size_t s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a over (rank, metric bins) */
    for (unsigned r = 0; r < a->nranks; r++)
        for (int m = NV_SEG_FIRST_SIG_METRIC; m < NV_SEG_SIG_END; m++) {
            uint16_t v = block[((size_t)r * NV_SEG_METRICS + (size_t)m) * chunk + s];
            h ^= v & 0xff;
            h *= 1099511628211ull;
            h ^= v >> 8;
            h *= 1099511628211ull;
        }
    if (h == 0)
        h = 1;
    size_t pos = h & (a->table_size - 1);
    while (a->table_hash[pos] != 0 && a->table_hash[pos] != h)
        pos = (pos + 1) & (a->table_size - 1);
    if (a->table_hash[pos] == h)
        return a->table_id[pos];
    if (a->nsig >= NV_SEG_MAX_SIGNATURES)
        return NV_SEG_SIG_OVERFLOW;
    if (a->nsig % 256 == 0) {
        void *p = realloc(a->sig_sum, (a->nsig + 256) * sizeof *a->sig_sum);
        if (!p)
            return NV_SEG_SIG_OVERFLOW;
        a->sig_sum = p;
    }
    uint32_t id = (uint32_t)a->nsig++;
    for (int k = 0; k < NV_SEG_SIG_METRICS; k++) {
        int m = NV_SEG_FIRST_SIG_METRIC + k;
        double sum = 0;
        for (unsigned r = 0; r < a->nranks; r++)
            sum += a->global[m].value[block[((size_t)r * NV_SEG_METRICS + (size_t)m) * chunk + s]];
        a->sig_sum[id][k] = sum;
    }
    a->table_hash[pos] = h;
    a->table_id[pos] = id;
    return id;
}

/* Row id of segment s's time metrics (mean over ranks), 0 when all are
 * zero or the table is full (counted in comm_unrecorded). */
static uint32_t comm_row_id(nv_seg_aggregator *a, const uint16_t *block, size_t chunk, size_t s)
{
    uint64_t h = 1469598103934665603ull;
    int any = 0;
    for (unsigned r = 0; r < a->nranks; r++)
        for (int m = NV_SEG_M_COMM_FIRST; m < NV_SEG_METRICS; m++) {
            uint16_t v = block[((size_t)r * NV_SEG_METRICS + (size_t)m) * chunk + s];
            any |= a->global[m].value[v] != 0;
            h ^= v & 0xff;
            h *= 1099511628211ull;
            h ^= v >> 8;
            h *= 1099511628211ull;
        }
    if (!any)
        return 0;
    if (h == 0)
        h = 1;
    size_t pos = h & (a->table_size - 1);
    while (a->comm_hash[pos] != 0 && a->comm_hash[pos] != h)
        pos = (pos + 1) & (a->table_size - 1);
    if (a->comm_hash[pos] == h)
        return a->comm_id[pos];
    if (a->ncomm >= NV_SEG_MAX_COMM_ROWS) {
        a->comm_unrecorded++;
        return 0;
    }
    if (a->ncomm % 256 == 0) {
        void *p = realloc(a->comm_rows, (a->ncomm + 256) * sizeof *a->comm_rows);
        if (!p) {
            a->comm_unrecorded++;
            return 0;
        }
        a->comm_rows = p;
    }
    uint32_t id = (uint32_t)a->ncomm++;
    for (int k = 0; k < NV_SEG_COMM_METRICS; k++) {
        int m = NV_SEG_M_COMM_FIRST + k;
        double sum = 0;
        for (unsigned r = 0; r < a->nranks; r++)
            sum += a->global[m].value[block[((size_t)r * NV_SEG_METRICS + (size_t)m) * chunk + s]];
        a->comm_rows[id][k] = sum / a->nranks;
    }
    a->comm_hash[pos] = h;
    a->comm_id[pos] = id;
    return id;
}

int nv_seg_agg_add(nv_seg_aggregator *a, const uint16_t *block, size_t chunk, size_t s)
{
    if (!a || !block || s >= chunk)
        return -1;
    for (unsigned r = 0; r < a->nranks; r++)
        for (int m = 0; m < NV_SEG_METRICS; m++) {
            uint16_t v = block[((size_t)r * NV_SEG_METRICS + (size_t)m) * chunk + s];
            if (v >= NV_SEG_BINS_MAX || !a->global[m].live[v])
                return -1;
        }
    if (a->n == a->cap && grow(a) != 0)
        return -1;
    double work = median_over_ranks(a, block, chunk, s, NV_SEG_M_WORK);
    double time = median_over_ranks(a, block, chunk, s, NV_SEG_M_TIME_US);
    uint32_t sig = signature_id(a, block, chunk, s);
    if (sig == NV_SEG_SIG_OVERFLOW)
        return -1;
    a->work_bin[a->n] = (uint16_t)nv_seg_bins_nearest(&a->global[NV_SEG_M_WORK], work);
    a->time_bin[a->n] = (uint16_t)nv_seg_bins_nearest(&a->global[NV_SEG_M_TIME_US], time);
    a->sig[a->n] = sig;
    a->comm[a->n] = comm_row_id(a, block, chunk, s);
    a->n++;
    return 0;
}

int nv_seg_agg_to_profile(const nv_seg_aggregator *a, const nv_seg_profile_meta *meta,
                          nv_seg_profile *out)
{
    memset(out, 0, sizeof *out);
    out->meta = *meta;
    size_t n = a->n ? a->n : 1, ns = a->nsig ? a->nsig : 1;
    out->work = malloc(n * sizeof *out->work);
    out->time_us = malloc(n * sizeof *out->time_us);
    out->signature = malloc(n * sizeof *out->signature);
    out->sig_sum = malloc(ns * sizeof *out->sig_sum);
    out->comm = malloc(n * sizeof *out->comm);
    out->comm_rows = malloc(a->ncomm * sizeof *out->comm_rows);
    if (!out->work || !out->time_us || !out->signature || !out->sig_sum || !out->comm ||
        !out->comm_rows) {
        nv_seg_profile_free(out);
        return -1;
    }
    for (size_t i = 0; i < a->n; i++) {
        out->work[i] = a->global[NV_SEG_M_WORK].value[a->work_bin[i]];
        out->time_us[i] = a->global[NV_SEG_M_TIME_US].value[a->time_bin[i]];
        out->signature[i] = a->sig[i];
        out->comm[i] = a->comm[i];
    }
    memcpy(out->comm_rows, a->comm_rows, a->ncomm * sizeof *a->comm_rows);
    out->ncomm = a->ncomm;
    out->comm_unrecorded = a->comm_unrecorded;
    if (a->nsig)
        memcpy(out->sig_sum, a->sig_sum, a->nsig * sizeof *a->sig_sum);
    out->n = a->n;
    out->nsig = a->nsig;
    return 0;
}

/* Program-wide bins as a JSON array of values by slot (dead slots 0) and
 * the used slot count; indices in the file are slots. */
static json_object *bins_json(const nv_seg_bins *b)
{
    json_object *arr = json_object_new_array();
    uint32_t top = 0;
    for (uint32_t s = 0; s < NV_SEG_BINS_MAX; s++)
        if (b->live[s])
            top = s + 1;
    for (uint32_t s = 0; s < top; s++)
        json_object_array_add(arr, json_object_new_double(b->live[s] ? b->value[s] : 0.0));
    return arr;
}

static json_object *u_array(const uint16_t *v, size_t n)
{
    json_object *arr = json_object_new_array_ext((int)(n > 0x7fffffff ? 0x7fffffff : n));
    for (size_t i = 0; i < n; i++)
        json_object_array_add(arr, json_object_new_int(v[i]));
    return arr;
}

static json_object *id_array(const uint32_t *v, size_t n)
{
    json_object *arr = json_object_new_array_ext((int)(n > 0x7fffffff ? 0x7fffffff : n));
    for (size_t i = 0; i < n; i++)
        json_object_array_add(arr, json_object_new_int64(v[i]));
    return arr;
}

/* The names of metrics [first, end). */
static json_object *names_json(int first, int end)
{
    json_object *arr = json_object_new_array();
    for (int m = first; m < end; m++)
        json_object_array_add(arr, json_object_new_string(nv_seg_metric_name(m)));
    return arr;
}

/* n rows of k values (row-major at v) as arrays. */
static json_object *rows_json(const double *v, size_t n, int k)
{
    json_object *arr = json_object_new_array();
    for (size_t i = 0; i < n; i++) {
        json_object *row = json_object_new_array();
        for (int j = 0; j < k; j++)
            json_object_array_add(row, json_object_new_double(v[i * (size_t)k + (size_t)j]));
        json_object_array_add(arr, row);
    }
    return arr;
}

int nv_seg_agg_write_json(const nv_seg_aggregator *a, const nv_seg_profile_meta *meta,
                          const char *path, char *err, size_t errlen)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "format", json_object_new_string(NV_SEG_PROFILE_FORMAT));
    json_object_object_add(o, "version", json_object_new_int(NV_SEG_PROFILE_VERSION));
    json_object_object_add(o, "complete", json_object_new_boolean(meta->complete));
    json_object_object_add(o, "job", json_object_new_string(meta->job));
    json_object_object_add(o, "executable", json_object_new_string(meta->executable));
    json_object_object_add(o, "ranks", json_object_new_int64(meta->ranks));
    json_object_object_add(o, "work_source", json_object_new_string(meta->work_source));
    json_object_object_add(o, "segment_calls", json_object_new_string(meta->segment_calls));
    json_object_object_add(o, "runtime_us", json_object_new_double(meta->runtime_us));
    json_object_object_add(o, "segments", json_object_new_int64((int64_t)a->n));
    json_object_object_add(o, "segments_dropped", json_object_new_int64((int64_t)meta->dropped));
    json_object_object_add(o, "segments_unaligned",
                           json_object_new_int64((int64_t)meta->unaligned));
    json_object_object_add(o, "peak_profiler_bytes_per_rank",
                           json_object_new_double(meta->peak_bytes_per_rank));
    json_object *inj = json_object_new_object();
    json_object_object_add(inj, "enabled", json_object_new_boolean(meta->inject_enabled));
    json_object_object_add(inj, "prob", json_object_new_double(meta->inject_prob));
    json_object_object_add(inj, "mean_us", json_object_new_double(meta->inject_mean_us));
    json_object_object_add(inj, "sd_us", json_object_new_double(meta->inject_sd_us));
    json_object_object_add(inj, "calls", json_object_new_string(meta->inject_calls));
    json_object_object_add(inj, "seed", json_object_new_int64((int64_t)meta->inject_seed));
    json_object_object_add(inj, "events", json_object_new_int64((int64_t)meta->inject_events));
    json_object_object_add(inj, "total_us", json_object_new_double(meta->inject_total_us));
    json_object_object_add(o, "injection", inj);
    json_object *bins = json_object_new_object();
    json_object_object_add(bins, "work", bins_json(&a->global[NV_SEG_M_WORK]));
    json_object_object_add(bins, "time_us", bins_json(&a->global[NV_SEG_M_TIME_US]));
    json_object_object_add(o, "bins", bins);
    json_object_object_add(o, "segment_work_bin", u_array(a->work_bin, a->n));
    json_object_object_add(o, "segment_time_bin", u_array(a->time_bin, a->n));
    json_object_object_add(o, "segment_signature", id_array(a->sig, a->n));
    json_object_object_add(o, "signature_fields",
                           names_json(NV_SEG_FIRST_SIG_METRIC, NV_SEG_SIG_END));
    json_object_object_add(o, "signatures",
                           rows_json((const double *)a->sig_sum, a->nsig, NV_SEG_SIG_METRICS));
    json_object_object_add(o, "comm_fields", names_json(NV_SEG_M_COMM_FIRST, NV_SEG_METRICS));
    json_object_object_add(o, "comm_rows",
                           rows_json((const double *)a->comm_rows, a->ncomm, NV_SEG_COMM_METRICS));
    json_object_object_add(o, "segment_comm", id_array(a->comm, a->n));
    json_object_object_add(o, "comm_segments_unrecorded",
                           json_object_new_int64((int64_t)a->comm_unrecorded));

    int rc = -1;
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 32);
    if (!tmp) {
        snprintf(err, errlen, "out of memory");
        json_object_put(o);
        return -1;
    }
    snprintf(tmp, plen + 32, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
    } else {
        const char *txt = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
        int ok = txt && fputs(txt, f) >= 0 && fputc('\n', f) != EOF;
        ok = (fflush(f) == 0) && ok;
        ok = (fsync(fileno(f)) == 0) && ok;
        ok = (fclose(f) == 0) && ok;
        if (!ok)
            snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        else if (rename(tmp, path) != 0)
            snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
        else
            rc = 0;
        if (rc != 0)
            unlink(tmp);
    }
    free(tmp);
    json_object_put(o);
    return rc;
}
