/* test_segment_profile.c - program-wide aggregation (median over ranks,
 * exact signatures), the profile JSON round trip, partial per-rank files,
 * and clear errors for truncated or corrupt profiles. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "segment_profile.h"
#include "nv_test.h"

static char dir[64];

static int make_dir(void **state)
{
    (void)state;
    return nv_test_tmpdir(dir, sizeof dir, "segment-profile");
}

static int remove_dir(void **state)
{
    (void)state;
    return nv_test_rmtree(dir);
}

/* Global bins with values 1..20 in every metric (slot k holds k+1). */
static void simple_global(nv_seg_bins *g)
{
    uint16_t remap[NV_SEG_BINS_MAX];
    int merged;
    for (int m = 0; m < NV_SEG_METRICS; m++) {
        nv_seg_bins_init(&g[m], NV_SEG_GLOBAL_BINS);
        for (int k = 0; k < 20; k++)
            nv_seg_bins_add(&g[m], k + 1, 1, remap, &merged);
    }
}

static void aggregate_takes_rank_medians_and_exact_signatures(void **state)
{
    (void)state;
    nv_seg_bins g[NV_SEG_METRICS];
    simple_global(g);
    nv_seg_aggregator *a = nv_seg_agg_new(3, g);
    assert_non_null(a);
    uint16_t block[3 * NV_SEG_METRICS];
    for (int seg = 0; seg < 3; seg++) {
        for (int r = 0; r < 3; r++)
            for (int m = 0; m < NV_SEG_METRICS; m++)
                block[r * NV_SEG_METRICS + m] = 0; /* value 1 */
        /* work by rank: 3, 9, 5 -> median 5; time: 10, 11, 19 -> 11 */
        block[0 * NV_SEG_METRICS + NV_SEG_M_WORK] = 2;
        block[1 * NV_SEG_METRICS + NV_SEG_M_WORK] = 8;
        block[2 * NV_SEG_METRICS + NV_SEG_M_WORK] = 4;
        block[0 * NV_SEG_METRICS + NV_SEG_M_TIME_US] = 9;
        block[1 * NV_SEG_METRICS + NV_SEG_M_TIME_US] = 10;
        block[2 * NV_SEG_METRICS + NV_SEG_M_TIME_US] = 18;
        if (seg == 2) /* rank 1 sent more bytes: another signature */
            block[1 * NV_SEG_METRICS + NV_SEG_M_BYTES_SENT] = 5;
        assert_int_equal(nv_seg_agg_add(a, block, 1, 0), 0);
    }
    block[NV_SEG_M_WORK] = 40; /* a slot that is not live */
    assert_int_equal(nv_seg_agg_add(a, block, 1, 0), -1);
    nv_seg_profile_meta meta = {0};
    meta.ranks = 3;
    nv_seg_profile p;
    assert_int_equal(nv_seg_agg_to_profile(a, &meta, &p), 0);
    assert_int_equal(p.n, 3);
    assert_true(p.work[0] == 5 && p.time_us[0] == 11);
    assert_int_equal(p.signature[0], p.signature[1]);
    assert_true(p.signature[2] != p.signature[0]);
    assert_int_equal(p.nsig, 2);
    int k = NV_SEG_M_BYTES_SENT - NV_SEG_FIRST_SIG_METRIC;
    assert_true(p.sig_sum[p.signature[0]][k] == 3); /* 1+1+1 */
    assert_true(p.sig_sum[p.signature[2]][k] == 1 + 6 + 1);
    nv_seg_profile_free(&p);
    nv_seg_agg_free(a);
}

/* Version 2's time metrics: mean over ranks per segment, rows shared by
 * segments with the same bins, kept out of the signature; they survive the
 * JSON round trip; version 1 files load without them; hostile comm members
 * are refused with one line. */
