/*
 * clv_rows.c - Clairvoyant reduce, the fast version ("clv"): the schedule
 * of clv_linear.c (whose header states the rules) and of clv_tree.c (the
 * paper's segment tree, Proficz & Ocetkiewicz 2020, section 5, kept as the
 * reference "clv-tree"), computed with per-segment holder rows and holder
 * counts instead of a tree.  tests/unit/algo/t_clv.c holds the three equal
 * step for step; docs/clv-speed.md has the measurements.
 *
 * Data:
 *  - row(j): one bit per process, at its position idx(p) in (arrival mod
 *    d, rank) order (clv_tree.c's header: f = arrival mod d never changes),
 *    set when p is in G and holds segment j (states A or P; not E, not P').
 *    Processes outside G hold no bits: they join with all N segments and
 *    leave holding nothing.
 *  - col(p): the same bits by process (p's column).
 *  - cnt(j) = |row(j)|, and the bit vectors one = {j: cnt >= 1} and two =
 *    {j: cnt >= 2}, kept up to date at every change (O(1) each).
 *  - busy: one bit per position, set when p sends in this round (S).  A
 *    sender keeps its row bits; the searches mask it out.  So S(p) is O(1)
 *    where the tree zeroes a leaf and recomputes its ancestors.
 *  - the free list (members of G not busy) and fo, a superset of the
 *    segments some free member holds (below).
 *
 * Receiver i (not the sink) takes the smallest segment j it holds that some
 * other free member of G holds, from the first such member in (avail,
 * rank) order (clv_linear.c, step 3).  i's own bit is in row(j), so another
 * holder exists only if cnt(j) >= 2: the candidates are col(i) AND two AND
 * fo, in increasing order.  While i is served its own busy bit is set, so
 * "a free holder" never means i.  A candidate is tested in one pass over
 * its row (free holders at all?) and only then is the first one looked
 * for.  Late in a round most members are busy and most tests fail (more
 * than one per receiver at P = N = 512 uniform): a failure for a busy i
 * means nobody can send j any more in this round (busy bits are never
 * cleared inside a round and rows only lose bits), so j leaves fo; and
 * once the failed tests have read four times as many words as rebuilding
 * fo from the free members' columns takes, fo is rebuilt, which drops
 * every such j at once.  With 8 free members or fewer, i's segment is
 * found from their columns directly (the OR of the free columns but i's,
 * word by word).  Once no member is free, the round is over.  The sink is
 * served first, when nobody is busy: its segment is the first of two OR
 * (one AND NOT col(sink)), at once.
 *
 * (avail, rank) order on positions: with h the first of G, a member q has
 * k(q) = k(h), idx(q) > idx(h), or k(q) = k(h) + 1, f(q) <= f(h)
 * (clv_tree.c's header).  So the order is the circular order of positions
 * starting at idx(h), except for the members with f(q) = f(h), k(q) = k(h)
 * + 1 and rank above h's: they sit right after idx(h) but come after
 * everyone.  Those (the `late` mask; exact ties of arrival mod d only) are
 * searched last.  No process ever moves, where the tree moves members
 * between its two leaves whenever the first of G changes.
 *
 * G, the awaiting queue A, idle-round skipping, P' and the round end are
 * clv_tree.c's (merging G with the head of A; paper 5.1, 5.2).  Steps go
 * to rt_sched_xfer as the transfers are found, as in clv_tree.c; the
 * schedule reserved for all ranks is 1/64 larger than rt__clv_begin's, as
 * the sink's taking back segments it sent adds 0.2-0.4 % (P = N = 512).
 *
 * Cost: O(|G| + transfers x (P + N)/64) per round at worst (a round's
 * tests are bounded by the fo rebuilds), in practice a few words per
 * receiver.  Memory: PN bits of rows and PN of columns (clv_tree.c: 5 to
 * 9 bits per process and segment).  Generating for one rank costs the
 * same rounds, minus recording the other ranks' steps.  Parameters, errors
 * and limits: as clv_linear.c (the same checks, in clv_common.c).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/algo/clv_int.h"

#define NAME "clv"

#define CLV_FEW 8    /* free members up to which find_peer_few is used */
#define CLV_REBUILD 4   /* fo is rebuilt once failed tests have read this
                           many times the words a rebuild reads */
