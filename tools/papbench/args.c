/*
 * args.c - papbench's options: parsing, checking, the usage text.
 *
 * Every rank parses its own arguments before MPI starts; main then agrees
 * on the outcome with rt_mpi_agree_args (the lowest rank that failed says
 * why, with the usage line; every rank exits 2).  Every value goes through
 * cm_opt, so an error reads "papbench: OPTION: what is wrong, expected
 * RANGE".  Lists are comma-separated.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tools/papbench/papbench_int.h"

void pb_usage_line(FILE *fp)
{
    fprintf(fp, "%s\n", PB_USAGE_LINE);
}

void pb_usage(FILE *fp)
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
"                        clv:segments=8 (a reduce such as clv gets bcast=binomial-bcast);\n"
"                        auto chooses per operation among its default candidates\n"
"                        (docs/auto.md; other candidates: a --pathmap file)\n"
"  -p, --pathmap FILE    also run this pathmap (repeatable): one thread per host,\n"
"                        type=float op=sum; its first tree\n"
"  -s, --sizes LIST      bytes per allreduce, each a whole number of floats (4 B);\n"
"                        K, M, G suffixes (powers of 1024; default 512K,4M:\n"
"                        128Ki and 1Mi floats)\n"
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

/* --sizes: bytes, each a whole number of floats, stored as floats. */
static cm_status_t parse_sizes(cm_opt_t *ctx, const char *s, pb_opts_t *o)
{
    uint64_t v[PB_LIST_MAX];
    size_t n;
    cm_status_t st = cm_opt_size_list(ctx, "--sizes", s, ',', sizeof(float),
                                      PB_ELEMS_MAX * sizeof(float), v, PB_LIST_MAX, &n);

    if (st != CM_OK)
        return st;
    for (size_t i = 0; i < n; i++) {
        if (v[i] % sizeof(float) != 0)
            return cm_opt_fail(ctx, CM_ERR_INVALID, "--sizes", "'%llu' is not a whole number "
                               "of floats, expected a multiple of %zu bytes",
                               (unsigned long long)v[i], sizeof(float));
        o->sizes[i] = (size_t)(v[i] / sizeof(float));
    }
    o->nsizes = (int)n;
    return CM_OK;
}

static cm_status_t parse_delays(cm_opt_t *ctx, const char *s, pb_opts_t *o)
{
    size_t n;
    cm_status_t st = cm_opt_double_list(ctx, "--delays", s, ',', 0, PB_DELAY_MAX, o->delays,
                                        PB_LIST_MAX, &n);

    if (st == CM_OK)
        o->ndelays = (int)n;
    return st;
}

static cm_status_t parse_arrivals(cm_opt_t *ctx, const char *s, pb_opts_t *o)
{
    static const cm_opt_word_t all[3] = {
        { "equal", RT_ARRIVAL_EQUAL }, { "history", RT_ARRIVAL_HISTORY },
        { "edge", RT_ARRIVAL_EDGE } };
    cm_opt_list_t it;
    const char *item;
    cm_status_t st;
    int v;

    o->narrivals = 0;
    cm_opt_list_begin(&it, "--arrival", s, ',');
    while ((st = cm_opt_list_next(ctx, &it, 3, &item)) == CM_OK && item != NULL) {
        if ((st = cm_opt_word(ctx, "--arrival", item, all, 3, &v)) != CM_OK)
            return st;
        for (int j = 0; j < o->narrivals; j++)
            if (o->arrivals[j] == (rt_arrival_t)v)
                return cm_opt_fail(ctx, CM_ERR_INVALID, "--arrival", "'%s' given twice, "
                                   "expected each source once", item);
        o->arrivals[o->narrivals++] = (rt_arrival_t)v;
    }
    return st;
}

/* One --algo item: NAME[:key=value]...; the name must be an allreduce or a
   reduce of the table, native or auto; the parameters are checked by the parser. */
