/*
 * an_auto.c - `auto`'s choices in the database (an_auto_int.h;
 * docs/analysis-db.md, "Algorithm choices").
 *
 * Every rank records its own choice of each operation (they must agree:
 * each rank chooses alone, from shared data).  auto_choices and auto_preds
 * keep every record; auto_ops keeps one row per operation, made here from
 * the records: the lowest rank's choice, whether all ranks chose alike,
 * the best candidate by corrected prediction and the regret (the chosen
 * one's corrected prediction over the best's: 1 when auto chose what its
 * own model thought best), and the operation's measured time, the mean
 * over ranks of the time each spent in it (algo_ops.avg_elapsed or
 * mpi_ops.avg_elapsed, computed by the rest of papanalyze).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/an_auto_int.h"
#include "analyze/an_mpi_int.h"

int an__auto_size_class(uint64_t bytes)
{
    int c = 0;

    while (bytes > 1) {
        bytes >>= 1;
        c++;
    }
    return c;
}

int an__auto_attr_slot(const char *name, OTF2_Type type)
{
    char want[64];

    if (name == NULL)
        return -1;
    if (type == OTF2_TYPE_STRING && strcmp(name, INS_ATTR_CANDIDATES) == 0)
        return AN_AUTO_CANDS;
    if (type == OTF2_TYPE_STRING && strcmp(name, INS_ATTR_REASON) == 0)
        return AN_AUTO_REASON;
    if (type == OTF2_TYPE_INT64 && strcmp(name, INS_ATTR_SPREAD) == 0)
        return AN_AUTO_SPREAD;
    if (type == OTF2_TYPE_UINT64 && strcmp(name, INS_ATTR_SKIPPED) == 0)
        return AN_AUTO_SKIPPED;
    for (unsigned i = 0; type == OTF2_TYPE_INT64 && i < INS_AUTO_CAND_MAX; i++) {
        snprintf(want, sizeof(want), INS_ATTR_PRED_FMT, i);
        if (strcmp(name, want) == 0)
            return AN_AUTO_PRED0 + (int)i;
        snprintf(want, sizeof(want), INS_ATTR_CORR_FMT, i);
        if (strcmp(name, want) == 0)
            return AN_AUTO_CORR0 + (int)i;
    }
    return -1;
}

static int has(OTF2_AttributeList *al, const uint32_t *ids, int slot)
{
    return ids[slot] != UINT32_MAX && OTF2_AttributeList_TestAttributeByID(al, ids[slot]);
}

/* Splits rec->cands into rec->name[]; the count, or -1 if it does not fit. */
static int split_cands(an_auto_rec_t *rec)
{
    const char *p = rec->cands;
    int n = 0;

    while (*p != '\0') {
        const char *e = strchr(p, ',');
        size_t len = e != NULL ? (size_t)(e - p) : strlen(p);

        if (n == (int)INS_AUTO_CAND_MAX || len == 0 || len >= AN_AUTO_NAME_MAX)
            return -1;
        memcpy(rec->name[n], p, len);
        rec->name[n++][len] = '\0';
        p += len + (e != NULL);
        if (e != NULL && *p == '\0')
            return -1;
    }
    return n;
}

