/*
 * an_mpi_db.c - an application trace into the analysis database: the
 * analysis of an archive whose INS_PROP_KIND is INS_KIND_MPI, from reading
 * to the committed file (docs/analysis-db.md, "Application traces").
 *
 * The database is created as every papanalyze database is (an_db_create:
 * the same atomic replacement, the tree tables present and empty), meta
 * kind = 'mpi' tells the report and papviz which it is, and these tables
 * hold the trace:
 *
 *   mpi_comms      one row per communicator
 *   mpi_callsites  one row per call site, symbolised (an_mpi_sym.c)
 *   mpi_calls      one row per call (a nonblocking one from its start to the
 *                  leave of the wait that completed it)
 *   mpi_ops        one row per matched operation (comm, seq): its arrival
 *                  pattern (an_mpi_metrics.c)
 *   mpi_sites      one row per call site: the per-site figures of the report
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "analyze/an_int.h"
#include "analyze/an_mpi_int.h"
#include "analyze/an_progress_int.h"
#include "analyze/api/an_analyze.h"

static const char *const schema_sql =
    "CREATE TABLE mpi_comms(comm INTEGER PRIMARY KEY, name TEXT, size INTEGER, ranks TEXT);\n"
    "CREATE TABLE mpi_callsites(site INTEGER PRIMARY KEY, name TEXT, module TEXT,"
    " offset INTEGER, function TEXT, file TEXT, line INTEGER, label TEXT);\n"
    "CREATE TABLE mpi_calls(call INTEGER PRIMARY KEY, rank INTEGER, thread INTEGER,"
    " location INTEGER, comm INTEGER, comm_name TEXT, comm_size INTEGER, comm_rank INTEGER,"
    " site INTEGER, callsite TEXT, function TEXT, label TEXT, mpi_function TEXT,"
    " collective TEXT, root INTEGER, bytes INTEGER, bytes_sent INTEGER, bytes_recv INTEGER,"
    " count INTEGER, dtype TEXT, op TEXT, enter INTEGER, leave INTEGER, elapsed INTEGER,"
    " algorithm TEXT, fallback TEXT, request INTEGER, seq INTEGER, a INTEGER, wait INTEGER);\n"
    "CREATE TABLE mpi_ops(comm INTEGER, seq INTEGER, collective TEXT, site INTEGER,"
    " nranks INTEGER, complete INTEGER, bytes INTEGER, t0 INTEGER, spread INTEGER,"
    " avg_imbalance REAL, op_time INTEGER, avg_elapsed REAL, avg_factor REAL,"
    " worst_factor REAL, wait INTEGER, last_rank INTEGER, PRIMARY KEY(comm, seq));\n";

/* Per call site, from the calls and the complete operations. */
static const char *const sites_sql =
    "CREATE TABLE mpi_sites AS SELECT s.site AS site, s.label AS label, s.name AS name,"
    " s.function AS function, s.file AS file, s.line AS line,"
    " (SELECT group_concat(collective, ',') FROM (SELECT DISTINCT collective FROM mpi_calls c"
    "   WHERE c.site = s.site ORDER BY collective)) AS collectives,"
    " (SELECT COUNT(*) FROM mpi_calls c WHERE c.site = s.site) AS calls,"
    " (SELECT COUNT(*) FROM mpi_ops o WHERE o.site = s.site AND o.complete) AS ops,"
    " (SELECT MIN(bytes) FROM mpi_calls c WHERE c.site = s.site) AS min_bytes,"
    " (SELECT MAX(bytes) FROM mpi_calls c WHERE c.site = s.site) AS max_bytes,"
    " (SELECT group_concat(algorithm, ',') FROM (SELECT DISTINCT algorithm FROM mpi_calls c"
    "   WHERE c.site = s.site ORDER BY algorithm)) AS algorithms,"
    " (SELECT COUNT(*) FROM mpi_calls c WHERE c.site = s.site AND c.fallback IS NOT NULL)"
    "   AS fallbacks,"
    " (SELECT group_concat(fallback, ',') FROM (SELECT DISTINCT fallback FROM mpi_calls c"
    "   WHERE c.site = s.site AND c.fallback IS NOT NULL ORDER BY fallback))"
    "   AS fallback_reasons,"
    " (SELECT AVG(elapsed) FROM mpi_calls c WHERE c.site = s.site) AS mean_time,"
    " (SELECT SUM(elapsed) FROM mpi_calls c WHERE c.site = s.site AND c.wait IS NOT NULL)"
    "   AS time,"
    " (SELECT SUM(wait) FROM mpi_calls c WHERE c.site = s.site) AS wait,"
    " (SELECT 100.0 * SUM(wait) / SUM(elapsed) FROM mpi_calls c WHERE c.site = s.site"
    "   AND c.wait IS NOT NULL AND c.elapsed IS NOT NULL) AS wait_pct,"
    " (SELECT AVG(op_time) FROM mpi_ops o WHERE o.site = s.site AND o.complete) AS op_time,"
    " (SELECT AVG(spread) FROM mpi_ops o WHERE o.site = s.site AND o.complete) AS spread,"
    " (SELECT MAX(spread) FROM mpi_ops o WHERE o.site = s.site AND o.complete) AS max_spread,"
    " (SELECT AVG(avg_imbalance) FROM mpi_ops o WHERE o.site = s.site AND o.complete)"
    "   AS avg_imbalance,"
    " (SELECT AVG(avg_factor) FROM mpi_ops o WHERE o.site = s.site AND o.complete)"
    "   AS avg_factor,"
    " (SELECT AVG(worst_factor) FROM mpi_ops o WHERE o.site = s.site AND o.complete)"
    "   AS worst_factor,"
    " (SELECT MAX(worst_factor) FROM mpi_ops o WHERE o.site = s.site AND o.complete)"
    "   AS max_worst_factor,"
    " (SELECT last_rank FROM mpi_ops o WHERE o.site = s.site AND o.complete"
    "   GROUP BY last_rank ORDER BY COUNT(*) DESC, last_rank LIMIT 1) AS last_rank,"
    " (SELECT COUNT(*) FROM mpi_ops o WHERE o.site = s.site AND o.complete GROUP BY last_rank"
    "   ORDER BY COUNT(*) DESC, last_rank LIMIT 1) AS last_count"
    " FROM mpi_callsites s ORDER BY s.site;\n";

