/*
 * an_model.h - what papviz draws: plain structs read from an analysis
 * database (docs/analysis-db.md), or built from a pathmap.
 *
 * analyze/ owns all SQL; viz/ sees only this header.  A model is a snapshot
 * of one database: the tree (hosts, wrappers, threads) and, per tuple size,
 * each thread's stages and each wrapper's statistics.  Larger pieces (a
 * gred's order matrix, departure curves, arrival patterns) are read on
 * demand with the an_model_* functions below, which keep the database open;
 * so are an algorithm node's operations and schedules (an_model_algo_ops,
 * an_model_schedule), what the `schedule` chart draws.
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

/* What an algorithm node runs and the hosts it joins (the trace's region
 * description keys algo/bcast/root/arrival/hosts; docs/analysis-db.md,
 * table algo_nodes).  Rank i of the node is the i-th of its hosts,
 * ascending. */
typedef struct an_model_algo {
    const char *algo;        /* run=: "rd", "prr", ..., "native" */
    const char *bcast;       /* the broadcast after a reduce; "" if none */
    const char *arrival;     /* "equal", "history" or "edge" */
    int         root;        /* rooted algorithms: the root's rank in the node; -1 */
    int         nranks;      /* hosts it spans */
    int        *hosts;       /* [nranks]: rank in the node -> host */
} an_model_algo_t;

typedef struct an_model_wrapper {
    int             node;
    const char     *name;
    an_model_kind_t kind;
    const char     *kind_name;   /* "gred", "proxy", "core", ... */
    int             host;        /* an algorithm node: the host of its rank 0 */
    int             parent;      /* -1 for the root (the core or an algorithm node) */
    int             level;       /* 0 for the root */
    int             fanin;       /* contributors: child wrappers + threads */
    int             nhosts;      /* hosts of the threads below it */
    const char     *part;        /* "host", "cluster", "proxy", "core" ("" from a pathmap) */
    int             line;        /* pathmap line that declares it */
    an_model_algo_t *algo;       /* kind AN_KIND_ALGO: what it runs; NULL otherwise */
} an_model_wrapper_t;

