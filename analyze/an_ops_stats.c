/*
 * an_ops_stats.c - the series of the statistics: one group per tuple size,
 * with one an_stat_t per series (docs/analysis-db.md, stats) and the order
 * counts of every gred and subtree.  Each used operation adds its samples;
 * at the end every series becomes a stats row, every non-zero order count an
 * orders or subtree_orders row, and each tuple size gets its p2p row.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/an_ops_int.h"
#include "analyze/an_tally_int.h"


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

/* Statistics of one tuple size. */
struct an_group {
    uint64_t   bytes;
    uint64_t  *created;         /* [ninstances] operations seen, for --skip */
    an_stat_t *wrapper;         /* [nnodes][WM_N] */
    an_stat_t *contrib;         /* [nslots][CM_N] */
    an_stat_t *total;           /* [nthreads][TT_N] */
    an_stat_t *sub;             /* [nnodes][SD_N] */
    an_stat_t *subth;           /* [nnodes][nthreads][CM_N] */
    an_stat_t *pap;             /* [PAP_N] */
    an_stat_t *elapsed;         /* [nthreads] */
    an_tally_t oneway;          /* proxies' wrapper latency / 2: p2p, their exact median */
    an_tally_t msgs;            /* an algorithm node's tuple-size messages' transfer times */
    uint64_t  *orders;          /* per node: [fanin][fanin][fanin] from order_off */
    uint32_t  *suborders;       /* per node: [nbelow]^3 from sub_off, if nbelow <= max */
    const an_series_t *series;
};

struct an_series {
    const an_defs_t *d;
    an_group_t *groups;
    int         ngroups;
    size_t     *order_off, norders;    /* per node */
    size_t     *sub_off, nsuborders;   /* per node, SIZE_MAX if none */
};

/* ------------------------------------------------------------- the groups */

cm_status_t an__series_create(const an_defs_t *d, an_series_t **out)
{
    an_series_t *s = calloc(1, sizeof(*s));
    size_t nn = (size_t)d->nnodes;

    *out = NULL;
    if (s == NULL)
        return CM_ERR_NOMEM;
    s->d = d;
    s->order_off = calloc(nn, sizeof(size_t));
    s->sub_off = calloc(nn, sizeof(size_t));
    if (s->order_off == NULL || s->sub_off == NULL) {
        an__series_free(s);
        return CM_ERR_NOMEM;
    }
    for (size_t n = 0; n < nn; n++) {
        size_t P = (size_t)d->nodes[n].fanin, B = (size_t)d->nodes[n].nbelow;
        s->order_off[n] = s->norders;
        s->norders += P * P * P;
        s->sub_off[n] = SIZE_MAX;
        if (d->nodes[n].kind != CM_KIND_PROXY && B <= AN_SUBTREE_ORDERS_MAX) {
            s->sub_off[n] = s->nsuborders;
            s->nsuborders += B * B * B;
        }
    }
    *out = s;
    return CM_OK;
}

static an_stat_t *stats_new(size_t n)
{
    return calloc(n > 0 ? n : 1, sizeof(an_stat_t));
}

an_group_t *an__series_group(an_series_t *s, uint64_t bytes, cm_err_t *err)
{
    const an_defs_t *d = s->d;
    size_t nt = (size_t)d->nthreads, nn = (size_t)d->nnodes;
    an_group_t *g, *groups;

    for (int i = 0; i < s->ngroups; i++)
        if (s->groups[i].bytes == bytes)
            return &s->groups[i];
    if ((groups = realloc(s->groups, (size_t)(s->ngroups + 1) * sizeof(*groups))) == NULL) {
        CM_ERR(err, CM_ERR_NOMEM, "out of memory");
        return NULL;
    }
    s->groups = groups;
    g = &groups[s->ngroups];
    memset(g, 0, sizeof(*g));
    g->series = s;
    g->bytes = bytes;
    g->created = calloc((size_t)d->ninstances, sizeof(uint64_t));
    g->wrapper = stats_new(nn * WM_N);
    g->contrib = stats_new((size_t)d->nslots * CM_N);
    g->total = stats_new(nt * TT_N);
    g->sub = stats_new(nn * SD_N);
    g->subth = stats_new(nn * nt * CM_N);
    g->pap = stats_new(PAP_N);
    g->elapsed = stats_new(nt);
    g->orders = calloc(s->norders + 1, sizeof(uint64_t));
    g->suborders = calloc(s->nsuborders + 1, sizeof(uint32_t));
    s->ngroups++;
    if (g->created == NULL || g->wrapper == NULL || g->contrib == NULL
        || g->total == NULL || g->sub == NULL || g->subth == NULL || g->pap == NULL
        || g->elapsed == NULL || g->orders == NULL || g->suborders == NULL) {
        CM_ERR(err, CM_ERR_NOMEM, "out of memory");
        return NULL;
    }
    return g;
}

