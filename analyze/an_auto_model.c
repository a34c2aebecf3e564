/*
 * an_auto_model.c - auto's choices as papviz's model (an_model.h,
 * an_model_choices_t): every row of auto_ops, in either kind of database,
 * by site and then in trace order.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "analyze/an_int.h"
#include "analyze/api/an_model.h"

/* The index of s in v[0..*n), appended if missing; -1 when out of memory. */
static int intern(char ***v, int *n, const char *s)
{
    char **p;

    for (int i = 0; i < *n; i++)
        if (strcmp((*v)[i], s) == 0)
            return i;
    if ((p = realloc(*v, (size_t)(*n + 1) * sizeof(*p))) == NULL)
        return -1;
    *v = p;
    if ((p[*n] = strdup(s)) == NULL)
        return -1;
    return (*n)++;
}

static double real_or_nan(sqlite3_stmt *st, int c)
{
    return sqlite3_column_type(st, c) == SQLITE_NULL ? NAN : sqlite3_column_double(st, c);
}

static cm_status_t load(sqlite3 *db, const char *path, an_model_choices_t *m, cm_err_t *err)
{
    sqlite3_stmt *st = NULL;
    int64_t cap = 0;

    if (sqlite3_prepare_v2(db, "SELECT kind, COALESCE(site, '?'), chosen, instance, op, bytes,"
                           " spread_ns, measured_ns, regret, agreed FROM auto_ops"
                           " ORDER BY site, instance, op", -1, &st, NULL) != SQLITE_OK)
        return CM_ERR_AT(err, CM_ERR_INVALID, path, 0, 0, "no choice of auto in the database "
                         "(its trace ran no auto node or rule)");
    while (sqlite3_step(st) == SQLITE_ROW) {
        an_model_choice_op_t *o;
        int site, cand;

        if (m->nops == cap) {
            an_model_choice_op_t *p = realloc(m->ops, (size_t)(cap = cap ? 2 * cap : 64)
                                                          * sizeof(*p));
            if (p == NULL)
                goto nomem;
            m->ops = p;
        }
        if (m->kind == NULL && (m->kind = strdup((const char *)sqlite3_column_text(st, 0)))
                                   == NULL)
            goto nomem;
        site = intern(&m->sites, &m->nsites, (const char *)sqlite3_column_text(st, 1));
        cand = intern(&m->names, &m->nnames, (const char *)sqlite3_column_text(st, 2));
        if (site < 0 || cand < 0)
            goto nomem;
        o = &m->ops[m->nops++];
        *o = (an_model_choice_op_t){ site, cand, sqlite3_column_int64(st, 3),
                                     sqlite3_column_int64(st, 4), sqlite3_column_int64(st, 5),
                                     sqlite3_column_double(st, 6), real_or_nan(st, 7),
                                     real_or_nan(st, 8), sqlite3_column_int(st, 9) };
    }
    sqlite3_finalize(st);
    if (m->nops == 0)
        return CM_ERR_AT(err, CM_ERR_INVALID, path, 0, 0, "no choice of auto in the database");
    if ((m->counts = calloc((size_t)m->nnames, sizeof(*m->counts))) == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; i < m->nops; i++)
        m->counts[m->ops[i].cand]++;
    return CM_OK;
nomem:
    sqlite3_finalize(st);
    return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
}

cm_status_t an_model_choices_open(const char *path, an_model_choices_t **m_p, cm_err_t *err)
{
    an_model_choices_t *m;
    sqlite3 *db = NULL;
    cm_status_t st;

    *m_p = NULL;
    if ((st = an_db_open_read(path, &db, err)) != CM_OK)
        return st;
    if ((m = calloc(1, sizeof(*m))) == NULL || (m->db = strdup(path)) == NULL) {
        free(m);
        sqlite3_close(db);
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    }
    st = load(db, path, m, err);
    sqlite3_close(db);
    if (st != CM_OK) {
        an_model_choices_close(m);
        return st;
    }
    *m_p = m;
    return CM_OK;
}

void an_model_choices_close(an_model_choices_t *m)
{
    if (m == NULL)
        return;
    for (int i = 0; i < m->nsites; i++)
        free(m->sites[i]);
    for (int i = 0; i < m->nnames; i++)
        free(m->names[i]);
    free(m->sites);
    free(m->names);
    free(m->counts);
    free(m->ops);
    free(m->kind);
    free(m->db);
    free(m);
}
