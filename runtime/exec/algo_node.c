/*
 * algo_node.c - this host's part in the tree's algorithm node.
 *
 * When a tree's root is an algorithm node (docs/pathmap.md, "Algorithm
 * nodes"), each host it spans has one contributor: its top wrapper or a
 * single thread.  Whichever thread brings the host's contribution (the
 * last arrival at the top gred) runs the collective with the other hosts,
 * then carries the result back up its path like any other wrapper's.  The
 * operations of a tree reach the node one at a time on a host: the next
 * one cannot arrive before every thread below has had this one's result.
 *
 * Each tree instance has its own communicator of the node's hosts (rank i
 * = spec->hosts[i]), so that messages of different instances never match,
 * and its own plan (rt_algo_run.h: cached schedules and scratch).
 *
 * Arrival times (docs/runtime.md, "Arrival times"): the PAP-aware
 * algorithms need every host's arrival, identical on every rank.
 *  - equal: all zero (PRR is then the ring, SLT its static form).
 *  - history: the hosts' arrivals at the node in the previous operation
 *    of the same instance.  When an operation leaves the node, each host
 *    starts an MPI_Iallgather of its arrival time in it on the instance's
 *    communicator; the next operation of the instance completes it before
 *    it runs.  The exchange is in flight while the program computes, so it
 *    adds no round trip to the operation (bench/ measures what it costs).
 *    Times are CLOCK_MONOTONIC nanoseconds moved to the clock of the
 *    node's rank 0 by an offset measured at set-up (ping-pong, the
 *    smallest round trip of several), then made relative to the earliest
 *    host, so the vector is small, non-negative and the same everywhere.
 *    The first operation of an instance has no history: all equal.
 *  - edge: estimated during the computation (estimate.c, which owns its
 *    exchange, a communicator duplicated here, and a plan for the
 *    schedules it makes ahead); the node waits for the phase's vector,
 *    runs the schedule made ahead when its count matches, and the
 *    instance's plan otherwise.
 */
#include <stdlib.h>
#include <string.h>
#include "runtime/exec/exec_int.h"

#define ALGO_SYNC_ROUNDS 16       /* ping-pongs per host for the clock offset */

struct rt_algo_node {
    const rt_node_t      *node;
    const rt_algo_spec_t *spec;           /* the pathmap's, or auto_spec */
    rt_algo_spec_t        auto_spec;      /* auto: the pathmap's with the net model */
    rt_auto_cfg_t         auto_cfg;       /* of PAPTREE_NET (rt_auto_net_default) */
    uint64_t              auto_site;      /* auto: the node's key for the chooser */
    int32_t               rank;                 /* this host in the node */
    int32_t               nranks;
    int64_t               offset_ns;            /* rank 0's clock - ours */
    rt_site_t            *site;                 /* the algorithm location's */
    struct {
        MPI_Comm          comm;
        rt_algo_plan_t   *plan;
        int64_t           mine;                 /* history: our last arrival */
        int64_t          *gathered;             /* history: every host's */
        int64_t          *arrival;              /* what the schedule gets */
        MPI_Request       req;                  /* the Iallgather in flight */
        uint64_t          auto_ops;             /* auto: operations run */
    } inst[EXEC_INSTANCES_MAX];
};

