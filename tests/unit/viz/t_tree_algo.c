/*
 * t_tree_algo.c - `papviz tree` with an algorithm node at the root
 * (viz/viz_tree_layout.c, viz/viz_tree.c), on a model built by hand.
 *
 * The tree: hosts h0, h1, h2; an algorithm node `across` (run=clv with a
 * binomial broadcast) whose contributors are gred g0 on h0 and g2 on h2 and
 * thread 3 directly on h1; threads 0, 1 enter g0, thread 2 enters g2.  Its
 * hosts are its contributors' hosts in ascending order, so h0 is rank 0,
 * h1 rank 1, h2 rank 2.  Expected: one rectangle under the boxes, covering
 * h0's box to h2's box and centred under them, labelled with the name, the
 * parameters as the pathmap line states them (comment dropped) and "across
 * 3 hosts"; each contributor linked straight down into it (x of the link =
 * x of the contributor); tooltips naming the ranks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tst.h"
#include "tests/test_list.h"
#include "viz/api/viz.h"

static const char PATHMAP[] =
    "host h0\n"
    "host h1\n"
    "host h2\n"
    "tree t type=int32 op=sum\n"
    "algo across run=clv   bcast=binomial-bcast round=5000   # the root\n"
    "gred g0 host=h0 parent=across\n"
    "gred g2 host=h2 parent=across\n"
    "threads 0-1 host=h0 enter=g0\n"
    "threads 2 host=h2 enter=g2\n"
    "threads 3 host=h1 enter=across\n";

static an_model_t *model(void)
{
    an_model_t *m = an_model_create();
    TST_NOT_NULL(m);
    TST_EQ_INT(an_model_tree_alloc(m, 3, 3, 4), CM_OK);
    m->pathmap_path = "algo.pathmap";
    m->pathmap = PATHMAP;
    m->tree.name = "t";
    static const char *const hn[] = { "h0", "h1", "h2" };
    for (int h = 0; h < 3; h++)
        m->tree.hosts[h] = (an_model_host_t){ h, hn[h], "" };
    static const an_model_wrapper_t w[] = {
        { 0, "across", AN_KIND_ALGO, "algo", 0, -1, 0, 3, 0, "", 5, NULL },
        { 1, "g0", AN_KIND_GRED, "gred", 0, 0, 1, 2, 0, "", 6, NULL },
        { 2, "g2", AN_KIND_GRED, "gred", 2, 0, 1, 1, 0, "", 7, NULL },
    };
    memcpy(m->tree.wrappers, w, sizeof w);
    static const an_model_thread_t th[] = {
        { 0, 0, 1, 0, 2 }, { 1, 0, 1, 0, 2 }, { 2, 2, 2, 0, 2 }, { 3, 1, 0, 0, 1 },
    };
    memcpy(m->tree.threads, th, sizeof th);
    return m;
}

static char *draw(an_model_t *m)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    viz_opts_t o = { .bytes = -1 };
    cm_err_t err;
    cm_err_clear(&err);
    TST_NOT_NULL(out);
    TST_EQ_INT(viz_tree(out, m, 0, &o, &err), CM_OK);
    TST_EQ_INT(fclose(out), 0);
    if (getenv("T_TREE_ALGO_SVG") != NULL) {      /* to look at it */
        FILE *f = fopen(getenv("T_TREE_ALGO_SVG"), "w");
        if (f != NULL) {
            fputs(buf, f);
            fclose(f);
        }
    }
    return buf;
}

/* The x, y, width of the first <rect> after `after` in svg. */
static void rect_after(const char *svg, const char *after, double *x, double *y, double *w)
{
    const char *p = strstr(svg, after);
    TST_NOT_NULL(p);
    p = p ? strstr(p, "<rect") : NULL;
    TST_NOT_NULL(p);
    *x = *y = *w = -1;
    if (p != NULL)
        TST_EQ_INT(sscanf(p, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\"", x, y, w), 3);
}

