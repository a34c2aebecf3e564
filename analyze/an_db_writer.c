/*
 * an_db_writer.c - the database's writer thread, for the rows that stream
 * (visits, ops, pap_hosts: one or more per operation), so that SQLite runs
 * beside reading and metrics.
 *
 * The caller appends fixed-size records to a batch, a full batch goes to the
 * writer through a bounded queue (NBATCH batches in all, so memory stays
 * bounded; the caller waits when none is free), and the writer inserts each
 * table's rows in the order they came, GROUP rows per statement.  Every other
 * use of the connection first hands over the partial batch and waits until
 * the writer is idle (an__db_writer_sync): never are two threads inside
 * SQLite.  The writer's first error is kept (with SQLite's message, copied at
 * the time); later rows are dropped and row calls return CM_ERR_IO.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/an_db_int.h"

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

/* Binds row r to st's parameters from base + 1 on (bd: what they are bound to),
 * in the column order of its table. */
static void bind_row(sqlite3_stmt *st, an_bound_t *bd, int base, const an_row_t *r)
{
    bind_i(st, bd, base + 1, r->instance);
    bind_i(st, bd, base + 2, r->op);
    switch (r->kind) {
    case S_VISIT: {
        const an_visit_row_t *v = &r->visit;
        bind_i(st, bd, base + 3, v->node);
        bind_i(st, bd, base + 4, v->contrib);
        bind_i(st, bd, base + 5, v->location);
        bind_i(st, bd, base + 6, v->t1);
        if (v->have_t23) {
            bind_i(st, bd, base + 7, v->t2);
            bind_i(st, bd, base + 8, v->t3);
        } else {
            bind_n(st, bd, base + 7);
            bind_n(st, bd, base + 8);
        }
        bind_i(st, bd, base + 9, v->t4);
        bind_i(st, bd, base + 10, v->arrival);
        bind_i(st, bd, base + 11, v->departure);
        bind_i(st, bd, base + 12, v->arrival_wait);
        bind_i(st, bd, base + 13, v->departure_wait);
        break;
    }
    case S_OP: {
        const an_op_row_t *o = &r->ops;
        bind_i(st, bd, base + 3, o->bytes);
        bind_i(st, bd, base + 4, o->used);
        bind_i(st, bd, base + 5, o->t0);
        bind_i(st, bd, base + 6, o->arrival_spread);
        bind_i(st, bd, base + 7, o->host_spread);
        sqlite3_bind_double(st, base + 8, o->avg_elapsed);
        break;
    }
    default: {
        const an_pap_host_row_t *h = &r->pap_host;
        bind_i(st, bd, base + 3, h->host);
        bind_i(st, bd, base + 4, h->a);
        bind_i(st, bd, base + 5, h->f);
        bind_i(st, bd, base + 6, h->f - h->a);
        break;
    }
    }
}

/* Inserts n rows of one kind (1 or GROUP) in order, on the writer; keeps
 * the first error. */
