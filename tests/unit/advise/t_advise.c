/*
 * t_advise.c - the rules of the advice (advise/adv_rules.c) on trees
 * built in memory, for the rules the synthetic traces of
 * tests/analyze/advise.sh do not reach: remove-level, remove-link, split,
 * unsplit, root, move, and an algorithm node at the root.
 *
 * Each tree is a table of wrappers (kind, host, parent, the database's part,
 * and the means of its stages: gred down, up and departure wait, proxy and
 * core latency) and threads.  A thread's stages are those of the wrappers on
 * its path (arrival waits 0; a proxy's down and up half its latency), so its
 * time per allreduce is their sum: T, the slowest one's, is worked out by
 * hand next to each case, as is every expected gain and figure (times in
 * us, as the reasons print them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/tst.h"
#include "tests/test_list.h"
#include "advise/adv_int.h"

typedef struct tw {
    const char *name, *kind;   /* "gred", "proxy", "core", "algo" */
    int         host;
    const char *parent;        /* NULL for the root */
    const char *part;
    double      down, up, dw, lat;   /* us */
} tw_t;

typedef struct tt {
    int         id, host;
    const char *enter;
} tt_t;

typedef struct tree {
    an_model_t     *m;
    an_model_size_t sz;
    adv_list_t   out;
} tree_t;

static int find(const tw_t *w, int nw, const char *name)
{
    for (int i = 0; name != NULL && i < nw; i++)
        if (strcmp(w[i].name, name) == 0)
            return i;
    return -1;
}

static an_model_kind_t kind_of(const char *k)
{
    return strcmp(k, "gred") == 0 ? AN_KIND_GRED : strcmp(k, "proxy") == 0 ? AN_KIND_PROXY
         : strcmp(k, "core") == 0 ? AN_KIND_CORE : AN_KIND_ALGO;
}

static void add_stage(an_model_path_t *p, int node, an_model_stage_kind_t k, double us)
{
    an_model_stage_t *s = &p->stages[p->nstages++];
    s->node = node;
    s->kind = k;
    s->up = k == AN_STAGE_UP || k == AN_STAGE_DEPARTURE_WAIT;
    s->s.n = 10;
    s->s.mean = us * 1e3;
    p->total.mean += us * 1e3;
}

/* The model of the tables, its one size, and the thread paths. */
static void build(tree_t *t, const char *const *hosts, int nh, const tw_t *w, int nw,
                  const tt_t *th, int nt)
{
    memset(t, 0, sizeof(*t));
    TST_NOT_NULL(t->m = an_model_create());
    TST_EQ_STATUS(an_model_tree_alloc(t->m, nh, nw, nt), CM_OK);
    an_model_tree_t *tr = &t->m->tree;
    for (int h = 0; h < nh; h++)
        tr->hosts[h] = (an_model_host_t){ h, hosts[h], "" };
    t->sz.bytes = 4;
    TST_NOT_NULL(t->sz.wstats = calloc((size_t)nw, sizeof(an_model_wstats_t)));
    TST_NOT_NULL(t->sz.paths = calloc((size_t)nt, sizeof(an_model_path_t)));
    for (int i = 0; i < nw; i++) {
        an_model_wrapper_t *x = &tr->wrappers[i];
        an_model_wstats_t *s = &t->sz.wstats[i];
        x->node = i, x->name = w[i].name, x->kind = kind_of(w[i].kind);
        x->kind_name = w[i].kind, x->host = w[i].host, x->parent = find(w, nw, w[i].parent);
        x->part = w[i].part;
        for (int c = 0; c < nw; c++)
            x->fanin += find(w, nw, w[c].parent) == i;
        for (int k = 0; k < nt; k++)
            x->fanin += find(w, nw, th[k].enter) == i;
        s->down = (an_model_stat_t){ .n = 10, .mean = w[i].down * 1e3 };
        s->up = (an_model_stat_t){ .n = 10, .mean = w[i].up * 1e3 };
        s->departure_wait = (an_model_stat_t){ .n = 10, .mean = w[i].dw * 1e3 };
        s->latency = (an_model_stat_t){ .n = 10, .mean = w[i].lat * 1e3 };
    }
    for (int k = 0; k < nt; k++) {
        an_model_path_t *p = &t->sz.paths[k];
        tr->threads[k] = (an_model_thread_t){ th[k].id, th[k].host, find(w, nw, th[k].enter),
                                              0, 0 };
        TST_NOT_NULL(p->stages = calloc(4 * (size_t)nw, sizeof(an_model_stage_t)));
        p->thread = th[k].id;
        for (int n = find(w, nw, th[k].enter); n >= 0; n = find(w, nw, w[n].parent)) {
            an_model_kind_t kd = kind_of(w[n].kind);
            if (kd == AN_KIND_GRED) {
                add_stage(p, n, AN_STAGE_ARRIVAL_WAIT, 0);
                add_stage(p, n, AN_STAGE_DOWN, w[n].down);
                add_stage(p, n, AN_STAGE_UP, w[n].up);
                add_stage(p, n, AN_STAGE_DEPARTURE_WAIT, w[n].dw);
            } else if (kd == AN_KIND_PROXY) {
                add_stage(p, n, AN_STAGE_DOWN, w[n].lat / 2);
                add_stage(p, n, AN_STAGE_UP, w[n].lat / 2);
            } else {
                add_stage(p, n, AN_STAGE_LATENCY, w[n].lat);
            }
        }
    }
    /* nhosts: hosts of the threads below each wrapper */
    for (int i = 0; i < nw; i++) {
        int seen[8] = { 0 };
        for (int k = 0; k < nt; k++)
            for (int n = find(w, nw, th[k].enter); n >= 0; n = find(w, nw, w[n].parent))
                if (n == i && !seen[th[k].host]++)
                    tr->wrappers[i].nhosts++;
    }
}

