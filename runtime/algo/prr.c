/*
 * prr.c - pre-reduced ring (PRR) allreduce, Proficz 2018 Fig. 7.
 *
 * Source: J. Proficz, J Supercomput 74:3071 (2018), section 4.2 and the
 * listing of Fig. 7 (Proficz 2018 in docs/references.md; Fig. 8 is the
 * example).  The listing cannot be run as printed
 * (line 19's `is`, the unset sp_j of lines 9-12, the override loop); what
 * was tried and what replays correctly is in docs/slt-prr-findings.md and
 * tests/unit/algo/t_pap_listing.c.  This file builds the reading that
 * replays.
 *
 * Ids: processes sorted by arrival (id 0 earliest, ties by rank,
 * pap_int.h); a_i below is the arrival of id i.  The vector is cut into P
 * EL blocks (segments); segment j is piece j.
 *
 * Pre-steps (lines 1-6, literal): k_{P-1} = 0 and, for i = P-2 down to 0,
 * k_i = k_{i+1} + 1 if a_{P-1} - a_{i+1} >= (k_{i+1} + 1) * tau, else
 * k_{i+1}.  So k never increases with the id, drops by at most one per id,
 * and k_{P-2} = 0.  Starts (lines 7-13, read as "advance i while
 * i + k_i < j"): sp_j = the smallest id i with i + k_i >= j, and
 * rp_j = sp_j - 1 (mod P) is the last reducer of segment j.
 *
 * The schedule is the ring in which id i starts k_i steps early.  Count
 * ring steps T with the late id P-1 starting at T = 0; id i runs
 * T = -k_i .. 2P-1-k_i and at step T handles segment j = (i - T) mod P
 * (line 14: it starts with si = i + k_i; line 21: si decreases by one per
 * step).  Its first P steps are the reduce loop, the next P the override
 * loop:
 *
 *   reduce step:    recv j from id i-1 and reduce, unless i = sp_j;
 *                   send j to id i+1 - a reduce, or, when i = rp_j (the
 *                   segment is now complete), its first copy
 *   override step:  nothing when i = rp_j (it already sent it);
 *                   else recv j from id i-1 (copy) and send it on unless
 *                   i+1 = rp_j
 *
 * Every segment j is thereby reduced along sp_j, sp_j+1, ..., rp_j and
 * copied on along sp_j, ..., rp_j - 1, one hop per step: the hop id i sends
 * in step T is received by id i+1 in its step T+1 and lies in round
 * T + k_0 (so id i is first needed in round k_0 - max(k_i, k_{i-1}), which
 * is what line 3 checks against its arrival).  With all arrivals equal
 * (all k_i = 0) this is exactly the plain ring of ring.c on
 * the ids.  Segment P-1 always starts at
 * id P-1 (k_{P-2} = 0), so there are 2P-2 + k_0 rounds and the last
 * process to finish does so as late as in the ring (a_{P-1} + (2P-2) tau):
 * what the pre-steps buy is elapsed time - id i may finish up to k_i
 * rounds earlier, and the late process, which finishes many segments
 * itself and so has fewer steps after it arrives, up to k_0.
 *
 * Worked example (the paper's Fig. 8 setting), P = 4, tau = 1,
 * arrival = {2, 0, 0, 0}: ids 0,1,2,3 are ranks 1,2,3,0; k = {2,1,0,0};
 * i + k_i = {2,2,2,3}, so sp = {0,0,0,3} and rp = {3,3,3,2} (segments 0-2
 * start at id 0 and are finished by the late id 3; segment 3 is the late
 * id's own).  In ranks, "a>b sJ" a reduce, "sJc" a copy of the finished
 * segment:
 *
 *   round 0  1>2 s2
 *   round 1  1>2 s1  2>3 s2
 *   round 2  1>2 s0  2>3 s1  3>0 s2  0>1 s3
 *   round 3  1>2 s3  2>3 s0  3>0 s1  0>1 s2c
 *   round 4  1>2 s2c 2>3 s3  3>0 s0  0>1 s1c
 *   round 5  1>2 s1c 2>3 s2c 3>0 s3c 0>1 s0c
 *   round 6  1>2 s0c 2>3 s1c 0>1 s3c
 *   round 7  1>2 s3c 2>3 s0c
 *
 * Rank 0 is first needed in round 2, when it arrives; with tau-long rounds
 * it is done at 7, the others at 8 (the plain ring: everyone at 8).
 *
 * Flags: reduce hops carry RT_STEP_MOVE, copies RT_STEP_FINAL.  Port model
 * B: one send and one receive per round, to different neighbours.
 *
 * Parameters read: nranks, count, arrival (NULL: all equal), round_len
 * (tau, ticks, > 0; needed even when arrival is NULL, as the table says).
 * nsegs and segcount are refused (CM_ERR_UNSUPPORTED): PRR's segments are
 * the ring's P blocks.
 *
 * Limitations: commutative operations only.  The pre-step rule is the
 * paper's, literally: it compares a_{P-1} with a_{i+1} (the receiver of id
 * i's first send must be there when it is sent), which is why id P-2 never
 * pre-steps.  Rounds are computed directly (no ASAP pass), so one rank's
 * schedule costs O(P log P) (the sort) and P = 4096 is instant; all ranks
 * cost O(P^2) steps like the ring.
 */
#include <stdlib.h>

#include "runtime/algo/pap_int.h"

typedef struct prr {
    int32_t  np;
    int32_t  kmax;      /* k_0 */
    int32_t *order;     /* order[id] = rank */
    int32_t *id_of;     /* id_of[rank] = id */
    int32_t *k;         /* pre-steps per id */
    int32_t *sp;        /* first id of each segment */
} prr_t;

