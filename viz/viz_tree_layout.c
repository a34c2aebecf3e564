/*
 * viz_tree_layout.c - where `papviz tree` puts each mark: host columns,
 * rows, the lanes of the links that cross hosts, and every node's size and
 * centre, into the plain viz_tree_layout_t of viz_tree_int.h.  Nothing here
 * writes SVG; viz_tree.c draws the result.
 *
 * Columns.  One column per host, in host order (a host without a node of
 * the tree gets no column).  Inside a column the host's nodes form a forest:
 * a node's local children are its children on the same host, and a node
 * whose parent is on another host (a proxy, normally) is a local root.  Each
 * local tree is laid out tidily: leaves side by side, siblings ordered by
 * the smallest thread number below them (so thread numbers grow from left to
 * right as in the pathmap), every parent centred over its local children.
 *
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
 * Invariants: the model is checked before anything is laid out; the result
 * depends only on the model and the options (stable sorts, ties broken by
 * index).  Workload: up to a few hundred nodes (the paper's NOW tree: 30
 * hosts, 89 wrappers, 60 threads), and linear in the nodes on the longest
 * legal chain (65,536 wrappers) apart from the insertion sorts of a node's
 * children and of the links sharing a gap.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viz/viz_algo_int.h"
#include "viz/viz_chart_int.h"
#include "viz/viz_tree_int.h"

#define LABEL_CHARS 20       /* longer names are cut in the picture, not in tooltips */
#define PARAM_CHARS 56       /* an algorithm node's parameters, cut the same way */
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

/* ---- small helpers ------------------------------------------------------ */

/* Copies s into buf (VIZ_TREE_LABEL_MAX bytes), cut to `chars` characters
 * plus "…". */
static void cut(char *buf, const char *s, size_t chars)
{
    size_t i = 0, n = 0;
    if (s == NULL)
        s = "";
    while (s[i] && i + 8 < VIZ_TREE_LABEL_MAX) {
        if (((unsigned char)s[i] & 0xc0) != 0x80 && n++ == chars)
            break;
        i++;
    }
    memcpy(buf, s, i);
    strcpy(buf + i, s[i] ? "\xe2\x80\xa6" : "");
}

/* A latency for a node label: short, fixed format. */
static void short_us(char *buf, size_t len, double ns)
{
    double us = ns / 1000.0;
    snprintf(buf, len, us < 10 ? "%.2f µs" : us < 100 ? "%.1f µs" : "%.0f µs", us);
}

/* Items 0..n-1 by bin (bin[i] < 0: none) into first[nbins + 1] / items;
 * fill is scratch of nbins ints.  Each bin keeps the items' order. */
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

typedef double sort_key_fn_t(const viz_tree_layout_t *v, int i);

/* Insertion sort of items[a..b) by (key(item), item): stable, deterministic. */
static void sort_items(const viz_tree_layout_t *v, int *items, int a, int b, sort_key_fn_t *key)
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
static double key_thread(const viz_tree_layout_t *v, int i)
{
    return v->n[i].key;
}

static double key_x(const viz_tree_layout_t *v, int i)
{
    return v->n[i].cx;
}

/* ---- input ----------------------------------------------------------------- */

