/*
 * viz_pap.c - `papviz pap`: the process arrival pattern of a trace's
 * operations (Proficz 2018, Figure 1 and section 3) and the distribution of
 * their average elapsed time.
 *
 * Panel 1 has a row per thread, grouped by host, and below them a row per
 * host: a mark at the mean arrival a (relative to each operation's first
 * arrival, so x = 0 is the earliest thread) and a bar from a to a + e, e the
 * mean elapsed time f - a.  A late thread shows as a mark far right with a
 * short bar: the others waited for it.  Panel 2 is a histogram of ē, the
 * mean over threads of e_i per operation, which is what a PAP-aware
 * algorithm tries to shrink; a caption gives the spreads and the imbalance
 * factor (host spread over the point-to-point time).
 *
 * Invariants: all numbers come from an_model_pap; the only arithmetic here
 * is layout and the histogram's binning (bins of a 1-2-5 width; operations
 * beyond Tukey's far fence go to one "overflow" bar so that a few very slow
 * ones do not squash the bulk into a single bin).  Rows are
 * ordered by (host, thread), so the output depends on the model alone.
 * Workload: up to a few hundred threads and millions of operations (the
 * histogram is one pass over the sorted array).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "viz/api/viz.h"
#include "viz/viz_chart_int.h"
#include "viz/viz_svg_int.h"

#define X0        180.0   /* px: left edge of both plots (labels to its left) */
#define PW        620.0   /* px: plot width */
#define WIDTH     940.0   /* px: the canvas (room for the overflow bar) */
#define TOP       150.0   /* px: title, caption and legend above panel 1 */
#define HIST_H    200.0   /* px: histogram plot height */
#define ROWS_SPAN 520.0   /* px: panel 1's rows aim at this height */

static const char PAP_CSS[] =
    ".p-head{font-size:12px;font-weight:bold;fill:#222}\n"
    ".p-host{font-size:11px;font-weight:bold;fill:#222}\n"
    ".p-lab{font-size:10px;fill:#444}\n"
    ".p-lab-s{font-size:8px;fill:#444}\n"
    ".p-band{fill:#f3f3f3}\n"
    ".p-sep{stroke:#999999;stroke-width:1}\n"
    ".p-zero{stroke:#222222;stroke-width:1}\n"
    ".p-arr{fill:#000000}\n"
    ".p-bar{stroke:none}\n"
    ".p-bin{fill:#6b8fb5;stroke:#ffffff;stroke-width:0.5}\n"
    ".p-over{fill:#b0b0b0;stroke:#ffffff;stroke-width:0.5}\n"
    ".p-mean{stroke:#c0392b;stroke-width:1.5;stroke-dasharray:6,3}\n"
    ".p-median{stroke:#222222;stroke-width:1.5;stroke-dasharray:2,2}\n"
    ".p-meant{font-size:11px;fill:#c0392b}\n"
    ".p-mediant{font-size:11px;fill:#222}\n";

/* Vertical layout of panel 1. */
typedef struct rows {
    double rh;          /* row height, px */
    double y_threads;   /* top of the first thread row */
    double y_hosts;     /* top of the first host row */
    double y_axis;      /* x axis of panel 1 */
    double y_hist;      /* top of the histogram plot */
    double height;      /* the canvas */
} rows_t;

/* Histogram of avg_elapsed in µs: nb bins of `step` from lo, plus the
 * operations above lo + nb * step in `over`. */
typedef struct hist {
    double   lo, step;
    double   tick;       /* µs between axis labels; lo is a multiple of it */
    int      nb;
    int64_t *count;
    int64_t  over;
    double   over_max;   /* µs, the largest overflowed value */
    int64_t  maxc;
} hist_t;

static const char *or_unknown(const char *s)
{
    return s && *s ? s : "(unknown)";
}

static const char *host_name(const an_model_t *m, int host, char *buf, size_t len)
{
    if (host >= 0 && host < m->tree.nhosts && m->tree.hosts[host].name)
        return m->tree.hosts[host].name;
    snprintf(buf, len, "host %d", host);
    return buf;
}

