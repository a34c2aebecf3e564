/*
 * rt_hooks.h - how the executor reports wrapper visits to an observer.
 *
 * This is the runtime's whole interface to tracing: a table of function
 * pointers and user data, filled by instrument/ (the event collectors)
 * and passed in rt_exec_params_t.  The runtime knows nothing of what an
 * observer does with the reports.
 *
 * A *location* is a thread that runs wrappers on this host: one per local
 * computational thread and one per service thread.  rt_exec_create
 * registers each one, on the creating thread, before any wrapper runs.
 *
 * A *visit* is one thread passing through one wrapper of one tree instance
 * in one operation.  The executor reports ENTER just before the wrapper
 * runs (t1 of EventSpace's Figure 6) and LEAVE just after it returns (t4),
 * on the thread that ran it.  Visits nest on a thread: when the last
 * arrival at a gred carries the partial result on, its ENTER of the next
 * wrapper is that gred's t2 and the matching LEAVE its t3.  `seq` numbers
 * the operations on one tree instance from 0 (the n-th allreduce on that
 * instance since rt_exec_create); it is the same on every thread and host
 * that takes part in the operation.
 *
 * With no hooks (params->hooks == NULL) the executor runs a copy of its
 * path walk compiled without the reporting calls: nothing is paid.
 */
#ifndef RT_HOOKS_H
#define RT_HOOKS_H

#include <stddef.h>
#include <stdint.h>
#include "runtime/api/rt_pathmap.h"

typedef enum {
    RT_VISIT_ENTER = 0,
    RT_VISIT_LEAVE = 1
} rt_visit_t;

typedef struct rt_hooks {
    void *ud;
    /*
     * A location of this host: a computational thread (thread != NULL) or
     * the service thread of link (proxy, instance) (thread == NULL).
     * Returns the handle later passed to visit(), or NULL if the observer
     * cannot record it (rt_exec_create then fails with CM_ERR_NOMEM).
     */
    void *(*location)(void *ud, const rt_thread_map_t *thread, rt_node_id_t proxy,
                      unsigned instance);
    /*
     * On the executing thread, for wrapper `node` of tree instance
     * `instance`.  Must be quick and must not block: it runs inside the
     * operation being measured.
     */
    void (*visit)(void *loc, rt_visit_t what, unsigned instance, rt_node_id_t node,
                  uint64_t seq, size_t bytes);
} rt_hooks_t;

#endif /* RT_HOOKS_H */
