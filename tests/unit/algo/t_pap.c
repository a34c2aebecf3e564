/*
 * t_pap.c - the PAP-aware allreduces of Proficz 2018: slt.c and prr.c.
 * (The listings themselves are replayed in t_pap_listing.c.)
 *
 * Where expected values come from:
 *  - the worked examples in the headers of slt.c and prr.c, derived by hand
 *    from the rules stated there (the paper's Fig. 6 and Fig. 8 settings);
 *  - closed forms derived by hand: SLT's hop rounds j+k, j+P-1 and
 *    j+max(S,P)+m; PRR's k_i for the standard arrival patterns, its first
 *    round k_0 - k_i and its 2P-2+k_0 rounds;
 *  - the plain ring (ring.c), which PRR must equal when
 *    no process is a round late;
 *  - the paper's own figures, where the text pins them down (see
 *    t_pap_figures for what it does not);
 *  - for everything else, rt_sched_verify's replay over sweeps;
 *  - SLT's direct rounds: the construction it replaced (every program
 *    appended with unset rounds, then rt_sched_asap under B), kept here as
 *    slt_reference_asap, step for step.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/tst.h"
#include "tests/test_list.h"
#include "runtime/algo/algo_int.h"
#include "runtime/algo/pap_int.h"


static rt_algo_params_t params(int32_t np, int64_t count,
                               const int64_t *arrival, int64_t tau)
{
    rt_algo_params_t p;

    memset(&p, 0, sizeof p);
    p.nranks = np;
    p.count = count;
    p.arrival = arrival;
    p.round_len = tau;
    return p;
}

static void gen(rt_algo_gen_fn *fn, const rt_algo_params_t *p, int32_t rank,
                rt_sched_t *s)
{
    cm_err_t err;

    cm_err_clear(&err);
    rt_sched_init(s);
    if (fn(s, p, rank, &err) != CM_OK)
        TST_FAIL("P %d count %lld nsegs %d: %s", p->nranks,
                 (long long)p->count, p->nsegs, err.msg);
}

static void verified(rt_algo_gen_fn *fn, const rt_algo_params_t *p,
                     rt_sched_t *s)
{
    cm_err_t err;

    gen(fn, p, -1, s);
    cm_err_clear(&err);
    if (rt_sched_verify(s, &err) != CM_OK)
        TST_FAIL("P %d count %lld nsegs %d: %s", p->nranks,
                 (long long)p->count, p->nsegs, err.msg);
}

/* The round of the send src -> dst of piece j (exactly one), or -1. */
static int32_t send_round(const rt_sched_t *s, int32_t src, int32_t dst,
                          int32_t j, int act)
{
    size_t n;
    const rt_step_t *t = rt_sched_rank_steps(s, src, &n);
    int32_t round = -1;

    for (size_t i = 0; i < n; i++)
        if (t[i].dir == RT_STEP_SEND && t[i].peer == dst &&
            t[i].piece == j && t[i].act == act) {
            TST_EQ_INT(round, -1);
            round = t[i].round;
        }
    return round;
}

/* Compares a schedule's transfers with "src dst seg copy" per round. */
typedef struct xf {
    int32_t round, src, dst, seg, copy;
} xf_t;

static void expect_transfers(const rt_sched_t *s, const xf_t *x, size_t nx)
{
    size_t nsend = 0;

    for (int32_t r = 0; r < s->nranks; r++) {
        size_t n;
        const rt_step_t *t = rt_sched_rank_steps(s, r, &n);

        for (size_t i = 0; i < n; i++)
            nsend += t[i].dir == RT_STEP_SEND;
    }
    TST_EQ_UINT(nsend, nx);
    for (size_t i = 0; i < nx; i++)
        TST_EQ_INT(send_round(s, x[i].src, x[i].dst, x[i].seg,
                              x[i].copy ? RT_ACT_COPY : RT_ACT_REDUCE),
                   x[i].round);
}