static cm_status_t check_input(viz_tree_layout_t *v, int with_latency, cm_err_t *err)
{
    const an_model_t *m = v->m;
    const an_model_tree_t *t = v->t;
    const char *src = viz__str_or(m->db, m->pathmap_path);
    if (t->nwrappers <= 0 || t->wrappers == NULL || t->nhosts <= 0 || t->hosts == NULL)
        return CM_ERR_AT(err, CM_ERR_INVALID, src, 0, 0, "tree: the tree has no wrappers");
    for (int i = 0; i < t->nwrappers; i++)
        if (t->wrappers[i].host < 0 || t->wrappers[i].host >= t->nhosts)
            return CM_ERR_AT(err, CM_ERR_INVALID, src, 0, 0, "tree: wrapper %s has no host",
                             viz__str_or(t->wrappers[i].name, "?"));
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

/* The nodes, the hosts, the rows, and every int array carved from one block. */
static cm_status_t alloc_all(viz_tree_layout_t *v, cm_err_t *err)
{
    size_t nn = (size_t)v->nn, nh = (size_t)v->t->nhosts;
    v->n = calloc(nn, sizeof *v->n);
    v->hosts = calloc(nh, sizeof *v->hosts);
    v->row_y = calloc(nn + 1, sizeof *v->row_y);
    v->ipool = calloc(10 * nn + 2 * nh + 5, sizeof *v->ipool);
    if (v->n == NULL || v->hosts == NULL || v->row_y == NULL || v->ipool == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "tree: out of memory");
    int *p = v->ipool;
    v->kid = p, p += nn;
    v->kid0 = p, p += nn + 1;
    v->root = p, p += nn;
    v->root0 = p, p += nh + 1;
    v->in = p, p += nn;
    v->in0 = p, p += nn + 1;
    v->xl = p, p += nn;
    v->xl0 = p, p += nn + 1;
    v->tmp = p, p += nn;
    v->fill = p, p += nn + nh;
    v->nlanes = p;
    return CM_OK;
}

void viz__tree_layout_cleanup(viz_tree_layout_t *v)
{
    free(v->n);
    free(v->hosts);
    free(v->row_y);
    free(v->ipool);
}

/* ---- structure -------------------------------------------------------------- */

/* Depths from the roots down, breadth first through the links into each
 * node: one pass, where walking from every node to the core is quadratic on
 * a long chain.  A node that no root reaches hangs below a cycle of parents.
 * Then the ordering keys, children before parents (the queue backwards). */
static cm_status_t place_depths(viz_tree_layout_t *v, cm_err_t *err)
{
    int *queue = v->tmp, m = 0;
    for (int i = 0; i < v->nn; i++) {
        v->n[i].depth = v->n[i].parent < 0 ? 0 : -1;
        if (v->n[i].parent < 0)
            queue[m++] = i;
    }
    for (int q = 0; q < m; q++)
        for (int k = v->in0[queue[q]]; k < v->in0[queue[q] + 1]; k++) {
            v->n[v->in[k]].depth = v->n[queue[q]].depth + 1;
            queue[m++] = v->in[k];
        }
    if (m < v->nn) {
        int i = 0, nw = v->t->nwrappers;
        while (v->n[i].depth >= 0)
            i++;
        return CM_ERR_AT(err, CM_ERR_TREE, viz__str_or(v->m->db, v->m->pathmap_path), 0, 0,
                         "tree: the parents of %s form a cycle",
                         viz__str_or(v->t->wrappers[i < nw ? i : 0].name, "?"));
    }
    v->maxdepth = v->n[queue[m - 1]].depth;
    for (int q = m - 1; q >= 0; q--) {
        const viz_tree_node_t *n = &v->n[queue[q]];
        if (n->parent >= 0 && n->key < v->n[n->parent].key)
            v->n[n->parent].key = n->key;
    }
    return CM_OK;
}

/* Algorithm nodes at the root are drawn across the columns of the hosts
 * they join (their contributors' hosts); their contributors are the local
 * roots of those hosts, linked straight down into the node. */
static void mark_spans(viz_tree_layout_t *v)
{
    int nh = v->t->nhosts, *rank_of = v->fill;  /* scratch: host -> rank */
    for (int i = 0; i < v->t->nwrappers; i++) {
        viz_tree_node_t *n = &v->n[i];
        const an_model_algo_t *a = v->t->wrappers[i].algo;
        int a0 = v->in0[i], b = v->in0[i + 1];
        if (!viz__tree_is_algo(&v->t->wrappers[i]) || n->parent >= 0 || a0 == b)
            continue;
        n->spans = 1;
        for (int h = 0; h < nh; h++)
            rank_of[h] = -1;
        if (a != NULL && a->nranks > 0 && a->hosts != NULL) {     /* as the model says */
            for (int r = 0; r < a->nranks; r++)
                if (a->hosts[r] >= 0 && a->hosts[r] < nh)
                    rank_of[a->hosts[r]] = r;
            n->nspan = a->nranks;
        } else {                       /* its contributors' hosts, ascending */
            for (int k = a0; k < b; k++)
                rank_of[v->n[v->in[k]].host] = -2;
            for (int h = 0; h < nh; h++)
                if (rank_of[h] == -2)
                    rank_of[h] = n->nspan++;
        }
        for (int k = a0; k < b; k++)
            v->n[v->in[k]].rank = rank_of[v->n[v->in[k]].host];
    }
}

/* Parents, hosts, the links into each node, depths (rejecting cycles) and
 * the ordering keys. */
static cm_status_t build_nodes(viz_tree_layout_t *v, cm_err_t *err)
{
    const an_model_tree_t *t = v->t;
    int nw = t->nwrappers;
    for (int i = 0; i < v->nn; i++) {
        viz_tree_node_t *n = &v->n[i];
        int p = i < nw ? t->wrappers[i].parent : t->threads[i - nw].enter;
        n->wrapper = i < nw ? i : -1;
        n->thread = i < nw ? -1 : i - nw;
        n->host = i < nw ? t->wrappers[i].host : t->threads[i - nw].host;
        n->parent = p >= 0 && p < nw && p != i ? p : -1;
        n->key = i < nw ? INT_MAX : t->threads[i - nw].thread;
        v->tmp[i] = n->parent;
    }
    group_by(v->tmp, v->nn, v->nn, v->in0, v->in, v->fill);
    cm_status_t st = place_depths(v, err);
    if (st != CM_OK)
        return st;
    mark_spans(v);
    for (int i = 0; i < v->nn; i++) {
        viz_tree_node_t *n = &v->n[i];
        n->cross = n->parent >= 0 && v->n[n->parent].host != n->host
                   && !v->n[n->parent].spans;
        v->has_cross |= n->cross;
    }
    return CM_OK;
}

/* Local children and local roots per host, in the order of their keys. */
static void build_lists(viz_tree_layout_t *v)
{
    for (int i = 0; i < v->nn; i++) {
        const viz_tree_node_t *n = &v->n[i];
        v->tmp[i] = n->parent >= 0 && !n->cross && !v->n[n->parent].spans ? n->parent : -1;
    }
    group_by(v->tmp, v->nn, v->nn, v->kid0, v->kid, v->fill);
    for (int i = 0; i < v->nn; i++)
        sort_items(v, v->kid, v->kid0[i], v->kid0[i + 1], key_thread);
    for (int i = 0; i < v->nn; i++) {
        const viz_tree_node_t *n = &v->n[i];
        int local_root = n->parent < 0 ? !n->spans : n->cross || v->n[n->parent].spans;
        v->tmp[i] = local_root ? n->host : -1;
    }
    group_by(v->tmp, v->nn, v->t->nhosts, v->root0, v->root, v->fill);
    for (int h = 0; h < v->t->nhosts; h++)
        sort_items(v, v->root, v->root0[h], v->root0[h + 1], key_thread);
}

/* Marks the paths of the selected threads. */
static void mark_selected(viz_tree_layout_t *v)
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
static void wrapper_value(viz_tree_layout_t *v, viz_tree_node_t *n)
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
static void measure_node(viz_tree_layout_t *v, int i)
{
    viz_tree_node_t *n = &v->n[i];
    static const double ry_of[4] = { 10, 12, 18, 24 };
    static const double fit[4] = { 1, 0.94, 0.8, 0.76 };   /* text inside an ellipse */
    if (n->wrapper < 0) {
        int num = v->t->threads[n->thread].thread;
        snprintf(n->line[0], VIZ_TREE_LABEL_MAX, "%d", num);
        n->rx = n->ry = num >= 1000 || num <= -100 ? 14 : num >= 100 || num < 0 ? 12 : 10;
        return;
    }
    const an_model_wrapper_t *w = &v->t->wrappers[n->wrapper];
    cut(n->line[n->nlines++], w->name, LABEL_CHARS);
    if (viz__tree_is_algo(w)) {
        char params[VIZ_TREE_LABEL_MAX];
        viz__tree_algo_params(v->m, w, params, sizeof params);
        cut(n->line[n->nlines++], params[0] ? params : viz__str_or(w->kind_name, "algorithm"),
            params[0] ? PARAM_CHARS : 12);
    }
    if (v->sz != NULL) {
        wrapper_value(v, n);
        if (n->has_value)
            short_us(n->line[n->nlines++], VIZ_TREE_LABEL_MAX, n->value);
        else
            snprintf(n->line[n->nlines++], VIZ_TREE_LABEL_MAX, "no data");
    } else if (n->spans) {
        snprintf(n->line[n->nlines++], VIZ_TREE_LABEL_MAX, "across %d host%s", n->nspan,
                 n->nspan == 1 ? "" : "s");
    }
    double tw = 0;
    for (int k = 0; k < n->nlines; k++)
        tw = fmax(tw, viz__text_w(n->line[k], k ? SMALL_PX : NAME_PX));
    n->ry = ry_of[n->nlines];
    n->rx = viz__tree_is_algo(w) ? tw / 2 + 8 : fmax(20, tw / 2 / fit[n->nlines] + 5);
    n->rx = fmax(n->rx, (v->in0[i + 1] - v->in0[i] - 1) * PORT_MIN / (2 * PORT_SPAN));
}

static void measure(viz_tree_layout_t *v)
{
    v->nh = 10;
    double vmax = 0;
    for (int i = 0; i < v->nn; i++) {
        const viz_tree_node_t *n = &v->n[i];
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

/* ---- columns -------------------------------------------------------------------- */

/* Lays out the subtree of local children under i relative to its left edge:
 * the children side by side from koff, the node (anchor) above the midpoint
 * of its first and last child, the span wide enough for both. */
static double subtree_span(viz_tree_layout_t *v, int i)
{
    viz_tree_node_t *n = &v->n[i];
    int a = v->kid0[i], b = v->kid0[i + 1];
    double x = 0, first = 0, last = 0;
    for (int k = a; k < b; k++) {
        const viz_tree_node_t *c = &v->n[v->kid[k]];
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
static void place_x(viz_tree_layout_t *v, int i, double left)
{
    viz_tree_node_t *n = &v->n[i];
    double x = left + n->koff;
    n->cx = left + n->anchor;
    for (int k = v->kid0[i]; k < v->kid0[i + 1]; k++) {
        place_x(v, v->kid[k], x);
        x += v->n[v->kid[k]].span + KGAP;
    }
}

void viz__tree_host_label(const viz_tree_layout_t *v, int h, char *buf, size_t len)
{
    const an_model_host_t *hp = &v->t->hosts[h];
    char name[VIZ_TREE_LABEL_MAX], machine[VIZ_TREE_LABEL_MAX];
    cut(name, viz__str_or(hp->name, "?"), LABEL_CHARS);
    cut(machine, hp->hostname, LABEL_CHARS);
    if (machine[0] && strcmp(viz__str_or(hp->name, ""), viz__str_or(hp->hostname, "")) != 0)
        snprintf(buf, len, "%s (%s)", name, machine);
    else
        snprintf(buf, len, "%s", name);
}

void viz__tree_algo_params(const an_model_t *m, const an_model_wrapper_t *w, char *buf,
                           size_t len)
{
    const char *p = m->pathmap;
    size_t at = 0;
    int tok = 0;
    buf[0] = '\0';
    if (p == NULL || w->line <= 0 || w->name == NULL) {
        viz_algo_text(w->algo, buf, len);
        return;
    }
    for (int line = 1; line < w->line && *p; p++)
        line += *p == '\n';
    while (*p && *p != '\n' && *p != '#') {
        size_t k = 0;
        while (*p == ' ' || *p == '\t' || *p == '\r')
            p++;
        while (p[k] && p[k] != '\n' && p[k] != '#' && p[k] != ' ' && p[k] != '\t'
               && p[k] != '\r')
            k++;
        if (k == 0)
            break;
        if ((tok == 0 && (k != 4 || strncmp(p, "algo", 4) != 0))
            || (tok == 1 && (k != strlen(w->name) || strncmp(p, w->name, k) != 0))) {
            viz_algo_text(w->algo, buf, len);   /* not the node's line */
            return;
        }
        if (tok++ >= 2 && at + k + 2 < len) {
            if (at > 0)
                buf[at++] = ' ';
            memcpy(buf + at, p, k);
            buf[at += k] = '\0';
        }
        p += k;
    }
}

static void place_columns(viz_tree_layout_t *v)
{
    double x = VIZ_TREE_MARGIN;
    for (int h = 0; h < v->t->nhosts; h++) {
        int a = v->root0[h], b = v->root0[h + 1];
        if (a == b)
            continue;
        double s = -RGAP;
        for (int k = a; k < b; k++)
            s += subtree_span(v, v->root[k]) + RGAP;
        char label[2 * VIZ_TREE_LABEL_MAX + 8];
        viz__tree_host_label(v, h, label, sizeof label);
        double w = fmax(s, viz__text_w(label, 12) + 4) + 2 * CPAD;
        double left = x + (w - s) / 2;
        for (int k = a; k < b; k++) {
            place_x(v, v->root[k], left);
            left += v->n[v->root[k]].span + RGAP;
        }
        v->hosts[h].x = x;
        v->hosts[h].w = w;
        x += w + CGAP;
    }
    v->width = v->content_w = x - CGAP + VIZ_TREE_MARGIN;
}

/* An algorithm node that spans hosts: a box from the left side of the
 * first column it joins to the right side of the last (wider if its text
 * needs it, centred there), so each contributor's link goes straight down. */
static void place_spans(viz_tree_layout_t *v)
{
    double lo = VIZ_TREE_MARGIN, hi = v->content_w - VIZ_TREE_MARGIN;
    for (int i = 0; i < v->t->nwrappers; i++) {
        viz_tree_node_t *n = &v->n[i];
        if (!n->spans)
            continue;
        double x0 = INFINITY, x1 = -INFINITY;
        for (int k = v->in0[i]; k < v->in0[i + 1]; k++) {
            const viz_tree_host_t *hb = &v->hosts[v->n[v->in[k]].host];
            x0 = fmin(x0, hb->x);
            x1 = fmax(x1, hb->x + hb->w);
        }
        n->cx = (x0 + x1) / 2;
        n->rx = fmax(n->rx, (x1 - x0) / 2);
        lo = fmin(lo, n->cx - n->rx);
        hi = fmax(hi, n->cx + n->rx);
    }
    if (lo < VIZ_TREE_MARGIN)                   /* text wider than the columns */
        viz__tree_shift_x(v, VIZ_TREE_MARGIN - lo);
    v->width = v->content_w = hi - lo + 2 * VIZ_TREE_MARGIN;
}

void viz__tree_shift_x(viz_tree_layout_t *v, double dx)
{
    for (int i = 0; i < v->nn; i++)
        v->n[i].cx += dx;
    for (int h = 0; h < v->t->nhosts; h++)
        v->hosts[h].x += dx;
}

/* ---- links -------------------------------------------------------------------- */

/* Where the links meet each node: at the children's x, clamped to the middle
 * of the node's top and pushed apart (PORT_GAP, less when crowded) in the
 * children's order, so a child straight above gets a vertical link. */
static void place_ports(viz_tree_layout_t *v)
{
    for (int i = 0; i < v->nn; i++) {
        int a = v->in0[i], b = v->in0[i + 1], k = b - a;
        const viz_tree_node_t *p = &v->n[i];
        double r = PORT_SPAN * p->rx, g = k > 1 ? fmin(PORT_GAP, 2 * r / (k - 1)) : 0;
        double prev = -INFINITY, next = r + g;
        sort_items(v, v->in, a, b, key_x);
        if (p->spans) {                         /* straight down into the node */
            for (int j = a; j < b; j++)
                v->n[v->in[j]].port_dx = v->n[v->in[j]].cx - p->cx;
            continue;
        }
        for (int j = a; j < b; j++) {
            viz_tree_node_t *c = &v->n[v->in[j]];
            c->port_dx = fmax(fmin(fmax(c->cx - p->cx, -r), r), prev + g);
            prev = c->port_dx;
        }
        for (int j = b - 1; j >= a; j--) {
            viz_tree_node_t *c = &v->n[v->in[j]];
            c->port_dx = fmin(c->port_dx, next - g);
            next = c->port_dx;
        }
    }
}

void viz__tree_port_xy(const viz_tree_layout_t *v, int i, double *x_p, double *y_p)
{
    const viz_tree_node_t *n = &v->n[i], *p = &v->n[n->parent];
    const an_model_wrapper_t *w = viz__tree_wrapper(v, n->parent);
    double f = n->port_dx / p->rx;
    *x_p = p->cx + n->port_dx;
    *y_p = w != NULL && viz__tree_is_algo(w) ? p->cy - p->ry
                                             : p->cy - p->ry * sqrt(fmax(0, 1 - f * f));
}

/* Horizontal extent of the link from i to its parent. */
static void link_span(const viz_tree_layout_t *v, int i, double *x0, double *x1)
{
    const viz_tree_node_t *n = &v->n[i];
    double px = v->n[n->parent].cx + n->port_dx;
    *x0 = fmin(n->cx, px);
    *x1 = fmax(n->cx, px);
}

static double key_length(const viz_tree_layout_t *v, int i)
{
    double x0, x1;
    link_span(v, i, &x0, &x1);
    return x1 - x0;
}

/* Lanes of the links that cross hosts, gap by gap: shortest first; a link
 * goes below every shorter link it overlaps. */
static void assign_lanes(viz_tree_layout_t *v)
{
    for (int i = 0; i < v->nn; i++)
        v->tmp[i] = v->n[i].cross ? v->n[i].depth : -1;
    group_by(v->tmp, v->nn, v->maxdepth + 1, v->xl0, v->xl, v->fill);
    for (int d = 1; d <= v->maxdepth; d++) {
        int *link = v->xl + v->xl0[d], m = v->xl0[d + 1] - v->xl0[d];
        sort_items(v, link, 0, m, key_length);
        for (int a = 0; a < m; a++) {
            double xa, xb, ya, yb;
            link_span(v, link[a], &xa, &xb);
            int lane = 0;
            for (int b = 0; b < a; b++) {
                link_span(v, link[b], &ya, &yb);
                if (xa < yb + 4 && ya < xb + 4 && v->n[link[b]].lane >= lane)
                    lane = v->n[link[b]].lane + 1;
            }
            v->n[link[a]].lane = lane;
            v->nlanes[d] = lane + 1 > v->nlanes[d] ? lane + 1 : v->nlanes[d];
        }
    }
}

double viz__tree_lane_y(const viz_tree_layout_t *v, int depth, int lane)
{
    return v->row_y[depth] + v->nh + PADB + LANEPAD + lane * LANE;
}

/* ---- rows and boxes ----------------------------------------------------------- */

static void place_rows(viz_tree_layout_t *v)
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

/* Each host's box: from above its top row (label band) to below its lowest
 * nodes; a proxy that leaves the host sits on the bottom edge. */
static void place_boxes(viz_tree_layout_t *v)
{
    for (int i = 0; i < v->nn; i++) {
        const viz_tree_node_t *n = &v->n[i];
        viz_tree_host_t *hb = &v->hosts[n->host];
        const an_model_wrapper_t *w = viz__tree_wrapper(v, i);
        int leaves = n->cross && w != NULL && w->kind == AN_KIND_PROXY;
        if (n->spans)                           /* below the boxes it joins */
            continue;
        hb->top = n->depth > hb->top ? n->depth : hb->top;
        hb->y1 = fmax(hb->y1, leaves ? n->cy : n->cy + v->nh + PADB);
        hb->nthreads += w == NULL;
        hb->nwrappers += w != NULL;
    }
    for (int h = 0; h < v->t->nhosts; h++)
        v->hosts[h].y0 = v->row_y[v->hosts[h].top] - v->nh - BAND + 2;
}

/* ---- the layout ---------------------------------------------------------------- */

cm_status_t viz__tree_layout_init(viz_tree_layout_t *v, const an_model_t *m, int with_latency,
                                  const viz_opts_t *o, cm_err_t *err)
{
    *v = (viz_tree_layout_t){ .m = m, .t = &m->tree, .o = o, .want_latency = with_latency };
    v->nn = m->tree.nwrappers + (m->tree.nthreads > 0 ? m->tree.nthreads : 0);
    cm_status_t st = check_input(v, with_latency, err);
    if (st == CM_OK)
        st = alloc_all(v, err);
    if (st == CM_OK)
        st = build_nodes(v, err);
    if (st != CM_OK)
        return st;
    build_lists(v);
    mark_selected(v);
    measure(v);
    place_columns(v);
    place_spans(v);
    place_ports(v);
    assign_lanes(v);
    place_rows(v);
    place_boxes(v);
    return CM_OK;
}
