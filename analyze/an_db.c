/*
 * an_db.c - the analysis database (docs/analysis-db.md documents every
 * table): the connection, the rows of the definitions and statistics, the
 * final SQL (visit counts, imbalance, views), commit and abort.
 *
 * The database is built in a temporary file beside the target with no
 * journal and no syncs, inside one transaction, then renamed over the target
 * (an_db_file.c).  The rows that stream (visits, ops, pap_hosts) go through
 * a writer thread (an_db_writer.c); every other call here first waits until
 * the writer is idle, so that only one thread is ever inside SQLite.  The
 * schema is in an_db_schema.c.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/an_db_int.h"
#include "instrument/api/ins_schema.h"

const char *an_db_errmsg(an_db_t *db)
{
    if (db == NULL)
        return "no database";
    if (atomic_load(&db->failed))
        return db->errbuf;
    if (db->db == NULL)
        return "no database";
    an__db_writer_idle(db);               /* the connection is ours to ask */
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

/*
 * SQLite counts every allocation under a global mutex for
 * sqlite3_memory_used, which nothing here asks: off, before SQLite's first
 * use in the process (too late, it is refused and nothing changes).
 */
static pthread_once_t config_once = PTHREAD_ONCE_INIT;

static void config_sqlite(void)
{
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

cm_status_t an_db_create(const char *path, int force, an_db_t **out, cm_err_t *err)
{
    an_db_t *db;
    cm_status_t st = CM_OK;

    *out = NULL;
    if ((db = calloc(1, sizeof(*db))) == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    atomic_init(&db->failed, 0);
    db->fd = -1;
    if ((db->path = strdup(path)) == NULL) {
        an_db_abort(db);
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    }
    if ((st = an__db_file_create(db, force, err)) != CM_OK) {
        an_db_abort(db);
        return st;
    }
    /*
     * No connection mutex: the writer and the caller take turns
     * (an__db_writer_sync).  64 KiB pages: fewer, fuller pages for the
     * appended rows.  A small cache: pages are written out as the tables grow
     * (on the writer, beside the reading) rather than all at COMMIT, and
     * memory stays modest.
     */
    pthread_once(&config_once, config_sqlite);
    if (sqlite3_open_v2(db->tmp, &db->db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL)
            != SQLITE_OK
        || exec(db, "PRAGMA page_size = 65536; PRAGMA journal_mode = OFF;"
                    " PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE;"
                    " PRAGMA cache_size = -4096; PRAGMA temp_store = MEMORY; BEGIN;") != CM_OK
        || exec(db, an__db_schema_sql) != CM_OK)
        st = CM_ERR_AT(err, CM_ERR_IO, db->tmp, 0, 0, "cannot create the database: %s",
                       an_db_errmsg(db));
    for (int i = 0; i < S_N && st == CM_OK; i++)
        if (sqlite3_prepare_v3(db->db, an__db_stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
                               &db->stmt[i], NULL) != SQLITE_OK)
            st = CM_ERR_AT(err, CM_ERR_IO, db->tmp, 0, 0, "cannot prepare '%s': %s",
                           an__db_stmt_sql[i], an_db_errmsg(db));
    if (st == CM_OK)
        st = an__db_writer_start(db, err);
    if (st != CM_OK) {
        an_db_abort(db);
        return st;
    }
    *out = db;
    return CM_OK;
}

sqlite3 *an__db_conn(an_db_t *db)
{
    return an__db_writer_sync(db) == CM_OK ? db->db : NULL;
}

const char *an__db_schema_version(void)
{
    return AN_DB_SCHEMA_VERSION;
}

cm_status_t an_db_meta(an_db_t *db, const char *key, const char *value)
{
    if (an__db_writer_sync(db) != CM_OK)
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
        const char *t[10] = { NULL, w->name, cm_kind_name(w->kind), NULL, NULL, NULL, NULL,
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
    if (st == CM_OK && d->algo >= 0) {
        const an_wrapper_t *w = &d->nodes[d->algo];
        int64_t v[6] = { d->algo, 0, 0, w->root >= 0 ? w->root : AN_NULL, 0, w->nranks };
        const char *t[6] = { NULL, w->algo, strcmp(w->bcast, INS_NO_PARENT) == 0 ? "" : w->bcast,
                             NULL, w->arrival, NULL };
        st = row(db, "INSERT INTO algo_nodes VALUES(?,?,?,?,?,?)", 6, v, t);
        for (int r = 0; r < w->nranks && st == CM_OK; r++) {
            int64_t loc = AN_NULL;
            for (int i = 0; i < d->nlocs; i++)
                if (d->locs[i].role == AN_ROLE_ALGO && d->locs[i].rank == r)
                    loc = (int64_t)d->locs[i].id;
            int64_t rv[5] = { d->algo, r, w->rank_host[r], w->rank_contrib[r], loc };
            st = row(db, "INSERT INTO algo_ranks VALUES(?,?,?,?,?)", 5, rv, NULL);
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
        const char *t[10] = { NULL, NULL, l->role == AN_ROLE_COMPUTE ? "compute"
                              : l->role == AN_ROLE_ALGO ? "algo" : "service",
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

    if (an__db_writer_sync(db) != CM_OK)
        return CM_ERR_IO;
    db->defs = d;
    if ((st = defs_meta(db, d)) != CM_OK || (st = defs_hosts(db, d)) != CM_OK
        || (st = defs_tree(db, d)) != CM_OK)
        return st;
    return defs_threads(db, d);
}

cm_status_t an_db_stat(an_db_t *db, const char *scope, int node, int contrib, int thread,
                       const char *metric, uint64_t bytes, an_stat_t *s)
{
    sqlite3_stmt *st = db->stmt[S_STAT];
    an_summary_t sum;

    if (an__db_writer_sync(db) != CM_OK)
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

    if (an__db_writer_sync(db) != CM_OK)
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

    if (an__db_writer_sync(db) != CM_OK)
        return CM_ERR_IO;
    sqlite3_bind_int64(st, 1, (int64_t)bytes);
    bind_real(st, 2, ns);
    sqlite3_bind_text(st, 3, source, -1, SQLITE_STATIC);
    return step(db, S_P2P);
}

cm_status_t an_db_sync(an_db_t *db)
{
    return an__db_writer_sync(db);
}

/* Binds n integers to statement s and runs it. */
static cm_status_t step_ints(an_db_t *db, int s, const int64_t *v, int n)
{
    for (int i = 0; i < n; i++)
        sqlite3_bind_int64(db->stmt[s], i + 1, v[i]);
    return step(db, s);
}

cm_status_t an_db_algo_visit(an_db_t *db, const an_algo_visit_row_t *r)
{
    int64_t v[11] = { r->instance, (int64_t)r->op, r->node, r->rank, r->host, r->t1, r->t4,
                      r->t4 - r->t1, r->t1 - r->t0, r->t4 - r->t0, r->t4 - r->t1 };
    return step_ints(db, S_ALGO_VISIT, v, 11);
}

cm_status_t an_db_algo_op(an_db_t *db, const an_algo_op_row_t *r)
{
    int64_t v[8] = { r->instance, (int64_t)r->op, r->node, (int64_t)r->bytes, r->used, r->t0,
                     r->spread, r->span };
    for (int i = 0; i < 8; i++)
        sqlite3_bind_int64(db->stmt[S_ALGO_OP], i + 1, v[i]);
    bind_real(db->stmt[S_ALGO_OP], 9, r->avg_elapsed);
    return step(db, S_ALGO_OP);
}

cm_status_t an_db_algo_msg(an_db_t *db, const an_algo_msg_row_t *r)
{
    int64_t late = r->send_post > r->recv_post ? r->send_post - r->recv_post : 0;
    int64_t v[16] = { r->instance, (int64_t)r->op, r->node, r->round, r->src, r->dst,
                      r->src_host, r->dst_host, r->send_step, r->recv_step, (int64_t)r->bytes,
                      r->send_post, r->send_done, r->recv_post, r->recv_done, late };
    return step_ints(db, S_ALGO_MSG, v, 16);
}

cm_status_t an_db_algo_round(an_db_t *db, const an_algo_round_row_t *r)
{
    int64_t v[12] = { r->instance, (int64_t)r->op, r->node, r->round, r->rank, r->host,
                      r->nsend, r->nrecv, r->start, r->end, r->late, r->wait };
    return step_ints(db, S_ALGO_ROUND, v, 12);
}

cm_status_t an_db_algo_arrival(an_db_t *db, const an_algo_arrival_row_t *r)
{
    sqlite3_stmt *st = db->stmt[S_ALGO_ARRIVAL];
    const an_wrapper_t *w = &db->defs->nodes[r->node];
    int64_t v[5] = { r->instance, (int64_t)r->op, r->node, r->rank, r->host };

    for (int i = 0; i < 5; i++)
        sqlite3_bind_int64(st, i + 1, v[i]);
    sqlite3_bind_text(st, 6, an_source_name(r->a.asked), -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 7, an_source_name(r->a.used), -1, SQLITE_STATIC);
    bind_int_or_null(st, 8, r->a.missing >= 0 ? r->a.missing : AN_NULL);
    bind_int_or_null(st, 9, r->a.missing >= 0 ? w->rank_host[r->a.missing] : AN_NULL);
    if (r->a.error_ns != INT64_MIN)
        sqlite3_bind_int64(st, 10, r->a.error_ns);
    else
        sqlite3_bind_null(st, 10);
    if (r->a.lead_ns != INT64_MIN)
        sqlite3_bind_int64(st, 11, r->a.lead_ns);
    else
        sqlite3_bind_null(st, 11);
    sqlite3_bind_int64(st, 12, r->a.wait_ns);
    sqlite3_bind_int64(st, 13, r->t);
    return step(db, S_ALGO_ARRIVAL);
}

cm_status_t an_db_algo_arrival_stat(an_db_t *db, int node, uint64_t bytes, int rank,
                                    const char *metric, an_stat_t *s)
{
    sqlite3_stmt *st = db->stmt[S_ALGO_ARRIVAL_STAT];
    an_summary_t sum;

    an_stat_summary(s, &sum);
    sqlite3_bind_int(st, 1, node);
    sqlite3_bind_int64(st, 2, (int64_t)bytes);
    bind_int_or_null(st, 3, rank >= 0 ? rank : AN_NULL);
    bind_int_or_null(st, 4, rank >= 0 ? db->defs->nodes[node].rank_host[rank] : AN_NULL);
    sqlite3_bind_text(st, 5, metric, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 6, (int64_t)sum.n);
    bind_real(st, 7, sum.mean);
    bind_real(st, 8, sum.median);
    bind_real(st, 9, sum.stdev);
    bind_real(st, 10, sum.min);
    bind_real(st, 11, sum.max);
    bind_real(st, 12, sum.p10);
    bind_real(st, 13, sum.p90);
    bind_real(st, 14, fabs(sum.min) > fabs(sum.max) ? fabs(sum.min) : fabs(sum.max));
    return step(db, S_ALGO_ARRIVAL_STAT);
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
    /* d is NULL for an application trace (an_mpi_db.c): no tree locations */
    for (int i = 0; d != NULL && i < d->nlocs && rc == SQLITE_DONE; i++) {
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
                 "UPDATE algo_ops SET imbalance = arrival_spread /"
                 " (SELECT ns FROM p2p WHERE p2p.bytes = algo_ops.bytes AND p2p.ns > 0);"
                 "INSERT INTO stats SELECT 'pap', NULL, NULL, NULL, 'imbalance', s.bytes, s.n,"
                 " s.mean / p.ns, s.median / p.ns, s.stdev / p.ns, s.min / p.ns, s.max / p.ns,"
                 " s.p10 / p.ns, s.p90 / p.ns FROM stats s JOIN p2p p USING (bytes)"
                 " WHERE s.scope = 'pap' AND s.metric = 'host_spread' AND p.ns > 0;"
                 "INSERT OR REPLACE INTO meta SELECT 'p2p_source', source FROM p2p"
                 " ORDER BY bytes LIMIT 1;"
                 "INSERT OR REPLACE INTO meta SELECT 'p2p_ns', ns FROM p2p"
                 " WHERE (SELECT COUNT(*) FROM p2p) = 1;") != CM_OK)
        return CM_ERR_IO;
    return exec(db, an__db_views_sql);
}

cm_status_t an_db_commit(an_db_t *db, cm_err_t *err)
{
    cm_status_t st = an__db_writer_sync(db);

    an__db_writer_stop(db);               /* the connection is the caller's alone */
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
    } else {
        db->db = NULL;
        st = an__db_file_replace(db, err);
    }
    if (st != CM_OK) {
        an_db_abort(db);
        return st;
    }
    free(db->path);
    free(db);
    return CM_OK;
}

void an_db_abort(an_db_t *db)
{
    if (db == NULL)
        return;
    an__db_writer_stop(db);
    for (int i = 0; i < S_N; i++)
        sqlite3_finalize(db->stmt[i]);
    for (int i = 0; i < NKIND; i++)
        sqlite3_finalize(db->group[i]);
    if (db->db != NULL)
        sqlite3_close(db->db);
    an__db_file_drop(db);
    free(db->path);
    free(db);
}
