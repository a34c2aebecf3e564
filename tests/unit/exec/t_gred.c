/*
 * t_gred.c - unit tests of the reduction kernels, the wait phases and the
 * gred wrapper under real threads (no MPI).
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
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

/* ---- deferred contributions (rt_gred_arrive_defer, rt_gred_release_each) ---- */

typedef struct cookie_list {
    int got[8];
    int n;
} cookie_list_t;

static void collect(void *cookie, void *ud)
{
    cookie_list_t *l = ud;

    l->got[l->n++] = *(int *)cookie;
}

/*
 * One thread plays every contributor, so the order is known: the cookies of
 * an operation come back once, to its release only, and never those of the
 * operation before (the two lists alternate).
 */
void t_gred_defer_order(void)
{
    rt_wait_policy_t pol = rt_wait_policy_auto(false);
    int ids[6] = { 10, 11, 12, 13, 14, 15 };
    int32_t one = 1, two = 2, four = 4, out;
    cookie_list_t l;
    rt_gred_ticket_t t;
    rt_gred_t g;

    TST_EQ_STATUS(rt_gred_init(&g, 3, RT_DTYPE_INT32, RT_OP_SUM, 4, RT_WAIT_AUTO, &pol), CM_OK);
    /* Operation 0: two deferred, then a plain last arrival. */
    TST_FALSE(rt_gred_arrive_defer(&g, &one, 4, &ids[0]));
    TST_FALSE(rt_gred_arrive_defer(&g, &two, 4, &ids[1]));
    TST_TRUE(rt_gred_arrive(&g, &four, 4, &t));
    TST_EQ_INT(*(const int32_t *)rt_gred_acc(&g), 7);
    memset(&l, 0, sizeof(l));
    out = 7;
    rt_gred_release_each(&g, &out, collect, &l);
    TST_EQ_INT(l.n, 2);
    TST_EQ_INT(l.got[0], 10);
    TST_EQ_INT(l.got[1], 11);
    TST_TRUE(rt_gred_released(&g, &t));
    TST_EQ_INT(*(const int32_t *)rt_gred_result(&g), 7);
    /* Operation 1: a plain waiter first, then deferred ones; the last is a
       deferred arrival, whose cookie is not kept (it carries on). */
    TST_FALSE(rt_gred_arrive(&g, &one, 4, &t));
    TST_FALSE(rt_gred_released(&g, &t));
    TST_FALSE(rt_gred_arrive_defer(&g, &one, 4, &ids[2]));
    TST_TRUE(rt_gred_arrive_defer(&g, &one, 4, &ids[3]));
    TST_EQ_INT(*(const int32_t *)rt_gred_acc(&g), 3);
    memset(&l, 0, sizeof(l));
    out = 3;
    rt_gred_release_each(&g, &out, collect, &l);
    TST_EQ_INT(l.n, 1);
    TST_EQ_INT(l.got[0], 12);
    TST_TRUE(rt_gred_released(&g, &t));
    rt_gred_wait(&g, &t, &out);
    TST_EQ_INT(out, 3);
    /* Operation 2 (operation 0's list again): only its own cookies. */
    TST_FALSE(rt_gred_arrive_defer(&g, &four, 4, &ids[4]));
    TST_FALSE(rt_gred_arrive(&g, &four, 4, &t));
    TST_TRUE(rt_gred_arrive(&g, &four, 4, &t));
    memset(&l, 0, sizeof(l));
    out = 12;
    rt_gred_release_each(&g, &out, collect, &l);
    TST_EQ_INT(l.n, 1);
    TST_EQ_INT(l.got[0], 14);
    /* rt_gred_release with no cookies left hands nothing over either. */
    memset(&l, 0, sizeof(l));
    TST_FALSE(rt_gred_arrive(&g, &one, 4, &t));
    TST_FALSE(rt_gred_arrive(&g, &one, 4, &t));
    TST_TRUE(rt_gred_arrive(&g, &one, 4, &t));
    rt_gred_release_each(&g, &out, collect, &l);
    TST_EQ_INT(l.n, 0);
    rt_gred_cleanup(&g);
}

