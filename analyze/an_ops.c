/*
 * an_ops.c - gathers the visits of each operation and, when an operation has
 * all of them, computes every metric of the paper's section 4 for it.
 *
 * An operation (instance, op) has exactly one visit per contributor of each
 * wrapper: nslots = sum of the fan-ins.  Its visits arrive from several
 * locations in time order; the operation is complete when all nslots have
 * arrived, which happens shortly after its last thread leaves, so only a few
 * operations are in flight at once (a ring per instance, grown on demand).
 *
 * For a complete operation, with slot(w, c) the visit of wrapper w by
 * contributor c:
 *   t2(w), t3(w) = t1, t4 of slot(parent(w), pslot(w)) - the visit of the
 *                  parent that carried w's contribution (the last arrival's
 *                  nested visit, or the service thread's visit for a proxy)
 *   orders, waits, down/up latencies: docs/analysis-db.md
 * Rows go to the database as they are computed; samples of used operations
 * go to one an_stat_t per series, summarised by an_ops_finish.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/an_int.h"

#define OPS_RING_MAX (1u << 16)     /* operations in flight per instance */
#define SUB_ORDERS_MAX 64           /* subtree order tables up to this many threads */

enum { WM_DOWN, WM_UP, WM_LATENCY, WM_ARRIVAL_WAIT, WM_DEPARTURE_WAIT, WM_N };
enum { CM_AW, CM_DW, CM_LAT, CM_N };
enum { TS_DOWN, TS_AW, TS_UP, TS_DW, TS_N };              /* core: TS_DOWN = latency */
enum { TT_TOTAL, TT_NO_WAIT, TT_N };
enum { SD_DOWN, SD_UP, SD_N };
enum { PAP_AVG, PAP_SPREAD, PAP_HOST_SPREAD, PAP_N };

static const char *const wm_names[WM_N] = { "down", "up", "latency", "arrival_wait",
                                            "departure_wait" };
static const char *const cm_names[CM_N] = { "arrival_wait", "departure_wait", "latency" };
static const char *const ts_names[TS_N] = { "down", "arrival_wait", "up", "departure_wait" };
static const char *const tt_names[TT_N] = { "total", "total_no_wait" };
static const char *const sd_names[SD_N] = { "down", "up" };
static const char *const pap_names[PAP_N] = { "avg_elapsed", "arrival_spread", "host_spread" };

/* One operation being gathered. */
typedef struct op_buf {
    struct op_buf *next_free;
    int            instance;
    uint64_t       op, bytes;
    int            used;
    int            nfilled;
    int64_t       *t1, *t4;     /* [nslots] */
    int32_t       *loc;         /* [nslots], -1 while missing */
} op_buf_t;

typedef struct op_ring {
    op_buf_t **slot;
    uint32_t   size;            /* power of two */
} op_ring_t;

/* Statistics of one tuple size. */
typedef struct op_group {
    uint64_t   bytes;
    uint64_t  *created;         /* [ninstances] operations seen, for --skip */
    an_stat_t *wrapper;         /* [nnodes][WM_N] */
    an_stat_t *contrib;         /* [nslots][CM_N] */
    an_stat_t *total;           /* [nthreads][TT_N] */
    an_stat_t *sub;             /* [nnodes][SD_N] */
    an_stat_t *subth;           /* [nnodes][nthreads][CM_N] */
    an_stat_t *pap;             /* [PAP_N] */
    an_stat_t *elapsed;         /* [nthreads] */
    an_stat_t  oneway;          /* proxies' wrapper latency / 2, for p2p */
    uint64_t  *orders;          /* per node: [fanin][fanin][fanin] from order_off */
    uint32_t  *suborders;       /* per node: [nbelow]^3 from sub_off, if nbelow <= max */
} op_group_t;

struct an_ops {
    const an_defs_t *d;
    an_db_t   *db;
    uint64_t   skip;
    op_ring_t *rings;           /* [ninstances] */
    op_buf_t  *free_list;
    uint64_t   nops, nused, inflight;
    op_group_t *groups;
    int        ngroups;
    size_t    *order_off, norders;    /* per node */
    size_t    *sub_off, nsuborders;   /* per node, SIZE_MAX if none */
    /* scratch for one operation */
    int       *arr, *dep;       /* [nslots] 1-based orders */
    int64_t   *aw, *dw;         /* [nslots] waits */
    int64_t   *t2, *t3;         /* [nnodes] */
    double    *down, *up;       /* [nnodes] wrapper-level; core: down = latency */
    int       *sarr, *sdep;     /* [nthreads] subtree orders, by position in below[] */
    int64_t   *a, *f;           /* [nthreads] arrival and exit at the entry wrapper */
    int64_t   *ha, *hf;         /* [nhosts] */
    int64_t   *st1, *st4;       /* [nthreads] subtree scratch */
};

