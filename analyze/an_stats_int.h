/*
 * an_stats_int.h - streaming summary statistics of one series, in bounded memory.
 *
 * papanalyze keeps one an_stat_t per series (a stage of a thread, a metric of
 * a wrapper or contributor, ...) and adds one sample per operation.  The
 * summary is the paper's Table 2: n, mean, median, stdev, min, max, p10, p90.
 *
 * - n, mean, stdev (sample standard deviation, n - 1 in the denominator; 0
 *   for n < 2), min and max are exact (Welford's update for mean and stdev).
 * - Quantiles are nearest-rank: q(p) is the sample of 1-based rank
 *   max(1, ceil(p * n)) in sorted order (q(0.5), the median, is the lower of
 *   the two middle samples when n is even).  They are exact while the series
 *   holds at most AN_STAT_EXACT samples.  Past that the samples move into a
 *   log-linear histogram over k = round(2 v) (half units), with
 *   2^AN_STAT_SUB_BITS sub-buckets per power of two of k, so every multiple of
 *   0.5 below 2^AN_STAT_SUB_BITS stays exact; a quantile is then the midpoint
 *   of its bucket clamped to [min, max]: relative error at most
 *   2^-(AN_STAT_SUB_BITS + 1) of round(2 v) / 2, i.e. plus 0.25 absolute.
 * - Memory per series: at most AN_STAT_EXACT doubles, then one block of
 *   2^AN_STAT_SUB_BITS counters per power of two the values actually span
 *   (and sign), whatever the number of samples.
 *
 * Values are nanoseconds in papanalyze, but nothing here depends on it.
 * Non-finite values are refused (CM_ERR_INVALID); negative values are fine.
 */
#ifndef AN_STATS_INT_H
#define AN_STATS_INT_H

#include <stdint.h>
#include "common/cm_status.h"

#define AN_STAT_EXACT     1024
#define AN_STAT_SUB_BITS  10

typedef struct an_hist an_hist_t;   /* private to an_stats.c */

typedef struct an_stat {
    uint64_t   n;
    double     mean, m2;            /* Welford */
    double     min, max;
    double    *exact;               /* the first AN_STAT_EXACT samples, or NULL */
    uint32_t   nexact;
    an_hist_t *hist;                /* after the exact buffer overflowed, or NULL */
} an_stat_t;

typedef struct an_summary {
    uint64_t n;
    double   mean, median, stdev, min, max, p10, p90;
} an_summary_t;

/* A zeroed an_stat_t is a valid empty series; an_stat_init zeroes. */
void        an_stat_init(an_stat_t *s);
cm_status_t an_stat_add(an_stat_t *s, double v);
/* p in [0, 1]; NaN when the series is empty. */
double      an_stat_quantile(an_stat_t *s, double p);
/* All fields; n == 0 gives zeros and NaNs (mean..p90 = NaN). */
void        an_stat_summary(an_stat_t *s, an_summary_t *out);
/* 1 if quantiles are exact (no histogram yet). */
int         an_stat_is_exact(const an_stat_t *s);
void        an_stat_free(an_stat_t *s);

/* For tests: counter blocks the histogram holds now (0 while exact). */
uint32_t    an_stat_hist_blocks(const an_stat_t *s);

#endif /* AN_STATS_INT_H */
