/*
 * t_trees.c - reduce and broadcast trees: binomial.c, chain.c, bintree.c,
 * greedy.c.
 *
 * Where expected values come from:
 *  - the worked examples of the generators' headers and docs/algorithms.md
 *    (exact match);
 *  - more vectors from independent Python reference implementations, run
 *    once when this file was written (each array says which call);
 *  - closed forms stated in the headers (binomial send round log2(lowbit(v)),
 *    chain rounds (P-1-v)+2j under U and (P-1-v)+j under B) and, for the
 *    broadcasts, derived by hand in the comments;
 *  - for everything else, rt_sched_verify's replay over sweeps of P, root,
 *    count and segments, and a comparison of each single-rank schedule with
 *    the all-ranks one.
 */
#include <stdint.h>
#include <stdlib.h>

#include "tests/tst.h"
#include "tests/test_list.h"
#include "runtime/algo/algo_int.h"


/* One transfer as docs/algorithms.md writes it: round, sender, receiver, segment. */
typedef struct xf {
    int32_t round, src, dst, seg;
} xf_t;

static int xf_cmp(const void *a, const void *b)
{
    const xf_t *x = a, *y = b;

    if (x->round != y->round)
        return x->round < y->round ? -1 : 1;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    return (x->seg > y->seg) - (x->seg < y->seg);
}

static rt_algo_params_t params(int32_t np, int32_t root, int64_t count,
                               int32_t nsegs, rt_port_t port)
{
    rt_algo_params_t p;

    memset(&p, 0, sizeof p);
    p.nranks = np;
    p.root = root;
    p.count = count;
    p.nsegs = nsegs;
    p.port = port;
    return p;
}

/* Generates for all ranks and replays; any failure names the case. */
static void gen_verified(rt_algo_gen_fn *fn, const rt_algo_params_t *p,
                         rt_sched_t *s)
{
    cm_err_t err;
    cm_status_t st;

    cm_err_clear(&err);
    rt_sched_init(s);
    st = fn(s, p, -1, &err);
    if (st != CM_OK)
        TST_FAIL("P %d root %d count %lld nsegs %d segcount %lld port %d: "
                 "%s: %s", p->nranks, p->root, (long long)p->count, p->nsegs,
                 (long long)p->segcount, (int)p->port, cm_status_name(st),
                 err.msg);
    st = rt_sched_verify(s, &err);
    if (st != CM_OK)
        TST_FAIL("%s P %d root %d count %lld nsegs %d segcount %lld port %d "
                 "tree %d: replay: %s", s->algo, p->nranks, p->root,
                 (long long)p->count, p->nsegs, (long long)p->segcount,
                 (int)p->port, (int)p->tree, err.msg);
}

/*
 * The sends of s, sorted, must be exactly want[0..n); every step moves one
 * piece with action act and flags fl, and every send has one receive.
 */
static void expect_xfers(const rt_sched_t *s, const xf_t *want, size_t n,
                         int act, unsigned fl)
{
    xf_t *got = malloc((s->nsteps + 1) * sizeof *got);
    xf_t *exp = malloc((n + 1) * sizeof *exp);
    size_t ng = 0, nrecv = 0;

    TST_NOT_NULL(got);
    TST_NOT_NULL(exp);
    for (int32_t r = 0; r < s->nranks; r++) {
        size_t k;
        const rt_step_t *st = rt_sched_rank_steps(s, r, &k);

        for (size_t i = 0; i < k; i++) {
            TST_EQ_INT(st[i].npieces, 1);
            TST_EQ_INT(st[i].act, act);
            TST_EQ_UINT(st[i].flags, fl);
            if (st[i].dir == RT_STEP_RECV) {
                nrecv++;
                continue;
            }
            got[ng++] = (xf_t){ st[i].round, r, st[i].peer, st[i].piece };
        }
    }
    TST_EQ_UINT(ng, n);
    TST_EQ_UINT(nrecv, n);
    memcpy(exp, want, n * sizeof *exp);
    qsort(got, ng, sizeof *got, xf_cmp);
    qsort(exp, n, sizeof *exp, xf_cmp);
    for (size_t i = 0; i < n; i++)
        if (xf_cmp(&got[i], &exp[i]) != 0)
            TST_FAIL("%s: transfer %zu: got round %d %d->%d s%d, want round "
                     "%d %d->%d s%d", s->algo, i, got[i].round, got[i].src,
                     got[i].dst, got[i].seg, exp[i].round, exp[i].src,
                     exp[i].dst, exp[i].seg);
    free(got);
    free(exp);
}

/* Generates, verifies and compares with a worked example. */
static void check_example(rt_algo_gen_fn *fn, const rt_algo_params_t *p,
                          const xf_t *want, size_t n, int32_t nrounds,
                          int act, unsigned fl)
{
    rt_sched_t s;

    gen_verified(fn, p, &s);
    expect_xfers(&s, want, n, act, fl);
    TST_EQ_INT(s.nrounds, nrounds);
    rt_sched_free(&s);
}

