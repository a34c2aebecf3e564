/*
 * t_read.c - gen/gen_read.c: every sample pathmap loads and is written
 * back byte for byte (the samples only carry the generator's own comment
 * forms beside the header and comments the reader keeps), with its size
 * checked against the runtime's parse of the same file (threads, wrappers,
 * the longest path: rt_tree_path_len); the structure of a few samples by
 * hand; trees chosen by name; the parser's errors passed on; params and
 * comments of hand-written lines.
 */
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include "tests/tst.h"
#include "tests/test_list.h"
#include "tests/unit/gen/gen_tst.h"
#include "gen/api/gen_map.h"
#include "runtime/api/rt_pathmap.h"

static gen_map_t *load_ok(const char *path, const char *tree)
{
    gen_map_t *m = NULL;
    cm_err_t err;

    cm_err_clear(&err);
    TST_EQ_STATUS(gen_map_load(path, tree, &m, &err), CM_OK);
    TST_NOT_NULL(m);
    return m;
}

static gen_map_t *parse_ok(const char *text, const char *tree)
{
    gen_map_t *m = NULL;
    cm_err_t err;

    cm_err_clear(&err);
    if (gen_map_parse("t.pathmap", text, strlen(text), tree, &m, &err) != CM_OK) {
        char line[700];

        cm_err_format(&err, line, sizeof(line));
        TST_FAIL("parse failed: %s", line);
    }
    return m;
}

static const gen_contrib_t *edge_of(const gen_map_t *m, const char *name)
{
    uint32_t n = gen_node_find(m, name), p, i;

    TST_TRUE(n != GEN_NONE);
    p = m->nodes[n].parent;
    TST_TRUE(p != GEN_NONE);
    for (i = 0; i < m->nodes[p].ncontribs; i++)
        if (!m->nodes[p].contribs[i].is_thread && m->nodes[p].contribs[i].id == n)
            return &m->nodes[p].contribs[i];
    TST_FAIL("%s not among its parent's contributors", name);
}

/* ---- every sample ----------------------------------------------------------- */

static unsigned nsamples;

static void roundtrip(const char *path)
{
    gen_map_t *m = load_ok(path, NULL);
    char *want = gtst_read(path), *got = NULL;
    rt_pathmap_t *pm = NULL;
    const rt_tree_t *t;
    uint32_t i, longest = 0;
    cm_err_t err;

    cm_err_clear(&err);
    TST_EQ_STATUS(gen_map_render(m, &got, &err), CM_OK);
    if (strcmp(got, want) != 0)
        TST_FAIL("%s is not written back as it was", path);
    TST_EQ_STATUS(rt_pathmap_load(path, &pm, &err), CM_OK);
    t = &pm->trees[0];
    for (i = 0; i < t->nthreads; i++)
        if (rt_tree_path_len(t, &t->threads[i]) > longest)
            longest = rt_tree_path_len(t, &t->threads[i]);
    TST_EQ_UINT(gen_map_depth(m), longest);
    TST_EQ_UINT(gen_map_nthreads(m), t->nthreads);
    TST_EQ_UINT(gen_map_nwrappers(m), t->nnodes);
    TST_EQ_UINT(m->nhosts, pm->nhosts);
    rt_pathmap_destroy(pm);
    free(got);
    free(want);
    gen_map_destroy(m);
    nsamples++;
}

static int visit(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    size_t n = strlen(path);

    (void)sb;
    (void)ftw;
    if (type == FTW_F && n > 8 && strcmp(path + n - 8, ".pathmap") == 0)
        roundtrip(path);
    return 0;
}

void t_gen_read_samples(void)
{
    /* Symlinks followed (no FTW_PHYS): in a sanitizer tree (build/san/NAME)
     * pathmaps is a symlink to the checkout's, and glibc's nftw does not
     * enter a symlink under FTW_PHYS, even written "pathmaps/".  The samples
     * hold no symlinks of their own, so nothing is visited twice. */
    TST_EQ_INT(nftw("pathmaps", visit, 16, 0), 0);
    /* 62 samples when this was written: scripts/gen-pathmaps.py --list */
    TST_TRUE(nsamples >= 62);
}

