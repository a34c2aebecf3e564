/*
 * rt_pathmap.h - a parsed pathmap: hosts, trees of wrappers, thread mappings.
 *
 * A pathmap (docs/pathmap.md) describes collective trees explicitly: which
 * wrappers (core, gred, proxy, algo) exist, on which host each runs, which is its
 * parent, and which computational thread enters which wrapper.  This module
 * parses and validates that text into one read-only model.  It is pure C: no
 * MPI, no threads, no I/O beyond reading the file in rt_pathmap_load.
 *
 * Ownership: rt_pathmap_parse/load allocate one rt_pathmap_t that owns every
 * string and array below (one arena); the caller frees it with
 * rt_pathmap_destroy after every user (thread) is done.  The model is
 * immutable after parsing and may be read by any number of threads.
 *
 * Invariants of a model returned with CM_OK (the validator guarantees them):
 *  - every tree has exactly one root, a core or an algorithm node, and it is
 *    the only node without parent (tree.root);
 *  - following parents from any node reaches the root (no cycles);
 *  - a node's parent is on the same host, except for a proxy, whose parent is
 *    on another host, and for a child of an algorithm node, which is on one
 *    of the node's hosts;
 *  - every gred has at least one contributor; a proxy and a core have exactly
 *    one (a thread or a child wrapper); an algorithm node has exactly one on
 *    each of its hosts (at least two hosts) and none elsewhere;
 *  - a thread enters a wrapper on its own host (an algorithm node: one that
 *    spans its host), is mapped at most once per tree, and sits on the same
 *    host in every tree that maps it;
 *  - every host has at least one wrapper or thread in some tree.
 */
#ifndef RT_PATHMAP_H
#define RT_PATHMAP_H

#include <stddef.h>
#include <stdint.h>
#include "common/cm_err.h"
#include "common/cm_kind.h"
#include "runtime/api/rt_sched.h"

struct rt_auto_cfg;   /* runtime/api/rt_auto.h */

typedef uint32_t rt_node_id_t;    /* index into rt_tree_t.nodes */
typedef uint32_t rt_host_id_t;    /* index into rt_pathmap_t.hosts = MPI rank */
typedef uint32_t rt_thread_id_t;  /* the user's thread number, global */

#define RT_ID_NONE UINT32_MAX

/* Limits enforced by the parser (errors, not truncation). */
#define RT_PATHMAP_LINE_MAX   4095     /* bytes per line, newline excluded */
#define RT_PATHMAP_NAME_MAX   63       /* bytes per name */
#define RT_PATHMAP_HOSTS_MAX  4096
#define RT_PATHMAP_TREES_MAX  64
#define RT_PATHMAP_NODES_MAX  65536    /* per tree */
#define RT_PATHMAP_THREAD_MAX 1048575  /* largest thread id */
#define RT_PATHMAP_BYTES_MAX  (16u << 20)

/* A wrapper's kind: common/cm_kind.h's, under the runtime's names. */
typedef enum {
    RT_NODE_CORE  = CM_KIND_CORE,   /* the root: stores the reduced tuple and returns it */
    RT_NODE_GRED  = CM_KIND_GRED,   /* partial allreduce shared by its contributors */
    RT_NODE_PROXY = CM_KIND_PROXY,  /* forwards to its parent on another host */
    RT_NODE_ALGO  = CM_KIND_ALGO    /* the root, spanning hosts: runs an algorithm */
} rt_node_kind_t;

typedef enum { RT_DTYPE_INT32, RT_DTYPE_INT64, RT_DTYPE_DOUBLE, RT_DTYPE_FLOAT } rt_dtype_t;
typedef enum { RT_OP_SUM, RT_OP_MIN, RT_OP_MAX } rt_op_t;

/* How a gred's waiting contributors wait (docs/pathmap.md, "wait="). */
typedef enum {
    RT_WAIT_AUTO,   /* spin, then yield, then block; budgets from load */
    RT_WAIT_SPIN,   /* spin and yield only, never block */
    RT_WAIT_BLOCK   /* block on a condition variable at once (Figure 2) */
} rt_wait_mode_t;

