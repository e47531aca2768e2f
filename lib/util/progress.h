/* progress.h - a progress line on a terminal for the long runs (`netvar
 * train` over a year of records): what was done, the rate and the time
 * left, redrawn in place on stderr at most five times a second.  Off
 * unless the caller turns it on (stderr is a TTY and no --quiet), so a
 * journal under the training timer gets no carriage returns. */
#ifndef NETVAR_PROGRESS_H
#define NETVAR_PROGRESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct nv_progress {
    FILE *out;     /* NULL: off */
    char what[48]; /* "train: records read" */
    size_t total;  /* 0: unknown (no time left shown) */
    uint64_t t0_ns, last_ns;
    int drawn; /* a line is on the terminal */
} nv_progress;

/* On when `on` is true and out is a terminal; total may be 0. */
void nv_progress_start(nv_progress *p, FILE *out, int on, const char *what, size_t total);

/* done items so far; draws when 200 ms passed since the last line (or
 * always when force).  Cheap when off or not due: one clock read. */
void nv_progress_update(nv_progress *p, size_t done, int force);

/* The line's text, for tests: "what: DONE of TOTAL (RATE/s, S s left)". */
void nv_progress_format(char *buf, size_t len, const char *what, size_t done, size_t total,
                        double elapsed_s);

/* Clears the line (the caller's own output follows on a clean line). */
void nv_progress_end(nv_progress *p);

#endif
