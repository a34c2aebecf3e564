/*
 * collect.c - the event collectors: per-location buffers and the hooks.
 *
 * Each location owns a buffer of 24-byte records (ins_int.h); the visit,
 * coll and msg hooks read the clock and append, with no lock and no shared
 * write (bench/tracebench measures them: about 11 ns per event with the
 * TSC, most of it the clock read).  A full buffer is written to the
 * location's OTF2 event writer on the recording thread (a flush), out of
 * line so that the common path stays a compare, a clock read and four
 * stores.  The recording thread of one location may change between events
 * (the algorithm location's: ins_int.h), never while one is recorded, so
 * nothing here is per thread.
 *
 * The arrival hook (a PAP-aware node's sources, once per operation) takes
 * three records and becomes one ParameterString event when written; the
 * choice hook (an auto node's choice, once per operation) takes 3 + 2 x
 * its candidates and becomes one ParameterString too.
 *
 * Which locations exist, and their order, is the runtime's to say
 * (rt_location_list, rt_hooks.h): the location hook takes the executor's
 * word for each one and files it under its index.
 */
#include <stdlib.h>
#include "instrument/ins_int.h"

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

/* A visit record: Enter or Leave of its region, with the op and bytes attributes. */
static OTF2_ErrorCode write_visit(ins_loc_t *loc, const ins_rec_t *r)
{
    OTF2_RegionRef region = r->ref & ~INS_REC_LEAVE;
    OTF2_ErrorCode rc;

    rc = OTF2_AttributeList_AddUint64(loc->attrs, INS_ATTR_OP_ID, r->op);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_AttributeList_AddUint64(loc->attrs, INS_ATTR_BYTES_ID, r->bytes);
    if (rc == OTF2_SUCCESS)
        rc = (r->ref & INS_REC_LEAVE) ? OTF2_EvtWriter_Leave(loc->ew, loc->attrs, r->ts, region)
                                      : OTF2_EvtWriter_Enter(loc->ew, loc->attrs, r->ts, region);
    return rc;
}

/*
 * An arrival report's three records (ins_int.h) into one ParameterString
 * event with its attributes (ins_schema.h, "where a PAP-aware node's arrival
 * times came from"); *wrote says whether this record made the event.
 */
static OTF2_ErrorCode write_arrival(ins_loc_t *loc, const ins_rec_t *r, uint32_t payload,
                                    int *wrote)
{
    uint32_t part = payload >> INS_REC_PART_SHIFT;
    uint32_t data = payload & ((UINT32_C(1) << INS_REC_PART_SHIFT) - 1);
    uint32_t asked = loc->arr_data & 3u, used = (loc->arr_data >> 2) & 3u;
    int64_t missing = (int64_t)(loc->arr_data >> 4) - 1;
    OTF2_ErrorCode rc;

    *wrote = part == 2;
    if (part == 0) {
        loc->arr_data = data;
        loc->arr_error = (int64_t)r->op;
        return OTF2_SUCCESS;
    }
    if (part == 1) {
        loc->arr_lead = (int64_t)r->op;
        return OTF2_SUCCESS;
    }
    if (part != 2 || asked >= INS_NARRIVAL || used >= INS_NARRIVAL ||
        missing > (int64_t)INS_REC_MISSING_MAX - 1)
        return OTF2_ERROR_INVALID_DATA;    /* a report the hook could not encode */
    rc = OTF2_AttributeList_AddUint64(loc->attrs, INS_ATTR_OP_ID, loc->coll_op);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_AttributeList_AddStringRef(loc->attrs, INS_ATTR_ASKED_ID,
                                             INS_STR_ARRIVAL0 + asked);
    if (rc == OTF2_SUCCESS && missing >= 0)
        rc = OTF2_AttributeList_AddInt64(loc->attrs, INS_ATTR_MISSING_ID, missing);
    if (rc == OTF2_SUCCESS && loc->arr_error != INT64_MIN)
        rc = OTF2_AttributeList_AddInt64(loc->attrs, INS_ATTR_ERROR_ID, loc->arr_error);
    if (rc == OTF2_SUCCESS && loc->arr_lead != INT64_MIN)
        rc = OTF2_AttributeList_AddInt64(loc->attrs, INS_ATTR_LEAD_ID, loc->arr_lead);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_AttributeList_AddInt64(loc->attrs, INS_ATTR_WAIT_ID, (int64_t)r->op);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_EvtWriter_ParameterString(loc->ew, loc->attrs, r->ts, INS_PARAM_ARRIVAL_ID,
                                            INS_STR_ARRIVAL0 + used);
    return rc;
}

/*
 * An auto node's choice records (ins_int.h) into one ParameterString event
 * with its attributes (ins_schema.h, "what `auto` chose"): the value is the
 * chosen candidate's name, the strings are the archive's fixed ones
 * (INS_STR_REASON0, INS_STR_CANDIDATES, INS_STR_CAND0: defs.c).
 */
