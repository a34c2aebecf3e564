/*
 * ip_smoke.c - a plain MPI program (built with mpicc's flags alone, no
 * paptree header or library) for lib/libpaptree-mpi.so: run under
 * LD_PRELOAD with rules, its MPI_Allreduce, MPI_Reduce and MPI_Bcast go to
 * the library, which may run runtime/algo's algorithms; every result is
 * compared with Open MPI's own on the same input (PMPI_*, which the
 * library does not intercept).  Integers and min/max must match bit for
 * bit; the float and double inputs are small integers, so their sums are
 * exact in any order and must match too.
 *
 * Covers int32 (MPI_INT), int64 (MPI_LONG), float, double x sum, min, max
 * x MPI_IN_PLACE or not x counts 1, 5, 1000 x MPI_COMM_WORLD and a split
 * of it (odd and even ranks), a commutative user op (a fallback: Open
 * MPI's result), MPI_Bcast from every root, MPI_Reduce to every root, and
 * a nonblocking MPI_Iallreduce completed by MPI_Wait.
 *
 * usage: ip_smoke [ITERATIONS]   (default 3; exits 1 on the first wrong
 *                                 element, printing it)
 *        ip_smoke threads N      MPI_THREAD_MULTIPLE: two threads, each on its
 *                                 own duplicate of MPI_COMM_WORLD, run the
 *                                 allreduce, reduce and bcast cases at once,
 *                                 N iterations
 *        ip_smoke end abort|exit|term   one iteration, then rank 1 calls
 *                                 MPI_Abort, or every rank exits without
 *                                 MPI_Finalize, or rank 0 raises SIGTERM
 *                                 (the others wait for it to end the job)
 */
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank_w;

static void fail(const char *what, int count, int i, double got, double want)
{
    fprintf(stderr, "ip_smoke: rank %d: %s count %d: element %d is %g, Open MPI says %g\n",
            rank_w, what, count, i, got, want);
    exit(1);
}

static double get(const void *p, MPI_Datatype t, int i)
{
    if (t == MPI_INT)
        return ((const int *)p)[i];
    if (t == MPI_LONG)
        return (double)((const long *)p)[i];
    if (t == MPI_FLOAT)
        return ((const float *)p)[i];
    return ((const double *)p)[i];
}

static void put(void *p, MPI_Datatype t, int i, long v)
{
    if (t == MPI_INT)
        ((int *)p)[i] = (int)v;
    else if (t == MPI_LONG)
        ((long *)p)[i] = v;
    else if (t == MPI_FLOAT)
        ((float *)p)[i] = (float)v;
    else
        ((double *)p)[i] = (double)v;
}

static void fill(void *p, MPI_Datatype t, int count, int rank, int iter)
{
    for (int i = 0; i < count; i++)
        put(p, t, i, (long)((rank * 131 + i * 17 + iter * 7) % 1000) - 300);
}

static void same(const char *what, const void *got, const void *want, MPI_Datatype t, int count)
{
    int size;

    MPI_Type_size(t, &size);
    if (memcmp(got, want, (size_t)count * (size_t)size) == 0)
        return;
    for (int i = 0; i < count; i++)
        if (get(got, t, i) != get(want, t, i))
            fail(what, count, i, get(got, t, i), get(want, t, i));
    fail(what, count, -1, 0, 0);
}

static void my_sum(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void allreduce_case(MPI_Comm comm, MPI_Datatype t, MPI_Op op, int count, int in_place,
                           int iter)
{
    int rank;
    char *send = malloc(8 * (size_t)count), *recv = malloc(8 * (size_t)count),
         *want = malloc(8 * (size_t)count);

    MPI_Comm_rank(comm, &rank);
    fill(send, t, count, rank, iter);
    PMPI_Allreduce(send, want, count, t, op, comm);
    if (in_place) {
        memcpy(recv, send, 8 * (size_t)count);
        MPI_Allreduce(MPI_IN_PLACE, recv, count, t, op, comm);
    } else {
        MPI_Allreduce(send, recv, count, t, op, comm);
    }
    same(in_place ? "MPI_Allreduce in place" : "MPI_Allreduce", recv, want, t, count);
    free(send), free(recv), free(want);
}

static void rooted_cases(MPI_Comm comm, MPI_Datatype t, int count, int iter)
{
    int rank, size;
    char *send = malloc(8 * (size_t)count), *recv = malloc(8 * (size_t)count),
         *want = malloc(8 * (size_t)count);

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int root = 0; root < size; root++) {
        fill(send, t, count, rank, iter + root);
        PMPI_Reduce(send, want, count, t, MPI_SUM, root, comm);
        if (rank == root && iter % 2) {
            memcpy(recv, send, 8 * (size_t)count);
            MPI_Reduce(MPI_IN_PLACE, recv, count, t, MPI_SUM, root, comm);
        } else {
            MPI_Reduce(send, recv, count, t, MPI_SUM, root, comm);
        }
        if (rank == root)
            same("MPI_Reduce", recv, want, t, count);
        fill(want, t, count, root, iter);
        if (rank == root)
            memcpy(recv, want, 8 * (size_t)count);
        else
            memset(recv, 0, 8 * (size_t)count);
        MPI_Bcast(recv, count, t, root, comm);
        same("MPI_Bcast", recv, want, t, count);
    }
    free(send), free(recv), free(want);
}