/* slt.c's worked example: P = 4, S = 4, arrival {4,0,0,0}. */
void t_pap_slt_example(void)
{
    static const xf_t x[] = {
        { 0, 1, 2, 0, 0 },
        { 1, 1, 2, 1, 0 }, { 1, 2, 3, 0, 0 },
        { 2, 1, 2, 2, 0 }, { 2, 2, 3, 1, 0 }, { 2, 3, 0, 0, 0 },
        { 3, 1, 2, 3, 0 }, { 3, 2, 3, 2, 0 }, { 3, 3, 0, 1, 0 },
        { 3, 0, 1, 0, 1 },
        { 4, 2, 3, 3, 0 }, { 4, 3, 0, 2, 0 }, { 4, 0, 1, 1, 1 },
        { 4, 1, 2, 0, 1 },
        { 5, 3, 0, 3, 0 }, { 5, 0, 1, 2, 1 }, { 5, 1, 2, 1, 1 },
        { 5, 2, 3, 0, 1 },
        { 6, 0, 1, 3, 1 }, { 6, 1, 2, 2, 1 }, { 6, 2, 3, 1, 1 },
        { 7, 1, 2, 3, 1 }, { 7, 2, 3, 2, 1 },
        { 8, 2, 3, 3, 1 },
    };
    const int64_t arr[4] = { 4, 0, 0, 0 };
    rt_algo_params_t p = params(4, 10, arr, 0);
    rt_sched_t s;

    verified(rt_algo_slt, &p, &s);
    TST_EQ_INT(s.npieces, 4);
    TST_EQ_INT(s.nrounds, 9);
    TST_EQ_INT(s.port, RT_PORT_B);
    expect_transfers(&s, x, sizeof x / sizeof *x);
    rt_sched_free(&s);
}

/*
 * SLT rounds by hand (slt.c): with ids in arrival order, the reduce hop
 * id k -> k+1 of segment j is in round j+k, id P-1 -> id 0 in j+P-1, the
 * copy hop id m -> m+1 in j + max(S,P) + m; S + max(S,P) + P - 3 rounds
 * for P >= 3, S + 1 for P = 2.  Arrivals reversed (id i = rank P-1-i).
 */
void t_pap_slt_closed_form(void)
{
    for (int32_t np = 2; np <= 12; np++) {
        int32_t segs[5] = { 1, np - 1, np, np + 1, 2 * np + 1 };
        int64_t arr[12];

        for (int32_t r = 0; r < np; r++)
            arr[r] = 10 * (np - r);
        for (int c = 0; c < 5; c++) {
            int32_t nseg = segs[c], big = nseg > np ? nseg : np;
            rt_algo_params_t p = params(np, 3 * nseg + 1, arr, 0);
            rt_sched_t s;

            if (nseg < 1)
                continue;
            p.nsegs = nseg;
            verified(rt_algo_slt, &p, &s);
            TST_EQ_INT(s.nrounds, np == 2 ? nseg + 1 : nseg + big + np - 3);
            for (int32_t j = 0; j < nseg; j++) {
                for (int32_t k = 0; k + 1 < np; k++)
                    TST_EQ_INT(send_round(&s, np - 1 - k, np - 2 - k, j,
                                          RT_ACT_REDUCE), j + k);
                TST_EQ_INT(send_round(&s, 0, np - 1, j, RT_ACT_COPY),
                           j + np - 1);
                for (int32_t m = 0; m + 2 < np; m++)
                    TST_EQ_INT(send_round(&s, np - 1 - m, np - 2 - m, j,
                                          RT_ACT_COPY), j + big + m);
            }
            rt_sched_free(&s);
        }
    }
}

/* prr.c's worked example, the Fig. 8 setting: P = 4, tau = 1,
   arrival {2,0,0,0}; k = {2,1,0,0}, sp = {0,0,0,3}. */
