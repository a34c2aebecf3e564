/*
 * an_db.c - the analysis database: schema, rows, views, and the atomic
 * replacement of the file (docs/analysis-db.md documents every table).
 *
 * The database is built in a temporary file beside the target, with no
 * journal and no syncs inside one transaction (1.5 M rows/s: docs/platform.md),
 * then synced and renamed over the target: a reader sees the old database or
 * the new one, never a half-written one, and a failure leaves the old intact.
 *
 * The streaming rows (visits, ops, pap_hosts: one or more per operation) go
 * through a writer thread, so that SQLite runs beside reading and metrics:
 * the caller appends fixed-size records to a batch, a full batch goes to the
 * writer through a bounded queue (NBATCH batches in all, so memory stays
 * bounded; the caller waits when none is free), and the writer inserts each
 * table's rows in the order they came, GROUP rows per statement.  Every other
 * call first hands over the partial batch and waits until the writer is idle,
 * then uses the connection itself: never are two threads inside SQLite.  The
 * writer's first error is kept (with SQLite's message, copied at the time);
 * later rows are dropped and row calls return CM_ERR_IO.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sqlite3.h>

#include "analyze/an_int.h"

#define AN_DB_SCHEMA_VERSION "1"

enum { S_VISIT, S_OP, S_PAP_HOST, S_STAT, S_ORDER, S_SUBORDER, S_META, S_P2P, S_N };

/* Rows per batch, and batches in all (one filling, the rest queued or being written). */
enum { BATCH_ROWS = 4096, NBATCH = 4 };
/* Streaming row kinds (S_VISIT .. S_PAP_HOST), rows per multi-row INSERT, and
 * the most parameters of one row (visits). */
enum { NKIND = S_PAP_HOST + 1, GROUP = 32, ROW_PARAMS = 13 };

/* One streaming row, as the caller hands it to the writer. */
typedef struct an_row {
    int      kind;            /* S_VISIT, S_OP or S_PAP_HOST */
    int      i[6];            /* visit: instance node contrib arrival departure */
                              /* have_t23; op: instance used; pap_host: instance host */
    int64_t  l[8];            /* visit: op location t1 t2 t3 t4 arrival_wait */
                              /* departure_wait; op: op bytes t0 spread */
                              /* host_spread; pap_host: op a f */
    double   x;               /* op: avg_elapsed */
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

static const char *const schema_sql =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);\n"
    "CREATE TABLE hosts(host INTEGER PRIMARY KEY, name TEXT, hostname TEXT, offset_ns REAL,"
    " error_ns REAL, drift_ppm REAL);\n"
    "CREATE TABLE locations(location INTEGER PRIMARY KEY, host INTEGER, role TEXT,"
    " thread INTEGER, proxy INTEGER, instance INTEGER, enter INTEGER, name TEXT,"
    " flushes INTEGER, visits INTEGER);\n"
    "CREATE TABLE threads(thread INTEGER PRIMARY KEY, host INTEGER, location INTEGER,"
    " enter INTEGER, nproxies INTEGER, nstages INTEGER);\n"
    "CREATE TABLE wrappers(node INTEGER PRIMARY KEY, name TEXT, kind TEXT, host INTEGER,"
    " parent INTEGER, level INTEGER, fanin INTEGER, part TEXT, nhosts INTEGER,"
    " line INTEGER);\n"
    "CREATE TABLE contributors(node INTEGER, contributor INTEGER, child INTEGER,"
    " thread INTEGER, name TEXT, PRIMARY KEY(node, contributor));\n"
    "CREATE TABLE paths(thread INTEGER, step INTEGER, node INTEGER, contributor INTEGER,"
    " PRIMARY KEY(thread, step));\n"
    "CREATE TABLE regions(region INTEGER PRIMARY KEY, instance INTEGER, node INTEGER);\n"
    "CREATE TABLE visits(instance INTEGER, op INTEGER, node INTEGER, contributor INTEGER,"
    " location INTEGER, t1 INTEGER, t2 INTEGER, t3 INTEGER, t4 INTEGER, arrival INTEGER,"
    " departure INTEGER, arrival_wait INTEGER, departure_wait INTEGER);\n"
    "CREATE TABLE ops(instance INTEGER, op INTEGER, bytes INTEGER, used INTEGER,"
    " t0 INTEGER, arrival_spread INTEGER, host_spread INTEGER, avg_elapsed REAL,"
    " imbalance REAL, PRIMARY KEY(instance, op));\n"
    "CREATE TABLE pap_hosts(instance INTEGER, op INTEGER, host INTEGER, a INTEGER,"
    " f INTEGER, e INTEGER, PRIMARY KEY(instance, op, host));\n"
    "CREATE TABLE p2p(bytes INTEGER PRIMARY KEY, ns REAL, source TEXT);\n"
    "CREATE TABLE stats(scope TEXT, node INTEGER, contributor INTEGER, thread INTEGER,"
    " metric TEXT, bytes INTEGER, n INTEGER, mean REAL, median REAL, stdev REAL, min REAL,"
    " max REAL, p10 REAL, p90 REAL);\n"
    "CREATE TABLE orders(node INTEGER, contributor INTEGER, arrival INTEGER,"
    " departure INTEGER, bytes INTEGER, count INTEGER);\n"
    "CREATE TABLE subtree_orders(node INTEGER, thread INTEGER, arrival INTEGER,"
    " departure INTEGER, bytes INTEGER, count INTEGER);\n";

