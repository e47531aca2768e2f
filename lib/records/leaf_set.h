/* leaf_set.h - a set of leaf switches as 256 bits, one per hashed name.
 *
 * Two placements share a leaf's uplink only if they name a common leaf
 * switch (predict.h, the paths).  job_submit asks that for every running
 * app beside a newcomer whose nodes it knows, so each side's leaves are a
 * fixed-size set: a name sets one bit (FNV-1a of its bytes, folded to 8
 * bits), and two sets with no common bit have no common leaf.  A common
 * bit may be two different leaves (about 1 in 16 for two jobs of 4 leaves
 * each): the answer is then the one for a shared uplink, as without the
 * set, never a wrong 0 %.  A set with every bit set stands for "unknown". */
#ifndef NETVAR_LEAF_SET_H
#define NETVAR_LEAF_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NV_LEAF_SET_WORDS 4

typedef struct nv_leaf_set {
    uint64_t w[NV_LEAF_SET_WORDS];
} nv_leaf_set;

static inline unsigned nv_leaf_bit(const char *name, size_t len)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)name[i];
        h *= 16777619u;
    }
    h ^= h >> 16;
    return (h ^ (h >> 8)) & 0xff;
}

static inline void nv_leaf_set_add(nv_leaf_set *s, const char *name, size_t len)
{
    unsigned b = nv_leaf_bit(name, len);
    s->w[b >> 6] |= (uint64_t)1 << (b & 63);
}

/* every name of a comma-separated list ("s1,s2"); empty names are skipped */
static inline void nv_leaf_set_add_list(nv_leaf_set *s, const char *list)
{
    while (list && *list) {
        size_t n = 0;
        while (list[n] && list[n] != ',')
            n++;
        if (n)
            nv_leaf_set_add(s, list, n);
        list += n + (list[n] == ',');
    }
}

static inline void nv_leaf_set_fill(nv_leaf_set *s)
{
    for (int i = 0; i < NV_LEAF_SET_WORDS; i++)
        s->w[i] = ~(uint64_t)0;
}

static inline bool nv_leaf_set_meets(const nv_leaf_set *a, const nv_leaf_set *b)
{
    uint64_t x = 0;
    for (int i = 0; i < NV_LEAF_SET_WORDS; i++)
        x |= a->w[i] & b->w[i];
    return x != 0;
}

#endif
