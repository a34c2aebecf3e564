/*
 * an_stats.c - streaming summary statistics of one series (an_stats_int.h).
 *
 * A series lives in one of two modes.  While it holds at most AN_STAT_EXACT
 * samples they sit in a malloc'd buffer (grown by doubling from
 * EXACT_MIN_CAP, because most series of a short trace stay small) and
 * quantiles sort that buffer in place: the order of samples carries no
 * meaning, so a sorted buffer is as good as the original and later samples
 * are simply appended.  The sample after that moves everything into a
 * log-linear histogram and the buffer is freed; the histogram never goes back.
 *
 * The histogram counts k = round(2 v), the value in half units, rounded half
 * away from zero (llround's rule, done in double so that no value overflows):
 *
 *   k == 0                  one counter, `zero`;
 *   0 < |k| < SUB_N         the "small" block of its sign: one counter per
 *                           integer |k|, so multiples of 0.5 stay exact;
 *   2^p <= |k| < 2^(p+1)    the block of exponent p (p >= AN_STAT_SUB_BITS):
 *                           SUB_N sub-buckets of width w = 2^(p - SUB_BITS),
 *                           sub-bucket i holding |k| in [2^p + i w, 2^p + (i+1) w).
 *
 * A bucket reports the midpoint of the integers it holds, lo + (w - 1) / 2,
 * which is within (w - 1) / 2 < 2^-(SUB_BITS + 1) |k| of every one of them.
 * Blocks are allocated on first use, and each sign keeps a directory of them
 * covering only the exponents seen, so memory follows the span of the values,
 * not their number.  Exponents reach 1024 (DBL_MAX is below 2^1024).
 *
 * Every allocation happens before anything is counted, so a failed add
 * (CM_ERR_NOMEM) leaves the series as it was.  Not thread-safe: one series
 * belongs to one thread at a time.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "analyze/an_stats_int.h"

#define SUB_N          (1u << AN_STAT_SUB_BITS)
#define EXACT_MIN_CAP  16u

/* The blocks of one sign. */
typedef struct hist_side {
    uint64_t  *small;   /* SUB_N counters indexed by |k| (slot 0 unused), or NULL */
    uint64_t **blk;     /* blk[i]: block of exponent p0 + i, or NULL */
    int        p0;      /* exponent of blk[0] */
    int        np;      /* entries of blk */
} hist_side_t;

struct an_hist {
    uint64_t    zero;     /* samples with k == 0 */
    hist_side_t side[2];  /* [0]: k < 0, [1]: k > 0 */
    uint32_t    nblocks;  /* counter blocks allocated, small ones included */
};

/* Where one sample is counted. */
typedef struct hist_pos {
    int      sign;        /* 0: negative, 1: positive, -1: the zero counter */
    int      p;           /* block exponent, or -1 for the small block */
    uint32_t idx;         /* |k| in the small block, else the sub-bucket */
} hist_pos_t;

/* ---- the histogram --------------------------------------------------- */

static inline hist_pos_t hist_locate(double v)
{
    double a = fabs(v);
    /* |k| / 2; from 2^52 on, 2a is an integer already and might overflow. */
    double h = a >= 0x1p52 ? a : round(2.0 * a) / 2.0;
    hist_pos_t pos = { v < 0 ? 0 : 1, -1, 0 };
    int e;

    if (h < SUB_N / 2.0) {
        pos.idx = (uint32_t)(2.0 * h);
        if (pos.idx == 0)
            pos.sign = -1;
        return pos;
    }
    /*
     * The common case (papanalyze's nanoseconds) in integer arithmetic, the
     * same buckets as the frexp below: |k| in [2^p, 2^(p+1)), sub-bucket =
     * the AN_STAT_SUB_BITS bits after the leading one.  frexp is a call.
     */
    if (h < 0x1p52) {
        uint64_t k = (uint64_t)(2.0 * h);
        int p = 63 - __builtin_clzll(k);
        pos.p = p;
        pos.idx = (uint32_t)((k >> (p - AN_STAT_SUB_BITS)) - SUB_N);
        return pos;
    }
    /* h = m 2^e, m in [0.5, 1), so |k| = 2m 2^e lies in [2^e, 2^(e+1)). */
    double m = frexp(h, &e);
    pos.p = e;
    pos.idx = (uint32_t)((2.0 * m - 1.0) * SUB_N);  /* exact, then floored */
    return pos;
}

/* The value a bucket stands for: the midpoint of its k, in value units. */
static double hist_mid(hist_pos_t pos)
{
    double mag;

    if (pos.sign < 0)
        return 0.0;
    if (pos.p < 0) {
        mag = pos.idx / 2.0;
    } else {
        double w = ldexp(1.0, pos.p - AN_STAT_SUB_BITS);

        mag = ldexp((double)(SUB_N + pos.idx), pos.p - AN_STAT_SUB_BITS - 1)
              + (w - 1.0) / 4.0;
    }
    return pos.sign == 0 ? -mag : mag;
}