static void run(tree_t *t, const an_arrivals_t *hs)
{
    cm_err_t err;
    TST_EQ_STATUS(adv__rules(t->m, &t->sz, hs, "", &t->out, &err), CM_OK);
    adv__rank(&t->out);
}

static void done(tree_t *t)
{
    for (int k = 0; k < t->m->tree.nthreads; k++)
        free(t->sz.paths[k].stages);
    free(t->sz.paths);
    free(t->sz.wstats);
    free(t->out.a);
    an_model_close(t->m);
}

/* Advice i is rule / edit (its text form) with gain us (to 1e-6 us). */
static void expect(const tree_t *t, int i, const char *rule, const char *edit, double us)
{
    char text[256];
    TST_TRUE(i < t->out.n);
    TST_EQ_INT(t->out.a[i].rank, i + 1);
    TST_EQ_STR(gen_edit_op_name(t->out.a[i].edit.op), rule);
    gen_edit_render(&t->out.a[i].edit, text, sizeof(text));
    TST_EQ_STR(text, edit);
    TST_EQ_DBL(t->out.a[i].gain_ns, us * 1e3, 1e-3);
}

/*
 * One host, a binary host subtree: h0 over h0.l1.0 (threads 0, 1) and
 * h0.l1.1 (threads 2, 3), under the core.  The toplevel greds cost down 10
 * + up 30 + departure wait 20 = 60 us; h0's departure wait 4 us with 2
 * contributors is a gap of 2 x 4 / 1 = 8 us; merging gives h0 4
 * contributors: 8 x (4 - 2) / 2 = 8 us more wait; net 52 >= 10 % of T.
 * T = 60 + (5 + 10 + 4) + 6 = 85 us.  add-level: every gred has 2
 * contributors, nothing to add; no proxy, one host: nothing else.
 */
static const char *const one_host[] = { "host0" };
static const tw_t binary1[] = {
    { "root", "core", 0, NULL, "core", 0, 0, 0, 6 },
    { "h0", "gred", 0, "root", "host", 5, 10, 4, 0 },
    { "h0.l1.0", "gred", 0, "h0", "host", 10, 30, 20, 0 },
    { "h0.l1.1", "gred", 0, "h0", "host", 10, 30, 20, 0 },
};
static const tt_t binary1_th[] = {
    { 0, 0, "h0.l1.0" }, { 1, 0, "h0.l1.0" }, { 2, 0, "h0.l1.1" }, { 3, 0, "h0.l1.1" },
};

