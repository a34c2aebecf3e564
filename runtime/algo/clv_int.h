/*
 * clv_int.h - what the Clairvoyant generators share (clv_linear.c, the
 * literal version, clv_rows.c, the default "clv", and the paper's segment
 * tree, tests/unit/algo/clv_tree.c, the reference kept with the tests):
 * the parameter checks, the idle-round rule and the test hook of the
 * linear version.
 * The rules themselves are written out once, in clv_linear.c's header.
 */
#ifndef RT_CLV_INT_H
#define RT_CLV_INT_H

#include "runtime/algo/algo_int.h"

/*
 * Checks p for a Clairvoyant generator `name` (the common checks, then
 * round_len > 0), cuts the vector into the N pipeline segments and begins
 * `s` (reduce, port B, one piece per segment).  Sets *nsegs_p to N.
 */
cm_status_t rt__clv_begin(rt_sched_t *s, const rt_algo_params_t *p,
                          int32_t rank, const char *name, int32_t *nsegs_p,
                          cm_err_t *err);

/*
 * Idle-round skipping (paper 5.1).  G holds only the sink, available at
 * `sink`; the next process is available at `next` > sink + d.  A plain
 * round would add d to the sink and find G = {sink} again while
 * next > sink + d still holds, so the plain loop runs exactly the smallest
 * k >= 1 idle rounds with next <= sink + k*d + d, that is
 * k = ceil((next - sink - d) / d) = floor((next - sink - 1) / d).
 * After them the sink (at sink + k*d < next) is still the first process.
 */
static inline int64_t rt__clv_idle_rounds(int64_t sink, int64_t next,
                                          int64_t d)
{
    return (next - sink - 1) / d;
}

/* The largest round number a schedule step may carry (nrounds is int32). */
#define RT_CLV_ROUND_MAX ((int64_t)INT32_MAX - 1)

/*
 * The linear generator with idle-round skipping switched off when
 * skip_idle == 0 (every idle round is iterated): the same schedule, for the
 * tests that check the skipping rule.
 */
cm_status_t rt__clv_linear_gen(rt_sched_t *s, const rt_algo_params_t *p,
                               int32_t rank, int skip_idle, cm_err_t *err);

#endif /* RT_CLV_INT_H */
