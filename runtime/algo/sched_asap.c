/*
 * sched_asap.c - rounds for sequence-defined algorithms (docs/algorithms.md).
 *
 * A pipelined chain or tree is defined by what each process does in order
 * ("receive segment j from my child, then send it to my parent"), not by
 * rounds.  This file turns such in-order programs into rounds: a matched
 * send/receive pair occupies one round, the first in which both ends are
 * free.  Under port model U a process has one stream (one transfer per
 * round, in program order); under B its sends and its receives are two
 * streams, and a send additionally waits until the sender has received every
 * earlier-listed contribution to the pieces it sends.  That is a
 * longest-path computation on the dependency DAG, so the order in which
 * pairs are resolved does not change the result.
 *
 * Example (chain.c's chain, P=3 root 0, one segment, U): rank 2 lists
 * "send s0 to 1", rank 1 "recv s0 from 2; send s0 to 0", rank 0 "recv s0
 * from 1".  Pair 2->1 gets round 0; 1->0 waits for rank 1's stream: round 1.
 *
 * A program that cannot run (a receive whose send comes after a receive the
 * sender is itself waiting for, in a cycle) leaves pairs unresolved: that is
 * the deadlock of the in-order program, reported with the stuck ranks.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/algo/sched_int.h"

typedef struct asap {
    rt_sched_t *s;
    const int64_t *partner;
    rt_port_t port;
    size_t *head;        /* U: next step; B: next send */
    size_t *rhead;       /* B: next receive */
    int32_t *last;       /* U: last round; B: last send round */
    int32_t *rlast;      /* B: last receive round */
    int32_t *piece_rnd;  /* B: [rank][piece] round of the last receive */
} asap_t;

static size_t next_dir(const rt_sched_t *s, int32_t r, size_t i, int dir)
{
    size_t end = s->step_start[r + 1];

    while (i < end && s->steps[i].dir != dir)
        i++;
    return i;
}

/* Is step i (of rank r) next in its stream, with its dependencies done? */
static int ready(const asap_t *a, int32_t r, size_t i)
{
    const rt_step_t *t = &a->s->steps[i];

    if (a->port == RT_PORT_U)
        return a->head[r] == i;
    if (t->dir == RT_STEP_RECV)
        return a->rhead[r] == i;
    return a->head[r] == i && a->rhead[r] > i;
}

static int32_t lower_bound(const asap_t *a, int32_t r, size_t i)
{
    const rt_step_t *t = &a->s->steps[i];
    int32_t lb;

    if (a->port == RT_PORT_U)
        return a->last[r] + 1;
    if (t->dir == RT_STEP_RECV)
        return a->rlast[r] + 1;
    lb = a->last[r] + 1;
    for (int32_t j = t->piece; j < t->piece + t->npieces; j++) {
        int32_t got = a->piece_rnd[(size_t)r * a->s->npieces + j];

        if (got + 1 > lb)
            lb = got + 1;
    }
    return lb;
}

static void resolve(asap_t *a, int32_t r, size_t i, int32_t q, size_t j)
{
    rt_sched_t *s = a->s;
    int32_t lr = lower_bound(a, r, i), lq = lower_bound(a, q, j);
    int32_t round = lr > lq ? lr : lq;
    int32_t snd = s->steps[i].dir == RT_STEP_SEND ? r : q;
    int32_t rcv = snd == r ? q : r;
    size_t si = snd == r ? i : j, ri = snd == r ? j : i;

    s->steps[i].round = s->steps[j].round = round;
    if (a->port == RT_PORT_U) {
        a->last[r] = a->last[q] = round;
        a->head[r]++;
        a->head[q]++;
        return;
    }
    a->last[snd] = round;
    a->head[snd] = next_dir(s, snd, si + 1, RT_STEP_SEND);
    a->rlast[rcv] = round;
    a->rhead[rcv] = next_dir(s, rcv, ri + 1, RT_STEP_RECV);
    for (int32_t k = s->steps[ri].piece;
         k < s->steps[ri].piece + s->steps[ri].npieces; k++)
        a->piece_rnd[(size_t)rcv * s->npieces + k] = round;
}

/* Resolves whatever rank r can do now; returns the number of pairs. */
static size_t advance(asap_t *a, int32_t r, int32_t *touched)
{
    rt_sched_t *s = a->s;
    size_t n = 0, cand[2];
    int ncand;

    for (;;) {
        int progressed = 0;

        ncand = 0;
        if (a->head[r] < s->step_start[r + 1])
            cand[ncand++] = a->head[r];
        if (a->port != RT_PORT_U && a->rhead[r] < s->step_start[r + 1])
            cand[ncand++] = a->rhead[r];
        for (int c = 0; c < ncand; c++) {
            size_t i = cand[c], j = (size_t)a->partner[i];
            int32_t q = s->steps[i].peer;

            if (s->steps[i].round != RT_ROUND_UNSET || !ready(a, r, i) ||
                !ready(a, q, j))
                continue;
            resolve(a, r, i, q, j);
            touched[n++] = q;
            progressed = 1;
            break;
        }
        if (!progressed)
            return n;
    }
}

static int step_round_cmp(const void *x, const void *y)
{
    const rt_step_t *a = x, *b = y;

    if (a->round != b->round)
        return a->round < b->round ? -1 : 1;
    return 0;
}