/* Where a PAP-aware algorithm node takes its hosts' arrival times from
 * (docs/pathmap.md, "arrival="). */
typedef enum {
    RT_ARRIVAL_EQUAL,     /* every host arrives together (all times 0) */
    RT_ARRIVAL_HISTORY,   /* each host's arrival in the instance's previous operation */
    RT_ARRIVAL_EDGE       /* estimated during the computation from edge() (rt_exec.h);
                             falls back to history when a host has no estimate */
} rt_arrival_t;

/*
 * What an algorithm node runs (docs/pathmap.md, "algo").  Its hosts are the
 * hosts of its contributors, in ascending host id: host hosts[i] is rank i
 * of the node's communicator and of its schedules.  `run` is an allreduce
 * of runtime/algo's table, or a reduce completed by `bcast` (a broadcast
 * from the same root), or NULL with `native` (MPI_Allreduce on the node's
 * communicator).  The remaining fields are the rt_algo_params_t the
 * generators read, fixed by the pathmap; count and arrival come per
 * operation.
 */
typedef struct rt_algo_spec {
    const rt_algo_info_t *run;       /* NULL when native */
    const rt_algo_info_t *bcast;     /* run is a reduce: the broadcast after it; else NULL */
    int                   native;    /* MPI_Allreduce across the hosts */
    const rt_host_id_t   *hosts;     /* the participating hosts, ascending */
    uint32_t              nhosts;    /* >= 2 */
    int32_t               root;      /* rooted algorithms: index into hosts[] (root=) */
    int64_t               segcount;  /* segsize= in elements (ring-seg, slt, chain, clv), or 0 */
    int32_t               nsegs;     /* segments=, or 0 */
    int64_t               round_ns;  /* round= (PRR tau, Clairvoyant d), ns; > 0 */
    int32_t               ppn;       /* ppn= (NAP: hosts per node), or 0 */
    rt_port_t             port;      /* port= (greedy-reduce): RT_PORT_U or RT_PORT_B */
    rt_tree_shape_t       shape;     /* shape= (bintree-reduce) */
    rt_arrival_t          arrival;   /* arrival= (PAP-aware algorithms) */
    int                   pap;       /* run or bcast reads arrival times (auto: 1) */
    const struct rt_auto_cfg *autocfg; /* run=auto: the chooser's configuration; else NULL */
} rt_algo_spec_t;

/* The default round length of PRR and Clairvoyant when round= is absent. */
#define RT_ALGO_ROUND_NS_DEFAULT 5000

typedef struct rt_node {
    const char     *name;
    rt_node_kind_t  kind;
    rt_host_id_t    host;        /* algo: its first host (algo->hosts[0]) */
    rt_node_id_t    parent;      /* RT_ID_NONE for the root */
    uint32_t        nchildren;   /* child wrappers */
    uint32_t        nthreads;    /* threads entering this node */
    uint32_t        depth;       /* 0 for the root, parent's + 1 otherwise */
    rt_wait_mode_t  wait;        /* gred only */
    const rt_algo_spec_t *algo;  /* algo only; NULL for the other kinds */
    unsigned        line, col;   /* where it was declared */
} rt_node_t;

typedef struct rt_thread_map {
    rt_thread_id_t  id;
    rt_host_id_t    host;
    rt_node_id_t    enter;       /* the first wrapper on its path */
    unsigned        line, col;
} rt_thread_map_t;

typedef struct rt_tree {
    const char      *name;
    rt_dtype_t       dtype;
    rt_op_t          op;
    rt_node_t       *nodes;
    uint32_t         nnodes;
    rt_node_id_t     root;       /* the core, or the algorithm node */
    rt_thread_map_t *threads;    /* sorted by thread id */
    uint32_t         nthreads;
    unsigned         line;       /* the 'tree' line */
} rt_tree_t;

typedef struct rt_host {
    const char *name;
    unsigned    line;
} rt_host_t;

