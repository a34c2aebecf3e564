/*
 * gsum - the allreduce benchmark of the PATHS paper (Figure 7).
 *
 *   mpirun -np H bin/gsum -p PATHMAP [-n N] [-w W] [-s 4,256] [--links threads|services]
 *   mpirun -np T bin/gsum --native  [-n N] [-w W] [-s 4,256]
 *
 * Every computational thread of the pathmap's tree (one MPI rank per host)
 * meets at a barrier, then makes N allreduces alternating between two
 * identical instances of the tree.  Every result is compared with its
 * closed-form value, and a wrong one aborts the job.  --native runs the
 * same loop with one contributor per rank calling MPI_Allreduce: the
 * baseline a user would otherwise pick.  --links picks who serves the
 * proxy links (rt_exec.h): the threads waiting in the tree, or one service
 * thread per link as in the PATHS paper, so that both can be compared.
 *
 * Contributions: thread t's element j in operation k is t + 1 + c with
 * c = (k mod V + j) mod 64, so results change from one operation to the
 * next (a stale result is caught) and the expected value is closed-form:
 * sum = sum(t + 1) + T c, min = min(t) + 1 + c, max = max(t) + 1 + c.  The
 * V input and expected tuples are built before timing (V = 64, fewer for
 * tuples over 64 KiB) so the timed loop only copies and compares.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/cm_argv.h"
#include "instrument/api/ins_trace.h"
#include "runtime/api/rt_exec.h"

#define GSUM_SIZES_MAX 32
#define GSUM_VARIANTS  64
#define GSUM_TUPLE_MAX ((size_t)1 << 30)   /* the runtime's largest tuple */

typedef struct gsum_opts {
    const char *pathmap, *tree;
    long        iters, warmup;
    size_t      sizes[GSUM_SIZES_MAX];
    int         nsizes;
    int         native;
    rt_dtype_t  dtype;           /* --native only; else the tree's */
    rt_op_t     op;
    int64_t     spin_ns, yield_ns;
    long        watchdog_s;      /* --watchdog; 0 = none */
    rt_links_t  links;           /* --links */
    int         links_set;       /* --links given (refused with --native) */
    const char *trace_dir;       /* --trace */
    size_t      trace_mem;       /* --trace-mem; 0 = default */
    int         force;
    char       *command;         /* argv, for the trace */
} gsum_opts_t;

/* What every thread of one rank shares while running. */
typedef struct gsum_run {
    const gsum_opts_t *o;
    rt_exec_t         *ex;
    rt_dtype_t         dtype;
    rt_op_t            op;
    uint64_t           sum_ids;  /* sum of (t + 1) over the tree's threads */
    uint32_t           nthreads, min_id, max_id;
    pthread_barrier_t  barrier;  /* local threads + main */
    unsigned char     *expected; /* [V][bytes] of the current size */
    size_t             bytes;
    unsigned           variants;
    double            *elapsed;  /* [local][size] seconds */
    ins_trace_t       *trace;    /* or NULL */
    uint64_t           flush_mark, loop_flushes;
    char               links_line[512]; /* rank 0: the "# links:" header line */
} gsum_run_t;

typedef struct gsum_thread {
    gsum_run_t    *run;
    uint32_t       local;
    uint32_t       id;
    unsigned char *in;           /* [V][max bytes] */
    unsigned char *out;
    pthread_t      thread;
} gsum_thread_t;

static int g_rank;

static void usage(FILE *fp)
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
static int scan_bytes(const char *s, size_t *v)
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
static const char *size_name(size_t bytes, char *buf, size_t size)
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
    int rc = scan_bytes(s, v);

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
        rc = len < sizeof(item) ? scan_bytes(item, &v) : -2;
        if (rc == -1)
            return perr("-s: '%s' is not an integer >= 1 (bytes, optionally followed by "
                        "K, M or G)", item);
        if (rc == -2 || v > GSUM_TUPLE_MAX)
            return perr("-s: '%s' is too large: at most %zu (%s)", item, GSUM_TUPLE_MAX,
                        size_name(GSUM_TUPLE_MAX, name, sizeof(name)));
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

static const char *const g_links_names[] = { "threads", "services" };

