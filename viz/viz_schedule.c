/*
 * viz_schedule.c - `papviz schedule`: one operation of an algorithm node
 * (or the mean over the operations) as its hosts lived it, to see where the
 * algorithm waits.
 *
 * x = time (µs) from t0, the operation's first arrival at the node (the
 * smallest t1 of its hosts).  One band per host, rank 0 at the top (rank i
 * of the node is the i-th of its hosts, ascending).  In a band:
 *   - a light bar from the host's arrival t1 to its departure t4 (its visit;
 *     Proficz's a_i and f_i), with ticks at both ends;
 *   - a bar per round of the schedule, from the host's first post of the
 *     round (send or receive) to its last completion;
 *   - in red, what the host waited for late senders (Scalasca's Late Sender:
 *     a receive posted before its matching send, for send_post - recv_post).
 *     One operation: a red mark per receive, from the receive's post to the
 *     send's post.  The mean: a red mark at the start of each round, as long
 *     as the round's mean wait (the largest Late Sender of the round);
 *   - one operation only: a line per message from its send post (sender's
 *     band) to its receive completion (receiver's band), ending in a dot.
 * Right of the plot, per host: e = t4 - t1 and its total Late Sender time.
 * The caption sums it up: span, arrival spread, and where the waiting is
 * (host and round with the most), the answer to "where does PRR wait?".
 *
 * Every mark has a tooltip with the exact values.  The data is analyze's
 * an_model_schedule_t (an_model.h); viz_schedule_draw takes one built by
 * hand as well (the unit tests do).
 *
 * Invariants: every input is checked before the first byte is written;
 * NaN or infinite times leave their mark out and never reach the file; the
 * output is a function of the model and options (ranks, rounds and
 * messages in the model's order, fixed number formats).  Workload: a few
 * dozen hosts, a few hundred rounds and a few thousand messages.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viz/api/viz.h"
#include "viz/viz_algo_int.h"
#include "viz/viz_chart_int.h"
#include "viz/viz_svg_int.h"

#define LEFT      150.0   /* px: plot's left edge (host labels to its left) */
#define PLOT_W    700.0   /* px: plot width */
#define RIGHT_W   250.0   /* px: the per-host column right of the plot */
#define TOP       156.0   /* px: title and caption above the plot */
#define BAND_H    46.0    /* px: a host's band */
#define BAR_PAD   11.0    /* px: a round bar from the band's edges */
#define PARAMS_MAX 160    /* bytes of the algorithm's description */

#define C_ROUND0  "#4e79a7"   /* rounds alternate two blues */
#define C_ROUND1  "#9ab8d6"
#define C_LATE    "#d62728"
#define C_MSG     "#333333"
#define C_VISIT   "#e9e9e9"

static const char SC_CSS[] =
    ".s-band{fill:#fafafa}\n"
    ".s-visit{stroke:none}\n"
    ".s-t{stroke:#222;stroke-width:1.5}\n"
    ".s-bar{stroke:#ffffff;stroke-width:0.5}\n"
    ".s-late{stroke:none;fill-opacity:0.9}\n"
    ".s-msg{stroke:#333333;stroke-width:1;stroke-opacity:0.75;fill:none}\n"
    ".s-hit{stroke:#000;stroke-opacity:0;stroke-width:7;fill:none;pointer-events:stroke}\n"
    ".s-dot{stroke:none;fill:#333333}\n"
    ".s-host{font-size:12px;font-weight:bold;fill:#222}\n"
    ".s-small{font-size:10px;fill:#444}\n"
    ".s-red{font-size:10px;fill:#b01c1c}\n";

typedef struct sc {
    const an_model_t          *m;
    const an_model_schedule_t *s;
    const an_model_wrapper_t  *w;      /* the algorithm node */
    char                       params[PARAMS_MAX];
    double                    *wait;   /* per rank: Late Sender time in total */
    int                       *nlate;  /* per rank: receives (rounds) that waited */
    double                     xmax;   /* ns */
    double                     total_wait;
    int                        worst_rank, worst_round;
    double                     worst_wait;
} sc_t;

