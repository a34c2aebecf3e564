/*
 * sched_verify.c - the replay verifier: runs a whole schedule symbolically.
 *
 * Every rank starts with a token set per piece: {rank} for a reduction,
 * everything at the root and nothing elsewhere for a broadcast.  Rounds are
 * replayed in order with start-of-round payloads (all payloads of a round
 * are read before any step of that round is applied), and each step is
 * held to the invariants of docs/algorithms.md (The replay verifier):
 *
 *   matching    every send has its receive and both agree (round, pieces,
 *               action, flags);
 *   ports       per round and process: U one transfer, B one send and one
 *               receive, X the same with one peer;
 *   reduce      payload and receiver are disjoint (no contribution twice);
 *   copy        replaces the receiver's set;
 *   MOVE        the sender's set of those pieces is emptied;
 *   FINAL       the payload is complete when sent;
 *   end         every required holder (all ranks; the root of a reduce)
 *               holds every token of every piece;
 *   deadlock    executing each rank's rounds in order, a round's steps
 *               posted together and each transfer completing only when both
 *               ends have posted it (rendezvous: the strictest blocking
 *               semantics), every rank finishes.
 *
 * The token sets are bitsets of W = ceil(P/64) words per (rank, piece), so
 * memory is P * npieces * W words; the verifier refuses schedules above
 * 2^27 words (1 GiB) with CM_ERR_RANGE rather than thrash.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/algo/sched_int.h"

#define VERIFY_WORDS_MAX ((size_t)1 << 27)

typedef struct replay {
    const rt_sched_t *s;
    size_t            w;      /* words per token set */
    uint64_t         *tok;    /* [rank][piece][w] */
    cm_err_t         *err;
} replay_t;

static uint64_t *tokens(replay_t *rp, int32_t rank, int32_t piece)
{
    return rp->tok + ((size_t)rank * rp->s->npieces + piece) * rp->w;
}

static int set_full(const uint64_t *set, size_t w, int32_t p)
{
    for (size_t k = 0; k < w; k++) {
        int32_t bits = p - (int32_t)(k * 64);
        uint64_t want = bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;

        if (set[k] != want)
            return 0;
    }
    return 1;
}

static void replay_init(replay_t *rp)
{
    const rt_sched_t *s = rp->s;

    for (int32_t r = 0; r < s->nranks; r++)
        for (int32_t j = 0; j < s->npieces; j++) {
            uint64_t *t = tokens(rp, r, j);

            if (s->coll == RT_COLL_BCAST) {
                if (r == s->root)
                    for (int32_t q = 0; q < s->nranks; q++)
                        t[q / 64] |= (uint64_t)1 << (q % 64);
            } else {
                t[r / 64] |= (uint64_t)1 << (r % 64);
            }
        }
}

/* ---- Port model ----------------------------------------------------------- */

static cm_status_t check_ports(const rt_sched_t *s, cm_err_t *err)
{
    for (int32_t r = 0; r < s->nranks; r++) {
        size_t i = s->step_start[r], end = s->step_start[r + 1];

        while (i < end) {
            int32_t round = s->steps[i].round, nsend = 0, nrecv = 0;
            int32_t speer = -1, rpeer = -1;

            for (; i < end && s->steps[i].round == round; i++) {
                if (s->steps[i].dir == RT_STEP_SEND) {
                    nsend++;
                    speer = s->steps[i].peer;
                } else {
                    nrecv++;
                    rpeer = s->steps[i].peer;
                }
            }
            if (s->port == RT_PORT_U && nsend + nrecv > 1)
                return CM_ERR(err, CM_ERR_VERIFY,
                              "%s: rank %d takes part in %d transfers in "
                              "round %d (port model U allows one)",
                              s->algo, r, nsend + nrecv, round);
            if (nsend > 1 || nrecv > 1)
                return CM_ERR(err, CM_ERR_VERIFY,
                              "%s: rank %d sends %d and receives %d messages "
                              "in round %d (at most one each)",
                              s->algo, r, nsend, nrecv, round);
            if (s->port == RT_PORT_X && nsend == 1 && nrecv == 1 &&
                speer != rpeer)
                return CM_ERR(err, CM_ERR_VERIFY,
                              "%s: rank %d sends to %d but receives from %d "
                              "in round %d (port model X: one peer)",
                              s->algo, r, speer, rpeer, round);
        }
    }
    return CM_OK;
}

