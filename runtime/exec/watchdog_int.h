/*
 * watchdog_int.h - private to runtime/exec: what each location records for
 * the stall watchdog, and the watchdog's start and stop (watchdog.c).
 *
 * Every location (a computational thread, or the service thread of a link)
 * owns one rt_progress_t on its own cache line.  Only its thread writes it,
 * with relaxed stores: a step count, bumped at every note, and a `where`
 * word saying what the thread does now (rt_where_t, tree instance, wrapper).
 * The watchdog thread reads them racily, to sum the steps and to say where
 * each thread waits; nothing else reads them.  A note costs two stores to a
 * line the thread already owns.
 */
#ifndef WATCHDOG_INT_H
#define WATCHDOG_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include "runtime/api/rt_pathmap.h"

/* What a location is doing.  Only OUTSIDE and LISTEN are outside the tree. */
typedef enum {
    RT_WHERE_OUTSIDE = 0,   /* computational thread between allreduces */
    RT_WHERE_LISTEN,        /* service thread waiting for its link's next request */
    RT_WHERE_RUN,           /* running `node` (arriving, reducing, the core's copy) */
    RT_WHERE_GRED,          /* waiting in gred `node` for the operation's result */
    RT_WHERE_PROXY,         /* in proxy `node`: sending, then waiting for the reply */
    RT_WHERE_REPLY          /* service thread sending the result back to its client */
} rt_where_t;

typedef struct rt_progress {
    _Atomic uint64_t steps;  /* notes made so far */
    _Atomic uint64_t where;  /* what << 56 | instance << 32 | node */
} rt_progress_t;

static inline void rt__progress_note(rt_progress_t *p, rt_where_t what, unsigned instance,
                                     rt_node_id_t node)
{
    uint64_t steps = atomic_load_explicit(&p->steps, memory_order_relaxed);

    atomic_store_explicit(&p->where, (uint64_t)what << 56 | (uint64_t)instance << 32 | node,
                          memory_order_relaxed);
    atomic_store_explicit(&p->steps, steps + 1, memory_order_relaxed);
}

static inline rt_where_t   rt__where_what(uint64_t w)     { return (rt_where_t)(w >> 56); }
static inline unsigned     rt__where_instance(uint64_t w) { return (unsigned)(w >> 32) & 0xff; }
static inline rt_node_id_t rt__where_node(uint64_t w)     { return (rt_node_id_t)w; }

typedef struct rt_watchdog rt_watchdog_t;
struct rt_exec;

/*
 * Posts the receive for other ranks' notices and starts the watchdog thread
 * of ex, which must be fully set up (its records are read from now on).
 * Local: no collective.  CM_ERR_NOMEM, CM_ERR_MPI or CM_ERR_THREAD, with
 * nothing left running.
 */
cm_status_t rt__watchdog_start(struct rt_exec *ex, double seconds, rt_watchdog_t **wd_p);

/* Stops and joins the thread, cancels the receive, frees wd.  NULL is allowed. */
void rt__watchdog_stop(rt_watchdog_t *wd);

#endif /* WATCHDOG_INT_H */
