/*
 * an_algo.c - an algorithm node's operations: its hosts' visits and the MPI
 * messages of its schedule, gathered per operation, matched and written to
 * the algo_* tables (docs/analysis-db.md, "Algorithm nodes").
 *
 * The reader hands over each point-to-point event of an algorithm location
 * (an_msg_t) while the location's visit of the node is open, and the visit
 * itself when it ends; an operation is complete when every rank's visit is
 * in, and by then so are all its messages (they lie inside the visits).
 * A send is its MpiIsend (post) and MpiIsendComplete (done), a receive its
 * MpiIrecvRequest (post) and MpiIrecv (done, naming the sender, the round
 * and the size), each pair joined by the step in the request id.  Sends
 * and receives are then paired as MPI pairs them: between one sender and
 * one receiver, with one tag (the round), in the order they were posted.
 *
 * Late Sender (the pattern of Scalasca's wait-state analysis, in our
 * words): a receive posted before its message was sent cannot complete
 * before the send is posted, however fast the network; the time from the
 * receive's post to the send's post, when positive, is the receiver's wait
 * caused by a late sender.  late = max(0, send post - receive post).
 *
 * A PAP-aware node's arrival reports (an_msg_t of kind AN_MSG_ARRIVAL: where
 * each rank's arrival times came from, the estimation error) are kept with
 * the operation and written to algo_arrivals with it, one row per rank; those
 * of the used operations also feed, per tuple size, the series of each rank
 * and of all ranks (error, lead, wait: an_stats_int.h), written at the end to
 * algo_arrival_stats.
 *
 * Memory: the operations in flight (one per instance, at most a few) and
 * a buffer of rows flushed every AL_FLUSH rows.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/an_algo_int.h"

#define AL_FLUSH 4096            /* buffered rows before a flush */

typedef struct al_xfer {
    int      self, peer, round;  /* self: the rank that posted it */
    uint32_t step;
    uint64_t bytes;
    int64_t  post, done;
    int      have_done, match;   /* match: index of the other side, or -1 */
} al_xfer_t;

typedef struct al_vec {
    al_xfer_t *x;
    size_t     n, cap;
} al_vec_t;

typedef struct al_op {
    struct al_op *next;
    int           instance;
    uint64_t      op;
    int           nvisits;
    int64_t      *t1, *t4;        /* [nranks] */
    uint8_t      *have;           /* [nranks] */
    al_vec_t      sends, recvs;
    an_arrival_t *arr;            /* [nranks] arrival reports (PAP-aware), or NULL */
    int64_t      *arr_t;          /* [nranks] their times */
    uint8_t      *have_arr;       /* [nranks] */
} al_op_t;

struct an_algo {
    const an_defs_t *d;
    an_db_t         *db;
    al_op_t         *inflight;
    /* buffered rows */
    an_algo_visit_row_t *vr;
    an_algo_op_row_t    *opr;
    an_algo_msg_row_t   *mr;
    an_algo_round_row_t *rr;
    an_algo_arrival_row_t *ar;
    size_t               nvr, nopr, nmr, nrr, nar, capvr, capopr, capmr, caprr, capar;
    /* arrival reports of the used operations: per tuple size, the series of
     * each rank and of all ranks (index nranks) x AL_NMETRIC */
    struct al_arrstats { uint64_t bytes; an_stat_t *s; } *as;
    size_t               nas, capas;
};

enum { AL_ERROR, AL_LEAD, AL_WAIT, AL_NMETRIC };
static const char *const al_metric[AL_NMETRIC] = { "error", "lead", "wait" };

cm_status_t an__algo_create(const an_defs_t *d, an_db_t *db, an_algo_t **out)
{
    an_algo_t *a = calloc(1, sizeof(*a));

    *out = NULL;
    if (a == NULL)
        return CM_ERR_NOMEM;
    a->d = d;
    a->db = db;
    *out = a;
    return CM_OK;
}

