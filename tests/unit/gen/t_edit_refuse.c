/*
 * t_edit_refuse.c - edits that do not apply: each operator's refusals, with
 * the status (CM_ERR_NAME for an unknown wrapper or host, CM_ERR_INVALID
 * otherwise), the one-line reason, and the model's text unchanged.
 */
#include "tests/test_list.h"
#include "tests/unit/gen/edit_tst.h"

#define P "pathmaps/paper/"
#define L "pathmaps/local/"

/* call uses `err`; checks status, message and that m did not change */
#define REFUSE(m, want_st, want_msg, call)                                  \
    do {                                                                    \
        char *b_ = etst_text(m), *a_;                                       \
        cm_err_t err;                                                       \
        cm_err_clear(&err);                                                 \
        TST_EQ_STATUS((call), (want_st));                                   \
        TST_EQ_STR(err.msg, (want_msg));                                    \
        a_ = etst_text(m);                                                  \
        TST_EQ_STR(a_, b_);                                                 \
        free(a_);                                                           \
        free(b_);                                                           \
    } while (0)

void t_gen_edit_refuse_level(void)
{
    gen_map_t *m = etst_load(L "nary-2x2.pathmap"), *n8 = etst_load(P "nary8w.pathmap");

    REFUSE(m, CM_ERR_NAME, "add-level: no wrapper 'h9' in tree sum",
           gen_edit_add_level(m, "h9", 0, &err));
    REFUSE(m, CM_ERR_INVALID, "add-level: 'p1' is a proxy, not a gred",
           gen_edit_add_level(m, "p1", 0, &err));
    REFUSE(m, CM_ERR_INVALID, "add-level: 'root' is the core, not a gred",
           gen_edit_add_level(m, "root", 0, &err));
    REFUSE(m, CM_ERR_INVALID, "add-level h0: nothing to group: no toplevel gred of the "
                              "subtree has more than 2 contributors",
           gen_edit_add_level(m, "h0", 0, &err));
    REFUSE(n8, CM_ERR_INVALID, "add-level h0: a fan-out of 1 groups nothing (give 2 or "
                               "more, or 0 to halve)",
           gen_edit_add_level(n8, "h0", 1, &err));
    REFUSE(n8, CM_ERR_INVALID, "add-level h0 8: nothing to group: no toplevel gred of the "
                               "subtree has more than 8 contributors",
           gen_edit_add_level(n8, "h0", 8, &err));
    REFUSE(n8, CM_ERR_INVALID, "remove-level h0: the subtree has one level: nothing to "
                               "remove",
           gen_edit_remove_level(n8, "h0", &err));
    REFUSE(n8, CM_ERR_NAME, "remove-level: no wrapper 'cr9' in tree sum",
           gen_edit_remove_level(n8, "cr9", &err));
    gen_map_destroy(m);
    gen_map_destroy(n8);
}

