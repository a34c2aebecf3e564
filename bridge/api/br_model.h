/*
 * br_model.h - a parsed pathmap as analyze's model, for drawing a tree that
 * has not run yet (`papviz tree PATHMAP`).
 *
 * bridge/ is the one place that sees both runtime's pathmap (runtime/api/
 * rt_pathmap.h, pure C) and analyze's model (analyze/api/an_model.h, plain
 * structs), so that neither of those layers has to know the other.  It sits
 * beside viz/ in the layering: tools may call it; it may include common/,
 * runtime/api/rt_pathmap.h and analyze/api/an_model.h, and nothing that
 * brings MPI, OTF2 or SQLite (make check-layers enforces this).
 */
#ifndef BR_MODEL_H
#define BR_MODEL_H

#include "analyze/api/an_model.h"
#include "common/cm_err.h"
#include "runtime/api/rt_pathmap.h"

/*
 * Fills the tree of m, an empty model from an_model_create(), from tree t of
 * the parsed pathmap pm: hosts, wrappers (kind, host, parent, level, fan-in,
 * line; part ""; an algorithm node's algo: what it runs, its root and its
 * hosts by rank), threads (entry wrapper, path length, proxies on the path)
 * and the pathmap's path and text.  Strings are copied into the model; pm and
 * t are borrowed.  Returns CM_OK, or CM_ERR_NOMEM with err set (m is then
 * partly filled and must only be closed).
 */
cm_status_t br_model_from_pathmap(an_model_t *m, const rt_pathmap_t *pm, const rt_tree_t *t,
                                  cm_err_t *err);

#endif /* BR_MODEL_H */
