/*
 * gen_edit_merge.c - the operators that replace the cross-host part of a
 * tree (gen/api/gen_edit.h): algo (an algorithm node "across" in place of
 * the core, the cluster-root greds and the proxies; docs/pathmap.md,
 * "Algorithm nodes") and merge (two clusters joined through a gateway
 * host, section 7.2 of the PATHS/EventSpace paper).
 *
 * algo collects the host subtrees' tops (the contributors of the core and
 * of the cluster-root greds that are not themselves in that part), drops
 * the cross-host nodes, and attaches the tops to the new node, a gred per
 * host when a host has several tops.  merge copies both trees but their
 * cores into a new model (hosts, names and thread ids shifted as
 * gen_edit.h says), puts the gred "mc" and a new core over the two
 * cluster roots, and gives B's cluster root its route through the gateway.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen/api/gen_edit.h"
#include "gen/gen_edit_int.h"

/* ---- algo --------------------------------------------------------------- */

static int is_cross(const gen_map_t *m, uint32_t n)
{
    return m->nodes[n].kind == GEN_CORE || ge_is_cr_gred(m, n);
}

typedef struct top {
    int      is_thread;
    uint32_t id;          /* thread id */
    char    *name;        /* a node top's name (owned by the original model) */
    uint32_t host;
} top_t;

/* The tops of the host subtrees, in the order found; returns the count. */
static uint32_t find_tops(const gen_map_t *m, top_t *tops)
{
    uint32_t n, j, nt = 0;

    for (n = 0; n < m->nnodes; n++) {
        if (!is_cross(m, n))
            continue;
        for (j = 0; j < m->nodes[n].ncontribs; j++) {
            const gen_contrib_t *c = &m->nodes[n].contribs[j];

            if (!c->is_thread && is_cross(m, c->id))
                continue;
            tops[nt].is_thread = c->is_thread;
            tops[nt].id = c->id;
            tops[nt].name = c->is_thread ? NULL : m->nodes[c->id].name;
            tops[nt++].host = gen_contrib_host(m, c);
        }
    }
    return nt;
}

static int attach_top(gen_map_t *c, uint32_t parent, const top_t *t)
{
    if (t->is_thread)
        return gen_attach_thread(c, parent, t->id, t->host);
    return gen_attach_node(c, parent, gen_node_find(c, t->name));
}

/* Attaches the tops of host h to `across`, through a gred h<label> when
 * there are several.  0, -1 out of memory, -2 the gred's name is taken. */
static int attach_host(gen_map_t *c, uint32_t across, const top_t *tops, uint32_t nt,
                       uint32_t h)
{
    uint32_t k, count = 0, g;
    char name[300];

    for (k = 0; k < nt; k++)
        count += tops[k].host == h;
    if (count == 0)
        return 0;
    if (count == 1) {
        for (k = 0; tops[k].host != h; k++)
            ;
        return attach_top(c, across, &tops[k]);
    }
    snprintf(name, sizeof(name), "h%s", gen_map_host_label(c, h));
    if (gen_map_name_used(c, name))
        return -2;
    if ((g = gen_node_add(c, GEN_GRED, name, h, NULL, NULL)) == GEN_NONE)
        return -1;
    for (k = 0; k < nt; k++)
        if (tops[k].host == h && attach_top(c, g, &tops[k]) != 0)
            return -1;
    return gen_attach_node(c, across, g);
}

/* Drops the cross-host nodes of c (those flagged in cross[], by name). */
static void drop_cross(gen_map_t *c, const gen_map_t *m, const char *cross)
{
    uint32_t n;

    for (n = 0; n < m->nnodes; n++)
        if (cross[n])
            ge_drop_node(c, gen_node_find(c, m->nodes[n].name));
}

/* "ring ..." -> "run=ring ..." (malloc'd). */
static char *algo_params(const char *params)
{
    const char *sp = strpbrk(params, " \t");
    size_t first = sp ? (size_t)(sp - params) : strlen(params);
    char *s;

    if (memchr(params, '=', first) != NULL)
        return strdup(params);
    return asprintf(&s, "run=%s", params) < 0 ? NULL : s;
}

