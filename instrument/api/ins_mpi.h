/*
 * ins_mpi.h - the trace of an unmodified MPI program's collectives, as the
 * profiling library (interpose/, lib/libpaptree-mpi.so) records them
 * (docs/trace-format.md, "Application traces").
 *
 * The archive is written the way Score-P writes MPI: one region per MPI
 * function (paradigm MPI, a collective role), per call Enter,
 * MpiCollectiveBegin, MpiCollectiveEnd (collective op, communicator, root,
 * bytes sent and received), Leave; nonblocking collectives as
 * NonBlockingCollectiveRequest at the call and NonBlockingCollectiveComplete
 * in the MPI_Wait or MPI_Test that completed them; communicator
 * definitions with their groups of world ranks.  paptree's own facts (call
 * site, algorithm, fallback, count, datatype, op) are attributes of the
 * Enter event (ins_schema.h, "Application traces").  An algorithm's
 * messages are recorded as the algorithm nodes record them.
 *
 * Usage, from the library:
 *
 *     ins_mpi_open(&opts, world_dup, &tr, &err);          collective, in MPI_Init
 *     ins_mpi_comm(tr, &def);                             per communicator, once
 *     t = ins_mpi_now(); ... ; ins_mpi_record(tr, &call); per call, any thread
 *     ins_mpi_close(tr, &err);                            collective, at MPI_Finalize
 *
 * Recording: each thread that records gets its own location and a buffer
 * in memory (a record is a few stores, no lock, no system call); a full
 * buffer is written out on its thread and recording goes on.  Everything
 * is written to "<dir>.partial" and renamed to <dir> by rank 0 only when
 * every rank has written its part: <dir> holds a complete archive or
 * nothing.  A run cut short (MPI_Abort, SIGINT, SIGTERM, exit without
 * MPI_Finalize) calls ins_mpi_abandon, which removes this rank's partial
 * files; no <dir> appears.
 */
#ifndef INS_MPI_H
#define INS_MPI_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include "common/cm_err.h"

typedef struct ins_mpi ins_mpi_t;

typedef struct ins_mpi_opts {
    const char *dir;      /* archive directory; the anchor is dir/traces.otf2 */
    int         force;    /* replace an existing archive at dir (only an OTF2 one) */
    const char *command;  /* the program's argv, space-joined; recorded; may be NULL */
    size_t      mem;      /* bytes of event buffers per process; 0 = default (32 MiB):
                             the first thread's buffer is half of it, each next
                             thread's half of what is left, at least 64 KiB */
    /* Added after the contract (issue 25): */
    const char *rules;    /* the --algo rules as given, recorded as INS_PROP_RULES;
                             NULL = the environment's PAPTREE_ALGO, or "" */
} ins_mpi_opts_t;

/*
 * Collective over `comm` (a private duplicate of MPI_COMM_WORLD that the
 * library keeps until ins_mpi_close).  Rank 0 checks the directory; the
 * status is the same on every rank; on failure err says why on every rank.
 */
cm_status_t ins_mpi_open(const ins_mpi_opts_t *opts, MPI_Comm comm, ins_mpi_t **tr_p,
                         cm_err_t *err);

/* The event clock (the trace's ticks). */
uint64_t ins_mpi_now(void);

/* The MPI functions a record can be about (one region each). */
typedef enum {
    INS_MPI_ALLREDUCE, INS_MPI_REDUCE, INS_MPI_BCAST, INS_MPI_BARRIER, INS_MPI_ALLGATHER,
    INS_MPI_REDUCE_SCATTER_BLOCK, INS_MPI_IALLREDUCE, INS_MPI_IREDUCE, INS_MPI_IBCAST,
    INS_MPI_WAIT, INS_MPI_TEST,   /* the completing call of a nonblocking one */
    INS_MPI_NFUNCS
} ins_mpi_func_t;

/* "MPI_Allreduce", ... */
const char *ins_mpi_func_name(ins_mpi_func_t f);

/*
 * A communicator, defined once by each of its members, with the same id
 * on every member (the library agrees on it).  `world_ranks` lists its
 * members' ranks in MPI_COMM_WORLD in communicator rank order (borrowed
 * for the call).  Thread-safe.
 */
typedef struct ins_mpi_comm_def {
    uint32_t       id;           /* unique in the run; 0 = MPI_COMM_WORLD, 1 = this rank's MPI_COMM_SELF
                                    is not traced as such: see ins_schema.h */
    const char    *name;         /* MPI_Comm_get_name's, or "" */
    int32_t        size;
    const int32_t *world_ranks;  /* size entries */
    uint32_t       parent;       /* the id it was made from, or UINT32_MAX */
} ins_mpi_comm_def_t;