/* ---- structure by hand -------------------------------------------------------- */

void t_gen_read_split(void)
{
    gen_map_t *m = load_ok("pathmaps/local/split-4x2.pathmap", NULL);
    const gen_contrib_t *c;
    uint32_t b, root;

    TST_EQ_UINT(m->nhosts, 4);
    TST_EQ_UINT(m->nheader, 10);
    TST_EQ_STR(m->header[0], "split-4x2 - binary-4x2 with the cluster root split");
    TST_EQ_STR(m->header[5], "");
    TST_EQ_STR(m->header[6], "  host2: 2 threads -> h2 -> p2 -> cr1.1(host3) -> p3.cr1.1 -> cr0 -> root");
    TST_EQ_STR(m->tree_name, "sum");
    TST_EQ_STR(m->tree_params, "type=int32 op=sum");
    TST_EQ_UINT(m->nnodes, 8);           /* 3 proxies are routes */
    root = gen_node_find(m, "root");
    TST_EQ_UINT(m->root, root);
    TST_EQ_INT(m->nodes[root].kind, GEN_CORE);
    TST_EQ_STR(m->nodes[root].comment, "the core: stores the sum");
    TST_NULL(m->nodes[root].params);
    b = gen_node_find(m, "cr1.1");
    TST_EQ_UINT(m->nodes[b].host, 3);
    TST_NULL(m->nodes[b].comment);       /* "fan-in 2" is the writer's */
    c = edge_of(m, "cr1.1");
    TST_EQ_UINT(c->nroute, 1);
    TST_EQ_STR(c->route[0].name, "p3.cr1.1");
    TST_EQ_UINT(c->route[0].host, 3);
    TST_NULL(c->route[0].comment);       /* "host3 -> host0" too */
    TST_EQ_STR(edge_of(m, "h2")->route[0].name, "p2");
    TST_EQ_UINT(edge_of(m, "h3")->nroute, 0);
    /* cr1.1: h2 then h3 (thread order), each with its two threads */
    TST_EQ_UINT(m->nodes[b].ncontribs, 2);
    TST_EQ_UINT(m->nodes[b].contribs[0].id, gen_node_find(m, "h2"));
    TST_EQ_UINT(m->nodes[gen_node_find(m, "h3")].contribs[1].id, 7);
    TST_TRUE(m->nodes[gen_node_find(m, "h3")].contribs[1].is_thread);
    TST_EQ_UINT(m->nodes[gen_node_find(m, "h3")].contribs[1].host, 3);
    gen_map_destroy(m);
}

void t_gen_read_gateway_algo(void)
{
    gen_map_t *m = load_ok("pathmaps/local/gateway-3x2.pathmap", NULL);
    const gen_contrib_t *c = edge_of(m, "hb");
    uint32_t a;

    TST_EQ_UINT(c->nroute, 2);
    TST_EQ_STR(c->route[0].name, "pb");
    TST_EQ_UINT(c->route[0].host, 2);
    TST_EQ_STR(c->route[0].comment, "b -> gw: b reaches cluster a only through gw");
    TST_EQ_STR(c->route[1].name, "pgw");
    TST_EQ_UINT(c->route[1].host, 1);
    TST_EQ_STR(m->nodes[gen_node_find(m, "mc")].comment,
               "multi-cluster root: one contribution per cluster");
    gen_map_destroy(m);

    m = load_ok("pathmaps/local/algo/chain-reduce-chain-bcast-2x2.pathmap", NULL);
    a = gen_node_find(m, "across");
    TST_EQ_UINT(m->root, a);
    TST_EQ_INT(m->nodes[a].kind, GEN_ALGO);
    TST_EQ_UINT(m->nodes[a].host, GEN_NONE);
    TST_EQ_STR(m->nodes[a].params, "run=chain-reduce bcast=chain-bcast segments=4 port=b");
    TST_EQ_UINT(m->nodes[a].ncontribs, 2);
    TST_EQ_STR(m->nodes[m->nodes[a].contribs[0].id].name, "h0");
    gen_map_destroy(m);
}

