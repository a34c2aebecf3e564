/*
 * t_stats.c - unit tests of the streaming statistics (analyze/an_stats.c).
 *
 * Every expectation is worked out by hand or in closed form: small series
 * whose sorted order is obvious, and large series of consecutive integers
 * (shuffled by a fixed LCG) whose nearest-rank quantile q(p) is simply the
 * rank max(1, ceil(p n)) shifted, whose mean is the middle value and whose
 * sample variance is n (n + 1) / 12.  Past AN_STAT_EXACT samples a quantile
 * may be off by 2^-(AN_STAT_SUB_BITS + 1) of the value, except below 1024
 * (half units below 2048 have buckets of width 1), where it must be exact.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "tests/tst.h"
#include "tests/test_list.h"
#include "analyze/an_stats_int.h"

/* The relative error a histogram quantile may have. */
#define REL_ERR ldexp(1.0, -(AN_STAT_SUB_BITS + 1))

static uint64_t lcg_next(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return *state >> 33;
}

/* 1..n in an order fixed by seed (Fisher-Yates over the LCG). */
static double *shuffled_range(uint32_t n, uint64_t seed)
{
    double *v = malloc((size_t)n * sizeof *v);

    if (v == NULL)
        TST_FAIL("out of memory");
    for (uint32_t i = 0; i < n; i++)
        v[i] = (double)i + 1.0;
    for (uint32_t i = n - 1; i > 0; i--) {
        uint32_t j = (uint32_t)(lcg_next(&seed) % (i + 1));
        double t = v[i];

        v[i] = v[j];
        v[j] = t;
    }
    return v;
}

static void add_all(an_stat_t *s, const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        TST_EQ_STATUS(an_stat_add(s, v[i]), CM_OK);
}

/* max(1, ceil(num / den)) in integers: the rank of p = num / den. */
static uint64_t rank_of(uint64_t num, uint64_t n, uint64_t den)
{
    uint64_t r = (num * n + den - 1) / den;

    return r < 1 ? 1 : r;
}

/* A histogram answer: exact below 1024 in magnitude, else within REL_ERR. */
static void check_hist_value(double got, double want)
{
    TST_EQ_DBL(got, want, fabs(want) < 1024.0 ? 0.0 : fabs(want) * REL_ERR);
}

void t_stats_small_odd(void)
{
    static const double v[] = { 5, 1, 4, 2, 3 };
    an_stat_t s;
    an_summary_t sum;

    an_stat_init(&s);
    add_all(&s, v, 5);
    an_stat_summary(&s, &sum);
    TST_EQ_UINT(sum.n, 5);
    TST_EQ_DBL(sum.mean, 3.0, 1e-15);
    TST_EQ_DBL(sum.median, 3.0, 0.0);
    TST_EQ_DBL(sum.stdev, sqrt(2.5), 1e-15);    /* (4+1+0+1+4) / 4 */
    TST_EQ_DBL(sum.min, 1.0, 0.0);
    TST_EQ_DBL(sum.max, 5.0, 0.0);
    TST_EQ_DBL(sum.p10, 1.0, 0.0);              /* rank ceil(0.5) = 1 */
    TST_EQ_DBL(sum.p90, 5.0, 0.0);              /* rank ceil(4.5) = 5 */
    TST_EQ_DBL(an_stat_quantile(&s, 0.0), 1.0, 0.0);
    TST_EQ_DBL(an_stat_quantile(&s, 1.0), 5.0, 0.0);
    TST_EQ_DBL(an_stat_quantile(&s, 0.4), 2.0, 0.0);   /* rank 2 exactly */
    TST_EQ_DBL(an_stat_quantile(&s, 0.41), 3.0, 0.0);  /* rank ceil(2.05) */
    TST_TRUE(an_stat_is_exact(&s));
    an_stat_free(&s);
}

