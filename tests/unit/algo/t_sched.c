/*
 * t_sched.c - the schedule core: partitions, building, matching, the ASAP
 * scheduler, and the replay verifier.  The verifier is the oracle of every
 * generator test, so here it is held to catching each kind of broken
 * schedule, built by hand, not only to accepting good ones.
 */
#include <string.h>

#include "tests/tst.h"
#include "tests/test_list.h"
#include "runtime/algo/algo_int.h"


void t_sched_partitions(void)
{
    int64_t off[8];
    int64_t *segs;
    cm_err_t err;
    rt_algo_params_t p = { .nranks = 4, .count = 10 };

    /* EL (docs/algorithms.md), n = 10 into 4: [0,3) [3,6) [6,8) [8,10). */
    rt_part_el(10, 4, off);
    TST_EQ_INT(off[0], 0); TST_EQ_INT(off[1], 3); TST_EQ_INT(off[2], 6);
    TST_EQ_INT(off[3], 8); TST_EQ_INT(off[4], 10);
    /* n < k: the first n blocks get one element. */
    rt_part_el(2, 4, off);
    TST_EQ_INT(off[1], 1); TST_EQ_INT(off[2], 2); TST_EQ_INT(off[3], 2);
    TST_EQ_INT(off[4], 2);
    /* Fixed size 4 over 10: [0,4) [4,8) [8,10). */
    TST_EQ_INT(rt_part_fixed(10, 4, off), 3);
    TST_EQ_INT(off[2], 8); TST_EQ_INT(off[3], 10);
    TST_EQ_INT(rt_part_fixed(0, 4, off), 1);
    TST_EQ_INT(off[1], 0);
    TST_EQ_INT(rt_pof2_floor(1), 1); TST_EQ_INT(rt_pof2_floor(7), 4);
    TST_EQ_INT(rt_pof2_floor(8), 8); TST_EQ_INT(rt_pof2_floor(4095), 2048);

    p.nsegs = 3;
    TST_EQ_INT(rt_part_segments(&p, &segs, &err), 3);
    TST_EQ_INT(segs[1], 4); TST_EQ_INT(segs[2], 7); TST_EQ_INT(segs[3], 10);
    free(segs);
    p.nsegs = 0;
    p.segcount = 4;
    TST_EQ_INT(rt_part_segments(&p, &segs, &err), 3);
    free(segs);
    p.nsegs = 2;
    TST_EQ_INT(rt_part_segments(&p, &segs, &err), CM_ERR_INVALID);
    TST_TRUE(segs == NULL);
}

void t_sched_build_sort(void)
{
    rt_algo_params_t p = { .nranks = 3, .count = 6 };
    int64_t off[3] = { 0, 3, 6 };
    rt_sched_t s;
    cm_err_t err;
    const rt_step_t *st;
    size_t n;

    rt_sched_init(&s);
    TST_EQ_INT(rt_sched_begin(&s, "t", RT_COLL_ALLREDUCE, RT_PORT_B, &p, -1, 2,
                           off, &err), CM_OK);
    /* Interleaved ranks: finish groups them, each in append order. */
    TST_EQ_INT(rt_sched_xfer(&s, 0, 2, 0, RT_ACT_REDUCE, 0, 0, 1), CM_OK);
    TST_EQ_INT(rt_sched_xfer(&s, 1, 0, 1, RT_ACT_REDUCE, 0, 1, 1), CM_OK);
    TST_EQ_INT(rt_sched_xfer(&s, 0, 1, 0, RT_ACT_COPY, 0, 0, 2), CM_OK);
    TST_EQ_INT(rt_sched_finish(&s, &err), CM_ERR_INVALID);  /* rank 0: 1 then 0 */
    rt_sched_free(&s);

    rt_sched_init(&s);
    TST_EQ_INT(rt_sched_begin(&s, "t", RT_COLL_ALLREDUCE, RT_PORT_B, &p, -1, 2,
                           off, &err), CM_OK);
    TST_EQ_INT(rt_sched_xfer(&s, 0, 2, 0, RT_ACT_REDUCE, 0, 0, 1), CM_OK);
    TST_EQ_INT(rt_sched_xfer(&s, 1, 0, 1, RT_ACT_REDUCE, 0, 1, 1), CM_OK);
    TST_EQ_INT(rt_sched_finish(&s, &err), CM_OK);
    TST_EQ_INT(s.nrounds, 2);
    st = rt_sched_rank_steps(&s, 0, &n);
    TST_EQ_INT(n, 2);
    TST_EQ_INT(st[0].dir, RT_STEP_RECV); TST_EQ_INT(st[0].peer, 2);
    TST_EQ_INT(st[1].dir, RT_STEP_SEND); TST_EQ_INT(st[1].peer, 1);
    rt_sched_keep_rank(&s, 1);
    st = rt_sched_rank_steps(&s, 1, &n);
    TST_EQ_INT(n, 1);
    TST_EQ_INT(st[0].peer, 0);
    rt_sched_rank_steps(&s, 0, &n);
    TST_EQ_INT(n, 0);
    /* Steps out of range are refused. */
    TST_EQ_INT(rt_sched_step(&s, 1, 0, 1, RT_STEP_SEND, 0, 0, 0, 1),
            CM_ERR_INVALID);                               /* to itself */
    rt_sched_free(&s);
}

