/*
 * ip_report.c - drives paprun --report's table (interpose/ip_report.c,
 * compiled into this program) with calls of known cost; rank 0 writes the
 * table to OUT, and tests/mpi/ip-report.sh checks it against numbers
 * worked out by hand there.
 *
 *   build/tests/ip_report ranks OUT     (np 3) the sequence below
 *   build/tests/ip_report threads OUT   (np 2) two threads add at once
 *   build/tests/ip_report empty OUT     (np 2) no calls at all
 *   build/tests/ip_report lib OUT       (np 2) rank r: 3 calls of 32 B,
 *       1000 (r+1) ns, MPI_Allgather, "native", at a site 4 bytes into
 *       the C library's qsort (a shared library without debug information)
 *   build/tests/ip_report auto OUT      (np 2) an auto rule's choices
 *
 * "auto", rank r of 2: site_a, MPI_Allreduce, algorithm text
 * "auto(candidates=ring,prr)": 8 calls of 64 B, each 1000 (r+1) ns, the
 * first 5 chose prr and the last 3 ring (ip_report_chose), then 1 call of
 * 64 B, 1000 (r+1) ns, that fell back (count) and chose nothing.
 *
 * "ranks", rank r of 3 (every call's site is a return address inside this
 * program, so addr2line names the function and this file's line):
 *   site_a, MPI_Allreduce, "ring":   10 calls of 64 B, each 1000 (r+1) ns
 *   site_b, MPI_Bcast, "native":     5 calls of 100 B, each 10000 - 3000 r
 *                                    ns; fallbacks: ranks 0 and 1 count,
 *                                    count, count, datatype, none; rank 2
 *                                    count x 4, none
 *   site_with_a_long_function_name_for_the_report, MPI_Reduce, "rd":
 *                                    r+1 calls of 8 (r+1) B, each 500 ns,
 *                                    added half under one pointer to "rd"
 *                                    and half under another with the same
 *                                    text (one row: rows join by text)
 *   site_b, MPI_Barrier, "native":   rank 1 only, 2 calls of 0 B, each
 *                                    3000 ns
 *
 * "threads", rank r of 2: two threads start together (a barrier) and add
 * N = 200000 calls each to one row (site_a, MPI_Allreduce, "ring"):
 * thread t's calls are 8 (t+1) B and 1000 (t+1) + 2000 r ns, with
 * fallback op on every call of thread 0 and user-op on every 4th of
 * thread 1; and one call each to 20 rows (site_b, MPI_Barrier, "x00" ...
 * "x19", 0 B, 1000 ns), so that both threads' tables grow.
 */
#include <dlfcn.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "interpose/ip_report_int.h"

/* The sites: the return address of a call in a named function (the store
   after it keeps the call from becoming a tail jump). */
static const void *volatile site_a_addr, *volatile site_b_addr, *volatile site_c_addr;

__attribute__((noinline)) static const void *return_address(void)
{
    return __builtin_return_address(0);
}

__attribute__((noinline)) static void site_a(void)
{
    site_a_addr = return_address(); /* SITE_A */
}

__attribute__((noinline)) static void site_b(void)
{
    site_b_addr = return_address(); /* SITE_B */
}

__attribute__((noinline)) static void site_with_a_long_function_name_for_the_report(void)
{
    site_c_addr = return_address(); /* SITE_C */
}

/* Two pointers to the same algorithm text. */
static const char rd_one[] = "rd", rd_two[] = "rd";

static void add_ranks(ip_report_t *rep, int rank)
{
    for (int i = 0; i < 10; i++)
        ip_report_add(rep, site_a_addr, INS_MPI_ALLREDUCE, "ring", INS_FB_NONE, 64,
                      1000u * (unsigned)(rank + 1));
    for (int i = 0; i < 5; i++) {
        ins_mpi_fallback_t fb = INS_FB_NONE;
        if (rank < 2)
            fb = i < 3 ? INS_FB_COUNT : i == 3 ? INS_FB_DATATYPE : INS_FB_NONE;
        else
            fb = i < 4 ? INS_FB_COUNT : INS_FB_NONE;
        ip_report_add(rep, site_b_addr, INS_MPI_BCAST, "native", fb, 100,
                      10000u - 3000u * (unsigned)rank);
    }
    for (int i = 0; i < rank + 1; i++)
        ip_report_add(rep, site_c_addr, INS_MPI_REDUCE, i % 2 ? rd_two : rd_one, INS_FB_NONE,
                      8u * (unsigned)(rank + 1), 500);
    for (int i = 0; i < 2 && rank == 1; i++)
        ip_report_add(rep, site_b_addr, INS_MPI_BARRIER, "native", INS_FB_NONE, 0, 3000);
}

/* A site in a shared library: 4 bytes into qsort, the C library's own
   (asked of libc.so.6's handle: not a PLT entry of this program, nor a
   sanitizer's interceptor of the same name). */