static void bind_text_or_null(sqlite3_stmt *st, int col, const char *s)
{
    if (s == NULL || s[0] == '\0')
        sqlite3_bind_null(st, col);
    else
        sqlite3_bind_text(st, col, s, -1, SQLITE_TRANSIENT);
}

static void bind_int_if(sqlite3_stmt *st, int col, int have, int64_t v)
{
    if (have)
        sqlite3_bind_int64(st, col, v);
    else
        sqlite3_bind_null(st, col);
}

static void bind_real_if(sqlite3_stmt *st, int col, int have, double v)
{
    if (have)
        sqlite3_bind_double(st, col, v);
    else
        sqlite3_bind_null(st, col);
}

static int step(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);

    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int write_comms(sqlite3 *db, const an_mpi_trace_t *tr)
{
    sqlite3_stmt *st = NULL;
    int bad = sqlite3_prepare_v2(db, "INSERT INTO mpi_comms VALUES(?,?,?,?)", -1, &st, NULL);

    for (int i = 0; !bad && i < tr->ncomms; i++) {
        const an_mpi_comm_t *c = &tr->comms[i];
        size_t cap = (size_t)c->size * 12 + 8, len = 0;
        char *ranks = malloc(cap);
        if (ranks == NULL) {
            bad = 1;
            break;
        }
        ranks[0] = '\0';
        if (c->self)
            snprintf(ranks, cap, "self");
        for (int32_t k = 0; !c->self && k < c->size; k++)
            len += (size_t)snprintf(ranks + len, cap - len, "%s%d", k ? "," : "", c->world[k]);
        sqlite3_bind_int64(st, 1, c->id);
        sqlite3_bind_text(st, 2, c->name[0] ? c->name : NULL, -1, SQLITE_TRANSIENT);
        if (c->name[0] == '\0') {
            char name[32];
            snprintf(name, sizeof(name), "comm %u", c->id);
            sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
        }
        sqlite3_bind_int(st, 3, c->size);
        sqlite3_bind_text(st, 4, ranks, -1, SQLITE_TRANSIENT);
        bad = step(st);
        free(ranks);
    }
    sqlite3_finalize(st);
    return bad;
}

