/*
 * gen_edit_move.c - the operators that change where wrappers run
 * (gen/api/gen_edit.h): move, split and unsplit (Figure 15 of the
 * PATHS/EventSpace paper: toplevel wrappers moved to other hosts, section
 * 6.2), root (another root host, section 7.2), add-link and remove-link
 * (Figure 11: more network links into a host subtree, section 6.1).
 *
 * Each sets the hosts of some nodes on a clone of the model (and, for the
 * links, the routes of one gred's contributors); ge_commit then makes the
 * routes match the placement (gen_map_fix_routes: proxies kept where they
 * still fit, dropped where an edge no longer crosses hosts, new ones named
 * by the convention) and validates the result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen/api/gen_edit.h"
#include "gen/gen_edit_int.h"

cm_status_t gen_edit_move(gen_map_t *m, const char *wrapper, const char *host, cm_err_t *err)
{
    uint32_t n, h;
    gen_map_t *c;
    cm_status_t st;

    if ((st = ge_node(m, "move", wrapper, 0, &n, err)) != CM_OK)
        return st;
    if (m->nodes[n].kind == GEN_ALGO)
        return CM_ERR(err, CM_ERR_INVALID, "move %s: the algorithm node spans the hosts; "
                      "it cannot move", wrapper);
    if ((st = ge_host(m, "move", host, &h, err)) != CM_OK)
        return st;
    if (m->nodes[n].host == h)
        return CM_ERR(err, CM_ERR_INVALID, "move %s: it is on %s already", wrapper,
                      m->hosts[h]);
    if ((c = ge_clone(m)) == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "move: out of memory");
    c->nodes[n].host = h;
    return ge_commit(m, c, "move", err, "pathgen edit: move %s %s", wrapper, m->hosts[h]);
}

/* ---- split -------------------------------------------------------------- */

/* The host subtrees below cluster-root gred n: their hosts are marked in
 * seen[] (counted in *count), the first and last in thread order noted. */
static void tops_below(const gen_map_t *m, uint32_t n, char *seen, uint32_t *count,
                       uint32_t *first, uint32_t *last)
{
    const gen_node_t *node = &m->nodes[n];
    uint32_t j, h;

    for (j = 0; j < node->ncontribs; j++) {
        const gen_contrib_t *c = &node->contribs[j];

        if (!c->is_thread && ge_is_cr_gred(m, c->id)) {
            tops_below(m, c->id, seen, count, first, last);
            continue;
        }
        h = gen_contrib_host(m, c);
        if (!seen[h]) {
            seen[h] = 1;
            (*count)++;
        }
        if (*first == GEN_NONE)
            *first = h;
        *last = h;
    }
}

/* Sets the host of cluster-root gred n and of the cluster-root greds above
 * it to h; returns how many changed. */
static uint32_t place_part(gen_map_t *m, uint32_t n, uint32_t h)
{
    const gen_node_t *node = &m->nodes[n];
    uint32_t j, moved = m->nodes[n].host != h;

    for (j = 0; j < node->ncontribs; j++)
        if (!node->contribs[j].is_thread && ge_is_cr_gred(m, node->contribs[j].id))
            moved += place_part(m, node->contribs[j].id, h);
    m->nodes[n].host = h;
    return moved;
}

/* Fills target[n] with the host each maximal gred of at most `span` host
 * subtrees moves to (GEN_NONE for the others), below node n. */
static void split_targets(const gen_map_t *m, uint32_t n, uint32_t span, int to_last,
                          uint32_t root_host, char *seen, uint32_t *target)
{
    const gen_node_t *node = &m->nodes[n];
    uint32_t j, count = 0, first = GEN_NONE, last = GEN_NONE;

    for (j = 0; j < node->ncontribs; j++) {
        uint32_t ch = node->contribs[j].id;

        if (node->contribs[j].is_thread || !ge_is_cr_gred(m, ch))
            continue;
        memset(seen, 0, m->nhosts);
        count = 0;
        first = last = GEN_NONE;
        tops_below(m, ch, seen, &count, &first, &last);
        if (count > span)
            split_targets(m, ch, span, to_last, root_host, seen, target);
        else if (!seen[root_host] && first != GEN_NONE)
            target[ch] = to_last ? last : first;
    }
}

