/*
 * t_sim.c - unit tests of the cost-model simulator (runtime/algo/sched_sim.c).
 *
 * Every expectation is worked out by hand in the comment above it, or is a
 * closed form from the papers: the ring's 2(P-1)(alpha + beta n/P) +
 * (P-1) gamma n/P with equal arrivals (Proficz 2018, Thakur et al.), the
 * binomial reduce's ceil(log2 P)(alpha + beta m + gamma m) (Tanaka 2017
 * section 3).  Hand-built schedules use the builder (rt_sched_begin,
 * rt_sched_step / rt_sched_xfer, rt_sched_finish); the closed forms run the
 * real generators through rt_algo_find.
 *
 * Units: seconds, bytes.  Most hand cases use alpha = 1, beta = 0.01 s/B,
 * gamma = 0.005 s/B and 100-byte messages (100 elements of 1 byte), so a
 * transfer takes T = 1 + 1 = 2 and a reduction 0.5 more at the receiver.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tests/tst.h"
#include "tests/test_list.h"
#include "runtime/algo/algo_int.h"


#define TOL 1e-12

static const rt_cost_t HAND = { .alpha = 1, .beta = 0.01, .gamma = 0.005,
                                .elem_bytes = 1 };

/* Starts a hand-built schedule of P ranks over `npieces` pieces of 100
   elements each. */
static void hand_begin(rt_sched_t *s, int32_t P, int32_t npieces)
{
    rt_algo_params_t p = { .nranks = P, .count = 100 * (int64_t)npieces };
    int64_t off[16];
    cm_err_t err;

    TST_TRUE(npieces >= 1 && npieces < 16);
    for (int32_t i = 0; i <= npieces; i++)
        off[i] = 100 * (int64_t)i;
    rt_sched_init(s);
    TST_EQ_STATUS(rt_sched_begin(s, "hand", RT_COLL_REDUCE, RT_PORT_B, &p, -1,
                                 npieces, off, &err), CM_OK);
}

static void hand_finish(rt_sched_t *s)
{
    cm_err_t err;

    TST_EQ_STATUS(rt_sched_finish(s, &err), CM_OK);
}

static void xfer(rt_sched_t *s, int32_t round, int32_t src, int32_t dst,
                 int act, int32_t piece)
{
    TST_EQ_STATUS(rt_sched_xfer(s, round, src, dst, act, 0, piece, 1), CM_OK);
}

static void simulate_ok(const rt_sched_t *s, const rt_cost_t *c,
                        const double *arr, rt_sim_result_t *res)
{
    cm_err_t err;
    cm_status_t st = rt_sched_simulate(s, c, arr, res, &err);

    if (st != CM_OK)
        TST_FAIL("rt_sched_simulate: %s", err.msg);
}

/*
 * Two ranks, one transfer of 100 bytes, both arriving at 0.  A reduce: the
 * sender is done when the message is out, 1 + 0.01*100 = 2; the receiver
 * also reduces, 2 + 0.005*100 = 2.5.  avg (2 + 2.5)/2 = 2.25, max 2.5,
 * completion 2.5.  A copy: both at 2.
 */
void t_sim_pair(void)
{
    rt_sched_t s;
    rt_sim_result_t res;

    hand_begin(&s, 2, 1);
    xfer(&s, 0, 0, 1, RT_ACT_REDUCE, 0);
    hand_finish(&s);
    simulate_ok(&s, &HAND, NULL, &res);
    TST_EQ_DBL(res.finish[0], 2.0, TOL);
    TST_EQ_DBL(res.finish[1], 2.5, TOL);
    TST_EQ_DBL(res.avg_elapsed, 2.25, TOL);
    TST_EQ_DBL(res.max_elapsed, 2.5, TOL);
    TST_EQ_DBL(res.completion, 2.5, TOL);
    rt_sim_result_free(&res);
    TST_NULL(res.finish);
    rt_sched_free(&s);

    hand_begin(&s, 2, 1);
    xfer(&s, 0, 1, 0, RT_ACT_COPY, 0);
    hand_finish(&s);
    simulate_ok(&s, &HAND, NULL, &res);
    TST_EQ_DBL(res.finish[0], 2.0, TOL);
    TST_EQ_DBL(res.finish[1], 2.0, TOL);
    TST_EQ_DBL(res.completion, 2.0, TOL);
    rt_sim_result_free(&res);
    rt_sched_free(&s);
}

