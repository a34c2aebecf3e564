/*
 * exec_idle - the CPU time a rank of a tree uses while nothing happens.
 *
 *   mpirun -np HOSTS build/tests/exec_idle PATHMAP threads|services [SLEEPER]
 *
 * Issue 16, "idle is idle": a rank whose threads wait between operations
 * must use under 1 % of one CPU once its wait budgets have run out.  Every
 * thread of the tree (an int32 sum; thread t contributes t + 1 + k mod 64
 * to operation k, every sum is checked in closed form) first makes
 * EXEC_IDLE_OPS allreduces, then two cases are measured on every rank, each
 * over EXEC_IDLE_WINDOW_S seconds of wall-clock time:
 *
 *   A  outside: every thread sleeps, as a program computing between two
 *      allreduces would; no thread of any rank is inside the tree.
 *   B  inside:  the threads of host SLEEPER (default: the last host) sleep
 *      before their next allreduce; every other host's threads call it and
 *      wait inside the tree for them (at a gred for a link's request, at a
 *      proxy for its reply, ...).
 *
 * The window starts EXEC_IDLE_SETTLE_S seconds (plus the wait policy's
 * spin and yield budgets) after the threads stop or start waiting, so that
 * the budgets have run out, and ends before the sleepers wake.  A rank's
 * CPU time is CLOCK_PROCESS_CPUTIME_ID: every thread of the process, the
 * computational threads, the executor's service and watchdog threads and
 * MPI's own (the same sum as getrusage(RUSAGE_SELF)'s user + system).
 *
 * Rank 0 prints each rank's CPU % (of one CPU) for both cases.  With
 * `threads` (RT_LINKS_THREADS) the run fails if any rank used 1 % or more
 * in either case; with `services` (one service thread per link, the PATHS
 * model, whose service threads nap while they wait) the figures are only
 * printed, for docs/benchmarks.md's comparison.  Exit 0 pass, 1 fail (a
 * wrong sum, or too much CPU), 2 usage.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "runtime/api/rt_exec.h"

#define EXEC_IDLE_OPS       200    /* allreduces before case A, then after B */
#define EXEC_IDLE_WINDOW_S  3.0    /* measured seconds per case */
#define EXEC_IDLE_SETTLE_S  0.3    /* plus the wait budgets, before the window */
#define EXEC_IDLE_MARGIN_S  0.2    /* sleepers wake this long after the window */
#define EXEC_IDLE_LIMIT_PCT 1.0    /* of one CPU, with RT_LINKS_THREADS */
#define EXEC_IDLE_WATCHDOG  30.0   /* a case-B wait is ~4 s; catches a hang */

enum { CASE_A, CASE_B, NCASES };

typedef struct idle {
    rt_exec_t        *ex;
    uint32_t          nthreads;
    int32_t           sum_ids;      /* sum of (t + 1) over the tree's threads */
    rt_host_id_t      sleeper;      /* case B: this host's threads sleep */
    double            settle_s;     /* from the last call to the window */
    pthread_barrier_t barrier;      /* local threads + main */
    int               failures;
} idle_t;

typedef struct worker {
    idle_t   *s;
    uint32_t  local;
    pthread_t thread;
} worker_t;

static void nap(double seconds)
{
    struct timespec ts = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };

    while (nanosleep(&ts, &ts) != 0)
        ;
}

