/*
 * an_arrivals.c - who arrives last, per host, gred and thread
 * (analyze/api/an_arrivals.h): the queries behind the advice's rules 7 and
 * 8, one database opened once for every tuple size.
 */
#include <stdlib.h>
#include <sqlite3.h>

#include "analyze/an_int.h"
#include "analyze/api/an_arrivals.h"

/* Runs sql with ?1 = bytes and hands each row to row(); CM_ERR_IO naming
 * the path and what on failure. */
static cm_status_t each_row(sqlite3 *db, const char *path, const char *what, const char *sql,
                            int64_t bytes, void (*row)(sqlite3_stmt *, void *), void *arg,
                            cm_err_t *err)
{
    sqlite3_stmt *st = NULL;
    int rc;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return CM_ERR_AT(err, CM_ERR_IO, path, 0, 0, "reading %s: %s", what,
                         sqlite3_errmsg(db));
    sqlite3_bind_int64(st, 1, bytes);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        row(st, arg);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? CM_OK
         : CM_ERR_AT(err, CM_ERR_IO, path, 0, 0, "reading %s: %s", what, sqlite3_errmsg(db));
}

/* One size's figures being read, with scratch sums per wrapper. */
typedef struct fig {
    const an_model_t *m;
    an_arrivals_t    *a;
    double           *best, *total, *wn;
} fig_t;

/* pap_hosts rows (host, last count, count, mean a, mean f) */
static void host_row(sqlite3_stmt *st, void *arg)
{
    fig_t *f = arg;
    int h = sqlite3_column_int(st, 0);
    int64_t n = sqlite3_column_int64(st, 2);
    if (h >= 0 && h < f->m->tree.nhosts && n > 0) {
        f->a->last[h] = (double)sqlite3_column_int64(st, 1) / (double)n;
        f->a->arrival[h] = sqlite3_column_double(st, 3);
        f->a->departure[h] = sqlite3_column_double(st, 4);
    }
}

static int node_ok(const fig_t *f, int n) { return n >= 0 && n < f->m->tree.nwrappers; }

/* orders rows (node, contributor, last arrivals): the most frequent wins
 * (ties: the smaller contributor, rows come in its order). */
static void last_row(sqlite3_stmt *st, void *arg)
{
    fig_t *f = arg;
    int n = sqlite3_column_int(st, 0), c = sqlite3_column_int(st, 1);
    double k = (double)sqlite3_column_int64(st, 2);
    if (!node_ok(f, n))
        return;
    f->total[n] += k;
    if (f->a->lastc[n] < 0 || k > f->best[n])
        f->a->lastc[n] = c, f->best[n] = k;
}

/* stats rows (node, contributor, n, mean arrival wait), not the last one */
static void wait_row(sqlite3_stmt *st, void *arg)
{
    fig_t *f = arg;
    int n = sqlite3_column_int(st, 0), c = sqlite3_column_int(st, 1);
    double k = (double)sqlite3_column_int64(st, 2);
    if (node_ok(f, n) && c != f->a->lastc[n] && k > 0)
        f->a->owait[n] += k * sqlite3_column_double(st, 3), f->wn[n] += k;
}

/* pap_threads means (thread, a, f) */
static void thread_row(sqlite3_stmt *st, void *arg)
{
    fig_t *f = arg;
    int i = an_model_thread_index(&f->m->tree, sqlite3_column_int(st, 0));
    if (i >= 0)
        f->a->ta[i] = sqlite3_column_double(st, 1), f->a->tf[i] = sqlite3_column_double(st, 2);
}

