/*
 * cg_int.h - the parts of examples/cg.c that know nothing of pathmaps: the
 * problem (a grid's 5-point Laplacian, its exact solution, the serial
 * reference solve and the residual oracle, problem.c) and the halo exchange
 * between ranks (halo.c).
 *
 * Rows are numbered i = y*nx + x on an nx x ny grid; A has 4 on the
 * diagonal and -1 for each of the (up to four) grid neighbours.
 */
#ifndef CG_INT_H
#define CG_INT_H

#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include "common/cm_opt.h"

typedef struct cg_grid {
    long nx, ny;
} cg_grid_t;

#define CG_MAX_PATHMAPS 8
#define CG_MAX_WEIGHTS  256

typedef struct cg_opts {
    cg_grid_t   grid;                /* --grid */
    long        threads, max_iter, warmup, repeat;
    double      tol;
    double      weights[CG_MAX_WEIGHTS];
    int         nweights;            /* 0: the default 1 : 1.5 : 2 : ... */
    const char *pathmaps[CG_MAX_PATHMAPS];
    int         npathmaps;           /* 0: the built-in trees */
    const char *trace_dir, *save_x;
    int         force;
    int         threads_set;         /* --threads given */
    int         help;                /* -h, --help: the rest not parsed */
    char       *command;
} cg_opts_t;

/* options.c: every option into o (o->help: --help was given); an error is
   kept in ctx for rt_mpi_agree_args. */
cm_status_t cg_parse_args(int argc, char **argv, cg_opts_t *o, cm_opt_t *ctx);
void        cg_usage(FILE *fp);

/* x*(i): (x^2 + 3y^2 + xy) mod 13 - 6, small integers (so b = A x* is exact),
   not periodic (so CG needs many iterations, as for a real right-hand side). */
double cg_exact(const cg_grid_t *g, size_t i);

/* w = A v on rows [lo, hi), adding v.v and (Av).v of those rows to dots[0..1]. */
void cg_matvec(const cg_grid_t *g, const double *v, double *w, size_t lo, size_t hi,
               double dots[2]);

/* The grid neighbours of row i (2 to 4 of them), in nb; returns how many. */
int cg_neighbours(const cg_grid_t *g, size_t i, size_t nb[4]);

/*
 * The oracle: ||b - A x||_2 computed by grid coordinates (not by
 * cg_matvec), and in *slack a bound on this computation's own rounding, so
 * that the true residual is at most the sum of the two.
 */
double cg_true_residual(const cg_grid_t *g, const double *b, const double *x, double *slack);

/* The smallest eigenvalue of A, in closed form. */
double cg_lambda_min(const cg_grid_t *g);

/* Textbook CG from x = 0 until ||r|| <= tol ||b||: iterations, -1 if out of memory. */
long cg_serial(const cg_grid_t *g, const double *b, double *x, double tol, long max_iter);

/* max_i |a_i - b_i| (b NULL: max |a_i|). */
double cg_max_abs_diff(const double *a, const double *b, size_t n);

/* What a rank sends to and receives from one other rank. */
typedef struct cg_peer {
    int     rank;
    size_t  nsend, nrecv;
    size_t *send_idx, *recv_idx;     /* rows, ascending */
    double *sbuf, *rbuf;
} cg_peer_t;

typedef struct cg_halo {
    MPI_Comm   comm;                 /* a duplicate of the one given */
    cg_peer_t *peers;                /* only ranks with rows to swap */
    int        npeers;
} cg_halo_t;

/*
 * owner[i] is the rank of row i.  Each rank sends the rows it owns that a
 * row of another rank needs (a neighbour), and receives the reverse; every
 * rank computes both lists from owner[] alone.  Collective (MPI_Comm_dup).
 * 0, or -1 out of memory (the halo is then freed).
 */
int  cg_halo_make(cg_halo_t *h, const cg_grid_t *g, const int *owner, MPI_Comm comm);
/* Collective: fills v's rows owned by other ranks that this rank needs. */
void cg_halo_exchange(cg_halo_t *h, double *v);
void cg_halo_free(cg_halo_t *h);

#endif /* CG_INT_H */
