/*
 * mpi_trace.c - the life of an application trace (ins_mpi.h): open, the
 * threads' locations, recording, the observer, abandon, close.
 *
 * Recording is the profiling library's common path, so it costs a
 * thread-local load and compare (is this thread's location of this
 * trace?), a compare against the buffer's end, and the record's stores:
 * a call is one 80-byte record of what ins_mpi_call_t says, its datatype
 * and op reduced to small ids by a few pointer compares (mpi_defs.c); its
 * strings are made when the buffer is written (mpi_write.c).  A thread's
 * first record makes its location under the trace's lock (and touches its
 * buffer's pages then, not inside later calls).  A full buffer is written
 * to OTF2 on its thread (a flush) and recording goes on.
 *
 * Every other step is the tree trace's: the directory is checked by rank 0
 * (fs.c), the archive is written to "<dir>.partial" and renamed into place
 * by rank 0 when every rank wrote its part, the clock and its offsets to
 * rank 0 are measured at open and at close (clock.c, sync.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "instrument/ins_mpi_int.h"
#include "runtime/api/rt_exec.h"   /* rt_mpi_agree */

/* Which trace this thread's location belongs to: traces are numbered from 1. */
static uint64_t mpi_gen;
static __thread struct {
    uint64_t       gen;
    ins_mpi_loc_t *loc;
} mpi_tls;

uint64_t ins_mpi_now(void)
{
    return ins__clock_now();
}

/* ---- locations --------------------------------------------------------------- */

static void loc_free(ins_mpi_loc_t *loc)
{
    if (loc == NULL)
        return;
    free(loc->buf);
    free(loc->pend);
    if (loc->attrs != NULL)
        OTF2_AttributeList_Delete(loc->attrs);
    free(loc);
}

/* A new location for the calling thread, under tr->lock; NULL if none can be had. */
static ins_mpi_loc_t *loc_create(ins_mpi_t *tr)
{
    uint32_t i = tr->nloc;
    size_t bytes = tr->mem_left / 2 > INS_BUF_MIN ? tr->mem_left / 2 : INS_BUF_MIN;
    ins_mpi_loc_t *loc;

    if (i >= INS_MPI_MAX_LOCS || (loc = aligned_alloc(64, sizeof(*loc))) == NULL)
        return NULL;
    memset(loc, 0, sizeof(*loc));
    loc->tr = tr;
    loc->index = i;
    loc->id = ins__loc_id(tr->rank, i);
    loc->cap = bytes / sizeof(ins_mpi_rec_t) < UINT32_MAX
               ? (uint32_t)(bytes / sizeof(ins_mpi_rec_t)) : UINT32_MAX;
    loc->buf = malloc((size_t)loc->cap * sizeof(ins_mpi_rec_t));
    tr->files[2 * i] = ins__fs_fmt("%s/%s/%llu.evt", tr->partial, INS_ARCHIVE_NAME,
                                   (unsigned long long)loc->id);
    tr->files[2 * i + 1] = ins__fs_fmt("%s/%s/%llu.def", tr->partial, INS_ARCHIVE_NAME,
                                       (unsigned long long)loc->id);
    if (loc->buf == NULL || tr->files[2 * i] == NULL || tr->files[2 * i + 1] == NULL) {
        free(tr->files[2 * i]);
        free(tr->files[2 * i + 1]);
        tr->files[2 * i] = tr->files[2 * i + 1] = NULL;
        loc_free(loc);
        return NULL;
    }
    ins__touch_pages(loc->buf, (size_t)loc->cap * sizeof(ins_mpi_rec_t));
    tr->mem_left -= bytes < tr->mem_left ? bytes : tr->mem_left;
    tr->locs[i] = loc;
    /* Published last: ins_mpi_abandon (a signal handler) reads nloc and the files. */
    __atomic_store_n(&tr->nloc, i + 1, __ATOMIC_RELEASE);
    return loc;
}

/* The calling thread's location in tr, made on its first record. */
static __attribute__((noinline)) ins_mpi_loc_t *loc_attach(ins_mpi_t *tr)
{
    ins_mpi_loc_t *loc;

    pthread_mutex_lock(&tr->lock);
    loc = loc_create(tr);
    pthread_mutex_unlock(&tr->lock);
    if (loc == NULL)
        return NULL;
    mpi_tls.gen = tr->gen;
    mpi_tls.loc = loc;
    return loc;
}

