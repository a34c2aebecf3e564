/*
 * an_ops.c - gathers the visits of each operation and, when an operation has
 * all of them, has its metrics computed (an_metrics.c), writes its rows and
 * adds its samples to the statistics (an_ops_stats.c).
 *
 * An operation (instance, op) has exactly one visit per contributor of each
 * wrapper: nslots = sum of the fan-ins.  Its visits arrive from several
 * locations in time order; the operation is complete when all nslots have
 * arrived, which happens shortly after its last thread leaves, so only a few
 * operations are in flight at once (a ring per instance, grown on demand).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/an_algo_int.h"
#include "analyze/an_ops_int.h"

#define OPS_RING_MAX (1u << 16)     /* operations in flight per instance */

typedef struct op_ring {
    op_buf_t **slot;
    uint32_t   size;            /* power of two */
} op_ring_t;

struct an_ops {
    const an_defs_t *d;
    an_db_t     *db;
    uint64_t     skip;
    op_ring_t   *rings;         /* [ninstances] */
    op_buf_t    *free_list;
    uint64_t     nops, nused, inflight;
    an_series_t *series;
    an_algo_t   *algo;          /* the tree's algorithm node, or NULL */
    an_metrics_t m;             /* of the operation being completed */
    an_subtree_t sub;           /* scratch for its subtrees */
};

/* ------------------------------------------------------------ in flight */

static op_buf_t *buf_new(an_ops_t *o)
{
    int n = o->d->nslots;
    op_buf_t *b = o->free_list;

    if (b != NULL) {
        o->free_list = b->next_free;
    } else {
        b = malloc(sizeof(*b) + (size_t)n * (2 * sizeof(int64_t) + sizeof(int32_t) + 1));
        if (b == NULL)
            return NULL;
        b->t1 = (int64_t *)(b + 1);
        b->t4 = b->t1 + n;
        b->loc = (int32_t *)(b->t4 + n);
        b->cont = (uint8_t *)(b->loc + n);
    }
    b->nfilled = 0;
    for (int i = 0; i < n; i++)
        b->loc[i] = -1;
    return b;
}

/* Puts b in ring r, doubling the ring until its slot is free. */
static cm_status_t ring_put(op_ring_t *r, op_buf_t *b)
{
    while (r->slot[b->op & (r->size - 1)] != NULL) {
        uint32_t size = r->size * 2;
        op_buf_t **slot;
        if (size > OPS_RING_MAX)
            return CM_ERR_RANGE;
        if ((slot = calloc(size, sizeof(*slot))) == NULL)
            return CM_ERR_NOMEM;
        for (uint32_t i = 0; i < r->size; i++)
            if (r->slot[i] != NULL)
                slot[r->slot[i]->op & (size - 1)] = r->slot[i];
        free(r->slot);
        r->slot = slot;
        r->size = size;
    }
    r->slot[b->op & (r->size - 1)] = b;
    return CM_OK;
}

/* The operation v belongs to, created on its first visit. */
static op_buf_t *op_get(an_ops_t *o, const an_visit_t *v, cm_err_t *err)
{
    op_ring_t *r = &o->rings[v->instance];
    op_buf_t *b = r->slot[v->op & (r->size - 1)];
    an_group_t *g;
    cm_status_t st;

    if (b != NULL && b->op == v->op)
        return b;
    if ((g = an__series_group(o->series, v->bytes, err)) == NULL
        || (b = buf_new(o)) == NULL) {
        if (g != NULL)
            CM_ERR(err, CM_ERR_NOMEM, "out of memory");
        return NULL;
    }
    b->instance = v->instance;
    b->op = v->op;
    b->bytes = v->bytes;
    b->used = an__group_count_op(g, v->instance) >= o->skip;
    if ((st = ring_put(r, b)) != CM_OK) {
        CM_ERR(err, st, st == CM_ERR_RANGE
               ? "more than %u operations of instance %d in flight: operations never "
                 "complete (is the trace damaged?)" : "out of memory",
               OPS_RING_MAX, v->instance);
        free(b);
        return NULL;
    }
    o->inflight++;
    return b;
}

/* ----------------------------------------------------------------- rows */

