/*
 * t_nap.c - unit tests of the NAP node-aware allreduce (runtime/algo/nap.c).
 *
 * Provenance of the expectations:
 *  - inter-node pairs: the two worked examples of docs/algorithms.md
 *    (nap: N=4 ppn=2 steps [2,2]; N=6 ppn=3 steps [3,2]), transcribed
 *    by hand; an independent Python implementation prints the same pairs;
 *  - one node (P = ppn): the intra-node allreduce is recursive doubling with
 *    fold, so it must be rd's worked examples P=5, 6, 7 (docs/algorithms.md);
 *  - step sizes and fold: docs/algorithms.md's cases (the reference default
 *    [ppn, .., ppn, s] where it is right) and, for the node counts the
 *    reference gets wrong, the fold rule worked out by hand below;
 *  - full schedules and round counts: worked out by hand from the rules in
 *    nap.c's header (the P=4 and P=6 examples there).
 * Everything else is checked by the replay verifier over sweeps.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tests/tst.h"
#include "tests/test_list.h"
#include "runtime/algo/algo_int.h"


enum { RED = RT_ACT_REDUCE, CPY = RT_ACT_COPY };
#define MV RT_STEP_MOVE
#define FIN RT_STEP_FINAL

/* One transfer: round, sender, receiver, action, flags. */
typedef struct xf {
    int32_t round, src, dst;
    int act;
    unsigned flags;
} xf_t;

static cm_status_t gen(rt_sched_t *s, int32_t nranks, int32_t ppn,
                       const int32_t *steps, int32_t nsteps, int64_t count,
                       int32_t rank, cm_err_t *err)
{
    rt_algo_params_t p;

    memset(&p, 0, sizeof p);
    p.nranks = nranks;
    p.ppn = ppn;
    p.count = count;
    p.nap_steps = steps;
    p.nap_nsteps = nsteps;
    rt_sched_init(s);
    cm_err_clear(err);
    return rt_algo_nap(s, &p, rank, err);
}

/* Generates all ranks and insists that it works and verifies. */
static void gen_ok(rt_sched_t *s, int32_t nranks, int32_t ppn,
                   const int32_t *steps, int32_t nsteps, int64_t count)
{
    cm_err_t err;
    cm_status_t st = gen(s, nranks, ppn, steps, nsteps, count, -1, &err);

    if (st == CM_OK)
        st = rt_sched_verify(s, &err);
    if (st != CM_OK)
        TST_FAIL("nap P=%d ppn=%d count=%lld: %s", nranks, ppn,
                 (long long)count, err.msg);
    TST_EQ_INT(s->port, RT_PORT_X);
    TST_EQ_INT(s->npieces, 1);
    TST_EQ_INT(s->piece_off[0], 0);
    TST_EQ_INT(s->piece_off[1], count);
}

/* Does `src` send to `dst` in `round` with this action (and flags, if
   flags >= 0)? */
static int has_send(const rt_sched_t *s, int32_t round, int32_t src,
                    int32_t dst, int act, int flags)
{
    size_t n;
    const rt_step_t *t = rt_sched_rank_steps(s, src, &n);

    for (size_t i = 0; i < n; i++)
        if (t[i].dir == RT_STEP_SEND && t[i].round == round &&
            t[i].peer == dst && t[i].act == act &&
            (flags < 0 || t[i].flags == (unsigned)flags))
            return 1;
    return 0;
}

/* Number of sends in `round`; with ppn > 0, inter-node exchanges only
   (peer on another node, another local rank: not a fold). */
static size_t count_sends(const rt_sched_t *s, int32_t round, int32_t ppn)
{
    size_t c = 0;

    for (int32_t r = 0; r < s->nranks; r++) {
        size_t n;
        const rt_step_t *t = rt_sched_rank_steps(s, r, &n);

        for (size_t i = 0; i < n; i++)
            if (t[i].dir == RT_STEP_SEND && t[i].round == round &&
                (ppn == 0 || (t[i].peer / ppn != r / ppn &&
                              t[i].peer % ppn != r % ppn)))
                c++;
    }
    return c;
}

/* The rounds holding inter-node exchanges, ascending: one per NAP step. */
static int32_t exchange_rounds(const rt_sched_t *s, int32_t ppn,
                               int32_t *rounds, int32_t max)
{
    int32_t k = 0;

    for (int32_t rd = 0; rd < s->nrounds; rd++)
        if (count_sends(s, rd, ppn) > 0) {
            TST_TRUE(k < max);
            rounds[k++] = rd;
        }
    return k;
}

