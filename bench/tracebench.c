/*
 * tracebench - what recording one trace event costs (issue 3).
 *
 *   mpirun -np 1 bin/tracebench [-n EVENTS] [-r REPEATS] [--chosen-clock]
 *
 * Measured: the tracer's hot path, hooks->visit (instrument/collect.c:
 * hook_visit, one clock read and a 24-byte store into the location's
 * buffer), called in a loop exactly as the executor calls it, and the cost
 * of writing the recorded events to OTF2 at ins_trace_close.
 *
 * How: the smallest tree (tests/pathmap/good/single-thread-core-1x1.pathmap,
 * one thread entering the core) is traced into a fresh directory under a
 * mkdtemp'd /tmp directory, with a --trace-mem that holds every event, so
 * that no buffer is flushed while recording (checked: ins_trace_flushes
 * must stay 0).  The one location is registered as rt_exec_create does:
 * the first of rt_location_list for host 0, through hooks->location.  The
 * hot loop is EVENTS calls of hooks->visit alternating ENTER and LEAVE on
 * the core (node 0), seq = i / 2, 4 bytes, through a function pointer, as the
 * executor does.  Then ins_trace_close is timed: write ns/event includes
 * OTF2 encoding the events and writing them to the page cache, the
 * definitions and the rename into place.  ins_trace_open is timed too
 * (reported per event: it touches the whole --trace-mem).  The archive must
 * report EVENTS events, or the program exits 1.
 *
 * The hooks of an algorithm node (issue 15) cost the same by design (a
 * clock read and a 24-byte store): each traced run is followed by one of
 * EVENTS calls of hooks->msg on the same location (the four message kinds
 * in turn; "msg hooks"), written at close as OTF2 MPI point-to-point events
 * ("msg write at close").  hooks->coll is the same code with other fields.
 *
 * Baselines, measured in the same run and interleaved with the traced loop
 * (each repeat runs them before the traced loop, the next one after it):
 *   no-op call  the same loop, same loop code, calling a visit function
 *               that does nothing (the cost of the call itself)
 *   rdtsc       the TSC read alone (__rdtsc), the tracer's clock where the
 *               TSC is invariant (instrument/clock.c)
 *   mono_raw    clock_gettime(CLOCK_MONOTONIC_RAW) alone, the tracer's
 *               clock elsewhere or with PAPTREE_TRACE_CLOCK=monotonic_raw
 *   store       24-byte records written to fresh anonymous memory (mmap) of
 *               the same size with no call and no clock ("fresh": every page
 *               is touched for the first time and faults), and the same
 *               into memory written once before ("warm": no page faults).
 *               The tracer touches its buffers in ins_trace_open, so its hot
 *               loop should cost "warm", not "fresh", stores; the open time
 *               (also reported, per event) is where those faults went.
 * Every repeat runs two traces: one with the clock the tracer picks (the
 * TSC here) and one with PAPTREE_TRACE_CLOCK=monotonic_raw, to show what
 * the TSC saves.  The clock baseline subtracted for a trace is the one its
 * summary names.  Figures are medians over the repeats, with min..max.
 * Goal (issue 3): <= 30 ns per event in the hot loop.  Loops are timed with
 * CLOCK_MONOTONIC; the process is not pinned (mpirun --bind-to none), and
 * the machine is shared, so run it a few times.
 */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HAVE_RDTSC 1
#else
#define HAVE_RDTSC 0
#endif
#include "instrument/api/ins_schema.h"
#include "instrument/api/ins_trace.h"
#include "runtime/api/rt_exec.h"
#include "runtime/api/rt_pathmap.h"

#define PATHMAP      "tests/pathmap/good/single-thread-core-1x1.pathmap"
#define GOAL_NS      30.0
#define REPEATS_MAX  101

/* The two traces of each repeat. */
enum { CLK_DEFAULT, CLK_RAW, NCLK };
/* What is measured, per repeat. */
enum { M_HOT, M_HOT_MINUS_NOOP, M_NOOP, M_CLOCK, M_STORE, M_STORE_WARM, M_OPEN, M_WRITE,
       M_MSG, M_MSG_WRITE, NMEAS };

