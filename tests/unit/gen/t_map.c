/*
 * t_map.c - gen/gen_map.c, the model's building blocks: hosts and labels,
 * nodes, contributors in thread order, detaching and removing, proxy names
 * and gen_map_fix_routes on small hand-made trees whose routes are worked
 * out by hand (the placement rule of gen/api/gen_map.h and the sample
 * pathmaps' names: split-4x2, gateway-3x2).
 */
#include <stdlib.h>
#include <string.h>
#include "tests/tst.h"
#include "tests/test_list.h"
#include "gen/api/gen_map.h"

/* The route of node `child`'s edge into its parent. */
static const gen_contrib_t *edge_of(const gen_map_t *m, uint32_t child)
{
    const gen_node_t *p = &m->nodes[m->nodes[child].parent];
    uint32_t i;

    for (i = 0; i < p->ncontribs; i++)
        if (!p->contribs[i].is_thread && p->contribs[i].id == child)
            return &p->contribs[i];
    TST_FAIL("node %u not among its parent's contributors", (unsigned)child);
}

static const gen_contrib_t *thread_edge(const gen_map_t *m, uint32_t n, uint32_t tid)
{
    uint32_t i;

    for (i = 0; i < m->nodes[n].ncontribs; i++)
        if (m->nodes[n].contribs[i].is_thread && m->nodes[n].contribs[i].id == tid)
            return &m->nodes[n].contribs[i];
    TST_FAIL("thread %u not a contributor of node %u", (unsigned)tid, (unsigned)n);
}

static void host_gred(gen_map_t *m, uint32_t parent, const char *name, uint32_t host,
                      uint32_t t0, uint32_t nt)
{
    uint32_t g = gen_node_add(m, GEN_GRED, name, host, NULL, NULL), t;

    TST_TRUE(g != GEN_NONE);
    TST_EQ_INT(gen_attach_node(m, parent, g), 0);
    for (t = t0; t < t0 + nt; t++)
        TST_EQ_INT(gen_attach_thread(m, g, t, host), 0);
}

/* binary-4x2 (pathmaps/local): cr0 = cr1.0 + cr1.1 on host0, cr1.0 = h0 + h1,
 * cr1.1 = h2 + h3, hN of threads 2N, 2N+1 on hostN; routes fixed. */
static gen_map_t *binary_4x2(void)
{
    gen_map_t *m = gen_map_create();
    uint32_t root, cr0, a, b;
    char name[16];

    TST_NOT_NULL(m);
    for (a = 0; a < 4; a++) {
        snprintf(name, sizeof(name), "host%u", (unsigned)a);
        TST_EQ_UINT(gen_map_host_add(m, name), a);
    }
    root = gen_node_add(m, GEN_CORE, "root", 0, NULL, "the core");
    cr0 = gen_node_add(m, GEN_GRED, "cr0", 0, NULL, NULL);
    a = gen_node_add(m, GEN_GRED, "cr1.0", 0, NULL, NULL);
    b = gen_node_add(m, GEN_GRED, "cr1.1", 0, NULL, NULL);
    TST_EQ_INT(gen_attach_node(m, root, cr0), 0);
    /* attached before their subtrees exist: no threads below yet */
    TST_EQ_INT(gen_attach_node(m, cr0, a), 0);
    TST_EQ_INT(gen_attach_node(m, cr0, b), 0);
    host_gred(m, b, "h3", 3, 6, 2);   /* out of order on purpose */
    host_gred(m, b, "h2", 2, 4, 2);
    host_gred(m, a, "h0", 0, 0, 2);
    host_gred(m, a, "h1", 1, 2, 2);
    TST_EQ_INT(gen_map_fix_routes(m), 0);
    return m;
}

