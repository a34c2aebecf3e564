/*
 * viz_timemap.c - the timemap (paper Figures 12-14, 17-20): where the mean
 * time of each thread goes along its path through the tree.
 *
 * x = mean time (µs) relative to entering the core wrapper: the down path to
 * the left of 0, the core and the up path to the right.  y = the stages of
 * the path in the order the thread lives them (an_model_path_t.stages), entry
 * at the bottom, exit at the top.  A thread is one polyline through its stage
 * boundaries: the segment of stage k goes from level k to level k + 1, so its
 * horizontal extent is the stage's mean time (a lifeline, after NetLogger).
 * Arrival waits are left out unless asked for; the other stages keep their
 * order.
 *
 * Paths of unequal length (threads with more proxies, or --compare
 * configurations) are scaled to the same y0 and ymax, as the paper does: a
 * path of n stages puts boundary k at k / n.  The y axis names stages only
 * where the names are true for every line: when all drawn paths have one
 * stage sequence (same wrapper names and stage kinds) its names are on the
 * left; with two sequences (two configurations, a thread with and one without
 * a proxy) the second one's are on the right.  All threads of one tree rarely
 * share wrapper names, so then the sequences are compared by place in the
 * tree (wrapper kind, part, level: "host gred (level 5): up"); a regular tree
 * has one or two such shapes.  Beyond two, the axis is the position along the
 * path (0 = entry, 1 = exit) and the tooltips name each stage.
 *
 * Colours: one model and all (or many) threads: by host; one model and a few
 * --thread: per thread; --compare: per configuration (per configuration and
 * thread when that still fits in ten colours).
 *
 * Invariants: every input is checked before the first byte is written; the
 * output is a function of the models and options (models in order, threads
 * in tree order, fixed number formats).  Workload: a few models of at most a
 * few hundred threads of a few dozen stages.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viz/api/viz.h"
#include "viz/viz_algo_int.h"
#include "viz/viz_chart_int.h"
#include "viz/viz_svg_int.h"

#define LABEL_MAX 128        /* legend and stage labels (bytes) */
#define STAGE_LABEL_CHARS 36 /* longer wrapper names are cut on the y axis */
#define STAGE_TEXT_MAX 256   /* a stage label: kind, cut name, stage */
#define PLOT_W 720.0
#define LEVEL_H 22.0         /* pixels per stage of the longest path */
#define FEW_THREADS 10       /* up to this many --thread: a colour each */
#define ALGO_FILL "#e3f2dc"  /* the band of an algorithm node's stage (its kind's green) */

typedef enum { BY_HOST, BY_THREAD, BY_MODEL, BY_MODEL_THREAD } colour_mode_t;

/* One drawn path: a thread of one model. */
typedef struct tm_line {
    const an_model_t        *m;
    int                      model;  /* index in models */
    const an_model_thread_t *th;
    const an_model_path_t   *path;
    int                     *stage;  /* indices into path->stages of the drawn stages */
    double                  *x;      /* n + 1 boundaries, ns relative to entering the core */
    int                      n;      /* drawn stages */
    int                      colour; /* legend entry */
} tm_line_t;

typedef struct tm {
    an_model_t *const *models;
    int                nmodels;
    const viz_opts_t  *o;
    int64_t            bytes;
    tm_line_t         *lines;
    int                nlines;
    int               *ibuf;         /* storage of lines[].stage */
    double            *dbuf;         /* storage of lines[].x */
    int                nseq;         /* distinct stage sequences: 1, 2, or 3 = more */
    const tm_line_t   *rep[2];       /* the first line of the first two sequences */
    int                nrep[2];      /* lines with that sequence */
    int                structural;   /* sequences compared by place, not name */
    int                maxn;
    double             xmin, xmax;   /* ns */
    colour_mode_t      mode;
    char             (*label)[LABEL_MAX];   /* legend labels, then model labels */
    const char       **legend;
    const char       **colours;
    int                nlegend;
    const char       **mlabel;       /* per model */
    int                nalgo;        /* lines whose root is an algorithm node */
    const char        *root;         /* "core", "algorithm node", or both */
} tm_t;

static const char *const stage_label[] = {
    [AN_STAGE_ARRIVAL_WAIT] = "arrival wait",
    [AN_STAGE_DOWN] = "down",
    [AN_STAGE_LATENCY] = "latency",
    [AN_STAGE_UP] = "up",
    [AN_STAGE_DEPARTURE_WAIT] = "departure wait",
};

static const char tm_css[] =
    ".tmhit{fill:none;stroke:#000;stroke-opacity:0;stroke-width:9;pointer-events:stroke}\n"
    ".tmline{stroke-linejoin:round;stroke-opacity:0.85}\n"
    ".tmdot{stroke:none}\n"
    ".tmband{fill:#f7f7f7}\n";