static cm_status_t read_size(sqlite3 *db, const char *path, fig_t *f, cm_err_t *err)
{
    static const char host_sql[] =
        "SELECT p.host, SUM(p.a = (SELECT MAX(q.a) FROM pap_hosts q"
        "  WHERE q.instance = p.instance AND q.op = p.op)), COUNT(*), AVG(p.a), AVG(p.f)"
        " FROM pap_hosts p JOIN ops o ON o.instance = p.instance AND o.op = p.op"
        " WHERE o.used AND o.bytes = ?1 GROUP BY p.host";
    static const char last_sql[] =
        "SELECT o.node, o.contributor, SUM(o.count) FROM orders o"
        " JOIN wrappers w ON w.node = o.node"
        " WHERE o.bytes = ?1 AND w.kind = 'gred' AND o.arrival = w.fanin"
        " GROUP BY o.node, o.contributor ORDER BY o.node, o.contributor";
    static const char wait_sql[] =
        "SELECT node, contributor, n, mean FROM stats WHERE scope = 'contributor'"
        " AND metric = 'arrival_wait' AND bytes = ?1";
    static const char thread_sql[] =
        "SELECT p.thread, AVG(p.a), AVG(p.f) FROM pap_threads p"
        " JOIN ops o ON o.instance = p.instance AND o.op = p.op"
        " WHERE o.used AND o.bytes = ?1 GROUP BY p.thread";
    int64_t bytes = f->a->bytes;
    cm_status_t st;
    if ((st = each_row(db, path, "pap_hosts", host_sql, bytes, host_row, f, err)) != CM_OK
        || (st = each_row(db, path, "orders", last_sql, bytes, last_row, f, err)) != CM_OK
        || (st = each_row(db, path, "stats", wait_sql, bytes, wait_row, f, err)) != CM_OK
        || (st = each_row(db, path, "pap_threads", thread_sql, bytes, thread_row, f, err))
               != CM_OK)
        return st;
    for (int n = 0; n < f->m->tree.nwrappers; n++) {
        f->a->lastf[n] = f->total[n] > 0 ? f->best[n] / f->total[n] : 0;
        f->a->owait[n] = f->wn[n] > 0 ? f->a->owait[n] / f->wn[n] : 0;
    }
    return CM_OK;
}

/* One size's arrays, zeroed (lastc -1); 0 when out of memory. */
static int alloc_size(const an_model_t *m, an_arrivals_t *a)
{
    size_t nh = (size_t)m->tree.nhosts, nw = (size_t)m->tree.nwrappers;
    size_t nt = (size_t)m->tree.nthreads;
    /* one block: 3 per host, 2 per wrapper, 2 per thread */
    double *d = calloc(3 * nh + 2 * nw + 2 * nt + 1, sizeof(double));
    a->lastc = malloc((nw + 1) * sizeof(int));
    if (d == NULL || a->lastc == NULL) {
        free(d);
        free(a->lastc);
        a->lastc = NULL;
        return 0;
    }
    a->last = d, a->arrival = d + nh, a->departure = d + 2 * nh;
    a->lastf = d + 3 * nh, a->owait = d + 3 * nh + nw;
    a->ta = d + 3 * nh + 2 * nw, a->tf = d + 3 * nh + 2 * nw + nt;
    for (size_t n = 0; n < nw; n++)
        a->lastc[n] = -1;
    return 1;
}

void an_arrivals_free(an_arrivals_t *arr, int n)
{
    if (arr == NULL)
        return;
    for (int i = 0; i < n; i++) {
        free(arr[i].last);
        free(arr[i].lastc);
    }
    free(arr);
}

cm_status_t an_arrivals_read(const char *path, const an_model_t *m, an_arrivals_t **arr_p,
                             cm_err_t *err)
{
    int nw = m->tree.nwrappers, ns = m->nsizes;
    an_arrivals_t *arr = calloc((size_t)ns + 1, sizeof(*arr));
    double *scratch = calloc(3 * (size_t)nw + 1, sizeof(double));
    sqlite3 *db = NULL;
    cm_status_t st = CM_OK;

    if (arr == NULL || scratch == NULL)
        st = CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    for (int i = 0; st == CM_OK && i < ns; i++) {
        arr[i].bytes = m->sizes[i].bytes;
        if (!alloc_size(m, &arr[i]))
            st = CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    }
    if (st == CM_OK)
        st = an_db_open_read(path, &db, err);
    for (int i = 0; st == CM_OK && i < ns; i++) {
        fig_t f = { m, &arr[i], scratch, scratch + nw, scratch + 2 * nw };
        for (int n = 0; n < 3 * nw; n++)
            scratch[n] = 0;
        st = read_size(db, path, &f, err);
    }
    sqlite3_close(db);
    free(scratch);
    if (st != CM_OK) {
        an_arrivals_free(arr, arr ? ns : 0);
        return st;
    }
    *arr_p = arr;
    return CM_OK;
}
