/* nvp_pending.c - the bounded table of pending nonblocking boundary
 * requests and the polling-run rule (pure C, no MPI; see nvp_pending.h). */
#include "nvp_pending.h"

#include <math.h>

static int find(const nvp_pending *t, uint64_t key)
{
    for (int i = 0; i < t->n; i++)
        if (t->key[i] == key)
            return i;
    return -1;
}

int nvp_pending_add(nvp_pending *t, uint64_t key)
{
    if (key == 0)
        return -1;
    if (find(t, key) >= 0)
        return 0;
    if (t->n >= NVP_PENDING_MAX) {
        t->overflow++;
        return -1;
    }
    t->key[t->n++] = key;
    return 1;
}

int nvp_pending_remove(nvp_pending *t, uint64_t key)
{
    int i = find(t, key);
    if (i < 0)
        return 0;
    /* order does not matter: move the last one into the hole */
    t->key[i] = t->key[--t->n];
    return 1;
}

int nvp_pending_has(const nvp_pending *t, uint64_t key)
{
    return key != 0 && find(t, key) >= 0;
}

int nvp_poll_run_is_waiting(double wall_ns, double cpu_ns, uint64_t tests)
{
    if (tests < 1 || !isfinite(wall_ns) || !isfinite(cpu_ns) || wall_ns < 0 || cpu_ns < 0)
        return 0;
    return wall_ns < NVP_POLL_SHORT_NS * (double)tests || cpu_ns < 0.5 * wall_ns;
}
