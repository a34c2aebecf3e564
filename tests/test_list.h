/*
 * test_list.h - the one registry of paptree's tests (libuv's test-list.h).
 *
 * Every test is one line of tst_list[] below; tests/run_tests.c runs them
 * (`build/run_tests --help`).  Unit test functions are declared here too, so
 * that each tests/unit/<module>/<file>.c includes this header for its
 * prototypes; only the runner defines TST_LIST_TABLE and sees the table.
 *
 * Kinds, and what "pass" means:
 *   TST_UNIT    fn() in a forked child exits 0 (tests/tst.h assertions exit 1).
 *   TST_MPI     `mpirun -np <ranks> <standard flags> <cmd>` exits 0; the
 *               flags are added by the runner, in one place.
 *   TST_SH      `/bin/sh -c <cmd>` exits 0 (end-to-end scripts, and MPI
 *               runs that must fail and check their own messages).
 *   TST_CORPUS  for each file <dir>/<stem>.pm (sorted by name), `<cmd> FILE`
 *               exits exactly 1 and the first line of its stderr, less a
 *               trailing " [src.c:N]", equals the file <dir>/<stem>.expect;
 *               one TAP line "<name>/<stem>" per file.  The runner gives
 *               ASan and UBSan exit codes 86 and 87, so a sanitizer report
 *               can never pass for a rejected input.
 *   TST_GOOD    for each file ending in .pathmap anywhere under <dir>,
 *               `<cmd> FILE` exits 0; one TAP line "<name>/<path>" per file
 *               (<path> relative to <dir>, without ".pathmap").
 * An empty CORPUS or GOOD directory is a failure, not a vacuous pass.
 * Paths are relative to the repository root; the runner chdirs there.
 * Timeouts are per TAP line and scaled by PAPTREE_TEST_TIMEOUT_SCALE.
 */
#ifndef TST_TEST_LIST_H
#define TST_TEST_LIST_H

typedef enum {
    TST_UNIT,
    TST_MPI,
    TST_SH,
    TST_CORPUS,
    TST_GOOD
} tst_kind_t;

typedef void tst_unit_fn_t(void);

typedef struct tst_entry {
    const char    *name;      /* unique; corpus items append "/<stem>" */
    tst_kind_t     kind;
    tst_unit_fn_t *fn;        /* TST_UNIT only */
    const char    *cmd;       /* MPI, SH: command; CORPUS, GOOD: checker */
    const char    *dir;       /* CORPUS, GOOD: input directory */
    int            ranks;     /* TST_MPI only */
    double         timeout_s; /* per TAP line, before scaling */
} tst_entry_t;

/*
 * Runner pieces that tests/unit/selftest checks directly (they live in
 * tests/run_tests.c, which is linked into the same program).
 */
typedef struct tst_child {
    tst_unit_fn_t *fn;        /* called in the child, or NULL to run cmd */
    const char    *cmd;       /* run as /bin/sh -c cmd sh [arg] */
    const char    *arg;       /* $1 of cmd, or NULL */
    const char    *out_path;  /* stdout, and stderr unless err_path; appended */
    const char    *err_path;  /* separate stderr (truncated), or NULL */
} tst_child_t;

typedef struct tst_exit {
    int    timed_out;         /* 1: killed because the timeout passed */
    int    code;              /* exit status, or -1 if killed by a signal */
    int    signo;             /* the signal that ended it, or 0 */
    double secs;              /* wall time until it ended */
} tst_exit_t;

/*
 * Runs child in its own process group and waits at most timeout_s; then sends
 * SIGTERM to the whole group and SIGKILL 2 s later.  Whatever the group still
 * holds when the child ends is killed too.  Returns 0, or -1 with errno when
 * the child could not be started or its status not collected.
 */
int tst__child_run(const tst_child_t *child, double timeout_s,
                   tst_exit_t *exit_p);

/* Cuts a trailing " [runtime/x.c:12]" (the detecting C source) off line. */
void tst__srcloc_strip(char *line);

