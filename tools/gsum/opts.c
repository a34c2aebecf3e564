/*
 * opts.c - gsum's options: the usage text, parsing, and the agreement on whether every
 * rank could parse its own (an MPMD launch gives ranks different options).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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


/*
 * This rank's first option error.  Options are parsed on every rank before
 * MPI starts (--native picks the thread level) and agreed on right after it
 * has (agree_parse), so a rank whose own arguments are wrong (an MPMD
 * launch) stops the others too.
 */
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

/* An integer min..max; above max (or beyond a long) says what the maximum is. */
static int parse_long(const char *opt, const char *s, long min, long max, long *v)
{
    char *end;
    long x;

    errno = 0;
    x = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || x < min || (errno == ERANGE && x == LONG_MIN))
        return perr("%s: '%s' is not an integer >= %ld", opt, s, min);
    if (x > max || errno == ERANGE)
        return perr("%s: '%s' is too large: at most %ld", opt, s, max);
    *v = x;
    return 0;
}

/*
 * A byte count with an optional K, M or G suffix (powers of 1024; KiB, MiB
 * and GiB too).  0 ok, -1 not such a number, -2 more than SIZE_MAX.
 */
int gsum_scan_bytes(const char *s, size_t *v)
{
    char *end;
    unsigned long long n;
    int shift = 0;

    errno = 0;
    n = strtoull(s, &end, 10);
    if (*end == 'K' || *end == 'k') shift = 10, end++;
    else if (*end == 'M' || *end == 'm') shift = 20, end++;
    else if (*end == 'G' || *end == 'g') shift = 30, end++;
    if (shift != 0 && strcmp(end, "iB") == 0)
        end += 2;
    if (end == s || *end != '\0' || s[0] == '-' || s[0] == '+' || s[0] == ' ' || n == 0)
        return -1;
    if (errno == ERANGE || n > (SIZE_MAX >> shift))
        return -2;
    *v = (size_t)n << shift;
    return 0;
}

/* "1GiB", "512MiB", "4KiB" when exact, else the number of bytes. */
const char *gsum_size_name(size_t bytes, char *buf, size_t size)
{
    if (bytes >= ((size_t)1 << 30) && bytes % ((size_t)1 << 30) == 0)
        snprintf(buf, size, "%zuGiB", bytes >> 30);
    else if (bytes >= ((size_t)1 << 20) && bytes % ((size_t)1 << 20) == 0)
        snprintf(buf, size, "%zuMiB", bytes >> 20);
    else if (bytes >= 1024 && bytes % 1024 == 0)
        snprintf(buf, size, "%zuKiB", bytes >> 10);
    else
        snprintf(buf, size, "%zu", bytes);
    return buf;
}

static int parse_bytes(const char *opt, const char *s, size_t *v)
{
    int rc = gsum_scan_bytes(s, v);

    if (rc == -2)
        return perr("%s: '%s' is not a size: too large, at most %zu bytes", opt, s,
                    (size_t)SIZE_MAX);
    if (rc != 0)
        return perr("%s: '%s' is not a size (a positive number, optionally followed by "
                    "K, M or G)", opt, s);
    return 0;
}

/* -s LIST: 1..32 sizes, each 1 byte..1 GiB; says which item is wrong. */
static int parse_sizes(gsum_opts_t *o, const char *list)
{
    const char *p = list;
    int count = 1;
    char name[32];

    for (const char *c = list; *c; c++)
        count += *c == ',';
    o->nsizes = 0;
    for (int pos = 1; ; pos++) {
        size_t len = strcspn(p, ","), v = 0;
        char item[64];
        int rc;

        if (len == 0)
            return perr("-s: empty item at position %d of '%s'", pos, list);
        if (pos > GSUM_SIZES_MAX)
            return perr("-s: %d sizes; at most %d", count, GSUM_SIZES_MAX);
        snprintf(item, sizeof(item), "%.*s", (int)len, p);
        rc = len < sizeof(item) ? gsum_scan_bytes(item, &v) : -2;
        if (rc == -1)
            return perr("-s: '%s' is not an integer >= 1 (bytes, optionally followed by "
                        "K, M or G)", item);
        if (rc == -2 || v > GSUM_TUPLE_MAX)
            return perr("-s: '%s' is too large: at most %zu (%s)", item, GSUM_TUPLE_MAX,
                        gsum_size_name(GSUM_TUPLE_MAX, name, sizeof(name)));
        o->sizes[o->nsizes++] = v;
        if (p[len] == '\0')
            return 0;
        p += len + 1;
    }
}

static int parse_enum(const char *opt, const char *s, const char *const *names,
                      int *value)
{
    for (int i = 0; i < 3; i++) {
        if (strcmp(s, names[i]) == 0) {
            *value = i;
            return 0;
        }
    }
    return perr("%s: unknown '%s' (expected %s, %s or %s)", opt, s, names[0], names[1],
                names[2]);
}

const char *const gsum_links_names[2] = { "threads", "services" };

/* --links threads|services. */
static int parse_links(const char *s, gsum_opts_t *o)
{
    for (int i = 0; i < 2; i++) {
        if (strcmp(s, gsum_links_names[i]) == 0) {
            o->links = i == 0 ? RT_LINKS_THREADS : RT_LINKS_SERVICES;
            o->links_set = 1;
            return 0;
        }
    }
    return perr("--links: unknown '%s' (expected threads or services)", s);
}

