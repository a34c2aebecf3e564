/*
 * gen_write.c - the model as pathmap text (gen_map_format, gen_map_render).
 *
 * The layout is that of the sample pathmaps (pathmaps/: pathgen writes
 * them, and tests/oracles/gen-pathmaps.py, an independent generator,
 * checks their text), so that a loaded sample is written back byte for
 * byte:
 *
 *   # header lines ("#" alone for an empty one)
 *   <blank>
 *   host NAME  # rank i          (names padded to one width)
 *   <blank>
 *   tree NAME PARAMS
 *   kind  name  host=H  parent=P PARAMS  # comment
 *   ...                           (a blank line where the host changes)
 *   <blank>
 *   threads A-B host=H enter=W
 *
 * The rows are the wrappers in depth-first pre-order from the root: each
 * contributor of a node, in thread order, as its route's proxies (the one
 * nearest the node first) followed by its subtree.  Kind, name and host=
 * are padded to columns; the comments start in one column.  A gred
 * without a comment (NULL) gets "fan-in N", a proxy "HOST -> HOST"; an
 * empty comment ("") prints none.  Thread ranges
 * merge consecutive ids with the same host and entry wrapper (the first
 * proxy of the thread's route, else the node it contributes to).
 *
 * A model that is no tree (a node without parent, a cycle) is refused
 * (gen_map_format: NULL; gen_map_render: the reason).
 *
 * The rows are built first (their words and comments as strings), then the
 * widths are known and the text is written in one pass.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen/api/gen_map.h"
#include "runtime/api/rt_pathmap.h"

/* ---- a growing string ----------------------------------------------------- */

typedef struct sbuf {
    char  *s;
    size_t len, cap;
    int    oom;
} sbuf_t;

