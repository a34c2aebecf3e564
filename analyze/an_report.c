/*
 * an_report.c - the report: the paper's tables, read back from a database.
 *
 * Every table is one SQL query over the database's tables and views, so what
 * the report prints is exactly what a user finds with the sqlite3 shell.  One
 * renderer prints a query as aligned text, CSV or JSON; for JSON, SQLite's own
 * json_group_array/json_object build each table.  Times are in microseconds.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "analyze/an_int.h"
#include "analyze/an_mpi_int.h"
#include "analyze/api/an_analyze.h"

#define REP_COLS    64

typedef struct rep {
    sqlite3                *db;
    const an_report_opts_t *opts;
    FILE                   *out;
    cm_err_t               *err;
    const char             *path;
    int                     ntables;     /* for JSON commas */
} rep_t;

static cm_status_t db_fail(rep_t *r, const char *what)
{
    return CM_ERR_AT(r->err, CM_ERR_IO, r->path, 0, 0, "%s: %s", what, sqlite3_errmsg(r->db));
}

/* ------------------------------------------------------------- rendering */

/* s as a JSON string literal (RFC 8259 escapes). */
static void json_str(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

static void csv_field(FILE *out, const char *s)
{
    if (strpbrk(s, ",\"\n") == NULL) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static const char *cell(sqlite3_stmt *st, int c, char *buf, size_t n)
{
    switch (sqlite3_column_type(st, c)) {
    case SQLITE_NULL:
        return "-";
    case SQLITE_FLOAT: {
        double v = sqlite3_column_double(st, c);
        snprintf(buf, n, fabs(v) >= 1000 ? "%.1f" : "%.2f", v);
        return buf;
    }
    default:
        return (const char *)sqlite3_column_text(st, c);
    }
}

/* Text: columns as wide as their widest cell; numbers right-aligned. */
static cm_status_t render_text(rep_t *r, sqlite3_stmt *st, const char *title)
{
    int nc = sqlite3_column_count(st), rc;
    size_t w[REP_COLS] = { 0 }, nrows = 0, cap = 0;
    char **cells = NULL, buf[64];
    int *right = calloc((size_t)nc, sizeof(int));

    if (right == NULL)
        return CM_ERR(r->err, CM_ERR_NOMEM, "out of memory");
    for (int c = 0; c < nc; c++)
        w[c] = strlen(sqlite3_column_name(st, c));
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if ((nrows + 1) * (size_t)nc > cap) {
            char **p;
            cap = cap ? 2 * cap : 64 * (size_t)nc;
            if ((p = realloc(cells, cap * sizeof(*p))) == NULL)
                break;
            cells = p;
        }
        for (int c = 0; c < nc; c++) {
            const char *s = cell(st, c, buf, sizeof(buf));
            char *copy = strdup(s != NULL ? s : "");
            int t = sqlite3_column_type(st, c);
            cells[nrows * (size_t)nc + (size_t)c] = copy;
            if (copy != NULL && strlen(copy) > w[c])
                w[c] = strlen(copy);
            right[c] |= t == SQLITE_FLOAT || t == SQLITE_INTEGER;
        }
        nrows++;
    }
    fprintf(r->out, "\n%s\n", title);
    for (int c = 0; c < nc; c++)
        fprintf(r->out, c ? "  %*s" : "%-*s", (int)w[c], sqlite3_column_name(st, c));
    fputc('\n', r->out);
    for (size_t i = 0; i < nrows; i++) {
        for (int c = 0; c < nc; c++) {
            const char *s = cells[i * (size_t)nc + (size_t)c];
            fprintf(r->out, c == 0 ? "%-*s" : right[c] ? "  %*s" : "  %-*s", (int)w[c],
                    s != NULL ? s : "");
            free(cells[i * (size_t)nc + (size_t)c]);
        }
        fputc('\n', r->out);
    }
    if (nrows == 0)
        fprintf(r->out, "(no rows)\n");
    free(cells);
    free(right);
    return rc == SQLITE_DONE ? CM_OK : db_fail(r, "reading a report table");
}

static cm_status_t render_csv(rep_t *r, sqlite3_stmt *st, const char *name)
{
    int nc = sqlite3_column_count(st), rc;
    char buf[64];

    fprintf(r->out, "%s# table: %s\n", r->ntables ? "\n" : "", name);
    for (int c = 0; c < nc; c++) {
        fputs(c ? "," : "", r->out);
        csv_field(r->out, sqlite3_column_name(st, c));
    }
    fputc('\n', r->out);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        for (int c = 0; c < nc; c++) {
            const char *s = sqlite3_column_type(st, c) == SQLITE_NULL ? ""
                          : sqlite3_column_type(st, c) == SQLITE_FLOAT ? cell(st, c, buf, sizeof(buf))
                          : (const char *)sqlite3_column_text(st, c);
            fputs(c ? "," : "", r->out);
            csv_field(r->out, s);
        }
        fputc('\n', r->out);
    }
    return rc == SQLITE_DONE ? CM_OK : db_fail(r, "reading a report table");
}

