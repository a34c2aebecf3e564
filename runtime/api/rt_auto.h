/*
 * rt_auto.h - `auto`: the allreduce algorithm chosen per operation from the
 * arrival pattern (docs/auto.md is the long version).
 *
 * A chooser (rt_auto_t) holds a candidate set (default rd, ring,
 * rabenseifner, prr, slt, native), a cost model of the machine (netfit's
 * alpha, beta, gamma: rt_net_t) and what it learned from past operations.
 * Per operation, rt_auto_choose takes what every rank of the collective
 * shares (element count, element size, number of ranks, the class of the
 * operation: call site and size, and the agreed arrival vector) and returns
 * the candidate to run with the reason and every candidate's predicted
 * time.  After the operation, rt_auto_learn takes the measured times, also
 * agreed (gathered from every rank), and corrects the model for the
 * candidate that ran.
 *
 * Agreement.  A chooser is a deterministic function of its configuration
 * and of the sequence of its calls' arguments: integer arithmetic where
 * state is kept, and the simulator (rt_sched_simulate) on bit-identical
 * inputs.  Two choosers made from the same configuration and given the same
 * calls make the same choices; every rank of a collective keeps one and
 * feeds it gathered data only, so every rank chooses the same.
 * rt_auto_state_hash summarises the state for the callers' check that
 * the ranks still agree (they exchange it with the measured times), and
 * rt_auto_cfg_hash the configuration, checked once at set-up.
 *
 * The objective is the mean over ranks of the time each spends in the
 * operation (finish - arrival), which is what papbench and Proficz 2018
 * (section 5.1) measure: rt_sim_result_t.avg_elapsed of the simulator.
 *
 * Pure C: no MPI, no threads, no I/O (rt_auto_net_default reads a file).
 * A chooser is used by one thread at a time.
 */
#ifndef RT_AUTO_H
#define RT_AUTO_H

#include <stddef.h>
#include <stdint.h>
#include "common/cm_err.h"
#include "runtime/api/rt_sched.h"
#include "runtime/api/rt_sim.h"

#define RT_AUTO_CAND_MAX 8              /* candidates of one chooser */
#define RT_AUTO_NATIVE   "native"       /* the candidate that is MPI_Allreduce */
#define RT_AUTO_DEFAULT_CANDIDATES "rd,ring,rabenseifner,prr,slt,native"
/* What making a PAP-aware schedule costs a rank per step of its one-rank
   schedule, ns: bin/autobench on the development machine (docs/auto.md). */
#define RT_AUTO_GEN_NS_PER_STEP 30

/* Why a candidate was chosen (rt_auto_reason_name spells them). */
typedef enum rt_auto_reason {
    RT_AUTO_ONLY,      /* "only": a single candidate can run this count */
    RT_AUTO_MODEL,     /* "model": the lowest corrected prediction */
    RT_AUTO_KEPT,      /* "kept": the class's previous choice, within the hysteresis
                          margin of the lowest */
    RT_AUTO_EXPLORE    /* "explore": tried to measure it (few samples, predicted close) */
} rt_auto_reason_t;

/* The configuration: the same on every rank (rt_auto_cfg_hash is checked). */
typedef struct rt_auto_cfg {
    uint32_t    ncand;
    const char *cand[RT_AUTO_CAND_MAX];  /* table names or RT_AUTO_NATIVE; each an
                                            allreduce of runtime/algo's table */
    rt_net_t    net;                     /* the cost model */
    /* The parameters the candidates take (rt_algo_params_t): */
    int64_t     round_ns;                /* prr's tau (> 0) */
    int64_t     segcount;                /* slt's segment, elements, or 0 */
    /* Tuning, each with a default (rt_auto_cfg_default): */
    int32_t     hysteresis_pct;          /* keep the previous choice unless the best is
                                            this many per cent faster (10) */
    int32_t     explore_every;           /* an exploring operation at most every N of a
                                            class (16); 0: never explore */
    int32_t     explore_pct;             /* explore only candidates predicted within this
                                            many per cent of the best (50) */
    int32_t     learn_shift;             /* correction moves 1/2^shift of the way to each
                                            new ratio (2: a quarter) */
    int64_t     gen_ns_per_step;         /* what making a PAP-aware schedule costs a rank,
                                            per step of the all-ranks schedule (measured,
                                            docs/auto.md) */
    int64_t     exchange_ns;             /* what the arrival vector's exchange adds to an
                                            operation that needs it (0 with history: it
                                            is in flight during the computation) */
} rt_auto_cfg_t;

