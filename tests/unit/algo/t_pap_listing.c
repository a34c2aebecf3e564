/*
 * t_pap_listing.c - Proficz 2018's listings (Fig. 5 SLT, Fig. 7 PRR) run
 * as printed, to settle what they mean (issue 6: "settle the PRR `is` and
 * SLT `i mod P` questions by replay").  docs/slt-prr-findings.md tells the
 * story; each test below asserts one line of its table.
 *
 * A listing is encoded literally as per-process programs over sorted ids
 * (send to / receive from a neighbour, segment, reduce or override), with
 * the doubtful lines as options.  Two executors judge a program:
 *
 *  - listing_run: the listing's own semantics.  Sends are non-blocking
 *    (buffered: the payload is the sender's segment when it is posted),
 *    receive_segment() blocks and takes the next message from the left
 *    neighbour, either in channel order (FIFO, as MPI with one tag) or the
 *    next one carrying the expected segment (tag = segment).  Outcomes:
 *    deadlock, a message never received, FIFO handing over another
 *    segment than the receiver expects, a contribution counted twice, an
 *    incomplete result, or a bad program (self-send, segment out of range).
 *  - listing_sched: the project's machinery.  Pair sends and receives per
 *    channel (FIFO), emit the programs with RT_ROUND_UNSET, rt_sched_asap
 *    under B, then rt_sched_verify.  Only meaningful when FIFO pairs up.
 *
 * Expected outcomes were worked out by hand before running (the comments
 * give the reason for each); nothing here is copied from program output.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tst.h"
#include "tests/test_list.h"
#include "runtime/algo/algo_int.h"


/* ---- Programs ------------------------------------------------------------ */

enum { OP_SEND, OP_RECV };

typedef struct lop {
    uint8_t dir, act;    /* act: receives only (RT_ACT_REDUCE / RT_ACT_COPY) */
    int32_t peer, seg;
} lop_t;

typedef struct listing {
    int32_t np, nseg;
    int     bad;         /* a self-send or a segment out of range */
    lop_t  *op[16];      /* per id */
    size_t  n[16], cap[16];
} listing_t;

static void lst_init(listing_t *l, int32_t np, int32_t nseg)
{
    memset(l, 0, sizeof *l);
    l->np = np;
    l->nseg = nseg;
}

static void lst_free(listing_t *l)
{
    for (int32_t i = 0; i < l->np; i++)
        free(l->op[i]);
}

static void lst_add(listing_t *l, int32_t id, int dir, int act, int32_t peer,
                    int32_t seg)
{
    if (peer == id || seg < 0 || seg >= l->nseg) {
        l->bad = 1;
        return;
    }
    if (l->n[id] == l->cap[id]) {
        l->cap[id] = l->cap[id] ? 2 * l->cap[id] : 16;
        l->op[id] = realloc(l->op[id], l->cap[id] * sizeof *l->op[id]);
        TST_NOT_NULL(l->op[id]);
    }
    l->op[id][l->n[id]++] = (lop_t){ (uint8_t)dir, (uint8_t)act, peer, seg };
}

/* ---- Executor 1: the listing's semantics --------------------------------- */

typedef enum {
    LR_OK, LR_DEADLOCK, LR_UNRECEIVED, LR_WRONG_SEG, LR_TWICE, LR_INCOMPLETE,
    LR_BAD
} lres_t;

typedef struct msg {
    int32_t src, dst, seg, taken;
    uint64_t tok;
} msg_t;