/* The sends of `round` are exactly those of xf[0..n) (each listed once);
   gen_ok's replay has checked that every send has its receive. */
static void expect_round(const rt_sched_t *s, int32_t round, const xf_t *xf,
                         size_t n)
{
    size_t want = 0;

    for (size_t i = 0; i < n; i++) {
        if (xf[i].round != round)
            continue;
        want++;
        if (!has_send(s, round, xf[i].src, xf[i].dst, xf[i].act,
                      (int)xf[i].flags))
            TST_FAIL("round %d: missing %d>%d act %d flags %u", round,
                     xf[i].src, xf[i].dst, xf[i].act, xf[i].flags);
    }
    TST_EQ_UINT(count_sends(s, round, 0), want);
}

static void expect_sched(const rt_sched_t *s, int32_t nrounds, const xf_t *xf,
                         size_t n)
{
    TST_EQ_INT(s->nrounds, nrounds);
    for (int32_t rd = 0; rd < nrounds; rd++)
        expect_round(s, rd, xf, n);
}

/* Round `round` holds exactly the inter-node exchanges pairs[0..n) (both
   directions, copy, no flags). */
static void expect_pairs(const rt_sched_t *s, int32_t ppn, int32_t round,
                         const int32_t (*pairs)[2], size_t n)
{
    for (size_t i = 0; i < n; i++) {
        TST_TRUE(has_send(s, round, pairs[i][0], pairs[i][1], CPY, 0));
        TST_TRUE(has_send(s, round, pairs[i][1], pairs[i][0], CPY, 0));
    }
    TST_EQ_UINT(count_sends(s, round, ppn), 2 * n);
}

/* ---- Worked examples --------------------------------------------------- */

void t_nap_example_4x2(void)
{
    /* docs/algorithms.md, nap: N=4, ppn=2, steps [2,2]. */
    static const int32_t step0[][2] = { { 1, 2 }, { 5, 6 } };
    static const int32_t step1[][2] = { { 1, 4 }, { 3, 6 } };
    static const int32_t steps[] = { 2, 2 };
    rt_sched_t s;
    int32_t rounds[8];

    for (int explicit_steps = 0; explicit_steps < 2; explicit_steps++) {
        /* The reference default for 4/2 is [2,2] too. */
        gen_ok(&s, 8, 2, explicit_steps ? steps : NULL,
               explicit_steps ? 2 : 0, 5);
        TST_EQ_INT(exchange_rounds(&s, 2, rounds, 8), 2);
        expect_pairs(&s, 2, rounds[0], step0, 2);
        expect_pairs(&s, 2, rounds[1], step1, 2);
        rt_sched_free(&s);
    }
}

void t_nap_example_6x3(void)
{
    /* docs/algorithms.md, nap: N=6, ppn=3, steps [3,2]. */
    static const int32_t step0[][2] = { { 1, 3 }, { 2, 6 }, { 5, 7 },
                                        { 10, 12 }, { 11, 15 }, { 14, 16 } };
    static const int32_t step1[][2] = { { 1, 9 }, { 4, 12 }, { 7, 15 } };
    static const int32_t steps[] = { 3, 2 };
    rt_sched_t s;
    int32_t rounds[8];

    for (int explicit_steps = 0; explicit_steps < 2; explicit_steps++) {
        gen_ok(&s, 18, 3, explicit_steps ? steps : NULL,
               explicit_steps ? 2 : 0, 5);
        TST_EQ_INT(exchange_rounds(&s, 3, rounds, 8), 2);
        expect_pairs(&s, 3, rounds[0], step0, 6);
        expect_pairs(&s, 3, rounds[1], step1, 3);
        rt_sched_free(&s);
    }
}

