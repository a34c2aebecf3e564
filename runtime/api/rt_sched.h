/*
 * rt_sched.h - collective algorithms as pure schedule generators.
 *
 * A schedule says, for every process of a collective, which messages it sends
 * and receives, in which round, with which peer and which part of the vector,
 * and what the receiver does with them (reduce into its copy, or overwrite
 * it).  Generators (runtime/algo/<algorithm>.c, one file each) fill a
 * schedule from integers only: no MPI, no buffers, no datatypes.  Executors
 * run it: over MPI (rt_algo_run.h), symbolically (rt_sched_verify), or under a cost
 * model (rt_sched_simulate).  docs/algorithms.md lists the algorithms.
 *
 * Conventions (docs/algorithms.md, Conventions, is the long version):
 *
 *  - P = nranks, ranks 0..P-1.  Rooted algorithms work on virtual ranks
 *    vrank = (rank - root + P) mod P and store real ranks.
 *  - The vector of `count` elements is cut into `npieces` consecutive pieces
 *    (the partition, piece_off[]).  A step moves pieces [piece, piece+npieces)
 *    and nothing else, so every algorithm's blocks, segments and halves are
 *    unions of pieces.  Pieces may be empty (count < P).
 *  - Rounds are 0-based.  A process's steps are sorted by round; within one
 *    round an executor posts all of them before waiting (a sendrecv), so
 *    their order inside a round carries no meaning.
 *  - Matching: the k-th send from s to d pairs with the k-th receive at d
 *    from s (MPI's non-overtaking rule); both sides must agree on round,
 *    pieces and action.
 *  - Times (arrival times, round length) are integer ticks of a unit the
 *    caller chooses (the tools use nanoseconds).  Integer arithmetic makes a
 *    PAP-aware schedule come out bit-identical on every process, which
 *    Clairvoyant and PRR need (every rank computes the schedule itself).
 *
 * Ownership: a schedule owns its arrays; rt_sched_init zeroes one and
 * rt_sched_free releases it (and may be called on a zeroed or failed one).
 */
#ifndef RT_SCHED_H
#define RT_SCHED_H

#include <stddef.h>
#include <stdint.h>
#include "common/cm_err.h"

/* What the collective computes, and so what the replay checks at the end. */
typedef enum {
    RT_COLL_ALLREDUCE,   /* every rank starts with {rank}, ends with all */
    RT_COLL_REDUCE,      /* every rank starts with {rank}, root ends with all */
    RT_COLL_BCAST        /* root starts with all, others with nothing; all end with all */
} rt_coll_t;

/* Port model: how many transfers one process may take part in per round. */
typedef enum {
    RT_PORT_U,           /* one transfer, send or receive (unidirectional) */
    RT_PORT_B,           /* one send and one receive, any peers (bidirectional) */
    RT_PORT_X            /* B, and a send and receive in one round share the peer */
} rt_port_t;

enum { RT_STEP_SEND = 0, RT_STEP_RECV = 1 };      /* rt_step_t.dir */
enum { RT_ACT_REDUCE = 0, RT_ACT_COPY = 1 };      /* rt_step_t.act */

/* rt_step_t.flags, set on send steps (the receive copies them). */
#define RT_STEP_FINAL 0x1u  /* the payload is the final result: it must be
                               complete when sent (allgather, broadcast) */
#define RT_STEP_MOVE  0x2u  /* the sender gives its data away: its copy of
                               these pieces is dead after the send (reduce
                               trees); the replay empties it */

/* 16 bytes: the ring at P = 4096 has 67 M steps. */
typedef struct rt_step {
    int32_t  round;
    int32_t  peer;          /* real rank */
    int32_t  piece;         /* first piece */
    uint32_t npieces : 26;  /* consecutive pieces, 1 .. RT_STEP_PIECES_MAX */
    uint32_t dir : 1;       /* RT_STEP_SEND or RT_STEP_RECV */
    uint32_t act : 1;       /* RT_ACT_REDUCE or RT_ACT_COPY (both sides) */
    uint32_t flags : 4;     /* RT_STEP_FINAL, RT_STEP_MOVE */
} rt_step_t;

