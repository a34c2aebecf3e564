/*
 * rt_algo_run.h - running an algorithm node's collective over MPI.
 *
 * An rt_algo_plan_t is one host's side of one algorithm (an rt_algo_spec_t
 * of the pathmap, or one built by a program) on one communicator whose rank
 * i is the spec's host i.  rt_algo_plan_run performs one collective on a
 * buffer: it takes the schedule of runtime/algo for the element count (and,
 * for the PAP-aware algorithms, the hosts' arrival times), and executes
 * this rank's steps with MPI point-to-point calls, round by round: every
 * step of a round is posted (MPI_Irecv, MPI_Isend) before the round is
 * waited for, the received pieces are then reduced into the buffer or
 * copied over it as the steps say.  `native` calls MPI_Allreduce instead.
 *
 * Static schedules (ring, rd, rabenseifner, nap, the trees, the
 * broadcasts) depend only on the count: the plan generates each once, for
 * this rank only, and keeps it (a few counts, most recently used first).
 * PAP-aware ones (slt, prr, clv, clv-linear, greedy-reduce) are generated
 * per operation from the arrival vector, which must be bit-identical on
 * every rank (runtime/algo then gives every rank the same schedule); an
 * operation whose count and vector equal the previous one's (or those of
 * rt_algo_plan_prepare) reuses its schedule.
 *
 * Waiting: MPI_Testsome under rt_wait_until (spin, yield, then sleep), never
 * a blocking MPI call, so that a waiting rank does not burn its core.
 *
 * Threads: a plan is used by one thread at a time (the caller serialises;
 * the executor's operations reach an algorithm node one at a time).  The
 * communicator must be the plan's alone: the k-th send from s to d matches
 * the k-th receive at d from s (MPI's non-overtaking rule), tag 0.
 *
 * Errors: a schedule that cannot be made for this count (a precondition of
 * the algorithm) is CM_ERR_UNSUPPORTED with the generator's message, the
 * same on every rank (the inputs are the same).  MPI errors come back as
 * CM_ERR_MPI with MPI's message; the communicator should return errors
 * (MPI_ERRORS_RETURN), and the caller aborts the job (the other ranks
 * cannot recover).
 */
#ifndef RT_ALGO_RUN_H
#define RT_ALGO_RUN_H

#include <mpi.h>
#include "runtime/api/rt_auto.h"
#include "runtime/api/rt_hooks.h"
#include "runtime/api/rt_pathmap.h"
#include "runtime/api/rt_wait.h"

typedef struct rt_algo_plan rt_algo_plan_t;

/* How many schedules (counts) a plan keeps. */
#define RT_ALGO_PLAN_CACHE 4

/*
 * A plan for `rank` (0 <= rank < spec->nhosts) of `spec`; spec is borrowed
 * and must outlive the plan.  Fails (CM_ERR_INVALID) for a spec the table
 * cannot run (no algorithm, a reduce without broadcast).
 */
cm_status_t rt_algo_plan_create(const rt_algo_spec_t *spec, int32_t rank,
                                rt_algo_plan_t **plan_p, cm_err_t *err);
void rt_algo_plan_destroy(rt_algo_plan_t *plan);

/* What one run reports to an observer (rt_hooks_t.msg); NULL = nothing. */
typedef struct rt_algo_observer {
    void (*msg)(void *loc, rt_msg_t what, unsigned instance, int32_t peer,
                int32_t round, uint32_t step, size_t bytes);   /* rt_hooks_t.msg */
    void    *loc;
    unsigned instance;
} rt_algo_observer_t;

typedef struct rt_algo_call {
    MPI_Comm                  comm;      /* rank i = spec->hosts[i]; the plan's own */
    rt_dtype_t                dtype;
    rt_op_t                   op;
    const int64_t            *arrival;   /* PAP-aware: nhosts times in ns (>= 0),
                                            identical on every rank; NULL = all 0 */
    const rt_wait_policy_t   *policy;
    const rt_algo_observer_t *observer;  /* NULL = none */
    /* auto plans only (ignored by the others; 0 = unknown): */
    int64_t                   arrived_ns; /* when this rank arrived (rt_wait_now_ns); 0:
                                            at the run's start */
    uint64_t                  site;      /* the operation's call site or node, the class
                                            key of the chooser (rt_auto_op_t.site) */
} rt_algo_call_t;

/*
 * One collective on `count` elements of `buf` (this rank's contribution on
 * entry; the allreduce's result on return, on every rank).  Collective
 * over call->comm.  The schedule (cached or made now) is *sched_p on
 * return when sched_p is not NULL (borrowed until the next run; NULL for
 * native), for tests and tracing.
 */
cm_status_t rt_algo_plan_run(rt_algo_plan_t *plan, const rt_algo_call_t *call, void *buf,
                             int64_t count, const rt_sched_t **sched_p, cm_err_t *err);