void t_pap_prr_example(void)
{
    static const xf_t x[] = {
        { 0, 1, 2, 2, 0 },
        { 1, 1, 2, 1, 0 }, { 1, 2, 3, 2, 0 },
        { 2, 1, 2, 0, 0 }, { 2, 2, 3, 1, 0 }, { 2, 3, 0, 2, 0 },
        { 2, 0, 1, 3, 0 },
        { 3, 1, 2, 3, 0 }, { 3, 2, 3, 0, 0 }, { 3, 3, 0, 1, 0 },
        { 3, 0, 1, 2, 1 },
        { 4, 1, 2, 2, 1 }, { 4, 2, 3, 3, 0 }, { 4, 3, 0, 0, 0 },
        { 4, 0, 1, 1, 1 },
        { 5, 1, 2, 1, 1 }, { 5, 2, 3, 2, 1 }, { 5, 3, 0, 3, 1 },
        { 5, 0, 1, 0, 1 },
        { 6, 1, 2, 0, 1 }, { 6, 2, 3, 1, 1 }, { 6, 0, 1, 3, 1 },
        { 7, 1, 2, 3, 1 }, { 7, 2, 3, 0, 1 },
    };
    const int64_t arr[4] = { 2, 0, 0, 0 };
    rt_algo_params_t p = params(4, 10, arr, 1);
    rt_sched_t s;

    verified(rt_algo_prr, &p, &s);
    TST_EQ_INT(s.nrounds, 8);
    TST_EQ_INT(s.port, RT_PORT_B);
    expect_transfers(&s, x, sizeof x / sizeof *x);
    rt_sched_free(&s);
}

/*
 * No process a round late (k = 0): PRR is the plain ring of ring.c on
 * the sorted ids - step for step, rounds and flags included - for arrival
 * NULL (ids = ranks) and for distinct arrivals less than tau apart in a
 * shuffled order (rank order[i] plays ring rank i).
 */
void t_pap_prr_is_ring(void)
{
    for (int32_t np = 1; np <= 33; np += (np < 9 ? 1 : 8)) {
        int64_t arr[33];
        int32_t order[33];

        /* order[i] = (5i + 3) mod P when that is a permutation. */
        for (int32_t i = 0; i < np; i++)
            order[i] = np % 5 ? (5 * i + 3) % np : np - 1 - i;
        for (int32_t i = 0; i < np; i++)
            arr[order[i]] = 100 + i;               /* tau 1000: k = 0 */
        for (int shuffled = 0; shuffled < 2; shuffled++) {
            rt_algo_params_t p = params(np, 4 * np + 3,
                                        shuffled ? arr : NULL, 1000);
            rt_algo_params_t q = params(np, 4 * np + 3, NULL, 0);
            rt_sched_t a, b;

            gen(rt_algo_prr, &p, -1, &a);
            gen(rt_algo_ring, &q, -1, &b);
            TST_EQ_INT(a.nrounds, b.nrounds);
            TST_EQ_UINT(a.nsteps, b.nsteps);
            for (int32_t i = 0; i < np; i++) {
                size_t na, nb;
                int32_t r = shuffled ? order[i] : i;
                const rt_step_t *sa = rt_sched_rank_steps(&a, r, &na);
                const rt_step_t *sb = rt_sched_rank_steps(&b, i, &nb);

                TST_EQ_UINT(na, nb);
                for (size_t k = 0; k < na; k++) {
                    int32_t peer = shuffled ? order[sb[k].peer] : sb[k].peer;

                    TST_EQ_INT(sa[k].round, sb[k].round);
                    TST_EQ_INT(sa[k].peer, peer);
                    TST_EQ_INT(sa[k].piece, sb[k].piece);
                    TST_EQ_INT(sa[k].npieces, sb[k].npieces);
                    TST_EQ_INT(sa[k].dir, sb[k].dir);
                    TST_EQ_INT(sa[k].act, sb[k].act);
                    TST_EQ_INT(sa[k].flags, sb[k].flags);
                }
            }
            rt_sched_free(&a);
            rt_sched_free(&b);
        }
    }
}

/*
 * k_i by hand from Fig. 7 lines 1-6 (tau = 4 ticks, the late rank is
 * rank 0 so ids are ranks 1..P-1, 0): the last id late by 0.5 tau: k = 0;
 * by 1 tau: only a_{P-1} - a_{P-2} >= tau holds, k = 1 for ids <= P-3;
 * by 3 tau: k_i = min(3, P-2-i); by P+2 tau, or all spread one tau apart:
 * k_i = P-2-i (k_{P-2} = 0 always).  Observed as 2P-2+k_0 rounds and as
 * id i's first step: it starts k_i rounds early, sending in round
 * k_0 - k_i, unless id i-1 starts one earlier still (k_{i-1} = k_i + 1),
 * whose first send id i receives in round k_0 - k_{i-1}.
 */
