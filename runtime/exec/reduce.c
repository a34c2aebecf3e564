/*
 * reduce.c - the reduction kernels of rt_reduce.h.  One small loop per
 * (type, op) so the compiler vectorises each; integer sums go through the
 * unsigned type so that overflow wraps instead of being undefined.
 */
#include <stdint.h>
#include "runtime/api/rt_reduce.h"

static void sum_i32(void *acc, const void *in, size_t n)
{
    uint32_t *a = acc;
    const uint32_t *b = in;
    for (size_t i = 0; i < n; i++)
        a[i] += b[i];
}

static void min_i32(void *acc, const void *in, size_t n)
{
    int32_t *a = acc;
    const int32_t *b = in;
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] < a[i] ? b[i] : a[i];
}

static void max_i32(void *acc, const void *in, size_t n)
{
    int32_t *a = acc;
    const int32_t *b = in;
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] > a[i] ? b[i] : a[i];
}

static void sum_i64(void *acc, const void *in, size_t n)
{
    uint64_t *a = acc;
    const uint64_t *b = in;
    for (size_t i = 0; i < n; i++)
        a[i] += b[i];
}

static void min_i64(void *acc, const void *in, size_t n)
{
    int64_t *a = acc;
    const int64_t *b = in;
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] < a[i] ? b[i] : a[i];
}

static void max_i64(void *acc, const void *in, size_t n)
{
    int64_t *a = acc;
    const int64_t *b = in;
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] > a[i] ? b[i] : a[i];
}

static void sum_dbl(void *acc, const void *in, size_t n)
{
    double *a = acc;
    const double *b = in;
    for (size_t i = 0; i < n; i++)
        a[i] += b[i];
}

static void min_dbl(void *acc, const void *in, size_t n)
{
    double *a = acc;
    const double *b = in;
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] < a[i] ? b[i] : a[i];
}

static void max_dbl(void *acc, const void *in, size_t n)
{
    double *a = acc;
    const double *b = in;
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] > a[i] ? b[i] : a[i];
}

static void sum_flt(void *acc, const void *in, size_t n)
{
    float *a = acc;
    const float *b = in;
    for (size_t i = 0; i < n; i++)
        a[i] += b[i];
}

static void min_flt(void *acc, const void *in, size_t n)
{
    float *a = acc;
    const float *b = in;
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] < a[i] ? b[i] : a[i];
}

static void max_flt(void *acc, const void *in, size_t n)
{
    float *a = acc;
    const float *b = in;
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] > a[i] ? b[i] : a[i];
}

/* Indexed [dtype][op] in the order of rt_pathmap.h's enums. */
static const rt_reduce_fn_t reduce_table[4][3] = {
    [RT_DTYPE_INT32]  = { [RT_OP_SUM] = sum_i32, [RT_OP_MIN] = min_i32, [RT_OP_MAX] = max_i32 },
    [RT_DTYPE_INT64]  = { [RT_OP_SUM] = sum_i64, [RT_OP_MIN] = min_i64, [RT_OP_MAX] = max_i64 },
    [RT_DTYPE_DOUBLE] = { [RT_OP_SUM] = sum_dbl, [RT_OP_MIN] = min_dbl, [RT_OP_MAX] = max_dbl },
    [RT_DTYPE_FLOAT]  = { [RT_OP_SUM] = sum_flt, [RT_OP_MIN] = min_flt, [RT_OP_MAX] = max_flt },
};

rt_reduce_fn_t rt_reduce_get(rt_dtype_t dtype, rt_op_t op)
{
    return reduce_table[dtype][op];
}
