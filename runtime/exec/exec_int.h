/*
 * exec_int.h - private to runtime/exec: the executor's state.
 */
#ifndef EXEC_INT_H
#define EXEC_INT_H

#include <pthread.h>
#include "runtime/api/rt_algo_run.h"
#include "runtime/api/rt_exec.h"
#include "runtime/api/rt_gred.h"
#include "runtime/exec/watchdog_int.h"

#define EXEC_INSTANCES_MAX 64       /* tree instances per executor */

struct rt_segment;

/* Per (instance, node) on this host; indexed instance * nnodes + node. */
typedef struct rt_node_state {
    rt_gred_t      gred;        /* gred */
    unsigned char *store;       /* core: the stored tuple */
    int            peer;        /* proxy: rank of the parent's host */
    int            tag;         /* proxy: this link's MPI tag */
    struct rt_segment *seg;     /* gred: its segment, if threads serve its links */
} rt_node_state_t;

/*
 * The wrappers one context runs on this host: from its entry wrapper down
 * to the first proxy or the core, inclusive.
 */
typedef struct rt_path {
    const rt_node_id_t *nodes;
    uint32_t            len;
} rt_path_t;

/*
 * What a location keeps on its thread: the observer's handle, where it is
 * for the watchdog, and its count of operations started per instance (the
 * `seq` of rt_hooks.h, and the watchdog's measure of progress).  Written by
 * its thread only; aligned so that threads never share a line they write.
 */
typedef struct rt_site {
    void             *loc;      /* NULL when not traced */
    _Atomic uint64_t  where;    /* watchdog_int.h */
    _Atomic uint64_t  ops[EXEC_INSTANCES_MAX];
} __attribute__((aligned(64))) rt_site_t;

/*
 * A link: the server side, on this host, of one proxy of one instance.
 * Served either by a service thread of its own (`service`) or by the
 * computational threads waiting in its segment (link.c).  Either way one
 * operation at a time: the client sends the next request only after the
 * reply to the last one.
 */
typedef struct rt_link {
    struct rt_exec    *ex;
    const rt_location_t *where; /* its location (rt_location_list) */
    rt_node_id_t       proxy;   /* the proxy on the client host */
    unsigned           instance;
    int                peer;    /* the client's rank */
    int                tag;
    rt_path_t          path;    /* starts at the proxy's parent */
    rt_site_t         *site;    /* its location's */
    unsigned char     *in, *out;
    bool               service; /* a service thread serves it */
    pthread_t          thread;  /* service: the thread */
    int                started;
    /* Served by threads (link.c): the operation in flight. */
    struct rt_segment *seg;
    size_t             bytes;   /* of the request */
    uint64_t           seq;     /* its operation on the instance */
    uint32_t           at;      /* index in path where its carry stopped */
    struct rt_link    *next;    /* on a releaser's list of links to finish */
    MPI_Request        req;     /* the next request's receive, posted */
    _Atomic int        claim;   /* 1 while a thread tests req or carries l */
} rt_link_t;

/*
 * A segment: the part of this host's tree that ends at one proxy, core or
 * algorithm node (a tree of greds on the host and that end), for one
 * instance, when computational threads enter it and so serve the links
 * that enter it (link.c).  A link whose segment no thread enters keeps a
 * service thread.
 */
typedef struct rt_segment {
    rt_node_id_t       end;
    unsigned           instance;
    rt_link_t        **links;   /* the links entering it */
    uint32_t           nlinks;
    /* The end is a proxy whose request a link's carry sent: the reply's
       receive, tested by whichever waiting thread claims it. */
    _Atomic(rt_link_t *) pending;
    MPI_Request        pending_req;
    _Atomic int        claim;
} rt_segment_t;

/* This host's part in the tree's algorithm node (algo_node.c). */
typedef struct rt_algo_node rt_algo_node_t;

/* The arrival estimator of an arrival=edge node (estimate.c). */
typedef struct rt_est rt_est_t;

struct rt_exec {
    const rt_pathmap_t     *pm;
    const rt_tree_t        *tree;
    MPI_Comm                comm;        /* our duplicate, MPI_ERRORS_RETURN */
    int                     rank, size;
    unsigned                ninstances;
    size_t                  max_bytes;
    rt_wait_policy_t        policy;
    rt_node_state_t        *state;
    rt_location_t          *locations;   /* this host's, rt_location_list order */
    uint32_t                nlocations;  /* nlocal + nlinks (+ 1 for an algorithm node) */
    const rt_thread_map_t **local;       /* this host's threads */
    rt_path_t              *local_paths;
    uint32_t                nlocal;
    rt_links_t              link_mode;
    rt_link_t              *links;       /* every link this host serves */
    uint32_t                nlinks;
    uint32_t                nservices;   /* links with a service thread */
    rt_segment_t           *segments;    /* served by threads */
    uint32_t                nsegments;
    rt_link_t             **seg_links;   /* backing store of segments' lists */
    rt_node_id_t           *path_pool;   /* backing store of every rt_path_t */
    rt_hooks_t              hooks;       /* valid when traced */
    bool                    traced;
    rt_site_t              *sites;       /* [nlocations], by location index */
    rt_watchdog_t          *watchdog;    /* NULL when none */
    rt_algo_node_t         *algo;        /* NULL: no algorithm node spans this host */
    rt_est_t               *est;         /* NULL: no arrival=edge node spans this host */
    bool                    edge_warmup; /* params->edge_warmup, for rt__algo_node_create */
};