static cm_status_t algo_build(gen_map_t *c, const gen_map_t *m, const char *params,
                              cm_err_t *err)
{
    top_t *tops = malloc(((size_t)m->nnodes + gen_map_nthreads(m) + 1) * sizeof(*tops));
    char *cross = malloc((size_t)m->nnodes + 1), comment[300];
    uint32_t nt, n, across, h, first = GEN_NONE, last = 0, nh = 0;
    int r = 0;

    if (tops == NULL || cross == NULL) {
        free(tops);
        free(cross);
        return CM_ERR(err, CM_ERR_NOMEM, "algo: out of memory");
    }
    nt = find_tops(m, tops);
    for (n = 0; n < m->nnodes; n++)
        cross[n] = (char)is_cross(m, n);
    drop_cross(c, m, cross);
    free(cross);
    for (n = 0; n < nt; n++) {
        first = tops[n].host < first ? tops[n].host : first;
        last = tops[n].host > last ? tops[n].host : last;
    }
    for (h = 0; h < m->nhosts; h++)
        for (n = 0; n < nt; n++)
            if (tops[n].host == h) {
                nh++;
                break;
            }
    snprintf(comment, sizeof(comment), "the root: spans %s-%s%s",
             first == GEN_NONE ? "" : m->hosts[first], first == GEN_NONE ? "" : m->hosts[last],
             nh == m->nhosts ? ", rank i = host i" : "");
    if (gen_map_name_used(c, "across")) {
        free(tops);
        return CM_ERR(err, CM_ERR_NAME, "algo: the name 'across' is taken");
    }
    across = gen_node_add(c, GEN_ALGO, "across", GEN_NONE, params, comment);
    c->root = across;
    for (h = 0; h < c->nhosts && r == 0 && across != GEN_NONE; h++)
        r = attach_host(c, across, tops, nt, h);
    free(tops);
    if (r == -2)
        return CM_ERR(err, CM_ERR_NAME, "algo: host %s has several subtrees and the name "
                      "'h%s' for the gred over them is taken", m->hosts[h - 1],
                      gen_map_host_label(m, h - 1));
    if (r != 0 || across == GEN_NONE)
        return CM_ERR(err, CM_ERR_NOMEM, "algo: out of memory");
    return CM_OK;
}

cm_status_t gen_edit_algo(gen_map_t *m, const char *params, cm_err_t *err)
{
    char *p = algo_params(params), *text = NULL;
    gen_map_t *c;
    cm_err_t verr;
    cm_status_t st = CM_OK;

    if (p == NULL || (c = ge_clone(m)) == NULL) {
        free(p);
        return CM_ERR(err, CM_ERR_NOMEM, "algo: out of memory");
    }
    if (m->root != GEN_NONE && m->nodes[m->root].kind == GEN_ALGO) {
        free(c->nodes[c->root].params);
        c->nodes[c->root].params = p;
        p = NULL;
    } else {
        st = algo_build(c, m, p, err);
    }
    cm_err_clear(&verr);
    if (st == CM_OK && (gen_map_fix_routes(c) != 0 || gen_map_render(c, &text, &verr) != CM_OK))
        st = CM_ERR(err, verr.status == CM_OK ? CM_ERR_NOMEM : CM_ERR_INVALID, "algo %s: %s",
                    params, verr.status == CM_OK ? "out of memory" : verr.msg);
    free(text);
    free(p);
    if (st != CM_OK) {
        gen_map_destroy(c);
        return st;
    }
    return ge_commit(m, c, "algo", err, "pathgen edit: algo %s", params);
}

/* ---- merge -------------------------------------------------------------- */

typedef struct part {
    const gen_map_t *src;
    const char      *prefix;     /* "" for none */
    uint32_t         host_off;
    uint32_t         tid_off;
    uint32_t        *map;        /* src node -> new node (GEN_NONE: the core) */
    const gen_map_t *dst;        /* the new model (its hosts' labels) */
} part_t;

/* The host of src whose label L makes name "<x>L" or "<x>L.REST" (the
 * longest such label), or GEN_NONE; *rest_p is "" or ".REST". */
static uint32_t host_named(const gen_map_t *src, const char *name, char x, const char **rest_p)
{
    uint32_t h, best = GEN_NONE;
    size_t bl = 0;

    if (name[0] != x)
        return GEN_NONE;
    for (h = 0; h < src->nhosts; h++) {
        const char *lab = gen_map_host_label(src, h);
        size_t ll = strlen(lab);

        if (strncmp(name + 1, lab, ll) == 0 && (name[1 + ll] == '\0' || name[1 + ll] == '.') &&
            (best == GEN_NONE || ll > bl)) {
            best = h;
            bl = ll;
        }
    }
    if (best != GEN_NONE)
        *rest_p = name + 1 + bl;
    return best;
}

/* A wrapper's name in the merged tree: names made from a host's label
 * (h<L>..., p<L>, p<L>.<k>, p<L>.<wrapper>) take the host's new label (and
 * the wrapper its new name); the others get "<prefix>." in front. */
