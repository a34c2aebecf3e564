/*
 * slt.c - sorted linear tree (SLT) allreduce, Proficz 2018 Fig. 5.
 *
 * Source: J. Proficz, "Improving all-reduce collective operations for
 * imbalanced process arrival patterns", J Supercomput 74:3071 (2018),
 * section 4.1 and the listing of Fig. 5 (../shared/papers/
 * proficz2018-allreduce-imbalanced-pap.txt); ALGORITHMS.md section 6.
 * What the listing says literally and why this file differs from it in two
 * places is in docs/slt-prr-findings.md (tested in
 * tests/unit/algo/t_pap_listing.c by replaying the listing itself).
 *
 * The processes are relabelled by arrival time (id 0 earliest; ties by rank,
 * pap_int.h), so that a late process comes last in the pipeline and the
 * early ones start without it.  The vector is cut into S segments; segment j
 * is piece j.  Program of id, executed in order (the listing, with the send
 * of its line 6 at loop level and si = j):
 *
 *   reduce loop, j = 0..S-1:
 *       id > 0:  recv segment j from id-1 and reduce it
 *       send segment j to (id+1) mod P   (id P-1 sends the finished segment
 *                                         back to id 0: a copy)
 *   override loop, j = 0..S-1, id < P-1:
 *       recv segment j from (id-1) mod P (copy)
 *       id < P-2: send it to id+1        (copy)
 *
 * so every segment travels id 0 -> 1 -> ... -> P-1 (reduce) -> 0 -> 1 ->
 * ... -> P-2 (copy): 2P-2 hops.  Rounds are the ASAP rounds of these
 * programs under port model B (rt_sched_asap); by hand, the hop id k -> k+1
 * of segment j is in round j+k (reduce, k <= P-2), id P-1 -> 0 in round
 * j+P-1, and the copy hop id m -> m+1 in round j + max(S,P) + m (id 0 sends
 * all S reduce segments before its first copy), so P >= 3 takes
 * S + max(S,P) + P - 3 rounds, P = 2 takes S + 1 and P = 1 none.
 *
 * Worked example, P = 4, S = 4 (the default), arrival = {4, 0, 0, 0} (rank
 * 0 late, as in the paper's Fig. 6): ids 0,1,2,3 are ranks 1,2,3,0, the
 * chain is 1 -> 2 -> 3 -> 0 -> 1 -> 2 -> 3; "a>b sJ" is rank a sending
 * segment J (reduce), "sJc" a copy of the finished segment:
 *
 *   round 0  1>2 s0
 *   round 1  1>2 s1  2>3 s0
 *   round 2  1>2 s2  2>3 s1  3>0 s0
 *   round 3  1>2 s3  2>3 s2  3>0 s1  0>1 s0c
 *   round 4  2>3 s3  3>0 s2  0>1 s1c 1>2 s0c
 *   round 5  3>0 s3  0>1 s2c 1>2 s1c 2>3 s0c
 *   round 6  0>1 s3c 1>2 s2c 2>3 s1c
 *   round 7  1>2 s3c 2>3 s2c
 *   round 8  2>3 s3c
 *
 * The late rank 0 takes part from round 2 on; the rounds do not depend on
 * the arrival times, only the order does (a simulation with the arrival
 * times gives the time: rt_sched_simulate).
 *
 * Flags: reduce hops carry RT_STEP_MOVE (the sender gets the segment back
 * as a copy later), copies RT_STEP_FINAL.
 *
 * Parameters read: nranks, count, arrival (NULL: id = rank), nsegs or
 * segcount (rt_part_segments).  Neither gives S = P segments with the EL
 * partition, the paper's choice ("we assume P segments").  p->port is not
 * read: the listing's non-blocking sends overlap its blocking receives,
 * which is port model B.
 *
 * Limitations: commutative operations only (the reduction order follows
 * the arrival order).  Id 0 sends every segment twice (reduce, then copy),
 * so for S > P the copy phase queues behind the reduce phase at id 0 (the
 * max(S,P) above): the listing's shape, kept.  Generating for one rank
 * costs as much as for all (ASAP rounds need every program): O(P*S).
 */
