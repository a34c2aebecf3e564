/*
 * link.c - the link engine: proxy links served by the threads that wait.
 *
 * The PATHS paper serves the far side of each proxy with a thread of the
 * parent's host that does nothing but relay: every operation wakes it, and
 * on a host with fewer cores than threads each wake-up is a context switch.
 * Here the computational threads that already wait inside the host's tree
 * do that work between their checks.
 *
 * Segments.  A host's wrappers fall into segments: a segment is the tree of
 * greds on the host that ends at one proxy, core or algorithm node (every
 * walk on the host ends there), for one instance.  A link enters a segment
 * at the proxy's parent.  If some computational thread of the host enters
 * the segment, that segment's links are served by its threads; otherwise
 * (a gateway relay, a core fed only by links) a link keeps a service
 * thread (proxy.c), as does every link with RT_LINKS_SERVICES.
 *
 * Serving.  A thread that waits in a gred of a served segment does not
 * block on the gred's condition variable: between checks of its own
 * release it probes (MPI_Improbe) each link of its segment for a request
 * and tests the segment's pending proxy reply (below).  A request found is
 * received (MPI_Mrecv) and *carried* on the link's behalf: the link's
 * walk from its entry gred down, as a service thread would run it, with
 * one difference: it never waits.  At a gred where the link's contribution
 * is not the last, it leaves the link as a cookie (rt_gred_arrive_defer)
 * and the thread goes back to its own wait; whoever releases that gred
 * later (rt__link_release) collects the cookie and, once done with its own
 * walk, *finishes* the link: releases the greds the link's carry passed as
 * last arrival, and sends the reply.  If the carry reaches the segment's
 * end it runs it: the core; the algorithm node (a collective with the
 * other hosts, which the host's last arrival runs whoever it is); or a
 * proxy to the next host, whose reply's receive is posted before the
 * request is sent and left in the segment (`pending`) for any waiting
 * thread to test.  Matched probes make serving safe without a lock: of two
 * threads probing the same link one gets the message, and a link has one
 * request in flight at a time (its client waits for the reply), so its
 * visits run one at a time, on whichever thread, on its own location.
 *
 * Why it cannot deadlock.  A request of segment S for operation k of an
 * instance is needed by every thread of S in that operation: a thread of S
 * that has entered operation k either waits in a gred of S, which is
 * released only after S's end has its result, which needs every
 * contribution to S, the request's included; or it carried S to its end,
 * which it could only do once every contribution, that one included, was
 * in.  Every thread of S enters operation k eventually (they make the same
 * calls; earlier operations finish by the same argument, in order), so
 * some thread of S is waiting and probing until the request is served.
 * Nothing on that thread blocks on another segment's progress: a carry
 * never waits in a gred; replies of proxies are pre-posted receives, so a
 * reply's send completes without its receiver's threads; requests travel
 * towards the root, so blocking sends of requests form no cycle.
 *
 * Costs.  A waiting thread of a served segment probes its segment's links
 * at each check instead of reading one cache line, and cannot sleep on a
 * condition variable (an MPI message signals nobody): it naps with
 * back-off up to RT_WAIT_NAP_MAX_NS like a service thread did.  Links
 * finished by a thread delay that thread's return by their replies' sends.
 */
#include <stdlib.h>
#include <string.h>
#include "runtime/exec/exec_int.h"

/* Reports a visit of link l's location, when traced. */
static void link_visit(rt_exec_t *ex, const rt_link_t *l, rt_visit_t what, rt_node_id_t node)
{
    if (ex->traced)
        ex->hooks.visit(l->site->loc, what, l->instance, node, l->seq, l->bytes);
}

/* rt_gred_release_each's callback: put a deferred link on the list. */
static void link_push(void *cookie, void *ud)
{
    rt_link_t *l = cookie, **list = ud;

    l->next = *list;
    *list = l;
}

void rt__link_release(rt_node_state_t *st, const void *result, rt_link_t **finish)
{
    if (st->seg == NULL)
        rt_gred_release(&st->gred, result);
    else
        rt_gred_release_each(&st->gred, result, link_push, finish);
}

/*
 * The operation is over for l: the reply goes out, then the receive of
 * the next request is posted (l->in is free: every carry is done reading
 * it; the next request needs a whole round trip of the client's, so the
 * receive is nearly always posted before it comes, and the reply does not
 * wait for the post) and l is handed back to the pollers.
 */