typedef struct sc_layout {
    viz_scale_t sx;
    double      xstep, plot_h, width, height, legend_y;
} sc_layout_t;

static int ok(double x)
{
    return isfinite(x);
}

static const char *host_name(const an_model_t *m, int host)
{
    if (host < 0 || host >= m->tree.nhosts || m->tree.hosts[host].name == NULL)
        return "?";
    return m->tree.hosts[host].name;
}

static const char *rank_name(const sc_t *c, int rank)
{
    return rank >= 0 && rank < c->s->nranks ? host_name(c->m, c->s->ranks[rank].host) : "?";
}

/* What the node runs (viz_algo_int.h), or its kind when it has no description. */
static void describe(const an_model_wrapper_t *w, char *buf, size_t len)
{
    viz_algo_text(w->algo, buf, len);
    if (buf[0] == '\0')
        snprintf(buf, len, "%s", w->kind_name ? w->kind_name : "algo");
}

/* ---- input ----------------------------------------------------------------- */

static cm_status_t check_schedule(const an_model_t *m, const an_model_schedule_t *s,
                                  cm_err_t *err)
{
    const char *src = m->db != NULL ? m->db : "(model)";
    if (s->node < 0 || s->node >= m->tree.nwrappers)
        return CM_ERR_AT(err, CM_ERR_INVALID, src, 0, 0, "schedule: node %d is not in the "
                         "tree", s->node);
    if (s->nranks <= 0 || s->ranks == NULL)
        return CM_ERR_AT(err, CM_ERR_INVALID, src, 0, 0, "schedule: the node has no hosts");
    if (s->nrounds < 0 || (s->nrounds > 0 && s->ranks[0].rounds == NULL)
        || s->nmsgs < 0 || (s->nmsgs > 0 && s->msgs == NULL))
        return CM_ERR_AT(err, CM_ERR_INVALID, src, 0, 0, "schedule: damaged schedule");
    for (int r = 0; r < s->nranks; r++)
        if (s->nrounds > 0 && s->ranks[r].rounds == NULL)
            return CM_ERR_AT(err, CM_ERR_INVALID, src, 0, 0, "schedule: damaged schedule");
    return CM_OK;
}

/* Extent of the picture and where the waiting is. */
static cm_status_t measure(sc_t *c, cm_err_t *err)
{
    const an_model_schedule_t *s = c->s;
    c->wait = calloc((size_t)s->nranks, sizeof *c->wait);
    c->nlate = calloc((size_t)s->nranks, sizeof *c->nlate);
    if (c->wait == NULL || c->nlate == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "schedule: out of memory");
    c->xmax = ok(s->span) ? s->span : 0;
    c->worst_rank = c->worst_round = -1;
    for (int r = 0; r < s->nranks; r++) {
        const an_model_sched_host_t *h = &s->ranks[r];
        c->xmax = fmax(c->xmax, ok(h->t4) ? h->t4 : 0);
        for (int k = 0; k < s->nrounds; k++) {
            const an_model_round_t *rd = &h->rounds[k];
            if (rd->n <= 0)
                continue;
            c->xmax = fmax(c->xmax, ok(rd->end) ? rd->end : 0);
            if (!ok(rd->late) || rd->late <= 0)
                continue;
            if (s->nmsgs == 0) {        /* the mean: the rounds' waits */
                c->wait[r] += rd->late;
                c->nlate[r]++;
            }
            if (rd->late > c->worst_wait) {
                c->worst_wait = rd->late;
                c->worst_rank = r;
                c->worst_round = rd->round;
            }
        }
    }
    for (int i = 0; i < s->nmsgs; i++) {    /* one operation: every receive */
        const an_model_msg_t *g = &s->msgs[i];
        c->xmax = fmax(c->xmax, ok(g->recv_done) ? g->recv_done : 0);
        if (g->dst >= 0 && g->dst < s->nranks && ok(g->late) && g->late > 0) {
            c->wait[g->dst] += g->late;
            c->nlate[g->dst]++;
        }
    }
    for (int r = 0; r < s->nranks; r++)
        c->total_wait += c->wait[r];
    return CM_OK;
}

/* ---- layout ------------------------------------------------------------------ */