/* Strings of the model may be NULL for a model built by hand. */
static const char *str(const char *s)
{
    return s != NULL ? s : "";
}

static const char *kind_label(const an_model_stage_t *st)
{
    return st->kind >= AN_STAGE_ARRIVAL_WAIT && st->kind <= AN_STAGE_DEPARTURE_WAIT
           ? stage_label[st->kind] : str(st->name);
}

static const an_model_wrapper_t *stage_wrapper(const an_model_t *m, const an_model_stage_t *st)
{
    static const an_model_wrapper_t unknown = { .node = -1, .name = "?", .kind_name = "?" };
    if (st->node < 0 || st->node >= m->tree.nwrappers)
        return &unknown;
    return &m->tree.wrappers[st->node];
}

static const char *host_name(const an_model_t *m, int host)
{
    if (host < 0 || host >= m->tree.nhosts || m->tree.hosts[host].name == NULL)
        return "?";
    return m->tree.hosts[host].name;
}

static int is_algo(const an_model_wrapper_t *w)
{
    return w->kind == AN_KIND_ALGO;
}

/* What an algorithm node runs (viz_algo_int.h), "" without a description. */
static void algo_text(const an_model_wrapper_t *w, char *buf, size_t len)
{
    viz_algo_text(w->algo, buf, len);
}

/* A stage's mean, 0 where the statistics have no sample (or no number). */
static double stage_mean(const an_model_stage_t *st)
{
    return st->s.n > 0 && isfinite(st->s.mean) ? st->s.mean : 0;
}

/* ---- input ----------------------------------------------------------------- */

static cm_status_t check_input(tm_t *tm, cm_err_t *err)
{
    const viz_opts_t *o = tm->o;
    if (tm->nmodels < 1)
        return CM_ERR(err, CM_ERR_INVALID, "timemap: no database");
    tm->bytes = o->bytes;
    if (tm->bytes < 0) {
        const an_model_size_t *sz = an_model_size(tm->models[0], -1);
        if (sz == NULL)
            return CM_ERR_AT(err, CM_ERR_INVALID, tm->models[0]->db, 0, 0,
                             "no statistics in the database (no tuple size)");
        tm->bytes = sz->bytes;
    }
    for (int i = 0; i < tm->nmodels; i++) {
        const an_model_t *m = tm->models[i];
        if (an_model_size(m, tm->bytes) == NULL)
            return CM_ERR_AT(err, CM_ERR_INVALID, m->db, 0, 0,
                             "no statistics for tuple size %lld bytes", (long long)tm->bytes);
        for (int k = 0; k < o->nthreads; k++)
            if (an_model_thread_index(&m->tree, o->threads[k]) < 0)
                return CM_ERR_AT(err, CM_ERR_NAME, m->db, 0, 0,
                                 "thread %d is not in the tree (threads 0..%d)",
                                 o->threads[k], m->tree.nthreads - 1);
    }
    return CM_OK;
}

static int selected(const viz_opts_t *o, int thread)
{
    if (o->threads == NULL || o->nthreads <= 0)
        return 1;
    for (int k = 0; k < o->nthreads; k++)
        if (o->threads[k] == thread)
            return 1;
    return 0;
}

/* Distinct threads asked for with --thread (0: all). */
static int distinct_threads(const viz_opts_t *o)
{
    int n = 0;
    for (int k = 0; o->threads != NULL && k < o->nthreads; k++) {
        int seen = 0;
        for (int j = 0; j < k; j++)
            seen |= o->threads[j] == o->threads[k];
        n += !seen;
    }
    return n;
}

/* Picks the stages to draw and places their boundaries: x = 0 where the core
 * stage starts (or, without one, where the up path starts). */
static void line_place(tm_line_t *l, int with_arrival_wait)
{
    const an_model_path_t *p = l->path;
    int core = -1;
    l->n = 0;
    for (int i = 0; i < p->nstages; i++) {
        const an_model_stage_t *st = &p->stages[i];
        if (st->kind == AN_STAGE_ARRIVAL_WAIT && !with_arrival_wait)
            continue;
        if (core < 0 && (st->kind == AN_STAGE_LATENCY || st->up))
            core = l->n;
        l->stage[l->n++] = i;
    }
    if (core < 0)
        core = l->n;
    l->x[core] = 0;
    for (int k = core; k < l->n; k++)
        l->x[k + 1] = l->x[k] + stage_mean(&p->stages[l->stage[k]]);
    for (int k = core - 1; k >= 0; k--)
        l->x[k] = l->x[k + 1] - stage_mean(&p->stages[l->stage[k]]);
}

