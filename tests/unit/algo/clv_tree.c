/*
 * clv_tree.c - Clairvoyant reduce with the improvements of Proficz &
 * Ocetkiewicz 2020, section 5 ("clv-tree", rt_algo_clv_tree: the paper's
 * segment tree, kept as the reference for the faster clv_rows.c, "clv",
 * and reached by the tests and bin/clvbench; not an algorithm table row):
 * the same schedule as clv_linear.c
 * (whose header states the rules and the decisions on the open points),
 * computed with bit columns and a segment tree.
 *
 * Data (5.3, 5.4):
 *  - col(p): p's column of the state array, one bit per segment (1 = holds
 *    the segment, A or P; 0 = E or P'), N rounded up to 128 bits (nv
 *    two-word vectors, nw = 2 nv words), process-major so that one column
 *    is contiguous.
 *  - A segment tree over 2P leaf positions (m = the power of two >= 2P
 *    leaves, node 1 the root, node x's children 2x and 2x+1, leaf L at node
 *    m + L).  Each node holds a column, the bitwise OR of its children.  A
 *    leaf holds col(p) of the process p placed there if p is in this
 *    round's G and has not sent yet (S(p) clears the leaf: 5.4.4), else 0.
 *
 * Leaf order = (availability, rank) order inside G (5.4.3).  Write a
 * process's availability as avail = k*d + f with 0 <= f < d: f, the
 * fractional arrival time (arrival mod d), never changes, k grows by one
 * per round.  idx(p) = p's position when processes are sorted by (f, rank).
 * If h is the first of G, every q of G has avail(q) <= avail(h) + d, so
 * k(q) = k(h) (then q after h) or k(q) = k(h) + 1 with f(q) <= f(h).  Such
 * a q sits at leaf idx(q) + P*(k(q) - k(h)); ordering leaves by
 * (k - k(h), idx) is ordering by (k, f, rank) = (avail, rank).  The paper
 * puts q at idx(q) + P when idx(q) < idx(h); that misplaces a q at exactly
 * avail(h) + d (f(q) = f(h), allowed by the "<=") whose rank is above h's:
 * idx(q) > idx(h), yet q comes after every q' with k(q') = k(h).  Using
 * k(q) - k(h) handles that boundary.  Leaf L belongs to the process at
 * order position L mod P, so no two processes ever share a leaf.
 *
 * Finding a sender for receiver i (5.4.1, 5.4.2): all-except-one(i) = the
 * OR of the siblings along i's leaf-to-root path = the OR of every other
 * leaf.  For a non-sink i the candidate segments are col(i) AND that, for
 * the sink all of that minus its P' segment; the first set bit (ctzll,
 * word by word, skipping words where col(i) is 0) is j.  The sender z is
 * the leftmost leaf other than i's with bit j (find-leftmost, or
 * find-leftmost-from when that is i itself; both in one pass over the
 * same path siblings, see find_sender): the earliest (avail, rank), as
 * the rule asks.
 *
 * The pseudo-root (5.6): the sink must be served first, but the root need
 * not be first in G.  Here the sink is simply taken out of the processing
 * order and served first; its column stays at its own leaf, so as a
 * sender it keeps its real (avail, rank) place.
 *
 * Updates: S(z) zeroes z's leaf and recomputes its ancestors, stopping at
 * the first one that does not change (a 64-byte line at a time, in SSE2
 * registers); a P' bit is cleared the same way, one word.  At the start of a round every member of G is
 * written to its leaf (restoring S and P', moving it between idx and
 * idx + P when the first process of G changed, adding newcomers) and the
 * round-end leavers are zeroed; only the ancestors of leaves that changed
 * are recomputed, each once, level by level.  A round thus costs
 * O(|G| N/64 log P), not O(P N/64).
 *
 * G (5.2): a process that is in G stays in G until it leaves (its avail
 * <= avail(h) + d + d, and the next first process is at >= avail(h) + d),
 * so the next G is the previous one, leavers removed, merged with the
 * head of the awaiting queue A (the processes not yet in G, sorted by
 * (arrival, rank)).  No priority queue.  When G is the sink alone, the
 * k idle rounds are skipped at once (5.1, rt__clv_idle_rounds), the round
 * counter advancing by k exactly as the plain loop's would.
 *
 * Worked example: P = 5, d = 10, arrivals [5, 9, 12, 30, 14], root 0,
 * N = 2.  f = [5, 9, 2, 0, 4], so idx = p3 0, p2 1, p4 2, p0 3, p1 4.
 *
 *   round  G (avail)                 leaves             steps
 *   0      p0 5, p1 9, p2 12, p4 14  p0 3 p1 4 p2 6 p4 7 1->0 s0 0->1 s1
 *                                                       4->2 s0 2->4 s1
 *   1      p0 15 p1 19 p2 22 p4 24   p0 3 p1 4 p2 6 p4 7 2->0 s0 4->1 s1
 *   2      p0 25 p1 29 p3 30         p0 3 p1 4 p3 5      3->0 s0 1->3 s1
 *   3      p0 35 p3 40               p0 3 p3 5           3->0 s1
 *
 * In round 0, p2 and p4 (k = 1, f below p0's) go to idx + P = 6 and 7,
 * after p0 and p1 (k = 0) at 3 and 4.  p2 and p4 leave after round 1, p1
 * after round 2; p3 arrives for round 2 (30 <= 25 + 10).
 *
 * Parameters read and limitations: as clv_linear.c (same checks, same
 * errors, same schedule), minus the slowness.  Memory: 5 to 9 bits per
 * (process, segment): the columns and a tree of 2m nodes, 2P <= m < 4P.
 * Generating for one rank costs as much as for all ranks.  Needs GCC's or
 * clang's vector extension (vector_size), lowered to plain 64-bit code
 * where there are no 128-bit registers.
 *
 * Cost, P = N = 512 (bin/clvbench; uniform: ~1300-4000 rounds, |G| about
 * 100-250): about 58 ms per schedule here, of which about 17 ms is
 * recording the ~525000 steps (rt_sched_xfer, rt_sched_finish); the rest
 * is find-segment and find-sender (~14 ms), S updates (~11 ms), P' (~3 ms)
 * and the round starts (~5 ms).  clv-linear takes 1-5 s on the same
 * instances (about 50x); on skewed ones the gap is 4-5x.  clv_rows.c
 * gives the same schedules in about half the time (docs/clv-speed.md).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/algo/clv_int.h"
#include "tests/unit/algo/clv_tree.h"

#define NAME "clv-tree"

/*
 * Two 64-bit words: one SSE2 register on x86-64 (GCC's and clang's generic
 * vectors).  Columns and tree nodes are nv vectors, nw = 2*nv words (N
 * rounded up to 128 bits, the padding bits always 0); may_alias lets the
 * same memory be read a word at a time.
 */