/* 0 ok, 1 --help, -1 error (in g_perr, printed after agree_parse). */
int gsum_parse_args(int argc, char **argv, gsum_opts_t *o)
{
    static const struct option longopts[] = {
        { "pathmap", 1, 0, 'p' }, { "tree", 1, 0, 't' }, { "iterations", 1, 0, 'n' },
        { "warmup", 1, 0, 'w' }, { "size", 1, 0, 's' }, { "native", 0, 0, 'N' },
        { "type", 1, 0, 'T' }, { "op", 1, 0, 'O' }, { "spin-ns", 1, 0, 'S' },
        { "yield-ns", 1, 0, 'Y' }, { "trace", 1, 0, 'R' }, { "trace-mem", 1, 0, 'M' },
        { "force", 0, 0, 'F' }, { "watchdog", 1, 0, 'D' }, { "links", 1, 0, 'L' },
        { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
    static const char *const types[] = { "int32", "int64", "double", "float" };
    static const char *const ops[] = { "sum", "min", "max" };
    int c, rc = 0, e;
    long v;

    memset(o, 0, sizeof(*o));
    o->iters = 10000;
    o->warmup = 100;
    o->sizes[0] = 4;
    o->nsizes = 1;
    o->spin_ns = o->yield_ns = -1;
    o->watchdog_s = 60;
    opterr = 0;                         /* our messages, through perr */
    while (rc == 0 && (c = getopt_long(argc, argv, ":p:t:n:w:s:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'p': o->pathmap = optarg; break;
        case 't': o->tree = optarg; break;
        case 'n': rc = parse_long("-n", optarg, 1, INT_MAX, &o->iters); break;
        case 'w': rc = parse_long("-w", optarg, 0, INT_MAX, &o->warmup); break;
        case 's': rc = parse_sizes(o, optarg); break;
        case 'N': o->native = 1; break;
        case 'T': rc = parse_enum("--type", optarg, types, &e); o->dtype = (rt_dtype_t)e; break;
        case 'O': rc = parse_enum("--op", optarg, ops, &e); o->op = (rt_op_t)e; break;
        case 'S': rc = parse_long("--spin-ns", optarg, 0, INT_MAX, &v); o->spin_ns = v; break;
        case 'Y': rc = parse_long("--yield-ns", optarg, 0, INT_MAX, &v); o->yield_ns = v; break;
        case 'R': o->trace_dir = optarg; break;
        case 'M': rc = parse_bytes("--trace-mem", optarg, &o->trace_mem); break;
        case 'F': o->force = 1; break;
        case 'L': rc = parse_links(optarg, o); break;
        case 'D': rc = parse_long("--watchdog", optarg, 0, 7 * 24 * 3600, &o->watchdog_s); break;
        case 'h': return 1;
        case ':': rc = perr("option '%s' requires an argument", argv[optind - 1]); break;
        default:
            if (optopt != 0)
                rc = perr("unknown option '-%c'", optopt);
            else
                rc = perr("unknown option '%s'", argv[optind - 1]);
            break;
        }
    }
    if (rc == 0 && optind < argc)
        rc = perr("unexpected argument '%s'", argv[optind]);
    if (rc == 0 && !o->native == !o->pathmap)
        rc = perr("give either -p PATHMAP or --native");
    if (rc == 0 && o->native && (o->trace_dir || o->trace_mem || o->force))
        rc = perr("--trace, --trace-mem and --force trace a pathmap's tree; they do not "
                  "apply to --native");
    if (rc == 0 && o->native && o->links_set)
        rc = perr("--links chooses who serves a pathmap's proxy links; it does not apply "
                  "to --native");
    if (rc == 0 && !o->trace_dir && (o->trace_mem || o->force))
        rc = perr("--trace-mem and --force need --trace DIR");
    return rc;
}

/* ---- agreement across ranks ---------------------------------------- */

/*
 * Collective, right after parse_args on every rank (MPI is up, so a rank
 * that failed is not gone): 0 run, 1 --help was given (its lowest rank
 * printed the usage), 2 some rank's options are wrong.  The lowest failing
 * rank prints its message and 'try --help'; another failing rank prints its
 * own only if it differs; every other rank names the rank that failed.
 */
int gsum_agree_parse(int rc)
{
    int mine[4] = { rc >= 0, g_rank, rc != 1, g_rank }, low[4];
    char first[sizeof(g_perr)];

    MPI_Allreduce(mine, low, 2, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD);
    if (low[0] == 0) {                  /* low[1]: the lowest failing rank */
        memcpy(first, g_perr, sizeof(first));
        MPI_Bcast(first, (int)sizeof(first), MPI_CHAR, low[1], MPI_COMM_WORLD);
        if (rc < 0 && (g_rank == low[1] || strcmp(g_perr, first) != 0))
            fprintf(stderr, "gsum: rank %d: %s\n", g_rank, g_perr);
        else if (rc >= 0)
            fprintf(stderr, "gsum: rank %d: rank %d could not parse its options (see its "
                    "message); giving up\n", g_rank, low[1]);
        if (g_rank == low[1])
            fprintf(stderr, "gsum: try 'gsum --help'\n");
        return 2;
    }
    if (low[2] == 0) {                  /* low[3]: the lowest rank given --help */
        if (g_rank == low[3])
            gsum_usage(stdout);
        return 1;
    }
    return 0;
}
