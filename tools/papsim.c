/*
 * papsim - collective schedules under a linear cost model, with an arrival
 * pattern: average elapsed time, completion time and speedup against the
 * first algorithm listed (Proficz 2018's s_alg = e_ring / e_alg), plus what
 * generating and simulating each schedule cost in wall time.  No MPI.
 *
 *   papsim [options] ALGO [ALGO...]
 *
 * ALGO is a name of the algorithm table (rt_algo_find; `papsim -h` lists
 * them), or REDUCE+BCAST (an allreduce as a reduce then a broadcast from
 * the same root, rt_algo_reduce_bcast), optionally followed by :segs=Q or
 * :segsize=B to give that algorithm its own segmentation.
 *
 * Times: the simulator works in seconds (rt_sched_simulate); generators get
 * arrival times and the round length as int64 nanosecond ticks (so a
 * PAP-aware schedule is the same on every rank), and the simulator gets the
 * same rounded times back in seconds.  The round length of a PAP-aware
 * generator (one whose table row reads round_len) is the time to move and
 * reduce one of its segments, tau = alpha + (beta + gamma) * seg bytes:
 * seg = ceil(count / P) elements for PRR (P segments), ceil(count / N) for
 * Clairvoyant with N segments (--segs, --segsize; one segment by default).
 *
 * Arrival patterns (--arrival) are made by rt_sim_arrival_make
 * (runtime/api/rt_sim.h).
 *
 * Costs: a preset (--net NAME, the table below) or a net file (--net FILE,
 * what bin/netfit -o writes: alpha=, beta=, gamma= lines, read strictly by
 * rt_net_read_fp, runtime/api/rt_sim.h; docs/netfit.md), then
 * --alpha/--beta/--gamma on top.
 *
 * Exit status: 0 done, 1 bad input (unknown algorithm, a generator that
 * refuses the parameters, a schedule the simulator rejects, a bad net
 * file), 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cm_err.h"
#include "common/cm_opt.h"
#include "runtime/api/rt_algo.h"
#include "runtime/api/rt_sim.h"

#define MAX_ALGOS 64

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
typedef struct net {
    const char *name;
    double alpha, beta, gamma;
    const char *why;
} net_t;

static const net_t nets[] = {
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

typedef enum { MET_AVG, MET_MAX, MET_COMPLETION } metric_t;

typedef struct algo_spec {
    const char           *label;    /* as given */
    char                  name[96]; /* without the :segs= suffix */
    const rt_algo_info_t *info;     /* a table row, or the reduce of a pair */
    const rt_algo_info_t *bcast;    /* the broadcast of REDUCE+BCAST, or NULL */
    int32_t               nsegs;    /* :segs=, or -1: the global option */
    int64_t               segbytes; /* :segsize=, or -1 */
} algo_spec_t;

typedef struct opts {
    int32_t     nranks, root, ppn, nsegs;
    int64_t     bytes, size_min, size_max, segbytes;
    int         sizes, per_rank, verify;
    double      elem_bytes;
    rt_port_t   port;
    rt_tree_shape_t tree;
    const net_t *net;
    const char *net_file;                    /* --net FILE, read after the options */
    net_t       file_net;                    /* what it held */
    double      alpha, beta, gamma;          /* NAN until the preset fills them */
    int         overrides;                   /* --alpha, --beta or --gamma given */
    rt_sim_arrival_kind_t arr;
    double      arr_ms;
    const char *arr_rank_text;               /* one-late's RANK, checked against P */
    int32_t     arr_rank;
    uint64_t    seed;
    const char *arr_text;
    const char *root_text;                   /* --root, checked against P */
    metric_t    metric;
    double      mem_limit;                   /* bytes a schedule may take */
    int         verbose;                     /* progress lines from the start */
    double      t0;                          /* when papsim started (now_s) */
    algo_spec_t algos[MAX_ALGOS];
    int         nalgos;
} opts_t;

/* One run: what papsim prints for an algorithm at one size. */
typedef struct outcome {
    rt_sim_result_t res;
    size_t          nsteps;
    int32_t         nrounds;
    double          gen_s, sim_s, verify_s, tau_s;  /* wall */
    double          gen_cpu, sim_cpu;               /* CPU time */
} outcome_t;

