/*
 * rt_gred.h - the gred wrapper: a partial allreduce shared by contributors.
 *
 * Figure 2 of the PATHS paper: contributors reduce into an accumulator; all
 * but the last arrival wait; the last continues down the tree with the
 * accumulator, and when the result comes back it releases the others, who
 * each return a copy.  The protocol, for every contributor:
 *
 *     rt_gred_ticket_t t;
 *     if (rt_gred_arrive(g, in, count, &t)) {      // last arrival
 *         ... pass rt_gred_acc(g) down, get the result in `out` ...
 *         rt_gred_release(g, out);
 *     } else {
 *         rt_gred_wait(g, &t, out);
 *     }
 *
 * A contribution made for someone who must not wait (the link engine runs
 * a remote host's request on a thread that already waits elsewhere) uses
 * rt_gred_arrive_defer instead: when it is not the last it leaves a cookie,
 * and the last arrival's rt_gred_release_each hands every cookie of the
 * operation to a callback before anyone is woken.
 *
 * Thread safety: any number of threads may call arrive/wait concurrently;
 * exactly `fanin` contributions make one operation.  The accumulator is
 * guarded by a spin-then-yield lock (held for one reduction of the tuple);
 * waiting follows the gred's rt_wait_policy_t and, unless the mode is
 * RT_WAIT_SPIN, ends on a condition variable.  The next operation may start
 * while slow waiters of the previous one are still copying the result: an
 * operation's result is only overwritten by the release of the next one,
 * which needs every contributor, including those waiters, to arrive first.
 */
#ifndef RT_GRED_H
#define RT_GRED_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include "runtime/api/rt_pathmap.h"
#include "runtime/api/rt_reduce.h"
#include "runtime/api/rt_wait.h"

typedef struct rt_gred {
    /* Written by arrivals: the lock, the count and the accumulator. */
    _Alignas(64) atomic_uint lock;
    uint32_t             arrived;
    uint32_t             fanin;
    size_t               elem_size;
    rt_reduce_fn_t       reduce;
    unsigned char       *acc;
    void               **deferred[2];  /* cookies by operation parity, fanin each */
    uint32_t             ndeferred[2];
    /* Read by waiters in their spin loop: on a cache line of its own. */
    _Alignas(64) atomic_uint_fast64_t gen;
    _Alignas(64) atomic_uint sleepers;
    unsigned char       *result;
    size_t               bytes;        /* of the current operation */
    rt_wait_policy_t     policy;
    bool                 may_block;
    pthread_mutex_t      sleep_mutex;
    pthread_cond_t       sleep_cond;
} rt_gred_t;

typedef struct rt_gred_ticket {
    uint64_t gen;
} rt_gred_ticket_t;

/*
 * Prepares g for `fanin` contributors of tuples of at most max_bytes.
 * CM_ERR_NOMEM or CM_ERR_INVALID (fanin 0, max_bytes not a multiple of the
 * element size), leaving g->fanin 0.  rt_gred_cleanup frees what a
 * successful init allocated.
 */
cm_status_t rt_gred_init(rt_gred_t *g, uint32_t fanin, rt_dtype_t dtype, rt_op_t op,
                         size_t max_bytes, rt_wait_mode_t mode,
                         const rt_wait_policy_t *policy);
void        rt_gred_cleanup(rt_gred_t *g);

/* Contributes `bytes` of `in`; true for the last arrival of the operation. */
bool rt_gred_arrive(rt_gred_t *g, const void *in, size_t bytes, rt_gred_ticket_t *t);

/*
 * rt_gred_arrive for a contributor that will not wait: if it is not the
 * last, `cookie` is kept for this operation's rt_gred_release_each and the
 * caller goes on (it must not call rt_gred_wait).  At most fanin cookies
 * per operation.  Operations alternate two cookie lists: the list of
 * operation k is reused by k + 2, whose contributions need the result of
 * k + 1, which needs every contributor of k, cookies included, to have
 * been handed over.
 */
bool rt_gred_arrive_defer(rt_gred_t *g, const void *in, size_t bytes, void *cookie);

/* The reduced tuple, valid for the last arrival until it calls release. */
static inline const void *rt_gred_acc(const rt_gred_t *g)
{
    return g->acc;
}

/* Last arrival: publishes `result` (g->bytes long) and wakes the others. */
void rt_gred_release(rt_gred_t *g, const void *result);

/*
 * rt_gred_release that first calls each(cookie, ud) for every cookie left
 * by rt_gred_arrive_defer in this operation, under the gred's lock (each
 * must be quick: e.g. push the cookie on a list), then publishes.
 */
void rt_gred_release_each(rt_gred_t *g, const void *result,
                          void (*each)(void *cookie, void *ud), void *ud);

/* Others: waits for the release of the ticket's operation, copies to out. */
void rt_gred_wait(rt_gred_t *g, const rt_gred_ticket_t *t, void *out);

/*
 * For a waiter that waits its own way (the link engine's, which serves
 * links between checks): whether the ticket's operation was released, and
 * the result once it was (the gred's copy, valid until the next release).
 */
bool rt_gred_released(const rt_gred_t *g, const rt_gred_ticket_t *t);
static inline const void *rt_gred_result(const rt_gred_t *g)
{
    return g->result;
}

#endif /* RT_GRED_H */