#define RT_STEP_PIECES_MAX ((1 << 26) - 1)

#define RT_ROUND_UNSET (-1)  /* rounds to be assigned by rt_sched_asap */

typedef struct rt_sched {
    const char *algo;        /* table name of the generator (static) */
    rt_coll_t   coll;
    rt_port_t   port;        /* the model the algorithm claims (verified) */
    int32_t     nranks;
    int32_t     root;        /* rooted collectives; 0 for allreduce */
    int32_t     only_rank;   /* -1: steps of every rank; else of this rank only */
    int64_t     count;       /* elements */
    int32_t     npieces;
    int64_t    *piece_off;   /* npieces + 1 offsets; [0] = 0, [npieces] = count */
    int32_t     nrounds;     /* 1 + the largest round of any step (0: no steps) */
    int32_t     nrounds_all; /* the all-ranks schedule's nrounds, also in a one-rank
                                schedule when its generator knows it (rt_sched_note_round,
                                rt_sched_keep_rank); 0: not known */
    /* Steps of rank r: steps[step_start[r] .. step_start[r+1]). */
    size_t     *step_start;  /* nranks + 1 entries, after rt_sched_finish */
    rt_step_t  *steps;
    size_t      nsteps;
    /* Building state (rt_sched_step appends; rt_sched_finish sorts).
       While steps arrive rank by rank, step_start is filled as they come
       and no per-step rank is stored; the first step out of rank order
       switches to step_rank_ and one counting sort at the end. */
    int32_t    *step_rank_;
    size_t      cap_;
    int32_t     last_rank_;
    int         sorted_;
} rt_sched_t;

#define RT_SCHED_RANKS_MAX (1 << 20)

/* ---- Parameters and the algorithm table ------------------------------ */

/* Binary tree shapes for the pipelined binary tree reduce (bintree.c). */
typedef enum { RT_TREE_HEAP, RT_TREE_OMPI } rt_tree_shape_t;

/*
 * Everything any generator reads.  Zero means "default" where a default
 * exists; each generator documents which fields it reads and rejects
 * (CM_ERR_UNSUPPORTED or CM_ERR_INVALID, with a message) what it cannot do.
 * There is no silent fallback to another algorithm.
 */
typedef struct rt_algo_params {
    int32_t        nranks;      /* P >= 1 */
    int32_t        root;        /* rooted collectives: 0 <= root < P */
    int64_t        count;       /* elements >= 0 */
    int64_t        segcount;    /* pipeline segment size in elements (> 0), or 0 */
    int32_t        nsegs;       /* pipeline segment count (> 0), or 0; not both */
    const int64_t *arrival;     /* nranks arrival times in ticks, or NULL (all 0) */
    int64_t        round_len;   /* ticks per round (Clairvoyant d, PRR tau) */
    int32_t        ppn;         /* NAP: processes per node (ranks node*ppn + l) */
    const int32_t *nap_steps;   /* NAP: explicit step sizes, or NULL (default) */
    int32_t        nap_nsteps;
    rt_port_t      port;        /* ASAP-scheduled reduce trees: U or B */
    rt_tree_shape_t tree;       /* pipelined binary tree shape */
} rt_algo_params_t;

/*
 * A generator fills `s` (initialised by the caller with rt_sched_init) for
 * every rank (rank == -1) or for one rank.  On error `s` is left for
 * rt_sched_free and err says why.
 */
typedef cm_status_t rt_algo_gen_fn(rt_sched_t *s, const rt_algo_params_t *p,
                                   int32_t rank, cm_err_t *err);

typedef struct rt_algo_info {
    const char     *name;       /* "ring", "rd", "clv", ... */
    rt_coll_t       coll;
    rt_algo_gen_fn *gen;
    const char     *params;     /* the rt_algo_params_t fields it reads */
    const char     *requires;   /* preconditions, in words */
    const char     *summary;    /* one line: what it is for */
    const char     *source;     /* paper or code it follows */
} rt_algo_info_t;

