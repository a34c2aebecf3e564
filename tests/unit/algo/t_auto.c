/*
 * t_auto.c - unit tests of auto's chooser (runtime/algo/auto.c, rt_auto.h).
 *
 * Independent expectations: predictions are compared with the simulator
 * run here on schedules made here (rt_algo_find + rt_sched_simulate), the
 * PAP threshold with the step count of rt_algo_steps_estimate times the
 * configured cost, learning's Q16 ratios with values worked out by hand in
 * the comments; agreement by feeding four choosers the same random inputs
 * (what every rank of a collective does) and comparing every choice.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tests/tst.h"
#include "tests/test_list.h"
#include "runtime/api/rt_algo.h"
#include "runtime/api/rt_auto.h"
#include "runtime/api/rt_sched.h"

/* The simulator's avg_elapsed, ns, of `name`'s all-ranks schedule. */
static int64_t sim_ns(const rt_auto_cfg_t *cfg, const char *name, int32_t P, int64_t count,
                      int32_t elem, const int64_t *arrival)
{
    const rt_algo_info_t *a = rt_algo_find(name);
    rt_algo_params_t p = { .nranks = P, .count = count };
    rt_cost_t cost = { cfg->net.alpha, cfg->net.beta, cfg->net.gamma, elem };
    double arr[64];
    rt_sched_t s;
    rt_sim_result_t res;
    cm_err_t err;
    int64_t ns;

    TST_NOT_NULL(a);
    if (strstr(a->params, "arrival") != NULL)
        p.arrival = arrival;
    if (strstr(a->params, "round_len") != NULL)
        p.round_len = cfg->round_ns;
    for (int32_t r = 0; r < P; r++)
        arr[r] = arrival != NULL ? (double)arrival[r] * 1e-9 : 0;
    rt_sched_init(&s);
    TST_EQ_STATUS(a->gen(&s, &p, -1, &err), CM_OK);
    memset(&res, 0, sizeof(res));
    TST_EQ_STATUS(rt_sched_simulate(&s, &cost, arr, &res, &err), CM_OK);
    ns = (int64_t)llround(res.avg_elapsed * 1e9);
    rt_sim_result_free(&res);
    rt_sched_free(&s);
    return ns;
}

/* What making name's one-rank schedule costs, as the chooser models it. */
static int64_t gen_ns(const rt_auto_cfg_t *cfg, const char *name, int32_t P, int64_t count)
{
    rt_algo_params_t p = { .nranks = P, .count = count, .round_len = cfg->round_ns };

    return (int64_t)llround(rt_algo_steps_estimate(rt_algo_find(name), &p) / P *
                            (double)cfg->gen_ns_per_step);
}

void t_auto_candidates(void)
{
    rt_auto_cfg_t cfg;
    cm_err_t err;

    rt_auto_cfg_default(&cfg);
    TST_EQ_UINT(cfg.ncand, 6);
    TST_EQ_STR(cfg.cand[0], "rd");
    TST_EQ_STR(cfg.cand[5], "native");
    TST_EQ_STATUS(rt_auto_cfg_candidates(&cfg, "ring,prr,native", &err), CM_OK);
    TST_EQ_UINT(cfg.ncand, 3);
    TST_EQ_STR(cfg.cand[1], "prr");
    TST_EQ_STATUS(rt_auto_cfg_candidates(&cfg, "ring,binomial-reduce", &err), CM_ERR_NAME);
    TST_CONTAINS(err.msg, "'binomial-reduce' is not an allreduce");
    TST_CONTAINS(err.msg, "rabenseifner");
    TST_EQ_STATUS(rt_auto_cfg_candidates(&cfg, "ring,bogus", &err), CM_ERR_NAME);
    TST_EQ_STATUS(rt_auto_cfg_candidates(&cfg, "ring,,prr", &err), CM_ERR_SYNTAX);
    TST_EQ_STATUS(rt_auto_cfg_candidates(&cfg, "", &err), CM_ERR_SYNTAX);
    TST_EQ_STATUS(rt_auto_cfg_candidates(&cfg, "ring,prr,ring", &err), CM_ERR_INVALID);
    TST_CONTAINS(err.msg, "given twice");
    TST_EQ_STATUS(rt_auto_cfg_candidates(&cfg, "ring,ring-seg,rd,rabenseifner,slt,prr,nap,"
                                         "native,ring", &err), CM_ERR_RANGE);
    /* a failed parse leaves the list as it was */
    TST_EQ_UINT(cfg.ncand, 3);
}

