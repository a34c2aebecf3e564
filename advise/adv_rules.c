/*
 * adv_rules.c - the rules of the advice (docs/pathgen.md, "Advice"): what a
 * database's hotspots point at, in the reasoning of sections 6 and 7 of the
 * PATHS/EventSpace paper, as typed pathgen edits (gen_edit_t,
 * gen/api/gen_edit.h).
 *
 * Works on one tuple size of a model (an_model.h).  The tree is read as
 * pathgen reads it: a gred is in a *host subtree* when every contributor all
 * the way down is on its host with no proxy on the way (gen_node_is_host_part),
 * otherwise in the *cluster-root* part; a subtree's members are the greds of
 * its part reached from its bottom wrapper (through proxies in the cluster
 * part), and its toplevel members those with no member below them.  Every
 * rule checks that its edit applies (the conditions of gen_edit.h) before it
 * fires.  T is the slowest thread's mean time per allreduce; a rule fires
 * when its hotspot reaches ADV_SHARE of T (ADV_PROXY for the
 * algorithm node).  gain_ns is the hotspot's time: an upper bound of what
 * the edit can save.  Rules 1-7 run first; rule 8 (move) last, since it
 * defers to rule 7's `root` on the core's child.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise/adv_int.h"

typedef struct adv {
    const an_model_t      *m;
    const an_model_tree_t *t;
    const an_model_size_t *sz;
    const char            *sfx;
    int                    nw;
    int                   *hp;       /* gen's host part, per wrapper */
    int                    nthosts;  /* hosts with threads */
    double                 T;        /* slowest thread's mean time per allreduce */
    int                    slowest;  /* its thread number */
    adv_list_t         *out;
    cm_err_t              *err;
    int                    root_to;  /* host of rule 7's `root HOST`, -1: none */
} adv_t;

/* ---------------------------------------------------------------- the tree */

static const an_model_wrapper_t *W(const adv_t *a, int n) { return &a->t->wrappers[n]; }

static int is_kind(const adv_t *a, int n, an_model_kind_t k)
{
    return n >= 0 && n < a->nw && W(a, n)->kind == k;
}

/* gen_node_is_host_part: a gred whose greds and threads below are all on its
 * host, with no proxy on the way. */
static int host_part(adv_t *a, int n)
{
    if (a->hp[n] >= 0)
        return a->hp[n];
    int ok = W(a, n)->kind == AN_KIND_GRED;
    for (int c = 0; ok && c < a->nw; c++)
        if (W(a, c)->parent == n)
            ok = W(a, c)->kind == AN_KIND_GRED && W(a, c)->host == W(a, n)->host
                 && host_part(a, c);
    for (int i = 0; ok && i < a->t->nthreads; i++)
        if (a->t->threads[i].enter == n)
            ok = a->t->threads[i].host == W(a, n)->host;
    a->hp[n] = ok;
    return ok;
}

static int is_member(adv_t *a, int n, int part)
{
    return is_kind(a, n, AN_KIND_GRED) && host_part(a, n) == part;
}

/* The member of n's subtree just below n (towards the root), or -1. */
static int member_below(adv_t *a, int n)
{
    int part = host_part(a, n), p = W(a, n)->parent;
    while (!part && is_kind(a, p, AN_KIND_PROXY))
        p = W(a, p)->parent;
    return is_member(a, p, part) ? p : -1;
}

static int bottom_of(adv_t *a, int n)
{
    for (int b; (b = member_below(a, n)) >= 0;)
        n = b;
    return n;
}

/* Members of the subtree whose bottom is b: mem[] and lev[] (0 at b), top[]
 * 1 for a toplevel member; returns their number. */
static int members(adv_t *a, int b, int *mem, int *lev, int *top)
{
    int k = 0;
    mem[k] = b, lev[k++] = 0;
    for (int i = 0; i < k; i++)
        top[i] = 1;
    for (int i = 0; i < k; i++)
        for (int c = 0; c < a->nw; c++)
            if (is_member(a, c, host_part(a, b)) && member_below(a, c) == mem[i]) {
                top[i] = 0;
                mem[k] = c, lev[k] = lev[i] + 1, top[k++] = 1;
            }
    return k;
}

