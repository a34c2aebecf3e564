/*
 * algo.h - the generators of runtime/algo, for the table (algo_table.c) and
 * the unit tests.  Users go through rt_algo_find() in rt_sched.h.
 *
 * Every generator has the rt_algo_gen_fn signature: it fills a schedule that
 * the caller initialised with rt_sched_init, for all ranks (rank == -1) or
 * one rank, calls rt_sched_finish, and returns CM_OK; or returns
 * CM_ERR_INVALID / CM_ERR_UNSUPPORTED with a message in err (no fallback to
 * another algorithm).  Each file opens with a worked example and its
 * limitations.
 */
#ifndef RT_ALGO_H
#define RT_ALGO_H

#include "runtime/api/rt_sched.h"

/* Virtual ranks of rooted algorithms (docs/algorithms.md, Conventions). */
static inline int32_t rt_vrank(int32_t rank, int32_t root, int32_t p)
{
    return (rank - root + p) % p;
}
static inline int32_t rt_real(int32_t vrank, int32_t root, int32_t p)
{
    return (vrank + root) % p;
}

/* A time and a rank, ordered by time then rank: the arrival or
   availability order of the PAP-aware generators (qsort comparator). */
typedef struct rt_time_rank {
    int64_t t;
    int32_t rank;
} rt_time_rank_t;

int rt_time_rank_cmp(const void *a, const void *b);

/*
 * Checks the fields every generator needs (nranks >= 1, count >= 0, root in
 * range, rank -1 or in range, arrival times >= 0 when given, not both nsegs
 * and segcount).  CM_ERR_INVALID with a message otherwise.
 */
cm_status_t rt_algo_check_common(const rt_algo_params_t *p, int32_t rank,
                                 const char *algo, cm_err_t *err);

/* allreduce: ring.c */
rt_algo_gen_fn rt_algo_ring;            /* "ring": Open MPI ring, EL blocks */
rt_algo_gen_fn rt_algo_ring_seg;        /* "ring-seg": Open MPI segmented ring */
/* allreduce: rdouble.c, rabenseifner.c */
rt_algo_gen_fn rt_algo_rd;              /* "rd": recursive doubling, any P */
rt_algo_gen_fn rt_algo_rabenseifner;    /* "rabenseifner": paper/Open MPI variant */
/* allreduce, PAP-aware: slt.c, prr.c (Proficz 2018) */
rt_algo_gen_fn rt_algo_slt;             /* "slt": sorted linear tree */
rt_algo_gen_fn rt_algo_prr;             /* "prr": pre-reduced ring */
/* allreduce, node-aware: nap.c (Bienz, Olson, Gropp) */
rt_algo_gen_fn rt_algo_nap;             /* "nap" */
/* reduce and broadcast: binomial.c, chain.c, bintree.c, greedy.c */
rt_algo_gen_fn rt_algo_binomial_reduce; /* "binomial-reduce" */
rt_algo_gen_fn rt_algo_binomial_bcast;  /* "binomial-bcast" */
rt_algo_gen_fn rt_algo_chain_reduce;    /* "chain-reduce": pipelined chain */
rt_algo_gen_fn rt_algo_chain_bcast;     /* "chain-bcast": pipelined chain */
rt_algo_gen_fn rt_algo_bintree_reduce;  /* "bintree-reduce": pipelined binary tree */
rt_algo_gen_fn rt_algo_greedy_reduce;   /* "greedy-reduce": Lowery-Langou (U) */
/* reduce, PAP-aware: clv_linear.c, clv_rows.c (Marendic et al.; Proficz &
   Ocetkiewicz 2020); the paper's segment tree, clv_tree.c, is kept as the
   reference the tests hold clv equal to (clv_int.h) */
rt_algo_gen_fn rt_algo_clv_linear;      /* "clv-linear": literal linear search */
rt_algo_gen_fn rt_algo_clv;             /* "clv": bit rows per segment, section 5's rules */

/*
 * The steps generator `a` will make for all ranks of p, computed without
 * generating (algo_size.c, with each formula): an upper bound for every
 * row of the table, for the tools to check against their memory limit
 * (16 bytes a step) before they allocate.  0 for P <= 1.  Pure; a double,
 * so that no product overflows.
 */
double rt_algo_steps_estimate(const rt_algo_info_t *a, const rt_algo_params_t *p);

/* The tools' memory limit for a schedule (algo_size.c). */
#define RT_MEM_MAX (INT64_C(1) << 62)
/* Half the machine's physical memory in bytes, or INFINITY if unknown. */
double rt_algo_mem_default(void);
/* CM_OK if steps * per_step bytes fit in limit; else CM_ERR_NOMEM with
   "WHAT would take about 4.00 GiB (N steps of 16 bytes): over the memory
   limit of 1.00 GiB" and `hint` (may be NULL) after it. */
cm_status_t rt_algo_mem_check(const char *what, double steps, double per_step, double limit,
                              const char *hint, cm_err_t *err);

#endif /* RT_ALGO_H */