/* --links threads|services. */
static int parse_links(const char *s, gsum_opts_t *o)
{
    for (int i = 0; i < 2; i++) {
        if (strcmp(s, g_links_names[i]) == 0) {
            o->links = i == 0 ? RT_LINKS_THREADS : RT_LINKS_SERVICES;
            o->links_set = 1;
            return 0;
        }
    }
    return perr("--links: unknown '%s' (expected threads or services)", s);
}

/* 0 ok, 1 --help, -1 error (in g_perr, printed after agree_parse). */
static int parse_args(int argc, char **argv, gsum_opts_t *o)
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
static int agree_parse(int rc)
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
            usage(stdout);
        return 1;
    }
    return 0;
}

/* What must be the same on every rank, in a form that MPI can gather. */
typedef struct gsum_agreed {
    int64_t  native, iters, warmup, dtype, op, trace, links, nsizes;
    uint64_t sizes[GSUM_SIZES_MAX];
    uint64_t tree_hash;                 /* of the whole -t name */
    char     tree[64];                  /* "" = the first tree; shown cut to 63 bytes */
} gsum_agreed_t;

enum { AG_MODE, AG_TREE, AG_ITERS, AG_WARMUP, AG_SIZES, AG_TYPE, AG_OP, AG_TRACE, AG_LINKS,
       AG_N };

static void agreed_of(const gsum_opts_t *o, gsum_agreed_t *a)
{
    memset(a, 0, sizeof(*a));
    a->native = o->native;
    a->iters = o->iters;
    a->warmup = o->warmup;
    a->dtype = o->dtype;
    a->op = o->op;
    a->trace = o->trace_dir != NULL;
    a->links = o->links;
    a->nsizes = o->nsizes;
    for (int i = 0; i < o->nsizes; i++)
        a->sizes[i] = o->sizes[i];
    snprintf(a->tree, sizeof(a->tree), "%s", o->tree ? o->tree : "");
    a->tree_hash = rt_hash_fnv1a(o->tree ? o->tree : "", o->tree ? strlen(o->tree) : 0);
}

static int agreed_same(const gsum_agreed_t *a, const gsum_agreed_t *b, int field)
{
    switch (field) {
    case AG_MODE:   return a->native == b->native;
    case AG_TREE:   return a->native || b->native || a->tree_hash == b->tree_hash;
    case AG_ITERS:  return a->iters == b->iters;
    case AG_WARMUP: return a->warmup == b->warmup;
    case AG_SIZES:  return a->nsizes == b->nsizes &&
                           memcmp(a->sizes, b->sizes, sizeof(a->sizes)) == 0;
    case AG_TYPE:   return !a->native || !b->native || a->dtype == b->dtype;
    case AG_OP:     return !a->native || !b->native || a->op == b->op;
    case AG_LINKS:  return a->native || b->native || a->links == b->links;
    default:        return a->trace == b->trace;
    }
}

/* The option as the user would write it: "-n 500", "-s 4,256". */
static const char *agreed_text(const gsum_agreed_t *a, int field, char *buf, size_t size)
{
    static const char *const types[] = { "int32", "int64", "double", "float" };
    static const char *const ops[] = { "sum", "min", "max" };
    size_t len;
    char name[32];

    switch (field) {
    case AG_MODE:   snprintf(buf, size, "%s", a->native ? "--native" : "-p (a pathmap)"); break;
    case AG_TREE:   snprintf(buf, size, "-t %s", a->tree[0] ? a->tree : "(the first tree)"); break;
    case AG_ITERS:  snprintf(buf, size, "-n %lld", (long long)a->iters); break;
    case AG_WARMUP: snprintf(buf, size, "-w %lld", (long long)a->warmup); break;
    case AG_TYPE:   snprintf(buf, size, "--type %s", types[a->dtype % 4]); break;
    case AG_OP:     snprintf(buf, size, "--op %s", ops[a->op % 3]); break;
    case AG_TRACE:  snprintf(buf, size, "%s", a->trace ? "--trace" : "no --trace"); break;
    case AG_LINKS:  snprintf(buf, size, "--links %s", g_links_names[a->links != 0]); break;
    default:
        len = (size_t)snprintf(buf, size, "-s ");
        for (int64_t i = 0; i < a->nsizes && len < size; i++)
            len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? "," : "",
                                    size_name((size_t)a->sizes[i], name, sizeof(name)));
        break;
    }
    return buf;
}