/*
 * A 3-rank chain reduce 2 -> 1 -> 0, arrivals a = (0, 3, 1): rank 1 is late.
 *   round 0: 2 -> 1.  Rank 2 starts its group at 1, rank 1 at 3; the
 *            transfer starts at max(1, 3) = 3 and ends at 5: rank 2 is done
 *            at 5; rank 1 reduces until 5.5.
 *   round 1: 1 -> 0.  Rank 1 starts at 5.5 (its round-0 group ended), rank 0
 *            has waited since 0: 5.5 + 2 = 7.5 for rank 1, + 0.5 = 8 for 0.
 * finish (8, 7.5, 5); elapsed (8, 4.5, 4): avg 16.5/3 = 5.5, max 8;
 * completion 8 - 0 = 8.
 */
void t_sim_chain_late(void)
{
    rt_sched_t s;
    rt_sim_result_t res;
    const double arr[3] = { 0, 3, 1 };

    hand_begin(&s, 3, 1);
    xfer(&s, 0, 2, 1, RT_ACT_REDUCE, 0);
    xfer(&s, 1, 1, 0, RT_ACT_REDUCE, 0);
    hand_finish(&s);
    simulate_ok(&s, &HAND, arr, &res);
    TST_EQ_DBL(res.finish[0], 8.0, TOL);
    TST_EQ_DBL(res.finish[1], 7.5, TOL);
    TST_EQ_DBL(res.finish[2], 5.0, TOL);
    TST_EQ_DBL(res.avg_elapsed, 5.5, TOL);
    TST_EQ_DBL(res.max_elapsed, 8.0, TOL);
    TST_EQ_DBL(res.completion, 8.0, TOL);
    rt_sim_result_free(&res);
    rt_sched_free(&s);
}

/*
 * One group with two receives runs them concurrently and ends with the
 * last.  Round 0: 0 -> 1 and 2 -> 1 (reduce), arrivals (0, 0, 1).
 * 0 -> 1 runs 0..2 (+0.5 reduce: 2.5), 2 -> 1 runs 1..3 (+0.5: 3.5).
 * Rank 1's group ends at 3.5; rank 0 at 2, rank 2 at 3.  Round 1: 1 -> 0
 * copy starts at max(3.5, 2) = 3.5 and ends at 5.5 on both.
 * finish (5.5, 5.5, 3); elapsed (5.5, 5.5, 2): avg 13/3, max 5.5,
 * completion 5.5.
 */
void t_sim_group_concurrent(void)
{
    rt_sched_t s;
    rt_sim_result_t res;
    const double arr[3] = { 0, 0, 1 };

    hand_begin(&s, 3, 1);
    xfer(&s, 0, 0, 1, RT_ACT_REDUCE, 0);
    xfer(&s, 0, 2, 1, RT_ACT_REDUCE, 0);
    xfer(&s, 1, 1, 0, RT_ACT_COPY, 0);
    hand_finish(&s);
    simulate_ok(&s, &HAND, arr, &res);
    TST_EQ_DBL(res.finish[0], 5.5, TOL);
    TST_EQ_DBL(res.finish[1], 5.5, TOL);
    TST_EQ_DBL(res.finish[2], 3.0, TOL);
    TST_EQ_DBL(res.avg_elapsed, 13.0 / 3, TOL);
    TST_EQ_DBL(res.max_elapsed, 5.5, TOL);
    TST_EQ_DBL(res.completion, 5.5, TOL);
    rt_sim_result_free(&res);
    rt_sched_free(&s);
}

