/*
 * out.c - papbench's output: one table per size in the form of Proficz
 * 2018's Tables 3 and 4 (rows: algorithm[/source]; columns: max delays;
 * each cell the average elapsed time in ms and, on the line below, the
 * speedup over ring), the CSV file of --csv, and error reports.
 *
 * Everything is printed by rank 0; the other ranks take part in the
 * reductions of the arrival counters.  Lines that describe rather than
 * measure start with '#', as in the project's OSU-style outputs.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "tools/papbench/papbench_int.h"

void pb_die(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "papbench: rank %d: error: ", g_rank);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

/* Collective: rank 0 prints err; another rank only if its message differs. */
int pb_report(const cm_err_t *err, const char *what)
{
    char mine[CM_ERR_PATH_MAX + CM_ERR_MSG_MAX + 64], first[sizeof(mine)], rank[32] = "";

    cm_err_format(err, mine, sizeof(mine));
    memcpy(first, mine, sizeof(first));
    MPI_Bcast(first, (int)sizeof(first), MPI_CHAR, 0, MPI_COMM_WORLD);
    if (g_rank != 0)
        snprintf(rank, sizeof(rank), "rank %d: ", g_rank);
    if (g_rank == 0 || strcmp(mine, first) != 0)
        fprintf(stderr, "papbench: %s%s%s%s\n", rank, what ? what : "", what ? ": " : "", mine);
    return 1;
}

/* ---- the header ------------------------------------------------------------ */

/* "Open MPI v4.1.4, ..." cut at the first newline. */
static void mpi_library(char *buf, size_t size)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;

    MPI_Get_library_version(v, &len);
    v[len < (int)sizeof(v) ? len : (int)sizeof(v) - 1] = '\0';
    v[strcspn(v, "\n")] = '\0';
    snprintf(buf, size, "%s", v);
}

/* Collective: how many ranks share rank 0's machine. */
static int ranks_on_rank0_machine(void)
{
    MPI_Comm node;
    int nnode = 1, leader, same, count = 0;

    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nnode);
    leader = g_rank;
    MPI_Bcast(&leader, 1, MPI_INT, 0, node);       /* the lowest world rank of the node */
    same = leader == 0;
    MPI_Reduce(&same, &count, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    return count;
}

/* "256 B", "4 KiB", "1.5 MiB". */
static const char *bytes_name(size_t b)
{
    static char buf[32];

    if (b >= ((size_t)1 << 20))
        snprintf(buf, sizeof(buf), "%g MiB", (double)b / (double)(1 << 20));
    else if (b >= 1024)
        snprintf(buf, sizeof(buf), "%g KiB", (double)b / 1024.0);
    else
        snprintf(buf, sizeof(buf), "%zu B", b);
    return buf;
}

static void print_header(const pb_run_t *r, int nlocal, const char *ref)
{
    const pb_opts_t *o = r->o;
    long cores = (long)rt_wait_cpus_available();   /* rank 0's affinity: what it may use */
    char lib[256];

    mpi_library(lib, sizeof(lib));
    printf("# paptree papbench: Proficz 2018, Figure 9: %s (%s), %zu floats (%s), "
           "float sum of random integers 0..15 (exact: checked bit for bit against "
           "MPI_Allreduce)\n", o->rand_late ? "rand-late" : "one-late",
           o->rand_late ? "every host delayed uniformly up to the max delay, fixed seed"
                        : "host 1 delayed by the max delay", r->n, bytes_name(r->n * 4));
    printf("# P = %d ranks = %d hosts x 1 computational thread; %d of them share this "
           "machine's %ld CPUs%s\n", g_size, g_size, nlocal, cores,
           nlocal > cores ? " (oversubscribed)" : "");
    printf("# MPI: %s\n", lib);
    printf("# %ld iterations (+ %ld warm-up) per cell, margin %g ms, seed %llu, ", o->iters,
           o->warmup, o->margin_ms, (unsigned long long)o->seed);
    if (o->trace_dir != NULL || !o->interleave)
        printf("one algorithm at a time%s\n", o->trace_dir ? " (--trace)" : "");
    else
        printf("algorithms interleaved in blocks of %ld iteration%s\n", o->block,
               o->block == 1 ? "" : "s");
    if (r->round_ns != 0)
        printf("# round= (PRR's tau, Clairvoyant's d) where not given: %lld ns%s\n",
               (long long)r->round_ns, o->round_ns ? " (--round)"
               : " (auto: ring's time at this size / 2(P-1), measured)");
    printf("# cell: average elapsed time of the allreduce in ms (over ranks, then iterations); "
           "below it the speedup over %s (e_%s / e_alg)\n", ref, ref);
}

/* ---- the table --------------------------------------------------------------- */

static double cell_mean(const pb_cell_t *c)
{
    return c->n > 0 ? c->sum / (double)c->n : NAN;
}

