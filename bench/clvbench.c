/*
 * clvbench - the experiment of Proficz & Ocetkiewicz 2020, Table 1: time to
 * generate one Clairvoyant schedule, for P = N = 4, 8, ..., 512, with
 *   clv        the default generator (runtime/algo/clv_rows.c),
 *   clv-tree   the paper's segment tree (runtime/algo/clv_tree.c), and
 *   clv-linear the literal linear-search version (clv_linear.c).
 * No MPI.
 *
 *   clvbench [--max-p P | --p P,P,...] [--instances I] [--tree-instances T]
 *            [--linear-instances L] [--seed S] [--only uniform|skewed]
 *            [--clock wall|cpu] [--one-rank] [--bcast]
 *
 * Instances (the paper's 5.7), times in ticks of 1e-6 time units:
 *   uniform: arrival times uniform in [0, P + 0.1], a random root;
 *   skewed:  every process at 0 but P-1 at time N, root 0;
 *   both:    round length d uniform in [0.001, 1].
 * Instance i of a point depends only on (seed, kind, P, i), so every
 * version sees the same instances whatever the counts.
 *
 * clv runs I instances per point, clv-tree the first T (default all I),
 * clv-linear, which needs seconds per schedule at P = 512, the first L: by
 * default L = min(I, ceil(I * (128/P)^2)), all of them up to P = 128.  The
 * ratios tree/clv and linear/clv compare mean times over the instances
 * both ran, and on each of them the two schedules must be identical, step
 * for step (exit 1 if not).  Times: CLOCK_MONOTONIC (--clock wall, the
 * default) or the thread's CPU time (--clock cpu: steadier on a loaded
 * machine) around the generator call (which includes rt_sched_finish),
 * mean per schedule.  --one-rank generates instance i for rank i mod P
 * only (what a host does before an operation) instead of all ranks.
 *
 * Limits.  Before anything runs, the largest point's schedules are
 * estimated (rt_algo_steps_estimate: 4PN steps of 16 bytes for clv, twice
 * that while a clv-tree or clv-linear schedule is held beside it; never
 * three at once) and a sweep over --mem-limit (default half the machine's
 * memory) is refused.  Progress: a line per kind and P on stderr before
 * its row, when stderr is a terminal or with -v, and while a point runs a
 * line every 10 s.
 */
#include <getopt.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "common/cm_opt.h"
#include "runtime/api/rt_algo.h"
#include "tests/unit/algo/clv_tree.h"

#define TICKS 1e6   /* ticks per time unit */

typedef enum { UNIFORM, SKEWED } kind_t;
static const char *const kind_name[] = { "uniform", "skewed" };

#define NPOINTS_MAX 32

typedef struct opts {
    int32_t  max_p;
    int32_t  points[NPOINTS_MAX];   /* --p; npoints 0: 4, 8, ..., max_p */
    int32_t  npoints;
    int32_t  instances;
    int32_t  tree;       /* -1: all instances */
    int32_t  linear;     /* -1: the default rule */
    int      cpu;        /* --clock cpu */
    int      one;        /* --one-rank */
    int      bcast;      /* --bcast */
    uint64_t seed;
    int      only;       /* -1: both kinds */
    int      progress;   /* lines on stderr: -v, or stderr a terminal */
    double   mem_limit;  /* bytes the schedules of a point may take */
} opts_t;

/* Per point: what the table row and the summary need. */
typedef struct point {
    double  clv_s, clv_tree_s, tree_s, clv_lin_s, lin_s;   /* summed times */
    int32_t n_clv, n_tree, n_lin;
} point_t;

