/*
 * exec_random - runs random trees (tests/randtree/randtree.h) through the
 * executor and checks every result two ways.
 *
 *   mpirun -np 4 build/tests/exec_random [--seeds A-B] [--bytes 4,256] [--ops N]
 *       [--delay-us MAX] [--links threads|services] [--trace DIR] [--instances K]
 *       [--watchdog S] [--algo PCT]
 *
 * In one MPI job, for each seed: every rank generates the same pathmap
 * (at most as many hosts as the job has ranks), parses it, and the first
 * nhosts ranks split off a communicator and run each of its trees in turn:
 * rt_exec_create, one pthread per thread of the host, each making OPS
 * allreduces per size (instances alternate), rt_exec_destroy.  The other
 * ranks wait for the next seed in a non-blocking barrier, sleeping.
 *
 * Contributions: thread with index r among the tree's n threads (sorted by
 * id) gives, in its g-th operation (counted over all sizes), element j:
 *     v = 3 * ((r + g + j) mod n) + c,   c = (g mod 5) - 7 + (j mod 3)
 * so that every thread's value moves around and the results have a closed
 * form: sum = 3 n (n-1) / 2 + n c, min = c, max = 3 (n-1) + c (small
 * integers: exact in int32, int64 and double, in any order).  Each result
 * is checked against that closed form and against an oracle computed
 * without the tree before the threads start: each rank reduces its own
 * threads' values serially, and MPI_Allreduce combines the ranks'.
 *
 * --delay-us MAX: before each contribution a thread sleeps a random
 * 0..MAX us (drawn from the seed, thread and operation), so that arrival
 * orders vary.  --trace DIR: one OTF2 archive per seed and tree, at
 * DIR/seed-S-TREE, with the pathmap at DIR/seed-S.pathmap, for
 * build/tests/trace_check (tests/mpi/random-trees-traced.sh).  The stall
 * watchdog (default 30 s) turns a hang into a report and an abort.
 *
 * A mismatch prints the seed, the pathmap text, the tree, thread,
 * operation, size and element; the job goes on to the next seed and exits
 * 1 at the end.  Exit 0 iff every result of every seed matched.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "instrument/api/ins_trace.h"
#include "runtime/api/rt_exec.h"
#include "tests/randtree/randtree.h"

#define ER_SIZES_MAX 16
#define ER_REPORTS   5      /* mismatch lines per rank and tree */

typedef struct er_opts {
    unsigned long long first, last;
    size_t      sizes[ER_SIZES_MAX];
    int         nsizes;
    long        ops;
    long        delay_us;
    rt_links_t  links;
    const char *trace_dir;
    unsigned    instances;
    double      watchdog_s;
    unsigned    algo_percent;
    unsigned    max_hosts;
} er_opts_t;

/* One tree's run on this rank. */
typedef struct er_run {
    const er_opts_t *o;
    unsigned long long seed;
    const char      *text;        /* the pathmap */
    const rt_tree_t *tree;
    rt_exec_t       *ex;
    size_t           elem;
    double          *expected;   /* [nsizes][ops][count of the size], as doubles */
    size_t          *offset;     /* [nsizes]: where each size's block starts */
    long             checked;
    int              failures;
    int             *text_printed;
    pthread_mutex_t  lock;
} er_run_t;

typedef struct er_worker {
    er_run_t *run;
    uint32_t  local;
    pthread_t thread;
    long      checked;
} er_worker_t;

static int g_rank;
static randtree_limits_t g_lim;    /* what the pathmaps are drawn with */

/* How to print the seed's pathmap again. */
static void print_repro(unsigned long long seed)
{
    fprintf(stderr, "exec_random: rank %d: seed %llu's pathmap again: build/tests/randtree %llu "
            "--max-hosts %u --algo %u --count %u\n", g_rank, seed, seed, g_lim.max_hosts,
            g_lim.algo_percent, g_lim.min_count);
}

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The constant part of operation g's element j, and a thread's value. */
static int64_t cpart(long g, size_t j)
{
    return (int64_t)(g % 5) - 7 + (int64_t)(j % 3);
}

