/*
 * an_timeline.c - a database as a timeline (an_model.h, "the timeline"): the SQL side
 * of papviz timeline.
 *
 * The events come from up to four ordered streams, each one SQL statement
 * whose rows are (pid, tid, ts, k, dur, ...) in that order (k: 0 a slice,
 * 1 a flow end; dur descending), merged here by the same key:
 *
 *   tree traces     wrapper visits (visits), the proxies' request and reply
 *                   flows (temp table tl_proxy: each proxy visit with the
 *                   visit of its parent on the link), the algorithm node's
 *                   rounds (algo_rounds, on lanes: temp table tl_lane) and
 *                   its messages (algo_msgs, between lanes)
 *   application     the profiling library's calls (mpi_calls), nonblocking
 *                   ones on lanes of their own (temp table tl_mlane)
 *
 * A track's rounds overlap (a rank posts the next round before the last
 * completes), and a nonblocking call overlaps the calls made before its
 * wait: each goes to the lowest lane of its location where it overlaps
 * nothing earlier, a track of its own (docs/timeline.md).  The temp tables
 * hold one row per proxy visit, round or nonblocking call in the window;
 * SQLite keeps them in its temporary files, not in memory, when they grow.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "analyze/an_int.h"
#include "analyze/api/an_model.h"

#define TL_LANE_BASE 1000     /* a lane's tid: TL_LANE_BASE + TL_LANES x tid + lane */
#define TL_LANES     100
#define TL_STREAMS   4

struct an_tl_priv {
    sqlite3       *db;
    const char    *path;
    an_tl_window_t w;
    char           where_v[256], where_r[256], where_c[256];
};

/* ---- small helpers ----------------------------------------------------- */

static cm_status_t sql_fail(an_timeline_t *tl, cm_err_t *err)
{
    return CM_ERR_AT(err, CM_ERR_IO, tl->priv->path, 0, 0, "cannot read the database: %s",
                     sqlite3_errmsg(tl->priv->db));
}

static cm_status_t exec(an_timeline_t *tl, const char *sql, cm_err_t *err)
{
    return sqlite3_exec(tl->priv->db, sql, NULL, NULL, NULL) == SQLITE_OK ? CM_OK
                                                                          : sql_fail(tl, err);
}

static char *dup_col(sqlite3_stmt *st, int i)
{
    const char *s = (const char *)sqlite3_column_text(st, i);

    return strdup(s != NULL ? s : "");
}

