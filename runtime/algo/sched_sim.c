/*
 * sched_sim.c - a schedule under the linear cost model (rt_sched_simulate).
 *
 * Model (rt_sched.h; Tanaka 2017 section 2, Bienz et al. eq. 1, Proficz
 * 2018 section 3 for the elapsed times):
 *
 *  - rank r arrives at arrival[r];
 *  - its steps form groups, one per round it takes part in (all its steps of
 *    that round, posted together as a sendrecv would post them);
 *  - a group starts when the rank's previous group ended, the first at its
 *    arrival;
 *  - each transfer of a group starts when both ends have started the group
 *    that holds it (rendezvous), and takes alpha + beta*m for m bytes; the
 *    receiver of a RT_ACT_REDUCE transfer is busy gamma*m longer.  Transfers
 *    of one group run concurrently (ports are the verifier's business);
 *  - a group ends when its last transfer (and reduction) ends, and the rank
 *    finishes when its last group ends (at its arrival if it has no steps).
 *
 * An empty piece range still costs alpha: the schedule says a message is
 * sent, and an executor that followed it would send an empty one.
 *
 * Why rounds, processed globally in increasing order: the two ends of a
 * transfer are in the same round, so once every group of rounds < k is done
 * the start of every group of round k is known, and its transfers can be
 * timed in any order.  The same order makes matching local: the k-th send
 * s->d pairs with the k-th receive at d from s (rt_sched.h), both sides must
 * agree on the round, so the pairs of a round are the j-th send s->d of s's
 * group with the j-th receive from s of d's group.  If every round pairs up
 * exactly, that is the global k-th/k-th matching; the first round where a
 * channel does not pair up is where the global matching would pair steps of
 * different rounds, which is an error either way.  This costs O(steps),
 * unlike a sort of all channels (rt__sched_match), which matters for the
 * ring at P = 4096 (67 M steps).
 *
 * Memory order.  Steps are stored rank by rank, and a round wants one group
 * of every rank: reading them in place touches a different page per rank
 * per round (the ring at P = 4096 took 4.5 s that way, nearly all of it TLB
 * and cache misses).  So the rounds are taken in windows of about
 * WINDOW_STEPS steps (1 MB, cache-sized: measured best among 2^12..2^20):
 * each rank's steps of the window (contiguous) are counted and checked,
 * then copied round-major into a staging buffer with a (rank, length,
 * receives) record per group, and the window's rounds are simulated from
 * there, where a round's groups are contiguous.  The ring at P = 4096 now
 * costs about 0.6 s of staging and 0.4 s of simulation (CPU time).
 *
 * Sparse rounds.  Rounds are numbered by buckets: the round itself when
 * rounds are dense (nrounds within a few times the number of steps), else
 * (Clairvoyant's idle-round skipping gives sparse, huge round numbers) the
 * index of the round among the distinct rounds, sorted once and found by
 * binary search: memory stays O(steps + P), never O(max round).
 *
 * Large groups (more than SMALL_GROUP steps: a flat gather's root, say) get
 * a sorted copy of their (direction, peer, position) keys so that finding a
 * partner is a binary search instead of a scan, keeping the worst case
 * O(steps log steps) instead of quadratic.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/algo/algo_int.h"
#include "runtime/algo/sched_int.h"

#define SMALL_GROUP  8
#define WINDOW_STEPS ((size_t)1 << 16)

/* A rank's state: its current group (or its last one, between groups). */
typedef struct sim_rank {
    double  start;    /* when the current group started */
    double  end;      /* when it ends (so far); the arrival before any group */
    size_t  first;    /* staging index of the group's first step */
    size_t  sorted;   /* pool offset of the group's sorted keys, or SIZE_MAX */
    int64_t bucket;   /* bucket of the group, -1 before the first */
    int32_t len;      /* steps in the group */
    int32_t matched;  /* receives of the group matched so far */
} sim_rank_t;

typedef struct group_rec {
    int32_t rank;
    int32_t len;
    int32_t nrecv;
} group_rec_t;

