/*
 * mpi_write.c - an application trace's records into OTF2 events
 * (ins_schema.h, "application traces").
 *
 * Runs when a location's buffer is full (on the recording thread) and at
 * close, never on the common path: so the strings the events name are
 * made here, not per call.  Each distinct call site address, algorithm
 * text pointer, datatype, op and fallback of this rank gets one string,
 * numbered per rank (ins_mpi_int.h): an address is named once
 * (cm_site_name, "MODULE+0xOFFSET"), a pointer is looked up by identity
 * before its text, so a call costs a hash lookup of 9 bytes at most.
 *
 * An algorithm's messages are recorded while the call runs, before the
 * call's own record (made after it returns), so a location keeps them
 * pending until the call's record comes and then writes, in time order,
 * Enter, MpiCollectiveBegin, the messages, MpiCollectiveEnd, Leave.
 * Messages older than the call's enter belong to no recorded call (a call
 * that failed): they are written on their own.
 */
#include <stdlib.h>
#include <string.h>
#include "common/cm_site.h"
#include "instrument/ins_mpi_int.h"
#include "runtime/api/rt_auto.h"

/* ---- this rank's strings ------------------------------------------------------ */

void ins__mpi_strs_init(ins_mpi_strs_t *s)
{
    memset(s, 0, sizeof(*s));
    cm_strmap_init(&s->map);
    s->arena = cm_arena_create();
}

void ins__mpi_strs_cleanup(ins_mpi_strs_t *s)
{
    cm_strmap_cleanup(&s->map);
    cm_arena_destroy(s->arena);
    free(s->text);
    memset(s, 0, sizeof(*s));
}

/* The index of key[0..len) (kind + bytes), or UINT32_MAX if absent. */
static uint32_t strs_find(const ins_mpi_strs_t *s, const char *key, size_t len)
{
    uint32_t v;

    return cm_strmap_get(&s->map, key, len, &v) == CM_OK ? v : UINT32_MAX;
}

/* Files key under index v (a copy of the key); quietly not when out of memory. */
static void strs_file(ins_mpi_strs_t *s, const char *key, size_t len, uint32_t v)
{
    char *k = s->arena != NULL ? cm_arena_alloc(s->arena, len) : NULL;

    if (k != NULL) {
        memcpy(k, key, len);
        (void)cm_strmap_put(&s->map, k, len, v);
    }
}

/* The index of a text (added if new); the last index when the rank has too many. */
static uint32_t strs_text(ins_mpi_t *tr, const char *text)
{
    ins_mpi_strs_t *s = &tr->strs;
    size_t len = strlen(text) + 1;
    char key[512], *copy;
    uint32_t v;

    if (len + 1 > sizeof(key)) {
        text = "?";           /* a text this long is no name we write */
        len = 2;
    }
    key[0] = 't';
    memcpy(key + 1, text, len);
    if ((v = strs_find(s, key, len + 1)) != UINT32_MAX)
        return v;
    if (s->n >= INS_MPI_STR_PER_RANK - 1)
        return INS_MPI_STR_PER_RANK - 1;
    if (s->n == s->cap) {
        uint32_t cap = s->cap ? 2 * s->cap : 64;
        char **p = realloc(s->text, cap * sizeof(*p));

        if (p == NULL) {
            tr->wfailed = OTF2_ERROR_MEM_ALLOC_FAILED;
            return INS_MPI_STR_PER_RANK - 1;
        }
        s->text = p;
        s->cap = cap;
    }
    if (s->arena == NULL || (copy = cm_arena_strndup(s->arena, text, len - 1)) == NULL) {
        tr->wfailed = OTF2_ERROR_MEM_ALLOC_FAILED;
        return INS_MPI_STR_PER_RANK - 1;
    }
    s->text[s->n] = copy;
    strs_file(s, key, len + 1, s->n);
    return s->n++;
}

