/*
 * viz_tree.c - `papviz tree`: the collective tree drawn as the PATHS paper
 * draws it (Figures 1, 3, 4, 5, 8): hosts as boxes, wrappers as labelled
 * ovals, threads as small numbered circles, proxies on the links that cross
 * hosts, algorithm nodes as dashed rectangles that name their kind.
 *
 * Layout.  One column per host, in host order (a host without a node of
 * the tree gets no column).  Inside a column the host's nodes form a forest:
 * a node's local children are its children on the same host, and a node
 * whose parent is on another host (a proxy, normally) is a local root.  Each
 * local tree is laid out tidily: leaves side by side, siblings ordered by
 * the smallest thread number below them (so thread numbers grow from left to
 * right as in the pathmap), every parent centred over its local children.
 * Rows are depths from the core, shared by all hosts: the core at the
 * bottom, a thread one row above its entry wrapper, so the data of the reduce
 * flows down the picture and the result back up.  A host box spans its
 * column and the rows of its nodes; a proxy whose parent is on another host
 * sits on the bottom edge of its box, where its link leaves the host.
 *
 * Links that cross hosts are drawn orthogonally: down from the child into a
 * lane in the gap below its row, across to the parent's column, down into
 * the parent.  Lanes lie below every box that ends at the row above and
 * above every box (with its label) that starts at the row below, so a link
 * crosses only boxes that span the gap.  Links whose horizontal spans overlap
 * get distinct lanes, the shorter link the upper one, which keeps parallel
 * links (several hosts feeding one root host) from crossing each other.
 * Every link meets its parent at its own point of the parent's top, as
 * near the child's x as the others allow and ordered like the children.
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
 * wrappers, 60 threads).
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viz/viz.h"
#include "viz/viz_chart.h"
#include "viz/viz_svg.h"

#define LABEL_CHARS 20       /* longer names are cut in the picture, not in tooltips */
#define LABEL_MAX   96       /* bytes of a cut label */
#define TIP_MAX     1024     /* bytes of a tooltip */
#define MARGIN      20.0
#define TITLE_H     72.0     /* title and two subtitle lines */
#define CGAP        18.0     /* between host columns */
#define CPAD        10.0     /* column content to the box side */
#define KGAP        8.0      /* between sibling subtrees */
#define RGAP        14.0     /* between local trees of one host */
#define BAND        24.0     /* host label band above a host's top row */
#define PADB        8.0      /* box bottom below its lowest nodes */
#define LANE        5.0      /* between lanes of links that cross hosts */
#define LANEPAD     7.0      /* first and last lane to the boxes */
#define PORT_GAP    7.0      /* between links meeting a node */
#define PORT_MIN    4.0      /* ... at least: crowded nodes are widened */
#define PORT_SPAN   0.75     /* links meet a node within this share of its half width */
#define NAME_PX     11.0     /* font size of wrapper names */
#define SMALL_PX    10.0     /* second and third lines, thread numbers */
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

/* A drawn node: a wrapper (drawn index = node) or a thread (after them). */
typedef struct tv_node {
    int    wrapper;          /* index into wrappers, -1 for a thread */
    int    thread;           /* index into threads, -1 for a wrapper */
    int    host;
    int    parent;           /* drawn index, -1 for a root */
    int    depth;            /* row: 0 = the core */
    int    key;              /* smallest thread number below (INT_MAX: none) */
    int    cross;            /* the link to the parent crosses hosts */
    int    lane;
    int    sel;              /* on the path of a selected thread */
    int    has_value;
    double value;            /* ns: the colour of a wrapper */
    int    nlines;
    char   line[3][LABEL_MAX];
    double rx, ry, cx, cy;
    double span, anchor, koff;  /* subtree width, node centre and children in it */
    double port_dx;          /* where the link meets the parent, from its centre */
} tv_node_t;

typedef struct tv {
    const an_model_t      *m;
    const an_model_tree_t *t;
    const an_model_size_t *sz;      /* NULL: colours by kind */
    const viz_opts_t      *o;
    tv_node_t *n;
    int        nn;
    int       *kid, *kid0;          /* local children of i: kid[kid0[i] .. kid0[i + 1]) */
    int       *root, *root0;        /* local roots of host h, the same way */
    int       *in, *in0;            /* every child of i (the links into it) */
    int       *tmp, *fill;          /* scratch */
    int       *ipool;               /* storage of the int arrays */
    double    *dpool;               /* ... and of the double ones */
    double    *col_x, *col_w;       /* per host; col_w = 0: no column */
    double    *row_y;               /* per depth */
    int       *nlanes;              /* per depth: lanes in the gap below the row */
    int        maxdepth;
    double     nh;                  /* half height of the tallest node */
    double     key_hi, key_step;    /* colour key, µs */
    int        want_latency;        /* asked for colours by latency */
    int        nodata, has_sel, has_cross;
    double     content_w;           /* width of the hosts, margins included */
    double     width, height, legend_y;
} tv_t;