void t_gen_map_basics(void)
{
    gen_map_t *m = gen_map_create();
    uint32_t root, g, h;

    TST_NOT_NULL(m);
    TST_EQ_UINT(m->root, GEN_NONE);
    TST_EQ_UINT(gen_map_host_add(m, "host0"), 0);
    TST_EQ_UINT(gen_map_host_add(m, "host12"), 1);
    TST_EQ_UINT(gen_map_host_add(m, "gw"), 2);
    TST_EQ_UINT(gen_map_host_add(m, "host"), 3);
    TST_EQ_UINT(gen_map_host_add(m, "host1a"), 4);
    TST_EQ_STR(gen_map_host_label(m, 0), "0");
    TST_EQ_STR(gen_map_host_label(m, 1), "12");
    TST_EQ_STR(gen_map_host_label(m, 2), "gw");
    TST_EQ_STR(gen_map_host_label(m, 3), "host");
    TST_EQ_STR(gen_map_host_label(m, 4), "host1a");
    TST_EQ_UINT(gen_map_host_find(m, "gw"), 2);
    TST_EQ_UINT(gen_map_host_find(m, "b"), GEN_NONE);
    TST_EQ_INT(gen_map_header_add(m, "a %d b", 7), 0);
    TST_EQ_INT(gen_map_header_add(m, "%s", ""), 0);
    TST_EQ_UINT(m->nheader, 2);
    TST_EQ_STR(m->header[0], "a 7 b");
    TST_EQ_STR(m->header[1], "");

    g = gen_node_add(m, GEN_GRED, "cr0", 0, "wait=block", "mine");
    root = gen_node_add(m, GEN_CORE, "root", 0, NULL, NULL);
    TST_EQ_UINT(g, 0);
    TST_EQ_UINT(root, 1);
    TST_EQ_UINT(m->root, 1);            /* the first core, not the first node */
    TST_EQ_STR(m->nodes[g].params, "wait=block");
    TST_EQ_STR(m->nodes[g].comment, "mine");
    TST_NULL(m->nodes[root].params);
    TST_EQ_UINT(m->nodes[g].parent, GEN_NONE);
    h = gen_node_add(m, GEN_ALGO, "across", 1, "run=rd", NULL);
    TST_EQ_UINT(m->nodes[h].host, GEN_NONE);   /* an algo node spans hosts */
    TST_EQ_UINT(m->root, 1);                   /* still the first */
    TST_EQ_UINT(gen_node_find(m, "across"), h);
    TST_EQ_UINT(gen_node_find(m, "nope"), GEN_NONE);
    TST_TRUE(gen_map_name_used(m, "cr0"));
    TST_FALSE(gen_map_name_used(m, "p1"));
    gen_map_destroy(m);
    gen_map_destroy(NULL);
}

void t_gen_map_thread_order(void)
{
    gen_map_t *m = gen_map_create();
    uint32_t root, g, a, b, c;
    const gen_node_t *n;

    gen_map_host_add(m, "host0");
    root = gen_node_add(m, GEN_CORE, "root", 0, NULL, NULL);
    g = gen_node_add(m, GEN_GRED, "g", 0, NULL, NULL);
    gen_attach_node(m, root, g);
    a = gen_node_add(m, GEN_GRED, "a", 0, NULL, NULL);
    b = gen_node_add(m, GEN_GRED, "b", 0, NULL, NULL);
    c = gen_node_add(m, GEN_GRED, "c", 0, NULL, NULL);
    TST_EQ_INT(gen_attach_thread(m, a, 5, 0), 0);
    TST_EQ_INT(gen_attach_thread(m, a, 3, 0), 0);
    TST_EQ_INT(gen_attach_thread(m, b, 9, 0), 0);
    TST_EQ_INT(gen_attach_thread(m, c, 1, 0), 0);
    /* a's threads sorted: 3, 5 */
    n = &m->nodes[a];
    TST_EQ_UINT(n->contribs[0].id, 3);
    TST_EQ_UINT(n->contribs[1].id, 5);
    TST_EQ_UINT(gen_node_min_thread(m, a), 3);
    TST_EQ_UINT(gen_node_min_thread(m, root), GEN_NONE);   /* nothing below yet */
    /* g gets b (min 9), thread 4, a (min 3), c (min 1), thread 7:
       order c, a, 4, 7, b */
    gen_attach_node(m, g, b);
    gen_attach_thread(m, g, 4, 0);
    gen_attach_node(m, g, a);
    gen_attach_node(m, g, c);
    gen_attach_thread(m, g, 7, 0);
    n = &m->nodes[g];
    TST_EQ_UINT(n->ncontribs, 5);
    TST_TRUE(!n->contribs[0].is_thread && n->contribs[0].id == c);
    TST_TRUE(!n->contribs[1].is_thread && n->contribs[1].id == a);
    TST_TRUE(n->contribs[2].is_thread && n->contribs[2].id == 4);
    TST_TRUE(n->contribs[3].is_thread && n->contribs[3].id == 7);
    TST_TRUE(!n->contribs[4].is_thread && n->contribs[4].id == b);
    TST_EQ_UINT(m->nodes[a].parent, g);
    TST_EQ_UINT(gen_node_min_thread(m, root), 1);
    TST_EQ_UINT(gen_map_nthreads(m), 6);
    TST_EQ_UINT(gen_map_nwrappers(m), 5);
    /* longest: thread 3 -> a -> g -> root */
    TST_EQ_UINT(gen_map_depth(m), 3);
    gen_map_destroy(m);
}

