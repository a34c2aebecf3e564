/*
 * slt.c - sorted linear tree (SLT) allreduce, Proficz 2018 Fig. 5.
 *
 * Source: J. Proficz, "Improving all-reduce collective operations for
 * imbalanced process arrival patterns", J Supercomput 74:3071 (2018),
 * section 4.1 and the listing of Fig. 5, example Fig. 6 (Proficz 2018 in
 * docs/references.md).
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
 *       id > 0:  R_j  recv segment j from id-1 and reduce it
 *                S_j  send segment j to (id+1) mod P   (id P-1 sends the
 *                     finished segment back to id 0: a copy)
 *   override loop, j = 0..S-1, id < P-1:
 *                C_j  recv segment j from (id-1) mod P (copy)
 *       id < P-2: F_j send it to id+1        (copy)
 *
 * so every segment travels id 0 -> 1 -> ... -> P-1 (reduce) -> 0 -> 1 ->
 * ... -> P-2 (copy): 2P-2 hops.
 *
 * Rounds: those that rt_sched_asap gives these programs under port model B
 * (a transfer takes the first round in which the sender's send stream and
 * the receiver's receive stream are both free and the sender holds the
 * segment), here in closed form; with B = max(S,P):
 *
 *   reduce hop id k -> k+1 of segment j (k <= P-2):  round j + k
 *   hop id P-1 -> id 0 (the first copy):              round j + P - 1
 *   copy hop id m -> m+1 (m <= P-3):                  round j + B + m
 *
 * Why: id 0 sends S_j in round j (nothing to wait for); id k receives it in
 * that round and sends it on in the next, when its send stream is free
 * (its S_{j-1} went one round earlier), so segment j reaches id k+1 in
 * round j+k and id 0 gets it back in j+P-1.  Id 0's first copy F_0
 * waits for both its last reduce send S_{S-1} (round S-1) and C_0 (round
 * P-1), and id 1's receive of it for id 1's last reduce receive (round
 * S-1): round max(S, P) = B.  Then F_j is in B+j (one per round), and
 * downstream the same argument as for the reduce (id m's reduce receives
 * end in round S+m-2 < B+m-1) gives j+B+m.  In total S + B + P - 3 rounds
 * for P >= 3, S + 1 for P = 2, none for P = 1.
 *
 * Each rank's steps are listed by round, within a round in program order
 * (what rt_sched_asap's stable sort leaves).  For ids >= 1 the program
 * order already is round order (R_j in j+k-1 and S_j in j+k; C_j in
 * j+B+k-1 and F_j in j+B+k, after the last S_{S-1} in S-1+k).  For id 0
 * it is not when S > P: C_0 (round P-1) comes before S_{S-1} (round S-1).
 * Its steps are the three streams S_t (round t), F_j (j+B) and C_j
 * (j+P-1) merged by round, S before F before C in a shared round: their
 * program order (S and F never share one, and F_j meets only C_i with
 * i = j+B-P+1 > j, listed after it).  t_pap_slt_direct_equals_asap holds
 * this to the rt_sched_asap construction step for step.
 *
 * Worked example, P = 4, S = 4 (the default), arrival = {4, 0, 0, 0} (rank
 * 0 late, as in the paper's Fig. 6): ids 0,1,2,3 are ranks 1,2,3,0, the
 * chain is 1 -> 2 -> 3 -> 0 -> 1 -> 2 -> 3; "a>b sJ" is rank a sending
 * segment J (reduce), "sJc" a copy of the finished segment; B = 4:
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
 * (1>2 s0c is id 0's F_0, round 0 + B + 0 = 4; 2>3 s3c is id 1's F_3,
 * round 3 + B + 1 = 8.  Rank 1, id 0, lists its send of s3 and its receive
 * of s0c from rank 0, both in round 3, in that order.)  The late rank 0
 * takes part from round 2 on; the rounds do not depend on the arrival
 * times, only the order does (a simulation with the arrival times gives
 * the time: rt_sched_simulate).
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
 * max(S,P) above): the listing's shape, kept.
 *
 * Cost: 4S(P-1) steps in all, at most 4S per rank, generated directly in
 * round order: O(P log P + S) for one rank (the arrival sort), O(P log P +
 * S*P) for all; with rank == -1 the real ranks are the outer loop after one
 * rt_sched_reserve, so rt_sched_finish has nothing to sort.
 */
#include <stdint.h>
#include <stdlib.h>

#include "runtime/algo/pap_int.h"

typedef struct slt {
    int32_t np;            /* P */
    int32_t nseg;          /* S */
    int32_t big;           /* max(S, P): where id 0's copy phase starts */
    const int32_t *order;  /* order[id] = rank */
} slt_t;

/* How many steps id has (P >= 2): S of each of its streams below. */
static size_t slt_id_nsteps(const slt_t *x, int32_t id)
{
    size_t n = (size_t)x->nseg;

    if (id == 0)                 /* S_j, C_j, and F_j unless P = 2 */
        return (x->np >= 3 ? 3 : 2) * n;
    if (id == x->np - 1)         /* R_j, S_j */
        return 2 * n;
    return (id < x->np - 2 ? 4 : 3) * n;    /* R_j, S_j, C_j (, F_j) */
}

/* The last round + 1 (P >= 2): the copy hop P-3 -> P-2 of segment S-1,
   or for P = 2 the hop 1 -> 0 of segment S-1. */
