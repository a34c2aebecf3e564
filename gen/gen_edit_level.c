/*
 * gen_edit_level.c - add-level and remove-level (gen/api/gen_edit.h):
 * Figure 9 of the PATHS/EventSpace paper (section 6.1), a level added to or
 * removed from a subtree.
 *
 * The subtree's members are found breadth first (ge_members).  add-level
 * cuts the contributors of each toplevel member into consecutive groups
 * (thread order), each group a new gred on the member's host that takes
 * the contributors with their routes; the new greds get provisional names
 * of the convention's form and ge_renumber gives every member of the
 * subtree its name by level, left to right.  remove-level hands the
 * contributors of each toplevel member to the member below (in place,
 * routes kept) and removes it, then renumbers the same way, so that the
 * two are inverse, names included.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen/api/gen_edit.h"
#include "gen/gen_edit_int.h"

/* Sizes of the groups of n contributors: fanout 0 halves (first the larger),
 * else groups of `fanout`, the last smaller.  Returns the group count. */
static uint32_t group_sizes(uint32_t n, uint32_t fanout, uint32_t *sizes)
{
    uint32_t g = 0, left = n;

    if (fanout == 0) {
        sizes[0] = (n + 1) / 2;
        sizes[1] = n / 2;
        return 2;
    }
    while (left > 0) {
        sizes[g] = left < fanout ? left : fanout;
        left -= sizes[g++];
    }
    return g;
}

/* Groups the contributors of member t (at level lev) into new greds named
 * provisionally base<lev+1>.<serial>.  Returns the number of greds made,
 * or -1 when out of memory. */
static int group_member(gen_map_t *c, uint32_t t, uint32_t lev, uint32_t fanout,
                        const char *base, uint32_t *serial)
{
    uint32_t n = c->nodes[t].ncontribs, *sizes, ng, g, start = 0, k, made = 0;
    char name[300];

    if (n <= 2 || (fanout > 0 && n <= fanout))
        return 0;
    if ((sizes = malloc((size_t)(n + 2) * sizeof(*sizes))) == NULL)
        return -1;
    ng = group_sizes(n, fanout, sizes);
    for (g = 0; g < ng; g++) {
        uint32_t gn;

        if (sizes[g] < 2) {          /* a group of one is not wrapped */
            start++;
            continue;
        }
        snprintf(name, sizeof(name), "%s%u.%u", base, lev + 1, 1000000 + (*serial)++);
        gn = gen_node_add(c, GEN_GRED, name, c->nodes[t].host, NULL, NULL);
        if (gn == GEN_NONE)
            goto oom;
        for (k = 0; k < sizes[g]; k++)
            if (ge_move_contrib(c, t, start, gn) != 0)
                goto oom;
        if (gen_attach_node(c, t, gn) != 0)
            goto oom;
        start++;
        made++;
    }
    free(sizes);
    return (int)made;
oom:
    free(sizes);
    return -1;
}

static void base_of(const char *sub, char *base, size_t size)
{
    size_t len = strlen(sub);

    if (strcmp(sub, "cr0") == 0 || (len > 4 && strcmp(sub + len - 4, ".cr0") == 0))
        snprintf(base, size, "%.*scr", (int)(len - 3), sub);
    else
        snprintf(base, size, "%s.l", sub);
}

