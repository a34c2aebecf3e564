/*
 * native.c - gsum's the native baseline: one contributor per rank calling MPI_Allreduce,
 * the loop of the tree run with the same inputs and checks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tools/gsum/gsum_int.h"

/* ---- the native baseline -------------------------------------------- */

static MPI_Datatype native_type(rt_dtype_t dtype)
{
    return dtype == RT_DTYPE_INT32 ? MPI_INT32_T :
           dtype == RT_DTYPE_INT64 ? MPI_INT64_T :
           dtype == RT_DTYPE_FLOAT ? MPI_FLOAT : MPI_DOUBLE;
}

static MPI_Op native_op(rt_op_t op)
{
    return op == RT_OP_SUM ? MPI_SUM : op == RT_OP_MIN ? MPI_MIN : MPI_MAX;
}

static double native_size(gsum_run_t *r, MPI_Comm comm[2], unsigned char *in,
                          unsigned char *out)
{
    int count = (int)(r->bytes / rt_dtype_size(r->dtype));
    long k = 0;
    double t0;

    r->variants = gsum_variants_for(r->bytes);
    gsum_fill_expected(r);
    gsum_fill_inputs(r, (uint32_t)g_rank, in);
    MPI_Barrier(MPI_COMM_WORLD);
    for (long i = 0; i < r->o->warmup; i++, k++) {
        MPI_Allreduce(in + (size_t)(k % r->variants) * r->bytes, out, count,
                      native_type(r->dtype), native_op(r->op), comm[k & 1]);
        gsum_verify(r, (uint32_t)g_rank, k, out);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (long i = 0; i < r->o->iters; i++, k++) {
        MPI_Allreduce(in + (size_t)(k % r->variants) * r->bytes, out, count,
                      native_type(r->dtype), native_op(r->op), comm[k & 1]);
        gsum_verify(r, (uint32_t)g_rank, k, out);
    }
    return (MPI_Wtime() - t0) / (double)r->o->iters;
}

/* The level MPI runs at, as MPI names it. */
static const char *thread_level_name(void)
{
    int level = MPI_THREAD_SINGLE;

    MPI_Query_thread(&level);
    return level == MPI_THREAD_SINGLE ? "MPI_THREAD_SINGLE" :
           level == MPI_THREAD_FUNNELED ? "MPI_THREAD_FUNNELED" :
           level == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED" : "MPI_THREAD_MULTIPLE";
}

int gsum_run_native(const gsum_opts_t *o)
{
    gsum_run_t r;
    MPI_Comm comm[2];
    unsigned char *in = NULL, *out = NULL;
    gsum_need_t need = { 1, 0, 0, 0, 0 };
    size_t maxb, in_b, out_b;
    cm_status_t st = CM_OK;
    int size;

    if (gsum_check_sizes(o, o->dtype, &maxb) != 0)
        return 1;
    gsum_tuple_buffers(o, &in_b, &out_b);
    need.per_thread = (uint64_t)in_b + out_b;
    need.expected = in_b;
    if (gsum_check_memory(o, maxb, &need) != 0)
        return 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    memset(&r, 0, sizeof(r));
    r.o = o;
    r.dtype = o->dtype;
    r.op = o->op;
    r.nthreads = (uint32_t)size;
    r.min_id = 0;
    r.max_id = (uint32_t)size - 1;
    r.sum_ids = (uint64_t)size * (uint64_t)(size + 1) / 2;
    if ((in = gsum_alloc(in_b, "input tuples", g_rank)) == NULL ||
        (out = gsum_alloc(out_b, "result tuple", g_rank)) == NULL ||
        (r.expected = gsum_alloc(in_b, "expected results", -1)) == NULL)
        st = CM_ERR_NOMEM;
    if (gsum_agree_all(st) != 0) {
        free(in);
        free(out);
        free(r.expected);
        return 1;
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &comm[0]);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm[1]);
    if (g_rank == 0)
        printf("# paptree gsum --native: MPI_Allreduce, %d ranks (one contributor each), "
               "%s %s, 2 communicators, %s\n# warm-up %ld\n", size, rt_dtype_name(o->dtype),
               rt_op_name(o->op), thread_level_name(), o->warmup);
    gsum_print_header();
    for (int s = 0; s < o->nsizes; s++) {
        double per_op;
        r.bytes = o->sizes[s];
        per_op = native_size(&r, comm, in, out);
        gsum_report_row(o, r.bytes, &per_op, 1);
    }
    MPI_Comm_free(&comm[0]);
    MPI_Comm_free(&comm[1]);
    free(in);
    free(out);
    free(r.expected);
    return 0;
}