/* JSON: SQLite builds the array of row objects from the same query. */
static cm_status_t render_json(rep_t *r, sqlite3_stmt *st, const char *sql, const char *name,
                               const char *title)
{
    int nc = sqlite3_column_count(st);
    sqlite3_str *qs = sqlite3_str_new(r->db);
    sqlite3_stmt *js = NULL;
    cm_status_t ret = CM_OK;
    char *q;

    sqlite3_str_appendall(qs, "SELECT json_group_array(json_object(");
    for (int c = 0; c < nc; c++)
        sqlite3_str_appendf(qs, "%s%Q, \"%w\"", c ? ", " : "", sqlite3_column_name(st, c),
                            sqlite3_column_name(st, c));
    sqlite3_str_appendf(qs, ")) FROM (%s)", sql);
    if ((q = sqlite3_str_finish(qs)) == NULL)
        return CM_ERR(r->err, CM_ERR_NOMEM, "out of memory");
    if (sqlite3_prepare_v2(r->db, q, -1, &js, NULL) != SQLITE_OK
        || sqlite3_step(js) != SQLITE_ROW) {
        ret = db_fail(r, "building JSON");
    } else {
        fputs(r->ntables ? ",\n{\"name\": " : "{\"name\": ", r->out);
        json_str(r->out, name);
        fputs(", \"title\": ", r->out);
        json_str(r->out, title);
        fputs(", \"rows\": ", r->out);
        fputs(sqlite3_column_text(js, 0) ? (const char *)sqlite3_column_text(js, 0) : "[]",
              r->out);
        fputs("}", r->out);
    }
    sqlite3_finalize(js);
    sqlite3_free(q);
    return ret;
}

/* Runs sql (printf format) and prints it as a table named name. */
static cm_status_t table(rep_t *r, const char *name, const char *title, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static cm_status_t table(rep_t *r, const char *name, const char *title, const char *fmt, ...)
{
    char *sql;
    va_list ap;
    sqlite3_stmt *st = NULL;
    cm_status_t ret;

    va_start(ap, fmt);
    sql = sqlite3_vmprintf(fmt, ap);
    va_end(ap);
    if (sql == NULL)
        return CM_ERR(r->err, CM_ERR_NOMEM, "out of memory");
    if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK) {
        ret = db_fail(r, "preparing a report table");
    } else if (sqlite3_column_count(st) > REP_COLS) {
        /* the sections keep their tables narrower (section_orders wraps) */
        ret = CM_ERR_AT(r->err, CM_ERR_RANGE, r->path, 0, 0, "report table %s: %d columns, "
                        "more than %d", name, sqlite3_column_count(st), REP_COLS);
    } else if (r->opts->format == AN_FMT_TEXT) {
        ret = render_text(r, st, title);
    } else if (r->opts->format == AN_FMT_CSV) {
        ret = render_csv(r, st, name);
    } else {
        ret = render_json(r, st, sql, name, title);
    }
    sqlite3_finalize(st);
    sqlite3_free(sql);
    r->ntables++;
    return ret;
}

/* ------------------------------------------------------------- queries */

