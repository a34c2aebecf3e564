/*
 * nap.c - NAP, the node-aware allreduce of Bienz, Olson & Gropp
 * ("Node-aware improvements to allreduce", ExaMPI@SC19, arXiv:1910.09650).
 *
 * Source: Bienz, Olson & Gropp 2019, section III, and the authors' code,
 * bienz2/Streamline src/allreduce/nap_allreduce.cpp
 * (MPIX_Allreduce_NAP_helper; docs/references.md), whose pairing rule this is.
 *
 * Ranks sit on N = P/ppn nodes, rank = node*ppn + l (l = local rank).  With
 * step sizes s_0..s_{K-1} (product N, each in 2..ppn) and B_k = s_0*..*s_{k-1}
 * (nodes per subgroup, B_0 = 1), every process of node n, local rank l:
 *
 *  1. intra-node allreduce: every local rank holds its node's sum;
 *  2. step k: g = n - n mod (B_k s_k) (first node of my group),
 *     m = (n - g) / B_k (my subgroup), pos = n mod B_k; if l < s_k and
 *     l != m, exchange with rank (g + l B_k + pos) ppn + m ("local rank l of
 *     subgroup m <-> local rank m of subgroup l, same position"), then
 *     combine over the node.  After step k each node holds the sum of its
 *     B_{k+1} nodes; after the last one, of all N.
 *
 * One buffer per rank, unlike the reference.  The reference receives the
 * partner's vector into a separate tmp, allreduces tmp over the node (idle
 * local ranks contribute zeros) and adds tmp to its result.  A schedule has
 * one buffer per rank, so here the exchange is a COPY: afterwards local rank
 * l < s_k, l != m, holds subgroup l's sum, local rank m still holds its own
 * subgroup's (m), and local ranks l >= s_k hold a stale duplicate of it.
 * Local ranks 0..s_k-1 therefore hold the sums of the s_k subgroups, one
 * each and disjoint, and the combine is a recursive-doubling allreduce over
 * them (with rdouble.c's fold when s_k is not a power of two)
 * followed by a doubling broadcast to the ranks that lack the result: with
 * q = pof2_floor(s_k) survivors holding it, each round every holder copies
 * it to one more rank (folded ranks first, then the idle ones).  T, the
 * local ranks 0..T-1 that need the result, is ppn after the last step but
 * only max(s_k, s_{k+1}) after an earlier one: ranks idle in step k+1 are
 * overwritten by its combine anyway.  A combine takes [s_k not a power of
 * two] + log2(q) + ceil(log2(T/q)) rounds: with T = ppn exactly log2(ppn),
 * as in the reference, when ppn and s_k are powers of two, and one more when
 * s_k is not.  It also sends fewer intra-node messages than the reference's
 * allreduce of tmp.  The initial allreduce is the same procedure with
 * s = T = ppn, which is rdouble.c's schedule exactly (fold, doubling, unfold),
 * so any ppn >= 2 works (the reference's needs a power of two).
 *
 * Step sizes.  Explicit (nap_steps): each in 2..ppn and their product N, or
 * M below.  Default: the largest M <= N whose prime factors are all <= ppn
 * (so M >= N/2: powers of two qualify), split into the fewest steps (the
 * inter-node messages per process), largest first: the lexicographically
 * largest non-increasing list of that length.  That is the reference's
 * [ppn, .., ppn, s] whenever that default is right (docs/algorithms.md: it is
 * wrong for 20/4, 6/4, 7/2, 5/4 nodes/ppn), and [6,6,6], not a greedy
 * [8,3,3,3], for 216 nodes of 8.  The N - M extra nodes fold [INFERRED, not in the NAP code;
 * bienz2/locality_aware folds so]: after the intra-node allreduce, local
 * rank l of node n >= M sends its node sum to local rank l of node n - M
 * (reduce, one round), stays out of the steps, and gets the result back in
 * a last round (copy, FINAL).  The paper's own extension for such counts
 * (section III-A: extra nodes send to the idle local rank) is not done.
 *
 * Worked example, P = 4, ppn = 2 (N = 2, steps [2]; "a<>b" is an exchange,
 * "a>b" one way):
 *
 *   round 0  0<>1, 2<>3  reduce  intra-node: everyone has its node's sum
 *   round 1  1<>2        copy    step 0: rank 1 (l=1, m=0) <-> rank 2
 *                                (l=0, m=1); ranks 0 and 3 have l = m
 *   round 2  0<>1, 2<>3  reduce  combine: {0,1} + {2,3} on each node
 *
 * 3 rounds, as in the reference (1 + K (1 + log2 ppn)).  P = 6, ppn = 2,
 * N = 3 folds to M = 2: round 0 as above plus 4<>5; round 1 4>0, 5>1
 * (reduce: node 2 folds into node 0); rounds 2-3 as rounds 1-2 above; round
 * 4 0>4, 1>5 (copy, FINAL).
 *
 * The partition is one piece, the whole vector (count 0: one empty piece
 * and empty messages).  Reads nranks, count, ppn, nap_steps, nap_nsteps.
 * Flags: fold sends (intra- and inter-node) carry RT_STEP_MOVE, since the
 * sender's data is dead until overwritten; sends of the final result carry
 * RT_STEP_FINAL.
 *
 * Port model: X.  Exchanges and doubling rounds are pairwise; folds and
 * broadcasts are one-way (a rank only sends or only receives in them).
 *
 * Limitations: the same ppn on every node (P a multiple of ppn) and ppn >= 2,
 * else CM_ERR_UNSUPPORTED; ranks placed node by node; commutative operations
 * only.  Each rank's steps are generated on their own, O(log P) of them, so
 * one rank's schedule is cheap and all ranks' is linear in P.
 */
