/*
 * gen_map.h - pathgen's model: one collective tree that can be built, edited
 * and written back as a pathmap (docs/pathgen.md).
 *
 * The runtime's rt_pathmap_t is read-only and keeps no comments; pathgen
 * needs a tree it can reshape.  This model keeps the wrappers that do work
 * (core, gred, algo) as nodes, and the proxies as *routes* on the edges
 * between them: a contributor (a child node or a thread) reaches its parent
 * node through zero or more proxies, the first on the contributor's host.
 * Moving a node to another host is then a change of its host followed by
 * gen_map_fix_routes, which adds, keeps or drops the proxies the new
 * placement needs.  A gateway (a proxy whose parent is a proxy) is a route
 * of two proxies.
 *
 * Contributors of a node are kept in *thread order*: by the smallest thread
 * id below them (a thread by its own id).  The loader sorts them so; the
 * builders and the edits keep it.  Grouping (adding a level) takes
 * consecutive contributors in this order, and the writer prints subtrees in
 * it, so generating, loading and writing a tree is stable.
 *
 * Pure C: libc, common/ and runtime/api/rt_pathmap.h (to validate what it
 * writes).  Strings are malloc'd and owned by the model;
 * gen_map_destroy frees everything.  Not thread-safe (one tool uses it).
 */
#ifndef GEN_MAP_H
#define GEN_MAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "common/cm_err.h"

#define GEN_NONE UINT32_MAX

typedef enum { GEN_CORE, GEN_GRED, GEN_ALGO } gen_kind_t;

/* One proxy of a route. */
typedef struct gen_proxy {
    char     *name;
    uint32_t  host;
    char     *comment;    /* NULL: the writer prints "HOST -> HOST" */
} gen_proxy_t;

/* A contributor of a node: a child node or a thread, and the proxies on
 * the way up (route[0] on the contributor's host, route[nroute-1] the one
 * whose parent is the node). */
typedef struct gen_contrib {
    int          is_thread;
    uint32_t     id;       /* node index, or thread id */
    uint32_t     host;     /* a thread's host (a node's is nodes[id].host) */
    gen_proxy_t *route;
    uint32_t     nroute;
} gen_contrib_t;

typedef struct gen_node {
    char          *name;
    gen_kind_t     kind;
    uint32_t       host;       /* GEN_NONE for an algorithm node (it spans hosts) */
    uint32_t       parent;     /* GEN_NONE for the root */
    char          *params;     /* further words of its line ("wait=block";
                                  an algo node: "run=ring ..."), or NULL */
    char          *comment;    /* trailing comment, or NULL: the writer
                                  prints "fan-in N" for a gred */
    gen_contrib_t *contribs;   /* in thread order */
    uint32_t       ncontribs, cap;
} gen_node_t;

typedef struct gen_map {
    char      **hosts;         /* host i = rank i */
    uint32_t    nhosts;
    char      **header;        /* comment lines above the file, without "# " */
    uint32_t    nheader;
    char       *tree_name;     /* "sum" */
    char       *tree_params;   /* "type=int32 op=sum" */
    gen_node_t *nodes;
    uint32_t    nnodes, cap;
    uint32_t    root;          /* the core or the algorithm node */
} gen_map_t;

/* ---- gen/gen_map.c: building blocks ------------------------------------ */

gen_map_t *gen_map_create(void);          /* NULL when out of memory */
void       gen_map_destroy(gen_map_t *m); /* NULL allowed */