cm_status_t ins_mpi_comm(ins_mpi_t *tr, const ins_mpi_comm_def_t *def, cm_err_t *err);
/* (Every communicator a record names must be defined: at close rank 0
   writes the definitions the ranks made, the first one per id.) */

/* Why a call did not run the algorithm its rule chose (0: it did, or no rule). */
typedef enum {
    INS_FB_NONE = 0,
    INS_FB_DATATYPE,      /* a datatype the kernels do not handle (derived, non-contiguous, ...) */
    INS_FB_OP,            /* an op the kernels do not have (MPI_PROD, logical, ...) */
    INS_FB_USER_OP,       /* a user-defined operation */
    INS_FB_NONCOMMUTATIVE,/* a non-commutative user operation */
    INS_FB_INTERCOMM,     /* an intercommunicator */
    INS_FB_COUNT,         /* a count the algorithm does not accept (its precondition) */
    INS_FB_ARGS,          /* arguments MPI would reject: Open MPI raises the error */
    INS_FB_OTHER,         /* anything else; the record's detail says what */
    INS_FB_NREASONS
} ins_mpi_fallback_t;

/* "datatype", "op", "user-op", "noncommutative", "intercomm", "count", "args", "other". */
const char *ins_mpi_fallback_name(ins_mpi_fallback_t r);

/* One call (or, for a nonblocking collective, its request and its
   completion: two records with the same request id). */
typedef struct ins_mpi_call {
    ins_mpi_func_t     func;
    uint64_t           enter, leave;    /* ins_mpi_now() ticks */
    uint64_t           callsite;        /* the caller's return address (this process's) */
    uint32_t           comm;            /* ins_mpi_comm_def_t.id */
    uint32_t           root;            /* rank in comm; UINT32_MAX if none */
    uint64_t           bytes_sent;      /* as Score-P counts them */
    uint64_t           bytes_recv;
    int64_t            count;
    MPI_Datatype       dtype;           /* MPI_DATATYPE_NULL for barrier */
    MPI_Op             op;              /* MPI_OP_NULL if none */
    const char        *algo;            /* "native" or the rule's ALGO text; static or
                                           kept until close (the writer interns it) */
    ins_mpi_fallback_t fallback;
    uint64_t           request;         /* nonblocking: the request's id; else 0 */
    /* Added after the contract (issue 25): */
    ins_mpi_func_t     completed;       /* INS_MPI_WAIT / INS_MPI_TEST: the nonblocking
                                           function whose request completed
                                           (INS_MPI_IALLREDUCE, ...); for the collective
                                           op of NonBlockingCollectiveComplete.  Left 0,
                                           the op is told by the record's fields: no op
                                           = bcast, a root = reduce, else allreduce */
    /* Added for `auto` (issue 26): a call an auto rule ran.  algo is then the
       chosen candidate's name (rt_auto_cand_name).  Both NULL otherwise;
       borrowed for ins_mpi_record only (the record copies what it writes). */
    const struct rt_auto          *auto_a;
    const struct rt_auto_choice   *auto_choice;
} ins_mpi_call_t;

/* Records one call on the calling thread's location.  Thread-safe, no lock
   on the common path. */
void ins_mpi_record(ins_mpi_t *tr, const ins_mpi_call_t *call);

/* The messages of an algorithm the library ran for the call being
   recorded (the hooks an algorithm node's observer gets): a
   runtime/api/rt_algo_run.h observer for the calling thread's location. */
struct rt_algo_observer;
void ins_mpi_observer(ins_mpi_t *tr, uint32_t comm, struct rt_algo_observer *obs);

/*
 * Collective over the comm of ins_mpi_open: writes the events and
 * definitions (call sites as module+offset strings, symbolised later by
 * papanalyze), renames the archive into place, frees tr.  On failure
 * nothing is left at opts.dir and err says why, on every rank.
 */
cm_status_t ins_mpi_close(ins_mpi_t *tr, cm_err_t *err);

/* Local, async-signal-safe: removes this rank's partial files (and, on
   rank 0, the partial directory).  For MPI_Abort, signals and exit
   without MPI_Finalize.  The files other ranks still write stay until
   they abandon too; the directories go with the last rank's files (each
   rank removes them if empty).  tr stays allocated (the process is
   ending); not after ins_mpi_close (which frees tr).  NULL: nothing. */
void ins_mpi_abandon(ins_mpi_t *tr);

#endif /* INS_MPI_H */
