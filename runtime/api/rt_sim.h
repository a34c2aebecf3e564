/*
 * rt_sim.h - the inputs of the cost-model simulator (rt_sched_simulate,
 * rt_sched.h): the network's costs as a file.
 *
 * The net file (docs/netfit.md, "The net file") holds the three numbers of
 * the linear cost model: bin/netfit writes it (rt_net_write), papsim --net
 * FILE reads it (rt_net_read).  Its grammar, owned here:
 *
 *   - one KEY=VALUE a line, blanks allowed around the key, the '=' and the
 *     value; KEY alpha (seconds per message), beta (seconds per byte) or
 *     gamma (seconds per byte reduced), each exactly once, in any order;
 *     VALUE a finite number (strtod) in seconds;
 *   - 0 < alpha <= RT_NET_ALPHA_MAX, 0 < beta <= RT_NET_BETA_MAX,
 *     0 <= gamma <= RT_NET_GAMMA_MAX;
 *   - blank lines and lines whose first non-blank is '#' are comments (a
 *     comment cannot follow a value); a CR before the newline is ignored,
 *     any other control byte is an error.
 *
 * Pure C: no MPI, no threads; every function is reentrant.
 */
#ifndef RT_SIM_H
#define RT_SIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "common/cm_err.h"

/* ---- the net file (runtime/algo/sim_net.c) ------------------------------ */

#define RT_NET_ALPHA_MAX 1000.0   /* s per message */
#define RT_NET_BETA_MAX  1.0      /* s per byte */
#define RT_NET_GAMMA_MAX 1.0      /* s per byte reduced */

typedef struct rt_net {
    double alpha;   /* s per message */
    double beta;    /* s per byte */
    double gamma;   /* s per byte reduced */
} rt_net_t;

/*
 * Writes the three KEY=VALUE lines of net (%.6g) to fp, after whatever the
 * caller wrote (netfit's comment lines).  The values are written as given:
 * rt_net_read refuses those outside the ranges above.  CM_ERR_IO if a write
 * fails (fp's error flag), the message the system's reason alone.
 */
cm_status_t rt_net_write(FILE *fp, const rt_net_t *net, cm_err_t *err);

/*
 * Reads the net file at path into *net (set only on success).  Errors, each
 * once, at path:line:col (columns in bytes from 1): CM_ERR_SYNTAX for a line
 * that is not KEY=VALUE, a value that is no number, a key given twice, a
 * control byte, a missing key (at the file as a whole); CM_ERR_NAME for an
 * unknown key; CM_ERR_RANGE for a value out of range; CM_ERR_IO for a file
 * that cannot be opened or read (the system's reason).
 */
cm_status_t rt_net_read(const char *path, rt_net_t *net, cm_err_t *err);

/* The same from an open stream; path names it in the messages. */
cm_status_t rt_net_read_fp(FILE *fp, const char *path, rt_net_t *net, cm_err_t *err);

#endif /* RT_SIM_H */
