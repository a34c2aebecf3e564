/*
 * greedy.c - Lowery and Langou's greedy pipelined reduce, unidirectional.
 *
 * Source: Lowery & Langou 2013.  The paper (B. Lowery, J. Langou, "A greedy
 * algorithm for optimally pipelining a reduction", arXiv:1310.4645, 2013)
 * was not available; the rule is the one of the public implementation
 * ryantanaka/621_632_final_project src/greedy_reduce.c, which its author's
 * report (Tanaka 2017, section 4; docs/references.md) says
 * follows the paper exactly.
 *
 * The vector is cut into q pipeline segments (rt_part_segments: segcount or
 * nsegs, one segment when neither); segment i is piece i.  In virtual ranks
 * (root = vrank 0), the history H[i] counts the vranks 0 .. H[i]-1 that
 * still hold a partial result of segment i (0: segment i is done at the
 * root).  At the start of a round vrank v works on the segment i with
 * H[i-1] <= v < H[i] (H[-1] = 0); those ranges are disjoint, so each vrank
 * takes part in at most one transfer per round (port model U).  Each round:
 *
 *   - start the next segment (at most one per round) when at least two
 *     vranks are done with the newest one: H[newest+1] - H[newest] >= 2;
 *   - for i = newest down to oldest (descending, so that H[i-1] is read
 *     before segment i-1 changes it in this round): the n = H[i] - low
 *     vranks working on i (low = H[i-1], or 0) halve: the upper z = n div 2
 *     send to the vranks z below them and are done with segment i;
 *     H[i] -= z, and a segment left at one holder is finished (H[i] = 0).
 *
 * A sender then starts on its own data of segment i+1; the data it sent is
 * given away (RT_STEP_MOVE).  With q = 1 this is a halving tree,
 * ceil(log2 P) rounds like the binomial tree but largest distance first.
 *
 * Worked example, P = 5, q = 3, root = 0 ("a->b sJ" = segment J):
 *
 *   round  H after       transfers
 *   0      [3,5,5]       3->1 s0, 4->2 s0
 *   1      [2,4,5]       4->3 s1, 2->1 s0     (segment 1 started)
 *   2      [0,3,5]       3->2 s1, 1->0 s0     (segment 0 done)
 *   3      [0,2,4]       4->3 s2, 2->1 s1     (segment 2 started)
 *   4      [0,0,3]       3->2 s2, 1->0 s1
 *   5      [0,0,2]       2->1 s2
 *   6      [0,0,0]       1->0 s2
 *
 * Parameters read: nranks, root, count, segcount or nsegs, port (U only).
 *
 * Limitations: port model U only; B and X are CM_ERR_UNSUPPORTED, because
 * the paper's bidirectional greedy rule is not published anywhere we could
 * read.  Root != 0 is relabelled through vranks (the reference code only
 * allows root 0), valid for commutative operations, which is all this
 * algorithm supports (it does not preserve operand order).  Generating for
 * one rank costs as much as for all (the history is global).
 */
#include <stdlib.h>
#include "runtime/algo/algo_int.h"

#define NAME "greedy-reduce"

static cm_status_t check_port(const rt_algo_params_t *p, cm_err_t *err)
{
    if (p->port == RT_PORT_B || p->port == RT_PORT_X)
        return CM_ERR(err, CM_ERR_UNSUPPORTED,
                      NAME ": port model %s: the bidirectional greedy rule is"
                      " not published (only U is supported)",
                      p->port == RT_PORT_B ? "B" : "X");
    if (p->port != RT_PORT_U)
        return CM_ERR(err, CM_ERR_INVALID, NAME ": unknown port model %d",
                      (int)p->port);
    return CM_OK;
}

/*
 * One round of the rule above on the history h[0..nseg) and the window
 * [*oldest, *newest] of unfinished started segments; appends its transfers
 * and counts them in *moved.
 */
static cm_status_t greedy_round(rt_sched_t *s, int32_t *h, int32_t nseg,
                                int32_t *oldest, int32_t *newest,
                                int32_t round, int32_t np, int32_t root,
                                int64_t *moved, cm_err_t *err)
{
    if (*newest < nseg - 1 && h[*newest + 1] - h[*newest] >= 2)
        (*newest)++;
    for (int32_t i = *newest; i >= *oldest; i--) {
        int32_t low = i == 0 ? 0 : h[i - 1];
        int32_t z = (h[i] - low) / 2;

        for (int32_t v = h[i] - z; v < h[i]; v++) {
            cm_status_t st = rt_sched_xfer(s, round, rt_real(v, root, np),
                                           rt_real(v - z, root, np),
                                           RT_ACT_REDUCE, RT_STEP_MOVE, i, 1);
            if (st != CM_OK)
                return CM_ERR(err, st, NAME ": cannot append a transfer in "
                              "round %d: %s", (int)round,
                              cm_status_string(st));
        }
        *moved += z;
        h[i] -= z;
        if (h[i] == 1) {
            h[i] = 0;
            (*oldest)++;
        }
    }
    return CM_OK;
}

static cm_status_t generate(rt_sched_t *s, int32_t np, int32_t root,
                            int32_t nseg, cm_err_t *err)
{
    int32_t *h = malloc((size_t)nseg * sizeof(*h));
    int32_t oldest = 0, newest = 0;
    cm_status_t st = CM_OK;

    if (h == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, NAME ": no memory for %d segments",
                      (int)nseg);
    for (int32_t i = 0; i < nseg; i++)
        h[i] = np;
    for (int32_t round = 0; h[nseg - 1] > 1 && st == CM_OK; round++) {
        int64_t moved = 0;

        st = greedy_round(s, h, nseg, &oldest, &newest, round, np, root,
                          &moved, err);
        /* Every round moves something while work is left (the oldest
           segment has >= 2 holders); a silent round would loop forever. */
        if (st == CM_OK && moved == 0)
            st = CM_ERR(err, CM_ERR_INVALID, NAME ": internal error: round "
                        "%d moves nothing (P %d, %d segments)", (int)round,
                        (int)np, (int)nseg);
    }
    free(h);
    return st;
}

cm_status_t rt_algo_greedy_reduce(rt_sched_t *s, const rt_algo_params_t *p,
                                  int32_t rank, cm_err_t *err)
{
    int64_t *off = NULL;
    int32_t nseg;
    cm_status_t st;

    st = rt_algo_check_common(p, rank, NAME, err);
    if (st == CM_OK)
        st = check_port(p, err);
    if (st != CM_OK)
        return st;
    nseg = rt_part_segments(p, &off, err);
    if (nseg < 0)
        return (cm_status_t)nseg;
    st = rt_sched_begin(s, NAME, RT_COLL_REDUCE, RT_PORT_U, p, rank, nseg,
                        off, err);
    free(off);
    /* Rounds are generated in order, so every rank's steps are too. */
    if (st == CM_OK)
        st = generate(s, p->nranks, p->root, nseg, err);
    return st == CM_OK ? rt_sched_finish(s, err) : st;
}
