/*
 * schedgen - what generating a PAP-aware schedule costs per operation: SLT,
 * PRR and Clairvoyant (clv + binomial-bcast, the algorithm node's allreduce
 * form) at P hosts and S bytes, for one rank (what each host of an
 * algorithm node does before every operation: the generator's rank
 * argument) and for all ranks (papsim's, and a lower bound of nothing the
 * executor needs).  No MPI.
 *
 *   schedgen [-P LIST] [-s LIST] [--skew-us U] [--round-ns D] [--min-time S]
 *            [--seed N]
 *
 * Defaults: -P 2,4,8,48,512, -s 4,65536,1048576, --skew-us 20, --round-ns
 * RT_ALGO_ROUND_NS_DEFAULT (5 us, what the executor uses without round=),
 * --min-time 0.2 s per measurement, seed 1.  Elements are int32 (count =
 * bytes / 4; at 4 B a single element, fewer than the hosts).
 *
 * Arrivals (ticks are ns, as the executor passes them): "skew" draws every
 * host's arrival uniformly in [0, U us], 64 vectors drawn before timing and
 * used in turn, one per generation, as a history arrival source would give
 * from one operation to the next; "equal" is all 0 (the equal source).
 * Each measurement runs generations in batches of about 1 ms of CPU until
 * --min-time of CPU has passed (at least 5 batches), cycling the one-rank
 * case through the ranks, and reports the median over batches of the time
 * of one generation: rt_sched_init, the generator, rt_sched_free, as the
 * executor pays them per operation (glibc's default allocator settings, no
 * warm pool).  Times are this thread's CPU time (the machine is shared;
 * with a core of its own a generation takes that long), the one-rank
 * column also in wall time.
 *
 * The operation's time is the all-ranks schedule of the last skew instance
 * under the linear cost model (rt_sched_simulate), average elapsed time
 * (mean over ranks of finish - arrival, Proficz's e), with papsim's 1gbe
 * and ib-fdr presets (tools/papsim.c).  share = one-rank generation / that
 * time: what generating the schedule on the critical path would add.
 *
 * Output: a markdown table on stdout.  Exit 1 if a generator or the
 * simulator fails, 2 on bad usage.
 */
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/cm_opt.h"
#include "runtime/api/rt_sched.h"
#include "runtime/api/rt_pathmap.h"

#define LIST_MAX 16

typedef struct opts {
    int32_t  nps[LIST_MAX];
    int      nnp;
    int64_t  sizes[LIST_MAX];
    int      nsize;
    double   skew_us;
    int64_t  round_ns;
    double   min_time;
    uint64_t seed;
} opts_t;

/* Cost presets, the same numbers as papsim's --net (tools/papsim.c). */
typedef struct net {
    const char *name;
    double alpha, beta, gamma;
} net_t;

static const net_t nets[] = {
    { "1gbe", 20e-6, 8e-9, 0.1e-9 },
    { "ib-fdr", 1.5e-6, 0.147e-9, 0.1e-9 },
};
#define NNETS (sizeof nets / sizeof nets[0])

/* One algorithm as the algorithm node runs it: run, or run + bcast. */
typedef struct algo {
    const char           *label;
    const rt_algo_info_t *run, *bcast;
} algo_t;