typedef uint64_t vec_t __attribute__((vector_size(16), may_alias));

typedef struct clvt {
    int32_t   np, nseg, nw, nv, root;
    int64_t   d;
    int32_t   m, h;       /* leaves (leaf L is node m + L), m = 2^h */
    vec_t    *tree;       /* 2m nodes x nv vectors */
    vec_t    *col;        /* np x nv: the state array, rank-major */
    int32_t  *nheld;      /* set bits of col(p) plus a pending P' */
    int64_t  *avail;      /* availability time per rank */
    int64_t  *k;          /* avail = k*d + (arrival mod d) */
    int32_t  *idx;        /* position in (arrival mod d, rank) order */
    int32_t  *ord;        /* the inverse: ord[idx[p]] = p */
    int32_t  *leaf;       /* p's leaf position, or -1 */
    int32_t  *pprime;     /* the segment in state P' this round, or -1 */
    uint8_t  *sent;       /* S */
    int32_t  *aq;         /* A: ranks by (arrival, rank) */
    int32_t   na, ahead;  /* |A| and its first unused entry */
    int32_t  *g, *g2;     /* G in (avail, rank) order, and scratch */
    int32_t   ng;
    int32_t  *dirty, *dirty2;   /* changed nodes of one level */
    int32_t   ndirty;
    uint32_t *mark;       /* internal node recomputed in this pass */
    uint32_t  epoch;
} clvt_t;