#define NXF(a) (sizeof(a) / sizeof((a)[0]))
#define RED RT_ACT_REDUCE, RT_STEP_MOVE
#define BC  RT_ACT_COPY, RT_STEP_FINAL

/* ---- Binomial (binomial.c) --------------------------------------------- */

void t_trees_binomial_examples(void)
{
    /* binomial.c's and docs/algorithms.md's worked examples. */
    static const xf_t p5r2[] = { {0,3,2,0}, {0,0,4,0}, {1,4,2,0}, {2,1,2,0} };
    static const xf_t p6r3[] = { {0,4,3,0}, {0,0,5,0}, {0,2,1,0}, {1,5,3,0},
                                 {2,1,3,0} };
    static const xf_t p8r0[] = { {0,1,0,0}, {0,3,2,0}, {0,5,4,0}, {0,7,6,0},
                                 {1,2,0,0}, {1,6,4,0}, {2,4,0,0} };
    /* Broadcasts, by hand from MPICH's bcast_intra_binomial: v receives
       from v - lowbit(v), then sends to v + m, m = lowbit(v)/2 .. 1 (root:
       the largest power of two < P down), round R-1-log2(lowbit(child)). */
    static const xf_t b5r2[] = { {0,2,1,0}, {1,2,4,0}, {2,2,3,0}, {2,4,0,0} };
    static const xf_t b6r3[] = { {0,3,1,0}, {1,3,5,0}, {2,3,4,0}, {2,5,0,0},
                                 {2,1,2,0} };
    static const xf_t b8r0[] = { {0,0,4,0}, {1,0,2,0}, {1,4,6,0}, {2,0,1,0},
                                 {2,2,3,0}, {2,4,5,0}, {2,6,7,0} };
    rt_algo_params_t p;
    rt_sched_t s;

    p = params(5, 2, 10, 0, RT_PORT_U);
    check_example(rt_algo_binomial_reduce, &p, p5r2, NXF(p5r2), 3, RED);
    check_example(rt_algo_binomial_bcast, &p, b5r2, NXF(b5r2), 3, BC);
    p = params(6, 3, 10, 0, RT_PORT_U);
    check_example(rt_algo_binomial_reduce, &p, p6r3, NXF(p6r3), 3, RED);
    check_example(rt_algo_binomial_bcast, &p, b6r3, NXF(b6r3), 3, BC);
    p = params(8, 0, 10, 0, RT_PORT_U);
    check_example(rt_algo_binomial_reduce, &p, p8r0, NXF(p8r0), 3, RED);
    check_example(rt_algo_binomial_bcast, &p, b8r0, NXF(b8r0), 3, BC);

    /* Header: one piece, the whole vector; U; the table names. */
    gen_verified(rt_algo_binomial_reduce, &p, &s);
    TST_EQ_STR(s.algo, "binomial-reduce");
    TST_EQ_INT(s.coll, RT_COLL_REDUCE);
    TST_EQ_INT(s.port, RT_PORT_U);
    TST_EQ_INT(s.npieces, 1);
    TST_EQ_INT(s.piece_off[0], 0);
    TST_EQ_INT(s.piece_off[1], 10);
    rt_sched_free(&s);
    gen_verified(rt_algo_binomial_bcast, &p, &s);
    TST_EQ_STR(s.algo, "binomial-bcast");
    TST_EQ_INT(s.coll, RT_COLL_BCAST);
    rt_sched_free(&s);
}

static int32_t ceil_log2(int32_t n)
{
    int32_t k = 0;

    while ((1 << k) < n)
        k++;
    return k;
}

/*
 * Spec closed form: v != 0 sends once, to v - lowbit(v), in round
 * log2(lowbit(v)); ceil(log2 P) rounds.  The broadcast is the same edges
 * reversed in direction and in time (round R-1-k).
 */
void t_trees_binomial_closed_form(void)
{
    for (int32_t np = 1; np <= 300; np += (np < 70 ? 1 : 23)) {
        int32_t root = np / 3, nr = ceil_log2(np);
        rt_algo_params_t p = params(np, root, 7, 0, RT_PORT_U);
        rt_sched_t red, bc;
        xf_t *want = malloc((size_t)np * sizeof *want);
        size_t n = 0;

        TST_NOT_NULL(want);
        for (int32_t v = 1; v < np; v++) {
            int32_t k = 0;

            while (!(v & (1 << k)))
                k++;
            want[n++] = (xf_t){ k, rt_real(v, root, np),
                                rt_real(v - (1 << k), root, np), 0 };
        }
        gen_verified(rt_algo_binomial_reduce, &p, &red);
        expect_xfers(&red, want, n, RED);
        TST_EQ_INT(red.nrounds, nr);
        for (size_t i = 0; i < n; i++)
            want[i] = (xf_t){ nr - 1 - want[i].round, want[i].dst,
                              want[i].src, 0 };
        gen_verified(rt_algo_binomial_bcast, &p, &bc);
        expect_xfers(&bc, want, n, BC);
        TST_EQ_INT(bc.nrounds, nr);
        rt_sched_free(&red);
        rt_sched_free(&bc);
        free(want);
    }
}

