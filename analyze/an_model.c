/*
 * an_model.c - analyze's model for papviz: a database read back into plain
 * structs (api/an_model.h).
 *
 * All of papviz's SQL lives here and in an_model_algo.c (algorithm nodes,
 * whose helpers from here an_model_int.h declares).  an_model_open reads what
 * every chart needs and is small (tree, per tuple size the stats of threads
 * and wrappers: O(threads x path length)); the order matrices, departure curves
 * and arrival patterns scan the visits table and are read on demand, once
 * each (cached in the model).  Everything is carved from one arena, freed by
 * an_model_close; the database stays open read-only in between.
 */
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "common/cm_arena.h"
#include "analyze/an_int.h"
#include "analyze/api/an_model.h"
#include "analyze/an_model_int.h"
#include "analyze/an_mpi_int.h"

/* One cached on-demand result. */
typedef struct cache {
    struct cache *next;
    int           what, node, subtree;
    int64_t       bytes;
    const void   *ptr;
    int64_t       op;           /* C_SCHEDULE: the operation (subtree = instance) */
} cache_t;

typedef struct priv {
    sqlite3    *db;
    cm_arena_t *arena;
    cache_t    *cache;
} priv_t;

static priv_t *P(const an_model_t *m)
{
    return m->priv;
}

static cm_status_t sql_fail(an_model_t *m, cm_err_t *err, const char *what)
{
    return CM_ERR_AT(err, CM_ERR_IO, m->db, 0, 0, "%s: %s", what,
                     P(m)->db ? sqlite3_errmsg(P(m)->db) : "no database");
}

static void *alloc(an_model_t *m, size_t n, size_t size)
{
    return cm_arena_alloc(P(m)->arena, (n ? n : 1) * size);
}

static cm_status_t nomem(cm_err_t *err)
{
    return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
}

const char *an_model_strdup(an_model_t *m, const char *s)
{
    s = s ? s : "";
    return cm_arena_strndup(P(m)->arena, s, strlen(s));
}

static const char *col_str(an_model_t *m, sqlite3_stmt *st, int i)
{
    return an_model_strdup(m, (const char *)sqlite3_column_text(st, i));
}

static int col_int(sqlite3_stmt *st, int i, int null_value)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? null_value : sqlite3_column_int(st, i);
}

/* Reads n, mean, median, stdev, min, max, p10, p90 from columns i..i+7. */
static an_model_stat_t col_stat(sqlite3_stmt *st, int i)
{
    an_model_stat_t s = {
        sqlite3_column_int64(st, i), sqlite3_column_double(st, i + 1),
        sqlite3_column_double(st, i + 2), sqlite3_column_double(st, i + 3),
        sqlite3_column_double(st, i + 4), sqlite3_column_double(st, i + 5),
        sqlite3_column_double(st, i + 6), sqlite3_column_double(st, i + 7),
    };
    return s;
}

#define STAT_COLS "n, mean, median, stdev, min, max, p10, p90"

/* Prepares sql with integer parameters (INT64_MIN ends the list). */
static sqlite3_stmt *prepare(an_model_t *m, const char *sql, const int64_t *args, int nargs)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(P(m)->db, sql, -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return NULL;
    }
    for (int i = 0; i < nargs; i++)
        sqlite3_bind_int64(st, i + 1, args[i]);
    return st;
}

/* Ends a query loop: CM_OK if the statement ran to SQLITE_DONE. */
static cm_status_t finish(an_model_t *m, sqlite3_stmt *st, int rc, cm_err_t *err,
                          const char *what)
{
    cm_status_t ret = rc == SQLITE_DONE ? CM_OK : sql_fail(m, err, what);
    sqlite3_finalize(st);
    return ret;
}

/* ---------------------------------------------------------------- tree */

static const char *meta(an_model_t *m, const char *key)
{
    sqlite3_stmt *st = NULL;
    const char *v = NULL;
    if (sqlite3_prepare_v2(P(m)->db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL)
        == SQLITE_OK) {
        sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW)
            v = col_str(m, st, 0);
    }
    sqlite3_finalize(st);
    return v;
}

static an_model_kind_t kind_of(const char *name)
{
    cm_kind_t k;
    return cm_kind_parse(name, strlen(name), &k) == 0 ? (an_model_kind_t)k : AN_KIND_OTHER;
}