typedef struct rec {            /* the tracer's record layout, for the store baseline */
    uint64_t ts, op;
    uint32_t ref, bytes;
} rec_t;

typedef struct bench {
    long        n, repeats;
    int         chosen_only;
    int         help;                   /* -h, --help */
    rt_pathmap_t *pm;
    const rt_tree_t *tree;
    rt_node_id_t node;
    char        tmp[64];
    char       *env_clock;       /* PAPTREE_TRACE_CLOCK as given (a copy), or NULL */
    /* [clock][measure][repeat] ns */
    double     *v[NCLK][NMEAS];
    double      tsc_read[REPEATS_MAX], raw_read[REPEATS_MAX];
    const char *clock_name[NCLK];
    int         same_clock;      /* the default trace already used monotonic_raw */
} bench_t;

static volatile uint64_t sink;

static double now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Hides the target of a pointer from the optimiser: calls stay indirect. */
static const rt_hooks_t *launder(const rt_hooks_t *h)
{
    const rt_hooks_t *volatile v = h;
    return v;
}

static void noop_visit(void *loc, rt_visit_t what, unsigned instance, rt_node_id_t node,
                       uint64_t seq, size_t bytes)
{
    (void)loc, (void)what, (void)instance, (void)node, (void)seq, (void)bytes;
}

static void *noop_location(void *ud, const rt_location_t *where)
{
    (void)where;
    return ud;
}

/* The one location of host 0 (PATHMAP has one thread and no link). */
static rt_location_t first_location(const bench_t *b)
{
    rt_location_t where[1];

    if (rt_location_list(b->tree, 1, 0, NULL) != 1) {
        fprintf(stderr, "tracebench: %s should have exactly one location\n", PATHMAP);
        exit(1);
    }
    (void)rt_location_list(b->tree, 1, 0, where);
    return where[0];
}

/*
 * The message loop: EVENTS calls of hooks->msg as an algorithm node's
 * executor makes them (the four kinds in turn, peer 1, a round per four
 * calls, a step per two), on the same location; ns per call.
 */
static __attribute__((noinline)) double msg_loop(const rt_hooks_t *h, void *loc, long n)
{
    double t0 = now_ns();

    for (long i = 0; i < n; i++)
        h->msg(loc, (rt_msg_t)(i & 3), 0, 1, (int32_t)(i >> 2), (uint32_t)(i >> 1), 4);
    return (now_ns() - t0) / (double)n;
}

/* The hot loop, shared by the traced and the no-op runs; ns per call. */
static __attribute__((noinline)) double visit_loop(const rt_hooks_t *h, void *loc, long n,
                                                   rt_node_id_t node)
{
    double t0 = now_ns();

    for (long i = 0; i < n; i++)
        h->visit(loc, (i & 1) ? RT_VISIT_LEAVE : RT_VISIT_ENTER, 0, node, (uint64_t)i / 2, 4);
    return (now_ns() - t0) / (double)n;
}

static __attribute__((noinline)) double tsc_loop(long n)
{
#if HAVE_RDTSC
    uint64_t acc = 0;
    double t0 = now_ns();

    for (long i = 0; i < n; i++)
        acc += __rdtsc();
    sink = acc;
    return (now_ns() - t0) / (double)n;
#else
    (void)n;
    return 0.0;
#endif
}

static __attribute__((noinline)) double raw_loop(long n)
{
    uint64_t acc = 0;
    double t0 = now_ns();

    for (long i = 0; i < n; i++) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
        acc += (uint64_t)ts.tv_nsec;
    }
    sink = acc;
    return (now_ns() - t0) / (double)n;
}

/*
 * Records into a buffer of n, as hook_visit does minus the call and the
 * clock: fresh anonymous pages from mmap (warm == 0: every page is touched
 * for the first time, as a large malloc'd trace buffer is), or the same
 * buffer written once before (warm == 1: no page faults).
 */
