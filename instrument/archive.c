/*
 * archive.c - the OTF2 archive: opening it, its callbacks, writing events.
 *
 * OTF2's buffers are bounded: its memory callbacks grant each event writer
 * INS_EVT_CHUNKS chunks, after which OTF2 writes them to disk.  OTF2's
 * errors reach us two ways, as return codes and through its error
 * callback; both are turned into one cm_err_t message here.  The call
 * sequence (collective steps, and the order of event files, local and
 * global definitions) is driven by trace.c.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <otf2/OTF2_MPI_Collectives.h>   /* after mpi.h (ins_trace.h) */
#include <otf2/OTF2_Pthread_Locks.h>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif
#include "instrument/ins_int.h"

/* ---- OTF2 callbacks (static: OTF2 keeps the pointers) -------------------- */

static OTF2_FlushType on_pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc,
                                   void *caller, bool final)
{
    (void)ud, (void)ft, (void)loc, (void)caller, (void)final;
    return OTF2_FLUSH;
}

static const OTF2_FlushCallbacks flush_callbacks = { on_pre_flush, NULL };

/*
 * The chunks of one OTF2 buffer, at most `max`.  They are kept and reused
 * until the buffer is deleted (final): 256 KiB chunks are separate
 * mappings in glibc, so freeing them at every flush would cost an munmap
 * and an mmap each time.
 */
typedef struct chunk_list {
    uint32_t in_use, allocated, max;
    void    *chunk[INS_DEF_CHUNKS];
} chunk_list_t;

/* Called by whichever thread writes that buffer; per-buffer state only. */
static void *on_alloc(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void **per_buffer,
                      uint64_t size)
{
    chunk_list_t *c = *per_buffer;

    (void)ud, (void)loc;
    if (c == NULL) {
        if ((c = calloc(1, sizeof(*c))) == NULL)
            return NULL;
        c->max = ft == OTF2_FILETYPE_EVENTS ? INS_EVT_CHUNKS : INS_DEF_CHUNKS;
        *per_buffer = c;
    }
    if (c->in_use == c->max)
        return NULL;                     /* OTF2 flushes, frees, asks again */
    if (c->in_use == c->allocated) {
        if ((c->chunk[c->allocated] = malloc(size)) == NULL)
            return NULL;
        c->allocated++;
    }
    return c->chunk[c->in_use++];
}

static void on_free_all(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void **per_buffer,
                        bool final)
{
    chunk_list_t *c = *per_buffer;

    (void)ud, (void)ft, (void)loc;
    if (c == NULL)
        return;
    c->in_use = 0;
    if (final) {
        for (uint32_t i = 0; i < c->allocated; i++)
            free(c->chunk[i]);
        free(c);
        *per_buffer = NULL;
    }
}

static const OTF2_MemoryCallbacks memory_callbacks = { on_alloc, on_free_all };

/*
 * OTF2's own messages: keep the first per process, for our error report,
 * and count them: some failures (a write to a full disk while OTF2 empties
 * a buffer) reach the callback but not a return code, and an error there
 * must fail the trace rather than lose events silently.
 */
static pthread_mutex_t otf2_msg_lock = PTHREAD_MUTEX_INITIALIZER;
static char            otf2_msg[INS_ERR_LEN];
static unsigned        otf2_nerrors;

static OTF2_ErrorCode on_otf2_error(void *ud, const char *file, uint64_t line,
                                    const char *function, OTF2_ErrorCode code,
                                    const char *fmt, va_list va)
{
    (void)ud, (void)file, (void)line, (void)function;
    pthread_mutex_lock(&otf2_msg_lock);
    otf2_nerrors++;
    if (otf2_msg[0] == '\0') {
        int n = snprintf(otf2_msg, sizeof(otf2_msg), "%s: ", OTF2_Error_GetDescription(code));
        if (n > 0 && (size_t)n < sizeof(otf2_msg))
            vsnprintf(otf2_msg + n, sizeof(otf2_msg) - (size_t)n, fmt, va);
    }
    pthread_mutex_unlock(&otf2_msg_lock);
    return code;
}

static void otf2_msg_take(char *out, size_t len, const char *fallback)
{
    pthread_mutex_lock(&otf2_msg_lock);
    snprintf(out, len, "%s", otf2_msg[0] != '\0' ? otf2_msg : fallback);
    otf2_msg[0] = '\0';
    pthread_mutex_unlock(&otf2_msg_lock);
}

void ins__archive_register_errors(void)
{
    OTF2_Error_RegisterCallback(on_otf2_error, NULL);
}