#include <stdint.h>
#include "runtime/algo/algo_int.h"

/* Step sizes are >= 2 and their product <= N <= RT_SCHED_RANKS_MAX / 2. */
#define NAP_MAX_STEPS 32

typedef struct nap_plan {
    int32_t ppn;
    int32_t nnodes;                    /* N */
    int32_t nfold;                     /* M: nodes in the steps; N - M extra */
    int32_t nsteps;                    /* K */
    int32_t size[NAP_MAX_STEPS];       /* s_k */
    int32_t target[NAP_MAX_STEPS];     /* local ranks < target get step k's sum */
    int32_t exch_round[NAP_MAX_STEPS]; /* round of step k's exchange */
    int32_t intra_rounds;              /* rounds of the initial allreduce */
    int32_t fold_round;                /* extra nodes fold in (if M < N) */
    int32_t last_round;                /* ... and get the result back */
} nap_plan_t;

/* Rounds of one node combine: nact holders of disjoint sums, the result
   wanted at local ranks 0..target-1 (see the header). */
static int32_t combine_nrounds(int32_t nact, int32_t target)
{
    const int32_t q = rt_pof2_floor(nact);
    int32_t n = nact > q ? 1 : 0;

    for (int32_t h = 1; h < q; h *= 2)
        n++;
    for (int32_t h = q; h < target; h *= 2)
        n++;
    return n;
}

/* Does x factor into parts <= ppn, i.e. are its prime factors all <= ppn? */
static int nap_smooth(int32_t x, int32_t ppn)
{
    for (int32_t d = 2; d <= ppn && x > 1; d++)
        while (x % d == 0)
            x /= d;
    return x == 1;
}

/* Is d^n >= x?  (n parts of at most d can reach x.) */
static int nap_reach(int32_t x, int32_t d, int32_t n)
{
    int64_t v = 1;

    while (n-- > 0 && v < x)
        v *= d;
    return v >= x;
}

/*
 * Splits x into at most `left` factors in 2..maxd, non-increasing, the
 * largest possible first; fills out[] and returns how many, or -1.  Trying
 * the largest first and stopping once d^left < x keeps this to at most
 * about max(ppn, 250) loop iterations over all tries of left (measured for
 * every x <= 2^20 / ppn, ppn 2..1024).
 */