/* Roots {0, 1, P-1, P/2}, without repeats; returns how many. */
static int sweep_roots(int32_t np, int32_t roots[4])
{
    int32_t cand[4] = { 0, 1, np - 1, np / 2 };
    int n = 0;

    for (int i = 0; i < 4; i++) {
        int dup = cand[i] >= np;

        for (int j = 0; j < n; j++)
            dup |= roots[j] == cand[i];
        if (!dup)
            roots[n++] = cand[i];
    }
    return n;
}

/* Counts 0, 1, < P, = P, uneven, large. */
static int sweep_counts(int32_t np, int64_t counts[6])
{
    counts[0] = 0;
    counts[1] = 1;
    counts[2] = np / 2;
    counts[3] = np;
    counts[4] = 3 * (int64_t)np + 1;
    counts[5] = 1000003;
    return 6;
}

/* Segment counts 0 (none), 1, 2, P-1, P, P+1, 2P+1. */
static int sweep_nsegs(int32_t np, int32_t nsegs[7])
{
    int32_t cand[7] = { 0, 1, 2, np - 1, np, np + 1, 2 * np + 1 };
    int n = 0;

    for (int i = 0; i < 7; i++)
        if (i == 0 || cand[i] > 0)
            nsegs[n++] = cand[i];
    return n;
}

/* Number of transfers: P-1 per piece in every reduce and broadcast here
   (each non-root contributes, or receives, each piece once). */
static void check_nsends(const rt_sched_t *s, int64_t want)
{
    int64_t n = 0;

    for (size_t i = 0; i < s->nsteps; i++)
        n += s->steps[i].dir == RT_STEP_SEND;
    TST_EQ_INT(n, want);
}

void t_trees_binomial_sweep(void)
{
    for (int32_t np = 1; np <= 64; np++) {
        int32_t roots[4];
        int64_t counts[6];
        int nroot = sweep_roots(np, roots), ncount = sweep_counts(np, counts);

        for (int a = 0; a < nroot; a++)
            for (int c = 0; c < ncount; c++) {
                rt_algo_params_t p = params(np, roots[a], counts[c], 0,
                                            RT_PORT_U);
                rt_sched_t s;

                gen_verified(rt_algo_binomial_reduce, &p, &s);
                check_nsends(&s, np - 1);
                rt_sched_free(&s);
                gen_verified(rt_algo_binomial_bcast, &p, &s);
                check_nsends(&s, np - 1);
                rt_sched_free(&s);
                /* nsegs, segcount and port are not read: still one piece,
                   the same U schedule. */
                p.nsegs = np + 1;
                p.port = RT_PORT_B;
                gen_verified(rt_algo_binomial_reduce, &p, &s);
                TST_EQ_INT(s.npieces, 1);
                TST_EQ_INT(s.port, RT_PORT_U);
                check_nsends(&s, np - 1);
                rt_sched_free(&s);
                p.nsegs = 0;
                p.segcount = 1;
                gen_verified(rt_algo_binomial_bcast, &p, &s);
                TST_EQ_INT(s.npieces, 1);
                rt_sched_free(&s);
            }
    }
}

/* ---- Chain (chain.c) --------------------------------------------------- */