void t_stats_small_even(void)
{
    static const double v[] = { 3, 1, 4, 2 };
    an_stat_t s;
    an_summary_t sum;

    an_stat_init(&s);
    add_all(&s, v, 4);
    an_stat_summary(&s, &sum);
    TST_EQ_UINT(sum.n, 4);
    TST_EQ_DBL(sum.mean, 2.5, 1e-15);
    TST_EQ_DBL(sum.median, 2.0, 0.0);           /* the lower middle sample */
    TST_EQ_DBL(sum.stdev, sqrt(5.0 / 3.0), 1e-15);
    TST_EQ_DBL(sum.p10, 1.0, 0.0);              /* rank ceil(0.4) = 1 */
    TST_EQ_DBL(sum.p90, 4.0, 0.0);              /* rank ceil(3.6) = 4 */
    an_stat_free(&s);
}

void t_stats_ten(void)
{
    double *v = shuffled_range(10, 7);
    an_stat_t s;
    an_summary_t sum;

    an_stat_init(&s);
    add_all(&s, v, 10);
    an_stat_summary(&s, &sum);
    TST_EQ_DBL(sum.mean, 5.5, 1e-15);
    TST_EQ_DBL(sum.median, 5.0, 0.0);
    TST_EQ_DBL(sum.p10, 1.0, 0.0);              /* 0.1 * 10 must not become 2 */
    TST_EQ_DBL(sum.p90, 9.0, 0.0);
    TST_EQ_DBL(sum.stdev, sqrt(110.0 / 12.0), 1e-14);
    an_stat_free(&s);
    free(v);
}

/*
 * p = a / 100 against the integer rank, for every n up to 200: products such
 * as 0.1 * 30 = 3.0000000000000004 must not round up a rank.  Samples arrive
 * in descending order with a quantile asked after each one, so the buffer is
 * sorted, appended to and sorted again.
 */
void t_stats_rank_rounding(void)
{
    an_stat_t s;

    an_stat_init(&s);
    for (uint32_t n = 1; n <= 200; n++) {
        /* Samples 999 .. 1000 - n: the sample of rank r is 999 - n + r. */
        TST_EQ_STATUS(an_stat_add(&s, 1000.0 - n), CM_OK);
        for (uint32_t a = 0; a <= 100; a++) {
            double want = 999.0 - n + (double)rank_of(a, n, 100);

            TST_EQ_DBL(an_stat_quantile(&s, a / 100.0), want, 0.0);
        }
        TST_EQ_DBL(an_stat_quantile(&s, 0.1), 999.0 - n + rank_of(1, n, 10), 0.0);
        TST_EQ_DBL(an_stat_quantile(&s, 0.9), 999.0 - n + rank_of(9, n, 10), 0.0);
    }
    /* p outside [0, 1] is clamped; a NaN p has no answer. */
    TST_EQ_DBL(an_stat_quantile(&s, -1.0), 800.0, 0.0);
    TST_EQ_DBL(an_stat_quantile(&s, 2.0), 999.0, 0.0);
    TST_TRUE(isnan(an_stat_quantile(&s, NAN)));
    an_stat_free(&s);
}

void t_stats_negative_halves(void)
{
    static const double v[] = { -1.5, 0.5, -0.5, 2.5, 0.0, -3.0 };
    an_stat_t s;
    an_summary_t sum;

    an_stat_init(&s);
    add_all(&s, v, 6);
    an_stat_summary(&s, &sum);
    /* Sorted: -3 -1.5 -0.5 0 0.5 2.5; sum -2. */
    TST_EQ_DBL(sum.mean, -1.0 / 3.0, 1e-15);
    TST_EQ_DBL(sum.median, -0.5, 0.0);          /* rank 3 */
    TST_EQ_DBL(sum.p10, -3.0, 0.0);             /* rank ceil(0.6) = 1 */
    TST_EQ_DBL(sum.p90, 2.5, 0.0);              /* rank ceil(5.4) = 6 */
    TST_EQ_DBL(sum.min, -3.0, 0.0);
    TST_EQ_DBL(sum.max, 2.5, 0.0);
    /* Deviations times 6: -7 5 -1 17 2 -16, squares 624 / 36, over 5. */
    TST_EQ_DBL(sum.stdev, sqrt(52.0 / 15.0), 1e-15);
    an_stat_free(&s);
}