/* Number of toplevel members whose member below is q. */
static int top_children(adv_t *a, int q, const int *mem, const int *top, int k, int *fan)
{
    int n = 0;
    *fan = 0;
    for (int i = 0; i < k; i++)
        if (top[i] && mem[i] != q && member_below(a, mem[i]) == q)
            n++, *fan += W(a, mem[i])->fanin;
    return n;
}

/* ------------------------------------------------------------ the figures */

static double mean(an_model_stat_t s) { return s.n > 0 ? s.mean : 0.0; }

static const an_model_wstats_t *ws(const adv_t *a, int n) { return &a->sz->wstats[n]; }

/* Gap between consecutive departures if they leave one after another: a
 * FIFO's waits are 0, d, ..., (P-1) d, whose mean is d (P-1) / 2. */
static double gap(const adv_t *a, int n)
{
    int P = W(a, n)->fanin;
    return P > 1 ? 2.0 * mean(ws(a, n)->departure_wait) / (P - 1) : 0.0;
}

/* Sum of thread i's stage means at proxies (only those whose parent is
 * `parent`, if parent >= 0). */
static double proxy_time(const adv_t *a, int i, int parent)
{
    const an_model_path_t *p = &a->sz->paths[i];
    double s = 0;
    for (int k = 0; k < p->nstages; k++)
        if (is_kind(a, p->stages[k].node, AN_KIND_PROXY)
            && (parent < 0 || W(a, p->stages[k].node)->parent == parent))
            s += p->stages[k].s.mean;
    return s;
}

/* Thread i's time in host-part wrappers (the database's part), no waits on
 * the way down: thread_parts.host_no_wait. */
static double host_time(const adv_t *a, int i)
{
    const an_model_path_t *p = &a->sz->paths[i];
    double s = 0;
    for (int k = 0; k < p->nstages; k++)
        if (strcmp(W(a, p->stages[k].node)->part, "host") == 0
            && p->stages[k].kind != AN_STAGE_ARRIVAL_WAIT)
            s += p->stages[k].s.mean;
    return s;
}

/* 1 if thread i's path passes node n. */
static int passes(const adv_t *a, int i, int n)
{
    const an_model_path_t *p = &a->sz->paths[i];
    for (int k = 0; k < p->nstages; k++)
        if (p->stages[k].node == n)
            return 1;
    return 0;
}

static double pct(const adv_t *a, double ns) { return a->T > 0 ? 100.0 * ns / a->T : 0.0; }

static int root_node(const adv_t *a)
{
    for (int n = 0; n < a->nw; n++)
        if (W(a, n)->parent < 0)
            return n;
    return -1;
}

static const char *host_name(const adv_t *a, int h)
{
    return h >= 0 && h < a->t->nhosts && a->t->hosts[h].name ? a->t->hosts[h].name : "?";
}

/* ----------------------------------------------------------- the output */

/* Appends the advice "OP [w1 [w2]]" (num: split's SPAN) of that gain. */
static cm_status_t emit(adv_t *a, double gain, gen_edit_op_t op, uint32_t num, const char *w1,
                        const char *w2, const char *reason)
{
    adv_list_t *l = a->out;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        adv_advice_t *p = realloc(l->a, (size_t)cap * sizeof(*p));
        if (p == NULL)
            return CM_ERR(a->err, CM_ERR_NOMEM, "out of memory");
        l->a = p, l->cap = cap;
    }
    adv_advice_t *v = &l->a[l->n];
    memset(v, 0, sizeof(*v));
    gen_edit_init(&v->edit, op);
    v->edit.num = num;
    cm_status_t st = CM_OK;
    if (w1 != NULL && (st = gen_edit_add_arg(&v->edit, w1, a->err)) == CM_OK && w2 != NULL)
        st = gen_edit_add_arg(&v->edit, w2, a->err);
    if (st != CM_OK)
        return st;
    snprintf(v->reason, sizeof(v->reason), "%s%s", reason, a->sfx);
    v->gain_ns = gain;
    l->n++;
    return CM_OK;
}

#define US(x) ((x) / 1e3)

/* ------------------------------------------------------------ the rules */

/*
 * add-level B: a toplevel member g of more than two contributors whose up
 * latency and departure waits (its broadcast: contributors leave one after
 * another) reach the share.  Section 6.1, Fig. 10.
 */