/*
 * Collective: every rank compares its options with rank 0's and says, for
 * each option that differs somewhere, which rank differs and how.  0 when
 * all agree.  (The pathmap is compared by content later, by rt_exec_create:
 * ranks may read it from different paths.)
 */
static int agree_options(const gsum_opts_t *o)
{
    gsum_agreed_t mine, *all;
    int size, differ = 0;
    char a[640], b[640];

    MPI_Comm_size(MPI_COMM_WORLD, &size);
    agreed_of(o, &mine);
    if ((all = malloc((size_t)size * sizeof(*all))) == NULL) {
        fprintf(stderr, "gsum: rank %d: out of memory comparing options\n", g_rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Allgather(&mine, (int)sizeof(mine), MPI_BYTE, all, (int)sizeof(mine), MPI_BYTE,
                  MPI_COMM_WORLD);
    for (int f = 0; f < AG_N; f++) {
        int r = 1;

        while (r < size && agreed_same(&all[0], &all[r], f))
            r++;
        if (r == size)
            continue;
        differ = 1;
        if (!agreed_same(&all[0], &mine, f))
            fprintf(stderr, "gsum: rank %d: %s differs from rank 0's %s\n", g_rank,
                    agreed_text(&mine, f, a, sizeof(a)), agreed_text(&all[0], f, b, sizeof(b)));
        else
            fprintf(stderr, "gsum: rank %d: rank %d's %s differs from rank 0's %s\n", g_rank,
                    r, agreed_text(&all[r], f, a, sizeof(a)),
                    agreed_text(&all[0], f, b, sizeof(b)));
    }
    if (differ && g_rank == 0)
        fprintf(stderr, "gsum: give every rank the same options\n");
    free(all);
    return differ;
}

/* ---- contributions and expected results ---------------------------- */

static void put_value(rt_dtype_t dtype, void *buf, size_t j, uint64_t v)
{
    if (dtype == RT_DTYPE_INT32)
        ((uint32_t *)buf)[j] = (uint32_t)v;
    else if (dtype == RT_DTYPE_INT64)
        ((uint64_t *)buf)[j] = v;
    else if (dtype == RT_DTYPE_FLOAT)
        ((float *)buf)[j] = (float)v;   /* exact: every value and sum < 2^24 */
    else
        ((double *)buf)[j] = (double)v;
}

static unsigned variants_for(size_t bytes)
{
    size_t v = ((size_t)4 << 20) / (bytes * GSUM_VARIANTS);
    return v >= GSUM_VARIANTS ? GSUM_VARIANTS : v < 2 ? 2 : (unsigned)v;
}

/* Thread `id`'s V input tuples of `bytes`. */
static void fill_inputs(const gsum_run_t *r, uint32_t id, unsigned char *in)
{
    size_t elem = rt_dtype_size(r->dtype), n = r->bytes / elem;

    for (unsigned v = 0; v < r->variants; v++) {
        for (size_t j = 0; j < n; j++)
            put_value(r->dtype, in + v * r->bytes, j, id + 1 + ((v + j) % 64));
    }
}

/*
 * For tests only: PAPTREE_GSUM_TEST_WRONG=1 makes every expected value off
 * by one, so that every thread finds a wrong result in its first operation
 * at the same moment (tests/mpi/gsum-wrong-result.sh).  Read here, where
 * the expected tuples are built, never in the timed loop.
 */
static uint64_t test_wrong_offset(void)
{
    const char *v = getenv("PAPTREE_GSUM_TEST_WRONG");

    return v != NULL && strcmp(v, "1") == 0;
}

static void fill_expected(gsum_run_t *r)
{
    size_t elem = rt_dtype_size(r->dtype), n = r->bytes / elem;
    uint64_t off = test_wrong_offset();

    for (unsigned v = 0; v < r->variants; v++) {
        for (size_t j = 0; j < n; j++) {
            uint64_t c = (v + j) % 64, x;
            if (r->op == RT_OP_SUM)
                x = r->sum_ids + (uint64_t)r->nthreads * c;
            else
                x = (r->op == RT_OP_MIN ? r->min_id : r->max_id) + 1 + c;
            put_value(r->dtype, r->expected + v * r->bytes, j, x + off);
        }
    }
}

/*
 * The first thread of this rank to find a wrong result reports it and
 * aborts the job; any other thread that finds one meanwhile waits for the
 * abort to end the process: two threads inside MPI_Abort at once can crash
 * Open MPI, and one report is what the user needs.
 */
static atomic_int g_wrong;

static void wait_for_abort(void)
{
    for (;;)
        pause();
}

static void verify(const gsum_run_t *r, uint32_t id, long k, const void *out)
{
    const unsigned char *want = r->expected + (size_t)(k % r->variants) * r->bytes;
    size_t elem = rt_dtype_size(r->dtype);

    if (memcmp(out, want, r->bytes) == 0)
        return;
    if (atomic_exchange(&g_wrong, 1) != 0)
        wait_for_abort();
    for (size_t j = 0; j < r->bytes / elem; j++) {
        if (memcmp((const char *)out + j * elem, want + j * elem, elem) == 0)
            continue;
        fprintf(stderr, "gsum: rank %d: thread %u, operation %ld, element %zu: wrong "
                "result (%s %s over %u threads): got 0x%llx, expected 0x%llx\n",
                g_rank, id, k, j, rt_dtype_name(r->dtype), rt_op_name(r->op),
                r->nthreads, elem == 4 ? (unsigned long long)((const uint32_t *)out)[j]
                                       : (unsigned long long)((const uint64_t *)out)[j],
                elem == 4 ? (unsigned long long)((const uint32_t *)want)[j]
                          : (unsigned long long)((const uint64_t *)want)[j]);
        break;
    }
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

/*
 * Collective: 0 when every rank's step succeeded.  Otherwise -1 everywhere;
 * a failing rank has said why, and the others name the first that failed.
 */
static int agree_all(cm_status_t st)
{
    char prefix[32];
    cm_err_t err;

    cm_err_clear(&err);
    if (rt_mpi_agree(MPI_COMM_WORLD, st, &err) == CM_OK)
        return 0;
    snprintf(prefix, sizeof(prefix), "gsum: rank %d: ", g_rank);
    if (st == CM_OK)
        cm_err_print(stderr, prefix, &err);
    return -1;
}

/* ---- memory --------------------------------------------------------- */

/* "3.0 GiB", "512.0 MiB": amounts of memory in messages. */
static const char *mem_name(uint64_t bytes, char *buf, size_t size)
{
    if (bytes >= ((uint64_t)1 << 30))
        snprintf(buf, size, "%.1f GiB", (double)bytes / (double)((uint64_t)1 << 30));
    else if (bytes >= ((uint64_t)1 << 20))
        snprintf(buf, size, "%.1f MiB", (double)bytes / (double)((uint64_t)1 << 20));
    else
        snprintf(buf, size, "%.1f KiB", (double)bytes / 1024.0);
    return buf;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/*
 * Gsum's own tuple buffers, sized for the sizes of -s: a thread's inputs
 * (and the expected results) hold V variants of a size, its output one
 * tuple.  V falls with the size (variants_for), so the largest size does
 * not always need the most.
 */
static void tuple_buffers(const gsum_opts_t *o, size_t *in_p, size_t *out_p)
{
    size_t in = 0, out = 0;

    for (int s = 0; s < o->nsizes; s++) {
        size_t b = o->sizes[s], v = variants_for(b) * b;
        in = v > in ? v : in;
        out = b > out ? b : out;
    }
    *in_p = in;
    *out_p = out;
}

/* The machine's memory; for tests only, PAPTREE_GSUM_TEST_MEM stands in. */
static uint64_t machine_memory(void)
{
    const char *v = getenv("PAPTREE_GSUM_TEST_MEM");
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    size_t n;

    if (v != NULL && scan_bytes(v, &n) == 0)
        return n;
    return pages > 0 && psize > 0 ? (uint64_t)pages * (uint64_t)psize : UINT64_MAX;
}

/* What one rank needs, by kind. */
typedef struct gsum_need {
    uint32_t threads;            /* contributors on this rank */
    uint64_t per_thread;         /* inputs + output */
    uint64_t expected;
    uint64_t tree;               /* rt_tree_tuple_bytes; none with --native */
    uint64_t trace;              /* --trace-mem */
} gsum_need_t;

/*
 * Collective, before anything large is allocated: when the ranks on one
 * machine need more memory together than it has, each of them says what
 * it needs, the others name the first, and all return -1 (exit 1).
 */
static int check_memory(const gsum_opts_t *o, size_t max_bytes, const gsum_need_t *n)
{
    uint64_t need = sat_add(sat_add(sat_mul(n->threads, n->per_thread), n->expected),
                            sat_add(n->tree, n->trace));
    uint64_t node_need = need, have = machine_memory();
    int nnode = 1;
    MPI_Comm node;
    cm_status_t st = CM_OK;
    char a[32], b[32], c[32], d[32], e[32], f[32], g[32], size[32];

    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                            &node) == MPI_SUCCESS) {
        MPI_Allreduce(&need, &node_need, 1, MPI_UINT64_T, MPI_SUM, node);
        MPI_Comm_size(node, &nnode);
        MPI_Comm_free(&node);
    }
    if (node_need > have) {
        char tail[160], tree[96] = "", trace[96] = "";

        if (!o->native)
            snprintf(tree, sizeof(tree), " + %s of tree buffers", mem_name(n->tree, c, sizeof(c)));
        if (n->trace != 0)
            snprintf(trace, sizeof(trace), " + %s of trace buffers",
                     mem_name(n->trace, d, sizeof(d)));
        if (nnode > 1)
            snprintf(tail, sizeof(tail), "the %d ranks on this machine need %s together, and "
                     "it has %s", nnode, mem_name(node_need, e, sizeof(e)),
                     mem_name(have, f, sizeof(f)));
        else
            snprintf(tail, sizeof(tail), "this machine has %s", mem_name(have, f, sizeof(f)));
        fprintf(stderr, "gsum: -s %s needs %s of memory on rank %d (%u thread%s x %s of tuples "
                "+ %s of expected results%s%s); %s\n", size_name(max_bytes, size, sizeof(size)),
                mem_name(need, g, sizeof(g)), g_rank, n->threads, n->threads == 1 ? "" : "s",
                mem_name(n->per_thread, a, sizeof(a)), mem_name(n->expected, b, sizeof(b)),
                tree, trace, tail);
        st = CM_ERR_NOMEM;
    }
    return agree_all(st);
}

/* malloc that says which buffer of how many bytes it could not get. */
static void *gsum_alloc(size_t bytes, const char *what, long thread)
{
    void *p = malloc(bytes ? bytes : 1);
    char m[32];

    if (p == NULL) {
        if (thread >= 0)
            fprintf(stderr, "gsum: rank %d: cannot allocate thread %ld's %s (%s): %s\n", g_rank,
                    thread, what, mem_name(bytes, m, sizeof(m)), strerror(errno));
        else
            fprintf(stderr, "gsum: rank %d: cannot allocate the %s (%s): %s\n", g_rank, what,
                    mem_name(bytes, m, sizeof(m)), strerror(errno));
    }
    return p;
}

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
        fill_inputs(r, th->id, th->in);
        for (long i = 0; i < r->o->warmup; i++, k++) {
            rt_exec_allreduce(r->ex, th->local, (unsigned)(k & 1),
                              th->in + (size_t)(k % r->variants) * r->bytes, th->out, r->bytes);
            verify(r, th->id, k, th->out);
        }
        barrier_all(r, 0, MARK_LOOP_START);
        t0 = MPI_Wtime();
        for (long i = 0; i < r->o->iters; i++, k++) {
            rt_exec_allreduce(r->ex, th->local, (unsigned)(k & 1),
                              th->in + (size_t)(k % r->variants) * r->bytes, th->out, r->bytes);
            verify(r, th->id, k, th->out);
        }
        r->elapsed[(size_t)th->local * r->o->nsizes + s] = MPI_Wtime() - t0;
        barrier_all(r, 0, MARK_LOOP_END);   /* main may now change the size */
    }
    return NULL;
}

