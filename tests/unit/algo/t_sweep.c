/*
 * t_sweep.c - every generator of the table through the replay verifier.
 *
 * For P = 1..64, counts 0, 1, P-1, P, 3P+1 and 1000, segment counts 1, 2,
 * P-1, P, P+1, 2P+1, roots 0, 1, P-1 and P/2, and five arrival patterns
 * (equal, one late, random, sorted, reversed), each schedule must verify
 * (rt_sched_verify: exactly-once delivery, ports, matching, no deadlock,
 * complete holders) and the schedule generated for one rank alone must be
 * that rank's part of the all-ranks schedule.  The full product is too
 * large for a unit test, so small P (<= 8) get every combination and larger
 * P a rotation that still visits every value of every dimension many times.
 * (clv-linear, the slow literal baseline, only to P = 16: t_clv.c holds it
 * equal to clv.)  A generator may refuse a case only where its documented precondition
 * fails (expect_refusal below); any other error fails the test.
 */
#include <stdio.h>
#include <string.h>

#include "tests/tst.h"
#include "tests/test_list.h"
#include "runtime/algo/algo_int.h"


#define D 10    /* round length in ticks */

enum { ARR_EQUAL, ARR_ONE_LATE, ARR_RANDOM, ARR_SORTED, ARR_REVERSED, NARR };

static uint64_t rng_state = 88172645463325252ull;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void arrivals(int kind, int32_t p, int64_t *a)
{
    for (int32_t r = 0; r < p; r++) {
        switch (kind) {
        case ARR_EQUAL:    a[r] = 0; break;
        case ARR_ONE_LATE: a[r] = r == p / 2 ? 3 * D + 7 : 0; break;
        case ARR_RANDOM:   a[r] = (int64_t)(rng() % (uint64_t)(p * D + 1)); break;
        case ARR_SORTED:   a[r] = r * (D / 2); break;
        default:           a[r] = (p - 1 - r) * (D / 2); break;
        }
    }
}

static int expect_refusal(const char *name, const rt_algo_params_t *p)
{
    if (strcmp(name, "rabenseifner") == 0)
        return p->count < rt_pof2_floor(p->nranks);
    if (strcmp(name, "nap") == 0)
        return p->nranks == 1;
    return 0;
}

/* Rank r's steps of `all` equal the steps of `one`. */
static void same_rank_steps(const rt_sched_t *all, const rt_sched_t *one,
                            int32_t r, const char *what)
{
    size_t na, no;
    const rt_step_t *a = rt_sched_rank_steps(all, r, &na);
    const rt_step_t *o = rt_sched_rank_steps(one, r, &no);

    if (na != no || (na && memcmp(a, o, na * sizeof *a) != 0)) {
        fprintf(stderr, "%s: rank %d alone gives %zu steps, in the "
                "all-ranks schedule %zu (or they differ)\n", what, r, no, na);
        TST_TRUE(0);
    }
    TST_EQ_INT(one->npieces, all->npieces);
}

static void run_case(const rt_algo_info_t *info, const rt_algo_info_t *bcast,
                     rt_algo_params_t *p, int32_t one_rank)
{
    rt_sched_t all, one;
    cm_err_t err;
    cm_status_t st;
    char what[200];

    snprintf(what, sizeof what,
             "%s%s%s P=%d root=%d count=%lld nsegs=%d segcount=%lld ppn=%d "
             "port=%d", info->name, bcast ? "+" : "", bcast ? bcast->name : "",
             p->nranks, p->root, (long long)p->count, p->nsegs,
             (long long)p->segcount, p->ppn, (int)p->port);
    rt_sched_init(&all);
    st = bcast ? rt_algo_reduce_bcast(&all, info, bcast, p, -1, &err)
               : info->gen(&all, p, -1, &err);
    if (expect_refusal(info->name, p)) {
        if (st == CM_OK)
            fprintf(stderr, "%s: should have been refused\n", what);
        TST_EQ_INT(st, CM_ERR_UNSUPPORTED);
        rt_sched_free(&all);
        return;
    }
    if (st != CM_OK) {
        fprintf(stderr, "%s: %s\n", what, err.msg);
        TST_EQ_INT(st, CM_OK);
    }
    st = rt_sched_verify(&all, &err);
    if (st != CM_OK) {
        fprintf(stderr, "%s: %s\n", what, err.msg);
        TST_EQ_INT(st, CM_OK);
    }
    rt_sched_init(&one);
    st = bcast ? rt_algo_reduce_bcast(&one, info, bcast, p, one_rank, &err)
               : info->gen(&one, p, one_rank, &err);
    if (st != CM_OK)
        fprintf(stderr, "%s rank %d: %s\n", what, one_rank, err.msg);
    TST_EQ_INT(st, CM_OK);
    same_rank_steps(&all, &one, one_rank, what);
    rt_sched_free(&one);
    rt_sched_free(&all);
}