/* The ring of ring.c's header for P = 4, written out by hand from its table:
   reduce-scatter round k: r sends block (r-k) mod 4 to r+1; allgather round
   3+k: r sends block (r+1-k) mod 4. */
static void hand_ring4(rt_sched_t *s, int skip_round, int skip_src)
{
    rt_algo_params_t p = { .nranks = 4, .count = 10 };
    int64_t off[5] = { 0, 3, 6, 8, 10 };
    cm_err_t err;

    rt_sched_init(s);
    TST_EQ_INT(rt_sched_begin(s, "hand-ring", RT_COLL_ALLREDUCE, RT_PORT_B, &p,
                           -1, 4, off, &err), CM_OK);
    for (int k = 0; k < 6; k++)
        for (int r = 0; r < 4; r++) {
            int b = k < 3 ? (r - k + 8) % 4 : (r + 1 - (k - 3) + 8) % 4;

            if (k == skip_round && r == skip_src)
                continue;
            TST_EQ_INT(rt_sched_xfer(s, k, r, (r + 1) % 4,
                                  k < 3 ? RT_ACT_REDUCE : RT_ACT_COPY,
                                  k < 3 ? RT_STEP_MOVE : RT_STEP_FINAL, b, 1),
                    CM_OK);
        }
    TST_EQ_INT(rt_sched_finish(s, &err), CM_OK);
}

void t_sched_verify_ring(void)
{
    rt_sched_t s;
    cm_err_t err;

    hand_ring4(&s, -1, -1);
    TST_EQ_INT(s.nrounds, 6);
    TST_EQ_INT(rt_sched_verify(&s, &err), CM_OK);
    /* Sending right while receiving from the left breaks X and U. */
    s.port = RT_PORT_X;
    TST_EQ_INT(rt_sched_verify(&s, &err), CM_ERR_VERIFY);
    TST_TRUE(strstr(err.msg, "port model X") != NULL);
    s.port = RT_PORT_U;
    TST_EQ_INT(rt_sched_verify(&s, &err), CM_ERR_VERIFY);
    TST_TRUE(strstr(err.msg, "port model U") != NULL);
    rt_sched_free(&s);
    /* One rank's steps cannot be verified. */
    hand_ring4(&s, -1, -1);
    rt_sched_keep_rank(&s, 2);
    TST_EQ_INT(rt_sched_verify(&s, &err), CM_ERR_INVALID);
    rt_sched_free(&s);
}