static __attribute__((noinline)) double store_loop(long n, rt_node_id_t node, int warm)
{
    size_t len = (size_t)n * sizeof(rec_t);
    rec_t *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    rec_t *volatile keep;
    double t0 = 0.0, t = 0.0;

    if (buf == MAP_FAILED)
        return -1.0;
    for (int pass = warm ? 0 : 1; pass < 2; pass++) {
        t0 = now_ns();
        for (long i = 0; i < n; i++) {
            rec_t *r = &buf[i];

            r->ts = (uint64_t)i + (uint64_t)pass;
            r->op = (uint64_t)i / 2;
            r->ref = node | ((i & 1) ? UINT32_C(1) << 31 : 0);
            r->bytes = 4;
        }
        t = (now_ns() - t0) / (double)n;
        keep = buf;
        sink = keep[n / 2].ts;
    }
    munmap(buf, len);
    return t;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

static int rm_tree(const char *path)
{
    return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void set_clock_env(const bench_t *b, int clk)
{
    if (clk == CLK_RAW)
        setenv("PAPTREE_TRACE_CLOCK", INS_CLOCK_MONO_RAW, 1);
    else if (b->env_clock != NULL)
        setenv("PAPTREE_TRACE_CLOCK", b->env_clock, 1);
    else
        unsetenv("PAPTREE_TRACE_CLOCK");
}

/*
 * One traced run: open, register, hot loop (visits, or with msgs the
 * message loop), close.  0, or 1 on failure.
 */
static int traced_run(bench_t *b, int clk, long rep, int msgs, double *hot, double *open_ns,
                      double *write_ns, const char **clock_name)
{
    char dir[128];
    size_t mem = ins_trace_mem_min(b->pm, b->tree, 1, 0) + (size_t)b->n * 24 + (1 << 16);
    ins_trace_opts_t opts = { dir, mem, 0, "tracebench" };
    ins_trace_summary_t sum;
    ins_trace_t *tr;
    const rt_hooks_t *hooks;
    rt_location_t where;
    uint64_t flushes;
    void *loc;
    cm_err_t err;
    double t0;

    cm_err_clear(&err);
    snprintf(dir, sizeof(dir), "%s/r%ld-%s%s", b->tmp, rep, clk == CLK_RAW ? "raw" : "default",
             msgs ? "-msg" : "");
    set_clock_env(b, clk);
    t0 = now_ns();
    if (ins_trace_open(b->pm, b->tree->name, 1, &opts, MPI_COMM_WORLD, &tr, &err) != CM_OK) {
        cm_err_print(stderr, "tracebench: ", &err);
        return 1;
    }
    *open_ns = (now_ns() - t0) / (double)b->n;
    hooks = ins_trace_hooks(tr);
    /* As rt_exec_create registers a computational thread. */
    where = first_location(b);
    loc = hooks->location(hooks->ud, &where);
    if (loc == NULL) {
        fprintf(stderr, "tracebench: the tracer refused the location of thread %u\n",
                b->tree->threads[0].id);
        (void)ins_trace_close(tr, &sum, &err);
        return 1;
    }
    *hot = msgs ? msg_loop(launder(hooks), loc, b->n)
                : visit_loop(launder(hooks), loc, b->n, b->node);
    flushes = ins_trace_flushes(tr);
    t0 = now_ns();
    if (ins_trace_close(tr, &sum, &err) != CM_OK) {
        cm_err_print(stderr, "tracebench: ", &err);
        return 1;
    }
    *write_ns = (now_ns() - t0) / (double)b->n;
    *clock_name = sum.clock;
    if (flushes != 0 || sum.flushes != 0) {
        fprintf(stderr, "tracebench: %llu buffer flushes with --trace-mem %zu: the hot loop "
                "was not measured alone\n", (unsigned long long)sum.flushes, mem);
        return 1;
    }
    if (sum.events != (uint64_t)b->n) {
        fprintf(stderr, "tracebench: the archive holds %llu events, %ld were recorded\n",
                (unsigned long long)sum.events, b->n);
        return 1;
    }
    if (rm_tree(dir) != 0) {
        fprintf(stderr, "tracebench: cannot remove %s\n", dir);
        return 1;
    }
    return 0;
}

/* The baselines of one repeat. */
static void baselines(bench_t *b, long rep, double *noop)
{
    static const rt_hooks_t noop_hooks = { .location = noop_location, .visit = noop_visit };
    const rt_hooks_t *h = launder(&noop_hooks);
    rt_location_t where = first_location(b);
    void *loc = h->location(h->ud, &where);

    *noop = visit_loop(h, loc, b->n, b->node);
    b->tsc_read[rep] = tsc_loop(b->n);
    b->raw_read[rep] = raw_loop(b->n);
    b->v[CLK_DEFAULT][M_STORE][rep] = b->v[CLK_RAW][M_STORE][rep] = store_loop(b->n, b->node, 0);
    b->v[CLK_DEFAULT][M_STORE_WARM][rep] = b->v[CLK_RAW][M_STORE_WARM][rep] =
        store_loop(b->n, b->node, 1);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void stats(const double *v, long n, double *med, double *lo, double *hi)
{
    double s[REPEATS_MAX];

    memcpy(s, v, (size_t)n * sizeof(*s));
    qsort(s, (size_t)n, sizeof(*s), cmp_double);
    *med = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    *lo = s[0];
    *hi = s[n - 1];
}

static void print_row(const bench_t *b, const char *label, int m, int nclk)
{
    printf("%-28s", label);
    for (int c = 0; c < nclk; c++) {
        double med, lo, hi;
        char range[40];

        stats(b->v[c][m], b->repeats, &med, &lo, &hi);
        snprintf(range, sizeof(range), "%.2f..%.2f", lo, hi);
        printf(" %9.2f %-14s", med, range);
    }
    printf("\n");
}

static void report(bench_t *b)
{
    int nclk = b->same_clock || b->chosen_only ? 1 : NCLK;
    double hot[NCLK], lo, hi, tsc, raw;

    printf("# tracebench: %ld events (ENTER/LEAVE pairs on the core of %s) per trace, "
           "%ld repeats interleaved with the baselines; medians and min..max, ns\n",
           b->n, PATHMAP, b->repeats);
    printf("%-28s", "# clock of the trace");
    for (int c = 0; c < nclk; c++)
        printf(" %9s %-14s", b->clock_name[c], "(min..max)");
    printf("\n");
    print_row(b, "hot loop, ns/event", M_HOT, nclk);
    print_row(b, "  minus no-op call", M_HOT_MINUS_NOOP, nclk);
    print_row(b, "no-op call, ns/call", M_NOOP, nclk);
    print_row(b, "clock read alone, ns", M_CLOCK, nclk);
    print_row(b, "store, fresh buffer, ns", M_STORE, nclk);
    print_row(b, "store, warm buffer, ns", M_STORE_WARM, nclk);
    print_row(b, "open (touches buffer), ns/ev", M_OPEN, nclk);
    print_row(b, "write at close, ns/event", M_WRITE, nclk);
    print_row(b, "msg hooks, ns/event", M_MSG, nclk);
    print_row(b, "msg write at close, ns/ev", M_MSG_WRITE, nclk);
    printf("%-28s", "hot loop / goal (30 ns)");
    for (int c = 0; c < nclk; c++) {
        stats(b->v[c][M_HOT], b->repeats, &hot[c], &lo, &hi);
        printf(" %8.2fx %-14s", hot[c] / GOAL_NS, "");
    }
    printf("\n");
    printf("%-28s", "hot loop / no-op call");
    for (int c = 0; c < nclk; c++) {
        double noop;

        stats(b->v[c][M_NOOP], b->repeats, &noop, &lo, &hi);
        printf(" %8.2fx %-14s", noop > 0 ? hot[c] / noop : 0.0, "");
    }
    printf("\n");
    stats(b->tsc_read, b->repeats, &tsc, &lo, &hi);
    stats(b->raw_read, b->repeats, &raw, &lo, &hi);
    printf("# clocks alone: rdtsc %.2f ns, clock_gettime(CLOCK_MONOTONIC_RAW) %.2f ns "
           "(%.2fx)\n", tsc, raw, tsc > 0 ? raw / tsc : 0.0);
    if (nclk == NCLK)
        printf("# monotonic_raw trace / %s trace, hot loop: %.2fx\n", b->clock_name[0],
               hot[1] / hot[0]);
    else if (b->same_clock)
        printf("# the tracer already chose %s: no second trace\n", b->clock_name[0]);
    printf("# every trace: 0 buffer flushes while recording (--trace-mem %zu bytes), and "
           "the archive held all %ld events\n",
           ins_trace_mem_min(b->pm, b->tree, 1, 0) + (size_t)b->n * 24 + (1 << 16), b->n);
    printf("# goal <= %.0f ns/event: %s (%.2f ns with %s)\n", GOAL_NS,
           hot[0] <= GOAL_NS ? "met" : "NOT met", hot[0], b->clock_name[0]);
}

static void usage(FILE *fp)
{
    fprintf(fp,
"usage: mpirun -np 1 bin/tracebench [-n EVENTS] [-r REPEATS] [--chosen-clock]\n"
"What recording one trace event costs: EVENTS calls of the tracer's visit hook\n"
"(ENTER/LEAVE on the core of " PATHMAP ")\n"
"and the OTF2 write at close, then as many calls of the message hook of an\n"
"algorithm node, against a no-op call, the clock alone and a\n"
"plain store, interleaved over REPEATS repeats; medians.  Each repeat traces\n"
"twice: with the clock the tracer picks and with PAPTREE_TRACE_CLOCK=monotonic_raw.\n"
"Run from the repository's top directory.  Exits 1 if an archive does not hold\n"
"EVENTS events or a buffer was flushed.\n"
"  -n EVENTS       events per trace, even (default 2000000)\n"
"  -r REPEATS      1..%d (default 7)\n"
"  --chosen-clock  only the trace with the clock the tracer chooses (no\n"
"                  PAPTREE_TRACE_CLOCK=monotonic_raw trace)\n"
"  -h, --help      this text\n", REPEATS_MAX);
}

/* -C, -r or -n with its argument. */
static cm_status_t parse_one(cm_opt_t *ctx, bench_t *b, int c, const char *arg)
{
    cm_status_t st;

    if (c == 'C') {
        b->chosen_only = 1;
        return CM_OK;
    }
    if (c == 'r')
        return cm_opt_long(ctx, "-r", arg, 1, REPEATS_MAX, &b->repeats);
    if ((st = cm_opt_long(ctx, "-n", arg, 2, 1L << 31, &b->n)) == CM_OK && b->n % 2 != 0)
        return cm_opt_fail(ctx, CM_ERR_INVALID, "-n", "'%s' is odd (an ENTER and a LEAVE per "
                           "visit), expected an even number in 2..%ld", arg, 1L << 31);
    return st;
}

/* Every rank (one) parses; rt_mpi_agree_args reports. */
static void parse_args(int argc, char **argv, bench_t *b, cm_opt_t *ctx)
{
    static const struct option lo[] = {
        { "chosen-clock", 0, 0, 'C' }, { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
    const char *opt;
    int c;

    while ((c = cm_opt_next(ctx, argc, argv, ":n:r:h", lo, &opt)) != -1) {
        if (c == 'h') {
            b->help = 1;                /* the rest is not judged */
            return;
        }
        parse_one(ctx, b, c, optarg);
    }
    (void)cm_opt_no_operands(ctx, argc, argv);
}

static int run(bench_t *b)
{
    for (long rep = 0; rep < b->repeats; rep++) {
        int nclk = b->chosen_only || b->same_clock ? 1 : NCLK;
        double noop = 0.0;

        if (rep % 2 == 0)
            baselines(b, rep, &noop);
        for (int k = 0; k < nclk; k++) {
            /* Alternate which trace goes first, too. */
            int c = nclk == 1 ? CLK_DEFAULT : (k + (int)(rep / 2)) % NCLK;
            const char *name = NULL;

            double open_msg;

            if (traced_run(b, c, rep, 0, &b->v[c][M_HOT][rep], &b->v[c][M_OPEN][rep],
                           &b->v[c][M_WRITE][rep], &name) ||
                traced_run(b, c, rep, 1, &b->v[c][M_MSG][rep], &open_msg,
                           &b->v[c][M_MSG_WRITE][rep], &name))
                return 1;
            b->clock_name[c] = name;
            if (c == CLK_DEFAULT && strcmp(name, INS_CLOCK_MONO_RAW) == 0 && !b->chosen_only)
                b->same_clock = 1;
        }
        if (rep % 2 == 1)
            baselines(b, rep, &noop);
        for (int c = 0; c < NCLK; c++) {
            b->v[c][M_NOOP][rep] = noop;
            b->v[c][M_HOT_MINUS_NOOP][rep] = b->v[c][M_HOT][rep] - noop;
        }
        for (int c = 0; c < NCLK; c++) {
            const char *name = b->clock_name[c] ? b->clock_name[c] : INS_CLOCK_MONO_RAW;
            b->v[c][M_CLOCK][rep] = strcmp(name, INS_CLOCK_TSC) == 0 ? b->tsc_read[rep]
                                                                      : b->raw_read[rep];
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    bench_t b;
    cm_opt_t ctx;
    cm_err_t err;
    rt_args_t agreed;
    int size, rc;

    memset(&b, 0, sizeof(b));
    b.n = 2000000;
    b.repeats = 7;
    cm_opt_init(&ctx, "tracebench");
    parse_args(argc, argv, &b, &ctx);
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if ((agreed = rt_mpi_agree_args(MPI_COMM_WORLD, &ctx, b.help, usage,
                                    "usage: mpirun -np 1 bin/tracebench [-n EVENTS] "
                                    "[-r REPEATS] [--chosen-clock]")) != RT_ARGS_RUN) {
        MPI_Finalize();
        return agreed == RT_ARGS_HELP ? 0 : 2;
    }
    if (size != 1) {
        fprintf(stderr, "tracebench: run it with mpirun -np 1 (one host)\n");
        MPI_Finalize();
        return 2;
    }
    cm_err_clear(&err);
    if (rt_pathmap_load(PATHMAP, &b.pm, &err) != CM_OK) {
        cm_err_print(stderr, "tracebench: ", &err);
        MPI_Finalize();
        return 1;
    }
    b.tree = rt_pathmap_tree(b.pm, NULL);
    b.node = b.tree->threads[0].enter;
    if (b.tree->nthreads != 1 || b.tree->nodes[b.node].kind != RT_NODE_CORE) {
        fprintf(stderr, "tracebench: %s is not one thread entering the core\n", PATHMAP);
        rt_pathmap_destroy(b.pm);
        MPI_Finalize();
        return 1;
    }
    b.env_clock = getenv("PAPTREE_TRACE_CLOCK") ? strdup(getenv("PAPTREE_TRACE_CLOCK")) : NULL;
    rc = 0;
    for (int c = 0; c < NCLK; c++) {
        for (int m = 0; m < NMEAS; m++) {
            b.v[c][m] = calloc((size_t)b.repeats, sizeof(double));
            rc |= b.v[c][m] == NULL;
        }
    }
    snprintf(b.tmp, sizeof(b.tmp), "/tmp/tracebench.XXXXXX");
    if (rc != 0) {
        fprintf(stderr, "tracebench: out of memory\n");
    } else if (mkdtemp(b.tmp) == NULL) {
        perror("tracebench: mkdtemp");
        rc = 1;
    } else {
        rc = run(&b);
        if (rm_tree(b.tmp) != 0)
            fprintf(stderr, "tracebench: cannot remove %s\n", b.tmp);
    }
    set_clock_env(&b, CLK_DEFAULT);
    if (rc == 0)
        report(&b);
    for (int c = 0; c < NCLK; c++) {
        for (int m = 0; m < NMEAS; m++)
            free(b.v[c][m]);
    }
    free(b.env_clock);
    rt_pathmap_destroy(b.pm);
    MPI_Finalize();
    return rc;
}
