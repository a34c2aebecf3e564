/*
 * gen_map.c - the building blocks of pathgen's model (gen/api/gen_map.h).
 *
 * A gen_map_t is a few growable arrays: hosts, header lines, nodes.  A node
 * holds its contributors (child nodes and threads) in thread order, each
 * with its route: the proxies on the way from the contributor up to the
 * node.  Everything here is plain bookkeeping on those arrays: adding and
 * finding hosts, nodes and proxies, attaching and detaching contributors
 * (kept in thread order), removing a node (indices above it move down),
 * and the placement rule of gen_map_fix_routes with the proxy naming rule
 * of gen_map_proxy_name (pathmaps/README.md, "Naming").
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen/api/gen_map.h"
#include "gen/gen_map_int.h"

/* ---- small helpers ------------------------------------------------------ */

static char *dup_or_null(const char *s, int *oom)
{
    char *d;

    if (s == NULL)
        return NULL;
    d = strdup(s);
    if (d == NULL)
        *oom = 1;
    return d;
}

/* Makes room for one more element of `size` bytes in *arr (count n, capacity *cap). */
static int grow(void **arr, uint32_t n, uint32_t *cap, size_t size)
{
    uint32_t ncap;
    void *p;

    if (n < *cap)
        return 0;
    ncap = *cap ? *cap * 2 : 8;
    p = realloc(*arr, (size_t)ncap * size);
    if (p == NULL)
        return -1;
    *arr = p;
    *cap = ncap;
    return 0;
}

int gen_contribs_reserve(gen_node_t *n)
{
    void *arr = n->contribs;

    if (grow(&arr, n->ncontribs, &n->cap, sizeof(*n->contribs)) != 0)
        return -1;
    n->contribs = arr;
    return 0;
}

static void node_free(gen_node_t *n)
{
    uint32_t i;

    for (i = 0; i < n->ncontribs; i++)
        gen_route_clear(&n->contribs[i]);
    free(n->contribs);
    free(n->name);
    free(n->params);
    free(n->comment);
}

/* ---- the map ------------------------------------------------------------ */

gen_map_t *gen_map_create(void)
{
    gen_map_t *m = calloc(1, sizeof(*m));

    if (m != NULL)
        m->root = GEN_NONE;
    return m;
}

void gen_map_destroy(gen_map_t *m)
{
    uint32_t i;

    if (m == NULL)
        return;
    for (i = 0; i < m->nhosts; i++)
        free(m->hosts[i]);
    free(m->hosts);
    for (i = 0; i < m->nheader; i++)
        free(m->header[i]);
    free(m->header);
    free(m->tree_name);
    free(m->tree_params);
    for (i = 0; i < m->nnodes; i++)
        node_free(&m->nodes[i]);
    free(m->nodes);
    free(m);
}

/* Appends s (malloc'd, or NULL when out of memory) to a string array.
 * Hosts and header lines are few: the array grows by one each time. */
static int append_str(char ***arr, uint32_t *n, char *s)
{
    char **p;

    if (s == NULL)
        return -1;
    p = realloc(*arr, (size_t)(*n + 1) * sizeof(char *));
    if (p == NULL) {
        free(s);
        return -1;
    }
    *arr = p;
    p[(*n)++] = s;
    return 0;
}

uint32_t gen_map_host_add(gen_map_t *m, const char *name)
{
    if (append_str(&m->hosts, &m->nhosts, strdup(name)) != 0)
        return GEN_NONE;
    return m->nhosts - 1;
}

int gen_map_header_add(gen_map_t *m, const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    int r;

    va_start(ap, fmt);
    r = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (r < 0)
        return -1;
    return append_str(&m->header, &m->nheader, s);
}

uint32_t gen_map_host_find(const gen_map_t *m, const char *name)
{
    uint32_t i;

    for (i = 0; i < m->nhosts; i++)
        if (strcmp(m->hosts[i], name) == 0)
            return i;
    return GEN_NONE;
}

const char *gen_map_host_label(const gen_map_t *m, uint32_t host)
{
    const char *name = m->hosts[host], *p;

    if (strncmp(name, "host", 4) != 0 || name[4] == '\0')
        return name;
    for (p = name + 4; *p; p++)
        if (*p < '0' || *p > '9')
            return name;
    return name + 4;
}

/* ---- nodes -------------------------------------------------------------- */

