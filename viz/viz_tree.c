/*
 * viz_tree.c - `papviz tree`: the collective tree drawn as the PATHS paper
 * draws it (Figures 1, 3, 4, 5, 8): hosts as boxes, wrappers as labelled
 * ovals, threads as small numbered circles, proxies on the links that cross
 * hosts, algorithm nodes as dashed rectangles that name their kind.
 *
 * This file draws: it writes the layout of viz_tree_layout.c (host columns,
 * rows, lanes, every mark's place; viz_tree_int.h) as SVG, with the title,
 * the tooltips, the legend and the colour key.
 *
 * Colours: by kind (the CSS classes gred, proxy, core, algo), or, with
 * statistics (--db), by each wrapper's mean down + up latency (the core:
 * its wrapper latency): the time a visit spends in the wrapper itself, on
 * the critical path.  A gred's wrapper latency is left out of the colour
 * because it is mostly arrival and departure waits, which the other
 * contributors cause; the tooltips give every statistic.
 *
 * Invariants: every input is checked before the first byte is written; the
 * output depends only on the model and the options (fixed orders, fixed
 * number formats); names reach the file only through viz_svg's escaping.
 * Workload: up to a few hundred nodes (the paper's NOW tree: 30 hosts, 89
 * wrappers, 60 threads); linear in the nodes.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/cm_kind.h"
#include "viz/api/viz.h"
#include "viz/viz_chart_int.h"
#include "viz/viz_svg_int.h"
#include "viz/viz_tree_int.h"

#define TIP_MAX     1024     /* bytes of a tooltip */
#define KEY_W       280.0    /* the latency colour key */
#define KEY_STEPS   56       /* rectangles of the colour key */
#define LEG_ROW     22.0     /* height of a legend row */
#define NODATA_FILL "#eeeeee"

/* Classes of this chart; the node kinds and host/edge come from viz_svg.c. */
static const char TREE_CSS[] =
    ".t-name{font-size:11px;fill:#222;stroke:none}\n"
    ".t-small{font-size:10px;fill:#333;stroke:none}\n"
    ".t-dark{fill:#fff}\n"
    ".t-host{font-size:12px;font-weight:bold;fill:#444;stroke:none}\n"
    ".t-xlink{stroke:#b3690e;stroke-width:1.6}\n"
    ".t-sel{stroke:#d62728;stroke-width:2.6}\n"
    ".t-selt{stroke:#d62728;stroke-width:2.2}\n"
    ".t-gred{stroke:#2a6099;stroke-width:1.6}\n"
    ".t-proxy{stroke:#b3690e;stroke-width:1.6}\n"
    ".t-core{stroke:#a12a2a;stroke-width:1.6}\n"
    ".t-algo{stroke:#3c7a2a;stroke-width:1.6;stroke-dasharray:3 2}\n"
    ".t-key{stroke:none}\n"
    ".t-frame{fill:none;stroke:#999}\n";

/* ---- small helpers ------------------------------------------------------ */

/* Appends to a tooltip (bounded, never overflows). */
static void app(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void app(char *buf, const char *fmt, ...)
{
    size_t len = strlen(buf);
    if (len + 1 >= TIP_MAX)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, TIP_MAX - len, fmt, ap);
    va_end(ap);
}

/* The CSS class of a kind: its pathmap keyword (common/cm_kind.h); an unknown
 * kind is drawn as an algorithm node. */
static const char *kind_class_of(an_model_kind_t kind)
{
    return kind < AN_KIND_OTHER ? cm_kind_name((cm_kind_t)kind) : "algo";
}

static const char *kind_class(const an_model_wrapper_t *w)
{
    return kind_class_of(w->kind);
}

static const char *node_name(const viz_tree_layout_t *v, int i, char *buf, size_t len)
{
    const an_model_wrapper_t *w = viz__tree_wrapper(v, i);
    if (w != NULL)
        return viz__str_or(w->name, "?");
    snprintf(buf, len, "thread %d", v->t->threads[v->n[i].thread].thread);
    return buf;
}

/* ---- marks ------------------------------------------------------------------ */