/* One integer from sql (printf format), or def when there is no row or NULL. */
static int64_t query_int(rep_t *r, int64_t def, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int64_t query_int(rep_t *r, int64_t def, const char *fmt, ...)
{
    char *sql;
    va_list ap;
    sqlite3_stmt *st = NULL;
    int64_t v = def;

    va_start(ap, fmt);
    sql = sqlite3_vmprintf(fmt, ap);
    va_end(ap);
    if (sql != NULL && sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) == SQLITE_OK
        && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_free(sql);
    return v;
}

static char *meta(rep_t *r, const char *key)
{
    sqlite3_stmt *st = NULL;
    char *v = NULL;

    if (sqlite3_prepare_v2(r->db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL)
        == SQLITE_OK) {
        sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0) != NULL)
            v = strdup((const char *)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    return v != NULL ? v : strdup("?");
}

static void header(rep_t *r)
{
    const char *keys[] = { "trace", "pathmap_path", "tree", "hosts", "instances", "clock",
                           "events", "ops", "ops_used", "skip" };
    char *v[10];

    for (int i = 0; i < 10; i++)
        v[i] = meta(r, keys[i]);
    if (r->opts->format == AN_FMT_TEXT) {
        fprintf(r->out, "trace      %s\n", v[0]);
        fprintf(r->out, "database   %s\n", r->path);
        fprintf(r->out, "tree       %s of %s: %s hosts, %" PRId64 " threads, %s instances, "
                "clock %s\n", v[2], v[1], v[3],
                query_int(r, 0, "SELECT COUNT(*) FROM threads"), v[4], v[5]);
        fprintf(r->out, "operations %s, %s used (the first %s of each instance and size "
                "skipped), %s events\n", v[7], v[8], v[9], v[6]);
        fprintf(r->out, "times in microseconds; definitions: docs/analysis-db.md\n");
    } else if (r->opts->format == AN_FMT_JSON) {
        const char *k[] = { "trace", "database", "tree", "pathmap", "ops", "ops_used", "skip" };
        const char *x[] = { v[0], r->path, v[2], v[1], v[7], v[8], v[9] };
        fputc('{', r->out);
        for (int i = 0; i < 7; i++) {
            json_str(r->out, k[i]);
            fputs(": ", r->out);
            if (i < 4)
                json_str(r->out, x[i]);
            else
                fputs(strspn(x[i], "0123456789") == strlen(x[i]) && *x[i] ? x[i] : "null",
                      r->out);
            fputs(", ", r->out);
        }
        fputs("\"tables\": [\n", r->out);
    }
    for (int i = 0; i < 10; i++)
        free(v[i]);
}

#define US(x) "ROUND(" x " / 1e3, 2)"

static cm_status_t section_pap(rep_t *r, int64_t bytes, const char *sfx)
{
    char title[160];

    snprintf(title, sizeof(title), "Arrival patterns (PAP, Proficz 2018)%s", sfx);
    return table(r, "pap", title,
                 "SELECT metric, n, " US("mean") " AS mean, " US("median") " AS median, "
                 US("p90") " AS p90, " US("max") " AS max FROM stats"
                 " WHERE scope = 'pap' AND thread IS NULL AND bytes = %lld AND metric <> 'imbalance'"
                 " UNION ALL SELECT 'p2p (' || source || ')', NULL, " US("ns") ", NULL, NULL, NULL"
                 " FROM p2p WHERE bytes = %lld"
                 " UNION ALL SELECT 'imbalance factor', n, ROUND(mean, 2), ROUND(median, 2),"
                 " ROUND(p90, 2), ROUND(max, 2) FROM stats WHERE scope = 'pap'"
                 " AND metric = 'imbalance' AND bytes = %lld"
                 " UNION ALL SELECT 'ops imbalanced (factor > 1), %%', COUNT(*),"
                 " ROUND(100.0 * AVG(imbalance > 1), 1), NULL, NULL, NULL FROM ops"
                 " WHERE used AND bytes = %lld AND imbalance IS NOT NULL",
                 (long long)bytes, (long long)bytes, (long long)bytes, (long long)bytes);
}

int64_t an__thread_end(sqlite3 *db, int64_t bytes, int slowest)
{
    const char *sql = slowest
        ? "SELECT thread FROM thread_parts WHERE bytes = ? AND total_no_wait IS NOT NULL"
          " ORDER BY total_no_wait DESC, thread LIMIT 1"
        : "SELECT thread FROM thread_parts WHERE bytes = ? AND total_no_wait IS NOT NULL"
          " ORDER BY total_no_wait, thread LIMIT 1";
    sqlite3_stmt *st = NULL;
    int64_t t = -1;

    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK
        && sqlite3_bind_int64(st, 1, bytes) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW
        && sqlite3_column_type(st, 0) != SQLITE_NULL)
        t = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return t;
}

static cm_status_t section_threads(rep_t *r, int64_t bytes, const char *sfx)
{
    char title[160];

    snprintf(title, sizeof(title), "Threads, fastest first (means per allreduce)%s", sfx);
    return table(r, "threads", title,
                 "SELECT p.thread, w.name AS host, p.nproxies AS proxies,"
                 " " US("p.total_no_wait") " AS total_no_wait, " US("p.total_with_wait")
                 " AS total_with_wait, " US("p.down_no_wait") " AS down_no_wait,"
                 " " US("p.up") " AS up, " US("p.proxy") " AS proxy"
                 " FROM thread_parts p JOIN hosts w ON w.host = p.host WHERE p.bytes = %lld"
                 " ORDER BY p.total_no_wait, p.thread", (long long)bytes);
}

