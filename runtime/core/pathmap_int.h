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
#include <string.h>
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

/* ---- the reader's parts: pathmap_lex.c, pathmap_parse.c, pathmap_algo.c ---- */

#define PM_TOKENS_MAX (RT_PATHMAP_LINE_MAX / 2 + 1)

typedef struct pm_tok {
    const char *s;
    uint32_t    len;
    unsigned    col;
} pm_tok_t;

typedef struct pm_line {
    unsigned  lineno;
    pm_tok_t *toks;
    uint32_t  ntoks;
} pm_line_t;

/* One key=value parameter of a statement, split at the '='. */
typedef struct pm_param {
    pm_tok_t key;
    pm_tok_t value;
} pm_param_t;

static inline bool tok_is(const pm_tok_t *tok, const char *word)
{
    return tok->len == strlen(word) && memcmp(tok->s, word, tok->len) == 0;
}

#define PM_FAIL(b, err, st, line, col, ...)                                 \
    cm_err_set((err), (st), (b)->path, (line), (col), __FILE__, __LINE__,   \
               __VA_ARGS__)

/* pathmap_lex.c: a line's bytes into tokens, names, numbers, parameters. */
cm_status_t pm_line_split(pm_builder_t *b, const char *s, size_t len,
                          pm_line_t *line, cm_err_t *err);
cm_status_t pm_check_name(pm_builder_t *b, const pm_tok_t *tok,
                          unsigned lineno, cm_err_t *err);
cm_status_t pm_params(pm_builder_t *b, const pm_line_t *line,
                      uint32_t first, const char *const *allowed,
                      const char *stmt, pm_param_t *out,
                      uint32_t *nout_p, cm_err_t *err);
const pm_param_t *pm_param_find(const pm_param_t *params, uint32_t n,
                                const char *key);
cm_status_t pm_number(pm_builder_t *b, const char *s, uint32_t len,
                      unsigned lineno, unsigned col, uint32_t *value_p,
                      cm_err_t *err);
cm_status_t pm_host_ref(pm_builder_t *b, const pm_line_t *line,
                        const pm_param_t *p, const char *stmt,
                        rt_host_id_t *host_p, cm_err_t *err);
char *pm_strdup(pm_builder_t *b, const pm_tok_t *tok);
cm_status_t pm_reserve(void **array, uint32_t *cap, uint32_t n, size_t elem);

/* pathmap_parse.c: a node's wait= parameter (gred lines and, to refuse
 * it, algo lines). */
cm_status_t pm_wait_param(pm_builder_t *b, const pm_line_t *line,
                          const pm_param_t *p, rt_node_t *node,
                          cm_err_t *err);

/* pathmap_algo.c: the parameters of an algo line into nb->algo. */
cm_status_t pm_algo_params(pm_builder_t *b, const pm_line_t *line,
                           const pm_param_t *params, uint32_t nparams,
                           pm_node_build_t *nb, cm_err_t *err);

#endif /* PATHMAP_INT_H */
