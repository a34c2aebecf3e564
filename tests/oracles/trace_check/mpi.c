/*
 * mpi.c - trace_check's checks 9 (an algorithm node's MPI events) and 10
 * (a PAP-aware node's arrival events).
 */
#include "tests/oracles/trace_check/tc_int.h"

/* ---------------------------------- 9. an algorithm node's MPI events */

/*
 * An MPI event of an algorithm location inside its visit of the node (and,
 * but for the begin, inside the collective): its location, or NULL after
 * a FAIL line.  *f is the visit.
 */
static tc_loc_t *mpi_event(tc_ctx_t *c, OTF2_LocationRef id, OTF2_TimeStamp t,
                           const char *kind, bool begin, tc_frame_t **f)
{
    tc_loc_t *l = event_begin(c, id, t, kind);

    if (l == NULL)
        return NULL;
    if (!l->algo) {
        ev_fail(c, l, "type: expected Enter or Leave (MPI events only on an algorithm "
                "location), got %s", kind);
        return NULL;
    }
    if (l->depth != 1) {
        ev_fail(c, l, "(%s): expected inside the visit of %s, got at depth %u", kind,
                c->algo->name, l->depth);
        return NULL;
    }
    *f = &l->stack[0];
    if (!begin)
        l->coll_events++;
    if (begin ? l->in_coll || l->coll_done : !l->in_coll) {
        ev_fail(c, l, "(%s): expected %s, got %s", kind,
                begin ? "one collective per visit" : "inside MpiCollectiveBegin .. End",
                begin ? "a second" : "outside");
        return NULL;
    }
    return l;
}

static unsigned inst_of(const tc_ctx_t *c, const tc_frame_t *f)
{
    return (unsigned)(f->region / c->tree->nnodes);
}

/* A message's fields: communicator, peer, request. */
static void check_msg(tc_ctx_t *c, const tc_loc_t *l, const tc_frame_t *f, const char *kind,
                      uint32_t peer, OTF2_CommRef comm, uint64_t req)
{
    expect_u64(c, inst_of(c, f), comm, "%s event %" PRIu64 " (%s) communicator", l->label,
               l->nevents - 1, kind);
    if (peer >= c->algo->algo->nhosts || peer == l->node_rank)
        ev_fail(c, l, "(%s) peer: expected a rank of the node 0..%u other than %u, got %u",
                kind, c->algo->algo->nhosts - 1, l->node_rank, peer);
    if (req >> 32 != f->op)
        ev_fail(c, l, "(%s) request %" PRIu64 ": expected op %" PRIu64 " << 32 | step", kind,
                req, f->op);
}

/* Posts (add) or completes (remove) request id; a FAIL line if it was (not) posted. */
static void request(tc_ctx_t *c, tc_loc_t *l, const char *kind, uint64_t id, bool recv,
                    bool add)
{
    for (size_t i = 0; i < l->nreqs; i++) {
        if (l->reqs[i].id != id)
            continue;
        if (add)
            ev_fail(c, l, "(%s) request %" PRIu64 ": expected a new one, got one pending",
                    kind, id);
        else if (l->reqs[i].recv != recv)
            ev_fail(c, l, "(%s) request %" PRIu64 ": expected a %s, got a %s's", kind, id,
                    recv ? "receive" : "send", recv ? "send" : "receive");
        else
            l->reqs[i] = l->reqs[--l->nreqs];
        return;
    }
    if (!add) {
        ev_fail(c, l, "(%s) request %" PRIu64 ": expected a posted one, got none", kind, id);
        return;
    }
    if (l->nreqs == l->capreqs) {
        size_t cap = l->capreqs ? 2 * l->capreqs : 16;
        tc_req_t *r = realloc(l->reqs, cap * sizeof(*r));
        if (r == NULL) {
            c->oom = true;
            return;
        }
        l->reqs = r;
        l->capreqs = cap;
    }
    l->reqs[l->nreqs++] = (tc_req_t){ id, recv };
}

static void note_msg(tc_ctx_t *c, tc_vec_t *v, const tc_frame_t *f, uint64_t src, uint64_t dst,
                     uint64_t tag, uint64_t len)
{
    tc_msg_t *m = vec_push(c, v);

    if (m != NULL)
        *m = (tc_msg_t){ inst_of(c, f), f->op, src, dst, tag, len };
}