/* ---- Matching agreement --------------------------------------------------- */

static cm_status_t check_pairs(const rt_sched_t *s, const int64_t *partner,
                               cm_err_t *err)
{
    for (int32_t r = 0; r < s->nranks; r++)
        for (size_t i = s->step_start[r]; i < s->step_start[r + 1]; i++) {
            const rt_step_t *a = &s->steps[i], *b = &s->steps[partner[i]];

            if (a->dir != RT_STEP_SEND)
                continue;
            if (a->round != b->round || a->piece != b->piece ||
                a->npieces != b->npieces || a->act != b->act ||
                a->flags != b->flags)
                return CM_ERR(err, CM_ERR_VERIFY,
                              "%s: rank %d's send to %d (round %d, pieces "
                              "%d+%d) meets a receive that expects round %d, "
                              "pieces %d+%d%s", s->algo, r, a->peer, a->round,
                              a->piece, a->npieces, b->round, b->piece,
                              b->npieces,
                              a->act != b->act ? ", another action" :
                              a->flags != b->flags ? ", other flags" : "");
        }
    return CM_OK;
}

/* ---- Deadlock: in-order execution with rendezvous ------------------------- */

typedef struct exec_state {
    size_t *gbeg, *gend;   /* current group of each rank: [gbeg, gend) */
    size_t *left;          /* steps of the current group not yet completed */
    int32_t *queue;
    size_t qhead, qtail;
} exec_state_t;

/* Moves rank r to its next group; returns 0 when it has none. */
static int exec_post(const rt_sched_t *s, exec_state_t *x, int32_t r)
{
    size_t i = x->gend[r], end = s->step_start[r + 1];

    x->gbeg[r] = i;
    while (i < end && s->steps[i].round == s->steps[x->gbeg[r]].round)
        i++;
    x->gend[r] = i;
    x->left[r] = i - x->gbeg[r];
    return i > x->gbeg[r];
}

static cm_status_t check_deadlock(const rt_sched_t *s, const int64_t *partner,
                                  cm_err_t *err)
{
    size_t p = (size_t)s->nranks, done = 0;
    exec_state_t x;
    unsigned char *complete = calloc(s->nsteps ? s->nsteps : 1, 1);
    cm_status_t st = CM_OK;

    x.gbeg = malloc(p * sizeof *x.gbeg);
    x.gend = malloc(p * sizeof *x.gend);
    x.left = malloc(p * sizeof *x.left);
    /* A rank is queued once per group it posts (plus once at the start). */
    x.queue = malloc((s->nsteps + p + 1) * sizeof *x.queue);
    if (!complete || !x.gbeg || !x.gend || !x.left || !x.queue) {
        st = CM_ERR(err, CM_ERR_NOMEM, "%s: out of memory", s->algo);
        goto out;
    }
    /* Every rank posts its first group; a queue holds ranks that just
       posted, whose steps may now meet their partners. */
    x.qhead = x.qtail = 0;
    for (int32_t r = 0; r < s->nranks; r++) {
        x.gend[r] = s->step_start[r];
        if (exec_post(s, &x, r))
            x.queue[x.qtail++] = r;
        else
            done++;
    }
    while (x.qhead != x.qtail) {
        int32_t r = x.queue[x.qhead++];

        for (size_t i = x.gbeg[r]; i < x.gend[r]; i++) {
            size_t j = (size_t)partner[i];
            int32_t q = s->steps[i].peer;

            if (complete[i] || j < x.gbeg[q] || j >= x.gend[q])
                continue;       /* done, or the peer has not posted it */
            complete[i] = complete[j] = 1;
            x.left[r]--;
            if (--x.left[q] == 0 && q != r) {
                if (exec_post(s, &x, q))
                    x.queue[x.qtail++] = q;
                else
                    done++;
            }
        }
        if (x.left[r] == 0) {
            if (exec_post(s, &x, r))
                x.queue[x.qtail++] = r;
            else
                done++;
        }
    }
    if (done < p) {
        char who[160] = "";
        size_t len = 0;
        int shown = 0;

        for (int32_t r = 0; r < s->nranks && shown < 6; r++)
            if (x.gbeg[r] < x.gend[r]) {
                const rt_step_t *t = &s->steps[x.gbeg[r]];

                len += (size_t)snprintf(who + len, sizeof who - len,
                                        "%s%d (round %d)", shown ? ", " : "",
                                        r, t->round);
                if (len >= sizeof who)
                    break;
                shown++;
            }
        st = CM_ERR(err, CM_ERR_VERIFY,
                    "%s: deadlock: %zu of %d ranks blocked, among them %s",
                    s->algo, p - done, s->nranks, who);
    }
out:
    free(complete);
    free(x.gbeg);
    free(x.gend);
    free(x.left);
    free(x.queue);
    return st;
}