static inline vec_t *vnode(const clvt_t *c, int32_t x)
{
    return c->tree + (size_t)x * (size_t)c->nv;
}

static inline uint64_t *node(const clvt_t *c, int32_t x)
{
    return (uint64_t *)vnode(c, x);
}

static inline vec_t *vcol(const clvt_t *c, int32_t p)
{
    return c->col + (size_t)p * (size_t)c->nv;
}

static inline uint64_t *colp(const clvt_t *c, int32_t p)
{
    return (uint64_t *)vcol(c, p);
}

static inline int vec_any(vec_t v)
{
    return (v[0] | v[1]) != 0;
}

/* (avail, rank) order. */
static inline int before(const clvt_t *c, int32_t a, int32_t b)
{
    return c->avail[a] < c->avail[b] || (c->avail[a] == c->avail[b] && a < b);
}

/* ---- Tree maintenance ------------------------------------------------- */

/* node x = OR of its children; returns whether it changed. */
static int recompute(const clvt_t *c, int32_t x)
{
    vec_t *t = vnode(c, x), diff = { 0, 0 };
    const vec_t *l = vnode(c, 2 * x), *r = vnode(c, 2 * x + 1);

    for (int32_t k = 0; k < c->nv; k++) {
        vec_t v = l[k] | r[k];

        diff |= v ^ t[k];
        t[k] = v;
    }
    return vec_any(diff);
}

/* Writes src (NULL: zeros) to leaf L; queues the leaf if it changed. */
static void leaf_write(clvt_t *c, int32_t L, const vec_t *src)
{
    vec_t *t = vnode(c, c->m + L), diff = { 0, 0 }, zero = { 0, 0 };

    for (int32_t k = 0; k < c->nv; k++) {
        vec_t v = src ? src[k] : zero;

        diff |= v ^ t[k];
        t[k] = v;
    }
    if (vec_any(diff))
        c->dirty[c->ndirty++] = c->m + L;
}

/* Places p at leaf pos (-1: nowhere) with its current column. */
static void leaf_put(clvt_t *c, int32_t p, int32_t pos)
{
    if (c->leaf[p] >= 0 && c->leaf[p] != pos)
        leaf_write(c, c->leaf[p], NULL);
    if (pos >= 0)
        leaf_write(c, pos, vcol(c, p));
    c->leaf[p] = pos;
}

/* Recomputes the ancestors of the queued leaves, each once, level by
   level, going up only from nodes that changed. */
static void propagate(clvt_t *c)
{
    int32_t n = c->ndirty;

    c->epoch++;
    while (n > 0 && c->dirty[0] > 1) {
        int32_t nn = 0;

        for (int32_t k = 0; k < n; k++) {
            int32_t x = c->dirty[k] >> 1;

            if (c->mark[x] == c->epoch)
                continue;
            c->mark[x] = c->epoch;
            if (recompute(c, x))
                c->dirty2[nn++] = x;
        }
        int32_t *t = c->dirty;
        c->dirty = c->dirty2;
        c->dirty2 = t;
        n = nn;
    }
    c->ndirty = 0;
}

/*
 * S(p): p's leaf goes to zero now (it may not send twice in a round), and
 * so do its ancestors' ORs, up to the first that does not change (the
 * ones above cannot either).  Going up, the new value of the node on the
 * path is carried in cur[], so each level reads only the sibling and the
 * parent: node = cur | sibling.  CV vectors (a 64-byte line) at a time,
 * each chunk climbing on its own; `n` is a constant in the common case
 * (see leaf_disable), so cur[] lives in registers.
 */
#define CV 4

