/*
 * viz_departures.c - up latency plus departure wait by departure order (the
 * paper's Figures 10, 16, 21): how concurrent the broadcast of a gred, or of
 * a whole subtree, is.
 *
 * For the gred named by o->wrapper (o->subtree = 0: its contributors) or the
 * subtree rooted there (o->subtree = 1: the threads below it), point k is
 * the up latency plus the mean departure wait of the (k+1)-th departure, so
 * x = 0 is the up latency alone.  One curve per model (--compare).  A flat
 * curve means the contributors leave almost together; a steep one that the
 * broadcast is serialised.
 *
 * Invariants: every model is checked (wrapper known, kind right, data for
 * the tuple size) before the first byte is written; output depends only on
 * the models and options.  Workload: a few curves of at most a few hundred
 * points.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "viz/api/viz.h"
#include "viz/viz_chart_int.h"
#include "viz/viz_svg_int.h"

#define LABEL_MAX 128
#define PLOT_W 640.0
#define PLOT_H 380.0

typedef struct dp {
    an_model_t *const           *models;
    int                          nmodels;
    const viz_opts_t            *o;
    int64_t                      bytes;
    const an_model_departures_t **d;       /* per model */
    char                       (*buf)[LABEL_MAX];
    const char                 **mlabel;   /* per model */
    const char                 **legend;   /* per model: label and n */
    const char                 **colours;
    int                          maxn;
    double                       ymax;     /* ns */
} dp_t;

/* Strings of the model may be NULL for a model built by hand. */
static const char *str(const char *s)
{
    return s != NULL ? s : "";
}

/* The total of point k: up latency plus the k-th mean departure wait. */
static double point_ns(const an_model_departures_t *d, int k)
{
    double up = isfinite(d->up) ? d->up : 0;
    double w = d->wait != NULL && isfinite(d->wait[k]) ? d->wait[k] : 0;
    return up + w;
}

static cm_status_t alloc_dp(dp_t *dp, cm_err_t *err)
{
    size_t n = (size_t)dp->nmodels;
    dp->d = calloc(n, sizeof *dp->d);
    dp->buf = calloc(2 * n, sizeof *dp->buf);
    dp->mlabel = calloc(n, sizeof *dp->mlabel);
    dp->legend = calloc(n, sizeof *dp->legend);
    dp->colours = calloc(n, sizeof *dp->colours);
    if (!dp->d || !dp->buf || !dp->mlabel || !dp->legend || !dp->colours)
        return CM_ERR(err, CM_ERR_NOMEM, "departures: out of memory");
    return CM_OK;
}

/* The wrapper of model i, checked for its kind, and its departure curve. */
static cm_status_t load_model(dp_t *dp, int i, cm_err_t *err)
{
    an_model_t *m = dp->models[i];
    const char *name = dp->o->wrapper, *label = dp->mlabel[i];
    if (an_model_size(m, dp->bytes) == NULL)
        return CM_ERR_AT(err, CM_ERR_INVALID, m->db, 0, 0,
                         "%s: no statistics for tuple size %lld bytes", label,
                         (long long)dp->bytes);
    int node = an_model_node_by_name(&m->tree, name);
    if (node < 0)
        return CM_ERR_AT(err, CM_ERR_NAME, m->db, 0, 0, "%s: no wrapper '%s' in tree %s",
                         label, name, m->tree.name);
    const an_model_wrapper_t *w = &m->tree.wrappers[node];
    if (!dp->o->subtree && w->kind != AN_KIND_GRED)
        return CM_ERR_AT(err, CM_ERR_INVALID, m->db, 0, 0,
                         "%s: '%s' is a %s, not a gred (for the subtree below it, use --subtree)",
                         label, name, str(w->kind_name));
    if (dp->o->subtree && w->kind != AN_KIND_GRED && w->kind != AN_KIND_CORE
        && w->kind != AN_KIND_ALGO)
        return CM_ERR_AT(err, CM_ERR_INVALID, m->db, 0, 0,
                         "%s: '%s' is a %s; a subtree is rooted at a gred, the core or "
                         "an algorithm node",
                         label, name, str(w->kind_name));
    cm_status_t st = an_model_departures(m, dp->bytes, node, dp->o->subtree, &dp->d[i], err);
    if (st != CM_OK)
        return st;
    if (dp->d[i]->n < 1)
        return CM_ERR_AT(err, CM_ERR_INVALID, m->db, 0, 0,
                         "%s: no departures of '%s' for tuple size %lld bytes", label, name,
                         (long long)dp->bytes);
    return CM_OK;
}