void t_nap_one_node(void)
{
    /* P = ppn: rd's worked examples, "a<>b" both reduce; the fold
       send is MOVE and the unfold FINAL (the flags rdouble.c uses too). */
    static const xf_t e5[] = {
        { 0, 0, 1, RED, MV },
        { 1, 1, 2, RED, 0 }, { 1, 2, 1, RED, 0 },
        { 1, 3, 4, RED, 0 }, { 1, 4, 3, RED, 0 },
        { 2, 1, 3, RED, 0 }, { 2, 3, 1, RED, 0 },
        { 2, 2, 4, RED, 0 }, { 2, 4, 2, RED, 0 },
        { 3, 1, 0, CPY, FIN } };
    static const xf_t e6[] = {
        { 0, 0, 1, RED, MV }, { 0, 2, 3, RED, MV },
        { 1, 1, 3, RED, 0 }, { 1, 3, 1, RED, 0 },
        { 1, 4, 5, RED, 0 }, { 1, 5, 4, RED, 0 },
        { 2, 1, 4, RED, 0 }, { 2, 4, 1, RED, 0 },
        { 2, 3, 5, RED, 0 }, { 2, 5, 3, RED, 0 },
        { 3, 1, 0, CPY, FIN }, { 3, 3, 2, CPY, FIN } };
    static const xf_t e7[] = {
        { 0, 0, 1, RED, MV }, { 0, 2, 3, RED, MV }, { 0, 4, 5, RED, MV },
        { 1, 1, 3, RED, 0 }, { 1, 3, 1, RED, 0 },
        { 1, 5, 6, RED, 0 }, { 1, 6, 5, RED, 0 },
        { 2, 1, 5, RED, 0 }, { 2, 5, 1, RED, 0 },
        { 2, 3, 6, RED, 0 }, { 2, 6, 3, RED, 0 },
        { 3, 1, 0, CPY, FIN }, { 3, 3, 2, CPY, FIN }, { 3, 5, 4, CPY, FIN } };
    static const xf_t e4[] = {
        { 0, 0, 1, RED, 0 }, { 0, 1, 0, RED, 0 },
        { 0, 2, 3, RED, 0 }, { 0, 3, 2, RED, 0 },
        { 1, 0, 2, RED, 0 }, { 1, 2, 0, RED, 0 },
        { 1, 1, 3, RED, 0 }, { 1, 3, 1, RED, 0 } };
    rt_sched_t s;

    gen_ok(&s, 5, 5, NULL, 0, 3);
    expect_sched(&s, 4, e5, sizeof e5 / sizeof *e5);
    rt_sched_free(&s);
    gen_ok(&s, 6, 6, NULL, 0, 3);
    expect_sched(&s, 4, e6, sizeof e6 / sizeof *e6);
    rt_sched_free(&s);
    gen_ok(&s, 7, 7, NULL, 0, 3);
    expect_sched(&s, 4, e7, sizeof e7 / sizeof *e7);
    rt_sched_free(&s);
    /* Plain recursive doubling for a power of two (2.1 without fold). */
    gen_ok(&s, 4, 4, NULL, 0, 3);
    expect_sched(&s, 2, e4, sizeof e4 / sizeof *e4);
    rt_sched_free(&s);
    /* ppn = 2, one node: one exchange. */
    gen_ok(&s, 2, 2, NULL, 0, 0);
    TST_EQ_INT(s.nrounds, 1);
    TST_TRUE(has_send(&s, 0, 0, 1, RED, 0));
    TST_TRUE(has_send(&s, 0, 1, 0, RED, 0));
    rt_sched_free(&s);
}

