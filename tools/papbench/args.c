/*
 * args.c - papbench's options: parsing, checking, the usage text.
 *
 * Every rank parses its own arguments before MPI starts; pb_agree_args then
 * lets the lowest rank that failed print its message and the usage line,
 * and every rank exit 2 (no rank is left waiting for another).  Lists are
 * comma-separated; a bad item is named with its position.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "tools/papbench/papbench_int.h"

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

void pb_usage_line(FILE *fp)
{
    fprintf(fp, "usage: mpirun -np P papbench [--algo LIST] [--pathmap FILE]... [--sizes LIST] "
            "[--mode one-late|rand-late] [--delays LIST] [--arrival LIST] [options] "
            "(papbench --help)\n");
}

static void usage(FILE *fp)
{
    pb_usage_line(fp);
    fprintf(fp,
"The benchmark of Proficz 2018, Figure 9: P ranks = P hosts with one thread each;\n"
"per iteration random data, a computation phase of (max delay + margin) / 2 per\n"
"half with edge(0.5) between, the mode's delay, two barriers, the allreduce timed\n"
"on every rank and checked against MPI_Allreduce.  One table per size like the\n"
"paper's Tables 3/4: average elapsed ms per cell and the speedup over ring.\n"
"  -a, --algo LIST       algorithms (default ring,rabenseifner,rd,slt,prr,clv,native);\n"
"                        an item may add pathmap parameters: prr:round=200000,\n"
"                        clv:segments=8 (a reduce such as clv gets bcast=binomial-bcast)\n"
"  -p, --pathmap FILE    also run this pathmap (repeatable): one thread per host,\n"
"                        type=float op=sum; its first tree\n"
"  -s, --sizes LIST      floats per allreduce, K/M suffixes (default 128K,1M)\n"
"  -n, --iters N         measured iterations per cell (default 20)\n"
"  -w, --warmup N        unmeasured iterations before them (default 3)\n"
"  -m, --mode MODE       one-late (host 1 delayed by the max delay, default) or\n"
"                        rand-late (every host delayed uniformly up to it)\n"
"  -d, --delays LIST     max delays in ms, decimals allowed (default 0,1,5,10,50,100)\n"
"      --margin MS       the computation beyond the max delay (default 100, the\n"
"                        paper's; on one machine a few ms suffice)\n"
"      --seed S          seed of the data and the rand-late delays (default 1)\n"
"      --arrival LIST    sources of the PAP-aware algorithms, each run once per\n"
"                        source: equal,history,edge (default all three)\n"
"      --round NS|auto   round= of PRR (tau) and Clairvoyant (d); auto (default):\n"
"                        ring's time at this size / 2(P-1), measured first\n"
"      --interleave      algorithms interleaved per block of iterations (default)\n"
"      --no-interleave   one algorithm after the other\n"
"      --block N         iterations per block when interleaved (default 1)\n"
"      --edge-warmup     arrival=edge: warm the coming schedule's connections up\n"
"      --csv FILE        also write every cell as CSV (rank 0)\n"
"      --trace DIR       trace each algorithm and delay into\n"
"                        DIR/LABEL.nSIZE.dDELAYms/traces.otf2 (one at a time)\n"
"      --force           replace existing archives under DIR\n"
"      --watchdog S      abort if the tree stalls S seconds (default 60; 0 = off)\n"
"  -q, --quiet           no progress lines on stderr\n"
"  -h, --help            this text\n");
}

/* A number lo..hi, all of s. */
static int parse_num(const char *opt, const char *s, double lo, double hi, double *v)
{
    char *end;

    errno = 0;
    *v = strtod(s, &end);
    if (*s == '\0' || *end != '\0' || errno == ERANGE || !isfinite(*v) || *v < lo || *v > hi)
        return perr("%s: '%s' is not a number from %g to %g", opt, s, lo, hi);
    return 0;
}