/* The drawn threads, models in order and threads in tree order. */
static cm_status_t build_lines(tm_t *tm, cm_err_t *err)
{
    size_t nl = 0, ns = 0;
    for (int i = 0; i < tm->nmodels; i++) {
        const an_model_t *m = tm->models[i];
        const an_model_size_t *sz = an_model_size(m, tm->bytes);
        for (int t = 0; t < m->tree.nthreads; t++)
            if (selected(tm->o, m->tree.threads[t].thread) && sz->paths[t].nstages > 0) {
                nl++;
                ns += (size_t)sz->paths[t].nstages;
            }
    }
    if (nl == 0)
        return CM_ERR_AT(err, CM_ERR_INVALID, tm->models[0]->db, 0, 0,
                         "no thread has stages for tuple size %lld bytes",
                         (long long)tm->bytes);
    tm->lines = calloc(nl, sizeof *tm->lines);
    tm->ibuf = malloc(ns * sizeof *tm->ibuf);
    tm->dbuf = malloc((ns + nl) * sizeof *tm->dbuf);
    if (tm->lines == NULL || tm->ibuf == NULL || tm->dbuf == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "timemap: out of memory");
    int *ip = tm->ibuf;
    double *dp = tm->dbuf;
    for (int i = 0; i < tm->nmodels; i++) {
        const an_model_t *m = tm->models[i];
        const an_model_size_t *sz = an_model_size(m, tm->bytes);
        for (int t = 0; t < m->tree.nthreads; t++) {
            const an_model_path_t *p = &sz->paths[t];
            if (!selected(tm->o, m->tree.threads[t].thread) || p->nstages == 0)
                continue;
            tm_line_t *l = &tm->lines[tm->nlines++];
            *l = (tm_line_t){ .m = m, .model = i, .th = &m->tree.threads[t], .path = p,
                              .stage = ip, .x = dp };
            ip += p->nstages;
            dp += p->nstages + 1;
            line_place(l, tm->o->with_arrival_wait);
            if (l->n == 0)      /* only arrival waits: nothing to draw */
                tm->nlines--;
        }
    }
    if (tm->nlines == 0)
        return CM_ERR_AT(err, CM_ERR_INVALID, tm->models[0]->db, 0, 0,
                         "no stage to draw for tuple size %lld bytes", (long long)tm->bytes);
    return CM_OK;
}

/* Whether two wrappers have the same place in the tree: by name, or (when
 * `structural`) by kind, part of the tree and level. */
static int same_place(const an_model_wrapper_t *a, const an_model_wrapper_t *b, int structural)
{
    if (!structural)
        return strcmp(str(a->name), str(b->name)) == 0;
    return a->level == b->level && strcmp(str(a->kind_name), str(b->kind_name)) == 0 &&
           strcmp(str(a->part), str(b->part)) == 0;
}

/* Whether lines a and b go through the same stages (by wrapper name, so that
 * two configurations of one tree compare equal, or by structure). */
static int same_sequence(const tm_line_t *a, const tm_line_t *b, int structural)
{
    if (a->n != b->n)
        return 0;
    for (int k = 0; k < a->n; k++) {
        const an_model_stage_t *sa = &a->path->stages[a->stage[k]];
        const an_model_stage_t *sb = &b->path->stages[b->stage[k]];
        if (sa->kind != sb->kind ||
            !same_place(stage_wrapper(a->m, sa), stage_wrapper(b->m, sb), structural))
            return 0;
    }
    return 1;
}

/* Splits the lines by stage sequence: tm->nseq = 1, 2 or 3 (more). */
static void group_lines(tm_t *tm, int structural)
{
    tm->nseq = 0;
    tm->structural = structural;
    for (int i = 0; i < tm->nlines; i++) {
        const tm_line_t *l = &tm->lines[i];
        int g = 0;
        while (g < tm->nseq && g < 2 && !same_sequence(l, tm->rep[g], structural))
            g++;
        if (g < tm->nseq && g < 2) {
            tm->nrep[g]++;
        } else if (tm->nseq < 2) {
            tm->rep[tm->nseq] = l;
            tm->nrep[tm->nseq++] = 1;
        } else {
            tm->nseq = 3;
        }
    }
}

/* The extent of the lines, and their stage sequences: the y axis names the
 * stages of one sequence on the left and of a second one on the right, by
 * wrapper name, or else by place in the tree (all threads of a regular tree
 * have one or two shapes of path: with or without proxies). */
