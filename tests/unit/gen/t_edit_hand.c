/*
 * t_edit_hand.c - the operators of gen_edit.h on small trees, each result
 * compared with a tree written here by hand from the operator's definition
 * (gen_edit.h, pathmaps/README.md's names): grouping with a fan-out and a
 * lone contributor left unwrapped, level numbering left to right with a
 * proxy renamed after its gred, moves of a gred with threads and of the
 * core, split to the first host, root, merge through a gateway (with and
 * without prefixes, root on the gateway), algo over hosts of several tops.
 */
#include "tests/test_list.h"
#include "tests/unit/gen/edit_tst.h"

#define EOK(call) etst_ok((call), &err, #call)
#define L "pathmaps/local/"

static const char seven[] =
    "host host0\n"
    "tree sum type=int32 op=sum\n"
    "core root host=host0\n"
    "gred h0 host=host0 parent=root\n"
    "threads 0-6 host=host0 enter=h0\n";

void t_gen_edit_add_level_fanout(void)
{
    gen_map_t *m = etst_parse(seven);
    cm_err_t err;

    /* groups of 3 in thread order: 0-2, 3-5; thread 6 alone stays in h0 */
    EOK(gen_edit_add_level(m, "h0", 3, &err));
    TST_EQ_STR(m->header[m->nheader - 1], "pathgen edit: add-level h0 3");
    etst_same_text(m,
        "host host0\n"
        "tree sum type=int32 op=sum\n"
        "core root host=host0\n"
        "gred h0 host=host0 parent=root\n"
        "gred h0.l1.0 host=host0 parent=h0\n"
        "gred h0.l1.1 host=host0 parent=h0\n"
        "threads 0-2 host=host0 enter=h0.l1.0\n"
        "threads 3-5 host=host0 enter=h0.l1.1\n"
        "threads 6 host=host0 enter=h0\n");

    /* halves, the first the larger: 4 + 3; again: 2 + 2 and 2 + (6 alone) */
    m = etst_parse(seven);
    EOK(gen_edit_add_level(m, "h0", 0, &err));
    TST_EQ_STR(m->header[m->nheader - 1], "pathgen edit: add-level h0");
    EOK(gen_edit_add_level(m, "h0", 0, &err));
    etst_same_text(m,
        "host host0\n"
        "tree sum type=int32 op=sum\n"
        "core root host=host0\n"
        "gred h0 host=host0 parent=root\n"
        "gred h0.l1.0 host=host0 parent=h0\n"
        "gred h0.l1.1 host=host0 parent=h0\n"
        "gred h0.l2.0 host=host0 parent=h0.l1.0\n"
        "gred h0.l2.1 host=host0 parent=h0.l1.0\n"
        "gred h0.l2.2 host=host0 parent=h0.l1.1\n"
        "threads 0-1 host=host0 enter=h0.l2.0\n"
        "threads 2-3 host=host0 enter=h0.l2.1\n"
        "threads 4-5 host=host0 enter=h0.l2.2\n"
        "threads 6 host=host0 enter=h0.l1.1\n");
}

/* Toplevel greds at two depths: cr1.0 (3 contributors) gets level 2 left
 * of the existing cr2.0 (under cr1.1, on host3), which becomes cr2.1 and
 * its proxy p3.cr2.0 p3.cr2.1. */
static const char uneven[] =
    "host host0\nhost host1\nhost host2\nhost host3\nhost host4\n"
    "tree sum type=int32 op=sum\n"
    "core  root     host=host0\n"
    "gred  cr0      host=host0 parent=root\n"
    "gred  cr1.0    host=host0 parent=cr0\n"
    "proxy p1       host=host1 parent=cr1.0\n"
    "proxy p2       host=host2 parent=cr1.0\n"
    "proxy p4.cr1.1 host=host4 parent=cr0\n"
    "gred  cr1.1    host=host4 parent=p4.cr1.1\n"
    "proxy p3.cr2.0 host=host3 parent=cr1.1\n"
    "gred  cr2.0    host=host3 parent=p3.cr2.0\n"
    "proxy p4       host=host4 parent=cr2.0\n"
    "threads 0 host=host0 enter=cr1.0\n"
    "threads 1 host=host1 enter=p1\n"
    "threads 2 host=host2 enter=p2\n"
    "threads 3 host=host3 enter=cr2.0\n"
    "threads 4 host=host4 enter=p4\n";

