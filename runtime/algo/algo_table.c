/*
 * algo_table.c - the algorithms by name: selection is data, not code.
 *
 * One row per generator: its name, what it computes, the parameters it
 * reads, its preconditions in words, what it is for, and where it comes
 * from.  A precondition that fails is the generator's CM_ERR_UNSUPPORTED
 * with a message, never a quiet switch to another row.  docs/algorithms.md
 * is this table in prose; `papsim --help` prints it.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/algo/algo_int.h"

static const rt_algo_info_t algo_table[] = {
    { "ring", RT_COLL_ALLREDUCE, rt_algo_ring,
      "count",
      "any P and count (count < P gives empty blocks)",
      "bandwidth-optimal allreduce: reduce-scatter then allgather around a ring",
      "Open MPI ompi_coll_base_allreduce_intra_ring" },
    { "ring-seg", RT_COLL_ALLREDUCE, rt_algo_ring_seg,
      "count, segcount",
      "segcount > 0",
      "ring whose reduce-scatter is pipelined in phases of segcount-sized pieces",
      "Open MPI ompi_coll_base_allreduce_intra_ring_segmented" },
    { "rd", RT_COLL_ALLREDUCE, rt_algo_rd,
      "count",
      "any P (non-powers of two fold the extra ranks)",
      "latency-optimal allreduce for small vectors: log2 P exchanges of the whole vector",
      "Thakur, Rabenseifner, Gropp 2005; Open MPI / MPICH recursive doubling" },
    { "rabenseifner", RT_COLL_ALLREDUCE, rt_algo_rabenseifner,
      "count",
      "count >= largest power of two <= P",
      "reduce-scatter by recursive halving, allgather by recursive doubling",
      "Rabenseifner 2004; Open MPI ompi_coll_base_allreduce_intra_redscat_allgather" },
    { "slt", RT_COLL_ALLREDUCE, rt_algo_slt,
      "count, arrival, nsegs or segcount (default P segments)",
      "any P",
      "PAP-aware: a pipelined chain in arrival order, late processes last",
      "Proficz 2018, section 4.1, Fig. 5" },
    { "prr", RT_COLL_ALLREDUCE, rt_algo_prr,
      "count, arrival, round_len (tau)",
      "round_len > 0",
      "PAP-aware: ring with pre-reduction steps among the early processes",
      "Proficz 2018, section 4.2, Fig. 7" },
    { "nap", RT_COLL_ALLREDUCE, rt_algo_nap,
      "count, ppn, nap_steps",
      "ppn >= 2 divides P; explicit steps multiply to the node count",
      "node-aware allreduce: one inter-node message per process per step",
      "Bienz, Olson, Gropp 2019, section III" },
    { "binomial-reduce", RT_COLL_REDUCE, rt_algo_binomial_reduce,
      "count, root",
      "any P, any root",
      "latency-optimal reduce: ceil(log2 P) rounds of whole vectors",
      "MPICH reduce_intra_binomial" },
    { "binomial-bcast", RT_COLL_BCAST, rt_algo_binomial_bcast,
      "count, root",
      "any P, any root",
      "broadcast down a binomial tree (the reduce's mirror image)",
      "MPICH bcast_intra_binomial" },
    { "chain-reduce", RT_COLL_REDUCE, rt_algo_chain_reduce,
      "count, root, nsegs or segcount, port (U or B)",
      "port U or B",
      "pipelined chain reduce for large vectors",
      "Open MPI ompi_coll_base_reduce_intra_pipeline" },
    { "chain-bcast", RT_COLL_BCAST, rt_algo_chain_bcast,
      "count, root, nsegs or segcount, port (U or B)",
      "port U or B",
      "pipelined chain broadcast",
      "Open MPI ompi_coll_base_bcast_intra_pipeline" },
    { "bintree-reduce", RT_COLL_REDUCE, rt_algo_bintree_reduce,
      "count, root, nsegs or segcount, port (U or B), tree (heap or ompi)",
      "port U or B",
      "pipelined binary tree reduce",
      "Open MPI ompi_coll_base_reduce_intra_binary" },
    { "greedy-reduce", RT_COLL_REDUCE, rt_algo_greedy_reduce,
      "count, root, nsegs or segcount, port (U only)",
      "port U (the bidirectional rule is not published)",
      "greedy pipelined reduce: binomial on the first segment, pipelined after",
      "Lowery & Langou 2013, via Tanaka 2017, section 4" },
    { "clv-linear", RT_COLL_REDUCE, rt_algo_clv_linear,
      "count, root, arrival, round_len (d), nsegs or segcount",
      "round_len > 0",
      "PAP-aware reduce (Clairvoyant), literal linear-search version",
      "Marendic et al. 2016, fixed as in Proficz & Ocetkiewicz 2020" },
    { "clv", RT_COLL_REDUCE, rt_algo_clv,
      "count, root, arrival, round_len (d), nsegs or segcount",
      "round_len > 0",
      "PAP-aware reduce (Clairvoyant), segment-tree version: same schedules, faster",
      "Proficz & Ocetkiewicz 2020, section 5" },
};

const rt_algo_info_t *rt_algo_table(size_t *n)
{
    *n = sizeof algo_table / sizeof algo_table[0];
    return algo_table;
}

const rt_algo_info_t *rt_algo_find(const char *name)
{
    for (size_t i = 0; i < sizeof algo_table / sizeof algo_table[0]; i++)
        if (strcmp(algo_table[i].name, name) == 0)
            return &algo_table[i];
    return NULL;
}

/* ---- reduce + broadcast = allreduce ------------------------------------ */

