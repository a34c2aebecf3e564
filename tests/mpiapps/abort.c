/*
 * abort.c - an MPI program as a user writes it (only <mpi.h>): a few
 * collectives, then rank 1 calls MPI_Abort while the other ranks wait in
 * an MPI_Allreduce it never joins (tests/interpose/abort.sh).  Needs 2 or
 * more ranks.  mpirun must exit non-zero, quickly, and the profiling
 * library must leave no complete trace.
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size, x = 1, y = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < 50; i++) {
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Bcast(&y, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    if (y != size) {
        fprintf(stderr, "abort: FAIL rank %d: sum %d, expected %d\n", rank, y, size);
        return 1;
    }
    if (rank == 1) {
        usleep(200000);   /* the others are inside the allreduce by now */
        printf("abort: rank 1 calls MPI_Abort\n");
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    fprintf(stderr, "abort: FAIL rank %d left an allreduce rank 1 never joined\n", rank);
    MPI_Finalize();
    return 1;
}