void t_advise_remove_level(void)
{
    tree_t t;
    build(&t, one_host, 1, binary1, 4, binary1_th, 4);
    run(&t, NULL);
    TST_EQ_INT(t.out.n, 1);
    expect(&t, 0, "remove-level", "remove-level h0", 60);
    /* 60 / 85 = 70.6 %; the first of the equal toplevel greds is named */
    TST_CONTAINS(t.out.a[0].reason, "the level of gred h0.l1.0 (fan-in 2) costs 60.00 us per "
                 "allreduce (down, up and departure wait), 70.6 % of the slowest thread's time "
                 "(85.00 us); giving its contributors to h0 (fan-in 2 -> 4, departures 8.00 us "
                 "apart) adds about 8.00 us of departure wait");
    done(&t);
}

/* The same with h0's departure wait 200 us: a gap of 400, 400 us more wait
 * after the merge, more than the level's 60: no advice. */
void t_advise_remove_level_not_worth(void)
{
    tw_t w[4];
    tree_t t;
    memcpy(w, binary1, sizeof(w));
    w[1].dw = 200;
    build(&t, one_host, 1, w, 4, binary1_th, 4);
    run(&t, NULL);
    TST_EQ_INT(t.out.n, 0);
    done(&t);
}

/*
 * Extra links: h1 on host0 is fed by p1.0 and p1.1 from host1 (threads 2,
 * 3); h0 (threads 0, 1) and h1 under cr0, under the core.  Proxies 40 us,
 * greds down 2 + up 3 + wait 1 = 6, core 5.  T = thread 2: 40 + 6 + 6 + 5
 * = 57.  remove-link h1: 40 us on its links = 70.2 %; algo: the same 40 us
 * >= 40 %; ranked by gain, then rule (remove-link first).  remove-level cr0
 * (h1 is a cluster-root gred: proxies below it): 6 - 2 x 1 / 1 x (3 - 2) /
 * 2 = 5 < 5.7: no.
 */
static const char *const two_hosts[] = { "host0", "host1" };
static const tw_t links[] = {
    { "root", "core", 0, NULL, "core", 0, 0, 0, 5 },
    { "cr0", "gred", 0, "root", "cluster", 2, 3, 1, 0 },
    { "h0", "gred", 0, "cr0", "host", 2, 3, 1, 0 },
    { "h1", "gred", 0, "cr0", "host", 2, 3, 1, 0 },
    { "p1.0", "proxy", 1, "h1", "proxy", 0, 0, 0, 40 },
    { "p1.1", "proxy", 1, "h1", "proxy", 0, 0, 0, 40 },
};
static const tt_t links_th[] = {
    { 0, 0, "h0" }, { 1, 0, "h0" }, { 2, 1, "p1.0" }, { 3, 1, "p1.1" },
};

void t_advise_remove_link(void)
{
    tree_t t;
    build(&t, two_hosts, 2, links, 6, links_th, 4);
    run(&t, NULL);
    TST_EQ_INT(t.out.n, 2);
    expect(&t, 0, "remove-link", "remove-link h1", 40);
    expect(&t, 1, "algo", "algo run=rd", 40);
    TST_CONTAINS(t.out.a[0].reason, "h1 is on host0, fed by 2 links from host1: thread 2 spends "
                 "40.00 us per allreduce on them, 70.2 % of the slowest thread's time (57.00 us)");
    done(&t);
}

/*
 * The root rule on the links tree: host1 arrives last in every operation.
 * With its mean arrival 3 us after host0's and its departure 3 us after
 * host0's, its lateness is the loop's echo: no root advice.  With arrival
 * 20 us and departure 5 us after host0's, 15 us are its own, 26.3 % of 57
 * (>= 10 %): root host1, gain its threads' proxy stages, 40 us.
 */
