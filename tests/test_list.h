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
 * `TST_MPI | TST_EXCLUSIVE` or `TST_SH | TST_EXCLUSIVE` marks a test that
 * must run alone: with -j N the runner waits until nothing else runs, runs
 * it, and starts the next ones after it (docs/testing.md, Running tests in
 * parallel).
 * An empty CORPUS or GOOD directory is a failure, not a vacuous pass.
 * Paths are relative to the repository root; the runner chdirs there.
 * Timeouts are per TAP line and scaled by PAPTREE_TEST_TIMEOUT_SCALE.
 */
#ifndef TST_TEST_LIST_H
#define TST_TEST_LIST_H

#include <stddef.h>

typedef enum {
    TST_UNIT,
    TST_MPI,
    TST_SH,
    TST_CORPUS,
    TST_GOOD,
    /* A flag, or'ed into an MPI or SH entry's kind: the runner never runs
     * this test beside another one, whatever -j says (timing-sensitive
     * tests, jobs that oversubscribe the cores on their own). */
    TST_EXCLUSIVE = 0x100
} tst_kind_t;

/* An entry's kind without its flags. */
#define TST_KIND_MASK 0xff

typedef void tst_unit_fn_t(void);

typedef struct tst_entry {
    const char    *name;      /* unique; corpus items append "/<stem>" */
    tst_kind_t     kind;      /* a kind, maybe | TST_EXCLUSIVE */
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

/*
 * The runner's main on a registry of n entries (the selftests give it one of
 * their own): options as `build/run_tests --help`; returns the exit status.
 */
int tst__main(const tst_entry_t *list, size_t n, int argc, char **argv);

/*
 * Unit tests: X(name, timeout in s), one line each.  The function is
 * `void t_<name>(void)` in a file of tests/unit/<module>/ that includes this
 * header, which declares it (below); the runner's table gets the entry.
 * Adding a unit test is this one line plus the function.  (An X-macro, as
 * common/cm_status.h's list of codes: the one list is expanded twice.)
 */
#define TST_UNIT_TESTS(X) \
    /* the test infrastructure itself (tests/unit/selftest/) */ \
    X(selftest_tst_failures,         10) \
    X(selftest_tst_passes,           10) \
    X(selftest_srcloc_strip,         10) \
    X(selftest_child_exit,           10) \
    X(selftest_child_timeout_group,  10) \
    X(selftest_child_timeout_kill,   15) \
    X(selftest_runner_corpus,        30) \
    X(selftest_jobs_parallel,        30) \
    X(selftest_jobs_exclusive,       30) \
    X(selftest_jobs_usage,           30) \
    X(selftest_jobs_stop,            30) \
    X(selftest_runner_skip,          30) \
    /* common: option values (tests/unit/common/) */ \
    X(opt_long,                      10) \
    X(opt_int,                       10) \
    X(opt_double,                    10) \
    X(opt_size,                      10) \
    X(opt_size_name,                 10) \
    X(opt_word,                      10) \
    X(opt_range,                     10) \
    X(opt_lists,                     10) \
    X(opt_list_iter,                 10) \
    X(opt_first_error,               10) \
    X(opt_loop,                      10) \
    X(opt_next,                      10) \
    X(opt_append,                    10) \
    /* common: code addresses as call-site names (tests/unit/common/t_site.c) */ \
    X(site_main_program,             20) \
    X(site_shared_object,            10) \
    /* pathmap (tests/unit/pathmap/) */ \
    X(pathmap_doc_example,           10) \
    X(pathmap_params_and_ranges,     10) \
    X(pathmap_crlf_tabs_comments,    10) \
    X(pathmap_error_location,        10) \
    X(pathmap_error_source_debug,    10) \
    X(pathmap_hash,                  10) \
    X(pathmap_deep_chain,            20) \
    X(pathmap_names,                 10) \
    X(pathmap_load_not_regular,      10) \
    X(pathmap_load_long_path,        10) \
    X(pathmap_load_size_zero,        10) \
    X(pathmap_binary_before_long_line, 10) \
    X(pathmap_tuple_bytes,           10) \
    X(pathmap_algo_example,          10) \
    X(pathmap_algo_hosts_ascending,  10) \
    X(pathmap_algo_params,           10) \
    X(pathmap_algo_auto,             10) \
    X(pathmap_algo_none_in_core_tree, 10) \
    X(pathmap_algo_arrival_sources,  10) \
    X(pathmap_algo_tuple_bytes,      10) \
    /* interpose: the --algo rules (tests/unit/interpose/) */ \
    X(ip_rules_match_order,          10) \
    X(ip_rules_match_sizes,          10) \
    X(ip_rules_match_np,             10) \
    X(ip_rules_names,                10) \
    X(ip_rules_params,               10) \
    X(ip_rules_empty,                10) \
    X(ip_rules_errors,               10) \
    X(ip_rules_hash,                 10) \
    X(ip_rules_normal_reparses,      10) \
    X(ip_rules_auto,                 10) \
    X(ip_rules_auto_net,             10) \
    X(ip_rules_auto_errors,          10) \
    /* the random pathmap generator (tests/unit/randtree/, tests/randtree/) */ \
    X(randtree_valid,                60) \
    X(randtree_deterministic,        10) \
    X(randtree_features,             30) \
    /* gen: pathgen's model (tests/unit/gen/) */ \
    X(gen_map_basics,                10) \
    X(gen_map_thread_order,          10) \
    X(gen_map_detach_order,          10) \
    X(gen_map_detach_remove,         10) \
    X(gen_map_fix_routes_split,      10) \
    X(gen_map_fix_routes_threads,    10) \
    X(gen_map_fix_routes_gateway,    10) \
    X(gen_map_fix_routes_algo,       10) \
    X(gen_map_proxy_names,           10) \
    X(gen_write_split,               10) \
    X(gen_write_thread_proxies,      10) \
    X(gen_write_gateway,             10) \
    X(gen_write_algo,                10) \
    X(gen_write_params,              10) \
    X(gen_write_render_invalid,      10) \
    X(gen_read_samples,              30) \
    X(gen_read_split,                10) \
    X(gen_read_gateway_algo,         10) \
    X(gen_read_tree_names,           10) \
    X(gen_read_errors,               10) \
    X(gen_read_words,                10) \
    X(gen_read_deep_chain,           20) \
    X(gen_compare_samples,           10) \
    X(gen_compare_names,             10) \
    X(gen_compare_params,            10) \
    X(gen_compare_moved,             10) \
    X(gen_compare_order,             10) \
    /* gen: the reconfiguration operators (tests/unit/gen/t_edit*.c) */ \
    X(gen_edit_paper_8w,             10) \
    X(gen_edit_paper_4w,             10) \
    X(gen_edit_paper_links,          10) \
    X(gen_edit_paper_now_blade,      10) \
    X(gen_edit_paper_multicluster,   10) \
    X(gen_edit_local,                10) \
    X(gen_edit_algo_samples,         10) \
    X(gen_edit_add_level_fanout,     10) \
    X(gen_edit_level_numbering,      10) \
    X(gen_edit_level_mixed_part,     10) \
    X(gen_edit_move_hand,            10) \
    X(gen_edit_split_root_hand,      10) \
    X(gen_edit_merge_hand,           10) \
    X(gen_edit_algo_hand,            10) \
    X(gen_edit_comments_kept,        10) \
    X(gen_edit_roundtrip_level,      10) \
    X(gen_edit_roundtrip_link,       10) \
    X(gen_edit_roundtrip_move,       10) \
    X(gen_edit_roundtrip_split_root, 10) \
    X(gen_edit_refuse_level,         10) \
    X(gen_edit_refuse_move,          10) \
    X(gen_edit_refuse_link,          10) \
    X(gen_edit_refuse_algo,          10) \
    X(gen_edit_refuse_merge,         10) \
    X(gen_edit_text_parse,           10) \
    X(gen_edit_text_render,          10) \
    X(gen_edit_text_refuse,          10) \
    X(gen_edit_text_apply,           10) \
    /* exec without MPI (tests/unit/exec/) */ \
    X(reduce_kernels,                10) \
    X(wait_phases,                   10) \
    X(gred_threads,                  60) \
    X(gred_invalid,                  10) \
    X(gred_defer_order,              10) \
    X(gred_defer_threads,            60) \
    X(location_gateway,              10) \
    X(location_cover,                10) \
    X(plan_prepare_pap,              10) \
    X(plan_prepare_static_native_bad, 10) \
    X(est_vector_band,               10) \
    X(est_vector_no_band_history_cap, 10) \
    /* analyze (tests/unit/analyze/) */ \
    X(stats_small_odd,               10) \
    X(stats_small_even,              10) \
    X(stats_ten,                     10) \
    X(stats_rank_rounding,           10) \
    X(stats_negative_halves,         10) \
    X(stats_empty,                   10) \
    X(stats_single,                  10) \
    X(stats_refuse_nonfinite,        10) \
    X(stats_transition,              10) \
    X(stats_small_values_exact,      10) \
    X(stats_large_uniform,           20) \
    X(stats_large_negative,          20) \
    X(stats_constant,                10) \
    X(stats_wide_range,              10) \
    X(stats_extreme_values,          10) \
    X(stats_memory_bound,            30) \
    X(model_algo_tree,               30) \
    X(model_algo_schedule,           30) \
    /* advice (tests/unit/advise/t_advise.c, issue 18) */ \
    X(advise_remove_level,           10) \
    X(advise_remove_level_not_worth, 10) \
    X(advise_remove_link,            10) \
    X(advise_root,                   10) \
    X(advise_split,                  10) \
    X(advise_unsplit,                10) \
    X(advise_algo_root,              10) \
    X(advise_nothing_applies,        10) \
    X(advise_move,                   10) \
    X(advise_move_not,               10) \
    X(advise_move_root_child,        10) \
    /* collective schedules (tests/unit/algo/) */ \
    X(sched_partitions,              10) \
    X(sched_build_sort,              10) \
    X(sched_verify_ring,             10) \
    X(sched_verify_catches,          10) \
    X(sched_verify_deadlock,         10) \
    X(sched_asap_chain,              10) \
    X(ring_example,                  10) \
    X(ring_seg_example,              10) \
    X(ring_seg_phases,               10) \
    X(ring_segcount,                 10) \
    X(rd_examples,                   10) \
    X(rabenseifner_example,          10) \
    X(ring_verify_sweep,             60) \
    X(ring_seg_verify_sweep,         60) \
    X(rd_verify_sweep,               60) \
    X(rabenseifner_verify_sweep,     60) \
    X(ring_rd_one_rank,              10) \
    X(ring_rd_errors,                10) \
    X(ring_rd_large,                 60) \
    X(trees_binomial_examples,       10) \
    X(trees_binomial_closed_form,    10) \
    X(trees_binomial_sweep,          60) \
    X(trees_chain_examples,          10) \
    X(trees_chain_closed_form,       10) \
    X(trees_chain_reduce_sweep,      60) \
    X(trees_chain_bcast_sweep,       60) \
    X(trees_bintree_examples,        10) \
    X(trees_bintree_heap_sweep,      60) \
    X(trees_bintree_ompi_sweep,      60) \
    X(trees_greedy_examples,         10) \
    X(trees_greedy_round_table,      10) \
    X(trees_greedy_sweep,            60) \
    X(trees_one_rank,                60) \
    X(trees_errors,                  10) \
    X(pap_listing_slt_send_in_if,    10) \
    X(pap_listing_slt_segments,      10) \
    X(pap_listing_prr_line19,        10) \
    X(pap_listing_prr_override,      10) \
    X(pap_listing_prr_sp,            10) \
    X(pap_listing_prr_settled,       10) \
    X(pap_slt_example,               10) \
    X(pap_slt_closed_form,           10) \
    X(pap_prr_example,               10) \
    X(pap_prr_is_ring,               10) \
    X(pap_prr_presteps,              10) \
    X(pap_sweep,                     60) \
    X(pap_figures,                   10) \
    X(pap_errors,                    10) \
    X(pap_large,                     60) \
    X(pap_slt_direct_equals_asap,    60) \
    X(sim_pair,                      30) \
    X(sim_chain_late,                30) \
    X(sim_group_concurrent,          30) \
    X(sim_idle_rank,                 30) \
    X(sim_sparse_rounds,             30) \
    X(sim_large_group,               30) \
    X(sim_ring_closed_form,          30) \
    X(sim_binomial_closed_form,      30) \
    X(sim_pipeline_closed_form,      30) \
    X(sim_ring_one_late,             30) \
    X(sim_errors,                    30) \
    /* auto's chooser (tests/unit/algo/t_auto.c) */ \
    X(auto_candidates,               10) \
    X(auto_predictions,              10) \
    X(auto_pap_threshold,            10) \
    X(auto_learn_hysteresis,         10) \
    X(auto_explore,                  10) \
    X(auto_agreement,                60) \
    X(auto_cfg_hash,                 10) \
    /* the net file (tests/unit/algo/t_net.c) */ \
    X(net_read_good,                 10) \
    X(net_write_read,                10) \
    X(net_read_bad,                  10) \
    X(net_read_io,                   10) \
    /* arrival patterns (tests/unit/algo/t_arrival.c) */ \
    X(sim_arrival_patterns,          10) \
    X(sim_arrival_random,            10) \
    X(sim_arrival_refuse,            10) \
    X(sim_arrival_describe,          10) \
    X(nap_example_4x2,               10) \
    X(nap_example_6x3,               10) \
    X(nap_one_node,                  10) \
    X(nap_header_examples,           10) \
    X(nap_default_steps,             10) \
    X(nap_explicit_steps,            10) \
    X(nap_round_counts,              10) \
    X(nap_verify_sweep,              60) \
    X(nap_factorization_sweep,       60) \
    X(nap_one_rank,                  10) \
    X(nap_large,                     60) \
    X(nap_errors,                    10) \
    X(clv_paper_example,             20) \
    X(clv_balanced_example,          20) \
    X(clv_python_vectors,            20) \
    X(clv_cross_uniform,             60) \
    X(clv_cross_skewed,              60) \
    X(clv_cross_ties,                60) \
    X(clv_cross_wide,                60) \
    X(clv_idle_skip,                 60) \
    X(clv_one_rank,                  20) \
    X(clv_edge_cases,                20) \
    X(clv_cross_large,              120) \
    X(clv_small_by_hand,             20) \
    X(clv_invalid,                   20) \
    X(clv_range,                     20) \
    X(clv_balanced_rounds,           60) \
    X(sweep_allreduce,              120) \
    X(sweep_reduce,                 120) \
    X(sweep_bcast,                   60) \
    X(sweep_reduce_bcast,           240) \
    X(steps_estimate,               120) \
    X(mem_limit,                     10) \
    X(svg_escape_markup,             10) \
    X(svg_escape_controls,           10) \
    X(svg_escape_valid_utf8,         10) \
    X(svg_escape_noncharacters,      10) \
    X(svg_escape_bad_utf8,           10) \
    X(viz_tree_algo_spans,           10) \
    X(viz_tree_algo_exact,           10) \
    X(viz_tree_algo_described,       10) \
    X(viz_tree_algo_no_params,       10) \
    X(viz_schedule_one_op,           10) \
    X(viz_schedule_mean,             10) \
    X(viz_schedule_bad,              10) \
    X(viz_schedule_no_algo,          10) \
    X(viz_timemap_algo,              10) \
    X(bridge_algo,                   10) \
    /* gen: pathgen's shapes, inputs and initial trees (tests/unit/gen/, build helper) */ \
    X(gen_shape_eight,               10) \
    X(gen_shape_ten,                 10) \
    X(gen_shape_thirty,              10) \
    X(gen_shape_small,               10) \
    X(gen_shape_numbering,           10) \
    X(gen_shape_words,               10) \
    X(gen_input_simple,              10) \
    X(gen_input_multicluster,        10) \
    X(gen_input_fill_mixed,          10) \
    X(gen_input_fill_leftover,       10) \
    X(gen_build_sizes,               10) \
    X(gen_build_options,             10) \
    X(gen_build_header,              10) \
    X(gen_build_multicluster,        10)

#define TST_UNIT_DECLARE(name, timeout_s) void t_##name(void);
TST_UNIT_TESTS(TST_UNIT_DECLARE)
#undef TST_UNIT_DECLARE

#ifdef TST_LIST_TABLE
/* One line per test: name, kind, fn, cmd or checker, dir, ranks, timeout (s). */
static const tst_entry_t tst_list[] = {
    /* unit: every line of TST_UNIT_TESTS above */
#define TST_UNIT_ENTRY(name, timeout_s) { #name, TST_UNIT, t_##name, NULL, NULL, 0, timeout_s },
    TST_UNIT_TESTS(TST_UNIT_ENTRY)
#undef TST_UNIT_ENTRY

    /* mpi: tests/mpi/<name>.c is built as build/tests/<name> */
    { "mpi_launch_oversubscribed", TST_MPI, NULL, "sh -c 'test \"$OMPI_COMM_WORLD_SIZE\" = 3'", NULL, 3, 60 },
    /* mpi: Gsum on every scaled sample (each result checked in closed form), 4 B and 256 B */
    { "gsum_demo", TST_MPI, NULL, "bin/gsum -p pathmaps/demo.pathmap -n 2000 -w 10 -s 4,256", NULL, 2, 120 },
    /* 8 MiB through the ring, with the watchdog: also in check-tsan (docs/testing.md, "TSan and Open MPI's copies") */
    { "gsum_ring_4x1_8mib", TST_MPI, NULL, "bin/gsum -p pathmaps/local/algo/ring-4x1.pathmap -n 5 -w 1 -s 8388608 --watchdog 30", NULL, 4, 120 },
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
    { "gsum_pair_2x1", TST_MPI, NULL, "bin/gsum -p pathmaps/local/pair-2x1.pathmap -n 2000 -w 10 -s 4,256", NULL, 2, 120 },
    /* the PATHS model (one service thread per link), kept for comparison by --links services */
    { "gsum_demo_links_services", TST_MPI, NULL, "bin/gsum -p pathmaps/demo.pathmap --links services -n 2000 -w 10 -s 4,256", NULL, 2, 120 },
    { "gsum_flat_4x1", TST_MPI, NULL, "bin/gsum -p pathmaps/local/flat-4x1.pathmap -n 2000 -w 10 -s 4,256", NULL, 4, 120 },
    { "gsum_algo_binomial_reduce_binomial_bcast_3x1", TST_MPI, NULL, "bin/gsum -p pathmaps/local/algo/binomial-reduce-binomial-bcast-3x1.pathmap -n 300 -w 5 -s 4,12,256,4096", NULL, 3, 120 },
    { "gsum_algo_bintree_reduce_4x1", TST_MPI, NULL, "bin/gsum -p pathmaps/local/algo/bintree-reduce-4x1.pathmap -n 300 -w 5 -s 4,12,256,4096", NULL, 4, 120 },
    { "gsum_algo_chain_reduce_chain_bcast_2x2", TST_MPI, NULL, "bin/gsum -p pathmaps/local/algo/chain-reduce-chain-bcast-2x2.pathmap -n 300 -w 5 -s 4,12,256,4096", NULL, 2, 120 },
    { "gsum_algo_clv_binomial_bcast_4x2", TST_MPI, NULL, "bin/gsum -p pathmaps/local/algo/clv-binomial-bcast-4x2.pathmap -n 300 -w 5 -s 4,12,256,4096", NULL, 4, 120 },
    { "gsum_algo_clv_linear_2x2", TST_MPI, NULL, "bin/gsum -p pathmaps/local/algo/clv-linear-2x2.pathmap -n 300 -w 5 -s 4,12,256,4096", NULL, 2, 120 },
    { "gsum_algo_greedy_reduce_3x2", TST_MPI, NULL, "bin/gsum -p pathmaps/local/algo/greedy-reduce-3x2.pathmap -n 300 -w 5 -s 4,12,256,4096", NULL, 3, 120 },
    { "gsum_algo_nap_4x2", TST_MPI, NULL, "bin/gsum -p pathmaps/local/algo/nap-4x2.pathmap -n 300 -w 5 -s 4,12,256,4096", NULL, 4, 120 },
    { "gsum_algo_native_2x2", TST_MPI, NULL, "bin/gsum -p pathmaps/local/algo/native-2x2.pathmap -n 300 -w 5 -s 4,12,256,4096", NULL, 2, 120 },
    { "gsum_algo_prr_4x2", TST_MPI, NULL, "bin/gsum -p pathmaps/local/algo/prr-4x2.pathmap -n 300 -w 5 -s 4,12,256,4096", NULL, 4, 120 },
    { "gsum_algo_rabenseifner_4x2", TST_MPI, NULL, "bin/gsum -p pathmaps/local/algo/rabenseifner-4x2.pathmap -n 300 -w 5 -s 16,256,4096", NULL, 4, 120 },
    { "gsum_algo_rd_2x1", TST_MPI, NULL, "bin/gsum -p pathmaps/local/algo/rd-2x1.pathmap -n 300 -w 5 -s 4,12,256,4096", NULL, 2, 120 },
    { "gsum_algo_rd_4x2", TST_MPI, NULL, "bin/gsum -p pathmaps/local/algo/rd-4x2.pathmap -n 300 -w 5 -s 4,12,256,4096", NULL, 4, 120 },
    { "gsum_algo_ring_4x1", TST_MPI, NULL, "bin/gsum -p pathmaps/local/algo/ring-4x1.pathmap -n 300 -w 5 -s 4,12,256,4096", NULL, 4, 120 },
    { "gsum_algo_ring_seg_2x2", TST_MPI, NULL, "bin/gsum -p pathmaps/local/algo/ring-seg-2x2.pathmap -n 300 -w 5 -s 4,12,256,4096", NULL, 2, 120 },
    { "gsum_algo_slt_3x2", TST_MPI, NULL, "bin/gsum -p pathmaps/local/algo/slt-3x2.pathmap -n 300 -w 5 -s 4,12,256,4096", NULL, 3, 120 },
    { "gsum_algo_demo", TST_MPI, NULL, "bin/gsum -p pathmaps/algo-demo.pathmap -n 1000 -w 10 -s 4,256,65536", NULL, 2, 120 },
    { "algo_types_by_gsum", TST_SH, NULL, "sh tests/mpi/gsum-algo.sh", NULL, 0, 600 },
    /* examples/cg.c: three trees converge, an oracle of the test's own checks each answer,
       the traces load in papanalyze, bad options exit 2 (tests/mpi/cg.sh). */
    { "cg_example", TST_SH, NULL, "sh tests/mpi/cg.sh", NULL, 0, 300 },
    { "algo_precondition_by_gsum", TST_SH, NULL, "sh tests/mpi/gsum-algo-precondition.sh", NULL, 0, 120 },
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
    { "exec_thread_level", TST_MPI, NULL, "build/tests/exec_level pathmaps/local/pair-2x1.pathmap", NULL, 2, 60 },
    /* mpi: idle is idle (issue 16): a rank whose threads sleep outside the tree (A) or wait
       inside it for a sleeping host (B) uses < 1 % of a CPU over 3 s, --links threads;
       on demo host0's threads wait for host1's link, on pair-2x1 host1's for p1's reply.
       (`exec_idle PATHMAP services` prints the PATHS model's figures, for comparison.) */
    { "exec_idle_demo", TST_MPI | TST_EXCLUSIVE, NULL, "build/tests/exec_idle pathmaps/demo.pathmap threads", NULL, 2, 60 },
    { "exec_idle_pair_2x1", TST_MPI | TST_EXCLUSIVE, NULL, "build/tests/exec_idle pathmaps/local/pair-2x1.pathmap threads 0", NULL, 2, 60 },
    /* mpi: random trees (tests/randtree/randtree.h, up to 4 hosts, some with an algorithm node),
       one job each, every result against an MPI_Allreduce oracle and a closed form
       (docs/testing.md, "Random trees"); seed 10 found the MPI_T thread-level bug */
    { "random_trees_threads", TST_MPI, NULL, "build/tests/exec_random --seeds 1-500 --bytes 4,256 --ops 20", NULL, 4, 180 },
    { "random_trees_services", TST_MPI, NULL, "build/tests/exec_random --seeds 501-700 --bytes 4,256 --ops 20 --links services --instances 3", NULL, 4, 180 },
    { "random_trees_delays", TST_MPI, NULL, "build/tests/exec_random --seeds 701-850 --bytes 4,256 --ops 20 --delay-us 300", NULL, 4, 180 },
    { "random_trees_big", TST_MPI, NULL, "build/tests/exec_random --seeds 851-950 --bytes 256,1024,4096 --ops 10", NULL, 4, 180 },
    { "random_trees_tsan", TST_MPI, NULL, "build/tests/exec_random --seeds 1-40 --bytes 4,256 --ops 6 --delay-us 100", NULL, 4, 120 },
    /* mpi: the schedule executor (rt_algo_run.h): every algorithm of the table against
       MPI_Allreduce / MPI_Reduce / MPI_Bcast, counts 0..1 M, four types, three ops,
       several roots and arrival vectors (np 8 is oversubscribed here) */
    { "algo_run_np1", TST_MPI, NULL, "build/tests/algo_run --big", NULL, 1, 60 },
    { "algo_run_np2", TST_MPI, NULL, "build/tests/algo_run --big", NULL, 2, 60 },
    { "algo_run_np3", TST_MPI, NULL, "build/tests/algo_run --big", NULL, 3, 60 },
    { "algo_run_np4", TST_MPI, NULL, "build/tests/algo_run --big", NULL, 4, 60 },
    { "algo_run_np5", TST_MPI, NULL, "build/tests/algo_run --big", NULL, 5, 60 },
    { "algo_run_np8", TST_MPI | TST_EXCLUSIVE, NULL, "build/tests/algo_run --big", NULL, 8, 120 },
    /* mpi: the arrival estimator (arrival=edge, rt_exec_edge): PRR, SLT, clv+binomial-bcast,
       results in closed form, every op's source identical on all ranks, fallback naming the
       host without an estimate, misuse warned once, estimate error and lead bounded */
    { "exec_edge_np4", TST_MPI, NULL, "build/tests/exec_edge", NULL, 4, 60 },
    { "exec_edge_np2", TST_MPI, NULL, "build/tests/exec_edge", NULL, 2, 60 },
    /* mpi: the benchmark still runs and agrees with MPI_Allreduce (it aborts if not) */
    { "algobench_smoke", TST_MPI, NULL, "bin/algobench -a rabenseifner -s 4,16,40000 -r 1", NULL, 2, 60 },

    /* sh: scripts and end-to-end runs */
    { "papsim",                TST_SH, NULL, "sh tests/algo/papsim.sh",                NULL, 0, 120 },
    /* sh: papsim auto: the best static row with nobody late, prr with one host late */
    { "papsim_auto",           TST_SH, NULL, "sh tests/algo/papsim-auto.sh",           NULL, 0, 60 },
    { "netfit",                TST_SH, NULL, "sh tests/algo/netfit.sh",                NULL, 0, 120 },
    { "clvbench_limits",       TST_SH, NULL, "sh tests/algo/clvbench.sh",              NULL, 0, 120 },
    { "bench_args",            TST_SH, NULL, "sh tests/algo/bench-args.sh",            NULL, 0, 120 },
    { "pathmap_check_args",    TST_SH, NULL, "sh tests/pathmap/check-args.sh",         NULL, 0, 60 },
    { "paprun_args",           TST_SH, NULL, "sh tests/interpose/paprun-args.sh",      NULL, 0, 120 },
    /* sh: tests/mpiapps/'s programs (plain MPI, no paptree header) under bin/paprun: every
       collective x type x op x in place x communicator x count against Open MPI's PMPI_
       result, once per rule set covering each algorithm, at np 2, 3, 4; the trace's events
       against the calls made, the report; threads, MPI_Abort, no MPI_Finalize, signals, error
       handlers, small counts, Fortran (use mpi, use mpi_f08) (issue 25) */
    { "app_coll_matrix_np2",   TST_SH, NULL, "sh tests/interpose/coll-matrix.sh 2",    NULL, 0, 300 },
    { "app_coll_matrix_np3",   TST_SH, NULL, "sh tests/interpose/coll-matrix.sh 3",    NULL, 0, 300 },
    { "app_coll_matrix_np4",   TST_SH, NULL, "sh tests/interpose/coll-matrix.sh 4",    NULL, 0, 300 },
    { "app_coll_matrix_trace", TST_SH, NULL, "sh tests/interpose/coll-matrix-trace.sh", NULL, 0, 180 },
    { "app_small_count",       TST_SH, NULL, "sh tests/interpose/small-count.sh",      NULL, 0, 120 },
    { "app_nonblocking",       TST_SH, NULL, "sh tests/interpose/nonblocking.sh",      NULL, 0, 120 },
    { "app_threads",           TST_SH, NULL, "sh tests/interpose/threads.sh",          NULL, 0, 180 },
    { "app_errhandler",        TST_SH, NULL, "sh tests/interpose/errhandler.sh",       NULL, 0, 120 },
    { "app_fortran",           TST_SH, NULL, "sh tests/interpose/fortran.sh",          NULL, 0, 180 },
    /* auto rules (issue 26): choices, results, report, trace; ranks that disagree */
    { "app_auto_np3",          TST_SH, NULL, "sh tests/interpose/auto.sh 3",           NULL, 0, 240 },
    { "app_auto_np4",          TST_SH, NULL, "sh tests/interpose/auto.sh 4",           NULL, 0, 240 },
    /* exclusive: it signals mpirun and the ranks while they loop, and times their end */
    { "app_cut_short",         TST_SH | TST_EXCLUSIVE, NULL, "sh tests/interpose/cut-short.sh", NULL, 0, 180 },
    /* gen: pathgen compare (tests/pathgen/) */
    { "pathgen_compare",       TST_SH, NULL, "sh tests/pathgen/compare.sh",            NULL, 0, 60 },
    { "pathgen_edit",          TST_SH, NULL, "sh tests/pathgen/edit.sh",               NULL, 0, 60 },
    { "check_layers",          TST_SH, NULL, "sh scripts/check-layers.sh",             NULL, 0, 60 },
    { "check_layers_selftest", TST_SH, NULL, "sh scripts/check-layers.sh --self-test", NULL, 0, 60 },
    { "build_header_deps",     TST_SH, NULL, "sh tests/infra/header-deps.sh",          NULL, 0, 300 },
    { "runner_select",         TST_SH, NULL, "sh tests/infra/runner-select.sh",        NULL, 0, 60 },
    { "runner_first",          TST_SH, NULL, "sh tests/infra/runner-first.sh",         NULL, 0, 60 },
    { "mpirun_line",           TST_SH, NULL, "sh tests/infra/mpirun-line.sh",          NULL, 0, 60 },
    { "mpi_job_errors",        TST_SH, NULL, "sh tests/mpi/job-errors.sh",             NULL, 0, 180 },
    { "gsum_args",             TST_SH, NULL, "sh tests/mpi/gsum-args.sh",              NULL, 0, 180 },
    { "gsum_mpmd",             TST_SH, NULL, "sh tests/mpi/gsum-mpmd.sh",              NULL, 0, 300 },
    { "gsum_wrong_result",     TST_SH, NULL, "sh tests/mpi/gsum-wrong-result.sh",      NULL, 0, 300 },
    { "gsum_memory",           TST_SH, NULL, "sh tests/mpi/gsum-memory.sh",            NULL, 0, 300 },
    { "gsum_output",           TST_SH, NULL, "sh tests/mpi/gsum-output.sh",            NULL, 0, 60 },
    { "trace_archive",         TST_SH, NULL, "sh tests/mpi/trace-archive.sh",          NULL, 0, 240 },
    { "trace_errors",          TST_SH, NULL, "sh tests/mpi/trace-errors.sh",           NULL, 0, 300 },
    { "trace_interrupt",       TST_SH | TST_EXCLUSIVE, NULL, "sh tests/mpi/trace-interrupt.sh",        NULL, 0, 180 },
    { "trace_big_pathmap",     TST_SH, NULL, "sh tests/mpi/trace-big-pathmap.sh",      NULL, 0, 180 },
    { "trace_wide_gred",       TST_SH, NULL, "sh tests/mpi/trace-wide-gred.sh",        NULL, 0, 300 },
    { "trace_links",           TST_SH, NULL, "sh tests/mpi/trace-links.sh",            NULL, 0, 300 },
    { "trace_algo",            TST_SH, NULL, "sh tests/mpi/trace-algo.sh",             NULL, 0, 120 },
    { "trace_algo_samples",    TST_SH, NULL, "sh tests/mpi/trace-algo-samples.sh",     NULL, 0, 300 },
    /* sh: lib/libpaptree-mpi.so preloaded into a plain MPI program, its allreduce, reduce,
       bcast and iallreduce results against PMPI_ at np 2 and 4 (pass-through, rd/binomial,
       rabenseifner's count fallback), a bad PAPTREE_ALGO, ranks with different rules */
    { "ip_smoke",              TST_SH, NULL, "sh tests/mpi/ip-smoke.sh",               NULL, 0, 240 },
    /* sh: the application-trace writer (ins_mpi.h) read back with otf2-print: known calls,
       communicators, threads with flushes, an existing directory, abandon (issue 25) */
    { "trace_mpi_app",         TST_SH, NULL, "sh tests/mpi/ins-mpi-trace.sh",          NULL, 0, 180 },
    { "trace_mpi_auto",        TST_SH, NULL, "sh tests/mpi/ins-mpi-auto.sh",           NULL, 0, 120 },
    /* sh: gsum with an auto pathmap traced: one paptree::auto record per operation per algorithm location, by otf2-print */
    { "trace_auto",            TST_SH, NULL, "sh tests/mpi/trace-auto.sh",             NULL, 0, 120 },
    /* sh: auto over MPI: agreement, disagreements named, gsum traced -> trace_check,
       papanalyze, papviz; papbench; PAPTREE_NET differing (issue 26) */
    { "auto_mpi",              TST_SH, NULL, "sh tests/mpi/auto-agree.sh",             NULL, 0, 240 },
    /* sh: paprun --report's table (interpose/ip_report.c) from known calls on 3 ranks, from
       2 threads at once, with no calls, at a site in libc, checked line for line; sites
       named with and without addr2line */
    { "ip_report",             TST_SH, NULL, "sh tests/mpi/ip-report.sh",              NULL, 0, 120 },
    /* sh: bin/papbench (Proficz 2018 Fig. 9): every algorithm and source checked against
       MPI_Allreduce at np 3-4, tables and CSV, a planted wrong element, refused pathmaps,
       --trace through papanalyze, bad options; about 20 s, 9 mpirun launches */
    { "papbench",              TST_SH, NULL, "sh tests/mpi/papbench.sh",               NULL, 0, 300 },
    /* sh: bin/sweep (issue 18): a traced sweep of two local pathmaps (the table, CSV,
       interleaved order), --vary/--analyze and --follow-advice through a fake pathgen;
       usage errors, bad pathmaps; about 15 s, ~20 mpirun launches */
    { "pathgen_sweep",           TST_SH | TST_EXCLUSIVE, NULL, "sh tests/pathgen/sweep.sh", NULL, 0, 120 },
    /* sh: the benchmarks' option errors (gredbench, tracebench, otf2-readbench) */
    { "bench_options",         TST_SH, NULL, "sh tests/bench/options.sh", NULL, 0, 60 },
    { "bench_compare_native_label", TST_SH, NULL, "sh tests/bench/compare-native-label.sh", NULL, 0, 30 },
    /* sh: issue 25's benchmarks (bin/mpicall, bench/paprun-*.sh): options, run order, table arithmetic */
    { "bench_paprun_scripts", TST_SH, NULL, "sh tests/bench/paprun-scripts.sh", NULL, 0, 120 },
    /* sh: bench/auto-papbench.sh -t, the table of issue 26's goals from a hand-written CSV */
    { "bench_auto_table",     TST_SH, NULL, "sh tests/bench/auto-papbench-table.sh", NULL, 0, 30 },
    /* pathgen, sweep --follow-advice, gsum, papanalyze and pathgen advise together (tests/pathgen/follow.sh) */
    { "pathgen_follow_advice", TST_SH | TST_EXCLUSIVE, NULL, "sh tests/pathgen/follow.sh", NULL, 0, 120 },
    { "random_trees_traced",   TST_SH, NULL, "sh tests/mpi/random-trees-traced.sh 951 990", NULL, 0, 300 },
    { "randtree_pathmap_check", TST_SH, NULL, "sh tests/randtree/randtree-check.sh 200",    NULL, 0, 120 },
    { "mpi_watchdog",          TST_SH | TST_EXCLUSIVE, NULL, "sh tests/mpi/watchdog.sh",               NULL, 0, 180 },
    { "mpi_netns_tcp",         TST_SH | TST_EXCLUSIVE, NULL, "sh tests/mpi/netns-tcp.sh",              NULL, 0, 300 },
    { "otf2_empty_location",   TST_SH, NULL, "sh tests/otf2/empty-location.sh",        NULL, 0, 60 },
    { "analyze_schema_version", TST_SH, NULL, "sh tests/analyze/schema-version.sh",  NULL, 0, 60 },
    { "analyze_synthetic",     TST_SH, NULL, "sh tests/analyze/synthetic.sh",          NULL, 0, 120 },
    { "analyze_algo",          TST_SH, NULL, "sh tests/analyze/algo.sh",               NULL, 0, 120 },
    { "analyze_arrivals",      TST_SH, NULL, "sh tests/analyze/arrivals.sh",           NULL, 0, 180 },
    { "analyze_gsum",          TST_SH, NULL, "sh tests/analyze/gsum-analyze.sh",       NULL, 0, 300 },
    { "analyze_part",          TST_SH, NULL, "sh tests/analyze/part.sh",               NULL, 0, 300 },
    { "analyze_mpi_part",      TST_SH, NULL, "sh tests/analyze/mpi-part.sh",           NULL, 0, 120 },
    /* advice (issue 18): synthetic traces by hand, the command lines, 3 Gsum runs */
    { "analyze_advise",        TST_SH, NULL, "sh tests/analyze/advise.sh",             NULL, 0, 180 },
    { "analyze_bad_input",     TST_SH, NULL, "sh tests/analyze/bad-input.sh",          NULL, 0, 600 },
    /* a damaged anchor: refused after a check in a child process (issue 24) */
    { "analyze_anchor",        TST_SH, NULL, "sh tests/analyze/anchor.sh",             NULL, 0, 120 },
    /* application traces (issue 25): hand-timed synth_mpi archives, symbols, damage, chart */
    { "analyze_mpi",           TST_SH, NULL, "sh tests/analyze/mpi.sh",                NULL, 0, 120 },
    /* sh: auto's choices from hand-made records: auto_ops, auto_preds, the report, --baseline (issue 26) */
    { "analyze_auto",          TST_SH, NULL, "sh tests/analyze/auto.sh",               NULL, 0, 120 },
    { "viz",                   TST_SH, NULL, "sh tests/viz/viz.sh",                    NULL, 0, 300 },
    /* sh: papviz timeline's JSON: the outside checker on hand-written files, then real
     * traces' timelines against it and otf2-print (issue 27, docs/timeline.md) */
    { "viz_timeline_checker",  TST_SH, NULL, "sh tests/viz/timeline-checker.sh",       NULL, 0, 60 },
    { "viz_timeline",          TST_SH, NULL, "sh tests/viz/timeline.sh",               NULL, 0, 300 },
    { "e2e_readme",            TST_SH, NULL, "sh tests/e2e/readme.sh",                 NULL, 0, 300 },
    { "fuzz_replay",           TST_SH, NULL, "sh tests/fuzz/replay.sh",                NULL, 0, 120 },
    { "pathgen_regen",         TST_SH, NULL, "sh tests/pathgen/regen.sh",              NULL, 0, 60 },
    { "pathgen_manifest",      TST_SH, NULL, "sh tests/pathgen/manifest.sh",           NULL, 0, 60 },
    { "pathgen_generate_args", TST_SH, NULL, "sh tests/pathgen/generate-args.sh",      NULL, 0, 60 },

    /* corpus: bad pathmaps, each with the exact message expected */
    { "pathmap_bad",      TST_CORPUS, NULL, "bin/pathmap-check",        "tests/pathmap/bad", 0, 10 },
    { "pathmap_bad_asan", TST_CORPUS, NULL, "build/asan/pathmap-check", "tests/pathmap/bad", 0, 20 },
    /* corpus: bad pathgen mapping files (tests/pathgen/bad-one.sh puts each in its place) */
    { "pathgen_bad_input", TST_CORPUS, NULL, "sh tests/pathgen/bad-one.sh", "tests/pathgen/bad-input", 0, 10 },
    /* good: every pathmap shipped must validate */
    { "pathmap_good",     TST_GOOD,   NULL, "bin/pathmap-check",        "pathmaps",          0, 10 },
    { "pathmap_good_examples", TST_GOOD, NULL, "bin/pathmap-check",   "examples",          0, 10 },
    { "test_pathmaps_good", TST_GOOD, NULL, "bin/pathmap-check",        "tests/pathmap/good", 0, 10 },
};
#endif /* TST_LIST_TABLE */

#endif /* TST_TEST_LIST_H */