/* Views: the paper's tables over the stored rows (docs/analysis-db.md, Views). */
static const char *const views_sql =
    "CREATE VIEW visit_metrics AS SELECT v.*, w.name, w.kind,"
    " CASE WHEN w.kind = 'core' THEN v.t4 - v.t1 ELSE (v.t4 - v.t1) - (v.t3 - v.t2) END"
    " AS latency, v.t2 - v.t1 AS down_own, v.t4 - v.t3 AS up_own"
    " FROM visits v JOIN wrappers w USING (node);\n"
    "CREATE VIEW wrapper_ops AS SELECT v.instance, v.op, v.node, w.name, w.kind,"
    " CASE w.kind WHEN 'gred' THEN MAX(CASE WHEN v.arrival = w.fanin THEN v.t2 - v.t1 END)"
    "  WHEN 'proxy' THEN ((MAX(v.t4) - MAX(v.t1)) - (MAX(v.t3) - MAX(v.t2))) / 2.0 END AS down,"
    " CASE w.kind WHEN 'gred' THEN MAX(CASE WHEN v.departure = 1 THEN v.t4 - v.t3 END)"
    "  WHEN 'proxy' THEN ((MAX(v.t4) - MAX(v.t1)) - (MAX(v.t3) - MAX(v.t2))) / 2.0 END AS up,"
    " CASE w.kind WHEN 'core' THEN MAX(v.t4 - v.t1)"
    "  WHEN 'proxy' THEN (MAX(v.t4) - MAX(v.t1)) - (MAX(v.t3) - MAX(v.t2)) END AS latency"
    " FROM visits v JOIN wrappers w USING (node) GROUP BY v.instance, v.op, v.node;\n"
    "CREATE VIEW order_matrix AS SELECT o.node, w.name, o.bytes, o.arrival, o.departure,"
    " SUM(o.count) AS count, 100.0 * SUM(o.count) / (SELECT SUM(x.count) FROM orders x"
    "  WHERE x.node = o.node AND x.bytes = o.bytes AND x.arrival = o.arrival) AS percent"
    " FROM orders o JOIN wrappers w USING (node) WHERE w.kind = 'gred'"
    " GROUP BY o.node, o.bytes, o.arrival, o.departure;\n"
    /* seq: chronological order along the path (arrival wait before down latency,
     * core, then the up path back to the entry wrapper, departure wait last) */
    "CREATE VIEW thread_stages AS SELECT p.thread, s.bytes, p.step, p.node, w.name, w.kind,"
    " w.part, CASE WHEN s.metric IN ('up', 'departure_wait') THEN 'up' ELSE 'down' END"
    " AS direction, s.metric AS stage,"
    " CASE WHEN s.metric = 'arrival_wait' THEN 2 * p.step"
    "  WHEN s.metric IN ('down', 'latency') THEN 2 * p.step + 1"
    "  WHEN s.metric = 'up' THEN 2 * t.nstages + 2 * (t.nstages - 1 - p.step)"
    "  ELSE 2 * t.nstages + 2 * (t.nstages - 1 - p.step) + 1 END AS seq,"
    " s.n, s.mean, s.median, s.stdev, s.min, s.max, s.p10, s.p90"
    " FROM paths p JOIN threads t ON t.thread = p.thread JOIN wrappers w ON w.node = p.node"
    " JOIN stats s ON s.scope = 'thread' AND s.thread = p.thread AND s.node = p.node;\n"
    "CREATE VIEW thread_parts AS SELECT s.thread, t.host, t.nproxies, s.bytes,"
    " SUM(CASE WHEN s.metric IN ('down', 'arrival_wait', 'latency') THEN s.mean ELSE 0 END)"
    " AS down_with_wait,"
    " SUM(CASE WHEN s.metric IN ('down', 'latency') THEN s.mean ELSE 0 END) AS down_no_wait,"
    " SUM(CASE WHEN s.metric IN ('up', 'departure_wait') THEN s.mean ELSE 0 END) AS up,"
    " SUM(CASE WHEN w.part = 'host' AND s.metric <> 'arrival_wait' THEN s.mean ELSE 0 END)"
    " AS host_no_wait,"
    " SUM(CASE WHEN w.part = 'cluster' AND s.metric <> 'arrival_wait' THEN s.mean ELSE 0 END)"
    " AS cluster_no_wait,"
    " SUM(CASE WHEN w.part = 'proxy' THEN s.mean ELSE 0 END) AS proxy,"
    " SUM(CASE WHEN w.part = 'core' THEN s.mean ELSE 0 END) AS core,"
    " SUM(CASE WHEN s.metric <> 'arrival_wait' THEN s.mean ELSE 0 END) AS total_no_wait,"
    " SUM(s.mean) AS total_with_wait"
    " FROM stats s JOIN wrappers w ON w.node = s.node JOIN threads t ON t.thread = s.thread"
    " WHERE s.scope = 'thread' GROUP BY s.thread, s.bytes;\n"
    "CREATE VIEW hotspots AS SELECT s.node, w.name, w.kind, w.part, s.metric, s.bytes, s.n,"
    " s.mean, s.median, s.p90 FROM stats s JOIN wrappers w USING (node)"
    " WHERE s.scope = 'wrapper' AND ((w.kind = 'gred' AND s.metric IN ('down', 'up',"
    " 'departure_wait')) OR (w.kind <> 'gred' AND s.metric = 'latency'))"
    " ORDER BY s.mean DESC;\n"
    "CREATE VIEW pap_threads AS SELECT v.instance, v.op, t.thread, t.host, v.t1 - o.t0 AS a,"
    " v.t4 - o.t0 AS f, v.t4 - v.t1 AS e FROM visits v"
    " JOIN locations l ON l.location = v.location"
    " JOIN threads t ON t.thread = l.thread AND t.enter = v.node"
    " JOIN ops o ON o.instance = v.instance AND o.op = v.op;\n";

