/*
 * nbc.c - an MPI program as a user writes it (only <mpi.h>): nonblocking
 * collectives completed by every completion function, two requests in
 * flight at a time (tests/interpose/nonblocking.sh traces it and counts
 * one NonBlockingCollectiveRequest and one ...Complete per call).
 *
 *   MPI_Wait, MPI_Waitall, MPI_Waitany, MPI_Waitsome, MPI_Test loop,
 *   MPI_Testall, MPI_Testany, MPI_Testsome loops
 *
 * Each round issues an MPI_Iallreduce (int sum) and an MPI_Ibcast (double,
 * root rotating), or an MPI_Ireduce in place, checked against closed forms;
 * then pairs of collectives with nothing to do (count 0, MPI_COMM_SELF),
 * which share one request handle in Open MPI.
 * Prints the number of nonblocking calls (all ranks).  Exit status 1 on a
 * wrong result or index.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define N 257
enum { M_WAIT, M_WAITALL, M_WAITANY, M_WAITSOME, M_TEST, M_TESTALL, M_TESTANY, M_TESTSOME,
       NMODES };
static const char *const mode_names[NMODES] = { "MPI_Wait", "MPI_Waitall", "MPI_Waitany",
                                                "MPI_Waitsome", "MPI_Test", "MPI_Testall",
                                                "MPI_Testany", "MPI_Testsome" };
static int failures;

static void bad(const char *mode, const char *what, long got, long want)
{
    if (failures++ < 10)
        fprintf(stderr, "nbc: FAIL %s: %s: got %ld, expected %ld\n", mode, what, got, want);
}

/* Completes both requests the way `mode` says; checks indices and nulls. */
static void complete(int mode, MPI_Request req[2])
{
    const char *m = mode_names[mode];
    int done = 0, idx, flag, out, ind[2];

    switch (mode) {
    case M_WAIT:
        MPI_Wait(&req[0], MPI_STATUS_IGNORE);
        MPI_Wait(&req[1], MPI_STATUS_IGNORE);
        break;
    case M_WAITALL:
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        break;
    case M_WAITANY:
        while (done < 2) {
            MPI_Status st;
            MPI_Waitany(2, req, &idx, &st);
            if (idx != 0 && idx != 1)
                bad(m, "index", idx, 0);
            else if (req[idx] != MPI_REQUEST_NULL)
                bad(m, "request not null", idx, -1);
            done++;
        }
        break;
    case M_WAITSOME:
        while (done < 2) {
            MPI_Waitsome(2, req, &out, ind, MPI_STATUSES_IGNORE);
            if (out == MPI_UNDEFINED || out < 1)
                bad(m, "outcount", out, 1);
            else
                done += out;
        }
        break;
    case M_TEST:
        for (int i = 0; i < 2; i++)
            do
                MPI_Test(&req[i], &flag, MPI_STATUS_IGNORE);
            while (!flag);
        break;
    case M_TESTALL:
        do
            MPI_Testall(2, req, &flag, MPI_STATUSES_IGNORE);
        while (!flag);
        break;
    case M_TESTANY:
        while (done < 2) {
            MPI_Testany(2, req, &idx, &flag, MPI_STATUS_IGNORE);
            if (flag && idx != MPI_UNDEFINED)
                done++;
        }
        break;
    default:
        while (done < 2) {
            MPI_Testsome(2, req, &out, ind, MPI_STATUSES_IGNORE);
            if (out != MPI_UNDEFINED)
                done += out;
        }
        break;
    }
    if (req[0] != MPI_REQUEST_NULL || req[1] != MPI_REQUEST_NULL)
        bad(m, "requests left active", 1, 0);
}

int main(int argc, char **argv)
{
    int rank, size, x[N], y[N];
    double d[N];
    long calls = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int round = 0; round < 6; round++)
        for (int mode = 0; mode < NMODES; mode++) {
            MPI_Request req[2];
            int root = (round + mode) % size;
            for (int j = 0; j < N; j++) {
                x[j] = rank + j + mode;
                y[j] = -1;
                d[j] = rank == root ? j * 0.5 + round : -1;
            }
            if (round % 2 == 0)
                MPI_Iallreduce(x, y, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]);
            else
                MPI_Ireduce(rank == root ? MPI_IN_PLACE : x, rank == root ? x : y, N, MPI_INT, MPI_SUM, root,
                            MPI_COMM_WORLD, &req[0]);
            MPI_Ibcast(d, N, MPI_DOUBLE, root, MPI_COMM_WORLD, &req[1]);
            calls += 2;
            complete(mode, req);
            for (int j = 0; j < N; j++) {
                long want = (long)size * (size - 1) / 2 + (long)size * (j + mode);
                if (round % 2 == 0 && y[j] != want)
                    bad(mode_names[mode], "MPI_Iallreduce element", y[j], want);
                if (round % 2 == 1 && rank == root && x[j] != want)
                    bad(mode_names[mode], "MPI_Ireduce in place element", x[j], want);
                if (d[j] != j * 0.5 + round)
                    bad(mode_names[mode], "MPI_Ibcast element", (long)d[j], j);
            }
        }
    /* Collectives with nothing to do (count 0; a communicator of one rank):
       Open MPI 4.1.4 returns one shared, already complete request handle for
       each, so two in flight have the same handle. */
    for (int round = 0; round < 2; round++) {
        MPI_Request req[2];
        int a = 1, b = 0, c = 0;
        MPI_Iallreduce(&a, &b, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]);
        MPI_Iallreduce(&a, &c, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[1]);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        MPI_Iallreduce(&a, &b, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF, &req[0]);
        MPI_Iallreduce(&a, &c, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF, &req[1]);
        MPI_Wait(&req[1], MPI_STATUS_IGNORE);
        MPI_Wait(&req[0], MPI_STATUS_IGNORE);
        calls += 4;
        if (b != 1 || c != 1)
            bad("MPI_Wait", "MPI_Iallreduce on MPI_COMM_SELF", b * 10 + c, 11);
    }
    long all = 0;
    int any = 0;
    PMPI_Reduce(&calls, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    PMPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("nbc: %ld nonblocking calls, %d failures (all ranks)\n", all, any);
    MPI_Finalize();
    return any ? 1 : 0;
}