/* ------------------------------------------------------------ in flight */

static op_buf_t *buf_new(an_ops_t *o)
{
    int n = o->d->nslots;
    op_buf_t *b = o->free_list;

    if (b != NULL) {
        o->free_list = b->next_free;
    } else {
        b = malloc(sizeof(*b) + (size_t)n * (2 * sizeof(int64_t) + sizeof(int32_t)));
        if (b == NULL)
            return NULL;
        b->t1 = (int64_t *)(b + 1);
        b->t4 = b->t1 + n;
        b->loc = (int32_t *)(b->t4 + n);
    }
    b->nfilled = 0;
    for (int i = 0; i < n; i++)
        b->loc[i] = -1;
    return b;
}

/* Puts b in ring r, doubling the ring until its slot is free. */
static cm_status_t ring_put(op_ring_t *r, op_buf_t *b)
{
    while (r->slot[b->op & (r->size - 1)] != NULL) {
        uint32_t size = r->size * 2;
        op_buf_t **slot;
        if (size > OPS_RING_MAX)
            return CM_ERR_RANGE;
        if ((slot = calloc(size, sizeof(*slot))) == NULL)
            return CM_ERR_NOMEM;
        for (uint32_t i = 0; i < r->size; i++)
            if (r->slot[i] != NULL)
                slot[r->slot[i]->op & (size - 1)] = r->slot[i];
        free(r->slot);
        r->slot = slot;
        r->size = size;
    }
    r->slot[b->op & (r->size - 1)] = b;
    return CM_OK;
}

static op_group_t *group_of(an_ops_t *o, uint64_t bytes, cm_err_t *err);

/* The operation v belongs to, created on its first visit. */
static op_buf_t *op_get(an_ops_t *o, const an_visit_t *v, cm_err_t *err)
{
    op_ring_t *r = &o->rings[v->instance];
    op_buf_t *b = r->slot[v->op & (r->size - 1)];
    op_group_t *g;
    cm_status_t st;

    if (b != NULL && b->op == v->op)
        return b;
    if ((g = group_of(o, v->bytes, err)) == NULL || (b = buf_new(o)) == NULL) {
        if (g != NULL)
            CM_ERR(err, CM_ERR_NOMEM, "out of memory");
        return NULL;
    }
    b->instance = v->instance;
    b->op = v->op;
    b->bytes = v->bytes;
    b->used = g->created[v->instance]++ >= o->skip;
    if ((st = ring_put(r, b)) != CM_OK) {
        CM_ERR(err, st, st == CM_ERR_RANGE
               ? "more than %u operations of instance %d in flight: operations never "
                 "complete (is the trace damaged?)" : "out of memory",
               OPS_RING_MAX, v->instance);
        free(b);
        return NULL;
    }
    o->inflight++;
    return b;
}

/* ----------------------------------------------------------- statistics */

static an_stat_t *stats_new(size_t n)
{
    return calloc(n > 0 ? n : 1, sizeof(an_stat_t));
}