static void op_free(al_op_t *o)
{
    if (o == NULL)
        return;
    free(o->t1);
    free(o->t4);
    free(o->have);
    free(o->sends.x);
    free(o->recvs.x);
    free(o->arr);
    free(o->arr_t);
    free(o->have_arr);
    free(o);
}

void an__algo_free(an_algo_t *a)
{
    if (a == NULL)
        return;
    while (a->inflight != NULL) {
        al_op_t *o = a->inflight;
        a->inflight = o->next;
        op_free(o);
    }
    free(a->vr);
    free(a->opr);
    free(a->mr);
    free(a->rr);
    free(a->ar);
    for (size_t i = 0; i < a->nas; i++) {
        for (int k = 0; k < (a->d->nodes[a->d->algo].nranks + 1) * AL_NMETRIC; k++)
            an_stat_free(&a->as[i].s[k]);
        free(a->as[i].s);
    }
    free(a->as);
    free(a);
}

/* Grows *p (of *cap elements of size sz) to hold n + 1. */
static int grow(void **p, size_t *cap, size_t n, size_t sz)
{
    if (n < *cap)
        return 1;
    size_t c = *cap ? 2 * *cap : 16;
    void *q = realloc(*p, c * sz);
    if (q == NULL)
        return 0;
    *p = q;
    *cap = c;
    return 1;
}

static al_op_t *op_find(an_algo_t *a, int instance, uint64_t op, int create)
{
    const an_wrapper_t *w = &a->d->nodes[a->d->algo];
    al_op_t *o;

    for (o = a->inflight; o != NULL; o = o->next)
        if (o->instance == instance && o->op == op)
            return o;
    if (!create || (o = calloc(1, sizeof(*o))) == NULL)
        return NULL;
    o->instance = instance;
    o->op = op;
    o->t1 = calloc((size_t)w->nranks, sizeof(int64_t));
    o->t4 = calloc((size_t)w->nranks, sizeof(int64_t));
    o->have = calloc((size_t)w->nranks, 1);
    if (o->t1 == NULL || o->t4 == NULL || o->have == NULL) {
        op_free(o);
        return NULL;
    }
    o->next = a->inflight;
    a->inflight = o;
    return o;
}

/* The transfer of rank `self` with `step` in v, or NULL. */
static al_xfer_t *xfer_find(al_vec_t *v, int self, uint32_t step)
{
    for (size_t i = v->n; i-- > 0;)
        if (v->x[i].self == self && v->x[i].step == step)
            return &v->x[i];
    return NULL;
}

/* A rank's arrival report (the reader checked it), kept until the operation completes. */
static cm_status_t op_arrival(an_algo_t *a, al_op_t *o, const an_msg_t *m, cm_err_t *err)
{
    size_t n = (size_t)a->d->nodes[a->d->algo].nranks;

    if (o->arr == NULL) {
        o->arr = calloc(n, sizeof(*o->arr));
        o->arr_t = calloc(n, sizeof(*o->arr_t));
        o->have_arr = calloc(n, 1);
        if (o->arr == NULL || o->arr_t == NULL || o->have_arr == NULL)
            return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    }
    if (o->have_arr[m->rank])
        return CM_ERR(err, CM_ERR_INVALID, "%s#%d op %" PRIu64 ": rank %d reports its arrival "
                      "source twice: the trace is damaged", a->d->nodes[a->d->algo].name,
                      m->instance, m->op, m->rank);
    o->have_arr[m->rank] = 1;
    o->arr[m->rank] = *m->arrival;
    o->arr_t[m->rank] = m->t;
    return CM_OK;
}

