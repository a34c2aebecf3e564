/*
 * tree.c - gsum's the tree run: every thread of the pathmap's tree on its rank, the
 * instances alternating, every result verified; optionally traced.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tools/gsum/gsum_int.h"

/* ---- the tree run ---------------------------------------------------- */

enum { MARK_NONE, MARK_LOOP_START, MARK_LOOP_END };

/*
 * All threads of all ranks: local barrier, one MPI barrier, local barrier.
 * Between the two, every operation everywhere has completed, so main can
 * read the trace's flush count without racing a thread that records.
 */
static void barrier_all(gsum_run_t *r, int is_main, int mark)
{
    pthread_barrier_wait(&r->barrier);
    if (is_main) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (r->trace != NULL && mark == MARK_LOOP_START)
            r->flush_mark = ins_trace_flushes(r->trace);
        else if (r->trace != NULL && mark == MARK_LOOP_END)
            r->loop_flushes += ins_trace_flushes(r->trace) - r->flush_mark;
    }
    pthread_barrier_wait(&r->barrier);
}

static void *gsum_thread_main(void *arg)
{
    gsum_thread_t *th = arg;
    gsum_run_t *r = th->run;

    for (int s = 0; s < r->o->nsizes; s++) {
        long k = 0;
        double t0;

        barrier_all(r, 0, MARK_NONE);   /* main has set r->bytes and expected */
        gsum_fill_inputs(r, th->id, th->in);
        for (long i = 0; i < r->o->warmup; i++, k++) {
            rt_exec_allreduce(r->ex, th->local, (unsigned)(k & 1),
                              th->in + (size_t)(k % r->variants) * r->bytes, th->out, r->bytes);
            gsum_verify(r, th->id, k, th->out);
        }
        barrier_all(r, 0, MARK_LOOP_START);
        t0 = MPI_Wtime();
        for (long i = 0; i < r->o->iters; i++, k++) {
            rt_exec_allreduce(r->ex, th->local, (unsigned)(k & 1),
                              th->in + (size_t)(k % r->variants) * r->bytes, th->out, r->bytes);
            gsum_verify(r, th->id, k, th->out);
        }
        r->elapsed[(size_t)th->local * r->o->nsizes + s] = MPI_Wtime() - t0;
        barrier_all(r, 0, MARK_LOOP_END);   /* main may now change the size */
    }
    return NULL;
}

/*
 * Collective: the header line that says who serves the proxy links and how
 * many service threads each host (rank) runs, rt_exec_service_count; kept
 * in r->links_line on rank 0.  With --links threads the new engine starts
 * service threads only for links no computational thread can serve.
 */
