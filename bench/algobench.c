/*
 * algobench - the schedule executor against Open MPI's own implementation
 * of the same allreduce algorithm (issue 15, benchmarks), one thread per
 * rank.
 *
 *   mpirun -np P [--mca coll_tuned_use_dynamic_rules 1
 *                 --mca coll_tuned_allreduce_algorithm N] \
 *       bin/algobench [-a ALGO] [-s BYTES,...] [-r REPEATS] [-t int32|float|double]
 *                     [-w auto|nosleep] [--no-header]
 *
 * ALGO is a row of runtime/algo's table run through rt_algo_plan_run
 * (default ring); the other side is MPI_Allreduce on a duplicated
 * communicator, whose algorithm mpirun's flags choose (bench/algobench.sh
 * picks the one of the same name).  Per size, after a warm-up of both, the
 * two alternate in blocks of iterations (ours then MPI's, then MPI's then
 * ours, ... REPEATS blocks each); a block's time is the slowest rank's,
 * divided by its iterations.  Printed per size: the median and minimum
 * microseconds per operation of each side and the ratio of the medians
 * (ours / MPI's; below 1.0 ours is faster).  Each side's result is checked
 * once per size against the other's (sums of small integers: exact).
 * A size the algorithm cannot run (Rabenseifner below pof2 elements) is
 * printed as refused, with the generator's message.  -w: our side waits with
 * the runtime's policy (auto: spin, yield, then sleep with back-off) or never
 * sleeps (nosleep: spin, then yield for ever), to show what the sleeping costs.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/cm_opt.h"
#include "runtime/api/rt_algo_run.h"

#define MAX_SIZES   16
#define MAX_REPEATS 101

typedef struct bench {
    int              P, rank;
    MPI_Comm         ours_comm, mpi_comm;
    rt_algo_plan_t  *plan;
    rt_algo_call_t   call;
    rt_wait_policy_t policy;
    rt_dtype_t       dtype;
    const char      *algo;
} bench_t;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void fill(const bench_t *b, void *buf, int64_t n)
{
    for (int64_t j = 0; j < n; j++) {
        int v = (int)((j * 7 + b->rank * 13) % 19) - 9;

        if (b->dtype == RT_DTYPE_INT32)
            ((int32_t *)buf)[j] = v;
        else if (b->dtype == RT_DTYPE_FLOAT)
            ((float *)buf)[j] = (float)v;
        else
            ((double *)buf)[j] = v;
    }
}

/* One block: iters operations of one side; returns the slowest rank's s/op. */
static double block(bench_t *b, int ours, void *buf, int64_t n, long iters)
{
    double t0, t, tmax = 0;
    cm_err_t err;

    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++) {
        if (ours) {
            if (rt_algo_plan_run(b->plan, &b->call, buf, n, NULL, &err) != CM_OK) {
                char prefix[48];

                snprintf(prefix, sizeof(prefix), "algobench: rank %d: ", b->rank);
                cm_err_print(stderr, prefix, &err);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        } else {
            MPI_Allreduce(MPI_IN_PLACE, buf, (int)n, rt_mpi_dtype(b->dtype), MPI_SUM,
                          b->mpi_comm);
        }
    }
    t = MPI_Wtime() - t0;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return tmax / (double)iters;
}

/* Iterations per block: about 20 ms of work at this machine's speeds. */
static long iters_for(size_t bytes)
{
    if (bytes <= 256)
        return 2000;
    if (bytes <= 65536)
        return 200;
    if (bytes <= (1u << 20))
        return 20;
    return 3;
}