/*
 * The common refinement of two partitions of the same vector: every
 * boundary of either, where a value that repeats (empty pieces) keeps the
 * larger of its two multiplicities so that every empty piece of either
 * still has a piece of its own.  map[k] is the position of boundary k of
 * `a` in the result.
 */
static int64_t *refine(const int64_t *a, int32_t na, const int64_t *b,
                       int32_t nb, int32_t *nout)
{
    int64_t *out = malloc(((size_t)na + nb + 2) * sizeof *out);
    int32_t i = 0, j = 0, n = 0;

    if (!out)
        return NULL;
    while (i <= na || j <= nb) {
        int64_t v = i > na ? b[j] : j > nb ? a[i] : a[i] < b[j] ? a[i] : b[j];
        int32_t ca = 0, cb = 0;

        while (i <= na && a[i] == v)
            i++, ca++;
        while (j <= nb && b[j] == v)
            j++, cb++;
        for (int32_t k = 0; k < (ca > cb ? ca : cb); k++)
            out[n++] = v;
    }
    *nout = n - 1;
    return out;
}

/*
 * Position of each boundary of `a` in its refinement `r`.  A run of equal
 * values in `a` (empty pieces) lies inside the run of that value in `r`,
 * which is at least as long: its first boundary maps to the run's start,
 * its last to the run's end, the ones between to start + 1, start + 2, ...
 * So the pieces of `a` cover the pieces of `r` exactly, empty ones too.
 */
static void boundary_map(const int64_t *a, int32_t na, const int64_t *r,
                         int32_t nr, int32_t *map)
{
    int32_t pos = 0;

    for (int32_t k0 = 0; k0 <= na;) {
        int32_t k1 = k0, rs, re;

        while (k1 < na && a[k1 + 1] == a[k0])
            k1++;
        while (r[pos] < a[k0])
            pos++;
        rs = re = pos;
        while (re < nr && r[re + 1] == a[k0])
            re++;
        for (int32_t j = 0; k0 + j <= k1; j++)
            map[k0 + j] = k0 + j == k1 ? re : rs + j;
        k0 = k1 + 1;
        pos = re;
    }
}

/* Appends rank r's steps of `in`, pieces renumbered, rounds shifted. */
static cm_status_t copy_steps(rt_sched_t *out, const rt_sched_t *in,
                              int32_t r, const int32_t *map,
                              int32_t round_shift)
{
    size_t n;
    const rt_step_t *st = rt_sched_rank_steps(in, r, &n);

    for (size_t i = 0; i < n; i++) {
        int32_t first = map[st[i].piece];
        int32_t last = map[st[i].piece + st[i].npieces];
        cm_status_t rc = rt_sched_step(out, r, st[i].round + round_shift,
                                       st[i].peer, st[i].dir, st[i].act,
                                       st[i].flags, first, last - first);

        if (rc != CM_OK)
            return rc;
    }
    return CM_OK;
}

cm_status_t rt_algo_reduce_bcast(rt_sched_t *s, const rt_algo_info_t *reduce,
                                 const rt_algo_info_t *bcast,
                                 const rt_algo_params_t *p, int32_t rank,
                                 cm_err_t *err)
{
    rt_sched_t red, bc;
    int64_t *off = NULL;
    int32_t n = 0, *map_r = NULL, *map_b = NULL;
    cm_status_t st;

    if (reduce->coll != RT_COLL_REDUCE || bcast->coll != RT_COLL_BCAST)
        return CM_ERR(err, CM_ERR_INVALID,
                      "%s+%s: an allreduce needs a reduce and then a "
                      "broadcast", reduce->name, bcast->name);
    rt_sched_init(&red);
    rt_sched_init(&bc);
    /* For one rank, the reduce's own steps suffice when its generator also
       says how many rounds all ranks take (the broadcast comes after them,
       in the same rounds on every rank); otherwise all ranks' are made. */
    st = reduce->gen(&red, p, rank, err);
    if (st == CM_OK && rank >= 0 && red.nrounds_all == 0) {
        rt_sched_free(&red);
        rt_sched_init(&red);
        st = reduce->gen(&red, p, -1, err);
    }
    if (st == CM_OK)
        st = bcast->gen(&bc, p, rank, err);
    if (st != CM_OK)
        goto out;
    off = refine(red.piece_off, red.npieces, bc.piece_off, bc.npieces, &n);
    map_r = malloc(((size_t)red.npieces + 1) * sizeof *map_r);
    map_b = malloc(((size_t)bc.npieces + 1) * sizeof *map_b);
    if (!off || !map_r || !map_b) {
        st = CM_ERR(err, CM_ERR_NOMEM, "%s+%s: out of memory", reduce->name,
                    bcast->name);
        goto out;
    }
    boundary_map(red.piece_off, red.npieces, off, n, map_r);
    boundary_map(bc.piece_off, bc.npieces, off, n, map_b);
    st = rt_sched_begin(s, "reduce+bcast", RT_COLL_ALLREDUCE,
                        red.port == bc.port ? red.port : RT_PORT_B, p, rank,
                        n, off, err);
    for (int32_t r = 0; r < p->nranks && st == CM_OK; r++) {
        st = copy_steps(s, &red, r, map_r, 0);
        if (st == CM_OK)
            st = copy_steps(s, &bc, r, map_b, red.nrounds_all);
    }
    if (st != CM_OK) {
        if (st != CM_ERR_INVALID && st != CM_ERR_NOMEM)
            goto out;
        st = CM_ERR(err, st, "%s+%s: cannot combine the schedules",
                    reduce->name, bcast->name);
        goto out;
    }
    st = rt_sched_finish(s, err);
out:
    rt_sched_free(&red);
    rt_sched_free(&bc);
    free(off);
    free(map_r);
    free(map_b);
    return st;
}
