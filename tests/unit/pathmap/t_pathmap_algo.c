/*
 * t_pathmap_algo.c - unit tests of algorithm nodes in pathmaps: the model
 * the parser builds for an `algo` line (its hosts, its root, its
 * parameters and their defaults) and type=float.  Expected values are
 * worked out by hand from the texts below and docs/pathmap.md ("Algorithm
 * nodes"); the error messages are in the bad-input corpus
 * (tests/pathmap/bad/86-* and later).
 */
#include <string.h>
#include "tests/tst.h"
#include "tests/test_list.h"
#include "runtime/api/rt_auto.h"
#include "runtime/api/rt_pathmap.h"

static rt_pathmap_t *parse_ok(const char *text)
{
    rt_pathmap_t *pm = NULL;
    cm_err_t err;

    cm_err_clear(&err);
    if (rt_pathmap_parse("t.pathmap", text, strlen(text), &pm, &err) != CM_OK)
        TST_FAIL("parse failed: %s:%u:%u: %s", err.path, err.line, err.col, err.msg);
    return pm;
}

static const rt_node_t *node_named(const rt_tree_t *t, const char *name)
{
    for (uint32_t i = 0; i < t->nnodes; i++) {
        if (strcmp(t->nodes[i].name, name) == 0)
            return &t->nodes[i];
    }
    TST_FAIL("no node '%s'", name);
    return NULL;
}

/* The agreed example: a gred per host, recursive doubling across. */
void t_pathmap_algo_example(void)
{
    static const char text[] =
        "host h0\n"
        "host h1\n"
        "tree sum type=int32 op=sum\n"
        "algo  across  run=rd                       # the root\n"
        "gred  g0  host=h0 parent=across\n"
        "gred  g1  host=h1 parent=across\n"
        "threads 0-1 host=h0 enter=g0\n"
        "threads 2-3 host=h1 enter=g1\n";
    rt_pathmap_t *pm = parse_ok(text);
    const rt_tree_t *t = rt_pathmap_tree(pm, NULL);
    const rt_node_t *across = node_named(t, "across"), *g1 = node_named(t, "g1");
    const rt_algo_spec_t *spec = across->algo;

    /* The algo node is the root: index 0, no parent, depth 0, the two
     * greds its children, on their own hosts, at depth 1. */
    TST_EQ_UINT(t->root, 0);
    TST_EQ_PTR(rt_tree_algo(t), across);
    TST_EQ_INT(across->kind, RT_NODE_ALGO);
    TST_EQ_STR(rt_node_kind_name(across->kind), "algo");
    TST_EQ_UINT(across->parent, RT_ID_NONE);
    TST_EQ_UINT(across->depth, 0);
    TST_EQ_UINT(across->nchildren, 2);
    TST_EQ_UINT(across->nthreads, 0);
    TST_EQ_UINT(across->line, 4);
    TST_EQ_UINT(across->col, 1);
    TST_EQ_UINT(g1->host, 1);
    TST_EQ_UINT(t->nodes[g1->parent].kind, RT_NODE_ALGO);
    TST_EQ_UINT(g1->depth, 1);
    TST_NULL(g1->algo);
    /* Every thread: its gred, then the algo node. */
    TST_EQ_UINT(rt_tree_path_len(t, &t->threads[0]), 2);
    TST_EQ_UINT(rt_tree_path_len(t, &t->threads[3]), 2);
    /* What it runs: rd, no broadcast, the defaults. */
    TST_NOT_NULL(spec);
    TST_EQ_PTR(spec->run, rt_algo_find("rd"));
    TST_NULL(spec->bcast);
    TST_EQ_INT(spec->native, 0);
    TST_EQ_UINT(spec->nhosts, 2);
    TST_EQ_UINT(spec->hosts[0], 0);
    TST_EQ_UINT(spec->hosts[1], 1);
    TST_EQ_UINT(across->host, 0);
    TST_EQ_INT(spec->root, 0);
    TST_EQ_INT(spec->segcount, 0);
    TST_EQ_INT(spec->nsegs, 0);
    TST_EQ_INT(spec->round_ns, RT_ALGO_ROUND_NS_DEFAULT);
    TST_EQ_INT(spec->ppn, 0);
    TST_EQ_INT(spec->port, RT_PORT_U);
    TST_EQ_INT(spec->shape, RT_TREE_HEAP);
    TST_EQ_INT(spec->arrival, RT_ARRIVAL_EQUAL);
    TST_EQ_INT(spec->pap, 0);
    rt_pathmap_destroy(pm);
}

