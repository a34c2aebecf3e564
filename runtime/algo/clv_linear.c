/*
 * clv_linear.c - Clairvoyant reduce, the literal version ("clv-linear"):
 * plain arrays and linear searches, the baseline that clv_tree.c (the
 * paper's segment tree, "clv-tree") and clv_rows.c ("clv") must match step
 * for step and beat in speed.
 *
 * Source: Marendic et al. 2016 as fixed by Proficz & Ocetkiewicz 2020
 * (sections 2 and 4; docs/references.md), restated below in our words.
 * An independent Python implementation of the same rule produced the
 * vectors of tests/unit/algo/t_clv_vectors.h.
 *
 * The idea: every process knows every arrival time, so every process can
 * compute the same greedy schedule in which the processes that are there
 * pass segments to each other as soon as they can, instead of waiting for
 * the late ones.  The vector is cut into N pipeline segments (pieces).
 *
 * State.  Availability avail(p): arrival time at first, + d for every round
 * p takes part in (ticks, int64; d = round_len > 0).  hold(p, j) = 1 when p
 * holds (a part of) segment j, states A or P of the paper; 0 = E, sent
 * away.  P' (p received j in this round, so it must not send it on in the
 * same round: paper 4.2) is stored as 0 plus pprime[p] = j and turns back
 * into 1 at the end of the round.  S(p): p already sends in this round.
 *
 * One round (the iteration counter is the round number of its steps):
 *  1. Q = the processes still at work, sorted by (avail, rank).  G = those
 *     with avail <= avail(first of Q) + d ("no later than d after": <=).
 *  2. The sink = the root if it is in G, else the first of G; it is moved
 *     to the front of G.  If G is the sink alone, the round is idle: skip
 *     ahead by the exact number k of idle rounds the plain loop would run
 *     (rt__clv_idle_rounds in clv_int.h), adding k*d to the sink and k to
 *     the round counter, so round numbers are the same whether or not idle
 *     rounds are skipped (paper 5.1; 4.3 puts the round in every entry).
 *  3. For each i of G in that order (sink first): the smallest segment j
 *     such that some z of G, z != i, S(z) unset, holds j (hold = 1, which
 *     excludes P'), and either i is the sink and j is not its P' segment
 *     (the sink may take a segment it holds or one it sent away), or i
 *     holds j.  Among the z for that j: the smallest (avail, rank) - the
 *     real availability, not the order with the sink moved to the front.
 *     Then: step (round, z -> i, j); S(z) = 1; hold(z, j) = 0;
 *     hold(i, j) = 0 and pprime[i] = j.  No such j: i takes nothing.
 *     S marks senders only: a process that received may still be chosen
 *     to send another segment, and one that sent may still receive.
 *  4. End of round: P' -> P; the non-root processes of G that hold nothing
 *     leave, the others get avail + d.
 *  5. Stop when every non-root process holds nothing.
 * Each transfer reduces into the receiver and gives the data away
 * (RT_ACT_REDUCE, RT_STEP_MOVE); per round a process sends at most one
 * and receives at most one segment: port model B.  The sink only ever
 * receives in the round's first step, before any P' exists, so its P'
 * condition never bites; it is kept because it is the rule.
 *
 * All times are integers, so "avail <= first + d" and every tie are exact
 * and every process computes bit-identical schedules.
 *
 * Worked example: the paper's instance of its section 4.2 in ticks, P = 4,
 * arrivals [0, 0, 0, 11], d = 10, root 0, N = 4 ("z->i sJ"):
 *
 *   round  G (sink first)   steps                 after the round
 *   0      0 1 2            1->0 s0  0->1 s1      p2 idle: no free sender
 *   1      0 1 2 3          2->0 s0  3->1 s1  0->2 s2  1->3 s2
 *   2      0 1 2 3          3->0 s0  2->1 s1  0->2 s3  1->3 s3
 *   3      0 1 2 3          1->0 s1  3->2 s2  2->3 s3   p1 empty: leaves
 *   4      0 2 3            2->0 s2               p2 empty: leaves
 *   5      0 3              3->0 s3               p3 empty: done
 *
 * In round 1 p3 (avail 11 <= 10 + 10) joins.  p0 and p1 received s0 and s1
 * in that round (P'), so they send s2 instead: without P' the original
 * pseudocode had them forward the segment they had just received.
 *
 * Parameters read: nranks, root, count, nsegs or segcount, arrival (NULL:
 * all 0), round_len (d > 0, CM_ERR_INVALID otherwise).  port is not read:
 * the schedule is always port model B.
 *
 * The search is the rule as written: for each receiver, segments in
 * increasing order, and for each, G in (avail, rank) order until a free
 * holder is found (the first found is the earliest); Q is sorted again
 * every round.  Like the paper's "linear" version, nothing else is done to
 * make it fast.
 *
 * Limitations: deliberately slow, O(R (P log P + |G|^2 N)) for R rounds:
 * it is the reference and the benchmark's baseline (bin/clvbench), not
 * the generator to use.  Generating for one rank costs as much as for all
 * ranks.  More than 2^31 - 1 rounds, or times that overflow int64, give
 * CM_ERR_RANGE.  Commutative operations only (segments are combined in
 * arrival order, not rank order).
 */
