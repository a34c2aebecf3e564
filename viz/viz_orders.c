/*
 * viz_orders.c - `papviz orders`: a gred's arrival order x departure order
 * distribution as a heat map (the PATHS paper's Table 1, section 6.3).
 *
 * Row a, column d holds the share of operations in which the a-th
 * contributor to arrive left as the d-th one (percent of the arrival row,
 * from an_model_orders); with o->subtree the contributors are the threads
 * below the wrapper.  The paper read a FIFO queue off this table: the last
 * arrival departs first, the k-th arrival departs (k+1)-th.
 *
 * Invariants: the picture is laid out from the order count n alone, so the
 * same model gives the same bytes; the colour key runs from 0 to the largest
 * percentage (rounded up), so that evenly spread orders still show their
 * pattern; cells with no operation are grey (never) rather than the
 * palette's lightest colour (rare); every cell has a tooltip with the exact
 * count even when it is too small to print a number in.
 * Cells shrink from 96 px (n <= 6) to 12 px (n >= 48); the printed number
 * gets shorter with the cell and is dropped below 18 px.  Workload: fan-in
 * 2 .. 64, a few thousand SVG elements at most.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "viz/api/viz.h"
#include "viz/viz_chart_int.h"
#include "viz/viz_svg_int.h"

#define CELL_MAX   96.0   /* px: a cell of a small gred */
#define CELL_MIN   12.0   /* px: below this the matrix would not be legible */
#define GRID_SPAN  576.0  /* px: the matrix aims at this side length */
#define MARGIN_L   72.0   /* px: arrival axis title and row numbers */
#define MARGIN_T   126.0  /* px: title lines, departure axis title, column numbers */
#define KEY_W      96.0   /* px: the colour key to the right of the matrix */
#define ZERO_FILL  "#eeeeee"

/* Classes of this chart; the common ones (text, axes) come from viz_svg.c. */
static const char ORDERS_CSS[] =
    ".o-axis{font-size:12px;font-weight:bold;fill:#222}\n"
    ".o-num{font-size:11px;fill:#444}\n"
    ".o-num-s{font-size:9px;fill:#444}\n"
    ".o-cell{stroke:#ffffff;stroke-width:1}\n"
    ".o-frame{fill:none;stroke:#888888;stroke-width:1}\n"
    ".o-t12d{font-size:12px;fill:#222222}\n"
    ".o-t12l{font-size:12px;fill:#ffffff}\n"
    ".o-t10d{font-size:10px;fill:#222222}\n"
    ".o-t10l{font-size:10px;fill:#ffffff}\n"
    ".o-t8d{font-size:8px;fill:#222222}\n"
    ".o-t8l{font-size:8px;fill:#ffffff}\n"
    ".o-swatch{stroke:#888888;stroke-width:1}\n"
    ".o-key{font-size:10px;fill:#444}\n";

/* How much of a percentage a cell of a given size can show. */
typedef enum {
    TEXT_NONE,     /* cell < 18 px: tooltip only */
    TEXT_INT,      /* "97", "<1": non-empty cells only, 8 px font */
    TEXT_ONE,      /* "96.5": 10 px font */
    TEXT_FULL      /* "96.5%" as in the paper's table, 12 px font */
} text_mode_t;

typedef struct layout {
    int         n;
    double      cell;       /* side of a cell, px */
    double      x0, y0;     /* top left corner of the matrix */
    double      width, height;
    text_mode_t text;
    double      ktop, kstep;  /* colour key: percent of the darkest colour, label step */
} layout_t;

static const char *or_unknown(const char *s)
{
    return s && *s ? s : "(unknown)";
}