void t_nap_header_examples(void)
{
    /* nap.c's header, P=4 ppn=2: intra, step 0 (1<>2 copy), combine. */
    static const xf_t e4[] = {
        { 0, 0, 1, RED, 0 }, { 0, 1, 0, RED, 0 },
        { 0, 2, 3, RED, 0 }, { 0, 3, 2, RED, 0 },
        { 1, 1, 2, CPY, 0 }, { 1, 2, 1, CPY, 0 },
        { 2, 0, 1, RED, 0 }, { 2, 1, 0, RED, 0 },
        { 2, 2, 3, RED, 0 }, { 2, 3, 2, RED, 0 } };
    /* P=6 ppn=2, N=3 folds to M=2: node 2 folds into node 0 and gets the
       result back. */
    static const xf_t e6[] = {
        { 0, 0, 1, RED, 0 }, { 0, 1, 0, RED, 0 },
        { 0, 2, 3, RED, 0 }, { 0, 3, 2, RED, 0 },
        { 0, 4, 5, RED, 0 }, { 0, 5, 4, RED, 0 },
        { 1, 4, 0, RED, MV }, { 1, 5, 1, RED, MV },
        { 2, 1, 2, CPY, 0 }, { 2, 2, 1, CPY, 0 },
        { 3, 0, 1, RED, 0 }, { 3, 1, 0, RED, 0 },
        { 3, 2, 3, RED, 0 }, { 3, 3, 2, RED, 0 },
        { 4, 0, 4, CPY, FIN }, { 4, 1, 5, CPY, FIN } };
    /* P=8 ppn=4, N=2, steps [2]: node 0 m=0, so local 1 pairs with node 1
       local 0 (rank 4); local ranks 2, 3 are idle and get the result by
       copy from local 0, 1 (broadcast index = local rank, q = 2). */
    static const xf_t e8[] = {
        { 0, 0, 1, RED, 0 }, { 0, 1, 0, RED, 0 },
        { 0, 2, 3, RED, 0 }, { 0, 3, 2, RED, 0 },
        { 0, 4, 5, RED, 0 }, { 0, 5, 4, RED, 0 },
        { 0, 6, 7, RED, 0 }, { 0, 7, 6, RED, 0 },
        { 1, 0, 2, RED, 0 }, { 1, 2, 0, RED, 0 },
        { 1, 1, 3, RED, 0 }, { 1, 3, 1, RED, 0 },
        { 1, 4, 6, RED, 0 }, { 1, 6, 4, RED, 0 },
        { 1, 5, 7, RED, 0 }, { 1, 7, 5, RED, 0 },
        { 2, 1, 4, CPY, 0 }, { 2, 4, 1, CPY, 0 },
        { 3, 0, 1, RED, 0 }, { 3, 1, 0, RED, 0 },
        { 3, 4, 5, RED, 0 }, { 3, 5, 4, RED, 0 },
        { 4, 0, 2, CPY, FIN }, { 4, 1, 3, CPY, FIN },
        { 4, 4, 6, CPY, FIN }, { 4, 5, 7, CPY, FIN } };
    /* P=12 ppn=4, N=3, steps [3]: node n has m = n; pairs l of node m <->
       m of node l: 1<>4, 2<>8, 6<>9.  Combine over 3 active local ranks:
       fold l0>l1, exchange l1<>l2 (survivors 0, 1 of the broadcast order),
       then l1>l0 (folded, index 2) and l2>l3 (idle, index 3). */
    static const xf_t e12[] = {
        { 0, 0, 1, RED, 0 }, { 0, 1, 0, RED, 0 },
        { 0, 2, 3, RED, 0 }, { 0, 3, 2, RED, 0 },
        { 0, 4, 5, RED, 0 }, { 0, 5, 4, RED, 0 },
        { 0, 6, 7, RED, 0 }, { 0, 7, 6, RED, 0 },
        { 0, 8, 9, RED, 0 }, { 0, 9, 8, RED, 0 },
        { 0, 10, 11, RED, 0 }, { 0, 11, 10, RED, 0 },
        { 1, 0, 2, RED, 0 }, { 1, 2, 0, RED, 0 },
        { 1, 1, 3, RED, 0 }, { 1, 3, 1, RED, 0 },
        { 1, 4, 6, RED, 0 }, { 1, 6, 4, RED, 0 },
        { 1, 5, 7, RED, 0 }, { 1, 7, 5, RED, 0 },
        { 1, 8, 10, RED, 0 }, { 1, 10, 8, RED, 0 },
        { 1, 9, 11, RED, 0 }, { 1, 11, 9, RED, 0 },
        { 2, 1, 4, CPY, 0 }, { 2, 4, 1, CPY, 0 },
        { 2, 2, 8, CPY, 0 }, { 2, 8, 2, CPY, 0 },
        { 2, 6, 9, CPY, 0 }, { 2, 9, 6, CPY, 0 },
        { 3, 0, 1, RED, MV }, { 3, 4, 5, RED, MV }, { 3, 8, 9, RED, MV },
        { 4, 1, 2, RED, 0 }, { 4, 2, 1, RED, 0 },
        { 4, 5, 6, RED, 0 }, { 4, 6, 5, RED, 0 },
        { 4, 9, 10, RED, 0 }, { 4, 10, 9, RED, 0 },
        { 5, 1, 0, CPY, FIN }, { 5, 2, 3, CPY, FIN },
        { 5, 5, 4, CPY, FIN }, { 5, 6, 7, CPY, FIN },
        { 5, 9, 8, CPY, FIN }, { 5, 10, 11, CPY, FIN } };
    rt_sched_t s;

    gen_ok(&s, 4, 2, NULL, 0, 10);
    expect_sched(&s, 3, e4, sizeof e4 / sizeof *e4);
    rt_sched_free(&s);
    gen_ok(&s, 6, 2, NULL, 0, 10);
    expect_sched(&s, 5, e6, sizeof e6 / sizeof *e6);
    rt_sched_free(&s);
    gen_ok(&s, 8, 4, NULL, 0, 10);
    expect_sched(&s, 5, e8, sizeof e8 / sizeof *e8);
    rt_sched_free(&s);
    gen_ok(&s, 12, 4, NULL, 0, 10);
    expect_sched(&s, 6, e12, sizeof e12 / sizeof *e12);
    rt_sched_free(&s);
}

/* ---- Step sizes and fold ---------------------------------------------- */

typedef struct plan_case {
    int32_t nodes, ppn;
    int32_t nfold;           /* M */
    int32_t nsteps;
    int32_t steps[4];
} plan_case_t;