static double clock_s(clockid_t id)
{
    struct timespec ts;

    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Wall time, and this process's CPU time: on a shared machine the wall
   time also counts waiting for a CPU, the CPU time does not. */
static double now_s(void) { return clock_s(CLOCK_MONOTONIC); }
static double cpu_s(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }

static void usage(FILE *fp)
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

static void list_algos(FILE *fp)
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

/*
 * The allowed ranges of the numeric options, in one place: a value outside
 * its range is a usage error that names the option and the range, never a
 * number papsim would print as inf or nan or silently change.  The cost
 * model's bounds keep every simulated time finite (at most 2^31 rounds of
 * 1000 s + 2 s/B * 2^62 B is about 1e28 s), the arrival bound keeps arrival
 * ticks (ns) within int64 with room for 2^31 rounds after them, and TAU_MAX_S
 * keeps a round length in ticks within int64.  Byte counts are sizes
 * (cm_opt_size: 4096, 4K, 1MiB).
 */
typedef struct drange { const char *what; double min, max; const char *unit; } drange_t;

#define BYTES_MAX ((uint64_t)1 << 62)
#define SEGS_MAX  INT32_MAX
#define ELEM_MAX  (1 << 20)
static const drange_t R_ALPHA = { "seconds per message", 0, 1000, "" };
static const drange_t R_BETA = { "seconds per byte", 0, 1, "" };
static const drange_t R_GAMMA = { "seconds per byte reduced", 0, 1, "" };
#define ARR_MS_MAX 1e9
#define TAU_MAX_S 1e9

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
static int parse_algo(algo_spec_t *a, const char *text)
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

/*
 * The generator's parameters for algorithm a at `bytes`; the round length
 * (ticks) is set for the generators whose table row reads round_len, and
 * *tau_s is it in seconds (0 for the others).
 */
/* Does the algorithm (or either half of REDUCE+BCAST) read a segment
   count or size?  The global --segs/--segsize go only to those. */
static int reads_segments(const algo_spec_t *a)
{
    return strstr(a->info->params, "nsegs") ||
           strstr(a->info->params, "segcount") ||
           (a->bcast && (strstr(a->bcast->params, "nsegs") ||
                         strstr(a->bcast->params, "segcount")));
}

static cm_status_t make_params(const opts_t *o, const algo_spec_t *a, int64_t bytes,
                               const int64_t *arrival, rt_algo_params_t *p,
                               double *tau_s, cm_err_t *err)
{
    int64_t eb = (int64_t)o->elem_bytes, segbytes;
    int32_t nsegs;

    memset(p, 0, sizeof *p);
    p->nranks = o->nranks;
    p->root = o->root;
    p->count = bytes / eb;
    p->arrival = arrival;
    p->ppn = o->ppn;
    p->port = o->port;
    p->tree = o->tree;
    if (a->nsegs >= 0 || a->segbytes >= 0) {        /* ALGO:segs= asked */
        nsegs = a->nsegs;
        segbytes = a->segbytes;
    } else if (reads_segments(a)) {                  /* --segs, --segsize */
        nsegs = o->nsegs;
        segbytes = o->segbytes;
    } else {                     /* e.g. prr: its segments are its blocks */
        nsegs = 0;
        segbytes = 0;
    }
    if (nsegs > 0)
        p->nsegs = nsegs;
    else if (segbytes > 0 && p->count > 0)
        p->segcount = rt_algo_ring_segcount(segbytes, eb, p->count);
    *tau_s = 0;
    if (strstr(a->info->params, "round_len")) {
        /* Clairvoyant-style rows read segments: their round moves one; PRR
           moves one of P blocks. */
        int64_t seg;

        if (strstr(a->info->params, "nsegs"))
            seg = p->segcount > 0 ? p->segcount
                : (p->count + (p->nsegs > 0 ? p->nsegs : 1) - 1) / (p->nsegs > 0 ? p->nsegs : 1);
        else
            seg = (p->count + o->nranks - 1) / o->nranks;
        *tau_s = o->alpha + (o->beta + o->gamma) * (double)seg * (double)eb;
        if (*tau_s > TAU_MAX_S)       /* its ticks would not fit in int64 */
            return CM_ERR(err, CM_ERR_INVALID, "%s: round length tau = alpha + (beta + "
                          "gamma) * segment bytes = %g s: out of range: at most %g s (lower "
                          "--alpha, --beta, --gamma or the segment size)", a->info->name,
                          *tau_s, TAU_MAX_S);
        p->round_len = llround(*tau_s * 1e9);
        if (p->round_len < 1)
            p->round_len = 1;
        *tau_s = (double)p->round_len * 1e-9;
    }
    return CM_OK;
}

/* The steps a (or both halves of REDUCE+BCAST) will make, estimated. */
static double steps_estimate(const algo_spec_t *a, const rt_algo_params_t *p)
{
    return rt_algo_steps_estimate(a->info, p) +
           (a->bcast ? rt_algo_steps_estimate(a->bcast, p) : 0);
}

/*
 * Refuses a schedule whose estimated size is over the memory limit, before
 * anything is allocated: a step is 16 bytes; REDUCE+BCAST holds both
 * halves and their merge (twice the steps), and --verify's replay about 32
 * bytes more per step.
 */
static cm_status_t check_memory(const opts_t *o, const algo_spec_t *a,
                                const rt_algo_params_t *p, cm_err_t *err)
{
    char what[128];

    snprintf(what, sizeof what, "%s: the schedule", a->info->name);
    return rt_algo_mem_check(what, steps_estimate(a, p),
                             (a->bcast ? 32 : 16) + (o->verify ? 32 : 0), o->mem_limit,
                             " (--mem-limit; the default is half the machine's memory)", err);
}

/* Steps from which a phase takes about a second or more. */
#define LONG_PHASE_STEPS (1 << 24)

/* A progress line on stderr, "papsim: 12.3 s: LABEL[ at B]: WHAT N steps",
   with -v, and without it once papsim has run for 2 s or before a phase
   of LONG_PHASE_STEPS or more. */
static void progress(const opts_t *o, const algo_spec_t *a, int64_t bytes, const char *what,
                     double steps)
{
    double t = now_s() - o->t0;

    if (!o->verbose && t < 2 && steps < LONG_PHASE_STEPS)
        return;
    fprintf(stderr, "papsim: %.1f s: %s", t, a->label);
    if (o->sizes)
        fprintf(stderr, " at %" PRId64 " B", bytes);
    fprintf(stderr, ": %s %.0f steps\n", what, steps);
}

/*
 * Generates, optionally verifies, and simulates algorithm a at `bytes`.
 * CM_OK, or the failing status with the message in err (which says whose).
 */
static cm_status_t run_one(const opts_t *o, const algo_spec_t *a, int64_t bytes,
                           const int64_t *ticks, const double *arr_s,
                           outcome_t *out, cm_err_t *err)
{
    rt_algo_params_t p;
    rt_cost_t c = { o->alpha, o->beta, o->gamma, o->elem_bytes };
    rt_sched_t s;
    cm_status_t st;
    double t[6];

    memset(out, 0, sizeof *out);
    cm_err_clear(err);
    rt_sched_init(&s);
    if ((st = make_params(o, a, bytes, ticks, &p, &out->tau_s, err)) != CM_OK)
        return st;
    if ((st = check_memory(o, a, &p, err)) != CM_OK)
        return st;
    progress(o, a, bytes, "generating about", steps_estimate(a, &p));
    t[0] = now_s(), t[1] = cpu_s();
    st = a->bcast ? rt_algo_reduce_bcast(&s, a->info, a->bcast, &p, -1, err)
                  : a->info->gen(&s, &p, -1, err);
    t[2] = now_s(), t[3] = cpu_s();
    if (st == CM_OK && o->verify) {
        progress(o, a, bytes, "verifying", (double)s.nsteps);
        st = rt_sched_verify(&s, err);
    }
    t[4] = now_s(), t[5] = cpu_s();
    if (st == CM_OK) {
        progress(o, a, bytes, "simulating", (double)s.nsteps);
        st = rt_sched_simulate(&s, &c, arr_s, &out->res, err);
    }
    /* The option ranges keep times finite; should that ever fail, say so
       rather than print inf. */
    if (st == CM_OK && !(isfinite(out->res.completion) && isfinite(out->res.avg_elapsed)
                         && isfinite(out->res.max_elapsed)))
        st = CM_ERR(err, CM_ERR_INVALID, "%s: the simulated times overflow (lower --alpha, "
                    "--beta, --gamma, --bytes or the arrival times)", a->info->name);
    out->sim_s = now_s() - t[4];
    out->sim_cpu = cpu_s() - t[5];
    out->gen_s = t[2] - t[0];
    out->gen_cpu = t[3] - t[1];
    out->verify_s = t[4] - t[2];
    out->nsteps = s.nsteps;
    out->nrounds = s.nrounds;
    rt_sched_free(&s);
    if (st != CM_OK)
        rt_sim_result_free(&out->res);
    return st;
}

/* A generator's or the simulator's message after the label (and size):
   "papsim: LABEL[ at N B]: MESSAGE", without the generator's own "NAME: "
   prefix, which the label already says. */
static void print_refusal(const algo_spec_t *a, int64_t bytes, const cm_err_t *err)
{
    size_t n = strlen(a->info->name);
    const char *msg = err->msg;

    if (strncmp(msg, a->info->name, n) == 0 && msg[n] == ':' && msg[n + 1] == ' ')
        msg += n + 2;
    fprintf(stderr, "papsim: %s", a->label);
    if (bytes > 0)
        fprintf(stderr, " at %" PRId64 " B", bytes);
    fprintf(stderr, ": %s\n", msg);
}

static double metric_of(const opts_t *o, const rt_sim_result_t *r)
{
    return o->metric == MET_AVG ? r->avg_elapsed
         : o->metric == MET_MAX ? r->max_elapsed : r->completion;
}

/* The arrival pattern of the options (runtime/api/rt_sim.h). */
static rt_sim_arrival_t arrival_of(const opts_t *o)
{
    return (rt_sim_arrival_t){ o->arr, o->arr_ms, o->arr_rank, o->seed };
}

static void print_header(const opts_t *o, int64_t bytes)
{
    static const char *ports[] = { "U", "B", "X" };
    double beta = o->beta;
    rt_sim_arrival_t arr = arrival_of(o);
    char how[160];

    if (o->sizes)
        printf("# papsim: P=%d, sizes %" PRId64 "..%" PRId64 " B, %g-byte elements, "
               "root %d, port %s\n", o->nranks, o->size_min, o->size_max,
               o->elem_bytes, o->root, ports[o->port]);
    else
        printf("# papsim: P=%d, %" PRId64 " B = %" PRId64 " x %g-byte elements, "
               "root %d, port %s\n", o->nranks, bytes,
               bytes / (int64_t)o->elem_bytes, o->elem_bytes, o->root,
               ports[o->port]);
    printf("# cost (--net %s%s): alpha %.4g s, beta %.4g s/B (", o->net->name,
           o->overrides ? " + overrides" : "", o->alpha, beta);
    if (beta > 0 && isfinite(8e-9 / beta))
        printf("%.4g Gb/s", 8e-9 / beta);
    else
        printf("bandwidth unlimited");
    printf("), gamma %.4g s/B\n", o->gamma);
    rt_sim_arrival_describe(&arr, how, sizeof how);
    printf("# arrival: %s%s\n", o->arr_text, how);
}

static void print_per_rank(const opts_t *o, const algo_spec_t *a,
                           const outcome_t *out, const double *arr_s)
{
    printf("\n# per rank: %s\n# %-6s %12s %12s %12s\n", a->label, "rank",
           "arrival_ms", "finish_ms", "elapsed_ms");
    for (int32_t r = 0; r < o->nranks; r++)
        printf("  %-6d %12.4f %12.4f %12.4f\n", r, arr_s[r] * 1e3,
               out->res.finish[r] * 1e3, (out->res.finish[r] - arr_s[r]) * 1e3);
}

/* One size: a row per algorithm.  Returns the exit status. */
static int run_single(const opts_t *o, const int64_t *ticks, const double *arr_s)
{
    outcome_t *outs = calloc((size_t)o->nalgos, sizeof *outs);
    double base = 0;
    cm_err_t err;
    int rc = 0, lw = 9;

    if (!outs) {
        fprintf(stderr, "papsim: out of memory\n");
        return 1;
    }
    print_header(o, o->bytes);
    printf("# speedup = avg_elapsed(%s) / avg_elapsed(ALGO); tau: round length "
           "given to PAP-aware generators\n", o->algos[0].label);
    printf("# times in ms; gen, sim: wall time of generating and simulating the "
           "schedule (cpu: CPU time)\n");
    for (int i = 0; i < o->nalgos; i++)
        lw = strlen(o->algos[i].label) > (size_t)lw ? (int)strlen(o->algos[i].label) : lw;
    printf("# %-*s %12s %13s %12s %8s %9s %10s %8s %9s %9s %9s %9s%s\n", lw, "algorithm",
           "avg_elapsed", "completion", "max_elapsed", "speedup", "tau", "steps",
           "rounds", "gen", "sim", "gen_cpu", "sim_cpu", o->verify ? "    verify" : "");
    for (int i = 0; i < o->nalgos && rc == 0; i++) {
        const algo_spec_t *a = &o->algos[i];
        outcome_t *out = &outs[i];

        if (run_one(o, a, o->bytes, ticks, arr_s, out, &err) != CM_OK) {
            fflush(stdout);
            print_refusal(a, 0, &err);
            rc = 1;
            break;
        }
        if (i == 0)
            base = out->res.avg_elapsed;
        printf("  %-*s %12.4f %13.4f %12.4f ", lw, a->label,
               out->res.avg_elapsed * 1e3, out->res.completion * 1e3,
               out->res.max_elapsed * 1e3);
        if (out->res.avg_elapsed > 0)   /* no speedup against a zero time */
            printf("%8.3f ", base / out->res.avg_elapsed);
        else
            printf("%8s ", "-");
        if (out->tau_s > 0)
            printf("%9.4f", out->tau_s * 1e3);
        else
            printf("%9s", "-");
        printf(" %10zu %8d %9.1f %9.1f %9.1f %9.1f", out->nsteps, out->nrounds,
               out->gen_s * 1e3, out->sim_s * 1e3, out->gen_cpu * 1e3,
               out->sim_cpu * 1e3);
        if (o->verify)
            printf(" %10.1f", out->verify_s * 1e3);
        printf("\n");
    }
    if (rc == 0 && o->per_rank)
        for (int i = 0; i < o->nalgos; i++)
            print_per_rank(o, &o->algos[i], &outs[i], arr_s);
    for (int i = 0; i < o->nalgos; i++)
        rt_sim_result_free(&outs[i].res);
    free(outs);
    return rc;
}

/*
 * --sizes: a row per power of two, a column per algorithm (the metric in
 * us), and the best.  A size an algorithm refuses shows "-" and a note on
 * stderr; the exit status is 1 only if an algorithm refused every size.
 */
static int run_sizes(const opts_t *o, const int64_t *ticks, const double *arr_s)
{
    static const char *mname[] = { "avg elapsed", "max elapsed", "completion" };
    int ok[MAX_ALGOS] = { 0 };
    double gen[MAX_ALGOS] = { 0 }, sim[MAX_ALGOS] = { 0 };
    int rc = 0;

    print_header(o, 0);
    printf("# %s time in us; best = the smallest in the row\n", mname[o->metric]);
    printf("# %-10s", "bytes");
    for (int i = 0; i < o->nalgos; i++)
        printf(" %*s", (int)(strlen(o->algos[i].label) > 12 ? strlen(o->algos[i].label) : 12),
               o->algos[i].label);
    printf("  best\n");
    for (int64_t b = o->size_min; b <= o->size_max; b *= 2) {
        double best = INFINITY;
        int besti = -1;

        printf("  %-10" PRId64, b);
        for (int i = 0; i < o->nalgos; i++) {
            int w = (int)(strlen(o->algos[i].label) > 12 ? strlen(o->algos[i].label) : 12);
            outcome_t out;
            cm_err_t err;

            if (run_one(o, &o->algos[i], b, ticks, arr_s, &out, &err) != CM_OK) {
                fflush(stdout);
                print_refusal(&o->algos[i], b, &err);
                printf(" %*s", w, "-");
                continue;
            }
            ok[i]++;
            gen[i] += out.gen_s;
            sim[i] += out.sim_s;
            printf(" %*.2f", w, metric_of(o, &out.res) * 1e6);
            if (metric_of(o, &out.res) < best) {
                best = metric_of(o, &out.res);
                besti = i;
            }
            rt_sim_result_free(&out.res);
        }
        printf("  %s\n", besti >= 0 ? o->algos[besti].label : "-");
        fflush(stdout);
        if (b > o->size_max / 2)
            break;
    }
    printf("# wall time over all sizes, generation + simulation (ms):");
    for (int i = 0; i < o->nalgos; i++) {
        printf(" %s %.1f+%.1f", o->algos[i].label, gen[i] * 1e3, sim[i] * 1e3);
        if (!ok[i])
            rc = 1;
    }
    printf("\n");
    return rc;
}

/* Options that only make sense together, and the ranks, once P is known:
   CM_OK or the error, recorded in ctx. */
static cm_status_t check_opts(cm_opt_t *ctx, opts_t *o, int have_bytes)
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


enum { O_BYTES = 256, O_SIZES, O_METRIC, O_ELEM, O_SEGS, O_SEGSIZE, O_ROOT, O_PPN,
       O_TREE, O_PORT, O_NET, O_ALPHA, O_BETA, O_GAMMA, O_ARRIVAL, O_SEED, O_PERRANK,
       O_VERIFY, O_MEMLIMIT };

static const struct option longopts[] = {
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
    { "verbose", no_argument, NULL, 'v' },
    { NULL, 0, NULL, 0 },
};

/* The index of arg among names (NULL-terminated), or -1. */

/* Applies option c (named opt) to o: CM_OK or the error, recorded in ctx. */
static cm_status_t apply_opt(cm_opt_t *ctx, opts_t *o, int c, const char *opt,
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
    default: return cm_opt_fail(ctx, CM_ERR_INVALID, opt, "unexpected option");
    }
}

