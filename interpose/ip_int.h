/*
 * ip_int.h - the insides of lib/libpaptree-mpi.so, the MPI profiling
 * library (docs/interpose.md), shared by its files:
 *
 *   ip_wrap.c   the C MPI_* functions it exports: each calls its ip_* entry
 *               point (ip_entry_int.h) with the caller's return address
 *   ip_init.c   MPI_Init's and MPI_Finalize's work, the settings, the
 *               signal and exit handlers, the PAPTREE_ALGO constructor
 *   ip_comm.c   the per-communicator state, cached on the application's
 *               communicator with a keyval
 *   ip_coll.c   the blocking collectives: decide, run, record
 *   ip_algo.c   running a rule's algorithm (plans, schedules, arrivals)
 *   ip_req.c    the nonblocking collectives and the MPI_Wait and MPI_Test functions
 *               that complete them
 *
 * A profiling library has no context pointer to pass: the application
 * calls MPI_Allreduce, nothing else.  So the library's state is one global,
 * ip_lib, written in MPI_Init (before any other thread may call MPI) and
 * MPI_Finalize (after every MPI call of the program has completed), and
 * read-only in between except for the fields that say how they are
 * protected.  Per-communicator state is used by one thread at a time: MPI
 * forbids concurrent collectives on one communicator.
 *
 * Every file but ip_wrap.c is compiled with ip_pmpi_int.h forced in, so
 * the MPI functions the library intercepts are called by their PMPI_ names
 * inside it.
 */
#ifndef IP_INT_H
#define IP_INT_H

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include "instrument/api/ins_mpi.h"
#include "interpose/api/ip_rules.h"
#include "interpose/ip_entry_int.h"
#include "interpose/ip_report_int.h"
#include "runtime/api/rt_algo_run.h"

/* ---- per communicator (ip_comm.c) ------------------------------------- */

/* A rule's choice made runnable on one communicator for one datatype (and,
   for reduce and bcast, one count and root), kept for the next call. */
typedef struct ip_run {
    struct ip_run     *next;
    const ip_choice_t *choice;
    ip_rule_coll_t     coll;
    rt_dtype_t         dtype;
    rt_algo_spec_t     spec;      /* the choice's, with this communicator's hosts */
    rt_algo_plan_t    *plan;      /* allreduce */
    int64_t            count;     /* reduce, bcast: the call's (part of the key) */
    int32_t            root;
    int                sched_ok;  /* sched is count's and root's, arrival-free */
    rt_sched_t         sched;     /* reduce, bcast: this rank's steps */
    /* auto (spec.autocfg == &autocfg): the rule's configuration with segsize=
       made elements of dtype; the last choice (for the record); call sites
       seen lately and their keys (cm_site_name's hash, the same on every rank) */
    rt_auto_cfg_t      autocfg;
    rt_auto_choice_t   chosen;
    const void        *site_addr[4];
    uint64_t           site_key[4];
} ip_run_t;

/* arrival=history of one collective on one communicator: the ranks' time
   in the previous call, gathered in the background between calls. */
typedef struct ip_hist {
    int         posted;     /* req is an Iallgather of `mine` into `all` */
    MPI_Request req;
    int64_t     mine;       /* ns this rank spent in the call */
    int64_t    *all;        /* size entries */
    int64_t    *arrival;    /* size entries: max(all) - all[i] */
} ip_hist_t;

typedef struct ip_comm {
    MPI_Comm        app;          /* the application's handle (the cache's key) */
    MPI_Comm        dup;          /* private duplicate; MPI_COMM_NULL for an
                                     intercommunicator or a communicator of one */
    uint32_t        id;           /* the trace's, the same on every member */
    int32_t         size, rank;
    int             inter;
    int             dead;         /* freed at MPI_Finalize: only the struct is left */
    rt_host_id_t   *hosts;        /* 0 .. size-1, the specs' hosts */
    ip_run_t       *runs;         /* most recently made first */
    unsigned char  *scratch;      /* a non-root reduce's copy of sendbuf */
    size_t          scratch_bytes;
    ip_hist_t       hist[IP_RULE_NCOLL];
    struct ip_comm *live_next;    /* ip_lib.live, under ip_lib.lock */
    struct ip_comm *live_prev;
} ip_comm_t;

/*
 * The state of comm, made on the first intercepted call on it (collective
 * over comm: every member makes it at the same call).  NULL when it cannot
 * be made (the call then passes through untraced).  Cached per thread for
 * the common path: a lookup is a compare or two.
 */
ip_comm_t *ip_comm_get(MPI_Comm comm);
/* The keyval whose delete callback frees a communicator's state; at init. */
int ip_comm_setup(void);
/* At MPI_Finalize: completes and frees every live state's MPI objects. */
void ip_comm_shutdown(void);
/* A scratch buffer of at least `bytes` in c; NULL out of memory. */
void *ip_comm_scratch(ip_comm_t *c, size_t bytes);

/* ---- the library (ip_init.c) ------------------------------------------ */

