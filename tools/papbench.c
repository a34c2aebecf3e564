/*
 * papbench - the benchmark of Proficz 2018 (section 5.1, Figure 9): PAP-aware
 * allreduce algorithms against static ones under imbalanced arrivals.
 *
 *   mpirun -np P bin/papbench [--algo LIST] [--pathmap FILE]... [--sizes BYTES,...]
 *       [--mode one-late|rand-late] [--delays LIST] [--arrival LIST] [options]
 *
 * P ranks are P hosts with one computational thread each (the paper's
 * setup).  Each algorithm is a pathmap built in memory (or read with
 * --pathmap): one host per rank, one thread per host entering an `algo`
 * root that runs it (docs/pathmap.md, "Algorithm nodes"); the PAP-aware
 * ones (those whose generator reads arrival times: slt, prr, clv) run once
 * per arrival source.  Each is executed with rt_exec (runtime/api/rt_exec.h)
 * on the main thread.  Per iteration, exactly Figure 9: data, computation
 * time (max delay + margin) / 2 per half, the delay of the mode, two
 * MPI_Barriers, the phase (sleep, rt_exec_edge(0.5), sleep), the timed
 * rt_exec_allreduce, a check against MPI_Allreduce of the same data, the
 * elapsed times gathered and averaged (papbench_iter).  A cell of the table
 * is the mean over the iterations of that average.
 *
 * Data: every element is a random integer 0..15 (from the seed, the rank
 * and the iteration), so every float sum of up to 2^20 ranks is exact
 * whatever the order of the additions, and the result must equal
 * MPI_Allreduce's bit for bit.  Delays come from the seed, the rank and the
 * iteration only: every algorithm sees the same data and the same arrival
 * pattern in its k-th iteration, on every run.
 *
 * By default the algorithms are interleaved in blocks of --block
 * iterations, all executors alive at once, so that drift on a shared
 * machine hits them alike.  --trace DIR runs one traced executor at a time
 * (the tracer's interrupt handler covers one open archive per process) and
 * writes DIR/LABEL.nELEMENTS.dDELAYms/traces.otf2 for papanalyze.  Output:
 * one table per size in the form of the paper's Tables 3 and 4;
 * docs/papbench.md explains it.  The other parts are in tools/papbench/:
 * args.c (options), rows.c (the pathmaps), out.c (tables, CSV, errors).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "common/cm_argv.h"
#include "tools/papbench/papbench_int.h"

int g_rank, g_size;

/* ---- the arrival observer ------------------------------------------------ */

/* Every location of a row's executor reports to the row's counters. */
static void *obs_location(void *ud, const rt_location_t *where)
{
    (void)where;
    return ud;
}

static void obs_visit(void *loc, rt_visit_t what, unsigned instance, rt_node_id_t node,
                      uint64_t seq, size_t bytes)
{
    (void)loc, (void)what, (void)instance, (void)node, (void)seq, (void)bytes;
}

/* Once per operation of a PAP-aware node: where its arrival times came from. */
static void obs_arrival(void *loc, unsigned instance, rt_node_id_t node, uint64_t seq,
                        const rt_arrival_report_t *rep)
{
    pb_obs_t *o = loc;

    (void)instance, (void)node, (void)seq;
    if (!o->counting)
        return;
    o->reports++;
    o->fallbacks += rep->used != rep->asked;
    if (rep->error_ns != INT64_MIN) {
        double e = fabs((double)rep->error_ns);
        o->nerr++;
        o->err_sum_ns += e;
        o->err_max_ns = e > o->err_max_ns ? e : o->err_max_ns;
    }
}

/* ---- data, delays, sleeping ------------------------------------------------ */

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* A stream for (seed, what, rank, iteration): the same on every run. */
static uint64_t stream(uint64_t seed, uint64_t what, uint64_t rank, uint64_t k)
{
    uint64_t s = seed;

    s = splitmix(&s) ^ what;
    s = splitmix(&s) ^ rank;
    s = splitmix(&s) ^ k;
    return splitmix(&s);
}

