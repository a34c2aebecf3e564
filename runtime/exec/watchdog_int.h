/*
 * watchdog_int.h - private to runtime/exec: what each location records for
 * the stall watchdog, and the watchdog's start and stop (watchdog.c).
 *
 * Every location (a computational thread, a link, or the host's part in an
 * algorithm node; the last two written by whichever thread runs them, one
 * at a time) keeps, on its own cache line (rt_site_t), its count of operations started
 * per instance, which is the watchdog's measure of progress, and a `where`
 * word saying what it does (rt_where_t, tree instance, wrapper), set when
 * it enters the tree, starts a wait and leaves the tree.  Only the thread
 * running it writes them, with relaxed stores; the watchdog thread reads them racily.
 * A wrapper passed through without waiting costs nothing, an operation a
 * few stores to a line the thread owns.
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
    RT_WHERE_LISTEN,        /* link waiting for its next request */
    RT_WHERE_RUN,           /* walking its path from `node`, not waiting */
    RT_WHERE_GRED,          /* waiting in gred `node` for the operation's result */
    RT_WHERE_PROXY,         /* in proxy `node`: sending, then waiting for the reply */
    RT_WHERE_REPLY,         /* link sending the result back to its client */
    RT_WHERE_ALGO           /* running algorithm node `node` with the other hosts */
} rt_where_t;

static inline uint64_t rt__where_word(rt_where_t what, unsigned instance, rt_node_id_t node)
{
    return (uint64_t)what << 56 | (uint64_t)instance << 32 | node;
}

/* The location enters or leaves the tree, or starts a wait, there. */
static inline void rt__where_set(_Atomic uint64_t *where, rt_where_t what, unsigned instance,
                                 rt_node_id_t node)
{
    atomic_store_explicit(where, rt__where_word(what, instance, node), memory_order_relaxed);
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
