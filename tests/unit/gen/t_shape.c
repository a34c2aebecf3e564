/*
 * t_shape.c - unit tests of pathgen's shapes (gen/gen_shape.c): the
 * groupings of 8, 10 and 30 contributors, drawn by hand from the
 * definitions in gen/api/gen_build.h and pathmaps/README.md (quad of 30:
 * 8 greds, then 2, then 1; binary of 10: 5 + 5, 5 = 3 + 2, 3 = 2 + 1), the
 * breadth-first numbering that names the greds, and the shape words.
 */
#include <stdio.h>
#include <string.h>
#include "tests/tst.h"
#include "tests/test_list.h"
#include "gen/gen_shape_int.h"

/* The grouping of n contributors by the shape word `word`, as brackets. */
static void expect_plan(const char *word, uint32_t n, const char *want)
{
    gen_shape_t s;
    gen_plan_t plan;
    cm_err_t err;
    char buf[1024];

    cm_err_clear(&err);
    TST_EQ_STATUS(gen_shape_parse(word, "--shape", &s, &err), CM_OK);
    TST_EQ_STATUS(gen_shape_plan(&s, n, &plan, &err), CM_OK);
    gen_plan_format(&plan, buf, sizeof(buf));
    if (strcmp(buf, want) != 0)
        TST_FAIL("%s of %u: got %s, want %s", word, (unsigned)n, buf, want);
    gen_plan_cleanup(&plan);
}

void t_gen_shape_eight(void)
{
    expect_plan("nary", 8, "[0 1 2 3 4 5 6 7]");
    expect_plan("flat", 8, "[0 1 2 3 4 5 6 7]");
    expect_plan("quad", 8, "[[0 1 2 3] [4 5 6 7]]");
    expect_plan("binary", 8, "[[[0 1] [2 3]] [[4 5] [6 7]]]");
    expect_plan("2", 8, "[[[0 1] [2 3]] [[4 5] [6 7]]]");
    expect_plan("4,2", 8, "[[0 1 2 3] [4 5 6 7]]");
    expect_plan("2,4", 8, "[[0 1] [2 3] [4 5] [6 7]]");
    expect_plan("3", 8, "[[0 1 2] [3 4 5] [6 7]]");
}

void t_gen_shape_ten(void)
{
    expect_plan("nary", 10, "[0 1 2 3 4 5 6 7 8 9]");
    /* 4 + 4 + 2, then one gred of the three */
    expect_plan("quad", 10, "[[0 1 2 3] [4 5 6 7] [8 9]]");
    /* 10 = 5 + 5, 5 = 3 + 2, 3 = 2 + 1 */
    expect_plan("binary", 10, "[[[[0 1] 2] [3 4]] [[[5 6] 7] [8 9]]]");
    /* pairs, then pairs of pairs with [8 9] alone (not wrapped), then 2 */
    expect_plan("2", 10, "[[[[0 1] [2 3]] [[4 5] [6 7]]] [8 9]]");
}

void t_gen_shape_thirty(void)
{
    /* quad: 7 greds of 4 and [28 29], then 4 + 4, then one of 2 */
    expect_plan("quad", 30,
                "[[[0 1 2 3] [4 5 6 7] [8 9 10 11] [12 13 14 15]] "
                "[[16 17 18 19] [20 21 22 23] [24 25 26 27] [28 29]]]");
    /* binary: 15 + 15; 15 = 8 + 7; 7 = 4 + 3; 3 = 2 + 1 */
    expect_plan("binary", 30,
                "[[[[[0 1] [2 3]] [[4 5] [6 7]]] [[[8 9] [10 11]] [[12 13] 14]]] "
                "[[[[15 16] [17 18]] [[19 20] [21 22]]] [[[23 24] [25 26]] [[27 28] 29]]]]");
    /* pairs bottom up (binarynow): 15 pairs, 7 groups of 4 + the pair 28-29,
     * then 4, 2, 1 */
    expect_plan("2", 30,
                "[[[[[0 1] [2 3]] [[4 5] [6 7]]] [[[8 9] [10 11]] [[12 13] [14 15]]]] "
                "[[[[16 17] [18 19]] [[20 21] [22 23]]] [[[24 25] [26 27]] [28 29]]]]");
}