static lres_t listing_run(const listing_t *l, int by_tag)
{
    uint64_t tok[16][64], full = ((uint64_t)1 << l->np) - 1;
    size_t pc[16] = { 0 }, nmsg = 0, cap = 256;
    msg_t *m = malloc(cap * sizeof *m);
    lres_t res = LR_OK;
    int progress = 1;

    TST_NOT_NULL(m);
    if (l->bad) {
        free(m);
        return LR_BAD;
    }
    for (int32_t i = 0; i < l->np; i++)
        for (int32_t j = 0; j < l->nseg; j++)
            tok[i][j] = (uint64_t)1 << i;
    while (progress && res == LR_OK) {
        progress = 0;
        for (int32_t i = 0; i < l->np && res == LR_OK; i++) {
            while (pc[i] < l->n[i] && res == LR_OK) {
                const lop_t *o = &l->op[i][pc[i]];
                size_t k;

                if (o->dir == OP_SEND) {
                    if (nmsg == cap) {
                        m = realloc(m, (cap *= 2) * sizeof *m);
                        TST_NOT_NULL(m);
                    }
                    m[nmsg++] = (msg_t){ i, o->peer, o->seg, 0,
                                         tok[i][o->seg] };
                    pc[i]++;
                    progress = 1;
                    continue;
                }
                for (k = 0; k < nmsg; k++)
                    if (!m[k].taken && m[k].src == o->peer && m[k].dst == i &&
                        (!by_tag || m[k].seg == o->seg))
                        break;
                if (k == nmsg)
                    break;                  /* blocked */
                if (m[k].seg != o->seg) {
                    res = LR_WRONG_SEG;
                    break;
                }
                m[k].taken = 1;
                if (o->act == RT_ACT_COPY)
                    tok[i][o->seg] = m[k].tok;
                else if (tok[i][o->seg] & m[k].tok)
                    res = LR_TWICE;
                else
                    tok[i][o->seg] |= m[k].tok;
                pc[i]++;
                progress = 1;
            }
        }
    }
    for (int32_t i = 0; i < l->np && res == LR_OK; i++)
        if (pc[i] < l->n[i])
            res = LR_DEADLOCK;
    for (size_t k = 0; k < nmsg && res == LR_OK; k++)
        if (!m[k].taken)
            res = LR_UNRECEIVED;
    for (int32_t i = 0; i < l->np && res == LR_OK; i++)
        for (int32_t j = 0; j < l->nseg; j++)
            if (tok[i][j] != full)
                res = LR_INCOMPLETE;
    free(m);
    return res;
}

/* ---- Executor 2: rt_sched_asap + rt_sched_verify ------------------------- */

/*
 * The k-th send of a channel pairs with its k-th receive.  Returns CM_OK
 * and the verifier's verdict, or CM_ERR_MISMATCH when FIFO pairing fails
 * (counts or segments differ), before any schedule is built.  order maps
 * ids to the real ranks the schedule stores.
 */
static cm_status_t listing_sched(const listing_t *l, const int32_t *order,
                                 cm_err_t *err)
{
    rt_algo_params_t p;
    rt_sched_t s;
    int64_t off[65];
    cm_status_t st;

    if (l->bad)
        return CM_ERR_MISMATCH;
    memset(&p, 0, sizeof p);
    p.nranks = l->np;
    p.count = 3 * l->nseg;
    rt_part_el(p.count, l->nseg, off);
    rt_sched_init(&s);
    st = rt_sched_begin(&s, "listing", RT_COLL_ALLREDUCE, RT_PORT_B, &p, -1,
                        l->nseg, off, err);
    TST_EQ_STATUS(st, CM_OK);
    for (int32_t i = 0; i < l->np && st == CM_OK; i++)
        for (size_t a = 0; a < l->n[i] && st == CM_OK; a++) {
            const lop_t *o = &l->op[i][a];
            int32_t q = o->peer, kth = 0, act = o->act;
            size_t b;

            if (o->dir == OP_SEND) {
                /* Find the receive this send meets: same rank of order on
                   the channel. */
                for (size_t c = 0; c < a; c++)
                    kth += l->op[i][c].dir == OP_SEND && l->op[i][c].peer == q;
                for (b = 0; b < l->n[q]; b++)
                    if (l->op[q][b].dir == OP_RECV && l->op[q][b].peer == i &&
                        kth-- == 0)
                        break;
                if (b == l->n[q] || l->op[q][b].seg != o->seg) {
                    st = CM_ERR_MISMATCH;
                    break;
                }
                act = l->op[q][b].act;
            }
            st = rt_sched_step(&s, order[i], RT_ROUND_UNSET, order[q],
                               o->dir == OP_SEND ? RT_STEP_SEND : RT_STEP_RECV,
                               act, act == RT_ACT_COPY ? RT_STEP_FINAL : 0,
                               o->seg, 1);
        }
    if (st == CM_OK)
        st = rt_sched_finish(&s, err);
    if (st == CM_OK)
        st = rt_sched_asap(&s, RT_PORT_B, err);
    if (st == CM_OK)
        st = rt_sched_verify(&s, err);
    rt_sched_free(&s);
    return st;
}