/* The host's box and its label; the tooltip counts its nodes. */
static void draw_host(viz_svg_t *s, const viz_tree_layout_t *v, int h)
{
    const an_model_host_t *hp = &v->t->hosts[h];
    const viz_tree_host_t *hb = &v->hosts[h];
    char label[2 * VIZ_TREE_LABEL_MAX + 8];
    viz__tree_host_label(v, h, label, sizeof label);
    viz_svg_group_begin(s, "hostbox", "host %s (rank %d)%s%s\n%d thread%s, %d wrapper%s",
                        viz__str_or(hp->name, "?"), h, hp->hostname && hp->hostname[0]
                        ? ", machine " : "", hp->hostname ? hp->hostname : "",
                        hb->nthreads, hb->nthreads == 1 ? "" : "s",
                        hb->nwrappers, hb->nwrappers == 1 ? "" : "s");
    viz_svg_rect(s, hb->x, hb->y0, hb->w, hb->y1 - hb->y0, "host", NULL);
    viz_svg_text(s, hb->x + 6, hb->y0 + 15, VIZ_START, "t-host", "%s", label);
    viz_svg_group_end(s);
}

static void draw_link(viz_svg_t *s, const viz_tree_layout_t *v, int i)
{
    const viz_tree_node_t *n = &v->n[i];
    char a[VIZ_TREE_LABEL_MAX + 16], b[VIZ_TREE_LABEL_MAX + 16];
    double px, py;
    viz__tree_port_xy(v, i, &px, &py);
    const char *cls = n->sel ? "edge t-sel" : n->cross ? "edge t-xlink" : "edge";
    const viz_tree_node_t *p = &v->n[n->parent];
    if (p->spans)
        viz_svg_group_begin(s, NULL, "%s \xe2\x86\x92 %s: host %s joins the algorithm as "
                            "rank %d of %d", node_name(v, i, a, sizeof a),
                            node_name(v, n->parent, b, sizeof b),
                            viz__str_or(v->t->hosts[n->host].name, "?"),
                            n->rank, p->nspan);
    else if (n->cross)
        viz_svg_group_begin(s, NULL, "%s \xe2\x86\x92 %s: network link, host %s \xe2\x86\x92 %s",
                            node_name(v, i, a, sizeof a), node_name(v, n->parent, b, sizeof b),
                            viz__str_or(v->t->hosts[n->host].name, "?"),
                            viz__str_or(v->t->hosts[v->n[n->parent].host].name, "?"));
    else
        viz_svg_group_begin(s, NULL, "%s \xe2\x86\x92 %s", node_name(v, i, a, sizeof a),
                            node_name(v, n->parent, b, sizeof b));
    double ly = viz__tree_lane_y(v, n->depth, n->lane);
    double x[4] = { n->cx, n->cx, px, px }, y[4] = { n->cy + n->ry, ly, ly, py };
    if (n->cross)
        viz_svg_polyline(s, x, y, 4, cls, NULL);
    else
        viz_svg_line(s, n->cx, n->cy + n->ry, px, py, cls);
    viz_svg_group_end(s);
}

/* One statistic line of a tooltip, when it has samples. */
static void tip_stat(char *tip, const char *what, const an_model_stat_t *st)
{
    char a[32];
    if (st->n > 0 && isfinite(st->mean))
        app(tip, "\n%s: %s µs (n = %lld)", what, viz_us(a, sizeof a, st->mean),
            (long long)st->n);
}

/* " 0: h0, 1: h1" - the hosts of spanning node i by rank: as the model
 * describes the node, or its contributors' hosts (the links into i are in
 * x order, which is host order). */
static void span_hosts_tip(const viz_tree_layout_t *v, int i, char *tip)
{
    const an_model_algo_t *a = v->t->wrappers[i].algo;
    if (a != NULL && a->nranks > 0 && a->hosts != NULL) {
        for (int r = 0; r < a->nranks; r++)
            app(tip, "%s %d: %s", r ? "," : "", r, a->hosts[r] >= 0 && a->hosts[r] <
                v->t->nhosts ? viz__str_or(v->t->hosts[a->hosts[r]].name, "?") : "?");
        return;
    }
    int last = -1;
    for (int k = v->in0[i]; k < v->in0[i + 1]; k++) {
        const viz_tree_node_t *c = &v->n[v->in[k]];
        if (c->rank > last)
            app(tip, "%s %d: %s", c->rank ? "," : "", c->rank,
                viz__str_or(v->t->hosts[c->host].name, "?"));
        last = c->rank > last ? c->rank : last;
    }
}

