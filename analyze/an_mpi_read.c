/*
 * an_mpi_read.c - an application trace (ins_schema.h, "application
 * traces") into calls: one an_mpi_call_t per collective call of each rank,
 * a nonblocking one from its call to the MPI_Wait or MPI_Test that
 * completed it.
 *
 * The definitions first (an_mpi_read_defs.c), then the events in time
 * order through OTF2's global reader (here); each location has at most one
 * call open (MPI calls do not nest in one thread).
 *
 * Anything that breaks the conventions is an error naming the record;
 * the algorithm's messages (MpiIsend ...) and anything else are counted and
 * skipped.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <otf2/otf2.h>

#include "analyze/an_mpi_read_int.h"
#include "analyze/an_progress_int.h"
#include "analyze/an_read_int.h"
#include "instrument/api/ins_schema.h"

/* ---------------------------------------------------------------- events */

static int64_t to_ns(mr_t *r, OTF2_TimeStamp t)
{
    if (!r->have_base) {         /* the earliest: this, or a location not read's first */
        r->have_base = 1;
        r->base = t < r->first_unread ? t : r->first_unread;
    }
    return (int64_t)llround((double)(int64_t)(t - r->base) * r->ns_per_tick);
}

/* The location of an event, its time checked to go forward. */
static mr_loc_t *event_loc(mr_t *r, OTF2_LocationRef id, OTF2_TimeStamp t, const char *what,
                           int64_t *ns)
{
    mr_loc_t *l = an__mpi_find_loc(r, id);

    r->nevents++;
    if (l == NULL) {
        an__mpi_fail(r, "%s event on undefined location %" PRIu64, what, id);
        return NULL;
    }
    *ns = to_ns(r, t);
    if (*ns < l->last) {
        an__mpi_fail(r, "%s event on location %" PRIu64 ": time goes backwards", what, id);
        return NULL;
    }
    l->last = *ns;
    return l;
}

static int site_of(mr_t *r, uint32_t ref)
{
    an_mpi_trace_t *tr = r->tr;
    an_mpi_str_t *d = an__mpi_str_def(r, ref);
    an_mpi_site_t *p;

    if (d->site >= 0)
        return d->site;
    /* each rank may define the same name under its own string id */
    for (int i = 0; i < tr->nsites; i++)
        if (strcmp(tr->sites[i].name, d->s) == 0)
            return d->site = i;
    if ((p = realloc(tr->sites, (size_t)(tr->nsites + 1) * sizeof(*p))) == NULL)
        return -1;
    tr->sites = p;
    p = &tr->sites[tr->nsites];
    memset(p, 0, sizeof(*p));
    if ((p->name = strdup(d->s)) == NULL)
        return -1;
    d->site = tr->nsites;
    return tr->nsites++;
}

/* A STRING attribute's text, or NULL. */
static const char *attr_str(mr_t *r, OTF2_AttributeList *al, int a)
{
    OTF2_StringRef s;

    if (al == NULL || OTF2_AttributeList_GetStringRef(al, r->attr[a], &s) != OTF2_SUCCESS)
        return NULL;
    return an__mpi_str(r, s);
}

static const char *auto_str(void *ctx, OTF2_StringRef ref)
{
    return an__mpi_str(ctx, ref);
}