void t_trees_chain_examples(void)
{
    /* chain.c's header, P=5 root=2 q=3. */
    static const xf_t u5[] = {
        {0,1,0,0}, {1,0,4,0}, {2,1,0,1}, {2,4,3,0}, {3,0,4,1}, {3,3,2,0},
        {4,1,0,2}, {4,4,3,1}, {5,0,4,2}, {5,3,2,1}, {6,4,3,2}, {7,3,2,2} };
    static const xf_t b5[] = {
        {0,1,0,0}, {1,0,4,0}, {1,1,0,1}, {2,0,4,1}, {2,1,0,2}, {2,4,3,0},
        {3,0,4,2}, {3,3,2,0}, {3,4,3,1}, {4,3,2,1}, {4,4,3,2}, {5,3,2,2} };
    /* Python reference: asap_rounds(chain_ops(4, 1, 3), bi). */
    static const xf_t u4[] = {
        {0,0,3,0}, {1,3,2,0}, {2,0,3,1}, {2,2,1,0}, {3,3,2,1}, {4,0,3,2},
        {4,2,1,1}, {5,3,2,2}, {6,2,1,2} };
    static const xf_t b4[] = {
        {0,0,3,0}, {1,0,3,1}, {1,3,2,0}, {2,0,3,2}, {2,2,1,0}, {2,3,2,1},
        {3,2,1,1}, {3,3,2,2}, {4,2,1,2} };
    /* Broadcast P=5 root=2 q=2 (chain 2 -> 3 -> 4 -> 0 -> 1), by hand:
       under U the relay vrank v receives segment j in round (v-1)+2j
       (it alternates receive and send); under B in round (v-1)+j. */
    static const xf_t bu5[] = {
        {0,2,3,0}, {1,3,4,0}, {2,2,3,1}, {2,4,0,0}, {3,3,4,1}, {3,0,1,0},
        {4,4,0,1}, {5,0,1,1} };
    static const xf_t bb5[] = {
        {0,2,3,0}, {1,2,3,1}, {1,3,4,0}, {2,3,4,1}, {2,4,0,0}, {3,4,0,1},
        {3,0,1,0}, {4,0,1,1} };
    rt_algo_params_t p = params(5, 2, 9, 3, RT_PORT_U);
    rt_sched_t s;

    check_example(rt_algo_chain_reduce, &p, u5, NXF(u5), 8, RED);
    p.port = RT_PORT_B;
    check_example(rt_algo_chain_reduce, &p, b5, NXF(b5), 6, RED);
    p = params(4, 1, 3, 3, RT_PORT_U);
    check_example(rt_algo_chain_reduce, &p, u4, NXF(u4), 7, RED);
    p.port = RT_PORT_B;
    check_example(rt_algo_chain_reduce, &p, b4, NXF(b4), 5, RED);
    p = params(5, 2, 9, 2, RT_PORT_U);
    check_example(rt_algo_chain_bcast, &p, bu5, NXF(bu5), 6, BC);
    p.port = RT_PORT_B;
    check_example(rt_algo_chain_bcast, &p, bb5, NXF(bb5), 5, BC);

    /* Header: the partition is EL over nsegs (rt_part_segments). */
    p = params(5, 2, 10, 3, RT_PORT_B);
    gen_verified(rt_algo_chain_reduce, &p, &s);
    TST_EQ_STR(s.algo, "chain-reduce");
    TST_EQ_INT(s.port, RT_PORT_B);
    TST_EQ_INT(s.npieces, 3);
    TST_EQ_INT(s.piece_off[1], 4);
    TST_EQ_INT(s.piece_off[2], 7);
    TST_EQ_INT(s.piece_off[3], 10);
    rt_sched_free(&s);
    gen_verified(rt_algo_chain_bcast, &p, &s);
    TST_EQ_STR(s.algo, "chain-bcast");
    TST_EQ_INT(s.coll, RT_COLL_BCAST);
    rt_sched_free(&s);
}

/*
 * The round of every transfer: reduce (chain.c) vrank v sends segment j in
 * (P-1-v)+2j under U (P > 2), j under U with P = 2, (P-1-v)+j under B; the
 * broadcast's vrank v receives segment j in (v-1)+2j, j, (v-1)+j (hand
 * derivation, the mirror image).
 */
static int32_t chain_round(int32_t np, int32_t v, int32_t j, rt_port_t port,
                           int reduce)
{
    int32_t depth = reduce ? np - 1 - v : v - 1;

    if (port == RT_PORT_B)
        return depth + j;
    return np == 2 ? j : depth + 2 * j;
}

void t_trees_chain_closed_form(void)
{
    for (int32_t np = 2; np <= 24; np++)
        for (int32_t q = 1; q <= 7; q++)
            for (int port = RT_PORT_U; port <= RT_PORT_B; port++)
                for (int reduce = 0; reduce <= 1; reduce++) {
                    int32_t root = (q + np / 2) % np;
                    rt_algo_params_t p = params(np, root, 100, q,
                                                (rt_port_t)port);
                    xf_t *want = malloc((size_t)(np * q) * sizeof *want);
                    size_t n = 0;
                    rt_sched_t s;
                    int32_t total;

                    TST_NOT_NULL(want);
                    for (int32_t v = 1; v < np; v++)
                        for (int32_t j = 0; j < q; j++) {
                            /* reduce: v -> v-1; bcast: v-1 -> v */
                            int32_t a = reduce ? v : v - 1;
                            int32_t b = reduce ? v - 1 : v;

                            want[n++] = (xf_t){
                                chain_round(np, v, j, (rt_port_t)port, reduce),
                                rt_real(a, root, np), rt_real(b, root, np),
                                j };
                        }
                    gen_verified(reduce ? rt_algo_chain_reduce
                                        : rt_algo_chain_bcast, &p, &s);
                    if (reduce)
                        expect_xfers(&s, want, n, RED);
                    else
                        expect_xfers(&s, want, n, BC);
                    /* Spec totals: U (P-1)+2(q-1) for P > 2, q for P = 2;
                       B P-2+q. */
                    if (port == RT_PORT_B)
                        total = np - 2 + q;
                    else
                        total = np == 2 ? q : (np - 1) + 2 * (q - 1);
                    TST_EQ_INT(s.nrounds, total);
                    rt_sched_free(&s);
                    free(want);
                }
}

/* One sweep case: generate, replay, (P-1)q transfers, q as asked. */
static void pipe_case(rt_algo_gen_fn *fn, const rt_algo_params_t *p)
{
    rt_sched_t s;

    gen_verified(fn, p, &s);
    if (p->nsegs > 0)
        TST_EQ_INT(s.npieces, p->nsegs);
    check_nsends(&s, (int64_t)(p->nranks - 1) * s.npieces);
    rt_sched_free(&s);
}

/*
 * A pipelined generator over P = 1..pmax, the sweep roots and ports U (and
 * B when nports is 2).  Its transfers depend on P, root, port and the number
 * of segments only (count just moves the piece boundaries), so every
 * segment count is tried with one uneven count, and every count with no
 * segmentation and segments of count/3+1; counts < P also with P+1 (some
 * empty) segments and counts <= P with segments of 1 element.
 */