static int add_lib(ip_report_t *rep, int rank)
{
    void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
    const char *qsort_addr = libc != NULL ? dlsym(libc, "qsort") : NULL;

    if (qsort_addr == NULL) {
        fprintf(stderr, "ip_report: qsort in libc.so.6: %s\n", dlerror());
        return -1;
    }
    dlclose(libc);
    for (int i = 0; i < 3; i++)
        ip_report_add(rep, qsort_addr + 4, INS_MPI_ALLGATHER, "native", INS_FB_NONE, 32,
                      1000u * (unsigned)(rank + 1));
    return 0;
}

enum { N_THREAD_CALLS = 200000, N_GROW = 20 };

typedef struct thread_arg {
    ip_report_t       *rep;
    pthread_barrier_t *start;
    int                rank, t;
} thread_arg_t;

static const char *const grow_algo[N_GROW] = {
    "x00", "x01", "x02", "x03", "x04", "x05", "x06", "x07", "x08", "x09",
    "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19",
};

static void *thread_main(void *p)
{
    const thread_arg_t *a = p;
    uint64_t bytes = 8u * (uint64_t)(a->t + 1);
    uint64_t ns = 1000u * (uint64_t)(a->t + 1) + 2000u * (uint64_t)a->rank;

    pthread_barrier_wait(a->start);
    for (int i = 0; i < N_THREAD_CALLS; i++) {
        ins_mpi_fallback_t fb = a->t == 0 ? INS_FB_OP : i % 4 == 0 ? INS_FB_USER_OP : INS_FB_NONE;
        ip_report_add(a->rep, site_a_addr, INS_MPI_ALLREDUCE, "ring", fb, bytes, ns);
        if (i < N_GROW)
            ip_report_add(a->rep, site_b_addr, INS_MPI_BARRIER, grow_algo[i], INS_FB_NONE, 0,
                          1000);
    }
    return NULL;
}

static int add_threads(ip_report_t *rep, int rank)
{
    pthread_barrier_t start;
    pthread_t th[2];
    thread_arg_t args[2];

    pthread_barrier_init(&start, NULL, 2);
    for (int t = 0; t < 2; t++) {
        args[t] = (thread_arg_t){ rep, &start, rank, t };
        if (pthread_create(&th[t], NULL, thread_main, &args[t]) != 0) {
            fprintf(stderr, "ip_report: pthread_create failed\n");
            return -1;
        }
    }
    for (int t = 0; t < 2; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&start);
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: ip_report ranks|threads|empty|lib OUT\n"
               "  ranks    (np 3) known calls on three sites, the table to OUT (rank 0)\n"
               "  threads  (np 2) two threads adding at once, the table to OUT (rank 0)\n"
               "  empty    (np 2) no calls, the table to OUT (rank 0)\n"
               "  lib      (np 2) calls at a site in the C library, the table to OUT (rank 0)\n"
               "  auto     (np 2) an auto rule's choices, the table to OUT (rank 0)\n");
}

static const char auto_text[] = "auto(candidates=ring,prr)";

static void add_auto(ip_report_t *rep, int rank)
{
    for (int i = 0; i < 8; i++) {
        ip_report_add(rep, site_a_addr, INS_MPI_ALLREDUCE, auto_text, INS_FB_NONE, 64,
                      1000u * (unsigned)(rank + 1));
        ip_report_chose(rep, site_a_addr, INS_MPI_ALLREDUCE, auto_text, i < 5 ? "prr" : "ring");
    }
    ip_report_add(rep, site_a_addr, INS_MPI_ALLREDUCE, auto_text, INS_FB_COUNT, 64,
                  1000u * (unsigned)(rank + 1));
}

int main(int argc, char **argv)
{
    int rank;

    if (argc == 2 && strcmp(argv[1], "--help") == 0) {
        usage(stdout);
        return 0;
    }
    if (argc != 3 || (strcmp(argv[1], "ranks") != 0 && strcmp(argv[1], "threads") != 0 &&
                      strcmp(argv[1], "empty") != 0 && strcmp(argv[1], "lib") != 0 &&
                      strcmp(argv[1], "auto") != 0)) {
        usage(stderr);
        return 2;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    site_a();
    site_b();
    site_with_a_long_function_name_for_the_report();
    ip_report_t *rep = ip_report_create();
    if (rep == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (strcmp(argv[1], "ranks") == 0)
        add_ranks(rep, rank);
    else if (strcmp(argv[1], "threads") == 0 && add_threads(rep, rank) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    else if (strcmp(argv[1], "lib") == 0 && add_lib(rep, rank) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    else if (strcmp(argv[1], "auto") == 0)
        add_auto(rep, rank);
    FILE *out = NULL;
    if (rank == 0 && (out = fopen(argv[2], "w")) == NULL) {
        perror(argv[2]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    ip_report_print(rep, MPI_COMM_WORLD, out);
    ip_report_free(rep);
    if (out != NULL && fclose(out) != 0) {
        perror(argv[2]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return 0;
}