static int parse_long(const char *opt, const char *s, long lo, long hi, long *v)
{
    char *end;

    errno = 0;
    *v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || errno == ERANGE || *v < lo || *v > hi)
        return perr("%s: '%s' is not an integer from %ld to %ld", opt, s, lo, hi);
    return 0;
}

/* The next comma-separated item of *p into buf; 0 at the end of the list. */
static int next_item(const char *opt, const char **p, char *buf, size_t size, int *pos)
{
    size_t len;

    if (*p == NULL)
        return 0;
    len = strcspn(*p, ",");
    ++*pos;
    if (len == 0 || len >= size)
        return perr("%s: item %d is %s", opt, *pos, len ? "too long" : "empty");
    memcpy(buf, *p, len);
    buf[len] = '\0';
    *p = (*p)[len] == ',' ? *p + len + 1 : NULL;
    return 1;
}

/* --sizes: elements with K or M (x 1024, x 1048576). */
static int parse_sizes(const char *s, pb_opts_t *o)
{
    char item[64], *end;
    int pos = 0, rc;

    o->nsizes = 0;
    while ((rc = next_item("--sizes", &s, item, sizeof(item), &pos)) == 1) {
        unsigned long long v;
        int shift = 0;

        errno = 0;
        v = strtoull(item, &end, 10);
        if (*end == 'K' || *end == 'k')
            shift = 10, end++;
        else if (*end == 'M' || *end == 'm')
            shift = 20, end++;
        if (end == item || *end != '\0' || item[0] == '-' || errno == ERANGE || v == 0 ||
            v > (PB_ELEMS_MAX >> shift))
            return perr("--sizes: '%s' is not a count of floats from 1 to %zu (K, M allowed)",
                        item, PB_ELEMS_MAX);
        if (o->nsizes == PB_LIST_MAX)
            return perr("--sizes: more than %d sizes", PB_LIST_MAX);
        o->sizes[o->nsizes++] = (size_t)v << shift;
    }
    return rc;
}

static int parse_delays(const char *s, pb_opts_t *o)
{
    char item[64];
    int pos = 0, rc;

    o->ndelays = 0;
    while ((rc = next_item("--delays", &s, item, sizeof(item), &pos)) == 1) {
        if (o->ndelays == PB_LIST_MAX)
            return perr("--delays: more than %d delays", PB_LIST_MAX);
        if (parse_num("--delays", item, 0, PB_DELAY_MAX, &o->delays[o->ndelays++]) != 0)
            return -1;
    }
    return rc;
}

static int parse_arrivals(const char *s, pb_opts_t *o)
{
    static const rt_arrival_t all[3] = { RT_ARRIVAL_EQUAL, RT_ARRIVAL_HISTORY, RT_ARRIVAL_EDGE };
    char item[64];
    int pos = 0, rc, i;

    o->narrivals = 0;
    while ((rc = next_item("--arrival", &s, item, sizeof(item), &pos)) == 1) {
        for (i = 0; i < 3 && strcmp(item, rt_arrival_name(all[i])) != 0; i++)
            ;
        if (i == 3)
            return perr("--arrival: unknown source '%s' (expected equal, history or edge)", item);
        for (int j = 0; j < o->narrivals; j++)
            if (o->arrivals[j] == all[i])
                return perr("--arrival: '%s' given twice", item);
        o->arrivals[o->narrivals++] = all[i];
    }
    return rc;
}

/* One --algo item: NAME[:key=value]...; the name must be an allreduce or a
   reduce of the table, or native; the parameters are checked by the parser. */