static inline __attribute__((always_inline))
void disable_chunk(clvt_t *c, int32_t x0, int32_t k0, int32_t n)
{
    vec_t cur[CV], any = { 0, 0 }, zero = { 0, 0 }, *t = vnode(c, x0) + k0;

    for (int32_t k = 0; k < n; k++) {
        any |= t[k];
        t[k] = zero;
        cur[k] = zero;
    }
    for (int32_t x = x0; vec_any(any) && x > 1; x >>= 1) {
        const vec_t *sib = vnode(c, x ^ 1) + k0;
        vec_t *par = vnode(c, x >> 1) + k0;

        any = zero;
        for (int32_t k = 0; k < n; k++) {
            cur[k] |= sib[k];
            any |= cur[k] ^ par[k];
            par[k] = cur[k];
        }
    }
}

static void leaf_disable(clvt_t *c, int32_t p)
{
    int32_t x0 = c->m + c->leaf[p], k0 = 0;

    for (; k0 + CV <= c->nv; k0 += CV)
        disable_chunk(c, x0, k0, CV);
    if (k0 < c->nv)
        disable_chunk(c, x0, k0, c->nv - k0);
}

/* Clears bit j of p's leaf (P'), if set, and of its ancestors up to the
   first that keeps it (because another leaf below it has it): one word,
   carried up as in disable_chunk. */
static void leaf_clear_bit(clvt_t *c, int32_t p, int32_t j)
{
    int32_t x = c->m + c->leaf[p], w = j >> 6;
    uint64_t b = (uint64_t)1 << (j & 63), cur = node(c, x)[w];

    if (!(cur & b))
        return;
    cur &= ~b;
    node(c, x)[w] = cur;
    for (; x > 1; x >>= 1) {
        uint64_t *par = node(c, x >> 1) + w;

        cur |= node(c, x ^ 1)[w];
        if (cur == *par)
            break;
        *par = cur;
    }
}

/* ---- Queries ------------------------------------------------------------ */

/*
 * The segment receiver i takes this round, or -1: the first set bit of
 * all-except-one(i) AND col(i) (FIND-PEER-SEGMENT), or, for the sink, of
 * all-except-one(i) without its P' segment (FIND-PEER-ROOT-SEGMENT).  One
 * word at a time, so that the search stops at the first word that has a
 * candidate; within a word the walk stops early once the lowest bit i
 * could take is found, as no sibling can offer a smaller one.
 */
static int32_t find_segment(const clvt_t *c, int32_t i, int is_sink)
{
    const uint64_t *own = colp(c, i);
    int32_t x0 = c->m + c->leaf[i];

    for (int32_t w = 0; w < c->nw; w++) {
        uint64_t want = is_sink ? ~(uint64_t)0 : own[w], acc = 0, low;

        if (is_sink && c->pprime[i] >= 0 && c->pprime[i] >> 6 == w)
            want &= ~((uint64_t)1 << (c->pprime[i] & 63));
        if (!want)
            continue;
        low = want & -want;
        for (int32_t x = x0; x > 1; x >>= 1) {
            acc |= node(c, x ^ 1)[w];
            if (acc & low)
                break;
        }
        acc &= want;
        if (acc)
            return w * 64 + __builtin_ctzll(acc);
    }
    return -1;
}

/* The leftmost leaf under node x whose bit (w, b) is set (x has it). */
static int32_t descend(const clvt_t *c, int32_t x, int32_t w, uint64_t b)
{
    while (x < c->m) {
        x *= 2;
        if (!(node(c, x)[w] & b))
            x++;
    }
    return x - c->m;
}

/*
 * The sender of segment j to i: the leftmost leaf other than i's with bit
 * j.  The siblings along i's leaf-to-root path split the other leaves into
 * ranges: the left siblings, from the top down, cover everything left of
 * i in order, and the right siblings, from the bottom up, everything right
 * of it.  So the first left sibling (top down) with bit j, or else the
 * first right sibling (bottom up, find-leftmost-from), holds the answer
 * at its leftmost leaf with the bit.  This is find-leftmost, and
 * find-leftmost-from when the leftmost is i itself, in one pass; the path
 * siblings were just read by find_segment.  Returns the rank.
 */
