/*
 * report.c - gsum's the rows: per-thread time per allreduce over all threads, OSU-style.
 */
#include <math.h>
#include <stdio.h>
#include "tools/gsum/gsum_int.h"

/* Rank 0 prints one row: per-thread time per allreduce, over all threads. */
void gsum_report_row(const gsum_opts_t *o, size_t bytes, const double *per_op,
                       uint32_t n)
{
    double mine[3] = { INFINITY, 0.0, 0.0 }, all[3];
    double mn[1], mx[1], sum[1];
    uint32_t count = 0;

    for (uint32_t i = 0; i < n; i++) {
        mine[0] = fmin(mine[0], per_op[i]);
        mine[1] = fmax(mine[1], per_op[i]);
        mine[2] += per_op[i];
    }
    MPI_Reduce(&mine[0], mn, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine[1], mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine[2], sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&n, &count, 1, MPI_UINT32_T, MPI_SUM, 0, MPI_COMM_WORLD);
    all[0] = mn[0], all[1] = mx[0], all[2] = sum[0];
    if (g_rank == 0)
        printf("%-10zu%18.2f%18.2f%18.2f%14ld\n", bytes, all[2] / count * 1e6,
               all[0] * 1e6, all[1] * 1e6, o->iters);
}

void gsum_print_header(void)
{
    if (g_rank == 0)
        printf("# %-8s%18s%18s%18s%14s\n", "Size", "Avg Latency(us)", "Min Latency(us)",
               "Max Latency(us)", "Iterations");
}