static void write_rows(an_db_t *db, int kind, const an_row_t *const *rows, int n)
{
    sqlite3_stmt *st = n == 1 ? db->stmt[kind] : db->group[kind];
    an_bound_t *bd = db->bound[n == 1 ? 0 : 1][kind];

    for (int j = 0; j < n; j++)
        bind_row(st, bd, j * an__db_row_sql[kind].nparam, rows[j]);
    if (sqlite3_step(st) != SQLITE_DONE) {
        /* copied now: the connection's message changes with its next use */
        const an_row_t *a = rows[0], *z = rows[n - 1];
        if (n == 1)
            snprintf(db->errbuf, sizeof(db->errbuf),
                     "%s (writing %s of instance %d, operation %" PRId64 ")",
                     sqlite3_errmsg(db->db), an__db_row_sql[kind].table, a->instance, a->op);
        else
            snprintf(db->errbuf, sizeof(db->errbuf),
                     "%s (writing %d rows of %s, instance %d operation %" PRId64
                     " to instance %d operation %" PRId64 ")", sqlite3_errmsg(db->db), n,
                     an__db_row_sql[kind].table, a->instance, a->op, z->instance, z->op);
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

/* Prepares the INSERT of GROUP rows of kind. */
static cm_status_t prepare_group(an_db_t *db, int kind)
{
    size_t len = strlen(an__db_row_sql[kind].values) + 1;
    char *sql = malloc(64 + GROUP * len), *p = sql;
    int rc;

    if (sql == NULL)
        return CM_ERR_NOMEM;
    p += sprintf(p, "INSERT INTO %s VALUES", an__db_row_sql[kind].table);
    for (int j = 0; j < GROUP; j++)
        p += sprintf(p, "%s%s", j > 0 ? "," : "", an__db_row_sql[kind].values);
    rc = sqlite3_prepare_v3(db->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &db->group[kind], NULL);
    free(sql);
    return rc == SQLITE_OK ? CM_OK : CM_ERR_IO;
}

/* Allocates the batches and starts the thread; 0, or -1 (an_db_abort frees). */
static int writer_thread_start(an_db_t *db)
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

cm_status_t an__db_writer_start(an_db_t *db, cm_err_t *err)
{
    for (int k = 0; k < NKIND; k++)
        if (prepare_group(db, k) != CM_OK)
            return CM_ERR_AT(err, CM_ERR_IO, db->tmp, 0, 0, "cannot prepare the %s insert: %s",
                             an__db_row_sql[k].table, an_db_errmsg(db));
    if (writer_thread_start(db) != 0)
        return CM_ERR(err, CM_ERR_NOMEM, "cannot start the database writer thread");
    return CM_OK;
}

void an__db_writer_stop(an_db_t *db)
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

void an__db_writer_idle(an_db_t *db)
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

cm_status_t an__db_writer_sync(an_db_t *db)
{
    if (db->thr_on) {
        if (db->cur->n > 0)
            writer_submit(db, 0);
        an__db_writer_idle(db);
        if (db->cur == NULL)
            db->cur = db->freel[--db->nfree];     /* all are free now */
    }
    return atomic_load(&db->failed) ? CM_ERR_IO : CM_OK;
}

/* The next row of the caller's batch, or NULL once the writer has failed. */
static an_row_t *row_new(an_db_t *db, int kind, int instance, uint64_t op)
{
    an_row_t *r;

    if (atomic_load_explicit(&db->failed, memory_order_relaxed))
        return NULL;
    r = &db->cur->rows[db->cur->n++];
    r->kind = kind;
    r->instance = instance;
    r->op = (int64_t)op;
    return r;
}

/* After filling a row: a full batch goes to the writer. */
static cm_status_t row_done(an_db_t *db)
{
    if (db->cur->n == BATCH_ROWS)
        writer_submit(db, 1);
    return CM_OK;
}
/* ------------------------------------------------------------ the rows */

cm_status_t an_db_visit(an_db_t *db, const an_visit_t *v, int64_t t2, int64_t t3, int have_t23,
                        int arrival, int departure, int64_t arrival_wait, int64_t departure_wait)
{
    an_row_t *r = row_new(db, S_VISIT, v->instance, v->op);

    if (r == NULL)
        return CM_ERR_IO;
    r->visit = (an_visit_row_t){
        .node = v->node, .contrib = v->contrib, .arrival = arrival, .departure = departure,
        .have_t23 = have_t23, .location = (int64_t)db->defs->locs[v->loc].id, .t1 = v->t1,
        .t2 = t2, .t3 = t3, .t4 = v->t4, .arrival_wait = arrival_wait,
        .departure_wait = departure_wait,
    };
    return row_done(db);
}

cm_status_t an_db_op(an_db_t *db, int instance, uint64_t op, uint64_t bytes, int used,
                     int64_t t0, int64_t spread, int64_t host_spread, double avg_elapsed)
{
    an_row_t *r = row_new(db, S_OP, instance, op);

    if (r == NULL)
        return CM_ERR_IO;
    r->ops = (an_op_row_t){
        .used = used, .bytes = (int64_t)bytes, .t0 = t0, .arrival_spread = spread,
        .host_spread = host_spread, .avg_elapsed = avg_elapsed,
    };
    return row_done(db);
}

cm_status_t an_db_pap_host(an_db_t *db, int instance, uint64_t op, int host, int64_t a,
                           int64_t f)
{
    an_row_t *r = row_new(db, S_PAP_HOST, instance, op);

    if (r == NULL)
        return CM_ERR_IO;
    r->pap_host = (an_pap_host_row_t){ .host = host, .a = a, .f = f };
    return row_done(db);
}