cm_status_t an_model_tree_alloc(an_model_t *m, int nhosts, int nwrappers, int nthreads)
{
    an_model_tree_t *t = &m->tree;
    t->hosts = alloc(m, (size_t)nhosts, sizeof *t->hosts);
    t->wrappers = alloc(m, (size_t)nwrappers, sizeof *t->wrappers);
    t->threads = alloc(m, (size_t)nthreads, sizeof *t->threads);
    if (t->hosts == NULL || t->wrappers == NULL || t->threads == NULL)
        return CM_ERR_NOMEM;
    t->nhosts = nhosts;
    t->nwrappers = nwrappers;
    t->nthreads = nthreads;
    return CM_OK;
}

static int count(an_model_t *m, const char *table)
{
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM %s", table);
    sqlite3_stmt *st = prepare(m, sql, NULL, 0);
    int n = st && sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
    sqlite3_finalize(st);
    return n;
}

/* Rows must be numbered 0..n-1 by their key; anything else is a damaged database. */
static cm_status_t load_hosts_wrappers(an_model_t *m, cm_err_t *err)
{
    an_model_tree_t *t = &m->tree;
    sqlite3_stmt *st = prepare(m, "SELECT host, name, hostname FROM hosts ORDER BY host",
                               NULL, 0);
    int rc = SQLITE_ERROR, i = 0;
    while (st && (rc = sqlite3_step(st)) == SQLITE_ROW && i < t->nhosts) {
        an_model_host_t *h = &t->hosts[i];
        h->host = sqlite3_column_int(st, 0);
        h->name = col_str(m, st, 1);
        h->hostname = col_str(m, st, 2);
        if (h->host != i++)
            return sqlite3_finalize(st), sql_fail(m, err, "hosts are not numbered 0..n-1");
    }
    if (finish(m, st, st ? rc : SQLITE_ERROR, err, "reading hosts") != CM_OK)
        return err->status;
    st = prepare(m, "SELECT node, name, kind, host, parent, level, fanin, nhosts, part, line"
                 " FROM wrappers ORDER BY node", NULL, 0);
    i = 0;
    while (st && (rc = sqlite3_step(st)) == SQLITE_ROW && i < t->nwrappers) {
        an_model_wrapper_t *w = &t->wrappers[i];
        w->node = sqlite3_column_int(st, 0);
        w->name = col_str(m, st, 1);
        w->kind_name = col_str(m, st, 2);
        w->kind = kind_of(w->kind_name);
        w->host = sqlite3_column_int(st, 3);
        w->parent = col_int(st, 4, -1);
        w->level = sqlite3_column_int(st, 5);
        w->fanin = sqlite3_column_int(st, 6);
        w->nhosts = sqlite3_column_int(st, 7);
        w->part = col_str(m, st, 8);
        w->line = col_int(st, 9, 0);
        if (w->node != i++ || w->parent >= t->nwrappers || w->host < 0 || w->host >= t->nhosts)
            return sqlite3_finalize(st), sql_fail(m, err, "wrappers are inconsistent");
    }
    return finish(m, st, st ? rc : SQLITE_ERROR, err, "reading wrappers");
}

static cm_status_t load_tree(an_model_t *m, cm_err_t *err)
{
    an_model_tree_t *t = &m->tree;
    int nh = count(m, "hosts"), nw = count(m, "wrappers"), nt = count(m, "threads");
    if (nh < 0 || nw < 0 || nt < 0)
        return sql_fail(m, err, "not a papanalyze database");
    if (an_model_tree_alloc(m, nh, nw, nt) != CM_OK)
        return nomem(err);
    t->name = meta(m, "tree");
    if (load_hosts_wrappers(m, err) != CM_OK)
        return err->status;
    sqlite3_stmt *st = prepare(m, "SELECT thread, host, enter, nproxies, nstages FROM threads"
                               " ORDER BY thread", NULL, 0);
    int rc = SQLITE_ERROR, i = 0;
    while (st && (rc = sqlite3_step(st)) == SQLITE_ROW && i < nt) {
        an_model_thread_t *th = &t->threads[i++];
        th->thread = sqlite3_column_int(st, 0);
        th->host = sqlite3_column_int(st, 1);
        th->enter = sqlite3_column_int(st, 2);
        th->nproxies = sqlite3_column_int(st, 3);
        th->nstages = sqlite3_column_int(st, 4);
        if (th->enter < 0 || th->enter >= nw || th->host < 0 || th->host >= nh)
            return sqlite3_finalize(st), sql_fail(m, err, "threads are inconsistent");
    }
    if (finish(m, st, st ? rc : SQLITE_ERROR, err, "reading threads") != CM_OK)
        return err->status;
    return an__model_load_algo_nodes(m, err);
}