/*
 * A rank without steps finishes when it arrives: P = 3, only 0 -> 1 (copy,
 * 2), arrivals (0, 0, 7).  finish (2, 2, 7), elapsed (2, 2, 0): avg 4/3;
 * completion = last finish - first arrival = 7 - 0.  An empty schedule:
 * everybody's elapsed time is 0.
 */
void t_sim_idle_rank(void)
{
    rt_sched_t s;
    rt_sim_result_t res;
    const double arr[3] = { 0, 0, 7 };

    hand_begin(&s, 3, 1);
    xfer(&s, 0, 0, 1, RT_ACT_COPY, 0);
    hand_finish(&s);
    simulate_ok(&s, &HAND, arr, &res);
    TST_EQ_DBL(res.finish[2], 7.0, TOL);
    TST_EQ_DBL(res.avg_elapsed, 4.0 / 3, TOL);
    TST_EQ_DBL(res.max_elapsed, 2.0, TOL);
    TST_EQ_DBL(res.completion, 7.0, TOL);
    rt_sim_result_free(&res);
    rt_sched_free(&s);

    hand_begin(&s, 3, 1);
    hand_finish(&s);
    simulate_ok(&s, &HAND, arr, &res);
    for (int r = 0; r < 3; r++)
        TST_EQ_DBL(res.finish[r], arr[r], 0);
    TST_EQ_DBL(res.avg_elapsed, 0.0, 0);
    rt_sim_result_free(&res);
    rt_sched_free(&s);
}

/*
 * Rounds need not be dense: t_sim_chain_late with its rounds 0 and 1
 * renumbered 7 and 2e9 (Clairvoyant's idle-round skipping gives such
 * numbers) must give the same times, since only the order of rounds
 * matters.  nrounds is then 2e9 + 1, far more than the steps: the sparse
 * path (memory O(steps), not O(rounds)).
 */
void t_sim_sparse_rounds(void)
{
    rt_sched_t s;
    rt_sim_result_t res;
    const double arr[3] = { 0, 3, 1 };

    hand_begin(&s, 3, 1);
    xfer(&s, 7, 2, 1, RT_ACT_REDUCE, 0);
    xfer(&s, 2000000000, 1, 0, RT_ACT_REDUCE, 0);
    hand_finish(&s);
    TST_EQ_INT(s.nrounds, 2000000001);
    simulate_ok(&s, &HAND, arr, &res);
    TST_EQ_DBL(res.finish[0], 8.0, TOL);
    TST_EQ_DBL(res.finish[1], 7.5, TOL);
    TST_EQ_DBL(res.finish[2], 5.0, TOL);
    rt_sim_result_free(&res);
    rt_sched_free(&s);
}

/*
 * A flat reduce whose root receives from 12 ranks in one round (a group
 * larger than the simulator's linear-search limit), rank 1 sending two
 * pieces to the root in the same round (the k-th send pairs with the k-th
 * receive of that channel).  Arrivals a_r = r/10 for r >= 1, the root at 0.
 * Every transfer r -> 0 starts at a_r (the root started at 0) and ends at
 * a_r + 2, + 0.5 at the root: the root's group ends at a_12 + 2.5 = 3.7;
 * rank r ends at a_r + 2 (rank 1's two sends both start at 0.1).
 * Then the same with the root listing rank 1's two receives in the other
 * order: piece 1 would pair with piece 0, an error.
 */
