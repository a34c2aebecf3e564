/*
 * pap_common.c - arrival order for slt.c and prr.c (pap_int.h).
 *
 * Both algorithms relabel the processes by arrival time before they do
 * anything else.  The ids must come out identical on every process, so the
 * order is total (ties by rank) and uses the integer tick times only.
 */
#include <stdlib.h>

#include "pap_int.h"

typedef struct pap_key {
    int64_t a;
    int32_t rank;
} pap_key_t;

static int pap_key_cmp(const void *x, const void *y)
{
    const pap_key_t *u = x, *v = y;

    if (u->a != v->a)
        return u->a < v->a ? -1 : 1;
    return (u->rank > v->rank) - (u->rank < v->rank);
}

cm_status_t rt__pap_order(const rt_algo_params_t *p, int32_t *order,
                          int32_t *id_of, const char *algo, cm_err_t *err)
{
    int32_t np = p->nranks;
    pap_key_t *key;

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
        key[r] = (pap_key_t){ p->arrival[r], r };
    qsort(key, (size_t)np, sizeof *key, pap_key_cmp);
    for (int32_t id = 0; id < np; id++) {
        order[id] = key[id].rank;
        if (id_of)
            id_of[key[id].rank] = id;
    }
    free(key);
    return CM_OK;
}
