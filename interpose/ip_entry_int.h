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

#endif /* IP_ENTRY_INT_H */
