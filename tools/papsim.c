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
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/papsim/papsim_int.h"

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

int main(int argc, char **argv)
{
    static opts_t o = { .nranks = 48, .bytes = 4 << 20, .elem_bytes = 4, .port = RT_PORT_U,
                        .tree = RT_TREE_HEAP, .net = &nets[0], .arr = RT_SIM_ARRIVAL_NONE,
                        .arr_text = "none", .seed = 1, .metric = MET_AVG, .ops = 100 };
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
    if (strncmp(argv[optind], "auto", 4) == 0 && (argv[optind][4] == '\0' ||
                                                   argv[optind][4] == ':')) {
        if (argc - optind != 1) {
            fprintf(stderr, "papsim: auto runs alone (it compares its candidates itself)\n");
            return 2;
        }
        return run_auto(&o, argv[optind]);
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
