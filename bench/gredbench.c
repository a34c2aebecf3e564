/*
 * gredbench - rounds per second of one gred wrapper shared by T threads in
 * one process, against a plain spin barrier that does the same reduction:
 * the limit a gred can approach.  No MPI.
 *
 *   gredbench [-r ROUNDS] [-b BYTES] [THREADS...]     (default 2 4 8)
 *
 * A round: every thread contributes a tuple, the last arrival "goes down"
 * (here: copies the accumulator, as a core would) and releases the others,
 * who copy the result.  Each round's sum is checked.  The reference spin
 * barrier (sense-reversing, atomic add of the contributions, waiters spin
 * with the pause hint and yield when threads outnumber CPUs) is what
 * docs/platform.md reports: 0.19 / 1.08 / 3.21 us for 2 / 4 / 8 threads.
 */
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/cm_opt.h"
#include "runtime/api/rt_gred.h"

typedef struct bench {
    int               nthreads;
    long              rounds;
    size_t            bytes;
    rt_gred_t         gred;
    pthread_barrier_t start;
    /* the reference barrier */
    _Alignas(64) atomic_uint count;
    _Alignas(64) atomic_uint sense;
    _Alignas(64) atomic_long sum;
    long              result;
    int               yield;
    atomic_int        errors;
} bench_t;

typedef struct worker {
    bench_t  *b;
    int       id;
    pthread_t thread;
} worker_t;

static void *gred_worker(void *arg)
{
    worker_t *w = arg;
    bench_t *b = w->b;
    int32_t in[64], out[64], n = (int32_t)(b->bytes / 4);
    int32_t want = b->nthreads * (b->nthreads + 1) / 2;

    for (int j = 0; j < n; j++)
        in[j] = w->id + 1;
    pthread_barrier_wait(&b->start);
    for (long r = 0; r < b->rounds; r++) {
        rt_gred_ticket_t t;

        if (rt_gred_arrive(&b->gred, in, b->bytes, &t)) {
            memcpy(out, rt_gred_acc(&b->gred), b->bytes);   /* the "core" */
            rt_gred_release(&b->gred, out);
        } else {
            rt_gred_wait(&b->gred, &t, out);
        }
        if (out[0] != want || out[n - 1] != want)
            atomic_fetch_add(&b->errors, 1);
    }
    return NULL;
}

static void *spin_worker(void *arg)
{
    worker_t *w = arg;
    bench_t *b = w->b;
    unsigned local_sense = 0;
    long want = (long)b->nthreads * (b->nthreads + 1) / 2;

    pthread_barrier_wait(&b->start);
    for (long r = 0; r < b->rounds; r++) {
        local_sense ^= 1;
        atomic_fetch_add(&b->sum, w->id + 1);
        if (atomic_fetch_add(&b->count, 1) + 1 == (unsigned)b->nthreads) {
            b->result = atomic_exchange(&b->sum, 0);
            atomic_store(&b->count, 0);
            atomic_store(&b->sense, local_sense);
        } else {
            while (atomic_load_explicit(&b->sense, memory_order_acquire) != local_sense) {
                rt_cpu_relax();
                if (b->yield)
                    sched_yield();
            }
        }
        if (b->result != want)
            atomic_fetch_add(&b->errors, 1);
        /* A second barrier phase is not needed: result is read before the
         * next round can complete, because that needs this thread's add. */
    }
    return NULL;
}

/* Runs `fn` on T threads; returns rounds per second. */
static double run(bench_t *b, void *(*fn)(void *))
{
    worker_t *w = calloc((size_t)b->nthreads, sizeof(*w));
    uint64_t t0, t1;

    pthread_barrier_init(&b->start, NULL, (unsigned)b->nthreads + 1);
    for (int i = 0; i < b->nthreads; i++) {
        w[i].b = b;
        w[i].id = i;
        pthread_create(&w[i].thread, NULL, fn, &w[i]);
    }
    pthread_barrier_wait(&b->start);
    t0 = rt_wait_now_ns();
    for (int i = 0; i < b->nthreads; i++)
        pthread_join(w[i].thread, NULL);
    t1 = rt_wait_now_ns();
    pthread_barrier_destroy(&b->start);
    free(w);
    return (double)b->rounds / ((double)(t1 - t0) * 1e-9);
}

static void usage(FILE *fp)
{
    fprintf(fp, "usage: gredbench [-r ROUNDS] [-b BYTES] [THREADS...]\n"
                "Rounds per second of one gred shared by THREADS threads (default 2 4 8)\n"
                "against a spin barrier doing the same reduction.  BYTES: 4..256, a\n"
                "multiple of 4 (default 4).  ROUNDS default 200000.  THREADS: 1..256,\n"
                "at most 16 counts.\n");
}