static void pipe_sweep(rt_algo_gen_fn *fn, int32_t pmax, int nports,
                       rt_tree_shape_t tree)
{
    for (int32_t np = 1; np <= pmax; np++) {
        int32_t roots[4], nsegs[7];
        int64_t counts[6];
        int nroot = sweep_roots(np, roots), ncount = sweep_counts(np, counts);
        int nseg = sweep_nsegs(np, nsegs);

        for (int a = 0; a < nroot; a++)
            for (int port = 0; port < nports; port++) {
                rt_algo_params_t p = params(np, roots[a], 3 * (int64_t)np + 1,
                                            0, (rt_port_t)port);

                p.tree = tree;
                for (int g = 0; g < nseg; g++) {
                    p.nsegs = nsegs[g];
                    pipe_case(fn, &p);
                }
                for (int c = 0; c < ncount; c++) {
                    p.count = counts[c];
                    p.nsegs = 0;
                    pipe_case(fn, &p);
                    if (counts[c] < np) {       /* empty segments */
                        p.nsegs = np + 1;
                        pipe_case(fn, &p);
                        p.nsegs = 0;
                    }
                    if (counts[c] <= np) {
                        p.segcount = 1;
                        pipe_case(fn, &p);
                    }
                    p.segcount = counts[c] / 3 + 1;
                    pipe_case(fn, &p);
                    p.segcount = 0;
                }
            }
    }
}

void t_trees_chain_reduce_sweep(void)
{
    pipe_sweep(rt_algo_chain_reduce, 64, 2, RT_TREE_HEAP);
}

void t_trees_chain_bcast_sweep(void)
{
    pipe_sweep(rt_algo_chain_bcast, 64, 2, RT_TREE_HEAP);
}

/* ---- Pipelined binary tree (bintree.c) --------------------------------- */