static cm_status_t otf2_check(OTF2_ErrorCode rc, const char *what, cm_err_t *err)
{
    char msg[INS_ERR_LEN];

    if (rc == OTF2_SUCCESS)
        return CM_OK;
    otf2_msg_take(msg, sizeof(msg), OTF2_Error_GetDescription(rc));
    return CM_ERR(err, CM_ERR_IO, "%s failed: %s", what, msg);
}

cm_status_t ins__archive_check(const char *dir, OTF2_ErrorCode rc, const char *what,
                               cm_status_t st, cm_err_t *err)
{
    char msg[INS_ERR_LEN];
    unsigned reported;

    pthread_mutex_lock(&otf2_msg_lock);
    reported = otf2_nerrors;
    otf2_nerrors = 0;
    pthread_mutex_unlock(&otf2_msg_lock);
    if (st != CM_OK || (rc == OTF2_SUCCESS && reported == 0))
        return st;
    otf2_msg_take(msg, sizeof(msg), OTF2_Error_GetDescription(rc));
    return CM_ERR(err, CM_ERR_IO, "writing trace '%s' failed (%s): %s", dir, what, msg);
}

/* ---- opening ------------------------------------------------------------- */

/* Whether the pathmap text goes to INS_PATHMAP_FILE (ins_schema.h). */
static bool pathmap_in_file(const ins_trace_t *tr)
{
    return tr->pm->len > INS_PATHMAP_PROP_MAX;
}

cm_status_t ins__archive_set_props(OTF2_Archive *ar, const ins_prop_t *props, size_t n,
                                   cm_err_t *err)
{
    cm_status_t st = CM_OK;

    /* OTF2 3.0.2 takes an empty value as "remove the property", which fails
       for one never set: an empty property is not written (absent = empty). */
    for (size_t i = 0; st == CM_OK && i < n; i++)
        if (props[i].value[0] != '\0')
            st = otf2_check(OTF2_Archive_SetProperty(ar, props[i].name, props[i].value,
                                                     false),
                            "OTF2_Archive_SetProperty", err);
    return st;
}

static cm_status_t archive_set_properties(ins_trace_t *tr, cm_err_t *err)
{
    bool in_file = pathmap_in_file(tr);
    char hash[17], num[32], hosts[32];
    const ins_prop_t props[] = {
        { INS_PROP_VERSION, INS_SCHEMA_VERSION },
        { in_file ? INS_PROP_PATHMAP_FILE : INS_PROP_PATHMAP,
          in_file ? INS_PATHMAP_FILE : tr->pm->text },
        { INS_PROP_PATHMAP_PATH, tr->pm->path },
        { INS_PROP_PATHMAP_HASH, hash },
        { INS_PROP_TREE, tr->tree->name },
        { INS_PROP_INSTANCES, num },
        { INS_PROP_HOSTS, hosts },
        { INS_PROP_CLOCK, ins__clock_tsc ? INS_CLOCK_TSC : INS_CLOCK_MONO_RAW },
        { INS_PROP_COMMAND, tr->command },
    };

    snprintf(hash, sizeof(hash), "%016" PRIx64, tr->pm->hash);
    snprintf(num, sizeof(num), "%u", tr->ninst);
    snprintf(hosts, sizeof(hosts), "%u", tr->pm->nhosts);
    return ins__archive_set_props(tr->ar, props, sizeof(props) / sizeof(props[0]), err);
}

cm_status_t ins__archive_create(const char *partial, MPI_Comm comm, OTF2_Archive **ar_p,
                                cm_err_t *err)
{
    OTF2_Archive *ar = OTF2_Archive_Open(partial, INS_ARCHIVE_NAME, OTF2_FILEMODE_WRITE,
                                         INS_EVT_CHUNK, INS_DEF_CHUNK, OTF2_SUBSTRATE_POSIX,
                                         OTF2_COMPRESSION_NONE);
    cm_status_t st;

    *ar_p = ar;
    if (ar == NULL)
        return otf2_check(OTF2_ERROR_FILE_INTERACTION, "OTF2_Archive_Open", err);
    if ((st = otf2_check(OTF2_Archive_SetFlushCallbacks(ar, &flush_callbacks, NULL),
                         "OTF2_Archive_SetFlushCallbacks", err)) != CM_OK ||
        (st = otf2_check(OTF2_Archive_SetMemoryCallbacks(ar, &memory_callbacks, NULL),
                         "OTF2_Archive_SetMemoryCallbacks", err)) != CM_OK ||
        (st = otf2_check(OTF2_MPI_Archive_SetCollectiveCallbacks(ar, comm, MPI_COMM_NULL),
                         "OTF2_MPI_Archive_SetCollectiveCallbacks", err)) != CM_OK ||
        (st = otf2_check(OTF2_Pthread_Archive_SetLockingCallbacks(ar, NULL),
                         "OTF2_Pthread_Archive_SetLockingCallbacks", err)) != CM_OK ||
        (st = otf2_check(OTF2_Archive_SetCreator(ar, "paptree"),
                         "OTF2_Archive_SetCreator", err)) != CM_OK)
        return st;
    return CM_OK;
}

