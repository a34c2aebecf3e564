/*
 * viz_chart_int.h - what several charts share: linear scales with "nice" ticks,
 * axes, legends, colours and number formats.  Drawing goes through
 * viz_svg_int.h; nothing here knows about allreduce.
 */
#ifndef VIZ_CHART_INT_H
#define VIZ_CHART_INT_H

#include <stddef.h>
#include "viz/viz_svg_int.h"

/* Maps the domain [d0, d1] linearly onto the range [r0, r1] (pixels; r1 < r0
 * for a y axis that grows upward). */
typedef struct viz_scale {
    double d0, d1, r0, r1;
} viz_scale_t;

static inline double viz_scale_map(const viz_scale_t *sc, double v)
{
    if (sc->d1 == sc->d0)
        return (sc->r0 + sc->r1) / 2;
    return sc->r0 + (v - sc->d0) * (sc->r1 - sc->r0) / (sc->d1 - sc->d0);
}

/* Widens [*lo, *hi] to multiples of a 1-2-5 step giving about `target`
 * intervals; returns the step.  An empty domain becomes [lo - 1, lo + 1]. */
double viz_nice(double *lo, double *hi, int target);

/* A horizontal axis at pixel row y over sc's range: line, ticks every `step`
 * of the domain with labels ("%g" of the value), and `label` centred below. */
void viz_axis_x(viz_svg_t *s, const viz_scale_t *sc, double y, double step, const char *label);

/* A vertical axis at pixel column x, labels to the left, `label` rotated. */
void viz_axis_y(viz_svg_t *s, const viz_scale_t *sc, double x, double step, const char *label);

/* Light grid lines across the plot at each x tick (between y0 and y1). */
void viz_grid_x(viz_svg_t *s, const viz_scale_t *sc, double step, double y0, double y1);
void viz_grid_y(viz_svg_t *s, const viz_scale_t *sc, double step, double x0, double x1);

/* A legend box at (x, y), one row per entry: a swatch of colours[i] (a line
 * if `lines`, else a square) and labels[i] (escaped).  Returns its height. */
double viz_legend(viz_svg_t *s, double x, double y, const char *const *labels,
                  const char *const *colours, int n, int lines);

/* Categorical colours, readable on white, cycling after 10. */
const char *viz_colour(int i);

/* A sequential colour for t in [0, 1] (light yellow -> dark red) into
 * buf ("#rrggbb", 8 bytes). */
void viz_colour_seq(double t, char buf[8]);

/* Nanoseconds as microseconds with 3 decimals ("12.345"), into buf. */
const char *viz_us(char *buf, size_t len, double ns);

#endif /* VIZ_CHART_INT_H */
