/*
 * clv_tree.h - the paper's segment-tree Clairvoyant (clv_tree.c,
 * "clv-tree"): the reference that "clv" (runtime/algo/clv_rows.c) must
 * match step for step.  Not in the library and not an algorithm table
 * row: built into the test runner (tests/unit/algo/t_clv.c) and into
 * bin/clvbench, which measures clv against it.
 */
#ifndef TST_CLV_TREE_H
#define TST_CLV_TREE_H

#include "runtime/api/rt_sched.h"

rt_algo_gen_fn rt_algo_clv_tree;

#endif /* TST_CLV_TREE_H */
