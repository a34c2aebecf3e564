/*
 * pap_common.c - arrival order for slt.c and prr.c (pap_int.h).
 *
 * Both algorithms relabel the processes by arrival time before they do
 * anything else.  The ids must come out identical on every process, so the
 * order is total (ties by rank) and uses the integer tick times only.
 */
#include <stdlib.h>

#include "runtime/algo/pap_int.h"

cm_status_t rt__pap_order(const rt_algo_params_t *p, int32_t *order,
                          int32_t *id_of, const char *algo, cm_err_t *err)
{
    int32_t np = p->nranks;
    rt_time_rank_t *key;

    if (p->arrival == NULL) {
        for (int32_t r = 0; r < np; r++) {
            order[r] = r;
            if (id_of)
                id_of[r] = r;
        }
        return CM_OK;
    }
    key = malloc((size_t)np * sizeof *key);
    if (key == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "%s: no memory to sort %d arrival "
                      "times", algo, (int)np);
    for (int32_t r = 0; r < np; r++)
        key[r] = (rt_time_rank_t){ p->arrival[r], r };
    qsort(key, (size_t)np, sizeof *key, rt_time_rank_cmp);
    for (int32_t id = 0; id < np; id++) {
        order[id] = key[id].rank;
        if (id_of)
            id_of[key[id].rank] = id;
    }
    free(key);
    return CM_OK;
}
