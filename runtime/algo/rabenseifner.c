/*
 * rabenseifner.c - Rabenseifner's allreduce (reduce-scatter by recursive
 * vector halving, allgather by recursive vector doubling), the paper / Open
 * MPI variant: half-vector fold, even survivors, element halving.
 *
 * Source (docs/references.md): the rule as implemented in open-mpi/ompi
 * ompi/mca/coll/base/coll_base_allreduce.c,
 * ompi_coll_base_allreduce_intra_redscat_allgather (Rabenseifner 2004;
 * Thakur, Rabenseifner & Gropp 2005 for the non-power-of-two step).
 *
 * pof2 = the largest power of two <= P, rem = P - pof2, L = n div 2.
 *  - Fold (only if rem > 0), pairs e = 2i, o = 2i+1 with e < 2*rem:
 *      round 0  e sends [L,n) to o, o sends [0,L) to e; both reduce;
 *      round 1  o sends its reduced [L,n) to e (copy); o drops out.
 *  - Survivors: even r < 2*rem is vrank r/2, r >= 2*rem is vrank r - rem
 *    (inverse real(v) = 2v if v < rem, else v + rem).
 *  - Reduce-scatter, mask = 1, 2, ..., pof2/2, partner d = real(vrank^mask),
 *    window (start, w) initially (0, n): the lower rank of the pair keeps the
 *    lower floor(w/2) elements and sends the upper w - floor(w/2), the other
 *    keeps the upper part; both reduce into what they keep.
 *  - Allgather, mask in reverse: send what you kept at that mask's
 *    reduce-scatter step, receive (copy) what you sent.
 *  - Unfold (only if rem > 0): each even r < 2*rem sends the whole result to
 *    r+1 (copy).
 * 2*log2(pof2) rounds, plus 3 when P is not a power of two.
 *
 * Worked example, P = 5, n = 9: L = 4, survivors 0, 2, 3, 4 (vranks 0-3).
 *
 *   round 0  0>1 [4,9)  1>0 [0,4)                        reduce  (fold)
 *   round 1  1>0 [4,9)                                   copy    (fold)
 *   round 2  0>2 [4,9)  2>0 [0,4)  3>4 [4,9)  4>3 [0,4)  reduce  (mask 1)
 *   round 3  0>3 [2,4)  3>0 [0,2)  2>4 [6,9)  4>2 [4,6)  reduce  (mask 2)
 *   round 4  0>3 [0,2)  3>0 [2,4)  2>4 [4,6)  4>2 [6,9)  copy    (mask 2)
 *   round 5  0>2 [0,4)  2>0 [4,9)  3>4 [0,4)  4>3 [4,9)  copy    (mask 1)
 *   round 6  0>1 [0,9)                                   copy    (unfold)
 *
 * Partition: the leaves of the recursive halving of [0, n), pof2 pieces (for
 * n = 9: [0,2) [2,4) [4,6) [6,9)).  Every window of the reduce-scatter, and
 * the fold's halves (L is the first split), is then a contiguous piece
 * range: window j pieces wide splits into two of j/2.
 *
 * Flags: a sender whose copy is dead after the send (fold sends of both
 * ranks, the odd rank's copy-back, reduce-scatter sends: each is later
 * overwritten by a copy) sets RT_STEP_MOVE; allgather and unfold sends are
 * RT_STEP_FINAL.  Receives carry the flags of their sends.
 *
 * Port model: X.  The fold's first round and every reduce-scatter and
 * allgather round are exchanges with one peer; the fold's copy-back and the
 * unfold are one-way.
 *
 * Limitations: n >= pof2 (CM_ERR_UNSUPPORTED otherwise, also at P = 1 with
 * n = 0: Open MPI switches to another algorithm there, and we do not switch
 * silently).  Commutative operations only.  Reads nranks and count.
 */
#include <stdint.h>
#include <stdlib.h>
#include "runtime/algo/algo_int.h"

/* The leaves of the recursive halving of [0, n) into pof2 pieces. */
static void rs_leaves(int64_t n, int32_t pof2, int64_t *off)
{
    off[0] = 0;
    off[pof2] = n;
    for (int32_t step = pof2 / 2; step >= 1; step /= 2)
        for (int32_t i = 0; i < pof2; i += 2 * step)
            off[i + step] = off[i] + (off[i + 2 * step] - off[i]) / 2;
}

/* One step and, if it went in, a second one (keeps the callers short). */
static cm_status_t rs_pair(rt_sched_t *s, int32_t r, int32_t round,
                           int32_t peer, int act, unsigned sflags,
                           int32_t spiece, unsigned rflags, int32_t rpiece,
                           int32_t npieces)
{
    cm_status_t st = rt_sched_step(s, r, round, peer, RT_STEP_SEND, act,
                                   sflags, spiece, npieces);
    if (st == CM_OK)
        st = rt_sched_step(s, r, round, peer, RT_STEP_RECV, act, rflags,
                           rpiece, npieces);
    return st;
}

