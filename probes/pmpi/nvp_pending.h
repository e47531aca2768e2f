/* nvp_pending.h - pure logic (no MPI) behind nonblocking segment
 * boundaries: the bounded table of pending boundary requests and the rule
 * that tells a polite polling run from computation.  Unit tested in
 * tests/unit/test_pmpi_pending.c. */
#ifndef NETVAR_NVP_PENDING_H
#define NETVAR_NVP_PENDING_H

#include <stdint.h>

/* Outstanding nonblocking collectives one rank can have tracked at once.
 * Real codes keep a handful in flight; more are counted and ignored. */
#define NVP_PENDING_MAX 64

/* Keys are request handles copied into 64 bits (a pointer in Open MPI, an
 * int in MPICH); 0 is never stored (it is no live handle in either). */
typedef struct {
    uint64_t key[NVP_PENDING_MAX]; /* compact: key[0..n-1] are live */
    int n;
    uint64_t overflow; /* adds refused because the table was full */
} nvp_pending;

/* Tracks key.  Returns 1 when added, 0 when it was tracked already (a
 * recycled handle: kept once), -1 when the table is full (counted in
 * overflow, nothing stored) or key is 0. */
int nvp_pending_add(nvp_pending *t, uint64_t key);

/* Untracks key.  Returns 1 when it was tracked, else 0. */
int nvp_pending_remove(nvp_pending *t, uint64_t key);

/* 1 when key is tracked. */
int nvp_pending_has(const nvp_pending *t, uint64_t key);

/* A polling run is the stretch from a test call (MPI_Test*) that left
 * requests incomplete to the first later MPI call that is not such a test
 * (the test that completes them, a wait, anything else): the app's own
 * loop of tests, naps or computation.  It is waiting, not computation, when
 * the tests came too close together to hold computation (under
 * NVP_POLL_SHORT_NS of wall time per test on average: a spin loop) or the
 * thread mostly slept (CPU time under half the wall time: nanosleep naps).
 * Returns 1 for waiting; 0 for computation overlapped with communication,
 * and 0 for tests < 1 or negative or non-finite input. */
#define NVP_POLL_SHORT_NS 5000.0
int nvp_poll_run_is_waiting(double wall_ns, double cpu_ns, uint64_t tests);

#endif