static const char *const stmt_sql[S_N] = {
    [S_VISIT] = "INSERT INTO visits VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [S_OP] = "INSERT INTO ops VALUES(?,?,?,?,?,?,?,?,NULL)",
    [S_PAP_HOST] = "INSERT INTO pap_hosts VALUES(?,?,?,?,?,?)",
    [S_STAT] = "INSERT INTO stats VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [S_ORDER] = "INSERT INTO orders VALUES(?,?,?,?,?,?)",
    [S_SUBORDER] = "INSERT INTO subtree_orders VALUES(?,?,?,?,?,?)",
    [S_META] = "INSERT OR REPLACE INTO meta VALUES(?,?)",
    [S_P2P] = "INSERT INTO p2p VALUES(?,?,?)",
};

static void writer_idle(an_db_t *db);

const char *an_db_errmsg(an_db_t *db)
{
    if (db == NULL)
        return "no database";
    if (atomic_load(&db->failed))
        return db->errbuf;
    if (db->db == NULL)
        return "no database";
    writer_idle(db);                      /* the connection is ours to ask */
    return sqlite3_errmsg(db->db);
}

/* Runs stmt with its bindings, then resets it; CM_ERR_IO on failure. */
static cm_status_t step(an_db_t *db, int s)
{
    sqlite3_stmt *st = db->stmt[s];
    int rc = sqlite3_step(st);

    sqlite3_reset(st);
    return rc == SQLITE_DONE ? CM_OK : CM_ERR_IO;
}

static void bind_int_or_null(sqlite3_stmt *st, int col, int64_t v)
{
    if (v == AN_NULL)
        sqlite3_bind_null(st, col);
    else
        sqlite3_bind_int64(st, col, v);
}

static void bind_real(sqlite3_stmt *st, int col, double v)
{
    if (isnan(v))
        sqlite3_bind_null(st, col);
    else
        sqlite3_bind_double(st, col, v);
}

static cm_status_t exec(an_db_t *db, const char *sql)
{
    return sqlite3_exec(db->db, sql, NULL, NULL, NULL) == SQLITE_OK ? CM_OK : CM_ERR_IO;
}

/* ------------------------------------------------------------ the writer */

/* Streaming tables: one row's value list, and its parameters. */
static const struct {
    const char *table, *values;
    int         nparam;
} row_sql[NKIND] = {
    [S_VISIT] = { "visits", "(?,?,?,?,?,?,?,?,?,?,?,?,?)", 13 },
    [S_OP] = { "ops", "(?,?,?,?,?,?,?,?,NULL)", 8 },
    [S_PAP_HOST] = { "pap_hosts", "(?,?,?,?,?,?)", 6 },
};

/*
 * Binds parameter col of st to v, or NULL, unless it already is: bindings
 * stay through sqlite3_reset, and many columns (instance, node, contributor,
 * location, orders) repeat from one group of rows to the next.
 */
static void bind_i(sqlite3_stmt *st, an_bound_t *b, int col, int64_t v)
{
    if (b[col].set != 1 || b[col].v != v) {
        sqlite3_bind_int64(st, col, v);
        b[col].set = 1;
        b[col].v = v;
    }
}

static void bind_n(sqlite3_stmt *st, an_bound_t *b, int col)
{
    if (b[col].set != 2) {
        sqlite3_bind_null(st, col);
        b[col].set = 2;
    }
}

/* Binds row r to st's parameters from base + 1 on (bd: what they are bound to). */
static void bind_row(sqlite3_stmt *st, an_bound_t *bd, int base, const an_row_t *r)
{
    switch (r->kind) {
    case S_VISIT:
        bind_i(st, bd, base + 1, r->i[0]);
        bind_i(st, bd, base + 2, r->l[0]);
        bind_i(st, bd, base + 3, r->i[1]);
        bind_i(st, bd, base + 4, r->i[2]);
        bind_i(st, bd, base + 5, r->l[1]);
        bind_i(st, bd, base + 6, r->l[2]);
        if (r->i[5]) {
            bind_i(st, bd, base + 7, r->l[3]);
            bind_i(st, bd, base + 8, r->l[4]);
        } else {
            bind_n(st, bd, base + 7);
            bind_n(st, bd, base + 8);
        }
        bind_i(st, bd, base + 9, r->l[5]);
        bind_i(st, bd, base + 10, r->i[3]);
        bind_i(st, bd, base + 11, r->i[4]);
        bind_i(st, bd, base + 12, r->l[6]);
        bind_i(st, bd, base + 13, r->l[7]);
        break;
    case S_OP:
        bind_i(st, bd, base + 1, r->i[0]);
        bind_i(st, bd, base + 2, r->l[0]);
        bind_i(st, bd, base + 3, r->l[1]);
        bind_i(st, bd, base + 4, r->i[1]);
        bind_i(st, bd, base + 5, r->l[2]);
        bind_i(st, bd, base + 6, r->l[3]);
        bind_i(st, bd, base + 7, r->l[4]);
        sqlite3_bind_double(st, base + 8, r->x);
        break;
    default:
        bind_i(st, bd, base + 1, r->i[0]);
        bind_i(st, bd, base + 2, r->l[0]);
        bind_i(st, bd, base + 3, r->i[1]);
        bind_i(st, bd, base + 4, r->l[1]);
        bind_i(st, bd, base + 5, r->l[2]);
        bind_i(st, bd, base + 6, r->l[2] - r->l[1]);
        break;
    }
}