typedef struct rt_pathmap {
    const char *path;            /* as given to the parser */
    const char *text;            /* the whole file, NUL-terminated */
    size_t      len;
    uint64_t    hash;            /* FNV-1a 64 of text[0..len) */
    rt_host_t  *hosts;           /* in declaration order: host i = rank i */
    uint32_t    nhosts;
    rt_tree_t  *trees;
    uint32_t    ntrees;
    void       *arena;           /* private */
} rt_pathmap_t;

/*
 * Parses and validates `len` bytes of pathmap text.  `path` is used in error
 * locations only.  On success *pm_p owns a copy of the text.  On failure
 * *pm_p is untouched and err holds the first error found.
 */
cm_status_t rt_pathmap_parse(const char *path, const char *text, size_t len,
                             rt_pathmap_t **pm_p, cm_err_t *err);

/* Reads the file at `path` and parses it (CM_ERR_IO if it cannot be read). */
cm_status_t rt_pathmap_load(const char *path, rt_pathmap_t **pm_p,
                            cm_err_t *err);

/* Frees everything rt_pathmap_parse allocated.  NULL is allowed. */
void rt_pathmap_destroy(rt_pathmap_t *pm);

/* The tree called `name`, or the first tree when name is NULL; NULL if none. */
const rt_tree_t *rt_pathmap_tree(const rt_pathmap_t *pm, const char *name);

/* Number of wrappers from the thread's entry wrapper to the root, inclusive. */
uint32_t rt_tree_path_len(const rt_tree_t *tree, const rt_thread_map_t *thread);

/* Contributions a node waits for per operation: child wrappers + threads. */
static inline uint32_t rt_node_fanin(const rt_node_t *node)
{
    return node->nchildren + node->nthreads;
}

/* The tree's algorithm node (its root), or NULL when its root is a core. */
static inline const rt_node_t *rt_tree_algo(const rt_tree_t *tree)
{
    return tree->nodes[tree->root].kind == RT_NODE_ALGO ? &tree->nodes[tree->root] : NULL;
}

/* The index of `host` among an algorithm node's hosts (its rank in the
   node's communicator), or -1 if the node does not span it. */
int32_t rt_algo_host_index(const rt_algo_spec_t *spec, rt_host_id_t host);

/*
 * 1 if spec's run or bcast generator reads the algo-line parameter `key`
 * ("root", "segments", "segsize", "round", "ppn", "port", "shape",
 * "arrival"), as the `params` words of runtime/algo's table say; 0 for any
 * other key and for native.  For auto: 1 for "arrival" and for a key that
 * one of its candidates takes, and for "candidates".  The rule that makes the pathmap refuse a
 * parameter its algorithm ignores; the --algo rules of the profiling
 * library (interpose/api/ip_rules.h) apply it too.
 */
int rt_algo_takes(const rt_algo_spec_t *spec, const char *key);

/* What an algorithm node runs, as run= says: "auto", "native" or the table row's name. */
const char *rt_algo_spec_name(const rt_algo_spec_t *spec);

/* Names for printing: "core", "gred", "proxy", "algo" (cm_kind_name); "int32", ...; "sum", ... */
/*
 * The bytes of tuple buffers that rt_exec_create allocates on `host` for
 * `ninstances` instances of `tree` with tuples of up to `max_bytes`: per
 * instance, each gred's accumulator and result (rounded up to 64 bytes),
 * the core's store, and an in and an out buffer for each proxy link served
 * there (a proxy whose parent is on `host`).  Programs check it against the
 * machine's memory before they start (gsum).
 */
uint64_t rt_tree_tuple_bytes(const rt_tree_t *tree, rt_host_id_t host, unsigned ninstances,
                             size_t max_bytes);

const char *rt_node_kind_name(rt_node_kind_t kind);
/* "equal", "history" or "edge", as arrival= spells them. */
const char *rt_arrival_name(rt_arrival_t arrival);
const char *rt_dtype_name(rt_dtype_t dtype);
const char *rt_op_name(rt_op_t op);
size_t      rt_dtype_size(rt_dtype_t dtype);

/* FNV-1a 64-bit hash, used to check that every rank parsed the same text. */
uint64_t rt_hash_fnv1a(const void *data, size_t len);

#endif /* RT_PATHMAP_H */