/* ---- Fig. 5, SLT ---------------------------------------------------------- */

typedef struct slt_reading {
    int send_in_if;   /* line 6 inside `if id != 0`, as typeset */
    int si_mod_p;     /* line 2/8: si := i mod P (else si := i) */
    int loop_p;       /* lines 1/7: i := 0 to P-1 (else to S-1) */
} slt_reading_t;

static void slt_listing(listing_t *l, int32_t np, int32_t nseg,
                        slt_reading_t rd)
{
    int32_t iters = rd.loop_p ? np : nseg;

    lst_init(l, np, nseg);
    for (int32_t id = 0; id < np; id++) {
        int32_t left = (id + np - 1) % np, right = (id + 1) % np;

        for (int32_t i = 0; i < iters; i++) {             /* lines 1-6 */
            int32_t si = rd.si_mod_p ? i % np : i;

            if (id != 0)
                lst_add(l, id, OP_RECV, RT_ACT_REDUCE, left, si);
            if (id != 0 || !rd.send_in_if)
                lst_add(l, id, OP_SEND, 0, right, si);
        }
        for (int32_t i = 0; i < iters; i++) {             /* lines 7-12 */
            int32_t si = rd.si_mod_p ? i % np : i;

            if (id != np - 1) {
                lst_add(l, id, OP_RECV, RT_ACT_COPY, left, si);
                if (id < np - 2)
                    lst_add(l, id, OP_SEND, 0, right, si);
            }
        }
    }
}

/* Id -> rank maps to replay with: identity, reversed, a rotation. */
static void make_order(int32_t *order, int32_t np, int kind)
{
    for (int32_t i = 0; i < np; i++)
        order[i] = kind == 0 ? i : kind == 1 ? np - 1 - i : (i + 2) % np;
}

/* Both executors (and, for the schedule, three rank maps) agree on ok. */
static void expect_ok(const listing_t *l, const char *what)
{
    int32_t order[16];
    cm_err_t err;

    if (listing_run(l, 0) != LR_OK || listing_run(l, 1) != LR_OK)
        TST_FAIL("%s P %d S %d: listing run %d / %d", what, l->np, l->nseg,
                 (int)listing_run(l, 0), (int)listing_run(l, 1));
    for (int kind = 0; kind < 3; kind++) {
        make_order(order, l->np, kind);
        cm_err_clear(&err);
        if (listing_sched(l, order, &err) != CM_OK)
            TST_FAIL("%s P %d S %d order %d: %s", what, l->np, l->nseg, kind,
                     err.msg);
    }
}

/*
 * Line 6 as typeset sits inside `if id != 0`: id 0 never sends, id 1 waits
 * for it forever, for every P >= 2.  P = 1 makes id 0 send to itself.
 */
void t_pap_listing_slt_send_in_if(void)
{
    slt_reading_t lit = { 1, 1, 1 }, fixed = { 0, 1, 1 };
    listing_t l;

    for (int32_t np = 2; np <= 9; np++) {
        slt_listing(&l, np, np, lit);
        TST_EQ_INT(listing_run(&l, 0), LR_DEADLOCK);
        TST_EQ_INT(listing_run(&l, 1), LR_DEADLOCK);
        lst_free(&l);
        /* With the send at loop level the listing is a correct allreduce
           (chain 0..P-1, then P-1 -> 0 -> ... -> P-2). */
        slt_listing(&l, np, np, fixed);
        expect_ok(&l, "slt send at loop level");
        lst_free(&l);
    }
    slt_listing(&l, 1, 1, fixed);
    TST_EQ_INT(listing_run(&l, 0), LR_BAD);
    lst_free(&l);
}