static op_group_t *group_of(an_ops_t *o, uint64_t bytes, cm_err_t *err)
{
    const an_defs_t *d = o->d;
    size_t nt = (size_t)d->nthreads, nn = (size_t)d->nnodes;
    op_group_t *g, *groups;

    for (int i = 0; i < o->ngroups; i++)
        if (o->groups[i].bytes == bytes)
            return &o->groups[i];
    if ((groups = realloc(o->groups, (size_t)(o->ngroups + 1) * sizeof(*groups))) == NULL) {
        CM_ERR(err, CM_ERR_NOMEM, "out of memory");
        return NULL;
    }
    o->groups = groups;
    g = &groups[o->ngroups];
    memset(g, 0, sizeof(*g));
    g->bytes = bytes;
    g->created = calloc((size_t)d->ninstances, sizeof(uint64_t));
    g->wrapper = stats_new(nn * WM_N);
    g->contrib = stats_new((size_t)d->nslots * CM_N);
    g->total = stats_new(nt * TT_N);
    g->sub = stats_new(nn * SD_N);
    g->subth = stats_new(nn * nt * CM_N);
    g->pap = stats_new(PAP_N);
    g->elapsed = stats_new(nt);
    g->orders = calloc(o->norders + 1, sizeof(uint64_t));
    g->suborders = calloc(o->nsuborders + 1, sizeof(uint32_t));
    o->ngroups++;
    if (g->created == NULL || g->wrapper == NULL || g->contrib == NULL
        || g->total == NULL || g->sub == NULL || g->subth == NULL || g->pap == NULL
        || g->elapsed == NULL || g->orders == NULL || g->suborders == NULL) {
        CM_ERR(err, CM_ERR_NOMEM, "out of memory");
        return NULL;
    }
    return g;
}

static void stats_free(an_stat_t *s, size_t n)
{
    for (size_t i = 0; s != NULL && i < n; i++)
        an_stat_free(&s[i]);
    free(s);
}

static void group_free(const an_defs_t *d, op_group_t *g)
{
    size_t nt = (size_t)d->nthreads, nn = (size_t)d->nnodes;

    free(g->created);
    stats_free(g->wrapper, nn * WM_N);
    stats_free(g->contrib, (size_t)d->nslots * CM_N);
    stats_free(g->total, nt * TT_N);
    stats_free(g->sub, nn * SD_N);
    stats_free(g->subth, nn * nt * CM_N);
    stats_free(g->pap, PAP_N);
    stats_free(g->elapsed, nt);
    an_stat_free(&g->oneway);
    free(g->orders);
    free(g->suborders);
}

/* Adds a sample; the first failure sticks in *st. */
static void add(an_stat_t *s, double v, cm_status_t *st)
{
    cm_status_t r = an_stat_add(s, v);

    if (r != CM_OK && *st == CM_OK)
        *st = r;
}

/* -------------------------------------------------------------- metrics */

/*
 * 1-based ranks of t[0..n) (ties by index) into rank[], through idx[] when
 * not NULL (t[idx[k]]).
 */
static void rank_times(const int64_t *t, const int *idx, int n, int stride_is_idx, int *rank)
{
    for (int i = 0; i < n; i++) {
        int64_t ti = stride_is_idx ? t[idx[i]] : t[i];
        int r = 1;
        for (int j = 0; j < n; j++) {
            int64_t tj = stride_is_idx ? t[idx[j]] : t[j];
            r += tj < ti || (tj == ti && j < i);
        }
        rank[i] = r;
    }
}