static int write_sites(sqlite3 *db, const an_mpi_trace_t *tr)
{
    sqlite3_stmt *st = NULL;
    int bad = sqlite3_prepare_v2(db, "INSERT INTO mpi_callsites VALUES(?,?,?,?,?,?,?,?)", -1,
                                 &st, NULL);

    for (int i = 0; !bad && i < tr->nsites; i++) {
        const an_mpi_site_t *s = &tr->sites[i];
        sqlite3_bind_int(st, 1, i);
        sqlite3_bind_text(st, 2, s->name, -1, SQLITE_STATIC);
        bind_text_or_null(st, 3, s->module);
        bind_int_if(st, 4, s->module != NULL && s->module[0], (int64_t)s->offset);
        bind_text_or_null(st, 5, s->function);
        bind_text_or_null(st, 6, s->file);
        bind_int_if(st, 7, s->line > 0, s->line);
        sqlite3_bind_text(st, 8, s->label != NULL ? s->label : s->name, -1, SQLITE_STATIC);
        bad = step(st);
    }
    sqlite3_finalize(st);
    return bad;
}

/* the order of mpi_calls rows: by rank, then enter */
static int cmp_call(const void *a, const void *b)
{
    const an_mpi_call_t *x = a, *y = b;

    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->enter != y->enter)
        return x->enter < y->enter ? -1 : 1;
    return x->thread < y->thread ? -1 : x->thread > y->thread;
}

static int write_call(sqlite3_stmt *st, const an_mpi_trace_t *tr, const an_mpi_call_t *c,
                      int64_t row)
{
    const an_mpi_comm_t *m = &tr->comms[c->comm];
    const an_mpi_site_t *s = &tr->sites[c->site];
    int done = c->leave >= c->enter;
    char cname[32];

    snprintf(cname, sizeof(cname), "comm %u", m->id);
    sqlite3_bind_int64(st, 1, row);
    sqlite3_bind_int(st, 2, c->rank);
    sqlite3_bind_int(st, 3, c->thread);
    sqlite3_bind_int64(st, 4, (int64_t)c->location);
    sqlite3_bind_int64(st, 5, m->id);
    sqlite3_bind_text(st, 6, m->name[0] ? m->name : cname, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 7, m->size);
    sqlite3_bind_int(st, 8, c->comm_rank);
    sqlite3_bind_int(st, 9, c->site);
    sqlite3_bind_text(st, 10, s->name, -1, SQLITE_STATIC);
    bind_text_or_null(st, 11, s->function);
    sqlite3_bind_text(st, 12, s->label, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 13, an_mpi_func_name(c->func), -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 14, an_mpi_coll_name(c->func), -1, SQLITE_STATIC);
    bind_int_if(st, 15, c->root != UINT32_MAX, c->root);
    sqlite3_bind_int64(st, 16, (int64_t)c->msg);
    sqlite3_bind_int64(st, 17, (int64_t)c->sent);
    sqlite3_bind_int64(st, 18, (int64_t)c->recv);
    sqlite3_bind_int64(st, 19, c->count);
    bind_text_or_null(st, 20, c->dtype);
    bind_text_or_null(st, 21, c->op);
    sqlite3_bind_int64(st, 22, c->enter);
    bind_int_if(st, 23, done, c->leave);
    bind_int_if(st, 24, done, c->leave - c->enter);
    bind_text_or_null(st, 25, c->algo);
    bind_text_or_null(st, 26, c->fallback);
    bind_int_if(st, 27, c->request != 0 || c->func >= AN_MPI_IALLREDUCE, (int64_t)c->request);
    sqlite3_bind_int64(st, 28, c->seq);
    bind_int_if(st, 29, c->a != INT64_MIN, c->a);
    bind_int_if(st, 30, c->wait != INT64_MIN, c->wait);
    return step(st);
}

