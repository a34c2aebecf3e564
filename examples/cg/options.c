/*
 * options.c - cg's command line (cg_int.h): every option parsed and checked
 * for range here, so that a bad one stops the program before any tree.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static char g_perr[512];

static int perr(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int perr(const char *fmt, ...)
{
    va_list ap;

    if (g_perr[0] == '\0') {
        va_start(ap, fmt);
        vsnprintf(g_perr, sizeof(g_perr), fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int parse_long(const char *opt, const char *s, long min, long max, long *v)
{
    char *end;

    errno = 0;
    *v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || errno != 0 || *v < min || *v > max)
        return perr("%s: '%s' is not an integer in %ld..%ld", opt, s, min, max);
    return 0;
}

static int parse_double(const char *opt, const char *s, double min, double max, double *v)
{
    char *end;

    errno = 0;
    *v = strtod(s, &end);
    if (*s == '\0' || *end != '\0' || errno != 0 || !(*v >= min && *v <= max))
        return perr("%s: '%s' is not a number in %g..%g", opt, s, min, max);
    return 0;
}

/* NX or NXxNY, each 2..4096. */
static int parse_grid(const char *s, cg_opts_t *o)
{
    char a[32], *x;

    if (strlen(s) >= sizeof(a))
        return perr("--grid: '%s' is not NX or NXxNY", s);
    strcpy(a, s);
    x = strchr(a, 'x');
    if (x != NULL)
        *x = '\0';
    if (parse_long("--grid", a, 2, 4096, &o->grid.nx) != 0)
        return -1;
    o->grid.ny = o->grid.nx;
    return x == NULL ? 0 : parse_long("--grid", x + 1, 2, 4096, &o->grid.ny);
}

/* W:W:... positive weights. */
static int parse_split(const char *s, cg_opts_t *o)
{
    char buf[64];

    o->nweights = 0;
    for (const char *p = s;; ) {
        size_t len = strcspn(p, ":");

        if (len == 0 || len >= sizeof(buf))
            return perr("--split: '%s' is not a list of weights like 1:1.5:2", s);
        if (o->nweights == CG_MAX_WEIGHTS)
            return perr("--split: more than %d weights", CG_MAX_WEIGHTS);
        snprintf(buf, sizeof(buf), "%.*s", (int)len, p);
        if (parse_double("--split", buf, 1e-3, 1e6, &o->weights[o->nweights++]) != 0)
            return -1;
        if (p[len] == '\0')
            return 0;
        p += len + 1;
    }
}

const char *cg_parse_error(void)
{
    return g_perr;
}

int cg_parse_args(int argc, char **argv, cg_opts_t *o)
{
    static const struct option lo[] = {
        { "pathmap", 1, 0, 'p' }, { "threads", 1, 0, 'T' }, { "grid", 1, 0, 'g' },
        { "split", 1, 0, 'S' }, { "tol", 1, 0, 'e' }, { "max-iter", 1, 0, 'm' },
        { "trace", 1, 0, 'R' }, { "force", 0, 0, 'F' }, { "save-x", 1, 0, 'X' },
        { "warmup", 1, 0, 'w' }, { "repeat", 1, 0, 'r' }, { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
    int c, rc = 0, threads_set = 0;

    memset(o, 0, sizeof(*o));
    o->grid.nx = o->grid.ny = 256;
    o->threads = 2;
    o->tol = 1e-8;
    o->max_iter = 10000;
    o->warmup = 50;
    o->repeat = 3;
    opterr = 0;
    while (rc == 0 && (c = getopt_long(argc, argv, ":p:g:w:r:h", lo, NULL)) != -1) {
        switch (c) {
        case 'p':
            if (o->npathmaps == CG_MAX_PATHMAPS)
                rc = perr("--pathmap: at most %d", CG_MAX_PATHMAPS);
            else
                o->pathmaps[o->npathmaps++] = optarg;
            break;
        case 'T': rc = parse_long("--threads", optarg, 1, 256, &o->threads); threads_set = 1; break;
        case 'g': rc = parse_grid(optarg, o); break;
        case 'S': rc = parse_split(optarg, o); break;
        case 'e': rc = parse_double("--tol", optarg, 1e-12, 0.1, &o->tol); break;
        case 'm': rc = parse_long("--max-iter", optarg, 1, 1000000, &o->max_iter); break;
        case 'R': o->trace_dir = optarg; break;
        case 'F': o->force = 1; break;
        case 'X': o->save_x = optarg; break;
        case 'w': rc = parse_long("--warmup", optarg, 0, 1000000, &o->warmup); break;
        case 'r': rc = parse_long("--repeat", optarg, 1, 1000, &o->repeat); break;
        case 'h': return 1;
        case ':': rc = perr("option '%s' requires an argument", argv[optind - 1]); break;
        default:
            rc = optopt ? perr("unknown option '-%c'", optopt)
                        : perr("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (rc == 0 && optind < argc)
        rc = perr("unexpected argument '%s'", argv[optind]);
    if (rc == 0 && threads_set && o->npathmaps > 0)
        rc = perr("--threads shapes the built-in trees; a pathmap says its own threads");
    if (rc == 0 && o->force && o->trace_dir == NULL)
        rc = perr("--force needs --trace DIR");
    return rc;
}