void t_trees_bintree_examples(void)
{
    /* bintree.c's header, P=5 root=2 q=2. */
    static const xf_t hu[] = { {0,0,3,0}, {1,1,3,0}, {2,3,2,0}, {3,0,3,1},
                               {3,4,2,0}, {4,1,3,1}, {5,3,2,1}, {6,4,2,1} };
    static const xf_t hb[] = { {0,0,3,0}, {1,1,3,0}, {2,0,3,1}, {2,3,2,0},
                               {3,1,3,1}, {3,4,2,0}, {4,3,2,1}, {5,4,2,1} };
    static const xf_t ou[] = { {0,0,3,0}, {0,1,4,0}, {1,3,2,0}, {2,0,3,1},
                               {2,4,2,0}, {3,1,4,1}, {3,3,2,1}, {4,4,2,1} };
    static const xf_t ob[] = { {0,0,3,0}, {0,1,4,0}, {1,0,3,1}, {1,1,4,1},
                               {1,3,2,0}, {2,4,2,0}, {3,3,2,1}, {4,4,2,1} };
    /* Python reference, P=12 root=5 q=3:
       asap_rounds(tree_ops(12, 5, 3, heap_bintree_children / 
       ompi_bintree_children), bidirectional) -- Open MPI's 3:{7,11}
       exercises both parent cases of the level formula. */
    static const xf_t hu12[] = {
        {0,0,8,0}, {0,2,9,0}, {0,4,10,0}, {1,1,8,0}, {1,3,9,0}, {1,10,7,0},
        {2,4,10,1}, {2,8,6,0}, {2,11,7,0}, {3,0,8,1}, {3,9,6,0}, {4,1,8,1},
        {4,2,9,1}, {4,6,5,0}, {5,3,9,1}, {5,7,5,0}, {5,8,6,1}, {6,0,8,2},
        {6,9,6,1}, {6,10,7,1}, {7,1,8,2}, {7,2,9,2}, {7,4,10,2}, {7,6,5,1},
        {7,11,7,1}, {8,3,9,2}, {8,7,5,1}, {8,8,6,2}, {9,9,6,2}, {9,10,7,2},
        {10,6,5,2}, {10,11,7,2}, {11,7,5,2} };
    static const xf_t hb12[] = {
        {0,0,8,0}, {0,2,9,0}, {0,4,10,0}, {1,1,8,0}, {1,3,9,0}, {1,4,10,1},
        {1,10,7,0}, {2,0,8,1}, {2,2,9,1}, {2,4,10,2}, {2,8,6,0}, {2,11,7,0},
        {3,1,8,1}, {3,3,9,1}, {3,9,6,0}, {3,10,7,1}, {4,0,8,2}, {4,2,9,2},
        {4,6,5,0}, {4,8,6,1}, {4,11,7,1}, {5,1,8,2}, {5,3,9,2}, {5,7,5,0},
        {5,9,6,1}, {5,10,7,2}, {6,6,5,1}, {6,8,6,2}, {6,11,7,2}, {7,7,5,1},
        {7,9,6,2}, {8,6,5,2}, {9,7,5,2} };
    static const xf_t ou12[] = {
        {0,0,8,0}, {0,1,9,0}, {0,2,10,0}, {0,3,11,0}, {1,4,8,0}, {1,9,7,0},
        {2,1,9,1}, {2,8,6,0}, {2,11,7,0}, {3,0,8,1}, {3,3,11,1}, {3,10,6,0},
        {4,2,10,1}, {4,4,8,1}, {4,6,5,0}, {5,7,5,0}, {5,8,6,1}, {6,0,8,2},
        {6,9,7,1}, {6,10,6,1}, {7,1,9,2}, {7,2,10,2}, {7,4,8,2}, {7,6,5,1},
        {7,11,7,1}, {8,3,11,2}, {8,7,5,1}, {8,8,6,2}, {9,9,7,2}, {9,10,6,2},
        {10,6,5,2}, {10,11,7,2}, {11,7,5,2} };
    static const xf_t ob12[] = {
        {0,0,8,0}, {0,1,9,0}, {0,2,10,0}, {0,3,11,0}, {1,1,9,1}, {1,2,10,1},
        {1,3,11,1}, {1,4,8,0}, {1,9,7,0}, {2,0,8,1}, {2,1,9,2}, {2,2,10,2},
        {2,3,11,2}, {2,8,6,0}, {2,11,7,0}, {3,4,8,1}, {3,9,7,1}, {3,10,6,0},
        {4,0,8,2}, {4,6,5,0}, {4,8,6,1}, {4,11,7,1}, {5,4,8,2}, {5,7,5,0},
        {5,9,7,2}, {5,10,6,1}, {6,6,5,1}, {6,8,6,2}, {6,11,7,2}, {7,7,5,1},
        {7,10,6,2}, {8,6,5,2}, {9,7,5,2} };
    rt_algo_params_t p = params(5, 2, 6, 2, RT_PORT_U);
    rt_sched_t s;

    p.tree = RT_TREE_HEAP;
    check_example(rt_algo_bintree_reduce, &p, hu, NXF(hu), 7, RED);
    p.port = RT_PORT_B;
    check_example(rt_algo_bintree_reduce, &p, hb, NXF(hb), 6, RED);
    p.tree = RT_TREE_OMPI;
    p.port = RT_PORT_U;
    check_example(rt_algo_bintree_reduce, &p, ou, NXF(ou), 5, RED);
    p.port = RT_PORT_B;
    check_example(rt_algo_bintree_reduce, &p, ob, NXF(ob), 5, RED);

    p = params(12, 5, 30, 3, RT_PORT_U);
    p.tree = RT_TREE_HEAP;
    check_example(rt_algo_bintree_reduce, &p, hu12, NXF(hu12), 12, RED);
    p.port = RT_PORT_B;
    check_example(rt_algo_bintree_reduce, &p, hb12, NXF(hb12), 10, RED);
    p.tree = RT_TREE_OMPI;
    p.port = RT_PORT_U;
    check_example(rt_algo_bintree_reduce, &p, ou12, NXF(ou12), 12, RED);
    p.port = RT_PORT_B;
    check_example(rt_algo_bintree_reduce, &p, ob12, NXF(ob12), 10, RED);

    gen_verified(rt_algo_bintree_reduce, &p, &s);
    TST_EQ_STR(s.algo, "bintree-reduce");
    TST_EQ_INT(s.coll, RT_COLL_REDUCE);
    TST_EQ_INT(s.npieces, 3);
    rt_sched_free(&s);
}

void t_trees_bintree_heap_sweep(void)
{
    pipe_sweep(rt_algo_bintree_reduce, 64, 2, RT_TREE_HEAP);
}

void t_trees_bintree_ompi_sweep(void)
{
    pipe_sweep(rt_algo_bintree_reduce, 64, 2, RT_TREE_OMPI);
}

/* ---- Greedy (greedy.c) ------------------------------------------------- */