static void describe_links(const gsum_opts_t *o, gsum_run_t *r, const rt_pathmap_t *pm)
{
    uint32_t mine = rt_exec_service_count(r->ex), *all = NULL, total = 0;
    size_t len;

    if (g_rank == 0 && (all = calloc(pm->nhosts, sizeof(*all))) == NULL) {
        fprintf(stderr, "gsum: rank 0: out of memory gathering service thread counts\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Gather(&mine, 1, MPI_UINT32_T, all, 1, MPI_UINT32_T, 0, MPI_COMM_WORLD);
    if (g_rank != 0)
        return;
    for (uint32_t h = 0; h < pm->nhosts; h++)
        total += all[h];
    len = (size_t)snprintf(r->links_line, sizeof(r->links_line),
                           "# links: %s (%s); service threads: %u, per host:",
                           gsum_links_names[o->links != RT_LINKS_THREADS],
                           o->links == RT_LINKS_THREADS ? "served by the threads waiting in the tree"
                                                        : "one service thread per link and instance",
                           total);
    for (uint32_t h = 0; h < pm->nhosts && len < sizeof(r->links_line); h++)
        len += (size_t)snprintf(r->links_line + len, sizeof(r->links_line) - len, " %u",
                                all[h]);
    if (len >= sizeof(r->links_line) - 1)   /* a huge pathmap: cut, but end the line */
        snprintf(r->links_line + sizeof(r->links_line) - 6, 6, " ...\n");
    else
        snprintf(r->links_line + len, sizeof(r->links_line) - len, "\n");
    free(all);
}

static void describe_tree(const gsum_opts_t *o, gsum_run_t *r, const rt_pathmap_t *pm)
{
    const rt_tree_t *t = rt_exec_tree(r->ex);
    rt_wait_policy_t p = rt_exec_policy(r->ex);
    uint32_t nlocal = rt_exec_local_count(r->ex), busy = nlocal + rt_exec_service_count(r->ex);

    /* Open MPI binds each rank to one core when ranks <= cores. */
    if (busy > rt_wait_cpus_available() && rt_wait_cpus_available() < sysconf(_SC_NPROCESSORS_ONLN))
        fprintf(stderr, "gsum: rank %d: note: %u threads are bound to %u CPU(s); run "
                "mpirun with --bind-to none to let them use the others\n", g_rank, busy,
                rt_wait_cpus_available());
    describe_links(o, r, pm);
    if (g_rank != 0)
        return;
    printf("# paptree gsum: pathmap %s, tree %s (%s %s), %u hosts, %u threads, "
           "2 instances\n", o->pathmap, t->name, rt_dtype_name(t->dtype), rt_op_name(t->op),
           pm->nhosts, t->nthreads);
    printf("%s", r->links_line);
    printf("# warm-up %ld, wait on rank 0: spin %llu ns then yield %llu ns%s\n", o->warmup,
           (unsigned long long)p.spin_ns, (unsigned long long)p.yield_ns,
           o->spin_ns < 0 && o->yield_ns < 0 ? " (auto)" : "");
}

/*
 * Every thread's tuples and the expected results, before any thread starts
 * (so that a failure can still be agreed on); each failure names its buffer.
 */
static cm_status_t alloc_tuples(gsum_run_t *r, gsum_thread_t *th, uint32_t nlocal)
{
    size_t in, out;

    gsum_tuple_buffers(r->o, &in, &out);
    if ((r->expected = gsum_alloc(in, "expected results", -1)) == NULL)
        return CM_ERR_NOMEM;
    for (uint32_t i = 0; i < nlocal; i++) {
        th[i].run = r;
        th[i].local = i;
        th[i].id = rt_exec_local_thread(r->ex, i)->id;
        if ((th[i].in = gsum_alloc(in, "input tuples", th[i].id)) == NULL ||
            (th[i].out = gsum_alloc(out, "result tuple", th[i].id)) == NULL)
            return CM_ERR_NOMEM;
    }
    return CM_OK;
}

static void free_tuples(gsum_run_t *r, gsum_thread_t *th, uint32_t nlocal)
{
    for (uint32_t i = 0; th != NULL && i < nlocal; i++) {
        free(th[i].in);
        free(th[i].out);
    }
    free(r->expected);
}

static void run_threads(gsum_run_t *r, gsum_thread_t *th, uint32_t nlocal)
{
    for (uint32_t i = 0; i < nlocal; i++) {
        int e = pthread_create(&th[i].thread, NULL, gsum_thread_main, &th[i]);

        if (e != 0) {                   /* others may be running: no way back */
            fprintf(stderr, "gsum: rank %d: cannot start thread %u: %s\n", g_rank, th[i].id,
                    strerror(e));
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    for (int s = 0; s < r->o->nsizes; s++) {
        r->bytes = r->o->sizes[s];
        r->variants = gsum_variants_for(r->bytes);
        gsum_fill_expected(r);
        barrier_all(r, 1, MARK_NONE);
        barrier_all(r, 1, MARK_LOOP_START);
        barrier_all(r, 1, MARK_LOOP_END);
    }
    for (uint32_t i = 0; i < nlocal; i++)
        pthread_join(th[i].thread, NULL);
}

static void tree_stats(gsum_run_t *r)
{
    const rt_tree_t *t = rt_exec_tree(r->ex);

    r->dtype = t->dtype;
    r->op = t->op;
    r->nthreads = t->nthreads;
    r->min_id = t->threads[0].id;                 /* threads are sorted by id */
    r->max_id = t->threads[t->nthreads - 1].id;
    for (uint32_t i = 0; i < t->nthreads; i++)
        r->sum_ids += t->threads[i].id + 1;
}

/*
 * The closed-form check compares bit for bit, so every value a float tree
 * can produce must be exact: integers up to 2^24.  The largest is the sum
 * of (id + 1 + 63) over the threads (fill_inputs, fill_expected).
 */
static cm_status_t check_float_exact(const rt_tree_t *t, cm_err_t *err)
{
    uint64_t top = 0;

    if (t->dtype != RT_DTYPE_FLOAT)
        return CM_OK;
    for (uint32_t i = 0; i < t->nthreads; i++)
        top += t->op == RT_OP_SUM ? t->threads[i].id + 1 + 63 : 0;
    if (t->op != RT_OP_SUM)
        top = t->threads[t->nthreads - 1].id + 1 + 63;
    if (top <= (UINT64_C(1) << 24))
        return CM_OK;
    return CM_ERR(err, CM_ERR_UNSUPPORTED, "tree '%s' (type=float): its results reach %llu, "
                  "above 2^24, where float stops holding integers exactly and Gsum cannot "
                  "verify them; use type=double", t->name, (unsigned long long)top);
}

/* Writes the archive (collective) and says where it is. */
static int close_trace(const gsum_opts_t *o, gsum_run_t *r, const char *prefix)
{
    ins_trace_summary_t sum;
    uint64_t loop_flushes = 0;
    cm_err_t err;

    cm_err_clear(&err);
    MPI_Reduce(&r->loop_flushes, &loop_flushes, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (ins_trace_close(r->trace, &sum, &err) != CM_OK) {
        cm_err_print(stderr, prefix, &err);
        return 1;
    }
    if (g_rank == 0) {
        printf("# trace: %s/traces.otf2: %llu events from %llu threads; clock %s at %.3f GHz, "
               "host offsets to rank 0 <= %.2f us (+- %.2f us), drift <= %.3f ppm\n",
               o->trace_dir, (unsigned long long)sum.events,
               (unsigned long long)sum.locations, sum.clock, sum.ticks_per_s / 1e9,
               sum.max_offset_us, sum.max_sync_err_us, sum.max_drift_ppm);
        printf("# trace: %llu buffer flushes, %llu of them during the measured loops%s\n",
               (unsigned long long)sum.flushes, (unsigned long long)loop_flushes,
               loop_flushes ? " (they slow those loops down; raise --trace-mem)" : "");
    }
    return 0;
}

/* Collective: what this rank will hold for the tree run, against the machine. */
static int check_tree_memory(const gsum_opts_t *o, const rt_pathmap_t *pm,
                             const rt_exec_params_t *params)
{
    const rt_tree_t *t = rt_pathmap_tree(pm, o->tree);
    gsum_need_t need = { 0, 0, 0, 0, 0 };
    size_t in, out;

    gsum_tuple_buffers(o, &in, &out);
    for (uint32_t i = 0; i < t->nthreads; i++)
        need.threads += t->threads[i].host == (rt_host_id_t)g_rank;
    need.per_thread = (uint64_t)in + out;
    need.expected = in;
    need.tree = rt_tree_tuple_bytes(t, (rt_host_id_t)g_rank, params->ninstances,
                                    params->max_bytes);
    if (o->trace_dir != NULL)
        need.trace = o->trace_mem ? o->trace_mem : INS_TRACE_MEM_DEFAULT;
    return gsum_check_memory(o, params->max_bytes, &need);
}

/*
 * Collective: the pathmap, its tree checked against the options (sizes,
 * float exactness) and the machine's memory.  NULL on every rank when some
 * rank failed (each said why or named the first that did).
 */
static rt_pathmap_t *load_checked(const gsum_opts_t *o, rt_exec_params_t *params,
                                  const char *prefix)
{
    rt_pathmap_t *pm = NULL;
    cm_err_t err;
    cm_status_t st;

    cm_err_clear(&err);
    st = rt_pathmap_load(o->pathmap, &pm, &err);
    if (st == CM_OK && rt_pathmap_tree(pm, o->tree) != NULL &&
        gsum_check_sizes(o, rt_pathmap_tree(pm, o->tree)->dtype, &params->max_bytes) != 0)
        st = CM_ERR(&err, CM_ERR_INVALID, "invalid -s (see above)");
    if (st == CM_OK)
        st = rt_pathmap_tree(pm, o->tree) ? CM_OK :
             CM_ERR(&err, CM_ERR_NAME, "pathmap '%s' has no tree '%s'", o->pathmap, o->tree);
    if (st == CM_OK)
        st = check_float_exact(rt_pathmap_tree(pm, o->tree), &err);
    if (st != CM_OK)
        cm_err_print(stderr, prefix, &err);
    if (gsum_agree_all(st) != 0 || check_tree_memory(o, pm, params) != 0) {
        rt_pathmap_destroy(pm);
        return NULL;
    }
    return pm;
}

/* Closes a trace whose run did not happen: the archive is discarded. */
static void discard_trace(gsum_run_t *r)
{
    cm_err_t err;

    if (r->trace != NULL)
        (void)ins_trace_close(r->trace, &(ins_trace_summary_t){ 0 }, &err);
}

/* Collective: the trace (with --trace) and the executor; 0, or 1 (said). */
static int open_exec(const gsum_opts_t *o, const rt_pathmap_t *pm, rt_exec_params_t *params,
                     gsum_run_t *r, const char *prefix)
{
    cm_err_t err;

    cm_err_clear(&err);
    if (o->trace_dir != NULL) {
        ins_trace_opts_t topts = { o->trace_dir, o->trace_mem, o->force, o->command };

        if (ins_trace_open(pm, o->tree, params->ninstances, &topts, MPI_COMM_WORLD, &r->trace,
                           &err) != CM_OK) {
            cm_err_print(stderr, prefix, &err);
            return 1;
        }
        params->hooks = ins_trace_hooks(r->trace);
    }
    if (rt_exec_create(pm, params, MPI_COMM_WORLD, &r->ex, &err) != CM_OK) {
        cm_err_print(stderr, prefix, &err);
        discard_trace(r);
        return 1;
    }
    return 0;
}

/* Collective: one row per size, from every local thread's elapsed time. */
static void report_rows(const gsum_opts_t *o, const gsum_run_t *r, double *per_op,
                        uint32_t nlocal)
{
    gsum_print_header();
    for (int s = 0; s < o->nsizes; s++) {
        for (uint32_t i = 0; i < nlocal; i++)
            per_op[i] = r->elapsed[(size_t)i * o->nsizes + s] / (double)o->iters;
        gsum_report_row(o, o->sizes[s], per_op, nlocal);
    }
}

int gsum_run_tree(const gsum_opts_t *o)
{
    rt_exec_params_t params = { .tree = o->tree, .ninstances = 2, .spin_ns = o->spin_ns,
                                .yield_ns = o->yield_ns, .watchdog_s = (double)o->watchdog_s,
                                .links = o->links };
    rt_pathmap_t *pm;
    gsum_run_t r;
    gsum_thread_t *th;
    cm_status_t st;
    uint32_t nlocal;
    double *per_op;
    char prefix[32];
    int rc;

    snprintf(prefix, sizeof(prefix), "gsum: rank %d: ", g_rank);
    if ((pm = load_checked(o, &params, prefix)) == NULL)
        return 1;
    memset(&r, 0, sizeof(r));
    r.o = o;
    if (open_exec(o, pm, &params, &r, prefix) != 0) {
        rt_pathmap_destroy(pm);
        return 1;
    }
    tree_stats(&r);
    describe_tree(o, &r, pm);
    nlocal = rt_exec_local_count(r.ex);
    th = calloc(nlocal + 1, sizeof(*th));
    r.elapsed = calloc((size_t)(nlocal + 1) * o->nsizes, sizeof(*r.elapsed));
    per_op = calloc(nlocal + 1, sizeof(*per_op));
    if (th == NULL || r.elapsed == NULL || per_op == NULL) {
        fprintf(stderr, "%scannot allocate the records of %u threads\n", prefix, nlocal);
        st = CM_ERR_NOMEM;
    } else {
        st = alloc_tuples(&r, th, nlocal);
    }
    if (gsum_agree_all(st) != 0) {
        free_tuples(&r, th, nlocal);
        free(per_op);
        free(r.elapsed);
        free(th);
        rt_exec_destroy(r.ex);
        discard_trace(&r);
        rt_pathmap_destroy(pm);
        return 1;
    }
    pthread_barrier_init(&r.barrier, NULL, nlocal + 1);
    run_threads(&r, th, nlocal);
    free_tuples(&r, th, nlocal);
    rt_exec_destroy(r.ex);
    report_rows(o, &r, per_op, nlocal);
    rc = r.trace != NULL ? close_trace(o, &r, prefix) : 0;
    free(per_op);
    pthread_barrier_destroy(&r.barrier);
    free(r.elapsed);
    free(th);
    rt_pathmap_destroy(pm);
    return rc;
}