void t_sim_large_group(void)
{
    enum { P = 13 };
    rt_sched_t s;
    rt_sim_result_t res;
    double arr[P];
    cm_err_t err;

    for (int r = 0; r < P; r++)
        arr[r] = r / 10.0;
    for (int swap = 0; swap < 2; swap++) {
        hand_begin(&s, P, 2);
        for (int32_t r = 1; r < P; r++) {
            TST_EQ_STATUS(rt_sched_step(&s, r, 0, 0, RT_STEP_SEND, RT_ACT_REDUCE,
                                        0, 0, 1), CM_OK);
            if (r == 1)
                TST_EQ_STATUS(rt_sched_step(&s, 1, 0, 0, RT_STEP_SEND,
                                            RT_ACT_REDUCE, 0, 1, 1), CM_OK);
        }
        for (int32_t r = P - 1; r >= 1; r--) {   /* any order inside a round */
            TST_EQ_STATUS(rt_sched_step(&s, 0, 0, r, RT_STEP_RECV, RT_ACT_REDUCE,
                                        0, r == 1 && swap ? 1 : 0, 1), CM_OK);
            if (r == 1)
                TST_EQ_STATUS(rt_sched_step(&s, 0, 0, 1, RT_STEP_RECV,
                                            RT_ACT_REDUCE, 0, swap ? 0 : 1, 1),
                              CM_OK);
        }
        hand_finish(&s);
        if (swap) {
            TST_EQ_STATUS(rt_sched_simulate(&s, &HAND, arr, &res, &err),
                          CM_ERR_INVALID);
            TST_CONTAINS(err.msg, "pieces");
            TST_NULL(res.finish);
        } else {
            simulate_ok(&s, &HAND, arr, &res);
            TST_EQ_DBL(res.finish[0], 3.7, TOL);
            for (int r = 1; r < P; r++)
                TST_EQ_DBL(res.finish[r], arr[r] + 2, TOL);
            rt_sim_result_free(&res);
        }
        rt_sched_free(&s);
    }
}

/* Generates `name` for all ranks; fails the test on an error. */
static void gen(rt_sched_t *s, const char *name, const rt_algo_params_t *p)
{
    const rt_algo_info_t *a = rt_algo_find(name);
    cm_err_t err;

    if (!a)
        TST_FAIL("no algorithm %s in the table", name);
    rt_sched_init(s);
    if (a->gen(s, p, -1, &err) != CM_OK)
        TST_FAIL("%s: %s", name, err.msg);
}

/*
 * Ring allreduce, equal arrivals, P dividing n: every round each rank
 * sends one block of m = n/P elements to its right and receives one from
 * its left, all starting together, so a reduce-scatter round lasts
 * alpha + beta*m + gamma*m (the receiver reduces) and an allgather round
 * alpha + beta*m (m in bytes):
 *   T = (P-1)(alpha + beta m + gamma m) + (P-1)(alpha + beta m)
 *     = 2(P-1)(alpha + beta m) + (P-1) gamma m,
 * the same for every rank, so avg = max = completion = T.  When P does not
 * divide n the EL blocks differ by one element and ranks drift apart, so
 * only the bounds hold: T with m = floor(n/P) <= finish <= T with
 * m = ceil(n/P).  1 Gb/s-like constants: alpha 50 us, beta 8 ns/B,
 * gamma 1 ns/B, floats.
 */
