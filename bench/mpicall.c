/*
 * mpicall - what one collective call costs, timed as a user's program
 * would time it: plain MPI, no paptree header, built with mpicc alone
 * (Makefile: bin/mpicall), so that bench/paprun-overhead.sh can run the
 * very same binary plainly and under bin/paprun (issue 25, point 8a).
 *
 *   mpirun -np 2 bin/mpicall [-c COLL] [-s BYTES] [-n CALLS] [-w WARMUP] [-b BLOCKS]
 *   bin/mpicall --clock [-n READS]
 *
 * Collective mode: every rank makes WARMUP calls, a barrier, then CALLS
 * calls of COLL (allreduce, reduce or bcast of BYTES / 4 int32 elements,
 * MPI_SUM, root 0, on MPI_COMM_WORLD; or barrier) back to back, in BLOCKS
 * blocks of CALLS / BLOCKS calls (default 1 block), each block timed with
 * CLOCK_MONOTONIC.  Rank 0 prints one line,
 *
 *   coll=allreduce bytes=4 np=2 calls=100000 blocks=100 ns_per_call=312.5 least_block=301.2
 *
 * where a block's time is the slowest rank's, ns_per_call the median
 * block's time / its calls, least_block the least block's.  On a shared
 * machine a block during which a rank lost its core is an outlier the
 * median of many short blocks leaves out (a whole loop would not).  The result
 * of the last call is checked on every rank that receives one (allreduce:
 * every element is 1 + 2 + ... + np; reduce at root 0 the same; bcast:
 * element i is i + 1 as rank 0 sent it): a wrong result prints
 * "mpicall: rank R: ..." and exits 1, so a benchmark under a rule set that
 * computes wrong sums cannot pass for a fast one.
 *
 * Clock mode (no MPI): READS back-to-back reads of each clock a tracer
 * may use, one line each, ns per read:
 *
 *   clock=rdtsc reads=10000000 ns_per_read=9.6
 *   clock=monotonic_raw reads=10000000 ns_per_read=23.4
 *
 * (rdtsc only on x86).  The trace of the profiling library reads its clock
 * twice per call (enter and leave): the overhead goal of issue 25 is those
 * two reads plus 100 ns.
 *
 * Bad options: "mpicall: OPTION: what is wrong, expected RANGE" and the
 * usage line on stderr, exit 2, before MPI_Init (each rank says it).
 */
#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HAVE_RDTSC 1
#else
#define HAVE_RDTSC 0
#endif

#define USAGE "usage: mpicall [-c allreduce|reduce|bcast|barrier] [-s BYTES] [-n CALLS] " \
              "[-w WARMUP] [-b BLOCKS] | mpicall --clock [-n READS]"
#define BYTES_MAX  (1L << 30)
#define BLOCKS_MAX 100000L
#define CALLS_MAX  1000000000L

typedef enum { C_ALLREDUCE, C_REDUCE, C_BCAST, C_BARRIER } coll_t;
static const char *const coll_names[] = { "allreduce", "reduce", "bcast", "barrier" };

typedef struct opts {
    coll_t coll;
    long   bytes;
    long   calls;
    long   warmup;
    long   blocks;
    int    clock;
} opts_t;

static void usage_error(const char *fmt, ...)
{
    va_list ap;

    fputs("mpicall: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n%s\n", USAGE);
    exit(2);
}

/* A whole number in lo..hi, or exit 2 naming the option. */
static long parse_long(const char *opt, const char *text, long lo, long hi)
{
    char *end;
    long  v;

    errno = 0;
    v = strtol(text, &end, 10);
    if (end == text || *end != '\0')
        usage_error("%s: '%s' is not an integer, expected %ld..%ld", opt, text, lo, hi);
    if (errno == ERANGE || v < lo || v > hi)
        usage_error("%s: '%s' is out of range, expected %ld..%ld", opt, text, lo, hi);
    return v;
}