static int parse_algo_item(const char *item, pb_algo_t *a)
{
    const rt_algo_info_t *info;
    size_t len = strcspn(item, ":"), used = 0;
    const char *p = item + len;

    if (len == 0 || len >= sizeof(a->name))
        return perr("--algo: '%s' has no algorithm name", item);
    memcpy(a->name, item, len);
    a->name[len] = '\0';
    info = rt_algo_find(a->name);
    if (strcmp(a->name, "native") != 0 && (info == NULL || info->coll == RT_COLL_BCAST))
        return perr("--algo: '%s' is not an allreduce or a reduce of the algorithm table, nor "
                    "native (papsim --help lists them)", a->name);
    a->params[0] = '\0';
    while (*p == ':') {
        size_t l = strcspn(++p, ":");

        if (l == 0 || memchr(p, '=', l) == NULL || used + l + 2 > sizeof(a->params))
            return perr("--algo: '%s': parameters are key=value after ':'", item);
        if (strncmp(p, "arrival=", 8) == 0)
            return perr("--algo: '%s': the arrival source is chosen by --arrival", item);
        used += (size_t)snprintf(a->params + used, sizeof(a->params) - used, " %.*s", (int)l, p);
        p += l;
    }
    return 0;
}

static int parse_algos(const char *s, pb_opts_t *o)
{
    char item[300];
    int pos = 0, rc;

    o->nalgos = 0;
    while ((rc = next_item("--algo", &s, item, sizeof(item), &pos)) == 1) {
        if (o->nalgos == PB_LIST_MAX)
            return perr("--algo: more than %d algorithms", PB_LIST_MAX);
        if (parse_algo_item(item, &o->algos[o->nalgos++]) != 0)
            return -1;
    }
    return rc;
}

static void defaults(pb_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    (void)parse_algos("ring,rabenseifner,rd,slt,prr,clv,native", o);
    (void)parse_sizes("128K,1M", o);
    (void)parse_delays("0,1,5,10,50,100", o);
    (void)parse_arrivals("equal,history,edge", o);
    o->iters = 20;
    o->warmup = 3;
    o->block = 1;
    o->watchdog_s = 60;
    o->interleave = 1;
    o->margin_ms = 100.0;
    o->seed = 1;
}

static int parse_one(int c, const char *arg, pb_opts_t *o, int *algo_given)
{
    double v;
    char *end;
    long l;

    switch (c) {
    case 'a': *algo_given = 1; return parse_algos(arg, o);
    case 'p':
        if (o->npathmaps == PB_LIST_MAX)
            return perr("--pathmap: more than %d files", PB_LIST_MAX);
        o->pathmaps[o->npathmaps++] = arg;
        return 0;
    case 's': return parse_sizes(arg, o);
    case 'n': return parse_long("--iters", arg, 1, 1000000, &o->iters);
    case 'w': return parse_long("--warmup", arg, 0, 1000000, &o->warmup);
    case 'm':
        if (strcmp(arg, "one-late") != 0 && strcmp(arg, "rand-late") != 0)
            return perr("--mode: unknown '%s' (expected one-late or rand-late)", arg);
        o->rand_late = arg[0] == 'r';
        return 0;
    case 'd': return parse_delays(arg, o);
    case 'M': return parse_num("--margin", arg, 0, PB_DELAY_MAX, &o->margin_ms);
    case 'S':
        if (parse_num("--seed", arg, 0, 9007199254740992.0, &v) != 0 || v != floor(v))
            return perr("--seed: '%s' is not an integer from 0 to 2^53", arg);
        o->seed = (uint64_t)v;
        return 0;
    case 'A': return parse_arrivals(arg, o);
    case 'R':
        if (strcmp(arg, "auto") == 0)
            return o->round_ns = 0, 0;
        errno = 0;
        l = strtol(arg, &end, 10);
        if (*arg == '\0' || *end != '\0' || errno == ERANGE || l < 1 || l > 1000000000)
            return perr("--round: '%s' is not auto nor nanoseconds from 1 to 1000000000", arg);
        o->round_ns = l;
        return 0;
    case 'I': o->interleave = 1; return 0;
    case 'J': o->interleave = 0; return 0;
    case 'B': return parse_long("--block", arg, 1, 1000000, &o->block);
    case 'E': o->edge_warmup = 1; return 0;
    case 'C': o->csv = arg; return 0;
    case 'T': o->trace_dir = arg; return 0;
    case 'F': o->force = 1; return 0;
    case 'W': return parse_long("--watchdog", arg, 0, 7 * 24 * 3600, &o->watchdog_s);
    case 'q': o->quiet = 1; return 0;
    default:  return -1;
    }
}

