/*
 * rt_hooks.h - how the executor reports wrapper visits to an observer.
 *
 * This is the runtime's whole interface to tracing: a table of function
 * pointers and user data, filled by instrument/ (the event collectors)
 * and passed in rt_exec_params_t.  The runtime knows nothing of what an
 * observer does with the reports.
 *
 * A *location* is a thread of control that runs wrappers on one host:
 * one per computational thread of the host (RT_LOCATION_COMPUTE), one
 * per link the host serves (RT_LOCATION_LINK: a proxy whose parent is on
 * this host, for one tree instance), and, when the tree's root is an
 * algorithm node that spans the host, one for the host's part in it
 * (RT_LOCATION_ALGO: the host's MPI rank in the algorithm, shared by every
 * instance; whichever thread arrives last on the host runs it, and the
 * operations of a tree reach it one at a time).  The runtime alone decides which
 * locations a host has and in which order: rt_location_list enumerates
 * them, the executor creates exactly that list, and rt_exec_create
 * registers each one through the `location` hook, on the creating thread,
 * before any wrapper runs, with an rt_location_t that says what it is and
 * its index on the host.  An observer must not re-derive the list; it may
 * call rt_location_list to size itself before the executor exists, or for
 * another host (the list is a pure function of the tree, the instance
 * count and the host).  Who runs a link's wrappers (a waiting thread of
 * the host, or the link's service thread: rt_links_t) is the executor's
 * business: the location stays the same, and its visits come one at a
 * time, on whichever thread runs them.
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
#include "runtime/api/rt_auto.h"
#include "runtime/api/rt_pathmap.h"

typedef enum {
    RT_VISIT_ENTER = 0,
    RT_VISIT_LEAVE = 1
} rt_visit_t;

/* A message of an algorithm node's schedule (rt_hooks_t.msg): each send
   and each receive is reported when posted and when seen complete. */
typedef enum {
    RT_MSG_SEND      = 0,   /* a send was posted (MPI_Isend) */
    RT_MSG_SEND_DONE = 1,   /* that send completed */
    RT_MSG_RECV_POST = 2,   /* a receive was posted (MPI_Irecv) */
    RT_MSG_RECV      = 3    /* that receive completed: the data is here */
} rt_msg_t;

typedef enum {
    RT_LOCATION_COMPUTE = 0,   /* a computational thread of the pathmap */
    RT_LOCATION_LINK    = 1,   /* the server side of one proxy link */
    RT_LOCATION_ALGO    = 2    /* the host's part in the tree's algorithm node */
} rt_location_kind_t;

/* What one location of a host is.  Points into the tree (borrowed). */
typedef struct rt_location {
    rt_location_kind_t     kind;
    uint32_t               index;     /* position on its host, from 0 */
    rt_host_id_t           host;
    const rt_thread_map_t *thread;    /* compute: the thread; link: NULL */
    rt_node_id_t           proxy;     /* link: the proxy (on the client host);
                                         compute, algo: RT_ID_NONE */
    unsigned               instance;  /* link: the tree instance; else 0 */
    rt_node_id_t           enter;     /* the first wrapper it runs: the
                                         thread's entry, the proxy's parent,
                                         or the algorithm node */
} rt_location_t;

/*
 * The locations of `host` for `ninstances` instances of tree t, in their
 * order: computational threads by thread id, then links by proxy node id,
 * then instance, then the algorithm location if the root spans the host.  Fills out[0..n) when out is not NULL and returns n.
 * Pure: no MPI, no allocation; the same answer on every rank.
 */
uint32_t rt_location_list(const rt_tree_t *t, unsigned ninstances, rt_host_id_t host,
                          rt_location_t *out);

/*
 * Where one operation of a PAP-aware algorithm node took its hosts' arrival
 * times from, as seen by this host (rt_hooks_t.arrival).
 */
typedef struct rt_arrival_report {
    rt_arrival_t asked;      /* the node's arrival= */
    rt_arrival_t used;       /* what the schedule was made from: edge falls back to
                                history, history is equal on an instance's first op */
    int32_t      missing;    /* edge fell back: the node rank of the first host with
                                no estimate; -1 otherwise */
    int64_t      error_ns;   /* edge: this host's estimated arrival at the node minus
                                its actual arrival (> 0: it came earlier than
                                estimated); INT64_MIN: no estimate */
    int64_t      lead_ns;    /* edge: how long before this host's arrival its estimate
                                was shared (< 0 when the node shared it on arrival);
                                INT64_MIN: no estimate */
    int64_t      wait_ns;    /* time the node waited for the arrival vector */
} rt_arrival_report_t;

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
    /*
     * Inside an algorithm node, on its RT_LOCATION_ALGO location (between
     * that location's ENTER and LEAVE visits of the node): the collective
     * begins (RT_VISIT_ENTER, after the visit's ENTER) and ends
     * (RT_VISIT_LEAVE, before the visit's LEAVE); `root` is the rooted
     * algorithm's root as a rank of the node (-1 for an allreduce) and
     * bytes the tuple's size.  In between, each message of the schedule,
     * posted and completed (rt_msg_t), with the peer's rank in the node,
     * the schedule's round, the step's index among this rank's steps of
     * the operation (which pairs a post with its completion) and the
     * message's bytes.  The messages of one instance travel on one
     * communicator of their own (rt_exec.h), so instance names it.  Like
     * visit(): quick, never blocking.  Either may be NULL (nothing is
     * reported).
     */
    void (*coll)(void *loc, rt_visit_t what, unsigned instance, rt_node_id_t node,
                 uint64_t seq, int32_t root, size_t bytes);
    void (*msg)(void *loc, rt_msg_t what, unsigned instance, int32_t peer, int32_t round,
                uint32_t step, size_t bytes);
    /*
     * Inside a PAP-aware algorithm node (spec->pap), on its algorithm
     * location, once per operation: after the collective begins (coll
     * ENTER) and before its first message, where the arrival times came
     * from (rt_arrival_report_t, borrowed for the call).  NULL = nothing.
     */
    void (*arrival)(void *loc, unsigned instance, rt_node_id_t node, uint64_t seq,
                    const rt_arrival_report_t *report);
    /*
     * Inside an auto algorithm node (spec->autocfg), on its algorithm
     * location, once per operation: after arrival() and before the first
     * message, what the chooser chose and why (borrowed for the call);
     * rt_auto_cand_name(a, i) names candidate i.  NULL = nothing.
     */
    void (*choice)(void *loc, unsigned instance, rt_node_id_t node, uint64_t seq,
                   const rt_auto_t *a, const rt_auto_choice_t *choice);
} rt_hooks_t;

#endif /* RT_HOOKS_H */