void t_pap_prr_presteps(void)
{
    for (int32_t np = 2; np <= 12; np++)
        for (int pat = 0; pat < 5; pat++) {
            static const int64_t late[4] = { 2, 4, 12, 0 };
            int64_t arr[12];
            int32_t k[12], order[12];
            rt_algo_params_t p = params(np, 2 * np, arr, 4);
            rt_sched_t s;

            for (int32_t i = 0; i < np; i++) {
                order[i] = pat < 4 ? (i + 1) % np : i;
                arr[order[i]] = pat < 4 ? 0 : 4 * i;
            }
            if (pat < 4)
                arr[0] = pat == 3 ? 4 * (np + 2) : late[pat];
            for (int32_t i = 0; i < np; i++) {
                int32_t most = np - 2 - i < 0 ? 0 : np - 2 - i;

                k[i] = pat == 0 ? 0 : pat == 1 ? (i <= np - 3) :
                       pat == 2 ? (most < 3 ? most : 3) : most;
            }
            verified(rt_algo_prr, &p, &s);
            TST_EQ_INT(s.nrounds, np == 1 ? 0 : 2 * np - 2 + k[0]);
            for (int32_t i = 0; i < np; i++) {
                size_t n;
                const rt_step_t *t = rt_sched_rank_steps(&s, order[i], &n);

                int early = i > 0 && k[i - 1] > k[i];

                TST_TRUE(n > 0);
                TST_EQ_INT(t[0].round, k[0] - (early ? k[i - 1] : k[i]));
                TST_EQ_INT(t[0].dir, early ? RT_STEP_RECV : RT_STEP_SEND);
            }
            rt_sched_free(&s);
        }
}

/* Arrival patterns of the sweep, in ticks with tau = 8: NULL, all equal,
   rank P/2 late by 0.5, 1, 3 and P+2 tau, random, sorted, reversed. */
#define SWEEP_NPAT 9

static const int64_t *sweep_arrival(int32_t np, int pat, int64_t *a)
{
    static const int64_t late[4] = { 4, 8, 24, 0 };
    uint32_t x = 2654435761u * (uint32_t)(np + 31 * pat);

    if (pat == 0)
        return NULL;
    for (int32_t r = 0; r < np; r++) {
        x = x * 1103515245u + 12345u;
        a[r] = pat == 6 ? (int64_t)((x >> 8) % (uint32_t)(16 * np)) :
               pat == 7 ? 8 * r : pat == 8 ? 8 * (np - r) : 100;
    }
    if (pat >= 2 && pat <= 5)
        a[np / 2] += pat == 5 ? 8 * (np + 2) : late[pat - 2];
    return a;
}

/* One rank's schedule is the all-ranks schedule's slice for that rank. */
static void same_slice(rt_algo_gen_fn *fn, const rt_algo_params_t *p,
                       const rt_sched_t *all, int32_t rank)
{
    rt_sched_t one;
    size_t n, m;
    const rt_step_t *a, *b;

    gen(fn, p, rank, &one);
    a = rt_sched_rank_steps(all, rank, &n);
    b = rt_sched_rank_steps(&one, rank, &m);
    TST_EQ_UINT(m, n);
    TST_EQ_UINT(one.nsteps, n);
    if (n > 0)
        TST_EQ_INT(memcmp(a, b, n * sizeof *a), 0);
    rt_sched_free(&one);
}

/*
 * The replay verifier over P = 1..64, counts 0, 1, < P, = P, uneven and
 * large, and every arrival pattern; SLT also with 1, P+1 and 2P+1
 * segments and with a segment size.
 */
