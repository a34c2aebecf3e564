/*
 * sched.c - building a schedule: header, partition, steps, grouping by rank.
 *
 * Generators append steps (rt_sched_step / rt_sched_xfer) in any rank order;
 * rt_sched_finish groups them by rank with one stable counting sort (none
 * when they already came rank by rank, which is how the per-rank generators
 * append for P in the thousands) and checks each rank's rounds.  Matching of
 * sends with receives (rt__sched_match) is shared by the verifier, the ASAP
 * scheduler and the simulator.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/algo/algo_int.h"
#include "runtime/algo/sched_int.h"

void rt_sched_init(rt_sched_t *s)
{
    memset(s, 0, sizeof *s);
    s->only_rank = -1;
}

void rt_sched_free(rt_sched_t *s)
{
    free(s->piece_off);
    free(s->step_start);
    free(s->steps);
    free(s->step_rank_);
    rt_sched_init(s);
}

int32_t rt_pof2_floor(int32_t n)
{
    int32_t p = 1;

    while (p <= n / 2)
        p *= 2;
    return p;
}

void rt_part_el(int64_t count, int32_t k, int64_t *off)
{
    int64_t q = count / k, r = count % k;

    for (int32_t b = 0; b <= k; b++)
        off[b] = b * q + (b < r ? b : r);
}

int32_t rt_part_fixed(int64_t count, int64_t seg, int64_t *off)
{
    int64_t n = count <= 0 ? 1 : (count + seg - 1) / seg;

    if (n > INT32_MAX - 1)
        return -1;
    if (off) {
        for (int64_t j = 0; j < n; j++)
            off[j] = j * seg < count ? j * seg : count;
        off[n] = count;
    }
    return (int32_t)n;
}

#define RT_NSEGS_MAX (1 << 24)

int32_t rt_part_segments(const rt_algo_params_t *p, int64_t **off,
                         cm_err_t *err)
{
    int32_t n;

    *off = NULL;
    if (p->nsegs < 0 || p->segcount < 0)
        return CM_ERR(err, CM_ERR_INVALID,
                      "segment count and size must not be negative");
    if (p->nsegs > 0 && p->segcount > 0)
        return CM_ERR(err, CM_ERR_INVALID,
                      "give a segment count or a segment size, not both");
    if (p->segcount > 0) {
        n = rt_part_fixed(p->count, p->segcount, NULL);
        if (n < 0 || n > RT_NSEGS_MAX)
            return CM_ERR(err, CM_ERR_RANGE,
                          "%lld elements in segments of %lld: more than %d "
                          "segments", (long long)p->count,
                          (long long)p->segcount, RT_NSEGS_MAX);
    } else {
        n = p->nsegs > 0 ? p->nsegs : 1;
        if (n > RT_NSEGS_MAX)
            return CM_ERR(err, CM_ERR_RANGE, "more than %d segments",
                          RT_NSEGS_MAX);
    }
    *off = malloc(((size_t)n + 1) * sizeof **off);
    if (!*off)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory (%d segments)", n);
    if (p->segcount > 0)
        rt_part_fixed(p->count, p->segcount, *off);
    else
        rt_part_el(p->count, n, *off);
    return n;
}

int rt_time_rank_cmp(const void *a, const void *b)
{
    const rt_time_rank_t *x = a, *y = b;

    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

cm_status_t rt_algo_check_common(const rt_algo_params_t *p, int32_t rank,
                                 const char *algo, cm_err_t *err)
{
    if (p->nranks < 1 || p->nranks > RT_SCHED_RANKS_MAX)
        return CM_ERR(err, CM_ERR_INVALID, "%s: nranks %d is not in 1..%d",
                      algo, p->nranks, RT_SCHED_RANKS_MAX);
    if (p->count < 0)
        return CM_ERR(err, CM_ERR_INVALID, "%s: negative count %lld", algo,
                      (long long)p->count);
    if (p->root < 0 || p->root >= p->nranks)
        return CM_ERR(err, CM_ERR_INVALID, "%s: root %d is not a rank of %d",
                      algo, p->root, p->nranks);
    if (rank < -1 || rank >= p->nranks)
        return CM_ERR(err, CM_ERR_INVALID, "%s: rank %d is not a rank of %d",
                      algo, rank, p->nranks);
    if (p->nsegs > 0 && p->segcount > 0)
        return CM_ERR(err, CM_ERR_INVALID,
                      "%s: give a segment count or a segment size, not both",
                      algo);
    if (p->nsegs < 0 || p->segcount < 0)
        return CM_ERR(err, CM_ERR_INVALID,
                      "%s: segment count and size must not be negative", algo);
    if (p->round_len < 0)
        return CM_ERR(err, CM_ERR_INVALID, "%s: negative round length", algo);
    if (p->arrival)
        for (int32_t r = 0; r < p->nranks; r++)
            if (p->arrival[r] < 0)
                return CM_ERR(err, CM_ERR_INVALID,
                              "%s: arrival time of rank %d is negative", algo,
                              r);
    return CM_OK;
}

cm_status_t rt_sched_begin(rt_sched_t *s, const char *algo, rt_coll_t coll,
                           rt_port_t port, const rt_algo_params_t *p,
                           int32_t only_rank, int32_t npieces,
                           const int64_t *piece_off, cm_err_t *err)
{
    if (npieces < 1 || piece_off[0] != 0 || piece_off[npieces] != p->count)
        return CM_ERR(err, CM_ERR_INVALID,
                      "%s: the partition must run from 0 to count", algo);
    for (int32_t i = 0; i < npieces; i++)
        if (piece_off[i + 1] < piece_off[i])
            return CM_ERR(err, CM_ERR_INVALID,
                          "%s: partition offsets decrease at piece %d", algo,
                          i);
    free(s->piece_off);
    s->piece_off = malloc(((size_t)npieces + 1) * sizeof *s->piece_off);
    if (!s->piece_off)
        return CM_ERR(err, CM_ERR_NOMEM, "%s: out of memory", algo);
    memcpy(s->piece_off, piece_off, ((size_t)npieces + 1) * sizeof *piece_off);
    s->algo = algo;
    s->coll = coll;
    s->port = port;
    s->nranks = p->nranks;
    s->root = coll == RT_COLL_ALLREDUCE ? 0 : p->root;
    s->only_rank = only_rank;
    s->count = p->count;
    s->npieces = npieces;
    s->nsteps = 0;
    s->sorted_ = 1;
    s->last_rank_ = 0;
    free(s->step_start);
    s->step_start = calloc((size_t)p->nranks + 1, sizeof *s->step_start);
    if (!s->step_start)
        return CM_ERR(err, CM_ERR_NOMEM, "%s: out of memory", algo);
    return CM_OK;
}

static cm_status_t sched_grow(rt_sched_t *s)
{
    size_t cap = s->cap_ ? s->cap_ * 2 : 1024;
    rt_step_t *steps = realloc(s->steps, cap * sizeof *steps);

    if (!steps)
        return CM_ERR_NOMEM;
    s->steps = steps;
    if (!s->sorted_) {
        int32_t *ranks = realloc(s->step_rank_, cap * sizeof *ranks);

        if (!ranks)
            return CM_ERR_NOMEM;
        s->step_rank_ = ranks;
    }
    s->cap_ = cap;
    return CM_OK;
}

/* Generators that know their size reserve it at once: the ring at
   P = 4096 is 1 GiB of steps, which doubling would copy twice over.
   (Transparent huge pages were tried here: on this VM they did not make
   the first touch of fresh memory reliably faster.) */
