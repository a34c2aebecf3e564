/*
 * gen_shape_int.h - how a shape groups n contributors (gen/gen_shape.c), for
 * gen_build and its tests.  Internal to gen/ (the shapes themselves are
 * gen_shape_t in gen/api/gen_build.h).
 *
 * A plan is the greds of one subtree in breadth-first order: gred 0 is the
 * bottom one (the subtree's own name, "hN" or "cr0"), and each gred's
 * parent comes before it.  level/index give the names: level L gred i is
 * "hN.lL.i" or "crL.i", i counting the level left to right.  Members are
 * in contributor order; a member is a contributor (0 .. n-1) or a gred.
 */
#ifndef GEN_SHAPE_INT_H
#define GEN_SHAPE_INT_H

#include <stddef.h>
#include <stdint.h>
#include "common/cm_err.h"
#include "gen/api/gen_build.h"

typedef struct gen_plan_member {
    int      is_gred;
    uint32_t id;          /* a contributor index, or a gred index */
} gen_plan_member_t;

typedef struct gen_plan_gred {
    uint32_t           level;    /* 0: the bottom gred */
    uint32_t           index;    /* within its level, left to right */
    uint32_t           parent;   /* GEN_NONE for gred 0 */
    gen_plan_member_t *members;
    uint32_t           nmembers;
} gen_plan_gred_t;

typedef struct gen_plan {
    gen_plan_gred_t *greds;      /* breadth-first; none when n == 1 */
    uint32_t         ngreds;
} gen_plan_t;

/* Groups n >= 1 contributors by `shape`.  CM_ERR_NOMEM or CM_ERR_INVALID
 * (n == 0); the plan is empty then. */
cm_status_t gen_shape_plan(const gen_shape_t *shape, uint32_t n, gen_plan_t *plan,
                           cm_err_t *err);
void gen_plan_cleanup(gen_plan_t *plan);

/* The plan as brackets, contributors by index: "[[0 1 2 3] [4 5 6 7]]";
 * a lone contributor "0".  Returns the length (snprintf's rule). */
int gen_plan_format(const gen_plan_t *plan, char *buf, size_t size);

#endif /* GEN_SHAPE_INT_H */
