/*
 * errhandler.c - an MPI program as a user writes it (only <mpi.h>): a
 * communicator with MPI_ERRORS_RETURN, invalid calls on it (a negative
 * count, an invalid root), each of which must return an error whose class
 * is the one Open MPI's own function (PMPI_) returns for the same call,
 * and valid calls afterwards that must still work
 * (tests/interpose/errhandler.sh runs it under rules that choose
 * algorithms).  Exit status 1 on any difference.
 */
#include <mpi.h>
#include <stdio.h>

static int failures;

static int err_class(int rc)
{
    int c = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &c);
    return c;
}

/* The error class of the intercepted call must be Open MPI's, and an error. */
static void expect(const char *what, int got_rc, int want_rc)
{
    int got = err_class(got_rc), want = err_class(want_rc);
    if (want == MPI_SUCCESS || got != want) {
        char gs[MPI_MAX_ERROR_STRING] = "", ws[MPI_MAX_ERROR_STRING] = "";
        int len;
        MPI_Error_string(got, gs, &len);
        MPI_Error_string(want, ws, &len);
        fprintf(stderr, "errhandler: FAIL %s: error class %d (%s), Open MPI's is %d (%s)\n",
                what, got, gs, want, ws);
        failures++;
    }
}

int main(int argc, char **argv)
{
    MPI_Comm c;
    int rank, size, x[4] = { 1, 2, 3, 4 }, y[4];
    double d[1000], e[1000];

    MPI_Init(&argc, &argv);
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);

    expect("MPI_Allreduce count -1", MPI_Allreduce(x, y, -1, MPI_INT, MPI_SUM, c),
           PMPI_Allreduce(x, y, -1, MPI_INT, MPI_SUM, c));
    expect("MPI_Allreduce count -1 MPI_IN_PLACE",
           MPI_Allreduce(MPI_IN_PLACE, y, -1, MPI_DOUBLE, MPI_SUM, c),
           PMPI_Allreduce(MPI_IN_PLACE, y, -1, MPI_DOUBLE, MPI_SUM, c));
    expect("MPI_Reduce root = size", MPI_Reduce(x, y, 4, MPI_INT, MPI_SUM, size, c),
           PMPI_Reduce(x, y, 4, MPI_INT, MPI_SUM, size, c));
    expect("MPI_Reduce root -5", MPI_Reduce(x, y, 4, MPI_INT, MPI_SUM, -5, c),
           PMPI_Reduce(x, y, 4, MPI_INT, MPI_SUM, -5, c));
    expect("MPI_Reduce count -2", MPI_Reduce(x, y, -2, MPI_INT, MPI_SUM, 0, c),
           PMPI_Reduce(x, y, -2, MPI_INT, MPI_SUM, 0, c));
    expect("MPI_Bcast root = size", MPI_Bcast(x, 4, MPI_INT, size, c),
           PMPI_Bcast(x, 4, MPI_INT, size, c));
    expect("MPI_Bcast count -1", MPI_Bcast(x, -1, MPI_INT, 0, c),
           PMPI_Bcast(x, -1, MPI_INT, 0, c));
    expect("MPI_Allreduce MPI_OP_NULL", MPI_Allreduce(x, y, 4, MPI_INT, MPI_OP_NULL, c),
           PMPI_Allreduce(x, y, 4, MPI_INT, MPI_OP_NULL, c));
    expect("MPI_Allreduce MPI_DATATYPE_NULL",
           MPI_Allreduce(x, y, 4, MPI_DATATYPE_NULL, MPI_SUM, c),
           PMPI_Allreduce(x, y, 4, MPI_DATATYPE_NULL, MPI_SUM, c));
    MPI_Request req = MPI_REQUEST_NULL;
    expect("MPI_Iallreduce count -1", MPI_Iallreduce(x, y, -1, MPI_INT, MPI_SUM, c, &req),
           PMPI_Iallreduce(x, y, -1, MPI_INT, MPI_SUM, c, &req));

    /* The program goes on: valid calls on the same communicator work. */
    for (int i = 0; i < 1000; i++)
        d[i] = rank + i + 0.5;
    for (int round = 0; round < 3; round++) {
        int rc = MPI_Allreduce(d, e, 1000, MPI_DOUBLE, MPI_SUM, c);
        for (int i = 0; i < 1000; i++)
            if (rc != MPI_SUCCESS || e[i] != size * (size - 1) / 2.0 + size * (i + 0.5)) {
                fprintf(stderr, "errhandler: FAIL rank %d: MPI_Allreduce after the errors: rc %d, "
                        "element %d = %.17g\n", rank, rc, i, e[i]);
                failures++;
                break;
            }
        int v = rank == size - 1 ? 42 + round : 0;
        rc = MPI_Bcast(&v, 1, MPI_INT, size - 1, c);
        if (rc != MPI_SUCCESS || v != 42 + round) {
            fprintf(stderr, "errhandler: FAIL rank %d: MPI_Bcast after the errors: rc %d, %d\n",
                    rank, rc, v);
            failures++;
        }
        rc = MPI_Reduce(x, y, 4, MPI_INT, MPI_MAX, 0, c);
        if (rc != MPI_SUCCESS || (rank == 0 && (y[0] != 1 || y[3] != 4))) {
            fprintf(stderr, "errhandler: FAIL rank %d: MPI_Reduce after the errors: rc %d\n",
                    rank, rc);
            failures++;
        }
    }
    int any = 0;
    PMPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("errhandler: %d failures (all ranks)\n", any);
    MPI_Comm_free(&c);
    MPI_Finalize();
    return any ? 1 : 0;
}