/* An auto rule's choice on the call's Enter (ins_schema.h), if any. */
static OTF2_CallbackCode auto_choice(mr_t *r, OTF2_LocationRef id, OTF2_AttributeList *al,
                                     an_mpi_call_t *c)
{
    an_auto_rec_t rec;
    const char *why = "";
    int got = an__auto_parse(&rec, al, r->attr_auto, c->algo, auto_str, r, &why);

    if (got < 0)
        return an__mpi_fail(r, "Enter of %s on location %" PRIu64 ": a choice of auto with %s "
                            "(the trace is damaged)", an_mpi_func_name(c->func), id, why);
    if (got == 0)
        return OTF2_CALLBACK_SUCCESS;
    rec.rank = c->rank;
    rec.call = -1;
    if (an__auto_add(&r->tr->autos, &rec) != 0)
        return an__mpi_fail(r, "out of memory");
    c->autorec = (int64_t)r->tr->autos.n - 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_enter(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, OTF2_RegionRef region)
{
    mr_t *r = ud;
    int64_t ns;
    mr_loc_t *l = event_loc(r, id, t, "Enter", &ns);
    an_mpi_call_t *c;
    OTF2_StringRef s;
    int f;

    if (l == NULL)
        return OTF2_CALLBACK_INTERRUPT;
    if (region >= r->nregions || (f = r->region_func[region]) < 0)
        return an__mpi_fail(r, "Enter event on location %" PRIu64 ": region %u is not one of the "
                            "traced MPI functions (the trace is damaged)", id, region);
    if (l->open)
        return an__mpi_fail(r, "Enter event on location %" PRIu64 ": %s entered inside %s "
                            "(MPI calls do not nest; the trace is damaged)", id,
                            an_mpi_func_name(f), an_mpi_func_name(l->cur.func));
    memset(&l->cur, 0, sizeof(l->cur));
    l->open = 1;
    l->ended = 0;
    l->in_wait = f == AN_MPI_WAIT || f == AN_MPI_TEST;
    c = &l->cur;
    c->func = (an_mpi_func_t)f;
    c->enter = ns;
    c->leave = -1;
    c->rank = (int32_t)l->group;
    c->thread = (int32_t)(l->id & (INS_LOC_MAX_PER_RANK - 1));
    c->location = l->id;
    c->root = UINT32_MAX;
    c->site = -1;
    c->autorec = -1;
    if (l->in_wait)
        return OTF2_CALLBACK_SUCCESS;
    if (al == NULL || OTF2_AttributeList_GetStringRef(al, r->attr[A_CALLSITE], &s) != OTF2_SUCCESS
        || an__mpi_str(r, s) == NULL || OTF2_AttributeList_GetInt64(al, r->attr[A_COUNT], &c->count)
                                != OTF2_SUCCESS
        || (c->algo = attr_str(r, al, A_ALGO)) == NULL
        || (c->fallback = attr_str(r, al, A_FALLBACK)) == NULL
        || (c->dtype = attr_str(r, al, A_DTYPE)) == NULL
        || (c->op = attr_str(r, al, A_MPI_OP)) == NULL)
        return an__mpi_fail(r, "Enter of %s on location %" PRIu64 ": missing one of the "
                            "attributes %s, %s, %s, %s, %s, %s (the trace is damaged)",
                            an_mpi_func_name(f), id, INS_ATTR_CALLSITE, INS_ATTR_ALGO,
                            INS_ATTR_FALLBACK, INS_ATTR_COUNT, INS_ATTR_DTYPE, INS_ATTR_MPI_OP);
    if ((c->site = site_of(r, s)) < 0)
        return an__mpi_fail(r, "out of memory");
    return auto_choice(r, id, al, c);
}

static cm_status_t push_call(mr_t *r, const an_mpi_call_t *c)
{
    an_mpi_trace_t *tr = r->tr;

    if (tr->ncalls == r->cap_calls) {
        int64_t cap = r->cap_calls ? 2 * r->cap_calls : 256;
        an_mpi_call_t *p = realloc(tr->calls, (size_t)cap * sizeof(*p));
        if (p == NULL)
            return CM_ERR_NOMEM;
        tr->calls = p;
        r->cap_calls = cap;
    }
    tr->calls[tr->ncalls++] = *c;
    if (an__mpi_is_nonblocking(c->func) && c->comm == UINT32_MAX) {
        if (r->npend == r->cap_pend) {
            int64_t cap = r->cap_pend ? 2 * r->cap_pend : 64;
            int64_t *p = realloc(r->pend, (size_t)cap * sizeof(*p));
            if (p == NULL)
                return CM_ERR_NOMEM;
            r->pend = p;
            r->cap_pend = cap;
        }
        r->pend[r->npend++] = tr->ncalls - 1;
    }
    return CM_OK;
}

/* The comm's index, and the rank's rank in it; -1 if either is unknown. */
static int comm_member(mr_t *r, OTF2_CommRef comm, int32_t rank, int32_t *crank)
{
    for (int i = 0; i < r->tr->ncomms; i++)
        if (r->tr->comms[i].id == comm) {
            if (r->tr->comms[i].self) {
                *crank = 0;
                return i;
            }
            for (int32_t k = 0; k < r->tr->comms[i].size; k++)
                if (r->tr->comms[i].world[k] == rank) {
                    *crank = k;
                    return i;
                }
            return -1;
        }
    return -1;
}

static OTF2_CallbackCode on_leave(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, OTF2_RegionRef region)
{
    mr_t *r = ud;
    int64_t ns;
    mr_loc_t *l = event_loc(r, id, t, "Leave", &ns);

    (void)al;
    if (l == NULL)
        return OTF2_CALLBACK_INTERRUPT;
    if (!l->open || region >= r->nregions || r->region_func[region] != (int)l->cur.func)
        return an__mpi_fail(r, "Leave event on location %" PRIu64 ": region %u was not "
                            "entered there (the trace is damaged)", id, region);
    l->open = 0;
    if (l->in_wait)
        return OTF2_CALLBACK_SUCCESS;       /* its completion, if any, is recorded */
    if (!l->ended)
        return an__mpi_fail(r, "%s on location %" PRIu64 " leaves without its %s (the trace is "
                            "damaged)", an_mpi_func_name(l->cur.func), id,
                            an__mpi_is_nonblocking(l->cur.func) ? "NonBlockingCollectiveRequest"
                            : "MpiCollectiveEnd");
    if (!an__mpi_is_nonblocking(l->cur.func))
        l->cur.leave = ns;
    if (push_call(r, &l->cur) != CM_OK)
        return an__mpi_fail(r, "out of memory");
    return OTF2_CALLBACK_SUCCESS;
}

/* The facts of a collective's end (blocking) or completion (nonblocking). */
static OTF2_CallbackCode set_end(mr_t *r, an_mpi_call_t *c, OTF2_CommRef comm, uint32_t root,
                                 uint64_t sent, uint64_t recv, const char *what)
{
    int ci = comm_member(r, comm, c->rank, &c->comm_rank);

    if (ci < 0)
        return an__mpi_fail(r, "%s on location %" PRIu64 ": communicator %u is undefined or "
                            "does not hold rank %d (the trace is damaged)", what, c->location,
                            comm, c->rank);
    c->comm = (uint32_t)ci;
    c->root = root;
    c->sent = sent;
    c->recv = recv;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_coll_end(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                     OTF2_AttributeList *al, OTF2_CollectiveOp op,
                                     OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                     uint64_t recv)
{
    mr_t *r = ud;
    int64_t ns;
    mr_loc_t *l = event_loc(r, id, t, "MpiCollectiveEnd", &ns);

    (void)al, (void)op;
    if (l == NULL)
        return OTF2_CALLBACK_INTERRUPT;
    if (!l->open || l->in_wait || an__mpi_is_nonblocking(l->cur.func) || l->ended)
        return an__mpi_fail(r, "MpiCollectiveEnd on location %" PRIu64 " outside a blocking "
                            "collective (the trace is damaged)", id);
    l->ended = 1;
    return set_end(r, &l->cur, comm, root, sent, recv, "MpiCollectiveEnd");
}

static OTF2_CallbackCode on_nb_request(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                       OTF2_AttributeList *al, uint64_t request)
{
    mr_t *r = ud;
    int64_t ns;
    mr_loc_t *l = event_loc(r, id, t, "NonBlockingCollectiveRequest", &ns);

    (void)al;
    if (l == NULL)
        return OTF2_CALLBACK_INTERRUPT;
    if (!l->open || !an__mpi_is_nonblocking(l->cur.func) || l->ended)
        return an__mpi_fail(r, "NonBlockingCollectiveRequest on location %" PRIu64 " outside a "
                            "nonblocking collective (the trace is damaged)", id);
    for (int64_t i = 0; i < r->npend; i++) {
        const an_mpi_call_t *c = &r->tr->calls[r->pend[i]];
        if (c->rank == l->cur.rank && c->request == request)
            return an__mpi_fail(r, "NonBlockingCollectiveRequest on location %" PRIu64 ": request %"
                                PRIu64 " is already pending (the trace is damaged)", id, request);
    }
    l->ended = 1;
    l->cur.request = request;
    l->cur.comm = UINT32_MAX;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_nb_complete(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                        OTF2_AttributeList *al, OTF2_CollectiveOp op,
                                        OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                        uint64_t recv, uint64_t request)
{
    mr_t *r = ud;
    int64_t ns;
    mr_loc_t *l = event_loc(r, id, t, "NonBlockingCollectiveComplete", &ns);

    (void)al, (void)op;
    if (l == NULL)
        return OTF2_CALLBACK_INTERRUPT;
    if (!l->open || !l->in_wait)
        return an__mpi_fail(r, "NonBlockingCollectiveComplete on location %" PRIu64 " outside "
                            "MPI_Wait or MPI_Test (the trace is damaged)", id);
    /* the completing call's leave is the call's leave: set when it leaves;
     * the wait's own Leave comes next on this location */
    for (int64_t i = 0; i < r->npend; i++) {
        an_mpi_call_t *c = &r->tr->calls[r->pend[i]];
        if (c->rank == l->cur.rank && c->request == request) {
            if (l->ndone == l->capdone) {
                int cap = l->capdone ? 2 * l->capdone : 4;
                int64_t *p = realloc(l->done, (size_t)cap * sizeof(*p));
                if (p == NULL)
                    return an__mpi_fail(r, "out of memory");
                l->done = p;
                l->capdone = cap;
            }
            l->done[l->ndone++] = r->pend[i];      /* the wait's Leave sets its leave */
            r->pend[i] = r->pend[--r->npend];
            return set_end(r, c, comm, root, sent, recv, "NonBlockingCollectiveComplete");
        }
    }
    return an__mpi_fail(r, "NonBlockingCollectiveComplete on location %" PRIu64 ": request %" PRIu64
                        " was never started on rank %d (the trace is damaged)", id, request,
                        l->cur.rank);
}

/* A wait's Leave is the leave of every call it completed (after on_leave). */
static OTF2_CallbackCode on_leave_wait(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                       OTF2_AttributeList *al, OTF2_RegionRef region)
{
    mr_t *r = ud;
    mr_loc_t *l = an__mpi_find_loc(r, id);
    OTF2_CallbackCode rc = on_leave(id, t, ud, al, region);

    if (rc == OTF2_CALLBACK_SUCCESS && l != NULL) {
        for (int i = 0; i < l->ndone; i++)
            r->tr->calls[l->done[i]].leave = l->last;
        l->ndone = 0;
    }
    return rc;
}

static OTF2_CallbackCode on_skip(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                 OTF2_AttributeList *al)
{
    (void)id, (void)t, (void)al;
    ((mr_t *)ud)->nevents++;
    return OTF2_CALLBACK_SUCCESS;
}

/* The algorithm's messages and the rest: counted, skipped. */
static OTF2_CallbackCode skip_p2p(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, uint32_t peer, OTF2_CommRef comm,
                                  uint32_t tag, uint64_t len, uint64_t req)
{
    (void)peer, (void)comm, (void)tag, (void)len, (void)req;
    return on_skip(id, t, ud, al);
}

static OTF2_CallbackCode skip_req(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, uint64_t req)
{
    (void)req;
    return on_skip(id, t, ud, al);
}

static OTF2_CallbackCode skip_param_str(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                        OTF2_AttributeList *al, OTF2_ParameterRef p,
                                        OTF2_StringRef v)
{
    (void)p, (void)v;
    return on_skip(id, t, ud, al);
}

static OTF2_CallbackCode skip_flush(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                    OTF2_AttributeList *al, OTF2_TimeStamp stop)
{
    (void)stop;
    return on_skip(id, t, ud, al);
}

static OTF2_CallbackCode skip_coll_begin(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                         OTF2_AttributeList *al)
{
    return on_skip(id, t, ud, al);
}

/* A location's first event's time (clock offsets applied), through its own
 * reader: its calls' Enter, Leave and collective begin. */
static OTF2_CallbackCode first_t(OTF2_LocationRef id, OTF2_TimeStamp t, uint64_t pos, void *ud,
                                 OTF2_AttributeList *al)
{
    (void)id, (void)pos, (void)al;
    *(OTF2_TimeStamp *)ud = t;
    return OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode first_region(OTF2_LocationRef id, OTF2_TimeStamp t, uint64_t pos,
                                      void *ud, OTF2_AttributeList *al, OTF2_RegionRef region)
{
    (void)region;
    return first_t(id, t, pos, ud, al);
}

/*
 * --ranks: the time line starts at the whole trace's first event, as without
 * it, so the parts' times are the whole analysis's: the first event of each
 * location not read is read with a reader of its own, closed before the
 * global reader starts (which then never reads that location).
 */
static cm_status_t first_unread(mr_t *r)
{
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();

    r->first_unread = UINT64_MAX;
    if (cb == NULL)
        return CM_ERR(r->err, CM_ERR_NOMEM, "out of memory");
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, first_region);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, first_region);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, first_t);
    for (int i = 0; i < r->nlocs; i++) {
        OTF2_TimeStamp t = UINT64_MAX;
        OTF2_EvtReader *er;
        uint64_t n;

        if (r->locs[i].selected || r->locs[i].events == 0
            || (er = OTF2_Reader_GetEvtReader(r->rd, r->locs[i].id)) == NULL)
            continue;
        if (OTF2_EvtReader_SetCallbacks(er, cb, &t) == OTF2_SUCCESS)
            for (int k = 0; k < 16 && t == UINT64_MAX; k++)
                if (OTF2_EvtReader_ReadEvents(er, 1, &n) != OTF2_SUCCESS && t == UINT64_MAX)
                    break;
        OTF2_Reader_CloseEvtReader(r->rd, er);
        if (t < r->first_unread)
            r->first_unread = t;
    }
    OTF2_EvtReaderCallbacks_Delete(cb);
    return CM_OK;
}

static cm_status_t read_events(mr_t *r)
{
    OTF2_GlobalEvtReaderCallbacks *cb = NULL;
    OTF2_GlobalEvtReader *ger = NULL;
    OTF2_ErrorCode rc;
    cm_status_t st = CM_OK;

    if ((rc = OTF2_Reader_OpenEvtFiles(r->rd)) != OTF2_SUCCESS)
        return CM_ERR_AT(r->err, CM_ERR_IO, r->anchor, 0, 0, "cannot open the event files: %s",
                         an__read_why(rc));
    if (r->part != NULL && r->part->progress != NULL)
        r->part->progress->total = r->expect;    /* the 100 %: the locations read */
    if ((st = first_unread(r)) != CM_OK) {
        OTF2_Reader_CloseEvtFiles(r->rd);
        return st;
    }
    /* no reader for a location without events (an_read_events.c says why) */
    for (int i = 0; i < r->nlocs && st == CM_OK; i++)
        if (r->locs[i].selected && r->locs[i].events > 0
            && OTF2_Reader_GetEvtReader(r->rd, r->locs[i].id) == NULL)
            st = CM_ERR_AT(r->err, CM_ERR_IO, r->anchor, 0, 0, "cannot read the events of "
                           "location %" PRIu64 ": %s", r->locs[i].id,
                           an__read_why(OTF2_ERROR_INVALID));
    if (st == CM_OK && ((cb = OTF2_GlobalEvtReaderCallbacks_New()) == NULL
                        || (ger = OTF2_Reader_GetGlobalEvtReader(r->rd)) == NULL))
        st = CM_ERR_AT(r->err, CM_ERR_IO, r->anchor, 0, 0, "cannot read the events: %s",
                       an__read_why(OTF2_ERROR_INVALID));
    if (st == CM_OK) {
        OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, on_enter);
        OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, on_leave_wait);
        OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, skip_coll_begin);
        OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, on_coll_end);
        OTF2_GlobalEvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(cb, on_nb_request);
        OTF2_GlobalEvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(cb,
                                                                             on_nb_complete);
        OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(cb, skip_p2p);
        OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, skip_req);
        OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, skip_req);
        OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(cb, skip_p2p);
        OTF2_GlobalEvtReaderCallbacks_SetParameterStringCallback(cb, skip_param_str);
        OTF2_GlobalEvtReaderCallbacks_SetBufferFlushCallback(cb, skip_flush);
        rc = OTF2_Reader_RegisterGlobalEvtCallbacks(r->rd, ger, cb, r);
        while (rc == OTF2_SUCCESS) {
            uint64_t n = 0;
            rc = OTF2_Reader_ReadGlobalEvents(r->rd, ger, 1u << 16, &n);
            if (r->part != NULL && r->part->progress != NULL)
                an_progress_tick(r->part->progress, r->nevents);
            if (n < 1u << 16)
                break;
        }
        if (r->st != CM_OK)
            st = r->st;
        else if (rc != OTF2_SUCCESS)
            st = CM_ERR_AT(r->err, CM_ERR_IO, r->anchor, 0, 0, "cannot read the events (after "
                           "%" PRIu64 "): %s", r->nevents, an__read_why(rc));
    }
    if (st == CM_OK && r->nevents != r->expect)
        st = CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0, "%" PRIu64 " events read, the "
                       "definitions announce %" PRIu64 ": the trace is truncated or damaged",
                       r->nevents, r->expect);
    if (r->part != NULL)
        r->part->nread = r->nevents;
    for (int i = 0; st == CM_OK && i < r->nlocs; i++)
        if (r->locs[i].open)
            st = CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0, "location %" PRIu64
                           " never leaves %s: the trace is truncated", r->locs[i].id,
                           an_mpi_func_name(r->locs[i].cur.func));
    if (ger != NULL)
        OTF2_Reader_CloseGlobalEvtReader(r->rd, ger);
    OTF2_GlobalEvtReaderCallbacks_Delete(cb);
    OTF2_Reader_CloseEvtFiles(r->rd);
    return st;
}