/* (Both chosen by callgrind's instruction counts and CPU time at P = N =
   512: 1 and 2, 16 and 32 did more work.) */

/* Two words, one SSE2 register on x86-64 (GCC's and clang's vector
   extension, as in clv_tree.c); may_alias: the same memory is read a
   word at a time elsewhere.  Rows and columns are whole multiples of four
   words, and malloc's alignment (16 on x86-64) suffices. */
typedef uint64_t vec_t __attribute__((vector_size(16), may_alias));

typedef struct clvr {
    int32_t   np, nseg, root, nwp, nwn;
    int64_t   d;
    uint64_t *row;        /* nseg x nwp: holders of j by position */
    uint64_t *col;        /* np x nwn: segments of p */
    int32_t  *cnt;        /* |row(j)| */
    uint64_t *one, *two;  /* nwn: cnt >= 1, cnt >= 2 */
    uint64_t *busy;       /* nwp: sent in this round (S) */
    uint64_t *late;       /* nwp: searched last (see the header) */
    uint64_t *fo;         /* nwn: segments that may have a free holder */
    int64_t   spent;      /* words read by failed tests since fo was made */
    int32_t  *flist, *fpos;   /* the free members of G, and where in flist */
    int32_t   nf;
    int       has_late, ties;
    int64_t  *avail, *k, *f;
    int32_t  *idx, *ord;
    int32_t  *nheld;      /* set bits of col(p) plus a pending P' */
    int32_t  *pprime;     /* the segment in state P' this round, or -1 */
    uint8_t  *ing;        /* in G */
    int32_t  *aq;         /* A: ranks by (arrival, rank) */
    int32_t   na, ahead;
    int32_t  *g, *g2, ng;
} clvr_t;

static inline uint64_t *rowp(const clvr_t *c, int32_t j)
{
    return c->row + (size_t)j * (size_t)c->nwp;
}

static inline uint64_t *colp(const clvr_t *c, int32_t p)
{
    return c->col + (size_t)p * (size_t)c->nwn;
}

static inline uint64_t bit(int32_t x)
{
    return (uint64_t)1 << (x & 63);
}

/* (avail, rank) order. */
static inline int before(const clvr_t *c, int32_t a, int32_t b)
{
    return c->avail[a] < c->avail[b] || (c->avail[a] == c->avail[b] && a < b);
}

/* ---- Holder counts ------------------------------------------------------ */

static inline void cnt_inc(clvr_t *c, int32_t j)
{
    int32_t n = ++c->cnt[j];

    if (n == 1)
        c->one[j >> 6] |= bit(j);
    else if (n == 2)
        c->two[j >> 6] |= bit(j);
}

static inline void cnt_dec(clvr_t *c, int32_t j)
{
    int32_t n = --c->cnt[j];

    if (n == 1)
        c->two[j >> 6] &= ~bit(j);
    else if (n == 0)
        c->one[j >> 6] &= ~bit(j);
}

/* p holds j (again): its row bit and column bit. */
static inline void hold_set(clvr_t *c, int32_t p, int32_t j)
{
    rowp(c, j)[c->idx[p] >> 6] |= bit(c->idx[p]);
    colp(c, p)[j >> 6] |= bit(j);
    cnt_inc(c, j);
}

static inline void hold_clear(clvr_t *c, int32_t p, int32_t j)
{
    rowp(c, j)[c->idx[p] >> 6] &= ~bit(c->idx[p]);
    colp(c, p)[j >> 6] &= ~bit(j);
    cnt_dec(c, j);
}