/*
 * What a schedule says about its plan: the extra nodes (those whose ranks
 * send inter-node to the same local rank, reduce) give M; step k's size is
 * 1 + the number of node 0's local ranks in its exchange (node 0 is subgroup
 * 0 of every group, so its local ranks 1..s_k-1 are the active ones).
 */
static void expect_plan(const rt_sched_t *s, const plan_case_t *c)
{
    const int32_t ppn = c->ppn;
    int32_t rounds[16], k, extra = 0;

    for (int32_t n = 0; n < c->nodes; n++) {
        size_t cnt;
        const rt_step_t *t = rt_sched_rank_steps(s, n * ppn, &cnt);
        int folds = 0;

        for (size_t i = 0; i < cnt; i++)
            if (t[i].dir == RT_STEP_SEND && t[i].act == RED &&
                t[i].peer / ppn != n) {
                TST_EQ_INT(t[i].peer, (n - c->nfold) * ppn);
                folds++;
            }
        extra += folds;
        TST_EQ_INT(folds, n >= c->nfold ? 1 : 0);
    }
    TST_EQ_INT(c->nodes - extra, c->nfold);
    k = exchange_rounds(s, ppn, rounds, 16);
    TST_EQ_INT(k, c->nsteps);
    for (int32_t j = 0; j < k; j++) {
        int32_t active = 0;

        for (int32_t l = 1; l < ppn; l++)
            for (int32_t n = 1; n < c->nodes; n++)
                active += has_send(s, rounds[j], l, n * ppn, CPY, 0);
        TST_EQ_INT(1 + active, c->steps[j]);
    }
}

void t_nap_default_steps(void)
{
    /*
     * The first eight: docs/algorithms.md's "right" cases, whose default
     * [ppn, .., ppn, s] the reference computes right.  The rest by hand:
     * M is the largest count <= N whose prime factors are <= ppn, factored
     * by the largest divisor <= ppn first.
     *   20/4: 20 = 4*5 (5 > 4), 19 prime, 18 = 3*3*2 -> M 18, [3,3,2]
     *   6/4:  6 = 3*2 -> no fold, [3,2] (the reference's [4] is wrong)
     *   7/2:  7, 6 = 2*3, 5 fail; 4 -> [2,2]
     *   5/4:  4 -> [4]
     *   24/4: 24 = 4*3*2 -> no fold, [4,3,2] (the reference's [4,4] is wrong)
     *   11/3: 11, 10 = 2*5 fail; 9 -> [3,3]
     *   13/2: 8 -> [2,2,2];  14/4: 14 = 2*7, 13 fail; 12 -> [4,3]
     *   72/8: 72 = 8*9, 9 = 3*3 -> [8,3,3]
     * The fewest steps, largest first (not greedy by the largest divisor):
     *   216/8: 216 > 8^2, so 3 steps; 8 leaves 27, not 2 parts <= 8; 7
     *     does not divide; 6 leaves 36 = 6*6 -> [6,6,6] (greedy: [8,3,3,3])
     *   900/12: 900 > 12^2, so 3; 12 leaves 75 = 3*5*5, not 2 parts <= 12;
     *     11 does not divide; 10 leaves 90 = 10*9 -> [10,10,9]
     *   1/4:  one node, no steps
     */
    static const plan_case_t cases[] = {
        { 4, 2, 4, 2, { 2, 2 } },   { 6, 3, 6, 2, { 3, 2 } },
        { 8, 4, 8, 2, { 4, 2 } },   { 9, 3, 9, 2, { 3, 3 } },
        { 12, 4, 12, 2, { 4, 3 } }, { 16, 4, 16, 2, { 4, 4 } },
        { 2, 4, 2, 1, { 2 } },      { 3, 4, 3, 1, { 3 } },
        { 20, 4, 18, 3, { 3, 3, 2 } }, { 6, 4, 6, 2, { 3, 2 } },
        { 7, 2, 4, 2, { 2, 2 } },   { 5, 4, 4, 1, { 4 } },
        { 24, 4, 24, 3, { 4, 3, 2 } }, { 11, 3, 9, 2, { 3, 3 } },
        { 13, 2, 8, 3, { 2, 2, 2 } }, { 14, 4, 12, 2, { 4, 3 } },
        { 72, 8, 72, 3, { 8, 3, 3 } }, { 216, 8, 216, 3, { 6, 6, 6 } },
        { 900, 12, 900, 3, { 10, 10, 9 } }, { 1, 4, 1, 0, { 0 } } };
    rt_sched_t s;

    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        gen_ok(&s, cases[i].nodes * cases[i].ppn, cases[i].ppn, NULL, 0, 4);
        expect_plan(&s, &cases[i]);
        rt_sched_free(&s);
    }
}