/*
 * Makes, without running it, the schedule that rt_algo_plan_run would run
 * for `count` and `arrival` (NULL = all 0; nhosts times as in
 * rt_algo_call_t): a later run with the same count and a bit-identical
 * vector uses it as it is (a PAP-aware plan keeps the last vector's
 * schedule; a static one caches per count).  The arrival estimator makes
 * the coming operation's schedule this way in its background thread,
 * before the operation starts (docs/runtime.md, "Arrival estimation with
 * edge()").  *sched_p, when sched_p is not NULL, is the schedule (borrowed
 * until the plan's next prepare or run; NULL for native, which has none).
 * Local: no MPI.  Errors as rt_algo_plan_run's generator errors.
 */
cm_status_t rt_algo_plan_prepare(rt_algo_plan_t *plan, int64_t count, const int64_t *arrival,
                                 const rt_sched_t **sched_p, cm_err_t *err);

/*
 * One schedule's steps for `rank` (an only_rank or all-ranks schedule) on
 * buf: the executor itself, for schedules made elsewhere (tests run a
 * reduce or a broadcast alone this way and check the root).  Allocates its
 * scratch per call; rt_algo_plan_run keeps it in the plan.
 */
cm_status_t rt_sched_run(const rt_sched_t *s, int32_t rank, const rt_algo_call_t *call,
                         void *buf, cm_err_t *err);

/*
 * ---- auto plans (spec->autocfg != NULL; docs/auto.md) -------------------
 * An auto plan holds one plan per candidate (their specs made from the
 * auto spec: run = the candidate's table row, or native; the same hosts,
 * round_ns, segcount, arrival) and a chooser (rt_auto.h).  Its operation:
 *
 *  1. rt_algo_plan_choose: completes the exchange the previous operation
 *     posted (every rank's {elapsed, choice, state hash}), aborts the
 *     agreement if the ranks' choices or state hashes differ
 *     (CM_ERR_MISMATCH: "auto: operation N ran ring on rank 0 but prr on
 *     rank 2"), learns from it (rt_auto_learn, the actual arrivals taken as
 *     max elapsed - elapsed_i: no shared clock is needed), then chooses for
 *     this operation from call->arrival (NULL: all 0), count, call->site.
 *  2. rt_algo_plan_run runs the chosen candidate's plan (choosing first if
 *     choose was not called for this operation), its messages on
 *     call->comm with a tag of the candidate's (1 + 2 * id + (op & 1), id its
 *     row in runtime/algo's table, or the table's size for native),
 *     so that ranks that chose differently cannot match each other's
 *     messages: a rank whose round waits long (RT_AUTO_PROBE_NS) probes
 *     the communicator, and a message with another candidate's tag of the
 *     same operation parity that stays unmatched for RT_AUTO_MISMATCH_NS
 *     ends the run with CM_ERR_MISMATCH naming both choices (the caller
 *     aborts the job, which is then not left hanging).
 *  3. After the run it posts the exchange (MPI_Iallgather of three int64
 *     on call->comm), completed by the next operation or by destroy (which
 *     is then collective: every rank must destroy after the same number of
 *     operations, before its communicator is freed).
 * rt_algo_plan_create of an auto spec is local, like the others, and
 * checks the candidates (each must be able to run on nhosts ranks).  The
 * set-up check that every rank has the same configuration
 * (rt_auto_cfg_hash) is the caller's, with its other set-up checks.
 */
#define RT_AUTO_PROBE_NS (1000 * 1000)   /* probe for a disagreement every 1 ms of waiting */
/* A foreign message is a disagreement once it has waited this long, unmatched, while this
   rank waits too: another auto plan on the same communicator (the profiling library keeps
   one per datatype and rule) may already send its next operation's messages, which wait
   only until this operation ends. */
#define RT_AUTO_MISMATCH_NS (200 * 1000 * 1000)

/*
 * Step 1 above; *choice_p (borrowed until the plan's next call; NULL for a
 * plan that is not auto, which returns CM_OK and does nothing) is what was
 * chosen and why.  Collective only in completing the previous exchange.
 */
cm_status_t rt_algo_plan_choose(rt_algo_plan_t *plan, const rt_algo_call_t *call,
                                int64_t count, const rt_auto_choice_t **choice_p,
                                cm_err_t *err);

/* The chooser of an auto plan (for its names and configuration); NULL otherwise. */
const rt_auto_t *rt_algo_plan_auto(const rt_algo_plan_t *plan);

/* The MPI datatype and op of a paptree type and op. */
MPI_Datatype rt_mpi_dtype(rt_dtype_t dtype);
MPI_Op       rt_mpi_op(rt_op_t op);

#endif /* RT_ALGO_RUN_H */