/* p joins G holding every segment. */
static void join(clvr_t *c, int32_t p)
{
    size_t w = (size_t)(c->idx[p] >> 6);
    uint64_t b = bit(c->idx[p]);

    for (int32_t j = 0; j < c->nseg; j++) {
        c->row[(size_t)j * (size_t)c->nwp + w] |= b;
        cnt_inc(c, j);
    }
    c->ing[p] = 1;
}

/* ---- Finding the sender ------------------------------------------------- */

/* Position of the first set bit of word w's v, or -1. */
static inline int32_t first_in(uint64_t v, int32_t w)
{
    return v ? w * 64 + __builtin_ctzll(v) : -1;
}

/*
 * The first free holder of segment j, in (avail, rank) order: the
 * circular order of positions from base = idx(first of G), the `late`
 * positions last (see the header).  While a receiver is served its own
 * busy bit is set (see serve), so it is never its own sender.  Returns the
 * rank or -1.
 */
static int32_t first_holder(const clvr_t *c, int32_t j, int32_t base)
{
    const uint64_t *r = rowp(c, j), *busy = c->busy, *late = c->late;
    int32_t w0 = base >> 6, pos;
    uint64_t hi = ~(uint64_t)0 << (base & 63);

    if (c->has_late) {
        pos = first_in(r[w0] & ~busy[w0] & ~late[w0] & hi, w0);
        for (int32_t w = w0 + 1; pos < 0 && w < c->nwp; w++)
            pos = first_in(r[w] & ~busy[w] & ~late[w], w);
    } else {
        pos = first_in(r[w0] & ~busy[w0] & hi, w0);
        for (int32_t w = w0 + 1; pos < 0 && w < c->nwp; w++)
            pos = first_in(r[w] & ~busy[w], w);
    }
    for (int32_t w = 0; pos < 0 && w < w0; w++)
        pos = first_in(r[w] & ~busy[w], w);
    if (pos < 0)
        pos = first_in(r[w0] & ~busy[w0] & ~hi, w0);
    for (int32_t w = w0; pos < 0 && c->has_late && w < c->nwp; w++)
        pos = first_in(r[w] & ~busy[w] & late[w], w);
    return pos < 0 ? -1 : c->ord[pos];
}

/* ---- One round ---------------------------------------------------------- */

/* The transfer's two steps (for one rank: only if it takes part). */
static cm_status_t record(rt_sched_t *s, int32_t round, int32_t z,
                          int32_t i, int32_t j, cm_err_t *err)
{
    cm_status_t st;

    rt_sched_note_round(s, round);
    if (s->only_rank >= 0 && z != s->only_rank && i != s->only_rank)
        return CM_OK;
    st = rt_sched_xfer(s, round, z, i, RT_ACT_REDUCE, RT_STEP_MOVE, j, 1);
    if (st != CM_OK)
        return CM_ERR(err, st, NAME ": cannot append a step: %s",
                      cm_status_string(st));
    return CM_OK;
}

/* z sends j to i: z's copy is gone (E), i's is P' until the round ends. */
static void apply(clvr_t *c, int32_t z, int32_t i, int32_t j)
{
    int32_t last = c->flist[--c->nf];

    c->flist[c->fpos[z]] = last;        /* z leaves the free list */
    c->fpos[last] = c->fpos[z];
    c->fpos[z] = -1;
    c->busy[c->idx[z] >> 6] |= bit(c->idx[z]);
    hold_clear(c, z, j);
    c->nheld[z]--;
    if (colp(c, i)[j >> 6] & bit(j))
        hold_clear(c, i, j);
    else
        c->nheld[i]++;          /* the sink takes back a sent segment */
    c->pprime[i] = j;
}

/* The sink's segment: the first with a holder other than the sink (nobody
   is busy yet); -1 if none. */
