/*
 * an_int.h - papanalyze's internal model: what a trace defines, and the
 * pieces that turn its events into metrics.
 *
 * The pipeline, one pass over the trace (an_analyze.c drives it):
 *
 *   an_read*.c   the OTF2 reader: an_read_defs.c, definitions -> an_defs_t;
 *                an_read_events.c, events -> one an_visit_t per wrapper visit
 *                (ENTER/LEAVE pairs, nesting checked)
 *   an_ops.c     collects the visits of each operation; when an operation has
 *                all of them, has its metrics computed (an_metrics.c), hands
 *                its rows to the database and its samples to the statistics
 *                (an_ops_stats.c, which writes the stats rows at the end)
 *   an_db*.c     the SQLite database: an_db.c the connection and its rows,
 *                an_db_schema.c tables and views, an_db_writer.c the writer
 *                thread for streaming rows, an_db_file.c the atomic replace
 *   an_report.c  the report, read back from the database
 *
 * Memory: definitions, one statistics accumulator per series (bounded, see
 * an_stats_int.h), the operations in flight, and per tuple size a tally of the
 * distinct one-way times of the proxies (an_tally_int.h, for the exact p2p),
 * whatever the trace's length.
 */
#ifndef AN_INT_H
#define AN_INT_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "common/cm_err.h"
#include "common/cm_kind.h"
#include "analyze/an_stats_int.h"

typedef enum { AN_PART_HOST, AN_PART_CLUSTER, AN_PART_PROXY, AN_PART_CORE, AN_PART_ALGO } an_part_t;
typedef enum { AN_ROLE_COMPUTE, AN_ROLE_SERVICE, AN_ROLE_ALGO } an_role_t;

typedef struct an_host {
    char    *name;            /* pathmap name */
    char    *hostname;        /* real host name (system tree property) */
    double   offset_ns;       /* rank 0's clock - this host's, at open */
    double   error_ns;        /* bound of that offset's error */
    double   drift_ppm;       /* offset change over the run, in 1e-6 */
    int      have_offset;
} an_host_t;

typedef struct an_wrapper {
    char      *name;
    cm_kind_t  kind;
    an_part_t  part;
    int        host;
    int        parent;        /* node, -1 for the core */
    int        level;         /* 0 for the core */
    int        fanin;
    int        nhosts;        /* hosts of the threads below */
    int        line;          /* pathmap line, 0 if unknown */
    int        pslot;         /* contributor index of this node at its parent */
    int        slot0;         /* first slot of an operation's visit array */
    int       *child;         /* [fanin]: contributor -> child node, or -1 */
    int       *thread;        /* [fanin]: contributor -> thread index, or -1 */
    int        nbelow;        /* threads below (subtree contributors) */
    int       *below;         /* [nbelow] thread indexes, increasing */
    /* an algorithm node (kind CM_KIND_ALGO, the root): its region's keys */
    char      *algo, *bcast, *arrival;  /* "-" for no bcast */
    int        root;          /* the rooted algorithm's root rank, or -1 */
    int        nranks;        /* hosts it spans = fanin */
    int        pap;           /* pap= key: 1 yes (one arrival event per operation and
                                 rank), 0 no (none), -1 absent (an older trace) */
    int       *rank_host;     /* [nranks] rank in the node -> host, ascending */
    int       *rank_contrib;  /* [nranks] rank -> its host's contributor */
    int       *contrib_rank;  /* [fanin] contributor -> rank */
} an_wrapper_t;

typedef struct an_location {
    uint64_t   id;            /* OTF2 location id */
    char      *name;
    int        host;
    an_role_t  role;
    int        thread;        /* index into defs->threads, or -1 */
    int        proxy;         /* service: proxy node, else -1 */
    int        instance;      /* service: instance, else -1 */
    int        rank;          /* algo: the host's rank in the algorithm node, else -1 */
    int        enter;         /* node its outermost visits are of */
    uint64_t   flushes;
    uint64_t   events;        /* from the definition */
    uint64_t   visits;        /* counted while reading */
} an_location_t;

typedef struct an_thread {
    int   id;                 /* pathmap thread number */
    int   host;
    int   loc;                /* index into defs->locs */
    int   enter;              /* entry wrapper */
    int   nsteps;             /* wrappers on its path, entry .. core */
    int  *node;               /* [nsteps] */
    int  *contrib;            /* [nsteps] contributor at node[step] */
    int   nproxies;
} an_thread_t;

