/* fuzz_train_state.c - libFuzzer target for the training state reader
 * (train_state.h): any file must load into a set that analysis takes, or be
 * refused with one error line that leaves the set empty; never a crash,
 * leak or UB.
 *
 * Random bytes rarely get past the header, so the first input byte picks a
 * mode: odd, the input is the file; even, the input describes up to 64 jobs
 * (ids, apps, sizes, times, rho, switches), a valid state of them is
 * written, one byte of it is set from the input, and that file is loaded:
 * the checks of every field and the checksum are reached.  Some jobs get a
 * time or runtime outside plausible.h's bounds: the load must refuse them,
 * and whatever loads keeps those bounds. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_dir.h"
#include "plausible.h"
#include "train_history.h"
#include "train_state.h"

#define SPOOL "/fuzz/spool"

static uint64_t take(const uint8_t **p, size_t *n, size_t bytes)
{
    uint64_t v = 0;
    for (size_t i = 0; i < bytes && *n; i++, (*p)++, (*n)--)
        v = v << 8 | **p;
    return v;
}

static void build_state(const char *path, const uint8_t *data, size_t size)
{
    nv_train_set s;
    nv_train_set_init(&s);
    char err[300];
    size_t jobs = take(&data, &size, 1) % 64;
    for (size_t j = 0; j < jobs && size >= 12; j++) {
        nv_train_job job;
        memset(&job, 0, sizeof job);
        job.job_id = (int64_t)(take(&data, &size, 2) + 1);
        char app[16];
        snprintf(app, sizeof app, "app%u", (unsigned)(take(&data, &size, 1) % 8));
        job.nodes = (uint32_t)(take(&data, &size, 1) % 16 + 1);
        job.start_s = (double)take(&data, &size, 2);
        job.runtime_s = (double)(take(&data, &size, 2) + 1);
        job.end_s = job.start_s + job.runtime_s;
        /* now and then a time or runtime outside plausible.h's bounds,
         * which a record could not bring in and the load must refuse */
        static const double absurd[] = {-1e308, 1e308, 4.2e9, -1, 4e7};
        uint64_t pick = job.nodes == 16 ? take(&data, &size, 1) : 0;
        if (pick % 3 == 1)
            job.start_s = absurd[pick / 3 % 5];
        else if (pick % 3 == 2)
            job.runtime_s = absurd[pick / 3 % 5] > 0 ? absurd[pick / 3 % 5] : 1e308;
        job.rho = (double)(take(&data, &size, 1)) / 255.0;
        job.switch_rho = NAN;
        job.service_us = NAN;
        job.n_switches = (uint8_t)(take(&data, &size, 1) % 4);
        for (uint8_t k = 0; k < job.n_switches; k++)
            job.topo[k] = 100 * (uint64_t)k + take(&data, &size, 1) % 100 + 1;
        job.background = job.baseline_s = job.slowdown_pct = NAN;
        job.neighbour_app = -1;
        nv_train_set_add(&s, &job, app, 1000, err, sizeof err);
    }
    if (nv_train_state_save(path, SPOOL, 0, &s, err, sizeof err) == 0 && size >= 3) {
        /* one byte set: a damaged state */
        struct stat st;
        if (stat(path, &st) == 0 && st.st_size > 0) {
            long at = (long)(take(&data, &size, 2) % (uint64_t)st.st_size);
            FILE *f = fopen(path, "r+b");
            if (f) {
                fseek(f, at, SEEK_SET);
                fputc((int)take(&data, &size, 1), f);
                fclose(f);
            }
        }
    }
    nv_train_set_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!fuzz_dir[0])
        fuzz_dir_make("state");
    if (!size)
        return 0;
    char path[128];
    snprintf(path, sizeof path, "%s/state", fuzz_dir);
    if (data[0] & 1)
        fuzz_dir_put("state", data + 1, size - 1);
    else
        build_state(path, data + 1, size - 1);
    nv_train_set s;
    nv_train_set_init(&s);
    char err[300] = "";
    int rc = nv_train_state_load(path, SPOOL, 0, 1000, &s, err, sizeof err);
    if (rc < 0) {
        if (!err[0] || strchr(err, '\n') || s.n || s.n_known)
            abort(); /* one line, and nothing half-loaded */
    } else if (rc == 0) {
        nv_train_opts o;
        nv_train_opts_default(&o);
        for (size_t i = 0; i < s.n; i++) { /* plausible.h's bounds held by the load */
            const nv_train_sum *j = &s.jobs[i];
            if (!nv_plausible_runtime(j->runtime_s) ||
                (!isnan(j->start_s) && !nv_plausible_time(j->start_s, 0)) ||
                (!isnan(j->end_s) && !nv_plausible_time(j->end_s, 0)))
                abort();
        }
        if (nv_train_set_window(&s, 3600) || nv_train_analyze(&s, &o))
            abort();
    }
    nv_train_set_free(&s);
    return 0;
}
