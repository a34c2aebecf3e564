/*
 * an_model.h - what papviz draws: plain structs read from an analysis
 * database (docs/analysis-db.md), or built from a pathmap.
 *
 * analyze/ owns all SQL; viz/ sees only this header.  A model is a snapshot
 * of one database: the tree (hosts, wrappers, threads) and, per tuple size,
 * each thread's stages and each wrapper's statistics.  Larger pieces (a
 * gred's order matrix, departure curves, arrival patterns) are read on
 * demand with the an_model_* functions below, which keep the database open.
 *
 * Units: every time is in nanoseconds, as in the database.  Numbering: node
 * = the wrapper's index in pathmap order (wrappers[node]), thread = the
 * pathmap's thread number, host = the pathmap's host index (MPI rank).
 *
 * Ownership: an_model_open allocates one an_model_t that owns every string
 * and array reachable from it, including what the on-demand functions return
 * (they are cached: asking twice returns the same pointer).  an_model_close
 * frees it all.  Not thread-safe.
 */
#ifndef AN_MODEL_H
#define AN_MODEL_H

#include <stdint.h>
#include "common/cm_err.h"
#include "common/cm_kind.h"

/* Summary of one series (a row of the stats table); n = 0: no such series. */
typedef struct an_model_stat {
    int64_t n;
    double  mean, median, stdev, min, max, p10, p90;
} an_model_stat_t;

/* Wrapper kinds: common/cm_kind.h's, and one of the model's own: a kind the
 * model does not know is AN_KIND_OTHER (kind_name says which). */
typedef enum {
    AN_KIND_CORE  = CM_KIND_CORE,
    AN_KIND_GRED  = CM_KIND_GRED,
    AN_KIND_PROXY = CM_KIND_PROXY,
    AN_KIND_ALGO  = CM_KIND_ALGO,   /* spans hosts, runs a named algorithm */
    AN_KIND_OTHER = CM_KIND_COUNT
} an_model_kind_t;

typedef struct an_model_host {
    int         host;
    const char *name;        /* pathmap name */
    const char *hostname;    /* machine name; "" when built from a pathmap */
} an_model_host_t;

typedef struct an_model_wrapper {
    int             node;
    const char     *name;
    an_model_kind_t kind;
    const char     *kind_name;   /* "gred", "proxy", "core", ... */
    int             host;
    int             parent;      /* -1 for the core */
    int             level;       /* 0 for the core */
    int             fanin;       /* contributors: child wrappers + threads */
    int             nhosts;      /* hosts of the threads below it */
    const char     *part;        /* "host", "cluster", "proxy", "core" ("" from a pathmap) */
    int             line;        /* pathmap line that declares it */
} an_model_wrapper_t;

typedef struct an_model_thread {
    int thread;
    int host;
    int enter;       /* entry wrapper (node) */
    int nproxies;    /* proxies on its path */
    int nstages;     /* wrappers on its path, entry to core */
} an_model_thread_t;

/* One collective tree: the hosts, its wrappers (index = node) and threads. */
typedef struct an_model_tree {
    const char         *name;       /* tree name in the pathmap */
    an_model_host_t    *hosts;      /* index = host */
    int                 nhosts;
    an_model_wrapper_t *wrappers;   /* index = node */
    int                 nwrappers;
    an_model_thread_t  *threads;    /* sorted by thread number */
    int                 nthreads;
} an_model_tree_t;

/* Stage kinds of a thread's path (docs/analysis-db.md, "Stages of a thread"). */
typedef enum {
    AN_STAGE_ARRIVAL_WAIT,     /* gred, down path */
    AN_STAGE_DOWN,             /* gred and proxy, down path */
    AN_STAGE_LATENCY,          /* the core (drawn on the down path) */
    AN_STAGE_UP,               /* gred and proxy, up path */
    AN_STAGE_DEPARTURE_WAIT    /* gred, up path */
} an_model_stage_kind_t;

/* One stage of a thread's path: the thread_stages view, one row. */
typedef struct an_model_stage {
    int                   step;    /* 0 = entry wrapper ... nstages-1 = core */
    int                   node;
    an_model_stage_kind_t kind;
    const char           *name;    /* "down", "arrival_wait", "latency", "up", "departure_wait" */
    int                   up;      /* 1 on the up path (up, departure_wait) */
    an_model_stat_t       s;
} an_model_stage_t;

/* A thread's stages in the order the thread lives them (thread_stages.seq):
 * the down path from the entry wrapper (arrival wait, then down, per gred),
 * the core, then the up path back to the entry wrapper (up, then departure
 * wait).  The stage means add up to total.mean. */
typedef struct an_model_path {
    int               thread;
    an_model_stage_t *stages;
    int               nstages;
    an_model_stat_t   total;          /* time per allreduce, t4 - t1 at the entry */
    an_model_stat_t   total_no_wait;  /* total minus the arrival waits */
} an_model_path_t;

/* Statistics of a wrapper over its visits (stats scope 'wrapper'); n = 0
 * where the metric does not apply to the wrapper's kind. */
