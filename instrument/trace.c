/*
 * trace.c - the event collectors (ins_trace.h) and the OTF2 archive.
 *
 * Recording: each location owns a buffer of 24-byte records; the hook
 * reads the clock and appends, with no lock and no shared write.  A full
 * buffer is written to the location's OTF2 event writer on the recording
 * thread (a flush).  OTF2's own buffers are bounded too: its memory
 * callbacks grant each event writer EVT_CHUNKS chunks, after which OTF2
 * writes them to disk (shared/FACTS.md section 3).
 *
 * Which locations this rank has is the runtime's to say (rt_location_list,
 * rt_hooks.h): the trace is sized for that list at open, and the executor
 * registers each location, by index, through the hooks.
 *
 * Writing (ins_trace_close): events, then per-location definitions (the
 * clock offsets), then rank 0 writes every global definition from what
 * each rank registered: each rank sends its locations, in index order,
 * with their event and flush counts.  The call sequence, including the
 * pitfalls it avoids, is the one of shared/FACTS.md section 3.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <otf2/otf2.h>
#include <otf2/OTF2_MPI_Collectives.h>   /* after mpi.h (ins_trace.h) */
#include <otf2/OTF2_Pthread_Locks.h>
#include "instrument/ins_int.h"
#include "common/cm_arena.h"
#include "common/cm_strmap.h"
#include "runtime/api/rt_exec.h"   /* rt_mpi_agree */

#define EVT_CHUNK   OTF2_CHUNK_SIZE_MIN          /* 256 KiB */
#define EVT_CHUNKS  2                            /* per event writer */
#define DEF_CHUNK   ((uint64_t)1 << 20)
#define DEF_CHUNKS  64
#define BUF_MIN     ((size_t)64 << 10)          /* smallest event buffer */
#define GLOBAL_RES  ((size_t)2 * DEF_CHUNK)      /* global and local definitions */
#define ERR_LEN     512
#define SIG_FILES_PER_LOC 2

/* One event: 24 bytes. */
typedef struct ins_rec {
    uint64_t ts;
    uint64_t op;
    uint32_t ref;                /* region | RT_VISIT_LEAVE << 31 */
    uint32_t bytes;
} ins_rec_t;

#define REC_LEAVE (UINT32_C(1) << 31)

typedef struct ins_loc {
    ins_rec_t          *buf;
    uint32_t            n, cap;
    uint32_t            nnodes;
    struct ins_trace   *tr;
    uint64_t            flushes;     /* read by other threads: atomics */
    uint64_t            written;
    uint64_t            first_ts, last_ts;
    OTF2_EvtWriter     *ew;
    OTF2_AttributeList *attrs;
    OTF2_LocationRef    id;
    OTF2_ErrorCode      failed;      /* first write error, or OTF2_SUCCESS */
} __attribute__((aligned(64))) ins_loc_t;

struct ins_trace {
    const rt_pathmap_t *pm;
    const rt_tree_t    *tree;
    unsigned            ninst;
    MPI_Comm            comm;
    int                 rank, size;
    char               *dir, *partial, *command;
    OTF2_Archive       *ar;
    rt_hooks_t          hooks;
    rt_location_t      *where;       /* [nloc]: what the executor registered */
    ins_loc_t          *locs;
    uint32_t            nloc, nregistered;
    ins_clock_pair_t    clk0, clk1;
    ins_offset_t        off0, off1;
    char              **sig_files;
    char               *sig_msg, *sig_done_msg;
};

/* ---- OTF2 callbacks (static: OTF2 keeps the pointers, FACTS.md) ------- */

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
    void    *chunk[DEF_CHUNKS];
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
        c->max = ft == OTF2_FILETYPE_EVENTS ? EVT_CHUNKS : DEF_CHUNKS;
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
static char            otf2_msg[ERR_LEN];
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

/* ---- locations ---------------------------------------------------------- */

static OTF2_LocationRef loc_id(int rank, uint32_t index)
{
    return ((OTF2_LocationRef)rank << INS_LOC_RANK_SHIFT) | index;
}

size_t ins_trace_mem_min(const rt_pathmap_t *pm, const rt_tree_t *tree, unsigned ninstances,
                         int rank)
{
    uint32_t n = rt_location_list(tree, ninstances, (rt_host_id_t)rank, NULL);

    (void)pm;
    return GLOBAL_RES + (size_t)n * (EVT_CHUNKS * EVT_CHUNK + BUF_MIN);
}

/* ---- the hooks ------------------------------------------------------------- */

/*
 * The executor registers each location of this host once, by index.  A
 * location outside the list this trace was sized for (rt_location_list
 * for the same tree and instance count) is refused: its events would have
 * nowhere to go.
 */
static void *hook_location(void *ud, const rt_location_t *where)
{
    ins_trace_t *tr = ud;

    if (where->index >= tr->nloc || where->index != tr->nregistered ||
        where->host != (rt_host_id_t)tr->rank)
        return NULL;
    tr->where[tr->nregistered++] = *where;
    return &tr->locs[where->index];
}

/* Writes the buffered records to OTF2 and empties the buffer. */
static void loc_write(ins_loc_t *loc)
{
    for (uint32_t i = 0; i < loc->n && loc->failed == OTF2_SUCCESS; i++) {
        const ins_rec_t *r = &loc->buf[i];
        OTF2_RegionRef region = r->ref & ~REC_LEAVE;
        OTF2_ErrorCode rc;

        rc = OTF2_AttributeList_AddUint64(loc->attrs, INS_ATTR_OP_ID, r->op);
        if (rc == OTF2_SUCCESS)
            rc = OTF2_AttributeList_AddUint64(loc->attrs, INS_ATTR_BYTES_ID, r->bytes);
        if (rc == OTF2_SUCCESS)
            rc = (r->ref & REC_LEAVE) ? OTF2_EvtWriter_Leave(loc->ew, loc->attrs, r->ts, region)
                                      : OTF2_EvtWriter_Enter(loc->ew, loc->attrs, r->ts, region);
        if (rc != OTF2_SUCCESS) {
            loc->failed = rc;
            break;
        }
        if (loc->written++ == 0)
            loc->first_ts = r->ts;
        loc->last_ts = r->ts;
    }
    loc->n = 0;
}