/* ---- Token replay --------------------------------------------------------- */

typedef struct xfer {
    int32_t round;
    int32_t src;
    size_t  step;          /* index of the send step */
} xfer_t;

static int xfer_cmp(const void *a, const void *b)
{
    const xfer_t *x = a, *y = b;

    if (x->round != y->round)
        return x->round < y->round ? -1 : 1;
    return x->step < y->step ? -1 : x->step > y->step;
}

static cm_status_t replay_round(replay_t *rp, const xfer_t *xs, size_t n,
                                uint64_t *pay)
{
    const rt_sched_t *s = rp->s;
    size_t w = rp->w, off = 0;

    /* 1. Read every payload at the start of the round. */
    for (size_t k = 0; k < n; k++) {
        const rt_step_t *t = &s->steps[xs[k].step];

        for (int32_t j = t->piece; j < t->piece + t->npieces; j++) {
            const uint64_t *set = tokens(rp, xs[k].src, j);

            if ((t->flags & RT_STEP_FINAL) && !set_full(set, w, s->nranks))
                return CM_ERR(rp->err, CM_ERR_VERIFY,
                              "%s: round %d: rank %d sends piece %d to %d as "
                              "final but it is not complete yet", s->algo,
                              t->round, xs[k].src, j, t->peer);
            memcpy(pay + off, set, w * sizeof *pay);
            off += w;
        }
    }
    /* 2. Senders that give their data away lose it. */
    for (size_t k = 0; k < n; k++) {
        const rt_step_t *t = &s->steps[xs[k].step];

        if (t->flags & RT_STEP_MOVE)
            for (int32_t j = t->piece; j < t->piece + t->npieces; j++)
                memset(tokens(rp, xs[k].src, j), 0, w * sizeof(uint64_t));
    }
    /* 3. Receivers reduce or copy. */
    off = 0;
    for (size_t k = 0; k < n; k++) {
        const rt_step_t *t = &s->steps[xs[k].step];

        for (int32_t j = t->piece; j < t->piece + t->npieces; j++, off += w) {
            uint64_t *dst = tokens(rp, t->peer, j);
            const uint64_t *src = pay + off;

            if (t->act == RT_ACT_COPY) {
                memcpy(dst, src, w * sizeof *dst);
                continue;
            }
            for (size_t b = 0; b < w; b++) {
                if (dst[b] & src[b]) {
                    uint64_t both = dst[b] & src[b];

                    return CM_ERR(rp->err, CM_ERR_VERIFY,
                                  "%s: round %d: rank %d reduces piece %d "
                                  "from %d, but both hold the contribution "
                                  "of rank %d (counted twice)", s->algo,
                                  t->round, t->peer, j, xs[k].src,
                                  (int)(b * 64) + __builtin_ctzll(both));
                }
                dst[b] |= src[b];
            }
        }
    }
    return CM_OK;
}