void t_gen_edit_level_numbering(void)
{
    gen_map_t *m = etst_parse(uneven);
    char *before, *after;
    cm_err_t err;

    EOK(gen_edit_add_level(m, "cr0", 0, &err));
    before = etst_text(m);
    /* cr2.1 is on host3, the gred below it on host4: refused, unchanged */
    cm_err_clear(&err);
    TST_EQ_STATUS(gen_edit_remove_level(m, "cr0", &err), CM_ERR_INVALID);
    TST_EQ_STR(err.msg, "remove-level cr0: 'cr2.1' is on host3 and the gred below it, "
                        "'cr1.1', on host4: move it back first");
    after = etst_text(m);
    TST_EQ_STR(after, before);
    free(before);
    free(after);
    etst_same_text(m,
        "host host0\nhost host1\nhost host2\nhost host3\nhost host4\n"
        "tree sum type=int32 op=sum\n"
        "core  root     host=host0\n"
        "gred  cr0      host=host0 parent=root\n"
        "gred  cr1.0    host=host0 parent=cr0\n"
        "gred  cr2.0    host=host0 parent=cr1.0\n"
        "proxy p1       host=host1 parent=cr2.0\n"
        "proxy p2       host=host2 parent=cr1.0\n"
        "proxy p4.cr1.1 host=host4 parent=cr0\n"
        "gred  cr1.1    host=host4 parent=p4.cr1.1\n"
        "proxy p3.cr2.1 host=host3 parent=cr1.1\n"
        "gred  cr2.1    host=host3 parent=p3.cr2.1\n"
        "proxy p4       host=host4 parent=cr2.1\n"
        "threads 0 host=host0 enter=cr2.0\n"
        "threads 1 host=host1 enter=p1\n"
        "threads 2 host=host2 enter=p2\n"
        "threads 3 host=host3 enter=cr2.1\n"
        "threads 4 host=host4 enter=p4\n");
}

/* cr0 over the root host's two threads and a proxy: the new level's gred
 * over threads 0-1 is host part by placement, a cluster-root level by its
 * name, and remove-level takes it away again. */
void t_gen_edit_level_mixed_part(void)
{
    static const char flat[] =
        "host host0\nhost host1\n"
        "tree sum type=int32 op=sum\n"
        "core  root host=host0\n"
        "gred  cr0  host=host0 parent=root\n"
        "proxy p1   host=host1 parent=cr0\n"
        "threads 0-1 host=host0 enter=cr0\n"
        "threads 2 host=host1 enter=p1\n";
    gen_map_t *m = etst_parse(flat);
    cm_err_t err;

    EOK(gen_edit_add_level(m, "cr0", 0, &err));
    TST_TRUE(gen_node_is_host_part(m, gen_node_find(m, "cr1.0")));
    EOK(gen_edit_remove_level(m, "cr0", &err));
    etst_same_text(m, flat);
    m = etst_parse(flat);
    EOK(gen_edit_add_level(m, "cr0", 0, &err));
    etst_same_text(m,
        "host host0\nhost host1\n"
        "tree sum type=int32 op=sum\n"
        "core  root  host=host0\n"
        "gred  cr0   host=host0 parent=root\n"
        "gred  cr1.0 host=host0 parent=cr0\n"
        "proxy p1    host=host1 parent=cr0\n"
        "threads 0-1 host=host0 enter=cr1.0\n"
        "threads 2 host=host1 enter=p1\n");
}

void t_gen_edit_move_hand(void)
{
    gen_map_t *m = etst_load(L "nary-2x2.pathmap");
    cm_err_t err;

    /* h1 on host0: host1's threads reach it through a proxy each */
    EOK(gen_edit_move(m, "h1", "host0", &err));
    TST_EQ_STR(m->header[m->nheader - 1], "pathgen edit: move h1 host0");
    etst_same_text(m,
        "host host0\nhost host1\n"
        "tree sum type=int32 op=sum\n"
        "core  root  host=host0\n"
        "gred  cr0   host=host0 parent=root\n"
        "gred  h0    host=host0 parent=cr0\n"
        "gred  h1    host=host0 parent=cr0\n"
        "proxy p1    host=host1 parent=h1\n"
        "proxy p1.t3 host=host1 parent=h1\n"
        "threads 0-1 host=host0 enter=h0\n"
        "threads 2 host=host1 enter=p1\n"
        "threads 3 host=host1 enter=p1.t3\n");

    /* the core alone to host1 ("1" is host1's label) */
    m = etst_load(L "nary-2x2.pathmap");
    EOK(gen_edit_move(m, "root", "1", &err));
    etst_same_text(m,
        "host host0\nhost host1\n"
        "tree sum type=int32 op=sum\n"
        "core  root   host=host1\n"
        "proxy p0.cr0 host=host0 parent=root\n"
        "gred  cr0    host=host0 parent=p0.cr0\n"
        "gred  h0     host=host0 parent=cr0\n"
        "proxy p1     host=host1 parent=cr0\n"
        "gred  h1     host=host1 parent=p1\n"
        "threads 0-1 host=host0 enter=h0\n"
        "threads 2-3 host=host1 enter=h1\n");
}