static const char *need_value(int argc, char **argv, int i)
{
    if (i + 1 >= argc)
        usage_error("option '%s' requires an argument", argv[i]);
    return argv[i + 1];
}

static void help(void)
{
    printf("%s\n\n"
           "  -c COLL     the collective timed: allreduce (default), reduce, bcast, barrier\n"
           "              (int32 MPI_SUM, root 0, MPI_COMM_WORLD)\n"
           "  -s BYTES    message size, a multiple of 4 in 4..%ld (default 4)\n"
           "  -n CALLS    timed calls (default 100000); with --clock, reads of each clock\n"
           "              (default 10000000)\n"
           "  -w WARMUP   untimed calls before the timed ones (default 1000)\n"
           "  -b BLOCKS   time the calls in BLOCKS blocks (1..%ld, at most CALLS; default 1)\n"
           "              and report the median block\n"
           "  --clock     no MPI: ns per read of each clock a tracer may use\n"
           "  -h, --help  this text\n"
           "Prints coll=... bytes=... np=... calls=... blocks=... ns_per_call=... least_block=...\n"
           "(per block the slowest rank's time / the block's calls: the median and the\n"
           "least block), or clock=... reads=... ns_per_read=...\n", USAGE, BYTES_MAX, BLOCKS_MAX);
}

static void parse(int argc, char **argv, opts_t *o)
{
    int calls_given = 0;

    *o = (opts_t){ C_ALLREDUCE, 4, 100000, 1000, 1, 0 };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];

        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            help();
            exit(0);
        } else if (!strcmp(a, "--clock")) {
            o->clock = 1;
        } else if (!strcmp(a, "-c")) {
            const char *v = need_value(argc, argv, i++);
            int         k = 0;

            while (k < 4 && strcmp(v, coll_names[k]))
                k++;
            if (k == 4)
                usage_error("-c: '%s' is not a collective, expected allreduce, reduce, bcast "
                            "or barrier", v);
            o->coll = (coll_t)k;
        } else if (!strcmp(a, "-s")) {
            const char *v = need_value(argc, argv, i++);

            o->bytes = parse_long("-s", v, 4, BYTES_MAX);
            if (o->bytes % 4)
                usage_error("-s: '%s' is not a multiple of 4, expected a multiple of 4 in "
                            "4..%ld", v, BYTES_MAX);
        } else if (!strcmp(a, "-n")) {
            o->calls = parse_long("-n", need_value(argc, argv, i++), 1, CALLS_MAX);
            calls_given = 1;
        } else if (!strcmp(a, "-w")) {
            o->warmup = parse_long("-w", need_value(argc, argv, i++), 0, CALLS_MAX);
        } else if (!strcmp(a, "-b")) {
            o->blocks = parse_long("-b", need_value(argc, argv, i++), 1, BLOCKS_MAX);
        } else if (a[0] == '-') {
            usage_error("unknown option '%s'", a);
        } else {
            usage_error("unexpected argument '%s'", a);
        }
    }
    if (o->clock && !calls_given)
        o->calls = 10000000;
    if (o->blocks > o->calls)
        usage_error("-b: '%ld' is more blocks than calls, expected 1..%ld (CALLS)", o->blocks,
                    o->calls);
}

static double now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ns per read of one clock; `sink` keeps the reads from being optimised away. */
static double time_reads(int which, long n, volatile uint64_t *sink)
{
    uint64_t sum = 0;
    double   t0 = now_ns();

    for (long i = 0; i < n; i++) {
        if (which == 0) {
#if HAVE_RDTSC
            sum += __rdtsc();
#endif
        } else {
            struct timespec ts;

            clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
            sum += (uint64_t)ts.tv_nsec;
        }
    }
    *sink = sum;
    return (now_ns() - t0) / (double)n;
}

