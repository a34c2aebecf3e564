/*
 * expect.c - gsum's contributions and expected results: the closed form of gsum.c's
 * header, built before timing, and the check of every result.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tools/gsum/gsum_int.h"

/* ---- contributions and expected results ---------------------------- */

static void put_value(rt_dtype_t dtype, void *buf, size_t j, uint64_t v)
{
    if (dtype == RT_DTYPE_INT32)
        ((uint32_t *)buf)[j] = (uint32_t)v;
    else if (dtype == RT_DTYPE_INT64)
        ((uint64_t *)buf)[j] = v;
    else if (dtype == RT_DTYPE_FLOAT)
        ((float *)buf)[j] = (float)v;   /* exact: every value and sum < 2^24 */
    else
        ((double *)buf)[j] = (double)v;
}

unsigned gsum_variants_for(size_t bytes)
{
    size_t v = ((size_t)4 << 20) / (bytes * GSUM_VARIANTS);
    return v >= GSUM_VARIANTS ? GSUM_VARIANTS : v < 2 ? 2 : (unsigned)v;
}

/* Thread `id`'s V input tuples of `bytes`. */
void gsum_fill_inputs(const gsum_run_t *r, uint32_t id, unsigned char *in)
{
    size_t elem = rt_dtype_size(r->dtype), n = r->bytes / elem;

    for (unsigned v = 0; v < r->variants; v++) {
        for (size_t j = 0; j < n; j++)
            put_value(r->dtype, in + v * r->bytes, j, id + 1 + ((v + j) % 64));
    }
}

/*
 * For tests only: PAPTREE_GSUM_TEST_WRONG=1 makes every expected value off
 * by one, so that every thread finds a wrong result in its first operation
 * at the same moment (tests/mpi/gsum-wrong-result.sh).  Read here, where
 * the expected tuples are built, never in the timed loop.
 */
static uint64_t test_wrong_offset(void)
{
    const char *v = getenv("PAPTREE_GSUM_TEST_WRONG");

    return v != NULL && strcmp(v, "1") == 0;
}

void gsum_fill_expected(gsum_run_t *r)
{
    size_t elem = rt_dtype_size(r->dtype), n = r->bytes / elem;
    uint64_t off = test_wrong_offset();

    for (unsigned v = 0; v < r->variants; v++) {
        for (size_t j = 0; j < n; j++) {
            uint64_t c = (v + j) % 64, x;
            if (r->op == RT_OP_SUM)
                x = r->sum_ids + (uint64_t)r->nthreads * c;
            else
                x = (r->op == RT_OP_MIN ? r->min_id : r->max_id) + 1 + c;
            put_value(r->dtype, r->expected + v * r->bytes, j, x + off);
        }
    }
}

/*
 * The first thread of this rank to find a wrong result reports it and
 * aborts the job; any other thread that finds one meanwhile waits for the
 * abort to end the process: two threads inside MPI_Abort at once can crash
 * Open MPI, and one report is what the user needs.
 */
static atomic_int g_wrong;

static void wait_for_abort(void)
{
    for (;;)
        pause();
}

void gsum_verify(const gsum_run_t *r, uint32_t id, long k, const void *out)
{
    const unsigned char *want = r->expected + (size_t)(k % r->variants) * r->bytes;
    size_t elem = rt_dtype_size(r->dtype);

    if (memcmp(out, want, r->bytes) == 0)
        return;
    if (atomic_exchange(&g_wrong, 1) != 0)
        wait_for_abort();
    for (size_t j = 0; j < r->bytes / elem; j++) {
        if (memcmp((const char *)out + j * elem, want + j * elem, elem) == 0)
            continue;
        fprintf(stderr, "gsum: rank %d: thread %u, operation %ld, element %zu: wrong "
                "result (%s %s over %u threads): got 0x%llx, expected 0x%llx\n",
                g_rank, id, k, j, rt_dtype_name(r->dtype), rt_op_name(r->op),
                r->nthreads, elem == 4 ? (unsigned long long)((const uint32_t *)out)[j]
                                       : (unsigned long long)((const uint64_t *)out)[j],
                elem == 4 ? (unsigned long long)((const uint32_t *)want)[j]
                          : (unsigned long long)((const uint64_t *)want)[j]);
        break;
    }
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

int gsum_check_sizes(const gsum_opts_t *o, rt_dtype_t dtype, size_t *max_p)
{
    size_t elem = rt_dtype_size(dtype);

    *max_p = 0;
    for (int s = 0; s < o->nsizes; s++) {
        if (o->sizes[s] % elem != 0) {
            if (g_rank == 0)
                fprintf(stderr, "gsum: -s %zu is not a multiple of the %zu-byte %s "
                        "element\n", o->sizes[s], elem, rt_dtype_name(dtype));
            return -1;
        }
        if (o->sizes[s] > *max_p)
            *max_p = o->sizes[s];
    }
    return 0;
}