static int32_t nap_split(int32_t x, int32_t maxd, int32_t left, int32_t *out)
{
    if (x == 1)
        return 0;
    for (int32_t d = maxd < x ? maxd : x; d >= 2; d--) {
        int32_t n;

        if (!nap_reach(x, d, left))
            break;      /* smaller parts reach even less */
        if (x % d != 0)
            continue;
        n = nap_split(x / d, d, left - 1, out + 1);
        if (n >= 0) {
            out[0] = d;
            return n + 1;
        }
    }
    return -1;
}

/* Takes the explicit step sizes: each in 2..ppn, product N or M. */
static cm_status_t nap_explicit(const rt_algo_params_t *p, nap_plan_t *pl,
                                cm_err_t *err)
{
    const int32_t nn = pl->nnodes, m = pl->nfold;
    int64_t prod = 1;

    for (int32_t k = 0; k < p->nap_nsteps; k++) {
        int32_t sk = p->nap_steps[k];

        if (sk < 2 || sk > pl->ppn)
            return CM_ERR(err, CM_ERR_INVALID,
                          "nap: step size %d (step %d) is not in 2..ppn "
                          "(ppn %d)", sk, k, pl->ppn);
        prod *= sk;
        if (prod > nn)
            break;          /* wrong anyway; stops before size[] fills */
        pl->size[pl->nsteps++] = sk;
    }
    if (prod > nn)
        return CM_ERR(err, CM_ERR_INVALID,
                      "nap: the step sizes multiply to more than the %d "
                      "nodes (ppn %d)", nn, pl->ppn);
    if (prod != nn && m == nn)
        return CM_ERR(err, CM_ERR_INVALID,
                      "nap: the step sizes multiply to %lld, not to the %d "
                      "nodes (ppn %d)", (long long)prod, nn, pl->ppn);
    if (prod != nn && prod != m)
        return CM_ERR(err, CM_ERR_INVALID,
                      "nap: the step sizes multiply to %lld, not to the %d "
                      "nodes (ppn %d) or to %d, the nodes they fold to",
                      (long long)prod, nn, pl->ppn, m);
    pl->nfold = (int32_t)prod;
    return CM_OK;
}

/* Rounds: targets of the combines, then where each phase starts. */
static void nap_layout(nap_plan_t *pl)
{
    int32_t t;

    for (int32_t k = 0; k < pl->nsteps; k++) {
        int32_t next = k + 1 < pl->nsteps ? pl->size[k + 1] : pl->ppn;

        pl->target[k] = next > pl->size[k] ? next : pl->size[k];
    }
    pl->intra_rounds = combine_nrounds(pl->ppn, pl->ppn);
    t = pl->intra_rounds;
    pl->fold_round = pl->nfold < pl->nnodes ? t++ : -1;
    for (int32_t k = 0; k < pl->nsteps; k++) {
        pl->exch_round[k] = t;
        t += 1 + combine_nrounds(pl->size[k], pl->target[k]);
    }
    pl->last_round = t;
}