static cm_status_t load(dp_t *dp, cm_err_t *err)
{
    if (dp->nmodels < 1)
        return CM_ERR(err, CM_ERR_INVALID, "departures: no database");
    if (dp->o->wrapper == NULL || dp->o->wrapper[0] == '\0')
        return CM_ERR(err, CM_ERR_INVALID,
                      "departures: name a gred (--wrapper NAME) or a subtree (--subtree NAME)");
    cm_status_t st = alloc_dp(dp, err);
    if (st != CM_OK)
        return st;
    dp->bytes = dp->o->bytes;
    if (dp->bytes < 0) {
        const an_model_size_t *sz = an_model_size(dp->models[0], -1);
        if (sz == NULL)
            return CM_ERR_AT(err, CM_ERR_INVALID, dp->models[0]->db, 0, 0,
                             "no statistics in the database (no tuple size)");
        dp->bytes = sz->bytes;
    }
    for (int i = 0; i < dp->nmodels; i++)
        dp->mlabel[i] = viz_model_label(dp->models, dp->nmodels, dp->o, i, dp->buf[i],
                                        LABEL_MAX);
    for (int i = 0; i < dp->nmodels && st == CM_OK; i++)
        st = load_model(dp, i, err);
    if (st != CM_OK)
        return st;
    for (int i = 0; i < dp->nmodels; i++) {
        const an_model_departures_t *d = dp->d[i];
        char *b = dp->buf[dp->nmodels + i];
        snprintf(b, LABEL_MAX, "%s (%d %s)", dp->mlabel[i], d->n,
                 d->subtree ? "threads" : "contributors");
        dp->legend[i] = b;
        dp->colours[i] = viz_colour(i);
        dp->maxn = d->n > dp->maxn ? d->n : dp->maxn;
        for (int k = 0; k < d->n; k++)
            dp->ymax = fmax(dp->ymax, point_ns(d, k));
    }
    return CM_OK;
}

/* ---- drawing -------------------------------------------------------------------- */

static void draw_titles(viz_svg_t *s, const dp_t *dp, const char *title)
{
    double y = 26;
    viz_svg_text(s, 16, y, VIZ_START, "title", "%s", title);
    for (int i = 0; i < dp->nmodels; i++) {
        const an_model_t *m = dp->models[i];
        y += 17;
        if (dp->nmodels > 1)
            viz_svg_text(s, 16, y, VIZ_START, "subtitle", "%s: trace %s, pathmap %s",
                         dp->mlabel[i], str(m->trace), str(m->pathmap_path));
        else
            viz_svg_text(s, 16, y, VIZ_START, "subtitle", "trace %s, pathmap %s",
                         str(m->trace), str(m->pathmap_path));
    }
    viz_svg_text(s, 16, y + 17, VIZ_START, "subtitle",
                 "x = 0: the up latency (the first departure); x = k: up latency + mean "
                 "departure wait of the (k+1)-th departure.");
    viz_svg_text(s, 16, y + 34, VIZ_START, "subtitle",
                 "The slope shows how concurrent the broadcast is: flatter is better.");
}

