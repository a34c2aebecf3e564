/*
 * netfit - measures this machine's alpha, beta and gamma, the three numbers
 * of papsim's linear cost model (a message of n bytes costs alpha + beta*n,
 * reducing n bytes at the receiver gamma*n), and writes them in the file
 * `papsim --net FILE` reads (docs/netfit.md).
 *
 *   mpirun -np 2 bin/netfit [-o FILE] [-r REPEATS] [--max-bytes B]
 *                           [--gamma-bytes B] [--quick]
 *
 * How it measures, all on 2 ranks:
 *   - ping-pong: rank 0 sends n bytes to rank 1, which sends them back;
 *     a sample is the time of `iters` round trips / (2 iters), the half
 *     round trip.  Sizes are the powers of two from 4 B (one float) to
 *     --max-bytes (default 16 MiB); iters per size is calibrated once so
 *     that a sample lasts about 2 ms (--quick: 0.2 ms).
 *   - reduction: both ranks at once (as in a collective) time one call of
 *     the project's own kernel, rt_reduce_get(float, sum), on two buffers
 *     of --gamma-bytes each (default 64 MiB: larger than the caches, so it
 *     runs at memory speed); a sample is seconds per reduced byte, the mean
 *     of the two ranks.
 *   - interleaving: each repeat runs every size and the reduction once, in
 *     an order shuffled per repeat (the same on both ranks), so that a
 *     change of the machine's load hits all sizes alike; each figure is the
 *     median over the repeats (default 21).
 * Results: alpha = the median half round trip of the smallest size; beta =
 * the slope of the least-squares fit t = a + beta*n over every size's
 * median, weighted by 1/t^2 so that relative residuals count (its
 * intercept a, its RMS and largest relative residuals are printed and
 * written as comments); gamma = the median reduction sample.  --quick (few sizes, 3 repeats, 1 MiB buffers) is for
 * tests: its numbers are not measurements.
 *
 * Exit status: 0 done, 1 failure (not 2 ranks, out of memory, the file
 * cannot be written), 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/cm_opt.h"
#include "runtime/api/rt_reduce.h"
#include "runtime/api/rt_sim.h"

#define MAX_SIZES   64
#define MAX_REPEATS 1001
#define TAG         17

typedef struct opts {
    const char *out;            /* -o FILE, or NULL */
    int         repeats;
    int64_t     max_bytes, gamma_bytes;
    int64_t     size_step;      /* sizes grow by this factor */
    double      sample_s;       /* target time of one ping-pong sample */
    int         quick;
} opts_t;

typedef struct run {
    int      rank;
    int      nsizes;
    int64_t  sizes[MAX_SIZES];
    long     iters[MAX_SIZES];
    double  *pp;                /* [size][repeat] half round trips (rank 0) */
    double  *gam;               /* [repeat] this rank's s/B of reduction */
    char    *sbuf, *rbuf;       /* max_bytes each */
    float   *acc, *in;          /* gamma_bytes each */
} run_t;

typedef struct fit {
    double alpha, beta, icept, rms, maxrel, gamma, gamma0, gamma1;    /* rms: relative */
    int64_t maxrel_at;
} fit_t;

static void usage(FILE *fp)
{
    fprintf(fp,
"usage: mpirun -np 2 netfit [-o FILE] [-r REPEATS] [--max-bytes B]\n"
"                           [--gamma-bytes B] [--quick]\n"
"Measures alpha (s per message: the half round trip of a 4-byte ping-pong),\n"
"beta (s per byte: the slope of a least-squares fit t = a + beta*n, weighted\n"
"1/t^2, of the ping-pong over the powers of two from 4 B to --max-bytes) and\n"
"gamma (s per byte reduced: the project's float sum kernel on buffers larger\n"
"than the caches, both ranks at once); sizes and reduction interleaved in a\n"
"shuffled order per repeat, medians over the repeats.  Prints the table and\n"
"the fit; -o writes alpha=, beta=, gamma= for `papsim --net FILE`.\n"
"\n"
"  -o, --output FILE     write the key=value file\n"
"  -r, --repeats N       repeats, 1..%d (default 21)\n"
"      --max-bytes B     largest ping-pong, 4..1GiB (default 16MiB)\n"
"      --gamma-bytes B   each reduction buffer, 4..4GiB (default 64MiB)\n"
"                        (B: bytes, or K, M, G: powers of 1024)\n"
"      --quick           a test run: sizes 4 B..64 KiB by 16x, 3 repeats, 1 MiB\n"
"                        buffers, 0.2 ms samples (not a measurement)\n"
"  -h, --help            this text\n"
"Exit status: 0 done, 1 failure (not 2 ranks, out of memory, FILE not\n"
"written), 2 usage error.\n", MAX_REPEATS);
}

