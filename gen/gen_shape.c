/*
 * gen_shape.c - shapes: parsing "nary", "quad", "binary", "4,2", and the
 * grouping of n contributors into greds (gen/gen_shape_int.h).
 *
 * The grouping is made in two steps.  First a tree of temporary greds is
 * built the way the shape is defined (gen/api/gen_build.h): bottom up in
 * chunks of the level's fan-out for quad and fan-out lists (a chunk of one
 * is not wrapped), top down halving for binary, one gred for n-ary.  Then
 * a breadth-first walk from the top numbers the greds, so that level L
 * gred i is the i-th gred of level L from the left, as the names need.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen_shape_int.h"

/* ---- parsing and formatting --------------------------------------------- */

static int parse_fanout(const char *text, gen_shape_t *s)
{
    const char *p = text;

    s->nfanout = 0;
    while (*p != '\0') {
        unsigned long v = 0;
        int digits = 0;

        while (*p >= '0' && *p <= '9' && digits < 6) {
            v = v * 10 + (unsigned long)(*p - '0');
            p++;
            digits++;
        }
        if (digits == 0 || digits == 6 || v < 2 || s->nfanout == GEN_FANOUT_MAX)
            return -1;
        s->fanout[s->nfanout++] = (uint32_t)v;
        if (*p == ',' && p[1] != '\0')
            p++;
        else if (*p != '\0')
            return -1;
    }
    return s->nfanout > 0 ? 0 : -1;
}

cm_status_t gen_shape_parse(const char *text, const char *what, gen_shape_t *shape_p,
                            cm_err_t *err)
{
    gen_shape_t s;

    memset(&s, 0, sizeof(s));
    if (strcmp(text, "nary") == 0 || strcmp(text, "flat") == 0) {
        s.kind = GEN_SHAPE_NARY;
    } else if (strcmp(text, "quad") == 0) {
        s.kind = GEN_SHAPE_QUAD;
    } else if (strcmp(text, "binary") == 0) {
        s.kind = GEN_SHAPE_BINARY;
    } else if (text[0] >= '0' && text[0] <= '9') {
        s.kind = GEN_SHAPE_FANOUT;
        if (parse_fanout(text, &s) != 0)
            return CM_ERR(err, CM_ERR_INVALID,
                          "%s: bad fan-out list '%s' (numbers from 2 to 99999 separated "
                          "by commas, at most %d)", what, text, GEN_FANOUT_MAX);
    } else {
        return CM_ERR(err, CM_ERR_INVALID,
                      "%s: unknown shape '%s' (expected nary, flat, quad, binary or a "
                      "fan-out list such as 4,2)", what, text);
    }
    *shape_p = s;
    return CM_OK;
}

void gen_shape_format(const gen_shape_t *shape, char *buf, size_t size)
{
    size_t used = 0;

    if (size == 0)
        return;
    buf[0] = '\0';
    switch (shape->kind) {
    case GEN_SHAPE_NARY:   snprintf(buf, size, "nary");   return;
    case GEN_SHAPE_QUAD:   snprintf(buf, size, "quad");   return;
    case GEN_SHAPE_BINARY: snprintf(buf, size, "binary"); return;
    case GEN_SHAPE_FANOUT: break;
    }
    for (uint32_t i = 0; i < shape->nfanout && used < size; i++) {
        int w = snprintf(buf + used, size - used, "%s%u", i ? "," : "",
                         (unsigned)shape->fanout[i]);
        if (w < 0)
            return;
        used += (size_t)w;
    }
}

/* ---- temporary greds ------------------------------------------------------ */

typedef struct tmp_tree {
    gen_plan_gred_t *g;       /* only members/nmembers are used here */
    uint32_t         n, cap;
    int              oom;
} tmp_tree_t;

/* A new temporary gred over members[0..count-1]; returns it as a member. */
static gen_plan_member_t tmp_gred(tmp_tree_t *t, const gen_plan_member_t *members,
                                  uint32_t count)
{
    gen_plan_member_t none = { 1, 0 };
    gen_plan_gred_t *g;

    if (t->oom)
        return none;
    if (t->n == t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 16;
        gen_plan_gred_t *ng = realloc(t->g, cap * sizeof(*ng));

        if (ng == NULL) {
            t->oom = 1;
            return none;
        }
        t->g = ng;
        t->cap = cap;
    }
    g = &t->g[t->n];
    memset(g, 0, sizeof(*g));
    g->members = malloc(count * sizeof(*g->members));
    if (g->members == NULL) {
        t->oom = 1;
        return none;
    }
    memcpy(g->members, members, count * sizeof(*members));
    g->nmembers = count;
    none.id = t->n++;
    return none;
}

/* Bottom up: chunks of fanout[level] (the last repeating). */
static gen_plan_member_t group_bottom_up(tmp_tree_t *t, uint32_t n, const uint32_t *fanout,
                                         uint32_t nfanout)
{
    gen_plan_member_t *cur = malloc(n * sizeof(*cur)), top = { 0, 0 };
    uint32_t ncur = n, level = 0;

    if (cur == NULL) {
        t->oom = 1;
        return top;
    }
    for (uint32_t i = 0; i < n; i++)
        cur[i] = (gen_plan_member_t){ 0, i };
    while (ncur > 1 && !t->oom) {
        uint32_t k = fanout[level < nfanout ? level : nfanout - 1], nnext = 0;

        for (uint32_t i = 0; i < ncur; i += k) {
            uint32_t c = ncur - i < k ? ncur - i : k;

            cur[nnext++] = c == 1 ? cur[i] : tmp_gred(t, cur + i, c);
        }
        ncur = nnext;
        level++;
    }
    top = cur[0];
    free(cur);
    return top;
}

