/*
 * algo_run.c - the schedule executor: one rank's steps of a schedule of
 * runtime/algo, run over MPI point-to-point (rt_algo_run.h).
 *
 * A schedule is first compiled for the rank (algo_int.h: offsets resolved,
 * empty messages dropped, each receive told where it lands), then run
 * round by round: every receive of the round is posted (MPI_Irecv), then
 * every send (MPI_Isend, from buf, which does not change while the round's
 * sends may read it), then the round is waited for with MPI_Testsome under
 * rt_wait_until, so that each completion is seen (and reported to the
 * observer) as it happens and a waiting rank does not burn its core.
 * Receives that touch elements no other step of the round touches are
 * applied as soon as they complete; the rest when the round is over.
 *
 * Messages carry elements of the call's MPI type, tag 0, on the caller's
 * communicator.  A step over empty pieces moves nothing: neither end posts
 * it (both see the same partition), so the k-th remaining send from s to d
 * still pairs with the k-th remaining receive at d from s, and the
 * observer is not told about it.  Vectors of more than INT_MAX elements are
 * refused (CM_ERR_UNSUPPORTED, the same on every rank): MPI counts are int,
 * and messages are not split.
 */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/api/rt_reduce.h"
#include "runtime/exec/algo_int.h"

MPI_Datatype rt_mpi_dtype(rt_dtype_t dtype)
{
    switch (dtype) {
    case RT_DTYPE_INT32:  return MPI_INT32_T;
    case RT_DTYPE_INT64:  return MPI_INT64_T;
    case RT_DTYPE_FLOAT:  return MPI_FLOAT;
    case RT_DTYPE_DOUBLE: return MPI_DOUBLE;
    }
    return MPI_DATATYPE_NULL;
}

MPI_Op rt_mpi_op(rt_op_t op)
{
    switch (op) {
    case RT_OP_SUM: return MPI_SUM;
    case RT_OP_MIN: return MPI_MIN;
    case RT_OP_MAX: return MPI_MAX;
    }
    return MPI_OP_NULL;
}

cm_status_t rt__algo_mpi_err(cm_err_t *err, int rc, const char *what, int32_t peer,
                             int32_t round)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;

    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
        len = snprintf(msg, sizeof msg, "MPI error code %d", rc);
    if (peer < 0)
        return CM_ERR(err, CM_ERR_MPI, "%s failed: %.*s", what, len, msg);
    return CM_ERR(err, CM_ERR_MPI, "%s (peer %d, round %d) failed: %.*s", what,
                  (int)peer, (int)round, len, msg);
}

cm_status_t rt__algo_comm_check(MPI_Comm comm, int32_t nranks, int32_t rank,
                                const char *what, cm_err_t *err)
{
    int size = 0, me = -1, rc;

    if (comm == MPI_COMM_NULL)
        return CM_ERR(err, CM_ERR_INVALID, "%s: no communicator", what);
    rc = MPI_Comm_size(comm, &size);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_rank(comm, &me);
    if (rc != MPI_SUCCESS)
        return rt__algo_mpi_err(err, rc, "MPI_Comm_size/rank", -1, 0);
    if (size != nranks || me != rank)
        return CM_ERR(err, CM_ERR_INVALID,
                      "%s: the communicator has %d ranks and this is rank %d, "
                      "the schedule wants %d ranks and rank %d",
                      what, size, me, (int)nranks, (int)rank);
    return CM_OK;
}

/* ---- Compiling one rank's steps ---------------------------------------- */

void rt__xprog_init(rt__xprog_t *pg)
{
    memset(pg, 0, sizeof *pg);
}

