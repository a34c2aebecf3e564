/*
 * cm_strmap.c - see cm_strmap.h.  The table is kept at most half full.
 */
#include <stdlib.h>
#include <string.h>
#include "common/cm_hash.h"
#include "common/cm_strmap.h"

static uint64_t strmap_hash(const char *key, size_t len)
{
    return cm_hash_fnv1a(key, len);
}

void cm_strmap_init(cm_strmap_t *map)
{
    memset(map, 0, sizeof(*map));
}

void cm_strmap_cleanup(cm_strmap_t *map)
{
    free(map->keys);
    free(map->lens);
    free(map->values);
    cm_strmap_init(map);
}

/* The slot holding key, or the empty slot where it would go. */
static size_t strmap_slot(const cm_strmap_t *map, const char *key, size_t len)
{
    size_t mask = map->capacity - 1;
    size_t i = (size_t)strmap_hash(key, len) & mask;

    while (map->keys[i] != NULL &&
           (map->lens[i] != len || memcmp(map->keys[i], key, len) != 0))
        i = (i + 1) & mask;
    return i;
}

cm_status_t cm_strmap_get(const cm_strmap_t *map, const char *key, size_t len,
                          uint32_t *value_p)
{
    size_t i;

    if (map->capacity == 0)
        return CM_ERR_NAME;
    i = strmap_slot(map, key, len);
    if (map->keys[i] == NULL)
        return CM_ERR_NAME;
    *value_p = map->values[i];
    return CM_OK;
}

static cm_status_t strmap_grow(cm_strmap_t *map)
{
    cm_strmap_t bigger;

    bigger.capacity = map->capacity ? map->capacity * 2 : 16;
    bigger.count = 0;
    bigger.keys = calloc(bigger.capacity, sizeof(*bigger.keys));
    bigger.lens = calloc(bigger.capacity, sizeof(*bigger.lens));
    bigger.values = calloc(bigger.capacity, sizeof(*bigger.values));
    if (!bigger.keys || !bigger.lens || !bigger.values) {
        cm_strmap_cleanup(&bigger);
        return CM_ERR_NOMEM;
    }
    for (size_t i = 0; i < map->capacity; i++) {
        if (map->keys[i] != NULL) {
            size_t j = strmap_slot(&bigger, map->keys[i], map->lens[i]);
            bigger.keys[j] = map->keys[i];
            bigger.lens[j] = map->lens[i];
            bigger.values[j] = map->values[i];
            bigger.count++;
        }
    }
    cm_strmap_cleanup(map);
    *map = bigger;
    return CM_OK;
}

cm_status_t cm_strmap_put(cm_strmap_t *map, const char *key, size_t len,
                          uint32_t value)
{
    size_t i;

    if ((map->count + 1) * 2 > map->capacity && strmap_grow(map) != CM_OK)
        return CM_ERR_NOMEM;
    i = strmap_slot(map, key, len);
    if (map->keys[i] != NULL)
        return CM_ERR_NAME;
    map->keys[i] = key;
    map->lens[i] = len;
    map->values[i] = value;
    map->count++;
    return CM_OK;
}