/*
 * rt_algo_slt's steps of each rank, sends and receives taken separately
 * (ASAP under B may run a receive before an earlier-listed send, but keeps
 * each stream in order), are the listing's.
 */
static void same_streams(const listing_t *l, const rt_sched_t *s)
{
    for (int32_t r = 0; r < l->np; r++)
        for (int dir = 0; dir < 2; dir++) {
            size_t n, a = 0;
            const rt_step_t *t = rt_sched_rank_steps(s, r, &n);

            for (size_t b = 0; b < l->n[r]; b++) {
                const lop_t *o = &l->op[r][b];

                if (o->dir != dir)
                    continue;
                while (a < n && t[a].dir != (dir == OP_SEND ? RT_STEP_SEND :
                                             RT_STEP_RECV))
                    a++;
                TST_TRUE(a < n);
                TST_EQ_INT(t[a].peer, o->peer);
                TST_EQ_INT(t[a].piece, o->seg);
                if (dir == OP_RECV)
                    TST_EQ_INT(t[a].act, o->act);
                a++;
            }
            while (a < n && t[a].dir != (dir == OP_SEND ? RT_STEP_SEND :
                                         RT_STEP_RECV))
                a++;
            TST_EQ_UINT(a, n);
        }
}

/*
 * S segments.  si := i mod P is si := i while i < P, so with S <= P it is
 * harmless; with S > P it sends segment i-P a second time (every process
 * reduces its contribution into it again: counted twice) and segments
 * P..S-1 never.  Keeping the listing's loop bound P-1 instead leaves
 * segments P..S-1 unreduced (S > P) or indexes past the last segment
 * (S < P).  si := i with loops over S works for every S.
 */
void t_pap_listing_slt_segments(void)
{
    slt_reading_t by_s = { 0, 0, 0 }, mod_p = { 0, 1, 0 }, bound_p = { 0, 1, 1 };
    listing_t l;

    for (int32_t np = 2; np <= 9; np++) {
        int32_t segs[5] = { 1, np - 1, np, np + 1, 2 * np + 1 };

        for (int c = 0; c < 5; c++) {
            int32_t nseg = segs[c];

            if (nseg < 1)
                continue;
            slt_listing(&l, np, nseg, by_s);
            expect_ok(&l, "slt si = i");
            {
                rt_algo_params_t p;
                rt_sched_t s;
                cm_err_t err;

                memset(&p, 0, sizeof p);
                p.nranks = np;
                p.count = 7 * nseg;
                p.nsegs = nseg;
                rt_sched_init(&s);
                TST_EQ_STATUS(rt_algo_slt(&s, &p, -1, &err), CM_OK);
                same_streams(&l, &s);
                rt_sched_free(&s);
            }
            lst_free(&l);

            slt_listing(&l, np, nseg, mod_p);
            if (nseg <= np)
                expect_ok(&l, "slt si = i mod P, S <= P");
            else
                TST_EQ_INT(listing_run(&l, 1), LR_TWICE);
            lst_free(&l);

            slt_listing(&l, np, nseg, bound_p);
            TST_EQ_INT(listing_run(&l, 1), nseg == np ? LR_OK :
                       nseg < np ? LR_BAD : LR_INCOMPLETE);
            lst_free(&l);
        }
    }
}

/* ---- Fig. 7, PRR ---------------------------------------------------------- */

enum { L19_ID, L19_SI, L19_ALWAYS, L19_RP };          /* line 19 */
enum { OV_LITERAL, OV_NO_OWNER, OV_OWNER_FIRST };      /* lines 22-27 */

typedef struct prr_reading {
    int sp_b;        /* lines 9-12: 0 = A (i := i+1; sp_j := i), 1 = B */
    int line19;
    int override;
} prr_reading_t;

/* Lines 1-6: k from the sorted arrival times (units of tau). */
static void prr_k(int32_t np, const double *a, int32_t *k)
{
    k[np - 1] = 0;
    for (int32_t i = np - 2; i >= 0; i--)
        k[i] = k[i + 1] + (a[np - 1] - a[i + 1] >= k[i + 1] + 1);
}

