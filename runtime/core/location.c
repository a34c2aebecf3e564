/*
 * location.c - the one enumeration of a host's locations (rt_hooks.h).
 *
 * A location is a thread of control that runs wrappers: a computational
 * thread, or the server side of a proxy link (one per proxy whose parent
 * is on the host, per tree instance).  The executor creates its threads
 * and service links from this list, and the tracer numbers its OTF2
 * locations by it, so the two can never disagree about the order.
 *
 * Order: threads by id (the tree keeps them sorted), then links by proxy
 * node id, then instance, then the host's part in the tree's algorithm
 * node if its root is one that spans the host (one location for every
 * instance: the operations of a tree reach it one at a time).  Example, pathmaps/local/gateway-3x2.pathmap
 * with 2 instances: host a has threads 0 and 1, then pgw#0 and pgw#1 (pgw
 * forwards to mc on a); host gw has pb#0 and pb#1; host b has threads 2
 * and 3 and no link.
 */
#include "runtime/api/rt_hooks.h"

/* Whether host serves the link of this node: a proxy whose parent it runs. */
static int serves(const rt_tree_t *t, const rt_node_t *node, rt_host_id_t host)
{
    return node->kind == RT_NODE_PROXY && t->nodes[node->parent].host == host;
}

uint32_t rt_location_list(const rt_tree_t *t, unsigned ninstances, rt_host_id_t host,
                          rt_location_t *out)
{
    uint32_t n = 0;

    for (uint32_t i = 0; i < t->nthreads; i++) {
        const rt_thread_map_t *th = &t->threads[i];

        if (th->host != host)
            continue;
        if (out != NULL)
            out[n] = (rt_location_t){ RT_LOCATION_COMPUTE, n, host, th, RT_ID_NONE, 0,
                                      th->enter };
        n++;
    }
    for (rt_node_id_t p = 0; p < t->nnodes; p++) {
        if (!serves(t, &t->nodes[p], host))
            continue;
        for (unsigned inst = 0; inst < ninstances; inst++, n++) {
            if (out != NULL)
                out[n] = (rt_location_t){ RT_LOCATION_LINK, n, host, NULL, p, inst,
                                          t->nodes[p].parent };
        }
    }
    if (rt_tree_algo(t) != NULL && rt_algo_host_index(t->nodes[t->root].algo, host) >= 0) {
        if (out != NULL)
            out[n] = (rt_location_t){ RT_LOCATION_ALGO, n, host, NULL, RT_ID_NONE, 0, t->root };
        n++;
    }
    return n;
}