/* One curve: a polyline, and a marker with the exact values per point. */
static void draw_curve(viz_svg_t *s, const dp_t *dp, int i, const viz_scale_t *sx,
                       const viz_scale_t *sy, double *px, double *py)
{
    const an_model_departures_t *d = dp->d[i];
    char up[32], wait[32], total[32];
    for (int k = 0; k < d->n; k++) {
        px[k] = viz_scale_map(sx, k);
        py[k] = viz_scale_map(sy, point_ns(d, k) / 1000);
    }
    viz_svg_group_begin(s, NULL, "%s\nup latency %s \u00b5s, last departure after %s \u00b5s\n"
                        "%d %s, %lld operations", dp->mlabel[i], viz_us(up, sizeof up, d->up),
                        viz_us(total, sizeof total, point_ns(d, d->n - 1)), d->n,
                        d->subtree ? "threads" : "contributors", (long long)d->ops);
    viz_svg_polyline(s, px, py, d->n, "series", dp->colours[i]);
    for (int k = 0; k < d->n; k++) {
        viz_us(wait, sizeof wait, point_ns(d, k) - (isfinite(d->up) ? d->up : 0));
        viz_us(total, sizeof total, point_ns(d, k));
        viz_svg_group_begin(s, NULL, "%s\ndeparture %d of %d (x = %d)\nup latency %s \u00b5s "
                            "+ departure wait %s \u00b5s = %s \u00b5s\n%lld operations",
                            dp->mlabel[i], k + 1, d->n, k, up, wait, total, (long long)d->ops);
        viz_svg_circle(s, px[k], py[k], 3.5, NULL, dp->colours[i]);
        viz_svg_group_end(s);
    }
    viz_svg_group_end(s);
}

/* Integer ticks on the departure order axis. */
static double order_step(int maxn)
{
    if (maxn <= 13)
        return 1;
    double lo = 0, hi = maxn - 1, step = viz_nice(&lo, &hi, 10);
    return step < 1 ? 1 : ceil(step);
}

static cm_status_t draw(FILE *out, const dp_t *dp, cm_err_t *err)
{
    const char *name = dp->o->wrapper;
    char title[512];
    snprintf(title, sizeof title, "Departures of %s %s, %lld bytes",
             dp->o->subtree ? "the subtree rooted at" : "gred", name, (long long)dp->bytes);
    double legend_w = 0;
    for (int i = 0; i < dp->nmodels; i++) {
        size_t len = 0;
        for (const unsigned char *p = (const unsigned char *)dp->legend[i]; *p; p++)
            len += (*p & 0xc0) != 0x80;
        legend_w = fmax(legend_w, 42 + 7.0 * (double)len);
    }
    double top = 34 + 17.0 * (dp->nmodels + 2) + 24, left = 90;
    double width = left + PLOT_W + 30 + legend_w + 20;
    double height = top + fmax(PLOT_H, 16.0 * dp->nmodels + 12) + 60;
    double *px = malloc(2 * (size_t)dp->maxn * sizeof *px);
    if (px == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "departures: out of memory");
    double ylo = 0, yhi = dp->ymax / 1000, ystep = viz_nice(&ylo, &yhi, 6);
    double xstep = order_step(dp->maxn), xhi = dp->maxn > 1 ? dp->maxn - 1 : 1;
    viz_scale_t sx = { 0, xhi, left, left + PLOT_W }, sy = { ylo, yhi, top + PLOT_H, top };
    viz_svg_t s;
    viz_svg_begin(&s, out, width, height, title, NULL);
    draw_titles(&s, dp, title);
    viz_grid_y(&s, &sy, ystep, left, left + PLOT_W);
    viz_axis_x(&s, &sx, top + PLOT_H, xstep, "departure order (0 = first to leave)");
    viz_axis_y(&s, &sy, left, ystep, "up latency + departure wait (\u00b5s)");
    for (int i = 0; i < dp->nmodels; i++)
        draw_curve(&s, dp, i, &sx, &sy, px, px + dp->maxn);
    viz_legend(&s, left + PLOT_W + 30, top, dp->legend, dp->colours, dp->nmodels, 1);
    viz_svg_end(&s);
    free(px);
    return CM_OK;
}

static void dp_free(dp_t *dp)
{
    free(dp->d);
    free(dp->buf);
    free(dp->mlabel);
    free(dp->legend);
    free(dp->colours);
}

cm_status_t viz_departures(FILE *out, an_model_t *const *models, int nmodels,
                           const viz_opts_t *o, cm_err_t *err)
{
    dp_t dp = { .models = models, .nmodels = nmodels, .o = o };
    cm_status_t st = load(&dp, err);
    if (st == CM_OK)
        st = draw(out, &dp, err);
    dp_free(&dp);
    return st;
}
