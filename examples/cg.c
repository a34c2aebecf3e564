/*
 * cg - a distributed conjugate-gradient solver whose dot products go
 * through a pathmap tree: a real iterative program with natural imbalance.
 *
 *   mpirun -np HOSTS bin/cg [--threads T] [--grid NXxNY] [--split W:W:...]
 *   mpirun -np HOSTS bin/cg --pathmap examples/cg-2x2.pathmap [--trace DIR]
 *
 * The system: the 5-point Laplacian A of an NX x NY grid with Dirichlet
 * boundaries (4 on the diagonal, -1 for each neighbour), n = NX*NY rows,
 * and b = A x* for the integer field x*(x,y) = (x^2 + 3y^2 + xy) mod 13 - 6, so
 * that b is exact and the exact solution is known in closed form.
 *
 * The work: the rows are cut in contiguous blocks over the tree's threads
 * (in thread-id order) by the weights of --split (default 1 : 1.5 : 2 :
 * ...), so the threads reach each reduction at different times.  Each rank
 * runs its threads of the tree; it keeps full-length vectors but computes
 * only its own rows, and swaps the rows its neighbours need (the halo of r)
 * with MPI once per iteration.
 *
 * The iteration is Chronopoulos and Gear's CG, which needs one reduction
 * per iteration: gamma = r.r and delta = (Ar).r together, a tuple of two
 * doubles (and a third, the stop vote, below) through rt_exec_allreduce.
 * Each thread calls rt_exec_phase_begin before its mat-vec and
 * rt_exec_edge(0.5) after half of its rows (Proficz 2018, section 3), so an
 * arrival=edge algorithm node can estimate when each host will arrive.
 *
 * Stopping: every thread of a host receives the same bits from its gred,
 * but an algorithm node is not bound to hand every host bit-identical sums
 * (double addition is not associative), so threads could disagree whether
 * gamma <= (tol |b|)^2 and one would wait forever for the others.  A thread
 * that finds gamma below the threshold keeps its x and adds a vote of 1 to
 * its next tuple; the votes are small integers, summed exactly in any
 * order, so every thread sees the same count and all stop after the same
 * reduction.
 *
 * The check (rank 0): x is gathered and compared with a serial CG (the
 * textbook Hestenes-Stiefel form) of the same system and with the exact
 * solution.  Tree sums round differently from serial sums, so the answers
 * differ in low bits and cannot be compared for equality.  Instead each is
 * bounded through its true residual: ||x - x*|| <= ||b - A x|| / lambda_min,
 * with lambda_min = 4 sin^2(pi/(2(NX+1))) + 4 sin^2(pi/(2(NY+1))) known in
 * closed form, so max|x - x_serial| <= (R + R_serial) / lambda_min, where
 * R is the residual computed by a routine of its own (cg_true_residual, not
 * the solver's kernel) plus a bound on that computation's own rounding.
 * Whatever order the tree summed in, these bounds hold; a wrong reduction
 * breaks them (or the residual check) at once.
 *
 * Here: the threads, a solve per tree, the trees and the report.  The
 * options, the problem and the halo are in examples/cg/ (cg_int.h).
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "common/cm_argv.h"
#include "instrument/api/ins_trace.h"
#include "runtime/api/rt_exec.h"
#include "examples/cg/cg_int.h"

#define CG_TUPLE        3            /* gamma part, delta part, stop votes */

/* One solve on one tree: what this rank's threads share. */
typedef struct cg_run {
    const cg_opts_t *o;
    rt_exec_t       *ex;
    const rt_tree_t *tree;
    size_t           n, *row0;       /* thread k (tree order) owns [row0[k], row0[k+1]) */
    int             *owner;          /* [n] the rank of each row */
    double          *b, *x, *r, *w, *p, *s;
    double           thr;            /* (tol |b|)^2 */
    cg_halo_t        halo;           /* the rows of r that other ranks own */
    pthread_barrier_t bar;           /* this rank's solver threads */
    pthread_barrier_t start;         /* and main, which starts them together */
} cg_run_t;

typedef struct cg_worker {
    cg_run_t *run;
    uint32_t  local;
    size_t    lo, hi;
    long      iters, nred;           /* x updates, reductions */
    int       converged;
    double    gamma, t_loop, t_reduce, t_compute, t_halo;
    pthread_t thread;
} cg_worker_t;

static int g_rank, g_size;