void rt__xprog_free(rt__xprog_t *pg)
{
    free(pg->ops);
    free(pg->round_start);
    free(pg->parts);
    free(pg->dead);
    rt__xprog_init(pg);
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    size_t n = *cap ? *cap : 16;
    void *q;

    if (need <= *cap)
        return 0;
    while (n < need)
        n *= 2;
    q = realloc(*p, n * size);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

static int overlaps(const rt__xop_t *a, const rt__xop_t *b)
{
    return a->off < b->off + b->n && b->off < a->off + a->n;
}

/*
 * Decides where the receives of ops[0..k) (one round, receives first) land
 * and gives the scratch ones their place; returns the round's scratch.
 */
static int64_t place_receives(rt__xop_t *ops, size_t k)
{
    int64_t scratch = 0;

    for (size_t i = 0; i < k && ops[i].dir == RT_STEP_RECV; i++) {
        int alone = 1;

        for (size_t j = 0; j < k && alone; j++)
            if (j != i && overlaps(&ops[i], &ops[j]))
                alone = 0;
        ops[i].early = (uint8_t)alone;
        if (alone && ops[i].act == RT_ACT_COPY) {
            ops[i].scratch = -1;
        } else {
            ops[i].scratch = scratch;
            scratch += ops[i].n;
        }
    }
    return scratch;
}

/* Appends the data-moving steps of one round, receives first. */
static void add_round(rt__xprog_t *pg, const rt_sched_t *s, const rt_step_t *st,
                      size_t first, size_t end)
{
    for (int pass = 0; pass < 2; pass++) {
        unsigned dir = pass == 0 ? RT_STEP_RECV : RT_STEP_SEND;

        for (size_t i = first; i < end; i++) {
            int64_t off = s->piece_off[st[i].piece];
            int64_t n = s->piece_off[st[i].piece + st[i].npieces] - off;
            rt__xop_t *op;

            if (st[i].dir != dir || n == 0)
                continue;
            op = &pg->ops[pg->nops++];
            op->off = off;
            op->n = n;
            op->scratch = -1;
            op->peer = st[i].peer;
            op->round = st[i].round;
            op->step = (uint32_t)i;
            op->dir = (uint8_t)st[i].dir;
            op->act = (uint8_t)st[i].act;
            op->early = 0;
            op->part = op->nparts = 0;
        }
    }
}

/* Appends one part (merging it into the previous one when they touch). */
static int add_part(rt__xprog_t *pg, rt__xop_t *op, int64_t off, int64_t n, int act)
{
    rt__xpart_t *last = op->nparts ? &pg->parts[pg->nparts - 1] : NULL;

    if (n == 0)
        return 0;
    if (last && last->act == act && last->off + last->n == off) {
        last->n += n;
        return 0;
    }
    if (grow((void **)&pg->parts, &pg->parts_cap, pg->nparts + 1, sizeof *pg->parts))
        return -1;
    if (op->nparts == 0)
        op->part = (uint32_t)pg->nparts;
    pg->parts[pg->nparts++] = (rt__xpart_t){ off, n, act };
    op->nparts++;
    return 0;
}

/*
 * What the receives of one round really do, given which pieces this rank
 * gave away (pg->dead): the round's MOVE sends kill their pieces first,
 * then a reduce into dead pieces becomes a copy (or parts), and every
 * received piece is alive again.
 */
static cm_status_t settle_actions(rt__xprog_t *pg, const rt_sched_t *s, const rt_step_t *st,
                                  size_t first, size_t end, rt__xop_t *ops, size_t k)
{
    uint8_t *dead = pg->dead;

    for (size_t i = first; i < end; i++)
        if (st[i].dir == RT_STEP_SEND && (st[i].flags & RT_STEP_MOVE))
            memset(dead + st[i].piece, 1, st[i].npieces);
    for (size_t i = 0; i < k && ops[i].dir == RT_STEP_RECV; i++) {
        const rt_step_t *t = &st[ops[i].step];
        int32_t ndead = 0;

        for (int32_t j = t->piece; j < t->piece + (int32_t)t->npieces; j++)
            ndead += dead[j] && s->piece_off[j + 1] > s->piece_off[j];
        if (t->act == RT_ACT_REDUCE && ndead > 0) {
            int32_t nlive = 0;

            for (int32_t j = t->piece; j < t->piece + (int32_t)t->npieces; j++)
                nlive += !dead[j] && s->piece_off[j + 1] > s->piece_off[j];
            if (nlive == 0) {
                ops[i].act = RT_ACT_COPY;
            } else {
                ops[i].act = RT__ACT_PARTS;
                for (int32_t j = t->piece; j < t->piece + (int32_t)t->npieces; j++)
                    if (add_part(pg, &ops[i], s->piece_off[j],
                                 s->piece_off[j + 1] - s->piece_off[j],
                                 dead[j] ? RT_ACT_COPY : RT_ACT_REDUCE))
                        return CM_ERR_NOMEM;
            }
        }
        memset(dead + t->piece, 0, t->npieces);
    }
    return CM_OK;
}

cm_status_t rt__xprog_build(rt__xprog_t *pg, const rt_sched_t *s, int32_t rank,
                            cm_err_t *err)
{
    const rt_step_t *st;
    size_t n;

    if (rank < 0 || rank >= s->nranks || (s->only_rank != -1 && s->only_rank != rank))
        return CM_ERR(err, CM_ERR_INVALID,
                      "%s: no steps of rank %d in this schedule (%d ranks, only rank %d)",
                      s->algo, (int)rank, (int)s->nranks, (int)s->only_rank);
    if (s->count > INT_MAX)
        return CM_ERR(err, CM_ERR_UNSUPPORTED,
                      "%s: %lld elements: vectors over %d elements are not run "
                      "(MPI counts are int and messages are not split)",
                      s->algo, (long long)s->count, INT_MAX);
    st = rt_sched_rank_steps(s, rank, &n);
    if (n > UINT32_MAX)
        return CM_ERR(err, CM_ERR_UNSUPPORTED, "%s: %zu steps for one rank", s->algo, n);
    if (grow((void **)&pg->ops, &pg->ops_cap, n, sizeof *pg->ops) ||
        grow((void **)&pg->round_start, &pg->rs_cap, n + 1, sizeof *pg->round_start) ||
        grow((void **)&pg->dead, &pg->dead_cap, (size_t)s->npieces, 1))
        return CM_ERR(err, CM_ERR_NOMEM, "%s: no memory for %zu steps", s->algo, n);
    /* Everything is alive, except a broadcast's vector away from its root. */
    memset(pg->dead, s->coll == RT_COLL_BCAST && rank != s->root, (size_t)s->npieces);
    pg->nops = 0;
    pg->nparts = 0;
    pg->nrounds = 0;
    pg->scratch_elems = 0;
    pg->max_round_ops = 0;
    for (size_t i = 0, j; i < n; i = j) {
        size_t start = pg->nops, k;
        int64_t scratch;

        if (st[i].round < 0)
            return CM_ERR(err, CM_ERR_INVALID, "%s: step %zu of rank %d has no round",
                          s->algo, i, (int)rank);
        for (j = i + 1; j < n && st[j].round == st[i].round; j++)
            ;
        add_round(pg, s, st, i, j);
        k = pg->nops - start;
        if (settle_actions(pg, s, st, i, j, pg->ops + start, k) != CM_OK)
            return CM_ERR(err, CM_ERR_NOMEM, "%s: no memory for the parts of receives",
                          s->algo);
        if (k == 0)
            continue;                    /* only empty messages */
        pg->round_start[pg->nrounds++] = start;
        scratch = place_receives(pg->ops + start, k);
        if (scratch > pg->scratch_elems)
            pg->scratch_elems = scratch;
        if (k > pg->max_round_ops)
            pg->max_round_ops = k;
    }
    pg->round_start[pg->nrounds] = pg->nops;
    return CM_OK;
}

/* ---- Running it ---------------------------------------------------------- */

void rt__xmem_init(rt__xmem_t *mem)
{
    memset(mem, 0, sizeof *mem);
}

void rt__xmem_free(rt__xmem_t *mem)
{
    free(mem->scratch);
    free(mem->req);
    free(mem->idx);
    rt__xmem_init(mem);
}

static cm_status_t xmem_reserve(rt__xmem_t *mem, size_t scratch_bytes, size_t nreq,
                                cm_err_t *err)
{
    if (scratch_bytes > mem->scratch_bytes) {
        void *p = malloc(scratch_bytes);

        if (!p)
            return CM_ERR(err, CM_ERR_NOMEM, "no memory for %zu bytes of scratch",
                          scratch_bytes);
        free(mem->scratch);
        mem->scratch = p;
        mem->scratch_bytes = scratch_bytes;
    }
    if (nreq > mem->req_cap) {
        MPI_Request *r = realloc(mem->req, nreq * sizeof *r);
        int *x;

        if (r)
            mem->req = r;
        x = r ? realloc(mem->idx, nreq * sizeof *x) : NULL;
        if (!x)
            return CM_ERR(err, CM_ERR_NOMEM, "no memory for %zu requests", nreq);
        mem->idx = x;
        mem->req_cap = nreq;
    }
    return CM_OK;
}

/* What the wait of one round needs (rt_wait_until's argument). */
typedef struct xround {
    const rt__xop_t          *ops;
    const rt__xpart_t        *parts;
    size_t                    k, left;
    MPI_Request              *req;
    int                      *idx;
    unsigned char            *buf, *scratch;
    size_t                    esz;
    rt_reduce_fn_t            reduce;
    const rt_algo_observer_t *obs;
    int                       rc;       /* an MPI error stops the wait */
    rt__xtag_t               *tag;      /* the auto plan's tags (ntags 0: none) */
    MPI_Comm                  comm;
    int64_t                   probe_at; /* rt_wait_now_ns of the next probe */
} xround_t;

static void report(const xround_t *w, rt_msg_t what, const rt__xop_t *op)
{
    w->obs->msg(w->obs->loc, what, w->obs->instance, op->peer, op->round, op->step,
                (size_t)op->n * w->esz);
}

/* A received message (in scratch) into buf, as its step says. */
static void apply(const xround_t *w, const rt__xop_t *op)
{
    unsigned char *dst = w->buf + (size_t)op->off * w->esz;
    const unsigned char *src = w->scratch + (size_t)op->scratch * w->esz;

    if (op->act == RT_ACT_REDUCE) {
        w->reduce(dst, src, (size_t)op->n);
    } else if (op->act == RT_ACT_COPY) {
        memcpy(dst, src, (size_t)op->n * w->esz);
    } else {
        for (uint32_t i = 0; i < op->nparts; i++) {
            const rt__xpart_t *p = &w->parts[op->part + i];
            unsigned char *d = w->buf + (size_t)p->off * w->esz;
            const unsigned char *x = src + (size_t)(p->off - op->off) * w->esz;

            if (p->act == RT_ACT_REDUCE)
                w->reduce(d, x, (size_t)p->n);
            else
                memcpy(d, x, (size_t)p->n * w->esz);
        }
    }
}

bool rt__algo_probe_foreign(MPI_Comm comm, rt__xtag_t *t)
{
    int parity = (t->tag - 1) & 1;
    int64_t now = (int64_t)rt_wait_now_ns();

    for (int i = 0; i < t->ntags; i++) {
        int other = 1 + 2 * i + parity, flag = 0;
        MPI_Status st;

        if (other == t->tag)
            continue;
        if (MPI_Iprobe(MPI_ANY_SOURCE, other, comm, &flag, &st) == MPI_SUCCESS && flag) {
            if (t->foreign_since == 0)
                t->foreign_since = now;
            if (now - t->foreign_since < RT_AUTO_MISMATCH_NS)
                return false;            /* perhaps the next operation's: wait on */
            t->foreign_tag = other;
            t->foreign_src = st.MPI_SOURCE;
            return true;
        }
    }
    t->foreign_since = 0;
    return false;
}

static bool xround_ready(void *arg)
{
    xround_t *w = arg;
    int outcount = 0;

    if (w->left == 0)
        return true;
    if (w->tag->ntags > 0 && (int64_t)rt_wait_now_ns() >= w->probe_at) {
        w->probe_at = (int64_t)rt_wait_now_ns() + RT_AUTO_PROBE_NS;
        if (rt__algo_probe_foreign(w->comm, w->tag))
            return true;                 /* the caller cancels and reports */
    }
    w->rc = MPI_Testsome((int)w->k, w->req, &outcount, w->idx, MPI_STATUSES_IGNORE);
    if (w->rc != MPI_SUCCESS)
        return true;
    if (outcount == MPI_UNDEFINED) {     /* no active request left */
        w->left = 0;
        return true;
    }
    for (int i = 0; i < outcount; i++) {
        const rt__xop_t *op = &w->ops[w->idx[i]];

        if (w->obs)
            report(w, op->dir == RT_STEP_SEND ? RT_MSG_SEND_DONE : RT_MSG_RECV, op);
        if (op->dir == RT_STEP_RECV && op->early && op->scratch >= 0)
            apply(w, op);
    }
    w->left -= (size_t)outcount;
    return w->left == 0;
}

/* Posts one round's receives and sends; on an MPI error returns its code. */
static cm_status_t xround_post(xround_t *w, MPI_Datatype dt, MPI_Comm comm, cm_err_t *err)
{
    for (size_t i = 0; i < w->k; i++) {
        const rt__xop_t *op = &w->ops[i];
        int rc;

        if (op->dir == RT_STEP_RECV) {
            void *dst = op->scratch < 0 ? w->buf + (size_t)op->off * w->esz
                                        : w->scratch + (size_t)op->scratch * w->esz;
            rc = MPI_Irecv(dst, (int)op->n, dt, op->peer, w->tag->tag, comm, &w->req[i]);
            if (rc != MPI_SUCCESS)
                return rt__algo_mpi_err(err, rc, "MPI_Irecv", op->peer, op->round);
            if (w->obs)
                report(w, RT_MSG_RECV_POST, op);
        } else {
            rc = MPI_Isend(w->buf + (size_t)op->off * w->esz, (int)op->n, dt, op->peer,
                           w->tag->tag, comm, &w->req[i]);
            if (rc != MPI_SUCCESS)
                return rt__algo_mpi_err(err, rc, "MPI_Isend", op->peer, op->round);
            if (w->obs)
                report(w, RT_MSG_SEND, op);
        }
    }
    return CM_OK;
}

/* The receives of a finished round that waited for its end, in step order. */
static void xround_apply(const xround_t *w)
{
    for (size_t i = 0; i < w->k && w->ops[i].dir == RT_STEP_RECV; i++)
        if (!w->ops[i].early && w->ops[i].scratch >= 0)
            apply(w, &w->ops[i]);
}

const rt_wait_policy_t *rt__algo_policy(const rt_algo_call_t *call)
{
    static const rt_wait_policy_t dflt = { 50 * 1000, 2 * 1000 * 1000 };

    return call->policy ? call->policy : &dflt;
}

/* ---- Waiting ------------------------------------------------------------ */

static int mpi_yields_value;
static pthread_once_t mpi_yields_once = PTHREAD_ONCE_INIT;

/* Reads Open MPI's mpi_yield_when_idle through the MPI tool interface. */
static void mpi_yields_read(void)
{
    int level = MPI_THREAD_SINGLE, provided, n = 0;

    /* Ask for the level MPI already runs at: Open MPI 4.1's
       MPI_T_init_thread sets the process's thread level to the one asked
       for, and MPI_THREAD_SINGLE here made every later call unsafe for
       the tree's threads (found by the random trees, seed 10). */
    MPI_Query_thread(&level);
    if (MPI_T_init_thread(level, &provided) != MPI_SUCCESS)
        return;
    if (MPI_T_cvar_get_num(&n) != MPI_SUCCESS)
        n = 0;
    for (int i = 0; i < n; i++) {
        char name[64], desc[1];
        int name_len = sizeof name, desc_len = sizeof desc, verbosity, bind, scope, count;
        MPI_Datatype dt;
        MPI_T_enum en;
        MPI_T_cvar_handle h;
        union { int i; _Bool b; unsigned char bytes[16]; } value;

        if (MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &dt, &en, desc, &desc_len,
                                &bind, &scope) != MPI_SUCCESS ||
            strcmp(name, "mpi_yield_when_idle") != 0 || (dt != MPI_INT && dt != MPI_C_BOOL) ||
            bind != MPI_T_BIND_NO_OBJECT)
            continue;
        memset(&value, 0, sizeof value);
        if (MPI_T_cvar_handle_alloc(i, NULL, &h, &count) == MPI_SUCCESS) {
            if (count == 1 && MPI_T_cvar_read(h, &value) == MPI_SUCCESS)
                mpi_yields_value = dt == MPI_INT ? value.i != 0 : value.b;  /* Open MPI: bool */
            MPI_T_cvar_handle_free(&h);
        }
        break;
    }
    MPI_T_finalize();
}