cm_status_t rt_sched_asap(rt_sched_t *s, rt_port_t port, cm_err_t *err)
{
    size_t p = (size_t)s->nranks, qh = 0, qt = 0, unresolved = 0;
    asap_t a = { .s = s, .port = port };
    int64_t *partner;
    int32_t *queue, *touched;
    cm_status_t st;

    if (port != RT_PORT_U && port != RT_PORT_B)
        return CM_ERR(err, CM_ERR_UNSUPPORTED,
                      "%s: ASAP rounds are defined for port models U and B",
                      s->algo);
    if (s->only_rank != -1)
        return CM_ERR(err, CM_ERR_INVALID,
                      "%s: ASAP needs every rank's program", s->algo);
    partner = malloc((s->nsteps ? s->nsteps : 1) * sizeof *partner);
    /* Every rank once, then one peer per resolved pair. */
    queue = malloc((s->nsteps + p + 1) * sizeof *queue);
    touched = malloc((s->nsteps + 1) * sizeof *touched);
    a.head = malloc(p * sizeof *a.head);
    a.rhead = malloc(p * sizeof *a.rhead);
    a.last = malloc(p * sizeof *a.last);
    a.rlast = malloc(p * sizeof *a.rlast);
    a.piece_rnd = port == RT_PORT_B ?
        malloc(p * (size_t)s->npieces * sizeof *a.piece_rnd) : NULL;
    if (!partner || !queue || !touched || !a.head || !a.rhead || !a.last ||
        !a.rlast || (port == RT_PORT_B && !a.piece_rnd)) {
        st = CM_ERR(err, CM_ERR_NOMEM, "%s: out of memory", s->algo);
        goto out;
    }
    for (size_t i = 0; i < s->nsteps; i++)
        if (s->steps[i].round != RT_ROUND_UNSET) {
            st = CM_ERR(err, CM_ERR_INVALID,
                        "%s: ASAP needs every round unset", s->algo);
            goto out;
        }
    st = rt__sched_match(s, partner, err);
    if (st != CM_OK)
        goto out;
    a.partner = partner;
    for (int32_t r = 0; r < s->nranks; r++) {
        a.last[r] = a.rlast[r] = -1;
        if (port == RT_PORT_U) {
            a.head[r] = s->step_start[r];
        } else {
            a.head[r] = next_dir(s, r, s->step_start[r], RT_STEP_SEND);
            a.rhead[r] = next_dir(s, r, s->step_start[r], RT_STEP_RECV);
        }
        queue[qt++] = r;
    }
    if (a.piece_rnd)
        for (size_t k = 0; k < p * (size_t)s->npieces; k++)
            a.piece_rnd[k] = -1;
    while (qh < qt) {
        int32_t r = queue[qh++];
        size_t n = advance(&a, r, touched);

        /* Each resolved pair may have made the peer's next step ready. */
        for (size_t k = 0; k < n; k++)
            queue[qt++] = touched[k];
    }
    for (size_t i = 0; i < s->nsteps; i++)
        unresolved += s->steps[i].round == RT_ROUND_UNSET;
    if (unresolved) {
        char who[160] = "";
        size_t len = 0;
        int shown = 0;

        for (int32_t r = 0; r < s->nranks && shown < 6 && len < sizeof who;
             r++) {
            size_t i = port == RT_PORT_U ? a.head[r] :
                       (a.rhead[r] < a.head[r] ? a.rhead[r] : a.head[r]);

            if (i >= s->step_start[r + 1])
                continue;
            len += (size_t)snprintf(who + len, sizeof who - len,
                                    "%s%d (%s %d)", shown++ ? ", " : "", r,
                                    s->steps[i].dir == RT_STEP_SEND ?
                                    "send to" : "recv from",
                                    s->steps[i].peer);
        }
        st = CM_ERR(err, CM_ERR_INVALID,
                    "%s: the in-order programs deadlock: %zu steps never "
                    "run; stuck: %s", s->algo, unresolved, who);
        goto out;
    }
    /* Under B a later-listed receive may run before an earlier send:
       order each rank's steps by round (stable, so a round keeps its
       program order). */
    s->nrounds = 0;
    for (int32_t r = 0; r < s->nranks; r++) {
        size_t b = s->step_start[r], e = s->step_start[r + 1];
        int sorted = 1;

        for (size_t i = b; i + 1 < e; i++)
            sorted &= s->steps[i].round <= s->steps[i + 1].round;
        if (!sorted)
            for (size_t i = b + 1; i < e; i++) {  /* insertion sort: stable */
                rt_step_t t = s->steps[i];
                size_t k = i;

                while (k > b && step_round_cmp(&s->steps[k - 1], &t) > 0) {
                    s->steps[k] = s->steps[k - 1];
                    k--;
                }
                s->steps[k] = t;
            }
        if (e > b && s->steps[e - 1].round + 1 > s->nrounds)
            s->nrounds = s->steps[e - 1].round + 1;
    }
    s->nrounds_all = s->nrounds;      /* an all-ranks schedule */
    s->port = port;
out:
    free(partner);
    free(queue);
    free(touched);
    free(a.head);
    free(a.rhead);
    free(a.last);
    free(a.rlast);
    free(a.piece_rnd);
    return st;
}