static void wrapper_tip(const viz_tree_layout_t *v, int i, char *tip)
{
    const viz_tree_node_t *n = &v->n[i];
    const an_model_wrapper_t *w = viz__tree_wrapper(v, i);
    const an_model_host_t *hp = &v->t->hosts[n->host];
    app(tip, "%s %s", viz__str_or(w->kind_name, kind_class(w)), viz__str_or(w->name, "?"));
    if (n->spans) {
        char params[VIZ_TREE_LABEL_MAX];
        viz__tree_algo_params(v->m, w, params, sizeof params);
        if (params[0])
            app(tip, "\nruns %s", params);
        app(tip, "\njoins %d host%s (rank in the algorithm: host):", n->nspan,
            n->nspan == 1 ? "" : "s");
        span_hosts_tip(v, i, tip);
    } else {
        app(tip, "\nhost %s (rank %d)", viz__str_or(hp->name, "?"), n->host);
    }
    app(tip, "\nlevel %d, fan-in %d", w->level, w->fanin);
    if (w->nhosts > 0)
        app(tip, ", threads below on %d host%s", w->nhosts, w->nhosts == 1 ? "" : "s");
    if (w->part != NULL && w->part[0])
        app(tip, "\npart: %s", w->part);
    if (w->line > 0)
        app(tip, "\npathmap line %d", w->line);
    if (v->sz == NULL)
        return;
    const an_model_wstats_t *ws = &v->sz->wstats[n->wrapper];
    char a[32];
    app(tip, "\n%lld-byte tuples, %lld operations; means per visit:", (long long)v->sz->bytes,
        (long long)v->sz->ops_used);
    if (n->has_value)
        app(tip, "\ncolour: %s %s µs", w->kind == AN_KIND_CORE || !(ws->down.n || ws->up.n)
            ? "latency" : "down + up", viz_us(a, sizeof a, n->value));
    else
        app(tip, "\nno statistics");
    tip_stat(tip, "latency", &ws->latency);
    tip_stat(tip, "down", &ws->down);
    tip_stat(tip, "up", &ws->up);
    tip_stat(tip, "arrival wait", &ws->arrival_wait);
    tip_stat(tip, "departure wait", &ws->departure_wait);
}

static void thread_tip(const viz_tree_layout_t *v, int i, char *tip)
{
    const viz_tree_node_t *n = &v->n[i];
    const an_model_thread_t *th = &v->t->threads[n->thread];
    char a[VIZ_TREE_LABEL_MAX + 16], b[32], c[32];
    app(tip, "thread %d\nhost %s (rank %d)\nenters %s", th->thread,
        viz__str_or(v->t->hosts[n->host].name, "?"), n->host,
        n->parent >= 0 ? node_name(v, n->parent, a, sizeof a) : "?");
    app(tip, "\npath: %d wrapper%s, %d prox%s", th->nstages, th->nstages == 1 ? "" : "s",
        th->nproxies, th->nproxies == 1 ? "y" : "ies");
    const an_model_path_t *p = v->sz != NULL && v->sz->paths ? &v->sz->paths[n->thread] : NULL;
    if (p != NULL && p->total.n > 0)
        app(tip, "\ntime per allreduce: %s µs, without arrival waits %s µs (n = %lld)",
            viz_us(b, sizeof b, p->total.mean), viz_us(c, sizeof c, p->total_no_wait.mean),
            (long long)p->total.n);
}

/* The node's text lines, centred; white on dark fills. */
static void draw_lines(viz_svg_t *s, const viz_tree_node_t *n, int dark)
{
    static const double base[4][3] = {
        { 0 }, { 4 }, { -2, 10 }, { -8, 4, 16 },
    };
    for (int k = 0; k < n->nlines; k++) {
        const char *cls = k == 0 ? (dark ? "t-name t-dark" : "t-name")
                                 : (dark ? "t-small t-dark" : "t-small");
        viz_svg_text(s, n->cx, n->cy + base[n->nlines][k], VIZ_MIDDLE, cls, "%s",
                     n->line[k]);
    }
}