static int32_t slt_nrounds(const slt_t *x)
{
    if (x->np == 2)
        return x->nseg + 1;
    return x->nseg + x->big + x->np - 3;
}

/* Appends the steps of id's rank in round order (the closed form above). */
static cm_status_t slt_id_steps(rt_sched_t *s, const slt_t *x, int32_t id)
{
    const unsigned move = RT_STEP_MOVE, final = RT_STEP_FINAL;
    const int32_t np = x->np, nseg = x->nseg, big = x->big;
    const int32_t r = x->order[id];
    const int32_t left = x->order[(id + np - 1) % np];
    const int32_t right = x->order[(id + 1) % np];
    cm_status_t st = CM_OK;

    if (id == 0) {
        /* Three streams merged by round: S_t in round t, F_{t-big} (P >= 3)
           and C_{t-P+1}; in a shared round S, then F, then C (their
           program order: every S_j is listed before the override loop,
           and F_j before C_i for i > j, the only C a tie can meet). */
        int32_t last = nseg - 1 + (np >= 3 ? big : np - 1);

        for (int32_t t = 0; t <= last && st == CM_OK; t++) {
            int32_t f = t - big, c = t - (np - 1);

            if (t < nseg)
                st = rt_sched_step(s, r, t, right, RT_STEP_SEND,
                                   RT_ACT_REDUCE, move, t, 1);
            if (st == CM_OK && np >= 3 && f >= 0 && f < nseg)
                st = rt_sched_step(s, r, t, right, RT_STEP_SEND, RT_ACT_COPY,
                                   final, f, 1);
            if (st == CM_OK && c >= 0 && c < nseg)
                st = rt_sched_step(s, r, t, left, RT_STEP_RECV, RT_ACT_COPY,
                                   final, c, 1);
        }
        return st;
    }
    /* id >= 1: the program order is already round order.  The last id
       closes the chain: what it sends is complete (a copy). */
    {
        int act = id == np - 1 ? RT_ACT_COPY : RT_ACT_REDUCE;
        unsigned fl = id == np - 1 ? final : move;

        for (int32_t j = 0; j < nseg && st == CM_OK; j++) {
            st = rt_sched_step(s, r, j + id - 1, left, RT_STEP_RECV,
                               RT_ACT_REDUCE, move, j, 1);
            if (st == CM_OK)
                st = rt_sched_step(s, r, j + id, right, RT_STEP_SEND, act,
                                   fl, j, 1);
        }
    }
    for (int32_t j = 0; j < nseg && st == CM_OK && id < np - 1; j++) {
        st = rt_sched_step(s, r, j + big + id - 1, left, RT_STEP_RECV,
                           RT_ACT_COPY, final, j, 1);
        if (st == CM_OK && id < np - 2)
            st = rt_sched_step(s, r, j + big + id, right, RT_STEP_SEND,
                               RT_ACT_COPY, final, j, 1);
    }
    return st;
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

/* Appends every rank's steps (rank == -1), ranks ascending, or one rank's,
   after reserving their exact number. */
static cm_status_t slt_build(rt_sched_t *s, const slt_t *x,
                             const int32_t *id_of, int32_t rank,
                             cm_err_t *err)
{
    size_t n = 0;

    if (rank >= 0) {
        n = slt_id_nsteps(x, id_of[rank]);
    } else {
        /* 2P-2 hops per segment, two steps each: 4S(P-1). */
        if ((size_t)x->nseg > SIZE_MAX / 4 / (size_t)(x->np - 1))
            return CM_ERR(err, CM_ERR_RANGE, "slt: %d segments of %d ranks "
                          "are too many steps", (int)x->nseg, (int)x->np);
        n = 4 * (size_t)x->nseg * (size_t)(x->np - 1);
    }
    if (rt_sched_reserve(s, n) != CM_OK)
        return CM_ERR(err, CM_ERR_NOMEM, "slt: no memory for %zu steps", n);
    for (int32_t r = rank < 0 ? 0 : rank;
         r < (rank < 0 ? x->np : rank + 1); r++) {
        cm_status_t st = slt_id_steps(s, x, id_of[r]);

        if (st != CM_OK)
            return CM_ERR(err, st, "slt: cannot append a step of rank %d: %s",
                          (int)r, cm_status_string(st));
    }
    return CM_OK;
}

cm_status_t rt_algo_slt(rt_sched_t *s, const rt_algo_params_t *p,
                        int32_t rank, cm_err_t *err)
{
    int32_t *order = NULL, *id_of = NULL, nseg;
    int64_t *off = NULL;
    slt_t x;
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
    if (st == CM_OK)
        st = rt_sched_begin(s, "slt", RT_COLL_ALLREDUCE, RT_PORT_B, p, rank,
                            nseg, off, err);
    x = (slt_t){ .np = p->nranks, .nseg = nseg,
                 .big = nseg > p->nranks ? nseg : p->nranks, .order = order };
    if (st == CM_OK && x.np > 1)
        st = slt_build(s, &x, id_of, rank, err);
    if (st == CM_OK)
        st = rt_sched_finish(s, err);
    /* The closed form's round count and the steps' must agree. */
    if (st == CM_OK && rank < 0 && x.np > 1 && s->nrounds != slt_nrounds(&x))
        st = CM_ERR(err, CM_ERR_INVALID, "slt: %d rounds, expected %d",
                    s->nrounds, slt_nrounds(&x));
out:
    free(off);
    free(order);
    free(id_of);
    return st;
}