static __attribute__((noinline)) void loc_flush(ins_loc_t *loc)
{
    loc_write(loc);
    __atomic_store_n(&loc->flushes, loc->flushes + 1, __ATOMIC_RELAXED);
}

static void hook_visit(void *locp, rt_visit_t what, unsigned instance, rt_node_id_t node,
                       uint64_t seq, size_t bytes)
{
    ins_loc_t *loc = locp;
    uint64_t ts = ins__clock_now();
    ins_rec_t *r;

    if (__builtin_expect(loc->n == loc->cap, 0))
        loc_flush(loc);
    r = &loc->buf[loc->n++];
    r->ts = ts;
    r->op = seq;
    r->ref = (instance * loc->nnodes + node) | (what == RT_VISIT_LEAVE ? REC_LEAVE : 0);
    r->bytes = (uint32_t)bytes;
}

/* ---- open ------------------------------------------------------------------ */

static char *str_dup(const char *s)
{
    return s != NULL ? strdup(s) : strdup("");
}

static char *str_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *str_fmt(const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;

    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    return s;
}

static void trace_free(ins_trace_t *tr)
{
    if (tr == NULL)
        return;
    for (uint32_t i = 0; tr->locs != NULL && i < tr->nloc; i++) {
        free(tr->locs[i].buf);
        if (tr->locs[i].attrs != NULL)
            OTF2_AttributeList_Delete(tr->locs[i].attrs);
    }
    for (char **f = tr->sig_files; f != NULL && *f != NULL; f++)
        free(*f);
    free(tr->sig_files);
    free(tr->sig_msg);
    free(tr->sig_done_msg);
    free(tr->locs);
    free(tr->where);
    free(tr->dir);
    free(tr->partial);
    free(tr->command);
    if (tr->comm != MPI_COMM_NULL)
        MPI_Comm_free(&tr->comm);
    free(tr);
}

/*
 * Writes one byte per page, so the page faults happen now and not inside
 * the measured loop (a first-touch fault costs ~9 ns per event there,
 * bench/tracebench).  Through a volatile pointer, because a compiler may
 * turn malloc + memset into calloc, which leaves fresh pages untouched.
 */
static void touch_pages(void *p, size_t len)
{
    volatile unsigned char *c = p;

    for (size_t i = 0; i < len; i += 4096)
        c[i] = 0;
}