/* The table (runtime/algo/algo_table.c), in docs/algorithms.md order. */
const rt_algo_info_t *rt_algo_table(size_t *n);
/* NULL if no algorithm has that name. */
const rt_algo_info_t *rt_algo_find(const char *name);

/*
 * An allreduce as `reduce` followed by `bcast` from the same root (both are
 * table entries of those kinds).  The broadcast's rounds follow the
 * reduction's; the partition is the common refinement of both.
 */
cm_status_t rt_algo_reduce_bcast(rt_sched_t *s, const rt_algo_info_t *reduce,
                                 const rt_algo_info_t *bcast,
                                 const rt_algo_params_t *p, int32_t rank,
                                 cm_err_t *err);

/* ---- Building a schedule (for generators) ----------------------------- */

void rt_sched_init(rt_sched_t *s);
void rt_sched_free(rt_sched_t *s);

/*
 * Sets the header: algorithm name, collective, port model, P, root, count,
 * only_rank (-1 or a rank), and the partition (npieces >= 1 offsets are
 * copied from piece_off, which must run from 0 to count, non-decreasing).
 */
cm_status_t rt_sched_begin(rt_sched_t *s, const char *algo, rt_coll_t coll,
                           rt_port_t port, const rt_algo_params_t *p,
                           int32_t only_rank, int32_t npieces,
                           const int64_t *piece_off, cm_err_t *err);

/*
 * Appends one step of `rank` (dropped when only_rank is another rank).
 * Steps of one rank must be appended in round order (or all with
 * RT_ROUND_UNSET, in execution order, for rt_sched_asap); ranks may
 * interleave.
 */
cm_status_t rt_sched_step(rt_sched_t *s, int32_t rank, int32_t round,
                          int32_t peer, int dir, int act, unsigned flags,
                          int32_t piece, int32_t npieces);

/* Makes room for nsteps more steps at once (optional: generators that know
   their size avoid the copies of a growing array). */
cm_status_t rt_sched_reserve(rt_sched_t *s, size_t nsteps);

/* Both ends of one transfer: src's send and dst's receive. */
cm_status_t rt_sched_xfer(rt_sched_t *s, int32_t round, int32_t src,
                          int32_t dst, int act, unsigned flags,
                          int32_t piece, int32_t npieces);

/*
 * Groups the steps by rank (stable), computes nrounds and checks that every
 * rank's rounds never decrease.  Call once, after the last rt_sched_step.
 */
cm_status_t rt_sched_finish(rt_sched_t *s, cm_err_t *err);

/* Steps of one rank after rt_sched_finish. */
static inline const rt_step_t *rt_sched_rank_steps(const rt_sched_t *s,
                                                   int32_t rank, size_t *n)
{
    *n = s->step_start[rank + 1] - s->step_start[rank];
    return s->steps + s->step_start[rank];
}

/*
 * ASAP rounds (docs/algorithms.md, Conventions): every step of
 * a finished, all-ranks schedule has RT_ROUND_UNSET and each rank's steps are
 * in execution order.  A matched send/receive pair takes the first round in
 * which both ends are free (under RT_PORT_U one stream per process, under
 * RT_PORT_B separate send and receive streams), and a send of pieces waits
 * until the sender has received every earlier-listed contribution to them.
 * Sets s->port.  CM_ERR_INVALID if the sequences cannot be matched (a
 * deadlock of the in-order program), with the stuck ranks in err.
 */
cm_status_t rt_sched_asap(rt_sched_t *s, rt_port_t port, cm_err_t *err);

/* Keeps only `rank`'s steps (only_rank = rank); nrounds_all keeps the
   all-ranks count. */
void rt_sched_keep_rank(rt_sched_t *s, int32_t rank);

/*
 * A one-rank generator that skips the other ranks' steps says that some
 * rank has a step in `round`, so that the schedule's nrounds_all is the
 * all-ranks count (rt_algo_reduce_bcast places the broadcast after it).
 * Call it for every step, kept or not.
 */
