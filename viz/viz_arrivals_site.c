/*
 * viz_arrivals_site.c - `papviz arrivals-by-site`: the process arrival
 * pattern of an application trace, one row per call site (Faraj, Patarasuk
 * and Yuan, "A Study of Process Arrival Patterns for MPI Collective
 * Operations": the arrival times a_i of each operation, taken from its
 * earliest rank).
 *
 * A row per call site, in the report's order (time lost waiting, most
 * first): at the left the site's label and collective; in the plot a grey
 * band from 0 to the largest arrival of any rank there (the spread), and
 * per rank a thin line from its earliest to its latest arrival and a dot at
 * its mean arrival, numbered with the rank; the rank most often last is
 * red.  Each row has its own scale, printed at its right with the time lost
 * waiting: a row shows the pattern of its site, not the sites' sizes
 * against each other (the report's table does that).
 *
 * Invariants: all numbers come from an_model_mpi_t; the only arithmetic here
 * is layout.  Output depends on the model alone.
 */
#include <math.h>
#include <stdio.h>

#include "viz/api/viz.h"
#include "viz/viz_svg_int.h"

#define X0     300.0   /* px: left edge of the plot (labels to its left) */
#define PW     460.0   /* px: plot width */
#define WIDTH  960.0   /* px: the canvas (scale and wait at the right) */
#define TOP    70.0    /* px: title and caption */
#define ROW_H  44.0    /* px: one call site */

static const char ARR_CSS[] =
    ".a-head{font-size:13px;font-weight:bold;fill:#222}\n"
    ".a-cap{font-size:10px;fill:#444}\n"
    ".a-lab{font-size:11px;fill:#222}\n"
    ".a-lab-s{font-size:9px;fill:#555}\n"
    ".a-band{fill:#e6e6e6}\n"
    ".a-row{fill:#fafafa}\n"
    ".a-zero{stroke:#222222;stroke-width:1}\n"
    ".a-range{stroke:#3b6ea5;stroke-width:1.5}\n"
    ".a-dot{fill:#3b6ea5}\n"
    ".a-last{fill:#c0392b}\n"
    ".a-rank{font-size:8px;fill:#222}\n";

static double row_max(const an_model_mpi_site_t *s)
{
    double mx = 0;

    for (int r = 0; r < s->nranks; r++)
        if (s->ranks[r].max_a > mx)
            mx = s->ranks[r].max_a;
    return mx;
}

static void draw_rank(viz_svg_t *svg, const an_model_mpi_site_t *s, const an_model_mpi_rank_t *k,
                      double y, double scale)
{
    double x = X0 + k->mean_a * scale;
    int last = k->rank == s->last_rank;

    viz_svg_group_begin(svg, "a-r", "rank %d: mean arrival %.3f us after the earliest "
                        "(min %.3f, max %.3f) over %lld calls%s", k->rank, k->mean_a / 1e3,
                        k->min_a / 1e3, k->max_a / 1e3, (long long)k->n,
                        last ? "; most often last" : "");
    viz_svg_line(svg, X0 + k->min_a * scale, y, X0 + k->max_a * scale, y, "a-range");
    viz_svg_circle(svg, x, y, 4, last ? "a-last" : "a-dot", NULL);
    viz_svg_text(svg, x, y - 6, VIZ_MIDDLE, "a-rank", "%d", k->rank);
    viz_svg_group_end(svg);
}

static void draw_site(viz_svg_t *svg, const an_model_mpi_site_t *s, double top)
{
    double mx = row_max(s), scale = mx > 0 ? PW / mx : 0;
    double mid = top + ROW_H / 2;

    viz_svg_group_begin(svg, "a-site", "%s (%s): %s, %lld calls, %lld operations, spread "
                        "%.3f us, wait %.1f %%", s->label, s->name, s->collectives,
                        (long long)s->calls, (long long)s->ops,
                        isnan(s->spread) ? 0.0 : s->spread / 1e3,
                        isnan(s->wait_pct) ? 0.0 : s->wait_pct);
    viz_svg_rect(svg, 10, top + 2, WIDTH - 20, ROW_H - 4, "a-row", NULL);
    viz_svg_text(svg, X0 - 10, mid - 2, VIZ_END, "a-lab", "%s", s->label);
    if (s->choices != NULL)    /* an auto rule's choices, most first */
        viz_svg_text(svg, X0 - 10, mid + 11, VIZ_END, "a-lab-s", "%s, %lld calls, auto: %s",
                     s->collectives, (long long)s->calls, s->choices);
    else
        viz_svg_text(svg, X0 - 10, mid + 11, VIZ_END, "a-lab-s", "%s, %lld calls, %s",
                     s->collectives, (long long)s->calls, s->algorithms);
    viz_svg_rect(svg, X0, mid - 8, mx * scale, 16, "a-band", NULL);
    viz_svg_line(svg, X0, top + 6, X0, top + ROW_H - 6, "a-zero");
    for (int r = 0; r < s->nranks; r++)
        draw_rank(svg, s, &s->ranks[r], mid + 3, scale);
    viz_svg_text(svg, X0 + PW + 16, mid - 2, VIZ_START, "a-lab-s", "0 .. %.3f us", mx / 1e3);
    if (!isnan(s->wait_pct))
        viz_svg_text(svg, X0 + PW + 16, mid + 11, VIZ_START, "a-lab-s", "wait %.1f %%, "
                     "last: rank %d", s->wait_pct, s->last_rank);
    viz_svg_group_end(svg);
}

cm_status_t viz_arrivals_by_site(FILE *out, const an_model_mpi_t *m, cm_err_t *err)
{
    viz_svg_t svg;
    double height = TOP + ROW_H * (m->nsites > 0 ? m->nsites : 1) + 20;

    if (m->nsites == 0)
        return CM_ERR_AT(err, CM_ERR_INVALID, m->db, 0, 0, "no collective call in the trace: "
                         "nothing to draw");
    viz_svg_begin(&svg, out, WIDTH, height, "papviz arrivals-by-site", ARR_CSS);
    viz_svg_text(&svg, 10, 22, VIZ_START, "a-head", "Arrival pattern per call site (%d ranks)",
                 m->nranks);
    viz_svg_text(&svg, 10, 40, VIZ_START, "a-cap", "each rank's arrival after the operation's "
                 "earliest: dot = mean, line = min to max, grey = the site's spread; red = the "
                 "rank most often last; rows by time lost waiting, each on its own scale");
    viz_svg_text(&svg, 10, 54, VIZ_START, "a-cap", "%s", m->command);
    for (int i = 0; i < m->nsites; i++)
        draw_site(&svg, &m->sites[i], TOP + ROW_H * i);
    viz_svg_end(&svg);
    return CM_OK;
}