/* ---- the split and the halo ------------------------------------------ */

static double weight(const cg_opts_t *o, uint32_t k)
{
    return o->nweights ? o->weights[k % (uint32_t)o->nweights] : 1.0 + 0.5 * k;
}

/* Rows of thread k (tree order): cumulative weights, rounded. */
static int split_rows(cg_run_t *R)
{
    const rt_tree_t *t = R->tree;
    double total = 0.0, acc = 0.0;

    for (uint32_t k = 0; k < t->nthreads; k++)
        total += weight(R->o, k);
    for (uint32_t k = 0; k <= t->nthreads; k++) {
        R->row0[k] = (size_t)llround((double)R->n * acc / total);
        if (k < t->nthreads)
            acc += weight(R->o, k);
    }
    R->row0[t->nthreads] = R->n;
    for (uint32_t k = 0; k < t->nthreads; k++) {
        if (R->row0[k + 1] == R->row0[k])
            return -1;
        for (size_t i = R->row0[k]; i < R->row0[k + 1]; i++)
            R->owner[i] = (int)t->threads[k].host;
    }
    return 0;
}

/* ---- the solver threads ---------------------------------------------- */

/* All threads of the rank; the first swaps the halo of r in between. */
static void halo_step(cg_run_t *R, uint32_t local)
{
    pthread_barrier_wait(&R->bar);
    if (local == 0)
        cg_halo_exchange(&R->halo, R->r);
    pthread_barrier_wait(&R->bar);
}

/* The CG update of this thread's rows (Chronopoulos and Gear: s = A p). */
static void update(cg_run_t *R, const cg_worker_t *wk, double alpha, double beta)
{
    double *x = R->x, *r = R->r, *w = R->w, *p = R->p, *s = R->s;

    for (size_t i = wk->lo; i < wk->hi; i++) {
        p[i] = r[i] + beta * p[i];
        s[i] = w[i] + beta * s[i];
        x[i] += alpha * p[i];
        r[i] -= alpha * s[i];
    }
}

static void *worker_main(void *arg)
{
    cg_worker_t *wk = arg;
    cg_run_t *R = wk->run;
    size_t mid = wk->lo + (wk->hi - wk->lo) / 2;
    double in[CG_TUPLE], out[CG_TUPLE], gamma_prev = 1.0, alpha_prev = 1.0, vote = 0.0;
    double t0, ta, tb;

    for (long i = 0; i < R->o->warmup; i++) {   /* the first operations set up MPI's paths */
        memset(in, 0, sizeof(in));
        rt_exec_phase_begin(R->ex, wk->local);
        rt_exec_edge(R->ex, wk->local, 1.0);    /* nothing to compute: arriving now */
        rt_exec_allreduce(R->ex, wk->local, 0, in, out, sizeof(in));
    }
    if (R->o->warmup > 0)
        halo_step(R, wk->local);                /* r is b everywhere: unchanged */
    pthread_barrier_wait(&R->start);      /* main: MPI_Barrier in between */
    pthread_barrier_wait(&R->start);
    t0 = MPI_Wtime();
    for (long i = 0;; i++) {
        double dots[2] = { 0.0, 0.0 }, beta, alpha;

        ta = MPI_Wtime();
        rt_exec_phase_begin(R->ex, wk->local);
        if (vote == 0.0) {
            cg_matvec(&R->o->grid, R->r, R->w, wk->lo, mid, dots);
            rt_exec_edge(R->ex, wk->local, 0.5);   /* half of the rows done */
            cg_matvec(&R->o->grid, R->r, R->w, mid, wk->hi, dots);
        } else {                          /* voted: nothing to compute, arriving now */
            rt_exec_edge(R->ex, wk->local, 1.0);
        }
        in[0] = dots[0], in[1] = dots[1], in[2] = vote;
        tb = MPI_Wtime();
        wk->t_compute += tb - ta;
        rt_exec_allreduce(R->ex, wk->local, 0, in, out, sizeof(in));
        wk->nred++;
        wk->t_reduce += MPI_Wtime() - tb;
        if (out[2] > 0.0 || i == R->o->max_iter) {
            wk->converged = out[2] > 0.0;
            break;
        }
        ta = MPI_Wtime();
        wk->gamma = out[0];
        if (!(out[0] > R->thr)) {         /* converged (or NaN): vote, keep x */
            vote = 1.0;
        } else {
            beta = i == 0 ? 0.0 : out[0] / gamma_prev;
            alpha = out[0] / (out[1] - beta * out[0] / alpha_prev);
            update(R, wk, alpha, beta);
            gamma_prev = out[0];
            alpha_prev = alpha;
            wk->iters++;
        }
        tb = MPI_Wtime();
        wk->t_compute += tb - ta;
        halo_step(R, wk->local);
        wk->t_halo += MPI_Wtime() - tb;
    }
    wk->t_loop = MPI_Wtime() - t0;
    return NULL;
}

