/*
 * t_clv.c - the Clairvoyant generators: runtime/algo/clv_linear.c
 * ("clv-linear", the literal rules), clv_tree.c (the paper's segment
 * tree, rt_algo_clv_tree) and clv_rows.c ("clv", the default).
 *
 * Where the expected values come from:
 *  - the worked examples of clv_linear.c (the paper's section 4.2
 *    instance) and docs/algorithms.md (balanced, P = 4, N = 2), in ticks;
 *  - an independent Python implementation, run once, on 12 small random
 *    integer instances (t_clv_vectors.h, with the script that made them);
 *  - by hand from the rules: the paper's 5.1 idle-skipping example, the
 *    round-number and int64 limits;
 *  - the other implementations: clv, clv-tree and clv-linear must give
 *    identical step lists on thousands of random instances (P up to 40),
 *    clv and clv-tree on large ones (P and N up to 512; clv-linear too
 *    where it is fast enough), and clv-linear with idle-round skipping
 *    must equal clv-linear iterating every idle round;
 *  - rt_sched_verify (token replay, port model B, matching, deadlock) on
 *    every schedule, plus: a segment received in a round is never sent in
 *    the same round (the P' rule).
 * The balanced bound: with all arrivals equal, P >= 2,
 *   ceil(log2 P) + N - 1 <= rounds <= ceil(log2 P) + N
 * (the paper's estimate is log2 P + N + 1; docs/algorithms.md's balanced
 * example takes log2 P + N - 1).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/tst.h"
#include "tests/test_list.h"
#include "runtime/algo/clv_int.h"
#include "tests/unit/algo/clv_tree.h"


/* One transfer: round, sender, receiver, segment. */
typedef struct xfer {
    int32_t round, src, dst, seg;
} xfer_t;

#include "tests/unit/algo/t_clv_vectors.h"   /* vectors[]: a reference implementation (docs/algorithms.md) */

/* ---- Helpers ------------------------------------------------------------ */

#define NFNS ((int)(sizeof fns / sizeof *fns))

typedef cm_status_t gen_fn(rt_sched_t *, const rt_algo_params_t *, int32_t,
                           cm_err_t *);

/* clv-linear iterating every idle round (no skipping). */
static cm_status_t linear_noskip(rt_sched_t *s, const rt_algo_params_t *p,
                                 int32_t rank, cm_err_t *err)
{
    return rt__clv_linear_gen(s, p, rank, 0, err);
}

static rt_algo_params_t params(int32_t np, int32_t root, int32_t nseg,
                               int64_t d, const int64_t *arrival)
{
    rt_algo_params_t p;

    memset(&p, 0, sizeof p);
    p.nranks = np;
    p.root = root;
    p.count = 1000;
    p.nsegs = nseg;
    p.round_len = d;
    p.arrival = arrival;
    return p;
}

static void print_instance(const rt_algo_params_t *p)
{
    fprintf(stderr, "instance: P %d root %d nsegs %d segcount %lld count "
            "%lld d %lld arrivals", p->nranks, p->root, p->nsegs,
            (long long)p->segcount, (long long)p->count,
            (long long)p->round_len);
    for (int32_t r = 0; r < p->nranks && p->arrival; r++)
        fprintf(stderr, " %lld", (long long)p->arrival[r]);
    fputc('\n', stderr);
}

/* Generates for all ranks; any error fails the test. */
static void gen(gen_fn *fn, rt_sched_t *s, const rt_algo_params_t *p)
{
    cm_err_t err;
    cm_status_t st;

    rt_sched_init(s);
    st = fn(s, p, -1, &err);
    if (st != CM_OK) {
        print_instance(p);
        cm_err_print(stderr, "t_clv: ", &err);
    }
    TST_EQ_STATUS(st, CM_OK);
}

static int xfer_cmp(const void *a, const void *b)
{
    const xfer_t *x = a, *y = b;

    if (x->round != y->round)
        return x->round < y->round ? -1 : 1;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    return (x->seg > y->seg) - (x->seg < y->seg);
}

