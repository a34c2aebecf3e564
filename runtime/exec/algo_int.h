/*
 * algo_int.h - the schedule executor's private pieces, shared by
 * algo_run.c (compiling one rank's steps and running them over MPI) and
 * algo_plan.c (the per-host plan: cached schedules, the native path).
 *
 * A schedule's steps for one rank are compiled once into an rt__xprog_t:
 * the steps that move data (empty pieces are dropped, on both ends, so the
 * pairing of the remaining sends and receives is unchanged), grouped by
 * round, each round's receives before its sends, with element offsets
 * resolved and each receive told where it lands:
 *
 *  - in buf directly: a copy whose elements no other step of the round
 *    touches (no send reads them, no other receive writes them);
 *  - in scratch, reduced into buf as soon as it completes ("early"): a
 *    reduce whose elements no other step of the round touches;
 *  - in scratch, applied after the whole round completed, in step order:
 *    everything else (buf must not change while a send of the round may
 *    still read it).
 *
 * A sender that gives its data away (RT_STEP_MOVE) no longer holds those
 * pieces: a later receive that reduces into them must overwrite them
 * instead, as the replay verifier counts it (sched_verify.c: a MOVE empties
 * the sender's set before the round's receives are applied).  The compiler
 * follows which pieces are dead and turns such a reduce into a copy, or,
 * when only some of its pieces are dead, into parts (RT__ACT_PARTS).
 *
 * docs/runtime.md, "Running a schedule", is the long version.
 */
#ifndef RT_ALGO_INT_H
#define RT_ALGO_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "runtime/api/rt_algo_run.h"

/* rt__xop_t.act beyond RT_ACT_REDUCE / RT_ACT_COPY: a receive applied as
   parts, each a reduce or a copy (rt__xprog_t.parts). */
#define RT__ACT_PARTS 2

/* One part of an RT__ACT_PARTS receive. */
typedef struct rt__xpart {
    int64_t off;         /* first element in buf */
    int64_t n;
    int     act;         /* RT_ACT_REDUCE or RT_ACT_COPY */
} rt__xpart_t;

/* One step of the compiled program. */
typedef struct rt__xop {
    int64_t  off;        /* first element in buf */
    int64_t  n;          /* elements, > 0 */
    int64_t  scratch;    /* receive: first element in scratch; -1: lands in buf */
    int32_t  peer;
    int32_t  round;
    uint32_t step;       /* index among the rank's steps (the observer's step) */
    uint8_t  dir;        /* RT_STEP_SEND or RT_STEP_RECV */
    uint8_t  act;        /* RT_ACT_REDUCE, RT_ACT_COPY (as applied), RT__ACT_PARTS */
    uint8_t  early;      /* receive: applied when it completes, not at round end */
    uint32_t part;       /* RT__ACT_PARTS: parts[part .. part + nparts) */
    uint32_t nparts;
} rt__xop_t;

/* One rank's compiled steps (arrays grow, and are reused when rebuilt). */
typedef struct rt__xprog {
    rt__xop_t *ops;           /* round by round; receives first in each round */
    size_t     nops, ops_cap;
    size_t    *round_start;   /* nrounds + 1: ops of round i are [rs[i], rs[i+1]) */
    size_t     rs_cap;
    size_t     nrounds;       /* rounds that move data (empty ones dropped) */
    rt__xpart_t *parts;       /* of RT__ACT_PARTS receives */
    size_t     nparts, parts_cap;
    uint8_t   *dead;          /* per piece, while compiling */
    size_t     dead_cap;
    int64_t    scratch_elems; /* the largest scratch a round needs */
    size_t     max_round_ops; /* requests a round posts at most */
} rt__xprog_t;

/*
 * The messages' tag, and what a rank that waits long looks for: an auto
 * plan's candidate runs with tag 1 + 2 id + (op & 1), id its row of the
 * algorithm table (native: the table's size; rt_algo_run.h,
 * "auto plans"); a wait that lasts RT_AUTO_PROBE_NS probes every
 * RT_AUTO_PROBE_NS for a message with another candidate's tag of the same
 * parity, which means that its sender chose another candidate.  Tag 0 and
 * ntags 0 (every plan but an auto plan's candidates): no probe.
 */