uint32_t gen_node_add(gen_map_t *m, gen_kind_t kind, const char *name, uint32_t host,
                      const char *params, const char *comment)
{
    gen_node_t *n;
    int oom = 0;

    if (grow((void **)&m->nodes, m->nnodes, &m->cap, sizeof(*m->nodes)) != 0)
        return GEN_NONE;
    n = &m->nodes[m->nnodes];
    memset(n, 0, sizeof(*n));
    n->kind = kind;
    n->host = kind == GEN_ALGO ? GEN_NONE : host;
    n->parent = GEN_NONE;
    n->name = dup_or_null(name, &oom);
    n->params = dup_or_null(params, &oom);
    n->comment = dup_or_null(comment, &oom);
    if (oom || n->name == NULL) {
        node_free(n);
        return GEN_NONE;
    }
    if (m->root == GEN_NONE && kind != GEN_GRED)
        m->root = m->nnodes;
    return m->nnodes++;
}

uint32_t gen_node_find(const gen_map_t *m, const char *name)
{
    uint32_t i;

    for (i = 0; i < m->nnodes; i++)
        if (strcmp(m->nodes[i].name, name) == 0)
            return i;
    return GEN_NONE;
}

int gen_map_find_proxy(const gen_map_t *m, const char *name, uint32_t *node_p,
                       uint32_t *contrib_p, uint32_t *hop_p)
{
    uint32_t i, j, k;

    for (i = 0; i < m->nnodes; i++)
        for (j = 0; j < m->nodes[i].ncontribs; j++)
            for (k = 0; k < m->nodes[i].contribs[j].nroute; k++)
                if (strcmp(m->nodes[i].contribs[j].route[k].name, name) == 0) {
                    *node_p = i;
                    *contrib_p = j;
                    *hop_p = k;
                    return 1;
                }
    return 0;
}

int gen_map_name_used(const gen_map_t *m, const char *name)
{
    uint32_t a, b, c;

    return gen_node_find(m, name) != GEN_NONE || gen_map_find_proxy(m, name, &a, &b, &c);
}

/* ---- contributors ------------------------------------------------------- */

uint32_t gen_node_min_thread(const gen_map_t *m, uint32_t n)
{
    const gen_node_t *node = &m->nodes[n];
    uint32_t i, best = GEN_NONE, t;

    for (i = 0; i < node->ncontribs; i++) {
        const gen_contrib_t *c = &node->contribs[i];

        t = c->is_thread ? c->id : gen_node_min_thread(m, c->id);
        if (t < best)
            best = t;
    }
    return best;
}

uint32_t gen_contrib_host(const gen_map_t *m, const gen_contrib_t *c)
{
    return c->is_thread ? c->host : m->nodes[c->id].host;
}

/* Inserts c into parent's contributors after every one whose smallest
 * thread is not above `key` (so equal keys keep their attach order).
 * Returns the position, or -1 when out of memory. */
static int64_t contrib_insert(gen_map_t *m, uint32_t parent, const gen_contrib_t *c,
                              uint32_t key)
{
    gen_node_t *p = &m->nodes[parent];
    uint32_t pos = p->ncontribs;

    if (grow((void **)&p->contribs, p->ncontribs, &p->cap, sizeof(*p->contribs)) != 0)
        return -1;
    while (pos > 0) {
        const gen_contrib_t *o = &p->contribs[pos - 1];
        uint32_t ok = o->is_thread ? o->id : gen_node_min_thread(m, o->id);

        if (ok <= key)
            break;
        pos--;
    }
    memmove(&p->contribs[pos + 1], &p->contribs[pos],
            (size_t)(p->ncontribs - pos) * sizeof(*p->contribs));
    p->contribs[pos] = *c;
    p->ncontribs++;
    return pos;
}

/* Takes node n's entry (with its route) out of its parent's contributors
 * into *c; returns its index there, or -1 if n is not among them. */
static int64_t take_from_parent(gen_map_t *m, uint32_t n, gen_contrib_t *c)
{
    gen_node_t *pn = &m->nodes[m->nodes[n].parent];
    uint32_t i;

    for (i = 0; i < pn->ncontribs; i++)
        if (!pn->contribs[i].is_thread && pn->contribs[i].id == n)
            break;
    if (i == pn->ncontribs)
        return -1;
    *c = pn->contribs[i];
    memmove(&pn->contribs[i], &pn->contribs[i + 1], (size_t)(pn->ncontribs - i - 1) * sizeof(*c));
    pn->ncontribs--;
    return i;
}