/* ---- trees by name; errors ----------------------------------------------------- */

void t_gen_read_tree_names(void)
{
    const char *path = "tests/pathmap/good/two-trees-2x2.pathmap";
    gen_map_t *m = NULL;
    cm_err_t err;
    char line[700];
    uint32_t g3;

    cm_err_clear(&err);
    TST_EQ_STATUS(gen_map_load(path, NULL, &m, &err), CM_ERR_NAME);
    TST_NULL(m);
    cm_err_format(&err, line, sizeof(line));
    TST_EQ_STR(line, "tests/pathmap/good/two-trees-2x2.pathmap: error: "
                     "2 trees (flat, deep): say which one");
    TST_EQ_STATUS(gen_map_load(path, "nope", &m, &err), CM_ERR_NAME);
    cm_err_format(&err, line, sizeof(line));
    TST_EQ_STR(line, "tests/pathmap/good/two-trees-2x2.pathmap: error: "
                     "no tree 'nope' (trees: flat, deep)");
    m = load_ok(path, "deep");
    TST_EQ_STR(m->tree_name, "deep");
    TST_EQ_UINT(m->nnodes, 5);          /* c g1 g2 g3 gy; py is gy's route */
    g3 = gen_node_find(m, "g3");
    /* g3: thread 0, then gy (threads 2-3) through py */
    TST_EQ_UINT(m->nodes[g3].ncontribs, 2);
    TST_TRUE(m->nodes[g3].contribs[0].is_thread);
    TST_EQ_STR(edge_of(m, "gy")->route[0].name, "py");
    TST_EQ_UINT(gen_map_depth(m), 6);   /* gy py g3 g2 g1 c */
    gen_map_destroy(m);
    m = load_ok(path, "flat");
    TST_EQ_UINT(m->nnodes, 2);
    TST_EQ_UINT(gen_map_nwrappers(m), 4);
    gen_map_destroy(m);
}

void t_gen_read_errors(void)
{
    static const char bad[] = "host a\n"
                              "tree sum\n"
                              "core r host=a\n"
                              "gred g host=b parent=r\n";
    gen_map_t *m = NULL;
    rt_pathmap_t *pm = NULL;
    cm_err_t err, want;
    char line[700], wline[700];

    cm_err_clear(&err);
    cm_err_clear(&want);
    TST_EQ_STATUS(rt_pathmap_parse("bad.pathmap", bad, strlen(bad), &pm, &want), CM_ERR_NAME);
    TST_TRUE(gen_map_parse("bad.pathmap", bad, strlen(bad), NULL, &m, &err) != CM_OK);
    TST_NULL(m);
    cm_err_format(&err, line, sizeof(line));
    cm_err_format(&want, wline, sizeof(wline));
    TST_EQ_STR(line, wline);             /* the parser's error, as it is */
    TST_EQ_UINT(err.line, 4);
    TST_EQ_UINT(err.col, 13);            /* the "b" of "host=b" */
    TST_EQ_STATUS(gen_map_load("pathmaps/no-such.pathmap", NULL, &m, &err), CM_ERR_IO);
    TST_NULL(m);
}

/* ---- params, comments, order ----------------------------------------------------- */