/* Table 3/4: parts of the tree for the fastest, slowest and per proxy count. */
static cm_status_t section_parts(rep_t *r, int64_t bytes, const char *sfx)
{
    static const char *const parts[][2] = {
        { "Down-path, with arrival wait", "down_with_wait" },
        { "Down-path, no arrival wait", "down_no_wait" },
        { "Up-path", "up" },
        { "Host subtree, no arrival wait", "host_no_wait" },
        { "Cluster-root subtree, no arrival wait", "cluster_no_wait" },
        { "Proxy stages", "proxy" },
        { "Core", "core" },
        { "Total, no arrival wait", "total_no_wait" },
        { "Total, with arrival wait", "total_with_wait" },
    };
    int64_t cols[16];
    char labels[16][80], title[160];
    int ncols = 0;
    int64_t maxp = query_int(r, -1, "SELECT MAX(nproxies) FROM thread_parts WHERE bytes = %lld",
                             (long long)bytes);
    sqlite3_str *q = sqlite3_str_new(r->db);
    char *sql;
    cm_status_t st;

    cols[ncols] = an__thread_end(r->db, bytes, 0);
    snprintf(labels[ncols++], 80, "fastest (%lld)", (long long)cols[0]);
    cols[ncols] = an__thread_end(r->db, bytes, 1);
    snprintf(labels[ncols], 80, "slowest (%lld)", (long long)cols[ncols]);
    ncols++;
    for (int64_t p = 0; maxp > 0 && p <= maxp && ncols + 2 <= 16; p++) {
        for (int slow = 0; slow < 2; slow++) {
            int64_t t = query_int(r, -1, "SELECT thread FROM thread_parts WHERE bytes = %lld"
                                  " AND nproxies = %lld ORDER BY total_no_wait %s, thread LIMIT 1",
                                  (long long)bytes, (long long)p, slow ? "DESC" : "");
            if (t < 0)
                continue;
            cols[ncols] = t;
            snprintf(labels[ncols++], 80, "%lld prox. %s (%lld)", (long long)p,
                     slow ? "slowest" : "fastest", (long long)t);
        }
    }
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        sqlite3_str_appendf(q, "%sSELECT '%s' AS part", i ? " UNION ALL " : "", parts[i][0]);
        for (int c = 0; c < ncols; c++)
            sqlite3_str_appendf(q, ", (SELECT " US("%s") " FROM thread_parts WHERE thread = %lld"
                                " AND bytes = %lld) AS \"%w\"", parts[i][1], (long long)cols[c],
                                (long long)bytes, labels[c]);
    }
    if ((sql = sqlite3_str_finish(q)) == NULL)
        return CM_ERR(r->err, CM_ERR_NOMEM, "out of memory");
    snprintf(title, sizeof(title), "Parts of the tree per thread (Tables 3 and 4)%s", sfx);
    st = table(r, "parts", title, "%s", sql);
    sqlite3_free(sql);
    return st;
}

/* Table 2: every stage of one thread. */
static cm_status_t section_stages(rep_t *r, int64_t bytes, const char *sfx)
{
    int64_t t = r->opts->thread;
    char title[200];

    if (t < 0)
        t = an__thread_end(r->db, bytes, 1);
    else if (query_int(r, 0, "SELECT COUNT(*) FROM threads WHERE thread = %lld", (long long)t) == 0)
        return CM_ERR(r->err, CM_ERR_INVALID, "--thread %lld: no such thread in this trace",
                      (long long)t);
    snprintf(title, sizeof(title), "Stages of thread %lld%s (Table 2)%s", (long long)t,
             r->opts->thread < 0 ? ", the slowest" : "", sfx);
    return table(r, "stages", title,
                 "SELECT * FROM (SELECT name || ' ' || REPLACE(stage, '_', ' ') AS stage,"
                 " part, n, " US("mean") " AS mean, " US("median") " AS median,"
                 " " US("stdev") " AS stdev, " US("min") " AS min, " US("max") " AS max,"
                 " " US("p10") " AS p10, " US("p90") " AS p90 FROM thread_stages"
                 " WHERE thread = %lld AND bytes = %lld ORDER BY seq)"
                 " UNION ALL SELECT 'time per allreduce', NULL, n, " US("mean") ", " US("median")
                 ", " US("stdev") ", " US("min") ", " US("max") ", " US("p10") ", " US("p90")
                 " FROM stats WHERE scope = 'thread' AND metric = 'total' AND thread = %lld"
                 " AND bytes = %lld", (long long)t, (long long)bytes, (long long)t,
                 (long long)bytes);
}

/* Table 1 for one gred: arrival order x departure order, % of the row.  Up
 * to ORDERS_WIDE contributors, one table with a column per departure order.
 * A wider gred (100 contributors on a 128-core node) is printed as text in
 * blocks of ORDERS_BLOCK departure columns, and as CSV or JSON in long form:
 * one row per (arrival, departure) cell with operations (order_matrix). */
#define ORDERS_WIDE  16
#define ORDERS_BLOCK 10