typedef struct an_model_wstats {
    an_model_stat_t down, up, latency, arrival_wait, departure_wait;
} an_model_wstats_t;

/* Everything loaded eagerly for one tuple size. */
typedef struct an_model_size {
    int64_t            bytes;
    int64_t            ops_used;   /* operations in the statistics */
    an_model_path_t   *paths;      /* index i = tree.threads[i] */
    an_model_wstats_t *wstats;     /* index = node */
} an_model_size_t;

/* A gred's (or subtree's) arrival order x departure order distribution:
 * count[(a - 1) * n + (d - 1)] operations in which the a-th arrival departed
 * d-th, summed over contributors (Table 1); percent = of the arrival row. */
typedef struct an_model_orders {
    int      node;
    int      n;           /* contributors (fanin, or threads of a subtree) */
    int64_t *count;
    double  *percent;
    int64_t  ops;         /* operations counted */
} an_model_orders_t;

/* Up latency plus departure wait by departure order (the paper's Figures 10,
 * 16, 21): up = mean up latency, wait[k] = mean departure wait of the
 * (k+1)-th departure, k = 0 .. n-1 (wait[0] = 0). */
typedef struct an_model_departures {
    int     node;
    int     subtree;      /* 1: the subtree rooted at node (threads), 0: the gred */
    int     n;
    double  up;
    double *wait;
    int64_t ops;
} an_model_departures_t;

/* Arrival pattern of one thread or host: means over the used operations of
 * a (arrival) and e (elapsed = f - a), relative to each operation's first
 * arrival (ops.t0); Proficz 2018, Figure 1. */
typedef struct an_model_pap_row {
    int    id;            /* thread or host */
    int    host;
    double a, e;
} an_model_pap_row_t;

typedef struct an_model_pap {
    an_model_pap_row_t *threads;      /* by thread number */
    int                 nthreads;
    an_model_pap_row_t *hosts;        /* hosts with threads, by host */
    int                 nhosts;
    double             *avg_elapsed;  /* per used operation, ascending */
    int64_t             nops;
    an_model_stat_t     avg_elapsed_s, arrival_spread_s, host_spread_s, imbalance_s;
    double              p2p_ns;       /* < 0: none */
} an_model_pap_t;

typedef struct an_model {
    const char      *db;            /* path as given */
    const char      *trace;         /* meta trace */
    const char      *pathmap_path;  /* meta pathmap_path */
    const char      *pathmap;       /* meta pathmap (the text) */
    const char      *command;       /* meta command (the traced command line) */
    an_model_tree_t  tree;
    an_model_size_t *sizes;         /* ascending bytes */
    int              nsizes;
    void            *priv;          /* private: database handle, arena, caches */
} an_model_t;

/* Opens a database written by papanalyze and loads tree and sizes.  Errors
 * (CM_ERR_IO: cannot open, not a papanalyze database, unknown schema) name
 * the path.  On failure *m_p is untouched. */
cm_status_t an_model_open(const char *db, an_model_t **m_p, cm_err_t *err);

/* Frees the model and everything it handed out.  NULL is allowed. */
void an_model_close(an_model_t *m);

/* The size with `bytes`, or the smallest when bytes < 0; NULL if none. */
const an_model_size_t *an_model_size(const an_model_t *m, int64_t bytes);

/* Index into tree.threads of thread number `thread`, or -1. */
int an_model_thread_index(const an_model_tree_t *t, int thread);

/* The wrapper called `name`, or -1. */
int an_model_node_by_name(const an_model_tree_t *t, const char *name);

/* Order distribution of gred `node` (subtree = 0: its contributors, from the
 * orders table; subtree = 1: the threads below it, from subtree_orders).
 * CM_ERR_INVALID when node is not a gred (subtree = 0) or has no data. */
cm_status_t an_model_orders(an_model_t *m, int64_t bytes, int node, int subtree,
                            const an_model_orders_t **o_p, cm_err_t *err);

/* Departure curve of gred `node` (subtree = 0) or of the subtree rooted at
 * `node` (a gred or the core; subtree = 1). */
cm_status_t an_model_departures(an_model_t *m, int64_t bytes, int node, int subtree,
                                const an_model_departures_t **d_p, cm_err_t *err);

/* Arrival pattern of the used operations of one tuple size. */
cm_status_t an_model_pap(an_model_t *m, int64_t bytes, const an_model_pap_t **p_p,
                         cm_err_t *err);

/* A tree without statistics, for `papviz tree PATHMAP`: an empty model whose
 * tree the caller fills with an_model_tree_alloc (the pathmap parser lives
 * in runtime/, which analyze/ does not see).  Strings passed to
 * an_model_strdup are copied into the model. */
an_model_t *an_model_create(void);
cm_status_t an_model_tree_alloc(an_model_t *m, int nhosts, int nwrappers, int nthreads);
const char *an_model_strdup(an_model_t *m, const char *s);

#endif /* AN_MODEL_H */