void t_sim_ring_closed_form(void)
{
    const rt_cost_t c = { .alpha = 50e-6, .beta = 8e-9, .gamma = 1e-9,
                          .elem_bytes = 4 };
    const int32_t Ps[] = { 2, 3, 5, 8, 16 };
    const int64_t counts[] = { 2400, 1003 };   /* 240 | 2400; 1003 is prime */

    for (size_t i = 0; i < sizeof Ps / sizeof *Ps; i++)
        for (size_t j = 0; j < 2; j++) {
            int32_t P = Ps[i];
            rt_algo_params_t p = { .nranks = P, .count = counts[j] };
            double lo = (double)(counts[j] / P) * c.elem_bytes;
            double hi = (double)((counts[j] + P - 1) / P) * c.elem_bytes;
            double Tlo = 2.0 * (P - 1) * (c.alpha + c.beta * lo) +
                         (P - 1) * c.gamma * lo;
            double Thi = 2.0 * (P - 1) * (c.alpha + c.beta * hi) +
                         (P - 1) * c.gamma * hi;
            rt_sched_t s;
            rt_sim_result_t res;

            gen(&s, "ring", &p);
            simulate_ok(&s, &c, NULL, &res);
            for (int32_t r = 0; r < P; r++) {
                if (counts[j] % P == 0) {
                    TST_EQ_DBL(res.finish[r], Thi, 1e-12);
                } else {
                    TST_TRUE(res.finish[r] >= Tlo - 1e-12);
                    TST_TRUE(res.finish[r] <= Thi + 1e-12);
                }
            }
            if (counts[j] % P == 0) {
                TST_EQ_DBL(res.avg_elapsed, Thi, 1e-12);
                TST_EQ_DBL(res.completion, Thi, 1e-12);
            }
            rt_sim_result_free(&res);
            rt_sched_free(&s);
        }
}

/*
 * Binomial reduce (Tanaka section 3): ceil(log2 P)(alpha + beta m + gamma m)
 * at the root, equal arrivals, the whole vector in every message.  Tanaka's
 * constants: alpha 20 us, 10 Gb/s (0.8 ns/B); gamma 0.1 ns/B so that the
 * reduction term shows.  Any root, any P.
 */
void t_sim_binomial_closed_form(void)
{
    const rt_cost_t c = { .alpha = 20e-6, .beta = 0.8e-9, .gamma = 0.1e-9,
                          .elem_bytes = 4 };
    const int32_t Ps[] = { 2, 3, 8, 13, 64 };

    for (size_t i = 0; i < sizeof Ps / sizeof *Ps; i++) {
        int32_t P = Ps[i], lg = 0;
        rt_algo_params_t p = { .nranks = P, .count = 1 << 14, .root = P / 3 };
        double m = (double)p.count * c.elem_bytes, T;
        rt_sched_t s;
        rt_sim_result_t res;

        while ((1 << lg) < P)
            lg++;
        T = lg * (c.alpha + c.beta * m + c.gamma * m);
        gen(&s, "binomial-reduce", &p);
        simulate_ok(&s, &c, NULL, &res);
        TST_EQ_DBL(res.finish[p.root], T, 1e-12);
        TST_EQ_DBL(res.completion, T, 1e-12);
        rt_sim_result_free(&res);
        rt_sched_free(&s);
    }
}

/*
 * Tanaka section 3, the pipelined chain reduce under the unidirectional
 * model: ((P-1) + 2(q-1)) steps of alpha + beta*m, m = one segment (P > 2;
 * the factor 2: an interior node alternates receiving and sending).  With
 * gamma = 0 every step takes the same time, so the formula is exact; with
 * gamma > 0 it is an upper bound (a receive and the next send are not
 * always on the critical path together), so only gamma = 0 is checked.
 * And section 6: the greedy reduce with q = 1 "behaves exactly like a
 * standard binomial reduction": ceil(log2 P)(alpha + beta*n).
 */