void t_nap_explicit_steps(void)
{
    /* Product N (no fold) or M (fold), in the order given. */
    static const plan_case_t cases[] = {
        { 6, 4, 6, 2, { 2, 3 } },     { 12, 4, 12, 2, { 3, 4 } },
        { 20, 4, 18, 3, { 2, 3, 3 } }, { 20, 4, 18, 3, { 3, 2, 3 } },
        { 7, 2, 4, 2, { 2, 2 } },     { 16, 4, 16, 4, { 2, 2, 2, 2 } },
        { 5, 4, 4, 2, { 2, 2 } } };
    rt_sched_t s;
    cm_err_t err;

    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        gen_ok(&s, cases[i].nodes * cases[i].ppn, cases[i].ppn,
               cases[i].steps, cases[i].nsteps, 4);
        expect_plan(&s, &cases[i]);
        rt_sched_free(&s);
    }
    /* One node: an empty list is the only one that multiplies to 1. */
    TST_EQ_STATUS(gen(&s, 4, 4, cases[0].steps, 0, 4, -1, &err), CM_OK);
    rt_sched_free(&s);
}

void t_nap_round_counts(void)
{
    /*
     * By hand from nap.c: intra = [ppn not a power of two] + log2(q) +
     * ceil(log2(ppn/q)); a step = 1 + combine; a fold adds 2.
     * Powers of two match the reference, log2(ppn) + K (1 + log2(ppn)):
     *   8/2 (N 4): 1 + 2*2 = 5;  64/4: 2 + 2*3 = 8;  4096/16: 4 + 2*5 = 14;
     *   4096/64: 6 + 7 = 13;  8/4 (N 2, [2]): 2 + 1 + 1 + 1 = 5.
     * The others:
     *   18/3 [3,2]: intra 1+1+1 = 3; step 0 (T = 3) 1+3; step 1 (s 2,
     *     T 3) 1 + 1 + 1: 10.
     *   14/2 (N 7 -> 4): 1 + fold 1 + 2*2 + unfold 1 = 7.
     *   20/4 (N 5 -> 4, [4]): 2 + 1 + 3 + 1 = 7.
     *   80/4 (N 20 -> 18, [3,3,2]): 2 + 1 + (1+3) + (1+3) + (1+2) + 1 = 15.
     *   12/4 ([3]): 2 + 1 + (1 + 1 + 1) = 6.
     *   24/8 ([3]): 3 + 1 + (1 + 1 + 2) = 8 (the reference would take 7).
     *   P = ppn = 5, 8: 4, 3 (recursive doubling with fold).
     *   576/8 (N 72, [8,3,3]): 3 + (1+3) + (1 + 1+1+1, T = 3) +
     *     (1 + 1+1+2, T = 8): 16; the reference would take 3 + 3*4 = 15.
     * Explicit steps, where only ranks < max(s_k, s_{k+1}) need step k's
     * sum (T), not all ppn:
     *   16/4 [2,2]: 2 + (1 + 1 + 0, T = 2) + (1 + 1 + 1, T = 4): 7.
     *   36/4 [3,3]: 2 + (1 + 1+1+1, T = 3: the folded rank) +
     *     (1 + 1+1+1, T = 4): 10.
     */
    static const int32_t cases[][3] = {
        { 8, 2, 5 }, { 64, 4, 8 }, { 4096, 16, 14 }, { 4096, 64, 13 },
        { 8, 4, 5 }, { 18, 3, 10 }, { 14, 2, 7 }, { 20, 4, 7 },
        { 80, 4, 15 }, { 12, 4, 6 }, { 24, 8, 8 }, { 5, 5, 4 }, { 8, 8, 3 },
        { 576, 8, 16 } };
    static const int32_t s22[] = { 2, 2 }, s33[] = { 3, 3 };
    rt_sched_t s;
    cm_err_t err;

    TST_EQ_STATUS(gen(&s, 16, 4, s22, 2, 1, -1, &err), CM_OK);
    TST_EQ_INT(s.nrounds, 7);
    rt_sched_free(&s);
    TST_EQ_STATUS(gen(&s, 36, 4, s33, 2, 1, -1, &err), CM_OK);
    TST_EQ_INT(s.nrounds, 10);
    rt_sched_free(&s);

    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        TST_EQ_STATUS(gen(&s, cases[i][0], cases[i][1], NULL, 0, 1, -1, &err),
                      CM_OK);
        if (s.nrounds != cases[i][2])
            TST_FAIL("P=%d ppn=%d: %d rounds, want %d", cases[i][0],
                     cases[i][1], s.nrounds, cases[i][2]);
        rt_sched_free(&s);
    }
}

