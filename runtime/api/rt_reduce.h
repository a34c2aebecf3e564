/*
 * rt_reduce.h - element-wise reduction kernels, one per (type, op).
 */
#ifndef RT_REDUCE_H
#define RT_REDUCE_H

#include <stddef.h>
#include "runtime/api/rt_pathmap.h"

/* acc[i] = acc[i] OP in[i] for i < count.  Integer sums wrap (no UB). */
typedef void (*rt_reduce_fn_t)(void *acc, const void *in, size_t count);

/* Never NULL for the types and ops rt_pathmap.h defines. */
rt_reduce_fn_t rt_reduce_get(rt_dtype_t dtype, rt_op_t op);

#endif /* RT_REDUCE_H */
