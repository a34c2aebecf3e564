/*
 * jacobi.c - a plain MPI program, written without paptree, for paprun.
 *
 * Jacobi relaxation of the 1-D heat equation u'' = 0 on N points with
 * u(0) = 0 and u(N-1) = 1, the points cut into contiguous blocks over the
 * ranks by weights 1 : 1.5 : 2 : ..., so the ranks with more points reach
 * every reduction later: the uneven load that makes arrival patterns
 * imbalanced (Faraj, Patarasuk and Yuan, "A Study of Process Arrival
 * Patterns for MPI Collective Operations").  Per iteration: a halo swap
 * with the neighbours (MPI_Sendrecv), the update, and the largest change
 * (MPI_Allreduce, MPI_MAX) to decide when to stop; every 20 iterations the
 * heat content (MPI_Allreduce, MPI_SUM of 8 doubles: a small vector of
 * partial sums).  The parameters come from rank 0 (MPI_Bcast), the final
 * residual goes to it (MPI_Reduce).  Four call sites of collectives, each
 * with a different pattern, for `bin/paprun --trace` and papanalyze's
 * "Collectives by call site" (docs/paprun.md).
 *
 *     mpirun -np 4 bin/paprun --trace out/jacobi -- bin/jacobi [N [ITERS]]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define PARTS 8   /* the heat content's partial sums */

/* This rank's block [*lo, *hi) of n points, by weights 2 + r (1 : 1.5 : 2 : ...). */
static void block(long n, int rank, int size, long *lo, long *hi)
{
    long total = 0, before = 0;

    for (int r = 0; r < size; r++) {
        total += 2 + r;
        if (r < rank)
            before += 2 + r;
    }
    *lo = n * before / total;
    *hi = n * (before + 2 + rank) / total;
}

int main(int argc, char **argv)
{
    int rank, size;
    long params[2] = { 200000, 400 };   /* points, iterations */

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        if (argc > 1)
            params[0] = strtol(argv[1], NULL, 10);
        if (argc > 2)
            params[1] = strtol(argv[2], NULL, 10);
        if (params[0] < 2L * size || params[1] < 1) {
            fprintf(stderr, "jacobi: need N >= 2 x ranks and ITERS >= 1\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    MPI_Bcast(params, 2, MPI_LONG, 0, MPI_COMM_WORLD);
    long n = params[0], iters = params[1], lo, hi;
    block(n, rank, size, &lo, &hi);
    long m = hi - lo;

    /* u[0] and u[m+1] are the halo; u[1..m] are points lo..hi-1. */
    double *u = calloc((size_t)m + 2, sizeof(double));
    double *v = calloc((size_t)m + 2, sizeof(double));
    if (u == NULL || v == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (hi == n)
        u[m] = v[m] = 1.0;
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;

    double change = 0.0, heat[PARTS];
    long it;
    for (it = 0; it < iters; it++) {
        MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 0, &u[m + 1], 1, MPI_DOUBLE, right, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[m], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double local = 0.0;
        for (long i = 1; i <= m; i++) {
            long g = lo + i - 1;
            if (g == 0 || g == n - 1)
                continue;   /* the boundary stays */
            v[i] = 0.5 * (u[i - 1] + u[i + 1]);
            double d = v[i] > u[i] ? v[i] - u[i] : u[i] - v[i];
            if (d > local)
                local = d;
        }
        double *t = u;
        u = v;
        v = t;
        MPI_Allreduce(&local, &change, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (it % 20 == 19) {
            double part[PARTS] = { 0 };
            for (long i = 1; i <= m; i++)
                part[(lo + i - 1) % PARTS] += u[i];
            MPI_Allreduce(part, heat, PARTS, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        }
        if (change < 1e-12)
            break;
    }
    double residual = 0.0;
    MPI_Reduce(&change, &residual, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double total = 0.0;
        for (int k = 0; k < PARTS; k++)
            total += heat[k];
        printf("jacobi: %ld points on %d ranks, %ld iterations, last change %.6e, heat %.6e\n",
               n, size, it, residual, iters >= 20 ? total : 0.0);
    }
    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