/* --------------------------------------------------------------- sizes */

static an_model_stage_kind_t stage_kind(const char *name)
{
    static const char *const names[] = {
        [AN_STAGE_ARRIVAL_WAIT] = "arrival_wait", [AN_STAGE_DOWN] = "down",
        [AN_STAGE_LATENCY] = "latency", [AN_STAGE_UP] = "up",
        [AN_STAGE_DEPARTURE_WAIT] = "departure_wait",
    };
    for (int k = 0; k < (int)(sizeof names / sizeof names[0]); k++)
        if (strcmp(name, names[k]) == 0)
            return (an_model_stage_kind_t)k;
    return AN_STAGE_LATENCY;
}

/* The stages of every thread for one size (thread_stages, in seq order). */
static cm_status_t load_paths(an_model_t *m, an_model_size_t *sz, cm_err_t *err)
{
    const an_model_tree_t *t = &m->tree;
    int64_t arg = sz->bytes;
    sz->paths = alloc(m, (size_t)t->nthreads, sizeof *sz->paths);
    if (sz->paths == NULL)
        return nomem(err);
    for (int i = 0; i < t->nthreads; i++) {
        sz->paths[i].thread = t->threads[i].thread;
        /* at most 2 stages per wrapper on the way down and 2 on the way up */
        sz->paths[i].stages = alloc(m, 4 * (size_t)t->threads[i].nstages,
                                    sizeof *sz->paths[i].stages);
        if (sz->paths[i].stages == NULL)
            return nomem(err);
    }
    sqlite3_stmt *st = prepare(m, "SELECT thread, step, node, stage, direction = 'up', "
                               STAT_COLS " FROM thread_stages WHERE bytes = ?"
                               " ORDER BY thread, seq", &arg, 1);
    int rc = SQLITE_ERROR;
    while (st && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int i = an_model_thread_index(t, sqlite3_column_int(st, 0));
        if (i < 0 || sz->paths[i].nstages >= 4 * t->threads[i].nstages)
            return sqlite3_finalize(st), sql_fail(m, err, "thread stages are inconsistent");
        an_model_stage_t *s = &sz->paths[i].stages[sz->paths[i].nstages++];
        s->step = sqlite3_column_int(st, 1);
        s->node = sqlite3_column_int(st, 2);
        s->name = col_str(m, st, 3);
        s->kind = stage_kind(s->name);
        s->up = sqlite3_column_int(st, 4);
        s->s = col_stat(st, 5);
    }
    return finish(m, st, st ? rc : SQLITE_ERROR, err, "reading thread stages");
}