void t_advise_root(void)
{
    double last[2] = { 0, 1 }, arr[2] = { 0, 3000 }, dep[2] = { 0, 3000 };
    an_arrivals_t hs = { 4, last, arr, dep, NULL, NULL, NULL, NULL, NULL };
    tree_t t;
    build(&t, two_hosts, 2, links, 6, links_th, 4);
    run(&t, &hs);
    TST_EQ_INT(t.out.n, 2);                  /* remove-link and algo only */
    free(t.out.a);
    t.out = (adv_list_t){ NULL, 0, 0 };
    arr[1] = 20000, dep[1] = 5000;
    run(&t, &hs);
    TST_EQ_INT(t.out.n, 3);
    expect(&t, 0, "remove-link", "remove-link h1", 40);
    expect(&t, 1, "algo", "algo run=rd", 40);
    expect(&t, 2, "root", "root host1", 40);
    TST_CONTAINS(t.out.a[2].reason, "the threads of host1 arrive last in 100.0 % of the "
                 "operations, 20.00 us after the first host's on average, 15.00 us more than "
                 "they leave after the first (26.3 % of the slowest thread's time, 57.00 us)");
    /* host0, the root host, arriving last: nothing to move */
    free(t.out.a);
    t.out = (adv_list_t){ NULL, 0, 0 };
    last[0] = 1, last[1] = 0, arr[0] = 20000, arr[1] = 0, dep[1] = 0;
    run(&t, &hs);
    TST_EQ_INT(t.out.n, 2);
    done(&t);
}

/*
 * Four hosts, binary cluster root on host0: cr0 over cr1.0 (h0, p1 <- h1)
 * and cr1.1 (p2 <- h2, p3 <- h3); host subtrees of 2 threads.  h0, on the
 * loaded root host, costs down 5 + up 30 + wait 10 = 45 us, the others 5 +
 * 10 + 5 = 20; cluster greds 2 + 4 + 2 = 8; proxies 30; core 4.  T = a
 * thread of host1..3: 20 + 30 + 8 + 8 + 4 = 70 (host0's: 45 + 8 + 8 + 4 =
 * 65).  split: the toplevel cluster greds have 2 hosts below them, cr1.1
 * not the root host's: "split 2 last"; gain 45 - 20 = 25 = 35.7 % of 70.
 * algo: 30 / 70 = 42.9 %, gain 30, first.  remove-level cr0: 8 - (2 x 2 /
 * 1) x (4 - 2) / 2 = 4 < 7: no.  add-level: fan-in 2 everywhere.
 */
static const char *const four_hosts[] = { "host0", "host1", "host2", "host3" };
static const tw_t binary4[] = {
    { "root", "core", 0, NULL, "core", 0, 0, 0, 4 },
    { "cr0", "gred", 0, "root", "cluster", 2, 4, 2, 0 },
    { "cr1.0", "gred", 0, "cr0", "cluster", 2, 4, 2, 0 },
    { "cr1.1", "gred", 0, "cr0", "cluster", 2, 4, 2, 0 },
    { "h0", "gred", 0, "cr1.0", "host", 5, 30, 10, 0 },
    { "p1", "proxy", 1, "cr1.0", "proxy", 0, 0, 0, 30 },
    { "h1", "gred", 1, "p1", "host", 5, 10, 5, 0 },
    { "p2", "proxy", 2, "cr1.1", "proxy", 0, 0, 0, 30 },
    { "h2", "gred", 2, "p2", "host", 5, 10, 5, 0 },
    { "p3", "proxy", 3, "cr1.1", "proxy", 0, 0, 0, 30 },
    { "h3", "gred", 3, "p3", "host", 5, 10, 5, 0 },
};
static const tt_t binary4_th[] = {
    { 0, 0, "h0" }, { 1, 0, "h0" }, { 2, 1, "h1" }, { 3, 1, "h1" },
    { 4, 2, "h2" }, { 5, 2, "h2" }, { 6, 3, "h3" }, { 7, 3, "h3" },
};