static double add_level(adv_t *a, const int *mem, const int *top, int k, char *why,
                        size_t wn)
{
    int g = -1;
    double best = 0;
    for (int i = 0; i < k; i++) {
        const an_model_wstats_t *s = ws(a, mem[i]);
        double cost = mean(s->up) + mean(s->departure_wait);
        if (top[i] && W(a, mem[i])->fanin > 2 && (g < 0 || cost > best))
            g = mem[i], best = cost;
    }
    if (g < 0 || best < ADV_SHARE * a->T)
        return -1;
    snprintf(why, wn, "gred %.64s (fan-in %d): its contributors leave %.2f us apart on average "
             "(mean departure wait %.2f us) and its up latency is %.2f us, %.1f %% of the "
             "slowest thread's time (%.2f us): adding a level lets them leave in parallel "
             "(PATHS/EventSpace paper, section 6.1, Fig. 10)", W(a, g)->name, W(a, g)->fanin,
             US(gap(a, g)), US(mean(ws(a, g)->departure_wait)), US(mean(ws(a, g)->up)),
             pct(a, best), US(a->T));
    return best;
}

/*
 * remove-level B: the level of a toplevel member m (not B, on the host of
 * the member below it, q) costs its down, up and departure-wait time; its
 * removal adds departure waits at q, which gets m's contributors: at q's
 * departure gap, gap(q) x (new fan-in - old fan-in) / 2 on average.  Fires
 * when the cost minus that reaches the share.  Section 6.1 (Fig. 9) and 6.4.
 */
static double remove_level(adv_t *a, const int *mem, const int *top, int k, int b, char *why,
                           size_t wn)
{
    int best_m = -1, best_q = -1, pq = 0, pn = 0;
    double best_net = 0, best_cost = 0, best_add = 0;
    for (int i = 0; i < k; i++) {
        int m = mem[i], q = top[i] && m != b ? W(a, m)->parent : -1;
        if (top[i] && m != b && !(is_kind(a, q, AN_KIND_GRED) && W(a, q)->host == W(a, m)->host))
            return -1;                      /* gen_edit_remove_level refuses it */
        if (q < 0)
            continue;
        const an_model_wstats_t *s = ws(a, m);
        double cost = mean(s->down) + mean(s->up) + mean(s->departure_wait);
        int fan, ntop = top_children(a, q, mem, top, k, &fan);
        int P = W(a, q)->fanin, Pn = P - ntop + fan;
        double add = gap(a, q) * (Pn - P) / 2.0;
        if (best_m < 0 || cost - add > best_net)
            best_m = m, best_q = q, best_net = cost - add, best_cost = cost, best_add = add,
            pq = P, pn = Pn;
    }
    if (best_m < 0 || best_net < ADV_SHARE * a->T)
        return -1;
    snprintf(why, wn, "the level of gred %.64s (fan-in %d) costs %.2f us per allreduce (down, "
             "up and departure wait), %.1f %% of the slowest thread's time (%.2f us); giving "
             "its contributors to %.64s (fan-in %d -> %d, departures %.2f us apart) adds about "
             "%.2f us of departure wait: remove the level (PATHS/EventSpace paper, sections "
             "6.1, Fig. 9, and 6.4)", W(a, best_m)->name, W(a, best_m)->fanin, US(best_cost),
             pct(a, best_cost), US(a->T), W(a, best_q)->name, pq, pn, US(gap(a, best_q)),
             US(best_add));
    return best_cost;
}

/* Rules 1 and 2 on every subtree (host subtrees and the cluster root); when
 * both fire on one subtree, the larger gain wins. */
static cm_status_t rule_levels(adv_t *a)
{
    int *mem = malloc(3 * (size_t)a->nw * sizeof(int));
    cm_status_t st = CM_OK;
    if (mem == NULL)
        return CM_ERR(a->err, CM_ERR_NOMEM, "out of memory");
    int *lev = mem + a->nw, *top = lev + a->nw;
    for (int b = 0; b < a->nw && st == CM_OK; b++) {
        if (!is_kind(a, b, AN_KIND_GRED) || bottom_of(a, b) != b)
            continue;
        char w1[1024], w2[1024];
        int k = members(a, b, mem, lev, top);
        double g1 = add_level(a, mem, top, k, w1, sizeof(w1));
        double g2 = k > 1 ? remove_level(a, mem, top, k, b, w2, sizeof(w2)) : -1;
        if (g1 >= 0 && g1 >= g2)
            st = emit(a, g1, GEN_EDIT_ADD_LEVEL, 0, W(a, b)->name, NULL, w1);
        else if (g2 >= 0)
            st = emit(a, g2, GEN_EDIT_REMOVE_LEVEL, 0, W(a, b)->name, NULL, w2);
    }
    free(mem);
    return st;
}