void t_gen_shape_small(void)
{
    expect_plan("nary", 1, "0");
    expect_plan("quad", 1, "0");
    expect_plan("binary", 1, "0");
    expect_plan("binary", 2, "[0 1]");
    expect_plan("binary", 3, "[[0 1] 2]");
    expect_plan("quad", 4, "[0 1 2 3]");
    expect_plan("quad", 5, "[[0 1 2 3] 4]");
}

/* Breadth-first names: binary of 10 gives cr0; cr1.0, cr1.1; cr2.0-cr2.3
 * (cr1.0's two, then cr1.1's); cr3.0 = [0 1], cr3.1 = [5 6]
 * (pathmaps/paper/binaryblade). */
void t_gen_shape_numbering(void)
{
    static const uint32_t want_level[] = { 0, 1, 1, 2, 2, 2, 2, 3, 3 };
    static const uint32_t want_index[] = { 0, 0, 1, 0, 1, 2, 3, 0, 1 };
    static const uint32_t want_parent[] = { GEN_NONE, 0, 0, 1, 1, 2, 2, 3, 5 };
    gen_shape_t s;
    gen_plan_t plan;
    cm_err_t err;

    TST_EQ_STATUS(gen_shape_parse("binary", "x", &s, &err), CM_OK);
    TST_EQ_STATUS(gen_shape_plan(&s, 10, &plan, &err), CM_OK);
    TST_EQ_UINT(plan.ngreds, 9);
    for (uint32_t i = 0; i < plan.ngreds; i++) {
        TST_EQ_UINT(plan.greds[i].level, want_level[i]);
        TST_EQ_UINT(plan.greds[i].index, want_index[i]);
        TST_EQ_UINT(plan.greds[i].parent, want_parent[i]);
    }
    /* cr3.0 holds contributors 0 and 1; cr3.1 holds 5 and 6 */
    TST_EQ_UINT(plan.greds[7].members[0].id, 0);
    TST_EQ_UINT(plan.greds[8].members[0].id, 5);
    TST_EQ_UINT(plan.greds[8].members[1].id, 6);
    gen_plan_cleanup(&plan);
    TST_EQ_STATUS(gen_shape_plan(&s, 0, &plan, &err), CM_ERR_INVALID);
}

void t_gen_shape_words(void)
{
    static const char *bad[] = { "", "Quad", "binary-quad", "1", "4,1", "4,", ",4", "4,,2",
                                 "4x", "1000000", "2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2" };
    gen_shape_t s;
    cm_err_t err;
    char buf[64];

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cm_err_clear(&err);
        if (gen_shape_parse(bad[i], "--shape", &s, &err) != CM_ERR_INVALID)
            TST_FAIL("shape '%s' accepted", bad[i]);
        TST_CONTAINS(err.msg, "--shape: ");
    }
    TST_EQ_STATUS(gen_shape_parse("nosuch", "--root-shape", &s, &err), CM_ERR_INVALID);
    TST_EQ_STR(err.msg, "--root-shape: unknown shape 'nosuch' (expected nary, flat, quad, "
                        "binary or a fan-out list such as 4,2)");
    TST_EQ_STATUS(gen_shape_parse("4,2,3", "x", &s, &err), CM_OK);
    TST_EQ_INT(s.kind, GEN_SHAPE_FANOUT);
    TST_EQ_UINT(s.nfanout, 3);
    gen_shape_format(&s, buf, sizeof(buf));
    TST_EQ_STR(buf, "4,2,3");
    TST_EQ_STATUS(gen_shape_parse("flat", "x", &s, &err), CM_OK);
    gen_shape_format(&s, buf, sizeof(buf));
    TST_EQ_STR(buf, "nary");
    TST_EQ_STATUS(gen_shape_parse("quad", "x", &s, &err), CM_OK);
    gen_shape_format(&s, buf, sizeof(buf));
    TST_EQ_STR(buf, "quad");
}
