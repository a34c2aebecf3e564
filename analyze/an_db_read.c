/*
 * an_db_read.c - opening an analysis database to read it back: the report
 * (an_report.c) and papviz's model (an_model.c) open it here, so that they
 * accept and refuse the same files with the same messages.
 *
 * Refused (CM_ERR_IO, one message naming the path): a file that is not a
 * regular file (before SQLite opens it), one SQLite cannot open, one another
 * process holds locked (SQLITE_BUSY after AN_DB_BUSY_MS), one that is not
 * a database papanalyze wrote (no meta 'papanalyze'), one of another
 * schema version, and one whose fan-ins or path lengths are not what its
 * contributors and paths hold (readers allocate by them).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sqlite3.h>

#include "analyze/an_int.h"
#include "analyze/api/an_analyze.h"

#define SCHEMA_VERSION "2"   /* = an_db_int.h's AN_DB_SCHEMA_VERSION */

static cm_status_t busy(const char *path, cm_err_t *err)
{
    return CM_ERR_AT(err, CM_ERR_IO, path, 0, 0, "is locked by another process (busy for "
                     "%d ms): try again when it is done", AN_DB_BUSY_MS);
}

/* meta's value of key into buf ("" if no row); SQLITE_ROW, SQLITE_DONE or an error. */
static int meta_value(sqlite3 *db, const char *key, char *buf, size_t n)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL);

    buf[0] = '\0';
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW && sqlite3_column_text(st, 0) != NULL)
            snprintf(buf, n, "%s", (const char *)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    return rc;
}

int an_db_is_busy(int rc)
{
    return (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED;
}

/* Whether a schema_version value is a number above this reader's. */
static bool newer_version(const char *version)
{
    char *end = NULL;
    long n = version[0] >= '1' && version[0] <= '9' ? strtol(version, &end, 10) : 0;

    return end != NULL && *end == '\0' && n > strtol(SCHEMA_VERSION, NULL, 10);
}

cm_status_t an_db_check_ours(sqlite3 *db, const char *path, cm_err_t *err)
{
    char who[16], version[64];
    int rc = meta_value(db, "papanalyze", who, sizeof(who));

    if (an_db_is_busy(rc) || an_db_is_busy(sqlite3_extended_errcode(db)))
        return busy(path, err);
    if (rc != SQLITE_ROW)
        return CM_ERR_AT(err, CM_ERR_IO, path, 0, 0,
                         "not a papanalyze database (no meta 'papanalyze')");
    rc = meta_value(db, "schema_version", version, sizeof(version));
    if (an_db_is_busy(rc))
        return busy(path, err);
    if (rc == SQLITE_ROW && newer_version(version))
        return CM_ERR_AT(err, CM_ERR_IO, path, 0, 0, "database schema version %s: made by a "
                         "newer paptree; papanalyze and papviz read up to " SCHEMA_VERSION,
                         version);
    if (rc != SQLITE_ROW || strcmp(version, SCHEMA_VERSION) != 0)
        return CM_ERR_AT(err, CM_ERR_IO, path, 0, 0, "database schema version %s, papanalyze "
                         "and papviz read version " SCHEMA_VERSION ": run papanalyze on the "
                         "trace again", rc == SQLITE_ROW ? version : "(none)");
    return CM_OK;
}

/* Sizes that readers allocate by (a gred's fan-in squared for its order
 * matrix, a thread's path length) must be what the rows hold: a damaged
 * value is refused, never allocated. */
static cm_status_t check_sizes(sqlite3 *db, const char *path, cm_err_t *err)
{
    static const char *const sql[2] = {
        "SELECT name, fanin, (SELECT COUNT(*) FROM contributors c WHERE c.node = w.node)"
        " AS n FROM wrappers w WHERE fanin IS NOT n ORDER BY node LIMIT 1",
        "SELECT thread, nstages, (SELECT COUNT(*) FROM paths p WHERE p.thread = t.thread)"
        " AS n FROM threads t WHERE nstages IS NOT n ORDER BY thread LIMIT 1",
    };
    cm_status_t ret = CM_OK;

    for (int i = 0; i < 2 && ret == CM_OK; i++) {
        sqlite3_stmt *st = NULL;
        int rc = sqlite3_prepare_v2(db, sql[i], -1, &st, NULL);
        if (rc == SQLITE_OK)
            rc = sqlite3_step(st);
        if (an_db_is_busy(rc)) {
            ret = busy(path, err);
        } else if (rc == SQLITE_ROW) {
            const char *name = (const char *)sqlite3_column_text(st, 0);
            const char *v = (const char *)sqlite3_column_text(st, 1);
            ret = CM_ERR_AT(err, CM_ERR_INVALID, path, 0, 0, i == 0
                            ? "wrapper '%s': fan-in %s, but %lld contributors: the database "
                              "is damaged"
                            : "thread %s: %s wrappers on its path, but %lld steps in paths: "
                              "the database is damaged",
                            name ? name : "NULL", v ? v : "NULL",
                            (long long)sqlite3_column_int64(st, 2));
        } else if (rc != SQLITE_DONE) {
            ret = CM_ERR_AT(err, CM_ERR_INVALID, path, 0, 0, "the database is damaged: %s",
                            sqlite3_errmsg(db));
        }
        sqlite3_finalize(st);
    }
    return ret;
}

cm_status_t an_db_open_read(const char *path, sqlite3 **out, cm_err_t *err)
{
    sqlite3 *db = NULL;
    struct stat sb;
    cm_status_t st;

    *out = NULL;
    /* a FIFO or device is refused before SQLite opens it (it would block);
     * a missing file is SQLite's to report */
    if (stat(path, &sb) == 0 && (st = an_check_input(path, NULL, err)) != CM_OK)
        return st;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        st = CM_ERR_AT(err, CM_ERR_IO, path, 0, 0, "cannot open the database: %s",
                       sqlite3_errmsg(db));
        sqlite3_close(db);
        return st;
    }
    sqlite3_busy_timeout(db, AN_DB_BUSY_MS);
    if ((st = an_db_check_ours(db, path, err)) != CM_OK
        || (st = check_sizes(db, path, err)) != CM_OK) {
        sqlite3_close(db);
        return st;
    }
    *out = db;
    return CM_OK;
}