/*
 * remove-link H: a host subtree's bottom gred that is not on its threads'
 * host and is fed by proxies from there (gen_edit_add_link's result).  The
 * hotspot: the slowest proxy stages of its threads on those links.
 * Section 6.1 and 6.2 (Fig. 11: slowdown 1.49 on the 4W cluster).
 */
static cm_status_t rule_links(adv_t *a)
{
    for (int n = 0; n < a->nw; n++) {
        const an_model_wrapper_t *w = W(a, n);
        int links = 0, th = -1, worst = -1;
        double cost = 0;
        if (w->kind != AN_KIND_GRED || strcmp(w->part, "host") != 0)
            continue;
        for (int c = 0; c < a->nw; c++)
            links += W(a, c)->parent == n && W(a, c)->kind == AN_KIND_PROXY;
        for (int i = 0; i < a->t->nthreads; i++)
            if (passes(a, i, n)) {
                double p = proxy_time(a, i, n);
                th = a->t->threads[i].host;
                if (worst < 0 || p > cost)
                    worst = i, cost = p;
            }
        if (links < 2 || th < 0 || th == w->host || cost < ADV_SHARE * a->T)
            continue;
        char why[512];
        snprintf(why, sizeof(why), "%.64s is on %.64s, fed by %d links from %.64s: thread %d "
                 "spends %.2f us per allreduce on them, %.1f %% of the slowest thread's time "
                 "(%.2f us); extra links load the cluster-root host (PATHS/EventSpace paper, "
                 "section 6.2: a slowdown of 1.49 on the 4W cluster): keep one",
                 w->name, host_name(a, w->host), links, host_name(a, th),
                 a->t->threads[worst].thread, US(cost), pct(a, cost), US(a->T));
        cm_status_t st = emit(a, cost, GEN_EDIT_REMOVE_LINK, 0, w->name, NULL, why);
        if (st != CM_OK)
            return st;
    }
    return CM_OK;
}

/* Cluster-root greds off the core's host: the tree is split. */
static int split_greds(adv_t *a, int core)
{
    int n = 0;
    for (int g = 0; g < a->nw; g++)
        n += is_member(a, g, 0) && W(a, g)->host != W(a, core)->host;
    return n;
}

/*
 * unsplit: a proxy that carries a cluster-root gred to another host (split)
 * costs more than the moved gred's own time and reaches the share.  Section
 * 7.3: splitting "increases the time spent in the proxy stages more than it
 * improves the cluster-root subtree performance".
 */
static cm_status_t rule_unsplit(adv_t *a, int core)
{
    int worst = -1;
    double lat = 0;
    if (split_greds(a, core) == 0)
        return CM_OK;
    for (int p = 0; p < a->nw; p++) {
        int g = -1;
        for (int c = 0; c < a->nw; c++)
            if (W(a, c)->parent == p && is_kind(a, p, AN_KIND_PROXY) && is_member(a, c, 0))
                g = c;
        double l = g >= 0 ? mean(ws(a, p)->latency) : 0;
        const an_model_wstats_t *s = g >= 0 ? ws(a, g) : NULL;
        if (g >= 0 && l > mean(s->down) + mean(s->up) + mean(s->departure_wait)
            && (worst < 0 || l > lat))
            worst = p, lat = l;
    }
    if (worst < 0 || lat < ADV_SHARE * a->T)
        return CM_OK;
    int g = 0;
    for (int c = 0; c < a->nw; c++)
        if (W(a, c)->parent == worst)
            g = c;
    const an_model_wstats_t *s = ws(a, g);
    char why[1024];
    snprintf(why, sizeof(why), "proxy %.64s carries cluster-root gred %.64s from %.64s to "
             "%.64s: its %.2f us per allreduce (%.1f %% of the slowest thread's time, %.2f us) "
             "is more than the %.2f us the gred itself takes there; moving the cluster root "
             "back to the root host saves that hop (PATHS/EventSpace paper, sections 6.3 and "
             "7.3)", W(a, worst)->name, W(a, g)->name, host_name(a, W(a, g)->host),
             host_name(a, W(a, core)->host), US(lat), pct(a, lat), US(a->T),
             US(mean(s->down) + mean(s->up) + mean(s->departure_wait)));
    return emit(a, lat, GEN_EDIT_UNSPLIT, 0, NULL, NULL, why);
}