/* Orders, waits and latencies of each wrapper; visit rows; wrapper statistics. */
static cm_status_t op_wrappers(an_ops_t *o, op_buf_t *b, op_group_t *g)
{
    const an_defs_t *d = o->d;
    cm_status_t st = CM_OK;

    for (int n = 0; n < d->nnodes; n++) {
        const an_wrapper_t *w = &d->nodes[n];
        int s0 = w->slot0, P = w->fanin, l = 0, f = 0;
        int64_t t2 = 0, t3 = 0;

        if (w->parent >= 0) {
            int ps = d->nodes[w->parent].slot0 + w->pslot;
            t2 = b->t1[ps];
            t3 = b->t4[ps];
        }
        o->t2[n] = t2;
        o->t3[n] = t3;
        rank_times(b->t1 + s0, NULL, P, 0, o->arr + s0);
        rank_times(b->t4 + s0, NULL, P, 0, o->dep + s0);
        for (int c = 0; c < P; c++) {
            if (o->arr[s0 + c] == P)
                l = c;
            if (o->dep[s0 + c] == 1)
                f = c;
        }
        for (int c = 0; c < P; c++) {
            o->aw[s0 + c] = b->t1[s0 + l] - b->t1[s0 + c];
            o->dw[s0 + c] = b->t4[s0 + c] - b->t4[s0 + f];
        }
        if (w->kind == AN_CORE) {
            o->down[n] = (double)(b->t4[s0] - b->t1[s0]);
            o->up[n] = 0;
        } else if (w->kind == AN_PROXY) {
            o->down[n] = o->up[n] = (double)((b->t4[s0] - b->t1[s0]) - (t3 - t2)) / 2;
        } else {
            o->down[n] = (double)(t2 - b->t1[s0 + l]);
            o->up[n] = (double)(b->t4[s0 + f] - t3);
        }
        for (int c = 0; c < P && st == CM_OK; c++) {
            an_visit_t v = { b->instance, n, c, b->loc[s0 + c], b->op, b->bytes,
                             b->t1[s0 + c], b->t4[s0 + c] };
            st = an_db_visit(o->db, &v, t2, t3, w->kind != AN_CORE, o->arr[s0 + c],
                             o->dep[s0 + c], o->aw[s0 + c], o->dw[s0 + c]);
        }
        if (st != CM_OK || !b->used)
            continue;
        an_stat_t *ws = &g->wrapper[(size_t)n * WM_N];
        if (w->kind == AN_CORE) {
            add(&ws[WM_LATENCY], o->down[n], &st);
        } else {
            add(&ws[WM_DOWN], o->down[n], &st);
            add(&ws[WM_UP], o->up[n], &st);
        }
        if (w->kind == AN_PROXY) {
            add(&ws[WM_LATENCY], o->down[n] * 2, &st);
            add(&g->oneway, o->down[n], &st);
        }
        for (int c = 0; c < P; c++) {
            int s = s0 + c;
            double lat = w->kind == AN_CORE ? (double)(b->t4[s] - b->t1[s])
                                            : (double)((b->t4[s] - b->t1[s]) - (t3 - t2));
            an_stat_t *cs = &g->contrib[(size_t)s * CM_N];
            add(&cs[CM_AW], (double)o->aw[s], &st);
            add(&cs[CM_DW], (double)o->dw[s], &st);
            add(&cs[CM_LAT], lat, &st);
            if (w->kind == AN_GRED) {
                add(&ws[WM_LATENCY], lat, &st);
                add(&ws[WM_ARRIVAL_WAIT], (double)o->aw[s], &st);
                add(&ws[WM_DEPARTURE_WAIT], (double)o->dw[s], &st);
            }
            g->orders[o->order_off[n] + ((size_t)c * (size_t)P + (size_t)(o->arr[s] - 1))
                      * (size_t)P + (size_t)(o->dep[s] - 1)]++;
        }
    }
    return st;
}

/*
 * Each thread's time per allreduce, with and without its arrival waits.  A
 * thread's stages need no series of their own: at a gred its down and up are
 * the gred's, its waits those of the contributor it comes through, at a
 * proxy or the core the wrapper's - the same samples of the same operations,
 * so finish_group summarises those series under the thread's name.
 */
static cm_status_t op_threads(an_ops_t *o, op_buf_t *b, op_group_t *g)
{
    const an_defs_t *d = o->d;
    cm_status_t st = CM_OK;

    for (int t = 0; t < d->nthreads; t++) {
        const an_thread_t *th = &d->threads[t];
        int e = d->nodes[th->node[0]].slot0 + th->contrib[0];
        double total = (double)(b->t4[e] - b->t1[e]), waits = 0;

        for (int s = 0; s < th->nsteps; s++)
            if (d->nodes[th->node[s]].kind == AN_GRED)
                waits += (double)o->aw[d->nodes[th->node[s]].slot0 + th->contrib[s]];
        add(&g->total[(size_t)t * TT_N + TT_TOTAL], total, &st);
        add(&g->total[(size_t)t * TT_N + TT_NO_WAIT], total - waits, &st);
    }
    return st;
}

/* Sum of the wrapper-level down (or up) latencies on thread t's path below r. */
static double path_sum(const an_ops_t *o, int t, int r, const double *lat)
{
    const an_defs_t *d = o->d;
    const an_thread_t *th = &d->threads[t];
    double sum = 0;

    for (int s = 0; s < th->nsteps; s++) {
        int n = th->node[s];
        if (n == r && d->nodes[r].kind == AN_CORE)
            break;
        sum += lat[n];
        if (n == r)
            break;
    }
    return sum;
}