void t_pap_sweep(void)
{
    for (int32_t np = 1; np <= 64; np += np < 12 ? 1 : 13) {
        int64_t counts[6] = { 0, 1, np > 1 ? np - 1 : 0, np, 3 * np + 2,
                              (int64_t)1 << 40 };

        for (int c = 0; c < 6; c++)
            for (int pat = 0; pat < SWEEP_NPAT; pat++) {
                int64_t a[64];
                rt_algo_params_t p = params(np, counts[c],
                                            sweep_arrival(np, pat, a), 8);
                rt_sched_t s;

                verified(rt_algo_prr, &p, &s);
                TST_EQ_INT(s.npieces, np);
                TST_EQ_UINT(s.nsteps, (size_t)np * 4 * (np - 1));
                if (c == 4)
                    same_slice(rt_algo_prr, &p, &s, np / 3);
                rt_sched_free(&s);

                verified(rt_algo_slt, &p, &s);
                TST_EQ_INT(s.npieces, np);
                if (c == 4)
                    same_slice(rt_algo_slt, &p, &s, np - 1 - np / 3);
                rt_sched_free(&s);
                if (c != 4 || pat % 3 != 0)
                    continue;
                for (int32_t nseg = 1; nseg <= 2 * np + 1; nseg += np) {
                    p.nsegs = nseg;
                    verified(rt_algo_slt, &p, &s);
                    TST_EQ_INT(s.npieces, nseg);
                    rt_sched_free(&s);
                }
                p.nsegs = 0;
                p.segcount = 2;
                verified(rt_algo_slt, &p, &s);
                TST_EQ_INT(s.npieces, (int32_t)((counts[c] + 1) / 2));
                rt_sched_free(&s);
            }
    }
}

/* Finish times (in tau) of a schedule with the given arrivals. */
static void simulate(const rt_sched_t *s, const double *arr,
                     rt_sim_result_t *res)
{
    const rt_cost_t tau = { 1.0, 0.0, 0.0, 4.0 };
    cm_err_t err;

    if (rt_sched_simulate(s, &tau, arr, res, &err) != CM_OK)
        TST_FAIL("simulate %s: %s", s->algo, err.msg);
}

/*
 * The paper's examples (section 4).  The figures themselves are not in our
 * copy of the text, only their captions and the totals quoted in it; both
 * have "process 0" late, and P = 4 is what the totals imply: the plain
 * ring takes 2(P-1) rounds, so "ring 8 tau with a 2 tau delay" is P = 4,
 * and P = 4 is also the only P whose SLT saves 2 tau (14 -> 12 in Fig. 6)
 * when the head of the chain is 4 tau late (the saving is min(P-2, 4): SLT
 * first needs the late process in round P-2, the plain chain in round 0).
 * Each
 * message is one segment and costs tau (alpha = 1 s, beta = gamma = 0).
 *
 * Fig. 8 (PRR): the ring is the paper's 8 tau (everyone waits for rank 0:
 * its 6 rounds run from 2 to 8).  PRR is 8 tau too, not the paper's 7:
 * segment 3 starts at the late rank at 2 and needs 2P-2 = 6 more hops
 * (prr.c's example table); what PRR saves is the late rank's time - it is
 * done at 7 instead of 8 - so the mean elapsed time drops from
 * (6+8+8+8)/4 = 7.5 to (5+8+8+8)/4 = 7.25.  The paper's "7 tau" matches
 * the late process's finish time, not the last one's.
 *
 * Fig. 6 (SLT, S = P = 4, rank 0 late by 4 tau): the unsorted chain
 * (arrival NULL: rank 0 heads it) takes its 9 rounds from 4 on: 13 tau;
 * SLT puts rank 0 last, first needed in round 2, so everything after it
 * shifts by 2: 11 tau (slt.c's example table).  The paper says 14 and 12:
 * the same 2 tau saving, one tau more in both (we could not recover why
 * without the figure).
 */
void t_pap_figures(void)
{
    const int64_t late2[4] = { 2, 0, 0, 0 }, late4[4] = { 4, 0, 0, 0 };
    const double a2[4] = { 2, 0, 0, 0 }, a4[4] = { 4, 0, 0, 0 };
    rt_algo_params_t p = params(4, 400, NULL, 1);
    rt_sim_result_t res;
    rt_sched_t s;

    verified(rt_algo_ring, &p, &s);
    simulate(&s, a2, &res);
    TST_EQ_DBL(res.completion, 8.0, 1e-9);
    TST_EQ_DBL(res.avg_elapsed, 7.5, 1e-9);
    rt_sim_result_free(&res);
    rt_sched_free(&s);

    p.arrival = late2;
    verified(rt_algo_prr, &p, &s);
    simulate(&s, a2, &res);
    TST_EQ_DBL(res.completion, 8.0, 1e-9);
    TST_EQ_DBL(res.finish[0], 7.0, 1e-9);
    for (int32_t r = 1; r < 4; r++)
        TST_EQ_DBL(res.finish[r], 8.0, 1e-9);
    TST_EQ_DBL(res.avg_elapsed, 7.25, 1e-9);
    rt_sim_result_free(&res);
    rt_sched_free(&s);

    p.arrival = NULL;                          /* the plain linear tree */
    verified(rt_algo_slt, &p, &s);
    TST_EQ_INT(s.nrounds, 9);
    simulate(&s, a4, &res);
    TST_EQ_DBL(res.completion, 13.0, 1e-9);
    rt_sim_result_free(&res);
    rt_sched_free(&s);

    p.arrival = late4;
    verified(rt_algo_slt, &p, &s);
    simulate(&s, a4, &res);
    TST_EQ_DBL(res.completion, 11.0, 1e-9);
    /* Rank 0 (id 3) ends with its send in round 6; ranks 2 and 3 (ids 1
       and 2) with round 8, rank 1 (id 0) with round 7; all shifted by 2. */
    TST_EQ_DBL(res.finish[0], 9.0, 1e-9);
    TST_EQ_DBL(res.finish[1], 10.0, 1e-9);
    TST_EQ_DBL(res.finish[2], 11.0, 1e-9);
    TST_EQ_DBL(res.finish[3], 11.0, 1e-9);
    rt_sim_result_free(&res);
    rt_sched_free(&s);
}