/* No one late: the predictions are the simulator's at equal arrivals, the
   PAP-aware candidates are skipped (spread 0 < their cost), native is the
   best of rd, ring and rabenseifner, and the lowest is chosen. */
void t_auto_predictions(void)
{
    rt_auto_cfg_t cfg;
    rt_auto_t *a;
    rt_auto_choice_t c;
    rt_auto_op_t op = { 32768, 4, 7, NULL };
    cm_err_t err;
    int64_t rd, ring, rab, best;

    rt_auto_cfg_default(&cfg);
    TST_EQ_STATUS(rt_auto_create(&cfg, 4, &a, &err), CM_OK);
    TST_EQ_STATUS(rt_auto_choose(a, &op, &c, &err), CM_OK);
    rd = sim_ns(&cfg, "rd", 4, 32768, 4, NULL);
    ring = sim_ns(&cfg, "ring", 4, 32768, 4, NULL);
    rab = sim_ns(&cfg, "rabenseifner", 4, 32768, 4, NULL);
    TST_EQ_INT(c.pred_ns[0], rd);
    TST_EQ_INT(c.pred_ns[1], ring);
    TST_EQ_INT(c.pred_ns[2], rab);
    TST_EQ_INT(c.pred_ns[3], -1);
    TST_EQ_INT(c.pred_ns[4], -1);
    TST_EQ_UINT(c.skipped, (1u << 3) | (1u << 4));
    best = rd < ring ? rd : ring;
    best = rab < best ? rab : best;
    TST_EQ_INT(c.pred_ns[5], best);
    TST_EQ_INT(c.corr_ns[1], ring);              /* no sample yet: ratio 1 */
    TST_EQ_INT(c.pred_ns[c.chosen], best);
    TST_EQ_INT(c.reason, RT_AUTO_MODEL);
    TST_EQ_INT(c.spread_ns, 0);
    TST_EQ_INT(c.size_class, 17);                /* 128 KiB */
    rt_auto_destroy(a);
}

/* PAP-aware candidates are predicted exactly from the spread equal to their
   schedule's cost (plus exchange_ns), skipped just below; with one host very
   late, prr (predicted by the simulator on its schedule for that vector)
   beats the ring, and is chosen. */
void t_auto_pap_threshold(void)
{
    rt_auto_cfg_t cfg;
    rt_auto_t *a;
    rt_auto_choice_t c;
    int64_t v[4] = { 0, 0, 0, 0 }, cost, big[4] = { 0, 3000000, 0, 0 };
    rt_auto_op_t op = { 262144, 4, 1, v };
    cm_err_t err;

    rt_auto_cfg_default(&cfg);
    TST_EQ_STATUS(rt_auto_cfg_candidates(&cfg, "ring,prr", &err), CM_OK);
    cfg.exchange_ns = 1000;
    TST_EQ_STATUS(rt_auto_create(&cfg, 4, &a, &err), CM_OK);
    cost = gen_ns(&cfg, "prr", 4, 262144);
    TST_TRUE(cost > 0);
    v[1] = cost + 1000 - 1;
    TST_EQ_STATUS(rt_auto_choose(a, &op, &c, &err), CM_OK);
    TST_EQ_UINT(c.skipped, 2u);
    TST_EQ_INT(c.pred_ns[1], -1);
    TST_EQ_INT(c.chosen, 0);
    v[1] = cost + 1000;
    op.site = 2;
    TST_EQ_STATUS(rt_auto_choose(a, &op, &c, &err), CM_OK);
    TST_EQ_UINT(c.skipped, 0u);
    TST_EQ_INT(c.pred_ns[1], sim_ns(&cfg, "prr", 4, 262144, 4, v) + cost);
    TST_EQ_INT(c.pred_ns[0], sim_ns(&cfg, "ring", 4, 262144, 4, v));
    op.arrival = big;
    op.site = 3;
    TST_EQ_STATUS(rt_auto_choose(a, &op, &c, &err), CM_OK);
    TST_TRUE(sim_ns(&cfg, "prr", 4, 262144, 4, big) + cost <
             sim_ns(&cfg, "ring", 4, 262144, 4, big));
    TST_EQ_INT(c.chosen, 1);
    TST_EQ_INT(c.spread_ns, 3000000);
    rt_auto_destroy(a);
}

