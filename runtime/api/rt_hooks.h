/*
 * rt_hooks.h - how the executor reports wrapper visits to an observer.
 *
 * This is the runtime's whole interface to tracing: a table of function
 * pointers and user data, filled by instrument/ (the event collectors)
 * and passed in rt_exec_params_t.  The runtime knows nothing of what an
 * observer does with the reports.
 *
 * A *location* is a thread of control that runs wrappers on one host:
 * one per computational thread of the host (RT_LOCATION_COMPUTE) and one
 * per link the host serves (RT_LOCATION_LINK: a proxy whose parent is on
 * this host, for one tree instance).  The runtime alone decides which
 * locations a host has and in which order: rt_location_list enumerates
 * them, the executor creates exactly that list, and rt_exec_create
 * registers each one through the `location` hook, on the creating thread,
 * before any wrapper runs, with an rt_location_t that says what it is and
 * its index on the host.  An observer must not re-derive the list; it may
 * call rt_location_list to size itself before the executor exists, or for
 * another host (the list is a pure function of the tree, the instance
 * count and the host).  Who runs a link's wrappers (today one service
 * thread per link) is the executor's business: the location stays the
 * same.
 *
 * A *visit* is one location passing through one wrapper of one tree
 * instance in one operation.  The executor reports ENTER just before the
 * wrapper runs (t1 of EventSpace's Figure 6) and LEAVE just after it
 * returns (t4), on the thread that ran it.  Visits nest on a location:
 * when the last arrival at a gred carries the partial result on, its
 * ENTER of the next wrapper is that gred's t2 and the matching LEAVE its
 * t3.  `seq` numbers the operations on one tree instance from 0 (the n-th
 * allreduce on that instance since rt_exec_create); it is the same on
 * every thread and host that takes part in the operation.
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

typedef enum {
    RT_LOCATION_COMPUTE = 0,   /* a computational thread of the pathmap */
    RT_LOCATION_LINK    = 1    /* the server side of one proxy link */
} rt_location_kind_t;

/* What one location of a host is.  Points into the tree (borrowed). */
typedef struct rt_location {
    rt_location_kind_t     kind;
    uint32_t               index;     /* position on its host, from 0 */
    rt_host_id_t           host;
    const rt_thread_map_t *thread;    /* compute: the thread; link: NULL */
    rt_node_id_t           proxy;     /* link: the proxy (on the client host);
                                         compute: RT_ID_NONE */
    unsigned               instance;  /* link: the tree instance; compute: 0 */
    rt_node_id_t           enter;     /* the first wrapper it runs: the
                                         thread's entry, or the proxy's parent */
} rt_location_t;

/*
 * The locations of `host` for `ninstances` instances of tree t, in their
 * order: computational threads by thread id, then links by proxy node id,
 * then instance.  Fills out[0..n) when out is not NULL and returns n.
 * Pure: no MPI, no allocation; the same answer on every rank.
 */
uint32_t rt_location_list(const rt_tree_t *t, unsigned ninstances, rt_host_id_t host,
                          rt_location_t *out);

typedef struct rt_hooks {
    void *ud;
    /*
     * A location of this host, as listed by rt_location_list, in index
     * order.  `where` is borrowed for the call only (copy what you keep;
     * its pointers into the tree stay valid as long as the pathmap).
     * Returns the handle later passed to visit(), or NULL if the observer
     * cannot record it (rt_exec_create then fails, naming the location).
     */
    void *(*location)(void *ud, const rt_location_t *where);
    /*
     * On the executing thread, for wrapper `node` of tree instance
     * `instance`.  Must be quick and must not block: it runs inside the
     * operation being measured.
     */
    void (*visit)(void *loc, rt_visit_t what, unsigned instance, rt_node_id_t node,
                  uint64_t seq, size_t bytes);
} rt_hooks_t;

#endif /* RT_HOOKS_H */