/* ---- small helpers ------------------------------------------------------ */

static size_t utf8_chars(const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        n += (*p & 0xc0) != 0x80;
    return n;
}

/* Estimated width of s in px at font size px (DejaVu Sans, mixed text). */
static double text_w(const char *s, double px)
{
    return (double)utf8_chars(s) * px * 0.58;
}

/* Copies s into buf (LABEL_MAX bytes), cut to `chars` characters plus "…". */
static void cut(char *buf, const char *s, size_t chars)
{
    size_t i = 0, n = 0;
    if (s == NULL)
        s = "";
    while (s[i] && i + 8 < LABEL_MAX) {
        if (((unsigned char)s[i] & 0xc0) != 0x80 && n++ == chars)
            break;
        i++;
    }
    memcpy(buf, s, i);
    strcpy(buf + i, s[i] ? "\xe2\x80\xa6" : "");
}

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

static const char *str_or(const char *s, const char *dflt)
{
    return s != NULL && s[0] ? s : dflt;
}

static const char *kind_class(const an_model_wrapper_t *w)
{
    switch (w->kind) {
    case AN_KIND_CORE:  return "core";
    case AN_KIND_GRED:  return "gred";
    case AN_KIND_PROXY: return "proxy";
    default:            return "algo";
    }
}

static int is_algo(const an_model_wrapper_t *w)
{
    return w->kind == AN_KIND_ALGO || w->kind == AN_KIND_OTHER;
}

static const an_model_wrapper_t *wrapper_of(const tv_t *v, int i)
{
    return v->n[i].wrapper >= 0 ? &v->t->wrappers[v->n[i].wrapper] : NULL;
}

static const char *node_name(const tv_t *v, int i, char *buf, size_t len)
{
    const an_model_wrapper_t *w = wrapper_of(v, i);
    if (w != NULL)
        return str_or(w->name, "?");
    snprintf(buf, len, "thread %d", v->t->threads[v->n[i].thread].thread);
    return buf;
}

/* A latency for a node label: short, fixed format. */
static void short_us(char *buf, size_t len, double ns)
{
    double us = ns / 1000.0;
    snprintf(buf, len, us < 10 ? "%.2f µs" : us < 100 ? "%.1f µs" : "%.0f µs", us);
}

/* Items 0..n-1 by bin (bin[i] < 0: none) into first[nbins + 1] / items;
 * fill is scratch of nbins ints. */
static void group_by(const int *bin, int n, int nbins, int *first, int *items, int *fill)
{
    memset(first, 0, (size_t)(nbins + 1) * sizeof *first);
    for (int i = 0; i < n; i++)
        if (bin[i] >= 0)
            first[bin[i] + 1]++;
    for (int b = 0; b < nbins; b++)
        first[b + 1] += first[b];
    memset(fill, 0, (size_t)nbins * sizeof *fill);
    for (int i = 0; i < n; i++)
        if (bin[i] >= 0)
            items[first[bin[i]] + fill[bin[i]]++] = i;
}

typedef double sort_key_fn_t(const tv_t *v, int i);

/* Insertion sort of items[a..b) by (key(item), item): stable, deterministic. */
static void sort_items(const tv_t *v, int *items, int a, int b, sort_key_fn_t *key)
{
    for (int i = a + 1; i < b; i++) {
        int x = items[i], j = i;
        double kx = key(v, x);
        for (; j > a; j--) {
            double kp = key(v, items[j - 1]);
            if (!(kx < kp || (kx == kp && x < items[j - 1])))
                break;
            items[j] = items[j - 1];
        }
        items[j] = x;
    }
}

/* Sort keys: the smallest thread number below, the x of the node. */
static double key_thread(const tv_t *v, int i)
{
    return v->n[i].key;
}

static double key_x(const tv_t *v, int i)
{
    return v->n[i].cx;
}

/* ---- input ----------------------------------------------------------------- */