void t_advise_split(void)
{
    tree_t t;
    build(&t, four_hosts, 4, binary4, 11, binary4_th, 8);
    run(&t, NULL);
    TST_EQ_INT(t.out.n, 2);
    expect(&t, 0, "algo", "algo run=rd", 30);
    expect(&t, 1, "split", "split 2 last", 25);
    TST_CONTAINS(t.out.a[1].reason, "the threads of the cluster-root host host0 spend 45.00 us "
                 "per allreduce in their host subtree, 25.00 us more than the other hosts' "
                 "(20.00 us), 35.7 % of the slowest thread's time (70.00 us)");
    TST_CONTAINS(t.out.a[0].reason, "proxy stages take 30.00 us of thread 2's 70.00 us");
    done(&t);
}

/*
 * The same tree split: cr1.1 on host3 (reached through p3.cr1.1), h3
 * entering it directly, h2 through p2; every host subtree 20 us.  A thread
 * of host2: h2 20 + p2 30 + cr1.1 8 + p3.cr1.1 30 + cr0 8 + core 4 = 100 =
 * T.  unsplit: p3.cr1.1's 30 us > cr1.1's own 8 and >= 10 %: gain 30.
 * algo: 60 / 100, gain 60, first.  split: already split, no.
 * remove-level cr0: cr1.1 is on another host than cr0: refused, no.
 */
static const tw_t split4[] = {
    { "root", "core", 0, NULL, "core", 0, 0, 0, 4 },
    { "cr0", "gred", 0, "root", "cluster", 2, 4, 2, 0 },
    { "cr1.0", "gred", 0, "cr0", "cluster", 2, 4, 2, 0 },
    { "p3.cr1.1", "proxy", 3, "cr0", "proxy", 0, 0, 0, 30 },
    { "cr1.1", "gred", 3, "p3.cr1.1", "cluster", 2, 4, 2, 0 },
    { "h0", "gred", 0, "cr1.0", "host", 5, 10, 5, 0 },
    { "p1", "proxy", 1, "cr1.0", "proxy", 0, 0, 0, 30 },
    { "h1", "gred", 1, "p1", "host", 5, 10, 5, 0 },
    { "p2", "proxy", 2, "cr1.1", "proxy", 0, 0, 0, 30 },
    { "h2", "gred", 2, "p2", "host", 5, 10, 5, 0 },
    { "h3", "gred", 3, "cr1.1", "host", 5, 10, 5, 0 },
};

void t_advise_unsplit(void)
{
    tree_t t;
    build(&t, four_hosts, 4, split4, 11, binary4_th, 8);
    run(&t, NULL);
    TST_EQ_INT(t.out.n, 2);
    expect(&t, 0, "algo", "algo run=rd", 60);
    expect(&t, 1, "unsplit", "unsplit", 30);
    TST_CONTAINS(t.out.a[1].reason, "proxy p3.cr1.1 carries cluster-root gred cr1.1 from host3 "
                 "to host0: its 30.00 us per allreduce (30.0 % of the slowest thread's time, "
                 "100.00 us) is more than the 8.00 us the gred itself takes there");
    done(&t);
}

/*
 * An algorithm node across two hosts, a gred of 4 threads on each: h0 and
 * h1 cost up 20 + departure wait 30 = 50 us (down 5), the node 40.  T = 5
 * + 20 + 30 + 40 = 95.  add-level h0 and h1 (gain 50, 52.6 %; equal gains
 * by edit); gap 2 x 30 / 3 = 20 us.  Nothing across the hosts, even with
 * host1 arriving last and late on its own.
 */
static const tw_t algo2[] = {
    { "across", "algo", 0, NULL, "algo", 0, 0, 0, 40 },
    { "h0", "gred", 0, "across", "host", 5, 20, 30, 0 },
    { "h1", "gred", 1, "across", "host", 5, 20, 30, 0 },
};
static const tt_t algo2_th[] = {
    { 0, 0, "h0" }, { 1, 0, "h0" }, { 2, 0, "h0" }, { 3, 0, "h0" },
    { 4, 1, "h1" }, { 5, 1, "h1" }, { 6, 1, "h1" }, { 7, 1, "h1" },
};

