/*
 * an_arrivals.h - who arrives last: the figures of a database beyond
 * analyze's model (an_model.h) that the advice's rules 7 (root) and 8
 * (move) weigh (advise/, docs/pathgen.md "Advice").  Plain numbers read with
 * SQL here, so that the rules, above analyze, need none.
 *
 * Per tuple size of the model, over its used operations:
 *   per host      in what fraction of them its last thread arrived last of
 *                 all hosts, and the means of that thread's arrival a and
 *                 departure f after the operation's first arrival (pap_hosts);
 *   per wrapper   the contributor that arrived last at a gred in the most
 *                 operations (orders), that fraction, and the mean arrival
 *                 wait of its other contributors (stats, scope contributor);
 *   per thread    the means of a and f (pap_threads).
 */
#ifndef AN_ARRIVALS_H
#define AN_ARRIVALS_H

#include <stdint.h>
#include "common/cm_err.h"
#include "analyze/api/an_model.h"

/* The figures of one tuple size.  Arrays indexed like the model's tree:
 * hosts (tree.hosts), wrappers (node), threads (tree.threads).  Times in ns;
 * 0 where there is nothing to average (a host without threads). */
typedef struct an_arrivals {
    int64_t bytes;       /* the tuple size */
    double *last;        /* per host: fraction of operations it arrived last (ties count for each) */
    double *arrival;     /* per host: mean a of its last thread */
    double *departure;   /* per host: mean f of its last thread */
    /* per wrapper: lastc[n] the contributor, in the database's numbering
     * (child wrappers in node order, then threads by number), that arrived
     * last at gred n in the most operations (orders: arrival = fan-in; ties:
     * the smaller), -1 for none; lastf[n] that fraction; owait[n] the mean
     * arrival wait of n's other contributors */
    int    *lastc;
    double *lastf;
    double *owait;
    double *ta;          /* per thread: mean a */
    double *tf;          /* per thread: mean f */
} an_arrivals_t;

/*
 * Reads the figures of every tuple size of m (an_model_open of the same
 * database) into *arr_p: m->nsizes of them, in the order of m->sizes;
 * caller frees with an_arrivals_free.  CM_ERR_IO naming the database and the
 * table on a failed query, CM_ERR_NOMEM.  *arr_p is set only on success.
 */
cm_status_t an_arrivals_read(const char *db, const an_model_t *m, an_arrivals_t **arr_p,
                             cm_err_t *err);

/* Frees what an_arrivals_read made (n: its m->nsizes); NULL allowed. */
void an_arrivals_free(an_arrivals_t *arr, int n);

#endif /* AN_ARRIVALS_H */
