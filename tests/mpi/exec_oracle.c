/*
 * exec_oracle - checks rt_exec_allreduce against an independent oracle.
 *
 *   mpirun -np HOSTS build/tests/exec_oracle PATHMAP BYTES OPS [TREE]
 *
 * Each thread contributes pseudo-random tuples (a function of its thread
 * id, the operation and the element).  Before the threads start, the main
 * thread of every rank reduces its own threads' contributions serially and
 * combines the ranks' partial results with MPI_Allreduce: that is the
 * oracle, computed without the tree.  Then every thread runs OPS allreduces
 * through the tree (alternating two instances) and compares each result
 * with the oracle, element by element.  Exit 0 iff every result matched.
 *
 * Values are integers (also for double) so that sums are exact whatever
 * order the tree and MPI add them in.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/api/rt_exec.h"
#include "runtime/api/rt_reduce.h"

typedef struct oracle {
    rt_exec_t       *ex;
    const rt_tree_t *tree;
    size_t           bytes, count, elem;
    long             ops;
    unsigned char   *expected;   /* [ops][bytes] */
    int              failures;
    pthread_mutex_t  lock;
} oracle_t;

typedef struct worker {
    oracle_t *o;
    uint32_t  local;
    pthread_t thread;
} worker_t;

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Thread id's contribution to operation k, element j: in [-500, 500). */
static int64_t value(uint32_t id, long k, size_t j)
{
    return (int64_t)(mix(((uint64_t)id << 40) ^ ((uint64_t)k << 16) ^ j) % 1000) - 500;
}

static void fill(const oracle_t *o, uint32_t id, long k, void *buf)
{
    for (size_t j = 0; j < o->count; j++) {
        int64_t v = value(id, k, j);
        if (o->tree->dtype == RT_DTYPE_INT32)
            ((int32_t *)buf)[j] = (int32_t)v;
        else if (o->tree->dtype == RT_DTYPE_INT64)
            ((int64_t *)buf)[j] = v;
        else
            ((double *)buf)[j] = (double)v;
    }
}

static MPI_Datatype mpi_type(rt_dtype_t t)
{
    return t == RT_DTYPE_INT32 ? MPI_INT32_T : t == RT_DTYPE_INT64 ? MPI_INT64_T : MPI_DOUBLE;
}

static MPI_Op mpi_op(rt_op_t op)
{
    return op == RT_OP_SUM ? MPI_SUM : op == RT_OP_MIN ? MPI_MIN : MPI_MAX;
}

/*
 * The oracle: serial reduction over this rank's threads, then MPI_Allreduce
 * over ranks.  A rank without threads contributes the operation's identity.
 */
static void build_expected(oracle_t *o)
{
    rt_reduce_fn_t reduce = rt_reduce_get(o->tree->dtype, o->tree->op);
    uint32_t nlocal = rt_exec_local_count(o->ex);
    unsigned char *local = malloc(o->bytes), *tmp = malloc(o->bytes);
    int64_t identity = o->tree->op == RT_OP_SUM ? 0 : o->tree->op == RT_OP_MIN ? 1000 : -1000;

    for (long k = 0; k < o->ops; k++) {
        for (size_t j = 0; j < o->count; j++) {
            if (o->tree->dtype == RT_DTYPE_INT32)
                ((int32_t *)local)[j] = (int32_t)identity;
            else if (o->tree->dtype == RT_DTYPE_INT64)
                ((int64_t *)local)[j] = identity;
            else
                ((double *)local)[j] = (double)identity;
        }
        for (uint32_t i = 0; i < nlocal; i++) {
            fill(o, rt_exec_local_thread(o->ex, i)->id, k, tmp);
            reduce(local, tmp, o->count);
        }
        MPI_Allreduce(local, o->expected + (size_t)k * o->bytes, (int)o->count,
                      mpi_type(o->tree->dtype), mpi_op(o->tree->op), MPI_COMM_WORLD);
    }
    free(local);
    free(tmp);
}

static void *worker_main(void *arg)
{
    worker_t *w = arg;
    oracle_t *o = w->o;
    uint32_t id = rt_exec_local_thread(o->ex, w->local)->id;
    unsigned char *in = malloc(o->bytes), *out = malloc(o->bytes);

    for (long k = 0; k < o->ops; k++) {
        fill(o, id, k, in);
        rt_exec_allreduce(o->ex, w->local, (unsigned)(k & 1), in, out, o->bytes);
        if (memcmp(out, o->expected + (size_t)k * o->bytes, o->bytes) != 0) {
            pthread_mutex_lock(&o->lock);
            if (o->failures++ < 5)
                fprintf(stderr, "exec_oracle: thread %u op %ld: result differs from "
                        "MPI_Allreduce oracle\n", id, k);
            pthread_mutex_unlock(&o->lock);
        }
    }
    free(in);
    free(out);
    return NULL;
}

static int run(oracle_t *o)
{
    uint32_t nlocal = rt_exec_local_count(o->ex);
    worker_t *w = calloc(nlocal + 1, sizeof(*w));
    int total = 0;

    build_expected(o);
    for (uint32_t i = 0; i < nlocal; i++) {
        w[i].o = o;
        w[i].local = i;
        pthread_create(&w[i].thread, NULL, worker_main, &w[i]);
    }
    for (uint32_t i = 0; i < nlocal; i++)
        pthread_join(w[i].thread, NULL);
    free(w);
    MPI_Allreduce(&o->failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return total;
}

int main(int argc, char **argv)
{
    rt_exec_params_t params = { .ninstances = 2, .spin_ns = -1, .yield_ns = -1 };
    rt_pathmap_t *pm = NULL;
    oracle_t o;
    cm_err_t err;
    cm_status_t st;
    int rank, failures;

    cm_err_clear(&err);
    if (rt_mpi_init(&argc, &argv, &err) != CM_OK || argc < 4) {
        fprintf(stderr, "usage: exec_oracle PATHMAP BYTES OPS [TREE]\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    memset(&o, 0, sizeof(o));
    pthread_mutex_init(&o.lock, NULL);
    params.max_bytes = o.bytes = (size_t)atol(argv[2]);
    o.ops = atol(argv[3]);
    params.tree = argc > 4 ? argv[4] : NULL;
    st = rt_pathmap_load(argv[1], &pm, &err);
    if (st != CM_OK)
        cm_err_print(stderr, "exec_oracle: ", &err);
    if (rt_mpi_agree(MPI_COMM_WORLD, st, &err) != CM_OK ||
        rt_exec_create(pm, &params, MPI_COMM_WORLD, &o.ex, &err) != CM_OK) {
        cm_err_print(stderr, "exec_oracle: ", &err);
        MPI_Finalize();
        return 1;
    }
    o.tree = rt_exec_tree(o.ex);
    o.elem = rt_dtype_size(o.tree->dtype);
    o.count = o.bytes / o.elem;
    o.expected = malloc((size_t)o.ops * o.bytes);
    failures = run(&o);
    rt_exec_destroy(o.ex);
    if (rank == 0)
        printf("exec_oracle: %s tree %s (%s %s), %zu bytes: %ld operations x %u threads, "
               "%d results differ from the MPI_Allreduce oracle\n", argv[1], o.tree->name,
               rt_dtype_name(o.tree->dtype), rt_op_name(o.tree->op), o.bytes, o.ops,
               o.tree->nthreads, failures);
    free(o.expected);
    rt_pathmap_destroy(pm);
    MPI_Finalize();
    return failures == 0 ? 0 : 1;
}