static void measure(tm_t *tm)
{
    group_lines(tm, 0);
    if (tm->nseq > 2)
        group_lines(tm, 1);
    tm->maxn = 0;
    tm->xmin = tm->xmax = 0;
    tm->nalgo = 0;
    for (int i = 0; i < tm->nlines; i++) {
        const tm_line_t *l = &tm->lines[i];
        int algo = 0;
        for (int k = 0; k < l->n; k++)
            algo |= is_algo(stage_wrapper(l->m, &l->path->stages[l->stage[k]]));
        tm->nalgo += algo;
        tm->maxn = l->n > tm->maxn ? l->n : tm->maxn;
        for (int k = 0; k <= l->n; k++) {
            tm->xmin = fmin(tm->xmin, l->x[k]);
            tm->xmax = fmax(tm->xmax, l->x[k]);
        }
    }
    tm->root = tm->nalgo == 0 ? "core" : tm->nalgo == tm->nlines ? "algorithm node"
                                                                 : "root (core or algorithm node)";
}

/* ---- colours and legend ------------------------------------------------------ */

static void legend_host(tm_t *tm)
{
    const an_model_t *m = tm->models[0];
    for (int h = 0; h < m->tree.nhosts; h++) {
        int nthr = 0;
        for (int i = 0; i < tm->nlines; i++)
            nthr += tm->lines[i].th->host == h;
        if (nthr == 0)
            continue;
        for (int i = 0; i < tm->nlines; i++)
            if (tm->lines[i].th->host == h)
                tm->lines[i].colour = tm->nlegend;
        const char *machine = str(m->tree.hosts[h].hostname);
        snprintf(tm->label[tm->nlegend++], LABEL_MAX, "%s%s%s%s: %d thread%s", host_name(m, h),
                 machine[0] ? " (" : "", machine, machine[0] ? ")" : "", nthr,
                 nthr == 1 ? "" : "s");
    }
}

static void legend_lines(tm_t *tm)
{
    for (int i = 0; i < tm->nlines; i++) {
        const tm_line_t *l = &tm->lines[i];
        tm->lines[i].colour = tm->nlegend;
        if (tm->mode == BY_THREAD)
            snprintf(tm->label[tm->nlegend++], LABEL_MAX, "thread %d (host %s)",
                     l->th->thread, host_name(l->m, l->th->host));
        else
            snprintf(tm->label[tm->nlegend++], LABEL_MAX, "%s, thread %d",
                     tm->mlabel[l->model], l->th->thread);
    }
}

static void legend_models(tm_t *tm)
{
    for (int i = 0; i < tm->nlines; i++)
        tm->lines[i].colour = tm->lines[i].model;
    for (int i = 0; i < tm->nmodels; i++)
        snprintf(tm->label[tm->nlegend++], LABEL_MAX, "%s", tm->mlabel[i]);
}

static cm_status_t make_legend(tm_t *tm, cm_err_t *err)
{
    int nhosts = tm->models[0]->tree.nhosts;
    int cap = tm->nlines > nhosts ? tm->nlines : nhosts;
    cap = (cap > tm->nmodels ? cap : tm->nmodels) + tm->nmodels;
    tm->label = calloc((size_t)cap, sizeof *tm->label);
    tm->legend = calloc((size_t)cap, sizeof *tm->legend);
    tm->colours = calloc((size_t)cap, sizeof *tm->colours);
    tm->mlabel = calloc((size_t)tm->nmodels, sizeof *tm->mlabel);
    if (!tm->label || !tm->legend || !tm->colours || !tm->mlabel)
        return CM_ERR(err, CM_ERR_NOMEM, "timemap: out of memory");
    for (int i = 0; i < tm->nmodels; i++) {   /* model labels at the end of label[] */
        char *buf = tm->label[cap - tm->nmodels + i];
        tm->mlabel[i] = viz_model_label(tm->models, tm->nmodels, tm->o, i, buf, LABEL_MAX);
    }
    int nsel = distinct_threads(tm->o);
    if (tm->nmodels > 1)
        tm->mode = nsel > 1 && tm->nlines <= FEW_THREADS ? BY_MODEL_THREAD : BY_MODEL;
    else
        tm->mode = nsel > 0 && tm->nlines <= FEW_THREADS ? BY_THREAD : BY_HOST;
    if (tm->mode == BY_HOST)
        legend_host(tm);
    else if (tm->mode == BY_MODEL)
        legend_models(tm);
    else
        legend_lines(tm);
    for (int i = 0; i < tm->nlegend; i++) {
        tm->legend[i] = tm->label[i];
        tm->colours[i] = viz_colour(i);
    }
    return CM_OK;
}

/* ---- layout -------------------------------------------------------------------- */

typedef struct tm_layout {
    double      left, top, plot_h, width, height;
    double      right;         /* x of the legend */
    viz_scale_t sx, sy;
    double      xstep;
    int         nsub;          /* subtitle lines */
} tm_layout_t;