static inline ins_mpi_loc_t *loc_get(ins_mpi_t *tr)
{
    if (__builtin_expect(mpi_tls.gen == tr->gen, 1))
        return mpi_tls.loc;
    return loc_attach(tr);
}

static __attribute__((noinline)) void loc_flush(ins_mpi_loc_t *loc)
{
    ins__mpi_write(loc);
    __atomic_store_n(&loc->flushes, loc->flushes + 1, __ATOMIC_RELAXED);
}

/* The next record of the calling thread, or NULL (counted) if it has no location. */
static inline ins_mpi_rec_t *rec_next(ins_mpi_t *tr, ins_mpi_loc_t *loc)
{
    if (__builtin_expect(loc == NULL, 0)) {
        __atomic_add_fetch(&tr->dropped, 1, __ATOMIC_RELAXED);
        return NULL;
    }
    if (__builtin_expect(loc->n == loc->cap, 0))
        loc_flush(loc);
    return &loc->buf[loc->n++];
}

/* ---- recording ----------------------------------------------------------------- */

/*
 * An auto rule's choice, as records before its call's (ins_mpi_int.h).  A
 * choice that does not fit (more candidates than the schema has attributes
 * for, an index out of range) is recorded with no candidates and refused
 * when written.
 */
static void record_choice(ins_mpi_t *tr, ins_mpi_loc_t *loc, const ins_mpi_call_t *call)
{
    const rt_auto_choice_t *c = call->auto_choice;
    uint32_t ncand = c->ncand <= INS_AUTO_CAND_MAX ? c->ncand : 0;
    ins_mpi_rec_t *r;

    if (c->chosen < 0 || (uint32_t)c->chosen >= ncand || (uint32_t)c->reason >= INS_NREASON)
        ncand = 0;
    if ((r = rec_next(tr, loc)) == NULL)
        return;
    memset(r, 0, sizeof(*r));
    r->enter = (uint64_t)c->spread_ns;
    r->leave = c->skipped;
    r->callsite = (uint64_t)(ncand ? (uint32_t)c->chosen : 0) | (uint64_t)c->reason << 8 |
                  (uint64_t)ncand << 16;
    r->func = (uint8_t)INS_MPI_REC_CHOICE;
    for (uint32_t i = 0; i < ncand; i++) {
        if ((r = rec_next(tr, loc)) == NULL)
            return;
        memset(r, 0, sizeof(*r));
        r->algo = rt_auto_cand_name(call->auto_a, (int32_t)i);
        r->count = (int64_t)i;
        r->sent = (uint64_t)c->pred_ns[i];
        r->recv = (uint64_t)c->corr_ns[i];
        r->func = (uint8_t)INS_MPI_REC_CAND;
    }
    __atomic_store_n(&tr->auto_defs, 1, __ATOMIC_RELAXED);
}

void ins_mpi_record(ins_mpi_t *tr, const ins_mpi_call_t *call)
{
    ins_mpi_loc_t *loc = loc_get(tr);
    ins_mpi_rec_t *r;

    if (call->auto_choice != NULL && call->auto_a != NULL && loc != NULL)
        record_choice(tr, loc, call);
    if ((r = rec_next(tr, loc)) == NULL)
        return;
    r->enter = call->enter;
    r->leave = call->leave;
    r->callsite = call->callsite;
    r->sent = call->bytes_sent;
    r->recv = call->bytes_recv;
    r->count = call->count;
    r->request = call->request;
    r->algo = call->algo;
    r->comm = call->comm;
    r->root = call->root;
    r->func = (uint8_t)((unsigned)call->func < INS_MPI_NFUNCS ? call->func : INS_MPI_NFUNCS);
    r->fallback = (uint8_t)call->fallback;
    r->dtype = ins__mpi_dtype_id(tr, call->dtype);
    r->op = ins__mpi_op_id(call->op);
    r->completed = (uint8_t)call->completed;
}

/* rt_algo_observer_t.msg: loc is the thread's location, instance the call's comm. */
static void observe_msg(void *locp, rt_msg_t what, unsigned instance, int32_t peer,
                        int32_t round, uint32_t step, size_t bytes)
{
    ins_mpi_loc_t *loc = locp;
    uint64_t ts = ins__clock_now();
    ins_mpi_rec_t *r = rec_next(loc->tr, loc);

    r->enter = ts;
    r->leave = (uint64_t)step << 32 | (uint32_t)round;
    r->callsite = (uint32_t)peer;
    r->sent = bytes;
    r->comm = instance;
    r->func = (uint8_t)(INS_MPI_REC_MSG + what);
}

