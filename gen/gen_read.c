/*
 * gen_read.c - a pathmap file into pathgen's model (gen_map_parse,
 * gen_map_load).
 *
 * The runtime's parser validates the text first, so every error a user
 * sees is its path:line:col one and the model is only built from a valid
 * tree.  The parsed tree gives the structure: each core, gred and algo
 * node becomes a node, and the proxies between a contributor and the next
 * such node above it become the contributor's route (route[0] the proxy
 * nearest the contributor).  What the runtime does not keep is read back
 * from the text: the header (the comment lines at the top of the file),
 * and for each node and proxy its declaring line's further words (params:
 * all but the kind, the name, host= and parent=) and trailing comment.
 * The comments the writer makes itself ("fan-in N" on a gred, "A -> B" on
 * a proxy) are dropped so that an edited tree gets fresh ones.
 * Contributors are appended as found and sorted into thread order once at
 * the end, so that reading stays linear (a chain of 65536 greds included).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen/api/gen_map.h"
#include "gen/gen_map_int.h"
#include "runtime/api/rt_pathmap.h"

/* ---- the text's lines ------------------------------------------------------- */

typedef struct lines {
    const char *text;
    size_t      len;
    size_t     *start;     /* start[i]: offset of line i + 1 */
    uint32_t    n;
} lines_t;

static int lines_index(lines_t *l, const char *text, size_t len)
{
    size_t i;
    uint32_t n = 1;

    for (i = 0; i < len; i++)
        n += text[i] == '\n';
    l->start = malloc((size_t)n * sizeof(*l->start));
    if (l->start == NULL)
        return -1;
    l->text = text;
    l->len = len;
    l->n = 0;
    l->start[l->n++] = 0;
    for (i = 0; i < len; i++)
        if (text[i] == '\n' && l->n < n)
            l->start[l->n++] = i + 1;
    return 0;
}

/* Line `no` (1-based): its start and length without the newline and \r. */
static const char *line_get(const lines_t *l, unsigned no, size_t *len_p)
{
    const char *s, *e;

    if (no == 0 || no > l->n) {
        *len_p = 0;
        return "";
    }
    s = l->text + l->start[no - 1];
    e = memchr(s, '\n', l->len - l->start[no - 1]);
    if (e == NULL)
        e = l->text + l->len;
    if (e > s && e[-1] == '\r')
        e--;
    *len_p = (size_t)(e - s);
    return s;
}

