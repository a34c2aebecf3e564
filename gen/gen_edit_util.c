/*
 * gen_edit_util.c - the shared steps of the reconfiguration operators
 * (gen/gen_edit_int.h): cloning a model, committing a clone (routes, the
 * header line, validation by the runtime's parser, swap), name and host
 * lookups with the operators' error messages, the members of a subtree
 * and their conventional names (pathmaps/README.md, "Names of wrappers"),
 * and moving a contributor with its route.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen/gen_edit_int.h"
#include "gen/gen_map_int.h"

/* ---- cloning ------------------------------------------------------------ */

static char *sdup(const char *s, int *oom)
{
    char *d;

    if (s == NULL)
        return NULL;
    if ((d = strdup(s)) == NULL)
        *oom = 1;
    return d;
}

static char **strv_dup(char *const *v, uint32_t n, int *oom)
{
    char **d;
    uint32_t i;

    if (n == 0)
        return NULL;
    if ((d = calloc(n, sizeof(*d))) == NULL) {
        *oom = 1;
        return NULL;
    }
    for (i = 0; i < n; i++)
        d[i] = sdup(v[i], oom);
    return d;
}

static void contrib_copy(gen_contrib_t *d, const gen_contrib_t *s, int *oom)
{
    uint32_t k;

    *d = *s;
    d->route = NULL;
    d->nroute = 0;
    if (s->nroute == 0)
        return;
    if ((d->route = calloc(s->nroute, sizeof(*d->route))) == NULL) {
        *oom = 1;
        return;
    }
    d->nroute = s->nroute;
    for (k = 0; k < s->nroute; k++) {
        d->route[k].host = s->route[k].host;
        d->route[k].name = sdup(s->route[k].name, oom);
        d->route[k].comment = sdup(s->route[k].comment, oom);
    }
}

static void node_copy(gen_node_t *d, const gen_node_t *s, int *oom)
{
    uint32_t j;

    *d = *s;
    d->name = sdup(s->name, oom);
    d->params = sdup(s->params, oom);
    d->comment = sdup(s->comment, oom);
    d->contribs = NULL;
    d->ncontribs = d->cap = 0;
    if (s->ncontribs == 0)
        return;
    if ((d->contribs = calloc(s->ncontribs, sizeof(*d->contribs))) == NULL) {
        *oom = 1;
        return;
    }
    d->ncontribs = d->cap = s->ncontribs;
    for (j = 0; j < s->ncontribs; j++)
        contrib_copy(&d->contribs[j], &s->contribs[j], oom);
}

gen_map_t *ge_clone(const gen_map_t *m)
{
    gen_map_t *c = gen_map_create();
    int oom = 0;
    uint32_t i;

    if (c == NULL)
        return NULL;
    c->hosts = strv_dup(m->hosts, m->nhosts, &oom);
    c->nhosts = c->hosts ? m->nhosts : 0;
    c->header = strv_dup(m->header, m->nheader, &oom);
    c->nheader = c->header ? m->nheader : 0;
    c->tree_name = sdup(m->tree_name, &oom);
    c->tree_params = sdup(m->tree_params, &oom);
    if (m->nnodes > 0 && (c->nodes = calloc(m->nnodes, sizeof(*c->nodes))) == NULL)
        oom = 1;
    for (i = 0; c->nodes != NULL && i < m->nnodes; i++) {
        node_copy(&c->nodes[i], &m->nodes[i], &oom);
        c->nnodes = c->cap = i + 1;
    }
    c->root = m->root;
    if (oom) {
        gen_map_destroy(c);
        return NULL;
    }
    return c;
}

/* ---- committing --------------------------------------------------------- */

