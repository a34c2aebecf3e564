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
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cm_err.h"
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
"                        floats)\n"
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
 * keeps a round length in ticks within int64.
 */
typedef struct irange { const char *what; int64_t min, max; } irange_t;
typedef struct drange { const char *what; double min, max; const char *unit; } drange_t;

#define BYTES_MAX (INT64_C(1) << 62)
static const irange_t R_NRANKS = { "processes", 1, RT_SCHED_RANKS_MAX };
static const irange_t R_BYTES = { "message bytes", 0, BYTES_MAX };
static const irange_t R_SIZES = { "MIN and MAX bytes", 1, BYTES_MAX };
static const irange_t R_ELEM = { "bytes per element", 1, 1 << 20 };
static const irange_t R_SEGS = { "segments", 1, INT32_MAX };
static const irange_t R_SEGSIZE = { "segment bytes", 1, INT64_MAX };
static const irange_t R_PPN = { "processes per node", 1, RT_SCHED_RANKS_MAX };
static const irange_t R_SEED = { "seed", 0, INT64_MAX };
static const irange_t R_MEM = { "bytes (with K, M, G or T)", 1, RT_MEM_MAX };
static const drange_t R_ALPHA = { "seconds per message", 0, 1000, "" };
static const drange_t R_BETA = { "seconds per byte", 0, 1, "" };
static const drange_t R_GAMMA = { "seconds per byte reduced", 0, 1, "" };
static const drange_t R_ARR_MS = { "MS", 0, 1e9, " ms" };
#define TAU_MAX_S 1e9

/* 0, -1 (not an integer) or -2 (outside [min, max], or past int64). */
static int parse_i64(const char *s, int64_t min, int64_t max, int64_t *out)
{
    char *end;
    long long v;

    errno = 0;
    v = strtoll(s, &end, 10);
    if (end == s || *end != '\0')
        return -1;
    if (errno == ERANGE || v < min || v > max)
        return -2;
    *out = v;
    return 0;
}

/* 0, -1 (not a finite number) or -2 (outside [min, max]). */
static int parse_dbl(const char *s, double min, double max, double *out)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (end == s || *end != '\0' || isnan(v) || (isinf(v) && errno != ERANGE))
        return -1;                       /* not a number, or "inf" itself */
    if ((errno == ERANGE && fabs(v) >= 1) || v < min || v > max)
        return -2;                       /* (an underflow is a tiny number) */
    *out = v;
    return 0;
}

/* msg = "expected WHAT, MIN to MAX" (rc -1) or "out of range: ..." (-2). */
static void irange_msg(char *msg, size_t len, int rc, const irange_t *r)
{
    snprintf(msg, len, "%s%s, %" PRId64 " to %" PRId64, rc == -2 ? "out of range: " :
             "expected ", r->what, r->min, r->max);
}

static void drange_msg(char *msg, size_t len, int rc, const drange_t *r)
{
    snprintf(msg, len, "%s%s, %.15g to %.15g%s", rc == -2 ? "out of range: " : "expected ",
             r->what, r->min, r->max, r->unit);
}

/* An integer option: 0, or -1 with msg set. */
static int get_i64(const char *arg, const irange_t *r, int64_t *dst, char *msg, size_t len)
{
    int rc = parse_i64(arg, r->min, r->max, dst);

    if (rc != 0)
        irange_msg(msg, len, rc, r);
    return rc ? -1 : 0;
}

static int get_i32(const char *arg, const irange_t *r, int32_t *dst, char *msg, size_t len)
{
    int64_t v;

    if (get_i64(arg, r, &v, msg, len) != 0)
        return -1;
    *dst = (int32_t)v;
    return 0;
}

static int get_dbl(const char *arg, const drange_t *r, double *dst, char *msg, size_t len)
{
    int rc = parse_dbl(arg, r->min, r->max, dst);

    if (rc != 0)
        drange_msg(msg, len, rc, r);
    return rc ? -1 : 0;
}