/* 0 if ours can run n elements (then checks its result against MPI's). */
static int probe(bench_t *b, void *buf, void *ref, int64_t n, char *why, size_t whylen)
{
    size_t esz = rt_dtype_size(b->dtype);
    cm_err_t err;
    int bad = 0, any = 0;

    fill(b, buf, n);
    fill(b, ref, n);
    if (rt_algo_plan_run(b->plan, &b->call, buf, n, NULL, &err) != CM_OK) {
        snprintf(why, whylen, "%s", err.msg);
        return -1;
    }
    MPI_Allreduce(MPI_IN_PLACE, ref, (int)n, rt_mpi_dtype(b->dtype), MPI_SUM, b->mpi_comm);
    bad = memcmp(buf, ref, (size_t)n * esz) != 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any) {
        if (b->rank == 0)
            fprintf(stderr, "algobench: %s: wrong result at %lld elements\n", b->algo,
                    (long long)n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return 0;
}

static void run_size(bench_t *b, size_t bytes, int repeats)
{
    size_t esz = rt_dtype_size(b->dtype);
    int64_t n = (int64_t)(bytes / esz ? bytes / esz : 1);
    long iters = iters_for(bytes);
    void *buf = malloc((size_t)n * esz), *ref = malloc((size_t)n * esz);
    double ours[MAX_REPEATS], mpi[MAX_REPEATS];
    char why[CM_ERR_MSG_MAX] = "";
    int refused = probe(b, buf, ref, n, why, sizeof why) != 0;

    block(b, 0, ref, n, iters / 4 + 1);             /* warm-up */
    if (!refused)
        block(b, 1, buf, n, iters / 4 + 1);
    for (int r = 0; r < repeats; r++) {
        int ours_first = r % 2 == 0;

        if (ours_first && !refused)
            ours[r] = block(b, 1, buf, n, iters);
        mpi[r] = block(b, 0, ref, n, iters);
        if (!ours_first && !refused)
            ours[r] = block(b, 1, buf, n, iters);
    }
    if (b->rank == 0) {
        double mo, mm, lo, lm;

        qsort(mpi, (size_t)repeats, sizeof *mpi, cmp_double);
        mm = mpi[repeats / 2] * 1e6;
        lm = mpi[0] * 1e6;
        if (refused) {
            printf("%-13s %2d %9zu %10s %10s %10.2f %10.2f %7s  refused: %s\n", b->algo, b->P,
                   bytes, "-", "-", mm, lm, "-", why);
        } else {
            qsort(ours, (size_t)repeats, sizeof *ours, cmp_double);
            mo = ours[repeats / 2] * 1e6;
            lo = ours[0] * 1e6;
            printf("%-13s %2d %9zu %10.2f %10.2f %10.2f %10.2f %7.3f\n", b->algo, b->P, bytes,
                   mo, lo, mm, lm, mo / mm);
        }
        fflush(stdout);
    }
    free(buf);
    free(ref);
}

typedef struct opts {
    size_t sizes[MAX_SIZES];
    int    nsizes, repeats, header, nosleep;
} opts_t;

static void usage(FILE *fp)
{
    fprintf(fp, "usage: algobench [-a ALGO] [-s BYTES,...] [-r REPEATS] [-t int32|float|double]"
            " [-w auto|nosleep] [--no-header]\n"
            "  under mpirun, one thread per rank: ALGO (ring, rd, rabenseifner, ...) through"
            " the\n  schedule executor against MPI_Allreduce, interleaved; bench/algobench.sh"
            " runs it\n  BYTES: 1..1TiB, K, M, G, T (powers of 1024), at most %d; REPEATS:"
            " 1..%d\n", MAX_SIZES, MAX_REPEATS);
}

/* Option c's value into b or o: CM_OK or the error, recorded in ctx. */
static cm_status_t apply_opt(cm_opt_t *ctx, bench_t *b, opts_t *o, int c, const char *opt,
                             const char *arg)
{
    static const cm_opt_word_t types[] = { { "int32", RT_DTYPE_INT32 },
        { "float", RT_DTYPE_FLOAT }, { "double", RT_DTYPE_DOUBLE } };
    static const cm_opt_word_t waits[] = { { "auto", 0 }, { "nosleep", 1 } };
    uint64_t v[MAX_SIZES];
    size_t n;
    int w;

    switch (c) {
    case 'a': b->algo = arg; return CM_OK;
    case 's':
        if (cm_opt_size_list(ctx, opt, arg, ',', 1, (uint64_t)1 << 40, v, MAX_SIZES, &n) != CM_OK)
            return ctx->status;
        for (size_t i = 0; i < n; i++)
            o->sizes[i] = (size_t)v[i];
        o->nsizes = (int)n;
        return CM_OK;
    case 'r': return cm_opt_int(ctx, opt, arg, 1, MAX_REPEATS, &o->repeats);
    case 't':
        if (cm_opt_word(ctx, opt, arg, types, 3, &w) == CM_OK)
            b->dtype = (rt_dtype_t)w;
        return ctx->status;
    case 'w': return cm_opt_word(ctx, opt, arg, waits, 2, &o->nosleep);
    case 'H': o->header = 0; return CM_OK;
    default: return cm_opt_fail(ctx, CM_ERR_INVALID, opt, "unexpected option");
    }
}

/* Every rank parses; rank 0 speaks.  0, 1 (-h: usage printed) or 2. */
static int parse(int argc, char **argv, bench_t *b, opts_t *o)
{
    static const struct option longopts[] = {
        { "no-header", no_argument, NULL, 'H' }, { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 } };
    const char *opt;
    cm_opt_t ctx;
    int c;

    cm_opt_init(&ctx, "algobench");
    while ((c = cm_opt_next(&ctx, argc, argv, ":a:s:r:t:w:h", longopts, &opt)) != -1) {
        if (c == 'h') {
            if (b->rank == 0)
                usage(stdout);
            return 1;
        }
        apply_opt(&ctx, b, o, c, opt, optarg);
    }
    if (ctx.status == CM_OK && optind < argc)
        cm_opt_fail(&ctx, CM_ERR_INVALID, NULL, "unexpected argument '%s' (algobench takes "
                    "options only)", argv[optind]);
    if (ctx.status == CM_OK)
        return 0;
    if (b->rank == 0) {
        cm_opt_print(&ctx, stderr);
        usage(stderr);
    }
    return 2;
}

int main(int argc, char **argv)
{
    bench_t b;
    rt_algo_spec_t spec;
    rt_host_id_t *hosts;
    opts_t o = { .sizes = { 4, 65536, 1u << 20, 16u << 20 }, .nsizes = 4, .repeats = 9,
                 .header = 1 };
    cm_err_t err;
    int rc;

    MPI_Init(&argc, &argv);
    memset(&b, 0, sizeof b);
    MPI_Comm_size(MPI_COMM_WORLD, &b.P);
    MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
    b.algo = "ring";
    b.dtype = RT_DTYPE_INT32;
    if ((rc = parse(argc, argv, &b, &o)) != 0) {
        MPI_Finalize();
        return rc == 1 ? 0 : rc;
    }
    memset(&spec, 0, sizeof spec);
    spec.run = rt_algo_find(b.algo);
    if (!spec.run || spec.run->coll != RT_COLL_ALLREDUCE) {
        if (b.rank == 0)
            fprintf(stderr, "algobench: '%s' is not an allreduce of the table\n", b.algo);
        MPI_Finalize();
        return 2;
    }
    hosts = calloc((size_t)b.P, sizeof *hosts);
    for (int i = 0; i < b.P; i++)
        hosts[i] = (rt_host_id_t)i;
    spec.hosts = hosts;
    spec.nhosts = (uint32_t)b.P;
    spec.round_ns = RT_ALGO_ROUND_NS_DEFAULT;
    MPI_Comm_dup(MPI_COMM_WORLD, &b.ours_comm);
    MPI_Comm_dup(MPI_COMM_WORLD, &b.mpi_comm);
    MPI_Comm_set_errhandler(b.ours_comm, MPI_ERRORS_RETURN);
    if (rt_algo_plan_create(&spec, b.rank, &b.plan, &err) != CM_OK) {
        cm_err_print(stderr, "algobench: ", &err);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    b.policy = rt_wait_policy_auto((uint32_t)b.P > rt_wait_cpus_available());
    if (o.nosleep)
        b.policy.yield_ns = UINT64_MAX;         /* spin, then yield, never sleep */
    b.call.comm = b.ours_comm;
    b.call.dtype = b.dtype;
    b.call.op = RT_OP_SUM;
    b.call.policy = &b.policy;
    if (b.rank == 0 && o.header)
        printf("%-13s %2s %9s %10s %10s %10s %10s %7s\n", "algo", "np", "bytes", "ours_med",
               "ours_min", "mpi_med", "mpi_min", "ratio");
    for (int i = 0; i < o.nsizes; i++)
        run_size(&b, o.sizes[i], o.repeats);
    rt_algo_plan_destroy(b.plan);
    MPI_Comm_free(&b.ours_comm);
    MPI_Comm_free(&b.mpi_comm);
    free(hosts);
    MPI_Finalize();
    return 0;
}
