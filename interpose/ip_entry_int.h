/*
 * ip_entry_int.h - the library's entry points behind the MPI functions it
 * intercepts, with the call site passed in.
 *
 * MPI_Allreduce(...) is ip_allreduce(..., __builtin_return_address(0));
 * the Fortran bindings (ip_fortran.c), which Open MPI 4.1 routes to the
 * PMPI_ C functions and so past the C interceptors, convert their handles
 * and call the same entry points with their own caller's address, so a
 * Fortran call site is the Fortran program's.
 */
#ifndef IP_ENTRY_INT_H
#define IP_ENTRY_INT_H

#include <mpi.h>

/* After PMPI_Init / PMPI_Init_thread succeeded (C or Fortran): reads the
   settings, sets up the trace and the per-communicator state.  `provided`
   is the thread level MPI gave. */
void ip_after_init(int provided);

int ip_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dtype, MPI_Op op,
                 MPI_Comm comm, const void *site);
int ip_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dtype, MPI_Op op,
              int root, MPI_Comm comm, const void *site);
int ip_bcast(void *buf, int count, MPI_Datatype dtype, int root, MPI_Comm comm, const void *site);
int ip_barrier(MPI_Comm comm, const void *site);
int ip_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const void *site);
int ip_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                            MPI_Datatype dtype, MPI_Op op, MPI_Comm comm, const void *site);
int ip_iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dtype, MPI_Op op,
                  MPI_Comm comm, MPI_Request *req, const void *site);
int ip_ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dtype, MPI_Op op,
               int root, MPI_Comm comm, MPI_Request *req, const void *site);
int ip_ibcast(void *buf, int count, MPI_Datatype dtype, int root, MPI_Comm comm,
              MPI_Request *req, const void *site);

/*
 * The completion of the nonblocking collectives above (ip_req.c): each is
 * its PMPI_ function, and records the completion of every tracked request
 * it completed (a request of ip_iallreduce, ip_ireduce or ip_ibcast).
 * Nothing is tracked (no trace): the PMPI_ call and nothing else.
 */
int ip_wait(MPI_Request *req, MPI_Status *status, const void *site);
int ip_waitall(int n, MPI_Request reqs[], MPI_Status statuses[], const void *site);
int ip_waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status, const void *site);
int ip_waitsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[],
                const void *site);
int ip_test(MPI_Request *req, int *flag, MPI_Status *status, const void *site);
int ip_testall(int n, MPI_Request reqs[], int *flag, MPI_Status statuses[], const void *site);
int ip_testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status,
               const void *site);
int ip_testsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[],
                const void *site);
int ip_request_free(MPI_Request *req);

/* Before PMPI_Abort (C or Fortran): abandons the trace (ins_mpi_abandon). */
void ip_before_abort(void);

#endif /* IP_ENTRY_INT_H */
