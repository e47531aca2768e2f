/* model_hot.c - the arrays a pair prediction reads, moved at load into one
 * mapping backed by 2 MiB pages where the kernel gives them.
 *
 * job_submit predicts for random pairs of a large model, so every line it
 * reads is a likely cache miss, and with 4 KiB pages most are also TLB
 * misses: 10 000 apps' records, anchored curves, profiles, where-array,
 * co-location slots and entries span about 10 MiB, more than a core's
 * second-level TLB covers (1 536 entries of 4 KiB: 6 MiB), and under a
 * hypervisor a TLB miss walks two page tables.  Packed into one region
 * aligned to 2 MiB with madvise(MADV_HUGEPAGE) (transparent huge pages in
 * "madvise" mode, Debian's default, as in "always"), the same reads need a
 * handful of TLB entries.  Where the kernel gives no huge pages (THP
 * "never", or fragmented memory), the region is ordinary memory and
 * nothing else changes.
 *
 * Done once in the loader (the reload thread), after every array is final:
 * a copy of a few MiB.  A model below 2 MiB of such arrays is left as it
 * is: it fits the TLB anyway. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "model_internal.h"

#define HUGE_PAGE ((size_t)2 << 20)
#define LINE 64

static size_t round_up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

struct part {
    void **arr;
    size_t bytes;
};

int nv_model_pack_hot(nv_model *m)
{
    if (!m || m->hot || !m->n_apps)
        return 0;
    struct part parts[] = {
        {(void **)&m->apps, m->n_apps * sizeof *m->apps},
        {(void **)&m->where, m->n_apps * sizeof *m->where},
        {(void **)&m->sgrid, 2 * m->n_apps * sizeof *m->sgrid},
        {(void **)&m->acurve, m->n_acurve * sizeof *m->acurve},
        {(void **)&m->profile, m->n_profile * sizeof *m->profile},
        {(void **)&m->pair_tab, m->pair_cap * sizeof *m->pair_tab},
        {(void **)&m->pairs, m->n_pairs * sizeof *m->pairs},
    };
    /* every array that exists moves, an empty one to a line of its own
     * (the loader allocates at least one element), so that none is left
     * for nv_model_free_hot to miss */
    size_t total = 0;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (*parts[i].arr)
            total += round_up(parts[i].bytes ? parts[i].bytes : 1, LINE);
    if (total < HUGE_PAGE)
        return 0;
    size_t len = round_up(total, HUGE_PAGE);
    /* map one huge page more than needed, then unmap the unaligned ends */
    size_t span = len + HUGE_PAGE;
    char *raw = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return -1; /* the model keeps its arrays where they are */
    char *base = (char *)round_up((uintptr_t)raw, HUGE_PAGE);
    if (base > raw)
        munmap(raw, (size_t)(base - raw));
    if (raw + span > base + len)
        munmap(base + len, (size_t)(raw + span - (base + len)));
    /* before the first touch, so that the copy's faults take huge pages;
     * refused (no THP in this kernel): ordinary pages, same layout */
    (void)madvise(base, len, MADV_HUGEPAGE);
    size_t off = 0;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        if (!*parts[i].arr)
            continue;
        if (parts[i].bytes)
            memcpy(base + off, *parts[i].arr, parts[i].bytes);
        free(*parts[i].arr);
        *parts[i].arr = base + off;
        off += round_up(parts[i].bytes ? parts[i].bytes : 1, LINE);
    }
    m->hot = base;
    m->hot_len = len;
    return 0;
}

void nv_model_free_hot(nv_model *m)
{
    if (!m->hot) {
        free(m->apps);
        free(m->where);
        free(m->sgrid);
        free(m->acurve);
        free(m->profile);
        free(m->pair_tab);
        free(m->pairs);
        return;
    }
    munmap(m->hot, m->hot_len);
    m->hot = NULL;
}

size_t nv_model_hot_bytes(const nv_model *m)
{
    return m && m->hot ? m->hot_len : 0;
}
