/*
 * algo_size.c - how many steps a generator will make, without generating:
 * what the tools check against their memory limit before they allocate
 * (a step is 16 bytes; the ring at P = 8192 has 268 M of them, 4.3 GB).
 *
 * One formula per generator, from its structure (P ranks, L = ceil(log2 P),
 * S pipeline segments as rt_part_segments counts them, steps = 2 per
 * transfer), an upper bound that t_steps_estimate holds each generator of
 * the table to over a sweep of P, counts, segments, roots and arrivals:
 *
 *   ring, prr        2(P-1) rounds, every rank sends and receives: 4P(P-1)
 *   ring-seg         the ring with ph = count/(P segcount) + 1 reduce-scatter
 *                    phases of P-1 rounds, the allgather unsegmented:
 *                    2P(P-1)(ph + 1)
 *   rd               log2 P exchanges, the extra ranks' fold: 2PL
 *   rabenseifner     halving then doubling: 4PL
 *   nap              the intra-node allreduce and each step's exchange and
 *                    combine: about 3PL (2.83PL at 64 ranks of 2 per node);
 *                    3PL + 4P with the fold of extra nodes
 *   slt              S segments (default P) down and up a chain: 4(P-1)S
 *   binomial-*       P-1 transfers: 2(P-1)
 *   chain-*, bintree-reduce, greedy-reduce   every non-root rank moves each
 *                    segment once: 2(P-1)S
 *   clv, clv-linear  at least 2(P-1)S; a sink may take back a segment it
 *                    gave away, so more with skewed arrivals (1.9 x 2PS is
 *                    the most the sweep of random instances has shown): 4PS
 *
 * Doubles, so that no product overflows (P up to 2^20, S up to 2^31).
 *
 * Also here, so that papsim and clvbench say it alike: the default limit
 * (half the machine's memory), sizes as the tools take them ("512M"), and
 * the check with its message.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "runtime/algo/algo_int.h"

/* Pipeline segments as rt_part_segments counts them; `dflt` when neither
   nsegs nor segcount is given. */
static double segments(const rt_algo_params_t *p, double dflt)
{
    if (p->segcount > 0)
        return p->count > 0 ? ceil((double)p->count / (double)p->segcount) : 1;
    return p->nsegs > 0 ? (double)p->nsegs : dflt;
}

static double log2_ceil(double P)
{
    return P > 1 ? ceil(log2(P)) : 0;
}

double rt_algo_steps_estimate(const rt_algo_info_t *a, const rt_algo_params_t *p)
{
    double P = p->nranks, L = log2_ceil(P);
    rt_algo_gen_fn *g = a->gen;

    if (p->nranks <= 1)
        return 0;
    if (g == rt_algo_ring || g == rt_algo_prr)
        return 4 * P * (P - 1);
    if (g == rt_algo_ring_seg) {
        double seg = p->segcount > 0 ? (double)p->segcount : (double)p->count;
        double ph = seg > 0 ? floor((double)p->count / (P * seg)) + 1 : 1;
        return 2 * P * (P - 1) * (ph + 1);
    }
    if (g == rt_algo_rd)
        return 2 * P * L;
    if (g == rt_algo_rabenseifner)
        return 4 * P * L;
    if (g == rt_algo_nap)
        return 3 * P * L + 4 * P;
    if (g == rt_algo_slt)
        return 4 * (P - 1) * segments(p, P);
    if (g == rt_algo_binomial_reduce || g == rt_algo_binomial_bcast)
        return 2 * (P - 1);
    if (g == rt_algo_chain_reduce || g == rt_algo_chain_bcast ||
        g == rt_algo_bintree_reduce || g == rt_algo_greedy_reduce)
        return 2 * (P - 1) * segments(p, 1);
    if (g == rt_algo_clv || g == rt_algo_clv_linear)
        return 4 * P * segments(p, 1);
    /* A generator this file does not know yet: the ring's count, the most
       of any regular algorithm, so that the check errs on the safe side. */
    return 4 * P * (P - 1);
}

double rt_algo_mem_default(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

    return pages > 0 && size > 0 ? (double)pages * (double)size / 2 : INFINITY;
}

/* "4.00 GiB". */
static const char *fmt_bytes(double b, char *buf, size_t len)
{
    static const char *const unit[] = { "bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
    int i = 0;

    while (b >= 1024 && i < 6)
        b /= 1024, i++;
    snprintf(buf, len, i ? "%.2f %s" : "%.0f %s", b, unit[i]);
    return buf;
}

cm_status_t rt_algo_mem_check(const char *what, double steps, double per_step, double limit,
                              const char *hint, cm_err_t *err)
{
    char need[32], lim[32];

    if (steps * per_step <= limit)
        return CM_OK;
    return CM_ERR(err, CM_ERR_NOMEM, "%s would take about %s (%.0f steps of %.0f bytes): "
                  "over the memory limit of %s%s", what,
                  fmt_bytes(steps * per_step, need, sizeof need), steps, per_step,
                  fmt_bytes(limit, lim, sizeof lim), hint ? hint : "");
}