OTF2_CallbackCode on_coll_begin(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                OTF2_AttributeList *al)
{
    tc_frame_t *f;
    tc_loc_t *l = mpi_event(ud, id, t, "MpiCollectiveBegin", true, &f);

    (void)al;
    if (l != NULL)
        l->in_coll = true;
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_coll_end(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                              OTF2_AttributeList *al, OTF2_CollectiveOp op,
                              OTF2_CommRef comm, uint32_t root, uint64_t sent,
                              uint64_t received)
{
    tc_ctx_t *c = ud;
    tc_frame_t *f;
    tc_loc_t *l = mpi_event(c, id, t, "MpiCollectiveEnd", false, &f);
    char what[160];

    (void)al;
    if (l == NULL)
        return OTF2_CALLBACK_SUCCESS;
    snprintf(what, sizeof(what), "%s event %" PRIu64 " (MpiCollectiveEnd)", l->label,
             l->nevents - 1);
    expect_u64(c, OTF2_COLLECTIVE_OP_ALLREDUCE, op, "%s operation", what);
    expect_u64(c, inst_of(c, f), comm, "%s communicator", what);
    expect_u64(c, OTF2_UNDEFINED_UINT32, root, "%s root", what);
    expect_u64(c, f->bytes, sent, "%s bytes sent (the tuple's)", what);
    expect_u64(c, f->bytes, received, "%s bytes received (the tuple's)", what);
    if (l->nreqs > 0)
        ev_fail(c, l, "(MpiCollectiveEnd): expected every request completed, got %zu pending "
                "(request %" PRIu64 ")", l->nreqs, l->reqs[0].id);
    l->nreqs = 0;
    l->in_coll = false;
    l->coll_done = true;
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_isend(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                           OTF2_AttributeList *al, uint32_t receiver, OTF2_CommRef comm,
                           uint32_t tag, uint64_t len, uint64_t req)
{
    tc_ctx_t *c = ud;
    tc_frame_t *f;
    tc_loc_t *l = mpi_event(c, id, t, "MpiIsend", false, &f);

    (void)al;
    if (l != NULL) {
        check_msg(c, l, f, "MpiIsend", receiver, comm, req);
        request(c, l, "MpiIsend", req, false, true);
        note_msg(c, &c->sends, f, l->node_rank, receiver, tag, len);
    }
    return c->oom ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_isend_done(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                OTF2_AttributeList *al, uint64_t req)
{
    tc_frame_t *f;
    tc_loc_t *l = mpi_event(ud, id, t, "MpiIsendComplete", false, &f);

    (void)al;
    if (l != NULL)
        request(ud, l, "MpiIsendComplete", req, false, false);
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_irecv_post(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                OTF2_AttributeList *al, uint64_t req)
{
    tc_ctx_t *c = ud;
    tc_frame_t *f;
    tc_loc_t *l = mpi_event(c, id, t, "MpiIrecvRequest", false, &f);

    (void)al;
    if (l != NULL) {
        if (req >> 32 != f->op)
            ev_fail(c, l, "(MpiIrecvRequest) request %" PRIu64 ": expected op %" PRIu64
                    " << 32 | step", req, f->op);
        request(c, l, "MpiIrecvRequest", req, true, true);
    }
    return c->oom ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_irecv(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                           OTF2_AttributeList *al, uint32_t sender, OTF2_CommRef comm,
                           uint32_t tag, uint64_t len, uint64_t req)
{
    tc_ctx_t *c = ud;
    tc_frame_t *f;
    tc_loc_t *l = mpi_event(c, id, t, "MpiIrecv", false, &f);

    (void)al;
    if (l != NULL) {
        check_msg(c, l, f, "MpiIrecv", sender, comm, req);
        request(c, l, "MpiIrecv", req, true, false);
        note_msg(c, &c->recvs, f, sender, l->node_rank, tag, len);
    }
    return c->oom ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

/* ---------------------------------- 10. a PAP-aware node's arrival events */

/* The source a string names (0 equal, 1 history, 2 edge), or -1. */
static int source_of(const char *s)
{
    static const char *const names[] = { INS_ARRIVAL_EQUAL, INS_ARRIVAL_HISTORY,
                                         INS_ARRIVAL_EDGE };

    for (int i = 0; s != NULL && i < 3; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

/* An int64 attribute: true and *v if present (absent is not an OTF2 error here). */
static bool attr_i64(OTF2_AttributeList *al, OTF2_AttributeRef id, int64_t *v)
{
    return OTF2_AttributeList_TestAttributeByID(al, id) &&
           OTF2_AttributeList_GetInt64(al, id, v) == OTF2_SUCCESS;
}

/* The used source and the optional attributes against the asked one (10.). */
/* history is per instance: equal exactly on an instance's first operation.
   edge's fallback is the node's previous operation, whatever its instance:
   only the node's very first operation on this host has no history. */
static void check_arrival_values(tc_ctx_t *c, tc_loc_t *l, const tc_frame_t *f,
                                 int used, OTF2_AttributeList *al)
{
    int asked = (int)c->algo->algo->arrival;
    int64_t v = 0, missing = -1;
    bool first = f->op == 0, node_first = l->arrivals_total++ == 0, est;

    if (used < 0 || used > asked || (asked == RT_ARRIVAL_HISTORY && used != (first ? 0 : 1))
        || (asked == RT_ARRIVAL_EDGE && node_first && used == RT_ARRIVAL_HISTORY))
        ev_fail(c, l, "(%s) op %" PRIu64 ": expected a source used that arrival=%s allows "
                "there, got %d", INS_PARAM_ARRIVAL, f->op, rt_arrival_name(c->algo->algo->arrival),
                used);
    if (attr_i64(al, INS_ATTR_MISSING_ID, &missing) &&
        (asked != RT_ARRIVAL_EDGE || used == RT_ARRIVAL_EDGE || missing < 0 ||
         missing >= (int64_t)c->algo->algo->nhosts))
        ev_fail(c, l, "(%s) %s: expected a rank of the node, and only when edge fell back, "
                "got %" PRId64, INS_PARAM_ARRIVAL, INS_ATTR_MISSING, missing);
    est = attr_i64(al, INS_ATTR_ERROR_ID, &v) || attr_i64(al, INS_ATTR_LEAD_ID, &v);
    if (est && asked != RT_ARRIVAL_EDGE)
        ev_fail(c, l, "(%s) %s/%s: expected none without arrival=edge, got one",
                INS_PARAM_ARRIVAL, INS_ATTR_ERROR, INS_ATTR_LEAD);
    if (!attr_i64(al, INS_ATTR_WAIT_ID, &v) || v < 0)
        ev_fail(c, l, "(%s) %s: expected an int64 >= 0, got %s", INS_PARAM_ARRIVAL,
                INS_ATTR_WAIT, "none or a negative one");
}

/*
 * An auto node's choice (ins_schema.h, "what `auto` chose"): once per visit,
 * after the arrival record and before the messages; its operation, the
 * candidate list of the pathmap's node, a known reason, a chosen name of
 * that list, the spread and skipped, predictions only of candidates that
 * exist and never negative.
 */
static void check_choice(tc_ctx_t *c, tc_loc_t *l, OTF2_AttributeList *al, OTF2_StringRef value)
{
    const rt_auto_cfg_t *cfg = c->autocfg;
    const char *chosen = str_of(c, value), *list = NULL, *reason = NULL;
    OTF2_StringRef ref;
    char want[RT_AUTO_CAND_MAX * (RT_PATHMAP_NAME_MAX + 1) + 1];
    size_t len = 0;
    uint64_t op = UINT64_MAX, skipped;
    int64_t v;
    bool known = false;

    if (cfg == NULL || !l->algo || l->depth != 1 || !l->in_coll || l->coll_events > 0
        || l->arrivals != 1 || l->choices++ > 0) {
        ev_fail(c, l, "(%s): expected one only in an auto node's visit, after its %s event "
                "and before its messages, got one %s", INS_PARAM_AUTO, INS_PARAM_ARRIVAL,
                cfg == NULL ? "in a trace without one" : !l->algo ? "on another location"
                : l->choices > 1 ? "more" : "elsewhere");
        return;
    }
    want[0] = '\0';
    for (uint32_t i = 0; i < cfg->ncand && len < sizeof(want); i++) {
        len += (size_t)snprintf(want + len, sizeof(want) - len, "%s%s", i ? "," : "",
                                cfg->cand[i]);
        known |= chosen != NULL && strcmp(chosen, cfg->cand[i]) == 0;
    }
    if (al == NULL || OTF2_AttributeList_GetUint64(al, INS_ATTR_OP_ID, &op) != OTF2_SUCCESS)
        op = UINT64_MAX;
    expect_u64(c, l->stack[0].op, op, "%s (%s) op", l->label, INS_PARAM_AUTO);
    if (al != NULL && OTF2_AttributeList_GetStringRef(al, INS_ATTR_CANDIDATES_ID, &ref)
                      == OTF2_SUCCESS)
        list = str_of(c, ref);
    expect_str(c, want, list, "%s (%s) candidates", l->label, INS_PARAM_AUTO);
    if (!known)
        ev_fail(c, l, "(%s) value: expected one of %s, got %s", INS_PARAM_AUTO, want,
                chosen != NULL ? chosen : "an undefined string");
    if (al != NULL && OTF2_AttributeList_GetStringRef(al, INS_ATTR_REASON_ID, &ref)
                      == OTF2_SUCCESS)
        reason = str_of(c, ref);
    if (reason == NULL || (strcmp(reason, "only") != 0 && strcmp(reason, "model") != 0
                           && strcmp(reason, "kept") != 0 && strcmp(reason, "explore") != 0))
        ev_fail(c, l, "(%s) %s: expected only, model, kept or explore, got %s", INS_PARAM_AUTO,
                INS_ATTR_REASON, reason != NULL ? reason : "none");
    if (al == NULL || !attr_i64(al, INS_ATTR_SPREAD_ID, &v) || v < 0)
        ev_fail(c, l, "(%s) %s: expected an int64 >= 0, got none or a negative one",
                INS_PARAM_AUTO, INS_ATTR_SPREAD);
    if (al == NULL || OTF2_AttributeList_GetUint64(al, INS_ATTR_SKIPPED_ID, &skipped)
                          != OTF2_SUCCESS || (skipped >> cfg->ncand) != 0)
        ev_fail(c, l, "(%s) %s: expected a mask of the %u candidates, got none or more",
                INS_PARAM_AUTO, INS_ATTR_SKIPPED, cfg->ncand);
    for (uint32_t i = 0; i < INS_AUTO_CAND_MAX; i++)
        for (int corr = 0; corr < 2; corr++) {
            uint32_t id = (corr ? INS_ATTR_CORR0_ID : INS_ATTR_PRED0_ID) + i;
            bool there = al != NULL && OTF2_AttributeList_TestAttributeByID(al, id);
            if (there && (i >= cfg->ncand || !attr_i64(al, id, &v) || v < 0))
                ev_fail(c, l, "(%s) attribute %u: expected only for candidates 0..%u, an "
                        "int64 >= 0", INS_PARAM_AUTO, id, cfg->ncand - 1);
        }
}

OTF2_CallbackCode on_param_string(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, OTF2_ParameterRef param,
                                  OTF2_StringRef value)
{
    tc_ctx_t *c = ud;
    tc_loc_t *l = event_begin(c, id, t, "ParameterString");
    uint32_t n = al != NULL ? OTF2_AttributeList_GetNumberOfElements(al) : 0;
    OTF2_StringRef asked = OTF2_UNDEFINED_STRING;
    uint64_t op = UINT64_MAX;
    tc_frame_t *f;

    if (l == NULL)
        return OTF2_CALLBACK_SUCCESS;
    if (param == INS_PARAM_AUTO_ID && c->autocfg != NULL) {
        check_choice(c, l, al, value);
        return OTF2_CALLBACK_SUCCESS;
    }
    if (!c->pap || !l->algo || l->depth != 1 || !l->in_coll || l->coll_events > 0 ||
        l->arrivals++ > 0) {
        ev_fail(c, l, "(ParameterString): expected one only in a PAP-aware node's visit, after "
                "MpiCollectiveBegin and before its messages, got one %s", !c->pap ?
                "in a trace without one" : !l->algo ? "on another location" : l->arrivals > 1
                ? "more" : "elsewhere");
        return OTF2_CALLBACK_SUCCESS;
    }
    f = &l->stack[0];
    expect_u64(c, INS_PARAM_ARRIVAL_ID, param, "%s event %" PRIu64 " parameter", l->label,
               l->nevents - 1);
    if (n < 3 || n > 6 || !OTF2_AttributeList_TestAttributeByID(al, INS_ATTR_OP_ID)
        || !OTF2_AttributeList_TestAttributeByID(al, INS_ATTR_ASKED_ID)
        || OTF2_AttributeList_GetUint64(al, INS_ATTR_OP_ID, &op) != OTF2_SUCCESS
        || OTF2_AttributeList_GetStringRef(al, INS_ATTR_ASKED_ID, &asked) != OTF2_SUCCESS) {
        ev_fail(c, l, "(%s) attributes: expected op, asked, wait and at most 3 others, got %u",
                INS_PARAM_ARRIVAL, n);
        return OTF2_CALLBACK_SUCCESS;
    }
    expect_u64(c, f->op, op, "%s event %" PRIu64 " (%s) op", l->label, l->nevents - 1,
               INS_PARAM_ARRIVAL);
    expect_str(c, rt_arrival_name(c->algo->algo->arrival), str_of(c, asked),
               "%s event %" PRIu64 " (%s) asked", l->label, l->nevents - 1, INS_PARAM_ARRIVAL);
    check_arrival_values(c, l, f, source_of(str_of(c, value)), al);
    return OTF2_CALLBACK_SUCCESS;
}