static inline rt_node_state_t *rt__exec_state(rt_exec_t *ex, unsigned instance,
                                              rt_node_id_t node)
{
    return &ex->state[(size_t)instance * ex->tree->nnodes + node];
}

/*
 * Runs a path: the walk down, the proxy or core at its end, the walk up.
 * site is the calling location's.  The caller notes where the location is
 * once the path has returned (rt__where_set).
 */
void rt__exec_run_path(rt_exec_t *ex, unsigned instance, const rt_path_t *path,
                       const void *in, void *out, size_t bytes, rt_site_t *site);

/*
 * The link engine (link.c).  wait: a thread that waits in gred `st` (of a
 * served segment) for ticket t serves the segment's links until the gred
 * is released, then copies the result to out.  release: the walk up
 * releases a gred; links whose carry stopped there are put on *finish.
 * finish: replies to those links (releasing their own greds first).
 */
void rt__link_wait(rt_exec_t *ex, rt_node_state_t *st, const rt_gred_ticket_t *t, void *out);
void rt__link_release(rt_node_state_t *st, const void *result, rt_link_t **finish);
void rt__link_finish_all(rt_exec_t *ex, rt_link_t *finish);
/* Set-up: which links threads serve and their segments (after exec_plan);
   then, once the wrappers' state exists, the greds that wait the engine's way. */
cm_status_t rt__link_plan(rt_exec_t *ex);
/* Whether the link of `proxy` gets a service thread on its parent's host
   (the same answer on every rank: the client sends stop requests to those). */
bool        rt__link_needs_service(const rt_tree_t *t, rt_node_id_t proxy, rt_links_t mode);
void        rt__link_attach(rt_exec_t *ex);
/* The receive of the first request of every link threads serve (in set-up,
   once the buffers exist), and their cancellation (teardown, after the
   last operation, or after a failed set-up). */
cm_status_t rt__link_post(rt_exec_t *ex);
void        rt__link_cancel(rt_exec_t *ex);

/* Client side of a proxy: sends cur to the parent's host, waits for out. */
void rt__proxy_call(rt_exec_t *ex, const rt_node_state_t *st, const void *cur,
                    void *out, size_t bytes);

/*
 * The algorithm node (algo_node.c).  create is collective over ex->comm,
 * after exec_plan; set_site gives it its location's site (after the sites
 * exist); run is the node's part of a path: cur in, the result in out.
 */
cm_status_t rt__algo_node_create(rt_exec_t *ex, cm_err_t *err);
void rt__algo_node_destroy(rt_exec_t *ex);
void rt__algo_node_set_site(rt_exec_t *ex, rt_site_t *site);
void rt__algo_node_run(rt_exec_t *ex, unsigned instance, const void *cur, void *out,
                       size_t bytes, uint64_t seq, rt_site_t *caller);

/*
 * The arrival estimator (estimate.c; docs/runtime.md, "Arrival estimation
 * with edge()"), for an arrival=edge algorithm node spanning this host.
 * create: in rt__algo_node_create, which duplicates the node's
 * communicator for it (comm, now the estimator's) and checks that its hosts
 * agree on edge_warmup; offset_ns is the node's clock offset to its rank 0.  start:
 * its background thread, once set-up is agreed (no exchange can be posted
 * before); phase 0 begins.  stop: in rt_exec_destroy after the barrier
 * (collective over the node: every host completes and shares one last
 * phase, so that all post as many exchanges), joins the thread.  destroy
 * frees (a stopped or never started estimator).
 * arrive/returned: rt_exec_allreduce's entry and return, by thread local.
 * node_begin: the node's op (after t1 = arrived): completes this host's
 * estimate if no thread did, waits for the phase's vector, fills the
 * report and returns the vector (NULL = all equal) and *plan_p, the plan
 * with the schedule made ahead, or NULL (run on the instance's own);
 * node_end after the run.
 */
cm_status_t rt__est_create(rt_exec_t *ex, const rt_algo_spec_t *spec, int32_t rank,
                           int64_t offset_ns, MPI_Comm comm, bool warmup, rt_est_t **est_p,
                           cm_err_t *err);
cm_status_t rt__est_start(rt_est_t *e);
void rt__est_stop(rt_est_t *e);
void rt__est_destroy(rt_est_t *e);
void rt__est_arrive(rt_est_t *e, uint32_t local);
void rt__est_returned(rt_est_t *e, uint32_t local);
const int64_t *rt__est_node_begin(rt_est_t *e, int64_t arrived, int64_t count,
                                  rt_arrival_report_t *rep, rt_algo_plan_t **plan_p);
void rt__est_node_end(rt_est_t *e);
/* The arrival vector from n hosts' gathered estimator records (estimate.c). */
void rt__est_vector(const int64_t *g, int32_t n, int field, int64_t cap, bool band,
                    int64_t *vec);

/* Service thread body (proxy.c); arg is its rt_link_t. */
void *rt__service_main(void *arg);

/* Reports an unrecoverable error on this rank and aborts the whole job. */
void rt__exec_fatal(const rt_exec_t *ex, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

/* Aborts with MPI's message if rc is not MPI_SUCCESS. */
void rt__exec_mpi_check(const rt_exec_t *ex, int rc, const char *what);

#endif /* EXEC_INT_H */