void t_stats_empty(void)
{
    an_stat_t zeroed = { 0 };
    an_stat_t s;
    an_summary_t sum;

    an_stat_init(&s);
    TST_TRUE(an_stat_is_exact(&s));
    TST_TRUE(isnan(an_stat_quantile(&s, 0.5)));
    an_stat_summary(&s, &sum);
    TST_EQ_UINT(sum.n, 0);
    TST_TRUE(isnan(sum.mean));
    TST_TRUE(isnan(sum.median));
    TST_TRUE(isnan(sum.stdev));
    TST_TRUE(isnan(sum.min));
    TST_TRUE(isnan(sum.max));
    TST_TRUE(isnan(sum.p10));
    TST_TRUE(isnan(sum.p90));
    TST_EQ_UINT(an_stat_hist_blocks(&s), 0);
    an_stat_free(&s);
    an_stat_free(&s);                           /* freeing twice is harmless */

    /* A zeroed struct is a valid empty series, without an_stat_init. */
    TST_TRUE(isnan(an_stat_quantile(&zeroed, 0.0)));
    TST_EQ_STATUS(an_stat_add(&zeroed, 4.0), CM_OK);
    TST_EQ_DBL(an_stat_quantile(&zeroed, 0.5), 4.0, 0.0);
    an_stat_free(&zeroed);
}

void t_stats_single(void)
{
    an_stat_t s;
    an_summary_t sum;

    an_stat_init(&s);
    TST_EQ_STATUS(an_stat_add(&s, 7.25), CM_OK);
    an_stat_summary(&s, &sum);
    TST_EQ_UINT(sum.n, 1);
    TST_EQ_DBL(sum.mean, 7.25, 0.0);
    TST_EQ_DBL(sum.stdev, 0.0, 0.0);
    TST_EQ_DBL(sum.median, 7.25, 0.0);
    TST_EQ_DBL(sum.p10, 7.25, 0.0);
    TST_EQ_DBL(sum.p90, 7.25, 0.0);
    TST_EQ_DBL(sum.min, 7.25, 0.0);
    TST_EQ_DBL(sum.max, 7.25, 0.0);
    an_stat_free(&s);
}

/* Every field of *a equals *b (no memcmp: padding is not state). */
static void check_same_state(const an_stat_t *a, const an_stat_t *b)
{
    TST_EQ_UINT(a->n, b->n);
    TST_EQ_DBL(a->mean, b->mean, 0.0);
    TST_EQ_DBL(a->m2, b->m2, 0.0);
    TST_EQ_DBL(a->min, b->min, 0.0);
    TST_EQ_DBL(a->max, b->max, 0.0);
    TST_EQ_PTR(a->exact, b->exact);
    TST_EQ_UINT(a->nexact, b->nexact);
    TST_EQ_PTR(a->hist, b->hist);
}

static void check_refuses_nonfinite(an_stat_t *s)
{
    an_stat_t before = *s;
    double q = s->n == 0 ? 0.0 : an_stat_quantile(s, 0.5);

    TST_EQ_STATUS(an_stat_add(s, NAN), CM_ERR_INVALID);
    TST_EQ_STATUS(an_stat_add(s, INFINITY), CM_ERR_INVALID);
    TST_EQ_STATUS(an_stat_add(s, -INFINITY), CM_ERR_INVALID);
    check_same_state(s, &before);
    if (s->n != 0)
        TST_EQ_DBL(an_stat_quantile(s, 0.5), q, 0.0);
}

void t_stats_refuse_nonfinite(void)
{
    an_stat_t s;

    an_stat_init(&s);
    check_refuses_nonfinite(&s);                /* empty */
    TST_NULL(s.exact);
    for (int i = 0; i < 10; i++)
        TST_EQ_STATUS(an_stat_add(&s, i), CM_OK);
    check_refuses_nonfinite(&s);                /* exact */
    for (int i = 0; i < 2000; i++)
        TST_EQ_STATUS(an_stat_add(&s, i * 3.0), CM_OK);
    TST_FALSE(an_stat_is_exact(&s));
    check_refuses_nonfinite(&s);                /* histogram */
    an_stat_free(&s);
}

