/*
 * an_mpi_model.c - an application trace's database as papviz's model
 * (an_model.h, an_model_mpi_t): per call site, in the report's order, the
 * mean, min and max arrival of each rank over the site's complete
 * operations.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "analyze/an_int.h"
#include "analyze/an_mpi_int.h"
#include "analyze/api/an_model.h"

static char *dup_col(sqlite3_stmt *st, int c)
{
    const unsigned char *s = sqlite3_column_text(st, c);
    return strdup(s != NULL ? (const char *)s : "");
}

static double real_or_nan(sqlite3_stmt *st, int c)
{
    return sqlite3_column_type(st, c) == SQLITE_NULL ? NAN : sqlite3_column_double(st, c);
}

static cm_status_t fail_db(sqlite3 *db, const char *path, cm_err_t *err)
{
    return CM_ERR_AT(err, CM_ERR_INVALID, path, 0, 0, "the database is damaged: %s",
                     sqlite3_errmsg(db));
}

static cm_status_t load_sites(sqlite3 *db, const char *path, an_model_mpi_t *m, cm_err_t *err)
{
    sqlite3_stmt *st = NULL;
    int cap = 0;

    if (sqlite3_prepare_v2(db, "SELECT site, label, name, collectives, algorithms, calls, ops,"
                           " mean_time, spread, worst_factor, wait_pct,"
                           " COALESCE(last_rank, -1) FROM mpi_sites"
                           " ORDER BY COALESCE(wait, 0) DESC, site", -1, &st, NULL) != SQLITE_OK)
        return fail_db(db, path, err);
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (m->nsites == cap) {
            cap = cap ? 2 * cap : 8;
            an_model_mpi_site_t *p = realloc(m->sites, (size_t)cap * sizeof(*p));
            if (p == NULL) {
                sqlite3_finalize(st);
                return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
            }
            m->sites = p;
        }
        an_model_mpi_site_t *s = &m->sites[m->nsites++];
        memset(s, 0, sizeof(*s));
        s->nranks = sqlite3_column_int(st, 0);      /* the site's id, until load_ranks */
        s->label = dup_col(st, 1);
        s->name = dup_col(st, 2);
        s->collectives = dup_col(st, 3);
        s->algorithms = dup_col(st, 4);
        s->calls = sqlite3_column_int64(st, 5);
        s->ops = sqlite3_column_int64(st, 6);
        s->mean_time = real_or_nan(st, 7);
        s->spread = real_or_nan(st, 8);
        s->worst_factor = real_or_nan(st, 9);
        s->wait_pct = real_or_nan(st, 10);
        s->last_rank = sqlite3_column_int(st, 11);
        if (s->label == NULL || s->name == NULL || s->collectives == NULL
            || s->algorithms == NULL) {
            sqlite3_finalize(st);
            return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
        }
    }
    sqlite3_finalize(st);
    return CM_OK;
}

/* The ranks of each site (s->nranks holds the site's id on entry). */
static cm_status_t load_ranks(sqlite3 *db, const char *path, an_model_mpi_t *m, cm_err_t *err)
{
    sqlite3_stmt *st = NULL;

    if (sqlite3_prepare_v2(db, "SELECT rank, COUNT(a), AVG(a), MIN(a), MAX(a) FROM mpi_calls"
                           " WHERE site = ? AND a IS NOT NULL GROUP BY rank ORDER BY rank", -1,
                           &st, NULL) != SQLITE_OK)
        return fail_db(db, path, err);
    for (int i = 0; i < m->nsites; i++) {
        an_model_mpi_site_t *s = &m->sites[i];
        int id = s->nranks, cap = 0;
        s->nranks = 0;
        sqlite3_bind_int(st, 1, id);
        while (sqlite3_step(st) == SQLITE_ROW) {
            if (s->nranks == cap) {
                cap = cap ? 2 * cap : 8;
                an_model_mpi_rank_t *p = realloc(s->ranks, (size_t)cap * sizeof(*p));
                if (p == NULL) {
                    sqlite3_finalize(st);
                    return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
                }
                s->ranks = p;
            }
            s->ranks[s->nranks++] = (an_model_mpi_rank_t){
                sqlite3_column_int(st, 0), sqlite3_column_int64(st, 1),
                sqlite3_column_double(st, 2), sqlite3_column_double(st, 3),
                sqlite3_column_double(st, 4),
            };
        }
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return CM_OK;
}

/* Each site's auto choices, from auto_summary when the trace had any. */
static cm_status_t load_choices(sqlite3 *db, an_model_mpi_t *m, cm_err_t *err)
{
    sqlite3_stmt *st = NULL;

    if (sqlite3_prepare_v2(db, "SELECT chosen, share_pct FROM auto_summary WHERE site = ?"
                           " ORDER BY n DESC, chosen", -1, &st, NULL) != SQLITE_OK)
        return CM_OK;                    /* no choice in the trace */
    for (int i = 0; i < m->nsites; i++) {
        char buf[512];
        size_t len = 0;

        buf[0] = '\0';
        sqlite3_bind_text(st, 1, m->sites[i].label, -1, SQLITE_STATIC);
        while (sqlite3_step(st) == SQLITE_ROW && len < sizeof(buf))
            len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s %.0f%%",
                                    len ? ", " : "", (const char *)sqlite3_column_text(st, 0),
                                    sqlite3_column_double(st, 1));
        sqlite3_reset(st);
        if (len > 0 && (m->sites[i].choices = strdup(buf)) == NULL) {
            sqlite3_finalize(st);
            return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
        }
    }
    sqlite3_finalize(st);
    return CM_OK;
}

static char *meta_dup(sqlite3 *db, const char *key)
{
    sqlite3_stmt *st = NULL;
    char *v = NULL;

    if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL)
        == SQLITE_OK) {
        sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW)
            v = dup_col(st, 0);
    }
    sqlite3_finalize(st);
    return v != NULL ? v : strdup("");
}

cm_status_t an_model_mpi_open(const char *path, an_model_mpi_t **m_p, cm_err_t *err)
{
    an_model_mpi_t *m;
    sqlite3 *db = NULL;
    cm_status_t st;
    char *ranks;

    *m_p = NULL;
    if ((st = an_db_open_read(path, &db, err)) != CM_OK)
        return st;
    if (!an_mpi_db_is_mpi(db)) {
        sqlite3_close(db);
        return CM_ERR_AT(err, CM_ERR_INVALID, path, 0, 0, "not an application trace's "
                         "database (papanalyze of a trace written under paprun)");
    }
    if ((m = calloc(1, sizeof(*m))) == NULL) {
        sqlite3_close(db);
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    }
    m->db = strdup(path);
    m->command = meta_dup(db, "command");
    ranks = meta_dup(db, "ranks");
    m->nranks = ranks != NULL ? atoi(ranks) : 0;
    free(ranks);
    if (m->db == NULL || m->command == NULL)
        st = CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    else if ((st = load_sites(db, path, m, err)) == CM_OK
             && (st = load_ranks(db, path, m, err)) == CM_OK)
        st = load_choices(db, m, err);
    sqlite3_close(db);
    if (st != CM_OK) {
        an_model_mpi_close(m);
        return st;
    }
    *m_p = m;
    return CM_OK;
}

void an_model_mpi_close(an_model_mpi_t *m)
{
    if (m == NULL)
        return;
    for (int i = 0; i < m->nsites; i++) {
        an_model_mpi_site_t *s = &m->sites[i];
        free(s->label), free(s->name), free(s->collectives), free(s->algorithms), free(s->ranks);
        free(s->choices);
    }
    free(m->sites);
    free(m->db);
    free(m->command);
    free(m);
}