/* Checks ppn and the step sizes, chooses M and the steps, lays out rounds. */
static cm_status_t nap_plan(const rt_algo_params_t *p, nap_plan_t *pl,
                            cm_err_t *err)
{
    const int32_t ppn = p->ppn;

    if (ppn < 1)
        return CM_ERR(err, CM_ERR_INVALID,
                      "nap: needs ppn, the processes per node (got %d)", ppn);
    if (ppn == 1)
        return CM_ERR(err, CM_ERR_UNSUPPORTED,
                      "nap: needs ppn >= 2 (one process per node has no local "
                      "ranks to share the inter-node messages; use rd)");
    if (p->nranks % ppn != 0)
        return CM_ERR(err, CM_ERR_UNSUPPORTED,
                      "nap: needs the same ppn on every node, but %d ranks "
                      "are not a multiple of ppn %d", p->nranks, ppn);
    if (p->nap_nsteps < 0 || (p->nap_steps == NULL && p->nap_nsteps != 0))
        return CM_ERR(err, CM_ERR_INVALID,
                      "nap: %d step sizes given%s", p->nap_nsteps,
                      p->nap_steps ? "" : " without an array");
    pl->ppn = ppn;
    pl->nnodes = p->nranks / ppn;
    pl->nfold = pl->nnodes;
    while (!nap_smooth(pl->nfold, ppn))
        pl->nfold--;
    pl->nsteps = 0;
    if (p->nap_steps) {
        cm_status_t st = nap_explicit(p, pl, err);

        if (st != CM_OK)
            return st;
    } else {
        /* The fewest steps: try 0, 1, 2, ... parts (at most log2 M). */
        int32_t k = 0;

        while ((pl->nsteps = nap_split(pl->nfold, ppn, k, pl->size)) < 0)
            k++;
    }
    nap_layout(pl);
    return CM_OK;
}

/*
 * The broadcast order of a combine over nact holders: index 0..q-1 are the
 * recursive-doubling survivors by newrank, q..nact-1 the folded (even) local
 * ranks, then the local ranks >= nact in order.  Local rank <-> index.
 */
static int32_t bcast_index(int32_t l, int32_t nact, int32_t q)
{
    const int32_t rem = nact - q;

    if (l < 2 * rem)
        return l % 2 ? l / 2 : q + l / 2;
    return l < nact ? l - rem : l;
}

static int32_t bcast_local(int32_t idx, int32_t nact, int32_t q)
{
    const int32_t rem = nact - q;

    if (idx < q)
        return idx < rem ? 2 * idx + 1 : idx + rem;
    return idx < nact ? 2 * (idx - q) : idx;
}

/* Both ends of an exchange with peer, from one rank's side. */
static cm_status_t exchange(rt_sched_t *s, int32_t r, int32_t round,
                            int32_t peer, int act)
{
    cm_status_t st = rt_sched_step(s, r, round, peer, RT_STEP_SEND, act, 0,
                                   0, 1);

    if (st != CM_OK)
        return st;
    return rt_sched_step(s, r, round, peer, RT_STEP_RECV, act, 0, 0, 1);
}

/*
 * Local rank l's steps of one node combine from `round` on: local ranks
 * 0..nact-1 (node ranks base..) hold disjoint sums; afterwards 0..target-1
 * hold their union.  Broadcast sends carry `fin` (RT_STEP_FINAL after the
 * last step).
 */
static cm_status_t combine_steps(rt_sched_t *s, int32_t base, int32_t l,
                                 int32_t nact, int32_t target, int32_t round,
                                 unsigned fin)
{
    const int32_t q = rt_pof2_floor(nact), rem = nact - q, r = base + l;
    const int32_t idx = bcast_index(l, nact, q);
    cm_status_t st = CM_OK;

    if (rem > 0) {
        if (l < 2 * rem && l % 2 == 0)
            st = rt_sched_step(s, r, round, r + 1, RT_STEP_SEND,
                               RT_ACT_REDUCE, RT_STEP_MOVE, 0, 1);
        else if (l < 2 * rem)
            st = rt_sched_step(s, r, round, r - 1, RT_STEP_RECV,
                               RT_ACT_REDUCE, RT_STEP_MOVE, 0, 1);
        round++;
    }
    for (int32_t mask = 1; mask < q && st == CM_OK; mask *= 2, round++)
        if (idx < q)
            st = exchange(s, r, round,
                          base + bcast_local(idx ^ mask, nact, q),
                          RT_ACT_REDUCE);
    /* Holders 0..h-1 copy to h..2h-1: folded ranks first, then the idle. */
    for (int32_t h = q; h < target && st == CM_OK; h *= 2, round++) {
        if (idx < h && idx + h < target)
            st = rt_sched_step(s, r, round,
                               base + bcast_local(idx + h, nact, q),
                               RT_STEP_SEND, RT_ACT_COPY, fin, 0, 1);
        else if (idx >= h && idx < 2 * h && idx < target)
            st = rt_sched_step(s, r, round,
                               base + bcast_local(idx - h, nact, q),
                               RT_STEP_RECV, RT_ACT_COPY, fin, 0, 1);
    }
    return st;
}

