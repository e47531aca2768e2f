/* js_stats.c - job_submit/netvar's counts to a file (js_stats.h). */
#include "js_stats.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "atomic_file.h"
#include "slurm_glue.h"
#include "submit_stats.h"

static nv_submit_stats stats;
static double started, last_write;
static uint64_t last_seen = UINT64_MAX; /* submissions + calls at the last write */
static bool failing;

void js_stats_note_decision(unsigned actions)
{
    nv_submit_stats_note_decision(&stats, actions);
}

void js_stats_note_call(uint64_t ns)
{
    nv_submit_stats_note_call(&stats, ns);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void js_stats_flush(const char *model_path)
{
    double now = now_s();
    if (!started)
        started = now;
    nv_submit_stats s;
    nv_submit_stats_snapshot(&stats, &s);
    uint64_t seen = s.submissions + s.calls;
    if (!(now - last_write >= 60 || (seen != last_seen && now - last_write >= 10)))
        return;
    const char *slash = model_path ? strrchr(model_path, '/') : NULL;
    char path[4200], buf[2048], err[300];
    if (slash)
        snprintf(path, sizeof path, "%.*s/%s", (int)(slash - model_path), model_path,
                 NV_SUBMIT_STATS_FILE);
    else
        snprintf(path, sizeof path, "%s", NV_SUBMIT_STATS_FILE);
    s.started_unix_s = started;
    s.written_unix_s = now;
    last_write = now;
    int len = nv_submit_stats_format(&s, buf, sizeof buf);
    if (len < 0 || nv_write_file_atomic(path, buf, (size_t)len, 0644, err, sizeof err)) {
        if (!failing)
            slurm_info("netvar: job_submit: cannot write its counts to %s (%s); `netvar export` "
                       "shows no job_submit figures until it can (the directory must be "
                       "writable by SlurmUser)",
                       path, len < 0 ? "too long" : err);
        failing = true;
        return;
    }
    failing = false;
    last_seen = seen;
}
