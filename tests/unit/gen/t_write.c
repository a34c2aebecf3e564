/*
 * t_write.c - gen/gen_write.c: trees built by hand with gen_map.c's blocks
 * must be written exactly as the samples in pathmaps/ (only their header
 * block is taken from the file).  pathgen writes the samples, but their
 * text below the header is checked byte for byte against an independent
 * generator, tests/oracles/gen-pathmaps.py (tests/pathgen/regen.sh), so
 * they are still an oracle here.  A small hand-written text checks what the
 * samples lack (params on a gred, no header); gen_map_render refuses a
 * model that is no tree.
 */
#include <stdlib.h>
#include <string.h>
#include "tests/tst.h"
#include "tests/test_list.h"
#include "tests/unit/gen/gen_tst.h"
#include "gen/api/gen_map.h"

static gen_map_t *map_start(const char *sample, uint32_t nhosts, const char *const *names)
{
    gen_map_t *m = gen_map_create();
    char *text = gtst_read(sample);
    uint32_t i;

    TST_NOT_NULL(m);
    gtst_header_from(m, text);
    free(text);
    for (i = 0; i < nhosts; i++)
        TST_EQ_UINT(gen_map_host_add(m, names[i]), i);
    m->tree_name = strdup("sum");
    m->tree_params = strdup("type=int32 op=sum");
    return m;
}

static uint32_t gred(gen_map_t *m, const char *name, uint32_t host, uint32_t parent,
                     uint32_t t0, uint32_t nt, const char *comment)
{
    uint32_t g = gen_node_add(m, GEN_GRED, name, host, NULL, comment), t;

    TST_TRUE(g != GEN_NONE);
    if (parent != GEN_NONE)
        TST_EQ_INT(gen_attach_node(m, parent, g), 0);
    for (t = t0; t < t0 + nt; t++)
        TST_EQ_INT(gen_attach_thread(m, g, t, host), 0);
    return g;
}

static void expect_sample(const gen_map_t *m, const char *sample)
{
    char *want = gtst_read(sample), *got = gen_map_format(m), *rendered = NULL;
    cm_err_t err;

    TST_NOT_NULL(got);
    TST_EQ_STR(got, want);
    cm_err_clear(&err);
    TST_EQ_STATUS(gen_map_render(m, &rendered, &err), CM_OK);
    TST_EQ_STR(rendered, want);
    free(rendered);
    free(got);
    free(want);
}

static const char *const HOST4[] = { "host0", "host1", "host2", "host3" };

void t_gen_write_split(void)
{
    gen_map_t *m = map_start("pathmaps/local/split-4x2.pathmap", 4, HOST4);
    uint32_t root = gen_node_add(m, GEN_CORE, "root", 0, NULL, "the core: stores the sum");
    uint32_t cr0 = gred(m, "cr0", 0, root, 0, 0, NULL);
    uint32_t a = gred(m, "cr1.0", 0, cr0, 0, 0, NULL), b = gred(m, "cr1.1", 3, cr0, 0, 0, NULL);

    gred(m, "h0", 0, a, 0, 2, NULL);
    gred(m, "h1", 1, a, 2, 2, NULL);
    gred(m, "h2", 2, b, 4, 2, NULL);
    gred(m, "h3", 3, b, 6, 2, NULL);
    TST_EQ_INT(gen_map_fix_routes(m), 0);
    expect_sample(m, "pathmaps/local/split-4x2.pathmap");
    gen_map_destroy(m);
}

/* Proxies that carry threads (one per thread; and a thread entering cr0). */
void t_gen_write_thread_proxies(void)
{
    gen_map_t *m = map_start("pathmaps/local/nary-extralinks-2x2.pathmap", 2, HOST4);
    uint32_t root = gen_node_add(m, GEN_CORE, "root", 0, NULL, "the core: stores the sum");
    uint32_t cr0 = gred(m, "cr0", 0, root, 0, 0, NULL), h1, t;

    gred(m, "h0", 0, cr0, 0, 2, NULL);
    h1 = gred(m, "h1", 0, cr0, 0, 0, NULL);
    TST_EQ_INT(gen_attach_thread(m, h1, 3, 1), 0);
    TST_EQ_INT(gen_attach_thread(m, h1, 2, 1), 0);
    TST_EQ_INT(gen_route_push(&m->nodes[h1].contribs[0], "p1.0", 1, NULL), 0);
    TST_EQ_INT(gen_route_push(&m->nodes[h1].contribs[1], "p1.1", 1, NULL), 0);
    TST_EQ_INT(gen_map_fix_routes(m), 0);      /* keeps them */
    expect_sample(m, "pathmaps/local/nary-extralinks-2x2.pathmap");
    gen_map_destroy(m);

    m = map_start("pathmaps/local/flat-4x1.pathmap", 4, HOST4);
    root = gen_node_add(m, GEN_CORE, "root", 0, NULL, "the core: stores the sum");
    cr0 = gred(m, "cr0", 0, root, 0, 0, NULL);
    for (t = 4; t-- > 0;)
        TST_EQ_INT(gen_attach_thread(m, cr0, t, t), 0);
    TST_EQ_INT(gen_map_fix_routes(m), 0);      /* p1, p2, p3 */
    expect_sample(m, "pathmaps/local/flat-4x1.pathmap");
    gen_map_destroy(m);
}