/* Subtrees rooted at each gred and at the core (statistics only). */
static cm_status_t op_subtrees(an_ops_t *o, op_buf_t *b, op_group_t *g)
{
    const an_defs_t *d = o->d;
    size_t nt = (size_t)d->nthreads;
    cm_status_t st = CM_OK;

    for (int r = 0; r < d->nnodes; r++) {
        const an_wrapper_t *w = &d->nodes[r];
        int P = w->nbelow, l = 0, f = 0;
        int64_t t2, t3;

        if (w->kind == AN_PROXY)
            continue;
        if (w->kind == AN_CORE) {
            t2 = b->t1[w->slot0];
            t3 = b->t4[w->slot0];
        } else {
            t2 = o->t2[r];
            t3 = o->t3[r];
        }
        for (int k = 0; k < P; k++) {
            o->st1[k] = o->a[w->below[k]];
            o->st4[k] = o->f[w->below[k]];
        }
        rank_times(o->st1, NULL, P, 0, o->sarr);
        rank_times(o->st4, NULL, P, 0, o->sdep);
        for (int k = 0; k < P; k++) {
            if (o->sarr[k] == P)
                l = k;
            if (o->sdep[k] == 1)
                f = k;
        }
        add(&g->sub[(size_t)r * SD_N + SD_DOWN], path_sum(o, w->below[l], r, o->down), &st);
        add(&g->sub[(size_t)r * SD_N + SD_UP], path_sum(o, w->below[f], r, o->up), &st);
        for (int k = 0; k < P; k++) {
            an_stat_t *s = &g->subth[((size_t)r * nt + (size_t)w->below[k]) * CM_N];
            add(&s[CM_AW], (double)(o->st1[l] - o->st1[k]), &st);
            add(&s[CM_DW], (double)(o->st4[k] - o->st4[f]), &st);
            add(&s[CM_LAT], (double)((o->st4[k] - o->st1[k]) - (t3 - t2)), &st);
            if (o->sub_off[r] != SIZE_MAX)
                g->suborders[o->sub_off[r] + ((size_t)k * (size_t)P + (size_t)(o->sarr[k] - 1))
                             * (size_t)P + (size_t)(o->sdep[k] - 1)]++;
        }
    }
    return st;
}

/* Arrival and exit patterns at the tree's entry (Proficz 2018, section 3). */
static cm_status_t op_pap(an_ops_t *o, op_buf_t *b, op_group_t *g)
{
    const an_defs_t *d = o->d;
    int64_t t0 = INT64_MAX, amax = INT64_MIN, hmin = INT64_MAX, hmax = INT64_MIN;
    double elapsed = 0;
    cm_status_t st = CM_OK;

    for (int h = 0; h < d->nhosts; h++)
        o->ha[h] = o->hf[h] = INT64_MIN;
    for (int t = 0; t < d->nthreads; t++) {
        const an_thread_t *th = &d->threads[t];
        int e = d->nodes[th->node[0]].slot0 + th->contrib[0];
        o->a[t] = b->t1[e];
        o->f[t] = b->t4[e];
        t0 = o->a[t] < t0 ? o->a[t] : t0;
        amax = o->a[t] > amax ? o->a[t] : amax;
        o->ha[th->host] = o->a[t] > o->ha[th->host] ? o->a[t] : o->ha[th->host];
        o->hf[th->host] = o->f[t] > o->hf[th->host] ? o->f[t] : o->hf[th->host];
        elapsed += (double)(o->f[t] - o->a[t]);
        if (b->used)
            add(&g->elapsed[t], (double)(o->f[t] - o->a[t]), &st);
    }
    for (int h = 0; h < d->nhosts && st == CM_OK; h++) {
        if (o->ha[h] == INT64_MIN)
            continue;                     /* a host without threads of this tree */
        hmin = o->ha[h] < hmin ? o->ha[h] : hmin;
        hmax = o->ha[h] > hmax ? o->ha[h] : hmax;
        st = an_db_pap_host(o->db, b->instance, b->op, h, o->ha[h] - t0, o->hf[h] - t0);
    }
    elapsed /= d->nthreads;
    if (st == CM_OK)
        st = an_db_op(o->db, b->instance, b->op, b->bytes, b->used, t0, amax - t0,
                      hmax - hmin, elapsed);
    if (st == CM_OK && b->used) {
        add(&g->pap[PAP_AVG], elapsed, &st);
        add(&g->pap[PAP_SPREAD], (double)(amax - t0), &st);
        add(&g->pap[PAP_HOST_SPREAD], (double)(hmax - hmin), &st);
    }
    return st;
}