typedef struct an_model_thread {
    int thread;
    int host;
    int enter;       /* entry wrapper (node) */
    int nproxies;    /* proxies on its path */
    int nstages;     /* wrappers on its path, entry to the root (core or algo) */
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
    AN_STAGE_LATENCY,          /* the root: core, or the host's visit of the
                                * algorithm node (drawn on the down path) */
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
    int                fastest;    /* thread numbers, as papanalyze's report ranks */
    int                slowest;    /*   them (mean time without arrival waits); -1: none */
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

/*
 * ---- algorithm nodes: one operation's schedule as the hosts lived it ----
 *
 * Per host (rank of the node): t1 and t4 at the node (Proficz's a_i and f_i;
 * e_i = t4 - t1 is the host's latency at the node), and per round of the
 * schedule the span of its messages; per message the four MPI events.  All
 * times are ns relative to t0, the operation's first arrival at the node
 * (the smallest t1 of its hosts).  docs/analysis-db.md: algo_visits,
 * algo_msgs, algo_rounds.
 */

/* One message: sent by rank src in its step send_step, received by dst. */
typedef struct an_model_msg {
    int     round;                /* the schedule's round (the MPI tag) */
    int     src, dst;             /* ranks in the node */
    int     send_step, recv_step; /* index of the step among src's / dst's steps */
    int64_t bytes;
    double  send_post, send_done; /* MpiIsend, MpiIsendComplete on src */
    double  recv_post, recv_done; /* MpiIrecvRequest, MpiIrecv on dst */
    double  late;                 /* Late Sender: max(0, send_post - recv_post) */
} an_model_msg_t;

/* A host's part in one round: from the first post of its messages of the
 * round (send or receive) to the last completion.  n = 0: the host has no
 * message in that round (start = end = late = 0). */
typedef struct an_model_round {
    int     round;
    int64_t n;            /* operations averaged (1 for one operation) */
    double  start, end;
    double  late;         /* the round's wait: the largest Late Sender time of
                           * the host's receives in the round */
} an_model_round_t;

typedef struct an_model_sched_host {
    int               rank;     /* in the node */
    int               host;     /* pathmap host */
    double            t1, t4;   /* arrival at and departure from the node */
    an_model_round_t *rounds;   /* [nrounds], index = round */
} an_model_sched_host_t;

/* One operation (op >= 0), or the mean over the used operations of the
 * tuple size (op = -1, instance = -1: a host's t1 and t4 are the means over
 * the operations of the times relative to each one's t0; a round's start
 * and end are the host's mean t1 plus the mean, over the operations in
 * which the host had messages in that round, of the time after the host's
 * own t1, so a round never starts before its host arrived; no messages). */
typedef struct an_model_schedule {
    int                    node;
    int64_t                bytes;
    int                    instance;  /* -1 for the mean */
    int64_t                op;        /* -1 for the mean */
    int64_t                ops;       /* operations it describes (1, or the used ones) */
    int64_t                t0;        /* one operation: ns on the trace's time line; mean: 0 */
    double                 span;      /* largest t4 - t0: the operation's time at the node */
    int                    nranks;
    an_model_sched_host_t *ranks;     /* index = rank in the node */
    int                    nrounds;   /* rounds numbered 0 .. nrounds-1 */
    an_model_msg_t        *msgs;      /* by send_post, then src, then send_step */
    int                    nmsgs;
} an_model_schedule_t;

/* The operations of an algorithm node for one tuple size, to pick one:
 * (instance, op), used or not, with its span and the arrival spread of its
 * hosts (largest t1 minus smallest). */
typedef struct an_model_algo_op {
    int     instance;
    int64_t op;
    int     used;
    double  span, spread;
} an_model_algo_op_t;

typedef struct an_model_algo_ops {
    int                 node;
    an_model_algo_op_t *ops;          /* by instance, then op */
    int64_t             nops;
} an_model_algo_ops_t;

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

/* The operations of algorithm node `node` with tuple size `bytes` (< 0: the
 * smallest).  CM_ERR_INVALID when node is not an algorithm node or has no
 * operation of that size. */
cm_status_t an_model_algo_ops(an_model_t *m, int64_t bytes, int node,
                              const an_model_algo_ops_t **o_p, cm_err_t *err);

/* The schedule of operation (instance, op) of algorithm node `node`, or with
 * op < 0 the mean over the used operations of tuple size `bytes` (< 0: the
 * smallest; ignored for one operation).  CM_ERR_INVALID when node is not an
 * algorithm node or the operation does not exist. */
cm_status_t an_model_schedule(an_model_t *m, int64_t bytes, int node, int instance,
                              int64_t op, const an_model_schedule_t **s_p, cm_err_t *err);

/* A tree without statistics, for `papviz tree PATHMAP`: an empty model whose
 * tree the caller fills with an_model_tree_alloc (the pathmap parser lives
 * in runtime/, which analyze/ does not see).  Strings passed to
 * an_model_strdup are copied into the model. */
an_model_t *an_model_create(void);
cm_status_t an_model_tree_alloc(an_model_t *m, int nhosts, int nwrappers, int nthreads);
/* An algorithm node's description for such a model (strings empty, root -1,
 * hosts zeroed); the caller sets wrappers[node].algo to it.  NULL: no memory. */
an_model_algo_t *an_model_algo_alloc(an_model_t *m, int nranks);
const char *an_model_strdup(an_model_t *m, const char *s);

/*
 * ---- application traces (papanalyze of a profiling-library trace) -------
 * The arrival pattern per call site (docs/analysis-db.md, "Application
 * traces"): what `papviz arrivals-by-site` draws.  Sites in the report's
 * order (time lost waiting, most first).  Per rank that called at the
 * site: its arrival a (after the operation's earliest, ns) over the
 * site's complete operations: mean, min and max.  an_model_mpi_open
 * allocates everything (one block per array, owned by the model);
 * an_model_mpi_close frees it.  A database of a tree trace is refused
 * (CM_ERR_INVALID, "not an application trace's database").
 */
typedef struct an_model_mpi_rank {
    int     rank;           /* world rank */
    int64_t n;              /* calls with an arrival (in complete operations) */
    double  mean_a, min_a, max_a;
} an_model_mpi_rank_t;

typedef struct an_model_mpi_site {
    char   *label;          /* file:line, function or MODULE+0xOFF */
    char   *name;           /* MODULE+0xOFF */
    char   *collectives;    /* "allreduce", ... (comma-separated) */
    char   *algorithms;
    int64_t calls, ops;
    double  mean_time;      /* ns per call */
    double  spread;         /* mean worst case imbalance time, ns */
    double  worst_factor;   /* mean worst case imbalance factor; NAN if none */
    double  wait_pct;       /* % of the site's time lost waiting; NAN if none */
    int     last_rank;      /* most often last; -1 if none */
    int     nranks;
    an_model_mpi_rank_t *ranks;   /* [nranks], by rank */
    char   *choices;        /* auto's choices there, "prr 62%, ring 38%" (most first);
                               NULL when no auto rule ran at the site */
} an_model_mpi_site_t;

typedef struct an_model_mpi {
    char                *db, *command;
    int                  nranks;        /* MPI_COMM_WORLD's size */
    int                  nsites;
    an_model_mpi_site_t *sites;
} an_model_mpi_t;

cm_status_t an_model_mpi_open(const char *db, an_model_mpi_t **m_p, cm_err_t *err);
void an_model_mpi_close(an_model_mpi_t *m);

/*
 * ---- what `auto` chose (docs/analysis-db.md, "Algorithm choices") ------
 * Every auto operation of a database of either kind (auto_ops), by site
 * and then in trace order, with its arrival spread, measured time and
 * choice; what `papviz choices` draws.  CM_ERR_INVALID ("no choice of
 * auto in the database") when it has none.
 */
typedef struct an_model_choice_op {
    int     site;           /* index into sites */
    int     cand;           /* the chosen candidate: index into names */
    int64_t instance, op;   /* the tree instance and op, or communicator and seq */
    int64_t bytes;
    double  spread_ns;      /* the arrival vector's spread the choice saw */
    double  measured_ns;    /* mean time per rank in the operation; NAN if unknown */
    double  regret;         /* chosen / best corrected prediction; NAN if unknown */
    int     agreed;         /* every rank chose the same */
} an_model_choice_op_t;

typedef struct an_model_choices {
    char                 *db, *kind;     /* kind: "tree" or "mpi" */
    char                **sites;         /* node names or call-site labels */
    int                   nsites;
    char                **names;         /* the candidates chosen at least once, by name */
    int64_t              *counts;        /* [nnames]: how often */
    int                   nnames;
    an_model_choice_op_t *ops;
    int64_t               nops;
} an_model_choices_t;

cm_status_t an_model_choices_open(const char *db, an_model_choices_t **m_p, cm_err_t *err);
void an_model_choices_close(an_model_choices_t *m);

/* ---- the timeline (papviz timeline; analyze/an_timeline.c) --------------
 *
 * A database as a timeline: processes, tracks, and each track's slices and
 * flow ends in time order, which viz/viz_timeline.c writes as trace-event
 * JSON (docs/timeline.md is the contract).  The database is read with SQL
 * one event at a time: memory follows the number of tracks (and, for an
 * algorithm node's rounds, a temporary table of their lanes), not the
 * events.  Times are ns on the database's time line.
 */

/* The part of the run to show; a zeroed window shows all of it. */
typedef struct an_tl_window {
    int      has_ops;             /* only operations op_first..op_last (tree: op; */
    uint64_t op_first, op_last;   /* application traces: seq on each communicator) */
    int      has_from, has_to;    /* only slices that overlap [from_ns, to_ns] */
    int64_t  from_ns, to_ns;
} an_tl_window_t;

typedef enum { AN_TL_INT, AN_TL_REAL, AN_TL_TEXT, AN_TL_NULL } an_tl_type_t;

typedef struct an_tl_arg {
    const char  *key;
    an_tl_type_t type;
    int64_t      i;
    double       d;
    const char  *s;               /* borrowed until the next event */
} an_tl_arg_t;

#define AN_TL_MAX_ARGS 16

typedef struct an_tl_event {
    char        ph;               /* 'X' slice, 's' flow start, 'f' flow finish */
    int         pid, tid;
    int64_t     ts, dur;          /* ns; dur for slices */
    const char *name, *cat;       /* borrowed until the next event */
    uint64_t    id;               /* flows: the same at both ends, unique in the run */
    int         nargs;
    an_tl_arg_t args[AN_TL_MAX_ARGS];
} an_tl_event_t;

typedef struct an_tl_track {
    int   pid, tid, sort;
    char *name;
} an_tl_track_t;

typedef struct an_tl_process {
    int   pid;
    char *name;
} an_tl_process_t;

/* What the window holds, for the size estimate (before anything is written). */
typedef struct an_tl_counts {
    uint64_t wrapper, round, mpi;         /* slices */
    uint64_t proxy, msg;                  /* flows (each a start and a finish) */
} an_tl_counts_t;

typedef struct an_timeline {
    int              mpi;                 /* an application trace's database */
    an_tl_process_t *procs;
    int              nprocs;
    an_tl_track_t   *tracks;              /* in the order their events come */
    int              ntracks;
    char            *pathmap;             /* tree traces; else NULL */
    char            *trace;               /* meta trace */
    struct an_tl_priv *priv;
} an_timeline_t;

cm_status_t an_tl_open(const char *db, const an_tl_window_t *w, an_timeline_t **out,
                       cm_err_t *err);
/* Counts what the window holds (SQL counts; nothing is read row by row). */
cm_status_t an_tl_count(an_timeline_t *tl, an_tl_counts_t *c, cm_err_t *err);
/* The window's first operation and how many there are from it to its last
 * (tree: op; application traces: seq); 0 of them in an empty window. */
cm_status_t an_tl_op_range(an_timeline_t *tl, uint64_t *first, uint64_t *n);
/* The report's headline figures as "key": value pairs, for the metadata:
 * fn(ud, key, arg) per figure. */
cm_status_t an_tl_headline(an_timeline_t *tl,
                           void (*fn)(void *ud, const an_tl_arg_t *figure), void *ud,
                           cm_err_t *err);
/* Every event, track after track (the tracks' order), each track's in
 * non-decreasing ts, a slice before a flow end at equal ts and the longer
 * slice first.  fn's non-CM_OK stops it and is returned. */
cm_status_t an_tl_each(an_timeline_t *tl,
                       cm_status_t (*fn)(void *ud, const an_tl_event_t *e, cm_err_t *err),
                       void *ud, cm_err_t *err);
void an_tl_close(an_timeline_t *tl);

#endif /* AN_MODEL_H */
