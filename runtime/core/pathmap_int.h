/*
 * pathmap_int.h - private to runtime/core: the builder that the parser fills
 * line by line and the checker (pathmap_check.c) turns into rt_tree_t's.
 *
 * Names of parents and entry wrappers may refer forward, so they are kept
 * as text until the tree they belong to ends; pm_tree_finish then resolves
 * and validates the whole tree at once.
 */
#ifndef PATHMAP_INT_H
#define PATHMAP_INT_H

#include <stdbool.h>
#include "runtime/api/rt_pathmap.h"
#include "common/cm_arena.h"
#include "common/cm_strmap.h"

#define RT_PATHMAP_THREADS_MAX 65536   /* thread mappings per tree */

typedef struct pm_ref {          /* a name to resolve later */
    const char *name;            /* NULL when the parameter was absent */
    unsigned    col;
} pm_ref_t;

/* What an algo line fixed that can be checked only once the tree's
 * contributors are known (pathmap_check.c, ck_algo). */
typedef struct pm_algo_build {
    rt_algo_spec_t *spec;        /* in the arena; hosts filled by ck_algo */
    rt_host_id_t    root_host;   /* root=, or RT_ID_NONE for the default */
    unsigned        root_col;    /* column of root='s value, 0 if absent */
    unsigned        ppn_col;     /* column of ppn='s value, 0 if absent */
} pm_algo_build_t;

typedef struct pm_node_build {
    rt_node_t       node;
    pm_ref_t        parent;
    pm_algo_build_t algo;        /* algo nodes only */
} pm_node_build_t;

typedef struct pm_thread_build {
    rt_thread_map_t map;
    pm_ref_t        enter;
} pm_thread_build_t;

typedef struct pm_tree_build {
    rt_tree_t          tree;
    pm_node_build_t   *nodes;
    uint32_t           nnodes, cap_nodes;
    pm_thread_build_t *threads;
    uint32_t           nthreads, cap_threads;
    cm_strmap_t        names;    /* node name -> index */
} pm_tree_build_t;

typedef struct pm_thread_seen {  /* where a thread id was first mapped */
    uint32_t host_plus1;         /* 0 = never mapped */
    uint32_t tree;
    unsigned line;
} pm_thread_seen_t;

typedef struct pm_builder {
    const char       *path;
    cm_arena_t       *arena;
    rt_host_t        *hosts;
    uint32_t          nhosts, cap_hosts;
    cm_strmap_t       host_names;
    bool             *host_used;     /* [cap_hosts] */
    rt_tree_t        *trees;         /* [RT_PATHMAP_TREES_MAX] */
    uint32_t          ntrees;
    cm_strmap_t       tree_names;
    bool              in_tree;
    pm_tree_build_t   cur;
    pm_thread_seen_t *seen;          /* indexed by thread id */
    uint32_t          cap_seen;
} pm_builder_t;

/* Resolves and validates b->cur, then appends it to b->trees. */
cm_status_t pm_tree_finish(pm_builder_t *b, cm_err_t *err);

/* Checks that apply to the whole file once every tree is finished. */
cm_status_t pm_pathmap_finish(pm_builder_t *b, cm_err_t *err);

#endif /* PATHMAP_INT_H */
