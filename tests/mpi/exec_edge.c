/*
 * exec_edge - the arrival estimator behind arrival=edge (rt_exec_edge,
 * runtime/exec/estimate.c; docs/runtime.md, "Arrival estimation with
 * edge()"): one job, many cases.
 *
 *   mpirun -np P build/tests/exec_edge        (P = 2..8; the registry runs 4 and 2)
 *
 * Each case writes a pathmap for P hosts (an algorithm node across them
 * with arrival=edge, fed by a gred of two threads per host or by one
 * thread), runs OPS allreduces per thread with a computation emulated by
 * sleeping, and observes the node through a hook table of its own (no
 * tracer: every location gets the same handle, visits are ignored, the
 * arrival hook records each operation's rt_arrival_report_t).  Checked:
 *
 *  - every result against its closed form (thread t contributes
 *    (t + 1) * (k + 1) + j % 7 to element j of operation k);
 *  - one report per operation, and each operation's `used` and `missing`
 *    identical on every rank (gathered and compared);
 *  - every thread calls edge(0.5): used = edge on every operation;
 *  - host s's threads never call it (or only with fractions 0, -1, 2 and
 *    NaN): the first operation equal, the others history, missing = s, no
 *    estimate on host s (error_ns = INT64_MIN); the misuse warning printed
 *    exactly once, by rank s only (stderr captured into a file);
 *  - edge(1) at once then edge(1e-6) in the same phase: the second is
 *    ignored, so every estimate precedes the arrival (error_ns < 0; had the
 *    second counted the estimate would be ~1e6 phases ahead);
 *  - no thread calls it: every operation falls back, missing = host 0;
 *  - ranks passing different edge_warmup: rt_exec_create fails on all, naming it;
 *  - teardown after a phase that only some hosts estimated (edge() after
 *    the last operation on even ranks) ends without a hang;
 *  - bounds that hold on any machine: |error_ns| < the time from before the
 *    earliest phase start of the host to the report; wait_ns >= 0; and,
 *    since the estimate is shared mid-phase (sleep S, edge(0.5), sleep S),
 *    lead_ns > 0 on at least half of the operations.
 * A host whose contribution comes through a link, with no thread of its own,
 * never estimates: every operation falls back, naming it (host 0 runs a
 * third thread, which enters the proxy: its edge() calls are ignored).
 * Counts change every fifth operation, so that the node also runs a count
 * that the schedule made ahead did not expect.
 */
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "runtime/api/rt_exec.h"

#define OPS      20
#define MAXP     8
#define TPH_MAX  3          /* local threads at most (the links case: 3 on host 0) */
#define COUNT    64
#define COUNT2   16

typedef enum { M_EDGE, M_SILENT, M_MISUSE, M_TWICE, M_NONE } mode_t_;

typedef struct ecase {
    const char *name;
    const char *algo;         /* the algo line's parameters before arrival= */
    int         tph;          /* threads per host: 1 (enter the node) or 2 (a gred) */
    mode_t_     mode;
    int         odd_host;     /* M_SILENT, M_MISUSE: the host that does not estimate
                                 (links: the last host, whatever this field says) */
    int         warmup;
    int         sleep_us;     /* S: before and after edge() */
    int         phase_begin;  /* S of other work first, then rt_exec_phase_begin */
    int         links;        /* the last host has no thread, only a link (see make_pathmap) */
} ecase_t;

typedef struct rec {
    int     used, missing;
    int64_t error, lead, wait, at;
} rec_t;

typedef struct ctx {
    const ecase_t *c;
    rt_exec_t     *ex;
    int            rank, p;
    uint32_t       nlocal;
    rec_t          rec[OPS + 1];
    int            nrec;
    int64_t        pre[TPH_MAX][OPS];   /* before the phase can have begun */
    int            failures;
    pthread_mutex_t lock;
} ctx_t;

static int64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_us(int us)
{
    struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000 };

    nanosleep(&ts, NULL);
}