static void expect_error(rt_algo_gen_fn *fn, const rt_algo_params_t *p,
                         int32_t rank, cm_status_t want, const char *gist)
{
    rt_sched_t s;
    cm_err_t err;

    cm_err_clear(&err);
    rt_sched_init(&s);
    TST_EQ_STATUS(fn(&s, p, rank, &err), want);
    TST_CONTAINS(err.msg, gist);
    rt_sched_free(&s);
}

void t_pap_errors(void)
{
    const int64_t neg[3] = { 0, -1, 0 };
    rt_algo_params_t p = params(4, 100, NULL, 0);

    expect_error(rt_algo_prr, &p, -1, CM_ERR_INVALID, "round_len");
    p.round_len = -5;
    expect_error(rt_algo_prr, &p, -1, CM_ERR_INVALID, "prr:");
    p.round_len = 1;
    p.nsegs = 4;
    expect_error(rt_algo_prr, &p, -1, CM_ERR_UNSUPPORTED, "nsegs");
    p.nsegs = 0;
    p.segcount = 10;
    expect_error(rt_algo_prr, &p, -1, CM_ERR_UNSUPPORTED, "segcount");
    p.nsegs = 3;
    expect_error(rt_algo_slt, &p, -1, CM_ERR_INVALID, "not both");
    p = params(3, 100, neg, 1);
    expect_error(rt_algo_prr, &p, -1, CM_ERR_INVALID, "negative");
    expect_error(rt_algo_slt, &p, -1, CM_ERR_INVALID, "negative");
    p = params(4, 100, NULL, 1);
    expect_error(rt_algo_prr, &p, 4, CM_ERR_INVALID, "rank 4");
    expect_error(rt_algo_slt, &p, -2, CM_ERR_INVALID, "rank -2");
    p.count = -1;
    expect_error(rt_algo_slt, &p, -1, CM_ERR_INVALID, "count");
    /* The table's entries are these generators. */
    TST_TRUE(rt_algo_find("slt") != NULL &&
             rt_algo_find("slt")->gen == rt_algo_slt);
    TST_TRUE(rt_algo_find("prr") != NULL &&
             rt_algo_find("prr")->gen == rt_algo_prr);
}

/*
 * Scale: one rank of P = 4096 with random arrivals and huge tick values
 * (no overflow in (k+1)*tau) in well under a second, and all ranks of
 * P = 1024: P blocks, 2P-2 hops each, 2 steps per hop.
 */
void t_pap_large(void)
{
    static int64_t arr[4096];
    rt_algo_params_t p = params(4096, (int64_t)1 << 30, arr, INT64_MAX / 3);
    uint64_t x = 88172645463325252u;
    rt_sched_t s;
    clock_t t0;
    double secs;

    for (int32_t r = 0; r < 4096; r++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        arr[r] = (int64_t)(x >> 2);
    }
    t0 = clock();
    gen(rt_algo_prr, &p, 4095, &s);
    secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    TST_TRUE(secs < 0.2);
    TST_TRUE(s.nsteps >= 2 * 4095 && s.nsteps <= 4 * 4096);
    rt_sched_free(&s);

    p = params(1024, (int64_t)1 << 20, arr, 1 << 20);
    t0 = clock();
    gen(rt_algo_prr, &p, -1, &s);
    secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    TST_TRUE(secs < 1.0);
    TST_EQ_UINT(s.nsteps, (size_t)4 * 1024 * 1023);
    TST_TRUE(s.nrounds >= 2 * 1023 && s.nrounds <= 2 * 1023 + 1022);
    rt_sched_free(&s);
}

