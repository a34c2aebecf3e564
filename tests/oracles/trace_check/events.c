/*
 * events.c - trace_check's checks 6 (clocks) and 7 (Enter and Leave
 * events), and the event reader that dispatches every record.
 */
#include "tests/oracles/trace_check/tc_int.h"

/* ---------------------------------------------------------------- 6. clocks */

static OTF2_CallbackCode on_offset(void *ud, OTF2_TimeStamp time, int64_t offset, double sd)
{
    tc_loc_t *l = ud;

    if (l->noffsets < 2) {
        l->off_time[l->noffsets] = time;
        l->offset[l->noffsets] = offset;
        l->off_sd[l->noffsets] = sd;
    }
    l->noffsets++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_unknown_local(void *ud)
{
    ((tc_loc_t *)ud)->nunknown_defs++;
    return OTF2_CALLBACK_SUCCESS;
}

void read_local_defs(tc_ctx_t *c, OTF2_Reader *rd)
{
    OTF2_DefReaderCallbacks *cb = OTF2_DefReaderCallbacks_New();
    OTF2_ErrorCode rc = cb != NULL ? OTF2_Reader_OpenDefFiles(rd) : OTF2_ERROR_MEM_ALLOC_FAILED;

    if (rc != OTF2_SUCCESS) {
        tc_fail(c, "local definition files: expected readable, got %s", OTF2_Error_GetName(rc));
    } else {
        OTF2_DefReaderCallbacks_SetClockOffsetCallback(cb, on_offset);
        OTF2_DefReaderCallbacks_SetUnknownCallback(cb, on_unknown_local);
    }
    for (uint32_t i = 0; rc == OTF2_SUCCESS && i < c->nlocs; i++) {
        tc_loc_t *l = &c->locs[i];
        OTF2_DefReader *dr = l->defined ? OTF2_Reader_GetDefReader(rd, l->id) : NULL;
        OTF2_ErrorCode lrc = OTF2_ERROR_INVALID_ARGUMENT;
        uint64_t n = 0;

        if (dr != NULL) {
            if ((lrc = OTF2_Reader_RegisterDefCallbacks(rd, dr, cb, l)) == OTF2_SUCCESS)
                lrc = OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
            OTF2_Reader_CloseDefReader(rd, dr);
        }
        if (l->defined && lrc != OTF2_SUCCESS)
            tc_fail(c, "%s local definitions: expected readable, got %s", l->label,
                    OTF2_Error_GetName(lrc));
    }
    if (rc == OTF2_SUCCESS)
        OTF2_Reader_CloseDefFiles(rd);
    OTF2_DefReaderCallbacks_Delete(cb);
}

/*
 * The two ClockOffset records were taken at the start and the end of the run,
 * so they bracket the location's events.  Events are read with the offsets
 * applied (global time), the records hold local time: allow for the offset.
 */
static void check_offset_span(tc_ctx_t *c, const tc_loc_t *l)
{
    uint64_t a0 = l->offset[0] < 0 ? 0 - (uint64_t)l->offset[0] : (uint64_t)l->offset[0];
    uint64_t a1 = l->offset[1] < 0 ? 0 - (uint64_t)l->offset[1] : (uint64_t)l->offset[1];
    uint64_t slack = a0 > a1 ? a0 : a1;

    if (l->nevents == 0)
        return;
    if (l->off_time[0] > l->first_time && l->off_time[0] - l->first_time > slack)
        tc_fail(c, "%s first ClockOffset time: expected <= the first event (%" PRIu64 "), "
                "got %" PRIu64, l->label, l->first_time, l->off_time[0]);
    if (l->off_time[1] < l->last_time && l->last_time - l->off_time[1] > slack)
        tc_fail(c, "%s last ClockOffset time: expected >= the last event (%" PRIu64 "), "
                "got %" PRIu64, l->label, l->last_time, l->off_time[1]);
}

void check_clocks(tc_ctx_t *c)
{
    expect_u64(c, 1, c->nclock, "ClockProperties definitions");
    if (c->nclock > 0 && c->resolution == 0)
        tc_fail(c, "ClockProperties resolution: expected > 0, got 0");
    if (c->nclock > 0 && c->clock_ns)
        expect_u64(c, 1000000000, c->resolution, "ClockProperties resolution (clock "
                   INS_CLOCK_MONO_RAW " ticks in ns)");
    if (c->nclock > 0 && c->n_outside > 0)
        tc_fail(c, "events outside the ClockProperties span [%" PRIu64 ", %" PRIu64 "]: "
                "expected 0, got %" PRIu64 " (the first on location %" PRIu64 " at %" PRIu64 ")",
                c->t_first, c->t_last, c->n_outside, c->outside_loc, c->outside_time);
    for (uint32_t i = 0; i < c->nlocs; i++) {
        const tc_loc_t *l = &c->locs[i];
        if (!l->defined)
            continue;
        expect_u64(c, 0, l->nunknown_defs, "%s local definition records of unknown type",
                   l->label);
        expect_u64(c, 2, l->noffsets, "%s ClockOffset records", l->label);
        if (l->noffsets < 2)
            continue;
        check_offset_span(c, l);
        if (l->off_time[1] <= l->off_time[0])
            tc_fail(c, "%s ClockOffset times: expected the second > the first (%" PRIu64 "), "
                    "got %" PRIu64, l->label, l->off_time[0], l->off_time[1]);
        if (!(l->off_sd[0] >= 0 && l->off_sd[1] >= 0))
            tc_fail(c, "%s ClockOffset standard deviations: expected >= 0, got %g and %g",
                    l->label, l->off_sd[0], l->off_sd[1]);
        if (l->rank == 0 && (l->offset[0] != 0 || l->offset[1] != 0))
            tc_fail(c, "%s ClockOffset offsets: expected 0 and 0 on rank 0, got %" PRId64
                    " and %" PRId64, l->label, l->offset[0], l->offset[1]);
    }
}

/* ---------------------------------------------------------------- 7. events */

/* Counts a visit (or a continuation) of region in op; false if op is out of range. */
static bool count_op(tc_ctx_t *c, uint64_t region, uint64_t op, bool nest)
{
    tc_count_t *k = &c->counts[region];
    uint64_t limit = c->have_ops ? ops_of(c, (unsigned)(region / c->tree->nnodes)) : TC_OP_MAX;

    if (op >= limit)
        return false;
    if (op >= k->len) {
        size_t len = c->have_ops ? limit : (op + 1) * 2, old = k->len;
        uint32_t *v = realloc(k->visits, len * sizeof(*v)), *n;
        if (v != NULL)
            k->visits = v;
        if (v == NULL || (n = realloc(k->nests, len * sizeof(*n))) == NULL)
            return c->oom = true;
        k->nests = n;
        memset(v + old, 0, (len - old) * sizeof(*v));
        memset(n + old, 0, (len - old) * sizeof(*n));
        k->len = len;
    }
    (nest ? k->nests : k->visits)[op]++;
    return true;
}

/* What every event shares: its location (NULL if unknown), time and count. */
tc_loc_t *event_begin(tc_ctx_t *c, OTF2_LocationRef id, OTF2_TimeStamp t, const char *kind)
{
    tc_loc_t *l = find_loc(c, id);
    uint64_t pos = 0;

    c->total_events++;
    if (l == NULL) {
        tc_fail(c, "location %" PRIu64 " %s event: expected a pathmap location, got one", id, kind);
        return NULL;
    }
    if (++l->nevents == 1)
        l->first_time = t;
    else if (t < l->last_time)
        ev_fail(c, l, "(%s) time: expected >= %" PRIu64 ", got %" PRIu64, kind, l->last_time, t);
    /* Records without a callback are skipped silently, but the reader's position
     * counts them.  (The global reader frees a location's reader at its end:
     * ask only here, while it delivers.) */
    if (!l->skipped && l->evr != NULL && OTF2_EvtReader_GetPos(l->evr, &pos) == OTF2_SUCCESS &&
        pos != l->nevents) {
        ev_fail(c, l, "(%s) position: expected record %" PRIu64 " (only records of the "
                "types checked here so far), got record %" PRIu64, kind, l->nevents, pos);
        l->skipped = true;
    }
    l->last_time = t;
    if ((t < c->t_first || t > c->t_last) && c->n_outside++ == 0) {
        c->outside_loc = id;
        c->outside_time = t;
    }
    return l;
}

static bool event_attrs(tc_ctx_t *c, const tc_loc_t *l, OTF2_AttributeList *al,
                        const char *kind, uint64_t *op, uint64_t *bytes)
{
    uint32_t n = al != NULL ? OTF2_AttributeList_GetNumberOfElements(al) : 0;
    OTF2_ErrorCode rc;

    if (n != 2)
        ev_fail(c, l, "(%s) attributes: expected 2, got %u", kind, n);
    if (n == 0)
        return false;
    if ((rc = OTF2_AttributeList_GetUint64(al, INS_ATTR_OP_ID, op)) != OTF2_SUCCESS ||
        (rc = OTF2_AttributeList_GetUint64(al, INS_ATTR_BYTES_ID, bytes)) != OTF2_SUCCESS) {
        ev_fail(c, l, "(%s) attributes op and bytes: expected uint64, got %s", kind,
                OTF2_Error_GetName(rc));
        return false;
    }
    return true;
}

/* A visit that starts a walk: the location's first wrapper, the next op. */
static void enter_top(tc_ctx_t *c, tc_loc_t *l, uint64_t region, uint64_t op, uint64_t bytes)
{
    unsigned inst = (unsigned)(region / c->tree->nnodes);
    uint64_t want = (uint64_t)(l->service ? l->instance : inst) * c->tree->nnodes + l->first;
    char a[160], b[160];

    if (region != want)
        ev_fail(c, l, "top-level Enter: expected %s, got %s", region_label(c, want, a, sizeof(a)),
                region_label(c, region, b, sizeof(b)));
    if (op != l->next_op[inst])
        ev_fail(c, l, "top-level op on instance %u: expected %" PRIu64 ", got %" PRIu64, inst,
                l->next_op[inst], op);
    if (bytes == 0 || bytes % rt_dtype_size(c->tree->dtype) != 0)
        ev_fail(c, l, "bytes: expected a positive multiple of %zu (%s), got %" PRIu64,
                rt_dtype_size(c->tree->dtype), rt_dtype_name(c->tree->dtype), bytes);
    l->next_op[inst] = op + 1;
}

/* A visit inside f: only from a gred, once, into its parent, same op and bytes. */
static void enter_nested(tc_ctx_t *c, tc_loc_t *l, tc_frame_t *f, uint64_t region,
                         uint64_t op, uint64_t bytes)
{
    const rt_node_t *outer = node_of(c, f->region);
    uint64_t want = f->region - f->region % c->tree->nnodes + outer->parent;
    char a[160], b[160];

    region_label(c, f->region, a, sizeof(a));
    region_label(c, region, b, sizeof(b));
    if (outer->kind != RT_NODE_GRED)
        ev_fail(c, l, "Enter inside %s: expected none (a %s never continues), got %s", a,
                rt_node_kind_name(outer->kind), b);
    else if (c->tree->nodes[outer->parent].kind == RT_NODE_ALGO)
        ev_fail(c, l, "Enter inside %s: expected none (its parent, an algorithm node, is "
                "visited on the host's algorithm location), got %s", a, b);
    else if (f->nested)
        ev_fail(c, l, "Enter inside %s: expected none (a gred visit continues once), got %s",
                a, b);
    else if (region != want)
        ev_fail(c, l, "nested Enter: expected %s, got %s", region_label(c, want, a, sizeof(a)), b);
    if (op != f->op || bytes != f->bytes)
        ev_fail(c, l, "nested Enter op/bytes: expected %" PRIu64 "/%" PRIu64 ", got %" PRIu64
                "/%" PRIu64, f->op, f->bytes, op, bytes);
    if (!f->nested)
        count_op(c, f->region, f->op, true);
    f->nested = true;
}

static OTF2_CallbackCode on_enter(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, OTF2_RegionRef region)
{
    tc_ctx_t *c = ud;
    tc_loc_t *l = event_begin(c, id, t, "Enter");
    uint64_t op = 0, bytes = 0;
    char a[160];

    if (l == NULL || !event_attrs(c, l, al, "Enter", &op, &bytes))
        return OTF2_CALLBACK_SUCCESS;
    if (region >= c->nregions) {
        ev_fail(c, l, "Enter region: expected < %" PRIu64 ", got %u", c->nregions, region);
        return OTF2_CALLBACK_SUCCESS;
    }
    if (l->depth == 0) {
        enter_top(c, l, region, op, bytes);
        l->in_coll = l->coll_done = false;
        l->arrivals = l->coll_events = l->choices = 0;
    }
    else
        enter_nested(c, l, &l->stack[l->depth - 1], region, op, bytes);
    if (!count_op(c, region, op, false))
        ev_fail(c, l, "Enter %s op: expected < %" PRIu64 ", got %" PRIu64,
                region_label(c, region, a, sizeof(a)),
                c->have_ops ? ops_of(c, (unsigned)(region / c->tree->nnodes)) : TC_OP_MAX, op);
    if (l->depth > c->tree->nnodes)
        ev_fail(c, l, "nesting depth: expected <= %u, got more", c->tree->nnodes);
    else
        l->stack[l->depth++] = (tc_frame_t){ region, op, bytes, false };
    return c->oom ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_leave(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, OTF2_RegionRef region)
{
    tc_ctx_t *c = ud;
    tc_loc_t *l = event_begin(c, id, t, "Leave");
    uint64_t op = 0, bytes = 0;
    tc_frame_t *f;
    char a[160], b[160];

    if (l == NULL || !event_attrs(c, l, al, "Leave", &op, &bytes))
        return OTF2_CALLBACK_SUCCESS;
    region_label(c, region, b, sizeof(b));
    if (l->depth == 0) {
        ev_fail(c, l, "Leave of %s: expected an open visit, got none", b);
        return OTF2_CALLBACK_SUCCESS;
    }
    f = &l->stack[--l->depth];
    if (region != f->region || op != f->op || bytes != f->bytes)
        ev_fail(c, l, "Leave: expected %s op %" PRIu64 " bytes %" PRIu64 ", got %s op %" PRIu64
                " bytes %" PRIu64, region_label(c, f->region, a, sizeof(a)), f->op, f->bytes,
                b, op, bytes);
    if (l->algo && l->depth == 0 && (l->in_coll || !l->coll_done))
        ev_fail(c, l, "Leave of %s: expected after its MpiCollectiveEnd, got %s", b,
                l->in_coll ? "an open collective" : "no collective in the visit");
    if (l->algo && l->depth == 0 && l->arrivals != (c->pap ? 1u : 0u))
        ev_fail(c, l, "Leave of %s op %" PRIu64 ": expected %u %s event%s in the visit (%s), "
                "got %u", b, f->op, c->pap ? 1 : 0, INS_PARAM_ARRIVAL, c->pap ? "" : "s",
                c->pap ? "PAP-aware" : "not PAP-aware", l->arrivals);
    if (l->algo && l->depth == 0 && l->choices != (c->autocfg != NULL ? 1u : 0u))
        ev_fail(c, l, "Leave of %s op %" PRIu64 ": expected %u %s event%s in the visit, got %u",
                b, f->op, c->autocfg != NULL ? 1 : 0, INS_PARAM_AUTO,
                c->autocfg != NULL ? " (an auto node)" : "s", l->choices);
    return OTF2_CALLBACK_SUCCESS;
}

static void other_event(tc_ctx_t *c, OTF2_LocationRef id, OTF2_TimeStamp t, const char *kind)
{
    tc_loc_t *l = event_begin(c, id, t, kind);

    if (l != NULL)
        ev_fail(c, l, "type: expected Enter or Leave, got %s", kind);
}

static OTF2_CallbackCode on_flush(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, OTF2_TimeStamp stop)
{
    (void)al, (void)stop;
    other_event(ud, id, t, "BufferFlush");
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_unknown(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                    OTF2_AttributeList *al)
{
    (void)al;
    other_event(ud, id, t, "an unknown record");
    return OTF2_CALLBACK_SUCCESS;
}

/* Runs the global event reader (time order over all locations) with our callbacks. */
static OTF2_ErrorCode run_events(tc_ctx_t *c, OTF2_Reader *rd, OTF2_GlobalEvtReaderCallbacks *cb)
{
    OTF2_GlobalEvtReader *ger = OTF2_Reader_GetGlobalEvtReader(rd);
    OTF2_ErrorCode rc;
    uint64_t n = 0;

    if (ger == NULL) {
        tc_fail(c, "global event reader: expected one, got none; no event checked");
        return OTF2_ERROR_INVALID_DATA;
    }
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
    OTF2_GlobalEvtReaderCallbacks_SetUnknownCallback(cb, on_unknown);
    rc = OTF2_Reader_RegisterGlobalEvtCallbacks(rd, ger, cb, c);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Reader_ReadAllGlobalEvents(rd, ger, &n);
    if (rc != OTF2_SUCCESS && !c->oom)
        tc_fail(c, "reading events: expected success, got %s", OTF2_Error_GetName(rc));
    OTF2_Reader_CloseGlobalEvtReader(rd, ger);
    return rc;
}

/* Reads every defined location's events; false if they could not all be read. */
bool read_events(tc_ctx_t *c, OTF2_Reader *rd)
{
    OTF2_GlobalEvtReaderCallbacks *cb = OTF2_GlobalEvtReaderCallbacks_New();
    OTF2_ErrorCode rc = cb != NULL ? OTF2_Reader_OpenEvtFiles(rd) : OTF2_ERROR_MEM_ALLOC_FAILED;
    bool missing = false;

    if (rc != OTF2_SUCCESS) {
        tc_fail(c, "event files: expected readable, got %s", OTF2_Error_GetName(rc));
        OTF2_GlobalEvtReaderCallbacks_Delete(cb);
        return false;
    }
    /* Every location needs its own reader before the global one exists. */
    for (uint32_t i = 0; i < c->nlocs; i++) {
        tc_loc_t *l = &c->locs[i];
        if (l->defined && (l->evr = OTF2_Reader_GetEvtReader(rd, l->id)) == NULL) {
            tc_fail(c, "%s event reader: expected one, got none (no .evt file?); no event "
                    "checked", l->label);
            missing = true;
        }
    }
    if (!missing)
        rc = run_events(c, rd, cb);
    OTF2_Reader_CloseEvtFiles(rd);
    OTF2_GlobalEvtReaderCallbacks_Delete(cb);
    return !missing && rc == OTF2_SUCCESS;
}