static char *meta(sqlite3 *db, const char *key)
{
    sqlite3_stmt *st;
    char *v = NULL;

    if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL)
        != SQLITE_OK)
        return NULL;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        v = dup_col(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* The window as SQL conditions on a table alias with the given columns. */
static void where(char *buf, size_t n, const an_tl_window_t *w, const char *op,
                  const char *t1, const char *t4)
{
    int k = snprintf(buf, n, "1");

    if (w->has_ops)
        k += snprintf(buf + k, n - (size_t)k, " AND %s BETWEEN %" PRIu64 " AND %" PRIu64, op,
                      w->op_first, w->op_last);
    if (w->has_from)
        k += snprintf(buf + k, n - (size_t)k, " AND %s >= %" PRId64, t4, w->from_ns);
    if (w->has_to)
        snprintf(buf + k, n - (size_t)k, " AND %s <= %" PRId64, t1, w->to_ns);
}

static int add_proc(an_timeline_t *tl, int pid, char *name)
{
    an_tl_process_t *p = realloc(tl->procs, (size_t)(tl->nprocs + 1) * sizeof(*p));

    if (p == NULL || name == NULL) {
        free(name);
        if (p != NULL)
            tl->procs = p;
        return -1;
    }
    tl->procs = p;
    p[tl->nprocs++] = (an_tl_process_t){ pid, name };
    return 0;
}

static int add_track(an_timeline_t *tl, int pid, int tid, char *name)
{
    an_tl_track_t *t = realloc(tl->tracks, (size_t)(tl->ntracks + 1) * sizeof(*t));

    if (t == NULL || name == NULL) {
        free(name);
        if (t != NULL)
            tl->tracks = t;
        return -1;
    }
    tl->tracks = t;
    t[tl->ntracks++] = (an_tl_track_t){ pid, tid, tid, name };
    return 0;
}

static int cmp_track(const void *a, const void *b)
{
    const an_tl_track_t *x = a, *y = b;

    return x->pid != y->pid ? (x->pid > y->pid) - (x->pid < y->pid)
                            : (x->tid > y->tid) - (x->tid < y->tid);
}

/*
 * Lanes: select's rows (location, key, start, end), ordered by location
 * then start, each go to the lowest lane (from first) whose last slice
 * ended by its start; insert gets (key, lane) bound and is stepped.
 */
static cm_status_t make_lanes(an_timeline_t *tl, const char *select, const char *insert,
                              int first, const char *what, cm_err_t *err)
{
    sqlite3 *db = tl->priv->db;
    sqlite3_stmt *sel = NULL, *ins = NULL;
    int64_t end[TL_LANES], loc = -1;
    int used = 0, rc;
    cm_status_t st = CM_OK;

    if (sqlite3_prepare_v2(db, select, -1, &sel, NULL) != SQLITE_OK
        || sqlite3_prepare_v2(db, insert, -1, &ins, NULL) != SQLITE_OK) {
        st = sql_fail(tl, err);
        goto out;
    }
    while ((rc = sqlite3_step(sel)) == SQLITE_ROW) {
        int64_t l = sqlite3_column_int64(sel, 0), s = sqlite3_column_int64(sel, 2);
        int lane;

        if (l != loc) {
            loc = l;
            used = 0;
        }
        for (lane = first; lane < used && end[lane] > s; lane++)
            ;
        if (lane == TL_LANES) {
            st = CM_ERR_AT(err, CM_ERR_INVALID, tl->priv->path, 0, 0, "location %" PRId64
                           ": more than %d %s overlap at %" PRId64 " ns", l, TL_LANES - first,
                           what, s);
            goto out;
        }
        if (lane >= used) {
            for (int k = used; k < lane; k++)
                end[k] = INT64_MIN;
            used = lane + 1;
        }
        end[lane] = sqlite3_column_int64(sel, 3);
        sqlite3_bind_int64(ins, 1, sqlite3_column_int64(sel, 1));
        sqlite3_bind_int64(ins, 2, lane);
        if (sqlite3_step(ins) != SQLITE_DONE) {
            st = sql_fail(tl, err);
            goto out;
        }
        sqlite3_reset(ins);
    }
    if (rc != SQLITE_DONE)
        st = sql_fail(tl, err);
out:
    sqlite3_finalize(sel);
    sqlite3_finalize(ins);
    return st;
}

/* ---- tracks ------------------------------------------------------------ */

static cm_status_t tree_tracks(an_timeline_t *tl, cm_err_t *err)
{
    struct an_tl_priv *p = tl->priv;
    sqlite3_stmt *st = NULL;
    char sql[2048], wq[256];
    cm_status_t ret = CM_OK;
    int rc;

    if (sqlite3_prepare_v2(p->db, "SELECT host, name, hostname FROM hosts ORDER BY host", -1,
                           &st, NULL) != SQLITE_OK)
        return sql_fail(tl, err);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char name[512];
        const char *hn = (const char *)sqlite3_column_text(st, 2);

        snprintf(name, sizeof name, "%s (%s)", sqlite3_column_text(st, 1),
                 hn != NULL && hn[0] ? hn : "?");
        if (add_proc(tl, sqlite3_column_int(st, 0) + 1, strdup(name)) != 0)
            rc = SQLITE_NOMEM;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return rc == SQLITE_NOMEM ? CM_ERR(err, CM_ERR_NOMEM, "out of memory") : sql_fail(tl, err);
    if (sqlite3_prepare_v2(p->db, "SELECT location, name FROM locations ORDER BY location", -1,
                           &st, NULL) != SQLITE_OK)
        return sql_fail(tl, err);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t loc = sqlite3_column_int64(st, 0);

        if (add_track(tl, (int)(loc >> 16) + 1, (int)(loc & 0xffff) + 1, dup_col(st, 1)) != 0)
            rc = SQLITE_NOMEM;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return rc == SQLITE_NOMEM ? CM_ERR(err, CM_ERR_NOMEM, "out of memory") : sql_fail(tl, err);

    /* the proxies' visits, each with its parent's visit on the link (the same
     * operation, so the window's --ops holds for both; --from/--to is asked
     * of both) */
    where(wq, sizeof wq, &p->w, "q.op", "q.t1", "q.t4");
    snprintf(sql, sizeof sql,
             "CREATE TEMP TABLE tl_proxy AS SELECT v.rowid AS id, v.location AS ploc,"
             " v.t1 AS pt1, v.t4 AS pt4, q.location AS qloc, q.t1 AS qt1, q.t4 AS qt4"
             " FROM visits v JOIN wrappers w ON w.node = v.node AND w.kind = 'proxy'"
             " JOIN contributors c ON c.child = v.node"
             " JOIN visits q ON q.node = c.node AND q.contributor = c.contributor"
             " AND q.instance = v.instance AND q.op = v.op"
             " WHERE %s AND %s", p->where_v, wq);
    if ((ret = exec(tl, sql, err)) != CM_OK)
        return ret;
    /* the rounds' lanes */
    if ((ret = exec(tl, "CREATE TEMP TABLE tl_lane(rid INTEGER PRIMARY KEY, lane INTEGER)",
                    err)) != CM_OK)
        return ret;
    snprintf(sql, sizeof sql,
             "SELECT ar.location, r.rowid, r.first_post, r.last_done FROM algo_rounds r"
             " JOIN algo_ranks ar ON ar.node = r.node AND ar.rank = r.rank WHERE %s"
             " ORDER BY ar.location, r.first_post, r.last_done DESC", p->where_r);
    if ((ret = make_lanes(tl, sql, "INSERT INTO tl_lane VALUES (?, ?)", 0, "rounds", err))
        != CM_OK)
        return ret;
    /* a track per location and lane that has rounds */
    if (sqlite3_prepare_v2(p->db, "SELECT DISTINCT ar.location, l.lane, lo.name FROM tl_lane l"
                           " JOIN algo_rounds r ON r.rowid = l.rid JOIN algo_ranks ar ON"
                           " ar.node = r.node AND ar.rank = r.rank LEFT JOIN locations lo ON"
                           " lo.location = ar.location", -1, &st, NULL) != SQLITE_OK)
        return sql_fail(tl, err);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t loc = sqlite3_column_int64(st, 0);
        int lane = sqlite3_column_int(st, 1);
        char name[300];

        snprintf(name, sizeof name, "%s: rounds %d", sqlite3_column_text(st, 2), lane);
        if (add_track(tl, (int)(loc >> 16) + 1,
                      TL_LANE_BASE + TL_LANES * ((int)(loc & 0xffff) + 1) + lane,
                      strdup(name)) != 0)
            rc = SQLITE_NOMEM;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return rc == SQLITE_NOMEM ? CM_ERR(err, CM_ERR_NOMEM, "out of memory") : sql_fail(tl, err);
    return CM_OK;
}

static cm_status_t mpi_tracks(an_timeline_t *tl, cm_err_t *err)
{
    struct an_tl_priv *p = tl->priv;
    sqlite3_stmt *st = NULL;
    char sql[1024];
    cm_status_t ret;
    int rc, last = -1;

    if ((ret = exec(tl, "CREATE TEMP TABLE tl_mlane(call INTEGER PRIMARY KEY, lane INTEGER)",
                    err)) != CM_OK)
        return ret;
    snprintf(sql, sizeof sql, "SELECT c.location, c.call, c.enter, c.leave FROM mpi_calls c"
             " WHERE c.request IS NOT NULL AND %s ORDER BY c.location, c.enter, c.leave DESC",
             p->where_c);
    if ((ret = make_lanes(tl, sql, "INSERT INTO tl_mlane VALUES (?, ?)", 1, "nonblocking",
                          err)) != CM_OK)
        return ret;
    snprintf(sql, sizeof sql,
             "SELECT rank, location, thread, NULL FROM (SELECT DISTINCT rank, location, thread"
             " FROM mpi_calls) UNION ALL SELECT DISTINCT c.rank, c.location, c.thread, l.lane"
             " FROM tl_mlane l JOIN mpi_calls c ON c.call = l.call ORDER BY 1, 2, 4");
    if (sqlite3_prepare_v2(p->db, sql, -1, &st, NULL) != SQLITE_OK)
        return sql_fail(tl, err);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int rank = sqlite3_column_int(st, 0), tid;
        int64_t loc = sqlite3_column_int64(st, 1);
        char name[128];

        if (rank != last) {
            snprintf(name, sizeof name, "rank %d", rank);
            if (add_proc(tl, rank + 1, strdup(name)) != 0)
                rc = SQLITE_NOMEM;
            last = rank;
        }
        tid = (int)(loc & 0xffff) + 1;
        if (sqlite3_column_type(st, 3) == SQLITE_NULL) {
            snprintf(name, sizeof name, "thread %d", sqlite3_column_int(st, 2));
        } else {
            snprintf(name, sizeof name, "thread %d: nonblocking %d", sqlite3_column_int(st, 2),
                     sqlite3_column_int(st, 3));
            tid = TL_LANE_BASE + TL_LANES * tid + sqlite3_column_int(st, 3);
        }
        if (rc == SQLITE_ROW && add_track(tl, rank + 1, tid, strdup(name)) != 0)
            rc = SQLITE_NOMEM;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return rc == SQLITE_NOMEM ? CM_ERR(err, CM_ERR_NOMEM, "out of memory") : sql_fail(tl, err);
    return CM_OK;
}

cm_status_t an_tl_open(const char *path, const an_tl_window_t *w, an_timeline_t **out,
                       cm_err_t *err)
{
    an_timeline_t *tl;
    struct an_tl_priv *p;
    char *kind;
    cm_status_t st;

    *out = NULL;
    if ((tl = calloc(1, sizeof(*tl))) == NULL || (p = calloc(1, sizeof(*p))) == NULL) {
        free(tl);
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    }
    tl->priv = p;
    p->path = path;
    p->w = *w;
    if ((st = an_db_open_read(path, &p->db, err)) != CM_OK) {
        an_tl_close(tl);
        return st;
    }
    kind = meta(p->db, "kind");
    tl->mpi = kind != NULL && strcmp(kind, "mpi") == 0;
    free(kind);
    tl->pathmap = tl->mpi ? NULL : meta(p->db, "pathmap");
    tl->trace = meta(p->db, "trace");
    where(p->where_v, sizeof p->where_v, w, "v.op", "v.t1", "v.t4");
    where(p->where_r, sizeof p->where_r, w, "r.op", "r.first_post", "r.last_done");
    where(p->where_c, sizeof p->where_c, w, "c.seq", "c.enter", "c.leave");
    st = tl->mpi ? mpi_tracks(tl, err) : tree_tracks(tl, err);
    if (st != CM_OK) {
        an_tl_close(tl);
        return st;
    }
    qsort(tl->tracks, (size_t)tl->ntracks, sizeof(*tl->tracks), cmp_track);
    *out = tl;
    return CM_OK;
}

void an_tl_close(an_timeline_t *tl)
{
    if (tl == NULL)
        return;
    for (int i = 0; i < tl->nprocs; i++)
        free(tl->procs[i].name);
    for (int i = 0; i < tl->ntracks; i++)
        free(tl->tracks[i].name);
    free(tl->procs);
    free(tl->tracks);
    free(tl->pathmap);
    free(tl->trace);
    if (tl->priv != NULL && tl->priv->db != NULL)
        sqlite3_close(tl->priv->db);
    free(tl->priv);
    free(tl);
}

/* ---- counts and headline --------------------------------------------- */

static cm_status_t count(an_timeline_t *tl, const char *sql, uint64_t *n, cm_err_t *err)
{
    sqlite3_stmt *st;

    *n = 0;
    if (sqlite3_prepare_v2(tl->priv->db, sql, -1, &st, NULL) != SQLITE_OK)
        return sql_fail(tl, err);
    if (sqlite3_step(st) == SQLITE_ROW)
        *n = (uint64_t)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return CM_OK;
}

cm_status_t an_tl_count(an_timeline_t *tl, an_tl_counts_t *c, cm_err_t *err)
{
    struct an_tl_priv *p = tl->priv;
    char sql[1024];
    cm_status_t st;

    memset(c, 0, sizeof(*c));
    if (tl->mpi) {
        snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM mpi_calls c WHERE %s", p->where_c);
        return count(tl, sql, &c->mpi, err);
    }
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM visits v WHERE %s", p->where_v);
    if ((st = count(tl, sql, &c->wrapper, err)) != CM_OK
        || (st = count(tl, "SELECT COUNT(*) FROM tl_lane", &c->round, err)) != CM_OK
        || (st = count(tl, "SELECT 2 * COUNT(*) FROM tl_proxy", &c->proxy, err)) != CM_OK)
        return st;
    return count(tl, "SELECT COUNT(*) FROM algo_msgs m"
                 " JOIN algo_rounds rs ON rs.instance = m.instance AND rs.op = m.op"
                 " AND rs.node = m.node AND rs.round = m.round AND rs.rank = m.src"
                 " JOIN tl_lane ls ON ls.rid = rs.rowid"
                 " JOIN algo_rounds rd ON rd.instance = m.instance AND rd.op = m.op"
                 " AND rd.node = m.node AND rd.round = m.round AND rd.rank = m.dst"
                 " JOIN tl_lane ld ON ld.rid = rd.rowid", &c->msg, err);
}

cm_status_t an_tl_op_range(an_timeline_t *tl, uint64_t *first, uint64_t *n)
{
    char sql[512];
    sqlite3_stmt *st;

    *first = *n = 0;
    if (tl->mpi)
        snprintf(sql, sizeof sql, "SELECT MIN(c.seq), MAX(c.seq) - MIN(c.seq) + 1 FROM"
                 " mpi_calls c WHERE %s", tl->priv->where_c);
    else
        snprintf(sql, sizeof sql, "SELECT MIN(v.op), MAX(v.op) - MIN(v.op) + 1 FROM visits v"
                 " WHERE %s", tl->priv->where_v);
    if (sqlite3_prepare_v2(tl->priv->db, sql, -1, &st, NULL) != SQLITE_OK)
        return CM_ERR_IO;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        *first = (uint64_t)sqlite3_column_int64(st, 0);
        *n = (uint64_t)sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    return CM_OK;
}

cm_status_t an_tl_headline(an_timeline_t *tl, void (*fn)(void *ud, const an_tl_arg_t *a),
                           void *ud, cm_err_t *err)
{
    static const char *const keys[] = { "events", "ops", "ops_used", "visits" };
    sqlite3 *db = tl->priv->db;
    sqlite3_stmt *st;
    int rc;

    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        char *v = meta(db, keys[i]);

        if (v != NULL)
            fn(ud, &(an_tl_arg_t){ keys[i], AN_TL_INT, strtoll(v, NULL, 10), 0, NULL });
        free(v);
    }
    if (tl->mpi) {
        /* the call sites with the most time lost waiting */
        if (sqlite3_prepare_v2(db, "SELECT COALESCE(label, callsite), SUM(wait), COUNT(*)"
                               " FROM mpi_calls GROUP BY site ORDER BY 2 DESC, 1 LIMIT 3",
                               -1, &st, NULL) != SQLITE_OK)
            return sql_fail(tl, err);
        for (int k = 1; (rc = sqlite3_step(st)) == SQLITE_ROW; k++) {
            char key[32], val[512];

            snprintf(key, sizeof key, "waiting_site_%d", k);
            snprintf(val, sizeof val, "%s: %" PRId64 " ns lost waiting in %d calls",
                     sqlite3_column_text(st, 0), (int64_t)sqlite3_column_int64(st, 1),
                     sqlite3_column_int(st, 2));
            fn(ud, &(an_tl_arg_t){ key, AN_TL_TEXT, 0, 0, val });
        }
        sqlite3_finalize(st);
        return rc == SQLITE_DONE ? CM_OK : sql_fail(tl, err);
    }
    if (sqlite3_prepare_v2(db, "SELECT AVG(avg_elapsed), AVG(arrival_spread), AVG(imbalance)"
                           " FROM ops WHERE used = 1", -1, &st, NULL) != SQLITE_OK)
        return sql_fail(tl, err);
    if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        static const char *const k[] = { "mean_elapsed_ns", "mean_arrival_spread_ns",
                                         "mean_imbalance" };
        for (int i = 0; i < 3; i++)
            fn(ud, &(an_tl_arg_t){ k[i], sqlite3_column_type(st, i) == SQLITE_NULL
                                   ? AN_TL_NULL : AN_TL_REAL, 0,
                                   sqlite3_column_double(st, i), NULL });
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? CM_OK : sql_fail(tl, err);
}