static cm_status_t check_input(tv_t *v, int with_latency, cm_err_t *err)
{
    const an_model_t *m = v->m;
    const an_model_tree_t *t = v->t;
    const char *src = str_or(m->db, m->pathmap_path);
    if (t->nwrappers <= 0 || t->wrappers == NULL || t->nhosts <= 0 || t->hosts == NULL)
        return CM_ERR_AT(err, CM_ERR_INVALID, src, 0, 0, "tree: the tree has no wrappers");
    for (int i = 0; i < t->nwrappers; i++)
        if (t->wrappers[i].host < 0 || t->wrappers[i].host >= t->nhosts)
            return CM_ERR_AT(err, CM_ERR_INVALID, src, 0, 0, "tree: wrapper %s has no host",
                             str_or(t->wrappers[i].name, "?"));
    for (int i = 0; i < t->nthreads; i++)
        if (t->threads[i].host < 0 || t->threads[i].host >= t->nhosts)
            return CM_ERR_AT(err, CM_ERR_INVALID, src, 0, 0, "tree: thread %d has no host",
                             t->threads[i].thread);
    for (int k = 0; v->o->threads != NULL && k < v->o->nthreads; k++)
        if (an_model_thread_index(t, v->o->threads[k]) < 0)
            return CM_ERR_AT(err, CM_ERR_NAME, src, 0, 0,
                             "tree: thread %d is not in the tree", v->o->threads[k]);
    v->sz = NULL;
    if (with_latency && m->nsizes > 0) {
        v->sz = an_model_size(m, v->o->bytes);
        if (v->sz == NULL || v->sz->wstats == NULL)
            return CM_ERR_AT(err, CM_ERR_INVALID, src, 0, 0,
                             "tree: no statistics for tuple size %lld bytes",
                             (long long)v->o->bytes);
    }
    return CM_OK;
}

/* The nodes, and every int and double array carved from one block each. */
static cm_status_t alloc_all(tv_t *v, cm_err_t *err)
{
    size_t nn = (size_t)v->nn, nh = (size_t)v->t->nhosts;
    v->n = calloc(nn, sizeof *v->n);
    v->ipool = calloc(8 * nn + 2 * nh + 4, sizeof *v->ipool);
    v->dpool = calloc(nn + 1 + 2 * nh, sizeof *v->dpool);
    if (v->n == NULL || v->ipool == NULL || v->dpool == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "tree: out of memory");
    int *p = v->ipool;
    v->kid = p, p += nn;
    v->kid0 = p, p += nn + 1;
    v->root = p, p += nn;
    v->root0 = p, p += nh + 1;
    v->in = p, p += nn;
    v->in0 = p, p += nn + 1;
    v->tmp = p, p += nn;
    v->fill = p, p += nn + nh;
    v->nlanes = p;
    v->row_y = v->dpool;
    v->col_x = v->row_y + nn + 1;
    v->col_w = v->col_x + nh;
    return CM_OK;
}

static void free_all(tv_t *v)
{
    free(v->n);
    free(v->ipool);
    free(v->dpool);
}

/* ---- structure -------------------------------------------------------------- */

/* Parents, hosts, depths (rejecting cycles) and the ordering keys. */
static cm_status_t build_nodes(tv_t *v, cm_err_t *err)
{
    const an_model_tree_t *t = v->t;
    int nw = t->nwrappers;
    for (int i = 0; i < v->nn; i++) {
        tv_node_t *n = &v->n[i];
        int p = i < nw ? t->wrappers[i].parent : t->threads[i - nw].enter;
        n->wrapper = i < nw ? i : -1;
        n->thread = i < nw ? -1 : i - nw;
        n->host = i < nw ? t->wrappers[i].host : t->threads[i - nw].host;
        n->parent = p >= 0 && p < nw && p != i ? p : -1;
        n->key = i < nw ? INT_MAX : t->threads[i - nw].thread;
    }
    for (int i = 0; i < v->nn; i++) {
        int d = 0;
        for (int p = v->n[i].parent; p >= 0; p = v->n[p].parent)
            if (++d > v->nn)
                return CM_ERR_AT(err, CM_ERR_TREE, str_or(v->m->db, v->m->pathmap_path), 0,
                                 0, "tree: the parents of %s form a cycle",
                                 str_or(t->wrappers[i < nw ? i : 0].name, "?"));
        v->n[i].depth = d;
        v->maxdepth = d > v->maxdepth ? d : v->maxdepth;
    }
    for (int i = nw; i < v->nn; i++)
        for (int p = v->n[i].parent; p >= 0; p = v->n[p].parent)
            if (v->n[i].key < v->n[p].key)
                v->n[p].key = v->n[i].key;
    for (int i = 0; i < v->nn; i++) {
        tv_node_t *n = &v->n[i];
        n->cross = n->parent >= 0 && v->n[n->parent].host != n->host;
        v->has_cross |= n->cross;
    }
    return CM_OK;
}