void t_advise_algo_root(void)
{
    double last[2] = { 0, 1 }, arr[2] = { 0, 50000 }, dep[2] = { 0, 0 };
    an_arrivals_t hs = { 4, last, arr, dep, NULL, NULL, NULL, NULL, NULL };
    tree_t t;
    build(&t, two_hosts, 2, algo2, 3, algo2_th, 8);
    run(&t, &hs);
    TST_EQ_INT(t.out.n, 2);
    expect(&t, 0, "add-level", "add-level h0", 50);
    expect(&t, 1, "add-level", "add-level h1", 50);
    TST_CONTAINS(t.out.a[0].reason, "gred h0 (fan-in 4): its contributors leave 20.00 us apart "
                 "on average (mean departure wait 30.00 us) and its up latency is 20.00 us, "
                 "52.6 % of the slowest thread's time (95.00 us)");
    done(&t);
}

/*
 * Hotspots that no edit can address: one host, h0 of 2 threads under the
 * core, up 100 + departure wait 100 of T = 1 + 100 + 100 + 2 = 203 us.
 * add-level: 2 contributors, nothing to group; remove-level: one level;
 * no proxy, one host.  No advice.
 */
static const tw_t pair1[] = {
    { "root", "core", 0, NULL, "core", 0, 0, 0, 2 },
    { "h0", "gred", 0, "root", "host", 1, 100, 100, 0 },
};
static const tt_t pair1_th[] = { { 0, 0, "h0" }, { 1, 0, "h0" } };

void t_advise_nothing_applies(void)
{
    double last[1] = { 1 }, arr[1] = { 0 }, dep[1] = { 0 };
    an_arrivals_t hs = { 4, last, arr, dep, NULL, NULL, NULL, NULL, NULL };
    tree_t t;
    build(&t, one_host, 1, pair1, 2, pair1_th, 2);
    run(&t, &hs);
    TST_EQ_INT(t.out.n, 0);
    done(&t);
}

/*
 * Rule 8, move: three hosts, binary cluster root on host0: cr0 over cr1.0
 * (h0 <- threads 0, 1; p1 <- h1, threads 2, 3 of host1) and p2 (<- h2,
 * threads 4, 5 of host2).  Greds cr0, cr1.0 cost 2 + 4 + 2 = 8 us, host
 * subtrees 5 + 10 + 5 = 20, proxies 30, core 4.  T = thread 2: 20 + 30 + 8
 * + 8 + 4 = 70 (thread 4: 20 + 30 + 8 + 4 = 62; thread 0: 40); 10 % = 7.
 * algo: 30 / 70 = 42.9 % >= 40 %: gain 30, always first.  No other rule:
 * fan-in 2 everywhere (add-level), remove-level cr0: 8 - (2 x 2 / 1) x (3
 * - 2) / 2 = 6 < 7; split: cr1.0 holds the root host's threads; no links,
 * no split greds.
 *
 * Contributors in the database's numbering: cr1.0's are h0 (0) and p1 (1),
 * cr0's cr1.0 (0) and p2 (1).  At cr1.0, p1 (host1) arrives last in 90 %
 * of the operations; the others (h0) wait 40 us on average (25 us of
 * lateness and p1's down half, 15).  Threads 2, 3 arrive 25 us after
 * threads 0, 1 (pap_threads a) and leave 10 us after them (f): 10 us of the
 * lateness is the loop's echo, 25 - 10 = 15 us their own (>= 7).  Gain:
 * min(p1's 30 us, 15, the wait 40) = 15 us; 15 / 70 = 21.4 % of T.
 */