/* Thread totals and wrapper statistics of one size. */
static cm_status_t load_stats(an_model_t *m, an_model_size_t *sz, cm_err_t *err)
{
    const an_model_tree_t *t = &m->tree;
    int64_t arg = sz->bytes;
    sz->wstats = alloc(m, (size_t)t->nwrappers, sizeof *sz->wstats);
    if (sz->wstats == NULL)
        return nomem(err);
    sqlite3_stmt *st = prepare(m, "SELECT scope, node, thread, metric, " STAT_COLS
                               " FROM stats WHERE bytes = ? AND ((scope = 'wrapper')"
                               " OR (scope = 'thread' AND node IS NULL))", &arg, 1);
    int rc = SQLITE_ERROR;
    while (st && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *scope = (const char *)sqlite3_column_text(st, 0);
        const char *metric = (const char *)sqlite3_column_text(st, 3);
        an_model_stat_t s = col_stat(st, 4);
        if (scope == NULL || metric == NULL)       /* a damaged row: no such series */
            continue;
        if (strcmp(scope, "thread") == 0) {
            int i = an_model_thread_index(t, col_int(st, 2, -1));
            if (i >= 0 && strcmp(metric, "total") == 0)
                sz->paths[i].total = s;
            else if (i >= 0 && strcmp(metric, "total_no_wait") == 0)
                sz->paths[i].total_no_wait = s;
            continue;
        }
        int node = col_int(st, 1, -1);
        if (node < 0 || node >= t->nwrappers)
            continue;
        an_model_wstats_t *w = &sz->wstats[node];
        an_model_stat_t *slot = strcmp(metric, "down") == 0 ? &w->down
            : strcmp(metric, "up") == 0 ? &w->up
            : strcmp(metric, "latency") == 0 ? &w->latency
            : strcmp(metric, "arrival_wait") == 0 ? &w->arrival_wait
            : strcmp(metric, "departure_wait") == 0 ? &w->departure_wait : NULL;
        if (slot != NULL)
            *slot = s;
    }
    return finish(m, st, st ? rc : SQLITE_ERROR, err, "reading statistics");
}

#define SIZES_MAX 64      /* tuple sizes in one database (Gsum's -s list) */

/* The tuple sizes with used operations (one scan of ops), then their data. */
static cm_status_t load_sizes(an_model_t *m, cm_err_t *err)
{
    int64_t bytes[SIZES_MAX], ops[SIZES_MAX];
    int n = 0, rc = SQLITE_ERROR;
    sqlite3_stmt *st = prepare(m, "SELECT bytes, COUNT(*) FROM ops WHERE used"
                               " GROUP BY bytes ORDER BY bytes", NULL, 0);
    while (st && (rc = sqlite3_step(st)) == SQLITE_ROW && n < SIZES_MAX) {
        bytes[n] = sqlite3_column_int64(st, 0);
        ops[n++] = sqlite3_column_int64(st, 1);
    }
    if (rc == SQLITE_ROW)
        return sqlite3_finalize(st), CM_ERR_AT(err, CM_ERR_RANGE, m->db, 0, 0,
                                               "more than %d tuple sizes", SIZES_MAX);
    if (finish(m, st, st ? rc : SQLITE_ERROR, err, "reading operations") != CM_OK)
        return err->status;
    m->sizes = alloc(m, (size_t)n, sizeof *m->sizes);
    if (m->sizes == NULL)
        return nomem(err);
    for (m->nsizes = 0; m->nsizes < n; m->nsizes++) {
        an_model_size_t *sz = &m->sizes[m->nsizes];
        sz->bytes = bytes[m->nsizes];
        sz->ops_used = ops[m->nsizes];
        if (load_paths(m, sz, err) != CM_OK || load_stats(m, sz, err) != CM_OK)
            return err->status;
        sz->fastest = (int)an__thread_end(P(m)->db, sz->bytes, 0);
        sz->slowest = (int)an__thread_end(P(m)->db, sz->bytes, 1);
    }
    return CM_OK;
}

/* ---------------------------------------------------------- open/close */

an_model_t *an_model_create(void)
{
    cm_arena_t *arena = cm_arena_create();
    if (arena == NULL)
        return NULL;
    an_model_t *m = cm_arena_alloc(arena, sizeof *m);
    priv_t *p = cm_arena_alloc(arena, sizeof *p);
    if (m == NULL || p == NULL) {
        cm_arena_destroy(arena);
        return NULL;
    }
    p->arena = arena;
    m->priv = p;
    m->db = m->trace = m->pathmap_path = m->pathmap = m->command = "";
    m->tree.name = "";
    return m;
}

void an_model_close(an_model_t *m)
{
    if (m == NULL)
        return;
    sqlite3_close(P(m)->db);
    cm_arena_destroy(P(m)->arena);
}