/* Node n got a contributor first in its list: its smallest thread is now
 * `key`.  Moves n (with its route) to its place among its parent's
 * contributors, and so on up while it lands first there (elsewhere the
 * parent's smallest thread is as it was), so that a subtree attached
 * before its threads still ends in thread order. */
static void reorder_up(gen_map_t *m, uint32_t n, uint32_t key)
{
    uint32_t p;
    gen_contrib_t c;

    for (; (p = m->nodes[n].parent) != GEN_NONE; n = p) {
        if (take_from_parent(m, n, &c) < 0)
            return;
        if (contrib_insert(m, p, &c, key) != 0)   /* not first (it has room) */
            return;
    }
}

int gen_attach_node(gen_map_t *m, uint32_t parent, uint32_t child)
{
    gen_contrib_t c = { 0, child, GEN_NONE, NULL, 0 };
    uint32_t key = gen_node_min_thread(m, child);
    int64_t pos = contrib_insert(m, parent, &c, key);

    if (pos < 0)
        return -1;
    m->nodes[child].parent = parent;
    if (pos == 0)
        reorder_up(m, parent, key);
    return 0;
}

int gen_attach_thread(gen_map_t *m, uint32_t parent, uint32_t tid, uint32_t host)
{
    gen_contrib_t c = { 1, tid, host, NULL, 0 };
    int64_t pos = contrib_insert(m, parent, &c, tid);

    if (pos < 0)
        return -1;
    if (pos == 0)
        reorder_up(m, parent, tid);
    return 0;
}

/* Node n lost a contributor: its smallest thread may have grown.  Moves it
 * to its place among its parent's contributors, and so on up while it was
 * or becomes the first there (elsewhere the parent's smallest thread is
 * unchanged). */
static void reposition_up(gen_map_t *m, uint32_t n)
{
    uint32_t p;
    int64_t i, pos;
    gen_contrib_t c;

    for (; (p = m->nodes[n].parent) != GEN_NONE; n = p) {
        if ((i = take_from_parent(m, n, &c)) < 0)
            return;
        pos = contrib_insert(m, p, &c, gen_node_min_thread(m, n));   /* has room */
        if (i != 0 && pos != 0)
            return;
    }
}

void gen_detach_node(gen_map_t *m, uint32_t child)
{
    uint32_t parent = m->nodes[child].parent, i;
    gen_node_t *p;

    if (parent == GEN_NONE)
        return;
    p = &m->nodes[parent];
    for (i = 0; i < p->ncontribs; i++)
        if (!p->contribs[i].is_thread && p->contribs[i].id == child)
            break;
    if (i < p->ncontribs) {
        gen_route_clear(&p->contribs[i]);
        memmove(&p->contribs[i], &p->contribs[i + 1],
                (size_t)(p->ncontribs - i - 1) * sizeof(*p->contribs));
        p->ncontribs--;
    }
    m->nodes[child].parent = GEN_NONE;
    if (i == 0)
        reposition_up(m, parent);
}

static uint32_t index_after_remove(uint32_t idx, uint32_t n)
{
    return idx != GEN_NONE && idx > n ? idx - 1 : idx;
}

void gen_node_remove(gen_map_t *m, uint32_t n)
{
    uint32_t i, j;

    node_free(&m->nodes[n]);
    memmove(&m->nodes[n], &m->nodes[n + 1], (size_t)(m->nnodes - n - 1) * sizeof(*m->nodes));
    m->nnodes--;
    for (i = 0; i < m->nnodes; i++) {
        gen_node_t *node = &m->nodes[i];

        node->parent = index_after_remove(node->parent, n);
        for (j = 0; j < node->ncontribs; j++)
            if (!node->contribs[j].is_thread)
                node->contribs[j].id = index_after_remove(node->contribs[j].id, n);
    }
    if (m->root == n)
        m->root = GEN_NONE;
    m->root = index_after_remove(m->root, n);
}

/* ---- routes ------------------------------------------------------------- */

int gen_route_push(gen_contrib_t *c, const char *name, uint32_t host, const char *comment)
{
    gen_proxy_t *r = realloc(c->route, (size_t)(c->nroute + 1) * sizeof(*r));
    int oom = 0;

    if (r == NULL)
        return -1;
    c->route = r;
    r[c->nroute].name = dup_or_null(name, &oom);
    r[c->nroute].comment = dup_or_null(comment, &oom);
    r[c->nroute].host = host;
    if (oom || r[c->nroute].name == NULL) {
        free(r[c->nroute].name);
        free(r[c->nroute].comment);
        return -1;
    }
    c->nroute++;
    return 0;
}

