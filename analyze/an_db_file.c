/*
 * an_db_file.c - the atomic replacement of the database file.
 *
 * The database is built in a temporary file beside the target (same
 * directory, so same file system), then synced and renamed over it: a reader
 * sees the old database or the new one, never a half-written one, and a
 * failure (or an interrupted run) leaves the old one intact.  A target that
 * exists and is not a papanalyze database is never replaced unless forced.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/an_db_int.h"

/* 1 if path is a database papanalyze wrote, 0 if not, -1 if another process
 * holds it locked (it is neither looked at nor replaced then). */
static int is_our_db(const char *path)
{
    sqlite3 *db = NULL;
    cm_err_t err;
    int ours = 0;

    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
        sqlite3_busy_timeout(db, AN_DB_BUSY_MS);
        ours = an_db_check_ours(db, path, &err) == CM_OK ? 1
             : strstr(err.msg, "locked by another process") != NULL ? -1
             : strstr(err.msg, "schema version") != NULL;   /* ours, of another version */
    }
    sqlite3_close(db);
    return ours;
}

cm_status_t an__db_file_create(an_db_t *db, int force, cm_err_t *err)
{
    const char *path = db->path;
    struct stat sb;
    cm_status_t st;

    if (stat(path, &sb) == 0) {
        if (S_ISDIR(sb.st_mode))
            return CM_ERR_AT(err, CM_ERR_INVALID, path, 0, 0, "is a directory");
        /* not even --force replaces a FIFO or device, nor opens it to look */
        if (!S_ISREG(sb.st_mode))
            return CM_ERR_AT(err, CM_ERR_INVALID, path, 0, 0, "is %s, not a regular file: "
                             "not replaced", an_file_kind(sb.st_mode));
        int ours = is_our_db(path);
        if (ours < 0)
            return CM_ERR_AT(err, CM_ERR_IO, path, 0, 0, "is locked by another process "
                             "(busy for %d ms): not replaced", AN_DB_BUSY_MS);
        if (!force && !ours)
            return CM_ERR_AT(err, CM_ERR_INVALID, path, 0, 0, "exists and is not a "
                             "papanalyze database; not replaced (--force replaces it)");
    }
    if (asprintf(&db->tmp, "%s.partial-XXXXXX", path) < 0) {
        db->tmp = NULL;
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    }
    if ((db->fd = mkstemp(db->tmp)) < 0) {
        st = CM_ERR_AT(err, CM_ERR_IO, path, 0, 0, "cannot create a file beside it: %s",
                       strerror(errno));
        free(db->tmp);
        db->tmp = NULL;
        return st;
    }
    /* mkstemp makes the file private; a database is as readable as any output */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(db->fd, 0666 & ~mask);
    return CM_OK;
}

static void fsync_dir(const char *path)
{
    char *copy = strdup(path);
    int fd;

    if (copy == NULL)
        return;
    if ((fd = open(dirname(copy), O_RDONLY | O_DIRECTORY)) >= 0) {
        fsync(fd);
        close(fd);
    }
    free(copy);
}

cm_status_t an__db_file_replace(an_db_t *db, cm_err_t *err)
{
    if (fsync(db->fd) != 0 || rename(db->tmp, db->path) != 0)
        return CM_ERR_AT(err, CM_ERR_IO, db->path, 0, 0, "cannot write the database: %s",
                         strerror(errno));
    fsync_dir(db->path);
    close(db->fd);
    db->fd = -1;
    free(db->tmp);
    db->tmp = NULL;
    return CM_OK;
}

void an__db_file_drop(an_db_t *db)
{
    if (db->fd >= 0)
        close(db->fd);
    db->fd = -1;
    if (db->tmp != NULL)
        unlink(db->tmp);
    free(db->tmp);
    db->tmp = NULL;
}