cm_status_t an_model_open(const char *db, an_model_t **m_p, cm_err_t *err)
{
    an_model_t *m = an_model_create();
    if (m == NULL)
        return nomem(err);
    m->db = an_model_strdup(m, db);
    /* the same checks and messages as the report's (an_db_read.c) */
    cm_status_t st = an_db_open_read(db, &P(m)->db, err);
    if (st == CM_OK && an_mpi_db_is_mpi(P(m)->db))
        st = CM_ERR_AT(err, CM_ERR_INVALID, db, 0, 0, "an application trace's database: "
                       "papanalyze DB reports it, papviz arrivals-by-site draws it");
    if (st != CM_OK || load_tree(m, err) != CM_OK
        || load_sizes(m, err) != CM_OK) {
        an_model_close(m);
        return err->status;
    }
    const char *v;
    m->trace = (v = meta(m, "trace")) ? v : "";
    m->pathmap_path = (v = meta(m, "pathmap_path")) ? v : "";
    m->pathmap = (v = meta(m, "pathmap")) ? v : "";
    m->command = (v = meta(m, "command")) ? v : "";
    *m_p = m;
    return CM_OK;
}

/* ---------------------------------------------------------- lookups */

const an_model_size_t *an_model_size(const an_model_t *m, int64_t bytes)
{
    for (int i = 0; i < m->nsizes; i++)
        if (bytes < 0 || m->sizes[i].bytes == bytes)
            return &m->sizes[i];
    return NULL;
}

