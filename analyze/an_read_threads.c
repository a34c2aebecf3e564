/*
 * an_read_threads.c - a tree trace's events read by several threads, each
 * over a share of the locations, and merged back into time order.
 *
 * OTF2's global event reader is single-threaded: it decodes every event of
 * every location in one thread, and decoding (the attribute lists above all)
 * is most of what reading costs.  An OTF2_Reader is not shared between
 * threads, but nothing stops each thread from opening the archive with a
 * reader of its own and selecting only some locations: then each reads its
 * share in time order (with the clock offsets applied, from its locations'
 * local definitions), and the caller merges the shares by (timestamp,
 * location).  Locations are dealt to the threads by their event counts, the
 * largest first to the least loaded.
 *
 * Each thread fills blocks of RD_BLOCK decoded events (rd_ev_t) in a ring of
 * RD_QUEUE blocks; the caller takes them in order and gives them back.  A
 * thread waits (a condition variable, no spinning) while its ring is full.
 * Memory: nthreads x RD_QUEUE x RD_BLOCK events of 64 bytes (1 MiB a
 * thread), whatever the trace's length.
 *
 * --ops A:B: a thread moves each location's reader to its first visit of an
 * operation >= A by a binary search over event positions (seek_first_op:
 * OTF2 seeks by position, not by operation), drops what it still meets
 * before A, stops reading a location at its first visit after B, and stops
 * altogether once all its locations are past B: the events outside A..B
 * are skipped, not read and dropped, but for a few blocks at each end.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <otf2/otf2.h>

#include "analyze/an_read_int.h"
#include "instrument/api/ins_schema.h"

#define RD_BLOCK 4096
#define RD_QUEUE 4

typedef struct rd_block {
    rd_ev_t ev[RD_BLOCK];
    int     n;
} rd_block_t;

/* A location's state in its thread, for --ops. */
typedef struct rd_locpart {
    int      idx;             /* location index in the definitions */
    int      depth;           /* open visits */
    int      past;            /* at an operation after B: nothing more is read */
    uint64_t cur;             /* the operation of its outermost open visit */
} rd_locpart_t;

typedef struct rd_stream {
    rd_par_t       *par;
    pthread_t       th;
    int             started;
    rd_locpart_t   *locs;
    int             nlocs, npast;
    uint64_t        load;     /* events of its locations */
    /* the ring: blocks [head, head + count) are the caller's */
    pthread_mutex_t mu;
    pthread_cond_t  cv;
    rd_block_t      blocks[RD_QUEUE];
    int             head, count;
    int             done;     /* the thread has published its last block */
    int             have_first;
    uint64_t        first_t;  /* its earliest timestamp */
    cm_status_t     st;       /* its error, if any */
    cm_err_t        err;
    uint64_t        read_pub; /* events decoded, as of the last block published */
    /* the thread's side */
    rd_block_t     *fill;     /* the block being filled */
    uint64_t        read;     /* events decoded */
    int             seen;     /* an event decoded (or probed): t0 is the earliest */
    uint64_t        t0;
    int             stop;     /* stop reading (past B, or the caller closes) */
    OTF2_LocationRef last_id; /* lookup cache */
    rd_locpart_t   *last_lp;
    int             last_idx;
    /* the caller's side */
    int             pos;      /* next event in blocks[head] */
    int             avail;    /* blocks known to be the caller's (<= count) */
} rd_stream_t;

struct rd_par {
    an_reader_t  *r;
    rd_part_t     part;
    rd_stream_t  *s;
    int           n;
    int           abort;      /* the caller stops early: the threads end (atomic) */
    uint64_t      first_t;
};

/* ---- the reading thread --------------------------------------------- */

static int aborted(const rd_par_t *p)
{
    return __atomic_load_n(&p->abort, __ATOMIC_ACQUIRE);
}

/* Under s->mu: the block being filled becomes the caller's (if it has events). */
static void publish_locked(rd_stream_t *s)
{
    if (!s->have_first && s->seen) {
        s->have_first = 1;
        s->first_t = s->t0;
    }
    s->read_pub = s->read;
    if (s->fill->n > 0) {
        s->count++;
        pthread_cond_broadcast(&s->cv);
    }
}

