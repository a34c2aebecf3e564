/*
 * an_db_int.h - the analysis database's private parts, shared by its files:
 *
 *   an_db.c         the connection: creation, definition and statistics rows,
 *                   the final SQL, commit and abort
 *   an_db_schema.c  the schema (tables, views) and the INSERT statements
 *   an_db_writer.c  the writer thread and its bounded queue of row batches
 *                   (visits, ops, pap_hosts: the rows that stream)
 *   an_db_file.c    the atomic replacement: a temporary file beside the
 *                   target, synced and renamed over it
 *
 * Nothing outside these files includes it.
 */
#ifndef AN_DB_INT_H
#define AN_DB_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sqlite3.h>

#include "analyze/an_int.h"

/* 2 (issue 24): the algo_* tables of algorithm nodes and their arrival
 * reports; an_db_read.c reads this version only. */
#define AN_DB_SCHEMA_VERSION "2"

/* Prepared statements; the streaming row kinds come first. */
enum { S_VISIT, S_OP, S_PAP_HOST, S_STAT, S_ORDER, S_SUBORDER, S_META, S_P2P, S_ALGO_VISIT,
       S_ALGO_OP, S_ALGO_MSG, S_ALGO_ROUND, S_ALGO_ARRIVAL, S_ALGO_ARRIVAL_STAT, S_N };

/* Rows per batch, and batches in all (one filling, the rest queued or being written). */
enum { BATCH_ROWS = 4096, NBATCH = 4 };
/* Streaming row kinds (S_VISIT .. S_PAP_HOST), rows per multi-row INSERT, and
 * the most parameters of one row (visits). */
enum { NKIND = S_PAP_HOST + 1, GROUP = 32, ROW_PARAMS = 13 };

/* A visits row (docs/analysis-db.md); t2 and t3 are NULL unless have_t23. */
typedef struct an_visit_row {
    int      node, contrib, arrival, departure, have_t23;
    int64_t  location, t1, t2, t3, t4, arrival_wait, departure_wait;
} an_visit_row_t;

/* An ops row; imbalance is filled in by SQL at the end. */
typedef struct an_op_row {
    int      used;
    int64_t  bytes, t0, arrival_spread, host_spread;
    double   avg_elapsed;
} an_op_row_t;

/* A pap_hosts row; e = f - a is computed when it is bound. */
typedef struct an_pap_host_row {
    int      host;
    int64_t  a, f;
} an_pap_host_row_t;

/* One streaming row, as the caller hands it to the writer: the operation it
 * belongs to, and the columns of its table. */
typedef struct an_row {
    int      kind;            /* S_VISIT, S_OP or S_PAP_HOST */
    int      instance;
    int64_t  op;
    union {
        an_visit_row_t    visit;
        an_op_row_t       ops;
        an_pap_host_row_t pap_host;
    };
} an_row_t;

/* What a statement parameter is bound to (bindings outlive sqlite3_reset). */
typedef struct an_bound {
    int64_t  v;
    int      set;             /* 0 unknown, 1 the integer v, 2 NULL */
} an_bound_t;

typedef struct an_batch {
    int      n;
    an_row_t rows[BATCH_ROWS];
} an_batch_t;

struct an_db {
    sqlite3         *db;
    sqlite3_stmt    *stmt[S_N];
    sqlite3_stmt    *group[NKIND];    /* INSERT of GROUP rows of a streaming kind */
    /* the writer's: parameters of stmt[kind] ([0]) and group[kind] ([1]) */
    an_bound_t       bound[2][NKIND][GROUP * ROW_PARAMS + 1];
    const an_defs_t *defs;
    char            *path, *tmp;
    int              fd;
    /* the writer thread: thr_on and cur are the caller's; errbuf is written
     * once, by the writer, before it sets failed; queue .. stop are mu's */
    int              thr_on;          /* thread running; mu, conds, batches valid */
    pthread_t        thr;
    an_batch_t      *cur;             /* the caller's batch being filled */
    an_batch_t      *all[NBATCH];
    atomic_int       failed;          /* the writer met an error: errbuf is set */
    char             errbuf[512];
    pthread_mutex_t  mu;
    pthread_cond_t   work;            /* to the writer: a batch queued, or stop */
    pthread_cond_t   space;           /* to the caller: a batch written */
    an_batch_t      *queue[NBATCH];
    int              qhead, qlen;
    an_batch_t      *freel[NBATCH];
    int              nfree;
    int              busy;            /* the writer is writing a batch */
    int              stop;
};

/* The schema (an_db_schema.c). */
extern const char *const an__db_schema_sql;     /* CREATE TABLE ... */
extern const char *const an__db_views_sql;      /* CREATE VIEW ... */
extern const char *const an__db_stmt_sql[S_N];  /* one row of each statement's table */
/* A streaming table: its name, one row's value list, and its parameters. */
typedef struct an_row_sql {
    const char *table, *values;
    int         nparam;
} an_row_sql_t;
extern const an_row_sql_t an__db_row_sql[NKIND];

/* The writer (an_db_writer.c). */
/* Prepares the multi-row INSERTs, allocates the batches and starts the
 * thread; CM_OK, or an error with err set (an_db_abort cleans up). */
cm_status_t an__db_writer_start(an_db_t *db, cm_err_t *err);
/* Stops and joins the writer (queued batches are dropped) and frees the
 * batches.  Safe to call again, and when starting failed half way. */
void        an__db_writer_stop(an_db_t *db);
/* Waits until the writer has nothing queued and is not writing. */
void        an__db_writer_idle(an_db_t *db);
/* Before the caller uses the connection: hands over the partial batch and
 * waits until the writer has written everything.  CM_ERR_IO if it failed. */
cm_status_t an__db_writer_sync(an_db_t *db);

/* The file (an_db_file.c). */
/* Refuses a path that must not be replaced, then creates the temporary file
 * beside it (db->tmp, db->fd).  On error nothing is left behind. */
cm_status_t an__db_file_create(an_db_t *db, int force, cm_err_t *err);
/* After the connection is closed: syncs the temporary file and renames it
 * over db->path. */
cm_status_t an__db_file_replace(an_db_t *db, cm_err_t *err);
/* Closes and removes the temporary file, if any. */
void        an__db_file_drop(an_db_t *db);

#endif /* AN_DB_INT_H */