/* Inserts n rows of one kind (1 or GROUP) in order, on the writer; keeps
 * the first error. */
static void write_rows(an_db_t *db, int kind, const an_row_t *const *rows, int n)
{
    sqlite3_stmt *st = n == 1 ? db->stmt[kind] : db->group[kind];
    an_bound_t *bd = db->bound[n == 1 ? 0 : 1][kind];

    for (int j = 0; j < n; j++)
        bind_row(st, bd, j * row_sql[kind].nparam, rows[j]);
    if (sqlite3_step(st) != SQLITE_DONE) {
        /* copied now: the connection's message changes with its next use */
        const an_row_t *a = rows[0], *z = rows[n - 1];
        if (n == 1)
            snprintf(db->errbuf, sizeof(db->errbuf),
                     "%s (writing %s of instance %d, operation %" PRId64 ")",
                     sqlite3_errmsg(db->db), row_sql[kind].table, a->i[0], a->l[0]);
        else
            snprintf(db->errbuf, sizeof(db->errbuf),
                     "%s (writing %d rows of %s, instance %d operation %" PRId64
                     " to instance %d operation %" PRId64 ")", sqlite3_errmsg(db->db), n,
                     row_sql[kind].table, a->i[0], a->l[0], z->i[0], z->l[0]);
        atomic_store(&db->failed, 1);
    }
    sqlite3_reset(st);
}

/*
 * Writes a batch, table by table: each table gets its rows in the order they
 * came (rowids, and so the tables, are as with one INSERT per call), GROUP
 * at a time, the rest one by one.
 */
static void write_batch(an_db_t *db, const an_batch_t *b)
{
    const an_row_t *g[GROUP];

    for (int kind = 0; kind < NKIND; kind++) {
        int n = 0;

        for (int k = 0; k < b->n; k++) {
            if (b->rows[k].kind != kind)
                continue;
            g[n++] = &b->rows[k];
            if (n == GROUP) {
                /* only this thread sets failed while it runs */
                if (atomic_load_explicit(&db->failed, memory_order_relaxed))
                    return;
                write_rows(db, kind, g, n);
                n = 0;
            }
        }
        for (int j = 0; j < n && !atomic_load_explicit(&db->failed, memory_order_relaxed); j++)
            write_rows(db, kind, &g[j], 1);
    }
}

/* The writer: takes queued batches in order and writes them; after an
 * error, only returns them.  Ends on stop, even with batches queued. */
static void *writer_main(void *arg)
{
    an_db_t *db = arg;

    pthread_mutex_lock(&db->mu);
    for (;;) {
        while (db->qlen == 0 && !db->stop)
            pthread_cond_wait(&db->work, &db->mu);
        if (db->stop)
            break;
        an_batch_t *b = db->queue[db->qhead];
        db->qhead = (db->qhead + 1) % NBATCH;
        db->qlen--;
        db->busy = 1;
        pthread_mutex_unlock(&db->mu);
        if (!atomic_load_explicit(&db->failed, memory_order_relaxed))
            write_batch(db, b);
        pthread_mutex_lock(&db->mu);
        b->n = 0;
        db->freel[db->nfree++] = b;
        db->busy = 0;
        pthread_cond_signal(&db->space);
    }
    pthread_mutex_unlock(&db->mu);
    return NULL;
}

/* Allocates the batches and starts the writer; 0, or -1 (an_db_abort frees). */
static int writer_start(an_db_t *db)
{
    sigset_t all, old;
    int rc;

    for (int i = 0; i < NBATCH; i++) {
        if ((db->all[i] = malloc(sizeof(an_batch_t))) == NULL)
            return -1;
        db->all[i]->n = 0;
    }
    db->cur = db->all[0];
    for (int i = 1; i < NBATCH; i++)
        db->freel[db->nfree++] = db->all[i];
    if (pthread_mutex_init(&db->mu, NULL) != 0)
        return -1;
    if (pthread_cond_init(&db->work, NULL) != 0) {
        pthread_mutex_destroy(&db->mu);
        return -1;
    }
    if (pthread_cond_init(&db->space, NULL) != 0) {
        pthread_cond_destroy(&db->work);
        pthread_mutex_destroy(&db->mu);
        return -1;
    }
    /* signals stay with the caller's thread */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&db->thr, NULL, writer_main, db);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        pthread_cond_destroy(&db->space);
        pthread_cond_destroy(&db->work);
        pthread_mutex_destroy(&db->mu);
        return -1;
    }
    db->thr_on = 1;
    return 0;
}

/* Stops and joins the writer (queued batches are dropped) and frees the
 * batches.  Safe to call again, and when writer_start failed half way. */
static void writer_stop(an_db_t *db)
{
    if (db->thr_on) {
        pthread_mutex_lock(&db->mu);
        db->stop = 1;
        pthread_cond_signal(&db->work);
        pthread_mutex_unlock(&db->mu);
        pthread_join(db->thr, NULL);
        pthread_cond_destroy(&db->space);
        pthread_cond_destroy(&db->work);
        pthread_mutex_destroy(&db->mu);
        db->thr_on = 0;
    }
    for (int i = 0; i < NBATCH; i++) {
        free(db->all[i]);
        db->all[i] = NULL;
    }
    db->cur = NULL;
    db->qlen = db->nfree = 0;
}