int an_model_thread_index(const an_model_tree_t *t, int thread)
{
    int lo = 0, hi = t->nthreads - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (t->threads[mid].thread == thread)
            return mid;
        if (t->threads[mid].thread < thread)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

int an_model_node_by_name(const an_model_tree_t *t, const char *name)
{
    for (int i = 0; i < t->nwrappers; i++)
        if (strcmp(t->wrappers[i].name, name) == 0)
            return i;
    return -1;
}

/* ---------------------------------------------------------- on demand */

static const void *cached_op(an_model_t *m, int what, int64_t bytes, int node, int subtree,
                             int64_t op)
{
    for (cache_t *c = P(m)->cache; c; c = c->next)
        if (c->what == what && c->bytes == bytes && c->node == node && c->subtree == subtree
            && c->op == op)
            return c->ptr;
    return NULL;
}

static const void *cached(an_model_t *m, int what, int64_t bytes, int node, int subtree)
{
    return cached_op(m, what, bytes, node, subtree, 0);
}

static void remember_op(an_model_t *m, int what, int64_t bytes, int node, int subtree,
                        int64_t op, const void *ptr)
{
    cache_t *c = alloc(m, 1, sizeof *c);
    if (c == NULL)
        return;
    *c = (cache_t){ P(m)->cache, what, node, subtree, bytes, ptr, op };
    P(m)->cache = c;
}

static void remember(an_model_t *m, int what, int64_t bytes, int node, int subtree,
                     const void *ptr)
{
    remember_op(m, what, bytes, node, subtree, 0, ptr);
}

/* Checks that node exists, has statistics for bytes, and (for gred-only
 * questions) is a gred. */
static cm_status_t check_node(an_model_t *m, int64_t bytes, int node, int gred_only,
                              cm_err_t *err)
{
    if (node < 0 || node >= m->tree.nwrappers)
        return CM_ERR_AT(err, CM_ERR_NAME, m->db, 0, 0, "no wrapper number %d", node);
    if (an_model_size(m, bytes) == NULL)
        return CM_ERR_AT(err, CM_ERR_INVALID, m->db, 0, 0, "no operations of %lld bytes",
                         (long long)bytes);
    const an_model_wrapper_t *w = &m->tree.wrappers[node];
    if (gred_only && w->kind != AN_KIND_GRED)
        return CM_ERR_AT(err, CM_ERR_INVALID, m->db, 0, 0, "'%s' is a %s, not a gred",
                         w->name, w->kind_name);
    return CM_OK;
}

/* Threads below node (the subtree's contributors). */
static int threads_below(an_model_t *m, int node)
{
    int64_t arg = node;
    sqlite3_stmt *st = prepare(m, "SELECT COUNT(*) FROM paths WHERE node = ?", &arg, 1);
    int n = st && sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
    sqlite3_finalize(st);
    return n;
}

cm_status_t an_model_orders(an_model_t *m, int64_t bytes, int node, int subtree,
                            const an_model_orders_t **o_p, cm_err_t *err)
{
    const an_model_orders_t *hit = cached(m, C_ORDERS, bytes, node, subtree);
    if (hit != NULL)
        return *o_p = hit, CM_OK;
    if (check_node(m, bytes, node, !subtree, err) != CM_OK)
        return err->status;
    an_model_orders_t *o = alloc(m, 1, sizeof *o);
    if (o == NULL)
        return nomem(err);
    o->node = node;
    o->n = subtree ? threads_below(m, node) : m->tree.wrappers[node].fanin;
    o->count = alloc(m, (size_t)o->n * (size_t)o->n, sizeof *o->count);
    o->percent = alloc(m, (size_t)o->n * (size_t)o->n, sizeof *o->percent);
    if (o->count == NULL || o->percent == NULL)
        return nomem(err);
    int64_t args[2] = { node, bytes };
    sqlite3_stmt *st = prepare(m, subtree
        ? "SELECT arrival, departure, SUM(count) FROM subtree_orders WHERE node = ?"
          " AND bytes = ? GROUP BY arrival, departure"
        : "SELECT arrival, departure, SUM(count) FROM orders WHERE node = ?"
          " AND bytes = ? GROUP BY arrival, departure", args, 2);
    int rc = SQLITE_ERROR;
    while (st && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int a = sqlite3_column_int(st, 0), d = sqlite3_column_int(st, 1);
        if (a < 1 || a > o->n || d < 1 || d > o->n)
            return sqlite3_finalize(st), sql_fail(m, err, "orders are inconsistent");
        o->count[(a - 1) * o->n + (d - 1)] = sqlite3_column_int64(st, 2);
    }
    if (finish(m, st, st ? rc : SQLITE_ERROR, err, "reading orders") != CM_OK)
        return err->status;
    for (int a = 0; a < o->n; a++) {
        int64_t row = 0;
        for (int d = 0; d < o->n; d++)
            row += o->count[a * o->n + d];
        for (int d = 0; d < o->n; d++)
            o->percent[a * o->n + d] = row ? 100.0 * (double)o->count[a * o->n + d] / (double)row : 0;
        if (a == 0)
            o->ops = row;       /* every operation has one first arrival */
    }
    remember(m, C_ORDERS, bytes, node, subtree, o);
    return *o_p = o, CM_OK;
}

/* Mean departure wait by departure order: of a gred's contributors (its
 * visits' departure and departure_wait), or of the threads of a subtree
 * (ranked by t4 at their entry wrappers, ties by thread number). */
static const char *const departures_sql[2] = {
    "SELECT v.departure, AVG(v.departure_wait), COUNT(*) FROM visits v"
    " JOIN ops o ON o.instance = v.instance AND o.op = v.op"
    " WHERE v.node = ?1 AND o.used AND o.bytes = ?2"
    " GROUP BY v.departure ORDER BY v.departure",
    "SELECT k, AVG(t4 - first), COUNT(*) FROM (SELECT"
    "  ROW_NUMBER() OVER (PARTITION BY v.instance, v.op ORDER BY v.t4, t.thread) AS k,"
    "  v.t4 AS t4, MIN(v.t4) OVER (PARTITION BY v.instance, v.op) AS first"
    "  FROM visits v JOIN ops o ON o.instance = v.instance AND o.op = v.op"
    "  JOIN locations l ON l.location = v.location"
    "  JOIN threads t ON t.thread = l.thread AND t.enter = v.node"
    "  WHERE o.used AND o.bytes = ?2"
    "  AND t.thread IN (SELECT thread FROM paths WHERE node = ?1))"
    " GROUP BY k ORDER BY k",
};

/* The up latency of the gred, or of the subtree (stats scope 'subtree'). */
static double up_latency(an_model_t *m, int64_t bytes, int node, int subtree)
{
    if (!subtree)
        return an_model_size(m, bytes)->wstats[node].up.mean;
    int64_t args[2] = { node, bytes };
    sqlite3_stmt *st = prepare(m, "SELECT mean FROM stats WHERE scope = 'subtree'"
                               " AND node = ? AND thread IS NULL AND metric = 'up'"
                               " AND bytes = ?", args, 2);
    double up = st && sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_double(st, 0) : 0;
    sqlite3_finalize(st);
    return up;
}

cm_status_t an_model_departures(an_model_t *m, int64_t bytes, int node, int subtree,
                                const an_model_departures_t **d_p, cm_err_t *err)
{
    const an_model_departures_t *hit = cached(m, C_DEPARTURES, bytes, node, subtree);
    if (hit != NULL)
        return *d_p = hit, CM_OK;
    if (check_node(m, bytes, node, !subtree, err) != CM_OK)
        return err->status;
    if (subtree && m->tree.wrappers[node].kind == AN_KIND_PROXY)
        return CM_ERR_AT(err, CM_ERR_INVALID, m->db, 0, 0, "'%s' is a proxy: a subtree is "
                         "rooted at a gred or the core", m->tree.wrappers[node].name);
    an_model_departures_t *d = alloc(m, 1, sizeof *d);
    if (d == NULL)
        return nomem(err);
    d->node = node;
    d->subtree = subtree;
    d->n = subtree ? threads_below(m, node) : m->tree.wrappers[node].fanin;
    d->wait = alloc(m, (size_t)d->n, sizeof *d->wait);
    if (d->wait == NULL)
        return nomem(err);
    d->up = up_latency(m, bytes, node, subtree);
    int64_t args[2] = { node, bytes };
    sqlite3_stmt *st = prepare(m, departures_sql[subtree != 0], args, 2);
    int rc = SQLITE_ERROR;
    while (st && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int k = sqlite3_column_int(st, 0);
        if (k < 1 || k > d->n)
            return sqlite3_finalize(st), sql_fail(m, err, "departure orders are inconsistent");
        d->wait[k - 1] = sqlite3_column_double(st, 1);
        if (k == 1)
            d->ops = sqlite3_column_int64(st, 2);
    }
    if (finish(m, st, st ? rc : SQLITE_ERROR, err, "reading departures") != CM_OK)
        return err->status;
    remember(m, C_DEPARTURES, bytes, node, subtree, d);
    return *d_p = d, CM_OK;
}

/* Rows (id, host, mean a, mean e) of a PAP query into *rows_p; returns the count or -1. */
static int pap_rows(an_model_t *m, const char *sql, int64_t bytes, int max,
                    an_model_pap_row_t **rows_p)
{
    an_model_pap_row_t *rows = alloc(m, (size_t)max, sizeof *rows);
    if (rows == NULL)
        return -1;
    sqlite3_stmt *st = prepare(m, sql, &bytes, 1);
    int n = 0, rc = SQLITE_ERROR;
    while (st && (rc = sqlite3_step(st)) == SQLITE_ROW && n < max) {
        rows[n].id = sqlite3_column_int(st, 0);
        rows[n].host = sqlite3_column_int(st, 1);
        rows[n].a = sqlite3_column_double(st, 2);
        rows[n].e = sqlite3_column_double(st, 3);
        n++;
    }
    sqlite3_finalize(st);
    *rows_p = rows;
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? n : -1;
}

static cm_status_t pap_summary(an_model_t *m, an_model_pap_t *p, int64_t bytes, cm_err_t *err)
{
    sqlite3_stmt *st = prepare(m, "SELECT metric, " STAT_COLS " FROM stats WHERE"
                               " scope = 'pap' AND thread IS NULL AND bytes = ?", &bytes, 1);
    int rc = SQLITE_ERROR;
    while (st && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *metric = (const char *)sqlite3_column_text(st, 0);
        an_model_stat_t s = col_stat(st, 1);
        if (metric == NULL)                        /* a damaged row: no such series */
            continue;
        if (strcmp(metric, "avg_elapsed") == 0)
            p->avg_elapsed_s = s;
        else if (strcmp(metric, "arrival_spread") == 0)
            p->arrival_spread_s = s;
        else if (strcmp(metric, "host_spread") == 0)
            p->host_spread_s = s;
        else if (strcmp(metric, "imbalance") == 0)
            p->imbalance_s = s;
    }
    if (finish(m, st, st ? rc : SQLITE_ERROR, err, "reading PAP statistics") != CM_OK)
        return err->status;
    st = prepare(m, "SELECT ns FROM p2p WHERE bytes = ?", &bytes, 1);
    p->p2p_ns = st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL
        ? sqlite3_column_double(st, 0) : -1;
    sqlite3_finalize(st);
    return CM_OK;
}

cm_status_t an_model_pap(an_model_t *m, int64_t bytes, const an_model_pap_t **p_p,
                         cm_err_t *err)
{
    const an_model_pap_t *hit = cached(m, C_PAP, bytes, -1, 0);
    if (hit != NULL)
        return *p_p = hit, CM_OK;
    const an_model_size_t *sz = an_model_size(m, bytes);
    if (sz == NULL)
        return CM_ERR_AT(err, CM_ERR_INVALID, m->db, 0, 0, "no operations of %lld bytes",
                         (long long)bytes);
    an_model_pap_t *p = alloc(m, 1, sizeof *p);
    if (p == NULL)
        return nomem(err);
    /* pap_threads' definition, with the filter on ops inside (one join of ops, not two) */
    p->nthreads = pap_rows(m, "SELECT t.thread, t.host, AVG(v.t1 - o.t0), AVG(v.t4 - v.t1)"
                           " FROM visits v JOIN ops o ON o.instance = v.instance AND o.op = v.op"
                           " JOIN locations l ON l.location = v.location"
                           " JOIN threads t ON t.thread = l.thread AND t.enter = v.node"
                           " WHERE o.used AND o.bytes = ? GROUP BY t.thread ORDER BY t.thread",
                           bytes, m->tree.nthreads, &p->threads);
    p->nhosts = pap_rows(m, "SELECT h.host, h.host, AVG(h.a), AVG(h.e) FROM pap_hosts h"
                         " JOIN ops o ON o.instance = h.instance AND o.op = h.op"
                         " WHERE o.used AND o.bytes = ? GROUP BY h.host ORDER BY h.host",
                         bytes, m->tree.nhosts, &p->hosts);
    if (p->nthreads < 0 || p->nhosts < 0)
        return sql_fail(m, err, "reading arrival patterns");
    p->avg_elapsed = alloc(m, (size_t)sz->ops_used, sizeof *p->avg_elapsed);
    if (p->avg_elapsed == NULL)
        return nomem(err);
    sqlite3_stmt *st = prepare(m, "SELECT avg_elapsed FROM ops WHERE used AND bytes = ?"
                               " ORDER BY avg_elapsed", &bytes, 1);
    int rc = SQLITE_ERROR;
    while (st && (rc = sqlite3_step(st)) == SQLITE_ROW && p->nops < sz->ops_used)
        p->avg_elapsed[p->nops++] = sqlite3_column_double(st, 0);
    if (finish(m, st, st ? (rc == SQLITE_ROW ? SQLITE_DONE : rc) : SQLITE_ERROR, err,
               "reading operations") != CM_OK || pap_summary(m, p, bytes, err) != CM_OK)
        return err->status;
    remember(m, C_PAP, bytes, -1, 0, p);
    return *p_p = p, CM_OK;
}

/* ------------------------------------------- for an_model_algo.c (an_model_int.h) */

cm_status_t an__model_sql_fail(an_model_t *m, cm_err_t *err, const char *what)
{
    return sql_fail(m, err, what);
}

void *an__model_alloc(an_model_t *m, size_t n, size_t size)
{
    return alloc(m, n, size);
}

cm_status_t an__model_nomem(cm_err_t *err)
{
    return nomem(err);
}

const char *an__model_col_str(an_model_t *m, sqlite3_stmt *st, int i)
{
    return col_str(m, st, i);
}

int an__model_col_int(sqlite3_stmt *st, int i, int null_value)
{
    return col_int(st, i, null_value);
}

sqlite3_stmt *an__model_prepare(an_model_t *m, const char *sql, const int64_t *args, int nargs)
{
    return prepare(m, sql, args, nargs);
}

cm_status_t an__model_finish(an_model_t *m, sqlite3_stmt *st, int rc, cm_err_t *err,
                             const char *what)
{
    return finish(m, st, rc, err, what);
}

const void *an__model_cached(an_model_t *m, int what, int64_t bytes, int node, int subtree,
                             int64_t op)
{
    return cached_op(m, what, bytes, node, subtree, op);
}

void an__model_remember(an_model_t *m, int what, int64_t bytes, int node, int subtree,
                        int64_t op, const void *ptr)
{
    remember_op(m, what, bytes, node, subtree, op, ptr);
}