cm_status_t an__algo_msg(an_algo_t *a, const an_msg_t *m, cm_err_t *err)
{
    const an_defs_t *d = a->d;
    al_op_t *o = op_find(a, m->instance, m->op, 1);
    int send = m->kind == AN_MSG_SEND || m->kind == AN_MSG_SEND_DONE;
    al_vec_t *v;
    al_xfer_t *x;

    if (o == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    if (m->kind == AN_MSG_ARRIVAL)
        return op_arrival(a, o, m, err);
    v = send ? &o->sends : &o->recvs;
    x = xfer_find(v, m->rank, m->step);
    if (m->kind == AN_MSG_SEND || m->kind == AN_MSG_RECV_POST) {
        if (x != NULL)
            return CM_ERR(err, CM_ERR_INVALID, "%s#%d op %" PRIu64 ": '%s' posts step %u "
                          "twice: the trace is damaged", d->nodes[d->algo].name, m->instance,
                          m->op, d->locs[m->loc].name, m->step);
        if (!grow((void **)&v->x, &v->cap, v->n, sizeof(*v->x)))
            return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
        v->x[v->n++] = (al_xfer_t){ m->rank, m->peer, m->round, m->step, m->bytes, m->t, 0, 0,
                                    -1 };
        return CM_OK;
    }
    if (x == NULL || x->have_done)
        return CM_ERR(err, CM_ERR_INVALID, "%s#%d op %" PRIu64 ": '%s' completes step %u %s: "
                      "the trace is damaged", d->nodes[d->algo].name, m->instance, m->op,
                      d->locs[m->loc].name, m->step, x == NULL ? "that it never posted"
                      : "twice");
    x->done = m->t;
    x->have_done = 1;
    if (m->kind == AN_MSG_RECV) {          /* the receive learns its sender here */
        x->peer = m->peer;
        x->round = m->round;
        x->bytes = m->bytes;
    }
    return CM_OK;
}

/* Orders transfers by (sender, receiver, round, post). */
static int key_cmp(const al_xfer_t *x, int send, const al_xfer_t *y)
{
    int xs = send ? x->self : x->peer, xd = send ? x->peer : x->self;
    int ys = send ? y->self : y->peer, yd = send ? y->peer : y->self;

    if (xs != ys)
        return xs < ys ? -1 : 1;
    if (xd != yd)
        return xd < yd ? -1 : 1;
    if (x->round != y->round)
        return x->round < y->round ? -1 : 1;
    return (x->post > y->post) - (x->post < y->post);
}

static int send_cmp(const void *p, const void *q)
{
    return key_cmp(p, 1, q);
}

static int recv_cmp(const void *p, const void *q)
{
    return key_cmp(p, 0, q);
}

/* Pairs sends and receives as MPI does (same sender, receiver and tag, in
 * posting order).  Fails unless every transfer completed and has a partner. */
static cm_status_t op_match(an_algo_t *a, al_op_t *o, cm_err_t *err)
{
    const char *name = a->d->nodes[a->d->algo].name;
    size_t i = 0, j = 0;

    for (size_t k = 0; k < o->sends.n + o->recvs.n; k++) {
        const al_xfer_t *x = k < o->sends.n ? &o->sends.x[k] : &o->recvs.x[k - o->sends.n];
        if (!x->have_done)
            return CM_ERR(err, CM_ERR_INVALID, "%s#%d op %" PRIu64 ": rank %d's %s of step %u "
                          "never completes: the trace is damaged", name, o->instance, o->op,
                          x->self, k < o->sends.n ? "send" : "receive", x->step);
    }
    if (o->sends.n > 1)                     /* x is NULL without messages (native) */
        qsort(o->sends.x, o->sends.n, sizeof(al_xfer_t), send_cmp);
    if (o->recvs.n > 1)
        qsort(o->recvs.x, o->recvs.n, sizeof(al_xfer_t), recv_cmp);
    int send = 1;                           /* which side is unpaired */
    while (i < o->sends.n && j < o->recvs.n) {
        al_xfer_t *s = &o->sends.x[i], *r = &o->recvs.x[j];
        if (s->self == r->peer && s->peer == r->self && s->round == r->round) {
            s->match = (int)j++;
            r->match = (int)i++;
            continue;
        }
        /* the smaller key has no partner: a send nobody received, or a
         * receive nobody sent */
        send = s->self < r->peer || (s->self == r->peer && (s->peer < r->self
               || (s->peer == r->self && s->round < r->round)));
        break;
    }
    if (i == o->sends.n || j == o->recvs.n)
        send = i < o->sends.n;
    if (i != o->sends.n || j != o->recvs.n) {
        const al_xfer_t *x = send ? &o->sends.x[i] : &o->recvs.x[j];
        return CM_ERR(err, CM_ERR_INVALID, "%s#%d op %" PRIu64 ": the %s of rank %d %s rank %d "
                      "in round %d has no matching %s: the trace is damaged", name,
                      o->instance, o->op, send ? "send" : "receive", x->self,
                      send ? "to" : "from", x->peer, x->round, send ? "receive" : "send");
    }
    return CM_OK;
}

/* One rank's part in one round, while it is being summed up. */
typedef struct al_part {
    int     rank, round, isrecv;
    int64_t post, done, late;
} al_part_t;

static int part_cmp(const void *p, const void *q)
{
    const al_part_t *x = p, *y = q;

    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return (x->round > y->round) - (x->round < y->round);
}

/* Rank r's report of a used operation of `bytes` into its series and all ranks'. */
static cm_status_t arrival_stats_add(an_algo_t *a, uint64_t bytes, int r, const an_arrival_t *x)
{
    int nr = a->d->nodes[a->d->algo].nranks;
    int64_t v[AL_NMETRIC] = { x->error_ns, x->lead_ns, x->wait_ns };
    struct al_arrstats *g = NULL;
    cm_status_t st = CM_OK;

    for (size_t i = 0; i < a->nas && g == NULL; i++)
        g = a->as[i].bytes == bytes ? &a->as[i] : NULL;
    if (g == NULL) {
        if (!grow((void **)&a->as, &a->capas, a->nas, sizeof(*a->as)))
            return CM_ERR_NOMEM;
        g = &a->as[a->nas];
        if ((g->s = calloc((size_t)(nr + 1) * AL_NMETRIC, sizeof(*g->s))) == NULL)
            return CM_ERR_NOMEM;
        g->bytes = bytes;
        a->nas++;
    }
    for (int m = 0; m < AL_NMETRIC && st == CM_OK; m++)
        if (v[m] != INT64_MIN && (st = an_stat_add(&g->s[r * AL_NMETRIC + m], (double)v[m]))
            == CM_OK)
            st = an_stat_add(&g->s[nr * AL_NMETRIC + m], (double)v[m]);
    return st;
}

/* The series into algo_arrival_stats (after an__algo_flush). */
static cm_status_t arrival_stats_write(an_algo_t *a)
{
    const an_wrapper_t *w = &a->d->nodes[a->d->algo];
    cm_status_t st = a->nas > 0 ? an_db_sync(a->db) : CM_OK;

    for (size_t i = 0; i < a->nas && st == CM_OK; i++)
        for (int r = 0; r <= w->nranks && st == CM_OK; r++)
            for (int m = 0; m < AL_NMETRIC && st == CM_OK; m++) {
                an_stat_t *x = &a->as[i].s[r * AL_NMETRIC + m];
                if (x->n > 0)
                    st = an_db_algo_arrival_stat(a->db, a->d->algo, a->as[i].bytes,
                                                 r < w->nranks ? r : -1, al_metric[m], x);
            }
    return st;
}

#define PUSH(a, arr, n, cap, row)                                                   \
    (grow((void **)&(a)->arr, &(a)->cap, (a)->n, sizeof(*(a)->arr))                \
     ? ((a)->arr[(a)->n++] = (row), 1) : 0)

/* The rows of a complete operation into the buffers. */
static cm_status_t op_rows(an_algo_t *a, const al_op_t *o, int used, uint64_t bytes)
{
    const an_defs_t *d = a->d;
    const an_wrapper_t *w = &d->nodes[d->algo];
    int64_t t0 = INT64_MAX, amax = INT64_MIN, fmax = INT64_MIN;
    double esum = 0;
    size_t np = o->sends.n + o->recvs.n;
    al_part_t *parts = malloc((np ? np : 1) * sizeof(*parts));

    if (parts == NULL)
        return CM_ERR_NOMEM;
    for (int r = 0; r < w->nranks; r++)
        t0 = o->t1[r] < t0 ? o->t1[r] : t0;
    for (int r = 0; r < w->nranks; r++) {
        an_algo_visit_row_t vr = { o->instance, d->algo, r, w->rank_host[r], o->op, o->t1[r],
                                   o->t4[r], t0 };
        amax = o->t1[r] - t0 > amax ? o->t1[r] - t0 : amax;
        fmax = o->t4[r] - t0 > fmax ? o->t4[r] - t0 : fmax;
        esum += (double)(o->t4[r] - o->t1[r]);
        if (!PUSH(a, vr, nvr, capvr, vr)) {
            free(parts);
            return CM_ERR_NOMEM;
        }
    }
    for (int r = 0; o->arr != NULL && r < w->nranks; r++) {
        an_algo_arrival_row_t ar = { o->instance, d->algo, r, w->rank_host[r], o->op,
                                     o->arr[r], o->arr_t[r] };
        if (o->have_arr[r] && (!PUSH(a, ar, nar, capar, ar)
                               || (used && arrival_stats_add(a, bytes, r, &o->arr[r]) != CM_OK))) {
            free(parts);
            return CM_ERR_NOMEM;
        }
    }
    an_algo_op_row_t orow = { o->instance, d->algo, used, o->op, bytes, t0, amax, fmax,
                              esum / w->nranks };
    if (!PUSH(a, opr, nopr, capopr, orow)) {
        free(parts);
        return CM_ERR_NOMEM;
    }
    for (size_t i = 0; i < o->sends.n; i++) {
        const al_xfer_t *s = &o->sends.x[i], *r = &o->recvs.x[s->match];
        an_algo_msg_row_t mr = { o->instance, d->algo, s->round, s->self, r->self,
                                 w->rank_host[s->self], w->rank_host[r->self], o->op, r->bytes,
                                 s->step, r->step, s->post, s->done, r->post, r->done };
        int64_t late = s->post > r->post ? s->post - r->post : 0;
        parts[i] = (al_part_t){ s->self, s->round, 0, s->post, s->done, 0 };
        parts[o->sends.n + i] = (al_part_t){ r->self, r->round, 1, r->post, r->done, late };
        if (!PUSH(a, mr, nmr, capmr, mr)) {
            free(parts);
            return CM_ERR_NOMEM;
        }
    }
    if (np > 1)
        qsort(parts, np, sizeof(*parts), part_cmp);
    for (size_t i = 0; i < np;) {
        an_algo_round_row_t rr = { o->instance, d->algo, parts[i].round, parts[i].rank,
                                   w->rank_host[parts[i].rank], 0, 0, o->op, INT64_MAX,
                                   INT64_MIN, 0, 0 };
        size_t j = i;
        for (; j < np && parts[j].rank == parts[i].rank && parts[j].round == parts[i].round; j++) {
            const al_part_t *p = &parts[j];
            rr.start = p->post < rr.start ? p->post : rr.start;
            rr.end = p->done > rr.end ? p->done : rr.end;
            rr.nsend += !p->isrecv;
            rr.nrecv += p->isrecv;
            rr.late += p->late;
            rr.wait = p->late > rr.wait ? p->late : rr.wait;
        }
        i = j;
        if (!PUSH(a, rr, nrr, caprr, rr)) {
            free(parts);
            return CM_ERR_NOMEM;
        }
    }
    free(parts);
    return CM_OK;
}

cm_status_t an__algo_flush(an_algo_t *a)
{
    cm_status_t st = a->nvr + a->nopr + a->nmr + a->nrr + a->nar > 0 ? an_db_sync(a->db)
                                                                      : CM_OK;

    for (size_t i = 0; i < a->nvr && st == CM_OK; i++)
        st = an_db_algo_visit(a->db, &a->vr[i]);
    for (size_t i = 0; i < a->nopr && st == CM_OK; i++)
        st = an_db_algo_op(a->db, &a->opr[i]);
    for (size_t i = 0; i < a->nmr && st == CM_OK; i++)
        st = an_db_algo_msg(a->db, &a->mr[i]);
    for (size_t i = 0; i < a->nrr && st == CM_OK; i++)
        st = an_db_algo_round(a->db, &a->rr[i]);
    for (size_t i = 0; i < a->nar && st == CM_OK; i++)
        st = an_db_algo_arrival(a->db, &a->ar[i]);
    a->nvr = a->nopr = a->nmr = a->nrr = a->nar = 0;
    return st;
}

cm_status_t an__algo_visit(an_algo_t *a, const an_visit_t *v, int used, an_group_t *g,
                           cm_err_t *err)
{
    const an_defs_t *d = a->d;
    const an_wrapper_t *w = &d->nodes[d->algo];
    int rank = w->contrib_rank[v->contrib];
    al_op_t *o = op_find(a, v->instance, v->op, 1), **pp;
    cm_status_t st;

    if (o == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    if (o->have[rank])
        return CM_ERR(err, CM_ERR_INVALID, "%s#%d op %" PRIu64 ": rank %d visits it twice: the "
                      "trace is damaged", w->name, v->instance, v->op, rank);
    o->have[rank] = 1;
    o->t1[rank] = v->t1;
    o->t4[rank] = v->t4;
    if (++o->nvisits < w->nranks)
        return CM_OK;
    for (pp = &a->inflight; *pp != o; pp = &(*pp)->next)
        ;
    *pp = o->next;
    st = op_match(a, o, err);
    if (st == CM_OK && (st = op_rows(a, o, used, v->bytes)) != CM_OK)
        CM_ERR(err, st, "out of memory");
    /* the transfer of a message of the tuple's size, from the later post to
     * the receive's completion: the time of one point-to-point message */
    for (size_t i = 0; st == CM_OK && used && g != NULL && i < o->sends.n; i++) {
        const al_xfer_t *s = &o->sends.x[i], *r = &o->recvs.x[s->match];
        if (r->bytes == v->bytes
            && (st = an__group_add_msg(g, (double)(r->done - (s->post > r->post ? s->post
                                                                               : r->post))))
               != CM_OK)
            CM_ERR(err, st, "out of memory");
    }
    op_free(o);
    if (st == CM_OK && a->nvr + a->nopr + a->nmr + a->nrr + a->nar >= AL_FLUSH
        && (st = an__algo_flush(a)) != CM_OK)
        CM_ERR(err, st, "writing the algorithm node's rows: %s", an_db_errmsg(a->db));
    return st;
}

cm_status_t an__algo_finish(an_algo_t *a, cm_err_t *err)
{
    cm_status_t st;

    if (a->inflight != NULL)
        return CM_ERR(err, CM_ERR_INVALID, "%s#%d op %" PRIu64 ": messages or visits of "
                      "ranks that never all arrived: the trace is incomplete",
                      a->d->nodes[a->d->algo].name, a->inflight->instance, a->inflight->op);
    if ((st = an__algo_flush(a)) != CM_OK || (st = arrival_stats_write(a)) != CM_OK)
        return CM_ERR(err, st, "writing the algorithm node's rows: %s", an_db_errmsg(a->db));
    return CM_OK;
}