/* Characters (not bytes) of a UTF-8 string. */
static size_t utf8_chars(const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        n += (*p & 0xc0) != 0x80;
    return n;
}

static void layout(const sc_t *c, const char *title, sc_layout_t *ly)
{
    double lo = 0, hi = c->xmax / 1000;
    ly->xstep = viz_nice(&lo, &hi, 10);
    ly->sx = (viz_scale_t){ lo, hi, LEFT, LEFT + PLOT_W };
    ly->plot_h = BAND_H * c->s->nranks;
    ly->legend_y = TOP + ly->plot_h + 56;
    ly->width = fmax(LEFT + PLOT_W + RIGHT_W, 32 + 9.6 * (double)utf8_chars(title));
    ly->height = ly->legend_y + 16 * 5 + 12 + 20;
}

static double band_top(int rank)
{
    return TOP + BAND_H * rank;
}

static double x_of(const sc_layout_t *ly, double ns)
{
    return viz_scale_map(&ly->sx, ns / 1000);
}

/* ---- drawing ------------------------------------------------------------------- */

static void draw_titles(viz_svg_t *sv, const sc_t *c, const char *title)
{
    const an_model_schedule_t *s = c->s;
    const an_model_t *m = c->m;
    char a[32], b[32], w[32], wr[32];
    const char *spread = s->nmsgs > 0 || s->op >= 0 ? "arrival spread" : "latest mean arrival";
    double t1max = 0;
    for (int r = 0; r < s->nranks; r++)
        t1max = fmax(t1max, ok(s->ranks[r].t1) ? s->ranks[r].t1 : 0);
    viz_svg_text(sv, 16, 26, VIZ_START, "title", "%s", title);
    viz_svg_text(sv, 16, 44, VIZ_START, "subtitle", "trace %s, pathmap %s",
                 m->trace ? m->trace : "", m->pathmap_path ? m->pathmap_path : "");
    viz_svg_text(sv, 16, 61, VIZ_START, "subtitle",
                 "A band per host (rank in the node), time from the first arrival at the node. "
                 "Grey: the host at the node (t1 to t4); blue: the rounds, first post to last "
                 "completion;");
    viz_svg_text(sv, 16, 76, VIZ_START, "subtitle", "%s",
                 s->nmsgs > 0 ? "red: waiting for a late sender (receive posted before its "
                                "send); lines: messages from send post to receive completion. "
                                "Hover for values."
                              : "red: the round's mean wait for its latest sender, drawn at "
                                "the round's start (the mean has no message lines). Hover for "
                                "values.");
    viz_us(a, sizeof a, s->span);
    viz_us(b, sizeof b, t1max);
    viz_us(w, sizeof w, c->total_wait);
    viz_svg_text(sv, 16, 114, VIZ_START, "subtitle", "e = t4 - t1: how long the host was in "
                 "the node, from its arrival (t1) to its departure with the result (t4).");
    if (s->op < 0)
        viz_svg_text(sv, 16, 130, VIZ_START, "subtitle", "Means over the operations: t1 and t4 "
                     "of each host; a round starts after its host's own arrival (the mean of "
                     "post - t1 over the operations the host had messages in that round).");
    if (c->worst_rank >= 0) {
        viz_us(wr, sizeof wr, c->worst_wait);
        viz_svg_text(sv, 16, 96, VIZ_START, "s-red", "Span %s µs, %s %s µs; late senders "
                     "cost %s µs over all hosts, the longest wait %s µs on %s (rank %d) in "
                     "round %d.", a, spread, b, w, wr, rank_name(c, c->worst_rank),
                     c->worst_rank, c->worst_round);
    } else {
        viz_svg_text(sv, 16, 96, VIZ_START, "subtitle", "Span %s µs, %s %s µs; no receive "
                     "waited for a late sender.", a, spread, b);
    }
}