cm_status_t ge_commit(gen_map_t *m, gen_map_t *c, const char *op, cm_err_t *err,
                      const char *fmt, ...)
{
    char line[1024], *text = NULL;
    gen_map_t tmp;
    cm_err_t verr;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (gen_map_fix_routes(c) != 0 || gen_map_header_add(c, "%s", line) != 0) {
        gen_map_destroy(c);
        return CM_ERR(err, CM_ERR_NOMEM, "%s: out of memory", op);
    }
    cm_err_clear(&verr);
    if (gen_map_render(c, &text, &verr) != CM_OK) {
        gen_map_destroy(c);
        /* the edit as its history line says it ("move h1 host0") */
        return CM_ERR(err, CM_ERR_INVALID, "%s: the result would not be a valid pathmap: %s",
                      strncmp(line, "pathgen edit: ", 14) == 0 ? line + 14 : op, verr.msg);
    }
    free(text);
    tmp = *m;
    *m = *c;
    *c = tmp;
    gen_map_destroy(c);
    return CM_OK;
}

/* ---- lookups ------------------------------------------------------------ */

cm_status_t ge_node(const gen_map_t *m, const char *op, const char *name, int want_gred,
                    uint32_t *n_p, cm_err_t *err)
{
    uint32_t n = gen_node_find(m, name), a, b, c;

    if (n == GEN_NONE) {
        if (gen_map_find_proxy(m, name, &a, &b, &c))
            return CM_ERR(err, CM_ERR_INVALID, "%s: '%s' is a proxy, not a %s", op, name,
                          want_gred ? "gred" : "gred or core");
        return CM_ERR(err, CM_ERR_NAME, "%s: no wrapper '%s' in tree %s", op, name,
                      m->tree_name ? m->tree_name : "");
    }
    if (want_gred && m->nodes[n].kind != GEN_GRED)
        return CM_ERR(err, CM_ERR_INVALID, "%s: '%s' is %s, not a gred", op, name,
                      m->nodes[n].kind == GEN_CORE ? "the core" : "the algorithm node");
    *n_p = n;
    return CM_OK;
}

cm_status_t ge_host(const gen_map_t *m, const char *op, const char *name, uint32_t *h_p,
                    cm_err_t *err)
{
    uint32_t h = gen_map_host_find(m, name), i;

    for (i = 0; h == GEN_NONE && i < m->nhosts; i++)
        if (strcmp(gen_map_host_label(m, i), name) == 0)
            h = i;
    if (h == GEN_NONE)
        return CM_ERR(err, CM_ERR_NAME, "%s: no host '%s'", op, name);
    *h_p = h;
    return CM_OK;
}

/* ---- members and their names -------------------------------------------- */

/* The convention of subtree `sub`: "PREFIXcr" for a cr0 (PREFIX "" or
 * "a."), else "SUB.l".  *cr_p says which. */
static void scheme_of(const char *sub, char *base, size_t size, int *cr_p)
{
    size_t len = strlen(sub);

    if (strcmp(sub, "cr0") == 0 || (len > 4 && strcmp(sub + len - 4, ".cr0") == 0)) {
        snprintf(base, size, "%.*scr", (int)(len - 3), sub);
        *cr_p = 1;
    } else {
        snprintf(base, size, "%s.l", sub);
        *cr_p = 0;
    }
}

/* 1 if name is BASE<digits>.<digits>. */
static int fits_scheme(const char *name, const char *base)
{
    size_t bl = strlen(base);
    const char *p = name + bl;
    int d1 = 0, d2 = 0;

    if (strncmp(name, base, bl) != 0)
        return 0;
    for (; *p >= '0' && *p <= '9'; p++)
        d1++;
    if (*p++ != '.')
        return 0;
    for (; *p >= '0' && *p <= '9'; p++)
        d2++;
    return d1 > 0 && d2 > 0 && *p == '\0';
}

