/*
 * gen_edit_apply.c - an edit value (gen_edit_t) applied to a model: the
 * dispatch from the typed operator to the operators of gen/api/gen_edit.h,
 * and the globs over subtrees (add-level 'h*': every host subtree's bottom
 * gred).  pathgen edit applies every call of its command line here (merge
 * aside: it loads a second tree).
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include "gen/api/gen_edit.h"
#include "gen/api/gen_map.h"

/* An operator on one subtree (a name, not a glob). */
static cm_status_t on_one(gen_map_t *m, const gen_edit_t *e, const char *name, cm_err_t *err)
{
    switch (e->op) {
    case GEN_EDIT_ADD_LEVEL:
        return gen_edit_add_level(m, name, e->num, err);
    case GEN_EDIT_REMOVE_LEVEL:
        return gen_edit_remove_level(m, name, err);
    case GEN_EDIT_ADD_LINK:
        return gen_edit_add_link(m, name, err);
    default:
        return gen_edit_remove_link(m, name, err);
    }
}

static int is_glob(const char *s)
{
    return strpbrk(s, "*?[") != NULL;
}

/* 1 if gred n is the bottom of its part (its parent is not a gred of the
 * same part): what a glob over subtrees stands for. */
static int part_bottom(const gen_map_t *m, uint32_t n)
{
    uint32_t p = m->nodes[n].parent;

    return p == GEN_NONE || m->nodes[p].kind != GEN_GRED ||
           gen_node_is_host_part(m, p) != gen_node_is_host_part(m, n);
}

/* The names a glob stands for, copied now (an edit renames and removes
 * greds): malloc'd, NULL-terminated, in node order; NULL when out of memory. */
static char **glob_names(const gen_map_t *m, const gen_edit_t *e, const char *pat)
{
    char **names = calloc(m->nnodes + 1, sizeof(*names));
    uint32_t n, nn = 0;

    if (names == NULL)
        return NULL;
    for (n = 0; n < m->nnodes; n++) {
        if (m->nodes[n].kind != GEN_GRED || fnmatch(pat, m->nodes[n].name, 0) != 0 ||
            (e->op != GEN_EDIT_REMOVE_LINK && !part_bottom(m, n)))
            continue;
        if ((names[nn] = strdup(m->nodes[n].name)) == NULL) {
            while (nn > 0)
                free(names[--nn]);
            free(names);
            return NULL;
        }
        nn++;
    }
    return names;
}

/* The operator on every gred the pattern matches, skipping those it does
 * not apply to (the model is then unchanged); at least one must take. */
static cm_status_t on_glob(gen_map_t *m, const gen_edit_t *e, const char *pat, cm_err_t *err)
{
    const char *op = gen_edit_op_name(e->op);
    char **names = glob_names(m, e, pat);
    uint32_t done = 0;
    cm_status_t st = CM_OK;
    cm_err_t last;

    if (names == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "%s: out of memory", op);
    cm_err_clear(&last);
    for (char **p = names; *p != NULL && st == CM_OK; p++) {
        if (gen_node_find(m, *p) == GEN_NONE)
            continue;                          /* removed by an earlier one */
        st = on_one(m, e, *p, &last);
        if (st == CM_ERR_INVALID)
            st = CM_OK;
        else if (st == CM_OK)
            done++;
    }
    for (char **p = names; *p != NULL; p++)
        free(*p);
    free(names);
    if (st != CM_OK) {
        if (err != NULL)
            *err = last;
        return st;
    }
    if (done == 0) {
        if (last.status != CM_OK)
            return CM_ERR(err, CM_ERR_INVALID, "%s '%s': applies to no wrapper it matches "
                          "(last: %s)", op, pat, last.msg);
        return CM_ERR(err, CM_ERR_NAME, "%s: no gred matches '%s'", op, pat);
    }
    return CM_OK;
}

/* SUBTREE...: each name or glob in turn. */
static cm_status_t on_subtrees(gen_map_t *m, const gen_edit_t *e, cm_err_t *err)
{
    cm_status_t st = CM_OK;

    for (int i = 0; i < e->nargs && st == CM_OK; i++) {
        const char *w = gen_edit_arg(e, i);
        st = is_glob(w) ? on_glob(m, e, w, err) : on_one(m, e, w, err);
    }
    return st;
}

/* algo's parameters as one line, words a blank apart. */
static cm_status_t on_algo(gen_map_t *m, const gen_edit_t *e, cm_err_t *err)
{
    char *params = malloc(e->len + 1);
    cm_status_t st;

    if (params == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "algo: out of memory");
    params[0] = '\0';
    for (int i = 0; i < e->nargs; i++) {
        if (i > 0)
            strcat(params, " ");
        strcat(params, gen_edit_arg(e, i));
    }
    st = gen_edit_algo(m, params, err);
    free(params);
    return st;
}

cm_status_t gen_edit_apply(gen_map_t *m, const gen_edit_t *e, cm_err_t *err)
{
    switch (e->op) {
    case GEN_EDIT_ADD_LEVEL:
    case GEN_EDIT_REMOVE_LEVEL:
    case GEN_EDIT_ADD_LINK:
    case GEN_EDIT_REMOVE_LINK:
        return on_subtrees(m, e, err);
    case GEN_EDIT_MOVE:
        if (e->nargs != 2)
            break;
        return gen_edit_move(m, gen_edit_arg(e, 0), gen_edit_arg(e, 1), err);
    case GEN_EDIT_SPLIT:
        return gen_edit_split(m, e->num, e->flag, err);
    case GEN_EDIT_UNSPLIT:
        return gen_edit_unsplit(m, err);
    case GEN_EDIT_ROOT:
        if (e->nargs != 1)
            break;
        return gen_edit_root(m, gen_edit_arg(e, 0), err);
    case GEN_EDIT_ALGO:
        return on_algo(m, e, err);
    case GEN_EDIT_MERGE:
        return CM_ERR(err, CM_ERR_INVALID, "merge: not an edit of one tree (gen_edit_merge)");
    }
    /* a value not made by gen_edit_parse*: its words do not fit its operator */
    return CM_ERR(err, CM_ERR_INVALID, "%s: %d words do not fit the operator",
                  gen_edit_op_name(e->op) ? gen_edit_op_name(e->op) : "?", e->nargs);
}