/* Top down: halves, the first the larger. */
static gen_plan_member_t group_binary(tmp_tree_t *t, uint32_t lo, uint32_t hi)
{
    gen_plan_member_t two[2];
    uint32_t half;

    if (hi - lo == 1)
        return (gen_plan_member_t){ 0, lo };
    if (hi - lo == 2) {
        two[0] = (gen_plan_member_t){ 0, lo };
        two[1] = (gen_plan_member_t){ 0, lo + 1 };
        return tmp_gred(t, two, 2);
    }
    half = (hi - lo + 1) / 2;
    two[0] = group_binary(t, lo, lo + half);
    two[1] = group_binary(t, lo + half, hi);
    return tmp_gred(t, two, 2);
}

static gen_plan_member_t group(tmp_tree_t *t, const gen_shape_t *s, uint32_t n)
{
    static const uint32_t quad = 4;

    switch (s->kind) {
    case GEN_SHAPE_QUAD:
        return group_bottom_up(t, n, &quad, 1);
    case GEN_SHAPE_BINARY:
        return group_binary(t, 0, n);
    case GEN_SHAPE_FANOUT:
        return group_bottom_up(t, n, s->fanout, s->nfanout);
    case GEN_SHAPE_NARY:
        break;
    }
    return group_bottom_up(t, n, &n, 1);   /* one chunk of all n */
}

/* ---- breadth-first numbering ---------------------------------------------- */

/* Moves the temporary greds reachable from `top` into plan, breadth first. */
static cm_status_t number_bfs(tmp_tree_t *t, uint32_t top, gen_plan_t *plan)
{
    uint32_t *tmp_of = malloc(t->n * sizeof(*tmp_of));
    uint32_t *counter = calloc((size_t)t->n + 1, sizeof(*counter));
    uint32_t next = 1;

    plan->greds = calloc(t->n, sizeof(*plan->greds));
    if (tmp_of == NULL || counter == NULL || plan->greds == NULL) {
        free(tmp_of);
        free(counter);
        free(plan->greds);
        plan->greds = NULL;
        return CM_ERR_NOMEM;
    }
    tmp_of[0] = top;
    plan->greds[0].parent = GEN_NONE;
    for (uint32_t f = 0; f < next; f++) {
        gen_plan_gred_t *src = &t->g[tmp_of[f]], *dst = &plan->greds[f];

        dst->members = src->members;          /* ownership moves */
        dst->nmembers = src->nmembers;
        src->members = NULL;
        for (uint32_t i = 0; i < dst->nmembers; i++) {
            gen_plan_member_t *mb = &dst->members[i];

            if (!mb->is_gred)
                continue;
            tmp_of[next] = mb->id;
            plan->greds[next].level = dst->level + 1;
            plan->greds[next].index = counter[dst->level + 1]++;
            plan->greds[next].parent = f;
            mb->id = next++;
        }
    }
    plan->ngreds = next;
    free(tmp_of);
    free(counter);
    return CM_OK;
}

cm_status_t gen_shape_plan(const gen_shape_t *shape, uint32_t n, gen_plan_t *plan,
                           cm_err_t *err)
{
    tmp_tree_t t;
    gen_plan_member_t top;
    cm_status_t st = CM_OK;

    memset(plan, 0, sizeof(*plan));
    if (n == 0)
        return CM_ERR(err, CM_ERR_INVALID, "a subtree needs at least one contributor");
    memset(&t, 0, sizeof(t));
    top = group(&t, shape, n);
    if (t.oom)
        st = CM_ERR_NOMEM;
    else if (top.is_gred)
        st = number_bfs(&t, top.id, plan);
    for (uint32_t i = 0; i < t.n; i++)
        free(t.g[i].members);
    free(t.g);
    if (st != CM_OK)
        return CM_ERR(err, st, "out of memory grouping %u contributors", (unsigned)n);
    return CM_OK;
}

void gen_plan_cleanup(gen_plan_t *plan)
{
    for (uint32_t i = 0; i < plan->ngreds; i++)
        free(plan->greds[i].members);
    free(plan->greds);
    memset(plan, 0, sizeof(*plan));
}

/* ---- formatting ------------------------------------------------------------ */

static void put(char *buf, size_t size, size_t *used, const char *s)
{
    size_t len = strlen(s);

    if (*used < size)
        snprintf(buf + *used, size - *used, "%s", s);
    *used += len;
}

static void format_gred(const gen_plan_t *plan, uint32_t g, char *buf, size_t size,
                        size_t *used)
{
    const gen_plan_gred_t *gr = &plan->greds[g];
    char num[16];

    put(buf, size, used, "[");
    for (uint32_t i = 0; i < gr->nmembers; i++) {
        if (i > 0)
            put(buf, size, used, " ");
        if (gr->members[i].is_gred) {
            format_gred(plan, gr->members[i].id, buf, size, used);
        } else {
            snprintf(num, sizeof(num), "%u", (unsigned)gr->members[i].id);
            put(buf, size, used, num);
        }
    }
    put(buf, size, used, "]");
}

int gen_plan_format(const gen_plan_t *plan, char *buf, size_t size)
{
    size_t used = 0;

    if (size > 0)
        buf[0] = '\0';
    if (plan->ngreds == 0)
        put(buf, size, &used, "0");
    else
        format_gred(plan, 0, buf, size, &used);
    return (int)used;
}