/* Publishes the block being filled; waits for a free one.  0: stop. */
static int publish(rd_stream_t *s)
{
    int more;

    pthread_mutex_lock(&s->mu);
    publish_locked(s);
    while (s->count == RD_QUEUE && !aborted(s->par))
        pthread_cond_wait(&s->cv, &s->mu);
    more = !aborted(s->par);
    if (more) {
        s->fill = &s->blocks[(s->head + s->count) % RD_QUEUE];
        s->fill->n = 0;
    } else {
        s->fill = NULL;       /* the ring may be full: nothing more is filled */
        s->stop = 1;
    }
    pthread_mutex_unlock(&s->mu);
    return more;
}

/* The slot for the next event, or NULL when reading must stop. */
static rd_ev_t *slot(rd_stream_t *s)
{
    if (s->fill->n == RD_BLOCK && !publish(s))
        return NULL;
    return &s->fill->ev[s->fill->n];
}

static rd_locpart_t *locpart(rd_stream_t *s, OTF2_LocationRef id, int *idx)
{
    const an_defs_t *d = s->par->r->defs;

    if (s->last_lp != NULL && s->last_id == id) {
        *idx = s->last_idx;
        return s->last_lp;
    }
    *idx = an_defs_loc_index(d, id);
    for (int i = 0; *idx >= 0 && i < s->nlocs; i++)
        if (s->locs[i].idx == *idx) {
            s->last_id = id;
            s->last_idx = *idx;
            return s->last_lp = &s->locs[i];
        }
    return NULL;
}

/*
 * One event: decoded into the next slot unless --ops drops it.  Enter and
 * Leave move the location's depth; an Enter at depth 0 starts an operation.
 */