static cm_status_t section_orders(rep_t *r, int64_t node, int64_t bytes, const char *sfx)
{
    /* the fan-in is the contributors' count: an_db_open_read checked it */
    int64_t P = query_int(r, 0, "SELECT fanin FROM wrappers WHERE node = %lld", (long long)node);
    char title[320], name[96] = "?", tname[112];
    sqlite3_stmt *st = NULL;
    cm_status_t ret = CM_OK;

    if (sqlite3_prepare_v2(r->db, "SELECT name FROM wrappers WHERE node = ?", -1, &st, NULL)
        == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, node);
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0) != NULL)
            snprintf(name, sizeof(name), "%s", (const char *)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    snprintf(tname, sizeof(tname), "orders/%s", name);
    if (P > ORDERS_WIDE && r->opts->format != AN_FMT_TEXT) {
        snprintf(title, sizeof(title), "Arrival x departure order at %s (Table 1), %% of "
                 "operations, one row per cell%s", name, sfx);
        return table(r, tname, title, "SELECT arrival, departure, count, ROUND(percent, 1) AS"
                     " percent FROM order_matrix WHERE node = %lld AND bytes = %lld"
                     " ORDER BY arrival, departure", (long long)node, (long long)bytes);
    }
    for (int64_t lo = 1; lo <= P && ret == CM_OK; lo += P > ORDERS_WIDE ? ORDERS_BLOCK : P) {
        int64_t hi = P > ORDERS_WIDE && lo + ORDERS_BLOCK - 1 < P ? lo + ORDERS_BLOCK - 1 : P;
        sqlite3_str *q = sqlite3_str_new(r->db);
        char *sql;

        sqlite3_str_appendall(q, "SELECT a.arrival AS arrival");
        for (int64_t d = lo; d <= hi; d++)
            sqlite3_str_appendf(q, ", ROUND(COALESCE((SELECT percent FROM order_matrix m WHERE"
                                " m.node = %lld AND m.bytes = %lld AND m.arrival = a.arrival"
                                " AND m.departure = %lld), 0), 1) AS \"dep %lld %%\"",
                                (long long)node, (long long)bytes, (long long)d, (long long)d);
        sqlite3_str_appendf(q, " FROM (SELECT DISTINCT arrival FROM orders WHERE node = %lld AND"
                            " bytes = %lld) a ORDER BY a.arrival", (long long)node,
                            (long long)bytes);
        if ((sql = sqlite3_str_finish(q)) == NULL)
            return CM_ERR(r->err, CM_ERR_NOMEM, "out of memory");
        if (P > ORDERS_WIDE)
            snprintf(title, sizeof(title), "Arrival x departure order at %s (Table 1), %% of "
                     "operations%s, departures %lld-%lld of %lld", name, sfx, (long long)lo,
                     (long long)hi, (long long)P);
        else
            snprintf(title, sizeof(title), "Arrival x departure order at %s (Table 1), %% of "
                     "operations%s", name, sfx);
        ret = table(r, tname, title, "%s", sql);
        sqlite3_free(sql);
    }
    return ret;
}

static cm_status_t section_subtree(rep_t *r, int64_t node, int64_t bytes, const char *sfx)
{
    char title[240], note[64] = "";
    cm_status_t st;

    snprintf(title, sizeof(title), "%s: down and up latency%s",
             node == query_int(r, -1, "SELECT node FROM wrappers WHERE parent IS NULL")
             ? "Whole tree" : "Subtree", sfx);
    st = table(r, "subtree", title,
               "SELECT w.name AS root, s.metric, s.n, " US("s.mean") " AS mean, "
               US("s.median") " AS median, " US("s.p90") " AS p90 FROM stats s"
               " JOIN wrappers w USING (node) WHERE s.scope = 'subtree' AND s.thread IS NULL"
               " AND s.node = %lld AND s.bytes = %lld", (long long)node, (long long)bytes);
    if (st != CM_OK)
        return st;
    /* subtree_orders has no rows for a larger subtree: say why the last two
       columns are "-". */
    if (query_int(r, 0, "SELECT COUNT(*) FROM paths WHERE node = %lld", (long long)node) >
        AN_SUBTREE_ORDERS_MAX)
        snprintf(note, sizeof(note), ": - (not computed for subtrees over %d threads)",
                 AN_SUBTREE_ORDERS_MAX);
    snprintf(title, sizeof(title), "Per thread in that subtree: means, and %% of operations "
             "arriving last / departing first%s%s", sfx, note);
    return table(r, "subtree_threads", title,
                 "SELECT t.thread, " US("(SELECT mean FROM stats s WHERE s.scope = 'subtree'"
                 " AND s.node = %lld AND s.thread = t.thread AND s.bytes = %lld AND s.metric ="
                 " 'arrival_wait')") " AS arrival_wait,"
                 " " US("(SELECT mean FROM stats s WHERE s.scope = 'subtree' AND s.node = %lld"
                 " AND s.thread = t.thread AND s.bytes = %lld AND s.metric = 'departure_wait')")
                 " AS departure_wait,"
                 " " US("(SELECT mean FROM stats s WHERE s.scope = 'subtree' AND s.node = %lld"
                 " AND s.thread = t.thread AND s.bytes = %lld AND s.metric = 'latency')")
                 " AS latency,"
                 " ROUND(100.0 * (SELECT TOTAL(count) FROM subtree_orders o WHERE o.node = %lld"
                 " AND o.thread = t.thread AND o.bytes = %lld AND o.arrival = (SELECT COUNT(*)"
                 " FROM paths p WHERE p.node = %lld)) / (SELECT SUM(count) FROM subtree_orders o"
                 " WHERE o.node = %lld AND o.thread = t.thread AND o.bytes = %lld), 1)"
                 " AS last_arrival_pct,"
                 " ROUND(100.0 * (SELECT TOTAL(count) FROM subtree_orders o WHERE o.node = %lld"
                 " AND o.thread = t.thread AND o.bytes = %lld AND o.departure = 1) /"
                 " (SELECT SUM(count) FROM subtree_orders o WHERE o.node = %lld"
                 " AND o.thread = t.thread AND o.bytes = %lld), 1) AS first_departure_pct"
                 " FROM threads t WHERE t.thread IN (SELECT thread FROM paths WHERE node = %lld)"
                 " ORDER BY t.thread",
                 (long long)node, (long long)bytes, (long long)node, (long long)bytes,
                 (long long)node, (long long)bytes, (long long)node, (long long)bytes,
                 (long long)node, (long long)node, (long long)bytes, (long long)node,
                 (long long)bytes, (long long)node, (long long)bytes, (long long)node);
}

