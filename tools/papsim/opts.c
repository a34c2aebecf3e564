/*
 * opts.c - papsim's options: the usage text and the algorithm list, the
 * network presets, parsing (apply_opt, parse_arrival, parse_algo), the
 * checks once P is known (check_opts) and the net file (load_net).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/papsim/papsim_int.h"

/* Network presets: alpha (s), beta (s/byte), gamma (s/byte).  `measured`
   is this machine (docs/netfit.md), 2026-11-26: the median of each value
   over 14 runs of `mpirun --allow-run-as-root --oversubscribe --bind-to
   none --mca btl self,vader -np 2 bin/netfit -r 51`, the 2 ranks sharing
   the machine's 2 cores with other jobs (load average 3 to 11); the runs
   ranged over alpha 0.13-6.3 us, beta 0.13-0.57 ns/B, gamma 0.09-0.36 ns/B. */
#define MEASURED_ALPHA 3.79e-7
#define MEASURED_BETA  2.80e-10
#define MEASURED_GAMMA 1.24e-10
#define MEASURED_WHEN  "2026-11-26, 2 ranks sharing 2 cores, medians of 14 runs"
const net_t nets[] = {
    { "1gbe", 20e-6, 8e-9, 0.1e-9,
      "1 Gb/s line rate; alpha, gamma fitted to Proficz 2018 Table 3 (ring, "
      "P=48, 1 M floats: 68.0 ms vs 67.8)" },
    { "10gbe", 20e-6, 0.8e-9, 0,
      "Tanaka 2017's SimGrid platform: latency 20 us, 10 Gb/s, gamma = 0" },
    { "ib-fdr", 1.5e-6, 0.147e-9, 0.1e-9,
      "56 Gb/s InfiniBand FDR (6.8 GB/s), 1.5 us latency" },
    { "measured", MEASURED_ALPHA, MEASURED_BETA, MEASURED_GAMMA,
      "this machine, measured by bin/netfit: " MEASURED_WHEN " (docs/netfit.md)" },
};

void usage(FILE *fp)
{
    fprintf(fp,
"usage: papsim [options] ALGO [ALGO...]\n"
"Simulates collective schedules under the linear cost model (a message of m\n"
"bytes costs alpha + beta*m, reducing it gamma*m at the receiver) with an\n"
"arrival pattern, and prints each algorithm's average elapsed time (mean of\n"
"finish - arrival), completion time (last finish - first arrival), maximum\n"
"elapsed time and speedup against the first ALGO, plus the wall time of\n"
"generating and simulating its schedule.\n"
"ALGO: a table name below, REDUCE+BCAST (e.g. binomial-reduce+binomial-bcast),\n"
"either with :segs=Q or :segsize=B for its own segmentation.\n"
"\n"
"  -P, --nranks N        processes, 1..2^20 (default 48)\n"
"      --bytes B         message size in bytes, 0..2^62 (default 4194304: 1 M\n"
"                        floats); B, MIN, MAX and --segsize take K, M, G, T\n"
"                        (powers of 1024): 4M is 4194304\n"
"      --sizes MIN:MAX   one row per power of two from MIN to MAX bytes (1..2^62),\n"
"                        one column per ALGO (--metric), OSU style\n"
"      --metric M        the --sizes figure: avg (default), max or completion\n"
"      --elem-bytes E    bytes per element, 1..2^20 (default 4, floats)\n"
"      --segs Q          pipeline segments, 1..2^31-1 (only algorithms that\n"
"                        read them)\n"
"      --segsize B       segment size in bytes, >= 1 (Open MPI's rule to elements)\n"
"      --root R          root of rooted collectives, 0..P-1 (default 0)\n"
"      --ppn N           processes per node (nap), 1..2^20\n"
"      --tree heap|ompi  shape of bintree-reduce (default heap)\n"
"      --port U|B        port model of ASAP-scheduled trees (default U)\n"
"      --net NAME|FILE   cost preset: 1gbe (default), 10gbe, ib-fdr, measured\n"
"                        (this machine, by bin/netfit), or a file of alpha=S,\n"
"                        beta=S, gamma=S lines (bin/netfit -o FILE; a preset's\n"
"                        name is the preset: ./NAME for a file of that name)\n"
"      --alpha S         seconds per message, 0..1000 (overrides the preset)\n"
"      --beta S          seconds per byte, 0..1\n"
"      --gamma S         seconds per byte reduced, 0..1\n"
"      --arrival PAT     none (default), one-late:MS[:RANK] (RANK, default 1,\n"
"                        arrives MS ms after the others), random:MS[:SEED]\n"
"                        (uniform in [0, MS] ms), sorted:MS (rank r at\n"
"                        r*MS/(P-1) ms), reversed:MS (rank r at (P-1-r)*MS/(P-1));\n"
"                        MS in 0..1e9\n"
"      --seed N          seed of random:, 0..2^63-1 (default 1)\n"
"      --ops N           with ALGO auto[:LIST]: operations to simulate, 1..10^6\n"
"                        (default 100; random: a new seed for each)\n"
"      --per-rank        each process's arrival, finish and elapsed time\n"
"      --verify          also replay each schedule (rt_sched_verify)\n"
"      --mem-limit SIZE  refuse a schedule whose estimated size is over SIZE\n"
"                        bytes (K, M, G, T: powers of 1024; default half the\n"
"                        machine's memory): 16 bytes a step, estimated before\n"
"                        generating (rt_algo_steps_estimate)\n"
"  -v, --verbose         progress on stderr (without it: after 2 s, and before\n"
"                        generating or simulating 16 M steps or more)\n"
"  -h, --help            this text and the algorithms\n"
"Times in the tables: ms for one size, us for --sizes.  PAP-aware generators\n"
"get tau = alpha + (beta + gamma) * segment bytes as their round length\n"
"(prr: ceil(count/P) elements; clv: ceil(count/N) for N segments), at most\n"
"1e9 s.  A value out of its range is a usage error that names the range.\n"
"Exit status: 0 done, 1 bad input or an algorithm that refuses the\n"
"parameters, 2 usage error.\n");
}