/* The operation's rows: ops, pap_hosts, and visits with their metrics. */
static cm_status_t op_rows(an_ops_t *o, const op_buf_t *b, const an_metrics_t *m)
{
    const an_defs_t *d = o->d;
    cm_status_t st = CM_OK;

    for (int h = 0; h < d->nhosts && st == CM_OK; h++)
        if (m->ha[h] != INT64_MIN)        /* a host with threads of this tree */
            st = an_db_pap_host(o->db, b->instance, b->op, h, m->ha[h] - m->t0,
                                m->hf[h] - m->t0);
    if (st == CM_OK)
        st = an_db_op(o->db, b->instance, b->op, b->bytes, b->used, m->t0, m->arrival_spread,
                      m->host_spread, m->avg_elapsed);
    for (int n = 0; n < d->nnodes && st == CM_OK; n++) {
        const an_wrapper_t *w = &d->nodes[n];
        for (int c = 0; c < w->fanin && st == CM_OK; c++) {
            int s = w->slot0 + c;
            an_visit_t v = { b->instance, n, c, b->loc[s], b->op, b->bytes, b->t1[s], b->t4[s],
                             b->cont[s] };
            st = an_db_visit(o->db, &v, m->t2[n], m->t3[n],
                             w->kind != CM_KIND_CORE && w->kind != CM_KIND_ALGO, m->arr[s],
                             m->dep[s], m->aw[s], m->dw[s]);
        }
    }
    return st;
}

/* Each gred has exactly one visit that continued into its parent (the
 * trace format guarantees it; the last arrival is that visit). */
static cm_status_t op_check(const an_ops_t *o, const op_buf_t *b, cm_err_t *err)
{
    const an_defs_t *d = o->d;

    for (int n = 0; n < d->nnodes; n++) {
        const an_wrapper_t *w = &d->nodes[n];
        int k = 0;
        if (w->kind != CM_KIND_GRED)
            continue;
        for (int c = 0; c < w->fanin; c++)
            k += b->cont[w->slot0 + c];
        if (k != 1)
            return CM_ERR(err, CM_ERR_INVALID, "%s#%d op %" PRIu64 ": %d of its visits contain "
                          "a visit of its parent, expected 1: the trace is damaged", w->name,
                          b->instance, b->op, k);
    }
    return CM_OK;
}

/*
 * Below an algorithm node no visit nests its parent's: the host's visit of
 * the node is on the host's algorithm location.  Every contributor of such
 * a gred waits inside its visit until the node is done, so the visits say
 * nothing of who carried the result on; the last arrival is taken to be
 * the largest t1 (ties: the highest contributor index, as rank_times ranks
 * them), which is the runtime's rule up to the lock's order.
 */
static void op_cont_below_algo(const an_defs_t *d, op_buf_t *b)
{
    for (int n = 0; d->algo >= 0 && n < d->nnodes; n++) {
        const an_wrapper_t *w = &d->nodes[n];
        int l = 0;
        if (w->kind != CM_KIND_GRED || w->parent != d->algo)
            continue;
        for (int c = 0; c < w->fanin; c++) {
            b->cont[w->slot0 + c] = 0;
            if (b->t1[w->slot0 + c] >= b->t1[w->slot0 + l])
                l = c;
        }
        b->cont[w->slot0 + l] = 1;
    }
}

static cm_status_t op_complete(an_ops_t *o, op_buf_t *b, cm_err_t *err)
{
    an_group_t *g = an__series_group(o->series, b->bytes, err);
    cm_status_t st;

    if (g == NULL)
        return err->status;
    op_cont_below_algo(o->d, b);
    if ((st = op_check(o, b, err)) != CM_OK)
        return st;
    an__metrics_op(o->d, b, &o->m);
    st = op_rows(o, b, &o->m);
    if (st == CM_OK && b->used)
        st = an__group_add(g, o->d, b, &o->m, &o->sub);
    if (st != CM_OK)
        return CM_ERR(err, st, "writing operation %" PRIu64 " of instance %d: %s", b->op,
                      b->instance, st == CM_ERR_NOMEM ? "out of memory" : an_db_errmsg(o->db));
    o->nops++;
    o->nused += (uint64_t)b->used;
    return CM_OK;
}