void t_gen_read_words(void)
{
    static const char text[] =
        "#x\r\n"
        "#\r\n"
        "#  two\r\n"
        "host a\t# rank 0\r\n"
        "host b\r\n"
        "\r\n"
        "# not header\r\n"
        "tree t op=max   type=double # the tree\r\n"
        "core r host=a\r\n"
        "gred top host=a parent=r  # fan-in 3\r\n"
        "gred g2\twait=spin  host=a parent=top\t# fan-in two\r\n"
        "gred g1 host=a parent=top wait=block #   mine  \r\n"
        "proxy q host=b parent=top # b -> a\r\n"
        "proxy q2 host=b parent=top # b -> a: why\r\n"
        "threads 2-3 host=a enter=g2\r\n"
        "threads 0,1 host=a enter=g1\r\n"
        "threads 4 host=b enter=q\r\n"
        "threads 5 host=b enter=q2\r\n";
    gen_map_t *m = parse_ok(text, NULL);
    uint32_t top = gen_node_find(m, "top"), g1 = gen_node_find(m, "g1");
    uint32_t g2 = gen_node_find(m, "g2");
    const gen_node_t *t = &m->nodes[top];

    TST_EQ_UINT(m->nheader, 3);
    TST_EQ_STR(m->header[0], "x");
    TST_EQ_STR(m->header[1], "");
    TST_EQ_STR(m->header[2], " two");
    TST_EQ_STR(m->tree_name, "t");
    TST_EQ_STR(m->tree_params, "op=max type=double");
    TST_NULL(t->comment);
    TST_NULL(t->params);
    TST_EQ_STR(m->nodes[g2].params, "wait=spin");
    TST_EQ_STR(m->nodes[g2].comment, "fan-in two");
    TST_EQ_STR(m->nodes[g1].params, "wait=block");
    TST_EQ_STR(m->nodes[g1].comment, "mine");
    /* thread order: g1 (0-1), g2 (2-3), thread 4 via q, thread 5 via q2 */
    TST_EQ_UINT(t->ncontribs, 4);
    TST_EQ_UINT(t->contribs[0].id, g1);
    TST_EQ_UINT(t->contribs[1].id, g2);
    TST_TRUE(t->contribs[2].is_thread && t->contribs[2].id == 4);
    TST_EQ_STR(t->contribs[2].route[0].name, "q");
    TST_NULL(t->contribs[2].route[0].comment);
    TST_EQ_STR(t->contribs[3].route[0].comment, "b -> a: why");
    TST_EQ_UINT(t->contribs[3].host, 1);
    gen_map_destroy(m);
}

/* A chain of 65000 greds (the parser takes 65536 nodes): reading, writing
 * and comparing stay linear, and nothing recurses that deep. */
void t_gen_read_deep_chain(void)
{
    enum { N = 65000 };
    size_t cap = (size_t)N * 48 + 256, len = 0;
    char *text = malloc(cap), *out;
    gen_map_t *a, *b;
    uint32_t i;
    char why[256];

    TST_NOT_NULL(text);
    len += (size_t)snprintf(text + len, cap - len, "host a\nhost b\ntree t\ncore c host=a\n");
    for (i = 0; i < N; i++) {
        char parent[16];

        snprintf(parent, sizeof(parent), i ? "g%u" : "c", (unsigned)(i - 1));
        len += (size_t)snprintf(text + len, cap - len, "gred g%u host=a parent=%s\n",
                                (unsigned)i, parent);
    }
    len += (size_t)snprintf(text + len, cap - len,
                            "proxy p host=b parent=g%u\nthreads 0 host=a enter=g%u\n"
                            "threads 1 host=b enter=p\n", N - 1, N - 1);
    a = parse_ok(text, NULL);
    b = parse_ok(text, NULL);
    TST_EQ_UINT(a->nnodes, N + 1);
    TST_EQ_UINT(gen_map_depth(a), N + 2);      /* p, the greds, c */
    TST_TRUE(gen_map_equal(a, b, 1, why, sizeof(why)));
    out = gen_map_format(a);
    TST_NOT_NULL(out);
    TST_TRUE(strstr(out, "proxy p      host=b parent=g64999  # b -> a\n") != NULL);
    free(out);
    gen_map_destroy(a);
    gen_map_destroy(b);
    free(text);
}