static cm_status_t check_tokens(replay_t *rp)
{
    const rt_sched_t *s = rp->s;
    size_t nx = 0, maxpay = 0;
    xfer_t *xs = malloc((s->nsteps / 2 + 1) * sizeof *xs);
    uint64_t *pay = NULL;
    cm_status_t st = CM_OK;

    if (!xs)
        return CM_ERR(rp->err, CM_ERR_NOMEM, "%s: out of memory", s->algo);
    for (int32_t r = 0; r < s->nranks; r++)
        for (size_t i = s->step_start[r]; i < s->step_start[r + 1]; i++)
            if (s->steps[i].dir == RT_STEP_SEND)
                xs[nx++] = (xfer_t){ s->steps[i].round, r, i };
    qsort(xs, nx, sizeof *xs, xfer_cmp);
    replay_init(rp);
    for (size_t a = 0; a < nx && st == CM_OK;) {
        size_t b = a, need = 0;

        while (b < nx && xs[b].round == xs[a].round)
            need += (size_t)s->steps[xs[b++].step].npieces * rp->w;
        if (need > maxpay) {
            free(pay);
            pay = malloc(need * sizeof *pay);
            maxpay = need;
            if (!pay) {
                st = CM_ERR(rp->err, CM_ERR_NOMEM, "%s: out of memory",
                            s->algo);
                break;
            }
        }
        st = replay_round(rp, xs + a, b - a, pay);
        a = b;
    }
    free(xs);
    free(pay);
    if (st != CM_OK)
        return st;
    for (int32_t r = 0; r < s->nranks; r++) {
        if (s->coll == RT_COLL_REDUCE && r != s->root)
            continue;
        for (int32_t j = 0; j < s->npieces; j++) {
            uint64_t *set = tokens(rp, r, j);

            if (!set_full(set, rp->w, s->nranks)) {
                int32_t missing = -1;

                for (int32_t q = 0; q < s->nranks && missing < 0; q++)
                    if (!(set[q / 64] >> (q % 64) & 1))
                        missing = q;
                return CM_ERR(rp->err, CM_ERR_VERIFY,
                              "%s: at the end rank %d's piece %d lacks the "
                              "contribution of rank %d", s->algo, r, j,
                              missing);
            }
        }
    }
    return CM_OK;
}

cm_status_t rt_sched_verify(const rt_sched_t *s, cm_err_t *err)
{
    int64_t *partner;
    replay_t rp;
    cm_status_t st;
    size_t words;

    if (s->only_rank != -1)
        return CM_ERR(err, CM_ERR_INVALID,
                      "%s: only an all-ranks schedule can be verified",
                      s->algo);
    for (size_t i = 0; i < s->nsteps; i++)
        if (s->steps[i].round < 0)
            return CM_ERR(err, CM_ERR_VERIFY, "%s: a step has no round",
                          s->algo);
    rp.s = s;
    rp.w = ((size_t)s->nranks + 63) / 64;
    rp.err = err;
    words = (size_t)s->nranks * (size_t)s->npieces * rp.w;
    if (words > VERIFY_WORDS_MAX)
        return CM_ERR(err, CM_ERR_RANGE,
                      "%s: %d ranks x %d pieces is too large to verify",
                      s->algo, s->nranks, s->npieces);
    partner = malloc((s->nsteps ? s->nsteps : 1) * sizeof *partner);
    if (!partner)
        return CM_ERR(err, CM_ERR_NOMEM, "%s: out of memory", s->algo);
    /* The deadlock check only uses each rank's order and grouping, not the
       round labels, so it runs before the pairs are held to agree. */
    st = rt__sched_match(s, partner, err);
    if (st == CM_OK)
        st = check_deadlock(s, partner, err);
    if (st == CM_OK)
        st = check_pairs(s, partner, err);
    if (st == CM_OK)
        st = check_ports(s, err);
    free(partner);
    if (st != CM_OK)
        return st;
    rp.tok = calloc(words ? words : 1, sizeof *rp.tok);
    if (!rp.tok)
        return CM_ERR(err, CM_ERR_NOMEM, "%s: out of memory", s->algo);
    st = check_tokens(&rp);
    free(rp.tok);
    return st;
}