/* Finds the wrapper and the tuple size and loads the distribution. */
static cm_status_t load(an_model_t *m, const viz_opts_t *o, const an_model_size_t **sz_p,
                        const an_model_orders_t **ord_p, cm_err_t *err)
{
    if (!o->wrapper || !*o->wrapper)
        return CM_ERR(err, CM_ERR_INVALID, "orders: name a gred with --wrapper or --subtree");
    int node = an_model_node_by_name(&m->tree, o->wrapper);
    if (node < 0)
        return CM_ERR(err, CM_ERR_NAME, "orders: no wrapper called '%s' in the tree", o->wrapper);
    const an_model_wrapper_t *w = &m->tree.wrappers[node];
    if (!o->subtree && w->kind != AN_KIND_GRED)
        return CM_ERR(err, CM_ERR_INVALID,
                      "orders: '%s' is a %s, not a gred (its orders are always 1; "
                      "use --subtree for the threads below it)", w->name, w->kind_name);
    if (o->subtree && w->kind == AN_KIND_PROXY)
        return CM_ERR(err, CM_ERR_INVALID,
                      "orders: '%s' is a proxy; a subtree is rooted at a gred or the core",
                      w->name);
    const an_model_size_t *sz = an_model_size(m, o->bytes);
    if (!sz)
        return CM_ERR(err, CM_ERR_INVALID, "orders: no data for tuple size %lld",
                      (long long)o->bytes);
    const an_model_orders_t *ord = NULL;
    cm_status_t st = an_model_orders(m, sz->bytes, node, o->subtree, &ord, err);
    if (st != CM_OK)
        return st;
    if (ord->n <= 0 || ord->ops <= 0)
        return CM_ERR(err, CM_ERR_INVALID, "orders: no operations of '%s' for tuple size %lld",
                      w->name, (long long)sz->bytes);
    *sz_p = sz;
    *ord_p = ord;
    return CM_OK;
}

static layout_t layout_make(int n, double min_w)
{
    layout_t l;
    l.n = n;
    l.cell = (double)(int)(GRID_SPAN / n);
    if (l.cell > CELL_MAX)
        l.cell = CELL_MAX;
    if (l.cell < CELL_MIN)
        l.cell = CELL_MIN;
    l.text = l.cell >= 52 ? TEXT_FULL : l.cell >= 34 ? TEXT_ONE : l.cell >= 18 ? TEXT_INT
                                                                               : TEXT_NONE;
    l.x0 = MARGIN_L;
    l.y0 = MARGIN_T;
    double side = n * l.cell;
    l.width = l.x0 + side + KEY_W + 24;
    if (l.width < min_w)
        l.width = min_w;
    l.height = l.y0 + side + 56;
    if (l.height < l.y0 + 260)   /* the colour key needs ~230 px */
        l.height = l.y0 + 260;
    return l;
}

static int64_t row_total(const an_model_orders_t *ord, int a)
{
    int64_t t = 0;
    for (int d = 0; d < ord->n; d++)
        t += ord->count[(size_t)a * ord->n + d];
    return t;
}

/* Percent of the arrival row: the model's, or from the counts. */
static double cell_pct(const an_model_orders_t *ord, int a, int d)
{
    size_t i = (size_t)a * ord->n + d;
    if (ord->percent)
        return ord->percent[i];
    int64_t t = row_total(ord, a);
    return t > 0 ? 100.0 * (double)ord->count[i] / (double)t : 0.0;
}

/* The colour key runs from 0 to the largest percentage rounded up to a
 * 1-2-5 step: a gred whose orders are spread evenly (32 threads, cells of
 * about 3 %) still shows its pattern, and a Table 1-like gred keeps 100. */
static void key_scale(layout_t *l, const an_model_orders_t *ord)
{
    double lo = 0, hi = 0;
    for (int a = 0; a < ord->n; a++)
        for (int d = 0; d < ord->n; d++)
            if (cell_pct(ord, a, d) > hi)
                hi = cell_pct(ord, a, d);
    if (hi < 5)
        hi = 5;
    l->kstep = viz_nice(&lo, &hi, 5);
    l->ktop = hi > 100 ? 100 : hi;
}

/* Relative luminance (0 dark .. 1 light) of "#rrggbb"; picks the text colour. */
static double luminance(const char *hex)
{
    unsigned r = 0, g = 0, b = 0;
    if (sscanf(hex, "#%2x%2x%2x", &r, &g, &b) != 3)
        return 1.0;
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255.0;
}