void t_gen_edit_split_root_hand(void)
{
    gen_map_t *m = etst_load(L "binary-4x2.pathmap");
    cm_err_t err;

    /* cr1.1 (hosts 2, 3) to its first host: h2 enters it directly */
    EOK(gen_edit_split(m, 2, 0, &err));
    TST_EQ_STR(m->header[m->nheader - 1], "pathgen edit: split 2 first");
    etst_same_text(m,
        "host host0\nhost host1\nhost host2\nhost host3\n"
        "tree sum type=int32 op=sum\n"
        "core  root     host=host0\n"
        "gred  cr0      host=host0 parent=root\n"
        "gred  cr1.0    host=host0 parent=cr0\n"
        "gred  h0       host=host0 parent=cr1.0\n"
        "proxy p1       host=host1 parent=cr1.0\n"
        "gred  h1       host=host1 parent=p1\n"
        "proxy p2.cr1.1 host=host2 parent=cr0\n"
        "gred  cr1.1    host=host2 parent=p2.cr1.1\n"
        "gred  h2       host=host2 parent=cr1.1\n"
        "proxy p3       host=host3 parent=cr1.1\n"
        "gred  h3       host=host3 parent=p3\n"
        "threads 0-1 host=host0 enter=h0\n"
        "threads 2-3 host=host1 enter=h1\n"
        "threads 4-5 host=host2 enter=h2\n"
        "threads 6-7 host=host3 enter=h3\n");

    /* root host1: the core and cr0 move; h0 now needs p0, h1 none */
    m = etst_load(L "nary-2x2.pathmap");
    EOK(gen_edit_root(m, "host1", &err));
    TST_EQ_STR(m->header[m->nheader - 1], "pathgen edit: root host1");
    etst_same_text(m,
        "host host0\nhost host1\n"
        "tree sum type=int32 op=sum\n"
        "core  root host=host1\n"
        "gred  cr0  host=host1 parent=root\n"
        "proxy p0   host=host0 parent=cr0\n"
        "gred  h0   host=host0 parent=p0\n"
        "gred  h1   host=host1 parent=cr0\n"
        "threads 0-1 host=host0 enter=h0\n"
        "threads 2-3 host=host1 enter=h1\n");
}

static const char one_a[] =
    "host a\ntree sum type=int32 op=sum\ncore root host=a\ngred ha host=a parent=root\n"
    "threads 0-1 host=a enter=ha\n";
static const char one_b[] =
    "host b\ntree sum type=int32 op=sum\ncore root host=b\ngred hb host=b parent=root\n"
    "threads 0-1 host=b enter=hb\n";