/* What the options say together. */
static int check_combination(pb_opts_t *o, int algo_given)
{
    double top = 0.0;

    if (o->npathmaps > 0 && !algo_given)
        o->nalgos = 0;                      /* --pathmap alone: only the files */
    if (o->force && o->trace_dir == NULL)
        return perr("--force replaces archives: it needs --trace DIR");
    for (int d = 0; d < o->ndelays; d++)
        top = o->delays[d] > top ? o->delays[d] : top;
    if (o->watchdog_s != 0 && (double)o->watchdog_s * 1000.0 <= top + o->margin_ms)
        return perr("--watchdog %ld s is not longer than the largest delay plus the margin "
                    "(%g ms): a host waiting for the late one would be taken for stalled",
                    o->watchdog_s, top + o->margin_ms);
    return 0;
}

int pb_parse_args(int argc, char **argv, pb_opts_t *o)
{
    static const struct option longopts[] = {
        { "algo", 1, 0, 'a' }, { "pathmap", 1, 0, 'p' }, { "sizes", 1, 0, 's' },
        { "iters", 1, 0, 'n' }, { "warmup", 1, 0, 'w' }, { "mode", 1, 0, 'm' },
        { "delays", 1, 0, 'd' }, { "margin", 1, 0, 'M' }, { "seed", 1, 0, 'S' },
        { "arrival", 1, 0, 'A' }, { "round", 1, 0, 'R' }, { "interleave", 0, 0, 'I' },
        { "no-interleave", 0, 0, 'J' }, { "block", 1, 0, 'B' }, { "edge-warmup", 0, 0, 'E' },
        { "csv", 1, 0, 'C' }, { "trace", 1, 0, 'T' }, { "force", 0, 0, 'F' },
        { "watchdog", 1, 0, 'W' }, { "quiet", 0, 0, 'q' }, { "help", 0, 0, 'h' },
        { 0, 0, 0, 0 } };
    int c, rc = 0, algo_given = 0, help = 0;

    defaults(o);
    opterr = 0;
    while (rc == 0 && (c = getopt_long(argc, argv, ":a:p:s:n:w:m:d:qh", longopts, NULL)) != -1) {
        if (c == 'h')
            help = 1;
        else if (c == ':')
            rc = perr("option '%s' requires an argument", argv[optind - 1]);
        else if (c == '?')
            rc = optopt ? perr("unknown option '-%c'", optopt)
                        : perr("unknown option '%s'", argv[optind - 1]);
        else
            rc = parse_one(c, optarg, o, &algo_given);
    }
    if (rc == 0 && help)
        return 1;
    if (rc == 0 && optind < argc)
        rc = perr("unexpected argument '%s'", argv[optind]);
    return rc == 0 ? check_combination(o, algo_given) : rc;
}

int pb_agree_args(int rc, pb_opts_t *o)
{
    int mine[4] = { rc >= 0, g_rank, rc != 1, g_rank }, low[4];

    (void)o;
    MPI_Allreduce(mine, low, 2, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD);
    if (low[0] == 0) {                      /* low[1]: the lowest failing rank */
        if (g_rank == low[1]) {
            fprintf(stderr, "papbench: error: %s\n", g_perr);
            pb_usage_line(stderr);
        }
        return 2;
    }
    if (low[2] == 0) {                      /* low[3]: the lowest rank given --help */
        if (g_rank == low[3])
            usage(stdout);
        return 1;
    }
    return 0;
}