static void draw_wrapper(viz_svg_t *s, const viz_tree_layout_t *v, int i)
{
    const viz_tree_node_t *n = &v->n[i];
    const an_model_wrapper_t *w = viz__tree_wrapper(v, i);
    char tip[TIP_MAX] = "", fill[8] = NODATA_FILL, cls[16];
    wrapper_tip(v, i, tip);
    double t = n->has_value ? n->value / 1000 / v->key_hi : 0;
    if (n->has_value)
        viz_colour_seq(t, fill);
    snprintf(cls, sizeof cls, v->sz ? "t-%s" : "%s", kind_class(w));
    viz_svg_group_begin(s, kind_class(w), "%s", tip);
    if (viz__tree_is_algo(w))
        viz_svg_rect(s, n->cx - n->rx, n->cy - n->ry, 2 * n->rx, 2 * n->ry, cls,
                     v->sz ? fill : NULL);
    else
        viz_svg_ellipse(s, n->cx, n->cy, n->rx, n->ry, cls, v->sz ? fill : NULL);
    draw_lines(s, n, v->sz != NULL && t >= 0.45);
    viz_svg_group_end(s);
}

static void draw_thread(viz_svg_t *s, const viz_tree_layout_t *v, int i)
{
    const viz_tree_node_t *n = &v->n[i];
    char tip[TIP_MAX] = "";
    thread_tip(v, i, tip);
    viz_svg_group_begin(s, "thread", "%s", tip);
    viz_svg_circle(s, n->cx, n->cy, n->rx, n->sel ? "thread t-selt" : "thread", NULL);
    viz_svg_text(s, n->cx, n->cy + 3.5, VIZ_MIDDLE, "t-small", "%s", n->line[0]);
    viz_svg_group_end(s);
}

/* ---- title and legend ----------------------------------------------------------- */

static void count_kinds(const viz_tree_layout_t *v, int *nproxy, int *nhosts)
{
    *nproxy = *nhosts = 0;
    for (int i = 0; i < v->t->nwrappers; i++)
        *nproxy += v->t->wrappers[i].kind == AN_KIND_PROXY;
    for (int h = 0; h < v->t->nhosts; h++)
        *nhosts += v->hosts[h].w > 0;
}

/* What is coloured by its latency: the core, or the algorithm node (the
 * mean of its hosts' visits), or both. */
static const char *root_kinds(const viz_tree_layout_t *v)
{
    int core = 0, algo = 0;
    for (int i = 0; i < v->t->nwrappers; i++) {
        core |= v->t->wrappers[i].kind == AN_KIND_CORE;
        algo |= viz__tree_is_algo(&v->t->wrappers[i]);
    }
    return !algo ? "core" : core ? "core, algorithm node" : "algorithm node";
}

static void title_lines(const viz_tree_layout_t *v, char *l1, char *l2, char *l3, size_t len)
{
    const an_model_t *m = v->m;
    const char *tree = viz__str_or(v->t->name, NULL);
    int nproxy, nhosts, nt = v->t->nthreads, nw = v->t->nwrappers;
    count_kinds(v, &nproxy, &nhosts);
    snprintf(l1, len, "Tree %s%sof %s", tree ? tree : "", tree ? " " : "",
             viz__str_or(m->pathmap_path, "(pathmap unknown)"));
    int ri = 0;
    while (ri < v->nn - 1 && v->n[ri].parent >= 0)
        ri++;
    const an_model_wrapper_t *root = viz__tree_wrapper(v, ri);
    snprintf(l2, len, "%d thread%s on %d host%s, %d wrapper%s (%d prox%s)%s. Threads at the "
             "top: partial results flow down to the %s, the result back up.", nt,
             nt == 1 ? "" : "s", nhosts, nhosts == 1 ? "" : "s", nw, nw == 1 ? "" : "s",
             nproxy, nproxy == 1 ? "y" : "ies",
             nhosts < v->t->nhosts ? "; hosts without a node of the tree are left out" : "",
             root != NULL && viz__tree_is_algo(root) ? "algorithm node" : "core");
    if (v->sz != NULL)
        snprintf(l3, len, "trace %s, %lld-byte tuples, %lld operations. Colour: mean down + up "
                 "latency per visit (%s: latency), the wrapper's own time.",
                 viz__str_or(m->trace, viz__str_or(m->db, "?")), (long long)v->sz->bytes,
                 (long long)v->sz->ops_used, root_kinds(v));
    else if (m->trace != NULL && m->trace[0])
        snprintf(l3, len, "trace %s.%s Colours by kind.", m->trace,
                 v->want_latency ? " No statistics in the database." : "");
    else
        snprintf(l3, len, "From the pathmap (no statistics). Colours by kind.");
}