static void draw_frame(viz_svg_t *sv, const sc_t *c, const sc_layout_t *ly)
{
    const an_model_schedule_t *s = c->s;
    for (int r = 0; r < s->nranks; r++)
        if (r % 2 == 1)
            viz_svg_rect(sv, LEFT, band_top(r), PLOT_W, BAND_H, "s-band", NULL);
    viz_grid_x(sv, &ly->sx, ly->xstep, TOP, TOP + ly->plot_h);
    for (int r = 0; r <= s->nranks; r++)
        viz_svg_line(sv, LEFT, band_top(r), LEFT + PLOT_W, band_top(r), "grid");
    viz_axis_x(sv, &ly->sx, TOP + ly->plot_h, ly->xstep,
               "time from the operation's first arrival at the node (\u00b5s)");
    viz_svg_line(sv, LEFT, TOP, LEFT, TOP + ly->plot_h, "axis");
    viz_svg_text(sv, LEFT + PLOT_W + 12, TOP - 8, VIZ_START, "s-small", "e = t4 - t1");
    viz_svg_text(sv, LEFT + PLOT_W + 120, TOP - 8, VIZ_START, "s-small", "late-sender wait");
}

/* A host's label, visit, and the numbers right of the plot. */
static void draw_host(viz_svg_t *sv, const sc_t *c, const sc_layout_t *ly, int r)
{
    const an_model_sched_host_t *h = &c->s->ranks[r];
    double y = band_top(r);
    char t1[32], t4[32], e[32], w[32];
    viz_us(t1, sizeof t1, h->t1);
    viz_us(t4, sizeof t4, h->t4);
    viz_us(e, sizeof e, h->t4 - h->t1);
    viz_us(w, sizeof w, c->wait[r]);
    viz_svg_group_begin(sv, NULL, "host %s, rank %d of %d in the node\narrives t1 = %s µs, "
                        "departs t4 = %s µs (from t0)\nat the node e = t4 - t1 = %s µs\n"
                        "waiting for late senders: %s µs (%d %s)", rank_name(c, r), r,
                        c->s->nranks, t1, t4, e, w, c->nlate[r],
                        c->s->nmsgs > 0 ? (c->nlate[r] == 1 ? "receive" : "receives")
                                        : (c->nlate[r] == 1 ? "round" : "rounds"));
    viz_svg_text(sv, LEFT - 10, y + BAND_H / 2, VIZ_END, "s-host", "%s", rank_name(c, r));
    viz_svg_text(sv, LEFT - 10, y + BAND_H / 2 + 13, VIZ_END, "s-small", "rank %d", r);
    if (ok(h->t1) && ok(h->t4) && h->t4 >= h->t1) {
        double x1 = x_of(ly, h->t1), x4 = x_of(ly, h->t4);
        viz_svg_rect(sv, x1, y + 4, x4 - x1, BAND_H - 8, "s-visit", C_VISIT);
        viz_svg_line(sv, x1, y + 3, x1, y + BAND_H - 3, "s-t");
        viz_svg_line(sv, x4, y + 3, x4, y + BAND_H - 3, "s-t");
    }
    viz_svg_text(sv, LEFT + PLOT_W + 12, y + BAND_H / 2 + 4, VIZ_START, NULL, "%s µs", e);
    viz_svg_text(sv, LEFT + PLOT_W + 120, y + BAND_H / 2 + 4, VIZ_START,
                 c->wait[r] > 0 ? "s-red" : "s-small", "%s µs", w);
    viz_svg_group_end(sv);
}

