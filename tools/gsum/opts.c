/*
 * opts.c - gsum's options: the usage text and the parsing (every value
 * through cm_opt, so each error reads "gsum: OPTION: what, expected
 * RANGE").  Every rank parses before MPI starts (--native picks the thread
 * level); main then agrees on the outcome with rt_mpi_agree_args.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "tools/gsum/gsum_int.h"

void gsum_usage(FILE *fp)
{
    fprintf(fp,
"usage: mpirun -np HOSTS gsum -p PATHMAP [options]\n"
"       mpirun -np RANKS gsum --native [options]\n"
"The allreduce benchmark of the PATHS paper: every thread of the pathmap's\n"
"tree makes N allreduces alternating between two instances of the tree; each\n"
"result is verified.  Prints OSU-style rows: time per allreduce over threads.\n"
"  -p, --pathmap FILE    pathmap to run (docs/pathmap.md); one rank per host\n"
"  -t, --tree NAME       tree of the pathmap (default: the first)\n"
"  -n, --iterations N    allreduces per thread, measured (default 10000)\n"
"  -w, --warmup N        allreduces before measuring (default 100)\n"
"  -s, --size LIST       tuple bytes, comma-separated, each a multiple of the\n"
"                        element size (default 4; the paper used 4 and 256);\n"
"                        at most 32 sizes of up to 1G, K/M/G suffixes allowed\n"
"      --links HOW       who runs the far side of a proxy link: threads (default:\n"
"                        the computational threads waiting in the tree) or services\n"
"                        (one service thread per link and tree instance, the PATHS\n"
"                        paper's model, kept for comparison); every rank the same\n"
"      --native          one contributor per rank calling MPI_Allreduce\n"
"      --type T          element type with --native: int32 (default), int64, double, float\n"
"      --op OP           reduction with --native: sum (default), min, max\n"
"      --spin-ns N       wait budget: spin this long before yielding\n"
"      --yield-ns N      then yield this long before blocking (default: auto)\n"
"      --watchdog S      if threads inside the tree make no progress for S seconds,\n"
"                        print where each waits on every rank and abort the job\n"
"                        (default 60; 0 = off)\n"
"      --trace DIR       record every wrapper visit into the OTF2 archive DIR\n"
"                        (anchor DIR/traces.otf2; see docs/trace-format.md)\n"
"      --trace-mem SIZE  memory for buffered events per rank, e.g. 512K, 64M, 2G\n"
"                        (default 64M, more for many threads: 1M each, at most\n"
"                        1/4 of RAM); when full a thread writes its events out\n"
"                        and goes on (a flush, reported at the end)\n"
"      --force           replace an existing archive at DIR\n"
"  -h, --help            this text\n"
"Threads of one rank need CPUs of their own to be fast: with 2 ranks or fewer\n"
"Open MPI binds each rank to one core, so add 'mpirun --bind-to none'.\n");
}


const char *const gsum_links_names[2] = { "threads", "services" };

/* --native's --type; float is not offered (a float's integers end at 2^24). */
static const cm_opt_word_t g_types[] = {
    { "int32", RT_DTYPE_INT32 }, { "int64", RT_DTYPE_INT64 }, { "double", RT_DTYPE_DOUBLE } };
static const cm_opt_word_t g_ops[] = {
    { "sum", RT_OP_SUM }, { "min", RT_OP_MIN }, { "max", RT_OP_MAX } };
static const cm_opt_word_t g_links[] = {
    { "threads", RT_LINKS_THREADS }, { "services", RT_LINKS_SERVICES } };

/* -s LIST: 1..32 sizes, each 1 byte..1 GiB. */
static cm_status_t parse_sizes(cm_opt_t *ctx, const char *list, gsum_opts_t *o)
{
    uint64_t v[GSUM_SIZES_MAX];
    size_t n;
    cm_status_t st = cm_opt_size_list(ctx, "-s", list, ',', 1, GSUM_TUPLE_MAX, v,
                                      GSUM_SIZES_MAX, &n);

    if (st != CM_OK)
        return st;
    o->nsizes = (int)n;
    for (size_t i = 0; i < n; i++)
        o->sizes[i] = (size_t)v[i];
    return CM_OK;
}

/* An int option 0..INT_MAX into an int64_t. */
static cm_status_t parse_ns(cm_opt_t *ctx, const char *opt, const char *arg, int64_t *v_p)
{
    long v;
    cm_status_t st = cm_opt_long(ctx, opt, arg, 0, INT_MAX, &v);

    if (st == CM_OK)
        *v_p = v;
    return st;
}

