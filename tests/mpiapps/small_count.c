/*
 * small_count.c - an MPI program as a user writes it (only <mpi.h>):
 * 10 rounds of allreduces of 1 to 5 elements, int and double, from two
 * call sites; 1 to 3 are fewer than some algorithms accept (Rabenseifner
 * needs count >= the largest power of two <= P, 4 at np 4).  Under such a
 * rule (tests/interpose/small-count.sh) the library must fall back to Open
 * MPI and say so (30 fallbacks per site and rank at np 4), and never fail
 * the call.  Every result is checked against Open MPI's own
 * (PMPI_Allreduce) and its closed form.  Prints the number of
 * MPI_Allreduce calls (all ranks).
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, failures = 0, calls = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int it = 0; it < 10; it++)
        for (int n = 1; n <= 5; n++) {
            int x[5], y[5] = { 0 }, z[5] = { 0 };
            double a[5], b[5] = { 0 };
            for (int j = 0; j < n; j++) {
                x[j] = rank * 10 + j + it;
                a[j] = rank + j * 0.5;
            }
            PMPI_Allreduce(x, z, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            int rc = MPI_Allreduce(x, y, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            int rc2 = MPI_Allreduce(a, b, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            calls += 2;
            for (int j = 0; j < n; j++) {
                int want = 10 * size * (size - 1) / 2 + size * (j + it);
                double dwant = size * (size - 1) / 2.0 + size * j * 0.5;
                if (rc != MPI_SUCCESS || rc2 != MPI_SUCCESS || y[j] != want || y[j] != z[j] ||
                    b[j] != dwant) {
                    fprintf(stderr, "small_count: FAIL rank %d count %d element %d: rc %d %d, "
                            "int %d (Open MPI %d, expected %d), double %.17g (expected %.17g)\n",
                            rank, n, j, rc, rc2, y[j], z[j], want, b[j], dwant);
                    failures++;
                }
            }
        }
    int any = 0, all = 0;
    PMPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    PMPI_Reduce(&calls, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("small_count: MPI_Allreduce=%d calls, %d failures (all ranks)\n", all, any);
    MPI_Finalize();
    return any ? 1 : 0;
}