static OTF2_CallbackCode put(rd_stream_t *s, OTF2_LocationRef id, OTF2_TimeStamp t,
                             rd_ev_kind_t kind, OTF2_AttributeList *al, rd_ev_t **ep)
{
    const an_reader_t *r = s->par->r;
    rd_locpart_t *lp;
    rd_ev_t *e;
    int idx;
    uint64_t op = 0;

    *ep = NULL;
    s->read++;
    if (!s->seen || t < s->t0) {
        s->seen = 1;
        s->t0 = t;
    }
    if (s->stop)
        return OTF2_CALLBACK_INTERRUPT;
    lp = locpart(s, id, &idx);
    if (lp != NULL && (kind == RD_EV_ENTER || kind == RD_EV_LEAVE) && al != NULL)
        OTF2_AttributeList_GetUint64(al, r->attr_op, &op);
    if (lp != NULL && (s->par->part.op_first > 0 || s->par->part.op_last < UINT64_MAX)) {
        if (lp->past)
            return OTF2_CALLBACK_SUCCESS;
        if (kind == RD_EV_ENTER && lp->depth++ == 0) {
            lp->cur = op;
            if (op > s->par->part.op_last) {
                lp->past = 1;
                lp->depth = 0;
                if (++s->npast == s->nlocs) {
                    s->stop = 1;
                    return OTF2_CALLBACK_INTERRUPT;
                }
                return OTF2_CALLBACK_SUCCESS;
            }
        } else if (kind == RD_EV_LEAVE && lp->depth > 0) {
            lp->depth--;
        }
        if (lp->cur < s->par->part.op_first)
            return OTF2_CALLBACK_SUCCESS;
    }
    if ((e = slot(s)) == NULL)
        return OTF2_CALLBACK_INTERRUPT;
    memset(e, 0, sizeof(*e));
    e->t = t;
    e->kind = (uint8_t)kind;
    e->loc = lp != NULL ? idx : -1;
    if (lp == NULL)
        e->op = id;
    if ((kind == RD_EV_ENTER || kind == RD_EV_LEAVE) && al != NULL) {
        e->op = op;
        if (OTF2_AttributeList_TestAttributeByID(al, r->attr_op))
            e->have |= RD_HAVE_OP;
        if (OTF2_AttributeList_GetUint64(al, r->attr_bytes, &e->bytes) == OTF2_SUCCESS)
            e->have |= RD_HAVE_BYTES;
    }
    s->fill->n++;
    *ep = e;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode put_region(void *ud, OTF2_LocationRef id, OTF2_TimeStamp t,
                                    rd_ev_kind_t kind, OTF2_AttributeList *al,
                                    OTF2_RegionRef region)
{
    rd_ev_t *e;
    OTF2_CallbackCode rc = put(ud, id, t, kind, al, &e);

    if (e != NULL)
        e->a = region;
    return rc;
}

static OTF2_CallbackCode on_enter(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, OTF2_RegionRef region)
{
    return put_region(ud, id, t, RD_EV_ENTER, al, region);
}

static OTF2_CallbackCode on_leave(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, OTF2_RegionRef region)
{
    return put_region(ud, id, t, RD_EV_LEAVE, al, region);
}

static OTF2_CallbackCode put_mpi(void *ud, OTF2_LocationRef id, OTF2_TimeStamp t,
                                 rd_ev_kind_t kind, uint32_t peer, OTF2_CommRef comm,
                                 int have_comm, uint32_t tag, uint64_t len, uint64_t req)
{
    rd_ev_t *e;
    OTF2_CallbackCode rc = put(ud, id, t, kind, NULL, &e);

    if (e != NULL) {
        e->a = peer;
        e->b = comm;
        e->have_comm = (uint8_t)have_comm;
        e->tag = tag;
        e->bytes = len;
        e->op = req;
    }
    return rc;
}

static OTF2_CallbackCode on_coll_begin(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                       OTF2_AttributeList *al)
{
    (void)al;
    return put_mpi(ud, id, t, RD_EV_COLL_BEGIN, 0, 0, 0, 0, 0, 0);
}

static OTF2_CallbackCode on_coll_end(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                     OTF2_AttributeList *al, OTF2_CollectiveOp op,
                                     OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                     uint64_t received)
{
    (void)al, (void)op, (void)root, (void)sent, (void)received;
    return put_mpi(ud, id, t, RD_EV_COLL_END, 0, comm, 1, 0, 0, 0);
}

static OTF2_CallbackCode on_isend(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, uint32_t receiver, OTF2_CommRef comm,
                                  uint32_t tag, uint64_t len, uint64_t req)
{
    (void)al;
    return put_mpi(ud, id, t, RD_EV_ISEND, receiver, comm, 1, tag, len, req);
}

static OTF2_CallbackCode on_isend_done(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                       OTF2_AttributeList *al, uint64_t req)
{
    (void)al;
    return put_mpi(ud, id, t, RD_EV_ISEND_DONE, 0, 0, 0, 0, 0, req);
}

static OTF2_CallbackCode on_irecv_post(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                       OTF2_AttributeList *al, uint64_t req)
{
    (void)al;
    return put_mpi(ud, id, t, RD_EV_IRECV_POST, 0, 0, 0, 0, 0, req);
}

static OTF2_CallbackCode on_irecv(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, uint32_t sender, OTF2_CommRef comm,
                                  uint32_t tag, uint64_t len, uint64_t req)
{
    (void)al;
    return put_mpi(ud, id, t, RD_EV_IRECV, sender, comm, 1, tag, len, req);
}

/* A parameter event keeps a copy of its attributes: the auto record has many. */
static OTF2_CallbackCode on_param_string(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                         OTF2_AttributeList *al, OTF2_ParameterRef param,
                                         OTF2_StringRef value)
{
    rd_stream_t *s = ud;
    rd_ev_t *e;
    OTF2_CallbackCode rc = put(s, id, t, RD_EV_PARAM, NULL, &e);
    uint32_t n = al != NULL ? OTF2_AttributeList_GetNumberOfElements(al) : 0;

    if (e == NULL)
        return rc;
    e->a = param;
    e->b = value;
    if (al == NULL)
        return rc;
    if ((e->al = OTF2_AttributeList_New()) == NULL) {
        s->st = CM_ERR(&s->err, CM_ERR_NOMEM, "out of memory");
        return OTF2_CALLBACK_INTERRUPT;
    }
    for (uint32_t i = 0; i < n; i++) {
        OTF2_AttributeRef ref;
        OTF2_Type type;
        OTF2_AttributeValue v;

        if (OTF2_AttributeList_GetAttributeByIndex(al, i, &ref, &type, &v) == OTF2_SUCCESS)
            OTF2_AttributeList_AddAttribute(e->al, ref, type, v);
    }
    return rc;
}

static OTF2_CallbackCode on_other(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al)
{
    rd_ev_t *e;

    (void)al;
    return put(ud, id, t, RD_EV_OTHER, NULL, &e);
}

static OTF2_CallbackCode on_flush(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, OTF2_TimeStamp stop)
{
    (void)stop;
    return on_other(id, t, ud, al);
}

static void set_callbacks(OTF2_GlobalEvtReaderCallbacks *cb)
{
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, on_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, on_leave);
    OTF2_GlobalEvtReaderCallbacks_SetBufferFlushCallback(cb, on_flush);
    OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, on_coll_begin);
    OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, on_coll_end);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(cb, on_isend);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, on_isend_done);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, on_irecv_post);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(cb, on_irecv);
    OTF2_GlobalEvtReaderCallbacks_SetParameterStringCallback(cb, on_param_string);
    OTF2_GlobalEvtReaderCallbacks_SetUnknownCallback(cb, on_other);
}

