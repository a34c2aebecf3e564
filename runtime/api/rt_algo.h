/*
 * rt_algo.h - what the programs that generate schedules without running
 * them (bin/papsim, bin/schedgen, bin/clvbench) need beyond rt_sched.h: the
 * size of a schedule before it is made and the tools' memory limit.
 *
 * Pure functions of runtime/algo (algo_size.c): no MPI, no
 * shared state; safe from any thread.  The generators themselves are
 * reached through rt_algo_find() (rt_sched.h); runtime/algo/algo_int.h is
 * for runtime/algo's own files and the unit tests.
 */
#ifndef RT_ALGO_H
#define RT_ALGO_H

#include "runtime/api/rt_sched.h"

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
