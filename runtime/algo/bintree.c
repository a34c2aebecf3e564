/*
 * bintree.c - pipelined binary tree reduce with q segments.
 *
 * Source (docs/references.md): Reduce_binary of
 * ryantanaka/621_632_final_project src/my_reduce_implementations.c (heap
 * shape) and Open MPI's ompi_coll_base_reduce_intra_binary with
 * ompi_coll_base_topo_build_tree(fanout 2) in coll_base_topo.c (Open MPI
 * shape).  The two are different labelled trees for every P >= 5, so the
 * caller picks one with p->tree.
 *
 * Shapes, in virtual ranks v = (rank - root + P) mod P:
 *   RT_TREE_HEAP  children 2v+1, 2v+2 (if < P); parent (v-1) div 2.
 *   RT_TREE_OMPI  v is on level l, 2^l - 1 <= v < 2^(l+1) - 1; its children
 *                 are v + 2^l and v + 2^(l+1) (if < P).  Hence the parent
 *                 of v on level l >= 1, with d = 2^(l-1), is v - d when
 *                 v < 3d - 1 (v is a first child) and v - 2d otherwise.
 *                 P = 12: 0:{1,2} 1:{3,5} 2:{4,6} 3:{7,11} 4:{8} 5:{9} 6:{10}.
 *
 * The blocking program of vrank v, both shapes:
 *     for j in 0..q-1: recv(child_0, j), recv(child_1, j) (those that
 *                      exist, in that order), reducing each;
 *                      send(parent, j) if v != 0   (the data is given away)
 * Rounds are the ASAP rounds of these programs (docs/algorithms.md,
 * rt_sched_asap) under p->port.  Tanaka's cost formula
 * 2(ceil(log2(P+1)) - 1) + 4(q-1) rounds (U) slightly overestimates them.
 *
 * Worked example, P = 5, root = 2, q = 2 ("a->b sJ" = segment J):
 *   heap: vrank tree 0:{1,2} 1:{3,4}, real 2:{3,4} 3:{0,1}
 *     U (7 rounds)  0: 0->3 s0  1: 1->3 s0  2: 3->2 s0  3: 0->3 s1, 4->2 s0
 *                   4: 1->3 s1  5: 3->2 s1  6: 4->2 s1
 *     B (6 rounds)  0: 0->3 s0  1: 1->3 s0  2: 0->3 s1, 3->2 s0
 *                   3: 1->3 s1, 4->2 s0     4: 3->2 s1  5: 4->2 s1
 *   Open MPI: vrank tree 0:{1,2} 1:{3} 2:{4}, real 2:{3,4} 3:{0} 4:{1}
 *     U (5 rounds)  0: 0->3 s0, 1->4 s0  1: 3->2 s0  2: 0->3 s1, 4->2 s0
 *                   3: 1->4 s1, 3->2 s1  4: 4->2 s1
 *     B (5 rounds)  0: 0->3 s0, 1->4 s0  1: 0->3 s1, 1->4 s1, 3->2 s0
 *                   2: 4->2 s0  3: 3->2 s1  4: 4->2 s1
 *
 * Parameters read: nranks, root, count, segcount or nsegs (rt_part_segments;
 * one segment when neither), port (U or B), tree (RT_TREE_HEAP or
 * RT_TREE_OMPI).
 *
 * Limitations: port X is CM_ERR_UNSUPPORTED (a node receives from its
 * children and sends to its parent).  Commutative operations only: Open
 * MPI's separate in-order tree rooted at P-1 for non-commutative ops is out
 * of scope.  Generating for one rank costs as much as for all: the ASAP
 * rounds need every rank's program.
 */
#include <stdlib.h>
#include "runtime/algo/algo_int.h"

#define NAME "bintree-reduce"

/* The level of v in the Open MPI shape: floor(log2(v + 1)). */
static int32_t ompi_level(int32_t v)
{
    int32_t l = 0;

    while (((int64_t)2 << l) - 1 <= v)
        l++;
    return l;
}