typedef struct an_defs {
    /* archive properties */
    char        *trace_version, *pathmap, *pathmap_path, *pathmap_hash, *tree;
    char        *clock, *command;
    int          ninstances;
    /* clock */
    uint64_t     resolution;  /* ticks per second */
    uint64_t     global_offset, trace_length;
    /* model */
    int          nhosts;
    an_host_t   *hosts;
    int          nnodes;
    an_wrapper_t *nodes;
    int          root;        /* the root's node: the core or the algorithm node */
    int          algo;        /* the algorithm node (= root), or -1 */
    int          nslots;      /* visits per operation = sum of fan-ins */
    int          nlocs;
    an_location_t *locs;      /* sorted by id */
    int          nthreads;
    an_thread_t *threads;     /* sorted by id */
    int          maxsteps;
    uint64_t     nevents;     /* sum of the locations' event counts */
} an_defs_t;

/* ---------------------------------------------------------------- reading */

/* One complete wrapper visit, as an_read.c delivers it to an_ops.c. */
typedef struct an_visit {
    int      instance, node, contrib, loc;
    uint64_t op, bytes;
    int64_t  t1, t4;          /* ns on the corrected time line */
    int      continued;       /* the parent's visit nests in this one: at a gred,
                               * the last arrival, which carried the result on */
} an_visit_t;

typedef cm_status_t an_visit_fn(void *ud, const an_visit_t *v, cm_err_t *err);

/* One MPI point-to-point event of an algorithm node (ins_schema.h), on the
 * algorithm location of rank `rank`, inside its visit of (instance, op). */
typedef enum { AN_MSG_SEND, AN_MSG_SEND_DONE, AN_MSG_RECV_POST, AN_MSG_RECV,
               AN_MSG_ARRIVAL } an_msg_kind_t;

/* Where a PAP-aware node's arrival times came from, on one rank in one
 * operation (ins_schema.h; an AN_MSG_ARRIVAL's details). */
typedef enum { AN_SRC_EQUAL, AN_SRC_HISTORY, AN_SRC_EDGE, AN_NSRC } an_source_t;

typedef struct an_arrival {
    an_source_t asked, used;
    int         missing;      /* node rank of the first host with no estimate, or -1 */
    int64_t     error_ns;     /* estimated - actual arrival; INT64_MIN: no estimate */
    int64_t     lead_ns;      /* INT64_MIN: no estimate */
    int64_t     wait_ns;
} an_arrival_t;

/* "equal", "history", "edge" (ins_schema.h), or NULL; and back (-1 if none). */
const char *an_source_name(int source);
int         an_source_of(const char *name);

typedef struct an_msg {
    an_msg_kind_t kind;
    int           instance, loc, rank;
    uint64_t      op;
    uint32_t      step;       /* requestID's low half */
    int           peer;       /* AN_MSG_SEND, AN_MSG_RECV: the other rank; else -1 */
    int           round;      /* the tag; -1 for the two without one */
    uint64_t      bytes;
    int64_t       t;          /* ns on the corrected time line */
    const an_arrival_t *arrival;  /* AN_MSG_ARRIVAL: the report (borrowed); else NULL */
} an_msg_t;

typedef cm_status_t an_msg_fn(void *ud, const an_msg_t *m, cm_err_t *err);

typedef struct an_reader an_reader_t;

/* Opens the archive and reads all definitions into defs (checked). */
cm_status_t an_reader_open(const char *anchor, an_defs_t *defs, an_reader_t **out,
                           cm_err_t *err);
/*
 * Reads every event, calling fn per completed visit.  progress, when not
 * NULL, is called every few hundred thousand events with the count so far.
 */
/* Where an_reader_run puts auto's choices (an_auto_int.h); NULL: dropped. */
struct an_auto;
void an_reader_collect_auto(an_reader_t *r, struct an_auto *autos);
/* Read with nthreads threads (0: one); only operations op_first..op_last. */
void an_reader_part(an_reader_t *r, int nthreads, uint64_t op_first, uint64_t op_last);
cm_status_t an_reader_run(an_reader_t *r, an_visit_fn *fn, an_msg_fn *msg_fn, void *ud,
                          void (*progress)(void *ud, uint64_t events), cm_err_t *err);