static void prr_listing(listing_t *l, int32_t np, const int32_t *k,
                        prr_reading_t rd)
{
    int32_t sp[16], rp[16];

    lst_init(l, np, np);
    /* Lines 7-13. */
    for (int32_t j = 0, i = 0; j < np; j++) {
        if (rd.sp_b) {
            while (i + k[i] < j)
                i++;
            sp[j] = i;
        } else if (i + k[i] >= j) {
            sp[j] = i;
        } else {
            sp[j] = ++i;
        }
        rp[j] = (sp[j] + np - 1) % np;
    }
    for (int32_t id = 0; id < np; id++) {
        int32_t left = (id + np - 1) % np, right = (id + 1) % np;
        int32_t si = id + k[id];                             /* line 14 */

        for (int32_t i = 0; i < np; i++) {                   /* 15-21 */
            int send = rd.line19 == L19_ALWAYS ||
                (rd.line19 == L19_ID && (rp[si] + np - 1) % np != id) ||
                (rd.line19 == L19_SI && (rp[si] + np - 1) % np != si) ||
                (rd.line19 == L19_RP && rp[si] != id);

            if (sp[si] != id)
                lst_add(l, id, OP_RECV, RT_ACT_REDUCE, left, si);
            if (send)
                lst_add(l, id, OP_SEND, 0, right, si);
            si = (si + np - 1) % np;
        }
        if (rd.override == OV_OWNER_FIRST)
            si = (si + 1) % np;
        for (int32_t i = 0; i < np; i++) {                   /* 22-27 */
            if (rp[si] != id)
                lst_add(l, id, OP_RECV, RT_ACT_COPY, left, si);
            if ((rp[si] + np - 1) % np != id &&
                (rd.override != OV_NO_OWNER || rp[si] != id))
                lst_add(l, id, OP_SEND, 0, right, si);
            si = (si + np - 1) % np;
        }
    }
}

/* Arrival patterns 0..PRR_NPAT-1 (sorted, units of tau): all equal, the
   last late by 0.5, 1, 3 and P+2, evenly spread, four random ones.  The k
   they give is what matters to the listing; make_order maps ids to ranks. */
#define PRR_NPAT 10

static void prr_pattern(int32_t np, int pat, double *a)
{
    static const double late[] = { 0.5, 1, 3 };
    uint32_t x = 12345u + (uint32_t)np * 7919u + (uint32_t)pat;

    for (int32_t i = 0; i < np; i++)
        a[i] = 0;
    if (pat == 0)
        return;                                     /* all equal */
    if (pat <= 3) {
        a[np - 1] = late[pat - 1];                  /* one late */
    } else if (pat == 4) {
        a[np - 1] = np + 2;
    } else if (pat == 5) {                          /* evenly spread */
        for (int32_t i = 0; i < np; i++)
            a[i] = i;
    } else {                                        /* random, sorted */
        for (int32_t i = 0; i < np; i++) {
            x = x * 1103515245u + 12345u;
            a[i] = (double)((x >> 16) % (3u * (uint32_t)np)) / 2;
        }
        for (int32_t i = 1; i < np; i++)
            for (int32_t j = i; j > 0 && a[j - 1] > a[j]; j--) {
                double t = a[j];
                a[j] = a[j - 1];
                a[j - 1] = t;
            }
    }
}

static void prr_run(int32_t np, const int32_t *k, prr_reading_t rd,
                    listing_t *l, lres_t *fifo, lres_t *tag)
{
    prr_listing(l, np, k, rd);
    *fifo = listing_run(l, 0);
    *tag = listing_run(l, 1);
}

/*
 * Line 19 `if (rp_si + P - 1) mod P != is`.  With is = id (or i_s, the
 * sorted position, which is id) the process before the last reducer of a
 * segment does not pass it on, so even the plain ring (k = 0) breaks: in
 * its last reduce step every process waits for a segment its left
 * neighbour sends only after its own last receive - a cycle, with FIFO
 * and with tags alike.  is = si: "si + 1 != rp_si" holds for P > 2 and
 * k = 0, so it sends always there; at P = 2 it never sends.  rp_si != id
 * (do not send a segment one has just finished) is the natural fix, but
 * then the override loop as written deadlocks (next test).
 */
