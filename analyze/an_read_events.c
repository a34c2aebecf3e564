/*
 * an_read_events.c - a paptree archive's events into wrapper visits.
 *
 * Events are read with OTF2's global event reader, which merges the
 * locations in timestamp order after applying each location's ClockOffset
 * records, so hosts share one time line and the operations in flight at any
 * moment are few (what keeps an_ops.c's memory bounded).  Each location keeps
 * a stack of its open visits; a Leave completes one, which goes to the
 * caller's an_visit_fn with its times in ns from the trace's first event.
 * An algorithm location's MPI events, and a PAP-aware node's arrival
 * report (a ParameterString), go to the caller's an_msg_fn.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <otf2/otf2.h>

#include "analyze/an_read_int.h"
#include "instrument/api/ins_schema.h"

static int64_t to_ns(an_reader_t *r, OTF2_TimeStamp t)
{
    return (int64_t)llround((double)(int64_t)(t - r->base) * r->ns_per_tick);
}

/* The event's location, op and bytes, after the checks common to both kinds. */
static int event_begin(an_reader_t *r, const rd_ev_t *e, const char *what, int *li,
                       int64_t *ns, uint64_t *op, uint64_t *bytes)
{
    an_defs_t *d = r->defs;
    uint32_t region = e->a;

    r->nevents++;
    if ((*li = e->loc) < 0) {
        an__read_fail(r, CM_ERR_INVALID, "%s event on undefined location %" PRIu64, what,
                      e->op);
        return 0;
    }
    if (region >= (uint32_t)(d->nnodes * d->ninstances)) {
        an__read_fail(r, CM_ERR_INVALID, "%s event on '%s': undefined region %u", what,
                d->locs[*li].name, region);
        return 0;
    }
    *op = e->op;
    *bytes = e->bytes;
    if ((e->have & (RD_HAVE_OP | RD_HAVE_BYTES)) != (RD_HAVE_OP | RD_HAVE_BYTES)) {
        an__read_fail(r, CM_ERR_INVALID, "%s event on '%s': no %s/%s attribute", what,
                d->locs[*li].name, INS_ATTR_OP, INS_ATTR_BYTES);
        return 0;
    }
    *ns = to_ns(r, e->t);
    if (*ns < r->ls[*li].last) {
        an__read_fail(r, CM_ERR_INVALID, "%s event on '%s': time goes backwards", what,
                d->locs[*li].name);
        return 0;
    }
    r->ls[*li].last = *ns;
    return 1;
}

