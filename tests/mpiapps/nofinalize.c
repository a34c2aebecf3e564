/*
 * nofinalize.c - an MPI program as a user writes it (only <mpi.h>) that
 * returns from main without MPI_Finalize, after a few collectives
 * (tests/interpose/nofinalize.sh): the profiling library must leave no
 * complete trace and nothing may hang.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, x = 1, y = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < 20; i++)
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (y != size) {
        fprintf(stderr, "nofinalize: FAIL rank %d: sum %d, expected %d\n", rank, y, size);
        return 1;
    }
    printf("nofinalize: rank %d returns without MPI_Finalize\n", rank);
    return 0;
}