static const tw_t move3[] = {
    { "root", "core", 0, NULL, "core", 0, 0, 0, 4 },
    { "cr0", "gred", 0, "root", "cluster", 2, 4, 2, 0 },
    { "cr1.0", "gred", 0, "cr0", "cluster", 2, 4, 2, 0 },
    { "h0", "gred", 0, "cr1.0", "host", 5, 10, 5, 0 },
    { "p1", "proxy", 1, "cr1.0", "proxy", 0, 0, 0, 30 },
    { "h1", "gred", 1, "p1", "host", 5, 10, 5, 0 },
    { "p2", "proxy", 2, "cr0", "proxy", 0, 0, 0, 30 },
    { "h2", "gred", 2, "p2", "host", 5, 10, 5, 0 },
};
static const tt_t move3_th[] = {
    { 0, 0, "h0" }, { 1, 0, "h0" }, { 2, 1, "h1" }, { 3, 1, "h1" }, { 4, 2, "h2" }, { 5, 2, "h2" },
};
static const char *const three_hosts[] = { "host0", "host1", "host2" };

/* The figures of one case of rule 8: per host (rule 7), per wrapper and per
 * thread (ns). */
typedef struct mv {
    double last[3], arr[3], dep[3];
    int    lastc[8];
    double lastf[8], owait[8], ta[6], tf[6];
} mv_t;

static void run_move(tree_t *t, mv_t *v)
{
    an_arrivals_t hs = { 4, v->last, v->arr, v->dep, v->lastc, v->lastf, v->owait, v->ta, v->tf };
    free(t->out.a);
    t->out = (adv_list_t){ NULL, 0, 0 };
    run(t, &hs);
}

/* cr1.0's late contributor p1, as in the comment above */
static void late_p1(mv_t *v)
{
    memset(v, 0, sizeof(*v));
    for (int n = 0; n < 8; n++)
        v->lastc[n] = -1;
    v->lastc[2] = 1, v->lastf[2] = 0.9, v->owait[2] = 40000;
    v->ta[2] = v->ta[3] = 25000, v->tf[2] = v->tf[3] = 10000;
}

void t_advise_move(void)
{
    tree_t t;
    mv_t v;
    build(&t, three_hosts, 3, move3, 8, move3_th, 6);
    late_p1(&v);
    run_move(&t, &v);
    TST_EQ_INT(t.out.n, 2);
    expect(&t, 0, "algo", "algo run=rd", 30);
    expect(&t, 1, "move", "move cr1.0 host1", 15);
    TST_CONTAINS(t.out.a[1].reason, "at gred cr1.0, p1 (from host1) arrives last in 90.0 % of "
                 "the operations and the others wait 40.00 us for it on average; its threads "
                 "arrive 25.00 us after the others' and leave 10.00 us after them (the loop's "
                 "echo): 15.00 us of lateness their own, 21.4 % of the slowest thread's time "
                 "(70.00 us); its route costs 30.00 us per allreduce: with cr1.0 on host1");
    /* a wait of 12 us caps the gain (min(30, 15, 12)) */
    v.owait[2] = 12000;
    run_move(&t, &v);
    TST_EQ_INT(t.out.n, 2);
    expect(&t, 1, "move", "move cr1.0 host1", 12);
    v.owait[2] = 40000;
    /* exactly 75 %: still fires */
    v.lastf[2] = 0.75;
    run_move(&t, &v);
    TST_EQ_INT(t.out.n, 2);
    expect(&t, 1, "move", "move cr1.0 host1", 15);
    done(&t);
}

/* Where rule 8 must stay silent (the tree and figures of t_advise_move,
 * one thing changed each time; algo alone remains). */