/* Appends a host, or a header line; return the index / 0 or -1 (no memory). */
uint32_t gen_map_host_add(gen_map_t *m, const char *name);
int      gen_map_header_add(gen_map_t *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The host called `name`, or GEN_NONE. */
uint32_t gen_map_host_find(const gen_map_t *m, const char *name);
/* The label used in wrapper names: "3" for "host3", else the name. */
const char *gen_map_host_label(const gen_map_t *m, uint32_t host);

/* Adds a node without parent; returns its index.  params and comment may
 * be NULL.  The first core or algo node added becomes m->root. */
uint32_t gen_node_add(gen_map_t *m, gen_kind_t kind, const char *name, uint32_t host,
                      const char *params, const char *comment);
/* The node called `name`, or GEN_NONE (proxies are not nodes: see
 * gen_map_find_proxy). */
uint32_t gen_node_find(const gen_map_t *m, const char *name);
/* Finds the proxy called `name`: sets *node_p, *contrib_p (the edge it is
 * on: nodes[*node_p].contribs[*contrib_p]) and *hop_p (its index in the
 * route) and returns 1; 0 if there is none. */
int gen_map_find_proxy(const gen_map_t *m, const char *name, uint32_t *node_p,
                       uint32_t *contrib_p, uint32_t *hop_p);
/* 1 if `name` is taken by a node or a proxy. */
int gen_map_name_used(const gen_map_t *m, const char *name);

/* Makes `parent` the parent of node `child` / of thread `tid` (on `host`),
 * inserted in thread order, with an empty route.  -1 when out of memory. */
int gen_attach_node(gen_map_t *m, uint32_t parent, uint32_t child);
int gen_attach_thread(gen_map_t *m, uint32_t parent, uint32_t tid, uint32_t host);
/* Removes node `child` from its parent's contributors (its route is freed);
 * child->parent becomes GEN_NONE. */
void gen_detach_node(gen_map_t *m, uint32_t child);
/* Removes node `n` (no contributors left, no parent) from the model; every
 * index above n moves down by one (parents, contributors, root). */
void gen_node_remove(gen_map_t *m, uint32_t n);

/* Appends a proxy to a contributor's route (towards the parent). */
int gen_route_push(gen_contrib_t *c, const char *name, uint32_t host, const char *comment);
void gen_route_clear(gen_contrib_t *c);

/* Smallest thread id below a node (for thread order). */
uint32_t gen_node_min_thread(const gen_map_t *m, uint32_t n);
/* The host a contributor sits on (a thread's, or its node's). */
uint32_t gen_contrib_host(const gen_map_t *m, const gen_contrib_t *c);

/* 1 if node n is a *host-subtree* wrapper: a gred whose contributors, all
 * the way down, are on its own host with no proxy on the way.  Other greds
 * (above a proxy, or with a proxy below) belong to the cluster-root part. */
int gen_node_is_host_part(const gen_map_t *m, uint32_t n);

/*
 * Makes every route match the placement: a contributor on its parent's
 * host (or any contributor of an algorithm node) gets no proxy; one on
 * another host keeps its route if the route starts on the contributor's
 * host and ends off the parent's host, and otherwise gets one new proxy on
 * its own host, named by gen_map_proxy_name.  Returns 0, or -1 (no memory).
 */
int gen_map_fix_routes(gen_map_t *m);
/* The name a new proxy carrying contributor c of node `parent` gets: "p<label>"
 * for a thread or a host subtree's top when free, else "p<label>.<child>",
 * else that with ".2", ".3", ... (malloc'd; NULL when out of memory). */
char *gen_map_proxy_name(const gen_map_t *m, uint32_t parent, const gen_contrib_t *c);

/* Wrappers on the longest path from a thread's entry wrapper to the root,
 * proxies included (what pathmap-check prints as the longest path). */
uint32_t gen_map_depth(const gen_map_t *m);
/* Number of threads and of nodes + proxies. */
uint32_t gen_map_nthreads(const gen_map_t *m);
uint32_t gen_map_nwrappers(const gen_map_t *m);

/* ---- gen/gen_read.c: a pathmap file into the model ---------------------- */

/*
 * Parses pathmap text (validated by the runtime's parser first, so every
 * error is the parser's path:line:col one) into a model of its tree
 * `tree` (NULL: the only tree; a file of several trees needs the name).
 * Keeps the header comment block, each line's trailing comment and its
 * further words (params).  Comments that the writer makes itself ("fan-in
 * N", "HOST -> HOST", "rank N") are dropped so that they are made again
 * after an edit.
 */
cm_status_t gen_map_parse(const char *path, const char *text, size_t len, const char *tree,
                          gen_map_t **m_p, cm_err_t *err);
cm_status_t gen_map_load(const char *path, const char *tree, gen_map_t **m_p, cm_err_t *err);

/* ---- gen/gen_write.c: the model as pathmap text ------------------------- */

/*
 * Writes the model in the layout of the sample pathmaps: the header
 * block, host lines ("# rank N"), the tree line, the nodes in depth-first
 * order from the root (a blank line where the host changes; proxies
 * before the subtree they carry; names, hosts and comments in columns),
 * then the thread ranges.  Returns the text (malloc'd, NUL-terminated;
 * NULL when out of memory).
 */
char *gen_map_format(const gen_map_t *m);
/* gen_map_format, then the runtime's parser on the result: CM_OK and the
 * text in *text_p, or the parser's error (a bug in pathgen: what it writes
 * must validate). */
cm_status_t gen_map_render(const gen_map_t *m, char **text_p, cm_err_t *err);

/* ---- gen/gen_compare.c: equality as trees ------------------------------- */

/*
 * 1 if a and b are the same tree up to names and comments: the same
 * number of hosts, type and op, and a one-to-one match of nodes with the
 * same kind, host index and params, the same contributors (threads by id)
 * reached through proxies on the same hosts.  With names != 0 the names
 * of nodes and proxies must be equal too.  When they differ and why is not
 * NULL, writes the first difference found (a sentence naming wrappers of a).
 */
int gen_map_equal(const gen_map_t *a, const gen_map_t *b, int names, char *why, size_t size);

#endif /* GEN_MAP_H */
