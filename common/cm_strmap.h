/*
 * cm_strmap.h - a map from borrowed strings to 32-bit values.
 *
 * Open addressing with linear probing; the keys are not copied (the caller
 * keeps them alive, typically in an arena).  Used to find hosts and nodes by
 * name in O(1) so that a pathmap with 65536 nodes validates in linear time.
 */
#ifndef CM_STRMAP_H
#define CM_STRMAP_H

#include <stddef.h>
#include <stdint.h>
#include "common/cm_status.h"

typedef struct cm_strmap {
    const char **keys;
    size_t      *lens;
    uint32_t    *values;
    size_t       capacity;   /* power of two, or 0 */
    size_t       count;
} cm_strmap_t;

void cm_strmap_init(cm_strmap_t *map);
void cm_strmap_cleanup(cm_strmap_t *map);

/* Looks key[0..len) up: CM_OK and *value_p, or CM_ERR_NAME if absent. */
cm_status_t cm_strmap_get(const cm_strmap_t *map, const char *key, size_t len,
                          uint32_t *value_p);

/* Inserts a new key; CM_ERR_NAME if present (value untouched), CM_ERR_NOMEM. */
cm_status_t cm_strmap_put(cm_strmap_t *map, const char *key, size_t len,
                          uint32_t value);

#endif /* CM_STRMAP_H */
