/*
 * t_size.c - rt_algo_steps_estimate (runtime/algo/algo_size.c) against the
 * generators themselves: over a sweep of P, counts, segmentations, roots,
 * arrival patterns and ppn, every generator of the table makes at most the
 * estimated number of steps, and not many times fewer (the tools refuse
 * sizes on the estimate, so a loose one would refuse schedules that fit).
 */
#include <string.h>

#include "tests/tst.h"
#include "tests/test_list.h"
#include "runtime/algo/algo_int.h"

/* An estimate may exceed the steps by this factor plus 4P (small counts,
   where the formulas' constant terms dominate), and no more. */
#define SLACK 4.0

typedef struct sweep_stats {
    long   runs;
    double worst_over;   /* max steps / estimate: must stay <= 1 */
    double worst_slack;  /* max estimate / (steps + 4P) */
} sweep_stats_t;

static uint64_t next_rand(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* Runs a on p if it accepts p, and checks the estimate against it. */
static void check_one(const rt_algo_info_t *a, const rt_algo_params_t *p, sweep_stats_t *st)
{
    rt_sched_t s;
    cm_err_t err;

    rt_sched_init(&s);
    if (a->gen(&s, p, -1, &err) == CM_OK) {
        double est = rt_algo_steps_estimate(a, p), n = (double)s.nsteps;

        if (n > est) {
            fprintf(stderr, "%s: P %d count %lld nsegs %d segcount %lld root %d ppn %d: "
                    "%zu steps, estimate %.0f\n", a->name, p->nranks, (long long)p->count,
                    p->nsegs, (long long)p->segcount, p->root, p->ppn, s.nsteps, est);
            TST_TRUE(n <= est);
        }
        if (est / (n + 4.0 * p->nranks) > SLACK) {
            fprintf(stderr, "%s: P %d count %lld nsegs %d segcount %lld: %zu steps, "
                    "estimate %.0f\n", a->name, p->nranks, (long long)p->count, p->nsegs,
                    (long long)p->segcount, s.nsteps, est);
            TST_TRUE(est / (n + 4.0 * p->nranks) <= SLACK);
        }
        st->runs++;
        if (est > 0 && n / est > st->worst_over)
            st->worst_over = n / est;
        if (est / (n + 4.0 * p->nranks) > st->worst_slack)
            st->worst_slack = est / (n + 4.0 * p->nranks);
    }
    rt_sched_free(&s);
}

/* Every segmentation, root and arrival pattern of one (a, P, count). */
static void sweep_params(const rt_algo_info_t *a, int32_t P, int64_t count, int64_t *arr,
                         uint64_t *seed, sweep_stats_t *st)
{
    const int32_t nsegs[] = { 0, 1, 3, 2 * P + 1 };
    const int64_t segcounts[] = { 1, 7 };

    for (int pat = 0; pat < 3; pat++) {
        for (int32_t r = 0; r < P; r++)      /* random, one late, all equal */
            arr[r] = pat == 0 ? (int64_t)(next_rand(seed) % 50000)
                   : pat == 1 ? (r == P - 1 ? 1000000 : 0) : 0;
        for (int sg = 0; sg < 6; sg++) {
            rt_algo_params_t p;

            memset(&p, 0, sizeof p);
            p.nranks = P;
            p.count = count;
            p.arrival = arr;
            p.round_len = 1000;
            p.root = (int32_t)(next_rand(seed) % (uint64_t)P);
            if (sg < 4)
                p.nsegs = nsegs[sg];
            else
                p.segcount = segcounts[sg - 4];
            if (a->gen != rt_algo_nap) {     /* only nap reads ppn */
                check_one(a, &p, st);
                continue;
            }
            for (p.ppn = 2; p.ppn <= P; p.ppn++)
                if (P % p.ppn == 0)
                    check_one(a, &p, st);
        }
    }
}

void t_steps_estimate(void)
{
    static const int32_t Ps[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 24, 31, 32, 33,
                                  48, 63, 64 };
    size_t n;
    const rt_algo_info_t *t = rt_algo_table(&n);
    int64_t arr[64];
    uint64_t seed = 88172645463325252ull;

    for (size_t i = 0; i < n; i++) {
        sweep_stats_t st = { 0, 0, 0 };

        for (size_t k = 0; k < sizeof Ps / sizeof *Ps; k++) {
            int32_t P = Ps[k];
            const int64_t counts[] = { 0, 1, P - 1, P, 3 * P + 1, 1000 };

            for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
                sweep_params(&t[i], P, counts[c], arr, &seed, &st);
        }
        printf("%-16s %6ld schedules, steps/estimate <= %.3f, estimate/(steps+4P) <= %.2f\n",
               t[i].name, st.runs, st.worst_over, st.worst_slack);
        TST_TRUE(st.runs > 0);
    }
}

/* The default limit and the check's message (the tools read --mem-limit
   with cm_opt_size: tests/unit/common/t_opt.c). */
void t_mem_limit(void)
{
    cm_err_t err;

    TST_TRUE(rt_algo_mem_default() > 0);
    /* 2^26 steps of 16 bytes = 1 GiB fits in 1 GiB, one more step does not. */
    TST_EQ_INT(rt_algo_mem_check("x", 67108864, 16, 1073741824.0, NULL, &err), CM_OK);
    TST_EQ_INT(rt_algo_mem_check("ring: the schedule", 67108865, 16, 1073741824.0,
                                 " (hint)", &err), CM_ERR_NOMEM);
    TST_EQ_STR(err.msg, "ring: the schedule would take about 1.00 GiB (67108865 steps of "
               "16 bytes): over the memory limit of 1.00 GiB (hint)");
}