void        an_reader_close(an_reader_t *r);
void        an_defs_free(an_defs_t *defs);

/* Lookup helpers (an_defs.c). */
int         an_defs_loc_index(const an_defs_t *d, uint64_t id);  /* -1 if none */
int         an_defs_thread_index(const an_defs_t *d, int thread_id);
int         an_defs_node_index(const an_defs_t *d, const char *name);
const char *an_part_name(an_part_t p);
/* Derives parts, levels, contributors, paths, subtrees; checks the tree. */
cm_status_t an_defs_finish(an_defs_t *d, const char *trace, cm_err_t *err);

/* --------------------------------------------------------------- database */

typedef struct an_db an_db_t;

/* Stats scopes and metrics, as the database names them (docs/analysis-db.md). */
#define AN_NULL (-1)          /* an integer column left NULL */
/* subtree_orders is filled for subtrees of at most this many threads: its
 * tally is threads x arrival x departure per node and size (64: 2 MiB). */
#define AN_SUBTREE_ORDERS_MAX 64

/*
 * Creates the database in a temporary file beside path; an_db_commit renames
 * it over path.  An existing path that is not a papanalyze database is
 * refused unless force.
 */
cm_status_t an_db_create(const char *path, int force, an_db_t **out, cm_err_t *err);
cm_status_t an_db_meta(an_db_t *db, const char *key, const char *value);
/* The connection, for the tables of application traces (an_mpi_db.c), once
 * the writer has written everything; NULL if it failed.  And the schema
 * version every database of this papanalyze has (meta schema_version). */
struct sqlite3 *an__db_conn(an_db_t *db);
const char *an__db_schema_version(void);
cm_status_t an_db_defs(an_db_t *db, const an_defs_t *d);
cm_status_t an_db_visit(an_db_t *db, const an_visit_t *v, int64_t t2, int64_t t3, int have_t23,
                        int arrival, int departure, int64_t arrival_wait, int64_t departure_wait);
cm_status_t an_db_op(an_db_t *db, int instance, uint64_t op, uint64_t bytes, int used,
                     int64_t t0, int64_t spread, int64_t host_spread, double avg_elapsed);
cm_status_t an_db_pap_host(an_db_t *db, int instance, uint64_t op, int host, int64_t a,
                           int64_t f);
cm_status_t an_db_stat(an_db_t *db, const char *scope, int node, int contrib, int thread,
                       const char *metric, uint64_t bytes, an_stat_t *s);
cm_status_t an_db_order(an_db_t *db, int subtree, int node, int who, int arrival,
                        int departure, uint64_t bytes, uint64_t count);
cm_status_t an_db_p2p(an_db_t *db, uint64_t bytes, double ns, const char *source);

/* Rows of an algorithm node's tables (docs/analysis-db.md, "Algorithm
 * nodes"); times in ns on the trace's time line.  an_db_sync first: these
 * do not wait for the writer thread themselves. */
typedef struct an_algo_visit_row {
    int      instance, node, rank, host;
    uint64_t op;
    int64_t  t1, t4, t0;      /* t0: the operation's first arrival at the node */
} an_algo_visit_row_t;

typedef struct an_algo_op_row {
    int      instance, node, used;
    uint64_t op, bytes;
    int64_t  t0, spread, span;
    double   avg_elapsed;
} an_algo_op_row_t;

typedef struct an_algo_msg_row {
    int      instance, node, round, src, dst, src_host, dst_host;
    uint64_t op, bytes;
    uint32_t send_step, recv_step;
    int64_t  send_post, send_done, recv_post, recv_done;
} an_algo_msg_row_t;

typedef struct an_algo_round_row {
    int      instance, node, round, rank, host, nsend, nrecv;
    uint64_t op;
    int64_t  start, end, late, wait;
} an_algo_round_row_t;

typedef struct an_algo_arrival_row {
    int          instance, node, rank, host;
    uint64_t     op;
    an_arrival_t a;
    int64_t      t;           /* the report's time */
} an_algo_arrival_row_t;