/* Children of v (up to 2, in receive order); returns how many. */
static int tree_children(rt_tree_shape_t shape, int32_t v, int32_t np,
                         int32_t child[2])
{
    int64_t c0, c1;
    int n = 0;

    if (shape == RT_TREE_HEAP) {
        c0 = 2 * (int64_t)v + 1;
        c1 = 2 * (int64_t)v + 2;
    } else {
        int64_t delta = (int64_t)1 << ompi_level(v);

        c0 = v + delta;
        c1 = v + 2 * delta;
    }
    if (c0 < np)
        child[n++] = (int32_t)c0;
    if (c1 < np)
        child[n++] = (int32_t)c1;
    return n;
}

/* Parent of v != 0 (see the shapes above). */
static int32_t tree_parent(rt_tree_shape_t shape, int32_t v)
{
    int32_t d;

    if (shape == RT_TREE_HEAP)
        return (v - 1) / 2;
    d = (int32_t)1 << (ompi_level(v) - 1);
    return v < 3 * d - 1 ? v - d : v - 2 * d;
}

static cm_status_t check_params(const rt_algo_params_t *p, cm_err_t *err)
{
    if (p->port == RT_PORT_X)
        return CM_ERR(err, CM_ERR_UNSUPPORTED,
                      NAME ": port model X is not supported: a node receives"
                      " from its children and sends to its parent (use U or"
                      " B)");
    if (p->port != RT_PORT_U && p->port != RT_PORT_B)
        return CM_ERR(err, CM_ERR_INVALID, NAME ": unknown port model %d",
                      (int)p->port);
    if (p->tree != RT_TREE_HEAP && p->tree != RT_TREE_OMPI)
        return CM_ERR(err, CM_ERR_INVALID, NAME ": unknown tree shape %d "
                      "(RT_TREE_HEAP or RT_TREE_OMPI)", (int)p->tree);
    return CM_OK;
}

/* Every rank's program, unset rounds, in execution order. */
static cm_status_t emit(rt_sched_t *s, const rt_algo_params_t *p,
                        int32_t nseg, cm_err_t *err)
{
    const int32_t np = p->nranks, root = p->root;

    /* Rank by rank, so that rt_sched_finish has nothing to sort. */
    for (int32_t r = 0; r < np; r++) {
        int32_t v = rt_vrank(r, root, np);
        int32_t child[2];
        int nchild = tree_children(p->tree, v, np, child);
        int32_t parent = v == 0 ? -1 : rt_real(tree_parent(p->tree, v),
                                              root, np);

        for (int32_t j = 0; j < nseg; j++) {
            cm_status_t st = CM_OK;

            for (int c = 0; c < nchild && st == CM_OK; c++)
                st = rt_sched_step(s, r, RT_ROUND_UNSET,
                                   rt_real(child[c], root, np), RT_STEP_RECV,
                                   RT_ACT_REDUCE, RT_STEP_MOVE, j, 1);
            if (st == CM_OK && parent >= 0)
                st = rt_sched_step(s, r, RT_ROUND_UNSET, parent, RT_STEP_SEND,
                                   RT_ACT_REDUCE, RT_STEP_MOVE, j, 1);
            if (st != CM_OK)
                return CM_ERR(err, st, NAME ": cannot append a step of rank "
                              "%d: %s", (int)r, cm_status_string(st));
        }
    }
    return CM_OK;
}

cm_status_t rt_algo_bintree_reduce(rt_sched_t *s, const rt_algo_params_t *p,
                                   int32_t rank, cm_err_t *err)
{
    int64_t *off = NULL;
    int32_t nseg;
    cm_status_t st;

    st = rt_algo_check_common(p, rank, NAME, err);
    if (st == CM_OK)
        st = check_params(p, err);
    if (st != CM_OK)
        return st;
    nseg = rt_part_segments(p, &off, err);
    if (nseg < 0)
        return (cm_status_t)nseg;
    /* All ranks first: ASAP rounds depend on everybody's program. */
    st = rt_sched_begin(s, NAME, RT_COLL_REDUCE, p->port, p, -1, nseg, off,
                        err);
    free(off);
    if (st == CM_OK)
        st = emit(s, p, nseg, err);
    if (st == CM_OK)
        st = rt_sched_finish(s, err);
    if (st == CM_OK)
        st = rt_sched_asap(s, p->port, err);
    if (st == CM_OK && rank >= 0)
        rt_sched_keep_rank(s, rank);
    return st;
}