static void fail(ctx_t *x, const char *fmt, long a, long b)
{
    pthread_mutex_lock(&x->lock);
    if (x->failures++ < 8) {
        fprintf(stdout, "exec_edge: rank %d: case %s: ", x->rank, x->c->name);
        fprintf(stdout, fmt, a, b);
        fputc('\n', stdout);
    }
    pthread_mutex_unlock(&x->lock);
}

/* The host that never has an estimate, or -1. */
static int odd_host(const ctx_t *x)
{
    return x->c->links ? x->p - 1 : x->c->odd_host;
}

/* ---- The hooks: no tracer ------------------------------------------------ */

static void *h_location(void *ud, const rt_location_t *where)
{
    (void)where;
    return ud;
}

static void h_visit(void *loc, rt_visit_t what, unsigned instance, rt_node_id_t node,
                    uint64_t seq, size_t bytes)
{
    (void)loc, (void)what, (void)instance, (void)node, (void)seq, (void)bytes;
}

/* Operations reach the node one at a time on a host: reports come in order. */
static void h_arrival(void *loc, unsigned instance, rt_node_id_t node, uint64_t seq,
                      const rt_arrival_report_t *r)
{
    ctx_t *x = loc;
    int k = x->nrec;

    (void)node;
    if (k >= OPS || r->asked != RT_ARRIVAL_EDGE || seq != (uint64_t)(k / 2) ||
        instance != (unsigned)(k & 1)) {
        fail(x, "report %ld out of place (seq %ld)", k, (long)seq);
        return;
    }
    x->rec[k] = (rec_t){ (int)r->used, r->missing, r->error_ns, r->lead_ns, r->wait_ns,
                         now_ns() };
    x->nrec = k + 1;
}

/* ---- The threads --------------------------------------------------------- */

typedef struct worker {
    ctx_t    *x;
    uint32_t  local;
    pthread_t th;
} worker_t;

static int64_t op_count(int k)
{
    return k % 5 == 4 ? COUNT2 : COUNT;
}

/* The computation of one phase, as the case says for this host. */
static void phase(const ctx_t *x, uint32_t local)
{
    const ecase_t *c = x->c;
    bool odd = x->rank == odd_host(x);

    if (c->phase_begin) {
        sleep_us(c->sleep_us);
        rt_exec_phase_begin(x->ex, local);
    }
    if (c->mode == M_TWICE)
        rt_exec_edge(x->ex, local, 1.0);
    sleep_us(c->sleep_us);
    if (c->mode == M_EDGE || c->mode == M_TWICE || (c->mode == M_SILENT && !odd) ||
        (c->mode == M_MISUSE && !odd))
        rt_exec_edge(x->ex, local, c->mode == M_TWICE ? 1e-6 : 0.5);
    if (c->mode == M_MISUSE && odd) {
        rt_exec_edge(x->ex, local, 0);
        rt_exec_edge(x->ex, local, -1);
        rt_exec_edge(x->ex, local, 2);
        rt_exec_edge(x->ex, local, NAN);
    }
    sleep_us(c->sleep_us);
}

static void *worker_main(void *arg)
{
    worker_t *w = arg;
    ctx_t *x = w->x;
    uint32_t id = rt_exec_local_thread(x->ex, w->local)->id;
    uint32_t nthreads = rt_exec_tree(x->ex)->nthreads;
    int32_t in[COUNT], out[COUNT];

    for (int k = 0; k < OPS; k++) {
        int64_t n = op_count(k);

        phase(x, w->local);
        for (int64_t j = 0; j < n; j++)
            in[j] = (int32_t)((id + 1) * (uint32_t)(k + 1) + (uint32_t)(j % 7));
        if (k + 1 < OPS)
            x->pre[w->local][k + 1] = now_ns();
        rt_exec_allreduce(x->ex, w->local, (unsigned)(k & 1), in, out,
                          (size_t)n * sizeof(int32_t));
        for (int64_t j = 0; j < n; j++) {
            int32_t want = (int32_t)((uint32_t)(k + 1) * nthreads * (nthreads + 1) / 2 +
                                     nthreads * (uint32_t)(j % 7));
            if (out[j] != want) {
                fail(x, "wrong result in operation %ld (element %ld)", k, (long)j);
                break;
            }
        }
    }
    /* A phase with no operation after it, estimated on even hosts only: their
       background threads share it at once, the others at rt_exec_destroy. */
    if (x->c->mode == M_EDGE && x->rank % 2 == 0)
        rt_exec_edge(x->ex, w->local, 0.5);
    return NULL;
}

