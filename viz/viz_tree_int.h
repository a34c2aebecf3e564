/*
 * viz_tree_int.h - private to `papviz tree`: the layout of the tree picture
 * (viz_tree_layout.c computes it) that the drawing (viz_tree.c) writes out.
 *
 * The layout is plain data: every node's mark (size, text lines, centre),
 * its row and link (lane, where it meets the parent), the host columns and
 * boxes, and the rows' y.  Coordinates are SVG pixels, y growing downward;
 * rows are depths from the core (row 0 at the bottom).  Drawing reads the
 * layout and changes nothing but the horizontal shift (viz__tree_shift_x)
 * and the picture's final size.
 *
 * Not thread-safe; one layout per chart, owned by its caller.
 */
#ifndef VIZ_TREE_INT_H
#define VIZ_TREE_INT_H

#include <stddef.h>
#include "viz/api/viz.h"

#define VIZ_TREE_LABEL_MAX 96    /* bytes of a cut label (wrapper, host) */
#define VIZ_TREE_MARGIN    20.0  /* around the picture */

/* A drawn node: a wrapper (drawn index = node) or a thread (after them). */
typedef struct viz_tree_node {
    int    wrapper;          /* index into wrappers, -1 for a thread */
    int    thread;           /* index into threads, -1 for a wrapper */
    int    host;
    int    parent;           /* drawn index, -1 for a root */
    int    depth;            /* row: 0 = the core */
    int    key;              /* smallest thread number below (INT_MAX: none) */
    int    cross;            /* the link to the parent crosses hosts */
    int    lane;
    int    spans;            /* an algorithm node drawn across its hosts' columns */
    int    nspan;            /* ... the hosts it joins (its contributors' hosts) */
    int    rank;             /* a contributor of such a node: its host's rank there */
    int    sel;              /* on the path of a selected thread */
    int    has_value;
    double value;            /* ns: the colour of a wrapper */
    int    nlines;
    char   line[3][VIZ_TREE_LABEL_MAX];
    double rx, ry, cx, cy;
    double span, anchor, koff;  /* subtree width, node centre and children in it */
    double port_dx;          /* where the link meets the parent, from its centre */
} viz_tree_node_t;

/* A host's column and box; w = 0: the host has no node of the tree. */
typedef struct viz_tree_host {
    double x, w;             /* the column (and the box's sides) */
    int    top;              /* the row of its highest nodes */
    double y0, y1;           /* the box: top of its label band, bottom */
    int    nthreads, nwrappers;
} viz_tree_host_t;

typedef struct viz_tree_layout {
    const an_model_t      *m;
    const an_model_tree_t *t;
    const an_model_size_t *sz;      /* NULL: colours by kind */
    const viz_opts_t      *o;
    viz_tree_node_t *n;
    int        nn;
    viz_tree_host_t *hosts;         /* per host of the model */
    int       *kid, *kid0;          /* local children of i: kid[kid0[i] .. kid0[i + 1]) */
    int       *root, *root0;        /* local roots of host h, the same way */
    int       *in, *in0;            /* every child of i (the links into it) */
    int       *xl, *xl0;            /* links that cross hosts by depth of the child */
    int       *tmp, *fill;          /* scratch */
    int       *ipool;               /* storage of the int arrays */
    double    *row_y;               /* per depth */
    int       *nlanes;              /* per depth: lanes in the gap below the row */
    int        maxdepth;
    double     nh;                  /* half height of the tallest node */
    double     key_hi, key_step;    /* colour key, µs */
    int        want_latency;        /* asked for colours by latency */
    int        nodata, has_sel, has_cross;
    double     content_w;           /* width of the hosts, margins included */
    double     width, height, legend_y;
} viz_tree_layout_t;

/* Checks the model's tree and the options and lays the picture out into v
 * (caller's storage).  with_latency: colour by the statistics of o->bytes
 * when the model has any.  m and o are borrowed and must outlive v.
 * Returns CM_OK, CM_ERR_INVALID (no wrappers, a node without a host, no
 * statistics for the size), CM_ERR_NAME (a selected thread not in the tree),
 * CM_ERR_TREE (a cycle) or CM_ERR_NOMEM.  Release v with
 * viz__tree_layout_cleanup whatever it returns. */
cm_status_t viz__tree_layout_init(viz_tree_layout_t *v,
                                  const an_model_t *m,   /* the tree, and statistics */
                                  int with_latency,
                                  const viz_opts_t *o,   /* bytes, selected threads */
                                  cm_err_t *err);
void viz__tree_layout_cleanup(viz_tree_layout_t *v);

/* Moves the hosts right by dx (centring a narrow tree under its title). */
void viz__tree_shift_x(viz_tree_layout_t *v, double dx);

/* y of a lane in the gap below row `depth`. */
double viz__tree_lane_y(const viz_tree_layout_t *v, int depth, int lane);

/* Where the link of node i meets its parent's outline. */
void viz__tree_port_xy(const viz_tree_layout_t *v, int i, double *x_p, double *y_p);

/* The label of host h's box: its pathmap name and machine, cut. */
void viz__tree_host_label(const viz_tree_layout_t *v, int h, char *buf, size_t len);

static inline const char *viz__str_or(const char *s, const char *dflt)
{
    return s != NULL && s[0] ? s : dflt;
}

/* Estimated width of s in px at font size px (DejaVu Sans, mixed text). */
static inline double viz__text_w(const char *s, double px)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        n += (*p & 0xc0) != 0x80;
    return (double)n * px * 0.58;
}

/* Algorithm nodes are drawn as rectangles that name their kind. */
static inline int viz__tree_is_algo(const an_model_wrapper_t *w)
{
    return w->kind == AN_KIND_ALGO || w->kind == AN_KIND_OTHER;
}

/* The parameters of algorithm node w as its pathmap line states them
 * ("run=prr round=5000"; the keyword, the name and a comment left out), from
 * the model's pathmap text, into buf; else from the model's description of
 * it (w->algo: run=, bcast=, root=, arrival=); "" without either. */
void viz__tree_algo_params(const an_model_t *m, const an_model_wrapper_t *w, char *buf,
                           size_t len);

/* The wrapper drawn as node i, NULL for a thread. */
static inline const an_model_wrapper_t *viz__tree_wrapper(const viz_tree_layout_t *v, int i)
{
    return v->n[i].wrapper >= 0 ? &v->t->wrappers[v->n[i].wrapper] : NULL;
}

#endif /* VIZ_TREE_INT_H */
