/*
 * run.c - one algorithm at one size: the generator's parameters (make_params),
 * the step estimate and the memory check, progress lines, generating,
 * verifying and simulating (run_one), and what the tables print around it.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tools/papsim/papsim_int.h"

static double clock_s(clockid_t id)
{
    struct timespec ts;

    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Wall time, and this process's CPU time: on a shared machine the wall
   time also counts waiting for a CPU, the CPU time does not. */
double now_s(void) { return clock_s(CLOCK_MONOTONIC); }
static double cpu_s(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }

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
cm_status_t run_one(const opts_t *o, const algo_spec_t *a, int64_t bytes,
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
void print_refusal(const algo_spec_t *a, int64_t bytes, const cm_err_t *err)
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

double metric_of(const opts_t *o, const rt_sim_result_t *r)
{
    return o->metric == MET_AVG ? r->avg_elapsed
         : o->metric == MET_MAX ? r->max_elapsed : r->completion;
}

/* The arrival pattern of the options (runtime/api/rt_sim.h). */
rt_sim_arrival_t arrival_of(const opts_t *o)
{
    return (rt_sim_arrival_t){ o->arr, o->arr_ms, o->arr_rank, o->seed };
}

void print_header(const opts_t *o, int64_t bytes)
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

void print_per_rank(const opts_t *o, const algo_spec_t *a,
                    const outcome_t *out, const double *arr_s)
{
    printf("\n# per rank: %s\n# %-6s %12s %12s %12s\n", a->label, "rank",
           "arrival_ms", "finish_ms", "elapsed_ms");
    for (int32_t r = 0; r < o->nranks; r++)
        printf("  %-6d %12.4f %12.4f %12.4f\n", r, arr_s[r] * 1e3,
               out->res.finish[r] * 1e3, (out->res.finish[r] - arr_s[r]) * 1e3);
}