/* ---- one solve ------------------------------------------------------- */

static void free_run(cg_run_t *R)
{
    if (R->halo.peers != NULL)
        cg_halo_free(&R->halo);
    free(R->row0);
    free(R->owner);
    free(R->b);        /* one block: b, x, r, w, p, s */
}

static cm_status_t setup_run(cg_run_t *R, char *msg, size_t size)
{
    size_t n = R->n;
    double bb = 0.0;

    R->row0 = calloc(R->tree->nthreads + 1, sizeof(*R->row0));
    R->owner = calloc(n, sizeof(*R->owner));
    R->b = calloc(6 * n, sizeof(double));
    if (R->row0 == NULL || R->owner == NULL || R->b == NULL)
        return snprintf(msg, size, "out of memory for %zu rows", n), CM_ERR_NOMEM;
    R->x = R->b + n, R->r = R->b + 2 * n, R->w = R->b + 3 * n;
    R->p = R->b + 4 * n, R->s = R->b + 5 * n;
    if (split_rows(R) != 0)
        return snprintf(msg, size, "%zu rows cannot give each of the tree's %u threads one "
                         "(a larger --grid, or other --split weights)", n,
                         R->tree->nthreads), CM_ERR_INVALID;
    {
        double d[2] = { 0.0, 0.0 };
        for (size_t i = 0; i < n; i++)
            R->x[i] = cg_exact(&R->o->grid, i);
        cg_matvec(&R->o->grid, R->x, R->b, 0, n, d);    /* b = A x*, exact: small integers */
    }
    for (size_t i = 0; i < n; i++) {
        R->x[i] = 0.0;
        R->r[i] = R->b[i];                    /* r0 = b, halo included */
        bb += R->b[i] * R->b[i];
    }
    R->thr = R->o->tol * R->o->tol * bb;
    if (cg_halo_make(&R->halo, &R->o->grid, R->owner, MPI_COMM_WORLD) != 0)
        return snprintf(msg, size, "out of memory for the halo"), CM_ERR_NOMEM;
    return CM_OK;
}

/* What a solve reports: per-thread figures reduced over the job (rank 0). */
typedef struct cg_result {
    long   iters, reductions;
    int    converged;
    double gamma, t_iter, red_avg, red_min, red_max, comp_min, comp_max, halo_max;
} cg_result_t;