/* Characters (not bytes) of a UTF-8 string. */
static size_t utf8_chars(const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        n += (*p & 0xc0) != 0x80;
    return n;
}

/* "gred h0: down", the wrapper's name cut to STAGE_LABEL_CHARS characters;
 * `structural`: "host gred (level 3): down". */
static void stage_text(const tm_line_t *l, int k, int structural, char *buf, size_t len)
{
    const an_model_stage_t *st = &l->path->stages[l->stage[k]];
    const an_model_wrapper_t *w = stage_wrapper(l->m, st);
    const char *part = str(w->part), *kind = str(w->kind_name);
    if (structural && (part[0] == '\0' || !strcmp(part, kind) || !strcmp(part, "core"))) {
        snprintf(buf, len, "%s (level %d): %s", kind, w->level, kind_label(st));
        return;
    }
    if (structural) {
        snprintf(buf, len, "%s %s (level %d): %s", part, kind, w->level, kind_label(st));
        return;
    }
    char name[4 * STAGE_LABEL_CHARS + 8];
    size_t chars = 0, i = 0;
    for (const char *p = str(w->name); *p && i + 5 < sizeof name; p++) {
        if ((*p & 0xc0) != 0x80 && chars++ == STAGE_LABEL_CHARS) {
            memcpy(name + i, "\u2026", 3);   /* … */
            i += 3;
            break;
        }
        name[i++] = *p;
    }
    name[i] = '\0';
    snprintf(buf, len, "%s %s: %s", kind, name, kind_label(st));
}

/* Width in pixels of the longest stage label of line l. */
static double labels_width(const tm_line_t *l, int structural)
{
    double w = 0;
    for (int k = 0; k < l->n; k++) {
        char buf[STAGE_TEXT_MAX];
        stage_text(l, k, structural, buf, sizeof buf);
        w = fmax(w, 7.0 * (double)utf8_chars(buf));
    }
    return w;
}

static void layout(const tm_t *tm, tm_layout_t *ly)
{
    double left_w = tm->nseq <= 2 ? labels_width(tm->rep[0], tm->structural) : 0;
    double right_w = tm->nseq == 2 ? labels_width(tm->rep[1], tm->structural) + 20 : 0;
    double legend_w = 0;
    for (int i = 0; i < tm->nlegend; i++)
        legend_w = fmax(legend_w, 42 + 7.0 * (double)utf8_chars(tm->legend[i]));
    if (tm->nalgo)
        legend_w = fmax(legend_w, 42 + 7.0 * 27);   /* "stage in the algorithm node" */
    ly->nsub = tm->nmodels + 2;
    ly->left = fmax(90, left_w + 40);
    ly->right = ly->left + PLOT_W + 30 + right_w;
    ly->top = 34 + 17.0 * ly->nsub + 26 + (tm->nseq == 2 ? 18 : 0);
    ly->plot_h = fmax(300, LEVEL_H * tm->maxn);
    ly->width = ly->right + legend_w + 20;
    ly->height = ly->top + fmax(ly->plot_h, 16.0 * tm->nlegend + 12 + (tm->nalgo ? 38 : 0)) + 60;
    double lo = tm->xmin / 1000, hi = tm->xmax / 1000;
    ly->xstep = viz_nice(&lo, &hi, 10);
    ly->sx = (viz_scale_t){ lo, hi, ly->left, ly->left + PLOT_W };
    ly->sy = (viz_scale_t){ 0, 1, ly->top + ly->plot_h, ly->top };
}

/* ---- drawing -------------------------------------------------------------------- */

static void threads_text(const tm_t *tm, char *buf, size_t len)
{
    const viz_opts_t *o = tm->o;
    int nsel = distinct_threads(o);
    if (nsel == 0 && tm->nmodels > 1) {
        snprintf(buf, len, "all threads");
        return;
    }
    if (nsel == 0 && tm->models[0]->tree.nthreads == 1) {
        snprintf(buf, len, "thread %d (the only one)", tm->models[0]->tree.threads[0].thread);
        return;
    }
    if (nsel == 0) {
        snprintf(buf, len, "all %d threads", tm->models[0]->tree.nthreads);
        return;
    }
    /* "thread 5", "threads 1 and 2", "threads 1, 2 and 7": the last joined
       by "and", so that the tuple size after the list is not read as one. */
    size_t at = (size_t)snprintf(buf, len, "thread%s", nsel > 1 ? "s" : "");
    for (int k = 0, shown = 0; k < o->nthreads && at < len; k++) {
        int seen = 0;
        for (int j = 0; j < k; j++)
            seen |= o->threads[j] == o->threads[k];
        if (seen)
            continue;
        shown++;
        at += (size_t)snprintf(buf + at, len - at, "%s %d",
                               shown == 1 ? "" : shown == nsel ? " and" : ",", o->threads[k]);
    }
}