static int32_t sink_segment(const clvr_t *c, int32_t s)
{
    const uint64_t *cs = colp(c, s);

    for (int32_t w = 0; w < c->nwn; w++) {
        uint64_t v = c->two[w] | (c->one[w] & ~cs[w]);

        if (v)
            return w * 64 + __builtin_ctzll(v);
    }
    return -1;
}

/*
 * The same answer when few members are free: word by word, the OR of the
 * free members' columns (i's left out), until a word has a segment that i
 * can take.
 */
static int32_t find_peer_few(clvr_t *c, int32_t i, int32_t base,
                             int32_t *z_p)
{
    const uint64_t *ci = colp(c, i);

    for (int32_t w = 0; w < c->nwn; w++) {
        uint64_t want = ci[w] & c->two[w], a = 0;

        if (!want)
            continue;
        for (int32_t n = 0; n < c->nf; n++)
            if (c->flist[n] != i)
                a |= colp(c, c->flist[n])[w];
        if (want & a) {
            int32_t j = w * 64 + __builtin_ctzll(want & a);

            *z_p = first_holder(c, j, base);
            assert(*z_p >= 0);
            return j;
        }
    }
    return -1;
}

/* Whether row r has a free holder: one pass, four words at a time, no
   branch per word (n is a multiple of 4, the arrays 16-byte aligned). */
static inline int any_free(const uint64_t *r, const uint64_t *busy,
                           int32_t n)
{
    const vec_t *rv = (const vec_t *)r, *bv = (const vec_t *)busy;
    vec_t a = { 0, 0 }, b = { 0, 0 };

    for (int32_t k = 0; k < n / 2; k += 2) {
        a |= rv[k] & ~bv[k];
        b |= rv[k + 1] & ~bv[k + 1];
    }
    a |= b;
    return (a[0] | a[1]) != 0;
}

/* fo = the segments some free member holds, exactly: the OR of their
   columns. */
static void free_or(clvr_t *c)
{
    vec_t *fo = (vec_t *)c->fo;

    memset(c->fo, 0, (size_t)c->nwn * sizeof *c->fo);
    for (int32_t n = 0; n < c->nf; n++) {
        const vec_t *cp = (const vec_t *)colp(c, c->flist[n]);

        for (int32_t k = 0; k < c->nwn / 2; k += 2) {
            fo[k] |= cp[k];
            fo[k + 1] |= cp[k + 1];
        }
    }
    c->spent = 0;
}

/*
 * Receiver i (not the sink): its segment and sender (*z_p), or -1.  The
 * candidates are i's segments held by someone else (cnt >= 2) that may
 * have a free holder (fo).  Each is first tested for a free holder other
 * than i in one pass over its row, and only then is the first such holder
 * looked for.  Late in a round most holders are busy and most tests fail:
 * a failure for a busy i means nobody can send j any more in this round,
 * and j leaves fo; once the failed tests have read CLV_REBUILD times as
 * many words as rebuilding fo from the free members takes, fo is rebuilt
 * (which drops every such j at once).
 */
static int32_t find_peer(clvr_t *c, int32_t i, int i_busy, int32_t base,
                         int32_t *z_p)
{
    const uint64_t *ci = colp(c, i);

    if (c->spent > CLV_REBUILD * (int64_t)c->nf * c->nwn)
        free_or(c);
    for (int32_t w = 0; w < c->nwn; w++) {
        uint64_t v = ci[w] & c->two[w] & c->fo[w];

        while (v) {
            int32_t j = w * 64 + __builtin_ctzll(v);

            if (any_free(rowp(c, j), c->busy, c->nwp)) {
                *z_p = first_holder(c, j, base);
                assert(*z_p >= 0);
                return j;
            }
            c->spent += c->nwp;
            if (i_busy)         /* only busy holders left, for anyone */
                c->fo[w] &= ~bit(j);
            v &= v - 1;
        }
    }
    return -1;
}

/* The positions searched last this round (see the header): members with
   h's f, one round later than h, placed after h. */