/* Local children, local roots per host, and the links into each node. */
static void build_lists(tv_t *v)
{
    for (int i = 0; i < v->nn; i++)
        v->tmp[i] = v->n[i].parent >= 0 && !v->n[i].cross ? v->n[i].parent : -1;
    group_by(v->tmp, v->nn, v->nn, v->kid0, v->kid, v->fill);
    for (int i = 0; i < v->nn; i++)
        sort_items(v, v->kid, v->kid0[i], v->kid0[i + 1], key_thread);
    for (int i = 0; i < v->nn; i++)
        v->tmp[i] = v->n[i].parent < 0 || v->n[i].cross ? v->n[i].host : -1;
    group_by(v->tmp, v->nn, v->t->nhosts, v->root0, v->root, v->fill);
    for (int h = 0; h < v->t->nhosts; h++)
        sort_items(v, v->root, v->root0[h], v->root0[h + 1], key_thread);
    for (int i = 0; i < v->nn; i++)
        v->tmp[i] = v->n[i].parent;
    group_by(v->tmp, v->nn, v->nn, v->in0, v->in, v->fill);
}

/* Marks the paths of the selected threads. */
static void mark_selected(tv_t *v)
{
    const viz_opts_t *o = v->o;
    for (int k = 0; o->threads != NULL && k < o->nthreads; k++) {
        int i = v->t->nwrappers + an_model_thread_index(v->t, o->threads[k]);
        for (; i >= 0; i = v->n[i].parent)
            v->n[i].sel = 1;
        v->has_sel = 1;
    }
}

/* ---- measures ----------------------------------------------------------------- */

/* The wrapper's colour value: down + up, or its latency (the core). */
static void wrapper_value(tv_t *v, tv_node_t *n)
{
    const an_model_wstats_t *ws = &v->sz->wstats[n->wrapper];
    double x = NAN;
    if (ws->down.n > 0 || ws->up.n > 0)
        x = (ws->down.n > 0 ? ws->down.mean : 0) + (ws->up.n > 0 ? ws->up.mean : 0);
    else if (ws->latency.n > 0)
        x = ws->latency.mean;
    n->has_value = isfinite(x);
    n->value = n->has_value ? fmax(x, 0) : 0;
    v->nodata += !n->has_value;
}

/* Labels and the size of each mark. */
static void measure_node(tv_t *v, int i)
{
    tv_node_t *n = &v->n[i];
    static const double ry_of[4] = { 10, 12, 18, 24 };
    static const double fit[4] = { 1, 0.94, 0.8, 0.76 };   /* text inside an ellipse */
    if (n->wrapper < 0) {
        int num = v->t->threads[n->thread].thread;
        snprintf(n->line[0], LABEL_MAX, "%d", num);
        n->rx = n->ry = num >= 1000 || num <= -100 ? 14 : num >= 100 || num < 0 ? 12 : 10;
        return;
    }
    const an_model_wrapper_t *w = &v->t->wrappers[n->wrapper];
    cut(n->line[n->nlines++], w->name, LABEL_CHARS);
    if (is_algo(w))
        cut(n->line[n->nlines++], str_or(w->kind_name, "algorithm"), 12);
    if (v->sz != NULL) {
        wrapper_value(v, n);
        if (n->has_value)
            short_us(n->line[n->nlines++], LABEL_MAX, n->value);
        else
            snprintf(n->line[n->nlines++], LABEL_MAX, "no data");
    }
    double tw = 0;
    for (int k = 0; k < n->nlines; k++)
        tw = fmax(tw, text_w(n->line[k], k ? SMALL_PX : NAME_PX));
    n->ry = ry_of[n->nlines];
    n->rx = is_algo(w) ? tw / 2 + 8 : fmax(20, tw / 2 / fit[n->nlines] + 5);
    n->rx = fmax(n->rx, (v->in0[i + 1] - v->in0[i] - 1) * PORT_MIN / (2 * PORT_SPAN));
}

static void measure(tv_t *v)
{
    v->nh = 10;
    double vmax = 0;
    for (int i = 0; i < v->nn; i++) {
        const tv_node_t *n = &v->n[i];
        measure_node(v, i);
        v->nh = fmax(v->nh, n->ry);
        if (n->has_value)
            vmax = fmax(vmax, n->value);
    }
    double lo = 0, hi = vmax / 1000;
    if (!(hi > 0))
        hi = 1;
    v->key_step = viz_nice(&lo, &hi, 4);
    v->key_hi = hi;
}

/* ---- layout ------------------------------------------------------------------- */

/* Lays out the subtree of local children under i relative to its left edge:
 * the children side by side from koff, the node (anchor) above the midpoint
 * of its first and last child, the span wide enough for both. */
