/*
 * gen_edit_int.h - what the files of gen_edit*.c share (not an API).
 *
 * Every operator of gen/api/gen_edit.h works the same way: it checks its
 * arguments on the model, clones the model (ge_clone), reshapes the clone
 * with the building blocks of gen_map.h, and hands it to ge_commit, which
 * fixes the routes, appends the header line, validates the result with the
 * runtime's parser (gen_map_render) and only then swaps the clone into the
 * caller's model.  A failure anywhere leaves the caller's model as it was.
 */
#ifndef GEN_EDIT_INT_H
#define GEN_EDIT_INT_H

#include <stdint.h>
#include "common/cm_err.h"
#include "gen/api/gen_map.h"

/* A deep copy of m, or NULL when out of memory. */
gen_map_t *ge_clone(const gen_map_t *m);

/* Fixes c's routes, appends the header line (printf format), validates c
 * and swaps it into m.  c is destroyed in every case.  `op` names the
 * operator in an error. */
cm_status_t ge_commit(gen_map_t *m, gen_map_t *c, const char *op, cm_err_t *err,
                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* The node called `name` (CM_ERR_NAME if there is none; CM_ERR_INVALID if it
 * is a proxy, or not of kind `want` when want_gred). */
cm_status_t ge_node(const gen_map_t *m, const char *op, const char *name, int want_gred,
                    uint32_t *n_p, cm_err_t *err);
/* The host called `name`, or whose label is `name` ("3" for host3). */
cm_status_t ge_host(const gen_map_t *m, const char *op, const char *name, uint32_t *h_p,
                    cm_err_t *err);

/* The members of subtree `sub` (gen_edit.h, add-level): sub and the greds
 * of its part reached from it through such greds (a gred of the other part
 * too when its name is of sub's convention: a group of the root host's
 * threads alone under a cr0 is host part by its placement but a level of
 * the cluster root by its name), in breadth-first order
 * (so each level left to right).  Fills out[] (room for m->nnodes) and
 * level[] (0 for sub); returns the count. */
uint32_t ge_members(const gen_map_t *m, uint32_t sub, uint32_t *out, uint32_t *level);
/* 1 if member out[k] has no member among its contributors. */
int ge_is_toplevel(const gen_map_t *m, const uint32_t *mem, uint32_t nmem, uint32_t k);

/* Gives the members of `sub` the names of its convention ("crL.i" under a
 * "cr0", else "SUB.lL.i"), numbering each level left to right; members
 * named otherwise keep their names.  A proxy "pX.<old>" carrying a renamed
 * member is renamed "pX.<new>".  CM_ERR_NAME when a new name is taken. */
cm_status_t ge_renumber(gen_map_t *m, uint32_t sub, const char *op, cm_err_t *err);

/* Moves contributor j of node `from` (with its route) to node `to`, in
 * thread order.  -1 when out of memory (nothing changed). */
int ge_move_contrib(gen_map_t *m, uint32_t from, uint32_t j, uint32_t to);

/* Inserts contributor *c (its route taken over) into node `to`'s
 * contributors in thread order; a node contributor's parent becomes `to`.
 * -1 when out of memory (nothing changed). */
int ge_insert_contrib(gen_map_t *m, uint32_t to, const gen_contrib_t *c);

/* The index of node `child` among its parent's contributors. */
uint32_t ge_contrib_index(const gen_map_t *m, uint32_t child);

/* 1 if node n is a gred of the cluster-root part (not a host subtree). */
int ge_is_cr_gred(const gen_map_t *m, uint32_t n);

/* Empties node n (routes freed, node contributors' parent cleared) and
 * detaches it from its parent; then removes it.  Indices above n move down. */
void ge_drop_node(gen_map_t *m, uint32_t n);

/* Thread order key of contributor c. */
uint32_t ge_contrib_key(const gen_map_t *m, const gen_contrib_t *c);

#endif /* GEN_EDIT_INT_H */
