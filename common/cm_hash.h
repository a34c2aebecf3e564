/*
 * cm_hash.h - FNV-1a, 64 bits: small, fast on short keys, and stable across
 * machines (rt_pathmap uses it to check that every rank read the same text).
 */
#ifndef CM_HASH_H
#define CM_HASH_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t cm_hash_fnv1a(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = 14695981039346656037ull;      /* offset basis */

    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 1099511628211ull;                 /* FNV prime */
    }
    return h;
}

#endif /* CM_HASH_H */