cm_status_t ins__archive_open(ins_trace_t *tr, cm_err_t *err)
{
    cm_status_t st = ins__archive_create(tr->partial, tr->comm, &tr->ar, err);

    return st == CM_OK ? archive_set_properties(tr, err) : st;
}

cm_status_t ins__archive_write_pathmap(ins_trace_t *tr, cm_err_t *err)
{
    char msg[INS_ERR_LEN], *path;
    int rc;

    if (tr->rank != 0 || !pathmap_in_file(tr))
        return CM_OK;
    if ((path = ins__fs_fmt("%s/%s", tr->partial, INS_PATHMAP_FILE)) == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    rc = ins__fs_write(path, tr->pm->text, tr->pm->len, msg, sizeof(msg));
    free(path);
    return rc == 0 ? CM_OK
                   : CM_ERR(err, CM_ERR_IO, "writing trace '%s' failed: %s", tr->dir, msg);
}

cm_status_t ins__archive_open_evt_files(OTF2_Archive *ar, cm_err_t *err)
{
    return otf2_check(OTF2_Archive_OpenEvtFiles(ar), "OTF2_Archive_OpenEvtFiles", err);
}

cm_status_t ins__archive_open_events(ins_trace_t *tr, cm_err_t *err)
{
    cm_status_t st = ins__archive_open_evt_files(tr->ar, err);

    for (uint32_t i = 0; st == CM_OK && i < tr->nloc; i++) {
        tr->locs[i].ew = OTF2_Archive_GetEvtWriter(tr->ar, tr->locs[i].id);
        if (tr->locs[i].ew == NULL)
            st = otf2_check(OTF2_ERROR_MEM_ALLOC_FAILED, "OTF2_Archive_GetEvtWriter", err);
    }
    return st;
}

/* ---- events at close ------------------------------------------------------ */

OTF2_ErrorCode ins__archive_drain(ins_trace_t *tr)
{
    OTF2_ErrorCode rc = OTF2_SUCCESS;

    for (uint32_t i = 0; i < tr->nloc; i++) {
        ins__collect_write(&tr->locs[i]);
        rc = rc != OTF2_SUCCESS ? rc : tr->locs[i].failed;
    }
    return rc;
}

OTF2_ErrorCode ins__archive_close_writer(OTF2_Archive *ar, OTF2_EvtWriter *ew, uint64_t written)
{
    uint64_t n = 0;
    OTF2_ErrorCode rc = OTF2_EvtWriter_GetNumberOfEvents(ew, &n), rc2;

    if (rc == OTF2_SUCCESS && n != written)
        rc = OTF2_ERROR_INTEGRITY_FAULT;           /* never lose one silently */
    rc2 = OTF2_Archive_CloseEvtWriter(ar, ew);
    return rc != OTF2_SUCCESS ? rc : rc2;
}

OTF2_ErrorCode ins__archive_close_events(ins_trace_t *tr, uint64_t *events,
                                         uint64_t *flushes)
{
    OTF2_ErrorCode rc = OTF2_SUCCESS, rc2;

    *events = *flushes = 0;
    for (uint32_t i = 0; i < tr->nloc; i++) {
        ins_loc_t *loc = &tr->locs[i];

        rc2 = ins__archive_close_writer(tr->ar, loc->ew, loc->written);
        rc = rc != OTF2_SUCCESS ? rc : rc2;
        *events += loc->written;
        *flushes += loc->flushes;
    }
    rc2 = OTF2_Archive_CloseEvtFiles(tr->ar);
    return rc != OTF2_SUCCESS ? rc : rc2;
}

/*
 * The archive left open on purpose (after a failed event write): its
 * objects stay allocated until exit.  Under LeakSanitizer they are marked
 * as not leaked, here, where the choice is made, rather than by a
 * suppression of OTF2's allocations that would hide a forgotten close too
 * (tests/sanitizers/lsan.supp).
 */
void ins__archive_leave_open(OTF2_Archive *ar)
{
#if defined(__SANITIZE_ADDRESS__)
    __lsan_ignore_object(ar);
#else
    (void)ar;
#endif
}
