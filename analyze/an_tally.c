/*
 * an_tally.c - an exact multiset of values (an_tally_int.h).
 *
 * Open addressing with linear probing over the value's bit pattern, the
 * table doubled before it is half full.  The median sorts the distinct values
 * (a scratch array of slot indexes) and walks their counts to rank
 * ceil(n / 2): O(d log d) for d distinct values, once per run.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/an_tally_int.h"

#define TALLY_MIN_CAP 64u

void an_tally_init(an_tally_t *t)
{
    memset(t, 0, sizeof(*t));
}

/* splitmix64's finaliser: every bit of the key moves the slot. */
static size_t slot_of(double v, size_t cap)
{
    uint64_t x;

    memcpy(&x, &v, sizeof(x));
    x ^= x >> 30;
    x *= UINT64_C(0xbf58476d1ce4e5b9);
    x ^= x >> 27;
    x *= UINT64_C(0x94d049bb133111eb);
    x ^= x >> 31;
    return (size_t)x & (cap - 1);
}

/* The slot holding v, or the empty slot where it goes. */
static size_t find(const double *val, const uint64_t *cnt, size_t cap, double v)
{
    size_t i = slot_of(v, cap);

    while (cnt[i] != 0 && val[i] != v)
        i = (i + 1) & (cap - 1);
    return i;
}

static cm_status_t grow(an_tally_t *t)
{
    size_t cap = t->cap ? 2 * t->cap : TALLY_MIN_CAP;
    double *val = malloc(cap * sizeof(*val));
    uint64_t *cnt = calloc(cap, sizeof(*cnt));

    if (val == NULL || cnt == NULL) {
        free(val);
        free(cnt);
        return CM_ERR_NOMEM;
    }
    for (size_t i = 0; i < t->cap; i++) {
        if (t->cnt[i] != 0) {
            size_t j = find(val, cnt, cap, t->val[i]);
            val[j] = t->val[i];
            cnt[j] = t->cnt[i];
        }
    }
    free(t->val);
    free(t->cnt);
    t->val = val;
    t->cnt = cnt;
    t->cap = cap;
    return CM_OK;
}

cm_status_t an_tally_add(an_tally_t *t, double v)
{
    size_t i;

    if (isnan(v))
        return CM_ERR_INVALID;
    v += 0.0;                             /* -0 becomes +0: one value */
    if (2 * (t->nkeys + 1) > t->cap && grow(t) != CM_OK)
        return CM_ERR_NOMEM;
    i = find(t->val, t->cnt, t->cap, v);
    if (t->cnt[i] == 0) {
        t->val[i] = v;
        t->nkeys++;
    }
    t->cnt[i]++;
    t->n++;
    return CM_OK;
}

static int value_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

cm_status_t an_tally_median(const an_tally_t *t, double *out)
{
    uint64_t rank = (t->n + 1) / 2, seen = 0;
    double *keys;
    size_t k = 0;

    *out = NAN;
    if (t->n == 0)
        return CM_OK;
    if ((keys = malloc(t->nkeys * sizeof(*keys))) == NULL)
        return CM_ERR_NOMEM;
    for (size_t i = 0; i < t->cap; i++)
        if (t->cnt[i] != 0)
            keys[k++] = t->val[i];
    qsort(keys, k, sizeof(*keys), value_cmp);
    for (size_t i = 0; i < k; i++) {
        seen += t->cnt[find(t->val, t->cnt, t->cap, keys[i])];
        if (seen >= rank) {
            *out = keys[i];
            break;
        }
    }
    free(keys);
    return CM_OK;
}

void an_tally_free(an_tally_t *t)
{
    free(t->val);
    free(t->cnt);
    an_tally_init(t);
}