cm_status_t gen_edit_add_level(gen_map_t *m, const char *subtree, uint32_t fanout,
                               cm_err_t *err)
{
    uint32_t sub, *mem, *lev, nmem, k, serial = 0, sub_c;
    gen_map_t *c;
    char base[256];
    int made = 0, r;
    cm_status_t st;

    if ((st = ge_node(m, "add-level", subtree, 1, &sub, err)) != CM_OK)
        return st;
    if (fanout == 1)
        return CM_ERR(err, CM_ERR_INVALID, "add-level %s: a fan-out of 1 groups nothing "
                      "(give 2 or more, or 0 to halve)", subtree);
    if ((c = ge_clone(m)) == NULL ||
        (mem = malloc(2 * (size_t)m->nnodes * sizeof(*mem))) == NULL) {
        gen_map_destroy(c);
        return CM_ERR(err, CM_ERR_NOMEM, "add-level: out of memory");
    }
    lev = mem + m->nnodes;
    nmem = ge_members(c, sub, mem, lev);
    base_of(subtree, base, sizeof(base));
    for (k = 0; k < nmem; k++) {
        if (!ge_is_toplevel(c, mem, nmem, k))
            continue;
        if ((r = group_member(c, mem[k], lev[k], fanout, base, &serial)) < 0)
            break;
        made += r;
    }
    free(mem);
    if (k < nmem) {
        gen_map_destroy(c);
        return CM_ERR(err, CM_ERR_NOMEM, "add-level: out of memory");
    }
    if (made == 0) {
        gen_map_destroy(c);
        if (fanout > 2)
            return CM_ERR(err, CM_ERR_INVALID, "add-level %s %u: nothing to group: no "
                          "toplevel gred of the subtree has more than %u contributors",
                          subtree, fanout, fanout);
        return CM_ERR(err, CM_ERR_INVALID, "add-level %s: nothing to group: no toplevel "
                      "gred of the subtree has more than 2 contributors", subtree);
    }
    sub_c = gen_node_find(c, subtree);
    if ((st = ge_renumber(c, sub_c, "add-level", err)) != CM_OK) {
        gen_map_destroy(c);
        return st;
    }
    if (fanout > 0)
        return ge_commit(m, c, "add-level", err, "pathgen edit: add-level %s %u", subtree,
                         fanout);
    return ge_commit(m, c, "add-level", err, "pathgen edit: add-level %s", subtree);
}

/* Checks that every toplevel member but sub sits on its parent's host;
 * fills names[] with them.  Returns their count, or GEN_NONE (err set). */
static uint32_t removable(const gen_map_t *m, uint32_t sub, const char *subtree,
                          char **names, cm_err_t *err)
{
    uint32_t *mem = malloc(2 * (size_t)m->nnodes * sizeof(*mem)), *lev, nmem, k, nt = 0;

    if (mem == NULL) {
        CM_ERR(err, CM_ERR_NOMEM, "remove-level: out of memory");
        return GEN_NONE;
    }
    lev = mem + m->nnodes;
    nmem = ge_members(m, sub, mem, lev);
    if (nmem == 1) {
        free(mem);
        CM_ERR(err, CM_ERR_INVALID, "remove-level %s: the subtree has one level: "
               "nothing to remove", subtree);
        return GEN_NONE;
    }
    for (k = 1; k < nmem; k++) {
        const gen_node_t *t = &m->nodes[mem[k]], *p = &m->nodes[t->parent];

        if (!ge_is_toplevel(m, mem, nmem, k))
            continue;
        if (t->host != p->host) {
            CM_ERR(err, CM_ERR_INVALID, "remove-level %s: '%s' is on %s and the gred below "
                   "it, '%s', on %s: move it back first", subtree, t->name,
                   m->hosts[t->host], p->name, m->hosts[p->host]);
            free(mem);
            return GEN_NONE;
        }
        names[nt++] = t->name;
    }
    free(mem);
    return nt;
}

cm_status_t gen_edit_remove_level(gen_map_t *m, const char *subtree, cm_err_t *err)
{
    uint32_t sub, nt, k, t, p;
    char **names;
    gen_map_t *c;
    cm_status_t st;

    if ((st = ge_node(m, "remove-level", subtree, 1, &sub, err)) != CM_OK)
        return st;
    if ((names = malloc(((size_t)m->nnodes + 1) * sizeof(*names))) == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "remove-level: out of memory");
    if ((nt = removable(m, sub, subtree, names, err)) == GEN_NONE) {
        free(names);
        return err ? err->status : CM_ERR_INVALID;
    }
    if ((c = ge_clone(m)) == NULL) {
        free(names);
        return CM_ERR(err, CM_ERR_NOMEM, "remove-level: out of memory");
    }
    for (k = 0; k < nt; k++) {
        t = gen_node_find(c, names[k]);
        p = c->nodes[t].parent;
        while (c->nodes[t].ncontribs > 0)
            if (ge_move_contrib(c, t, 0, p) != 0)
                break;
        if (c->nodes[t].ncontribs > 0)
            break;
        ge_drop_node(c, t);
    }
    free(names);
    if (k < nt) {
        gen_map_destroy(c);
        return CM_ERR(err, CM_ERR_NOMEM, "remove-level: out of memory");
    }
    if ((st = ge_renumber(c, gen_node_find(c, subtree), "remove-level", err)) != CM_OK) {
        gen_map_destroy(c);
        return st;
    }
    return ge_commit(m, c, "remove-level", err, "pathgen edit: remove-level %s", subtree);
}