static OTF2_CallbackCode on_enter(an_reader_t *r, const rd_ev_t *e)
{
    an_defs_t *d = r->defs;
    uint32_t region = e->a;
    int li, node = (int)(region % (uint32_t)d->nnodes), inst = (int)(region / (uint32_t)d->nnodes);
    int64_t ns;
    uint64_t op, bytes;
    rd_locstate_t *s;
    an_location_t *l;
    int contrib;

    if (!event_begin(r, e, "Enter", &li, &ns, &op, &bytes))
        return OTF2_CALLBACK_INTERRUPT;
    s = &r->ls[li];
    l = &d->locs[li];
    if (s->depth == 0) {
        /* outermost: a thread at its entry wrapper, or a service thread at the proxy's parent */
        if (node != l->enter || (l->role == AN_ROLE_SERVICE && inst != l->instance)
            || (l->role == AN_ROLE_COMPUTE && d->nodes[node].kind == CM_KIND_ALGO))
            return an__read_fail(r, CM_ERR_INVALID, "'%s' enters %s#%d op %" PRIu64 ": it enters "
                           "%s%s", l->name, d->nodes[node].name, inst, op,
                           d->nodes[l->enter].name, l->role == AN_ROLE_SERVICE ? " of its instance" : "");
        /* a thread that enters the algorithm node directly has no visits of
         * its own: its host's algorithm location makes them (ins_schema.h) */
        contrib = l->role == AN_ROLE_COMPUTE ? d->threads[l->thread].contrib[0]
                : l->role == AN_ROLE_ALGO ? d->nodes[node].rank_contrib[l->rank]
                                          : d->nodes[l->proxy].pslot;
    } else {
        rd_frame_t *f = &s->stack[s->depth - 1];
        if (d->nodes[f->node].parent != node || f->instance != inst || f->op != op
            || f->bytes != bytes || f->nested)
            return an__read_fail(r, CM_ERR_INVALID, "'%s' enters %s#%d op %" PRIu64 " inside %s#%d "
                           "op %" PRIu64 ": not the next wrapper of that visit", l->name,
                           d->nodes[node].name, inst, op, d->nodes[f->node].name,
                           f->instance, f->op);
        f->nested = 1;
        contrib = d->nodes[f->node].pslot;
    }
    if (s->depth > d->maxsteps)
        return an__read_fail(r, CM_ERR_INVALID, "'%s': visits nested too deep", l->name);
    s->stack[s->depth++] = (rd_frame_t){ inst, node, contrib, op, bytes, ns, 0, 0, 0 };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_leave(an_reader_t *r, const rd_ev_t *e)
{
    an_defs_t *d = r->defs;
    uint32_t region = e->a;
    int li, node = (int)(region % (uint32_t)d->nnodes), inst = (int)(region / (uint32_t)d->nnodes);
    int64_t ns;
    uint64_t op, bytes;
    rd_locstate_t *s;
    rd_frame_t *f;
    an_visit_t v;
    cm_status_t st;

    if (!event_begin(r, e, "Leave", &li, &ns, &op, &bytes))
        return OTF2_CALLBACK_INTERRUPT;
    s = &r->ls[li];
    if (s->depth == 0)
        return an__read_fail(r, CM_ERR_INVALID, "'%s' leaves %s#%d op %" PRIu64 " without entering "
                       "it", d->locs[li].name, d->nodes[node].name, inst, op);
    f = &s->stack[--s->depth];
    if (f->node != node || f->instance != inst || f->op != op || f->bytes != bytes)
        return an__read_fail(r, CM_ERR_INVALID, "'%s' leaves %s#%d op %" PRIu64 " inside %s#%d op %"
                       PRIu64, d->locs[li].name, d->nodes[node].name, inst, op,
                       d->nodes[f->node].name, f->instance, f->op);
    if (d->locs[li].role == AN_ROLE_ALGO && s->depth == 0 && d->nodes[node].pap == 1
        && f->arrivals == 0)
        return an__read_fail(r, CM_ERR_INVALID, "'%s' leaves %s#%d op %" PRIu64 " without its "
                             "%s event: the node is PAP-aware (pap=yes)", d->locs[li].name,
                             d->nodes[node].name, inst, op, INS_PARAM_ARRIVAL);
    if (d->locs[li].role == AN_ROLE_ALGO && s->depth == 0 && d->nodes[node].algo != NULL
        && strcmp(d->nodes[node].algo, "auto") == 0 && f->choices != 1)
        return an__read_fail(r, CM_ERR_INVALID, "'%s' leaves %s#%d op %" PRIu64 " with %d %s "
                             "events: an auto node records exactly one per visit",
                             d->locs[li].name, d->nodes[node].name, inst, op, f->choices,
                             INS_PARAM_AUTO);
    v = (an_visit_t){ inst, node, f->contrib, li, op, bytes, f->t1, ns, f->nested };
    d->locs[li].visits++;
    if ((st = r->fn(r->ud, &v, r->err)) != CM_OK) {
        r->st = st;
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

/*
 * An MPI event of an algorithm node: only on an algorithm location, inside
 * its visit of the node (depth 1), on that instance's communicator, with
 * the visit's operation in its request id.  Begin and end of the collective
 * are checked and counted; the four point-to-point events go to msg_fn.
 */
static OTF2_CallbackCode on_mpi(an_reader_t *r, const rd_ev_t *e, an_msg_kind_t kind,
                                int coll)
{
    an_defs_t *d = r->defs;
    uint32_t peer = e->a, comm = e->b, tag = e->tag;
    int have_comm = e->have_comm;
    uint64_t bytes = e->bytes, req = e->op;
    int li;
    int64_t ns;
    rd_frame_t *f;
    an_location_t *l;
    an_msg_t m;
    cm_status_t st;

    r->nevents++;
    if ((li = e->loc) < 0)
        return an__read_fail(r, CM_ERR_INVALID, "MPI event on undefined location %" PRIu64,
                             e->op);
    l = &d->locs[li];
    if (l->role != AN_ROLE_ALGO || r->ls[li].depth != 1)
        return an__read_fail(r, CM_ERR_INVALID, "'%s': an MPI event %s", l->name,
                             l->role != AN_ROLE_ALGO ? "on a location that is not an "
                             "algorithm node's" : "outside its visit of the algorithm node");
    f = &r->ls[li].stack[0];
    ns = to_ns(r, e->t);
    if (ns < r->ls[li].last)
        return an__read_fail(r, CM_ERR_INVALID, "MPI event on '%s': time goes backwards",
                             l->name);
    r->ls[li].last = ns;
    if ((have_comm && comm != (uint32_t)f->instance)
        || (!coll && (req >> 32) != (f->op & 0xffffffffu)))
        return an__read_fail(r, CM_ERR_INVALID, "'%s': an MPI event inside %s#%d op %" PRIu64
                             " with communicator %u and request %" PRIu64 ": not that "
                             "operation's (ins_schema.h)", l->name, d->nodes[f->node].name,
                             f->instance, f->op, comm, req);
    if (coll)
        return OTF2_CALLBACK_SUCCESS;
    if ((kind == AN_MSG_SEND || kind == AN_MSG_RECV)
        && (peer >= (uint32_t)d->nodes[f->node].nranks || (int)peer == l->rank))
        return an__read_fail(r, CM_ERR_INVALID, "'%s': a message %s rank %u in %s#%d op %"
                             PRIu64 ": not another rank of the node", l->name,
                             kind == AN_MSG_SEND ? "to" : "from", peer, d->nodes[f->node].name,
                             f->instance, f->op);
    m = (an_msg_t){ kind, f->instance, li, l->rank, f->op, (uint32_t)(req & 0xffffffffu),
                    kind == AN_MSG_SEND || kind == AN_MSG_RECV ? (int)peer : -1,
                    kind == AN_MSG_SEND || kind == AN_MSG_RECV ? (int)tag : -1, bytes, ns,
                    NULL };
    if (r->msg_fn != NULL && (st = r->msg_fn(r->ud, &m, r->err)) != CM_OK) {
        r->st = st;
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* An int64 attribute of the arrival event: 1 and *v if present, 0 if absent. */
static int arr_int(an_reader_t *r, OTF2_AttributeList *al, int i, int64_t *v)
{
    return r->attr_arr[i] != UINT32_MAX && al != NULL
           && OTF2_AttributeList_TestAttributeByID(al, r->attr_arr[i])
           && OTF2_AttributeList_GetInt64(al, r->attr_arr[i], v) == OTF2_SUCCESS;
}

/* The source a string ref names, or -1. */
static int source_ref(const an_reader_t *r, OTF2_StringRef ref)
{
    return ref < r->nstrings ? an_source_of(r->strings[ref]) : -1;
}

static const char *auto_str(void *ctx, OTF2_StringRef ref)
{
    an_reader_t *r = ctx;

    return ref < r->nstrings ? r->strings[ref] : NULL;
}

/*
 * What an auto node chose (ins_schema.h, "what `auto` chose"): on an
 * algorithm location inside its visit of an auto node, once per visit,
 * naming the visit's operation; kept in r->autos for an__auto_write.
 */
static OTF2_CallbackCode auto_choice(an_reader_t *r, int li, OTF2_AttributeList *al,
                                     OTF2_StringRef value)
{
    an_defs_t *d = r->defs;
    an_location_t *l = &d->locs[li];
    rd_frame_t *f = &r->ls[li].stack[0];
    const an_wrapper_t *w = &d->nodes[f->node];
    uint64_t op = UINT64_MAX;
    an_auto_rec_t rec;
    const char *why = "no choice attributes";

    if (al != NULL && OTF2_AttributeList_TestAttributeByID(al, r->attr_op))
        OTF2_AttributeList_GetUint64(al, r->attr_op, &op);
    if (w->algo == NULL || strcmp(w->algo, "auto") != 0 || f->choices++ > 0 || op != f->op
        || an__auto_parse(&rec, al, r->attr_auto, auto_str(r, value), auto_str, r, &why) != 1)
        return an__read_fail(r, CM_ERR_INVALID, "'%s': %s event in %s#%d op %" PRIu64 ": %s",
                             l->name, INS_PARAM_AUTO, w->name, f->instance, f->op,
                             w->algo == NULL || strcmp(w->algo, "auto") != 0
                             ? "the node is not an auto node"
                             : f->choices > 1 ? "a second one in the visit"
                             : op != f->op ? "not that operation's" : why);
    rec.instance = f->instance;
    rec.op = (int64_t)f->op;
    rec.call = -1;
    rec.rank = l->rank;
    rec.bytes = f->bytes;
    if (r->autos != NULL && an__auto_add(r->autos, &rec) != 0)
        return an__read_fail(r, CM_ERR_NOMEM, "out of memory");
    return OTF2_CALLBACK_SUCCESS;
}

/*
 * The arrival report of a PAP-aware node (ins_schema.h): only on an
 * algorithm location inside its visit of a node with pap=yes (or an older
 * archive's node without the key), once per visit, naming the visit's
 * operation, the node's arrival= as asked, and valid sources and ranks.
 */
static OTF2_CallbackCode on_param_string(an_reader_t *r, const rd_ev_t *e)
{
    an_defs_t *d = r->defs;
    OTF2_AttributeList *al = e->al;
    OTF2_ParameterRef param = e->a;
    OTF2_StringRef value = e->b;
    int li, used;
    uint64_t op = UINT64_MAX;
    OTF2_StringRef asked = OTF2_UNDEFINED_STRING;
    an_arrival_t a = { AN_SRC_EQUAL, AN_SRC_EQUAL, -1, INT64_MIN, INT64_MIN, -1 };
    const an_wrapper_t *w;
    an_location_t *l;
    rd_frame_t *f;
    int64_t ns, missing = -1;
    an_msg_t m;
    cm_status_t st;

    r->nevents++;
    if ((li = e->loc) < 0)
        return an__read_fail(r, CM_ERR_INVALID, "parameter event on undefined location %"
                             PRIu64, e->op);
    l = &d->locs[li];
    if ((param != r->param_arrival && param != r->param_auto) || l->role != AN_ROLE_ALGO
        || r->ls[li].depth != 1)
        return an__read_fail(r, CM_ERR_INVALID, "'%s': a parameter event that is not %s or %s "
                             "inside its visit of the algorithm node", l->name,
                             INS_PARAM_ARRIVAL, INS_PARAM_AUTO);
    if (param == r->param_auto) {
        ns = to_ns(r, e->t);
        if (ns < r->ls[li].last)
            return an__read_fail(r, CM_ERR_INVALID, "%s event on '%s': time goes backwards",
                                 INS_PARAM_AUTO, l->name);
        r->ls[li].last = ns;
        return auto_choice(r, li, al, value);
    }
    f = &r->ls[li].stack[0];
    w = &d->nodes[f->node];
    ns = to_ns(r, e->t);
    if (ns < r->ls[li].last)
        return an__read_fail(r, CM_ERR_INVALID, "%s event on '%s': time goes backwards",
                             INS_PARAM_ARRIVAL, l->name);
    r->ls[li].last = ns;
    used = source_ref(r, value);
    if (al != NULL && OTF2_AttributeList_TestAttributeByID(al, r->attr_op))
        OTF2_AttributeList_GetUint64(al, r->attr_op, &op);
    if (al != NULL && OTF2_AttributeList_TestAttributeByID(al, r->attr_arr[0]))
        OTF2_AttributeList_GetStringRef(al, r->attr_arr[0], &asked);
    if (w->pap == 0 || f->arrivals++ > 0 || op != f->op || used < 0
        || source_ref(r, asked) != an_source_of(w->arrival) || source_ref(r, asked) < 0
        || !arr_int(r, al, 4, &a.wait_ns) || a.wait_ns < 0
        || (arr_int(r, al, 1, &missing) && (missing < 0 || missing >= w->nranks)))
        return an__read_fail(r, CM_ERR_INVALID, "'%s': %s event in %s#%d op %" PRIu64 ": %s",
                             l->name, INS_PARAM_ARRIVAL, w->name, f->instance, f->op,
                             w->pap == 0 ? "the node is not PAP-aware (pap=no)"
                             : f->arrivals > 1 ? "a second one in the visit"
                             : "not that operation's, or a source, rank or wait out of "
                               "range (ins_schema.h)");
    a.asked = (an_source_t)source_ref(r, asked);
    a.used = (an_source_t)used;
    a.missing = (int)missing;
    arr_int(r, al, 2, &a.error_ns);
    arr_int(r, al, 3, &a.lead_ns);
    m = (an_msg_t){ AN_MSG_ARRIVAL, f->instance, li, l->rank, f->op, 0, -1, -1, 0, ns, &a };
    if (r->msg_fn != NULL && (st = r->msg_fn(r->ud, &m, r->err)) != CM_OK) {
        r->st = st;
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_other(an_reader_t *r, const rd_ev_t *e)
{
    return an__read_fail(r, CM_ERR_INVALID, "location %" PRIu64 ": an event other than Enter or "
                         "Leave", e->loc >= 0 ? r->defs->locs[e->loc].id : e->op);
}

static OTF2_CallbackCode dispatch(an_reader_t *r, const rd_ev_t *e)
{
    switch ((rd_ev_kind_t)e->kind) {
    case RD_EV_ENTER: return on_enter(r, e);
    case RD_EV_LEAVE: return on_leave(r, e);
    case RD_EV_COLL_BEGIN:
    case RD_EV_COLL_END: return on_mpi(r, e, AN_MSG_SEND, 1);
    case RD_EV_ISEND: return on_mpi(r, e, AN_MSG_SEND, 0);
    case RD_EV_ISEND_DONE: return on_mpi(r, e, AN_MSG_SEND_DONE, 0);
    case RD_EV_IRECV_POST: return on_mpi(r, e, AN_MSG_RECV_POST, 0);
    case RD_EV_IRECV: return on_mpi(r, e, AN_MSG_RECV, 0);
    case RD_EV_PARAM: return on_param_string(r, e);
    case RD_EV_OTHER: break;
    }
    return on_other(r, e);
}

void an_reader_part(an_reader_t *r, int nthreads, uint64_t op_first, uint64_t op_last)
{
    r->nthreads = nthreads;
    r->op_first = op_first;
    r->op_last = op_last;
}

cm_status_t an_reader_run(an_reader_t *r, an_visit_fn *fn, an_msg_fn *msg_fn, void *ud,
                          void (*progress)(void *ud, uint64_t events), cm_err_t *err)
{
    an_defs_t *d = r->defs;
    rd_part_t part = { r->nthreads > 0 ? r->nthreads : 1, r->op_first, r->op_last };
    int whole = r->op_first == 0 && r->op_last == UINT64_MAX;
    rd_par_t *par = NULL;
    const rd_ev_t *e;
    cm_status_t st = CM_OK, st2;
    cm_err_t err2;

    r->err = err;
    r->fn = fn;
    r->msg_fn = msg_fn;
    r->ud = ud;
    r->ns_per_tick = 1e9 / (double)d->resolution;
    if ((r->ls = calloc((size_t)d->nlocs, sizeof(*r->ls))) == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    for (int i = 0; i < d->nlocs; i++) {
        r->ls[i].last = INT64_MIN;
        if ((r->ls[i].stack = calloc((size_t)d->maxsteps + 1, sizeof(rd_frame_t))) == NULL)
            return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    }
    /* A location without events (a thread that enters the algorithm node
     * directly records nothing) gets no reader: OTF2 3.0's global reader
     * closes an empty location's reader while it sets up, and then reads it
     * (a use after free, seen with valgrind; tests/otf2/otf2_empty_location.c
     * reproduces it with OTF2 alone).  rd_par_open deals only locations with
     * events to its threads. */
    if ((st = rd_par_open(r, &part, &par, err)) == CM_OK) {
        r->base = rd_par_first_t(par);
        for (uint64_t k = 1; (e = rd_par_next(par)) != NULL; k++) {
            OTF2_CallbackCode rc = dispatch(r, e);

            if (e->al != NULL)
                OTF2_AttributeList_Delete(e->al);
            if (rc != OTF2_CALLBACK_SUCCESS) {
                st = r->st != CM_OK ? r->st : CM_ERR_INVALID;
                break;
            }
            if (progress != NULL && (k & 0xffff) == 0)
                progress(ud, rd_par_read(par));
        }
    }
    if (progress != NULL && st == CM_OK)
        progress(ud, rd_par_read(par));
    r->nread = par != NULL ? rd_par_read(par) : 0;
    /* a reading thread's error comes first: the events after it are missing */
    if ((st2 = rd_par_close(par, &err2)) != CM_OK) {
        *err = err2;
        st = st2;
    }
    if (st == CM_OK && whole && r->nevents != d->nevents)
        st = CM_ERR_AT(err, CM_ERR_INVALID, r->anchor, 0, 0,
                       "%" PRIu64 " events read, the definitions announce %" PRIu64
                       ": the trace is truncated or damaged", r->nevents, d->nevents);
    for (int i = 0; st == CM_OK && i < d->nlocs; i++)
        if (r->ls[i].depth != 0)
            st = CM_ERR_AT(err, CM_ERR_INVALID, r->anchor, 0, 0,
                           "'%s' never leaves %s#%d op %" PRIu64 ": the trace is truncated",
                           d->locs[i].name, d->nodes[r->ls[i].stack[r->ls[i].depth - 1].node].name,
                           r->ls[i].stack[r->ls[i].depth - 1].instance,
                           r->ls[i].stack[r->ls[i].depth - 1].op);
    return st;
}