uint32_t ge_members(const gen_map_t *m, uint32_t sub, uint32_t *out, uint32_t *level)
{
    int part = gen_node_is_host_part(m, sub), cr;
    uint32_t n = 0, head = 0, j;
    char base[256];

    scheme_of(m->nodes[sub].name, base, sizeof(base), &cr);

    out[n] = sub;
    level[n++] = 0;
    while (head < n) {
        const gen_node_t *node = &m->nodes[out[head]];

        for (j = 0; j < node->ncontribs; j++) {
            uint32_t ch = node->contribs[j].id;

            /* a gred of the other part is a member when named as one
             * (cr1.0 of threads of the root's host alone is host part) */
            if (node->contribs[j].is_thread || m->nodes[ch].kind != GEN_GRED ||
                (gen_node_is_host_part(m, ch) != part && !fits_scheme(m->nodes[ch].name, base)))
                continue;
            out[n] = ch;
            level[n++] = level[head] + 1;
        }
        head++;
    }
    return n;
}

int ge_is_toplevel(const gen_map_t *m, const uint32_t *mem, uint32_t nmem, uint32_t k)
{
    const gen_node_t *node = &m->nodes[mem[k]];
    uint32_t j, i;

    for (j = 0; j < node->ncontribs; j++) {
        if (node->contribs[j].is_thread)
            continue;
        for (i = 0; i < nmem; i++)
            if (mem[i] == node->contribs[j].id)
                return 0;
    }
    return 1;
}

typedef struct rename {
    char **slot;
    char  *name;
} rename_t;

/* Adds the renames of member n (node name, and proxies "pX.<old>" on its
 * edge to its parent). */
static int plan_rename(gen_map_t *m, uint32_t n, const char *newname, rename_t *r, uint32_t *nr)
{
    gen_node_t *node = &m->nodes[n];
    size_t ol = strlen(node->name);
    uint32_t k;

    if ((r[*nr].name = strdup(newname)) == NULL)
        return -1;
    r[(*nr)++].slot = &node->name;
    if (node->parent == GEN_NONE)
        return 0;
    {
        gen_contrib_t *c = &m->nodes[node->parent].contribs[ge_contrib_index(m, n)];

        for (k = 0; k < c->nroute; k++) {
            char *pn = c->route[k].name, *s;
            size_t pl = strlen(pn);

            if (pl <= ol + 1 || pn[pl - ol - 1] != '.' || strcmp(pn + pl - ol, node->name) != 0)
                continue;
            if (asprintf(&s, "%.*s%s", (int)(pl - ol), pn, newname) < 0)
                return -1;
            r[*nr].name = s;
            r[(*nr)++].slot = &c->route[k].name;
        }
    }
    return 0;
}

static cm_status_t apply_renames(gen_map_t *m, rename_t *r, uint32_t nr, const char *op,
                                 cm_err_t *err)
{
    cm_status_t st = CM_OK;
    uint32_t i;

    for (i = 0; i < nr; i++) {       /* free the old names first: no clash among them */
        free(*r[i].slot);
        *r[i].slot = strdup("");
        if (*r[i].slot == NULL)
            st = CM_ERR(err, CM_ERR_NOMEM, "%s: out of memory", op);
    }
    for (i = 0; i < nr && st == CM_OK; i++) {
        if (gen_map_name_used(m, r[i].name)) {
            st = CM_ERR(err, CM_ERR_NAME, "%s: the name '%s' is taken", op, r[i].name);
            break;
        }
        free(*r[i].slot);
        *r[i].slot = r[i].name;
        r[i].name = NULL;
    }
    for (i = 0; i < nr; i++)
        free(r[i].name);
    return st;
}

