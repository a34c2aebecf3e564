/*
 * tree.c - read-only helpers over a parsed pathmap (rt_pathmap.h).
 */
#include <string.h>
#include "runtime/api/rt_pathmap.h"
#include "common/cm_arena.h"
#include "common/cm_hash.h"

void rt_pathmap_destroy(rt_pathmap_t *pm)
{
    if (pm != NULL)
        cm_arena_destroy(pm->arena);   /* pm itself lives in the arena */
}

const rt_tree_t *rt_pathmap_tree(const rt_pathmap_t *pm, const char *name)
{
    if (pm->ntrees == 0)
        return NULL;
    if (name == NULL)
        return &pm->trees[0];
    for (uint32_t i = 0; i < pm->ntrees; i++) {
        if (strcmp(pm->trees[i].name, name) == 0)
            return &pm->trees[i];
    }
    return NULL;
}

uint32_t rt_tree_path_len(const rt_tree_t *tree, const rt_thread_map_t *thread)
{
    return tree->nodes[thread->enter].depth + 1;
}

uint64_t rt_tree_tuple_bytes(const rt_tree_t *tree, rt_host_id_t host, unsigned ninstances,
                             size_t max_bytes)
{
    uint64_t tuple = max_bytes, rounded = (tuple + 63) & ~(uint64_t)63, per = 0;

    for (uint32_t i = 0; i < tree->nnodes; i++) {
        const rt_node_t *n = &tree->nodes[i];

        if (n->host == host && n->kind == RT_NODE_GRED)
            per += 2 * (rounded ? rounded : 64);     /* rt_gred_init */
        else if (n->host == host && n->kind == RT_NODE_CORE)
            per += tuple;                            /* the core's store */
        else if (n->kind == RT_NODE_PROXY && n->host != host &&
                 tree->nodes[n->parent].host == host)
            per += 2 * tuple;                        /* a service's in and out */
    }
    return per * ninstances;
}

const char *rt_node_kind_name(rt_node_kind_t kind)
{
    return cm_kind_name((cm_kind_t)kind);
}

const char *rt_dtype_name(rt_dtype_t dtype)
{
    switch (dtype) {
    case RT_DTYPE_INT32:  return "int32";
    case RT_DTYPE_INT64:  return "int64";
    case RT_DTYPE_DOUBLE: return "double";
    case RT_DTYPE_FLOAT:  return "float";
    }
    return "?";
}

const char *rt_arrival_name(rt_arrival_t arrival)
{
    switch (arrival) {
    case RT_ARRIVAL_EQUAL:   return "equal";
    case RT_ARRIVAL_HISTORY: return "history";
    case RT_ARRIVAL_EDGE:    return "edge";
    }
    return "?";
}

size_t rt_dtype_size(rt_dtype_t dtype)
{
    return dtype == RT_DTYPE_INT32 || dtype == RT_DTYPE_FLOAT ? 4 : 8;
}

const char *rt_op_name(rt_op_t op)
{
    switch (op) {
    case RT_OP_SUM: return "sum";
    case RT_OP_MIN: return "min";
    case RT_OP_MAX: return "max";
    }
    return "?";
}

uint64_t rt_hash_fnv1a(const void *data, size_t len)
{
    return cm_hash_fnv1a(data, len);
}

int32_t rt_algo_host_index(const rt_algo_spec_t *spec, rt_host_id_t host)
{
    uint32_t lo = 0, hi = spec->nhosts;

    while (lo < hi) {                    /* hosts[] is ascending */
        uint32_t mid = lo + (hi - lo) / 2;

        if (spec->hosts[mid] == host)
            return (int32_t)mid;
        if (spec->hosts[mid] < host)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}