/*
 * Hosts are the contributors' hosts in ascending host number, whatever the
 * order of the lines: h3 (a gred, declared first), h1 (a thread entering
 * directly) and h0 (a gred); h2 is a gateway whose proxy feeds h3's gred
 * and takes no part.  So hosts = {0, 1, 3}: h0 is rank 0, h1 rank 1, h3
 * rank 2, and root=h3 is index 2.
 */
void t_pathmap_algo_hosts_ascending(void)
{
    static const char text[] =
        "host h0\nhost h1\nhost h2\nhost h3\n"
        "tree t type=int64 op=max\n"
        "gred g3 host=h3 parent=x\n"
        "threads 5 host=h1 enter=x\n"
        "algo x run=binomial-reduce root=h3\n"
        "gred g0 host=h0 parent=x\n"
        "proxy p2 host=h2 parent=g3\n"
        "threads 0-1 host=h0 enter=g0\n"
        "threads 2 host=h2 enter=p2\n"
        "threads 3 host=h3 enter=g3\n";
    rt_pathmap_t *pm = parse_ok(text);
    const rt_tree_t *t = rt_pathmap_tree(pm, "t");
    const rt_node_t *x = node_named(t, "x");
    const rt_algo_spec_t *spec = x->algo;

    TST_EQ_UINT(t->root, 1);                 /* nodes g3, x, g0, p2 */
    TST_EQ_STR(t->nodes[t->root].name, "x");
    TST_EQ_UINT(x->nchildren, 2);            /* g3, g0 */
    TST_EQ_UINT(x->nthreads, 1);             /* thread 5 */
    TST_EQ_UINT(spec->nhosts, 3);
    TST_EQ_UINT(spec->hosts[0], 0);
    TST_EQ_UINT(spec->hosts[1], 1);
    TST_EQ_UINT(spec->hosts[2], 3);
    TST_EQ_UINT(x->host, 0);
    TST_EQ_INT(rt_algo_host_index(spec, 0), 0);
    TST_EQ_INT(rt_algo_host_index(spec, 1), 1);
    TST_EQ_INT(rt_algo_host_index(spec, 2), -1);
    TST_EQ_INT(rt_algo_host_index(spec, 3), 2);
    TST_EQ_INT(spec->root, 2);
    /* A reduce gets the default broadcast. */
    TST_EQ_PTR(spec->run, rt_algo_find("binomial-reduce"));
    TST_EQ_PTR(spec->bcast, rt_algo_find("binomial-bcast"));
    TST_EQ_INT(spec->pap, 0);
    /* Depths: g3 is a child of x (1), p2 a child of g3 (2).  Threads
     * sorted 0, 1, 2, 3, 5: thread 2 goes p2, g3, x; thread 3 g3, x;
     * thread 5 enters x directly. */
    TST_EQ_UINT(node_named(t, "g3")->depth, 1);
    TST_EQ_UINT(node_named(t, "p2")->depth, 2);
    TST_EQ_UINT(t->threads[2].id, 2);
    TST_EQ_UINT(rt_tree_path_len(t, &t->threads[2]), 3);
    TST_EQ_UINT(t->threads[3].id, 3);
    TST_EQ_UINT(rt_tree_path_len(t, &t->threads[3]), 2);
    TST_EQ_UINT(t->threads[4].id, 5);
    TST_EQ_UINT(t->threads[4].host, 1);
    TST_EQ_UINT(rt_tree_path_len(t, &t->threads[4]), 1);
    rt_pathmap_destroy(pm);
}