void t_sched_verify_catches(void)
{
    rt_sched_t s;
    cm_err_t err;
    rt_algo_params_t p = { .nranks = 4, .count = 10 };
    int64_t off[5] = { 0, 3, 6, 8, 10 };

    /* A missing allgather step: rank 2 never gets one block. */
    hand_ring4(&s, 5, 1);
    TST_EQ_INT(rt_sched_verify(&s, &err), CM_ERR_VERIFY);
    TST_TRUE(strstr(err.msg, "at the end rank 2") != NULL);
    rt_sched_free(&s);
    /* A missing reduce step: the first allgather send is incomplete. */
    hand_ring4(&s, 1, 0);
    TST_EQ_INT(rt_sched_verify(&s, &err), CM_ERR_VERIFY);
    TST_TRUE(strstr(err.msg, "not complete") != NULL);
    rt_sched_free(&s);

    /* Counted twice: 0 -> 1 -> 2 and 0 -> 2 of the same piece. */
    rt_sched_init(&s);
    p.nranks = 3;
    off[1] = 10;
    TST_EQ_INT(rt_sched_begin(&s, "twice", RT_COLL_REDUCE, RT_PORT_B, &p, -1, 1,
                           off, &err), CM_OK);
    TST_EQ_INT(rt_sched_xfer(&s, 0, 0, 1, RT_ACT_REDUCE, 0, 0, 1), CM_OK);
    TST_EQ_INT(rt_sched_xfer(&s, 1, 1, 2, RT_ACT_REDUCE, 0, 0, 1), CM_OK);
    TST_EQ_INT(rt_sched_xfer(&s, 2, 0, 2, RT_ACT_REDUCE, 0, 0, 1), CM_OK);
    TST_EQ_INT(rt_sched_finish(&s, &err), CM_OK);
    s.root = 2;
    TST_EQ_INT(rt_sched_verify(&s, &err), CM_ERR_VERIFY);
    TST_TRUE(strstr(err.msg, "counted twice") != NULL);
    TST_TRUE(strstr(err.msg, "rank 0") != NULL);
    rt_sched_free(&s);

    /* MOVE: once given away, a second send carries nothing, so the root
       misses rank 0 although the messages look the same. */
    rt_sched_init(&s);
    TST_EQ_INT(rt_sched_begin(&s, "move", RT_COLL_REDUCE, RT_PORT_B, &p, -1, 1,
                           off, &err), CM_OK);
    TST_EQ_INT(rt_sched_xfer(&s, 0, 0, 1, RT_ACT_COPY, RT_STEP_MOVE, 0, 1), CM_OK);
    TST_EQ_INT(rt_sched_xfer(&s, 1, 1, 2, RT_ACT_REDUCE, RT_STEP_MOVE, 0, 1), CM_OK);
    TST_EQ_INT(rt_sched_finish(&s, &err), CM_OK);
    s.root = 2;
    TST_EQ_INT(rt_sched_verify(&s, &err), CM_ERR_VERIFY);
    TST_TRUE(strstr(err.msg, "lacks the contribution of rank 1") != NULL);
    rt_sched_free(&s);

    /* Disagreeing ends: the receive expects another piece. */
    rt_sched_init(&s);
    off[1] = 5;
    off[2] = 10;
    TST_EQ_INT(rt_sched_begin(&s, "pieces", RT_COLL_ALLREDUCE, RT_PORT_B, &p, -1,
                           2, off, &err), CM_OK);
    TST_EQ_INT(rt_sched_step(&s, 0, 0, 1, RT_STEP_SEND, RT_ACT_REDUCE, 0, 0, 1),
            CM_OK);
    TST_EQ_INT(rt_sched_step(&s, 1, 0, 0, RT_STEP_RECV, RT_ACT_REDUCE, 0, 1, 1),
            CM_OK);
    TST_EQ_INT(rt_sched_finish(&s, &err), CM_OK);
    TST_EQ_INT(rt_sched_verify(&s, &err), CM_ERR_VERIFY);
    TST_TRUE(strstr(err.msg, "expects round 0, pieces 1+1") != NULL);
    rt_sched_free(&s);

    /* A send nobody receives. */
    rt_sched_init(&s);
    TST_EQ_INT(rt_sched_begin(&s, "lost", RT_COLL_ALLREDUCE, RT_PORT_B, &p, -1,
                           2, off, &err), CM_OK);
    TST_EQ_INT(rt_sched_step(&s, 2, 0, 1, RT_STEP_SEND, RT_ACT_REDUCE, 0, 0, 1),
            CM_OK);
    TST_EQ_INT(rt_sched_finish(&s, &err), CM_OK);
    TST_EQ_INT(rt_sched_verify(&s, &err), CM_ERR_VERIFY);
    TST_TRUE(strstr(err.msg, "rank 2 sends to rank 1") != NULL);
    rt_sched_free(&s);
}

