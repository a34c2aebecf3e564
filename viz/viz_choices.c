/*
 * viz_choices.c - `papviz choices`: what `auto` chose, marked on the
 * arrival pattern each choice saw (docs/auto.md; docs/papviz.md).
 *
 * One dot per auto operation: x its place (by site, then in trace order),
 * y the spread of the arrival vector the choice was made from (latest
 * minus earliest arrival, the pattern's size), colour the chosen candidate
 * (legend with how often each was chosen); an operation whose ranks chose
 * differently (a defect) has a red ring.  A dashed line and the site's name
 * start each call site or node.  Hover: the operation, its choice, spread,
 * measured time and predicted regret.
 *
 * Invariants: every number comes from an_model_choices_t; the only
 * arithmetic here is layout.
 */
#include <math.h>
#include <stdio.h>

#include "viz/api/viz.h"
#include "viz/viz_chart_int.h"

#define X0     80.0    /* px: the plot's left edge */
#define X1     760.0   /* px: its right edge (the legend to its right) */
#define Y0     90.0    /* px: its top */
#define Y1     430.0   /* px: its bottom */
#define WIDTH  960.0
#define HEIGHT 490.0

static const char CH_CSS[] =
    ".c-head{font-size:13px;font-weight:bold;fill:#222}\n"
    ".c-cap{font-size:10px;fill:#444}\n"
    ".c-site{stroke:#999;stroke-width:1;stroke-dasharray:4 3}\n"
    ".c-sitelab{font-size:9px;fill:#555}\n"
    ".c-bad{fill:none;stroke:#c0392b;stroke-width:2}\n";

cm_status_t viz_choices(FILE *out, const an_model_choices_t *m, cm_err_t *err)
{
    viz_svg_t svg;
    viz_scale_t sx, sy;
    double lo = 0, hi = 0, step, xlo = 0, xhi, xstep;
    const char *labels[16], *colours[16];
    char lab[16][96], us1[32], us2[32];
    int nleg = m->nnames < 16 ? m->nnames : 16;

    if (m->nops == 0)
        return CM_ERR_AT(err, CM_ERR_INVALID, m->db, 0, 0, "no choice of auto: nothing to draw");
    for (int64_t i = 0; i < m->nops; i++)
        hi = m->ops[i].spread_ns / 1e3 > hi ? m->ops[i].spread_ns / 1e3 : hi;
    step = viz_nice(&lo, &hi, 6);
    xhi = (double)(m->nops > 1 ? m->nops - 1 : 1);
    xstep = viz_nice(&xlo, &xhi, 8);
    sx = (viz_scale_t){ xlo, xhi, X0, X1 };
    sy = (viz_scale_t){ lo, hi, Y1, Y0 };
    viz_svg_begin(&svg, out, WIDTH, HEIGHT, "papviz choices", CH_CSS);
    viz_svg_text(&svg, 10, 22, VIZ_START, "c-head", "What auto chose, and the arrival spread "
                 "each choice saw (%lld operations, %s trace)", (long long)m->nops, m->kind);
    viz_svg_text(&svg, 10, 40, VIZ_START, "c-cap", "a dot per operation: y = latest minus "
                 "earliest arrival of the vector the choice was made from, colour = the "
                 "candidate chosen; red ring = the ranks chose differently");
    viz_svg_text(&svg, 10, 54, VIZ_START, "c-cap", "%s", m->db);
    viz_grid_y(&svg, &sy, step, X0, X1);
    viz_axis_x(&svg, &sx, Y1, xstep, "operation (by site, then in trace order)");
    viz_axis_y(&svg, &sy, X0, step, "arrival spread (us)");
    for (int64_t i = 0; i < m->nops; i++) {
        const an_model_choice_op_t *o = &m->ops[i];
        double x = viz_scale_map(&sx, (double)i), y = viz_scale_map(&sy, o->spread_ns / 1e3);

        if (i == 0 || o->site != m->ops[i - 1].site) {
            viz_svg_line(&svg, x, Y0 - 14, x, Y1, "c-site");
            viz_svg_text(&svg, x + 3, Y0 - 16, VIZ_START, "c-sitelab", "%s",
                         m->sites[o->site]);
        }
        viz_svg_group_begin(&svg, "c-op", "%s, %s %lld op %lld, %lld bytes: %s; spread %s us, "
                            "measured %s us, regret %.3f%s", m->sites[o->site],
                            m->kind[0] == 't' ? "instance" : "communicator",
                            (long long)o->instance, (long long)o->op, (long long)o->bytes,
                            m->names[o->cand], viz_us(us1, sizeof(us1), o->spread_ns),
                            isnan(o->measured_ns) ? "?" : viz_us(us2, sizeof(us2),
                                                                 o->measured_ns),
                            isnan(o->regret) ? 0.0 : o->regret,
                            o->agreed ? "" : "; the ranks chose differently");
        viz_svg_circle(&svg, x, y, 4, NULL, viz_colour(o->cand));
        if (!o->agreed)
            viz_svg_circle(&svg, x, y, 7, "c-bad", NULL);
        viz_svg_group_end(&svg);
    }
    for (int i = 0; i < nleg; i++) {
        snprintf(lab[i], sizeof(lab[i]), "%s (%lld)", m->names[i], (long long)m->counts[i]);
        labels[i] = lab[i];
        colours[i] = viz_colour(i);
    }
    viz_legend(&svg, X1 + 20, Y0, labels, colours, nleg, 0);
    viz_svg_end(&svg);
    return CM_OK;
}