void list_algos(FILE *fp)
{
    size_t n;
    const rt_algo_info_t *t = rt_algo_table(&n);
    static const char *coll[] = { "allreduce", "reduce", "bcast" };

    fprintf(fp, "\nAlgorithms (rt_algo_table):\n");
    for (size_t i = 0; i < n; i++)
        fprintf(fp, "  %-16s %-9s %s\n  %16s reads: %s\n  %16s needs: %s\n",
                t[i].name, coll[t[i].coll], t[i].summary, "", t[i].params, "",
                t[i].requires);
    fprintf(fp, "\nNetwork presets:\n");
    for (size_t i = 0; i < sizeof nets / sizeof *nets; i++)
        fprintf(fp, "  %-7s alpha %.3g s, beta %.3g s/B, gamma %.3g s/B: %s\n",
                nets[i].name, nets[i].alpha, nets[i].beta, nets[i].gamma,
                nets[i].why);
}

/* The cost model's ranges (the others: papsim_int.h). */
typedef struct drange { const char *what; double min, max; const char *unit; } drange_t;
static const drange_t R_ALPHA = { "seconds per message", 0, 1000, "" };
static const drange_t R_BETA = { "seconds per byte", 0, 1, "" };
static const drange_t R_GAMMA = { "seconds per byte reduced", 0, 1, "" };

/* A byte count within lo..hi (at most BYTES_MAX: it fits int64). */
static cm_status_t opt_bytes(cm_opt_t *ctx, const char *opt, const char *arg, uint64_t lo,
                             uint64_t hi, int64_t *v_p)
{
    uint64_t v;
    cm_status_t st = cm_opt_size(ctx, opt, arg, lo, hi, &v);

    if (st == CM_OK)
        *v_p = (int64_t)v;
    return st;
}

/* A rank of P given as text, checked only once P is known; the message
   says which P the range comes from. */
static cm_status_t opt_rank(cm_opt_t *ctx, const char *opt, const char *arg, int32_t nranks,
                            int32_t *v_p)
{
    int fresh = ctx->status == CM_OK;
    cm_status_t st = cm_opt_int(ctx, opt, arg, 0, nranks - 1, v_p);
    size_t len = strlen(ctx->msg);

    if (st != CM_OK && fresh)
        snprintf(ctx->msg + len, sizeof ctx->msg - len, " (the ranks of P = %d)", nranks);
    return st;
}

/*
 * --arrival none | KIND:MS[:X], X = the rank (one-late, kept as text for
 * check_opts) or the seed (random).
 */