cm_status_t ge_renumber(gen_map_t *m, uint32_t sub, const char *op, cm_err_t *err)
{
    uint32_t *mem = malloc(2 * (size_t)m->nnodes * sizeof(*mem)), *lev, nmem, k, idx = 0;
    rename_t *r = NULL;
    uint32_t nr = 0;
    char base[256], want[300];
    int cr;

    cm_status_t st = CM_OK;

    if (mem == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "%s: out of memory", op);
    lev = mem + m->nnodes;
    nmem = ge_members(m, sub, mem, lev);
    scheme_of(m->nodes[sub].name, base, sizeof(base), &cr);
    /* a rename per member and per proxy at most */
    if ((r = calloc((size_t)nmem + gen_map_nwrappers(m), sizeof(*r))) == NULL) {
        free(mem);
        return CM_ERR(err, CM_ERR_NOMEM, "%s: out of memory", op);
    }
    for (k = 1; k < nmem; k++) {
        const char *name = m->nodes[mem[k]].name;

        idx = lev[k] == lev[k - 1] ? idx + 1 : 0;
        snprintf(want, sizeof(want), "%s%u.%u", base, lev[k], idx);
        if (!fits_scheme(name, base) || strcmp(name, want) == 0)
            continue;
        if (plan_rename(m, mem[k], want, r, &nr) != 0) {
            st = CM_ERR(err, CM_ERR_NOMEM, "%s: out of memory", op);
            break;
        }
    }
    (void)cr;
    if (st == CM_OK)
        st = apply_renames(m, r, nr, op, err);
    else
        for (k = 0; k < nr; k++)
            free(r[k].name);
    free(r);
    free(mem);
    return st;
}

/* ---- contributors ------------------------------------------------------- */

uint32_t ge_contrib_key(const gen_map_t *m, const gen_contrib_t *c)
{
    return c->is_thread ? c->id : gen_node_min_thread(m, c->id);
}

uint32_t ge_contrib_index(const gen_map_t *m, uint32_t child)
{
    const gen_node_t *p = &m->nodes[m->nodes[child].parent];
    uint32_t j;

    for (j = 0; j < p->ncontribs; j++)
        if (!p->contribs[j].is_thread && p->contribs[j].id == child)
            return j;
    return GEN_NONE;
}

int ge_insert_contrib(gen_map_t *m, uint32_t to, const gen_contrib_t *c)
{
    gen_node_t *t = &m->nodes[to];
    uint32_t key, pos;

    if (gen_contribs_reserve(t) != 0)
        return -1;
    key = ge_contrib_key(m, c);
    for (pos = t->ncontribs; pos > 0 && ge_contrib_key(m, &t->contribs[pos - 1]) > key; pos--)
        ;
    memmove(&t->contribs[pos + 1], &t->contribs[pos],
            (size_t)(t->ncontribs - pos) * sizeof(*t->contribs));
    t->contribs[pos] = *c;
    t->ncontribs++;
    if (!c->is_thread)
        m->nodes[c->id].parent = to;
    return 0;
}

int ge_move_contrib(gen_map_t *m, uint32_t from, uint32_t j, uint32_t to)
{
    gen_node_t *t = &m->nodes[to], *f;
    gen_contrib_t c;

    if (gen_contribs_reserve(t) != 0)     /* room first: nothing changes on failure */
        return -1;
    f = &m->nodes[from];
    c = f->contribs[j];
    memmove(&f->contribs[j], &f->contribs[j + 1],
            (size_t)(f->ncontribs - j - 1) * sizeof(*f->contribs));
    f->ncontribs--;
    return ge_insert_contrib(m, to, &c);
}

int ge_is_cr_gred(const gen_map_t *m, uint32_t n)
{
    return m->nodes[n].kind == GEN_GRED && !gen_node_is_host_part(m, n);
}

void ge_drop_node(gen_map_t *m, uint32_t n)
{
    gen_node_t *node = &m->nodes[n];
    uint32_t j;

    for (j = 0; j < node->ncontribs; j++) {
        gen_route_clear(&node->contribs[j]);
        if (!node->contribs[j].is_thread)
            m->nodes[node->contribs[j].id].parent = GEN_NONE;
    }
    node->ncontribs = 0;
    gen_detach_node(m, n);
    gen_node_remove(m, n);
}