/* Every parameter stored where the generators read it, one tree each. */
void t_pathmap_algo_params(void)
{
    static const char text[] =
        "host a\nhost b\nhost c\nhost d\n"
        "tree pap type=double\n"
        "algo x run=clv bcast=chain-bcast root=c segments=6 round=2500 arrival=history\n"
        "threads 0 host=a enter=x\nthreads 1 host=b enter=x\nthreads 2 host=c enter=x\n"
        "tree chain\n"
        "algo x run=chain-reduce port=b segsize=512\n"
        "threads 0 host=a enter=x\nthreads 1 host=b enter=x\n"
        "tree bintree\n"
        "algo x shape=ompi run=bintree-reduce\n"            /* run= need not come first */
        "threads 0 host=a enter=x\nthreads 3 host=d enter=x\n"
        "tree nap\n"
        "algo x run=nap ppn=2\n"
        "threads 0 host=a enter=x\nthreads 1 host=b enter=x\n"
        "threads 2 host=c enter=x\nthreads 3 host=d enter=x\n"
        "tree seg\n"
        "algo x run=ring-seg segsize=4096\n"
        "threads 1 host=b enter=x\nthreads 2 host=c enter=x\n"
        "tree prr\n"
        "algo x run=prr\n"
        "threads 1 host=b enter=x\nthreads 2 host=c enter=x\n"
        "tree native\n"
        "algo x run=native\n"
        "threads 0 host=a enter=x\nthreads 2 host=c enter=x\n";
    rt_pathmap_t *pm = parse_ok(text);
    const rt_algo_spec_t *s;

    TST_EQ_UINT(pm->ntrees, 7);
    s = rt_tree_algo(rt_pathmap_tree(pm, "pap"))->algo;
    TST_EQ_PTR(s->run, rt_algo_find("clv"));
    TST_EQ_PTR(s->bcast, rt_algo_find("chain-bcast"));
    TST_EQ_UINT(s->nhosts, 3);
    TST_EQ_INT(s->root, 2);                  /* c is the third of a, b, c */
    TST_EQ_INT(s->nsegs, 6);
    TST_EQ_INT(s->segcount, 0);
    TST_EQ_INT(s->round_ns, 2500);
    TST_EQ_INT(s->arrival, RT_ARRIVAL_HISTORY);
    TST_EQ_INT(s->pap, 1);                   /* clv reads arrival times */
    TST_EQ_INT(rt_pathmap_tree(pm, "pap")->dtype, RT_DTYPE_DOUBLE);

    s = rt_tree_algo(rt_pathmap_tree(pm, "chain"))->algo;
    TST_EQ_PTR(s->bcast, rt_algo_find("binomial-bcast"));   /* the default */
    TST_EQ_INT(s->port, RT_PORT_B);
    TST_EQ_INT(s->segcount, 512);
    TST_EQ_INT(s->nsegs, 0);
    TST_EQ_INT(s->root, 0);
    TST_EQ_INT(s->pap, 0);

    s = rt_tree_algo(rt_pathmap_tree(pm, "bintree"))->algo;
    TST_EQ_PTR(s->run, rt_algo_find("bintree-reduce"));
    TST_EQ_INT(s->shape, RT_TREE_OMPI);
    TST_EQ_INT(s->port, RT_PORT_U);
    TST_EQ_UINT(s->hosts[1], 3);

    s = rt_tree_algo(rt_pathmap_tree(pm, "nap"))->algo;
    TST_EQ_INT(s->ppn, 2);
    TST_EQ_UINT(s->nhosts, 4);
    TST_NULL(s->bcast);

    s = rt_tree_algo(rt_pathmap_tree(pm, "seg"))->algo;
    TST_EQ_INT(s->segcount, 4096);
    TST_EQ_UINT(s->hosts[0], 1);
    TST_EQ_UINT(rt_tree_algo(rt_pathmap_tree(pm, "seg"))->host, 1);

    s = rt_tree_algo(rt_pathmap_tree(pm, "prr"))->algo;
    TST_EQ_INT(s->round_ns, RT_ALGO_ROUND_NS_DEFAULT);
    TST_EQ_INT(s->arrival, RT_ARRIVAL_EQUAL);
    TST_EQ_INT(s->pap, 1);

    s = rt_tree_algo(rt_pathmap_tree(pm, "native"))->algo;
    TST_EQ_INT(s->native, 1);
    TST_NULL(s->run);
    TST_NULL(s->bcast);
    TST_EQ_INT(s->pap, 0);
    rt_pathmap_destroy(pm);
}

/* A core-rooted tree has no algorithm node; its nodes have no spec. */
void t_pathmap_algo_none_in_core_tree(void)
{
    static const char text[] =
        "host h0\ntree t type=float op=min\ncore c host=h0\ngred g host=h0 parent=c\n"
        "threads 0-1 host=h0 enter=g\n";
    rt_pathmap_t *pm = parse_ok(text);
    const rt_tree_t *t = rt_pathmap_tree(pm, NULL);

    TST_NULL(rt_tree_algo(t));
    TST_NULL(t->nodes[0].algo);
    TST_NULL(t->nodes[1].algo);
    TST_EQ_INT(t->dtype, RT_DTYPE_FLOAT);
    TST_EQ_STR(rt_dtype_name(t->dtype), "float");
    TST_EQ_UINT(rt_dtype_size(t->dtype), 4);
    TST_EQ_INT(t->op, RT_OP_MIN);
    rt_pathmap_destroy(pm);
}