static void link_reply(rt_exec_t *ex, rt_link_t *l, const void *result)
{
    rt__where_set(&l->site->where, RT_WHERE_REPLY, l->instance, l->proxy);
    rt__exec_mpi_check(ex, MPI_Send(result, (int)l->bytes, MPI_BYTE, l->peer, l->tag,
                                    ex->comm), "MPI_Send (link reply)");
    rt__where_set(&l->site->where, RT_WHERE_LISTEN, l->instance, l->proxy);
    rt__exec_mpi_check(ex, MPI_Irecv(l->in, (int)ex->max_bytes, MPI_BYTE, l->peer, l->tag,
                                     ex->comm, &l->req), "MPI_Irecv (link request)");
    atomic_store_explicit(&l->claim, 0, memory_order_release);
}

/*
 * l's carry stopped at path[i] (a gred where it was not last, or the end),
 * and `result` is the operation's result: leave that wrapper, release the
 * greds before it (their deferred links go on *finish), reply.
 */
static void link_unwind(rt_exec_t *ex, rt_link_t *l, uint32_t i, const void *result,
                        rt_link_t **finish)
{
    if (ex->tree->nodes[l->path.nodes[i]].kind != RT_NODE_ALGO)
        link_visit(ex, l, RT_VISIT_LEAVE, l->path.nodes[i]);
    while (i-- > 0) {
        rt_node_id_t id = l->path.nodes[i];

        rt__link_release(rt__exec_state(ex, l->instance, id), result, finish);
        link_visit(ex, l, RT_VISIT_LEAVE, id);
    }
    link_reply(ex, l, result);
}

void rt__link_finish_all(rt_exec_t *ex, rt_link_t *finish)
{
    while (finish != NULL) {
        rt_link_t *l = finish;
        rt_node_state_t *st = rt__exec_state(ex, l->instance, l->path.nodes[l->at]);

        finish = l->next;
        /* The gred where l's carry stopped holds the result until its next
           release, which needs l's next contribution, after this reply. */
        link_unwind(ex, l, l->at, rt_gred_result(&st->gred), &finish);
    }
}

/*
 * Carries l's request (l->bytes of l->in) down its path, never waiting:
 * see the file's comment.  On the calling thread, which owns l until the
 * link is left in a gred or in the segment's pending reply.
 */
static void link_carry(rt_exec_t *ex, rt_link_t *l)
{
    const void *cur = l->in;
    rt_link_t *finish = NULL;
    uint32_t i;

    l->seq = atomic_load_explicit(&l->site->ops[l->instance], memory_order_relaxed);
    atomic_store_explicit(&l->site->ops[l->instance], l->seq + 1, memory_order_relaxed);
    rt__where_set(&l->site->where, RT_WHERE_RUN, l->instance, l->path.nodes[0]);
    for (i = 0; i < l->path.len; i++) {
        rt_node_id_t id = l->path.nodes[i];
        rt_node_state_t *st = rt__exec_state(ex, l->instance, id);
        rt_node_kind_t kind = ex->tree->nodes[id].kind;

        if (kind == RT_NODE_ALGO) {
            rt__algo_node_run(ex, l->instance, cur, l->out, l->bytes, l->seq, l->site);
            break;
        }
        link_visit(ex, l, RT_VISIT_ENTER, id);
        if (kind == RT_NODE_CORE) {
            memcpy(st->store, cur, l->bytes);
            memcpy(l->out, st->store, l->bytes);
            break;
        }
        l->at = i;
        if (kind == RT_NODE_GRED) {
            rt__where_set(&l->site->where, RT_WHERE_GRED, l->instance, id);
            if (rt_gred_arrive_defer(&st->gred, cur, l->bytes, l)) {
                cur = rt_gred_acc(&st->gred);
                continue;
            }
            return;                      /* the gred's releaser finishes l */
        }
        /* The segment's end is a proxy: post the reply's receive, leave it
           to the segment's waiting threads, then send the request. */
        rt__where_set(&l->site->where, RT_WHERE_PROXY, l->instance, id);
        rt__exec_mpi_check(ex, MPI_Irecv(l->out, (int)l->bytes, MPI_BYTE, st->peer, st->tag,
                                         ex->comm, &l->seg->pending_req),
                           "MPI_Irecv (proxy reply)");
        atomic_store_explicit(&l->seg->pending, l, memory_order_release);
        rt__exec_mpi_check(ex, MPI_Send(cur, (int)l->bytes, MPI_BYTE, st->peer, st->tag,
                                        ex->comm), "MPI_Send (proxy request)");
        return;
    }
    link_unwind(ex, l, i, l->out, &finish);
    rt__link_finish_all(ex, finish);
}