static int uses_segments(const char *name)
{
    return strstr(name, "chain") || strstr(name, "bintree") ||
           strstr(name, "greedy") || strstr(name, "clv") ||
           strcmp(name, "slt") == 0;
}

/* One generator (or reduce+bcast pair) over the sweep. */
static void sweep(const rt_algo_info_t *info, const rt_algo_info_t *bcast)
{
    int64_t arr[64];
    const char *name = info->name;

    /* clv-linear is the slow literal baseline; t_clv.c proves it equal to
       clv on thousands of instances, so here it stops at P = 16. */
    int32_t pmax = strcmp(name, "clv-linear") == 0 ? 16 : 64;

    for (int32_t p = 1; p <= pmax; p++) {
        int64_t counts[6] = { 0, 1, p - 1, p, 3 * p + 1, 1000 };
        int32_t segs[6] = { 1, 2, p - 1, p, p + 1, 2 * p + 1 };
        int32_t roots[4] = { 0, 1 % p, p - 1, p / 2 };
        int full = p <= 8;

        for (int ci = 0; ci < 6; ci++)
            for (int si = 0; si < (full ? 6 : 1); si++)
                for (int ai = 0; ai < (full ? NARR : 1); ai++)
                    for (int ri = 0; ri < (full ? 4 : 1); ri++) {
                        int k = p * 7 + ci;
                        rt_algo_params_t prm = { 0 };
                        int s = full ? si : k % 6;
                        int a = full ? ai : (k / 6) % NARR;
                        int rt = full ? ri : k % 4;

                        prm.nranks = p;
                        prm.count = counts[ci];
                        prm.root = roots[rt];
                        prm.round_len = D;
                        arrivals(a, p, arr);
                        prm.arrival = arr;
                        prm.port = (k & 1) ? RT_PORT_B : RT_PORT_U;
                        prm.tree = (k & 2) ? RT_TREE_OMPI : RT_TREE_HEAP;
                        if (strcmp(name, "greedy-reduce") == 0)
                            prm.port = RT_PORT_U;
                        if (strcmp(name, "ring-seg") == 0)
                            prm.segcount = 1 + (s % 3) +
                                           (s == 5 ? prm.count / p : 0);
                        else if (uses_segments(name) ||
                                 (bcast && uses_segments(bcast->name)))
                            prm.nsegs = segs[s] > 0 ? segs[s] : 1;
                        if (strcmp(name, "nap") == 0)
                            prm.ppn = p % 4 == 0 ? 4 : p % 3 == 0 ? 3 :
                                      p % 2 == 0 ? 2 : p;
                        run_case(info, bcast, &prm, (int32_t)((k * 5) % p));
                    }
    }
}

static void sweep_kind(rt_coll_t coll)
{
    size_t n;
    const rt_algo_info_t *t = rt_algo_table(&n);

    for (size_t i = 0; i < n; i++)
        if (t[i].coll == coll)
            sweep(&t[i], NULL);
}

void t_sweep_allreduce(void) { sweep_kind(RT_COLL_ALLREDUCE); }
void t_sweep_reduce(void)    { sweep_kind(RT_COLL_REDUCE); }
void t_sweep_bcast(void)     { sweep_kind(RT_COLL_BCAST); }

/* Every reduce followed by every broadcast is an allreduce. */
void t_sweep_reduce_bcast(void)
{
    size_t n;
    const rt_algo_info_t *t = rt_algo_table(&n);

    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            if (t[i].coll == RT_COLL_REDUCE && t[j].coll == RT_COLL_BCAST &&
                strcmp(t[i].name, "clv-linear") != 0)
                sweep(&t[i], &t[j]);
}