/*
 * Samples 0.5, 1, ..., 512.5 (j / 2 for j = 1..1025): exact up to sample
 * 1024, a histogram from sample 1025 on, and the same quantiles either side
 * of the move because half units below 2048 have buckets of their own.
 */
void t_stats_transition(void)
{
    an_stat_t s;

    an_stat_init(&s);
    for (uint32_t j = 1; j <= AN_STAT_EXACT + 1; j++) {
        TST_EQ_STATUS(an_stat_add(&s, j / 2.0), CM_OK);
        TST_EQ_INT(an_stat_is_exact(&s), j <= AN_STAT_EXACT);
        if (j == AN_STAT_EXACT) {
            TST_EQ_UINT(s.nexact, AN_STAT_EXACT);
            TST_EQ_UINT(an_stat_hist_blocks(&s), 0);
        }
        if (j < AN_STAT_EXACT - 2)
            continue;
        for (uint32_t a = 0; a <= 100; a++) {
            double want = (double)rank_of(a, j, 100) / 2.0;

            TST_EQ_DBL(an_stat_quantile(&s, a / 100.0), want, 0.0);
        }
    }
    TST_NULL(s.exact);
    TST_EQ_UINT(s.nexact, 0);
    TST_NOT_NULL(s.hist);
    /* j = 1..1023 in the small block, j = 1024, 1025 in that of 2^10. */
    TST_EQ_UINT(an_stat_hist_blocks(&s), 2);
    TST_EQ_UINT(s.n, AN_STAT_EXACT + 1);
    TST_EQ_DBL(s.mean, (AN_STAT_EXACT + 2) / 4.0, 1e-12);

    /* Free re-initialises: the series can be used again from scratch. */
    an_stat_free(&s);
    TST_EQ_UINT(s.n, 0);
    TST_NULL(s.hist);
    TST_TRUE(an_stat_is_exact(&s));
    TST_EQ_STATUS(an_stat_add(&s, -2.0), CM_OK);
    TST_EQ_DBL(an_stat_quantile(&s, 0.5), -2.0, 0.0);
    TST_EQ_DBL(s.mean, -2.0, 0.0);
    an_stat_free(&s);
}

/* -500 .. 500 in steps of 0.5, three times: past the buffer, still exact. */
void t_stats_small_values_exact(void)
{
    const uint32_t nvals = 2001, reps = 3, n = nvals * reps;
    an_stat_t s;
    an_summary_t sum;

    an_stat_init(&s);
    for (uint32_t r = 0; r < reps; r++) {
        for (uint32_t j = 0; j < nvals; j++)
            TST_EQ_STATUS(an_stat_add(&s, -500.0 + j / 2.0), CM_OK);
    }
    TST_FALSE(an_stat_is_exact(&s));
    /* Rank r is value number (r - 1) / reps in ascending order. */
    for (uint32_t a = 0; a <= 1000; a++) {
        uint64_t rank = rank_of(a, n, 1000);
        double want = -500.0 + (double)((rank - 1) / reps) / 2.0;

        TST_EQ_DBL(an_stat_quantile(&s, a / 1000.0), want, 0.0);
    }
    an_stat_summary(&s, &sum);
    TST_EQ_DBL(sum.mean, 0.0, 1e-12);
    TST_EQ_DBL(sum.min, -500.0, 0.0);
    TST_EQ_DBL(sum.max, 500.0, 0.0);
    TST_EQ_DBL(sum.median, 0.0, 0.0);           /* rank 3002 of 6003 */
    /* One small block per sign; zero has a counter of its own. */
    TST_EQ_UINT(an_stat_hist_blocks(&s), 2);
    an_stat_free(&s);
}

/*
 * Quantiles, mean and stdev of `offset + (1..n)` (shuffled) against closed
 * forms: q(p) = offset + max(1, ceil(p n)).
 */
