/*
 * clv_common.c - parameter checks and the partition shared by the three
 * Clairvoyant generators (clv_linear.c has the rules, clv_rows.c the fast
 * version, and tests/unit/algo/clv_tree.c the paper's segment tree, the
 * tests' reference).  All must reject
 * exactly the same requests, so they share this code.
 */
#include <stdlib.h>
#include "runtime/algo/clv_int.h"

cm_status_t rt__clv_begin(rt_sched_t *s, const rt_algo_params_t *p,
                          int32_t rank, const char *name, int32_t *nsegs_p,
                          cm_err_t *err)
{
    int64_t *off = NULL;
    int32_t nseg;
    cm_status_t st = rt_algo_check_common(p, rank, name, err);

    if (st != CM_OK)
        return st;
    /* d = 0 would put every process in every round's group forever: the
       rounds would never advance the clock.  There is no default. */
    if (p->round_len <= 0)
        return CM_ERR(err, CM_ERR_INVALID,
                      "%s: round length (round_len) must be > 0 ticks, got "
                      "%lld", name, (long long)p->round_len);
    nseg = rt_part_segments(p, &off, err);
    if (nseg < 0)
        return (cm_status_t)nseg;
    st = rt_sched_begin(s, name, RT_COLL_REDUCE, RT_PORT_B, p, rank, nseg,
                        off, err);
    free(off);
    /* Every non-root process sends each segment at least once: 2(P-1)N
       steps at least, reserved at once instead of by doubling. */
    if (st == CM_OK && rank < 0 &&
        rt_sched_reserve(s, 2 * (size_t)(p->nranks - 1) * (size_t)nseg) !=
            CM_OK)
        st = CM_ERR(err, CM_ERR_NOMEM, "%s: out of memory", name);
    if (st == CM_OK)
        *nsegs_p = nseg;
    return st;
}