static cm_status_t need_core(const gen_map_t *m, const char *op, cm_err_t *err)
{
    if (m->root == GEN_NONE || m->nodes[m->root].kind != GEN_CORE)
        return CM_ERR(err, CM_ERR_INVALID, "%s: the tree's root is an algorithm node: "
                      "there is no cluster-root subtree", op);
    return CM_OK;
}

cm_status_t gen_edit_split(gen_map_t *m, uint32_t span, int to_last, cm_err_t *err)
{
    uint32_t *target, n, moved = 0;
    char *seen;
    gen_map_t *c;
    cm_status_t st;

    if ((st = need_core(m, "split", err)) != CM_OK)
        return st;
    if (span == 0)
        return CM_ERR(err, CM_ERR_INVALID, "split: a span of 0 host subtrees moves nothing");
    if ((c = ge_clone(m)) == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "split: out of memory");
    target = malloc((size_t)c->nnodes * sizeof(*target));
    seen = malloc(c->nhosts + 1);
    if (target == NULL || seen == NULL) {
        free(target);
        free(seen);
        gen_map_destroy(c);
        return CM_ERR(err, CM_ERR_NOMEM, "split: out of memory");
    }
    for (n = 0; n < c->nnodes; n++)
        target[n] = GEN_NONE;
    split_targets(c, c->root, span, to_last, c->nodes[c->root].host, seen, target);
    for (n = 0; n < c->nnodes; n++)
        if (target[n] != GEN_NONE)
            moved += place_part(c, n, target[n]);
    free(target);
    free(seen);
    if (moved == 0) {
        gen_map_destroy(c);
        return CM_ERR(err, CM_ERR_INVALID, "split %u %s: nothing to move: no cluster-root "
                      "gred of at most %u host subtrees is off its place", span,
                      to_last ? "last" : "first", span);
    }
    return ge_commit(m, c, "split", err, "pathgen edit: split %u %s", span,
                     to_last ? "last" : "first");
}

cm_status_t gen_edit_unsplit(gen_map_t *m, cm_err_t *err)
{
    uint32_t n, h, moved = 0;
    char *cr;
    gen_map_t *c;
    cm_status_t st;

    if ((st = need_core(m, "unsplit", err)) != CM_OK)
        return st;
    h = m->nodes[m->root].host;
    if ((cr = malloc(m->nnodes + 1)) == NULL || (c = ge_clone(m)) == NULL) {
        free(cr);
        return CM_ERR(err, CM_ERR_NOMEM, "unsplit: out of memory");
    }
    for (n = 0; n < m->nnodes; n++)   /* decided before any host changes */
        cr[n] = (char)ge_is_cr_gred(m, n);
    for (n = 0; n < m->nnodes; n++)
        if (cr[n] && c->nodes[n].host != h) {
            c->nodes[n].host = h;
            moved++;
        }
    free(cr);
    if (moved == 0) {
        gen_map_destroy(c);
        return CM_ERR(err, CM_ERR_INVALID, "unsplit: every cluster-root gred is on the "
                      "root's host %s already", m->hosts[h]);
    }
    return ge_commit(m, c, "unsplit", err, "pathgen edit: unsplit");
}

cm_status_t gen_edit_root(gen_map_t *m, const char *host, cm_err_t *err)
{
    uint32_t n, h, old;
    gen_map_t *c;
    cm_status_t st;

    if ((st = need_core(m, "root", err)) != CM_OK)
        return st;
    if ((st = ge_host(m, "root", host, &h, err)) != CM_OK)
        return st;
    old = m->nodes[m->root].host;
    if (h == old)
        return CM_ERR(err, CM_ERR_INVALID, "root %s: the root is on %s already", host,
                      m->hosts[h]);
    if ((c = ge_clone(m)) == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "root: out of memory");
    for (n = 0; n < m->nnodes; n++)
        if (m->nodes[n].host == old && (n == m->root || ge_is_cr_gred(m, n)))
            c->nodes[n].host = h;
    return ge_commit(m, c, "root", err, "pathgen edit: root %s", m->hosts[h]);
}

/* ---- links -------------------------------------------------------------- */