static double cell_stdev(const pb_cell_t *c)
{
    double m = cell_mean(c), v;

    if (c->n < 2)
        return 0.0;
    v = (c->sum2 - (double)c->n * m * m) / (double)(c->n - 1);
    return v > 0.0 ? sqrt(v) : 0.0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of results[] (sorts them; the mean of the two middle ones). */
static double cell_median(pb_cell_t *c)
{
    if (c->n == 0 || c->results == NULL)
        return NAN;
    qsort(c->results, (size_t)c->n, sizeof(double), cmp_double);
    return c->n % 2 ? c->results[c->n / 2]
                    : (c->results[c->n / 2 - 1] + c->results[c->n / 2]) / 2.0;
}

/* The reference row: ring if there is one, else the first. */
static const pb_row_t *ref_row(const pb_run_t *r)
{
    for (int j = 0; j < r->nrows; j++)
        if (r->rows[j].gen != NULL && strcmp(r->rows[j].label, "ring") == 0)
            return &r->rows[j];
    return &r->rows[0];
}

static void print_table(const pb_run_t *r, const pb_row_t *ref)
{
    const pb_opts_t *o = r->o;
    int w = 16;

    for (int j = 0; j < r->nrows; j++)
        w = (int)strlen(r->rows[j].label) + 2 > w ? (int)strlen(r->rows[j].label) + 2 : w;
    printf("# %-*s", w - 2, "Algorithm / delay");
    for (int d = 0; d < o->ndelays; d++)
        printf("%10g", o->delays[d]);
    printf("\n");
    for (int j = 0; j < r->nrows; j++) {
        const pb_row_t *row = &r->rows[j];

        printf("%-*s", w, row->label);
        for (int d = 0; d < o->ndelays; d++)
            printf("%10.3f", cell_mean(&row->cells[d]));
        printf("\n%-*s", w, "");
        for (int d = 0; d < o->ndelays; d++)
            printf("%10.2f", cell_mean(&ref->cells[d]) / cell_mean(&row->cells[d]));
        printf("\n");
    }
}

/* Collective: per PAP-aware row, where its schedules' arrival times came
   from (the arrival hook; not when traced: the trace has it). */
static void print_sources(pb_run_t *r)
{
    for (int j = 0; j < r->nrows; j++) {
        pb_obs_t *ob = &r->rows[j].obs, s;
        uint64_t mine[3] = { ob->reports, ob->fallbacks, ob->nerr }, all[3];
        double emax = 0.0, esum = 0.0;

        MPI_Reduce(mine, all, 3, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Reduce(&ob->err_sum_ns, &esum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Reduce(&ob->err_max_ns, &emax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        memset(&s, 0, sizeof(s));
        *ob = s;
        if (g_rank != 0 || !r->rows[j].pap || r->o->trace_dir != NULL)
            continue;
        printf("# %s: arrival=%s asked in %llu host-operations, another source used in %llu",
               r->rows[j].label, r->rows[j].source, (unsigned long long)all[0],
               (unsigned long long)all[1]);
        if (all[2] > 0)
            printf("; estimation error |e|: mean %.1f us, max %.1f us over %llu estimates",
                   esum / (double)all[2] / 1e3, emax / 1e3, (unsigned long long)all[2]);
        printf("\n");
    }
}

/* ---- CSV ----------------------------------------------------------------------- */

int pb_open_csv(pb_run_t *r)
{
    int ok = 1, all;

    if (r->o->csv != NULL && g_rank == 0) {
        if ((r->csv = fopen(r->o->csv, "w")) == NULL) {
            fprintf(stderr, "papbench: error: --csv %s: cannot open: ", r->o->csv);
            perror(NULL);
            ok = 0;
        } else {
            fprintf(r->csv, "mode,ranks,floats,label,algorithm,arrival,max_delay_ms,margin_ms,"
                    "iterations,avg_ms,stdev_ms,median_ms,slowest_rank_ms,speedup,reference,"
                    "round_ns\n");
        }
    }
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all ? 0 : 1;
}

void pb_close_csv(pb_run_t *r)
{
    if (r->csv != NULL && fclose(r->csv) != 0)
        fprintf(stderr, "papbench: error: --csv %s: write failed\n", r->o->csv);
    r->csv = NULL;
}

static void write_csv(pb_run_t *r, const pb_row_t *ref)
{
    const pb_opts_t *o = r->o;

    for (int j = 0; r->csv != NULL && j < r->nrows; j++) {
        const pb_row_t *row = &r->rows[j];

        for (int d = 0; d < o->ndelays; d++) {
            pb_cell_t *c = &row->cells[d];

            fprintf(r->csv, "%s,%d,%zu,%s,%s,%s,%g,%g,%ld,%.6f,%.6f,%.6f,%.6f,%.4f,%s,%lld\n",
                    o->rand_late ? "rand-late" : "one-late", g_size, r->n, row->label,
                    row->algo, row->source, o->delays[d], o->margin_ms, c->n, cell_mean(c),
                    cell_stdev(c), cell_median(c), c->n ? c->max_sum / (double)c->n : NAN,
                    cell_mean(&ref->cells[d]) / cell_mean(c), ref->label,
                    (long long)r->round_ns);
        }
    }
    if (r->csv != NULL)
        fflush(r->csv);
}

void pb_report_size(pb_run_t *r)
{
    const pb_row_t *ref = ref_row(r);
    int nlocal = ranks_on_rank0_machine();

    if (g_rank == 0) {
        print_header(r, nlocal, ref->label);
        print_table(r, ref);
    }
    print_sources(r);
    if (g_rank == 0) {
        write_csv(r, ref);
        printf("\n");
        fflush(stdout);
    }
}