static void draw_rounds(viz_svg_t *sv, const sc_t *c, const sc_layout_t *ly, int r)
{
    const an_model_schedule_t *s = c->s;
    double y = band_top(r) + BAR_PAD, hgt = BAND_H - 2 * BAR_PAD;
    for (int k = 0; k < s->nrounds; k++) {
        const an_model_round_t *rd = &s->ranks[r].rounds[k];
        if (rd->n <= 0 || !ok(rd->start) || !ok(rd->end) || rd->end < rd->start)
            continue;
        char a[32], b[32], d[32], l[32];
        double x0 = x_of(ly, rd->start), x1 = x_of(ly, rd->end);
        viz_us(a, sizeof a, rd->start);
        viz_us(b, sizeof b, rd->end);
        viz_us(d, sizeof d, rd->end - rd->start);
        viz_us(l, sizeof l, ok(rd->late) ? rd->late : 0);
        viz_svg_group_begin(sv, NULL, "%s (rank %d), round %d%s\nfrom %s to %s µs: %s µs\n"
                            "longest wait for a late sender: %s µs", rank_name(c, r), r,
                            rd->round, s->op < 0 ? " (mean over the operations)" : "", a, b, d,
                            l);
        viz_svg_rect(sv, x0, y, fmax(x1 - x0, 0.5), hgt, "s-bar",
                     rd->round % 2 ? C_ROUND1 : C_ROUND0);
        viz_svg_group_end(sv);
        if (s->nmsgs == 0 && ok(rd->late) && rd->late > 0) {    /* the mean's wait */
            viz_svg_group_begin(sv, NULL, "%s (rank %d), round %d: mean wait for the latest "
                                "sender %s µs (drawn from the round's start)",
                                rank_name(c, r), r, rd->round, l);
            viz_svg_rect(sv, x0, y + hgt / 2, fmax(x_of(ly, rd->start + rd->late) - x0, 0.5),
                         hgt / 2, "s-late", C_LATE);
            viz_svg_group_end(sv);
        }
    }
}

static void msg_tip(const sc_t *c, const an_model_msg_t *g, char *buf, size_t len)
{
    char sp[32], sd[32], rp[32], rd[32], l[32];
    viz_us(sp, sizeof sp, g->send_post);
    viz_us(sd, sizeof sd, g->send_done);
    viz_us(rp, sizeof rp, g->recv_post);
    viz_us(rd, sizeof rd, g->recv_done);
    viz_us(l, sizeof l, ok(g->late) ? g->late : 0);
    snprintf(buf, len, "round %d: %s (rank %d) \u2192 %s (rank %d), %lld bytes\n"
             "send posted %s, completed %s µs\nreceive posted %s, completed %s µs\n"
             "late sender: %s µs", g->round, rank_name(c, g->src), g->src,
             rank_name(c, g->dst), g->dst, (long long)g->bytes, sp, sd, rp, rd, l);
}

/* One operation: the receives' Late Sender waits, then the messages. */
static void draw_messages(viz_svg_t *sv, const sc_t *c, const sc_layout_t *ly)
{
    const an_model_schedule_t *s = c->s;
    char tip[512];
    for (int i = 0; i < s->nmsgs; i++) {
        const an_model_msg_t *g = &s->msgs[i];
        if (g->dst < 0 || g->dst >= s->nranks || !ok(g->late) || g->late <= 0
            || !ok(g->recv_post))
            continue;
        double y = band_top(g->dst) + BAR_PAD, hgt = BAND_H - 2 * BAR_PAD;
        char l[32], rp[32], sp[32];
        viz_us(l, sizeof l, g->late);
        viz_us(rp, sizeof rp, g->recv_post);
        viz_us(sp, sizeof sp, g->recv_post + g->late);
        viz_svg_group_begin(sv, NULL, "%s (rank %d) waits %s µs for %s (rank %d) in round %d: "
                            "late sender\nreceive posted at %s µs, the send only at %s µs",
                            rank_name(c, g->dst), g->dst, l, rank_name(c, g->src), g->src,
                            g->round, rp, sp);
        double x0 = x_of(ly, g->recv_post);
        viz_svg_rect(sv, x0, y + hgt / 2, fmax(x_of(ly, g->recv_post + g->late) - x0, 0.5),
                     hgt / 2, "s-late", C_LATE);
        viz_svg_group_end(sv);
    }
    for (int i = 0; i < s->nmsgs; i++) {
        const an_model_msg_t *g = &s->msgs[i];
        if (g->src < 0 || g->src >= s->nranks || g->dst < 0 || g->dst >= s->nranks
            || !ok(g->send_post) || !ok(g->recv_done))
            continue;
        double x[2] = { x_of(ly, g->send_post), x_of(ly, g->recv_done) };
        double y[2] = { band_top(g->src) + BAND_H / 2, band_top(g->dst) + BAND_H / 2 };
        msg_tip(c, g, tip, sizeof tip);
        viz_svg_group_begin(sv, NULL, "%s", tip);
        viz_svg_polyline(sv, x, y, 2, "s-msg", NULL);
        viz_svg_polyline(sv, x, y, 2, "s-hit", NULL);
        viz_svg_circle(sv, x[1], y[1], 2.2, "s-dot", NULL);
        viz_svg_group_end(sv);
    }
}