void gen_route_clear(gen_contrib_t *c)
{
    uint32_t i;

    for (i = 0; i < c->nroute; i++) {
        free(c->route[i].name);
        free(c->route[i].comment);
    }
    free(c->route);
    c->route = NULL;
    c->nroute = 0;
}

int gen_node_is_host_part(const gen_map_t *m, uint32_t n)
{
    const gen_node_t *node = &m->nodes[n];
    uint32_t i;

    if (node->kind != GEN_GRED)
        return 0;
    for (i = 0; i < node->ncontribs; i++) {
        const gen_contrib_t *c = &node->contribs[i];

        if (c->nroute > 0 || gen_contrib_host(m, c) != node->host)
            return 0;
        if (!c->is_thread && !gen_node_is_host_part(m, c->id))
            return 0;
    }
    return 1;
}

/* 1 if the route of c (a contributor of `parent`) is a valid way up from
 * the contributor's host to a host other than the parent's. */
static int route_fits(const gen_map_t *m, const gen_node_t *parent, const gen_contrib_t *c)
{
    uint32_t i;

    if (c->nroute == 0 || c->route[0].host != gen_contrib_host(m, c))
        return 0;
    for (i = 0; i + 1 < c->nroute; i++)
        if (c->route[i].host == c->route[i + 1].host)
            return 0;
    return c->route[c->nroute - 1].host != parent->host;
}

char *gen_map_proxy_name(const gen_map_t *m, uint32_t parent, const gen_contrib_t *c)
{
    const char *lab = gen_map_host_label(m, gen_contrib_host(m, c));
    char *base = NULL, *name = NULL;
    unsigned k;

    (void)parent;
    if (c->is_thread || gen_node_is_host_part(m, c->id)) {
        if (asprintf(&name, "p%s", lab) < 0)
            return NULL;
        if (!gen_map_name_used(m, name))
            return name;
        free(name);
    }
    if (c->is_thread ? asprintf(&base, "p%s.t%u", lab, (unsigned)c->id) < 0
                     : asprintf(&base, "p%s.%s", lab, m->nodes[c->id].name) < 0)
        return NULL;
    if (!gen_map_name_used(m, base))
        return base;
    for (k = 2;; k++) {
        if (asprintf(&name, "%s.%u", base, k) < 0) {
            free(base);
            return NULL;
        }
        if (!gen_map_name_used(m, name))
            break;
        free(name);
    }
    free(base);
    return name;
}

/* Gives contributor j of node n the route its placement needs. */
static int fix_route(gen_map_t *m, uint32_t n, uint32_t j)
{
    gen_contrib_t *c = &m->nodes[n].contribs[j];
    char *name;
    int r;

    if (m->nodes[n].kind == GEN_ALGO || gen_contrib_host(m, c) == m->nodes[n].host) {
        gen_route_clear(c);
        return 0;
    }
    if (route_fits(m, &m->nodes[n], c))
        return 0;
    gen_route_clear(c);
    name = gen_map_proxy_name(m, n, c);
    if (name == NULL)
        return -1;
    r = gen_route_push(c, name, gen_contrib_host(m, c), NULL);
    free(name);
    return r;
}

int gen_map_fix_routes(gen_map_t *m)
{
    uint32_t i, j;

    /* Drop what no longer fits first, so that its names are free again. */
    for (i = 0; i < m->nnodes; i++)
        for (j = 0; j < m->nodes[i].ncontribs; j++) {
            gen_contrib_t *c = &m->nodes[i].contribs[j];

            if (m->nodes[i].kind == GEN_ALGO || gen_contrib_host(m, c) == m->nodes[i].host ||
                !route_fits(m, &m->nodes[i], c))
                gen_route_clear(c);
        }
    for (i = 0; i < m->nnodes; i++)
        for (j = 0; j < m->nodes[i].ncontribs; j++)
            if (fix_route(m, i, j) != 0)
                return -1;
    return 0;
}

/* ---- sizes -------------------------------------------------------------- */

/* Wrappers from node n up to the root, n and the proxies on the way included. */
static uint32_t depth_up(const gen_map_t *m, uint32_t n)
{
    uint32_t d = 0, p, i;

    while (n != GEN_NONE) {
        d++;
        p = m->nodes[n].parent;
        if (p == GEN_NONE)
            break;
        for (i = 0; i < m->nodes[p].ncontribs; i++)
            if (!m->nodes[p].contribs[i].is_thread && m->nodes[p].contribs[i].id == n)
                d += m->nodes[p].contribs[i].nroute;
        n = p;
    }
    return d;
}