void t_advise_move_not(void)
{
    tree_t t;
    mv_t v;
    build(&t, three_hosts, 3, move3, 8, move3_th, 6);
    /* the late contributor is h0, local to cr1.0's host */
    late_p1(&v);
    v.lastc[2] = 0;
    run_move(&t, &v);
    TST_EQ_INT(t.out.n, 1);
    /* last in 74 % of the operations: < 75 % */
    late_p1(&v);
    v.lastf[2] = 0.74;
    run_move(&t, &v);
    TST_EQ_INT(t.out.n, 1);
    /* the others wait 6 us: < 7 */
    late_p1(&v);
    v.owait[2] = 6000;
    run_move(&t, &v);
    TST_EQ_INT(t.out.n, 1);
    /* p1's route costs 5 us: T is now thread 4's 62 us (thread 2: 20 + 5 +
     * 8 + 8 + 4 = 45), the share 6.2; gain min(5, 15, 40) = 5 < 6.2.  algo
     * alone: thread 4's 30 of 62 us = 48.4 % */
    {
        tw_t w[8];
        tree_t u;
        memcpy(w, move3, sizeof(w));
        w[4].lat = 5;
        build(&u, three_hosts, 3, w, 8, move3_th, 6);
        late_p1(&v);
        run_move(&u, &v);
        TST_EQ_INT(u.out.n, 1);
        expect(&u, 0, "algo", "algo run=rd", 30);
        done(&u);
    }
    /* every other contributor from host1 too (rule 3's case): h0's threads
     * moved to host1 on paper: threads 0, 1 and h0 on host1 */
    {
        tw_t w[8];
        tt_t th[6];
        tree_t u;
        memcpy(w, move3, sizeof(w));
        memcpy(th, move3_th, sizeof(th));
        w[3].host = 1, th[0].host = th[1].host = 1;
        build(&u, three_hosts, 3, w, 8, th, 6);
        late_p1(&v);
        run_move(&u, &v);
        for (int i = 0; i < u.out.n; i++)
            TST_TRUE(u.out.a[i].edit.op != GEN_EDIT_MOVE);
        done(&u);
    }
    /* the echo: threads 2, 3 leave 20 us late, 25 - 20 = 5 us own < 7 */
    late_p1(&v);
    v.tf[2] = v.tf[3] = 20000;
    run_move(&t, &v);
    TST_EQ_INT(t.out.n, 1);
    /* no per-wrapper figures (an older caller): nothing */
    late_p1(&v);
    {
        an_arrivals_t hs = { 4, v.last, v.arr, v.dep, NULL, NULL, NULL, NULL, NULL };
        free(t.out.a);
        t.out = (adv_list_t){ NULL, 0, 0 };
        run(&t, &hs);
        TST_EQ_INT(t.out.n, 1);
    }
    done(&t);
}

/*
 * The core's own child: at cr0, p2 (host2, contributor 1) arrives last in
 * 90 % of the operations, the others wait 25 us, threads 4, 5 arrive 25 us
 * and leave 10 us after threads 0..3: own 15, gain min(30, 15) = 15:
 * "move cr0 host2".  When host2 also arrives last of all hosts in 90 % of
 * the operations, 25 us after the first and leaving 10 us after it (own 15
 * >= 7), rule 7 advises "root host2" (gain: host2's proxy stages, 30 us),
 * which moves the core and cr0 there: the same fix, so no "move cr0 host2".
 * cr1.0's move (late_p1) is not the core's child: it stays.
 */
void t_advise_move_root_child(void)
{
    tree_t t;
    mv_t v;
    build(&t, three_hosts, 3, move3, 8, move3_th, 6);
    late_p1(&v);
    v.lastc[2] = -1;
    v.lastc[1] = 1, v.lastf[1] = 0.9, v.owait[1] = 25000;
    v.ta[2] = v.ta[3] = v.tf[2] = v.tf[3] = 0;
    v.ta[4] = v.ta[5] = 25000, v.tf[4] = v.tf[5] = 10000;
    run_move(&t, &v);
    TST_EQ_INT(t.out.n, 2);
    expect(&t, 0, "algo", "algo run=rd", 30);
    expect(&t, 1, "move", "move cr0 host2", 15);
    v.last[2] = 0.9, v.arr[2] = 25000, v.dep[2] = 10000;
    run_move(&t, &v);
    TST_EQ_INT(t.out.n, 2);
    expect(&t, 0, "algo", "algo run=rd", 30);
    expect(&t, 1, "root", "root host2", 30);
    /* with cr1.0's late p1 too: its move stays */
    v.lastc[2] = 1, v.lastf[2] = 0.9, v.owait[2] = 40000;
    v.ta[2] = v.ta[3] = 25000, v.tf[2] = v.tf[3] = 10000;
    run_move(&t, &v);
    TST_EQ_INT(t.out.n, 3);
    expect(&t, 2, "move", "move cr1.0 host1", 15);
    done(&t);
}
