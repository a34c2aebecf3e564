/*
 * imbalance.c - an MPI program as a user writes it (only <mpi.h>): a loop
 * of allreduces from two call sites, one of which is imbalanced.  Per
 * iteration it:
 *   site "small": 16 int64, every rank on time;
 *   site "big":   COUNT int64 (and COUNT int32 with MPI_MAX), where on odd
 *                 iterations the last rank sleeps DELAY_MS ms first (a host
 *                 that comes late, the arrival pattern `auto` chooses by).
 * Every result is checked against Open MPI's own (PMPI_Allreduce, which
 * the profiling library does not intercept) and against its closed form.
 * Exits 1 with the first difference; rank 0 prints
 * "imbalance: ok, N MPI_Allreduce calls per rank" at the end.
 *
 *   imbalance [ITERS [COUNT [DELAY_MS]]]     (defaults 40, 4096, 3)
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int check64(const int64_t *got, const int64_t *pmpi, int n, int64_t base, int size,
                   int rank, int it, const char *site)
{
    for (int j = 0; j < n; j++) {
        /* sum over r of (r * 1000 + j + it) */
        int64_t want = base * size * (size - 1) / 2 + (int64_t)size * (j + it);
        if (got[j] != want || got[j] != pmpi[j]) {
            fprintf(stderr, "imbalance: FAIL rank %d iteration %d site %s element %d: %lld "
                    "(Open MPI %lld, expected %lld)\n", rank, it, site, j, (long long)got[j],
                    (long long)pmpi[j], (long long)want);
            return 1;
        }
    }
    return 0;
}

static int check_max(const int32_t *got, const int32_t *pmpi, int n, int size, int rank,
                     int it)
{
    for (int j = 0; j < n; j++) {
        int32_t want = (int32_t)((size - 1) * 7 + j % 100 - it);   /* the last rank's */
        if (got[j] != want || got[j] != pmpi[j]) {
            fprintf(stderr, "imbalance: FAIL rank %d iteration %d site big (max) element %d: "
                    "%d (Open MPI %d, expected %d)\n", rank, it, j, got[j], pmpi[j], want);
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    int rank, size, iters = argc > 1 ? atoi(argv[1]) : 40, count = argc > 2 ? atoi(argv[2]) : 4096;
    int delay_ms = argc > 3 ? atoi(argv[3]) : 3, calls = 0, bad = 0;

    if (iters < 1 || count < 1 || delay_ms < 0) {
        fprintf(stderr, "usage: imbalance [ITERS [COUNT [DELAY_MS]]] (positive)\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int64_t *x = malloc((size_t)count * sizeof *x), *y = malloc((size_t)count * sizeof *y);
    int64_t *z = malloc((size_t)count * sizeof *z);
    int32_t *m = malloc((size_t)count * sizeof *m), *mo = malloc((size_t)count * sizeof *mo);
    int32_t *mz = malloc((size_t)count * sizeof *mz);
    if (!x || !y || !z || !m || !mo || !mz)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int it = 0; it < iters && !bad; it++) {
        int64_t sx[16], sy[16], sz[16];

        for (int j = 0; j < 16; j++)
            sx[j] = (int64_t)rank * 1000 + j + it;
        PMPI_Allreduce(sx, sz, 16, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(sx, sy, 16, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);        /* small */
        bad |= check64(sy, sz, 16, 1000, size, rank, it, "small");
        for (int j = 0; j < count; j++) {
            x[j] = (int64_t)rank * 1000 + j + it;
            m[j] = rank * 7 + j % 100 - it;
        }
        PMPI_Allreduce(x, z, count, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        PMPI_Allreduce(m, mz, count, MPI_INT32_T, MPI_MAX, MPI_COMM_WORLD);
        if (it % 2 == 1 && rank == size - 1) {
            struct timespec ts = { delay_ms / 1000, (long)(delay_ms % 1000) * 1000000L };
            nanosleep(&ts, NULL);
        }
        MPI_Allreduce(x, y, count, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);       /* big */
        MPI_Allreduce(m, mo, count, MPI_INT32_T, MPI_MAX, MPI_COMM_WORLD);
        calls += 3;
        bad |= check64(y, z, count, 1000, size, rank, it, "big");
        bad |= check_max(mo, mz, count, size, rank, it);
    }
    if (bad)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("imbalance: ok, %d MPI_Allreduce calls per rank\n", calls);
    free(x); free(y); free(z); free(m); free(mo); free(mz);
    MPI_Finalize();
    return 0;
}
