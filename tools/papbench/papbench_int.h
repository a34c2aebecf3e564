/*
 * papbench_int.h - what the parts of bin/papbench share (tools/papbench.c: the
 * measurement; args.c: the options; rows.c: the algorithms as pathmaps;
 * out.c: the tables, the CSV file and error reports).
 *
 * A *row* is one algorithm with one arrival source (or one --pathmap file):
 * a line pair of the output table, one pathmap, one executor.  A *cell* is
 * a row at one max delay: the mean over the iterations of Figure 9's
 * per-iteration average elapsed time.
 */
#ifndef PAPBENCH_INT_H
#define PAPBENCH_INT_H

#include <stdint.h>
#include <stdio.h>
#include "instrument/api/ins_trace.h"
#include "runtime/api/rt_exec.h"

#define PB_LIST_MAX   32                    /* items of a list option */
#define PB_ROWS_MAX   64
#define PB_ELEMS_MAX  ((size_t)1 << 28)     /* 1 GiB of floats: the runtime's largest tuple */
#define PB_DELAY_MAX  10000.0               /* ms, a max delay or the margin */
#define PB_USAGE_LINE "usage: mpirun -np P papbench [--algo LIST] [--pathmap FILE]... " \
    "[--sizes BYTES,...] [--mode one-late|rand-late] [--delays LIST] [--arrival LIST] " \
    "[options] (papbench --help)"
#define PB_RESULTS_MAX ((size_t)8 << 20)    /* results[i] kept per row (for medians) */

/* An --algo item: a run= name and the user's parameters (" key=value ..."). */
typedef struct pb_algo {
    char name[32];
    char params[256];
} pb_algo_t;

typedef struct pb_opts {
    pb_algo_t    algos[PB_LIST_MAX];
    int          nalgos;
    const char  *pathmaps[PB_LIST_MAX];
    int          npathmaps;
    size_t       sizes[PB_LIST_MAX];        /* floats (--sizes gives bytes) */
    int          nsizes;
    double       delays[PB_LIST_MAX];       /* ms */
    int          ndelays;
    rt_arrival_t arrivals[3];
    int          narrivals;
    long         iters, warmup, block, watchdog_s;
    int          rand_late, interleave, force, quiet, edge_warmup, help;
    int          algo_given;                /* --algo given (else --pathmap alone) */
    double       margin_ms;
    uint64_t     seed;
    int64_t      round_ns;                  /* --round; 0 = auto */
    const char  *trace_dir, *csv;
    char        *command;                   /* argv, for the traces */
} pb_opts_t;

/* What the arrival hook saw (measured iterations only), this rank. */
typedef struct pb_obs {
    int      counting;                      /* the current operation is measured */
    uint64_t reports, fallbacks, nerr;      /* fallbacks: used source != asked */
    double   err_sum_ns, err_max_ns;        /* |estimated - actual arrival| (edge) */
} pb_obs_t;

typedef struct pb_cell {
    double sum, sum2;                       /* of Figure 9's results[i], ms */
    double max_sum;                         /* of the slowest rank's elapsed time, ms */
    long   n;
    double *results;                        /* results[i] (for the median), or NULL */
} pb_cell_t;

typedef struct pb_row {
    char             label[96];             /* "prr/edge", "ring", a file's name */
    char             algo[64];              /* run= (clv: "clv+binomial-bcast") or the file */
    const char      *source;                /* arrival= of a PAP-aware node, or "-" */
    const pb_algo_t *gen;                   /* built from --algo, or NULL */
    const char      *file;                  /* --pathmap, or NULL */
    rt_arrival_t     arrival;
    int              pap;
    rt_pathmap_t    *pm;
    rt_exec_t       *ex;
    ins_trace_t     *trace;
    rt_hooks_t       hooks;
    pb_obs_t         obs;
    pb_cell_t       *cells;                 /* [ndelays] of the current size */
    double          *results;               /* [ndelays][iters] behind cells' results */
} pb_row_t;

typedef struct pb_run {
    const pb_opts_t *o;
    pb_row_t         rows[PB_ROWS_MAX];
    int              nrows;
    size_t           n;                     /* the current size, elements */
    int              delay;                 /* the current delay's index */
    int64_t          round_ns;              /* round= of this size */
    float           *in, *out, *ref;
    double          *all;                   /* [P] elapsed times */
    FILE            *csv;
} pb_run_t;

extern int g_rank, g_size;

/* args.c: every option into o (o->help: --help was given); an error is
   kept in ctx for rt_mpi_agree_args. */
cm_status_t pb_parse_args(int argc, char **argv, pb_opts_t *o, cm_opt_t *ctx);
void pb_usage(FILE *fp);
void pb_usage_line(FILE *fp);               /* PB_USAGE_LINE and a newline */

/* rows.c.  Collective: the rows of --algo and --pathmap; 0, 2 for a bad option,
   1 for another error (said). */
int  pb_build_rows(pb_run_t *r);
void pb_free_rows(pb_run_t *r);
/* Collective: parses the pathmap of algorithm `name` with the user's params
   for size r->n (round= r->round_ns); plain: no arrival=.  0 or 1 (said). */
int  pb_row_parse(pb_run_t *r, pb_row_t *row, const char *name, const char *params,
                  int plain);
/* Collective: loads row->file and checks its tree.  0 or 1 (said). */
int  pb_row_load(pb_run_t *r, pb_row_t *row);
/* The algorithm reads round= and the user did not give one. */
int  pb_algo_default_round(const pb_algo_t *a);

/* out.c */
int  pb_open_csv(pb_run_t *r);              /* collective; 0 or 1 */
void pb_close_csv(pb_run_t *r);
void pb_report_size(pb_run_t *r);           /* collective: the table of r->n */
/* Collective failure of a step whose err is set the same on every rank:
   rank 0 prints it; returns 1. */
int  pb_report(const cm_err_t *err, const char *what);
void pb_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif /* PAPBENCH_INT_H */