/* ---- the events ------------------------------------------------------ */

/* What a stream's rows are, for their columns from 8 on. */
typedef enum { S_VISIT, S_FLOW, S_ROUND, S_CALL } stream_kind_t;

typedef struct stream {
    sqlite3_stmt *st;
    stream_kind_t kind;
    int           more;           /* a row is current */
    int64_t       key[5];         /* its pid, tid, ts, k, dur (read once per row) */
} stream_t;

/* Steps s; its key from columns 0..4 (every stream's: pid, tid, ts, k, dur;
 * then ph, name, id). */
static int step(stream_t *s)
{
    int rc = sqlite3_step(s->st);

    s->more = rc == SQLITE_ROW;
    for (int i = 0; s->more && i < 5; i++)
        s->key[i] = sqlite3_column_int64(s->st, i);
    return rc;
}

/* The merge's order: pid, tid, ts, slices before flow ends, longer first. */
static int row_before(const stream_t *a, const stream_t *b)
{
    for (int i = 0; i < 4; i++)
        if (a->key[i] != b->key[i])
            return a->key[i] < b->key[i];
    return a->key[4] > b->key[4];
}

static void arg_int(an_tl_event_t *e, const char *key, sqlite3_stmt *st, int col)
{
    an_tl_arg_t *a = &e->args[e->nargs++];

    a->key = key;
    a->type = sqlite3_column_type(st, col) == SQLITE_NULL ? AN_TL_NULL : AN_TL_INT;
    a->i = sqlite3_column_int64(st, col);
}