static void draw_legend(viz_svg_t *sv, const sc_t *c, const sc_layout_t *ly)
{
    static const char *const box_lab[] = {
        "host at the node (t1 to t4)", "round (even)", "round (odd)", "waiting for a late sender",
    };
    static const char *const box_col[] = { C_VISIT, C_ROUND0, C_ROUND1, C_LATE };
    static const char *const line_lab[] = { "message: send post \u2192 receive completion" };
    static const char *const line_col[] = { C_MSG };
    viz_legend(sv, LEFT, ly->legend_y, box_lab, box_col, 4, 0);
    if (c->s->nmsgs > 0)
        viz_legend(sv, LEFT + 260, ly->legend_y, line_lab, line_col, 1, 1);
}

static void sc_free(sc_t *c)
{
    free(c->wait);
    free(c->nlate);
}

cm_status_t viz_schedule_draw(FILE *out, const an_model_t *m, const an_model_schedule_t *s,
                              cm_err_t *err)
{
    return viz_schedule_draw_why(out, m, s, NULL, err);
}

cm_status_t viz_schedule_draw_why(FILE *out, const an_model_t *m, const an_model_schedule_t *s,
                                  const char *why, cm_err_t *err)
{
    if (m == NULL || s == NULL)
        return CM_ERR(err, CM_ERR_INVALID, "schedule: no schedule");
    sc_t c = { .m = m, .s = s };
    cm_status_t st = check_schedule(m, s, err);
    if (st == CM_OK)
        st = measure(&c, err);
    if (st != CM_OK) {
        sc_free(&c);
        return st;
    }
    c.w = &m->tree.wrappers[s->node];
    describe(c.w, c.params, sizeof c.params);
    char title[512];
    if (s->op >= 0)
        snprintf(title, sizeof title, "Schedule of %s (%s): operation %lld of instance %d%s%s%s, "
                 "%lld bytes", c.w->name ? c.w->name : "?", c.params, (long long)s->op,
                 s->instance, why ? " (" : "", why ? why : "", why ? ")" : "",
                 (long long)s->bytes);
    else
        snprintf(title, sizeof title, "Schedule of %s (%s): mean of %lld operation%s, %lld "
                 "bytes", c.w->name ? c.w->name : "?", c.params, (long long)s->ops,
                 s->ops == 1 ? "" : "s", (long long)s->bytes);
    sc_layout_t ly;
    layout(&c, title, &ly);
    viz_svg_t sv;
    viz_svg_begin(&sv, out, ly.width, ly.height, title, SC_CSS);
    draw_titles(&sv, &c, title);
    draw_frame(&sv, &c, &ly);
    for (int r = 0; r < s->nranks; r++)
        draw_host(&sv, &c, &ly, r);
    for (int r = 0; r < s->nranks; r++)
        draw_rounds(&sv, &c, &ly, r);
    draw_messages(&sv, &c, &ly);
    draw_legend(&sv, &c, &ly);
    viz_svg_end(&sv);
    sc_free(&c);
    return CM_OK;
}

/* The algorithm node the options name (o->wrapper), or the tree's one. */
static cm_status_t find_node(const an_model_t *m, const viz_opts_t *o, int *node, cm_err_t *err)
{
    const an_model_tree_t *t = &m->tree;
    const char *src = m->db != NULL ? m->db : "(model)";
    if (o->wrapper != NULL) {
        int n = an_model_node_by_name(t, o->wrapper);
        if (n < 0)
            return CM_ERR_AT(err, CM_ERR_NAME, src, 0, 0, "schedule: no wrapper called '%s'",
                             o->wrapper);
        if (t->wrappers[n].kind != AN_KIND_ALGO)
            return CM_ERR_AT(err, CM_ERR_INVALID, src, 0, 0, "schedule: %s is a %s, not an "
                             "algorithm node", o->wrapper, t->wrappers[n].kind_name
                             ? t->wrappers[n].kind_name : "wrapper");
        *node = n;
        return CM_OK;
    }
    for (int i = 0; i < t->nwrappers; i++)
        if (t->wrappers[i].kind == AN_KIND_ALGO) {
            *node = i;
            return CM_OK;
        }
    return CM_ERR_AT(err, CM_ERR_INVALID, src, 0, 0, "this database has no algorithm node "
                     "(its tree's root is a core; schedule draws trees with an algo node)");
}