/* --net FILE: 0, 1 (a file that cannot be read or is bad) or 2 (no such
   file: the name was neither a preset nor a file). */
static int load_net(opts_t *o)
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

int main(int argc, char **argv)
{
    static opts_t o = { .nranks = 48, .bytes = 4 << 20, .elem_bytes = 4, .port = RT_PORT_U,
                        .tree = RT_TREE_HEAP, .net = &nets[0], .arr = RT_SIM_ARRIVAL_NONE,
                        .arr_text = "none", .seed = 1, .metric = MET_AVG };
    int c, have_bytes = 0, rc;
    int64_t *ticks;
    double *arr_s;
    rt_sim_arrival_t arr;
    cm_err_t err;
    const char *opt;
    cm_opt_t ctx;

    o.alpha = o.beta = o.gamma = NAN;
    o.t0 = now_s();
    o.mem_limit = rt_algo_mem_default();
    cm_opt_init(&ctx, "papsim");
    while ((c = cm_opt_next(&ctx, argc, argv, ":P:hv", longopts, &opt)) != -1) {
        if (c == 'h') {
            usage(stdout);
            list_algos(stdout);
            return 0;
        }
        have_bytes |= c == O_BYTES;
        apply_opt(&ctx, &o, c, opt, optarg);
    }
    if (ctx.status != CM_OK) {
        cm_opt_print(&ctx, stderr);
        if (ctx.name[0] == '\0')       /* getopt's complaint: an unknown option */
            usage(stderr);
        return 2;
    }
    if (o.net_file && (rc = load_net(&o)) != 0)
        return rc;
    if (isnan(o.alpha))
        o.alpha = o.net->alpha;
    if (isnan(o.beta))
        o.beta = o.net->beta;
    if (isnan(o.gamma))
        o.gamma = o.net->gamma;
    if (optind >= argc)
        cm_opt_fail(&ctx, CM_ERR_INVALID, NULL, "no algorithm given (papsim -h lists them)");
    else if (argc - optind > MAX_ALGOS)
        cm_opt_fail(&ctx, CM_ERR_RANGE, NULL, "%d algorithms, expected at most %d",
                    argc - optind, MAX_ALGOS);
    else
        check_opts(&ctx, &o, have_bytes);
    if (ctx.status != CM_OK) {
        cm_opt_print(&ctx, stderr);
        return 2;
    }
    for (int i = optind; i < argc; i++)
        if ((rc = parse_algo(&o.algos[o.nalgos++], argv[i])) != 0)
            return rc;
    ticks = malloc((size_t)o.nranks * sizeof *ticks);
    arr_s = malloc((size_t)o.nranks * sizeof *arr_s);
    if (!ticks || !arr_s) {
        fprintf(stderr, "papsim: out of memory\n");
        return 1;
    }
    arr = arrival_of(&o);
    cm_err_clear(&err);
    if (rt_sim_arrival_make(&arr, o.nranks, ticks, &err) != CM_OK) {
        cm_err_print(stderr, "papsim: ", &err);     /* check_opts let a bad pattern by */
        free(ticks);
        free(arr_s);
        return 1;
    }
    for (int32_t r = 0; r < o.nranks; r++)
        arr_s[r] = (double)ticks[r] * 1e-9;
    rc = o.sizes ? run_sizes(&o, ticks, arr_s) : run_single(&o, ticks, arr_s);
    free(ticks);
    free(arr_s);
    return rc;
}