/* Hysteresis (10 %): a challenger better by less than the margin does not
   displace the previous choice; by more it does.  Learning moves the
   chosen candidate's ratio a quarter of the way: measured = 2 x predicted
   from 1.0 (65536) gives 65536 + (131072 - 65536) / 4 = 81920, then
   81920 + (131072 - 81920) / 4 = 94208. */
void t_auto_learn_hysteresis(void)
{
    rt_auto_cfg_t cfg;
    rt_auto_t *a;
    rt_auto_choice_t c;
    rt_auto_op_t op = { 32768, 4, 9, NULL };
    int64_t el[4], ring, rd;
    cm_err_t err;

    rt_auto_cfg_default(&cfg);
    TST_EQ_STATUS(rt_auto_cfg_candidates(&cfg, "ring,rd", &err), CM_OK);
    cfg.explore_every = 0;
    TST_EQ_STATUS(rt_auto_create(&cfg, 4, &a, &err), CM_OK);
    ring = sim_ns(&cfg, "ring", 4, 32768, 4, NULL);
    rd = sim_ns(&cfg, "rd", 4, 32768, 4, NULL);
    TST_TRUE(ring < rd);                 /* 128 KiB on this model: the ring */
    TST_EQ_STATUS(rt_auto_choose(a, &op, &c, &err), CM_OK);
    TST_EQ_INT(c.chosen, 0);
    for (int r = 0; r < 4; r++)
        el[r] = 2 * ring;
    rt_auto_learn(a, NULL, el);
    TST_EQ_STATUS(rt_auto_choose(a, &op, &c, &err), CM_OK);
    TST_EQ_INT(c.corr_ns[0], (int64_t)(((__int128)ring * 81920) >> 16));
    rt_auto_learn(a, NULL, el);
    TST_EQ_STATUS(rt_auto_choose(a, &op, &c, &err), CM_OK);
    TST_EQ_INT(c.corr_ns[0], (int64_t)(((__int128)ring * 94208) >> 16));
    /* keep feeding 2x until rd is the best by more than 10 %: then it is chosen,
       and while ring is within 10 % of it the previous choice is kept */
    for (int k = 0; k < 40 && c.chosen == 0; k++) {
        rt_auto_learn(a, NULL, el);
        TST_EQ_STATUS(rt_auto_choose(a, &op, &c, &err), CM_OK);
        if (c.chosen == 0 && c.corr_ns[1] < c.corr_ns[0])
            TST_TRUE(c.corr_ns[1] * 100 >= c.corr_ns[0] * 90 && c.reason == RT_AUTO_KEPT);
    }
    TST_EQ_INT(c.chosen, 1);
    TST_EQ_INT(c.reason, RT_AUTO_MODEL);
    TST_TRUE(c.corr_ns[1] * 100 < c.corr_ns[0] * 90);
    rt_auto_destroy(a);
}

/* Exploration only on every explore_every-th operation of a class (the
   16th, 32nd, ...: nops % 16 == 15), of a candidate with fewer samples
   predicted within 50 % of the best. */
void t_auto_explore(void)
{
    rt_auto_cfg_t cfg;
    rt_auto_t *a;
    rt_auto_choice_t c;
    rt_auto_op_t op = { 32768, 4, 5, NULL };
    int64_t el[4];
    cm_err_t err;
    int explored = 0;

    rt_auto_cfg_default(&cfg);
    TST_EQ_STATUS(rt_auto_cfg_candidates(&cfg, "ring,rabenseifner", &err), CM_OK);
    TST_EQ_STATUS(rt_auto_create(&cfg, 4, &a, &err), CM_OK);
    for (int k = 0; k < 48; k++) {
        TST_EQ_STATUS(rt_auto_choose(a, &op, &c, &err), CM_OK);
        if (c.reason == RT_AUTO_EXPLORE) {
            TST_EQ_INT(k % 16, 15);
            explored++;
        }
        for (int r = 0; r < 4; r++)
            el[r] = c.pred_ns[c.chosen];       /* the model is right */
        rt_auto_learn(a, NULL, el);
    }
    TST_TRUE(explored >= 1);
    rt_auto_destroy(a);
}

