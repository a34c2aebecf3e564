/*
 * t_edit_paper.c - the reconfiguration sequences of the PATHS/EventSpace
 * paper (sections 6.1-6.4, 7.2) applied with gen_edit.h to the sample
 * pathmaps, each result compared, names included, with the sample of
 * that configuration.  The samples are pathgen's (pathmaps/MANIFEST), but
 * their trees are checked against an independent generator,
 * tests/oracles/gen-pathmaps.py, which builds every file from its shape,
 * not by editing (tests/pathgen/regen.sh).
 * Comments and header lines are left out of the comparison.
 */
#include "tests/test_list.h"
#include "tests/unit/gen/edit_tst.h"

#define P "pathmaps/paper/"
#define L "pathmaps/local/"
#define EOK(call) etst_ok((call), &err, #call)

static void add_level_hosts(gen_map_t *m, uint32_t nhosts)
{
    char name[16];
    cm_err_t err;

    for (uint32_t h = 0; h < nhosts; h++) {
        snprintf(name, sizeof(name), "h%u", h);
        EOK(gen_edit_add_level(m, name, 0, &err));
    }
}

/* Section 6.1, Figure 9: nary8W -> quad8W -> binaryquad8W -> binary8W. */
void t_gen_edit_paper_8w(void)
{
    gen_map_t *m = etst_load(P "nary8w.pathmap");
    cm_err_t err;

    add_level_hosts(m, 4);
    etst_same(m, P "quad8w.pathmap");
    m = etst_load(P "quad8w.pathmap");
    add_level_hosts(m, 4);
    etst_same(m, P "binaryquad8w.pathmap");
    m = etst_load(P "binaryquad8w.pathmap");
    EOK(gen_edit_add_level(m, "cr0", 0, &err));
    etst_same(m, P "binary8w.pathmap");
    /* the whole way in one model */
    m = etst_load(P "nary8w.pathmap");
    add_level_hosts(m, 4);
    add_level_hosts(m, 4);
    EOK(gen_edit_add_level(m, "cr0", 0, &err));
    etst_same(m, P "binary8w.pathmap");
}

/* Section 6.2: nary4W -> binary4W (two host levels... one, two cluster-root
 * levels); split4W by split and by the three moves; split4W-2. */
void t_gen_edit_paper_4w(void)
{
    gen_map_t *m = etst_load(P "nary4w.pathmap");
    cm_err_t err;

    add_level_hosts(m, 8);
    EOK(gen_edit_add_level(m, "cr0", 0, &err));
    EOK(gen_edit_add_level(m, "cr0", 0, &err));
    etst_same(m, P "binary4w.pathmap");

    m = etst_load(P "binary4w.pathmap");
    EOK(gen_edit_split(m, 2, 1, &err));
    etst_same(m, P "split4w.pathmap");

    m = etst_load(P "binary4w.pathmap");
    EOK(gen_edit_move(m, "cr2.1", "host3", &err));
    EOK(gen_edit_move(m, "cr2.2", "host5", &err));
    EOK(gen_edit_move(m, "cr2.3", "host7", &err));
    etst_same(m, P "split4w.pathmap");

    m = etst_load(P "split4w.pathmap");
    EOK(gen_edit_remove_level(m, "h1", &err));
    EOK(gen_edit_remove_level(m, "h2", &err));
    EOK(gen_edit_remove_level(m, "h4", &err));
    EOK(gen_edit_remove_level(m, "h6", &err));
    etst_same(m, P "split4w-2.pathmap");
}

/* Figure 11: extra links into the cluster-root host. */
void t_gen_edit_paper_links(void)
{
    gen_map_t *m = etst_load(P "binary8w.pathmap");
    char name[16];
    cm_err_t err;

    EOK(gen_edit_add_link(m, "h1", &err));
    EOK(gen_edit_add_link(m, "h2", &err));
    EOK(gen_edit_add_link(m, "h3", &err));
    etst_same(m, P "binary8w-extralinks.pathmap");

    m = etst_load(P "nary4w.pathmap");
    for (int h = 1; h < 8; h++) {
        snprintf(name, sizeof(name), "h%d", h);
        EOK(gen_edit_add_link(m, name, &err));
    }
    etst_same(m, P "nary4w-extralinks.pathmap");
}