/* Unit tests (tests/unit/<module>/), grouped by file. */
/* selftest/selftest.c: tests/tst.h and the runner itself */
void t_selftest_tst_failures(void);
void t_selftest_tst_passes(void);
void t_selftest_srcloc_strip(void);
void t_selftest_child_exit(void);
void t_selftest_child_timeout_group(void);
void t_selftest_child_timeout_kill(void);
void t_selftest_runner_corpus(void);
/* pathmap/t_pathmap.c: parser, validator, tree model */
void t_pathmap_doc_example(void);
void t_pathmap_params_and_ranges(void);
void t_pathmap_crlf_tabs_comments(void);
void t_pathmap_error_location(void);
void t_pathmap_hash(void);
void t_pathmap_deep_chain(void);
void t_pathmap_names(void);
/* exec/t_gred.c: reduction kernels, waiting, gred under threads */
void t_reduce_kernels(void);
void t_wait_phases(void);
void t_gred_threads(void);
void t_gred_invalid(void);
/* analyze/t_stats.c: streaming statistics */
void t_stats_small_odd(void);
void t_stats_small_even(void);
void t_stats_ten(void);
void t_stats_rank_rounding(void);
void t_stats_negative_halves(void);
void t_stats_empty(void);
void t_stats_single(void);
void t_stats_refuse_nonfinite(void);
void t_stats_transition(void);
void t_stats_small_values_exact(void);
void t_stats_large_uniform(void);
void t_stats_large_negative(void);
void t_stats_constant(void);
void t_stats_wide_range(void);
void t_stats_extreme_values(void);
void t_stats_memory_bound(void);
/* algo/t_sched.c: schedule core, replay verifier, ASAP rounds */
void t_sched_partitions(void);
void t_sched_build_sort(void);
void t_sched_verify_ring(void);
void t_sched_verify_catches(void);
void t_sched_verify_deadlock(void);
void t_sched_asap_chain(void);
/* algo/t_sweep.c: every generator of the table through the verifier */
void t_sweep_allreduce(void);
void t_sweep_reduce(void);
void t_sweep_bcast(void);
void t_sweep_reduce_bcast(void);
/* algo/t_ring_rd.c: ring, segmented ring, recursive doubling, Rabenseifner */
void t_ring_example(void);
void t_ring_seg_example(void);
void t_ring_seg_phases(void);
void t_ring_segcount(void);
void t_rd_examples(void);
void t_rabenseifner_example(void);
void t_ring_verify_sweep(void);
void t_ring_seg_verify_sweep(void);
void t_rd_verify_sweep(void);
void t_rabenseifner_verify_sweep(void);
void t_ring_rd_one_rank(void);
void t_ring_rd_errors(void);
void t_ring_rd_large(void);
/* algo/t_trees.c: binomial, chain, binary tree, greedy reduce; broadcasts */
void t_trees_binomial_examples(void);
void t_trees_binomial_closed_form(void);
void t_trees_binomial_sweep(void);
void t_trees_chain_examples(void);
void t_trees_chain_closed_form(void);
void t_trees_chain_reduce_sweep(void);
void t_trees_chain_bcast_sweep(void);
void t_trees_bintree_examples(void);
void t_trees_bintree_heap_sweep(void);
void t_trees_bintree_ompi_sweep(void);
void t_trees_greedy_examples(void);
void t_trees_greedy_round_table(void);
void t_trees_greedy_sweep(void);
void t_trees_one_rank(void);
void t_trees_errors(void);
/* algo/t_pap_listing.c: Proficz 2018's SLT and PRR listings replayed as printed */
void t_pap_listing_slt_send_in_if(void);
void t_pap_listing_slt_segments(void);
void t_pap_listing_prr_line19(void);
void t_pap_listing_prr_override(void);
void t_pap_listing_prr_sp(void);
void t_pap_listing_prr_settled(void);
/* algo/t_pap.c: the SLT and PRR generators */
void t_pap_slt_example(void);
void t_pap_slt_closed_form(void);
void t_pap_prr_example(void);
void t_pap_prr_is_ring(void);
void t_pap_prr_presteps(void);
void t_pap_sweep(void);
void t_pap_figures(void);
void t_pap_errors(void);
void t_pap_large(void);
void t_pap_slt_direct_equals_asap(void);
/* algo/t_sim.c: the cost-model simulator */
void t_sim_pair(void);
void t_sim_chain_late(void);
void t_sim_group_concurrent(void);
void t_sim_idle_rank(void);
void t_sim_sparse_rounds(void);
void t_sim_large_group(void);
void t_sim_ring_closed_form(void);
void t_sim_binomial_closed_form(void);
void t_sim_pipeline_closed_form(void);
void t_sim_ring_one_late(void);
void t_sim_errors(void);
/* algo/t_nap.c: the node-aware allreduce */
void t_nap_example_4x2(void);
void t_nap_example_6x3(void);
void t_nap_one_node(void);
void t_nap_header_examples(void);
void t_nap_default_steps(void);
void t_nap_explicit_steps(void);
void t_nap_round_counts(void);
void t_nap_verify_sweep(void);
void t_nap_factorization_sweep(void);
void t_nap_one_rank(void);
void t_nap_large(void);
void t_nap_errors(void);
/* algo/t_clv.c: Clairvoyant, linear and segment-tree versions */
void t_clv_paper_example(void);
void t_clv_balanced_example(void);
void t_clv_python_vectors(void);
void t_clv_cross_uniform(void);
void t_clv_cross_skewed(void);
void t_clv_cross_ties(void);
void t_clv_cross_wide(void);
void t_clv_idle_skip(void);
void t_clv_one_rank(void);
void t_clv_edge_cases(void);
void t_clv_invalid(void);
void t_clv_range(void);
void t_clv_balanced_rounds(void);