static int32_t find_sender(const clvt_t *c, int32_t i, int32_t j)
{
    int32_t w = j >> 6, x = c->m + c->leaf[i], L = -1, h = c->h;
    uint64_t b = (uint64_t)1 << (j & 63);

    for (int32_t k = h - 1; k >= 0 && L < 0; k--) {
        int32_t y = x >> k;         /* i's ancestor at depth h - k */

        if ((y & 1) && (node(c, y - 1)[w] & b))
            L = descend(c, y - 1, w, b);
    }
    for (int32_t k = 0; k < h && L < 0; k++) {
        int32_t y = x >> k;

        if (!(y & 1) && (node(c, y + 1)[w] & b))
            L = descend(c, y + 1, w, b);
    }
    assert(L >= 0);   /* all-except-one(i) had bit j */
    return c->ord[L < c->np ? L : L - c->np];
}

/* ---- Rounds --------------------------------------------------------------- */

/*
 * The next G: the previous one (leavers already removed, every member
 * still within d of the new first process) merged with the head of A.
 */
static cm_status_t build_g(clvt_t *c, cm_err_t *err)
{
    int32_t a = c->ahead, o = 0, n = 0, first;
    int64_t limit;

    if (c->ng > 0 && (a >= c->na || before(c, c->g[0], c->aq[a])))
        first = c->g[0];
    else
        first = c->aq[a];
    if (__builtin_add_overflow(c->avail[first], c->d, &limit))
        return CM_ERR(err, CM_ERR_RANGE,
                      NAME ": availability time overflows int64");
    while (o < c->ng || (a < c->na && c->avail[c->aq[a]] <= limit)) {
        if (o < c->ng && (a >= c->na || c->avail[c->aq[a]] > limit ||
                          before(c, c->g[o], c->aq[a]))) {
            assert(c->avail[c->g[o]] <= limit);
            c->g2[n++] = c->g[o++];
        } else {
            c->g2[n++] = c->aq[a++];
        }
    }
    c->ahead = a;
    int32_t *t = c->g;
    c->g = c->g2;
    c->g2 = t;
    c->ng = n;
    return CM_OK;
}

/* Writes every member of G to its leaf for this round (see the header). */
static void place_g(clvt_t *c)
{
    int64_t k0 = c->k[c->g[0]];

    for (int32_t n = 0; n < c->ng; n++) {
        int32_t p = c->g[n];

        assert(c->k[p] - k0 == 0 || c->k[p] - k0 == 1);
        leaf_put(c, p, c->idx[p] + (c->k[p] != k0 ? c->np : 0));
    }
    propagate(c);
}

/* Serves receiver i (sink or not): finds and records its transfer. */
static cm_status_t serve(clvt_t *c, rt_sched_t *s, int32_t i, int is_sink,
                         int32_t round, cm_err_t *err)
{
    int32_t j = find_segment(c, i, is_sink), z, w;
    uint64_t b;
    cm_status_t st;

    if (j < 0)
        return CM_OK;
    z = find_sender(c, i, j);
    st = rt_sched_xfer(s, round, z, i, RT_ACT_REDUCE, RT_STEP_MOVE, j, 1);
    if (st != CM_OK)
        return CM_ERR(err, st, NAME ": cannot append a step: %s",
                      cm_status_string(st));
    w = j >> 6;
    b = (uint64_t)1 << (j & 63);
    c->sent[z] = 1;
    colp(c, z)[w] &= ~b;            /* E */
    c->nheld[z]--;
    leaf_disable(c, z);
    if (colp(c, i)[w] & b) {        /* P': 0 until the round ends */
        colp(c, i)[w] &= ~b;
        leaf_clear_bit(c, i, j);
    } else {
        c->nheld[i]++;              /* the sink takes back a sent segment */
    }
    c->pprime[i] = j;
    return CM_OK;
}