/*
 * split S last: the cluster root has two levels or more, all on the root
 * host, and the root host's threads spend more time in their host subtree
 * than the other hosts' threads (the root host's extra load, section 6.1,
 * Fig. 10) by at least the share.  S: the most hosts below one toplevel
 * member of the cluster root, so that split moves those members (section
 * 6.2, Fig. 15; 6.3).
 */
static cm_status_t rule_split(adv_t *a, int core)
{
    int b = -1, rh = W(a, core)->host, span = 0, movable = 0, nr = 0, no = 0;
    double hr = 0, ho = 0;
    for (int g = 0; g < a->nw && b < 0; g++)
        if (is_member(a, g, 0) && bottom_of(a, g) == g)
            b = g;
    if (b < 0 || split_greds(a, core) > 0)
        return CM_OK;
    int *mem = malloc(3 * (size_t)a->nw * sizeof(int));
    if (mem == NULL)
        return CM_ERR(a->err, CM_ERR_NOMEM, "out of memory");
    int k = members(a, b, mem, mem + a->nw, mem + 2 * a->nw), *top = mem + 2 * a->nw;
    for (int i = 0; i < k; i++)
        if (top[i] && mem[i] != b && W(a, mem[i])->nhosts > span)
            span = W(a, mem[i])->nhosts;
    for (int i = 0; i < k; i++) {
        int holds = 0;
        for (int t = 0; t < a->t->nthreads; t++)
            holds |= a->t->threads[t].host == rh && passes(a, t, mem[i]);
        movable += top[i] && mem[i] != b && W(a, mem[i])->nhosts > 1 && !holds;
    }
    free(mem);
    if (span < 2 || movable == 0)
        return CM_OK;
    for (int i = 0; i < a->t->nthreads; i++) {
        double h = host_time(a, i);
        if (a->t->threads[i].host == rh)
            hr += h, nr++;
        else
            ho += h, no++;
    }
    if (nr == 0 || no == 0 || ho == 0)
        return CM_OK;
    hr /= nr, ho /= no;
    if (hr - ho < ADV_SHARE * a->T)
        return CM_OK;
    char why[512];
    snprintf(why, sizeof(why), "the threads of the cluster-root host %.64s spend %.2f us per "
             "allreduce in their host subtree, %.2f us more than the other hosts' (%.2f us), "
             "%.1f %% of the slowest thread's time (%.2f us): the cluster root (%.64s) loads "
             "that host; moving its toplevel wrappers to other hosts spreads the load "
             "(PATHS/EventSpace paper, sections 6.2, Fig. 15, and 6.3)", host_name(a, rh),
             US(hr), US(hr - ho), US(ho), pct(a, hr - ho), US(a->T), W(a, b)->name);
    return emit(a, hr - ho, GEN_EDIT_SPLIT, (uint32_t)span, NULL, NULL, why);
}

/*
 * algo run=rd: of two or more hosts with threads (the node spans them),
 * proxy stages take ADV_PROXY or more of the slowest thread's time (the paper: 332 of 680 us, Table 3; 656 of 1054, Table 4):
 * replace the cross-host part with an algorithm node.  Section 6.1.1.
 */
static cm_status_t rule_algo(adv_t *a)
{
    int worst = -1;
    double cost = 0;
    if (a->nthosts < 2)         /* the node must span two hosts with threads */
        return CM_OK;
    for (int i = 0; i < a->t->nthreads; i++) {
        double p = proxy_time(a, i, -1);
        if (p > 0 && (worst < 0 || p > cost))
            worst = i, cost = p;
    }
    if (worst < 0 || cost < ADV_PROXY * a->T)
        return CM_OK;
    char why[1024];
    snprintf(why, sizeof(why), "proxy stages take %.2f us of thread %d's %.2f us per "
             "allreduce (%.1f %% of the slowest thread's time, %.2f us): they dominate, as "
             "in the PATHS/EventSpace paper (section 6.1.1, Tables 3 and 4); an algorithm "
             "node across the hosts (recursive doubling) replaces the proxy hops",
             US(cost), a->t->threads[worst].thread, US(a->sz->paths[worst].total.mean),
             pct(a, cost), US(a->T));
    return emit(a, cost, GEN_EDIT_ALGO, 0, "run=rd", NULL, why);
}

