/*
 * an_ops_int.h - the operations' private parts, shared by their files:
 *
 *   an_ops.c        gathers the visits of each operation (in flight); when
 *                   one is complete, has its metrics computed, writes its
 *                   rows (visits, ops, pap_hosts) and adds its samples
 *   an_metrics.c    computes the metrics of one complete operation: the
 *                   paper's section 4 and the arrival pattern (pure: no
 *                   database, no statistics)
 *   an_ops_stats.c  the series of each tuple size: samples of every used
 *                   operation, then the stats, orders and p2p rows
 *
 * Nothing outside these files includes it.
 */
#ifndef AN_OPS_INT_H
#define AN_OPS_INT_H

#include <stdint.h>

#include "analyze/an_int.h"

/* One operation being gathered; complete when all nslots visits are in. */
typedef struct op_buf {
    struct op_buf *next_free;
    int            instance;
    uint64_t       op, bytes;
    int            used;
    int            nfilled;
    int64_t       *t1, *t4;     /* [nslots] */
    int32_t       *loc;         /* [nslots], -1 while missing */
    uint8_t       *cont;        /* [nslots] 1 if the visit continued into the parent */
} op_buf_t;

/*
 * The metrics of one complete operation (docs/analysis-db.md), in arrays
 * allocated once and overwritten by each operation.  A slot is a visit:
 * wrapper w's contributor c is slot w.slot0 + c.
 */
typedef struct an_metrics {
    /* per slot */
    int      *arr, *dep;        /* arrival and departure order, 1-based */
    int64_t  *aw, *dw;          /* arrival and departure wait */
    /* per node */
    int64_t  *t2, *t3;          /* from the parent's visit; 0 for the core */
    double   *down, *up;        /* wrapper-level; core: down = latency, up = 0 */
    /* per thread, at its entry wrapper */
    int64_t  *a, *f;            /* arrival and exit */
    double   *total, *no_wait;  /* f - a, and that minus its arrival waits */
    /* per host: arrival and exit of its last thread, INT64_MIN without threads */
    int64_t  *ha, *hf;
    /* the operation (Proficz 2018, section 3) */
    int64_t   t0, arrival_spread, host_spread;
    double    avg_elapsed;
} an_metrics_t;

/* The metrics of one subtree (an__metrics_subtree), by position in below[]. */
typedef struct an_subtree {
    int64_t  *t1, *t4;          /* [nbelow] the threads' arrival and exit */
    int      *arr, *dep;        /* [nbelow] orders of the threads */
    int64_t  *aw, *dw;          /* [nbelow] waits */
    double   *latency;          /* [nbelow] */
    double    down, up;         /* along the last arrival's / first departure's path */
} an_subtree_t;

cm_status_t an__metrics_init(an_metrics_t *m, an_subtree_t *s, const an_defs_t *d);
void        an__metrics_cleanup(an_metrics_t *m, an_subtree_t *s);
/* Every metric of the complete operation b into m. */
void        an__metrics_op(const an_defs_t *d, const op_buf_t *b, an_metrics_t *m);
/* The subtree rooted at r (a gred or the core) of the operation m holds. */
void        an__metrics_subtree(const an_defs_t *d, const op_buf_t *b, const an_metrics_t *m,
                                int r, an_subtree_t *s);

/* The statistics (an_ops_stats.c): one group of series per tuple size. */
typedef struct an_series an_series_t;
typedef struct an_group an_group_t;

cm_status_t an__series_create(const an_defs_t *d, an_series_t **out);
/* The group of a tuple size, created on first use; NULL (err set) when out of
 * memory.  Valid until the next group is created. */
an_group_t *an__series_group(an_series_t *s, uint64_t bytes, cm_err_t *err);
/* Operations of instance i counted before this one, which it then counts
 * (for --skip). */
uint64_t    an__group_count_op(an_group_t *g, int instance);
/* Adds the samples of a used operation; sub is scratch for its subtrees. */
cm_status_t an__group_add(an_group_t *g, const an_defs_t *d, const op_buf_t *b,
                          const an_metrics_t *m, an_subtree_t *sub);
/* A transfer time of one of an algorithm node's messages of the tuple's size
 * (an_algo.c), for p2p. */
cm_status_t an__group_add_msg(an_group_t *g, double ns);
/* Writes the stats, orders and p2p rows of every tuple size. */
cm_status_t an__series_write(an_series_t *s, an_db_t *db);
void        an__series_free(an_series_t *s);

#endif /* AN_OPS_INT_H */