/* One round on G (at least two members); the sink first. */
static cm_status_t round_run(clvt_t *c, rt_sched_t *s, int32_t round,
                             cm_err_t *err)
{
    int32_t sink = c->g[0];
    cm_status_t st;

    for (int32_t n = 0; n < c->ng; n++)
        if (c->g[n] == c->root)
            sink = c->root;
    st = serve(c, s, sink, 1, round, err);
    for (int32_t n = 0; n < c->ng && st == CM_OK; n++)
        if (c->g[n] != sink)
            st = serve(c, s, c->g[n], 0, round, err);
    return st;
}

/* End of round: P' -> P, leavers out (of G and of the tree), avail + d. */
static cm_status_t round_end(clvt_t *c, int32_t *nleft, cm_err_t *err)
{
    int32_t keep = 0;

    for (int32_t n = 0; n < c->ng; n++) {
        int32_t p = c->g[n];

        if (c->pprime[p] >= 0) {
            colp(c, p)[c->pprime[p] >> 6] |= (uint64_t)1 << (c->pprime[p] & 63);
            c->pprime[p] = -1;
        }
        c->sent[p] = 0;
        if (p != c->root && c->nheld[p] == 0) {
            leaf_put(c, p, -1);
            (*nleft)--;
            continue;
        }
        if (__builtin_add_overflow(c->avail[p], c->d, &c->avail[p]))
            return CM_ERR(err, CM_ERR_RANGE,
                          NAME ": availability time overflows int64");
        c->k[p]++;
        c->g[keep++] = p;
    }
    c->ng = keep;
    return CM_OK;
}

static cm_status_t clvt_run(clvt_t *c, rt_sched_t *s, cm_err_t *err)
{
    int32_t nleft = c->np - 1;   /* non-root processes still holding data */
    int64_t round = 0;
    cm_status_t st = CM_OK;

    while (nleft > 0 && st == CM_OK) {
        st = build_g(c, err);
        if (st != CM_OK)
            break;
        /* Alone in G: the next process is the head of A (every process
           not in G is there), after avail + d: skip the idle rounds. */
        if (c->ng == 1) {
            int32_t p = c->g[0];
            int64_t k = rt__clv_idle_rounds(c->avail[p],
                                            c->avail[c->aq[c->ahead]], c->d);

            c->avail[p] += k * c->d;
            c->k[p] += k;
            round += k;
            continue;
        }
        if (round > RT_CLV_ROUND_MAX)
            return CM_ERR(err, CM_ERR_RANGE, NAME ": more than %d rounds "
                          "(arrival times span too many round lengths)",
                          INT32_MAX);
        place_g(c);
        st = round_run(c, s, (int32_t)round, err);
        if (st == CM_OK)
            st = round_end(c, &nleft, err);
        round++;
    }
    return st;
}

/* ---- Setup -------------------------------------------------------------- */


static void clvt_free(clvt_t *c)
{
    free(c->tree);
    free(c->col);
    free(c->nheld);
    free(c->avail);
    free(c->k);
    free(c->idx);
    free(c->ord);
    free(c->leaf);
    free(c->pprime);
    free(c->sent);
    free(c->aq);
    free(c->g);
    free(c->g2);
    free(c->dirty);
    free(c->dirty2);
    free(c->mark);
}

