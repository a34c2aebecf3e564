/*
 * an_model_int.h - the model's private parts, shared by its two files:
 *
 *   an_model.c       opening a database: the tree and, per tuple size, the
 *                    stats of threads and wrappers; the on-demand order
 *                    matrices, departure curves and arrival patterns
 *   an_model_algo.c  algorithm nodes: what they run, their operations and
 *                    schedules (an_model_algo_ops, an_model_schedule)
 *
 * Nothing outside these files includes it.
 */
#ifndef AN_MODEL_INT_H
#define AN_MODEL_INT_H

#include <stdint.h>
#include <sqlite3.h>

#include "analyze/api/an_model.h"

/* What an on-demand result is, for the cache. */
enum { C_ORDERS, C_DEPARTURES, C_PAP, C_ALGO_OPS, C_SCHEDULE };

/* An error naming the database, with SQLite's message. */
cm_status_t an__model_sql_fail(an_model_t *m, cm_err_t *err, const char *what);
/* n elements of size bytes from the model's arena (zeroed); NULL: no memory. */
void       *an__model_alloc(an_model_t *m, size_t n, size_t size);
cm_status_t an__model_nomem(cm_err_t *err);
/* Column i as a string copied into the model, or as an int (null_value if NULL). */
const char *an__model_col_str(an_model_t *m, sqlite3_stmt *st, int i);
int         an__model_col_int(sqlite3_stmt *st, int i, int null_value);
/* sql with integer parameters 1..nargs bound; NULL if it does not prepare. */
sqlite3_stmt *an__model_prepare(an_model_t *m, const char *sql, const int64_t *args, int nargs);
/* Ends a query loop: CM_OK if rc is SQLITE_DONE; finalizes st. */
cm_status_t an__model_finish(an_model_t *m, sqlite3_stmt *st, int rc, cm_err_t *err,
                             const char *what);
/* The cached result for the key, or NULL; and remembering one. */
const void *an__model_cached(an_model_t *m, int what, int64_t bytes, int node, int subtree,
                             int64_t op);
void        an__model_remember(an_model_t *m, int what, int64_t bytes, int node, int subtree,
                               int64_t op, const void *ptr);
/* Fills the algo member of the algorithm nodes' wrappers (an_model_algo.c). */
cm_status_t an__model_load_algo_nodes(an_model_t *m, cm_err_t *err);

#endif /* AN_MODEL_INT_H */