/* Option c's value: CM_OK or the error, recorded in ctx; the byte counts
   wait in *maxb_p and *gamb_p (0: not given) for --quick's defaults. */
static cm_status_t apply_opt(cm_opt_t *ctx, opts_t *o, int c, const char *opt,
                             const char *arg, uint64_t *maxb_p, uint64_t *gamb_p)
{

    switch (c) {
    case 'o': o->out = arg; return CM_OK;
    case 'r': return cm_opt_int(ctx, opt, arg, 1, MAX_REPEATS, &o->repeats);
    case 'm': return cm_opt_size(ctx, opt, arg, 4, (uint64_t)1 << 30, maxb_p);
    case 'g': return cm_opt_size(ctx, opt, arg, 4, (uint64_t)1 << 32, gamb_p);
    case 'q': o->quick = 1; return CM_OK;
    default: return cm_opt_fail(ctx, CM_ERR_INVALID, opt, "unexpected option");
    }
}

/* 0, or the exit status (-1: --help, exit 0). */
static int parse_opts(int argc, char **argv, opts_t *o)
{
    static const struct option lo[] = {
        { "output", required_argument, NULL, 'o' }, { "repeats", required_argument, NULL, 'r' },
        { "max-bytes", required_argument, NULL, 'm' },
        { "gamma-bytes", required_argument, NULL, 'g' },
        { "quick", no_argument, NULL, 'q' }, { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    uint64_t maxb = 0, gamb = 0;
    const char *opt;
    cm_opt_t ctx;
    int c;

    cm_opt_init(&ctx, "netfit");
    o->repeats = 0;
    while ((c = cm_opt_next(&ctx, argc, argv, ":o:r:h", lo, &opt)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return -1;
        }
        apply_opt(&ctx, o, c, opt, optarg, &maxb, &gamb);
    }
    (void)cm_opt_no_operands(&ctx, argc, argv);
    if (ctx.status != CM_OK) {
        cm_opt_print(&ctx, stderr);
        fprintf(stderr, "usage: mpirun -np 2 netfit [-o FILE] [-r REPEATS] [--max-bytes B] "
                        "[--gamma-bytes B] [--quick] (netfit -h)\n");
        return 2;
    }
    if (o->repeats == 0)
        o->repeats = o->quick ? 3 : 21;
    o->max_bytes = maxb > 0 ? (int64_t)maxb : o->quick ? 65536 : 16 << 20;
    o->gamma_bytes = gamb > 0 ? (int64_t)gamb & ~INT64_C(3) : o->quick ? 1 << 20 : 64 << 20;
    o->size_step = o->quick ? 16 : 2;
    o->sample_s = o->quick ? 0.2e-3 : 2e-3;
    return 0;
}

/* splitmix64: the same shuffle on both ranks. */
static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* The median of v[0..n) (sorts a copy). */
static double median(const double *v, int n)
{
    double tmp[MAX_REPEATS];

    memcpy(tmp, v, (size_t)n * sizeof *tmp);
    qsort(tmp, (size_t)n, sizeof *tmp, cmp_double);
    return n % 2 ? tmp[n / 2] : 0.5 * (tmp[n / 2 - 1] + tmp[n / 2]);
}

/* iters round trips of n bytes; rank 0 returns the half round trip. */
static double pingpong(run_t *r, int64_t n, long iters)
{
    double t0 = MPI_Wtime();

    for (long i = 0; i < iters; i++) {
        if (r->rank == 0) {
            MPI_Send(r->sbuf, (int)n, MPI_BYTE, 1, TAG, MPI_COMM_WORLD);
            MPI_Recv(r->rbuf, (int)n, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(r->rbuf, (int)n, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(r->rbuf, (int)n, MPI_BYTE, 0, TAG, MPI_COMM_WORLD);
        }
    }
    return (MPI_Wtime() - t0) / (2.0 * (double)iters);
}

/*
 * Iterations per sample: rank 0 doubles a batch of round trips until it
 * lasts a quarter of a sample (or 2^16 trips), then scales it to a sample.
 */
static void calibrate(run_t *r, const opts_t *o)
{
    for (int s = 0; s < r->nsizes; s++) {
        long n = 1;
        int more = 1;
        double t = 0;

        pingpong(r, r->sizes[s], 2);                 /* warm-up */
        while (more) {
            t = pingpong(r, r->sizes[s], n) * 2;     /* one round trip */
            more = r->rank == 0 && t * (double)n < o->sample_s / 4 && n < 65536;
            MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);
            n *= more ? 2 : 1;
        }
        r->iters[s] = t > 0 ? (long)ceil(o->sample_s / t) : n;
        if (r->iters[s] < 1)
            r->iters[s] = 1;
        if (r->iters[s] > 100000)
            r->iters[s] = 100000;
    }
    MPI_Bcast(r->iters, r->nsizes, MPI_LONG, 0, MPI_COMM_WORLD);
}

/* One reduction sample on this rank: seconds per reduced byte. */
static double reduce_sample(run_t *r, const opts_t *o)
{
    rt_reduce_fn_t fn = rt_reduce_get(RT_DTYPE_FLOAT, RT_OP_SUM);
    size_t count = (size_t)(o->gamma_bytes / 4);
    double t0;

    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    fn(r->acc, r->in, count);
    return (MPI_Wtime() - t0) / (double)(count * 4);
}

/* The repeats: every size and the reduction, in a shuffled order. */
static void measure(run_t *r, const opts_t *o)
{
    int order[MAX_SIZES + 1];
    uint64_t seed = 17;

    for (int rep = 0; rep < o->repeats; rep++) {
        for (int i = 0; i <= r->nsizes; i++)
            order[i] = i;
        for (int i = r->nsizes; i > 0; i--) {
            int j = (int)(splitmix64(&seed) % (uint64_t)(i + 1)), t = order[i];

            order[i] = order[j];
            order[j] = t;
        }
        for (int i = 0; i <= r->nsizes; i++) {
            int s = order[i];

            if (s == r->nsizes) {
                r->gam[rep] = reduce_sample(r, o);
                continue;
            }
            pingpong(r, r->sizes[s], 1);             /* after another size */
            r->pp[s * o->repeats + rep] = pingpong(r, r->sizes[s], r->iters[s]);
        }
    }
}

/*
 * Least squares t = a + b n over the medians, each point weighted by
 * 1/t^2: the relative residuals are minimised, so that 4 B and 16 MiB
 * count alike (unweighted, the largest sizes alone would set the line and
 * its intercept would be meaningless).  alpha, beta, the residuals.
 */
static void fit_model(const run_t *r, const opts_t *o, const double *gam1, fit_t *f)
{
    double med[MAX_SIZES], w[MAX_SIZES], sw = 0, mn = 0, mt = 0, sxx = 0, sxy = 0, ss = 0;
    int k = r->nsizes;

    for (int s = 0; s < k; s++) {
        med[s] = median(&r->pp[s * o->repeats], o->repeats);
        w[s] = med[s] > 0 ? 1 / (med[s] * med[s]) : 1;
        sw += w[s];
    }
    for (int s = 0; s < k; s++) {
        mn += w[s] * (double)r->sizes[s] / sw;
        mt += w[s] * med[s] / sw;
    }
    for (int s = 0; s < k; s++) {
        double dx = (double)r->sizes[s] - mn;

        sxx += w[s] * dx * dx;
        sxy += w[s] * dx * (med[s] - mt);
    }
    f->beta = sxx > 0 ? sxy / sxx : 0;
    f->icept = mt - f->beta * mn;
    f->alpha = med[0];
    f->maxrel = 0;
    f->maxrel_at = r->sizes[0];
    for (int s = 0; s < k; s++) {
        double res = med[s] - (f->icept + f->beta * (double)r->sizes[s]);

        ss += res * res / (med[s] * med[s]);
        if (fabs(res) / med[s] > f->maxrel) {
            f->maxrel = fabs(res) / med[s];
            f->maxrel_at = r->sizes[s];
        }
    }
    f->rms = sqrt(ss / k);
    f->gamma0 = median(r->gam, o->repeats);
    f->gamma1 = median(gam1, o->repeats);
    {
        double both[MAX_REPEATS];

        for (int i = 0; i < o->repeats; i++)
            both[i] = 0.5 * (r->gam[i] + gam1[i]);
        f->gamma = median(both, o->repeats);
    }
}

/* The 1, 5 and 15 minute load averages, "?" where unknown (Linux). */
static void loadavg(char *buf, size_t len)
{
    FILE *fp = fopen("/proc/loadavg", "r");
    double a, b, c;

    snprintf(buf, len, "?");
    if (fp && fscanf(fp, "%lf %lf %lf", &a, &b, &c) == 3)
        snprintf(buf, len, "%.2f %.2f %.2f", a, b, c);
    if (fp)
        fclose(fp);
}

static void print_table(const run_t *r, const opts_t *o, const fit_t *f)
{
    char load[64];

    loadavg(load, sizeof load);
    printf("# netfit: 2 ranks, %d repeats (sizes and reduction interleaved, shuffled per "
           "repeat), load average at the end %s%s\n", o->repeats, load,
           o->quick ? ", --quick: not a measurement" : "");
    printf("# half round trip per size in us: median and minimum over the repeats, the "
           "fit a + beta*n, residual\n");
    printf("# %-10s %8s %12s %12s %12s %9s\n", "bytes", "iters", "median_us", "min_us",
           "fit_us", "resid_%");
    for (int s = 0; s < r->nsizes; s++) {
        const double *v = &r->pp[s * o->repeats];
        double med = median(v, o->repeats), mn = v[0];
        double fv = f->icept + f->beta * (double)r->sizes[s];

        for (int i = 1; i < o->repeats; i++)
            mn = v[i] < mn ? v[i] : mn;
        printf("  %-10lld %8ld %12.3f %12.3f %12.3f %9.1f\n", (long long)r->sizes[s],
               r->iters[s], med * 1e6, mn * 1e6, fv * 1e6, 100 * (med - fv) / med);
    }
    printf("# fit t = a + beta*n over %d sizes, weighted 1/t^2: a = %.4g s, rms relative "
           "residual %.1f %%, largest %.1f %% at %lld B\n", r->nsizes, f->icept,
           100 * f->rms, 100 * f->maxrel, (long long)f->maxrel_at);
    printf("# reduction (float sum, rt_reduce_get) on %lld-byte buffers, medians: rank 0 "
           "%.4g s/B, rank 1 %.4g s/B\n", (long long)o->gamma_bytes, f->gamma0, f->gamma1);
    printf("alpha %.6g s (half round trip of %lld B)\n", f->alpha, (long long)r->sizes[0]);
    printf("beta  %.6g s/B (%.3g GB/s)\n", f->beta, f->beta > 0 ? 1e-9 / f->beta : 0);
    printf("gamma %.6g s/B (%.3g GB/s reduced)\n", f->gamma,
           f->gamma > 0 ? 1e-9 / f->gamma : 0);
}

/* The key=value file; 0 or 1 (message printed). */
static int write_file(const run_t *r, const opts_t *o, const fit_t *f)
{
    FILE *fp = fopen(o->out, "w");
    char host[256] = "?", date[64] = "?", load[64];
    rt_net_t net;
    cm_err_t err;
    time_t now = time(NULL);
    struct tm tm;

    if (!fp) {
        fprintf(stderr, "netfit: error: cannot write %s: %s\n", o->out, strerror(errno));
        return 1;
    }
    gethostname(host, sizeof host - 1);
    loadavg(load, sizeof load);
    if (gmtime_r(&now, &tm))
        strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", &tm);
    fprintf(fp, "# netfit on %s, %s: 2 ranks, %d repeats, ping-pong %lld..%lld B, "
                "reduction on %lld-byte buffers%s\n", host, date, o->repeats,
            (long long)r->sizes[0], (long long)r->sizes[r->nsizes - 1],
            (long long)o->gamma_bytes, o->quick ? " (--quick: not a measurement)" : "");
    fprintf(fp, "# load average at the end: %s\n", load);
    fprintf(fp, "# fit t = a + beta*n weighted 1/t^2: a = %.4g s, rms relative residual "
                "%.1f %%, largest %.1f %% at %lld B\n", f->icept, 100 * f->rms,
            100 * f->maxrel, (long long)f->maxrel_at);
    net = (rt_net_t){ f->alpha, f->beta, f->gamma };
    if (rt_net_write(fp, &net, &err) != CM_OK) {
        fclose(fp);
        fprintf(stderr, "netfit: error: cannot write %s: %s\n", o->out, err.msg);
        return 1;
    }
    if (fclose(fp) != 0) {
        fprintf(stderr, "netfit: error: cannot write %s: %s\n", o->out, strerror(errno));
        return 1;
    }
    printf("# written to %s\n", o->out);
    return 0;
}

/* Buffers and sizes; 0, or 1 when out of memory. */
static int setup(run_t *r, const opts_t *o)
{
    for (int64_t n = 4; n <= o->max_bytes && r->nsizes < MAX_SIZES; n *= o->size_step)
        r->sizes[r->nsizes++] = n;
    if (r->sizes[r->nsizes - 1] != o->max_bytes && r->nsizes < MAX_SIZES)
        r->sizes[r->nsizes++] = o->max_bytes;
    r->pp = calloc((size_t)r->nsizes * (size_t)o->repeats, sizeof *r->pp);
    r->gam = calloc((size_t)o->repeats, sizeof *r->gam);
    r->sbuf = malloc((size_t)o->max_bytes);
    r->rbuf = malloc((size_t)o->max_bytes);
    r->acc = malloc((size_t)o->gamma_bytes);
    r->in = malloc((size_t)o->gamma_bytes);
    if (!r->pp || !r->gam || !r->sbuf || !r->rbuf || !r->acc || !r->in)
        return 1;
    memset(r->sbuf, 1, (size_t)o->max_bytes);       /* touched before timing */
    memset(r->rbuf, 2, (size_t)o->max_bytes);
    for (int64_t i = 0; i < o->gamma_bytes / 4; i++) {
        r->acc[i] = 0.0f;
        r->in[i] = 0.5f;
    }
    return 0;
}

int main(int argc, char **argv)
{
    static opts_t o;
    static run_t r;
    double gam1[MAX_REPEATS];
    int rc = parse_opts(argc, argv, &o), nranks, bad;
    fit_t f;

    if (rc != 0)
        return rc < 0 ? 0 : rc;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (nranks != 2) {
        if (r.rank == 0)
            fprintf(stderr, "netfit: error: needs exactly 2 ranks, got %d (mpirun -np 2)\n",
                    nranks);
        MPI_Finalize();
        return 1;
    }
    bad = setup(&r, &o);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (bad) {
        if (r.rank == 0)
            fprintf(stderr, "netfit: error: out of memory (--max-bytes, --gamma-bytes)\n");
        MPI_Finalize();
        return 1;
    }
    calibrate(&r, &o);
    measure(&r, &o);
    if (r.rank == 1)
        MPI_Send(r.gam, o.repeats, MPI_DOUBLE, 0, TAG, MPI_COMM_WORLD);
    else
        MPI_Recv(gam1, o.repeats, MPI_DOUBLE, 1, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (r.rank == 0) {
        fit_model(&r, &o, gam1, &f);
        print_table(&r, &o, &f);
        rc = o.out ? write_file(&r, &o, &f) : 0;
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(r.pp);
    free(r.gam);
    free(r.sbuf);
    free(r.rbuf);
    free(r.acc);
    free(r.in);
    MPI_Finalize();
    return rc;
}
