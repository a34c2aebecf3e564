/*
 * an_metrics.c - the metrics of one complete operation: section 4 of the
 * PATHS/EventSpace paper (orders, waits, down and up latencies of every
 * wrapper and subtree) and the arrival pattern of Proficz 2018, section 3.
 *
 * With slot(w, c) the visit of wrapper w by contributor c:
 *   t2(w), t3(w) = t1, t4 of slot(parent(w), pslot(w)) - the visit of the
 *                  parent that carried w's contribution (the last arrival's
 *                  nested visit, or the service thread's visit for a proxy)
 *   orders, waits, down/up latencies: docs/analysis-db.md
 * Pure computation: the caller writes the rows and adds the samples.
 */
#include <stdlib.h>

#include "analyze/an_ops_int.h"

cm_status_t an__metrics_init(an_metrics_t *m, an_subtree_t *s, const an_defs_t *d)
{
    size_t ns = (size_t)d->nslots, nn = (size_t)d->nnodes, nt = (size_t)d->nthreads;
    size_t nh = (size_t)d->nhosts;

    *m = (an_metrics_t){
        .arr = calloc(ns, sizeof(int)), .dep = calloc(ns, sizeof(int)),
        .aw = calloc(ns, sizeof(int64_t)), .dw = calloc(ns, sizeof(int64_t)),
        .t2 = calloc(nn, sizeof(int64_t)), .t3 = calloc(nn, sizeof(int64_t)),
        .down = calloc(nn, sizeof(double)), .up = calloc(nn, sizeof(double)),
        .a = calloc(nt, sizeof(int64_t)), .f = calloc(nt, sizeof(int64_t)),
        .total = calloc(nt, sizeof(double)), .no_wait = calloc(nt, sizeof(double)),
        .ha = calloc(nh, sizeof(int64_t)), .hf = calloc(nh, sizeof(int64_t)),
    };
    *s = (an_subtree_t){
        .t1 = calloc(nt, sizeof(int64_t)), .t4 = calloc(nt, sizeof(int64_t)),
        .arr = calloc(nt, sizeof(int)), .dep = calloc(nt, sizeof(int)),
        .aw = calloc(nt, sizeof(int64_t)), .dw = calloc(nt, sizeof(int64_t)),
        .latency = calloc(nt, sizeof(double)),
    };
    if (m->arr && m->dep && m->aw && m->dw && m->t2 && m->t3 && m->down && m->up && m->a
        && m->f && m->total && m->no_wait && m->ha && m->hf && s->t1 && s->t4 && s->arr
        && s->dep && s->aw && s->dw && s->latency)
        return CM_OK;
    an__metrics_cleanup(m, s);
    return CM_ERR_NOMEM;
}

void an__metrics_cleanup(an_metrics_t *m, an_subtree_t *s)
{
    free(m->arr);
    free(m->dep);
    free(m->aw);
    free(m->dw);
    free(m->t2);
    free(m->t3);
    free(m->down);
    free(m->up);
    free(m->a);
    free(m->f);
    free(m->total);
    free(m->no_wait);
    free(m->ha);
    free(m->hf);
    free(s->t1);
    free(s->t4);
    free(s->arr);
    free(s->dep);
    free(s->aw);
    free(s->dw);
    free(s->latency);
    *m = (an_metrics_t){ 0 };
    *s = (an_subtree_t){ 0 };
}

/* 1-based ranks of t[0..n) into rank[], ties by index. */
static void rank_times(const int64_t *t, int n, int *rank)
{
    for (int i = 0; i < n; i++) {
        int r = 1;
        for (int j = 0; j < n; j++)
            r += t[j] < t[i] || (t[j] == t[i] && j < i);
        rank[i] = r;
    }
}

/*
 * At a gred the last arrival is the contributor that continued down (its
 * visit nests the parent's, cont[c] = 1; an_ops.c checks there is one), as
 * in the paper's section 4: it is usually, but not always, the largest t1
 * (equal timestamps; or a thread that took its t1 first and reached the
 * gred's lock last).  It becomes arrival P, *l; the others keep their order
 * by t1 among themselves.
 */
static void last_arrival(const uint8_t *cont, int P, int *arr, int *l)
{
    int k = 0;

    while (k < P && !cont[k])
        k++;
    if (k == P || arr[k] == P)
        return;
    for (int c = 0; c < P; c++)
        if (arr[c] > arr[k])
            arr[c]--;
    arr[k] = P;
    *l = k;
}

/* Orders, waits and latencies of wrapper n. */
static void wrapper_metrics(const an_defs_t *d, const op_buf_t *b, an_metrics_t *m, int n)
{
    const an_wrapper_t *w = &d->nodes[n];
    int s0 = w->slot0, P = w->fanin, l = 0, f = 0;
    int64_t t2 = 0, t3 = 0;

    if (w->parent >= 0) {
        int ps = d->nodes[w->parent].slot0 + w->pslot;
        t2 = b->t1[ps];
        t3 = b->t4[ps];
    }
    m->t2[n] = t2;
    m->t3[n] = t3;
    rank_times(b->t1 + s0, P, m->arr + s0);
    rank_times(b->t4 + s0, P, m->dep + s0);
    for (int c = 0; c < P; c++) {
        if (m->arr[s0 + c] == P)
            l = c;
        if (m->dep[s0 + c] == 1)
            f = c;
    }
    if (w->kind == CM_KIND_GRED)
        last_arrival(b->cont + s0, P, m->arr + s0, &l);
    for (int c = 0; c < P; c++) {
        m->aw[s0 + c] = b->t1[s0 + l] - b->t1[s0 + c];
        m->dw[s0 + c] = b->t4[s0 + c] - b->t4[s0 + f];
    }
    if (w->kind == CM_KIND_CORE) {
        m->down[n] = (double)(b->t4[s0] - b->t1[s0]);
        m->up[n] = 0;
    } else if (w->kind == CM_KIND_ALGO) {
        /* no wrapper-level down/up: each host's latency (t4 - t1 of its
         * visit) is the stage of the threads below it */
        m->down[n] = m->up[n] = 0;
    } else if (w->kind == CM_KIND_PROXY) {
        m->down[n] = m->up[n] = (double)((b->t4[s0] - b->t1[s0]) - (t3 - t2)) / 2;
    } else {
        m->down[n] = (double)(t2 - b->t1[s0 + l]);
        m->up[n] = (double)(b->t4[s0 + f] - t3);
    }
}

