/* progress.c - a progress line on a terminal (progress.h). */
#include "progress.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void nv_progress_start(nv_progress *p, FILE *out, int on, const char *what, size_t total)
{
    memset(p, 0, sizeof *p);
    p->out = on && out && isatty(fileno(out)) ? out : NULL;
    snprintf(p->what, sizeof p->what, "%s", what ? what : "");
    p->total = total;
    p->t0_ns = p->last_ns = now_ns();
}

void nv_progress_format(char *buf, size_t len, const char *what, size_t done, size_t total,
                        double elapsed_s)
{
    double rate = elapsed_s > 0 ? (double)done / elapsed_s : 0;
    int n = total ? snprintf(buf, len, "netvar: %s: %zu of %zu", what, done, total)
                  : snprintf(buf, len, "netvar: %s: %zu", what, done);
    if (n < 0 || (size_t)n >= len)
        return;
    if (rate > 0 && total > done)
        snprintf(buf + n, len - (size_t)n, " (%.0f/s, %.0f s left)", rate,
                 (double)(total - done) / rate);
    else if (rate > 0)
        snprintf(buf + n, len - (size_t)n, " (%.0f/s)", rate);
}

void nv_progress_update(nv_progress *p, size_t done, int force)
{
    if (!p->out)
        return;
    uint64_t t = now_ns();
    if (!force && t - p->last_ns < 200000000u)
        return;
    p->last_ns = t;
    char line[160];
    nv_progress_format(line, sizeof line, p->what, done, p->total, (double)(t - p->t0_ns) / 1e9);
    fprintf(p->out, "\r%-79s", line);
    fflush(p->out);
    p->drawn = 1;
}

void nv_progress_end(nv_progress *p)
{
    if (p->out && p->drawn) {
        fprintf(p->out, "\r%79s\r", "");
        fflush(p->out);
    }
    p->drawn = 0;
}