/* Makes room in the directory for exponent p; never allocates a block. */
static cm_status_t side_dir_cover(hist_side_t *sd, int p)
{
    int lo = sd->np == 0 ? p : (p < sd->p0 ? p : sd->p0);
    int hi = sd->np == 0 ? p : (p >= sd->p0 + sd->np ? p : sd->p0 + sd->np - 1);
    int np = hi - lo + 1;
    uint64_t **blk;

    if (sd->np != 0 && lo == sd->p0 && np == sd->np)
        return CM_OK;
    blk = realloc(sd->blk, (size_t)np * sizeof *blk);
    if (blk == NULL)
        return CM_ERR_NOMEM;
    /* Old entries shift up by (p0 - lo) when the range grows downwards. */
    if (sd->np != 0)
        memmove(blk + (sd->p0 - lo), blk, (size_t)sd->np * sizeof *blk);
    for (int i = 0; i < np; i++) {
        if (sd->np == 0 || i < sd->p0 - lo || i >= sd->p0 - lo + sd->np)
            blk[i] = NULL;
    }
    sd->blk = blk;
    sd->p0 = lo;
    sd->np = np;
    return CM_OK;
}

/* The counter for pos, allocating its block if needed; NULL if out of memory. */
static inline uint64_t *hist_counter(an_hist_t *h, hist_pos_t pos)
{
    hist_side_t *sd;
    uint64_t **blockp;

    if (pos.sign < 0)
        return &h->zero;
    sd = &h->side[pos.sign];
    if (pos.p < 0) {
        blockp = &sd->small;
    } else {
        /* the directory grows only when a sample falls outside it (rarely) */
        if ((sd->np == 0 || pos.p < sd->p0 || pos.p >= sd->p0 + sd->np)
            && side_dir_cover(sd, pos.p) != CM_OK)
            return NULL;
        blockp = &sd->blk[pos.p - sd->p0];
    }
    if (*blockp == NULL) {
        *blockp = calloc(SUB_N, sizeof **blockp);
        if (*blockp == NULL)
            return NULL;
        h->nblocks++;
    }
    return &(*blockp)[pos.idx];
}

static cm_status_t hist_add(an_hist_t *h, double v)
{
    uint64_t *c = hist_counter(h, hist_locate(v));

    if (c == NULL)
        return CM_ERR_NOMEM;
    (*c)++;
    return CM_OK;
}

static void hist_destroy(an_hist_t *h)
{
    if (h == NULL)
        return;
    for (int s = 0; s < 2; s++) {
        for (int i = 0; i < h->side[s].np; i++)
            free(h->side[s].blk[i]);
        free(h->side[s].blk);
        free(h->side[s].small);
    }
    free(h);
}

/*
 * Adds the counters of one block to *seen in ascending value order (the
 * index order reversed for negative values) until *seen reaches rank;
 * returns 1 and the index then, 0 if the block ends first.
 */
static int block_find(const uint64_t *c, int negative, uint64_t rank,
                      uint64_t *seen, uint32_t *idx_p)
{
    if (c == NULL)
        return 0;
    for (uint32_t j = 0; j < SUB_N; j++) {
        uint32_t i = negative ? SUB_N - 1 - j : j;

        *seen += c[i];
        if (*seen >= rank) {
            *idx_p = i;
            return 1;
        }
    }
    return 0;
}

/*
 * Walks one sign in ascending value order (negative: from the largest
 * magnitude in to zero; positive: from zero out) until *seen reaches rank.
 */
static int side_find(const hist_side_t *sd, int sign, uint64_t rank,
                     uint64_t *seen, hist_pos_t *pos_p)
{
    int negative = sign == 0;

    pos_p->sign = sign;
    if (!negative) {
        pos_p->p = -1;
        if (block_find(sd->small, 0, rank, seen, &pos_p->idx))
            return 1;
    }
    for (int j = 0; j < sd->np; j++) {
        int i = negative ? sd->np - 1 - j : j;

        pos_p->p = sd->p0 + i;
        if (block_find(sd->blk[i], negative, rank, seen, &pos_p->idx))
            return 1;
    }
    if (negative) {
        pos_p->p = -1;
        if (block_find(sd->small, 1, rank, seen, &pos_p->idx))
            return 1;
    }
    return 0;
}

static double clamp_to_range(const an_stat_t *s, double v)
{
    return fmin(fmax(v, s->min), s->max);
}

/* Nearest-rank over the buckets, rank in [1, n]; max if counts fall short. */
static double hist_rank_value(const an_stat_t *s, uint64_t rank)
{
    const an_hist_t *h = s->hist;
    uint64_t seen = 0;
    hist_pos_t pos;

    if (side_find(&h->side[0], 0, rank, &seen, &pos))
        return clamp_to_range(s, hist_mid(pos));
    seen += h->zero;
    if (seen >= rank)
        return clamp_to_range(s, 0.0);
    if (side_find(&h->side[1], 1, rank, &seen, &pos))
        return clamp_to_range(s, hist_mid(pos));
    return s->max;
}