static inline void rt_sched_note_round(rt_sched_t *s, int32_t round)
{
    if (round >= s->nrounds_all)
        s->nrounds_all = round + 1;
}

/* ---- Partitions (docs/algorithms.md, Conventions) --------------------- */

/* EL (Open MPI early/late): k blocks, the first count mod k one larger.
   off must hold k + 1 entries. */
void rt_part_el(int64_t count, int32_t k, int64_t *off);
/* Fixed segment size: ceil(count/seg) segments (at least 1), the last short;
   returns the number of segments.  off may be NULL to only count. */
int32_t rt_part_fixed(int64_t count, int64_t seg, int64_t *off);
/*
 * The pipeline segments of p: segcount gives fixed-size segments, nsegs
 * gives an EL partition into nsegs, neither gives one segment.  Allocates
 * *off (nsegs + 1); returns the number or a negative status with err set.
 */
int32_t rt_part_segments(const rt_algo_params_t *p, int64_t **off,
                         cm_err_t *err);

/* Open MPI's byte segment size to elements (COLL_BASE_COMPUTED_SEGCOUNT,
   runtime/algo/ring.c): segsize / typesize, one more if the leftover exceeds
   half an element; count when segsize < typesize or segsize >= typesize *
   count. */
int64_t rt_algo_ring_segcount(int64_t segsize, int64_t typesize,
                              int64_t count);

/* Largest power of two <= n (n >= 1). */
int32_t rt_pof2_floor(int32_t n);

/* ---- Replay verifier (runtime/algo/sched_verify.c) -------------------- */

/*
 * Executes an all-ranks schedule symbolically and checks the invariants of
 * docs/algorithms.md: every send has a matching receive and they agree;
 * the port model s->port holds in every round; replaying the rounds with
 * token sets (start-of-round payloads), a reduce never meets a token twice
 * (payload and receiver disjoint), a copy replaces the receiver's set, a
 * RT_STEP_MOVE send empties the sender's, a RT_STEP_FINAL payload is
 * complete when sent; at the end every required holder (all ranks, or the
 * root of a reduce) holds every token of every piece; and executing each
 * rank's steps in order, one round's steps posted together and each send
 * waiting for its receive (rendezvous), nobody is left blocked.
 * Returns CM_OK or CM_ERR_VERIFY with the first violation in err.
 */
cm_status_t rt_sched_verify(const rt_sched_t *s, cm_err_t *err);

/* ---- Cost-model simulation (runtime/algo/sched_sim.c) ----------------- */

/* Hockney / linear cost model (Tanaka, Bienz et al.): a message of m bytes
   costs alpha + beta*m; reducing it costs gamma*m at the receiver. */
typedef struct rt_cost {
    double alpha;        /* s per message */
    double beta;         /* s per byte */
    double gamma;        /* s per byte reduced */
    double elem_bytes;   /* bytes per element */
} rt_cost_t;

typedef struct rt_sim_result {
    double *finish;      /* nranks: when each rank is done (s) */
    double  avg_elapsed; /* mean over ranks of finish - arrival */
    double  max_elapsed;
    double  completion;  /* last finish - first arrival */
} rt_sim_result_t;

/*
 * Runs an all-ranks schedule with rank r starting at arrival_s[r] (NULL: all
 * at 0).  Each rank executes its rounds in order; a round starts when the
 * rank is free, each of its transfers starts when both ends have started
 * that round (rendezvous) and lasts alpha + beta*m, a reduce adds gamma*m at
 * the receiver, and the round ends when its last transfer does.  res->finish
 * is allocated (free it with rt_sim_result_free).
 */
cm_status_t rt_sched_simulate(const rt_sched_t *s, const rt_cost_t *cost,
                              const double *arrival_s, rt_sim_result_t *res,
                              cm_err_t *err);
void rt_sim_result_free(rt_sim_result_t *res);

#endif /* RT_SCHED_H */
