/*
 * rdouble.c - recursive-doubling allreduce for any P, with the
 * non-power-of-two fold (Thakur, Rabenseifner & Gropp 2005).
 *
 * Source (docs/references.md): the rule as implemented in
 * pmodels/mpich src/mpi/coll/allreduce/allreduce_intra_recursive_doubling.c
 * and open-mpi/ompi coll_base_allreduce.c,
 * ompi_coll_base_allreduce_intra_recursivedoubling (the same mapping).
 *
 * pof2 = the largest power of two <= P, rem = P - pof2.
 *  - Fold (round 0, only if rem > 0): every even r < 2*rem sends its whole
 *    vector to r+1, which reduces it; r then waits for the result.
 *  - Survivors are renumbered: odd r < 2*rem is newrank r/2, r >= 2*rem is
 *    newrank r - rem (inverse: real(v) = 2v+1 if v < rem, else v + rem).
 *  - Doubling, mask = 1, 2, ..., pof2/2: each survivor exchanges its whole
 *    vector with real(newrank XOR mask) and both reduce.
 *  - Unfold (last round, only if rem > 0): odd r < 2*rem sends the result to
 *    r-1 (copy).
 * log2(pof2) rounds, plus 2 when P is not a power of two.
 *
 * Worked example, P = 5 (pof2 = 4, rem = 1; newranks 1>0, 2>1, 3>2, 4>3;
 * "a<>b" is an exchange, both reduce):
 *
 *   round 0  0>1           reduce (0 is now out)
 *   round 1  1<>2, 3<>4    reduce (mask 1)
 *   round 2  1<>3, 2<>4    reduce (mask 2)
 *   round 3  1>0           copy of the result
 *
 * The partition is one piece, the whole vector (count 0 gives one empty
 * piece and empty messages).  Reads nranks and count only.
 *
 * Flags: the fold send carries RT_STEP_MOVE (the even rank's data is dead
 * until the unfold overwrites it), the unfold send RT_STEP_FINAL; receives
 * carry the flags of their sends.
 *
 * Port model: X.  The fold and unfold are one-way (a rank only sends or only
 * receives), and every doubling round is an exchange with a single peer.
 *
 * Limitations: commutative operations only as scheduled (MPI's rule for
 * non-commutative ops, lower rank's data first, is an executor concern).
 * P = 1 has no steps.
 */
#include <stdint.h>
#include "runtime/algo/algo_int.h"

/* Appends rank r's steps (round order). */
static cm_status_t rd_rank_steps(rt_sched_t *s, int32_t nranks, int32_t r)
{
    const int32_t pof2 = rt_pof2_floor(nranks), rem = nranks - pof2;
    int32_t nsteps = 0, round, newrank;
    cm_status_t st = CM_OK;

    while ((1 << nsteps) < pof2)
        nsteps++;
    /* The round of the unfold: after the fold and the doubling rounds. */
    const int32_t last = 1 + nsteps;

    if (r < 2 * rem && r % 2 == 0) {
        st = rt_sched_step(s, r, 0, r + 1, RT_STEP_SEND, RT_ACT_REDUCE,
                           RT_STEP_MOVE, 0, 1);
        if (st == CM_OK)
            st = rt_sched_step(s, r, last, r + 1, RT_STEP_RECV, RT_ACT_COPY,
                               RT_STEP_FINAL, 0, 1);
        return st;
    }
    if (r < 2 * rem) {
        st = rt_sched_step(s, r, 0, r - 1, RT_STEP_RECV, RT_ACT_REDUCE,
                           RT_STEP_MOVE, 0, 1);
        newrank = r / 2;
    } else {
        newrank = r - rem;
    }
    round = rem > 0 ? 1 : 0;
    for (int32_t mask = 1; mask < pof2 && st == CM_OK; mask <<= 1, round++) {
        int32_t v = newrank ^ mask;
        int32_t peer = v < rem ? 2 * v + 1 : v + rem;
        st = rt_sched_step(s, r, round, peer, RT_STEP_SEND, RT_ACT_REDUCE, 0,
                           0, 1);
        if (st == CM_OK)
            st = rt_sched_step(s, r, round, peer, RT_STEP_RECV, RT_ACT_REDUCE,
                               0, 0, 1);
    }
    if (st == CM_OK && r < 2 * rem)
        st = rt_sched_step(s, r, last, r - 1, RT_STEP_SEND, RT_ACT_COPY,
                           RT_STEP_FINAL, 0, 1);
    return st;
}

cm_status_t rt_algo_rd(rt_sched_t *s, const rt_algo_params_t *p,
                       int32_t rank, cm_err_t *err)
{
    cm_status_t st = rt_algo_check_common(p, rank, "rd", err);
    int64_t off[2];

    if (st != CM_OK)
        return st;
    off[0] = 0;
    off[1] = p->count;
    st = rt_sched_begin(s, "rd", RT_COLL_ALLREDUCE, RT_PORT_X, p, rank, 1,
                        off, err);
    if (st != CM_OK)
        return st;
    for (int32_t r = rank < 0 ? 0 : rank;
         r < (rank < 0 ? p->nranks : rank + 1); r++) {
        st = rd_rank_steps(s, p->nranks, r);
        if (st != CM_OK)
            return CM_ERR(err, st, "rd: appending rank %d's steps failed",
                          (int)r);
    }
    return rt_sched_finish(s, err);
}