static void arg_text(an_tl_event_t *e, const char *key, sqlite3_stmt *st, int col)
{
    an_tl_arg_t *a = &e->args[e->nargs++];

    a->key = key;
    a->type = sqlite3_column_type(st, col) == SQLITE_NULL ? AN_TL_NULL : AN_TL_TEXT;
    a->s = (const char *)sqlite3_column_text(st, col);
}

static void fill(const stream_t *s, an_tl_event_t *e)
{
    sqlite3_stmt *st = s->st;
    static const char *const visit_keys[] = { "instance", "op", "contributor", "t1", "t2",
                                              "t3", "t4", "arrival", "departure",
                                              "arrival_wait_ns", "departure_wait_ns" };
    static const char *const round_keys[] = { "instance", "op", "round", "rank", "nsend",
                                              "nrecv", "late_ns", "wait_ns" };
    static const char *const call_keys[] = { "site", "bytes", "comm", "seq", "root", "a_ns",
                                             "wait_ns" };

    e->nargs = 0;
    e->pid = (int)s->key[0];
    e->tid = (int)s->key[1];
    e->ts = s->key[2];
    e->dur = s->key[4];
    e->ph = (char)sqlite3_column_text(st, 5)[0];
    e->name = (const char *)sqlite3_column_text(st, 6);
    e->id = (uint64_t)sqlite3_column_int64(st, 7);
    switch (s->kind) {
    case S_VISIT:
        e->cat = "wrapper";
        arg_text(e, "kind", st, 8);
        for (int i = 0; i < 11; i++)
            arg_int(e, visit_keys[i], st, 9 + i);
        if (sqlite3_column_type(st, 20) != SQLITE_NULL) {
            arg_text(e, "algo", st, 20);
            arg_int(e, "rank", st, 21);
        }
        break;
    case S_FLOW:
        e->cat = (const char *)sqlite3_column_text(st, 8);
        break;
    case S_ROUND:
        e->cat = "round";
        for (int i = 0; i < 8; i++)
            arg_int(e, round_keys[i], st, 8 + i);
        break;
    case S_CALL:
        e->cat = "mpi";
        arg_text(e, "callsite", st, 8);
        arg_text(e, "algorithm", st, 9);
        arg_text(e, "fallback", st, 10);
        for (int i = 0; i < 7; i++)
            arg_int(e, call_keys[i], st, 11 + i);
        break;
    }
}