/* Detaching the contributor with the smallest thread reorders the parents:
 * cr0 = [A (X: thread 0; thread 5), B (thread 3)]; X out: cr0 = [B, A]. */
void t_gen_map_detach_order(void)
{
    gen_map_t *m = gen_map_create();
    uint32_t root, cr0, a, b, x;

    gen_map_host_add(m, "host0");
    root = gen_node_add(m, GEN_CORE, "root", 0, NULL, NULL);
    cr0 = gen_node_add(m, GEN_GRED, "cr0", 0, NULL, NULL);
    a = gen_node_add(m, GEN_GRED, "A", 0, NULL, NULL);
    b = gen_node_add(m, GEN_GRED, "B", 0, NULL, NULL);
    x = gen_node_add(m, GEN_GRED, "X", 0, NULL, NULL);
    gen_attach_node(m, root, cr0);
    gen_attach_node(m, cr0, a);
    gen_attach_node(m, cr0, b);
    gen_attach_node(m, a, x);
    gen_attach_thread(m, x, 0, 0);
    gen_attach_thread(m, a, 5, 0);
    gen_attach_thread(m, b, 3, 0);
    TST_EQ_UINT(m->nodes[cr0].contribs[0].id, a);
    TST_EQ_UINT(m->nodes[cr0].contribs[1].id, b);
    gen_detach_node(m, x);
    TST_EQ_UINT(m->nodes[a].ncontribs, 1);
    TST_EQ_UINT(m->nodes[cr0].contribs[0].id, b);
    TST_EQ_UINT(m->nodes[cr0].contribs[1].id, a);
    TST_EQ_UINT(gen_node_min_thread(m, root), 3);
    /* and back: X under B puts B (now 0) first again, A stays second */
    gen_attach_node(m, b, x);
    TST_EQ_UINT(m->nodes[cr0].contribs[0].id, b);
    TST_EQ_UINT(m->nodes[b].contribs[0].id, x);
    gen_detach_node(m, x);
    gen_attach_node(m, a, x);
    TST_EQ_UINT(m->nodes[cr0].contribs[0].id, a);
    gen_map_destroy(m);
}

void t_gen_map_detach_remove(void)
{
    gen_map_t *m = binary_4x2();
    uint32_t cr0 = gen_node_find(m, "cr0"), a = gen_node_find(m, "cr1.0");
    uint32_t b = gen_node_find(m, "cr1.1"), h1 = gen_node_find(m, "h1");
    uint32_t h2 = gen_node_find(m, "h2"), h3 = gen_node_find(m, "h3");

    TST_EQ_UINT(m->nnodes, 8);
    TST_EQ_UINT(gen_map_nwrappers(m), 11);   /* 8 nodes, p1 p2 p3 */
    /* detach h1 from cr1.0: its route (p1) goes with the edge */
    gen_detach_node(m, h1);
    TST_EQ_UINT(m->nodes[h1].parent, GEN_NONE);
    TST_EQ_UINT(m->nodes[a].ncontribs, 1);
    TST_FALSE(gen_map_name_used(m, "p1"));
    TST_EQ_UINT(gen_map_nwrappers(m), 10);
    /* cr1.1 out: h2, h3 onto cr0, then cr1.1 removed; indices above it shift */
    gen_detach_node(m, h2);
    gen_detach_node(m, h3);
    gen_detach_node(m, b);
    TST_EQ_INT(gen_attach_node(m, cr0, h3), 0);
    TST_EQ_INT(gen_attach_node(m, cr0, h2), 0);
    gen_node_remove(m, b);
    TST_EQ_UINT(m->nnodes, 7);
    TST_EQ_UINT(gen_node_find(m, "cr1.1"), GEN_NONE);
    h2 = gen_node_find(m, "h2");
    h3 = gen_node_find(m, "h3");
    TST_EQ_UINT(m->nodes[h2].parent, cr0);    /* cr0 below b: unchanged */
    TST_EQ_UINT(m->nodes[cr0].ncontribs, 3);   /* cr1.0, h2, h3 in thread order */
    TST_EQ_UINT(m->nodes[cr0].contribs[0].id, a);
    TST_EQ_UINT(m->nodes[cr0].contribs[1].id, h2);
    TST_EQ_UINT(m->nodes[cr0].contribs[2].id, h3);
    TST_EQ_UINT(m->nodes[gen_node_find(m, "h0")].parent, a);
    TST_EQ_UINT(m->root, gen_node_find(m, "root"));
    /* the root removed (after detaching its child): root becomes GEN_NONE */
    gen_detach_node(m, cr0);
    gen_node_remove(m, m->root);
    TST_EQ_UINT(m->root, GEN_NONE);
    TST_EQ_UINT(m->nodes[gen_node_find(m, "cr1.0")].parent, gen_node_find(m, "cr0"));
    gen_map_destroy(m);
}