/* ---- SLT: direct rounds against the ASAP construction ------------------ */

/*
 * slt.c's former construction, verbatim but for the names: every rank's
 * Fig. 5 program appended in execution order with RT_ROUND_UNSET, rounds
 * from rt_sched_asap under B, and for one rank the all-ranks schedule cut
 * down by rt_sched_keep_rank.
 */
static cm_status_t slt_reference_emit(rt_sched_t *s, int32_t np,
                                      int32_t nseg, const int32_t *order,
                                      const int32_t *id_of, cm_err_t *err)
{
    const unsigned move = RT_STEP_MOVE, final = RT_STEP_FINAL;

    for (int32_t r = 0; r < np; r++) {
        int32_t id = id_of[r];
        int32_t left = order[(id + np - 1) % np], right = order[(id + 1) % np];
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

static int32_t slt_reference_segments(const rt_algo_params_t *p, int64_t **off,
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

static cm_status_t slt_reference_asap(rt_sched_t *s, const rt_algo_params_t *p,
                                      int32_t rank, cm_err_t *err)
{
    int32_t *order = NULL, *id_of = NULL, nseg;
    int64_t *off = NULL;
    cm_status_t st = rt_algo_check_common(p, rank, "slt", err);

    if (st != CM_OK)
        return st;
    nseg = slt_reference_segments(p, &off, err);
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
        st = rt_sched_begin(s, "slt", RT_COLL_ALLREDUCE, RT_PORT_B, p, -1,
                            nseg, off, err);
    if (st == CM_OK && p->nranks > 1)
        st = slt_reference_emit(s, p->nranks, nseg, order, id_of, err);
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

/* a and b are the same schedule: header, partition, and every rank's steps
   in the same order with the same fields. */
static void same_sched(const rt_sched_t *a, const rt_sched_t *b)
{
    TST_EQ_STR(a->algo, b->algo);
    TST_EQ_INT(a->coll, b->coll);
    TST_EQ_INT(a->port, b->port);
    TST_EQ_INT(a->nranks, b->nranks);
    TST_EQ_INT(a->root, b->root);
    TST_EQ_INT(a->only_rank, b->only_rank);
    TST_EQ_INT(a->count, b->count);
    TST_EQ_INT(a->npieces, b->npieces);
    TST_EQ_INT(a->nrounds, b->nrounds);
    TST_EQ_UINT(a->nsteps, b->nsteps);
    for (int32_t i = 0; i <= a->npieces; i++)
        TST_EQ_INT(a->piece_off[i], b->piece_off[i]);
    for (int32_t r = 0; r <= a->nranks; r++)
        TST_EQ_UINT(a->step_start[r], b->step_start[r]);
    for (size_t i = 0; i < a->nsteps; i++) {
        const rt_step_t *x = &a->steps[i], *y = &b->steps[i];

        if (x->round != y->round || x->peer != y->peer ||
            x->piece != y->piece || x->npieces != y->npieces ||
            x->dir != y->dir || x->act != y->act || x->flags != y->flags)
            TST_FAIL("P %d S %d rank %d step %zu: round %d peer %d piece %d "
                     "x%u dir %u act %u flags %u vs round %d peer %d piece "
                     "%d x%u dir %u act %u flags %u", a->nranks, a->npieces,
                     a->only_rank, i, x->round, x->peer, x->piece,
                     (unsigned)x->npieces, (unsigned)x->dir,
                     (unsigned)x->act, (unsigned)x->flags, y->round, y->peer,
                     y->piece, (unsigned)y->npieces, (unsigned)y->dir,
                     (unsigned)y->act, (unsigned)y->flags);
    }
}

/* Arrival patterns: NULL (id = rank), all equal (ties: id = rank),
   reversed, rank P/2 late, random with ties, and a rotation. */
#define DIRECT_NPAT 6

static const int64_t *direct_arrival(int32_t np, int pat, int64_t *a)
{
    uint32_t x = 2246822519u * (uint32_t)(np + 7 * pat + 1);

    if (pat == 0)
        return NULL;
    for (int32_t r = 0; r < np; r++) {
        x = x * 1103515245u + 12345u;
        a[r] = pat == 1 ? 5 : pat == 2 ? 3 * (np - r) : pat == 3 ? 0 :
               pat == 4 ? (int64_t)((x >> 8) % (uint32_t)(np / 2 + 1)) :
               (r + np / 3) % np;
    }
    if (pat == 3)
        a[np / 2] = 1000;
    return a;
}

/* One rank's slice of an all-ranks schedule, as rt_sched_keep_rank cuts
   it (header kept, nrounds = 1 + the rank's last round); shares all's
   steps and partition. */
static rt_sched_t slice_of(const rt_sched_t *all, int32_t rank,
                           size_t *start)
{
    rt_sched_t one = *all;
    size_t n;

    one.steps = (rt_step_t *)(uintptr_t)rt_sched_rank_steps(all, rank, &n);
    one.nsteps = n;
    one.only_rank = rank;
    one.nrounds = n ? one.steps[n - 1].round + 1 : 0;
    for (int32_t q = 0; q <= all->nranks; q++)
        start[q] = q <= rank ? 0 : n;
    one.step_start = start;
    return one;
}

/*
 * rt_algo_slt (rounds in closed form, ranks appended in order) gives the
 * very schedule of slt_reference_asap: P = 1..40; S in {1, 2, P-1, P, P+1,
 * 2P+1} by nsegs, S = P by default and S = ceil(n/2) by segcount = 2;
 * every arrival pattern above.  All ranks, and every single rank against
 * the reference's all-ranks schedule cut down to it; for ranks 0 and P-1
 * and the ranks of ids 0 and P-2 (the only ids whose order is not program
 * order, and whose last round is the schedule's) also against the
 * reference run for that rank.
 */
void t_pap_slt_direct_equals_asap(void)
{
    size_t *start = malloc(41 * sizeof *start);

    TST_TRUE(start != NULL);
    for (int32_t np = 1; np <= 40; np++) {
        /* nsegs; 0: neither (S = P); -1: segcount = 2. */
        const int32_t segs[8] = { 1, 2, np - 1, np, np + 1, 2 * np + 1, 0,
                                  -1 };

        for (int c = 0; c < 8; c++)
            for (int pat = 0; pat < DIRECT_NPAT; pat++) {
                int64_t a[40];
                int32_t order[40];
                rt_algo_params_t p = params(np, 3 * np + 2,
                                            direct_arrival(np, pat, a), 0);
                rt_sched_t ref, dir;
                cm_err_t err;

                if (c == 2 && np == 1)
                    continue;                       /* S = P-1 = 0 */
                if (segs[c] > 0)
                    p.nsegs = segs[c];
                else if (segs[c] < 0)
                    p.segcount = 2;
                rt_sched_init(&ref);
                if (slt_reference_asap(&ref, &p, -1, &err) != CM_OK)
                    TST_FAIL("reference P %d: %s", np, err.msg);
                gen(rt_algo_slt, &p, -1, &dir);
                same_sched(&dir, &ref);
                TST_EQ_STATUS(rt__pap_order(&p, order, NULL, "t", &err),
                              CM_OK);
                for (int32_t r = 0; r < np; r++) {
                    rt_sched_t one, want = slice_of(&ref, r, start);

                    gen(rt_algo_slt, &p, r, &one);
                    same_sched(&one, &want);
                    if (r == 0 || r == np - 1 || r == order[0] ||
                        (np >= 2 && r == order[np - 2])) {
                        rt_sched_t r1;

                        rt_sched_init(&r1);
                        if (slt_reference_asap(&r1, &p, r, &err) != CM_OK)
                            TST_FAIL("reference P %d rank %d: %s", np,
                                     (int)r, err.msg);
                        same_sched(&one, &r1);
                        rt_sched_free(&r1);
                    }
                    rt_sched_free(&one);
                }
                rt_sched_free(&ref);
                rt_sched_free(&dir);
            }
    }
    free(start);
}