/* Waits until the writer has nothing queued and is not writing. */
static void writer_idle(an_db_t *db)
{
    if (!db->thr_on)
        return;
    pthread_mutex_lock(&db->mu);
    while (db->qlen > 0 || db->busy)
        pthread_cond_wait(&db->space, &db->mu);
    pthread_mutex_unlock(&db->mu);
}

/* Queues the caller's batch for the writer; with wait_free, takes a free one
 * as the next (waiting for the writer when none is), else leaves cur NULL. */
static void writer_submit(an_db_t *db, int wait_free)
{
    pthread_mutex_lock(&db->mu);
    db->queue[(db->qhead + db->qlen) % NBATCH] = db->cur;
    db->qlen++;
    db->cur = NULL;
    pthread_cond_signal(&db->work);
    while (wait_free && db->nfree == 0)
        pthread_cond_wait(&db->space, &db->mu);
    if (wait_free)
        db->cur = db->freel[--db->nfree];
    pthread_mutex_unlock(&db->mu);
}

/*
 * Before the caller uses the connection: hands over the partial batch and
 * waits until the writer has written everything.  CM_ERR_IO if it failed.
 */
static cm_status_t writer_sync(an_db_t *db)
{
    if (db->thr_on) {
        if (db->cur->n > 0)
            writer_submit(db, 0);
        writer_idle(db);
        if (db->cur == NULL)
            db->cur = db->freel[--db->nfree];     /* all are free now */
    }
    return atomic_load(&db->failed) ? CM_ERR_IO : CM_OK;
}

/* The next row of the caller's batch, or NULL once the writer has failed. */
static an_row_t *row_new(an_db_t *db, int kind)
{
    an_row_t *r;

    if (atomic_load_explicit(&db->failed, memory_order_relaxed))
        return NULL;
    r = &db->cur->rows[db->cur->n++];
    r->kind = kind;
    return r;
}

/* After filling a row: a full batch goes to the writer. */
static cm_status_t row_done(an_db_t *db)
{
    if (db->cur->n == BATCH_ROWS)
        writer_submit(db, 1);
    return CM_OK;
}

/* 1 if path is an SQLite file with our meta table (a database papanalyze wrote). */
static int is_our_db(const char *path)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int ours = 0;

    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK
        && sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'papanalyze'", -1, &st,
                              NULL) == SQLITE_OK
        && sqlite3_step(st) == SQLITE_ROW)
        ours = 1;
    sqlite3_finalize(st);
    sqlite3_close(db);
    return ours;
}

/* Prepares the INSERT of GROUP rows of kind. */
static cm_status_t prepare_group(an_db_t *db, int kind)
{
    size_t len = strlen(row_sql[kind].values) + 1;
    char *sql = malloc(64 + GROUP * len), *p = sql;
    int rc;

    if (sql == NULL)
        return CM_ERR_NOMEM;
    p += sprintf(p, "INSERT INTO %s VALUES", row_sql[kind].table);
    for (int j = 0; j < GROUP; j++)
        p += sprintf(p, "%s%s", j > 0 ? "," : "", row_sql[kind].values);
    rc = sqlite3_prepare_v3(db->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &db->group[kind], NULL);
    free(sql);
    return rc == SQLITE_OK ? CM_OK : CM_ERR_IO;
}