void t_viz_tree_algo_spans(void)
{
    an_model_t *m = model();
    char *svg = draw(m);
    double ax, ay, aw, x0, y0, w0, x2, y2, w2, x1, y1, w1;
    rect_after(svg, "<title>algo across", &ax, &ay, &aw);
    rect_after(svg, "<title>host h0 (rank 0)", &x0, &y0, &w0);
    rect_after(svg, "<title>host h1 (rank 1)", &x1, &y1, &w1);
    rect_after(svg, "<title>host h2 (rank 2)", &x2, &y2, &w2);
    /* At least from h0's left side to h2's right side (wider here: its
       text needs more), centred under them. */
    TST_TRUE(ax <= x0 + 0.005 && ax + aw >= x2 + w2 - 0.005);
    TST_EQ_DBL(ax + aw / 2, (x0 + x2 + w2) / 2, 0.01);
    TST_TRUE(x0 < x1 && x1 < x2);
    TST_TRUE(ay > y0 && ay > y1 && ay > y2);      /* below the host boxes */
    TST_CONTAINS(svg, "<title>algo across\nruns run=clv bcast=binomial-bcast round=5000\n"
                      "joins 3 hosts (rank in the algorithm: host): 0: h0, 1: h1, 2: h2\n"
                      "level 0, fan-in 3\npathmap line 5</title>");
    TST_CONTAINS(svg, ">run=clv bcast=binomial-bcast round=5000</text>");
    TST_CONTAINS(svg, ">across 3 hosts</text>");
    TST_CONTAINS(svg, "<title>g0 \xe2\x86\x92 across: host h0 joins the algorithm as rank 0 "
                      "of 3</title>");
    TST_CONTAINS(svg, "<title>thread 3 \xe2\x86\x92 across: host h1 joins the algorithm as "
                      "rank 1 of 3</title>");
    TST_CONTAINS(svg, "<title>g2 \xe2\x86\x92 across: host h2 joins the algorithm as rank 2 "
                      "of 3</title>");
    TST_CONTAINS(svg, "partial results flow down to the algorithm node");
    TST_CONTAINS(svg, "algorithm node: runs across the hosts it joins");
    /* Links straight down: a link's two x are equal, and its lower end is
       the top of the rectangle. */
    const char *p = strstr(svg, "g2 \xe2\x86\x92 across");
    double lx1, ly1, lx2, ly2;
    TST_NOT_NULL(p);
    p = p ? strstr(p, "<line") : NULL;
    TST_NOT_NULL(p);
    if (p != NULL) {
        TST_EQ_INT(sscanf(p, "<line x1=\"%lf\" y1=\"%lf\" x2=\"%lf\" y2=\"%lf\"", &lx1, &ly1,
                          &lx2, &ly2), 4);
        TST_EQ_DBL(lx1, lx2, 0.005);
        TST_EQ_DBL(ly2, ay, 0.005);
        TST_TRUE(lx1 > x2 && lx1 < x2 + w2);
    }
    free(svg);
    an_model_close(m);
}

/* A name short enough and hosts wide enough: the rectangle is exactly
   the columns' extent. */
void t_viz_tree_algo_exact(void)
{
    an_model_t *m = model();
    m->pathmap = "host h0\nhost h1\nhost h2\ntree t\nalgo across run=rd\n";
    m->tree.hosts[1].name = "a-long-host-name-h1";
    char *svg = draw(m);
    double ax, ay, aw, x0, y0, w0, x2, y2, w2;
    rect_after(svg, "<title>algo across", &ax, &ay, &aw);
    rect_after(svg, "<title>host h0 (rank 0)", &x0, &y0, &w0);
    rect_after(svg, "<title>host h2 (rank 2)", &x2, &y2, &w2);
    TST_EQ_DBL(ax, x0, 0.005);
    TST_EQ_DBL(ax + aw, x2 + w2, 0.01);
    TST_CONTAINS(svg, ">run=rd</text>");
    free(svg);
    an_model_close(m);
}

/* The same node named on another line, or a model without the pathmap
   text: no parameters are made up; the kind is shown instead. */
void t_viz_tree_algo_no_params(void)
{
    an_model_t *m = model();
    m->tree.wrappers[0].line = 6;                 /* the line of g0 */
    char *svg = draw(m);
    TST_FALSE(strstr(svg, "\nruns ") != NULL);
    TST_CONTAINS(svg, ">algo</text>");
    free(svg);
    m->pathmap = NULL;
    m->tree.wrappers[0].line = 5;
    svg = draw(m);
    TST_CONTAINS(svg, ">algo</text>");
    free(svg);
    an_model_close(m);
}

/* A database's model: no pathmap line, but the node's description (algo,
   bcast, root, its hosts by rank): the label and the ranks come from it,
   even when they disagree with the ascending order of the contributors. */
void t_viz_tree_algo_described(void)
{
    an_model_t *m = model();
    an_model_algo_t *a = an_model_algo_alloc(m, 3);
    TST_NOT_NULL(a);
    if (a == NULL)
        return;
    a->algo = "binomial-reduce";
    a->bcast = "binomial-bcast";
    a->root = 1;
    a->hosts[0] = 2, a->hosts[1] = 0, a->hosts[2] = 1;
    m->tree.wrappers[0].algo = a;
    m->pathmap = NULL;
    char *svg = draw(m);
    TST_CONTAINS(svg, ">run=binomial-reduce bcast=binomial-bcast root=1</text>");
    TST_CONTAINS(svg, "joins 3 hosts (rank in the algorithm: host): 0: h2, 1: h0, 2: h1\n");
    TST_CONTAINS(svg, "host h2 joins the algorithm as rank 0 of 3");
    free(svg);
    an_model_close(m);
}
