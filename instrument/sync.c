/*
 * sync.c - each host's clock offset to rank 0, by ping-pong.
 *
 * Rank 0 serves the other ranks one at a time.  Rank r sends an empty
 * message at local time a, rank 0 answers with its clock reading t0, and
 * r receives it at b.  If the two legs take equally long, rank 0 read t0
 * at r's time (a + b) / 2, so offset = t0 - (a + b) / 2, with an error of
 * at most (b - a) / 2.  Of SYNC_ROUNDS round trips we keep the shortest:
 * the one least disturbed by the scheduler (the usual NTP-style filter).
 */
#include "instrument/ins_int.h"

#define SYNC_WARMUP 5
#define SYNC_ROUNDS 50
#define SYNC_TAG    7

int ins__sync_offset(MPI_Comm comm, ins_offset_t *out)
{
    int rank, size;
    uint64_t t0;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    out->time = ins__clock_now();
    out->offset = 0;
    out->rtt = 0;
    for (int r = 1; r < size; r++) {
        for (int k = 0; k < SYNC_WARMUP + SYNC_ROUNDS; k++) {
            if (rank == 0) {
                if (MPI_Recv(NULL, 0, MPI_BYTE, r, SYNC_TAG, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
                    return -1;
                t0 = ins__clock_now();
                if (MPI_Send(&t0, 1, MPI_UINT64_T, r, SYNC_TAG, comm) != MPI_SUCCESS)
                    return -1;
            } else if (rank == r) {
                uint64_t a = ins__clock_now(), b;

                if (MPI_Send(NULL, 0, MPI_BYTE, 0, SYNC_TAG, comm) != MPI_SUCCESS ||
                    MPI_Recv(&t0, 1, MPI_UINT64_T, 0, SYNC_TAG, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
                    return -1;
                b = ins__clock_now();
                if (k >= SYNC_WARMUP && (out->rtt == 0 || b - a < out->rtt)) {
                    out->rtt = b - a;
                    out->time = a + (b - a) / 2;
                    out->offset = (int64_t)(t0 - out->time);
                }
            }
        }
    }
    return 0;
}