void t_gen_map_fix_routes_split(void)
{
    gen_map_t *m = binary_4x2();
    uint32_t b = gen_node_find(m, "cr1.1"), h, node, contrib, hop;
    const gen_contrib_t *c;

    /* as generated: p1, p2, p3 carry h1-h3 to host0; none elsewhere */
    TST_EQ_UINT(edge_of(m, gen_node_find(m, "h0"))->nroute, 0);
    for (h = 1; h < 4; h++) {
        char name[8];

        snprintf(name, sizeof(name), "h%u", (unsigned)h);
        c = edge_of(m, gen_node_find(m, name));
        TST_EQ_UINT(c->nroute, 1);
        TST_EQ_UINT(c->route[0].host, h);
        TST_NULL(c->route[0].comment);
    }
    TST_EQ_STR(edge_of(m, gen_node_find(m, "h2"))->route[0].name, "p2");
    TST_EQ_UINT(edge_of(m, b)->nroute, 0);
    /* h3 was attached first, before any thread: thread order puts h2 first */
    TST_EQ_UINT(m->nodes[b].contribs[0].id, gen_node_find(m, "h2"));
    TST_EQ_UINT(m->nodes[b].contribs[1].id, gen_node_find(m, "h3"));
    TST_EQ_UINT(gen_map_depth(m), 5);          /* h1 p1 cr1.0 cr0 root */
    TST_FALSE(gen_node_is_host_part(m, b));
    TST_TRUE(gen_node_is_host_part(m, gen_node_find(m, "h2")));

    /* split-4x2: cr1.1 to host3 -> p3.cr1.1 on host3 into cr0; h3 now local;
       h2 keeps p2 (host2, ends off host3) */
    m->nodes[b].host = 3;
    TST_EQ_INT(gen_map_fix_routes(m), 0);
    c = edge_of(m, b);
    TST_EQ_UINT(c->nroute, 1);
    TST_EQ_STR(c->route[0].name, "p3.cr1.1");
    TST_EQ_UINT(c->route[0].host, 3);
    TST_EQ_UINT(edge_of(m, gen_node_find(m, "h3"))->nroute, 0);
    c = edge_of(m, gen_node_find(m, "h2"));
    TST_EQ_UINT(c->nroute, 1);
    TST_EQ_STR(c->route[0].name, "p2");
    TST_FALSE(gen_map_name_used(m, "p3"));
    TST_TRUE(gen_map_find_proxy(m, "p3.cr1.1", &node, &contrib, &hop));
    TST_EQ_UINT(node, gen_node_find(m, "cr0"));
    TST_EQ_UINT(m->nodes[node].contribs[contrib].id, b);
    TST_EQ_UINT(hop, 0);
    /* threads 4-5: h2 p2 cr1.1 p3.cr1.1 cr0 root */
    TST_EQ_UINT(gen_map_depth(m), 6);
    TST_EQ_UINT(gen_map_nwrappers(m), 11);

    /* and back: the proxy goes, h3 gets p3 again */
    m->nodes[b].host = 0;
    TST_EQ_INT(gen_map_fix_routes(m), 0);
    TST_EQ_UINT(edge_of(m, b)->nroute, 0);
    TST_FALSE(gen_map_name_used(m, "p3.cr1.1"));
    c = edge_of(m, gen_node_find(m, "h3"));
    TST_EQ_UINT(c->nroute, 1);
    TST_EQ_STR(c->route[0].name, "p3");
    TST_EQ_UINT(gen_map_depth(m), 5);
    gen_map_destroy(m);
}