/* ------------------------------------------------------------------ entry */

/* check: let OTF2 load the anchor in a child first (an_read_anchor.c). */
static cm_status_t open_reader(const char *anchor, int check, OTF2_Reader **rd_p,
                               cm_err_t *err)
{
    cm_status_t st;

    *rd_p = NULL;
    an__read_errors_catch();
    if (check && (st = an__anchor_check(anchor, err)) != CM_OK)
        return st;
    if ((*rd_p = OTF2_Reader_Open(anchor)) == NULL)
        return CM_ERR_AT(err, CM_ERR_INVALID, anchor, 0, 0, "not an OTF2 archive: %s",
                         an__read_why(OTF2_ERROR_INVALID));
    if (OTF2_Reader_SetSerialCollectiveCallbacks(*rd_p) != OTF2_SUCCESS) {
        OTF2_Reader_Close(*rd_p);
        *rd_p = NULL;
        return CM_ERR_AT(err, CM_ERR_IO, anchor, 0, 0, "cannot set up the OTF2 reader: %s",
                         an__read_why(OTF2_ERROR_INVALID));
    }
    return CM_OK;
}

int an_mpi_is_archive(const char *anchor)
{
    OTF2_Reader *rd;
    cm_err_t err;
    char *v = NULL;
    int yes;

    cm_err_clear(&err);
    if (open_reader(anchor, 0, &rd, &err) != CM_OK)
        return 0;
    yes = OTF2_Reader_GetProperty(rd, INS_PROP_KIND, &v) == OTF2_SUCCESS && v != NULL
          && strcmp(v, INS_KIND_MPI) == 0;
    free(v);
    OTF2_Reader_Close(rd);
    return yes;
}