static int write_calls(sqlite3 *db, an_mpi_trace_t *tr)
{
    sqlite3_stmt *st = NULL;
    int bad = sqlite3_prepare_v2(db, "INSERT INTO mpi_calls VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
                                 "?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &st, NULL);

    /* the metrics are done: the calls may be reordered for the rows */
    qsort(tr->calls, (size_t)tr->ncalls, sizeof(*tr->calls), cmp_call);
    for (int64_t i = 0; !bad && i < tr->ncalls; i++) {
        const an_mpi_call_t *c = &tr->calls[i];

        bad = write_call(st, tr, c, i);
        if (c->autorec >= 0 && (size_t)c->autorec < tr->autos.n) {  /* its operation */
            an_auto_rec_t *a = &tr->autos.r[c->autorec];
            a->instance = tr->comms[c->comm].id;
            a->op = c->seq;
            a->call = i;
            a->bytes = c->msg;
        }
    }
    sqlite3_finalize(st);
    return bad;
}

static int write_ops(sqlite3 *db, const an_mpi_trace_t *tr)
{
    sqlite3_stmt *st = NULL;
    int bad = sqlite3_prepare_v2(db, "INSERT INTO mpi_ops VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
                                 "?)", -1, &st, NULL);

    for (int64_t i = 0; !bad && i < tr->nops; i++) {
        const an_mpi_op_t *o = &tr->ops[i];
        int ok = o->complete, t = ok && o->op_time > 0;
        sqlite3_bind_int64(st, 1, tr->comms[o->comm].id);
        sqlite3_bind_int64(st, 2, o->seq);
        sqlite3_bind_text(st, 3, an_mpi_coll_name(o->func), -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 4, o->site);
        sqlite3_bind_int(st, 5, o->nranks);
        sqlite3_bind_int(st, 6, o->complete);
        sqlite3_bind_int64(st, 7, (int64_t)o->bytes);
        bind_int_if(st, 8, ok, o->t0);
        bind_int_if(st, 9, ok, o->spread);
        bind_real_if(st, 10, ok, o->avg_imb);
        bind_int_if(st, 11, ok, o->op_time);
        bind_real_if(st, 12, ok, o->avg_elapsed);
        bind_real_if(st, 13, t, o->avg_imb / (double)o->op_time);
        bind_real_if(st, 14, t, (double)o->spread / (double)o->op_time);
        bind_int_if(st, 15, ok, o->wait);
        bind_int_if(st, 16, ok, o->last_rank);
        bad = step(st);
    }
    sqlite3_finalize(st);
    return bad;
}

/* --ranks as "0,2,3" into buf (NULL when not given). */
static const char *ranks_text(const an_opts_t *opts, char *buf, size_t n)
{
    size_t k = 0;

    if (opts->ranks == NULL)
        return NULL;
    buf[0] = '\0';
    for (int i = 0; i < opts->nranks && k + 12 < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%d", i ? "," : "", opts->ranks[i]);
    return buf;
}

static int write_meta(an_db_t *db, const an_opts_t *opts, const an_mpi_trace_t *tr,
                      const an_mpi_part_t *part)
{
    char ranks[16], calls[24], ops[24], events[24], nread[24], first[24], last[24], sel[4096];
    const struct { const char *k, *v; } m[] = {
        { "kind", "mpi" }, { "schema_version", an__db_schema_version() },
        { "trace", opts->trace }, { "papanalyze", opts->command ? opts->command : "papanalyze" },
        { "trace_schema_version", tr->version }, { "command", tr->command },
        { "rules", tr->rules }, { "clock", tr->clock }, { "ranks", ranks }, { "calls", calls },
        { "ops", ops }, { "events", events }, { "events_read", nread },
        { "ops_first", opts->ops_part ? first : NULL },
        { "ops_last", opts->ops_part ? last : NULL },
        { "part_ranks", ranks_text(opts, sel, sizeof sel) },
        { "part_call_site", opts->call_site },
    };
    int64_t complete = 0;

    snprintf(events, sizeof(events), "%" PRIu64, tr->nevents);
    snprintf(nread, sizeof(nread), "%" PRIu64, part->nread);
    snprintf(first, sizeof(first), "%" PRIu64, opts->op_first);
    snprintf(last, sizeof(last), "%" PRIu64, opts->op_last);
    for (int64_t i = 0; i < tr->nops; i++)
        complete += tr->ops[i].complete;
    snprintf(ranks, sizeof(ranks), "%d", tr->nranks);
    snprintf(calls, sizeof(calls), "%" PRId64, tr->ncalls);
    snprintf(ops, sizeof(ops), "%" PRId64, complete);
    for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
        if (m[i].v != NULL && an_db_meta(db, m[i].k, m[i].v) != CM_OK)
            return -1;
    return 0;
}

static cm_status_t write_db(const an_opts_t *opts, an_mpi_trace_t *tr,
                            const an_mpi_part_t *part, const char *path, cm_err_t *err)
{
    an_db_t *db = NULL;
    sqlite3 *conn;
    cm_status_t st = an_db_create(path, opts->force, &db, err);

    if (st != CM_OK)
        return st;
    if ((conn = an__db_conn(db)) == NULL || write_meta(db, opts, tr, part) != 0
        || sqlite3_exec(conn, schema_sql, NULL, NULL, NULL) != SQLITE_OK
        || write_comms(conn, tr) != 0 || write_sites(conn, tr) != 0 || write_ops(conn, tr) != 0
        || write_calls(conn, tr) != 0
        || sqlite3_exec(conn, sites_sql, NULL, NULL, NULL) != SQLITE_OK) {
        st = CM_ERR_AT(err, CM_ERR_IO, path, 0, 0, "cannot write the database: %s",
                       an_db_errmsg(db));
        an_db_abort(db);
        return st;
    }
    st = an__auto_write(conn, &tr->autos, AN_AUTO_MPI, NULL, err);
    if (st == CM_OK && opts->baseline != NULL)
        st = tr->autos.n == 0 ? CM_ERR_AT(err, CM_ERR_INVALID, opts->trace, 0, 0, "--baseline: "
                                          "the trace has no choice of auto to compare")
                              : an__auto_baseline(conn, opts->baseline, err);
    if (st != CM_OK) {
        an_db_abort(db);
        return st;
    }
    return an_db_commit(db, err);
}

cm_status_t an_mpi_analyze(const an_opts_t *opts, an_result_t *res, cm_err_t *err)
{
    an_mpi_trace_t tr;
    an_progress_t pr;
    an_mpi_part_t part = { opts->ranks, opts->nranks, opts->ops_part, opts->op_first,
                           opts->op_last, opts->call_site, &pr, 0 };
    cm_status_t st;

    an_progress_init(&pr, 0, opts->progress);
    st = an_mpi_read(opts->trace, &tr, &part, err);
    if (st == CM_OK) {
        an_mpi_symbolise(&tr);
        st = an_mpi_metrics(&tr, &part, err);
    }
    if (st == CM_OK && tr.ncalls == 0 && (opts->ops_part || opts->call_site != NULL))
        st = CM_ERR_AT(err, CM_ERR_INVALID, opts->trace, 0, 0, "no call of the trace is in the "
                       "part asked (--ops, --call-site): nothing written");
    if (st == CM_OK) {
        res->events = tr.nevents;
        res->events_read = part.nread;
        res->visits = (uint64_t)tr.ncalls;
        res->ops = (uint64_t)tr.nops;
        for (int64_t i = 0; i < tr.nops; i++)
            res->ops_used += (uint64_t)tr.ops[i].complete;
        st = write_db(opts, &tr, &part, res->db, err);
    }
    an_mpi_trace_free(&tr);
    return st;
}

int an_mpi_db_is_mpi(sqlite3 *db)
{
    sqlite3_stmt *st = NULL;
    int yes = 0;

    if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'kind'", -1, &st, NULL)
            == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        yes = sqlite3_column_text(st, 0) != NULL
              && strcmp((const char *)sqlite3_column_text(st, 0), "mpi") == 0;
    sqlite3_finalize(st);
    return yes;
}

int an_is_mpi_database(const char *path)
{
    sqlite3 *db = NULL;
    int yes = 0;

    if (an_is_database(path) && sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL)
                                    == SQLITE_OK)
        yes = an_mpi_db_is_mpi(db);
    sqlite3_close(db);
    return yes;
}