/* The index of a pointer's string: by the pointer, else by make(ptr)'s text. */
static uint32_t strs_ptr(ins_mpi_t *tr, char kind, uint64_t ptr, const char *text)
{
    char key[1 + sizeof(ptr)];
    uint32_t v;

    key[0] = kind;
    memcpy(key + 1, &ptr, sizeof(ptr));
    if ((v = strs_find(&tr->strs, key, sizeof(key))) != UINT32_MAX)
        return v;
    v = strs_text(tr, text);
    strs_file(&tr->strs, key, sizeof(key), v);
    return v;
}

static uint32_t strs_callsite(ins_mpi_t *tr, uint64_t addr)
{
    char key[1 + sizeof(addr)], name[1024];
    uint32_t v;

    /* A loop's calls come from one site: its last lookup is kept. */
    if (tr->strs.last_site_i != 0 && tr->strs.last_site == addr)
        return tr->strs.last_site_i - 1;
    key[0] = 'c';
    memcpy(key + 1, &addr, sizeof(addr));
    if ((v = strs_find(&tr->strs, key, sizeof(key))) == UINT32_MAX)
        v = strs_ptr(tr, 'c', addr, cm_site_name((const void *)(uintptr_t)addr, name,
                                                 sizeof(name)));
    tr->strs.last_site = addr;
    tr->strs.last_site_i = v + 1;
    return v;
}

static uint32_t strs_algo(ins_mpi_t *tr, const char *algo)
{
    uint64_t p = (uint64_t)(uintptr_t)algo;
    uint32_t v;

    if (tr->strs.last_algo_i != 0 && tr->strs.last_algo == p)
        return tr->strs.last_algo_i - 1;
    v = strs_ptr(tr, 'a', p, algo != NULL ? algo : "");
    tr->strs.last_algo = p;
    tr->strs.last_algo_i = v + 1;
    return v;
}

/* A cached small id's index (cache holds index + 1). */
static uint32_t strs_cached(ins_mpi_t *tr, uint32_t *cache, const char *text)
{
    if (*cache == 0)
        *cache = strs_text(tr, text) + 1;
    return *cache - 1;
}

static OTF2_StringRef str_ref(const ins_mpi_t *tr, uint32_t index)
{
    return INS_MPI_STR_BASE + (uint32_t)tr->rank * INS_MPI_STR_PER_RANK + index;
}

/* ---- events ------------------------------------------------------------------ */

/* The Enter attributes of a call (ins_schema.h). */
static OTF2_ErrorCode call_attrs(ins_mpi_loc_t *loc, const ins_mpi_rec_t *r)
{
    ins_mpi_t *tr = loc->tr;
    ins_mpi_strs_t *s = &tr->strs;
    unsigned fb = r->fallback < INS_FB_NREASONS ? r->fallback : INS_FB_OTHER;
    OTF2_AttributeList *a = loc->attrs;
    OTF2_ErrorCode rc;

    rc = OTF2_AttributeList_AddStringRef(a, INS_ATTR_CALLSITE_ID,
                                         str_ref(tr, strs_callsite(tr, r->callsite)));
    if (rc == OTF2_SUCCESS)
        rc = OTF2_AttributeList_AddStringRef(
            a, INS_ATTR_ALGO_ID,
            str_ref(tr, strs_algo(tr, r->algo)));
    if (rc == OTF2_SUCCESS)
        rc = OTF2_AttributeList_AddStringRef(
            a, INS_ATTR_FALLBACK_ID,
            str_ref(tr, strs_cached(tr, &s->fallback[fb],
                                    ins_mpi_fallback_name((ins_mpi_fallback_t)fb))));
    if (rc == OTF2_SUCCESS)
        rc = OTF2_AttributeList_AddInt64(a, INS_ATTR_COUNT_ID, r->count);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_AttributeList_AddStringRef(
            a, INS_ATTR_DTYPE_ID,
            str_ref(tr, strs_cached(tr, &s->dtype[r->dtype], ins__mpi_dtype_name(tr, r->dtype))));
    if (rc == OTF2_SUCCESS)
        rc = OTF2_AttributeList_AddStringRef(
            a, INS_ATTR_MPI_OP_ID,
            str_ref(tr, strs_cached(tr, &s->op[r->op], ins__mpi_op_name(r->op))));
    return rc;
}