/* Section 6.3 (NOW) and 6.4 (Blade). */
void t_gen_edit_paper_now_blade(void)
{
    gen_map_t *m = etst_load(P "quadnow.pathmap");
    cm_err_t err;

    EOK(gen_edit_split(m, 4, 0, &err));
    etst_same(m, P "splitnow.pathmap");

    /* quad of 30 hosts rebuilt from the flat cluster root: 16 + 14, then 4s */
    m = etst_load(P "quadnow.pathmap");
    EOK(gen_edit_remove_level(m, "cr0", &err));
    EOK(gen_edit_remove_level(m, "cr0", &err));
    TST_EQ_UINT(m->nodes[gen_node_find(m, "cr0")].ncontribs, 30);
    EOK(gen_edit_add_level(m, "cr0", 16, &err));
    EOK(gen_edit_add_level(m, "cr0", 4, &err));
    etst_same(m, P "quadnow.pathmap");

    /* binaryNOW's split: the groups of four hosts move to their first host */
    m = etst_load(P "binarynow.pathmap");
    EOK(gen_edit_unsplit(m, &err));
    EOK(gen_edit_split(m, 4, 0, &err));
    etst_same(m, P "binarynow.pathmap");

    m = etst_load(P "flatblade.pathmap");
    EOK(gen_edit_add_level(m, "cr0", 0, &err));
    EOK(gen_edit_add_level(m, "cr0", 0, &err));
    EOK(gen_edit_add_level(m, "cr0", 0, &err));
    etst_same(m, P "binaryblade.pathmap");
    m = etst_load(P "binaryblade.pathmap");
    EOK(gen_edit_remove_level(m, "cr0", &err));
    EOK(gen_edit_remove_level(m, "cr0", &err));
    EOK(gen_edit_remove_level(m, "cr0", &err));
    etst_same(m, P "flatblade.pathmap");
}

/* Section 7.2: split4W and binary8W through the gateway gw. */
void t_gen_edit_paper_multicluster(void)
{
    gen_map_t *a = etst_load(P "split4w.pathmap"), *b = etst_load(P "binary8w.pathmap"), *m;
    char *before_a = etst_text(a), *after_a;
    cm_err_t err;

    EOK(gen_edit_merge(a, b, "gw", "a", "b", 0, &m, &err));
    after_a = etst_text(a);
    TST_EQ_STR(after_a, before_a);            /* A and B are not changed */
    TST_EQ_STR(m->header[m->nheader - 1],
               "pathgen edit: merge A (prefix a) and B (prefix b) through gateway gw");
    TST_EQ_UINT(gen_map_nthreads(m), 64);
    TST_EQ_UINT(gen_map_depth(m), 10);        /* the sample's comment says 10 */
    etst_same(m, P "multicluster-split4w-binary8w.pathmap");
    free(before_a);
    free(after_a);
    gen_map_destroy(a);
    gen_map_destroy(b);
}

/* The same operators on the local/ files where they apply. */
void t_gen_edit_local(void)
{
    gen_map_t *m = etst_load(L "quad-2x4.pathmap");
    cm_err_t err;

    add_level_hosts(m, 2);
    etst_same(m, L "binaryquad-2x4.pathmap");
    m = etst_load(L "nary-4x2.pathmap");
    EOK(gen_edit_add_level(m, "cr0", 0, &err));
    etst_same(m, L "binary-4x2.pathmap");
    m = etst_load(L "binary-4x2.pathmap");
    EOK(gen_edit_split(m, 2, 1, &err));
    etst_same(m, L "split-4x2.pathmap");
    m = etst_load(L "binary-4x2.pathmap");
    EOK(gen_edit_move(m, "cr1.1", "host3", &err));
    etst_same(m, L "split2-4x2.pathmap");
    m = etst_load(L "binary-2x4.pathmap");
    EOK(gen_edit_add_link(m, "h1", &err));
    etst_same(m, L "binary-extralinks-2x4.pathmap");
    m = etst_load(L "nary-2x2.pathmap");
    EOK(gen_edit_add_link(m, "h1", &err));
    etst_same(m, L "nary-extralinks-2x2.pathmap");
    m = etst_load(L "flat-4x1.pathmap");
    EOK(gen_edit_add_level(m, "cr0", 0, &err));
    etst_same(m, L "binary-4x1.pathmap");
    m = etst_load(L "binary-4x1.pathmap");
    EOK(gen_edit_remove_level(m, "cr0", &err));
    etst_same(m, L "flat-4x1.pathmap");
}

/* algo: the algorithm-node samples are the same host subtrees with
 * `across` in place of the cross-host part. */
void t_gen_edit_algo_samples(void)
{
    static const struct { const char *from, *params, *want; } cases[] = {
        { L "nary-4x2.pathmap", "run=rd", L "algo/rd-4x2.pathmap" },
        { L "flat-4x1.pathmap", "ring", L "algo/ring-4x1.pathmap" },
        { L "binary-4x2.pathmap", "run=prr round=2000 arrival=history",
          L "algo/prr-4x2.pathmap" },
        { L "split-4x2.pathmap", "run=nap ppn=2", L "algo/nap-4x2.pathmap" },
        { L "nary-2x2.pathmap", "run=rd", "pathmaps/algo-demo.pathmap" },
        { P "binary8w.pathmap", "run=rd", P "algo/binary8w-rd.pathmap" },
        { P "binary8w-extralinks.pathmap", "run=rd", P "algo/binary8w-rd.pathmap" },
    };
    cm_err_t err;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        gen_map_t *m = etst_load(cases[i].from);

        EOK(gen_edit_algo(m, cases[i].params, &err));
        etst_same(m, cases[i].want);
    }
}