/* Local checks and allocations: the buffers and the interrupt file list. */
static cm_status_t trace_alloc(ins_trace_t *tr, size_t mem, cm_err_t *err)
{
    size_t min = ins_trace_mem_min(tr->pm, tr->tree, tr->ninst, tr->rank), per_loc;
    uint32_t nfiles = 0;

    tr->nloc = rt_location_list(tr->tree, tr->ninst, (rt_host_id_t)tr->rank, NULL);
    if (tr->nloc >= INS_LOC_MAX_PER_RANK)
        return CM_ERR(err, CM_ERR_RANGE, "host %s has %u threads to trace; at most %u",
                      tr->pm->hosts[tr->rank].name, tr->nloc, INS_LOC_MAX_PER_RANK - 1);
    if ((uint64_t)tr->ninst * tr->tree->nnodes >= REC_LEAVE)
        return CM_ERR(err, CM_ERR_RANGE, "trace: %u instances x %u wrappers is too many "
                      "regions (at most 2^31)", tr->ninst, tr->tree->nnodes);
    if (mem < min)
        return CM_ERR(err, CM_ERR_RANGE, "--trace-mem %zu is too small for the %u threads "
                      "of host %s: at least %zu bytes (%zu KiB)", mem, tr->nloc,
                      tr->pm->hosts[tr->rank].name, min, (min + 1023) / 1024);
    per_loc = tr->nloc ? (mem - GLOBAL_RES) / tr->nloc - EVT_CHUNKS * EVT_CHUNK : 0;
    tr->where = calloc(tr->nloc + 1, sizeof(*tr->where));
    tr->locs = aligned_alloc(64, (tr->nloc + 1) * sizeof(*tr->locs));
    tr->sig_files = calloc((size_t)tr->nloc * SIG_FILES_PER_LOC + 5, sizeof(char *));
    if (tr->where == NULL || tr->locs == NULL || tr->sig_files == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    memset(tr->locs, 0, (tr->nloc + 1) * sizeof(*tr->locs));
    for (uint32_t i = 0; i < tr->nloc; i++) {
        ins_loc_t *loc = &tr->locs[i];

        loc->tr = tr;
        loc->nnodes = tr->tree->nnodes;
        loc->id = loc_id(tr->rank, i);
        loc->cap = (uint32_t)(per_loc / sizeof(ins_rec_t) < UINT32_MAX
                              ? per_loc / sizeof(ins_rec_t) : UINT32_MAX);
        loc->buf = malloc((size_t)loc->cap * sizeof(ins_rec_t));
        if (loc->buf != NULL)
            touch_pages(loc->buf, (size_t)loc->cap * sizeof(ins_rec_t));
        loc->attrs = OTF2_AttributeList_New();
        tr->sig_files[nfiles++] = str_fmt("%s/%s/%" PRIu64 ".evt", tr->partial,
                                          INS_ARCHIVE_NAME, loc->id);
        tr->sig_files[nfiles++] = str_fmt("%s/%s/%" PRIu64 ".def", tr->partial,
                                          INS_ARCHIVE_NAME, loc->id);
        if (loc->buf == NULL || loc->attrs == NULL || tr->sig_files[nfiles - 1] == NULL ||
            tr->sig_files[nfiles - 2] == NULL)
            return CM_ERR(err, CM_ERR_NOMEM, "out of memory for trace buffers (%zu bytes)",
                          mem);
    }
    if (tr->rank == 0) {
        tr->sig_files[nfiles++] = str_fmt("%s/%s", tr->partial, INS_ANCHOR_FILE);
        tr->sig_files[nfiles++] = str_fmt("%s/%s.def", tr->partial, INS_ARCHIVE_NAME);
    }
    tr->sig_files[nfiles++] = str_fmt("%s/%s", tr->partial, INS_ARCHIVE_NAME);
    tr->sig_files[nfiles++] = str_dup(tr->partial);
    tr->sig_msg = str_fmt("paptree: rank %d: interrupted: trace '%s' not written; its "
                          "partial files were removed\n", tr->rank, tr->dir);
    tr->sig_done_msg = str_fmt("paptree: rank %d: interrupted after trace '%s' was "
                               "complete; it is valid\n", tr->rank, tr->dir);
    for (uint32_t i = 0; i < nfiles; i++) {
        if (tr->sig_files[i] == NULL)
            return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    }
    if (tr->sig_msg == NULL || tr->sig_done_msg == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    return CM_OK;
}

/* Rank 0 prepares the directory; every rank learns the outcome. */
static cm_status_t trace_prepare_dir(ins_trace_t *tr, int force, cm_err_t *err)
{
    char msg[ERR_LEN] = "";
    int rc = 0;

    if (tr->rank == 0)
        rc = ins__fs_prepare(tr->dir, tr->partial, force, msg, sizeof(msg));
    MPI_Bcast(&rc, 1, MPI_INT, 0, tr->comm);
    if (rc == 0)
        return CM_OK;
    MPI_Bcast(msg, sizeof(msg), MPI_CHAR, 0, tr->comm);
    return CM_ERR(err, CM_ERR_IO, "%s%s", tr->rank == 0 ? "" : "rank 0: ", msg);
}

static cm_status_t otf2_check(OTF2_ErrorCode rc, const char *what, cm_err_t *err)
{
    char msg[ERR_LEN];

    if (rc == OTF2_SUCCESS)
        return CM_OK;
    otf2_msg_take(msg, sizeof(msg), OTF2_Error_GetDescription(rc));
    return CM_ERR(err, CM_ERR_IO, "%s failed: %s", what, msg);
}

static cm_status_t trace_set_properties(ins_trace_t *tr, cm_err_t *err)
{
    char hash[17], num[32], hosts[32];
    const struct { const char *name, *value; } props[] = {
        { INS_PROP_VERSION, INS_SCHEMA_VERSION },
        { INS_PROP_PATHMAP, tr->pm->text },
        { INS_PROP_PATHMAP_PATH, tr->pm->path },
        { INS_PROP_PATHMAP_HASH, hash },
        { INS_PROP_TREE, tr->tree->name },
        { INS_PROP_INSTANCES, num },
        { INS_PROP_HOSTS, hosts },
        { INS_PROP_CLOCK, ins__clock_tsc ? INS_CLOCK_TSC : INS_CLOCK_MONO_RAW },
        { INS_PROP_COMMAND, tr->command },
    };
    cm_status_t st = CM_OK;

    snprintf(hash, sizeof(hash), "%016" PRIx64, tr->pm->hash);
    snprintf(num, sizeof(num), "%u", tr->ninst);
    snprintf(hosts, sizeof(hosts), "%u", tr->pm->nhosts);
    for (size_t i = 0; st == CM_OK && i < sizeof(props) / sizeof(props[0]); i++)
        st = otf2_check(OTF2_Archive_SetProperty(tr->ar, props[i].name, props[i].value,
                                                 false), "OTF2_Archive_SetProperty", err);
    return st;
}

/* The clock: TSC on every host that has an invariant one, unless told. */
static void trace_choose_clock(ins_trace_t *tr)
{
    const char *want = getenv("PAPTREE_TRACE_CLOCK");
    int mine = ins__clock_tsc_usable() && !(want && strcmp(want, INS_CLOCK_MONO_RAW) == 0);
    int all = 0;

    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, tr->comm);
    ins__clock_tsc = all != 0;
}

static cm_status_t trace_open_archive(ins_trace_t *tr, cm_err_t *err)
{
    cm_status_t st;

    tr->ar = OTF2_Archive_Open(tr->partial, INS_ARCHIVE_NAME, OTF2_FILEMODE_WRITE, EVT_CHUNK,
                               DEF_CHUNK, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (tr->ar == NULL)
        return otf2_check(OTF2_ERROR_FILE_INTERACTION, "OTF2_Archive_Open", err);
    if ((st = otf2_check(OTF2_Archive_SetFlushCallbacks(tr->ar, &flush_callbacks, NULL),
                         "OTF2_Archive_SetFlushCallbacks", err)) != CM_OK ||
        (st = otf2_check(OTF2_Archive_SetMemoryCallbacks(tr->ar, &memory_callbacks, NULL),
                         "OTF2_Archive_SetMemoryCallbacks", err)) != CM_OK ||
        (st = otf2_check(OTF2_MPI_Archive_SetCollectiveCallbacks(tr->ar, tr->comm,
                                                                 MPI_COMM_NULL),
                         "OTF2_MPI_Archive_SetCollectiveCallbacks", err)) != CM_OK ||
        (st = otf2_check(OTF2_Pthread_Archive_SetLockingCallbacks(tr->ar, NULL),
                         "OTF2_Pthread_Archive_SetLockingCallbacks", err)) != CM_OK ||
        (st = otf2_check(OTF2_Archive_SetCreator(tr->ar, "paptree"),
                         "OTF2_Archive_SetCreator", err)) != CM_OK ||
        (st = trace_set_properties(tr, err)) != CM_OK)
        return st;
    return CM_OK;
}

/* After the archive is open everywhere: event files and writers. */
static cm_status_t trace_open_events(ins_trace_t *tr, cm_err_t *err)
{
    cm_status_t st = otf2_check(OTF2_Archive_OpenEvtFiles(tr->ar),
                                "OTF2_Archive_OpenEvtFiles", err);

    for (uint32_t i = 0; st == CM_OK && i < tr->nloc; i++) {
        tr->locs[i].ew = OTF2_Archive_GetEvtWriter(tr->ar, tr->locs[i].id);
        if (tr->locs[i].ew == NULL)
            st = otf2_check(OTF2_ERROR_MEM_ALLOC_FAILED, "OTF2_Archive_GetEvtWriter", err);
    }
    return st;
}

cm_status_t ins_trace_open(const rt_pathmap_t *pm, const char *tree, unsigned ninstances,
                           const ins_trace_opts_t *opts, MPI_Comm comm, ins_trace_t **tr_p,
                           cm_err_t *err)
{
    ins_trace_t *tr = calloc(1, sizeof(*tr));
    cm_status_t st = CM_OK;

    *tr_p = NULL;
    if (tr == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    tr->comm = MPI_COMM_NULL;
    if (MPI_Comm_dup(comm, &tr->comm) != MPI_SUCCESS) {
        trace_free(tr);
        return CM_ERR(err, CM_ERR_MPI, "MPI_Comm_dup failed");
    }
    MPI_Comm_rank(tr->comm, &tr->rank);
    MPI_Comm_size(tr->comm, &tr->size);
    OTF2_Error_RegisterCallback(on_otf2_error, NULL);
    tr->pm = pm;
    tr->tree = rt_pathmap_tree(pm, tree);
    tr->ninst = ninstances;
    tr->dir = str_dup(opts->dir);
    tr->partial = str_fmt("%s%s", opts->dir ? opts->dir : "", INS_PARTIAL_SUFFIX);
    tr->command = str_dup(opts->command);
    if (tr->dir == NULL || tr->partial == NULL || tr->command == NULL)
        st = CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    else if (opts->dir == NULL || opts->dir[0] == '\0')
        st = CM_ERR(err, CM_ERR_INVALID, "no trace directory given");
    else if (tr->tree == NULL || ninstances == 0 || (unsigned)tr->size != pm->nhosts)
        st = CM_ERR(err, CM_ERR_INVALID, "trace: no tree '%s', no instances, or not one "
                    "rank per host", tree ? tree : "(first)");
    else
        st = trace_alloc(tr, opts->mem ? opts->mem : INS_TRACE_MEM_DEFAULT, err);
    if ((st = rt_mpi_agree(tr->comm, st, err)) == CM_OK)
        st = trace_prepare_dir(tr, opts->force, err);
    if (st == CM_OK) {
        trace_choose_clock(tr);
        st = trace_open_archive(tr, err);
        st = rt_mpi_agree(tr->comm, st, err);
        if (st == CM_OK) {
            /* Armed before any file exists, so an interrupt removes them all. */
            ins__signals_arm(tr->sig_files, tr->sig_msg, tr->sig_done_msg);
            st = rt_mpi_agree(tr->comm, trace_open_events(tr, err), err);
        }
        if (st != CM_OK) {
            if (tr->ar != NULL)
                OTF2_Archive_Close(tr->ar);
            ins__signals_disarm();
            MPI_Barrier(tr->comm);
            if (tr->rank == 0)
                (void)ins__fs_remove_tree(tr->partial);
        }
    }
    if (st == CM_OK && ins__sync_offset(tr->comm, &tr->off0) != 0)
        st = CM_ERR(err, CM_ERR_MPI, "clock offset measurement failed");
    if (st != CM_OK) {
        trace_free(tr);
        return st;
    }
    ins__clock_pair(&tr->clk0);
    tr->hooks = (rt_hooks_t){ tr, hook_location, hook_visit };
    *tr_p = tr;
    return CM_OK;
}

const rt_hooks_t *ins_trace_hooks(ins_trace_t *tr)
{
    return &tr->hooks;
}

uint64_t ins_trace_flushes(const ins_trace_t *tr)
{
    uint64_t n = 0;

    for (uint32_t i = 0; i < tr->nloc; i++)
        n += __atomic_load_n(&tr->locs[i].flushes, __ATOMIC_RELAXED);
    return n;
}

/* ---- close ------------------------------------------------------------------ */

/*
 * One location as it travels to rank 0: what the executor registered and
 * what was recorded.  All uint64_t, so that one MPI_Gatherv carries it.
 */
typedef struct loc_info {
    uint64_t events, flushes;
    uint64_t kind;               /* rt_location_kind_t */
    uint64_t thread;             /* index into tree->threads, or RT_ID_NONE */
    uint64_t proxy, instance, enter;
} loc_info_t;

#define LOC_INFO_WORDS ((int)(sizeof(loc_info_t) / sizeof(uint64_t)))

/* Host-wide facts rank 0 gathers. */
typedef struct host_info {
    char    hostname[256];
    int64_t min_ts, max_ts;     /* in rank 0's ticks; INT64_MAX/MIN if no events */
} host_info_t;

/* The global definition writer, with each string written once. */
typedef struct global_writer {
    OTF2_GlobalDefWriter *w;
    OTF2_StringRef        next;
    OTF2_ErrorCode        rc;
    cm_strmap_t           strings;    /* text -> its String id */
    cm_arena_t           *arena;      /* the keys' copies */
} global_writer_t;

static OTF2_StringRef gw_str(global_writer_t *g, const char *s)
{
    size_t len = strlen(s);
    uint32_t id;
    char *key;

    if (cm_strmap_get(&g->strings, s, len, &id) == CM_OK)
        return id;
    if ((key = cm_arena_strndup(g->arena, s, len)) == NULL ||
        cm_strmap_put(&g->strings, key, len, g->next) != CM_OK) {
        g->rc = g->rc != OTF2_SUCCESS ? g->rc : OTF2_ERROR_MEM_ALLOC_FAILED;
        return g->next;
    }
    if (g->rc == OTF2_SUCCESS)
        g->rc = OTF2_GlobalDefWriter_WriteString(g->w, g->next, s);
    return g->next++;
}

static void gw_check(global_writer_t *g, OTF2_ErrorCode rc)
{
    if (g->rc == OTF2_SUCCESS)
        g->rc = rc;
}

static OTF2_AttributeValue av_u64(uint64_t v)
{
    OTF2_AttributeValue a;
    a.uint64 = v;
    return a;
}

static OTF2_AttributeValue av_str(OTF2_StringRef s)
{
    OTF2_AttributeValue a;
    a.stringRef = s;
    return a;
}

static void gw_regions(global_writer_t *g, ins_trace_t *tr)
{
    const rt_tree_t *t = tr->tree;
    OTF2_StringRef file = gw_str(g, tr->pm->path);

    for (unsigned inst = 0; inst < tr->ninst; inst++) {
        for (uint32_t n = 0; n < t->nnodes; n++) {
            const rt_node_t *node = &t->nodes[n];
            const char *parent = node->parent == RT_ID_NONE ? INS_NO_PARENT
                                                            : t->nodes[node->parent].name;
            char canon[256], desc[512];

            snprintf(canon, sizeof(canon), INS_REGION_CANONICAL_FMT, t->name, inst, node->name);
            snprintf(desc, sizeof(desc),
                     INS_KEY_KIND "=%s " INS_KEY_HOST "=%s " INS_KEY_PARENT "=%s "
                     INS_KEY_TREE "=%s " INS_KEY_INSTANCE "=%u " INS_KEY_NODE "=%u "
                     INS_KEY_FANIN "=%u", rt_node_kind_name(node->kind),
                     tr->pm->hosts[node->host].name, parent, t->name, inst, n,
                     rt_node_fanin(node));
            OTF2_StringRef sn = gw_str(g, node->name), sc = gw_str(g, canon),
                           sd = gw_str(g, desc);
            gw_check(g, OTF2_GlobalDefWriter_WriteRegion(
                            g->w, inst * t->nnodes + n, sn, sc, sd, OTF2_REGION_ROLE_WRAPPER,
                            OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, file, node->line,
                            node->line));
        }
    }
}

static void gw_loc_prop(global_writer_t *g, OTF2_LocationRef id, const char *name,
                        OTF2_Type type, OTF2_AttributeValue value)
{
    gw_check(g, OTF2_GlobalDefWriter_WriteLocationProperty(g->w, id, gw_str(g, name), type,
                                                           value));
}

/* One location and its properties, as its rank registered it. */
static void gw_location(global_writer_t *g, ins_trace_t *tr, int rank,
                        const rt_location_t *where, const loc_info_t *c)
{
    const rt_tree_t *t = tr->tree;
    OTF2_LocationRef id = loc_id(rank, where->index);
    bool compute = where->kind == RT_LOCATION_COMPUTE;
    char name[256];

    if (compute)
        snprintf(name, sizeof(name), "thread %u", where->thread->id);
    else
        snprintf(name, sizeof(name), "service %s#%u", t->nodes[where->proxy].name,
                 where->instance);
    gw_check(g, OTF2_GlobalDefWriter_WriteLocation(g->w, id, gw_str(g, name),
                                                   OTF2_LOCATION_TYPE_CPU_THREAD, c->events,
                                                   (OTF2_LocationGroupRef)rank));
    gw_loc_prop(g, id, INS_LOC_PROP_ROLE, OTF2_TYPE_STRING,
                av_str(gw_str(g, compute ? INS_ROLE_COMPUTE : INS_ROLE_SERVICE)));
    if (compute) {
        gw_loc_prop(g, id, INS_LOC_PROP_THREAD, OTF2_TYPE_UINT64, av_u64(where->thread->id));
    } else {
        gw_loc_prop(g, id, INS_LOC_PROP_PROXY, OTF2_TYPE_STRING,
                    av_str(gw_str(g, t->nodes[where->proxy].name)));
        gw_loc_prop(g, id, INS_LOC_PROP_INSTANCE, OTF2_TYPE_UINT64, av_u64(where->instance));
    }
    gw_loc_prop(g, id, INS_LOC_PROP_ENTER, OTF2_TYPE_STRING,
                av_str(gw_str(g, t->nodes[where->enter].name)));
    gw_loc_prop(g, id, INS_LOC_PROP_FLUSHES, OTF2_TYPE_UINT64, av_u64(c->flushes));
}

/*
 * A location as rank `rank` sent it, pointing back into the tree; -1 if
 * it names a thread or node the tree does not have.
 */
static int loc_decode(const rt_tree_t *t, int rank, uint32_t index, const loc_info_t *c,
                      rt_location_t *where_p)
{
    bool compute = c->kind == RT_LOCATION_COMPUTE;

    if ((compute ? c->thread >= t->nthreads : c->proxy >= t->nnodes) ||
        c->enter >= t->nnodes || c->kind > RT_LOCATION_LINK)
        return -1;
    *where_p = (rt_location_t){ (rt_location_kind_t)c->kind, index, (rt_host_id_t)rank,
                                compute ? &t->threads[c->thread] : NULL,
                                (rt_node_id_t)c->proxy, (unsigned)c->instance,
                                (rt_node_id_t)c->enter };
    return 0;
}

/* Rank 0: every global definition. */
static OTF2_ErrorCode trace_write_globals(ins_trace_t *tr, double rate, const host_info_t *hosts,
                                          const loc_info_t *infos, const int *nlocs)
{
    global_writer_t g = { OTF2_Archive_GetGlobalDefWriter(tr->ar), 0, OTF2_SUCCESS,
                          { 0 }, cm_arena_create() };
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    uint64_t realtime;
    OTF2_ErrorCode rc;

    cm_strmap_init(&g.strings);
    if (g.w == NULL || g.arena == NULL) {
        cm_arena_destroy(g.arena);
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    }
    for (int r = 0; r < tr->size; r++) {
        lo = hosts[r].min_ts < lo ? hosts[r].min_ts : lo;
        hi = hosts[r].max_ts > hi ? hosts[r].max_ts : hi;
    }
    if (lo > hi)
        lo = hi = (int64_t)tr->clk0.ticks;
    /* The wall-clock time of `lo`, from the pair read at open. */
    realtime = (uint64_t)(tr->clk0.real_ns +
                          (int64_t)((double)(lo - (int64_t)tr->clk0.ticks) / rate * 1e9));
    gw_check(&g, OTF2_GlobalDefWriter_WriteClockProperties(g.w, (uint64_t)rate, (uint64_t)lo,
                                                           (uint64_t)(hi - lo + 1), realtime));
    gw_check(&g, OTF2_GlobalDefWriter_WriteAttribute(
                     g.w, INS_ATTR_OP_ID, gw_str(&g, INS_ATTR_OP),
                     gw_str(&g, "operation number on the tree instance, from 0"),
                     OTF2_TYPE_UINT64));
    gw_check(&g, OTF2_GlobalDefWriter_WriteAttribute(
                     g.w, INS_ATTR_BYTES_ID, gw_str(&g, INS_ATTR_BYTES),
                     gw_str(&g, "tuple size in bytes"), OTF2_TYPE_UINT64));
    gw_check(&g, OTF2_GlobalDefWriter_WriteSystemTreeNode(
                     g.w, 0, gw_str(&g, hosts[0].hostname), gw_str(&g, INS_STN_MACHINE_CLASS),
                     OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    gw_check(&g, OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(g.w, 0,
                                                                OTF2_SYSTEM_TREE_DOMAIN_MACHINE));
    for (int r = 0; r < tr->size; r++) {
        const char *host = tr->pm->hosts[r].name;
        char name[256];

        gw_check(&g, OTF2_GlobalDefWriter_WriteSystemTreeNode(
                         g.w, 1 + (uint32_t)r, gw_str(&g, host),
                         gw_str(&g, INS_STN_NODE_CLASS), 0));
        gw_check(&g, OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(
                         g.w, 1 + (uint32_t)r, OTF2_SYSTEM_TREE_DOMAIN_SHARED_MEMORY));
        gw_check(&g, OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty(
                         g.w, 1 + (uint32_t)r, gw_str(&g, INS_STN_PROP_HOSTNAME),
                         OTF2_TYPE_STRING, av_str(gw_str(&g, hosts[r].hostname))));
        snprintf(name, sizeof(name), "%s (rank %d)", host, r);
        gw_check(&g, OTF2_GlobalDefWriter_WriteLocationGroup(
                         g.w, (OTF2_LocationGroupRef)r, gw_str(&g, name),
                         OTF2_LOCATION_GROUP_TYPE_PROCESS, 1 + (uint32_t)r,
                         OTF2_UNDEFINED_LOCATION_GROUP));
        gw_check(&g, OTF2_GlobalDefWriter_WriteLocationGroupProperty(
                         g.w, (OTF2_LocationGroupRef)r, gw_str(&g, INS_LG_PROP_HOST),
                         OTF2_TYPE_STRING, av_str(gw_str(&g, host))));
        gw_check(&g, OTF2_GlobalDefWriter_WriteLocationGroupProperty(
                         g.w, (OTF2_LocationGroupRef)r, gw_str(&g, INS_LG_PROP_RANK),
                         OTF2_TYPE_UINT64, av_u64((uint64_t)r)));
    }
    for (int r = 0; r < tr->size; r++) {
        for (int i = 0; i < nlocs[r]; i++, infos++) {
            rt_location_t where;

            if (loc_decode(tr->tree, r, (uint32_t)i, infos, &where) != 0) {
                gw_check(&g, OTF2_ERROR_INVALID_DATA);
                continue;
            }
            gw_location(&g, tr, r, &where, infos);
        }
    }
    gw_regions(&g, tr);
    cm_strmap_cleanup(&g.strings);
    cm_arena_destroy(g.arena);
    rc = OTF2_Archive_CloseGlobalDefWriter(tr->ar, g.w);
    return g.rc != OTF2_SUCCESS ? g.rc : rc;
}

/* Each location's definitions: the two clock offsets. */
static OTF2_ErrorCode trace_write_locals(ins_trace_t *tr)
{
    const ins_offset_t *o[2] = { &tr->off0, &tr->off1 };
    OTF2_ErrorCode rc = OTF2_Archive_OpenDefFiles(tr->ar), rc2;

    for (uint32_t i = 0; rc == OTF2_SUCCESS && i < tr->nloc; i++) {
        OTF2_DefWriter *w = OTF2_Archive_GetDefWriter(tr->ar, tr->locs[i].id);

        if (w == NULL) {
            rc = OTF2_ERROR_MEM_ALLOC_FAILED;
            break;
        }
        for (int k = 0; k < 2 && rc == OTF2_SUCCESS; k++)
            rc = OTF2_DefWriter_WriteClockOffset(w, o[k]->time, o[k]->offset,
                                                 (double)o[k]->rtt / 2.0);
        rc2 = OTF2_Archive_CloseDefWriter(tr->ar, w);
        rc = rc != OTF2_SUCCESS ? rc : rc2;
    }
    rc2 = OTF2_Archive_CloseDefFiles(tr->ar);
    return rc != OTF2_SUCCESS ? rc : rc2;
}

/* Every buffered event to its OTF2 writer; the first write error, if any. */
static OTF2_ErrorCode trace_drain(ins_trace_t *tr)
{
    OTF2_ErrorCode rc = OTF2_SUCCESS;

    for (uint32_t i = 0; i < tr->nloc; i++) {
        loc_write(&tr->locs[i]);
        rc = rc != OTF2_SUCCESS ? rc : tr->locs[i].failed;
    }
    return rc;
}

/* The event writers closed (their last chunks written) and checked. */
static OTF2_ErrorCode trace_close_events(ins_trace_t *tr, uint64_t *events, uint64_t *flushes)
{
    OTF2_ErrorCode rc = OTF2_SUCCESS, rc2;

    *events = *flushes = 0;
    for (uint32_t i = 0; i < tr->nloc; i++) {
        ins_loc_t *loc = &tr->locs[i];
        uint64_t n = 0;

        rc2 = OTF2_EvtWriter_GetNumberOfEvents(loc->ew, &n);
        if (rc2 == OTF2_SUCCESS && n != loc->written)
            rc2 = OTF2_ERROR_INTEGRITY_FAULT;           /* never lose one silently */
        rc = rc != OTF2_SUCCESS ? rc : rc2;
        rc2 = OTF2_Archive_CloseEvtWriter(tr->ar, loc->ew);
        rc = rc != OTF2_SUCCESS ? rc : rc2;
        *events += loc->written;
        *flushes += loc->flushes;
    }
    rc2 = OTF2_Archive_CloseEvtFiles(tr->ar);
    return rc != OTF2_SUCCESS ? rc : rc2;
}

/*
 * Folds one writing step into st: it failed if OTF2 returned an error or
 * reported one through the error callback since the previous step.
 */
static cm_status_t close_check(ins_trace_t *tr, OTF2_ErrorCode rc, const char *what,
                               cm_status_t st, cm_err_t *err)
{
    char msg[ERR_LEN];
    unsigned reported;

    pthread_mutex_lock(&otf2_msg_lock);
    reported = otf2_nerrors;
    otf2_nerrors = 0;
    pthread_mutex_unlock(&otf2_msg_lock);
    if (st != CM_OK || (rc == OTF2_SUCCESS && reported == 0))
        return st;
    otf2_msg_take(msg, sizeof(msg), OTF2_Error_GetDescription(rc));
    return CM_ERR(err, CM_ERR_IO, "writing trace '%s' failed (%s): %s", tr->dir, what, msg);
}

static void host_extent(ins_trace_t *tr, host_info_t *me)
{
    memset(me, 0, sizeof(*me));
    gethostname(me->hostname, sizeof(me->hostname) - 1);
    me->min_ts = INT64_MAX;
    me->max_ts = INT64_MIN;
    for (uint32_t i = 0; i < tr->nloc; i++) {
        const ins_loc_t *loc = &tr->locs[i];

        if (loc->written == 0)
            continue;
        /* Into rank 0's ticks with the start offset; padded by the drift below. */
        if ((int64_t)loc->first_ts + tr->off0.offset < me->min_ts)
            me->min_ts = (int64_t)loc->first_ts + tr->off0.offset;
        if ((int64_t)loc->last_ts + tr->off1.offset > me->max_ts)
            me->max_ts = (int64_t)loc->last_ts + tr->off1.offset;
    }
    if (me->min_ts != INT64_MAX) {
        int64_t pad = llabs(tr->off1.offset - tr->off0.offset) + (int64_t)tr->off0.rtt;
        me->min_ts -= pad;
        me->max_ts += pad;
    }
}

/* This rank's locations as registered, with their counts; caller frees. */
static loc_info_t *loc_infos(const ins_trace_t *tr)
{
    loc_info_t *mine = calloc(tr->nloc + 1, sizeof(*mine));

    for (uint32_t i = 0; mine != NULL && i < tr->nloc; i++) {
        const rt_location_t *w = &tr->where[i];

        mine[i] = (loc_info_t){ tr->locs[i].written, tr->locs[i].flushes, w->kind,
                                w->thread != NULL ? (uint64_t)(w->thread - tr->tree->threads)
                                                  : RT_ID_NONE,
                                w->proxy, w->instance, w->enter };
    }
    return mine;
}

/* Gathers locations, counts and host facts at rank 0, which writes the global definitions. */
static OTF2_ErrorCode trace_finish_defs(ins_trace_t *tr, double rate)
{
    host_info_t me, *hosts = NULL;
    loc_info_t *mine = loc_infos(tr), *all = NULL;
    int *nlocs = NULL, *displs = NULL, n = (int)tr->nloc * LOC_INFO_WORDS, total = 0;
    OTF2_ErrorCode rc = OTF2_SUCCESS;

    if (mine == NULL)
        n = 0;                  /* this rank fails; rank 0 still gathers */
    host_extent(tr, &me);
    if (tr->rank == 0) {
        hosts = calloc((size_t)tr->size, sizeof(*hosts));
        nlocs = calloc((size_t)tr->size, sizeof(int));
        displs = calloc((size_t)tr->size, sizeof(int));
    }
    MPI_Gather(&me, (int)sizeof(me), MPI_BYTE, hosts, (int)sizeof(me), MPI_BYTE, 0, tr->comm);
    MPI_Gather(&n, 1, MPI_INT, nlocs, 1, MPI_INT, 0, tr->comm);
    if (tr->rank == 0) {
        for (int r = 0; nlocs != NULL && displs != NULL && r < tr->size; r++) {
            displs[r] = total;
            total += nlocs[r];
        }
        all = calloc((size_t)total / LOC_INFO_WORDS + 1, sizeof(*all));
    }
    MPI_Gatherv(mine, n, MPI_UINT64_T, all, nlocs, displs, MPI_UINT64_T, 0, tr->comm);
    if (tr->rank == 0) {
        if (hosts == NULL || all == NULL || nlocs == NULL || displs == NULL)
            rc = OTF2_ERROR_MEM_ALLOC_FAILED;
        for (int r = 0; nlocs != NULL && r < tr->size; r++)
            nlocs[r] /= LOC_INFO_WORDS;
        if (rc == OTF2_SUCCESS)
            rc = trace_write_globals(tr, rate, hosts, all, nlocs);
    }
    if (mine == NULL)
        rc = OTF2_ERROR_MEM_ALLOC_FAILED;
    free(mine);
    free(all);
    free(hosts);
    free(nlocs);
    free(displs);
    return rc;
}

static void trace_summary(ins_trace_t *tr, uint64_t events, uint64_t flushes, double rate,
                          ins_trace_summary_t *sum)
{
    double per_us = rate / 1e6, span = (double)(tr->off1.time - tr->off0.time);
    double mine[3], max[3];
    uint64_t in[3] = { events, flushes, tr->nloc }, out[3];

    mine[0] = fmax(fabs((double)tr->off0.offset), fabs((double)tr->off1.offset)) / per_us;
    mine[1] = fmax((double)tr->off0.rtt, (double)tr->off1.rtt) / 2.0 / per_us;
    mine[2] = span > 0 ? fabs((double)(tr->off1.offset - tr->off0.offset)) / span * 1e6 : 0;
    MPI_Allreduce(mine, max, 3, MPI_DOUBLE, MPI_MAX, tr->comm);
    MPI_Allreduce(in, out, 3, MPI_UINT64_T, MPI_SUM, tr->comm);
    memset(sum, 0, sizeof(*sum));
    sum->events = out[0];
    sum->flushes = out[1];
    sum->locations = out[2];
    sum->clock = ins__clock_tsc ? INS_CLOCK_TSC : INS_CLOCK_MONO_RAW;
    sum->ticks_per_s = rate;
    sum->max_offset_us = max[0];
    sum->max_sync_err_us = max[1];
    sum->max_drift_ppm = max[2];
}

cm_status_t ins_trace_close(ins_trace_t *tr, ins_trace_summary_t *sum, cm_err_t *err)
{
    cm_status_t st = CM_OK;
    uint64_t events = 0, flushes = 0;
    double rate;
    char msg[ERR_LEN] = "";
    int rc = 0;

    if (tr->nregistered != tr->nloc)
        st = CM_ERR(err, CM_ERR_INVALID, "trace: %u of %u threads registered; was the "
                    "executor created with ins_trace_hooks?", tr->nregistered, tr->nloc);
    /*
     * If an event write failed anywhere (disk full during a flush), every
     * rank leaves OTF2 alone from here on: OTF2 crashes when it flushes a
     * writer again after a failed write (seen in OTF2 3.0.2 as SIGSEGV in
     * OTF2_Buffer_Delete), so the archive is abandoned, not closed.
     * Otherwise every step below is collective in OTF2: every rank makes
     * each call, whatever failed before, and the outcome is agreed on at
     * the end.
     */
    st = close_check(tr, trace_drain(tr), "events", st, err);
    if ((st = rt_mpi_agree(tr->comm, st, err)) != CM_OK)
        goto fail;
    st = close_check(tr, trace_close_events(tr, &events, &flushes), "events", st, err);
    if (ins__sync_offset(tr->comm, &tr->off1) != 0 && st == CM_OK)
        st = CM_ERR(err, CM_ERR_MPI, "clock offset measurement failed");
    ins__clock_pair(&tr->clk1);
    rate = ins__clock_rate(&tr->clk0, &tr->clk1);
    MPI_Bcast(&rate, 1, MPI_DOUBLE, 0, tr->comm);   /* one resolution: rank 0's */
    st = close_check(tr, trace_write_locals(tr), "local definitions", st, err);
    st = close_check(tr, trace_finish_defs(tr, rate), "global definitions", st, err);
    st = close_check(tr, OTF2_Archive_Close(tr->ar), "closing the archive", st, err);
    st = rt_mpi_agree(tr->comm, st, err);
    if (st == CM_OK && tr->rank == 0)
        rc = ins__fs_commit(tr->dir, tr->partial, msg, sizeof(msg));
    if (st == CM_OK) {
        MPI_Bcast(&rc, 1, MPI_INT, 0, tr->comm);
        if (rc != 0) {
            MPI_Bcast(msg, sizeof(msg), MPI_CHAR, 0, tr->comm);
            st = CM_ERR(err, CM_ERR_IO, "%s%s", tr->rank == 0 ? "" : "rank 0: ", msg);
        } else {
            ins__signals_done();
        }
    }
fail:
    if (st != CM_OK) {
        MPI_Barrier(tr->comm);
        if (tr->rank == 0 && ins__fs_remove_tree(tr->partial) != 0)
            fprintf(stderr, "paptree: rank 0: cannot remove '%s': %s\n", tr->partial,
                    strerror(errno));
    }
    ins__signals_disarm();
    if (st == CM_OK)
        trace_summary(tr, events, flushes, rate, sum);
    trace_free(tr);
    return st;
}