/* The histogram of the exact samples plus v; the series is not touched. */
static cm_status_t hist_spill(an_stat_t *s, double v)
{
    an_hist_t *h = calloc(1, sizeof *h);

    if (h == NULL)
        return CM_ERR_NOMEM;
    for (uint32_t i = 0; i <= s->nexact; i++) {
        if (hist_add(h, i < s->nexact ? s->exact[i] : v) != CM_OK) {
            hist_destroy(h);
            return CM_ERR_NOMEM;
        }
    }
    free(s->exact);
    s->exact = NULL;
    s->nexact = 0;
    s->hist = h;
    return CM_OK;
}

/* ---- the exact buffer ------------------------------------------------ */

/*
 * The capacity follows from nexact (the buffer doubles exactly when it is
 * full), so the public struct needs no capacity field.
 */
static uint32_t exact_cap(uint32_t nexact)
{
    uint32_t cap = EXACT_MIN_CAP;

    while (cap < nexact)
        cap *= 2;
    return cap;
}

static cm_status_t exact_add(an_stat_t *s, double v)
{
    if (s->exact == NULL || s->nexact == exact_cap(s->nexact)) {
        uint32_t cap = s->exact == NULL ? EXACT_MIN_CAP : 2 * s->nexact;
        double *buf;

        if (cap > AN_STAT_EXACT)
            cap = AN_STAT_EXACT;
        buf = realloc(s->exact, (size_t)cap * sizeof *buf);
        if (buf == NULL)
            return CM_ERR_NOMEM;
        s->exact = buf;
    }
    s->exact[s->nexact++] = v;
    return CM_OK;
}

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* Sorts in place unless sorted already (summary asks three quantiles). */
static void exact_sort(an_stat_t *s)
{
    for (uint32_t i = 1; i < s->nexact; i++) {
        if (s->exact[i - 1] > s->exact[i]) {
            qsort(s->exact, s->nexact, sizeof *s->exact, dbl_cmp);
            return;
        }
    }
}

/* ---- the public functions -------------------------------------------- */

void an_stat_init(an_stat_t *s)
{
    memset(s, 0, sizeof *s);
}

cm_status_t an_stat_add(an_stat_t *s, double v)
{
    cm_status_t st;
    double delta;

    if (!isfinite(v))
        return CM_ERR_INVALID;
    if (s->hist != NULL)
        st = hist_add(s->hist, v);
    else if (s->nexact < AN_STAT_EXACT)
        st = exact_add(s, v);
    else
        st = hist_spill(s, v);
    if (st != CM_OK)
        return st;

    s->n++;
    delta = v - s->mean;
    s->mean += delta / (double)s->n;
    s->m2 += delta * (v - s->mean);
    if (s->n == 1 || v < s->min)
        s->min = v;
    if (s->n == 1 || v > s->max)
        s->max = v;
    return CM_OK;
}

/*
 * rank = max(1, ceil(p n)).  p n carries the rounding of p (0.1 is not
 * exactly 1/10) and of the product, together under 2 ulp: 0.1 * 30 gives
 * 3.0000000000000004.  Taking 4 ulp off before the ceiling keeps such
 * products on their integer; a p meant to land between ranks is off an
 * integer by far more than that for any n a trace can produce.
 */
static uint64_t quantile_rank(double p, uint64_t n)
{
    double x = p * (double)n;
    double r = ceil(x - x * 4.0 * DBL_EPSILON);

    if (r < 1.0)
        return 1;
    if (r >= (double)n)
        return n;
    return (uint64_t)r;
}

/* p below 0 or above 1 counts as 0 or 1; a NaN p gives NaN. */
double an_stat_quantile(an_stat_t *s, double p)
{
    uint64_t rank;

    if (s->n == 0 || isnan(p))
        return NAN;
    rank = quantile_rank(p < 0.0 ? 0.0 : (p > 1.0 ? 1.0 : p), s->n);
    if (s->hist != NULL)
        return hist_rank_value(s, rank);
    exact_sort(s);
    return s->exact[rank - 1];
}

void an_stat_summary(an_stat_t *s, an_summary_t *out)
{
    out->n = s->n;
    if (s->n == 0) {
        out->mean = out->median = out->stdev = NAN;
        out->min = out->max = out->p10 = out->p90 = NAN;
        return;
    }
    out->mean = s->mean;
    out->stdev = s->n >= 2 ? sqrt(s->m2 / (double)(s->n - 1)) : 0.0;
    out->min = s->min;
    out->max = s->max;
    out->median = an_stat_quantile(s, 0.5);
    out->p10 = an_stat_quantile(s, 0.1);
    out->p90 = an_stat_quantile(s, 0.9);
}

int an_stat_is_exact(const an_stat_t *s)
{
    return s->hist == NULL;
}

void an_stat_free(an_stat_t *s)
{
    free(s->exact);
    hist_destroy(s->hist);
    an_stat_init(s);
}

uint32_t an_stat_hist_blocks(const an_stat_t *s)
{
    return s->hist == NULL ? 0 : s->hist->nblocks;
}