static void collect(const cg_worker_t *wk, uint32_t nlocal, cg_result_t *res)
{
    double mx[4] = { 0, 0, 0, 0 }, mn[2] = { INFINITY, INFINITY }, sum = 0.0, all[4], lo[2];
    double nred = (double)wk[0].nred;

    for (uint32_t i = 0; i < nlocal; i++) {
        mx[0] = fmax(mx[0], wk[i].t_loop);
        mx[1] = fmax(mx[1], wk[i].t_reduce);
        mx[2] = fmax(mx[2], wk[i].t_compute);
        mx[3] = fmax(mx[3], wk[i].t_halo);
        mn[0] = fmin(mn[0], wk[i].t_reduce);
        mn[1] = fmin(mn[1], wk[i].t_compute);
        sum += wk[i].t_reduce;
    }
    MPI_Reduce(mx, all, 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(mn, lo, 2, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&sum, &res->red_avg, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    res->iters = wk[0].iters;
    res->reductions = (long)nred;
    res->converged = wk[0].converged;
    res->gamma = wk[0].gamma;
    res->t_iter = all[0] / nred;
    res->red_avg /= (double)wk[0].run->tree->nthreads * nred;
    res->red_min = lo[0] / nred, res->red_max = all[1] / nred;
    res->comp_min = lo[1] / nred, res->comp_max = all[2] / nred;
    res->halo_max = all[3] / nred;
}

static int run_threads(cg_run_t *R, cg_result_t *res)
{
    uint32_t nlocal = rt_exec_local_count(R->ex);
    cg_worker_t *wk = calloc(nlocal, sizeof(*wk));

    if (wk == NULL) {
        fprintf(stderr, "cg: rank %d: error: out of memory for %u threads\n", g_rank, nlocal);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    pthread_barrier_init(&R->bar, NULL, nlocal);
    pthread_barrier_init(&R->start, NULL, nlocal + 1);
    for (uint32_t i = 0; i < nlocal; i++) {
        const rt_thread_map_t *tm = rt_exec_local_thread(R->ex, i);
        uint32_t k = (uint32_t)(tm - R->tree->threads);     /* its place in tree order */

        wk[i] = (cg_worker_t){ .run = R, .local = i, .lo = R->row0[k], .hi = R->row0[k + 1] };
        if (pthread_create(&wk[i].thread, NULL, worker_main, &wk[i]) != 0) {
            fprintf(stderr, "cg: rank %d: error: cannot start thread %u\n", g_rank, tm->id);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    pthread_barrier_wait(&R->start);
    MPI_Barrier(MPI_COMM_WORLD);
    pthread_barrier_wait(&R->start);
    for (uint32_t i = 0; i < nlocal; i++)
        pthread_join(wk[i].thread, NULL);
    pthread_barrier_destroy(&R->bar);
    pthread_barrier_destroy(&R->start);
    collect(wk, nlocal, res);
    free(wk);
    return 0;
}

/* ---- the trees ------------------------------------------------------- */

/* The built-in pathmap: g_size hosts x T threads, a gred per host, three trees. */
static char *builtin_text(long threads)
{
    static const char *const algo[3][2] = {
        { "prr", "run=prr arrival=edge" }, { "ring", "run=ring" }, { "native", "run=native" } };
    size_t cap = 4096 + (size_t)g_size * 256, len = 0;
    char *t = malloc(cap);

    if (t == NULL)
        return NULL;
    len += (size_t)snprintf(t + len, cap - len, "# cg's built-in trees: %d hosts x %ld "
                            "threads\n", g_size, threads);
    for (int h = 0; h < g_size; h++)
        len += (size_t)snprintf(t + len, cap - len, "host host%d\n", h);
    for (int a = 0; a < 3; a++) {
        len += (size_t)snprintf(t + len, cap - len, "tree %s type=double op=sum\n"
                                "algo across %s\n", algo[a][0], algo[a][1]);
        for (int h = 0; h < g_size; h++)
            len += (size_t)snprintf(t + len, cap - len, "gred h%d host=host%d parent=across\n"
                                    "threads %ld-%ld host=host%d enter=h%d\n", h, h,
                                    h * threads, h * threads + threads - 1, h, h);
    }
    return t;
}

/* "prr arrival=edge", "ring", "native", "core". */
static const char *algo_name(const rt_tree_t *t, char *buf, size_t size)
{
    const rt_node_t *a = rt_tree_algo(t);

    if (a == NULL)
        snprintf(buf, size, "core");
    else if (a->algo->native || a->algo->autocfg != NULL)
        snprintf(buf, size, "%s%s%s", rt_algo_spec_name(a->algo), a->algo->pap ? " arrival=" : "",
                 a->algo->pap ? rt_arrival_name(a->algo->arrival) : "");
    else
        snprintf(buf, size, "%s%s%s%s%s", a->algo->run->name, a->algo->bcast ? "+" : "",
                 a->algo->bcast ? a->algo->bcast->name : "", a->algo->pap ? " arrival=" : "",
                 a->algo->pap ? rt_arrival_name(a->algo->arrival) : "");
    return buf;
}

/* Every tree must reduce doubles by sum, on a pathmap of g_size hosts. */
static cm_status_t check_pathmap(const cg_opts_t *o, const rt_pathmap_t *pm, cm_err_t *err)
{
    if (pm->nhosts != (uint32_t)g_size)
        return CM_ERR(err, CM_ERR_MISMATCH, "%s has %u hosts; run it with mpirun -np %u "
                      "(one rank per host), not %d", pm->path, pm->nhosts, pm->nhosts, g_size);
    for (uint32_t i = 0; i < pm->ntrees; i++) {
        const rt_tree_t *t = &pm->trees[i];
        if (t->dtype != RT_DTYPE_DOUBLE || t->op != RT_OP_SUM)
            return CM_ERR(err, CM_ERR_INVALID, "%s: tree '%s' is type=%s op=%s; cg needs "
                          "type=double op=sum", pm->path, t->name, rt_dtype_name(t->dtype),
                          rt_op_name(t->op));
        for (uint32_t h = 0; h < pm->nhosts; h++) {
            uint32_t k = 0;
            while (k < t->nthreads && t->threads[k].host != h)
                k++;
            if (k == t->nthreads)
                return CM_ERR(err, CM_ERR_INVALID, "%s: tree '%s' has no thread on host %s; "
                              "cg solves on every rank's threads", pm->path, t->name,
                              pm->hosts[h].name);
        }
        if ((size_t)(o->grid.nx * o->grid.ny) < t->nthreads)
            return CM_ERR(err, CM_ERR_INVALID, "%s: tree '%s' has %u threads, more than the "
                          "%ld rows of --grid", pm->path, t->name, t->nthreads,
                          o->grid.nx * o->grid.ny);
    }
    return CM_OK;
}

/* Loads every pathmap (or the built-in one) on every rank; agreed. */
static int load_pathmaps(const cg_opts_t *o, rt_pathmap_t **pms, int *npm)
{
    cm_status_t st = CM_OK;
    cm_err_t err;
    char *text;

    cm_err_clear(&err);
    *npm = o->npathmaps ? o->npathmaps : 1;
    if (o->npathmaps == 0 && g_size < 2)
        st = CM_ERR(&err, CM_ERR_INVALID, "the built-in trees need 2 or more ranks (an "
                    "algorithm node spans hosts); run with mpirun -np 2 or give --pathmap");
    else if (o->npathmaps == 0) {
        st = (text = builtin_text(o->threads)) == NULL ? CM_ERR_NOMEM :
             rt_pathmap_parse("(built-in)", text, strlen(text), &pms[0], &err);
        free(text);
    }
    for (int i = 0; st == CM_OK && i < o->npathmaps; i++)
        st = rt_pathmap_load(o->pathmaps[i], &pms[i], &err);
    for (int i = 0; st == CM_OK && i < *npm; i++)
        st = check_pathmap(o, pms[i], &err);
    for (int i = 0; st == CM_OK && o->trace_dir && i < *npm; i++)
        for (int j = 0; st == CM_OK && j <= i; j++)
            for (uint32_t a = 0; st == CM_OK && a < pms[i]->ntrees; a++)
                for (uint32_t c = 0; st == CM_OK && c < (j < i ? pms[j]->ntrees : a); c++)
                    if (strcmp(pms[i]->trees[a].name, pms[j]->trees[c].name) == 0)
                        st = CM_ERR(&err, CM_ERR_INVALID, "two trees are called '%s': --trace "
                                    "writes DIR/TREE for each, so tree names must differ",
                                    pms[i]->trees[a].name);
    if (st != CM_OK && g_rank == 0)
        cm_err_print(stderr, "cg: ", &err);
    if (st == CM_OK && o->trace_dir && g_rank == 0 && mkdir(o->trace_dir, 0777) != 0 &&
        errno != EEXIST) {
        fprintf(stderr, "cg: error: --trace %s: cannot create it: %s\n", o->trace_dir,
                strerror(errno));
        st = CM_ERR_IO;
    }
    return rt_mpi_agree(MPI_COMM_WORLD, st, &err) == CM_OK ? 0 : -1;
}

/* ---- a solve on one tree ---------------------------------------------- */

static int open_trace(const cg_opts_t *o, const rt_pathmap_t *pm, const rt_tree_t *t,
                      ins_trace_t **tr, rt_exec_params_t *params)
{
    char dir[4096];
    ins_trace_opts_t topts = { dir, 0, o->force, o->command };
    cm_err_t err;

    cm_err_clear(&err);
    snprintf(dir, sizeof(dir), "%s/%s", o->trace_dir, t->name);
    if (ins_trace_open(pm, t->name, 1, &topts, MPI_COMM_WORLD, tr, &err) != CM_OK) {
        if (g_rank == 0)
            cm_err_print(stderr, "cg: ", &err);
        return -1;
    }
    params->hooks = ins_trace_hooks(*tr);
    return 0;
}

static int close_trace(const cg_opts_t *o, const rt_tree_t *t, ins_trace_t *tr)
{
    ins_trace_summary_t sum;
    cm_err_t err;

    cm_err_clear(&err);
    if (ins_trace_close(tr, &sum, &err) != CM_OK) {
        if (g_rank == 0)
            cm_err_print(stderr, "cg: ", &err);
        return -1;
    }
    if (g_rank == 0)
        printf("#   trace: %s/%s/traces.otf2, %llu events, %llu buffer flushes\n",
               o->trace_dir, t->name, (unsigned long long)sum.events,
               (unsigned long long)sum.flushes);
    return 0;
}

/* Solves on tree t; x (rank 0) receives the answer.  -1 if it could not run. */
static int solve(const cg_opts_t *o, const rt_pathmap_t *pm, const rt_tree_t *t, long round,
                 double *x, cg_result_t *res)
{
    rt_exec_params_t params = { .tree = t->name, .ninstances = 1,
                                .max_bytes = CG_TUPLE * sizeof(double), .spin_ns = -1,
                                .yield_ns = -1, .watchdog_s = 60.0,
                                .links = RT_LINKS_THREADS };
    cg_run_t R = { .o = o, .tree = t, .n = (size_t)(o->grid.nx * o->grid.ny) };
    ins_trace_t *tr = NULL;
    char msg[256] = "";
    cm_err_t err;
    cm_status_t st;
    int rc = 0;

    cm_err_clear(&err);
    st = setup_run(&R, msg, sizeof(msg));
    if (st != CM_OK)
        fprintf(stderr, "cg: rank %d: error: tree '%s': %s\n", g_rank, t->name, msg);
    if (rt_mpi_agree(MPI_COMM_WORLD, st, &err) != CM_OK ||
        (o->trace_dir && round == 0 && open_trace(o, pm, t, &tr, &params) != 0)) {
        free_run(&R);
        return -1;
    }
    if (rt_exec_create(pm, &params, MPI_COMM_WORLD, &R.ex, &err) != CM_OK) {
        if (g_rank == 0)
            cm_err_print(stderr, "cg: ", &err);
        if (tr != NULL)
            (void)ins_trace_close(tr, &(ins_trace_summary_t){ 0 }, &err);
        free_run(&R);
        return -1;
    }
    run_threads(&R, res);
    rt_exec_destroy(R.ex);
    if (tr != NULL)
        rc = close_trace(o, t, tr);
    /* Other ranks hold 0 in the rows they do not own: the sum is exact. */
    MPI_Reduce(R.x, x, (int)R.n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (g_rank == 0 && round == 0) {
        printf("#   %s: rows per thread (thread-id order):", t->name);
        for (uint32_t k = 0; k < t->nthreads && k < 16; k++)
            printf(" %zu", R.row0[k + 1] - R.row0[k]);
        printf("%s\n", t->nthreads > 16 ? " ..." : "");
    }
    free_run(&R);
    return rc;
}

/* ---- the check (rank 0) ----------------------------------------------- */

typedef struct cg_ref {
    double *b, *xs, bnorm, res_s;    /* the serial answer and its residual bound */
    long    iters;
} cg_ref_t;

/* Prints the row and the check of one solve; 0 if the answer passes. */
static int check(const cg_opts_t *o, const cg_ref_t *ref, const rt_tree_t *t,
                 const double *x, const cg_result_t *res, int loud)
{
    size_t n = (size_t)(o->grid.nx * o->grid.ny);
    double slack, res_x = cg_true_residual(&o->grid, ref->b, x, &slack), lam = cg_lambda_min(&o->grid) * (1 - 1e-9);
    double *xe = malloc(n * sizeof(*xe)), xs_max = cg_max_abs_diff(ref->xs, NULL, n);
    double d_s, d_e, bound_s = (res_x + slack + ref->res_s) / lam, bound_e = (res_x + slack) / lam;
    int ok;

    if (xe == NULL)
        return -1;
    for (size_t i = 0; i < n; i++)
        xe[i] = cg_exact(&o->grid, i);
    d_s = cg_max_abs_diff(x, ref->xs, n);
    d_e = cg_max_abs_diff(x, xe, n);
    ok = res->converged && res_x / ref->bnorm <= 2 * o->tol && d_s <= bound_s && d_e <= bound_e;
    if (loud || !ok)
        printf("#   %s: ||b-Ax||/||b|| = %.3e (recursive %.3e, tol %.1e); "
           "max|x-x_serial|/max|x_serial| = %.3e <= bound %.3e; max|x-x*|/max|x*| = %.3e "
           "<= bound %.3e: %s\n", t->name, res_x / ref->bnorm, sqrt(res->gamma) / ref->bnorm,
           o->tol, d_s / xs_max, bound_s / xs_max, d_e / xs_max, bound_e / xs_max,
           ok ? "ok" : "FAILED");
    fflush(stdout);
    if (!res->converged)
        fprintf(stderr, "cg: error: tree '%s': no convergence in %ld iterations\n", t->name,
                o->max_iter);
    else if (!ok)
        fprintf(stderr, "cg: error: tree '%s': the answer fails its check (line above)\n",
                t->name);
    free(xe);
    return ok ? 0 : -1;
}

/* Rank 0: b, the serial solve and its residual bound. */
static int reference(const cg_opts_t *o, cg_ref_t *ref)
{
    size_t n = (size_t)(o->grid.nx * o->grid.ny);
    double d[2] = { 0.0, 0.0 }, slack;

    ref->b = malloc(n * sizeof(double));
    ref->xs = malloc(n * sizeof(double));
    if (ref->b == NULL || ref->xs == NULL)
        return -1;
    for (size_t i = 0; i < n; i++)
        ref->xs[i] = cg_exact(&o->grid, i);
    cg_matvec(&o->grid, ref->xs, ref->b, 0, n, d);
    ref->bnorm = 0.0;
    for (size_t i = 0; i < n; i++)
        ref->bnorm += ref->b[i] * ref->b[i];
    ref->bnorm = sqrt(ref->bnorm);
    if ((ref->iters = cg_serial(&o->grid, ref->b, ref->xs, o->tol, o->max_iter)) < 0)
        return -1;
    ref->res_s = cg_true_residual(&o->grid, ref->b, ref->xs, &slack) + slack;
    printf("# serial CG (rank 0): %ld iterations, ||b-Ax||/||b|| = %.3e; lambda_min(A) = %.6e\n",
           ref->iters, ref->res_s / ref->bnorm, cg_lambda_min(&o->grid));
    return 0;
}

static int save_x(const char *dir, const char *tree, const double *x, size_t n)
{
    char path[4096];
    FILE *fp;

    snprintf(path, sizeof(path), "%s/%s.x", dir, tree);
    if ((mkdir(dir, 0777) != 0 && errno != EEXIST) || (fp = fopen(path, "w")) == NULL) {
        fprintf(stderr, "cg: error: --save-x %s: %s\n", path, strerror(errno));
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        fprintf(fp, "%.17g\n", x[i]);
    if (fclose(fp) != 0) {
        fprintf(stderr, "cg: error: --save-x %s: write failed\n", path);
        return -1;
    }
    return 0;
}

/* ---- main ------------------------------------------------------------ */

static void print_header(const cg_opts_t *o, rt_pathmap_t *const *pms, int npm)
{
    printf("# paptree cg: 5-point Laplacian of a %ldx%ld grid (n = %ld), b = A x*, tol %.1e, "
           "%d hosts\n", o->grid.nx, o->grid.ny, o->grid.nx * o->grid.ny, o->tol, g_size);
    printf("# split weights:");
    for (int k = 0; k < (o->nweights ? o->nweights : 4); k++)
        printf("%s%g", k ? ":" : " ", weight(o, (uint32_t)k));
    printf("%s\n", o->nweights ? " (repeated)" : ":... (1 + k/2 for thread k)");
    for (int i = 0; i < npm; i++)
        printf("# pathmap %s: %u tree%s\n", pms[i]->path, pms[i]->ntrees,
               pms[i]->ntrees == 1 ? "" : "s");
}

/* Rank 0: one row of the table, the fastest of the --repeat solves of a tree. */
static void print_row(const rt_tree_t *t, const cg_result_t *res)
{
    char name[64];

    printf("%-10s %-22s %6ld %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f\n", t->name,
           algo_name(t, name, sizeof(name)), res->iters, res->t_iter * 1e6, res->red_avg * 1e6,
           res->red_min * 1e6, res->red_max * 1e6, res->comp_min * 1e6, res->comp_max * 1e6,
           res->halo_max * 1e6);
}

/*
 * --repeat rounds, each solving on every tree in turn (so that a burst of
 * load on a shared machine hits all trees alike); every answer is checked,
 * and the table keeps each tree's fastest solve.
 */
static int run_rounds(const cg_opts_t *o, rt_pathmap_t **pms, int npm, const cg_ref_t *ref,
                      double *x, cg_result_t *best)
{
    size_t n = (size_t)(o->grid.nx * o->grid.ny);
    int failed = 0;

    for (long round = 0; round < o->repeat; round++) {
        int idx = 0;
        for (int i = 0; i < npm; i++) {
            for (uint32_t k = 0; k < pms[i]->ntrees; k++, idx++) {
                const rt_tree_t *t = &pms[i]->trees[k];
                cg_result_t res = { 0 };
                if (solve(o, pms[i], t, round, x, &res) != 0)
                    return -1;
                if (g_rank != 0)
                    continue;
                if (check(o, ref, t, x, &res, round == o->repeat - 1) != 0)
                    failed = 1;
                if (round == 0 || res.t_iter < best[idx].t_iter)
                    best[idx] = res;
                if (round == o->repeat - 1 && o->save_x && save_x(o->save_x, t->name, x, n) != 0)
                    failed = 1;
            }
        }
    }
    return failed;
}

static int run_all(const cg_opts_t *o)
{
    rt_pathmap_t *pms[CG_MAX_PATHMAPS] = { NULL };
    size_t n = (size_t)(o->grid.nx * o->grid.ny);
    cg_ref_t ref = { NULL, NULL, 0.0, 0.0, 0 };
    cg_result_t *best = calloc(CG_MAX_PATHMAPS * RT_PATHMAP_TREES_MAX, sizeof(*best));
    double *x = NULL;
    int npm = 0, rc = 1;

    if (best == NULL || load_pathmaps(o, pms, &npm) != 0) {
        for (int i = 0; i < CG_MAX_PATHMAPS; i++)   /* those loaded before a refusal */
            rt_pathmap_destroy(pms[i]);
        free(best);
        return 1;
    }
    if (g_rank == 0) {
        print_header(o, pms, npm);
        if ((x = malloc(n * sizeof(*x))) == NULL || reference(o, &ref) != 0) {
            fprintf(stderr, "cg: error: out of memory for %zu rows\n", n);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        fflush(stdout);
    }
    rc = run_rounds(o, pms, npm, &ref, x, best);
    if (rc >= 0 && g_rank == 0) {
        printf("# fastest of %ld solves per tree; times per iteration in us (one reduction "
               "each), over threads\n", o->repeat);
        printf("# %-8s %-22s %6s %10s %10s %10s %10s %10s %10s %10s\n", "tree", "algorithm",
               "iters", "us/iter", "reduce avg", "reduce min", "reduce max", "comp min",
               "comp max", "halo max");
        for (int i = 0, idx = 0; i < npm; i++)
            for (uint32_t k = 0; k < pms[i]->ntrees; k++, idx++)
                print_row(&pms[i]->trees[k], &best[idx]);
        /* Last, where the next command (papanalyze) reads: DIR/TREE per tree. */
        for (int i = 0; rc == 0 && o->trace_dir != NULL && i < npm; i++)
            for (uint32_t k = 0; k < pms[i]->ntrees; k++)
                printf("Trace: %s/%s/traces.otf2\n", o->trace_dir, pms[i]->trees[k].name);
    }
    if (rc >= 0)
        MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; i < npm; i++)
        rt_pathmap_destroy(pms[i]);
    free(best);
    free(x);
    free(ref.b);
    free(ref.xs);
    return rc != 0;
}

int main(int argc, char **argv)
{
    cg_opts_t o;
    cm_opt_t ctx;
    cm_err_t err;
    rt_args_t agreed;
    int rc;

    cm_err_clear(&err);
    cm_opt_init(&ctx, "cg");
    (void)cg_parse_args(argc, argv, &o, &ctx);
    if (rt_mpi_init(&argc, &argv, &err) != CM_OK) {
        cm_err_print(stderr, "cg: ", &err);
        MPI_Finalize();
        return 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    agreed = rt_mpi_agree_args(MPI_COMM_WORLD, &ctx, o.help, cg_usage,
                               "usage: mpirun -np HOSTS cg [options]; try 'cg --help'");
    if (agreed != RT_ARGS_RUN) {
        MPI_Finalize();
        return agreed == RT_ARGS_HELP ? 0 : 2;
    }
    o.command = cm_argv_join(argc, argv);
    rc = run_all(&o);
    free(o.command);
    fflush(stdout);
    MPI_Finalize();
    return rc;
}