static double now_s(clockid_t clock)
{
    struct timespec ts;

    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One allreduce of operation k by local thread `local`, checked. */
static void op(idle_t *s, uint32_t local, uint32_t id, long k)
{
    int32_t in = (int32_t)id + 1 + (int32_t)(k % 64), out = 0;
    int32_t want = s->sum_ids + (int32_t)s->nthreads * (int32_t)(k % 64);

    rt_exec_allreduce(s->ex, local, (unsigned)(k & 1), &in, &out, sizeof(in));
    if (out != want && __atomic_fetch_add(&s->failures, 1, __ATOMIC_RELAXED) < 5)
        fprintf(stderr, "exec_idle: thread %u op %ld: sum %d, expected %d\n", id, k,
                (int)out, (int)want);
}

/*
 * A thread, with the main thread at each barrier:
 *   ops | A: sleep | B: (the sleeper's threads: sleep) one op | ops.
 */
static void *worker_main(void *arg)
{
    worker_t *w = arg;
    idle_t *s = w->s;
    uint32_t id = rt_exec_local_thread(s->ex, w->local)->id;
    double sleep_s = s->settle_s + EXEC_IDLE_WINDOW_S + EXEC_IDLE_MARGIN_S;
    long k = 0;

    for (; k < EXEC_IDLE_OPS; k++)
        op(s, w->local, id, k);
    pthread_barrier_wait(&s->barrier);          /* case A starts */
    nap(sleep_s);
    pthread_barrier_wait(&s->barrier);          /* case A over */
    pthread_barrier_wait(&s->barrier);          /* every rank ready: case B */
    if (rt_exec_host(s->ex) == s->sleeper)
        nap(sleep_s);
    op(s, w->local, id, k++);
    pthread_barrier_wait(&s->barrier);          /* case B over */
    for (long end = k + EXEC_IDLE_OPS; k < end; k++)
        op(s, w->local, id, k);
    return NULL;
}

/* The main thread's side of one case: wait for the budgets, measure. */
static double measure(const idle_t *s)
{
    double cpu0, wall0;

    nap(s->settle_s);
    cpu0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
    wall0 = now_s(CLOCK_MONOTONIC);
    nap(EXEC_IDLE_WINDOW_S);
    return 100.0 * (now_s(CLOCK_PROCESS_CPUTIME_ID) - cpu0) / (now_s(CLOCK_MONOTONIC) - wall0);
}

static void run(idle_t *s, double pct[NCASES])
{
    uint32_t nlocal = rt_exec_local_count(s->ex);
    worker_t *w = calloc(nlocal + 1, sizeof(*w));

    pthread_barrier_init(&s->barrier, NULL, nlocal + 1);
    for (uint32_t i = 0; i < nlocal; i++) {
        w[i].s = s;
        w[i].local = i;
        pthread_create(&w[i].thread, NULL, worker_main, &w[i]);
    }
    pthread_barrier_wait(&s->barrier);
    pct[CASE_A] = measure(s);
    pthread_barrier_wait(&s->barrier);
    /* Every rank's threads out of case A before any enters case B's op, so
       that B's waiting starts at the same time everywhere.  (A rank without
       threads has nothing to wait for and measures its service threads.) */
    MPI_Barrier(MPI_COMM_WORLD);
    pthread_barrier_wait(&s->barrier);
    pct[CASE_B] = measure(s);
    pthread_barrier_wait(&s->barrier);
    for (uint32_t i = 0; i < nlocal; i++)
        pthread_join(w[i].thread, NULL);
    pthread_barrier_destroy(&s->barrier);
    free(w);
}

static void usage(FILE *fp)
{
    fprintf(fp,
"usage: mpirun -np HOSTS exec_idle PATHMAP threads|services [SLEEPER]\n"
"CPU %% per rank over %.0f s (A) with every thread sleeping outside the tree and\n"
"(B) with the threads waiting inside it for host SLEEPER's (default the last\n"
"host), which sleep.  With 'threads' fails if a rank uses >= %.0f %% of a CPU.\n"
"The tree must be an int32 sum.\n", EXEC_IDLE_WINDOW_S, EXEC_IDLE_LIMIT_PCT);
}

int main(int argc, char **argv)
{
    rt_exec_params_t params = { .ninstances = 2, .max_bytes = sizeof(int32_t),
                                .spin_ns = -1, .yield_ns = -1,
                                .watchdog_s = EXEC_IDLE_WATCHDOG };
    rt_pathmap_t *pm = NULL;
    rt_wait_policy_t policy;
    const rt_tree_t *t;
    idle_t s;
    double pct[NCASES] = { 0, 0 }, *all = NULL;
    cm_err_t err;
    cm_status_t st;
    char *end = NULL;
    long sleeper = -1;
    int rank, size, failures = 0, over = 0;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        }
    }
    if (argc < 3 || argc > 4 ||
        (strcmp(argv[2], "threads") != 0 && strcmp(argv[2], "services") != 0) ||
        (argc == 4 && ((sleeper = strtol(argv[3], &end, 10)) < 0 || *end != '\0'))) {
        usage(stderr);
        return 2;
    }
    params.links = strcmp(argv[2], "threads") == 0 ? RT_LINKS_THREADS : RT_LINKS_SERVICES;
    cm_err_clear(&err);
    memset(&s, 0, sizeof(s));
    if (rt_mpi_init(&argc, &argv, &err) != CM_OK) {
        cm_err_print(stderr, "exec_idle: ", &err);
        MPI_Finalize();
        return 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    st = rt_pathmap_load(argv[1], &pm, &err);
    if (st == CM_OK && ((t = rt_pathmap_tree(pm, NULL))->dtype != RT_DTYPE_INT32 ||
                        t->op != RT_OP_SUM))
        st = CM_ERR(&err, CM_ERR_INVALID, "%s: the first tree must be an int32 sum",
                    argv[1]);
    if (st == CM_OK && sleeper >= (long)pm->nhosts)
        st = CM_ERR(&err, CM_ERR_INVALID, "SLEEPER %ld: the pathmap has %u hosts", sleeper,
                    pm->nhosts);
    if (st != CM_OK)
        cm_err_print(stderr, "exec_idle: ", &err);
    if (rt_mpi_agree(MPI_COMM_WORLD, st, &err) != CM_OK ||
        rt_exec_create(pm, &params, MPI_COMM_WORLD, &s.ex, &err) != CM_OK) {
        if (st == CM_OK)
            cm_err_print(stderr, "exec_idle: ", &err);
        rt_pathmap_destroy(pm);
        MPI_Finalize();
        return 1;
    }
    t = rt_exec_tree(s.ex);
    s.nthreads = t->nthreads;
    s.sum_ids = 0;
    for (uint32_t i = 0; i < t->nthreads; i++)
        s.sum_ids += (int32_t)t->threads[i].id + 1;
    s.sleeper = (rt_host_id_t)(sleeper >= 0 ? sleeper : (long)pm->nhosts - 1);
    policy = rt_exec_policy(s.ex);
    s.settle_s = EXEC_IDLE_SETTLE_S + (double)(policy.spin_ns + policy.yield_ns) * 1e-9;
    run(&s, pct);
    rt_exec_destroy(s.ex);

    MPI_Allreduce(&s.failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && (all = malloc((size_t)size * NCASES * sizeof(*all))) == NULL) {
        fprintf(stderr, "exec_idle: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Gather(pct, NCASES, MPI_DOUBLE, all, NCASES, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("exec_idle: %s, --links %s, wait budgets spin %llu ns + yield %llu ns, "
               "CPU %% of one CPU over %.1f s per rank\n", argv[1], argv[2],
               (unsigned long long)policy.spin_ns, (unsigned long long)policy.yield_ns,
               EXEC_IDLE_WINDOW_S);
        for (int c = 0; c < NCASES; c++) {
            printf("  case %c (%s):", c == CASE_A ? 'A' : 'B',
                   c == CASE_A ? "every thread sleeping outside the tree"
                               : "threads waiting inside for a sleeping host");
            if (c == CASE_B)
                printf(" [host %u sleeps]", (unsigned)s.sleeper);
            for (int r = 0; r < size; r++) {
                double p = all[(size_t)r * NCASES + (size_t)c];
                printf(" rank %d %.2f %%%s", r, p, r + 1 < size ? "," : "\n");
                over += p >= EXEC_IDLE_LIMIT_PCT;
            }
        }
        if (params.links == RT_LINKS_THREADS && over > 0)
            printf("exec_idle: FAIL: %d rank-case(s) at or above %.0f %% of a CPU with "
                   "--links threads\n", over, EXEC_IDLE_LIMIT_PCT);
        if (failures > 0)
            printf("exec_idle: FAIL: %d wrong sums\n", failures);
    }
    MPI_Bcast(&over, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(all);
    rt_pathmap_destroy(pm);
    MPI_Finalize();
    return failures > 0 || (params.links == RT_LINKS_THREADS && over > 0) ? 1 : 0;
}
