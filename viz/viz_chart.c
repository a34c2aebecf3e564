/*
 * viz_chart.c - scales, ticks, axes, legends and colours shared by the
 * charts (see viz_chart_int.h).
 */
#include <math.h>
#include <stdio.h>

#include "viz/viz_chart_int.h"

double viz_nice(double *lo, double *hi, int target)
{
    if (!(*hi > *lo)) {
        *lo -= 1;
        *hi = *lo + 2;
    }
    if (target < 1)
        target = 1;
    double raw = (*hi - *lo) / target;
    double mag = pow(10, floor(log10(raw)));
    double f = raw / mag;
    double step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
    *lo = floor(*lo / step + 1e-9) * step;
    *hi = ceil(*hi / step - 1e-9) * step;
    return step;
}

/* Ticks at multiples of step over sc's domain (at most 1000). */
static int tick_count(const viz_scale_t *sc, double step)
{
    if (!(step > 0))
        return 0;
    double lo = fmin(sc->d0, sc->d1), hi = fmax(sc->d0, sc->d1);
    int n = (int)floor((hi - lo) / step + 1e-9) + 1;
    return n > 1000 ? 1000 : n;
}

static double tick_value(const viz_scale_t *sc, double step, int i)
{
    double v = fmin(sc->d0, sc->d1) + i * step;
    return fabs(v) < step * 1e-9 ? 0 : v;     /* no "-0" */
}

void viz_axis_x(viz_svg_t *s, const viz_scale_t *sc, double y, double step, const char *label)
{
    viz_svg_line(s, sc->r0, y, sc->r1, y, "axis");
    int n = tick_count(sc, step);
    for (int i = 0; i < n; i++) {
        double v = tick_value(sc, step, i), x = viz_scale_map(sc, v);
        viz_svg_line(s, x, y, x, y + 5, "tick");
        viz_svg_text(s, x, y + 18, VIZ_MIDDLE, NULL, "%g", v);
    }
    if (label != NULL)
        viz_svg_text(s, (sc->r0 + sc->r1) / 2, y + 38, VIZ_MIDDLE, NULL, "%s", label);
}

void viz_axis_y(viz_svg_t *s, const viz_scale_t *sc, double x, double step, const char *label)
{
    viz_svg_line(s, x, sc->r0, x, sc->r1, "axis");
    int n = tick_count(sc, step);
    for (int i = 0; i < n; i++) {
        double v = tick_value(sc, step, i), y = viz_scale_map(sc, v);
        viz_svg_line(s, x - 5, y, x, y, "tick");
        viz_svg_text(s, x - 8, y + 4, VIZ_END, NULL, "%g", v);
    }
    if (label != NULL)
        viz_svg_text_vertical(s, x - 50, (sc->r0 + sc->r1) / 2, NULL, "%s", label);
}

void viz_grid_x(viz_svg_t *s, const viz_scale_t *sc, double step, double y0, double y1)
{
    int n = tick_count(sc, step);
    for (int i = 0; i < n; i++) {
        double x = viz_scale_map(sc, tick_value(sc, step, i));
        viz_svg_line(s, x, y0, x, y1, "grid");
    }
}

void viz_grid_y(viz_svg_t *s, const viz_scale_t *sc, double step, double x0, double x1)
{
    int n = tick_count(sc, step);
    for (int i = 0; i < n; i++) {
        double y = viz_scale_map(sc, tick_value(sc, step, i));
        viz_svg_line(s, x0, y, x1, y, "grid");
    }
}

double viz_legend(viz_svg_t *s, double x, double y, const char *const *labels,
                  const char *const *colours, int n, int lines)
{
    const double row = 16, pad = 6;
    size_t longest = 0;
    for (int i = 0; i < n; i++) {
        size_t len = 0;
        for (const unsigned char *p = (const unsigned char *)labels[i]; *p; p++)
            len += (*p & 0xc0) != 0x80;     /* characters, not bytes */
        longest = len > longest ? len : longest;
    }
    double h = n * row + 2 * pad, w = 30 + 7.0 * (double)longest + 2 * pad;
    if (n == 0)
        return 0;
    viz_svg_rect(s, x, y, w, h, "legend", NULL);
    for (int i = 0; i < n; i++) {
        double cy = y + pad + row * i + row / 2;
        if (lines) {
            double lx[2] = { x + pad, x + pad + 20 }, ly[2] = { cy, cy };
            viz_svg_polyline(s, lx, ly, 2, "series", colours[i]);
        } else {
            viz_svg_rect(s, x + pad + 4, cy - 5, 10, 10, NULL, colours[i]);
        }
        viz_svg_text(s, x + pad + 26, cy + 4, VIZ_START, NULL, "%s", labels[i]);
    }
    return h;
}

/* Tableau 10: distinct, colour-blind aware, readable on white. */
static const char *const palette[10] = {
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
};

const char *viz_colour(int i)
{
    return palette[(i % 10 + 10) % 10];
}

void viz_colour_seq(double t, char buf[8])
{
    /* Linear in three segments: #ffffcc -> #fd8d3c -> #bd0026 -> #67000d. */
    static const double stop[4][3] = {
        { 255, 255, 204 }, { 253, 141, 60 }, { 189, 0, 38 }, { 103, 0, 13 },
    };
    if (!(t > 0))
        t = 0;
    if (t > 1)
        t = 1;
    int k = t >= 1 ? 2 : (int)(t * 3);
    double f = t * 3 - k;
    int c[3];
    for (int j = 0; j < 3; j++)
        c[j] = (int)lround(stop[k][j] + (stop[k + 1][j] - stop[k][j]) * f);
    snprintf(buf, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
}

const char *viz_us(char *buf, size_t len, double ns)
{
    snprintf(buf, len, "%.3f", ns / 1000.0);
    return buf;
}
