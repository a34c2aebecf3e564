/*
 * algo_int.h - the generators of runtime/algo, for the table (algo_table.c) and
 * the unit tests.  Users go through rt_algo_find() in rt_sched.h, and the
 * tools reach the schedule sizes and memory limit through rt_algo.h.
 *
 * Every generator has the rt_algo_gen_fn signature: it fills a schedule that
 * the caller initialised with rt_sched_init, for all ranks (rank == -1) or
 * one rank, calls rt_sched_finish, and returns CM_OK; or returns
 * CM_ERR_INVALID / CM_ERR_UNSUPPORTED with a message in err (no fallback to
 * another algorithm).  Each file opens with a worked example and its
 * limitations.
 */
#ifndef RT_ALGO_INT_H
#define RT_ALGO_INT_H

#include "runtime/api/rt_algo.h"
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
   Ocetkiewicz 2020); the paper's segment tree is kept with the tests as the
   reference they hold clv equal to (tests/unit/algo/clv_tree.c) */
rt_algo_gen_fn rt_algo_clv_linear;      /* "clv-linear": literal linear search */
rt_algo_gen_fn rt_algo_clv;             /* "clv": bit rows per segment, section 5's rules */

#endif /* RT_ALGO_INT_H */