static double subtree_span(tv_t *v, int i)
{
    tv_node_t *n = &v->n[i];
    int a = v->kid0[i], b = v->kid0[i + 1];
    double x = 0, first = 0, last = 0;
    for (int k = a; k < b; k++) {
        const tv_node_t *c = &v->n[v->kid[k]];
        subtree_span(v, v->kid[k]);
        first = k == a ? x + c->anchor : first;
        last = x + c->anchor;
        x += c->span + KGAP;
    }
    if (a == b) {
        n->koff = 0;
        n->anchor = n->rx;
        n->span = 2 * n->rx;
        return n->span;
    }
    double mid = (first + last) / 2;
    n->koff = fmax(0, n->rx - mid);
    n->anchor = n->koff + mid;
    n->span = fmax(n->koff + x - KGAP, n->anchor + n->rx);
    return n->span;
}

/* Places the subtree of i with its span starting at x = left. */
static void place_x(tv_t *v, int i, double left)
{
    tv_node_t *n = &v->n[i];
    double x = left + n->koff;
    n->cx = left + n->anchor;
    for (int k = v->kid0[i]; k < v->kid0[i + 1]; k++) {
        place_x(v, v->kid[k], x);
        x += v->n[v->kid[k]].span + KGAP;
    }
}

static void host_label(const tv_t *v, int h, char *buf, size_t len)
{
    const an_model_host_t *hp = &v->t->hosts[h];
    char name[LABEL_MAX], machine[LABEL_MAX];
    cut(name, str_or(hp->name, "?"), LABEL_CHARS);
    cut(machine, hp->hostname, LABEL_CHARS);
    if (machine[0] && strcmp(str_or(hp->name, ""), str_or(hp->hostname, "")) != 0)
        snprintf(buf, len, "%s (%s)", name, machine);
    else
        snprintf(buf, len, "%s", name);
}

static void place_columns(tv_t *v)
{
    double x = MARGIN;
    for (int h = 0; h < v->t->nhosts; h++) {
        int a = v->root0[h], b = v->root0[h + 1];
        if (a == b)
            continue;
        double s = -RGAP;
        for (int k = a; k < b; k++)
            s += subtree_span(v, v->root[k]) + RGAP;
        char label[2 * LABEL_MAX + 8];
        host_label(v, h, label, sizeof label);
        double w = fmax(s, text_w(label, 12) + 4) + 2 * CPAD;
        double left = x + (w - s) / 2;
        for (int k = a; k < b; k++) {
            place_x(v, v->root[k], left);
            left += v->n[v->root[k]].span + RGAP;
        }
        v->col_x[h] = x;
        v->col_w[h] = w;
        x += w + CGAP;
    }
    v->width = v->content_w = x - CGAP + MARGIN;
}

/* Moves the hosts right by dx (centring a narrow tree under its title). */
static void shift_x(tv_t *v, double dx)
{
    for (int i = 0; i < v->nn; i++)
        v->n[i].cx += dx;
    for (int h = 0; h < v->t->nhosts; h++)
        v->col_x[h] += dx;
}

/* Where the links meet each node: at the children's x, clamped to the middle
 * of the node's top and pushed apart (PORT_GAP, less when crowded) in the
 * children's order, so a child straight above gets a vertical link. */
static void place_ports(tv_t *v)
{
    for (int i = 0; i < v->nn; i++) {
        int a = v->in0[i], b = v->in0[i + 1], k = b - a;
        const tv_node_t *p = &v->n[i];
        double r = PORT_SPAN * p->rx, g = k > 1 ? fmin(PORT_GAP, 2 * r / (k - 1)) : 0;
        double prev = -INFINITY, next = r + g;
        sort_items(v, v->in, a, b, key_x);
        for (int j = a; j < b; j++) {
            tv_node_t *c = &v->n[v->in[j]];
            c->port_dx = fmax(fmin(fmax(c->cx - p->cx, -r), r), prev + g);
            prev = c->port_dx;
        }
        for (int j = b - 1; j >= a; j--) {
            tv_node_t *c = &v->n[v->in[j]];
            c->port_dx = fmin(c->port_dx, next - g);
            next = c->port_dx;
        }
    }
}

/* Horizontal extent of the link from i to its parent. */
static void link_span(const tv_t *v, int i, double *x0, double *x1)
{
    const tv_node_t *n = &v->n[i];
    double px = v->n[n->parent].cx + n->port_dx;
    *x0 = fmin(n->cx, px);
    *x1 = fmax(n->cx, px);
}

static double key_length(const tv_t *v, int i)
{
    double x0, x1;
    link_span(v, i, &x0, &x1);
    return x1 - x0;
}

/* Lanes of the links that cross hosts, gap by gap: shortest first; a link
 * goes below every shorter link it overlaps. */