static int64_t value(uint32_t r, uint32_t n, long g, size_t j)
{
    return 3 * (int64_t)(((uint64_t)r + (uint64_t)g + j) % n) + cpart(g, j);
}

static int64_t closed_form(rt_op_t op, uint32_t n, long g, size_t j)
{
    int64_t c = cpart(g, j);

    if (op == RT_OP_SUM)
        return 3 * (int64_t)n * ((int64_t)n - 1) / 2 + (int64_t)n * c;
    return op == RT_OP_MIN ? c : 3 * ((int64_t)n - 1) + c;
}

static size_t count_of(const er_run_t *run, int s)
{
    return (run->o->sizes[s] + run->elem - 1) / run->elem;   /* whole elements */
}

static void store(rt_dtype_t t, void *buf, size_t j, int64_t v)
{
    if (t == RT_DTYPE_INT32)
        ((int32_t *)buf)[j] = (int32_t)v;
    else if (t == RT_DTYPE_INT64)
        ((int64_t *)buf)[j] = v;
    else
        ((double *)buf)[j] = (double)v;
}

static double load(rt_dtype_t t, const void *buf, size_t j)
{
    if (t == RT_DTYPE_INT32)
        return ((const int32_t *)buf)[j];
    if (t == RT_DTYPE_INT64)
        return (double)((const int64_t *)buf)[j];
    return ((const double *)buf)[j];
}