static void sb_printf(sbuf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_printf(sbuf_t *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (b->oom)
        return;
    for (;;) {
        size_t room = b->cap - b->len;

        va_start(ap, fmt);
        n = vsnprintf(b->s ? b->s + b->len : NULL, room, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = 1;
            return;
        }
        if ((size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        {
            size_t ncap = b->cap ? b->cap * 2 : 4096;
            char *p;

            while (ncap - b->len <= (size_t)n)
                ncap *= 2;
            p = realloc(b->s, ncap);
            if (p == NULL) {
                b->oom = 1;
                return;
            }
            b->s = p;
            b->cap = ncap;
        }
    }
}

/* Drops trailing blanks of the current text (the layout rstrips each row). */
static void sb_rstrip(sbuf_t *b, size_t from)
{
    while (b->len > from && b->s[b->len - 1] == ' ')
        b->len--;
    if (b->s)
        b->s[b->len] = '\0';
}

/* ---- rows ------------------------------------------------------------------ */

typedef struct row {
    const char *kind, *name, *parent, *params, *comment;
    uint32_t    host;       /* GEN_NONE: an algorithm node */
    char        auto_comment[160];
} row_t;

typedef struct rows {
    row_t   *v;
    uint32_t n;
} rows_t;

/* The name of the wrapper that contributor c of node `n` enters first
 * above the contributor: its route's first proxy, else the node. */
static const char *entry_above(const gen_map_t *m, uint32_t n, const gen_contrib_t *c)
{
    return c->nroute > 0 ? c->route[0].name : m->nodes[n].name;
}

static const char *host_name(const gen_map_t *m, uint32_t h)
{
    return h == GEN_NONE || h >= m->nhosts ? "?" : m->hosts[h];
}

static void row_node(const gen_map_t *m, rows_t *r, uint32_t n, const char *parent)
{
    const gen_node_t *node = &m->nodes[n];
    static const char *const kinds[] = { "core", "gred", "algo" };
    row_t *w = &r->v[r->n++];

    memset(w, 0, sizeof(*w));
    w->kind = kinds[node->kind];
    w->name = node->name;
    w->host = node->host;
    w->parent = parent;
    w->params = node->params;
    w->comment = node->comment;
    if (w->comment == NULL && node->kind == GEN_GRED) {
        snprintf(w->auto_comment, sizeof(w->auto_comment), "fan-in %u",
                 (unsigned)node->ncontribs);
        w->comment = w->auto_comment;
    }
}

/* The route of contributor c of node n, the hop nearest the node first. */
static void rows_route(const gen_map_t *m, rows_t *r, uint32_t n, const gen_contrib_t *c)
{
    uint32_t k;

    for (k = c->nroute; k-- > 0;) {
        const gen_proxy_t *p = &c->route[k];
        uint32_t up_host = k + 1 < c->nroute ? c->route[k + 1].host : m->nodes[n].host;
        row_t *w = &r->v[r->n++];

        memset(w, 0, sizeof(*w));
        w->kind = "proxy";
        w->name = p->name;
        w->host = p->host;
        w->parent = k + 1 < c->nroute ? c->route[k + 1].name : m->nodes[n].name;
        w->comment = p->comment;
        if (w->comment == NULL) {
            snprintf(w->auto_comment, sizeof(w->auto_comment), "%s -> %s",
                     host_name(m, p->host), host_name(m, up_host));
            w->comment = w->auto_comment;
        }
    }
}

/* Depth-first pre-order from the root with an explicit stack of
 * (node, contributor) items; contributor GEN_NONE: the node itself. */
static int rows_build(const gen_map_t *m, rows_t *r)
{
    uint32_t cap = gen_map_nwrappers(m) + 1, sp = 0, i;
    uint32_t (*stack)[2] = malloc((size_t)(m->nnodes + gen_map_nthreads(m) + 1) * sizeof(*stack));

    r->v = malloc((size_t)cap * sizeof(*r->v));
    r->n = 0;
    if (stack == NULL || r->v == NULL) {
        free(stack);
        return -1;
    }
    if (m->root != GEN_NONE) {
        row_node(m, r, m->root, NULL);
        stack[sp][0] = m->root;
        stack[sp++][1] = GEN_NONE;
    }
    while (sp > 0) {
        uint32_t n = stack[sp - 1][0], j = stack[sp - 1][1];
        const gen_node_t *node = &m->nodes[n];

        sp--;
        if (j == GEN_NONE) {
            for (i = node->ncontribs; i-- > 0;) {
                stack[sp][0] = n;
                stack[sp++][1] = i;
            }
            continue;
        }
        rows_route(m, r, n, &node->contribs[j]);
        if (!node->contribs[j].is_thread) {
            uint32_t child = node->contribs[j].id;

            row_node(m, r, child, entry_above(m, n, &node->contribs[j]));
            stack[sp][0] = child;
            stack[sp++][1] = GEN_NONE;
        }
    }
    free(stack);
    return 0;
}

/* Why the model is no tree the writer can walk (into buf), or NULL: a
 * root; every node listed at most once, by its parent; every node reached
 * from the root through the lists (breadth-first: linear even for a chain
 * of 65536 nodes). */
static const char *map_problem(const gen_map_t *m, char *buf, size_t size)
{
    uint32_t i, j, head = 0, tail = 0, *seen, *queue;
    const char *why = NULL;

    if (m->root == GEN_NONE || m->root >= m->nnodes || m->nodes[m->root].parent != GEN_NONE) {
        snprintf(buf, size, "the tree has no root (a core or an algorithm node)");
        return buf;
    }
    seen = calloc(m->nnodes, sizeof(*seen));
    queue = malloc((size_t)m->nnodes * sizeof(*queue));
    if (seen == NULL || queue == NULL) {
        snprintf(buf, size, "out of memory");
        why = buf;
        goto out;
    }
    for (i = 0; i < m->nnodes && why == NULL; i++)
        for (j = 0; j < m->nodes[i].ncontribs && why == NULL; j++) {
            const gen_contrib_t *c = &m->nodes[i].contribs[j];

            if (!c->is_thread && (c->id >= m->nnodes || m->nodes[c->id].parent != i ||
                                  seen[c->id]++ > 0)) {
                snprintf(buf, size, "node %s lists a contributor that is not its child "
                         "(or twice)", m->nodes[i].name);
                why = buf;
            }
        }
    if (why != NULL)
        goto out;
    memset(seen, 0, (size_t)m->nnodes * sizeof(*seen));
    seen[m->root] = 1;
    queue[tail++] = m->root;
    while (head < tail) {
        const gen_node_t *n = &m->nodes[queue[head++]];

        for (j = 0; j < n->ncontribs; j++)
            if (!n->contribs[j].is_thread && !seen[n->contribs[j].id]) {
                seen[n->contribs[j].id] = 1;
                queue[tail++] = n->contribs[j].id;
            }
    }
    for (i = 0; i < m->nnodes && why == NULL; i++)
        if (!seen[i]) {
            snprintf(buf, size, "node %s is not connected to the root %s", m->nodes[i].name,
                     m->nodes[m->root].name);
            why = buf;
        }
out:
    free(seen);
    free(queue);
    return why;
}

/* ---- the text ---------------------------------------------------------------- */

static void write_header(const gen_map_t *m, sbuf_t *b)
{
    uint32_t i;
    size_t from;

    for (i = 0; i < m->nheader; i++) {
        from = b->len;
        sb_printf(b, "# %s", m->header[i]);
        sb_rstrip(b, from);
        sb_printf(b, "\n");
    }
    if (m->nheader > 0)
        sb_printf(b, "\n");
}

static void write_hosts(const gen_map_t *m, sbuf_t *b)
{
    uint32_t i;
    int w = 0;

    for (i = 0; i < m->nhosts; i++)
        if ((int)strlen(m->hosts[i]) > w)
            w = (int)strlen(m->hosts[i]);
    for (i = 0; i < m->nhosts; i++)
        sb_printf(b, "host %-*s  # rank %u\n", w, m->hosts[i], (unsigned)i);
    sb_printf(b, "\n");
}

/* The words of row w (no comment), rstripped; returns their length. */
static size_t row_words(const gen_map_t *m, const row_t *w, int nw, int hw, sbuf_t *b)
{
    size_t from = b->len;

    if (w->host == GEN_NONE)
        sb_printf(b, "%-5s %-*s %s", w->kind, nw, w->name, w->params ? w->params : "");
    else
        sb_printf(b, "%-5s %-*s host=%-*s", w->kind, nw, w->name, hw, host_name(m, w->host));
    if (w->parent != NULL)
        sb_printf(b, " parent=%s", w->parent);
    if (w->host != GEN_NONE && w->params != NULL && w->params[0] != '\0')
        sb_printf(b, " %s", w->params);
    sb_rstrip(b, from);
    return b->len - from;
}

static void write_rows(const gen_map_t *m, const rows_t *r, sbuf_t *b)
{
    int nw = 0, hw = 0;
    size_t cw = 0, len, from;
    uint32_t i;

    for (i = 0; i < r->n; i++) {
        if ((int)strlen(r->v[i].name) > nw)
            nw = (int)strlen(r->v[i].name);
        if (r->v[i].host != GEN_NONE && (int)strlen(host_name(m, r->v[i].host)) > hw)
            hw = (int)strlen(host_name(m, r->v[i].host));
    }
    for (i = 0; i < r->n; i++) {   /* measure: write, then take back */
        from = b->len;
        len = row_words(m, &r->v[i], nw, hw, b);
        b->len = from;
        if (len > cw)
            cw = len;
    }
    for (i = 0; i < r->n; i++) {
        if (i > 0 && r->v[i].host != r->v[i - 1].host)
            sb_printf(b, "\n");
        len = row_words(m, &r->v[i], nw, hw, b);
        if (r->v[i].comment != NULL && r->v[i].comment[0] != '\0')
            sb_printf(b, "%*s  # %s", (int)(cw - len), "", r->v[i].comment);
        sb_printf(b, "\n");
    }
}

typedef struct tentry {
    uint32_t    tid, host;
    const char *enter;
} tentry_t;

static int tentry_cmp(const void *a, const void *b)
{
    const tentry_t *x = a, *y = b;

    return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static void write_range(const gen_map_t *m, sbuf_t *b, const tentry_t *first, uint32_t last)
{
    if (first->tid == last)
        sb_printf(b, "threads %u", (unsigned)last);
    else
        sb_printf(b, "threads %u-%u", (unsigned)first->tid, (unsigned)last);
    sb_printf(b, " host=%s enter=%s\n", host_name(m, first->host), first->enter);
}

static int write_threads(const gen_map_t *m, sbuf_t *b)
{
    uint32_t n = gen_map_nthreads(m), k = 0, i, j, start;
    tentry_t *t = malloc((size_t)(n ? n : 1) * sizeof(*t));

    if (t == NULL)
        return -1;
    for (i = 0; i < m->nnodes; i++)
        for (j = 0; j < m->nodes[i].ncontribs; j++) {
            const gen_contrib_t *c = &m->nodes[i].contribs[j];

            if (!c->is_thread)
                continue;
            t[k].tid = c->id;
            t[k].host = c->host;
            t[k++].enter = entry_above(m, i, c);
        }
    qsort(t, k, sizeof(*t), tentry_cmp);
    for (start = 0, i = 1; i <= k; i++)
        if (i == k || t[i].tid != t[i - 1].tid + 1 || t[i].host != t[start].host ||
            strcmp(t[i].enter, t[start].enter) != 0) {
            write_range(m, b, &t[start], t[i - 1].tid);
            start = i;
        }
    free(t);
    return 0;
}

char *gen_map_format(const gen_map_t *m)
{
    sbuf_t b = { NULL, 0, 0, 0 };
    rows_t r = { NULL, 0 };
    char why[160];

    if (map_problem(m, why, sizeof(why)) != NULL)
        return NULL;
    write_header(m, &b);
    write_hosts(m, &b);
    sb_printf(&b, "tree %s", m->tree_name ? m->tree_name : "sum");
    if (m->tree_params != NULL && m->tree_params[0] != '\0')
        sb_printf(&b, " %s", m->tree_params);
    sb_printf(&b, "\n");
    if (rows_build(m, &r) != 0)
        b.oom = 1;
    else
        write_rows(m, &r, &b);
    free(r.v);
    sb_printf(&b, "\n");
    if (write_threads(m, &b) != 0)
        b.oom = 1;
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

cm_status_t gen_map_render(const gen_map_t *m, char **text_p, cm_err_t *err)
{
    char *text, why[160];
    rt_pathmap_t *pm = NULL;
    cm_status_t st;

    if (map_problem(m, why, sizeof(why)) != NULL)
        return CM_ERR(err, CM_ERR_TREE, "cannot write the pathmap: %s", why);
    text = gen_map_format(m);
    if (text == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory writing the pathmap");
    st = rt_pathmap_parse("(pathgen output)", text, strlen(text), &pm, err);
    rt_pathmap_destroy(pm);
    if (st != CM_OK) {
        free(text);
        return st;
    }
    *text_p = text;
    return CM_OK;
}