static char *part_name(const part_t *pt, const char *name, int proxy)
{
    const char *rest = "", *lab;
    uint32_t h;
    char *s = NULL, *inner;

    if (pt->prefix[0] == '\0')
        return strdup(name);
    h = host_named(pt->src, name, proxy ? 'p' : 'h', &rest);
    if (h == GEN_NONE)
        return asprintf(&s, "%s.%s", pt->prefix, name) < 0 ? NULL : s;
    lab = gen_map_host_label(pt->dst, h + pt->host_off);
    if (proxy && rest[0] == '.' && gen_node_find(pt->src, rest + 1) != GEN_NONE) {
        if ((inner = part_name(pt, rest + 1, 0)) == NULL)
            return NULL;
        if (asprintf(&s, "p%s.%s", lab, inner) < 0)
            s = NULL;
        free(inner);
        return s;
    }
    return asprintf(&s, "%c%s%s", proxy ? 'p' : 'h', lab, rest) < 0 ? NULL : s;
}

/* Copies contributor *s of the part into *d (ids, hosts, thread ids and
 * proxy names remapped).  0 or -1. */
static int copy_contrib(const part_t *pt, gen_contrib_t *d, const gen_contrib_t *s)
{
    uint32_t k;
    int r = 0;

    memset(d, 0, sizeof(*d));
    d->is_thread = s->is_thread;
    d->id = s->is_thread ? s->id + pt->tid_off : pt->map[s->id];
    d->host = s->is_thread ? s->host + pt->host_off : GEN_NONE;
    for (k = 0; k < s->nroute && r == 0; k++) {
        char *name = part_name(pt, s->route[k].name, 1);

        r = name == NULL ? -1
                         : gen_route_push(d, name, s->route[k].host + pt->host_off,
                                          s->route[k].comment);
        free(name);
    }
    return r;
}

/* Copies every node of the part but its core into m; *top gets the core's
 * contributor.  0 or -1. */
static int copy_part(gen_map_t *m, part_t *pt, gen_contrib_t *top)
{
    const gen_map_t *s = pt->src;
    uint32_t n, j;

    for (n = 0; n < s->nnodes; n++) {
        char *name;

        pt->map[n] = GEN_NONE;
        if (n == s->root)
            continue;
        if ((name = part_name(pt, s->nodes[n].name, 0)) == NULL)
            return -1;
        pt->map[n] = gen_node_add(m, s->nodes[n].kind, name, s->nodes[n].host + pt->host_off,
                                  s->nodes[n].params, s->nodes[n].comment);
        free(name);
        if (pt->map[n] == GEN_NONE)
            return -1;
    }
    for (n = 0; n < s->nnodes; n++) {
        const gen_node_t *sn = &s->nodes[n];
        gen_node_t *dn;

        if (n == s->root) {
            if (sn->ncontribs != 1 || copy_contrib(pt, top, &sn->contribs[0]) != 0)
                return -1;
            continue;
        }
        dn = &m->nodes[pt->map[n]];
        if (sn->ncontribs > 0 && (dn->contribs = calloc(sn->ncontribs, sizeof(*dn->contribs))) == NULL)
            return -1;
        dn->cap = sn->ncontribs;
        for (j = 0; j < sn->ncontribs; j++) {
            if (copy_contrib(pt, &dn->contribs[j], &sn->contribs[j]) != 0)
                return -1;
            dn->ncontribs++;
            if (!sn->contribs[j].is_thread)
                m->nodes[pt->map[sn->contribs[j].id]].parent = pt->map[n];
        }
    }
    return 0;
}

static int same_str(const char *x, const char *y)
{
    return (x == NULL && y == NULL) || (x != NULL && y != NULL && strcmp(x, y) == 0);
}

static cm_status_t merge_check(const gen_map_t *a, const gen_map_t *b, const char *gateway,
                               cm_err_t *err)
{
    if (gateway == NULL || gateway[0] == '\0')
        return CM_ERR(err, CM_ERR_INVALID, "merge: a gateway host name is needed");
    if (a->root == GEN_NONE || a->nodes[a->root].kind != GEN_CORE ||
        b->root == GEN_NONE || b->nodes[b->root].kind != GEN_CORE)
        return CM_ERR(err, CM_ERR_INVALID, "merge: both trees need a core at their root "
                      "(not an algorithm node)");
    if (a->nodes[a->root].ncontribs != 1 || b->nodes[b->root].ncontribs != 1)
        return CM_ERR(err, CM_ERR_INVALID, "merge: a core with other than one contributor");
    if (!same_str(a->tree_params, b->tree_params))
        return CM_ERR(err, CM_ERR_INVALID, "merge: the trees reduce differently ('%s' and "
                      "'%s')", a->tree_params ? a->tree_params : "",
                      b->tree_params ? b->tree_params : "");
    return CM_OK;
}