cm_status_t an_mpi_read(const char *anchor, an_mpi_trace_t *tr, an_mpi_part_t *part,
                        cm_err_t *err)
{
    mr_t r = { .tr = tr, .part = part, .anchor = anchor, .err = err };
    cm_status_t st;

    memset(tr, 0, sizeof(*tr));
    if ((st = open_reader(anchor, 1, &r.rd, err)) == CM_OK && (st = an__mpi_read_defs(&r)) == CM_OK)
        st = read_events(&r);
    if (st == CM_OK && r.npend > 0) {         /* never completed: no communicator known */
        const an_mpi_call_t *c = &tr->calls[r.pend[0]];
        st = CM_ERR_AT(err, CM_ERR_INVALID, anchor, 0, 0, "rank %d: %s request %" PRIu64
                       " never completed (no MPI_Wait or MPI_Test recorded it): the trace is "
                       "truncated", c->rank, an_mpi_func_name(c->func), c->request);
    }
    if (r.rd != NULL)
        OTF2_Reader_Close(r.rd);
    for (int i = 0; i < r.ngroups; i++)
        free(r.groups[i].members);
    free(r.groups);
    free(r.cdefs);
    for (int i = 0; i < r.nlocs; i++)
        free(r.locs[i].done);
    free(r.locs);
    free(r.pend);
    free(r.region_func);
    return st;
}

void an_mpi_trace_free(an_mpi_trace_t *tr)
{
    an__auto_free(&tr->autos);
    for (int i = 0; i < tr->ncomms; i++) {
        free(tr->comms[i].name);
        free(tr->comms[i].world);
    }
    for (int i = 0; i < tr->nsites; i++) {
        an_mpi_site_t *s = &tr->sites[i];
        free(s->name), free(s->module), free(s->function), free(s->file), free(s->label);
    }
    for (uint32_t i = 0; i < tr->nstrs; i++)
        free(tr->strs[i].s);
    free(tr->strs);
    free(tr->comms);
    free(tr->sites);
    free(tr->calls);
    free(tr->ops);
    free(tr->command), free(tr->rules), free(tr->clock), free(tr->version);
    memset(tr, 0, sizeof(*tr));
}