/* The observer of a thread that has no location: its messages are counted as lost. */
static void observe_drop(void *trp, rt_msg_t what, unsigned instance, int32_t peer,
                         int32_t round, uint32_t step, size_t bytes)
{
    ins_mpi_t *tr = trp;

    (void)what, (void)instance, (void)peer, (void)round, (void)step, (void)bytes;
    __atomic_add_fetch(&tr->dropped, 1, __ATOMIC_RELAXED);
}

void ins_mpi_observer(ins_mpi_t *tr, uint32_t comm, struct rt_algo_observer *obs)
{
    ins_mpi_loc_t *loc = loc_get(tr);

    obs->msg = loc != NULL ? observe_msg : observe_drop;
    obs->loc = loc != NULL ? (void *)loc : (void *)tr;
    obs->instance = comm;
}

/* ---- abandon ----------------------------------------------------------------------- */

void ins_mpi_abandon(ins_mpi_t *tr)
{
    uint32_t n;

    if (tr == NULL)
        return;
    n = __atomic_load_n(&tr->nloc, __ATOMIC_ACQUIRE);
    ins__signals_unlink(tr->files, 2 * (size_t)n);
    ins__signals_unlink(tr->tail, tr->ntail);
}

/* ---- open ----------------------------------------------------------------------- */

static void mpi_free(ins_mpi_t *tr)
{
    if (tr == NULL)
        return;
    for (uint32_t i = 0; tr->locs != NULL && i < tr->nloc; i++)
        loc_free(tr->locs[i]);
    for (uint32_t i = 0; tr->files != NULL && i < 2 * tr->nloc; i++)
        free(tr->files[i]);
    for (uint32_t i = 0; i < tr->ntail; i++)
        free(tr->tail[i]);
    for (uint32_t i = 0; i < tr->ntnames; i++)
        free(tr->tnames[i]);
    for (uint32_t i = 0; i < tr->ncomms; i++) {
        free(tr->comms[i].ranks);
        free(tr->comms[i].name);
    }
    ins__mpi_strs_cleanup(&tr->strs);
    pthread_mutex_destroy(&tr->lock);
    free(tr->comms);
    free(tr->gcomms);
    free(tr->locs);
    free(tr->files);
    free(tr->dir);
    free(tr->partial);
    free(tr->command);
    free(tr->rules);
    if (tr->comm != MPI_COMM_NULL)
        MPI_Comm_free(&tr->comm);
    free(tr);
}