cm_status_t an_db_create(const char *path, int force, an_db_t **out, cm_err_t *err)
{
    an_db_t *db;
    struct stat sb;
    cm_status_t st = CM_OK;

    *out = NULL;
    if (stat(path, &sb) == 0) {
        if (S_ISDIR(sb.st_mode))
            return CM_ERR_AT(err, CM_ERR_INVALID, path, 0, 0, "is a directory");
        if (!force && !is_our_db(path))
            return CM_ERR_AT(err, CM_ERR_INVALID, path, 0, 0, "exists and is not a "
                             "papanalyze database; not replaced (--force replaces it)");
    }
    if ((db = calloc(1, sizeof(*db))) == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    atomic_init(&db->failed, 0);
    db->fd = -1;
    db->path = strdup(path);
    if (db->path == NULL || asprintf(&db->tmp, "%s.partial-XXXXXX", path) < 0) {
        db->tmp = NULL;
        an_db_abort(db);
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    }
    if ((db->fd = mkstemp(db->tmp)) < 0) {
        st = CM_ERR_AT(err, CM_ERR_IO, path, 0, 0, "cannot create a file beside it: %s",
                       strerror(errno));
        free(db->tmp);
        db->tmp = NULL;
        an_db_abort(db);
        return st;
    }
    /* mkstemp makes the file private; a database is as readable as any output */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(db->fd, 0666 & ~mask);
    /*
     * No connection mutex: the writer and the caller take turns (writer_sync).
     * 64 KiB pages: fewer, fuller pages for the appended rows.  A small cache:
     * pages are written out as the tables grow (on the writer, beside the
     * reading) rather than all at COMMIT, and memory stays modest.
     */
    if (sqlite3_open_v2(db->tmp, &db->db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL)
            != SQLITE_OK
        || exec(db, "PRAGMA page_size = 65536; PRAGMA journal_mode = OFF;"
                    " PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE;"
                    " PRAGMA cache_size = -4096; PRAGMA temp_store = MEMORY; BEGIN;") != CM_OK
        || exec(db, schema_sql) != CM_OK)
        st = CM_ERR_AT(err, CM_ERR_IO, db->tmp, 0, 0, "cannot create the database: %s",
                       an_db_errmsg(db));
    for (int i = 0; i < S_N && st == CM_OK; i++)
        if (sqlite3_prepare_v3(db->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
                               &db->stmt[i], NULL) != SQLITE_OK)
            st = CM_ERR_AT(err, CM_ERR_IO, db->tmp, 0, 0, "cannot prepare '%s': %s",
                           stmt_sql[i], an_db_errmsg(db));
    for (int k = 0; k < NKIND && st == CM_OK; k++)
        if (prepare_group(db, k) != CM_OK)
            st = CM_ERR_AT(err, CM_ERR_IO, db->tmp, 0, 0, "cannot prepare the %s insert: %s",
                           row_sql[k].table, an_db_errmsg(db));
    if (st == CM_OK && writer_start(db) != 0)
        st = CM_ERR(err, CM_ERR_NOMEM, "cannot start the database writer thread");
    if (st != CM_OK) {
        an_db_abort(db);
        return st;
    }
    *out = db;
    return CM_OK;
}

cm_status_t an_db_meta(an_db_t *db, const char *key, const char *value)
{
    if (writer_sync(db) != CM_OK)
        return CM_ERR_IO;
    sqlite3_bind_text(db->stmt[S_META], 1, key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(db->stmt[S_META], 2, value, -1, SQLITE_TRANSIENT);
    return step(db, S_META);
}

static cm_status_t meta_int(an_db_t *db, const char *key, uint64_t v)
{
    char buf[32];

    snprintf(buf, sizeof(buf), "%" PRIu64, v);
    return an_db_meta(db, key, buf);
}

/* Inserts one row of sql's table from printf-style values (definitions only). */
static cm_status_t row(an_db_t *db, const char *sql, int n, const int64_t *ints,
                       const char *const *texts)
{
    sqlite3_stmt *st;
    int rc;

    if (sqlite3_prepare_v2(db->db, sql, -1, &st, NULL) != SQLITE_OK)
        return CM_ERR_IO;
    for (int i = 0; i < n; i++) {
        if (texts != NULL && texts[i] != NULL)
            sqlite3_bind_text(st, i + 1, texts[i], -1, SQLITE_TRANSIENT);
        else
            bind_int_or_null(st, i + 1, ints[i]);
    }
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? CM_OK : CM_ERR_IO;
}

static cm_status_t defs_meta(an_db_t *db, const an_defs_t *d)
{
    const char *kv[][2] = {
        { "schema_version", AN_DB_SCHEMA_VERSION }, { "trace_schema_version", d->trace_version },
        { "pathmap", d->pathmap }, { "pathmap_path", d->pathmap_path },
        { "pathmap_hash", d->pathmap_hash }, { "tree", d->tree }, { "clock", d->clock },
        { "command", d->command },
    };
    cm_status_t st = CM_OK;

    for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]) && st == CM_OK; i++)
        st = an_db_meta(db, kv[i][0], kv[i][1]);
    if (st == CM_OK)
        st = meta_int(db, "instances", (uint64_t)d->ninstances);
    if (st == CM_OK)
        st = meta_int(db, "hosts", (uint64_t)d->nhosts);
    if (st == CM_OK)
        st = meta_int(db, "resolution", d->resolution);
    if (st == CM_OK)
        st = meta_int(db, "events", d->nevents);
    return st;
}