static cm_status_t parse_arrival(cm_opt_t *ctx, opts_t *o, const char *text)
{
    static const struct { const char *name; rt_sim_arrival_kind_t kind; int x; } kinds[] = {
        { "one-late", RT_SIM_ARRIVAL_ONE_LATE, 1 }, { "random", RT_SIM_ARRIVAL_RANDOM, 1 },
        { "sorted", RT_SIM_ARRIVAL_SORTED, 0 }, { "reversed", RT_SIM_ARRIVAL_REVERSED, 0 },
    };
    const char *colon = strchr(text, ':'), *x;
    char ms[64];
    long v;

    o->arr_text = text;
    o->arr_rank_text = NULL;
    o->arr_rank = 1;
    if (strcmp(text, "none") == 0) {
        o->arr = RT_SIM_ARRIVAL_NONE;
        return CM_OK;
    }
    for (size_t i = 0; colon && i < sizeof kinds / sizeof *kinds; i++) {
        if (strncmp(text, kinds[i].name, (size_t)(colon - text)) != 0 ||
            kinds[i].name[colon - text] != '\0')
            continue;
        o->arr = kinds[i].kind;
        x = strchr(colon + 1, ':');
        size_t n = x ? (size_t)(x - colon - 1) : strlen(colon + 1);
        snprintf(ms, sizeof ms, "%.*s", (int)(n < sizeof ms ? n : 0), colon + 1);
        if (cm_opt_double(ctx, "--arrival", ms, 0, ARR_MS_MAX, &o->arr_ms) != CM_OK)
            return ctx->status;                          /* too long: "" */
        if (x == NULL)
            return CM_OK;
        if (!kinds[i].x)
            break;
        if (o->arr == RT_SIM_ARRIVAL_ONE_LATE) {
            o->arr_rank_text = x + 1;
            return CM_OK;
        }
        if (cm_opt_long(ctx, "--arrival", x + 1, 0, LONG_MAX, &v) != CM_OK)
            return ctx->status;
        o->seed = (uint64_t)v;
        return CM_OK;
    }
    return cm_opt_fail(ctx, CM_ERR_SYNTAX, "--arrival", "'%s' is not a pattern, expected "
                       "none, one-late:MS[:RANK], random:MS[:SEED], sorted:MS or reversed:MS",
                       text);
}

/*
 * ALGO[:segs=Q|:segsize=B], ALGO being NAME or REDUCE+BCAST.  Returns 0,
 * 1 (unknown algorithm, message printed) or 2 (malformed, message printed).
 */
int parse_algo(algo_spec_t *a, const char *text)
{
    const char *colon = strchr(text, ':');
    size_t len = colon ? (size_t)(colon - text) : strlen(text);
    char *plus;

    a->label = text;
    a->nsegs = -1;
    a->segbytes = -1;
    a->bcast = NULL;
    if (len == 0 || len >= sizeof a->name) {
        fprintf(stderr, "papsim: %s: not an algorithm name\n", text);
        return 2;
    }
    memcpy(a->name, text, len);
    a->name[len] = '\0';
    if (colon) {
        int seg = strncmp(colon + 1, "segs=", 5) == 0;
        int size = strncmp(colon + 1, "segsize=", 8) == 0;
        char opt[sizeof a->name + 16];
        cm_opt_t ctx;

        if (!seg && !size) {
            fprintf(stderr, "papsim: %s: expected ALGO:segs=Q or "
                            "ALGO:segsize=BYTES\n", text);
            return 2;
        }
        cm_opt_init(&ctx, "papsim");
        snprintf(opt, sizeof opt, "%s:%s", a->name, seg ? "segs" : "segsize");
        if ((seg ? cm_opt_int(&ctx, opt, colon + 6, 1, SEGS_MAX, &a->nsegs)
                 : opt_bytes(&ctx, opt, colon + 9, 1, BYTES_MAX, &a->segbytes)) != CM_OK) {
            cm_opt_print(&ctx, stderr);
            return 2;
        }
    }
    plus = strchr(a->name, '+');
    if (plus) {
        *plus = '\0';
        a->info = rt_algo_find(a->name);
        a->bcast = rt_algo_find(plus + 1);
        *plus = '+';
        if (!a->info || !a->bcast) {
            fprintf(stderr, "papsim: %s: unknown algorithm %s (papsim -h "
                            "lists them)\n", text, !a->info ? "before '+'" : "after '+'");
            return 1;
        }
        if (a->info->coll != RT_COLL_REDUCE || a->bcast->coll != RT_COLL_BCAST) {
            fprintf(stderr, "papsim: %s: REDUCE+BCAST needs a reduce then a "
                            "broadcast\n", text);
            return 1;
        }
        return 0;
    }
    a->info = rt_algo_find(a->name);
    if (!a->info) {
        fprintf(stderr, "papsim: %s: unknown algorithm (papsim -h lists them)\n",
                text);
        return 1;
    }
    return 0;
}