/* An auto choice's attributes (ins_schema.h), after the call's own. */
static OTF2_ErrorCode choice_attrs(ins_mpi_loc_t *loc)
{
    ins_mpi_t *tr = loc->tr;
    const ins_mpi_choice_t *c = &loc->choice;
    OTF2_AttributeList *a = loc->attrs;
    char list[INS_AUTO_CAND_MAX * 64 + 1];
    size_t len = 0;
    OTF2_ErrorCode rc;

    if (c->ncand == 0 || c->ncand > INS_AUTO_CAND_MAX || c->chosen >= c->ncand ||
        c->reason >= INS_NREASON)
        return OTF2_ERROR_INVALID_DATA;
    list[0] = '\0';
    for (uint32_t i = 0; i < c->ncand && len < sizeof(list); i++)
        len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? "," : "",
                                c->name[i] != NULL ? c->name[i] : "?");
    rc = OTF2_AttributeList_AddStringRef(a, INS_ATTR_CANDIDATES_ID,
                                         str_ref(tr, strs_text(tr, list)));
    if (rc == OTF2_SUCCESS)
        rc = OTF2_AttributeList_AddStringRef(
            a, INS_ATTR_REASON_ID,
            str_ref(tr, strs_cached(tr, &tr->strs.reason[c->reason],
                                    rt_auto_reason_name((rt_auto_reason_t)c->reason))));
    if (rc == OTF2_SUCCESS)
        rc = OTF2_AttributeList_AddInt64(a, INS_ATTR_SPREAD_ID, c->spread);
    for (uint32_t i = 0; rc == OTF2_SUCCESS && i < c->ncand; i++)
        if (c->pred[i] >= 0)
            rc = OTF2_AttributeList_AddInt64(a, INS_ATTR_PRED0_ID + i, c->pred[i]);
    for (uint32_t i = 0; rc == OTF2_SUCCESS && i < c->ncand; i++)
        if (c->corr[i] >= 0)
            rc = OTF2_AttributeList_AddInt64(a, INS_ATTR_CORR0_ID + i, c->corr[i]);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_AttributeList_AddUint64(a, INS_ATTR_SKIPPED_ID, c->skipped);
    return rc;
}

/* A choice record (ins_mpi_int.h) into loc->choice, for the next call. */
static OTF2_ErrorCode take_choice(ins_mpi_loc_t *loc, const ins_mpi_rec_t *r)
{
    ins_mpi_choice_t *c = &loc->choice;

    if (r->func == INS_MPI_REC_CHOICE) {
        memset(c, 0, sizeof(*c));
        c->valid = 1;
        c->spread = (int64_t)r->enter;
        c->skipped = r->leave;
        c->chosen = (uint32_t)(r->callsite & 0xff);
        c->reason = (uint32_t)((r->callsite >> 8) & 0xff);
        c->ncand = (uint32_t)((r->callsite >> 16) & 0xff);
        return OTF2_SUCCESS;
    }
    if (!c->valid || r->count < 0 || r->count >= (int64_t)INS_AUTO_CAND_MAX)
        return OTF2_ERROR_INVALID_DATA;
    c->name[r->count] = r->algo;
    c->pred[r->count] = (int64_t)r->sent;
    c->corr[r->count] = (int64_t)r->recv;
    return OTF2_SUCCESS;
}