static OTF2_ErrorCode write_choice(ins_loc_t *loc, const ins_rec_t *r, uint32_t payload,
                                   int *wrote)
{
    uint32_t part = payload >> INS_CHOICE_PART_SHIFT;
    uint32_t data = payload & ((UINT32_C(1) << INS_CHOICE_PART_SHIFT) - 1);
    uint32_t chosen = loc->ch_data & 15u, reason = (loc->ch_data >> 4) & 3u;
    uint32_t ncand = (loc->ch_data >> 6) & 15u;
    OTF2_ErrorCode rc;

    *wrote = part == INS_CHOICE_END;
    if (part == 0) {
        loc->ch_data = data;
        loc->ch_spread = (int64_t)r->op;
        for (uint32_t i = 0; i < INS_AUTO_CAND_MAX; i++)
            loc->ch_pred[i] = loc->ch_corr[i] = -1;
        return OTF2_SUCCESS;
    }
    if (part == 1) {
        loc->ch_skipped = r->op;
        return OTF2_SUCCESS;
    }
    if (part >= INS_CHOICE_PRED && part < INS_CHOICE_PRED + INS_AUTO_CAND_MAX) {
        loc->ch_pred[part - INS_CHOICE_PRED] = (int64_t)r->op;
        return OTF2_SUCCESS;
    }
    if (part >= INS_CHOICE_CORR && part < INS_CHOICE_CORR + INS_AUTO_CAND_MAX) {
        loc->ch_corr[part - INS_CHOICE_CORR] = (int64_t)r->op;
        return OTF2_SUCCESS;
    }
    if (part != INS_CHOICE_END || ncand == 0 || ncand > INS_AUTO_CAND_MAX || chosen >= ncand)
        return OTF2_ERROR_INVALID_DATA;    /* a choice the hook could not encode */
    rc = OTF2_AttributeList_AddUint64(loc->attrs, INS_ATTR_OP_ID, loc->coll_op);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_AttributeList_AddStringRef(loc->attrs, INS_ATTR_CANDIDATES_ID,
                                             INS_STR_CANDIDATES);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_AttributeList_AddStringRef(loc->attrs, INS_ATTR_REASON_ID,
                                             INS_STR_REASON0 + reason);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_AttributeList_AddInt64(loc->attrs, INS_ATTR_SPREAD_ID, loc->ch_spread);
    for (uint32_t i = 0; rc == OTF2_SUCCESS && i < ncand; i++)
        if (loc->ch_pred[i] >= 0)
            rc = OTF2_AttributeList_AddInt64(loc->attrs, INS_ATTR_PRED0_ID + i, loc->ch_pred[i]);
    for (uint32_t i = 0; rc == OTF2_SUCCESS && i < ncand; i++)
        if (loc->ch_corr[i] >= 0)
            rc = OTF2_AttributeList_AddInt64(loc->attrs, INS_ATTR_CORR0_ID + i, loc->ch_corr[i]);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_AttributeList_AddUint64(loc->attrs, INS_ATTR_SKIPPED_ID, loc->ch_skipped);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_EvtWriter_ParameterString(loc->ew, loc->attrs, r->ts, INS_PARAM_AUTO_ID,
                                            INS_STR_CAND0 + chosen);
    return rc;
}

/*
 * A collective or message record (ins_schema.h, "an algorithm node's
 * collective and messages"): the communicator is the instance's, the
 * request id pairs a post with its completion within the operation.
 * Every such record is one event, but for the arrival report's (*wrote).
 */
static OTF2_ErrorCode write_ext(ins_loc_t *loc, const ins_rec_t *r, int *wrote)
{
    uint32_t kind = (r->ref & ~INS_REC_EXT) >> INS_REC_KIND_SHIFT;
    uint32_t payload = r->ref & INS_REC_PAYLOAD;
    uint32_t round = (uint32_t)r->op, step = (uint32_t)(r->op >> 32);
    uint64_t req = INS_REQUEST_ID(loc->coll_op, step);
    OTF2_CommRef comm = loc->coll_inst;

    *wrote = 1;
    switch (kind) {
    case INS_REC_COLL_BEGIN:
        loc->coll_op = r->op;
        loc->coll_inst = payload;
        return OTF2_EvtWriter_MpiCollectiveBegin(loc->ew, NULL, r->ts);
    case INS_REC_COLL_END:
        return OTF2_EvtWriter_MpiCollectiveEnd(loc->ew, NULL, r->ts, OTF2_COLLECTIVE_OP_ALLREDUCE,
                                               payload, OTF2_UNDEFINED_UINT32, r->bytes,
                                               r->bytes);
    case INS_REC_MSG + RT_MSG_SEND:
        return OTF2_EvtWriter_MpiIsend(loc->ew, NULL, r->ts, payload, comm, round, r->bytes,
                                       req);
    case INS_REC_MSG + RT_MSG_SEND_DONE:
        return OTF2_EvtWriter_MpiIsendComplete(loc->ew, NULL, r->ts, req);
    case INS_REC_MSG + RT_MSG_RECV_POST:
        return OTF2_EvtWriter_MpiIrecvRequest(loc->ew, NULL, r->ts, req);
    case INS_REC_MSG + RT_MSG_RECV:
        return OTF2_EvtWriter_MpiIrecv(loc->ew, NULL, r->ts, payload, comm, round, r->bytes,
                                       req);
    case INS_REC_ARRIVAL:
        return write_arrival(loc, r, payload, wrote);
    case INS_REC_CHOICE:
        return write_choice(loc, r, payload, wrote);
    default:
        return OTF2_ERROR_INVALID_DATA;
    }
}