/* Arrival and exit at the tree's entry, per thread and host, and the
 * operation's spreads (Proficz 2018, section 3). */
static void pattern_metrics(const an_defs_t *d, const op_buf_t *b, an_metrics_t *m)
{
    int64_t t0 = INT64_MAX, amax = INT64_MIN, hmin = INT64_MAX, hmax = INT64_MIN;
    double elapsed = 0;

    for (int h = 0; h < d->nhosts; h++)
        m->ha[h] = m->hf[h] = INT64_MIN;
    for (int t = 0; t < d->nthreads; t++) {
        const an_thread_t *th = &d->threads[t];
        int e = d->nodes[th->node[0]].slot0 + th->contrib[0];
        m->a[t] = b->t1[e];
        m->f[t] = b->t4[e];
        t0 = m->a[t] < t0 ? m->a[t] : t0;
        amax = m->a[t] > amax ? m->a[t] : amax;
        m->ha[th->host] = m->a[t] > m->ha[th->host] ? m->a[t] : m->ha[th->host];
        m->hf[th->host] = m->f[t] > m->hf[th->host] ? m->f[t] : m->hf[th->host];
        elapsed += (double)(m->f[t] - m->a[t]);
    }
    for (int h = 0; h < d->nhosts; h++) {
        if (m->ha[h] == INT64_MIN)
            continue;                     /* a host without threads of this tree */
        hmin = m->ha[h] < hmin ? m->ha[h] : hmin;
        hmax = m->ha[h] > hmax ? m->ha[h] : hmax;
    }
    m->t0 = t0;
    m->arrival_spread = amax - t0;
    m->host_spread = hmax - hmin;
    m->avg_elapsed = elapsed / d->nthreads;
}

/* Each thread's time per allreduce, with and without its arrival waits. */
static void thread_metrics(const an_defs_t *d, const op_buf_t *b, an_metrics_t *m)
{
    for (int t = 0; t < d->nthreads; t++) {
        const an_thread_t *th = &d->threads[t];
        int e = d->nodes[th->node[0]].slot0 + th->contrib[0];
        double total = (double)(b->t4[e] - b->t1[e]), waits = 0;

        for (int s = 0; s < th->nsteps; s++)
            if (d->nodes[th->node[s]].kind == CM_KIND_GRED)
                waits += (double)m->aw[d->nodes[th->node[s]].slot0 + th->contrib[s]];
        m->total[t] = total;
        m->no_wait[t] = total - waits;
    }
}

void an__metrics_op(const an_defs_t *d, const op_buf_t *b, an_metrics_t *m)
{
    for (int n = 0; n < d->nnodes; n++)
        wrapper_metrics(d, b, m, n);
    pattern_metrics(d, b, m);
    thread_metrics(d, b, m);
}

/* Sum of the wrapper-level down (or up) latencies on thread t's path below r. */
static double path_sum(const an_defs_t *d, int t, int r, const double *lat)
{
    const an_thread_t *th = &d->threads[t];
    double sum = 0;

    for (int s = 0; s < th->nsteps; s++) {
        int n = th->node[s];
        if (n == r && (d->nodes[r].kind == CM_KIND_CORE || d->nodes[r].kind == CM_KIND_ALGO))
            break;
        sum += lat[n];
        if (n == r)
            break;
    }
    return sum;
}

void an__metrics_subtree(const an_defs_t *d, const op_buf_t *b, const an_metrics_t *m,
                         int r, an_subtree_t *s)
{
    const an_wrapper_t *w = &d->nodes[r];
    int P = w->nbelow, l = 0, f = 0;
    int64_t t2, t3;

    if (w->kind == CM_KIND_CORE) {
        t2 = b->t1[w->slot0];
        t3 = b->t4[w->slot0];
    } else {
        t2 = m->t2[r];
        t3 = m->t3[r];
    }
    for (int k = 0; k < P; k++) {
        s->t1[k] = m->a[w->below[k]];
        s->t4[k] = m->f[w->below[k]];
    }
    rank_times(s->t1, P, s->arr);
    rank_times(s->t4, P, s->dep);
    for (int k = 0; k < P; k++) {
        if (s->arr[k] == P)
            l = k;
        if (s->dep[k] == 1)
            f = k;
    }
    s->down = path_sum(d, w->below[l], r, m->down);
    s->up = path_sum(d, w->below[f], r, m->up);
    for (int k = 0; k < P; k++) {
        s->aw[k] = s->t1[l] - s->t1[k];
        s->dw[k] = s->t4[k] - s->t4[f];
        if (w->kind == CM_KIND_ALGO) {
            /* above the algorithm node: the visit of the thread's host */
            const an_thread_t *th = &d->threads[w->below[k]];
            int a = w->slot0 + th->contrib[th->nsteps - 1];
            t2 = b->t1[a];
            t3 = b->t4[a];
        }
        s->latency[k] = (double)((s->t4[k] - s->t1[k]) - (t3 - t2));
    }
}