/* ---- --ops A:B: seeking to A ------------------------------------------ */

/* What a probe of one location's local reader saw: its first Enter or Leave. */
typedef struct rd_probe {
    uint32_t attr_op;
    int      found;
    uint64_t op;
    OTF2_TimeStamp t;
} rd_probe_t;

static OTF2_CallbackCode probe_event(void *ud, OTF2_TimeStamp t, OTF2_AttributeList *al)
{
    rd_probe_t *pr = ud;

    pr->found = 1;
    pr->t = t;
    pr->op = 0;
    if (al != NULL)
        OTF2_AttributeList_GetUint64(al, pr->attr_op, &pr->op);
    return OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode probe_enter(OTF2_LocationRef id, OTF2_TimeStamp t, uint64_t pos,
                                     void *ud, OTF2_AttributeList *al, OTF2_RegionRef region)
{
    (void)id, (void)pos, (void)region;
    return probe_event(ud, t, al);
}

static OTF2_CallbackCode probe_leave(OTF2_LocationRef id, OTF2_TimeStamp t, uint64_t pos,
                                     void *ud, OTF2_AttributeList *al, OTF2_RegionRef region)
{
    (void)id, (void)pos, (void)region;
    return probe_event(ud, t, al);
}

/* The first Enter or Leave at position pos (1-based) or after; 0 if none. */
static int probe(OTF2_EvtReader *er, rd_probe_t *pr, uint64_t pos)
{
    uint64_t n;

    pr->found = 0;
    if (OTF2_EvtReader_Seek(er, pos) != OTF2_SUCCESS)
        return 0;
    /* events without a callback (MPI, parameters) are read past */
    for (int k = 0; k < 64 && !pr->found; k++) {
        OTF2_ErrorCode rc = OTF2_EvtReader_ReadEvents(er, 1, &n);

        if (n == 0 || (rc != OTF2_SUCCESS && rc != OTF2_ERROR_INTERRUPTED_BY_CALLBACK))
            break;
    }
    return pr->found;
}

/*
 * Positions the location's reader at its first visit of an operation >= A:
 * a location's events belong to non-decreasing operations (its visits nest,
 * one operation at a time), so a binary search over event positions, each
 * probe a seek (OTF2 jumps to the chunk, then reads to the position) and
 * the next Enter or Leave, finds it without decoding the events before it.
 * The location's first timestamp goes to *first (the trace's time line
 * starts at the earliest).  A location with no operation >= A is left at
 * its end.  Returns 0 if a probe failed (then the location is read whole).
 */
static int seek_first_op(const an_reader_t *r, OTF2_EvtReader *er, uint64_t nevents,
                         uint64_t op_first, OTF2_TimeStamp *first)
{
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
    rd_probe_t pr = { r->attr_op, 0, 0, 0 };
    uint64_t lo = 1, hi = nevents + 1;    /* the answer is in [lo, hi] */
    int ok = 0;

    if (cb == NULL)
        return 0;
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, probe_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, probe_leave);
    if (OTF2_EvtReader_SetCallbacks(er, cb, &pr) == OTF2_SUCCESS && probe(er, &pr, 1)) {
        *first = pr.t;
        while (lo < hi) {
            uint64_t mid = lo + (hi - lo) / 2;

            if (probe(er, &pr, mid) && pr.op < op_first)
                lo = mid + 1;
            else
                hi = mid;
        }
        /* lo: the first position whose next Enter/Leave has op >= A (or the end) */
        ok = lo > nevents || OTF2_EvtReader_Seek(er, lo) == OTF2_SUCCESS;
        if (lo > nevents && ok)
            ok = OTF2_EvtReader_Seek(er, nevents) == OTF2_SUCCESS;
    }
    OTF2_EvtReaderCallbacks_Delete(cb);
    return ok;
}