/* A rank of P given as text: 0, or -1 with msg ("... a rank of P = 48,
   0 to 47").  The text is checked only once P is known. */
static int get_rank(const char *arg, int32_t nranks, int32_t *dst, char *msg, size_t len)
{
    char what[64];
    irange_t r = { what, 0, nranks - 1 };

    snprintf(what, sizeof what, "a rank of P = %d", nranks);
    return get_i32(arg, &r, dst, msg, len);
}

/* --mem-limit: bytes, or K, M, G, T (powers of 1024) after the number. */
static int get_mem(const char *arg, double *dst, char *msg, size_t len)
{
    int rc = rt_algo_mem_parse(arg, dst);

    if (rc != 0)
        irange_msg(msg, len, rc, &R_MEM);
    return rc ? -1 : 0;
}

/*
 * --arrival none | KIND:MS[:X], X = the rank (one-late, kept as text for
 * check_opts) or the seed (random).  0, or -1 with msg set.
 */
static int parse_arrival(opts_t *o, const char *text, char *msg, size_t len)
{
    static const struct { const char *name; rt_sim_arrival_kind_t kind; int x; } kinds[] = {
        { "one-late", RT_SIM_ARRIVAL_ONE_LATE, 1 }, { "random", RT_SIM_ARRIVAL_RANDOM, 1 },
        { "sorted", RT_SIM_ARRIVAL_SORTED, 0 }, { "reversed", RT_SIM_ARRIVAL_REVERSED, 0 },
    };
    const char *colon = strchr(text, ':'), *x;
    char ms[64];
    int64_t v;

    o->arr_text = text;
    o->arr_rank_text = NULL;
    o->arr_rank = 1;
    if (strcmp(text, "none") == 0) {
        o->arr = RT_SIM_ARRIVAL_NONE;
        return 0;
    }
    for (size_t i = 0; colon && i < sizeof kinds / sizeof *kinds; i++) {
        if (strncmp(text, kinds[i].name, (size_t)(colon - text)) != 0 ||
            kinds[i].name[colon - text] != '\0')
            continue;
        o->arr = kinds[i].kind;
        x = strchr(colon + 1, ':');
        size_t n = x ? (size_t)(x - colon - 1) : strlen(colon + 1);
        snprintf(ms, sizeof ms, "%.*s", (int)(n < sizeof ms ? n : 0), colon + 1);
        if (get_dbl(ms, &R_ARR_MS, &o->arr_ms, msg, len) != 0)  /* too long: "" */
            return -1;
        if (x == NULL)
            return 0;
        if (!kinds[i].x)
            break;
        if (o->arr == RT_SIM_ARRIVAL_ONE_LATE) {
            o->arr_rank_text = x + 1;
            return 0;
        }
        if (get_i64(x + 1, &R_SEED, &v, msg, len) != 0)
            return -1;
        o->seed = (uint64_t)v;
        return 0;
    }
    snprintf(msg, len, "expected none, one-late:MS[:RANK], random:MS[:SEED], sorted:MS or "
             "reversed:MS");
    return -1;
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
    int64_t v;

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
        char msg[160];

        if (!seg && !size) {
            fprintf(stderr, "papsim: %s: expected ALGO:segs=Q or "
                            "ALGO:segsize=BYTES\n", text);
            return 2;
        }
        if (get_i64(colon + (seg ? 6 : 9), seg ? &R_SEGS : &R_SEGSIZE, &v, msg,
                    sizeof msg) != 0) {
            fprintf(stderr, "papsim: %s: %s\n", text, msg);
            return 2;
        }
        if (seg)
            a->nsegs = (int32_t)v;
        else
            a->segbytes = v;
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

/* Prints "papsim: MESSAGE" and returns 2 (a usage error). */
static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
    va_list ap;

    fputs("papsim: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 2;
}

/* Options that only make sense together, and the ranks, once P is known;
   0, or 2 with a message. */
static int check_opts(opts_t *o, int have_bytes)
{
    int64_t eb = (int64_t)o->elem_bytes;
    char msg[160];

    if (o->sizes && have_bytes)
        return usage_error("give --bytes or --sizes, not both");
    if (o->sizes && o->per_rank)
        return usage_error("--per-rank needs one size (--bytes)");
    if (o->nsegs > 0 && o->segbytes > 0)
        return usage_error("give --segs or --segsize, not both");
    if (o->root_text && get_rank(o->root_text, o->nranks, &o->root, msg, sizeof msg) != 0)
        return usage_error("--root %s: %s", o->root_text, msg);
    if (o->arr == RT_SIM_ARRIVAL_ONE_LATE && o->arr_rank_text == NULL && o->nranks < 2)
        return usage_error("--arrival %s: rank 1 (the default RANK) is not a rank of P = 1",
                           o->arr_text);
    if (o->arr == RT_SIM_ARRIVAL_ONE_LATE && o->arr_rank_text &&
        get_rank(o->arr_rank_text, o->nranks, &o->arr_rank, msg, sizeof msg) != 0)
        return usage_error("--arrival %s: %s", o->arr_text, msg);
    if (!o->sizes && o->bytes % eb != 0)
        return usage_error("--bytes %" PRId64 " is not a multiple of --elem-bytes %" PRId64,
                           o->bytes, eb);
    if (o->sizes && (o->size_min > o->size_max || o->size_min % eb != 0))
        return usage_error("--sizes %" PRId64 ":%" PRId64 ": MIN must be <= MAX and a "
                           "multiple of --elem-bytes", o->size_min, o->size_max);
    return 0;
}

static int parse_sizes(opts_t *o, const char *arg, char *msg, size_t len)
{
    const char *colon = strchr(arg, ':');
    char buf[64];
    int rc;

    if (!colon || (size_t)(colon - arg) >= sizeof buf) {
        irange_msg(msg, len, -1, &R_SIZES);
        return -1;
    }
    memcpy(buf, arg, (size_t)(colon - arg));
    buf[colon - arg] = '\0';
    rc = parse_i64(buf, R_SIZES.min, R_SIZES.max, &o->size_min);
    if (rc == 0)
        rc = parse_i64(colon + 1, R_SIZES.min, R_SIZES.max, &o->size_max);
    if (rc != 0) {
        irange_msg(msg, len, rc, &R_SIZES);
        return -1;
    }
    o->sizes = 1;
    return 0;
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
static int pick(const char *arg, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (strcmp(arg, names[i]) == 0)
            return i;
    return -1;
}

/* Applies option c; 0, or -1 with what was wrong with arg in msg. */
static int apply_opt(opts_t *o, int c, const char *arg, char *msg, size_t len)
{
    static const char *const metrics[] = { "avg", "max", "completion", NULL };
    static const char *const trees[] = { "heap", "ompi", NULL };
    static const char *const ports[] = { "U", "B", NULL };
    int32_t v32;
    int i;

    switch (c) {
    case 'P': return get_i32(arg, &R_NRANKS, &o->nranks, msg, len);
    case O_BYTES: return get_i64(arg, &R_BYTES, &o->bytes, msg, len);
    case O_SIZES: return parse_sizes(o, arg, msg, len);
    case O_METRIC:
        if ((i = pick(arg, metrics)) < 0)
            break;
        o->metric = (metric_t)i;
        return 0;
    case O_ELEM:
        if (get_i32(arg, &R_ELEM, &v32, msg, len) != 0)
            return -1;
        o->elem_bytes = v32;
        return 0;
    case O_SEGS: return get_i32(arg, &R_SEGS, &o->nsegs, msg, len);
    case O_SEGSIZE: return get_i64(arg, &R_SEGSIZE, &o->segbytes, msg, len);
    case O_ROOT: o->root_text = arg; return 0;     /* a rank of P: check_opts */
    case O_PPN: return get_i32(arg, &R_PPN, &o->ppn, msg, len);
    case O_TREE:
        if ((i = pick(arg, trees)) < 0)
            break;
        o->tree = i == 0 ? RT_TREE_HEAP : RT_TREE_OMPI;
        return 0;
    case O_PORT:
        if ((i = pick(arg, ports)) < 0)
            break;
        o->port = i == 0 ? RT_PORT_U : RT_PORT_B;
        return 0;
    case O_NET:
        for (size_t n = 0; n < sizeof nets / sizeof *nets; n++)
            if (strcmp(arg, nets[n].name) == 0) {
                o->net = &nets[n];
                o->net_file = NULL;
                return 0;
            }
        o->net_file = arg;                         /* read after the options */
        return 0;
    case O_ALPHA: o->overrides = 1; return get_dbl(arg, &R_ALPHA, &o->alpha, msg, len);
    case O_BETA: o->overrides = 1; return get_dbl(arg, &R_BETA, &o->beta, msg, len);
    case O_GAMMA: o->overrides = 1; return get_dbl(arg, &R_GAMMA, &o->gamma, msg, len);
    case O_ARRIVAL: return parse_arrival(o, arg, msg, len);
    case O_SEED: return get_i64(arg, &R_SEED, (int64_t *)&o->seed, msg, len);
    case O_PERRANK: o->per_rank = 1; return 0;
    case O_VERIFY: o->verify = 1; return 0;
    case O_MEMLIMIT: return get_mem(arg, &o->mem_limit, msg, len);
    case 'v': o->verbose = 1; return 0;
    default:
        snprintf(msg, len, "unexpected option");
        return -1;
    }
    /* A word from a list. */
    snprintf(msg, len, "expected %s", c == O_METRIC ? "avg, max or completion"
             : c == O_TREE ? "heap or ompi" : "U or B");
    return -1;
}

/* --net FILE: 0, 1 (a file that cannot be read or is bad) or 2 (no such
   file: the name was neither a preset nor a file). */
static int load_net(opts_t *o)
{
    FILE *fp = fopen(o->net_file, "r");
    rt_net_t file;
    cm_err_t err;
    cm_status_t st;

    if (!fp && errno == ENOENT)
        return usage_error("--net %s: expected 1gbe, 10gbe, ib-fdr, measured or a net file "
                           "(none by that name)", o->net_file);
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
    int c, li = 0, have_bytes = 0, rc;
    int64_t *ticks;
    double *arr_s;
    char msg[200];
    rt_sim_arrival_t arr;
    cm_err_t err;

    o.alpha = o.beta = o.gamma = NAN;
    o.t0 = now_s();
    o.mem_limit = rt_algo_mem_default();
    opterr = 0;     /* our own messages, "papsim: ...", as for bad values */
    while ((c = getopt_long(argc, argv, ":P:hv", longopts, &li)) != -1) {
        if (c == 'h') {
            usage(stdout);
            list_algos(stdout);
            return 0;
        } else if (c == ':') {
            return usage_error("%s needs a value", argv[optind - 1]);
        } else if (c == '?') {
            usage_error("unknown option %s", argv[optind - 1]);
            usage(stderr);
            return 2;
        }
        have_bytes |= c == O_BYTES;
        if (apply_opt(&o, c, optarg, msg, sizeof msg) != 0)
            return usage_error("%s%s %s: %s", c == 'P' ? "-" : "--",
                               c == 'P' ? "P" : longopts[li].name, optarg, msg);
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
        return usage_error("no algorithm given (papsim -h lists them)");
    if (argc - optind > MAX_ALGOS)
        return usage_error("at most %d algorithms", MAX_ALGOS);
    if ((rc = check_opts(&o, have_bytes)) != 0)
        return rc;
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