/* 1 if a host name of a is among b's. */
static int hosts_clash(const gen_map_t *a, const gen_map_t *b)
{
    uint32_t i;

    for (i = 0; i < a->nhosts; i++)
        if (gen_map_host_find(b, a->hosts[i]) != GEN_NONE)
            return 1;
    return 0;
}

/* Adds a's hosts to m, renamed when `prefix` is not NULL: "host3" becomes
 * "<prefix>3", another name "<prefix>.<name>". */
static int add_hosts(gen_map_t *m, const gen_map_t *a, const char *prefix)
{
    uint32_t i;
    char *name;
    int r = 0;

    for (i = 0; i < a->nhosts && r == 0; i++) {
        const char *lab = gen_map_host_label(a, i);

        if (prefix == NULL)
            name = strdup(a->hosts[i]);
        else if (asprintf(&name, strcmp(lab, a->hosts[i]) != 0 ? "%s%s" : "%s.%s", prefix, lab) < 0)
            name = NULL;
        r = name == NULL || gen_map_host_add(m, name) == GEN_NONE ? -1 : 0;
        free(name);
    }
    return r;
}

static uint32_t max_thread(const gen_map_t *m)
{
    uint32_t n, j, best = 0;
    int any = 0;

    for (n = 0; n < m->nnodes; n++)
        for (j = 0; j < m->nodes[n].ncontribs; j++)
            if (m->nodes[n].contribs[j].is_thread) {
                if (!any || m->nodes[n].contribs[j].id > best)
                    best = m->nodes[n].contribs[j].id;
                any = 1;
            }
    return any ? best + 1 : 0;
}

/* The first name used twice (nodes and proxies), or NULL. */
static const char *dup_name(const gen_map_t *m)
{
    uint32_t n, j, k, cnt;

    for (n = 0; n < m->nnodes; n++) {
        cnt = 0;
        for (j = 0; j < m->nnodes; j++)
            cnt += strcmp(m->nodes[j].name, m->nodes[n].name) == 0;
        if (cnt > 1)
            return m->nodes[n].name;
    }
    for (n = 0; n < m->nnodes; n++)
        for (j = 0; j < m->nodes[n].ncontribs; j++)
            for (k = 0; k < m->nodes[n].contribs[j].nroute; k++) {
                const char *pn = m->nodes[n].contribs[j].route[k].name;
                uint32_t a, b, c;

                if (gen_node_find(m, pn) != GEN_NONE)
                    return pn;
                gen_map_find_proxy(m, pn, &a, &b, &c);
                if (a != n || b != j || c != k)
                    return pn;
            }
    return NULL;
}

/* Routes B's top to mc: a proxy on its host, then one on the gateway
 * unless mc is there. */
static cm_status_t gateway_route(gen_map_t *m, gen_contrib_t *top, uint32_t gw, int gateway_root,
                                 cm_err_t *err)
{
    char *p1 = NULL, *p2 = NULL;
    uint32_t h = top->is_thread ? top->host : m->nodes[top->id].host;
    cm_status_t st = CM_OK;

    gen_route_clear(top);
    if (asprintf(&p1, "p%s", gen_map_host_label(m, h)) < 0 ||
        asprintf(&p2, "p%s", gen_map_host_label(m, gw)) < 0)
        st = CM_ERR(err, CM_ERR_NOMEM, "merge: out of memory");
    else if (gen_map_name_used(m, p1) || (!gateway_root && gen_map_name_used(m, p2)))
        st = CM_ERR(err, CM_ERR_NAME, "merge: the gateway's proxy names '%s', '%s' are taken",
                    p1, p2);
    else if (gen_route_push(top, p1, h, NULL) != 0 ||
             (!gateway_root && gen_route_push(top, p2, gw, NULL) != 0))
        st = CM_ERR(err, CM_ERR_NOMEM, "merge: out of memory");
    free(p1);
    free(p2);
    return st;
}

