/*
 * plan.c - synth_trace's error helpers and the plan: a scenario's
 * locations and their events, in time order, checked before writing.
 */
#include "tests/oracles/synth_trace/sy_int.h"

/* ---- errors --------------------------------------------------------------- */

int fail(const char *fmt, ...)
{
    va_list ap;

    fputs("synth_trace: error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 1;
}

int otf2_fail(OTF2_ErrorCode rc, const char *what)
{
    return fail("%s: %s", what, OTF2_Error_GetDescription(rc));
}

/* Rank r's locations as instrument/trace.c orders them: threads, then services. */
static uint32_t plan_rank(sy_plan_t *p, uint32_t r, sy_loc_t *out)
{
    const rt_tree_t *t = p->tree;
    uint32_t k = 0;

    for (uint32_t i = 0; i < t->nthreads; i++) {
        if (t->threads[i].host != r)
            continue;
        if (out != NULL) {
            out[k] = (sy_loc_t){ .thread = &t->threads[i], .proxy = RT_ID_NONE };
            snprintf(out[k].name, sizeof(out[k].name), "thread %u", t->threads[i].id);
        }
        k++;
    }
    for (uint32_t n = 0; n < t->nnodes; n++) {
        if (t->nodes[n].kind != RT_NODE_PROXY || t->nodes[t->nodes[n].parent].host != r)
            continue;
        for (unsigned inst = 0; inst < p->sc->ninst; inst++, k++) {
            if (out == NULL)
                continue;
            out[k] = (sy_loc_t){ .proxy = n, .inst = inst };
            snprintf(out[k].name, sizeof(out[k].name), "service %s#%u", t->nodes[n].name, inst);
        }
    }
    if (t->nodes[t->root].kind == RT_NODE_ALGO) {       /* every host of the scenario */
        if (out != NULL) {
            out[k] = (sy_loc_t){ .proxy = RT_ID_NONE, .algo = true };
            snprintf(out[k].name, sizeof(out[k].name), "algo %s", p->pm->hosts[r].name);
        }
        k++;
    }
    for (uint32_t i = 0; out != NULL && i < k; i++) {
        out[i].rank = r;
        out[i].id = ((uint64_t)r << INS_LOC_RANK_SHIFT) | i;
    }
    return k;
}

static int event_cmp(const void *a, const void *b)
{
    int64_t x = ((const sy_event_t *)a)->r, y = ((const sy_event_t *)b)->r;

    return (x > y) - (x < y);
}

static int node_by_name(const rt_tree_t *t, const char *name)
{
    for (uint32_t n = 0; n < t->nnodes; n++)
        if (strcmp(t->nodes[n].name, name) == 0)
            return (int)n;
    return -1;
}

/* --damage MODE (algo): the first message is written wrong, for the tests of
 * papanalyze's refusals: "norecv" drops its MpiIrecv, "peer" names another
 * sender in it, "request" gives its MpiIsend another operation's request id. */
const char *damage = NULL;
const char *schema = INS_SCHEMA_VERSION;

/*
 * Each arrival report at t1 + 20 of its rank's visit of the node (pap).
 * --damage noarrival drops rank 2's in op 2; asked writes asked=history.
 */
static int plan_arrivals(sy_plan_t *p)
{
    const sy_scenario_t *sc = p->sc;

    for (size_t i = 0; i < sc->narrivals; i++) {
        const sy_arrival_t *a = &sc->arrivals[i];
        const sy_visit_t *v = NULL;
        sy_loc_t *l = NULL;
        char name[32];

        snprintf(name, sizeof(name), "algo %s", p->pm->hosts[a->rank].name);
        for (uint32_t k = 0; k < p->nlocs && l == NULL; k++)
            l = strcmp(p->locs[k].name, name) == 0 ? &p->locs[k] : NULL;
        for (size_t j = 0; j < sc->nvisits && v == NULL; j++)
            v = sc->visits[j].op == a->op && strcmp(sc->visits[j].loc, name) == 0
                ? &sc->visits[j] : NULL;
        if (l == NULL || v == NULL)
            return fail("%s arrival %zu: no algorithm location or visit", sc->name, i);
        if (damage != NULL && strcmp(damage, "noarrival") == 0 && a->op == 2 && a->rank == 2)
            continue;
        if ((l->ev = realloc(l->ev, (l->nev + 1) * sizeof(*l->ev))) == NULL)
            return fail("out of memory");
        l->ev[l->nev++] = (sy_event_t){ v->t1 + 20, false, v->inst, a->op, SY_ARRIVAL, 0, 0,
                                        (uint32_t)i, 0 };
    }
    return 0;
}

/* Puts each visit's two events on its location. */
static int plan_events(sy_plan_t *p)
{
    const sy_scenario_t *sc = p->sc;

    p->rmin = INT64_MAX;
    p->rmax = INT64_MIN;
    for (size_t i = 0; i < sc->nvisits; i++) {
        const sy_visit_t *v = &sc->visits[i];
        int node = node_by_name(p->tree, v->node);
        sy_loc_t *l = NULL;

        for (uint32_t k = 0; k < p->nlocs && l == NULL; k++)
            l = strcmp(p->locs[k].name, v->loc) == 0 ? &p->locs[k] : NULL;
        if (node < 0 || l == NULL || v->inst >= sc->ninst || v->t4 <= v->t1)
            return fail("%s visit %zu (%s on %s): unknown wrapper or location, or t4 <= t1",
                        sc->name, i, v->node, v->loc);
        if ((l->ev = realloc(l->ev, (l->nev + 2) * sizeof(*l->ev))) == NULL)
            return fail("out of memory");
        l->ev[l->nev++] = (sy_event_t){ v->t1, false, v->inst * p->tree->nnodes + (uint32_t)node,
                                        v->op, SY_ENTER, 0, 0, 0, 0 };
        l->ev[l->nev++] = (sy_event_t){ v->t4, true, v->inst * p->tree->nnodes + (uint32_t)node,
                                        v->op, SY_LEAVE, 0, 0, 0, 0 };
        if (l->algo) {
            if ((l->ev = realloc(l->ev, (l->nev + 2) * sizeof(*l->ev))) == NULL)
                return fail("out of memory");
            l->ev[l->nev++] = (sy_event_t){ v->t1 + 10, false, v->inst, v->op, SY_COLL_BEGIN,
                                            0, 0, 0, 0 };
            l->ev[l->nev++] = (sy_event_t){ v->t4 - 10, false, v->inst, v->op, SY_COLL_END,
                                            0, 0, 0, 0 };
        }
        p->rmin = v->t1 < p->rmin ? v->t1 : p->rmin;
        p->rmax = v->t4 > p->rmax ? v->t4 : p->rmax;
    }
    if (plan_arrivals(p) != 0)
        return 1;
    for (size_t i = 0; i < sc->nmsgs; i++) {
        const sy_msg_t *m = &sc->msgs[i];
        sy_loc_t *ls = NULL, *ld = NULL;

        for (uint32_t k = 0; k < p->nlocs; k++) {
            if (p->locs[k].algo && p->locs[k].rank == m->src)
                ls = &p->locs[k];
            if (p->locs[k].algo && p->locs[k].rank == m->dst)
                ld = &p->locs[k];
        }
        if (ls == NULL || ld == NULL || (ls->ev = realloc(ls->ev, (ls->nev + 2) * sizeof(*ls->ev)))
            == NULL || (ld->ev = realloc(ld->ev, (ld->nev + 2) * sizeof(*ld->ev))) == NULL)
            return fail("%s message %zu: no algorithm location, or out of memory", sc->name, i);
        ls->ev[ls->nev++] = (sy_event_t){ m->sp, false, m->inst, m->op, SY_ISEND, m->dst,
                                          m->round, m->sstep, m->bytes };
        if (i == 0 && damage != NULL && strcmp(damage, "request") == 0)
            ls->ev[ls->nev - 1].op++;
        ls->ev[ls->nev++] = (sy_event_t){ m->sd, false, m->inst, m->op, SY_ISEND_DONE, m->dst,
                                          m->round, m->sstep, m->bytes };
        ld->ev[ld->nev++] = (sy_event_t){ m->rp, false, m->inst, m->op, SY_IRECV_POST, m->src,
                                          m->round, m->rstep, m->bytes };
        ld->ev[ld->nev++] = (sy_event_t){ m->rd, false, m->inst, m->op, SY_IRECV, m->src,
                                          m->round, m->rstep, m->bytes };
        if (i == 0 && damage != NULL && strcmp(damage, "norecv") == 0)
            ld->nev--;
        else if (i == 0 && damage != NULL && strcmp(damage, "peer") == 0)
            ld->ev[ld->nev - 1].peer = m->src == 2 ? 1 : 2;
    }
    return 0;
}

/* Each location's events in time order, distinct times, visits nested. */
static int plan_check(const sy_plan_t *p)
{
    for (uint32_t k = 0; k < p->nlocs; k++) {
        sy_loc_t *l = &p->locs[k];
        uint32_t stack[64], depth = 0;

        if (l->nev > 1)                  /* ev is NULL for a location without events */
            qsort(l->ev, l->nev, sizeof(*l->ev), event_cmp);
        for (size_t i = 0; i < l->nev; i++) {
            const sy_event_t *e = &l->ev[i];
            if (i > 0 && e->r == l->ev[i - 1].r)
                return fail("%s: two events of %s at r = %" PRId64, p->sc->name, l->name, e->r);
            if (e->kind != SY_ENTER && e->kind != SY_LEAVE) {
                if (depth == 0)
                    return fail("%s: an MPI event of %s outside a visit at r = %" PRId64,
                                p->sc->name, l->name, e->r);
                continue;
            }
            if (!e->leave && depth < 64)
                stack[depth++] = e->region;
            else if (!e->leave || depth == 0 || stack[--depth] != e->region)
                return fail("%s: visits of %s do not nest at r = %" PRId64, p->sc->name,
                            l->name, e->r);
        }
    }
    return 0;
}

void plan_free(sy_plan_t *p)
{
    for (uint32_t k = 0; p->locs != NULL && k < p->nlocs; k++)
        free(p->locs[k].ev);
    free(p->locs);
    if (!p->hand) {
        rt_pathmap_destroy(p->pm);
        return;
    }
    if (p->pm != NULL) {
        free(p->pm->hosts);
        if (p->pm->trees != NULL) {
            free(p->pm->trees[0].nodes);
            free(p->pm->trees[0].threads);
        }
        free(p->pm->trees);
        free(p->pm);
    }
}

/* The pathmap model of a hand-described tree (sy_handtree_t). */
static int hand_build(const sy_scenario_t *sc, sy_plan_t *p)
{
    const sy_handtree_t *h = sc->hand;
    rt_pathmap_t *pm = calloc(1, sizeof(*pm));
    rt_tree_t *t;

    p->hand = true;
    p->pm = pm;
    if (pm == NULL || (pm->hosts = calloc(sc->nhosts, sizeof(*pm->hosts))) == NULL
        || (pm->trees = t = calloc(1, sizeof(*t))) == NULL
        || (t->nodes = calloc(h->nnodes, sizeof(*t->nodes))) == NULL
        || (t->threads = calloc(h->nthreads, sizeof(*t->threads))) == NULL)
        return fail("out of memory");
    pm->path = sc->pathmap_path;
    pm->text = sc->pathmap;
    pm->len = strlen(sc->pathmap);
    pm->hash = cm_hash_fnv1a(pm->text, pm->len);
    pm->nhosts = sc->nhosts;
    pm->ntrees = 1;
    for (unsigned i = 0; i < sc->nhosts; i++)
        pm->hosts[i].name = h->hosts[i];
    t->name = h->tree;
    t->nnodes = h->nnodes;
    t->nthreads = h->nthreads;
    t->root = 0;
    for (unsigned n = 0; n < h->nnodes; n++) {
        rt_node_t *x = &t->nodes[n];
        x->name = h->nodes[n].name;
        x->kind = strcmp(h->nodes[n].kind, "algo") == 0 ? RT_NODE_ALGO : RT_NODE_GRED;
        x->host = h->nodes[n].host;
        x->parent = h->nodes[n].parent < 0 ? RT_ID_NONE : (rt_node_id_t)h->nodes[n].parent;
        x->line = h->nodes[n].line;
        if (h->nodes[n].parent >= 0)
            t->nodes[h->nodes[n].parent].nchildren++;
    }
    for (unsigned i = 0; i < h->nthreads; i++) {
        t->threads[i] = (rt_thread_map_t){ .id = h->threads[i].id, .host = h->threads[i].host,
                                           .enter = h->threads[i].enter };
        t->nodes[h->threads[i].enter].nthreads++;
    }
    return 0;
}

int plan_build(const sy_scenario_t *sc, sy_plan_t *p)
{
    cm_err_t err;
    uint32_t n = 0;

    unsigned nhosts = sc->nhosts ? sc->nhosts : 2;

    memset(p, 0, sizeof(*p));
    p->sc = sc;
    if (sc->hand != NULL) {
        if (hand_build(sc, p) != 0)
            return 1;
    } else if (rt_pathmap_parse(sc->pathmap_path, sc->pathmap, strlen(sc->pathmap), &p->pm,
                                &err) != CM_OK) {
        cm_err_print(stderr, "synth_trace: ", &err);
        return 1;
    }
    p->tree = &p->pm->trees[0];
    if (p->pm->nhosts != nhosts || nhosts > SY_HOSTS)
        return fail("%s: the pathmap must have %u hosts", sc->name, nhosts);
    for (uint32_t r = 0; r < nhosts; r++)
        n += plan_rank(p, r, NULL);
    if ((p->locs = calloc(n + 1, sizeof(*p->locs))) == NULL)
        return fail("out of memory");
    for (uint32_t r = 0; r < nhosts; r++)
        p->nlocs += plan_rank(p, r, p->locs + p->nlocs);
    if (plan_events(p) != 0 || plan_check(p) != 0)
        return 1;
    return 0;
}

/*
 * Local ticks of host h at true time base + r: the inverse of the reader's
 * true = local + off0 + (local - time0) * (off1 - off0) / (time1 - time0).
 * Fails unless the inverse is an exact integer.
 */
int to_local(const sy_plan_t *p, uint32_t h, int64_t r, uint64_t *out)
{
    const sy_clock_t *c = &p->sc->hosts[h].clock;
    int64_t span = c->time1 - c->time0, num = p->sc->base + r - c->time0 - c->off0;
    int64_t den = span + (c->off1 - c->off0);

    if (den <= 0 || (num * span) % den != 0 || c->time0 + num * span / den < 0)
        return fail("%s: r = %" PRId64 " has no exact local time on host %u", p->sc->name, r, h);
    *out = (uint64_t)(c->time0 + num * span / den);
    return 0;
}