/* Options that only make sense together, and the ranks, once P is known:
   CM_OK or the error, recorded in ctx. */
cm_status_t check_opts(cm_opt_t *ctx, opts_t *o, int have_bytes)
{
    int64_t eb = (int64_t)o->elem_bytes;

    if (o->sizes && have_bytes)
        return cm_opt_fail(ctx, CM_ERR_INVALID, NULL, "give --bytes or --sizes, not both");
    if (o->sizes && o->per_rank)
        return cm_opt_fail(ctx, CM_ERR_INVALID, NULL, "--per-rank needs one size (--bytes)");
    if (o->nsegs > 0 && o->segbytes > 0)
        return cm_opt_fail(ctx, CM_ERR_INVALID, NULL, "give --segs or --segsize, not both");
    if (o->root_text && opt_rank(ctx, "--root", o->root_text, o->nranks, &o->root) != CM_OK)
        return ctx->status;
    if (o->arr == RT_SIM_ARRIVAL_ONE_LATE && o->arr_rank_text == NULL && o->nranks < 2)
        return cm_opt_fail(ctx, CM_ERR_RANGE, "--arrival", "'%s': rank 1 (the default RANK) "
                           "is not a rank of P = 1", o->arr_text);
    if (o->arr == RT_SIM_ARRIVAL_ONE_LATE && o->arr_rank_text &&
        opt_rank(ctx, "--arrival", o->arr_rank_text, o->nranks, &o->arr_rank) != CM_OK)
        return ctx->status;
    if (!o->sizes && o->bytes % eb != 0)
        return cm_opt_fail(ctx, CM_ERR_INVALID, "--bytes", "'%" PRId64 "' is not a multiple "
                           "of --elem-bytes %" PRId64, o->bytes, eb);
    if (o->sizes && o->size_min % eb != 0)
        return cm_opt_fail(ctx, CM_ERR_INVALID, "--sizes", "MIN '%" PRId64 "' is not a "
                           "multiple of --elem-bytes %" PRId64, o->size_min, eb);
    return CM_OK;
}

const struct option longopts[] = {
    { "nranks", required_argument, NULL, 'P' }, { "bytes", required_argument, NULL, O_BYTES },
    { "sizes", required_argument, NULL, O_SIZES }, { "metric", required_argument, NULL, O_METRIC },
    { "elem-bytes", required_argument, NULL, O_ELEM }, { "segs", required_argument, NULL, O_SEGS },
    { "segsize", required_argument, NULL, O_SEGSIZE }, { "root", required_argument, NULL, O_ROOT },
    { "ppn", required_argument, NULL, O_PPN }, { "tree", required_argument, NULL, O_TREE },
    { "port", required_argument, NULL, O_PORT }, { "net", required_argument, NULL, O_NET },
    { "alpha", required_argument, NULL, O_ALPHA }, { "beta", required_argument, NULL, O_BETA },
    { "gamma", required_argument, NULL, O_GAMMA }, { "arrival", required_argument, NULL, O_ARRIVAL },
    { "seed", required_argument, NULL, O_SEED }, { "per-rank", no_argument, NULL, O_PERRANK },
    { "verify", no_argument, NULL, O_VERIFY }, { "help", no_argument, NULL, 'h' },
    { "mem-limit", required_argument, NULL, O_MEMLIMIT },
    { "verbose", no_argument, NULL, 'v' }, { "ops", required_argument, NULL, O_OPS },
    { NULL, 0, NULL, 0 },
};

/* The index of arg among names (NULL-terminated), or -1. */