/* The largest sum of stage means at proxies over the threads of host h;
 * *thread_p its thread's index (-1: none). */
static double host_proxy(const adv_t *a, int h, int *thread_p)
{
    double worst = -1;
    *thread_p = -1;
    for (int i = 0; i < a->t->nthreads; i++) {
        double s = a->t->threads[i].host == h ? proxy_time(a, i, -1) : -1;
        if (a->t->threads[i].host == h && s > worst)
            worst = s, *thread_p = i;
    }
    return worst;
}

/*
 * root HOST: of two or more hosts with threads, host h's last thread
 * arrives last of all hosts in at least ADV_LAST of the operations, h is
 * not the root host, and it is late for its own reasons: in a loop of
 * allreduces a host that leaves late (behind proxies) arrives late the next
 * time, so its mean arrival after the earliest host's, less its mean
 * departure after the earliest host's, is what is its own; that must reach
 * the share.  Gain: its threads' proxy stages, which leave the critical
 * path.  Section 7.2 (the root host choice).
 */
static cm_status_t rule_root(adv_t *a, int core, const an_arrivals_t *hs)
{
    int h = -1, nth = 0, th = -1;
    double fa = 0, ff = 0;
    if (a->nthosts < 2)                     /* nobody to wait for it */
        return CM_OK;
    for (int i = 0; i < a->t->nhosts; i++)
        for (int k = 0; k < a->t->nthreads; k++)
            if (a->t->threads[k].host == i) {
                if (nth == 0 || hs->arrival[i] < fa)
                    fa = hs->arrival[i];
                if (nth++ == 0 || hs->departure[i] < ff)
                    ff = hs->departure[i];
                break;
            }
    for (int i = 0; i < a->t->nhosts; i++)
        if (hs->last[i] >= ADV_LAST && (h < 0 || hs->last[i] > hs->last[h]))
            h = i;
    if (h < 0 || h == W(a, core)->host)
        return CM_OK;
    double cost = host_proxy(a, h, &th);
    double late = hs->arrival[h] - fa, echo = hs->departure[h] - ff, own = late - echo;
    if (th < 0 || cost <= 0 || own < ADV_SHARE * a->T)
        return CM_OK;
    char why[1024];
    snprintf(why, sizeof(why), "the threads of %.64s arrive last in %.1f %% of the operations, "
             "%.2f us after the first host's on average, %.2f us more than they leave after "
             "the first (%.1f %% of the slowest thread's time, %.2f us): the other hosts wait "
             "for it, and its result then crosses proxies (%.2f us for thread %d); with the "
             "root on %.64s that hop leaves the critical path (PATHS/EventSpace paper, section "
             "7.2)", host_name(a, h), 100.0 * hs->last[h], US(late), US(own), pct(a, own),
             US(a->T), US(cost), a->t->threads[th].thread, host_name(a, h));
    a->root_to = h;
    return emit(a, cost, GEN_EDIT_ROOT, 0, host_name(a, h), NULL, why);
}

/* ------------------------------------------------------- rule 8: move */

/* Contributor k of gred g in the database's numbering (child wrappers in
 * node order, then the threads that enter g by number): *node or *thread
 * (index into tree.threads) set, the other -1.  0 if there is none. */
static int contributor(const adv_t *a, int g, int k, int *node, int *thread)
{
    *node = *thread = -1;
    for (int c = 0; c < a->nw; c++)
        if (W(a, c)->parent == g && k-- == 0)
            return *node = c, 1;
    for (int i = 0; i < a->t->nthreads; i++)
        if (a->t->threads[i].enter == g && k-- == 0)
            return *thread = i, 1;
    return 0;
}

/* Where contributor (node, thread) comes from: down its proxies to the gred
 * or thread below them; returns that one's host and adds the proxies' mean
 * latencies to *lat. */
static int origin(const adv_t *a, int node, int thread, double *lat)
{
    while (thread < 0 && is_kind(a, node, AN_KIND_PROXY)) {
        int below = -1;
        *lat += mean(ws(a, node)->latency);
        for (int c = 0; c < a->nw && below < 0; c++)
            if (W(a, c)->parent == node)
                below = c;
        for (int i = 0; i < a->t->nthreads && below < 0 && thread < 0; i++)
            if (a->t->threads[i].enter == node)
                thread = i;
        node = below;
    }
    return thread >= 0 ? a->t->threads[thread].host : node >= 0 ? W(a, node)->host : -1;
}