static void check_consecutive(uint32_t n, double offset, uint32_t blocks)
{
    double *v = shuffled_range(n, 12345);
    double var = (double)n * ((double)n + 1.0) / 12.0;
    an_stat_t s;
    an_summary_t sum;

    an_stat_init(&s);
    for (uint32_t i = 0; i < n; i++)
        TST_EQ_STATUS(an_stat_add(&s, v[i] + offset), CM_OK);
    TST_FALSE(an_stat_is_exact(&s));
    for (uint32_t a = 0; a <= 1000; a++) {
        double want = offset + (double)rank_of(a, n, 1000);

        check_hist_value(an_stat_quantile(&s, a / 1000.0), want);
    }
    an_stat_summary(&s, &sum);
    TST_EQ_UINT(sum.n, n);
    TST_EQ_DBL(sum.mean, offset + (n + 1.0) / 2.0, 1e-9);
    TST_EQ_DBL(sum.stdev, sqrt(var), sqrt(var) * 1e-12);
    TST_EQ_DBL(sum.min, offset + 1.0, 0.0);
    TST_EQ_DBL(sum.max, offset + n, 0.0);
    check_hist_value(sum.median, offset + (double)rank_of(1, n, 2));
    check_hist_value(sum.p10, offset + (double)rank_of(1, n, 10));
    check_hist_value(sum.p90, offset + (double)rank_of(9, n, 10));
    TST_EQ_UINT(an_stat_hist_blocks(&s), blocks);
    an_stat_free(&s);
    free(v);
}

void t_stats_large_uniform(void)
{
    /* Half units 2 .. 200000: the small block and those of 2^10 .. 2^17. */
    check_consecutive(100000, 0.0, 9);
}

void t_stats_large_negative(void)
{
    /* -50000 .. 50000: per sign, the small block and 2^10 .. 2^16. */
    check_consecutive(100001, -50001.0, 16);
}

/* Values that all land in one bucket come back exactly, through the clamp. */
void t_stats_constant(void)
{
    an_stat_t s;
    an_summary_t sum;

    an_stat_init(&s);
    for (int i = 0; i < 5000; i++)
        TST_EQ_STATUS(an_stat_add(&s, 12345.678), CM_OK);
    an_stat_summary(&s, &sum);
    TST_EQ_DBL(sum.mean, 12345.678, 0.0);
    TST_EQ_DBL(sum.stdev, 0.0, 0.0);
    TST_EQ_DBL(sum.median, 12345.678, 0.0);
    TST_EQ_DBL(sum.p10, 12345.678, 0.0);
    TST_EQ_DBL(sum.p90, 12345.678, 0.0);
    an_stat_free(&s);
}

/* Expected moments of `reps` copies of each of the k values in a. */
static void check_moments(const an_summary_t *sum, const double *a, int k,
                          int reps)
{
    double mean = 0.0, ss = 0.0;
    uint64_t n = (uint64_t)k * (uint64_t)reps;

    for (int i = 0; i < k; i++)
        mean += a[i] / k;
    for (int i = 0; i < k; i++)
        ss += (a[i] - mean) * (a[i] - mean) * reps;
    TST_EQ_UINT(sum->n, n);
    TST_EQ_DBL(sum->mean, mean, fabs(mean) * 1e-12);
    TST_EQ_DBL(sum->stdev, sqrt(ss / (double)(n - 1)),
               sqrt(ss / (double)(n - 1)) * 1e-12);
}

/*
 * 1e-3, 1 and 1e12 together, 3 and then 1000 of each (exact, then
 * histogram); sorted, the first third is 1e-3, the second 1, the last 1e12.
 */