/* A gred moved onto the host of its threads' parent: each thread of the
 * other host needs its own proxy (pN first, then pN.t<tid>). */
void t_gen_map_fix_routes_threads(void)
{
    gen_map_t *m = binary_4x2();
    uint32_t h1 = gen_node_find(m, "h1");
    const gen_contrib_t *c;

    m->nodes[h1].host = 0;
    TST_EQ_INT(gen_map_fix_routes(m), 0);
    TST_EQ_UINT(edge_of(m, h1)->nroute, 0);
    c = thread_edge(m, h1, 2);
    TST_EQ_UINT(c->nroute, 1);
    TST_EQ_STR(c->route[0].name, "p1");
    TST_EQ_UINT(c->route[0].host, 1);
    c = thread_edge(m, h1, 3);
    TST_EQ_UINT(c->nroute, 1);
    TST_EQ_STR(c->route[0].name, "p1.t3");
    TST_FALSE(gen_node_is_host_part(m, h1));
    /* back: the threads' proxies go, h1 is carried by p1 */
    m->nodes[h1].host = 1;
    TST_EQ_INT(gen_map_fix_routes(m), 0);
    TST_EQ_UINT(thread_edge(m, h1, 2)->nroute, 0);
    TST_EQ_UINT(thread_edge(m, h1, 3)->nroute, 0);
    TST_EQ_STR(edge_of(m, h1)->route[0].name, "p1");
    TST_FALSE(gen_map_name_used(m, "p1.t3"));
    gen_map_destroy(m);
}

/* gateway-3x2: hb on b reaches mc on a through pb (b) and pgw (gw). */
void t_gen_map_fix_routes_gateway(void)
{
    gen_map_t *m = gen_map_create();
    uint32_t root, mc, ha, hb;
    gen_contrib_t *c;

    gen_map_host_add(m, "a");
    gen_map_host_add(m, "gw");
    gen_map_host_add(m, "b");
    root = gen_node_add(m, GEN_CORE, "root", 0, NULL, NULL);
    mc = gen_node_add(m, GEN_GRED, "mc", 0, NULL, "multi-cluster root");
    gen_attach_node(m, root, mc);
    ha = gen_node_add(m, GEN_GRED, "ha", 0, NULL, NULL);
    hb = gen_node_add(m, GEN_GRED, "hb", 2, NULL, NULL);
    gen_attach_node(m, mc, ha);
    gen_attach_node(m, mc, hb);
    gen_attach_thread(m, ha, 0, 0);
    gen_attach_thread(m, ha, 1, 0);
    gen_attach_thread(m, hb, 2, 2);
    gen_attach_thread(m, hb, 3, 2);
    c = (gen_contrib_t *)edge_of(m, hb);
    TST_EQ_INT(gen_route_push(c, "pb", 2, "b -> gw"), 0);
    TST_EQ_INT(gen_route_push(c, "pgw", 1, NULL), 0);
    TST_EQ_INT(gen_map_fix_routes(m), 0);
    c = (gen_contrib_t *)edge_of(m, hb);
    TST_EQ_UINT(c->nroute, 2);                   /* kept */
    TST_EQ_STR(c->route[0].name, "pb");
    TST_EQ_STR(c->route[0].comment, "b -> gw");
    TST_EQ_STR(c->route[1].name, "pgw");
    TST_EQ_UINT(gen_map_depth(m), 5);            /* hb pb pgw mc root */
    TST_EQ_UINT(gen_map_nwrappers(m), 6);

    /* mc moved to gw: the route now ends on mc's host, one proxy pb instead */
    m->nodes[mc].host = 1;
    m->nodes[root].host = 1;
    TST_EQ_INT(gen_map_fix_routes(m), 0);
    c = (gen_contrib_t *)edge_of(m, hb);
    TST_EQ_UINT(c->nroute, 1);
    TST_EQ_STR(c->route[0].name, "pb");
    TST_NULL(c->route[0].comment);
    TST_EQ_UINT(c->route[0].host, 2);
    TST_EQ_STR(edge_of(m, ha)->route[0].name, "pa");
    TST_FALSE(gen_map_name_used(m, "pgw"));

    /* a route starting off the contributor's host is replaced */
    m->nodes[mc].host = 0;
    m->nodes[root].host = 0;
    c = (gen_contrib_t *)edge_of(m, hb);
    gen_route_clear(c);
    TST_EQ_INT(gen_route_push(c, "px", 1, NULL), 0);
    TST_EQ_INT(gen_map_fix_routes(m), 0);
    c = (gen_contrib_t *)edge_of(m, hb);
    TST_EQ_UINT(c->nroute, 1);
    TST_EQ_STR(c->route[0].name, "pb");
    TST_EQ_UINT(edge_of(m, ha)->nroute, 0);
    gen_map_destroy(m);
}