void t_pap_listing_prr_line19(void)
{
    int32_t k0[16] = { 0 };
    prr_reading_t is_id = { 1, L19_ID, OV_LITERAL };
    prr_reading_t is_si = { 1, L19_SI, OV_NO_OWNER };
    listing_t l;
    lres_t f, t;

    for (int32_t np = 3; np <= 9; np++) {
        prr_run(np, k0, is_id, &l, &f, &t);
        TST_EQ_INT(f, LR_DEADLOCK);
        TST_EQ_INT(t, LR_DEADLOCK);
        lst_free(&l);
        prr_run(np, k0, is_si, &l, &f, &t);
        TST_EQ_INT(f, LR_OK);
        TST_EQ_INT(t, LR_OK);
        lst_free(&l);
    }
    prr_run(2, k0, is_id, &l, &f, &t);
    TST_EQ_INT(t, LR_DEADLOCK);
    lst_free(&l);
    prr_run(2, k0, is_si, &l, &f, &t);
    TST_EQ_INT(t, LR_DEADLOCK);
    lst_free(&l);
}

/*
 * The override loop starts where the reduce loop left si: at the process's
 * own start segment, which arrives from the left only after the left
 * neighbour's own override loop has gone all the way round.  So with
 * line 19 = "rp_si != id" every process first waits for its left
 * neighbour: deadlock, for every P >= 2 and k = 0.  If instead the reduce
 * loop always sends (the last reducer's send is the segment's first copy),
 * the override loop lines up, but line 25 lets the owner send its segment
 * once more at the end: P messages nobody receives.  Starting the override
 * loop one segment later (si+1, the owner first, as Open MPI's ring) with
 * "rp_si != id" is the plain ring for k = 0.
 */
void t_pap_listing_prr_override(void)
{
    int32_t k0[16] = { 0 };
    prr_reading_t rp_lit = { 1, L19_RP, OV_LITERAL };
    prr_reading_t always_lit = { 1, L19_ALWAYS, OV_LITERAL };
    prr_reading_t rp_first = { 1, L19_RP, OV_OWNER_FIRST };
    listing_t l;
    lres_t f, t;

    for (int32_t np = 2; np <= 9; np++) {
        prr_run(np, k0, rp_lit, &l, &f, &t);
        TST_EQ_INT(f, LR_DEADLOCK);
        TST_EQ_INT(t, LR_DEADLOCK);
        lst_free(&l);
        prr_run(np, k0, always_lit, &l, &f, &t);
        TST_EQ_INT(f, LR_UNRECEIVED);
        TST_EQ_INT(t, LR_UNRECEIVED);
        lst_free(&l);
        prr_listing(&l, np, k0, rp_first);
        expect_ok(&l, "prr rp_si != id, owner first, k = 0");
        lst_free(&l);
    }
}

/*
 * Lines 9-12 leave sp_j unset when i + k_i < j.  Reading A (i := i+1;
 * sp_j := i) is right only while k does not drop; reading B (advance i
 * while i + k_i < j: sp_j is the first id with i + k_i >= j) makes every
 * segment's path a stretch of the ring.  The lead's hand example, P = 4,
 * arrivals {0, 0, 2.5, 3} tau: k = {1,0,0,0}; A gives sp = {0,0,1,2}, so id
 * 2 first waits for segment 2 from id 1, which id 1 sends last (FIFO hands
 * it segment 1; with tags 2 -> 3 -> 0 -> 1 -> 2 wait in a cycle).  Both
 * readings agree when all k are 0.
 */