#include <stdlib.h>
#include <string.h>
#include "runtime/algo/clv_int.h"

#define NAME "clv-linear"

typedef struct clvl {
    int32_t  np, nseg, root;
    int64_t  d;
    int64_t *avail;     /* availability time per rank */
    uint8_t *alive;     /* still in Q (the root always is) */
    uint8_t *hold;      /* np x nseg, rank-major: 1 = A or P, 0 = E or P' */
    int32_t *pprime;    /* the segment in state P' this round, or -1 */
    uint8_t *sent;      /* S */
    int32_t *q;         /* Q sorted by (avail, rank); G is its prefix */
} clvl_t;


/* Q: the processes still at work, sorted again from scratch every round
   (the literal rule; clv_tree.c and clv_rows.c merge instead).  Returns |Q|. */
static int32_t build_q(clvl_t *c, rt_time_rank_t *keys)
{
    int32_t n = 0;

    for (int32_t p = 0; p < c->np; p++)
        if (c->alive[p]) {
            keys[n].t = c->avail[p];
            keys[n].rank = p;
            n++;
        }
    qsort(keys, (size_t)n, sizeof *keys, rt_time_rank_cmp);
    for (int32_t k = 0; k < n; k++)
        c->q[k] = keys[k].rank;
    return n;
}

/*
 * Step 3 for receiver i: the sender *z_p and segment *j_p, or *z_p = -1.
 * The smallest segment first; for it, the first free holder in G's real
 * (avail, rank) order, q[0..ng), is the earliest one.
 */
static void find_peer(const clvl_t *c, int32_t ng, int32_t i, int is_sink,
                      int32_t *z_p, int32_t *j_p)
{
    const uint8_t *hi = c->hold + (size_t)i * (size_t)c->nseg;

    for (int32_t j = 0; j < c->nseg; j++) {
        if (is_sink ? c->pprime[i] == j : !hi[j])
            continue;
        for (int32_t g = 0; g < ng; g++) {
            int32_t z = c->q[g];

            if (z != i && !c->sent[z] &&
                c->hold[(size_t)z * (size_t)c->nseg + (size_t)j]) {
                *z_p = z;
                *j_p = j;
                return;
            }
        }
    }
    *z_p = -1;
}

/* Step 3 for the whole of G = q[0..ng) with the sink at q[sinkpos]: the
   sink first (as if moved to the front), then the others in order. */
static cm_status_t clvl_round(clvl_t *c, rt_sched_t *s, int32_t ng,
                              int32_t sinkpos, int32_t round, cm_err_t *err)
{
    for (int32_t n = -1; n < ng; n++) {
        int32_t i = c->q[n < 0 ? sinkpos : n], z, j;
        cm_status_t st;

        if (n == sinkpos)
            continue;
        find_peer(c, ng, i, n < 0, &z, &j);
        if (z < 0)
            continue;
        st = rt_sched_xfer(s, round, z, i, RT_ACT_REDUCE, RT_STEP_MOVE, j, 1);
        if (st != CM_OK)
            return CM_ERR(err, st, NAME ": cannot append a step: %s",
                          cm_status_string(st));
        c->sent[z] = 1;
        c->hold[(size_t)z * (size_t)c->nseg + (size_t)j] = 0;
        c->hold[(size_t)i * (size_t)c->nseg + (size_t)j] = 0;   /* P' */
        c->pprime[i] = j;
    }
    return CM_OK;
}

static int holds_any(const clvl_t *c, int32_t p)
{
    const uint8_t *h = c->hold + (size_t)p * (size_t)c->nseg;

    for (int32_t j = 0; j < c->nseg; j++)
        if (h[j])
            return 1;
    return 0;
}