/* Lines 1-6 and 7-13 of Fig. 7 on the sorted arrival times. */
static void prr_plan(prr_t *x, const rt_algo_params_t *p)
{
    int32_t np = x->np;

    x->k[np - 1] = 0;
    for (int32_t i = np - 2; i >= 0; i--) {
        int64_t last = p->arrival ? p->arrival[x->order[np - 1]] : 0;
        int64_t next = p->arrival ? p->arrival[x->order[i + 1]] : 0;
        /* diff / tau >= k+1 is diff >= (k+1)*tau without the overflow. */
        int64_t steps = (last - next) / p->round_len;

        x->k[i] = x->k[i + 1] + (steps >= (int64_t)x->k[i + 1] + 1);
    }
    x->kmax = x->k[0];
    /* i + k_i never decreases, so one pass finds each first starter. */
    for (int32_t j = 0, i = 0; j < np; j++) {
        while (i + x->k[i] < j)
            i++;
        x->sp[j] = i;
    }
}

/* Appends id i's 2P steps (fewer when it starts or finishes segments). */
static cm_status_t prr_rank_steps(rt_sched_t *s, const prr_t *x, int32_t i)
{
    const int32_t np = x->np, rank = x->order[i];
    const int32_t left = x->order[(i + np - 1) % np];
    const int32_t next = (i + 1) % np, after = (i + 2) % np;
    const int32_t right = x->order[next];
    const unsigned move = RT_STEP_MOVE, final = RT_STEP_FINAL;
    /* Step T = n - k_i handles segment (i - T) mod P: it starts at
       i + k_i (line 14, at most P-1) and goes down by one (line 21). */
    int32_t j = i + x->k[i];
    cm_status_t st = CM_OK;

    for (int32_t n = 0; n < 2 * np && st == CM_OK;
         n++, j = j == 0 ? np - 1 : j - 1) {
        int32_t round = n - x->k[i] + x->kmax;
        int32_t sp = x->sp[j];
        int owner = sp == next;                  /* i = rp_j */

        if (n < np) {
            if (sp != i)
                st = rt_sched_step(s, rank, round - 1, left, RT_STEP_RECV,
                                   RT_ACT_REDUCE, move, j, 1);
            if (st == CM_OK)
                st = rt_sched_step(s, rank, round, right, RT_STEP_SEND,
                                   owner ? RT_ACT_COPY : RT_ACT_REDUCE,
                                   owner ? final : move, j, 1);
        } else if (!owner) {
            st = rt_sched_step(s, rank, round - 1, left, RT_STEP_RECV,
                               RT_ACT_COPY, final, j, 1);
            if (st == CM_OK && sp != after)          /* i+1 != rp_j */
                st = rt_sched_step(s, rank, round, right, RT_STEP_SEND,
                                   RT_ACT_COPY, final, j, 1);
        }
    }
    return st;
}

static cm_status_t prr_check(const rt_algo_params_t *p, int32_t rank,
                             cm_err_t *err)
{
    cm_status_t st = rt_algo_check_common(p, rank, "prr", err);

    if (st != CM_OK)
        return st;
    if (p->round_len <= 0)
        return CM_ERR(err, CM_ERR_INVALID,
                      "prr: needs round_len (tau, the time of one segment "
                      "transfer and reduction) > 0, got %lld",
                      (long long)p->round_len);
    if (p->nsegs > 0 || p->segcount > 0)
        return CM_ERR(err, CM_ERR_UNSUPPORTED,
                      "prr: nsegs and segcount are not supported (the "
                      "segments are the ring's P blocks)");
    return CM_OK;
}

cm_status_t rt_algo_prr(rt_sched_t *s, const rt_algo_params_t *p,
                        int32_t rank, cm_err_t *err)
{
    prr_t x = { .np = p->nranks };
    int64_t *off = NULL;
    int32_t *mem = NULL;
    cm_status_t st = prr_check(p, rank, err);

    if (st != CM_OK)
        return st;
    off = malloc(((size_t)x.np + 1) * sizeof *off);
    mem = malloc(4 * (size_t)x.np * sizeof *mem);
    if (off == NULL || mem == NULL) {
        st = CM_ERR(err, CM_ERR_NOMEM, "prr: no memory for %d ranks",
                    (int)x.np);
        goto out;
    }
    x.order = mem;
    x.id_of = mem + x.np;
    x.k = mem + 2 * (size_t)x.np;
    x.sp = mem + 3 * (size_t)x.np;
    st = rt__pap_order(p, x.order, x.id_of, "prr", err);
    if (st != CM_OK)
        goto out;
    prr_plan(&x, p);
    rt_part_el(p->count, x.np, off);
    st = rt_sched_begin(s, "prr", RT_COLL_ALLREDUCE, RT_PORT_B, p, rank,
                        x.np, off, err);
    /* P segments of 2P-2 hops, two steps each; one rank has at most 4P. */
    if (st == CM_OK &&
        rt_sched_reserve(s, rank < 0 ? 4 * (size_t)x.np * (size_t)(x.np - 1) :
                         4 * (size_t)x.np) != CM_OK)
        st = CM_ERR(err, CM_ERR_NOMEM, "prr: no memory for the steps of %d "
                    "ranks", (int)x.np);
    /* Rank by rank (real ranks ascending), so nothing needs sorting. */
    for (int32_t r = rank < 0 ? 0 : rank;
         st == CM_OK && x.np > 1 && r < (rank < 0 ? x.np : rank + 1); r++) {
        st = prr_rank_steps(s, &x, x.id_of[r]);
        if (st != CM_OK)
            st = CM_ERR(err, st, "prr: cannot append a step of rank %d: %s",
                        (int)r, cm_status_string(st));
    }
    if (st == CM_OK)
        st = rt_sched_finish(s, err);
out:
    free(off);
    free(mem);
    return st;
}
