/*
 * t_build.c - unit tests of gen_build (gen/gen_build.c): the sizes of the
 * paper's trees counted by hand from their shapes (pathmaps/README.md),
 * the names and hosts of a few wrappers, the per-host shapes, the root
 * host, the header, and that every tree renders (the runtime's parser
 * accepts it).  Equality with the sample files is tests/pathgen/regen.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/tst.h"
#include "tests/test_list.h"
#include "gen/api/gen_build.h"

static gen_map_t *build_simple(uint32_t hosts, uint32_t tph, const gen_build_opts_t *o)
{
    gen_input_t in;
    gen_map_t *m = NULL;
    cm_err_t err;
    char *text = NULL;

    cm_err_clear(&err);
    TST_EQ_STATUS(gen_input_simple(hosts, tph, &in, &err), CM_OK);
    if (gen_build(&in, o, &m, &err) != CM_OK)
        TST_FAIL("gen_build %ux%u: %s", (unsigned)hosts, (unsigned)tph, err.msg);
    if (gen_map_render(m, &text, &err) != CM_OK)
        TST_FAIL("render %ux%u: %s:%u:%u: %s", (unsigned)hosts, (unsigned)tph, err.path,
                 err.line, err.col, err.msg);
    free(text);
    gen_input_cleanup(&in);
    return m;
}

static void opts_shapes(gen_build_opts_t *o, gen_shape_kind_t host, gen_shape_kind_t root)
{
    gen_build_opts_init(o);
    o->host_shape.kind = host;
    o->root_shape.kind = root;
}

/* nodes, wrappers (nodes + proxies), longest path */
static void expect_size(const gen_map_t *m, uint32_t nodes, uint32_t wrappers, uint32_t depth)
{
    TST_EQ_UINT(m->nnodes, nodes);
    TST_EQ_UINT(gen_map_nwrappers(m), wrappers);
    TST_EQ_UINT(gen_map_depth(m), depth);
}

static uint32_t node(const gen_map_t *m, const char *name)
{
    uint32_t n = gen_node_find(m, name);

    if (n == GEN_NONE)
        TST_FAIL("no node %s", name);
    return n;
}

void t_gen_build_sizes(void)
{
    gen_build_opts_t o;
    gen_map_t *m;

    /* nary8w: root, cr0, h0-h3; proxies p1-p3; thread -> h -> p -> cr0 -> root */
    opts_shapes(&o, GEN_SHAPE_NARY, GEN_SHAPE_NARY);
    m = build_simple(4, 8, &o);
    expect_size(m, 6, 9, 4);
    TST_EQ_UINT(m->nodes[node(m, "cr0")].ncontribs, 4);
    TST_EQ_UINT(m->nodes[node(m, "h2")].ncontribs, 8);
    TST_EQ_UINT(m->nodes[node(m, "h2")].host, 2);
    TST_EQ_UINT(gen_map_nthreads(m), 32);
    gen_map_destroy(m);
    /* binary8w: 7 greds per host, 3 in the cluster root, the core; 3 proxies */
    opts_shapes(&o, GEN_SHAPE_BINARY, GEN_SHAPE_BINARY);
    m = build_simple(4, 8, &o);
    expect_size(m, 32, 35, 7);
    TST_EQ_UINT(m->nodes[node(m, "h3.l2.3")].ncontribs, 2);
    TST_EQ_UINT(m->nodes[node(m, "cr1.1")].host, 0);
    gen_map_destroy(m);
    /* quadnow: 30 host greds, quad root over 30 = 8 + 2 + 1, the core; 29 proxies */
    opts_shapes(&o, GEN_SHAPE_NARY, GEN_SHAPE_QUAD);
    m = build_simple(30, 2, &o);
    expect_size(m, 42, 71, 6);
    TST_EQ_UINT(m->nodes[node(m, "cr2.7")].ncontribs, 2);   /* hosts 28, 29 */
    TST_EQ_UINT(m->nodes[node(m, "cr1.1")].ncontribs, 4);
    gen_map_destroy(m);
    /* flatblade: one thread per host needs no host gred: cr0, root; 9 proxies */
    opts_shapes(&o, GEN_SHAPE_NARY, GEN_SHAPE_NARY);
    m = build_simple(10, 1, &o);
    expect_size(m, 2, 11, 3);
    TST_EQ_UINT(m->nodes[node(m, "cr0")].ncontribs, 10);
    gen_map_destroy(m);
    /* one host: no cluster root, h0 enters the core */
    m = build_simple(1, 2, &o);
    expect_size(m, 2, 2, 2);
    TST_EQ_UINT(m->nodes[node(m, "h0")].parent, node(m, "root"));
    gen_map_destroy(m);
}

/* split4w: binary over 8 hosts of 4, span 2 to the last host: cr2.1, cr2.2,
 * cr2.3 on hosts 3, 5, 7; extra links; per-host shapes; the root host. */
