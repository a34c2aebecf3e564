/*
 * pap_int.h - what the PAP-aware allreduces of Proficz 2018 (slt.c, prr.c)
 * share: the processes' order by arrival time.
 */
#ifndef RT_PAP_INT_H
#define RT_PAP_INT_H

#include "runtime/algo/algo_int.h"

/*
 * Sorted ids (Proficz's "new process rank after sorting according to
 * arrival times"): the id of a rank is its position in the order of
 * p->arrival, ties broken by the smaller rank, so the order is total and
 * every process computes the same one; arrival NULL gives id = rank.
 * Fills order[id] = rank and, when id_of is not NULL, id_of[rank] = id
 * (both p->nranks entries, caller-allocated).  Sorting costs
 * O(P log P).  CM_ERR_NOMEM (with err set) is the only failure.
 */
cm_status_t rt__pap_order(const rt_algo_params_t *p, int32_t *order,
                          int32_t *id_of, const char *algo, cm_err_t *err);

#endif /* RT_PAP_INT_H */