/* A legend entry: a small mark and its text, at (x, y) = middle left.
 * kind: 0 host, 1..4 wrappers (gred, proxy, core, algo), 5 thread, 6 network
 * link, 7 selected path, 8 no data.  Returns its width. */
static double legend_entry(viz_svg_t *s, const viz_tree_layout_t *v, int kind, double x, double y,
                           int draw)
{
    static const char *const text[] = {
        "host (pathmap name, machine)", "gred: partial reduce", "proxy: link to another host",
        "core: stores the result", "algorithm node: runs across the hosts it joins", "thread", "network link (crosses hosts)",
        "path of a selected thread", "no statistics",
    };
    /* Entries 1..4 are wrapper kinds, drawn with their kind's class. */
    static const an_model_kind_t kinds[] = { AN_KIND_OTHER, AN_KIND_GRED, AN_KIND_PROXY,
                                             AN_KIND_CORE, AN_KIND_ALGO };
    double w = 34 + viz__text_w(text[kind], 12) + 18;
    if (!draw)
        return w;
    char c[16];
    if (kind >= 1 && kind <= 4)
        snprintf(c, sizeof c, v->sz ? "t-%s" : "%s", kind_class_of(kinds[kind]));
    const char *fill = v->sz ? (kind == 8 ? NODATA_FILL : "#ffffff") : NULL;
    if (kind == 0)
        viz_svg_rect(s, x, y - 8, 26, 16, "host", NULL);
    else if (kind == 4)
        viz_svg_rect(s, x + 2, y - 8, 22, 16, c, fill);
    else if (kind >= 1 && kind <= 3)
        viz_svg_ellipse(s, x + 13, y, 13, 8, c, fill);
    else if (kind == 5)
        viz_svg_circle(s, x + 13, y, 7, "thread", NULL);
    else if (kind == 8)
        viz_svg_ellipse(s, x + 13, y, 13, 8, "t-gred", fill);
    else
        viz_svg_line(s, x, y, x + 26, y, kind == 6 ? "edge t-xlink" : "edge t-sel");
    viz_svg_text(s, x + 34, y + 4, VIZ_START, NULL, "%s", text[kind]);
    return w;
}

/* The legend entries that apply, flowed into rows; returns the rows used. */
static int draw_legend(viz_svg_t *s, const viz_tree_layout_t *v, int draw)
{
    int kinds[9], nk = 0;
    int present[5] = { 0 };
    for (int i = 0; i < v->t->nwrappers; i++)
        present[v->t->wrappers[i].kind == AN_KIND_GRED ? 1
                : v->t->wrappers[i].kind == AN_KIND_PROXY ? 2
                : v->t->wrappers[i].kind == AN_KIND_CORE ? 3 : 4] = 1;
    kinds[nk++] = 0;
    for (int k = 1; k <= 4; k++)
        if (present[k])
            kinds[nk++] = k;
    if (v->t->nthreads > 0)
        kinds[nk++] = 5;
    if (v->has_cross)
        kinds[nk++] = 6;
    if (v->has_sel)
        kinds[nk++] = 7;
    if (v->sz != NULL && v->nodata > 0)
        kinds[nk++] = 8;
    double x = VIZ_TREE_MARGIN, y = v->legend_y, maxx = fmax(v->width - VIZ_TREE_MARGIN, 440);
    int rows = 1;
    for (int k = 0; k < nk; k++) {
        double w = legend_entry(s, v, kinds[k], 0, 0, 0);
        if (x > VIZ_TREE_MARGIN && x + w > maxx) {
            x = VIZ_TREE_MARGIN;
            y += LEG_ROW;
            rows++;
        }
        legend_entry(s, v, kinds[k], x, y, draw);
        x += w;
    }
    return rows;
}

