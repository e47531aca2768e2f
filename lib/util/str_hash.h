/* str_hash.h - the one string hash netvar's open-addressing tables use:
 * 64-bit FNV-1a over a C string's bytes.  Model keys, topology node
 * names, training keys and replay leaf names are hashed by it; a table
 * masks or reduces the value itself. */
#ifndef NV_STR_HASH_H
#define NV_STR_HASH_H

#include <stdint.h>

static inline uint64_t nv_str_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    return h;
}

#endif
