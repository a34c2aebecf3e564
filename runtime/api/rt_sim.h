/*
 * rt_sim.h - the inputs of the cost-model simulator (rt_sched_simulate,
 * rt_sched.h): the network's costs as a file, and arrival patterns.
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
 * Arrival patterns: when each of P ranks arrives at a collective, as papsim
 * --arrival names them (docs/algorithms.md), in integer nanosecond ticks,
 * the unit the PAP-aware generators take.
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

/* ---- arrival patterns (runtime/algo/sim_arrival.c) ---------------------- */

#define RT_SIM_ARRIVAL_MS_MAX 1e9     /* the spread's bound: ticks stay within int64 */

typedef enum rt_sim_arrival_kind {
    RT_SIM_ARRIVAL_NONE,      /* every rank at 0 */
    RT_SIM_ARRIVAL_ONE_LATE,  /* rank `rank` at ms, the others at 0 */
    RT_SIM_ARRIVAL_RANDOM,    /* uniform in [0, ms), splitmix64 from `seed` */
    RT_SIM_ARRIVAL_SORTED,    /* rank r at r * ms / (P - 1) */
    RT_SIM_ARRIVAL_REVERSED   /* rank r at (P - 1 - r) * ms / (P - 1) */
} rt_sim_arrival_kind_t;

typedef struct rt_sim_arrival {
    rt_sim_arrival_kind_t kind;
    double                ms;    /* the spread, 0..RT_SIM_ARRIVAL_MS_MAX milliseconds */
    int32_t               rank;  /* one-late: the late rank */
    uint64_t              seed;  /* random: the generator's seed */
} rt_sim_arrival_t;

/*
 * Fills ticks[0..nranks-1] with each rank's arrival in nanoseconds (the ms
 * of the pattern, rounded to the nearest tick).  A given seed gives the same
 * vector everywhere.  CM_ERR_RANGE (ticks untouched) for nranks < 1, ms
 * outside [0, RT_SIM_ARRIVAL_MS_MAX], or one-late's rank not a rank of nranks.
 */
cm_status_t rt_sim_arrival_make(const rt_sim_arrival_t *a, int32_t nranks, int64_t *ticks,
                                cm_err_t *err);

/* The pattern in words into buf (NUL-terminated, cut if too small), as papsim
 * prints it after its name: " (rank 1 at 5 ms, the others at 0)",
 * " (uniform in [0, 2] ms, seed 7)", " (all at 0)", ... */
void rt_sim_arrival_describe(const rt_sim_arrival_t *a, char *buf, size_t size);

#endif /* RT_SIM_H */
