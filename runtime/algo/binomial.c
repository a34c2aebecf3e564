/*
 * binomial.c - binomial tree reduce and broadcast, any root, any P.
 *
 * Source (docs/references.md): MPICH's
 * src/mpi/coll/reduce/reduce_intra_binomial.c (Open MPI's in-order binomial
 * tree, ompi_coll_base_topo_build_in_order_bmtree, is the same tree).
 *
 * The tree, in virtual ranks v = (rank - root + P) mod P: the parent of
 * v != 0 is v with its lowest set bit cleared, v - lowbit(v).
 *
 * Reduce ("binomial-reduce"): for mask = 1, 2, 4, ... < P, a vrank with the
 * mask bit set sends its accumulated vector to v - mask and stops; one
 * without it receives from v + mask (if < P) and reduces.  So v != 0 sends
 * in round log2(lowbit(v)), the receives of a node come in increasing mask
 * order, and there are ceil(log2 P) rounds.  Each send gives the data away
 * (RT_STEP_MOVE).
 *
 * Broadcast ("binomial-bcast"): the same tree run backwards in time, which
 * is MPICH's binomial broadcast (src/mpi/coll/bcast/bcast_intra_binomial.c):
 * v receives the complete vector from v - lowbit(v), then sends it to
 * v + m for m = lowbit(v)/2, ..., 2, 1 (the root: m = the largest power of
 * two < P down to 1), those that are < P.  The edge to v is in round
 * R - 1 - log2(lowbit(v)), R = ceil(log2 P): the reduce's rounds reversed,
 * so that a reduce followed by this broadcast mirrors itself.  Where a
 * child is missing (v + m >= P) the next send keeps its round and the
 * sender simply has an empty round; executors do not wait for empty
 * rounds, so this costs nothing against renumbering the sends ASAP.
 * Open MPI's build_bmtree (parent = v with its highest set bit cleared) is
 * a different tree and not what this file does.
 *
 * Worked example, P = 5, root = 2 (vranks 2->0, 3->1, 4->2, 0->3, 1->4):
 *
 *   reduce   round 0: 3->2, 0->4     (v1->v0, v3->v2)
 *            round 1: 4->2           (v2->v0)
 *            round 2: 1->2           (v4->v0)
 *   bcast    round 0: 2->1           (v0->v4)
 *            round 1: 2->4           (v0->v2)
 *            round 2: 2->3, 4->0     (v0->v1, v2->v3)
 *
 * Both use one piece (the whole vector) and port model U.
 *
 * Parameters read: nranks, root, count.  Like every generator, fields it
 * does not read are ignored (tools pass one option set to all of them):
 * nsegs / segcount (the vector is always one piece) and port (a U
 * schedule is valid under B and X as well).
 *
 * Limitations: unsegmented (Open MPI pipelines segments through this tree;
 * chain-reduce, bintree-reduce and greedy-reduce pipeline).  Commutative
 * operations only: for a non-commutative op MPICH reduces to rank 0 and
 * adds a round 0 -> root, which is not done here.
 */
#include "runtime/algo/algo_int.h"

/* Rounds of a binomial tree on P processes: ceil(log2 P), 0 for P = 1. */
static int32_t ceil_log2(int32_t p)
{
    int32_t k = 0;

    while (((int64_t)1 << k) < p)
        k++;
    return k;
}

/* The common start of both generators: checks and the one-piece header. */
static cm_status_t begin(rt_sched_t *s, const rt_algo_params_t *p,
                         int32_t rank, const char *name, rt_coll_t coll,
                         cm_err_t *err)
{
    int64_t off[2];
    cm_status_t st;

    st = rt_algo_check_common(p, rank, name, err);
    if (st != CM_OK)
        return st;
    off[0] = 0;
    off[1] = p->count;
    return rt_sched_begin(s, name, coll, RT_PORT_U, p, rank, 1, off, err);
}

