/*
 * ip_pmpi_int.h - inside lib/libpaptree-mpi.so, the MPI functions the
 * library intercepts are called by their PMPI_ names.
 *
 * The library links the runtime's schedule executor and the trace writer,
 * which call MPI_Isend, MPI_Testsome, MPI_Iallreduce, MPI_Gather, ... by
 * their MPI_ names.  Inside the preloaded library those names are the
 * library's own wrappers: an algorithm's MPI_Iallreduce would be traced as
 * the application's, its MPI_Testsome would walk the request table, and
 * the trace writer's MPI_Barrier at MPI_Finalize would record itself.  So
 * every object of the library except the wrappers themselves
 * (interpose/ip_wrap.c) is compiled with `-include` of this header
 * (Makefile, IP_PMPI_FLAGS), which sends the intercepted names to PMPI_.
 * Only the names the library defines need it; every other MPI function
 * reaches Open MPI as it is.
 */
#ifndef IP_PMPI_INT_H
#define IP_PMPI_INT_H

#include <mpi.h>

#define MPI_Init                 PMPI_Init
#define MPI_Init_thread          PMPI_Init_thread
#define MPI_Finalize             PMPI_Finalize
#define MPI_Abort                PMPI_Abort
#define MPI_Allreduce            PMPI_Allreduce
#define MPI_Reduce               PMPI_Reduce
#define MPI_Bcast                PMPI_Bcast
#define MPI_Barrier              PMPI_Barrier
#define MPI_Allgather            PMPI_Allgather
#define MPI_Reduce_scatter_block PMPI_Reduce_scatter_block
#define MPI_Iallreduce           PMPI_Iallreduce
#define MPI_Ireduce              PMPI_Ireduce
#define MPI_Ibcast               PMPI_Ibcast
#define MPI_Wait                 PMPI_Wait
#define MPI_Waitall              PMPI_Waitall
#define MPI_Waitany              PMPI_Waitany
#define MPI_Waitsome             PMPI_Waitsome
#define MPI_Test                 PMPI_Test
#define MPI_Testall              PMPI_Testall
#define MPI_Testany              PMPI_Testany
#define MPI_Testsome             PMPI_Testsome
#define MPI_Request_free         PMPI_Request_free

#endif /* IP_PMPI_INT_H */