/* 1 if every contributor of g but k comes from host h (rule 3's case). */
static int others_from(const adv_t *a, int g, int k, int h)
{
    int node, thread;
    double l = 0;
    for (int j = 0; contributor(a, g, j, &node, &thread); j++)
        if (j != k && origin(a, node, thread, &l) != h)
            return 0;
    return 1;
}

/* The loop's echo at g: the mean a (*late) and f (*echo) of the threads
 * below contributor (node, thread), less those of g's other threads'.
 * 0 when one side has no thread. */
static int echo_of(const adv_t *a, int g, int node, int thread, const an_arrivals_t *hs,
                   double *late, double *echo)
{
    double sa[2] = { 0, 0 }, sf[2] = { 0, 0 };
    int n[2] = { 0, 0 };
    for (int i = 0; i < a->t->nthreads; i++) {
        if (!passes(a, i, g))
            continue;
        int mine = i == thread || (node >= 0 && passes(a, i, node));
        sa[mine] += hs->ta[i], sf[mine] += hs->tf[i], n[mine]++;
    }
    if (n[0] == 0 || n[1] == 0)
        return 0;
    *late = sa[1] / n[1] - sa[0] / n[0];
    *echo = sf[1] / n[1] - sf[0] / n[0];
    return 1;
}

/* 1 if gred g is the core's own child (through proxies only). */
static int core_child(const adv_t *a, int g, int core)
{
    int p = W(a, g)->parent;
    while (is_kind(a, p, AN_KIND_PROXY))
        p = W(a, p)->parent;
    return p == core;
}

/*
 * move G HOST: at gred G, one contributor c arrives last in ADV_LAST of
 * the operations or more and reaches G through proxies from HOST, G is not
 * on HOST, and some other contributor is not from HOST (else rule 3's case).
 * The others' mean arrival wait at G must reach the share, and so must the
 * lateness that is c's own: in a loop, a contributor that leaves last
 * (behind its proxies) arrives last next time, so the lateness of c's
 * threads (mean a) less their late leaving (mean f) is what a move can hide
 * (rule 7's reasoning); after the move the early contributors cross the
 * hop while they would have waited anyway.  Gain: c's proxy latency capped
 * by that own part and by the wait, and it must reach the share too.  Not the core's own child when
 * rule 7 advises `root HOST`: that edit moves it already.  Sections 4
 * (arrival wait is improved by load balance "or by improving another part
 * of the tree") and 6.2, Fig. 15 (toplevel wrappers moved to other hosts).
 */
static cm_status_t move_one(adv_t *a, int g, int core, const an_arrivals_t *hs)
{
    int node, thread, k = hs->lastc[g];
    double lat = 0, late, echo, wait = hs->owait[g];
    if (k < 0 || hs->lastf[g] < ADV_LAST || !contributor(a, g, k, &node, &thread))
        return CM_OK;
    int h = origin(a, node, thread, &lat);
    if (h < 0 || h == W(a, g)->host || lat <= 0 || others_from(a, g, k, h)
        || (h == a->root_to && core_child(a, g, core)) || wait < ADV_SHARE * a->T
        || !echo_of(a, g, node, thread, hs, &late, &echo))
        return CM_OK;
    double own = late - echo, gain = lat < own ? lat : own;
    gain = gain < wait ? gain : wait;
    if (own < ADV_SHARE * a->T || gain < ADV_SHARE * a->T)
        return CM_OK;
    char why[1024], who[96];
    if (node >= 0)
        snprintf(who, sizeof(who), "%.64s", W(a, node)->name);
    else
        snprintf(who, sizeof(who), "thread %d", a->t->threads[thread].thread);
    snprintf(why, sizeof(why), "at gred %.64s, %s (from %.64s) arrives last in %.1f %% of the "
             "operations and the others wait %.2f us for it on average; its threads arrive "
             "%.2f us after the others' and leave %.2f us after them (the loop's echo): %.2f us "
             "of lateness their own, %.1f %% of the slowest thread's time (%.2f us); its route "
             "costs %.2f us per allreduce: with %.64s on %.64s that hop leaves the late path for "
             "the early ones' (PATHS/EventSpace paper, sections 4 and 6.2, Fig. 15)",
             W(a, g)->name, who, host_name(a, h), 100.0 * hs->lastf[g], US(wait), US(late),
             US(echo), US(own), pct(a, own), US(a->T), US(lat), W(a, g)->name,
             host_name(a, h));
    return emit(a, gain, GEN_EDIT_MOVE, 0, W(a, g)->name, host_name(a, h), why);
}