/* Applies option c (named opt) to o: CM_OK or the error, recorded in ctx. */
cm_status_t apply_opt(cm_opt_t *ctx, opts_t *o, int c, const char *opt,
                      const char *arg)
{
    static const cm_opt_word_t metrics[] = {
        { "avg", MET_AVG }, { "max", MET_MAX }, { "completion", MET_COMPLETION } };
    static const cm_opt_word_t trees[] = { { "heap", RT_TREE_HEAP }, { "ompi", RT_TREE_OMPI } };
    static const cm_opt_word_t ports[] = { { "U", RT_PORT_U }, { "B", RT_PORT_B } };
    uint64_t mem;
    int32_t v32;
    int w;

    switch (c) {
    case 'P': return cm_opt_int(ctx, opt, arg, 1, RT_SCHED_RANKS_MAX, &o->nranks);
    case O_BYTES: return opt_bytes(ctx, opt, arg, 0, BYTES_MAX, &o->bytes);
    case O_SIZES:
        if (cm_opt_size_range(ctx, opt, arg, 1, BYTES_MAX, (uint64_t *)&o->size_min,
                              (uint64_t *)&o->size_max) != CM_OK)
            return ctx->status;
        o->sizes = 1;
        return CM_OK;
    case O_METRIC:
        if (cm_opt_word(ctx, opt, arg, metrics, 3, &w) != CM_OK)
            return ctx->status;
        o->metric = (metric_t)w;
        return CM_OK;
    case O_ELEM:
        if (cm_opt_int(ctx, opt, arg, 1, ELEM_MAX, &v32) != CM_OK)
            return ctx->status;
        o->elem_bytes = v32;
        return CM_OK;
    case O_SEGS: return cm_opt_int(ctx, opt, arg, 1, SEGS_MAX, &o->nsegs);
    case O_SEGSIZE: return opt_bytes(ctx, opt, arg, 1, BYTES_MAX, &o->segbytes);
    case O_ROOT: o->root_text = arg; return CM_OK;  /* a rank of P: check_opts */
    case O_PPN: return cm_opt_int(ctx, opt, arg, 1, RT_SCHED_RANKS_MAX, &o->ppn);
    case O_TREE:
        if (cm_opt_word(ctx, opt, arg, trees, 2, &w) != CM_OK)
            return ctx->status;
        o->tree = (rt_tree_shape_t)w;
        return CM_OK;
    case O_PORT:
        if (cm_opt_word(ctx, opt, arg, ports, 2, &w) != CM_OK)
            return ctx->status;
        o->port = (rt_port_t)w;
        return CM_OK;
    case O_NET:
        for (size_t n = 0; n < sizeof nets / sizeof *nets; n++)
            if (strcmp(arg, nets[n].name) == 0) {
                o->net = &nets[n];
                o->net_file = NULL;
                return CM_OK;
            }
        o->net_file = arg;                         /* read after the options */
        return CM_OK;
    case O_ALPHA:
        o->overrides = 1;
        return cm_opt_double(ctx, opt, arg, R_ALPHA.min, R_ALPHA.max, &o->alpha);
    case O_BETA:
        o->overrides = 1;
        return cm_opt_double(ctx, opt, arg, R_BETA.min, R_BETA.max, &o->beta);
    case O_GAMMA:
        o->overrides = 1;
        return cm_opt_double(ctx, opt, arg, R_GAMMA.min, R_GAMMA.max, &o->gamma);
    case O_ARRIVAL: return parse_arrival(ctx, o, arg);
    case O_SEED: return cm_opt_long(ctx, opt, arg, 0, LONG_MAX, (long *)&o->seed);
    case O_PERRANK: o->per_rank = 1; return CM_OK;
    case O_VERIFY: o->verify = 1; return CM_OK;
    case O_MEMLIMIT:
        if (cm_opt_size(ctx, opt, arg, 1, RT_MEM_MAX, &mem) != CM_OK)
            return ctx->status;
        o->mem_limit = (double)mem;
        return CM_OK;
    case 'v': o->verbose = 1; return CM_OK;
    case O_OPS: return cm_opt_long(ctx, opt, arg, 1, 1000000, &o->ops);
    default: return cm_opt_fail(ctx, CM_ERR_INVALID, opt, "unexpected option");
    }
}

/* --net FILE: 0, 1 (a file that cannot be read or is bad) or 2 (no such
   file: the name was neither a preset nor a file). */
int load_net(opts_t *o)
{
    FILE *fp = fopen(o->net_file, "r");
    rt_net_t file;
    cm_err_t err;
    cm_status_t st;

    if (!fp && errno == ENOENT) {
        fprintf(stderr, "papsim: --net: '%s' is no preset and no file, expected 1gbe, 10gbe, "
                "ib-fdr, measured or a net file\n", o->net_file);
        return 2;
    }
    if (!fp) {
        fprintf(stderr, "papsim: --net %s: cannot open: %s\n", o->net_file, strerror(errno));
        return 1;
    }
    cm_err_clear(&err);
    st = rt_net_read_fp(fp, o->net_file, &file, &err);
    fclose(fp);
    if (st != CM_OK) {
        cm_err_print(stderr, "papsim: ", &err);
        return 1;
    }
    o->file_net = (net_t){ o->net_file, file.alpha, file.beta, file.gamma, "a net file" };
    o->net = &o->file_net;
    return 0;
}