/* The number printed in a cell, or "" when the cell shows none. */
static void cell_text(char *buf, size_t len, text_mode_t mode, int64_t count, double pct)
{
    buf[0] = '\0';
    switch (mode) {
    case TEXT_FULL:
        snprintf(buf, len, "%.1f%%", pct);
        break;
    case TEXT_ONE:
        snprintf(buf, len, "%.1f", pct);
        break;
    case TEXT_INT:
        /* Small cells skip the zeros so that the pattern stands out; a
         * rounded "0" or "100" would hide that something happened. */
        if (count == 0)
            break;
        if (pct < 0.5)
            snprintf(buf, len, "<1");
        else if (pct >= 99.5 && pct < 100.0)
            snprintf(buf, len, ">99");
        else
            snprintf(buf, len, "%.0f", pct);
        break;
    case TEXT_NONE:
        break;
    }
}

static const char *text_class(text_mode_t mode, int light)
{
    switch (mode) {
    case TEXT_FULL:
        return light ? "o-t12l" : "o-t12d";
    case TEXT_ONE:
        return light ? "o-t10l" : "o-t10d";
    default:
        return light ? "o-t8l" : "o-t8d";
    }
}

static void draw_cell(viz_svg_t *s, const layout_t *l, const an_model_orders_t *ord, int a,
                      int d, int64_t total)
{
    int64_t count = ord->count[(size_t)a * ord->n + d];
    double pct = cell_pct(ord, a, d);
    char fill[8];
    if (count > 0)
        viz_colour_seq(pct / l->ktop, fill);
    else
        snprintf(fill, sizeof fill, "%s", ZERO_FILL);

    double x = l->x0 + d * l->cell, y = l->y0 + a * l->cell;
    viz_svg_group_begin(s, NULL,
                        "arrival order %d, departure order %d: %lld of %lld operations "
                        "(%.2f %% of the row)",
                        a + 1, d + 1, (long long)count, (long long)total, pct);
    viz_svg_rect(s, x, y, l->cell, l->cell, "o-cell", fill);
    char txt[16];
    cell_text(txt, sizeof txt, l->text, count, pct);
    if (txt[0]) {
        int light = luminance(fill) < 0.5;
        double fs = l->text == TEXT_FULL ? 12 : l->text == TEXT_ONE ? 10 : 8;
        viz_svg_text(s, x + l->cell / 2, y + l->cell / 2 + fs * 0.35, VIZ_MIDDLE,
                     text_class(l->text, light), "%s", txt);
    }
    viz_svg_group_end(s);
}

static void draw_cells(viz_svg_t *s, const layout_t *l, const an_model_orders_t *ord)
{
    for (int a = 0; a < ord->n; a++) {
        int64_t total = row_total(ord, a);
        for (int d = 0; d < ord->n; d++)
            draw_cell(s, l, ord, a, d, total);
    }
    double side = l->n * l->cell;
    viz_svg_rect(s, l->x0, l->y0, side, side, "o-frame", NULL);
}

/* Order numbers along both sides; below 14 px cells only the odd ones. */
static void draw_axes(viz_svg_t *s, const layout_t *l)
{
    const char *cls = l->cell >= 18 ? "o-num" : "o-num-s";
    int every = l->cell >= 14 ? 1 : 2;
    double side = l->n * l->cell;
    for (int k = 0; k < l->n; k++) {
        if (k % every != 0)
            continue;
        double c = (k + 0.5) * l->cell;
        viz_svg_text(s, l->x0 + c, l->y0 - 6, VIZ_MIDDLE, cls, "%d", k + 1);
        viz_svg_text(s, l->x0 - 6, l->y0 + c + 4, VIZ_END, cls, "%d", k + 1);
    }
    viz_svg_text(s, l->x0 + side / 2, l->y0 - 24, VIZ_MIDDLE, "o-axis", "departure order");
    viz_svg_text_vertical(s, l->x0 - 30, l->y0 + side / 2, "o-axis", "arrival order");
}

/* Vertical colour key: 0 % at the bottom, l->ktop % at the top, plus the
 * grey swatch for cells that never happened. */
