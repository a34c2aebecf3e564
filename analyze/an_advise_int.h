/*
 * an_advise_int.h - the advice's private parts, shared by its two files:
 *
 *   an_advise_rules.c  the rules, on a model (an_model.h) of one tuple
 *                      size: what fires, its edit, gain and reason
 *   an_advise.c        opening the database, the per-host last arrivals
 *                      (SQL), merging the sizes, ranking, printing
 *
 * The rules see only the model and the figures of an_adv_hosts_t, so a unit
 * test can hand them a tree built in memory (tests/unit/analyze/t_advise.c).
 * Thresholds and their reasons: docs/pathgen.md, "Advice".
 */
#ifndef AN_ADVISE_INT_H
#define AN_ADVISE_INT_H

#include "analyze/api/an_analyze.h"
#include "analyze/api/an_model.h"

/* A hotspot is worth an edit when it accounts for at least this share of the
 * slowest thread's time per allreduce. */
#define AN_ADV_SHARE      0.10
/* Proxy stages "dominate" (an algorithm node across) from this share. */
#define AN_ADV_PROXY      0.40
/* A host "arrives last in most operations" from this fraction. */
#define AN_ADV_LAST       0.75

/* A growing list of advice. */
typedef struct an_adv_list {
    an_advice_t *a;
    int          n, cap;
} an_adv_list_t;

/* Per host, over the used operations of one tuple size (pap_hosts):
 * last[h] the fraction in which host h's last thread arrived last of all
 * hosts (ties count for each), arrival[h] and departure[h] the means of a
 * and f (its last thread's arrival and departure after the operation's
 * first arrival, ns); all 0 for a host without threads. */
typedef struct an_adv_hosts {
    const double *last;
    const double *arrival;
    const double *departure;
    /* Per wrapper (index = node), for the move rule; NULL: unknown (the
     * rule is skipped).  lastc[n]: the contributor (the database's
     * numbering: child wrappers in node order, then threads by number)
     * that arrived last in the most used operations (orders: arrival =
     * fan-in), -1 for none; lastf[n] that fraction; owait[n] the mean
     * arrival wait of n's other contributors (stats scope contributor). */
    const int    *lastc;
    const double *lastf;
    const double *owait;
    /* Per thread (index = tree.threads), the means of a and f over the used
     * operations (pap_threads): the loop's echo of the move rule. */
    const double *ta;
    const double *tf;
} an_adv_hosts_t;

/*
 * Runs every rule on size sz of model m and appends what fires to out (not
 * ranked).  hosts: NULL when unknown (the root rule is skipped).  suffix is
 * appended to each reason ("" or " (256-byte tuples)").  CM_ERR_NOMEM only.
 */
cm_status_t an__advise_rules(const an_model_t *m, const an_model_size_t *sz,
                             const an_adv_hosts_t *hosts, const char *suffix,
                             an_adv_list_t *out, cm_err_t *err);

/* Sorts by gain (largest first; ties by rule, then edit) and numbers 1..n. */
void an__advise_rank(an_adv_list_t *l);

#endif /* AN_ADVISE_INT_H */