cm_status_t an_db_sync(an_db_t *db);
cm_status_t an_db_algo_visit(an_db_t *db, const an_algo_visit_row_t *r);
cm_status_t an_db_algo_op(an_db_t *db, const an_algo_op_row_t *r);
cm_status_t an_db_algo_msg(an_db_t *db, const an_algo_msg_row_t *r);
cm_status_t an_db_algo_round(an_db_t *db, const an_algo_round_row_t *r);
cm_status_t an_db_algo_arrival(an_db_t *db, const an_algo_arrival_row_t *r);
/* One series of arrival reports (metric "error", "lead" or "wait") of rank
 * `rank` of the node, or of all its ranks (rank -1). */
cm_status_t an_db_algo_arrival_stat(an_db_t *db, int node, uint64_t bytes, int rank,
                                    const char *metric, an_stat_t *s);
/* Views, indexes, commit, rename over the final path.  Frees db. */
cm_status_t an_db_commit(an_db_t *db, cm_err_t *err);
/* Drops the temporary file; frees db.  NULL is fine. */
void        an_db_abort(an_db_t *db);
/* The last SQLite error of db, for messages. */
const char *an_db_errmsg(an_db_t *db);

/* -------------------------------------------------------------- operations */

typedef struct an_ops an_ops_t;

cm_status_t an_ops_create(const an_defs_t *d, an_db_t *db, uint64_t skip, an_ops_t **out,
                          cm_err_t *err);
/* an_visit_fn for an_reader_run: ud is the an_ops_t. */
cm_status_t an_ops_visit(void *ud, const an_visit_t *v, cm_err_t *err);
/* an_msg_fn for an_reader_run: ud is the an_ops_t. */
cm_status_t an_ops_msg(void *ud, const an_msg_t *m, cm_err_t *err);
/* After the last visit: fails on incomplete operations; writes statistics. */
cm_status_t an_ops_finish(an_ops_t *ops, cm_err_t *err);
uint64_t    an_ops_count(const an_ops_t *ops, uint64_t *used);
void        an_ops_free(an_ops_t *ops);

/* ---- reading a database back (an_db_read.c) ---- */

struct sqlite3;
/* How long a reader or writer waits for another process's lock. */
#define AN_DB_BUSY_MS 2000
/* Opens a database papanalyze wrote, read-only, with the busy timeout; the
 * report and papviz's model refuse the same files with the same messages:
 * not a regular file, cannot open, locked by another process, not ours
 * (no meta 'papanalyze'), another schema version. */
cm_status_t an_db_open_read(const char *path, struct sqlite3 **out, cm_err_t *err);
/* The meta checks of an_db_open_read on an open connection. */
cm_status_t an_db_check_ours(struct sqlite3 *db, const char *path, cm_err_t *err);
/* 1 if an SQLite result code means another connection holds a lock. */
int an_db_is_busy(int rc);

/* ---- the fastest and the slowest thread (an_report.c) ---- */

/*
 * The one definition of "the fastest" and "the slowest" thread of a tuple
 * size, for the report's tables and Table 2's default thread, and for the
 * model papviz draws (an_model_size_t.fastest/slowest): by mean time per
 * allreduce without arrival waits (thread_parts.total_no_wait: the time the
 * tree costs the thread, not how early it came), ties to the lower thread
 * number.  The thread's pathmap number, or -1 if the size has none.
 */
int64_t an__thread_end(struct sqlite3 *db, int64_t bytes, int slowest);

/* ---- files (an_file.c) ---- */

/* One file of an archive: its identity (device, inode) and path. */
typedef struct an_file {
    dev_t  dev;
    ino_t  ino;
    char  *path;
} an_file_t;

typedef struct an_files {
    an_file_t *f;
    size_t     n, cap;
    char      *dir;           /* the archive's directory DIR/NAME, NULL if none */
} an_files_t;

/* "a FIFO", "a directory", ...: what a file is, for messages. */
const char *an_file_kind(mode_t mode);
/* Checks, before anything opens them, that the anchor and every file of its
 * archive (DIR/NAME.def, DIR/NAME/ *) are regular files, and records them in
 * fs (an_files_free frees it; on error fs is empty). */
cm_status_t an_archive_scan(const char *anchor, an_files_t *fs, cm_err_t *err);
/* The file of fs that path is (same device and inode), or NULL. */
const an_file_t *an_files_find(const an_files_t *fs, const char *path);
void an_files_free(an_files_t *fs);

#endif /* AN_INT_H */