uint64_t an__group_count_op(an_group_t *g, int instance)
{
    return g->created[instance]++;
}

static void stats_free(an_stat_t *s, size_t n)
{
    for (size_t i = 0; s != NULL && i < n; i++)
        an_stat_free(&s[i]);
    free(s);
}

static void group_free(const an_defs_t *d, an_group_t *g)
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
    an_tally_free(&g->oneway);
    an_tally_free(&g->msgs);
    free(g->orders);
    free(g->suborders);
}

void an__series_free(an_series_t *s)
{
    if (s == NULL)
        return;
    for (int i = 0; i < s->ngroups; i++)
        group_free(s->d, &s->groups[i]);
    free(s->groups);
    free(s->order_off);
    free(s->sub_off);
    free(s);
}

/* ------------------------------------------------------------- the samples */

/* Adds a sample; the first failure sticks in *st. */
static void add(an_stat_t *s, double v, cm_status_t *st)
{
    cm_status_t r = an_stat_add(s, v);

    if (r != CM_OK && *st == CM_OK)
        *st = r;
}

/* Keeps a one-way time: p2p is their exact median, not a histogram's. */
static void add_oneway(an_group_t *g, double v, cm_status_t *st)
{
    cm_status_t r = an_tally_add(&g->oneway, v);

    if (r != CM_OK && *st == CM_OK)
        *st = r;
}

cm_status_t an__group_add_msg(an_group_t *g, double ns)
{
    return an_tally_add(&g->msgs, ns);
}

/* Wrapper n's series and order counts. */
static void add_wrapper(an_group_t *g, const an_defs_t *d, const op_buf_t *b,
                        const an_metrics_t *m, int n, cm_status_t *st)
{
    const an_wrapper_t *w = &d->nodes[n];
    int s0 = w->slot0, P = w->fanin;
    int64_t t2 = m->t2[n], t3 = m->t3[n];
    an_stat_t *ws = &g->wrapper[(size_t)n * WM_N];

    if (w->kind == CM_KIND_CORE) {
        add(&ws[WM_LATENCY], m->down[n], st);
    } else if (w->kind != CM_KIND_ALGO) {
        add(&ws[WM_DOWN], m->down[n], st);
        add(&ws[WM_UP], m->up[n], st);
    }
    if (w->kind == CM_KIND_PROXY) {
        add(&ws[WM_LATENCY], m->down[n] * 2, st);
        add_oneway(g, m->down[n], st);
    }
    for (int c = 0; c < P; c++) {
        int s = s0 + c;
        double lat = w->kind == CM_KIND_CORE || w->kind == CM_KIND_ALGO
                     ? (double)(b->t4[s] - b->t1[s])
                     : (double)((b->t4[s] - b->t1[s]) - (t3 - t2));
        an_stat_t *cs = &g->contrib[(size_t)s * CM_N];
        add(&cs[CM_AW], (double)m->aw[s], st);
        add(&cs[CM_DW], (double)m->dw[s], st);
        add(&cs[CM_LAT], lat, st);
        if (w->kind == CM_KIND_GRED || w->kind == CM_KIND_ALGO) {
            add(&ws[WM_LATENCY], lat, st);
            add(&ws[WM_ARRIVAL_WAIT], (double)m->aw[s], st);
            add(&ws[WM_DEPARTURE_WAIT], (double)m->dw[s], st);
        }
        g->orders[g->series->order_off[n] + ((size_t)c * (size_t)P + (size_t)(m->arr[s] - 1))
                  * (size_t)P + (size_t)(m->dep[s] - 1)]++;
    }
}