/* Step 4; counts the processes that leave in *nleft. */
static cm_status_t clvl_end_round(clvl_t *c, int32_t ng, int32_t *nleft,
                                  cm_err_t *err)
{
    for (int32_t g = 0; g < ng; g++) {
        int32_t p = c->q[g];

        if (c->pprime[p] >= 0) {
            c->hold[(size_t)p * (size_t)c->nseg + (size_t)c->pprime[p]] = 1;
            c->pprime[p] = -1;
        }
        c->sent[p] = 0;
        if (p != c->root && !holds_any(c, p)) {
            c->alive[p] = 0;
            (*nleft)--;
        } else if (__builtin_add_overflow(c->avail[p], c->d, &c->avail[p])) {
            return CM_ERR(err, CM_ERR_RANGE,
                          NAME ": availability time overflows int64");
        }
    }
    return CM_OK;
}

static cm_status_t clvl_run(clvl_t *c, rt_sched_t *s, int skip_idle,
                            rt_time_rank_t *keys, cm_err_t *err)
{
    int32_t nleft = c->np - 1;   /* non-root processes still holding data */
    int64_t round = 0;

    while (nleft > 0) {
        int32_t nq = build_q(c, keys), ng = 0, sinkpos = 0;
        int64_t limit;
        cm_status_t st;

        if (__builtin_add_overflow(c->avail[c->q[0]], c->d, &limit))
            return CM_ERR(err, CM_ERR_RANGE,
                          NAME ": availability time overflows int64");
        while (ng < nq && c->avail[c->q[ng]] <= limit)
            ng++;
        for (int32_t g = 0; g < ng; g++)
            if (c->q[g] == c->root)
                sinkpos = g;
        /* Alone in G: the next process is q[1] (the root or a non-root is
           still in Q, since nleft > 0), after avail + d. */
        if (ng == 1 && skip_idle) {
            int64_t k = rt__clv_idle_rounds(c->avail[c->q[0]],
                                            c->avail[c->q[1]], c->d);

            c->avail[c->q[0]] += k * c->d;   /* < avail[q[1]]: no overflow */
            round += k;
            continue;
        }
        if (round > RT_CLV_ROUND_MAX)
            return CM_ERR(err, CM_ERR_RANGE, NAME ": more than %d rounds "
                          "(arrival times span too many round lengths)",
                          INT32_MAX);
        st = clvl_round(c, s, ng, sinkpos, (int32_t)round, err);
        if (st == CM_OK)
            st = clvl_end_round(c, ng, &nleft, err);
        if (st != CM_OK)
            return st;
        round++;
    }
    return CM_OK;
}

static void clvl_free(clvl_t *c)
{
    free(c->avail);
    free(c->alive);
    free(c->hold);
    free(c->pprime);
    free(c->sent);
    free(c->q);
}

cm_status_t rt__clv_linear_gen(rt_sched_t *s, const rt_algo_params_t *p,
                               int32_t rank, int skip_idle, cm_err_t *err)
{
    clvl_t c;
    rt_time_rank_t *keys;
    size_t np;
    cm_status_t st;

    memset(&c, 0, sizeof c);
    st = rt__clv_begin(s, p, rank, NAME, &c.nseg, err);
    if (st != CM_OK)
        return st;
    c.np = p->nranks;
    c.root = p->root;
    c.d = p->round_len;
    np = (size_t)c.np;
    c.avail = calloc(np, sizeof *c.avail);
    c.alive = calloc(np, 1);
    c.hold = malloc(np * (size_t)c.nseg);
    c.pprime = malloc(np * sizeof *c.pprime);
    c.sent = calloc(np, 1);
    c.q = malloc(np * sizeof *c.q);
    keys = malloc(np * sizeof *keys);
    if (!c.avail || !c.alive || !c.hold || !c.pprime || !c.sent || !c.q ||
        !keys) {
        st = CM_ERR(err, CM_ERR_NOMEM, NAME ": out of memory (%d ranks, %d "
                    "segments)", c.np, c.nseg);
    } else {
        memset(c.hold, 1, np * (size_t)c.nseg);
        for (int32_t r = 0; r < c.np; r++) {
            c.avail[r] = p->arrival ? p->arrival[r] : 0;
            c.alive[r] = 1;
            c.pprime[r] = -1;
        }
        st = clvl_run(&c, s, skip_idle, keys, err);
    }
    free(keys);
    clvl_free(&c);
    return st == CM_OK ? rt_sched_finish(s, err) : st;
}

cm_status_t rt_algo_clv_linear(rt_sched_t *s, const rt_algo_params_t *p,
                               int32_t rank, cm_err_t *err)
{
    return rt__clv_linear_gen(s, p, rank, 1, err);
}
