/* nvp_nbc.c - nonblocking collectives as segment boundaries: remembers the
 * request of a boundary I-collective (MPI_Ialltoall, MPI_Iallreduce, ...)
 * when it starts, and recognises it when a completion call (Wait*, Test*)
 * completes it in this rank.  A completed non-persistent request is set to
 * MPI_REQUEST_NULL by MPI, so a tracked slot that reads null after the call
 * was completed by it, whatever the call and whether statuses are ignored.
 *
 * Only the thread that initialized MPI records (nvp_enter decides), so the
 * table needs no lock.  It is bounded (NVP_PENDING_MAX); when full, the
 * extra collectives are counted, logged once and are not boundaries.
 * Handles are recycled by MPI: a tracked handle that comes back from a new
 * wrapped request, or is freed by MPI_Request_free, is forgotten, so a
 * completion missed by the profiler cannot cut a false boundary later. */
#include "nvp.h"

#include <string.h>

_Static_assert(sizeof(MPI_Request) <= sizeof(uint64_t), "MPI_Request must fit in 64 bits");

static nvp_pending pending;

static uint64_t key_of(MPI_Request r)
{
    uint64_t k = 0;
    if (r == MPI_REQUEST_NULL)
        return 0;
    memcpy(&k, &r, sizeof r);
    return k;
}

void nvp_nbc_started(int boundary, int rc, const MPI_Request *req)
{
    if (rc != MPI_SUCCESS || !req)
        return;
    uint64_t k = key_of(*req);
    if (!boundary) {
        if (pending.n > 0)
            nvp_pending_remove(&pending, k);
        return;
    }
    if (nvp_pending_add(&pending, k) < 0 && k != 0 && pending.overflow == 1)
        nvp_log_once(
            "more than %d nonblocking boundary collectives in flight; the extra ones do not cut "
            "segments (counted, run unaffected)",
            NVP_PENDING_MAX);
}

int nvp_nbc_in_flight(void)
{
    return pending.n > 0;
}

/* Pending nonblocking requests: those not null before a completion call
 * and null after it were completed by it (persistent requests stay set
 * and are never counted as started: MPI_Start is not wrapped). */
static int count_active(const MPI_Request *reqs, int n)
{
    int k = 0;
    for (int i = 0; reqs && i < n; i++)
        k += reqs[i] != MPI_REQUEST_NULL;
    return k;
}

static void pending_done(int before, int after)
{
    if (before > after) {
        nvp_nb_pending -= before - after;
        if (nvp_nb_pending < 0)
            nvp_nb_pending = 0;
    }
}

/* A request freed by the app is no longer pending (it may be one that was
 * never started by a wrapped call, or persistent: the count only floors). */
void nvp_nbc_forget(const MPI_Request *req)
{
    if (req && *req != MPI_REQUEST_NULL)
        pending_done(1, 0);
    if (pending.n > 0 && req)
        nvp_pending_remove(&pending, key_of(*req));
}

void nvp_nbc_mark(nvp_nbc_marks *m, const MPI_Request *reqs, int n)
{
    m->n = 0;
    m->active = nvp_nb_pending > 0 ? count_active(reqs, n) : 0;
    if (pending.n == 0 || !reqs)
        return;
    for (int i = 0; i < n && m->n < pending.n; i++) {
        uint64_t k = key_of(reqs[i]);
        if (k != 0 && nvp_pending_has(&pending, k)) {
            m->pos[m->n] = i;
            m->key[m->n++] = k;
        }
    }
}

int nvp_nbc_completed(const nvp_nbc_marks *m, const MPI_Request *reqs, int n)
{
    if (m->active > 0)
        pending_done(m->active, count_active(reqs, n));
    int done = 0;
    for (int i = 0; i < m->n; i++)
        if (reqs[m->pos[i]] == MPI_REQUEST_NULL && nvp_pending_remove(&pending, m->key[i]))
            done++;
    return done;
}

/* Fortran handles: integers that Open MPI maps to the C requests. */
static MPI_Fint fortran_null(void)
{
    static int known;
    static MPI_Fint null_f;
    if (!known) {
        null_f = PMPI_Request_c2f(MPI_REQUEST_NULL);
        known = 1;
    }
    return null_f;
}

void nvp_nbc_started_f(int boundary, int rc, const MPI_Fint *req)
{
    if (rc != MPI_SUCCESS || !req || *req == fortran_null())
        return;
    MPI_Request c = PMPI_Request_f2c(*req);
    nvp_nbc_started(boundary, rc, &c);
}

void nvp_nbc_forget_f(const MPI_Fint *req)
{
    if (req && *req != fortran_null())
        pending_done(1, 0);
    if (pending.n > 0 && req && *req != fortran_null())
        nvp_pending_remove(&pending, key_of(PMPI_Request_f2c(*req)));
}

static int count_active_f(const MPI_Fint *reqs, int n)
{
    MPI_Fint null_f = fortran_null();
    int k = 0;
    for (int i = 0; reqs && i < n; i++)
        k += reqs[i] != null_f;
    return k;
}

void nvp_nbc_mark_f(nvp_nbc_marks *m, const MPI_Fint *reqs, int n)
{
    m->n = 0;
    m->active = nvp_nb_pending > 0 ? count_active_f(reqs, n) : 0;
    if (pending.n == 0 || !reqs)
        return;
    MPI_Fint null_f = fortran_null();
    for (int i = 0; i < n && m->n < pending.n; i++) {
        if (reqs[i] == null_f)
            continue;
        uint64_t k = key_of(PMPI_Request_f2c(reqs[i]));
        if (k != 0 && nvp_pending_has(&pending, k)) {
            m->pos[m->n] = i;
            m->key[m->n++] = k;
        }
    }
}

int nvp_nbc_completed_f(const nvp_nbc_marks *m, const MPI_Fint *reqs, int n)
{
    if (m->active > 0)
        pending_done(m->active, count_active_f(reqs, n));
    int done = 0;
    MPI_Fint null_f = m->n ? fortran_null() : 0;
    for (int i = 0; i < m->n; i++)
        if (reqs[m->pos[i]] == null_f && nvp_pending_remove(&pending, m->key[i]))
            done++;
    return done;
}
