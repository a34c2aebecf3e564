/*
 * gen_compare.c - equality of two models as trees (gen_map_equal).
 *
 * Two pathmaps are the same tree when they differ only in names and
 * comments: the same number of hosts, type and op, and from the roots
 * down, nodes of the same kind on the same host (by index) with the same
 * params (as a set of words), whose contributors match one to one - the
 * same threads (by id, on the same host) and child nodes, reached through
 * routes of proxies on the same hosts.  With `names`, the tree's, nodes'
 * and proxies' names must be equal too.
 *
 * Contributors are matched in thread order (smallest thread id below
 * them), which is canonical: equal subtrees hold the same threads.  The
 * order is recomputed here rather than trusted, so a model whose
 * contributors are out of order still compares right.  The walk is
 * depth-first from the roots with an explicit stack (a chain of 65536
 * greds must not exhaust the C stack); the first difference met is
 * described in `why`, naming wrappers of a.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen/api/gen_map.h"
#include "gen/gen_map_int.h"

typedef struct side {
    const gen_map_t *m;
    uint32_t        *min;    /* min[n]: smallest thread below node n */
} side_t;

typedef struct cmp {
    side_t  a, b;
    int     names;
    char   *why;
    size_t  size;
} cmp_t;

static int differ(cmp_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int differ(cmp_t *c, const char *fmt, ...)
{
    va_list ap;

    if (c->why != NULL && c->size > 0) {
        va_start(ap, fmt);
        vsnprintf(c->why, c->size, fmt, ap);
        va_end(ap);
    }
    return 0;
}

/* ---- thread order, computed (gen_map_min_threads) ---------------------------- */

static uint32_t contrib_key(const side_t *s, const gen_contrib_t *c)
{
    return c->is_thread ? c->id : s->min[c->id];
}

static const side_t *sort_side;

static int by_key(const void *x, const void *y)
{
    uint32_t kx = contrib_key(sort_side, *(const gen_contrib_t *const *)x);
    uint32_t ky = contrib_key(sort_side, *(const gen_contrib_t *const *)y);

    return kx < ky ? -1 : kx > ky;
}

/* Node n's contributors in thread order (malloc'd pointers). */
static const gen_contrib_t **sorted(const side_t *s, uint32_t n)
{
    const gen_node_t *node = &s->m->nodes[n];
    const gen_contrib_t **v = malloc((size_t)(node->ncontribs + 1) * sizeof(*v));
    uint32_t i;

    if (v == NULL)
        return NULL;
    for (i = 0; i < node->ncontribs; i++)
        v[i] = &node->contribs[i];
    sort_side = s;
    qsort(v, node->ncontribs, sizeof(*v), by_key);
    return v;
}

/* ---- words ------------------------------------------------------------------- */

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* 1 if p and q hold the same words (in any order); NULL is no words. */
static int same_words(const char *p, const char *q)
{
    char *bp = strdup(p ? p : ""), *bq = strdup(q ? q : ""), *wp[64], *wq[64], *sv;
    int np = 0, nq = 0, same, i;

    if (bp == NULL || bq == NULL) {
        free(bp);
        free(bq);
        return p && q ? strcmp(p, q) == 0 : p == q;
    }
    for (char *w = strtok_r(bp, " \t", &sv); w && np < 64; w = strtok_r(NULL, " \t", &sv))
        wp[np++] = w;
    for (char *w = strtok_r(bq, " \t", &sv); w && nq < 64; w = strtok_r(NULL, " \t", &sv))
        wq[nq++] = w;
    if (np == 64 || nq == 64) {          /* more than params ever have: as text */
        free(bp);
        free(bq);
        return p && q ? strcmp(p, q) == 0 : p == q;
    }
    qsort(wp, (size_t)np, sizeof(char *), cmp_str);
    qsort(wq, (size_t)nq, sizeof(char *), cmp_str);
    same = np == nq;
    for (i = 0; same && i < np; i++)
        same = strcmp(wp[i], wq[i]) == 0;
    free(bp);
    free(bq);
    return same;
}

/* The value of key= among the words of `params`, or `def`, into buf. */
static const char *word_value(const char *params, const char *key, const char *def,
                              char *buf, size_t size)
{
    size_t kl = strlen(key);
    const char *p = params;

    while (p != NULL && *p) {
        size_t wl;

        p += strspn(p, " \t");
        wl = strcspn(p, " \t");
        if (wl > kl && strncmp(p, key, kl) == 0 && p[kl] == '=') {
            snprintf(buf, size, "%.*s", (int)(wl - kl - 1), p + kl + 1);
            return buf;
        }
        p += wl;
    }
    return def;
}

static const char *show(const char *s)
{
    return s != NULL && *s ? s : "none";
}

/* ---- the walk ------------------------------------------------------------------- */

static const char *kind_name(gen_kind_t k)
{
    return k == GEN_CORE ? "core" : k == GEN_ALGO ? "algo" : "gred";
}

/* "node h1 (host 1)" or "node across" into buf. */
static const char *node_desc(const gen_map_t *m, uint32_t n, char *buf, size_t size)
{
    if (m->nodes[n].host == GEN_NONE)
        snprintf(buf, size, "node %s", m->nodes[n].name);
    else
        snprintf(buf, size, "node %s (host %u)", m->nodes[n].name, (unsigned)m->nodes[n].host);
    return buf;
}

/* "thread 5" or "node h2" for contributor c of side s; with `from`, a
 * node's smallest thread too ("node h2 (threads from 4)"). */
static const char *contrib_desc(const side_t *s, const gen_contrib_t *c, int from, char *buf,
                                size_t size)
{
    if (c->is_thread)
        snprintf(buf, size, "thread %u", (unsigned)c->id);
    else if (from)
        snprintf(buf, size, "node %s (threads from %u)", s->m->nodes[c->id].name,
                 (unsigned)s->min[c->id]);
    else
        snprintf(buf, size, "node %s", s->m->nodes[c->id].name);
    return buf;
}

static int same_node(cmp_t *c, uint32_t na, uint32_t nb)
{
    const gen_node_t *x = &c->a.m->nodes[na], *y = &c->b.m->nodes[nb];
    char d[160];

    node_desc(c->a.m, na, d, sizeof(d));
    if (x->kind != y->kind)
        return differ(c, "%s: %s in a, %s in b", d, kind_name(x->kind), kind_name(y->kind));
    if (x->host != y->host)
        return differ(c, "%s: on host %u in a, host %u in b", d, (unsigned)x->host,
                      (unsigned)y->host);
    if (!same_words(x->params, y->params))
        return differ(c, "%s: params %s in a, %s in b", d, show(x->params), show(y->params));
    if (c->names && strcmp(x->name, y->name) != 0)
        return differ(c, "%s is called %s in b", d, y->name);
    if (x->ncontribs != y->ncontribs)
        return differ(c, "%s: %u contributors in a, %u in b", d, (unsigned)x->ncontribs,
                      (unsigned)y->ncontribs);
    return 1;
}

static int same_route(cmp_t *c, const char *d, const char *who, const gen_contrib_t *x,
                      const gen_contrib_t *y)
{
    uint32_t k;

    if (x->nroute != y->nroute)
        return differ(c, "%s: %s comes through %u prox%s in a, %u in b", d, who,
                      (unsigned)x->nroute, x->nroute == 1 ? "y" : "ies", (unsigned)y->nroute);
    for (k = 0; k < x->nroute; k++) {
        if (x->route[k].host != y->route[k].host)
            return differ(c, "%s: proxy %s of %s on host %u in a, host %u in b", d,
                          x->route[k].name, who, (unsigned)x->route[k].host,
                          (unsigned)y->route[k].host);
        if (c->names && strcmp(x->route[k].name, y->route[k].name) != 0)
            return differ(c, "%s: proxy %s of %s is called %s in b", d, x->route[k].name, who,
                          y->route[k].name);
    }
    return 1;
}

/* Contributor i of a's na and b's nb (both in thread order). */
static int same_contrib(cmp_t *c, uint32_t na, const gen_contrib_t *x, const gen_contrib_t *y,
                        uint32_t i)
{
    char d[160], wa[96], wb[96];

    node_desc(c->a.m, na, d, sizeof(d));
    if (x->is_thread != y->is_thread || (x->is_thread && x->id != y->id) ||
        (!x->is_thread && contrib_key(&c->a, x) != contrib_key(&c->b, y)))
        return differ(c, "%s: contributor %u is %s in a, %s in b", d, (unsigned)i + 1,
                      contrib_desc(&c->a, x, 1, wa, sizeof(wa)),
                      contrib_desc(&c->b, y, 1, wb, sizeof(wb)));
    contrib_desc(&c->a, x, 0, wa, sizeof(wa));
    if (x->is_thread && x->host != y->host)
        return differ(c, "%s: %s on host %u in a, host %u in b", d, wa, (unsigned)x->host,
                      (unsigned)y->host);
    return same_route(c, d, wa, x, y);
}

/* Compares the pair on top of the stack and pushes its child pairs. */
static int step(cmp_t *c, uint32_t (*stack)[2], uint32_t *sp, uint32_t cap)
{
    uint32_t na = stack[*sp - 1][0], nb = stack[*sp - 1][1], i, n;
    const gen_contrib_t **xa, **xb;
    int ok = 1;

    (*sp)--;
    if (!same_node(c, na, nb))
        return 0;
    n = c->a.m->nodes[na].ncontribs;
    xa = sorted(&c->a, na);
    xb = sorted(&c->b, nb);
    if (xa == NULL || xb == NULL)
        ok = differ(c, "out of memory");
    for (i = 0; ok && i < n; i++)
        ok = same_contrib(c, na, xa[i], xb[i], i);
    for (i = n; ok && i-- > 0;)
        if (!xa[i]->is_thread && *sp == cap) {
            ok = differ(c, "a is no tree (a node is reached twice)");
        } else if (!xa[i]->is_thread) {
            stack[*sp][0] = xa[i]->id;
            stack[(*sp)++][1] = xb[i]->id;
        }
    free(xa);
    free(xb);
    return ok;
}

static int same_tree(cmp_t *c)
{
    const gen_map_t *a = c->a.m, *b = c->b.m;
    uint32_t (*stack)[2], sp = 0;
    int ok = 1;

    if (a->root == GEN_NONE || b->root == GEN_NONE)
        return a->root == b->root ? 1 : differ(c, "%s has no root", a->root == GEN_NONE ? "a" : "b");
    stack = malloc((size_t)(a->nnodes + 1) * sizeof(*stack));
    if (stack == NULL)
        return differ(c, "out of memory");
    stack[sp][0] = a->root;
    stack[sp++][1] = b->root;
    while (ok && sp > 0)
        ok = step(c, stack, &sp, a->nnodes + 1);
    free(stack);
    /* the trees match; nodes connected to neither root still count */
    if (ok && a->nnodes != b->nnodes)
        return differ(c, "%u nodes in a, %u in b (some not in the tree)", (unsigned)a->nnodes,
                      (unsigned)b->nnodes);
    return ok;
}

/* Hosts, type, op (and the tree's name with names). */
static int same_frame(cmp_t *c)
{
    const gen_map_t *a = c->a.m, *b = c->b.m;
    char va[64], vb[64];
    const char *keys[2] = { "type", "op" }, *defs[2] = { "int32", "sum" }, *x, *y;
    int i;

    if (a->nhosts != b->nhosts)
        return differ(c, "%u hosts in a, %u in b", (unsigned)a->nhosts, (unsigned)b->nhosts);
    for (i = 0; i < 2; i++) {
        x = word_value(a->tree_params, keys[i], defs[i], va, sizeof(va));
        y = word_value(b->tree_params, keys[i], defs[i], vb, sizeof(vb));
        if (strcmp(x, y) != 0)
            return differ(c, "%s=%s in a, %s=%s in b", keys[i], x, keys[i], y);
    }
    if (c->names && strcmp(a->tree_name ? a->tree_name : "", b->tree_name ? b->tree_name : "") != 0)
        return differ(c, "the tree is called %s in a, %s in b", show(a->tree_name),
                      show(b->tree_name));
    return 1;
}

int gen_map_equal(const gen_map_t *a, const gen_map_t *b, int names, char *why, size_t size)
{
    cmp_t c = { { a, NULL }, { b, NULL }, names, why, size };
    int eq;

    if (why != NULL && size > 0)
        why[0] = '\0';
    if (!same_frame(&c))
        return 0;
    c.a.min = gen_map_min_threads(a);
    c.b.min = gen_map_min_threads(b);
    eq = c.a.min != NULL && c.b.min != NULL ? same_tree(&c) : differ(&c, "out of memory");
    free(c.a.min);
    free(c.b.min);
    return eq;
}
