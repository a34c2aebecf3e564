/*
 * t_location.c - the runtime's one enumeration of a host's locations
 * (rt_location_list, rt_hooks.h), against expectations written by hand.
 *
 * The executor creates its threads and links from this list and the
 * tracer numbers its OTF2 locations by it (location id = rank << 16 |
 * index), so a change of order here changes every trace: these tests say
 * exactly what the order is.
 */
#include <string.h>
#include "tests/tst.h"
#include "tests/test_list.h"
#include "runtime/api/rt_hooks.h"

#define GATEWAY "pathmaps/local/gateway-3x2.pathmap"

/* What one location should be: a thread id, or a link "proxy#instance". */
typedef struct want {
    int         compute;
    unsigned    thread;
    const char *proxy;
    unsigned    instance;
    const char *enter;
} want_t;

static rt_pathmap_t *load(const char *path)
{
    rt_pathmap_t *pm = NULL;
    cm_err_t err;

    cm_err_clear(&err);
    if (rt_pathmap_load(path, &pm, &err) != CM_OK)
        TST_FAIL("%s: %s", path, err.msg);
    return pm;
}

static void expect_host(const rt_tree_t *t, unsigned ninst, rt_host_id_t host,
                        const want_t *want, uint32_t nwant)
{
    rt_location_t got[16];
    uint32_t n = rt_location_list(t, ninst, host, NULL);

    TST_EQ_UINT(n, nwant);
    TST_EQ_UINT(rt_location_list(t, ninst, host, got), nwant);
    for (uint32_t i = 0; i < n && i < nwant; i++) {
        const rt_location_t *g = &got[i];

        TST_EQ_UINT(g->index, i);
        TST_EQ_UINT(g->host, host);
        TST_EQ_STR(t->nodes[g->enter].name, want[i].enter);
        if (want[i].compute) {
            TST_EQ_INT(g->kind, RT_LOCATION_COMPUTE);
            TST_NOT_NULL(g->thread);
            TST_EQ_UINT(g->thread->id, want[i].thread);
            TST_EQ_UINT(g->proxy, RT_ID_NONE);
            TST_EQ_UINT(g->instance, 0);
        } else {
            TST_EQ_INT(g->kind, RT_LOCATION_LINK);
            TST_NULL(g->thread);
            TST_EQ_STR(t->nodes[g->proxy].name, want[i].proxy);
            TST_EQ_UINT(g->instance, want[i].instance);
        }
    }
}

/*
 * gateway-3x2: a (rank 0) has threads 0-1 and serves pgw (pgw's parent mc
 * is on a); gw (rank 1) has no thread and serves pb (parent pgw on gw);
 * b (rank 2) has threads 2-3 and serves nothing.  Two instances.
 */
void t_location_gateway(void)
{
    static const want_t a[] = {
        { 1, 0, NULL, 0, "ha" },
        { 1, 1, NULL, 0, "ha" },
        { 0, 0, "pgw", 0, "mc" },
        { 0, 0, "pgw", 1, "mc" },
    };
    static const want_t gw[] = {
        { 0, 0, "pb", 0, "pgw" },
        { 0, 0, "pb", 1, "pgw" },
    };
    static const want_t b[] = {
        { 1, 2, NULL, 0, "hb" },
        { 1, 3, NULL, 0, "hb" },
    };
    rt_pathmap_t *pm = load(GATEWAY);
    const rt_tree_t *t = rt_pathmap_tree(pm, NULL);

    TST_NOT_NULL(t);
    TST_EQ_UINT(pm->nhosts, 3);
    expect_host(t, 2, 0, a, 4);
    expect_host(t, 2, 1, gw, 2);
    expect_host(t, 2, 2, b, 2);
    /* One instance: one link per proxy; a host beyond the pathmap: none. */
    expect_host(t, 1, 0, a, 3);
    expect_host(t, 1, 1, gw, 1);
    TST_EQ_UINT(rt_location_list(t, 2, 3, NULL), 0);
    rt_pathmap_destroy(pm);
}

/* Over all hosts: every thread once, every (proxy, instance) once. */
static void expect_cover(const char *path, unsigned ninst)
{
    rt_pathmap_t *pm = load(path);
    const rt_tree_t *t = rt_pathmap_tree(pm, NULL);
    unsigned seen_thread[64] = { 0 }, seen_link[64][4] = { { 0 } };
    rt_location_t got[64];
    uint32_t nproxies = 0, total = 0;

    TST_TRUE(t->nthreads <= 64 && t->nnodes <= 64 && ninst <= 4);
    for (uint32_t n = 0; n < t->nnodes; n++)
        nproxies += t->nodes[n].kind == RT_NODE_PROXY;
    for (rt_host_id_t h = 0; h < pm->nhosts; h++) {
        uint32_t n = rt_location_list(t, ninst, h, got);

        for (uint32_t i = 0; i < n; i++) {
            if (got[i].kind == RT_LOCATION_COMPUTE) {
                TST_EQ_UINT(got[i].thread->host, h);
                seen_thread[got[i].thread - t->threads]++;
            } else {
                TST_EQ_UINT(t->nodes[t->nodes[got[i].proxy].parent].host, h);
                seen_link[got[i].proxy][got[i].instance]++;
            }
            /* Threads first: no compute location after a link. */
            if (i > 0 && got[i - 1].kind == RT_LOCATION_LINK)
                TST_EQ_INT(got[i].kind, RT_LOCATION_LINK);
        }
        total += n;
    }
    TST_EQ_UINT(total, t->nthreads + nproxies * ninst);
    for (uint32_t i = 0; i < t->nthreads; i++)
        TST_EQ_UINT(seen_thread[i], 1);
    for (uint32_t n = 0; n < t->nnodes; n++) {
        for (unsigned k = 0; k < ninst; k++)
            TST_EQ_UINT(seen_link[n][k], t->nodes[n].kind == RT_NODE_PROXY);
    }
    rt_pathmap_destroy(pm);
}

void t_location_cover(void)
{
    expect_cover(GATEWAY, 3);
    expect_cover("pathmaps/local/binary-2x4.pathmap", 2);
    expect_cover("pathmaps/local/split-4x2.pathmap", 2);
    expect_cover("tests/pathmap/good/int64-min-relay-3x1.pathmap", 1);
}