static void draw_key(viz_svg_t *s, const layout_t *l)
{
    const int steps = 50;
    const double h = 160, w = 14;
    double x = l->x0 + l->n * l->cell + 24, y = l->y0 + 14;
    viz_svg_text(s, x, y - 10, VIZ_START, "o-key", "%% of the row");
    for (int i = 0; i < steps; i++) {
        char fill[8];
        viz_colour_seq((i + 0.5) / steps, fill);
        viz_svg_rect(s, x, y + h - (i + 1) * h / steps, w, h / steps + 0.3, NULL, fill);
    }
    viz_svg_rect(s, x, y, w, h, "o-frame", NULL);
    for (int i = 0; i * l->kstep <= l->ktop + 1e-9; i++)
        viz_svg_text(s, x + w + 4, y + h - i * l->kstep * h / l->ktop + 3.5, VIZ_START, "o-key",
                     "%g", i * l->kstep);
    double gy = y + h + 18;
    viz_svg_rect(s, x, gy, w, w, "o-swatch", ZERO_FILL);
    viz_svg_text(s, x + w + 4, gy + 11, VIZ_START, "o-key", "never");
}

/* The title lines, formatted first so that the canvas can be made wide
 * enough for them (names and paths have any length). */
typedef struct header {
    char title[256];
    char sub[3][512];
} header_t;

static void header_make(header_t *h, const an_model_t *m, const an_model_wrapper_t *w,
                        const an_model_orders_t *ord, const an_model_size_t *sz, int subtree)
{
    if (subtree)
        snprintf(h->title, sizeof h->title,
                 "Arrival x departure order, threads below %s %s (%d threads)",
                 w->kind_name, w->name, ord->n);
    else
        snprintf(h->title, sizeof h->title, "Arrival x departure order of gred %s (fan-in %d)",
                 w->name, ord->n);
    snprintf(h->sub[0], sizeof h->sub[0], "trace %s, pathmap %s", or_unknown(m->trace),
             or_unknown(m->pathmap_path));
    snprintf(h->sub[1], sizeof h->sub[1], "tuple size %lld bytes, %lld operations",
             (long long)sz->bytes, (long long)ord->ops);
    snprintf(h->sub[2], sizeof h->sub[2],
             "row a, column d: %% of the operations in which the a-th %s to arrive was the "
             "d-th to leave", subtree ? "thread" : "contributor");
}

/* Characters (not bytes) of a UTF-8 string. */
static size_t text_len(const char *t)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)t; *p; p++)
        n += (*p & 0xc0) != 0x80;
    return n;
}

/* Pixels the header needs: about 0.56 em (0.58 bold) per character of DejaVu Sans. */
static double header_width(const header_t *h)
{
    double w = 24 + 0.58 * 16 * (double)text_len(h->title);
    for (int i = 0; i < 3; i++) {
        double wi = 24 + 0.56 * 12 * (double)text_len(h->sub[i]);
        w = wi > w ? wi : w;
    }
    return ceil(w);
}

static void draw_header(viz_svg_t *s, const header_t *h)
{
    viz_svg_text(s, 12, 22, VIZ_START, "title", "%s", h->title);
    for (int i = 0; i < 3; i++)
        viz_svg_text(s, 12, 42 + 18 * i, VIZ_START, "subtitle", "%s", h->sub[i]);
}

cm_status_t viz_orders(FILE *out, an_model_t *m, const viz_opts_t *o, cm_err_t *err)
{
    const an_model_size_t *sz = NULL;
    const an_model_orders_t *ord = NULL;
    cm_status_t st = load(m, o, &sz, &ord, err);
    if (st != CM_OK)
        return st;
    const an_model_wrapper_t *w = &m->tree.wrappers[ord->node];
    header_t h;
    header_make(&h, m, w, ord, sz, o->subtree);
    layout_t l = layout_make(ord->n, header_width(&h));
    key_scale(&l, ord);

    viz_svg_t s;
    viz_svg_begin(&s, out, l.width, l.height, h.title, ORDERS_CSS);
    draw_header(&s, &h);
    draw_axes(&s, &l);
    draw_cells(&s, &l, ord);
    draw_key(&s, &l);
    viz_svg_end(&s);
    return CM_OK;
}
