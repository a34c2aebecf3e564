/*
 * gsum - the allreduce benchmark of the PATHS paper (Figure 7).
 *
 *   mpirun -np H bin/gsum -p PATHMAP [-n N] [-w W] [-s 4,256] [--links threads|services]
 *   mpirun -np T bin/gsum --native  [-n N] [-w W] [-s 4,256]
 *
 * Every computational thread of the pathmap's tree (one MPI rank per host)
 * meets at a barrier, then makes N allreduces alternating between two
 * identical instances of the tree.  Every result is compared with its
 * closed-form value, and a wrong one aborts the job.  --native runs the
 * same loop with one contributor per rank calling MPI_Allreduce: the
 * baseline a user would otherwise pick.  --links picks who serves the
 * proxy links (rt_exec.h): the threads waiting in the tree, or one service
 * thread per link as in the PATHS paper, so that both can be compared.
 *
 * Contributions: thread t's element j in operation k is t + 1 + c with
 * c = (k mod V + j) mod 64, so results change from one operation to the
 * next (a stale result is caught) and the expected value is closed-form:
 * sum = sum(t + 1) + T c, min = min(t) + 1 + c, max = max(t) + 1 + c.  The
 * V input and expected tuples are built before timing (V = 64, fewer for
 * tuples over 64 KiB) so the timed loop only copies and compares.
 */
#include <stdio.h>
#include <stdlib.h>
#include "common/cm_argv.h"
#include "tools/gsum/gsum_int.h"

int g_rank;

int main(int argc, char **argv)
{
    gsum_opts_t o;
    cm_opt_t ctx;
    cm_err_t err;
    rt_args_t agreed;
    int rc, provided;

    cm_err_clear(&err);
    cm_opt_init(&ctx, "gsum");
    /* Every rank parses, then all agree: a rank whose options are wrong
     * (MPMD launches give ranks different ones) stops the others too.
     * --native runs one thread per rank, as a program calling MPI_Allreduce
     * would, so it asks for no thread support: MPI_THREAD_MULTIPLE costs
     * Open MPI about 0.2 us per small allreduce (docs/benchmarks.md). */
    if (gsum_parse_args(argc, argv, &o, &ctx) == CM_OK && !o.help && o.native) {
        if (MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
            fprintf(stderr, "gsum: MPI_Init_thread failed\n");
            return 1;
        }
    } else if (rt_mpi_init(&argc, &argv, &err) != CM_OK) {
        cm_err_print(stderr, "gsum: ", &err);
        MPI_Finalize();
        return 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    agreed = rt_mpi_agree_args(MPI_COMM_WORLD, &ctx, o.help, gsum_usage,
                               "gsum: try 'gsum --help'");
    if (agreed == RT_ARGS_RUN && gsum_agree_options(&o) != 0)
        agreed = RT_ARGS_BAD;
    if (agreed != RT_ARGS_RUN) {
        MPI_Finalize();
        return agreed == RT_ARGS_HELP ? 0 : 2;
    }
    o.command = cm_argv_join(argc, argv);
    rc = o.native ? gsum_run_native(&o) : gsum_run_tree(&o);
    free(o.command);
    fflush(stdout);
    MPI_Finalize();
    return rc;
}