void t_sched_verify_deadlock(void)
{
    rt_algo_params_t p = { .nranks = 2, .count = 4 };
    int64_t off[2] = { 0, 4 };
    rt_sched_t s;
    cm_err_t err;

    /* Both ranks receive first and send in the next round: with
       rendezvous neither receive is ever met. */
    rt_sched_init(&s);
    TST_EQ_INT(rt_sched_begin(&s, "cross", RT_COLL_ALLREDUCE, RT_PORT_U, &p, -1,
                           1, off, &err), CM_OK);
    for (int r = 0; r < 2; r++) {
        TST_EQ_INT(rt_sched_step(&s, r, 0, 1 - r, RT_STEP_RECV, RT_ACT_REDUCE,
                              0, 0, 1), CM_OK);
        TST_EQ_INT(rt_sched_step(&s, r, 1, 1 - r, RT_STEP_SEND, RT_ACT_REDUCE,
                              0, 0, 1), CM_OK);
    }
    TST_EQ_INT(rt_sched_finish(&s, &err), CM_OK);
    TST_EQ_INT(rt_sched_verify(&s, &err), CM_ERR_VERIFY);
    TST_TRUE(strstr(err.msg, "deadlock: 2 of 2 ranks blocked") != NULL);
    rt_sched_free(&s);

    /* The same exchange posted in one round (a sendrecv) is fine. */
    rt_sched_init(&s);
    TST_EQ_INT(rt_sched_begin(&s, "exchange", RT_COLL_ALLREDUCE, RT_PORT_X, &p,
                           -1, 1, off, &err), CM_OK);
    for (int r = 0; r < 2; r++) {
        TST_EQ_INT(rt_sched_step(&s, r, 0, 1 - r, RT_STEP_RECV, RT_ACT_REDUCE,
                              0, 0, 1), CM_OK);
        TST_EQ_INT(rt_sched_step(&s, r, 0, 1 - r, RT_STEP_SEND, RT_ACT_REDUCE,
                              0, 0, 1), CM_OK);
    }
    TST_EQ_INT(rt_sched_finish(&s, &err), CM_OK);
    TST_EQ_INT(rt_sched_verify(&s, &err), CM_OK);
    rt_sched_free(&s);
}

/* Chain reduce, P = 5, root 2, q = 3 (chain.c's header), written as in-order
   programs by hand; the expected rounds are the table's U and B rows. */
static void chain_programs(rt_sched_t *s)
{
    static const int order[5] = { 1, 0, 4, 3, 2 };   /* tail .. root */
    rt_algo_params_t p = { .nranks = 5, .count = 3, .root = 2 };
    int64_t off[4] = { 0, 1, 2, 3 };
    cm_err_t err;

    rt_sched_init(s);
    TST_EQ_INT(rt_sched_begin(s, "chain", RT_COLL_REDUCE, RT_PORT_U, &p, -1, 3,
                           off, &err), CM_OK);
    for (int k = 0; k < 5; k++) {
        int r = order[k];

        for (int j = 0; j < 3; j++) {
            if (k > 0)
                TST_EQ_INT(rt_sched_step(s, r, RT_ROUND_UNSET, order[k - 1],
                                      RT_STEP_RECV, RT_ACT_REDUCE,
                                      RT_STEP_MOVE, j, 1), CM_OK);
            if (k < 4)
                TST_EQ_INT(rt_sched_step(s, r, RT_ROUND_UNSET, order[k + 1],
                                      RT_STEP_SEND, RT_ACT_REDUCE,
                                      RT_STEP_MOVE, j, 1), CM_OK);
        }
    }
    TST_EQ_INT(rt_sched_finish(s, &err), CM_OK);
}