static int run_clock(const opts_t *o)
{
    volatile uint64_t sink;

    if (HAVE_RDTSC)
        printf("clock=rdtsc reads=%ld ns_per_read=%.2f\n", o->calls, time_reads(0, o->calls, &sink));
    printf("clock=monotonic_raw reads=%ld ns_per_read=%.2f\n", o->calls,
           time_reads(1, o->calls, &sink));
    return 0;
}

static int one_call(const opts_t *o, int *send, int *recv, int count)
{
    switch (o->coll) {
    case C_ALLREDUCE: return MPI_Allreduce(send, recv, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    case C_REDUCE:    return MPI_Reduce(send, recv, count, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    case C_BCAST:     return MPI_Bcast(recv, count, MPI_INT, 0, MPI_COMM_WORLD);
    case C_BARRIER:   return MPI_Barrier(MPI_COMM_WORLD);
    }
    return MPI_ERR_ARG;
}

/* The last call's result on this rank: the index of the first wrong
   element, or -1. */
static long check(const opts_t *o, const int *recv, int count, int rank, int np)
{
    int sum = np * (np + 1) / 2;

    for (long i = 0; i < count; i++) {
        if ((o->coll == C_ALLREDUCE || (o->coll == C_REDUCE && rank == 0)) && recv[i] != sum)
            return i;
        if (o->coll == C_BCAST && recv[i] != (int)(i + 1))
            return i;
    }
    return -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static int run_coll(const opts_t *o)
{
    int     rank, np, count = (int)(o->bytes / 4);
    int    *send = malloc((size_t)o->bytes), *recv = malloc((size_t)o->bytes);
    double *ns = malloc((size_t)o->blocks * sizeof *ns);
    double *worst = malloc((size_t)o->blocks * sizeof *worst);
    long    bad, done = 0;

    if (!send || !recv || !ns || !worst) {
        fprintf(stderr, "mpicall: out of memory for %ld-byte buffers\n", o->bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    for (int i = 0; i < count; i++) {
        send[i] = rank + 1;
        recv[i] = o->coll == C_BCAST && rank == 0 ? i + 1 : -1;
    }
    for (long i = 0; i < o->warmup; i++)
        one_call(o, send, recv, count);
    MPI_Barrier(MPI_COMM_WORLD);
    /* Block b holds calls [calls * b / blocks, calls * (b + 1) / blocks);
       its time per call is kept (blocks may differ by one call). */
    for (long b = 0; b < o->blocks; b++) {
        long   end = (long)((double)o->calls * (double)(b + 1) / (double)o->blocks);
        long   n = end - done;
        double t0 = now_ns();

        for (long i = 0; i < n; i++)
            one_call(o, send, recv, count);
        ns[b] = (now_ns() - t0) / (double)n;
        done = end;
    }
    bad = check(o, recv, count, rank, np);
    if (bad >= 0) {
        fprintf(stderr, "mpicall: rank %d: %s of %d B: element %ld is %d, expected %d\n", rank,
                coll_names[o->coll], count * 4, bad, recv[bad],
                o->coll == C_BCAST ? (int)bad + 1 : np * (np + 1) / 2);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Reduce(ns, worst, (int)o->blocks, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        long k = o->blocks;

        qsort(worst, (size_t)k, sizeof *worst, cmp_double);
        printf("coll=%s bytes=%ld np=%d calls=%ld blocks=%ld ns_per_call=%.1f least_block=%.1f\n",
               coll_names[o->coll], o->bytes, np, o->calls, k,
               k % 2 ? worst[k / 2] : (worst[k / 2 - 1] + worst[k / 2]) / 2, worst[0]);
    }
    free(send);
    free(recv);
    free(ns);
    free(worst);
    return 0;
}

int main(int argc, char **argv)
{
    opts_t o;
    int    rc;

    parse(argc, argv, &o);
    if (o.clock)
        return run_clock(&o);
    MPI_Init(&argc, &argv);
    rc = run_coll(&o);
    MPI_Finalize();
    return rc;
}
