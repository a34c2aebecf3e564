/*
 * t_compare.c - gen/gen_compare.c: pairs of samples that pathmaps/README.md
 * says are the same tree ("Coincident local trees") or not, and small
 * hand-written texts that differ in one thing each (names, a moved
 * wrapper, params, hosts, type); the first difference is named as worked
 * out by hand.
 */
#include <stdlib.h>
#include <string.h>
#include "tests/tst.h"
#include "tests/test_list.h"
#include "gen/api/gen_map.h"

static gen_map_t *load(const char *path)
{
    gen_map_t *m = NULL;
    cm_err_t err;

    cm_err_clear(&err);
    TST_EQ_STATUS(gen_map_load(path, NULL, &m, &err), CM_OK);
    return m;
}

static gen_map_t *parse(const char *text)
{
    gen_map_t *m = NULL;
    cm_err_t err;

    cm_err_clear(&err);
    if (gen_map_parse("t.pathmap", text, strlen(text), NULL, &m, &err) != CM_OK)
        TST_FAIL("does not parse: %s (line %u col %u)", err.msg, err.line, err.col);
    return m;
}

/* Compares a and b (consumed) with `names`; want NULL: equal, else the
 * difference expected. */
static void expect(gen_map_t *a, gen_map_t *b, int names, const char *want)
{
    char why[512];
    int eq = gen_map_equal(a, b, names, why, sizeof(why));

    if (want == NULL) {
        if (!eq)
            TST_FAIL("not equal: %s", why);
        TST_EQ_STR(why, "");
    } else {
        TST_FALSE(eq);
        TST_EQ_STR(why, want);
    }
    gen_map_destroy(a);
    gen_map_destroy(b);
}

#define L "pathmaps/local/"

void t_gen_compare_samples(void)
{
    /* the same tree at this size (pathmaps/README.md), names and all */
    expect(load(L "binaryquad-2x4.pathmap"), load(L "binary-2x4.pathmap"), 1, NULL);
    expect(load(L "split-4x2.pathmap"), load(L "split2-4x2.pathmap"), 1, NULL);
    expect(load(L "quad-2x4.pathmap"), load(L "quad-2x4.pathmap"), 1, NULL);
    /* nary: cr0 of h0, p1, p2, p3; binary: cr0 of cr1.0, cr1.1 */
    expect(load(L "nary-4x2.pathmap"), load(L "binary-4x2.pathmap"), 0,
           "node cr0 (host 0): 4 contributors in a, 2 in b");
    /* quad-2x4: h0 of 4 threads; binary-2x4: h0 of h0.l1.0, h0.l1.1 */
    expect(load(L "quad-2x4.pathmap"), load(L "binary-2x4.pathmap"), 0,
           "node h0 (host 0): 4 contributors in a, 2 in b");
    /* split: cr1.1 moved to host3 reaches cr0 through p3.cr1.1 */
    expect(load(L "binary-4x2.pathmap"), load(L "split-4x2.pathmap"), 0,
           "node cr0 (host 0): node cr1.1 comes through 0 proxies in a, 1 in b");
    /* pair-2x1: thread 0 enters cr0 itself; nary-2x2: h0 does */
    expect(load(L "nary-2x2.pathmap"), load(L "pair-2x1.pathmap"), 0,
           "node cr0 (host 0): contributor 1 is node h0 (threads from 0) in a, thread 0 in b");
    expect(load(L "algo/rd-4x2.pathmap"), load(L "algo/nap-4x2.pathmap"), 0,
           "node across: params run=rd in a, run=nap ppn=2 in b");
    expect(load(L "nary-2x2.pathmap"), load(L "nary-4x2.pathmap"), 0,
           "2 hosts in a, 4 in b");
}

static const char BASE[] =
    "host a\nhost b\n"
    "tree sum\n"
    "core  r  host=a\n"
    "gred  g0 host=a parent=r\n"
    "proxy q  host=b parent=g0\n"
    "gred  g1 host=b parent=q\n"
    "threads 0-1 host=a enter=g0\n"
    "threads 2-3 host=b enter=g1\n";

/* BASE with every wrapper renamed, declared in another order, comments and
 * type=int32 op=sum spelled out (the defaults). */
