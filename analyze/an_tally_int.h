/*
 * an_tally_int.h - an exact multiset of values: how many times each distinct
 * value occurred, for the exact median of a long series whose values repeat.
 *
 * papanalyze's point-to-point time (docs/analysis-db.md, p2p) is the median
 * of the proxies' one-way times, one per proxy and operation: integers of ns
 * halved, which repeat a great deal.  an_stat_t's histogram would give its
 * bucket's midpoint past AN_STAT_EXACT samples; a tally gives the sample
 * itself.  Memory: 16 bytes per slot of a hash table kept between a quarter
 * and half full, so at most 64 bytes per distinct value, whatever the number
 * of samples.  Values compare exactly
 * (-0 and +0 are one value); NaN is refused.  Not thread-safe.
 */
#ifndef AN_TALLY_INT_H
#define AN_TALLY_INT_H

#include <stddef.h>
#include <stdint.h>
#include "common/cm_status.h"

typedef struct an_tally {
    double   *val;            /* [cap] distinct values, where cnt > 0 */
    uint64_t *cnt;            /* [cap] their counts, 0 for an empty slot */
    size_t    cap;            /* 0 or a power of two */
    size_t    nkeys;          /* distinct values */
    uint64_t  n;              /* samples */
} an_tally_t;

/* A zeroed an_tally_t is a valid empty tally; an_tally_init zeroes. */
void        an_tally_init(an_tally_t *t);
/* CM_ERR_INVALID for NaN, CM_ERR_NOMEM (the tally unchanged) when growing fails. */
cm_status_t an_tally_add(an_tally_t *t, double v);
/* The nearest-rank median, the sample of rank ceil(n / 2) (the lower middle
 * one of an even n), into *out; NaN for an empty tally.  CM_ERR_NOMEM when
 * the scratch array cannot be allocated. */
cm_status_t an_tally_median(const an_tally_t *t, double *out);
void        an_tally_free(an_tally_t *t);

#endif /* AN_TALLY_INT_H */
