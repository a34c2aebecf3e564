/*
 * exec_stall - a tree run with a thread held back, for the stall watchdog's
 * tests (tests/mpi/watchdog.sh): the test-only way to make a thread never
 * arrive, so that no program carries such a hook.
 *
 *   mpirun -np HOSTS build/tests/exec_stall PATHMAP WATCHDOG_S OPS MODE THREAD ARG
 *
 * Every thread of the tree runs OPS allreduces of one int32 (its thread id
 * + 1; the tree must be an int32 sum) on instances 0, 1, 0, 1, ... and
 * checks each sum.  The executor's watchdog is set to WATCHDOG_S seconds.
 *
 *   stall THREAD K   thread THREAD skips operation K (counted from 0 over
 *                    both instances: K = 5 is op 2 of instance 1) and sleeps
 *                    for ever instead: the watchdog must report and abort.
 *   nap THREAD S     thread THREAD, or every thread if THREAD is 'all',
 *                    sleeps S seconds before each operation: slow, but the
 *                    tree progresses, and the watchdog must stay quiet.
 *
 * Exit 0 iff every operation completed with the right sum.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "runtime/api/rt_exec.h"

typedef struct stall {
    rt_exec_t *ex;
    long       ops;
    int        nap;            /* 1: nap mode, 0: stall mode */
    long       thread;         /* the thread held back; -1 = all (nap only) */
    long       stall_op;
    double     nap_s;
    int32_t    want;           /* sum of (id + 1) over the tree's threads */
    int        failures;
} stall_t;

typedef struct worker {
    stall_t  *s;
    uint32_t  local;
    pthread_t thread;
} worker_t;

static void nap(double seconds)
{
    struct timespec ts = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };

    while (nanosleep(&ts, &ts) != 0)
        ;
}

static void *worker_main(void *arg)
{
    worker_t *w = arg;
    stall_t *s = w->s;
    uint32_t id = rt_exec_local_thread(s->ex, w->local)->id;
    int held = s->thread < 0 || (uint32_t)s->thread == id;
    int32_t in = (int32_t)id + 1, out = 0;

    for (long k = 0; k < s->ops; k++) {
        if (held && s->nap)
            nap(s->nap_s);
        if (held && !s->nap && k == s->stall_op) {
            fprintf(stderr, "exec_stall: thread %u skips operation %ld\n", id, k);
            for (;;)
                sleep(3600);
        }
        rt_exec_allreduce(s->ex, w->local, (unsigned)(k & 1), &in, &out, sizeof(in));
        if (out != s->want && __atomic_fetch_add(&s->failures, 1, __ATOMIC_RELAXED) < 5)
            fprintf(stderr, "exec_stall: thread %u op %ld: sum %d, expected %d\n", id, k,
                    (int)out, (int)s->want);
    }
    return NULL;
}

static int run(stall_t *s)
{
    uint32_t nlocal = rt_exec_local_count(s->ex);
    worker_t *w = calloc(nlocal + 1, sizeof(*w));

    for (uint32_t i = 0; i < nlocal; i++) {
        w[i].s = s;
        w[i].local = i;
        if (pthread_create(&w[i].thread, NULL, worker_main, &w[i]) != 0) {
            fprintf(stderr, "exec_stall: cannot start a thread\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    for (uint32_t i = 0; i < nlocal; i++)
        pthread_join(w[i].thread, NULL);
    free(w);
    return s->failures;
}

static int parse(int argc, char **argv, stall_t *s, rt_exec_params_t *params)
{
    if (argc != 7 || (strcmp(argv[4], "stall") != 0 && strcmp(argv[4], "nap") != 0))
        return -1;
    params->watchdog_s = atof(argv[2]);
    s->ops = atol(argv[3]);
    s->nap = strcmp(argv[4], "nap") == 0;
    s->thread = s->nap && strcmp(argv[5], "all") == 0 ? -1 : atol(argv[5]);
    s->stall_op = atol(argv[6]);
    s->nap_s = atof(argv[6]);
    return s->ops > 0 && s->nap_s >= 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    rt_exec_params_t params = { .ninstances = 2, .max_bytes = sizeof(int32_t),
                                .spin_ns = -1, .yield_ns = -1 };
    rt_pathmap_t *pm = NULL;
    const rt_tree_t *tree;
    stall_t s;
    cm_err_t err;
    cm_status_t st;
    int failures = 0, total = 0, rank = 0;

    cm_err_clear(&err);
    memset(&s, 0, sizeof(s));
    if (rt_mpi_init(&argc, &argv, &err) != CM_OK || parse(argc, argv, &s, &params) != 0) {
        fprintf(stderr, "usage: exec_stall PATHMAP WATCHDOG_S OPS stall THREAD K\n"
                        "       exec_stall PATHMAP WATCHDOG_S OPS nap THREAD|all SECONDS\n");
        MPI_Finalize();
        return 2;
    }
    st = rt_pathmap_load(argv[1], &pm, &err);
    if (st == CM_OK && ((tree = rt_pathmap_tree(pm, NULL)) == NULL ||
                        tree->dtype != RT_DTYPE_INT32 || tree->op != RT_OP_SUM))
        st = CM_ERR(&err, CM_ERR_INVALID, "%s: the first tree must be an int32 sum", argv[1]);
    if (st != CM_OK)
        cm_err_print(stderr, "exec_stall: ", &err);
    if (rt_mpi_agree(MPI_COMM_WORLD, st, &err) != CM_OK ||
        rt_exec_create(pm, &params, MPI_COMM_WORLD, &s.ex, &err) != CM_OK) {
        cm_err_print(stderr, "exec_stall: ", &err);
        rt_pathmap_destroy(pm);
        MPI_Finalize();
        return 1;
    }
    tree = rt_exec_tree(s.ex);
    for (uint32_t i = 0; i < tree->nthreads; i++)
        s.want += (int32_t)tree->threads[i].id + 1;
    rank = (int)rt_exec_host(s.ex);
    failures = run(&s);
    rt_exec_destroy(s.ex);
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (total == 0 && rank == 0)
        printf("exec_stall: %ld operations, every sum right\n", s.ops);
    rt_pathmap_destroy(pm);
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