static void assign_lanes(tv_t *v)
{
    for (int d = 1; d <= v->maxdepth; d++) {
        int m = 0;
        for (int i = 0; i < v->nn; i++)
            if (v->n[i].cross && v->n[i].depth == d)
                v->tmp[m++] = i;
        sort_items(v, v->tmp, 0, m, key_length);
        for (int a = 0; a < m; a++) {
            double xa, xb, ya, yb;
            link_span(v, v->tmp[a], &xa, &xb);
            int lane = 0;
            for (int b = 0; b < a; b++) {
                link_span(v, v->tmp[b], &ya, &yb);
                if (xa < yb + 4 && ya < xb + 4 && v->n[v->tmp[b]].lane >= lane)
                    lane = v->n[v->tmp[b]].lane + 1;
            }
            v->n[v->tmp[a]].lane = lane;
            v->nlanes[d] = lane + 1 > v->nlanes[d] ? lane + 1 : v->nlanes[d];
        }
    }
}

static double lane_y(const tv_t *v, int depth, int lane)
{
    return v->row_y[depth] + v->nh + PADB + LANEPAD + lane * LANE;
}

static void place_rows(tv_t *v)
{
    v->row_y[v->maxdepth] = TITLE_H + BAND + v->nh;
    for (int d = v->maxdepth; d > 0; d--) {
        double lanes = v->nlanes[d] > 0 ? 2 * LANEPAD + (v->nlanes[d] - 1) * LANE : 6;
        v->row_y[d - 1] = v->row_y[d] + 2 * v->nh + PADB + lanes + BAND;
    }
    for (int i = 0; i < v->nn; i++)
        v->n[i].cy = v->row_y[v->n[i].depth];
    v->legend_y = v->row_y[0] + v->nh + PADB + 28;
}

/* ---- drawing ------------------------------------------------------------------ */

/* The host's box: its column, from above its top row (label band) to below
 * its lowest nodes; a proxy that leaves the host sits on the bottom edge. */
static void draw_host(viz_svg_t *s, const tv_t *v, int h)
{
    int top = 0, nthr = 0, nwr = 0;
    double bottom = 0;
    for (int i = 0; i < v->nn; i++) {
        const tv_node_t *n = &v->n[i];
        if (n->host != h)
            continue;
        const an_model_wrapper_t *w = wrapper_of(v, i);
        int leaves = n->cross && w != NULL && w->kind == AN_KIND_PROXY;
        top = n->depth > top ? n->depth : top;
        bottom = fmax(bottom, leaves ? n->cy : n->cy + v->nh + PADB);
        nthr += w == NULL;
        nwr += w != NULL;
    }
    const an_model_host_t *hp = &v->t->hosts[h];
    double y0 = v->row_y[top] - v->nh - BAND + 2;
    char label[2 * LABEL_MAX + 8];
    host_label(v, h, label, sizeof label);
    viz_svg_group_begin(s, "hostbox", "host %s (rank %d)%s%s\n%d thread%s, %d wrapper%s",
                        str_or(hp->name, "?"), h, hp->hostname && hp->hostname[0]
                        ? ", machine " : "", hp->hostname ? hp->hostname : "",
                        nthr, nthr == 1 ? "" : "s", nwr, nwr == 1 ? "" : "s");
    viz_svg_rect(s, v->col_x[h], y0, v->col_w[h], bottom - y0, "host", NULL);
    viz_svg_text(s, v->col_x[h] + 6, y0 + 15, VIZ_START, "t-host", "%s", label);
    viz_svg_group_end(s);
}

/* Where the link of i meets its parent's outline. */
static void port_xy(const tv_t *v, int i, double *x, double *y)
{
    const tv_node_t *n = &v->n[i], *p = &v->n[n->parent];
    const an_model_wrapper_t *w = wrapper_of(v, n->parent);
    double f = n->port_dx / p->rx;
    *x = p->cx + n->port_dx;
    *y = w != NULL && is_algo(w) ? p->cy - p->ry : p->cy - p->ry * sqrt(fmax(0, 1 - f * f));
}