/* Figure 9 line 2: random data, integers 0..15 (exact float sums). */
static void fill_data(float *v, size_t n, uint64_t seed, long k)
{
    uint64_t s = stream(seed, 1, (uint64_t)g_rank, (uint64_t)k), x = 0;

    for (size_t j = 0; j < n; j++) {
        if (j % 16 == 0)
            x = splitmix(&s);
        v[j] = (float)(x & 15);
        x >>= 4;
    }
}

/* Figure 9 lines 4-8: this rank's delay in iteration k, in ms. */
static double delay_ms(const pb_opts_t *o, double max_ms, long k)
{
    double u;

    if (!o->rand_late)
        return g_rank == 1 ? max_ms : 0.0;
    u = (double)(stream(o->seed, 2, (uint64_t)g_rank, (uint64_t)k) >> 11) * 0x1p-53;
    return u * max_ms;
}

/* Sleeps until t0 + ms on CLOCK_MONOTONIC (absolute: oversleeping the first
   half does not lengthen the phase). */
static void sleep_until(const struct timespec *t0, double ms)
{
    struct timespec t = *t0;
    long long ns = (long long)(ms * 1e6);

    if (ns <= 0)
        return;
    t.tv_sec += (time_t)(ns / 1000000000);
    t.tv_nsec += (long)(ns % 1000000000);
    if (t.tv_nsec >= 1000000000) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000;
    }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR)
        ;
}

/* ---- one iteration (Figure 9, lines 2-20) ---------------------------------- */

/* For tests only: PAPTREE_PAPBENCH_TEST_WRONG=RANK:ITER:INDEX adds 1 to that
   element of that rank's result in that iteration, before the check (read
   once at start-up, never in the timed part). */
static long g_wrong[3] = { -1, -1, -1 };

static void read_test_wrong(void)
{
    const char *v = getenv("PAPTREE_PAPBENCH_TEST_WRONG");

    if (v != NULL && sscanf(v, "%ld:%ld:%ld", &g_wrong[0], &g_wrong[1], &g_wrong[2]) != 3)
        g_wrong[0] = -1;
}

