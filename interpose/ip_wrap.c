/*
 * ip_wrap.c - the C MPI functions lib/libpaptree-mpi.so exports: each is
 * its entry point (ip_entry_int.h) with the caller's return address as the
 * call site, so a site is where the application called MPI.
 *
 * This file is the only one of the library compiled without
 * ip_pmpi_int.h: here MPI_Allreduce is the definition, not a call.  The
 * exported names are the MPI_ ones below and the Fortran ones
 * (ip_fortran.c); the linker's version script (interpose/ip_exports.map)
 * hides everything else, so none of the library's own symbols can clash
 * with an application's.
 */
#include "interpose/ip_int.h"

#define SITE __builtin_return_address(0)

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);

    if (rc == MPI_SUCCESS) {
        int provided = MPI_THREAD_SINGLE;

        PMPI_Query_thread(&provided);
        ip_after_init(provided);
    }
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);

    if (rc == MPI_SUCCESS)
        ip_after_init(*provided);
    return rc;
}

/* The work is done by MPI_COMM_SELF's attribute delete callback, which
   PMPI_Finalize runs first (ip_init.c). */
int MPI_Finalize(void)
{
    return PMPI_Finalize();
}

int MPI_Abort(MPI_Comm comm, int errorcode)
{
    ip_before_abort();
    return PMPI_Abort(comm, errorcode);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dtype, MPI_Op op,
                  MPI_Comm comm)
{
    return ip_allreduce(sendbuf, recvbuf, count, dtype, op, comm, SITE);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dtype, MPI_Op op,
               int root, MPI_Comm comm)
{
    return ip_reduce(sendbuf, recvbuf, count, dtype, op, root, comm, SITE);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype dtype, int root, MPI_Comm comm)
{
    return ip_bcast(buf, count, dtype, root, comm, SITE);
}

int MPI_Barrier(MPI_Comm comm)
{
    return ip_barrier(comm, SITE);
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return ip_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, SITE);
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype dtype, MPI_Op op, MPI_Comm comm)
{
    return ip_reduce_scatter_block(sendbuf, recvbuf, recvcount, dtype, op, comm, SITE);
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dtype,
                   MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    return ip_iallreduce(sendbuf, recvbuf, count, dtype, op, comm, req, SITE);
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dtype, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request *req)
{
    return ip_ireduce(sendbuf, recvbuf, count, dtype, op, root, comm, req, SITE);
}

int MPI_Ibcast(void *buf, int count, MPI_Datatype dtype, int root, MPI_Comm comm,
               MPI_Request *req)
{
    return ip_ibcast(buf, count, dtype, root, comm, req, SITE);
}

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    return ip_wait(req, status, SITE);
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
    return ip_waitall(n, reqs, statuses, SITE);
}

int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
    return ip_waitany(n, reqs, index, status, SITE);
}

int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int indices[],
                 MPI_Status statuses[])
{
    return ip_waitsome(n, reqs, outcount, indices, statuses, SITE);
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
    return ip_test(req, flag, status, SITE);
}

int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    return ip_testall(n, reqs, flag, statuses, SITE);
}

int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    return ip_testany(n, reqs, index, flag, status, SITE);
}

int MPI_Testsome(int n, MPI_Request reqs[], int *outcount, int indices[],
                 MPI_Status statuses[])
{
    return ip_testsome(n, reqs, outcount, indices, statuses, SITE);
}

int MPI_Request_free(MPI_Request *req)
{
    return ip_request_free(req);
}