static void comm_times_per_segment(void **state)
{
    (void)state;
    nv_seg_bins g[NV_SEG_METRICS];
    simple_global(g);
    nv_seg_aggregator *a = nv_seg_agg_new(2, g);
    assert_non_null(a);
    int p2p = nv_seg_comm_metric(NV_SEG_OP_P2P, 1), ov = NV_SEG_M_OVERLAP_US;
    uint16_t block[2 * NV_SEG_METRICS] = {0}; /* every metric 1 */
    for (int seg = 0; seg < 3; seg++) {
        block[p2p] = 3;                  /* rank 0: 4 us */
        block[NV_SEG_METRICS + p2p] = 5; /* rank 1: 6 us -> mean 5 */
        block[ov] = block[NV_SEG_METRICS + ov] = (uint16_t)(seg == 2 ? 9 : 1);
        assert_int_equal(nv_seg_agg_add(a, block, 1, 0), 0);
    }
    nv_seg_profile_meta meta = {0};
    meta.ranks = 2;
    nv_seg_profile p;
    assert_int_equal(nv_seg_agg_to_profile(a, &meta, &p), 0);
    assert_int_equal(p.ncomm, 3); /* the zero row and two rows */
    assert_int_equal(p.comm[0], p.comm[1]);
    assert_true(p.comm[2] != p.comm[0] && p.comm[0] != 0);
    assert_int_equal(p.signature[0], p.signature[2]); /* times are not in it */
    int k = p2p - NV_SEG_M_COMM_FIRST, ko = ov - NV_SEG_M_COMM_FIRST;
    assert_true(p.comm_rows[p.comm[0]][k] == 5 && p.comm_rows[p.comm[0]][ko] == 2);
    assert_true(p.comm_rows[p.comm[2]][ko] == 10);
    for (int j = 0; j < NV_SEG_COMM_METRICS; j++)
        assert_true(p.comm_rows[0][j] == 0);
    nv_seg_profile_free(&p);

    char path[128], err[512];
    snprintf(path, sizeof path, "%s/profile-48.0.json", dir);
    assert_int_equal(nv_seg_agg_write_json(a, &meta, path, err, sizeof err), 0);
    nv_seg_agg_free(a);
    const char *paths[] = {path};
    assert_int_equal(nv_seg_profile_load(paths, 1, &p, err, sizeof err), 0);
    assert_int_equal(p.n, 3);
    assert_int_equal(p.ncomm, 3);
    assert_true(p.comm_rows[p.comm[1]][k] == 5 && p.comm_rows[p.comm[2]][ko] == 10);
    nv_seg_profile_free(&p);

    /* hostile version 2 members; one valid profile first */
    char fields[1024] = "";
    for (int m = NV_SEG_M_COMM_FIRST; m < NV_SEG_METRICS; m++)
        snprintf(fields + strlen(fields), sizeof fields - strlen(fields), "%s\"%s\"",
                 m > NV_SEG_M_COMM_FIRST ? "," : "", nv_seg_metric_name(m));
#define ZEROS "[0,0,0,0,0,0,0,0,0,0,0,0,0,0]"
    static const struct {
        const char *version, *fields_prefix, *rows, *col, *want;
    } cases[] = {
        {"2", "", "[" ZEROS ",[0,0,0,0,0,0,0,0,0,0,0,0,0,7.5]]", "[0,1]", NULL},
        {"1", "", "[" ZEROS "]", "[0,9]", NULL}, /* version 1: the comm members are ignored */
        {"3", "", "[" ZEROS "]", "[0,0]", "unsupported profile version"},
        {"2", "\"x\",", "[" ZEROS "]", "[0,0]", "not this netvar's time metrics"},
        {"2", "", "[" ZEROS ",[1,2]]", "[0,1]", "one finite time >= 0"},
        {"2", "", "[" ZEROS ",[0,0,0,0,0,0,0,0,0,0,0,0,0,-1]]", "[0,1]", "one finite time >= 0"},
        {"2", "", "[[0,0,0,0,0,0,0,0,0,0,0,0,0,1]]", "[0,0]", "row 0 zeros"},
        {"2", "", "[" ZEROS "]", "[0,1]", "does not exist"},
        {"2", "", "[" ZEROS "]", "[0]", "different lengths"},
        {"2", "", "[]", "[0,0]", "missing, empty or too long"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[4096];
        snprintf(text, sizeof text,
                 "{\"format\":\"netvar-segment-profile\",\"version\":%s,\"runtime_us\":12,"
                 "\"bins\":{\"work\":[1],\"time_us\":[5]},\"segment_work_bin\":[0,0],"
                 "\"segment_time_bin\":[0,0],\"segment_signature\":[0,0],"
                 "\"signatures\":[[0,0,0,0,0,0,0,0,0,0]],\"comm_fields\":[%s%s],"
                 "\"comm_rows\":%s,\"segment_comm\":%s}",
                 cases[i].version, cases[i].fields_prefix, fields, cases[i].rows, cases[i].col);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
        int rc = nv_seg_profile_load(paths, 1, &p, err, sizeof err);
        if (!cases[i].want) {
            if (rc != 0)
                fail_msg("case %zu: refused: %s", i, err);
            assert_int_equal(p.n, 2);
            if (cases[i].version[0] == '1')
                assert_null(p.comm);
            else
                assert_true(p.ncomm == 2 && p.comm[1] == 1 && p.comm_rows[1][ko] == 7.5);
            nv_seg_profile_free(&p);
            continue;
        }
        if (rc != -1 || !strstr(err, cases[i].want) || !strstr(err, path) || strchr(err, '\n'))
            fail_msg("case %zu: rc %d, got \"%s\", want \"%s\"", i, rc, err, cases[i].want);
        assert_int_equal(p.n, 0);
    }
}

static void json_round_trip_and_truncation(void **state)
{
    (void)state;
    nv_seg_bins g[NV_SEG_METRICS];
    simple_global(g);
    nv_seg_aggregator *a = nv_seg_agg_new(1, g);
    uint16_t block[NV_SEG_METRICS] = {0};
    for (int s = 0; s < 10; s++) {
        block[NV_SEG_M_WORK] = (uint16_t)(s % 2);
        block[NV_SEG_M_TIME_US] = (uint16_t)(s + 5);
        assert_int_equal(nv_seg_agg_add(a, block, 1, 0), 0);
    }
    nv_seg_profile_meta meta = {0};
    meta.complete = 1;
    meta.ranks = 1;
    meta.runtime_us = 1234.5;
    snprintf(meta.job, sizeof meta.job, "77.0");
    snprintf(meta.work_source, sizeof meta.work_source, "thread_cputime_ns");
    meta.inject_enabled = 1;
    meta.inject_events = 4;
    meta.inject_total_us = 400;
    char path[128], err[512];
    snprintf(path, sizeof path, "%s/profile-77.0.json", dir);
    assert_int_equal(nv_seg_agg_write_json(a, &meta, path, err, sizeof err), 0);
    nv_seg_agg_free(a);

    nv_seg_profile p;
    const char *paths[] = {path};
    assert_int_equal(nv_seg_profile_load(paths, 1, &p, err, sizeof err), 0);
    assert_int_equal(p.n, 10);
    assert_true(p.meta.complete && p.meta.ranks == 1 && p.meta.runtime_us == 1234.5);
    assert_string_equal(p.meta.job, "77.0");
    assert_true(p.meta.inject_events == 4 && p.meta.inject_total_us == 400);
    for (int s = 0; s < 10; s++) {
        assert_true(p.work[s] == (double)(s % 2 + 1));
        assert_true(p.time_us[s] == (double)(s + 6));
    }
    nv_seg_profile_free(&p);

    /* cut the file in half: one clear error naming the file */
    FILE *f = fopen(path, "r+");
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fclose(f);
    assert_int_equal(truncate(path, len / 2), 0);
    assert_int_equal(nv_seg_profile_load(paths, 1, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "truncated"));
    assert_null(strchr(err, '\n'));
    assert_int_equal(truncate(path, 0), 0);
    assert_int_equal(nv_seg_profile_load(paths, 1, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "empty"));
    f = fopen(path, "w");
    fputs(
        "{\"format\":\"netvar-segment-profile\",\"version\":1,\"bins\":{\"work\":[1],\"time_us\":[2]},"
        "\"segment_work_bin\":[0,5],\"segment_time_bin\":[0,0],\"segment_signature\":[0,0],"
        "\"signatures\":[[0,0,0,0,0,0,0,0,0,0]]}",
        f);
    fclose(f);
    assert_int_equal(nv_seg_profile_load(paths, 1, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "does not exist"));
}

/* Writes a per-rank file as the profiler would: header + columns. */
static void write_rank(const char *path, unsigned rank, unsigned nranks, int nseg, double time_base,
                       int busy, int truncate_it)
{
    uint64_t cap = 64;
    size_t bytes = sizeof(nv_seg_rank_header) + NV_SEG_METRICS * cap;
    unsigned char *buf = calloc(1, bytes);
    nv_seg_rank_header *h = (nv_seg_rank_header *)buf;
    uint8_t *col = buf + sizeof *h;
    memcpy(h->magic, NV_SEG_RANK_MAGIC, 8);
    h->version = NV_SEG_RANK_VERSION;
    h->header_bytes = sizeof *h;
    h->metrics = NV_SEG_METRICS;
    h->rank = rank;
    h->nranks = nranks;
    h->capacity = cap;
    h->busy = (uint32_t)busy;
    h->runtime_us = 5000;
    snprintf(h->job, sizeof h->job, "12.3");
    for (int m = 0; m < NV_SEG_METRICS; m++)
        nv_seg_bins_init(&h->bins[m], NV_SEG_RANK_BINS);
    for (int s = 0; s < nseg; s++) {
        for (int m = 0; m < NV_SEG_METRICS; m++) {
            double v = m == NV_SEG_M_WORK      ? 1000
                       : m == NV_SEG_M_TIME_US ? time_base + (s == 7 ? 500 : s % 3)
                                               : 1;
            uint16_t remap[NV_SEG_BINS_MAX];
            int merged;
            col[(size_t)m * cap + (size_t)s] =
                (uint8_t)nv_seg_bins_add(&h->bins[m], v, 1, remap, &merged);
        }
        h->nsegments++;
    }
    FILE *f = fopen(path, "w");
    fwrite(buf, 1, truncate_it ? bytes / 3 : bytes, f);
    fclose(f);
    free(buf);
}

static void partial_rank_files_load(void **state)
{
    (void)state;
    char p0[128], p1[128], err[512];
    snprintf(p0, sizeof p0, "%s/profile-12.3.rank0.partial", dir);
    snprintf(p1, sizeof p1, "%s/profile-12.3.rank1.partial", dir);
    write_rank(p0, 0, 2, 20, 100, 0, 0);
    write_rank(p1, 1, 2, 18, 100, 0, 0); /* died two segments earlier */
    const char *paths[] = {p0, p1};
    nv_seg_profile p;
    assert_int_equal(nv_seg_profile_load(paths, 2, &p, err, sizeof err), 0);
    assert_int_equal(p.meta.complete, 0);
    assert_int_equal(p.n, 18);
    assert_int_equal(p.meta.unaligned, 2);
    assert_int_equal(p.meta.ranks, 2);
    assert_true(fabs(p.time_us[7] - 600) < 1e-9);
    assert_true(fabs(p.time_us[1] - 101) < 1e-9);
    assert_true(p.work[0] == 1000);
    nv_seg_profile_free(&p);

    write_rank(p1, 1, 2, 18, 100, 1, 0);
    assert_int_equal(nv_seg_profile_load(paths, 2, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "merging"));
    write_rank(p1, 1, 2, 18, 100, 0, 1);
    assert_int_equal(nv_seg_profile_load(paths, 2, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, p1));
    assert_non_null(strstr(err, "truncated"));
}

/* a FIFO or a symbolic link where a profile should be: refused at once
 * (a blocking open would hang root's `netvar estimate`; alarm() turns a
 * hang into a failure); a part of another owner is refused; a large
 * partial set is read in chunks with the same result */
static void hostile_profile_files(void **state)
{
    (void)state;
    char fifo[128], link[128], p0[128], p1[128], err[512];
    nv_seg_profile p;
    alarm(30);
    snprintf(fifo, sizeof fifo, "%s/fifo.json", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    const char *one[] = {fifo};
    assert_int_equal(nv_seg_profile_load(one, 1, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "FIFO"));
    snprintf(p0, sizeof p0, "%s/profile-12.3.rank0.partial", dir);
    snprintf(p1, sizeof p1, "%s/profile-12.3.rank1.partial", dir);
    write_rank(p0, 0, 2, 20, 100, 0, 0);
    write_rank(p1, 1, 2, 20, 100, 0, 0);
    const char *with_fifo[] = {p0, fifo};
    assert_int_equal(nv_seg_profile_load(with_fifo, 2, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "FIFO"));
    snprintf(link, sizeof link, "%s/link.partial", dir);
    assert_int_equal(symlink(p1, link), 0);
    const char *with_link[] = {p0, link};
    assert_int_equal(nv_seg_profile_load(with_link, 2, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "symbolic link"));
    const char *both[] = {p0, p1};
    assert_int_equal(nv_seg_profile_load_owned(both, 2, geteuid() + 1, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "owned by uid"));
    assert_int_equal(nv_seg_profile_load_owned(both, 2, geteuid(), &p, err, sizeof err), 0);
    assert_int_equal(p.n, 20);
    /* read in chunks of 3 segments (7 chunks, the last of 2): the same profile */
    nv_seg_profile whole = p;
    nv_seg_profile_chunk_bytes(3 * 2 * NV_SEG_METRICS);
    assert_int_equal(nv_seg_profile_load_owned(both, 2, geteuid(), &p, err, sizeof err), 0);
    nv_seg_profile_chunk_bytes(0);
    assert_int_equal(p.n, whole.n);
    for (size_t i = 0; i < p.n; i++) {
        assert_true(p.time_us[i] == whole.time_us[i]);
        assert_true(p.work[i] == whole.work[i]);
        assert_int_equal(p.signature[i], whole.signature[i]);
    }
    nv_seg_profile_free(&p);
    nv_seg_profile_free(&whole);
    alarm(0);
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Numbers outside plausible.h's bounds refuse the profile with one line
 * (before: bins of 1e308 printed "runtime inf s", runtime_us 1e308 gave
 * 0 % interference); a member given twice is refused (json-c kept the
 * last silently). */
static void implausible_profiles_are_refused(void **state)
{
    (void)state;
    char path[128], err[512], text[1024];
    nv_seg_profile p;
    const char *paths[] = {path};
    snprintf(path, sizeof path, "%s/profile-9.0.json", dir);
    static const struct {
        const char *bins, *extra, *want;
    } bad[] = {
        {"\"work\":[1],\"time_us\":[1e308]", "", "outside [0, a year]"},
        {"\"work\":[1e308],\"time_us\":[5]", "", "outside [0, a year]"},
        {"\"work\":[-1],\"time_us\":[5]", "", "outside [0, a year]"},
        {"\"work\":[1],\"time_us\":[5]", ",\"runtime_us\":1e308",
         "runtime_us 1e+308 is more than a year"},
        {"\"work\":[1],\"time_us\":[2e13]", "", "add up to"},
        {"\"work\":[1],\"time_us\":[5]", ",\"version\":1", "\"version\" given twice"},
        {"\"work\":[1],\"time_us\":[5]", ",\"segment_time_bin\":[0,0]",
         "\"segment_time_bin\" given twice"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(
            text, sizeof text,
            "{\"format\":\"netvar-segment-profile\",\"version\":1,\"bins\":{%s},"
            "\"segment_work_bin\":[0,0],\"segment_time_bin\":[0,0],\"segment_signature\":[0,0],"
            "\"signatures\":[[0,0,0,0,0,0,0,0,0,0]]%s}",
            bad[i].bins, bad[i].extra);
        put(path, text);
        assert_int_equal(nv_seg_profile_load(paths, 1, &p, err, sizeof err), -1);
        if (!strstr(err, bad[i].want) || !strstr(err, path))
            fail_msg("case %zu: got \"%s\", want \"%s\"", i, err, bad[i].want);
        assert_int_equal(p.n, 0);
    }
    /* the same profile with plausible numbers loads */
    snprintf(text, sizeof text,
             "{\"format\":\"netvar-segment-profile\",\"version\":1,\"runtime_us\":12,"
             "\"bins\":{\"work\":[1],\"time_us\":[5]},\"segment_work_bin\":[0,0],"
             "\"segment_time_bin\":[0,0],\"segment_signature\":[0,0],"
             "\"signatures\":[[0,0,0,0,0,0,0,0,0,0]]}");
    put(path, text);
    assert_int_equal(nv_seg_profile_load(paths, 1, &p, err, sizeof err), 0);
    assert_int_equal(p.n, 2);
    assert_true(p.time_us[1] == 5 && p.meta.runtime_us == 12);
    nv_seg_profile_free(&p);
}

static long peak_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* A JSON profile is read member by member, never as one json-c tree (a
 * 300 MB profile took 882 MB): 1.5 M segments in 9 MB of text load within
 * 100 MiB of peak memory (json-c's tree of it alone was over 250 MiB). */
static void a_large_profile_loads_in_bounded_memory(void **state)
{
    (void)state;
    char path[128], err[512];
    snprintf(path, sizeof path, "%s/profile-10.0.json", dir);
    const size_t n = 1500000;
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"format\":\"netvar-segment-profile\",\"version\":1,\"runtime_us\":1e7,"
          "\"bins\":{\"work\":[1,2],\"time_us\":[1,2]},\"signatures\":[[0,0,0,0,0,0,0,0,0,0]]",
          f);
    static const char *cols[] = {"segment_work_bin", "segment_time_bin", "segment_signature"};
    for (int c = 0; c < 3; c++) {
        fprintf(f, ",\"%s\":[", cols[c]);
        for (size_t i = 0; i < n; i++)
            fputs(i ? (c < 2 && i % 2 ? ",1" : ",0") : "0", f);
        fputc(']', f);
    }
    fputs("}\n", f);
    fclose(f);
    long before = peak_rss_kib();
    nv_seg_profile p;
    const char *paths[] = {path};
    assert_int_equal(nv_seg_profile_load(paths, 1, &p, err, sizeof err), 0);
    long grew_kib = peak_rss_kib() - before;
    assert_int_equal(p.n, n);
    assert_true(p.work[1] == 2 && p.time_us[2] == 1);
    nv_seg_profile_free(&p);
    if (grew_kib > 100 * 1024)
        fail_msg("loading grew the peak by %ld KiB", grew_kib);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_large_profile_loads_in_bounded_memory),
        cmocka_unit_test(implausible_profiles_are_refused),
        cmocka_unit_test(aggregate_takes_rank_medians_and_exact_signatures),
        cmocka_unit_test(json_round_trip_and_truncation),
        cmocka_unit_test(comm_times_per_segment),
        cmocka_unit_test(partial_rank_files_load),
        cmocka_unit_test(hostile_profile_files),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