static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Runs 300 operations of random counts, sites and arrival vectors (one host
   very late in a third of them), with random measured times, on `n`
   choosers fed the same inputs; choices[op] is chooser 0's; every chooser
   must choose alike and end with the same state hash. */
static void run_same(int n, uint64_t seed, int32_t *choices, int *distinct)
{
    rt_auto_t *a[4];
    rt_auto_cfg_t cfg;
    cm_err_t err;
    uint64_t s = seed;
    int seen[RT_AUTO_CAND_MAX] = { 0 };

    rt_auto_cfg_default(&cfg);
    for (int i = 0; i < n; i++)
        TST_EQ_STATUS(rt_auto_create(&cfg, 4, &a[i], &err), CM_OK);
    for (int k = 0; k < 300; k++) {
        int64_t v[4], el[4];
        rt_auto_op_t op = { (int64_t)(1 + mix(&s) % 300000), 4, mix(&s) % 3, v };
        rt_auto_choice_t c0, c;

        for (int r = 0; r < 4; r++)
            v[r] = (int64_t)(mix(&s) % 20000);
        if (k % 3 == 0)
            v[mix(&s) % 4] += 2000000;
        for (int r = 0; r < 4; r++)
            el[r] = (int64_t)(1000 + mix(&s) % 3000000);
        for (int i = 0; i < n; i++) {
            TST_EQ_STATUS(rt_auto_choose(a[i], &op, i ? &c : &c0, &err), CM_OK);
            if (i > 0) {
                TST_EQ_INT(c.chosen, c0.chosen);
                TST_EQ_INT(c.reason, c0.reason);
                TST_TRUE(memcmp(c.corr_ns, c0.corr_ns, sizeof(c.corr_ns)) == 0);
            }
            rt_auto_learn(a[i], v, el);
        }
        choices[k] = c0.chosen;
        seen[c0.chosen] = 1;
        for (int i = 1; i < n; i++)
            TST_EQ_UINT(rt_auto_state_hash(a[i]), rt_auto_state_hash(a[0]));
    }
    *distinct = 0;
    for (int i = 0; i < RT_AUTO_CAND_MAX; i++)
        *distinct += seen[i];
    for (int i = 0; i < n; i++)
        rt_auto_destroy(a[i]);
}

/* Agreement: four "ranks" choose alike under random inputs, and more than
   one candidate is chosen; determinism: the same seed again gives the same
   300 choices, another seed other ones. */
void t_auto_agreement(void)
{
    int32_t x[300], y[300];
    int dx, dy;

    run_same(4, 42, x, &dx);
    TST_TRUE(dx >= 2);
    run_same(1, 42, y, &dy);
    TST_TRUE(memcmp(x, y, sizeof(x)) == 0);
    run_same(1, 43, y, &dy);
    TST_TRUE(memcmp(x, y, sizeof(x)) != 0);
}

/* A configuration's hash changes with each field that changes a choice. */
void t_auto_cfg_hash(void)
{
    rt_auto_cfg_t a, b;
    cm_err_t err;

    rt_auto_cfg_default(&a);
    b = a;
    TST_EQ_UINT(rt_auto_cfg_hash(&a), rt_auto_cfg_hash(&b));
    b.net.alpha *= 2;
    TST_TRUE(rt_auto_cfg_hash(&a) != rt_auto_cfg_hash(&b));
    b = a;
    TST_EQ_STATUS(rt_auto_cfg_candidates(&b, "rd,ring,rabenseifner,prr,native,slt", &err), CM_OK);
    TST_TRUE(rt_auto_cfg_hash(&a) != rt_auto_cfg_hash(&b));
    b = a;
    b.hysteresis_pct = 6;
    TST_TRUE(rt_auto_cfg_hash(&a) != rt_auto_cfg_hash(&b));
}