/* Allocates everything; CM_ERR_NOMEM if anything is missing. */
static cm_status_t clvt_alloc(clvt_t *c, cm_err_t *err)
{
    size_t np = (size_t)c->np, nv = (size_t)c->nv, m = (size_t)c->m;

    /* malloc's alignment (16 on x86-64) suffices for vec_t */
    c->tree = calloc(2 * m * nv, sizeof *c->tree);
    c->col = malloc(np * nv * sizeof *c->col);
    c->nheld = malloc(np * sizeof *c->nheld);
    c->avail = malloc(np * sizeof *c->avail);
    c->k = malloc(np * sizeof *c->k);
    c->idx = malloc(np * sizeof *c->idx);
    c->ord = malloc(np * sizeof *c->ord);
    c->leaf = malloc(np * sizeof *c->leaf);
    c->pprime = malloc(np * sizeof *c->pprime);
    c->sent = calloc(np, 1);
    c->aq = malloc(np * sizeof *c->aq);
    c->g = malloc(np * sizeof *c->g);
    c->g2 = malloc(np * sizeof *c->g2);
    /* Between two propagations: a zeroed and a written leaf per member
       of G, and the leavers before them: at most 3P leaves. */
    c->dirty = malloc(3 * np * sizeof *c->dirty);
    c->dirty2 = malloc(3 * np * sizeof *c->dirty2);
    c->mark = calloc(m, sizeof *c->mark);
    if (!c->tree || !c->col || !c->nheld || !c->avail || !c->k || !c->idx ||
        !c->ord || !c->leaf || !c->pprime || !c->sent || !c->aq || !c->g ||
        !c->g2 || !c->dirty || !c->dirty2 || !c->mark)
        return CM_ERR(err, CM_ERR_NOMEM, NAME ": out of memory (%d ranks, "
                      "%d segments)", c->np, c->nseg);
    return CM_OK;
}

/* Columns all ones (every process holds every segment), the two orders. */
static cm_status_t clvt_init(clvt_t *c, const int64_t *arrival, cm_err_t *err)
{
    rt_time_rank_t *keys = malloc((size_t)c->np * sizeof *keys);

    if (!keys)
        return CM_ERR(err, CM_ERR_NOMEM, NAME ": out of memory (%d ranks)",
                      c->np);
    for (int32_t p = 0; p < c->np; p++) {
        uint64_t *cp = colp(c, p);
        int64_t a = arrival ? arrival[p] : 0;

        for (int32_t w = 0; w < c->nw; w++) {
            int32_t left = c->nseg - 64 * w;   /* segments in this word */

            cp[w] = left >= 64 ? ~(uint64_t)0
                  : left > 0 ? ((uint64_t)1 << left) - 1 : 0;
        }
        c->nheld[p] = c->nseg;
        c->avail[p] = a;
        c->k[p] = a / c->d;
        c->leaf[p] = -1;
        c->pprime[p] = -1;
        keys[p].t = a % c->d;
        keys[p].rank = p;
    }
    qsort(keys, (size_t)c->np, sizeof *keys, rt_time_rank_cmp);
    for (int32_t n = 0; n < c->np; n++) {
        c->ord[n] = keys[n].rank;
        c->idx[keys[n].rank] = n;
    }
    for (int32_t p = 0; p < c->np; p++) {
        keys[p].t = c->avail[p];
        keys[p].rank = p;
    }
    qsort(keys, (size_t)c->np, sizeof *keys, rt_time_rank_cmp);
    for (int32_t n = 0; n < c->np; n++)
        c->aq[n] = keys[n].rank;
    c->na = c->np;
    free(keys);
    return CM_OK;
}

cm_status_t rt_algo_clv_tree(rt_sched_t *s, const rt_algo_params_t *p,
                             int32_t rank, cm_err_t *err)
{
    clvt_t c;
    cm_status_t st;

    memset(&c, 0, sizeof c);
    st = rt__clv_begin(s, p, rank, NAME, &c.nseg, err);
    if (st != CM_OK)
        return st;
    c.np = p->nranks;
    c.root = p->root;
    c.d = p->round_len;
    c.nv = (c.nseg + 127) / 128;
    c.nw = 2 * c.nv;
    for (c.m = 2, c.h = 1; c.m < 2 * c.np; c.m *= 2)
        c.h++;
    st = clvt_alloc(&c, err);
    if (st == CM_OK)
        st = clvt_init(&c, p->arrival, err);
    if (st == CM_OK)
        st = clvt_run(&c, s, err);
    clvt_free(&c);
    return st == CM_OK ? rt_sched_finish(s, err) : st;
}