void t_sim_pipeline_closed_form(void)
{
    const rt_cost_t c = { .alpha = 20e-6, .beta = 0.8e-9, .gamma = 0,
                          .elem_bytes = 4 };
    const int32_t Ps[] = { 3, 5, 64 };
    const int32_t qs[] = { 1, 2, 4, 16 };

    for (size_t i = 0; i < sizeof Ps / sizeof *Ps; i++) {
        int32_t P = Ps[i], lg = 0;

        for (size_t j = 0; j < sizeof qs / sizeof *qs; j++) {
            rt_algo_params_t p = { .nranks = P, .count = 1 << 16, .nsegs = qs[j],
                                   .port = RT_PORT_U, .root = 1 };
            double m = (double)(p.count / qs[j]) * c.elem_bytes;
            double T = ((P - 1) + 2.0 * (qs[j] - 1)) * (c.alpha + c.beta * m);
            rt_sched_t s;
            rt_sim_result_t res;

            gen(&s, "chain-reduce", &p);
            simulate_ok(&s, &c, NULL, &res);
            TST_EQ_DBL(res.finish[p.root], T, 1e-12);
            TST_EQ_DBL(res.completion, T, 1e-12);
            rt_sim_result_free(&res);
            rt_sched_free(&s);
        }
        while ((1 << lg) < P)
            lg++;
        {
            rt_algo_params_t p = { .nranks = P, .count = 1 << 16, .nsegs = 1 };
            double T = lg * (c.alpha + c.beta * (double)p.count * c.elem_bytes);
            rt_sched_t s;
            rt_sim_result_t res;

            gen(&s, "greedy-reduce", &p);
            simulate_ok(&s, &c, NULL, &res);
            TST_EQ_DBL(res.completion, T, 1e-12);
            rt_sim_result_free(&res);
            rt_sched_free(&s);
        }
    }
}

/*
 * Ring with one late rank: rank 1 arrives at D = 1 s, the others at 0,
 * gamma = 0 so that every transfer takes T = alpha + beta*m.  Rank r's
 * round-k group talks to r-1 and r+1, which started round k when their
 * round k-1 ended, so E_r(k) = max(E_{r-1}(k-1), E_r(k-1), E_{r+1}(k-1)) + T
 * with E_j(-1) = a_j; unrolled, E_r(k) = (k+1) T + max{a_j : ring distance
 * j..r <= k+1}.  After the last round K = 2P-3 the distance bound covers
 * the whole ring: every rank finishes at D + 2(P-1)T, i.e. everybody waits
 * for the late rank and then for the whole ring (P divides n, so all
 * transfers take the same T).  avg elapsed =
 * 2(P-1)T + D(P-1)/P (rank 1's elapsed is 2(P-1)T, the others' D more).
 */
void t_sim_ring_one_late(void)
{
    const rt_cost_t c = { .alpha = 50e-6, .beta = 8e-9, .gamma = 0,
                          .elem_bytes = 4 };
    const int32_t Ps[] = { 2, 4, 7, 48 };

    for (size_t i = 0; i < sizeof Ps / sizeof *Ps; i++) {
        int32_t P = Ps[i];
        rt_algo_params_t p = { .nranks = P, .count = 33600 }; /* 336 | n */
        double m = (double)((p.count + P - 1) / P) * c.elem_bytes;
        double T = c.alpha + c.beta * m, D = 1.0, *arr;
        rt_sched_t s;
        rt_sim_result_t res;

        arr = calloc((size_t)P, sizeof *arr);
        TST_NOT_NULL(arr);
        arr[1] = D;
        gen(&s, "ring", &p);
        simulate_ok(&s, &c, arr, &res);
        for (int32_t r = 0; r < P; r++)
            TST_EQ_DBL(res.finish[r], D + 2.0 * (P - 1) * T, 1e-12);
        TST_EQ_DBL(res.avg_elapsed, 2.0 * (P - 1) * T + D * (P - 1) / P, 1e-12);
        TST_EQ_DBL(res.max_elapsed, D + 2.0 * (P - 1) * T, 1e-12);
        rt_sim_result_free(&res);
        rt_sched_free(&s);
        free(arr);
    }
}

/* Expects CM_ERR_INVALID with `what` in the message and no result. */
static void sim_fails(const rt_sched_t *s, const rt_cost_t *c,
                      const double *arr, const char *what)
{
    rt_sim_result_t res;
    cm_err_t err;

    memset(&err, 0, sizeof err);
    TST_EQ_STATUS(rt_sched_simulate(s, c, arr, &res, &err), CM_ERR_INVALID);
    TST_CONTAINS(err.msg, what);
    TST_NULL(res.finish);
}