void t_trees_greedy_examples(void)
{
    /* greedy.c's and docs/algorithms.md's worked examples. */
    static const xf_t p5q3[] = {
        {0,3,1,0}, {0,4,2,0}, {1,4,3,1}, {1,2,1,0}, {2,3,2,1}, {2,1,0,0},
        {3,4,3,2}, {3,2,1,1}, {4,3,2,2}, {4,1,0,1}, {5,2,1,2}, {6,1,0,2} };
    static const xf_t p4q2[] = { {0,2,0,0}, {0,3,1,0}, {1,3,2,1}, {1,1,0,0},
                                 {2,2,1,1}, {3,1,0,1} };
    static const xf_t p6q3r2[] = {
        {0,5,2,0}, {0,0,3,0}, {0,1,4,0}, {1,1,0,1}, {1,4,3,0}, {2,0,5,1},
        {2,3,2,0}, {3,1,0,2}, {3,4,2,1}, {3,5,3,1}, {4,0,5,2}, {4,3,2,1},
        {5,4,2,2}, {5,5,3,2}, {6,3,2,2} };
    /* The q = 1 edge case (greedy.c): a halving tree. */
    static const xf_t p5q1[] = { {0,3,1,0}, {0,4,2,0}, {1,2,1,0}, {2,1,0,0} };
    /* Python reference: greedy_reduce(7, 5, 3) (root 3). */
    static const xf_t p7q5r3[] = {
        {0,0,4,0}, {0,1,5,0}, {0,2,6,0}, {1,2,1,1}, {1,5,3,0}, {1,6,4,0},
        {2,0,5,1}, {2,1,6,1}, {2,4,3,0}, {3,2,1,2}, {3,5,3,1}, {3,6,4,1},
        {4,0,5,2}, {4,1,6,2}, {4,4,3,1}, {5,2,1,3}, {5,5,3,2}, {5,6,4,2},
        {6,0,5,3}, {6,1,6,3}, {6,4,3,2}, {7,2,1,4}, {7,5,3,3}, {7,6,4,3},
        {8,0,5,4}, {8,1,6,4}, {8,4,3,3}, {9,5,3,4}, {9,6,4,4}, {10,4,3,4} };
    rt_algo_params_t p = params(5, 0, 9, 3, RT_PORT_U);
    rt_sched_t s;

    check_example(rt_algo_greedy_reduce, &p, p5q3, NXF(p5q3), 7, RED);
    p = params(4, 0, 2, 2, RT_PORT_U);
    check_example(rt_algo_greedy_reduce, &p, p4q2, NXF(p4q2), 4, RED);
    p = params(6, 2, 3, 3, RT_PORT_U);
    check_example(rt_algo_greedy_reduce, &p, p6q3r2, NXF(p6q3r2), 7, RED);
    p = params(5, 0, 1, 0, RT_PORT_U);
    check_example(rt_algo_greedy_reduce, &p, p5q1, NXF(p5q1), 3, RED);
    p = params(7, 3, 50, 5, RT_PORT_U);
    check_example(rt_algo_greedy_reduce, &p, p7q5r3, NXF(p7q5r3), 11, RED);

    gen_verified(rt_algo_greedy_reduce, &p, &s);
    TST_EQ_STR(s.algo, "greedy-reduce");
    TST_EQ_INT(s.port, RT_PORT_U);
    TST_EQ_INT(s.npieces, 5);
    rt_sched_free(&s);
}

/* docs/algorithms.md, greedy round counts (U): rows P = 4, 5..8, 16, 64. */
void t_trees_greedy_round_table(void)
{
    static const int32_t qs[6] = { 1, 2, 3, 4, 8, 16 };
    static const struct { int32_t plo, phi, rounds[6]; } rows[] = {
        { 4, 4,   { 2, 4, 6, 8, 16, 32 } },
        { 5, 8,   { 3, 5, 7, 9, 17, 33 } },
        { 16, 16, { 4, 7, 9, 12, 20, 36 } },
        { 64, 64, { 6, 9, 12, 15, 25, 45 } },
    };

    for (size_t r = 0; r < NXF(rows); r++)
        for (int32_t np = rows[r].plo; np <= rows[r].phi; np++)
            for (int k = 0; k < 6; k++) {
                rt_algo_params_t p = params(np, np - 1, 1000, qs[k],
                                            RT_PORT_U);
                rt_sched_t s;

                gen_verified(rt_algo_greedy_reduce, &p, &s);
                TST_EQ_INT(s.nrounds, rows[r].rounds[k]);
                check_nsends(&s, (int64_t)(np - 1) * qs[k]);
                rt_sched_free(&s);
            }
}

void t_trees_greedy_sweep(void)
{
    pipe_sweep(rt_algo_greedy_reduce, 64, 1, RT_TREE_HEAP);
}

/* ---- One rank, errors ------------------------------------------------- */

/* Each rank's own schedule equals its part of the all-ranks schedule. */
static void one_rank_matches(rt_algo_gen_fn *fn, const rt_algo_params_t *p)
{
    rt_sched_t all, one;
    cm_err_t err;

    gen_verified(fn, p, &all);
    for (int32_t r = 0; r < p->nranks; r++) {
        size_t na, no;
        const rt_step_t *sa, *so;

        rt_sched_init(&one);
        TST_EQ_STATUS(fn(&one, p, r, &err), CM_OK);
        TST_EQ_INT(one.only_rank, r);
        TST_EQ_INT(one.npieces, all.npieces);
        sa = rt_sched_rank_steps(&all, r, &na);
        so = rt_sched_rank_steps(&one, r, &no);
        TST_EQ_UINT(no, na);
        TST_EQ_UINT(one.nsteps, na);
        for (size_t i = 0; i < na; i++) {
            TST_EQ_INT(so[i].round, sa[i].round);
            TST_EQ_INT(so[i].peer, sa[i].peer);
            TST_EQ_INT(so[i].piece, sa[i].piece);
            TST_EQ_INT(so[i].npieces, sa[i].npieces);
            TST_EQ_INT(so[i].dir, sa[i].dir);
            TST_EQ_INT(so[i].act, sa[i].act);
            TST_EQ_INT(so[i].flags, sa[i].flags);
        }
        rt_sched_free(&one);
    }
    rt_sched_free(&all);
}