static cm_status_t section_hotspots(rep_t *r, int64_t bytes, const char *sfx)
{
    char title[160];

    snprintf(title, sizeof(title), "Hotspots: wrapper stages by mean time%s", sfx);
    return table(r, "hotspots", title,
                 "SELECT name AS wrapper, kind, part, REPLACE(metric, '_', ' ') AS stage, n,"
                 " " US("mean") " AS mean, " US("median") " AS median, " US("p90") " AS p90,"
                 " ROUND(100.0 * mean / (SELECT AVG(mean) FROM stats WHERE scope = 'thread'"
                 " AND metric = 'total' AND bytes = %lld), 1) AS \"%% of allreduce\""
                 " FROM hotspots WHERE bytes = %lld LIMIT 10", (long long)bytes,
                 (long long)bytes);
}

/* The algorithm node: its hosts, its rounds' Late Sender time, its arrival
 * pattern (docs/analysis-db.md, "Algorithm nodes"). */
static cm_status_t section_algo(rep_t *r, int64_t bytes, const char *sfx)
{
    char title[320];                     /* what + the words + sfx, at most */
    sqlite3_stmt *st = NULL;
    char what[160] = "";
    cm_status_t ret;

    if (sqlite3_prepare_v2(r->db, "SELECT w.name, a.algo, a.bcast, a.arrival FROM algo_nodes a"
                           " JOIN wrappers w USING (node)", -1, &st, NULL) == SQLITE_OK
        && sqlite3_step(st) == SQLITE_ROW) {
        const char *bc = (const char *)sqlite3_column_text(st, 2);
        snprintf(what, sizeof(what), "%s (run=%s%s%s, arrival=%s)",
                 (const char *)sqlite3_column_text(st, 0),
                 (const char *)sqlite3_column_text(st, 1), bc && *bc ? " bcast=" : "",
                 bc && *bc ? bc : "", (const char *)sqlite3_column_text(st, 3));
    }
    sqlite3_finalize(st);
    snprintf(title, sizeof(title), "Algorithm node %s: per host, means over the used "
             "operations%s", what, sfx);
    ret = table(r, "algo_hosts", title,
                "SELECT m.rank, h.name AS host, m.n, " US("m.latency") " AS latency,"
                " " US("m.a") " AS arrival_offset, " US("m.f") " AS departure_offset,"
                " " US("m.late") " AS late_sender"
                " FROM algo_host_means m JOIN hosts h ON h.host = m.host"
                " WHERE m.bytes = %lld ORDER BY m.node, m.rank", (long long)bytes);
    if (ret != CM_OK)
        return ret;
    snprintf(title, sizeof(title), "Algorithm node: Late Sender time per round (receives "
             "waiting for their senders)%s", sfx);
    ret = table(r, "algo_rounds", title,
                "SELECT round, msgs, " US("late_total") " AS late_total,"
                " " US("late_per_op") " AS per_op, " US("late_max") " AS max"
                " FROM algo_round_late WHERE bytes = %lld ORDER BY node, round",
                (long long)bytes);
    if (ret != CM_OK)
        return ret;
    snprintf(title, sizeof(title), "Algorithm node: the hosts' arrival pattern (Proficz "
             "2018, per host)%s", sfx);
    return table(r, "algo_pap", title,
                 "SELECT COUNT(*) AS n, " US("AVG(avg_elapsed)") " AS avg_elapsed,"
                 " " US("AVG(arrival_spread)") " AS arrival_spread,"
                 " " US("MAX(arrival_spread)") " AS max_spread,"
                 " " US("AVG(span)") " AS span,"
                 " ROUND(AVG(imbalance), 2) AS imbalance,"
                 " ROUND(100.0 * SUM(imbalance > 1) / COUNT(*), 1) AS \"imbalanced %%\""
                 " FROM algo_ops WHERE used AND bytes = %lld", (long long)bytes);
}

/* US, with -0.00 (a mean of 0 that Welford's update leaves at -1e-14) shown as 0.00. */
#define USZ(x) "(ROUND(" x " / 1e3, 2) + 0.0)"

/*
 * Arrival estimates (a PAP-aware node, docs/analysis-db.md): per host, the
 * operations by the source their schedule was made from, the fallbacks and
 * the hosts missing then, the wait for the arrival vector; then the
 * distribution of the estimation error (estimated - actual arrival at the
 * node) per host and over all hosts, and the estimates' lead time.  Only
 * when the database has arrival reports for this size (a database written
 * before the table existed has none).
 */