/* Opens the archive for this thread's locations: definitions, clock offsets. */
static cm_status_t open_share(rd_stream_t *s, OTF2_Reader **rd_p)
{
    const an_reader_t *r = s->par->r;
    const an_defs_t *d = r->defs;
    OTF2_Reader *rd;
    OTF2_GlobalDefReader *gdr;
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    uint64_t n;

    *rd_p = NULL;
    if ((rd = OTF2_Reader_Open(r->anchor)) == NULL)
        return CM_ERR_AT(&s->err, CM_ERR_IO, r->anchor, 0, 0, "cannot open the archive "
                         "again for a reading thread: %s", an__read_why(OTF2_ERROR_INVALID));
    *rd_p = rd;
    if (OTF2_Reader_SetSerialCollectiveCallbacks(rd) != OTF2_SUCCESS
        || (gdr = OTF2_Reader_GetGlobalDefReader(rd)) == NULL)
        rc = OTF2_ERROR_INVALID;
    else {
        rc = OTF2_Reader_ReadAllGlobalDefinitions(rd, gdr, &n);
        OTF2_Reader_CloseGlobalDefReader(rd, gdr);
    }
    for (int i = 0; rc == OTF2_SUCCESS && i < s->nlocs; i++)
        rc = OTF2_Reader_SelectLocation(rd, d->locs[s->locs[i].idx].id);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Reader_OpenDefFiles(rd);
    for (int i = 0; rc == OTF2_SUCCESS && i < s->nlocs; i++) {
        OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, d->locs[s->locs[i].idx].id);

        if (dr == NULL)
            continue;
        rc = OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
        OTF2_Reader_CloseDefReader(rd, dr);
    }
    if (rc == OTF2_SUCCESS)
        OTF2_Reader_CloseDefFiles(rd);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Reader_OpenEvtFiles(rd);
    for (int i = 0; rc == OTF2_SUCCESS && i < s->nlocs; i++) {
        const an_location_t *l = &d->locs[s->locs[i].idx];
        OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, l->id);
        OTF2_TimeStamp first = 0;

        if (er == NULL)
            rc = OTF2_ERROR_INVALID;
        else if (s->par->part.op_first > 0
                 && seek_first_op(r, er, l->events, s->par->part.op_first, &first)) {
            if (!s->seen || first < s->t0)
                s->t0 = first;
            s->seen = 1;
        }
    }
    if (rc != OTF2_SUCCESS)
        return CM_ERR_AT(&s->err, CM_ERR_IO, r->anchor, 0, 0, "cannot set up a reading "
                         "thread: %s", an__read_why(rc));
    return CM_OK;
}