int an__auto_parse(an_auto_rec_t *rec, OTF2_AttributeList *al, const uint32_t *ids,
                   const char *chosen, const char *(*str)(void *ctx, OTF2_StringRef ref),
                   void *ctx, const char **why)
{
    OTF2_StringRef cands, reason;
    const char *s, *r;
    int n, found = 0;

    if (al == NULL || !has(al, ids, AN_AUTO_CANDS))
        return 0;
    memset(rec, 0, sizeof(*rec));
    *why = "missing candidates, reason, spread or skipped";
    if (OTF2_AttributeList_GetStringRef(al, ids[AN_AUTO_CANDS], &cands) != OTF2_SUCCESS
        || !has(al, ids, AN_AUTO_REASON) || !has(al, ids, AN_AUTO_SPREAD)
        || !has(al, ids, AN_AUTO_SKIPPED)
        || OTF2_AttributeList_GetStringRef(al, ids[AN_AUTO_REASON], &reason) != OTF2_SUCCESS
        || OTF2_AttributeList_GetInt64(al, ids[AN_AUTO_SPREAD], &rec->spread) != OTF2_SUCCESS
        || OTF2_AttributeList_GetUint64(al, ids[AN_AUTO_SKIPPED], &rec->skipped)
               != OTF2_SUCCESS
        || (s = str(ctx, cands)) == NULL || (r = str(ctx, reason)) == NULL)
        return -1;
    *why = "a candidate list, reason or chosen name that is empty or too long";
    if (strlen(s) >= sizeof(rec->cands) || strlen(r) >= sizeof(rec->reason) || chosen == NULL
        || strlen(chosen) >= sizeof(rec->chosen) || *r == '\0')
        return -1;
    strcpy(rec->cands, s);
    strcpy(rec->reason, r);
    strcpy(rec->chosen, chosen);
    if ((n = split_cands(rec)) <= 0)
        return -1;
    rec->ncand = (uint32_t)n;
    for (int i = 0; i < n; i++) {
        rec->pred[i] = rec->corr[i] = -1;
        found |= strcmp(rec->name[i], chosen) == 0;
    }
    *why = "a chosen name that is not one of the candidates";
    if (!found)
        return -1;
    *why = "a prediction of a candidate beyond the list, or negative";
    for (int i = 0; i < (int)INS_AUTO_CAND_MAX; i++) {
        int p = has(al, ids, AN_AUTO_PRED0 + i), c = has(al, ids, AN_AUTO_CORR0 + i);

        if ((p || c) && i >= n)
            return -1;
        if ((p && (OTF2_AttributeList_GetInt64(al, ids[AN_AUTO_PRED0 + i], &rec->pred[i])
                   != OTF2_SUCCESS || rec->pred[i] < 0))
            || (c && (OTF2_AttributeList_GetInt64(al, ids[AN_AUTO_CORR0 + i], &rec->corr[i])
                      != OTF2_SUCCESS || rec->corr[i] < 0)))
            return -1;
    }
    return 1;
}

int an__auto_add(an_auto_t *a, const an_auto_rec_t *rec)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 64;
        an_auto_rec_t *p = realloc(a->r, cap * sizeof(*p));

        if (p == NULL)
            return -1;
        a->r = p;
        a->cap = cap;
    }
    a->r[a->n++] = *rec;
    return 0;
}

void an__auto_free(an_auto_t *a)
{
    free(a->r);
    a->r = NULL;
    a->n = a->cap = 0;
}

/* ---- writing -------------------------------------------------------------- */

static const char *const schema_sql =
    "CREATE TABLE auto_choices(kind TEXT, instance INTEGER, op INTEGER, rank INTEGER,"
    " call INTEGER, bytes INTEGER, size_class INTEGER, chosen TEXT, reason TEXT,"
    " spread_ns INTEGER, candidates TEXT, skipped INTEGER,"
    " PRIMARY KEY(kind, instance, op, rank));\n"
    "CREATE TABLE auto_preds(kind TEXT, instance INTEGER, op INTEGER, rank INTEGER,"
    " cand INTEGER, name TEXT, pred_ns INTEGER, corr_ns INTEGER, skipped INTEGER);\n"
    "CREATE TABLE auto_ops(kind TEXT, instance INTEGER, op INTEGER, site TEXT, bytes INTEGER,"
    " size_class INTEGER, nranks INTEGER, agreed INTEGER, chosen TEXT, reason TEXT,"
    " spread_ns INTEGER, candidates TEXT, chosen_pred_ns INTEGER, chosen_corr_ns INTEGER,"
    " best TEXT, best_corr_ns INTEGER, regret REAL, measured_ns REAL,"
    " PRIMARY KEY(kind, instance, op));\n";