uint32_t gen_map_depth(const gen_map_t *m)
{
    uint32_t i, j, best = 0, up, d;

    for (i = 0; i < m->nnodes; i++) {
        up = GEN_NONE;
        for (j = 0; j < m->nodes[i].ncontribs; j++) {
            if (!m->nodes[i].contribs[j].is_thread)
                continue;
            if (up == GEN_NONE)
                up = depth_up(m, i);
            d = up + m->nodes[i].contribs[j].nroute;
            if (d > best)
                best = d;
        }
    }
    return best;
}

uint32_t gen_map_nthreads(const gen_map_t *m)
{
    uint32_t i, j, n = 0;

    for (i = 0; i < m->nnodes; i++)
        for (j = 0; j < m->nodes[i].ncontribs; j++)
            n += m->nodes[i].contribs[j].is_thread ? 1 : 0;
    return n;
}

uint32_t gen_map_nwrappers(const gen_map_t *m)
{
    uint32_t i, j, n = m->nnodes;

    for (i = 0; i < m->nnodes; i++)
        for (j = 0; j < m->nodes[i].ncontribs; j++)
            n += m->nodes[i].contribs[j].nroute;
    return n;
}

/* ---- whole-model thread order (gen/gen_map_int.h) ---------------------------- */

uint32_t *gen_map_min_threads(const gen_map_t *m)
{
    uint32_t *min = malloc((size_t)(m->nnodes + 1) * sizeof(*min));
    uint32_t *order = malloc((size_t)(m->nnodes + 1) * sizeof(*order));
    uint32_t n = 0, i, j, k;

    if (min == NULL || order == NULL) {
        free(min);
        free(order);
        return NULL;
    }
    /* breadth-first from every node without parent: parents before children */
    for (i = 0; i < m->nnodes; i++) {
        min[i] = GEN_NONE;
        if (m->nodes[i].parent == GEN_NONE)
            order[n++] = i;
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < m->nodes[order[i]].ncontribs && n < m->nnodes; j++)
            if (!m->nodes[order[i]].contribs[j].is_thread)
                order[n++] = m->nodes[order[i]].contribs[j].id;
    for (k = n; k-- > 0;) {
        const gen_node_t *node = &m->nodes[order[k]];

        for (j = 0; j < node->ncontribs; j++) {
            const gen_contrib_t *c = &node->contribs[j];
            uint32_t t = c->is_thread ? c->id : min[c->id];

            if (t < min[order[k]])
                min[order[k]] = t;
        }
    }
    free(order);
    return min;
}

int gen_contrib_append(gen_map_t *m, uint32_t parent, const gen_contrib_t *c)
{
    gen_node_t *p = &m->nodes[parent];

    if (grow((void **)&p->contribs, p->ncontribs, &p->cap, sizeof(*p->contribs)) != 0)
        return -1;
    p->contribs[p->ncontribs++] = *c;
    if (!c->is_thread)
        m->nodes[c->id].parent = parent;
    return 0;
}

typedef struct keyed {
    uint32_t      key, pos;
    gen_contrib_t c;
} keyed_t;

static int keyed_cmp(const void *x, const void *y)
{
    const keyed_t *a = x, *b = y;

    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

int gen_map_sort_contribs(gen_map_t *m)
{
    uint32_t *min = gen_map_min_threads(m), i, j, most = 0;
    keyed_t *v;

    for (i = 0; i < m->nnodes; i++)
        if (m->nodes[i].ncontribs > most)
            most = m->nodes[i].ncontribs;
    v = malloc((size_t)(most + 1) * sizeof(*v));
    if (min == NULL || v == NULL) {
        free(min);
        free(v);
        return -1;
    }
    for (i = 0; i < m->nnodes; i++) {
        gen_node_t *node = &m->nodes[i];

        for (j = 0; j < node->ncontribs; j++) {
            v[j].c = node->contribs[j];
            v[j].key = v[j].c.is_thread ? v[j].c.id : min[v[j].c.id];
            v[j].pos = j;
        }
        qsort(v, node->ncontribs, sizeof(*v), keyed_cmp);
        for (j = 0; j < node->ncontribs; j++)
            node->contribs[j] = v[j].c;
    }
    free(min);
    free(v);
    return 0;
}