static void *stream_main(void *arg)
{
    rd_stream_t *s = arg;
    const an_reader_t *r = s->par->r;
    OTF2_Reader *rd = NULL;
    OTF2_GlobalEvtReader *ger = NULL;
    OTF2_GlobalEvtReaderCallbacks *cb = NULL;
    OTF2_ErrorCode rc;
    uint64_t n;

    s->fill = &s->blocks[0];
    s->fill->n = 0;
    s->st = open_share(s, &rd);
    if (s->st == CM_OK && ((cb = OTF2_GlobalEvtReaderCallbacks_New()) == NULL
                           || (ger = OTF2_Reader_GetGlobalEvtReader(rd)) == NULL))
        s->st = CM_ERR_AT(&s->err, CM_ERR_IO, r->anchor, 0, 0, "cannot read the events: %s",
                          an__read_why(OTF2_ERROR_INVALID));
    if (s->st == CM_OK) {
        set_callbacks(cb);
        rc = OTF2_Reader_RegisterGlobalEvtCallbacks(rd, ger, cb, s);
        if (rc == OTF2_SUCCESS)
            rc = OTF2_Reader_ReadAllGlobalEvents(rd, ger, &n);
        if (s->st == CM_OK && rc != OTF2_SUCCESS && !s->stop && !aborted(s->par)
            && rc != OTF2_ERROR_INTERRUPTED_BY_CALLBACK)
            s->st = CM_ERR_AT(&s->err, CM_ERR_IO, r->anchor, 0, 0, "cannot read the events "
                              "(after %" PRIu64 "): %s", s->read, an__read_why(rc));
    }
    if (ger != NULL)
        OTF2_Reader_CloseGlobalEvtReader(rd, ger);
    OTF2_GlobalEvtReaderCallbacks_Delete(cb);
    if (rd != NULL) {
        OTF2_Reader_CloseEvtFiles(rd);
        OTF2_Reader_Close(rd);
    }
    /* the last block, then the end */
    pthread_mutex_lock(&s->mu);
    if (s->fill != NULL)      /* filled while the ring had room: it fits */
        publish_locked(s);
    s->done = 1;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* ---- the caller's side ----------------------------------------------- */

/* Waits until s has a block for the caller or has ended; 1 if it has one. */
static int stream_ready(rd_stream_t *s)
{
    pthread_mutex_lock(&s->mu);
    while (s->count == 0 && !s->done)
        pthread_cond_wait(&s->cv, &s->mu);
    s->avail = s->count;
    pthread_mutex_unlock(&s->mu);
    return s->avail > 0;
}

/* Gives blocks[head] back to the thread. */
static void stream_release(rd_stream_t *s)
{
    pthread_mutex_lock(&s->mu);
    s->head = (s->head + 1) % RD_QUEUE;
    s->count--;
    s->avail--;
    s->pos = 0;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

/* The event s offers next, or NULL at its end. */
static const rd_ev_t *stream_peek(rd_stream_t *s)
{
    for (;;) {
        if (s->avail == 0 && !stream_ready(s))
            return NULL;
        if (s->pos < s->blocks[s->head].n)
            return &s->blocks[s->head].ev[s->pos];
        stream_release(s);
    }
}

static int cmp_load(const void *a, const void *b)
{
    const an_location_t *x = *(const an_location_t *const *)a;
    const an_location_t *y = *(const an_location_t *const *)b;

    return (x->events < y->events) - (x->events > y->events);
}

/* Deals the locations with events to n shares, the largest first to the least loaded. */
static cm_status_t deal(rd_par_t *p, cm_err_t *err)
{
    const an_defs_t *d = p->r->defs;
    const an_location_t **order = malloc((size_t)d->nlocs * sizeof(*order));
    int m = 0;

    if (order == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    for (int i = 0; i < d->nlocs; i++)
        if (d->locs[i].events > 0)
            order[m++] = &d->locs[i];
    qsort(order, (size_t)m, sizeof(*order), cmp_load);
    for (int i = 0; i < p->n; i++)
        if ((p->s[i].locs = calloc((size_t)m + 1, sizeof(rd_locpart_t))) == NULL) {
            free(order);
            return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
        }
    for (int i = 0; i < m; i++) {
        rd_stream_t *least = &p->s[0];

        for (int j = 1; j < p->n; j++)
            if (p->s[j].load < least->load)
                least = &p->s[j];
        least->locs[least->nlocs++] = (rd_locpart_t){ (int)(order[i] - d->locs), 0, 0, 0 };
        least->load += order[i]->events;
    }
    free(order);
    return CM_OK;
}

cm_status_t rd_par_open(an_reader_t *r, const rd_part_t *part, rd_par_t **out, cm_err_t *err)
{
    const an_defs_t *d = r->defs;
    rd_par_t *p;
    int withev = 0;
    cm_status_t st;

    *out = NULL;
    for (int i = 0; i < d->nlocs; i++)
        withev += d->locs[i].events > 0;
    if ((p = calloc(1, sizeof(*p))) == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    p->r = r;
    p->part = *part;
    p->n = part->nthreads < withev ? part->nthreads : withev;
    if (p->n < 1)
        p->n = 1;
    if ((p->s = calloc((size_t)p->n, sizeof(*p->s))) == NULL) {
        free(p);
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    }
    *out = p;
    for (int i = 0; i < p->n; i++) {
        p->s[i].par = p;
        pthread_mutex_init(&p->s[i].mu, NULL);
        pthread_cond_init(&p->s[i].cv, NULL);
    }
    if ((st = deal(p, err)) != CM_OK)
        return st;
    for (int i = 0; i < p->n; i++) {
        if (p->s[i].nlocs == 0) {
            p->s[i].done = 1;
            continue;
        }
        if (pthread_create(&p->s[i].th, NULL, stream_main, &p->s[i]) != 0)
            return CM_ERR(err, CM_ERR_NOMEM, "cannot start a reading thread");
        p->s[i].started = 1;
    }
    /* the trace's first timestamp: every share's first event */
    p->first_t = UINT64_MAX;
    for (int i = 0; i < p->n; i++)
        if (stream_ready(&p->s[i]) && p->s[i].first_t < p->first_t)
            p->first_t = p->s[i].first_t;
    return CM_OK;
}

uint64_t rd_par_first_t(const rd_par_t *p)
{
    return p->first_t;
}

uint64_t rd_par_read(rd_par_t *p)
{
    uint64_t n = 0;

    for (int i = 0; i < p->n; i++) {
        pthread_mutex_lock(&p->s[i].mu);
        n += p->s[i].read_pub;
        pthread_mutex_unlock(&p->s[i].mu);
    }
    return n;
}

const rd_ev_t *rd_par_next(rd_par_t *p)
{
    const rd_ev_t *best = NULL;
    rd_stream_t *bs = NULL;

    for (int i = 0; i < p->n; i++) {
        const rd_ev_t *e = stream_peek(&p->s[i]);

        if (e != NULL && (best == NULL || e->t < best->t
                          || (e->t == best->t && e->loc < best->loc))) {
            best = e;
            bs = &p->s[i];
        }
    }
    if (bs != NULL)
        bs->pos++;
    return best;
}

cm_status_t rd_par_close(rd_par_t *p, cm_err_t *err)
{
    cm_status_t st = CM_OK;

    if (p == NULL)
        return CM_OK;
    __atomic_store_n(&p->abort, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < p->n; i++) {
        pthread_mutex_lock(&p->s[i].mu);
        pthread_cond_broadcast(&p->s[i].cv);
        pthread_mutex_unlock(&p->s[i].mu);
    }
    for (int i = 0; i < p->n; i++) {
        rd_stream_t *s = &p->s[i];

        if (s->started)
            pthread_join(s->th, NULL);
        /* attribute copies of events never taken */
        for (int k = 0; k < s->count; k++) {
            rd_block_t *b = &s->blocks[(s->head + k) % RD_QUEUE];

            for (int j = k == 0 ? s->pos : 0; j < b->n; j++)
                if (b->ev[j].al != NULL)
                    OTF2_AttributeList_Delete(b->ev[j].al);
        }
        if (st == CM_OK && s->st != CM_OK) {
            st = s->st;
            *err = s->err;
        }
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->cv);
        free(s->locs);
    }
    free(p->s);
    free(p);
    return st;
}