static uint64_t splitmix(uint64_t *st)
{
    uint64_t z = (*st += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static void fill_arrival(int64_t *arrival, int32_t np, double skew_us, uint64_t *st)
{
    for (int32_t r = 0; r < np; r++)
        arrival[r] = skew_us > 0 ?
            (int64_t)((double)(splitmix(st) >> 11) * 0x1.0p-53 * skew_us * 1e3) : 0;
}

/* One generation (init, generate, free unless keep != NULL); CM_OK or the
   generator's status with err set. */
static cm_status_t generate(const algo_t *a, const rt_algo_params_t *p, int32_t rank,
                            rt_sched_t *keep, cm_err_t *err)
{
    rt_sched_t s;
    cm_status_t st;

    rt_sched_init(&s);
    st = a->bcast ? rt_algo_reduce_bcast(&s, a->run, a->bcast, p, rank, err)
                  : a->run->gen(&s, p, rank, err);
    if (keep != NULL && st == CM_OK)
        *keep = s;
    else
        rt_sched_free(&s);
    return st;
}

static double cpu_now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#define POOL 64   /* arrival vectors drawn before timing, cycled through */

/*
 * Median seconds of one generation.  rank: -1 all ranks, -2 one rank,
 * cycling through 0..P-1.  The vectors of `pool` (POOL x P) are used in
 * turn.  Generations run in batches of about 1 ms of CPU; the median is
 * over batches of (batch time / generations), both in CPU time of this
 * thread (*cpu) and in wall time (*wall).  On this shared machine the CPU
 * time is the cost of generating; the wall time also counts waiting for a
 * core.
 */
static int measure(const opts_t *o, const algo_t *a, rt_algo_params_t *p, const int64_t *pool,
                   int32_t rank, double *cpu, double *wall)
{
    size_t cap = 64, n = 0, k = 0, batch = 1;
    double *tc = malloc(cap * sizeof *tc), *tw = malloc(cap * sizeof *tw), spent = 0;
    cm_err_t err;
    int rc = -1;

    if (tc == NULL || tw == NULL)
        goto out;
    for (int pass = 0; n < 5 || spent < o->min_time; pass++) {
        double c0 = cpu_now(), w0 = now(), dc;

        for (size_t i = 0; i < batch; i++, k++) {
            int32_t r = rank == -2 ? (int32_t)(k % (size_t)p->nranks) : rank;

            p->arrival = pool + (k % POOL) * (size_t)p->nranks;
            if (generate(a, p, r, NULL, &err) != CM_OK) {
                cm_err_print(stderr, "schedgen: ", &err);
                goto out;
            }
        }
        dc = cpu_now() - c0;
        if (pass == 0) {          /* sizing: batches of about 1 ms */
            batch = dc > 0 && dc < 1e-3 ? (size_t)(1e-3 / dc) : 1;
            continue;
        }
        if (n == cap) {
            double *gc = realloc(tc, 2 * cap * sizeof *tc), *gw;

            if (gc == NULL)
                goto out;
            tc = gc;
            if ((gw = realloc(tw, 2 * cap * sizeof *tw)) == NULL)
                goto out;
            tw = gw, cap *= 2;
        }
        tc[n] = dc / (double)batch;
        tw[n++] = (now() - w0) / (double)batch;
        spent += dc;
    }
    qsort(tc, n, sizeof *tc, cmp_double);
    qsort(tw, n, sizeof *tw, cmp_double);
    *cpu = n % 2 ? tc[n / 2] : (tc[n / 2 - 1] + tc[n / 2]) / 2;
    *wall = n % 2 ? tw[n / 2] : (tw[n / 2 - 1] + tw[n / 2]) / 2;
    rc = 0;
out:
    free(tc);
    free(tw);
    return rc;
}

static void usage(FILE *fp)
{
    fprintf(fp,
"usage: schedgen [-P LIST] [-s LIST] [--skew-us U] [--round-ns D] [--min-time S] [--seed N]\n"
"Generation time of the PAP-aware schedules (slt, prr, clv+binomial-bcast) per\n"
"operation, for one rank and for all ranks, and its share of the operation's\n"
"time under the linear cost model (papsim's 1gbe and ib-fdr presets).\n"
"  -P LIST          host counts, 2..65536 (default 2,4,8,48,512)\n"
"  -s LIST          bytes of int32 elements, multiples of 4 up to 1TiB (default\n"
"                   4,65536,1048576; K, M, G, T: powers of 1024)\n"
"  --skew-us U      arrivals uniform in [0, U] us, new per generation, 0..1e9\n"
"                   (default 20)\n"
"  --round-ns D     PRR tau and Clairvoyant d in ns, >= 1 (default %d, the\n"
"                   executor's)\n"
"  --min-time S     seconds per measurement, 0..3600, at least 5 generations\n"
"                   (default 0.2)\n"
"  --seed N         arrival seed, >= 0 (default 1)\n"
"Lists are separated by commas, at most %d items.\n", RT_ALGO_ROUND_NS_DEFAULT, LIST_MAX);
}

/* Option c's value into o: CM_OK or the error, recorded in ctx. */
static cm_status_t apply_opt(cm_opt_t *ctx, opts_t *o, int c, const char *opt,
                             const char *arg)
{
    long v[LIST_MAX], x;
    size_t n;

    switch (c) {
    case 'P':
        if (cm_opt_long_list(ctx, opt, arg, ',', 2, 65536, v, LIST_MAX, &n) != CM_OK)
            return ctx->status;
        for (size_t i = 0; i < n; i++)
            o->nps[i] = (int32_t)v[i];
        o->nnp = (int)n;
        return CM_OK;
    case 's':
        if (cm_opt_size_list(ctx, opt, arg, ',', 4, (uint64_t)1 << 40, (uint64_t *)o->sizes,
                             LIST_MAX, &n) != CM_OK)
            return ctx->status;
        for (size_t i = 0; i < n; i++)
            if (o->sizes[i] % 4 != 0)
                return cm_opt_fail(ctx, CM_ERR_INVALID, opt, "'%" PRId64 "' is not a "
                                   "multiple of 4 bytes (int32 elements)", o->sizes[i]);
        o->nsize = (int)n;
        return CM_OK;
    case 'k': return cm_opt_double(ctx, opt, arg, 0, 1e9, &o->skew_us);
    case 'd':
        if (cm_opt_long(ctx, opt, arg, 1, LONG_MAX, &x) == CM_OK)
            o->round_ns = x;
        return ctx->status;
    case 't': return cm_opt_double(ctx, opt, arg, 0, 3600, &o->min_time);
    case 'S':
        if (cm_opt_long(ctx, opt, arg, 0, LONG_MAX, &x) == CM_OK)
            o->seed = (uint64_t)x;
        return ctx->status;
    default: return cm_opt_fail(ctx, CM_ERR_INVALID, opt, "unexpected option");
    }
}

static int parse_args(int argc, char **argv, opts_t *o)
{
    static const struct option longopts[] = {
        { "skew-us", 1, 0, 'k' }, { "round-ns", 1, 0, 'd' }, { "min-time", 1, 0, 't' },
        { "seed", 1, 0, 'S' }, { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
    const char *opt;
    cm_opt_t ctx;
    int c;

    memset(o, 0, sizeof *o);
    o->nnp = 5;
    memcpy(o->nps, (int32_t[]){ 2, 4, 8, 48, 512 }, 5 * sizeof(int32_t));
    o->nsize = 3;
    memcpy(o->sizes, (int64_t[]){ 4, 65536, 1048576 }, 3 * sizeof(int64_t));
    o->skew_us = 20;
    o->round_ns = RT_ALGO_ROUND_NS_DEFAULT;
    o->min_time = 0.2;
    o->seed = 1;
    cm_opt_init(&ctx, "schedgen");
    while ((c = cm_opt_next(&ctx, argc, argv, ":P:s:h", longopts, &opt)) != -1) {
        if (c == 'h') {
            usage(stdout);
            exit(0);
        }
        apply_opt(&ctx, o, c, opt, optarg);
    }
    if (ctx.status == CM_OK && optind < argc)
        cm_opt_fail(&ctx, CM_ERR_INVALID, NULL, "unexpected argument '%s' (schedgen takes "
                    "options only)", argv[optind]);
    if (ctx.status == CM_OK)
        return 0;
    cm_opt_print(&ctx, stderr);
    usage(stderr);
    return -1;
}

static const char *size_name(int64_t b, char *buf, size_t n)
{
    if (b >= (1 << 20) && b % (1 << 20) == 0)
        snprintf(buf, n, "%lld MiB", (long long)(b >> 20));
    else if (b >= 1024 && b % 1024 == 0)
        snprintf(buf, n, "%lld KiB", (long long)(b >> 10));
    else
        snprintf(buf, n, "%lld B", (long long)b);
    return buf;
}

/* "12.3 us", "4.56 ms" */
static const char *time_name(double s, char *buf, size_t n)
{
    if (s < 1e-3)
        snprintf(buf, n, "%.2f us", s * 1e6);
    else if (s < 1)
        snprintf(buf, n, "%.2f ms", s * 1e3);
    else
        snprintf(buf, n, "%.2f s", s);
    return buf;
}

/* "0.021 %", "57 %", "5.0x" (the generation longer than the operation) */
static const char *share_name(double f, char *buf, size_t n)
{
    if (f >= 1)
        snprintf(buf, n, "%.1fx", f);
    else if (f >= 0.1)
        snprintf(buf, n, "%.0f %%", 100 * f);
    else
        snprintf(buf, n, "%.2g %%", 100 * f);
    return buf;
}

static int run_point(const opts_t *o, const algo_t *a, int32_t np, int64_t bytes)
{
    int64_t *skew = malloc((size_t)POOL * (size_t)np * sizeof *skew);
    int64_t *equal = calloc((size_t)POOL * (size_t)np, sizeof *equal);
    double *arr_s = malloc((size_t)np * sizeof *arr_s);
    rt_algo_params_t p;
    rt_sched_t s;
    uint64_t st = o->seed ^ ((uint64_t)np << 32) ^ (uint64_t)bytes;
    double one, one_w, all, all_w, eq, eq_w, op[NNETS];
    cm_err_t err;
    char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32], b7[32];
    int rc = -1;

    if (skew == NULL || equal == NULL || arr_s == NULL)
        goto out;
    for (int i = 0; i < POOL; i++)
        fill_arrival(skew + (size_t)i * (size_t)np, np, o->skew_us, &st);
    memset(&p, 0, sizeof p);
    p.nranks = np;
    p.root = 0;
    p.count = bytes / 4;
    p.round_len = o->round_ns;
    if (measure(o, a, &p, skew, -2, &one, &one_w) != 0 ||
        measure(o, a, &p, skew, -1, &all, &all_w) != 0 ||
        measure(o, a, &p, equal, -2, &eq, &eq_w) != 0)
        goto out;
    /* The operation: the first skew vector's all-ranks schedule. */
    p.arrival = skew;
    for (int32_t r = 0; r < np; r++)
        arr_s[r] = (double)skew[r] * 1e-9;
    if (generate(a, &p, -1, &s, &err) != CM_OK) {
        cm_err_print(stderr, "schedgen: ", &err);
        goto out;
    }
    for (size_t k = 0; k < NNETS; k++) {
        rt_cost_t c = { nets[k].alpha, nets[k].beta, nets[k].gamma, 4 };
        rt_sim_result_t res;

        if (rt_sched_simulate(&s, &c, arr_s, &res, &err) != CM_OK) {
            cm_err_print(stderr, "schedgen: ", &err);
            rt_sched_free(&s);
            goto out;
        }
        op[k] = res.avg_elapsed;
        rt_sim_result_free(&res);
    }
    printf("| %s | %d | %s | %zu | %s (%s) | %s | %s", a->label, np,
           size_name(bytes, b1, sizeof b1), s.nsteps, time_name(one, b2, sizeof b2),
           time_name(one_w, b6, sizeof b6), time_name(all, b3, sizeof b3),
           time_name(eq, b4, sizeof b4));
    for (size_t k = 0; k < NNETS; k++)
        printf(" | %s | **%s**", time_name(op[k], b5, sizeof b5),
               share_name(one / op[k], b7, sizeof b7));
    printf(" |\n");
    fflush(stdout);
    rt_sched_free(&s);
    rc = 0;
out:
    free(skew);
    free(equal);
    free(arr_s);
    return rc;
}

int main(int argc, char **argv)
{
    opts_t o;
    algo_t algos[3] = {
        { "slt", rt_algo_find("slt"), NULL },
        { "prr", rt_algo_find("prr"), NULL },
        { "clv+binomial-bcast", rt_algo_find("clv"), rt_algo_find("binomial-bcast") },
    };

    if (parse_args(argc, argv, &o) != 0)
        return 2;
    for (int i = 0; i < 3; i++) {
        if (algos[i].run == NULL || (i == 2 && algos[i].bcast == NULL)) {
            fprintf(stderr, "schedgen: %s is not in the algorithm table\n", algos[i].label);
            return 1;
        }
    }
    printf("# schedgen: median CPU time of one generation (init + generate + free), wall "
           "time in parentheses; arrivals uniform in [0, %g us] (skew) or all 0 (equal); "
           "round %lld ns; int32 elements\n\n", o.skew_us, (long long)o.round_ns);
    printf("| algorithm | P | size | steps (all ranks) | one rank, skew (wall) | all ranks, skew | "
           "one rank, equal");
    for (size_t k = 0; k < NNETS; k++)
        printf(" | op (%s model) | one rank / op", nets[k].name);
    printf(" |\n|---|---|---|---|---|---|---");
    for (size_t k = 0; k < NNETS; k++)
        printf("|---|---");
    printf("|\n");
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < o.nnp; j++)
            for (int k = 0; k < o.nsize; k++)
                if (run_point(&o, &algos[i], o.nps[j], o.sizes[k]) != 0)
                    return 1;
    return 0;
}
