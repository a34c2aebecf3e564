/*
 * collect.c - the event collectors: per-location buffers and the hooks.
 *
 * Each location owns a buffer of 24-byte records; the visit hook reads the
 * clock and appends, with no lock and no shared write (bench/tracebench
 * measures it: about 11 ns per event with the TSC, most of it the clock
 * read).  A full buffer is written to the location's OTF2 event writer on
 * the recording thread (a flush), out of line so that the common path
 * stays a compare, a clock read and four stores.
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

void ins__collect_write(ins_loc_t *loc)
{
    for (uint32_t i = 0; i < loc->n && loc->failed == OTF2_SUCCESS; i++) {
        const ins_rec_t *r = &loc->buf[i];
        OTF2_RegionRef region = r->ref & ~INS_REC_LEAVE;
        OTF2_ErrorCode rc;

        rc = OTF2_AttributeList_AddUint64(loc->attrs, INS_ATTR_OP_ID, r->op);
        if (rc == OTF2_SUCCESS)
            rc = OTF2_AttributeList_AddUint64(loc->attrs, INS_ATTR_BYTES_ID, r->bytes);
        if (rc == OTF2_SUCCESS)
            rc = (r->ref & INS_REC_LEAVE)
                     ? OTF2_EvtWriter_Leave(loc->ew, loc->attrs, r->ts, region)
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

void ins__collect_hooks(ins_trace_t *tr)
{
    tr->hooks = (rt_hooks_t){ .ud = tr, .location = hook_location, .visit = hook_visit };
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

int ins__collect_buffer(ins_loc_t *loc, size_t bytes)
{
    size_t nrec = bytes / sizeof(ins_rec_t);

    loc->cap = (uint32_t)(nrec < UINT32_MAX ? nrec : UINT32_MAX);
    loc->buf = malloc((size_t)loc->cap * sizeof(ins_rec_t));
    if (loc->buf == NULL)
        return -1;
    touch_pages(loc->buf, (size_t)loc->cap * sizeof(ins_rec_t));
    return 0;
}

uint64_t ins_trace_flushes(const ins_trace_t *tr)
{
    uint64_t n = 0;

    for (uint32_t i = 0; i < tr->nloc; i++)
        n += __atomic_load_n(&tr->locs[i].flushes, __ATOMIC_RELAXED);
    return n;
}