void t_pap_listing_prr_sp(void)
{
    const double a4[4] = { 0, 0, 2.5, 3 }, a3[3] = { 0, 0, 1 };
    prr_reading_t rd_a = { 0, L19_ALWAYS, OV_NO_OWNER };
    prr_reading_t rd_b = { 1, L19_ALWAYS, OV_NO_OWNER };
    int32_t k[16], k0[16] = { 0 };
    listing_t l;
    lres_t f, t;

    prr_k(4, a4, k);
    TST_EQ_INT(k[0], 1);
    TST_EQ_INT(k[1] + k[2] + k[3], 0);
    prr_run(4, k, rd_a, &l, &f, &t);
    TST_EQ_INT(f, LR_WRONG_SEG);
    TST_EQ_INT(t, LR_DEADLOCK);
    lst_free(&l);
    prr_listing(&l, 4, k, rd_b);
    expect_ok(&l, "prr reading B, k = {1,0,0,0}");
    lst_free(&l);
    /* P = 3, k = {1,0,0}: A already fails with FIFO. */
    prr_k(3, a3, k);
    TST_EQ_INT(k[0], 1);
    prr_run(3, k, rd_a, &l, &f, &t);
    TST_EQ_INT(f, LR_WRONG_SEG);
    lst_free(&l);
    for (int32_t np = 2; np <= 9; np++) {
        prr_listing(&l, np, k0, rd_a);
        expect_ok(&l, "prr reading A, k = 0");
        lst_free(&l);
    }
}

/* The k of every sweep pattern has the shape lines 1-6 promise. */
static void check_k_shape(int32_t np, const int32_t *k)
{
    TST_EQ_INT(k[np - 1], 0);
    if (np >= 2)
        TST_EQ_INT(k[np - 2], 0);       /* a_{P-1} - a_{P-1} < tau */
    for (int32_t i = 0; i + 1 < np; i++)
        TST_TRUE(k[i] == k[i + 1] || k[i] == k[i + 1] + 1);
}

/* Per rank, the generator's steps are the listing's program, in order. */
static void same_program(const listing_t *l, const rt_sched_t *s)
{
    for (int32_t r = 0; r < l->np; r++) {
        size_t n;
        const rt_step_t *t = rt_sched_rank_steps(s, r, &n);

        TST_EQ_UINT(n, l->n[r]);
        for (size_t i = 0; i < n; i++) {
            TST_EQ_INT(t[i].dir, l->op[r][i].dir == OP_SEND ? RT_STEP_SEND :
                       RT_STEP_RECV);
            TST_EQ_INT(t[i].peer, l->op[r][i].peer);
            TST_EQ_INT(t[i].piece, l->op[r][i].seg);
            if (l->op[r][i].dir == OP_RECV)
                TST_EQ_INT(t[i].act, l->op[r][i].act);
        }
    }
}

/*
 * The settled reading - sp by B, line 19 "always send" (the last reducer's
 * send is the segment's first copy), line 25 also skipped by the owner -
 * runs correctly for P = 2..9 and every arrival pattern, with FIFO and
 * with tags, and through rt_sched_asap + rt_sched_verify under three rank
 * maps.  rt_algo_prr emits exactly these programs (same steps in the same
 * order per rank; only its rounds are lockstep instead of ASAP).
 */
void t_pap_listing_prr_settled(void)
{
    prr_reading_t rd = { 1, L19_ALWAYS, OV_NO_OWNER };

    for (int32_t np = 2; np <= 9; np++)
        for (int pat = 0; pat < PRR_NPAT; pat++) {
            double a[16];
            int64_t ticks[16];
            int32_t k[16];
            rt_algo_params_t p;
            rt_sched_t s;
            listing_t l;
            cm_err_t err;

            prr_pattern(np, pat, a);
            prr_k(np, a, k);
            check_k_shape(np, k);
            prr_listing(&l, np, k, rd);
            expect_ok(&l, "prr settled");
            /* Sorted arrivals in half-tau ticks: ids are ranks. */
            for (int32_t i = 0; i < np; i++)
                ticks[i] = (int64_t)(2 * a[i]);
            memset(&p, 0, sizeof p);
            p.nranks = np;
            p.count = 5 * np + 3;
            p.arrival = ticks;
            p.round_len = 2;
            rt_sched_init(&s);
            TST_EQ_STATUS(rt_algo_prr(&s, &p, -1, &err), CM_OK);
            same_program(&l, &s);
            rt_sched_free(&s);
            lst_free(&l);
        }
}