static const char *const summary_sql =
    "CREATE TABLE auto_summary AS SELECT o.site AS site, o.size_class AS size_class,"
    " o.chosen AS chosen, COUNT(*) AS n,"
    " 100.0 * COUNT(*) / (SELECT COUNT(*) FROM auto_ops p WHERE p.site IS o.site"
    "   AND p.size_class = o.size_class) AS share_pct,"
    " AVG(o.regret) AS mean_regret, MAX(o.regret) AS max_regret,"
    " AVG(o.measured_ns) AS mean_measured_ns, SUM(o.agreed = 0) AS disagreed"
    " FROM auto_ops o GROUP BY o.site, o.size_class, o.chosen"
    " ORDER BY o.site, o.size_class, n DESC, o.chosen;\n";

/* The measured time and, for an application trace, the call site's label. */
static const char *const tree_fill_sql =
    "UPDATE auto_ops SET measured_ns = (SELECT o.avg_elapsed FROM algo_ops o"
    " WHERE o.instance = auto_ops.instance AND o.op = auto_ops.op);\n";
static const char *const mpi_fill_sql =
    "UPDATE auto_ops SET measured_ns = (SELECT o.avg_elapsed FROM mpi_ops o"
    "  WHERE o.comm = auto_ops.instance AND o.seq = auto_ops.op AND o.complete),"
    " site = (SELECT s.label FROM mpi_ops o JOIN mpi_callsites s ON s.site = o.site"
    "  WHERE o.comm = auto_ops.instance AND o.seq = auto_ops.op);\n";

static int step(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);

    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

static void bind_pos(sqlite3_stmt *st, int col, int64_t v)
{
    if (v >= 0)
        sqlite3_bind_int64(st, col, v);
    else
        sqlite3_bind_null(st, col);
}