static cm_status_t defs_hosts(an_db_t *db, const an_defs_t *d)
{
    sqlite3_stmt *st;
    int rc = SQLITE_DONE;

    if (sqlite3_prepare_v2(db->db, "INSERT INTO hosts VALUES(?,?,?,?,?,?)", -1, &st, NULL)
        != SQLITE_OK)
        return CM_ERR_IO;
    for (int h = 0; h < d->nhosts && rc == SQLITE_DONE; h++) {
        const an_host_t *x = &d->hosts[h];
        sqlite3_bind_int(st, 1, h);
        sqlite3_bind_text(st, 2, x->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, x->hostname, -1, SQLITE_STATIC);
        bind_real(st, 4, x->have_offset ? x->offset_ns : NAN);
        bind_real(st, 5, x->have_offset ? x->error_ns : NAN);
        bind_real(st, 6, x->have_offset ? x->drift_ppm : NAN);
        rc = sqlite3_step(st);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? CM_OK : CM_ERR_IO;
}

static cm_status_t defs_tree(an_db_t *db, const an_defs_t *d)
{
    cm_status_t st = CM_OK;

    for (int n = 0; n < d->nnodes && st == CM_OK; n++) {
        const an_wrapper_t *w = &d->nodes[n];
        int64_t v[10] = { n, 0, 0, w->host, w->parent < 0 ? AN_NULL : w->parent, w->level,
                          w->fanin, 0, w->nhosts, w->line > 0 ? w->line : AN_NULL };
        const char *t[10] = { NULL, w->name, an_kind_name(w->kind), NULL, NULL, NULL, NULL,
                              an_part_name(w->part), NULL, NULL };
        st = row(db, "INSERT INTO wrappers VALUES(?,?,?,?,?,?,?,?,?,?)", 10, v, t);
        for (int c = 0; c < w->fanin && st == CM_OK; c++) {
            char name[96];
            int th = w->thread[c];
            int64_t cv[5] = { n, c, w->child[c] >= 0 ? w->child[c] : AN_NULL,
                              th >= 0 ? d->threads[th].id : AN_NULL, 0 };
            const char *ct[5] = { NULL, NULL, NULL, NULL, name };
            if (th >= 0)
                snprintf(name, sizeof(name), "thread %d", d->threads[th].id);
            else
                snprintf(name, sizeof(name), "%s", d->nodes[w->child[c]].name);
            st = row(db, "INSERT INTO contributors VALUES(?,?,?,?,?)", 5, cv, ct);
        }
        for (int i = 0; i < d->ninstances && st == CM_OK; i++) {
            int64_t rv[3] = { (int64_t)i * d->nnodes + n, i, n };
            st = row(db, "INSERT INTO regions VALUES(?,?,?)", 3, rv, NULL);
        }
    }
    return st;
}

static cm_status_t defs_threads(an_db_t *db, const an_defs_t *d)
{
    cm_status_t st = CM_OK;

    for (int i = 0; i < d->nlocs && st == CM_OK; i++) {
        const an_location_t *l = &d->locs[i];
        int64_t v[10] = { (int64_t)l->id, l->host, 0,
                          l->thread >= 0 ? d->threads[l->thread].id : AN_NULL,
                          l->proxy >= 0 ? l->proxy : AN_NULL,
                          l->instance >= 0 ? l->instance : AN_NULL, l->enter, 0,
                          (int64_t)l->flushes, 0 };
        const char *t[10] = { NULL, NULL, l->role == AN_ROLE_COMPUTE ? "compute" : "service",
                              NULL, NULL, NULL, NULL, l->name, NULL, NULL };
        st = row(db, "INSERT INTO locations VALUES(?,?,?,?,?,?,?,?,?,?)", 10, v, t);
    }
    for (int i = 0; i < d->nthreads && st == CM_OK; i++) {
        const an_thread_t *th = &d->threads[i];
        int64_t v[6] = { th->id, th->host, (int64_t)d->locs[th->loc].id, th->enter,
                         th->nproxies, th->nsteps };
        st = row(db, "INSERT INTO threads VALUES(?,?,?,?,?,?)", 6, v, NULL);
        for (int s = 0; s < th->nsteps && st == CM_OK; s++) {
            int64_t pv[4] = { th->id, s, th->node[s], th->contrib[s] };
            st = row(db, "INSERT INTO paths VALUES(?,?,?,?)", 4, pv, NULL);
        }
    }
    return st;
}

cm_status_t an_db_defs(an_db_t *db, const an_defs_t *d)
{
    cm_status_t st;

    if (writer_sync(db) != CM_OK)
        return CM_ERR_IO;
    db->defs = d;
    if ((st = defs_meta(db, d)) != CM_OK || (st = defs_hosts(db, d)) != CM_OK
        || (st = defs_tree(db, d)) != CM_OK)
        return st;
    return defs_threads(db, d);
}

cm_status_t an_db_visit(an_db_t *db, const an_visit_t *v, int64_t t2, int64_t t3, int have_t23,
                        int arrival, int departure, int64_t arrival_wait, int64_t departure_wait)
{
    an_row_t *r = row_new(db, S_VISIT);

    if (r == NULL)
        return CM_ERR_IO;
    r->i[0] = v->instance;
    r->i[1] = v->node;
    r->i[2] = v->contrib;
    r->i[3] = arrival;
    r->i[4] = departure;
    r->i[5] = have_t23;
    r->l[0] = (int64_t)v->op;
    r->l[1] = (int64_t)db->defs->locs[v->loc].id;
    r->l[2] = v->t1;
    r->l[3] = t2;
    r->l[4] = t3;
    r->l[5] = v->t4;
    r->l[6] = arrival_wait;
    r->l[7] = departure_wait;
    return row_done(db);
}

cm_status_t an_db_op(an_db_t *db, int instance, uint64_t op, uint64_t bytes, int used,
                     int64_t t0, int64_t spread, int64_t host_spread, double avg_elapsed)
{
    an_row_t *r = row_new(db, S_OP);

    if (r == NULL)
        return CM_ERR_IO;
    r->i[0] = instance;
    r->i[1] = used;
    r->l[0] = (int64_t)op;
    r->l[1] = (int64_t)bytes;
    r->l[2] = t0;
    r->l[3] = spread;
    r->l[4] = host_spread;
    r->x = avg_elapsed;
    return row_done(db);
}

cm_status_t an_db_pap_host(an_db_t *db, int instance, uint64_t op, int host, int64_t a,
                           int64_t f)
{
    an_row_t *r = row_new(db, S_PAP_HOST);

    if (r == NULL)
        return CM_ERR_IO;
    r->i[0] = instance;
    r->i[1] = host;
    r->l[0] = (int64_t)op;
    r->l[1] = a;
    r->l[2] = f;
    return row_done(db);
}

cm_status_t an_db_stat(an_db_t *db, const char *scope, int node, int contrib, int thread,
                       const char *metric, uint64_t bytes, an_stat_t *s)
{
    sqlite3_stmt *st = db->stmt[S_STAT];
    an_summary_t sum;

    if (writer_sync(db) != CM_OK)
        return CM_ERR_IO;
    an_stat_summary(s, &sum);
    sqlite3_bind_text(st, 1, scope, -1, SQLITE_STATIC);
    bind_int_or_null(st, 2, node);
    bind_int_or_null(st, 3, contrib);
    bind_int_or_null(st, 4, thread);
    sqlite3_bind_text(st, 5, metric, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 6, (int64_t)bytes);
    sqlite3_bind_int64(st, 7, (int64_t)sum.n);
    bind_real(st, 8, sum.mean);
    bind_real(st, 9, sum.median);
    bind_real(st, 10, sum.stdev);
    bind_real(st, 11, sum.min);
    bind_real(st, 12, sum.max);
    bind_real(st, 13, sum.p10);
    bind_real(st, 14, sum.p90);
    return step(db, S_STAT);
}

cm_status_t an_db_order(an_db_t *db, int subtree, int node, int who, int arrival,
                        int departure, uint64_t bytes, uint64_t count)
{
    int s = subtree ? S_SUBORDER : S_ORDER;
    sqlite3_stmt *st = db->stmt[s];

    if (writer_sync(db) != CM_OK)
        return CM_ERR_IO;
    sqlite3_bind_int(st, 1, node);
    sqlite3_bind_int(st, 2, who);
    sqlite3_bind_int(st, 3, arrival);
    sqlite3_bind_int(st, 4, departure);
    sqlite3_bind_int64(st, 5, (int64_t)bytes);
    sqlite3_bind_int64(st, 6, (int64_t)count);
    return step(db, s);
}

cm_status_t an_db_p2p(an_db_t *db, uint64_t bytes, double ns, const char *source)
{
    sqlite3_stmt *st = db->stmt[S_P2P];

    if (writer_sync(db) != CM_OK)
        return CM_ERR_IO;
    sqlite3_bind_int64(st, 1, (int64_t)bytes);
    bind_real(st, 2, ns);
    sqlite3_bind_text(st, 3, source, -1, SQLITE_STATIC);
    return step(db, S_P2P);
}

/* Location visit counts, imbalance (needs p2p), views, then commit. */
static cm_status_t finish_sql(an_db_t *db)
{
    const an_defs_t *d = db->defs;
    sqlite3_stmt *st;
    int rc = SQLITE_DONE;

    if (sqlite3_prepare_v2(db->db, "UPDATE locations SET visits = ? WHERE location = ?", -1,
                           &st, NULL) != SQLITE_OK)
        return CM_ERR_IO;
    for (int i = 0; i < d->nlocs && rc == SQLITE_DONE; i++) {
        sqlite3_bind_int64(st, 1, (int64_t)d->locs[i].visits);
        sqlite3_bind_int64(st, 2, (int64_t)d->locs[i].id);
        rc = sqlite3_step(st);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return CM_ERR_IO;
    if (exec(db, "UPDATE ops SET imbalance = host_spread /"
                 " (SELECT ns FROM p2p WHERE p2p.bytes = ops.bytes AND p2p.ns > 0);"
                 "INSERT INTO stats SELECT 'pap', NULL, NULL, NULL, 'imbalance', s.bytes, s.n,"
                 " s.mean / p.ns, s.median / p.ns, s.stdev / p.ns, s.min / p.ns, s.max / p.ns,"
                 " s.p10 / p.ns, s.p90 / p.ns FROM stats s JOIN p2p p USING (bytes)"
                 " WHERE s.scope = 'pap' AND s.metric = 'host_spread' AND p.ns > 0;"
                 "INSERT OR REPLACE INTO meta SELECT 'p2p_source', source FROM p2p"
                 " ORDER BY bytes LIMIT 1;"
                 "INSERT OR REPLACE INTO meta SELECT 'p2p_ns', ns FROM p2p"
                 " WHERE (SELECT COUNT(*) FROM p2p) = 1;") != CM_OK)
        return CM_ERR_IO;
    return exec(db, views_sql);
}

static void fsync_dir(const char *path)
{
    char *copy = strdup(path);
    int fd;

    if (copy == NULL)
        return;
    if ((fd = open(dirname(copy), O_RDONLY | O_DIRECTORY)) >= 0) {
        fsync(fd);
        close(fd);
    }
    free(copy);
}

cm_status_t an_db_commit(an_db_t *db, cm_err_t *err)
{
    cm_status_t st = writer_sync(db);

    writer_stop(db);                      /* the connection is the caller's alone */
    if (st == CM_OK)
        st = finish_sql(db);
    if (st != CM_OK || exec(db, "COMMIT") != CM_OK) {
        st = CM_ERR_AT(err, CM_ERR_IO, db->path, 0, 0, "cannot write the database: %s",
                       an_db_errmsg(db));
        an_db_abort(db);
        return st;
    }
    for (int i = 0; i < S_N; i++)
        sqlite3_finalize(db->stmt[i]);
    for (int i = 0; i < NKIND; i++)
        sqlite3_finalize(db->group[i]);
    memset(db->stmt, 0, sizeof(db->stmt));
    memset(db->group, 0, sizeof(db->group));
    if (sqlite3_close(db->db) != SQLITE_OK) {
        st = CM_ERR_AT(err, CM_ERR_IO, db->path, 0, 0, "cannot close the database");
    } else if (db->db = NULL, fsync(db->fd) != 0 || rename(db->tmp, db->path) != 0) {
        st = CM_ERR_AT(err, CM_ERR_IO, db->path, 0, 0, "cannot write the database: %s",
                       strerror(errno));
    }
    if (st != CM_OK) {
        an_db_abort(db);
        return st;
    }
    fsync_dir(db->path);
    close(db->fd);
    free(db->tmp);
    free(db->path);
    free(db);
    return CM_OK;
}

void an_db_abort(an_db_t *db)
{
    if (db == NULL)
        return;
    writer_stop(db);
    for (int i = 0; i < S_N; i++)
        sqlite3_finalize(db->stmt[i]);
    for (int i = 0; i < NKIND; i++)
        sqlite3_finalize(db->group[i]);
    if (db->db != NULL)
        sqlite3_close(db->db);
    if (db->fd >= 0)
        close(db->fd);
    if (db->tmp != NULL)
        unlink(db->tmp);
    free(db->tmp);
    free(db->path);
    free(db);
}