/* Rank 0 prints one row: per-thread time per allreduce, over all threads. */
static void report_row(const gsum_opts_t *o, size_t bytes, const double *per_op,
                       uint32_t n)
{
    double mine[3] = { INFINITY, 0.0, 0.0 }, all[3];
    double mn[1], mx[1], sum[1];
    uint32_t count = 0;

    for (uint32_t i = 0; i < n; i++) {
        mine[0] = fmin(mine[0], per_op[i]);
        mine[1] = fmax(mine[1], per_op[i]);
        mine[2] += per_op[i];
    }
    MPI_Reduce(&mine[0], mn, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine[1], mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine[2], sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&n, &count, 1, MPI_UINT32_T, MPI_SUM, 0, MPI_COMM_WORLD);
    all[0] = mn[0], all[1] = mx[0], all[2] = sum[0];
    if (g_rank == 0)
        printf("%-10zu%18.2f%18.2f%18.2f%14ld\n", bytes, all[2] / count * 1e6,
               all[0] * 1e6, all[1] * 1e6, o->iters);
}

static void print_header(void)
{
    if (g_rank == 0)
        printf("# %-8s%18s%18s%18s%14s\n", "Size", "Avg Latency(us)", "Min Latency(us)",
               "Max Latency(us)", "Iterations");
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
                           g_links_names[o->links != RT_LINKS_THREADS],
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

static int check_sizes(const gsum_opts_t *o, rt_dtype_t dtype, size_t *max_p)
{
    size_t elem = rt_dtype_size(dtype);

    *max_p = 0;
    for (int s = 0; s < o->nsizes; s++) {
        if (o->sizes[s] % elem != 0) {
            if (g_rank == 0)
                fprintf(stderr, "gsum: -s %zu is not a multiple of the %zu-byte %s "
                        "element\n", o->sizes[s], elem, rt_dtype_name(dtype));
            return -1;
        }
        if (o->sizes[s] > *max_p)
            *max_p = o->sizes[s];
    }
    return 0;
}

/*
 * Every thread's tuples and the expected results, before any thread starts
 * (so that a failure can still be agreed on); each failure names its buffer.
 */
static cm_status_t alloc_tuples(gsum_run_t *r, gsum_thread_t *th, uint32_t nlocal)
{
    size_t in, out;

    tuple_buffers(r->o, &in, &out);
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
        r->variants = variants_for(r->bytes);
        fill_expected(r);
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

    tuple_buffers(o, &in, &out);
    for (uint32_t i = 0; i < t->nthreads; i++)
        need.threads += t->threads[i].host == (rt_host_id_t)g_rank;
    need.per_thread = (uint64_t)in + out;
    need.expected = in;
    need.tree = rt_tree_tuple_bytes(t, (rt_host_id_t)g_rank, params->ninstances,
                                    params->max_bytes);
    if (o->trace_dir != NULL)
        need.trace = o->trace_mem ? o->trace_mem : INS_TRACE_MEM_DEFAULT;
    return check_memory(o, params->max_bytes, &need);
}

static int run_tree(const gsum_opts_t *o)
{
    rt_exec_params_t params = { .tree = o->tree, .ninstances = 2, .spin_ns = o->spin_ns,
                                .yield_ns = o->yield_ns, .watchdog_s = (double)o->watchdog_s,
                                .links = o->links };
    rt_pathmap_t *pm = NULL;
    gsum_run_t r;
    gsum_thread_t *th;
    cm_err_t err;
    cm_status_t st;
    uint32_t nlocal;
    double *per_op;
    char prefix[32];
    int rc;

    cm_err_clear(&err);
    snprintf(prefix, sizeof(prefix), "gsum: rank %d: ", g_rank);
    st = rt_pathmap_load(o->pathmap, &pm, &err);
    if (st == CM_OK && rt_pathmap_tree(pm, o->tree) != NULL &&
        check_sizes(o, rt_pathmap_tree(pm, o->tree)->dtype, &params.max_bytes) != 0)
        st = CM_ERR(&err, CM_ERR_INVALID, "invalid -s (see above)");
    if (st == CM_OK)
        st = rt_pathmap_tree(pm, o->tree) ? CM_OK :
             CM_ERR(&err, CM_ERR_NAME, "pathmap '%s' has no tree '%s'", o->pathmap, o->tree);
    if (st == CM_OK)
        st = check_float_exact(rt_pathmap_tree(pm, o->tree), &err);
    if (st != CM_OK)
        cm_err_print(stderr, prefix, &err);
    if (agree_all(st) != 0) {
        rt_pathmap_destroy(pm);
        return 1;
    }
    if (check_tree_memory(o, pm, &params) != 0) {
        rt_pathmap_destroy(pm);
        return 1;
    }
    memset(&r, 0, sizeof(r));
    r.o = o;
    if (o->trace_dir != NULL) {
        ins_trace_opts_t topts = { o->trace_dir, o->trace_mem, o->force, o->command };

        if (ins_trace_open(pm, o->tree, params.ninstances, &topts, MPI_COMM_WORLD, &r.trace,
                           &err) != CM_OK) {
            cm_err_print(stderr, prefix, &err);
            rt_pathmap_destroy(pm);
            return 1;
        }
        params.hooks = ins_trace_hooks(r.trace);
    }
    if (rt_exec_create(pm, &params, MPI_COMM_WORLD, &r.ex, &err) != CM_OK) {
        cm_err_print(stderr, prefix, &err);
        if (r.trace != NULL)                  /* discards the archive */
            (void)ins_trace_close(r.trace, &(ins_trace_summary_t){ 0 }, &err);
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
    if (agree_all(st) != 0) {
        free_tuples(&r, th, nlocal);
        free(per_op);
        free(r.elapsed);
        free(th);
        rt_exec_destroy(r.ex);
        if (r.trace != NULL)                  /* discards the archive */
            (void)ins_trace_close(r.trace, &(ins_trace_summary_t){ 0 }, &err);
        rt_pathmap_destroy(pm);
        return 1;
    }
    pthread_barrier_init(&r.barrier, NULL, nlocal + 1);
    run_threads(&r, th, nlocal);
    free_tuples(&r, th, nlocal);
    rt_exec_destroy(r.ex);
    print_header();
    for (int s = 0; s < o->nsizes; s++) {
        for (uint32_t i = 0; i < nlocal; i++)
            per_op[i] = r.elapsed[(size_t)i * o->nsizes + s] / (double)o->iters;
        report_row(o, o->sizes[s], per_op, nlocal);
    }
    rc = r.trace != NULL ? close_trace(o, &r, prefix) : 0;
    free(per_op);
    pthread_barrier_destroy(&r.barrier);
    free(r.elapsed);
    free(th);
    rt_pathmap_destroy(pm);
    return rc;
}

/* ---- the native baseline -------------------------------------------- */

static MPI_Datatype native_type(rt_dtype_t dtype)
{
    return dtype == RT_DTYPE_INT32 ? MPI_INT32_T :
           dtype == RT_DTYPE_INT64 ? MPI_INT64_T :
           dtype == RT_DTYPE_FLOAT ? MPI_FLOAT : MPI_DOUBLE;
}

static MPI_Op native_op(rt_op_t op)
{
    return op == RT_OP_SUM ? MPI_SUM : op == RT_OP_MIN ? MPI_MIN : MPI_MAX;
}

static double native_size(gsum_run_t *r, MPI_Comm comm[2], unsigned char *in,
                          unsigned char *out)
{
    int count = (int)(r->bytes / rt_dtype_size(r->dtype));
    long k = 0;
    double t0;

    r->variants = variants_for(r->bytes);
    fill_expected(r);
    fill_inputs(r, (uint32_t)g_rank, in);
    MPI_Barrier(MPI_COMM_WORLD);
    for (long i = 0; i < r->o->warmup; i++, k++) {
        MPI_Allreduce(in + (size_t)(k % r->variants) * r->bytes, out, count,
                      native_type(r->dtype), native_op(r->op), comm[k & 1]);
        verify(r, (uint32_t)g_rank, k, out);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (long i = 0; i < r->o->iters; i++, k++) {
        MPI_Allreduce(in + (size_t)(k % r->variants) * r->bytes, out, count,
                      native_type(r->dtype), native_op(r->op), comm[k & 1]);
        verify(r, (uint32_t)g_rank, k, out);
    }
    return (MPI_Wtime() - t0) / (double)r->o->iters;
}

/* The level MPI runs at, as MPI names it. */
static const char *thread_level_name(void)
{
    int level = MPI_THREAD_SINGLE;

    MPI_Query_thread(&level);
    return level == MPI_THREAD_SINGLE ? "MPI_THREAD_SINGLE" :
           level == MPI_THREAD_FUNNELED ? "MPI_THREAD_FUNNELED" :
           level == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED" : "MPI_THREAD_MULTIPLE";
}

static int run_native(const gsum_opts_t *o)
{
    gsum_run_t r;
    MPI_Comm comm[2];
    unsigned char *in = NULL, *out = NULL;
    gsum_need_t need = { 1, 0, 0, 0, 0 };
    size_t maxb, in_b, out_b;
    cm_status_t st = CM_OK;
    int size;

    if (check_sizes(o, o->dtype, &maxb) != 0)
        return 1;
    tuple_buffers(o, &in_b, &out_b);
    need.per_thread = (uint64_t)in_b + out_b;
    need.expected = in_b;
    if (check_memory(o, maxb, &need) != 0)
        return 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    memset(&r, 0, sizeof(r));
    r.o = o;
    r.dtype = o->dtype;
    r.op = o->op;
    r.nthreads = (uint32_t)size;
    r.min_id = 0;
    r.max_id = (uint32_t)size - 1;
    r.sum_ids = (uint64_t)size * (uint64_t)(size + 1) / 2;
    if ((in = gsum_alloc(in_b, "input tuples", g_rank)) == NULL ||
        (out = gsum_alloc(out_b, "result tuple", g_rank)) == NULL ||
        (r.expected = gsum_alloc(in_b, "expected results", -1)) == NULL)
        st = CM_ERR_NOMEM;
    if (agree_all(st) != 0) {
        free(in);
        free(out);
        free(r.expected);
        return 1;
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &comm[0]);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm[1]);
    if (g_rank == 0)
        printf("# paptree gsum --native: MPI_Allreduce, %d ranks (one contributor each), "
               "%s %s, 2 communicators, %s\n# warm-up %ld\n", size, rt_dtype_name(o->dtype),
               rt_op_name(o->op), thread_level_name(), o->warmup);
    print_header();
    for (int s = 0; s < o->nsizes; s++) {
        double per_op;
        r.bytes = o->sizes[s];
        per_op = native_size(&r, comm, in, out);
        report_row(o, r.bytes, &per_op, 1);
    }
    MPI_Comm_free(&comm[0]);
    MPI_Comm_free(&comm[1]);
    free(in);
    free(out);
    free(r.expected);
    return 0;
}

int main(int argc, char **argv)
{
    gsum_opts_t o;
    cm_err_t err;
    int rc, provided;

    cm_err_clear(&err);
    /* Every rank parses, then all agree: a rank whose options are wrong
     * (MPMD launches give ranks different ones) stops the others too.
     * --native runs one thread per rank, as a program calling MPI_Allreduce
     * would, so it asks for no thread support: MPI_THREAD_MULTIPLE costs
     * Open MPI about 0.2 us per small allreduce (docs/benchmarks.md). */
    rc = parse_args(argc, argv, &o);
    if (rc == 0 && o.native) {
        if (MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
            fprintf(stderr, "gsum: MPI_Init_thread failed\n");
            return 1;
        }
    } else if (rt_mpi_init(&argc, &argv, &err) != CM_OK) {
        cm_err_print(stderr, "gsum: ", &err);
        MPI_Finalize();
        return 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    rc = agree_parse(rc);
    if (rc == 0 && agree_options(&o) != 0)
        rc = 2;
    if (rc != 0) {
        MPI_Finalize();
        return rc == 1 ? 0 : 2;
    }
    o.command = cm_argv_join(argc, argv);
    rc = o.native ? run_native(&o) : run_tree(&o);
    free(o.command);
    fflush(stdout);
    MPI_Finalize();
    return rc;
}
