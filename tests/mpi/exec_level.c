/*
 * exec_level - rt_exec_create fails on every rank, without a hang, when
 * the MPI thread level is not MPI_THREAD_MULTIPLE on some ranks only.
 *
 *   mpirun -np 2 build/tests/exec_level PATHMAP
 *
 * Rank 1 lowers its own thread level the way Open MPI 4.1 lets a library
 * do it by accident: MPI_T_init_thread(MPI_THREAD_SINGLE) sets the
 * process's level (the executor once did exactly that, and the random
 * trees caught it: only the ranks that had run an algorithm node failed
 * the check, the others went on into the next collective and the job
 * hung).  Then every rank calls rt_exec_create.  Exit 0 iff rank 1 really
 * runs below MPI_THREAD_MULTIPLE and every rank got an error: rank 1 its
 * own reason, rank 0 one naming rank 1.
 */
#include <stdio.h>
#include <string.h>
#include "runtime/api/rt_exec.h"

int main(int argc, char **argv)
{
    rt_exec_params_t params = { .ninstances = 1, .max_bytes = 4, .spin_ns = -1,
                                .yield_ns = -1 };
    rt_pathmap_t *pm = NULL;
    rt_exec_t *ex = NULL;
    cm_err_t err;
    int rank, provided, level = 0, ok = 1;
    cm_status_t st;

    if (argc != 2) {
        fprintf(stderr, "usage: mpirun -np 2 exec_level PATHMAP\n");
        return 2;
    }
    if (rt_mpi_init(&argc, &argv, &err) != CM_OK) {
        fprintf(stderr, "exec_level: %s\n", err.msg);
        return 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rt_pathmap_load(argv[1], &pm, &err) != CM_OK) {
        fprintf(stderr, "exec_level: %s\n", err.msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 1) {
        MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
        MPI_Query_thread(&level);
        if (level == MPI_THREAD_MULTIPLE) {
            fprintf(stderr, "exec_level: MPI_T_init_thread(MPI_THREAD_SINGLE) left the "
                    "level at MPI_THREAD_MULTIPLE: this MPI cannot stage the case\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    st = rt_exec_create(pm, &params, MPI_COMM_WORLD, &ex, &err);
    if (st == CM_OK) {
        fprintf(stderr, "exec_level: rank %d: rt_exec_create succeeded\n", rank);
        rt_exec_destroy(ex);
        ok = 0;
    } else if (rank == 1 && strstr(err.msg, "MPI_THREAD_MULTIPLE") == NULL) {
        fprintf(stderr, "exec_level: rank 1: unexpected error: %s\n", err.msg);
        ok = 0;
    } else if (rank == 0 && strstr(err.msg, "rank 1 failed") == NULL) {
        fprintf(stderr, "exec_level: rank 0: unexpected error: %s\n", err.msg);
        ok = 0;
    } else {
        printf("exec_level: rank %d: %s\n", rank, err.msg);
    }
    rt_pathmap_destroy(pm);
    MPI_Finalize();
    return ok ? 0 : 1;
}