static cm_status_t rule_move(adv_t *a, int core, const an_arrivals_t *hs)
{
    cm_status_t st = CM_OK;
    for (int g = 0; g < a->nw && st == CM_OK; g++)
        if (is_kind(a, g, AN_KIND_GRED))
            st = move_one(a, g, core, hs);
    return st;
}

cm_status_t adv__rules(const an_model_t *m, const an_model_size_t *sz,
                       const an_arrivals_t *hosts, const char *suffix, adv_list_t *out,
                       cm_err_t *err)
{
    adv_t a = { m, &m->tree, sz, suffix ? suffix : "", m->tree.nwrappers, NULL, 0, 0, -1, out,
                err, -1 };
    cm_status_t st = CM_OK;
    if (a.nw == 0 || a.t->nthreads == 0)
        return CM_OK;
    if ((a.hp = malloc((size_t)a.nw * sizeof(int))) == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    for (int n = 0; n < a.nw; n++)
        a.hp[n] = -1;
    for (int i = 0; i < a.t->nthreads; i++)
        if (a.slowest < 0 || sz->paths[i].total.mean > a.T)
            a.T = sz->paths[i].total.mean, a.slowest = a.t->threads[i].thread;
    for (int h = 0; h < a.t->nhosts; h++)
        for (int k = 0; k < a.t->nthreads; k++)
            if (a.t->threads[k].host == h) {
                a.nthosts++;
                break;
            }
    int root = root_node(&a);
    st = rule_levels(&a);
    /* the cross-host rules need a core: with an algorithm node across the
     * hosts only the host subtrees can change */
    if (st == CM_OK && is_kind(&a, root, AN_KIND_CORE)) {
        if ((st = rule_links(&a)) == CM_OK && (st = rule_unsplit(&a, root)) == CM_OK
            && (st = rule_split(&a, root)) == CM_OK && (st = rule_algo(&a)) == CM_OK)
            st = hosts ? rule_root(&a, root, hosts) : CM_OK;
        if (st == CM_OK && hosts && hosts->lastc && hosts->lastf && hosts->owait && hosts->ta
            && hosts->tf)
            st = rule_move(&a, root, hosts);
    }
    free(a.hp);
    return st;
}

/* ---------------------------------------------------------------- ranking */

/* Equal gains: in the order of the rules (docs/pathgen.md), then by the
 * edit's text. */
static int rule_order(gen_edit_op_t op)
{
    static const gen_edit_op_t order[] = { GEN_EDIT_ADD_LEVEL, GEN_EDIT_REMOVE_LEVEL,
                                           GEN_EDIT_REMOVE_LINK, GEN_EDIT_UNSPLIT,
                                           GEN_EDIT_SPLIT, GEN_EDIT_ALGO, GEN_EDIT_ROOT,
                                           GEN_EDIT_MOVE };
    for (int i = 0; i < (int)(sizeof(order) / sizeof(order[0])); i++)
        if (op == order[i])
            return i;
    return 99;
}

static int cmp_advice(const void *x, const void *y)
{
    const adv_advice_t *a = x, *b = y;
    char ta[512], tb[512];
    if (a->gain_ns != b->gain_ns)
        return a->gain_ns > b->gain_ns ? -1 : 1;
    if (rule_order(a->edit.op) != rule_order(b->edit.op))
        return rule_order(a->edit.op) - rule_order(b->edit.op);
    gen_edit_render(&a->edit, ta, sizeof(ta));
    gen_edit_render(&b->edit, tb, sizeof(tb));
    return strcmp(ta, tb);
}

void adv__rank(adv_list_t *l)
{
    if (l->n > 1)
        qsort(l->a, (size_t)l->n, sizeof(l->a[0]), cmp_advice);
    for (int i = 0; i < l->n; i++)
        l->a[i].rank = i + 1;
}
