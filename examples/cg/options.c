/*
 * options.c - cg's command line (cg_int.h): every option parsed and checked
 * for range here (through cm_opt, so an error reads "cg: OPTION: what is
 * wrong, expected RANGE"), so that a bad one stops the program before any
 * tree.
 */
#include <stdio.h>
#include <string.h>
#include "common/cm_opt.h"
#include "examples/cg/cg_int.h"

void cg_usage(FILE *fp)
{
    fprintf(fp,
"usage: mpirun -np HOSTS cg [options]\n"
"Conjugate gradient on the 5-point Laplacian of a grid, rows split unevenly\n"
"over the threads of a pathmap tree; each iteration's dot products (one tuple\n"
"of doubles) go through the tree.  Solves on each tree, checks every answer\n"
"against a serial CG and the exact solution, prints the time per iteration.\n"
"  -p, --pathmap FILE  run every tree of FILE (type=double op=sum, one rank\n"
"                      per host); repeatable, at most 8.  Default: built-in\n"
"                      trees for -np hosts x --threads, a gred per host under\n"
"                      an algorithm node: prr arrival=edge, ring, native\n"
"      --threads T     threads per host of the built-in trees (default 2)\n"
"  -g, --grid NXxNY    grid size (default 256x256; NX alone: a square)\n"
"      --split W:W:..  row weights of the threads in thread-id order, repeated\n"
"                      when there are more threads (default 1:1.5:2:2.5:...)\n"
"      --tol X         stop at ||r|| <= X ||b||, 1e-12..0.1 (default 1e-8)\n"
"      --max-iter N    give up after N iterations (default 10000)\n"
"  -w, --warmup N      reductions of zeros before each solve, untimed: a\n"
"                      process's first operations are slow (default 50)\n"
"  -r, --repeat R      solve R times on each tree, the trees in turn; every\n"
"                      answer is checked, the table shows the fastest (default 3)\n"
"      --trace DIR     trace the first solve on each tree into DIR/TREE\n"
"                      (traces.otf2 inside; for papanalyze and papviz)\n"
"      --force         replace existing archives under DIR\n"
"      --save-x DIR    rank 0 writes each solve's x to DIR/TREE.x, one value a\n"
"                      line (%%.17g), for a check of its own\n"
"  -h, --help          this text\n"
"Exit: 0 solved and checked, 1 a failed check or run, 2 a bad option.\n");
}

/* NX or NXxNY, each 2..4096. */
static cm_status_t parse_grid(cm_opt_t *ctx, const char *s, cg_opts_t *o)
{
    long v[2];
    size_t n;
    cm_status_t st = cm_opt_long_list(ctx, "--grid", s, 'x', 2, 4096, v, 2, &n);

    if (st != CM_OK)
        return st;
    o->grid.nx = v[0];
    o->grid.ny = n == 2 ? v[1] : v[0];
    return CM_OK;
}

/* W:W:... positive weights. */
static cm_status_t parse_split(cm_opt_t *ctx, const char *s, cg_opts_t *o)
{
    size_t n;
    cm_status_t st = cm_opt_double_list(ctx, "--split", s, ':', 1e-3, 1e6, o->weights,
                                        CG_MAX_WEIGHTS, &n);

    if (st == CM_OK)
        o->nweights = (int)n;
    return st;
}

/* One option (c from getopt_long) with its argument. */
static cm_status_t parse_one(cm_opt_t *ctx, cg_opts_t *o, int c, const char *arg)
{
    switch (c) {
    case 'h': o->help = 1; return CM_OK;  /* ends the loop: the rest is not judged */
    case 'p':
        return cm_opt_append(ctx, "--pathmap", arg, o->pathmaps, &o->npathmaps,
                             CG_MAX_PATHMAPS);
    case 'T': o->threads_set = 1; return cm_opt_long(ctx, "--threads", arg, 1, 256, &o->threads);
    case 'g': return parse_grid(ctx, arg, o);
    case 'S': return parse_split(ctx, arg, o);
    case 'e': return cm_opt_double(ctx, "--tol", arg, 1e-12, 0.1, &o->tol);
    case 'm': return cm_opt_long(ctx, "--max-iter", arg, 1, 1000000, &o->max_iter);
    case 'R': o->trace_dir = arg; return CM_OK;
    case 'F': o->force = 1; return CM_OK;
    case 'X': o->save_x = arg; return CM_OK;
    case 'w': return cm_opt_long(ctx, "--warmup", arg, 0, 1000000, &o->warmup);
    default:  return cm_opt_long(ctx, "--repeat", arg, 1, 1000, &o->repeat);
    }
}

static void defaults(cg_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    o->grid.nx = o->grid.ny = 256;
    o->threads = 2;
    o->tol = 1e-8;
    o->max_iter = 10000;
    o->warmup = 50;
    o->repeat = 3;
}

cm_status_t cg_parse_args(int argc, char **argv, cg_opts_t *o, cm_opt_t *ctx)
{
    static const struct option lo[] = {
        { "pathmap", 1, 0, 'p' }, { "threads", 1, 0, 'T' }, { "grid", 1, 0, 'g' },
        { "split", 1, 0, 'S' }, { "tol", 1, 0, 'e' }, { "max-iter", 1, 0, 'm' },
        { "trace", 1, 0, 'R' }, { "force", 0, 0, 'F' }, { "save-x", 1, 0, 'X' },
        { "warmup", 1, 0, 'w' }, { "repeat", 1, 0, 'r' }, { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
    const char *opt;
    int c;

    defaults(o);
    while (!o->help && (c = cm_opt_next(ctx, argc, argv, ":p:g:w:r:h", lo, &opt)) != -1)
        parse_one(ctx, o, c, optarg);
    if (o->help || cm_opt_no_operands(ctx, argc, argv) != CM_OK)
        return ctx->status;
    if (o->threads_set && o->npathmaps > 0)
        return cm_opt_fail(ctx, CM_ERR_INVALID, NULL, "--threads shapes the built-in trees; a "
                           "pathmap says its own threads");
    if (o->force && o->trace_dir == NULL)
        return cm_opt_fail(ctx, CM_ERR_INVALID, NULL, "--force needs --trace DIR");
    return CM_OK;
}