static cm_status_t step(rt_sched_t *s, int32_t rank, int32_t round,
                        int32_t peer, int dir, int act, unsigned flags,
                        const char *name, cm_err_t *err)
{
    cm_status_t st = rt_sched_step(s, rank, round, peer, dir, act, flags, 0, 1);

    if (st != CM_OK)
        return CM_ERR(err, st, "%s: cannot append a step of rank %d: %s",
                      name, (int)rank, cm_status_string(st));
    return CM_OK;
}

/* Rank r's reduce steps in round order: receives by increasing mask, then
   its one send.  O(log P) per rank, O(P) for all ranks. */
static cm_status_t reduce_rank(rt_sched_t *s, int32_t np, int32_t root,
                               int32_t r, cm_err_t *err)
{
    const unsigned fl = RT_STEP_MOVE;
    int32_t v = rt_vrank(r, root, np);
    int32_t k = 0;
    cm_status_t st = CM_OK;

    for (int64_t mask = 1; mask < np && st == CM_OK; mask <<= 1, k++) {
        if (v & mask)
            return step(s, r, k, rt_real(v - (int32_t)mask, root, np),
                        RT_STEP_SEND, RT_ACT_REDUCE, fl, "binomial-reduce",
                        err);
        /* The mask bit is clear in v, so v | mask == v + mask. */
        if (v + mask < np)
            st = step(s, r, k, rt_real(v + (int32_t)mask, root, np),
                      RT_STEP_RECV, RT_ACT_REDUCE, fl, "binomial-reduce", err);
    }
    return st;
}

cm_status_t rt_algo_binomial_reduce(rt_sched_t *s, const rt_algo_params_t *p,
                                    int32_t rank, cm_err_t *err)
{
    cm_status_t st = begin(s, p, rank, "binomial-reduce", RT_COLL_REDUCE, err);

    /* Each rank lists its own sends and receives; a pair of ranks shares
       one edge, so the k-th-send / k-th-receive matching is trivial. */
    for (int32_t r = (rank < 0 ? 0 : rank);
         st == CM_OK && r < (rank < 0 ? p->nranks : rank + 1); r++)
        st = reduce_rank(s, p->nranks, p->root, r, err);
    return st == CM_OK ? rt_sched_finish(s, err) : st;
}

/* Rank r's broadcast steps in round order: one receive from the parent,
   then the sends to its children, largest subtree first. */
static cm_status_t bcast_rank(rt_sched_t *s, int32_t np, int32_t root,
                              int32_t r, cm_err_t *err)
{
    const unsigned fl = RT_STEP_FINAL;
    int32_t nrounds = ceil_log2(np);
    int32_t v = rt_vrank(r, root, np);
    int32_t k;          /* log2 of the first child distance, + 1 */
    cm_status_t st = CM_OK;

    if (v == 0) {
        k = nrounds;
    } else {
        k = 0;
        while (!(v & ((int32_t)1 << k)))
            k++;
        st = step(s, r, nrounds - 1 - k,
                  rt_real(v - ((int32_t)1 << k), root, np), RT_STEP_RECV,
                  RT_ACT_COPY, fl, "binomial-bcast", err);
    }
    /* Children v + 2^j, j = k-1 .. 0, each in round R - 1 - j. */
    for (int32_t j = k - 1; j >= 0 && st == CM_OK; j--) {
        int64_t c = (int64_t)v + ((int64_t)1 << j);

        if (c < np)
            st = step(s, r, nrounds - 1 - j, rt_real((int32_t)c, root, np),
                      RT_STEP_SEND, RT_ACT_COPY, fl, "binomial-bcast", err);
    }
    return st;
}

cm_status_t rt_algo_binomial_bcast(rt_sched_t *s, const rt_algo_params_t *p,
                                   int32_t rank, cm_err_t *err)
{
    cm_status_t st = begin(s, p, rank, "binomial-bcast", RT_COLL_BCAST, err);

    for (int32_t r = (rank < 0 ? 0 : rank);
         st == CM_OK && r < (rank < 0 ? p->nranks : rank + 1); r++)
        st = bcast_rank(s, p->nranks, p->root, r, err);
    return st == CM_OK ? rt_sched_finish(s, err) : st;
}