static uint32_t thread_index(const rt_tree_t *t, uint32_t id)
{
    uint32_t lo = 0, hi = t->nthreads;

    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;

        if (t->threads[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/*
 * The oracle, without the tree: this rank's threads reduced serially
 * (plain C, not the runtime's kernels), then MPI_Allreduce over the
 * seed's communicator in doubles (exact: |values| < 2^31).  A rank
 * without threads in the tree contributes the identity.
 */
static int build_oracle(er_run_t *run, MPI_Comm comm)
{
    const er_opts_t *o = run->o;
    const rt_tree_t *t = run->tree;
    uint32_t nlocal = rt_exec_local_count(run->ex);
    size_t total = 0, maxc = 0;
    double *local;
    long g = 0;

    run->offset = calloc((size_t)o->nsizes, sizeof(*run->offset));
    for (int s = 0; s < o->nsizes; s++) {
        run->offset[s] = total;
        total += (size_t)o->ops * count_of(run, s);
        if (count_of(run, s) > maxc)
            maxc = count_of(run, s);
    }
    run->expected = malloc(total * sizeof(double));
    local = malloc(maxc * sizeof(double));
    if (run->offset == NULL || run->expected == NULL || local == NULL) {
        free(local);
        return -1;
    }
    for (int s = 0; s < o->nsizes; s++) {
        size_t count = count_of(run, s);

        for (long k = 0; k < o->ops; k++, g++) {
            for (size_t j = 0; j < count; j++) {
                double acc = t->op == RT_OP_SUM ? 0.0 : t->op == RT_OP_MIN ? 1e18 : -1e18;

                for (uint32_t i = 0; i < nlocal; i++) {
                    uint32_t r = thread_index(t, rt_exec_local_thread(run->ex, i)->id);
                    double v = (double)value(r, t->nthreads, g, j);

                    if (t->op == RT_OP_SUM)
                        acc += v;
                    else if (t->op == RT_OP_MIN ? v < acc : v > acc)
                        acc = v;
                }
                local[j] = acc;
            }
            MPI_Allreduce(local, run->expected + run->offset[s] + (size_t)k * count,
                          (int)count, MPI_DOUBLE,
                          t->op == RT_OP_SUM ? MPI_SUM : t->op == RT_OP_MIN ? MPI_MIN : MPI_MAX,
                          comm);
        }
    }
    free(local);
    return 0;
}

static void report(er_run_t *run, uint32_t id, long g, int s, size_t j, double got,
                   double oracle, int64_t closed)
{
    pthread_mutex_lock(&run->lock);
    if (!*run->text_printed) {
        *run->text_printed = 1;
        fprintf(stderr, "exec_random: rank %d: seed %llu: wrong results; its pathmap:\n%s"
                "exec_random: rank %d: (end of seed %llu's pathmap)\n", g_rank, run->seed,
                run->text, g_rank, run->seed);
        print_repro(run->seed);
    }
    if (run->failures++ < ER_REPORTS)
        fprintf(stderr, "exec_random: rank %d: seed %llu tree %s (%s %s, %u threads): thread %u, "
                "op %ld (instance %ld), %zu bytes, element %zu: got %.17g, oracle %.17g, "
                "closed form %lld\n", g_rank, run->seed, run->tree->name,
                rt_dtype_name(run->tree->dtype), rt_op_name(run->tree->op),
                run->tree->nthreads, id, g, g % (long)run->o->instances, count_of(run, s) * run->elem, j,
                got, oracle, (long long)closed);
    pthread_mutex_unlock(&run->lock);
}

static void *worker_main(void *arg)
{
    er_worker_t *w = arg;
    er_run_t *run = w->run;
    const er_opts_t *o = run->o;
    const rt_tree_t *t = run->tree;
    uint32_t id = rt_exec_local_thread(run->ex, w->local)->id;
    uint32_t r = thread_index(t, id), n = t->nthreads;
    size_t maxb = 0;
    unsigned char *in, *out;
    long g = 0;

    for (int s = 0; s < o->nsizes; s++) {
        if (count_of(run, s) * run->elem > maxb)
            maxb = count_of(run, s) * run->elem;
    }
    in = malloc(maxb);
    out = malloc(maxb);
    if (in == NULL || out == NULL) {
        fprintf(stderr, "exec_random: rank %d: out of memory\n", g_rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int s = 0; s < o->nsizes; s++) {
        size_t count = count_of(run, s), bytes = count * run->elem;

        for (long k = 0; k < o->ops; k++, g++) {
            const double *exp = run->expected + run->offset[s] + (size_t)k * count;

            for (size_t j = 0; j < count; j++)
                store(t->dtype, in, j, value(r, n, g, j));
            memset(out, 0xa5, bytes);
            if (o->delay_us > 0) {
                uint64_t us = mix(run->seed * 1000003u ^ ((uint64_t)id << 32) ^ (uint64_t)g) %
                              (uint64_t)(o->delay_us + 1);
                struct timespec ts = { (time_t)(us / 1000000), (long)(us % 1000000) * 1000 };

                nanosleep(&ts, NULL);
            }
            rt_exec_allreduce(run->ex, w->local, (unsigned)(g % (long)o->instances), in, out,
                              bytes);
            for (size_t j = 0; j < count; j++) {
                double got = load(t->dtype, out, j);
                int64_t cf = closed_form(t->op, n, g, j);

                if (got != exp[j] || got != (double)cf)
                    report(run, id, g, s, j, got, exp[j], cf);
            }
            w->checked += (long)count;
        }
    }
    free(in);
    free(out);
    return NULL;
}

/* Runs tree k of pm on comm (this rank is one of its hosts). */
static int run_tree(const er_opts_t *o, unsigned long long seed, const char *text,
                    const rt_pathmap_t *pm, uint32_t k, MPI_Comm comm, int *text_printed,
                    long *checked)
{
    const rt_tree_t *tree = &pm->trees[k];
    rt_exec_params_t params = { .tree = tree->name, .ninstances = o->instances,
                                .spin_ns = -1, .yield_ns = -1,
                                .watchdog_s = o->watchdog_s, .links = o->links };
    ins_trace_t *tr = NULL;
    er_run_t run;
    er_worker_t *w;
    uint32_t nlocal;
    cm_err_t err;
    char dir[4096];
    int failures;

    cm_err_clear(&err);
    memset(&run, 0, sizeof(run));
    run.o = o;
    run.seed = seed;
    run.text = text;
    run.tree = tree;
    run.elem = rt_dtype_size(tree->dtype);
    run.text_printed = text_printed;
    pthread_mutex_init(&run.lock, NULL);
    for (int s = 0; s < o->nsizes; s++) {
        size_t b = (o->sizes[s] + run.elem - 1) / run.elem * run.elem;

        if (b > params.max_bytes)
            params.max_bytes = b;
    }
    if (o->trace_dir != NULL) {
        ins_trace_opts_t topts = { dir, 0, 1, "exec_random" };

        snprintf(dir, sizeof(dir), "%s/seed-%llu-%s", o->trace_dir, seed, tree->name);
        if (ins_trace_open(pm, tree->name, o->instances, &topts, comm, &tr, &err) != CM_OK) {
            fprintf(stderr, "exec_random: rank %d: seed %llu tree %s: ", g_rank, seed,
                    tree->name);
            cm_err_print(stderr, "", &err);
            return 1;
        }
        params.hooks = ins_trace_hooks(tr);
    }
    if (rt_exec_create(pm, &params, comm, &run.ex, &err) != CM_OK) {
        fprintf(stderr, "exec_random: rank %d: seed %llu tree %s: ", g_rank, seed, tree->name);
        cm_err_print(stderr, "", &err);
        if (tr != NULL)
            (void)ins_trace_close(tr, &(ins_trace_summary_t){ 0 }, &err);
        return 1;
    }
    if (build_oracle(&run, comm) != 0) {
        fprintf(stderr, "exec_random: rank %d: out of memory\n", g_rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    nlocal = rt_exec_local_count(run.ex);
    w = calloc(nlocal + 1, sizeof(*w));
    if (w == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (uint32_t i = 0; i < nlocal; i++) {
        w[i].run = &run;
        w[i].local = i;
        if (pthread_create(&w[i].thread, NULL, worker_main, &w[i]) != 0) {
            fprintf(stderr, "exec_random: rank %d: cannot start a thread\n", g_rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    for (uint32_t i = 0; i < nlocal; i++) {
        pthread_join(w[i].thread, NULL);
        *checked += w[i].checked;
    }
    free(w);
    rt_exec_destroy(run.ex);
    failures = run.failures;
    if (tr != NULL) {
        ins_trace_summary_t sum;

        if (ins_trace_close(tr, &sum, &err) != CM_OK) {
            fprintf(stderr, "exec_random: rank %d: seed %llu tree %s: ", g_rank, seed,
                    tree->name);
            cm_err_print(stderr, "", &err);
            failures++;
        }
    }
    free(run.expected);
    free(run.offset);
    pthread_mutex_destroy(&run.lock);
    return failures;
}

/*
 * MPI must still be thread-safe after a tree ran: a library call that
 * lowers the thread level (in Open MPI 4, MPI_T_init_thread with a lower
 * level than MPI_Init_thread's lowers the process's) leaves every later
 * multi-threaded MPI call unprotected, and the next rt_exec_create fails on
 * some ranks only.  Aborts the job with the seed and the pathmap.
 */
static void check_level(unsigned long long seed, const char *tree, const char *text)
{
    int level = 0;

    MPI_Query_thread(&level);
    if (level == MPI_THREAD_MULTIPLE)
        return;
    fprintf(stderr, "exec_random: rank %d: seed %llu: after tree %s, MPI's thread level is %d, "
            "no longer MPI_THREAD_MULTIPLE (%d); the pathmap:\n%s"
            "exec_random: rank %d: aborting: the runtime lowered MPI's thread level\n",
            g_rank, seed, tree, level, MPI_THREAD_MULTIPLE, text, g_rank);
    print_repro(seed);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* A barrier over the whole job that sleeps instead of polling the network. */
static void sleepy_barrier(void)
{
    MPI_Request req;
    int done = 0;
    long ns = 20000;

    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    for (;;) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done)
            break;
        nanosleep(&(struct timespec){ 0, ns }, NULL);
        if (ns < 2000000)
            ns *= 2;
    }
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mpirun -np N exec_random [--seeds A-B] [--bytes 4,256] [--ops N]\n"
            "           [--delay-us MAX] [--links threads|services] [--trace DIR]\n"
            "           [--instances K] [--watchdog S] [--algo PCT] [--max-hosts H]\n"
            "  Runs the random pathmap of each seed A..B (tests/randtree/randtree.h, 1..H hosts;\n"
            "  build/tests/randtree SEED prints it) on the first ranks and checks every\n"
            "  allreduce against MPI_Allreduce and a closed form.  N >= H.\n"
            "  --seeds A-B      seeds (default 1-10; a single number for one)\n"
            "  --bytes LIST     tuple sizes, rounded up to whole elements (default 4,256)\n"
            "  --ops N          allreduces per thread and size (default 20)\n"
            "  --delay-us MAX   sleep a random 0..MAX us before each contribution (0)\n"
            "  --links WHO      who serves proxy links: threads (default) or services\n"
            "  --trace DIR      write DIR/seed-S-TREE (OTF2) and DIR/seed-S.pathmap\n"
            "  --instances K    tree instances, used in turn (default 2)\n"
            "  --watchdog S     the executor's stall watchdog (default 30; 0 off)\n"
            "  --algo PCT       chance of an algorithm node root (default 20)\n"
            "  --max-hosts H    at most H hosts per pathmap (default 4)\n"
            "Exit 0 iff every result matched.\n");
}

static int parse_num(const char *s, unsigned long long max, unsigned long long *v)
{
    char *end;

    if (s == NULL || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    *v = strtoull(s, &end, 10);
    return errno != 0 || *end != '\0' || *v > max ? -1 : 0;
}

/* 0, 1 for --help, -1 with a message for a bad option. */
static int parse_args(int argc, char **argv, er_opts_t *o)
{
    unsigned long long v;

    o->first = 1;
    o->last = 10;
    o->sizes[0] = 4;
    o->sizes[1] = 256;
    o->nsizes = 2;
    o->ops = 20;
    o->delay_us = 0;
    o->links = RT_LINKS_THREADS;
    o->trace_dir = NULL;
    o->instances = 2;
    o->watchdog_s = 30;
    o->algo_percent = 20;
    o->max_hosts = 4;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *arg = i + 1 < argc ? argv[i + 1] : NULL;

        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
            return 1;
        if (arg == NULL) {
            fprintf(stderr, "exec_random: %s: missing value or unknown option\n", a);
            return -1;
        }
        i++;
        if (strcmp(a, "--seeds") == 0) {
            char buf[64], *dash;

            snprintf(buf, sizeof(buf), "%s", arg);
            dash = strchr(buf, '-');
            if (dash != NULL)
                *dash = '\0';
            if (parse_num(buf, UINT64_MAX - 1, &o->first) != 0 ||
                parse_num(dash ? dash + 1 : buf, UINT64_MAX - 1, &o->last) != 0 ||
                o->last < o->first) {
                fprintf(stderr, "exec_random: --seeds takes A-B with A <= B, or A\n");
                return -1;
            }
        } else if (strcmp(a, "--bytes") == 0) {
            char buf[256], *tok, *save = NULL;

            snprintf(buf, sizeof(buf), "%s", arg);
            o->nsizes = 0;
            for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                if (o->nsizes == ER_SIZES_MAX || parse_num(tok, 1u << 24, &v) != 0 || v == 0) {
                    fprintf(stderr, "exec_random: --bytes takes up to %d sizes of 1..%u\n",
                            ER_SIZES_MAX, 1u << 24);
                    return -1;
                }
                o->sizes[o->nsizes++] = (size_t)v;
            }
            if (o->nsizes == 0) {
                fprintf(stderr, "exec_random: --bytes takes a list of sizes\n");
                return -1;
            }
        } else if (strcmp(a, "--ops") == 0) {
            if (parse_num(arg, 1000000, &v) != 0 || v == 0) {
                fprintf(stderr, "exec_random: --ops takes 1..1000000\n");
                return -1;
            }
            o->ops = (long)v;
        } else if (strcmp(a, "--delay-us") == 0) {
            if (parse_num(arg, 1000000, &v) != 0) {
                fprintf(stderr, "exec_random: --delay-us takes 0..1000000\n");
                return -1;
            }
            o->delay_us = (long)v;
        } else if (strcmp(a, "--links") == 0) {
            if (strcmp(arg, "threads") == 0) {
                o->links = RT_LINKS_THREADS;
            } else if (strcmp(arg, "services") == 0) {
                o->links = RT_LINKS_SERVICES;
            } else {
                fprintf(stderr, "exec_random: --links takes threads or services\n");
                return -1;
            }
        } else if (strcmp(a, "--trace") == 0) {
            o->trace_dir = arg;
        } else if (strcmp(a, "--instances") == 0) {
            if (parse_num(arg, 64, &v) != 0 || v == 0) {
                fprintf(stderr, "exec_random: --instances takes 1..64\n");
                return -1;
            }
            o->instances = (unsigned)v;
        } else if (strcmp(a, "--watchdog") == 0) {
            if (parse_num(arg, 3600, &v) != 0) {
                fprintf(stderr, "exec_random: --watchdog takes 0..3600 (seconds)\n");
                return -1;
            }
            o->watchdog_s = (double)v;
        } else if (strcmp(a, "--max-hosts") == 0) {
            if (parse_num(arg, RANDTREE_HOSTS_MAX, &v) != 0 || v == 0) {
                fprintf(stderr, "exec_random: --max-hosts takes 1..%d\n", RANDTREE_HOSTS_MAX);
                return -1;
            }
            o->max_hosts = (unsigned)v;
        } else if (strcmp(a, "--algo") == 0) {
            if (parse_num(arg, 100, &v) != 0) {
                fprintf(stderr, "exec_random: --algo takes 0..100\n");
                return -1;
            }
            o->algo_percent = (unsigned)v;
        } else {
            fprintf(stderr, "exec_random: unknown option '%s'\n", a);
            return -1;
        }
    }
    return 0;
}

/* Writes DIR/seed-S.pathmap (rank 0); 0 or -1. */
static int write_pathmap(const char *dir, unsigned long long seed, const char *text)
{
    char path[4096];
    FILE *f;
    int rc;

    snprintf(path, sizeof(path), "%s/seed-%llu.pathmap", dir, seed);
    if ((f = fopen(path, "w")) == NULL) {
        fprintf(stderr, "exec_random: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    rc = fputs(text, f) < 0 ? -1 : 0;
    if (fclose(f) != 0)
        rc = -1;
    return rc;
}

int main(int argc, char **argv)
{
    er_opts_t o;
    randtree_limits_t lim;
    cm_err_t err;
    int size, rc, failures = 0, total = 0, trees = 0;
    long checked = 0, all_checked = 0;
    size_t min_bytes = SIZE_MAX;
    char *text = NULL;

    cm_err_clear(&err);
    if (rt_mpi_init(&argc, &argv, &err) != CM_OK) {
        cm_err_print(stderr, "exec_random: ", &err);
        MPI_Finalize();
        return 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rc = parse_args(argc, argv, &o);
    if (rc != 0) {
        if (g_rank == 0)
            usage(rc > 0 ? stdout : stderr);
        MPI_Finalize();
        return rc > 0 ? 0 : 2;
    }
    randtree_limits_default(&lim);
    if ((int)o.max_hosts > size) {
        if (g_rank == 0)
            fprintf(stderr, "exec_random: --max-hosts %u needs at least %u ranks (mpirun -np "
                    "%u), not %d\n", o.max_hosts, o.max_hosts, o.max_hosts, size);
        MPI_Finalize();
        return 2;
    }
    lim.max_hosts = o.max_hosts;
    lim.algo_percent = o.algo_percent;
    for (int s = 0; s < o.nsizes; s++) {
        if (o.sizes[s] < min_bytes)
            min_bytes = o.sizes[s];
    }
    lim.min_count = min_bytes / 8 > 1 ? (unsigned)(min_bytes / 8) : 1;
    g_lim = lim;
    if (o.trace_dir != NULL && g_rank == 0 && mkdir(o.trace_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "exec_random: cannot create %s: %s\n", o.trace_dir, strerror(errno));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (unsigned long long seed = o.first; seed <= o.last; seed++) {
        rt_pathmap_t *pm = NULL;
        MPI_Comm comm = MPI_COMM_NULL;
        long len = randtree_make(seed, &lim, NULL, 0);
        int text_printed = 0, seed_failures = 0;
        char name[64];

        free(text);
        if (len < 0 || (text = malloc((size_t)len + 1)) == NULL ||
            randtree_make(seed, &lim, text, (size_t)len + 1) != len) {
            fprintf(stderr, "exec_random: rank %d: seed %llu: the generator failed\n", g_rank,
                    seed);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        snprintf(name, sizeof(name), "seed-%llu", seed);
        if (rt_pathmap_parse(name, text, (size_t)len, &pm, &err) != CM_OK) {
            /* The same text on every rank: every rank fails here alike. */
            fprintf(stderr, "exec_random: rank %d: seed %llu: ", g_rank, seed);
            cm_err_print(stderr, "", &err);
            if (g_rank == 0)
                fprintf(stderr, "%s", text);
            failures++;
            continue;
        }
        if (o.trace_dir != NULL && g_rank == 0 && write_pathmap(o.trace_dir, seed, text) != 0)
            MPI_Abort(MPI_COMM_WORLD, 1);
        MPI_Comm_split(MPI_COMM_WORLD, g_rank < (int)pm->nhosts ? 0 : MPI_UNDEFINED, g_rank,
                       &comm);
        if (comm != MPI_COMM_NULL) {
            for (uint32_t k = 0; k < pm->ntrees; k++) {
                seed_failures += run_tree(&o, seed, text, pm, k, comm, &text_printed, &checked);
                check_level(seed, pm->trees[k].name, text);
            }
            MPI_Comm_free(&comm);
        }
        trees += (int)pm->ntrees;
        if (g_rank == 0) {
            printf("seed %llu: %u hosts, %u trees:", seed, pm->nhosts, pm->ntrees);
            for (uint32_t k = 0; k < pm->ntrees; k++)
                printf(" %s %s %s %u threads%s%s", pm->trees[k].name,
                       rt_dtype_name(pm->trees[k].dtype), rt_op_name(pm->trees[k].op),
                       pm->trees[k].nthreads, rt_tree_algo(&pm->trees[k]) ? " algo" : "",
                       k + 1 < pm->ntrees ? ";" : "");
            printf("%s\n", seed_failures ? ": WRONG (see stderr)" : "");
            fflush(stdout);
        }
        failures += seed_failures;
        rt_pathmap_destroy(pm);
        sleepy_barrier();
    }
    free(text);
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&checked, &all_checked, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (g_rank == 0)
        printf("exec_random: seeds %llu-%llu (%d trees, links=%s, %ld ops per size, delay up "
               "to %ld us%s): %ld elements checked, %d wrong\n", o.first, o.last, trees,
               o.links == RT_LINKS_THREADS ? "threads" : "services", o.ops, o.delay_us,
               o.trace_dir ? ", traced" : "", all_checked, total);
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
