/*
 * gred.c - the gred wrapper (rt_gred.h has the protocol and its reasons).
 *
 * Two things make it fast where Figure 2's mutex + condition variable is
 * slow here: arrivals take a spin-then-yield lock held only for one
 * reduction, and waiters watch a generation counter before they ever touch
 * the condition variable.  The releaser signals the condition variable only
 * when a waiter has registered as a sleeper; the seq_cst increment of
 * `sleepers` before re-checking `gen`, against the releaser's seq_cst store
 * of `gen` before reading `sleepers`, guarantees that one of the two sees
 * the other (no lost wake-up).
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/api/rt_gred.h"

#define GRED_LOCK_SPINS 128

static void gred_lock(rt_gred_t *g)
{
    for (;;) {
        for (int i = 0; i < GRED_LOCK_SPINS; i++) {
            if (atomic_load_explicit(&g->lock, memory_order_relaxed) == 0 &&
                atomic_exchange_explicit(&g->lock, 1, memory_order_acquire) == 0)
                return;
            rt_cpu_relax();
        }
        sched_yield();   /* the holder may have been preempted */
    }
}

static void gred_unlock(rt_gred_t *g)
{
    atomic_store_explicit(&g->lock, 0, memory_order_release);
}

cm_status_t rt_gred_init(rt_gred_t *g, uint32_t fanin, rt_dtype_t dtype, rt_op_t op,
                         size_t max_bytes, rt_wait_mode_t mode,
                         const rt_wait_policy_t *policy)
{
    size_t elem = rt_dtype_size(dtype);
    size_t alloc = (max_bytes + 63) & ~(size_t)63;

    memset(g, 0, sizeof(*g));
    if (fanin == 0 || max_bytes % elem != 0)
        return CM_ERR_INVALID;
    g->fanin = fanin;
    g->elem_size = elem;
    g->reduce = rt_reduce_get(dtype, op);
    g->acc = aligned_alloc(64, alloc ? alloc : 64);
    g->result = aligned_alloc(64, alloc ? alloc : 64);
    g->deferred[0] = calloc(2 * (size_t)fanin, sizeof(void *));
    g->deferred[1] = g->deferred[0] ? g->deferred[0] + fanin : NULL;
    if (g->acc == NULL || g->result == NULL || g->deferred[0] == NULL) {
        free(g->acc);
        free(g->result);
        free(g->deferred[0]);
        memset(g, 0, sizeof(*g));       /* fanin 0: nothing to clean up */
        return CM_ERR_NOMEM;
    }
    g->policy = *policy;
    g->may_block = mode != RT_WAIT_SPIN;
    if (mode == RT_WAIT_SPIN)
        g->policy.yield_ns = UINT64_MAX;
    if (mode == RT_WAIT_BLOCK)
        g->policy.spin_ns = g->policy.yield_ns = 0;
    pthread_mutex_init(&g->sleep_mutex, NULL);
    pthread_cond_init(&g->sleep_cond, NULL);
    return CM_OK;
}

void rt_gred_cleanup(rt_gred_t *g)
{
    pthread_cond_destroy(&g->sleep_cond);
    pthread_mutex_destroy(&g->sleep_mutex);
    free(g->acc);
    free(g->result);
    free(g->deferred[0]);
}

/* The arrival itself, under the lock; sets *gen to the operation's. */
static bool gred_arrive_locked(rt_gred_t *g, const void *in, size_t bytes, uint64_t *gen)
{
    bool last;

    if (g->arrived == 0)
        memcpy(g->acc, in, bytes);
    else
        g->reduce(g->acc, in, bytes / g->elem_size);
    /* No release can happen before this arrival, so gen is this operation's. */
    *gen = atomic_load_explicit(&g->gen, memory_order_relaxed);
    last = ++g->arrived == g->fanin;
    if (last) {
        g->arrived = 0;
        g->bytes = bytes;
    }
    return last;
}

bool rt_gred_arrive_defer(rt_gred_t *g, const void *in, size_t bytes, void *cookie)
{
    uint64_t gen;
    bool last;

    gred_lock(g);
    last = gred_arrive_locked(g, in, bytes, &gen);
    if (!last)
        g->deferred[gen & 1][g->ndeferred[gen & 1]++] = cookie;
    gred_unlock(g);
    return last;
}

bool rt_gred_arrive(rt_gred_t *g, const void *in, size_t bytes, rt_gred_ticket_t *t)
{
    bool last;

    gred_lock(g);
    last = gred_arrive_locked(g, in, bytes, &t->gen);
    gred_unlock(g);
    return last;
}

void rt_gred_release(rt_gred_t *g, const void *result)
{
    memcpy(g->result, result, g->bytes);
    atomic_fetch_add(&g->gen, 1);                  /* seq_cst, see above */
    if (atomic_load(&g->sleepers) > 0) {
        pthread_mutex_lock(&g->sleep_mutex);
        pthread_cond_broadcast(&g->sleep_cond);
        pthread_mutex_unlock(&g->sleep_mutex);
    }
}

void rt_gred_release_each(rt_gred_t *g, const void *result,
                          void (*each)(void *cookie, void *ud), void *ud)
{
    uint64_t gen = atomic_load_explicit(&g->gen, memory_order_relaxed);
    uint32_t n;

    /* Under the lock, so that the hand-over happens before any arrival of
       a later operation that takes the lock (the cookies were left under it). */
    gred_lock(g);
    n = g->ndeferred[gen & 1];
    for (uint32_t i = 0; i < n; i++)
        each(g->deferred[gen & 1][i], ud);
    g->ndeferred[gen & 1] = 0;
    gred_unlock(g);
    rt_gred_release(g, result);
}

bool rt_gred_released(const rt_gred_t *g, const rt_gred_ticket_t *t)
{
    return atomic_load_explicit(&g->gen, memory_order_acquire) != t->gen;
}

typedef struct gred_wait_arg {
    rt_gred_t *g;
    uint64_t   gen;
} gred_wait_arg_t;

static bool gred_released(void *arg)
{
    gred_wait_arg_t *w = arg;
    return atomic_load_explicit(&w->g->gen, memory_order_acquire) != w->gen;
}

void rt_gred_wait(rt_gred_t *g, const rt_gred_ticket_t *t, void *out)
{
    gred_wait_arg_t w = { g, t->gen };

    if (!rt_wait_spin_yield(&g->policy, gred_released, &w) && g->may_block) {
        pthread_mutex_lock(&g->sleep_mutex);
        atomic_fetch_add(&g->sleepers, 1);
        while (atomic_load(&g->gen) == t->gen)
            pthread_cond_wait(&g->sleep_cond, &g->sleep_mutex);
        atomic_fetch_sub(&g->sleepers, 1);
        pthread_mutex_unlock(&g->sleep_mutex);
    }
    memcpy(out, g->result, g->bytes);
}