/* May run on any thread: the one closing the trace, or the one that filled the buffer. */
void ins__collect_write(ins_loc_t *loc)
{
    for (uint32_t i = 0; i < loc->n && loc->failed == OTF2_SUCCESS; i++) {
        const ins_rec_t *r = &loc->buf[i];
        int wrote = 1;
        OTF2_ErrorCode rc = (r->ref & INS_REC_EXT) ? write_ext(loc, r, &wrote)
                                                   : write_visit(loc, r);

        if (rc != OTF2_SUCCESS) {
            loc->failed = rc;
            break;
        }
        if (!wrote)
            continue;
        if (loc->written++ == 0)
            loc->first_ts = r->ts;
        loc->last_ts = r->ts;
    }
    loc->n = 0;
}

static __attribute__((noinline)) void loc_flush(ins_loc_t *loc)
{
    ins__collect_write(loc);
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
    r->ref = (instance * loc->nnodes + node) | (what == RT_VISIT_LEAVE ? INS_REC_LEAVE : 0);
    r->bytes = (uint32_t)bytes;
}

/*
 * The algorithm node's collective and its messages (rt_hooks.h), on its
 * location: as cheap as a visit (a clock read, a compare, four stores).
 * The root is not kept: the node is always traced as an allreduce
 * (ins_schema.h), whatever pair of algorithms runs it; nor the node, which
 * is the tree's root.
 */
static void hook_coll(void *locp, rt_visit_t what, unsigned instance, rt_node_id_t node,
                      uint64_t seq, int32_t root, size_t bytes)
{
    ins_loc_t *loc = locp;
    uint64_t ts = ins__clock_now();
    ins_rec_t *r;

    (void)node, (void)root;
    if (__builtin_expect(loc->n == loc->cap, 0))
        loc_flush(loc);
    r = &loc->buf[loc->n++];
    r->ts = ts;
    r->op = seq;
    r->ref = INS_REC_EXT |
             (uint32_t)(what == RT_VISIT_LEAVE ? INS_REC_COLL_END : INS_REC_COLL_BEGIN)
                 << INS_REC_KIND_SHIFT |
             (instance & INS_REC_PAYLOAD);
    r->bytes = (uint32_t)bytes;
}

static void hook_msg(void *locp, rt_msg_t what, unsigned instance, int32_t peer, int32_t round,
                     uint32_t step, size_t bytes)
{
    ins_loc_t *loc = locp;
    uint64_t ts = ins__clock_now();
    ins_rec_t *r;

    (void)instance;             /* the collective's, recorded at its BEGIN */
    if (__builtin_expect(loc->n == loc->cap, 0))
        loc_flush(loc);
    r = &loc->buf[loc->n++];
    r->ts = ts;
    r->op = (uint64_t)step << 32 | (uint32_t)round;
    r->ref = INS_REC_EXT | (uint32_t)(INS_REC_MSG + what) << INS_REC_KIND_SHIFT |
             ((uint32_t)peer & INS_REC_PAYLOAD);
    r->bytes = (uint32_t)bytes;
}

/* One record of a report that takes several (an arrival report, a choice:
   ins_int.h): its kind, its payload (part and data) and a value. */
static void part_rec(ins_loc_t *loc, uint64_t ts, uint32_t kind, uint32_t payload, int64_t v)
{
    ins_rec_t *r;

    if (__builtin_expect(loc->n == loc->cap, 0))
        loc_flush(loc);
    r = &loc->buf[loc->n++];
    r->ts = ts;
    r->op = (uint64_t)v;
    r->ref = INS_REC_EXT | kind << INS_REC_KIND_SHIFT | payload;
    r->bytes = 0;
}

static void arrival_rec(ins_loc_t *loc, uint64_t ts, uint32_t part, uint32_t data, int64_t v)
{
    part_rec(loc, ts, INS_REC_ARRIVAL, part << INS_REC_PART_SHIFT | data, v);
}

