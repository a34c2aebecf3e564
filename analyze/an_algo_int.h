/*
 * an_algo_int.h - an algorithm node's operations (an_algo.c): what an_ops.c
 * hands over and when.  Nothing outside analyze/an_ops*.c and an_algo.c
 * includes it.
 */
#ifndef AN_ALGO_INT_H
#define AN_ALGO_INT_H

#include "analyze/an_int.h"
#include "analyze/an_ops_int.h"

typedef struct an_algo an_algo_t;

/* For a tree whose root is an algorithm node (d->algo >= 0). */
cm_status_t an__algo_create(const an_defs_t *d, an_db_t *db, an_algo_t **out);
/* A point-to-point event on an algorithm location. */
cm_status_t an__algo_msg(an_algo_t *a, const an_msg_t *m, cm_err_t *err);
/* A visit of the algorithm node; used: the operation is in the statistics,
 * whose tuple size's group g gets the transfer times of its messages of the
 * tuple's size (p2p).  The operation's rows are buffered once every rank's
 * visit is in. */
cm_status_t an__algo_visit(an_algo_t *a, const an_visit_t *v, int used, an_group_t *g,
                           cm_err_t *err);
/* Writes the buffered rows (an_db_sync first). */
cm_status_t an__algo_flush(an_algo_t *a);
/* After the last event: fails on operations left incomplete; flushes. */
cm_status_t an__algo_finish(an_algo_t *a, cm_err_t *err);
void        an__algo_free(an_algo_t *a);

#endif /* AN_ALGO_INT_H */