/* rt_tree_tuple_bytes counts nothing for the algorithm node itself: each
 * host holds its gred's accumulator and result (100-byte tuples rounded up
 * to 128, twice), no core store, no link. */
void t_pathmap_algo_tuple_bytes(void)
{
    static const char text[] =
        "host h0\nhost h1\ntree t\nalgo x run=ring\n"
        "gred g0 host=h0 parent=x\ngred g1 host=h1 parent=x\n"
        "threads 0-1 host=h0 enter=g0\nthreads 2-3 host=h1 enter=g1\n";
    rt_pathmap_t *pm = parse_ok(text);
    const rt_tree_t *t = rt_pathmap_tree(pm, NULL);

    TST_EQ_UINT(rt_tree_tuple_bytes(t, 0, 1, 100), 2 * 128);
    TST_EQ_UINT(rt_tree_tuple_bytes(t, 1, 3, 100), 3 * 2 * 128);
    rt_pathmap_destroy(pm);
}

/* arrival= takes the three sources by name, and rt_arrival_name spells
 * them back as the pathmap does. */
void t_pathmap_algo_arrival_sources(void)
{
    static const char *words[] = { "equal", "history", "edge" };
    static const rt_arrival_t want[] = { RT_ARRIVAL_EQUAL, RT_ARRIVAL_HISTORY,
                                         RT_ARRIVAL_EDGE };

    for (int i = 0; i < 3; i++) {
        char text[256];
        rt_pathmap_t *pm;
        const rt_algo_spec_t *s;

        snprintf(text, sizeof text,
                 "host a\nhost b\ntree t\nalgo x run=slt arrival=%s\n"
                 "threads 0 host=a enter=x\nthreads 1 host=b enter=x\n", words[i]);
        pm = parse_ok(text);
        s = rt_tree_algo(rt_pathmap_tree(pm, NULL))->algo;
        TST_EQ_INT(s->arrival, want[i]);
        TST_EQ_STR(rt_arrival_name(s->arrival), words[i]);
        rt_pathmap_destroy(pm);
    }
}

/* run=auto (docs/auto.md, "In a pathmap"): the defaults, a candidate list,
   and the parameters handed to the candidates that read them; by hand. */
void t_pathmap_algo_auto(void)
{
    static const char text[] =
        "host h0\n"
        "host h1\n"
        "tree a type=float op=sum\n"
        "algo x run=auto\n"
        "threads 0 host=h0 enter=x\n"
        "threads 1 host=h1 enter=x\n"
        "tree b type=float op=sum\n"
        "algo y run=auto candidates=ring,prr,native arrival=history round=7000 \n"
        "threads 0 host=h0 enter=y\n"
        "threads 1 host=h1 enter=y\n";
    rt_pathmap_t *pm = parse_ok(text);
    const rt_algo_spec_t *a = node_named(rt_pathmap_tree(pm, "a"), "x")->algo;
    const rt_algo_spec_t *b = node_named(rt_pathmap_tree(pm, "b"), "y")->algo;

    TST_NOT_NULL(a->autocfg);
    TST_NULL(a->run);
    TST_EQ_INT(a->native, 0);
    TST_EQ_INT(a->pap, 1);
    TST_EQ_STR(rt_algo_spec_name(a), "auto");
    TST_EQ_INT(a->arrival, RT_ARRIVAL_EQUAL);
    TST_EQ_UINT(a->autocfg->ncand, 6);        /* rd,ring,rabenseifner,prr,slt,native */
    TST_EQ_STR(a->autocfg->cand[0], "rd");
    TST_EQ_STR(a->autocfg->cand[5], "native");
    TST_EQ_INT(a->autocfg->round_ns, RT_ALGO_ROUND_NS_DEFAULT);
    TST_EQ_UINT(b->autocfg->ncand, 3);
    TST_EQ_STR(b->autocfg->cand[0], "ring");
    TST_EQ_STR(b->autocfg->cand[1], "prr");
    TST_EQ_STR(b->autocfg->cand[2], "native");
    TST_EQ_INT(b->arrival, RT_ARRIVAL_HISTORY);
    TST_EQ_INT(b->autocfg->round_ns, 7000);
    TST_EQ_INT(rt_algo_takes(b, "round"), 1);      /* prr reads it */
    TST_EQ_INT(rt_algo_takes(b, "segsize"), 0);    /* no slt among ring, prr, native */
    TST_EQ_INT(rt_algo_takes(b, "candidates"), 1);
    TST_EQ_INT(rt_algo_takes(b, "root"), 0);
    rt_pathmap_destroy(pm);
}