static void set_late(clvr_t *c, int32_t h)
{
    if (c->has_late)
        memset(c->late, 0, (size_t)c->nwp * sizeof *c->late);
    c->has_late = 0;
    if (!c->ties)
        return;
    for (int32_t n = 1; n < c->ng; n++) {
        int32_t q = c->g[n];

        if (c->f[q] == c->f[h] && c->k[q] != c->k[h] &&
            c->idx[q] > c->idx[h]) {
            c->late[c->idx[q] >> 6] |= bit(c->idx[q]);
            c->has_late = 1;
        }
    }
}

/*
 * Serves receiver i (the sink when is_sink): finds its segment and sender
 * and records the transfer.  While it is served, i's busy bit is set so
 * that no search returns i itself; its real state is put back after.
 */
static cm_status_t serve(clvr_t *c, rt_sched_t *s, int32_t i, int is_sink,
                         int32_t round, int32_t base, cm_err_t *err)
{
    uint64_t *bw = &c->busy[c->idx[i] >> 6], ib = bit(c->idx[i]);
    uint64_t was = *bw & ib;
    int32_t j, z = -1;

    *bw |= ib;
    if (is_sink) {
        j = sink_segment(c, i);
        if (j >= 0)
            z = first_holder(c, j, base);
    } else {
        j = c->nf <= CLV_FEW ? find_peer_few(c, i, base, &z)
                             : find_peer(c, i, was != 0, base, &z);
    }
    *bw = (*bw & ~ib) | was;
    if (j < 0)
        return CM_OK;
    assert(z >= 0);
    apply(c, z, i, j);
    return record(s, round, z, i, j, err);
}

/* One round on G (at least two members): the sink first, then G in
   (avail, rank) order. */
static cm_status_t round_run(clvr_t *c, rt_sched_t *s, int32_t round,
                             cm_err_t *err)
{
    int32_t h = c->g[0], base = c->idx[h];
    int32_t sink = c->ing[c->root] ? c->root : h;
    cm_status_t st;

    memset(c->busy, 0, (size_t)c->nwp * sizeof *c->busy);
    for (int32_t n = 0; n < c->ng; n++) {
        c->flist[n] = c->g[n];
        c->fpos[c->g[n]] = n;
    }
    c->nf = c->ng;
    memcpy(c->fo, c->one, (size_t)c->nwn * sizeof *c->fo);
    c->spent = 0;
    set_late(c, h);
    st = serve(c, s, sink, 1, round, base, err);
    /* once nobody is free (or only the receiver), nothing more is sent */
    for (int32_t n = 0; n < c->ng && st == CM_OK && c->nf > 0; n++) {
        int32_t i = c->g[n];

        if (i != sink && (c->nf > 1 || c->flist[0] != i))
            st = serve(c, s, i, 0, round, base, err);
    }
    return st;
}

/* ---- Rounds ------------------------------------------------------------- */

/* The next G: the previous one merged with the head of A (clv_tree.c). */
static cm_status_t build_g(clvr_t *c, cm_err_t *err)
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
            join(c, c->aq[a]);
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