static cm_status_t merge_build(gen_map_t *m, const gen_map_t *a, const gen_map_t *b,
                               const char *gateway, const char *pa, const char *pb,
                               int gateway_root, cm_err_t *err)
{
    part_t A = { a, pa, 0, 0, NULL, m }, B = { b, pb, a->nhosts + 1, max_thread(a), NULL, m };
    gen_contrib_t ta, tb;
    uint32_t gw = a->nhosts, mchost, core, mc;
    cm_status_t st = CM_OK;
    int rename = hosts_clash(a, b);

    memset(&ta, 0, sizeof(ta));
    memset(&tb, 0, sizeof(tb));
    if (rename && (pa[0] == '\0' || pb[0] == '\0'))
        return CM_ERR(err, CM_ERR_NAME, "merge: the trees have hosts of the same name; give "
                      "prefixes");
    if (add_hosts(m, a, rename ? pa : NULL) != 0 || gen_map_host_add(m, gateway) == GEN_NONE ||
        add_hosts(m, b, rename ? pb : NULL) != 0)
        return CM_ERR(err, CM_ERR_NOMEM, "merge: out of memory");
    if (gen_map_host_find(m, gateway) != gw)
        return CM_ERR(err, CM_ERR_NAME, "merge: the gateway '%s' is a host of a tree", gateway);
    mchost = gateway_root ? gw : a->nodes[a->root].host;
    core = gen_node_add(m, GEN_CORE, "root", mchost, NULL, a->nodes[a->root].comment);
    mc = gen_node_add(m, GEN_GRED, "mc", mchost, NULL,
                      "multi-cluster root: one contribution per cluster");
    A.map = malloc(((size_t)a->nnodes + 1) * sizeof(uint32_t));
    B.map = malloc(((size_t)b->nnodes + 1) * sizeof(uint32_t));
    if (core == GEN_NONE || mc == GEN_NONE || A.map == NULL || B.map == NULL ||
        gen_attach_node(m, core, mc) != 0 || copy_part(m, &A, &ta) != 0 ||
        copy_part(m, &B, &tb) != 0)
        st = CM_ERR(err, CM_ERR_NOMEM, "merge: out of memory");
    if (st == CM_OK)
        st = gateway_route(m, &tb, gw, gateway_root, err);
    if (st == CM_OK) {
        gen_route_clear(&ta);
        if (ge_insert_contrib(m, mc, &ta) != 0)
            st = CM_ERR(err, CM_ERR_NOMEM, "merge: out of memory");
        else
            memset(&ta, 0, sizeof(ta));
        if (st == CM_OK && ge_insert_contrib(m, mc, &tb) != 0)
            st = CM_ERR(err, CM_ERR_NOMEM, "merge: out of memory");
        else if (st == CM_OK)
            memset(&tb, 0, sizeof(tb));
    }
    gen_route_clear(&ta);
    gen_route_clear(&tb);
    free(A.map);
    free(B.map);
    return st;
}

cm_status_t gen_edit_merge(const gen_map_t *a, const gen_map_t *b, const char *gateway,
                           const char *prefix_a, const char *prefix_b, int gateway_root,
                           gen_map_t **m_p, cm_err_t *err)
{
    const char *pa = prefix_a ? prefix_a : "", *pb = prefix_b ? prefix_b : "", *dup;
    gen_map_t *m;
    char *text = NULL;
    cm_err_t verr;
    cm_status_t st;

    *m_p = NULL;
    if ((st = merge_check(a, b, gateway, err)) != CM_OK)
        return st;
    if ((m = gen_map_create()) == NULL ||
        (m->tree_name = strdup(a->tree_name ? a->tree_name : "sum")) == NULL ||
        (a->tree_params && (m->tree_params = strdup(a->tree_params)) == NULL)) {
        gen_map_destroy(m);
        return CM_ERR(err, CM_ERR_NOMEM, "merge: out of memory");
    }
    st = merge_build(m, a, b, gateway, pa, pb, gateway_root, err);
    if (st == CM_OK && (dup = dup_name(m)) != NULL)
        st = CM_ERR(err, CM_ERR_NAME, "merge: the name '%s' is in both trees; give prefixes",
                    dup);
    if (st == CM_OK && (gen_map_fix_routes(m) != 0 ||
                        gen_map_header_add(m, "pathgen edit: merge A%s%s%s and B%s%s%s through "
                                           "gateway %s%s", pa[0] ? " (prefix " : "", pa,
                                           pa[0] ? ")" : "", pb[0] ? " (prefix " : "", pb,
                                           pb[0] ? ")" : "", gateway,
                                           gateway_root ? ", root on the gateway" : "") != 0))
        st = CM_ERR(err, CM_ERR_NOMEM, "merge: out of memory");
    cm_err_clear(&verr);
    if (st == CM_OK && gen_map_render(m, &text, &verr) != CM_OK)
        st = CM_ERR(err, CM_ERR_INVALID, "merge: the result would not be a valid pathmap: %s",
                    verr.msg);
    free(text);
    if (st != CM_OK) {
        gen_map_destroy(m);
        return st;
    }
    *m_p = m;
    return CM_OK;
}