void t_gen_edit_merge_hand(void)
{
    gen_map_t *a = etst_parse(one_a), *b = etst_parse(one_b), *m;
    cm_err_t err;

    /* no prefixes, no clash: local/gateway-3x2 with its names; B's
     * threads 0-1 become 2-3 */
    EOK(gen_edit_merge(a, b, "gw", NULL, NULL, 0, &m, &err));
    etst_same(m, L "gateway-3x2.pathmap");

    /* root on the gateway: both clusters reach mc through one proxy */
    EOK(gen_edit_merge(a, b, "gw", NULL, NULL, 1, &m, &err));
    etst_same_text(m,
        "host a\nhost gw\nhost b\n"
        "tree sum type=int32 op=sum\n"
        "core  root host=gw\n"
        "gred  mc   host=gw parent=root\n"
        "proxy pa   host=a  parent=mc\n"
        "gred  ha   host=a  parent=pa\n"
        "proxy pb   host=b  parent=mc\n"
        "gred  hb   host=b  parent=pb\n"
        "threads 0-1 host=a enter=ha\n"
        "threads 2-3 host=b enter=hb\n");
    gen_map_destroy(a);
    gen_map_destroy(b);

    /* two gred-1x2 (both host0, h0): hosts and names take the prefixes */
    a = etst_load(L "gred-1x2.pathmap");
    b = etst_load(L "gred-1x2.pathmap");
    EOK(gen_edit_merge(a, b, "gw", "a", "b", 0, &m, &err));
    etst_same_text(m,
        "host a0\nhost gw\nhost b0\n"
        "tree sum type=int32 op=sum\n"
        "core  root host=a0\n"
        "gred  mc   host=a0 parent=root\n"
        "gred  ha0  host=a0 parent=mc\n"
        "proxy pgw  host=gw parent=mc\n"
        "proxy pb0  host=b0 parent=pgw\n"
        "gred  hb0  host=b0 parent=pb0\n"
        "threads 0-1 host=a0 enter=ha0\n"
        "threads 2-3 host=b0 enter=hb0\n");
    /* the same as local/gateway-3x2 as trees (its hosts are a, gw, b) */
    {
        gen_map_t *g = etst_load(L "gateway-3x2.pathmap");
        char why[300];

        EOK(gen_edit_merge(a, b, "gw", "a", "b", 0, &m, &err));
        if (!gen_map_equal(m, g, 0, why, sizeof(why)))
            TST_FAIL("gred-1x2 + gred-1x2 is not gateway-3x2 as trees: %s", why);
        TST_FALSE(gen_map_equal(m, g, 1, why, sizeof(why)));
        gen_map_destroy(g);
        gen_map_destroy(m);
    }
    gen_map_destroy(a);
    gen_map_destroy(b);
}

void t_gen_edit_algo_hand(void)
{
    gen_map_t *m = etst_load(L "binary-extralinks-2x4.pathmap");
    cm_err_t err;

    /* h1 (on host0, fed by links) goes with the cross-host part: host1 has
     * two tops, h1.l1.0 and h1.l1.1, and gets a gred h1 over them */
    EOK(gen_edit_algo(m, "run=ring", &err));
    TST_EQ_STR(m->header[m->nheader - 1], "pathgen edit: algo run=ring");
    etst_same_text(m,
        "host host0\nhost host1\n"
        "tree sum type=int32 op=sum\n"
        "algo across run=ring\n"
        "gred h0 host=host0 parent=across\n"
        "gred h0.l1.0 host=host0 parent=h0\n"
        "gred h0.l1.1 host=host0 parent=h0\n"
        "gred h1 host=host1 parent=across\n"
        "gred h1.l1.0 host=host1 parent=h1\n"
        "gred h1.l1.1 host=host1 parent=h1\n"
        "threads 0-1 host=host0 enter=h0.l1.0\n"
        "threads 2-3 host=host0 enter=h0.l1.1\n"
        "threads 4-5 host=host1 enter=h1.l1.0\n"
        "threads 6-7 host=host1 enter=h1.l1.1\n");

    /* on a tree with an algorithm node: its parameters change */
    m = etst_load(L "algo/rd-4x2.pathmap");
    EOK(gen_edit_algo(m, "prr round=1000", &err));
    TST_EQ_STR(m->nodes[m->root].params, "run=prr round=1000");
    gen_map_destroy(m);
}

/* Comments of the wrappers an edit leaves alone stay (the gateway's
 * proxies, the core: comments written by hand in the test's copy of
 * gateway-3x2); the header grows by the one history line. */
void t_gen_edit_comments_kept(void)
{
    gen_map_t *m = etst_load("tests/unit/gen/data/gateway-comments.pathmap");
    uint32_t nh = m->nheader, n, c, hop;
    cm_err_t err;

    EOK(gen_edit_move(m, "ha", "gw", &err));
    TST_EQ_UINT(m->nheader, nh + 1);
    TST_EQ_STR(m->header[0], "gateway-3x2 - two one-host clusters joined through a gateway host");
    TST_TRUE(gen_map_find_proxy(m, "pgw", &n, &c, &hop));
    TST_EQ_STR(m->nodes[n].contribs[c].route[hop].comment,
               "gw -> a: the gateway relays b's sum to a");
    TST_EQ_STR(m->nodes[m->root].comment, "the core, on cluster a's root host");
    TST_EQ_STR(m->nodes[gen_node_find(m, "mc")].comment,
               "multi-cluster root: one contribution per cluster");
    gen_map_destroy(m);
}