static void nonblocking(MPI_Comm comm, int count)
{
    int *send = malloc(4 * (size_t)count), *recv = malloc(4 * (size_t)count),
        *want = malloc(4 * (size_t)count), rank;
    MPI_Request req;

    MPI_Comm_rank(comm, &rank);
    fill(send, MPI_INT, count, rank, 0);
    PMPI_Allreduce(send, want, count, MPI_INT, MPI_SUM, comm);
    MPI_Iallreduce(send, recv, count, MPI_INT, MPI_SUM, comm, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    same("MPI_Iallreduce", recv, want, MPI_INT, count);
    free(send), free(recv), free(want);
}

static void run(MPI_Comm comm, MPI_Op user, int iter)
{
    const MPI_Datatype types[] = { MPI_INT, MPI_LONG, MPI_FLOAT, MPI_DOUBLE };
    const MPI_Op ops[] = { MPI_SUM, MPI_MIN, MPI_MAX };
    const int counts[] = { 1, 5, 1000 };

    for (int c = 0; c < 3; c++) {
        for (int t = 0; t < 4; t++) {
            for (int o = 0; o < 3; o++)
                for (int p = 0; p < 2; p++)
                    allreduce_case(comm, types[t], ops[o], counts[c], p, iter);
            rooted_cases(comm, types[t], counts[c], iter);
        }
        allreduce_case(comm, MPI_INT, user, counts[c], 0, iter);
        nonblocking(comm, counts[c]);
    }
}

typedef struct thread_arg {
    MPI_Comm comm;
    MPI_Op   user;
    int      iters;
} thread_arg_t;

static void *thread_main(void *p)
{
    thread_arg_t *a = p;

    for (int i = 0; i < a->iters; i++)
        run(a->comm, a->user, i);
    return NULL;
}

/* Two threads at once, each on a communicator of its own. */
static int threads(int argc, char **argv, int iters)
{
    int provided;
    MPI_Op user;
    pthread_t t[2];
    thread_arg_t a[2];

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_w);
    if (provided != MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "ip_smoke: MPI gave thread level %d, not MPI_THREAD_MULTIPLE\n", provided);
        return 1;
    }
    MPI_Op_create(my_sum, 1, &user);
    for (int i = 0; i < 2; i++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &a[i].comm);
        a[i].user = user;
        a[i].iters = iters;
    }
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, thread_main, &a[i]);
    for (int i = 0; i < 2; i++) {
        pthread_join(t[i], NULL);
        MPI_Comm_free(&a[i].comm);
    }
    MPI_Op_free(&user);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank_w == 0)
        printf("ip_smoke: ok (2 threads, %d iterations)\n", iters);
    MPI_Finalize();
    return 0;
}

/* A run cut short after one iteration. */
static int end_short(int argc, char **argv, const char *how)
{
    MPI_Op user;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_w);
    MPI_Op_create(my_sum, 1, &user);
    run(MPI_COMM_WORLD, user, 0);
    if (strcmp(how, "abort") == 0 && rank_w == 1)
        MPI_Abort(MPI_COMM_WORLD, 3);
    if (strcmp(how, "exit") == 0)
        exit(0);
    if (strcmp(how, "term") == 0 && rank_w == 0)
        raise(SIGTERM);
    sleep(30);
    return 1;
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 3;

    if (argc > 2 && strcmp(argv[1], "end") == 0)
        return end_short(argc, argv, argv[2]);

    if (argc > 2 && strcmp(argv[1], "threads") == 0)
        return threads(argc, argv, atoi(argv[2]));
    MPI_Comm split;
    MPI_Op user;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_w);
    MPI_Op_create(my_sum, 1, &user);
    MPI_Comm_split(MPI_COMM_WORLD, rank_w % 2, rank_w, &split);
    for (int i = 0; i < iters; i++) {
        run(MPI_COMM_WORLD, user, i);
        run(split, user, i);
    }
    MPI_Comm_free(&split);
    MPI_Op_free(&user);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank_w == 0)
        printf("ip_smoke: ok (%d iterations)\n", iters);
    MPI_Finalize();
    return 0;
}
