/*
 * chain.c - pipelined chain reduce and broadcast with q segments.
 *
 * Source (docs/references.md): Open MPI's
 * ompi_coll_base_reduce_intra_pipeline (build_chain with fanout 1 and
 * reduce_generic) and Reduce_pipeline of
 * ryantanaka/621_632_final_project src/my_reduce_implementations.c.
 *
 * The chain, in virtual ranks v = (rank - root + P) mod P, is
 * P-1 -> P-2 -> ... -> 1 -> 0 (the root); in real ranks r sends to
 * (r - 1) mod P and the tail is (root - 1) mod P.  The vector is cut into q
 * pipeline segments (rt_part_segments: segcount or nsegs, one segment when
 * neither is given); segment j is piece j.
 *
 * Reduce ("chain-reduce"), the blocking program of vrank v:
 *     for j in 0..q-1: recv(v+1, j) and reduce, if v < P-1;
 *                      send(v-1, j), if v > 0      (the data is given away)
 * Broadcast ("chain-bcast"), the same chain the other way, root first:
 *     for j in 0..q-1: recv(v-1, j) and copy, if v > 0;
 *                      send(v+1, j), if v < P-1    (complete: RT_STEP_FINAL)
 * Rounds are the ASAP rounds of these programs (docs/algorithms.md,
 * rt_sched_asap) under p->port.  Closed forms for the reduce: under U and
 * P > 2, v sends segment j in round (P-1-v) + 2j, (P-1) + 2(q-1) rounds in
 * all (an interior node alternates receive and send); under U and P = 2,
 * q rounds; under B, round (P-1-v) + j, P - 2 + q rounds.  The broadcast is
 * its mirror image: v receives segment j in round (v-1) + 2j (U, P > 2) or
 * (v-1) + j (B).
 *
 * Worked example, reduce, P = 5, root = 2, q = 3 (vranks 2->0, 3->1, 4->2,
 * 0->3, 1->4; chain 1 -> 0 -> 4 -> 3 -> 2), "a->b sJ" = segment J:
 *
 *   U (8 rounds)  0: 1->0 s0          1: 0->4 s0
 *                 2: 1->0 s1, 4->3 s0 3: 0->4 s1, 3->2 s0
 *                 4: 1->0 s2, 4->3 s1 5: 0->4 s2, 3->2 s1
 *                 6: 4->3 s2          7: 3->2 s2
 *   B (6 rounds)  0: 1->0 s0          1: 0->4 s0, 1->0 s1
 *                 2: 0->4 s1, 1->0 s2, 4->3 s0
 *                 3: 0->4 s2, 3->2 s0, 4->3 s1
 *                 4: 3->2 s1, 4->3 s2 5: 3->2 s2
 *
 * Parameters read: nranks, root, count, segcount or nsegs, port (U or B).
 *
 * Limitations: port X is CM_ERR_UNSUPPORTED (an interior node receives from
 * one neighbour and sends to the other, never a single-peer exchange).  One
 * chain (Open MPI's fanout 1); Open MPI's several chains hanging off the
 * root (fanout > 1) are not built.  Generating for one rank costs as much as
 * for all: the ASAP rounds need every rank's program.
 */
#include <stdlib.h>
#include "runtime/algo/algo_int.h"

/* U and B are what the ASAP rule models; X cannot hold for a chain. */
static cm_status_t check_port(const rt_algo_params_t *p, const char *name,
                              cm_err_t *err)
{
    if (p->port == RT_PORT_U || p->port == RT_PORT_B)
        return CM_OK;
    if (p->port == RT_PORT_X)
        return CM_ERR(err, CM_ERR_UNSUPPORTED,
                      "%s: port model X is not supported: a chain node "
                      "receives from one neighbour and sends to the other "
                      "(use U or B)", name);
    return CM_ERR(err, CM_ERR_INVALID, "%s: unknown port model %d", name,
                  (int)p->port);
}

/*
 * Emits every rank's program with unset rounds, in execution order.
 * toward_root: reduce (data flows to vrank v-1) or broadcast (to v+1).
 */
static cm_status_t emit(rt_sched_t *s, int32_t np, int32_t root,
                        int32_t nseg, int toward_root, const char *name,
                        cm_err_t *err)
{
    const int act = toward_root ? RT_ACT_REDUCE : RT_ACT_COPY;
    const unsigned fl = toward_root ? RT_STEP_MOVE : RT_STEP_FINAL;

    /* Rank by rank, so that rt_sched_finish has nothing to sort. */
    for (int32_t r = 0; r < np; r++) {
        int32_t v = rt_vrank(r, root, np);
        /* From whom v receives and to whom it sends; -1: nobody. */
        int32_t from = toward_root ? (v < np - 1 ? v + 1 : -1) : v - 1;
        int32_t to = toward_root ? v - 1 : (v < np - 1 ? v + 1 : -1);

        for (int32_t j = 0; j < nseg; j++) {
            cm_status_t st = CM_OK;

            if (from >= 0)
                st = rt_sched_step(s, r, RT_ROUND_UNSET,
                                   rt_real(from, root, np), RT_STEP_RECV,
                                   act, fl, j, 1);
            if (st == CM_OK && to >= 0)
                st = rt_sched_step(s, r, RT_ROUND_UNSET,
                                   rt_real(to, root, np), RT_STEP_SEND, act,
                                   fl, j, 1);
            if (st != CM_OK)
                return CM_ERR(err, st, "%s: cannot append a step of rank %d:"
                              " %s", name, (int)r, cm_status_string(st));
        }
    }
    return CM_OK;
}

static cm_status_t chain(rt_sched_t *s, const rt_algo_params_t *p,
                         int32_t rank, const char *name, rt_coll_t coll,
                         cm_err_t *err)
{
    int64_t *off = NULL;
    int32_t nseg;
    cm_status_t st;

    st = rt_algo_check_common(p, rank, name, err);
    if (st == CM_OK)
        st = check_port(p, name, err);
    if (st != CM_OK)
        return st;
    nseg = rt_part_segments(p, &off, err);
    if (nseg < 0)
        return (cm_status_t)nseg;
    /* All ranks first: ASAP rounds depend on everybody's program. */
    st = rt_sched_begin(s, name, coll, p->port, p, -1, nseg, off, err);
    free(off);
    if (st == CM_OK)
        st = emit(s, p->nranks, p->root, nseg, coll == RT_COLL_REDUCE, name,
                  err);
    if (st == CM_OK)
        st = rt_sched_finish(s, err);
    if (st == CM_OK)
        st = rt_sched_asap(s, p->port, err);
    if (st == CM_OK && rank >= 0)
        rt_sched_keep_rank(s, rank);
    return st;
}

cm_status_t rt_algo_chain_reduce(rt_sched_t *s, const rt_algo_params_t *p,
                                 int32_t rank, cm_err_t *err)
{
    return chain(s, p, rank, "chain-reduce", RT_COLL_REDUCE, err);
}

cm_status_t rt_algo_chain_bcast(rt_sched_t *s, const rt_algo_params_t *p,
                                int32_t rank, cm_err_t *err)
{
    return chain(s, p, rank, "chain-bcast", RT_COLL_BCAST, err);
}