typedef struct rt__xtag {
    int     tag;
    int     ntags;          /* ids to probe: the table's rows and native */
    int     foreign_tag;    /* set when the probe found one; else -1 */
    int     foreign_src;
    int64_t foreign_since;  /* when a probe first saw it (rt_wait_now_ns); 0: not yet */
} rt__xtag_t;

/* A run's working memory: scratch and request arrays (kept by a plan). */
typedef struct rt__xmem {
    unsigned char *scratch;
    size_t         scratch_bytes;
    MPI_Request   *req;
    int           *idx;
    size_t         req_cap;
    rt__xtag_t     tag;
} rt__xmem_t;

/* Probes call's communicator for another candidate's message (t->ntags > 0);
   true, with foreign_tag and foreign_src set, when one has been there for
   RT_AUTO_MISMATCH_NS while this rank still waits (a message of the next
   operation of another plan on the same communicator can be there too, but
   only until this operation ends). */
bool rt__algo_probe_foreign(MPI_Comm comm, rt__xtag_t *t);

void rt__xprog_init(rt__xprog_t *pg);
void rt__xprog_free(rt__xprog_t *pg);
/* Compiles `rank`'s steps of s (all-ranks, or only_rank == rank). */
cm_status_t rt__xprog_build(rt__xprog_t *pg, const rt_sched_t *s, int32_t rank,
                            cm_err_t *err);

void rt__xmem_init(rt__xmem_t *mem);
void rt__xmem_free(rt__xmem_t *mem);

/* Polls of a round's requests before the wait policy takes over. */
#define RT__QUICK_POLLS 16

/*
 * Runs a compiled program on buf over call->comm (the caller checked that
 * its size and rank are the schedule's: rt__algo_comm_check).  mem grows to
 * what pg needs (no allocation once it is large enough).
 */
cm_status_t rt__xprog_exec(const rt__xprog_t *pg, const rt_algo_call_t *call, void *buf,
                           rt__xmem_t *mem, cm_err_t *err);

/* Yield budget added per byte a wait moves (1 ns: 1 GB/s, below this machine's copy speed). */
#define RT__YIELD_NS_PER_BYTE 1

/* Waits until ready(arg), which tests MPI requests moving `bytes`, following
   the policy (algo_run.c says how it differs from a plain rt_wait_until). */
void rt__algo_wait(const rt_wait_policy_t *policy, uint64_t bytes, rt_wait_ready_fn_t ready,
                   void *arg);
/* The call's wait policy, or the default one (spin 50 us, yield 2 ms). */
const rt_wait_policy_t *rt__algo_policy(const rt_algo_call_t *call);

/* CM_ERR_MPI with MPI's own message for return code rc. */
cm_status_t rt__algo_mpi_err(cm_err_t *err, int rc, const char *what, int32_t peer,
                             int32_t round);

/* CM_OK if comm has `nranks` processes and this one is `rank`. */
cm_status_t rt__algo_comm_check(MPI_Comm comm, int32_t nranks, int32_t rank,
                                const char *what, cm_err_t *err);

/* ---- auto plans (algo_auto.c) ------------------------------------------ */

typedef struct rt__auto rt__auto_t;

/* An auto spec's part of a plan: its candidates' plans and the chooser. */
cm_status_t rt__auto_create(const rt_algo_spec_t *spec, int32_t rank, rt__auto_t **au_p,
                            cm_err_t *err);
void rt__auto_destroy(rt__auto_t *au);
cm_status_t rt__auto_choose(rt__auto_t *au, const rt_algo_call_t *call, int64_t count,
                            const rt_auto_choice_t **choice_p, cm_err_t *err);
cm_status_t rt__auto_run(rt__auto_t *au, const rt_algo_call_t *call, void *buf, int64_t count,
                         const rt_sched_t **sched_p, cm_err_t *err);
const rt_auto_t *rt__auto_chooser(const rt__auto_t *au);

/* A candidate's plan runs with this tag and probes for the other ntags'
   (algo_plan.c); the foreign tag its last run found, or -1, and its sender. */
void rt__algo_plan_set_tag(rt_algo_plan_t *plan, int tag, int ntags);
int  rt__algo_plan_foreign(const rt_algo_plan_t *plan, int *src);

#endif /* RT_ALGO_INT_H */