/*
 * Defaults: the candidates of RT_AUTO_DEFAULT_CANDIDATES, `net` from
 * rt_auto_net_default's built-in values, round_ns RT_ALGO_ROUND_NS_DEFAULT
 * (rt_pathmap.h), the tuning values above.
 */
void rt_auto_cfg_default(rt_auto_cfg_t *cfg);

/*
 * Parses a candidate list "ring,prr,native" into cfg (names borrowed from
 * the table, so they outlive the string).  CM_ERR_NAME for a name that is
 * not an allreduce of the table nor native (the message lists the valid
 * ones), CM_ERR_SYNTAX for an empty list or name, CM_ERR_RANGE for more
 * than RT_AUTO_CAND_MAX, CM_ERR_INVALID for a name given twice.
 */
cm_status_t rt_auto_cfg_candidates(rt_auto_cfg_t *cfg, const char *list, cm_err_t *err);

/*
 * The machine's cost model: the net file named by the environment variable
 * PAPTREE_NET (rt_net_read) if it is set, else built-in values measured on
 * the development machine by bin/netfit (docs/auto.md says when).
 */
cm_status_t rt_auto_net_default(rt_net_t *net, cm_err_t *err);

/* FNV-1a of everything in cfg that affects a choice (names, not pointers). */
uint64_t rt_auto_cfg_hash(const rt_auto_cfg_t *cfg);

typedef struct rt_auto rt_auto_t;

/* A chooser for collectives of `nranks` ranks; cfg is copied. */
cm_status_t rt_auto_create(const rt_auto_cfg_t *cfg, int32_t nranks, rt_auto_t **a_p,
                           cm_err_t *err);
void rt_auto_destroy(rt_auto_t *a);

/* One operation, as every rank sees it. */
typedef struct rt_auto_op {
    int64_t        count;       /* elements */
    int32_t        elem_bytes;  /* bytes per element */
    uint64_t       site;        /* the call site (or node) it belongs to; 0 if none */
    const int64_t *arrival;     /* nranks arrival times, ns, >= 0, agreed; NULL = all 0 */
} rt_auto_op_t;

/* One choice, with what it was made from (for the trace and the tests). */
typedef struct rt_auto_choice {
    int32_t          chosen;                   /* index into cfg.cand */
    int32_t          previous;                 /* the class's previous choice, or -1 */
    rt_auto_reason_t reason;
    uint32_t         ncand;
    int64_t          pred_ns[RT_AUTO_CAND_MAX];   /* the model's prediction of the objective;
                                                    -1: not predicted (cannot run this
                                                    count, or PAP-aware and skipped) */
    int64_t          corr_ns[RT_AUTO_CAND_MAX];   /* the prediction corrected by what was
                                                    measured (what is compared); -1 likewise */
    uint32_t         skipped;                     /* bit i: candidate i is PAP-aware and was
                                                    not predicted: the spread cannot pay for
                                                    making its schedule */
    int64_t          spread_ns;                   /* max - min of the arrival vector */
    int32_t          size_class;                  /* floor(log2(bytes)), the class's size part */
    uint64_t         op;                          /* the chooser's operation number, from 0 */
} rt_auto_choice_t;

/*
 * The choice for one operation.  Deterministic (see above).  CM_ERR_UNSUPPORTED
 * when no candidate can run op->count (every generator refused it), with the
 * generators' reasons.
 */
cm_status_t rt_auto_choose(rt_auto_t *a, const rt_auto_op_t *op, rt_auto_choice_t *out,
                           cm_err_t *err);

/*
 * What the last chosen operation measured: per rank, its arrival (ns, the
 * same clock or relative offsets as rt_auto_op_t.arrival: the vector that
 * actually happened) and the time it spent in the operation (ns), both
 * gathered from every rank so that every chooser learns alike.  Corrects
 * the model of the candidate that ran, in the operation's class.  Calls
 * without a choose before them are ignored.
 */
void rt_auto_learn(rt_auto_t *a, const int64_t *arrival, const int64_t *elapsed);

/* A summary of the learned state (FNV-1a over it), for the agreement check. */
uint64_t rt_auto_state_hash(const rt_auto_t *a);

/* The name of candidate i ("ring", "native", ...); the configuration's. */
const char *rt_auto_cand_name(const rt_auto_t *a, int32_t i);
const rt_auto_cfg_t *rt_auto_cfg(const rt_auto_t *a);
const char *rt_auto_reason_name(rt_auto_reason_t r);

#endif /* RT_AUTO_H */