static cm_status_t parse_algo_item(cm_opt_t *ctx, const char *item, pb_algo_t *a)
{
    const rt_algo_info_t *info;
    size_t len = strcspn(item, ":"), used = 0;
    const char *p = item + len;

    if (len == 0 || len >= sizeof(a->name))
        return cm_opt_fail(ctx, CM_ERR_INVALID, "--algo", "'%s' has no algorithm name", item);
    memcpy(a->name, item, len);
    a->name[len] = '\0';
    info = rt_algo_find(a->name);
    if (strcmp(a->name, "native") != 0 && strcmp(a->name, "auto") != 0 &&
        (info == NULL || info->coll == RT_COLL_BCAST))
        return cm_opt_fail(ctx, CM_ERR_INVALID, "--algo", "'%s' is not an allreduce or a "
                           "reduce of the algorithm table, nor native or auto (papsim --help "
                           "lists them)", a->name);
    a->params[0] = '\0';
    while (*p == ':') {
        size_t l = strcspn(++p, ":");

        if (l == 0 || memchr(p, '=', l) == NULL || used + l + 2 > sizeof(a->params))
            return cm_opt_fail(ctx, CM_ERR_SYNTAX, "--algo", "'%s': parameters are key=value "
                               "after ':'", item);
        if (strncmp(p, "arrival=", 8) == 0)
            return cm_opt_fail(ctx, CM_ERR_INVALID, "--algo", "'%s': the arrival source is "
                               "chosen by --arrival", item);
        used += (size_t)snprintf(a->params + used, sizeof(a->params) - used, " %.*s", (int)l, p);
        p += l;
    }
    return CM_OK;
}

static cm_status_t parse_algos(cm_opt_t *ctx, const char *s, pb_opts_t *o)
{
    cm_opt_list_t it;
    const char *item;
    cm_status_t st;

    o->nalgos = 0;
    cm_opt_list_begin(&it, "--algo", s, ',');
    while ((st = cm_opt_list_next(ctx, &it, PB_LIST_MAX, &item)) == CM_OK && item != NULL)
        if ((st = parse_algo_item(ctx, item, &o->algos[o->nalgos++])) != CM_OK)
            return st;
    return st;
}

static void defaults(pb_opts_t *o)
{
    cm_opt_t ctx;

    cm_opt_init(&ctx, "papbench");
    memset(o, 0, sizeof(*o));
    (void)parse_algos(&ctx, "ring,rabenseifner,rd,slt,prr,clv,native", o);
    (void)parse_sizes(&ctx, "512K,4M", o);
    (void)parse_delays(&ctx, "0,1,5,10,50,100", o);
    (void)parse_arrivals(&ctx, "equal,history,edge", o);
    o->iters = 20;
    o->warmup = 3;
    o->block = 1;
    o->watchdog_s = 60;
    o->interleave = 1;
    o->margin_ms = 100.0;
    o->seed = 1;
}

/* --seed: an integer 0..2^53 (read as a number: 1e6 is a seed too). */
static cm_status_t parse_seed(cm_opt_t *ctx, const char *arg, pb_opts_t *o)
{
    double v;
    cm_status_t st = cm_opt_double(ctx, "--seed", arg, 0, 9007199254740992.0, &v);

    if (st == CM_OK && v != floor(v))
        return cm_opt_fail(ctx, CM_ERR_SYNTAX, "--seed", "'%s' is not an integer, expected "
                           "0..9007199254740992 (2^53)", arg);
    if (st == CM_OK)
        o->seed = (uint64_t)v;
    return st;
}

/* --round: auto or nanoseconds. */
static cm_status_t parse_round(cm_opt_t *ctx, const char *arg, pb_opts_t *o)
{
    cm_opt_t alone;
    long v;

    if (strcmp(arg, "auto") == 0) {
        o->round_ns = 0;
        return CM_OK;
    }
    cm_opt_init(&alone, ctx->prog);
    if (cm_opt_long(&alone, "--round", arg, 1, 1000000000, &v) != CM_OK)
        return cm_opt_fail(ctx, alone.status, "--round", "'%s' is neither auto nor "
                           "nanoseconds, expected auto or 1..1000000000", arg);
    o->round_ns = v;
    return CM_OK;
}