/* One message at time ts (its own, or clamped into its call). */
static OTF2_ErrorCode write_msg(ins_mpi_loc_t *loc, const ins_mpi_rec_t *m, uint64_t ts)
{
    uint32_t round = (uint32_t)m->leave, step = (uint32_t)(m->leave >> 32);
    uint32_t peer = (uint32_t)m->callsite, bytes = (uint32_t)m->sent;
    uint64_t req = INS_REQUEST_ID(loc->ncoll, step);

    switch (m->func - INS_MPI_REC_MSG) {
    case RT_MSG_SEND:
        return OTF2_EvtWriter_MpiIsend(loc->ew, NULL, ts, peer, m->comm, round, bytes, req);
    case RT_MSG_SEND_DONE:
        return OTF2_EvtWriter_MpiIsendComplete(loc->ew, NULL, ts, req);
    case RT_MSG_RECV_POST:
        return OTF2_EvtWriter_MpiIrecvRequest(loc->ew, NULL, ts, req);
    case RT_MSG_RECV:
        return OTF2_EvtWriter_MpiIrecv(loc->ew, NULL, ts, peer, m->comm, round, bytes, req);
    default:
        return OTF2_ERROR_INVALID_DATA;
    }
}

/* Counts one written event at ts. */
static void loc_count(ins_mpi_loc_t *loc, uint64_t ts, uint32_t n)
{
    if (loc->written == 0)
        loc->first_ts = ts;
    loc->written += n;
    loc->last_ts = ts;
}

/* The pending messages: those before `until` on their own (until = UINT64_MAX: all). */
static OTF2_ErrorCode write_orphans(ins_mpi_loc_t *loc, uint64_t until)
{
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    uint32_t k = 0, i;

    for (i = 0; i < loc->npend && rc == OTF2_SUCCESS; i++) {
        const ins_mpi_rec_t *m = &loc->pend[i];

        if (m->enter >= until) {
            loc->pend[k++] = *m;
            continue;
        }
        if ((rc = write_msg(loc, m, m->enter)) == OTF2_SUCCESS)
            loc_count(loc, m->enter, 1);
    }
    loc->npend = k;
    return rc;
}

/*
 * The collective op of a completion: the nonblocking function its record
 * says it completed, else (a caller that did not say) told by its fields:
 * no op is a broadcast, a root a reduce, else an allreduce.
 */
static OTF2_CollectiveOp completed_op(const ins_mpi_rec_t *r)
{
    ins_mpi_func_t c = (ins_mpi_func_t)r->completed;

    if (c == INS_MPI_IALLREDUCE || c == INS_MPI_IREDUCE || c == INS_MPI_IBCAST)
        return ins__mpi_coll_op(c);
    if (r->op == INS_MPI_NAME_NONE)
        return OTF2_COLLECTIVE_OP_BCAST;
    return r->root != UINT32_MAX ? OTF2_COLLECTIVE_OP_REDUCE : OTF2_COLLECTIVE_OP_ALLREDUCE;
}

/*
 * One call: Enter, then by its kind
 *   blocking:     MpiCollectiveBegin, its messages, MpiCollectiveEnd
 *   nonblocking:  NonBlockingCollectiveRequest
 *   Wait / Test:  NonBlockingCollectiveComplete
 * then Leave.  A message's time is clamped into [enter, leave].
 */