cm_status_t rt_sched_reserve(rt_sched_t *s, size_t nsteps)
{
    size_t cap = s->nsteps + nsteps;
    rt_step_t *steps;

    if (cap <= s->cap_)
        return CM_OK;
    steps = realloc(s->steps, cap * sizeof *steps);
    if (!steps)
        return CM_ERR_NOMEM;
    s->steps = steps;
    if (!s->sorted_) {
        int32_t *ranks = realloc(s->step_rank_, cap * sizeof *ranks);

        if (!ranks)
            return CM_ERR_NOMEM;
        s->step_rank_ = ranks;
    }
    s->cap_ = cap;
    return CM_OK;
}

/* The first step out of rank order: record every step's rank from now on. */
static cm_status_t sched_unsort(rt_sched_t *s)
{
    int32_t *ranks = malloc((s->cap_ ? s->cap_ : 1) * sizeof *ranks);
    int32_t r = 0;

    if (!ranks)
        return CM_ERR_NOMEM;
    /* So far step_start[r] holds where rank r began, for r <= last_rank_. */
    for (size_t i = 0; i < s->nsteps; i++) {
        while (r < s->last_rank_ && s->step_start[r + 1] <= i)
            r++;
        ranks[i] = r;
    }
    s->step_rank_ = ranks;
    s->sorted_ = 0;
    return CM_OK;
}