static uint64_t splitmix(uint64_t *st)
{
    uint64_t z = (*st += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double unif(uint64_t *st)
{
    return (double)(splitmix(st) >> 11) * 0x1.0p-53;
}

static int use_cpu_clock;   /* --clock cpu */
static int one_rank;        /* --one-rank: generate for rank i mod P */
static int with_bcast;      /* --bcast: clv + binomial-bcast, as a node makes it */
static int32_t gen_rank;    /* the rank of the current instance, or -1 */

static double now(void)
{
    struct timespec t;

    clock_gettime(use_cpu_clock ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC,
                  &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Instance i of (kind, P): fills arrival[0..P) and p. */
static void instance(const opts_t *o, kind_t kind, int32_t np, int32_t i,
                     int64_t *arrival, rt_algo_params_t *p)
{
    uint64_t st = o->seed ^ ((uint64_t)kind << 62) ^ ((uint64_t)np << 32) ^
                  (uint64_t)i;

    splitmix(&st);
    memset(p, 0, sizeof *p);
    p->nranks = np;
    p->nsegs = np;                       /* N = P */
    p->count = (int64_t)np * 1024;
    p->arrival = arrival;
    p->round_len = (int64_t)((0.001 + 0.999 * unif(&st)) * TICKS);
    if (kind == UNIFORM) {
        for (int32_t r = 0; r < np; r++)
            arrival[r] = (int64_t)(unif(&st) * (np + 0.1) * TICKS);
        p->root = (int32_t)(splitmix(&st) % (uint64_t)np);
    } else {
        memset(arrival, 0, (size_t)np * sizeof *arrival);
        arrival[np - 1] = (int64_t)np * (int64_t)TICKS;   /* at time N */
        p->root = 0;
    }
}

/* Runs gen on p; returns the seconds it took, or -1 with a message. */
static double timed(rt_algo_gen_fn *gen, const char *name,
                    const rt_algo_params_t *p, rt_sched_t *s)
{
    cm_err_t err;
    double t0, t1;

    rt_sched_init(s);
    t0 = now();
    if (with_bcast && gen == rt_algo_find("clv")->gen
            ? rt_algo_reduce_bcast(s, rt_algo_find("clv"), rt_algo_find("binomial-bcast"), p,
                                   gen_rank, &err) != CM_OK
            : gen(s, p, gen_rank, &err) != CM_OK) {
        cm_err_print(stderr, "clvbench: ", &err);
        fprintf(stderr, "clvbench: %s failed (P %d)\n", name, p->nranks);
        return -1;
    }
    t1 = now();
    return t1 - t0;
}

static int same_steps(const rt_sched_t *a, const rt_sched_t *b)
{
    if (a->nsteps != b->nsteps || a->nrounds != b->nrounds ||
        a->npieces != b->npieces)
        return 0;
    for (int32_t r = 0; r <= a->nranks; r++)
        if (a->step_start[r] != b->step_start[r])
            return 0;
    for (size_t k = 0; k < a->nsteps; k++) {
        const rt_step_t *x = &a->steps[k], *y = &b->steps[k];

        if (x->round != y->round || x->peer != y->peer ||
            x->piece != y->piece || x->npieces != y->npieces ||
            x->dir != y->dir || x->act != y->act || x->flags != y->flags)
            return 0;
    }
    return 1;
}

/* clv-tree instances for a point. */
static int32_t tree_count(const opts_t *o)
{
    return o->tree >= 0 && o->tree < o->instances ? o->tree : o->instances;
}

/* clv-linear instances for a point (see the header). */
static int32_t linear_count(const opts_t *o, int32_t np)
{
    double want;

    if (o->linear >= 0)
        return o->linear < o->instances ? o->linear : o->instances;
    want = o->instances * (128.0 / np) * (128.0 / np);
    return want >= o->instances ? o->instances : (int32_t)(want + 0.999999);
}

/* Generates instance i with the other version `gen` into a fresh
   schedule, compares it with clv's `a`, adds the times.  0, or 1. */
static int compare(const opts_t *o, kind_t kind, int32_t i,
                   const rt_algo_params_t *p, rt_sched_t *a, double ta,
                   rt_algo_gen_fn *gen, const char *name, double *clv_s,
                   double *other_s, int32_t *n)
{
    rt_sched_t b;
    double tb = timed(gen, name, p, &b);

    if (tb < 0)
        return 1;
    if (!same_steps(a, &b)) {
        fprintf(stderr, "clvbench: %s P %d instance %d (seed %llu): clv and "
                "%s schedules differ\n", kind_name[kind], p->nranks, i,
                (unsigned long long)o->seed, name);
        rt_sched_free(&b);
        return 1;
    }
    rt_sched_free(&b);
    *clv_s += ta;
    *other_s += tb;
    (*n)++;
    return 0;
}

/* One table row.  Returns 0, or 1 if anything failed or differed. */
static int run_point(const opts_t *o, kind_t kind, int32_t np, point_t *pt)
{
    int64_t *arrival = malloc((size_t)np * sizeof *arrival);
    int32_t nlin = o->bcast ? 0 : linear_count(o, np), ntree = o->bcast ? 0 : tree_count(o);
    int bad = 0;

    double t0 = now(), shown = t0;

    memset(pt, 0, sizeof *pt);
    for (int32_t i = 0; i < o->instances && arrival && !bad; i++) {
        if (o->progress && now() - shown >= 10) {
            shown = now();
            fprintf(stderr, "clvbench: %s, P = N = %d: %d of %d instances done, %.0f s\n",
                    kind_name[kind], np, i, o->instances, shown - t0);
        }
        rt_algo_params_t p;
        rt_sched_t a;
        double ta;

        instance(o, kind, np, i, arrival, &p);
        gen_rank = one_rank ? i % np : -1;
        ta = timed(rt_algo_find("clv")->gen, "clv", &p, &a);
        bad = ta < 0;
        if (!bad && i < ntree)
            bad = compare(o, kind, i, &p, &a, ta, rt_algo_clv_tree,
                          "clv-tree", &pt->clv_tree_s, &pt->tree_s,
                          &pt->n_tree);
        if (!bad && i < nlin)
            bad = compare(o, kind, i, &p, &a, ta, rt_algo_find("clv-linear")->gen,
                          "clv-linear", &pt->clv_lin_s, &pt->lin_s,
                          &pt->n_lin);
        pt->clv_s += ta;
        pt->n_clv++;
        rt_sched_free(&a);
    }
    if (!arrival) {
        fprintf(stderr, "clvbench: out of memory\n");
        bad = 1;
    }
    free(arrival);
    return bad;
}

/* The schedules of point P held at once: clv's, and clv-linear's beside it
   when that runs.  CM_OK if they fit in --mem-limit. */
static cm_status_t check_memory(const opts_t *o, int32_t np, cm_err_t *err)
{
    const rt_algo_info_t *clv = rt_algo_find("clv");
    rt_algo_params_t p = { .nranks = np, .nsegs = np, .count = (int64_t)np * 1024 };
    int lin = linear_count(o, np) > 0, tree = tree_count(o) > 0;
    char what[96];

    snprintf(what, sizeof what, "P = N = %d: the clv%s schedule%s", np,
             lin ? " and clv-linear" : tree ? " and clv-tree" : "",
             lin || tree ? "s" : "");
    return rt_algo_mem_check(what, (lin || tree ? 2 : 1) * rt_algo_steps_estimate(clv, &p), 16,
                             o->mem_limit, " (--mem-limit; the default is half the machine's"
                             " memory; or a smaller --max-p)", err);
}

static void usage(FILE *fp)
{
    fprintf(fp,
        "usage: clvbench [--max-p P | --p P,P,...] [--instances I]\n"
        "                [--tree-instances T] [--linear-instances L] [--seed S]\n"
        "                [--only uniform|skewed] [--clock wall|cpu] [--one-rank] [--bcast]\n"
        "                [--mem-limit SIZE] [-v]\n"
        "Time to generate a Clairvoyant reduce schedule: clv (the default\n"
        "generator) against clv-tree (the paper's segment tree) and clv-linear\n"
        "(literal linear search), P = N = 4, 8, ..., P (default 512) or the\n"
        "sizes of --p (up to %d, each 2 to 65536), the paper's uniform and\n"
        "skewed instances.  clv runs I instances per point (default 100);\n"
        "clv-tree the first T (default I); clv-linear the first L, by default\n"
        "min(I, ceil(I*(128/P)^2)); their schedules must be identical to clv's\n"
        "(exit 1 otherwise).  --seed: instance generator seed (default 1).\n"
        "--clock: time with CLOCK_MONOTONIC (wall, the default) or the thread's\n"
        "CPU time (cpu).  --one-rank: generate for one rank (instance i: rank\n"
        "i mod P), as a host does before an operation, instead of all ranks.\n"
        "--bcast: time clv followed by the binomial broadcast, made as an\n"
        "algorithm node makes it (rt_algo_reduce_bcast), without comparisons.\n"
        "--mem-limit SIZE: bytes (or K, M, G, T) the schedules of one point may\n"
        "take (estimated: 4PN steps of 16 bytes per schedule, two held at once);\n"
        "a larger --max-p is refused before anything runs (default: half the\n"
        "machine's memory).\n"
        "-v: a line per kind and P on stderr (the default when stderr is a\n"
        "terminal).\n", NPOINTS_MAX);
}

enum { O_MAXP = 256, O_P, O_TREE, O_CLOCK, O_INST, O_LIN, O_SEED, O_ONLY, O_MEM, O_ONE,
       O_BCAST };

static const struct option longopts[] = {
    { "max-p", required_argument, NULL, O_MAXP }, { "p", required_argument, NULL, O_P },
    { "tree-instances", required_argument, NULL, O_TREE },
    { "clock", required_argument, NULL, O_CLOCK },
    { "instances", required_argument, NULL, O_INST },
    { "linear-instances", required_argument, NULL, O_LIN },
    { "seed", required_argument, NULL, O_SEED }, { "only", required_argument, NULL, O_ONLY },
    { "mem-limit", required_argument, NULL, O_MEM }, { "one-rank", no_argument, NULL, O_ONE },
    { "bcast", no_argument, NULL, O_BCAST }, { "verbose", no_argument, NULL, 'v' },
    { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
};

/* Applies option c (named opt) to o: CM_OK or the error, recorded in ctx. */
static cm_status_t apply_opt(cm_opt_t *ctx, opts_t *o, int c, const char *opt,
                             const char *arg)
{
    static const cm_opt_word_t clocks[] = { { "wall", 0 }, { "cpu", 1 } };
    static const cm_opt_word_t kinds[] = { { "uniform", UNIFORM }, { "skewed", SKEWED } };
    long v[NPOINTS_MAX], seed;
    size_t n;
    uint64_t mem;

    switch (c) {
    case O_MAXP: return cm_opt_int(ctx, opt, arg, 4, 1 << 16, &o->max_p);
    case O_P:
        if (cm_opt_long_list(ctx, opt, arg, ',', 2, 1 << 16, v, NPOINTS_MAX, &n) != CM_OK)
            return ctx->status;
        for (size_t i = 0; i < n; i++)
            o->points[i] = (int32_t)v[i];
        o->npoints = (int32_t)n;
        return CM_OK;
    case O_TREE: return cm_opt_int(ctx, opt, arg, 0, 1000000, &o->tree);
    case O_CLOCK: return cm_opt_word(ctx, opt, arg, clocks, 2, &o->cpu);
    case O_INST: return cm_opt_int(ctx, opt, arg, 1, 1000000, &o->instances);
    case O_LIN: return cm_opt_int(ctx, opt, arg, 0, 1000000, &o->linear);
    case O_SEED:
        if (cm_opt_long(ctx, opt, arg, 0, 0x7fffffffL, &seed) != CM_OK)
            return ctx->status;
        o->seed = (uint64_t)seed;
        return CM_OK;
    case O_ONLY: return cm_opt_word(ctx, opt, arg, kinds, 2, &o->only);
    case O_MEM:
        if (cm_opt_size(ctx, opt, arg, 1, RT_MEM_MAX, &mem) != CM_OK)
            return ctx->status;
        o->mem_limit = (double)mem;
        return CM_OK;
    case O_ONE: o->one = 1; return CM_OK;
    case O_BCAST: o->bcast = 1; return CM_OK;
    case 'v': o->progress = 1; return CM_OK;
    default: return cm_opt_fail(ctx, CM_ERR_INVALID, opt, "unexpected option");
    }
}

/* The options into o: 0, 1 (-h: usage printed) or 2 (an error: its line, then
   the usage, on stderr). */
static int parse(int argc, char **argv, opts_t *o)
{
    const char *opt;
    cm_opt_t ctx;
    int c;

    *o = (opts_t){ .max_p = 512, .instances = 100, .tree = -1, .linear = -1, .seed = 1,
                   .only = -1, .progress = isatty(STDERR_FILENO),
                   .mem_limit = rt_algo_mem_default() };
    cm_opt_init(&ctx, "clvbench");
    while ((c = cm_opt_next(&ctx, argc, argv, ":vh", longopts, &opt)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return 1;
        }
        apply_opt(&ctx, o, c, opt, optarg);
    }
    if (ctx.status == CM_OK && optind < argc)
        cm_opt_fail(&ctx, CM_ERR_INVALID, NULL, "unexpected argument '%s' (clvbench takes "
                    "options only)", argv[optind]);
    if (ctx.status == CM_OK)
        return 0;
    cm_opt_print(&ctx, stderr);
    usage(stderr);
    return 2;
}

/* The sizes of the sweep: --p, or 4, 8, ..., max_p. */
static int32_t sweep(const opts_t *o, int32_t *out)
{
    int32_t n = 0;

    if (o->npoints > 0) {
        memcpy(out, o->points, (size_t)o->npoints * sizeof *out);
        return o->npoints;
    }
    for (int32_t np = 4; np <= o->max_p && n < NPOINTS_MAX; np *= 2)
        out[n++] = np;
    return n;
}

/* "a/b" as a ratio of means, or "-" when nothing was compared. */
static void print_ratio(double num, double den, int32_t n, int width)
{
    if (n)
        printf(" %*.2f", width, num / den);
    else
        printf(" %*s", width, "-");
}

static void print_row(int32_t np, const point_t *pt)
{
    printf("  %6d %6d %6d %11.1f %6d", np, np, pt->n_clv,
           1e6 * pt->clv_s / pt->n_clv, pt->n_tree);
    if (pt->n_tree)
        printf(" %11.1f", 1e6 * pt->tree_s / pt->n_tree);
    else
        printf(" %11s", "-");
    print_ratio(pt->tree_s, pt->clv_tree_s, pt->n_tree, 9);
    printf(" %6d", pt->n_lin);
    if (pt->n_lin)
        printf(" %11.1f", 1e6 * pt->lin_s / pt->n_lin);
    else
        printf(" %11s", "-");
    print_ratio(pt->lin_s, pt->clv_lin_s, pt->n_lin, 9);
    printf(" %6d/%d\n", pt->n_tree + pt->n_lin, pt->n_tree + pt->n_lin);
    fflush(stdout);
}

static void print_summary(const opts_t *o, int32_t last, const point_t *top,
                          long compared)
{
    printf("summary: P = N = %d:", last);
    for (int k = UNIFORM; k <= SKEWED; k++) {
        if (o->only >= 0 && o->only != k)
            continue;
        printf(" %s clv %.2f ms", kind_name[k],
               1e3 * top[k].clv_s / top[k].n_clv);
        if (top[k].n_tree)
            printf(", clv-tree %.2f ms, tree/clv %.2fx",
                   1e3 * top[k].tree_s / top[k].n_tree,
                   top[k].tree_s / top[k].clv_tree_s);
        if (top[k].n_lin)
            printf(", linear/clv %.1fx (%d linear instance%s)",
                   top[k].lin_s / top[k].clv_lin_s, top[k].n_lin,
                   top[k].n_lin == 1 ? "" : "s");
        printf(";");
    }
    if (compared)
        printf(" %ld schedule pairs compared, all identical\n", compared);
    else
        printf(" nothing compared (--tree-instances 0 --linear-instances 0)\n");
}

int main(int argc, char **argv)
{
    opts_t o;
    int32_t last = 0, sizes[NPOINTS_MAX], nsizes;
    point_t top[2];
    long compared = 0;
    int rc;

    if ((rc = parse(argc, argv, &o)) != 0)
        return rc == 1 ? 0 : rc;
    use_cpu_clock = o.cpu;
    one_rank = o.one;
    with_bcast = o.bcast;
    nsizes = sweep(&o, sizes);
    for (int32_t n = 0; n < nsizes; n++) {
        cm_err_t err;

        if (check_memory(&o, sizes[n], &err) != CM_OK) {
            cm_err_print(stderr, "clvbench: ", &err);
            return 1;
        }
    }
    /* Keep freed memory in the process: a schedule of P = N = 512 is about
       25 MB of steps, and glibc would hand it back to the kernel after
       every instance and fault it in again for the next (11 of ~45 ms).
       A runtime generating schedules call after call keeps its memory the
       same way; all implementations are measured under this setting. */
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    memset(top, 0, sizeof top);
    printf("# clvbench: Clairvoyant schedule generation, clv (default) vs "
           "clv-tree (segment tree) and clv-linear; P = N; d uniform in "
           "[0.001, 1]; seed %llu\n", (unsigned long long)o.seed);
    printf("# times: mean per schedule (%s%s); ratios = tree/clv and "
           "linear/clv over the instances both ran\n",
           o.cpu ? "thread CPU time" : "CLOCK_MONOTONIC",
           o.one ? "; one rank's schedule, rank i mod P" : "");
    if (o.linear < 0)
        printf("# clv-linear runs fewer instances from P = 256 on (seconds per "
               "schedule at 512): the first ceil(I*(128/P)^2)\n");
    for (int k = UNIFORM; k <= SKEWED; k++) {
        if (o.only >= 0 && o.only != k)
            continue;
        printf("# %s: %s\n", kind_name[k], k == UNIFORM
               ? "arrivals uniform in [0, P+0.1], random root"
               : "all at 0 but P-1 at time N, root 0");
        printf("# %6s %6s %6s %11s %6s %11s %9s %6s %11s %9s %10s\n", "P", "N",
               "inst", "clv us", "inst", "tree us", "tree/clv", "inst",
               "linear us", "lin/clv", "identical");
        for (int32_t n = 0; n < nsizes; n++) {
            int32_t np = sizes[n];
            point_t pt;

            if (o.progress)
                fprintf(stderr, "clvbench: %s, P = N = %d: %d clv instances, "
                        "%d clv-linear, %d clv-tree\n", kind_name[k], np,
                        o.instances, linear_count(&o, np), tree_count(&o));
            if (run_point(&o, (kind_t)k, np, &pt) != 0)
                return 1;
            print_row(np, &pt);
            compared += pt.n_lin + pt.n_tree;
            top[k] = pt;
            last = np;
        }
    }
    print_summary(&o, last, top, compared);
    return 0;
}