static cm_status_t section_arrivals(rep_t *r, int64_t bytes, const char *sfx)
{
    char title[200];
    int64_t node = query_int(r, -1, "SELECT node FROM algo_nodes");
    cm_status_t ret;

    if (query_int(r, 0, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'algo_arrivals'") == 0
        || query_int(r, 0, "SELECT COUNT(*) FROM algo_arrival_sources WHERE bytes = %lld",
                     (long long)bytes) == 0)
        return CM_OK;
    snprintf(title, sizeof(title), "Arrival estimates: operations by the source their "
             "schedule was made from, per host, and the wait for the arrival vector%s", sfx);
    ret = table(r, "arrival_sources", title,
                "SELECT s.rank, h.name AS host, s.n AS ops, s.asked, s.equal, s.history,"
                " s.edge, s.fallbacks, s.missing_hosts AS missing, " USZ("w.mean")
                " AS wait_mean, " USZ("w.median") " AS wait_median, " USZ("w.p90") " AS wait_p90,"
                " " USZ("w.max") " AS wait_max FROM algo_arrival_sources s"
                " JOIN hosts h ON h.host = s.host LEFT JOIN algo_arrival_stats w"
                " ON w.node = s.node AND w.bytes = s.bytes AND w.rank = s.rank"
                " AND w.metric = 'wait' WHERE s.bytes = %lld ORDER BY s.node, s.rank",
                (long long)bytes);
    if (ret != CM_OK)
        return ret;
    snprintf(title, sizeof(title), "Arrival estimates: estimation error (estimated - actual "
             "arrival at the node) and lead time, per host and over all%s", sfx);
    /* No estimate at all: a table of zeros and dashes would read as a
       measurement; the text report says why there is none (csv and json
       keep the table, whose counts are data). */
    if (r->opts->format == AN_FMT_TEXT
        && query_int(r, 0, "SELECT COUNT(*) FROM algo_arrival_stats WHERE bytes = %lld"
                     " AND metric = 'error' AND n > 0", (long long)bytes) == 0) {
        int edge = query_int(r, 0, "SELECT COUNT(*) FROM algo_arrival_sources WHERE"
                             " bytes = %lld AND asked = 'edge'", (long long)bytes) > 0;
        fprintf(r->out, "\n%s\n%s\n", title, edge
                ? "none: no operation was planned from edge() estimates (each fell back to "
                  "another source: did any host estimate in time? does the program call "
                  "rt_exec_edge?), so there is no estimation error to show (docs/pap.md)"
                : "none: arrival=history and equal make no estimates (history plans each "
                  "operation from the previous one's arrival times, equal from none), so "
                  "there is no estimation error to show; arrival=edge estimates (docs/pap.md)");
        return CM_OK;
    }
    return table(r, "arrival_errors", title,
                 "SELECT x.rank, COALESCE(h.name, 'all') AS host, COALESCE(e.n, 0) AS n,"
                 " " USZ("e.mean") " AS mean, " USZ("e.median") " AS median, " USZ("e.p10")
                 " AS p10, " USZ("e.p90") " AS p90, " USZ("e.max_abs") " AS max_abs_error,"
                 " " USZ("l.mean") " AS lead_mean, " USZ("l.min") " AS lead_min"
                 " FROM (SELECT rank, host FROM algo_ranks WHERE node = %lld"
                 " UNION ALL SELECT NULL, NULL) x LEFT JOIN hosts h ON h.host = x.host"
                 " LEFT JOIN algo_arrival_stats e ON e.node = %lld AND e.bytes = %lld"
                 " AND e.metric = 'error' AND e.rank IS x.rank"
                 " LEFT JOIN algo_arrival_stats l ON l.node = %lld AND l.bytes = %lld"
                 " AND l.metric = 'lead' AND l.rank IS x.rank"
                 " ORDER BY x.rank IS NULL, x.rank", (long long)node, (long long)node,
                 (long long)bytes, (long long)node, (long long)bytes);
}

/*
 * Algorithm choices (docs/analysis-db.md, "Algorithm choices"): per call
 * site (or node) and size class, how often auto chose each candidate, the
 * predicted regret (the chosen candidate's corrected prediction over the
 * best one's) and the measured time; with --baseline, auto's measured time
 * against the fixed run's.  Only when the trace had choices.
 */
static cm_status_t section_auto(rep_t *r)
{
    cm_status_t ret;

    if (query_int(r, 0, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'auto_summary'") == 0)
        return CM_OK;
    ret = table(r, "auto_choices", "Algorithm choices: per call site (or node) and size "
                "class, how often auto chose each candidate, its predicted regret (chosen / "
                "best corrected prediction) and the measured time",
                "SELECT site, 1 << size_class AS bytes_from, chosen, n AS ops,"
                " ROUND(share_pct, 1) AS share_pct, ROUND(mean_regret, 3) AS regret_mean,"
                " ROUND(max_regret, 3) AS regret_max, " USZ("mean_measured_ns") " AS time_us,"
                " disagreed FROM auto_summary ORDER BY site, size_class, n DESC, chosen");
    if (ret != CM_OK
        || query_int(r, 0, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'auto_baseline'")
               == 0)
        return ret;
    return table(r, "auto_baseline", "Algorithm choices against the fixed run (--baseline): "
                 "mean measured time per operation, auto / fixed",
                 "SELECT site, 1 << size_class AS bytes_from, auto_ops, " USZ("auto_ns")
                 " AS auto_us, baseline_ops AS fixed_ops, " USZ("baseline_ns") " AS fixed_us,"
                 " ROUND(ratio, 3) AS auto_over_fixed FROM auto_baseline"
                 " ORDER BY site, size_class");
}

/* All sections for one tuple size. */
static cm_status_t report_size(rep_t *r, int64_t bytes, int nsizes)
{
    char sfx[48] = "";
    int64_t core = query_int(r, -1, "SELECT node FROM wrappers WHERE parent IS NULL");
    int64_t only = -1;
    sqlite3_stmt *st = NULL;
    cm_status_t ret = CM_OK;

    if (nsizes > 1)
        snprintf(sfx, sizeof(sfx), ", %lld-byte tuples", (long long)bytes);
    if (r->opts->wrapper != NULL) {
        if (sqlite3_prepare_v2(r->db, "SELECT node FROM wrappers WHERE name = ?", -1, &st,
                               NULL) == SQLITE_OK) {
            sqlite3_bind_text(st, 1, r->opts->wrapper, -1, SQLITE_STATIC);
            if (sqlite3_step(st) == SQLITE_ROW)
                only = sqlite3_column_int64(st, 0);
        }
        sqlite3_finalize(st);
        st = NULL;
        if (only < 0)
            return CM_ERR(r->err, CM_ERR_INVALID, "--wrapper %s: no such wrapper in this trace",
                          r->opts->wrapper);
    }
    if ((ret = section_threads(r, bytes, sfx)) != CM_OK
        || (ret = section_parts(r, bytes, sfx)) != CM_OK
        || (ret = section_stages(r, bytes, sfx)) != CM_OK
        || (ret = section_hotspots(r, bytes, sfx)) != CM_OK)
        return ret;
    if (sqlite3_prepare_v2(r->db, "SELECT node FROM wrappers WHERE kind = 'gred' AND"
                           " (?1 < 0 OR node = ?1) ORDER BY level DESC, node", -1, &st, NULL)
        != SQLITE_OK)
        return db_fail(r, "listing wrappers");
    sqlite3_bind_int64(st, 1, only);
    while (ret == CM_OK && sqlite3_step(st) == SQLITE_ROW)
        ret = section_orders(r, sqlite3_column_int64(st, 0), bytes, sfx);
    sqlite3_finalize(st);
    if (ret == CM_OK)
        ret = section_subtree(r, only >= 0 && only != core ? only : core, bytes, sfx);
    if (ret == CM_OK)
        ret = section_pap(r, bytes, sfx);
    if (ret == CM_OK && query_int(r, 0, "SELECT COUNT(*) FROM algo_nodes") > 0)
        ret = section_algo(r, bytes, sfx);
    if (ret == CM_OK && query_int(r, 0, "SELECT COUNT(*) FROM algo_nodes") > 0)
        ret = section_arrivals(r, bytes, sfx);
    return ret;
}

cm_status_t an_report(const char *path, const an_report_opts_t *opts, FILE *out, cm_err_t *err)
{
    rep_t r = { NULL, opts, out, err, path, 0 };
    sqlite3_stmt *st = NULL;
    int64_t sizes[16];
    int nsizes = 0;
    cm_status_t ret = CM_OK;

    /* the same checks and messages as papviz's model (an_db_read.c) */
    if ((ret = an_db_open_read(path, &r.db, err)) != CM_OK)
        return ret;
    if (an_mpi_db_is_mpi(r.db)) {          /* an application trace's (an_mpi_report.c) */
        ret = an_mpi_report(r.db, path, opts, out, err);
        /* its csv and json are one table each: the choices only in the text */
        if (ret == CM_OK && opts->format == AN_FMT_TEXT)
            ret = section_auto(&r);
        sqlite3_close(r.db);
        return ret;
    }
    if (sqlite3_prepare_v2(r.db, "SELECT DISTINCT bytes FROM ops WHERE used ORDER BY bytes",
                           -1, &st, NULL) != SQLITE_OK) {
        ret = an_db_is_busy(sqlite3_errcode(r.db))
            ? CM_ERR_AT(err, CM_ERR_IO, path, 0, 0, "is locked by another process")
            : CM_ERR_AT(err, CM_ERR_INVALID, path, 0, 0, "not a papanalyze database: %s",
                        sqlite3_errmsg(r.db));
    } else {
        while (nsizes < 16 && sqlite3_step(st) == SQLITE_ROW)
            sizes[nsizes++] = sqlite3_column_int64(st, 0);
        if (nsizes == 0)
            ret = CM_ERR_AT(err, CM_ERR_INVALID, path, 0, 0, "no operation left after "
                            "--skip: nothing to report (use a smaller --skip)");
    }
    sqlite3_finalize(st);
    if (ret == CM_OK) {
        header(&r);
        for (int i = 0; i < nsizes && ret == CM_OK; i++)
            ret = report_size(&r, sizes[i], nsizes);
        if (ret == CM_OK)
            ret = section_auto(&r);
        if (opts->format == AN_FMT_JSON)
            fputs("\n]}\n", out);
    }
    sqlite3_close(r.db);
    return ret;
}
