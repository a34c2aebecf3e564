/*
 * t_gred.c - unit tests of the reduction kernels, the wait phases and the
 * gred wrapper under real threads (no MPI).
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include "tests/tst.h"
#include "tests/test_list.h"
#include "runtime/api/rt_gred.h"

void t_reduce_kernels(void)
{
    int32_t a32[3] = { INT32_MAX, -5, 7 }, b32[3] = { 1, 3, 7 };
    int64_t a64[2] = { -9, 4 }, b64[2] = { 2, 4 };
    double ad[2] = { 0.5, -1.0 }, bd[2] = { 0.25, 2.0 };

    rt_reduce_get(RT_DTYPE_INT32, RT_OP_SUM)(a32, b32, 3);
    TST_EQ_INT(a32[0], INT32_MIN);               /* wraps, no UB */
    TST_EQ_INT(a32[1], -2);
    TST_EQ_INT(a32[2], 14);
    rt_reduce_get(RT_DTYPE_INT32, RT_OP_MIN)(a32, b32, 3);
    TST_EQ_INT(a32[0], INT32_MIN);
    TST_EQ_INT(a32[1], -2);
    TST_EQ_INT(a32[2], 7);
    rt_reduce_get(RT_DTYPE_INT64, RT_OP_MAX)(a64, b64, 2);
    TST_EQ_INT(a64[0], 2);
    TST_EQ_INT(a64[1], 4);
    rt_reduce_get(RT_DTYPE_DOUBLE, RT_OP_SUM)(ad, bd, 2);
    TST_EQ_DBL(ad[0], 0.75, 0.0);
    TST_EQ_DBL(ad[1], 1.0, 0.0);
    rt_reduce_get(RT_DTYPE_DOUBLE, RT_OP_MIN)(ad, bd, 2);
    TST_EQ_DBL(ad[0], 0.25, 0.0);
}

static bool never(void *arg)
{
    (*(int *)arg)++;
    return false;
}

static bool third_time(void *arg)
{
    return ++*(int *)arg >= 3;
}

void t_wait_phases(void)
{
    rt_wait_policy_t p = { 200 * 1000, 200 * 1000 };
    int calls = 0;
    uint64_t t0 = rt_wait_now_ns();

    /* Budgets spent: false, after at least spin + yield time, many polls. */
    TST_FALSE(rt_wait_spin_yield(&p, never, &calls));
    TST_TRUE(rt_wait_now_ns() - t0 >= 400 * 1000);
    TST_TRUE(calls > 2);
    calls = 0;
    TST_TRUE(rt_wait_spin_yield(&p, third_time, &calls));
    TST_EQ_INT(calls, 3);
    calls = 0;
    p.spin_ns = p.yield_ns = 0;                  /* rt_wait_until sleeps */
    rt_wait_until(&p, third_time, &calls);
    TST_EQ_INT(calls, 3);
    TST_TRUE(rt_wait_cpus_available() >= 1);
}

typedef struct gred_case {
    rt_gred_t g;
    int       nthreads;
    long      rounds;
    int       count;                             /* int32 elements */
    int       wrong;
    int       lasts[8];                          /* per thread: times last */
} gred_case_t;

typedef struct gred_arg {
    gred_case_t *c;
    int          id;
} gred_arg_t;

/* Thread id contributes id + 1 + r + j; the sum is T(T+1)/2 + T(r + j). */
static void *gred_thread(void *p)
{
    gred_arg_t *a = p;
    gred_case_t *c = a->c;
    int32_t in[64], out[64];

    for (long r = 0; r < c->rounds; r++) {
        rt_gred_ticket_t t;

        for (int j = 0; j < c->count; j++)
            in[j] = (int32_t)(a->id + 1 + r + j);
        if (rt_gred_arrive(&c->g, in, (size_t)c->count * 4, &t)) {
            c->lasts[a->id]++;
            memcpy(out, rt_gred_acc(&c->g), (size_t)c->count * 4);
            rt_gred_release(&c->g, out);
        } else {
            rt_gred_wait(&c->g, &t, out);
        }
        for (int j = 0; j < c->count; j++) {
            int32_t want = (int32_t)(c->nthreads * (c->nthreads + 1) / 2 +
                                     c->nthreads * (r + j));
            if (out[j] != want)
                __atomic_fetch_add(&c->wrong, 1, __ATOMIC_RELAXED);
        }
    }
    return NULL;
}

static void gred_run(int nthreads, rt_wait_mode_t mode, int count)
{
    rt_wait_policy_t pol = rt_wait_policy_auto(nthreads > 2);
    gred_case_t c;
    gred_arg_t args[8];
    pthread_t th[8];
    long lasts = 0;

    memset(&c, 0, sizeof(c));
    c.nthreads = nthreads;
    c.rounds = mode == RT_WAIT_BLOCK ? 300 : 3000;
    c.count = count;
    TST_EQ_STATUS(rt_gred_init(&c.g, (uint32_t)nthreads, RT_DTYPE_INT32, RT_OP_SUM,
                               256, mode, &pol), CM_OK);
    for (int i = 0; i < nthreads; i++) {
        args[i].c = &c;
        args[i].id = i;
        pthread_create(&th[i], NULL, gred_thread, &args[i]);
    }
    for (int i = 0; i < nthreads; i++) {
        pthread_join(th[i], NULL);
        lasts += c.lasts[i];
    }
    rt_gred_cleanup(&c.g);
    TST_EQ_INT(c.wrong, 0);
    TST_EQ_INT(lasts, c.rounds);                 /* exactly one last per round */
}

void t_gred_threads(void)
{
    gred_run(1, RT_WAIT_AUTO, 1);
    gred_run(2, RT_WAIT_AUTO, 1);
    gred_run(3, RT_WAIT_AUTO, 64);
    gred_run(4, RT_WAIT_SPIN, 7);
    gred_run(8, RT_WAIT_BLOCK, 64);
    gred_run(5, RT_WAIT_AUTO, 16);
}

void t_gred_invalid(void)
{
    rt_wait_policy_t pol = rt_wait_policy_auto(false);
    rt_gred_t g;

    TST_EQ_STATUS(rt_gred_init(&g, 0, RT_DTYPE_INT32, RT_OP_SUM, 4, RT_WAIT_AUTO, &pol),
                  CM_ERR_INVALID);
    TST_EQ_UINT(g.fanin, 0);
    TST_EQ_STATUS(rt_gred_init(&g, 2, RT_DTYPE_DOUBLE, RT_OP_SUM, 12, RT_WAIT_AUTO, &pol),
                  CM_ERR_INVALID);
}