static const char RENAMED[] =
    "# a header\n"
    "host a\nhost b\n"
    "tree sum op=sum type=int32  # defaults\n"
    "core  root host=a\n"
    "proxy pb   host=b parent=top   # b -> a\n"
    "gred  top  host=a parent=root  # the top\n"
    "gred  hb   host=b parent=pb\n"
    "threads 2-3 host=b enter=hb\n"
    "threads 0 host=a enter=top\n"
    "threads 1 host=a enter=top\n";

void t_gen_compare_names(void)
{
    expect(parse(BASE), parse(RENAMED), 0, NULL);
    expect(parse(BASE), parse(RENAMED), 1, "node r (host 0) is called root in b");
    expect(parse(BASE), parse(BASE), 1, NULL);
    {
        /* only the proxy renamed */
        gen_map_t *a = parse(BASE), *b = parse(BASE);
        uint32_t g0 = gen_node_find(b, "g0");

        free(b->nodes[g0].contribs[2].route[0].name);
        b->nodes[g0].contribs[2].route[0].name = strdup("pq");
        expect(a, b, 1, "node g0 (host 0): proxy q of node g1 is called pq in b");
    }
    {
        /* the tree's name */
        gen_map_t *a = parse(BASE), *b = parse(BASE);

        free(b->tree_name);
        b->tree_name = strdup("total");
        expect(a, b, 0, NULL);
        a = parse(BASE);
        b = parse(BASE);
        free(b->tree_name);
        b->tree_name = strdup("total");
        expect(a, b, 1, "the tree is called sum in a, total in b");
    }
}

void t_gen_compare_params(void)
{
    static const char block[] =
        "host a\nhost b\ntree sum\n"
        "core  r  host=a\n"
        "gred  g0 host=a parent=r wait=block\n"
        "proxy q  host=b parent=g0\n"
        "gred  g1 host=b parent=q\n"
        "threads 0-1 host=a enter=g0\n"
        "threads 2-3 host=b enter=g1\n";
    static const char dbl[] =
        "host a\nhost b\ntree sum type=double\n"
        "core  r  host=a\n"
        "gred  g0 host=a parent=r\n"
        "proxy q  host=b parent=g0\n"
        "gred  g1 host=b parent=q\n"
        "threads 0-1 host=a enter=g0\n"
        "threads 2-3 host=b enter=g1\n";
    gen_map_t *a, *b;

    expect(parse(BASE), parse(block), 0, "node g0 (host 0): params none in a, wait=block in b");
    expect(parse(BASE), parse(dbl), 0, "type=int32 in a, type=double in b");
    /* the same words in another order are the same params */
    a = parse(BASE);
    b = parse(BASE);
    free(a->nodes[a->root].params);
    free(b->nodes[b->root].params);
    a->nodes[a->root].params = strdup("x=1 y=2");
    b->nodes[b->root].params = strdup("y=2  x=1");
    expect(a, b, 1, NULL);
}

/* A wrapper moved to another host, its proxies fixed: split-4x2 with cr1.1
 * on host2 instead of host3 (then p2.cr1.1 carries it to cr0). */
void t_gen_compare_moved(void)
{
    gen_map_t *a = load(L "split-4x2.pathmap"), *b = load(L "split-4x2.pathmap");
    uint32_t n = gen_node_find(b, "cr1.1");

    b->nodes[n].host = 2;
    TST_EQ_INT(gen_map_fix_routes(b), 0);
    expect(a, b, 0, "node cr0 (host 0): proxy p3.cr1.1 of node cr1.1 on host 3 in a, host 2 in b");

    /* g1 of BASE moved onto host a: threads 2, 3 come through proxies */
    a = parse(BASE);
    b = parse(BASE);
    b->nodes[gen_node_find(b, "g1")].host = 0;
    TST_EQ_INT(gen_map_fix_routes(b), 0);
    expect(a, b, 0, "node g0 (host 0): node g1 comes through 1 proxy in a, 0 in b");
}

/* Contributors out of thread order (the model's rule broken by hand) still
 * compare by thread order. */
void t_gen_compare_order(void)
{
    gen_map_t *a = load(L "nary-4x2.pathmap"), *b = load(L "nary-4x2.pathmap");
    gen_node_t *cr0 = &b->nodes[gen_node_find(b, "cr0")];
    gen_contrib_t t = cr0->contribs[0];

    cr0->contribs[0] = cr0->contribs[3];
    cr0->contribs[3] = t;
    expect(a, b, 1, NULL);
}