/* The fields from the options, checked, and the lists; local. */
static cm_status_t mpi_init(ins_mpi_t *tr, const ins_mpi_opts_t *opts, cm_err_t *err)
{
    const char *rules = opts->rules != NULL ? opts->rules : getenv("PAPTREE_ALGO");
    const char *dir = opts->dir != NULL ? opts->dir : "";

    tr->dir = strdup(dir);
    tr->partial = ins__fs_fmt("%s%s", dir, INS_PARTIAL_SUFFIX);
    tr->command = strdup(opts->command != NULL ? opts->command : "");
    tr->rules = strdup(rules != NULL ? rules : "");
    tr->mem = tr->mem_left = opts->mem != 0 ? opts->mem : INS_MPI_MEM_DEFAULT;
    tr->locs = calloc(INS_MPI_MAX_LOCS, sizeof(*tr->locs));
    tr->files = calloc(2 * INS_MPI_MAX_LOCS + 1, sizeof(*tr->files));
    if (tr->rank == 0) {
        tr->tail[tr->ntail++] = ins__fs_fmt("%s/%s", tr->partial, INS_ANCHOR_FILE);
        tr->tail[tr->ntail++] = ins__fs_fmt("%s/%s.def", tr->partial, INS_ARCHIVE_NAME);
    }
    tr->tail[tr->ntail++] = ins__fs_fmt("%s/%s", tr->partial, INS_ARCHIVE_NAME);
    tr->tail[tr->ntail++] = ins__fs_fmt("%s", tr->partial);
    for (uint32_t i = 0; i < tr->ntail; i++)
        if (tr->tail[i] == NULL)
            return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    if (tr->dir == NULL || tr->partial == NULL || tr->command == NULL || tr->rules == NULL ||
        tr->locs == NULL || tr->files == NULL || tr->strs.arena == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    if (dir[0] == '\0')
        return CM_ERR(err, CM_ERR_INVALID, "no trace directory given");
    if ((uint64_t)tr->size > INS_MPI_STR_RANKS)
        return CM_ERR(err, CM_ERR_RANGE, "trace: %d ranks; at most %u can be traced",
                      tr->size, (unsigned)INS_MPI_STR_RANKS);
    if (tr->mem < INS_BUF_MIN)
        return CM_ERR(err, CM_ERR_RANGE, "trace memory %zu bytes is too small: at least %zu "
                      "(%zu KiB)", tr->mem, INS_BUF_MIN, INS_BUF_MIN >> 10);
    return CM_OK;
}

/* Collective: the clock, the archive with its properties, its event files. */
static cm_status_t mpi_open_archive(ins_mpi_t *tr, cm_err_t *err)
{
    char ranks[32];
    const ins_prop_t props[] = {
        { INS_PROP_KIND, INS_KIND_MPI },
        { INS_PROP_VERSION, INS_SCHEMA_VERSION },
        { INS_PROP_RULES, tr->rules },
        { INS_PROP_RANKS, ranks },
        { INS_PROP_COMMAND, tr->command },
        { INS_PROP_CLOCK, NULL },
    };
    ins_prop_t p[sizeof(props) / sizeof(props[0])];
    cm_status_t st;

    ins__clock_choose(tr->comm);
    memcpy(p, props, sizeof(p));
    p[5].value = ins__clock_tsc ? INS_CLOCK_TSC : INS_CLOCK_MONO_RAW;
    snprintf(ranks, sizeof(ranks), "%d", tr->size);
    st = ins__archive_create(tr->partial, tr->comm, &tr->ar, err);
    if (st == CM_OK)
        st = ins__archive_set_props(tr->ar, p, sizeof(p) / sizeof(p[0]), err);
    if ((st = rt_mpi_agree(tr->comm, st, err)) == CM_OK)
        st = rt_mpi_agree(tr->comm, ins__archive_open_evt_files(tr->ar, err), err);
    if (st != CM_OK) {
        if (tr->ar != NULL)
            OTF2_Archive_Close(tr->ar);
        tr->ar = NULL;
        ins_mpi_abandon(tr);
        ins__fs_discard_all(tr->comm, tr->partial);
    }
    return st;
}

cm_status_t ins_mpi_open(const ins_mpi_opts_t *opts, MPI_Comm comm, ins_mpi_t **tr_p,
                         cm_err_t *err)
{
    ins_mpi_t *tr = calloc(1, sizeof(*tr));
    cm_status_t st;

    *tr_p = NULL;
    if (tr == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    pthread_mutex_init(&tr->lock, NULL);
    ins__mpi_strs_init(&tr->strs);
    tr->comm = MPI_COMM_NULL;
    /* Its own duplicate: the clock offsets' messages never meet the library's. */
    if (MPI_Comm_dup(comm, &tr->comm) != MPI_SUCCESS) {
        mpi_free(tr);
        return CM_ERR(err, CM_ERR_MPI, "MPI_Comm_dup failed");
    }
    MPI_Comm_rank(tr->comm, &tr->rank);
    MPI_Comm_size(tr->comm, &tr->size);
    ins__archive_register_errors();
    st = rt_mpi_agree(tr->comm, mpi_init(tr, opts, err), err);
    if (st == CM_OK)
        st = ins__fs_prepare_all(tr->comm, tr->dir, tr->partial, opts->force, err);
    if (st == CM_OK)
        st = mpi_open_archive(tr, err);
    if (st == CM_OK) {
        tr->gen = __atomic_add_fetch(&mpi_gen, 1, __ATOMIC_RELAXED);
        if (ins__sync_offset(tr->comm, &tr->off0) != 0)
            st = CM_ERR(err, CM_ERR_MPI, "clock offset measurement failed");
        /* The opening thread is location 0 (the COMM_LOCATIONS group's member). */
        else if (loc_attach(tr) == NULL)
            st = CM_ERR(err, CM_ERR_NOMEM, "out of memory for trace buffers (%zu bytes)",
                        tr->mem);
        st = rt_mpi_agree(tr->comm, st, err);
    }
    if (st != CM_OK) {
        if (tr->ar != NULL) {
            OTF2_Archive_Close(tr->ar);
            tr->ar = NULL;
            ins_mpi_abandon(tr);
            ins__fs_discard_all(tr->comm, tr->partial);
        }
        mpi_free(tr);
        return st;
    }
    ins__clock_pair(&tr->clk0);
    *tr_p = tr;
    return CM_OK;
}

/* ---- close ----------------------------------------------------------------------- */

/* Every location's event writer closed; the first error (counts checked). */
static OTF2_ErrorCode close_writers(ins_mpi_t *tr)
{
    OTF2_ErrorCode rc = OTF2_SUCCESS, rc2;

    for (uint32_t i = 0; i < tr->nloc; i++) {
        ins_mpi_loc_t *loc = tr->locs[i];

        rc2 = ins__archive_close_writer(tr->ar, loc->ew, loc->written);
        rc = rc != OTF2_SUCCESS ? rc : rc2;
    }
    rc2 = OTF2_Archive_CloseEvtFiles(tr->ar);
    return rc != OTF2_SUCCESS ? rc : rc2;
}

/* Collective, once every rank drained its events: the rest of the archive. */
static cm_status_t mpi_write(ins_mpi_t *tr, cm_err_t *err)
{
    OTF2_LocationRef *ids = calloc((size_t)tr->nloc + 1, sizeof(*ids));
    OTF2_IdMap *map = NULL;
    OTF2_ErrorCode rc;
    double rate;
    cm_status_t st;

    st = ins__archive_check(tr->dir, close_writers(tr), "events", CM_OK, err);
    if (ins__sync_offset(tr->comm, &tr->off1) != 0 && st == CM_OK)
        st = CM_ERR(err, CM_ERR_MPI, "clock offset measurement failed");
    ins__clock_pair(&tr->clk1);
    rate = ins__clock_rate(&tr->clk0, &tr->clk1);
    MPI_Bcast(&rate, 1, MPI_DOUBLE, 0, tr->comm);   /* one resolution: rank 0's */
    for (uint32_t i = 0; ids != NULL && i < tr->nloc; i++)
        ids[i] = tr->locs[i]->id;
    /* the communicators' places in the global definitions, and each location's map to them */
    st = ins__archive_check(tr->dir, ins__mpi_comm_ids(tr), "communicator ids", st, err);
    /* no communicator, no table (OTF2 refuses an empty one when it reads it) */
    map = tr->ngcomms > 0 ? ins__mpi_comm_map(tr) : NULL;
    /* without its list or map this rank still takes part, and fails */
    rc = ins__defs_write_offsets(tr->ar, ids, ids != NULL ? tr->nloc : 0, &tr->off0, &tr->off1,
                                 map);
    st = ins__archive_check(tr->dir, ids == NULL || (map == NULL && tr->ngcomms > 0)
                            ? OTF2_ERROR_MEM_ALLOC_FAILED : rc, "local definitions", st, err);
    if (map != NULL)
        OTF2_IdMap_Free(map);
    free(ids);
    st = ins__archive_check(tr->dir, ins__mpi_defs_write(tr, rate), "global definitions", st,
                            err);
    st = ins__archive_check(tr->dir, OTF2_Archive_Close(tr->ar), "closing the archive", st,
                            err);
    tr->ar = NULL;
    return rt_mpi_agree(tr->comm, st, err);
}

cm_status_t ins_mpi_close(ins_mpi_t *tr, cm_err_t *err)
{
    uint64_t dropped = __atomic_load_n(&tr->dropped, __ATOMIC_RELAXED);
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    cm_status_t st = CM_OK;

    if (dropped != 0)
        st = CM_ERR(err, CM_ERR_NOMEM, "trace: %llu records of threads that got no trace "
                    "location (more than %u threads, or out of memory) were lost",
                    (unsigned long long)dropped, INS_MPI_MAX_LOCS);
    for (uint32_t i = 0; i < tr->nloc; i++) {
        ins__mpi_write(tr->locs[i]);
        ins__mpi_write_pending(tr->locs[i]);
        rc = rc != OTF2_SUCCESS ? rc : tr->locs[i]->failed;
    }
    st = ins__archive_check(tr->dir, rc, "events", st, err);
    /* As the tree trace: after a failed event write OTF2 is left alone (trace.c). */
    if ((st = rt_mpi_agree(tr->comm, st, err)) == CM_OK) {
        st = mpi_write(tr, err);
    } else {
        ins__archive_leave_open(tr->ar);
        tr->ar = NULL;
    }
    if (st == CM_OK)
        st = ins__fs_commit_all(tr->comm, tr->dir, tr->partial, err);
    if (st != CM_OK) {
        ins_mpi_abandon(tr);
        ins__fs_discard_all(tr->comm, tr->partial);
    }
    mpi_free(tr);
    return st;
}