/* ---- words and comments of a line -------------------------------------------- */

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* The comment of a line (trimmed, malloc'd), or NULL when none or empty.
 * *ok becomes 0 when out of memory. */
static char *line_comment(const char *s, size_t len, int *ok)
{
    const char *h = memchr(s, '#', len), *e = s + len;
    char *c;

    if (h == NULL)
        return NULL;
    for (h++; h < e && is_blank(*h); h++)
        ;
    while (e > h && is_blank(e[-1]))
        e--;
    if (e == h)
        return NULL;
    c = strndup(h, (size_t)(e - h));
    if (c == NULL)
        *ok = 0;
    return c;
}

/* The words of a statement from the `skip`+1-th on, less host= and parent=,
 * joined by one space (malloc'd), or NULL when there are none. */
static char *line_params(const char *s, size_t len, int skip, int *ok)
{
    const char *e = memchr(s, '#', len), *w;
    char *out = NULL;
    size_t olen = 0, wl;
    int k = 0;

    if (e == NULL)
        e = s + len;
    while (s < e) {
        while (s < e && is_blank(*s))
            s++;
        for (w = s; s < e && !is_blank(*s); s++)
            ;
        wl = (size_t)(s - w);
        if (wl == 0 || k++ < skip || strncmp(w, "host=", 5) == 0 ||
            strncmp(w, "parent=", 7) == 0)
            continue;
        {
            char *p = realloc(out, olen + wl + 2);

            if (p == NULL) {
                *ok = 0;
                free(out);
                return NULL;
            }
            out = p;
            if (olen > 0)
                out[olen++] = ' ';
            memcpy(out + olen, w, wl);
            olen += wl;
            out[olen] = '\0';
        }
    }
    return out;
}

/* 1 if c is the writer's own: "fan-in N" or "NAME -> NAME". */
static int comment_is_auto(const char *c)
{
    const char *a;

    if (strncmp(c, "fan-in ", 7) == 0 && c[7] != '\0' && strspn(c + 7, "0123456789") == strlen(c + 7))
        return 1;
    a = strstr(c, " -> ");
    return a != NULL && a > c && a[4] != '\0' && strpbrk(a + 4, " \t") == NULL &&
           memchr(c, ' ', (size_t)(a - c)) == NULL;
}

/* The comment of line `no` unless it is an automatic one. */
static char *node_comment(const lines_t *l, unsigned no, int *ok)
{
    size_t len;
    const char *s = line_get(l, no, &len);
    char *c = line_comment(s, len, ok);

    if (c != NULL && comment_is_auto(c)) {
        free(c);
        return NULL;
    }
    return c;
}

/* ---- building the model ---------------------------------------------------- */

static int read_header(gen_map_t *m, const lines_t *l)
{
    unsigned no;
    size_t len;
    const char *s;

    for (no = 1; no <= l->n; no++) {
        s = line_get(l, no, &len);
        if (len == 0 || s[0] != '#')
            break;
        s++, len--;
        if (len > 0 && s[0] == ' ')
            s++, len--;
        if (gen_map_header_add(m, "%.*s", (int)len, s) != 0)
            return -1;
    }
    return 0;
}

/* Adds the proxies from rt node `p` up to the first node that is no proxy
 * to contributor c's route; returns that node (an rt index). */
static int push_route(const rt_tree_t *t, const lines_t *l, uint32_t *p_io,
                      gen_contrib_t *c)
{
    uint32_t p = *p_io;
    int ok = 1;

    while (t->nodes[p].kind == RT_NODE_PROXY) {
        char *com = node_comment(l, t->nodes[p].line, &ok);
        int r = ok ? gen_route_push(c, t->nodes[p].name, t->nodes[p].host, com) : -1;

        free(com);
        if (r != 0)
            return -1;
        p = t->nodes[p].parent;
    }
    *p_io = p;
    return 0;
}

/* Appends a contributor (node `gid`, or thread `tid` on `host`) that sits
 * below rt node `up`, through the proxies from `up` on.  (Appended, not
 * attached in order: the whole model is sorted once at the end.) */
static int attach_through(gen_map_t *m, const rt_tree_t *t, const lines_t *l, const uint32_t *gidx,
                          uint32_t up, int is_thread, uint32_t id, uint32_t host)
{
    gen_contrib_t c = { is_thread, id, host, NULL, 0 };
    uint32_t top = up;

    if (push_route(t, l, &top, &c) != 0 || gen_contrib_append(m, gidx[top], &c) != 0) {
        gen_route_clear(&c);
        return -1;
    }
    return 0;
}

static gen_kind_t kind_of(rt_node_kind_t k)
{
    return k == RT_NODE_CORE ? GEN_CORE : k == RT_NODE_ALGO ? GEN_ALGO : GEN_GRED;
}

static int read_nodes(gen_map_t *m, const rt_tree_t *t, const lines_t *l, uint32_t *gidx)
{
    uint32_t i;

    for (i = 0; i < t->nnodes; i++)
        gidx[i] = GEN_NONE;
    for (i = 0; i < t->nnodes; i++) {
        const rt_node_t *n = &t->nodes[i];
        size_t len;
        const char *s = line_get(l, n->line, &len);
        char *params, *comment;
        int ok = 1;

        if (n->kind == RT_NODE_PROXY)
            continue;
        params = line_params(s, len, 2, &ok);
        comment = node_comment(l, n->line, &ok);
        if (ok)
            gidx[i] = gen_node_add(m, kind_of(n->kind), n->name,
                                   n->kind == RT_NODE_ALGO ? GEN_NONE : n->host, params, comment);
        free(params);
        free(comment);
        if (gidx[i] == GEN_NONE)
            return -1;
    }
    m->root = t->root < t->nnodes ? gidx[t->root] : GEN_NONE;
    return 0;
}

static int read_edges(gen_map_t *m, const rt_tree_t *t, const lines_t *l, const uint32_t *gidx)
{
    uint32_t i;

    for (i = 0; i < t->nnodes; i++)
        if (t->nodes[i].kind != RT_NODE_PROXY && i != t->root &&
            attach_through(m, t, l, gidx, t->nodes[i].parent, 0, gidx[i], GEN_NONE) != 0)
            return -1;
    for (i = 0; i < t->nthreads; i++)
        if (attach_through(m, t, l, gidx, t->threads[i].enter, 1, t->threads[i].id,
                           t->threads[i].host) != 0)
            return -1;
    return gen_map_sort_contribs(m);
}

static int read_tree(gen_map_t *m, const rt_pathmap_t *pm, const rt_tree_t *t)
{
    lines_t l = { NULL, 0, NULL, 0 };
    uint32_t *gidx = malloc((size_t)(t->nnodes ? t->nnodes : 1) * sizeof(*gidx)), i;
    int ok = 1, r = -1;
    size_t len;
    const char *s;

    if (gidx == NULL || lines_index(&l, pm->text, pm->len) != 0)
        goto out;
    for (i = 0; i < pm->nhosts; i++)
        if (gen_map_host_add(m, pm->hosts[i].name) == GEN_NONE)
            goto out;
    if (read_header(m, &l) != 0)
        goto out;
    m->tree_name = strdup(t->name);
    s = line_get(&l, t->line, &len);
    m->tree_params = line_params(s, len, 2, &ok);
    if (m->tree_name == NULL || !ok)
        goto out;
    r = read_nodes(m, t, &l, gidx) == 0 && read_edges(m, t, &l, gidx) == 0 ? 0 : -1;
out:
    free(l.start);
    free(gidx);
    return r;
}

/* ---- choosing the tree -------------------------------------------------------- */

static void tree_names(const rt_pathmap_t *pm, char *buf, size_t size)
{
    size_t n = 0;
    uint32_t i;

    buf[0] = '\0';
    for (i = 0; i < pm->ntrees && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? ", " : "", pm->trees[i].name);
}

static cm_status_t pick_tree(const rt_pathmap_t *pm, const char *path, const char *tree,
                             const rt_tree_t **t_p, cm_err_t *err)
{
    char names[256];
    uint32_t i;

    tree_names(pm, names, sizeof(names));
    if (tree == NULL) {
        if (pm->ntrees != 1)
            return CM_ERR_AT(err, CM_ERR_NAME, path, 0, 0,
                             "%u trees (%s): say which one", (unsigned)pm->ntrees, names);
        *t_p = &pm->trees[0];
        return CM_OK;
    }
    for (i = 0; i < pm->ntrees; i++)
        if (strcmp(pm->trees[i].name, tree) == 0) {
            *t_p = &pm->trees[i];
            return CM_OK;
        }
    return CM_ERR_AT(err, CM_ERR_NAME, path, 0, 0, "no tree '%s' (trees: %s)", tree, names);
}

cm_status_t gen_map_parse(const char *path, const char *text, size_t len, const char *tree,
                          gen_map_t **m_p, cm_err_t *err)
{
    rt_pathmap_t *pm = NULL;
    const rt_tree_t *t = NULL;
    gen_map_t *m;
    cm_status_t st = rt_pathmap_parse(path, text, len, &pm, err);

    if (st != CM_OK)
        return st;
    st = pick_tree(pm, path, tree, &t, err);
    if (st == CM_OK) {
        m = gen_map_create();
        if (m == NULL || read_tree(m, pm, t) != 0) {
            gen_map_destroy(m);
            st = CM_ERR(err, CM_ERR_NOMEM, "out of memory reading %s", path);
        } else {
            *m_p = m;
        }
    }
    rt_pathmap_destroy(pm);
    return st;
}

cm_status_t gen_map_load(const char *path, const char *tree, gen_map_t **m_p, cm_err_t *err)
{
    rt_pathmap_t *pm = NULL;
    cm_status_t st = rt_pathmap_load(path, &pm, err);
    gen_map_t *m = NULL;

    /* parsed twice (load, then from its text): the loader's I/O checks and
       messages stay the runtime's, and gen_map_parse stays the one reader */
    if (st != CM_OK)
        return st;
    st = gen_map_parse(path, pm->text, pm->len, tree, &m, err);
    rt_pathmap_destroy(pm);
    if (st == CM_OK)
        *m_p = m;
    return st;
}