/* Line 17: the result against MPI_Allreduce of the same data, bit for bit. */
static void check(pb_run_t *r, const pb_row_t *row, long k, double max_ms)
{
    size_t n = r->n;

    if (g_wrong[0] == g_rank && g_wrong[1] == k && (size_t)g_wrong[2] < n)
        r->out[g_wrong[2]] += 1.0f;
    MPI_Allreduce(r->in, r->ref, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    if (memcmp(r->out, r->ref, n * sizeof(float)) == 0)
        return;
    for (size_t j = 0; j < n; j++) {
        if (memcmp(&r->out[j], &r->ref[j], sizeof(float)) == 0)
            continue;
        fprintf(stderr, "papbench: rank %d: error: wrong result: %s, %zu floats, max delay "
                "%g ms, iteration %ld, element %zu: got %.9g, expected %.9g (MPI_Allreduce "
                "of the same data)\n", g_rank, row->label, n, max_ms, k, j,
                (double)r->out[j], (double)r->ref[j]);
        break;
    }
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/*
 * Iteration k of `row` at max delay max_ms; recorded into its cell unless
 * k is a warm-up iteration.  One line of Figure 9 per step.
 */
static void papbench_iter(pb_run_t *r, pb_row_t *row, long k, double max_ms)
{
    const pb_opts_t *o = r->o;
    double half, elapsed, t0, t1, sum = 0.0, max = 0.0;
    int record = k >= o->warmup;
    struct timespec start;

    fill_data(r->in, r->n, o->seed, k);                                 /* 2 */
    half = (max_ms + o->margin_ms) / 2.0;                               /* 3 */
    half += delay_ms(o, max_ms, k) / 2.0;                               /* 4-8 */
    MPI_Barrier(MPI_COMM_WORLD);                                        /* 9 */
    MPI_Barrier(MPI_COMM_WORLD);                                        /* 10 */
    rt_exec_phase_begin(row->ex, 0);
    clock_gettime(CLOCK_MONOTONIC, &start);
    sleep_until(&start, half);                                          /* 11 */
    rt_exec_edge(row->ex, 0, 0.5);                                      /* 12 */
    sleep_until(&start, 2.0 * half);                                    /* 13 */
    row->obs.counting = record;
    t0 = MPI_Wtime();                                                   /* 14 */
    rt_exec_allreduce(row->ex, 0, 0, r->in, r->out, r->n * sizeof(float));  /* 15 */
    t1 = MPI_Wtime();                                                   /* 16 */
    check(r, row, k, max_ms);                                           /* 17 */
    elapsed = t1 - t0;                                                  /* 18 */
    MPI_Allgather(&elapsed, 1, MPI_DOUBLE, r->all, 1, MPI_DOUBLE, MPI_COMM_WORLD);  /* 19 */
    for (int i = 0; i < g_size; i++) {
        sum += r->all[i];
        max = r->all[i] > max ? r->all[i] : max;
    }
    if (record) {                                                       /* 20 */
        pb_cell_t *c = &row->cells[r->delay];
        double avg = sum / g_size * 1e3;
        c->sum += avg;
        c->sum2 += avg * avg;
        c->max_sum += max * 1e3;
        if (c->results != NULL)
            c->results[c->n] = avg;
        c->n++;
    }
}

/* ---- executors --------------------------------------------------------------- */

static const rt_hooks_t *row_hooks(pb_row_t *row)
{
    row->hooks = (rt_hooks_t){ .ud = &row->obs, .location = obs_location,
                               .visit = obs_visit, .arrival = obs_arrival };
    return &row->hooks;
}

/* Collective: the row's executor, traced into `dir` when not NULL. */
static int row_start(pb_run_t *r, pb_row_t *row, const char *dir)
{
    rt_exec_params_t p = { .tree = NULL, .ninstances = 1, .max_bytes = r->n * sizeof(float),
                           .spin_ns = -1, .yield_ns = -1, .hooks = row_hooks(row),
                           .watchdog_s = (double)r->o->watchdog_s,
                           .links = RT_LINKS_THREADS, .edge_warmup = r->o->edge_warmup };
    cm_err_t err;

    cm_err_clear(&err);
    if (dir != NULL) {
        ins_trace_opts_t t = { .dir = dir, .mem = 0, .force = r->o->force,
                               .command = r->o->command };

        if (ins_trace_open(row->pm, NULL, 1, &t, MPI_COMM_WORLD, &row->trace, &err) != CM_OK)
            return pb_report(&err, row->label);
        p.hooks = ins_trace_hooks(row->trace);
    }
    if (rt_exec_create(row->pm, &p, MPI_COMM_WORLD, &row->ex, &err) != CM_OK) {
        if (row->trace != NULL)             /* discards the archive */
            (void)ins_trace_close(row->trace, &(ins_trace_summary_t){ 0 }, &err);
        row->trace = NULL;
        return pb_report(&err, row->label);
    }
    return 0;
}

/* Collective: ends the row's executor (and writes its trace). */
static int row_stop(pb_row_t *row)
{
    ins_trace_summary_t sum;
    cm_err_t err;

    rt_exec_destroy(row->ex);
    row->ex = NULL;
    if (row->trace == NULL)
        return 0;
    cm_err_clear(&err);
    if (ins_trace_close(row->trace, &sum, &err) != CM_OK) {
        row->trace = NULL;
        return pb_report(&err, row->label);
    }
    row->trace = NULL;
    return 0;
}

/* ---- round= (PRR's tau, Clairvoyant's d) ------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/*
 * Collective: --round auto.  Ring's time per operation at this size with
 * every rank arriving together (the median over 9 operations of the
 * slowest rank's time, after 3 unmeasured), divided by its 2(P-1) rounds:
 * the time of one segment's transfer and reduction, which is what PRR's tau
 * and Clairvoyant's d are.  The same value on every rank (the maxima are
 * allreduced), so every rank builds the same pathmap text.
 */
static int calibrate_round(pb_run_t *r, int64_t *round_ns)
{
    pb_row_t ring;
    double t[12];
    int rc;

    memset(&ring, 0, sizeof(ring));
    snprintf(ring.label, sizeof(ring.label), "ring (--round auto)");
    if ((rc = pb_row_parse(r, &ring, "ring", "", 1)) != 0)
        return rc;
    if ((rc = row_start(r, &ring, NULL)) != 0) {
        rt_pathmap_destroy(ring.pm);
        return rc;
    }
    memset(r->in, 0, r->n * sizeof(float));
    for (int i = 0; i < 12; i++) {
        double t0, mine;

        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        rt_exec_allreduce(ring.ex, 0, 0, r->in, r->out, r->n * sizeof(float));
        mine = MPI_Wtime() - t0;
        MPI_Allreduce(&mine, &t[i], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    rc = row_stop(&ring);
    rt_pathmap_destroy(ring.pm);
    qsort(t + 3, 9, sizeof(double), cmp_double);
    *round_ns = (int64_t)(t[3 + 4] * 1e9 / (2.0 * (g_size - 1)));
    *round_ns = *round_ns < 1000 ? 1000 : *round_ns > 1000000000 ? 1000000000 : *round_ns;
    return rc;
}

/* ---- the measurement of one size ------------------------------------------ */

/* One cell (max delay d) for rows [first, first + count), interleaved or not. */
static void run_cell(pb_run_t *r, pb_row_t *rows, int count, double max_ms)
{
    long total = r->o->warmup + r->o->iters, block = r->o->block;

    if (!r->o->interleave || count == 1) {
        for (int j = 0; j < count; j++)
            for (long k = 0; k < total; k++)
                papbench_iter(r, &rows[j], k, max_ms);
        return;
    }
    for (long k0 = 0; k0 < total; k0 += block) {
        long kend = k0 + block < total ? k0 + block : total;

        for (int j = 0; j < count; j++) {        /* the order rotates per block */
            pb_row_t *row = &rows[(j + (int)(k0 / block)) % count];

            for (long k = k0; k < kend; k++)
                papbench_iter(r, row, k, max_ms);
        }
    }
}

/* Rank 0: one progress line on stderr per cell. */
static void progress(const pb_run_t *r, double max_ms, double t0, int cell, int ncells)
{
    if (g_rank != 0 || r->o->quiet)
        return;
    fprintf(stderr, "papbench: [%d/%d] %s, %zu floats, max delay %g ms: %d rows x (%ld + %ld) "
            "iterations, %.1f s\n", cell, ncells, r->o->rand_late ? "rand-late" : "one-late",
            r->n, max_ms, r->nrows, r->o->warmup, r->o->iters, MPI_Wtime() - t0);
}

/* Collective: --trace: the archive directory of one row and cell. */
static char *trace_dir_of(const pb_run_t *r, const pb_row_t *row, double max_ms)
{
    char name[160], *dir;
    size_t len = strlen(r->o->trace_dir) + sizeof(name) + 2;
    int i;

    snprintf(name, sizeof(name), "%s.n%zu.d%gms", row->label, r->n, max_ms);
    for (i = 0; name[i] != '\0'; i++)
        if (name[i] == '/')
            name[i] = '-';
    if ((dir = malloc(len)) != NULL)
        snprintf(dir, len, "%s/%s", r->o->trace_dir, name);
    return dir;
}

/* Collective: every delay of one size.  0, or 1 after an error (said). */
static int run_size(pb_run_t *r, int *cell)
{
    const pb_opts_t *o = r->o;
    int rc = 0, started = 0;

    for (int j = 0; j < r->nrows; j++) {
        pb_row_t *row = &r->rows[j];

        memset(row->cells, 0, (size_t)o->ndelays * sizeof(pb_cell_t));
        for (int d = 0; row->results != NULL && d < o->ndelays; d++)
            row->cells[d].results = row->results + (size_t)d * (size_t)o->iters;
    }
    if (o->trace_dir == NULL) {
        for (; started < r->nrows && rc == 0; started++)
            rc = row_start(r, &r->rows[started], NULL);
        if (rc != 0)
            started--;
    }
    for (int d = 0; d < o->ndelays && rc == 0; d++) {
        double t0 = MPI_Wtime();

        r->delay = d;
        if (o->trace_dir == NULL)
            run_cell(r, r->rows, r->nrows, o->delays[d]);
        for (int j = 0; o->trace_dir != NULL && j < r->nrows && rc == 0; j++) {
            char *dir = trace_dir_of(r, &r->rows[j], o->delays[d]);

            if (dir == NULL)
                pb_die("out of memory");
            if ((rc = row_start(r, &r->rows[j], dir)) == 0) {
                run_cell(r, &r->rows[j], 1, o->delays[d]);
                rc = row_stop(&r->rows[j]);
            }
            if (rc == 0 && g_rank == 0 && !o->quiet)
                fprintf(stderr, "papbench: trace: %s/traces.otf2\n", dir);
            free(dir);
        }
        progress(r, o->delays[d], t0, ++*cell, o->nsizes * o->ndelays);
    }
    for (int j = 0; j < started; j++)
        if (row_stop(&r->rows[j]) != 0)
            rc = 1;
    return rc;
}

/* ---- main ------------------------------------------------------------------ */

/* Collective: parses every row's pathmap for size n (round= known). */
static int parse_rows(pb_run_t *r)
{
    int rc = 0;

    for (int j = 0; j < r->nrows && rc == 0; j++) {
        pb_row_t *row = &r->rows[j];

        rt_pathmap_destroy(row->pm);
        row->pm = NULL;
        rc = row->file != NULL ? pb_row_load(r, row)
                               : pb_row_parse(r, row, row->gen->name, row->gen->params, 0);
    }
    return rc;
}

static int needs_round(const pb_run_t *r)
{
    for (int j = 0; j < r->nrows; j++)
        if (r->rows[j].gen != NULL && pb_algo_default_round(r->rows[j].gen))
            return 1;
    return 0;
}

/* Collective: the whole benchmark; the exit status. */
static int run(pb_run_t *r)
{
    const pb_opts_t *o = r->o;
    size_t nmax = 0;
    int rc = 0, cell = 0;

    for (int s = 0; s < o->nsizes; s++)
        nmax = o->sizes[s] > nmax ? o->sizes[s] : nmax;
    r->in = malloc(nmax * sizeof(float));
    r->out = malloc(nmax * sizeof(float));
    r->ref = malloc(nmax * sizeof(float));
    r->all = malloc((size_t)g_size * sizeof(double));
    if (r->in == NULL || r->out == NULL || r->ref == NULL || r->all == NULL)
        pb_die("cannot allocate 3 vectors of %zu floats", nmax);
    if (o->trace_dir != NULL && g_rank == 0 && mkdir(o->trace_dir, 0777) != 0 && errno != EEXIST)
        pb_die("--trace %s: cannot create the directory: %s", o->trace_dir, strerror(errno));
    if ((rc = pb_open_csv(r)) != 0)
        return rc;
    for (int s = 0; s < o->nsizes && rc == 0; s++) {
        r->n = o->sizes[s];
        r->round_ns = o->round_ns;
        if (r->round_ns == 0 && needs_round(r))
            rc = calibrate_round(r, &r->round_ns);
        if (rc == 0)
            rc = parse_rows(r);
        if (rc == 0)
            rc = run_size(r, &cell);
        if (rc == 0)
            pb_report_size(r);
    }
    pb_close_csv(r);
    free(r->in), free(r->out), free(r->ref), free(r->all);
    return rc;
}

int main(int argc, char **argv)
{
    pb_opts_t o;
    pb_run_t r;
    cm_opt_t ctx;
    cm_err_t err;
    int rc;

    cm_err_clear(&err);
    cm_opt_init(&ctx, "papbench");
    (void)pb_parse_args(argc, argv, &o, &ctx);
    if (rt_mpi_init(&argc, &argv, &err) != CM_OK) {
        cm_err_print(stderr, "papbench: error: ", &err);
        MPI_Finalize();
        return 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    memset(&r, 0, sizeof(r));
    r.o = &o;
    switch (rt_mpi_agree_args(MPI_COMM_WORLD, &ctx, o.help, pb_usage, PB_USAGE_LINE)) {
    case RT_ARGS_HELP: rc = -1; break;
    case RT_ARGS_BAD:  rc = 2; break;
    default:           rc = pb_build_rows(&r); break;
    }
    if (rc != 0) {
        pb_free_rows(&r);
        MPI_Finalize();
        return rc < 0 ? 0 : rc;
    }
    read_test_wrong();
    o.command = cm_argv_join(argc, argv);
    rc = run(&r) != 0;
    pb_free_rows(&r);
    free(o.command);
    fflush(stdout);
    MPI_Finalize();
    return rc;
}