typedef struct sim {
    const rt_sched_t *s;
    const rt_cost_t  *c;
    sim_rank_t       *rk;
    size_t           *cur;      /* per rank: its first step not yet staged */
    size_t           *wend;     /* per rank: end of its steps in the window */
    int32_t          *sendcnt;  /* per peer: sends of a large group so far */
    int32_t          *rounds;   /* sparse: the distinct rounds, sorted */
    size_t            nbuckets;
    /* The staged window [b0, b1): bucket b0+w has steps stage[sstart[w] ..
       sstart[w+1]) and groups grec[gstart[w] .. gstart[w+1]). */
    size_t            b0;
    size_t           *sstart, *gstart;
    size_t            capss, capgs;
    rt_step_t        *stage;
    group_rec_t      *grec;
    size_t            capstage, capgrec;
    uint64_t         *pool;     /* sorted keys of the large groups of a bucket */
    size_t            npool, cappool;
} sim_t;

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

    return (x > y) - (x < y);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return (x > y) - (x < y);
}

/* Grows *p to hold n elements of size sz; 0 or -1. */
static int reserve(void **p, size_t *cap, size_t n, size_t sz)
{
    void *q;

    if (n <= *cap)
        return 0;
    n = n < 2 * *cap ? 2 * *cap : n;
    q = realloc(*p, n * sz);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

/* Bucket of a round: the round itself, or its index among the distinct ones. */
static size_t bucket_of(const sim_t *m, int32_t round)
{
    size_t lo = 0, hi = m->nbuckets;

    if (!m->rounds)
        return (size_t)round;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (m->rounds[mid] < round)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static cm_status_t bad_round(const rt_sched_t *s, size_t i, cm_err_t *err)
{
    if (s->steps[i].round == RT_ROUND_UNSET)
        return CM_ERR(err, CM_ERR_INVALID, "%s: rank %d: rounds not assigned "
                      "(rt_sched_asap)", s->algo, rt__sched_rank_of(s, i));
    return CM_ERR(err, CM_ERR_INVALID, "%s: rank %d: round %d is not in 0..%d",
                  s->algo, rt__sched_rank_of(s, i), s->steps[i].round,
                  s->nrounds - 1);
}

static int32_t round_of(const sim_t *m, size_t bucket)
{
    return m->rounds ? m->rounds[bucket] : (int32_t)bucket;
}

/*
 * The buckets: one per round when rounds are dense, else one per distinct
 * round (collected in one pass, which also rejects negative rounds: the
 * dense path finds those, and rounds >= nrounds, as steps left unstaged).
 */
static cm_status_t make_buckets(sim_t *m, cm_err_t *err)
{
    const rt_sched_t *s = m->s;
    size_t n = 0;

    if ((size_t)s->nrounds <= 2 * s->nsteps + 1024) {
        m->nbuckets = (size_t)s->nrounds;
        return CM_OK;
    }
    m->rounds = malloc(s->nsteps * sizeof *m->rounds);
    if (!m->rounds)
        return CM_ERR(err, CM_ERR_NOMEM, "%s: out of memory", s->algo);
    for (size_t i = 0; i < s->nsteps; i++) {
        if (s->steps[i].round < 0 || s->steps[i].round >= s->nrounds)
            return bad_round(s, i, err);
        m->rounds[i] = s->steps[i].round;
    }
    qsort(m->rounds, s->nsteps, sizeof *m->rounds, cmp_i32);
    for (size_t i = 0; i < s->nsteps; i++)
        if (i == 0 || m->rounds[i] != m->rounds[n - 1])
            m->rounds[n++] = m->rounds[i];
    m->nbuckets = n;
    return CM_OK;
}

/* Reports the first bad step of rank r's group steps[i, j), if any: a
   malformed step, or a round smaller than `prev` (the round before). */
static cm_status_t bad_group(const rt_sched_t *s, int32_t r, size_t i,
                             size_t j, int32_t prev, cm_err_t *err)
{
    for (; i < j; i++) {
        const rt_step_t *t = &s->steps[i];

        if (t->round < prev)
            return CM_ERR(err, CM_ERR_INVALID,
                          "%s: rank %d's rounds decrease (%d after %d)",
                          s->algo, r, t->round, prev);
        if (t->peer < 0 || t->peer >= s->nranks || t->peer == r ||
            t->npieces < 1 || t->piece < 0 ||
            (int64_t)t->piece + t->npieces > s->npieces)
            return CM_ERR(err, CM_ERR_INVALID,
                          "%s: rank %d, round %d: malformed step (peer %d, "
                          "pieces %d+%d)", s->algo, r, t->round, t->peer,
                          t->piece, (int)t->npieces);
    }
    return CM_ERR(err, CM_ERR_INVALID, "%s: rank %d: bad step", s->algo, r);
}

/*
 * Counts the steps and groups of each bucket of the window [b0, b1) into
 * sstart/gstart[b - b0 + 1], checking every step and that each rank's
 * rounds never decrease; wend[r] is where rank r's window ends.
 */
static cm_status_t count_window(sim_t *m, size_t b0, size_t b1, cm_err_t *err)
{
    const rt_sched_t *s = m->s;
    const rt_step_t *steps = s->steps;

    for (int32_t r = 0; r < s->nranks; r++) {
        size_t i = m->cur[r], e = s->step_start[r + 1];
        int32_t prev = i > s->step_start[r] ? steps[i - 1].round : INT32_MIN;

        while (i < e) {
            int32_t k = steps[i].round;
            size_t b = bucket_of(m, k), j = i;
            int bad = k < prev;

            if (b >= b1 && !bad)
                break;
            /* One test per group: the error path finds the culprit. */
            do {
                const rt_step_t *t = &steps[j];

                bad |= (uint32_t)t->peer >= (uint32_t)s->nranks;
                bad |= t->peer == r;
                bad |= t->piece < 0;
                bad |= (int64_t)t->piece + t->npieces > s->npieces;
                bad |= t->npieces < 1;
            } while (++j < e && steps[j].round == k);
            if (bad)
                return bad_group(s, r, i, j, prev, err);
            if (j - i > INT32_MAX)
                return CM_ERR(err, CM_ERR_UNSUPPORTED,
                              "%s: rank %d has more than 2^31 steps in round "
                              "%d", s->algo, r, k);
            m->sstart[b - b0 + 1] += j - i;
            m->gstart[b - b0 + 1]++;
            prev = k;
            i = j;
        }
        m->wend[r] = i;
    }
    return CM_OK;
}

/* Stages the window [b0, b1): counted, then copied round-major into stage
   and grec. */
static cm_status_t stage_window(sim_t *m, size_t b0, size_t b1, cm_err_t *err)
{
    const rt_sched_t *s = m->s;
    const rt_step_t *steps = s->steps;
    size_t w = b1 - b0;
    cm_status_t st;

    if (reserve((void **)&m->sstart, &m->capss, w + 1, sizeof *m->sstart) ||
        reserve((void **)&m->gstart, &m->capgs, w + 1, sizeof *m->gstart))
        return CM_ERR(err, CM_ERR_NOMEM, "%s: out of memory", s->algo);
    memset(m->sstart, 0, (w + 1) * sizeof *m->sstart);
    memset(m->gstart, 0, (w + 1) * sizeof *m->gstart);
    m->b0 = b0;
    if ((st = count_window(m, b0, b1, err)) != CM_OK)
        return st;
    for (size_t b = 0; b < w; b++) {
        m->sstart[b + 1] += m->sstart[b];
        m->gstart[b + 1] += m->gstart[b];
    }
    if (reserve((void **)&m->stage, &m->capstage, m->sstart[w], sizeof *m->stage) ||
        reserve((void **)&m->grec, &m->capgrec, m->gstart[w], sizeof *m->grec))
        return CM_ERR(err, CM_ERR_NOMEM, "%s: out of memory", s->algo);
    /* Scatter: sstart/gstart[b] advance to the start of bucket b+1, and are
       shifted back afterwards. */
    for (int32_t r = 0; r < s->nranks; r++) {
        size_t i = m->cur[r], e = m->wend[r];

        while (i < e) {
            int32_t k = steps[i].round, nrecv = 0;
            size_t b = bucket_of(m, k) - b0, j = i;
            rt_step_t *out = m->stage + m->sstart[b];

            for (; j < e && steps[j].round == k; j++) {
                *out++ = steps[j];
                nrecv += steps[j].dir == RT_STEP_RECV;
            }
            m->sstart[b] += j - i;
            m->grec[m->gstart[b]++] = (group_rec_t){ r, (int32_t)(j - i), nrecv };
            i = j;
        }
        m->cur[r] = e;
    }
    memmove(m->sstart + 1, m->sstart, w * sizeof *m->sstart);
    memmove(m->gstart + 1, m->gstart, w * sizeof *m->gstart);
    m->sstart[0] = 0;
    m->gstart[0] = 0;
    return CM_OK;
}

/* Key of a step inside its group: receives after sends, then by peer and
   position, so that "the j-th receive from s" is a contiguous run. */
static uint64_t group_key(int dir, int32_t peer, size_t pos)
{
    return ((uint64_t)dir << 63) | ((uint64_t)(uint32_t)peer << 32) |
           (uint64_t)pos;
}

/* Sorts a large group's keys into the pool (for find_recv). */
static cm_status_t sort_group(sim_t *m, sim_rank_t *g, cm_err_t *err)
{
    if (reserve((void **)&m->pool, &m->cappool, m->npool + (size_t)g->len,
                sizeof *m->pool))
        return CM_ERR(err, CM_ERR_NOMEM, "%s: out of memory", m->s->algo);
    g->sorted = m->npool;
    for (int32_t j = 0; j < g->len; j++) {
        const rt_step_t *t = &m->stage[g->first + (size_t)j];

        m->pool[m->npool + (size_t)j] = group_key(t->dir, t->peer, (size_t)j);
    }
    qsort(m->pool + m->npool, (size_t)g->len, sizeof *m->pool, cmp_u64);
    m->npool += (size_t)g->len;
    return CM_OK;
}

/* The j-th receive from `src` in d's current group (staging index), or
   SIZE_MAX. */
static size_t find_recv(const sim_t *m, const sim_rank_t *d, int32_t src,
                        int32_t j)
{
    const rt_step_t *st = m->stage;

    if (d->sorted == SIZE_MAX) {
        for (size_t i = d->first; i < d->first + (size_t)d->len; i++)
            if (st[i].peer == src && st[i].dir == RT_STEP_RECV && j-- == 0)
                return i;
        return SIZE_MAX;
    } else {
        const uint64_t *keys = m->pool + d->sorted;
        uint64_t want = group_key(RT_STEP_RECV, src, 0);
        size_t lo = 0, hi = (size_t)d->len;

        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;

            if (keys[mid] < want)
                lo = mid + 1;
            else
                hi = mid;
        }
        lo += (size_t)j;
        if (lo < (size_t)d->len && (keys[lo] >> 32) == (want >> 32))
            return d->first + (keys[lo] & 0xffffffffu);
        return SIZE_MAX;
    }
}

/* Which send to `peer` step i of g is (0 for the first): a scan of the
   group before it when small, a per-peer counter when large. */
static int32_t send_ordinal(sim_t *m, const sim_rank_t *g, size_t i,
                            int32_t peer)
{
    int32_t j = 0;

    if (g->sorted != SIZE_MAX)
        return m->sendcnt[peer]++;
    for (size_t h = g->first; h < i; h++)
        j += m->stage[h].peer == peer && m->stage[h].dir == RT_STEP_SEND;
    return j;
}

/* Pass 2 for rank r: times each of its sends with the matching receive. */
static cm_status_t time_sends(sim_t *m, int32_t r, size_t b, cm_err_t *err)
{
    const rt_sched_t *s = m->s;
    const rt_cost_t *c = m->c;
    sim_rank_t *g = &m->rk[r];
    cm_status_t st = CM_OK;

    for (size_t i = g->first; i < g->first + (size_t)g->len; i++) {
        const rt_step_t *t = &m->stage[i], *u;
        sim_rank_t *d;
        size_t ri = SIZE_MAX;
        double bytes, t0, t1;

        if (t->dir != RT_STEP_SEND)
            continue;
        d = &m->rk[t->peer];
        if (d->bucket == (int64_t)b)
            ri = find_recv(m, d, r, send_ordinal(m, g, i, t->peer));
        if (ri == SIZE_MAX) {
            st = CM_ERR(err, CM_ERR_INVALID,
                        "%s: rank %d sends to rank %d in round %d, which does "
                        "not receive it in that round", s->algo, r, t->peer,
                        round_of(m, b));
            break;
        }
        u = &m->stage[ri];
        if (u->piece != t->piece || u->npieces != t->npieces || u->act != t->act) {
            st = CM_ERR(err, CM_ERR_INVALID,
                        "%s: round %d, rank %d -> %d: the send moves pieces "
                        "%d+%d (%s), the receive %d+%d (%s)", s->algo,
                        round_of(m, b), r, t->peer, t->piece, (int)t->npieces,
                        t->act == RT_ACT_REDUCE ? "reduce" : "copy", u->piece,
                        (int)u->npieces, u->act == RT_ACT_REDUCE ? "reduce" : "copy");
            break;
        }
        bytes = (double)(s->piece_off[t->piece + t->npieces] -
                         s->piece_off[t->piece]) * c->elem_bytes;
        t0 = g->start > d->start ? g->start : d->start;
        t1 = t0 + c->alpha + c->beta * bytes;
        if (t1 > g->end)
            g->end = t1;
        if (t->act == RT_ACT_REDUCE)
            t1 += c->gamma * bytes;
        if (t1 > d->end)
            d->end = t1;
        d->matched++;
    }
    if (g->sorted != SIZE_MAX)      /* reset the counters send_ordinal used */
        for (size_t i = g->first; i < g->first + (size_t)g->len; i++)
            m->sendcnt[m->stage[i].peer] = 0;
    return st;
}

/*
 * Simulates bucket b of the staged window: every group starts when its
 * rank's previous one ended (end), then every send is timed.  Each matched
 * send marks a distinct receive, so equal totals mean every receive was
 * matched; otherwise the rank that is short is found and reported.
 */
static cm_status_t run_bucket(sim_t *m, size_t b, cm_err_t *err)
{
    size_t w = b - m->b0, g0 = m->gstart[w], g1 = m->gstart[w + 1];
    size_t off = m->sstart[w], nrecv = 0, nsend = 0;
    cm_status_t st;

    m->npool = 0;
    for (size_t gi = g0; gi < g1; gi++) {
        const group_rec_t *q = &m->grec[gi];
        sim_rank_t *g = &m->rk[q->rank];

        g->start = g->end;
        g->first = off;
        g->len = q->len;
        g->bucket = (int64_t)b;
        g->matched = 0;
        g->sorted = SIZE_MAX;
        off += (size_t)q->len;
        nrecv += (size_t)q->nrecv;
        nsend += (size_t)(q->len - q->nrecv);
        if (q->len > SMALL_GROUP && (st = sort_group(m, g, err)) != CM_OK)
            return st;
    }
    for (size_t gi = g0; gi < g1; gi++)
        if ((st = time_sends(m, m->grec[gi].rank, b, err)) != CM_OK)
            return st;
    if (nsend == nrecv)
        return CM_OK;
    for (size_t gi = g0; gi < g1; gi++) {
        const group_rec_t *q = &m->grec[gi];

        if (m->rk[q->rank].matched != q->nrecv)
            return CM_ERR(err, CM_ERR_INVALID,
                          "%s: rank %d has %d receive(s) in round %d but "
                          "only %d matching send(s) in that round",
                          m->s->algo, q->rank, q->nrecv, round_of(m, b),
                          m->rk[q->rank].matched);
    }
    return CM_ERR(err, CM_ERR_INVALID, "%s: round %d: sends and receives do "
                  "not pair up", m->s->algo, round_of(m, b));
}

/* Runs the buckets in order, a window at a time.  On return every rank's
   `end` is its finish time. */
static cm_status_t run(sim_t *m, cm_err_t *err)
{
    const rt_sched_t *s = m->s;
    size_t per = m->nbuckets ? (s->nsteps + m->nbuckets - 1) / m->nbuckets : 1;
    size_t width = per ? WINDOW_STEPS / per : m->nbuckets;
    cm_status_t st;

    if (width < 1)
        width = 1;
    for (size_t b0 = 0; b0 < m->nbuckets; b0 += width) {
        size_t b1 = m->nbuckets - b0 < width ? m->nbuckets : b0 + width;

        if ((st = stage_window(m, b0, b1, err)) != CM_OK)
            return st;
        for (size_t b = b0; b < b1; b++)
            if ((st = run_bucket(m, b, err)) != CM_OK)
                return st;
    }
    /* A step never staged has a round outside 0..nrounds-1. */
    for (int32_t r = 0; r < s->nranks; r++)
        if (m->cur[r] < s->step_start[r + 1])
            return bad_round(s, m->cur[r], err);
    return CM_OK;
}

static cm_status_t check_inputs(const rt_sched_t *s, const rt_cost_t *c,
                                const double *arrival, cm_err_t *err)
{
    const char *algo = s->algo ? s->algo : "schedule";

    if (s->only_rank != -1)
        return CM_ERR(err, CM_ERR_INVALID,
                      "%s: the simulator needs every rank's steps (this "
                      "schedule holds rank %d's only)", algo, s->only_rank);
    if (s->nranks < 1 || !s->step_start || s->nrounds < 0 ||
        (s->nsteps > 0 && (!s->steps || !s->piece_off)))
        return CM_ERR(err, CM_ERR_INVALID, "%s: not a finished schedule", algo);
    if (!c || !isfinite(c->alpha) || !isfinite(c->beta) ||
        !isfinite(c->gamma) || !isfinite(c->elem_bytes) || c->alpha < 0 ||
        c->beta < 0 || c->gamma < 0 || c->elem_bytes <= 0)
        return CM_ERR(err, CM_ERR_INVALID,
                      "%s: the cost model needs finite alpha, beta, gamma >= 0 "
                      "and elem_bytes > 0", algo);
    if (arrival)
        for (int32_t r = 0; r < s->nranks; r++)
            if (!isfinite(arrival[r]))
                return CM_ERR(err, CM_ERR_INVALID,
                              "%s: arrival time of rank %d is not finite",
                              algo, r);
    return CM_OK;
}

cm_status_t rt_sched_simulate(const rt_sched_t *s, const rt_cost_t *cost,
                              const double *arrival_s, rt_sim_result_t *res,
                              cm_err_t *err)
{
    sim_t m = { .s = s, .c = cost };
    cm_status_t st;
    double *finish = NULL;

    memset(res, 0, sizeof *res);
    if ((st = check_inputs(s, cost, arrival_s, err)) != CM_OK)
        return st;
    m.rk = calloc((size_t)s->nranks, sizeof *m.rk);
    m.cur = malloc((size_t)s->nranks * sizeof *m.cur);
    m.wend = malloc((size_t)s->nranks * sizeof *m.wend);
    m.sendcnt = calloc((size_t)s->nranks, sizeof *m.sendcnt);
    finish = malloc((size_t)s->nranks * sizeof *finish);
    if (!m.rk || !m.cur || !m.wend || !m.sendcnt || !finish) {
        st = CM_ERR(err, CM_ERR_NOMEM, "%s: out of memory", s->algo);
        goto out;
    }
    for (int32_t r = 0; r < s->nranks; r++) {
        m.cur[r] = s->step_start[r];
        m.rk[r].end = arrival_s ? arrival_s[r] : 0.0;
        m.rk[r].bucket = -1;
    }
    if ((st = make_buckets(&m, err)) != CM_OK || (st = run(&m, err)) != CM_OK)
        goto out;
    {
        double sum = 0, max = -INFINITY, last = -INFINITY, first = INFINITY;

        for (int32_t r = 0; r < s->nranks; r++) {
            double a = arrival_s ? arrival_s[r] : 0.0, e = m.rk[r].end - a;

            finish[r] = m.rk[r].end;
            sum += e;
            max = e > max ? e : max;
            last = finish[r] > last ? finish[r] : last;
            first = a < first ? a : first;
        }
        res->finish = finish;
        finish = NULL;
        res->avg_elapsed = sum / s->nranks;
        res->max_elapsed = max;
        res->completion = last - first;
    }
out:
    free(finish);
    free(m.rk);
    free(m.cur);
    free(m.wend);
    free(m.sendcnt);
    free(m.rounds);
    free(m.sstart);
    free(m.gstart);
    free(m.stage);
    free(m.grec);
    free(m.pool);
    return st;
}

void rt_sim_result_free(rt_sim_result_t *res)
{
    free(res->finish);
    memset(res, 0, sizeof *res);
}