static cm_status_t load(an_model_t *m, const viz_opts_t *o, const an_model_size_t **sz_p,
                        const an_model_pap_t **p_p, cm_err_t *err)
{
    const an_model_size_t *sz = an_model_size(m, o->bytes);
    if (!sz)
        return CM_ERR(err, CM_ERR_INVALID, "pap: no data for tuple size %lld",
                      (long long)o->bytes);
    const an_model_pap_t *p = NULL;
    cm_status_t st = an_model_pap(m, sz->bytes, &p, err);
    if (st != CM_OK)
        return st;
    if (p->nthreads <= 0 || p->nops <= 0 || !p->avg_elapsed)
        return CM_ERR(err, CM_ERR_INVALID, "pap: no used operations for tuple size %lld",
                      (long long)sz->bytes);
    *sz_p = sz;
    *p_p = p;
    return CM_OK;
}

/* Thread rows by (host, thread): insertion sort, n is small and the order
 * must not depend on qsort's handling of ties. */
static void sort_rows(const an_model_pap_t *p, int *idx)
{
    for (int i = 0; i < p->nthreads; i++) {
        int j = i;
        const an_model_pap_row_t *r = &p->threads[i];
        while (j > 0) {
            const an_model_pap_row_t *q = &p->threads[idx[j - 1]];
            if (q->host < r->host || (q->host == r->host && q->id < r->id))
                break;
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = i;
    }
}

static rows_t rows_make(const an_model_pap_t *p)
{
    rows_t r;
    int n = p->nthreads + p->nhosts;
    /* Rows shrink to 9 px (8 px labels) and then the picture grows; only
     * past 120 rows do they shrink further and lose their labels. */
    r.rh = floor(ROWS_SPAN / (n > 0 ? n : 1));
    if (r.rh > 18)
        r.rh = 18;
    if (r.rh < 9)
        r.rh = n <= 120 ? 9 : floor(1080.0 / n) > 2 ? floor(1080.0 / n) : 2;
    r.y_threads = TOP;
    r.y_hosts = r.y_threads + p->nthreads * r.rh + 28;
    r.y_axis = r.y_hosts + p->nhosts * r.rh + 6;
    r.y_hist = r.y_axis + 96;
    r.height = r.y_hist + HIST_H + 56;
    return r;
}

/* x scale of panel 1 in µs: from the earliest arrival (0 or less, the
 * clocks of hosts are only aligned to their offset error) to the latest
 * finish. */
static double pattern_scale(const an_model_pap_t *p, viz_scale_t *sc)
{
    double lo = 0, hi = 0;
    for (int i = 0; i < p->nthreads + p->nhosts; i++) {
        const an_model_pap_row_t *r = i < p->nthreads ? &p->threads[i]
                                                      : &p->hosts[i - p->nthreads];
        if (r->a < lo)
            lo = r->a;
        if (r->a + r->e > hi)
            hi = r->a + r->e;
    }
    lo /= 1000;
    hi /= 1000;
    double step = viz_nice(&lo, &hi, 8);
    *sc = (viz_scale_t){ lo, hi, X0, X0 + PW };
    return step;
}

/* One row: arrival mark and elapsed bar, with the exact values as tooltip. */
static void draw_row(viz_svg_t *s, const viz_scale_t *sc, double y, double rh,
                     const an_model_pap_row_t *r, const char *colour, const char *what,
                     int64_t nops)
{
    char a[32], e[32], f[32];
    viz_us(a, sizeof a, r->a);
    viz_us(e, sizeof e, r->e);
    viz_us(f, sizeof f, r->a + r->e);
    viz_svg_group_begin(s, NULL,
                        "%s: arrival a = %s µs after the first arrival, elapsed e = %s µs, "
                        "finish f = %s µs (means over %lld operations)",
                        what, a, e, f, (long long)nops);
    double xa = viz_scale_map(sc, r->a / 1000), xf = viz_scale_map(sc, (r->a + r->e) / 1000);
    double bh = rh * 0.6;
    viz_svg_rect(s, xa, y + (rh - bh) / 2, xf - xa > 0.5 ? xf - xa : 0.5, bh, "p-bar", colour);
    double mw = rh * 0.3 > 2 ? rh * 0.3 : 2;
    viz_svg_rect(s, xa - mw / 2, y + 1, mw, rh - 2, "p-arr", NULL);
    viz_svg_group_end(s);
}

/* Thread rows with host bands, separators and labels. */
static void draw_threads(viz_svg_t *s, const an_model_t *m, const an_model_pap_t *p,
                         const int *idx, const rows_t *rw, const viz_scale_t *sc)
{
    const char *lab = rw->rh >= 11 ? "p-lab" : rw->rh >= 8 ? "p-lab-s" : NULL;
    char hb[32], what[256];
    int start = 0, group = 0;
    for (int k = 0; k <= p->nthreads; k++) {
        if (k < p->nthreads && p->threads[idx[k]].host == p->threads[idx[start]].host)
            continue;
        /* Rows start .. k-1 share one host. */
        int host = p->threads[idx[start]].host;
        double y0 = rw->y_threads + start * rw->rh, h = (k - start) * rw->rh;
        if (group % 2)
            viz_svg_rect(s, 8, y0, X0 + PW - 8, h, "p-band", NULL);
        if (start > 0)
            viz_svg_line(s, 8, y0, X0 + PW, y0, "p-sep");
        viz_svg_text(s, 12, y0 + h / 2 + 4, VIZ_START, "p-host", "%s",
                     host_name(m, host, hb, sizeof hb));
        for (int j = start; j < k; j++) {
            const an_model_pap_row_t *r = &p->threads[idx[j]];
            double y = rw->y_threads + j * rw->rh;
            if (lab)
                viz_svg_text(s, X0 - 6, y + rw->rh / 2 + 3.5, VIZ_END, lab, "thread %d", r->id);
            snprintf(what, sizeof what, "thread %d on %s", r->id,
                     host_name(m, host, hb, sizeof hb));
            draw_row(s, sc, y, rw->rh, r, viz_colour(host), what, p->nops);
        }
        start = k;
        group++;
    }
}

static void draw_hosts(viz_svg_t *s, const an_model_t *m, const an_model_pap_t *p,
                       const rows_t *rw, const viz_scale_t *sc)
{
    const char *lab = rw->rh >= 11 ? "p-lab" : rw->rh >= 8 ? "p-lab-s" : NULL;
    char hb[32], what[256];
    viz_svg_text(s, 12, rw->y_hosts - 8, VIZ_START, "p-head",
                 "hosts (a = arrival of the host's last thread, f = departure of its last)");
    viz_svg_line(s, 8, rw->y_hosts - 2, X0 + PW, rw->y_hosts - 2, "p-sep");
    for (int i = 0; i < p->nhosts; i++) {
        const an_model_pap_row_t *r = &p->hosts[i];
        double y = rw->y_hosts + i * rw->rh;
        const char *name = host_name(m, r->id, hb, sizeof hb);
        if (lab)
            viz_svg_text(s, X0 - 6, y + rw->rh / 2 + 3.5, VIZ_END, lab, "%s", name);
        snprintf(what, sizeof what, "host %s (rank %d)", name, r->id);
        draw_row(s, sc, y, rw->rh, r, viz_colour(r->id), what, p->nops);
    }
}

static void draw_pattern(viz_svg_t *s, const an_model_t *m, const an_model_pap_t *p,
                         const int *idx, const rows_t *rw)
{
    viz_scale_t sc;
    double step = pattern_scale(p, &sc);
    viz_svg_text(s, 12, TOP - 30, VIZ_START, "p-head",
                 "Arrival pattern (Proficz 2018, Fig. 1), means over %lld operations",
                 (long long)p->nops);
    /* Legend of the marks, on one line. */
    viz_svg_rect(s, 14, TOP - 20, 3, 12, "p-arr", NULL);
    viz_svg_text(s, 22, TOP - 10, VIZ_START, "p-lab", "arrival a");
    viz_svg_rect(s, 84, TOP - 18, 28, 8, "p-bar", viz_colour(0));
    viz_svg_text(s, 116, TOP - 10, VIZ_START, "p-lab",
                 "elapsed e = f - a (bar colour: host); x = 0: the operation's first arrival");
    viz_grid_x(s, &sc, step, rw->y_threads, rw->y_axis);
    draw_threads(s, m, p, idx, rw, &sc);
    draw_hosts(s, m, p, rw, &sc);
    double x0 = viz_scale_map(&sc, 0);
    viz_svg_line(s, x0, rw->y_threads - 4, x0, rw->y_axis, "p-zero");
    viz_axis_x(s, &sc, rw->y_axis, step, "time since the operation's first arrival (µs)");
}

/* Nearest-rank quantile of the ascending array v of n > 0 values. */
static double quantile(const double *v, int64_t n, double q)
{
    int64_t k = (int64_t)ceil(q * (double)n) - 1;
    return v[k < 0 ? 0 : k >= n ? n - 1 : k];
}

/* The histogram's upper end (ns): the largest value, unless operations lie
 * beyond Tukey's far fence (Q3 + 3 IQR); then the fence, or the mean if it
 * is larger, so that a few very slow operations (a descheduled thread) do
 * not squash the bulk into one bar.  They go to the overflow bar. */
static double hist_top(const an_model_pap_t *p)
{
    const double *v = p->avg_elapsed;
    int64_t n = p->nops;
    double q1 = quantile(v, n, 0.25), q3 = quantile(v, n, 0.75);
    double fence = q3 + 3 * (q3 - q1), top = v[n - 1];
    if (n < 20 || top <= fence)
        return top;
    if (p->avg_elapsed_s.n > 0 && p->avg_elapsed_s.mean * 1.02 > fence)
        fence = p->avg_elapsed_s.mean * 1.02;
    return fence < top ? fence : top;
}

/* The axis label step: the smallest 1-2-5 multiple of the bin width that
 * gives at most 10 labels over `range`. */
static double tick_step(double bin, double range)
{
    for (int e = (int)floor(log10(bin)); e < (int)floor(log10(bin)) + 6; e++) {
        static const double mant[3] = { 1, 2, 5 };
        for (int i = 0; i < 3; i++) {
            double v = mant[i] * pow(10, e), k = v / bin;
            if (k < 1 - 1e-9 || fabs(k - floor(k + 0.5)) > 1e-6)
                continue;
            if (range / v <= 10)
                return v;
        }
    }
    return bin * 10;
}

/* Bins avg_elapsed (ascending, ns) into a histogram in µs. */
static cm_status_t hist_make(const an_model_pap_t *p, hist_t *h, cm_err_t *err)
{
    int64_t n = p->nops;
    const double *v = p->avg_elapsed;
    double lo = v[0] / 1000, hi = hist_top(p) / 1000;
    int target = (int)sqrt((double)n);
    target = target < 5 ? 5 : target > 30 ? 30 : target;
    double raw_lo = lo, raw_hi = hi;
    h->step = viz_nice(&lo, &hi, target);
    /* Bins start at an axis label so that labels are round numbers and
     * bin edges fall on them (the axis labels every tick from its first
     * value). */
    h->tick = tick_step(h->step, raw_hi - raw_lo);
    h->lo = floor(raw_lo / h->tick + 1e-9) * h->tick;
    h->nb = (int)ceil((raw_hi - h->lo) / h->step - 1e-9);
    if (h->nb < 1)
        h->nb = 1;
    if (h->nb > 200)
        h->nb = 200;
    h->count = calloc((size_t)h->nb, sizeof *h->count);
    if (!h->count)
        return CM_ERR(err, CM_ERR_NOMEM, "pap: histogram of %d bins", h->nb);
    h->over = 0;
    h->over_max = 0;
    double top = h->lo + h->nb * h->step;
    for (int64_t k = 0; k < n; k++) {
        double x = v[k] / 1000;
        if (x > top) {
            h->over++;
            h->over_max = x;
            continue;
        }
        int b = h->step > 0 ? (int)floor((x - h->lo) / h->step) : 0;
        h->count[b < 0 ? 0 : b >= h->nb ? h->nb - 1 : b]++;
    }
    h->maxc = h->over;
    for (int b = 0; b < h->nb; b++)
        if (h->count[b] > h->maxc)
            h->maxc = h->count[b];
    return CM_OK;
}

/* A vertical line at value v (ns) with its label on the given side. */
static void draw_mark(viz_svg_t *s, const viz_scale_t *sx, double y0, double y1, double v,
                      const char *what, const char *cls, const char *tcls, int right)
{
    char b[32];
    double mu = v / 1000;
    if (mu < sx->d0 || mu > sx->d1)
        return;
    double x = viz_scale_map(sx, mu);
    viz_svg_group_begin(s, NULL, "%s %s µs", what, viz_us(b, sizeof b, v));
    viz_svg_line(s, x, y0, x, y1, cls);
    viz_svg_text(s, right ? x + 4 : x - 4, y0 + 8, right ? VIZ_START : VIZ_END, tcls,
                 "%s %s µs", what, b);
    viz_svg_group_end(s);
}

/* Top of a bar of `count` operations; one operation stays visible. */
static double bar_top(const viz_scale_t *sy, int64_t count)
{
    double y = viz_scale_map(sy, (double)count);
    return count > 0 && sy->r0 - y < 2 ? sy->r0 - 2 : y;
}

static void draw_bins(viz_svg_t *s, const hist_t *h, const viz_scale_t *sx,
                      const viz_scale_t *sy, int64_t nops)
{
    char lo[32], hi[32];
    for (int b = 0; b < h->nb; b++) {
        double a = h->lo + b * h->step;
        viz_us(lo, sizeof lo, a * 1000);
        viz_us(hi, sizeof hi, (a + h->step) * 1000);
        viz_svg_group_begin(s, NULL, "ē in [%s, %s%c µs: %lld operations (%.1f %%)", lo, hi,
                            b == h->nb - 1 ? ']' : ')', (long long)h->count[b],
                            100.0 * (double)h->count[b] / (double)nops);
        double x0 = viz_scale_map(sx, a), x1 = viz_scale_map(sx, a + h->step);
        double y = bar_top(sy, h->count[b]);
        viz_svg_rect(s, x0, y, x1 - x0, sy->r0 - y, "p-bin", NULL);
        viz_svg_group_end(s);
    }
    if (h->over == 0)
        return;
    /* The overflow bar sits apart, right of the axis, labelled with its range. */
    double w = PW / (h->nb + 2), x = X0 + PW + 20, edge = h->lo + h->nb * h->step;
    if (w < 16)
        w = 16;
    if (w > 40)
        w = 40;
    viz_us(lo, sizeof lo, edge * 1000);
    viz_us(hi, sizeof hi, h->over_max * 1000);
    viz_svg_group_begin(s, NULL, "ē in (%s, %s] µs: %lld operations (%.1f %%), off the axis",
                        lo, hi, (long long)h->over, 100.0 * (double)h->over / (double)nops);
    double y = bar_top(sy, h->over);
    viz_svg_rect(s, x, y, w, sy->r0 - y, "p-over", NULL);
    viz_svg_text(s, x + w / 2, y - 4, VIZ_MIDDLE, "p-lab", "%lld", (long long)h->over);
    viz_svg_group_end(s);
    viz_svg_line(s, x - 4, sy->r0, x + w + 4, sy->r0, "axis");
    viz_svg_text(s, x + w / 2, sy->r0 + 18, VIZ_MIDDLE, "p-lab", "> %g", edge);
    viz_svg_text(s, x + w / 2, sy->r0 + 30, VIZ_MIDDLE, "p-lab", "up to %.0f", h->over_max);
}

static void draw_hist(viz_svg_t *s, const an_model_pap_t *p, const hist_t *h, const rows_t *rw)
{
    viz_scale_t sx = { h->lo, h->lo + h->nb * h->step, X0, X0 + PW };
    double clo = 0, chi = (double)h->maxc;
    double ystep = viz_nice(&clo, &chi, 5);
    if (ystep < 1) {
        ystep = 1;
        chi = clo + 1 > chi ? clo + 1 : chi;
    }
    viz_scale_t sy = { 0, chi, rw->y_hist + HIST_H, rw->y_hist };
    viz_svg_text(s, 12, rw->y_hist - 40, VIZ_START, "p-head",
                 "Distribution of the operations' average elapsed time ē (mean of e over "
                 "threads), %lld operations", (long long)p->nops);
    viz_grid_y(s, &sy, ystep, sx.r0, sx.r1);
    draw_bins(s, h, &sx, &sy, p->nops);
    int mean_right = p->avg_elapsed_s.mean >= p->avg_elapsed_s.median;
    if (p->avg_elapsed_s.n > 0) {
        draw_mark(s, &sx, rw->y_hist - 22, sy.r0, p->avg_elapsed_s.mean, "mean", "p-mean",
                  "p-meant", mean_right);
        draw_mark(s, &sx, rw->y_hist - 22, sy.r0, p->avg_elapsed_s.median, "median",
                  "p-median", "p-mediant", !mean_right);
    }
    viz_axis_x(s, &sx, sy.r0, h->tick, "average elapsed time ē of an operation (µs)");
    viz_axis_y(s, &sy, X0, ystep, "operations");
}

/* "12.345 µs" or "n/a" for a statistic without samples. */
static const char *stat_us(char *buf, size_t len, const an_model_stat_t *st, double v)
{
    if (st->n <= 0) {
        snprintf(buf, len, "n/a");
        return buf;
    }
    char b[32];
    snprintf(buf, len, "%s µs", viz_us(b, sizeof b, v));
    return buf;
}

static void draw_title(viz_svg_t *s, const an_model_t *m, const an_model_size_t *sz,
                       const an_model_pap_t *p)
{
    char a[48], b[48], c[48], d[48];
    viz_svg_text(s, 12, 22, VIZ_START, "title",
                 "Process arrival pattern and elapsed time, tuple size %lld bytes",
                 (long long)sz->bytes);
    viz_svg_text(s, 12, 42, VIZ_START, "subtitle", "trace %s, pathmap %s", or_unknown(m->trace),
                 or_unknown(m->pathmap_path));
    viz_svg_text(s, 12, 62, VIZ_START, "subtitle",
                 "average elapsed time ē: mean %s, median %s; arrival spread over threads: "
                 "mean %s, over hosts: mean %s",
                 stat_us(a, sizeof a, &p->avg_elapsed_s, p->avg_elapsed_s.mean),
                 stat_us(b, sizeof b, &p->avg_elapsed_s, p->avg_elapsed_s.median),
                 stat_us(c, sizeof c, &p->arrival_spread_s, p->arrival_spread_s.mean),
                 stat_us(d, sizeof d, &p->host_spread_s, p->host_spread_s.mean));
    if (p->p2p_ns >= 0 && p->imbalance_s.n > 0)
        viz_svg_text(s, 12, 80, VIZ_START, "subtitle",
                     "point-to-point time %s µs; imbalance factor (host spread / p2p): "
                     "mean %.3f, median %.3f, max %.3f",
                     viz_us(a, sizeof a, p->p2p_ns), p->imbalance_s.mean,
                     p->imbalance_s.median, p->imbalance_s.max);
    else if (p->p2p_ns >= 0)
        viz_svg_text(s, 12, 80, VIZ_START, "subtitle", "point-to-point time %s µs",
                     viz_us(a, sizeof a, p->p2p_ns));
    else
        viz_svg_text(s, 12, 80, VIZ_START, "subtitle",
                     "no point-to-point time in this trace (one host): no imbalance factor");
}

cm_status_t viz_pap(FILE *out, an_model_t *m, const viz_opts_t *o, cm_err_t *err)
{
    const an_model_size_t *sz = NULL;
    const an_model_pap_t *p = NULL;
    cm_status_t st = load(m, o, &sz, &p, err);
    if (st != CM_OK)
        return st;
    int *idx = malloc((size_t)p->nthreads * sizeof *idx);
    if (!idx)
        return CM_ERR(err, CM_ERR_NOMEM, "pap: %d threads", p->nthreads);
    hist_t h = { 0 };
    st = hist_make(p, &h, err);
    if (st != CM_OK)
        goto free_idx;
    sort_rows(p, idx);
    rows_t rw = rows_make(p);

    char doc_title[128];
    snprintf(doc_title, sizeof doc_title, "papviz pap: %lld bytes", (long long)sz->bytes);
    viz_svg_t s;
    viz_svg_begin(&s, out, WIDTH, rw.height, doc_title, PAP_CSS);
    draw_title(&s, m, sz, p);
    draw_pattern(&s, m, p, idx, &rw);
    draw_hist(&s, p, &h, &rw);
    viz_svg_end(&s);
    free(h.count);
free_idx:
    free(idx);
    return st;
}