cm_status_t an_ops_visit(void *ud, const an_visit_t *v, cm_err_t *err)
{
    an_ops_t *o = ud;
    const an_defs_t *d = o->d;
    op_buf_t *b = op_get(o, v, err);
    int s = d->nodes[v->node].slot0 + v->contrib;
    op_ring_t *r = &o->rings[v->instance];
    cm_status_t st;

    if (b == NULL)
        return err->status;
    if (b->loc[s] >= 0 || b->bytes != v->bytes)
        return CM_ERR(err, CM_ERR_INVALID, "%s#%d op %" PRIu64 ": %s by '%s' %s: the trace "
                      "is damaged", d->nodes[v->node].name, v->instance, v->op,
                      b->loc[s] >= 0 ? "visited twice" : "a visit with another tuple size",
                      d->locs[v->loc].name, b->loc[s] >= 0 ? "for the same contributor" : "");
    b->t1[s] = v->t1;
    b->t4[s] = v->t4;
    b->loc[s] = v->loc;
    b->cont[s] = v->continued != 0;
    if (v->node == d->algo) {
        an_group_t *g = an__series_group(o->series, v->bytes, err);
        if (g == NULL)
            return err->status;
        if ((st = an__algo_visit(o->algo, v, b->used, g, err)) != CM_OK)
            return st;
    }
    if (++b->nfilled < d->nslots)
        return CM_OK;
    st = op_complete(o, b, err);
    r->slot[b->op & (r->size - 1)] = NULL;
    b->next_free = o->free_list;
    o->free_list = b;
    o->inflight--;
    return st;
}

/* An algorithm location's message event: to the algorithm node's gatherer. */
cm_status_t an_ops_msg(void *ud, const an_msg_t *m, cm_err_t *err)
{
    an_ops_t *o = ud;

    if (o->algo == NULL)
        return CM_ERR(err, CM_ERR_INVALID, "an MPI message event in a tree without an "
                      "algorithm node: the trace is damaged");
    return an__algo_msg(o->algo, m, err);
}

/* ------------------------------------------------------------- creation */

cm_status_t an_ops_create(const an_defs_t *d, an_db_t *db, uint64_t skip, an_ops_t **out,
                          cm_err_t *err)
{
    an_ops_t *o = calloc(1, sizeof(*o));
    int ok;

    *out = NULL;
    if (o == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    o->d = d;
    o->db = db;
    o->skip = skip;
    o->rings = calloc((size_t)d->ninstances, sizeof(*o->rings));
    ok = o->rings != NULL && an__metrics_init(&o->m, &o->sub, d) == CM_OK
         && an__series_create(d, &o->series) == CM_OK
         && (d->algo < 0 || an__algo_create(d, db, &o->algo) == CM_OK);
    for (int i = 0; ok && i < d->ninstances; i++) {
        o->rings[i].size = 64;
        ok = (o->rings[i].slot = calloc(64, sizeof(op_buf_t *))) != NULL;
    }
    if (!ok) {
        an_ops_free(o);
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    }
    *out = o;
    return CM_OK;
}

/* ------------------------------------------------------------- finishing */

cm_status_t an_ops_finish(an_ops_t *o, cm_err_t *err)
{
    cm_status_t st;

    for (int i = 0; i < o->d->ninstances; i++)
        for (uint32_t k = 0; k < o->rings[i].size; k++) {
            op_buf_t *b = o->rings[i].slot[k];
            if (b != NULL)
                return CM_ERR(err, CM_ERR_INVALID, "operation %" PRIu64 " of instance %d "
                              "has %d of its %d visits: the trace is incomplete", b->op, i,
                              b->nfilled, o->d->nslots);
        }
    if (o->algo != NULL && (st = an__algo_finish(o->algo, err)) != CM_OK)
        return st;
    if ((st = an__series_write(o->series, o->db)) != CM_OK)
        return CM_ERR(err, st, "writing statistics: %s",
                      st == CM_ERR_NOMEM ? "out of memory" : an_db_errmsg(o->db));
    return CM_OK;
}

uint64_t an_ops_count(const an_ops_t *o, uint64_t *used)
{
    if (used != NULL)
        *used = o->nused;
    return o->nops;
}

void an_ops_free(an_ops_t *o)
{
    if (o == NULL)
        return;
    for (int i = 0; o->rings != NULL && i < o->d->ninstances; i++) {
        for (uint32_t k = 0; k < o->rings[i].size && o->rings[i].slot != NULL; k++)
            free(o->rings[i].slot[k]);
        free(o->rings[i].slot);
    }
    while (o->free_list != NULL) {
        op_buf_t *b = o->free_list;
        o->free_list = b->next_free;
        free(b);
    }
    an__series_free(o->series);
    an__algo_free(o->algo);
    an__metrics_cleanup(&o->m, &o->sub);
    free(o->rings);
    free(o);
}
