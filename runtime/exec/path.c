/*
 * path.c - one thread's walk through its wrappers on this host.
 *
 * Down: at each gred the thread contributes; if it is not the last arrival
 * it waits there for the result (serving its segment's links meanwhile when
 * threads serve them, link.c), otherwise it carries the accumulator to the
 * parent.  The walk ends at the first wrapper that produces a result: a gred
 * it waited in, the core, a proxy (which gets the result from another
 * host), or the algorithm node (which runs the collective with the other
 * hosts, algo_node.c).  Up: it releases, in reverse order, every gred where
 * it was last, then replies to the links the engine left in them.
 * Iterative rather than recursive, so the depth of a tree is bounded by
 * memory, not by the thread's stack.
 *
 * When traced, every wrapper the thread runs is reported to the hooks
 * (rt_hooks.h): ENTER before it, LEAVE after it.  Traced or not, the
 * location records for the watchdog (watchdog_int.h) that it enters the
 * tree and each wait it starts, in its own cache line: nothing per wrapper
 * it merely passes through.
 */
#include <string.h>
#include "runtime/exec/exec_int.h"

/*
 * A gred: true for the last arrival, which carries the accumulator on;
 * the others note that they wait (for the watchdog) and wait.
 */
static bool path_gred(rt_exec_t *ex, rt_node_state_t *st, const void **cur, void *out,
                      size_t bytes, rt_site_t *site, unsigned instance, rt_node_id_t id)
{
    rt_gred_ticket_t ticket;

    if (rt_gred_arrive(&st->gred, *cur, bytes, &ticket)) {
        *cur = rt_gred_acc(&st->gred);
        return true;                     /* last: continue down */
    }
    rt__where_set(&site->where, RT_WHERE_GRED, instance, id);
    if (st->seg != NULL)
        rt__link_wait(ex, st, &ticket, out);   /* serves the segment's links meanwhile */
    else
        rt_gred_wait(&st->gred, &ticket, out);
    return false;
}

static void path_core(rt_node_state_t *st, const void *cur, void *out, size_t bytes)
{
    memcpy(st->store, cur, bytes);
    memcpy(out, st->store, bytes);
}

/*
 * The walk.  `traced` is a compile-time false in the untraced copy, so the
 * compiler removes every report from it (EventSpace inserted its event
 * collectors only into traced paths; we do the same with two copies).
 */
static inline __attribute__((always_inline))
void run_path(rt_exec_t *ex, unsigned instance, const rt_path_t *path,
              const void *in, void *out, size_t bytes, rt_site_t *site, bool traced)
{
    const void *cur = in;
    rt_link_t *finish = NULL;
    uint64_t seq = atomic_load_explicit(&site->ops[instance], memory_order_relaxed);
    uint32_t i;

    atomic_store_explicit(&site->ops[instance], seq + 1, memory_order_relaxed);
    rt__where_set(&site->where, RT_WHERE_RUN, instance, path->nodes[0]);
#define VISIT(what, node) do { \
        if (traced) \
            ex->hooks.visit(site->loc, (what), instance, (node), seq, bytes); \
    } while (0)

    for (i = 0; i < path->len; i++) {
        rt_node_id_t id = path->nodes[i];
        rt_node_state_t *st = rt__exec_state(ex, instance, id);
        rt_node_kind_t kind = ex->tree->nodes[id].kind;

        if (kind == RT_NODE_ALGO) {
            /* Reported on the algorithm's own location (algo_node.c). */
            rt__algo_node_run(ex, instance, cur, out, bytes, seq, site);
            break;
        }
        VISIT(RT_VISIT_ENTER, id);
        if (kind == RT_NODE_GRED) {
            if (path_gred(ex, st, &cur, out, bytes, site, instance, id))
                continue;
        } else if (kind == RT_NODE_CORE) {
            path_core(st, cur, out, bytes);
        } else {
            rt__where_set(&site->where, RT_WHERE_PROXY, instance, id);
            rt__proxy_call(ex, st, cur, out, bytes);
        }
        break;
    }
    /* A path always ends in a proxy, the core or the algorithm node, so
       the walk broke at i. */
    if (ex->tree->nodes[path->nodes[i]].kind != RT_NODE_ALGO)
        VISIT(RT_VISIT_LEAVE, path->nodes[i]);
    while (i-- > 0) {
        rt__link_release(rt__exec_state(ex, instance, path->nodes[i]), out, &finish);
        VISIT(RT_VISIT_LEAVE, path->nodes[i]);
    }
    /* Links that the engine left in the greds released above: their replies. */
    if (finish != NULL)
        rt__link_finish_all(ex, finish);
#undef VISIT
}

void rt__exec_run_path(rt_exec_t *ex, unsigned instance, const rt_path_t *path,
                       const void *in, void *out, size_t bytes, rt_site_t *site)
{
    if (ex->traced)
        run_path(ex, instance, path, in, out, bytes, site, true);
    else
        run_path(ex, instance, path, in, out, bytes, site, false);
}