/* A route of two proxies and comments of one's own (gateway-3x2 with the
 * comments of tests/unit/gen/data/gateway-comments.pathmap, by hand). */
void t_gen_write_gateway(void)
{
    static const char *const hosts[] = { "a", "gw", "b" };
    gen_map_t *m = map_start("tests/unit/gen/data/gateway-comments.pathmap", 3, hosts);
    uint32_t root = gen_node_add(m, GEN_CORE, "root", 0, NULL,
                                 "the core, on cluster a's root host");
    uint32_t mc = gred(m, "mc", 0, root, 0, 0,
                       "multi-cluster root: one contribution per cluster");
    uint32_t hb = gred(m, "hb", 2, mc, 2, 2, NULL);
    gen_contrib_t *c;

    gred(m, "ha", 0, mc, 0, 2, NULL);
    c = &m->nodes[mc].contribs[1];
    TST_EQ_UINT(c->id, hb);
    TST_EQ_INT(gen_route_push(c, "pb", 2, "b -> gw: b reaches cluster a only through gw"), 0);
    TST_EQ_INT(gen_route_push(c, "pgw", 1, "gw -> a: the gateway relays b's sum to a"), 0);
    expect_sample(m, "tests/unit/gen/data/gateway-comments.pathmap");
    gen_map_destroy(m);
}

void t_gen_write_algo(void)
{
    gen_map_t *m = map_start("pathmaps/algo-demo.pathmap", 2, HOST4);
    uint32_t across = gen_node_add(m, GEN_ALGO, "across", GEN_NONE, "run=rd",
                                   "the root: spans host0-host1, rank i = host i");

    gred(m, "h1", 1, across, 2, 2, NULL);
    gred(m, "h0", 0, across, 0, 2, NULL);
    TST_EQ_INT(gen_map_fix_routes(m), 0);
    expect_sample(m, "pathmaps/algo-demo.pathmap");
    gen_map_destroy(m);
}

/* No header, a gred with params and none of the automatic comments,
 * thread ranges split by a gap and by the entry wrapper. */
void t_gen_write_params(void)
{
    static const char want[] =
        "host host0  # rank 0\n"
        "host h1     # rank 1\n"
        "\n"
        "tree t type=double op=max\n"
        "core  r   host=host0\n"
        "gred  g   host=host0 parent=r wait=block  # mine\n"
        "\n"
        "proxy p.x host=h1    parent=g\n"
        "\n"
        "threads 0-1 host=host0 enter=g\n"
        "threads 3 host=host0 enter=g\n"
        "threads 4 host=h1 enter=p.x\n";
    gen_map_t *m = gen_map_create();
    uint32_t r, g;
    char *text;
    cm_err_t err;

    gen_map_host_add(m, "host0");
    gen_map_host_add(m, "h1");
    m->tree_name = strdup("t");
    m->tree_params = strdup("type=double op=max");
    r = gen_node_add(m, GEN_CORE, "r", 0, NULL, NULL);
    g = gen_node_add(m, GEN_GRED, "g", 0, "wait=block", "mine");
    gen_attach_node(m, r, g);
    gen_attach_thread(m, g, 4, 1);
    gen_attach_thread(m, g, 3, 0);
    gen_attach_thread(m, g, 1, 0);
    gen_attach_thread(m, g, 0, 0);
    TST_EQ_INT(gen_route_push(&m->nodes[g].contribs[3], "p.x", 1, ""), 0);
    text = gen_map_format(m);
    TST_EQ_STR(text, want);
    free(text);
    cm_err_clear(&err);
    TST_EQ_STATUS(gen_map_render(m, &text, &err), CM_OK);
    free(text);

    /* a node left without parent: no text, and render says which */
    g = gen_node_add(m, GEN_GRED, "lost", 0, NULL, NULL);
    gen_attach_thread(m, g, 9, 0);
    TST_NULL(gen_map_format(m));
    text = NULL;
    TST_EQ_STATUS(gen_map_render(m, &text, &err), CM_ERR_TREE);
    TST_NULL(text);
    TST_CONTAINS(err.msg, "node lost is not connected to the root r");
    gen_map_destroy(m);
}

/* What the writer makes must validate: render passes the parser's error on
 * (a gred without contributors is no valid pathmap). */
void t_gen_write_render_invalid(void)
{
    gen_map_t *m = gen_map_create();
    uint32_t r, g;
    char *text = NULL;
    cm_err_t err;

    gen_map_host_add(m, "host0");
    m->tree_name = strdup("sum");
    m->tree_params = strdup("type=int32 op=sum");
    r = gen_node_add(m, GEN_CORE, "root", 0, NULL, NULL);
    g = gen_node_add(m, GEN_GRED, "g", 0, NULL, NULL);
    gen_attach_node(m, r, g);
    cm_err_clear(&err);
    TST_TRUE(gen_map_render(m, &text, &err) != CM_OK);
    TST_NULL(text);
    TST_EQ_STR(err.path, "(pathgen output)");
    gen_map_destroy(m);
}