void t_trees_one_rank(void)
{
    static const int32_t nps[] = { 1, 2, 3, 5, 8, 13, 31, 64 };

    for (size_t i = 0; i < NXF(nps); i++) {
        int32_t np = nps[i];
        rt_algo_params_t p = params(np, np / 2, 3 * (int64_t)np + 1, 0,
                                    RT_PORT_U);

        one_rank_matches(rt_algo_binomial_reduce, &p);
        one_rank_matches(rt_algo_binomial_bcast, &p);
        p.nsegs = 3;
        one_rank_matches(rt_algo_greedy_reduce, &p);
        for (int port = RT_PORT_U; port <= RT_PORT_B; port++) {
            p.port = (rt_port_t)port;
            one_rank_matches(rt_algo_chain_reduce, &p);
            one_rank_matches(rt_algo_chain_bcast, &p);
            p.tree = RT_TREE_HEAP;
            one_rank_matches(rt_algo_bintree_reduce, &p);
            p.tree = RT_TREE_OMPI;
            one_rank_matches(rt_algo_bintree_reduce, &p);
        }
    }
}

/* fn(p) fails with status want and a message naming the algorithm and
   mentioning `gist`; the failed schedule can still be freed. */
static void expect_error(rt_algo_gen_fn *fn, const rt_algo_params_t *p,
                         int32_t rank, cm_status_t want, const char *name,
                         const char *gist)
{
    rt_sched_t s;
    cm_err_t err;

    cm_err_clear(&err);
    rt_sched_init(&s);
    TST_EQ_STATUS(fn(&s, p, rank, &err), want);
    TST_EQ_STATUS(err.status, want);
    TST_CONTAINS(err.msg, name);
    TST_CONTAINS(err.msg, gist);
    rt_sched_free(&s);
}

void t_trees_errors(void)
{
    static const struct { rt_algo_gen_fn *fn; const char *name; } gens[] = {
        { rt_algo_binomial_reduce, "binomial-reduce" },
        { rt_algo_binomial_bcast, "binomial-bcast" },
        { rt_algo_chain_reduce, "chain-reduce" },
        { rt_algo_chain_bcast, "chain-bcast" },
        { rt_algo_bintree_reduce, "bintree-reduce" },
        { rt_algo_greedy_reduce, "greedy-reduce" },
    };
    rt_algo_params_t p;

    /* Common checks, every generator. */
    for (size_t g = 0; g < NXF(gens); g++) {
        p = params(0, 0, 4, 0, RT_PORT_U);
        expect_error(gens[g].fn, &p, -1, CM_ERR_INVALID, gens[g].name,
                     "nranks");
        p = params(4, 4, 4, 0, RT_PORT_U);
        expect_error(gens[g].fn, &p, -1, CM_ERR_INVALID, gens[g].name, "root");
        p = params(4, 0, -1, 0, RT_PORT_U);
        expect_error(gens[g].fn, &p, -1, CM_ERR_INVALID, gens[g].name,
                     "count");
        p = params(4, 0, 4, 0, RT_PORT_U);
        expect_error(gens[g].fn, &p, 4, CM_ERR_INVALID, gens[g].name, "rank");
        p = params(4, 0, 4, 2, RT_PORT_U);
        p.segcount = 2;
        expect_error(gens[g].fn, &p, -1, CM_ERR_INVALID, gens[g].name,
                     "not both");
    }

    /* Chain and binary tree: U or B. */
    p = params(4, 1, 10, 2, RT_PORT_X);
    expect_error(rt_algo_chain_reduce, &p, -1, CM_ERR_UNSUPPORTED,
                 "chain-reduce", "port model X");
    expect_error(rt_algo_chain_bcast, &p, 0, CM_ERR_UNSUPPORTED,
                 "chain-bcast", "port model X");
    expect_error(rt_algo_bintree_reduce, &p, -1, CM_ERR_UNSUPPORTED,
                 "bintree-reduce", "port model X");
    p.port = (rt_port_t)7;
    expect_error(rt_algo_chain_reduce, &p, -1, CM_ERR_INVALID,
                 "chain-reduce", "unknown port");
    expect_error(rt_algo_bintree_reduce, &p, -1, CM_ERR_INVALID,
                 "bintree-reduce", "unknown port");
    expect_error(rt_algo_greedy_reduce, &p, -1, CM_ERR_INVALID,
                 "greedy-reduce", "unknown port");
    p.port = RT_PORT_U;
    p.tree = (rt_tree_shape_t)5;
    expect_error(rt_algo_bintree_reduce, &p, -1, CM_ERR_INVALID,
                 "bintree-reduce", "tree shape");

    /* Greedy: the bidirectional rule is not published. */
    p = params(4, 1, 10, 2, RT_PORT_B);
    expect_error(rt_algo_greedy_reduce, &p, -1, CM_ERR_UNSUPPORTED,
                 "greedy-reduce", "not published");
    p.port = RT_PORT_X;
    expect_error(rt_algo_greedy_reduce, &p, 3, CM_ERR_UNSUPPORTED,
                 "greedy-reduce", "not published");
}