/*
 * Where a PAP-aware node's arrival times came from (rt_hooks.h), once per
 * operation on its algorithm location: three records (its instance and
 * operation are the collective's, begun just before).  A source or a
 * missing rank that does not fit is recorded as such and refused when the
 * trace is written, never turned into another value.
 */
static void hook_arrival(void *locp, unsigned instance, rt_node_id_t node, uint64_t seq,
                         const rt_arrival_report_t *rep)
{
    ins_loc_t *loc = locp;
    uint64_t ts = ins__clock_now();
    uint32_t asked = (uint32_t)rep->asked < INS_NARRIVAL ? (uint32_t)rep->asked : 3u;
    uint32_t used = (uint32_t)rep->used < INS_NARRIVAL ? (uint32_t)rep->used : 3u;
    uint32_t missing = rep->missing >= -1 && rep->missing < (int32_t)INS_REC_MISSING_MAX
                       ? (uint32_t)(rep->missing + 1) : INS_REC_MISSING_MAX + 1;

    (void)instance, (void)node, (void)seq;
    arrival_rec(loc, ts, 0, asked | used << 2 | missing << 4, rep->error_ns);
    arrival_rec(loc, ts, 1, 0, rep->lead_ns);
    arrival_rec(loc, ts, 2, 0, rep->wait_ns);
}

static void choice_rec(ins_loc_t *loc, uint64_t ts, uint32_t part, uint32_t data, int64_t v)
{
    part_rec(loc, ts, INS_REC_CHOICE, part << INS_CHOICE_PART_SHIFT | data, v);
}

/*
 * What an auto node chose (rt_hooks.h), once per operation on its algorithm
 * location: 3 + 2 x ncand records, the last of which makes the event.  A
 * choice that does not fit the encoding (more candidates than the schema
 * has attributes for, an index or reason out of range) is recorded with
 * ncand 0 and refused when the trace is written, never changed.
 */
static void hook_choice(void *locp, unsigned instance, rt_node_id_t node, uint64_t seq,
                        const rt_auto_t *a, const rt_auto_choice_t *c)
{
    ins_loc_t *loc = locp;
    uint64_t ts = ins__clock_now();
    uint32_t ncand = c->ncand <= INS_AUTO_CAND_MAX ? c->ncand : 0;
    bool fits = ncand > 0 && c->chosen >= 0 && (uint32_t)c->chosen < ncand &&
                (uint32_t)c->reason < INS_NREASON;

    (void)instance, (void)node, (void)seq, (void)a;
    if (!fits)
        ncand = 0;
    choice_rec(loc, ts, 0, fits ? (uint32_t)c->chosen | (uint32_t)c->reason << 4 | ncand << 6 : 0,
               c->spread_ns);
    choice_rec(loc, ts, 1, 0, (int64_t)c->skipped);
    for (uint32_t i = 0; i < ncand; i++) {
        choice_rec(loc, ts, INS_CHOICE_PRED + i, 0, c->pred_ns[i]);
        choice_rec(loc, ts, INS_CHOICE_CORR + i, 0, c->corr_ns[i]);
    }
    choice_rec(loc, ts, INS_CHOICE_END, 0, 0);
}

void ins__collect_hooks(ins_trace_t *tr)
{
    tr->hooks = (rt_hooks_t){ .ud = tr, .location = hook_location, .visit = hook_visit,
                              .coll = hook_coll, .msg = hook_msg, .arrival = hook_arrival,
                              .choice = hook_choice };
}

/*
 * Writes one byte per page, so the page faults happen now and not inside
 * the measured loop (a first-touch fault costs ~9 ns per event there,
 * bench/tracebench).  Through a volatile pointer, because a compiler may
 * turn malloc + memset into calloc, which leaves fresh pages untouched.
 */
void ins__touch_pages(void *p, size_t len)
{
    volatile unsigned char *c = p;

    for (size_t i = 0; i < len; i += 4096)
        c[i] = 0;
}

int ins__collect_buffer(ins_loc_t *loc, size_t bytes)
{
    size_t nrec = bytes / sizeof(ins_rec_t);

    loc->cap = (uint32_t)(nrec < UINT32_MAX ? nrec : UINT32_MAX);
    loc->buf = malloc((size_t)loc->cap * sizeof(ins_rec_t));
    if (loc->buf == NULL)
        return -1;
    ins__touch_pages(loc->buf, (size_t)loc->cap * sizeof(ins_rec_t));
    return 0;
}

uint64_t ins_trace_flushes(const ins_trace_t *tr)
{
    uint64_t n = 0;

    for (uint32_t i = 0; i < tr->nloc; i++)
        n += __atomic_load_n(&tr->locs[i].flushes, __ATOMIC_RELAXED);
    return n;
}