void t_stats_wide_range(void)
{
    static const double a[] = { 1e12, 1e-3, 1.0 };
    static const int reps[] = { 3, 1000 };

    for (int t = 0; t < 2; t++) {
        an_stat_t s;
        an_summary_t sum;

        an_stat_init(&s);
        for (int r = 0; r < reps[t]; r++)
            add_all(&s, a, 3);
        TST_EQ_INT(an_stat_is_exact(&s), t == 0);
        an_stat_summary(&s, &sum);
        check_moments(&sum, a, 3, reps[t]);
        TST_EQ_DBL(sum.min, 1e-3, 0.0);
        TST_EQ_DBL(sum.max, 1e12, 0.0);
        /* k = 0 for 1e-3: bucket value 0, clamped up to min. */
        TST_EQ_DBL(sum.p10, 1e-3, 0.0);
        TST_EQ_DBL(an_stat_quantile(&s, 1.0 / 3.0), 1e-3, 0.0);
        TST_EQ_DBL(sum.median, 1.0, 0.0);
        TST_EQ_DBL(an_stat_quantile(&s, 2.0 / 3.0), 1.0, 0.0);
        TST_EQ_DBL(sum.p90, 1e12, 1e12 * REL_ERR);
        TST_EQ_DBL(an_stat_quantile(&s, 0.7), 1e12, 1e12 * REL_ERR);
        an_stat_free(&s);
    }
}

/*
 * Near the ends of the double range (where 2 v overflows): quantiles stay
 * finite and within the relative error.  Moments are not checked: the
 * squared deviations of such values overflow by nature.
 */
void t_stats_extreme_values(void)
{
    static const double a[] = { -1e300, 1e300, 5e-324, -DBL_MAX, DBL_MAX };
    an_stat_t s;

    an_stat_init(&s);
    for (int r = 0; r < 400; r++)
        add_all(&s, a, 5);
    TST_FALSE(an_stat_is_exact(&s));
    /* Sorted: 400 each of -DBL_MAX, -1e300, 5e-324, 1e300, DBL_MAX. */
    TST_EQ_DBL(an_stat_quantile(&s, 0.0), -DBL_MAX, DBL_MAX * REL_ERR);
    TST_EQ_DBL(an_stat_quantile(&s, 0.3), -1e300, 1e300 * REL_ERR);
    /* k = 0: the value 0, off by less than the rounding to half units. */
    TST_EQ_DBL(an_stat_quantile(&s, 0.5), 5e-324, 0.25);
    TST_EQ_DBL(an_stat_quantile(&s, 0.7), 1e300, 1e300 * REL_ERR);
    TST_EQ_DBL(an_stat_quantile(&s, 0.9), DBL_MAX, DBL_MAX * REL_ERR);
    TST_EQ_DBL(s.min, -DBL_MAX, 0.0);
    TST_EQ_DBL(s.max, DBL_MAX, 0.0);
    an_stat_free(&s);
}

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/*
 * A million samples in [1024, 8024): half units 2048 .. 16048 span the
 * blocks of 2^11, 2^12 and 2^13 only, so three blocks whatever the count.
 * The values are not multiples of 0.5, so on top of the relative error a
 * quantile may be off by the rounding to half units, 0.25.
 */
void t_stats_memory_bound(void)
{
    const uint32_t n = 1000000;
    double *v = malloc(n * sizeof *v);
    uint64_t seed = 99;
    an_stat_t s;

    if (v == NULL)
        TST_FAIL("out of memory");
    an_stat_init(&s);
    for (uint32_t i = 0; i < n; i++) {
        v[i] = 1024.0 + 7000.0 * (double)lcg_next(&seed) / 0x1p31;
        TST_EQ_STATUS(an_stat_add(&s, v[i]), CM_OK);
    }
    TST_EQ_UINT(an_stat_hist_blocks(&s), 3);
    qsort(v, n, sizeof *v, dbl_cmp);
    for (uint32_t a = 0; a <= 100; a++) {
        double want = v[rank_of(a, n, 100) - 1];

        TST_EQ_DBL(an_stat_quantile(&s, a / 100.0), want, want * REL_ERR + 0.25);
    }
    TST_EQ_DBL(s.min, v[0], 0.0);
    TST_EQ_DBL(s.max, v[n - 1], 0.0);
    an_stat_free(&s);
    free(v);
}