/*
 * Tests l's posted receive if no other thread owns l; a request that is
 * there is carried by this thread, which owns l until the carry leaves it
 * in a gred or in the segment's pending reply (then whoever finishes it).
 */
static void link_poll(rt_exec_t *ex, rt_link_t *l)
{
    MPI_Status status;
    int done = 0, count = 0;

    if (atomic_load_explicit(&l->claim, memory_order_relaxed) != 0 ||
        atomic_exchange_explicit(&l->claim, 1, memory_order_acquire) != 0)
        return;
    rt__exec_mpi_check(ex, MPI_Test(&l->req, &done, &status), "MPI_Test (link request)");
    if (!done) {
        atomic_store_explicit(&l->claim, 0, memory_order_release);
        return;
    }
    rt__exec_mpi_check(ex, MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count");
    if (count <= 0)
        rt__exec_fatal(ex, "link %s#%u: request of %d bytes (1..%zu expected)",
                       ex->tree->nodes[l->proxy].name, l->instance, count, ex->max_bytes);
    l->bytes = (size_t)count;
    link_carry(ex, l);
}

/* Tests the segment's pending proxy reply, if any and nobody else does. */
static void seg_test_pending(rt_exec_t *ex, rt_segment_t *seg)
{
    rt_link_t *l, *finish = NULL;
    MPI_Status status;
    int done = 0, count = 0;

    if (atomic_load_explicit(&seg->pending, memory_order_relaxed) == NULL ||
        atomic_exchange_explicit(&seg->claim, 1, memory_order_acquire) != 0)
        return;
    l = atomic_load_explicit(&seg->pending, memory_order_acquire);
    if (l != NULL) {
        rt__exec_mpi_check(ex, MPI_Test(&seg->pending_req, &done, &status), "MPI_Test");
        if (done)
            atomic_store_explicit(&seg->pending, NULL, memory_order_relaxed);
    }
    atomic_store_explicit(&seg->claim, 0, memory_order_release);
    if (!done)
        return;
    rt__exec_mpi_check(ex, MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count");
    if ((size_t)count != l->bytes)
        rt__exec_fatal(ex, "proxy %s, instance %u: reply of %d bytes, expected %zu",
                       ex->tree->nodes[l->path.nodes[l->at]].name, l->instance, count,
                       l->bytes);
    link_unwind(ex, l, l->at, l->out, &finish);
    rt__link_finish_all(ex, finish);
}

/* One round of serving a segment: every link's request, the pending reply. */
static void seg_serve(rt_exec_t *ex, rt_segment_t *seg)
{
    for (uint32_t i = 0; i < seg->nlinks; i++)
        link_poll(ex, seg->links[i]);
    seg_test_pending(ex, seg);
}

typedef struct link_wait_arg {
    rt_exec_t              *ex;
    rt_node_state_t        *st;
    const rt_gred_ticket_t *ticket;
} link_wait_arg_t;

static bool link_wait_ready(void *arg)
{
    link_wait_arg_t *w = arg;

    if (rt_gred_released(&w->st->gred, w->ticket))
        return true;
    seg_serve(w->ex, w->st->seg);
    return rt_gred_released(&w->st->gred, w->ticket);
}

void rt__link_wait(rt_exec_t *ex, rt_node_state_t *st, const rt_gred_ticket_t *t, void *out)
{
    link_wait_arg_t w = { ex, st, t };

    rt_wait_until(&st->gred.policy, link_wait_ready, &w);
    memcpy(out, rt_gred_result(&st->gred), st->gred.bytes);
}

/* ---- set-up ----------------------------------------------------------- */

static rt_node_id_t path_end(const rt_path_t *p)
{
    return p->nodes[p->len - 1];
}

/* Where a walk on one host from n ends: the first wrapper that is not a gred. */
static rt_node_id_t walk_end(const rt_tree_t *t, rt_node_id_t n)
{
    while (t->nodes[n].kind == RT_NODE_GRED)
        n = t->nodes[n].parent;
    return n;
}

bool rt__link_needs_service(const rt_tree_t *t, rt_node_id_t proxy, rt_links_t mode)
{
    rt_node_id_t parent = t->nodes[proxy].parent, end = walk_end(t, parent);
    rt_host_id_t host = t->nodes[parent].host;

    if (mode == RT_LINKS_SERVICES)
        return true;
    for (uint32_t k = 0; k < t->nthreads; k++) {
        if (t->threads[k].host == host && walk_end(t, t->threads[k].enter) == end)
            return false;
    }
    return true;
}

cm_status_t rt__link_plan(rt_exec_t *ex)
{
    uint32_t nserved = 0;

    ex->segments = calloc(ex->nlinks + 1, sizeof(*ex->segments));
    ex->seg_links = calloc(ex->nlinks + 1, sizeof(*ex->seg_links));
    if (ex->segments == NULL || ex->seg_links == NULL)
        return CM_ERR_NOMEM;
    for (uint32_t i = 0; i < ex->nlinks; i++) {
        rt_link_t *l = &ex->links[i];

        l->req = MPI_REQUEST_NULL;
        atomic_init(&l->claim, 0);
        l->service = rt__link_needs_service(ex->tree, l->proxy, ex->link_mode);
        ex->nservices += l->service;
    }
    /* Segments in order of first link; each segment's links contiguous. */
    for (uint32_t i = 0; i < ex->nlinks; i++) {
        rt_link_t *l = &ex->links[i];
        rt_segment_t *seg;

        if (l->service || l->seg != NULL)
            continue;
        seg = &ex->segments[ex->nsegments++];
        seg->end = path_end(&l->path);
        seg->instance = l->instance;
        seg->links = &ex->seg_links[nserved];
        seg->pending_req = MPI_REQUEST_NULL;
        atomic_init(&seg->pending, NULL);
        atomic_init(&seg->claim, 0);
        for (uint32_t j = i; j < ex->nlinks; j++) {
            rt_link_t *m = &ex->links[j];

            if (!m->service && m->instance == l->instance && path_end(&m->path) == seg->end) {
                m->seg = seg;
                seg->links[seg->nlinks++] = m;
            }
        }
        nserved += seg->nlinks;
    }
    return CM_OK;
}

cm_status_t rt__link_post(rt_exec_t *ex)
{
    for (uint32_t i = 0; i < ex->nlinks; i++) {
        rt_link_t *l = &ex->links[i];

        if (!l->service && MPI_Irecv(l->in, (int)ex->max_bytes, MPI_BYTE, l->peer, l->tag,
                                     ex->comm, &l->req) != MPI_SUCCESS)
            return CM_ERR_MPI;
    }
    return CM_OK;
}

void rt__link_cancel(rt_exec_t *ex)
{
    for (uint32_t i = 0; ex->links != NULL && i < ex->nlinks; i++) {
        rt_link_t *l = &ex->links[i];

        if (l->req != MPI_REQUEST_NULL) {
            MPI_Cancel(&l->req);
            MPI_Wait(&l->req, MPI_STATUS_IGNORE);
        }
    }
}

void rt__link_attach(rt_exec_t *ex)
{
    /* Every gred on a served link's path, and on a thread's path ending at
       a served segment's end, waits the engine's way. */
    for (uint32_t s = 0; s < ex->nsegments; s++) {
        rt_segment_t *seg = &ex->segments[s];

        for (uint32_t k = 0; k < ex->nlocal; k++) {
            const rt_path_t *p = &ex->local_paths[k];

            if (path_end(p) != seg->end)
                continue;
            for (uint32_t i = 0; i + 1 < p->len; i++)
                rt__exec_state(ex, seg->instance, p->nodes[i])->seg = seg;
        }
        for (uint32_t i = 0; i < seg->nlinks; i++) {
            const rt_path_t *p = &seg->links[i]->path;

            for (uint32_t j = 0; j + 1 < p->len; j++)
                rt__exec_state(ex, seg->instance, p->nodes[j])->seg = seg;
        }
    }
}