/* End of round: P' -> P, leavers out, avail + d. */
static cm_status_t round_end(clvr_t *c, int32_t *nleft, cm_err_t *err)
{
    int32_t keep = 0;

    for (int32_t n = 0; n < c->ng; n++) {
        int32_t p = c->g[n];

        if (c->pprime[p] >= 0) {
            hold_set(c, p, c->pprime[p]);
            c->pprime[p] = -1;
        }
        if (p != c->root && c->nheld[p] == 0) {
            c->ing[p] = 0;
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

static cm_status_t clvr_run(clvr_t *c, rt_sched_t *s, cm_err_t *err)
{
    int32_t nleft = c->np - 1;
    int64_t round = 0;
    cm_status_t st = CM_OK;

    while (nleft > 0 && st == CM_OK) {
        st = build_g(c, err);
        if (st != CM_OK)
            break;
        if (c->ng == 1) {       /* idle rounds (paper 5.1) */
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
        st = round_run(c, s, (int32_t)round, err);
        if (st == CM_OK)
            st = round_end(c, &nleft, err);
        round++;
    }
    return st;
}

/* ---- Steps -------------------------------------------------------------- */

/* ---- Setup -------------------------------------------------------------- */

static void clvr_free(clvr_t *c)
{
    free(c->row);
    free(c->col);
    free(c->cnt);
    free(c->one);
    free(c->two);
    free(c->busy);
    free(c->late);
    free(c->fo);
    free(c->flist);
    free(c->fpos);
    free(c->avail);
    free(c->k);
    free(c->f);
    free(c->idx);
    free(c->ord);
    free(c->nheld);
    free(c->pprime);
    free(c->ing);
    free(c->aq);
    free(c->g);
    free(c->g2);
}

static cm_status_t clvr_alloc(clvr_t *c, cm_err_t *err)
{
    size_t np = (size_t)c->np, nwp = (size_t)c->nwp, nwn = (size_t)c->nwn;
    size_t ns = (size_t)c->nseg;

    c->row = calloc(ns * nwp, sizeof *c->row);
    c->col = malloc(np * nwn * sizeof *c->col);
    c->cnt = calloc(ns, sizeof *c->cnt);
    c->one = calloc(nwn, sizeof *c->one);
    c->two = calloc(nwn, sizeof *c->two);
    c->busy = calloc(nwp, sizeof *c->busy);
    c->late = calloc(nwp, sizeof *c->late);
    c->fo = calloc(nwn, sizeof *c->fo);
    c->flist = malloc(np * sizeof *c->flist);
    c->fpos = malloc(np * sizeof *c->fpos);
    c->avail = malloc(np * sizeof *c->avail);
    c->k = malloc(np * sizeof *c->k);
    c->f = malloc(np * sizeof *c->f);
    c->idx = malloc(np * sizeof *c->idx);
    c->ord = malloc(np * sizeof *c->ord);
    c->nheld = malloc(np * sizeof *c->nheld);
    c->pprime = malloc(np * sizeof *c->pprime);
    c->ing = calloc(np, 1);
    c->aq = malloc(np * sizeof *c->aq);
    c->g = malloc(np * sizeof *c->g);
    c->g2 = malloc(np * sizeof *c->g2);
    if (!c->row || !c->col || !c->cnt || !c->one || !c->two || !c->busy ||
        !c->late || !c->fo || !c->flist || !c->fpos || !c->avail || !c->k ||
        !c->f || !c->idx ||
        !c->ord || !c->nheld || !c->pprime || !c->ing || !c->aq || !c->g ||
        !c->g2)
        return CM_ERR(err, CM_ERR_NOMEM, NAME ": out of memory (%d ranks, "
                      "%d segments)", c->np, c->nseg);
    return CM_OK;
}

static inline int key_before(const rt_time_rank_t *a,
                             const rt_time_rank_t *b)
{
    return a->t < b->t || (a->t == b->t && a->rank < b->rank);
}

/*
 * Sorts k[0..n) by (t, rank), tmp[0..n) as scratch: runs of 16 by
 * insertion, then merged bottom-up.  The same order as qsort with
 * rt_time_rank_cmp (ranks are distinct), without a call per comparison:
 * at P = 512 and one segment qsort was a third of the generation.
 */
static void sort_keys(rt_time_rank_t *k, rt_time_rank_t *tmp, int32_t n)
{
    rt_time_rank_t *src = k, *dst = tmp;

    for (int32_t a = 0; a < n; a += 16) {
        int32_t e = a + 16 < n ? a + 16 : n;

        for (int32_t i = a + 1; i < e; i++) {
            rt_time_rank_t x = k[i];
            int32_t j = i;

            for (; j > a && key_before(&x, &k[j - 1]); j--)
                k[j] = k[j - 1];
            k[j] = x;
        }
    }
    for (int32_t w = 16; w < n; w *= 2) {
        for (int32_t a = 0; a < n; a += 2 * w) {
            int32_t m = a + w < n ? a + w : n;
            int32_t e = a + 2 * w < n ? a + 2 * w : n, i = a, j = m, o = a;

            while (i < m && j < e)
                dst[o++] = key_before(&src[j], &src[i]) ? src[j++] : src[i++];
            while (i < m)
                dst[o++] = src[i++];
            while (j < e)
                dst[o++] = src[j++];
        }
        rt_time_rank_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != k)
        memcpy(k, src, (size_t)n * sizeof *k);
}

/* Columns all ones, rows empty (nobody in G yet), the two orders. */
static cm_status_t clvr_init(clvr_t *c, const int64_t *arrival,
                             cm_err_t *err)
{
    rt_time_rank_t *keys = malloc(2 * (size_t)c->np * sizeof *keys);

    if (!keys)
        return CM_ERR(err, CM_ERR_NOMEM, NAME ": out of memory (%d ranks)",
                      c->np);
    for (int32_t p = 0; p < c->np; p++) {
        uint64_t *cp = colp(c, p);
        int64_t a = arrival ? arrival[p] : 0;

        for (int32_t w = 0; w < c->nwn; w++) {
            int32_t left = c->nseg - 64 * w;

            cp[w] = left >= 64 ? ~(uint64_t)0
                  : left > 0 ? ((uint64_t)1 << left) - 1 : 0;
        }
        c->nheld[p] = c->nseg;
        c->avail[p] = a;
        c->k[p] = a / c->d;
        c->f[p] = a % c->d;
        c->pprime[p] = -1;
        c->fpos[p] = -1;
        keys[p].t = c->f[p];
        keys[p].rank = p;
    }
    sort_keys(keys, keys + c->np, c->np);
    for (int32_t n = 0; n < c->np; n++) {
        c->ord[n] = keys[n].rank;
        c->idx[keys[n].rank] = n;
        if (n > 0 && keys[n].t == keys[n - 1].t)
            c->ties = 1;
    }
    for (int32_t p = 0; p < c->np; p++) {
        keys[p].t = c->avail[p];
        keys[p].rank = p;
    }
    sort_keys(keys, keys + c->np, c->np);
    for (int32_t n = 0; n < c->np; n++)
        c->aq[n] = keys[n].rank;
    c->na = c->np;
    free(keys);
    return CM_OK;
}

cm_status_t rt_algo_clv(rt_sched_t *s, const rt_algo_params_t *p,
                        int32_t rank, cm_err_t *err)
{
    clvr_t c;
    cm_status_t st;

    memset(&c, 0, sizeof c);
    st = rt__clv_begin(s, p, rank, NAME, &c.nseg, err);
    if (st != CM_OK)
        return st;
    /* rt__clv_begin reserved the 2(P-1)N steps every schedule has; the
       sink's taking back segments it sent adds a few tenths of a percent
       (P = N = 512: 0.2-0.4 %), and a doubling of 8 MB of steps for them
       would cost more than the rest of the schedule's recording. */
    if (rank < 0 &&
        rt_sched_reserve(s, 2 * (size_t)(p->nranks - 1) * (size_t)c.nseg *
                                65 / 64 + 1024) != CM_OK)
        return CM_ERR(err, CM_ERR_NOMEM, NAME ": out of memory");
    c.np = p->nranks;
    c.root = p->root;
    c.d = p->round_len;
    c.nwp = (c.np + 255) / 256 * 4;     /* 4 words: two 16-byte vectors */
    c.nwn = (c.nseg + 255) / 256 * 4;
    st = clvr_alloc(&c, err);
    if (st == CM_OK)
        st = clvr_init(&c, p->arrival, err);
    if (st == CM_OK)
        st = clvr_run(&c, s, err);
    clvr_free(&c);
    return st == CM_OK ? rt_sched_finish(s, err) : st;
}