static int cmp_rec(const void *x, const void *y)
{
    const an_auto_rec_t *a = *(const an_auto_rec_t *const *)x;
    const an_auto_rec_t *b = *(const an_auto_rec_t *const *)y;

    if (a->instance != b->instance)
        return a->instance < b->instance ? -1 : 1;
    if (a->op != b->op)
        return a->op < b->op ? -1 : 1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

static int index_of(const an_auto_rec_t *r, const char *name)
{
    for (uint32_t i = 0; i < r->ncand; i++)
        if (strcmp(r->name[i], name) == 0)
            return (int)i;
    return -1;
}

static int write_rec(sqlite3_stmt *c, sqlite3_stmt *p, const char *kind, const an_auto_rec_t *r)
{
    int bad;

    sqlite3_bind_text(c, 1, kind, -1, SQLITE_STATIC);
    sqlite3_bind_int64(c, 2, r->instance);
    sqlite3_bind_int64(c, 3, r->op);
    sqlite3_bind_int(c, 4, r->rank);
    bind_pos(c, 5, r->call);
    sqlite3_bind_int64(c, 6, (int64_t)r->bytes);
    sqlite3_bind_int(c, 7, an__auto_size_class(r->bytes));
    sqlite3_bind_text(c, 8, r->chosen, -1, SQLITE_STATIC);
    sqlite3_bind_text(c, 9, r->reason, -1, SQLITE_STATIC);
    sqlite3_bind_int64(c, 10, r->spread);
    sqlite3_bind_text(c, 11, r->cands, -1, SQLITE_STATIC);
    sqlite3_bind_int64(c, 12, (int64_t)r->skipped);
    bad = step(c);
    for (uint32_t i = 0; !bad && i < r->ncand; i++) {
        sqlite3_bind_text(p, 1, kind, -1, SQLITE_STATIC);
        sqlite3_bind_int64(p, 2, r->instance);
        sqlite3_bind_int64(p, 3, r->op);
        sqlite3_bind_int(p, 4, r->rank);
        sqlite3_bind_int(p, 5, (int)i);
        sqlite3_bind_text(p, 6, r->name[i], -1, SQLITE_STATIC);
        bind_pos(p, 7, r->pred[i]);
        bind_pos(p, 8, r->corr[i]);
        sqlite3_bind_int(p, 9, (int)((r->skipped >> i) & 1));
        bad = step(p);
    }
    return bad;
}

/* One operation's records g[0..n) (sorted by rank) into auto_ops. */
static int write_op(sqlite3_stmt *o, const char *kind, const char *site,
                    an_auto_rec_t *const *g, size_t n)
{
    const an_auto_rec_t *r = g[0];
    int agreed = 1, c = index_of(r, r->chosen), best = -1;
    uint64_t bytes = 0;

    for (size_t k = 0; k < n; k++) {
        agreed &= strcmp(g[k]->chosen, r->chosen) == 0 && strcmp(g[k]->cands, r->cands) == 0;
        bytes = g[k]->bytes > bytes ? g[k]->bytes : bytes;
    }
    for (uint32_t i = 0; i < r->ncand; i++)
        if (r->corr[i] >= 0 && (best < 0 || r->corr[i] < r->corr[best]))
            best = (int)i;
    sqlite3_bind_text(o, 1, kind, -1, SQLITE_STATIC);
    sqlite3_bind_int64(o, 2, r->instance);
    sqlite3_bind_int64(o, 3, r->op);
    if (site != NULL)
        sqlite3_bind_text(o, 4, site, -1, SQLITE_STATIC);
    sqlite3_bind_int64(o, 5, (int64_t)bytes);
    sqlite3_bind_int(o, 6, an__auto_size_class(bytes));
    sqlite3_bind_int64(o, 7, (int64_t)n);
    sqlite3_bind_int(o, 8, agreed);
    sqlite3_bind_text(o, 9, r->chosen, -1, SQLITE_STATIC);
    sqlite3_bind_text(o, 10, r->reason, -1, SQLITE_STATIC);
    sqlite3_bind_int64(o, 11, r->spread);
    sqlite3_bind_text(o, 12, r->cands, -1, SQLITE_STATIC);
    bind_pos(o, 13, c >= 0 ? r->pred[c] : -1);
    bind_pos(o, 14, c >= 0 ? r->corr[c] : -1);
    if (best >= 0) {
        sqlite3_bind_text(o, 15, r->name[best], -1, SQLITE_STATIC);
        sqlite3_bind_int64(o, 16, r->corr[best]);
    }
    if (c >= 0 && best >= 0 && r->corr[c] >= 0 && r->corr[best] > 0)
        sqlite3_bind_double(o, 17, (double)r->corr[c] / (double)r->corr[best]);
    return step(o);
}

cm_status_t an__auto_write(sqlite3 *db, const an_auto_t *a, an_auto_kind_t kind,
                           const char *site, cm_err_t *err)
{
    const char *k = kind == AN_AUTO_TREE ? "tree" : "mpi";
    sqlite3_stmt *c = NULL, *p = NULL, *o = NULL;
    an_auto_rec_t **g = NULL;
    int bad;

    if (a->n == 0)
        return CM_OK;
    bad = sqlite3_exec(db, schema_sql, NULL, NULL, NULL) != SQLITE_OK
          || sqlite3_prepare_v2(db, "INSERT INTO auto_choices VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
                                -1, &c, NULL) != SQLITE_OK
          || sqlite3_prepare_v2(db, "INSERT INTO auto_preds VALUES(?,?,?,?,?,?,?,?,?)", -1, &p,
                                NULL) != SQLITE_OK
          || sqlite3_prepare_v2(db, "INSERT INTO auto_ops VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
                                "?,?,NULL)", -1, &o, NULL) != SQLITE_OK
          || (g = malloc(a->n * sizeof(*g))) == NULL;
    for (size_t i = 0; !bad && i < a->n; i++) {
        g[i] = &a->r[i];
        bad = write_rec(c, p, k, g[i]);
    }
    if (!bad)
        qsort(g, a->n, sizeof(*g), cmp_rec);
    for (size_t i = 0, j; !bad && i < a->n; i = j) {
        for (j = i + 1; j < a->n && g[j]->instance == g[i]->instance && g[j]->op == g[i]->op;
             j++)
            if (g[j]->rank == g[j - 1]->rank) {
                int64_t inst = g[i]->instance, op = g[i]->op;
                int rank = (int)g[j]->rank;

                sqlite3_finalize(c), sqlite3_finalize(p), sqlite3_finalize(o), free(g);
                return CM_ERR(err, CM_ERR_INVALID, "%s %" PRId64 " operation %" PRId64
                              ": rank %d records two choices: the trace is damaged",
                              kind == AN_AUTO_TREE ? "instance" : "communicator", inst, op,
                              rank);
            }
        bad = write_op(o, k, site, g + i, j - i);
    }
    sqlite3_finalize(c);
    sqlite3_finalize(p);
    sqlite3_finalize(o);
    free(g);
    if (!bad)
        bad = sqlite3_exec(db, kind == AN_AUTO_TREE ? tree_fill_sql : mpi_fill_sql, NULL, NULL,
                           NULL) != SQLITE_OK
              || sqlite3_exec(db, summary_sql, NULL, NULL, NULL) != SQLITE_OK;
    return bad ? CM_ERR(err, CM_ERR_IO, "writing the auto_* tables: %s", sqlite3_errmsg(db))
               : CM_OK;
}

/* ---- the baseline -------------------------------------------------------- */

typedef struct bl_class {
    char    *site;
    int      size_class;
    int64_t  n;
    double   sum;
} bl_class_t;

static const char *const tree_base_sql =
    "SELECT w.name, o.bytes, o.avg_elapsed FROM algo_ops o JOIN wrappers w ON w.node = o.node"
    " WHERE o.avg_elapsed IS NOT NULL";
static const char *const mpi_base_sql =
    "SELECT s.label, o.bytes, o.avg_elapsed FROM mpi_ops o JOIN mpi_callsites s"
    " ON s.site = o.site WHERE o.complete AND o.collective = 'allreduce'"
    " AND o.avg_elapsed IS NOT NULL";

/* The baseline's operations, per site and size class. */
static int base_classes(sqlite3 *b, int mpi, bl_class_t **out, size_t *nout)
{
    sqlite3_stmt *st = NULL;
    bl_class_t *v = NULL;
    size_t n = 0, cap = 0;
    int bad = sqlite3_prepare_v2(b, mpi ? mpi_base_sql : tree_base_sql, -1, &st, NULL)
              != SQLITE_OK;

    while (!bad && sqlite3_step(st) == SQLITE_ROW) {
        const char *site = (const char *)sqlite3_column_text(st, 0);
        int sc = an__auto_size_class((uint64_t)sqlite3_column_int64(st, 1));
        size_t i;

        if (site == NULL)
            continue;
        for (i = 0; i < n && !(v[i].size_class == sc && strcmp(v[i].site, site) == 0); i++)
            ;
        if (i == n) {
            if (n == cap) {
                bl_class_t *q = realloc(v, (cap = cap ? 2 * cap : 16) * sizeof(*q));
                if (q == NULL) {
                    bad = 1;
                    break;
                }
                v = q;
            }
            v[n] = (bl_class_t){ strdup(site), sc, 0, 0.0 };
            if (v[n++].site == NULL)
                bad = 1;
        }
        v[i].n++;
        v[i].sum += sqlite3_column_double(st, 2);
    }
    sqlite3_finalize(st);
    *out = v;
    *nout = n;
    return bad;
}

static const char *const base_schema_sql =
    "DROP TABLE IF EXISTS auto_baseline;\n"
    "CREATE TABLE auto_baseline(site TEXT, size_class INTEGER, auto_ops INTEGER,"
    " auto_ns REAL, baseline_ops INTEGER, baseline_ns REAL, ratio REAL, baseline TEXT);\n";

cm_status_t an__auto_baseline(sqlite3 *db, const char *baseline, cm_err_t *err)
{
    sqlite3 *b = NULL;
    sqlite3_stmt *q = NULL, *ins = NULL;
    bl_class_t *v = NULL;
    size_t n = 0;
    int mpi = an_mpi_db_is_mpi(db), matched = 0, bad;
    cm_status_t st = CM_OK;

    if (sqlite3_open_v2(baseline, &b, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        st = CM_ERR_AT(err, CM_ERR_IO, baseline, 0, 0, "cannot open the baseline database: %s",
                       sqlite3_errmsg(b));
        sqlite3_close(b);
        return st;
    }
    if (sqlite3_exec(b, "SELECT 1 FROM sqlite_master", NULL, NULL, NULL) != SQLITE_OK
        || an_mpi_db_is_mpi(b) != mpi
        || sqlite3_exec(b, mpi ? "SELECT 1 FROM mpi_ops LIMIT 1"
                               : "SELECT 1 FROM algo_ops LIMIT 1", NULL, NULL, NULL)
               != SQLITE_OK) {
        sqlite3_close(b);
        return CM_ERR_AT(err, CM_ERR_INVALID, baseline, 0, 0, "--baseline: not a papanalyze "
                         "database of %s (the trace being analysed is one)",
                         mpi ? "an application trace" : "a tree trace with an algorithm node");
    }
    bad = base_classes(b, mpi, &v, &n);
    sqlite3_close(b);
    if (!bad)
        bad = sqlite3_exec(db, base_schema_sql, NULL, NULL, NULL) != SQLITE_OK
              || sqlite3_prepare_v2(db, "SELECT site, size_class, COUNT(*), AVG(measured_ns)"
                                    " FROM auto_ops WHERE measured_ns IS NOT NULL"
                                    " GROUP BY site, size_class ORDER BY site, size_class",
                                    -1, &q, NULL) != SQLITE_OK
              || sqlite3_prepare_v2(db, "INSERT INTO auto_baseline VALUES(?,?,?,?,?,?,?,?)",
                                    -1, &ins, NULL) != SQLITE_OK;
    while (!bad && sqlite3_step(q) == SQLITE_ROW) {
        const char *site = (const char *)sqlite3_column_text(q, 0);
        int sc = sqlite3_column_int(q, 1);
        double auto_ns = sqlite3_column_double(q, 3);

        for (size_t i = 0; site != NULL && i < n; i++) {
            double base_ns;

            if (v[i].size_class != sc || strcmp(v[i].site, site) != 0)
                continue;
            base_ns = v[i].sum / (double)v[i].n;
            sqlite3_bind_text(ins, 1, site, -1, SQLITE_TRANSIENT);
            sqlite3_bind_int(ins, 2, sc);
            sqlite3_bind_int64(ins, 3, sqlite3_column_int64(q, 2));
            sqlite3_bind_double(ins, 4, auto_ns);
            sqlite3_bind_int64(ins, 5, v[i].n);
            sqlite3_bind_double(ins, 6, base_ns);
            if (base_ns > 0)
                sqlite3_bind_double(ins, 7, auto_ns / base_ns);
            sqlite3_bind_text(ins, 8, baseline, -1, SQLITE_STATIC);
            bad = step(ins);
            matched++;
        }
    }
    sqlite3_finalize(q);
    sqlite3_finalize(ins);
    for (size_t i = 0; i < n; i++)
        free(v[i].site);
    free(v);
    if (bad)
        return CM_ERR(err, CM_ERR_IO, "writing auto_baseline: %s", sqlite3_errmsg(db));
    if (matched == 0)
        return CM_ERR_AT(err, CM_ERR_INVALID, baseline, 0, 0, "--baseline: no %s and size "
                         "class in common with the trace's auto operations (was it the same "
                         "program?)", mpi ? "call site" : "algorithm node");
    return st;
}