static int send_round(const rt_sched_t *s, int src, int seg)
{
    size_t n;
    const rt_step_t *st = rt_sched_rank_steps(s, src, &n);

    for (size_t i = 0; i < n; i++)
        if (st[i].dir == RT_STEP_SEND && st[i].piece == seg)
            return st[i].round;
    return -1;
}

void t_sched_asap_chain(void)
{
    /* U: 1->0 s0 @0, 0->4 s0 @1, 1->0 s1 @2, 4->3 s0 @2, 3->2 s0 @3, ...
       B: 1->0 s0 @0, s1 @1, s2 @2; 0->4 @1,2,3; 4->3 @2,3,4; 3->2 @3,4,5. */
    static const int chain[4] = { 1, 0, 4, 3 };
    static const int u[4][3] = { {0, 2, 4}, {1, 3, 5}, {2, 4, 6}, {3, 5, 7} };
    static const int b[4][3] = { {0, 1, 2}, {1, 2, 3}, {2, 3, 4}, {3, 4, 5} };
    rt_sched_t s;
    cm_err_t err;

    chain_programs(&s);
    TST_EQ_INT(rt_sched_asap(&s, RT_PORT_U, &err), CM_OK);
    TST_EQ_INT(s.nrounds, 8);
    for (int k = 0; k < 4; k++)
        for (int j = 0; j < 3; j++)
            TST_EQ_INT(send_round(&s, chain[k], j), u[k][j]);
    TST_EQ_INT(rt_sched_verify(&s, &err), CM_OK);
    rt_sched_free(&s);

    chain_programs(&s);
    TST_EQ_INT(rt_sched_asap(&s, RT_PORT_B, &err), CM_OK);
    TST_EQ_INT(s.nrounds, 6);
    for (int k = 0; k < 4; k++)
        for (int j = 0; j < 3; j++)
            TST_EQ_INT(send_round(&s, chain[k], j), b[k][j]);
    TST_EQ_INT(rt_sched_verify(&s, &err), CM_OK);
    rt_sched_free(&s);

    /* X has no ASAP rule. */
    chain_programs(&s);
    TST_EQ_INT(rt_sched_asap(&s, RT_PORT_X, &err), CM_ERR_UNSUPPORTED);
    rt_sched_free(&s);

    /* Programs that wait on each other: both ranks receive first. */
    {
        rt_algo_params_t p = { .nranks = 2, .count = 1 };
        int64_t off[2] = { 0, 1 };

        rt_sched_init(&s);
        TST_EQ_INT(rt_sched_begin(&s, "stuck", RT_COLL_ALLREDUCE, RT_PORT_U, &p,
                               -1, 1, off, &err), CM_OK);
        for (int r = 0; r < 2; r++) {
            TST_EQ_INT(rt_sched_step(&s, r, RT_ROUND_UNSET, 1 - r, RT_STEP_RECV,
                                  RT_ACT_REDUCE, 0, 0, 1), CM_OK);
            TST_EQ_INT(rt_sched_step(&s, r, RT_ROUND_UNSET, 1 - r, RT_STEP_SEND,
                                  RT_ACT_REDUCE, 0, 0, 1), CM_OK);
        }
        TST_EQ_INT(rt_sched_finish(&s, &err), CM_OK);
        TST_EQ_INT(rt_sched_asap(&s, RT_PORT_U, &err), CM_ERR_INVALID);
        TST_TRUE(strstr(err.msg, "deadlock") != NULL);
        rt_sched_free(&s);
    }
}