static void draw_titles(viz_svg_t *s, const tm_t *tm, const char *title)
{
    viz_svg_text(s, 16, 26, VIZ_START, "title", "%s", title);
    double y = 26;
    for (int i = 0; i < tm->nmodels; i++) {
        const an_model_t *m = tm->models[i];
        y += 17;
        if (tm->nmodels > 1)
            viz_svg_text(s, 16, y, VIZ_START, "subtitle", "%s: trace %s, pathmap %s",
                         tm->mlabel[i], str(m->trace), str(m->pathmap_path));
        else
            viz_svg_text(s, 16, y, VIZ_START, "subtitle", "trace %s, pathmap %s",
                         str(m->trace), str(m->pathmap_path));
    }
    viz_svg_text(s, 16, y + 17, VIZ_START, "subtitle",
                 "One line per thread, one segment per stage of its path: a segment's width "
                 "is the stage's mean time.");
    int unequal = 0;
    for (int i = 0; i < tm->nlines; i++)
        unequal |= tm->lines[i].n != tm->maxn;
    viz_svg_text(s, 16, y + 34, VIZ_START, "subtitle", "%s%s%s Hover a segment for its values.",
                 tm->o->with_arrival_wait ? "Arrival waits drawn."
                                          : "Arrival waits not drawn.",
                 unequal ? " Paths of unequal length are scaled to the same height." : "",
                 tm->nalgo == 0 ? "" : tm->nseq == 1 ? " Green band: the algorithm node "
                                                       "(each host's visit, t1 to t4)."
                                                     : " The algorithm node is a stage of "
                                                       "its hosts' paths (t1 to t4).");
}

/* ", on host0, host1": the hosts of the lines with rep's sequence, when
 * they are of rep's model and at most three. */
static int group_hosts(const tm_t *tm, const tm_line_t *rep, char *buf, size_t len)
{
    int nh = 0;
    size_t at = 0;
    buf[0] = '\0';
    for (int h = 0; h < rep->m->tree.nhosts; h++) {
        int has = 0;
        for (int i = 0; i < tm->nlines && !has; i++) {
            const tm_line_t *l = &tm->lines[i];
            has = l->m == rep->m && l->th->host == h &&
                  same_sequence(l, rep, tm->structural);
        }
        if (has && ++nh <= 3 && at < len)
            at += (size_t)snprintf(buf + at, len - at, "%s%s", nh > 1 ? ", " : ", on ",
                                   host_name(rep->m, h));
    }
    return nh;
}

/* "thread 0 and 7 more, on host0" (with the configuration's name when
 * comparing and the group is of one configuration): whose path a y axis
 * names. */
static void group_text(const tm_t *tm, const tm_line_t *rep, int n, char *buf, size_t len)
{
    int one_model = 1;
    for (int i = 0; i < tm->nlines; i++)
        if (same_sequence(&tm->lines[i], rep, tm->structural))
            one_model &= tm->lines[i].model == rep->model;
    char hosts[3 * LABEL_MAX];
    if (!one_model || n == 1 || group_hosts(tm, rep, hosts, sizeof hosts) > 3)
        hosts[0] = '\0';
    int at = 0;
    if (tm->nmodels > 1 && one_model)
        at = snprintf(buf, len, "%s: ", tm->mlabel[rep->model]);
    if (n > 1)
        snprintf(buf + at, len - (size_t)at, "thread %d and %d more%s", rep->th->thread, n - 1,
                 hosts);
    else
        snprintf(buf + at, len - (size_t)at, "thread %d", rep->th->thread);
}

/* Stage names of line l in bands beside the axis at x (labels to the left
 * when side < 0, to the right otherwise). */
static void stage_axis(viz_svg_t *s, const tm_t *tm, const tm_layout_t *ly,
                       const tm_line_t *l, double x, int side, int bands)
{
    for (int k = 0; k < l->n; k++) {
        double ya = viz_scale_map(&ly->sy, (double)k / l->n);
        double yb = viz_scale_map(&ly->sy, (double)(k + 1) / l->n);
        char buf[STAGE_TEXT_MAX];
        if (bands && is_algo(stage_wrapper(l->m, &l->path->stages[l->stage[k]])))
            viz_svg_rect(s, ly->left, yb, PLOT_W, ya - yb, NULL, ALGO_FILL);
        else if (bands && k % 2 == 1)
            viz_svg_rect(s, ly->left, yb, PLOT_W, ya - yb, "tmband", NULL);
        stage_text(l, k, tm->structural, buf, sizeof buf);
        viz_svg_text(s, x + 8 * side, (ya + yb) / 2 + 4, side < 0 ? VIZ_END : VIZ_START, NULL,
                     "%s", buf);
    }
    for (int k = 0; k <= l->n; k++) {
        double y = viz_scale_map(&ly->sy, (double)k / l->n);
        viz_svg_line(s, x + 4 * side, y, x, y, "tick");
        if (bands)
            viz_svg_line(s, ly->left, y, ly->left + PLOT_W, y, "grid");
    }
    viz_svg_line(s, x, ly->sy.r0, x, ly->sy.r1, "axis");
}