/* ---- Sweeps ------------------------------------------------------------ */

void t_nap_verify_sweep(void)
{
    static const int32_t ppns[] = { 2, 3, 4, 5, 8 };
    static const int64_t counts[] = { 0, 1, (int64_t)1 << 40 };
    rt_sched_t s;

    for (size_t i = 0; i < sizeof ppns / sizeof *ppns; i++)
        for (int32_t nodes = 1; nodes <= 17; nodes++)
            for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
                gen_ok(&s, nodes * ppns[i], ppns[i], NULL, 0, counts[c]);
                rt_sched_free(&s);
            }
    /* Larger P: 9 nodes of 8 (72), 17 of 8 (136), 33 of 4 (132). */
    gen_ok(&s, 72, 8, NULL, 0, 3);
    rt_sched_free(&s);
    gen_ok(&s, 136, 8, NULL, 0, 3);
    rt_sched_free(&s);
    gen_ok(&s, 132, 4, NULL, 0, 3);
    rt_sched_free(&s);
}

typedef struct fz {
    int32_t nodes, ppn, want;    /* product to reach */
    int32_t steps[32], n;
    int  ok;                     /* expect CM_OK (else CM_ERR_INVALID) */
    long tried;
} fz_t;

/* Every ordered factorization of f->want into parts 2..ppn. */
static void fz_walk(fz_t *f, int32_t left)
{
    if (left == 1) {
        rt_sched_t s;
        cm_err_t err;
        cm_status_t st = gen(&s, f->nodes * f->ppn, f->ppn, f->steps, f->n,
                             2, -1, &err);

        if (f->ok) {
            if (st == CM_OK)
                st = rt_sched_verify(&s, &err);
            if (st != CM_OK)
                TST_FAIL("N=%d ppn=%d nsteps=%d: %s", f->nodes, f->ppn, f->n,
                         err.msg);
        } else {
            TST_EQ_STATUS(st, CM_ERR_INVALID);
        }
        rt_sched_free(&s);
        f->tried++;
        return;
    }
    for (int32_t d = 2; d <= f->ppn && d <= left; d++)
        if (left % d == 0) {
            f->steps[f->n++] = d;
            fz_walk(f, left / d);
            f->n--;
        }
}

/* Has x a factorization into parts 2..ppn (x = 1: the empty one)? */
static int fz_exists(int32_t x, int32_t ppn)
{
    if (x == 1)
        return 1;
    for (int32_t d = 2; d <= ppn && d <= x; d++)
        if (x % d == 0 && fz_exists(x / d, ppn))
            return 1;
    return 0;
}

void t_nap_factorization_sweep(void)
{
    /* Every explicit step list for N and for its fold M verifies; a list
       for another factorizable count below M is refused. */
    static const int32_t ppns[] = { 2, 3, 4, 5, 6 };
    long tried = 0;

    for (size_t i = 0; i < sizeof ppns / sizeof *ppns; i++)
        for (int32_t nodes = 1; nodes <= 36; nodes++) {
            fz_t f = { .nodes = nodes, .ppn = ppns[i] };
            int32_t m = nodes, other;

            while (!fz_exists(m, ppns[i]))
                m--;
            f.want = m;
            f.ok = 1;
            fz_walk(&f, m);
            for (other = m - 1; other >= 2 && !fz_exists(other, ppns[i]);
                 other--)
                ;
            if (other >= 2) {
                f.want = other;
                f.ok = 0;
                fz_walk(&f, other);
            }
            tried += f.tried;
        }
    TST_TRUE(tried > 1000);
}

void t_nap_one_rank(void)
{
    /* Each rank's own schedule is its part of the all-ranks one. */
    static const int32_t cases[][2] = {
        { 8, 2 }, { 18, 3 }, { 14, 2 }, { 80, 4 }, { 45, 5 }, { 7, 7 },
        { 96, 8 } };
    rt_sched_t all, one;
    cm_err_t err;

    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        gen_ok(&all, cases[i][0], cases[i][1], NULL, 0, 9);
        for (int32_t r = 0; r < cases[i][0]; r++) {
            size_t na, no;
            const rt_step_t *a = rt_sched_rank_steps(&all, r, &na);
            const rt_step_t *o;

            TST_EQ_STATUS(gen(&one, cases[i][0], cases[i][1], NULL, 0, 9, r,
                              &err), CM_OK);
            TST_EQ_INT(one.only_rank, r);
            o = rt_sched_rank_steps(&one, r, &no);
            TST_EQ_UINT(no, na);
            TST_TRUE(na == 0 || memcmp(a, o, na * sizeof *a) == 0);
            rt_sched_free(&one);
        }
        rt_sched_free(&all);
    }
}

