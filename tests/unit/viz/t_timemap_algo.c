/*
 * t_timemap_algo.c - `papviz timemap` of a tree whose root is an algorithm
 * node (viz/viz_timemap.c), on a model built by hand.
 *
 * Hosts h0..h2, one thread each (thread i on host i) entering gred gi,
 * whose parent is the algorithm node `across` (run=rd).  Every path has
 * three stages: gi down, across latency (the host's visit t1..t4), gi up.
 * Thread i: down 1000 ns, latency 4000 + 1000 i ns, up 500 ns.  The stage
 * names differ by host, so the paths are grouped by place in the tree
 * (one shape), the algorithm node's stage gets the green band, and x = 0 is
 * where the path enters the algorithm node.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tst.h"
#include "tests/test_list.h"
#include "viz/api/viz.h"

static an_model_stage_t stages[3][3];
static an_model_path_t paths[3];
static an_model_wstats_t wstats[4];
static an_model_size_t size;

static an_model_stat_t stat(double mean)
{
    return (an_model_stat_t){ 10, mean, mean, 0, mean, mean, mean, mean };
}

static an_model_t *model(void)
{
    an_model_t *m = an_model_create();
    TST_NOT_NULL(m);
    TST_EQ_INT(an_model_tree_alloc(m, 3, 4, 3), CM_OK);
    m->pathmap_path = "rd.pathmap";
    m->trace = "t/traces.otf2";
    static const char *const hn[] = { "h0", "h1", "h2" }, *const gn[] = { "g0", "g1", "g2" };
    for (int h = 0; h < 3; h++)
        m->tree.hosts[h] = (an_model_host_t){ h, hn[h], "" };
    m->tree.wrappers[0] = (an_model_wrapper_t){ 0, "across", AN_KIND_ALGO, "algo", 0, -1, 0,
                                                3, 3, "", 5, NULL };
    for (int i = 0; i < 3; i++) {
        m->tree.wrappers[i + 1] = (an_model_wrapper_t){ i + 1, gn[i], AN_KIND_GRED, "gred", i,
                                                        0, 1, 1, 1, "host", 6 + i, NULL };
        m->tree.threads[i] = (an_model_thread_t){ i, i, i + 1, 0, 2 };
        stages[i][0] = (an_model_stage_t){ 0, i + 1, AN_STAGE_DOWN, "down", 0, stat(1000) };
        stages[i][1] = (an_model_stage_t){ 1, 0, AN_STAGE_LATENCY, "latency", 0,
                                           stat(4000 + 1000 * i) };
        stages[i][2] = (an_model_stage_t){ 0, i + 1, AN_STAGE_UP, "up", 1, stat(500) };
        paths[i] = (an_model_path_t){ i, stages[i], 3, stat(5500 + 1000 * i),
                                      stat(5500 + 1000 * i) };
    }
    an_model_algo_t *a = an_model_algo_alloc(m, 3);
    TST_NOT_NULL(a);
    if (a != NULL) {
        a->algo = "rd";
        a->arrival = "equal";
        for (int r = 0; r < 3; r++)
            a->hosts[r] = r;
        m->tree.wrappers[0].algo = a;
    }
    size = (an_model_size_t){ 8, 10, paths, wstats, -1, -1 };
    m->sizes = &size;
    m->nsizes = 1;
    return m;
}

void t_viz_timemap_algo(void)
{
    an_model_t *m = model();
    an_model_t *models[1] = { m };
    viz_opts_t o = { .bytes = -1 };
    char *svg = NULL;
    size_t len = 0;
    cm_err_t err;
    cm_err_clear(&err);
    FILE *out = open_memstream(&svg, &len);
    TST_NOT_NULL(out);
    TST_EQ_INT(viz_timemap(out, models, 1, &o, &err), CM_OK);
    TST_EQ_INT(fclose(out), 0);
    if (getenv("T_TIMEMAP_ALGO_SVG") != NULL) {
        FILE *f = fopen(getenv("T_TIMEMAP_ALGO_SVG"), "w");
        if (f != NULL) {
            fputs(svg, f);
            fclose(f);
        }
    }
    TST_CONTAINS(svg, "mean time relative to entering the algorithm node (µs)");
    TST_CONTAINS(svg, "enter the algorithm node; its run and the up path \xe2\x86\x92");
    TST_CONTAINS(svg, "Green band: the algorithm node (each host&#39;s visit, t1 to t4).");
    TST_CONTAINS(svg, ">algo (level 0): latency</text>");
    TST_CONTAINS(svg, "height=\"100.00\" fill=\"#e3f2dc\"/>");
    TST_CONTAINS(svg, ">stage in the algorithm node</text>");
    /* Thread 2's algorithm stage: 0 to 6 µs after entering the node. */
    TST_CONTAINS(svg, "thread 2 (host h2)\nalgo across: latency\nmean 6.000 µs, median "
                      "6.000 µs, n 10\nfrom 0.000 to 6.000 µs (0 = entering the algorithm "
                      "node)\ncumulative 7.000 µs since entering g2 (arrival waits left out)\n"
                      "algorithm node: the host&#39;s visit, arrival t1 to departure t4 "
                      "(run=rd arrival=equal)</title>");
    free(svg);
    an_model_close(m);
}