void t_gen_edit_refuse_move(void)
{
    gen_map_t *m = etst_load(L "nary-2x2.pathmap"), *a = etst_load(L "algo/rd-4x2.pathmap");
    gen_map_t *s = etst_load(P "split4w.pathmap");

    REFUSE(m, CM_ERR_INVALID, "move: 'p1' is a proxy, not a gred or core",
           gen_edit_move(m, "p1", "host0", &err));
    REFUSE(m, CM_ERR_NAME, "move: no host 'host7'", gen_edit_move(m, "h1", "host7", &err));
    REFUSE(m, CM_ERR_NAME, "move: no wrapper 'x' in tree sum",
           gen_edit_move(m, "x", "host0", &err));
    REFUSE(m, CM_ERR_INVALID, "move h1: it is on host1 already",
           gen_edit_move(m, "h1", "host1", &err));
    REFUSE(a, CM_ERR_INVALID, "move across: the algorithm node spans the hosts; it cannot "
                              "move",
           gen_edit_move(a, "across", "host0", &err));
    /* a move the runtime's parser rejects: its message, after the edit's */
    {
        char *b = etst_text(a), *t;
        cm_err_t err;

        cm_err_clear(&err);
        TST_EQ_STATUS(gen_edit_move(a, "h1", "host0", &err), CM_ERR_INVALID);
        TST_CONTAINS(err.msg, "move h1 host0: the result would not be a valid pathmap: host "
                              "'host0' enters algorithm node 'across' twice");
        t = etst_text(a);
        TST_EQ_STR(t, b);
        free(t);
        free(b);
    }
    REFUSE(a, CM_ERR_INVALID, "split: the tree's root is an algorithm node: there is no "
                              "cluster-root subtree",
           gen_edit_split(a, 2, 1, &err));
    REFUSE(a, CM_ERR_INVALID, "root: the tree's root is an algorithm node: there is no "
                              "cluster-root subtree",
           gen_edit_root(a, "host1", &err));
    REFUSE(m, CM_ERR_INVALID, "split: a span of 0 host subtrees moves nothing",
           gen_edit_split(m, 0, 1, &err));
    REFUSE(s, CM_ERR_INVALID, "split 2 last: nothing to move: no cluster-root gred of at "
                              "most 2 host subtrees is off its place",
           gen_edit_split(s, 2, 1, &err));
    REFUSE(m, CM_ERR_INVALID, "unsplit: every cluster-root gred is on the root's host host0 "
                              "already",
           gen_edit_unsplit(m, &err));
    REFUSE(m, CM_ERR_INVALID, "root host0: the root is on host0 already",
           gen_edit_root(m, "host0", &err));
    REFUSE(m, CM_ERR_NAME, "root: no host 'nowhere'", gen_edit_root(m, "nowhere", &err));
    gen_map_destroy(m);
    gen_map_destroy(a);
    gen_map_destroy(s);
}

void t_gen_edit_refuse_link(void)
{
    gen_map_t *m = etst_load(P "binary8w.pathmap"), *a = etst_load(L "algo/rd-4x2.pathmap");

    REFUSE(m, CM_ERR_INVALID, "add-link cr0: not a host subtree (its contributors are not "
                              "all on its host without a proxy)",
           gen_edit_add_link(m, "cr0", &err));
    REFUSE(m, CM_ERR_INVALID, "add-link h0: its parent 'cr1.0' is on its host host0: there "
                              "is no network link to add",
           gen_edit_add_link(m, "h0", &err));
    REFUSE(m, CM_ERR_INVALID, "add-link h1.l1.0: not the bottom gred of its host subtree "
                              "(its parent 'h1' is in it)",
           gen_edit_add_link(m, "h1.l1.0", &err));
    REFUSE(a, CM_ERR_INVALID, "add-link h1: its parent is the algorithm node: there is no "
                              "network link to add",
           gen_edit_add_link(a, "h1", &err));
    REFUSE(m, CM_ERR_INVALID, "remove-link h1: not a gred fed by links from one other host "
                              "(as add-link makes)",
           gen_edit_remove_link(m, "h1", &err));
    REFUSE(m, CM_ERR_INVALID, "add-link: 'p1' is a proxy, not a gred",
           gen_edit_add_link(m, "p1", &err));
    gen_map_destroy(m);
    gen_map_destroy(a);
}