/* ---- One case ------------------------------------------------------------ */

static rt_pathmap_t *make_pathmap(const ecase_t *c, int p)
{
    char text[4096];
    size_t off = 0;
    rt_pathmap_t *pm = NULL;
    cm_err_t err;

    for (int h = 0; h < p; h++)
        off += (size_t)snprintf(text + off, sizeof(text) - off, "host h%d\n", h);
    off += (size_t)snprintf(text + off, sizeof(text) - off,
                            "tree sum type=int32 op=sum\nalgo across %s arrival=edge\n",
                            c->algo);
    for (int h = 0; h < p; h++) {
        if (c->links && h == p - 1) {
            /* The last host's contribution comes from host 0 through a proxy:
               it has no computational thread, so never an estimate. */
            off += (size_t)snprintf(text + off, sizeof(text) - off,
                                    "gred g%d host=h%d parent=across\n"
                                    "proxy q host=h0 parent=g%d\n"
                                    "threads %d host=h0 enter=q\n", h, h, h, 2 * h);
            continue;
        }
        if (c->tph == 1) {
            off += (size_t)snprintf(text + off, sizeof(text) - off,
                                    "threads %d host=h%d enter=across\n", h, h);
            continue;
        }
        off += (size_t)snprintf(text + off, sizeof(text) - off,
                                "gred g%d host=h%d parent=across\n"
                                "threads %d-%d host=h%d enter=g%d\n",
                                h, h, 2 * h, 2 * h + 1, h, h);
    }
    if (rt_pathmap_parse(c->name, text, off, &pm, &err) != CM_OK) {
        fprintf(stderr, "exec_edge: case %s: %s\n", c->name, err.msg);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return pm;
}

/* What the case expects of operation k's report on this rank. */
static void check_op(ctx_t *x, int k)
{
    const ecase_t *c = x->c;
    const rec_t *r = &x->rec[k];
    bool all = c->mode == M_EDGE || c->mode == M_TWICE;
    int miss = c->mode == M_NONE ? 0 : all ? -1 : odd_host(x);
    int used = all ? RT_ARRIVAL_EDGE : k == 0 ? RT_ARRIVAL_EQUAL : RT_ARRIVAL_HISTORY;
    bool estimated = all || (c->mode != M_NONE && x->rank != odd_host(x));
    int64_t begin = INT64_MAX, span;

    for (uint32_t t = 0; t < x->nlocal; t++)
        if (x->pre[t][k] < begin)
            begin = x->pre[t][k];
    span = r->at - begin;
    if (r->used != used || r->missing != miss)
        fail(x, "operation %ld: used/missing %ld", k, r->used * 100L + r->missing);
    if (r->wait < 0)
        fail(x, "operation %ld: wait_ns %ld < 0", k, (long)r->wait);
    if (!estimated) {
        if (r->error != INT64_MIN || r->lead != INT64_MIN)
            fail(x, "operation %ld: an error or lead (%ld) without an estimate", k,
                 (long)r->error);
        return;
    }
    if (r->error == INT64_MIN || r->lead == INT64_MIN)
        fail(x, "operation %ld: no error or lead with an estimate (%ld)", k, (long)r->lead);
    else if (r->error >= span || r->error <= -span)
        fail(x, "operation %ld: |error_ns| %ld beyond the phase", k, (long)r->error);
    if (c->mode == M_TWICE && r->error >= 0)
        fail(x, "operation %ld: error_ns %ld >= 0: the second edge() counted", k,
             (long)r->error);
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

/* The median of the wait (which 0) or lead (1) of the operations that have one. */
static double median(const ctx_t *x, int which)
{
    int64_t v[OPS];
    int n = 0;

    for (int k = 0; k < x->nrec; k++) {
        int64_t y = which ? x->rec[k].lead : x->rec[k].wait;

        if (y != INT64_MIN)
            v[n++] = y;
    }
    if (n == 0)
        return NAN;
    qsort(v, (size_t)n, sizeof(v[0]), cmp64);
    return (double)v[n / 2];
}

static void check_reports(ctx_t *x)
{
    int mine[2 * OPS], all[MAXP * 2 * OPS], leads = 0;

    if (x->nrec != OPS)
        fail(x, "%ld arrival reports for %ld operations", x->nrec, OPS);
    for (int k = 0; k < OPS; k++) {
        mine[2 * k] = k < x->nrec ? x->rec[k].used : -1;
        mine[2 * k + 1] = k < x->nrec ? x->rec[k].missing : -2;
        if (k < x->nrec) {
            check_op(x, k);
            leads += x->rec[k].lead > 0 && x->rec[k].lead != INT64_MIN;
        }
    }
    MPI_Allgather(mine, 2 * OPS, MPI_INT, all, 2 * OPS, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < x->p; r++)
        if (memcmp(all + r * 2 * OPS, mine, sizeof(mine)) != 0)
            fail(x, "used/missing differ from rank %ld's (%ld)", r, 0);
    if (x->c->mode == M_EDGE && x->c->sleep_us >= 1000 && leads < OPS / 2)
        fail(x, "lead_ns > 0 on only %ld of %ld operations", leads, OPS);
    if (x->rank == 0 && x->nrec == OPS)   /* for the reader, not checked */
        printf("# %s: rank 0: wait_ns median %.1f us, lead_ns median %.1f us\n", x->c->name,
               median(x, 0) / 1e3, median(x, 1) / 1e3);
}

/* stderr into a file while fn runs; returns how many warnings it got. */
static int count_warnings(const char *path, int rank)
{
    char line[512], want[128];
    int n = 0;
    FILE *f = fopen(path, "r");

    snprintf(want, sizeof(want),
             "paptree: rank %d: edge(0) ignored: the fraction must be in (0, 1]\n", rank);
    while (f && fgets(line, sizeof(line), f)) {
        if (strstr(line, "edge(") == NULL)
            continue;
        if (strcmp(line, want) != 0) {
            printf("exec_edge: rank %d: unexpected warning: %s", rank, line);
            n += 100;
        }
        n++;
    }
    if (f)
        fclose(f);
    return n;
}

static int run_case(const ecase_t *c, int rank, int p)
{
    rt_pathmap_t *pm = make_pathmap(c, p);
    ctx_t *x = calloc(1, sizeof(*x));
    rt_hooks_t hooks = { .ud = x, .location = h_location, .visit = h_visit,
                         .arrival = h_arrival };
    rt_exec_params_t params = {
        .ninstances = 2, .max_bytes = COUNT * sizeof(int32_t), .spin_ns = -1,
        .yield_ns = -1, .hooks = &hooks, .watchdog_s = 30, .edge_warmup = c->warmup,
    };
    worker_t w[TPH_MAX];
    char errpath[64] = "";
    int saved = -1, failures, warnings = 0;
    cm_err_t err;

    x->c = c;
    x->rank = rank;
    x->p = p;
    pthread_mutex_init(&x->lock, NULL);
    if (c->mode == M_MISUSE) {            /* the warning goes to a file */
        int fd;

        snprintf(errpath, sizeof(errpath), "/tmp/exec_edge.%d.%d.err", (int)getpid(), rank);
        fflush(stderr);
        saved = dup(2);
        fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (saved < 0 || fd < 0 || dup2(fd, 2) < 0) {
            perror("exec_edge: redirecting stderr");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        close(fd);
    }
    for (int t = 0; t < TPH_MAX; t++)
        x->pre[t][0] = now_ns();
    if (rt_exec_create(pm, &params, MPI_COMM_WORLD, &x->ex, &err) != CM_OK) {
        fprintf(stderr, "exec_edge: case %s: %s\n", c->name, err.msg);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    x->nlocal = rt_exec_local_count(x->ex);
    for (uint32_t t = 0; t < x->nlocal; t++) {
        w[t] = (worker_t){ x, t, 0 };
        pthread_create(&w[t].th, NULL, worker_main, &w[t]);
    }
    for (uint32_t t = 0; t < x->nlocal; t++)
        pthread_join(w[t].th, NULL);
    rt_exec_destroy(x->ex);
    if (saved >= 0) {
        fflush(stderr);
        dup2(saved, 2);
        close(saved);
        warnings = count_warnings(errpath, rank);
        unlink(errpath);
        if (warnings != (rank == odd_host(x)))
            fail(x, "%ld misuse warnings, expected %ld", warnings, rank == odd_host(x));
    }
    check_reports(x);
    failures = x->failures;
    MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s %s: %s (%d ops, %d ranks x %d threads)\n", failures ? "not ok" : "ok",
               c->name, c->algo, OPS, p, c->tph);
    pthread_mutex_destroy(&x->lock);
    free(x);
    rt_pathmap_destroy(pm);
    return failures != 0;
}

/* Ranks that disagree on edge_warmup: rt_exec_create fails on every rank, saying so. */
static int run_disagree(int rank, int p)
{
    static const ecase_t c = { "warmup_disagree", "run=prr round=2000", 1, M_EDGE, -1, 0, 0, 0,
                               0 };
    rt_pathmap_t *pm = make_pathmap(&c, p);
    rt_exec_params_t params = {
        .ninstances = 1, .max_bytes = COUNT * sizeof(int32_t), .spin_ns = -1,
        .yield_ns = -1, .edge_warmup = rank % 2,
    };
    rt_exec_t *ex = NULL;
    cm_err_t err = { 0 };
    int bad = 0;

    if (rt_exec_create(pm, &params, MPI_COMM_WORLD, &ex, &err) == CM_OK) {
        bad = 1;
        rt_exec_destroy(ex);
    } else if (strstr(err.msg, "disagree on edge_warmup") == NULL) {
        printf("exec_edge: rank %d: case %s: unexpected error: %s\n", rank, c.name, err.msg);
        bad = 1;
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s %s: rt_exec_create refused on every rank\n", bad ? "not ok" : "ok", c.name);
    rt_pathmap_destroy(pm);
    return bad != 0;
}

int main(int argc, char **argv)
{
    static const ecase_t cases[] = {
        { "prr_all_edge", "run=prr round=2000", 2, M_EDGE, -1, 0, 2000, 0, 0 },
        { "slt_one_silent", "run=slt", 1, M_SILENT, 1, 1, 500, 0, 0 },
        { "clv_warmup_phase_begin", "run=clv bcast=binomial-bcast root=h1", 2, M_EDGE, -1, 1,
          1000, 1, 0 },
        { "prr_misuse", "run=prr round=2000", 2, M_MISUSE, 1, 0, 300, 0, 0 },
        { "slt_edge_twice", "run=slt", 2, M_TWICE, -1, 0, 500, 0, 0 },
        { "prr_no_edge", "run=prr round=2000", 1, M_NONE, -1, 1, 200, 0, 0 },
        { "prr_host_of_links", "run=prr round=2000", 2, M_SILENT, -1, 0, 300, 0, 1 },
    };
    int rank, p, failed = 0;
    cm_err_t err;

    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: mpirun -np P exec_edge   (P = 2..%d)\n", MAXP);
        return 0;
    }
    if (rt_mpi_init(&argc, &argv, &err) != CM_OK) {
        fprintf(stderr, "exec_edge: %s\n", err.msg);
        MPI_Finalize();
        return 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (p < 2 || p > MAXP) {
        if (rank == 0)
            fprintf(stderr, "exec_edge: run on 2..%d ranks, not %d\n", MAXP, p);
        MPI_Finalize();
        return 2;
    }
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        failed += run_case(&cases[i], rank, p);
    failed += run_disagree(rank, p);
    MPI_Finalize();
    if (rank == 0)
        printf("%d of %zu cases failed\n", failed, sizeof(cases) / sizeof(cases[0]) + 1);
    return failed != 0;
}