/* The colour key of the latencies: a bar from 0 to key_hi µs with ticks. */
static void draw_key(viz_svg_t *s, const viz_tree_layout_t *v, double y)
{
    viz_svg_text(s, VIZ_TREE_MARGIN, y, VIZ_START, NULL,
                 "Colour: mean down + up latency per visit (%s: latency)", root_kinds(v));
    double x0 = VIZ_TREE_MARGIN, bw = KEY_W / KEY_STEPS;
    for (int k = 0; k < KEY_STEPS; k++) {
        char fill[8];
        viz_colour_seq((k + 0.5) / KEY_STEPS, fill);
        viz_svg_rect(s, x0 + k * bw, y + 8, bw + 0.3, 14, "t-key", fill);
    }
    viz_svg_rect(s, x0, y + 8, KEY_W, 14, "t-frame", NULL);
    viz_scale_t sc = { 0, v->key_hi, x0, x0 + KEY_W };
    viz_axis_x(s, &sc, y + 22, v->key_step, "µs");
}

/* ---- the chart ---------------------------------------------------------------- */

static void draw(FILE *out, viz_tree_layout_t *v)
{
    char l1[TIP_MAX], l2[TIP_MAX], l3[TIP_MAX];
    title_lines(v, l1, l2, l3, sizeof l1);
    v->width = fmax(v->width, 2 * VIZ_TREE_MARGIN + fmax(viz__text_w(l1, 16) + 20,
                                                fmax(viz__text_w(l2, 12), viz__text_w(l3, 12))));
    if (v->sz != NULL)
        v->width = fmax(v->width, 2 * VIZ_TREE_MARGIN + KEY_W + 120);
    viz__tree_shift_x(v, (v->width - v->content_w) / 2);
    int rows = draw_legend(NULL, v, 0);
    v->height = v->legend_y + rows * LEG_ROW + (v->sz != NULL ? 78 : 0) + VIZ_TREE_MARGIN;
    viz_svg_t s;
    viz_svg_begin(&s, out, ceil(v->width), ceil(v->height), l1, TREE_CSS);
    viz_svg_text(&s, VIZ_TREE_MARGIN, 28, VIZ_START, "title", "%s", l1);
    viz_svg_text(&s, VIZ_TREE_MARGIN, 48, VIZ_START, "subtitle", "%s", l2);
    viz_svg_text(&s, VIZ_TREE_MARGIN, 64, VIZ_START, "subtitle", "%s", l3);
    for (int h = 0; h < v->t->nhosts; h++)
        if (v->hosts[h].w > 0)
            draw_host(&s, v, h);
    for (int pass = 0; pass < 2; pass++)        /* selected paths over the others */
        for (int i = 0; i < v->nn; i++)
            if (v->n[i].parent >= 0 && v->n[i].sel == pass)
                draw_link(&s, v, i);
    for (int i = 0; i < v->nn; i++) {
        if (v->n[i].wrapper >= 0)
            draw_wrapper(&s, v, i);
        else
            draw_thread(&s, v, i);
    }
    draw_legend(&s, v, 1);
    if (v->sz != NULL)
        draw_key(&s, v, v->legend_y + rows * LEG_ROW + 14);
    viz_svg_end(&s);
}

cm_status_t viz_tree(FILE *out, an_model_t *m, int with_latency, const viz_opts_t *o,
                     cm_err_t *err)
{
    static const viz_opts_t none = { .bytes = -1 };
    if (m == NULL)
        return CM_ERR(err, CM_ERR_INVALID, "tree: no model");
    viz_tree_layout_t v;
    cm_status_t st = viz__tree_layout_init(&v, m, with_latency, o != NULL ? o : &none, err);
    if (st == CM_OK)
        draw(out, &v);
    viz__tree_layout_cleanup(&v);
    return st;
}
