/*
 * threads.c - an MPI program as a user writes it (only <mpi.h>): two
 * threads run collectives at the same time, each on its own duplicate of
 * MPI_COMM_WORLD, under MPI_THREAD_MULTIPLE (tests/interpose/threads.sh
 * runs it under bin/paprun).  Every result is checked against its closed
 * form.  MPI must give MPI_THREAD_MULTIPLE: a lower level is a failure (the
 * library must not lower it; Debian's Open MPI gives it).
 *
 * usage: threads [ITERATIONS]   (default 300)
 * Exit status 1 on a wrong result or a thread level below MULTIPLE.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NELEM 700

typedef struct {
    MPI_Comm comm;
    int      id, rank, size, iters;
    long     failures, calls;
} worker_t;

static void fail(worker_t *w, const char *what, int it, int j, double got, double want)
{
    if (w->failures++ < 10)
        fprintf(stderr, "threads: FAIL rank %d thread %d iteration %d: %s element %d: got %.17g, "
                "expected %.17g\n", w->rank, w->id, it, what, j, got, want);
}

static void *run(void *arg)
{
    worker_t *w = arg;
    static __thread int32_t iv[NELEM], ir[NELEM];
    static __thread double dv[NELEM], dr[NELEM];
    int P = w->size, r = w->rank;

    for (int it = 0; it < w->iters; it++) {
        /* x = (r + 1) * (it + 1) + thread id + j: sum over ranks closed form. */
        int n = 1 + (it * 37 + w->id * 11) % NELEM;
        for (int j = 0; j < n; j++) {
            iv[j] = (r + 1) * (it + 1) + w->id + j;
            dv[j] = iv[j] + 0.25;
        }
        MPI_Allreduce(iv, ir, n, MPI_INT, MPI_SUM, w->comm);
        MPI_Allreduce(dv, dr, n, MPI_DOUBLE, MPI_MAX, w->comm);
        w->calls += 2;
        for (int j = 0; j < n; j++) {
            int32_t want = (it + 1) * P * (P + 1) / 2 + P * (w->id + j);
            double dmax = (double)(P * (it + 1) + w->id + j) + 0.25;
            if (ir[j] != want)
                fail(w, "MPI_Allreduce sum", it, j, ir[j], want);
            if (dr[j] != dmax)
                fail(w, "MPI_Allreduce max", it, j, dr[j], dmax);
        }
        int root = it % P;
        for (int j = 0; j < n; j++)
            iv[j] = r == root ? it * 3 + j + w->id : -1;
        MPI_Bcast(iv, n, MPI_INT, root, w->comm);
        for (int j = 0; j < n; j++)
            if (iv[j] != it * 3 + j + w->id)
                fail(w, "MPI_Bcast", it, j, iv[j], it * 3 + j + w->id);
        for (int j = 0; j < n; j++)
            dv[j] = r * 0.5 + j + it;
        MPI_Reduce(dv, dr, n, MPI_DOUBLE, MPI_SUM, root, w->comm);
        if (r == root)
            for (int j = 0; j < n; j++) {
                double want = 0.5 * P * (P - 1) / 2 + (double)P * (j + it);
                if (dr[j] != want)
                    fail(w, "MPI_Reduce sum", it, j, dr[j], want);
            }
        MPI_Barrier(w->comm);
        w->calls += 3;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, iters = argc > 1 ? atoi(argv[1]) : 300;
    if (iters < 1 || iters > 1000000) {
        fprintf(stderr, "threads: ITERATIONS: '%s' is not a number, expected 1 to 1000000\n",
                argv[1]);
        return 2;
    }
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "threads: FAIL: MPI gave thread level %d, MPI_THREAD_MULTIPLE (%d) "
                "needed\n", provided, MPI_THREAD_MULTIPLE);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    worker_t w[2];
    pthread_t tid[2];
    for (int t = 0; t < 2; t++) {
        w[t] = (worker_t){ MPI_COMM_NULL, t, 0, 0, iters, 0, 0 };
        MPI_Comm_dup(MPI_COMM_WORLD, &w[t].comm);
        MPI_Comm_rank(w[t].comm, &w[t].rank);
        MPI_Comm_size(w[t].comm, &w[t].size);
    }
    for (int t = 0; t < 2; t++)
        if (pthread_create(&tid[t], NULL, run, &w[t]) != 0) {
            fprintf(stderr, "threads: FAIL: pthread_create\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    for (int t = 0; t < 2; t++)
        pthread_join(tid[t], NULL);
    long bad = w[0].failures + w[1].failures, any = 0, calls = w[0].calls + w[1].calls, all = 0;
    PMPI_Allreduce(&bad, &any, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    PMPI_Reduce(&calls, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (w[0].rank == 0)
        printf("threads: %d iterations x 2 threads, %ld collective calls, %ld failures "
               "(all ranks)\n", iters, all, any);
    for (int t = 0; t < 2; t++)
        MPI_Comm_free(&w[t].comm);
    MPI_Finalize();
    return any ? 1 : 0;
}