typedef struct ip_lib {
    atomic_int       on;           /* between ip_after_init and MPI_Finalize */
    ip_rules_t      *rules;        /* PAPTREE_ALGO, parsed by the constructor; NULL: none */
    ins_mpi_t       *trace;        /* PAPTREE_TRACE; NULL: no trace */
    ip_report_t     *report;       /* PAPTREE_REPORT; NULL: no report */
    MPI_Comm         world;        /* private duplicate of MPI_COMM_WORLD */
    int              world_rank, world_size;
    int              thread_multiple;
    int              comm_keyval;  /* per-communicator state */
    int              self_keyval;  /* on MPI_COMM_SELF: MPI_Finalize's work */
    ip_comm_t       *world_state;  /* MPI_COMM_WORLD's, once made */
    pthread_mutex_t  lock;         /* live, next_id */
    ip_comm_t       *live;
    uint32_t         next_id;
    int              rank_bits;    /* bits of a world rank in a communicator id */
    atomic_uint      comm_gen;     /* bumped when a state is freed: per-thread caches */
    atomic_uintptr_t open_trace;   /* the trace the signal and exit handlers abandon */
} ip_lib_t;

extern ip_lib_t ip_lib;

/* Abandons the open trace, once, from any context (async-signal-safe). */
void ip_trace_abandon(void);

/* ---- recording (ip_coll.c) -------------------------------------------- */

/* Which clocks a call reads: the trace's ticks, nanoseconds for the report. */
typedef struct ip_clock {
    uint64_t tick0, ns0;
} ip_clock_t;

static inline void ip_clock_start(ip_clock_t *c)
{
    c->tick0 = ip_lib.trace ? ins_mpi_now() : 0;
    c->ns0 = ip_lib.report ? rt_wait_now_ns() : 0;
}

/* Records one call (call->enter is set from clk, leave is now) into the
   trace and the report, whichever is on. */
void ip_record(ins_mpi_call_t *call, const ip_clock_t *clk, const void *site,
               uint64_t msg_bytes);
/* The same for a call a rule decided: when an auto rule ran it
   (call->auto_choice), the report counts it under the rule's text and
   the chosen candidate (call->algo) among its choices. */
void ip_record_rule(ins_mpi_call_t *call, const ip_clock_t *clk, const void *site,
                    uint64_t msg_bytes, const ip_choice_t *rule);

/* The size of dtype in bytes, 0 if it has none (MPI_DATATYPE_NULL). */
int64_t ip_type_size(MPI_Datatype dtype);

/* Whether the library intercepts (between MPI_Init and MPI_Finalize). */
static inline int ip_on(void)
{
    return atomic_load_explicit(&ip_lib.on, memory_order_relaxed);
}

/* n elements of size bytes, 0 for a negative count or no size. */
static inline uint64_t ip_mul(int64_t n, int64_t size)
{
    return n > 0 && size > 0 ? (uint64_t)n * (uint64_t)size : 0;
}

/* A record of func on c, Open MPI's own algorithm, no root, no bytes. */
static inline void ip_call_init(ins_mpi_call_t *call, ins_mpi_func_t func, const ip_comm_t *c,
                                int count, MPI_Datatype dtype, MPI_Op op)
{
    *call = (ins_mpi_call_t){ .func = func, .comm = c->id, .root = UINT32_MAX, .count = count,
                              .dtype = dtype, .op = op, .algo = "native" };
}

/* ---- algorithms (ip_algo.c) ------------------------------------------- */

/* What a call asks of an algorithm: the buffers are the application's. */
typedef struct ip_job {
    ip_comm_t         *c;
    const ip_choice_t *choice;
    ip_rule_coll_t     coll;
    const void        *sendbuf;
    void              *buf;       /* allreduce: recvbuf; reduce: recvbuf; bcast: buf */
    int64_t            count;     /* elements of dtype */
    rt_dtype_t         dtype;
    rt_op_t            op;
    int32_t            root;
    uint32_t           trace_comm;
    const void        *site;      /* the caller's return address */
    uint64_t           entry_ns;  /* rt_wait_now_ns() when the call began; 0: unknown */
} ip_job_t;

/*
 * Runs job on its communicator's duplicate.  INS_FB_NONE and *rc_p the MPI
 * code (MPI_SUCCESS, or an error the application's handler has been given)
 * when it ran; else the reason it did not, before anything was sent or the
 * user's buffers were touched (the caller then runs Open MPI's own).  An
 * auto rule's call sets rec->algo (the chosen candidate's name),
 * rec->auto_a and rec->auto_choice (valid until the next call on job's
 * communicator); a disagreement between the ranks' choices, or any error
 * of choosing, stops the job (MPI_Abort) with the message.
 */
ins_mpi_fallback_t ip_algo_run(const ip_job_t *job, int *rc_p, ins_mpi_call_t *rec);

/* Completes c's pending arrival gathers and frees its runs (finalize and
   the communicator's delete callback). */
void ip_algo_comm_free(ip_comm_t *c);

/* ---- nonblocking collectives (ip_req.c) ------------------------------- */

/* Remembers an application's nonblocking collective until its completion
   is seen (call->request is set here). */
void ip_req_track(MPI_Request req, ins_mpi_call_t *call);
/* Requests tracked now (the MPI_Wait and MPI_Test wrappers' fast path: 0 = nothing to do). */
extern atomic_size_t ip_req_count;

#endif /* IP_INT_H */