/* Orders operations by span, then instance and op. */
static int by_span(const void *x, const void *y)
{
    const an_model_algo_op_t *a = x, *b = y;
    if (a->span != b->span)
        return a->span < b->span ? -1 : 1;
    if (a->instance != b->instance)
        return a->instance < b->instance ? -1 : 1;
    return a->op < b->op ? -1 : a->op > b->op;
}

/*
 * The default operation: the used one of median span (the lower median),
 * a real operation, so that every bar of the chart is one interval of one
 * operation (means of separately averaged times need not nest).
 */
static cm_status_t median_op(an_model_t *m, int64_t bytes, int node, int *instance,
                             int64_t *op, char *why, size_t len, cm_err_t *err)
{
    const an_model_algo_ops_t *ops = NULL;
    if (an_model_algo_ops(m, bytes, node, &ops, err) != CM_OK)
        return err->status;
    an_model_algo_op_t *used = malloc((size_t)(ops->nops > 0 ? ops->nops : 1) * sizeof *used);
    int64_t n = 0;
    if (used == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "schedule: out of memory");
    for (int64_t i = 0; i < ops->nops; i++)
        if (ops->ops[i].used && isfinite(ops->ops[i].span))
            used[n++] = ops->ops[i];
    if (n == 0) {
        free(used);
        return CM_ERR_AT(err, CM_ERR_INVALID, m->db, 0, 0, "schedule: '%s' has no used "
                         "operation of this size", m->tree.wrappers[node].name);
    }
    qsort(used, (size_t)n, sizeof *used, by_span);
    *instance = used[(n - 1) / 2].instance;
    *op = used[(n - 1) / 2].op;
    snprintf(why, len, "the median span of %lld", (long long)n);
    free(used);
    return CM_OK;
}

cm_status_t viz_schedule(FILE *out, an_model_t *m, const viz_opts_t *o, cm_err_t *err)
{
    int node = -1;
    const an_model_schedule_t *s = NULL;
    if (m == NULL || o == NULL)
        return CM_ERR(err, CM_ERR_INVALID, "schedule: no model");
    cm_status_t st = find_node(m, o, &node, err);
    if (st == CM_OK && o->has_op) {
        const an_model_algo_ops_t *ops = NULL;
        st = an_model_algo_ops(m, o->bytes, node, &ops, err);
        int64_t i = 0, last = -1;
        for (; st == CM_OK && i < ops->nops; i++) {
            if (ops->ops[i].instance == o->instance && ops->ops[i].op == o->op)
                break;
            if (ops->ops[i].instance == o->instance)
                last = ops->ops[i].op;
        }
        if (st == CM_OK && i == ops->nops)
            st = last < 0 ? CM_ERR_AT(err, CM_ERR_NAME, m->db, 0, 0, "schedule: %s has no "
                                      "operation in instance %d", m->tree.wrappers[node].name,
                                      o->instance)
                          : CM_ERR_AT(err, CM_ERR_NAME, m->db, 0, 0, "schedule: no operation "
                                      "%lld in instance %d of %s (its last is %lld)",
                                      (long long)o->op, o->instance,
                                      m->tree.wrappers[node].name, (long long)last);
    }
    int instance = o->has_op ? o->instance : -1;
    int64_t op = o->has_op ? o->op : -1;
    char why[96] = "";
    if (st == CM_OK && !o->has_op && !o->mean)
        st = median_op(m, o->bytes, node, &instance, &op, why, sizeof why, err);
    if (st == CM_OK)
        st = an_model_schedule(m, o->bytes, node, instance, op, &s, err);
    if (st == CM_OK)
        st = viz_schedule_draw_why(out, m, s, why[0] ? why : NULL, err);
    return st;
}