/* Every step of rank r, in round order. */
static cm_status_t nap_rank_steps(rt_sched_t *s, const nap_plan_t *pl,
                                  int32_t r)
{
    const int32_t ppn = pl->ppn, n = r / ppn, l = r % ppn, base = n * ppn;
    const int32_t nfold = pl->nfold;
    const int32_t partner_lo = (n - nfold) * ppn + l;   /* n >= M */
    const int32_t partner_hi = (n + nfold) * ppn + l;   /* n + M < N */
    const unsigned one_node = pl->nnodes == 1 ? RT_STEP_FINAL : 0;
    cm_status_t st;
    int32_t sub = 1;    /* B_k: nodes per subgroup */

    st = combine_steps(s, base, l, ppn, ppn, 0, one_node);
    if (st != CM_OK || one_node)
        return st;
    if (n >= nfold) {
        /* An extra node: fold in, wait for the result. */
        st = rt_sched_step(s, r, pl->fold_round, partner_lo, RT_STEP_SEND,
                           RT_ACT_REDUCE, RT_STEP_MOVE, 0, 1);
        if (st == CM_OK)
            st = rt_sched_step(s, r, pl->last_round, partner_lo, RT_STEP_RECV,
                               RT_ACT_COPY, RT_STEP_FINAL, 0, 1);
        return st;
    }
    if (n + nfold < pl->nnodes)
        st = rt_sched_step(s, r, pl->fold_round, partner_hi, RT_STEP_RECV,
                           RT_ACT_REDUCE, RT_STEP_MOVE, 0, 1);
    for (int32_t k = 0; k < pl->nsteps && st == CM_OK; k++) {
        const int32_t sk = pl->size[k], group = sub * sk;
        const int32_t g = n - n % group, m = (n - g) / sub, pos = n % sub;
        const int last = k == pl->nsteps - 1;

        if (l < sk && l != m)
            st = exchange(s, r, pl->exch_round[k],
                          (g + l * sub + pos) * ppn + m, RT_ACT_COPY);
        if (st == CM_OK)
            st = combine_steps(s, base, l, sk, pl->target[k],
                               pl->exch_round[k] + 1,
                               last ? RT_STEP_FINAL : 0);
        sub = group;
    }
    if (st == CM_OK && n + nfold < pl->nnodes)
        st = rt_sched_step(s, r, pl->last_round, partner_hi, RT_STEP_SEND,
                           RT_ACT_COPY, RT_STEP_FINAL, 0, 1);
    return st;
}

cm_status_t rt_algo_nap(rt_sched_t *s, const rt_algo_params_t *p,
                        int32_t rank, cm_err_t *err)
{
    const int32_t first = rank < 0 ? 0 : rank;
    const int32_t end = rank < 0 ? p->nranks : rank + 1;
    nap_plan_t pl = { 0 };
    int64_t off[2];
    cm_status_t st;

    st = rt_algo_check_common(p, rank, "nap", err);
    if (st != CM_OK)
        return st;
    st = nap_plan(p, &pl, err);
    if (st != CM_OK)
        return st;
    off[0] = 0;
    off[1] = p->count;
    st = rt_sched_begin(s, "nap", RT_COLL_ALLREDUCE, RT_PORT_X, p, rank, 1,
                        off, err);
    if (st != CM_OK)
        return st;
    /* Rank by rank, so rt_sched_finish has nothing to sort. */
    for (int32_t r = first; r < end; r++) {
        st = nap_rank_steps(s, &pl, r);
        if (st != CM_OK)
            return CM_ERR(err, st, "nap: cannot append rank %d's steps (%s)",
                          r, cm_status_string(st));
    }
    return rt_sched_finish(s, err);
}
