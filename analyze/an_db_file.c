/*
 * an_db_file.c - the atomic replacement of the database file.
 *
 * The database is built in a temporary file beside the target (same
 * directory, so same file system), then synced and renamed over it: a reader
 * sees the old database or the new one, never a half-written one, and a
 * failure (or an interrupted run) leaves the old one intact.  A target that
 * exists and is not a papanalyze database is never replaced unless forced.
 * SIGINT, SIGTERM and SIGHUP while the temporary file exists remove it
 * (one line on stderr says so) and then end the process as they would have.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <signal.h>
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

/* ---------------------------------------------------- interrupted runs */

/* SIGINT, SIGTERM or SIGHUP while the temporary file exists: the handler
 * removes it, says so in one line and re-raises the signal with its default
 * action.  Async-signal-safe: the path and the message are prepared in
 * static buffers before the handlers are installed; the handler only calls
 * unlink, write, signal and raise.  A signal ignored when the file is
 * created (nohup) stays ignored.  One temporary file at a time. */
static const int sig_nums[] = { SIGINT, SIGTERM, SIGHUP };
#define NSIG_CAUGHT ((int)(sizeof(sig_nums) / sizeof(sig_nums[0])))
static struct sigaction sig_old[NSIG_CAUGHT];
static int sig_installed[NSIG_CAUGHT];
static char sig_path[4096];
static char sig_msg[NSIG_CAUGHT][4096 + 128];   /* the line to print, per signal */
static size_t sig_msg_len[NSIG_CAUGHT];
static volatile sig_atomic_t sig_armed;

static void on_signal(int sig)
{
    int saved = errno;

    if (sig_armed) {
        sig_armed = 0;
        if (unlink(sig_path) == 0)
            for (int i = 0; i < NSIG_CAUGHT; i++)
                if (sig_nums[i] == sig && write(STDERR_FILENO, sig_msg[i], sig_msg_len[i]) < 0)
                    break;                /* nothing more to do in a handler */
    }
    signal(sig, SIG_DFL);                 /* then the signal acts as it would have */
    errno = saved;
    raise(sig);
}

/* Blocks (how = SIG_BLOCK) or unblocks the caught signals in this thread. */
static void sig_mask(int how)
{
    sigset_t set;

    sigemptyset(&set);
    for (int i = 0; i < NSIG_CAUGHT; i++)
        sigaddset(&set, sig_nums[i]);
    pthread_sigmask(how, &set, NULL);
}

static void sig_arm(const char *tmp)
{
    static const char *const names[NSIG_CAUGHT] = { "SIGINT", "SIGTERM", "SIGHUP" };
    struct sigaction sa;
    int n;

    if (strlen(tmp) >= sizeof(sig_path))
        return;                           /* a path too long to clean up: no handler */
    for (int i = 0; i < NSIG_CAUGHT; i++) {
        n = snprintf(sig_msg[i], sizeof(sig_msg[i]), "papanalyze: interrupted (%s): removed "
                     "the unfinished database %s\n", names[i], tmp);
        sig_msg_len[i] = n > 0 && (size_t)n < sizeof(sig_msg[i]) ? (size_t)n : 0;
    }
    memcpy(sig_path, tmp, strlen(tmp) + 1);
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < NSIG_CAUGHT; i++)
        sigaddset(&sa.sa_mask, sig_nums[i]);
    sig_armed = 1;
    for (int i = 0; i < NSIG_CAUGHT; i++) {
        sig_installed[i] = 0;
        if (sigaction(sig_nums[i], NULL, &sig_old[i]) != 0 || sig_old[i].sa_handler == SIG_IGN)
            continue;
        sig_installed[i] = sigaction(sig_nums[i], &sa, NULL) == 0;
    }
}

/* The temporary file is gone or renamed: the previous handlers again. */
static void sig_disarm(void)
{
    sig_armed = 0;
    for (int i = 0; i < NSIG_CAUGHT; i++)
        if (sig_installed[i]) {
            sigaction(sig_nums[i], &sig_old[i], NULL);
            sig_installed[i] = 0;
        }
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
    sig_arm(db->tmp);
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
    int rc;

    if (fsync(db->fd) != 0)
        return CM_ERR_AT(err, CM_ERR_IO, db->path, 0, 0, "cannot write the database: %s",
                         strerror(errno));
    /* a signal now is held until the rename is done and the handlers are
     * restored: then it acts as it would have, on a complete database */
    sig_mask(SIG_BLOCK);
    rc = rename(db->tmp, db->path);
    if (rc == 0)
        sig_disarm();
    sig_mask(SIG_UNBLOCK);
    if (rc != 0)
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
    if (db->tmp != NULL) {
        sig_mask(SIG_BLOCK);
        unlink(db->tmp);
        sig_disarm();
        sig_mask(SIG_UNBLOCK);
    }
    free(db->tmp);
    db->tmp = NULL;
}