void t_gen_build_options(void)
{
    gen_host_shape_t hs[2];
    gen_build_opts_t o;
    gen_map_t *m;

    opts_shapes(&o, GEN_SHAPE_BINARY, GEN_SHAPE_BINARY);
    o.split_span = 2;
    o.split_to_last = 1;
    m = build_simple(8, 4, &o);
    TST_EQ_UINT(m->nodes[node(m, "cr2.0")].host, 0);
    TST_EQ_UINT(m->nodes[node(m, "cr2.1")].host, 3);
    TST_EQ_UINT(m->nodes[node(m, "cr2.2")].host, 5);
    TST_EQ_UINT(m->nodes[node(m, "cr2.3")].host, 7);
    TST_EQ_UINT(gen_map_depth(m), 8);
    gen_map_destroy(m);
    /* with extra links too: h1 moves beside cr2.0 on host0; h3 already has its
     * parent cr2.1 on host3, so it has no link to add and stays */
    o.extra_links = 1;
    m = build_simple(8, 4, &o);
    TST_EQ_UINT(m->nodes[node(m, "h1")].host, 0);
    TST_EQ_UINT(m->nodes[node(m, "h2")].host, 3);
    TST_EQ_UINT(m->nodes[node(m, "h3")].host, 3);
    TST_EQ_UINT(m->nodes[node(m, "h3")].parent, node(m, "cr2.1"));
    gen_map_destroy(m);

    /* binary8w-extralinks: h1-h3 on host0, each fed by two proxies */
    opts_shapes(&o, GEN_SHAPE_BINARY, GEN_SHAPE_BINARY);
    o.extra_links = 1;
    m = build_simple(4, 8, &o);
    TST_EQ_UINT(m->nodes[node(m, "h0")].host, 0);
    TST_EQ_UINT(m->nodes[node(m, "h2")].host, 0);
    TST_EQ_UINT(m->nodes[node(m, "h2.l1.1")].host, 2);
    TST_EQ_UINT(gen_map_nwrappers(m), 32 + 6);
    gen_map_destroy(m);

    /* hosts 1 and 2 n-ary among binary ones */
    opts_shapes(&o, GEN_SHAPE_BINARY, GEN_SHAPE_NARY);
    hs[0].host = 1;
    hs[1].host = 2;
    hs[0].shape.kind = hs[1].shape.kind = GEN_SHAPE_NARY;
    o.host_shapes = hs;
    o.nhost_shapes = 2;
    m = build_simple(4, 4, &o);
    TST_EQ_UINT(m->nodes[node(m, "h1")].ncontribs, 4);
    TST_EQ_UINT(gen_node_find(m, "h1.l1.0"), GEN_NONE);
    TST_EQ_UINT(m->nodes[node(m, "h3")].ncontribs, 2);
    TST_EQ_UINT(m->nodes[node(m, "h3.l1.0")].ncontribs, 2);
    TST_EQ_STR(m->header[3], "Shapes: host subtrees binary (nary on host1, nary on host2), "
                             "cluster root nary");
    gen_map_destroy(m);

    /* root host 2: the core and cr0 there, host0's subtree through p0 */
    opts_shapes(&o, GEN_SHAPE_NARY, GEN_SHAPE_NARY);
    o.root_host = 2;
    m = build_simple(4, 2, &o);
    TST_EQ_UINT(m->nodes[node(m, "root")].host, 2);
    TST_EQ_UINT(m->nodes[node(m, "cr0")].host, 2);
    TST_EQ_UINT(m->nodes[node(m, "h2")].parent, node(m, "cr0"));
    TST_EQ_UINT(m->nodes[node(m, "h0")].host, 0);
    gen_map_destroy(m);
}

void t_gen_build_header(void)
{
    gen_build_opts_t o;
    gen_map_t *m;

    opts_shapes(&o, GEN_SHAPE_QUAD, GEN_SHAPE_BINARY);
    o.command = "pathgen --hosts 4 --threads-per-host 8 --host-shape quad --root-shape binary";
    m = build_simple(4, 8, &o);
    TST_TRUE(m->nheader >= 5);
    TST_EQ_STR(m->header[1], "Generated by: pathgen --hosts 4 --threads-per-host 8 "
                             "--host-shape quad --root-shape binary");
    TST_EQ_STR(m->header[2], "Inputs: --hosts 4 --threads-per-host 8");
    TST_EQ_STR(m->header[3], "Shapes: host subtrees quad, cluster root binary");
    /* quad of 8: 3 greds per host; binary of 4: 3; the core; 3 proxies;
     * thread -> hN.l1.i -> hN -> pN -> cr1.k -> cr0 -> root */
    TST_EQ_STR(m->header[m->nheader - 1],
               "Size: 4 hosts, 32 threads, 19 wrappers; longest path 6 wrappers");
    gen_map_destroy(m);
}

/* The 4W + 8W clusters of section 7.2 through the gateway: 64 nodes (split4w's
 * 31 greds, binary8w's 31, mc, the core), 12 proxies (4W: 4 host proxies and
 * 3 for the moved cr2.k; 8W: 3; pb0 and pgw), longest path 10 as the sample. */
void t_gen_build_multicluster(void)
{
    gen_input_t in;
    gen_build_opts_t o;
    gen_map_t *m = NULL;
    cm_err_t err;

    memset(&in, 0, sizeof(in));
    cm_err_clear(&err);
    TST_EQ_STATUS(gen_input_read_cluster("examples/pathgen/multicluster.cluster", &in, &err),
                  CM_OK);
    TST_EQ_STATUS(gen_input_read_app("examples/pathgen/multicluster.app", &in, &err), CM_OK);
    TST_EQ_STATUS(gen_input_read_mapping("examples/pathgen/multicluster.mapping", &in, &err),
                  CM_OK);
    opts_shapes(&o, GEN_SHAPE_BINARY, GEN_SHAPE_BINARY);
    o.split_span = 2;
    o.split_to_last = 1;
    o.split_cluster = 0;
    if (gen_build(&in, &o, &m, &err) != CM_OK)
        TST_FAIL("gen_build: %s", err.msg);
    TST_EQ_UINT(m->nhosts, 13);
    TST_EQ_STR(m->hosts[8], "gw");
    TST_EQ_UINT(gen_map_nthreads(m), 64);
    expect_size(m, 64, 76, 10);
    TST_EQ_UINT(m->nodes[node(m, "mc")].host, 0);
    gen_map_destroy(m);
    gen_input_cleanup(&in);
}