static cm_status_t op_complete(an_ops_t *o, op_buf_t *b, cm_err_t *err)
{
    op_group_t *g = group_of(o, b->bytes, err);
    cm_status_t st;

    if (g == NULL)
        return err->status;
    st = op_pap(o, b, g);
    if (st == CM_OK)
        st = op_wrappers(o, b, g);
    if (st == CM_OK && b->used)
        st = op_threads(o, b, g);
    if (st == CM_OK && b->used)
        st = op_subtrees(o, b, g);
    if (st != CM_OK)
        return CM_ERR(err, st, "writing operation %" PRIu64 " of instance %d: %s", b->op,
                      b->instance, st == CM_ERR_NOMEM ? "out of memory" : an_db_errmsg(o->db));
    o->nops++;
    o->nused += (uint64_t)b->used;
    return CM_OK;
}

cm_status_t an_ops_visit(void *ud, const an_visit_t *v, cm_err_t *err)
{
    an_ops_t *o = ud;
    const an_defs_t *d = o->d;
    op_buf_t *b = op_get(o, v, err);
    int s = d->nodes[v->node].slot0 + v->contrib;
    op_ring_t *r = &o->rings[v->instance];
    cm_status_t st;

    if (b == NULL)
        return err->status;
    if (b->loc[s] >= 0 || b->bytes != v->bytes)
        return CM_ERR(err, CM_ERR_INVALID, "%s#%d op %" PRIu64 ": %s by '%s' %s: the trace "
                      "is damaged", d->nodes[v->node].name, v->instance, v->op,
                      b->loc[s] >= 0 ? "visited twice" : "a visit with another tuple size",
                      d->locs[v->loc].name, b->loc[s] >= 0 ? "for the same contributor" : "");
    b->t1[s] = v->t1;
    b->t4[s] = v->t4;
    b->loc[s] = v->loc;
    if (++b->nfilled < d->nslots)
        return CM_OK;
    st = op_complete(o, b, err);
    r->slot[b->op & (r->size - 1)] = NULL;
    b->next_free = o->free_list;
    o->free_list = b;
    o->inflight--;
    return st;
}

/* ------------------------------------------------------------- creation */