/* The y axis: stage names (in bands) when the paths share them; with two
 * sequences, one on each side; else the position along the path. */
static void draw_y_axis(viz_svg_t *s, const tm_t *tm, const tm_layout_t *ly)
{
    double x0 = ly->left, x1 = ly->left + PLOT_W, ymid = ly->top + ly->plot_h / 2;
    if (tm->nseq > 2) {
        viz_axis_y(s, &ly->sy, x0, 0.25, NULL);
        viz_svg_text_vertical(s, x0 - 52, ymid, NULL,
                              "position along the path (0 = entry, 1 = exit)");
        return;
    }
    stage_axis(s, tm, ly, tm->rep[0], x0, -1, tm->nseq == 1);
    viz_svg_text_vertical(s, 16, ymid, NULL, "%s", tm->structural
                          ? (tm->nalgo ? "stages of the path, by place in the tree (level 0 = "
                                         "the root)"
                                       : "stages of the path, by place in the tree (level 0 = "
                                         "the core)")
                          : "stages of the path (entry at the bottom, exit at the top)");
    if (tm->nseq == 2) {
        char buf[LABEL_MAX];
        stage_axis(s, tm, ly, tm->rep[1], x1, 1, 0);
        group_text(tm, tm->rep[0], tm->nrep[0], buf, sizeof buf);
        viz_svg_text(s, 16, ly->top - 30, VIZ_START, "subtitle", "left: path of %s", buf);
        group_text(tm, tm->rep[1], tm->nrep[1], buf, sizeof buf);
        viz_svg_text(s, x1, ly->top - 30, VIZ_START, "subtitle", "right: path of %s", buf);
    }
}

static void draw_frame(viz_svg_t *s, const tm_t *tm, const tm_layout_t *ly)
{
    double y0 = ly->top, y1 = ly->top + ly->plot_h, zx = viz_scale_map(&ly->sx, 0);
    viz_grid_x(s, &ly->sx, ly->xstep, y0, y1);
    draw_y_axis(s, tm, ly);
    char xl[128];
    snprintf(xl, sizeof xl, tm->nalgo ? "mean time relative to entering the %s (\u00b5s)"
                                      : "mean time relative to entering the %s wrapper (\u00b5s)",
             tm->root);
    viz_axis_x(s, &ly->sx, y1, ly->xstep, xl);
    viz_svg_line(s, zx, y0 - 6, zx, y1, "zero");
    viz_svg_text(s, zx - 6, y0 - 10, VIZ_END, "subtitle", "\u2190 down path");
    if (tm->nalgo == 0)
        viz_svg_text(s, zx + 6, y0 - 10, VIZ_START, "subtitle",
                     "enter the core; core and up path \u2192");
    else
        viz_svg_text(s, zx + 6, y0 - 10, VIZ_START, "subtitle",
                     "enter the %s; its run and the up path \u2192", tm->root);
}

/* The tooltip of stage k of line l. */
static void segment_begin(viz_svg_t *s, const tm_t *tm, const tm_line_t *l, int k)
{
    const an_model_stage_t *st = &l->path->stages[l->stage[k]];
    const an_model_wrapper_t *w = stage_wrapper(l->m, st);
    const an_model_wrapper_t *entry =
        l->th->enter >= 0 && l->th->enter < l->m->tree.nwrappers
        ? &l->m->tree.wrappers[l->th->enter] : w;
    char mean[32], median[32], a[32], b[32], cum[32], algo[160] = "";
    if (is_algo(w) && w->algo != NULL && w->algo->algo != NULL && w->algo->algo[0]) {
        algo[0] = ' ';
        algo[1] = '(';
        algo_text(w, algo + 2, sizeof algo - 3);
        strcat(algo, ")");
    }
    viz_us(mean, sizeof mean, stage_mean(st));
    viz_us(median, sizeof median, st->s.n > 0 && isfinite(st->s.median) ? st->s.median : 0);
    viz_us(a, sizeof a, l->x[k]);
    viz_us(b, sizeof b, l->x[k + 1]);
    viz_us(cum, sizeof cum, l->x[k + 1] - l->x[0]);
    viz_svg_group_begin(s, NULL,
                        "thread %d (host %s)%s%s\n%s %s: %s\n"
                        "mean %s \u00b5s, median %s \u00b5s, n %lld\n"
                        "from %s to %s \u00b5s (0 = entering the %s)\n"
                        "cumulative %s \u00b5s since entering %s%s%s%s",
                        l->th->thread, host_name(l->m, l->th->host),
                        tm->nmodels > 1 ? ", " : "", tm->nmodels > 1 ? tm->mlabel[l->model] : "",
                        str(w->kind_name), str(w->name), kind_label(st), mean, median,
                        (long long)st->s.n, a, b, tm->root, cum, str(entry->name),
                        tm->o->with_arrival_wait ? "" : " (arrival waits left out)",
                        is_algo(w) ? "\nalgorithm node: the host's visit, arrival t1 to "
                                     "departure t4" : "", algo);
}