/*
 * Bad inputs: sides that disagree on the round or the pieces, a receive
 * nobody sends, a one-rank schedule, a bad cost model, a non-finite
 * arrival time.
 */
void t_sim_errors(void)
{
    rt_sched_t s;
    rt_cost_t c = HAND;
    double arr[2] = { 0, NAN };

    /* The send is in round 0, its receive in round 1. */
    hand_begin(&s, 2, 1);
    rt_sched_step(&s, 0, 0, 1, RT_STEP_SEND, RT_ACT_COPY, 0, 0, 1);
    rt_sched_step(&s, 1, 1, 0, RT_STEP_RECV, RT_ACT_COPY, 0, 0, 1);
    hand_finish(&s);
    sim_fails(&s, &HAND, NULL, "does not receive it in that round");
    rt_sched_free(&s);

    /* Same round, different pieces (small group: linear search). */
    hand_begin(&s, 2, 2);
    rt_sched_step(&s, 0, 0, 1, RT_STEP_SEND, RT_ACT_COPY, 0, 0, 1);
    rt_sched_step(&s, 1, 0, 0, RT_STEP_RECV, RT_ACT_COPY, 0, 1, 1);
    hand_finish(&s);
    sim_fails(&s, &HAND, NULL, "pieces");
    rt_sched_free(&s);

    /* Same pieces, one side reduces and the other copies. */
    hand_begin(&s, 2, 1);
    rt_sched_step(&s, 0, 0, 1, RT_STEP_SEND, RT_ACT_COPY, 0, 0, 1);
    rt_sched_step(&s, 1, 0, 0, RT_STEP_RECV, RT_ACT_REDUCE, 0, 0, 1);
    hand_finish(&s);
    sim_fails(&s, &HAND, NULL, "reduce");
    rt_sched_free(&s);

    /* A receive that nobody sends. */
    hand_begin(&s, 3, 1);
    xfer(&s, 0, 0, 1, RT_ACT_COPY, 0);
    rt_sched_step(&s, 2, 0, 1, RT_STEP_RECV, RT_ACT_COPY, 0, 0, 1);
    hand_finish(&s);
    sim_fails(&s, &HAND, NULL, "matching send");
    rt_sched_free(&s);

    /* Rounds not assigned yet (a sequence for rt_sched_asap). */
    hand_begin(&s, 2, 1);
    xfer(&s, RT_ROUND_UNSET, 0, 1, RT_ACT_COPY, 0);
    hand_finish(&s);
    sim_fails(&s, &HAND, NULL, "rounds not assigned");
    rt_sched_free(&s);

    /* A round that decreases, and one beyond nrounds (headers edited by
       hand: the builder refuses both). */
    hand_begin(&s, 2, 1);
    xfer(&s, 0, 0, 1, RT_ACT_COPY, 0);
    xfer(&s, 1, 0, 1, RT_ACT_COPY, 0);
    hand_finish(&s);
    s.steps[s.step_start[1] + 1].round = 0;
    s.steps[s.step_start[1]].round = 1;
    sim_fails(&s, &HAND, NULL, "decrease");
    s.steps[s.step_start[1]].round = 0;
    s.steps[s.step_start[1] + 1].round = 1;
    s.nrounds = 1;
    sim_fails(&s, &HAND, NULL, "not in 0..0");
    rt_sched_free(&s);

    /* One rank's steps only; then bad costs and arrivals on a good one. */
    hand_begin(&s, 2, 1);
    xfer(&s, 0, 0, 1, RT_ACT_COPY, 0);
    hand_finish(&s);
    sim_fails(&s, &HAND, arr, "not finite");
    c.elem_bytes = 0;
    sim_fails(&s, &c, NULL, "elem_bytes");
    c = HAND;
    c.beta = -1;
    sim_fails(&s, &c, NULL, "cost model");
    rt_sched_keep_rank(&s, 1);
    sim_fails(&s, &HAND, NULL, "every rank");
    rt_sched_free(&s);
}