cm_status_t rt_sched_step(rt_sched_t *s, int32_t rank, int32_t round,
                          int32_t peer, int dir, int act, unsigned flags,
                          int32_t piece, int32_t npieces)
{
    rt_step_t *st;

    if (s->only_rank >= 0 && rank != s->only_rank)
        return CM_OK;
    if (rank < 0 || rank >= s->nranks || peer < 0 || peer >= s->nranks ||
        peer == rank || npieces < 1 || npieces > RT_STEP_PIECES_MAX ||
        piece < 0 || piece > s->npieces - npieces || round < RT_ROUND_UNSET)
        return CM_ERR_INVALID;
    if (s->nsteps == s->cap_ && sched_grow(s) != CM_OK)
        return CM_ERR_NOMEM;
    if (s->sorted_) {
        if (rank < s->last_rank_) {
            if (sched_unsort(s) != CM_OK)
                return CM_ERR_NOMEM;
        } else {
            while (s->last_rank_ < rank)
                s->step_start[++s->last_rank_] = s->nsteps;
        }
    }
    if (!s->sorted_)
        s->step_rank_[s->nsteps] = rank;
    st = &s->steps[s->nsteps++];
    st->round = round;
    st->peer = peer;
    st->piece = piece;
    st->npieces = (uint32_t)npieces;
    st->dir = (uint32_t)dir & 1;
    st->act = (uint32_t)act & 1;
    st->flags = flags & 0xf;
    return CM_OK;
}

cm_status_t rt_sched_xfer(rt_sched_t *s, int32_t round, int32_t src,
                          int32_t dst, int act, unsigned flags,
                          int32_t piece, int32_t npieces)
{
    cm_status_t st = rt_sched_step(s, src, round, dst, RT_STEP_SEND, act,
                                   flags, piece, npieces);

    if (st != CM_OK)
        return st;
    return rt_sched_step(s, dst, round, src, RT_STEP_RECV, act, flags, piece,
                         npieces);
}

cm_status_t rt_sched_finish(rt_sched_t *s, cm_err_t *err)
{
    size_t *start = s->step_start;
    int32_t maxround = -1;

    if (s->sorted_) {
        while (s->last_rank_ < s->nranks)
            start[++s->last_rank_] = s->nsteps;
    } else {
        /* Stable counting sort by rank: each rank keeps its append order. */
        rt_step_t *out = malloc((s->nsteps ? s->nsteps : 1) * sizeof *out);
        size_t *next = malloc(((size_t)s->nranks + 1) * sizeof *next);

        if (!out || !next) {
            free(out);
            free(next);
            return CM_ERR(err, CM_ERR_NOMEM, "%s: out of memory", s->algo);
        }
        memset(start, 0, ((size_t)s->nranks + 1) * sizeof *start);
        for (size_t i = 0; i < s->nsteps; i++)
            start[s->step_rank_[i] + 1]++;
        for (int32_t r = 0; r < s->nranks; r++)
            start[r + 1] += start[r];
        memcpy(next, start, ((size_t)s->nranks + 1) * sizeof *next);
        for (size_t i = 0; i < s->nsteps; i++)
            out[next[s->step_rank_[i]]++] = s->steps[i];
        free(next);
        free(s->steps);
        s->steps = out;
        s->cap_ = s->nsteps;
        s->sorted_ = 1;
        s->last_rank_ = s->nranks;
    }
    free(s->step_rank_);
    s->step_rank_ = NULL;
    for (int32_t r = 0; r < s->nranks; r++) {
        int32_t prev = RT_ROUND_UNSET;

        for (size_t i = start[r]; i < start[r + 1]; i++) {
            int32_t round = s->steps[i].round;

            if ((prev == RT_ROUND_UNSET) != (round == RT_ROUND_UNSET) &&
                i > start[r])
                return CM_ERR(err, CM_ERR_INVALID,
                              "%s: rank %d mixes set and unset rounds",
                              s->algo, r);
            if (round < prev)
                return CM_ERR(err, CM_ERR_INVALID,
                              "%s: rank %d's rounds decrease (%d after %d)",
                              s->algo, r, round, prev);
            prev = round;
            if (round > maxround)
                maxround = round;
        }
    }
    s->nrounds = maxround + 1;
    if (s->only_rank < 0)
        s->nrounds_all = s->nrounds;
    return CM_OK;
}