/* An algorithm node's contributors never get a proxy. */
void t_gen_map_fix_routes_algo(void)
{
    gen_map_t *m = gen_map_create();
    uint32_t across, h0, h1;
    gen_contrib_t *c;

    gen_map_host_add(m, "host0");
    gen_map_host_add(m, "host1");
    across = gen_node_add(m, GEN_ALGO, "across", GEN_NONE, "run=rd", NULL);
    h0 = gen_node_add(m, GEN_GRED, "h0", 0, NULL, NULL);
    h1 = gen_node_add(m, GEN_GRED, "h1", 1, NULL, NULL);
    gen_attach_node(m, across, h1);
    gen_attach_node(m, across, h0);
    gen_attach_thread(m, h0, 0, 0);
    gen_attach_thread(m, h1, 1, 1);
    gen_attach_thread(m, across, 2, 1);
    c = (gen_contrib_t *)edge_of(m, h1);
    TST_EQ_INT(gen_route_push(c, "p1", 1, NULL), 0);
    TST_EQ_INT(gen_map_fix_routes(m), 0);
    TST_EQ_UINT(edge_of(m, h0)->nroute, 0);
    TST_EQ_UINT(edge_of(m, h1)->nroute, 0);
    TST_EQ_UINT(thread_edge(m, across, 2)->nroute, 0);
    TST_EQ_UINT(gen_map_nwrappers(m), 3);
    TST_EQ_UINT(gen_map_depth(m), 2);
    TST_EQ_UINT(m->root, across);
    /* thread order: h0 (thread 0), h1 (1), thread 2, though h1 was
       attached first (before the threads below them) */
    TST_EQ_UINT(m->nodes[across].contribs[0].id, h0);
    TST_EQ_UINT(m->nodes[across].contribs[1].id, h1);
    gen_map_destroy(m);
}

/* Names taken already: the fallbacks of gen_map_proxy_name. */
void t_gen_map_proxy_names(void)
{
    gen_map_t *m = binary_4x2();
    uint32_t b = gen_node_find(m, "cr1.1"), h2 = gen_node_find(m, "h2");
    gen_contrib_t thread2 = { 1, 2, 1, NULL, 0 };
    gen_contrib_t cb = { 0, 0, GEN_NONE, NULL, 0 };
    char *name;

    /* p1 is taken (h1's proxy): thread 2 of host1 gets p1.t2 */
    name = gen_map_proxy_name(m, gen_node_find(m, "h1"), &thread2);
    TST_EQ_STR(name, "p1.t2");
    free(name);
    /* h2, a host subtree's top, while p2 is taken: p2.h2 */
    name = gen_map_proxy_name(m, b, edge_of(m, h2));
    TST_EQ_STR(name, "p2.h2");
    free(name);
    /* cr1.1 on host3 (not a host part): p3.cr1.1, then .2, .3 when taken */
    m->nodes[b].host = 3;
    cb.id = b;
    name = gen_map_proxy_name(m, gen_node_find(m, "cr0"), &cb);
    TST_EQ_STR(name, "p3.cr1.1");
    free(name);
    TST_TRUE(gen_node_add(m, GEN_GRED, "p3.cr1.1", 0, NULL, NULL) != GEN_NONE);
    name = gen_map_proxy_name(m, gen_node_find(m, "cr0"), &cb);
    TST_EQ_STR(name, "p3.cr1.1.2");
    free(name);
    TST_TRUE(gen_node_add(m, GEN_GRED, "p3.cr1.1.2", 0, NULL, NULL) != GEN_NONE);
    name = gen_map_proxy_name(m, gen_node_find(m, "cr0"), &cb);
    TST_EQ_STR(name, "p3.cr1.1.3");
    free(name);
    gen_map_destroy(m);
}