/* THREADS...: each 1..256, at most 16 of them. */
static cm_status_t parse_counts(cm_opt_t *ctx, int n, char **words, int *counts, int *ncounts)
{
    long v;

    if (n > 16)
        return cm_opt_fail(ctx, CM_ERR_RANGE, "THREADS", "%d counts, expected at most 16", n);
    for (int i = 0; i < n; i++) {
        if (cm_opt_long(ctx, "THREADS", words[i], 1, 256, &v) != CM_OK)
            return ctx->status;
        counts[i] = (int)v;
    }
    if (n > 0)
        *ncounts = n;
    return CM_OK;
}

typedef struct gb_opts {
    long     rounds;
    uint64_t bytes;
} gb_opts_t;

/* -r or -b with its argument. */
static cm_status_t parse_one(cm_opt_t *ctx, gb_opts_t *o, int c, const char *arg)
{
    cm_status_t st;

    if (c == 'r')
        return cm_opt_long(ctx, "-r", arg, 1, LONG_MAX, &o->rounds);
    if ((st = cm_opt_size(ctx, "-b", arg, 4, 256, &o->bytes)) == CM_OK && o->bytes % 4 != 0)
        return cm_opt_fail(ctx, CM_ERR_INVALID, "-b", "'%s' is not a whole number of 4-byte "
                           "elements, expected a multiple of 4 in 4..256", arg);
    return st;
}

/* 0 run, 1 --help (printed), 2 a bad option (said, with the usage line). */
static int parse_args(int argc, char **argv, gb_opts_t *o, int *counts, int *ncounts)
{
    static const struct option lo[] = { { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
    const char *opt;
    cm_opt_t ctx;
    int c;

    cm_opt_init(&ctx, "gredbench");
    while ((c = cm_opt_next(&ctx, argc, argv, ":r:b:h", lo, &opt)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return 1;
        }
        parse_one(&ctx, o, c, optarg);
    }
    if (ctx.status == CM_OK)            /* the operands, moved behind the options */
        (void)parse_counts(&ctx, argc - optind, argv + optind, counts, ncounts);
    if (ctx.status != CM_OK) {
        cm_opt_print(&ctx, stderr);
        fprintf(stderr, "usage: gredbench [-r ROUNDS] [-b BYTES] [THREADS...]\n");
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int counts[16] = { 2, 4, 8 }, ncounts = 3, rc;
    gb_opts_t o = { 200000, 4 };
    uint32_t cpus = rt_wait_cpus_available();
    long rounds;
    size_t bytes;

    if ((rc = parse_args(argc, argv, &o, counts, &ncounts)) != 0)
        return rc == 1 ? 0 : 2;
    rounds = o.rounds;
    bytes = (size_t)o.bytes;
    printf("# gredbench: %ld rounds, %zu-byte tuples, %u CPUs\n", rounds, bytes, cpus);
    printf("# %-7s %14s %14s %14s %14s %8s\n", "threads", "gred rounds/s", "gred us/round",
           "spin rounds/s", "spin us/round", "spin/gred");
    for (int c = 0; c < ncounts; c++) {
        bench_t b;
        rt_wait_policy_t pol = rt_wait_policy_auto((uint32_t)counts[c] > cpus);
        double g, s;

        memset(&b, 0, sizeof(b));
        b.nthreads = counts[c];
        b.rounds = rounds;
        b.bytes = bytes;
        b.yield = (uint32_t)counts[c] > cpus;
        if (rt_gred_init(&b.gred, (uint32_t)b.nthreads, RT_DTYPE_INT32, RT_OP_SUM, bytes,
                         RT_WAIT_AUTO, &pol) != CM_OK)
            return 1;
        g = run(&b, gred_worker);
        s = run(&b, spin_worker);
        rt_gred_cleanup(&b.gred);
        printf("  %-7d %14.0f %14.3f %14.0f %14.3f %8.2f%s\n", b.nthreads, g, 1e6 / g, s,
               1e6 / s, s / g, (uint32_t)b.nthreads > cpus ? "  (threads > CPUs)" : "");
        if (atomic_load(&b.errors) != 0) {
            fprintf(stderr, "gredbench: %d wrong results with %d threads\n",
                    atomic_load(&b.errors), b.nthreads);
            return 1;
        }
    }
    return 0;
}
