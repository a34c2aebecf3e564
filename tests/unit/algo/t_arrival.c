/*
 * t_arrival.c - arrival patterns for the simulator (runtime/algo/
 * sim_arrival.c, runtime/api/rt_sim.h), in nanosecond ticks, each vector
 * worked out by hand from the pattern's definition; random's first draws
 * from the published splitmix64 stream of seed 0 (0xe220a8397b1dcdaf,
 * 0x6e789e6aa1b965f4: top 53 bits over 2^53 = 0.88331080821...,
 * 0.43152799704...); the refusals and the descriptions papsim prints.
 */
#include <stdint.h>
#include <string.h>
#include "tests/tst.h"
#include "tests/test_list.h"
#include "runtime/api/rt_sim.h"

static void expect_ticks(const rt_sim_arrival_t *a, int32_t P, const int64_t *want)
{
    int64_t got[8];
    cm_err_t err;

    TST_EQ_STATUS(rt_sim_arrival_make(a, P, got, &err), CM_OK);
    for (int32_t r = 0; r < P; r++)
        if (got[r] != want[r])
            TST_FAIL("rank %d: %lld ticks, want %lld", r, (long long)got[r], (long long)want[r]);
}

void t_sim_arrival_patterns(void)
{
    static const int64_t none[4] = { 0, 0, 0, 0 };
    static const int64_t late[4] = { 0, 5000000, 0, 0 };
    static const int64_t sorted5[5] = { 0, 1000000, 2000000, 3000000, 4000000 };
    static const int64_t reversed5[5] = { 4000000, 3000000, 2000000, 1000000, 0 };
    /* r/3 ms: 333333.33 and 666666.67 ns round to the nearest tick */
    static const int64_t sorted4[4] = { 0, 333333, 666667, 1000000 };
    static const int64_t alone[1] = { 0 };
    rt_sim_arrival_t a = { RT_SIM_ARRIVAL_NONE, 7, 0, 0 };

    expect_ticks(&a, 4, none);
    a = (rt_sim_arrival_t){ RT_SIM_ARRIVAL_ONE_LATE, 5, 1, 0 };
    expect_ticks(&a, 4, late);
    a = (rt_sim_arrival_t){ RT_SIM_ARRIVAL_SORTED, 4, 0, 0 };
    expect_ticks(&a, 5, sorted5);
    a.ms = 1;
    expect_ticks(&a, 4, sorted4);
    a = (rt_sim_arrival_t){ RT_SIM_ARRIVAL_REVERSED, 4, 0, 0 };
    expect_ticks(&a, 5, reversed5);
    /* one rank: sorted and reversed put it at 0 (no P - 1 to divide by) */
    expect_ticks(&a, 1, alone);
    a.kind = RT_SIM_ARRIVAL_SORTED;
    expect_ticks(&a, 1, alone);
}

void t_sim_arrival_random(void)
{
    static const int64_t seed0[2] = { 883310808, 431527997 };
    rt_sim_arrival_t a = { RT_SIM_ARRIVAL_RANDOM, 1000, 0, 0 };
    int64_t x[8], y[8];
    cm_err_t err;

    expect_ticks(&a, 2, seed0);
    /* a seed gives one vector; another seed another; all in [0, ms] */
    a.seed = 7;
    TST_EQ_STATUS(rt_sim_arrival_make(&a, 8, x, &err), CM_OK);
    TST_EQ_STATUS(rt_sim_arrival_make(&a, 8, y, &err), CM_OK);
    TST_TRUE(memcmp(x, y, sizeof x) == 0);
    a.seed = 8;
    TST_EQ_STATUS(rt_sim_arrival_make(&a, 8, y, &err), CM_OK);
    TST_TRUE(memcmp(x, y, sizeof x) != 0);
    for (int r = 0; r < 8; r++)
        TST_TRUE(x[r] >= 0 && x[r] <= 1000000000 && y[r] >= 0 && y[r] <= 1000000000);
}

/* a is refused for P ranks with msg; ticks untouched. */
static void refused(const rt_sim_arrival_t *a, int32_t P, const char *msg)
{
    int64_t ticks[4] = { -1, -1, -1, -1 };
    cm_err_t err;

    cm_err_clear(&err);
    TST_EQ_STATUS(rt_sim_arrival_make(a, P, ticks, &err), CM_ERR_RANGE);
    TST_EQ_STR(err.msg, msg);
    for (int r = 0; r < 4; r++)
        TST_EQ_INT(ticks[r], -1);
}

void t_sim_arrival_refuse(void)
{
    rt_sim_arrival_t a = { RT_SIM_ARRIVAL_ONE_LATE, 1, 4, 0 };

    refused(&a, 4, "arrival: rank 4 is not a rank of P = 4");
    a.rank = -1;
    refused(&a, 4, "arrival: rank -1 is not a rank of P = 4");
    a = (rt_sim_arrival_t){ RT_SIM_ARRIVAL_SORTED, -1, 0, 0 };
    refused(&a, 4, "arrival: -1 ms: out of range, 0 to 1e+09 ms");
    a.ms = 2e9;
    refused(&a, 4, "arrival: 2e+09 ms: out of range, 0 to 1e+09 ms");
    a.ms = 1;
    refused(&a, 0, "arrival: 0 ranks (at least 1)");
}

void t_sim_arrival_describe(void)
{
    rt_sim_arrival_t a = { RT_SIM_ARRIVAL_NONE, 0, 0, 0 };
    char buf[96], tiny[6];

    rt_sim_arrival_describe(&a, buf, sizeof buf);
    TST_EQ_STR(buf, " (all at 0)");
    a = (rt_sim_arrival_t){ RT_SIM_ARRIVAL_ONE_LATE, 1.5, 3, 0 };
    rt_sim_arrival_describe(&a, buf, sizeof buf);
    TST_EQ_STR(buf, " (rank 3 at 1.5 ms, the others at 0)");
    a = (rt_sim_arrival_t){ RT_SIM_ARRIVAL_RANDOM, 2, 0, 7 };
    rt_sim_arrival_describe(&a, buf, sizeof buf);
    TST_EQ_STR(buf, " (uniform in [0, 2] ms, seed 7)");
    a.kind = RT_SIM_ARRIVAL_SORTED;
    rt_sim_arrival_describe(&a, buf, sizeof buf);
    TST_EQ_STR(buf, " (rank r at r*2/(P-1) ms)");
    a.kind = RT_SIM_ARRIVAL_REVERSED;
    rt_sim_arrival_describe(&a, buf, sizeof buf);
    TST_EQ_STR(buf, " (rank r at (P-1-r)*2/(P-1) ms)");
    rt_sim_arrival_describe(&a, tiny, sizeof tiny);
    TST_EQ_STR(tiny, " (ran");
}
