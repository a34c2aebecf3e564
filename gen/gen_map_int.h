/*
 * gen_map_int.h - what gen/'s own files share beyond gen/api/gen_map.h (not an
 * interface for the other layers): thread order computed for the whole
 * model in one pass, for the reader (which sorts once instead of
 * inserting in order) and the comparison (which trusts no order).
 */
#ifndef GEN_MAP_INT_H
#define GEN_MAP_INT_H

#include <stdint.h>
#include "gen/api/gen_map.h"

/* min[n]: the smallest thread id below node n (GEN_NONE: none), for every
 * node; children before parents, so linear in the model's size.  malloc'd;
 * NULL when out of memory. */
uint32_t *gen_map_min_threads(const gen_map_t *m);

/* Appends contributor c (route and all, taken over) to node `parent`,
 * without ordering; a node contributor's parent becomes `parent`. */
int gen_contrib_append(gen_map_t *m, uint32_t parent, const gen_contrib_t *c);

/* Makes room for one more contributor of node n (nothing changes when
 * it fails).  0, or -1 when out of memory. */
int gen_contribs_reserve(gen_node_t *n);

/* Puts every node's contributors in thread order (ties: as they were).
 * 0, or -1 when out of memory. */
int gen_map_sort_contribs(gen_map_t *m);

#endif /* GEN_MAP_INT_H */