cm_status_t an_ops_create(const an_defs_t *d, an_db_t *db, uint64_t skip, an_ops_t **out,
                          cm_err_t *err)
{
    an_ops_t *o = calloc(1, sizeof(*o));
    size_t ns = (size_t)d->nslots, nn = (size_t)d->nnodes, nt = (size_t)d->nthreads;
    int ok;

    *out = NULL;
    if (o == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    o->d = d;
    o->db = db;
    o->skip = skip;
    o->rings = calloc((size_t)d->ninstances, sizeof(*o->rings));
    o->order_off = calloc(nn, sizeof(size_t));
    o->sub_off = calloc(nn, sizeof(size_t));
    o->arr = calloc(ns, sizeof(int));
    o->dep = calloc(ns, sizeof(int));
    o->aw = calloc(ns, sizeof(int64_t));
    o->dw = calloc(ns, sizeof(int64_t));
    o->t2 = calloc(nn, sizeof(int64_t));
    o->t3 = calloc(nn, sizeof(int64_t));
    o->down = calloc(nn, sizeof(double));
    o->up = calloc(nn, sizeof(double));
    o->sarr = calloc(nt, sizeof(int));
    o->sdep = calloc(nt, sizeof(int));
    o->a = calloc(nt, sizeof(int64_t));
    o->f = calloc(nt, sizeof(int64_t));
    o->st1 = calloc(nt, sizeof(int64_t));
    o->st4 = calloc(nt, sizeof(int64_t));
    o->ha = calloc((size_t)d->nhosts, sizeof(int64_t));
    o->hf = calloc((size_t)d->nhosts, sizeof(int64_t));
    ok = o->rings && o->order_off && o->sub_off && o->arr && o->dep && o->aw && o->dw && o->t2
         && o->t3 && o->down && o->up && o->sarr && o->sdep && o->a && o->f && o->st1 && o->st4
         && o->ha && o->hf;
    for (int i = 0; ok && i < d->ninstances; i++) {
        o->rings[i].size = 64;
        ok = (o->rings[i].slot = calloc(64, sizeof(op_buf_t *))) != NULL;
    }
    if (!ok) {
        an_ops_free(o);
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    }
    for (size_t n = 0; n < nn; n++) {
        size_t P = (size_t)d->nodes[n].fanin, B = (size_t)d->nodes[n].nbelow;
        o->order_off[n] = o->norders;
        o->norders += P * P * P;
        o->sub_off[n] = SIZE_MAX;
        if (d->nodes[n].kind != AN_PROXY && B <= SUB_ORDERS_MAX) {
            o->sub_off[n] = o->nsuborders;
            o->nsuborders += B * B * B;
        }
    }
    *out = o;
    return CM_OK;
}

/* ------------------------------------------------------------- finishing */

static cm_status_t put(an_ops_t *o, const char *scope, int node, int contrib, int thread,
                       const char *metric, uint64_t bytes, an_stat_t *s)
{
    return s->n == 0 ? CM_OK : an_db_stat(o->db, scope, node, contrib, thread, metric, bytes, s);
}

static cm_status_t finish_group(an_ops_t *o, op_group_t *g)
{
    const an_defs_t *d = o->d;
    size_t nt = (size_t)d->nthreads;
    cm_status_t st = CM_OK;

    for (int n = 0; n < d->nnodes; n++) {
        const an_wrapper_t *w = &d->nodes[n];
        for (int m = 0; m < WM_N && st == CM_OK; m++)
            st = put(o, "wrapper", n, AN_NULL, AN_NULL, wm_names[m], g->bytes,
                     &g->wrapper[(size_t)n * WM_N + (size_t)m]);
        for (int c = 0; c < w->fanin; c++) {
            for (int m = 0; m < CM_N && st == CM_OK; m++)
                st = put(o, "contributor", n, c, AN_NULL, cm_names[m], g->bytes,
                         &g->contrib[(size_t)(w->slot0 + c) * CM_N + (size_t)m]);
            for (int a = 0; a < w->fanin && st == CM_OK; a++)
                for (int p = 0; p < w->fanin && st == CM_OK; p++) {
                    uint64_t k = g->orders[o->order_off[n]
                                           + ((size_t)c * (size_t)w->fanin + (size_t)a)
                                             * (size_t)w->fanin + (size_t)p];
                    if (k > 0)
                        st = an_db_order(o->db, 0, n, c, a + 1, p + 1, g->bytes, k);
                }
        }
        if (w->kind == AN_PROXY)
            continue;
        for (int m = 0; m < SD_N && st == CM_OK; m++)
            st = put(o, "subtree", n, AN_NULL, AN_NULL, sd_names[m], g->bytes,
                     &g->sub[(size_t)n * SD_N + (size_t)m]);
        for (int k = 0; k < w->nbelow && st == CM_OK; k++) {
            int t = w->below[k];
            for (int m = 0; m < CM_N && st == CM_OK; m++)
                st = put(o, "subtree", n, AN_NULL, d->threads[t].id, cm_names[m], g->bytes,
                         &g->subth[((size_t)n * nt + (size_t)t) * CM_N + (size_t)m]);
            for (int a = 0; o->sub_off[n] != SIZE_MAX && a < w->nbelow && st == CM_OK; a++)
                for (int p = 0; p < w->nbelow && st == CM_OK; p++) {
                    uint32_t c = g->suborders[o->sub_off[n]
                                              + ((size_t)k * (size_t)w->nbelow + (size_t)a)
                                                * (size_t)w->nbelow + (size_t)p];
                    if (c > 0)
                        st = an_db_order(o->db, 1, n, d->threads[t].id, a + 1, p + 1,
                                         g->bytes, c);
                }
        }
    }
    for (int t = 0; t < d->nthreads && st == CM_OK; t++) {
        const an_thread_t *th = &d->threads[t];
        for (int s = 0; s < th->nsteps && st == CM_OK; s++) {
            int n = th->node[s], slot = d->nodes[n].slot0 + th->contrib[s];
            an_stat_t *ws = &g->wrapper[(size_t)n * WM_N], *cs = &g->contrib[(size_t)slot * CM_N];
            if (d->nodes[n].kind == AN_CORE) {
                st = put(o, "thread", n, AN_NULL, th->id, "latency", g->bytes, &ws[WM_LATENCY]);
                continue;
            }
            st = put(o, "thread", n, AN_NULL, th->id, ts_names[TS_DOWN], g->bytes, &ws[WM_DOWN]);
            if (st == CM_OK && d->nodes[n].kind == AN_GRED)
                st = put(o, "thread", n, AN_NULL, th->id, ts_names[TS_AW], g->bytes, &cs[CM_AW]);
            if (st == CM_OK)
                st = put(o, "thread", n, AN_NULL, th->id, ts_names[TS_UP], g->bytes, &ws[WM_UP]);
            if (st == CM_OK && d->nodes[n].kind == AN_GRED)
                st = put(o, "thread", n, AN_NULL, th->id, ts_names[TS_DW], g->bytes, &cs[CM_DW]);
        }
        for (int m = 0; m < TT_N && st == CM_OK; m++)
            st = put(o, "thread", AN_NULL, AN_NULL, th->id, tt_names[m], g->bytes,
                     &g->total[(size_t)t * TT_N + (size_t)m]);
        if (st == CM_OK)
            st = put(o, "pap", AN_NULL, AN_NULL, th->id, "elapsed", g->bytes, &g->elapsed[t]);
    }
    for (int m = 0; m < PAP_N && st == CM_OK; m++)
        st = put(o, "pap", AN_NULL, AN_NULL, AN_NULL, pap_names[m], g->bytes, &g->pap[m]);
    return st;
}

/* The point-to-point time of a tuple size: proxies, else the clock sync. */
static cm_status_t finish_p2p(an_ops_t *o, op_group_t *g)
{
    const an_defs_t *d = o->d;
    double best = INFINITY;

    if (g->oneway.n > 0)
        return an_db_p2p(o->db, g->bytes, an_stat_quantile(&g->oneway, 0.5), "proxy");
    for (int h = 1; h < d->nhosts; h++)
        if (d->hosts[h].have_offset && d->hosts[h].error_ns > 0 && d->hosts[h].error_ns < best)
            best = d->hosts[h].error_ns;
    return an_db_p2p(o->db, g->bytes, isinf(best) ? NAN : best,
                     isinf(best) ? "none" : "clock-sync");
}

cm_status_t an_ops_finish(an_ops_t *o, cm_err_t *err)
{
    cm_status_t st = CM_OK;

    for (int i = 0; i < o->d->ninstances; i++)
        for (uint32_t k = 0; k < o->rings[i].size; k++) {
            op_buf_t *b = o->rings[i].slot[k];
            if (b != NULL)
                return CM_ERR(err, CM_ERR_INVALID, "operation %" PRIu64 " of instance %d "
                              "has %d of its %d visits: the trace is incomplete", b->op, i,
                              b->nfilled, o->d->nslots);
        }
    for (int i = 0; i < o->ngroups && st == CM_OK; i++) {
        st = finish_group(o, &o->groups[i]);
        if (st == CM_OK)
            st = finish_p2p(o, &o->groups[i]);
    }
    if (st != CM_OK)
        return CM_ERR(err, st, "writing statistics: %s",
                      st == CM_ERR_NOMEM ? "out of memory" : an_db_errmsg(o->db));
    return CM_OK;
}

uint64_t an_ops_count(const an_ops_t *o, uint64_t *used)
{
    if (used != NULL)
        *used = o->nused;
    return o->nops;
}

void an_ops_free(an_ops_t *o)
{
    if (o == NULL)
        return;
    for (int i = 0; o->rings != NULL && i < o->d->ninstances; i++) {
        for (uint32_t k = 0; k < o->rings[i].size && o->rings[i].slot != NULL; k++)
            free(o->rings[i].slot[k]);
        free(o->rings[i].slot);
    }
    while (o->free_list != NULL) {
        op_buf_t *b = o->free_list;
        o->free_list = b->next_free;
        free(b);
    }
    for (int i = 0; i < o->ngroups; i++)
        group_free(o->d, &o->groups[i]);
    free(o->groups);
    free(o->rings);
    free(o->order_off);
    free(o->sub_off);
    free(o->arr);
    free(o->dep);
    free(o->aw);
    free(o->dw);
    free(o->t2);
    free(o->t3);
    free(o->down);
    free(o->up);
    free(o->sarr);
    free(o->sdep);
    free(o->a);
    free(o->f);
    free(o->st1);
    free(o->st4);
    free(o->ha);
    free(o->hf);
    free(o);
}