#ifdef TST_LIST_TABLE
/* One line per test: name, kind, fn, cmd or checker, dir, ranks, timeout (s). */
static const tst_entry_t tst_list[] = {
    /* unit: the test infrastructure itself (tests/unit/selftest/) */
    { "selftest_tst_failures",        TST_UNIT, t_selftest_tst_failures,        NULL, NULL, 0, 10 },
    { "selftest_tst_passes",          TST_UNIT, t_selftest_tst_passes,          NULL, NULL, 0, 10 },
    { "selftest_srcloc_strip",        TST_UNIT, t_selftest_srcloc_strip,        NULL, NULL, 0, 10 },
    { "selftest_child_exit",          TST_UNIT, t_selftest_child_exit,          NULL, NULL, 0, 10 },
    { "selftest_child_timeout_group", TST_UNIT, t_selftest_child_timeout_group, NULL, NULL, 0, 10 },
    { "selftest_child_timeout_kill",  TST_UNIT, t_selftest_child_timeout_kill,  NULL, NULL, 0, 15 },
    { "selftest_runner_corpus",       TST_UNIT, t_selftest_runner_corpus,       NULL, NULL, 0, 30 },
    /* unit: pathmap (tests/unit/pathmap/) */
    { "pathmap_doc_example",          TST_UNIT, t_pathmap_doc_example,          NULL, NULL, 0, 10 },
    { "pathmap_params_and_ranges",    TST_UNIT, t_pathmap_params_and_ranges,    NULL, NULL, 0, 10 },
    { "pathmap_crlf_tabs_comments",   TST_UNIT, t_pathmap_crlf_tabs_comments,   NULL, NULL, 0, 10 },
    { "pathmap_error_location",       TST_UNIT, t_pathmap_error_location,       NULL, NULL, 0, 10 },
    { "pathmap_hash",                 TST_UNIT, t_pathmap_hash,                 NULL, NULL, 0, 10 },
    { "pathmap_deep_chain",           TST_UNIT, t_pathmap_deep_chain,           NULL, NULL, 0, 20 },
    { "pathmap_names",                TST_UNIT, t_pathmap_names,                NULL, NULL, 0, 10 },
    /* unit: exec without MPI (tests/unit/exec/) */
    { "reduce_kernels",               TST_UNIT, t_reduce_kernels,               NULL, NULL, 0, 10 },
    { "wait_phases",                  TST_UNIT, t_wait_phases,                  NULL, NULL, 0, 10 },
    { "gred_threads",                 TST_UNIT, t_gred_threads,                 NULL, NULL, 0, 60 },
    { "gred_invalid",                 TST_UNIT, t_gred_invalid,                 NULL, NULL, 0, 10 },
    /* unit: analyze (tests/unit/analyze/) */
    { "stats_small_odd",              TST_UNIT, t_stats_small_odd,              NULL, NULL, 0, 10 },
    { "stats_small_even",             TST_UNIT, t_stats_small_even,             NULL, NULL, 0, 10 },
    { "stats_ten",                    TST_UNIT, t_stats_ten,                    NULL, NULL, 0, 10 },
    { "stats_rank_rounding",          TST_UNIT, t_stats_rank_rounding,          NULL, NULL, 0, 10 },
    { "stats_negative_halves",        TST_UNIT, t_stats_negative_halves,        NULL, NULL, 0, 10 },
    { "stats_empty",                  TST_UNIT, t_stats_empty,                  NULL, NULL, 0, 10 },
    { "stats_single",                 TST_UNIT, t_stats_single,                 NULL, NULL, 0, 10 },
    { "stats_refuse_nonfinite",       TST_UNIT, t_stats_refuse_nonfinite,       NULL, NULL, 0, 10 },
    { "stats_transition",             TST_UNIT, t_stats_transition,             NULL, NULL, 0, 10 },
    { "stats_small_values_exact",     TST_UNIT, t_stats_small_values_exact,     NULL, NULL, 0, 10 },
    { "stats_large_uniform",          TST_UNIT, t_stats_large_uniform,          NULL, NULL, 0, 20 },
    { "stats_large_negative",         TST_UNIT, t_stats_large_negative,         NULL, NULL, 0, 20 },
    { "stats_constant",               TST_UNIT, t_stats_constant,               NULL, NULL, 0, 10 },
    { "stats_wide_range",             TST_UNIT, t_stats_wide_range,             NULL, NULL, 0, 10 },
    { "stats_extreme_values",         TST_UNIT, t_stats_extreme_values,         NULL, NULL, 0, 10 },
    { "stats_memory_bound",           TST_UNIT, t_stats_memory_bound,           NULL, NULL, 0, 30 },
    /* unit: collective schedules (tests/unit/algo/) */
    { "sched_partitions",             TST_UNIT, t_sched_partitions,             NULL, NULL, 0, 10 },
    { "sched_build_sort",             TST_UNIT, t_sched_build_sort,             NULL, NULL, 0, 10 },
    { "sched_verify_ring",            TST_UNIT, t_sched_verify_ring,            NULL, NULL, 0, 10 },
    { "sched_verify_catches",         TST_UNIT, t_sched_verify_catches,         NULL, NULL, 0, 10 },
    { "sched_verify_deadlock",        TST_UNIT, t_sched_verify_deadlock,        NULL, NULL, 0, 10 },
    { "sched_asap_chain",             TST_UNIT, t_sched_asap_chain,             NULL, NULL, 0, 10 },
    { "ring_example",                  TST_UNIT, t_ring_example,                  NULL, NULL, 0, 10 },
    { "ring_seg_example",              TST_UNIT, t_ring_seg_example,              NULL, NULL, 0, 10 },
    { "ring_seg_phases",               TST_UNIT, t_ring_seg_phases,               NULL, NULL, 0, 10 },
    { "ring_segcount",                 TST_UNIT, t_ring_segcount,                 NULL, NULL, 0, 10 },
    { "rd_examples",                   TST_UNIT, t_rd_examples,                   NULL, NULL, 0, 10 },
    { "rabenseifner_example",          TST_UNIT, t_rabenseifner_example,          NULL, NULL, 0, 10 },
    { "ring_verify_sweep",             TST_UNIT, t_ring_verify_sweep,             NULL, NULL, 0, 60 },
    { "ring_seg_verify_sweep",         TST_UNIT, t_ring_seg_verify_sweep,         NULL, NULL, 0, 60 },
    { "rd_verify_sweep",               TST_UNIT, t_rd_verify_sweep,               NULL, NULL, 0, 60 },
    { "rabenseifner_verify_sweep",     TST_UNIT, t_rabenseifner_verify_sweep,     NULL, NULL, 0, 60 },
    { "ring_rd_one_rank",              TST_UNIT, t_ring_rd_one_rank,              NULL, NULL, 0, 10 },
    { "ring_rd_errors",                TST_UNIT, t_ring_rd_errors,                NULL, NULL, 0, 10 },
    { "ring_rd_large",                 TST_UNIT, t_ring_rd_large,                 NULL, NULL, 0, 60 },
    { "trees_binomial_examples",       TST_UNIT, t_trees_binomial_examples,       NULL, NULL, 0, 10 },
    { "trees_binomial_closed_form",    TST_UNIT, t_trees_binomial_closed_form,    NULL, NULL, 0, 10 },
    { "trees_binomial_sweep",          TST_UNIT, t_trees_binomial_sweep,          NULL, NULL, 0, 60 },
    { "trees_chain_examples",          TST_UNIT, t_trees_chain_examples,          NULL, NULL, 0, 10 },
    { "trees_chain_closed_form",       TST_UNIT, t_trees_chain_closed_form,       NULL, NULL, 0, 10 },
    { "trees_chain_reduce_sweep",      TST_UNIT, t_trees_chain_reduce_sweep,      NULL, NULL, 0, 60 },
    { "trees_chain_bcast_sweep",       TST_UNIT, t_trees_chain_bcast_sweep,       NULL, NULL, 0, 60 },
    { "trees_bintree_examples",        TST_UNIT, t_trees_bintree_examples,        NULL, NULL, 0, 10 },
    { "trees_bintree_heap_sweep",      TST_UNIT, t_trees_bintree_heap_sweep,      NULL, NULL, 0, 60 },
    { "trees_bintree_ompi_sweep",      TST_UNIT, t_trees_bintree_ompi_sweep,      NULL, NULL, 0, 60 },
    { "trees_greedy_examples",         TST_UNIT, t_trees_greedy_examples,         NULL, NULL, 0, 10 },
    { "trees_greedy_round_table",      TST_UNIT, t_trees_greedy_round_table,      NULL, NULL, 0, 10 },
    { "trees_greedy_sweep",            TST_UNIT, t_trees_greedy_sweep,            NULL, NULL, 0, 60 },
    { "trees_one_rank",                TST_UNIT, t_trees_one_rank,                NULL, NULL, 0, 60 },
    { "trees_errors",                  TST_UNIT, t_trees_errors,                  NULL, NULL, 0, 10 },
    { "pap_listing_slt_send_in_if",    TST_UNIT, t_pap_listing_slt_send_in_if,    NULL, NULL, 0, 10 },
    { "pap_listing_slt_segments",      TST_UNIT, t_pap_listing_slt_segments,      NULL, NULL, 0, 10 },
    { "pap_listing_prr_line19",        TST_UNIT, t_pap_listing_prr_line19,        NULL, NULL, 0, 10 },
    { "pap_listing_prr_override",      TST_UNIT, t_pap_listing_prr_override,      NULL, NULL, 0, 10 },
    { "pap_listing_prr_sp",            TST_UNIT, t_pap_listing_prr_sp,            NULL, NULL, 0, 10 },
    { "pap_listing_prr_settled",       TST_UNIT, t_pap_listing_prr_settled,       NULL, NULL, 0, 10 },
    { "pap_slt_example",               TST_UNIT, t_pap_slt_example,               NULL, NULL, 0, 10 },
    { "pap_slt_closed_form",           TST_UNIT, t_pap_slt_closed_form,           NULL, NULL, 0, 10 },
    { "pap_prr_example",               TST_UNIT, t_pap_prr_example,               NULL, NULL, 0, 10 },
    { "pap_prr_is_ring",               TST_UNIT, t_pap_prr_is_ring,               NULL, NULL, 0, 10 },
    { "pap_prr_presteps",              TST_UNIT, t_pap_prr_presteps,              NULL, NULL, 0, 10 },
    { "pap_sweep",                     TST_UNIT, t_pap_sweep,                     NULL, NULL, 0, 60 },
    { "pap_figures",                   TST_UNIT, t_pap_figures,                   NULL, NULL, 0, 10 },
    { "pap_errors",                    TST_UNIT, t_pap_errors,                    NULL, NULL, 0, 10 },
    { "pap_large",                     TST_UNIT, t_pap_large,                     NULL, NULL, 0, 60 },
    { "pap_slt_direct_equals_asap",    TST_UNIT, t_pap_slt_direct_equals_asap,    NULL, NULL, 0, 60 },
    { "sim_pair",                      TST_UNIT, t_sim_pair,                      NULL, NULL, 0, 30 },
    { "sim_chain_late",                TST_UNIT, t_sim_chain_late,                NULL, NULL, 0, 30 },
    { "sim_group_concurrent",          TST_UNIT, t_sim_group_concurrent,          NULL, NULL, 0, 30 },
    { "sim_idle_rank",                 TST_UNIT, t_sim_idle_rank,                 NULL, NULL, 0, 30 },
    { "sim_sparse_rounds",             TST_UNIT, t_sim_sparse_rounds,             NULL, NULL, 0, 30 },
    { "sim_large_group",               TST_UNIT, t_sim_large_group,               NULL, NULL, 0, 30 },
    { "sim_ring_closed_form",          TST_UNIT, t_sim_ring_closed_form,          NULL, NULL, 0, 30 },
    { "sim_binomial_closed_form",      TST_UNIT, t_sim_binomial_closed_form,      NULL, NULL, 0, 30 },
    { "sim_pipeline_closed_form",      TST_UNIT, t_sim_pipeline_closed_form,      NULL, NULL, 0, 30 },
    { "sim_ring_one_late",             TST_UNIT, t_sim_ring_one_late,             NULL, NULL, 0, 30 },
    { "sim_errors",                    TST_UNIT, t_sim_errors,                    NULL, NULL, 0, 30 },
    { "nap_example_4x2",               TST_UNIT, t_nap_example_4x2,               NULL, NULL, 0, 10 },
    { "nap_example_6x3",               TST_UNIT, t_nap_example_6x3,               NULL, NULL, 0, 10 },
    { "nap_one_node",                  TST_UNIT, t_nap_one_node,                  NULL, NULL, 0, 10 },
    { "nap_header_examples",           TST_UNIT, t_nap_header_examples,           NULL, NULL, 0, 10 },
    { "nap_default_steps",             TST_UNIT, t_nap_default_steps,             NULL, NULL, 0, 10 },
    { "nap_explicit_steps",            TST_UNIT, t_nap_explicit_steps,            NULL, NULL, 0, 10 },
    { "nap_round_counts",              TST_UNIT, t_nap_round_counts,              NULL, NULL, 0, 10 },
    { "nap_verify_sweep",              TST_UNIT, t_nap_verify_sweep,              NULL, NULL, 0, 60 },
    { "nap_factorization_sweep",       TST_UNIT, t_nap_factorization_sweep,       NULL, NULL, 0, 60 },
    { "nap_one_rank",                  TST_UNIT, t_nap_one_rank,                  NULL, NULL, 0, 10 },
    { "nap_large",                     TST_UNIT, t_nap_large,                     NULL, NULL, 0, 60 },
    { "nap_errors",                    TST_UNIT, t_nap_errors,                    NULL, NULL, 0, 10 },
    { "clv_paper_example",             TST_UNIT, t_clv_paper_example,             NULL, NULL, 0, 20 },
    { "clv_balanced_example",          TST_UNIT, t_clv_balanced_example,          NULL, NULL, 0, 20 },
    { "clv_python_vectors",            TST_UNIT, t_clv_python_vectors,            NULL, NULL, 0, 20 },
    { "clv_cross_uniform",             TST_UNIT, t_clv_cross_uniform,             NULL, NULL, 0, 60 },
    { "clv_cross_skewed",              TST_UNIT, t_clv_cross_skewed,              NULL, NULL, 0, 60 },
    { "clv_cross_ties",                TST_UNIT, t_clv_cross_ties,                NULL, NULL, 0, 60 },
    { "clv_cross_wide",                TST_UNIT, t_clv_cross_wide,                NULL, NULL, 0, 60 },
    { "clv_idle_skip",                 TST_UNIT, t_clv_idle_skip,                 NULL, NULL, 0, 60 },
    { "clv_one_rank",                  TST_UNIT, t_clv_one_rank,                  NULL, NULL, 0, 20 },
    { "clv_edge_cases",                TST_UNIT, t_clv_edge_cases,                NULL, NULL, 0, 20 },
    { "clv_invalid",                   TST_UNIT, t_clv_invalid,                   NULL, NULL, 0, 20 },
    { "clv_range",                     TST_UNIT, t_clv_range,                     NULL, NULL, 0, 20 },
    { "clv_balanced_rounds",           TST_UNIT, t_clv_balanced_rounds,           NULL, NULL, 0, 60 },
    { "sweep_allreduce",              TST_UNIT, t_sweep_allreduce,              NULL, NULL, 0, 120 },
    { "sweep_reduce",                 TST_UNIT, t_sweep_reduce,                 NULL, NULL, 0, 120 },
    { "sweep_bcast",                  TST_UNIT, t_sweep_bcast,                  NULL, NULL, 0, 60 },
    { "sweep_reduce_bcast",           TST_UNIT, t_sweep_reduce_bcast,           NULL, NULL, 0, 240 },

    /* unit: exec (tests/unit/exec/) */

    /* mpi: tests/mpi/<name>.c is built as build/tests/<name> */
    { "mpi_launch_oversubscribed", TST_MPI, NULL, "sh -c 'test \"$OMPI_COMM_WORLD_SIZE\" = 3'", NULL, 3, 60 },
    /* mpi: Gsum on every scaled sample (each result checked in closed form), 4 B and 256 B */
    { "gsum_demo", TST_MPI, NULL, "bin/gsum -p pathmaps/demo.pathmap -n 2000 -w 10 -s 4,256", NULL, 2, 120 },
    { "gsum_gred_1x2", TST_MPI, NULL, "bin/gsum -p pathmaps/local/gred-1x2.pathmap -n 2000 -w 10 -s 4,256", NULL, 1, 120 },
    { "gsum_binary_1x4", TST_MPI, NULL, "bin/gsum -p pathmaps/local/binary-1x4.pathmap -n 2000 -w 10 -s 4,256", NULL, 1, 120 },
    { "gsum_nary_2x2", TST_MPI, NULL, "bin/gsum -p pathmaps/local/nary-2x2.pathmap -n 2000 -w 10 -s 4,256", NULL, 2, 120 },
    { "gsum_quad_2x4", TST_MPI, NULL, "bin/gsum -p pathmaps/local/quad-2x4.pathmap -n 2000 -w 10 -s 4,256", NULL, 2, 120 },
    { "gsum_binaryquad_2x4", TST_MPI, NULL, "bin/gsum -p pathmaps/local/binaryquad-2x4.pathmap -n 2000 -w 10 -s 4,256", NULL, 2, 120 },
    { "gsum_binary_2x4", TST_MPI, NULL, "bin/gsum -p pathmaps/local/binary-2x4.pathmap -n 2000 -w 10 -s 4,256", NULL, 2, 120 },
    { "gsum_binary_extralinks_2x4", TST_MPI, NULL, "bin/gsum -p pathmaps/local/binary-extralinks-2x4.pathmap -n 2000 -w 10 -s 4,256", NULL, 2, 120 },
    { "gsum_nary_4x2", TST_MPI, NULL, "bin/gsum -p pathmaps/local/nary-4x2.pathmap -n 2000 -w 10 -s 4,256", NULL, 4, 120 },
    { "gsum_binary_4x2", TST_MPI, NULL, "bin/gsum -p pathmaps/local/binary-4x2.pathmap -n 2000 -w 10 -s 4,256", NULL, 4, 120 },
    { "gsum_split_4x2", TST_MPI, NULL, "bin/gsum -p pathmaps/local/split-4x2.pathmap -n 2000 -w 10 -s 4,256", NULL, 4, 120 },
    { "gsum_split2_4x2", TST_MPI, NULL, "bin/gsum -p pathmaps/local/split2-4x2.pathmap -n 2000 -w 10 -s 4,256", NULL, 4, 120 },
    { "gsum_nary_extralinks_2x2", TST_MPI, NULL, "bin/gsum -p pathmaps/local/nary-extralinks-2x2.pathmap -n 2000 -w 10 -s 4,256", NULL, 2, 120 },
    { "gsum_flat_4x1", TST_MPI, NULL, "bin/gsum -p pathmaps/local/flat-4x1.pathmap -n 2000 -w 10 -s 4,256", NULL, 4, 120 },
    { "gsum_binary_4x1", TST_MPI, NULL, "bin/gsum -p pathmaps/local/binary-4x1.pathmap -n 2000 -w 10 -s 4,256", NULL, 4, 120 },
    { "gsum_gateway_3x2", TST_MPI, NULL, "bin/gsum -p pathmaps/local/gateway-3x2.pathmap -n 2000 -w 10 -s 4,256", NULL, 3, 120 },
    /* mpi: the native baseline verifies the same way */
    { "gsum_native_np2",        TST_MPI, NULL, "bin/gsum --native -n 2000 -s 4,256", NULL, 2, 60 },
    { "gsum_native_np3_double", TST_MPI, NULL, "bin/gsum --native --type double --op max -n 500 -s 8,256", NULL, 3, 60 },
    /* mpi: every result against an MPI_Allreduce oracle computed without the tree */
    { "oracle_double_max_2x2", TST_MPI, NULL, "build/tests/exec_oracle tests/pathmap/good/double-max-2x2.pathmap 256 400", NULL, 2, 120 },
    { "oracle_int64_min_relay_3x1", TST_MPI, NULL, "build/tests/exec_oracle tests/pathmap/good/int64-min-relay-3x1.pathmap 8 400", NULL, 3, 120 },
    { "oracle_two_trees_deep", TST_MPI, NULL, "build/tests/exec_oracle tests/pathmap/good/two-trees-2x2.pathmap 4 400 deep", NULL, 2, 120 },
    { "oracle_two_trees_flat", TST_MPI, NULL, "build/tests/exec_oracle tests/pathmap/good/two-trees-2x2.pathmap 64 400 flat", NULL, 2, 120 },
    { "oracle_single_thread_core", TST_MPI, NULL, "build/tests/exec_oracle tests/pathmap/good/single-thread-core-1x1.pathmap 4 400", NULL, 1, 120 },
    { "oracle_split_4x2", TST_MPI, NULL, "build/tests/exec_oracle pathmaps/local/split-4x2.pathmap 256 400", NULL, 4, 120 },
    { "oracle_gateway_3x2", TST_MPI, NULL, "build/tests/exec_oracle pathmaps/local/gateway-3x2.pathmap 4 400", NULL, 3, 120 },

    /* sh: scripts and end-to-end runs */
    { "papsim",                TST_SH, NULL, "sh tests/algo/papsim.sh",                NULL, 0, 120 },
    { "check_layers",          TST_SH, NULL, "sh scripts/check-layers.sh",             NULL, 0, 60 },
    { "check_layers_selftest", TST_SH, NULL, "sh scripts/check-layers.sh --self-test", NULL, 0, 60 },
    { "build_header_deps",     TST_SH, NULL, "sh tests/build/header-deps.sh",          NULL, 0, 300 },
    { "mpi_job_errors",        TST_SH, NULL, "sh tests/mpi/job-errors.sh",             NULL, 0, 180 },
    { "gsum_args",             TST_SH, NULL, "sh tests/mpi/gsum-args.sh",              NULL, 0, 180 },
    { "gsum_output",           TST_SH, NULL, "sh tests/mpi/gsum-output.sh",            NULL, 0, 60 },
    { "trace_archive",         TST_SH, NULL, "sh tests/mpi/trace-archive.sh",          NULL, 0, 240 },
    { "trace_errors",          TST_SH, NULL, "sh tests/mpi/trace-errors.sh",           NULL, 0, 300 },
    { "trace_interrupt",       TST_SH, NULL, "sh tests/mpi/trace-interrupt.sh",        NULL, 0, 180 },
    { "analyze_synthetic",     TST_SH, NULL, "sh tests/analyze/synthetic.sh",          NULL, 0, 120 },
    { "analyze_gsum",          TST_SH, NULL, "sh tests/analyze/gsum-analyze.sh",       NULL, 0, 300 },
    { "analyze_bad_input",     TST_SH, NULL, "sh tests/analyze/bad-input.sh",          NULL, 0, 600 },
    { "viz",                   TST_SH, NULL, "sh tests/viz/viz.sh",                    NULL, 0, 300 },
    { "e2e_readme",            TST_SH, NULL, "sh tests/e2e/readme.sh",                 NULL, 0, 300 },

    /* corpus: bad pathmaps, each with the exact message expected */
    { "pathmap_bad",      TST_CORPUS, NULL, "bin/pathmap-check",        "tests/pathmap/bad", 0, 10 },
    { "pathmap_bad_asan", TST_CORPUS, NULL, "build/asan/pathmap-check", "tests/pathmap/bad", 0, 20 },
    /* good: every pathmap shipped must validate */
    { "pathmap_good",     TST_GOOD,   NULL, "bin/pathmap-check",        "pathmaps",          0, 10 },
    { "test_pathmaps_good", TST_GOOD, NULL, "bin/pathmap-check",        "tests/pathmap/good", 0, 10 },
};
#endif /* TST_LIST_TABLE */

#endif /* TST_TEST_LIST_H */
