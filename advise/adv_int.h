/*
 * adv_int.h - the advice's private parts, shared by its two files:
 *
 *   adv_rules.c   the rules, on a model (an_model.h) of one tuple size and
 *                 its arrival figures (an_arrivals.h): what fires, its edit,
 *                 gain and reason
 *   adv_advise.c  the model and figures of a database, merging the sizes,
 *                 ranking, printing
 *
 * The rules see only the model and the figures, so a unit test can hand
 * them a tree built in memory (tests/unit/advise/t_advise.c).  Thresholds
 * and their reasons: docs/pathgen.md, "Advice".
 */
#ifndef ADV_INT_H
#define ADV_INT_H

#include "analyze/api/an_arrivals.h"
#include "analyze/api/an_model.h"
#include "advise/api/adv_advise.h"

/* A hotspot is worth an edit when it accounts for at least this share of the
 * slowest thread's time per allreduce. */
#define ADV_SHARE      0.10
/* Proxy stages "dominate" (an algorithm node across) from this share. */
#define ADV_PROXY      0.40
/* A host "arrives last in most operations" from this fraction. */
#define ADV_LAST       0.75

/* A growing list of advice. */
typedef struct adv_list {
    adv_advice_t *a;
    int           n, cap;
} adv_list_t;

/*
 * Runs every rule on size sz of model m and appends what fires to out (not
 * ranked).  arr: the size's arrival figures, NULL when unknown (rules 7 and
 * 8 are skipped; rule 8 also when its per-wrapper or per-thread arrays are
 * NULL).  suffix is appended to each reason ("" or " (256-byte tuples)").
 * CM_ERR_NOMEM only (and CM_ERR_RANGE for a name too long for an edit).
 */
cm_status_t adv__rules(const an_model_t *m, const an_model_size_t *sz,
                       const an_arrivals_t *arr, const char *suffix, adv_list_t *out,
                       cm_err_t *err);

/* Sorts by gain (largest first; ties by rule, then edit text) and numbers
 * 1..n. */
void adv__rank(adv_list_t *l);

#endif /* ADV_INT_H */