/* One option (c from getopt_long) with its argument. */
static cm_status_t parse_one(cm_opt_t *ctx, gsum_opts_t *o, int c, const char *arg)
{
    uint64_t bytes;
    cm_status_t st;
    int e;

    switch (c) {
    case 'h': o->help = 1; return CM_OK;  /* ends the loop: the rest is not judged */
    case 'p': o->pathmap = arg; return CM_OK;
    case 't': o->tree = arg; return CM_OK;
    case 'n': return cm_opt_long(ctx, "-n", arg, 1, INT_MAX, &o->iters);
    case 'w': return cm_opt_long(ctx, "-w", arg, 0, INT_MAX, &o->warmup);
    case 's': return parse_sizes(ctx, arg, o);
    case 'N': o->native = 1; return CM_OK;
    case 'T':
        st = cm_opt_word(ctx, "--type", arg, g_types, 3, &e);
        o->dtype = st == CM_OK ? (rt_dtype_t)e : o->dtype;
        return st;
    case 'O':
        st = cm_opt_word(ctx, "--op", arg, g_ops, 3, &e);
        o->op = st == CM_OK ? (rt_op_t)e : o->op;
        return st;
    case 'S': return parse_ns(ctx, "--spin-ns", arg, &o->spin_ns);
    case 'Y': return parse_ns(ctx, "--yield-ns", arg, &o->yield_ns);
    case 'R': o->trace_dir = arg; return CM_OK;
    case 'M':
        st = cm_opt_size(ctx, "--trace-mem", arg, 1, SIZE_MAX, &bytes);
        o->trace_mem = st == CM_OK ? (size_t)bytes : 0;
        return st;
    case 'F': o->force = 1; return CM_OK;
    case 'L':
        st = cm_opt_word(ctx, "--links", arg, g_links, 2, &e);
        o->links = st == CM_OK ? (rt_links_t)e : o->links;
        o->links_set = 1;
        return st;
    default:  return cm_opt_long(ctx, "--watchdog", arg, 0, 7 * 24 * 3600, &o->watchdog_s);
    }
}

/* What the options say together. */
static cm_status_t check_combination(cm_opt_t *ctx, const gsum_opts_t *o)
{
    if (!o->native == !o->pathmap)
        return cm_opt_fail(ctx, CM_ERR_INVALID, NULL, "give either -p PATHMAP or --native");
    if (o->native && (o->trace_dir || o->trace_mem || o->force))
        return cm_opt_fail(ctx, CM_ERR_INVALID, NULL, "--trace, --trace-mem and --force trace "
                           "a pathmap's tree; they do not apply to --native");
    if (o->native && o->links_set)
        return cm_opt_fail(ctx, CM_ERR_INVALID, NULL, "--links chooses who serves a pathmap's "
                           "proxy links; it does not apply to --native");
    if (!o->trace_dir && (o->trace_mem || o->force))
        return cm_opt_fail(ctx, CM_ERR_INVALID, NULL, "--trace-mem and --force need --trace DIR");
    return CM_OK;
}

static void defaults(gsum_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    o->iters = 10000;
    o->warmup = 100;
    o->sizes[0] = 4;
    o->nsizes = 1;
    o->spin_ns = o->yield_ns = -1;
    o->watchdog_s = 60;
}

cm_status_t gsum_parse_args(int argc, char **argv, gsum_opts_t *o, cm_opt_t *ctx)
{
    static const struct option longopts[] = {
        { "pathmap", 1, 0, 'p' }, { "tree", 1, 0, 't' }, { "iterations", 1, 0, 'n' },
        { "warmup", 1, 0, 'w' }, { "size", 1, 0, 's' }, { "native", 0, 0, 'N' },
        { "type", 1, 0, 'T' }, { "op", 1, 0, 'O' }, { "spin-ns", 1, 0, 'S' },
        { "yield-ns", 1, 0, 'Y' }, { "trace", 1, 0, 'R' }, { "trace-mem", 1, 0, 'M' },
        { "force", 0, 0, 'F' }, { "watchdog", 1, 0, 'D' }, { "links", 1, 0, 'L' },
        { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
    const char *opt;
    int c;

    defaults(o);
    while (!o->help && (c = cm_opt_next(ctx, argc, argv, ":p:t:n:w:s:h", longopts, &opt)) != -1)
        parse_one(ctx, o, c, optarg);
    if (o->help || cm_opt_no_operands(ctx, argc, argv) != CM_OK)
        return ctx->status;
    return check_combination(ctx, o);
}