static void draw_link(viz_svg_t *s, const tv_t *v, int i)
{
    const tv_node_t *n = &v->n[i];
    char a[LABEL_MAX + 16], b[LABEL_MAX + 16];
    double px, py;
    port_xy(v, i, &px, &py);
    const char *cls = n->sel ? "edge t-sel" : n->cross ? "edge t-xlink" : "edge";
    if (n->cross)
        viz_svg_group_begin(s, NULL, "%s \xe2\x86\x92 %s: network link, host %s \xe2\x86\x92 %s",
                            node_name(v, i, a, sizeof a), node_name(v, n->parent, b, sizeof b),
                            str_or(v->t->hosts[n->host].name, "?"),
                            str_or(v->t->hosts[v->n[n->parent].host].name, "?"));
    else
        viz_svg_group_begin(s, NULL, "%s \xe2\x86\x92 %s", node_name(v, i, a, sizeof a),
                            node_name(v, n->parent, b, sizeof b));
    double ly = lane_y(v, n->depth, n->lane);
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

static void wrapper_tip(const tv_t *v, int i, char *tip)
{
    const tv_node_t *n = &v->n[i];
    const an_model_wrapper_t *w = wrapper_of(v, i);
    const an_model_host_t *hp = &v->t->hosts[n->host];
    app(tip, "%s %s\nhost %s (rank %d)", str_or(w->kind_name, kind_class(w)),
        str_or(w->name, "?"), str_or(hp->name, "?"), n->host);
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

static void thread_tip(const tv_t *v, int i, char *tip)
{
    const tv_node_t *n = &v->n[i];
    const an_model_thread_t *th = &v->t->threads[n->thread];
    char a[LABEL_MAX + 16], b[32], c[32];
    app(tip, "thread %d\nhost %s (rank %d)\nenters %s", th->thread,
        str_or(v->t->hosts[n->host].name, "?"), n->host,
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
static void draw_lines(viz_svg_t *s, const tv_node_t *n, int dark)
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

static void draw_wrapper(viz_svg_t *s, const tv_t *v, int i)
{
    const tv_node_t *n = &v->n[i];
    const an_model_wrapper_t *w = wrapper_of(v, i);
    char tip[TIP_MAX] = "", fill[8] = NODATA_FILL, cls[16];
    wrapper_tip(v, i, tip);
    double t = n->has_value ? n->value / 1000 / v->key_hi : 0;
    if (n->has_value)
        viz_colour_seq(t, fill);
    snprintf(cls, sizeof cls, v->sz ? "t-%s" : "%s", kind_class(w));
    viz_svg_group_begin(s, kind_class(w), "%s", tip);
    if (is_algo(w))
        viz_svg_rect(s, n->cx - n->rx, n->cy - n->ry, 2 * n->rx, 2 * n->ry, cls,
                     v->sz ? fill : NULL);
    else
        viz_svg_ellipse(s, n->cx, n->cy, n->rx, n->ry, cls, v->sz ? fill : NULL);
    draw_lines(s, n, v->sz != NULL && t >= 0.45);
    viz_svg_group_end(s);
}

static void draw_thread(viz_svg_t *s, const tv_t *v, int i)
{
    const tv_node_t *n = &v->n[i];
    char tip[TIP_MAX] = "";
    thread_tip(v, i, tip);
    viz_svg_group_begin(s, "thread", "%s", tip);
    viz_svg_circle(s, n->cx, n->cy, n->rx, n->sel ? "thread t-selt" : "thread", NULL);
    viz_svg_text(s, n->cx, n->cy + 3.5, VIZ_MIDDLE, "t-small", "%s", n->line[0]);
    viz_svg_group_end(s);
}

/* ---- title and legend ----------------------------------------------------------- */

static void count_kinds(const tv_t *v, int *nproxy, int *nhosts)
{
    *nproxy = *nhosts = 0;
    for (int i = 0; i < v->t->nwrappers; i++)
        *nproxy += v->t->wrappers[i].kind == AN_KIND_PROXY;
    for (int h = 0; h < v->t->nhosts; h++)
        *nhosts += v->col_w[h] > 0;
}

static void title_lines(const tv_t *v, char *l1, char *l2, char *l3, size_t len)
{
    const an_model_t *m = v->m;
    const char *tree = str_or(v->t->name, NULL);
    int nproxy, nhosts, nt = v->t->nthreads, nw = v->t->nwrappers;
    count_kinds(v, &nproxy, &nhosts);
    snprintf(l1, len, "Tree %s%sof %s", tree ? tree : "", tree ? " " : "",
             str_or(m->pathmap_path, "(pathmap unknown)"));
    snprintf(l2, len, "%d thread%s on %d host%s, %d wrapper%s (%d prox%s)%s. Threads at the "
             "top: partial results flow down to the core, the result back up.", nt,
             nt == 1 ? "" : "s", nhosts, nhosts == 1 ? "" : "s", nw, nw == 1 ? "" : "s",
             nproxy, nproxy == 1 ? "y" : "ies",
             nhosts < v->t->nhosts ? "; hosts without a node of the tree are left out" : "");
    if (v->sz != NULL)
        snprintf(l3, len, "trace %s, %lld-byte tuples, %lld operations. Colour: mean down + up "
                 "latency per visit (core: latency), the wrapper's own time.",
                 str_or(m->trace, str_or(m->db, "?")), (long long)v->sz->bytes,
                 (long long)v->sz->ops_used);
    else if (m->trace != NULL && m->trace[0])
        snprintf(l3, len, "trace %s.%s Colours by kind.", m->trace,
                 v->want_latency ? " No statistics in the database." : "");
    else
        snprintf(l3, len, "From the pathmap (no statistics). Colours by kind.");
}

/* A legend entry: a small mark and its text, at (x, y) = middle left.
 * kind: 0 host, 1..4 wrappers (gred, proxy, core, algo), 5 thread, 6 network
 * link, 7 selected path, 8 no data.  Returns its width. */
static double legend_entry(viz_svg_t *s, const tv_t *v, int kind, double x, double y,
                           int draw)
{
    static const char *const text[] = {
        "host (pathmap name, machine)", "gred: partial reduce", "proxy: link to another host",
        "core: stores the result", "algorithm node", "thread", "network link (crosses hosts)",
        "path of a selected thread", "no statistics",
    };
    static const char *const cls[] = { NULL, "gred", "proxy", "core", "algo" };
    double w = 34 + text_w(text[kind], 12) + 18;
    if (!draw)
        return w;
    char c[16];
    if (kind >= 1 && kind <= 4)
        snprintf(c, sizeof c, v->sz ? "t-%s" : "%s", cls[kind]);
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
static int draw_legend(viz_svg_t *s, const tv_t *v, int draw)
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
    double x = MARGIN, y = v->legend_y, maxx = fmax(v->width - MARGIN, 440);
    int rows = 1;
    for (int k = 0; k < nk; k++) {
        double w = legend_entry(s, v, kinds[k], 0, 0, 0);
        if (x > MARGIN && x + w > maxx) {
            x = MARGIN;
            y += LEG_ROW;
            rows++;
        }
        legend_entry(s, v, kinds[k], x, y, draw);
        x += w;
    }
    return rows;
}

/* The colour key of the latencies: a bar from 0 to key_hi µs with ticks. */
static void draw_key(viz_svg_t *s, const tv_t *v, double y)
{
    viz_svg_text(s, MARGIN, y, VIZ_START, NULL,
                 "Colour: mean down + up latency per visit (core: latency)");
    double x0 = MARGIN, bw = KEY_W / KEY_STEPS;
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

static cm_status_t layout(tv_t *v, cm_err_t *err)
{
    cm_status_t st = alloc_all(v, err);
    if (st == CM_OK)
        st = build_nodes(v, err);
    if (st != CM_OK)
        return st;
    build_lists(v);
    mark_selected(v);
    measure(v);
    place_columns(v);
    place_ports(v);
    assign_lanes(v);
    place_rows(v);
    return CM_OK;
}

static void draw(FILE *out, tv_t *v)
{
    char l1[TIP_MAX], l2[TIP_MAX], l3[TIP_MAX];
    title_lines(v, l1, l2, l3, sizeof l1);
    v->width = fmax(v->width, 2 * MARGIN + fmax(text_w(l1, 16) + 20,
                                                fmax(text_w(l2, 12), text_w(l3, 12))));
    if (v->sz != NULL)
        v->width = fmax(v->width, 2 * MARGIN + KEY_W + 120);
    shift_x(v, (v->width - v->content_w) / 2);
    int rows = draw_legend(NULL, v, 0);
    v->height = v->legend_y + rows * LEG_ROW + (v->sz != NULL ? 78 : 0) + MARGIN;
    viz_svg_t s;
    viz_svg_begin(&s, out, ceil(v->width), ceil(v->height), l1, TREE_CSS);
    viz_svg_text(&s, MARGIN, 28, VIZ_START, "title", "%s", l1);
    viz_svg_text(&s, MARGIN, 48, VIZ_START, "subtitle", "%s", l2);
    viz_svg_text(&s, MARGIN, 64, VIZ_START, "subtitle", "%s", l3);
    for (int h = 0; h < v->t->nhosts; h++)
        if (v->col_w[h] > 0)
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
    tv_t v = { .m = m, .t = &m->tree, .o = o != NULL ? o : &none,
               .want_latency = with_latency };
    v.nn = m->tree.nwrappers + (m->tree.nthreads > 0 ? m->tree.nthreads : 0);
    cm_status_t st = check_input(&v, with_latency, err);
    if (st == CM_OK)
        st = layout(&v, err);
    if (st == CM_OK)
        draw(out, &v);
    free_all(&v);
    return st;
}