/*
 * Threads that mix the two ways: in some rounds a thread contributes
 * deferred and, if not last, waits for its "reply" on a flag of its own
 * that the releaser sets after rt_gred_release_each (as the link engine's
 * link client waits for its reply), in the others it waits in the gred.
 * Every cookie must come back exactly once, in its round, with the right
 * result, and exactly one arrival is last per round.
 */
typedef struct defer_case {
    rt_gred_t        g;
    int              nthreads;
    long             rounds;
    _Atomic long     reply[8];     /* round + 1 whose result thread i got */
    int32_t          result[8];
    _Atomic int      wrong, lasts;
} defer_case_t;

typedef struct defer_arg {
    defer_case_t *c;
    int           id;
} defer_arg_t;

typedef struct defer_done {
    defer_case_t *c;
    int           ids[8];
    int           n;
} defer_done_t;

static void defer_collect(void *cookie, void *ud)
{
    defer_done_t *d = ud;

    d->ids[d->n++] = ((defer_arg_t *)cookie)->id;
}

static void *defer_thread(void *p)
{
    defer_arg_t *a = p;
    defer_case_t *c = a->c;
    int32_t want_base = (int32_t)(c->nthreads * (c->nthreads + 1) / 2);

    for (long r = 0; r < c->rounds; r++) {
        int32_t in = (int32_t)(a->id + 1 + r), out = 0;
        int32_t want = want_base + (int32_t)(c->nthreads * r);
        bool deferred = (r + a->id) % 3 == 0, last;
        rt_gred_ticket_t t;

        if (deferred)
            last = rt_gred_arrive_defer(&c->g, &in, 4, a);
        else
            last = rt_gred_arrive(&c->g, &in, 4, &t);
        if (last) {
            defer_done_t d = { c, { 0 }, 0 };

            atomic_fetch_add(&c->lasts, 1);
            out = *(const int32_t *)rt_gred_acc(&c->g);
            rt_gred_release_each(&c->g, &out, defer_collect, &d);
            for (int i = 0; i < d.n; i++) {
                c->result[d.ids[i]] = *(const int32_t *)rt_gred_result(&c->g);
                if (atomic_load(&c->reply[d.ids[i]]) != r)     /* handed over twice? */
                    atomic_fetch_add(&c->wrong, 1);
                atomic_store_explicit(&c->reply[d.ids[i]], r + 1, memory_order_release);
            }
        } else if (deferred) {
            while (atomic_load_explicit(&c->reply[a->id], memory_order_acquire) != r + 1)
                sched_yield();
            out = c->result[a->id];
        } else {
            rt_gred_wait(&c->g, &t, &out);
        }
        if (out != want)
            atomic_fetch_add(&c->wrong, 1);
        if (!deferred || last)
            atomic_store(&c->reply[a->id], r + 1);
    }
    return NULL;
}

void t_gred_defer_threads(void)
{
    static defer_case_t c;
    rt_wait_policy_t pol = rt_wait_policy_auto(true);
    defer_arg_t args[5];
    pthread_t th[5];

    memset(&c, 0, sizeof(c));
    c.nthreads = 5;
    c.rounds = 2000;
    TST_EQ_STATUS(rt_gred_init(&c.g, 5, RT_DTYPE_INT32, RT_OP_SUM, 4, RT_WAIT_AUTO, &pol),
                  CM_OK);
    for (int i = 0; i < c.nthreads; i++) {
        args[i].c = &c;
        args[i].id = i;
        pthread_create(&th[i], NULL, defer_thread, &args[i]);
    }
    for (int i = 0; i < c.nthreads; i++)
        pthread_join(th[i], NULL);
    rt_gred_cleanup(&c.g);
    TST_EQ_INT(atomic_load(&c.wrong), 0);
    TST_EQ_INT(atomic_load(&c.lasts), c.rounds);
    for (int i = 0; i < c.nthreads; i++)
        TST_EQ_INT(atomic_load(&c.reply[i]), c.rounds);
}