/*
 * Whether MPI's progress engine gives the CPU away itself when it finds
 * nothing to do: Open MPI's mpi_yield_when_idle, which mpirun switches on
 * when it oversubscribes a node.  Read once per process; 0 when unknown.
 */
static int mpi_yields(void)
{
    pthread_once(&mpi_yields_once, mpi_yields_read);
    return mpi_yields_value;
}

/*
 * Waits for MPI requests, following the wait policy.  First a few
 * back-to-back polls when the policy spins at all (each MPI_Testsome
 * drives MPI's progress once): a small message on shared memory completes
 * within them, and then the wait costs neither a clock read nor a pause
 * instruction.  Measured on the 2-core machine, 4-byte recursive doubling
 * at np 2 (best of 200 blocks of 500): 0.218 us per operation with a pause
 * between these polls, 0.178 us without, Open MPI's own 0.186 us.
 *
 * Then the policy's spin, yield and sleep phases (rt_wait_until), except
 * when MPI yields inside every unsuccessful poll already
 * (mpi_yield_when_idle): a second sched_yield of ours per poll only slows
 * the wake-up (4-byte recursive doubling at np 4 on 2 cores, best of 100
 * blocks: 8.2 us for Open MPI, 27.8 us for us yielding too, 8.2 us
 * without), so the yield phase's budget is spent polling, MPI doing the
 * yielding, and the sleep phase comes after it, with naps of at most
 * RT_WAIT_NAP_ROUND_NS (rt_wait.h says why).
 *
 * The yield budget grows with the bytes the wait moves (RT__YIELD_NS_PER_BYTE):
 * a round of megabytes lasts milliseconds however fast the peer is, and
 * sleeping through the end of a transfer in progress (back-off, then up to 1 ms)
 * cost the 16 MiB ring at np 2 about 10 % (1.12-1.24x Open MPI's time
 * against 1.04x without sleeping).  Yielding gives the core to anyone else
 * who wants it, so the longer budget burns nothing that another thread
 * could use.
 */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void rt__algo_wait(const rt_wait_policy_t *policy, uint64_t bytes, rt_wait_ready_fn_t ready,
                   void *arg)
{
    rt_wait_policy_t p = *policy;

    if (p.spin_ns > 0)
        for (int i = 0; i < RT__QUICK_POLLS; i++)
            if (ready(arg))
                return;
    p.yield_ns = add_sat(p.yield_ns, bytes * RT__YIELD_NS_PER_BYTE);
    if (mpi_yields()) {
        p.spin_ns = add_sat(p.spin_ns, p.yield_ns);
        p.yield_ns = 0;
    }
    rt_wait_until_nap(&p, ready, arg, RT_WAIT_NAP_ROUND_NS);
}