/* The transfers of an all-ranks schedule (its send steps), sorted. */
static size_t xfers(const rt_sched_t *s, xfer_t *out, size_t cap)
{
    size_t n = 0;

    for (int32_t r = 0; r < s->nranks; r++) {
        size_t k;
        const rt_step_t *st = rt_sched_rank_steps(s, r, &k);

        for (size_t i = 0; i < k; i++)
            if (st[i].dir == RT_STEP_SEND) {
                TST_TRUE(n < cap);
                out[n].round = st[i].round;
                out[n].src = r;
                out[n].dst = st[i].peer;
                out[n].seg = st[i].piece;
                n++;
            }
    }
    qsort(out, n, sizeof *out, xfer_cmp);
    return n;
}

/* The schedule's transfers are exactly want[0..n) (in any order). */
static void expect_xfers(const rt_sched_t *s, const rt_algo_params_t *p,
                         const xfer_t *want, size_t n)
{
    xfer_t got[64], exp[64];
    size_t ngot = xfers(s, got, 64);

    TST_TRUE(n <= 64);
    memcpy(exp, want, n * sizeof *exp);
    qsort(exp, n, sizeof *exp, xfer_cmp);
    for (size_t i = 0; i < n && ngot == n; i++)
        if (xfer_cmp(&got[i], &exp[i]) != 0)
            ngot = (size_t)-1;
    if (ngot == n)
        return;
    print_instance(p);
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, "  want round %d %d->%d s%d\n", exp[i].round,
                exp[i].src, exp[i].dst, exp[i].seg);
    ngot = xfers(s, got, 64);
    for (size_t i = 0; i < ngot; i++)
        fprintf(stderr, "  got  round %d %d->%d s%d\n", got[i].round,
                got[i].src, got[i].dst, got[i].seg);
    TST_FAIL("%s: the transfers differ from the expected ones", s->algo);
}

/*
 * The replay verifier, the step shape (one segment, reduce, move), and the
 * P' rule: no rank sends, in some round, the segment it receives in it.
 */
static void check_sched(const rt_sched_t *s, const rt_algo_params_t *p)
{
    cm_err_t err;
    cm_status_t st = rt_sched_verify(s, &err);

    if (st != CM_OK) {
        print_instance(p);
        cm_err_print(stderr, "t_clv: ", &err);
    }
    TST_EQ_STATUS(st, CM_OK);
    TST_EQ_INT(s->port, RT_PORT_B);
    TST_EQ_INT(s->coll, RT_COLL_REDUCE);
    for (int32_t r = 0; r < s->nranks; r++) {
        size_t k;
        const rt_step_t *a = rt_sched_rank_steps(s, r, &k);

        for (size_t i = 0; i < k; i++) {
            TST_EQ_INT(a[i].npieces, 1);
            TST_EQ_INT(a[i].act, RT_ACT_REDUCE);
            TST_EQ_UINT(a[i].flags, RT_STEP_MOVE);
            for (size_t j = i + 1; j < k && a[j].round == a[i].round; j++)
                if (a[i].piece == a[j].piece && a[i].dir != a[j].dir) {
                    print_instance(p);
                    TST_FAIL("rank %d sends and receives segment %d in "
                             "round %d", r, a[i].piece, a[i].round);
                }
        }
    }
}

/* Identical schedules: header, partition and every step of every rank. */
static int sched_same(const rt_sched_t *a, const rt_sched_t *b)
{
    if (a->nranks != b->nranks || a->root != b->root ||
        a->npieces != b->npieces || a->nrounds != b->nrounds ||
        a->nsteps != b->nsteps || a->only_rank != b->only_rank)
        return 0;
    for (int32_t i = 0; i <= a->npieces; i++)
        if (a->piece_off[i] != b->piece_off[i])
            return 0;
    for (int32_t r = 0; r <= a->nranks; r++)
        if (a->step_start[r] != b->step_start[r])
            return 0;
    for (size_t i = 0; i < a->nsteps; i++) {
        const rt_step_t *x = &a->steps[i], *y = &b->steps[i];

        if (x->round != y->round || x->peer != y->peer ||
            x->piece != y->piece || x->npieces != y->npieces ||
            x->dir != y->dir || x->act != y->act || x->flags != y->flags)
            return 0;
    }
    return 1;
}