/* The subtree rooted at r's series and order counts. */
static void add_subtree(an_group_t *g, const an_defs_t *d, const an_subtree_t *sub, int r,
                        cm_status_t *st)
{
    const an_wrapper_t *w = &d->nodes[r];
    size_t nt = (size_t)d->nthreads, off = g->series->sub_off[r];
    int P = w->nbelow;

    add(&g->sub[(size_t)r * SD_N + SD_DOWN], sub->down, st);
    add(&g->sub[(size_t)r * SD_N + SD_UP], sub->up, st);
    for (int k = 0; k < P; k++) {
        an_stat_t *s = &g->subth[((size_t)r * nt + (size_t)w->below[k]) * CM_N];
        add(&s[CM_AW], (double)sub->aw[k], st);
        add(&s[CM_DW], (double)sub->dw[k], st);
        add(&s[CM_LAT], sub->latency[k], st);
        if (off != SIZE_MAX)
            g->suborders[off + ((size_t)k * (size_t)P + (size_t)(sub->arr[k] - 1))
                         * (size_t)P + (size_t)(sub->dep[k] - 1)]++;
    }
}

/*
 * A thread's stages need no series of their own: at a gred its down and up
 * are the gred's, its waits those of the contributor it comes through, at a
 * proxy or the core the wrapper's - the same samples of the same operations,
 * so write_group summarises those series under the thread's name.
 */
cm_status_t an__group_add(an_group_t *g, const an_defs_t *d, const op_buf_t *b,
                          const an_metrics_t *m, an_subtree_t *sub)
{
    cm_status_t st = CM_OK;

    for (int t = 0; t < d->nthreads; t++)
        add(&g->elapsed[t], (double)(m->f[t] - m->a[t]), &st);
    add(&g->pap[PAP_AVG], m->avg_elapsed, &st);
    add(&g->pap[PAP_SPREAD], (double)m->arrival_spread, &st);
    add(&g->pap[PAP_HOST_SPREAD], (double)m->host_spread, &st);
    for (int n = 0; n < d->nnodes; n++)
        add_wrapper(g, d, b, m, n, &st);
    for (int t = 0; t < d->nthreads; t++) {
        add(&g->total[(size_t)t * TT_N + TT_TOTAL], m->total[t], &st);
        add(&g->total[(size_t)t * TT_N + TT_NO_WAIT], m->no_wait[t], &st);
    }
    for (int r = 0; r < d->nnodes; r++) {
        if (d->nodes[r].kind == CM_KIND_PROXY)
            continue;
        an__metrics_subtree(d, b, m, r, sub);
        add_subtree(g, d, sub, r, &st);
    }
    return st;
}

/* ----------------------------------------------------------------- rows */

static cm_status_t put(an_db_t *db, const char *scope, int node, int contrib, int thread,
                       const char *metric, uint64_t bytes, an_stat_t *s)
{
    return s->n == 0 ? CM_OK : an_db_stat(db, scope, node, contrib, thread, metric, bytes, s);
}