cm_status_t rt__xprog_exec(const rt__xprog_t *pg, const rt_algo_call_t *call, void *buf,
                           rt__xmem_t *mem, cm_err_t *err)
{
    const rt_wait_policy_t *policy = rt__algo_policy(call);
    MPI_Datatype dt = rt_mpi_dtype(call->dtype);
    xround_t w;
    cm_status_t st;

    if (dt == MPI_DATATYPE_NULL || rt_mpi_op(call->op) == MPI_OP_NULL)
        return CM_ERR(err, CM_ERR_INVALID, "unknown type %d or op %d", (int)call->dtype,
                      (int)call->op);
    w.esz = rt_dtype_size(call->dtype);
    st = xmem_reserve(mem, (size_t)pg->scratch_elems * w.esz, pg->max_round_ops, err);
    if (st != CM_OK)
        return st;
    w.parts = pg->parts;
    w.req = mem->req;
    w.idx = mem->idx;
    w.buf = buf;
    w.scratch = mem->scratch;
    w.reduce = rt_reduce_get(call->dtype, call->op);
    w.obs = call->observer && call->observer->msg ? call->observer : NULL;
    w.tag = &mem->tag;
    w.tag->foreign_tag = -1;
    w.tag->foreign_since = 0;
    w.comm = call->comm;
    for (size_t r = 0; r < pg->nrounds; r++) {
        uint64_t bytes = 0;

        w.ops = pg->ops + pg->round_start[r];
        w.k = w.left = pg->round_start[r + 1] - pg->round_start[r];
        w.rc = MPI_SUCCESS;
        w.probe_at = (int64_t)rt_wait_now_ns() + RT_AUTO_PROBE_NS;
        st = xround_post(&w, dt, call->comm, err);
        if (st != CM_OK)
            return st;
        for (size_t i = 0; i < w.k; i++)
            bytes += (uint64_t)w.ops[i].n * w.esz;
        rt__algo_wait(policy, bytes, xround_ready, &w);
        if (w.rc != MPI_SUCCESS)
            return rt__algo_mpi_err(err, w.rc, "MPI_Testsome", -1, w.ops[0].round);
        if (w.tag->foreign_tag >= 0)     /* the ranks disagree: the job is aborted */
            return CM_ERR(err, CM_ERR_MISMATCH, "round %d: rank %d sent a message with "
                          "tag %d", (int)w.ops[0].round, w.tag->foreign_src,
                          w.tag->foreign_tag);
        xround_apply(&w);
    }
    return CM_OK;
}

cm_status_t rt_sched_run(const rt_sched_t *s, int32_t rank, const rt_algo_call_t *call,
                         void *buf, cm_err_t *err)
{
    rt__xprog_t pg;
    rt__xmem_t mem;
    cm_status_t st;

    rt__xprog_init(&pg);
    rt__xmem_init(&mem);
    st = rt__xprog_build(&pg, s, rank, err);
    if (st == CM_OK)
        st = rt__algo_comm_check(call->comm, s->nranks, rank, s->algo, err);
    if (st == CM_OK)
        st = rt__xprog_exec(&pg, call, buf, &mem, err);
    rt__xmem_free(&mem);
    rt__xprog_free(&pg);
    return st;
}