/* One option (c from getopt_long) with its argument. */
static cm_status_t parse_one(cm_opt_t *ctx, pb_opts_t *o, int c, const char *arg)
{
    static const cm_opt_word_t modes[] = { { "one-late", 0 }, { "rand-late", 1 } };

    switch (c) {
    case 'h': o->help = 1; return CM_OK;  /* ends the loop: the rest is not judged */
    case 'a': o->algo_given = 1; return parse_algos(ctx, arg, o);
    case 'p':
        return cm_opt_append(ctx, "--pathmap", arg, o->pathmaps, &o->npathmaps, PB_LIST_MAX);
    case 's': return parse_sizes(ctx, arg, o);
    case 'n': return cm_opt_long(ctx, "--iters", arg, 1, 1000000, &o->iters);
    case 'w': return cm_opt_long(ctx, "--warmup", arg, 0, 1000000, &o->warmup);
    case 'm': return cm_opt_word(ctx, "--mode", arg, modes, 2, &o->rand_late);
    case 'd': return parse_delays(ctx, arg, o);
    case 'M': return cm_opt_double(ctx, "--margin", arg, 0, PB_DELAY_MAX, &o->margin_ms);
    case 'S': return parse_seed(ctx, arg, o);
    case 'A': return parse_arrivals(ctx, arg, o);
    case 'R': return parse_round(ctx, arg, o);
    case 'I': o->interleave = 1; return CM_OK;
    case 'J': o->interleave = 0; return CM_OK;
    case 'B': return cm_opt_long(ctx, "--block", arg, 1, 1000000, &o->block);
    case 'E': o->edge_warmup = 1; return CM_OK;
    case 'C': o->csv = arg; return CM_OK;
    case 'T': o->trace_dir = arg; return CM_OK;
    case 'F': o->force = 1; return CM_OK;
    case 'W': return cm_opt_long(ctx, "--watchdog", arg, 0, 7 * 24 * 3600, &o->watchdog_s);
    default:  o->quiet = 1; return CM_OK;
    }
}

/* What the options say together. */
static cm_status_t check_combination(cm_opt_t *ctx, pb_opts_t *o)
{
    double top = 0.0;

    if (o->npathmaps > 0 && !o->algo_given)
        o->nalgos = 0;                      /* --pathmap alone: only the files */
    if (o->force && o->trace_dir == NULL)
        return cm_opt_fail(ctx, CM_ERR_INVALID, NULL, "--force replaces archives: it needs "
                           "--trace DIR");
    for (int d = 0; d < o->ndelays; d++)
        top = o->delays[d] > top ? o->delays[d] : top;
    if (o->watchdog_s != 0 && (double)o->watchdog_s * 1000.0 <= top + o->margin_ms)
        return cm_opt_fail(ctx, CM_ERR_INVALID, NULL, "--watchdog %ld s is not longer than the "
                           "largest delay plus the margin (%g ms): a host waiting for the late "
                           "one would be taken for stalled", o->watchdog_s, top + o->margin_ms);
    return CM_OK;
}

cm_status_t pb_parse_args(int argc, char **argv, pb_opts_t *o, cm_opt_t *ctx)
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
    const char *opt;
    int c;

    defaults(o);
    while (!o->help &&
           (c = cm_opt_next(ctx, argc, argv, ":a:p:s:n:w:m:d:qh", longopts, &opt)) != -1)
        parse_one(ctx, o, c, optarg);
    if (o->help || cm_opt_no_operands(ctx, argc, argv) != CM_OK)
        return ctx->status;
    return check_combination(ctx, o);
}