void t_gen_edit_refuse_algo(void)
{
    gen_map_t *m = etst_load(L "nary-4x2.pathmap"), *g = etst_load(L "gateway-3x2.pathmap");

    /* the runtime parser's messages */
    REFUSE(m, CM_ERR_INVALID, "algo run=nosuch: unknown algorithm 'nosuch' (expected auto, native, "
                              "ring, ring-seg, rd, rabenseifner, slt, prr, nap, "
                              "binomial-reduce, chain-reduce, bintree-reduce, greedy-reduce, "
                              "clv-linear or clv)",
           gen_edit_algo(m, "run=nosuch", &err));
    REFUSE(m, CM_ERR_INVALID, "algo run=nap ppn=3: ppn=3 does not divide the 4 hosts of "
                              "algorithm node 'across' (nap needs the same number of hosts "
                              "on every node)",
           gen_edit_algo(m, "run=nap ppn=3", &err));
    REFUSE(m, CM_ERR_INVALID, "algo ring segsize=4: algorithm 'ring' takes no parameter "
                              "'segsize' (it takes none)",
           gen_edit_algo(m, "ring segsize=4", &err));
    /* the gateway would hold nothing */
    REFUSE(g, CM_ERR_INVALID, "algo rd: host 'gw' has nothing on it (no wrapper and no "
                              "thread in any tree)",
           gen_edit_algo(g, "rd", &err));
    gen_map_destroy(m);
    gen_map_destroy(g);
}

static const char host_x[] =
    "host x\ntree sum type=int32 op=sum\ncore root host=x\ngred h0 host=x parent=root\n"
    "threads 0-1 host=x enter=h0\n";
static const char dbl[] =
    "host y\ntree sum type=double op=sum\ncore root host=y\ngred hy host=y parent=root\n"
    "threads 0-1 host=y enter=hy\n";

void t_gen_edit_refuse_merge(void)
{
    gen_map_t *a = etst_load(L "gred-1x2.pathmap"), *b = etst_load(L "gred-1x2.pathmap");
    gen_map_t *al = etst_load(L "algo/rd-2x1.pathmap"), *x = etst_parse(host_x);
    gen_map_t *f = etst_parse(dbl);
    gen_map_t *m = (gen_map_t *)1;
    cm_err_t err;

    cm_err_clear(&err);
    TST_EQ_STATUS(gen_edit_merge(a, b, "", "a", "b", 0, &m, &err), CM_ERR_INVALID);
    TST_EQ_STR(err.msg, "merge: a gateway host name is needed");
    TST_NULL(m);
    TST_EQ_STATUS(gen_edit_merge(a, b, NULL, "a", "b", 0, &m, &err), CM_ERR_INVALID);
    TST_EQ_STATUS(gen_edit_merge(a, b, "gw", NULL, NULL, 0, &m, &err), CM_ERR_NAME);
    TST_EQ_STR(err.msg, "merge: the trees have hosts of the same name; give prefixes");
    TST_EQ_STATUS(gen_edit_merge(a, b, "a0", "a", "b", 0, &m, &err), CM_ERR_NAME);
    TST_EQ_STR(err.msg, "merge: the gateway 'a0' is a host of a tree");
    TST_EQ_STATUS(gen_edit_merge(a, al, "gw", "a", "b", 0, &m, &err), CM_ERR_INVALID);
    TST_EQ_STR(err.msg, "merge: both trees need a core at their root (not an algorithm "
                        "node)");
    /* the same wrapper name on hosts of different names, no prefixes */
    TST_EQ_STATUS(gen_edit_merge(x, a, "gw", NULL, NULL, 0, &m, &err), CM_ERR_NAME);
    TST_EQ_STR(err.msg, "merge: the name 'h0' is in both trees; give prefixes");
    TST_NULL(m);
    /* different types */
    TST_EQ_STATUS(gen_edit_merge(a, f, "gw", "a", "b", 0, &m, &err), CM_ERR_INVALID);
    TST_EQ_STR(err.msg, "merge: the trees reduce differently ('type=int32 op=sum' and "
                        "'type=double op=sum')");
    /* clashing thread ids: B's are numbered after A's */
    TST_EQ_STATUS(gen_edit_merge(a, b, "gw", "a", "b", 0, &m, &err), CM_OK);
    TST_EQ_UINT(gen_map_nthreads(m), 4);
    TST_EQ_UINT(gen_node_min_thread(m, gen_node_find(m, "hb0")), 2);
    gen_map_destroy(m);
    gen_map_destroy(a);
    gen_map_destroy(b);
    gen_map_destroy(al);
    gen_map_destroy(f);
    gen_map_destroy(x);
}