/* Checks that n is the bottom gred of a host subtree whose parent is on
 * another host. */
static cm_status_t link_target(const gen_map_t *m, const char *subtree, uint32_t n,
                               cm_err_t *err)
{
    uint32_t p = m->nodes[n].parent;

    if (!gen_node_is_host_part(m, n))
        return CM_ERR(err, CM_ERR_INVALID, "add-link %s: not a host subtree (its "
                      "contributors are not all on its host without a proxy)", subtree);
    if (p == GEN_NONE || m->nodes[p].kind == GEN_ALGO)
        return CM_ERR(err, CM_ERR_INVALID, "add-link %s: its parent is %s: there is no "
                      "network link to add", subtree,
                      p == GEN_NONE ? "none" : "the algorithm node");
    if (gen_node_is_host_part(m, p))
        return CM_ERR(err, CM_ERR_INVALID, "add-link %s: not the bottom gred of its host "
                      "subtree (its parent '%s' is in it)", subtree, m->nodes[p].name);
    if (m->nodes[p].host == m->nodes[n].host)
        return CM_ERR(err, CM_ERR_INVALID, "add-link %s: its parent '%s' is on its host %s: "
                      "there is no network link to add", subtree, m->nodes[p].name,
                      m->hosts[m->nodes[n].host]);
    return CM_OK;
}

cm_status_t gen_edit_add_link(gen_map_t *m, const char *subtree, cm_err_t *err)
{
    uint32_t n, p, j, h;
    gen_map_t *c;
    char name[300];
    cm_status_t st;

    if ((st = ge_node(m, "add-link", subtree, 1, &n, err)) != CM_OK)
        return st;
    if ((st = link_target(m, subtree, n, err)) != CM_OK)
        return st;
    h = m->nodes[n].host;
    p = m->nodes[n].parent;
    for (j = 0; j < m->nodes[n].ncontribs; j++) {
        snprintf(name, sizeof(name), "p%s.%u", gen_map_host_label(m, h), j);
        if (gen_map_name_used(m, name))
            return CM_ERR(err, CM_ERR_NAME, "add-link %s: the name '%s' is taken", subtree,
                          name);
    }
    if ((c = ge_clone(m)) == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "add-link: out of memory");
    gen_route_clear(&c->nodes[p].contribs[ge_contrib_index(c, n)]);
    c->nodes[n].host = c->nodes[p].host;
    for (j = 0; j < c->nodes[n].ncontribs; j++) {
        snprintf(name, sizeof(name), "p%s.%u", gen_map_host_label(c, h), j);
        if (gen_route_push(&c->nodes[n].contribs[j], name, h, NULL) != 0) {
            gen_map_destroy(c);
            return CM_ERR(err, CM_ERR_NOMEM, "add-link: out of memory");
        }
    }
    return ge_commit(m, c, "add-link", err, "pathgen edit: add-link %s", subtree);
}

cm_status_t gen_edit_remove_link(gen_map_t *m, const char *subtree, cm_err_t *err)
{
    uint32_t n, j, h = GEN_NONE;
    const gen_node_t *node;
    gen_map_t *c;
    cm_status_t st;

    if ((st = ge_node(m, "remove-link", subtree, 1, &n, err)) != CM_OK)
        return st;
    node = &m->nodes[n];
    for (j = 0; j < node->ncontribs; j++) {
        const gen_contrib_t *ct = &node->contribs[j];
        uint32_t ch = gen_contrib_host(m, ct);

        if (ct->nroute == 0 || ch == node->host || (h != GEN_NONE && ch != h))
            return CM_ERR(err, CM_ERR_INVALID, "remove-link %s: not a gred fed by links "
                          "from one other host (as add-link makes)", subtree);
        h = ch;
    }
    if (h == GEN_NONE)
        return CM_ERR(err, CM_ERR_INVALID, "remove-link %s: it has no contributors", subtree);
    if ((c = ge_clone(m)) == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "remove-link: out of memory");
    for (j = 0; j < c->nodes[n].ncontribs; j++)
        gen_route_clear(&c->nodes[n].contribs[j]);
    c->nodes[n].host = h;
    return ge_commit(m, c, "remove-link", err, "pathgen edit: remove-link %s", subtree);
}
