/*
 * viz_algo_int.h - how every chart names what an algorithm node runs.
 */
#ifndef VIZ_ALGO_INT_H
#define VIZ_ALGO_INT_H

#include <stddef.h>
#include "analyze/api/an_model.h"

/*
 * "run=clv bcast=binomial-bcast root=0 arrival=history" from the model's
 * description of a node (a database's): run, then bcast, root (the root's
 * rank in the node) and arrival where the description has them.  "" when
 * a is NULL or names no algorithm.  Truncated to len - 1 bytes.
 */
void viz_algo_text(const an_model_algo_t *a, char *buf, size_t len);

#endif /* VIZ_ALGO_INT_H */