static cm_status_t write_group(const an_series_t *se, an_group_t *g, an_db_t *db)
{
    const an_defs_t *d = se->d;
    size_t nt = (size_t)d->nthreads;
    cm_status_t st = CM_OK;

    for (int n = 0; n < d->nnodes; n++) {
        const an_wrapper_t *w = &d->nodes[n];
        for (int m = 0; m < WM_N && st == CM_OK; m++)
            st = put(db, "wrapper", n, AN_NULL, AN_NULL, wm_names[m], g->bytes,
                     &g->wrapper[(size_t)n * WM_N + (size_t)m]);
        for (int c = 0; c < w->fanin; c++) {
            for (int m = 0; m < CM_N && st == CM_OK; m++)
                st = put(db, "contributor", n, c, AN_NULL, cm_names[m], g->bytes,
                         &g->contrib[(size_t)(w->slot0 + c) * CM_N + (size_t)m]);
            for (int a = 0; a < w->fanin && st == CM_OK; a++)
                for (int p = 0; p < w->fanin && st == CM_OK; p++) {
                    uint64_t k = g->orders[se->order_off[n]
                                           + ((size_t)c * (size_t)w->fanin + (size_t)a)
                                             * (size_t)w->fanin + (size_t)p];
                    if (k > 0)
                        st = an_db_order(db, 0, n, c, a + 1, p + 1, g->bytes, k);
                }
        }
        if (w->kind == CM_KIND_PROXY)
            continue;
        for (int m = 0; m < SD_N && st == CM_OK; m++)
            st = put(db, "subtree", n, AN_NULL, AN_NULL, sd_names[m], g->bytes,
                     &g->sub[(size_t)n * SD_N + (size_t)m]);
        for (int k = 0; k < w->nbelow && st == CM_OK; k++) {
            int t = w->below[k];
            for (int m = 0; m < CM_N && st == CM_OK; m++)
                st = put(db, "subtree", n, AN_NULL, d->threads[t].id, cm_names[m], g->bytes,
                         &g->subth[((size_t)n * nt + (size_t)t) * CM_N + (size_t)m]);
            for (int a = 0; se->sub_off[n] != SIZE_MAX && a < w->nbelow && st == CM_OK; a++)
                for (int p = 0; p < w->nbelow && st == CM_OK; p++) {
                    uint32_t c = g->suborders[se->sub_off[n]
                                              + ((size_t)k * (size_t)w->nbelow + (size_t)a)
                                                * (size_t)w->nbelow + (size_t)p];
                    if (c > 0)
                        st = an_db_order(db, 1, n, d->threads[t].id, a + 1, p + 1,
                                         g->bytes, c);
                }
        }
    }
    for (int t = 0; t < d->nthreads && st == CM_OK; t++) {
        const an_thread_t *th = &d->threads[t];
        for (int s = 0; s < th->nsteps && st == CM_OK; s++) {
            int n = th->node[s], slot = d->nodes[n].slot0 + th->contrib[s];
            an_stat_t *ws = &g->wrapper[(size_t)n * WM_N], *cs = &g->contrib[(size_t)slot * CM_N];
            if (d->nodes[n].kind == CM_KIND_CORE) {
                st = put(db, "thread", n, AN_NULL, th->id, "latency", g->bytes, &ws[WM_LATENCY]);
                continue;
            }
            if (d->nodes[n].kind == CM_KIND_ALGO) {     /* its host's visit */
                st = put(db, "thread", n, AN_NULL, th->id, "latency", g->bytes, &cs[CM_LAT]);
                continue;
            }
            st = put(db, "thread", n, AN_NULL, th->id, ts_names[TS_DOWN], g->bytes, &ws[WM_DOWN]);
            if (st == CM_OK && d->nodes[n].kind == CM_KIND_GRED)
                st = put(db, "thread", n, AN_NULL, th->id, ts_names[TS_AW], g->bytes, &cs[CM_AW]);
            if (st == CM_OK)
                st = put(db, "thread", n, AN_NULL, th->id, ts_names[TS_UP], g->bytes, &ws[WM_UP]);
            if (st == CM_OK && d->nodes[n].kind == CM_KIND_GRED)
                st = put(db, "thread", n, AN_NULL, th->id, ts_names[TS_DW], g->bytes, &cs[CM_DW]);
        }
        for (int m = 0; m < TT_N && st == CM_OK; m++)
            st = put(db, "thread", AN_NULL, AN_NULL, th->id, tt_names[m], g->bytes,
                     &g->total[(size_t)t * TT_N + (size_t)m]);
        if (st == CM_OK)
            st = put(db, "pap", AN_NULL, AN_NULL, th->id, "elapsed", g->bytes, &g->elapsed[t]);
    }
    for (int m = 0; m < PAP_N && st == CM_OK; m++)
        st = put(db, "pap", AN_NULL, AN_NULL, AN_NULL, pap_names[m], g->bytes, &g->pap[m]);
    return st;
}

/* The point-to-point time of a tuple size: proxies, else an algorithm node's
 * messages of the tuple's size, else the clock sync. */
static cm_status_t write_p2p(const an_series_t *se, an_group_t *g, an_db_t *db)
{
    const an_defs_t *d = se->d;
    double best = INFINITY;

    if (g->oneway.n > 0) {
        double median;
        cm_status_t st = an_tally_median(&g->oneway, &median);
        return st != CM_OK ? st : an_db_p2p(db, g->bytes, median, "proxy");
    }
    if (g->msgs.n > 0) {
        double median;
        cm_status_t st = an_tally_median(&g->msgs, &median);
        return st != CM_OK ? st : an_db_p2p(db, g->bytes, median, "algo");
    }
    for (int h = 1; h < d->nhosts; h++)
        if (d->hosts[h].have_offset && d->hosts[h].error_ns > 0 && d->hosts[h].error_ns < best)
            best = d->hosts[h].error_ns;
    return an_db_p2p(db, g->bytes, isinf(best) ? NAN : best,
                     isinf(best) ? "none" : "clock-sync");
}

cm_status_t an__series_write(an_series_t *s, an_db_t *db)
{
    cm_status_t st = CM_OK;

    for (int i = 0; i < s->ngroups && st == CM_OK; i++) {
        st = write_group(s, &s->groups[i], db);
        if (st == CM_OK)
            st = write_p2p(s, &s->groups[i], db);
    }
    return st;
}