/* Appends rank r's steps (round order). */
static cm_status_t rs_rank_steps(rt_sched_t *s, int32_t nranks, int32_t r)
{
    const int32_t pof2 = rt_pof2_floor(nranks), rem = nranks - pof2;
    const int32_t half = pof2 / 2;
    int32_t nsteps = 0, vrank, round, lo = 0, cnt = pof2;
    int32_t kept[31], sent[31];     /* first piece per reduce-scatter step */
    cm_status_t st = CM_OK;

    while ((1 << nsteps) < pof2)
        nsteps++;
    const int32_t base = rem > 0 ? 2 : 0;
    const int32_t unfold = base + 2 * nsteps;

    if (r < 2 * rem && r % 2 == 1) {
        /* Odd: reduce the upper half for the pair, hand it back, wait. */
        st = rs_pair(s, r, 0, r - 1, RT_ACT_REDUCE, RT_STEP_MOVE, 0,
                     RT_STEP_MOVE, half, half);
        if (st == CM_OK)
            st = rt_sched_step(s, r, 1, r - 1, RT_STEP_SEND, RT_ACT_COPY,
                               RT_STEP_MOVE, half, half);
        if (st == CM_OK)
            st = rt_sched_step(s, r, unfold, r - 1, RT_STEP_RECV, RT_ACT_COPY,
                               RT_STEP_FINAL, 0, pof2);
        return st;
    }
    if (r < 2 * rem) {
        st = rs_pair(s, r, 0, r + 1, RT_ACT_REDUCE, RT_STEP_MOVE, half,
                     RT_STEP_MOVE, 0, half);
        if (st == CM_OK)
            st = rt_sched_step(s, r, 1, r + 1, RT_STEP_RECV, RT_ACT_COPY,
                               RT_STEP_MOVE, half, half);
        vrank = r / 2;
    } else {
        vrank = r - rem;
    }

    /* Reduce-scatter: the window [lo, lo+cnt) of pieces halves each step. */
    round = base;
    for (int32_t j = 0; j < nsteps && st == CM_OK; j++, round++) {
        int32_t v = vrank ^ (1 << j);
        int32_t peer = v < rem ? 2 * v : v + rem;
        cnt /= 2;
        if (r < peer) {
            kept[j] = lo;
            sent[j] = lo + cnt;
        } else {
            kept[j] = lo + cnt;
            sent[j] = lo;
        }
        st = rs_pair(s, r, round, peer, RT_ACT_REDUCE, RT_STEP_MOVE, sent[j],
                     RT_STEP_MOVE, kept[j], cnt);
        lo = kept[j];
    }
    /* Allgather: undo the halvings in reverse, the window doubling. */
    for (int32_t j = nsteps - 1; j >= 0 && st == CM_OK; j--, round++) {
        int32_t v = vrank ^ (1 << j);
        int32_t peer = v < rem ? 2 * v : v + rem;
        st = rs_pair(s, r, round, peer, RT_ACT_COPY, RT_STEP_FINAL, kept[j],
                     RT_STEP_FINAL, sent[j], cnt);
        cnt *= 2;
    }
    if (st == CM_OK && r < 2 * rem)
        st = rt_sched_step(s, r, unfold, r + 1, RT_STEP_SEND, RT_ACT_COPY,
                           RT_STEP_FINAL, 0, pof2);
    return st;
}

cm_status_t rt_algo_rabenseifner(rt_sched_t *s, const rt_algo_params_t *p,
                                 int32_t rank, cm_err_t *err)
{
    cm_status_t st = rt_algo_check_common(p, rank, "rabenseifner", err);
    int32_t pof2;
    int64_t *off;

    if (st != CM_OK)
        return st;
    pof2 = rt_pof2_floor(p->nranks);
    if (p->count < pof2)
        return CM_ERR(err, CM_ERR_UNSUPPORTED,
                      "rabenseifner: needs count >= %d (the largest power of "
                      "two <= nranks %d), got %lld", (int)pof2,
                      (int)p->nranks, (long long)p->count);
    off = malloc(((size_t)pof2 + 1) * sizeof *off);
    if (off == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "rabenseifner: no memory for %d "
                      "pieces", (int)pof2);
    rs_leaves(p->count, pof2, off);
    st = rt_sched_begin(s, "rabenseifner", RT_COLL_ALLREDUCE, RT_PORT_X, p,
                        rank, pof2, off, err);
    free(off);
    if (st != CM_OK)
        return st;
    for (int32_t r = rank < 0 ? 0 : rank;
         r < (rank < 0 ? p->nranks : rank + 1); r++) {
        st = rs_rank_steps(s, p->nranks, r);
        if (st != CM_OK)
            return CM_ERR(err, st, "rabenseifner: appending rank %d's steps "
                          "failed", (int)r);
    }
    return rt_sched_finish(s, err);
}