static void draw_line(viz_svg_t *s, const tm_t *tm, const tm_layout_t *ly, const tm_line_t *l,
                      double *px, double *py)
{
    const char *colour = tm->colours[l->colour];
    for (int k = 0; k <= l->n; k++) {
        px[k] = viz_scale_map(&ly->sx, l->x[k] / 1000);
        py[k] = viz_scale_map(&ly->sy, (double)k / l->n);
    }
    char total[32], nowait[32], drawn[32];
    viz_us(total, sizeof total, l->path->total.mean);
    viz_us(nowait, sizeof nowait, l->path->total_no_wait.mean);
    viz_us(drawn, sizeof drawn, l->x[l->n] - l->x[0]);
    viz_svg_group_begin(s, NULL, "thread %d (host %s)%s%s\n%d stages drawn: %s \u00b5s\n"
                        "time per allreduce (mean) %s \u00b5s, without arrival waits %s \u00b5s",
                        l->th->thread, host_name(l->m, l->th->host),
                        tm->nmodels > 1 ? ", " : "", tm->nmodels > 1 ? tm->mlabel[l->model] : "",
                        l->n, drawn, total, nowait);
    viz_svg_polyline(s, px, py, l->n + 1, "series tmline", colour);
    for (int k = 0; k < l->n; k++) {
        segment_begin(s, tm, l, k);
        viz_svg_polyline(s, px + k, py + k, 2, "tmhit", NULL);
        if (k == 0)
            viz_svg_circle(s, px[0], py[0], 2.2, "tmdot", colour);
        viz_svg_circle(s, px[k + 1], py[k + 1], 2.2, "tmdot", colour);
        viz_svg_group_end(s);
    }
    viz_svg_group_end(s);
}

static cm_status_t draw(FILE *out, const tm_t *tm, cm_err_t *err)
{
    tm_layout_t ly;
    layout(tm, &ly);
    double *px = malloc((size_t)(tm->maxn + 1) * 2 * sizeof *px);
    if (px == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "timemap: out of memory");
    char thr[160], title[256];
    threads_text(tm, thr, sizeof thr);
    snprintf(title, sizeof title, "Timemap: %s%s; %lld-byte tuples", thr,
             tm->nmodels > 1 ? " in each configuration" : "", (long long)tm->bytes);
    viz_svg_t s;
    viz_svg_begin(&s, out, ly.width, ly.height, title, tm_css);
    draw_titles(&s, tm, title);
    draw_frame(&s, tm, &ly);
    for (int i = 0; i < tm->nlines; i++)
        draw_line(&s, tm, &ly, &tm->lines[i], px, px + tm->maxn + 1);
    double lh = viz_legend(&s, ly.right, ly.top, tm->legend, tm->colours, tm->nlegend, 1);
    if (tm->nalgo > 0 && tm->nseq == 1) {
        static const char *const al[] = { "stage in the algorithm node" };
        static const char *const ac[] = { ALGO_FILL };
        viz_legend(&s, ly.right, ly.top + lh + 10, al, ac, 1, 0);
    }
    viz_svg_end(&s);
    free(px);
    return CM_OK;
}

static void tm_free(tm_t *tm)
{
    free(tm->lines);
    free(tm->ibuf);
    free(tm->dbuf);
    free(tm->label);
    free(tm->legend);
    free(tm->colours);
    free(tm->mlabel);
}

cm_status_t viz_timemap(FILE *out, an_model_t *const *models, int nmodels,
                        const viz_opts_t *o, cm_err_t *err)
{
    tm_t tm = { .models = models, .nmodels = nmodels, .o = o };
    cm_status_t st = check_input(&tm, err);
    if (st == CM_OK)
        st = build_lines(&tm, err);
    if (st == CM_OK) {
        measure(&tm);
        st = make_legend(&tm, err);
    }
    if (st == CM_OK)
        st = draw(out, &tm, err);
    tm_free(&tm);
    return st;
}
