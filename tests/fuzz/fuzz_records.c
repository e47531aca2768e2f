/* fuzz_records.c - libFuzzer target for the record readers root's tools and
 * the epilog run over the spool: the first byte picks the reader, the rest
 * is the file.
 *   0  a job record (job.json): schema check, train's and the Variability
 *      Estimate's views of it (train's within plausible.h's bounds), the
 *      submission annotation in it;
 *   1  a node's start file (.start-NODE.json, with its counter snapshot);
 *   2  a node's samples file (.samples-NODE.json);
 *   3  a node record (node-n1.json) merged by nv_job_collect beside a good
 *      one, as the last epilog does (the job's id and plausible times);
 *   4  a segment profile with a traffic matrix, as `netvar alloc records`
 *      turns it into a training row and an app (alloc_records.h); what
 *      loads keeps plausible.h's bounds. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_dir.h"

#include "alloc_records.h"
#include "job_record.h"
#include "json_file.h"
#include "segment_profile.h"
#include "node_record.h"
#include "nv_json.h"
#include "plausible.h"
#include "report_logic.h"
#include "train_history.h"

/* plausible.h's bounds hold for whatever a reader accepted (abort: the
 * fuzzer reports it) */
static bool time_ok(double t)
{
    return isnan(t) || nv_plausible_time(t, 0);
}

static void check_train_job(const nv_train_job *j)
{
    if (!nv_plausible_runtime(j->runtime_s) || !time_ok(j->start_s) || !time_ok(j->end_s) ||
        (!isnan(j->start_s) &&
         !(j->end_s >= j->start_s && j->end_s - j->start_s <= NV_PLAUSIBLE_RUNTIME_MAX_S)))
        abort();
}

/* the merged record: this job's id, times from plausible node records */
static void check_collected(json_object *job)
{
    if (!job)
        return;
    double t0 = nv_json_num(job, "start_unix_s"), t1 = nv_json_num(job, "end_unix_s");
    if (nv_json_num(job, "job_id") != 5 || !time_ok(isfinite(t0) ? t0 : NAN) ||
        !time_ok(isfinite(t1) ? t1 : NAN))
        abort();
}

static int check_profile(const nv_seg_profile *p)
{
    double total = 0;
    if (!(p->meta.runtime_us >= 0 && p->meta.runtime_us <= NV_PLAUSIBLE_RUNTIME_MAX_S * 1e6))
        abort();
    for (size_t i = 0; i < p->n; i++) {
        if (!(p->time_us[i] >= 0 && p->work[i] >= 0 && p->work[i] <= 1e18) ||
            p->signature[i] >= p->nsig)
            abort();
        total += p->time_us[i];
    }
    if (!(total <= NV_PLAUSIBLE_RUNTIME_MAX_S * 1e6))
        abort();
    return 1;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_dir_make("records");
    static const char good[] =
        "{\"schema\":\"netvar-node-record\",\"version\":1,\"job_id\":5,\"node\":\"n2\","
        "\"mode\":\"counters\",\"app\":\"amg\",\"start_unix_s\":10,\"end_unix_s\":20,"
        "\"counter_source\":\"none\"}";
    fuzz_dir_put("node-n2.json", (const uint8_t *)good, sizeof good - 1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1 << 20))
        return 0;
    char path[128], err[512];
    switch (data[0] % 5) {
    case 0: {
        fuzz_dir_put("job.json", data + 1, size - 1);
        snprintf(path, sizeof path, "%s/job.json", fuzz_dir);
        json_object *rec = nv_job_record_read(path, err, sizeof err);
        if (rec) {
            nv_train_job job;
            char app[NV_MODEL_KEY_MAX + 1];
            nv_train_job_from_record(rec, 1.5, &job, app, err, sizeof err);
            if (nv_train_job_from_record(rec, 0, &job, app, err, sizeof err) >= 0)
                check_train_job(&job);
            nv_ve_job ve;
            nv_ve_job_from_record(rec, &ve, err, sizeof err);
            nv_report_annotation an;
            nv_report_annotation_from_record(rec, &an, err, sizeof err);
            json_object_put(rec);
        }
        break;
    }
    case 1: {
        fuzz_dir_put(".start-n1.json", data + 1, size - 1);
        snprintf(path, sizeof path, "%s/.start-n1.json", fuzz_dir);
        struct nv_node_start_info info;
        nv_ctr_snapshot *snap = malloc(sizeof *snap);
        if (snap)
            nv_node_start_read(path, &info, snap, err, sizeof err);
        free(snap);
        break;
    }
    case 2: {
        fuzz_dir_put(".samples-n1.json", data + 1, size - 1);
        snprintf(path, sizeof path, "%s/.samples-n1.json", fuzz_dir);
        json_object *s = nv_node_samples_read(path, err, sizeof err);
        json_object_put(s);
        break;
    }
    case 3: {
        fuzz_dir_put("node-n1.json", data + 1, size - 1);
        json_object *job =
            nv_job_collect(fuzz_dir, 5, 1.5, "fuzz", NULL, fuzz_ignore_line, NULL, err, sizeof err);
        check_collected(job);
        json_object_put(job);
        snprintf(path, sizeof path, "%s/node-n1.json", fuzz_dir);
        unlink(path);
        break;
    }
    case 4: {
        fuzz_dir_put("profile.json", data + 1, size - 1);
        snprintf(path, sizeof path, "%s/profile.json", fuzz_dir);
        json_object *o = nv_json_read_file(path, 1 << 20, err, sizeof err);
        const char *paths[1] = {path};
        nv_seg_profile seg;
        if (o && nv_seg_profile_load(paths, 1, &seg, err, sizeof err) == 0 && check_profile(&seg)) {
            static const char topo_text[] = "SwitchName=s1 Nodes=n[1-2]\nSwitchName=s2 Nodes=n3\n";
            nv_topo t;
            nv_topo_init(&t);
            if (nv_topo_parse_slurm(&t, topo_text, "fuzz", err, sizeof err) == 0) {
                nv_alloc_row row;
                nv_alloc_app a;
                nv_alloc_row_from_profile(o, &seg, "app", &t, &row, &a, err, sizeof err);
            }
            nv_topo_free(&t);
            nv_seg_profile_free(&seg);
        }
        json_object_put(o);
        break;
    }
    }
    return 0;
}
