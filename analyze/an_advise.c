/*
 * an_advise.c - advice from a database (papanalyze --advise, pathgen
 * advise; docs/pathgen.md, "Advice").
 *
 * Opens the database as papviz and the report do (an_model_open: the same
 * refusals), runs the rules of an_advise_rules.c on each tuple size, keeps
 * one advice per edit (the size where its gain is largest), ranks them by
 * gain and prints them as text or CSV.  The one query of its own: in how
 * many operations each host's last thread arrived last of all hosts, and
 * its mean arrival and departure (pap_hosts), for the root rule; for the
 * move rule, each gred's most frequent last contributor (orders), the
 * others' mean arrival wait (stats scope contributor) and each thread's
 * mean arrival and exit (pap_threads).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "analyze/an_int.h"
#include "analyze/an_advise_int.h"

/* last[h] and arrival[h] for tuple size bytes (an_adv_hosts_t): from the
 * used operations' pap_hosts rows. */
static cm_status_t last_arrivals(sqlite3 *db, const char *path, int64_t bytes, double *last,
                                 double *arrival, double *departure, int nhosts, cm_err_t *err)
{
    static const char sql[] =
        "SELECT p.host, SUM(p.a = (SELECT MAX(q.a) FROM pap_hosts q"
        "  WHERE q.instance = p.instance AND q.op = p.op)), COUNT(*), AVG(p.a), AVG(p.f)"
        " FROM pap_hosts p JOIN ops o ON o.instance = p.instance AND o.op = p.op"
        " WHERE o.used AND o.bytes = ?1 GROUP BY p.host";
    sqlite3_stmt *st = NULL;
    int rc;

    for (int h = 0; h < nhosts; h++)
        last[h] = arrival[h] = departure[h] = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return CM_ERR_AT(err, CM_ERR_IO, path, 0, 0, "reading pap_hosts: %s",
                         sqlite3_errmsg(db));
    sqlite3_bind_int64(st, 1, bytes);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int h = sqlite3_column_int(st, 0);
        int64_t n = sqlite3_column_int64(st, 2);
        if (h >= 0 && h < nhosts && n > 0) {
            last[h] = (double)sqlite3_column_int64(st, 1) / (double)n;
            arrival[h] = sqlite3_column_double(st, 3);
            departure[h] = sqlite3_column_double(st, 4);
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? CM_OK
         : CM_ERR_AT(err, CM_ERR_IO, path, 0, 0, "reading pap_hosts: %s", sqlite3_errmsg(db));
}

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

/* The move rule's figures (an_adv_hosts_t), with scratch sums. */
typedef struct mv_fig {
    const an_model_t *m;
    int              *lastc;
    double           *lastf, *owait, *ta, *tf;
    double           *best, *total, *wn;   /* per node: scratch */
} mv_fig_t;

static int node_ok(const mv_fig_t *f, int n) { return n >= 0 && n < f->m->tree.nwrappers; }

/* orders rows (node, contributor, last arrivals): the most frequent wins
 * (ties: the smaller contributor, rows come in its order). */
static void last_row(sqlite3_stmt *st, void *arg)
{
    mv_fig_t *f = arg;
    int n = sqlite3_column_int(st, 0), c = sqlite3_column_int(st, 1);
    double k = (double)sqlite3_column_int64(st, 2);
    if (!node_ok(f, n))
        return;
    f->total[n] += k;
    if (f->lastc[n] < 0 || k > f->best[n])
        f->lastc[n] = c, f->best[n] = k;
}

/* stats rows (node, contributor, n, mean arrival wait), not the last one */
static void wait_row(sqlite3_stmt *st, void *arg)
{
    mv_fig_t *f = arg;
    int n = sqlite3_column_int(st, 0), c = sqlite3_column_int(st, 1);
    double k = (double)sqlite3_column_int64(st, 2);
    if (node_ok(f, n) && c != f->lastc[n] && k > 0)
        f->owait[n] += k * sqlite3_column_double(st, 3), f->wn[n] += k;
}

/* pap_threads means (thread, a, f) */
static void pap_row(sqlite3_stmt *st, void *arg)
{
    mv_fig_t *f = arg;
    int i = an_model_thread_index(&f->m->tree, sqlite3_column_int(st, 0));
    if (i >= 0)
        f->ta[i] = sqlite3_column_double(st, 1), f->tf[i] = sqlite3_column_double(st, 2);
}

static cm_status_t move_figures(sqlite3 *db, const char *path, int64_t bytes, mv_fig_t *f,
                                cm_err_t *err)
{
    static const char last_sql[] =
        "SELECT o.node, o.contributor, SUM(o.count) FROM orders o"
        " JOIN wrappers w ON w.node = o.node"
        " WHERE o.bytes = ?1 AND w.kind = 'gred' AND o.arrival = w.fanin"
        " GROUP BY o.node, o.contributor ORDER BY o.node, o.contributor";
    static const char wait_sql[] =
        "SELECT node, contributor, n, mean FROM stats WHERE scope = 'contributor'"
        " AND metric = 'arrival_wait' AND bytes = ?1";
    static const char pap_sql[] =
        "SELECT p.thread, AVG(p.a), AVG(p.f) FROM pap_threads p"
        " JOIN ops o ON o.instance = p.instance AND o.op = p.op"
        " WHERE o.used AND o.bytes = ?1 GROUP BY p.thread";
    int nw = f->m->tree.nwrappers, nt = f->m->tree.nthreads;
    cm_status_t st;
    for (int n = 0; n < nw; n++)
        f->lastc[n] = -1, f->lastf[n] = f->owait[n] = f->best[n] = f->total[n] = f->wn[n] = 0;
    for (int i = 0; i < nt; i++)
        f->ta[i] = f->tf[i] = 0;
    if ((st = each_row(db, path, "orders", last_sql, bytes, last_row, f, err)) != CM_OK
        || (st = each_row(db, path, "stats", wait_sql, bytes, wait_row, f, err)) != CM_OK
        || (st = each_row(db, path, "pap_threads", pap_sql, bytes, pap_row, f, err)) != CM_OK)
        return st;
    for (int n = 0; n < nw; n++) {
        f->lastf[n] = f->total[n] > 0 ? f->best[n] / f->total[n] : 0;
        f->owait[n] = f->wn[n] > 0 ? f->owait[n] / f->wn[n] : 0;
    }
    return CM_OK;
}

/* Keeps, for each edit, the advice of largest gain. */
static void dedupe(an_adv_list_t *l)
{
    int k = 0;
    for (int i = 0; i < l->n; i++) {
        int j;
        for (j = 0; j < k && strcmp(l->a[j].edit, l->a[i].edit) != 0; j++)
            ;
        if (j == k)
            l->a[k++] = l->a[i];
        else if (l->a[i].gain_ns > l->a[j].gain_ns)
            l->a[j] = l->a[i];
    }
    l->n = k;
}

static cm_status_t compute(an_model_t *m, const char *path, an_adv_list_t *l, cm_err_t *err)
{
    sqlite3 *db = NULL;
    int nh = m->tree.nhosts, nw = m->tree.nwrappers, nt = m->tree.nthreads;
    double *last = calloc(3 * (size_t)nh + 5 * (size_t)nw + 2 * (size_t)nt + 1, sizeof(double));
    int *lastc = malloc(((size_t)nw + 1) * sizeof(int));
    mv_fig_t f = { m, lastc, NULL, NULL, NULL, NULL, NULL, NULL, NULL };
    an_adv_hosts_t hosts = { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL };
    cm_status_t st = CM_OK;

    if (last == NULL || lastc == NULL) {
        st = CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    } else {        /* last: 3 per host, then lastf, owait, best, total, wn, ta, tf */
        double *w = last + 3 * nh;
        f.lastf = w, f.owait = w + nw, f.best = w + 2 * nw, f.total = w + 3 * nw;
        f.wn = w + 4 * nw, f.ta = w + 5 * nw, f.tf = w + 5 * nw + nt;
        hosts = (an_adv_hosts_t){ last, last + nh, last + 2 * nh, lastc, f.lastf, f.owait,
                                  f.ta, f.tf };
    }
    if (st == CM_OK && m->nsizes == 0)
        st = CM_ERR_AT(err, CM_ERR_INVALID, path, 0, 0, "no operation left after --skip: "
                       "nothing to report (use a smaller --skip)");
    if (st == CM_OK)
        st = an_db_open_read(path, &db, err);
    for (int i = 0; st == CM_OK && i < m->nsizes; i++) {
        char sfx[64] = "";
        if (m->nsizes > 1)
            snprintf(sfx, sizeof(sfx), " (%lld-byte tuples)", (long long)m->sizes[i].bytes);
        st = last_arrivals(db, path, m->sizes[i].bytes, last, last + nh, last + 2 * nh, nh,
                           err);
        if (st == CM_OK)
            st = move_figures(db, path, m->sizes[i].bytes, &f, err);
        if (st == CM_OK)
            st = an__advise_rules(m, &m->sizes[i], &hosts, sfx, l, err);
    }
    sqlite3_close(db);
    free(last);
    free(lastc);
    if (st == CM_OK) {
        dedupe(l);
        an__advise_rank(l);
    }
    return st;
}

cm_status_t an_advise_compute(const char *db, an_advice_t **advice_p, int *n_p, cm_err_t *err)
{
    an_model_t *m = NULL;
    an_adv_list_t l = { NULL, 0, 0 };
    cm_status_t st;

    *advice_p = NULL;
    *n_p = 0;
    if ((st = an_model_open(db, &m, err)) != CM_OK)
        return st;
    st = compute(m, db, &l, err);
    an_model_close(m);
    if (st != CM_OK) {
        free(l.a);
        return st;
    }
    *advice_p = l.a;
    *n_p = l.n;
    return CM_OK;
}

/* ---------------------------------------------------------------- printing */

static void csv_quoted(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

/* A path as one shell word: as is when it has only safe characters. */
static void shell_word(FILE *out, const char *s)
{
    if (*s != '\0' && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                             "0123456789/._-+=,:@%") == strlen(s)) {
        fputs(s, out);
        return;
    }
    fputc('\'', out);
    for (; *s; s++) {
        if (*s == '\'')
            fputs("'\\''", out);
        else
            fputc(*s, out);
    }
    fputc('\'', out);
}

static void print_text(FILE *out, const an_advice_t *a, int n, const char *pathmap)
{
    if (n == 0) {
        fprintf(out, "no advice: no hotspot reaches the thresholds of docs/pathgen.md "
                "(\"Advice\")\n");
        return;
    }
    for (int i = 0; i < n; i++) {
        fprintf(out, "%sadvice %d: %s\n", i ? "\n" : "", a[i].rank, a[i].edit);
        fprintf(out, "  gain: at most %.2f us per allreduce\n", a[i].gain_ns / 1e3);
        fprintf(out, "  why: %s\n", a[i].reason);
        fputs("  run: pathgen edit ", out);
        shell_word(out, pathmap);
        fprintf(out, " %s -o NEW.pathmap\n", a[i].edit);
    }
}

static void print_csv(FILE *out, const an_advice_t *a, int n)
{
    fputs("rank,rule,gain_us,edit,reason\n", out);
    for (int i = 0; i < n; i++) {
        fprintf(out, "%d,%s,%.3f,", a[i].rank, a[i].rule, a[i].gain_ns / 1e3);
        if (strpbrk(a[i].edit, ",\"\n") != NULL)
            csv_quoted(out, a[i].edit);
        else
            fputs(a[i].edit, out);
        fputc(',', out);
        csv_quoted(out, a[i].reason);
        fputc('\n', out);
    }
}

cm_status_t an_advise(const char *db, const an_advise_opts_t *opts, FILE *out, cm_err_t *err)
{
    an_model_t *m = NULL;
    an_adv_list_t l = { NULL, 0, 0 };
    cm_status_t st;

    if (opts->format != AN_FMT_TEXT && opts->format != AN_FMT_CSV)
        return CM_ERR(err, CM_ERR_INVALID, "advice: formats text and csv only");
    if ((st = an_model_open(db, &m, err)) != CM_OK)
        return st;
    if ((st = compute(m, db, &l, err)) == CM_OK) {
        int n = opts->max > 0 && opts->max < l.n ? opts->max : l.n;
        const char *pm = opts->pathmap ? opts->pathmap
                       : m->pathmap_path && *m->pathmap_path ? m->pathmap_path : "PATHMAP";
        if (opts->format == AN_FMT_CSV)
            print_csv(out, l.a, n);
        else
            print_text(out, l.a, n, pm);
    }
    an_model_close(m);
    free(l.a);
    return st;
}