/* Both generators (and, with noskip, the non-skipping linear one) give
   the same verified schedule for p.  Returns the number of rounds. */
static int32_t cross(const rt_algo_params_t *p, int noskip)
{
    rt_sched_t a, b;
    int32_t nrounds;

    gen(rt_algo_clv_linear, &a, p);
    gen(rt_algo_clv, &b, p);
    if (!sched_same(&a, &b)) {
        print_instance(p);
        TST_FAIL("clv and clv-linear differ");
    }
    check_sched(&b, p);
    rt_sched_free(&b);
    gen(rt_algo_clv_tree, &b, p);
    if (!sched_same(&a, &b)) {
        print_instance(p);
        TST_FAIL("clv-tree and clv-linear differ");
    }
    if (noskip) {
        rt_sched_free(&b);
        gen(linear_noskip, &b, p);
        if (!sched_same(&a, &b)) {
            print_instance(p);
            TST_FAIL("clv-linear with and without idle skipping differ");
        }
    }
    nrounds = a.nrounds;
    rt_sched_free(&a);
    rt_sched_free(&b);
    return nrounds;
}

/* splitmix64: a small deterministic generator for the random instances. */
static uint64_t rnd(uint64_t *st)
{
    uint64_t z = (*st += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double unif(uint64_t *st)
{
    return (double)(rnd(st) >> 11) * 0x1.0p-53;
}

static int32_t irange(uint64_t *st, int32_t lo, int32_t hi)
{
    return lo + (int32_t)(rnd(st) % (uint64_t)(hi - lo + 1));
}

#define TICKS 1000000.0   /* ticks per time unit in random instances */

/* ---- Worked examples and the Python reference ----------------------------- */

void t_clv_paper_example(void)
{
    /* clv_linear.c: the paper's section 4.2 instance, d = 1 -> scale. */
    static const xfer_t want[] = {
        {0, 1, 0, 0}, {0, 0, 1, 1},
        {1, 2, 0, 0}, {1, 3, 1, 1}, {1, 0, 2, 2}, {1, 1, 3, 2},
        {2, 3, 0, 0}, {2, 2, 1, 1}, {2, 0, 2, 3}, {2, 1, 3, 3},
        {3, 1, 0, 1}, {3, 3, 2, 2}, {3, 2, 3, 3},
        {4, 2, 0, 2},
        {5, 3, 0, 3},
    };
    static const int64_t scale[] = { 10, 1000, 1000000000 };
    gen_fn *fns[] = { rt_algo_clv_linear, rt_algo_clv, linear_noskip,
                      rt_algo_clv_tree };

    for (int k = 0; k < 3; k++)
        for (int f = 0; f < NFNS; f++) {
            int64_t a[4] = { 0, 0, 0, 11 * scale[k] / 10 };
            rt_algo_params_t p = params(4, 0, 4, scale[k], a);
            rt_sched_t s;

            gen(fns[f], &s, &p);
            expect_xfers(&s, &p, want, sizeof want / sizeof *want);
            TST_EQ_INT(s.nrounds, 6);
            TST_EQ_INT(s.npieces, 4);
            check_sched(&s, &p);
            rt_sched_free(&s);
        }
}

void t_clv_balanced_example(void)
{
    /* docs/algorithms.md: P = 4, all at 0, N = 2, d = 1: three rounds. */
    static const xfer_t want[] = {
        {0, 1, 0, 0}, {0, 0, 1, 1}, {0, 3, 2, 0}, {0, 2, 3, 1},
        {1, 2, 0, 0}, {1, 3, 1, 1},
        {2, 1, 0, 1},
    };
    gen_fn *fns[] = { rt_algo_clv_linear, rt_algo_clv, rt_algo_clv_tree };

    for (int f = 0; f < NFNS; f++) {
        rt_algo_params_t p = params(4, 0, 2, 1, NULL);
        rt_sched_t s;

        gen(fns[f], &s, &p);
        expect_xfers(&s, &p, want, sizeof want / sizeof *want);
        TST_EQ_INT(s.nrounds, 3);
        check_sched(&s, &p);
        rt_sched_free(&s);
    }
}

void t_clv_python_vectors(void)
{
    gen_fn *fns[] = { rt_algo_clv_linear, rt_algo_clv, linear_noskip,
                      rt_algo_clv_tree };

    for (size_t v = 0; v < sizeof vectors / sizeof *vectors; v++)
        for (int f = 0; f < NFNS; f++) {
            const clv_vec_t *x = &vectors[v];
            rt_algo_params_t p = params(x->np, x->root, x->nseg, x->d,
                                        x->arrival);
            rt_sched_t s;

            gen(fns[f], &s, &p);
            expect_xfers(&s, &p, x->steps, (size_t)x->nsteps);
            check_sched(&s, &p);
            rt_sched_free(&s);
        }
}

/* ---- Cross-checks ------------------------------------------------------- */

typedef enum { UNIFORM, SKEWED, TIES, IDLE, WIDE } family_t;

/*
 * A random instance of a family (arrival[] holds 40 entries):
 *  UNIFORM (paper 5.7): arrivals uniform in [0, P + 0.1], random root,
 *          d uniform in [0.001, 1]; P and N in 1..40; a third of them
 *          with count < 2N elements (empty pieces);
 *  SKEWED  (paper 5.7): all at 0 but P-1 at time N, root 0;
 *  TIES:   d of 1..6 ticks and arrivals on a grid of multiples of d (or
 *          of d/2, d/3), so that many are equal, many exactly d apart (the
 *          "<=" boundary) and the rank tie-breaks decide everywhere;
 *  IDLE:   d of 1..9 ticks, arrivals in 0..400: long idle stretches;
 *  WIDE:   UNIFORM with N past one 128-bit vector and one 512-bit line
 *          of clv_tree.c's columns.
 */
static rt_algo_params_t instance(family_t fam, uint64_t *st, int64_t *a)
{
    static const int32_t wide[] = { 64, 65, 127, 128, 129, 200, 255, 256,
                                    511, 512, 513, 640, 1000, 1025 };
    int32_t np = irange(st, fam == IDLE || fam == WIDE ? 2 : 1,
                        fam == UNIFORM || fam == SKEWED ? 40 : 24);
    int32_t nseg = fam == WIDE ? wide[rnd(st) % 14]
                 : irange(st, 1, fam == IDLE ? 8 : fam == TIES ? 24 : 40);
    int64_t d = (int64_t)((0.001 + 0.999 * unif(st)) * TICKS);
    int32_t grid = irange(st, 1, 3);
    rt_algo_params_t p;

    if (fam == TIES || fam == IDLE)
        d = irange(st, 1, fam == TIES ? 6 : 9);
    for (int32_t r = 0; r < np; r++) {
        if (fam == UNIFORM || fam == WIDE)
            a[r] = (int64_t)(unif(st) * (np + 0.1) * TICKS);
        else if (fam == SKEWED)
            a[r] = r == np - 1 ? (int64_t)(nseg * TICKS) : 0;
        else if (fam == IDLE)
            a[r] = irange(st, 0, 400);
        else {                              /* TIES */
            a[r] = d * irange(st, 0, 4);
            if (grid > 1 && irange(st, 0, 1))
                a[r] += irange(st, 0, grid - 1) * d / grid;
        }
    }
    p = params(np, fam == SKEWED ? 0 : irange(st, 0, np - 1), nseg, d, a);
    if (fam == UNIFORM && rnd(st) % 3 == 0)
        p.count = irange(st, 0, 2 * nseg);
    return p;
}

/* n instances of a family through cross(). */
static void cross_family(family_t fam, uint64_t seed, int n, int noskip)
{
    int64_t a[40];

    for (int it = 0; it < n; it++) {
        rt_algo_params_t p = instance(fam, &seed, a);

        cross(&p, noskip);
    }
}

void t_clv_cross_uniform(void)
{
    cross_family(UNIFORM, 1, 3000, 0);
}

void t_clv_cross_skewed(void)
{
    cross_family(SKEWED, 2, 1500, 0);
}

/* Ties, against the non-skipping linear generator as well. */
void t_clv_cross_ties(void)
{
    cross_family(TIES, 3, 3000, 1);
}

void t_clv_cross_wide(void)
{
    cross_family(WIDE, 6, 300, 0);
}

/*
 * Large P: clv against clv-tree (and against clv-linear where that takes
 * under a few ms) on the paper's uniform and skewed instances, tie-heavy
 * ones (arrivals on a grid of d) and all arrivals equal, P up to 512 and
 * N up to 512, every schedule verified.  Slow under ASan (about 10x).
 */
static void cross_large_one(family_t fam, int32_t np, int32_t nseg,
                            uint64_t *st, int64_t *a)
{
    int64_t d = fam == TIES ? irange(st, 1, 6)
              : (int64_t)((0.001 + 0.999 * unif(st)) * TICKS);
    rt_algo_params_t p;
    rt_sched_t x, y;

    for (int32_t r = 0; r < np; r++) {
        if (fam == UNIFORM)
            a[r] = (int64_t)(unif(st) * (np + 0.1) * TICKS);
        else if (fam == SKEWED)
            a[r] = r == np - 1 ? (int64_t)(nseg * TICKS) : 0;
        else if (fam == TIES)
            a[r] = d * irange(st, 0, 8) + (irange(st, 0, 1) ? d / 2 : 0);
        else
            a[r] = 12345;
    }
    p = params(np, fam == SKEWED ? 0 : irange(st, 0, np - 1), nseg, d, a);
    gen(rt_algo_clv, &x, &p);
    gen(rt_algo_clv_tree, &y, &p);
    if (!sched_same(&x, &y)) {
        print_instance(&p);
        TST_FAIL("clv and clv-tree differ (P %d, N %d)", np, nseg);
    }
    check_sched(&x, &p);
    rt_sched_free(&y);
    if ((int64_t)np * np * nseg <= 128 * 128 * 64) {
        gen(rt_algo_clv_linear, &y, &p);
        if (!sched_same(&x, &y)) {
            print_instance(&p);
            TST_FAIL("clv and clv-linear differ (P %d, N %d)", np, nseg);
        }
        rt_sched_free(&y);
    }
    rt_sched_free(&x);
}

void t_clv_cross_large(void)
{
    static const int32_t sizes[][2] = {
        { 512, 512 }, { 512, 64 }, { 384, 200 }, { 300, 1 }, { 257, 130 },
        { 200, 512 }, { 129, 129 }, { 128, 64 }, { 100, 7 }, { 65, 300 },
        { 64, 64 }, { 48, 48 }, { 48, 1024 },
    };
    family_t fams[] = { UNIFORM, SKEWED, TIES, WIDE /* all equal */ };
    uint64_t st = 7;
    int64_t *a = malloc(512 * sizeof *a);

    TST_TRUE(a != NULL);
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
        for (int f = 0; f < 4; f++)
            cross_large_one(fams[f], sizes[k][0], sizes[k][1], &st, a);
    free(a);
}

/*
 * Small cases by hand, for all the generators.  P = 2, both at 0, root 0:
 * the sink takes s_r from p1 in round r, and p1 takes s_{r+1} from p0
 * (which holds it and is free) while it can: N = 3 gives 1->0 s0, 0->1 s1
 * | 1->0 s1, 0->1 s2 | 1->0 s2.  The "<=" of G: p1 at exactly d is in
 * round 0's G; at d + 1 it is not, p0 idles one round and p1 sends in
 * round 1.  N < P: one segment, eight processes at 0, root 3: a binomial
 * pattern, log2 8 = 3 rounds.
 */
void t_clv_small_by_hand(void)
{
    static const xfer_t two3[] = { {0, 1, 0, 0}, {0, 0, 1, 1},
                                   {1, 1, 0, 1}, {1, 0, 1, 2},
                                   {2, 1, 0, 2} };
    static const xfer_t edge_in[] = { {0, 1, 0, 0} };
    static const xfer_t edge_out[] = { {1, 1, 0, 0} };
    gen_fn *fns[] = { rt_algo_clv_linear, rt_algo_clv, linear_noskip,
                      rt_algo_clv_tree };

    for (int f = 0; f < NFNS; f++) {
        int64_t at0[2] = { 0, 0 }, atd[2] = { 0, 10 }, atd1[2] = { 0, 11 };
        int64_t eight[8] = { 0 };
        rt_algo_params_t p = params(2, 0, 3, 10, at0);
        rt_sched_t s;

        gen(fns[f], &s, &p);
        expect_xfers(&s, &p, two3, 5);
        TST_EQ_INT(s.nrounds, 3);
        rt_sched_free(&s);
        p = params(2, 0, 1, 10, atd);
        gen(fns[f], &s, &p);
        expect_xfers(&s, &p, edge_in, 1);
        rt_sched_free(&s);
        p = params(2, 0, 1, 10, atd1);
        gen(fns[f], &s, &p);
        expect_xfers(&s, &p, edge_out, 1);
        rt_sched_free(&s);
        p = params(8, 3, 1, 10, eight);
        gen(fns[f], &s, &p);
        TST_EQ_INT(s.nrounds, 3);
        TST_EQ_UINT(s.nsteps, 14);      /* 7 transfers, 2 steps each */
        check_sched(&s, &p);
        rt_sched_free(&s);
    }
}

/*
 * Idle-round skipping.  The paper's 5.1 example (one segment, d = 1 ms,
 * arrivals 0, 1, 2, 3 s; in us) by hand from the plain loop: p0 waits
 * alone until 1e6 <= r*1000 + 1000, so p1 sends in round 999, p2 in 1999
 * and p3 in 2999.  Then random instances with long idle stretches against
 * the linear generator iterating every idle round.
 */
void t_clv_idle_skip(void)
{
    static const xfer_t want[] = { {999, 1, 0, 0}, {1999, 2, 0, 0},
                                   {2999, 3, 0, 0} };
    static const int64_t a51[] = { 0, 1000000, 2000000, 3000000 };
    gen_fn *fns[] = { rt_algo_clv_linear, rt_algo_clv, linear_noskip,
                      rt_algo_clv_tree };

    for (int f = 0; f < NFNS; f++) {
        rt_algo_params_t p = params(4, 0, 1, 1000, a51);
        rt_sched_t s;

        gen(fns[f], &s, &p);
        expect_xfers(&s, &p, want, 3);
        TST_EQ_INT(s.nrounds, 3000);
        rt_sched_free(&s);
    }
    cross_family(IDLE, 4, 1500, 1);
}

/* Steps of `rank` in a and b are the same. */
static void same_rank_steps(const rt_sched_t *a, const rt_sched_t *b,
                            int32_t rank, const rt_algo_params_t *p)
{
    size_t na, nb;
    const rt_step_t *x = rt_sched_rank_steps(a, rank, &na);
    const rt_step_t *y = rt_sched_rank_steps(b, rank, &nb);

    if (na != nb || (na && memcmp(x, y, na * sizeof *x) != 0)) {
        print_instance(p);
        TST_FAIL("rank %d: one-rank schedule differs from the filtered "
                 "all-ranks one", rank);
    }
}

/* A one-rank schedule equals the all-ranks one filtered to that rank. */
void t_clv_one_rank(void)
{
    gen_fn *fns[] = { rt_algo_clv_linear, rt_algo_clv, rt_algo_clv_tree };
    uint64_t st = 5;
    int64_t a[12];

    for (int it = 0; it < 60; it++) {
        int32_t np = irange(&st, 1, 12), nseg = irange(&st, 1, 10);
        int64_t d = irange(&st, 1, 20);

        for (int32_t r = 0; r < np; r++)
            a[r] = irange(&st, 0, 60);
        rt_algo_params_t p = params(np, irange(&st, 0, np - 1), nseg, d, a);
        for (int f = 0; f < NFNS; f++)
            for (int32_t r = 0; r < np; r++) {
                rt_sched_t all, one;
                cm_err_t err;

                gen(fns[f], &all, &p);
                rt_sched_keep_rank(&all, r);
                rt_sched_init(&one);
                TST_EQ_STATUS(fns[f](&one, &p, r, &err), CM_OK);
                TST_EQ_INT(one.only_rank, r);
                TST_EQ_INT(one.nrounds, all.nrounds);
                same_rank_steps(&all, &one, r, &p);
                rt_sched_free(&all);
                rt_sched_free(&one);
            }
    }
}

/* ---- Edges and errors --------------------------------------------------- */

void t_clv_edge_cases(void)
{
    gen_fn *fns[] = { rt_algo_clv_linear, rt_algo_clv, rt_algo_clv_tree };
    static const int64_t a[5] = { 7, 0, 31, 12, 12 };

    for (int f = 0; f < NFNS; f++) {
        rt_algo_params_t p = params(1, 0, 3, 10, NULL);
        rt_sched_t s, t;

        /* P = 1: nothing to send, the root already holds everything. */
        gen(fns[f], &s, &p);
        TST_EQ_UINT(s.nsteps, 0);
        TST_EQ_INT(s.nrounds, 0);
        TST_EQ_INT(s.npieces, 3);
        check_sched(&s, &p);
        rt_sched_free(&s);

        /* count = 0 with N segments: N empty pieces, the same schedule. */
        p = params(5, 2, 4, 10, a);
        gen(fns[f], &s, &p);
        p.count = 0;
        gen(fns[f], &t, &p);
        TST_EQ_INT(t.npieces, 4);
        TST_EQ_INT(t.piece_off[4], 0);
        TST_EQ_UINT(t.nsteps, s.nsteps);
        TST_EQ_INT(memcmp(s.steps, t.steps, s.nsteps * sizeof *s.steps), 0);
        check_sched(&t, &p);
        rt_sched_free(&t);

        /* segcount: 10 elements in segments of 3 = 4 segments, the same
           schedule as nsegs = 4. */
        p.count = 10;
        p.nsegs = 0;
        p.segcount = 3;
        gen(fns[f], &t, &p);
        TST_EQ_INT(t.npieces, 4);
        TST_EQ_INT(t.piece_off[1], 3);
        TST_EQ_INT(t.piece_off[4], 10);
        TST_EQ_INT(memcmp(s.steps, t.steps, s.nsteps * sizeof *s.steps), 0);
        rt_sched_free(&t);
        rt_sched_free(&s);

        /* Neither nsegs nor segcount: one segment. */
        p.segcount = 0;
        gen(fns[f], &s, &p);
        TST_EQ_INT(s.npieces, 1);
        check_sched(&s, &p);
        rt_sched_free(&s);
    }
}

static void expect_error(const rt_algo_params_t *p, int32_t rank,
                         cm_status_t want, const char *needle)
{
    gen_fn *fns[] = { rt_algo_clv_linear, rt_algo_clv, rt_algo_clv_tree };
    const char *names[] = { "clv-linear", "clv", "clv-tree" };

    for (int f = 0; f < NFNS; f++) {
        rt_sched_t s;
        cm_err_t err;

        rt_sched_init(&s);
        cm_err_clear(&err);
        TST_EQ_STATUS(fns[f](&s, p, rank, &err), want);
        TST_EQ_STATUS(err.status, want);
        TST_CONTAINS(err.msg, names[f]);
        TST_CONTAINS(err.msg, needle);
        rt_sched_free(&s);
    }
}

void t_clv_invalid(void)
{
    static const int64_t neg[3] = { 0, -1, 5 };
    rt_algo_params_t p = params(3, 0, 2, 10, NULL);

    p.round_len = 0;
    expect_error(&p, -1, CM_ERR_INVALID, "round_len");
    p.round_len = -5;
    expect_error(&p, -1, CM_ERR_INVALID, "round");
    p = params(3, 0, 2, 10, NULL);
    p.nranks = 0;
    expect_error(&p, -1, CM_ERR_INVALID, "nranks");
    p = params(3, 3, 2, 10, NULL);
    expect_error(&p, -1, CM_ERR_INVALID, "root");
    p = params(3, 0, 2, 10, NULL);
    expect_error(&p, 3, CM_ERR_INVALID, "rank 3");
    expect_error(&p, -2, CM_ERR_INVALID, "rank -2");
    p.count = -1;
    expect_error(&p, -1, CM_ERR_INVALID, "count");
    p = params(3, 0, 2, 10, neg);
    expect_error(&p, -1, CM_ERR_INVALID, "arrival");
    p = params(3, 0, 2, 10, NULL);
    p.segcount = 4;
    expect_error(&p, -1, CM_ERR_INVALID, "not both");
    p = params(3, 0, -1, 10, NULL);
    expect_error(&p, -1, CM_ERR_INVALID, "negative");
}

/* Too many rounds for an int32 round number, and times past int64. */
void t_clv_range(void)
{
    int64_t far[2] = { 0, (int64_t)1 << 40 };
    int64_t late[2] = { INT64_MAX - 5, INT64_MAX - 5 };
    int64_t last[2] = { 0, (int64_t)INT32_MAX * 3 };
    rt_algo_params_t p = params(2, 0, 1, 1, far);
    gen_fn *fns[] = { rt_algo_clv_linear, rt_algo_clv, rt_algo_clv_tree };

    expect_error(&p, -1, CM_ERR_RANGE, "rounds");
    p = params(2, 1, 1, 10, late);
    expect_error(&p, -1, CM_ERR_RANGE, "overflow");
    /* The last round that fits (nrounds = INT32_MAX): p0 waits alone
       until INT32_MAX * 3 <= r * 3 + 3, r = INT32_MAX - 1; one more and
       it does not fit. */
    p = params(2, 0, 1, 3, last);
    for (int f = 0; f < NFNS; f++) {
        rt_sched_t s;

        gen(fns[f], &s, &p);
        TST_EQ_UINT(s.nsteps, 2);
        TST_EQ_INT(s.steps[0].round, INT32_MAX - 1);
        TST_EQ_INT(s.nrounds, INT32_MAX);
        rt_sched_free(&s);
    }
    last[1] += 3;
    expect_error(&p, -1, CM_ERR_RANGE, "rounds");
}

/* All arrivals equal: ceil(log2 P) + N - 1 <= rounds <= ceil(log2 P) + N. */
void t_clv_balanced_rounds(void)
{
    int64_t a[64];

    for (int32_t np = 2; np <= 64; np++) {
        int32_t lg = 0;

        while ((1 << lg) < np)
            lg++;
        for (int32_t r = 0; r < np; r++)
            a[r] = 37;
        for (int32_t nseg = 1; nseg <= 40; nseg++) {
            rt_algo_params_t p = params(np, (np * nseg) % np, nseg, 10, a);
            int32_t nr = cross(&p, 0);

            if (nr < lg + nseg - 1 || nr > lg + nseg) {
                print_instance(&p);
                TST_FAIL("%d rounds, not in [%d, %d]", nr, lg + nseg - 1,
                         lg + nseg);
            }
        }
    }
}
