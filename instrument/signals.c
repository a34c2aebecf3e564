/*
 * signals.c - removing this rank's part of a partial archive on SIGINT or
 * SIGTERM, so that an interrupted run leaves no half-written trace.
 *
 * Everything the handler needs (the file names, directories last, and the
 * two messages) is prepared when the trace opens, before any of those
 * files exists; the handler then only unlinks, writes and re-raises.
 * Once the archive is complete (renamed into place) the handler only says
 * so.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "instrument/ins_int.h"

#define SIG_FILES_PER_LOC 2     /* its .evt and .def files */

/* ---- planning -------------------------------------------------------------- */

cm_status_t ins__signals_plan(ins_trace_t *tr, cm_err_t *err)
{
    uint32_t nfiles = 0;

    tr->sig_files = calloc((size_t)tr->nloc * SIG_FILES_PER_LOC + 6, sizeof(char *));
    if (tr->sig_files == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < tr->nloc; i++) {
        tr->sig_files[nfiles++] = ins__fs_fmt("%s/%s/%" PRIu64 ".evt", tr->partial,
                                              INS_ARCHIVE_NAME, ins__loc_id(tr->rank, i));
        tr->sig_files[nfiles++] = ins__fs_fmt("%s/%s/%" PRIu64 ".def", tr->partial,
                                              INS_ARCHIVE_NAME, ins__loc_id(tr->rank, i));
    }
    if (tr->rank == 0) {
        tr->sig_files[nfiles++] = ins__fs_fmt("%s/%s", tr->partial, INS_ANCHOR_FILE);
        tr->sig_files[nfiles++] = ins__fs_fmt("%s/%s.def", tr->partial, INS_ARCHIVE_NAME);
        tr->sig_files[nfiles++] = ins__fs_fmt("%s/%s", tr->partial, INS_PATHMAP_FILE);
    }
    tr->sig_files[nfiles++] = ins__fs_fmt("%s/%s", tr->partial, INS_ARCHIVE_NAME);
    tr->sig_files[nfiles++] = ins__fs_fmt("%s", tr->partial);
    tr->sig_msg = ins__fs_fmt("paptree: rank %d: interrupted: trace '%s' not written; its "
                              "partial files were removed\n", tr->rank, tr->dir);
    tr->sig_done_msg = ins__fs_fmt("paptree: rank %d: interrupted after trace '%s' was "
                                   "complete; it is valid\n", tr->rank, tr->dir);
    for (uint32_t i = 0; i < nfiles; i++) {
        if (tr->sig_files[i] == NULL)
            return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    }
    if (tr->sig_msg == NULL || tr->sig_done_msg == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    return CM_OK;
}

/* ---- interrupts ----------------------------------------------------------
 * The handler may only make async-signal-safe calls: unlink, rmdir, write,
 * signal, raise.  Everything it needs was prepared when the trace opened. */

static char            **sig_files;
static const char       *sig_msg, *sig_done_msg;
static volatile sig_atomic_t sig_done;
static struct sigaction  sig_old_int, sig_old_term;

void ins__signals_unlink(char *const *files, size_t n)
{
    for (size_t i = 0; files != NULL && i < n && files[i] != NULL; i++) {
        if (unlink(files[i]) != 0)
            (void)rmdir(files[i]);
    }
}

static void on_signal(int signo)
{
    const char *m = sig_done ? sig_done_msg : sig_msg;

    if (!sig_done)
        ins__signals_unlink(sig_files, SIZE_MAX);
    if (m != NULL)
        (void)!write(STDERR_FILENO, m, strlen(m));
    signal(signo, SIG_DFL);
    raise(signo);
}

void ins__signals_arm(char **files, const char *msg, const char *done_msg)
{
    struct sigaction sa;

    sig_files = files;
    sig_msg = msg;
    sig_done_msg = done_msg;
    sig_done = 0;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaction(SIGINT, &sa, &sig_old_int);
    sigaction(SIGTERM, &sa, &sig_old_term);
}

void ins__signals_done(void)
{
    sig_done = 1;
}

void ins__signals_disarm(void)
{
    sigaction(SIGINT, &sig_old_int, NULL);
    sigaction(SIGTERM, &sig_old_term, NULL);
    sig_files = NULL;
}