/* Ping-pong with the node's rank 0: the offset to its clock in ns. */
static cm_status_t algo_sync_clock(rt_algo_node_t *an, MPI_Comm comm)
{
    int64_t best_rtt = INT64_MAX, best = 0;

    for (int32_t peer = 1; peer < an->nranks; peer++) {
        for (int k = 0; k < ALGO_SYNC_ROUNDS; k++) {
            int64_t t0, t1, remote;

            if (an->rank == 0) {
                if (MPI_Recv(NULL, 0, MPI_BYTE, peer, 1, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
                    return CM_ERR_MPI;
                remote = (int64_t)rt_wait_now_ns();
                if (MPI_Send(&remote, 1, MPI_INT64_T, peer, 1, comm) != MPI_SUCCESS)
                    return CM_ERR_MPI;
            } else if (an->rank == peer) {
                t0 = (int64_t)rt_wait_now_ns();
                if (MPI_Send(NULL, 0, MPI_BYTE, 0, 1, comm) != MPI_SUCCESS ||
                    MPI_Recv(&remote, 1, MPI_INT64_T, 0, 1, comm, MPI_STATUS_IGNORE)
                        != MPI_SUCCESS)
                    return CM_ERR_MPI;
                t1 = (int64_t)rt_wait_now_ns();
                if (t1 - t0 < best_rtt) {
                    best_rtt = t1 - t0;
                    best = remote - (t0 + (t1 - t0) / 2);
                }
            }
        }
    }
    an->offset_ns = an->rank == 0 ? 0 : best;
    return CM_OK;
}

/*
 * Collective over the node's hosts: the estimator of an arrival=edge node
 * (estimate.c), on a communicator of its own.  Its warm-up pairs messages
 * between hosts, so they must all want it or all not.  st is the status so
 * far (the steps are taken whatever it is); returns the new one.
 */
static cm_status_t algo_est_create(rt_exec_t *ex, rt_algo_node_t *an, MPI_Comm comm,
                                   cm_status_t st, cm_err_t *err)
{
    int warm[2] = { ex->edge_warmup, !ex->edge_warmup }, agreed[2] = { 0, 0 };
    MPI_Comm est_comm = MPI_COMM_NULL;
    cm_status_t s;

    if (MPI_Allreduce(warm, agreed, 2, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS ||
        MPI_Comm_dup(comm, &est_comm) != MPI_SUCCESS) {
        if (est_comm != MPI_COMM_NULL)
            MPI_Comm_free(&est_comm);
        return st != CM_OK ? st : CM_ERR(err, CM_ERR_MPI, "setting up the arrival estimator "
                                         "of algorithm node '%s' failed", an->node->name);
    }
    MPI_Comm_set_errhandler(est_comm, MPI_ERRORS_RETURN);
    s = rt__est_create(ex, an->spec, an->rank, an->offset_ns, est_comm, ex->edge_warmup,
                       &ex->est, err);
    if (st != CM_OK)
        return st;
    if (s == CM_OK && agreed[0] == 0 && agreed[1] == 0)
        s = CM_ERR(err, CM_ERR_MISMATCH, "algorithm node '%s' (arrival=edge): the hosts "
                   "disagree on edge_warmup; give every rank the same", an->node->name);
    return s;
}

/*
 * Collective over the node's hosts: every host must have the same auto
 * configuration (candidates, tuning and the net model of PAPTREE_NET), or
 * their choices would differ.  st is the status so far; returns the new one.
 */
static cm_status_t algo_auto_agree(rt_algo_node_t *an, MPI_Comm comm, cm_status_t st,
                                   cm_err_t *err)
{
    uint64_t h = rt_auto_cfg_hash(&an->auto_cfg), lo = h, hi = h;

    if (MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, comm) != MPI_SUCCESS ||
        MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, comm) != MPI_SUCCESS)
        return st != CM_OK ? st : CM_ERR(err, CM_ERR_MPI, "checking the auto configuration "
                                         "of algorithm node '%s' failed", an->node->name);
    if (st == CM_OK && lo != hi)
        return CM_ERR(err, CM_ERR_MISMATCH, "algorithm node '%s' (run=auto): the hosts have "
                      "different auto configurations (the net model of PAPTREE_NET, or the "
                      "pathmap): give every rank the same", an->node->name);
    return st;
}

/*
 * Collective over ex->comm (every rank, spanned or not): the node's
 * communicators and plans on the hosts it spans.  A failure is local (the
 * caller agrees on it with the other ranks); ex->algo is then set for
 * rt__algo_node_destroy.
 */
cm_status_t rt__algo_node_create(rt_exec_t *ex, cm_err_t *err)
{
    const rt_node_t *node = rt_tree_algo(ex->tree);
    const rt_algo_spec_t *spec;
    rt_algo_node_t *an;
    MPI_Comm comm = MPI_COMM_NULL;
    int32_t rank;
    cm_status_t st = CM_OK;

    if (node == NULL)
        return CM_OK;
    spec = node->algo;
    rank = rt_algo_host_index(spec, (rt_host_id_t)ex->rank);
    if (MPI_Comm_split(ex->comm, rank >= 0 ? 0 : MPI_UNDEFINED, rank, &comm) != MPI_SUCCESS)
        return CM_ERR(err, CM_ERR_MPI, "MPI_Comm_split failed for algorithm node '%s'",
                      node->name);
    if (rank < 0)
        return CM_OK;                    /* this host is not in the node */
    if ((an = calloc(1, sizeof(*an))) == NULL) {
        MPI_Comm_free(&comm);
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory for algorithm node '%s'", node->name);
    }
    ex->algo = an;
    an->node = node;
    an->spec = spec;
    an->rank = rank;
    an->nranks = (int32_t)spec->nhosts;
    if (spec->autocfg != NULL) {         /* the machine's model, checked below */
        an->auto_cfg = *spec->autocfg;
        if (rt_auto_net_default(&an->auto_cfg.net, err) != CM_OK)
            st = err->status;
        an->auto_spec = *spec;
        an->auto_spec.autocfg = &an->auto_cfg;
        an->spec = spec = &an->auto_spec;
        an->auto_site = rt_hash_fnv1a(ex->tree->name, strlen(ex->tree->name)) ^ node->line;
    }
    for (unsigned i = 0; i < ex->ninstances; i++) {
        an->inst[i].comm = MPI_COMM_NULL;
        an->inst[i].req = MPI_REQUEST_NULL;
    }
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    /* The collective steps first, all of them on every host of the node
       whatever happens, so that no host waits for one that gave up. */
    if (algo_sync_clock(an, comm) != CM_OK)
        st = CM_ERR(err, CM_ERR_MPI, "measuring clock offsets for algorithm node '%s' failed",
                    node->name);
    for (unsigned i = 0; i < ex->ninstances; i++) {
        if (MPI_Comm_dup(comm, &an->inst[i].comm) != MPI_SUCCESS) {
            an->inst[i].comm = MPI_COMM_NULL;
            if (st == CM_OK)
                st = CM_ERR(err, CM_ERR_MPI, "MPI_Comm_dup failed for algorithm node '%s'",
                            node->name);
            continue;
        }
        MPI_Comm_set_errhandler(an->inst[i].comm, MPI_ERRORS_RETURN);
    }
    if (spec->autocfg != NULL)
        st = algo_auto_agree(an, comm, st, err);
    if (spec->pap && spec->arrival == RT_ARRIVAL_EDGE && !spec->native)
        st = algo_est_create(ex, an, comm, st, err);
    for (unsigned i = 0; st == CM_OK && i < ex->ninstances; i++) {
        an->inst[i].gathered = calloc((size_t)an->nranks, sizeof(int64_t));
        an->inst[i].arrival = calloc((size_t)an->nranks, sizeof(int64_t));
        if (!an->inst[i].gathered || !an->inst[i].arrival)
            st = CM_ERR(err, CM_ERR_NOMEM, "out of memory for algorithm node '%s'",
                        node->name);
        else
            st = rt_algo_plan_create(spec, rank, &an->inst[i].plan, err);
    }
    MPI_Comm_free(&comm);
    return st;
}

void rt__algo_node_destroy(rt_exec_t *ex)
{
    rt_algo_node_t *an = ex->algo;

    if (an == NULL)
        return;
    rt__est_destroy(ex->est);
    ex->est = NULL;
    for (unsigned i = 0; i < ex->ninstances; i++) {
        if (an->inst[i].req != MPI_REQUEST_NULL)
            MPI_Wait(&an->inst[i].req, MPI_STATUS_IGNORE);
        if (an->inst[i].comm != MPI_COMM_NULL)
            MPI_Comm_free(&an->inst[i].comm);
        rt_algo_plan_destroy(an->inst[i].plan);
        free(an->inst[i].gathered);
        free(an->inst[i].arrival);
    }
    free(an);
    ex->algo = NULL;
}

void rt__algo_node_set_site(rt_exec_t *ex, rt_site_t *site)
{
    if (ex->algo != NULL)
        ex->algo->site = site;
}

typedef struct algo_wait_arg {
    const rt_exec_t *ex;
    MPI_Request     *req;
} algo_wait_arg_t;

static bool algo_request_done(void *arg)
{
    algo_wait_arg_t *w = arg;
    int done = 0;

    rt__exec_mpi_check(w->ex, MPI_Test(w->req, &done, MPI_STATUS_IGNORE),
                       "MPI_Test (arrival times)");
    return done != 0;
}

/*
 * The arrival vector for this operation of the instance: NULL (all equal)
 * or the previous operation's, relative to its earliest host.
 */
static const int64_t *algo_arrival(rt_exec_t *ex, rt_algo_node_t *an, unsigned instance)
{
    int64_t low;

    /* an auto plan gathers the hosts' times itself and derives the vector */
    if (!an->spec->pap || an->spec->arrival != RT_ARRIVAL_HISTORY || an->spec->autocfg != NULL)
        return NULL;
    if (an->inst[instance].req == MPI_REQUEST_NULL)
        return NULL;                     /* the instance's first operation */
    algo_wait_arg_t w = { ex, &an->inst[instance].req };
    rt_wait_until_nap(&ex->policy, algo_request_done, &w, RT_WAIT_NAP_ROUND_NS);
    low = an->inst[instance].gathered[0];
    for (int32_t i = 1; i < an->nranks; i++)
        if (an->inst[instance].gathered[i] < low)
            low = an->inst[instance].gathered[i];
    for (int32_t i = 0; i < an->nranks; i++)
        an->inst[instance].arrival[i] = an->inst[instance].gathered[i] - low;
    return an->inst[instance].arrival;
}

/* Shares this operation's arrival for the next operation of the instance. */
static void algo_share_arrival(rt_exec_t *ex, rt_algo_node_t *an, unsigned instance,
                               int64_t arrived_ns)
{
    if (!an->spec->pap || an->spec->arrival != RT_ARRIVAL_HISTORY || an->spec->autocfg != NULL)
        return;
    an->inst[instance].mine = arrived_ns + an->offset_ns;
    rt__exec_mpi_check(ex, MPI_Iallgather(&an->inst[instance].mine, 1, MPI_INT64_T,
                                          an->inst[instance].gathered, 1, MPI_INT64_T,
                                          an->inst[instance].comm, &an->inst[instance].req),
                       "MPI_Iallgather (arrival times)");
}

/*
 * Static inline copies of the run, traced and not, as in path.c: the
 * untraced one has no report at all.
 */
static inline __attribute__((always_inline))
void algo_run(rt_exec_t *ex, unsigned instance, const void *cur, void *out, size_t bytes,
              uint64_t seq, rt_site_t *caller, bool traced)
{
    rt_algo_node_t *an = ex->algo;
    rt_node_id_t id = ex->tree->root;
    int64_t arrived = (int64_t)rt_wait_now_ns();
    rt_algo_observer_t obs = { ex->hooks.msg, traced ? an->site->loc : NULL, instance };
    rt_algo_call_t call = { an->inst[instance].comm, ex->tree->dtype, ex->tree->op, NULL,
                            &ex->policy, traced && ex->hooks.msg != NULL ? &obs : NULL,
                            arrived, an->auto_site };
    const rt_auto_choice_t *choice = NULL;
    rt_arrival_report_t rep = {
        .asked = an->spec->arrival, .used = RT_ARRIVAL_EQUAL, .missing = -1,
        .error_ns = INT64_MIN, .lead_ns = INT64_MIN, .wait_ns = 0,
    };
    rt_algo_plan_t *plan = an->inst[instance].plan;
    int64_t count = (int64_t)(bytes / rt_dtype_size(ex->tree->dtype));
    cm_err_t err;

    rt__where_set(&caller->where, RT_WHERE_ALGO, instance, id);
    rt__where_set(&an->site->where, RT_WHERE_ALGO, instance, id);
    atomic_store_explicit(&an->site->ops[instance], seq + 1, memory_order_relaxed);
    if (traced) {
        ex->hooks.visit(an->site->loc, RT_VISIT_ENTER, instance, id, seq, bytes);
        if (ex->hooks.coll != NULL)
            ex->hooks.coll(an->site->loc, RT_VISIT_ENTER, instance, id, seq, -1, bytes);
    }
    /* After t1: waiting for the arrival times is the node's. */
    if (ex->est != NULL) {
        call.arrival = rt__est_node_begin(ex->est, arrived, count, &rep, &plan);
        if (plan == NULL || an->spec->autocfg != NULL)   /* auto learns on its own plan */
            plan = an->inst[instance].plan;
    } else {
        call.arrival = algo_arrival(ex, an, instance);
        rep.used = call.arrival != NULL ? RT_ARRIVAL_HISTORY : RT_ARRIVAL_EQUAL;
        /* auto with history: its plan's exchange gives the vector from the
           instance's second operation on (rt_algo_run.h, "auto plans") */
        if (an->spec->autocfg != NULL && an->spec->arrival == RT_ARRIVAL_HISTORY &&
            an->inst[instance].auto_ops++ > 0)
            rep.used = RT_ARRIVAL_HISTORY;
        if (traced)
            rep.wait_ns = (int64_t)rt_wait_now_ns() - arrived;
    }
    if (traced && an->spec->pap && ex->hooks.arrival != NULL)
        ex->hooks.arrival(an->site->loc, instance, id, seq, &rep);
    if (an->spec->autocfg != NULL) {
        if (rt_algo_plan_choose(plan, &call, count, &choice, &err) != CM_OK)
            rt__exec_fatal(ex, "algorithm node '%s' (auto), instance %u, operation %llu, "
                           "%zu bytes: %s", an->node->name, instance, (unsigned long long)seq,
                           bytes, err.msg);
        if (traced && ex->hooks.choice != NULL)
            ex->hooks.choice(an->site->loc, instance, id, seq, rt_algo_plan_auto(plan), choice);
    }
    memcpy(out, cur, bytes);             /* the collective runs in place on out */
    if (rt_algo_plan_run(plan, &call, out, count, NULL, &err) != CM_OK)
        rt__exec_fatal(ex, "algorithm node '%s' (%s), instance %u, operation %llu, "
                       "%zu bytes: %s", an->node->name,
                       rt_algo_spec_name(an->spec), instance,
                       (unsigned long long)seq, bytes, err.msg);
    if (ex->est != NULL)
        rt__est_node_end(ex->est);
    if (traced) {
        if (ex->hooks.coll != NULL)
            ex->hooks.coll(an->site->loc, RT_VISIT_LEAVE, instance, id, seq, -1, bytes);
        ex->hooks.visit(an->site->loc, RT_VISIT_LEAVE, instance, id, seq, bytes);
    }
    rt__where_set(&an->site->where, RT_WHERE_OUTSIDE, instance, id);
    algo_share_arrival(ex, an, instance, arrived);
}

void rt__algo_node_run(rt_exec_t *ex, unsigned instance, const void *cur, void *out,
                       size_t bytes, uint64_t seq, rt_site_t *caller)
{
    if (ex->traced)
        algo_run(ex, instance, cur, out, bytes, seq, caller, true);
    else
        algo_run(ex, instance, cur, out, bytes, seq, caller, false);
}