static double cpu_seconds(void)
{
    return (double)clock() / CLOCKS_PER_SEC;
}

void t_nap_large(void)
{
    /* papsim's sizes: generation well under a second, all ranks or each
       rank on its own; then a full replay.  4094/2 folds 1023 of 2047
       nodes. */
    static const int32_t cases[][2] = { { 4096, 16 }, { 4096, 64 },
                                        { 4094, 2 }, { 4000, 16 } };
    rt_sched_t s;
    cm_err_t err;

    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        double t0 = cpu_seconds(), t1;

        TST_EQ_STATUS(gen(&s, cases[i][0], cases[i][1], NULL, 0, 1000, -1,
                          &err), CM_OK);
        t1 = cpu_seconds() - t0;
        if (t1 > 1.0)
            TST_FAIL("P=%d ppn=%d: %.2f s to generate", cases[i][0],
                     cases[i][1], t1);
        TST_EQ_STATUS(rt_sched_verify(&s, &err), CM_OK);
        rt_sched_free(&s);
        t0 = cpu_seconds();
        for (int32_t r = 0; r < cases[i][0]; r++) {
            TST_EQ_STATUS(gen(&s, cases[i][0], cases[i][1], NULL, 0, 1000, r,
                              &err), CM_OK);
            rt_sched_free(&s);
        }
        t1 = cpu_seconds() - t0;
        if (t1 > 1.0)
            TST_FAIL("P=%d ppn=%d: %.2f s for every rank alone", cases[i][0],
                     cases[i][1], t1);
    }
}

/* ---- Errors ------------------------------------------------------------ */

static void expect_err(int32_t nranks, int32_t ppn, const int32_t *steps,
                       int32_t nsteps, int32_t rank, cm_status_t want,
                       const char *gist)
{
    rt_sched_t s;
    cm_err_t err;

    TST_EQ_STATUS(gen(&s, nranks, ppn, steps, nsteps, 4, rank, &err), want);
    TST_EQ_STATUS(err.status, want);
    TST_CONTAINS(err.msg, gist);
    rt_sched_free(&s);
}

void t_nap_errors(void)
{
    static const int32_t s45[] = { 4, 5 }, s14[] = { 1, 4 },
                         s22[] = { 2, 2 }, s33[] = { 3, 3 }, s4[] = { 4 };
    int32_t many[40];

    for (int i = 0; i < 40; i++)
        many[i] = 2;
    expect_err(8, 0, NULL, 0, -1, CM_ERR_INVALID, "ppn");
    expect_err(8, -2, NULL, 0, -1, CM_ERR_INVALID, "ppn");
    expect_err(8, 1, NULL, 0, -1, CM_ERR_UNSUPPORTED, "ppn >= 2");
    expect_err(10, 4, NULL, 0, -1, CM_ERR_UNSUPPORTED, "multiple");
    expect_err(2, 4, NULL, 0, -1, CM_ERR_UNSUPPORTED, "multiple");
    /* 20/4 [4,5]: the failing explicit case of docs/algorithms.md (nap). */
    expect_err(80, 4, s45, 2, -1, CM_ERR_INVALID, "not in 2..ppn");
    expect_err(16, 4, s14, 2, -1, CM_ERR_INVALID, "not in 2..ppn");
    expect_err(18, 3, s22, 2, -1, CM_ERR_INVALID, "multiply to 4, not");
    /* 20 nodes fold to 18: 9 is neither. */
    expect_err(80, 4, s33, 2, -1, CM_ERR_INVALID, "or to 18");
    expect_err(16, 2, many, 40, -1, CM_ERR_INVALID, "more than");
    expect_err(8, 4, s4, 0, -1, CM_ERR_INVALID, "multiply");
    expect_err(8, 4, s4, -1, -1, CM_ERR_INVALID, "step sizes");
    expect_err(8, 4, NULL, 1, -1, CM_ERR_INVALID, "without an array");
    /* The common checks. */
    expect_err(0, 2, NULL, 0, -1, CM_ERR_INVALID, "nranks");
    expect_err(8, 2, NULL, 0, 8, CM_ERR_INVALID, "rank 8");
    expect_err(8, 2, NULL, 0, -2, CM_ERR_INVALID, "rank -2");
}