static cm_status_t prepare(an_timeline_t *tl, stream_t *s, stream_kind_t kind, const char *sql,
                           cm_err_t *err)
{
    s->kind = kind;
    if (sqlite3_prepare_v2(tl->priv->db, sql, -1, &s->st, NULL) != SQLITE_OK)
        return sql_fail(tl, err);
    int rc = step(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? CM_OK : sql_fail(tl, err);
}

#define PIDTID(loc) "((" loc ") >> 16) + 1, ((" loc ") & 65535) + 1"
#define LANETID(loc, lane) "(" loc " >> 16) + 1, 1000 + 100 * ((" loc " & 65535) + 1) + " lane

cm_status_t an_tl_each(an_timeline_t *tl,
                       cm_status_t (*fn)(void *ud, const an_tl_event_t *e, cm_err_t *err),
                       void *ud, cm_err_t *err)
{
    struct an_tl_priv *p = tl->priv;
    stream_t s[TL_STREAMS];
    int n = 0;
    char sql[4096];
    cm_status_t st = CM_OK;
    an_tl_event_t e;

    memset(s, 0, sizeof(s));
    if (tl->mpi) {
        snprintf(sql, sizeof sql,
                 "SELECT c.rank + 1, CASE WHEN l.lane IS NULL THEN (c.location & 65535) + 1"
                 " ELSE 1000 + 100 * ((c.location & 65535) + 1) + l.lane END AS tid,"
                 " c.enter, 0, c.leave - c.enter, 'X', c.mpi_function, 0,"
                 " COALESCE(c.label, c.callsite), c.algorithm, c.fallback, c.site, c.bytes,"
                 " c.comm, c.seq, c.root, c.a, c.wait"
                 " FROM mpi_calls c LEFT JOIN tl_mlane l ON l.call = c.call WHERE %s"
                 " ORDER BY 1, 2, 3, 4, 5 DESC", p->where_c);
        st = prepare(tl, &s[n++], S_CALL, sql, err);
    } else {
        snprintf(sql, sizeof sql,
                 "SELECT " PIDTID("v.location") ", v.t1, 0, v.t4 - v.t1, 'X', w.name, 0,"
                 " w.kind, v.instance, v.op, v.contributor, v.t1, v.t2, v.t3, v.t4, v.arrival,"
                 " v.departure, v.arrival_wait, v.departure_wait, a.algo, ar.rank"
                 " FROM visits v JOIN wrappers w ON w.node = v.node"
                 " LEFT JOIN algo_nodes a ON a.node = v.node"
                 " LEFT JOIN algo_ranks ar ON ar.node = v.node AND ar.location = v.location"
                 " WHERE %s ORDER BY 1, 2, 3, 4, 5 DESC", p->where_v);
        st = prepare(tl, &s[n++], S_VISIT, sql, err);
        if (st == CM_OK)
            st = prepare(tl, &s[n++], S_FLOW,
                         "SELECT " PIDTID("ploc") ", pt1, 1, 0, 's', 'request', 4 * id, 'proxy'"
                         " FROM tl_proxy UNION ALL"
                         " SELECT " PIDTID("ploc") ", pt4, 1, 0, 'f', 'reply', 4 * id + 1,"
                         " 'proxy' FROM tl_proxy UNION ALL"
                         " SELECT " PIDTID("qloc") ", qt1, 1, 0, 'f', 'request', 4 * id,"
                         " 'proxy' FROM tl_proxy UNION ALL"
                         " SELECT " PIDTID("qloc") ", qt4, 1, 0, 's', 'reply', 4 * id + 1,"
                         " 'proxy' FROM tl_proxy ORDER BY 1, 2, 3, 4", err);
        if (st == CM_OK)
            st = prepare(tl, &s[n++], S_ROUND,
                         "SELECT " LANETID("ar.location", "l.lane") ", r.first_post, 0,"
                         " r.last_done - r.first_post, 'X', 'round ' || r.round, 0,"
                         " r.instance, r.op, r.round, r.rank, r.nsend, r.nrecv, r.late, r.wait"
                         " FROM tl_lane l JOIN algo_rounds r ON r.rowid = l.rid"
                         " JOIN algo_ranks ar ON ar.node = r.node AND ar.rank = r.rank"
                         " ORDER BY 1, 2, 3, 4, 5 DESC", err);
        if (st == CM_OK)
            st = prepare(tl, &s[n++], S_FLOW,
                         "WITH m AS (SELECT m.rowid AS id, m.send_post, m.recv_done,"
                         " ars.location AS sloc, ls.lane AS slane, ard.location AS dloc,"
                         " ld.lane AS dlane FROM algo_msgs m"
                         " JOIN algo_rounds rs ON rs.instance = m.instance AND rs.op = m.op"
                         " AND rs.node = m.node AND rs.round = m.round AND rs.rank = m.src"
                         " JOIN tl_lane ls ON ls.rid = rs.rowid"
                         " JOIN algo_rounds rd ON rd.instance = m.instance AND rd.op = m.op"
                         " AND rd.node = m.node AND rd.round = m.round AND rd.rank = m.dst"
                         " JOIN tl_lane ld ON ld.rid = rd.rowid"
                         " JOIN algo_ranks ars ON ars.node = m.node AND ars.rank = m.src"
                         " JOIN algo_ranks ard ON ard.node = m.node AND ard.rank = m.dst)"
                         " SELECT " LANETID("sloc", "slane") ", send_post, 1, 0, 's', 'message',"
                         " 4 * id + 2, 'msg' FROM m UNION ALL"
                         " SELECT " LANETID("dloc", "dlane") ", recv_done, 1, 0, 'f', 'message',"
                         " 4 * id + 2, 'msg' FROM m ORDER BY 1, 2, 3, 4", err);
    }
    while (st == CM_OK) {
        stream_t *best = NULL;

        for (int i = 0; i < n; i++)
            if (s[i].more && (best == NULL || row_before(&s[i], best)))
                best = &s[i];
        if (best == NULL)
            break;
        fill(best, &e);
        if ((st = fn(ud, &e, err)) != CM_OK)
            break;
        int rc = step(best);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
            st = sql_fail(tl, err);
    }
    for (int i = 0; i < n; i++)
        sqlite3_finalize(s[i].st);
    return st;
}