void rt_sched_keep_rank(rt_sched_t *s, int32_t rank)
{
    size_t a = s->step_start[rank], n = s->step_start[rank + 1] - a;

    if (n)
        memmove(s->steps, s->steps + a, n * sizeof *s->steps);
    s->nsteps = n;
    for (int32_t r = 0; r <= s->nranks; r++)
        s->step_start[r] = r <= rank ? 0 : n;
    s->only_rank = rank;
    s->nrounds_all = s->nrounds;
    /* As rt_sched_finish counts them: 1 + this rank's last round. */
    s->nrounds = n ? s->steps[n - 1].round + 1 : 0;
}

/* ---- Matching ----------------------------------------------------------- */

typedef struct match_key {
    int64_t chan;   /* src * P + dst */
    int64_t idx;    /* global step index: order within a channel */
} match_key_t;

static int match_cmp(const void *a, const void *b)
{
    const match_key_t *x = a, *y = b;

    if (x->chan != y->chan)
        return x->chan < y->chan ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

cm_status_t rt__sched_match(const rt_sched_t *s, int64_t *partner,
                            cm_err_t *err)
{
    size_t n = s->nsteps, ns = 0, nr = 0;
    match_key_t *snd, *rcv;
    cm_status_t st = CM_OK;

    if (s->only_rank != -1)
        return CM_ERR(err, CM_ERR_INVALID,
                      "%s: the schedule holds one rank's steps only", s->algo);
    snd = malloc((n ? n : 1) * sizeof *snd);
    rcv = malloc((n ? n : 1) * sizeof *rcv);
    if (!snd || !rcv) {
        free(snd);
        free(rcv);
        return CM_ERR(err, CM_ERR_NOMEM, "%s: out of memory", s->algo);
    }
    for (int32_t r = 0; r < s->nranks; r++)
        for (size_t i = s->step_start[r]; i < s->step_start[r + 1]; i++) {
            const rt_step_t *t = &s->steps[i];

            if (t->dir == RT_STEP_SEND)
                snd[ns++] = (match_key_t){ (int64_t)r * s->nranks + t->peer,
                                           (int64_t)i };
            else
                rcv[nr++] = (match_key_t){ (int64_t)t->peer * s->nranks + r,
                                           (int64_t)i };
        }
    qsort(snd, ns, sizeof *snd, match_cmp);
    qsort(rcv, nr, sizeof *rcv, match_cmp);
    {
        size_t a = 0, b = 0;

        while (a < ns || b < nr) {
            if (b == nr || (a < ns && snd[a].chan < rcv[b].chan)) {
                st = CM_ERR(err, CM_ERR_VERIFY,
                            "%s: rank %lld sends to rank %lld a message "
                            "nobody receives", s->algo,
                            (long long)(snd[a].chan / s->nranks),
                            (long long)(snd[a].chan % s->nranks));
                break;
            }
            if (a == ns || rcv[b].chan < snd[a].chan) {
                st = CM_ERR(err, CM_ERR_VERIFY,
                            "%s: rank %lld waits for a message from rank "
                            "%lld that is never sent", s->algo,
                            (long long)(rcv[b].chan % s->nranks),
                            (long long)(rcv[b].chan / s->nranks));
                break;
            }
            partner[snd[a].idx] = rcv[b].idx;
            partner[rcv[b].idx] = snd[a].idx;
            a++;
            b++;
        }
    }
    free(snd);
    free(rcv);
    return st;
}

int32_t rt__sched_rank_of(const rt_sched_t *s, size_t idx)
{
    int32_t lo = 0, hi = s->nranks - 1;

    while (lo < hi) {
        int32_t mid = lo + (hi - lo + 1) / 2;

        if (s->step_start[mid] <= idx)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}