#include <stdlib.h>

#include "pap_int.h"

/* Appends every rank's program, rank by rank, with unset rounds. */
static cm_status_t slt_emit(rt_sched_t *s, int32_t np, int32_t nseg,
                            const int32_t *order, const int32_t *id_of,
                            cm_err_t *err)
{
    const unsigned move = RT_STEP_MOVE, final = RT_STEP_FINAL;

    for (int32_t r = 0; r < np; r++) {
        int32_t id = id_of[r];
        int32_t left = order[(id + np - 1) % np], right = order[(id + 1) % np];
        /* The last id closes the chain: what it sends is complete. */
        int act = id == np - 1 ? RT_ACT_COPY : RT_ACT_REDUCE;
        unsigned fl = id == np - 1 ? final : move;
        cm_status_t st = CM_OK;

        for (int32_t j = 0; j < nseg && st == CM_OK; j++) {
            if (id > 0)
                st = rt_sched_step(s, r, RT_ROUND_UNSET, left, RT_STEP_RECV,
                                   RT_ACT_REDUCE, move, j, 1);
            if (st == CM_OK)
                st = rt_sched_step(s, r, RT_ROUND_UNSET, right, RT_STEP_SEND,
                                   act, fl, j, 1);
        }
        for (int32_t j = 0; j < nseg && st == CM_OK && id < np - 1; j++) {
            st = rt_sched_step(s, r, RT_ROUND_UNSET, left, RT_STEP_RECV,
                               RT_ACT_COPY, final, j, 1);
            if (st == CM_OK && id < np - 2)
                st = rt_sched_step(s, r, RT_ROUND_UNSET, right, RT_STEP_SEND,
                                   RT_ACT_COPY, final, j, 1);
        }
        if (st != CM_OK)
            return CM_ERR(err, st, "slt: cannot append a step of rank %d: %s",
                          (int)r, cm_status_string(st));
    }
    return CM_OK;
}

/* The segments: the caller's nsegs or segcount, else P (EL). */
static int32_t slt_segments(const rt_algo_params_t *p, int64_t **off,
                            cm_err_t *err)
{
    if (p->nsegs > 0 || p->segcount > 0)
        return rt_part_segments(p, off, err);
    *off = malloc(((size_t)p->nranks + 1) * sizeof **off);
    if (*off == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "slt: no memory for %d segments",
                      (int)p->nranks);
    rt_part_el(p->count, p->nranks, *off);
    return p->nranks;
}

cm_status_t rt_algo_slt(rt_sched_t *s, const rt_algo_params_t *p,
                        int32_t rank, cm_err_t *err)
{
    int32_t *order = NULL, *id_of = NULL, nseg;
    int64_t *off = NULL;
    cm_status_t st = rt_algo_check_common(p, rank, "slt", err);

    if (st != CM_OK)
        return st;
    nseg = slt_segments(p, &off, err);
    if (nseg < 0)
        return (cm_status_t)nseg;
    order = malloc((size_t)p->nranks * sizeof *order);
    id_of = malloc((size_t)p->nranks * sizeof *id_of);
    if (order == NULL || id_of == NULL) {
        st = CM_ERR(err, CM_ERR_NOMEM, "slt: no memory for %d ranks",
                    (int)p->nranks);
        goto out;
    }
    st = rt__pap_order(p, order, id_of, "slt", err);
    /* All ranks first: ASAP rounds depend on everybody's program. */
    if (st == CM_OK)
        st = rt_sched_begin(s, "slt", RT_COLL_ALLREDUCE, RT_PORT_B, p, -1,
                            nseg, off, err);
    if (st == CM_OK && p->nranks > 1)
        st = slt_emit(s, p->nranks, nseg, order, id_of, err);
    if (st == CM_OK)
        st = rt_sched_finish(s, err);
    if (st == CM_OK)
        st = rt_sched_asap(s, RT_PORT_B, err);
    if (st == CM_OK && rank >= 0)
        rt_sched_keep_rank(s, rank);
out:
    free(off);
    free(order);
    free(id_of);
    return st;
}