static OTF2_ErrorCode write_call(ins_mpi_loc_t *loc, const ins_mpi_rec_t *r)
{
    uint32_t root = r->root == UINT32_MAX ? OTF2_UNDEFINED_UINT32 : r->root;
    ins_mpi_func_t f = (ins_mpi_func_t)r->func;
    uint32_t n = 3;
    OTF2_ErrorCode rc = write_orphans(loc, r->enter);

    if (rc == OTF2_SUCCESS)
        rc = call_attrs(loc, r);
    if (rc == OTF2_SUCCESS && loc->choice.valid)
        rc = choice_attrs(loc);
    loc->choice.valid = 0;
    if (rc == OTF2_SUCCESS)
        rc = OTF2_EvtWriter_Enter(loc->ew, loc->attrs, r->enter, f);
    if (f == INS_MPI_IALLREDUCE || f == INS_MPI_IREDUCE || f == INS_MPI_IBCAST) {
        if (rc == OTF2_SUCCESS)
            rc = OTF2_EvtWriter_NonBlockingCollectiveRequest(loc->ew, NULL, r->enter,
                                                             r->request);
    } else if (f == INS_MPI_WAIT || f == INS_MPI_TEST) {
        if (rc == OTF2_SUCCESS)
            rc = OTF2_EvtWriter_NonBlockingCollectiveComplete(
                loc->ew, NULL, r->leave, completed_op(r), r->comm, root, r->sent, r->recv,
                r->request);
    } else {
        if (rc == OTF2_SUCCESS)
            rc = OTF2_EvtWriter_MpiCollectiveBegin(loc->ew, NULL, r->enter);
        for (uint32_t i = 0; i < loc->npend && rc == OTF2_SUCCESS; i++) {
            uint64_t ts = loc->pend[i].enter;

            rc = write_msg(loc, &loc->pend[i], ts > r->leave ? r->leave : ts);
        }
        n += 1 + loc->npend;
        loc->npend = 0;
        if (rc == OTF2_SUCCESS)
            rc = OTF2_EvtWriter_MpiCollectiveEnd(loc->ew, NULL, r->leave, ins__mpi_coll_op(f),
                                                 r->comm, root, r->sent, r->recv);
        loc->ncoll++;
    }
    if (rc == OTF2_SUCCESS)
        rc = OTF2_EvtWriter_Leave(loc->ew, NULL, r->leave, f);
    if (rc == OTF2_SUCCESS) {
        if (loc->written == 0)
            loc->first_ts = r->enter;
        loc->written += n;
        loc->last_ts = r->leave;
    }
    return rc;
}

/* A message waits for its call (the pending list grows as needed). */
static OTF2_ErrorCode pend(ins_mpi_loc_t *loc, const ins_mpi_rec_t *m)
{
    if (loc->npend == loc->cappend) {
        uint32_t cap = loc->cappend ? 2 * loc->cappend : 64;
        ins_mpi_rec_t *p = realloc(loc->pend, cap * sizeof(*p));

        if (p == NULL)
            return OTF2_ERROR_MEM_ALLOC_FAILED;
        loc->pend = p;
        loc->cappend = cap;
    }
    loc->pend[loc->npend++] = *m;
    return OTF2_SUCCESS;
}

/* The location's writer, made the first time (with the trace's lock held). */
static OTF2_ErrorCode loc_writer(ins_mpi_loc_t *loc)
{
    if (loc->ew == NULL && (loc->ew = OTF2_Archive_GetEvtWriter(loc->tr->ar, loc->id)) == NULL)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    if (loc->attrs == NULL && (loc->attrs = OTF2_AttributeList_New()) == NULL)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    return OTF2_SUCCESS;
}

void ins__mpi_write(ins_mpi_loc_t *loc)
{
    ins_mpi_t *tr = loc->tr;

    pthread_mutex_lock(&tr->lock);
    if (loc->failed == OTF2_SUCCESS)
        loc->failed = loc_writer(loc);
    for (uint32_t i = 0; i < loc->n && loc->failed == OTF2_SUCCESS; i++) {
        const ins_mpi_rec_t *r = &loc->buf[i];

        loc->failed = r->func >= INS_MPI_REC_CHOICE ? take_choice(loc, r)
                      : r->func >= INS_MPI_REC_MSG ? pend(loc, r)
                      : r->func < INS_MPI_NFUNCS ? write_call(loc, r)
                                                 : OTF2_ERROR_INVALID_DATA;
    }
    if (loc->failed == OTF2_SUCCESS && tr->wfailed != OTF2_SUCCESS)
        loc->failed = tr->wfailed;
    loc->n = 0;
    pthread_mutex_unlock(&tr->lock);
}

void ins__mpi_write_pending(ins_mpi_loc_t *loc)
{
    pthread_mutex_lock(&loc->tr->lock);
    if (loc->failed == OTF2_SUCCESS)
        loc->failed = loc_writer(loc);
    if (loc->failed == OTF2_SUCCESS)
        loc->failed = write_orphans(loc, UINT64_MAX);
    pthread_mutex_unlock(&loc->tr->lock);
}
